//! `wsitec report DIR`: the results of an experiment directory as
//! `scripts/experiment.sh` lays it out: each run's `runs/NAME/metrics.jsonl`,
//! its test-split evaluation `eval/NAME.json` and, when the runs were played
//! on hand-written sites, `eval-heldout/NAME.json` (both `wsitec eval
//! --format json`). Prints the Markdown tables of `wsite_runtime::report`
//! and draws the learning curves of every condition into one PNG. This file
//! only reads and writes; the summary is the runtime's.

use clap::Args;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsite_runtime::plot::PlotError;
use wsite_runtime::report::{self, Evaluation, Run, UpdatePoint};

#[derive(Args)]
pub struct ReportArgs {
    /// The experiment directory (`runs/experiment` of scripts/experiment.sh).
    dir: PathBuf,
    /// The learning-curve figure [default: DIR/curves.png].
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
}

/// Why the report could not be made.
#[derive(Debug)]
enum ReportError {
    Read(PathBuf, std::io::Error),
    /// The file, the line of a JSON-lines file, and what is wrong.
    Parse(PathBuf, Option<usize>, serde_json::Error),
    NoRuns(PathBuf),
    Plot(PathBuf, PlotError),
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Read(p, e) => write!(f, "cannot read `{}`: {e}", p.display()),
            ReportError::Parse(p, Some(line), e) => {
                write!(f, "`{}` line {line} is not what was expected: {e}", p.display())
            }
            ReportError::Parse(p, None, e) => {
                write!(f, "`{}` is not what was expected: {e}", p.display())
            }
            ReportError::NoRuns(p) => write!(
                f,
                "no runs in `{}` (expected `runs/NAME/metrics.jsonl`, as scripts/experiment.sh writes)",
                p.display()
            ),
            ReportError::Plot(p, e) => write!(f, "cannot draw `{}`: {e}", p.display()),
        }
    }
}

pub fn run(args: ReportArgs) -> ExitCode {
    match report(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

fn report(args: &ReportArgs) -> Result<(), ReportError> {
    let conditions = report::group(read_runs(&args.dir)?);
    let figure = args
        .out
        .clone()
        .unwrap_or_else(|| args.dir.join("curves.png"));
    report::figure::draw(&figure, &conditions).map_err(|e| ReportError::Plot(figure.clone(), e))?;
    print!("{}", report::table::markdown(&conditions));
    eprintln!("wrote {}", figure.display());
    Ok(())
}

/// Every run under `DIR/runs`, in name order, with its evaluations.
fn read_runs(dir: &Path) -> Result<Vec<Run>, ReportError> {
    let runs_dir = dir.join("runs");
    let mut names: Vec<String> = std::fs::read_dir(&runs_dir)
        .map_err(|e| ReportError::Read(runs_dir.clone(), e))?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().join("metrics.jsonl").is_file())
        .filter_map(|entry| entry.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(ReportError::NoRuns(dir.to_path_buf()));
    }
    names
        .into_iter()
        .map(|name| {
            Ok(Run {
                updates: read_metrics(&runs_dir.join(&name).join("metrics.jsonl"))?,
                test: read_evaluation(&dir.join("eval").join(format!("{name}.json")))?,
                heldout: read_evaluation(&dir.join("eval-heldout").join(format!("{name}.json")))?,
                name,
            })
        })
        .collect()
}

fn read(path: &Path) -> Result<String, ReportError> {
    std::fs::read_to_string(path).map_err(|e| ReportError::Read(path.to_path_buf(), e))
}

/// A run's `metrics.jsonl`, one update a line.
fn read_metrics(path: &Path) -> Result<Vec<UpdatePoint>, ReportError> {
    read(path)?
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(k, line)| {
            serde_json::from_str(line)
                .map_err(|e| ReportError::Parse(path.to_path_buf(), Some(k + 1), e))
        })
        .collect()
}

/// An evaluation, or `None` when the run was not evaluated there.
fn read_evaluation(path: &Path) -> Result<Option<Evaluation>, ReportError> {
    if !path.is_file() {
        return Ok(None);
    }
    serde_json::from_str(&read(path)?)
        .map(Some)
        .map_err(|e| ReportError::Parse(path.to_path_buf(), None, e))
}
