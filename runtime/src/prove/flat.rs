//! The prover's breadth-first search run on the JIT's flat engine
//! ([`FlatEnv`]) instead of the interpreter: the same levels, candidates in
//! the same order, the same cone-of-influence pruning, the same fingerprint
//! domain and budget, so the same verdict, state count and shortest witness.
//!
//! This module owns the flat search itself: a candidate is probed on the
//! expanded state, its successor fingerprinted from the bytes its step
//! wrote (`fingerprint`), stored only when new, as its step (`levels`:
//! the words it changed, rebuilt into its words that differ from the
//! initial state when it is expanded), and the words it changed put back
//! (in debug builds every put-back is checked whole). `sweep` runs the same
//! search for the invariant sweep; `late_bound` says when, during or after
//! the search, the static bound is consulted; `replay` plays a witness the
//! flat search finds on `Env`, which names its steps by stable key and must
//! end as the search said, or the proof is an `Err`. It also owns the
//! hand-over to the interpreter: an instance it cannot decide with a
//! witness is searched again by the interpreter, whose bookkeeping explains
//! the verdict and must confirm it. Instances `FlatEnv` refuses (code that
//! did not compile) and searches that meet a state the layout cannot hold
//! are proven by the interpreter alone.

use super::bfs::{self, Bfs, Tried};
use super::footprint::Cone;
use super::search::{explained, prunes, search_instance, Unexplained};
use super::{Engine, Options, Proof, ProveError, Verdict};
use crate::env::{reward, ActionKind, Env, RewardConfig, TaskInstance};
use crate::identity::tells_visited;
use crate::ir;
use crate::jit::{
    FlatAction, FlatEnv, FlatError, FlatStart, HandleWords, JitSite, MarkerRejection, MemoCounts,
    Recall, RenderMemo, RenderMode,
};
use crate::layout::{StateLayout, TextPool, HEADER_SIZE};
use fingerprint::{set_word, word_at, Changes, Fingerprint};
use late_bound::{LateBound, BOUND_AFTER};
use levels::{Level, Rebuilt, NO_PARENT};
use replay::{replay, PathEnd};
use std::sync::Mutex;

mod fingerprint;
mod late_bound;
mod levels;
mod replay;
mod sweep;
pub use sweep::invariant_sweep;

type R<T> = Result<T, ProveError>;

/// Pages a search remembers, keyed by the words its states differ from
/// the root at that each page's render reads (`Recall::Differs`).
const SEARCH_MEMO: usize = 1024;

/// A program compiled for the flat engine, ready to prove its task instances.
pub struct JitProver {
    program: ir::Program,
    /// The pool the site was compiled with; each proof grows a clone of it.
    pool: TextPool,
    site: JitSite,
    page_at: usize,
    /// Each task's cone of influence, by task: a property of the program,
    /// not of the instance, so computed once.
    cones: Vec<Cone>,
    /// How this prover's searches' loads found their pages, summed.
    memo_counts: Mutex<MemoCounts>,
}

impl JitProver {
    /// Lays out and compiles `program`. An `Err` (a layout the program does
    /// not fit, a host without a JIT backend) means: prove with the
    /// interpreter's [`prove_instance`](super::prove_instance).
    pub fn new(program: &ir::Program) -> R<JitProver> {
        let layout = StateLayout::for_program(program).map_err(ProveError::Layout)?;
        let mut pool = TextPool::for_program(program);
        let site = JitSite::compile(program, &layout, &mut pool).map_err(ProveError::Jit)?;
        Ok(JitProver {
            program: program.clone(),
            pool,
            page_at: layout.page,
            site,
            cones: program
                .tasks
                .iter()
                .map(|task| Cone::of_task(program, task))
                .collect(),
            memo_counts: Mutex::default(),
        })
    }

    /// How often this prover's searches found the page of a state they
    /// expanded remembered (`hits`), and how often they rendered it.
    pub fn memo_counts(&self) -> MemoCounts {
        self.memo_counts.lock().map(|c| *c).unwrap_or_default()
    }

