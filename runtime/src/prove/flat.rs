//! The prover's breadth-first search run on the JIT's flat engine
//! ([`FlatEnv`]) instead of the interpreter: the same levels, candidates in
//! the same order, the same cone-of-influence pruning, the same fingerprint
//! domain and budget, so the same verdict, state count and shortest witness.
//!
//! This module owns the compact form of a stored flat state ([`Shape`]: only
//! the used prefixes of the sorted lists and of each table, since a state is
//! mostly zero capacity), the flat search itself, and the hand-over to the
//! interpreter: a witness the flat search finds is replayed on `Env` (which
//! names its steps by stable key, and must agree step by step, or the proof is
//! an `Err`); an instance it cannot decide with a witness is searched again by
//! the interpreter, whose bookkeeping explains the verdict and must confirm
//! it. Instances `FlatEnv` refuses (code that did not compile) and searches
//! that meet a state the layout cannot hold are proven by the interpreter
//! alone.

use super::bfs::{self, Bfs, Tried};
use super::footprint::Cone;
use super::search::{explained, prunes, Unexplained};
use super::{prove_instance, step_of, Engine, Options, Proof, ProveError, Verdict, WitnessStep};
use crate::env::{reward, ActionKind, RewardConfig, TaskInstance};
use crate::identity::tells_visited;
use crate::ir;
use crate::jit::{FlatAction, FlatEnv, FlatStart, HandleWords, JitSite, RenderMode};
use crate::layout::{StateLayout, TextPool, HEADER_SIZE, WORD};
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_128;

type R<T> = Result<T, ProveError>;

/// A program compiled for the flat engine, ready to prove its task instances.
pub struct JitProver {
    program: ir::Program,
    /// The pool the site was compiled with; each proof grows a clone of it.
    pool: TextPool,
    site: JitSite,
    shape: Shape,
    page_at: usize,
}

impl JitProver {
    /// Lays out and compiles `program`. An `Err` (a layout the program does
    /// not fit, a host without a JIT backend) means: prove with the
    /// interpreter's [`prove_instance`].
    pub fn new(program: &ir::Program) -> R<JitProver> {
        let layout = StateLayout::for_program(program).map_err(ProveError::Layout)?;
        let mut pool = TextPool::for_program(program);
        let site = JitSite::compile(program, &layout, &mut pool).map_err(ProveError::Jit)?;
        Ok(JitProver {
            program: program.clone(),
            pool,
            shape: Shape::of(&layout)?,
            page_at: layout.page,
            site,
        })
    }

    /// Proves one task instance, on the flat engine where it can play it and
    /// on the interpreter otherwise; [`Proof::engine`] says which decided.
    pub fn prove(&self, instance: &TaskInstance, options: Options) -> R<Proof> {
        if let Some(proof) = super::decided_before_search(&self.program, instance, options)? {
            return Ok(proof);
        }
        let mut pool = self.pool.clone();
        let Some(mut search) = self.search(instance, options, &mut pool)? else {
            return prove_instance(&self.program, instance, options);
        };
        // A step the flat engine cannot take (a state with more form
        // variables or visited pages than the layout holds, which a search
        // longer than the task's horizon can reach) is one the interpreter
        // can: let it search the whole instance.
        let Ok(ended) = search.run(&mut pool) else {
            return prove_instance(&self.program, instance, options);
        };
        match ended {
            Ended::Witness { node, label, depth } => {
                let path = search.witness(node, label);
                let witness = self.replay(instance, &path, &mut pool)?;
                Ok(Proof {
                    instance: instance.clone(),
                    verdict: Verdict::Feasible,
                    witness,
                    states: search.bfs.states(),
                    depth,
                    initially_true: search.initially_true,
                    cut_by_horizon: search.bfs.cut_by_horizon,
                    explanation: None,
                    engine: Engine::Jit,
                })
            }
            Ended::Exhausted { .. } | Ended::Budget { .. } => {
                self.confirm(instance, options, &search, ended)
            }
        }
    }

