//! Batched environments: N task episodes stepped together on a pool of worker
//! threads (rayon), with observations
//! written straight into one contiguous, trainer-ready buffer per field.
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
//! An environment is an [`Engine`]: the reference interpreter's [`Env`]
//! ([`InterpEngine`], `BatchEnv::new`) or the JIT's flat engine
//! ([`FlatEngine`], `BatchEnv::jit`). Both fill the buffers through the same
//! writer, so for the same seed and actions the two batches hold the same
//! bytes (`tests/tests/batch.rs` demands it).

mod engines;
pub mod tokens;

pub use engines::{ActionView, ElementView, Engine, FlatEngine, InterpEngine};

use crate::env::{ActionKind, RewardConfig, TaskInstance, ROLES};
use crate::ir;
use crate::jit::{FlatStart, JitSite};
use crate::layout::TextPool;
use std::sync::{Arc, Mutex};
use tokens::Tokenizer;

/// Fixed shapes of the observation buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObsSpec {
    pub max_elements: usize,
    pub text_tokens: usize,
    pub value_tokens: usize,
    pub instruction_tokens: usize,
    pub max_actions: usize,
    pub action_tokens: usize,
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
            vocab: 1 << 15,
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

/// One buffer per field, environment-major (`[n, …]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Buffers {
    /// `[n, instruction_tokens]`
    pub instruction: Vec<u32>,
    /// `[n]`
    pub element_count: Vec<u32>,
    /// `[n, max_elements]`
    pub role: Vec<u8>,
    /// `[n, max_elements]`
    pub flags: Vec<u8>,
    /// `[n, max_elements, text_tokens]`
    pub text: Vec<u32>,
    /// `[n, max_elements, value_tokens]`
    pub value: Vec<u32>,
    /// `[n]`
    pub action_count: Vec<u32>,
    /// `[n, max_actions]`
    pub action_kind: Vec<u8>,
    /// `[n, max_actions]`: the element's row, −1 for `answer` and empty rows.
    pub action_element: Vec<i32>,
    /// `[n, max_actions, action_tokens]`
    pub action_text: Vec<u32>,
    /// `[n]`, for the step just taken.
    pub reward: Vec<f32>,
    pub done: Vec<u8>,
    pub success: Vec<u8>,
    pub progress: Vec<f32>,
    /// `[n]`: totals of the episode that ended this step (when `done`).
    pub episode_return: Vec<f32>,
    pub episode_length: Vec<u32>,
    /// `[n]`: `CUT_*` bits for the current observation.
    pub overflow: Vec<u8>,
}

impl Buffers {
    fn new(n: usize, s: &ObsSpec) -> Buffers {
        let (e, a) = (s.max_elements, s.max_actions);
        Buffers {
            instruction: vec![0; n * s.instruction_tokens],
            element_count: vec![0; n],
            role: vec![0; n * e],
            flags: vec![0; n * e],
            text: vec![0; n * e * s.text_tokens],
            value: vec![0; n * e * s.value_tokens],
            action_count: vec![0; n],
            action_kind: vec![0; n * a],
            action_element: vec![-1; n * a],
            action_text: vec![0; n * a * s.action_tokens],
            reward: vec![0.0; n],
            done: vec![0; n],
            success: vec![0; n],
            progress: vec![0.0; n],
            episode_return: vec![0.0; n],
            episode_length: vec![0; n],
            overflow: vec![0; n],
        }
    }

