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
    use crate::cli::train::imp::{device, load_sites, recorded_policy_config};
    use serde_json::json;
    use wsite_runtime::batch::Tally;
    use wsite_runtime::train::policy::Policy;
    use wsite_runtime::train::run::{self, RunConfig, SiteResult};
    use wsite_runtime::train::tch::nn;

    pub fn eval(args: &EvalArgs) -> Result<(), String> {
        if args.format != "text" && args.format != "json" {
            return Err(format!(
                "unknown format `{}`; use `text` or `json`",
                args.format
            ));
        }
        let device = device(&args.device)?;
        let sites = load_sites(&args.sites, true, args.budget)?;
        // A policy trained with inputs switched off reads them as zeros here too.
        let run_dir = args.policy.parent().unwrap_or(std::path::Path::new("."));
        let mut vs = nn::VarStore::new(device);
        let policy = Policy::new(&vs.root(), recorded_policy_config(run_dir)?);
        vs.load(&args.policy)
            .map_err(|e| format!("cannot load the policy {}: {e}", args.policy.display()))?;
        let mut config = RunConfig {
            device,
            ..RunConfig::default()
        };
        config.reward.oracle_budget = args.oracle_budget;
        let seeds: Vec<u64> = (0..args.seeds.max(1)).collect();
        let results = run::evaluate(
            &run::compile(&sites)?,
            &policy,
            &seeds,
            args.greedy,
            &config,
        )?;
        let mut groups: Vec<(String, Vec<&SiteResult>)> = Vec::new();
        for r in &results {
            match groups.iter_mut().find(|(d, _)| *d == r.domain) {
                Some((_, g)) => g.push(r),
                None => groups.push((r.domain.clone(), vec![r])),
            }
        }
        let total = |rs: &[&SiteResult]| {
            (
                rs.iter().map(|r| r.successes).sum::<usize>(),
                rs.iter().map(|r| r.episodes).sum::<usize>(),
                rs.iter().fold(Tally::default(), |t, r| t.plus(&r.metrics)),
            )
        };
        let all: Vec<&SiteResult> = results.iter().collect();
        if args.format == "json" {
            let line = |name: &str, (k, n, t): (usize, usize, Tally)| {
                let (lo, hi) = wilson(k, n);
                json!({"name": name, "successes": k, "episodes": n,
                       "success_rate": k as f64 / n.max(1) as f64, "ci95": [lo, hi],
                       "webfactory": webfactory_json(&t)})
            };
            let site = |r: &SiteResult| line(&r.site, (r.successes, r.episodes, r.metrics));
            let out = json!({
                "sites": results.iter().map(site).collect::<Vec<_>>(),
                "domains": groups.iter().map(|(d, g)| line(d, total(g))).collect::<Vec<_>>(),
                "overall": line("all", total(&all)),
            });
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            return Ok(());
        }
        println!(
            "{:<40} {:>11} {:>7}  {:<16} {:>7} {:>7} {:>7} {:>7}",
            "", "successes", "rate", "95% interval", "op TCR", "step acc", "ret TCR", "ans F1"
        );
        let row = |name: &str, (k, n, t): (usize, usize, Tally)| {
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
        };
        for r in &results {
            row(&r.site, (r.successes, r.episodes, r.metrics));
        }
        println!();
        for (d, g) in &groups {
            row(d, total(g));
        }
        let everything = total(&all);
        row("all", everything);
        if everything.2.unknown_steps > 0 {
            println!(
                "{} operation steps could not be judged within the oracle's budget (counted as inaccurate; raise --oracle-budget)",
                everything.2.unknown_steps
            );
        }
        Ok(())
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
}
