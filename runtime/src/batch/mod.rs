//! Batched environments: N task episodes stepped together, a contiguous share
//! per thread (the caller's and `workers` that live as long as the batch
//! and stay awake between close steps), with observations written straight
//! into one contiguous, trainer-ready buffer per field.
//!
//! The trainer hands these buffers to torch without reformatting: element
//! roles, flags and hashed token ids (see [`tokens`]) for every element, the
//! instruction's tokens, and a table of candidate actions (kind, element row,
//! text tokens) with its length, plus reward, done, success and progress per
//! environment. Shapes are fixed by an [`ObsSpec`]; what does not fit is cut
//! and flagged in `overflow`. A finished episode resets in the same step
//! (`done` says so, `episode_return`/`episode_length` keep its totals), onto a
//! task instance drawn from the environment's own seeded generator, so a run is
//! the same whatever the number of threads.
//!
//! An environment is an [`Engine`]: the reference interpreter's [`Env`](crate::env::Env)
//! ([`InterpEngine`], `BatchEnv::new`) or the JIT's flat engine
//! ([`FlatEngine`], `BatchEnv::jit`). Both fill the buffers through the same
//! writer, so for the same seed and actions the two batches hold the same
//! bytes (`tests/tests/batch.rs` demands it).

mod buffers;
mod engines;
mod error;
mod metrics;
#[cfg(test)]
mod tests;
mod text;
pub mod tokens;
mod views;
mod workers;
mod write;

pub use buffers::{Buffers, Dtype, FieldView, JUDGED_UNKNOWN, MAX_SIBLING, NOT_JUDGED};
pub use engines::{ActionView, ElementView, Engine, FlatEngine, InterpEngine};
pub use error::BatchError;
pub use metrics::{EpisodeRecord, StepCounts, Tally};
pub use workers::DEFAULT_WARM;
pub use write::page_labels;

use crate::env::{ActionKind, RewardConfig, SharedWriter, TaskInstance, ROLES};
use crate::ir;
use crate::jit::{FlatStart, JitSite, MemoCounts, DEFAULT_RENDER_MEMO};
use crate::layout::TextPool;
use buffers::{Rows, Span};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokens::Tokenizer;
use workers::Workers;
use write::{describe, write_observation, Taken};

/// Fixed shapes of the observation buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObsSpec {
    pub max_elements: usize,
    pub text_tokens: usize,
    pub value_tokens: usize,
    pub instruction_tokens: usize,
    pub max_actions: usize,
    pub action_tokens: usize,
    /// The page label's, the alert's and each element's context tokens.
    pub page_tokens: usize,
    pub alert_tokens: usize,
    pub context_tokens: usize,
    /// Actions remembered, and tokens for each.
    pub history: usize,
    pub history_tokens: usize,
    pub vocab: u32,
}

impl Default for ObsSpec {
    fn default() -> ObsSpec {
        ObsSpec {
            max_elements: 64,
            text_tokens: 12,
            value_tokens: 6,
            instruction_tokens: 48,
            max_actions: 128,
            action_tokens: 6,
            page_tokens: 8,
            alert_tokens: 8,
            context_tokens: 6,
            history: 4,
            history_tokens: 8,
            vocab: 1 << 15,
        }
    }
}

impl ObsSpec {
    /// The spec with every width at least 1 (a field of width 0 would leave
    /// its buffer without rows to split).
    fn at_least_one(self) -> ObsSpec {
        let one = |w: usize| w.max(1);
        ObsSpec {
            max_elements: one(self.max_elements),
            text_tokens: one(self.text_tokens),
            value_tokens: one(self.value_tokens),
            instruction_tokens: one(self.instruction_tokens),
            max_actions: one(self.max_actions),
            action_tokens: one(self.action_tokens),
            page_tokens: one(self.page_tokens),
            alert_tokens: one(self.alert_tokens),
            context_tokens: one(self.context_tokens),
            history: one(self.history),
            history_tokens: one(self.history_tokens),
            vocab: self.vocab,
        }
    }
}

/// Element flags.
pub const FLAG_DISABLED: u8 = 1;
pub const FLAG_HAS_VALUE: u8 = 2;
pub const FLAG_TEXT_CUT: u8 = 4;
/// `overflow` bits.
pub const CUT_ELEMENTS: u8 = 1;
pub const CUT_ACTIONS: u8 = 2;
pub const CUT_INSTRUCTION: u8 = 4;

