//! The three filters on one episode, each on the reference environment:
//! state replay (§5.2–5.3), key-node coverage (§2.4), answer check (§5.3).
//!
//! The steps are played in order on a fresh `Env`. A step that names no
//! action the state offers is refused by the engine and changes nothing, as
//! over the agent protocol; the first such step fails state replay, and the
//! rest are still played, so coverage and the answer are judged on the state
//! the legal steps reach and a planted bad step is caught by replay alone.
//! Clicks and selections must be candidates of A(o); typed and answered text
//! may be any text (docs/DECISIONS.md 23), typed text the input cannot read
//! being a rejected step. Rejected steps (ε = 1) are legal and counted.

use super::key_nodes::{self, Coverage};
use super::trajectory::StepAction;
use crate::env::{Action, ActionKind, Env, EnvError, RewardConfig, TaskInstance};
use crate::ir::Program;
use crate::prove::{resolve_step, step_of};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;

/// What the filters require.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// The least key-node coverage that passes (WebFactory: all of them).
    pub min_coverage: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds { min_coverage: 1.0 }
    }
}

/// Which key nodes an episode must pass.
#[derive(Clone, Copy, Debug)]
pub enum KeyNodeSource<'a> {
    /// The task's `key [...]`.
    Declared,
    /// A task file's `key_nodes`.
    Listed(&'a [String]),
}

/// The verdict of the three filters on one episode.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpisodeReport {
    /// The task instance played.
    pub task: String,
    /// `operation` (judged by its goal) or `retrieval` (by its answer).
    pub kind: &'static str,
    /// Filter 1: every step legal, none after the episode ended.
    pub replay_ok: bool,
    /// The first failing step, 1-based.
    pub failed_step: Option<usize>,
    pub why: Option<String>,
    /// Steps in the trajectory.
    pub steps: usize,
    /// Steps the engine took as rejected (ε = 1).
    pub rejected_steps: usize,
    /// Filter 2.
    pub key_node_coverage: f64,
    pub missing_key_nodes: Vec<String>,
    pub coverage_ok: bool,
    /// The last answer given, if any.
    pub answer: Option<String>,
    /// Filter 3: the answer matched (retrieval) or the goal held (operation).
    pub answer_ok: bool,
    /// The episode ended in success.
    pub success: bool,
    pub accepted: bool,
}

/// Why a step fails state replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepFailure {
    /// A stable key that names no element of the page (the resolver's words).
    UnknownKey(String),
    /// An index past the candidate actions.
    NoSuchIndex { index: usize, offered: usize },
    /// The engine refused the action on this page.
    NotACandidate { url: String, why: EnvError },
    /// A step after the episode ended.
    EpisodeOver { ended_at: usize, how: Ending },
}

/// How an episode ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Success,
    Answered,
    Horizon,
}

impl fmt::Display for StepFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepFailure::UnknownKey(why) => write!(f, "unknown key: {why}"),
            StepFailure::NoSuchIndex { index, offered } => write!(
                f,
                "no candidate action {index}: the state offers {offered} (0-based)"
            ),
            StepFailure::NotACandidate { url, why } => write!(f, "not a candidate on {url}: {why}"),
            StepFailure::EpisodeOver { ended_at, how } => {
                let how = match how {
                    Ending::Success => "with success",
                    Ending::Answered => "with a wrong answer",
                    Ending::Horizon => "at its horizon",
                };
                write!(
                    f,
                    "the episode is already over (it ended at step {ended_at} {how})"
                )
            }
        }
    }
}

/// The action `step` names in `env`'s current state.
pub fn resolve(env: &Env<'_>, step: &StepAction) -> Result<Action, StepFailure> {
    match step {
        StepAction::Index(index) => {
            env.actions()
                .get(*index)
                .cloned()
                .ok_or(StepFailure::NoSuchIndex {
                    index: *index,
                    offered: env.actions().len(),
                })
        }
        StepAction::Element(action) => Ok(action.clone()),
        StepAction::Keyed(keyed) => {
            resolve_step(env, keyed).map_err(|e| StepFailure::UnknownKey(e.to_string()))
        }
    }
}

/// What playing the steps left behind.
#[derive(Default)]
struct Played {
    failure: Option<(usize, StepFailure)>,
    rejected: usize,
    acted: BTreeSet<String>,
    answer: Option<String>,
    success: bool,
    ended: Option<(usize, Ending)>,
}

/// Judges `steps` as an episode of `instance`. `Err` only when the instance
/// cannot be started (its setup or start page faults).
pub fn judge(
    program: &Program,
    instance: &TaskInstance,
    steps: &[StepAction],
    source: KeyNodeSource<'_>,
    thresholds: Thresholds,
) -> Result<EpisodeReport, EnvError> {
    let mut env = Env::new(program, instance, RewardConfig::default())?;
    let nodes = match source {
        KeyNodeSource::Declared => key_nodes::declared(program, &env),
        KeyNodeSource::Listed(list) => key_nodes::listed(program, list),
    };
    let played = play(&mut env, steps);
    let Coverage { share, missing } =
        key_nodes::coverage(program, &nodes, &env.navigation().visited, &played.acted);
    let replay_ok = played.failure.is_none();
    let coverage_ok = share >= thresholds.min_coverage;
    // §5.3: a retrieval task succeeds exactly when its answer matches (the
    // environment's matcher), an operation task when its goal holds.
    let answer_ok = played.success;
    let (failed_step, why) = match played.failure {
        Some((n, why)) => (Some(n), Some(why.to_string())),
        None => (None, None),
    };
    Ok(EpisodeReport {
        task: instance.name.clone(),
        kind: if env.task().answer.is_some() {
            "retrieval"
        } else {
            "operation"
        },
        replay_ok,
        failed_step,
        why,
        steps: steps.len(),
        rejected_steps: played.rejected,
        key_node_coverage: share,
        missing_key_nodes: missing,
        coverage_ok,
        answer: played.answer,
        answer_ok,
        success: played.success,
        accepted: replay_ok && coverage_ok && answer_ok,
    })
}

/// Plays every step it can; remembers the first failure.
fn play(env: &mut Env<'_>, steps: &[StepAction]) -> Played {
    let mut played = Played::default();
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        if let Some((ended_at, how)) = played.ended {
            played
                .failure
                .get_or_insert((n, StepFailure::EpisodeOver { ended_at, how }));
            break;
        }
        if let Err(failure) = take(env, step, &mut played) {
            played.failure.get_or_insert((n, failure));
            continue;
        }
        if env.done() {
            played.ended = Some((n, ending(&played)));
        }
    }
    played
}

/// One step on `env`, noted in `played`; a refused one changes nothing.
fn take(env: &mut Env<'_>, step: &StepAction, played: &mut Played) -> Result<(), StepFailure> {
    let action = resolve(env, step)?;
    let key = step_of(env, &action).key;
    let result = env
        .step(&action)
        .map_err(|why| StepFailure::NotACandidate {
            url: env.observation().url,
            why,
        })?;
    played.acted.extend(key);
    if result.epsilon == 1 {
        played.rejected += 1;
    }
    if action.kind == ActionKind::Answer {
        played.answer = action.text;
    }
    played.success = result.success;
    Ok(())
}

fn ending(played: &Played) -> Ending {
    match (played.success, &played.answer) {
        (true, _) => Ending::Success,
        (false, Some(_)) => Ending::Answered,
        (false, None) => Ending::Horizon,
    }
}
