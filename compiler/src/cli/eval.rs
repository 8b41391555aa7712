//! `wsitec eval POLICY SITES…`: plays every proven task instance of every
//! site with the policy alone, once per seed, and reports the success rate
//! with a 95% (Wilson) interval per site, per domain and overall, beside
//! WebFactory's metrics: for operation tasks TCR and step accuracy (mean
//! R_acc over every step, judged by the exact distance oracle whatever the
//! training reward), for retrieval tasks TCR and answer F1
//! (docs/training.md, "Decomposed reward").

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct EvalArgs {
    /// A checkpoint written by `wsitec train` (`policy.safetensors`).
    policy: PathBuf,
    /// `.wsite` files or directories of them (each file one site).
    #[arg(required = true)]
    sites: Vec<PathBuf>,
    /// Seeds to play each instance with.
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// Take the most likely action instead of sampling.
    #[arg(long)]
    greedy: bool,
    /// `cpu` or `cuda`.
    #[arg(long, default_value = "cpu")]
    device: String,
    /// `text` or `json`.
    #[arg(long, default_value = "text")]
    format: String,
    /// Distinct states the prover may explore per task instance; an
    /// undecided instance is not played.
    #[arg(long, default_value_t = super::train::TRAIN_BUDGET)]
    budget: usize,
    /// Distinct states the distance oracle may explore to judge one step;
    /// a step it cannot decide counts as inaccurate and is reported.
    #[arg(long, default_value_t = wsite_runtime::prove::DEFAULT_ORACLE_BUDGET)]
    oracle_budget: usize,
    /// Reward-guided search, `best-of-N` (N ≥ 2): at every step sample N
    /// actions and take the favourite of the judge `--prm` names; success is
    /// reported with and without the search, on the same seeds.
    #[arg(long, value_name = "best-of-N", value_parser = parse_search, requires = "prm", conflicts_with = "greedy")]
    search: Option<usize>,
    /// The judge of `--search`: `random`, `overlap`, `oracle`, `policy` or
    /// `value` (this checkpoint's own scores), or `cmd:COMMAND`.
    #[arg(long, value_name = "JUDGE", requires = "search")]
    prm: Option<String>,
    /// Seconds an external judge (`cmd:…`) may take per step.
    #[arg(long, default_value_t = 60)]
    prm_timeout: u64,
}

/// The N of `best-of-N` (at least 2: one sample leaves nothing to judge).
fn parse_search(text: &str) -> Result<usize, String> {
    let n = text
        .strip_prefix("best-of-")
        .and_then(|n| n.parse::<usize>().ok())
        .ok_or_else(|| format!("`{text}` is not `best-of-N`"))?;
    if n < 2 {
        return Err(format!("best-of-{n} has nothing to choose from; use N ≥ 2"));
    }
    Ok(n)
}

pub fn run(args: EvalArgs) -> ExitCode {
    #[cfg(feature = "train")]
    {
        match imp::eval(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("error: {why}");
                ExitCode::from(1)
            }
        }
    }
    #[cfg(not(feature = "train"))]
    {
        let _ = args;
        super::train::not_built()
    }
}

/// The Wilson score interval (95%) of `k` successes in `n` trials.
#[cfg_attr(not(feature = "train"), allow(dead_code))]
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(feature = "train")]
mod imp {
    use super::{wilson, EvalArgs};
    use crate::cli::prm::judge::{make_judge, JudgeOptions};
    use crate::cli::train::imp::{device, load_policy, load_sites};
    use serde_json::json;
    use std::collections::BTreeMap;
    use wsite_runtime::batch::Tally;
    use wsite_runtime::train::run::{self, RunConfig, SiteResult};
    use wsite_runtime::train::search::{evaluate_search, SearchCounts};

