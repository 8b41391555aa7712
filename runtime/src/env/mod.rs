//! The environment (§5): a site's task instance as an episodic RL environment.
//!
//! An `Env` holds one episode's state — the world (database and session), where
//! the visitor is and has been, the page's form variables, the step count and the
//! alert — and exposes the observation, the candidate actions A(o) and `step`.
//! After every change the current page is rendered once (`observe::render_page`)
//! into a `View`: the observation plus, per element, what acting on it does. The
//! candidate actions and `step` both read that view, so an action always means
//! what the agent saw.
//!
//! Everything is deterministic (§5.6): ordered maps only, no clock, no
//! randomness; and nothing panics on any input — bad actions are `Err`s.

pub(crate) mod actions;
pub mod answer;
pub mod distance;
mod error;
pub mod judge;
pub(crate) mod observe;
mod page;
pub(crate) mod reward;
mod step;
pub mod writer;
pub mod writer_json;

use crate::interp::eval::{eval, Navigation};
use crate::interp::exec::{run_setup, World};
use crate::interp::guard::land;
use crate::interp::render_text;
use crate::interp::state::idx;
use crate::interp::ActionFault;
use crate::ir::{self, Value};
use crate::layout::{LayoutError, StateLayout, TextPool};
use distance::{Distance, DistanceOracle, SharedOracle, Shortest};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use answer::{Expected, Typed};
pub use error::EnvError;
pub use judge::Judgement;
pub(crate) use observe::quote;
pub use observe::{axtree, snake_case};
pub use page::{Control, InputKind, PageElement};
pub(crate) use step::Successor;
pub use writer::{Proposal, ProposalError, SharedWriter, StateWriter, WriteRequest, WriterError};

/// Which reward a step earns (§5.4; the decomposed one is docs/training.md's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RewardMode {
    /// `1[success] + α·(Ψ(s') − Ψ(s)) − γ·ε − η`.
    #[default]
    Dense,
    /// `1[success]` only.
    Terminal,
    /// `1[success] + β·R_acc·new_best/d₀` (and `−w_f` for a malformed
    /// protocol request), judged by the exact distance oracle.
    Decomposed,
}

impl RewardMode {
    /// Every mode, by the name the CLI takes.
    pub const NAMES: [(&'static str, RewardMode); 3] = [
        ("dense", RewardMode::Dense),
        ("terminal", RewardMode::Terminal),
        ("decomposed", RewardMode::Decomposed),
    ];

    /// The mode called `name` (`dense`, `terminal`, `decomposed`).
    pub fn parse(name: &str) -> Option<RewardMode> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| *m)
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("dense", |(n, _)| n)
    }
}

/// Reward shaping (§5.4).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RewardConfig {
    /// Weight of the progress potential difference.
    pub alpha: f64,
    /// Penalty of a rejected step (ε = 1).
    pub gamma: f64,
    /// Cost of every step.
    pub eta: f64,
    #[serde(default)]
    pub mode: RewardMode,
    /// β: the decomposed reward's total progress credit of a perfect episode.
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// w_f: the decomposed reward's penalty of a malformed protocol request.
    #[serde(default = "default_format_penalty")]
    pub format_penalty: f64,
    /// Distinct states the distance oracle may explore per query.
    #[serde(default = "default_oracle_budget")]
    pub oracle_budget: usize,
}

fn default_beta() -> f64 {
    0.5
}

fn default_format_penalty() -> f64 {
    0.1
}

fn default_oracle_budget() -> usize {
    distance::DEFAULT_ORACLE_BUDGET
}

impl Default for RewardConfig {
    fn default() -> Self {
        RewardConfig {
            alpha: 0.5,
            gamma: 0.2,
            eta: 0.01,
            mode: RewardMode::Dense,
            beta: default_beta(),
            format_penalty: default_format_penalty(),
            oracle_budget: default_oracle_budget(),
        }
    }
}

impl RewardConfig {
    /// The defaults with reward `mode`.
    pub fn with_mode(mode: RewardMode) -> RewardConfig {
        RewardConfig {
            mode,
            ..RewardConfig::default()
        }
    }
}

/// One task instance: a task, and for a template the row it is bound to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskInstance {
    /// Index in `program.tasks`.
    pub task: usize,
    /// The template row's id.
    pub binding: Option<i64>,
    /// `opening_hours` or `opening_hours[c=3]`.
    pub name: String,
}

/// What the agent sees (§5.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub url: String,
    pub title: String,
    pub instruction: String,
    pub alert: Option<String>,
    pub elements: Vec<ObsElement>,
    pub axtree: String,
}