    /// Proves one task instance, on the flat engine where it can play it and
    /// on the interpreter otherwise; [`Proof::engine`] says which decided.
    pub fn prove(&self, instance: &TaskInstance, options: Options) -> R<Proof> {
        // One interpreter environment of the instance serves the reductions,
        // the search's set-up, the interpreter's search if it must take
        // over, and the replay of a witness (which takes it): each would
        // otherwise run the instance's setup and render its first page
        // again.
        let env = super::fresh_env(&self.program, instance)?;
        if let Some(proof) = super::empty_answer(&env, instance) {
            return Ok(proof);
        }
        let mut bound = LateBound::new(&self.program, &env, instance, options);
        let mut pool = self.pool.clone();
        let searched = match self.search(&env, options, &mut pool)? {
            Some(mut search) => {
                search.bfs.interrupt_at(BOUND_AFTER);
                let ran = search.run(&mut pool, Some(&mut || bound.consult()));
                if let Ok(mut counts) = self.memo_counts.lock() {
                    *counts += search.engine.memo.counts();
                }
                match ran {
                    Ok(ended) => Some((search, ended)),
                    Err(e) => {
                        leave_to_interpreter(e, &instance.name)?;
                        None
                    }
                }
            }
            None => None,
        };
        let Some((search, ended)) = searched else {
            // The interpreter searches the whole instance, after the bound
            // as `prove_instance` does.
            if let Some(proof) = bound.decide()? {
                return Ok(proof);
            }
            return search_instance(&self.program, env, instance, options);
        };
        match ended {
            Ended::Interrupted { .. } => bound.decide()?.ok_or_else(|| {
                ProveError::self_check(
                    &instance.name,
                    "the search stopped for a bound that decided nothing".to_string(),
                )
            }),
            Ended::Witness { node, label, depth } => {
                if cfg!(debug_assertions) {
                    bound.expect_undecided("the flat search found a witness")?;
                }
                let path = search.witness(node, label);
                let witness = replay(&self.site, &search, env, &path, PathEnd::Success, &mut pool)?;
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
            Ended::Exhausted { .. } | Ended::Budget { .. } => match bound.decide()? {
                Some(proof) => Ok(proof),
                None => self.confirm(instance, options, &search, ended),
            },
        }
    }

    /// The flat search of the instance `env` starts (fresh), or `None` when
    /// `FlatEnv` refuses it.
    fn search<'s>(
        &'s self,
        env: &Env<'_>,
        options: Options,
        pool: &mut TextPool,
    ) -> R<Option<FlatSearch<'s>>> {
        let config = RewardConfig::default();
        let instance = env.instance();
        let Ok(start) = FlatStart::of_env(&self.site, env, pool) else {
            return Ok(None);
        };
        // The search reads candidates and handles, never texts: expansions
        // render structure only (a retrieval task's keep their texts, which
        // its answers are).
        // The first page failing to render is a failure of the flat
        // engine like one met during the search (`leave_to_interpreter`).
        let mode = RenderMode::STRUCTURE;
        let mut parent = match FlatEnv::from_start_in(&self.site, start, config, mode, pool) {
            Ok(parent) => parent,
            Err(e) => {
                leave_to_interpreter(ProveError::Flat(e), &instance.name)?;
                return Ok(None);
            }
        };
        let task = env.task();
        let with_visited = tells_visited(task);
        if !with_visited {
            parent.forget_visits();
        }
        let horizon = options.horizon.unwrap_or(task.horizon);
        let layout = self.site.layout();
        let hashed = match with_visited {
            true => layout.identity.start..layout.visited_region.end,
            false => layout.identity.clone(),
        };
        Ok(Some(FlatSearch {
            bfs: Bfs::new(horizon, options.budget),
            task_horizon: task.horizon,
            initially_true: reward::goal_holds(&self.program, task, env.state(), env.task_frame()),
            engine: FlatStates {
                page_at: self.page_at,
                // An instance naming no task of the program has no cone:
                // it is searched unpruned, which is exact too.
                cone: prunes(&self.program, env, options)
                    .then(|| self.cones.get(instance.task))
                    .flatten(),
                fingerprint: Fingerprint::new(hashed),
                scratch: vec![0; parent.state().len()],
                root: Vec::new(),
                loaded: Vec::new(),
                unloaded: Vec::new(),
                position: NO_PARENT,
                rebuilt: Rebuilt::default(),
                changes: Changes::default(),
                // A page without texts copies for far less than it renders
                // (DECISIONS 110).
                memo: RenderMemo::remembering_at_first(layout, SEARCH_MEMO),
                parent,
                page: 0,
                parent_fingerprint: 0,
                pending: 0,
                task: instance.name.clone(),
                checked: 0,
                refusals: None,
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
        let (verdict, depth) = ended.verdict();
        let plain = Unexplained {
            verdict,
            depth,
            states: search.bfs.states(),
            initially_true: search.initially_true,
            cut_by_horizon: search.bfs.cut_by_horizon,
        };
        explained(&self.program, instance, options, plain, Engine::Jit)
    }
}

/// Whether a flat search's failure `e` leaves task `task` to the
/// interpreter's search (`Ok`), or is the prover's answer (`Err`). A step
/// the flat engine cannot take (a state with more form variables or
/// visited pages than the layout holds, which a search longer than the
/// task's horizon can reach) is one the interpreter can. A failed self-check
/// is an answer. Any other failure is a bug of the flat engine: the
/// interpreter still answers rightly, but a debug build (the tests') says
/// so, rather than lose only speed.
pub(super) fn leave_to_interpreter(e: ProveError, task: &str) -> R<()> {
    match e {
        ProveError::Flat(FlatError::Capacity { .. }) => Ok(()),
        e @ ProveError::SelfCheck { .. } => Err(e),
        e if cfg!(debug_assertions) => Err(ProveError::self_check(
            task,
            format!("the flat search failed: {e}"),
        )),
        _ => Ok(()),
    }
}

/// Zeroes the header of a flat state (step count, flags, alert): the
/// search and the replay's flat engine hold states so, that a path longer
/// than the task's horizon does not end the episode.
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
    page_at: usize,
    cone: Option<&'s Cone>,
    fingerprint: Fingerprint,
    /// The state expanded, loaded once per expansion; each candidate is
    /// probed on it and its bytes put back.
    parent: FlatEnv<'s>,
    /// The state expanded (a zero header).
    scratch: Vec<u8>,
    /// The initial state (a zero header), which stored states differ from.
    root: Vec<u8>,
    /// The words where `scratch` differs from `root`.
    loaded: Vec<usize>,
    /// The words of the state loaded before (`loaded`'s spare buffer).
    unloaded: Vec<usize>,
    /// The expanded state's position in its level ([`NO_PARENT`] while
    /// the root is pending).
    position: u32,
    /// The states of the level expanded so far, and of the level before.
    rebuilt: Rebuilt,
    /// The words the pending successor's step changed.
    changes: Changes,
    /// Pages rendered, keyed by what each page's render reads: many
    /// states show one page alike.
    memo: RenderMemo,
    /// The page of the state expanded.
    page: ir::PageId,
    parent_fingerprint: u128,
    /// The fingerprint of the successor pending in `parent`.
    pending: u128,
    /// The task instance, named in a failed self-check.
    task: String,
    /// Successors whose fingerprint a debug build recomputed.
    checked: u64,
    /// In a sweep: each (marker, invariant) refusal first met, with the
    /// node and the candidate (`None` outside sweeps).
    refusals: Option<Vec<Refusal>>,
}

/// A marker click an invariant refused: the first of its (marker,
/// invariant) pair in search order.
struct Refusal {
    marker: ir::MarkerId,
    invariant: usize,
    node: u32,
    candidate: usize,
}

/// [`FlatStates`] with the text pool its engine grows while it runs.
struct Probing<'a, 's, 'i> {
    states: &'a mut FlatStates<'s>,
    pool: &'a mut TextPool,
    /// Asked whether to stop the search (`Expander::interrupt`).
    interrupt: Option<&'i mut dyn FnMut() -> R<bool>>,
}

impl FlatSearch<'_> {
    /// Runs the search; `interrupt`, when given, is asked once whether to
    /// stop, when the states `Bfs::interrupt_at` set are reached.
    fn run(
        &mut self,
        pool: &mut TextPool,
        interrupt: Option<&mut dyn FnMut() -> R<bool>>,
    ) -> R<Ended> {
        let mut probing = Probing {
            states: &mut self.engine,
            pool,
            interrupt,
        };
        // The engine failing its own check is a failed self-check, which
        // callers report, not a step to leave to the interpreter.
        self.bfs
            .run(&mut probing, self.task_horizon)
            .map_err(|e| match e {
                ProveError::Flat(FlatError::Unfaithful(why)) => {
                    ProveError::self_check(&self.engine.task, why.to_string())
                }
                e => e,
            })
    }