/// Action kind ids (0 marks an empty row).
pub fn kind_id(kind: ActionKind) -> u8 {
    match kind {
        ActionKind::Click => 1,
        ActionKind::Type => 2,
        ActionKind::Select => 3,
        ActionKind::Answer => 4,
    }
}

/// Role ids: 1 + the role's position in [`ROLES`] (0 marks an empty row).
pub fn role_id(role: &str) -> u8 {
    ROLES
        .iter()
        .position(|r| *r == role)
        .and_then(|i| u8::try_from(i + 1).ok())
        .unwrap_or(0)
}

/// When an environment whose episode ended starts its next one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Autoreset {
    /// In the step that ended it: the buffers then show the next episode's
    /// first observation, and `episode_return`/`episode_length` the ended
    /// one's totals (what the trainer wants).
    #[default]
    SameStep,
    /// In the next step, whose action is ignored: the buffers first show the
    /// final observation (Gymnasium's `NEXT_STEP` mode). That step reports
    /// reward 0 and not done.
    NextStep,
    /// Only when [`BatchEnv::reset`] says so; stepping an environment whose
    /// episode ended is an error (a single Gymnasium environment).
    Disabled,
}

/// One environment and what it needs between steps.
struct Slot<E> {
    engine: E,
    /// The index of the task instance being played.
    instance: usize,
    /// The episode ended and the environment waits for its reset (never so
    /// under [`Autoreset::SameStep`]).
    finished: bool,
    tokens: Tokenizer,
    /// Row of the action table → index into the engine's candidates.
    table: Vec<usize>,
    /// The last actions taken this episode, most recent first.
    history: VecDeque<Taken>,
    /// Each shown element's text as a byte set and a length
    /// (`write::TextSketch`), scratch for anchoring answers.
    sketches: Vec<write::TextSketch>,
    /// History records of ended episodes, reused by the next.
    spare_history: Vec<Taken>,
    /// The rows this slot's last observation filled (those past are zero).
    written: write::Written,
    /// The last alert written and its ids: an alert stays on the page for
    /// the steps after a refusal, and is tokenized once.
    alert: (String, Vec<u32>),
    rng: u64,
    ret: f64,
    len: u32,
}

/// What the environments one thread steps share: the engine's memory
/// (the JIT's remembered renders) and the rows written from what it
/// remembers.
struct ThreadMemo<M> {
    engine: M,
    views: views::ViewMemo,
}

/// N environments over one program's task instances.
pub struct BatchEnv<E: Engine> {
    instances: usize,
    spec: ObsSpec,
    /// The threads that step the batch: the caller, and for more than one
    /// thread, workers kept for the batch's life.
    workers: Workers,
    slots: Vec<Slot<E>>,
    /// One per thread, shared by the environments it steps.
    memos: Vec<ThreadMemo<E::Memo>>,
    buffers: Buffers,
    /// The word hashes of one label per page (see [`page_labels`]).
    labels: Arc<[Vec<u64>]>,
    autoreset: Autoreset,
}

/// The word hashes of the program's page labels (hashed once per batch).
fn hashed_labels(program: &ir::Program) -> Arc<[Vec<u64>]> {
    page_labels(program)
        .iter()
        .map(|l| crate::words::hashes(l))
        .collect()
}

/// Environment `i`'s generator, seeded from the batch's seed.
fn slot_rng(seed: u64, i: usize) -> u64 {
    seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5851_f42d_4c95_7f2d
}

