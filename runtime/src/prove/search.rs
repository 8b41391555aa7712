//! The breadth-first search over one task instance's states.
//!
//! States are told apart by a 128-bit fingerprint (xxh3) of page, arguments,
//! form variables, database and session (plus the visited set when the
//! task's goal or progress asks `visited`), never by step or alert (§5.5):
//! two states merged by a collision would make a verdict wrong, and at 128
//! bits the odds for the 1,000,000-state budget are about n²/2¹²⁹ ≈ 10⁻²⁷. Level `d` of the
//! search holds the states first reached in `d` steps, so the first success is
//! a shortest witness. A frontier state is kept whole (tables are shared
//! copy-on-write, so siblings cost little); every other state is one node: its
//! parent and the action that reached it, enough to rebuild any trace.

use super::bfs::{self, Bfs, Tried};
use super::explain::{self, Observed, Searched};
use super::footprint::Cone;
use super::{Engine, Options, Proof, ProveError, Verdict};
use crate::env::observe::Handle;
use crate::env::{reward, Action, ActionKind, Env, RewardConfig, State, TaskInstance};
use crate::identity::{fingerprint, tells_visited};
use crate::ir;

/// Proves one task instance.
pub fn prove_instance(
    program: &ir::Program,
    instance: &TaskInstance,
    options: Options,
) -> Result<Proof, ProveError> {
    let env = super::fresh_env(program, instance)?;
    if let Some(proof) = super::decided_before_search(program, &env, instance, options)? {
        return Ok(proof);
    }
    search_instance(program, env, instance, options)
}

/// [`prove_instance`] past the reductions, from the instance's fresh
/// environment `env`.
pub(super) fn search_instance(
    program: &ir::Program,
    env: Env<'_>,
    instance: &TaskInstance,
    options: Options,
) -> Result<Proof, ProveError> {
    let cone = cone_of(program, &env, options);
    // Most tasks are feasible, and the bookkeeping behind explanations (goal
    // conjuncts and Ψ of every state, every marker attempt) costs as much as
    // the search itself; so search without it first, and search again with it
    // only when there is something to explain.
    let mut search = Search::new(program, env, options, cone, false);
    let ended = search.run();
    if let Ended::Witness { .. } = ended {
        return Ok(conclude(&search, ended, instance));
    }
    let (verdict, depth) = ended.verdict();
    let plain = Unexplained {
        verdict,
        depth,
        states: search.states(),
        initially_true: search.initially_true,
        cut_by_horizon: search.bfs.cut_by_horizon,
    };
    explained(program, instance, options, plain, Engine::Interpreter)
}

/// States the explaining search may visit to explain an undecided verdict:
/// the first states of the plain search's order, so that explaining costs a
/// fraction of the search that ran out of budget instead of as much again.
pub const UNDECIDED_EXPLAIN_BUDGET: usize = 100_000;

/// What a search without bookkeeping concluded about an instance when it
/// found no witness.
pub(super) struct Unexplained {
    pub(super) verdict: Verdict,
    pub(super) depth: u32,
    pub(super) states: usize,
    pub(super) initially_true: bool,
    pub(super) cut_by_horizon: bool,
}

