//! The navigation graph (spec §2.2 links and buttons, §2.3 marker `go`, §3 page
//! guards) and the analyses over it, in one place for the compiler's structural
//! lints (fed from the AST, so they work on files that do not compile), the
//! knowledge spec and the site map (fed from the IR, [`ir_graph`]).
//!
//! [`NavGraph`] is a petgraph `DiGraph` whose nodes are pages (any ordered key)
//! and whose edges carry what created them; nodes and edges keep their insertion
//! order, so every analysis here is deterministic. The graph over-approximates
//! navigation: an edge exists whatever the data, `disabled when` or `requires`
//! say, and there is no "back" action (§5.3). Every fact below is therefore
//! exact for real episodes in the direction it is stated: a page the graph does
//! not reach is unreachable, a region the graph cannot leave cannot be left, and
//! a page every graph path passes is passed by every episode that gets there.
//! This module owns no site semantics (what an edge is, which page starts):
//! builders decide that.

pub mod draw;
pub mod expr_text;
pub mod ir_graph;
pub mod spec;

use petgraph::algo::{dominators::simple_fast, tarjan_scc};
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::{Dfs, EdgeRef};
use petgraph::Direction;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub use petgraph::graph::NodeIndex as PageIx;

/// Pages keyed by `N`, edges carrying `E`, both in insertion order.
#[derive(Clone, Debug)]
pub struct NavGraph<N, E> {
    graph: DiGraph<N, E>,
    index: BTreeMap<N, NodeIndex>,
}

impl<N: Ord + Clone, E> Default for NavGraph<N, E> {
    fn default() -> Self {
        NavGraph {
            graph: DiGraph::new(),
            index: BTreeMap::new(),
        }
    }
}

impl<N: Ord + Clone, E> NavGraph<N, E> {
    /// The page `n`'s node, added if it is new.
    pub fn add_page(&mut self, n: N) -> NodeIndex {
        if let Some(&i) = self.index.get(&n) {
            return i;
        }
        let i = self.graph.add_node(n.clone());
        self.index.insert(n, i);
        i
    }

    /// An edge `from → to` (pages added if new), after every earlier one.
    pub fn add_edge(&mut self, from: N, to: N, edge: E) -> EdgeIndex {
        let (a, b) = (self.add_page(from), self.add_page(to));
        self.graph.add_edge(a, b, edge)
    }

    /// The node of page `n`, if it is in the graph.
    pub fn node(&self, n: &N) -> Option<NodeIndex> {
        self.index.get(n).copied()
    }
}

impl<N, E> NavGraph<N, E> {
    /// The page at node `i` (`None` for a node of another graph).
    pub fn page(&self, i: NodeIndex) -> Option<&N> {
        self.graph.node_weight(i)
    }

    /// Every page, in insertion order.
    pub fn pages(&self) -> impl Iterator<Item = (NodeIndex, &N)> {
        self.graph
            .node_indices()
            .filter_map(|i| Some((i, self.graph.node_weight(i)?)))
    }

    pub fn page_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Every edge as (from, to, payload), in insertion order.
    pub fn edges(&self) -> impl Iterator<Item = (NodeIndex, NodeIndex, &E)> {
        self.graph
            .edge_references()
            .map(|e| (e.source(), e.target(), e.weight()))
    }

    /// The edges leaving `i` as (to, payload), in insertion order (petgraph
    /// lists them newest first).
    pub fn out(&self, i: NodeIndex) -> Vec<(NodeIndex, &E)> {
        let mut out: Vec<_> = self
            .graph
            .edges_directed(i, Direction::Outgoing)
            .map(|e| (e.id(), e.target(), e.weight()))
            .collect();
        out.sort_by_key(|(id, _, _)| *id);
        out.into_iter().map(|(_, to, e)| (to, e)).collect()
    }

    /// Whether some edge leads from `i` to another page (self-loops lead
    /// nowhere new).
    pub fn has_exit(&self, i: NodeIndex) -> bool {
        self.graph.neighbors(i).any(|to| to != i)
    }

    /// The petgraph graph itself, for analyses not offered here.
    pub fn petgraph(&self) -> &DiGraph<N, E> {
        &self.graph
    }
}

/// Every page reachable from `starts` (themselves included).
pub fn reachable<N, E>(g: &NavGraph<N, E>, starts: &[NodeIndex]) -> BTreeSet<NodeIndex> {
    let mut seen = BTreeSet::new();
    let mut dfs = Dfs::empty(&g.graph);
    for &s in starts {
        if g.page(s).is_none() {
            continue;
        }
        dfs.move_to(s);
        while let Some(n) = dfs.next(&g.graph) {
            seen.insert(n);
        }
    }
    seen
}

