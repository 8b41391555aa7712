//! The flat step engine (`jit::FlatEnv`) against the interpreter (`Env`) on
//! the real examples: for every task instance whose pages, markers,
//! goal and progress predicates all compile, the same random play in both.
//! At every step both must show the same observation (instruction; every
//! element's role, text, value, options and `disabled` flag) and offer the
//! same candidates (kinds, elements and texts, `answer`s included), and give
//! the same reward (to 1e-12), `done` and `success`; the flat bytes must equal
//! `Env::encode_state` (same pool) in the identity and visited regions and in
//! the header's step and flags (the alert's text id may differ).
//!
//! Also prints the throughput of both engines on the same play (release:
//! `cargo test --release -p wsite-tests --test jit_step -- --nocapture`).

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::time::{Duration, Instant};
use wsite_runtime::env::{self, ActionKind, Env, RewardConfig};
use wsite_runtime::jit::{FlatEnv, HandleWords, JitSite};
use wsite_runtime::layout::{StateLayout, TextPool, FLAGS_AT};
use wsite_tests::Lcg;

const STEPS: usize = 300;

fn compare_bytes(layout: &StateLayout, flat: &[u8], interp: &[u8], what: &str) {
    assert_eq!(flat.len(), interp.len(), "{what}: sizes differ");
    assert_eq!(
        flat[..FLAGS_AT + 4],
        interp[..FLAGS_AT + 4],
        "{what}: header step/flags differ"
    );
    for (region, r) in [
        ("identity", layout.identity.clone()),
        ("visited", layout.visited_region.clone()),
    ] {
        if flat[r.clone()] != interp[r.clone()] {
            let first = r.clone().find(|&i| flat[i] != interp[i]).unwrap_or(r.start);
            panic!("{what}: {region} bytes differ first at offset {first}");
        }
    }
}

/// The same observation: instruction, every element's role, text, value,
/// options and `disabled` flag, and every candidate's kind, element and text.
fn compare_observations(env: &Env, flat: &FlatEnv, what: &str) {
    assert_eq!(
        env.instruction(),
        flat.instruction(),
        "{what}: instructions"
    );
    let (ee, fe) = (env.elements(), &flat.structure().elements);
    if !env.done() {
        assert_eq!(ee.len(), fe.len(), "{what}: element counts differ");
        for (i, (a, b)) in ee.iter().zip(fe).enumerate() {
            let got = (b.role, &b.text, &b.value, &b.options, b.disabled);
            let want = (a.role, &a.text, &a.value, &a.options, a.disabled);
            assert_eq!(got, want, "{what}: element [{}] differs", i + 1);
        }
    }
    let (ea, fa) = (env.actions(), flat.actions());
    assert_eq!(ea.len(), fa.len(), "{what}: candidate counts differ");
    for (k, (a, b)) in ea.iter().zip(fa).enumerate() {
        assert_eq!(a.kind, b.kind, "{what}: candidate {k} kinds differ");
        let element = (b.element > 0).then_some(b.element);
        assert_eq!(a.element, element, "{what}: candidate {k} elements");
        assert_eq!(
            a.text.as_deref(),
            flat.action_text(b),
            "{what}: candidate {k} texts"
        );
    }
}

/// One instance's play: `None` is a reset, `Some(k)` candidate `k`.
type Trace = Vec<Option<usize>>;

