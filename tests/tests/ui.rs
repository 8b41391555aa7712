//! The conformance suite: every `tests/ui/*.wsite` fixture is checked (the
//! prover included, as `wsitec check` runs it), its diagnostics compared with
//! the expectations written inline, and the rendered report (plain text, no
//! colour) snapshot-tested. A fixture may set the prover's state budget with a
//! line `// prove-budget: N` (F406 needs a small one).
//!
//! Regenerate snapshots after an intended change with
//! `INSTA_UPDATE=always cargo test -p wsite-tests --test ui` and review the diff.

#![allow(clippy::expect_used, clippy::panic)]

use wsite_tests::{compare, expectations, fixtures};
use wsitec::diagnostics::human::SourceDb;
use wsitec::diagnostics::json::line_col;

fn check_fixture(path: &std::path::Path) -> (Vec<String>, String) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let name = format!(
        "tests/ui/{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("?")
    );
    let compiled = compile(&name, &text);
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
    let problems = compare(&expectations(&text), &actual);
    let report = SourceDb::new(&compiled.sources).render_plain(&compiled.diagnostics);
    (problems, report)
}

/// What `wsitec check` does: every analysis, the bounded search included.
fn compile(name: &str, text: &str) -> wsitec::Compilation {
    let budget = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("// prove-budget:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(200_000);
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

#[test]
fn fixtures_report_exactly_their_expected_diagnostics() {
    let all = fixtures();
    assert!(
        all.len() > 10,
        "the fixtures went missing: found {}",
        all.len()
    );
    let mut failures = Vec::new();
    for path in &all {
        let (problems, _) = check_fixture(path);
        for p in problems {
            failures.push(format!("{}: {p}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn rendered_reports_match_snapshots() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(wsite_tests::ui_dir().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for path in fixtures() {
            let (_, report) = check_fixture(&path);
            let name = path
                .file_stem()
                .and_then(|n| n.to_str())
                .unwrap_or("unnamed")
                .to_string();
            insta::assert_snapshot!(name, report);
        }
    });
}

#[test]
fn every_code_has_a_fixture() {
    use wsitec::diagnostics::Code;
    let texts: Vec<String> = fixtures()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    let expected: std::collections::BTreeSet<String> = texts
        .iter()
        .flat_map(|t| expectations(t))
        .map(|e| e.code)
        .collect();
    let missing: Vec<&str> = Code::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !expected.contains(*c))
        .collect();
    assert!(missing.is_empty(), "codes without a fixture: {missing:?}");
}

#[test]
fn every_diagnostic_follows_the_style_guide() {
    // Messages: lowercase start, no final period. Every diagnostic says how to
    // fix it in `help`.
    let mut problems = Vec::new();
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for d in compile("fixture.wsite", &text).diagnostics {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
            if d.message.chars().next().is_some_and(char::is_uppercase) || d.message.ends_with('.')
            {
                problems.push(format!("{name}: style: {}", d.message));
            }
            if d.help.as_deref().is_none_or(str::is_empty) {
                problems.push(format!("{name}: no help: {}", d.message));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
