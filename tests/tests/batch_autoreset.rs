//! The batch's reset modes and foreign view, as the Python binding uses them:
//! under `NextStep` a finished environment shows its final observation and
//! resets on its next step (playing the same episodes as `SameStep`); under
//! `Disabled` it waits for `reset`, which reseeds as a new batch would; the
//! horizon is told apart from an ending (`truncated`); and the buffers keep
//! their addresses and the shapes `fields` gives.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::batch::tokens::Tokenizer;
use wsite_runtime::batch::{Autoreset, BatchEnv, Dtype, Engine, InterpEngine, ObsSpec};
use wsite_runtime::env::{self, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_tests::Lcg;

fn batch(program: &Program, n: usize, seed: u64) -> BatchEnv<InterpEngine<'_>> {
    let instances = env::instances(program);
    let config = RewardConfig::default();
    BatchEnv::new(program, instances, n, ObsSpec::default(), config, seed, 2).unwrap()
}

/// Random valid rows for every environment (row 0 where none is offered).
fn random_rows<E: Engine>(b: &BatchEnv<E>, rng: &mut Lcg) -> Vec<u32> {
    let counts = &b.buffers().action_count;
    counts
        .iter()
        .map(|&n| rng.next(n as usize) as u32)
        .collect()
}

/// The instances each environment played, episode by episode, over `steps`
/// steps of a random policy that only acts in environments not waiting.
fn episodes(program: &Program, mode: Autoreset, steps: usize) -> Vec<Vec<usize>> {
    let mut b = batch(program, 3, 21);
    b.set_autoreset(mode);
    let mut rng = Lcg(5);
    let mut played: Vec<Vec<usize>> = (0..3).map(|i| vec![b.instance_of(i).unwrap()]).collect();
    for _ in 0..steps {
        let was_finished: Vec<bool> = (0..3).map(|i| b.is_finished(i).unwrap()).collect();
        let rows = random_rows(&b, &mut rng);
        b.step(&rows).unwrap();
        for (i, seen) in played.iter_mut().enumerate() {
            let started = match mode {
                Autoreset::SameStep => b.buffers().done[i] == 1,
                _ => was_finished[i],
            };
            if started {
                seen.push(b.instance_of(i).unwrap());
            }
        }
    }
    played
}

#[test]
fn next_step_shows_the_final_observation_then_resets_on_the_next_step() {
    for (name, program) in wsite_tests::example_programs() {
        let mut b = batch(&program, 4, 3);
        b.set_autoreset(Autoreset::NextStep);
        let mut rng = Lcg(9);
        let (mut ended, mut lengths) = (0, [0u32; 4]);
        for _ in 0..250 {
            let waiting: Vec<bool> = (0..4).map(|i| b.is_finished(i).unwrap()).collect();
            let mut rows = random_rows(&b, &mut rng);
            for (row, &w) in rows.iter_mut().zip(&waiting) {
                if w {
                    // The action of a waiting environment is ignored, however wrong.
                    *row = 9_999;
                }
            }
            b.step(&rows).unwrap();
            let buf = b.buffers();
            for i in 0..4 {
                if waiting[i] {
                    assert_eq!(buf.steps[i], 0, "{name}: env {i} did not restart");
                    assert_eq!((buf.done[i], buf.reward[i]), (0, 0.0), "{name}");
                    assert!(!b.is_finished(i).unwrap());
                    lengths[i] = 0;
                    continue;
                }
                lengths[i] += 1;
                if buf.done[i] == 1 {
                    ended += 1;
                    assert!(b.is_finished(i).unwrap());
                    assert_eq!(
                        buf.steps[i], lengths[i],
                        "{name}: not the final observation"
                    );
                    assert_eq!(buf.episode_length[i], lengths[i], "{name}");
                } else {
                    assert!(!b.is_finished(i).unwrap());
                }
            }
        }
        assert!(ended > 0, "{name}: no episode ended");
    }
}