/// One rendered element.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObsElement {
    /// 1-based, in document order (the `[7]` of the text form).
    pub index: usize,
    /// The stable key: `#name`, or `Page:line:column[x=rowid,...]`.
    pub key: String,
    /// heading, text, image, link, button, input, select, checkbox or section.
    pub role: &'static str,
    pub text: String,
    pub value: Option<String>,
    pub options: Vec<String>,
    pub disabled: bool,
}

/// Every role an element can have.
pub const ROLES: [&str; 9] = [
    "heading", "text", "image", "link", "button", "input", "select", "checkbox", "section",
];

/// `ObsElement` as read back: a role is a closed set of `'static` names, so it
/// is read as a string and then matched.
#[derive(Deserialize)]
struct ObsElementData {
    index: usize,
    key: String,
    role: String,
    text: String,
    value: Option<String>,
    options: Vec<String>,
    disabled: bool,
}

impl<'de> Deserialize<'de> for ObsElement {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ObsElementData::deserialize(d)?
            .try_into()
            .map_err(serde::de::Error::custom)
    }
}

impl TryFrom<ObsElementData> for ObsElement {
    type Error = EnvError;
    fn try_from(d: ObsElementData) -> Result<Self, EnvError> {
        let role = ROLES
            .iter()
            .find(|r| **r == d.role)
            .copied()
            .ok_or_else(|| EnvError::UnknownRole {
                role: d.role.clone(),
            })?;
        Ok(ObsElement {
            index: d.index,
            key: d.key,
            role,
            text: d.text,
            value: d.value,
            options: d.options,
            disabled: d.disabled,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionKind {
    Click,
    Type,
    Select,
    Answer,
}

/// An action: its kind, the element (an observation index; `None` for
/// `answer`) and the text typed, selected or answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    pub kind: ActionKind,
    pub element: Option<usize>,
    pub text: Option<String>,
}

/// What a step returns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    pub reward: f64,
    pub done: bool,
    pub success: bool,
    /// 1 for a rejected step.
    pub epsilon: u8,
    /// Ψ of the state after the step.
    pub progress: f64,
    /// How the distance oracle judged the step (only with an oracle: in
    /// decomposed mode, or when one is set with [`Env::set_oracle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judgement: Option<Judgement>,
}

pub use crate::episode::{FormKey, State};

/// A task instance being played.
#[derive(Clone, Debug)]
pub struct Env<'p> {
    program: &'p ir::Program,
    task: &'p ir::TaskDef,
    instance: TaskInstance,
    config: RewardConfig,
    /// The task's frame after `setup` (template binder bound): goals, progress
    /// predicates and the answer are evaluated in it.
    frame: Vec<Value>,
    instruction: String,
    typeable: Vec<String>,
    expected: answer::Expected,
    state: State,
    view: observe::View,
    actions: Vec<Action>,
    /// Ψ of the current state.
    psi: f64,
    /// Whether the goal holds in the current state, once asked (reset by
    /// every change): a search asks it for many successors of one state.
    goal_now: std::cell::Cell<Option<bool>>,
    /// The goal asks `visited` or `page is`, so navigation alone can change it.
    goal_navigates: bool,
    /// Proposes the effects of extern markers; `None` runs their `default`
    /// bodies (always so for the prover and the trainer).
    writer: Option<SharedWriter>,
    /// Judges every step against the exact shortest paths (decomposed mode,
    /// or on request); shared by the episodes of one instance.
    oracle: Option<SharedOracle>,
    /// The distances this episode reached, for the progress credit; `None`
    /// until the first judged step, whose state's distance is d₀ (measured
    /// then, not at reset, so that starting an episode never searches).
    credit: Option<judge::Credit>,
    /// The oracle's answer for the current state, asked ahead of the step
    /// ([`Env::prejudge`]); any change of state drops it.
    prejudged: Option<Shortest>,
}

/// Frames never need more slots than this; a larger frame is a broken IR.
const MAX_FRAME: usize = 1 << 16;

/// A frame of `size` `none`s (capped, so a broken IR cannot allocate wildly).
pub(crate) fn blank_frame(size: u32) -> Vec<Value> {
    vec![Value::None; idx(size).min(MAX_FRAME)]
}

/// The task instance called `name`, or a template's first instance when
/// `name` is the template's name.
pub fn find_instance(program: &ir::Program, name: &str) -> Result<TaskInstance, EnvError> {
    let all = instances(program);
    if let Some(found) = all.iter().find(|i| i.name == name) {
        return Ok(found.clone());
    }
    if let Some(first) = all.iter().find(|i| i.name.split('[').next() == Some(name)) {
        return Ok(first.clone());
    }
    Err(EnvError::UnknownTask {
        name: name.to_string(),
        tasks: all.into_iter().map(|i| i.name).collect(),
    })
}

/// Every task instance of `program`: plain tasks once; templates once per row
/// matching `where` in the seed state, in id order, the first `limit`.
pub fn instances(program: &ir::Program) -> Vec<TaskInstance> {
    let world = World::initial(program);
    let mut out = Vec::new();
    for (i, task) in program.tasks.iter().enumerate() {
        match &task.template {
            None => out.push(TaskInstance {
                task: i,
                binding: None,
                name: task.name.clone(),
            }),
            Some(t) => out.extend(
                template_rows(program, &world, task, t)
                    .into_iter()
                    .map(|id| TaskInstance {
                        task: i,
                        binding: Some(id),
                        name: format!("{}[{}={id}]", task.name, t.binder_name),
                    }),
            ),
        }
    }
    out
}

/// The ids a template binds: matching rows in id order, the first `limit` (a
/// filter that faults excludes the row; a limit that faults limits nothing).
fn template_rows(
    program: &ir::Program,
    world: &World,
    task: &ir::TaskDef,
    t: &ir::TaskTemplate,
) -> Vec<i64> {
    let ctx = world.context(program, None);
    let mut frame = blank_frame(task.frame);
    let limit = t
        .limit
        .as_ref()
        .and_then(|e| match eval(&ctx, &mut frame, e) {
            Ok(Value::Int(n)) => Some(usize::try_from(n.max(0)).unwrap_or(usize::MAX)),
            _ => None,
        });
    let rows = world
        .db
        .table(t.scan.table)
        .map(|t| t.rows())
        .unwrap_or(&[]);
    let mut ids = Vec::new();
    for row in rows {
        if limit.is_some_and(|n| ids.len() >= n) {
            break;
        }
        if observe::bind_passes(
            &ctx,
            &mut frame,
            t.scan.binder,
            Value::Row(row.id),
            t.scan.filter.as_deref(),
        ) {
            ids.push(row.id);
        }
    }
    ids
}

impl<'p> Env<'p> {
    /// An environment for `instance`, already reset.
    pub fn new(
        program: &'p ir::Program,
        instance: &TaskInstance,
        config: RewardConfig,
    ) -> Result<Env<'p>, EnvError> {
        Env::with_oracle(program, instance, config, None)
    }