    /// The flat search of `instance`, or `None` when `FlatEnv` refuses it.
    fn search<'s>(
        &'s self,
        instance: &TaskInstance,
        options: Options,
        pool: &mut TextPool,
    ) -> R<Option<FlatSearch<'s>>> {
        let config = RewardConfig::default();
        let Ok(start) = FlatStart::new(&self.site, instance, pool) else {
            return Ok(None);
        };
        let Ok(mut parent) = FlatEnv::from_start(&self.site, start, config, pool) else {
            return Ok(None);
        };
        // The search reads candidates and handles, never texts: expansions
        // render structure only (a retrieval task's keep their texts, which
        // its answers are).
        parent.set_render_mode(RenderMode::STRUCTURE, pool)?;
        let env = super::fresh_env(&self.program, instance)?;
        let task = env.task();
        let with_visited = tells_visited(task);
        let horizon = options.horizon.unwrap_or(task.horizon);
        Ok(Some(FlatSearch {
            bfs: Bfs::new(horizon, options.budget),
            task_horizon: task.horizon,
            initially_true: reward::goal_holds(&self.program, task, env.state(), env.task_frame()),
            engine: FlatStates {
                shape: &self.shape,
                page_at: self.page_at,
                cone: prunes(&self.program, &env, options)
                    .then(|| Cone::of_task(&self.program, task)),
                with_visited,
                scratch: vec![0; parent.state().len()],
                parent,
                page: 0,
            },
        }))
    }

    /// The flat search's verdict without a witness, explained (and, when
    /// infeasible, confirmed) by the interpreter's explaining search.
    fn confirm(
        &self,
        instance: &TaskInstance,
        options: Options,
        search: &FlatSearch<'_>,
        ended: Ended,
    ) -> R<Proof> {
        let (verdict, depth) = match ended {
            Ended::Witness { depth, .. } => (Verdict::Feasible, depth),
            Ended::Exhausted { depth } => (Verdict::Infeasible, depth),
            Ended::Budget { depth } => (Verdict::Undecided, depth),
        };
        let plain = Unexplained {
            verdict,
            depth,
            states: search.bfs.states(),
            initially_true: search.initially_true,
            cut_by_horizon: search.bfs.cut_by_horizon,
        };
        explained(&self.program, instance, options, plain, Engine::Jit)
    }

    /// The flat witness `path` (candidate indices) as keyed steps, replayed
    /// on the interpreter beside the flat engine. Both must offer the same
    /// candidate at every step, and the interpreter must succeed at the last
    /// step and not before.
    fn replay(
        &self,
        instance: &TaskInstance,
        path: &[usize],
        pool: &mut TextPool,
    ) -> R<Vec<WitnessStep>> {
        let config = RewardConfig::default();
        let mut env = super::fresh_env(&self.program, instance)?;
        let mut flat = FlatEnv::new(&self.site, instance, config, pool)?;
        let mut scratch = flat.state().to_vec();
        let mut witness = Vec::with_capacity(path.len());
        let broken = |i: usize, why: &dyn std::fmt::Display| {
            ProveError::self_check(
                &instance.name,
                format!(
                    "the JIT prover's witness does not replay on the interpreter (step {}: {why})",
                    i + 1
                ),
            )
        };
        for (i, &k) in path.iter().enumerate() {
            let action = env.actions().get(k).cloned();
            let candidate = flat.actions().get(k).copied();
            let (Some(action), Some(candidate)) = (action, candidate) else {
                return Err(broken(i, &format!("no candidate #{k}")));
            };
            if env.actions().len() != flat.actions().len()
                || action.kind != candidate.kind
                || action.element.unwrap_or(0) != candidate.element
                || action.text.as_deref() != flat.action_text(&candidate)
            {
                return Err(broken(i, &"the engines offer different candidates"));
            }
            witness.push(step_of(&env, &action));
            let succ = env.successor(&action).map_err(|e| broken(i, &e))?;
            let last = i + 1 == path.len();
            if succ.success != last || (succ.rejected && !last) {
                return Err(broken(i, &"the interpreter's step ends differently"));
            }
            env.load(succ.state);
            if !last {
                flat.step(k, pool).map_err(|e| broken(i, &e))?;
                // Back to a zero header, as in the search, so a witness longer
                // than the task's horizon does not end the flat episode.
                scratch.copy_from_slice(flat.state());
                clear_header(&mut scratch);
                flat.load_state(&scratch, pool).map_err(|e| broken(i, &e))?;
            }
        }
        Ok(witness)
    }
}

