//! The PPO objective: the clipped surrogate over per-minibatch normalised
//! advantages, the (optionally clipped) value loss and the entropy bonus, as
//! one function of tensors so that tests can check every term by hand. The
//! conventions are CleanRL's (`ppo.py`): advantages normalised within each
//! minibatch, the value loss clipped around the rollout's values when asked,
//! and the `(r − 1) − ln r` estimate of the KL that stops an update early.

use tch::{Kind, Tensor};

/// PPO's hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PpoConfig {
    /// The clip range ε of the probability ratio.
    pub clip: f64,
    pub value_coef: f64,
    pub entropy_coef: f64,
    pub gamma: f32,
    pub lambda: f32,
    pub epochs: usize,
    pub minibatches: usize,
    pub learning_rate: f64,
    pub max_grad_norm: f64,
    /// Clip the new values to within ε of the rollout's, and take the larger
    /// of the clipped and unclipped squared errors (CleanRL's `clip_vloss`).
    pub clip_value: bool,
    /// Stop an update's epochs once an epoch's mean approximate KL exceeds
    /// this (CleanRL's `target_kl`); `None` runs every epoch.
    pub target_kl: Option<f64>,
}

impl Default for PpoConfig {
    fn default() -> PpoConfig {
        PpoConfig {
            clip: 0.2,
            value_coef: 0.5,
            entropy_coef: 0.01,
            gamma: 0.99,
            lambda: 0.95,
            epochs: 4,
            minibatches: 4,
            learning_rate: 5e-4,
            max_grad_norm: 0.5,
            clip_value: false,
            target_kl: None,
        }
    }
}

/// The loss and its parts (the parts detached, for metrics).
pub struct Loss {
    pub total: Tensor,
    pub policy: f64,
    pub value: f64,
    pub entropy: f64,
    /// `mean((r − 1) − ln r)` with `r` the probability ratio: an estimate of
    /// KL(old ‖ new) that is never negative (CleanRL's `approx_kl`).
    pub approx_kl: f64,
    /// The share of rows whose ratio left `[1 − ε, 1 + ε]`.
    pub clip_fraction: f64,
}

/// What the rollout recorded for a minibatch's rows, all `[B]`.
pub struct Targets<'a> {
    /// The actions taken (Int64).
    pub actions: &'a Tensor,
    /// Their log-probabilities when taken.
    pub old_log_probs: &'a Tensor,
    /// The advantages, before normalisation.
    pub advantages: &'a Tensor,
    pub returns: &'a Tensor,
    /// The values when the rows were observed.
    pub old_values: &'a Tensor,
}

/// Advantages scaled to mean 0 and standard deviation 1 within the
/// minibatch; a minibatch of one row has no spread and is only centred.
pub fn normalise(advantages: &Tensor) -> Tensor {
    let centred = advantages - advantages.mean(Kind::Float);
    if advantages.numel() < 2 {
        return centred;
    }
    centred / (advantages.std(true) + 1e-8)
}

/// `logits` `[B, A]` (padding rows far below the rest) and the new `values`
/// `[B]` of a minibatch against what the rollout recorded.
pub fn loss(logits: &Tensor, values: &Tensor, t: &Targets<'_>, c: &PpoConfig) -> Loss {
    let log_p = logits.log_softmax(-1, Kind::Float);
    let taken = log_p
        .gather(1, &t.actions.unsqueeze(1), false)
        .squeeze_dim(1);
    let log_ratio = &taken - t.old_log_probs;
    let ratio = log_ratio.exp();
    let advantages = normalise(t.advantages);
    let unclipped = &ratio * &advantages;
    let clipped = ratio.clamp(1.0 - c.clip, 1.0 + c.clip) * &advantages;
    let policy = -unclipped.minimum(&clipped).mean(Kind::Float);
    let value = value_loss(values, t, c);
    let entropy = -(log_p.exp() * &log_p)
        .sum_dim_intlist(-1, false, Kind::Float)
        .mean(Kind::Float);
    let total = &policy + &value * c.value_coef - &entropy * c.entropy_coef;
    let scalar = |t: &Tensor| t.double_value(&[]);
    let (approx_kl, clip_fraction) = tch::no_grad(|| {
        (
            scalar(&((&ratio - 1.0) - &log_ratio).mean(Kind::Float)),
            scalar(
                &(&ratio - 1.0)
                    .abs()
                    .gt(c.clip)
                    .to_kind(Kind::Float)
                    .mean(Kind::Float),
            ),
        )
    });
    Loss {
        policy: scalar(&policy),
        value: scalar(&value),
        entropy: scalar(&entropy),
        approx_kl,
        clip_fraction,
        total,
    }
}