#[test]
fn flat_steps_match_the_interpreter_on_every_example() {
    let config = RewardConfig::default();
    let (mut played, mut refused, mut steps, mut rejected, mut successes) = (0, 0, 0, 0, 0);
    let (mut commits, mut selects, mut answers) = (0, 0, 0);
    let (mut t_env, mut t_flat, mut timed_steps) = (Duration::ZERO, Duration::ZERO, 0usize);
    for (name, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        let mut pool = TextPool::for_program(&program);
        let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
        let mut traces: Vec<(env::TaskInstance, Trace)> = Vec::new();
        for (i, inst) in env::instances(&program).iter().enumerate() {
            let mut env = Env::new(&program, inst, config).unwrap();
            let mut flat = match FlatEnv::new(&site, inst, config, &mut pool) {
                Ok(f) => f,
                Err(why) => {
                    refused += 1;
                    eprintln!("{name} {}: refused: {why}", inst.name);
                    continue;
                }
            };
            played += 1;
            let mut trace = Trace::new();
            let mut rng = Lcg(31 + i as u64);
            let expected = env.encode_state(&layout, &mut pool).unwrap();
            compare_bytes(
                &layout,
                flat.state(),
                &expected,
                &format!("{name} {} reset", inst.name),
            );
            for step in 0..STEPS {
                let what = format!("{name} {} step {step}", inst.name);
                compare_observations(&env, &flat, &what);
                let (ea, fa) = (env.actions(), flat.actions());
                if env.done() || ea.is_empty() {
                    assert_eq!(env.done(), flat.done(), "{what}: done differs");
                    env.reset().unwrap();
                    flat.reset(&mut pool).unwrap();
                    trace.push(None);
                    let expected = env.encode_state(&layout, &mut pool).unwrap();
                    compare_bytes(&layout, flat.state(), &expected, &format!("{what} reset"));
                    continue;
                }
                // Half the time a click (links and buttons move the play on;
                // inputs offer many more candidates than they deserve).
                let clicks: Vec<usize> = (0..ea.len())
                    .filter(|&k| ea[k].kind == ActionKind::Click)
                    .collect();
                let k = if !clicks.is_empty() && rng.next(2) == 0 {
                    clicks[rng.next(clicks.len())]
                } else {
                    rng.next(ea.len())
                };
                let action = ea[k].clone();
                let on_marker = fa[k].element > 0
                    && matches!(
                        flat.structure().elements[fa[k].element - 1].handle,
                        HandleWords::Marker(_, Ok(_))
                    );
                let r1 = env.step(&action).unwrap();
                let r2 = flat
                    .step(k, &mut pool)
                    .unwrap_or_else(|e| panic!("{what}: {action:?}: flat step failed: {e}"));
                trace.push(Some(k));
                let what = format!("{what} {action:?}");
                assert!(
                    (r1.reward - r2.reward).abs() < 1e-12,
                    "{what}: rewards {} vs {}",
                    r1.reward,
                    r2.reward
                );
                assert_eq!(r1.done, r2.done, "{what}: done");
                assert_eq!(r1.success, r2.success, "{what}: success");
                assert_eq!(r1.epsilon, r2.epsilon, "{what}: epsilon");
                assert!(
                    (r1.progress - r2.progress).abs() < 1e-12,
                    "{what}: progress"
                );
                let expected = env.encode_state(&layout, &mut pool).unwrap();
                compare_bytes(&layout, flat.state(), &expected, &what);
                steps += 1;
                rejected += usize::from(r1.epsilon);
                successes += usize::from(r1.success);
                commits += usize::from(on_marker && r1.epsilon == 0);
                selects += usize::from(action.kind == ActionKind::Select);
                answers += usize::from(action.kind == ActionKind::Answer);
            }
            traces.push((inst.clone(), trace));
        }

        // Throughput: the same plays again, each engine alone.
        for (inst, trace) in &traces {
            let mut env = Env::new(&program, inst, config).unwrap();
            let start = Instant::now();
            for t in trace {
                match t {
                    None => env.reset().unwrap(),
                    Some(k) => {
                        let a = env.actions()[*k].clone();
                        env.step(&a).unwrap();
                    }
                }
            }
            t_env += start.elapsed();
            let mut flat = FlatEnv::new(&site, inst, config, &mut pool).unwrap();
            let start = Instant::now();
            for t in trace {
                match t {
                    None => flat.reset(&mut pool).unwrap(),
                    Some(k) => {
                        flat.step(*k, &mut pool).unwrap();
                    }
                }
            }
            t_flat += start.elapsed();
            timed_steps += trace.len();
        }
    }
    let rate = |d: Duration| timed_steps as f64 / d.as_secs_f64().max(1e-9);
    eprintln!(
        "{played} instances played ({refused} refused), {steps} steps compared ({rejected} rejected, {commits} marker commits, {selects} selects, {answers} answers, {successes} successes)"
    );
    eprintln!(
        "throughput over {timed_steps} steps/resets: Env {:.0} steps/s, FlatEnv {:.0} steps/s ({:.1}x)",
        rate(t_env),
        rate(t_flat),
        t_env.as_secs_f64() / t_flat.as_secs_f64().max(1e-9)
    );
    assert!(played > 0, "no instance could be played flat");
    assert!(steps > 1_000, "only {steps} steps compared");
    assert!(
        commits > 0 && rejected > 0 && selects > 0 && answers > 0,
        "markers, rejections, selects and answers must all be exercised"
    );
}
