//! `wsitec eval POLICY SITES…`: plays every proven task instance of every
//! site with the policy alone, once per seed, and reports the success rate
//! with a 95% (Wilson) interval per site, per domain and overall.

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
        let config = RunConfig {
            device,
            ..RunConfig::default()
        };
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
            )
        };
        let all: Vec<&SiteResult> = results.iter().collect();
        if args.format == "json" {
            let line = |name: &str, (k, n): (usize, usize)| {
                let (lo, hi) = wilson(k, n);
                json!({"name": name, "successes": k, "episodes": n,
                       "success_rate": k as f64 / n.max(1) as f64, "ci95": [lo, hi]})
            };
            let out = json!({
                "sites": results.iter().map(|r| line(&r.site, (r.successes, r.episodes))).collect::<Vec<_>>(),
                "domains": groups.iter().map(|(d, g)| line(d, total(g))).collect::<Vec<_>>(),
                "overall": line("all", total(&all)),
            });
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            return Ok(());
        }
        let row = |name: &str, (k, n): (usize, usize)| {
            let (lo, hi) = wilson(k, n);
            println!(
                "{name:<40} {k:>5}/{n:<5} {:>6.1}%  [{:.1}%, {:.1}%]",
                100.0 * k as f64 / n.max(1) as f64,
                100.0 * lo,
                100.0 * hi
            );
        };
        for r in &results {
            row(&r.site, (r.successes, r.episodes));
        }
        println!();
        for (d, g) in &groups {
            row(d, total(g));
        }
        row("all", total(&all));
        Ok(())
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