    /// Per-environment mutable views, in order.
    fn rows(&mut self, s: &ObsSpec) -> Vec<Rows<'_>> {
        let (e, a) = (s.max_elements, s.max_actions);
        let mut out = Vec::new();
        let mut instruction = self.instruction.chunks_mut(s.instruction_tokens.max(1));
        let mut role = self.role.chunks_mut(e.max(1));
        let mut flags = self.flags.chunks_mut(e.max(1));
        let mut text = self.text.chunks_mut((e * s.text_tokens).max(1));
        let mut value = self.value.chunks_mut((e * s.value_tokens).max(1));
        let mut kind = self.action_kind.chunks_mut(a.max(1));
        let mut element = self.action_element.chunks_mut(a.max(1));
        let mut atext = self.action_text.chunks_mut((a * s.action_tokens).max(1));
        let scalars = self
            .element_count
            .iter_mut()
            .zip(self.action_count.iter_mut())
            .zip(self.reward.iter_mut())
            .zip(self.done.iter_mut())
            .zip(self.success.iter_mut())
            .zip(self.progress.iter_mut())
            .zip(self.episode_return.iter_mut())
            .zip(self.episode_length.iter_mut())
            .zip(self.overflow.iter_mut());
        for ((((((((ec, ac), rw), dn), sc), pg), er), el), ov) in scalars {
            let (Some(i), Some(r), Some(f), Some(t), Some(v), Some(k), Some(el_), Some(at)) = (
                instruction.next(),
                role.next(),
                flags.next(),
                text.next(),
                value.next(),
                kind.next(),
                element.next(),
                atext.next(),
            ) else {
                break;
            };
            out.push(Rows {
                instruction: i,
                element_count: ec,
                role: r,
                flags: f,
                text: t,
                value: v,
                action_count: ac,
                action_kind: k,
                action_element: el_,
                action_text: at,
                reward: rw,
                done: dn,
                success: sc,
                progress: pg,
                episode_return: er,
                episode_length: el,
                overflow: ov,
            });
        }
        out
    }
}

/// One environment's part of every buffer.
struct Rows<'b> {
    instruction: &'b mut [u32],
    element_count: &'b mut u32,
    role: &'b mut [u8],
    flags: &'b mut [u8],
    text: &'b mut [u32],
    value: &'b mut [u32],
    action_count: &'b mut u32,
    action_kind: &'b mut [u8],
    action_element: &'b mut [i32],
    action_text: &'b mut [u32],
    reward: &'b mut f32,
    done: &'b mut u8,
    success: &'b mut u8,
    progress: &'b mut f32,
    episode_return: &'b mut f32,
    episode_length: &'b mut u32,
    overflow: &'b mut u8,
}

/// One environment and what it needs between steps.
struct Slot<E> {
    engine: E,
    tokens: Tokenizer,
    /// Row of the action table → index into the engine's candidates.
    table: Vec<usize>,
    rng: u64,
    ret: f64,
    len: u32,
}

/// N environments over one program's task instances.
pub struct BatchEnv<E> {
    instances: usize,
    spec: ObsSpec,
    workers: rayon::ThreadPool,
    slots: Vec<Slot<E>>,
    buffers: Buffers,
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
    ) -> Result<BatchEnv<InterpEngine<'p>>, String> {
        let instances: Arc<[TaskInstance]> = instances.into();
        let count = instances.len();
        BatchEnv::build(count, n, spec, seed, threads, |first| {
            InterpEngine::new(program, instances.clone(), config, first)
        })
    }

    /// The interpreter behind row `i` (for inspection and tests).
    pub fn env(&self, i: usize) -> Option<&crate::env::Env<'p>> {
        self.slots.get(i).map(|s| s.engine.env())
    }
}

