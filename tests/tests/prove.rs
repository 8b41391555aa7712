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

/// A library whose tasks name the loan their `setup` inserts (spec §3, 1.1):
/// the seed's highest `Loan` id is 6, so the inserted loan is `Loan[7]`, also
/// after `setup` deletes `Loan[6]` first (ids are never reused).
const LIBRARY_WITH_SETUP_ROWS: &str = r#"site Library {
  title "Northfield Library"
  domain education
  start Home
}
table Book { title: Text }
table Loan { book: Book  renewals: Int }
seed Book [ { title: "Dune" }, { title: "Emma" } ]
seed Loan [ { id: 6, book: Book[1], renewals: 0 } ]
page Home {
  heading "Your loans"
  for l in Loan {
    link "{l.book.title}" -> LoanPage(l)
  }
}
page LoanPage(l: Loan) {
  heading "{l.book.title}"
  text "Renewed {l.renewals} times"
  button #renew "Renew" -> renew(l)
  link "Back" -> Home
}
marker renew(l: Loan)
  writes Loan.renewals
  requires l.renewals < 2 else "No more renewals"
{
  set l.renewals = l.renewals + 1
}
task renew_new_loan {
  say "Renew your loan of {Loan[7].book.title}."
  start LoanPage(Loan[7])
  setup {
    delete Loan[6]
    insert Loan { book: Book[2], renewals: 0 }
  }
  goal Loan[7].renewals == 1
  progress { 1: page is LoanPage(Loan[7]) }
  key [LoanPage(Loan[7]), #renew]
}
task renew_from_home {
  say "Renew the loan of Emma."
  setup { insert Loan { book: Book[2], renewals: 1 } }
  goal Loan[7].renewals == 2
}
"#;

#[test]
fn tasks_naming_rows_their_setup_inserts_are_proven_and_replay() {
    let options = wsitec::Options {
        prove: Some(Options::default()),
        ..wsitec::Options::default()
    };
    let compiled = wsitec::compile_str_with("library.wsite", LIBRARY_WITH_SETUP_ROWS, options);
    assert!(
        compiled.diagnostics.is_empty(),
        "{:#?}",
        compiled.diagnostics
    );
    let program = compiled.program.as_ref().unwrap();
    assert_eq!(compiled.proven_instances().len(), 2);
    let jit = prove::JitProver::new(program).unwrap();
    for inst in env::instances(program) {
        let proof = prove::prove_instance(program, &inst, Options::default()).unwrap();
        assert_eq!(proof.verdict, Verdict::Feasible, "{}", inst.name);
        assert!(!proof.initially_true, "{}", inst.name);
        assert_eq!(prove::replay(program, &inst, &proof.witness), Ok(true));
        let flat = jit.prove(&inst, Options::default()).unwrap();
        assert_eq!(flat.witness, proof.witness, "{}", inst.name);
    }
    // The reset state is the one after `setup`: the episode opens on the new
    // loan's page, and the instruction names its book.
    let first = &env::instances(program)[0];
    let env = env::Env::new(program, first, env::RewardConfig::default()).unwrap();
    let observation = env.observation();
    assert_eq!(observation.instruction, "Renew your loan of Emma.");
    assert_eq!(observation.url, "/loan_page/7");
    // From the site's start page, the new loan is one more link to follow.
    let from_home = prove::prove_instance(program, &env::instances(program)[1], Options::default());
    assert_eq!(from_home.unwrap().witness.len(), 2);
}

/// A typed list select over an enum's variants: its options are the variants
/// as written, and the prover selects one and hands it to a marker.
const SHOP_WITH_ENUM_SELECT: &str = r#"site Shop { title "Shop" domain ecommerce start Home }
enum Size { small, medium, large }
table Item { name: Text  size: Size }
seed Item [ { name: "Pen", size: small } ]
page Home {
  text "The pen is {Item[1].size}"
  select #size t: Size "Size" [small, medium, large]
  button #resize "Resize" -> resize(Item[1], t)
}
marker resize(i: Item, s: Size) writes Item.size { set i.size = s }
task make_it_large { say "Make the pen large." goal Item[1].size == large }
"#;

#[test]
fn a_select_over_enum_variants_offers_each_and_is_proven() {
    let compiled = wsitec::compile_str("sizes.wsite", SHOP_WITH_ENUM_SELECT);
    let program = compiled
        .program
        .unwrap_or_else(|| panic!("{:#?}", compiled.diagnostics));
    let inst = &env::instances(&program)[0];
    let env = env::Env::new(&program, inst, env::RewardConfig::default()).unwrap();
    let select = env
        .observation()
        .elements
        .into_iter()
        .find(|e| e.key == "#size")
        .unwrap();
    assert_eq!(select.options, vec!["small", "medium", "large"]);
    let proof = prove::prove_instance(&program, inst, Options::default()).unwrap();
    assert_eq!(proof.verdict, Verdict::Feasible);
    assert_eq!(proof.witness.len(), 2);
    assert_eq!(prove::replay(&program, inst, &proof.witness), Ok(true));
}
