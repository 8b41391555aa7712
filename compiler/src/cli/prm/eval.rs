//! `wsitec prm eval BENCH.jsonl JUDGEMENTS.jsonl…` (docs/prm.md, "Eval"):
//! one row per judgements file, in WebArbiter's table shape — per domain
//! Pairwise and Best-of-N accuracy, then "Avg" (the mean over domains) and
//! "All" (over instances) — with every problem of the judgements listed
//! under the table (`wsite_runtime::prm::score` counts and classifies them).
//! Also owns reading a benchmark file, which `prm judge` and `prm convert`
//! share.

use clap::{Args, ValueEnum};
use serde_json::{json, Value as Json};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsite_runtime::prm::score::{score, Item, Report, Tally};
use wsite_runtime::prm::Instance;

#[derive(Args)]
pub struct EvalArgs {
    /// The benchmark the judgements judge.
    bench: PathBuf,
    /// Judgement files (`prm judge`'s output or any judge's), one row each.
    #[arg(required = true)]
    judgements: Vec<PathBuf>,
    /// `text` (a table) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Why a benchmark cannot be read.
#[derive(Debug)]
pub enum BenchError {
    Read(PathBuf, std::io::Error),
    /// Line `line` (1-based) is not an instance.
    Line {
        path: PathBuf,
        line: usize,
        why: String,
    },
    /// Two instances share an id, so judgements could not tell them apart.
    DuplicateId {
        path: PathBuf,
        line: usize,
        id: String,
    },
    Empty(PathBuf),
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Read(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            BenchError::Line { path, line, why } => {
                write!(
                    f,
                    "{}:{line}: not a benchmark instance: {why}",
                    path.display()
                )
            }
            BenchError::DuplicateId { path, line, id } => {
                write!(f, "{}:{line}: the id `{id}` is used twice", path.display())
            }
            BenchError::Empty(p) => write!(f, "{} holds no instance", p.display()),
        }
    }
}

impl std::error::Error for BenchError {}

/// The instances of a benchmark file, one JSON object per line (blank
/// lines skipped).
pub fn read_bench(path: &Path) -> Result<Vec<Instance>, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|e| BenchError::Read(path.into(), e))?;
    let mut ids = BTreeSet::new();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let instance: Instance = serde_json::from_str(line).map_err(|e| BenchError::Line {
            path: path.into(),
            line: n + 1,
            why: e.to_string(),
        })?;
        if !ids.insert(instance.id.clone()) {
            return Err(BenchError::DuplicateId {
                path: path.into(),
                line: n + 1,
                id: instance.id,
            });
        }
        out.push(instance);
    }
    if out.is_empty() {
        return Err(BenchError::Empty(path.into()));
    }
    Ok(out)
}

pub fn run(args: EvalArgs) -> ExitCode {
    match eval(&args) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

/// One judgements file's row.
struct Row {
    name: String,
    file: PathBuf,
    report: Report,
}

fn eval(args: &EvalArgs) -> Result<String, String> {
    let instances = read_bench(&args.bench).map_err(|e| e.to_string())?;
    let items: Vec<Item> = instances.iter().map(Item::from).collect();
    let domains: Vec<String> = items
        .iter()
        .map(|i| i.domain.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut rows = Vec::new();
    for file in &args.judgements {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let report = score(&items, &text);
        let name = report
            .judge
            .clone()
            .unwrap_or_else(|| super::export::site_name(file));
        rows.push(Row {
            name,
            file: file.clone(),
            report,
        });
    }
    Ok(match args.format {
        Format::Text => table(&domains, &rows, items.len()),
        Format::Json => {
            let rows: Vec<Json> = rows.iter().map(|r| row_json(r, &domains)).collect();
            let doc = json!({"benchmark": args.bench.display().to_string(),
                             "instances": items.len(), "domains": domains, "rows": rows});
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n"
        }
    })
}

/// A percentage with two decimals, as WebArbiter's tables print them.
fn pct(x: f64) -> String {
    format!("{:.2}", 100.0 * x)
}

/// Problems listed per row in the text table; the counts cover all.
const LISTED: usize = 20;

fn table(domains: &[String], rows: &[Row], instances: usize) -> String {
    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let groups: Vec<&str> = domains
        .iter()
        .map(String::as_str)
        .chain(["Avg", "All"])
        .collect();
    let cell = groups
        .iter()
        .map(|g| g.chars().count())
        .max()
        .unwrap_or(0)
        .max(15);
    let mut out = format!("{instances} instances\n{:width$}", "judge");
    for g in &groups {
        out.push_str(&format!(" | {g:^cell$}"));
    }
    out.push_str(&format!("\n{:width$}", ""));
    for _ in &groups {
        out.push_str(&format!(" | {:>w$} {:>6}", "Pairwise", "BoN", w = cell - 7));
    }
    out.push('\n');
    for r in rows {
        out.push_str(&format!("{:width$}", r.name));
        let mut cells: Vec<(f64, f64)> = domains
            .iter()
            .map(|d| {
                let t = r.report.domains.get(d).copied().unwrap_or_default();
                (t.pairwise(), t.bon())
            })
            .collect();
        cells.push(r.report.macro_avg());
        cells.push((r.report.overall.pairwise(), r.report.overall.bon()));
        for (p, b) in cells {
            out.push_str(&format!(" | {:>w$} {:>6}", pct(p), pct(b), w = cell - 7));
        }
        out.push('\n');
    }
    for r in rows {
        out.push_str(&problems_text(r));
    }
    out
}

fn problems_text(r: &Row) -> String {
    let counts = r.report.problem_counts();
    if counts.is_empty() {
        return format!("\n{} ({}): no problems\n", r.name, r.file.display());
    }
    let summary: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let mut out = format!(
        "\n{} ({}): {}\n",
        r.name,
        r.file.display(),
        summary.join(", ")
    );
    for p in r.report.problems.iter().take(LISTED) {
        out.push_str(&format!("  {p}\n"));
    }
    if r.report.problems.len() > LISTED {
        out.push_str(&format!(
            "  … and {} more (--format json lists all)\n",
            r.report.problems.len() - LISTED
        ));
    }
    out
}

fn tally_json(t: &Tally) -> Json {
    json!({"pairwise": t.pairwise(), "bon": t.bon(), "pairs": t.pairs,
           "pairs_correct": t.pairs_correct, "instances": t.instances,
           "bon_correct": t.bon_correct})
}

fn row_json(r: &Row, domains: &[String]) -> Json {
    let per_domain: serde_json::Map<String, Json> = domains
        .iter()
        .map(|d| {
            let t = r.report.domains.get(d).copied().unwrap_or_default();
            (d.clone(), tally_json(&t))
        })
        .collect();
    let (p, b) = r.report.macro_avg();
    let problems: Vec<Json> = r
        .report
        .problems
        .iter()
        .map(|p| json!({"kind": p.kind(), "message": p.to_string()}))
        .collect();
    json!({"judge": r.name, "file": r.file.display().to_string(), "domains": per_domain,
           "avg": {"pairwise": p, "bon": b}, "all": tally_json(&r.report.overall),
           "problem_counts": r.report.problem_counts(), "problems": problems})
}
