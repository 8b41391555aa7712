//! The experiment's report, without file I/O: runs grouped into conditions
//! by name ([`group`]), test success per condition and per domain with 95%
//! t-intervals over seeds ([`stats`], [`table`]), training success at the
//! end and the learning curves averaged over seeds ([`curves`]), beside the
//! paper's figures. `wsitec report` reads the files and draws the figure
//! (`figure`, feature `plot`).
//!
//! A run is named `CONDITION-SEED` (`verified-dense-2`); every run whose name
//! differs only in the trailing seed belongs to one condition.

pub mod curves;
#[cfg(feature = "plot")]
pub mod figure;
pub mod stats;
pub mod table;

use serde::Deserialize;

/// One line of a run's `metrics.jsonl`: what the report needs of an update
/// (the trainer writes more; the rest is ignored).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct UpdatePoint {
    pub env_steps: u64,
    pub episodes: usize,
    pub success_rate: f64,
}

/// One success rate of `wsitec eval --format json`: overall, a domain's, a site's.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Rate {
    pub name: String,
    pub success_rate: f64,
    pub successes: usize,
    pub episodes: usize,
}

/// What `wsitec eval --format json` reports of a policy on a set of sites.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Evaluation {
    pub overall: Rate,
    pub domains: Vec<Rate>,
}

/// One training run and its evaluations.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub name: String,
    pub updates: Vec<UpdatePoint>,
    /// On the generated test split.
    pub test: Option<Evaluation>,
    /// On the hand-written held-out sites.
    pub heldout: Option<Evaluation>,
}

/// The runs of one condition, seeds ascending.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub name: String,
    pub runs: Vec<Run>,
}

/// The paper's conditions in its order, with its held-out success rates.
pub const PAPER: [(&str, f64); 4] = [
    ("raw-terminal", 0.194),
    ("raw-dense", 0.272),
    ("verified-terminal", 0.426),
    ("verified-dense", 0.587),
];

/// The paper's success rate for a condition it ran.
pub fn paper_success(condition: &str) -> Option<f64> {
    PAPER
        .iter()
        .find(|(name, _)| *name == condition)
        .map(|&(_, rate)| rate)
}

/// A run name's condition and seed: `raw-dense-2` → (`raw-dense`, 2). A name
/// without a numeric suffix is a condition of its own with no seed.
pub fn split_seed(run: &str) -> (&str, Option<u64>) {
    match run.rsplit_once('-') {
        Some((condition, seed)) if !condition.is_empty() => match seed.parse() {
            Ok(seed) => (condition, Some(seed)),
            Err(_) => (run, None),
        },
        _ => (run, None),
    }
}

/// The runs grouped into conditions: the paper's four first in its order,
/// then the others by name; within a condition, seeds ascending.
pub fn group(runs: Vec<Run>) -> Vec<Condition> {
    let mut conditions: Vec<Condition> = Vec::new();
    for run in runs {
        let name = split_seed(&run.name).0.to_string();
        match conditions.iter_mut().find(|c| c.name == name) {
            Some(c) => c.runs.push(run),
            None => conditions.push(Condition {
                name,
                runs: vec![run],
            }),
        }
    }
    for c in &mut conditions {
        c.runs.sort_by(|a, b| {
            (split_seed(&a.name).1, &a.name).cmp(&(split_seed(&b.name).1, &b.name))
        });
    }
    let rank = |name: &str| {
        PAPER
            .iter()
            .position(|(p, _)| *p == name)
            .unwrap_or(PAPER.len())
    };
    conditions.sort_by(|a, b| (rank(&a.name), &a.name).cmp(&(rank(&b.name), &b.name)));
    conditions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str) -> Run {
        Run {
            name: name.into(),
            updates: Vec::new(),
            test: None,
            heldout: None,
        }
    }

    fn names(conditions: &[Condition]) -> Vec<(String, Vec<String>)> {
        conditions
            .iter()
            .map(|c| {
                (
                    c.name.clone(),
                    c.runs.iter().map(|r| r.name.clone()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn seeds_split_off_the_last_dash_only_when_numeric() {
        assert_eq!(
            split_seed("verified-dense-12"),
            ("verified-dense", Some(12))
        );
        assert_eq!(split_seed("raw-dense"), ("raw-dense", None));
        assert_eq!(split_seed("baseline"), ("baseline", None));
        assert_eq!(split_seed("-3"), ("-3", None));
    }

    #[test]
    fn runs_group_by_condition_in_the_papers_order_then_by_name() {
        let runs = [
            "zeta-0",
            "verified-dense-10",
            "raw-terminal-1",
            "verified-dense-2",
            "alpha-1",
            "raw-terminal-0",
            "raw-dense-0",
        ];
        let grouped = group(runs.iter().map(|n| run(n)).collect());
        let expect =
            |c: &str, rs: &[&str]| (c.to_string(), rs.iter().map(|s| s.to_string()).collect());
        assert_eq!(
            names(&grouped),
            vec![
                expect("raw-terminal", &["raw-terminal-0", "raw-terminal-1"]),
                expect("raw-dense", &["raw-dense-0"]),
                // Seeds sort as numbers: 2 before 10.
                expect("verified-dense", &["verified-dense-2", "verified-dense-10"]),
                expect("alpha", &["alpha-1"]),
                expect("zeta", &["zeta-0"]),
            ]
        );
    }

    #[test]
    fn the_papers_figures_belong_to_its_conditions() {
        assert_eq!(paper_success("verified-dense"), Some(0.587));
        assert_eq!(paper_success("raw-terminal"), Some(0.194));
        assert_eq!(paper_success("alpha"), None);
    }

    #[test]
    fn metrics_and_evaluations_parse_from_what_the_trainer_writes() {
        let line = r#"{"update":3,"env_steps":4096,"episodes":7,"mean_return":0.5,"success_rate":0.25,"policy_loss":0.1}"#;
        let p: UpdatePoint = serde_json::from_str(line).unwrap();
        assert_eq!(
            p,
            UpdatePoint {
                env_steps: 4096,
                episodes: 7,
                success_rate: 0.25
            }
        );
        let eval = r#"{"sites":[],"domains":[{"name":"shop","successes":3,"episodes":4,"success_rate":0.75,"ci95":[0.3,0.95]}],
            "overall":{"name":"all","successes":3,"episodes":4,"success_rate":0.75,"ci95":[0.3,0.95]}}"#;
        let e: Evaluation = serde_json::from_str(eval).unwrap();
        assert_eq!(e.domains[0].name, "shop");
        assert_eq!(e.overall.successes, 3);
    }
}
