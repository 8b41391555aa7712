//! The exact distance oracle behind the decomposed reward (docs/training.md,
//! "Decomposed reward"; LANGUAGE §5.3 semantics, §5.5 state identity).
//!
//! For a state s with r steps left, d(s) is the length of a shortest action
//! sequence from s that ends in success within r steps, and O(s) the
//! candidate actions that begin one. Both come from a breadth-first search
//! over the exact `Env` semantics (`Env::successor`, the prover's own step),
//! with states told apart by the fingerprint every search uses
//! (`crate::identity`); nothing is pruned (a pruned action could still
//! navigate). The search keeps every edge from one
//! layer into the next, so once the first successes appear at depth D, the
//! states on shortest paths are exactly those with a layered path to a
//! success, and each such state u at depth i has d(u) = D − i with O(u) its
//! layer edges into such states. All of them are memoized by fingerprint
//! (the distance without a horizon, which a later query compares with its
//! own remaining steps), so an agent that follows good paths costs no new
//! search; a search that ends without success memoizes a lower bound.
//! Past the state budget the answer is [`Distance::Unknown`], never a guess.

use super::{Action, ActionKind, Env, TaskInstance};
use crate::identity::{fingerprint, tells_visited, Prehashed};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex};

/// Distinct states one query may explore before its answer is unknown.
pub const DEFAULT_ORACLE_BUDGET: usize = 200_000;

/// Memo entries kept before the memo is cleared (bounds a long run's memory;
/// only speed depends on it, never an answer).
const MEMO_CAP: usize = 1_000_000;

/// d(s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distance {
    /// The fewest steps that end in success.
    Steps(u32),
    /// No sequence within the remaining steps ends in success (d = ∞).
    Unreachable,
    /// The state budget ran out before the search decided.
    Unknown,
}

/// The oracle's answer for one state: d(s) and O(s) (empty unless `Steps`),
/// in candidate order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortest {
    pub distance: Distance,
    pub optimal: Vec<Action>,
}

impl Shortest {
    fn without(distance: Distance) -> Shortest {
        Shortest {
            distance,
            optimal: Vec::new(),
        }
    }
}

/// What the memo knows of a state, whatever the steps left.
#[derive(Clone, Debug)]
enum Known {
    /// The shortest distance to success, and the actions that begin a
    /// shortest sequence.
    Exact { steps: u32, optimal: Vec<Action> },
    /// No sequence of at most this many steps ends in success.
    Beyond(u32),
}

/// The oracle of one task instance, with its memo; share it between the
/// episodes of that instance ([`SharedOracle`]).
#[derive(Debug)]
pub struct DistanceOracle {
    budget: usize,
    instance: Option<TaskInstance>,
    memo: HashMap<u128, Known, BuildHasherDefault<Prehashed>>,
    searches: usize,
    explored: usize,
}

/// An oracle shared by the environments of one instance.
pub type SharedOracle = Arc<Mutex<DistanceOracle>>;

/// One state reached by a query's search.
struct Node {
    depth: u32,
    fingerprint: u128,
    /// Candidates leading to a state first reached one layer deeper.
    edges: Vec<(Action, u32)>,
    /// Candidates that end in success.
    wins: Vec<Action>,
}

impl DistanceOracle {
    /// An oracle that explores at most `budget` distinct states per query.
    pub fn new(budget: usize) -> DistanceOracle {
        DistanceOracle {
            budget: budget.max(1),
            instance: None,
            memo: HashMap::default(),
            searches: 0,
            explored: 0,
        }
    }

    /// [`DistanceOracle::new`], ready to share.
    pub fn shared(budget: usize) -> SharedOracle {
        Arc::new(Mutex::new(DistanceOracle::new(budget)))
    }

    /// Searches run so far (memo misses).
    pub fn searches(&self) -> usize {
        self.searches
    }

    /// Distinct states those searches reached, in all (what they cost).
    pub fn explored(&self) -> usize {
        self.explored
    }

    /// d and O of `env`'s current state, with the steps its horizon leaves.
    pub fn query(&mut self, env: &Env<'_>) -> Shortest {
        if env.done() {
            return Shortest::without(Distance::Unreachable);
        }
        if self.instance.as_ref() != Some(env.instance()) {
            // A memo only holds for the instance it was filled by.
            self.memo.clear();
            self.instance = Some(env.instance().clone());
        }
        let remaining = env.task().horizon.saturating_sub(env.steps());
        let with_visited = tells_visited(env.task());
        let root = fingerprint(env.state(), with_visited);
        match self.memo.get(&root) {
            Some(Known::Exact { steps, optimal }) if *steps <= remaining => {
                return Shortest {
                    distance: Distance::Steps(*steps),
                    optimal: optimal.clone(),
                }
            }
            Some(Known::Exact { .. }) => return Shortest::without(Distance::Unreachable),
            Some(Known::Beyond(n)) if *n >= remaining => {
                return Shortest::without(Distance::Unreachable)
            }
            _ => {}
        }
        if remaining == 0 {
            return Shortest::without(Distance::Unreachable);
        }
        if self.memo.len() > MEMO_CAP {
            self.memo.clear();
        }
        self.searches += 1;
        self.search(env, remaining, root, with_visited)
    }

