//! Why training, evaluation or a search stopped ([`RunError`]), and the
//! errors of the parts a run is made of: the optimizer ([`AdamError`]), the
//! initialisation ([`NoLayer`]), a search reading its game ([`SearchError`]),
//! a judge's refused scores ([`ScoreError`], counted, never fatal) and a
//! witness step without a row in the action table ([`RowError`]). Each
//! keeps the error it wraps (torch's, the JIT's, the batch's) as its source
//! and says it in the words the CLI has always printed.

use crate::batch::BatchError;
use crate::jit::JitError;
use crate::layout::LayoutError;
use crate::prm::judge::JudgeError;
use crate::prove::{MissingElement, WitnessStep};
use std::fmt;
use tch::TchError;

/// Why a training or evaluation run stopped.
#[derive(Debug)]
pub enum RunError {
    /// Site `site` has no state layout.
    Layout { site: String, error: LayoutError },
    /// The JIT cannot compile site `site`.
    Compile { site: String, error: JitError },
    /// A batch refused to be made or stepped.
    Batch(BatchError),
    /// No site has a task instance to run on.
    NoInstances,
    /// The optimizer failed.
    Optimizer(AdamError),
    /// A search could not read a game's state.
    Search(SearchError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Layout { site, error } => write!(f, "{site}: {error}"),
            RunError::Compile { site, error } => write!(f, "{site}: {error}"),
            RunError::Batch(e) => e.fmt(f),
            RunError::NoInstances => f.write_str("no task instance to run on any site"),
            RunError::Optimizer(e) => e.fmt(f),
            RunError::Search(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Layout { error, .. } => Some(error),
            RunError::Compile { error, .. } => Some(error),
            RunError::Batch(e) => Some(e),
            RunError::NoInstances => None,
            RunError::Optimizer(e) => Some(e),
            RunError::Search(e) => Some(e),
        }
    }
}

impl From<BatchError> for RunError {
    fn from(e: BatchError) -> RunError {
        RunError::Batch(e)
    }
}

impl From<AdamError> for RunError {
    fn from(e: AdamError) -> RunError {
        RunError::Optimizer(e)
    }
}

impl From<SearchError> for RunError {
    fn from(e: SearchError) -> RunError {
        RunError::Search(e)
    }
}

/// What the optimizer could not do.
#[derive(Debug)]
pub enum AdamError {
    /// Autograd could not back-propagate the loss.
    Backward(TchError),
    /// Torch could not write or read the state file.
    File(TchError),
    /// A saved moment (`key`) has another shape than its variable.
    Shape(String),
    /// The state file lacks `key`.
    Missing(String),
}

impl fmt::Display for AdamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdamError::Backward(e) => write!(f, "back-propagation failed: {e}"),
            AdamError::File(e) => e.fmt(f),
            AdamError::Shape(key) => write!(f, "`{key}` has another shape than the policy's"),
            AdamError::Missing(key) => write!(f, "`{key}` is missing"),
        }
    }
}

impl std::error::Error for AdamError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AdamError::Backward(e) | AdamError::File(e) => Some(e),
            AdamError::Shape(_) | AdamError::Missing(_) => None,
        }
    }
}

/// A layer to initialise that the variable store does not hold (as a 2-D
/// `<name>.weight`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoLayer(pub String);

impl fmt::Display for NoLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no linear layer `{}` to initialise", self.0)
    }
}

impl std::error::Error for NoLayer {}

/// Why a search could not read the candidates of its game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchError {
    /// The game runs on the flat engine, whose states a judge cannot read.
    NotInterpreter,
    /// The game's batch has no environment.
    EmptyBatch,
    /// The action table has no row of this index.
    NoActionRow(u32),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::NotInterpreter => f.write_str("search needs the interpreter"),
            SearchError::EmptyBatch => f.write_str("an empty batch"),
            SearchError::NoActionRow(row) => write!(f, "no action row {row}"),
        }
    }
}

impl std::error::Error for SearchError {}

/// Why a judge's answer was not used (the policy's most likely sample is
/// taken instead).
#[derive(Debug)]
pub enum ScoreError {
    /// The judge gave no scores.
    Judge(JudgeError),
    /// `scores` scores for `candidates` candidates.
    Count { scores: usize, candidates: usize },
    /// A score that is NaN or infinite.
    NotFinite,
}

impl fmt::Display for ScoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScoreError::Judge(e) => e.fmt(f),
            ScoreError::Count { scores, candidates } => {
                write!(f, "{scores} scores for {candidates} candidates")
            }
            ScoreError::NotFinite => f.write_str("a score that is not a finite number"),
        }
    }
}

impl std::error::Error for ScoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScoreError::Judge(e) => Some(e),
            ScoreError::Count { .. } | ScoreError::NotFinite => None,
        }
    }
}

/// Why a witness step has no place in a batch's action table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowError {
    /// The batch has no environment.
    EmptyBatch,
    /// The step names an element its page does not show.
    Missing(MissingElement),
    /// The step's action is none of the page's candidates (`url`).
    NotCandidate { step: WitnessStep, url: String },
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowError::EmptyBatch => f.write_str("an empty batch"),
            RowError::Missing(e) => e.fmt(f),
            RowError::NotCandidate { step, url } => {
                write!(f, "`{step}` is not a candidate on {url}")
            }
        }
    }
}

impl std::error::Error for RowError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RowError::Missing(e) => Some(e),
            RowError::EmptyBatch | RowError::NotCandidate { .. } => None,
        }
    }
}