/// The proof of an instance a plain search (on `engine`) found no witness
/// for, explained as `options` asks. An infeasible verdict is explained by
/// the explaining search over the same space, which must agree on verdict,
/// depth, states and the horizon flag (or the proof is an error). An
/// undecided one is explained by the explaining search's first
/// [`UNDECIDED_EXPLAIN_BUDGET`] states, and says so; it must not decide.
pub(super) fn explained(
    program: &ir::Program,
    instance: &TaskInstance,
    options: Options,
    plain: Unexplained,
    engine: Engine,
) -> Result<Proof, ProveError> {
    let unexplained = Proof {
        instance: instance.clone(),
        verdict: plain.verdict,
        witness: Vec::new(),
        states: plain.states,
        depth: plain.depth,
        initially_true: plain.initially_true,
        cut_by_horizon: plain.cut_by_horizon,
        explanation: None,
        engine,
    };
    if !options.explain {
        return Ok(unexplained);
    }
    let capped = plain.verdict == Verdict::Undecided && options.budget > UNDECIDED_EXPLAIN_BUDGET;
    let explaining = Options {
        budget: if capped {
            UNDECIDED_EXPLAIN_BUDGET
        } else {
            options.budget
        },
        ..options
    };
    let proof = prove_explained(program, instance, explaining)?;
    let mine = (
        proof.verdict,
        proof.depth,
        proof.states,
        proof.cut_by_horizon,
    );
    let theirs = (
        plain.verdict,
        plain.depth,
        plain.states,
        plain.cut_by_horizon,
    );
    if (capped && proof.verdict != Verdict::Undecided) || (!capped && mine != theirs) {
        return Err(ProveError::self_check(
            &instance.name,
            format!(
                "the {} search (verdict, depth, states, cut by the horizon) is {theirs:?} \
                 but the interpreter's explaining search is {mine:?}",
                engine.as_str()
            ),
        ));
    }
    let mut explanation = proof.explanation;
    if capped {
        if let Some(e) = &mut explanation {
            e.summary = format!(
                "{} (what follows is from the first {})",
                explain::budget_summary(plain.states, plain.depth),
                explain::plural(proof.states, "state")
            );
        }
    }
    Ok(Proof {
        explanation,
        ..unexplained
    })
}

/// The search with the bookkeeping explanations need, alone: what the flat
/// engine's prover runs when its own search found no witness.
pub(super) fn prove_explained(
    program: &ir::Program,
    instance: &TaskInstance,
    options: Options,
) -> Result<Proof, ProveError> {
    let (env, cone) = start(program, instance, options)?;
    let mut search = Search::new(program, env, options, cone, true);
    let ended = search.run();
    Ok(conclude(&search, ended, instance))
}

/// Whether the search of `env`'s instance may skip actions outside its cone.
/// Not when the goal already holds (F404): then any first step, even an
/// idle or refused one, is a witness, and skipping the idle ones could leave
/// no step at all (tests/soundness/goal_already_true_and_every_action_pruned).
pub(super) fn prunes(program: &ir::Program, env: &Env<'_>, options: Options) -> bool {
    options.prune && !reward::goal_holds(program, env.task(), env.state(), env.task_frame())
}

/// The instance's initial environment, and its cone when pruning.
fn start<'p>(
    program: &'p ir::Program,
    instance: &TaskInstance,
    options: Options,
) -> Result<(Env<'p>, Option<Cone>), ProveError> {
    let env = super::fresh_env(program, instance)?;
    let cone = cone_of(program, &env, options);
    Ok((env, cone))
}

/// The cone of `env`'s task, when its search prunes.
fn cone_of(program: &ir::Program, env: &Env<'_>, options: Options) -> Option<Cone> {
    prunes(program, env, options).then(|| Cone::of_task(program, env.task()))
}

/// The proof a finished search amounts to.
fn conclude(search: &Search<'_>, ended: Ended, instance: &TaskInstance) -> Proof {
    let (verdict, depth) = ended.verdict();
    let witness = match ended {
        Ended::Witness { node, label, .. } => {
            let mut path = search.path(node);
            path.push(label);
            search.keyed(&path)
        }
        _ => Vec::new(),
    };
    let explanation = (verdict != Verdict::Feasible && search.engine.observe)
        .then(|| search.explain(verdict, depth));
    Proof {
        instance: instance.clone(),
        verdict,
        witness,
        states: search.bfs.states(),
        depth,
        initially_true: search.initially_true,
        cut_by_horizon: search.bfs.cut_by_horizon,
        explanation,
        engine: Engine::Interpreter,
    }
}

type Ended = bfs::Ended<Action>;

/// The interpreter's search: the shared breadth-first loop ([`Bfs`]) over
/// `Env` states, with the bookkeeping explanations need when `observe`.
pub(super) struct Search<'p> {
    bfs: Bfs<Action>,
    engine: EnvExpander<'p>,
    /// The untouched initial environment, for replaying traces.
    start: Env<'p>,
    initially_true: bool,
}

