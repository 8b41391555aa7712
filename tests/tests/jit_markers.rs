//! Compiled marker bodies against the interpreter on the real examples: random
//! play through every task instance, and at every state (and a perturbed copy
//! of it) every compiled marker run with sampled argument tuples by both
//! engines — `interp::exec::run_marker` on the decoded world, the JIT runner
//! in place on the bytes. They must agree on commit or rejection (and its
//! cause); on a commit the JIT's bytes must be the encoding of the
//! interpreter's new world and the `go` targets equal; on a rejection the
//! bytes must be exactly the original ones and the alert text
//! (`run_marker_alert`) the interpreter's, word for word. `run_marker`
//! (which renders no alert) must give the same outcome and bytes.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{self, Env, RewardConfig};
use wsite_runtime::interp::exec::{run_marker, Outcome, Rejection};
use wsite_runtime::interp::gate::Violation;
use wsite_runtime::ir::{Program, Value};
use wsite_runtime::jit::{
    encode_world, JitError, JitFault, JitSite, MarkerOutcome, MarkerRejection, UndoLog,
};
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_tests::Lcg;

#[derive(Default)]
struct Tally {
    compared: usize,
    committed: usize,
    rejected: usize,
    by_cause: std::collections::BTreeMap<String, usize>,
    /// Rejections by the kind of alert (the gate's value checks and
    /// invariants, the author's messages, the runtime's words).
    by_alert: std::collections::BTreeMap<&'static str, usize>,
    inputs_refused: usize,
}

/// The same cause; an invariant's refusal names the same invariant.
fn cause_matches(program: &Program, i: &Rejection, j: &MarkerRejection) -> bool {
    match (i, j) {
        (Rejection::Gate(Violation::Invariant { name }), MarkerRejection::Invariant { index }) => {
            program.invariants.get(*index).map(|d| &d.name) == Some(name)
        }
        (Rejection::Gate(Violation::Invariant { .. }), _) => false,
        (Rejection::Requires { index: a }, MarkerRejection::Requires { index: b }) => a == b,
        _ => matches!(
            (i, j),
            (Rejection::Body, MarkerRejection::Body)
                | (Rejection::Gate(_), MarkerRejection::Gate)
                | (Rejection::Call, MarkerRejection::Call)
        ),
    }
}

/// The kind of an alert, for the tally.
fn alert_kind(alert: &str) -> &'static str {
    if alert.contains(" must be ") || alert.contains(" refers to no ") {
        "gate value"
    } else if alert.starts_with("invariant `") {
        "gate invariant"
    } else if alert.contains("` failed: ") || alert.contains("` was rejected") {
        "runtime"
    } else if alert.ends_with("` is full") {
        "full table"
    } else {
        "message"
    }
}

