//! The prover on the examples: every task instance is feasible, its witness
//! replays to success, and pruning by cone of influence never changes a verdict
//! or a shortest witness's length.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env;
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Options, Verdict};

/// Proves every instance of one example with and without pruning.
fn check_example(name: &str, program: &Program) {
    for inst in env::instances(program) {
        let proof = prove::prove_instance(program, &inst, Options::default()).unwrap();
        assert_eq!(
            proof.verdict,
            Verdict::Feasible,
            "{name} {}: {:#?}",
            inst.name,
            proof.explanation
        );
        assert_eq!(
            prove::replay(program, &inst, &proof.witness),
            Ok(true),
            "{}",
            inst.name
        );
        let unpruned = Options {
            prune: false,
            ..Options::default()
        };
        let full = prove::prove_instance(program, &inst, unpruned).unwrap();
        assert_eq!(full.verdict, proof.verdict, "{}", inst.name);
        assert_eq!(full.witness.len(), proof.witness.len(), "{}", inst.name);
        assert!(proof.states <= full.states, "{}", inst.name);
    }
}

#[test]
fn every_example_task_is_proven_pruned_or_not_and_its_witness_replays() {
    let programs = wsite_tests::example_programs();
    std::thread::scope(|s| {
        for (name, program) in &programs {
            s.spawn(move || check_example(name, program));
        }
    });
}
