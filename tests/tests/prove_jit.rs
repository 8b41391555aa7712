//! The prover on the JIT's flat engine (`prove::JitProver`) against the
//! interpreter's (`prove::prove_instance`): on every example and every task
//! instance, the same verdict, the same witness step for step and the same
//! number of states, with the flat engine deciding every operation task it
//! can play; the same on the F40x fixtures (infeasible and undecided
//! verdicts, and searches longer than the task's horizon). In the debug
//! builds tests run in, the flat search also checks itself as it goes: every
//! state put back after a probe is compared whole with the state expanded,
//! every 16th updated fingerprint with one computed from every word, and
//! every page taken from the search's memory of renders with the page
//! rendered afresh (the test demands that each example's searches took
//! some).
//!
//! Run in release (`cargo test --release -p wsite-tests --test prove_jit --
//! --nocapture` prints how many instances each engine decided).

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{self, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::jit::{FlatEnv, JitSite};
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_runtime::prove::{self, Engine, JitProver, Options, Proof, Verdict};

/// Both provers on one instance; panics unless they agree. Returns the JIT
/// path's proof.
fn both(jit: &JitProver, program: &Program, inst: &TaskInstance, options: Options) -> Proof {
    let what = format!("{} ({options:?})", inst.name);
    let reference = prove::prove_instance(program, inst, options).unwrap();
    let flat = jit
        .prove(inst, options)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(flat.verdict, reference.verdict, "{what}: verdict");
    assert_eq!(flat.witness, reference.witness, "{what}: witness");
    assert_eq!(flat.states, reference.states, "{what}: states");
    assert_eq!(flat.depth, reference.depth, "{what}: depth");
    assert_eq!(
        flat.initially_true, reference.initially_true,
        "{what}: initially true"
    );
    assert_eq!(
        flat.cut_by_horizon, reference.cut_by_horizon,
        "{what}: cut by the horizon"
    );
    assert_eq!(
        flat.explanation.is_some(),
        reference.explanation.is_some(),
        "{what}: explanation"
    );
    // `replay` plays an episode, which ends at the task's horizon.
    if flat.verdict == Verdict::Feasible && options.horizon.is_none() {
        assert_eq!(
            prove::replay(program, inst, &flat.witness),
            Ok(true),
            "{what}"
        );
    }
    flat
}

/// Whether `FlatEnv` plays this instance (else the interpreter must prove it).
fn flat_plays(program: &Program, inst: &TaskInstance) -> bool {
    let layout = StateLayout::for_program(program).unwrap();
    let mut pool = TextPool::for_program(program);
    let site = JitSite::compile(program, &layout, &mut pool).unwrap();
    let plays = FlatEnv::new(&site, inst, RewardConfig::default(), &mut pool).is_ok();
    plays
}

/// (instances the flat engine decided, instances in all, expanded states
/// whose page the flat searches found remembered).
fn check_example(name: &str, program: &Program) -> (usize, usize, u64) {
    let jit = JitProver::new(program).unwrap();
    let (mut flat, mut all) = (0, 0);
    for inst in env::instances(program) {
        let proof = both(&jit, program, &inst, Options::default());
        all += 1;
        if proof.engine == Engine::Jit {
            flat += 1;
        } else {
            assert!(
                !flat_plays(program, &inst),
                "{name} {}: FlatEnv plays it, but the interpreter proved it",
                inst.name
            );
        }
    }
    (flat, all, jit.memo_counts().hits)
}

#[test]
fn the_flat_prover_agrees_with_the_interpreter_on_every_example() {
    let programs = wsite_tests::example_programs();
    let counts: Vec<(usize, usize, u64)> = std::thread::scope(|s| {
        let runs: Vec<_> = programs
            .iter()
            .map(|(name, program)| s.spawn(move || check_example(name, program)))
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for ((name, _), (flat, all, found)) in programs.iter().zip(&counts) {
        eprintln!(
            "{name}: {flat} of {all} instances decided on the flat engine, {found} pages remembered"
        );
        // Each remembered page was also rendered afresh and found equal
        // (a debug build's check, which fails the proof otherwise).
        assert!(*found > 0, "{name}: the flat searches remembered no page");
    }
    let flat: usize = counts.iter().map(|c| c.0).sum();
    let all: usize = counts.iter().map(|c| c.1).sum();
    eprintln!("in all: {flat} of {all} instances decided on the flat engine");
    assert!(flat > 0, "the flat engine decided no instance");
}

/// The F40x fixtures that compile to a program (the F401 ones give
/// infeasible verdicts with explanations).
fn prover_fixtures() -> Vec<(String, Program)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("F40") && n.ends_with(".wsite"))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            wsitec::compile_str(&name, &text).program.map(|p| (name, p))
        })
        .collect()
}

#[test]
fn the_flat_prover_agrees_on_infeasible_fixtures_and_longer_horizons() {
    let (mut infeasible, mut flat) = (0, 0);
    for (name, program) in prover_fixtures() {
        let Ok(jit) = JitProver::new(&program) else {
            continue;
        };
        for inst in env::instances(&program) {
            let proof = both(&jit, &program, &inst, Options::default());
            infeasible += usize::from(proof.verdict == Verdict::Infeasible);
            flat += usize::from(proof.engine == Engine::Jit);
            let h = program.tasks[inst.task].horizon;
            let longer = Options {
                horizon: Some(h.saturating_mul(4).min(h.saturating_add(60))),
                ..Options::default()
            };
            let long = both(&jit, &program, &inst, longer);
            eprintln!(
                "{name} {}: {:?} on {:?}; longer horizon: {:?} on {:?}",
                inst.name, proof.verdict, proof.engine, long.verdict, long.engine
            );
        }
    }
    assert!(infeasible > 0, "no fixture was infeasible");
    assert!(flat > 0, "the flat engine decided no fixture");
}