#[test]
fn every_mode_plays_the_same_episodes() {
    let (_, program) = wsite_tests::example_programs().remove(0);
    let same = episodes(&program, Autoreset::SameStep, 200);
    let next = episodes(&program, Autoreset::NextStep, 200);
    // The random policy differs once a `NextStep` environment waits a step,
    // so compare the instance sequences each mode drew: the same generator.
    for (a, b) in same.iter().zip(&next) {
        let k = a.len().min(b.len());
        assert!(k > 1, "too few episodes: {a:?} {b:?}");
    }
    let mut fresh = batch(&program, 3, 21);
    for (i, seen) in next.iter().enumerate() {
        // The instance sequence is the generator's, whatever the steps.
        let mut again = vec![fresh.instance_of(i).unwrap()];
        while again.len() < seen.len() {
            fresh.reset(i, None, None).unwrap();
            again.push(fresh.instance_of(i).unwrap());
        }
        assert_eq!(&again, seen, "env {i}: `NextStep` drew other instances");
        let k = same[i].len().min(seen.len());
        assert_eq!(
            same[i][..k],
            seen[..k],
            "env {i}: the modes drew differently"
        );
    }
}

#[test]
fn disabled_waits_for_a_reset_that_reseeds_as_a_new_batch() {
    let (name, program) = wsite_tests::example_programs().remove(0);
    let mut b = batch(&program, 2, 4);
    b.set_autoreset(Autoreset::Disabled);
    let mut rng = Lcg(2);
    let mut guard = 0;
    while !b.is_finished(0).unwrap() {
        let rows = random_rows(&b, &mut rng);
        if b.step(&rows).is_err() {
            // Environment 1 ended first: restart it and go on.
            b.reset(1, None, None).unwrap();
        }
        guard += 1;
        assert!(guard < 10_000, "{name}: environment 0 never ended");
    }
    let before = b.buffers().clone();
    let err = b.step(&[0, 0]).unwrap_err().to_string();
    assert!(err.contains("reset it"), "{err}");
    assert!(b.buffers() == &before, "a refused step changed the buffers");

    // Reseeded with 77, environment 0 starts as a new batch's does.
    b.reset(0, Some(77), None).unwrap();
    let fresh = batch(&program, 2, 77);
    assert_eq!(b.instance_of(0), fresh.instance_of(0));
    let (x, y) = (b.buffers(), fresh.buffers());
    let e = ObsSpec::default().max_actions;
    assert_eq!(x.action_kind[..e], y.action_kind[..e]);
    assert_eq!(x.instruction[..48], y.instruction[..48]);
    assert_eq!((x.steps[0], x.done[0], x.reward[0]), (0, 0, 0.0));

    // A chosen instance, and one that does not exist.
    let last = b.instance_count() - 1;
    b.reset(1, None, Some(last)).unwrap();
    assert_eq!(b.instance_of(1), Some(last));
    let err = b.reset(1, None, Some(last + 1)).unwrap_err().to_string();
    assert!(err.contains("no task instance"), "{err}");
    assert!(b
        .reset(2, None, None)
        .unwrap_err()
        .to_string()
        .contains("no environment 2"));
}

#[test]
fn truncated_means_the_horizon_ran_out() {
    let mut truncations = 0;
    for (name, program) in wsite_tests::example_programs() {
        let instances = env::instances(&program);
        let mut b = batch(&program, 4, 8);
        let mut rng = Lcg(31);
        for _ in 0..300 {
            let playing: Vec<usize> = (0..4).map(|i| b.instance_of(i).unwrap()).collect();
            let rows = random_rows(&b, &mut rng);
            b.step(&rows).unwrap();
            let buf = b.buffers();
            for (i, &inst) in playing.iter().enumerate() {
                let horizon = program.tasks[instances[inst].task].horizon;
                let ran_out = buf.episode_length[i] == horizon && buf.success[i] == 0;
                if buf.truncated[i] == 1 {
                    truncations += 1;
                    assert_eq!(buf.done[i], 1, "{name}: truncated but not done");
                    assert!(ran_out, "{name}: truncated before the horizon");
                }
            }
        }
    }
    assert!(truncations > 0, "no episode ran out of steps");
}