/// `½ mean((v − R)²)`, or with `clip_value` `½ mean(max((v − R)²,
/// (v_old + clamp(v − v_old, −ε, ε) − R)²))`.
fn value_loss(values: &Tensor, t: &Targets<'_>, c: &PpoConfig) -> Tensor {
    let unclipped = (values - t.returns).square();
    let worst = if c.clip_value {
        let moved = (values - t.old_values).clamp(-c.clip, c.clip);
        let clipped = (t.old_values + moved - t.returns).square();
        unclipped.maximum(&clipped)
    } else {
        unclipped
    };
    worst.mean(Kind::Float) * 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f32]) -> Tensor {
        Tensor::from_slice(v)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn every_term_matches_a_hand_computation() {
        // Two rows of two actions. Advantages (2, −1) normalise to
        // (1/√2, −1/√2): mean ½, unbiased std √4.5 = 3/√2.
        // Row 0: logits (0, ln 3) → p = (1/4, 3/4); took action 1 (log p =
        // ln 3/4), old log p = ln 1/2 → ratio 1.5, clipped to 1.2 →
        // min(1.5, 1.2)/√2 = 1.2/√2.
        // Row 1: logits (0, 0) → p = (1/2, 1/2); took action 0, old log p =
        // ln 1/2 → ratio 1 → −1/√2.
        let logits = t(&[0.0, 3f32.ln(), 0.0, 0.0]).view([2, 2]);
        let actions = Tensor::from_slice(&[1i64, 0]);
        let old = t(&[0.5f32.ln(), 0.5f32.ln()]);
        let adv = t(&[2.0, -1.0]);
        let returns = t(&[1.0, 0.0]);
        let values = t(&[0.0, 2.0]);
        let targets = Targets {
            actions: &actions,
            old_log_probs: &old,
            advantages: &adv,
            returns: &returns,
            old_values: &values,
        };
        let c = PpoConfig::default();
        let l = loss(&logits, &values, &targets, &c);
        // policy = −mean(1.2/√2, −1/√2) = −0.1/√2
        let policy = -0.1 / 2f64.sqrt();
        assert!(close(l.policy, policy), "{}", l.policy);
        // value = ½ mean((0 − 1)², (2 − 0)²) = 1.25
        assert!(close(l.value, 1.25), "{}", l.value);
        // entropy = mean(−(¼ ln ¼ + ¾ ln ¾), ln 2)
        let h0 = -(0.25f64 * 0.25f64.ln() + 0.75 * 0.75f64.ln());
        let h1 = 2f64.ln();
        assert!(close(l.entropy, (h0 + h1) / 2.0), "{}", l.entropy);
        let total = policy + 0.5 * 1.25 - 0.01 * (h0 + h1) / 2.0;
        assert!(close(l.total.double_value(&[]), total));
        // One of two ratios left [0.8, 1.2].
        assert!(close(l.clip_fraction, 0.5));
        // approx KL = mean((1.5 − 1) − ln 1.5, (1 − 1) − ln 1)
        assert!(
            close(l.approx_kl, (0.5 - 1.5f64.ln()) / 2.0),
            "{}",
            l.approx_kl
        );
    }

    #[test]
    fn advantages_are_normalised_within_the_minibatch() {
        // (1, 2, 3, 6): mean 3, unbiased variance (4 + 1 + 0 + 9)/3.
        let n = normalise(&t(&[1.0, 2.0, 3.0, 6.0]));
        let std = (14f64 / 3.0).sqrt();
        for (k, centred) in [-2.0, -1.0, 0.0, 3.0].into_iter().enumerate() {
            assert!(close(n.double_value(&[k as i64]), centred / std));
        }
        // One row: centred, not divided by an undefined spread.
        assert_eq!(normalise(&t(&[5.0])).double_value(&[0]), 0.0);
    }

    #[test]
    fn the_clipped_value_loss_takes_the_worse_of_the_two_errors() {
        // (old, new, return) with ε = 0.2:
        // (0, 0.5, 1): unclipped 0.25; clipped to 0.2 → 0.64; takes 0.64.
        // (1, 0.9, 0): moved −0.1, inside ε → 0.81 both.
        // (0, 1, 1):   unclipped 0; clipped to 0.2 → 0.64; takes 0.64.
        let old = t(&[0.0, 1.0, 0.0]);
        let new = t(&[0.5, 0.9, 1.0]);
        let returns = t(&[1.0, 0.0, 1.0]);
        let zeros = t(&[0.0, 0.0, 0.0]);
        let actions = Tensor::from_slice(&[0i64, 0, 0]);
        let targets = Targets {
            actions: &actions,
            old_log_probs: &zeros,
            advantages: &zeros,
            returns: &returns,
            old_values: &old,
        };
        let logits = t(&[0.0; 3]).view([3, 1]);
        let clipped = PpoConfig {
            clip_value: true,
            ..PpoConfig::default()
        };
        let l = loss(&logits, &new, &targets, &clipped);
        assert!(
            close(l.value, 0.5 * (0.64 + 0.81 + 0.64) / 3.0),
            "{}",
            l.value
        );
        let plain = loss(&logits, &new, &targets, &PpoConfig::default());
        assert!(
            close(plain.value, 0.5 * (0.25 + 0.81 + 0.0) / 3.0),
            "{}",
            plain.value
        );
    }

    #[test]
    fn padding_rows_take_no_probability_and_keep_the_entropy_finite() {
        let logits = t(&[0.0, 0.0, super::super::policy::MASKED_LOGIT as f32]).view([1, 3]);
        let actions = Tensor::from_slice(&[0i64]);
        let targets = Targets {
            actions: &actions,
            old_log_probs: &t(&[0.5f32.ln()]),
            advantages: &t(&[1.0]),
            returns: &t(&[0.0]),
            old_values: &t(&[0.0]),
        };
        let l = loss(&logits, &t(&[0.0]), &targets, &PpoConfig::default());
        assert!((l.entropy - 2f64.ln()).abs() < 1e-5, "{}", l.entropy);
    }
}