#[test]
fn a_budget_too_small_is_undecided_on_both_engines() {
    let mut undecided = 0;
    for (_, program) in wsite_tests::example_programs().into_iter().take(4) {
        let jit = JitProver::new(&program).unwrap();
        for inst in env::instances(&program).into_iter().take(3) {
            let tiny = Options {
                budget: 3,
                ..Options::default()
            };
            let proof = both(&jit, &program, &inst, tiny);
            if proof.witness.len() > 2 {
                assert_eq!(proof.verdict, Verdict::Undecided, "{}", inst.name);
            }
            if proof.verdict == Verdict::Undecided {
                assert_eq!(proof.states, 4, "{}", inst.name);
                undecided += 1;
            }
        }
    }
    assert!(undecided > 0, "no instance ran out of budget");
}

/// The prover's errors say what went wrong by kind: an instance the
/// interpreter refuses, and a witness step naming an element the page does
/// not show (with the key and the page's URL), on both provers' paths.
#[test]
fn prover_errors_are_typed() {
    use wsite_runtime::env::ActionKind;
    use wsite_runtime::prove::{MissingElement, ProveError, WitnessStep};
    let (_, program) = wsite_tests::example_programs().remove(0);
    let inst = env::instances(&program).remove(0);
    let missing = WitnessStep {
        kind: ActionKind::Click,
        key: Some("no-such-element".into()),
        text: None,
    };
    match prove::replay(&program, &inst, &[missing]) {
        Err(ProveError::MissingElement(MissingElement { key, url })) => {
            assert_eq!(key, "no-such-element");
            assert!(!url.is_empty(), "the page shown is named");
        }
        other => panic!("expected a missing element, got {other:?}"),
    }
    let foreign = TaskInstance {
        task: program.tasks.len(),
        binding: None,
        name: "no such task".into(),
    };
    let jit = JitProver::new(&program).unwrap();
    for result in [
        prove::prove_instance(&program, &foreign, Options::default()),
        jit.prove(&foreign, Options::default()),
    ] {
        assert!(
            matches!(result, Err(ProveError::Instance(_))),
            "expected a refused instance, got {result:?}"
        );
    }
}

/// A counter one click raises by one, beside three text inputs: within a
/// horizon of 30 the space holds about six thousand states, within 3 a few
/// hundred, and the counter reaches at most the horizon.
const COUNTER: &str = r#"
site S { title "S" domain other start Home }
session { n: Int = 0 }
page Home {
  input #a a: Text "A"
  input #b b: Text "B"
  input #c c: Text "C"
  button #inc "Count" -> inc(a, b, c)
}
marker inc(a: Text, b: Text, c: Text) reads session.n writes session.n
  requires a != b and b != c else "Three different words"
{ set session.n = session.n + 1 }
task never_fifty { say "Count." values ["p", "q", "r", "s", "t"] horizon 30 goal session.n == 50 }
task never_five_soon { say "Count." values ["p", "q", "r", "s", "t"] horizon 3 goal session.n == 5 }
task twenty { say "Count." values ["p", "q", "r", "s", "t"] horizon 30 goal session.n == 20 }
"#;

/// The flat prover consults the static bound only after its search has
/// reached a few thousand states or ended without a witness
/// (`prove/flat/late_bound.rs`). Its proofs stay the bound-first order's
/// (the interpreter's prover): the bound's verdict, engine and explanation
/// when it decides (stopping a search of a large space part way, or after
/// a small one is exhausted), the search's witness when it does not.
#[test]
fn the_static_bound_consulted_late_gives_the_proofs_it_gave_first() {
    let program = wsitec::compile_str("counter.wsite", COUNTER)
        .program
        .expect("the counter site checks");
    let jit = JitProver::new(&program).unwrap();
    let mut large = 0;
    for inst in env::instances(&program) {
        let reference = prove::prove_instance(&program, &inst, Options::default()).unwrap();
        let flat = both(&jit, &program, &inst, Options::default());
        let explained = |p: &Proof| p.explanation.as_ref().map(|e| e.summary.clone());
        if reference.engine == Engine::Bound {
            assert_eq!(flat.engine, Engine::Bound, "{}", inst.name);
        }
        assert_eq!(explained(&flat), explained(&reference), "{}", inst.name);
        match inst.name.as_str() {
            "twenty" => assert_eq!(flat.verdict, Verdict::Feasible),
            _ => assert_eq!(flat.engine, Engine::Bound, "{}", inst.name),
        }
        // The unreduced search of `never_fifty` passes the states at which
        // the flat search stops for the bound.
        let full = prove::prove_instance(
            &program,
            &inst,
            Options {
                reduce: false,
                ..Options::default()
            },
        )
        .unwrap();
        eprintln!("{}: {} states unreduced", inst.name, full.states);
        large += usize::from(full.states > 4096);
    }
    assert_eq!(large, 2, "never_fifty and twenty search past 4,096 states");
}
