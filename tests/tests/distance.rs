//! The distance oracle (`prove::distance`) is exact, on the examples and on
//! sites from the generator (`wsitec::gen`):
//!
//! - at an instance's initial state, d equals the length of the prover's
//!   shortest witness (an independent search), and is unreachable exactly
//!   when the prover finds the instance infeasible;
//! - at states reached by seeded random walks, d satisfies the shortest-path
//!   equation against fresh queries of every successor (d = 1 when some
//!   action succeeds, else 1 + the least successor distance), O(s) is exactly
//!   the actions whose step succeeds at d = 1 or leads to a state at d − 1,
//!   and an oracle that kept its memo along the walk answers as a fresh one.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{self, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Distance, DistanceOracle, Options, Verdict};
use wsite_tests::Lcg;

/// Small enough for a debug build; a query past it is unknown and skipped.
const BUDGET: usize = 20_000;

#[derive(Debug, Default)]
struct Tally {
    starts: usize,
    states: usize,
    unknown: usize,
}

fn fresh(env: &Env<'_>) -> prove::Shortest {
    DistanceOracle::new(BUDGET).query(env)
}

/// d of the state after `action`'s step, 0 when the step succeeds.
fn after(env: &Env<'_>, action: &env::Action) -> Option<Distance> {
    let mut child = env.clone();
    let r = child.step(action).ok()?;
    if r.success {
        return Some(Distance::Steps(0));
    }
    Some(fresh(&child).distance)
}

/// Checks the shortest-path equation and O(s) at `env`'s state.
fn check_state(env: &Env<'_>, memo: &mut DistanceOracle, tally: &mut Tally) {
    let s = fresh(env);
    assert_eq!(memo.query(env), s, "the memo disagrees with a fresh search");
    let d = match s.distance {
        Distance::Unknown => {
            tally.unknown += 1;
            return;
        }
        Distance::Steps(d) => Some(d),
        Distance::Unreachable => None,
    };
    let mut least: Option<u32> = None;
    for action in env.actions() {
        let Some(next) = after(env, action) else {
            continue;
        };
        let next = match next {
            Distance::Unknown => {
                tally.unknown += 1;
                return;
            }
            Distance::Steps(n) => Some(n),
            Distance::Unreachable => None,
        };
        let optimal = matches!((d, next), (Some(d), Some(n)) if n + 1 == d);
        assert_eq!(
            s.optimal.contains(action),
            optimal,
            "{action:?} at d = {d:?}, successor at {next:?}"
        );
        if let Some(n) = next {
            least = Some(least.map_or(n + 1, |l| l.min(n + 1)));
        }
    }
    assert_eq!(d, least, "d is not 1 + the least successor distance");
    tally.states += 1;
}

/// The initial state against the prover, then a walk of seeded random steps.
fn check_instance(program: &Program, inst: &TaskInstance, rng: &mut Lcg, tally: &mut Tally) {
    let proof = prove::prove_instance(
        program,
        inst,
        Options {
            budget: BUDGET,
            explain: false,
            ..Options::default()
        },
    )
    .unwrap();
    let mut env = Env::new(program, inst, RewardConfig::default()).unwrap();
    let d0 = fresh(&env).distance;
    match proof.verdict {
        Verdict::Feasible if d0 != Distance::Unknown => {
            assert_eq!(
                d0,
                Distance::Steps(proof.witness.len() as u32),
                "{}",
                inst.name
            );
        }
        Verdict::Infeasible => assert_eq!(d0, Distance::Unreachable, "{}", inst.name),
        _ => return,
    }
    tally.starts += 1;
    let mut memo = DistanceOracle::new(BUDGET);
    for _ in 0..4 {
        if env.done() {
            break;
        }
        check_state(&env, &mut memo, tally);
        // Half the time a step on a shortest path, so walks go deep.
        let good = memo.query(&env).optimal;
        let action = if rng.next(2) == 0 && !good.is_empty() {
            good[rng.next(good.len())].clone()
        } else {
            env.actions()[rng.next(env.actions().len())].clone()
        };
        if env.step(&action).unwrap().done {
            break;
        }
    }
}

fn check_program(program: &Program, per_program: usize, rng: &mut Lcg, tally: &mut Tally) {
    for inst in env::instances(program).iter().take(per_program) {
        check_instance(program, inst, rng, tally);
    }
}

#[test]
fn distances_are_exact_on_the_tiny_site() {
    let path = format!("{}/sites/reward_tiny.wsite", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let program = wsitec::compile_str(&path, &text).program.unwrap();
    let mut tally = Tally::default();
    let mut rng = Lcg(7);
    for _ in 0..5 {
        check_program(&program, 2, &mut rng, &mut tally);
    }
    assert_eq!(tally.unknown, 0);
    assert!(tally.states >= 20, "{tally:?}");
}

#[test]
fn distances_are_exact_on_the_examples() {
    let mut tally = Tally::default();
    let mut rng = Lcg(11);
    for (_, program) in wsite_tests::example_programs() {
        check_program(&program, 3, &mut rng, &mut tally);
    }
    eprintln!("{tally:?}");
    assert!(tally.starts >= 10 && tally.states >= 30, "{tally:?}");
}

#[test]
fn distances_are_exact_on_generated_sites() {
    let mut tally = Tally::default();
    let mut rng = Lcg(13);
    for (d, domain) in ["ecommerce", "healthcare", "social"].iter().enumerate() {
        for site in wsitec::gen::generate(domain, 900 + d as u64, 1).unwrap() {
            let program = wsitec::compile_str(&site.file_name, &site.text)
                .program
                .expect("a corpus site compiles");
            check_program(&program, 3, &mut rng, &mut tally);
        }
    }
    eprintln!("{tally:?}");
    assert!(tally.starts >= 5 && tally.states >= 15, "{tally:?}");
}
