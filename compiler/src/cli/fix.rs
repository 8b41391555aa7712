//! `wsitec fix FILE…`: applies the machine-applicable fixes the check offers
//! (the rounds and the choice of fixes are [`wsitec::fix`]), like `cargo fix`.
//!
//! A dry run by default: a unified diff per changed file on standard output
//! and a summary per program on standard error. `--apply` writes the changed
//! files in place, each through a temporary file renamed over it, and only
//! when none of them changed on disk since it was read. `--format json`
//! prints one object per program instead. Exit 1 when errors are left (in
//! the fixed text) or a file could not be read or written, 2 on bad usage
//! (INTERFACES.md).

use super::check::SearchArgs;
use super::load;
use clap::{Args, ValueEnum};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsitec::diagnostics::{human, Diagnostic};
use wsitec::fix::{self, Changed, Outcome};

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Args)]
pub struct FixArgs {
    /// `.wsite` files (each its own program) or directories (one program each).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the fixed files in place (without it, show the diff only).
    #[arg(long)]
    apply: bool,
    /// `human` (a diff and a summary) or `json` (one object per program, a line each).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    #[command(flatten)]
    search: SearchArgs,
    /// Rounds of fixing at most (a round's fixes may enable the next's).
    #[arg(long, default_value_t = fix::DEFAULT_ROUNDS)]
    rounds: usize,
}

pub fn run(args: FixArgs) -> ExitCode {
    let options = args.search.options();
    let mut failed = false;
    for path in &args.files {
        if load::is_artifact(path) {
            eprintln!(
                "error: `{}` is a built artifact; fix its sources instead",
                path.display()
            );
            failed = true;
            continue;
        }
        let input = match load::program_input(path) {
            Ok(input) => input,
            Err(why) => {
                eprintln!("error: {why}");
                failed = true;
                continue;
            }
        };
        let name = input.name.clone();
        let mut loader = load::disk_loader(input.embedded);
        let outcome = fix::fix_program(input.roots, &mut loader, &options, args.rounds);
        let written = if args.apply {
            match write_all(&outcome.changed) {
                Ok(()) => true,
                Err(e) => {
                    eprintln!("error: {e}");
                    failed = true;
                    false
                }
            }
        } else {
            false
        };
        failed |= outcome.last.has_errors();
        match args.format {
            Format::Json => {
                let report = report(&name, &outcome, written);
                let _ = writeln!(std::io::stdout().lock(), "{report}");
            }
            Format::Human => print_human(&name, &outcome, args.apply, written),
        }
    }
    ExitCode::from(u8::from(failed))
}

fn print_human(name: &str, outcome: &Outcome, apply: bool, written: bool) {
    if !apply {
        let mut out = std::io::stdout().lock();
        for file in &outcome.changed {
            let _ = write!(
                out,
                "{}",
                fix::unified_diff(&file.name, &file.before, &file.after)
            );
        }
    }
    for a in &outcome.applied {
        eprintln!("fixed {}:{}: [{}] {}", a.file, a.line, a.code, a.title);
    }
    let left = &outcome.last.diagnostics;
    let db = human::SourceDb::new(&outcome.last.sources);
    eprint!("{}", db.render_plain(left));
    let what = match (apply, written) {
        (false, _) => "dry run, nothing written; `--apply` writes the files",
        (true, true) => "files written",
        (true, false) => "nothing written",
    };
    eprintln!(
        "{name}: {} applied in {} round{} ({what}); left: {}",
        count(outcome.applied.len(), "fix", "fixes"),
        outcome.rounds,
        if outcome.rounds == 1 { "" } else { "s" },
        human::summary(left)
    );
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The JSON object for one program: what was fixed and what is left.
fn report(name: &str, outcome: &Outcome, written: bool) -> serde_json::Value {
    let tally = |ds: &[Diagnostic]| {
        json!({
            "errors": ds.iter().filter(|d| d.is_error()).count(),
            "warnings": ds.iter().filter(|d| !d.is_error()).count(),
        })
    };
    json!({
        "program": name,
        "rounds": outcome.rounds,
        "written": written,
        "before": tally(&outcome.first),
        "before_codes": outcome.first.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(),
        "offered": outcome.offered(),
        "applied": outcome.applied.iter().map(|a| json!({
            "round": a.round, "file": a.file, "line": a.line,
            "code": a.code.as_str(), "title": a.title,
        })).collect::<Vec<_>>(),
        "left": tally(&outcome.last.diagnostics),
        "left_codes": outcome.last.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(),
        "files": outcome.changed.iter().map(|f| json!({
            "file": f.name,
            "diff": fix::unified_diff(&f.name, &f.before, &f.after),
        })).collect::<Vec<_>>(),
    })
}

/// Why a fixed file was not written.
#[derive(Debug)]
enum WriteError {
    /// The file on disk is no longer the text that was fixed.
    ChangedOnDisk(String),
    Io(String, std::io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::ChangedOnDisk(name) => write!(
                f,
                "`{name}` changed since it was read; nothing was written (run `wsitec fix` again)"
            ),
            WriteError::Io(name, e) => write!(f, "cannot write `{name}`: {e}"),
        }
    }
}

/// Writes every changed file, after making sure none changed on disk since
/// it was read (so either all are written or, on that check, none).
fn write_all(changed: &[Changed]) -> Result<(), WriteError> {
    for file in changed {
        let now = std::fs::read(&file.name).map_err(|e| WriteError::Io(file.name.clone(), e))?;
        if now != file.before.as_bytes() {
            return Err(WriteError::ChangedOnDisk(file.name.clone()));
        }
    }
    for file in changed {
        replace(Path::new(&file.name), &file.after)
            .map_err(|e| WriteError::Io(file.name.clone(), e))?;
    }
    Ok(())
}

/// Replaces `path`'s contents atomically: a temporary file beside it (with
/// its permissions), synced, then renamed over it. On failure the original
/// is untouched and the temporary file removed.
fn replace(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let file_name = path
        .file_name()
        .map_or_else(|| "wsite".into(), |n| n.to_string_lossy().into_owned());
    let temp_name = format!(".{file_name}.wsitec-fix.{}", std::process::id());
    let temp = dir.map_or_else(|| PathBuf::from(&temp_name), |d| d.join(&temp_name));
    let written = (|| {
        let mut out = std::fs::File::create(&temp)?;
        out.write_all(text.as_bytes())?;
        out.sync_all()?;
        let permissions = std::fs::metadata(path)?.permissions();
        std::fs::set_permissions(&temp, permissions)?;
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}
