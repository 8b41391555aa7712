//! The three trajectory filters (`wsite_runtime::replay`) on
//! `tests/sites/cafes.wsite`: every prover witness is accepted whichever way
//! its actions are named (stable key, candidate index, element index), and
//! each planted bad episode is caught by exactly the filter meant to catch
//! it — an illegal step by state replay (at that step, with its reason), a
//! successful detour around the key nodes by coverage, a wrong answer by the
//! answer check.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{self, Action, ActionKind, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Options, Verdict, WitnessStep};
use wsite_runtime::replay::{
    judge, EpisodeReport, KeyNodeSource, Recorder, StepAction, Thresholds, Trajectory,
};

fn program() -> Program {
    let path = wsite_tests::repo_root().join("tests/sites/cafes.wsite");
    let text = std::fs::read_to_string(&path).unwrap();
    let compiled = wsitec::compile_str(&path.display().to_string(), &text);
    assert!(
        compiled.diagnostics.is_empty(),
        "{:?}",
        compiled.diagnostics
    );
    compiled.program.expect("the site lowers")
}

fn instance(program: &Program, name: &str) -> TaskInstance {
    env::instances(program)
        .into_iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no instance {name}"))
}

fn witness(program: &Program, instance: &TaskInstance) -> Vec<WitnessStep> {
    let proof = prove::prove_instance(program, instance, Options::default()).unwrap();
    assert_eq!(proof.verdict, Verdict::Feasible, "{}", instance.name);
    proof.witness
}

fn keyed(kind: ActionKind, key: &str) -> StepAction {
    StepAction::Keyed(WitnessStep {
        kind,
        key: Some(key.into()),
        text: None,
    })
}

fn click(key: &str) -> StepAction {
    keyed(ActionKind::Click, key)
}

fn answer(text: &str) -> StepAction {
    StepAction::Element(Action {
        kind: ActionKind::Answer,
        element: None,
        text: Some(text.into()),
    })
}

fn judged(program: &Program, task: &str, steps: &[StepAction]) -> EpisodeReport {
    let instance = instance(program, task);
    judge(
        program,
        &instance,
        steps,
        KeyNodeSource::Declared,
        Thresholds::default(),
    )
    .unwrap()
}

/// Which filters failed: (replay, coverage, answer).
fn failed(r: &EpisodeReport) -> (bool, bool, bool) {
    (!r.replay_ok, !r.coverage_ok, !r.answer_ok)
}

