//! The decomposed reward (docs/training.md, "Decomposed reward"), every case
//! computed by hand on `tests/sites/reward_tiny.wsite`: `order_large` needs
//! four steps (Shop, type the name, select Large, Order), so d₀ = 4 and each
//! credited step earns β/4 = 0.125; `motto` needs two (About, answer), 0.25.
//! Then WebFactory's metrics gathered from a judged batch played by a script.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::batch::{BatchEnv, EpisodeRecord, ObsSpec};
use wsite_runtime::env::{self, Action, ActionKind, Env, RewardConfig, RewardMode, StepResult};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::Distance;

fn tiny() -> Program {
    let path = format!("{}/sites/reward_tiny.wsite", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    wsitec::compile_str(&path, &text).program.unwrap()
}

fn start<'p>(program: &'p Program, task: &str) -> Env<'p> {
    let inst = env::instances(program)
        .into_iter()
        .find(|i| i.name == task)
        .unwrap();
    Env::new(
        program,
        &inst,
        RewardConfig::with_mode(RewardMode::Decomposed),
    )
    .unwrap()
}

/// The element whose text is `text`.
fn at(env: &Env<'_>, text: &str) -> usize {
    env.elements()
        .iter()
        .find(|e| e.text == text)
        .unwrap_or_else(|| panic!("no “{text}”"))
        .index
}

fn act(
    env: &mut Env<'_>,
    kind: ActionKind,
    element: Option<&str>,
    text: Option<&str>,
) -> StepResult {
    let element = element.map(|t| at(env, t));
    env.step(&Action {
        kind,
        element,
        text: text.map(str::to_string),
    })
    .unwrap()
}

fn click(env: &mut Env<'_>, text: &str) -> StepResult {
    act(env, ActionKind::Click, Some(text), None)
}

fn typing(env: &mut Env<'_>, text: &str) -> StepResult {
    act(env, ActionKind::Type, Some("Name"), Some(text))
}

/// (reward, R_acc, new_best) of a step.
fn judged(r: StepResult) -> (f64, bool, bool) {
    let j = r.judgement.expect("a decomposed step is judged");
    assert!(!j.unknown);
    (r.reward, j.r_acc, j.new_best)
}

const CREDIT: f64 = 0.125;

#[test]
fn a_perfect_episode_earns_one_plus_beta() {
    let program = tiny();
    let mut env = start(&program, "order_large");
    assert_eq!(env.shortest().unwrap().distance, Distance::Steps(4));
    let mut total = 0.0;
    for r in [
        click(&mut env, "Shop"),
        typing(&mut env, "Maya Okafor"),
        act(&mut env, ActionKind::Select, Some("Size"), Some("Large")),
        click(&mut env, "Order"),
    ] {
        let (reward, acc, best) = judged(r);
        assert!(acc && best);
        total += reward;
    }
    assert!((total - 1.5).abs() < 1e-12, "{total}");
}

#[test]
fn optimal_and_suboptimal_clicks() {
    let program = tiny();
    let mut env = start(&program, "order_large");
    assert_eq!(judged(click(&mut env, "About")), (0.0, false, false));
    // From About, d = 5 (Home first): its one good click earns nothing new,
    // since d − 1 = 4 is not below d₀.
    assert_eq!(env.shortest().unwrap().distance, Distance::Steps(5));
    assert_eq!(judged(click(&mut env, "Home")), (0.0, true, false));
    assert_eq!(judged(click(&mut env, "Shop")), (CREDIT, true, true));
}

#[test]
fn a_wrong_kind_scores_zero() {
    let program = tiny();
    let mut env = start(&program, "order_large");
    click(&mut env, "Shop");
    // On the shop with an empty form only typing and selecting lead on.
    let kinds: Vec<ActionKind> = env
        .shortest()
        .unwrap()
        .optimal
        .iter()
        .map(|a| a.kind)
        .collect();
    assert_eq!(kinds, [ActionKind::Type, ActionKind::Select]);
    assert_eq!(judged(click(&mut env, "Home")), (0.0, false, false));
    // The refused order (no name yet) is a click too.
    click(&mut env, "Shop");
    let r = click(&mut env, "Order");
    assert_eq!(r.epsilon, 1);
    assert_eq!(judged(r), (0.0, false, false));
}

