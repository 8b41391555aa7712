//! Why the prover gave no proof. Most of these are not verdicts about the
//! site but about the prover: an instance the interpreter refuses, a site
//! the flat engine cannot be built for, or one of the prover's self-checks
//! failing (the flat engine's witness must replay on the interpreter, its
//! verdict must match the explaining search's, a static bound must agree
//! with the search). A failed self-check is a bug in wsite, never a verdict.

use crate::env::EnvError;
use crate::jit::{FlatError, JitError};
use crate::layout::LayoutError;
use std::fmt;

/// Why a proof (or a witness replay) could not be produced.
#[derive(Clone, Debug, PartialEq)]
pub enum ProveError {
    /// The interpreter refused the task instance (its reason).
    Instance(EnvError),
    /// The program does not fit a flat layout (the flat prover only).
    Layout(LayoutError),
    /// The site could not be compiled (the flat prover only).
    Jit(JitError),
    /// The flat engine failed while searching or replaying.
    Flat(FlatError),
    /// A compact state of the flat search is malformed.
    Compact(String),
    /// Two of the prover's answers disagree: a bug, named by `check`.
    SelfCheck { task: String, check: String },
    /// A witness step names an element the page does not show.
    MissingElement(MissingElement),
    /// Step `step` (1-based) of a replayed witness failed.
    Step { step: usize, why: EnvError },
}

/// A witness step's element key that the current page does not show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingElement {
    pub key: String,
    /// The page shown, by URL.
    pub url: String,
}

impl fmt::Display for MissingElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no element `{}` on {}", self.key, self.url)
    }
}

impl std::error::Error for MissingElement {}

impl ProveError {
    pub(crate) fn self_check(task: &str, check: String) -> ProveError {
        ProveError::SelfCheck {
            task: task.to_string(),
            check,
        }
    }

    pub(crate) fn compact(what: impl Into<String>) -> ProveError {
        ProveError::Compact(what.into())
    }
}

impl fmt::Display for ProveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProveError::Instance(why) => why.fmt(f),
            ProveError::Layout(e) => e.fmt(f),
            ProveError::Jit(e) => e.fmt(f),
            ProveError::Flat(e) => e.fmt(f),
            ProveError::Compact(what) => write!(f, "a compact search state is malformed: {what}"),
            ProveError::SelfCheck { task, check } => write!(f, "task `{task}`: {check}"),
            ProveError::MissingElement(e) => e.fmt(f),
            ProveError::Step { step, why } => write!(f, "step {step}: {why}"),
        }
    }
}

impl std::error::Error for ProveError {}

impl From<FlatError> for ProveError {
    fn from(e: FlatError) -> ProveError {
        ProveError::Flat(e)
    }
}

impl From<MissingElement> for ProveError {
    fn from(e: MissingElement) -> ProveError {
        ProveError::MissingElement(e)
    }
}
