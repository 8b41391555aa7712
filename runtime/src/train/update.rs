//! One PPO update: several epochs of shuffled minibatches over a rollout
//! uploaded once, stopped early when the policy has moved too far from the
//! one that collected the rollout (CleanRL's `target_kl`), and the record of
//! what an update did ([`UpdateMetrics`]: its losses here, its rollout's
//! returns filled in by `run`).

use super::adam::Adam;
use super::error::AdamError;
use super::obs::ObsStore;
use super::policy::Policy;
use super::ppo::{self, PpoConfig, Targets};
use super::profile::{Phase, Stopwatch};
use tch::{Device, Kind, Tensor};

/// What one update did.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct UpdateMetrics {
    pub update: usize,
    pub env_steps: u64,
    pub episodes: usize,
    /// Over the episodes that ended during this update's rollout.
    pub mean_return: f64,
    pub success_rate: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub entropy: f64,
    pub approx_kl: f64,
    pub clip_fraction: f64,
    /// Mean R_acc over the rollout's judged steps (decomposed runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_accuracy: Option<f64>,
    /// Rollout steps the distance oracle could not decide.
    #[serde(default)]
    pub unknown_steps: usize,
}

/// What an update learns from: the rollout's rows and, per row, what it
/// recorded (host vectors, uploaded once).
pub struct Batch<'a> {
    pub store: &'a ObsStore,
    pub actions: &'a [i64],
    pub log_probs: &'a [f32],
    pub values: &'a [f32],
    pub advantages: &'a [f32],
    pub returns: &'a [f32],
}

/// Whether an epoch whose mean approximate KL was `kl` ends the update.
pub fn stops_early(kl: f64, c: &PpoConfig) -> bool {
    c.target_kl.is_some_and(|target| kl > target)
}

/// Up to `c.epochs` epochs of `c.minibatches` minibatches each; the
/// metrics are the means over the minibatches taken.
pub fn optimise(
    policy: &Policy,
    opt: &mut Adam,
    b: &Batch<'_>,
    c: &PpoConfig,
    device: Device,
    watch: &mut dyn Stopwatch,
) -> Result<UpdateMetrics, AdamError> {
    let obs = b.store.to_device(device);
    let up = |v: &[f32]| Tensor::from_slice(v).to_device(device);
    let actions = Tensor::from_slice(b.actions).to_device(device);
    let (old, values, adv, returns) = (
        up(b.log_probs),
        up(b.values),
        up(b.advantages),
        up(b.returns),
    );
    watch.lap(Phase::Upload);
    let rows = b.store.rows as i64;
    let size = (rows / c.minibatches.max(1) as i64).max(1);
    let mut m = UpdateMetrics::default();
    let mut count = 0.0;
    for _ in 0..c.epochs {
        let order = Tensor::randperm(rows, (Kind::Int64, device));
        let (mut start, mut epoch_kl, mut taken) = (0, 0.0, 0.0);
        while start < rows {
            let idx = order.narrow(0, start, size.min(rows - start));
            let (logits, new_values) = policy.forward(&obs.select(&idx));
            let pick = |t: &Tensor| t.index_select(0, &idx);
            let (a, o, v, ad, r) = (
                pick(&actions),
                pick(&old),
                pick(&values),
                pick(&adv),
                pick(&returns),
            );
            let targets = Targets {
                actions: &a,
                old_log_probs: &o,
                advantages: &ad,
                returns: &r,
                old_values: &v,
            };
            let l = ppo::loss(&logits, &new_values, &targets, c);
            watch.lap(Phase::UpdateForward);
            let grads = opt.gradients(&l.total)?;
            watch.lap(Phase::UpdateBackward);
            opt.apply(&grads, c.max_grad_norm)?;
            watch.lap(Phase::Optimizer);
            m.policy_loss += l.policy;
            m.value_loss += l.value;
            m.entropy += l.entropy;
            m.approx_kl += l.approx_kl;
            m.clip_fraction += l.clip_fraction;
            epoch_kl += l.approx_kl;
            taken += 1.0;
            count += 1.0;
            start += size;
        }
        if stops_early(epoch_kl / f64::max(taken, 1.0), c) {
            break;
        }
    }
    if count > 0.0 {
        m.policy_loss /= count;
        m.value_loss /= count;
        m.entropy /= count;
        m.approx_kl /= count;
        m.clip_fraction /= count;
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_set_target_kl_that_was_exceeded_stops_the_update() {
        let target = PpoConfig {
            target_kl: Some(0.02),
            ..PpoConfig::default()
        };
        assert!(stops_early(0.03, &target));
        assert!(!stops_early(0.02, &target));
        assert!(!stops_early(10.0, &PpoConfig::default()));
    }
}