impl<'s> BatchEnv<FlatEngine<'s>> {
    /// `n` JIT environments over `instances` of the program `site` was
    /// compiled for, drawn exactly as `BatchEnv::new` draws them (so the two
    /// batches play the same episodes for the same seed and actions). `pool`
    /// is the pool the site was compiled with: the instances are prepared
    /// into it once, and every environment gets its own copy. Refused when
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
    ) -> Result<BatchEnv<FlatEngine<'s>>, String> {
        let starts = instances
            .iter()
            .map(|inst| FlatStart::new(site, inst, pool))
            .collect::<Result<Vec<_>, _>>()?;
        let starts: Arc<[Arc<FlatStart>]> = starts.into();
        let base = pool.clone();
        BatchEnv::build(starts.len(), n, spec, seed, threads, |first| {
            FlatEngine::new(site, starts.clone(), config, base.clone(), first)
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
        mut make: impl FnMut(usize) -> Result<E, String>,
    ) -> Result<BatchEnv<E>, String> {
        if instances == 0 {
            return Err("a batch needs at least one task instance".into());
        }
        let mut slots = Vec::with_capacity(n);
        for i in 0..n {
            let mut rng = slot_rng(seed, i);
            let first = draw(&mut rng, instances);
            slots.push(Slot {
                engine: make(first)?,
                tokens: Tokenizer::new(spec.vocab),
                table: Vec::new(),
                rng,
                ret: 0.0,
                len: 0,
            });
        }
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| format!("cannot start {threads} worker threads: {e}"))?;
        let mut batch = BatchEnv {
            instances,
            spec,
            workers,
            slots,
            buffers: Buffers::new(n, &spec),
        };
        for (slot, rows) in batch.slots.iter_mut().zip(batch.buffers.rows(&spec)) {
            write_observation(slot, rows, &spec);
        }
        Ok(batch)
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

    /// Takes action-table row `actions[i]` in environment `i`, for every `i`.
    /// An out-of-range row anywhere is an `Err` and nothing changes.
    pub fn step(&mut self, actions: &[u32]) -> Result<(), String> {
        if actions.len() != self.slots.len() {
            return Err(format!(
                "{} actions for {} environments",
                actions.len(),
                self.slots.len()
            ));
        }
        for (i, (&a, n)) in actions.iter().zip(&self.buffers.action_count).enumerate() {
            if a >= *n {
                return Err(format!("environment {i} has {n} actions, not {}", a + 1));
            }
        }
        let spec = self.spec;
        let instances = self.instances;
        // Each worker always steps the same contiguous share of the
        // environments, so their memory stays in its allocator arena and its
        // cache, and no two workers write the same stretch of a buffer.
        let threads = self.workers.current_num_threads().max(1);
        let per = self.slots.len().div_ceil(threads).max(1);
        let mut rows = self.buffers.rows(&spec).into_iter();
        let jobs: Vec<Mutex<Option<Job<'_, '_, E>>>> = self
            .slots
            .chunks_mut(per)
            .zip(actions.chunks(per))
            .map(|(slots, actions)| {
                let rows: Vec<Rows<'_>> = rows.by_ref().take(slots.len()).collect();
                Mutex::new(Some((slots, rows, actions)))
            })
            .collect();
        let failures: Vec<String> = self
            .workers
            .broadcast(|ctx| run_job(jobs.get(ctx.index()), instances, &spec))
            .into_iter()
            .flatten()
            .collect();
        match failures.first() {
            None => Ok(()),
            Some(e) => Err(e.clone()),
        }
    }
}

