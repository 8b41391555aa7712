//! `wsitec gen`: generated sites are deterministic for a seed, differ in
//! structure, build with every task proven; a split keeps each part's page
//! templates to itself; injected defects are found by the checker.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use wsitec::gen::raw::{self, DefectKind};
use wsitec::gen::{corpus, generate, generate_split, template_pool, Pool, DOMAINS};

/// Sites per domain in the build test: 100 (about a minute unoptimised on
/// two cores); `WSITE_GEN_SAMPLE=N` changes it for a quicker local run.
fn sample_per_domain() -> usize {
    std::env::var("WSITE_GEN_SAMPLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100)
}

#[test]
fn the_same_seed_gives_the_same_sites_and_another_seed_others() {
    let a = generate("ecommerce", 7, 12).unwrap();
    assert_eq!(a, generate("ecommerce", 7, 12).unwrap());
    assert_ne!(a, generate("ecommerce", 8, 12).unwrap());
    assert!(generate("astrology", 1, 1).is_err());
}

#[test]
fn sites_differ_in_structure_not_only_in_strings() {
    for domain in DOMAINS {
        let sites = generate(domain, 1, 20).unwrap();
        let structures: BTreeSet<_> = sites.iter().map(|s| s.templates.clone()).collect();
        assert!(structures.len() >= 15, "{domain}: {structures:?}");
        // Each family shows more than one variant across the sample.
        for family in ["menu.", "catalog.", "detail.", "flow.", "account."] {
            let variants: BTreeSet<_> = sites
                .iter()
                .flat_map(|s| s.templates.iter().filter(|t| t.starts_with(family)))
                .collect();
            assert!(variants.len() >= 3, "{domain} {family}: {variants:?}");
        }
        let rows: BTreeSet<_> = sites.iter().map(|s| s.rows).collect();
        assert!(rows.iter().any(|&r| r >= 100), "{domain}: rows {rows:?}");
    }
}

#[test]
fn the_same_index_in_two_domains_is_not_the_same_structure() {
    let a = generate("banking", 3, 8).unwrap();
    let b = generate("healthcare", 3, 8).unwrap();
    let same = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x.templates == y.templates)
        .count();
    assert!(same < 4, "{same} of 8 share their templates");
}

#[test]
fn a_split_shares_no_template_between_its_parts() {
    let sites = generate_split(None, 1, [350, 75, 75]).unwrap();
    assert_eq!(sites.len(), 500);
    let mut by_pool: BTreeMap<Pool, BTreeSet<String>> = BTreeMap::new();
    let mut domains: BTreeMap<Pool, BTreeSet<&str>> = BTreeMap::new();
    for s in &sites {
        let pool = s.pool.expect("a split site has a pool");
        assert!(s.file_name.starts_with(pool.name()), "{}", s.file_name);
        for t in &s.templates {
            assert_eq!(template_pool(t), Some(pool), "{t} in {}", s.file_name);
        }
        by_pool
            .entry(pool)
            .or_default()
            .extend(s.templates.iter().cloned());
        domains.entry(pool).or_default().insert(s.domain);
    }
    let (train, val, test) = (
        &by_pool[&Pool::Train],
        &by_pool[&Pool::Validation],
        &by_pool[&Pool::Test],
    );
    assert!(train.is_disjoint(test), "{:?}", train.intersection(test));
    assert!(train.is_disjoint(val));
    assert!(val.is_disjoint(test));
    for pool in Pool::ALL {
        assert_eq!(domains[&pool].len(), 6, "{pool:?}: {:?}", domains[&pool]);
    }
    let names: BTreeSet<_> = sites.iter().map(|s| &s.file_name).collect();
    assert_eq!(names.len(), 500, "file names are unique");
}

