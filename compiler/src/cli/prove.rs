//! `wsitec prove FILE… [--task NAME]`: reachability only — each task
//! instance's verdict, its shortest witness, or why there is none.

use super::load;
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use wsite_runtime::prove::{self, Verdict};
use wsitec::diagnostics::human;
use wsitec::verify::TaskOutcome;

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Args)]
pub struct ProveArgs {
    /// `.wsite` files or directories (one program each), or built `.wsb` files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Prove only this task (or one instance, `name[x=3]`).
    #[arg(long)]
    task: Option<String>,
    /// Distinct states the search may explore per task instance.
    #[arg(long, default_value_t = prove::DEFAULT_BUDGET)]
    budget: usize,
    /// Explore every action, without cone-of-influence pruning.
    #[arg(long)]
    no_prune: bool,
    /// Search every instance, without first trying the exact reductions
    /// (the static bound that decides some infeasible goals unsearched).
    #[arg(long)]
    no_reduce: bool,
    /// `human`, or `json` (one object per program, a line each).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

pub fn run(args: ProveArgs) -> ExitCode {
    let mut all_proven = true;
    for path in &args.files {
        all_proven &= prove_program(&args, path);
    }
    ExitCode::from(u8::from(!all_proven))
}

/// Proves one program and prints the result; whether every instance was
/// proven feasible.
fn prove_program(args: &ProveArgs, path: &std::path::Path) -> bool {
    let input = match load::program_input(path) {
        Ok(input) => input,
        Err(why) => {
            eprintln!("error: {why}");
            return false;
        }
    };
    let name = input.name.clone();
    let options = wsitec::Options {
        prove: Some(prove::Options {
            budget: args.budget,
            prune: !args.no_prune,
            horizon: None,
            reduce: !args.no_reduce,
            explain: true,
        }),
        only_task: args.task.clone(),
        ..Default::default()
    };
    let started = Instant::now();
    let compiled = load::compile_with(input, options);
    let seconds = started.elapsed().as_secs_f64();
    if compiled.program.is_none() || compiled.has_errors() && compiled.proofs.is_empty() {
        eprint!(
            "{}",
            human::SourceDb::new(&compiled.sources).render_plain(&compiled.diagnostics)
        );
        eprintln!(
            "{name}: {}; nothing to prove",
            human::summary(&compiled.diagnostics)
        );
        return false;
    }
    if let Some(t) = &args.task {
        if compiled.proofs.is_empty() {
            eprintln!("error: {name} has no task `{t}`");
            return false;
        }
    }
    match args.format {
        Format::Json => print_json(&name, &compiled.proofs, seconds),
        Format::Human => print_human(&name, &compiled, seconds),
    }
    compiled
        .proofs
        .iter()
        .all(|p| p.verdict == Verdict::Feasible)
}

fn print_human(name: &str, compiled: &wsitec::Compilation, seconds: f64) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{name}");
    for p in &compiled.proofs {
        let _ = match p.verdict {
            Verdict::Feasible => writeln!(
                out,
                "  {:<34} feasible    {:>2} steps  {:>9} states",
                p.instance,
                p.witness.len(),
                p.states
            ),
            v => writeln!(
                out,
                "  {:<34} {:<11} {}",
                p.instance,
                v.as_str(),
                p.reason.as_deref().unwrap_or("")
            ),
        };
        for (i, step) in p.witness.iter().enumerate() {
            let _ = writeln!(out, "      {:>2}. {step}", i + 1);
        }
    }
    let states: usize = compiled.proofs.iter().map(|p| p.states).sum();
    let feasible = compiled
        .proofs
        .iter()
        .filter(|p| p.verdict == Verdict::Feasible)
        .count();
    let _ = writeln!(
        out,
        "{feasible} of {} task instances feasible; {states} states in {seconds:.2} s ({:.0} states/s)",
        compiled.proofs.len(),
        states as f64 / seconds.max(1e-9)
    );
    let defects: Vec<_> = compiled
        .diagnostics
        .iter()
        .filter(|d| {
            matches!(
                d.code.category(),
                wsitec::diagnostics::Category::Feasibility
            )
        })
        .cloned()
        .collect();
    if !defects.is_empty() {
        eprint!(
            "{}",
            human::SourceDb::new(&compiled.sources).render_plain(&defects)
        );
    }
}

fn print_json(name: &str, proofs: &[TaskOutcome], seconds: f64) {
    let tasks: Vec<serde_json::Value> = proofs
        .iter()
        .map(|p| {
            serde_json::json!({
                "task": p.instance,
                "kind": p.kind,
                "verdict": p.verdict.as_str(),
                "horizon": p.horizon,
                "witness": p.witness.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "witness_actions": p.witness,
                "states": p.states,
                "reason": p.reason,
            })
        })
        .collect();
    let states: usize = proofs.iter().map(|p| p.states).sum();
    let report = serde_json::json!({
        "site": name, "tasks": tasks, "states": states, "seconds": seconds,
    });
    let _ = writeln!(std::io::stdout().lock(), "{report}");
}
