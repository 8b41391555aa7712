//! Typed answer matching (§5.3) judged alike everywhere, on generated sites:
//! random sites of the soundness generator and sites of the `wsitec gen`
//! corpus (whose retrieval tasks answer prices, stock levels and counts).
//!
//! For every retrieval task instance: both provers find the same witness; its
//! answer matches the expected answer and replays to success on `Env`; in
//! the state before that answer, and in the initial state, every `answer`
//! candidate succeeds on `Env` exactly when it matches, and the JIT's flat
//! engine (which the batched engines and the trainer step) agrees on each;
//! and guesses made of parts of the expected value (`2026` or `03` for a
//! date, `17` for a time) are refused by `Env` whenever they do not match,
//! always for dates, times, booleans and enum variants.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{
    self, Action, ActionKind, Env, Expected, RewardConfig, TaskInstance, Typed,
};
use wsite_runtime::ir::Program;
use wsite_runtime::jit::{FlatEnv, JitSite};
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_runtime::prove::{self, JitProver, Options, Verdict};

/// States per instance: the generated sites are small.
const BUDGET: usize = 20_000;

#[derive(Default, Debug)]
struct Tally {
    instances: usize,
    witnesses: usize,
    typed_witnesses: usize,
    candidates: usize,
    guesses_refused: usize,
}

fn compile(name: &str, text: &str) -> Option<Program> {
    let compiled = wsitec::compile_str(name, text);
    if compiled.diagnostics.iter().any(|d| d.is_error()) {
        return None;
    }
    compiled.program
}

fn answer(text: &str) -> Action {
    Action {
        kind: ActionKind::Answer,
        element: None,
        text: Some(text.to_string()),
    }
}

/// Whether answering `text` in `env`'s state succeeds (on a copy).
fn succeeds(env: &Env<'_>, text: &str) -> bool {
    env.clone().step(&answer(text)).unwrap().success
}

/// Every answer candidate of the current state: `Env` succeeds exactly when
/// the expected answer matches, and the flat engine agrees.
fn check_candidates(
    env: &Env<'_>,
    flat: Option<&mut FlatEnv>,
    pool: &mut TextPool,
    what: &str,
) -> usize {
    let expected = env.expected_answer();
    let mut checked = 0;
    let saved = flat.as_ref().map(|f| f.state().to_vec());
    let mut flat = flat;
    for (k, a) in env.actions().iter().enumerate() {
        let (ActionKind::Answer, Some(text)) = (a.kind, a.text.as_deref()) else {
            continue;
        };
        let on_env = env.clone().step(a).unwrap().success;
        assert_eq!(on_env, expected.matches(text), "{what}: answer {text:?}");
        if let (Some(f), Some(bytes)) = (flat.as_deref_mut(), &saved) {
            let probe = f.probe(k, pool).unwrap();
            f.unprobe(bytes).unwrap();
            assert_eq!(
                probe.success, on_env,
                "{what}: flat engine on answer {text:?}"
            );
        }
        checked += 1;
    }
    checked
}

/// Proper parts of the expected value as shown (`2026`, `03`, `$1`).
fn parts(expected: &Expected) -> Vec<String> {
    expected
        .shown()
        .iter()
        .flat_map(|s| {
            let pieces: Vec<String> = s
                .split(|c: char| !(c.is_alphanumeric() || c == '$'))
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect();
            if pieces.len() > 1 {
                pieces
            } else {
                Vec::new()
            }
        })
        .collect()
}

/// The JIT's compiled site with its pool, and its prover.
struct Jit {
    site: JitSite,
    pool: TextPool,
    prover: JitProver,
}

fn check_instance(program: &Program, jit: &Jit, inst: &TaskInstance, tally: &mut Tally) {
    let what = &inst.name;
    let options = Options {
        budget: BUDGET,
        ..Options::default()
    };
    let proof = prove::prove_instance(program, inst, options).unwrap();
    let on_jit = jit.prover.prove(inst, options).unwrap();
    assert_eq!(proof.verdict, on_jit.verdict, "{what}: verdicts");
    assert_eq!(proof.witness, on_jit.witness, "{what}: witnesses");
    let mut env = Env::new(program, inst, RewardConfig::default()).unwrap();
    let mut pool = jit.pool.clone();
    let mut flat = FlatEnv::new(&jit.site, inst, RewardConfig::default(), &mut pool).ok();
    tally.instances += 1;
    tally.candidates += check_candidates(
        &env,
        flat.as_mut(),
        &mut pool,
        &format!("{what} at the start"),
    );
    let expected = env.expected_answer().clone();
    let strict = matches!(
        expected,
        Expected::Typed(Typed::Date(_) | Typed::Time(_) | Typed::Bool(_) | Typed::Variant(_))
    );
    for guess in parts(&expected) {
        let matches = expected.matches(&guess);
        assert_eq!(succeeds(&env, &guess), matches, "{what}: guess {guess:?}");
        assert!(
            !(strict && matches),
            "{what}: part {guess:?} matches {expected:?}"
        );
        tally.guesses_refused += usize::from(!matches);
    }
    if proof.verdict != Verdict::Feasible {
        return;
    }
    let (last, prefix) = proof.witness.split_last().expect("a witness has a step");
    assert_eq!(
        last.kind,
        ActionKind::Answer,
        "{what}: a retrieval witness ends with an answer"
    );
    let text = last.text.as_deref().unwrap_or_default();
    assert!(expected.matches(text), "{what}: witness answer {text:?}");
    assert_eq!(
        prove::replay(program, inst, &proof.witness),
        Ok(true),
        "{what}: replay"
    );
    for step in prefix {
        let action = prove::resolve_step(&env, step).unwrap();
        let k = env.actions().iter().position(|a| *a == action);
        env.step(&action).unwrap();
        if let (Some(f), Some(k)) = (flat.as_mut(), k) {
            f.step(k, &mut pool).unwrap();
        }
    }
    tally.candidates += check_candidates(
        &env,
        flat.as_mut(),
        &mut pool,
        &format!("{what} before its answer"),
    );
    tally.witnesses += 1;
    tally.typed_witnesses += usize::from(matches!(expected, Expected::Typed(_)));
}

fn check_program(program: &Program, tally: &mut Tally) {
    let layout = StateLayout::for_program(program).unwrap();
    let mut pool = TextPool::for_program(program);
    let jit = Jit {
        site: JitSite::compile(program, &layout, &mut pool).unwrap(),
        pool,
        prover: JitProver::new(program).unwrap(),
    };
    for inst in env::instances(program) {
        if program.tasks[inst.task].answer.is_some() {
            check_instance(program, &jit, &inst, tally);
        }
    }
}

#[test]
fn generated_sites_judge_answers_alike_everywhere() {
    let mut tally = Tally::default();
    for seed in 0..40 {
        let site = wsite_tests::soundness::generate(seed);
        if let Some(program) = compile("generated.wsite", &site.text) {
            check_program(&program, &mut tally);
        }
    }
    for (d, domain) in ["ecommerce", "banking", "education"].iter().enumerate() {
        for site in wsitec::gen::generate(domain, 500 + d as u64, 2).unwrap() {
            let program = compile(&site.file_name, &site.text).expect("a corpus site compiles");
            check_program(&program, &mut tally);
        }
    }
    eprintln!("{tally:?}");
    assert!(tally.witnesses >= 10, "{tally:?}");
    assert!(tally.typed_witnesses >= 3, "{tally:?}");
    assert!(tally.candidates >= 50, "{tally:?}");
    assert!(tally.guesses_refused >= 10, "{tally:?}");
}
