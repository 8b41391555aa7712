//! The infeasible-task benchmark (`tests/sites/infeasible/`): realistic sites
//! whose tasks named `never_*` cannot be completed and whose other tasks can.
//! Every verdict is asserted with a budget a debug build affords: the
//! infeasible ones must be decided (F401), not left undecided (F406), which
//! for most of them takes the static bound (`prove::bounds`). Small sites
//! here also pin what the bound must leave to the search: rows inserted
//! after the start and changed later, and a loop that changes one location
//! several times in a single step.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{self, Env, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{bounds, Engine, JitProver, Options, Verdict};

/// Enough for every feasible task here; far too few to exhaust the
/// infeasible ones' spaces.
const BUDGET: usize = 20_000;

fn compile(name: &str, text: &str) -> Program {
    wsitec::compile_str(name, text)
        .program
        .unwrap_or_else(|| panic!("{name} does not compile"))
}

fn site(file: &str) -> Program {
    let path = wsite_tests::repo_root()
        .join("tests/sites/infeasible")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("readable benchmark site");
    compile(&path.display().to_string(), &text)
}

/// Each instance's name, verdict and deciding engine.
fn verdicts(program: &Program) -> Vec<(String, Verdict, Engine)> {
    let jit = JitProver::new(program).expect("the benchmark sites compile for the JIT");
    let options = Options {
        budget: BUDGET,
        ..Options::default()
    };
    env::instances(program)
        .iter()
        .map(|inst| {
            let proof = jit.prove(inst, options).unwrap();
            (inst.name.clone(), proof.verdict, proof.engine)
        })
        .collect()
}

fn check_site(file: &str) {
    let program = site(file);
    for (name, verdict, engine) in verdicts(&program) {
        let expected = if name.starts_with("never_") {
            Verdict::Infeasible
        } else {
            Verdict::Feasible
        };
        assert_eq!(verdict, expected, "{file} {name} ({engine:?})");
    }
}

#[test]
fn library_tasks_are_decided() {
    check_site("library.wsite");
}

#[test]
fn travel_tasks_are_decided() {
    check_site("travel.wsite");
}

#[test]
fn forum_tasks_are_decided() {
    check_site("forum.wsite");
}

/// The bound on its own: which conjuncts of each instance it rules out.
fn bound_of(program: &Program, task: &str) -> Option<bounds::Bound> {
    let inst = env::instances(program)
        .into_iter()
        .find(|i| i.name == task)
        .unwrap();
    let env = Env::new(program, &inst, RewardConfig::default()).unwrap();
    let horizon = program.tasks[inst.task].horizon;
    bounds::bound(program, &env, horizon)
}

#[test]
fn the_bound_names_the_conjunct_it_rules_out() {
    let program = site("library.wsite");
    let b = bound_of(&program, "never_renew_three_times").unwrap();
    assert_eq!(b.impossible, vec![0]);
    assert_eq!(bound_of(&program, "renew_twice"), None);
    // A counter that one click raises by one: 50 more likes need 50 steps.
    let forum = site("forum.wsite");
    let likes = bound_of(&forum, "never_fifty_likes").unwrap();
    assert!(!likes.any_horizon);
    assert_eq!(bound_of(&forum, "lock_hiking"), None);
}

const HEAD: &str = r#"
site S { title "S" domain other start Home }
table Item max 8 { name: Text  done: Bool }
seed Item [ { id: 1, name: "a", done: false }, { name: "b", done: false } ]
session { n: Int = 0 }
"#;

fn prove_all(body: &str) -> Vec<(String, Verdict, Engine)> {
    let program = compile("inline.wsite", &format!("{HEAD}{body}"));
    verdicts(&program)
}

#[test]
fn a_row_inserted_later_and_changed_after_is_left_to_the_search() {
    let found = prove_all(
        r#"
page Home {
  button #add "Add" -> add()
  for i in Item { button #done "Done" -> finish(i) }
}
marker add() writes Item { insert Item { name: "c", done: false } }
marker finish(i: Item) writes Item.done { set i.done = true }
task new_done { say "Finish a new item." goal exists i in Item: i.name == "c" and i.done }
task never_new_named_d { say "Add d." goal exists i in Item: i.name == "d" }
"#,
    );
    assert_eq!(found[0].1, Verdict::Feasible, "{found:?}");
    assert_eq!(found[1].1, Verdict::Infeasible, "{found:?}");
    assert_eq!(found[1].2, Engine::Bound, "{found:?}");
}

#[test]
fn a_loop_that_changes_one_location_per_row_is_not_bounded_by_one_change_per_step() {
    let found = prove_all(
        r#"
page Home { button #count "Count" -> count_all() }
marker count_all() reads session.n writes session.n {
  for i in Item { set session.n = session.n + 1 }
}
task two_in_one { say "Count." horizon 1 goal session.n == 2 }
task never_three_in_one { say "Count." horizon 1 goal session.n == 3 }
"#,
    );
    assert_eq!(found[0].1, Verdict::Feasible, "{found:?}");
    assert_eq!(found[1].1, Verdict::Infeasible, "{found:?}");
}

/// The bound runs only the markers in the goal's cone; a marker that matters
/// through what its buttons pass (`copy(session.from)`) or through the rows
/// its row parameter can be (`pick(t)`, rows that only `add` creates) must
/// be in it, or the bound would rule out goals a search reaches.
#[test]
fn markers_that_matter_through_arguments_or_rows_are_in_the_bound_s_cone() {
    let program = compile(
        "cone.wsite",
        r#"
site S { title "S" domain other start Home }
table Tag max 4 { name: Text }
session { picked: Tag? = none  n: Int = 0  from: Int = 0 }
page Home {
  button #add "Add" -> add()
  for t in Tag { button #pick "Pick" -> pick(t) }
  button #raise "Raise" -> raise()
  button #copy "Copy" -> copy(session.from)
}
marker add() writes Tag { insert Tag { name: "new" } }
marker pick(t: Tag) writes session.picked { set session.picked = t }
marker raise() reads session.from writes session.from { set session.from = session.from + 1 }
marker copy(v: Int) writes session.n { set session.n = v }
task pick_one { say "Pick a tag." goal session.picked != none }
task copy_two { say "Copy two." goal session.n == 2 }
"#,
    );
    for task in ["pick_one", "copy_two"] {
        assert_eq!(bound_of(&program, task), None, "{task}");
    }
    let found = verdicts(&program);
    assert!(
        found.iter().all(|(_, v, _)| *v == Verdict::Feasible),
        "{found:?}"
    );
}