/// Every compiled marker on the state `bytes` hold, `tuples` random argument
/// tuples each.
#[allow(clippy::too_many_arguments)]
fn check_state(
    program: &Program,
    layout: &StateLayout,
    site: &JitSite,
    twin: &mut Env<'_>,
    bytes: &[u8],
    pool: &mut TextPool,
    typeable: &[String],
    rng: &mut Lcg,
    tuples: usize,
    undo: &mut UndoLog,
    what: &str,
    tally: &mut Tally,
) {
    if twin.restore_state(layout, pool, bytes).is_err() {
        return;
    }
    let world = twin.world().clone();
    let nav = twin.navigation().clone();
    for (m, marker) in program.markers.iter().enumerate() {
        if !site.marker_is_compiled(m as u32) {
            continue;
        }
        let domains: Vec<Vec<Value>> = marker
            .params
            .iter()
            .map(|p| wsite_tests::argument_values(program, &world, &p.ty, typeable, &[]))
            .collect();
        for _ in 0..tuples {
            let args: Vec<Value> = domains
                .iter()
                .map(|d| d[rng.next(d.len())].clone())
                .collect();
            let mut after = world.clone();
            let interp = run_marker(program, &mut after, Some(&nav), m as u32, args.clone());
            let mut b = bytes.to_vec();
            let mut jit_alert = String::new();
            let jit = site.run_marker_alert(m as u32, &mut b, &args, pool, undo, &mut jit_alert);
            let mut quiet = bytes.to_vec();
            let plain = site.run_marker(m as u32, &mut quiet, &args, pool, undo);
            assert_eq!(
                jit, plain,
                "{what}: `{}` {args:?}: with and without the alert",
                marker.name
            );
            assert!(
                quiet == b,
                "{what}: `{}` {args:?}: bytes with and without the alert",
                marker.name
            );
            let jit = match jit {
                Ok(o) => o,
                Err(JitFault::Input(why)) => {
                    assert_eq!(b, bytes, "{what}: refused input changed the state");
                    tally.inputs_refused += 1;
                    eprintln!("{what}: `{}` input refused: {why}", marker.name);
                    continue;
                }
                Err(e) => panic!("{what}: `{}`: {e}", marker.name),
            };
            assert!(undo.is_empty());
            match (&interp, &jit) {
                (Outcome::Committed { go, .. }, MarkerOutcome::Committed { go: jgo }) => {
                    assert_eq!(go, jgo, "{what}: `{}` {args:?}: go differs", marker.name);
                    let expected = encode_world(layout, program, bytes, &after, pool).unwrap();
                    assert!(
                        b == expected,
                        "{what}: `{}` {args:?}: committed bytes differ",
                        marker.name
                    );
                    tally.committed += 1;
                }
                (Outcome::Rejected { cause, alert }, MarkerOutcome::Rejected { cause: jc }) => {
                    assert!(
                        cause_matches(program, cause, jc),
                        "{what}: `{}` {args:?}: interpreter {cause:?} ({alert}), jit {jc:?}",
                        marker.name
                    );
                    assert!(
                        b == bytes,
                        "{what}: `{}` {args:?}: rejection changed bytes",
                        marker.name
                    );
                    assert_eq!(
                        &jit_alert, alert,
                        "{what}: `{}` {args:?}: alert texts differ",
                        marker.name
                    );
                    tally.rejected += 1;
                    *tally.by_alert.entry(alert_kind(alert)).or_default() += 1;
                    *tally.by_cause.entry(format!("{jc:?}")).or_default() += 1;
                }
                _ => panic!(
                    "{what}: `{}` {args:?}: interpreter {interp:?}, jit {jit:?}",
                    marker.name
                ),
            }
            tally.compared += 1;
        }
    }
}

#[test]
fn compiled_markers_and_interpreter_agree_on_every_example() {
    let (mut compiled, mut fallback) = (0, 0);
    let mut tally = Tally::default();
    let mut undo = UndoLog::new();
    for (name, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        let mut pool = TextPool::for_program(&program);
        let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
        let (c, f) = site.marker_stats();
        compiled += c;
        fallback += f;
        eprintln!("{name}: {c} markers compiled, {f} fall back");
        for (marker, why) in site.marker_fallbacks() {
            match why {
                JitError::Unsupported(w) => eprintln!("  `{marker}`: {w}"),
                other => panic!("{name}: `{marker}`: {other}"),
            }
        }
        for (i, inst) in env::instances(&program).iter().enumerate() {
            let mut env = Env::new(&program, inst, RewardConfig::default()).unwrap();
            let mut twin = Env::new(&program, inst, RewardConfig::default()).unwrap();
            let typeable = env.typeable_values().to_vec();
            let mut rng = Lcg(101 + i as u64);
            for step in 0..40 {
                if env.done() {
                    env.reset().unwrap();
                }
                let bytes = env.encode_state(&layout, &mut pool).unwrap();
                let what = format!("{} step {step}", inst.name);
                check_state(
                    &program, &layout, &site, &mut twin, &bytes, &mut pool, &typeable, &mut rng, 3,
                    &mut undo, &what, &mut tally,
                );
                let mut odd = bytes.clone();
                wsite_tests::perturb_cells(&program, &layout, &mut odd, pool.len(), &mut rng);
                let what = format!("{what} (perturbed)");
                check_state(
                    &program, &layout, &site, &mut twin, &odd, &mut pool, &typeable, &mut rng, 1,
                    &mut undo, &what, &mut tally,
                );
                let actions = env.actions().to_vec();
                let action = &actions[rng.next(actions.len())];
                env.step(action).unwrap();
            }
        }
    }
    eprintln!(
        "all examples: {compiled} markers compiled, {fallback} fall back; {} runs compared ({} committed, {} rejected: {:?}, alerts {:?}; {} inputs refused)",
        tally.compared, tally.committed, tally.rejected, tally.by_cause, tally.by_alert, tally.inputs_refused
    );
    assert!(compiled > 0);
    assert!(
        tally.compared > 1_000,
        "only {} comparisons",
        tally.compared
    );
    assert!(tally.committed > 0 && tally.rejected > 0);
}
