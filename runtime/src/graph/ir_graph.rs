//! The navigation graph of a compiled program (spec §2.2–§2.3, §3 page
//! guards), built from the IR for the knowledge spec and the site map.
//!
//! Nodes are pages. A link or a navigating button gives an edge to its target
//! page; a marker button gives an edge to the page of every `go` anywhere in the
//! marker's body (`if` branches and loops included). Navigating to a guarded
//! page may land on its `else` page instead (§3), so each such edge comes with
//! a `guard` edge from the same element to every page a guard may redirect to,
//! followed through guarded `else` pages. The start page's redirects are starts
//! too ([`starts`]). Edges go in page order, then document order.

use super::expr_text::{self, Names};
use super::NavGraph;
use crate::ir::reads::block_gos;
use crate::ir::{self, Element, ElementKind, PageId, Program};
use petgraph::graph::NodeIndex;
use serde::Serialize;

/// What created an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    Link,
    /// A button naming a page.
    Button,
    /// A `go` in the body of the marker a button triggers.
    Marker,
    /// A page guard's redirect, taken instead of the edge to the guarded page.
    Guard,
}

/// A page guard that redirected: navigating to `page` lands elsewhere unless
/// `holds`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Redirect {
    pub page: String,
    pub holds: String,
}

/// One edge of the site's navigation graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NavEdge {
    pub kind: EdgeKind,
    /// The stable key of the element (§2.2): `#name` or `Page:line:column`;
    /// inside loops the runtime adds `[binder=id,…]` (see `loops`).
    pub element: String,
    /// The binders of the loops around the element, outermost first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<String>,
    /// The element's label, as source text.
    pub label: String,
    /// The marker the button triggers (marker edges, and guard edges after one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    /// The element's `disabled when` condition, as source text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled_when: Option<String>,
    /// For a guard edge: the guard that sends the episode here when false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<Redirect>,
}

pub type SiteGraph = NavGraph<PageId, NavEdge>;

/// An element as the walk meets it: the names in scope and its loops.
pub struct Visit<'a> {
    pub element: &'a Element,
    pub names: &'a Names,
    pub loops: &'a [String],
}

/// Calls `f` on every element of `page` in document order (inside sections,
/// loops and both branches of conditions), with loop binders named.
pub fn visit_elements(page: &ir::PageDef, f: &mut dyn FnMut(&Visit<'_>)) {
    fn walk(
        els: &[Element],
        names: &Names,
        loops: &mut Vec<String>,
        f: &mut dyn FnMut(&Visit<'_>),
    ) {
        for e in els {
            f(&Visit {
                element: e,
                names,
                loops,
            });
            match &e.kind {
                ElementKind::Section { body, .. } => walk(body, names, loops, f),
                ElementKind::If {
                    then, otherwise, ..
                } => {
                    walk(then, names, loops, f);
                    walk(otherwise, names, loops, f);
                }
                ElementKind::For(l) => {
                    let mut inner = names.clone();
                    let (slot, table) = match &l.source {
                        ir::LoopSource::Rows(scan) => (scan.binder, Some(scan.table)),
                        ir::LoopSource::List { slot, .. } => (*slot, None),
                    };
                    inner.bind(slot, &l.binder_name, table);
                    loops.push(l.binder_name.clone());
                    walk(&l.body, &inner, loops, f);
                    loops.pop();
                }
                _ => {}
            }
        }
    }
    walk(&page.body, &Names::params(&page.params), &mut Vec::new(), f);
}

/// `#name` or `Page:line:column` (§2.2), without the loop suffix.
pub fn element_key(page: &ir::PageDef, e: &Element) -> String {
    match &e.name {
        Some(n) => format!("#{n}"),
        None => format!("{}:{}:{}", page.name, e.pos.line, e.pos.column),
    }
}

/// Where navigating to `page` may land, with the guard that sent it there:
/// `page` itself (no redirect), then each guard's `else` page, followed
/// through guarded `else` pages, each once.
pub fn landings(program: &Program, page: PageId) -> Vec<(PageId, Option<Redirect>)> {
    let mut out: Vec<(PageId, Option<Redirect>)> = vec![(page, None)];
    let mut at = 0;
    while let Some(&(next, _)) = out.get(at) {
        at += 1;
        let Some(def) = program.pages.get(next as usize) else {
            continue;
        };
        let names = Names::params(&def.params);
        for guard in &def.guards {
            let to = guard.redirect.page;
            if program.pages.get(to as usize).is_some() && !out.iter().any(|(p, _)| *p == to) {
                let why = Redirect {
                    page: def.name.clone(),
                    holds: expr_text::expr(program, &names, &guard.cond),
                };
                out.push((to, Some(why)));
            }
        }
    }
    out
}

/// The pages an episode may begin on: the start page and its redirects.
pub fn starts(program: &Program, graph: &SiteGraph) -> Vec<NodeIndex> {
    landings(program, program.site.start.page)
        .into_iter()
        .filter_map(|(p, _)| graph.node(&p))
        .collect()
}

/// The navigation graph of `program`: every page a node (in page order),
/// every link, navigating button and marker `go` an edge (with guard edges).
pub fn build(program: &Program) -> SiteGraph {
    let mut graph = SiteGraph::default();
    for id in 0..program.pages.len() {
        graph.add_page(page_id(id));
    }
    for (id, page) in program.pages.iter().enumerate() {
        let from = page_id(id);
        visit_elements(page, &mut |v| {
            for (to, edge) in element_edges(program, page, v) {
                graph.add_edge(from, to, edge);
            }
        });
    }
    graph
}

fn page_id(index: usize) -> PageId {
    PageId::try_from(index).unwrap_or(PageId::MAX)
}

/// The edges one element creates, guard edges after the edge they replace.
fn element_edges(program: &Program, page: &ir::PageDef, v: &Visit<'_>) -> Vec<(PageId, NavEdge)> {
    let (label, kind, targets, marker, disabled) = match &v.element.kind {
        ElementKind::Link {
            label,
            target,
            disabled,
        } => (label, EdgeKind::Link, vec![target.page], None, disabled),
        ElementKind::Button {
            label,
            action: ir::Action::Go(target),
            disabled,
        } => (label, EdgeKind::Button, vec![target.page], None, disabled),
        ElementKind::Button {
            label,
            action: ir::Action::Marker { marker, .. },
            disabled,
        } => {
            let Some(def) = program.markers.get(*marker as usize) else {
                return Vec::new();
            };
            let gos = block_gos(&def.body).iter().map(|c| c.page).collect();
            (
                label,
                EdgeKind::Marker,
                gos,
                Some(def.name.clone()),
                disabled,
            )
        }
        _ => return Vec::new(),
    };
    let base = NavEdge {
        kind,
        element: element_key(page, v.element),
        loops: v.loops.to_vec(),
        label: expr_text::text(program, v.names, label),
        marker,
        disabled_when: disabled
            .as_ref()
            .map(|c| expr_text::expr(program, v.names, c)),
        guard: None,
    };
    let mut out = Vec::new();
    for target in targets {
        for (to, guard) in landings(program, target) {
            let edge = match guard {
                None => base.clone(),
                Some(g) => NavEdge {
                    kind: EdgeKind::Guard,
                    guard: Some(g),
                    ..base.clone()
                },
            };
            if !out.iter().any(|(t, e)| *t == to && *e == edge) {
                out.push((to, edge));
            }
        }
    }
    out
}
