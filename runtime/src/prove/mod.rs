//! Bounded reachability (§5.5): for each task instance, a breadth-first search
//! of the exact state space finds a shortest witness, exhausts the space within
//! the horizon (infeasible, with an explanation), or runs out of budget
//! (undecided).
//!
//! The search steps the real environment (`env`), so it proves what an agent
//! will meet. `bfs` is the breadth-first loop both engines share (order,
//! deduplication, budget, horizon); `search` runs it over the interpreter's
//! states with the bookkeeping explanations need, and `flat` over the JIT's
//! flat engine where it can play the instance. `footprint` computes the cone
//! of influence that lets a search skip actions that cannot matter;
//! `explain` turns what the search saw into reasons a person can act on;
//! `bounds` decides, without searching, goals no sequence of steps within
//! the horizon can reach; `error` says why a proof could not be produced.
//! Witnesses name elements by stable key, so they survive re-ordering of the
//! page and replay in any runtime (`replay`). `answers`
//! finds why a retrieval task's answer cannot be given (an expected `none`, a
//! value shown only inside a longer text). The distance oracle (for any state
//! of an episode, the exact distance to success and the actions on shortest
//! paths) judges the decomposed reward, so it lives in `env::distance`; it is
//! re-exported here under its old paths.

mod answers;
mod bfs;
pub mod bounds;
mod error;
pub mod explain;
mod flat;
pub mod footprint;
mod search;

pub use crate::env::distance::{
    self, Distance, DistanceOracle, SharedOracle, Shortest, DEFAULT_ORACLE_BUDGET,
};
pub use answers::{AnswerIssue, EMPTY_SUMMARY};
pub use error::{MissingElement, ProveError};
pub use explain::{Explanation, MarkerReport, MarkerStatus, RowRefusal, UnmetConjunct};
pub use flat::invariant_sweep;
pub use flat::JitProver;
pub(crate) use search::with_open_task;
pub use search::{invariant_sweep_interp, prove_instance, verdict_avoiding, Avoid, SweepReport};

use crate::env::{Action, ActionKind, Env, RewardConfig, TaskInstance};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Distinct states per task instance the spec allows by default.
pub const DEFAULT_BUDGET: usize = 1_000_000;

/// The width of the fingerprints the searches tell states apart by (both
/// engines, and the invariant sweep): a collision would merge two states and
/// could make a verdict wrong, so 128 bits, with odds of about n²/2¹²⁹ for
/// n states (≈ 1.5·10⁻²⁷ at the default budget).
pub const FINGERPRINT_BITS: u32 = 128;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Distinct states explored before the verdict is undecided.
    pub budget: usize,
    /// Skip actions outside the task's cone of influence.
    pub prune: bool,
    /// Search this many steps instead of the task's horizon (to tell an
    /// author how many steps a goal really needs).
    pub horizon: Option<u32>,
    /// Try the exact reductions first (`bounds`: a goal part no sequence of
    /// steps within the horizon can make true is infeasible without a search).
    pub reduce: bool,
    /// Explain a verdict without a witness (the interpreter's explaining
    /// search); off, such a proof has no explanation, for callers that only
    /// want the verdict or the witness's length.
    pub explain: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budget: DEFAULT_BUDGET,
            prune: true,
            horizon: None,
            reduce: true,
            explain: true,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Feasible,
    Infeasible,
    Undecided,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Feasible => "feasible",
            Verdict::Infeasible => "infeasible",
            Verdict::Undecided => "undecided",
        }
    }
}

/// One action of a witness, naming its element by stable key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessStep {
    pub kind: ActionKind,
    /// The element's stable key (`None` for `answer`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub text: Option<String>,
}

impl fmt::Display for WitnessStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ActionKind::Click => "click",
            ActionKind::Type => "type",
            ActionKind::Select => "select",
            ActionKind::Answer => "answer",
        };
        f.write_str(kind)?;
        if let Some(k) = &self.key {
            write!(f, " {k}")?;
        }
        if let Some(t) = &self.text {
            write!(f, " {t:?}")?;
        }
        Ok(())
    }
}

/// What the prover concluded about one task instance.
#[derive(Clone, Debug, Serialize)]
pub struct Proof {
    pub instance: TaskInstance,
    pub verdict: Verdict,
    /// A shortest successful action sequence (feasible only).
    pub witness: Vec<WitnessStep>,
    /// Distinct states seen.
    pub states: usize,
    /// Every state up to this many steps was explored.
    pub depth: u32,
    /// The goal already holds before any step (F404).
    pub initially_true: bool,
    /// New states were still appearing at the last step the horizon allows:
    /// a longer horizon might find a witness.
    pub cut_by_horizon: bool,
    /// Why no witness was found (infeasible and undecided).
    pub explanation: Option<Explanation>,
    /// Which engine's search decided the verdict.
    #[serde(skip)]
    pub engine: Engine,
}