/// `Env` states for [`Bfs`]: a state is expanded by loading it into a
/// scratch environment and taking each candidate's successor.
struct EnvExpander<'p> {
    program: &'p ir::Program,
    /// A scratch environment, loaded with each state expanded.
    env: Env<'p>,
    /// The loaded state's candidates.
    actions: Vec<Action>,
    cone: Option<Cone>,
    with_visited: bool,
    /// Keep what explanations need (`observed`).
    observe: bool,
    observed: Observed<'p>,
    /// Pages and elements this search must not use (key nodes).
    avoid: Avoid,
    /// The successor tried last, until the search settles it.
    pending: Option<State>,
}

/// One level of `Env` states (each taken when it is expanded).
#[derive(Default)]
struct States(Vec<Option<State>>);

impl bfs::Level for States {
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// Pages and elements a search must never use: the forbidding search that
/// decides whether a node is a key node (`tasks::keys`). Removing actions
/// keeps the search exact over the smaller action set, so "infeasible while
/// avoiding X" means every successful episode within the horizon uses X.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Avoid {
    /// Pages, with their argument values, never arrived at (by a link, a
    /// button, a marker's `go` or a guard's redirect).
    pub pages: Vec<(ir::PageId, Vec<ir::Value>)>,
    /// Elements, by stable key, never acted on.
    pub keys: Vec<String>,
}

impl Avoid {
    fn page(&self, state: &State) -> bool {
        self.pages
            .iter()
            .any(|(p, a)| *p == state.nav.page && *a == state.nav.args)
    }
}

/// The verdict of the plain search (no explanation) on `instance` with the
/// pages and elements of `avoid` forbidden; a start page that is forbidden
/// makes the instance infeasible.
pub fn verdict_avoiding(
    program: &ir::Program,
    instance: &TaskInstance,
    options: Options,
    avoid: &Avoid,
) -> Result<Verdict, ProveError> {
    let (env, cone) = start(program, instance, options)?;
    if avoid.page(env.state()) {
        return Ok(Verdict::Infeasible);
    }
    let mut search = Search::new(program, env, options, cone, false);
    search.engine.avoid = avoid.clone();
    Ok(search.run().verdict().0)
}

impl<'p> Search<'p> {
    fn new(
        program: &'p ir::Program,
        env: Env<'p>,
        options: Options,
        cone: Option<Cone>,
        observe: bool,
    ) -> Self {
        let task = env.task();
        let horizon = options.horizon.unwrap_or(task.horizon);
        Search {
            bfs: Bfs::new(horizon, options.budget),
            start: env.clone(),
            initially_true: false,
            engine: EnvExpander {
                program,
                observed: Observed::new(program, task),
                with_visited: tells_visited(task),
                env,
                actions: Vec::new(),
                cone,
                observe,
                avoid: Avoid::default(),
                pending: None,
            },
        }
    }

    fn run(&mut self) -> Ended {
        let env = &self.engine.env;
        self.initially_true = reward::goal_holds(
            self.engine.program,
            env.task(),
            env.state(),
            env.task_frame(),
        );
        let exhausted = env.task().horizon;
        match self.bfs.run(&mut self.engine, exhausted) {
            Ok(ended) => ended,
            Err(never) => match never {},
        }
    }

    fn explain(&self, verdict: Verdict, depth: u32) -> super::Explanation {
        explain::explain(self, verdict, depth)
    }
}

impl<'p> bfs::Expander for EnvExpander<'p> {
    type Label = Action;
    type Level = States;
    type Error = std::convert::Infallible;

    fn try_root(&mut self) -> Result<u128, Self::Error> {
        let root = self.env.state().clone();
        let fingerprint = fingerprint(&root, self.with_visited);
        self.pending = Some(root);
        Ok(fingerprint)
    }

