//! Heap allocations of warm JIT batch steps (issue 22: observations written
//! as token ids, no heap allocation per step). Every example site is played
//! with random candidates on one thread for a warm-up (buffers, page
//! structures, entry lists and the text pool reach their working sizes, and
//! episodes have ended and reset), then the allocations of the next steps
//! are counted with a counting global allocator; this test binary holds
//! nothing else, so no other test's allocations are counted. The memory
//! of renders is kept small here (64 pages): filling a slot allocates, and
//! the default memory (4,096 pages) is still filling long after any
//! warm-up a test can afford, which would count that filling as steps'.
//!
//! Rendering, tokenizing and writing the observation allocate nothing once
//! warm. What still does (issue 22's closing note): a committed marker's
//! delta and written-location set, a typed text parsed into a value, a
//! refused marker's alert text, texts a predicate derives per episode
//! (`lower`/`upper` of a new text), answer matching, and a few lists per
//! batch step. Before this work the examples made 10.5–30.1 allocations per
//! environment step; after, 0.9–2.2. The bound below catches a return to
//! the old ways; the figures are printed (`--nocapture`).

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use wsite_runtime::batch::{BatchEnv, ObsSpec};
use wsite_runtime::env::RewardConfig;
use wsite_tests::Lcg;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const ENVS: usize = 16;
const WARM_UP: usize = 400;
const MEASURED: usize = 400;
/// Pages the memory of renders holds (see the module header).
const MEMO: usize = 64;

#[test]
fn warm_jit_batch_steps_do_not_allocate() {
    let mut worst = (String::new(), 0.0f64);
    for (name, program) in wsite_tests::example_programs() {
        let (site, mut pool, instances) = wsite_tests::jit_site(&program);
        if instances.is_empty() {
            continue;
        }
        let (spec, config) = (ObsSpec::default(), RewardConfig::default());
        let mut batch =
            BatchEnv::jit(&site, &instances, ENVS, spec, config, 3, 1, &mut pool).unwrap();
        batch.set_render_memo(MEMO);
        let mut rng = Lcg(41);
        let mut actions = vec![0u32; ENVS];
        let mut play = |batch: &mut BatchEnv<_>, steps: usize| {
            for _ in 0..steps {
                for (a, &n) in actions.iter_mut().zip(&batch.buffers().action_count) {
                    *a = rng.next(n as usize) as u32;
                }
                batch.step(&actions).unwrap();
            }
        };
        play(&mut batch, WARM_UP);
        let region = Region::new(GLOBAL);
        play(&mut batch, MEASURED);
        let change = region.change();
        let env_steps = (MEASURED * ENVS) as f64;
        let per_step = (change.allocations + change.reallocations) as f64 / env_steps;
        println!(
            "{name}: {} allocations and {} reallocations in {MEASURED} steps of {ENVS} \
             environments ({per_step:.4} per environment step)",
            change.allocations, change.reallocations
        );
        if per_step > worst.1 {
            worst = (name, per_step);
        }
    }
    assert!(
        worst.1 < 3.0,
        "{}: {:.4} heap allocations per warm environment step",
        worst.0,
        worst.1
    );
}
