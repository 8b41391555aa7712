//! Why the flat engine refused an instance or a step, sorted by what the
//! caller does about it: play the instance on the interpreter's `Env`
//! ([`FlatError::is_unplayable`]), fix its own request (an episode that is
//! over, a candidate or element the page does not offer, bytes of another
//! site), or reset an episode whose state no longer fits the layout.

use crate::env::EnvError;
use crate::jit::{JitError, JitFault};
use crate::layout::LayoutError;
use std::fmt;

/// What the flat engine cannot play, or why a step of it failed.
#[derive(Clone, Debug, PartialEq)]
pub enum FlatError {
    /// The program has no task of this index.
    NoTask(usize),
    /// Something the instance's steps run is not compiled (its goal, a
    /// progress predicate, a page or a marker, named).
    NotCompiled { task: String, what: String },
    /// The decomposed reward's judge searches the interpreter's states.
    DecomposedReward,
    /// The instance itself is invalid (the interpreter refused it).
    Instance(EnvError),
    /// The instance's initial state or frame cannot be encoded.
    Encoding { task: String, error: JitError },
    /// `step` after the episode ended.
    EpisodeOver,
    /// No candidate action of this index on the page.
    NoCandidate(usize),
    /// No answer candidate of this index on the page.
    NoAnswer(usize),
    /// No element of this (1-based) index on the page.
    NoElement(usize),
    /// The element has no option of the candidate's index.
    NoOption(usize),
    /// The element cannot take the candidate's kind of action.
    WrongAction(usize),
    /// Bytes of another layout: a state has `expected` bytes, not `got`.
    StateSize { expected: usize, got: usize },
    /// A prepared instance or an engine of another site or task.
    Foreign(&'static str),
    /// A step needs more entries of a list (`what`) than the layout holds;
    /// the episode must be reset.
    Capacity {
        what: &'static str,
        needed: usize,
        capacity: usize,
    },
    /// The text pool has no room for another text.
    PoolFull,
    /// A value does not fit its slot, or a word is no value of its type.
    Value(LayoutError),
    /// The state or the rendered page does not fit the layout (a bug in
    /// the engine, or bytes that are not a state of this site).
    Malformed(String),
    /// A debug build's check of the engine against itself failed: a page
    /// kept or remembered differs from the page rendered afresh (a bug in
    /// the engine, which a prover reports rather than searching on).
    Unfaithful(&'static str),
    /// The compiled code could not run on these inputs.
    Fault(JitFault),
}

impl FlatError {
    /// Whether the instance cannot be played flat at all (play it on `Env`),
    /// rather than one request or step failing.
    pub fn is_unplayable(&self) -> bool {
        matches!(
            self,
            FlatError::NoTask(_)
                | FlatError::NotCompiled { .. }
                | FlatError::DecomposedReward
                | FlatError::Instance(_)
                | FlatError::Encoding { .. }
        )
    }

    pub(crate) fn malformed(what: impl Into<String>) -> FlatError {
        FlatError::Malformed(what.into())
    }
}

impl fmt::Display for FlatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlatError::NoTask(i) => write!(f, "no task #{i}"),
            FlatError::NotCompiled { task, what } if task.is_empty() => {
                write!(f, "{what} is not compiled")
            }
            FlatError::NotCompiled { task, what } => {
                write!(f, "task `{task}`: {what} is not compiled")
            }
            FlatError::DecomposedReward => {
                f.write_str("the decomposed reward needs the interpreter: play it on `Env`")
            }
            FlatError::Instance(why) => why.fmt(f),
            FlatError::Encoding { task, error } => write!(f, "task `{task}`: {error}"),
            FlatError::EpisodeOver => f.write_str("the episode is over; reset to play again"),
            FlatError::NoCandidate(i) => write!(f, "there is no candidate #{i}"),
            FlatError::NoAnswer(i) => write!(f, "there is no answer #{i}"),
            FlatError::NoElement(i) => write!(f, "there is no element [{i}]"),
            FlatError::NoOption(i) => write!(f, "element [{i}] has no such option"),
            FlatError::WrongAction(i) => write!(f, "element [{i}] cannot take this action"),
            FlatError::StateSize { expected, got } => {
                write!(f, "a state of this site has {expected} bytes, not {got}")
            }
            FlatError::Foreign(what) => write!(f, "{what} of another site or task"),
            FlatError::Capacity {
                what,
                needed,
                capacity,
            } => write!(
                f,
                "{needed} {what}, more than the {capacity} the layout holds"
            ),
            FlatError::PoolFull => f.write_str("the text pool is full"),
            FlatError::Value(e) => e.fmt(f),
            FlatError::Malformed(what) => write!(f, "the state does not fit the layout: {what}"),
            FlatError::Unfaithful(what) => {
                write!(f, "the flat engine disagrees with itself: {what}")
            }
            FlatError::Fault(e) => write!(f, "the flat engine cannot run this step: {e}"),
        }
    }
}

impl std::error::Error for FlatError {}

impl From<JitFault> for FlatError {
    fn from(e: JitFault) -> FlatError {
        FlatError::Fault(e)
    }
}

impl From<LayoutError> for FlatError {
    fn from(e: LayoutError) -> FlatError {
        FlatError::Value(e)
    }
}