impl<'p> BatchEnv<InterpEngine<'p>> {
    /// `n` interpreter environments, each starting on an instance drawn from
    /// `instances` by its own generator seeded from `seed`; stepped on
    /// `threads` threads.
    pub fn new(
        program: &'p ir::Program,
        instances: Vec<TaskInstance>,
        n: usize,
        spec: ObsSpec,
        config: RewardConfig,
        seed: u64,
        threads: usize,
    ) -> Result<BatchEnv<InterpEngine<'p>>, BatchError> {
        let instances: Arc<[TaskInstance]> = instances.into();
        let count = instances.len();
        let labels = hashed_labels(program);
        let oracles = InterpEngine::oracles(count, &config);
        BatchEnv::build(count, n, spec, seed, threads, labels, |first| {
            InterpEngine::new(program, instances.clone(), config, oracles.clone(), first)
        })
    }

    /// The interpreter behind row `i` (for inspection and tests).
    pub fn env(&self, i: usize) -> Option<&crate::env::Env<'p>> {
        self.slots.get(i).map(|s| s.engine.env())
    }

    /// Lets `writer` (a `--simulator` process, say) propose the effects of
    /// extern markers in every environment, from the next step on.
    pub fn set_writer(&mut self, writer: Option<SharedWriter>) {
        for slot in &mut self.slots {
            slot.engine.set_writer(writer.clone());
        }
    }

    /// Environment `i`'s observation in §5.2's text form, for a language
    /// model: see `text::text_form`.
    pub fn text(&self, i: usize) -> Option<String> {
        let slot = self.slots.get(i)?;
        Some(text::text_form(slot.engine.env(), &slot.table))
    }

    /// Has the distance oracle judge every step from now on, whatever the
    /// reward mode (`r_acc` and `answer_f1` in the buffers): what `eval`
    /// measures step accuracy with.
    pub fn judge_steps(&mut self) {
        for slot in &mut self.slots {
            slot.engine.judge();
        }
    }
}

impl<'s> BatchEnv<FlatEngine<'s>> {
    /// `n` JIT environments over `instances` of the program `site` was
    /// compiled for, drawn exactly as `BatchEnv::new` draws them (so the two
    /// batches play the same episodes for the same seed and actions). `pool`
    /// is the pool the site was compiled with: the instances are prepared
    /// into it once, and every environment gets its own copy, sharing the
    /// texts held then (`TextPool::freeze`). Refused when
    /// an instance cannot be played flat (see `FlatStart::new`).
    #[allow(clippy::too_many_arguments)]
    pub fn jit(
        site: &'s JitSite,
        instances: &[TaskInstance],
        n: usize,
        spec: ObsSpec,
        config: RewardConfig,
        seed: u64,
        threads: usize,
        pool: &mut TextPool,
    ) -> Result<BatchEnv<FlatEngine<'s>>, BatchError> {
        let starts = instances
            .iter()
            .map(|inst| FlatStart::new(site, inst, pool))
            .collect::<Result<Vec<_>, _>>()?;
        FlatStart::join_family(&starts);
        let starts: Arc<[Arc<FlatStart>]> = starts.into();
        // The environments' copies share the texts held now, and their words.
        let mut base = pool.clone();
        base.freeze();
        let labels = hashed_labels(site.program());
        let kept = engines::no_kept_starts(&starts);
        let offers = engines::offer_classes(&starts, site);
        BatchEnv::build(starts.len(), n, spec, seed, threads, labels, |first| {
            FlatEngine::new(
                site,
                (starts.clone(), offers.clone()),
                kept.clone(),
                config,
                base.clone(),
                first,
            )
        })
    }

    /// The flat engine behind row `i` (for inspection and tests).
    pub fn flat(&self, i: usize) -> Option<&crate::jit::FlatEnv<'s>> {
        self.slots.get(i).map(|s| s.engine.env())
    }
}

impl<E: Engine> BatchEnv<E> {
    /// `n` slots, slot `i` made by `make` on the instance its generator
    /// draws first; the first observation written.
    fn build(
        instances: usize,
        n: usize,
        spec: ObsSpec,
        seed: u64,
        threads: usize,
        labels: Arc<[Vec<u64>]>,
        mut make: impl FnMut(usize) -> Result<E, BatchError>,
    ) -> Result<BatchEnv<E>, BatchError> {
        let spec = spec.at_least_one();
        if instances == 0 {
            return Err(BatchError::NoInstances);
        }
        let mut slots = Vec::with_capacity(n);
        for i in 0..n {
            let mut rng = slot_rng(seed, i);
            let first = draw(&mut rng, instances);
            slots.push(Slot {
                engine: make(first).map_err(|e| e.in_env(i))?,
                instance: first,
                finished: false,
                tokens: Tokenizer::new(spec.vocab),
                table: Vec::new(),
                history: VecDeque::new(),
                sketches: Vec::new(),
                spare_history: Vec::new(),
                written: write::Written::ALL,
                alert: (String::new(), Vec::new()),
                rng,
                ret: 0.0,
                len: 0,
            });
        }
        let workers = Workers::new(threads.clamp(1, n.max(1)))?;
        let mut batch = BatchEnv {
            instances,
            spec,
            workers,
            slots,
            memos: Vec::new(),
            buffers: Buffers::new(n, &spec),
            labels,
            autoreset: Autoreset::default(),
        };
        batch.set_render_memo(DEFAULT_RENDER_MEMO);
        for (slot, mut rows) in batch.slots.iter_mut().zip(batch.buffers.rows(&spec)) {
            write_observation(slot, &mut rows, &spec, &batch.labels, None);
        }
        Ok(batch)
    }

