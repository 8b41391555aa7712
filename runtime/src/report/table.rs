//! The report's Markdown: test success per condition (mean of seeds, 95%
//! t-interval, each seed, training success at the end, the paper's figure),
//! the same per domain, whether the paper's ordering holds, and the same
//! tables for the hand-written held-out sites when the runs were evaluated
//! on them.

use super::curves::end_success;
use super::stats::{t_interval, Estimate};
use super::{paper_success, Condition, Evaluation, Run, PAPER};
use std::fmt::Write;

/// Which evaluation of a run a table shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The generated test split.
    Test,
    /// The hand-written held-out sites.
    Heldout,
}

impl Split {
    fn of(self, run: &Run) -> Option<&Evaluation> {
        match self {
            Split::Test => run.test.as_ref(),
            Split::Heldout => run.heldout.as_ref(),
        }
    }
}

/// The whole report: the test split's tables, then the held-out sites' when
/// any run has them.
pub fn markdown(conditions: &[Condition]) -> String {
    let mut out = String::new();
    section(
        &mut out,
        conditions,
        Split::Test,
        "Test split (generated, templates disjoint from training)",
    );
    let heldout = conditions
        .iter()
        .flat_map(|c| &c.runs)
        .any(|r| r.heldout.is_some());
    if heldout {
        out.push('\n');
        section(
            &mut out,
            conditions,
            Split::Heldout,
            "Hand-written held-out sites (heldout)",
        );
    }
    out
}

fn section(out: &mut String, conditions: &[Condition], split: Split, title: &str) {
    let _ = writeln!(out, "### {title}\n");
    out.push_str(&overall_table(conditions, split));
    out.push('\n');
    out.push_str(&domain_table(conditions, split));
    if let Some(note) = ordering_note(conditions, split) {
        out.push('\n');
        out.push_str(&note);
    }
}

/// Each seed's overall success rate on `split`, seeds ascending.
pub fn seed_rates(condition: &Condition, split: Split) -> Vec<f64> {
    condition
        .runs
        .iter()
        .filter_map(|r| split.of(r))
        .map(|e| e.overall.success_rate)
        .collect()
}

