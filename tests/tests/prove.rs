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

/// Whether any sequence of exactly `depth` candidate actions from `env`
/// succeeds (plain depth-first enumeration, no state merging: independent of
/// the prover's fingerprints and pruning). `None` when there are too many.
fn some_sequence_succeeds(env: &env::Env<'_>, depth: usize, budget: &mut usize) -> Option<bool> {
    if depth == 0 {
        return Some(false);
    }
    for action in env.actions() {
        *budget = budget.checked_sub(1)?;
        let mut next = env.clone();
        let Ok(r) = next.step(action) else { continue };
        if r.success {
            return Some(true);
        }
        if !r.done && some_sequence_succeeds(&next, depth - 1, budget)? {
            return Some(true);
        }
    }
    Some(false)
}

#[test]
fn short_witnesses_are_shortest_by_brute_force() {
    let mut checked = 0;
    for (name, program) in wsite_tests::example_programs() {
        for inst in env::instances(&program) {
            // Short witnesses come from small searches; skip the big ones.
            let small = Options {
                budget: 20_000,
                ..Options::default()
            };
            let proof = prove::prove_instance(&program, &inst, small).unwrap();
            let len = proof.witness.len();
            if proof.verdict != Verdict::Feasible || len > 3 {
                continue;
            }
            let start = env::Env::new(&program, &inst, env::RewardConfig::default()).unwrap();
            let mut budget = 200_000;
            if let Some(found) = some_sequence_succeeds(&start, len - 1, &mut budget) {
                assert!(
                    !found,
                    "{name} {}: a sequence of {} steps succeeds",
                    inst.name,
                    len - 1
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} witnesses checked by brute force");
    assert!(checked >= 30, "only {checked} witnesses were checked");
}

/// A shop where a note field and a visit log can never matter to buying.
const SHOP_WITH_IDLE_PARTS: &str = r#"
site Shop {
  title "Idle parts"
  domain ecommerce
  start Home
}

table Product {
  name: Text
  stock: Int
}

table Visit max 8 {
  note: Text
}

seed Product [
  { name: "Lamp", stock: 3 },
]

page Home {
  input #note note "A note to yourself"
  button #log "Log a visit" -> log_visit(note)
  for p in Product {
    link "{p.name}" -> ProductPage(p)
  }
}

page ProductPage(p: Product) {
  heading "{p.name}"
  input #qty qty: Int "Quantity"
  button #buy "Buy" -> buy(p, qty)
  link "Home" -> Home
}

marker log_visit(note: Text)
  writes Visit
{
  insert Visit { note: note }
}

marker buy(p: Product, qty: Int)
  writes Product.stock
  requires qty >= 1 and qty <= p.stock else "Choose a quantity in stock"
{
  set p.stock = p.stock - qty
}

task buy_two {
  say "Buy 2 lamps."
  values ["1", "2", "hello"]
  goal Product[1].stock == 1
}

task buy_five {
  say "Buy 5 lamps."
  values ["5", "hello"]
  horizon 6
  goal Product[1].stock == -2
}
"#;

#[test]
fn pruning_skips_idle_actions_without_changing_verdicts() {
    let compiled = wsitec::compile_str("idle.wsite", SHOP_WITH_IDLE_PARTS);
    let program = compiled
        .program
        .unwrap_or_else(|| panic!("{:#?}", compiled.diagnostics));
    for inst in env::instances(&program) {
        let pruned = prove::prove_instance(&program, &inst, Options::default()).unwrap();
        let full = prove::prove_instance(
            &program,
            &inst,
            Options {
                prune: false,
                ..Options::default()
            },
        )
        .unwrap();
        assert_eq!(pruned.verdict, full.verdict, "{}", inst.name);
        assert_eq!(pruned.witness.len(), full.witness.len(), "{}", inst.name);
        assert!(
            pruned.states * 2 < full.states,
            "{}: pruning kept {} of {} states",
            inst.name,
            pruned.states,
            full.states
        );
    }
}