    /// [`Env::new`] judged by `oracle` (one of this instance, shared with
    /// its other episodes). Without one, decomposed mode makes its own.
    pub fn with_oracle(
        program: &'p ir::Program,
        instance: &TaskInstance,
        config: RewardConfig,
        oracle: Option<SharedOracle>,
    ) -> Result<Env<'p>, EnvError> {
        let oracle = oracle.or_else(|| {
            (config.mode == RewardMode::Decomposed)
                .then(|| DistanceOracle::shared(config.oracle_budget))
        });
        let task = program
            .tasks
            .get(instance.task)
            .ok_or(EnvError::NoTask(instance.task))?;
        let mut env = Env {
            program,
            task,
            instance: instance.clone(),
            config,
            frame: Vec::new(),
            instruction: String::new(),
            typeable: Vec::new(),
            expected: answer::Expected::Nothing,
            state: State {
                world: World::default(),
                nav: Navigation::default(),
                forms: BTreeMap::new(),
                step: 0,
                alert: None,
                done: false,
                success: false,
            },
            view: observe::View::default(),
            actions: Vec::new(),
            psi: 0.0,
            goal_now: std::cell::Cell::new(None),
            goal_navigates: task.goal.as_ref().is_some_and(ir::Expr::reads_navigation),
            writer: None,
            oracle,
            credit: None,
            prejudged: None,
        };
        env.reset()?;
        Ok(env)
    }

    /// Back to the task's initial state: the seed and session inits, `setup`
    /// (template binder bound), the start page, visited = {start}.
    pub fn reset(&mut self) -> Result<(), EnvError> {
        let (program, task) = (self.program, self.task);
        let mut world = World::initial(program);
        let mut frame = self.bound_frame()?;
        run_setup(program, &mut world, &mut frame, &task.setup).map_err(|why| EnvError::Setup {
            task: self.instance.name.clone(),
            why,
        })?;
        let start = task.start.as_ref().unwrap_or(&program.site.start);
        let (page, args) = observe::eval_call(&world.context(program, None), &mut frame, start)
            .map_err(|fault| EnvError::StartPage {
                task: self.instance.name.clone(),
                fault,
            })?;
        // A guarded start page redirects like any navigation.
        let (page, args) = land(&world.context(program, None), page, args);
        if program.pages.get(idx(page)).is_none() {
            return Err(EnvError::NoPage {
                task: self.instance.name.clone(),
                page,
            });
        }
        let ctx = world.context(program, None);
        self.instruction = render_text(&ctx, &mut frame, &task.say);
        self.typeable = actions::typeable_values(&ctx, &mut frame, task, &self.instruction);
        self.expected = answer::Expected::evaluate(&ctx, &mut frame, task.answer.as_ref());
        let mut nav = Navigation {
            page,
            args: args.clone(),
            ..Navigation::default()
        };
        nav.visited.insert((page, args));
        self.frame = frame;
        self.state = State {
            world,
            nav,
            forms: BTreeMap::new(),
            step: 0,
            alert: None,
            done: task.horizon == 0,
            success: false,
        };
        self.refresh();
        self.psi = reward::potential(program, task, &self.state, &self.frame);
        self.measure_start();
        Ok(())
    }

    /// d₀: the episode's distance record starts at the current state (its
    /// distance is taken at the next judged step).
    fn measure_start(&mut self) {
        self.credit = None;
        self.prejudged = None;
    }

    /// Asks the oracle about the current state now, so that the next step
    /// needs no search: a batch asks for all its environments in a fixed
    /// order before stepping them on threads, which keeps a shared oracle's
    /// memo, and so every judgement, the same whatever the threads do.
    pub fn prejudge(&mut self) {
        if self.oracle.is_some() && !self.state.done && self.prejudged.is_none() {
            self.prejudged = self.shortest();
        }
    }

    /// d and O of the current state, as the oracle judging this environment
    /// answers them (`None` without an oracle).
    pub fn shortest(&self) -> Option<Shortest> {
        let oracle = self.oracle.as_ref()?;
        Some(match oracle.lock() {
            Ok(mut o) => o.query(self),
            // A poisoned lock means a thread panicked mid-query: decide nothing.
            Err(_) => Shortest {
                distance: Distance::Unknown,
                optimal: Vec::new(),
            },
        })
    }

    /// Judges steps from now on with `oracle` (one of this instance), or
    /// stops judging; d₀ is measured at the current state.
    pub fn set_oracle(&mut self, oracle: Option<SharedOracle>) {
        self.oracle = oracle;
        self.measure_start();
    }

    /// The oracle judging this environment's steps.
    pub fn oracle(&self) -> Option<&SharedOracle> {
        self.oracle.as_ref()
    }

    /// A copy that judges nothing (a search's scratch environment).
    pub(crate) fn detached(&self) -> Env<'p> {
        let mut copy = self.clone();
        copy.oracle = None;
        copy.prejudged = None;
        copy
    }

    /// The task's frame with the template binder bound to the instance's row.
    fn bound_frame(&self) -> Result<Vec<Value>, EnvError> {
        let mut frame = blank_frame(self.task.frame);
        match (&self.task.template, self.instance.binding) {
            (None, _) => {}
            (Some(t), Some(id)) => match frame.get_mut(idx(t.scan.binder)) {
                Some(slot) => *slot = Value::Row(id),
                None => return Err(EnvError::BinderOutsideFrame),
            },
            (Some(_), None) => {
                return Err(EnvError::Unbound {
                    task: self.task.name.clone(),
                })
            }
        }
        Ok(frame)
    }

    /// Re-renders the current page and recomputes the candidate actions.
    fn refresh(&mut self) {
        self.goal_now.set(None);
        self.view = observe::render_page(self.program, &self.state);
        self.actions = if self.state.done {
            Vec::new()
        } else {
            actions::candidates(&self.view, &self.typeable, self.task.answer.is_some())
        };
    }

    /// Lets `writer` propose the effects of extern markers from the next step
    /// on (see [`writer`]); `None` goes back to their `default` bodies. A
    /// reset keeps the writer.
    pub fn set_writer(&mut self, writer: Option<SharedWriter>) {
        self.writer = writer;
    }

    /// The current observation.
    pub fn observation(&self) -> Observation {
        let v = &self.view;
        Observation {
            url: v.url.clone(),
            title: v.title.clone(),
            instruction: self.instruction.clone(),
            alert: self.state.alert.clone(),
            elements: v.elements.clone(),
            axtree: axtree(&v.elements),
        }
    }

    /// The rendered elements, without building a whole [`Observation`].
    pub fn elements(&self) -> &[ObsElement] {
        &self.view.elements
    }

    /// The alert the last step set.
    pub fn alert(&self) -> Option<&str> {
        self.state.alert.as_deref()
    }

    /// The loop row ids element `i` was rendered in, outermost first.
    pub fn element_path(&self, i: usize) -> &[i64] {
        self.view.paths.get(i).map_or(&[], |k| k.1.as_slice())
    }

    /// The task's instruction (its rendered `say`).
    pub fn instruction(&self) -> &str {
        &self.instruction
    }

    /// The candidate actions A(o), in §5.2 order (none once the episode is over).
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The task's typeable values, de-duplicated in §5.2 order.
    pub fn typeable_values(&self) -> &[String] {
        &self.typeable
    }

    /// The expected answer (`Expected::Nothing` for operation tasks).
    pub fn expected_answer(&self) -> &answer::Expected {
        &self.expected
    }

    /// The task instance being played.
    pub fn instance(&self) -> &TaskInstance {
        &self.instance
    }

    /// Steps taken this episode (rejected ones included).
    pub fn steps(&self) -> u32 {
        self.state.step
    }

    /// Whether the episode has ended.
    pub fn done(&self) -> bool {
        self.state.done
    }

    /// The database and session now (for tests, the prover and tools).
    pub fn world(&self) -> &World {
        &self.state.world
    }

    /// The current page, its arguments and the pages visited.
    pub fn navigation(&self) -> &Navigation {
        &self.state.nav
    }

    /// Ψ of the current state.
    pub fn progress(&self) -> f64 {
        self.psi
    }

    /// Whether the goal holds in the current state (cached until it changes).
    pub(crate) fn goal_holds_now(&self) -> bool {
        if let Some(known) = self.goal_now.get() {
            return known;
        }
        let holds = reward::goal_holds(self.program, self.task, &self.state, &self.frame);
        self.goal_now.set(Some(holds));
        holds
    }

    /// Whether the goal can only change with the database or session.
    pub(crate) fn goal_ignores_navigation(&self) -> bool {
        !self.goal_navigates
    }

    /// The episode state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The rendered page (for the prover).
    pub(crate) fn view(&self) -> &observe::View {
        &self.view
    }

    /// The marker `action` would run on the current page, with its
    /// arguments (or the fault evaluating them met): `None` for an action
    /// that clicks no marker's button.
    pub(crate) fn marker_clicked(
        &self,
        action: &Action,
    ) -> Option<(ir::MarkerId, &Result<Vec<Value>, ActionFault>)> {
        if action.kind != ActionKind::Click {
            return None;
        }
        match self.view.handles.get(action.element?.wrapping_sub(1))? {
            observe::Handle::Marker(m, args) => Some((*m, args)),
            _ => None,
        }
    }

    /// The task's frame after `setup` (for the prover's goal conjuncts).
    pub fn task_frame(&self) -> &[Value] {
        &self.frame
    }

    /// Whether the task is a retrieval task, ended by an `answer`.
    pub fn takes_answer(&self) -> bool {
        self.task.answer.is_some()
    }

    /// The task being played.
    pub(crate) fn task(&self) -> &'p ir::TaskDef {
        self.task
    }

    /// Puts the episode in `state` (one this environment, or another of the
    /// same task instance, produced) and renders it.
    pub fn load(&mut self, state: State) {
        self.state = state;
        self.prejudged = None;
        self.refresh();
        self.psi = reward::potential(self.program, self.task, &self.state, &self.frame);
    }

    /// The current state as flat bytes (see [`crate::layout`]), its texts
    /// interned into `pool`.
    pub fn encode_state(
        &self,
        layout: &StateLayout,
        pool: &mut TextPool,
    ) -> Result<Vec<u8>, LayoutError> {
        crate::layout::encode(layout, self.program, &self.state, pool)
    }

    /// The current page's structure (element ids, loop paths, `disabled`,
    /// handles as words), as [`crate::jit::JitSite::render_structure`] writes
    /// it; texts are interned into `pool`.
    pub fn structure(
        &self,
        pool: &mut TextPool,
    ) -> Result<crate::page::PageStructure, LayoutError> {
        observe::structure(&self.view, &self.state, pool)
    }

    /// Puts the episode in the state `bytes` hold, as written by
    /// [`Env::encode_state`] for this task instance with the same `pool`. A
    /// buffer that does not decode changes nothing.
    pub fn restore_state(
        &mut self,
        layout: &StateLayout,
        pool: &TextPool,
        bytes: &[u8],
    ) -> Result<(), LayoutError> {
        self.state = crate::layout::decode(layout, self.program, bytes, pool)?;
        self.refresh();
        self.psi = reward::potential(self.program, self.task, &self.state, &self.frame);
        Ok(())
    }
}
