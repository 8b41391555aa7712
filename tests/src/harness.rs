//! The one fixture harness behind the conformance suite (`tests/ui/`) and the
//! authoring benchmark (`tests/authoring/`): a fixture is compiled as
//! `wsitec check` compiles it (every analysis, the bounded search included; see
//! LANGUAGE.md §11 for the codes), its diagnostics are compared with the
//! expectations written inline (see the crate docs), and the plain-text report
//! that its snapshot holds is rendered.
//!
//! A fixture may set the prover's state budget with a line `// prove-budget: N`
//! (F406 needs a small one).

use std::path::{Path, PathBuf};
use wsitec::diagnostics::human::SourceDb;
use wsitec::diagnostics::json::line_col;

/// The prover's state budget for fixtures that do not set one: small enough
/// to keep the suite quick in a debug build, large enough for every site here.
const FIXTURE_BUDGET: usize = 200_000;

/// What checking one fixture gave.
pub struct Checked {
    /// The compilation itself (diagnostics, program, proofs).
    pub compiled: wsitec::Compilation,
    /// Every difference between the inline expectations and the diagnostics.
    pub problems: Vec<String>,
    /// The report as `wsitec check` prints it, without colour.
    pub report: String,
}

/// The name a fixture is compiled and reported under: its path from the
/// repository root, with `/` separators (`tests/ui/E101_unknown_names.wsite`).
pub fn display_name(path: &Path) -> String {
    let relative = path.strip_prefix(crate::repo_root()).unwrap_or(path);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Compiles a fixture's text as `wsitec check` does, with the fixture's own
/// `// prove-budget:` when it sets one.
pub fn compile_fixture(name: &str, text: &str) -> wsitec::Compilation {
    let budget = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("// prove-budget:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(FIXTURE_BUDGET);
    let options = wsitec::Options {
        prove: Some(wsite_runtime::prove::Options {
            budget,
            ..Default::default()
        }),
        only_task: None,
        ..Default::default()
    };
    wsitec::compile_str_with(name, text, options)
}

/// Checks one fixture file against its inline expectations.
pub fn check_fixture(path: &Path) -> Checked {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let compiled = compile_fixture(&display_name(path), &text);
    let actual: Vec<(usize, String, String, String)> = compiled
        .diagnostics
        .iter()
        .map(|d| {
            let (line, _) = line_col(&text, d.span.start as usize);
            (
                line,
                d.severity().as_str().to_string(),
                d.code.as_str().to_string(),
                d.message.clone(),
            )
        })
        .collect();
    let problems = crate::compare(&crate::expectations(&text), &actual);
    let report = SourceDb::new(&compiled.sources).render_plain(&compiled.diagnostics);
    Checked {
        compiled,
        problems,
        report,
    }
}

/// Where a fixture's snapshot lives: the `snapshots` folder of its suite
/// (`tests/ui/` or `tests/authoring/`), named by its path inside the suite
/// (`E101_unknown_names`, `library__03_null_for_none`).
pub fn snapshot_location(path: &Path) -> (PathBuf, String) {
    let suite = [crate::ui_dir(), crate::authoring_dir()]
        .into_iter()
        .find(|dir| path.starts_with(dir))
        .unwrap_or_else(crate::ui_dir);
    let inside = path.strip_prefix(&suite).unwrap_or(path).with_extension("");
    let name = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("__");
    (suite.join("snapshots"), name)
}

/// Style problems of a fixture's diagnostics: a message must start lowercase
/// and not end with a period, and every diagnostic says how to fix it in `help`.
pub fn style_problems(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    let mut problems = Vec::new();
    for d in compile_fixture("fixture.wsite", &text).diagnostics {
        if d.message.chars().next().is_some_and(char::is_uppercase) || d.message.ends_with('.') {
            problems.push(format!("{name}: style: {}", d.message));
        }
        if d.help.as_deref().is_none_or(str::is_empty) {
            problems.push(format!("{name}: no help: {}", d.message));
        }
    }
    problems
}
