//! A whole §5.3 step on the flat state: [`FlatEnv`] plays one operation task
//! instance on its bytes with the site's compiled code — page structure for
//! the candidate actions, marker bodies for clicks on buttons, the goal and
//! progress predicates for success and reward — and writes navigation and
//! form edits itself, keeping the layout's canonical encoding (sorted entry
//! lists, zero unused bytes). Rule for rule this is `env::step`; the
//! differential test (`tests/tests/jit_step.rs`) demands the interpreter's
//! rewards, flags and identity and visited bytes at every step.
//!
//! Each render writes the page in the engine's [`RenderMode`]: texts by
//! default (what a person or a test reads), word hashes for the batched
//! trainer (`FlatEngine`), structure only for the prover. A retrieval task
//! renders its texts whatever the mode, since its answers are texts.
//!
//! Candidates are the interpreter's: one `select` per distinct option *text*
//! (the first option with that text kept, as `env::actions` offers them), and
//! in retrieval tasks the `answer`s from the texts the compiled page shows
//! (`candidates`, which also gives each candidate's text and words).
//! [`FlatEnv::new`] refuses an instance whose pages, markers, goal or progress
//! predicates are not all compiled: play those with `Env`.
//!
//! A rejected step's alert is the interpreter's text (a faulting link or
//! marker argument, typed text that does not parse, a `go` to a missing page,
//! and a refused marker's, which `JitSite::run_marker_alert` renders),
//! interned and its id written in the header as `Env::encode_state` writes
//! it. [`FlatEnv::probe`] renders no alert (the prover ignores it), and is
//! otherwise `step`: the same verdict and the same bytes past the header.

use super::{
    ElementInstance, HandleWords, Held, JitFault, JitFrame, JitSite, MarkerOutcome,
    MarkerRejection, PageStructure, RenderMode, UndoLog,
};
use crate::env::actions::bad_input;
use crate::env::{reward, ActionKind, RewardConfig, StepResult, TaskInstance};
use crate::interp::state::idx;
use crate::ir;
use crate::layout::{
    EntryList, StateLayout, TextPool, ALERT_AT, FLAGS_AT, FLAG_ALERT, FLAG_DONE, FLAG_SUCCESS,
    STEP_AT, WORD,
};
use std::sync::Arc;

mod apply;
mod candidates;
mod depends;
mod entries;
mod error;
mod first_page;
mod memo;
mod outcome;
mod prepare;
mod probe;
mod restart;
mod start_page;
mod typed;
use depends::Depends;
pub(crate) use depends::TaskDepends;
use entries::{clear_list, copy_used, find_where, insert_sorted, remove_at, tails_of, Tail};
pub use error::FlatError;
pub(crate) use memo::memo_slots;
pub use memo::{MemoCounts, Recall, RenderMemo, DEFAULT_RENDER_MEMO};
pub use probe::Probe;
use probe::Wrote;
use restart::{Family, Lines};
pub use start_page::StartPage;
use typed::{Typed, TypedInputs};

/// A candidate action of the flat engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlatAction {
    pub kind: ActionKind,
    /// The element's 1-based observation index, as in `Env::actions`; 0 for
    /// `answer`.
    pub element: usize,
    /// `type`: the index into [`FlatEnv::typeable_values`], or its length for
    /// `type ""`. `select`: the index of the (first) option with the chosen
    /// text in the element's options. `answer`: the index into
    /// `FlatEnv::answers`. `click`: 0.
    pub arg: usize,
}

