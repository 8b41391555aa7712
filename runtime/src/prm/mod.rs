//! Process-reward data (INTERFACES.md, "Process-reward data"; seed 002,
//! WebArbiter; docs/prm.md): step-level preference instances whose labels
//! are exact, and what scores judges against them.
//!
//! An [`Instance`] is one state of one task episode, shown as an agent sees
//! it (instruction, URL, the §5.2 text form, the actions taken so far), with
//! one *chosen* candidate action that shortens the exact remaining distance
//! to success and four *rejected* ones that do not. The distance comes from
//! `env::distance` (a breadth-first search over the exact semantics, with
//! memoised distances), so a label is a fact about the site, never a guess:
//! a state whose distance the oracle cannot decide within its budget yields
//! no instance. `label` labels one state and ranks the hard negatives,
//! `sample` walks witness prefixes and random rollouts to choose the states,
//! `text` writes actions in the text forms judges read, and [`restore`] puts
//! an environment back in an instance's state by replaying its trace (what
//! the policy baselines and the oracle check need).

pub mod baselines;
pub mod judge;
pub mod label;
pub mod sample;
pub mod score;
pub mod text;
pub mod webprmbench;

use crate::env::{Env, RewardConfig, TaskInstance};
use crate::ir::Program;
use crate::prove::{resolve_step, WitnessStep};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where an instance's state came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A prefix of a shortest successful sequence.
    Witness,
    /// Reached by uniformly random candidate actions.
    Random,
    /// Read from another benchmark's records (`webprmbench`): no trace, no
    /// distances (`distance` and `remaining` are 0 and mean nothing).
    Imported,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Witness => "witness",
            Origin::Random => "random",
            Origin::Imported => "imported",
        }
    }
}

/// The exact distance to success after taking a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum After {
    /// This many more steps at least (0: the step itself succeeds).
    Steps(u32),
    /// No sequence within the steps left succeeds: the task is lost.
    Unreachable,
    /// The oracle's budget ran out (the candidate is still known not to be
    /// on a shortest path; only how far it leads is unknown).
    Unknown,
}

impl Serialize for After {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            After::Steps(n) => s.serialize_u32(*n),
            After::Unreachable => s.serialize_str("unreachable"),
            After::Unknown => s.serialize_str("unknown"),
        }
    }
}

impl<'de> Deserialize<'de> for After {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<After, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Number(n) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(After::Steps)
                .ok_or_else(|| serde::de::Error::custom("a distance is a whole number of steps")),
            serde_json::Value::String(s) if s == "unreachable" => Ok(After::Unreachable),
            serde_json::Value::String(s) if s == "unknown" => Ok(After::Unknown),
            _ => Err(serde::de::Error::custom(
                "expected a number of steps, \"unreachable\" or \"unknown\"",
            )),
        }
    }
}

/// Why a rejected candidate is a hard negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hardness {
    /// It makes the task impossible within the steps left (irreversible).
    DeadEnd,
    /// The same kind of action as the chosen one.
    SameKind,
    /// On an element within a few places of the chosen one's.
    Nearby,
    /// Its text shares words with the chosen one's.
    SimilarText,
}

/// One candidate action of an instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The text form judges read: `click [7] link "ThinkPad X1"`.
    pub action: String,
    /// The same action by stable key, replayable in any runtime (`None`
    /// for an imported action that is only text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<WitnessStep>,
    /// Its element's 1-based index in the observation (`None` for answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<usize>,
    /// The exact distance to success once it is taken.
    pub distance_after: After,
    /// Why a rejected candidate is hard (empty for the chosen one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hard: Vec<Hardness>,
}