    /// The candidate indices from the initial state to success.
    fn witness(&self, node: u32, last: usize) -> Vec<usize> {
        let mut path = self.bfs.path(node);
        path.push(last);
        path
    }
}

impl bfs::Expander for Probing<'_, '_, '_> {
    type Label = usize;
    type Level = Level;
    type Error = ProveError;

    fn try_root(&mut self) -> R<u128> {
        let s = &mut *self.states;
        s.scratch.copy_from_slice(s.parent.state());
        clear_header(&mut s.scratch);
        // The engine holds the root with a zero header too, so that each
        // put-back can be checked against `scratch` whole.
        s.parent.load_for_search(&s.scratch, self.pool)?;
        s.root.clone_from(&s.scratch);
        s.loaded.clear();
        s.position = NO_PARENT;
        s.rebuilt.clear();
        s.changes.words.clear();
        s.pending = s.fingerprint.of(&s.scratch);
        Ok(s.pending)
    }

    fn load(&mut self, level: &mut Level, i: usize, _node: u32) -> R<()> {
        let s = &mut *self.states;
        let missing = || ProveError::compact("a frontier entry is missing");
        s.parent_fingerprint = *level.fingerprints.get(i).ok_or_else(missing)?;
        s.position = u32::try_from(i).map_err(|_| missing())?;
        // From the state loaded before to this one: its differences from
        // the initial state undone, this one's applied, each word written
        // into `scratch` and into the engine alike (a word in both lists
        // twice, the second time right).
        std::mem::swap(&mut s.loaded, &mut s.unloaded);
        s.loaded.clear();
        let words = s
            .rebuilt
            .rebuild(level, i, &s.root)
            .ok_or_else(|| ProveError::compact("a frontier state cannot be rebuilt"))?;
        let (scratch, root, unloaded, loaded) =
            (&mut s.scratch, &s.root, &s.unloaded, &mut s.loaded);
        s.parent.unprobe_with(|state| {
            for &j in unloaded {
                let w = word_at(root, j);
                set_word(scratch, j, w);
                set_word(state, j, w);
            }
            for (j, w) in words {
                set_word(scratch, j, w);
                set_word(state, j, w);
                loaded.push(j);
            }
        });
        let recall = Recall::Differs(&mut s.memo, &s.loaded);
        s.parent.show_loaded(self.pool, Some(recall))?;
        s.check_same("a load")?;
        s.page = u32_at(&s.scratch, s.page_at)?;
        Ok(())
    }

    fn candidates(&self) -> usize {
        self.states.parent.actions().len()
    }

    fn try_candidate(&mut self, k: usize, node: u32) -> R<Tried<usize>> {
        let s = &mut *self.states;
        let Some(&candidate) = s.parent.actions().get(k) else {
            return Ok(Tried::Skipped);
        };
        if s.pruned(&candidate) {
            return Ok(Tried::Skipped);
        }
        // The successor is read off the parent engine's bytes, which are
        // put back once the search settles it: no page is rendered for a
        // state merely reached.
        let probe = s.parent.probe(k, self.pool)?;
        s.note_refusal(&candidate, node, k);
        s.collect_changes()?;
        let keep = !probe.success && !probe.rejected && candidate.kind != ActionKind::Answer;
        if !keep {
            s.put_back()?;
            return Ok(match probe.success {
                true => Tried::Success(k),
                false => Tried::Dead,
            });
        }
        s.pending = s.fingerprint.after(s.parent_fingerprint, &s.changes.words);
        s.check_fingerprint()?;
        Ok(Tried::Successor(k, s.pending))
    }

    fn settle(&mut self, keep: Option<&mut Level>) -> R<()> {
        let s = &mut *self.states;
        if let Some(level) = keep {
            let step = s.changes.in_order().iter().map(|&(j, _, after)| (j, after));
            level.push(s.position, step, s.pending).ok_or_else(|| {
                ProveError::compact("a state with more words than a level indexes")
            })?;
        }
        s.put_back()
    }

    fn interrupt(&mut self) -> R<bool> {
        match self.interrupt.as_mut() {
            Some(ask) => ask(),
            None => Ok(false),
        }
    }
}