/// What every episode of one task instance starts from, prepared once and
/// shared: the initial bytes and Ψ, the task's frame and typeable values, the
/// expected answers and the instruction. Its bytes and frame are encoded with
/// the pool given to [`FlatStart::new`]; an engine playing it must use that
/// pool or one grown from it.
#[derive(Debug)]
pub struct FlatStart {
    task_index: usize,
    name: String,
    frame: JitFrame,
    typeable: Vec<String>,
    /// The word hashes of each typeable value (`crate::words`).
    typeable_words: Vec<Vec<u64>>,
    /// What typing each value into each type of form variable does.
    typed: TypedInputs,
    expected: crate::env::Expected,
    instruction: String,
    instruction_words: Vec<u64>,
    initial: Vec<u8>,
    /// The pool's texts once `initial` and the frame were encoded: every
    /// text id they hold is below.
    texts: usize,
    /// The invariants that hold on `initial`, so on every state its steps
    /// reach (`marker::Held`).
    held: Held,
    /// Which steps can change the goal, and Ψ.
    goal_depends: Depends,
    progress_depends: Depends,
    /// The instances it was prepared with (`FlatStart::join_family`).
    family: std::sync::OnceLock<Family>,
}

/// One task instance played on flat bytes with a [`JitSite`].
pub struct FlatEnv<'s> {
    site: &'s JitSite,
    program: &'s ir::Program,
    layout: &'s StateLayout,
    start: Arc<FlatStart>,
    task: &'s ir::TaskDef,
    config: RewardConfig,
    initial_psi: f64,
    state: Vec<u8>,
    structure: PageStructure,
    actions: Vec<FlatAction>,
    /// This page's answer candidates (retrieval tasks).
    /// Each an index into the page's shown values followed by its
    /// elements' texts (see [`FlatEnv::answer`]).
    answers: Vec<u32>,
    /// Scratch for ordering answer candidates by text.
    answer_order: Vec<u32>,
    /// A refused marker's alert is rendered into this buffer.
    alert_text: String,
    /// A clicked marker's arguments, kept to be refilled at the next click.
    marker_args: Vec<ir::Value>,
    psi: f64,
    /// What renders compute (texts are added for retrieval tasks, whose
    /// answers are texts).
    mode: RenderMode,
    undo: UndoLog,
    /// Why the marker the last probe clicked was refused.
    refusal: Option<MarkerRejection>,
    entry: Vec<u8>,
    /// The layout's unused capacity, which a reset need not copy.
    tails: Vec<Tail>,
    used: Vec<usize>,
    /// The marker the last applied action committed.
    committed: Option<ir::MarkerId>,
    /// Whether the goal holds in the state rendered last (the state probed
    /// from, while a probe's bytes are out), where known.
    goal_now: Option<bool>,
    /// A probe's successor is in the bytes, not yet put back.
    probed: bool,
    /// What the last applied action wrote outside a marker body's logged
    /// writes: the page, its arguments, the visited set and the form
    /// variables (`navigate`), or the form variables alone (`set_form`).
    wrote: Wrote,
    /// `psi` is Ψ of the current state (a search's loads leave it stale).
    psi_known: bool,
    /// A debug build's second render of a page a rejected step kept.
    rendered_again: PageStructure,
    /// The lines the steps since the bytes were the start's initial ones
    /// wrote (`None`: not known), so a restart copies only those
    /// (`restart.rs`).
    written: Option<Lines>,
    /// The version of the remembered page shown (`memo.rs`), when the
    /// page was taken from a memory: pages of one version are equal.
    version: Option<u64>,
    /// The invariants known to hold on the state: the start's while the
    /// state comes from its initial bytes through steps, none after
    /// [`FlatEnv::load_state`] (`marker::Held`).
    held: Held,
    /// Whether navigating adds to the visited set: only a search whose
    /// task never asks `visited` turns it off (`FlatEnv::forget_visits`).
    visits: bool,
    /// The page the last `reset` showed, for the next (`first_page.rs`).
    first: first_page::FirstPage,
}

type R<T> = Result<T, FlatError>;

/// A rendered page, its candidates and answers, kept to be shown again
/// (`start_page.rs`, `first_page.rs`): every engine showing it under its
/// version shows the same page and candidates (`FlatEnv::page_version`).
#[derive(Default)]
struct KeptPage {
    structure: PageStructure,
    actions: Vec<FlatAction>,
    answers: Vec<u32>,
    version: u64,
}

