//! The PPO objective: the clipped surrogate, the value loss and the entropy
//! bonus, as one function of tensors so that tests can check every term by
//! hand.

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
        }
    }
}

/// The loss and its parts (the parts detached, for metrics).
pub struct Loss {
    pub total: Tensor,
    pub policy: f64,
    pub value: f64,
    pub entropy: f64,
    /// `mean(old log p − new log p)`, an estimate of KL(old ‖ new).
    pub approx_kl: f64,
    /// The share of rows whose ratio left `[1 − ε, 1 + ε]`.
    pub clip_fraction: f64,
}

/// `logits` `[B, A]` (padding rows far below the rest), the `actions` taken
/// `[B]` (Int64), their log-probabilities when taken, the advantages, the
/// returns and the new values, all `[B]`.
pub fn loss(
    logits: &Tensor,
    actions: &Tensor,
    old_log_probs: &Tensor,
    advantages: &Tensor,
    returns: &Tensor,
    values: &Tensor,
    c: &PpoConfig,
) -> Loss {
    let log_p = logits.log_softmax(-1, Kind::Float);
    let taken = log_p.gather(1, &actions.unsqueeze(1), false).squeeze_dim(1);
    let ratio = (&taken - old_log_probs).exp();
    let unclipped = &ratio * advantages;
    let clipped = ratio.clamp(1.0 - c.clip, 1.0 + c.clip) * advantages;
    let policy = -unclipped.minimum(&clipped).mean(Kind::Float);
    let value = (values - returns).square().mean(Kind::Float) * 0.5;
    let entropy = -(log_p.exp() * &log_p)
        .sum_dim_intlist(-1, false, Kind::Float)
        .mean(Kind::Float);
    let total = &policy + &value * c.value_coef - &entropy * c.entropy_coef;
    let scalar = |t: &Tensor| t.double_value(&[]);
    Loss {
        policy: scalar(&policy),
        value: scalar(&value),
        entropy: scalar(&entropy),
        approx_kl: scalar(&(old_log_probs - &taken).mean(Kind::Float)),
        clip_fraction: scalar(
            &(&ratio - 1.0)
                .abs()
                .gt(c.clip)
                .to_kind(Kind::Float)
                .mean(Kind::Float),
        ),
        total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f32]) -> Tensor {
        Tensor::from_slice(v)
    }

    #[test]
    fn every_term_matches_a_hand_computation() {
        // Two rows of two actions. Row 0: logits (0, ln 3) → p = (1/4, 3/4);
        // took action 1 (log p = ln 3/4), old log p = ln 1/2 → ratio 1.5,
        // clipped to 1.2; advantage 2 → min(3, 2.4) = 2.4.
        // Row 1: logits (0, 0) → p = (1/2, 1/2); took action 0, old log p =
        // ln 1/2 → ratio 1; advantage −1 → −1.
        let logits = t(&[0.0, 3f32.ln(), 0.0, 0.0]).view([2, 2]);
        let actions = Tensor::from_slice(&[1i64, 0]);
        let old = t(&[0.5f32.ln(), 0.5f32.ln()]);
        let adv = t(&[2.0, -1.0]);
        let returns = t(&[1.0, 0.0]);
        let values = t(&[0.0, 2.0]);
        let c = PpoConfig::default();
        let l = loss(&logits, &actions, &old, &adv, &returns, &values, &c);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-5;
        // policy = −mean(2.4, −1) = −0.7
        assert!(close(l.policy, -0.7), "{}", l.policy);
        // value = ½ mean((0 − 1)², (2 − 0)²) = 1.25
        assert!(close(l.value, 1.25), "{}", l.value);
        // entropy = mean(−(¼ ln ¼ + ¾ ln ¾), ln 2)
        let h0 = -(0.25f64 * 0.25f64.ln() + 0.75 * 0.75f64.ln());
        let h1 = 2f64.ln();
        assert!(close(l.entropy, (h0 + h1) / 2.0), "{}", l.entropy);
        let total = -0.7 + 0.5 * 1.25 - 0.01 * (h0 + h1) / 2.0;
        assert!(close(l.total.double_value(&[]), total));
        // One of two ratios left [0.8, 1.2].
        assert!(close(l.clip_fraction, 0.5));
        // approx KL = mean(ln ½ − ln ¾, 0)
        assert!(close(l.approx_kl, ((0.5f64).ln() - 0.75f64.ln()) / 2.0));
    }

    #[test]
    fn padding_rows_take_no_probability_and_keep_the_entropy_finite() {
        let logits = t(&[0.0, 0.0, super::super::policy::MASKED_LOGIT as f32]).view([1, 3]);
        let l = loss(
            &logits,
            &Tensor::from_slice(&[0i64]),
            &t(&[0.5f32.ln()]),
            &t(&[1.0]),
            &t(&[0.0]),
            &t(&[0.0]),
            &PpoConfig::default(),
        );
        assert!((l.entropy - 2f64.ln()).abs() < 1e-5, "{}", l.entropy);
    }
}