/// Each seed's success rate on one domain of `split`.
fn domain_rates(condition: &Condition, split: Split, domain: &str) -> Vec<f64> {
    condition
        .runs
        .iter()
        .filter_map(|r| split.of(r))
        .filter_map(|e| e.domains.iter().find(|d| d.name == domain))
        .map(|d| d.success_rate)
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// `±h` in points, or `n/a` with one seed.
fn half_width(e: &Estimate) -> String {
    e.half_width
        .map_or_else(|| "n/a".to_string(), |h| format!("±{:.1}", 100.0 * h))
}

/// One row a condition, with the paper's figure where it has one.
pub fn overall_table(conditions: &[Condition], split: Split) -> String {
    let mut out = String::from(
        "| condition | seeds | success (mean of seeds) | 95% t-interval | per seed | training success (end) | paper |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for c in conditions {
        let rates = seed_rates(c, split);
        let Some(e) = t_interval(&rates) else {
            continue;
        };
        let train: Vec<f64> = c
            .runs
            .iter()
            .filter_map(|r| end_success(&r.updates))
            .collect();
        let train = t_interval(&train).map_or_else(|| "n/a".to_string(), |t| pct(t.mean));
        let per_seed: Vec<String> = rates.iter().map(|&r| pct(r)).collect();
        let paper = match (split, paper_success(&c.name)) {
            (Split::Test, Some(p)) => pct(p),
            _ => "—".to_string(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            e.n,
            pct(e.mean),
            half_width(&e),
            per_seed.join(", "),
            train,
            paper
        );
    }
    out
}

/// One row a domain (in the order they first appear), one column a
/// condition: mean of seeds ± the t-interval's half-width.
pub fn domain_table(conditions: &[Condition], split: Split) -> String {
    let mut domains: Vec<&str> = Vec::new();
    for e in conditions
        .iter()
        .flat_map(|c| &c.runs)
        .filter_map(|r| split.of(r))
    {
        for d in &e.domains {
            if !domains.contains(&d.name.as_str()) {
                domains.push(&d.name);
            }
        }
    }
    let mut out = String::from("| domain |");
    for c in conditions {
        let _ = write!(out, " {} |", c.name);
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(conditions.len()));
    out.push('\n');
    for domain in domains {
        let _ = write!(out, "| {domain} |");
        for c in conditions {
            let cell = t_interval(&domain_rates(c, split, domain)).map_or_else(
                || "—".to_string(),
                |e| format!("{} {}", pct(e.mean), half_width(&e)),
            );
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out
}

/// Whether the paper's ordering of the four conditions holds on `split`
/// (by means), and whether raw and verified intervals are apart under each
/// reward; `None` unless all four conditions were run.
pub fn ordering_note(conditions: &[Condition], split: Split) -> Option<String> {
    let estimate = |name: &str| {
        let c = conditions.iter().find(|c| c.name == name)?;
        t_interval(&seed_rates(c, split))
    };
    let four: Vec<Estimate> = PAPER
        .iter()
        .map(|(n, _)| estimate(n))
        .collect::<Option<_>>()?;
    let holds = four.windows(2).all(|w| w[0].mean < w[1].mean);
    let names: Vec<&str> = PAPER.iter().map(|(n, _)| *n).collect();
    let mut note = format!(
        "- The paper's ordering {} (by means): {}.\n",
        names.join(" < "),
        if holds { "holds" } else { "does not hold" }
    );
    for (reward, raw, verified) in [
        ("terminal", &four[0], &four[2]),
        ("dense", &four[1], &four[3]),
    ] {
        let (raw_high, verified_low) = (raw.bounds().1, verified.bounds().0);
        let bounds = format!(
            "(raw up to {}, verified from {})",
            pct(raw_high),
            pct(verified_low)
        );
        let verdict = match (raw.half_width, verified.half_width) {
            (Some(_), Some(_)) if raw_high < verified_low => format!("apart {bounds}"),
            (Some(_), Some(_)) => format!("overlap {bounds}"),
            _ => "not judged: one seed gives no interval".to_string(),
        };
        let _ = writeln!(note, "- Raw vs verified, {reward}: intervals {verdict}.");
    }
    Some(note)
}

#[cfg(test)]
mod tests {
    use super::super::{group, Rate, UpdatePoint};
    use super::*;

    fn rate(name: &str, success_rate: f64) -> Rate {
        Rate {
            name: name.into(),
            success_rate,
            successes: 0,
            episodes: 0,
        }
    }

    /// A run with an overall test rate and two domains at `shop` and `shop + 0.1`.
    fn run(name: &str, test: f64) -> Run {
        Run {
            name: name.into(),
            updates: vec![UpdatePoint {
                env_steps: 100,
                episodes: 4,
                success_rate: test / 2.0,
            }],
            test: Some(Evaluation {
                overall: rate("all", test),
                domains: vec![rate("shop", test), rate("travel", test + 0.1)],
            }),
            heldout: None,
        }
    }

    fn experiment(rates: [[f64; 3]; 4]) -> Vec<Condition> {
        let mut runs = Vec::new();
        for ((name, _), seeds) in PAPER.iter().zip(rates) {
            for (seed, r) in seeds.iter().enumerate() {
                runs.push(run(&format!("{name}-{seed}"), *r));
            }
        }
        group(runs)
    }

    #[test]
    fn the_overall_row_has_mean_interval_seeds_training_and_paper() {
        let conditions = experiment([[0.1, 0.2, 0.3], [0.2; 3], [0.3; 3], [0.4; 3]]);
        let table = overall_table(&conditions, Split::Test);
        // Mean 20%, half-width 24.8 points (stats' hand computation),
        // training success half the test rate.
        assert!(
            table.contains(
                "| raw-terminal | 3 | 20.0% | ±24.8 | 10.0%, 20.0%, 30.0% | 10.0% | 19.4% |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| verified-dense | 3 | 40.0% | ±0.0 |"),
            "{table}"
        );
    }

    #[test]
    fn domains_are_rows_and_conditions_columns() {
        let conditions = experiment([[0.1, 0.2, 0.3], [0.2; 3], [0.3; 3], [0.4; 3]]);
        let table = domain_table(&conditions, Split::Test);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            "| domain | raw-terminal | raw-dense | verified-terminal | verified-dense |"
        );
        assert_eq!(
            lines[2],
            "| shop | 20.0% ±24.8 | 20.0% ±0.0 | 30.0% ±0.0 | 40.0% ±0.0 |"
        );
        assert!(lines[3].starts_with("| travel | 30.0% ±24.8 | 30.0% ±0.0 | 40.0% ±0.0 |"));
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn ordering_and_separation_are_judged_from_the_intervals() {
        let holds = experiment([[0.1, 0.2, 0.3], [0.21; 3], [0.5; 3], [0.6; 3]]);
        let note = ordering_note(&holds, Split::Test).unwrap();
        assert!(note.contains(": holds."), "{note}");
        // Raw terminal reaches 44.8%, under verified terminal's 50%.
        assert!(
            note.contains("terminal: intervals apart (raw up to 44.8%, verified from 50.0%)"),
            "{note}"
        );
        assert!(note.contains("dense: intervals apart"), "{note}");
        let fails = experiment([[0.3; 3], [0.2; 3], [0.25, 0.3, 0.35], [0.6; 3]]);
        let note = ordering_note(&fails, Split::Test).unwrap();
        assert!(note.contains("does not hold"), "{note}");
        assert!(note.contains("terminal: intervals overlap"), "{note}");
        assert_eq!(ordering_note(&fails[..3], Split::Test), None);
        let mut one_seed = experiment([[0.1; 3], [0.2; 3], [0.3; 3], [0.4; 3]]);
        one_seed[0].runs.truncate(1);
        let note = ordering_note(&one_seed, Split::Test).unwrap();
        assert!(note.contains("terminal: intervals not judged"), "{note}");
        assert!(note.contains("dense: intervals apart"), "{note}");
    }

    #[test]
    fn heldout_tables_appear_only_for_runs_evaluated_on_heldout_sites() {
        let mut conditions = experiment([[0.1; 3], [0.2; 3], [0.3; 3], [0.4; 3]]);
        assert!(!markdown(&conditions).contains("Hand-written"));
        conditions[0].runs[0].heldout = Some(Evaluation {
            overall: rate("all", 0.5),
            domains: vec![rate("blog", 0.5)],
        });
        let report = markdown(&conditions);
        let heldout = report.split("Hand-written").nth(1).unwrap();
        assert!(
            heldout.contains("| raw-terminal | 1 | 50.0% | n/a | 50.0% | 5.0% | — |"),
            "{heldout}"
        );
        assert!(
            heldout.contains("| blog | 50.0% n/a | — | — | — |"),
            "{heldout}"
        );
    }
}
