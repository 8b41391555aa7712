//! Tests of the runnable raw corpus: the same seed gives the same site,
//! every site still runs, each aimed defect is reported by the code it
//! should be, and the feasible share lands where it was aimed.

use super::*;
use crate::gen::{generate, generate_split};

fn small_corpus() -> Vec<GeneratedSite> {
    // Two sites of each domain, from the training templates.
    generate_split(None, 3, [12, 0, 0]).unwrap()
}

#[test]
fn the_runnable_injector_is_deterministic() {
    let site = &generate("ecommerce", 4, 1).unwrap()[0];
    let a = inject_runnable(site, 7);
    let b = inject_runnable(site, 7);
    assert_eq!(a.site.text, b.site.text);
    assert_eq!(a.defects, b.defects);
    assert_eq!(a.aimed_blocked, b.aimed_blocked);
    let c = inject_runnable(site, 8);
    assert_ne!(a.site.text, c.site.text, "another seed, another site");
}

#[test]
fn runnable_sites_run_their_defects_are_found_and_the_feasible_share_is_as_aimed() {
    let sites = small_corpus();
    let raws: Vec<RawSite> = sites
        .iter()
        .enumerate()
        .map(|(i, s)| inject_runnable(s, i as u64))
        .collect();
    let checks: Vec<Checked> = raws.iter().map(check).collect();
    for (raw, c) in raws.iter().zip(&checks) {
        assert!(c.runs && c.accepted, "{}: {c:?}", raw.site.file_name);
        for (d, found) in raw.defects.iter().zip(&c.detected) {
            assert!(found, "{}: not found: {d:?}", raw.site.file_name);
        }
        // The prover agrees with the aim, site by site, up to an instance
        // that a removed button's other route keeps (none here).
        assert_eq!(
            c.instances - c.feasible,
            raw.aimed_blocked,
            "{}: {:?}",
            raw.site.file_name,
            raw.defects
        );
    }
    let s = shares(&raws, &checks);
    let feasible = s.feasible as f64 / s.instances as f64;
    assert!(
        (feasible - PAPER_FEASIBLE).abs() < 0.1,
        "feasible {feasible:.3} on {} instances",
        s.instances
    );
    assert!((8.0..17.0).contains(&s.defects_per_site), "{s:?}");
    assert!((2.5..7.5).contains(&s.blocking_per_site), "{s:?}");
    // Every category is represented.
    assert!(s.per_category.iter().all(|(_, n)| *n > 0.0), "{s:?}");
}

#[test]
fn the_aimed_share_follows_the_asked_one() {
    let sites = &small_corpus()[..6];
    let blocked = |feasible: f64| -> f64 {
        let raws: Vec<RawSite> = sites
            .iter()
            .map(|s| inject_runnable_at(s, 1, feasible))
            .collect();
        let all: usize = raws.iter().map(|r| r.instances).sum();
        raws.iter().map(|r| r.aimed_blocked).sum::<usize>() as f64 / all as f64
    };
    assert_eq!(
        blocked(1.0),
        0.0,
        "nothing blocked when all should stay feasible"
    );
    let (half, most) = (blocked(0.5), blocked(0.2));
    assert!(half < most, "{half} {most}");
    assert!((0.3..0.7).contains(&half), "{half}");
}

#[test]
fn each_aimed_kind_is_reported_by_its_code_at_its_line() {
    let sites = generate_split(None, 6, [6, 0, 0]).unwrap();
    for kind in [
        DefectKind::ShortHorizon,
        DefectKind::UnreachableGoal,
        DefectKind::ContradictoryGuard,
        DefectKind::MissingButton,
    ] {
        let mut found = 0;
        for (i, site) in sites.iter().enumerate() {
            let alone = inject_only(site, kind, 2, i as u64);
            let c = check(&alone);
            assert!(c.runs, "{kind:?} stops {} running", site.file_name);
            let placed = !alone.defects.is_empty();
            assert!(
                !placed || c.feasible < c.instances,
                "{kind:?} blocked nothing"
            );
            for (d, hit) in alone.defects.iter().zip(&c.detected) {
                assert_eq!(d.kind, kind);
                assert!(hit, "{d:?} not reported\n{}", alone.site.text);
                found += 1;
            }
        }
        // A site has one marker with a quantity to guard.
        assert!(found >= 2, "{kind:?}: only {found}");
    }
}

#[test]
fn categories_and_blocking_follow_the_pilot_study() {
    assert_eq!(DefectKind::BrokenLink.category(), Category::Structural);
    assert_eq!(DefectKind::ShortHorizon.category(), Category::Feasibility);
    assert_eq!(
        DefectKind::ContradictoryData.category(),
        Category::Consistency
    );
    assert!(DefectKind::MissingButton.blocks_tasks());
    assert!(!DefectKind::PlaceholderText.blocks_tasks());
    assert!(RUNNABLE.iter().all(|k| !matches!(
        k,
        DefectKind::BrokenLink | DefectKind::NegativePrice | DefectKind::ImpossibleDate
    )));
}
