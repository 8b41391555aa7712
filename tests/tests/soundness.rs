//! The prover's soundness campaign: random small sites from
//! `wsite_tests::soundness::generate`, sites of the generated corpus
//! (`wsitec gen`, clean and with runnable defects), and the reproducers in
//! `tests/soundness/`, each task instance proven on both engines with and
//! without pruning (`wsite_tests::soundness::differential`). Any
//! disagreement fails the test and prints the seed, the site's source, the
//! instance and every result, ready to become a fixture.
//!
//! `WSITE_SOUNDNESS_SITES` (default 300) sets how many random sites, and
//! `WSITE_SOUNDNESS_SEED` (default 0) the first seed; `scripts/soundness.sh`
//! runs a large campaign in release mode.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use wsite_tests::env_u64;
use wsite_tests::soundness::differential::{
    check_program, describe_program, report, ProgramOutcome, Tally, CAMPAIGN_BUDGET,
};
use wsite_tests::soundness::generate;
use wsitec::diagnostics::human::SourceDb;

/// What checking one source gave: its outcome, or why it did not compile.
enum Checked {
    Outcome(ProgramOutcome),
    NotCompiled(String),
}

fn check_source(name: &str, text: &str) -> Checked {
    let compiled = wsitec::compile_str(name, text);
    let errors: Vec<_> = compiled
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    match (&compiled.program, errors.is_empty()) {
        (Some(program), true) => Checked::Outcome(check_program(program, CAMPAIGN_BUDGET)),
        _ => Checked::NotCompiled(SourceDb::new(&compiled.sources).render_plain(&errors)),
    }
}

/// Runs `check_source` over `count` items on every core, keeping item order.
fn in_parallel<T: Sync>(items: &[T], run: impl Fn(&T) -> Checked + Sync) -> Vec<Checked> {
    let next = AtomicUsize::new(0);
    let results: Mutex<BTreeMap<usize, Checked>> = Mutex::new(BTreeMap::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let checked = run(item);
                results.lock().unwrap().insert(i, checked);
            });
        }
    });
    results.into_inner().unwrap().into_values().collect()
}

/// Sums `checked` into a tally, printing a report for every site that did
/// not compile or disagreed; returns the tally and the number of failures.
fn tally(labels: &[String], sources: &[String], checked: &[Checked]) -> (Tally, usize) {
    let mut tally = Tally::default();
    let mut failures = 0;
    for ((label, source), c) in labels.iter().zip(sources).zip(checked) {
        match c {
            Checked::NotCompiled(why) => {
                tally.add_uncompiled();
                failures += 1;
                eprintln!("==== does not compile: {label}\n{why}\n-- source:\n{source}====");
            }
            Checked::Outcome(outcome) => {
                tally.add(outcome);
                if !outcome.disagreements.is_empty() {
                    failures += 1;
                    eprintln!("{}", report(label, source, outcome));
                }
            }
        }
    }
    (tally, failures)
}

/// What every campaign of a few hundred sites must have drawn at least once.
const FEATURES: [&str; 30] = [
    "navigate-only",
    "idle-marker",
    "idle-field",
    "say-interpolation",
    "go",
    "go-computed",
    "go-find",
    "go-new-row",
    "select-rows",
    "select-list",
    "rename",
    "insert",
    "delete",
    "update",
    "requires-chain",
    "invariant",
    "if-element",
    "for-element",
    "for-where",
    "for-offset",
    "page-guard",
    "page-let",
    "disabled-when",
    "typed-input",
    "text-input",
    "checkbox",
    "visited-goal",
    "page-is-goal",
    "answer-task",
    "template",
];

#[test]
fn generated_sites_compile_and_prove_alike_four_ways() {
    let count = env_u64("WSITE_SOUNDNESS_SITES", 300) as usize;
    let first = env_u64("WSITE_SOUNDNESS_SEED", 0);
    let started = Instant::now();
    let seeds: Vec<u64> = (0..count as u64).map(|i| first.wrapping_add(i)).collect();
    let sites: Vec<_> = seeds.iter().map(|&s| generate(s)).collect();
    let checked = in_parallel(&sites, |site| {
        check_source(&format!("seed_{}.wsite", site.seed), &site.text)
    });
    let labels: Vec<String> = seeds.iter().map(|s| format!("seed {s}")).collect();
    let sources: Vec<String> = sites.iter().map(|s| s.text.clone()).collect();
    let (tally, failures) = tally(&labels, &sources, &checked);
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{} (seeds {first}..{})",
        tally.summary("generated", seconds),
        first.wrapping_add(count as u64)
    );
    if count >= 200 {
        let drawn: std::collections::BTreeSet<&str> = sites
            .iter()
            .flat_map(|s| s.features.iter().copied())
            .collect();
        let missing: Vec<&str> = FEATURES
            .iter()
            .copied()
            .filter(|f| !drawn.contains(f))
            .collect();
        assert!(missing.is_empty(), "never drawn: {missing:?}");
        assert!(tally.verdicts[0] > 0 && tally.verdicts[1] > 0, "{tally:?}");
    }
    assert_eq!(
        failures, 0,
        "{failures} sites failed; see the reports above"
    );
}

