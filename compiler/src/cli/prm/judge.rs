//! `wsitec prm judge BENCH.jsonl (--baseline NAME | --cmd CMD) -o OUT`
//! (docs/prm.md, "Judges"): shows each benchmark instance to a judge as a
//! blind [`Query`] (candidates in a seeded order), puts its scores back in
//! `[chosen, rejected…]` order and writes one judgement line per instance,
//! `{"id", "judge", "scores"}` or `{"id", "judge", "error"}` (the format
//! `prm eval` reads). [`make_judge`] builds a judge by name (shared with
//! `wsitec eval --search`).

use super::super::load;
use super::super::simulator::parse_timeout;
use super::eval::read_bench;
use super::export::site_name;
use super::external::ExternalJudge;
use clap::Args;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use wsite_runtime::ir::Program;
use wsite_runtime::prm::baselines::{OracleJudge, OverlapJudge, RandomJudge};
use wsite_runtime::prm::judge::{blind_order, unshuffle, Judge, Query};
use wsite_runtime::prm::Instance;

#[derive(Args)]
pub struct JudgeArgs {
    /// The benchmark (`prm export` or `prm convert --to wsite`).
    bench: PathBuf,
    /// A built-in judge: random, overlap, oracle, policy, value.
    #[arg(long, required_unless_present = "cmd", conflicts_with = "cmd")]
    baseline: Option<String>,
    /// An external judge: a command (run by `sh -c`) speaking JSON lines.
    #[arg(long, value_name = "CMD")]
    cmd: Option<String>,
    /// The sites, for judges that replay states (oracle, policy, value);
    /// found by file stem, as `prm export` names them.
    #[arg(long, num_args = 1..)]
    sites: Vec<PathBuf>,
    /// The checkpoint of the policy and value judges.
    #[arg(long)]
    policy: Option<PathBuf>,
    /// `cpu` or `cuda` (policy and value judges).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Seeds the candidates' order and the random judge.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds an external judge may take per instance.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_timeout)]
    timeout: Duration,
    /// Distinct states one distance query of the oracle may explore.
    #[arg(long, default_value_t = wsite_runtime::prove::DEFAULT_ORACLE_BUDGET)]
    oracle_budget: usize,
    /// The judge's name in the judgements (default: the judge's own).
    #[arg(long)]
    name: Option<String>,
    /// The judgements, one line per instance.
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(args: JudgeArgs) -> ExitCode {
    match judge_bench(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

fn judge_bench(args: &JudgeArgs) -> Result<(), String> {
    let instances = read_bench(&args.bench).map_err(|e| e.to_string())?;
    let programs = load_programs(&args.sites)?;
    let options = JudgeOptions {
        seed: args.seed,
        policy: args.policy.clone(),
        device: args.device.clone(),
        oracle_budget: args.oracle_budget,
        timeout: args.timeout,
    };
    let name = match (&args.baseline, &args.cmd) {
        (_, Some(cmd)) => format!("cmd:{cmd}"),
        (Some(b), None) => b.clone(),
        (None, None) => return Err("give --baseline NAME or --cmd CMD".into()),
    };
    let mut judge = make_judge(&name, &programs, &options)?;
    let shown = args
        .name
        .clone()
        .unwrap_or_else(|| judge.name().to_string());
    let file = std::fs::File::create(&args.output)
        .map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let mut failed = 0;
    for (n, instance) in instances.iter().enumerate() {
        let line = judgement(judge.as_mut(), &shown, instance, args.seed);
        failed += usize::from(line.get("error").is_some());
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
        if (n + 1) % 100 == 0 {
            eprintln!("judged {} of {} instances", n + 1, instances.len());
        }
    }
    eprintln!(
        "{shown}: judged {} instances, {failed} without scores; wrote {}",
        instances.len(),
        args.output.display()
    );
    Ok(())
}

/// One instance's judgement line (scores in `[chosen, rejected…]` order).
fn judgement(
    judge: &mut dyn Judge,
    name: &str,
    instance: &Instance,
    seed: u64,
) -> serde_json::Value {
    let order = blind_order(instance, seed);
    let query = Query::of_instance(instance, &order);
    let checked = judge
        .score(&query)
        .map_err(|e| e.to_string())
        .and_then(|s| {
            if s.len() != order.len() {
                Err(format!(
                    "the judge gave {} scores for {} candidates",
                    s.len(),
                    order.len()
                ))
            } else if s.iter().any(|x| !x.is_finite()) {
                Err("the judge gave a score that is not a finite number".into())
            } else {
                Ok(unshuffle(&s, &order))
            }
        });
    match checked {
        Ok(scores) => json!({"id": instance.id, "judge": name, "scores": scores}),
        Err(why) => json!({"id": instance.id, "judge": name, "error": why}),
    }
}

/// The sites by file stem, unproven (judges only replay them).
fn load_programs(paths: &[PathBuf]) -> Result<BTreeMap<String, Program>, String> {
    let mut programs = BTreeMap::new();
    for file in load::site_files(paths)? {
        if let Some(site) = load::runnable_site(&file, false, 0)? {
            programs.insert(site_name(&file), site.program);
        }
    }
    Ok(programs)
}

/// What building a judge may need besides its name.
#[derive(Clone, Debug)]
pub struct JudgeOptions {
    pub seed: u64,
    /// A checkpoint (`policy.safetensors`), for `policy` and `value`.
    pub policy: Option<PathBuf>,
    /// `cpu` or `cuda`.
    pub device: String,
    /// Distinct states one distance query may explore (`oracle`).
    pub oracle_budget: usize,
    /// How long an external judge may take per query.
    pub timeout: std::time::Duration,
}

/// The judge called `name`: `random`, `overlap`, `oracle`, `policy`, `value`,
/// or `cmd:COMMAND` (an external process); `programs` are the sites by name
/// (file stem), for judges that replay states.
pub fn make_judge<'a>(
    name: &str,
    programs: &'a BTreeMap<String, Program>,
    options: &JudgeOptions,
) -> Result<Box<dyn Judge + 'a>, String> {
    if let Some(command) = name.strip_prefix("cmd:") {
        return Ok(Box::new(ExternalJudge::start(command, options.timeout)?));
    }
    match name {
        "random" => Ok(Box::new(RandomJudge { seed: options.seed })),
        "overlap" => Ok(Box::new(OverlapJudge)),
        "oracle" => Ok(Box::new(OracleJudge::new(programs, options.oracle_budget))),
        "policy" | "value" => learned_judge(name == "value", programs, options),
        other => Err(format!(
            "no judge `{other}`: random, overlap, oracle, policy, value or cmd:COMMAND"
        )),
    }
}

#[cfg(feature = "train")]
fn learned_judge<'a>(
    value: bool,
    programs: &'a BTreeMap<String, Program>,
    options: &JudgeOptions,
) -> Result<Box<dyn Judge + 'a>, String> {
    let checkpoint = options
        .policy
        .as_deref()
        .ok_or("the policy and value judges need --policy CHECKPOINT")?;
    super::learned::judge(checkpoint, programs, value, &options.device)
}

#[cfg(not(feature = "train"))]
fn learned_judge<'a>(
    value: bool,
    programs: &'a BTreeMap<String, Program>,
    options: &JudgeOptions,
) -> Result<Box<dyn Judge + 'a>, String> {
    // What the train build would use; nothing to do with it here.
    let _ = (value, programs, &options.policy, &options.device);
    Err(
        "the policy and value judges need libtorch: wsitec was built without the train feature"
            .into(),
    )
}
