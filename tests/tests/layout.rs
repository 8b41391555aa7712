//! The flat state layout on the real examples: every state met in random play
//! encodes, restores into a fresh environment that then behaves exactly like
//! the original, has one encoding (equal states, equal bytes), and no buffer —
//! truncated, garbled or random — makes decoding panic or change the episode.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::collections::HashMap;
use wsite_runtime::env::{self, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::layout::{EntryList, StateLayout, TextPool};
use wsite_tests::Lcg;

/// Everything observable about an environment, for comparing two of them.
fn signature(env: &Env<'_>) -> String {
    format!(
        "{:?}|{:?}|{}|{}|{:?}|{}",
        env.world(),
        env.navigation(),
        serde_json::to_string(&env.observation()).unwrap(),
        env.steps(),
        env.actions(),
        env.progress()
    )
}

/// Whether a list's entries in use are in strictly increasing byte order (the
/// canonical order the JIT must keep too) and its unused room is zero.
fn entries_sorted(bytes: &[u8], list: EntryList) -> bool {
    let count = u32::from_le_bytes(bytes[list.count..list.count + 4].try_into().unwrap()) as usize;
    let entry = |i: usize| &bytes[list.entry_at(i)..list.entry_at(i) + list.entry_size];
    let sorted = (1..count).all(|i| entry(i - 1) < entry(i));
    let zero_tail = (count..list.capacity).all(|i| entry(i).iter().all(|&b| b == 0));
    sorted && zero_tail
}

/// Random play on `inst`, checking at every state that the bytes restore into
/// an equivalent environment, that the restored one steps identically, and that
/// equal states got equal bytes.
fn check_instance(program: &Program, layout: &StateLayout, inst: &TaskInstance, seed: u64) {
    let mut pool = TextPool::for_program(program);
    let mut env = Env::new(program, inst, RewardConfig::default()).unwrap();
    let mut twin = Env::new(program, inst, RewardConfig::default()).unwrap();
    let mut rng = Lcg(seed);
    let mut bytes_of: HashMap<String, Vec<u8>> = HashMap::new();
    for _ in 0..60 {
        if env.done() {
            env.reset().unwrap();
        }
        let bytes = env.encode_state(layout, &mut pool).unwrap();
        assert_eq!(bytes.len(), layout.size);
        twin.restore_state(layout, &pool, &bytes).unwrap();
        let sig = signature(&env);
        assert_eq!(signature(&twin), sig, "{}: restore differs", inst.name);
        assert_eq!(twin.encode_state(layout, &mut pool).unwrap(), bytes);
        for list in [layout.forms, layout.visited] {
            assert!(
                entries_sorted(&bytes, list),
                "{}: list entries out of order",
                inst.name
            );
        }
        let known = bytes_of.entry(sig).or_insert_with(|| bytes.clone());
        assert_eq!(known, &bytes, "{}: one state, two encodings", inst.name);

        let actions = env.actions().to_vec();
        let action = &actions[rng.next(actions.len())];
        let a = env.step(action).unwrap();
        let b = twin.step(action).unwrap();
        assert_eq!(
            format!("{a:?}"),
            format!("{b:?}"),
            "{}: steps differ",
            inst.name
        );
        assert_eq!(signature(&env), signature(&twin));
    }
}

#[test]
fn every_state_of_random_play_round_trips_through_bytes() {
    for (name, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        for (i, inst) in env::instances(&program).iter().enumerate() {
            check_instance(&program, &layout, inst, 91 + i as u64);
        }
        eprintln!("{name}: a state is {} bytes", layout.size);
    }
}

#[test]
fn the_identity_excludes_step_and_alert() {
    let (_, program) = wsite_tests::example_programs().remove(0);
    let layout = StateLayout::for_program(&program).unwrap();
    assert!(layout.identity.start >= 16 && layout.identity.end <= layout.visited_region.start);
    assert_eq!(layout.visited_region.end, layout.size);
    let inst = &env::instances(&program)[0];
    let mut pool = TextPool::for_program(&program);
    let mut env = Env::new(&program, inst, RewardConfig::default()).unwrap();
    let before = env.encode_state(&layout, &mut pool).unwrap();
    // A step that is refused by the page rules (clearing an empty form, say)
    // may not exist everywhere; any step changes the step counter, and when the
    // world and page stay, the identity must too.
    let action = env.actions()[0].clone();
    let world = env.world().clone();
    let nav = env.navigation().clone();
    env.step(&action).unwrap();
    let after = env.encode_state(&layout, &mut pool).unwrap();
    assert_ne!(
        before[..16],
        after[..16],
        "the step counter lives in the header"
    );
    if env.world() == &world
        && env.navigation() == &nav
        && env.observation().elements.iter().all(|e| e.value.is_none())
    {
        assert_eq!(
            before[layout.identity.clone()],
            after[layout.identity.clone()]
        );
    }
}

#[test]
fn bad_buffers_are_refused_and_change_nothing() {
    for (name, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        let inst = &env::instances(&program)[0];
        let mut pool = TextPool::for_program(&program);
        let mut env = Env::new(&program, inst, RewardConfig::default()).unwrap();
        let good = env.encode_state(&layout, &mut pool).unwrap();
        let before = signature(&env);
        let mut rng = Lcg(5);
        let mut refused = 0;
        let mut candidates = vec![good[..good.len() - 1].to_vec(), vec![0xff; good.len()]];
        for _ in 0..300 {
            let mut bad = good.clone();
            let at = rng.next(bad.len());
            bad[at] = bad[at].wrapping_add(1 + rng.next(255) as u8);
            candidates.push(bad);
        }
        for bad in candidates {
            match env.restore_state(&layout, &pool, &bad) {
                Err(_) => {
                    refused += 1;
                    assert_eq!(
                        signature(&env),
                        before,
                        "{name}: a refused buffer changed the episode"
                    );
                }
                // Some flips give another valid state; put the original back.
                Ok(()) => env.restore_state(&layout, &pool, &good).unwrap(),
            }
        }
        assert!(
            refused > 2,
            "{name}: only {refused} corrupt buffers refused"
        );
    }
}

/// Two actions that set two different form variables on the current page.
fn two_form_edits(env: &Env<'_>) -> Option<[wsite_runtime::env::Action; 2]> {
    use wsite_runtime::env::ActionKind;
    let obs = env.observation();
    let mut firsts: Vec<wsite_runtime::env::Action> = Vec::new();
    for a in env.actions() {
        let role = a
            .element
            .and_then(|i| obs.elements.get(i - 1))
            .map(|e| e.role);
        let settable = matches!(a.kind, ActionKind::Type | ActionKind::Select)
            || (a.kind == ActionKind::Click && role == Some("checkbox"));
        if settable && firsts.iter().all(|f| f.element != a.element) {
            firsts.push(a.clone());
        }
    }
    match firsts.as_slice() {
        [a, b, ..] => Some([a.clone(), b.clone()]),
        _ => None,
    }
}

/// An environment on the first page (by following links, up to three deep)
/// with two form elements, and the two edits.
fn page_with_two_inputs<'p>(start: &Env<'p>) -> Option<(Env<'p>, [wsite_runtime::env::Action; 2])> {
    let mut frontier = vec![start.clone()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for env in frontier {
            if let Some(edits) = two_form_edits(&env) {
                return Some((env, edits));
            }
            let obs = env.observation();
            for a in env.actions() {
                let is_link = a
                    .element
                    .and_then(|i| obs.elements.get(i - 1))
                    .is_some_and(|e| e.role == "link");
                if is_link {
                    let mut e = env.clone();
                    if e.step(a).is_ok_and(|r| r.epsilon == 0) && !e.done() {
                        next.push(e);
                    }
                }
            }
        }
        frontier = next;
    }
    None
}

#[test]
fn the_order_of_form_edits_does_not_show_in_the_bytes() {
    let mut checked = 0;
    for (_, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        let inst = &env::instances(&program)[0];
        let mut pool = TextPool::for_program(&program);
        let fresh = Env::new(&program, inst, RewardConfig::default()).unwrap();
        let Some((there, [a, b])) = page_with_two_inputs(&fresh) else {
            continue;
        };
        let play = |order: [&wsite_runtime::env::Action; 2], pool: &mut TextPool| {
            let mut env = there.clone();
            for action in order {
                env.step(action).unwrap();
            }
            env.encode_state(&layout, pool).unwrap()
        };
        let ab = play([&a, &b], &mut pool);
        let ba = play([&b, &a], &mut pool);
        assert_eq!(ab, ba, "{}: form order shows in the bytes", inst.name);
        checked += 1;
    }
    assert!(
        checked >= 3,
        "only {checked} examples have a page with two form elements"
    );
}