/// The campaign differential-tests the 1.1 expressions: some generated
/// sites use each of them.
#[test]
fn generated_sites_use_the_1_1_expressions() {
    let texts: Vec<String> = (0..300).map(|s| generate(s).text).collect();
    for needle in [
        "left(",
        "right(",
        "replace(",
        "plural(",
        "to_int(",
        "to_money(",
        "@23:58 + (",
        "today() + (",
        "@9999-12-30 + (",
    ] {
        assert!(
            texts.iter().any(|t| t.contains(needle)),
            "no generated site uses `{needle}`"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_site() {
    assert_eq!(generate(7).text, generate(7).text);
    assert_ne!(generate(7).text, generate(8).text);
}

/// Sites of the generated corpus per domain, clean and with runnable
/// defects (`WSITE_SOUNDNESS_CORPUS`, default 1 each).
#[test]
fn corpus_sites_prove_alike_four_ways() {
    use wsitec::gen::{generate as corpus, raw, DOMAINS};
    let per_domain = env_u64("WSITE_SOUNDNESS_CORPUS", 1) as usize;
    let started = Instant::now();
    let (mut labels, mut sources) = (Vec::new(), Vec::new());
    for (d, domain) in DOMAINS.iter().enumerate() {
        for (i, site) in corpus(domain, 1_000 + d as u64, per_domain)
            .unwrap()
            .into_iter()
            .enumerate()
        {
            let runnable = raw::inject_runnable(&site, i as u64);
            labels.push(format!("corpus {domain} seed {} #{i}", 1_000 + d));
            sources.push(site.text);
            labels.push(format!("raw runnable {domain} seed {} #{i}", 1_000 + d));
            sources.push(runnable.site.text);
        }
    }
    let checked = in_parallel(&sources, |text| check_source("corpus.wsite", text));
    // A raw site may carry error-level defects; only compiled ones count.
    let (mut compiled_labels, mut compiled_sources, mut compiled) = (vec![], vec![], vec![]);
    for ((l, s), c) in labels.into_iter().zip(sources).zip(checked) {
        match c {
            Checked::NotCompiled(_) if l.starts_with("raw") => {}
            c => {
                compiled_labels.push(l);
                compiled_sources.push(s);
                compiled.push(c);
            }
        }
    }
    let (tally, failures) = tally(&compiled_labels, &compiled_sources, &compiled);
    eprintln!(
        "{}",
        tally.summary("corpus", started.elapsed().as_secs_f64())
    );
    assert!(tally.instances > 0);
    assert_eq!(
        failures, 0,
        "{failures} sites failed; see the reports above"
    );
}

fn fixture_paths() -> Vec<PathBuf> {
    let dir = wsite_tests::repo_root().join("tests").join("soundness");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|x| x == "wsite"));
    paths.sort();
    paths
}

/// Every reproducer in `tests/soundness/` proves alike with pruning and
/// without, on both engines (each was once a disagreement).
#[test]
fn soundness_fixtures_prove_alike_pruned_or_not() {
    let paths = fixture_paths();
    assert!(!paths.is_empty(), "no fixtures in tests/soundness/");
    let labels: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let sources: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let pairs: Vec<(String, String)> = labels.iter().cloned().zip(sources.clone()).collect();
    let checked = in_parallel(&pairs, |(label, text)| check_source(label, text));
    let (tally, failures) = tally(&labels, &sources, &checked);
    eprintln!("{}", tally.summary("fixtures", 0.0));
    assert_eq!(
        failures, 0,
        "{failures} fixtures failed; see the reports above"
    );
}

/// Prints the site for `WSITE_SOUNDNESS_SEED` (for turning a reported seed
/// into a fixture): `cargo test -p wsite-tests --test soundness -- --ignored
/// print_site --nocapture`.
#[test]
#[ignore]
fn print_site() {
    let site = generate(env_u64("WSITE_SOUNDNESS_SEED", 0));
    println!("{}", site.text);
    println!("// features: {:?}", site.features);
    let compiled = wsitec::compile_str("site.wsite", &site.text);
    println!(
        "{}",
        SourceDb::new(&compiled.sources).render_plain(&compiled.diagnostics)
    );
    if let Some(program) = &compiled.program {
        println!("{}", describe_program(program, CAMPAIGN_BUDGET));
    }
}
