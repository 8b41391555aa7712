//! Language 1.1 expressions end to end, on `tests/sites/library_loans.wsite`:
//! a due date moved by `l.due + 7 * n` (and a goal `@2026-12-10 + 21`), a
//! `to_int` of the weeks the visitor types, and `session.me` narrowed after
//! `!= none`. The site compiles clean; its task is feasible for the
//! interpreter's prover, whose witness replays to success; the JIT compiles
//! every predicate and marker of the site, and its flat prover finds the same
//! witness, on the flat engine.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env;
use wsite_runtime::jit::JitSite;
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_runtime::prove::{self, Engine, JitProver, Options, Verdict};

fn program() -> wsite_runtime::ir::Program {
    let path = wsite_tests::repo_root().join("tests/sites/library_loans.wsite");
    let text = std::fs::read_to_string(&path).unwrap();
    let compiled = wsitec::compile_str(&path.display().to_string(), &text);
    let codes: Vec<&str> = compiled
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert!(codes.is_empty(), "{codes:?}");
    compiled.program.expect("the site lowers")
}

#[test]
fn the_loan_task_is_proved_and_replayed_by_both_engines() {
    let program = program();
    let layout = StateLayout::for_program(&program).unwrap();
    let mut pool = TextPool::for_program(&program);
    let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
    let (_, fallen_back) = site.compile_stats();
    assert_eq!(fallen_back, 0, "every predicate compiles");
    assert!(
        site.marker_fallbacks().is_empty(),
        "{:?}",
        site.marker_fallbacks()
    );
    let jit = JitProver::new(&program).unwrap();
    let instances = env::instances(&program);
    assert_eq!(instances.len(), 1);
    for inst in &instances {
        let reference = prove::prove_instance(&program, inst, Options::default()).unwrap();
        assert_eq!(
            reference.verdict,
            Verdict::Feasible,
            "{:?}",
            reference.explanation
        );
        assert_eq!(prove::replay(&program, inst, &reference.witness), Ok(true));
        let flat = jit.prove(inst, Options::default()).unwrap();
        assert_eq!(flat.engine, Engine::Jit, "the flat engine plays the task");
        assert_eq!(flat.verdict, Verdict::Feasible);
        assert_eq!(flat.witness, reference.witness);
        assert_eq!(flat.states, reference.states);
        // Sign in, open the loan, type the weeks, renew.
        assert_eq!(reference.witness.len(), 4);
        assert_eq!(
            prove::replay(&program, inst, &reference.witness[..3]),
            Ok(false)
        );
    }
}
