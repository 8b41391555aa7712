//! `wsitec train SITES… --steps N`: PPO on the sites' proven task instances
//! (see `wsite_runtime::train`), writing `config.json`, `metrics.jsonl`, a
//! resumable checkpoint and `curve.png` into the run directory. Also the site
//! loading that `wsitec eval` shares.
//!
//! Without the `train` feature the command says how to build it.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct TrainArgs {
    /// `.wsite` files or directories of them (each file one site).
    #[arg(required = true)]
    sites: Vec<PathBuf>,
    /// Environment steps to train for.
    #[arg(long, default_value_t = 200_000)]
    steps: u64,
    /// `cpu` or `cuda`.
    #[arg(long, default_value = "cpu")]
    device: String,
    /// `dense` (progress potential, §5.4) or `terminal` (1 on success only).
    #[arg(long, default_value = "dense")]
    reward: String,
    /// The run directory.
    #[arg(short = 'o', long = "out", default_value = "runs/train")]
    out: PathBuf,
    /// Environments stepped together.
    #[arg(long, default_value_t = 32)]
    envs: usize,
    /// Steps per environment between updates.
    #[arg(long, default_value_t = 32)]
    rollout: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Continue from the run directory's checkpoint.
    #[arg(long)]
    resume: bool,
    /// Train on every task instance, proven or not (the raw-site ablation).
    #[arg(long)]
    unverified: bool,
    /// Skip playing every task once before and after training (the success
    /// rates printed and written to `summary.json`).
    #[arg(long)]
    no_eval: bool,
    /// Distinct states the prover may explore per task instance; an
    /// undecided instance is not trained on.
    #[arg(long, default_value_t = TRAIN_BUDGET)]
    budget: usize,
}

/// The prover's budget when loading sites to train or evaluate on: a tenth
/// of `wsitec prove`'s, since an undecided instance is simply left out, and a
/// raw site's impossible tasks would otherwise search to the full budget.
pub const TRAIN_BUDGET: usize = 100_000;

pub fn run(args: TrainArgs) -> ExitCode {
    #[cfg(feature = "train")]
    {
        imp::train(args)
    }
    #[cfg(not(feature = "train"))]
    {
        let _ = args;
        not_built()
    }
}

/// The message of a `wsitec` built without the trainer.
#[cfg(not(feature = "train"))]
pub fn not_built() -> ExitCode {
    eprintln!(
        "error: this wsitec was built without the `train` feature\n  = help: run `bash scripts/setup-torch.sh`, then build with\n          `LIBTORCH=$PWD/.torch/torch cargo build --release -p wsitec --features train`"
    );
    ExitCode::from(2)
}

#[cfg(feature = "train")]
pub mod imp {
    use super::TrainArgs;
    use crate::cli::load;
    use serde_json::json;
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;
    use std::time::Instant;
    use wsite_runtime::env::RewardConfig;
    use wsite_runtime::train::policy::{parameter_count, Policy, PolicyConfig};
    use wsite_runtime::train::run::{self, RunConfig, Site, UpdateMetrics};
    use wsite_runtime::train::tch::{self, nn, Device};

    /// `cpu` or `cuda` (an `Err` when CUDA is asked for and not there).
    pub fn device(name: &str) -> Result<Device, String> {
        match name {
            "cpu" => Ok(Device::Cpu),
            "cuda" if tch::Cuda::is_available() => Ok(Device::Cuda(0)),
            "cuda" => Err("`--device cuda` asked for, but no CUDA device is available to libtorch (is `libtorch_cuda` linked, and a GPU visible?)".into()),
            other => Err(format!("unknown device `{other}`; use `cpu` or `cuda`")),
        }
    }