#[test]
fn fields_describe_the_buffers_in_place() {
    let (_, program) = wsite_tests::example_programs().remove(0);
    let mut b = batch(&program, 3, 1);
    b.set_autoreset(Autoreset::NextStep);
    let spec = *b.spec();
    let before = b.buffers().fields(&spec);
    let mut rng = Lcg(3);
    for _ in 0..40 {
        let rows = random_rows(&b, &mut rng);
        b.step(&rows).unwrap();
    }
    b.reset(1, Some(5), None).unwrap();
    let after = b.buffers().fields(&spec);
    assert_eq!(before, after, "a buffer moved");
    let buf = b.buffers();
    let lens = [
        ("action_mask", buf.action_mask.len()),
        ("text", buf.text.len()),
        ("reward", buf.reward.len()),
        ("action_element", buf.action_element.len()),
    ];
    for (name, len) in lens {
        let f = after.iter().find(|f| f.name == name).unwrap();
        assert_eq!(f.shape.iter().product::<usize>(), len, "{name}");
        assert_eq!(f.shape[0], 3, "{name}");
    }
    let dtype = |n: &str| after.iter().find(|f| f.name == n).unwrap().dtype;
    assert_eq!(dtype("reward"), Dtype::F32);
    assert_eq!(dtype("action_element"), Dtype::I32);
    assert_eq!(dtype("text"), Dtype::U32);
    assert_eq!(dtype("action_mask"), Dtype::U8);
    // The mask marks exactly the rows in use.
    let a = spec.max_actions;
    for i in 0..3 {
        let on: u32 = buf.action_mask[i * a..(i + 1) * a]
            .iter()
            .map(|&m| u32::from(m))
            .sum();
        assert_eq!(on, buf.action_count[i]);
        let count = buf.action_count[i] as usize;
        assert!(buf.action_mask[i * a..i * a + count]
            .iter()
            .all(|&m| m == 1));
    }
}

#[test]
fn final_observations_are_the_same_on_both_engines() {
    let mut finals = 0;
    for (name, program) in wsite_tests::example_programs() {
        let (site, mut pool, instances) = wsite_tests::jit_site(&program);
        let (spec, config) = (ObsSpec::default(), RewardConfig::default());
        let mut interp = BatchEnv::new(&program, instances.clone(), 4, spec, config, 3, 1).unwrap();
        let mut jit = BatchEnv::jit(&site, &instances, 4, spec, config, 3, 1, &mut pool).unwrap();
        interp.set_autoreset(Autoreset::NextStep);
        jit.set_autoreset(Autoreset::NextStep);
        let mut rng = Lcg(23);
        for step in 0..150 {
            let rows = random_rows(&interp, &mut rng);
            interp.step(&rows).unwrap();
            jit.step(&rows).unwrap();
            assert!(
                interp.buffers() == jit.buffers(),
                "{name}: step {step}: the engines' buffers differ"
            );
            finals += interp.buffers().done.iter().filter(|&&d| d == 1).count();
        }
    }
    assert!(finals > 0, "no final observation was compared");
}

#[test]
fn the_instruction_row_is_the_playing_instances_after_every_reset() {
    let spec = ObsSpec::default();
    let width = spec.instruction_tokens;
    let mut switched = 0;
    for (name, program) in wsite_tests::example_programs() {
        let instances = env::instances(&program);
        // Each instance's instruction, as its row should hold it.
        let tokens = Tokenizer::new(spec.vocab);
        let expected: Vec<Vec<u32>> = (instances.iter())
            .map(|i| {
                let e = env::Env::new(&program, i, RewardConfig::default()).unwrap();
                let mut row = vec![0; width];
                tokens.fill(e.instruction(), &mut row);
                row
            })
            .collect();
        let mut b = batch(&program, 4, 8);
        let mut rng = Lcg(4);
        let mut last: Vec<usize> = (0..4).map(|i| b.instance_of(i).unwrap()).collect();
        for step in 0..300 {
            let rows = random_rows(&b, &mut rng);
            b.step(&rows).unwrap();
            for (i, was) in last.iter_mut().enumerate() {
                let now = b.instance_of(i).unwrap();
                switched += usize::from(expected[now] != expected[*was]);
                *was = now;
                let row = &b.buffers().instruction[i * width..(i + 1) * width];
                assert_eq!(row, &expected[now][..], "{name}: step {step}: env {i}");
            }
        }
    }
    assert!(
        switched > 10,
        "too few episodes changed the instruction ({switched})"
    );
}
