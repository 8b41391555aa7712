//! The static bound: a reduction that decides, without searching, that no
//! state within the horizon satisfies a goal conjunct (F401), for tasks whose
//! search space is too large to exhaust within the budget (a renewal past a
//! limit that a `requires` enforces, a refund a fare's frozen flag forbids,
//! a counter that cannot climb far enough in the steps allowed).
//!
//! The analysis is a non-relational abstract interpretation of the site's
//! markers (`exec`), over abstract worlds (`world`) of abstract values
//! (`value`): one set of possible values (an interval for Int and Money) per
//! session variable, per field of each row the instance starts with, and per
//! field of all rows inserted later together. `W₀` is exactly the
//! instance's initial state (after `setup`). `Wₖ₊₁` is `Wₖ` joined with the
//! result of running, from `Wₖ`, the body of every marker some button
//! triggers, with the arguments its buttons can pass: an argument computed
//! from the database and session alone (`session.user`, `Book[3]`) takes
//! its values in `Wₖ`, any other is unknown; each row parameter is bound to
//! each row it may be, one at a time. Only the markers in the goal's cone
//! run (`exec::CallSites::reaching`, where the argument is): the others
//! write nothing the goal's value can depend on, so the claim below, made
//! for every marker, carries over to the locations the goal reads.
//!
//! *Why a verdict from it is exact.* Claim: every concrete state reachable in
//! at most k steps has its database and session in γ(Wₖ). For k = 0 it is
//! the initial state. A step either leaves database and session alone
//! (navigation, typing, selecting, answering, a refused click) or commits the
//! body of exactly one marker, through a button of the page shown (every
//! page's buttons are collected, without a catch-all over element kinds),
//! with the arguments that button computes: a row the state holds (one of
//! the start's, or one inserted since), a value of an expression over the
//! database and session (in γ(Wₖ) by the induction), or a value the
//! analysis leaves unknown. Abstract evaluation over-approximates every
//! successful concrete evaluation (`eval`); a body that commits passed all
//! its `requires`, so narrowing by them keeps the concrete run; writes are
//! weak (the old value is kept beside the new one); a loop body runs to a
//! fixed point; an invariant can only refuse a commit, and is ignored. So the
//! committed state is in γ(Wₖ₊₁). A goal holds only when each top-level
//! conjunct evaluates to `true`; if a conjunct's abstract value in W_H
//! excludes `true`, no state within H steps satisfies the goal, and the
//! instance is infeasible at horizon H, exactly as the exhaustive search
//! would find. When Wₖ₊₁ = Wₖ the bound holds for every horizon.
//!
//! Inserted rows never alias the start's rows because row ids are never
//! reused (`TableState::issue_id`), and a row count never exceeds the
//! table's capacity because an insert beyond it is refused. The bound only
//! ever answers "infeasible": when it cannot rule the goal out, the search
//! runs as before. A verdict from it still gets an explanation, from the
//! explaining search cut at [`EXPLAIN_BUDGET`] states (when that search
//! exhausts the space on its own, its proof is the unreduced one, word for
//! word); a witness found there, or a ruled-out conjunct seen holding, would
//! contradict the argument above and is reported as an error rather than as
//! a verdict. The soundness
//! campaign (`tests/tests/soundness.rs`) compares these verdicts with the
//! unreduced search's on generated sites.

mod eval;
mod exec;
mod value;
mod world;

use super::explain::{conjuncts, plural};
use super::search::prove_explained;
use super::{Engine, Options, Proof, ProveError, Verdict};
use crate::env::{Env, TaskInstance};
use crate::ir;
use crate::ir::reads::{expr_reads, Locs};
use eval::Cx;
use value::Abs;
use world::AbsWorld;

/// States the explaining search may visit to explain a verdict the bound
/// decided.
pub const EXPLAIN_BUDGET: usize = 10_000;

/// What the bound rules out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The goal's top-level conjuncts (by position) that no state within the
    /// horizon satisfies.
    pub impossible: Vec<usize>,
    /// A fixed point was reached: they hold in no reachable state at all.
    pub any_horizon: bool,
}

