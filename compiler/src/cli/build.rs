//! `wsitec build FILE… -o OUT.wsb`: check, prove every task, and write the
//! artifact. The build fails on any error and on any task instance not proven
//! feasible, unless `--drop-infeasible` drops those tasks (with their
//! feasibility errors) and keeps the rest.

use super::load;
use clap::Args;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use wsite_runtime::artifact::{self, Artifact, DefectRecord, Meta, SourceFile, TaskRecord};
use wsite_runtime::prove::{self, Verdict};
use wsitec::diagnostics::{human, json, Category, Diagnostic};
use wsitec::{Compilation, Source};

#[derive(Args)]
pub struct BuildArgs {
    /// The site's `.wsite` files (together one program) or a directory.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where to write the artifact.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    /// Drop tasks not proven feasible (and their feasibility errors) instead of
    /// failing.
    #[arg(long)]
    drop_infeasible: bool,
    /// Distinct states the search may explore per task instance.
    #[arg(long, default_value_t = prove::DEFAULT_BUDGET)]
    budget: usize,
}

pub fn run(args: BuildArgs) -> ExitCode {
    match build(&args) {
        Ok(summary) => {
            eprintln!("{summary}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{why}");
            ExitCode::from(1)
        }
    }
}

fn build(args: &BuildArgs) -> Result<String, String> {
    let input = gather(&args.files)?;
    let name = input.name.clone();
    let options = wsitec::Options {
        prove: Some(prove::Options {
            budget: args.budget,
            ..Default::default()
        }),
        only_task: None,
        ..Default::default()
    };
    let compiled = load::compile_with(input, options);
    let Some(program) = compiled.program.clone() else {
        return Err(refusal(&name, &compiled, &compiled.diagnostics));
    };
    let unproven: BTreeSet<String> = compiled
        .proofs
        .iter()
        .filter(|p| p.verdict != Verdict::Feasible)
        .map(|p| p.task.clone())
        .collect();
    let blocking: Vec<Diagnostic> = compiled
        .diagnostics
        .iter()
        .filter(|d| d.is_error() || is_unproven_warning(d))
        .filter(|d| !(args.drop_infeasible && is_feasibility(d)))
        .cloned()
        .collect();
    if !blocking.is_empty() {
        return Err(refusal(&name, &compiled, &blocking));
    }
    let mut program = program;
    program.tasks.retain(|t| !unproven.contains(&t.name));
    if program.tasks.is_empty() {
        return Err(format!(
            "{name}: no task was proven feasible; nothing to build"
        ));
    }
    let artifact = Artifact {
        meta: Meta {
            compiler_version: load::COMPILER_VERSION.into(),
            source_hash: String::new(),
            site_name: program.site.name.clone(),
        },
        sources: compiled
            .sources
            .iter()
            .map(|s| SourceFile {
                path: s.name.clone(),
                text: s.text.clone(),
            })
            .collect(),
        tasks: task_records(&compiled),
        defects: defect_records(&name, &compiled),
        program,
    };
    artifact::write(&artifact, &args.output).map_err(|e| e.to_string())?;
    let kept = artifact
        .tasks
        .iter()
        .filter(|t| t.verdict == "feasible")
        .count();
    let mut summary = format!(
        "wrote {}: {kept} task instances proven feasible",
        args.output.display()
    );
    if !unproven.is_empty() {
        let dropped: Vec<&str> = unproven.iter().map(String::as_str).collect();
        summary.push_str(&format!("; dropped {}", dropped.join(", ")));
    }
    Ok(summary)
}

/// One program from all the arguments: every file (or a directory's files) is
/// an entry file of the same site.
fn gather(paths: &[PathBuf]) -> Result<load::ProgramInput, String> {
    let mut roots: Vec<Source> = Vec::new();
    let mut embedded = Vec::new();
    for p in paths {
        let input = load::program_input(p)?;
        roots.extend(input.roots);
        embedded.extend(input.embedded);
    }
    let name = paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    Ok(load::ProgramInput {
        name,
        roots,
        embedded,
    })
}

fn is_feasibility(d: &Diagnostic) -> bool {
    d.code.category() == Category::Feasibility
}

/// F406: not an error, but the task is not proven.
fn is_unproven_warning(d: &Diagnostic) -> bool {
    d.code.as_str() == "F406"
}

fn refusal(name: &str, compiled: &Compilation, shown: &[Diagnostic]) -> String {
    let report = human::SourceDb::new(&compiled.sources).render_plain(shown);
    let hint = if shown.iter().any(is_feasibility) {
        "; fix them, or pass `--drop-infeasible` to build without those tasks"
    } else {
        ""
    };
    format!("{report}{name}: not built: {}{hint}", human::summary(shown))
}

fn task_records(compiled: &Compilation) -> Vec<TaskRecord> {
    compiled
        .proofs
        .iter()
        .map(|p| TaskRecord {
            name: p.instance.clone(),
            kind: p.kind.into(),
            instruction: p.instruction.clone(),
            horizon: p.horizon,
            verdict: p.verdict.as_str().into(),
            witness: p.witness.iter().map(ToString::to_string).collect(),
            states_explored: p.states as u64,
        })
        .collect()
}

fn defect_records(name: &str, compiled: &Compilation) -> Vec<DefectRecord> {
    let report = json::report(
        name,
        &compiled.sources,
        &compiled.files,
        &compiled.diagnostics,
    );
    let defects = report
        .get("defects")
        .and_then(|d| d.as_array())
        .cloned()
        .unwrap_or_default();
    defects
        .iter()
        .map(|d| {
            let text = |k: &str| d.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
            let raw = |k: &str| d.get(k).map_or_else(|| "null".into(), ToString::to_string);
            DefectRecord {
                code: text("code"),
                severity: text("severity"),
                category: text("category"),
                object: text("object"),
                message: text("message"),
                span_json: raw("span"),
                evidence_json: raw("evidence"),
            }
        })
        .collect()
}
