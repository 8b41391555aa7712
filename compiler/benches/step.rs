//! Step throughput on each example, playing a fixed pseudo-random policy (the
//! same actions every run): the reference interpreter (each step renders the
//! observation and lists the candidate actions, as an agent loop does), the
//! JIT's `FlatEnv` on the same instance, and a JIT `BatchEnv` of 32
//! environments on one thread writing the trainer buffers; and the JIT
//! prover on every task instance (elements/s = distinct states/s).
//!
//! `cargo bench -p wsitec --bench step` (criterion reports elements/s = steps/s)

#![allow(clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use wsite_runtime::batch::{BatchEnv, ObsSpec};
use wsite_runtime::env::{instances, Env, RewardConfig};
use wsite_runtime::jit::{FlatEnv, JitSite};
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_runtime::prove::{JitProver, Options};

const STEPS: u64 = 200;

fn programs() -> Vec<(String, wsite_runtime::ir::Program)> {
    wsite_tests::examples()
        .iter()
        .filter_map(|p| {
            let name = p.file_stem()?.to_str()?.to_string();
            let text = std::fs::read_to_string(p).ok()?;
            Some((name.clone(), wsitec::compile_str(&name, &text).program?))
        })
        .collect()
}

/// Plays `STEPS` steps with a fixed linear congruential choice of actions,
/// resetting when an episode ends.
fn play(env: &mut Env<'_>) -> f64 {
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut total = 0.0;
    for _ in 0..STEPS {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let actions = env.actions();
        if actions.is_empty() || env.done() {
            let _ = env.reset();
            continue;
        }
        let action = actions[(seed >> 33) as usize % actions.len()].clone();
        if let Ok(step) = env.step(&action) {
            total += step.reward;
        }
        black_box(env.observation());
    }
    total
}

fn bench_steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("interpreter_steps");
    group.throughput(Throughput::Elements(STEPS));
    for (name, program) in programs() {
        let Some(instance) = instances(&program).into_iter().next() else {
            continue;
        };
        group.bench_function(&name, |b| {
            b.iter(|| {
                let mut env =
                    Env::new(&program, &instance, RewardConfig::default()).expect("reset");
                black_box(play(&mut env))
            })
        });
    }
    group.finish();
}

/// The LCG's next choice among `n`.
fn next(seed: &mut u64, n: usize) -> usize {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 33) as usize % n.max(1)
}

fn bench_jit_steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("jit_steps");
    group.throughput(Throughput::Elements(STEPS));
    for (name, program) in programs() {
        let Some(instance) = instances(&program).into_iter().next() else {
            continue;
        };
        let layout = StateLayout::for_program(&program).expect("layout");
        let mut pool = TextPool::for_program(&program);
        let site = JitSite::compile(&program, &layout, &mut pool).expect("compile");
        let config = RewardConfig::default();
        let Ok(mut flat) = FlatEnv::new(&site, &instance, config, &mut pool) else {
            continue;
        };
        group.bench_function(&name, |b| {
            b.iter(|| {
                let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
                flat.reset(&mut pool).expect("reset");
                for _ in 0..STEPS {
                    let n = flat.actions().len();
                    if n == 0 || flat.done() {
                        flat.reset(&mut pool).expect("reset");
                        continue;
                    }
                    let k = next(&mut seed, n);
                    black_box(flat.step(k, &mut pool).expect("step"));
                }
            })
        });
    }
    group.finish();
}

/// Environments in the batched bench.
const BATCH: usize = 32;

fn bench_jit_batch(c: &mut Criterion) {
    let mut group = c.benchmark_group("jit_batched_steps");
    group.throughput(Throughput::Elements(BATCH as u64));
    for (name, program) in programs() {
        let layout = StateLayout::for_program(&program).expect("layout");
        let mut pool = TextPool::for_program(&program);
        let site = JitSite::compile(&program, &layout, &mut pool).expect("compile");
        let (spec, config) = (ObsSpec::default(), RewardConfig::default());
        let all = instances(&program);
        let Ok(mut batch) = BatchEnv::jit(&site, &all, BATCH, spec, config, 1, 1, &mut pool) else {
            continue;
        };
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut actions = vec![0u32; BATCH];
        group.bench_function(&name, |b| {
            b.iter(|| {
                for (a, &n) in actions.iter_mut().zip(&batch.buffers().action_count) {
                    *a = next(&mut seed, n as usize) as u32;
                }
                batch.step(&actions).expect("step");
            })
        });
    }
    group.finish();
}

/// Proving every task instance of each example with the JIT prover (default
/// options), as `wsitec bench` times it; elements/s = distinct states/s.
fn bench_jit_prover(c: &mut Criterion) {
    let mut group = c.benchmark_group("jit_prover");
    group.sample_size(10);
    for (name, program) in programs() {
        let Ok(prover) = JitProver::new(&program) else {
            continue;
        };
        let all = instances(&program);
        let prove_all = || {
            all.iter()
                .filter_map(|i| prover.prove(i, Options::default()).ok())
                .map(|proof| proof.states as u64)
                .sum::<u64>()
        };
        group.throughput(Throughput::Elements(prove_all()));
        group.bench_function(&name, |b| b.iter(|| black_box(prove_all())));
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_steps,
    bench_jit_steps,
    bench_jit_batch,
    bench_jit_prover
);
criterion_main!(benches);
