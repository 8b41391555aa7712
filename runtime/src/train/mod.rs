//! The trainer: PPO on tch (libtorch), on CPU or CUDA, over the batched JIT
//! environments.
//!
//! - [`adam`]: the optimizer, whose state checkpoints carry;
//! - [`gae`]: advantages and returns (plain Rust, always built);
//! - [`obs`]: observation rows and their tensors;
//! - [`policy`]: the DOM-grounded policy with its value head;
//! - [`ppo`]: the clipped objective;
//! - [`run`]: training and evaluation runs;
//! - [`curve`]: the learning curve as a PNG.
//!
//! Everything but [`gae`] needs the `train` feature (and LIBTORCH; see
//! scripts/setup-torch.sh).

#[cfg(feature = "train")]
pub mod adam;
#[cfg(feature = "train")]
pub mod curve;
pub mod gae;
#[cfg(feature = "train")]
pub mod obs;
#[cfg(feature = "train")]
pub mod policy;
#[cfg(feature = "train")]
pub mod ppo;
#[cfg(feature = "train")]
pub mod run;

/// The tch the trainer is built with, for callers that hold its tensors and
/// variable stores.
#[cfg(feature = "train")]
pub use tch;