    /// The layered search from `env`'s state, at most `remaining` steps deep.
    fn search(
        &mut self,
        env: &Env<'_>,
        remaining: u32,
        root: u128,
        with_visited: bool,
    ) -> Shortest {
        let mut scratch = env.detached();
        let mut nodes = vec![Node {
            depth: 0,
            fingerprint: root,
            edges: Vec::new(),
            wins: Vec::new(),
        }];
        let mut index: HashMap<u128, u32, BuildHasherDefault<Prehashed>> = HashMap::default();
        index.insert(root, 0);
        let mut frontier = vec![(0u32, env.state().clone())];
        for depth in 0..remaining {
            let mut next = Vec::new();
            let mut found = false;
            for (id, state) in frontier {
                scratch.load(state);
                for action in scratch.actions().to_vec() {
                    let Ok(succ) = scratch.successor(&action) else {
                        continue;
                    };
                    if succ.success {
                        push_win(&mut nodes, id, action);
                        found = true;
                        continue;
                    }
                    // A rejected step keeps the state; a wrong answer ends
                    // the episode; past a success nothing deeper matters.
                    if found || succ.rejected || action.kind == ActionKind::Answer {
                        continue;
                    }
                    let fp = fingerprint(&succ.state, with_visited);
                    let target = match index.get(&fp) {
                        Some(&t) if layer_of(&nodes, t) == Some(depth + 1) => t,
                        Some(_) => continue,
                        None if nodes.len() >= self.budget => {
                            // Layers 0..depth held no success: d > depth.
                            self.bound(root, depth);
                            return Shortest::without(Distance::Unknown);
                        }
                        None => {
                            let t = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
                            nodes.push(Node {
                                depth: depth + 1,
                                fingerprint: fp,
                                edges: Vec::new(),
                                wins: Vec::new(),
                            });
                            index.insert(fp, t);
                            self.explored += 1;
                            next.push((t, succ.state));
                            t
                        }
                    };
                    push_edge(&mut nodes, id, action, target);
                }
            }
            if found {
                return self.conclude(&nodes, depth + 1);
            }
            if next.is_empty() {
                // Every reachable state was seen and none succeeds.
                for n in &nodes {
                    self.bound(n.fingerprint, u32::MAX);
                }
                return Shortest::without(Distance::Unreachable);
            }
            frontier = next;
        }
        self.bound(root, remaining);
        Shortest::without(Distance::Unreachable)
    }

    /// Memoizes the states on shortest paths of a search whose first
    /// successes lie at depth `shortest`; returns the root's answer.
    fn conclude(&mut self, nodes: &[Node], shortest: u32) -> Shortest {
        let last = shortest - 1;
        let mut good = vec![false; nodes.len()];
        // Nodes are numbered in breadth-first order and every edge goes one
        // layer deeper, so a reverse pass sees each target before its source.
        for (id, n) in nodes.iter().enumerate().rev() {
            let on_path = if n.depth == last {
                !n.wins.is_empty()
            } else {
                n.depth < last && n.edges.iter().any(|(_, t)| flag(&good, *t))
            };
            if let Some(g) = good.get_mut(id) {
                *g = on_path;
            }
        }
        for (id, n) in nodes.iter().enumerate() {
            if !flag(&good, id as u32) {
                continue;
            }
            let optimal = if n.depth == last {
                n.wins.clone()
            } else {
                n.edges
                    .iter()
                    .filter(|(_, t)| flag(&good, *t))
                    .map(|(a, _)| a.clone())
                    .collect()
            };
            self.memo.insert(
                n.fingerprint,
                Known::Exact {
                    steps: shortest - n.depth,
                    optimal,
                },
            );
        }
        match nodes.first().map(|n| self.memo.get(&n.fingerprint)) {
            Some(Some(Known::Exact { steps, optimal })) => Shortest {
                distance: Distance::Steps(*steps),
                optimal: optimal.clone(),
            },
            _ => Shortest::without(Distance::Unknown),
        }
    }

    /// Records that no sequence of at most `steps` steps from `state`
    /// succeeds (keeping a larger bound or an exact distance).
    fn bound(&mut self, state: u128, steps: u32) {
        match self.memo.get(&state) {
            Some(Known::Exact { .. }) => {}
            Some(Known::Beyond(n)) if *n >= steps => {}
            _ => {
                self.memo.insert(state, Known::Beyond(steps));
            }
        }
    }
}

fn layer_of(nodes: &[Node], id: u32) -> Option<u32> {
    nodes.get(id as usize).map(|n| n.depth)
}

fn flag(good: &[bool], id: u32) -> bool {
    good.get(id as usize).copied().unwrap_or(false)
}

fn push_win(nodes: &mut [Node], id: u32, action: Action) {
    if let Some(n) = nodes.get_mut(id as usize) {
        n.wins.push(action);
    }
}

fn push_edge(nodes: &mut [Node], id: u32, action: Action, target: u32) {
    if let Some(n) = nodes.get_mut(id as usize) {
        n.edges.push((action, target));
    }
}
