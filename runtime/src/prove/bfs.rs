//! The breadth-first search of §5.5, once, for both engines. [`Bfs`] owns
//! the order and the bookkeeping every verdict rests on: levels expanded in
//! the order they were reached, candidates in the page's order, a success
//! ending the search at once (before its state is deduplicated), a state
//! kept only when its fingerprint is new, the budget counted in distinct
//! states, and states first reached at the horizon counted but not expanded
//! (`cut_by_horizon`). A successor is stored only once the loop knows it is
//! new and below the horizon ([`Expander::settle`]): most successors of a
//! large space were seen before, and storing them only to drop them was
//! most of the flat search's copying. What a state is, how it is stored,
//! which candidates a page offers and what trying one does is the engine's
//! ([`Expander`]):
//! the interpreter's `Env` states (`search`) or the flat engine's compact
//! bytes (`flat`). Keeping one loop keeps the two provers' state counts,
//! depths and witnesses equal, which the flat prover's confirmation by the
//! explaining search demands.

use super::Verdict;
use crate::identity::Prehashed;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// How a search ended. `depth` is the number of steps fully explored.
pub(super) enum Ended<L> {
    /// Candidate `label` of node `node`'s state succeeds.
    Witness {
        node: u32,
        label: L,
        depth: u32,
    },
    Exhausted {
        depth: u32,
    },
    Budget {
        depth: u32,
    },
    /// The engine's [`Expander::interrupt`] stopped the search (only where
    /// [`Bfs::interrupt_at`] asked for it).
    Interrupted {
        depth: u32,
    },
}

impl<L> Ended<L> {
    /// The verdict the search's end amounts to (one stopped before its end
    /// decided nothing), and the depth it reached.
    pub(super) fn verdict(&self) -> (Verdict, u32) {
        match *self {
            Ended::Witness { depth, .. } => (Verdict::Feasible, depth),
            Ended::Exhausted { depth } => (Verdict::Infeasible, depth),
            Ended::Budget { depth } | Ended::Interrupted { depth } => (Verdict::Undecided, depth),
        }
    }

    /// Whether the search covered the whole space within the horizon.
    pub(super) fn complete(&self) -> bool {
        matches!(self, Ended::Witness { .. } | Ended::Exhausted { .. })
    }
}

/// A state reached: its parent node and the candidate taken there (no
/// parent and no label for the initial state).
pub(super) struct Node<L> {
    pub(super) parent: u32,
    pub(super) label: Option<L>,
}

/// What trying one candidate of the loaded state led to.
pub(super) enum Tried<L> {
    /// Not tried (pruned, avoided, or not applicable): nothing to record.
    Skipped,
    /// The goal holds after it: a witness.
    Success(L),
    /// Tried, but no state to keep (a rejected step or an answer).
    Dead,
    /// A successor, with its fingerprint, pending in the engine until the
    /// loop settles it.
    Successor(L, u128),
}

/// One level of stored states, in the order they were reached.
pub(super) trait Level: Default {
    /// Forgets every state, keeping the memory for the next level.
    fn clear(&mut self);
}

/// An engine the search runs on.
pub(super) trait Expander {
    /// How a candidate is named in a path.
    type Label;
    type Level: Level;
    type Error;
    /// The initial state's fingerprint; the state is pending, as a
    /// successor is, until [`Expander::settle`].
    fn try_root(&mut self) -> Result<u128, Self::Error>;
    /// Loads state `i` of `level` (node `node`) to expand it.
    fn load(&mut self, level: &mut Self::Level, i: usize, node: u32) -> Result<(), Self::Error>;
    /// The loaded state's candidates.
    fn candidates(&self) -> usize;
    /// Tries candidate `k` of the loaded state (node `node`). A
    /// [`Tried::Successor`] stays pending until [`Expander::settle`]; no
    /// other candidate is tried before.
    fn try_candidate(&mut self, k: usize, node: u32) -> Result<Tried<Self::Label>, Self::Error>;
    /// The pending successor is a new state, recorded as `node`.
    fn reached(&mut self, _node: u32) {}
    /// Ends the pending successor: stored as the last state of `keep`, or
    /// forgotten (already seen, or reached at the horizon) when `None`.
    fn settle(&mut self, keep: Option<&mut Self::Level>) -> Result<(), Self::Error>;
    /// Called once, between two expansions, when the search has reached
    /// the states [`Bfs::interrupt_at`] set; `true` stops it
    /// ([`Ended::Interrupted`]).
    fn interrupt(&mut self) -> Result<bool, Self::Error> {
        Ok(false)
    }
}