    fn load(&mut self, level: &mut States, i: usize, _node: u32) -> Result<(), Self::Error> {
        if let Some(state) = level.0.get_mut(i).and_then(Option::take) {
            self.env.load(state);
        }
        if self.observe {
            self.observed.note_expanded(&self.env);
        }
        self.actions.clear();
        self.actions.extend_from_slice(self.env.actions());
        Ok(())
    }

    fn candidates(&self) -> usize {
        self.actions.len()
    }

    fn try_candidate(&mut self, k: usize, node: u32) -> Result<Tried<Action>, Self::Error> {
        let Some(action) = self.actions.get(k).cloned() else {
            return Ok(Tried::Skipped);
        };
        if self.pruned(&action) || self.avoided(&action) {
            return Ok(Tried::Skipped);
        }
        let Ok(succ) = self.env.successor(&action) else {
            return Ok(Tried::Skipped);
        };
        if self.avoid.page(&succ.state) {
            return Ok(Tried::Skipped);
        }
        if self.observe {
            if let Some((m, args)) = self.marker_of(&action) {
                let rejection = succ.rejection.as_ref();
                let alert = &succ.state.alert;
                self.observed
                    .note_attempt(m, &args, &self.env, rejection, alert, node, &action);
            }
        }
        if succ.success {
            return Ok(Tried::Success(action));
        }
        if succ.rejected || action.kind == ActionKind::Answer {
            return Ok(Tried::Dead);
        }
        let fingerprint = fingerprint(&succ.state, self.with_visited);
        self.pending = Some(succ.state);
        Ok(Tried::Successor(action, fingerprint))
    }

    /// Goal conjuncts and Ψ of a newly reached state.
    fn reached(&mut self, node: u32) {
        if let (true, Some(state)) = (self.observe, &self.pending) {
            self.observed.note_state(state, self.env.task_frame(), node);
        }
    }

    fn settle(&mut self, keep: Option<&mut States>) -> Result<(), Self::Error> {
        let state = self.pending.take();
        if let Some(level) = keep {
            level.0.push(state);
        }
        Ok(())
    }
}

impl EnvExpander<'_> {
    /// Whether the cone says this action cannot matter.
    fn pruned(&self, action: &Action) -> bool {
        let Some(cone) = &self.cone else { return false };
        let Some(handle) = action
            .element
            .and_then(|i| self.env.view().handles.get(i.wrapping_sub(1)))
        else {
            return false;
        };
        let page = self.env.state().nav.page;
        match handle {
            Handle::Marker(m, _) => cone.idle_markers.contains(m),
            Handle::Input { key, .. }
            | Handle::Select { key, .. }
            | Handle::Checkbox { key, .. } => cone.idle_fields.contains(&(page, key.0)),
            Handle::Inert | Handle::Go(_) => false,
        }
    }

    /// Whether the action uses an element the search must avoid.
    fn avoided(&self, action: &Action) -> bool {
        if self.avoid.keys.is_empty() {
            return false;
        }
        action
            .element
            .and_then(|i| self.env.elements().get(i.wrapping_sub(1)))
            .is_some_and(|e| self.avoid.keys.contains(&e.key))
    }

    /// The marker a click triggers, with its arguments (when they evaluated).
    fn marker_of(&self, action: &Action) -> Option<(ir::MarkerId, Vec<ir::Value>)> {
        let (m, args) = self.env.marker_clicked(action)?;
        Some((m, args.clone().unwrap_or_default()))
    }
}

impl<'p> Searched<'p> for Search<'p> {
    /// The actions from the initial state to `node`.
    fn path(&self, node: u32) -> Vec<Action> {
        self.bfs.path(node)
    }

    /// `path` replayed from the start, each action named by stable key. It is
    /// replayed as the search took it (successor, then load), not with
    /// `Env::step`, which would end the episode at the task's horizon and cut
    /// short a trace found with a longer search horizon.
    fn keyed(&self, path: &[Action]) -> Vec<super::WitnessStep> {
        let mut env = self.start.clone();
        let mut out = Vec::with_capacity(path.len());
        for a in path {
            out.push(super::step_of(&env, a));
            match env.successor(a) {
                Ok(succ) => env.load(succ.state),
                Err(_) => break,
            }
        }
        out
    }

    fn states(&self) -> usize {
        self.bfs.states()
    }

    fn program(&self) -> &'p ir::Program {
        self.engine.program
    }

    fn task(&self) -> &'p ir::TaskDef {
        self.start.task()
    }

    fn horizon(&self) -> u32 {
        self.bfs.horizon()
    }

    fn observed(&self) -> &Observed<'p> {
        &self.engine.observed
    }
}

