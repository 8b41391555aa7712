//! Why a batch refused to be made, stepped or reset: a request that does not
//! fit the batch (the wrong number of actions, a row past an environment's
//! action table, an environment or instance it does not have), or an
//! engine's own error, the interpreter's [`EnvError`] or the flat engine's
//! [`FlatError`], with its message unchanged and, where the batch knows it,
//! the environment it came from.

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
    /// The interpreter refused the instance or the step: of environment
    /// `env`, when the batch knows which (see [`BatchError::in_env`]).
    Env { env: Option<usize>, error: EnvError },
    /// The flat engine refused the instance or the step: of environment
    /// `env`, when the batch knows which.
    Flat {
        env: Option<usize>,
        error: FlatError,
    },
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
            BatchError::Env { env, error } => in_env(f, *env, error),
            BatchError::Flat { env, error } => in_env(f, *env, error),
            BatchError::Workers { workers, error } => {
                write!(f, "cannot start {workers} worker threads: {error}")
            }
        }
    }
}

/// `environment N: <error>`, or the engine's message alone when the
/// environment is not known.
fn in_env(f: &mut fmt::Formatter<'_>, env: Option<usize>, error: &dyn fmt::Display) -> fmt::Result {
    match env {
        Some(i) => write!(f, "environment {i}: {error}"),
        None => error.fmt(f),
    }
}

impl BatchError {
    /// The error, said to come from environment `i` when it is an engine's
    /// that does not name its environment yet; any other is unchanged (its
    /// message already says which environment, or concerns none).
    pub fn in_env(self, i: usize) -> BatchError {
        match self {
            BatchError::Env { env: None, error } => BatchError::Env {
                env: Some(i),
                error,
            },
            BatchError::Flat { env: None, error } => BatchError::Flat {
                env: Some(i),
                error,
            },
            other => other,
        }
    }
}

impl std::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BatchError::Env { error, .. } => Some(error),
            BatchError::Flat { error, .. } => Some(error),
            BatchError::Workers { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<EnvError> for BatchError {
    fn from(error: EnvError) -> BatchError {
        BatchError::Env { env: None, error }
    }
}

impl From<FlatError> for BatchError {
    fn from(error: FlatError) -> BatchError {
        BatchError::Flat { env: None, error }
    }
}
