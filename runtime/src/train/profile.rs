//! Where a training run's time goes, without the library reading a clock:
//! the trainer marks the end of each phase on a [`Stopwatch`] the caller
//! supplies, and the caller (the CLI's `--profile`) charges the time since
//! the previous mark to that phase.

/// The phases of one update, in the order they first occur.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Copying the environments' observations into the rollout's store.
    Observe,
    /// Turning host rows into tensors on the device (and deduplicating them).
    Upload,
    /// The policy's forward pass and sampling during the rollout.
    RolloutForward,
    /// Stepping the JIT environments.
    EnvStep,
    /// Advantages and returns.
    Advantages,
    /// The update's forward passes and losses.
    UpdateForward,
    /// Back-propagation.
    UpdateBackward,
    /// Gradient clipping and the Adam step.
    Optimizer,
}

impl Phase {
    pub const ALL: [Phase; 8] = [
        Phase::Observe,
        Phase::Upload,
        Phase::RolloutForward,
        Phase::EnvStep,
        Phase::Advantages,
        Phase::UpdateForward,
        Phase::UpdateBackward,
        Phase::Optimizer,
    ];

    /// The name a report prints.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Observe => "observe",
            Phase::Upload => "upload",
            Phase::RolloutForward => "rollout forward",
            Phase::EnvStep => "env step",
            Phase::Advantages => "advantages",
            Phase::UpdateForward => "update forward",
            Phase::UpdateBackward => "update backward",
            Phase::Optimizer => "optimizer",
        }
    }
}

/// Receives the end of each phase: the time since the previous mark (or
/// since the update began) was spent in `phase`.
pub trait Stopwatch {
    fn lap(&mut self, phase: Phase);
}

/// The stopwatch of an untimed run.
pub struct NoClock;

impl Stopwatch for NoClock {
    fn lap(&mut self, _: Phase) {}
}