/// What the invariant sweep found (C302).
#[derive(Clone, Debug)]
pub struct SweepReport {
    /// Each (marker, invariant) pair with the shortest trace that ends in the
    /// refusal (the last step is the refused click).
    pub conflicts: Vec<super::InvariantConflict>,
    pub states: usize,
    /// The whole bounded space was explored (the budget did not run out).
    pub complete: bool,
    /// Which engine searched.
    pub engine: super::Engine,
}

/// The union of every task instance's typeable values, first occurrence
/// first: what a search that serves no one task may type (the invariant
/// sweep, the task generator's exploration).
pub(crate) fn all_typeable_values(program: &ir::Program) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    for inst in crate::env::instances(program) {
        let Ok(env) = Env::new(program, &inst, RewardConfig::default()) else {
            continue;
        };
        for v in env.typeable_values() {
            if !values.contains(v) {
                values.push(v.clone());
            }
        }
    }
    values
}

/// `program` with one more task, last, named `name`: no goal, no answer, the
/// union of every task's typeable values, `horizon` steps. A search of it
/// serves no one task: the invariant sweep, the task generator's exploration.
pub(crate) fn with_open_task(program: &ir::Program, name: &str, horizon: u32) -> ir::Program {
    let values = all_typeable_values(program);
    let mut open = program.clone();
    open.tasks.push(ir::TaskDef {
        name: name.into(),
        template: None,
        say: Vec::new(),
        start: None,
        horizon,
        goal: None,
        answer: None,
        progress: Vec::new(),
        key: Vec::new(),
        values,
        setup: Vec::new(),
        frame: 0,
    });
    open
}

/// What §5.5's extra search per site searches: `program` with an open task
/// (from the initial state, no `setup`, every task's typeable values, as
/// deep as the longest horizon, no goal), its one instance, and `options`
/// without pruning (no task's cone applies).
pub(crate) fn sweep_target(
    program: &ir::Program,
    options: Options,
) -> (ir::Program, TaskInstance, Options) {
    let horizon = program.tasks.iter().map(|t| t.horizon).max().unwrap_or(0);
    let swept = with_open_task(program, "invariant sweep", horizon);
    let instance = TaskInstance {
        task: swept.tasks.len() - 1,
        binding: None,
        name: "invariant sweep".into(),
    };
    let options = Options {
        prune: false,
        ..options
    };
    (swept, instance, options)
}

/// §5.5's extra search per site on the interpreter (see `sweep_target`):
/// every marker refused by an invariant, with its shortest trace.
/// [`super::invariant_sweep`] runs it on the flat engine where it can.
pub fn invariant_sweep_interp(
    program: &ir::Program,
    options: Options,
) -> Result<SweepReport, ProveError> {
    let (swept, instance, options) = sweep_target(program, options);
    let env = super::fresh_env(&swept, &instance)?;
    let mut search = Search::new(&swept, env, options, None, true);
    let ended = search.run();
    let conflicts = search
        .engine
        .observed
        .invariant_refusals
        .iter()
        .map(|(m, invariant, node, action)| {
            let mut path = search.path(*node);
            path.push(action.clone());
            super::InvariantConflict {
                marker: swept
                    .markers
                    .get(*m as usize)
                    .map_or_else(String::new, |d| d.name.clone()),
                invariant: invariant.clone(),
                trace: search.keyed(&path),
            }
        })
        .collect();
    Ok(SweepReport {
        conflicts,
        states: search.bfs.states(),
        complete: ended.complete(),
        engine: super::Engine::Interpreter,
    })
}
