//! The flat step engine (`jit::FlatEnv`) against the interpreter (`Env`) on
//! the real examples: for every task instance whose pages, markers,
//! goal and progress predicates all compile, the same random play in both.
//! At every step both must show the same observation (instruction; every
//! element's role, text, value, options and `disabled` flag) and offer the
//! same candidates (kinds, elements and texts, `answer`s included), and give
//! the same reward (to 1e-12), `done` and `success`; the flat bytes must equal
//! `Env::encode_state` (same pool) in the identity and visited regions and in
//! the whole header, and the alert texts must be equal (a rejected step's
//! included). Marker buttons are clicked more often than other candidates,
//! so refusals are frequent; `tests/sites/refusals.wsite` and two fixtures
//! refuse markers in every way there is (`requires` with interpolated
//! messages and without, `reject`, faults, a full table, an invariant), the
//! first also typed text its number input cannot parse, and each of those
//! alerts is demanded word for word. `FlatEnv::probe` must
//! agree with `step` on every candidate: the same verdict and the same
//! bytes past the header.
//!
//! Also prints the throughput of both engines on the same play (release:
//! `cargo test --release -p wsite-tests --test jit_step -- --nocapture`).

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::time::{Duration, Instant};
use wsite_runtime::env::{self, ActionKind, Env, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_runtime::jit::{FlatAction, FlatEnv, HandleWords, JitSite};
use wsite_runtime::layout::{StateLayout, TextPool, HEADER_SIZE};
use wsite_tests::Lcg;

const STEPS: usize = 300;

fn compare_bytes(layout: &StateLayout, flat: &[u8], interp: &[u8], what: &str) {
    assert_eq!(flat.len(), interp.len(), "{what}: sizes differ");
    assert_eq!(
        flat[..HEADER_SIZE],
        interp[..HEADER_SIZE],
        "{what}: headers (step, flags, alert id) differ"
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
            let page = flat.structure();
            let options: Vec<&str> = page.options_of(b).collect();
            let got = (
                b.role,
                page.text_of(b),
                page.value_of(b),
                options,
                b.disabled,
            );
            let options: Vec<&str> = a.options.iter().map(String::as_str).collect();
            let want = (
                a.role,
                a.text.as_str(),
                a.value.as_deref(),
                options,
                a.disabled,
            );
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

/// Whether flat candidate `a` clicks a marker button (with its arguments).
fn on_marker(flat: &FlatEnv, a: &FlatAction) -> bool {
    a.kind == ActionKind::Click
        && a.element > 0
        && matches!(
            flat.structure().elements[a.element - 1].handle,
            HandleWords::Marker(_, Ok(_))
        )
}

/// The random policy: half the time a click (links and buttons move the
/// play on; inputs offer many more candidates than they deserve), and half
/// of those on a marker button, so that refused markers are met often.
fn choose(flat: &FlatEnv, rng: &mut Lcg) -> usize {
    let fa = flat.actions();
    let pick = |keep: &dyn Fn(&FlatAction) -> bool, rng: &mut Lcg| {
        let ks: Vec<usize> = (0..fa.len()).filter(|&k| keep(&fa[k])).collect();
        (!ks.is_empty()).then(|| ks[rng.next(ks.len())])
    };
    if rng.next(2) == 0 {
        if rng.next(2) == 0 {
            if let Some(k) = pick(&|a| on_marker(flat, a), rng) {
                return k;
            }
        }
        if let Some(k) = pick(&|a| a.kind == ActionKind::Click, rng) {
            return k;
        }
    }
    rng.next(fa.len())
}

/// Every candidate of the current state probed, then stepped on a copy:
/// `probe` must give `step`'s verdict and leave the same bytes past the
/// header, name every byte it changed (`probe_writes`), and put the state
/// back exactly with `unprobe` and with `unprobe_writes` (in turns).
fn check_probes(
    flat: &mut FlatEnv,
    pool: &mut TextPool,
    config: RewardConfig,
    what: &str,
) -> usize {
    let before = flat.state().to_vec();
    let mut other = FlatEnv::from_start(flat.site(), flat.start().clone(), config, pool)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    for k in 0..flat.actions().len() {
        let probe = flat
            .probe(k, pool)
            .unwrap_or_else(|e| panic!("{what}: probe {k}: {e}"));
        let probed = flat.state()[HEADER_SIZE..].to_vec();
        let mut named = Vec::new();
        flat.probe_writes(&before, |r| named.push(r)).unwrap();
        for (i, (a, b)) in flat.state().iter().zip(&before).enumerate() {
            assert!(
                a == b || named.iter().any(|r| r.contains(&i)),
                "{what}: candidate {k} changed byte {i}, which probe_writes does not name"
            );
        }
        if k % 2 == 0 {
            flat.unprobe(&before).unwrap();
        } else {
            flat.unprobe_writes(&before, &named).unwrap();
        }
        assert_eq!(flat.state(), &before[..], "{what}: unprobe {k}");
        other.restore_from(flat).unwrap();
        let r = other
            .step(k, pool)
            .unwrap_or_else(|e| panic!("{what}: step {k}: {e}"));
        assert_eq!(
            probe.rejected,
            r.epsilon == 1,
            "{what}: candidate {k}: verdicts"
        );
        assert_eq!(probe.success, r.success, "{what}: candidate {k}: success");
        assert!(
            probed == other.state()[HEADER_SIZE..],
            "{what}: candidate {k}: probe and step leave different states"
        );
    }
    flat.actions().len()
}

/// The alert both engines show after a step.
fn compare_alerts(env: &Env, flat: &FlatEnv, pool: &TextPool, what: &str) -> Option<String> {
    let want = env.observation().alert;
    assert_eq!(flat.alert(pool), want.as_deref(), "{what}: alerts differ");
    want
}

#[test]
fn flat_steps_match_the_interpreter_on_every_example() {
    let config = RewardConfig::default();
    let (mut played, mut refused, mut steps, mut rejected, mut successes) = (0, 0, 0, 0, 0);
    let (mut commits, mut selects, mut answers, mut probes) = (0, 0, 0, 0);
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
                if step % 25 == 0 && !flat.done() {
                    probes += check_probes(&mut flat, &mut pool, config, &what);
                }
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
                let k = choose(&flat, &mut rng);
                let action = ea[k].clone();
                let on_marker = on_marker(&flat, &fa[k]);
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
                let alert = compare_alerts(&env, &flat, &pool, &what);
                let expected = env.encode_state(&layout, &mut pool).unwrap();
                compare_bytes(&layout, flat.state(), &expected, &what);
                assert_eq!(
                    alert.is_some(),
                    r1.epsilon == 1,
                    "{what}: alert iff rejected"
                );
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
        "{played} instances played ({refused} refused), {steps} steps compared ({rejected} rejected, {commits} marker commits, {selects} selects, {answers} answers, {successes} successes), {probes} probes checked"
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

/// A site outside the examples, compiled clean.
fn program_at(path: &std::path::Path) -> (String, Program) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.display().to_string();
    let program = wsitec::compile_str(&name, &text)
        .program
        .unwrap_or_else(|| panic!("{name} does not compile"));
    (name, program)
}

/// Plays every instance of `program` in both engines, comparing every
/// step's state, alert and reward, and every candidate's probe; returns the
/// alerts of the rejected steps.
fn play_refusals(name: &str, program: &Program, steps: usize) -> Vec<String> {
    let config = RewardConfig::default();
    let layout = StateLayout::for_program(program).unwrap();
    let mut pool = TextPool::for_program(program);
    let site = JitSite::compile(program, &layout, &mut pool).unwrap();
    let mut alerts = Vec::new();
    for (i, inst) in env::instances(program).iter().enumerate() {
        let mut env = Env::new(program, inst, config).unwrap();
        let mut flat = FlatEnv::new(&site, inst, config, &mut pool)
            .unwrap_or_else(|e| panic!("{name} {}: refused: {e}", inst.name));
        let mut rng = Lcg(7 + i as u64);
        for step in 0..steps {
            let what = format!("{name} {} step {step}", inst.name);
            compare_observations(&env, &flat, &what);
            if env.done() || env.actions().is_empty() {
                env.reset().unwrap();
                flat.reset(&mut pool).unwrap();
                continue;
            }
            check_probes(&mut flat, &mut pool, config, &what);
            let k = choose(&flat, &mut rng);
            let action = env.actions()[k].clone();
            let r1 = env.step(&action).unwrap();
            let r2 = flat
                .step(k, &mut pool)
                .unwrap_or_else(|e| panic!("{what}: {action:?}: flat step failed: {e}"));
            let what = format!("{what} {action:?}");
            assert_eq!(r1.epsilon, r2.epsilon, "{what}: epsilon");
            assert_eq!((r1.done, r1.success), (r2.done, r2.success), "{what}");
            assert!((r1.reward - r2.reward).abs() < 1e-12, "{what}: rewards");
            if let Some(a) = compare_alerts(&env, &flat, &pool, &what) {
                alerts.push(a);
            }
            let expected = env.encode_state(&layout, &mut pool).unwrap();
            compare_bytes(&layout, flat.state(), &expected, &what);
        }
    }
    alerts
}

#[test]
fn flat_alerts_match_the_interpreter_on_every_refusal() {
    let ui = wsite_tests::ui_dir();
    let mut seen = std::collections::BTreeSet::new();
    for path in [
        wsite_tests::repo_root().join("tests/sites/refusals.wsite"),
        // Guards redirecting, `offset`, page `let`s (language 1.1).
        wsite_tests::repo_root().join("tests/sites/account.wsite"),
        ui.join("F401_precondition_never_met.wsite"),
        ui.join("C302_invariant_refuses_marker.wsite"),
    ] {
        let (name, program) = program_at(&path);
        seen.extend(play_refusals(&name, &program, 400));
    }
    eprintln!("{} distinct alerts: {seen:#?}", seen.len());
    // Each kind of refusal, word for word (both engines gave these).
    for want in [
        "Enter a quantity for Lamp",
        "Only 3 Lamp left, not 5 (that is 2 too many)",
        "`plain` was rejected",
        "`ratio` was rejected: division by zero",
        "Holding 3 Desk is too many; 0 held before, 1 now, ratio —",
        "Holding 5 Lamp is too many; 1 held before, 2 now, ratio —",
        "`Hold` is full",
        "`split` failed: division by zero",
        "`show` failed: division by zero",
        "invariant `stock_never_negative` would be broken",
        "Nothing to refuse for Desk",
        "Refused 5 of Lamp",
        "At most 5 per order",
        "invariant `no_overdraft` would be broken",
        "“lamp” is not a whole number",
        "“2x” is not a whole number",
    ] {
        assert!(seen.contains(want), "no step was refused with {want:?}");
    }
}

/// Form variables in a loop: typing into one row's input, and clearing it,
/// keeps the form list in byte order (the bytes are compared with the
/// interpreter's encoding at every step, and every candidate probed).
#[test]
fn form_variables_in_loops_match_the_interpreter() {
    let path = wsite_tests::repo_root().join("tests/sites/form_loops.wsite");
    let (name, program) = program_at(&path);
    let alerts = play_refusals(&name, &program, 400);
    assert!(
        alerts
            .iter()
            .any(|a| a == "“soon” is not a date (YYYY-MM-DD)"),
        "typing a word into a date input must be refused: {alerts:?}"
    );
}

/// Uniqueness invariants, which the flat engine's gate checks one added row
/// at a time on states that come from the instance's start
/// (`ir::unique`): random play matches the interpreter, refusals included.
/// A state with two equal keys (only reachable by loading bytes) holds no
/// such promise, and there every added tag is refused, as the interpreter
/// refuses it, even one whose own key is fresh.
#[test]
fn uniqueness_invariants_match_the_interpreter() {
    let path = wsite_tests::repo_root().join("tests/sites/unique_keys.wsite");
    let (name, program) = program_at(&path);
    let alerts = play_refusals(&name, &program, 400);
    for want in [
        "invariant `one_label_per_item` would be broken",
        "invariant `one_note` would be broken",
    ] {
        assert!(
            alerts.iter().any(|a| a == want),
            "no refusal {want:?}: {alerts:?}"
        );
    }

    let config = RewardConfig::default();
    let layout = StateLayout::for_program(&program).unwrap();
    let mut pool = TextPool::for_program(&program);
    let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
    let inst = &env::instances(&program)[0];
    let mut env = Env::new(&program, inst, config).unwrap();
    let mut flat = FlatEnv::new(&site, inst, config, &mut pool).unwrap();
    // A second `(Lamp, red)` tag, written past the gate.
    let mut broken = env.state().clone();
    let tag = program.tables.iter().position(|t| t.name == "Tag").unwrap();
    let rows = &mut broken.world.db.tables[tag];
    let mut copy = rows.rows()[0].clone();
    copy.id = rows.issue_id().unwrap();
    copy.values[2] = wsite_runtime::ir::Value::Text("another note".into());
    rows.rows_mut().push(copy);
    env.load(broken);
    let bytes = env.encode_state(&layout, &mut pool).unwrap();
    flat.load_state(&bytes, &mut pool).unwrap();
    let start = env.clone();
    let mut tagged = 0;
    for k in 0..env.actions().len() {
        let (mut env, action) = (start.clone(), start.actions()[k].clone());
        flat.load_state(&bytes, &mut pool).unwrap();
        let what = format!("{name} from two equal keys, {action:?}");
        let shown = |e: usize| start.elements().get(e).map(|el| el.text.as_str());
        let blue =
            action.kind == ActionKind::Click && action.element.and_then(shown) == Some("Blue");
        let r1 = env.step(&action).unwrap();
        let r2 = flat.step(k, &mut pool).unwrap();
        assert_eq!(r1.epsilon, r2.epsilon, "{what}: epsilon");
        compare_alerts(&env, &flat, &pool, &what);
        let expected = env.encode_state(&layout, &mut pool).unwrap();
        compare_bytes(&layout, flat.state(), &expected, &what);
        if blue {
            let alert = flat.alert(&pool).unwrap_or_default();
            assert_eq!(
                alert, "invariant `one_label_per_item` would be broken",
                "{what}"
            );
            tagged += 1;
        }
    }
    assert!(tagged >= 2, "the `Blue` buttons were not clicked: {tagged}");
}

/// A request the episode does not offer is refused with its own error kind,
/// and changes nothing: a candidate index past the last, a step after the
/// end, bytes of another size, and a reward only the interpreter gives.
#[test]
fn bad_requests_get_typed_errors_and_change_nothing() {
    use wsite_runtime::env::RewardMode;
    use wsite_runtime::jit::FlatError;
    let (name, program) = wsite_tests::example_programs().remove(0);
    let (site, mut pool, instances) = wsite_tests::jit_site(&program);
    let inst = instances
        .first()
        .expect("an instance the flat engine plays");
    let config = RewardConfig::default();
    let mut flat = FlatEnv::new(&site, inst, config, &mut pool).unwrap();
    let before = flat.state().to_vec();
    let past = flat.actions().len();
    assert_eq!(
        flat.step(past, &mut pool).unwrap_err(),
        FlatError::NoCandidate(past)
    );
    let short = vec![0; before.len() - 1];
    assert_eq!(
        flat.load_state(&short, &mut pool).unwrap_err(),
        FlatError::StateSize {
            expected: before.len(),
            got: before.len() - 1
        }
    );
    assert_eq!(
        flat.state(),
        before.as_slice(),
        "{name}: a refusal changed the state"
    );

    let mut rng = Lcg(7);
    while !flat.done() {
        let k = choose(&flat, &mut rng);
        flat.step(k, &mut pool).unwrap();
    }
    let ended = flat.state().to_vec();
    assert_eq!(flat.step(0, &mut pool).unwrap_err(), FlatError::EpisodeOver);
    assert_eq!(flat.state(), ended.as_slice());

    let decomposed = RewardConfig {
        mode: RewardMode::Decomposed,
        ..config
    };
    let refused = FlatEnv::new(&site, inst, decomposed, &mut pool)
        .err()
        .unwrap();
    assert_eq!(refused, FlatError::DecomposedReward);
    assert!(refused.is_unplayable(), "the interpreter must take it over");
    assert!(!FlatError::EpisodeOver.is_unplayable());
}

/// A start page kept after one restart, offered back after a played episode
/// (the pool truncated to where it was), gives what a restart gives: the
/// same bytes, page, candidates and Ψ. Offered to a pool of another length,
/// or to an engine in another render mode, it is refused and changes
/// nothing.
#[test]
fn a_kept_start_page_restarts_as_a_restart_does() {
    use wsite_runtime::jit::{FlatError, RenderMode};
    let config = RewardConfig::default();
    let mut kept_pages = 0;
    for (name, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        let mut pool = TextPool::for_program(&program);
        let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
        for (i, inst) in env::instances(&program).iter().enumerate() {
            let Ok(mut flat) = FlatEnv::new(&site, inst, config, &mut pool) else {
                continue;
            };
            let what = format!("{name} {}", inst.name);
            let start = flat.start().clone();
            let base = pool.len();
            flat.restart(start.clone(), &mut pool).unwrap();
            let page = flat.start_page(base, &pool);
            let (bytes, structure) = (flat.state().to_vec(), flat.structure().clone());
            let (actions, potential) = (flat.actions().to_vec(), flat.progress());
            let mut rng = Lcg(7 + i as u64);
            for _ in 0..20 {
                if flat.done() || flat.actions().is_empty() {
                    break;
                }
                let k = choose(&flat, &mut rng);
                flat.step(k, &mut pool).unwrap();
            }
            pool.truncate(base);
            flat.restart_kept(&page, &mut pool).unwrap();
            assert_eq!(flat.state(), &bytes[..], "{what}: bytes");
            assert_eq!(flat.structure(), &structure, "{what}: page");
            assert_eq!(flat.actions(), &actions[..], "{what}: candidates");
            assert_eq!(flat.progress(), potential, "{what}: Ψ");
            kept_pages += 1;
            // A pool that grew since is not the pool the page was kept with.
            let grown = pool.len();
            pool.intern(&std::sync::Arc::from("a text no page shows 7f3a"));
            let refused = flat.restart_kept(&page, &mut pool);
            assert!(
                matches!(refused, Err(FlatError::Foreign(_))),
                "{what}: {refused:?}"
            );
            pool.truncate(grown);
            assert_eq!(
                flat.state(),
                &bytes[..],
                "{what}: a refusal changed the bytes"
            );
            // Another render mode is another page.
            let both = RenderMode {
                texts: true,
                words: true,
            };
            flat.set_render_mode(both, &mut pool).unwrap();
            let refused = flat.restart_kept(&page, &mut pool);
            assert!(
                matches!(refused, Err(FlatError::Foreign(_))),
                "{what}: {refused:?}"
            );
        }
    }
    assert!(kept_pages > 50, "only {kept_pages} pages kept");
}