#[test]
fn generated_sites_build_with_every_task_proven() {
    let n = sample_per_domain();
    let sites: Vec<_> = DOMAINS
        .iter()
        .flat_map(|d| generate(d, 42, n).unwrap())
        .collect();
    let reports: Vec<_> = sites
        .par_iter()
        .map(|site| {
            let r = corpus::measure(site, false);
            assert!(r.builds(), "{}: {r:?}\n{}", site.file_name, site.text);
            r
        })
        .collect();
    let stats = corpus::summarize(&reports);
    let all = stats.last().unwrap();
    assert_eq!(all.built, 6 * n);
    assert_eq!(all.feasible_total, all.instances_total);
    assert!(all.witness.max >= 6, "some task is deep: {:?}", all.witness);
}

#[test]
fn every_defect_kind_is_injected_and_found_when_alone() {
    let sites = generate("education", 11, 3).unwrap();
    for kind in DefectKind::ALL {
        let mut injected = 0;
        for (i, site) in sites.iter().enumerate() {
            let alone = raw::inject_only(site, kind, 2, i as u64);
            assert_ne!(alone.site.text, site.text, "{kind:?} changed nothing");
            let checked = raw::check(&alone);
            for (d, found) in alone.defects.iter().zip(&checked.detected) {
                assert!(found, "{kind:?} not found: {d:?}\n{}", alone.site.text);
            }
            injected += alone.defects.len();
        }
        assert!(injected >= 3, "{kind:?}: only {injected} injected");
    }
}

#[test]
fn raw_sites_have_the_paper_s_defect_rate_and_errors_block_them() {
    let sites = generate("government", 2, 40).unwrap();
    let raws: Vec<_> = sites
        .iter()
        .enumerate()
        .map(|(i, s)| raw::inject(s, i as u64))
        .collect();
    assert_eq!(raws[0].defects, raw::inject(&sites[0], 0).defects);
    let mean = raws.iter().map(|r| r.defects.len()).sum::<usize>() as f64 / raws.len() as f64;
    assert!((9.0..16.0).contains(&mean), "mean {mean}");
    // Every kind drawn at a rate occurs, and the expected line holds what
    // was injected.
    for (kind, _) in raw::RATES {
        assert!(raws
            .iter()
            .any(|r| r.defects.iter().any(|d| d.kind == kind)));
    }
    let r = &raws[0];
    let lines: Vec<&str> = r.site.text.lines().collect();
    for d in &r.defects {
        assert!(d.line >= 1 && d.line <= lines.len(), "{d:?}");
    }
    // A raw site with a broken link is refused by the build.
    let broken = raws
        .iter()
        .find(|r| r.defects.iter().any(|d| d.kind == DefectKind::BrokenLink))
        .unwrap();
    let checked = raw::check(broken);
    assert!(checked.has_errors && !checked.accepted);
    let link = broken
        .defects
        .iter()
        .position(|d| d.kind == DefectKind::BrokenLink)
        .unwrap();
    assert!(checked.detected[link]);
    // Partial results: the errors hide none of its structural defects.
    for (d, found) in broken.defects.iter().zip(&checked.detected) {
        if matches!(d.kind, DefectKind::OrphanPage | DefectKind::MissingButton) {
            assert!(found, "{d:?} masked");
        }
    }
}

#[test]
fn runnable_raw_sites_keep_running_and_their_defects_are_found() {
    let sites = generate("healthcare", 9, 8).unwrap();
    let mut injected = 0;
    for (i, site) in sites.iter().enumerate() {
        let raw = raw::inject_runnable(site, i as u64);
        assert!(raw
            .defects
            .iter()
            .all(|d| raw::RUNNABLE.contains(&d.kind) && d.expect != ["C301"]));
        let checked = raw::check(&raw);
        assert!(checked.accepted, "{}: {checked:?}", site.file_name);
        assert!(checked.detected.iter().all(|&f| f), "{:?}", raw.defects);
        injected += raw.defects.len();
    }
    assert!(injected >= 16, "{injected}");
}
