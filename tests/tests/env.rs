//! The environment (§5) on the real example sites: every task instance resets,
//! scripted episodes earn exactly the reward the formula gives, and random play
//! never panics, keeps rejected steps side-effect free, keeps every invariant
//! and is deterministic.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{
    self, Action, ActionKind, Env, RewardConfig, RewardMode, StepResult, TaskInstance,
};
use wsite_runtime::interp::eval::{eval_bool, Context};
use wsite_runtime::ir::{Program, Value};
use wsite_tests::Lcg;

/// Every example's lowered program, with its file name.
fn programs() -> Vec<(String, Program)> {
    wsite_tests::example_programs()
}

fn trailhead() -> Program {
    programs()
        .into_iter()
        .find(|(n, _)| n.ends_with("trailhead.wsite"))
        .expect("the ecommerce example")
        .1
}

fn instance(program: &Program, name: &str) -> TaskInstance {
    env::instances(program)
        .into_iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no task instance {name}"))
}

/// The observation index of the element with this key.
fn by_key(env: &Env<'_>, key: &str) -> usize {
    let obs = env.observation();
    obs.elements
        .iter()
        .find(|e| e.key == key)
        .unwrap_or_else(|| panic!("no element {key} in\n{}", obs.axtree))
        .index
}

/// The observation index of the first element whose text starts with `text`.
fn by_text(env: &Env<'_>, text: &str) -> usize {
    let obs = env.observation();
    obs.elements
        .iter()
        .find(|e| e.text.starts_with(text))
        .unwrap_or_else(|| panic!("no element “{text}” in\n{}", obs.axtree))
        .index
}