/// `state` compacted and expanded again (header zeroed), with the sizes of
/// its compact form and of that form's identity part: for tests of the
/// compact form on states reached by real play.
#[doc(hidden)]
pub fn compact_round_trip(layout: &StateLayout, state: &[u8]) -> R<(Vec<u8>, usize, usize)> {
    let shape = Shape::of(layout)?;
    let mut compact = Vec::new();
    let identity = shape.compact(state, &mut compact)?;
    let mut back = vec![0; layout.size];
    shape.expand(&compact, &mut back)?;
    Ok((back, compact.len(), identity))
}

fn clear_header(state: &mut [u8]) {
    if let Some(header) = state.get_mut(..HEADER_SIZE) {
        header.fill(0);
    }
}

fn u32_at(bytes: &[u8], at: usize) -> R<u32> {
    at.checked_add(4)
        .and_then(|end| bytes.get(at..end))
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| ProveError::compact(format!("offset {at} is outside the state")))
}

type Ended = bfs::Ended<usize>;

/// One level of the search: compact states back to back.
#[derive(Default)]
struct Level {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Level {
    fn state(&self, i: usize) -> Option<&[u8]> {
        let start = match i.checked_sub(1) {
            Some(before) => *self.ends.get(before)?,
            None => 0,
        };
        self.bytes.get(start..*self.ends.get(i)?)
    }
}

impl bfs::Level for Level {
    fn drop_last(&mut self) {
        self.ends.pop();
        self.bytes.truncate(self.ends.last().copied().unwrap_or(0));
    }

    fn clear(&mut self) {
        self.ends.clear();
        self.bytes.clear();
    }
}

/// The flat engine's search: the shared breadth-first loop ([`Bfs`]) over
/// compact flat states, candidates named by index.
struct FlatSearch<'s> {
    bfs: Bfs<usize>,
    engine: FlatStates<'s>,
    task_horizon: u32,
    initially_true: bool,
}

/// Compact flat states for [`Bfs`]: a state is expanded by writing it into
/// the parent engine, whose candidates are probed one by one.
struct FlatStates<'s> {
    shape: &'s Shape,
    page_at: usize,
    cone: Option<Cone>,
    with_visited: bool,
    /// The state expanded, loaded once per expansion; each candidate is
    /// probed on it and its bytes put back.
    parent: FlatEnv<'s>,
    /// A full state, written from a compact one.
    scratch: Vec<u8>,
    /// The page of the state expanded.
    page: ir::PageId,
}

/// [`FlatStates`] with the text pool its engine grows while it runs.
struct Probing<'a, 's> {
    states: &'a mut FlatStates<'s>,
    pool: &'a mut TextPool,
}

impl FlatSearch<'_> {
    fn run(&mut self, pool: &mut TextPool) -> R<Ended> {
        let mut probing = Probing {
            states: &mut self.engine,
            pool,
        };
        self.bfs.run(&mut probing, self.task_horizon)
    }

    /// The candidate indices from the initial state to success.
    fn witness(&self, node: u32, last: usize) -> Vec<usize> {
        let mut path = self.bfs.path(node);
        path.push(last);
        path
    }
}

impl bfs::Expander for Probing<'_, '_> {
    type Label = usize;
    type Level = Level;
    type Error = ProveError;

    fn store_root(&mut self, level: &mut Level) -> R<u128> {
        let s = &mut *self.states;
        s.scratch.copy_from_slice(s.parent.state());
        clear_header(&mut s.scratch);
        let fingerprint = s.store(&mut level.bytes, None)?;
        level.ends.push(level.bytes.len());
        Ok(fingerprint)
    }