    pub fn eval(args: &EvalArgs) -> Result<(), String> {
        if args.format != "text" && args.format != "json" {
            return Err(format!(
                "unknown format `{}`; use `text` or `json`",
                args.format
            ));
        }
        let device = device(&args.device)?;
        let sites = load_sites(&args.sites, true, args.budget)?;
        let (_vs, policy) = load_policy(&args.policy, device)?;
        let mut config = RunConfig {
            device,
            ..RunConfig::default()
        };
        config.reward.oracle_budget = args.oracle_budget;
        let seeds: Vec<u64> = (0..args.seeds.max(1)).collect();
        let compiled = run::compile(&sites).map_err(|e| e.to_string())?;
        let results = run::evaluate(&compiled, &policy, &seeds, args.greedy, &config)
            .map_err(|e| e.to_string())?;
        let search = match (args.search, &args.prm) {
            (Some(n), Some(name)) => {
                let programs: BTreeMap<String, _> = sites
                    .iter()
                    .map(|s| (s.name.clone(), s.program.clone()))
                    .collect();
                let options = JudgeOptions {
                    seed: 0,
                    policy: Some(args.policy.clone()),
                    device: args.device.clone(),
                    oracle_budget: args.oracle_budget,
                    timeout: std::time::Duration::from_secs(args.prm_timeout),
                };
                let mut judge = make_judge(name, &programs, &options)?;
                let r = evaluate_search(&compiled, &policy, &seeds, n, judge.as_mut(), &config)
                    .map_err(|e| e.to_string())?;
                let label = format!("best-of-{n} {}", judge.name());
                Some((label, r.sites, r.counts))
            }
            _ => None,
        };
        let plain = Summary::of(&results);
        let searched = search
            .as_ref()
            .map(|(label, r, counts)| (label.as_str(), Summary::of(r), counts));
        if args.format == "json" {
            print_json(&plain, searched.as_ref());
        } else {
            print_text(&plain, searched.as_ref());
        }
        Ok(())
    }

    /// Successes, episodes and WebFactory's metrics of a group of episodes.
    type Line = (usize, usize, Tally);

    /// An evaluation's rows: per site, per domain (in order of first
    /// appearance) and overall.
    struct Summary {
        sites: Vec<(String, Line)>,
        domains: Vec<(String, Line)>,
        all: Line,
    }

    impl Summary {
        fn of(results: &[SiteResult]) -> Summary {
            let total = |rs: &[&SiteResult]| -> Line {
                (
                    rs.iter().map(|r| r.successes).sum::<usize>(),
                    rs.iter().map(|r| r.episodes).sum::<usize>(),
                    rs.iter().fold(Tally::default(), |t, r| t.plus(&r.metrics)),
                )
            };
            let mut groups: Vec<(String, Vec<&SiteResult>)> = Vec::new();
            for r in results {
                match groups.iter_mut().find(|(d, _)| *d == r.domain) {
                    Some((_, g)) => g.push(r),
                    None => groups.push((r.domain.clone(), vec![r])),
                }
            }
            let all: Vec<&SiteResult> = results.iter().collect();
            Summary {
                sites: results
                    .iter()
                    .map(|r| (r.site.clone(), (r.successes, r.episodes, r.metrics)))
                    .collect(),
                domains: groups.iter().map(|(d, g)| (d.clone(), total(g))).collect(),
                all: total(&all),
            }
        }

        fn json(&self) -> serde_json::Value {
            let line = |name: &str, &(k, n, ref t): &Line| {
                let (lo, hi) = wilson(k, n);
                json!({"name": name, "successes": k, "episodes": n,
                       "success_rate": k as f64 / n.max(1) as f64, "ci95": [lo, hi],
                       "webfactory": webfactory_json(t)})
            };
            json!({
                "sites": self.sites.iter().map(|(s, l)| line(s, l)).collect::<Vec<_>>(),
                "domains": self.domains.iter().map(|(d, l)| line(d, l)).collect::<Vec<_>>(),
                "overall": line("all", &self.all),
            })
        }
    }

    /// The JSON report: plain evaluation's object, with a `search` object
    /// of the same shape (and the search's counts) when there was one.
    fn print_json(plain: &Summary, search: Option<&(&str, Summary, &SearchCounts)>) {
        let mut out = plain.json();
        if let (Some((label, s, counts)), Some(obj)) = (search, out.as_object_mut()) {
            let mut body = s.json();
            if let Some(b) = body.as_object_mut() {
                b.insert("method".into(), json!(label));
                b.insert("counts".into(), json!(counts));
            }
            obj.insert("search".into(), body);
        }
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    }

