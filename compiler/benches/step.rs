//! Reference-interpreter throughput: environment steps per second on each
//! example, playing a fixed pseudo-random policy (the same actions every run).
//! Each step renders the observation and lists the candidate actions, as an
//! agent loop does.
//!
//! `cargo bench -p wsitec --bench step` (criterion reports elements/s = steps/s)

#![allow(clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use wsite_runtime::env::{instances, Env, RewardConfig};

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

criterion_group!(benches, bench_steps);
criterion_main!(benches);
