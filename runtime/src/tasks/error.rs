//! Why task generation could not start ([`TaskGenError`]) and why a
//! witness's key nodes could not be found ([`KeyNodesError`]): the
//! interpreter refused the site or a step, or the prover an instance. Each
//! keeps the refusal it wraps as its source and says it in the same words.

use crate::env::EnvError;
use crate::prove::{MissingElement, ProveError};
use std::fmt;

/// Why generation could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskGenError {
    /// The site cannot be played (no start page, a broken IR): the
    /// interpreter refused to start the exploration's probe task.
    Unplayable(EnvError),
}

impl fmt::Display for TaskGenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskGenError::Unplayable(why) => write!(f, "the site cannot be explored: {why}"),
        }
    }
}

impl std::error::Error for TaskGenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TaskGenError::Unplayable(why) => Some(why),
        }
    }
}

/// Why the key nodes of a witness could not be found. The message is the
/// wrapped error's own.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyNodesError {
    /// The interpreter refused to start the instance, or a witness step.
    Env(EnvError),
    /// A witness step names an element its page does not show.
    Missing(MissingElement),
    /// The prover could not search the instance with a node forbidden.
    Prove(ProveError),
}

impl fmt::Display for KeyNodesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyNodesError::Env(e) => e.fmt(f),
            KeyNodesError::Missing(e) => e.fmt(f),
            KeyNodesError::Prove(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for KeyNodesError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KeyNodesError::Env(e) => Some(e),
            KeyNodesError::Missing(e) => Some(e),
            KeyNodesError::Prove(e) => Some(e),
        }
    }
}

impl From<EnvError> for KeyNodesError {
    fn from(e: EnvError) -> KeyNodesError {
        KeyNodesError::Env(e)
    }
}

impl From<MissingElement> for KeyNodesError {
    fn from(e: MissingElement) -> KeyNodesError {
        KeyNodesError::Missing(e)
    }
}

impl From<ProveError> for KeyNodesError {
    fn from(e: ProveError) -> KeyNodesError {
        KeyNodesError::Prove(e)
    }
}