    /// Gives each thread a memory of `capacity` pages (0: none) its
    /// environments share, forgetting what was remembered. Observations
    /// are the same whatever the capacity; only their cost changes
    /// (`jit::RenderMemo`). The default is [`DEFAULT_RENDER_MEMO`].
    pub fn set_render_memo(&mut self, capacity: usize) {
        self.memos = match self.slots.first() {
            Some(slot) => (0..self.workers.threads())
                .map(|_| ThreadMemo {
                    engine: slot.engine.memo(capacity),
                    views: views::ViewMemo::new(capacity),
                })
                .collect(),
            None => Vec::new(),
        };
    }

    /// How often steps found their page remembered, over every thread's
    /// memory (`jit::RenderMemo`; none for the interpreter).
    pub fn memo_counts(&self) -> MemoCounts {
        let mut total = MemoCounts::default();
        for m in &self.memos {
            total += E::memo_counts(&m.engine);
            total.rows += m.views.copied;
        }
        total
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn spec(&self) -> &ObsSpec {
        &self.spec
    }

    /// The buffers, as of the last step (or construction).
    pub fn buffers(&self) -> &Buffers {
        &self.buffers
    }

    /// How environments whose episode ended start the next one.
    pub fn autoreset(&self) -> Autoreset {
        self.autoreset
    }

    /// Sets how environments whose episode ended start the next one (an
    /// environment already waiting keeps waiting for a step or a reset).
    pub fn set_autoreset(&mut self, mode: Autoreset) {
        self.autoreset = mode;
    }

    /// How many threads step the batch, the caller's included.
    pub fn threads(&self) -> usize {
        self.workers.threads()
    }

    /// How long the worker threads stay awake after a step, waiting for the
    /// next ([`DEFAULT_WARM`], or zero when there are more threads than
    /// cores).
    pub fn warm(&self) -> Duration {
        self.workers.warm()
    }

    /// Sets how long the worker threads stay awake after a step. Zero makes
    /// them sleep at once (each step then wakes them); a longer spell suits a
    /// caller that does more between steps, at the cost of a spinning core.
    pub fn set_warm(&mut self, warm: Duration) {
        self.workers.set_warm(warm);
    }

    /// How many task instances the batch draws from.
    pub fn instance_count(&self) -> usize {
        self.instances
    }

    /// The index of the task instance environment `i` plays.
    pub fn instance_of(&self, i: usize) -> Option<usize> {
        self.slots.get(i).map(|s| s.instance)
    }

    /// Whether environment `i`'s episode ended and it waits for its reset.
    pub fn is_finished(&self, i: usize) -> Option<bool> {
        self.slots.get(i).map(|s| s.finished)
    }

    /// Starts a new episode in environment `i`, on task instance `instance`
    /// when given, else on the next draw of its generator, which `seed` (when
    /// given) first reseeds exactly as a batch made with that seed seeds it.
    /// The step fields of its row read as if no step was taken.
    pub fn reset(
        &mut self,
        i: usize,
        seed: Option<u64>,
        instance: Option<usize>,
    ) -> Result<(), BatchError> {
        let count = self.instances;
        if let Some(k) = instance.filter(|&k| k >= count) {
            return Err(BatchError::NoInstance { instance: k, count });
        }
        let n = self.slots.len();
        let spec = self.spec;
        let labels = &self.labels[..];
        let mut span = self.buffers.span();
        span.take_front(i, &spec);
        let (Some(slot), Some(mut rows)) = (
            self.slots.get_mut(i),
            span.take_front(1, &spec).rows(&spec).next(),
        ) else {
            return Err(BatchError::NoEnvironment { env: i, count: n });
        };
        if let Some(seed) = seed {
            slot.rng = slot_rng(seed, i);
        }
        let next = instance.unwrap_or_else(|| draw(&mut slot.rng, count));
        restart(slot, &mut rows, (&spec, labels), next, None).map_err(|e| e.in_env(i))
    }

    /// The row of environment `i`'s action table that offers its engine's
    /// candidate `index`; `None` when the table does not (its element is
    /// not shown, or the table was cut at `max_actions`).
    pub fn row_of(&self, i: usize, index: usize) -> Option<u32> {
        let table = &self.slots.get(i)?.table;
        let row = table.iter().position(|&c| c == index)?;
        u32::try_from(row).ok()
    }

    /// The engine candidate behind row `row` of environment `i`'s table.
    pub fn candidate_at(&self, i: usize, row: u32) -> Option<usize> {
        let table = &self.slots.get(i)?.table;
        table.get(usize::try_from(row).ok()?).copied()
    }

    /// Takes action-table row `actions[i]` in environment `i`, for every `i`.
    /// An out-of-range row anywhere is an `Err` and nothing changes.
    pub fn step(&mut self, actions: &[u32]) -> Result<(), BatchError> {
        if actions.len() != self.slots.len() {
            return Err(BatchError::ActionCount {
                actions: actions.len(),
                environments: self.slots.len(),
            });
        }
        let counts = &self.buffers.action_count;
        for (i, ((&a, n), slot)) in actions.iter().zip(counts).zip(&self.slots).enumerate() {
            if slot.finished {
                if self.autoreset == Autoreset::Disabled {
                    return Err(BatchError::Finished(i));
                }
                continue;
            }
            if a >= *n {
                return Err(BatchError::ActionOutOfRange {
                    env: i,
                    actions: *n,
                    row: a,
                });
            }
        }
        for slot in self.slots.iter_mut().filter(|s| !s.finished) {
            slot.engine.prejudge();
        }
        let spec = self.spec;
        let autoreset = self.autoreset;
        let instances = self.instances;
        let labels = &self.labels[..];
        // Each thread always steps the same contiguous share of the
        // environments, so their memory stays in its allocator arena and its
        // cache, and no two threads write the same stretch of a buffer.
        // (Work stealing balanced the shares but moved environments between
        // arenas: frees across arenas contend, and it scaled worse.)
        let per = self.slots.len().div_ceil(self.workers.threads()).max(1);
        // One memory per share (`set_render_memo` makes one per thread):
        // the zip below must not drop a share.
        debug_assert!(self.memos.len() >= self.slots.len().div_ceil(per));
        // Each share takes its stretch of the buffers whole and splits it
        // into rows on its own thread.
        let mut span = self.buffers.span();
        let jobs: Vec<Job<'_, '_, E>> = self
            .slots
            .chunks_mut(per)
            .zip(actions.chunks(per))
            .zip(self.memos.iter_mut())
            .enumerate()
            .map(|(k, ((slots, actions), memo))| {
                let rows = span.take_front(slots.len(), &spec);
                (k * per, slots, rows, actions, memo)
            })
            .collect();
        let shared = Shared {
            instances,
            spec: &spec,
            labels,
            autoreset,
        };
        let failures = self.workers.run(jobs, |job| run_job(job, &shared));
        match failures.into_iter().flatten().next() {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }
}

/// One worker's share of a step: the index of its first environment, its
/// environments, their stretch of the buffers, their actions, and the
/// memory they share.
type Job<'s, 'b, E> = (
    usize,
    &'s mut [Slot<E>],
    Span<'b>,
    &'s [u32],
    &'s mut ThreadMemo<<E as Engine>::Memo>,
);

/// What every environment's step reads.
struct Shared<'a> {
    instances: usize,
    spec: &'a ObsSpec,
    labels: &'a [Vec<u64>],
    autoreset: Autoreset,
}

/// Steps one thread's environments; the errors met, each naming its
/// environment.
fn run_job<E: Engine>(job: Job<'_, '_, E>, shared: &Shared<'_>) -> Vec<BatchError> {
    let (first, slots, span, actions, memo) = job;
    // Each environment's rows are made on this thread and lent to its
    // step (a `Rows` is 28 slices).
    slots
        .iter_mut()
        .zip(span.rows(shared.spec))
        .zip(actions)
        .enumerate()
        .filter_map(|(k, ((slot, mut rows), &a))| {
            step_one(shared, slot, &mut rows, a, memo)
                .err()
                .map(|e| e.in_env(first + k))
        })
        .collect()
}

/// One environment's step, with auto-reset, written into its rows.
fn step_one<E: Engine>(
    shared: &Shared<'_>,
    slot: &mut Slot<E>,
    rows: &mut Rows<'_>,
    row: u32,
    memo: &mut ThreadMemo<E::Memo>,
) -> Result<(), BatchError> {
    let (instances, spec, labels) = (shared.instances, shared.spec, shared.labels);
    if slot.finished {
        // Only `NextStep` steps a finished environment: this step is its reset.
        let next = draw(&mut slot.rng, instances);
        return restart(slot, rows, (spec, labels), next, Some(&mut memo.views));
    }
    let index = slot
        .table
        .get(row as usize)
        .copied()
        .ok_or(BatchError::NoActionRow(row))?;
    // The oldest record is reused when the history is full.
    let taken = if slot.history.len() >= spec.history {
        slot.history.pop_back()
    } else {
        slot.spare_history.pop()
    };
    let mut taken = taken.unwrap_or_default();
    describe(slot, index, spec.history_tokens, &mut taken);
    let answered = slot
        .engine
        .action(index)
        .is_some_and(|a| a.kind == ActionKind::Answer);
    let r = slot.engine.take(index, &mut memo.engine)?;
    slot.history.push_front(taken);
    slot.history.truncate(spec.history);
    slot.ret += r.reward;
    slot.len += 1;
    *rows.reward = r.reward as f32;
    *rows.done = u8::from(r.done);
    // An answer ends the episode whatever it says; only the horizon cuts it.
    *rows.truncated = u8::from(r.done && !r.success && !answered);
    *rows.success = u8::from(r.success);
    *rows.progress = r.progress as f32;
    (*rows.r_acc, *rows.answer_f1) = judged_rows(r.judgement);
    if r.done {
        *rows.episode_return = slot.ret as f32;
        *rows.episode_length = slot.len;
        if shared.autoreset == Autoreset::SameStep {
            let next = draw(&mut slot.rng, instances);
            begin(slot, next)?;
        } else {
            slot.finished = true;
        }
    }
    write_observation(slot, rows, spec, labels, Some(&mut memo.views));
    Ok(())
}

/// Starts episode of instance `instance` in `slot`, forgetting the last one.
fn begin<E: Engine>(slot: &mut Slot<E>, instance: usize) -> Result<(), BatchError> {
    // The instruction row is the last episode's.
    slot.written.instruction = None;
    slot.engine.begin(instance)?;
    slot.instance = instance;
    slot.finished = false;
    slot.ret = 0.0;
    slot.len = 0;
    slot.spare_history.extend(slot.history.drain(..));
    Ok(())
}

/// Starts an episode of `instance` and writes its first observation, with
/// the step fields of its row as if no step was taken (its rows copied
/// from `views` when they remember the first page).
fn restart<E: Engine>(
    slot: &mut Slot<E>,
    rows: &mut Rows<'_>,
    (spec, labels): (&ObsSpec, &[Vec<u64>]),
    instance: usize,
    views: Option<&mut views::ViewMemo>,
) -> Result<(), BatchError> {
    begin(slot, instance)?;
    *rows.reward = 0.0;
    *rows.done = 0;
    *rows.truncated = 0;
    *rows.success = 0;
    *rows.progress = 0.0;
    *rows.r_acc = NOT_JUDGED;
    *rows.answer_f1 = -1.0;
    *rows.episode_return = 0.0;
    *rows.episode_length = 0;
    write_observation(slot, rows, spec, labels, views);
    Ok(())
}

/// The `r_acc` and `answer_f1` buffer values of a step's judgement.
fn judged_rows(j: Option<crate::env::Judgement>) -> (u8, f32) {
    match j {
        None => (NOT_JUDGED, -1.0),
        Some(j) => (
            if j.unknown {
                JUDGED_UNKNOWN
            } else {
                u8::from(j.r_acc)
            },
            j.answer_f1.map_or(-1.0, |f| f as f32),
        ),
    }
}

/// A draw in `0..n` from a 64-bit LCG (the same on every machine).
fn draw(rng: &mut u64, n: usize) -> usize {
    *rng = rng
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    usize::try_from(*rng >> 33).unwrap_or(0) % n.max(1)
}