    fn load(&mut self, level: &mut Level, i: usize, _node: u32) -> R<()> {
        let s = &mut *self.states;
        let compact = level
            .state(i)
            .ok_or_else(|| ProveError::compact("a frontier entry is missing"))?;
        s.shape.expand(compact, &mut s.scratch)?;
        s.parent.load_for_search(&s.scratch, self.pool)?;
        s.page = u32_at(&s.scratch, s.page_at)?;
        Ok(())
    }

    fn candidates(&self) -> usize {
        self.states.parent.actions().len()
    }

    fn try_candidate(&mut self, k: usize, _node: u32, next: &mut Level) -> R<Tried<usize>> {
        let s = &mut *self.states;
        let Some(&candidate) = s.parent.actions().get(k) else {
            return Ok(Tried::Skipped);
        };
        if s.pruned(&candidate) {
            return Ok(Tried::Skipped);
        }
        // The successor is read off the parent engine's bytes, which are
        // then put back: no page is rendered for a state merely reached.
        let probe = s.parent.probe(k, self.pool)?;
        let keep = !probe.success && !probe.rejected && candidate.kind != ActionKind::Answer;
        let stored = if keep {
            Some(s.store(&mut next.bytes, Some(&s.parent)))
        } else {
            None
        };
        s.parent.unprobe(&s.scratch)?;
        if probe.success {
            return Ok(Tried::Success(k));
        }
        Ok(match stored.transpose()? {
            Some(fingerprint) => {
                next.ends.push(next.bytes.len());
                Tried::Successor(k, fingerprint)
            }
            None => Tried::Dead,
        })
    }
}

impl FlatStates<'_> {
    /// Appends the compact form of `engine`'s state (of `scratch` when
    /// `None`) to `out` and returns its fingerprint.
    fn store(&self, out: &mut Vec<u8>, engine: Option<&FlatEnv<'_>>) -> R<u128> {
        let state = engine.map_or(self.scratch.as_slice(), FlatEnv::state);
        let start = out.len();
        let identity = self.shape.compact(state, out)?;
        let hashed = if self.with_visited {
            out.get(start..)
        } else {
            out.get(start..start + identity)
        };
        hashed
            .map(xxh3_128)
            .ok_or_else(|| ProveError::compact("a compact state is shorter than its identity"))
    }

    /// Whether the cone says this candidate cannot matter (as the
    /// interpreter's search decides it from the element's handle).
    fn pruned(&self, candidate: &FlatAction) -> bool {
        let Some(cone) = &self.cone else { return false };
        let elements = &self.parent.structure().elements;
        let Some(element) = elements.get(candidate.element.wrapping_sub(1)) else {
            return false;
        };
        match &element.handle {
            HandleWords::Marker(m, _) => cone.idle_markers.contains(m),
            HandleWords::Input { .. }
            | HandleWords::Select { .. }
            | HandleWords::Checkbox { .. } => cone.idle_fields.contains(&(self.page, element.id)),
            HandleWords::Inert | HandleWords::Go(_) => false,
        }
    }
}

/// Which bytes of a flat state can be non-zero, in offset order. Unused
/// bytes are zero by the layout's canonical encoding, so the bytes the parts
/// select (with the counts that size the lists) determine the state, and the
/// compact identity bytes are equal exactly when the identity regions are.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape {
    parts: Vec<Part>,
    /// The first `identity_parts` parts cover the identity region, the rest
    /// the visited set.
    identity_parts: usize,
    size: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Bytes kept whole.
    Whole { at: usize, len: usize },
    /// A list of `capacity` items of `stride` bytes whose first `count`
    /// (the `u32` at `count_at`, which precedes the list) are in use.
    Used {
        count_at: usize,
        at: usize,
        stride: usize,
        capacity: usize,
    },
}

impl Shape {
    fn of(layout: &StateLayout) -> R<Shape> {
        let list = |l: crate::layout::EntryList| Part::Used {
            count_at: l.count,
            at: l.entries,
            stride: l.entry_size,
            capacity: l.capacity,
        };
        let mut lists = vec![list(layout.forms)];
        for t in &layout.tables {
            let used = |at, stride| Part::Used {
                count_at: t.count,
                at,
                stride,
                capacity: t.capacity,
            };
            lists.push(used(t.ids, WORD));
            for c in &t.columns {
                lists.push(used(c.words, WORD));
                lists.push(used(c.present, 1));
            }
        }
        let mut parts = cover(layout.identity.clone(), lists)?;
        let identity_parts = parts.len();
        parts.extend(cover(
            layout.visited_region.clone(),
            vec![list(layout.visited)],
        )?);
        Ok(Shape {
            parts,
            identity_parts,
            size: layout.size,
        })
    }

