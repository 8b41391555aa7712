//! `wsitec gen`: generated sites are deterministic for a seed, differ in the
//! modules they bind (their structure), and every one checks without errors
//! and has every task instance proven feasible.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::collections::BTreeSet;
use wsite_runtime::prove::Verdict;
use wsitec::gen::{generate, DOMAINS};
use wsitec::{compile_with, Options, Source};

/// Sites per domain in the proof test (small: CI runs it unoptimised).
const PER_DOMAIN: usize = 3;

#[test]
fn the_same_seed_gives_the_same_sites_and_another_seed_others() {
    let a = generate("ecommerce", 7, 6).unwrap();
    assert_eq!(a, generate("ecommerce", 7, 6).unwrap());
    assert_ne!(a, generate("ecommerce", 8, 6).unwrap());
    let structures: BTreeSet<_> = a.iter().map(|s| s.modules.clone()).collect();
    assert!(structures.len() >= 3, "too little variety: {structures:?}");
    assert!(generate("astrology", 1, 1).is_err());
}

#[test]
fn generated_sites_check_and_every_task_is_proven() {
    let mut instances = 0;
    for domain in DOMAINS {
        for site in generate(domain, 42, PER_DOMAIN).unwrap() {
            let options = Options {
                prove: Some(Default::default()),
                only_task: None,
            };
            let c = compile_with(
                vec![Source {
                    name: site.file_name.clone(),
                    text: site.text.clone(),
                }],
                &mut |_, p| Err(format!("no file `{p}`")),
                options,
            );
            let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
            assert!(
                errors.is_empty(),
                "{}:\n{}\n{errors:#?}",
                site.file_name,
                site.text
            );
            assert!(!c.proofs.is_empty(), "{}: no tasks", site.file_name);
            for p in &c.proofs {
                assert_eq!(
                    p.verdict,
                    Verdict::Feasible,
                    "{} {}:\n{}",
                    site.file_name,
                    p.instance,
                    site.text
                );
                instances += 1;
            }
        }
    }
    assert!(instances > 0);
}