/// One step-level preference instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// Unique in a benchmark: `site/task@step#n`.
    pub id: String,
    pub site: String,
    pub domain: String,
    /// The task instance (`buy_x1`, `opening_hours[c=3]`).
    pub task: String,
    /// `operation` or `retrieval`.
    pub kind: String,
    /// Steps taken before this state.
    pub step: u32,
    pub origin: Origin,
    pub instruction: String,
    pub url: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<String>,
    /// The §5.2 text form, one line per element.
    pub observation: String,
    /// The actions taken so far, in text form as they were shown.
    pub history: Vec<String>,
    /// The same actions by stable key ([`restore`] replays them).
    pub trace: Vec<WitnessStep>,
    /// The exact distance to success from this state.
    pub distance: u32,
    /// Steps the horizon leaves.
    pub remaining: u32,
    pub chosen: Candidate,
    pub rejected: Vec<Candidate>,
}

/// Rejected candidates per instance (WebPRMBench's shape).
pub const REJECTED: usize = 4;

/// Why an instance's state cannot be rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestoreError {
    /// The site has no task instance of that name.
    NoTask(String),
    /// The instance cannot start (setup or start page faults).
    Start(String),
    /// Trace step `n` (1-based) does not resolve or cannot be taken.
    Step(usize, String),
    /// The trace ended the episode before the instance's state.
    Ended(usize),
    /// The replayed state is not the one exported (the site changed).
    Stale { expected: String, found: String },
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreError::NoTask(t) => write!(f, "the site has no task instance `{t}`"),
            RestoreError::Start(why) => write!(f, "the task cannot start: {why}"),
            RestoreError::Step(n, why) => write!(f, "trace step {n}: {why}"),
            RestoreError::Ended(n) => write!(f, "the episode ended at trace step {n}"),
            RestoreError::Stale { expected, found } => write!(
                f,
                "the replayed page is {found}, not {expected}: the site changed since the export"
            ),
        }
    }
}

impl std::error::Error for RestoreError {}

/// The task instance of `program` called `name`.
pub fn task_instance(program: &Program, name: &str) -> Option<TaskInstance> {
    crate::env::instances(program)
        .into_iter()
        .find(|i| i.name == name)
}

/// An environment in `instance`'s state: the task started afresh and the
/// trace replayed; its URL and observation must be the exported ones.
pub fn restore<'p>(
    program: &'p Program,
    instance: &Instance,
    config: RewardConfig,
) -> Result<Env<'p>, RestoreError> {
    let state = State {
        task: &instance.task,
        trace: &instance.trace,
        url: &instance.url,
        observation: &instance.observation,
    };
    restore_state(program, &state, config)
}

/// A state as exported: what [`restore_state`] rebuilds and checks.
pub struct State<'a> {
    pub task: &'a str,
    pub trace: &'a [WitnessStep],
    pub url: &'a str,
    pub observation: &'a str,
}

/// An environment in `state` (of an instance or a judge's query).
pub fn restore_state<'p>(
    program: &'p Program,
    state: &State<'_>,
    config: RewardConfig,
) -> Result<Env<'p>, RestoreError> {
    let task = task_instance(program, state.task)
        .ok_or_else(|| RestoreError::NoTask(state.task.to_string()))?;
    let mut env =
        Env::new(program, &task, config).map_err(|e| RestoreError::Start(e.to_string()))?;
    replay_trace(&mut env, state.trace)?;
    state.check(&env)?;
    Ok(env)
}

impl State<'_> {
    /// Whether `env` shows this state's URL and text form: a replay that
    /// shows anything else is stale (the site changed since the export).
    pub fn check(&self, env: &Env<'_>) -> Result<(), RestoreError> {
        let url = env.observation().url;
        if url != self.url || crate::env::axtree(env.elements()) != self.observation {
            return Err(RestoreError::Stale {
                expected: self.url.to_string(),
                found: url,
            });
        }
        Ok(())
    }
}

/// Takes `trace`'s steps in `env`; the episode must still run afterwards.
pub fn replay_trace(env: &mut Env<'_>, trace: &[WitnessStep]) -> Result<(), RestoreError> {
    for (i, step) in trace.iter().enumerate() {
        let action =
            resolve_step(env, step).map_err(|e| RestoreError::Step(i + 1, e.to_string()))?;
        let r = env
            .step(&action)
            .map_err(|e| RestoreError::Step(i + 1, e.to_string()))?;
        if r.done {
            return Err(RestoreError::Ended(i + 1));
        }
    }
    Ok(())
}