/// The engine a proof's search ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The reference interpreter (`Env`).
    Interpreter,
    /// The JIT's flat engine (`FlatEnv`); a witness it finds is replayed on
    /// the interpreter, and a verdict without one is confirmed (and
    /// explained) by the interpreter's search.
    Jit,
    /// The static bound (`bounds`) decided it without searching (an
    /// explaining search, cut short, only gathered the explanation).
    Bound,
}

impl Engine {
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Interpreter => "interpreter",
            Engine::Jit => "jit",
            Engine::Bound => "bound",
        }
    }
}

/// A marker refused by an invariant from a reachable state (C302).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InvariantConflict {
    pub marker: String,
    pub invariant: String,
    /// The shortest trace from the initial state; its last step is the click
    /// the invariant refused.
    pub trace: Vec<WitnessStep>,
}

/// The proof of an instance that needs no search: an expected answer that
/// is `none` (F405), or a goal the static bound rules out within the
/// horizon (`bounds`). The interpreter's prover asks before it searches;
/// the flat prover asks for the first at once and for the bound later
/// (`flat/late_bound.rs`).
fn decided_before_search(
    program: &crate::ir::Program,
    env: &Env<'_>,
    instance: &TaskInstance,
    options: Options,
) -> Result<Option<Proof>, ProveError> {
    if let Some(proof) = empty_answer(env, instance) {
        return Ok(Some(proof));
    }
    bounds::decide(program, env, instance, options)
}

/// A fresh environment of `instance` for a search or a replay (default
/// reward; the prover reads no reward).
pub(crate) fn fresh_env<'p>(
    program: &'p crate::ir::Program,
    instance: &TaskInstance,
) -> Result<Env<'p>, ProveError> {
    Env::new(program, instance, RewardConfig::default()).map_err(ProveError::Instance)
}

/// The proof of an instance whose expected answer is `none`: infeasible,
/// without a search.
pub(crate) fn empty_answer(env: &Env<'_>, instance: &TaskInstance) -> Option<Proof> {
    (*env.expected_answer() == crate::env::Expected::Empty).then(|| Proof {
        instance: instance.clone(),
        verdict: Verdict::Infeasible,
        witness: Vec::new(),
        states: 1,
        depth: 0,
        initially_true: false,
        cut_by_horizon: false,
        explanation: Some(Explanation::of_empty_answer()),
        engine: Engine::Interpreter,
    })
}

/// Goal conjuncts (by position) that are false in the instance's initial state
/// and that no step can change: no marker writes anything they read, and they
/// do not ask about navigation (F402). The search is not needed for these.
pub fn frozen_conjuncts(
    program: &crate::ir::Program,
    instance: &TaskInstance,
) -> Result<Vec<usize>, ProveError> {
    use crate::ir::reads::{expr_reads, marker_effects, touches, Locs};
    let env = fresh_env(program, instance)?;
    let Some(goal) = &env.task().goal else {
        return Ok(Vec::new());
    };
    let mut writable = Locs::new();
    for m in &program.markers {
        writable.extend(marker_effects(program, m).writes);
    }
    let mut frozen = Vec::new();
    for (i, c) in explain::conjuncts(goal).into_iter().enumerate() {
        let navigates = c.reads_navigation();
        let mut reads = Locs::new();
        expr_reads(program, c, &mut reads);
        let held = crate::env::reward::holds(program, env.state(), env.task_frame(), c);
        if !navigates && !touches(&writable, &reads) && !held {
            frozen.push(i);
        }
    }
    Ok(frozen)
}

/// Replays `witness` on a fresh environment of `instance`, resolving each key
/// on the page at that point. `Ok(true)` when the last step succeeds and no
/// earlier one ends the episode.
pub fn replay(
    program: &crate::ir::Program,
    instance: &TaskInstance,
    witness: &[WitnessStep],
) -> Result<bool, ProveError> {
    let mut env = fresh_env(program, instance)?;
    for (i, step) in witness.iter().enumerate() {
        let action = resolve_step(&env, step)?;
        let r = env
            .step(&action)
            .map_err(|why| ProveError::Step { step: i + 1, why })?;
        if r.done {
            return Ok(r.success && i + 1 == witness.len());
        }
    }
    Ok(false)
}

/// The action a witness step names on the current page.
pub fn resolve_step(env: &Env<'_>, step: &WitnessStep) -> Result<Action, MissingElement> {
    let element = match &step.key {
        None => None,
        Some(key) => Some(
            env.elements()
                .iter()
                .find(|e| &e.key == key)
                .map(|e| e.index)
                .ok_or_else(|| MissingElement {
                    key: key.clone(),
                    url: env.observation().url.clone(),
                })?,
        ),
    };
    Ok(Action {
        kind: step.kind,
        element,
        text: step.text.clone(),
    })
}

/// The witness step for `action` on the current page.
pub(crate) fn step_of(env: &Env<'_>, action: &Action) -> WitnessStep {
    // The rendered elements, not a whole observation (which copies every
    // element and builds the accessibility tree), for one key.
    let key = action
        .element
        .and_then(|i| env.elements().get(i.wrapping_sub(1)))
        .map(|e| e.key.clone());
    WitnessStep {
        kind: action.kind,
        key,
        text: action.text.clone(),
    }
}