/// One worker's share of a step: its environments, their rows, their actions.
type Job<'s, 'b, E> = (&'s mut [Slot<E>], Vec<Rows<'b>>, &'s [u32]);

/// Steps one worker's environments; the errors met.
fn run_job<E: Engine>(
    job: Option<&Mutex<Option<Job<'_, '_, E>>>>,
    instances: usize,
    spec: &ObsSpec,
) -> Vec<String> {
    let Some(job) = job else {
        return Vec::new();
    };
    // Each job is taken by exactly one worker, so the lock is never
    // contended; a poisoned one means a worker panicked.
    let Ok(mut taken) = job.lock() else {
        return vec!["a worker thread failed".into()];
    };
    let Some((slots, rows, actions)) = taken.take() else {
        return Vec::new();
    };
    slots
        .iter_mut()
        .zip(rows)
        .zip(actions)
        .filter_map(|((slot, rows), &a)| step_one(instances, spec, slot, rows, a).err())
        .collect()
}

/// One environment's step, with auto-reset, written into its rows.
fn step_one<E: Engine>(
    instances: usize,
    spec: &ObsSpec,
    slot: &mut Slot<E>,
    rows: Rows<'_>,
    row: u32,
) -> Result<(), String> {
    let index = slot
        .table
        .get(row as usize)
        .copied()
        .ok_or_else(|| format!("no action row {row}"))?;
    let r = slot.engine.take(index)?;
    slot.ret += r.reward;
    slot.len += 1;
    *rows.reward = r.reward as f32;
    *rows.done = u8::from(r.done);
    *rows.success = u8::from(r.success);
    *rows.progress = r.progress as f32;
    if r.done {
        *rows.episode_return = slot.ret as f32;
        *rows.episode_length = slot.len;
        slot.ret = 0.0;
        slot.len = 0;
        let next = draw(&mut slot.rng, instances);
        slot.engine.begin(next)?;
    }
    write_observation(slot, rows, spec);
    Ok(())
}

/// Writes the environment's current observation and action table.
fn write_observation<E: Engine>(slot: &mut Slot<E>, rows: Rows<'_>, spec: &ObsSpec) {
    let mut cut = 0u8;
    if !slot
        .tokens
        .fill(slot.engine.instruction(), rows.instruction)
    {
        cut |= CUT_INSTRUCTION;
    }
    let count = slot.engine.element_count();
    let shown = count.min(spec.max_elements);
    if shown < count {
        cut |= CUT_ELEMENTS;
    }
    *rows.element_count = u32::try_from(shown).unwrap_or(u32::MAX);
    rows.role.fill(0);
    rows.flags.fill(0);
    for i in 0..shown {
        let Some(e) = slot.engine.element(i) else {
            break;
        };
        rows.role[i] = role_id(e.role);
        let mut f = 0;
        if e.disabled {
            f |= FLAG_DISABLED;
        }
        let text = &mut rows.text[i * spec.text_tokens..(i + 1) * spec.text_tokens];
        if !slot.tokens.fill(e.text, text) {
            f |= FLAG_TEXT_CUT;
        }
        let value = &mut rows.value[i * spec.value_tokens..(i + 1) * spec.value_tokens];
        match e.value {
            Some(v) => {
                f |= FLAG_HAS_VALUE;
                slot.tokens.fill(v, value);
            }
            None => value.fill(0),
        }
        rows.flags[i] = f;
    }
    rows.text[shown * spec.text_tokens..].fill(0);
    rows.value[shown * spec.value_tokens..].fill(0);
    write_actions(
        slot,
        rows.action_kind,
        rows.action_element,
        rows.action_text,
        spec,
        shown,
        &mut cut,
    );
    *rows.action_count = u32::try_from(slot.table.len()).unwrap_or(u32::MAX);
    *rows.overflow = cut;
}

/// The action table: candidates whose element is shown, in §5.2 order.
fn write_actions<E: Engine>(
    slot: &mut Slot<E>,
    kind: &mut [u8],
    element: &mut [i32],
    text: &mut [u32],
    spec: &ObsSpec,
    shown: usize,
    cut: &mut u8,
) {
    slot.table.clear();
    kind.fill(0);
    element.fill(-1);
    text.fill(0);
    for i in 0..slot.engine.action_count() {
        let Some(a) = slot.engine.action(i) else {
            break;
        };
        let row = slot.table.len();
        let visible = a.element.is_none_or(|e| e >= 1 && e <= shown);
        if !visible || row >= spec.max_actions {
            *cut |= CUT_ACTIONS;
            continue;
        }
        kind[row] = kind_id(a.kind);
        element[row] = a
            .element
            .and_then(|e| i32::try_from(e - 1).ok())
            .unwrap_or(-1);
        if let Some(t) = a.text {
            let out = &mut text[row * spec.action_tokens..(row + 1) * spec.action_tokens];
            slot.tokens.fill(t, out);
        }
        slot.table.push(i);
    }
}

/// A draw in `0..n` from a 64-bit LCG (the same on every machine).
fn draw(rng: &mut u64, n: usize) -> usize {
    *rng = rng
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    usize::try_from(*rng >> 33).unwrap_or(0) % n.max(1)
}
