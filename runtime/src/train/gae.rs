//! Generalised advantage estimation over a rollout of `T` steps × `N`
//! environments, in plain Rust (it needs no tensors, and tests check it by
//! hand).
//!
//! Layout: index `t * n + i` is step `t` of environment `i`. `done[t * n + i]`
//! says the episode of environment `i` ended with step `t` (the batch then
//! resets it, so the value after it belongs to a new episode and is not
//! bootstrapped from).

/// Advantages and returns (`advantage + value`).
#[derive(Clone, Debug, Default)]
pub struct Estimates {
    pub advantages: Vec<f32>,
    pub returns: Vec<f32>,
}

/// GAE(γ, λ): `delta_t = r_t + γ (1 - d_t) V_{t+1} - V_t` and
/// `A_t = delta_t + γ λ (1 - d_t) A_{t+1}`, with `last_values` the values of
/// the observations after the last step.
pub fn estimate(
    rewards: &[f32],
    values: &[f32],
    done: &[bool],
    last_values: &[f32],
    gamma: f32,
    lambda: f32,
) -> Estimates {
    let n = last_values.len();
    let steps = rewards.len().checked_div(n).unwrap_or(0);
    let mut advantages = vec![0.0; rewards.len()];
    let mut next_advantage = vec![0.0f32; n];
    let mut next_value = last_values.to_vec();
    for t in (0..steps).rev() {
        for i in 0..n {
            let k = t * n + i;
            let live = if done[k] { 0.0 } else { 1.0 };
            let delta = rewards[k] + gamma * live * next_value[i] - values[k];
            let a = delta + gamma * lambda * live * next_advantage[i];
            advantages[k] = a;
            next_advantage[i] = a;
            next_value[i] = values[k];
        }
    }
    let returns = advantages.iter().zip(values).map(|(a, v)| a + v).collect();
    Estimates {
        advantages,
        returns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn one_environment_by_hand() {
        // Three steps, no episode end, γ = 0.9, λ = 0.5.
        let e = estimate(
            &[1.0, 0.0, 2.0],
            &[0.5, 1.0, 1.5],
            &[false; 3],
            &[2.0],
            0.9,
            0.5,
        );
        // deltas: 1 + .9*1 - .5 = 1.4; 0 + .9*1.5 - 1 = .35; 2 + .9*2 - 1.5 = 2.3
        // A2 = 2.3; A1 = .35 + .45*2.3 = 1.385; A0 = 1.4 + .45*1.385 = 2.02325
        assert!(
            close(&e.advantages, &[2.02325, 1.385, 2.3]),
            "{:?}",
            e.advantages
        );
        assert!(close(&e.returns, &[2.52325, 2.385, 3.8]), "{:?}", e.returns);
    }

    #[test]
    fn an_episode_end_cuts_the_bootstrap() {
        // Two environments, two steps; environment 0 ends at step 0.
        let e = estimate(
            &[1.0, 0.0, 0.0, 1.0],
            &[0.0, 0.0, 0.0, 0.0],
            &[true, false, false, false],
            &[10.0, 10.0],
            1.0,
            1.0,
        );
        // env 0: A1 = 0 + 10 = 10; A0 = 1 (done: nothing from step 1).
        // env 1: A1 = 1 + 10 = 11; A0 = 0 + 0 + 11 = 11.
        assert!(
            close(&e.advantages, &[1.0, 11.0, 10.0, 11.0]),
            "{:?}",
            e.advantages
        );
    }
}
