//! Batched environments on the examples: the buffers say what the observation
//! says, a run is the same on one thread or two, a bad action changes nothing,
//! finished episodes reset in the same step, and the JIT batch writes the
//! interpreter batch's buffers byte for byte.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::batch::{
    role_id, tokens::Tokenizer, BatchEnv, Buffers, Engine, InterpEngine, ObsSpec,
};
use wsite_runtime::env::{self, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_tests::Lcg;

fn batch(program: &Program, n: usize, threads: usize) -> BatchEnv<InterpEngine<'_>> {
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

/// A random valid action-table row for each environment of `buffers`.
fn random_rows(buffers: &Buffers, rng: &mut Lcg) -> Vec<u32> {
    let counts = buffers.action_count.iter();
    counts.map(|&n| rng.next(n as usize) as u32).collect()
}

/// Steps `batch` `steps` times with random valid rows; returns every
/// buffer snapshot.
fn play<E: Engine>(batch: &mut BatchEnv<E>, steps: usize, seed: u64) -> Vec<Buffers> {
    let mut rng = Lcg(seed);
    let mut seen = Vec::new();
    for _ in 0..steps {
        let actions = random_rows(batch.buffers(), &mut rng);
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

/// Every action row past an environment's table is empty (kind 0, no
/// element, no text), and a click row has no text: rows are rewritten each
/// step, and what an earlier page left there must not show through.
fn rows_past_the_table_and_clicks_hold_no_text(buf: &Buffers, spec: &ObsSpec, what: &str) {
    let (rows, width) = (spec.max_actions, spec.action_tokens);
    let click = wsite_runtime::batch::kind_id(wsite_runtime::env::ActionKind::Click);
    for (env, &count) in buf.action_count.iter().enumerate() {
        for row in 0..rows {
            let at = env * rows + row;
            let text = &buf.action_text[at * width..(at + 1) * width];
            let empty = text.iter().all(|&t| t == 0);
            if row >= count as usize {
                assert_eq!(buf.action_kind[at], 0, "{what}: env {env} row {row}: kind");
                assert_eq!(
                    buf.action_element[at], -1,
                    "{what}: env {env} row {row}: element"
                );
                assert!(empty, "{what}: env {env} row {row}: text past the table");
            } else if buf.action_kind[at] == click {
                assert!(empty, "{what}: env {env} row {row}: a click with text");
            }
        }
    }
}

#[test]
fn the_jit_batch_writes_the_interpreter_batch_buffers() {
    let mut compared = 0;
    for (name, program) in wsite_tests::example_programs() {
        compared += jit_and_interpreter_batches_agree(&name, &program, 150);
    }
    assert!(compared >= 5 * 150, "too few sites compared");
}

/// Instances that start on other pages have other initial bytes, so a
/// restart from one onto another must copy where they differ as well as
/// what the episode wrote (`jit/step/restart.rs`; debug builds compare
/// each restart's bytes with the instance's).
#[test]
fn restarts_between_instances_with_other_start_pages_agree() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sites/helpdesk.wsite");
    // The site's one task starts on a ticket's page; this one on the inbox.
    // Episodes of one step end before most have navigated, so the lines
    // where the two starts differ are often not among those written.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("horizon 6", "horizon 1")
        + "\ntask reply_from_inbox {\n  say \"Reply to the printer ticket.\"\n  \
           goal Ticket[3].reply != none\n  horizon 1\n}\n";
    let program = wsitec::compile_str("helpdesk", &text).program.unwrap();
    let pages = |t: &wsite_runtime::ir::TaskDef| t.start.as_ref().map(|c| c.page);
    let first = program.tasks.first().map(pages);
    assert!(
        program.tasks.iter().any(|t| Some(pages(t)) != first),
        "the site's tasks start alike"
    );
    assert_eq!(
        jit_and_interpreter_batches_agree("helpdesk", &program, 300),
        300
    );
}

/// Steps an interpreter batch and a JIT batch of `program` with the same
/// random actions for `steps` steps, failing at the first buffer that
/// differs; the steps compared (0 when no instance plays flat).
fn jit_and_interpreter_batches_agree(name: &str, program: &Program, steps: usize) -> usize {
    // Only instances the flat engine plays; both batches draw from
    // the same list.
    let (site, mut pool, instances) = wsite_tests::jit_site(program);
    if instances.is_empty() {
        eprintln!("{name}: no instance plays flat");
        return 0;
    }
    let (spec, config) = (ObsSpec::default(), RewardConfig::default());
    let mut interp = BatchEnv::new(program, instances.clone(), 6, spec, config, 5, 2).unwrap();
    let mut jit = BatchEnv::jit(&site, &instances, 6, spec, config, 5, 2, &mut pool).unwrap();
    assert!(
        interp.buffers() == jit.buffers(),
        "{name}: first observations differ"
    );
    let mut rng = Lcg(17);
    let mut ended = 0;
    for step in 0..steps {
        let actions = random_rows(interp.buffers(), &mut rng);
        interp.step(&actions).unwrap();
        jit.step(&actions).unwrap();
        let (a, b) = (interp.buffers(), jit.buffers());
        rows_past_the_table_and_clicks_hold_no_text(a, &spec, &format!("{name}: step {step}"));
        if a != b {
            panic!(
                "{name}: step {step}: buffers differ: {}",
                wsite_tests::first_difference(a, b)
            );
        }
        ended += a.done.iter().filter(|&&d| d == 1).count();
    }
    assert!(ended > 0, "{name}: no episode ended");
    eprintln!(
        "{name}: {} instances, {steps} steps × 6 environments, {ended} episodes ended",
        instances.len()
    );
    steps
}

/// The words of `text` as the batch writes them, cut to `width`.
fn words(tok: &mut Tokenizer, text: &str, width: usize) -> Vec<u32> {
    let mut v: Vec<u32> = tok.tokens(text).iter().copied().take(width).collect();
    v.resize(width, 0);
    v
}

#[test]
fn the_context_is_what_the_page_shows_and_what_was_done() {
    let mut rows_seen = 0;
    let mut histories = 0;
    for (name, program) in wsite_tests::example_programs() {
        let mut b = batch(&program, 3, 1);
        let spec = *b.spec();
        let mut tok = Tokenizer::new(spec.vocab);
        let mut rng = Lcg(5);
        for _ in 0..30 {
            let buf = b.buffers().clone();
            for i in 0..b.len() {
                let obs = b.env(i).unwrap().observation();
                let alert = &buf.alert[i * spec.alert_tokens..(i + 1) * spec.alert_tokens];
                let want = words(
                    &mut tok,
                    obs.alert.as_deref().unwrap_or(""),
                    spec.alert_tokens,
                );
                assert_eq!(alert, want.as_slice(), "{name}: alert");
                assert_eq!(buf.steps[i], b.env(i).unwrap().steps(), "{name}: steps");
                let page = &buf.page[i * spec.page_tokens..(i + 1) * spec.page_tokens];
                assert!(
                    page.iter().any(|&t| t != 0),
                    "{name}: a page without a label"
                );
                // Inside a repeated row every element after the first with
                // text reads that first one as its context.
                let n = buf.element_count[i] as usize;
                for j in 0..n {
                    let at = i * spec.max_elements + j;
                    if buf.sibling[at] > 1 {
                        rows_seen += 1;
                        let head = j + 1 - buf.sibling[at] as usize;
                        let first = obs.elements[head..j].iter().find(|e| !e.text.is_empty());
                        if let Some(first) = first {
                            let got = &buf.context
                                [at * spec.context_tokens..(at + 1) * spec.context_tokens];
                            let want = words(&mut tok, &first.text, spec.context_tokens);
                            assert_eq!(got, want.as_slice(), "{name}: element {j}'s context");
                        }
                    }
                }
            }
            let actions: Vec<u32> = buf
                .action_count
                .iter()
                .map(|&n| rng.next(n as usize) as u32)
                .collect();
            // What each environment is about to do, for its history.
            let kinds: Vec<u8> = (0..b.len())
                .map(|i| buf.action_kind[i * spec.max_actions + actions[i] as usize])
                .collect();
            b.step(&actions).unwrap();
            let after = b.buffers();
            for (i, &kind) in kinds.iter().enumerate() {
                let h = &after.history_kind[i * spec.history..(i + 1) * spec.history];
                if after.done[i] == 1 {
                    assert!(
                        h.iter().all(|&k| k == 0),
                        "{name}: a new episode has no history"
                    );
                } else {
                    histories += 1;
                    assert_eq!(h[0], kind, "{name}: the last action comes first");
                }
            }
        }
    }
    assert!(rows_seen > 0, "no example shows a repeated row");
    assert!(histories > 0);
}

#[test]
fn every_answer_is_kept_when_the_action_table_is_full() {
    for (name, program) in wsite_tests::example_programs() {
        let instances: Vec<_> = env::instances(&program)
            .into_iter()
            .filter(|inst| program.tasks[inst.task].answer.is_some())
            .collect();
        if instances.is_empty() {
            continue;
        }
        let spec = ObsSpec {
            max_actions: 6,
            ..ObsSpec::default()
        };
        let b = BatchEnv::new(&program, instances, 4, spec, RewardConfig::default(), 3, 1).unwrap();
        let buf = b.buffers();
        for i in 0..b.len() {
            let answers = b
                .env(i)
                .unwrap()
                .actions()
                .iter()
                .filter(|a| a.kind == env::ActionKind::Answer)
                .count();
            let kinds = &buf.action_kind[i * 6..(i + 1) * 6];
            let kept = kinds.iter().filter(|&&k| k == 4).count();
            assert_eq!(kept, answers.min(6), "{name}: answers cut");
        }
    }
}