/// The search's bookkeeping: the tree of states reached and their
/// fingerprints.
pub(super) struct Bfs<L> {
    pub(super) nodes: Vec<Node<L>>,
    pub(super) seen: HashSet<u128, BuildHasherDefault<Prehashed>>,
    /// New states were still being found at the horizon.
    pub(super) cut_by_horizon: bool,
    /// Steps searched.
    horizon: u32,
    /// Distinct states allowed.
    budget: usize,
    /// Distinct states at which the engine is asked whether to stop
    /// (`usize::MAX`: never, or asked already).
    interrupt_at: usize,
}

impl<L> Bfs<L> {
    pub(super) fn new(horizon: u32, budget: usize) -> Bfs<L> {
        Bfs {
            nodes: Vec::new(),
            seen: HashSet::default(),
            cut_by_horizon: false,
            horizon,
            budget,
            interrupt_at: usize::MAX,
        }
    }

    /// Asks the engine once, when `states` distinct states are reached,
    /// whether to go on ([`Expander::interrupt`]).
    pub(super) fn interrupt_at(&mut self, states: usize) {
        self.interrupt_at = states;
    }

    pub(super) fn horizon(&self) -> u32 {
        self.horizon
    }

    /// Distinct states reached.
    pub(super) fn states(&self) -> usize {
        self.seen.len()
    }

    /// Searches from the engine's initial state; an exhausted space reports
    /// `exhausted_depth` (the task's horizon, whatever was searched).
    pub(super) fn run<E>(
        &mut self,
        engine: &mut E,
        exhausted_depth: u32,
    ) -> Result<Ended<L>, E::Error>
    where
        E: Expander<Label = L>,
    {
        let mut frontier = E::Level::default();
        self.seen.insert(engine.try_root()?);
        self.nodes.push(Node {
            parent: u32::MAX,
            label: None,
        });
        engine.reached(0);
        engine.settle(Some(&mut frontier))?;
        let mut ids = vec![0u32];
        // Two levels, swapped at each depth and cleared rather than dropped:
        // a level of a large space holds megabytes, and growing a fresh one
        // every depth spent more time copying and faulting in pages than
        // expanding states.
        let mut next = E::Level::default();
        let mut next_ids = Vec::new();
        for depth in 0..self.horizon {
            next.clear();
            next_ids.clear();
            for (i, &id) in ids.iter().enumerate() {
                engine.load(&mut frontier, i, id)?;
                if let Some(end) = self.expand(engine, id, depth, &mut next, &mut next_ids)? {
                    return Ok(end);
                }
                if self.seen.len() >= self.interrupt_at {
                    self.interrupt_at = usize::MAX;
                    if engine.interrupt()? {
                        return Ok(Ended::Interrupted { depth });
                    }
                }
            }
            if next_ids.is_empty() {
                break;
            }
            std::mem::swap(&mut frontier, &mut next);
            std::mem::swap(&mut ids, &mut next_ids);
        }
        Ok(Ended::Exhausted {
            depth: exhausted_depth,
        })
    }

    /// Tries every candidate of the loaded state (node `id`); new states go
    /// to `next`, their nodes to `next_ids`.
    fn expand<E>(
        &mut self,
        engine: &mut E,
        id: u32,
        depth: u32,
        next: &mut E::Level,
        next_ids: &mut Vec<u32>,
    ) -> Result<Option<Ended<L>>, E::Error>
    where
        E: Expander<Label = L>,
    {
        let last_level = depth + 1 >= self.horizon;
        for k in 0..engine.candidates() {
            let (label, fingerprint) = match engine.try_candidate(k, id)? {
                Tried::Skipped | Tried::Dead => continue,
                Tried::Success(label) => {
                    return Ok(Some(Ended::Witness {
                        node: id,
                        label,
                        depth: depth + 1,
                    }))
                }
                Tried::Successor(label, fingerprint) => (label, fingerprint),
            };
            if !self.seen.insert(fingerprint) {
                engine.settle(None)?;
                continue;
            }
            if self.seen.len() > self.budget {
                engine.settle(None)?;
                return Ok(Some(Ended::Budget { depth }));
            }
            let node = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
            self.nodes.push(Node {
                parent: id,
                label: Some(label),
            });
            engine.reached(node);
            if last_level {
                self.cut_by_horizon = true;
                engine.settle(None)?;
            } else {
                engine.settle(Some(next))?;
                next_ids.push(node);
            }
        }
        Ok(None)
    }

    /// The labels from the initial state to `node`.
    pub(super) fn path(&self, mut node: u32) -> Vec<L>
    where
        L: Clone,
    {
        let mut path = Vec::new();
        while let Some(n) = self.nodes.get(node as usize) {
            match &n.label {
                Some(label) => path.push(label.clone()),
                None => break,
            }
            node = n.parent;
        }
        path.reverse();
        path
    }
}