/// How a breadth-first walk from the starts first reached a page: its depth
/// and the edge it came by (`None` for a start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reached {
    pub depth: usize,
    pub via: Option<(NodeIndex, EdgeIndex)>,
}

/// Shortest paths (in edges) from `starts`: for each reachable page, its depth
/// and predecessor. Edges are tried in insertion order, so ties go to the
/// first-written edge.
pub fn shortest_paths<N, E>(
    g: &NavGraph<N, E>,
    starts: &[NodeIndex],
) -> BTreeMap<NodeIndex, Reached> {
    let mut tree = BTreeMap::new();
    let mut queue = VecDeque::new();
    for &s in starts {
        if g.page(s).is_some() && !tree.contains_key(&s) {
            tree.insert(
                s,
                Reached {
                    depth: 0,
                    via: None,
                },
            );
            queue.push_back(s);
        }
    }
    while let Some(at) = queue.pop_front() {
        let depth = tree.get(&at).map_or(0, |r: &Reached| r.depth) + 1;
        let mut out: Vec<_> = g.graph.edges(at).map(|e| (e.id(), e.target())).collect();
        out.sort();
        for (edge, to) in out {
            if let std::collections::btree_map::Entry::Vacant(v) = tree.entry(to) {
                v.insert(Reached {
                    depth,
                    via: Some((at, edge)),
                });
                queue.push_back(to);
            }
        }
    }
    tree
}

/// The page path from a start to `to` along [`shortest_paths`]'s tree (empty
/// when `to` is unreachable).
pub fn path_to(tree: &BTreeMap<NodeIndex, Reached>, to: NodeIndex) -> Vec<NodeIndex> {
    let mut path = Vec::new();
    let mut at = Some(to);
    while let Some(n) = at {
        let Some(r) = tree.get(&n) else {
            return Vec::new();
        };
        path.push(n);
        at = r.via.map(|(from, _)| from);
        if path.len() > tree.len() {
            break; // cannot happen in a BFS tree; guards against a cycle anyway
        }
    }
    path.reverse();
    path
}

/// Dead-end regions: the strongly connected components no edge leaves (sinks
/// of the condensation) that hold none of the `starts`. Once an episode enters
/// one, it can never reach a page outside it again — in particular not the
/// start. A single page with no way out (S103) is a region of one. Each region
/// lists its pages in node order; regions are ordered by their first page.
pub fn dead_end_regions<N, E>(g: &NavGraph<N, E>, starts: &[NodeIndex]) -> Vec<Vec<NodeIndex>> {
    let mut regions: Vec<Vec<NodeIndex>> = tarjan_scc(&g.graph)
        .into_iter()
        .map(|mut scc| {
            scc.sort();
            scc
        })
        .filter(|scc| {
            let inside: BTreeSet<_> = scc.iter().copied().collect();
            let closed = scc
                .iter()
                .all(|&n| g.graph.neighbors(n).all(|to| inside.contains(&to)));
            closed && !starts.iter().any(|s| inside.contains(s))
        })
        .collect();
    regions.sort();
    regions
}

/// For each page reachable from `starts`, its dominators: the pages every
/// path from a start to it passes, from the start side to the page itself
/// (both included). With several starts, a path may begin at any of them, so
/// only pages common to all ways in are listed.
pub fn dominators<N, E>(
    g: &NavGraph<N, E>,
    starts: &[NodeIndex],
) -> BTreeMap<NodeIndex, Vec<NodeIndex>> {
    // A virtual root before the starts gives one entry for petgraph's
    // algorithm; node indices survive `map`, and the root is dropped again.
    let mut shape: DiGraph<(), ()> = g.graph.map(|_, _| (), |_, _| ());
    let root = shape.add_node(());
    for &s in starts {
        if g.page(s).is_some() {
            shape.add_edge(root, s, ());
        }
    }
    let doms = simple_fast(&shape, root);
    let mut out = BTreeMap::new();
    for n in g.graph.node_indices() {
        let Some(chain) = doms.dominators(n) else {
            continue;
        };
        let mut chain: Vec<NodeIndex> = chain.filter(|&d| d != root).collect();
        chain.reverse();
        out.insert(n, chain);
    }
    out
}

#[cfg(test)]
mod tests;