/// The witness with every step named as `name` names it, played on a fresh
/// environment (each name is only meaningful in the state it is taken in).
fn renamed(
    program: &Program,
    instance: &TaskInstance,
    witness: &[WitnessStep],
    name: impl Fn(&Env<'_>, Action) -> StepAction,
) -> Vec<StepAction> {
    let mut env = Env::new(program, instance, RewardConfig::default()).unwrap();
    let mut out = Vec::new();
    for step in witness {
        let action = prove::resolve_step(&env, step).unwrap();
        out.push(name(&env, action.clone()));
        env.step(&action).unwrap();
    }
    out
}

#[test]
fn every_witness_is_accepted_by_key_by_candidate_index_and_by_element() {
    let program = program();
    for instance in env::instances(&program) {
        let witness = witness(&program, &instance);
        let by_key: Vec<StepAction> = witness.iter().cloned().map(StepAction::Keyed).collect();
        let by_index = renamed(&program, &instance, &witness, |env, a| {
            StepAction::Index(env.actions().iter().position(|c| *c == a).unwrap())
        });
        let by_element = renamed(&program, &instance, &witness, |_, a| StepAction::Element(a));
        for steps in [by_key, by_index, by_element] {
            let r = judge(
                &program,
                &instance,
                &steps,
                KeyNodeSource::Declared,
                Thresholds::default(),
            )
            .unwrap();
            assert!(r.accepted, "{}: {steps:?} → {r:?}", instance.name);
            assert_eq!(r.steps, witness.len());
            assert_eq!(r.key_node_coverage, 1.0);
        }
    }
}

#[test]
fn an_illegal_step_fails_replay_alone_at_that_step() {
    let program = program();
    let unknown = judged(
        &program,
        "star_bean",
        &[click("#shortcut"), click("#nope"), click("#star")],
    );
    assert_eq!(failed(&unknown), (true, false, false), "{unknown:?}");
    assert_eq!(unknown.failed_step, Some(2));
    let why = unknown.why.unwrap_or_default();
    assert!(
        why.contains("unknown key") && why.contains("#nope") && why.contains("/cafe_page/2"),
        "{why}"
    );
    // The heading is element 1 of the cafe page: nothing to click.
    let inert = StepAction::Element(Action {
        kind: ActionKind::Click,
        element: Some(1),
        text: None,
    });
    let r = judged(
        &program,
        "star_bean",
        &[click("#shortcut"), inert, click("#star")],
    );
    assert_eq!((failed(&r), r.failed_step), ((true, false, false), Some(2)));
    assert!(r
        .why
        .unwrap_or_default()
        .starts_with("not a candidate on /cafe_page/2"));
    let r = judged(&program, "star_bean", &[StepAction::Index(99)]);
    assert_eq!(r.failed_step, Some(1));
    assert!(r.why.unwrap_or_default().contains("no candidate action 99"));
}

#[test]
fn a_step_after_the_end_fails_replay() {
    let program = program();
    let r = judged(
        &program,
        "star_bean",
        &[click("#shortcut"), click("#star"), click("#home")],
    );
    assert_eq!(failed(&r), (true, false, false), "{r:?}");
    assert_eq!(r.failed_step, Some(3));
    assert!(r
        .why
        .unwrap_or_default()
        .contains("ended at step 2 with success"));
}

#[test]
fn a_successful_detour_misses_the_key_nodes_and_only_coverage_fails() {
    let program = program();
    let r = judged(
        &program,
        "star_bean",
        &[
            click("#browse"),
            click("#to_list"),
            click("#quick_star[c=2]"),
        ],
    );
    assert!(r.success);
    assert_eq!(failed(&r), (false, true, false), "{r:?}");
    assert_eq!(r.key_node_coverage, 0.0);
    assert_eq!(r.missing_key_nodes, vec!["CafePage(2)", "#star"]);
    // Half the way: the page is passed, the button is not.
    let r = judged(
        &program,
        "star_bean",
        &[
            click("#shortcut"),
            click("#home"),
            click("#browse"),
            click("#to_list"),
            click("#quick_star[c=2]"),
        ],
    );
    assert_eq!(
        (r.key_node_coverage, r.missing_key_nodes),
        (0.5, vec!["#star".to_string()])
    );
    let lenient = judge(
        &program,
        &instance(&program, "star_bean"),
        &[
            click("#shortcut"),
            click("#home"),
            click("#browse"),
            click("#to_list"),
            click("#quick_star[c=2]"),
        ],
        KeyNodeSource::Declared,
        Thresholds { min_coverage: 0.5 },
    )
    .unwrap();
    assert!(lenient.accepted, "{lenient:?}");
}

#[test]
fn a_wrong_answer_fails_the_answer_check_alone() {
    let program = program();
    let wrong = judged(
        &program,
        "bean_opens",
        &[click("#shortcut"), answer("9:15")],
    );
    assert_eq!(failed(&wrong), (false, false, true), "{wrong:?}");
    assert_eq!(wrong.answer.as_deref(), Some("9:15"));
    // §5.3 reads times leniently: 8 am is 08:00.
    let right = judged(
        &program,
        "bean_opens",
        &[click("#shortcut"), answer("8 am")],
    );
    assert!(right.accepted, "{right:?}");
    // An operation episode that stops short fails the same filter.
    let short = judged(&program, "star_bean", &[click("#shortcut")]);
    assert_eq!(failed(&short), (false, true, true), "{short:?}");
}

#[test]
fn a_rejected_marker_step_is_legal_and_counted() {
    let program = program();
    // Slow Drip is starred already: its star is refused (ε = 1).
    let r = judged(
        &program,
        "star_cafe[c=1]",
        &[
            click("#browse"),
            click("#to_list"),
            click("#quick_star[c=3]"),
            click("#quick_star[c=1]"),
        ],
    );
    assert!(r.accepted, "{r:?}");
    assert_eq!(r.rejected_steps, 1);
}

#[test]
fn listed_key_nodes_replace_the_declared_ones() {
    let program = program();
    let detour = [
        click("#browse"),
        click("#to_list"),
        click("#quick_star[c=2]"),
    ];
    let listed = |nodes: &[&str]| {
        let nodes: Vec<String> = nodes.iter().map(|n| n.to_string()).collect();
        judge(
            &program,
            &instance(&program, "star_bean"),
            &detour,
            KeyNodeSource::Listed(&nodes),
            Thresholds::default(),
        )
        .unwrap()
    };
    let passed = listed(&[
        "Home",
        "Browse()",
        "CafeList",
        "quick_star",
        "#quick_star[c=2]",
    ]);
    assert!(passed.accepted, "{passed:?}");
    let missed = listed(&[
        "CafePage",
        "CafePage(Cafe[2])",
        "quick_star[c=1]",
        "Nowhere(1)",
    ]);
    assert_eq!(
        missed.missing_key_nodes,
        vec![
            "CafePage",
            "CafePage(Cafe[2])",
            "quick_star[c=1]",
            "Nowhere(1)"
        ]
    );
    let none = listed(&[]);
    assert_eq!(none.key_node_coverage, 1.0);
}

#[test]
fn a_recorded_episode_replays_as_played() {
    let program = program();
    let instance = instance(&program, "bean_opens");
    let mut env = Env::new(&program, &instance, RewardConfig::default()).unwrap();
    let mut recorder = Recorder::new(&program.site.name);
    assert_eq!(recorder.start(&instance.name, Some(3)), None);
    for step in witness(&program, &instance) {
        let action = prove::resolve_step(&env, &step).unwrap();
        recorder.push(Recorder::keyed(&env, &action));
        env.step(&action).unwrap();
    }
    let recorded = recorder.finish().expect("an episode with steps");
    let line = recorded.to_json().to_string();
    let read = Trajectory::parse(&line).unwrap();
    assert_eq!((read.site.as_str(), read.seed), ("Cafes", Some(3)));
    let r = judged(&program, &read.task, &read.steps);
    assert!(r.accepted, "{line} → {r:?}");
    // A reset before any step records nothing.
    recorder.start("star_bean", None);
    assert_eq!(recorder.finish(), None);
}
