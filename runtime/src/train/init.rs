//! Orthogonal initialisation of a policy's linear layers, as CleanRL's
//! `layer_init`: weights orthogonal with a gain per layer (√2 for hidden
//! layers, 0.01 for an action head so the first policy is near uniform, 1
//! for a value head), biases zero. Draws from tch's generator, so a run's
//! seed (`tch::manual_seed`) fixes it.

use super::error::NoLayer;
use tch::nn::{self, Init};

/// The gain of a hidden layer followed by a ReLU.
pub const HIDDEN: f64 = std::f64::consts::SQRT_2;
/// The gain of the layer that scores actions.
pub const ACTION_HEAD: f64 = 0.01;
/// The gain of the value head.
pub const VALUE_HEAD: f64 = 1.0;

/// Re-initialises each named layer of `vs` (`"<name>.weight"`, 2-D, and
/// `"<name>.bias"` if it has one) with an orthogonal weight of its gain and
/// a zero bias; an `Err` names a layer `vs` does not hold.
pub fn init_orthogonal(vs: &nn::VarStore, layers: &[(&str, f64)]) -> Result<(), NoLayer> {
    let variables = vs.variables();
    for &(name, gain) in layers {
        let mut weight = variables
            .get(&format!("{name}.weight"))
            .filter(|w| w.dim() == 2)
            .ok_or_else(|| NoLayer(name.to_string()))?
            .shallow_clone();
        // In place on trainable leaves: outside autograd.
        tch::no_grad(|| {
            weight.init(Init::Orthogonal { gain });
            if let Some(bias) = variables.get(&format!("{name}.bias")) {
                bias.shallow_clone().init(Init::Const(0.0));
            }
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind, Tensor};

    #[test]
    fn a_layer_gets_orthogonal_rows_of_its_gain_and_a_zero_bias() {
        let vs = nn::VarStore::new(Device::Cpu);
        let _wide = nn::linear(vs.root() / "wide", 8, 4, Default::default());
        let _head = nn::linear(vs.root() / "head", 4, 1, Default::default());
        assert!(init_orthogonal(&vs, &[("wide", HIDDEN), ("head", ACTION_HEAD)]).is_ok());
        let v = vs.variables();
        // [4, 8]: four orthonormal rows scaled by √2, so W Wᵀ = 2 I.
        let w = &v["wide.weight"];
        let gram = w.matmul(&w.tr());
        let two = Tensor::eye(4, (Kind::Float, Device::Cpu)) * 2.0;
        assert!(gram.allclose(&two, 1e-4, 1e-4, false));
        // One row of norm 0.01.
        let norm = v["head.weight"].norm().double_value(&[]);
        assert!((norm - 0.01).abs() < 1e-6, "{norm}");
        assert_eq!(v["wide.bias"].abs().sum(Kind::Float).double_value(&[]), 0.0);
        assert_eq!(
            init_orthogonal(&vs, &[("missing", 1.0)]),
            Err(NoLayer("missing".into()))
        );
        assert_eq!(
            NoLayer("missing".into()).to_string(),
            "no linear layer `missing` to initialise"
        );
    }
}
