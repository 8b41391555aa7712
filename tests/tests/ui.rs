//! The conformance suite: every `tests/ui/*.wsite` fixture, and every mistake
//! fixture of the authoring benchmark (`tests/authoring/<site>/NN_*.wsite`), is
//! checked (the prover included, as `wsitec check` runs it), its diagnostics
//! compared with the expectations written inline, and the rendered report
//! (plain text, no colour) snapshot-tested; the harness is
//! `wsite_tests::harness`. A fixture may set the prover's state budget with a
//! line `// prove-budget: N` (F406 needs a small one).
//!
//! Regenerate snapshots after an intended change with
//! `INSTA_UPDATE=always cargo test -p wsite-tests --test ui` and review the diff.

#![allow(clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use wsite_tests::harness::{check_fixture, snapshot_location, style_problems};
use wsite_tests::{authoring_fixtures, expectations, fixtures};

/// The conformance fixtures, then the authoring benchmark's mistakes.
fn all_fixtures() -> Vec<PathBuf> {
    let mut all = fixtures();
    all.extend(authoring_fixtures());
    all
}

#[test]
fn fixtures_report_exactly_their_expected_diagnostics() {
    let all = all_fixtures();
    assert!(
        all.len() > 10,
        "the fixtures went missing: found {}",
        all.len()
    );
    let mut failures = Vec::new();
    for path in &all {
        for p in check_fixture(path).problems {
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
    for path in all_fixtures() {
        let report = check_fixture(&path).report;
        let (folder, name) = snapshot_location(&path);
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(folder);
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| insta::assert_snapshot!(name, report));
    }
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
    let problems: Vec<String> = all_fixtures()
        .iter()
        .flat_map(|p| style_problems(p))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
