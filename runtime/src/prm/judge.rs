//! What a judge sees and answers (docs/prm.md, "Judges"): a [`Query`] is one
//! state and a list of candidate actions in an order that gives nothing away
//! (a benchmark instance's chosen action is shuffled among its rejected ones
//! by seed); a [`Judge`] scores every candidate, higher meaning better. The
//! benchmark's judgements, best-of-N search and external judges all go
//! through this one interface.

use super::{Candidate, Instance};
use crate::prove::WitnessStep;
use serde::{Deserialize, Serialize};
use std::fmt;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// One candidate as a judge sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The text form (`click [7] link "ThinkPad X1"`).
    pub action: String,
    /// The action by stable key, when it is a wsite action (imported
    /// instances may only have text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<WitnessStep>,
}

/// One state and its candidates, as streamed to a judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Query {
    pub id: String,
    pub site: String,
    pub domain: String,
    pub task: String,
    pub instruction: String,
    pub url: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<String>,
    pub observation: String,
    pub history: Vec<String>,
    /// The actions taken so far by stable key (empty for imported instances).
    #[serde(default)]
    pub trace: Vec<WitnessStep>,
    pub candidates: Vec<Choice>,
}

/// Why a judge gave no scores.
#[derive(Debug)]
pub enum JudgeError {
    /// The judge cannot score this query (e.g. a policy judge given an
    /// imported instance it cannot replay); the message says why.
    Unsupported(String),
    /// The judge failed (an external process died, answered garbage, …).
    Failed(String),
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::Unsupported(why) => write!(f, "cannot judge: {why}"),
            JudgeError::Failed(why) => write!(f, "judge failed: {why}"),
        }
    }
}

impl std::error::Error for JudgeError {}

/// Scores candidates: one finite score per candidate, in the query's order,
/// higher meaning better.
pub trait Judge {
    /// A short name for tables (`random`, `overlap`, `policy`, …).
    fn name(&self) -> &str;
    fn score(&mut self, query: &Query) -> Result<Vec<f64>, JudgeError>;
}

/// The order a benchmark instance's candidates are shown in: `order[k]` is
/// the position in `[chosen, rejected…]` of the k-th candidate shown. Seeded
/// by the instance's id, so it is the same on every run and machine.
pub fn blind_order(instance: &Instance, seed: u64) -> Vec<usize> {
    let n = 1 + instance.rejected.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| {
        xxh3_64_with_seed(
            &k.to_le_bytes(),
            xxh3_64_with_seed(instance.id.as_bytes(), seed),
        )
    });
    order
}

impl Query {
    /// The query for a benchmark instance, candidates in `order` (see
    /// [`blind_order`]).
    pub fn of_instance(instance: &Instance, order: &[usize]) -> Query {
        let all: Vec<&Candidate> = std::iter::once(&instance.chosen)
            .chain(&instance.rejected)
            .collect();
        Query {
            id: instance.id.clone(),
            site: instance.site.clone(),
            domain: instance.domain.clone(),
            task: instance.task.clone(),
            instruction: instance.instruction.clone(),
            url: instance.url.clone(),
            title: instance.title.clone(),
            alert: instance.alert.clone(),
            observation: instance.observation.clone(),
            history: instance.history.clone(),
            trace: instance.trace.clone(),
            candidates: order
                .iter()
                .filter_map(|&k| all.get(k))
                .map(|c| Choice {
                    action: c.action.clone(),
                    step: c.step.clone(),
                })
                .collect(),
        }
    }
}

impl Query {
    /// The state the query shows, to rebuild with [`super::restore_state`].
    pub fn state(&self) -> super::State<'_> {
        super::State {
            task: &self.task,
            trace: &self.trace,
            url: &self.url,
            observation: &self.observation,
        }
    }
}

/// Scores given in shown order, put back in `[chosen, rejected…]` order.
pub fn unshuffle(scores: &[f64], order: &[usize]) -> Vec<f64> {
    let mut out = vec![f64::NAN; order.len()];
    for (shown, &k) in order.iter().enumerate() {
        if let (Some(slot), Some(&s)) = (out.get_mut(k), scores.get(shown)) {
            *slot = s;
        }
    }
    out
}