#[test]
fn typing_is_judged_by_token_f1_against_a_shortest_path() {
    let program = tiny();
    // "Maya Smith" against "Maya Okafor": precision = recall = 1/2, F1 = 0.5.
    let mut env = start(&program, "order_large");
    click(&mut env, "Shop");
    assert_eq!(judged(typing(&mut env, "Maya Smith")), (CREDIT, true, true));
    // The name is wrong, so typing the right one is a shortest step again,
    // but its distance was already credited.
    assert_eq!(judged(typing(&mut env, "Maya Okafor")), (0.0, true, false));
    // "Maya J Smith": precision 1/3, recall 1/2, F1 = 0.4.
    let mut env = start(&program, "order_large");
    click(&mut env, "Shop");
    assert_eq!(
        judged(typing(&mut env, "Maya J Smith")),
        (0.0, false, false)
    );
    // Another element of the right kind is no better.
    let r = act(&mut env, ActionKind::Select, Some("Size"), Some("Small"));
    assert_eq!(judged(r), (0.0, false, false));
}

#[test]
fn answers_are_judged_by_the_answer_rule() {
    let program = tiny();
    let mut env = start(&program, "motto");
    assert_eq!(judged(click(&mut env, "About")), (0.25, true, true));
    let r = act(&mut env, ActionKind::Answer, None, Some("blue harbor"));
    assert!(r.success);
    assert_eq!(judged(r), (1.25, true, true));
    assert_eq!(r.judgement.unwrap().answer_f1, Some(1.0));
    let mut env = start(&program, "motto");
    click(&mut env, "About");
    let r = act(&mut env, ActionKind::Answer, None, Some("Red Harbor Inn"));
    assert!(!r.success && r.done);
    assert_eq!(judged(r), (0.0, false, false));
    // One shared token of three against two: F1 = 2·(1/3)(1/2)/(5/6) = 0.4.
    assert!((r.judgement.unwrap().answer_f1.unwrap() - 0.4).abs() < 1e-12);
}

#[test]
fn going_back_and_forth_earns_a_distance_once() {
    let program = tiny();
    let mut env = start(&program, "order_large");
    let mut total = 0.0;
    for _ in 0..3 {
        total += click(&mut env, "Shop").reward;
        total += click(&mut env, "Home").reward;
    }
    assert!((total - CREDIT).abs() < 1e-12, "{total}");
}

#[test]
fn other_modes_are_unjudged_unless_asked() {
    let program = tiny();
    let inst = env::instances(&program).remove(0);
    let mut dense = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    assert!(click(&mut dense, "Shop").judgement.is_none());
    let mut judged_dense = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    judged_dense.set_oracle(Some(wsite_runtime::prove::DistanceOracle::shared(1000)));
    let r = click(&mut judged_dense, "Shop");
    // Judged, but the dense reward is paid: −η only (no progress predicates).
    assert!(r.judgement.unwrap().r_acc);
    assert!((r.reward + 0.01).abs() < 1e-12);
}

#[test]
fn a_budget_too_small_is_unknown_never_a_guess() {
    let program = tiny();
    let inst = env::instances(&program).remove(0);
    let config = RewardConfig {
        oracle_budget: 2,
        ..RewardConfig::with_mode(RewardMode::Decomposed)
    };
    let mut env = Env::new(&program, &inst, config).unwrap();
    let r = click(&mut env, "Shop");
    let j = r.judgement.unwrap();
    assert!(j.unknown && !j.r_acc && !j.new_best);
    assert_eq!(r.reward, 0.0);
}

/// A scripted step: the element's text (`answer` for an answer) and the text.
type Scripted = (&'static str, Option<&'static str>);