    /// Appends the compact form of `state` to `out`; returns how many of
    /// those bytes are the identity region's.
    fn compact(&self, state: &[u8], out: &mut Vec<u8>) -> R<usize> {
        if state.len() != self.size {
            return Err(ProveError::compact(format!(
                "a state of {} bytes, not {}",
                state.len(),
                self.size
            )));
        }
        let start = out.len();
        let mut identity = 0;
        for (i, part) in self.parts.iter().enumerate() {
            if i == self.identity_parts {
                identity = out.len() - start;
            }
            let bytes = part.used(state)?;
            out.extend_from_slice(
                state
                    .get(bytes)
                    .ok_or_else(|| ProveError::compact("a part is outside the state"))?,
            );
        }
        if self.identity_parts == self.parts.len() {
            identity = out.len() - start;
        }
        Ok(identity)
    }

    /// Writes the state whose compact form is `compact` into `state`, with a
    /// zero header.
    fn expand(&self, compact: &[u8], state: &mut [u8]) -> R<()> {
        if state.len() != self.size {
            return Err(ProveError::compact(format!(
                "a state of {} bytes, not {}",
                state.len(),
                self.size
            )));
        }
        state.fill(0);
        let mut from: usize = 0;
        for part in &self.parts {
            // A list's count precedes it, so it is already in place.
            let bytes = part.used(state)?;
            let len = bytes.len();
            let source = from
                .checked_add(len)
                .and_then(|end| compact.get(from..end))
                .ok_or_else(|| ProveError::compact("a compact state is too short"))?;
            state
                .get_mut(bytes)
                .ok_or_else(|| ProveError::compact("a part is outside the state"))?
                .copy_from_slice(source);
            from += len;
        }
        if from != compact.len() {
            return Err(ProveError::compact("a compact state is too long"));
        }
        Ok(())
    }
}

impl Part {
    /// The bytes of this part that `state` uses.
    fn used(&self, state: &[u8]) -> R<Range<usize>> {
        match *self {
            Part::Whole { at, len } => Ok(at..at + len),
            Part::Used {
                count_at,
                at,
                stride,
                capacity,
            } => {
                let count = usize::try_from(u32_at(state, count_at)?).unwrap_or(usize::MAX);
                if count > capacity {
                    return Err(ProveError::compact(format!(
                        "a count of {count} where {capacity} fit"
                    )));
                }
                Ok(at..at + count * stride)
            }
        }
    }

    fn start(&self) -> usize {
        match *self {
            Part::Whole { at, .. } | Part::Used { at, .. } => at,
        }
    }
}

/// `range` as parts: the lists in it, and whole parts for the bytes between.
fn cover(range: Range<usize>, mut lists: Vec<Part>) -> R<Vec<Part>> {
    lists.sort_by_key(Part::start);
    let mut parts = Vec::new();
    let mut cursor = range.start;
    for list in lists {
        let Part::Used {
            count_at,
            at,
            stride,
            capacity,
        } = list
        else {
            continue;
        };
        let end = stride
            .checked_mul(capacity)
            .and_then(|n| n.checked_add(at))
            .ok_or_else(|| ProveError::compact("a list's size overflows"))?;
        if at < cursor || end > range.end || count_at < range.start || count_at + 4 > at {
            return Err(ProveError::compact(format!(
                "the layout's list at {at} is not where the compact form expects it"
            )));
        }
        if at > cursor {
            parts.push(Part::Whole {
                at: cursor,
                len: at - cursor,
            });
        }
        parts.push(list);
        cursor = end;
    }
    if cursor < range.end {
        parts.push(Part::Whole {
            at: cursor,
            len: range.end - cursor,
        });
    }
    Ok(parts)
}

#[cfg(test)]
mod tests;