    /// The text table: a row per site, domain and overall, each followed by
    /// the search's row when there was one.
    fn print_text(plain: &Summary, search: Option<&(&str, Summary, &SearchCounts)>) {
        println!(
            "{:<40} {:>11} {:>7}  {:<16} {:>7} {:>7} {:>7} {:>7}",
            "", "successes", "rate", "95% interval", "op TCR", "step acc", "ret TCR", "ans F1"
        );
        rows_with(&plain.sites, search.map(|(l, s, _)| (*l, &s.sites[..])));
        println!();
        rows_with(&plain.domains, search.map(|(l, s, _)| (*l, &s.domains[..])));
        row("all", &plain.all);
        if let Some((label, s, counts)) = search {
            row(&format!("  {label}"), &s.all);
            println!(
                "search: {} steps; {} with one distinct sample, {} judged ({} overruled the policy's most likely), {} judge errors (the policy's most likely taken){}",
                counts.steps,
                counts.single,
                counts.asked,
                counts.overruled,
                counts.judge_errors,
                counts.first_error.as_ref().map(|e| format!("; first: {e}")).unwrap_or_default()
            );
        }
        if plain.all.2.unknown_steps > 0 {
            println!(
                "{} operation steps could not be judged within the oracle's budget (counted as inaccurate; raise --oracle-budget)",
                plain.all.2.unknown_steps
            );
        }
    }

    /// `plain`'s rows, each followed by the search's row of the same name.
    fn rows_with(plain: &[(String, Line)], search: Option<(&str, &[(String, Line)])>) {
        for (k, (name, line)) in plain.iter().enumerate() {
            row(name, line);
            if let Some((label, (_, l))) = search.and_then(|(label, s)| Some((label, s.get(k)?))) {
                row(&format!("  {label}"), l);
            }
        }
    }

    fn row(name: &str, &(k, n, ref t): &Line) {
        let (lo, hi) = wilson(k, n);
        println!(
            "{name:<40} {k:>5}/{n:<5} {:>6.1}%  [{:.1}%, {:.1}%]  {} {} {} {}",
            100.0 * k as f64 / n.max(1) as f64,
            100.0 * lo,
            100.0 * hi,
            percent(t.operation_tcr()),
            percent(t.step_accuracy()),
            percent(t.retrieval_tcr()),
            percent(t.answer_f1()),
        );
    }

    /// A rate as a percentage, `—` where there was nothing to measure.
    fn percent(rate: Option<f64>) -> String {
        rate.map_or_else(|| format!("{:>7}", "—"), |r| format!("{:>6.1}%", 100.0 * r))
    }

    /// WebFactory's metrics of a tally, for the JSON output (`null` where
    /// there was nothing to measure).
    fn webfactory_json(t: &Tally) -> serde_json::Value {
        json!({
            "operation": {"episodes": t.operation_episodes, "tcr": t.operation_tcr(),
                          "steps": t.operation_steps, "step_accuracy": t.step_accuracy(),
                          "unknown_steps": t.unknown_steps},
            "retrieval": {"episodes": t.retrieval_episodes, "tcr": t.retrieval_tcr(),
                          "answer_f1": t.answer_f1()},
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn wilson_interval_matches_a_known_value() {
        // 8 of 10: the Wilson interval is about [0.490, 0.943].
        let (lo, hi) = super::wilson(8, 10);
        assert!(
            (lo - 0.4902).abs() < 1e-3 && (hi - 0.9433).abs() < 1e-3,
            "{lo} {hi}"
        );
        assert_eq!(super::wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn search_is_best_of_two_or_more() {
        assert_eq!(super::parse_search("best-of-4"), Ok(4));
        assert!(super::parse_search("best-of-1").is_err());
        assert!(super::parse_search("best-of-").is_err());
        assert!(super::parse_search("top-4").is_err());
    }
}
