//! Goals, progress and reward (§5.4).
//!
//! Ψ(s) = Σ wᵢ·φᵢ(s) / Σ wᵢ over the task's progress predicates (0 with none, or
//! when the weights sum to 0); a predicate that faults counts as false, as does
//! a goal that faults. Dense reward: `1[success] + α·(Ψ(s') − Ψ(s)) − γ·ε − η`;
//! terminal reward: `1[success]`; decomposed reward (docs/training.md):
//! `1[success] + β·R_acc·new_best/d₀`, whose credit `judge` computes.

use super::{RewardConfig, RewardMode, State};
use crate::interp::eval::eval_bool;
use crate::ir::{self, Expr, Value};

/// Whether `cond` holds in `state`, evaluated in (a copy of) the task frame.
pub(crate) fn holds(program: &ir::Program, state: &State, frame: &[Value], cond: &Expr) -> bool {
    let ctx = state.world.context(program, Some(&state.nav));
    let mut frame = frame.to_vec();
    eval_bool(&ctx, &mut frame, cond).unwrap_or(false)
}

/// Whether the task's goal holds (never, for a retrieval task).
pub(crate) fn goal_holds(
    program: &ir::Program,
    task: &ir::TaskDef,
    state: &State,
    frame: &[Value],
) -> bool {
    task.goal
        .as_ref()
        .is_some_and(|g| holds(program, state, frame, g))
}

/// Ψ(s).
pub(crate) fn potential(
    program: &ir::Program,
    task: &ir::TaskDef,
    state: &State,
    frame: &[Value],
) -> f64 {
    let total: i64 = task
        .progress
        .iter()
        .map(|(w, _)| *w)
        .fold(0, i64::saturating_add);
    if total == 0 {
        return 0.0;
    }
    let got: i64 = task
        .progress
        .iter()
        .filter(|(_, p)| holds(program, state, frame, p))
        .map(|(w, _)| *w)
        .fold(0, i64::saturating_add);
    got as f64 / total as f64
}

/// The reward of one step; `credit` is the decomposed mode's β·R_acc·
/// new_best/d₀ (0 where no oracle judges).
pub(crate) fn reward(
    config: &RewardConfig,
    success: bool,
    before: f64,
    after: f64,
    epsilon: u8,
    credit: f64,
) -> f64 {
    let win = if success { 1.0 } else { 0.0 };
    match config.mode {
        RewardMode::Terminal => win,
        RewardMode::Decomposed => win + credit,
        RewardMode::Dense => {
            win + config.alpha * (after - before) - config.gamma * f64::from(epsilon) - config.eta
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_terminal_rewards() {
        let dense = RewardConfig::default();
        let r = reward(&dense, false, 0.0, 0.5, 0, 0.3);
        assert!((r - (0.25 - 0.01)).abs() < 1e-12);
        let r = reward(&dense, false, 0.5, 0.5, 1, 0.0);
        assert!((r - (-0.2 - 0.01)).abs() < 1e-12);
        let terminal = RewardConfig::with_mode(RewardMode::Terminal);
        assert_eq!(reward(&terminal, true, 0.0, 1.0, 0, 0.3), 1.0);
        assert_eq!(reward(&terminal, false, 0.0, 1.0, 1, 0.0), 0.0);
        let decomposed = RewardConfig::with_mode(RewardMode::Decomposed);
        assert_eq!(reward(&decomposed, false, 0.0, 1.0, 1, 0.25), 0.25);
        assert_eq!(reward(&decomposed, true, 0.0, 0.0, 0, 0.25), 1.25);
    }
}