impl FlatStates<'_> {
    /// After a probe from `scratch`: the words it changed, found within
    /// the ranges the engine names as written (`FlatEnv::probe_writes`).
    /// A debug build also fails on a range past the state's end, as
    /// copying it back did: its bytes could be neither compared nor put
    /// back. (Checked in a second pass: the check inside the comparing
    /// closure cost release builds 5% of a proof.)
    fn collect_changes(&mut self) -> R<()> {
        let (changes, before, parent) = (&mut self.changes, &self.scratch, &self.parent);
        changes.begin(before.len());
        parent.probe_writes(before, |r| changes.look_in(before, parent.state(), r))?;
        if cfg!(debug_assertions) {
            let mut outside = None;
            parent.probe_writes(before, |r| {
                if r.end > before.len() {
                    outside = Some(r);
                }
            })?;
            if let Some(r) = outside {
                return Err(ProveError::self_check(
                    &self.task,
                    format!(
                        "a probe named bytes {}..{} outside the state",
                        r.start, r.end
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Puts back the expanded state after a probe: the old value of each
    /// word it changed ([`FlatStates::collect_changes`]), which costs what
    /// changed where copying back the ranges written costs what the probe
    /// may have touched. A debug build checks the whole state against
    /// `scratch`, which also proves the changes (and so the fingerprint
    /// update) saw every changed byte.
    fn put_back(&mut self) -> R<()> {
        let changed = &self.changes.words;
        self.parent.unprobe_with(|state| {
            for &(j, before, _) in changed {
                set_word(state, j, before);
            }
        });
        self.check_same("putting a probe's writes back")
    }

    /// In a debug build, that the engine holds `scratch` byte for byte.
    fn check_same(&self, after: &str) -> R<()> {
        if cfg!(debug_assertions) && self.parent.state() != self.scratch.as_slice() {
            return Err(ProveError::self_check(
                &self.task,
                format!("after {after} the engine's state is not the one expanded: a step wrote outside the bytes it named"),
            ));
        }
        Ok(())
    }

    /// In a sweep, a marker refusal by an invariant of the last probe, if
    /// its (marker, invariant) pair is new.
    fn note_refusal(&mut self, candidate: &FlatAction, node: u32, k: usize) {
        let Some(refusals) = &mut self.refusals else {
            return;
        };
        let Some(MarkerRejection::Invariant { index }) = self.parent.probe_refusal() else {
            return;
        };
        let elements = &self.parent.structure().elements;
        let Some(HandleWords::Marker(m, _)) = elements
            .get(candidate.element.wrapping_sub(1))
            .map(|e| &e.handle)
        else {
            return;
        };
        if !refusals
            .iter()
            .any(|r| r.marker == *m && r.invariant == index)
        {
            refusals.push(Refusal {
                marker: *m,
                invariant: index,
                node,
                candidate: k,
            });
        }
    }

    /// In a debug build, every 16th successor's fingerprint recomputed
    /// from every word and compared with the update's.
    fn check_fingerprint(&mut self) -> R<()> {
        if !cfg!(debug_assertions) {
            return Ok(());
        }
        self.checked += 1;
        if self.checked.is_multiple_of(16)
            && self.fingerprint.of(self.parent.state()) != self.pending
        {
            return Err(ProveError::self_check(
                &self.task,
                "a successor's updated fingerprint differs from its recomputed one".into(),
            ));
        }
        Ok(())
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

#[cfg(test)]
mod tests;