fn click(at: usize) -> Action {
    Action {
        kind: ActionKind::Click,
        element: Some(at),
        text: None,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn invariants_hold(program: &Program, env: &Env<'_>) -> Result<(), String> {
    let world = env.world();
    let ctx = Context {
        program,
        db: &world.db,
        session: &world.session,
        nav: None,
    };
    for inv in &program.invariants {
        let mut frame = vec![Value::None; inv.frame as usize];
        if eval_bool(&ctx, &mut frame, &inv.cond) != Ok(true) {
            return Err(format!("invariant {} broken", inv.name));
        }
    }
    Ok(())
}

#[test]
fn every_instance_of_every_example_resets() {
    for (name, program) in programs() {
        let instances = env::instances(&program);
        assert!(
            instances.len() >= program.tasks.len(),
            "{name}: a template has no instance"
        );
        for inst in &instances {
            let env = Env::new(&program, inst, RewardConfig::default())
                .unwrap_or_else(|e| panic!("{name} {}: {e}", inst.name));
            let obs = env.observation();
            assert!(!obs.elements.is_empty(), "{name} {}: empty page", inst.name);
            assert!(
                !env.actions().is_empty(),
                "{name} {}: no actions",
                inst.name
            );
            assert!(!obs.instruction.is_empty(), "{name} {}", inst.name);
            assert!(
                obs.url.starts_with('/'),
                "{name} {}: url {}",
                inst.name,
                obs.url
            );
            assert!(obs.alert.is_none());
            // Indices are 1-based, in order; keys are unique.
            let mut keys = std::collections::BTreeSet::new();
            for (i, e) in obs.elements.iter().enumerate() {
                assert_eq!(e.index, i + 1);
                assert!(
                    keys.insert(e.key.clone()),
                    "{name}: duplicate key {}",
                    e.key
                );
            }
            assert_eq!(obs.axtree.lines().count(), obs.elements.len());
            invariants_hold(&program, &env).unwrap();
        }
    }
}

#[test]
fn template_instances_are_named_by_their_row() {
    let program = trailhead();
    let names: Vec<String> = env::instances(&program)
        .into_iter()
        .map(|i| i.name)
        .collect();
    assert!(names.contains(&"cancel_unshipped_order".to_string()));
    // Products 1, 2, 4, 5, 6 are the first five in stock.
    for id in [1, 2, 4, 5, 6] {
        assert!(names.contains(&format!("price_check[p={id}]")), "{names:?}");
    }
    assert!(!names.contains(&"price_check[p=3]".to_string()));
}

#[test]
fn the_start_page_renders_as_specified() {
    let program = trailhead();
    let env = Env::new(
        &program,
        &instance(&program, "buy_two_headlamps"),
        RewardConfig::default(),
    )
    .unwrap();
    let obs = env.observation();
    assert_eq!(obs.url, "/");
    assert_eq!(obs.title, "Trailhead Supply Co. – Outdoor gear");
    assert!(
        obs.axtree
            .starts_with("[1] heading \"Trailhead Supply Co.\""),
        "{}",
        obs.axtree
    );
    assert!(
        obs.axtree
            .contains("input \"Search gear by name or brand\" value=\"\""),
        "{}",
        obs.axtree
    );
    // Typeable values: `values ["2"]` only (no interpolation, no quotes).
    assert_eq!(env.typeable_values(), ["2"]);
    let search = by_key(&env, "#search");
    let typed: Vec<&Action> = env
        .actions()
        .iter()
        .filter(|a| a.element == Some(search))
        .collect();
    assert_eq!(typed.len(), 2);
    assert_eq!(typed[0].text.as_deref(), Some("2"));
    assert_eq!(typed[1].text.as_deref(), Some(""));
    // Loop elements carry their row in the key.
    assert!(
        obs.elements.iter().any(|e| e.key.ends_with("[c=4]")),
        "{}",
        obs.axtree
    );
}

#[test]
fn cancelling_an_order_earns_the_formula_reward() {
    let program = trailhead();
    let inst = instance(&program, "cancel_unshipped_order");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    let r1 = env.step(&click(by_key(&env, "#orders_link"))).unwrap();
    assert_eq!(env.observation().url, "/orders");
    // `visited Orders` is 1 of 3 weight.
    assert!(close(r1.reward, 0.5 * (1.0 / 3.0) - 0.01), "{r1:?}");
    assert!(!r1.done && !r1.success && r1.epsilon == 0);
    let r2 = env.step(&click(by_text(&env, "Order #4 "))).unwrap();
    assert_eq!(env.observation().url, "/orders/4");
    assert!(close(r2.reward, 0.5 * (2.0 / 3.0) - 0.01), "{r2:?}");
    assert!(close(r2.progress, 1.0));
    let r3 = env.step(&click(by_key(&env, "#cancel_order"))).unwrap();
    assert_eq!(
        r3,
        StepResult {
            reward: 1.0 - 0.01,
            done: true,
            success: true,
            epsilon: 0,
            progress: 1.0,
            judgement: None,
        }
    );
    assert!(env.actions().is_empty());
    assert!(env.step(&click(1)).is_err());
    // Terminal mode pays only success.
    let terminal = RewardConfig::with_mode(RewardMode::Terminal);
    let mut env = Env::new(&program, &inst, terminal).unwrap();
    assert_eq!(
        env.step(&click(by_key(&env, "#orders_link")))
            .unwrap()
            .reward,
        0.0
    );
}

#[test]
fn rejected_steps_cost_epsilon_and_change_nothing() {
    let program = trailhead();
    let inst = instance(&program, "checkout_with_coupon");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    assert_eq!(env.typeable_values(), ["TRAIL15"]);
    env.step(&click(by_key(&env, "#cart_link"))).unwrap();
    let before = env.observation();
    let r = env.step(&click(by_key(&env, "#apply_coupon"))).unwrap();
    assert_eq!(r.epsilon, 1);
    assert!(close(r.reward, -0.2 - 0.01), "{r:?}");
    let after = env.observation();
    assert_eq!(after.alert.as_deref(), Some("Enter a coupon code"));
    assert_eq!(after.elements, before.elements);
    // Typing is a form change; the value shows and survives a marker step
    // without `go`.
    let code = by_key(&env, "#coupon_code");
    let typed = Action {
        kind: ActionKind::Type,
        element: Some(code),
        text: Some("TRAIL15".into()),
    };
    let r = env.step(&typed).unwrap();
    assert_eq!(r.epsilon, 0);
    assert!(env.observation().alert.is_none(), "a step clears the alert");
    assert_eq!(
        env.observation().elements[code - 1].value.as_deref(),
        Some("TRAIL15")
    );
    let r = env.step(&click(by_key(&env, "#apply_coupon"))).unwrap();
    // session.coupon == Coupon[1] is 2 of 3 weight.
    assert!(close(r.reward, 0.5 * (2.0 / 3.0) - 0.01), "{r:?}");
    // The coupon's text now shows above the input, which moves down one.
    let obs = env.observation();
    let code = by_key(&env, "#coupon_code");
    assert_eq!(obs.elements[code - 1].value.as_deref(), Some("TRAIL15"));
    assert!(obs
        .elements
        .iter()
        .any(|e| e.text.starts_with("Coupon TRAIL15 applied")));
    // An action that is not on the page is an error and changes nothing.
    let steps = env.steps();
    let bad = Action {
        kind: ActionKind::Select,
        element: Some(code),
        text: Some("x".into()),
    };
    assert!(env.step(&bad).is_err());
    assert!(env.step(&click(9999)).is_err());
    assert_eq!(env.steps(), steps);
    assert_eq!(env.observation(), obs);
}

#[test]
fn typing_text_of_the_wrong_type_is_rejected() {
    let program = trailhead();
    let inst = instance(&program, "buy_two_headlamps");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    env.step(&click(by_text(&env, "Lighting"))).unwrap();
    env.step(&click(by_text(&env, "Petzl Actik Core"))).unwrap();
    let qty = by_key(&env, "#qty");
    let bad = Action {
        kind: ActionKind::Type,
        element: Some(qty),
        text: Some("two".into()),
    };
    let r = env.step(&bad).unwrap();
    assert_eq!(r.epsilon, 1);
    assert!(env.observation().alert.unwrap_or_default().contains("two"));
    assert_eq!(
        env.observation().elements[qty - 1].value.as_deref(),
        Some("0")
    );
    let good = Action {
        kind: ActionKind::Type,
        element: Some(qty),
        text: Some("2".into()),
    };
    env.step(&good).unwrap();
    assert_eq!(
        env.observation().elements[qty - 1].value.as_deref(),
        Some("2")
    );
    // Adding to the cart goes to the cart: form values reset there.
    let r = env.step(&click(by_key(&env, "#add_to_cart"))).unwrap();
    assert_eq!(r.epsilon, 0);
    assert_eq!(env.observation().url, "/cart");
}

#[test]
fn retrieval_answers_match_by_value() {
    let program = trailhead();
    let inst = instance(&program, "october_order_total");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    assert_eq!(env.expected_answer().shown(), vec!["$245.95".to_string()]);
    assert!(env.expected_answer().matches("245.95 dollars"));
    assert!(!env.expected_answer().matches("245"));
    env.step(&click(by_key(&env, "#orders_link"))).unwrap();
    // The order's total is shown on the page, so it is an answer candidate.
    let answer = env
        .actions()
        .iter()
        .find(|a| a.kind == ActionKind::Answer && a.text.as_deref() == Some("$245.95"))
        .cloned()
        .expect("the total is a candidate answer");
    let r = env.step(&answer).unwrap();
    assert!(r.done && r.success);
    assert!(close(r.reward, 1.0 - 0.01), "{r:?}");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    let wrong = Action {
        kind: ActionKind::Answer,
        element: None,
        text: Some("$99.00".into()),
    };
    let r = env.step(&wrong).unwrap();
    assert!(r.done && !r.success);
    assert!(close(r.reward, -0.01));
    // Free text spelling the date another way succeeds too; a part of it
    // does not.
    let restock = Env::new(
        &program,
        &instance(&program, "restock_date"),
        RewardConfig::default(),
    )
    .unwrap();
    for guess in ["5", "December", "2026", "December 2026"] {
        assert!(!restock.expected_answer().matches(guess), "{guess}");
    }
    let mut env = Env::new(
        &program,
        &instance(&program, "restock_date"),
        RewardConfig::default(),
    )
    .unwrap();
    let text = Action {
        kind: ActionKind::Answer,
        element: None,
        text: Some("December 5, 2026".into()),
    };
    assert!(env.step(&text).unwrap().success);
}

/// Plays `steps` random candidate actions (resetting when an episode ends),
/// checking the step rules; returns everything observed.
fn random_play(program: &Program, inst: &TaskInstance, seed: u64, steps: usize) -> Vec<String> {
    let mut env = Env::new(program, inst, RewardConfig::default()).unwrap();
    let mut rng = Lcg(seed);
    let mut log = Vec::new();
    for _ in 0..steps {
        if env.done() {
            env.reset().unwrap();
        }
        let actions = env.actions().to_vec();
        assert!(
            !actions.is_empty(),
            "{}: no actions on {}",
            inst.name,
            env.observation().url
        );
        // Now and then an action that is not on the page: refused, no effect.
        if rng.next(7) == 0 {
            let obs = env.observation();
            let bad = Action {
                kind: ActionKind::Select,
                element: Some(0),
                text: None,
            };
            assert!(env.step(&bad).is_err());
            assert_eq!(env.observation(), obs);
        }
        let action = &actions[rng.next(actions.len())];
        let (before, world, nav) = (
            env.observation(),
            env.world().clone(),
            env.navigation().clone(),
        );
        let steps_before = env.steps();
        let r = env
            .step(action)
            .unwrap_or_else(|e| panic!("{}: candidate {action:?} refused: {e}", inst.name));
        assert_eq!(env.steps(), steps_before + 1);
        let after = env.observation();
        if r.epsilon == 1 {
            assert!(after.alert.is_some());
            assert_eq!(
                env.world(),
                &world,
                "{}: a rejected step changed the world",
                inst.name
            );
            assert_eq!(env.navigation(), &nav);
            assert_eq!(after.elements, before.elements);
        }
        assert!(r.reward.is_finite() && (0.0..=1.0).contains(&r.progress));
        invariants_hold(program, &env)
            .unwrap_or_else(|e| panic!("{}: {e} after {action:?}", inst.name));
        log.push(format!(
            "{action:?} {r:?}\n{}",
            serde_json::to_string(&after).unwrap()
        ));
    }
    log
}

#[test]
fn random_play_is_safe_and_deterministic() {
    let mut rejected = 0;
    for (name, program) in programs() {
        for (i, inst) in env::instances(&program).iter().enumerate() {
            let seed = 17 + i as u64;
            let first = random_play(&program, inst, seed, 40);
            let second = random_play(&program, inst, seed, 40);
            assert_eq!(first, second, "{name} {}: runs differ", inst.name);
            rejected += first.iter().filter(|l| l.contains("epsilon: 1")).count();
        }
    }
    assert!(rejected > 0, "random play never met a rejected step");
}

#[test]
fn observations_round_trip_through_json() {
    let program = trailhead();
    let env = Env::new(
        &program,
        &instance(&program, "checkout_with_coupon"),
        RewardConfig::default(),
    )
    .unwrap();
    let obs = env.observation();
    let json = serde_json::to_string(&obs).unwrap();
    let back: env::Observation = serde_json::from_str(&json).unwrap();
    assert_eq!(back, obs);
    let action: Action =
        serde_json::from_str(r#"{"kind": "type", "element": 4, "text": "x"}"#).unwrap();
    assert_eq!(action.kind, ActionKind::Type);
}
