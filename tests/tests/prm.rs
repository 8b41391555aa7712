//! Process-reward labels (`wsite_runtime::prm`, docs/prm.md) checked against
//! brute force: on small sites, every exported instance's d(s), its chosen
//! action's distance and every rejected action's distance agree with an
//! exhaustive iterative-deepening search that shares nothing with the
//! oracle (no fingerprints, no memo, no layers); the chosen action shortens
//! the distance and no rejected one does; dead ends are exactly the rejected
//! actions after which brute force finds no success within the steps left.
//! Instances restore from their traces, carry four distinct rejected
//! actions, and the same seed gives the same bytes.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{self, Env, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_runtime::prm::sample::{sample_site, SampleConfig};
use wsite_runtime::prm::{restore, After, Hardness, Instance, REJECTED};
use wsite_runtime::prove::resolve_step;

/// The deepest brute force goes: beyond it, "none found" proves nothing.
const DEPTH: u32 = 4;

fn site(name: &str) -> Program {
    let path = format!("{}/sites/{name}.wsite", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    wsitec::compile_str(&path, &text).program.unwrap()
}

/// Whether some sequence of exactly `n` or fewer steps from `env` succeeds.
fn succeeds_within(env: &Env<'_>, n: u32) -> bool {
    if n == 0 || env.done() {
        return false;
    }
    env.actions().iter().any(|a| {
        let mut child = env.clone();
        match child.step(a) {
            Ok(r) if r.success => true,
            Ok(r) if r.done => false,
            Ok(_) => succeeds_within(&child, n - 1),
            Err(_) => false,
        }
    })
}

/// The brute-force distance: `Some(Some(d))` exact, `Some(None)` no success
/// within the steps left, `None` when that needs more than [`DEPTH`] steps
/// to tell.
fn brute(program: &Program, env: &Env<'_>) -> Option<Option<u32>> {
    let horizon = program.tasks[env.instance().task].horizon;
    let remaining = horizon.saturating_sub(env.steps());
    let limit = remaining.min(DEPTH);
    let found = (1..=limit).find(|&d| succeeds_within(env, d));
    match found {
        Some(d) => Some(Some(d)),
        None if remaining <= DEPTH => Some(None),
        None => None,
    }
}

/// The brute-force distance after `step` is taken in `env`.
fn brute_after(
    program: &Program,
    env: &Env<'_>,
    step: &wsite_runtime::prove::WitnessStep,
) -> Option<Option<u32>> {
    let action = resolve_step(env, step).unwrap();
    let mut child = env.clone();
    let r = child.step(&action).unwrap();
    if r.success {
        return Some(Some(0));
    }
    if r.done {
        return Some(None);
    }
    brute(program, &child)
}

fn export(program: &Program, name: &str, seed: u64) -> Vec<Instance> {
    let config = SampleConfig {
        seed,
        rollouts: 6,
        per_task: 12,
        oracle_budget: 50_000,
        shortlist: 12,
    };
    let sample = sample_site(program, name, "other", &env::instances(program), &config);
    assert!(sample.failed.is_empty(), "{:?}", sample.failed);
    sample.instances
}

fn check_labels(program: &Program, instance: &Instance, checked: &mut usize) {
    let env = restore(program, instance, RewardConfig::default()).unwrap();
    assert_eq!(env.steps(), instance.step);
    assert_eq!(instance.rejected.len(), REJECTED, "{}", instance.id);
    let mut actions: Vec<&str> = instance
        .rejected
        .iter()
        .map(|r| r.action.as_str())
        .collect();
    actions.push(&instance.chosen.action);
    actions.sort_unstable();
    actions.dedup();
    assert_eq!(
        actions.len(),
        REJECTED + 1,
        "repeated candidates in {}",
        instance.id
    );
    let d = instance.distance;
    if let Some(found) = brute(program, &env) {
        assert_eq!(found, Some(d), "d(s) of {}", instance.id);
    }
    assert_eq!(instance.chosen.distance_after, After::Steps(d - 1));
    if let Some(found) = brute_after(program, &env, instance.chosen.step.as_ref().unwrap()) {
        assert_eq!(found, Some(d - 1), "chosen of {}", instance.id);
    }
    for r in &instance.rejected {
        let label = r.distance_after;
        match label {
            After::Steps(n) => assert!(
                n >= d,
                "{} shortens the distance in {}",
                r.action,
                instance.id
            ),
            After::Unreachable | After::Unknown => {}
        }
        assert_eq!(
            r.hard.contains(&Hardness::DeadEnd),
            label == After::Unreachable,
            "{} in {}",
            r.action,
            instance.id
        );
        let Some(found) = brute_after(program, &env, r.step.as_ref().unwrap()) else {
            continue;
        };
        match found {
            Some(n) => {
                assert!(n >= d, "brute force: {} shortens {}", r.action, instance.id);
                if let After::Steps(l) = label {
                    assert_eq!(l, n, "{} in {}", r.action, instance.id);
                }
            }
            None => assert_eq!(label, After::Unreachable, "{} in {}", r.action, instance.id),
        }
        *checked += 1;
    }
}

#[test]
fn labels_agree_with_brute_force_on_small_sites() {
    let mut instances = 0;
    let mut checked = 0;
    let mut dead_ends = 0;
    for name in [
        "prm_notes",
        "reward_tiny",
        "cafes",
        "library_loans",
        "helpdesk",
        "account",
    ] {
        let program = site(name);
        for instance in export(&program, name, 7) {
            check_labels(&program, &instance, &mut checked);
            dead_ends += instance
                .rejected
                .iter()
                .filter(|r| r.hard.contains(&Hardness::DeadEnd))
                .count();
            instances += 1;
        }
    }
    eprintln!("{instances} instances, {checked} rejected decided, {dead_ends} dead ends");
    assert!(instances >= 12, "only {instances} instances");
    assert!(
        checked >= 48,
        "brute force decided only {checked} rejected actions"
    );
    // Deleting the note, or a wrong answer, loses the task for good.
    assert!(dead_ends > 0, "no dead end found");
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let program = site("prm_notes");
    let text = |seed| serde_json::to_string(&export(&program, "prm_notes", seed)).unwrap();
    assert_eq!(text(3), text(3));
    let instances = export(&program, "prm_notes", 3);
    let ids: std::collections::BTreeSet<&str> = instances.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids.len(), instances.len(), "ids repeat");
}

#[test]
fn a_changed_site_makes_an_instance_stale() {
    let program = site("prm_notes");
    let instance = export(&program, "prm_notes", 1)
        .into_iter()
        .find(|i| !i.trace.is_empty())
        .unwrap();
    let mut moved = instance.clone();
    moved.url = "/somewhere/else".into();
    assert!(matches!(
        restore(&program, &moved, RewardConfig::default()),
        Err(wsite_runtime::prm::RestoreError::Stale { .. })
    ));
    let mut unknown = instance;
    unknown.task = "no_such_task".into();
    assert!(restore(&program, &unknown, RewardConfig::default()).is_err());
}
