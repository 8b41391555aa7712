//! Why a task's `setup` could not run: what [`super::run_setup`] returns, in
//! the words of a marker's alert (`` `setup` failed: division by zero ``).

use crate::interp::gate;
use crate::interp::NamedFault;
use std::fmt;

/// Why `setup` was refused; the world and frame are as they were.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// A `reject`, or an `insert` into a full table: the alert as a user
    /// would see it (a `reject`'s is the author's text).
    Rejected(String),
    /// A run-time fault in a statement.
    Fault(NamedFault),
    /// `setup` reached a `go`, which it may not use.
    Go,
    /// The state after `setup` breaks the gate (types, references,
    /// capacities, invariants).
    Invalid(gate::Violation),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Rejected(alert) => f.write_str(alert),
            SetupError::Fault(fault) => write!(f, "`setup` failed: {fault}"),
            SetupError::Go => f.write_str("`setup` may not use `go`"),
            SetupError::Invalid(v) => v.fmt(f),
        }
    }
}

impl std::error::Error for SetupError {}