/// WebFactory's metrics of a scripted policy on a judged batch: the script
/// plays order_large with one detour (6 steps, 5 accurate), and motto once
/// right and once with a wrong candidate answer.
#[test]
fn eval_metrics_of_a_scripted_policy() {
    let program = tiny();
    let script: [(&str, &[Scripted]); 3] = [
        (
            "order_large",
            &[
                ("About", None),
                ("Home", None),
                ("Shop", None),
                ("Name", Some("Maya Okafor")),
                ("Size", Some("Large")),
                ("Order", None),
            ],
        ),
        ("motto", &[("About", None), ("answer", Some("Blue Harbor"))]),
        ("motto", &[("About", None), ("answer", Some("Home"))]),
    ];
    let mut tally = wsite_runtime::batch::Tally::default();
    for (task, steps) in script {
        let inst = env::instances(&program)
            .into_iter()
            .find(|i| i.name == task)
            .unwrap();
        let retrieval = program.tasks[inst.task].answer.is_some();
        let mut batch = BatchEnv::new(
            &program,
            vec![inst],
            1,
            ObsSpec::default(),
            RewardConfig::default(),
            0,
            1,
        )
        .unwrap();
        batch.judge_steps();
        let mut record = EpisodeRecord::new(retrieval);
        for (target, text) in steps.iter().copied() {
            let env = batch.env(0).unwrap();
            let row = env
                .actions()
                .iter()
                .position(|a| {
                    let on = a.element.map(|i| env.elements()[i - 1].text.as_str());
                    (on == Some(target) || (target == "answer" && a.kind == ActionKind::Answer))
                        && (text.is_none() || a.text.as_deref() == text)
                })
                .unwrap_or_else(|| panic!("no action {target} {text:?}"));
            batch.step(&[row as u32]).unwrap();
            record.note(batch.buffers(), 0);
        }
        tally = tally.plus(&record.tally());
    }
    assert_eq!(tally.operation_tcr(), Some(1.0));
    // About is the one inaccurate step of six.
    assert_eq!((tally.accurate_steps, tally.operation_steps), (5, 6));
    assert_eq!(tally.retrieval_tcr(), Some(0.5));
    // F1 1 for the right answer, 0 for "Home".
    assert_eq!(tally.answer_f1(), Some(0.5));
}

/// A decomposed batch shares one oracle per instance between its rows and
/// asks it in row order before stepping on threads: rewards and judgements
/// are the same bytes with one thread or two, and with a budget small
/// enough that some states are unknown (the memo's contents then matter).
#[test]
fn judged_batches_do_not_depend_on_threads() {
    let site = wsitec::gen::generate("ecommerce", 77, 1).unwrap().remove(0);
    let program = wsitec::compile_str(&site.file_name, &site.text)
        .program
        .expect("a corpus site compiles");
    for budget in [200_000, 40] {
        let config = RewardConfig {
            oracle_budget: budget,
            ..RewardConfig::with_mode(RewardMode::Decomposed)
        };
        let play = |threads: usize| {
            let instances = env::instances(&program);
            let mut batch = BatchEnv::new(
                &program,
                instances,
                8,
                ObsSpec::default(),
                config,
                5,
                threads,
            )
            .unwrap();
            let mut rng = 0x2545_f491_4f6c_dd1du64;
            let mut seen = Vec::new();
            for _ in 0..60 {
                let actions: Vec<u32> = batch
                    .buffers()
                    .action_count
                    .iter()
                    .map(|&n| {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        (rng % u64::from(n.max(1))) as u32
                    })
                    .collect();
                batch.step(&actions).unwrap();
                let b = batch.buffers();
                seen.push((b.reward.clone(), b.r_acc.clone()));
            }
            seen
        };
        let one = play(1);
        assert_eq!(one, play(2), "budget {budget}");
        assert!(
            one.iter().any(|(_, r)| r.contains(&1)),
            "some step is accurate"
        );
    }
}