    /// Every `.wsite` file named or found directly in a named directory.
    fn site_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
        let mut files = Vec::new();
        for p in paths {
            if p.is_dir() {
                files.extend(load::wsite_files_in(p)?);
            } else {
                files.push(p.clone());
            }
        }
        Ok(files)
    }

    /// Loads, checks and proves every site. A site with errors is skipped
    /// with a warning (it cannot run); a verified site keeps only its proven
    /// instances, an unverified one all of them.
    pub fn load_sites(
        paths: &[PathBuf],
        verified: bool,
        budget: usize,
    ) -> Result<Vec<Site>, String> {
        let mut sites = Vec::new();
        for file in site_files(paths)? {
            let input = load::program_input(&file)?;
            let name = input.name.clone();
            let options = wsitec::Options {
                prove: verified.then(|| wsite_runtime::prove::Options {
                    budget,
                    ..Default::default()
                }),
                skip_sweep: true,
                ..Default::default()
            };
            let c = load::compile_with(input, options);
            // A site runs when its program lowered; feasibility errors only
            // drop the tasks they concern (as `build --drop-infeasible`).
            let blocking = c
                .diagnostics
                .iter()
                .any(|d| d.is_error() && !d.code.as_str().starts_with('F'));
            let Some(program) = c.program.clone().filter(|_| !blocking) else {
                eprintln!("warning: {name} has errors and is left out");
                continue;
            };
            let instances = if verified {
                c.proven_instances()
            } else {
                wsite_runtime::env::instances(&program)
            };
            sites.push(Site {
                name,
                domain: program.site.domain.clone(),
                program,
                instances,
            });
        }
        if sites.iter().all(|s| s.instances.is_empty()) {
            return Err("no site has a task instance to train on".into());
        }
        Ok(sites)
    }

    pub fn reward(name: &str) -> Result<RewardConfig, String> {
        match name {
            "dense" => Ok(RewardConfig::default()),
            "terminal" => Ok(RewardConfig {
                terminal: true,
                ..RewardConfig::default()
            }),
            other => Err(format!(
                "unknown reward `{other}`; use `dense` or `terminal`"
            )),
        }
    }

    pub fn train(args: TrainArgs) -> ExitCode {
        match try_train(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err((code, why)) => {
                eprintln!("error: {why}");
                ExitCode::from(code)
            }
        }
    }

    fn try_train(args: &TrainArgs) -> Result<(), (u8, String)> {
        let usage = |e: String| (2u8, e);
        let device = device(&args.device).map_err(|e| (1, e))?;
        let reward = reward(&args.reward).map_err(usage)?;
        let sites = load_sites(&args.sites, !args.unverified, args.budget).map_err(|e| (1, e))?;
        let out = &args.out;
        std::fs::create_dir_all(out)
            .map_err(|e| (1, format!("cannot create {}: {e}", out.display())))?;
        let config = RunConfig {
            envs: args.envs.max(1),
            rollout: args.rollout.max(1),
            reward,
            seed: args.seed,
            device,
            ..RunConfig::default()
        };
        let mut vs = nn::VarStore::new(device);
        let policy = Policy::new(&vs.root(), PolicyConfig::default());
        let checkpoint = out.join("policy.safetensors");
        let mut done_steps = 0u64;
        if args.resume {
            vs.load(&checkpoint).map_err(|e| {
                (
                    1,
                    format!("cannot resume from {}: {e}", checkpoint.display()),
                )
            })?;
            done_steps = read_progress(out);
        }
        write_config(out, args, &sites, parameter_count(&vs)).map_err(|e| (1, e))?;
        eprintln!(
            "training on {} sites ({} task instances), {} parameters, {:?}",
            sites.len(),
            sites.iter().map(|s| s.instances.len()).sum::<usize>(),
            parameter_count(&vs),
            device
        );
        let mut metrics = std::fs::OpenOptions::new()
            .create(true)
            .append(args.resume)
            .write(true)
            .truncate(!args.resume)
            .open(out.join("metrics.jsonl"))
            .map_err(|e| (1, format!("cannot write metrics: {e}")))?;
        let compiled = run::compile(&sites).map_err(|e| (1, e))?;
        let before = success(&compiled, &policy, args, &config).map_err(|e| (1, e))?;
        let started = Instant::now();
        let mut history: Vec<UpdateMetrics> = Vec::new();
        let mut failure: Option<String> = None;
        let remaining = args.steps.saturating_sub(done_steps);
        run::train(&compiled, &vs, &policy, remaining, &config, &mut |m| {
            let mut m = m.clone();
            m.env_steps += done_steps;
            let seconds = started.elapsed().as_secs_f64();
            let rate = (m.env_steps - done_steps) as f64 / seconds.max(1e-9);
            let mut line = serde_json::to_value(&m).unwrap_or_default();
            line["steps_per_second"] = json!(rate);
            line["seconds"] = json!(seconds);
            eprintln!(
                "update {:>4}  steps {:>9}/{}  success {:>5.1}%  return {:>7.3}  entropy {:.2}  {:>7.0} steps/s",
                m.update, m.env_steps, args.steps, 100.0 * m.success_rate, m.mean_return, m.entropy, rate
            );
            let saved = writeln!(metrics, "{line}")
                .map_err(|e| e.to_string())
                .and_then(|()| vs.save(&checkpoint).map_err(|e| e.to_string()))
                .and_then(|()| write_progress(out, m.env_steps));
            history.push(m);
            match saved {
                Ok(()) => true,
                Err(e) => {
                    failure = Some(e);
                    false
                }
            }
        })
        .map_err(|e| (1, e))?;
        if let Some(e) = failure {
            return Err((1, format!("cannot save the run: {e}")));
        }
        wsite_runtime::train::curve::draw(&out.join("curve.png"), &history)
            .map_err(|e| (1, format!("cannot draw the curve: {e}")))?;
        let after = success(&compiled, &policy, args, &config).map_err(|e| (1, e))?;
        if let (Some(b), Some(a)) = (before, after) {
            println!(
                "success rate on the training tasks (one sampled episode each): before {:.1}%, after {:.1}%",
                100.0 * b,
                100.0 * a
            );
        }
        let summary = json!({
            "env_steps": history.last().map_or(done_steps, |m| m.env_steps),
            "seconds": started.elapsed().as_secs_f64(),
            "success_before": before, "success_after": after,
        });
        std::fs::write(out.join("summary.json"), summary.to_string())
            .map_err(|e| (1, format!("cannot write summary.json: {e}")))?;
        eprintln!("wrote {}", out.display());
        Ok(())
    }

    /// The share of task instances one sampled episode of the policy
    /// completes (none with `--no-eval`).
    fn success(
        compiled: &[run::Compiled<'_>],
        policy: &Policy,
        args: &TrainArgs,
        config: &RunConfig,
    ) -> Result<Option<f64>, String> {
        if args.no_eval {
            return Ok(None);
        }
        let results = run::evaluate(compiled, policy, &[args.seed], false, config)?;
        let (k, n) = results
            .iter()
            .fold((0, 0), |(k, n), r| (k + r.successes, n + r.episodes));
        Ok(Some(k as f64 / n.max(1) as f64))
    }

    fn write_config(out: &Path, a: &TrainArgs, sites: &[Site], params: i64) -> Result<(), String> {
        let config = json!({
            "sites": sites.iter().map(|s| &s.name).collect::<Vec<_>>(),
            "steps": a.steps, "device": a.device, "reward": a.reward,
            "envs": a.envs, "rollout": a.rollout, "seed": a.seed,
            "verified": !a.unverified, "parameters": params,
            "ppo": format!("{:?}", wsite_runtime::train::ppo::PpoConfig::default()),
        });
        std::fs::write(
            out.join("config.json"),
            serde_json::to_string_pretty(&config).unwrap_or_default(),
        )
        .map_err(|e| format!("cannot write config.json: {e}"))
    }

    fn write_progress(out: &Path, steps: u64) -> Result<(), String> {
        std::fs::write(
            out.join("progress.json"),
            json!({ "env_steps": steps }).to_string(),
        )
        .map_err(|e| e.to_string())
    }

    fn read_progress(out: &Path) -> u64 {
        std::fs::read_to_string(out.join("progress.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["env_steps"].as_u64())
            .unwrap_or(0)
    }
}
