//! The authoring benchmark (`tests/authoring/<site>/`): sites in new domains
//! written from `docs/language.md` alone, with their first-draft mistakes kept
//! as fixtures. The mistakes are checked with the conformance fixtures in
//! `tests/tests/ui.rs` (one harness: `wsite_tests::harness`); this file checks
//! what is particular to the benchmark: each final `site.wsite` checks clean
//! (apart from warnings it annotates inline) and lowers with every task
//! instance proven, each site keeps enough mistakes, two of them tasks that
//! cannot be done, and `docs/common-mistakes.md` is what the fixtures generate.
//!
//! Regenerate the chapter with
//! `WSITE_UPDATE_DOCS=1 cargo test -p wsite-tests --test authoring`.

#![allow(clippy::expect_used, clippy::panic)]

use wsite_runtime::prove::Verdict;
use wsite_tests::harness::check_fixture;
use wsite_tests::mistakes_chapter::{chapter_path, read_mistake, render};
use wsite_tests::{authoring_fixtures, authoring_sites, expectations, site_mistakes};

/// The fewest sites and mistakes per site the benchmark keeps.
const MIN_SITES: usize = 3;
const MIN_MISTAKES: usize = 10;
const MIN_INFEASIBLE_TASKS: usize = 2;
const MIN_TASKS: usize = 6;

#[test]
fn final_sites_check_clean_and_every_task_is_proven() {
    let sites = authoring_sites();
    assert!(sites.len() >= MIN_SITES, "only {} sites", sites.len());
    let mut failures = Vec::new();
    for site in &sites {
        let path = site.join("site.wsite");
        let checked = check_fixture(&path);
        failures.extend(
            checked
                .problems
                .iter()
                .map(|p| format!("{}: {p}", path.display())),
        );
        let Some(program) = &checked.compiled.program else {
            failures.push(format!("{}: does not lower", path.display()));
            continue;
        };
        let instances = wsite_runtime::env::instances(program);
        if program.tasks.len() < MIN_TASKS {
            failures.push(format!(
                "{}: only {} tasks",
                path.display(),
                program.tasks.len()
            ));
        }
        for proof in &checked.compiled.proofs {
            if proof.verdict != Verdict::Feasible {
                failures.push(format!(
                    "{}: task `{}` is {:?}",
                    path.display(),
                    proof.instance,
                    proof.verdict
                ));
            }
        }
        if checked.compiled.proven_instances().len() != instances.len() {
            failures.push(format!("{}: not every task was proven", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_site_keeps_its_mistakes_and_infeasible_tasks() {
    for site in authoring_sites() {
        let mistakes = site_mistakes(&site);
        assert!(
            mistakes.len() >= MIN_MISTAKES,
            "{}: {} mistakes, want {MIN_MISTAKES}",
            site.display(),
            mistakes.len()
        );
        let infeasible = mistakes
            .iter()
            .filter(|p| {
                let text = std::fs::read_to_string(p).unwrap_or_default();
                expectations(&text)
                    .iter()
                    .any(|e| e.code == "F401" || e.code == "F406")
            })
            .count();
        assert!(
            infeasible >= MIN_INFEASIBLE_TASKS,
            "{}: {infeasible} infeasible-task fixtures, want {MIN_INFEASIBLE_TASKS}",
            site.display()
        );
    }
}

#[test]
fn every_mistake_says_what_it_is_and_how_to_fix_it() {
    let problems: Vec<String> = authoring_fixtures()
        .iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            read_mistake(p, &text).err().map(|e| e.to_string())
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_common_mistakes_chapter_is_up_to_date() {
    let chapter = render(&authoring_fixtures()).unwrap_or_else(|e| panic!("{e}"));
    let path = chapter_path();
    if std::env::var_os("WSITE_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &chapter).expect("docs/common-mistakes.md is writable");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == chapter,
        "{} is stale: regenerate it with \
         `WSITE_UPDATE_DOCS=1 cargo test -p wsite-tests --test authoring`",
        path.display()
    );
}
