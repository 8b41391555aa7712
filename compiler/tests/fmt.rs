//! The formatter on every real `.wsite` file (examples, the standard library,
//! the conformance fixtures): its output is stable, means what the input meant
//! (the compiler reports the same diagnostics), and the examples and the
//! standard library are already in the canonical layout. Plus `wsitec fmt` on
//! the command line: `--check`, `--stdin`, rewriting in place, broken files.

#![allow(clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use wsitec::format::{format, FormatError};

/// Every `.wsite` file under `dir`, recursively, sorted.
fn wsite_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "wsite") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("readable .wsite file")
}

/// What the compiler says about a text: (code, severity, message), sorted,
/// with the line of the primary span when `lines` is set.
fn diagnostics(name: &str, text: &str, lines: bool) -> Vec<(String, String, String, usize)> {
    let compiled = wsitec::compile_str(name, text);
    let mut out: Vec<_> = compiled
        .diagnostics
        .iter()
        .map(|d| {
            let line = if lines {
                1 + text
                    .get(..d.span.start as usize)
                    .map_or(0, |t| t.matches('\n').count())
            } else {
                0
            };
            (
                d.code.as_str().to_string(),
                d.severity().as_str().to_string(),
                d.message.clone(),
                line,
            )
        })
        .collect();
    out.sort();
    out
}

/// Checks `path`: a formattable file formats stably and to the same meaning.
/// Returns the formatted text, or `None` when the file has syntax errors.
fn check_file(path: &Path, failures: &mut Vec<String>) -> Option<String> {
    check_text(&path.display().to_string(), &read(path), failures)
}

/// [`check_file`] on a text named `name`.
fn check_text(name: &str, text: &str, failures: &mut Vec<String>) -> Option<String> {
    let out = match format(text) {
        Ok(out) => out,
        Err(FormatError::Syntax(_)) => return None,
        Err(e) => {
            failures.push(format!("{name}: {e}"));
            return None;
        }
    };
    match format(&out) {
        Ok(again) if again == out => {}
        Ok(_) => failures.push(format!("{name}: formatting twice changes the text")),
        Err(e) => failures.push(format!("{name}: the formatted text fails: {e}")),
    }
    // The formatter only removes blank lines; with none removed, every
    // diagnostic must stay on its line too.
    let same_lines = out.lines().count() == text.lines().count();
    let before = diagnostics(name, text, same_lines);
    let after = diagnostics(name, &out, same_lines);
    if before != after {
        failures.push(format!(
            "{name}: diagnostics differ after formatting:\n  before {before:?}\n  after  {after:?}"
        ));
    }
    Some(out)
}

#[test]
fn examples_and_stdlib_are_formatted() {
    let root = wsite_tests::repo_root();
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in ["examples", "stdlib"] {
        let files = wsite_files(&root.join(dir));
        assert!(!files.is_empty(), "no .wsite files under {dir}/");
        for path in files {
            checked += 1;
            let Some(out) = check_file(&path, &mut failures) else {
                failures.push(format!("{}: does not format", path.display()));
                continue;
            };
            if out != read(&path) {
                failures.push(format!(
                    "{}: not in the canonical layout; run `wsitec fmt {dir}`",
                    path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20, "only {checked} files checked");
}

/// A fixture named after a syntax code (E001–E003), or about what follows
/// from syntax errors: its source need not parse.
fn is_syntax_fixture(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        ["E001", "E002", "E003"].iter().any(|c| n.starts_with(c)) || n.contains("syntax_error")
    })
}

#[test]
fn fixtures_format_stably_and_keep_their_diagnostics() {
    let mut failures = Vec::new();
    let fixtures = wsite_tests::fixtures();
    let mut formatted = 0;
    for path in &fixtures {
        if check_file(path, &mut failures).is_some() {
            formatted += 1;
        } else if !is_syntax_fixture(path) {
            // Only the fixtures planted with syntax errors may be refused.
            failures.push(format!("{}: refused by the formatter", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        formatted >= 60,
        "only {formatted} of {} fixtures format",
        fixtures.len()
    );
}

#[test]
fn generated_sites_format_stably() {
    let mut failures = Vec::new();
    for domain in [
        "ecommerce",
        "social",
        "banking",
        "education",
        "healthcare",
        "government",
    ] {
        let sites = wsitec::gen::generate(domain, 11, 2).expect("a known domain");
        for site in sites {
            if check_text(&site.file_name, &site.text, &mut failures).is_none() {
                failures.push(format!("{}: does not format", site.file_name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn wsitec(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the wsitec binary runs");
    if let Some(mut input) = child.stdin.take() {
        use std::io::Write;
        input
            .write_all(stdin.unwrap_or("").as_bytes())
            .expect("stdin is writable");
    }
    child.wait_with_output().expect("wsitec finishes")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wsitec-fmt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nested")).expect("scratch directory");
    dir
}

const MESSY: &str = "enum E {a,b}\ntable T{x:Int}\n";
const TIDY: &str = "enum E { a, b }\ntable T { x: Int }\n";

#[test]
fn check_lists_unformatted_files_and_fails() {
    let dir = scratch("check");
    let messy = dir.join("nested/messy.wsite");
    let tidy = dir.join("tidy.wsite");
    std::fs::write(&messy, MESSY).expect("write");
    std::fs::write(&tidy, TIDY).expect("write");

    let out = wsitec(&["fmt", "--check", dir.to_str().unwrap_or_default()], None);
    assert_eq!(out.status.code(), Some(1));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("messy.wsite"), "{listed}");
    assert!(!listed.contains("tidy.wsite"), "{listed}");
    assert_eq!(read(&messy), MESSY, "--check must not write");

    let out = wsitec(&["fmt", "--check", tidy.to_str().unwrap_or_default()], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fmt_rewrites_in_place_and_leaves_broken_files_alone() {
    let dir = scratch("write");
    let messy = dir.join("nested/messy.wsite");
    let broken = dir.join("broken.wsite");
    let broken_text = "page P {\n  text \"open\n}\n";
    std::fs::write(&messy, MESSY).expect("write");
    std::fs::write(&broken, broken_text).expect("write");

    let out = wsitec(&["fmt", dir.to_str().unwrap_or_default()], None);
    assert_eq!(out.status.code(), Some(1), "a broken file fails the run");
    assert_eq!(read(&messy), TIDY);
    assert_eq!(read(&broken), broken_text);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("E002") && err.contains("broken.wsite"),
        "{err}"
    );

    std::fs::remove_file(&broken).expect("remove");
    let out = wsitec(&["fmt", dir.to_str().unwrap_or_default()], None);
    assert_eq!(out.status.code(), Some(0));
    let out = wsitec(&["fmt", "--check", dir.to_str().unwrap_or_default()], None);
    assert_eq!(out.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdin_formats_to_stdout() {
    let out = wsitec(&["fmt", "--stdin"], Some(MESSY));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), TIDY);

    let out = wsitec(&["fmt", "--stdin", "--check"], Some(MESSY));
    assert_eq!(out.status.code(), Some(1));
    let out = wsitec(&["fmt", "--stdin", "--check"], Some(TIDY));
    assert_eq!(out.status.code(), Some(0));

    let out = wsitec(&["fmt", "--stdin"], Some("site {"));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("E001"));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(wsitec(&["fmt"], None).status.code(), Some(2));
    assert_eq!(
        wsitec(&["fmt", "--stdin", "x.wsite"], None).status.code(),
        Some(2)
    );
    let missing = wsitec(&["fmt", "/nonexistent/dir/x.wsite"], None);
    assert_eq!(missing.status.code(), Some(1));
}
