//! The trainer: PPO on tch (libtorch), on CPU or CUDA, over the batched JIT
//! environments.
//!
//! - [`adam`]: the optimizer, whose state checkpoints carry;
//! - [`error`]: why a run, the optimizer or a search stopped;
//! - [`gae`]: advantages and returns (plain Rust, always built);
//! - [`obs`]: observation rows and their tensors;
//! - [`policy`]: the DOM-grounded policy with its value head;
//! - [`ppo`]: the clipped objective;
//! - [`update`]: one PPO update's epochs of minibatches;
//! - [`dedup`]: distinct instructions and elements, encoded once each;
//! - [`init`]: orthogonal initialisation of named layers;
//! - [`profile`]: the phases a run's time is charged to;
//! - [`run`]: training and evaluation runs;
//! - [`prm`]: the policy and its value head as process-reward judges;
//! - [`search`]: best-of-N evaluation guided by a process-reward judge;
//! - [`curve`]: the learning curve as a PNG.
//!
//! Everything but [`gae`], [`dedup`] and [`profile`] needs the `train` feature (and LIBTORCH; see
//! scripts/setup-torch.sh).

#[cfg(feature = "train")]
pub mod adam;
#[cfg(feature = "train")]
pub mod curve;
pub mod dedup;
#[cfg(feature = "train")]
pub mod error;
pub mod gae;
#[cfg(feature = "train")]
pub mod init;
#[cfg(feature = "train")]
pub mod obs;
#[cfg(feature = "train")]
pub mod policy;
#[cfg(feature = "train")]
pub mod ppo;
#[cfg(feature = "train")]
pub mod prm;
pub mod profile;
#[cfg(feature = "train")]
pub mod run;
#[cfg(feature = "train")]
pub mod search;
#[cfg(feature = "train")]
pub mod update;

/// The tch the trainer is built with, for callers that hold its tensors and
/// variable stores.
#[cfg(feature = "train")]
pub use tch;
