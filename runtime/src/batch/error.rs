//! Why a batch could not be built, reset or stepped. Each message names the
//! environment and what was wrong with the request, so a trainer (or the
//! Python package, which raises it) can tell a bad action from a site that
//! cannot be played.

use crate::jit::FlatError;
use std::fmt;

#[derive(Debug)]
pub enum BatchError {
    /// A batch over no task instance.
    NoInstances,
    /// A task instance index past the batch's `count` instances.
    NoInstance { index: usize, count: usize },
    /// An environment index past the batch's `count` environments.
    NoEnvironment { index: usize, count: usize },
    /// `step` got `actions` actions for `envs` environments.
    ActionCount { actions: usize, envs: usize },
    /// Environment `env`'s episode is over and the batch does not reset it.
    EpisodeOver { env: usize },
    /// Environment `env` offers `actions` rows; row `row` was asked for.
    NoAction { env: usize, actions: u32, row: u32 },
    /// The operating system refused to start the worker threads.
    Workers { threads: usize, why: String },
    /// An environment's engine failed.
    Engine(EngineError),
}

/// What an engine (`Engine`) could not do.
#[derive(Debug)]
pub enum EngineError {
    /// The interpreter's own error text (its `Env` reports them as text).
    Interp(String),
    /// The flat engine's error.
    Flat(FlatError),
    /// An action-table row that names no candidate.
    NoActionRow(u32),
    /// A candidate index past the engine's candidates.
    NoCandidate(usize),
    /// A task instance index the engine was not given.
    NoInstance(usize),
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchError::NoInstances => f.write_str("a batch needs at least one task instance"),
            BatchError::NoInstance { index, count } => {
                write!(f, "no task instance #{index}: the batch has {count}")
            }
            BatchError::NoEnvironment { index, count } => {
                write!(f, "no environment {index}: the batch has {count}")
            }
            BatchError::ActionCount { actions, envs } => {
                write!(f, "{actions} actions for {envs} environments")
            }
            BatchError::EpisodeOver { env } => {
                write!(
                    f,
                    "environment {env}'s episode is over: reset it before stepping"
                )
            }
            BatchError::NoAction { env, actions, row } => {
                write!(
                    f,
                    "environment {env} has {actions} actions, not {}",
                    u64::from(*row) + 1
                )
            }
            BatchError::Workers { threads, why } => {
                write!(f, "cannot start {threads} worker threads: {why}")
            }
            BatchError::Engine(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Interp(why) => f.write_str(why),
            EngineError::Flat(e) => e.fmt(f),
            EngineError::NoActionRow(row) => write!(f, "no action row {row}"),
            EngineError::NoCandidate(i) => write!(f, "no action {i}"),
            EngineError::NoInstance(i) => write!(f, "no task instance #{i}"),
        }
    }
}

impl std::error::Error for BatchError {}

impl std::error::Error for EngineError {}

impl From<EngineError> for BatchError {
    fn from(e: EngineError) -> BatchError {
        BatchError::Engine(e)
    }
}

impl From<FlatError> for EngineError {
    fn from(e: FlatError) -> EngineError {
        EngineError::Flat(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_environment_and_the_request() {
        let cases: [(BatchError, &str); 4] = [
            (
                BatchError::NoAction {
                    env: 3,
                    actions: 2,
                    row: 5,
                },
                "environment 3 has 2 actions, not 6",
            ),
            (
                BatchError::ActionCount {
                    actions: 1,
                    envs: 4,
                },
                "1 actions for 4 environments",
            ),
            (
                BatchError::NoInstance { index: 9, count: 2 },
                "no task instance #9: the batch has 2",
            ),
            (EngineError::NoActionRow(7).into(), "no action row 7"),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
    }
}
