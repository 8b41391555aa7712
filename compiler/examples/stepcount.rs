//! A fixed number of JIT steps on each site given, for counting
//! instructions: a wall clock on a shared machine varies by ±20%, an
//! instruction count from callgrind does not.
//!
//! `stepcount batch N SITES…` steps a 32-environment `BatchEnv::jit` on one
//! thread N times (the observation buffers written every step);
//! `stepcount single N SITES…` takes N steps of one `FlatEnv` on the site's
//! first instance. Both play the criterion bench's fixed pseudo-random
//! policy. Count only the steps with
//!
//! ```sh
//! valgrind --tool=callgrind --toggle-collect='stepcount::batched*' \
//!     target/release/examples/stepcount batch 200 examples/education/northfield_registration.wsite
//! ```
//!
//! (`stepcount::single*` for the other mode), and divide the collected
//! instructions by the steps (N × 32 batched, N single). The batched mode
//! prints the share of steps whose page (and rows) the batch remembered;
//! `STEPCOUNT_MEMO=K` sets the pages each thread remembers (0: none,
//! `BatchEnv::set_render_memo`), `STEPCOUNT_BATCH=B` the environments
//! (32 by default) and `STEPCOUNT_THREADS=T` the threads (1 by default).
//!
//! `stepcount rounds N SITES…` plays the bench's unbatched loop (an engine
//! per instance, in turn, each reset when its episode ends) for N turns and
//! prints how many were resets (`--toggle-collect='stepcount::rounds*'`,
//! divided by the turns that were steps).
//!
//! `stepcount prove N SITES…` proves, with the JIT prover, the instance of
//! each site whose search stores the most states, N times; count it with
//! `--toggle-collect='stepcount::proved*'` and divide by the states printed.
//! It also prints the share of expanded states whose page the searches
//! found remembered (`JitProver::memo_counts` of the timed proofs).

#![allow(clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use wsite_runtime::batch::{BatchEnv, FlatEngine, ObsSpec};
use wsite_runtime::env::{instances, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::jit::{FlatEnv, JitSite};
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_runtime::prove::{JitProver, Options};

/// Environments in the batched mode.
const BATCH: usize = 32;

/// The LCG's next choice among `n`.
fn next(seed: &mut u64, n: usize) -> usize {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 33) as usize % n.max(1)
}

#[inline(never)]
fn batched(batch: &mut BatchEnv<FlatEngine<'_>>, rounds: usize) {
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut actions = vec![0u32; batch.len()];
    for _ in 0..rounds {
        for (a, &n) in actions.iter_mut().zip(&batch.buffers().action_count) {
            *a = u32::try_from(next(&mut seed, n as usize)).unwrap_or(0);
        }
        batch.step(&actions).expect("a batched step");
    }
}

#[inline(never)]
fn single(flat: &mut FlatEnv<'_>, pool: &mut TextPool, steps: usize) {
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..steps {
        let n = flat.actions().len();
        if n == 0 || flat.done() {
            flat.reset(pool).expect("a reset");
            continue;
        }
        black_box(flat.step(next(&mut seed, n), pool).expect("a step"));
    }
}

/// The bench's unbatched loop: one engine per instance, taken in turn, each
/// reset when its episode is over (or has no candidate); `ticks` turns in
/// all. The resets.
#[inline(never)]
fn rounds(flats: &mut [FlatEnv<'_>], pool: &mut TextPool, ticks: usize) -> usize {
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut resets = 0;
    for t in 0..ticks {
        let flat = &mut flats[t % flats.len()];
        let n = flat.actions().len();
        if n == 0 || flat.done() {
            flat.reset(pool).expect("a reset");
            resets += 1;
            continue;
        }
        black_box(flat.step(next(&mut seed, n), pool).expect("a step"));
    }
    resets
}

#[inline(never)]
fn proved(prover: &JitProver, instance: &TaskInstance, times: usize) -> usize {
    let mut states = 0;
    for _ in 0..times {
        let proof = prover.prove(instance, Options::default()).expect("a proof");
        states += black_box(proof).states;
    }
    states
}

/// The instance of `program` whose proof stores the most states.
fn largest(prover: &JitProver, program: &Program) -> TaskInstance {
    let mut best: Option<(usize, TaskInstance)> = None;
    for instance in instances(program) {
        let states = prover
            .prove(&instance, Options::default())
            .expect("a proof")
            .states;
        if best.as_ref().is_none_or(|(most, _)| states > *most) {
            best = Some((states, instance));
        }
    }
    best.expect("an instance").1
}

/// A number from the environment variable `name`, if set.
fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|n| n.parse().ok())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: stepcount batch|single|rounds|prove N SITES…";
    let mode = args.next().expect(usage);
    let n: usize = args.next().and_then(|n| n.parse().ok()).expect(usage);
    for path in args {
        let text = std::fs::read_to_string(&path).expect("a readable site");
        let program = wsitec::compile_str(&path, &text)
            .program
            .expect("a site that checks");
        let layout = StateLayout::for_program(&program).expect("a layout");
        let mut pool = TextPool::for_program(&program);
        let site = JitSite::compile(&program, &layout, &mut pool).expect("a compiled site");
        let all = instances(&program);
        let config = RewardConfig::default();
        let started = std::time::Instant::now();
        let steps = match mode.as_str() {
            "batch" => {
                let spec = ObsSpec::default();
                let threads = env_number("STEPCOUNT_THREADS").unwrap_or(1);
                let size = env_number("STEPCOUNT_BATCH").unwrap_or(BATCH);
                let mut batch =
                    BatchEnv::jit(&site, &all, size, spec, config, 1, threads, &mut pool)
                        .expect("a batch");
                // `STEPCOUNT_MEMO=N`: remember N pages (0: render every page).
                if let Some(n) = env_number("STEPCOUNT_MEMO") {
                    batch.set_render_memo(n);
                }
                batched(&mut batch, n);
                let counts = batch.memo_counts();
                println!(
                    "{path}: remembered pages {:.1}% of the renders, rows {:.1}%",
                    100.0 * counts.found_share(),
                    100.0 * counts.rows_share()
                );
                n * size
            }
            "rounds" => {
                let mut flats: Vec<FlatEnv<'_>> = (all.iter())
                    .filter_map(|i| FlatEnv::new(&site, i, config, &mut pool).ok())
                    .collect();
                let resets = rounds(&mut flats, &mut pool, n);
                println!("{path}: {resets} of {n} turns were resets");
                n - resets
            }
            "single" => {
                let first = all.first().expect("an instance");
                let mut flat = FlatEnv::new(&site, first, config, &mut pool).expect("an env");
                single(&mut flat, &mut pool, n);
                n
            }
            "prove" => {
                let instance = largest(&JitProver::new(&program).expect("a JIT prover"), &program);
                // A prover of its own, so that its counts are the timed
                // proofs'.
                let prover = JitProver::new(&program).expect("a JIT prover");
                let started = std::time::Instant::now();
                let states = proved(&prover, &instance, n);
                let rate = states as f64 / started.elapsed().as_secs_f64();
                let counts = prover.memo_counts();
                println!(
                    "{path}: {}: {states} states, {rate:.0} states/s, {:.0}% of expanded pages remembered ({} of {})",
                    instance.name,
                    100.0 * counts.found_share(),
                    counts.hits,
                    counts.lookups(),
                );
                continue;
            }
            _ => panic!("{usage}"),
        };
        let rate = steps as f64 / started.elapsed().as_secs_f64();
        println!("{path}: {steps} steps, {rate:.0} steps/s");
    }
}
