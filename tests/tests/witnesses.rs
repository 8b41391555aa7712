//! Every example's tasks can be completed by the prover's witness, and that
//! witness earns exactly the rewards the formula of §5.4 gives.
//!
//! For every example site and every task instance (`env::instances`), the
//! witness is `prove::prove_instance` with the default options; a verdict other
//! than feasible fails the test with the instance's name and the prover's
//! explanation. The test does no search of its own: it checks what the prover
//! hands back, by replaying it in the real environment.
//!
//! Each witness is replayed on a fresh `Env`, each step resolved by stable key
//! (`prove::resolve_step`): every action must be one of the offered candidates
//! (`env.actions()`), every step's reward must equal
//! `1[success] + 0.5·(Ψ' − Ψ) − 0.2·ε − 0.01` with Ψ read from the step results'
//! `progress` (Ψ before the first step is the reset env's `progress()`), only
//! the last step may end the episode, and it must end it with success. The
//! same witness in terminal mode earns 0 on every step but the last, which
//! earns 1. The witness must be non-empty and no longer than the task's
//! horizon, and no strict prefix of it may already succeed (each prefix is
//! replayed on its own with `prove::replay`).
//!
//! Instances are checked one thread per example.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::time::Instant;
use wsite_runtime::env::{self, Env, RewardConfig, RewardMode, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Options, Verdict, WitnessStep};

/// Replays `witness` with dense rewards and checks every step against the
/// formula; then in terminal mode. `Err` says what went wrong.
fn replay(
    program: &Program,
    instance: &TaskInstance,
    witness: &[WitnessStep],
) -> Result<(), String> {
    let dense = RewardConfig::default();
    let mut env = Env::new(program, instance, dense).map_err(|e| e.to_string())?;
    let mut psi = env.progress();
    for (i, step) in witness.iter().enumerate() {
        let action = prove::resolve_step(&env, step).map_err(|e| format!("step {i}: {e}"))?;
        if !env.actions().contains(&action) {
            return Err(format!("step {i}: {step} ({action:?}) is not a candidate"));
        }
        let r = env.step(&action).map_err(|e| format!("step {i}: {e}"))?;
        let win = if r.success { 1.0 } else { 0.0 };
        // §5.4 with its default α = 0.5, γ = 0.2, η = 0.01, written out.
        let expected = win + 0.5 * (r.progress - psi) - 0.2 * f64::from(r.epsilon) - 0.01;
        if (r.reward - expected).abs() > 1e-12 {
            return Err(format!(
                "step {i}: reward {} but the formula gives {expected} (Ψ {psi} → {}, ε {})",
                r.reward, r.progress, r.epsilon
            ));
        }
        let last = i + 1 == witness.len();
        if r.done != last || r.success != last {
            return Err(format!(
                "step {i}: done={} success={} (last step: {last})",
                r.done, r.success
            ));
        }
        psi = r.progress;
    }
    let terminal = RewardConfig::with_mode(RewardMode::Terminal);
    let mut env = Env::new(program, instance, terminal).map_err(|e| e.to_string())?;
    for (i, step) in witness.iter().enumerate() {
        let action =
            prove::resolve_step(&env, step).map_err(|e| format!("terminal step {i}: {e}"))?;
        let r = env
            .step(&action)
            .map_err(|e| format!("terminal step {i}: {e}"))?;
        let want = if i + 1 == witness.len() { 1.0 } else { 0.0 };
        if r.reward != want {
            return Err(format!("terminal step {i}: reward {} not {want}", r.reward));
        }
    }
    if !env.done() {
        return Err("terminal replay did not end the episode".into());
    }
    Ok(())
}

/// Proves and replays one task instance: its summary line, or why it fails.
fn check(file: &str, program: &Program, instance: &TaskInstance) -> Result<String, String> {
    let label = format!("{file}: {}", instance.name);
    let t = Instant::now();
    let proof = prove::prove_instance(program, instance, Options::default())
        .map_err(|e| format!("{label}: prover failed: {e}"))?;
    let ms = t.elapsed().as_millis();
    if proof.verdict != Verdict::Feasible {
        return Err(format!(
            "{label}: {} ({} states, depth {}): {:#?}",
            proof.verdict.as_str(),
            proof.states,
            proof.depth,
            proof.explanation
        ));
    }
    let witness = &proof.witness;
    let horizon = program.tasks[instance.task].horizon;
    if witness.is_empty() {
        return Err(format!("{label}: feasible with an empty witness"));
    }
    if witness.len() > horizon as usize {
        return Err(format!(
            "{label}: witness of {} steps, longer than the horizon {horizon}",
            witness.len()
        ));
    }
    replay(program, instance, witness).map_err(|e| format!("{label}: replay: {e}"))?;
    for k in 1..witness.len() {
        match prove::replay(program, instance, &witness[..k]) {
            Ok(false) => {}
            Ok(true) => {
                return Err(format!(
                    "{label}: the first {k} of {} witness steps already succeed",
                    witness.len()
                ))
            }
            Err(e) => return Err(format!("{label}: replaying {k} steps: {e}")),
        }
    }
    Ok(format!(
        "{label}: witness of {} steps (horizon {horizon}), {} states, {ms} ms",
        witness.len(),
        proof.states
    ))
}

#[test]
fn every_task_has_a_witness_with_exact_rewards() {
    let started = Instant::now();
    let programs = wsite_tests::example_programs();
    let outcomes: Vec<Result<String, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = programs
            .iter()
            .map(|(file, program)| {
                s.spawn(move || {
                    env::instances(program)
                        .iter()
                        .map(|instance| check(file, program, instance))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("no checker panicked"))
            .collect()
    });
    assert!(!outcomes.is_empty(), "no task instances found");
    let mut failures = Vec::new();
    for outcome in &outcomes {
        match outcome {
            Ok(line) => eprintln!("{line}"),
            Err(why) => {
                eprintln!("FAILED {why}");
                failures.push(why.as_str());
            }
        }
    }
    eprintln!(
        "{} task instances of {} examples proven and replayed in {:.1} s",
        outcomes.len(),
        programs.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
