//! `wsitec train SITES… --steps N`: PPO on the sites' proven task instances
//! (see `wsite_runtime::train`), writing `config.json`, `metrics.jsonl`, a
//! resumable checkpoint and `curve.png` into the run directory. Also the site
//! loading that `wsitec eval` shares, and the loading of a trained policy
//! that `wsitec eval` and the policy judges of `wsitec prm` share.
//!
//! Without the `train` feature the command says how to build it.

#[cfg(feature = "train")]
mod profile;

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
    /// `dense` (progress potential, §5.4), `terminal` (1 on success only)
    /// or `decomposed` (success plus exact per-step accuracy credit,
    /// docs/training.md; runs on the interpreter).
    #[arg(long, default_value = "dense")]
    reward: String,
    /// The run directory.
    #[arg(short = 'o', long = "out", default_value = "runs/train")]
    out: PathBuf,
    /// Environments stepped together (default 32 on CPU; 1,024 on CUDA,
    /// so that a GPU update has enough rows to be worth its launch costs).
    #[arg(long)]
    envs: Option<usize>,
    /// Steps per environment between updates (default 32 on CPU, 64 on CUDA).
    #[arg(long)]
    rollout: Option<usize>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Continue from the run directory's checkpoint.
    #[arg(long)]
    resume: bool,
    /// Seconds between checkpoints (one is always written at the end).
    #[arg(long, default_value_t = 30.0)]
    checkpoint_every: f64,
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
    /// Policy inputs to switch off, for ablations: any of `context`, `page`,
    /// `history` (comma-separated). Recorded in `config.json`, which
    /// `wsitec eval` reads back.
    #[arg(long, value_delimiter = ',')]
    ablate: Vec<String>,
    /// Policy inputs to switch on (all are on by default; `--with` undoes an
    /// `--ablate` given earlier, e.g. in a wrapper's flags).
    #[arg(long = "with", value_delimiter = ',')]
    with_inputs: Vec<String>,
    /// Passes over each rollout.
    #[arg(long, default_value_t = 4)]
    epochs: usize,
    /// Minibatches per pass.
    #[arg(long, default_value_t = 4)]
    minibatches: usize,
    /// Stop an update's passes once one's mean approximate KL exceeds this.
    #[arg(long)]
    target_kl: Option<f64>,
    /// Clip the value loss around the rollout's values (CleanRL's `clip_vloss`).
    #[arg(long)]
    clip_value: bool,
    /// Threads libtorch may use (0: its default, one per core). One by
    /// default: the environments step on this thread in between, and on a
    /// shared machine OpenMP threads spin against other processes (on 2
    /// busy cores one thread ran 4.7 times faster than two).
    #[arg(long, default_value_t = 1)]
    threads: i32,
    /// Time each phase (observe, upload, forward, env step, backward,
    /// optimizer) and print where the time went; also written to
    /// `profile.json`.
    #[arg(long)]
    profile: bool,
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
    use super::profile::Phases;
    use super::TrainArgs;
    use crate::cli::load;
    use serde_json::json;
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;
    use std::time::Instant;
    use wsite_runtime::env::{RewardConfig, RewardMode};
    use wsite_runtime::train::adam::Adam;
    use wsite_runtime::train::policy::{parameter_count, Features, Policy, PolicyConfig};
    use wsite_runtime::train::ppo::PpoConfig;
    use wsite_runtime::train::run::{self, Progress, RunConfig, Site};
    use wsite_runtime::train::tch::{self, nn, Device};
    use wsite_runtime::train::update::UpdateMetrics;

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
    /// Loads, checks and proves every site. A site with errors is skipped
    /// with a warning (it cannot run); a verified site keeps only its proven
    /// instances, an unverified one all of them.
    pub fn load_sites(
        paths: &[PathBuf],
        verified: bool,
        budget: usize,
    ) -> Result<Vec<Site>, String> {
        use rayon::prelude::*;
        // Sites are checked and proven on every core (a 350-site corpus is
        // minutes of proving on one); the order stays the files'.
        let loaded = load::site_files(paths)?
            .par_iter()
            .map(|file| load_site(file, verified, budget))
            .collect::<Result<Vec<_>, String>>()?;
        let sites: Vec<Site> = loaded.into_iter().flatten().collect();
        if sites.iter().all(|s| s.instances.is_empty()) {
            return Err("no site has a task instance to train on".into());
        }
        Ok(sites)
    }

    /// One site with the instances to use (for `verified`, the proven
    /// ones); `None`, with a warning, for a site whose errors keep it from
    /// running.
    fn load_site(file: &Path, verified: bool, budget: usize) -> Result<Option<Site>, String> {
        Ok(load::runnable_site(file, verified, budget)?.map(|s| Site {
            name: s.name,
            domain: s.program.site.domain.clone(),
            program: s.program,
            instances: s.instances,
        }))
    }

    pub fn reward(name: &str) -> Result<RewardConfig, String> {
        RewardMode::parse(name)
            .map(RewardConfig::with_mode)
            .ok_or_else(|| {
                format!("unknown reward `{name}`; use `dense`, `terminal` or `decomposed`")
            })
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
        let shape = default_shape(device);
        if args.threads > 0 {
            tch::set_num_threads(args.threads);
        }
        let config = RunConfig {
            envs: args.envs.unwrap_or(shape.0).max(1),
            rollout: args.rollout.unwrap_or(shape.1).max(1),
            reward,
            seed: args.seed,
            device,
            ppo: ppo_config(args),
            ..RunConfig::default()
        };
        let policy_config = policy_config(&args.with_inputs, &args.ablate).map_err(usage)?;
        let mut vs = nn::VarStore::new(device);
        // The run's seed fixes the initial weights too.
        tch::manual_seed(args.seed as i64);
        let policy = Policy::initialised(&vs, policy_config).map_err(|e| (1, e.to_string()))?;
        let mut opt = Adam::new(&vs, config.ppo.learning_rate);
        let files = Checkpoint::in_dir(out);
        let mut from = Progress::default();
        if args.resume {
            from = files.load(&mut vs, &mut opt).map_err(|e| (1, e))?;
        }
        write_config(
            out,
            args,
            &config,
            &sites,
            &policy_config,
            parameter_count(&vs),
        )
        .map_err(|e| (1, e))?;
        eprintln!(
            "training on {} sites ({} task instances), {} parameters, {:?}{}",
            sites.len(),
            sites.iter().map(|s| s.instances.len()).sum::<usize>(),
            parameter_count(&vs),
            device,
            if from.env_steps > 0 {
                format!(", resuming at {} steps", from.env_steps)
            } else {
                String::new()
            }
        );
        let (mut metrics, mut history) = open_metrics(out, args.resume.then_some(from))
            .map_err(|e| (1, format!("cannot write metrics: {e}")))?;
        let compiled = run::compile(&sites).map_err(|e| (1, e.to_string()))?;
        let before = success(&compiled, &policy, args, &config).map_err(|e| (1, e))?;
        let started = Instant::now();
        let mut trainer = run::Trainer::new(&compiled, &policy, opt, &config, from, args.steps)
            .map_err(|e| (1, e.to_string()))?;
        let mut bar = ProgressBar::new(args.steps, from.env_steps);
        let mut saved = Instant::now();
        let mut watch = args.profile.then(|| Phases::new(device));
        while !trainer.finished() {
            let m = match &mut watch {
                Some(w) => {
                    w.restart();
                    trainer.update_timed(w)
                }
                None => trainer.update(),
            }
            .map_err(|e| (1, e.to_string()))?;
            let seconds = started.elapsed().as_secs_f64();
            let rate = (m.env_steps - from.env_steps) as f64 / seconds.max(1e-9);
            let mut line = serde_json::to_value(&m).unwrap_or_default();
            line["steps_per_second"] = json!(rate);
            line["seconds"] = json!(seconds);
            bar.show(&m, rate);
            writeln!(metrics, "{line}").map_err(|e| (1, format!("cannot write metrics: {e}")))?;
            // The checkpoint (about 4 bytes × 3 per parameter) is written
            // every `--checkpoint-every` seconds and at the end, not after
            // every update: on a fast device the writes would dominate.
            if trainer.finished() || saved.elapsed().as_secs_f64() >= args.checkpoint_every {
                files
                    .save(&vs, trainer.optimizer(), trainer.progress())
                    .map_err(|e| (1, format!("cannot save the checkpoint: {e}")))?;
                saved = Instant::now();
            }
            history.push(m);
        }
        bar.finish();
        if let Some(w) = &watch {
            let steps = trainer.progress().env_steps - from.env_steps;
            let report = w.report(steps, started.elapsed().as_secs_f64());
            std::fs::write(out.join("profile.json"), report.to_string())
                .map_err(|e| (1, format!("cannot write profile.json: {e}")))?;
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
            "env_steps": trainer.progress().env_steps,
            "seconds": started.elapsed().as_secs_f64(),
            "success_before": before, "success_after": after,
        });
        std::fs::write(out.join("summary.json"), summary.to_string())
            .map_err(|e| (1, format!("cannot write summary.json: {e}")))?;
        eprintln!("wrote {}", out.display());
        Ok(())
    }

    /// Environments and rollout length when not given: a CPU run is bound
    /// by its update, a GPU one by stepping environments unless there are
    /// many of them.
    fn default_shape(device: Device) -> (usize, usize) {
        match device {
            Device::Cpu => (32, 32),
            _ => (1024, 64),
        }
    }

    fn ppo_config(args: &TrainArgs) -> PpoConfig {
        PpoConfig {
            epochs: args.epochs.max(1),
            minibatches: args.minibatches.max(1),
            target_kl: args.target_kl,
            clip_value: args.clip_value,
            ..PpoConfig::default()
        }
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
        // Only the success rate is wanted: no judging oracle.
        let config = RunConfig {
            judge: false,
            ..*config
        };
        let results = run::evaluate(compiled, policy, &[args.seed], false, &config)
            .map_err(|e| e.to_string())?;
        let (k, n) = results
            .iter()
            .fold((0, 0), |(k, n), r| (k + r.successes, n + r.episodes));
        Ok(Some(k as f64 / n.max(1) as f64))
    }

    /// The policy's sizes with the inputs `with` names switched on, then
    /// those `ablate` names switched off.
    fn policy_config(with: &[String], ablate: &[String]) -> Result<PolicyConfig, String> {
        let mut c = PolicyConfig::default();
        let names = with.iter().map(|n| (n, true, "--with"));
        let names = names.chain(ablate.iter().map(|n| (n, false, "--ablate")));
        for (name, on, flag) in names {
            let switched = if on {
                c.features.with(name.trim())
            } else {
                c.features.without(name.trim())
            };
            c.features = switched.ok_or_else(|| {
                format!(
                    "unknown policy input `{name}` for {flag}; use one of {}",
                    Features::NAMES.join(", ")
                )
            })?;
        }
        Ok(c)
    }

    /// The policy configuration a run directory's `config.json` records
    /// (the default for runs from before it was recorded).
    pub fn recorded_policy_config(run_dir: &Path) -> Result<PolicyConfig, String> {
        let path = run_dir.join("config.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(PolicyConfig::default());
        };
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        match value.get("policy") {
            None => Ok(PolicyConfig::default()),
            Some(p) => serde_json::from_value(p.clone())
                .map_err(|e| format!("{}: bad `policy`: {e}", path.display())),
        }
    }

    /// The policy in `checkpoint`, built as its run recorded it (a policy
    /// trained with inputs switched off reads them as zeros here too), with
    /// the variable store holding its weights.
    pub fn load_policy(
        checkpoint: &Path,
        device: Device,
    ) -> Result<(nn::VarStore, Policy), String> {
        let run_dir = checkpoint.parent().unwrap_or(Path::new("."));
        let mut vs = nn::VarStore::new(device);
        let policy = Policy::new(&vs.root(), recorded_policy_config(run_dir)?);
        vs.load(checkpoint)
            .map_err(|e| format!("cannot load the policy {}: {e}", checkpoint.display()))?;
        Ok((vs, policy))
    }

    fn write_config(
        out: &Path,
        a: &TrainArgs,
        c: &RunConfig,
        sites: &[Site],
        policy: &PolicyConfig,
        params: i64,
    ) -> Result<(), String> {
        let config = json!({
            "policy": policy,
            "sites": sites.iter().map(|s| &s.name).collect::<Vec<_>>(),
            "steps": a.steps, "device": a.device, "reward": a.reward,
            "envs": c.envs, "rollout": c.rollout, "seed": a.seed,
            "verified": !a.unverified, "parameters": params,
            "ppo": format!("{:?}", c.ppo),
        });
        std::fs::write(
            out.join("config.json"),
            serde_json::to_string_pretty(&config).unwrap_or_default(),
        )
        .map_err(|e| format!("cannot write config.json: {e}"))
    }

    /// The files of a resumable checkpoint, each rewritten after every
    /// update: the weights, the optimizer's moments, and how far the run came.
    struct Checkpoint {
        policy: PathBuf,
        optimizer: PathBuf,
        progress: PathBuf,
    }

    impl Checkpoint {
        fn in_dir(out: &Path) -> Checkpoint {
            Checkpoint {
                policy: out.join("policy.safetensors"),
                optimizer: out.join("optimizer.safetensors"),
                progress: out.join("progress.json"),
            }
        }

        fn save(&self, vs: &nn::VarStore, opt: &Adam, p: Progress) -> Result<(), String> {
            vs.save(&self.policy).map_err(|e| e.to_string())?;
            opt.save(&self.optimizer).map_err(|e| e.to_string())?;
            let text = serde_json::to_string(&p).map_err(|e| e.to_string())?;
            std::fs::write(&self.progress, text).map_err(|e| e.to_string())
        }

        /// Loads all three or fails naming the one that is missing or does
        /// not fit (then nothing is trained and the run directory is as it
        /// was).
        fn load(&self, vs: &mut nn::VarStore, opt: &mut Adam) -> Result<Progress, String> {
            let cannot = |path: &Path, e: String| {
                format!(
                    "cannot resume from {}: {e}\n  = help: train without `--resume` to start over",
                    path.display()
                )
            };
            let text = std::fs::read_to_string(&self.progress)
                .map_err(|e| cannot(&self.progress, e.to_string()))?;
            let progress: Progress =
                serde_json::from_str(&text).map_err(|e| cannot(&self.progress, e.to_string()))?;
            vs.load(&self.policy)
                .map_err(|e| cannot(&self.policy, e.to_string()))?;
            opt.load(&self.optimizer)
                .map_err(|e| cannot(&self.optimizer, e.to_string()))?;
            Ok(progress)
        }
    }

    /// `metrics.jsonl`, opened to append to, and the updates it already
    /// holds. A fresh run empties it; a resumed one keeps the lines up to its
    /// checkpoint and drops any written after it (by a run stopped between
    /// checkpoints), so no update appears twice.
    fn open_metrics(
        out: &Path,
        resume: Option<Progress>,
    ) -> Result<(std::fs::File, Vec<UpdateMetrics>), String> {
        let path = out.join("metrics.jsonl");
        let mut kept = String::new();
        let mut history = Vec::new();
        if let Some(from) = resume {
            for line in std::fs::read_to_string(&path).unwrap_or_default().lines() {
                match serde_json::from_str::<UpdateMetrics>(line) {
                    Ok(m) if m.env_steps <= from.env_steps => {
                        kept.push_str(line);
                        kept.push('\n');
                        history.push(m);
                    }
                    _ => {}
                }
            }
        }
        std::fs::write(&path, kept).map_err(|e| e.to_string())?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| e.to_string())?;
        Ok((file, history))
    }

    /// A progress bar on a terminal; one line per update otherwise (a log
    /// file, CI), where a bar would only draw nothing.
    struct ProgressBar {
        bar: Option<indicatif::ProgressBar>,
        total: u64,
    }

    impl ProgressBar {
        fn new(total: u64, done: u64) -> ProgressBar {
            use std::io::IsTerminal;
            let bar = std::io::stderr().is_terminal().then(|| {
                let bar = indicatif::ProgressBar::new(total).with_position(done);
                if let Ok(style) = indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos:>9}/{len} steps  {msg}  eta {eta}",
                ) {
                    bar.set_style(style);
                }
                bar
            });
            ProgressBar { bar, total }
        }

        fn show(&mut self, m: &UpdateMetrics, rate: f64) {
            let msg = format!(
                "success {:>5.1}%  return {:>7.3}  entropy {:.2}  {:>7.0} steps/s",
                100.0 * m.success_rate,
                m.mean_return,
                m.entropy,
                rate
            );
            match &self.bar {
                Some(bar) => {
                    bar.set_position(m.env_steps.min(self.total));
                    bar.set_message(msg);
                }
                None => eprintln!(
                    "update {:>4}  steps {:>9}/{}  {msg}",
                    m.update, m.env_steps, self.total
                ),
            }
        }

        fn finish(&self) {
            if let Some(bar) = &self.bar {
                bar.finish();
            }
        }
    }
}
