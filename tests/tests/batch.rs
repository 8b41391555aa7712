//! Batched environments on the examples: the buffers say what the observation
//! says, a run is the same on one thread or two, a bad action changes nothing,
//! and finished episodes reset in the same step.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::batch::{role_id, tokens::Tokenizer, BatchEnv, Buffers, ObsSpec};
use wsite_runtime::env::{self, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_tests::Lcg;

fn batch(program: &Program, n: usize, threads: usize) -> BatchEnv<'_> {
    let instances = env::instances(program);
    BatchEnv::new(
        program,
        instances,
        n,
        ObsSpec::default(),
        RewardConfig::default(),
        7,
        threads,
    )
    .unwrap()
}

/// Steps `batch` `steps` times with random valid rows; returns every
/// buffer snapshot.
fn play(batch: &mut BatchEnv<'_>, steps: usize, seed: u64) -> Vec<Buffers> {
    let mut rng = Lcg(seed);
    let mut seen = Vec::new();
    for _ in 0..steps {
        let actions: Vec<u32> = batch
            .buffers()
            .action_count
            .iter()
            .map(|&n| rng.next(n as usize) as u32)
            .collect();
        batch.step(&actions).unwrap();
        seen.push(batch.buffers().clone());
    }
    seen
}

#[test]
fn buffers_hold_the_observation() {
    for (name, program) in wsite_tests::example_programs() {
        let b = batch(&program, 3, 1);
        let spec = *b.spec();
        let buf = b.buffers();
        for i in 0..b.len() {
            let obs = b.env(i).unwrap().observation();
            let shown = obs.elements.len().min(spec.max_elements);
            assert_eq!(buf.element_count[i] as usize, shown, "{name}");
            let mut tok = Tokenizer::new(spec.vocab);
            for (j, e) in obs.elements.iter().take(shown).enumerate() {
                let at = i * spec.max_elements + j;
                assert_eq!(buf.role[at], role_id(e.role), "{name} element {j}");
                let want: Vec<u32> = tok
                    .tokens(&e.text)
                    .iter()
                    .copied()
                    .take(spec.text_tokens)
                    .collect();
                let got = &buf.text[at * spec.text_tokens..at * spec.text_tokens + want.len()];
                assert_eq!(got, want.as_slice(), "{name} element {j} text");
                assert_eq!(buf.flags[at] & 1 == 1, e.disabled);
            }
            assert!(buf.action_count[i] > 0, "{name}: no actions");
            let kinds = &buf.action_kind[i * spec.max_actions..(i + 1) * spec.max_actions];
            let n = buf.action_count[i] as usize;
            assert!(kinds[..n].iter().all(|&k| k > 0) && kinds[n..].iter().all(|&k| k == 0));
        }
    }
}

#[test]
fn one_thread_or_two_give_the_same_run() {
    for (name, program) in wsite_tests::example_programs() {
        let mut one = batch(&program, 6, 1);
        let mut two = batch(&program, 6, 2);
        let a = play(&mut one, 80, 3);
        let b = play(&mut two, 80, 3);
        assert!(a == b, "{name}: runs differ between 1 and 2 threads");
        let resets: u32 = a
            .iter()
            .map(|s| s.done.iter().map(|&d| u32::from(d)).sum::<u32>())
            .sum();
        assert!(resets > 0, "{name}: no episode ended in 80 steps");
    }
}

#[test]
fn a_bad_action_is_refused_and_changes_nothing() {
    let (_, program) = wsite_tests::example_programs().remove(0);
    let mut b = batch(&program, 4, 2);
    let before = b.buffers().clone();
    let mut actions = vec![0u32; 4];
    actions[2] = b.buffers().action_count[2];
    assert!(b.step(&actions).is_err());
    assert!(b.step(&[0, 0]).is_err());
    assert!(b.buffers() == &before, "a refused step changed the buffers");
}

#[test]
fn finished_episodes_reset_in_the_same_step_with_their_totals() {
    let (_, program) = wsite_tests::example_programs().remove(0);
    let mut b = batch(&program, 4, 1);
    let mut rng = Lcg(11);
    let mut returns = [0f32; 4];
    let mut lengths = [0u32; 4];
    let mut ended = 0;
    for _ in 0..300 {
        let actions: Vec<u32> = b
            .buffers()
            .action_count
            .iter()
            .map(|&n| rng.next(n as usize) as u32)
            .collect();
        b.step(&actions).unwrap();
        let buf = b.buffers();
        for i in 0..4 {
            returns[i] += buf.reward[i];
            lengths[i] += 1;
            if buf.done[i] == 1 {
                ended += 1;
                assert_eq!(buf.episode_length[i], lengths[i]);
                assert!((buf.episode_return[i] - returns[i]).abs() < 1e-3);
                assert_eq!(b.env(i).unwrap().steps(), 0, "the environment was reset");
                returns[i] = 0.0;
                lengths[i] = 0;
            }
        }
    }
    assert!(ended > 4, "only {ended} episodes ended");
}
