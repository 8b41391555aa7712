//! Why a batch refused to be made, stepped or reset: a request that does not
//! fit the batch (the wrong number of actions, a row past an environment's
//! action table, an environment or instance it does not have), or an
//! engine's own error, the interpreter's [`EnvError`] or the flat engine's
//! [`FlatError`], with its message unchanged.

use crate::env::EnvError;
use crate::jit::FlatError;
use std::fmt;

/// What a batch could not do. The messages are the ones the Python binding
/// raises and the CLI prints.
#[derive(Debug)]
pub enum BatchError {
    /// A batch made over no task instances.
    NoInstances,
    /// `reset` onto an instance the batch does not draw from (it has
    /// `count`).
    NoInstance { instance: usize, count: usize },
    /// An engine asked to start an instance its list lacks (the batch only
    /// draws instances it has, so this is a bug).
    MissingInstance(usize),
    /// `reset` of an environment the batch does not have (it has `count`).
    NoEnvironment { env: usize, count: usize },
    /// `step` with `actions` actions for a batch of `environments`.
    ActionCount { actions: usize, environments: usize },
    /// `step` of an environment whose episode ended, with auto-reset off.
    Finished(usize),
    /// Environment `env` was given action-table row `row`, but its table
    /// has only `actions` rows.
    ActionOutOfRange { env: usize, actions: u32, row: u32 },
    /// An action-table row that names no engine candidate.
    NoActionRow(u32),
    /// No engine candidate of this index.
    NoAction(usize),
    /// The interpreter refused the instance or the step.
    Env(EnvError),
    /// The flat engine refused the instance or the step.
    Flat(FlatError),
    /// The operating system would not start `workers` worker threads.
    Workers {
        workers: usize,
        error: rayon::ThreadPoolBuildError,
    },
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchError::NoInstances => f.write_str("a batch needs at least one task instance"),
            BatchError::NoInstance { instance, count } => {
                write!(f, "no task instance #{instance}: the batch has {count}")
            }
            BatchError::MissingInstance(k) => write!(f, "no task instance #{k}"),
            BatchError::NoEnvironment { env, count } => {
                write!(f, "no environment {env}: the batch has {count}")
            }
            BatchError::ActionCount {
                actions,
                environments,
            } => write!(f, "{actions} actions for {environments} environments"),
            BatchError::Finished(i) => {
                write!(
                    f,
                    "environment {i}'s episode is over: reset it before stepping"
                )
            }
            BatchError::ActionOutOfRange { env, actions, row } => write!(
                f,
                "environment {env} has {actions} actions, not {}",
                u64::from(*row) + 1
            ),
            BatchError::NoActionRow(row) => write!(f, "no action row {row}"),
            BatchError::NoAction(i) => write!(f, "no action {i}"),
            BatchError::Env(e) => e.fmt(f),
            BatchError::Flat(e) => e.fmt(f),
            BatchError::Workers { workers, error } => {
                write!(f, "cannot start {workers} worker threads: {error}")
            }
        }
    }
}

impl std::error::Error for BatchError {}

impl From<EnvError> for BatchError {
    fn from(e: EnvError) -> BatchError {
        BatchError::Env(e)
    }
}

impl From<FlatError> for BatchError {
    fn from(e: FlatError) -> BatchError {
        BatchError::Flat(e)
    }
}