fn outside(at: usize) -> FlatError {
    FlatError::malformed(format!("offset {at} is outside the state"))
}

fn u32_at(b: &[u8], at: usize) -> R<u32> {
    at.checked_add(4)
        .and_then(|end| b.get(at..end))
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| outside(at))
}

fn put(b: &mut [u8], at: usize, bytes: &[u8]) -> R<()> {
    at.checked_add(bytes.len())
        .and_then(|end| b.get_mut(at..end))
        .ok_or_else(|| outside(at))?
        .copy_from_slice(bytes);
    Ok(())
}

fn put_u32(b: &mut [u8], at: usize, v: u32) -> R<()> {
    put(b, at, &v.to_le_bytes())
}

fn put_i64(b: &mut [u8], at: usize, v: i64) -> R<()> {
    put(b, at, &v.to_le_bytes())
}

/// Whether applying an action renders the alert of a refused marker.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Alert {
    Render,
    Skip,
}

/// How applying an action ended.
enum Applied {
    Done,
    /// An answer, and whether it matched.
    Answered(bool),
    /// Rejected, with the alert's text where it is known.
    Rejected(Option<String>),
}

impl<'s> FlatEnv<'s> {
    /// The flat engine for `instance` of the program `site` was compiled for,
    /// reset. `pool` must be the pool the site was compiled with (or one grown
    /// from it); the states are encoded with it. Refused (play it with `Env`):
    /// an instance whose goal, progress predicates, pages or markers are not
    /// all compiled.
    pub fn new(
        site: &'s JitSite,
        instance: &TaskInstance,
        config: RewardConfig,
        pool: &mut TextPool,
    ) -> R<FlatEnv<'s>> {
        let start = FlatStart::new(site, instance, pool)?;
        FlatEnv::from_start(site, start, config, pool)
    }

    /// An engine playing the prepared instance `start`, reset, rendering
    /// texts. `pool` must be the one `start` was prepared with, or one grown
    /// from it.
    pub fn from_start(
        site: &'s JitSite,
        start: Arc<FlatStart>,
        config: RewardConfig,
        pool: &mut TextPool,
    ) -> R<FlatEnv<'s>> {
        FlatEnv::from_start_in(site, start, config, RenderMode::TEXTS, pool)
    }

    /// [`FlatEnv::from_start`] rendering in `mode` from the first page on
    /// (one render of the first page, not one with texts and one in `mode`).
    pub fn from_start_in(
        site: &'s JitSite,
        start: Arc<FlatStart>,
        config: RewardConfig,
        mode: RenderMode,
        pool: &mut TextPool,
    ) -> R<FlatEnv<'s>> {
        if config.mode == crate::env::RewardMode::Decomposed {
            // Its judge searches exact `Env` states (`prove::distance`).
            return Err(FlatError::DecomposedReward);
        }
        let program = &site.gate.program;
        let task = program
            .tasks
            .get(start.task_index)
            .ok_or(FlatError::NoTask(start.task_index))?;
        let mut flat = FlatEnv {
            site,
            program,
            layout: &site.gate.layout,
            task,
            config,
            state: start.initial.clone(),
            start,
            initial_psi: 0.0,
            structure: PageStructure::default(),
            actions: Vec::new(),
            answers: Vec::new(),
            answer_order: Vec::new(),
            alert_text: String::new(),
            marker_args: Vec::new(),
            psi: 0.0,
            mode,
            undo: UndoLog::new(),
            refusal: None,
            entry: Vec::new(),
            tails: tails_of(&site.gate.layout),
            used: Vec::new(),
            committed: None,
            goal_now: None,
            probed: false,
            wrote: Wrote::default(),
            psi_known: false,
            rendered_again: PageStructure::default(),
            written: None,
            version: None,
            held: Held::NONE,
            visits: true,
            first: first_page::FirstPage::default(),
        };
        flat.initial_psi = flat.potential(pool)?;
        flat.reset_rendering(pool)?;
        Ok(flat)
    }

    /// Starts a new episode of another prepared instance of the same site
    /// (what a batched environment does when an episode ends).
    pub fn restart(&mut self, start: Arc<FlatStart>, pool: &mut TextPool) -> R<()> {
        self.enter(start)?;
        self.initial_psi = self.potential(pool)?;
        self.psi = self.initial_psi;
        self.psi_known = true;
        self.refresh(pool)
    }

    /// A name for the page and candidates shown, when the page was taken
    /// from a memory of renders or copied by a reset (and left as it was
    /// by refused steps since) and the episode goes on: two engines of one
    /// prepared instance showing pages of one version show equal pages and
    /// offer equal candidates. `None` otherwise.
    pub fn page_version(&self) -> Option<u64> {
        self.version.filter(|_| !self.done())
    }

    /// A memory of `capacity` renders for [`FlatEnv::step_remembering`],
    /// which the engines of one site (one batch's thread's, say) can share.
    pub fn render_memo(&self, capacity: usize) -> RenderMemo {
        RenderMemo::new(self.layout, capacity)
    }

    /// Whether the candidates of the page shown depend on the instance
    /// beyond whether its task asks for an answer: whether one types a
    /// value (the instance's own values, `FlatStart::offers_as`).
    pub fn offers_typing(&self) -> bool {
        self.actions.iter().any(|a| a.kind == ActionKind::Type)
    }

    /// Whether the task asks for an answer (every page then offers the
    /// answer candidates it shows).
    pub fn asks_answer(&self) -> bool {
        self.task.answer.is_some()
    }

    /// A batch thread's memory of `capacity` renders
    /// ([`RenderMemo::for_batch`]).
    pub fn batch_render_memo(&self, capacity: usize) -> RenderMemo {
        RenderMemo::for_batch(self.layout, capacity)
    }

    /// The compiled site this engine plays on.
    pub fn site(&self) -> &'s JitSite {
        self.site
    }

    /// The prepared instance this engine plays.
    pub fn start(&self) -> &Arc<FlatStart> {
        &self.start
    }

    /// The task's instruction, as `Env::instruction` gives it.
    pub fn instruction(&self) -> &str {
        &self.start.instruction
    }

    /// The word hashes of the instruction.
    pub fn instruction_words(&self) -> &[u64] {
        &self.start.instruction_words
    }

    /// The initial bytes, copied over the current ones (only what differs
    /// can have been written).
    /// Puts the episode at `start`'s initial bytes, playing its task; a
    /// start of another state size is refused before anything changes.
    /// What the page and Ψ become is the caller's (`restart`,
    /// `restart_kept`).
    fn enter(&mut self, start: Arc<FlatStart>) -> R<()> {
        if start.initial.len() != self.state.len() {
            return Err(FlatError::Foreign("a prepared instance"));
        }
        self.task = self
            .program
            .tasks
            .get(start.task_index)
            .ok_or(FlatError::NoTask(start.task_index))?;
        let old = std::mem::replace(&mut self.start, start);
        self.copy_initial_from(&old)
    }

    fn copy_initial(&mut self) -> R<()> {
        let start = self.start.clone();
        self.copy_initial_from(&start)
    }

    /// Back to the task's initial state, its page rendered (as a new
    /// engine starts; `reset` keeps the page for the next reset).
    fn reset_rendering(&mut self, pool: &mut TextPool) -> R<()> {
        self.back_to_initial()?;
        self.refresh(pool)
    }

    /// The task's initial bytes and Ψ, the page not yet shown.
    fn back_to_initial(&mut self) -> R<()> {
        self.copy_initial()?;
        self.psi = self.initial_psi;
        self.psi_known = true;
        Ok(())
    }

    /// The page shown, its candidates and answers, kept under a new version
    /// to be shown again by [`FlatEnv::show_copy`].
    fn keep_page(&self, kept: &mut KeptPage) {
        kept.structure.copy_from(&self.structure);
        kept.actions.clone_from(&self.actions);
        kept.answers.clone_from(&self.answers);
        kept.version = memo::new_version();
    }

    /// The bytes are a new state: what was known of the last (its goal,
    /// whether a probe left it, its page's version) is not, should showing
    /// the new one fail.
    fn forget_shown_state(&mut self) {
        self.goal_now = None;
        self.version = None;
        self.probed = false;
    }

    /// Shows `kept`, a page kept from a render of the state now in the
    /// bytes, as `show` would have rendered it, under its version.
    fn show_copy(&mut self, kept: &KeptPage) {
        self.forget_shown_state();
        self.version = Some(kept.version);
        self.structure.copy_from(&kept.structure);
        self.actions.clone_from(&kept.actions);
        self.answers.clone_from(&kept.answers);
    }

    /// Puts the episode in the state `bytes` (of this site's layout, encoded
    /// with `pool`), as the prover does to expand a state it stored. A buffer
    /// of the wrong length is refused and changes nothing; bytes that do not
    /// decode make the next render or step an `Err`.
    pub fn load_state(&mut self, bytes: &[u8], pool: &mut TextPool) -> R<()> {
        self.copy_in(bytes)?;
        self.psi = self.potential(pool)?;
        self.psi_known = true;
        self.refresh(pool)
    }

    /// Copies `bytes` over the state; refused (nothing changes) when their
    /// length is not the layout's.
    fn copy_in(&mut self, bytes: &[u8]) -> R<()> {
        if bytes.len() != self.state.len() {
            return Err(FlatError::StateSize {
                expected: self.state.len(),
                got: bytes.len(),
            });
        }
        self.written = None;
        self.held = Held::NONE;
        self.state.copy_from_slice(bytes);
        Ok(())
    }

    /// `load_state` for a search: the bytes and the page's candidates, but
    /// not Ψ (which only rewards need), so only [`FlatEnv::probe`],
    /// `unprobe`, `state` and another load may follow. Only the used
    /// prefixes of the lists and tables are copied: `bytes`, like every
    /// state the engine holds, must keep the layout's canonical encoding
    /// (unused capacity zero), as the states a search stores do. They must
    /// also be states reached from the engine's start by steps, as a
    /// search's are: the invariants that held there are taken to hold
    /// (`marker::Held`).
    pub(crate) fn load_for_search(&mut self, bytes: &[u8], pool: &mut TextPool) -> R<()> {
        self.written = None;
        copy_used(&mut self.state, bytes, &self.tails, &mut self.used)?;
        self.psi_known = false;
        self.refresh(pool)
    }

    /// Stops adding the pages shown to the visited set, for a search whose
    /// task's goal and progress never ask `visited`: nothing else can read
    /// the set (page code and markers cannot name it), and such a search
    /// leaves it out of its fingerprints, so keeping it up is work without
    /// a reader. The set keeps what it held.
    pub(crate) fn forget_visits(&mut self) {
        self.visits = false;
    }

    /// Makes this episode a copy of `other` (another engine of the same site
    /// and task instance) without rendering: its bytes, page structure,
    /// candidates and Ψ, reusing this engine's buffers. The prover keeps one
    /// engine per expanded state and restores a scratch engine from it before
    /// trying each candidate.
    pub fn restore_from(&mut self, other: &FlatEnv<'s>) -> R<()> {
        if !std::ptr::eq(self.site, other.site) || !Arc::ptr_eq(&self.start, &other.start) {
            return Err(FlatError::Foreign("an engine"));
        }
        self.written = None;
        self.held = other.held;
        self.state.clone_from(&other.state);
        self.structure.copy_from(&other.structure);
        self.version = other.version;
        self.actions.clone_from(&other.actions);
        self.answers.clone_from(&other.answers);
        self.task = other.task;
        self.initial_psi = other.initial_psi;
        self.psi = other.psi;
        self.psi_known = other.psi_known;
        self.goal_now = if other.probed { None } else { other.goal_now };
        self.probed = other.probed;
        Ok(())
    }

    /// The current state's bytes (encoded with the pool given to `new`).
    pub fn state(&self) -> &[u8] {
        &self.state
    }

    /// The candidate actions A(o) in §5.2 order, as `Env::actions` lists
    /// them (none once the episode is over).
    pub fn actions(&self) -> &[FlatAction] {
        &self.actions
    }

    /// The current page's structure.
    pub fn structure(&self) -> &PageStructure {
        &self.structure
    }

    /// What renders compute from now on (a retrieval task's renders keep
    /// their texts whatever is asked: its answers are texts); the current
    /// page is rendered again.
    pub fn set_render_mode(&mut self, mode: RenderMode, pool: &mut TextPool) -> R<()> {
        self.mode = mode;
        self.refresh(pool)
    }

    /// The alert the last step set (the text of the header's alert id in
    /// `pool`, the pool the states are encoded with), if it set one.
    pub fn alert<'p>(&self, pool: &'p TextPool) -> Option<&'p str> {
        if self.flags() & FLAG_ALERT == 0 {
            return None;
        }
        let id = u32_at(&self.state, ALERT_AT).ok()?;
        pool.get(id).map(|s| &**s)
    }

    /// Steps taken this episode (rejected ones included).
    pub fn steps(&self) -> u32 {
        u32_at(&self.state, STEP_AT).unwrap_or(0)
    }

    pub fn done(&self) -> bool {
        self.flags() & FLAG_DONE != 0
    }

    /// Ψ of the current state.
    pub fn progress(&self) -> f64 {
        self.psi
    }

    fn flags(&self) -> u32 {
        u32_at(&self.state, FLAGS_AT).unwrap_or(0)
    }

    /// The page shown, as an index into the program's pages.
    pub fn page_index(&self) -> Option<usize> {
        self.page().ok().and_then(|p| usize::try_from(p).ok())
    }

    fn page(&self) -> R<ir::PageId> {
        u32_at(&self.state, self.layout.page)
    }

    /// Renders the current page's structure and lists the candidates (none
    /// once the episode is over: its final page is shown, as the
    /// interpreter shows it, but offers nothing).
    fn refresh(&mut self, pool: &mut TextPool) -> R<()> {
        self.show(pool, None)
    }

    /// The mode pages are rendered in: the engine's, with texts for a
    /// retrieval task (whose answers are texts).
    fn render_mode(&self) -> RenderMode {
        let mut mode = self.mode;
        mode.texts |= self.asks_answer();
        mode
    }

    /// Renders the page of the bytes (taken from `memo` when it has it)
    /// and lists its candidates.
    fn show(&mut self, pool: &mut TextPool, memo: Option<Recall<'_>>) -> R<()> {
        self.forget_shown_state();
        self.actions.clear();
        self.answers.clear();
        self.structure.clear();
        let mode = self.render_mode();
        self.structure.set_mode(mode);
        let page = self.page()?;
        let (mut memo, recalled) = self.recall(page, mode, pool, memo)?;
        self.version = recalled.and_then(|found| found.version);
        if recalled.is_some() {
            if cfg!(debug_assertions) {
                self.check_kept(pool, "a remembered render differs from the page's own")?;
            }
        } else {
            let mark = pool.mark();
            pool.take_unshared_reach();
            self.site
                .render_structure(page, &self.state, pool, &mut self.structure)?;
            let reached = pool.take_unshared_reach();
            // A render that added texts made ids the pool may later forget.
            let memo = memo.as_deref_mut();
            if let Some(memo) = memo.filter(|_| pool.len() == mark.texts()) {
                if memo.met_before() {
                    let kept = self.mark_to_keep(page, (mark, reached), memo);
                    // This page is the remembered one: the rows written
                    // from it are kept for the steps that find it.
                    self.version = memo.remember(mode, kept, &self.structure);
                }
            }
        }
        if self.done() {
            return Ok(());
        }
        self.offer(memo)?;
        if self.asks_answer() {
            self.list_answers();
        }
        Ok(())
    }

    /// Takes candidate `index`. An `Err` before the action is applied (an
    /// episode already over, no such candidate, a marker the compiled runner
    /// refuses as input) changes nothing; one after it (the state does not
    /// fit the layout — more form variables or visited pages than it holds,
    /// which the interpreter's encoding refuses as well) leaves the episode
    /// to be reset.
    pub fn step(&mut self, index: usize, pool: &mut TextPool) -> R<StepResult> {
        self.step_with(index, pool, None)
    }

    /// [`FlatEnv::step`], taking the page from `memo` when it remembers
    /// the state the step lands in, and remembering it otherwise: the same
    /// result and page as `step` gives, in fewer instructions when states
    /// repeat (`memo.rs`).
    pub fn step_remembering(
        &mut self,
        index: usize,
        pool: &mut TextPool,
        memo: &mut RenderMemo,
    ) -> R<StepResult> {
        self.step_with(index, pool, Some(memo))
    }

    fn step_with(
        &mut self,
        index: usize,
        pool: &mut TextPool,
        memo: Option<&mut RenderMemo>,
    ) -> R<StepResult> {
        if self.done() {
            return Err(FlatError::EpisodeOver);
        }
        let Some(&action) = self.actions.get(index) else {
            return Err(FlatError::NoCandidate(index));
        };
        let goal_before = self.goal_before(pool)?;
        // An error part way leaves the written lines unknown.
        let tracked = match self.written.take() {
            Some(lines) => Some((lines, self.used_counts()?)),
            None => None,
        };
        self.undo.record_writes(tracked.is_some());
        self.wrote = Wrote::default();
        let applied = self.apply(action, pool, Alert::Render)?;
        let step = u32_at(&self.state, STEP_AT)?.saturating_add(1);
        put_u32(&mut self.state, STEP_AT, step)?;
        let rejected = matches!(applied, Applied::Rejected(_));
        let (epsilon, alert, answered) = match applied {
            Applied::Done => (0, None, None),
            Applied::Answered(ok) => (0, None, Some(ok)),
            Applied::Rejected(text) => {
                let id = match text {
                    // Most alerts repeat: look before building a new text.
                    Some(t) => {
                        let id = match pool.find(&t) {
                            Some(id) => id,
                            None => pool
                                .intern(&Arc::from(t.as_str()))
                                .ok_or(FlatError::PoolFull)?,
                        };
                        // Its buffer renders the next refusal's alert.
                        self.alert_text = t;
                        id
                    }
                    None => 0,
                };
                (1, Some(id), None)
            }
        };
        let success = match answered {
            Some(ok) => ok,
            None => self.goal_after(goal_before, pool)?,
        };
        let done = answered.is_some() || success || step >= self.task.horizon;
        let mut flags = 0;
        if done {
            flags |= FLAG_DONE;
        }
        if success {
            flags |= FLAG_SUCCESS;
        }
        if alert.is_some() {
            flags |= FLAG_ALERT;
        }
        put_u32(&mut self.state, FLAGS_AT, flags)?;
        put_u32(&mut self.state, ALERT_AT, alert.unwrap_or(0))?;
        if let Some((mut lines, used_before)) = tracked {
            self.note_step_writes(&mut lines, used_before)?;
            self.written = Some(lines);
        }
        if rejected && !done {
            self.keep_render(pool)?;
        } else {
            self.show(pool, memo.map(Recall::Written))?;
        }
        if answered.is_none() {
            self.goal_now = Some(success);
        }
        let before = self.psi;
        let psi_unchanged =
            self.psi_known && !self.start.progress_depends.changed_by(self.committed);
        if !psi_unchanged {
            self.psi = self.potential(pool)?;
            self.psi_known = true;
        }
        Ok(StepResult {
            reward: reward::reward(&self.config, success, before, self.psi, epsilon, 0.0),
            done,
            success,
            epsilon,
            progress: self.psi,
            judgement: None,
        })
    }
}
