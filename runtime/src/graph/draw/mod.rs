//! The site map: the knowledge spec's navigation graph drawn as Graphviz DOT
//! ([`dot`]) or as SVG laid out by our own code ([`svg`]), so no Graphviz is
//! needed. Both draw the same [`Map`]: pages as boxes (name and route), one
//! arrow per distinct (from, to, style, label) — a page linking to a product
//! from every row of a loop is one arrow — links and buttons solid, marker
//! edges dashed and labelled with the marker, guard redirects dotted and
//! labelled with the guard that must fail, `disabled when` conditions as
//! labels, dead-end regions filled, unreachable pages with a dashed border.

pub mod dot;
pub mod svg;

use super::ir_graph::EdgeKind;
use super::spec::{KnowledgeSpec, Page};
use std::collections::BTreeSet;

/// How an arrow is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Style {
    /// A link or a navigating button: solid.
    Nav,
    /// A marker's `go`: dashed.
    Marker,
    /// A page guard's redirect: dotted.
    Guard,
}

/// One arrow of the map, between page indices of the spec.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    pub style: Style,
    pub label: String,
}

/// How a page box is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Plain,
    /// In a dead-end region: filled.
    DeadEnd,
    /// Unreachable from the start: dashed border.
    Unreachable,
}

/// What both drawings show.
pub struct Map<'s> {
    pub title: &'s str,
    pub pages: &'s [Page],
    pub marks: Vec<Mark>,
    /// The dead-end regions, as page indices.
    pub regions: Vec<Vec<usize>>,
    pub arrows: Vec<Arrow>,
}

impl<'s> Map<'s> {
    pub fn new(spec: &'s KnowledgeSpec) -> Map<'s> {
        let index = |name: &str| spec.pages.iter().position(|p| p.name == name);
        let regions: Vec<Vec<usize>> = spec
            .graph
            .dead_end_regions
            .iter()
            .map(|r| r.iter().filter_map(|p| index(p)).collect())
            .collect();
        let marks = spec
            .pages
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if p.depth.is_none() {
                    Mark::Unreachable
                } else if regions.iter().any(|r| r.contains(&i)) {
                    Mark::DeadEnd
                } else {
                    Mark::Plain
                }
            })
            .collect();
        let mut seen = BTreeSet::new();
        let mut arrows = Vec::new();
        for e in &spec.graph.edges {
            let (Some(from), Some(to)) = (index(&e.from), index(&e.to)) else {
                continue;
            };
            let (style, mut parts) = match e.edge.kind {
                EdgeKind::Link | EdgeKind::Button => (Style::Nav, Vec::new()),
                EdgeKind::Marker => (Style::Marker, e.edge.marker.iter().cloned().collect()),
                EdgeKind::Guard => (Style::Guard, e.edge.marker.iter().cloned().collect()),
            };
            if let Some(g) = &e.edge.guard {
                parts.push(format!("unless {} ({})", g.holds, g.page));
            }
            if let Some(c) = &e.edge.disabled_when {
                parts.push(format!("disabled when {c}"));
            }
            let arrow = Arrow {
                from,
                to,
                style,
                label: parts.join("\n"),
            };
            if seen.insert(arrow.clone()) {
                arrows.push(arrow);
            }
        }
        Map {
            title: &spec.site.title,
            pages: &spec.pages,
            marks,
            regions,
            arrows,
        }
    }
}
