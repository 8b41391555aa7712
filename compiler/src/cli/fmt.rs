//! `wsitec fmt [PATH…] [--check] [--stdin]`: lays `.wsite` files out in the
//! canonical layout of [`wsitec::format`], in place, or checks that they
//! already are (for CI), or formats standard input to standard output.
//!
//! A file that does not parse is reported with its diagnostics and left as it
//! is. Exit status: 0 when every file is (now) formatted, 1 when a file does
//! not parse, cannot be read or written, or (with `--check`) would change.

use clap::Args;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsitec::diagnostics::human;
use wsitec::format::{format, FormatError};
use wsitec::Source;

#[derive(Args)]
pub struct FmtArgs {
    /// `.wsite` files, or directories searched (recursively) for them.
    #[arg(required_unless_present = "stdin")]
    paths: Vec<PathBuf>,
    /// Change nothing: list the files whose layout would change, and exit 1
    /// if there are any.
    #[arg(long)]
    check: bool,
    /// Format standard input and write the result to standard output.
    #[arg(long, conflicts_with = "paths")]
    stdin: bool,
}

pub fn run(args: FmtArgs) -> ExitCode {
    if args.stdin {
        return run_stdin(args.check);
    }
    let mut failed = false;
    let mut files = Vec::new();
    for path in &args.paths {
        match wsite_files(path) {
            Ok(found) => files.extend(found),
            Err(why) => {
                eprintln!("error: {why}");
                failed = true;
            }
        }
    }
    let stdout = std::io::stdout();
    for file in &files {
        match format_file(file, args.check) {
            Ok(false) => {}
            Ok(true) => {
                if args.check {
                    let _ = writeln!(stdout.lock(), "{}", file.display());
                    failed = true;
                }
            }
            Err(why) => {
                eprint!("{why}");
                failed = true;
            }
        }
    }
    ExitCode::from(u8::from(failed))
}

/// Formats standard input to standard output; with `check`, prints nothing
/// and fails when the input is not formatted.
fn run_stdin(check: bool) -> ExitCode {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("error: cannot read standard input: {e}");
        return ExitCode::from(1);
    }
    match format(&text) {
        Ok(out) if check => ExitCode::from(u8::from(out != text)),
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(out.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: cannot write standard output: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Err(err) => {
            eprint!("{}", explain("<stdin>", &text, &err));
            ExitCode::from(1)
        }
    }
}

/// Formats one file: whether its layout changed (or, with `check`, would
/// change); the file is written only when it changed and `check` is off.
fn format_file(path: &Path, check: bool) -> Result<bool, String> {
    let name = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("error: cannot read `{name}`: {e}\n"))?;
    let out = format(&text).map_err(|err| explain(&name, &text, &err))?;
    if out == text {
        return Ok(false);
    }
    if !check {
        std::fs::write(path, &out).map_err(|e| format!("error: cannot write `{name}`: {e}\n"))?;
    }
    Ok(true)
}

/// Why `name` was left alone, its syntax errors rendered against its text.
fn explain(name: &str, text: &str, err: &FormatError) -> String {
    let mut out = String::new();
    if let FormatError::Syntax(diags) = err {
        let sources = [Source {
            name: name.to_string(),
            text: text.to_string(),
        }];
        out.push_str(&human::SourceDb::new(&sources).render_plain(diags));
    }
    out.push_str(&format!("error: `{name}` left unchanged: {err}\n"));
    out
}

/// The `.wsite` files a command-line path names: the file itself, or every
/// `.wsite` file under a directory (hidden entries and links to directories
/// skipped), in name order.
fn wsite_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        if path.exists() {
            return Ok(vec![path.to_path_buf()]);
        }
        return Err(format!("`{}` does not exist", path.display()));
    }
    let mut out = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read directory `{}`: {e}", dir.display()))?;
        for entry in entries.filter_map(Result::ok) {
            let p = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            // Symbolic links to directories are not followed (no cycles).
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(p),
                Ok(_) if p.extension().is_some_and(|x| x == "wsite") => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    Ok(out)
}
