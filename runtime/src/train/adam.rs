//! Adam with gradient-norm clipping, its moments held in plain tensors so a
//! checkpoint can carry them: a resumed run continues with the optimizer it
//! stopped with instead of a cold one (tch's `nn::Optimizer` keeps its state
//! inside libtorch, out of reach of a save).
//!
//! The clipping factor stays a tensor, so a CUDA step never waits for the
//! host to read the gradient norm back.

use super::error::AdamError;
use std::path::Path;
use tch::{nn, Kind, Tensor};

pub struct Adam {
    /// Variable names, sorted, so a saved state maps back onto the same
    /// variables in a fresh store.
    names: Vec<String>,
    params: Vec<Tensor>,
    first: Vec<Tensor>,
    second: Vec<Tensor>,
    /// One tensor the size of each variable, reused by every step.
    scratch: Vec<Tensor>,
    steps: i64,
    pub learning_rate: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
}

impl Adam {
    /// Adam over every trainable variable of `vs` (β = 0.9, 0.999; ε = 1e-8,
    /// as PyTorch's defaults).
    pub fn new(vs: &nn::VarStore, learning_rate: f64) -> Adam {
        let mut named: Vec<(String, Tensor)> = vs
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let zeros = |ts: &[(String, Tensor)]| ts.iter().map(|(_, t)| t.zeros_like()).collect();
        Adam {
            first: zeros(&named),
            second: zeros(&named),
            scratch: zeros(&named),
            names: named.iter().map(|(n, _)| n.clone()).collect(),
            params: named.into_iter().map(|(_, t)| t).collect(),
            steps: 0,
            learning_rate,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }

    /// Updates taken so far.
    pub fn steps(&self) -> i64 {
        self.steps
    }

    /// Back-propagates `loss`, scales the gradients down to a total norm of
    /// at most `max_norm`, and takes one Adam step.
    pub fn step(&mut self, loss: &Tensor, max_norm: f64) -> Result<(), AdamError> {
        let grads = self.gradients(loss)?;
        self.apply(&grads, max_norm)
    }

    /// The gradients of `loss` with respect to every variable (undefined for
    /// one it does not depend on), the first half of [`Adam::step`], apart
    /// so that a profile can time back-propagation on its own.
    pub fn gradients(&self, loss: &Tensor) -> Result<Vec<Tensor>, AdamError> {
        // Fresh gradients straight from autograd, not accumulated into
        // `.grad`: no pass to zero them first, none to add into them.
        Tensor::f_run_backward(&[loss], &self.params, false, false).map_err(AdamError::Backward)
    }

    /// Scales `grads` (from [`Adam::gradients`]) down to a total norm of at
    /// most `max_norm` and takes one Adam step with them.
    pub fn apply(&mut self, grads: &[Tensor], max_norm: f64) -> Result<(), AdamError> {
        tch::no_grad(|| {
            let norms: Vec<Tensor> = grads
                .iter()
                .filter(|g| g.defined())
                .map(|g| g.norm().to_kind(Kind::Float))
                .collect();
            if norms.is_empty() {
                return Ok(());
            }
            let total = Tensor::stack(&norms, 0).norm();
            let scale = (max_norm / (total + 1e-6)).clamp_max(1.0);
            self.steps += 1;
            let t = self.steps as i32;
            let correction1 = 1.0 - self.beta1.powi(t);
            let correction2 = 1.0 - self.beta2.powi(t);
            let step_size = self.learning_rate / correction1;
            // In place and into a kept scratch tensor: the token embedding
            // alone is 2M weights, and every pass over it or fresh
            // allocation of its size shows in the steps/s.
            for (k, g) in grads.iter().enumerate() {
                if !g.defined() {
                    continue;
                }
                let mut g = g.shallow_clone();
                let _ = g.g_mul_(&scale);
                let _ = self.first[k].lerp_(&g, 1.0 - self.beta1);
                let d = &mut self.scratch[k];
                let _ = g.square_out(d);
                let _ = self.second[k].lerp_(d, 1.0 - self.beta2);
                // p − step · m / (√(v / c2) + ε), as p + m / d with
                // d = −(√v / √c2 + ε) / step.
                let _ = self.second[k].sqrt_out(d);
                let _ = d.g_mul_scalar_(-1.0 / (step_size * correction2.sqrt()));
                let _ = d.g_add_scalar_(-self.eps / step_size);
                let _ = self.params[k].addcdiv_(&self.first[k], d);
            }
            Ok(())
        })
    }

    /// Writes the moments and the step count (safetensors).
    pub fn save(&self, path: &Path) -> Result<(), AdamError> {
        let mut named: Vec<(String, Tensor)> = Vec::with_capacity(2 * self.names.len() + 1);
        for (k, name) in self.names.iter().enumerate() {
            named.push((format!("m.{name}"), self.first[k].shallow_clone()));
            named.push((format!("v.{name}"), self.second[k].shallow_clone()));
        }
        named.push(("steps".into(), Tensor::from_slice(&[self.steps])));
        Tensor::write_safetensors(&named, path).map_err(AdamError::File)
    }

    /// Reads back what [`Adam::save`] wrote; a state for other variables (a
    /// different policy shape) is an `Err` and changes nothing.
    pub fn load(&mut self, path: &Path) -> Result<(), AdamError> {
        let saved = Tensor::read_safetensors(path).map_err(AdamError::File)?;
        let find = |key: &str| saved.iter().find(|(n, _)| n == key).map(|(_, t)| t);
        let mut first = Vec::with_capacity(self.names.len());
        let mut second = Vec::with_capacity(self.names.len());
        for (k, name) in self.names.iter().enumerate() {
            let shape = self.params[k].size();
            let pick = |key: String| match find(&key) {
                Some(t) if t.size() == shape => Ok(t.to_device(self.params[k].device())),
                Some(_) => Err(AdamError::Shape(key)),
                None => Err(AdamError::Missing(key)),
            };
            first.push(pick(format!("m.{name}"))?);
            second.push(pick(format!("v.{name}"))?);
        }
        let steps = find("steps")
            .and_then(|t| i64::try_from(t.to_kind(Kind::Int64).sum(Kind::Int64)).ok())
            .ok_or_else(|| AdamError::Missing("steps".into()))?;
        self.first = first;
        self.second = second;
        self.steps = steps;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    fn one_weight(value: f32) -> (nn::VarStore, Tensor) {
        let vs = nn::VarStore::new(Device::Cpu);
        let w = vs
            .root()
            .var_copy("w", &Tensor::from_slice(&[value, -value]));
        (vs, w)
    }

    fn values(t: &Tensor) -> Vec<f32> {
        let mut out = vec![0f32; t.numel()];
        t.copy_data(&mut out, t.numel());
        out
    }

    #[test]
    fn the_first_step_moves_each_weight_by_the_learning_rate_against_its_gradient() {
        // With m̂ = g and v̂ = g², Adam's first step is lr · g / (|g| + ε).
        let (vs, w) = one_weight(2.0);
        let mut adam = Adam::new(&vs, 0.1);
        let loss = (&w * &w).sum(Kind::Float); // gradient 2w = (4, -4)
        adam.step(&loss, 1e9).unwrap();
        let after = values(&w);
        assert!(
            (after[0] - 1.9).abs() < 1e-5 && (after[1] + 1.9).abs() < 1e-5,
            "{after:?}"
        );
        assert_eq!(adam.steps(), 1);
    }

    #[test]
    fn clipping_scales_the_moments_not_the_first_step() {
        // The gradient (4, -4) clipped to norm 1 is (0.707, -0.707); the
        // first step is still lr per weight, but the stored moment is the
        // clipped gradient times (1 − β1).
        let (vs, w) = one_weight(2.0);
        let mut adam = Adam::new(&vs, 0.1);
        adam.step(&(&w * &w).sum(Kind::Float), 1.0).unwrap();
        let m = values(&adam.first[0]);
        let expected = 0.1 * 4.0 / 32f32.sqrt();
        assert!((m[0] - expected).abs() < 1e-4, "{m:?}");
    }

    #[test]
    fn a_saved_state_resumes_the_same_trajectory() {
        let dir = std::env::temp_dir().join(format!("wsite-adam-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("optimizer.safetensors");
        let loss = |w: &Tensor| (w * w * w).sum(Kind::Float);
        let (vs, w) = one_weight(1.5);
        let mut adam = Adam::new(&vs, 0.05);
        for _ in 0..3 {
            adam.step(&loss(&w), 1e9).unwrap();
        }
        adam.save(&path).unwrap();
        let copy = || {
            let (vs, w2) = one_weight(0.0);
            tch::no_grad(|| w2.shallow_clone().copy_(&w));
            (vs, w2)
        };
        let (resumed_vs, resumed_w) = copy();
        let mut resumed = Adam::new(&resumed_vs, 0.05);
        resumed.load(&path).unwrap();
        let (cold_vs, cold_w) = copy();
        let mut cold = Adam::new(&cold_vs, 0.05);
        adam.step(&loss(&w), 1e9).unwrap();
        resumed.step(&loss(&resumed_w), 1e9).unwrap();
        cold.step(&loss(&cold_w), 1e9).unwrap();
        assert_eq!(values(&w), values(&resumed_w));
        assert_eq!(resumed.steps(), 4);
        // A cold optimizer (moments zero, bias correction of step 1) steps
        // elsewhere: the state matters.
        assert_ne!(values(&w), values(&cold_w));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_state_for_another_shape_is_refused_and_changes_nothing() {
        let dir = std::env::temp_dir().join(format!("wsite-adam-shape-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("optimizer.safetensors");
        let vs = nn::VarStore::new(Device::Cpu);
        let w = vs
            .root()
            .var_copy("w", &Tensor::from_slice(&[1f32, 2., 3.]));
        let mut adam = Adam::new(&vs, 0.1);
        adam.step(&(&w * &w).sum(Kind::Float), 1e9).unwrap();
        adam.save(&path).unwrap();
        let (vs2, _) = one_weight(1.0);
        let mut other = Adam::new(&vs2, 0.1);
        let err = other.load(&path).unwrap_err();
        assert!(matches!(err, AdamError::Shape(_)), "{err}");
        assert_eq!(err.to_string(), "`m.w` has another shape than the policy's");
        assert_eq!(other.steps(), 0);
        std::fs::remove_dir_all(&dir).ok();
    }
}