/// The goal conjuncts of `env`'s instance that no state within `horizon`
/// steps satisfies, when there are any. Only the markers in the goal's cone
/// are run (`exec::CallSites::reaching`).
pub fn bound(program: &ir::Program, env: &Env<'_>, horizon: u32) -> Option<Bound> {
    let goal = env.task().goal.as_ref()?;
    let mut reads = Locs::new();
    expr_reads(program, goal, &mut reads);
    bound_over(
        program,
        env,
        horizon,
        &exec::CallSites::reaching(program, &reads),
    )
}

/// [`bound`] with every marker run, the goal's cone or not. It rules out
/// the same conjuncts; `bound` may find a fixed point sooner, and then says
/// so for every horizon. Kept for the differential tests of the cone.
pub fn bound_every_marker(program: &ir::Program, env: &Env<'_>, horizon: u32) -> Option<Bound> {
    bound_over(program, env, horizon, &exec::CallSites::every(program))
}

fn bound_over(
    program: &ir::Program,
    env: &Env<'_>,
    horizon: u32,
    sites: &exec::CallSites<'_>,
) -> Option<Bound> {
    let goal = env.task().goal.as_ref()?;
    let parts = conjuncts(goal);
    let task_frame: Vec<Abs> = env.task_frame().iter().map(Abs::of).collect();
    let ruled_out = |world: &AbsWorld| -> Vec<usize> {
        let cx = Cx::new(program, world);
        parts
            .iter()
            .enumerate()
            .filter(|(_, c)| !cx.eval(&mut task_frame.clone(), c).as_truth().may_true)
            .map(|(i, _)| i)
            .collect()
    };
    let mut world = AbsWorld::of(&env.state().world);
    let mut impossible = ruled_out(&world);
    for _ in 0..horizon {
        if impossible.is_empty() {
            return None;
        }
        let next = exec::step(program, sites, &world);
        if next == world {
            return Some(Bound {
                impossible,
                any_horizon: true,
            });
        }
        world = next;
        impossible = ruled_out(&world);
    }
    (!impossible.is_empty()).then_some(Bound {
        impossible,
        any_horizon: false,
    })
}

/// The proof of an instance the bound decides (`None` when it cannot, or
/// when `options.reduce` is off): infeasible, explained by a search of at
/// most [`EXPLAIN_BUDGET`] states.
pub(super) fn decide(
    program: &ir::Program,
    env: &Env<'_>,
    instance: &TaskInstance,
    options: Options,
) -> Result<Option<Proof>, ProveError> {
    if !options.reduce {
        return Ok(None);
    }
    let horizon = options.horizon.unwrap_or(env.task().horizon);
    let Some(bound) = bound(program, env, horizon) else {
        return Ok(None);
    };
    let explaining = Options {
        budget: options.budget.min(EXPLAIN_BUDGET),
        ..options
    };
    let proof = prove_explained(program, instance, explaining)?;
    let contradiction = |why: &str| {
        Err(ProveError::self_check(
            &instance.name,
            format!(
                "the static bound rules out goal parts {:?} within {horizon} steps, but {why}",
                bound.impossible
            ),
        ))
    };
    if proof.verdict == Verdict::Feasible {
        return contradiction("the search found a witness");
    }
    let Some(mut explanation) = proof.explanation.clone() else {
        return contradiction("the search gave no explanation");
    };
    let unmet: Vec<usize> = explanation.unmet.iter().map(|u| u.index).collect();
    if bound.impossible.iter().any(|i| !unmet.contains(i)) {
        return contradiction("one of them held in an explored state");
    }
    if proof.verdict == Verdict::Infeasible {
        // The explaining search exhausted the space itself: its proof, as
        // the unreduced search gives it.
        return Ok(Some(Proof {
            engine: Engine::Bound,
            ..proof
        }));
    }
    explanation
        .unmet
        .retain(|u| bound.impossible.contains(&u.index));
    let within = if bound.any_horizon {
        "in no reachable state: no sequence of steps can make it true, whatever the horizon"
            .to_string()
    } else {
        format!(
            "in no state within {horizon} steps: no sequence of that many steps can make it true"
        )
    };
    explanation.summary = format!(
        "the goal holds {within} ({} explored to explain why)",
        plural(proof.states, "state")
    );
    Ok(Some(Proof {
        verdict: Verdict::Infeasible,
        witness: Vec::new(),
        cut_by_horizon: false,
        explanation: Some(explanation),
        engine: Engine::Bound,
        ..proof
    }))
}

#[cfg(test)]
mod tests;
