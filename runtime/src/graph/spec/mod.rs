//! The knowledge spec of a site (issue 18; WebFactory's "knowledge spec"):
//! every page's route, parameters, guards and semantics ([`page`]), every
//! marker's `requires` and effects, the navigation graph with its edges and
//! guards ([`super::ir_graph`]), the unreachable pages and dead-end regions,
//! each page's dominators, and the canonical flows mined from marker triggers.
//!
//! The facts about navigation come from the navigation graph, which ignores
//! data and conditions (see [`super`]): unreachable, dead-end and dominator
//! facts hold for every episode; a flow's page path is a shortest path in the
//! graph — a plan to try, not a proven witness (the prover gives those).
//! Fields serialise in declaration order, lists in page/marker/document
//! order: the same program gives the same bytes.

pub mod page;

use super::expr_text::{self, Names};
use super::ir_graph::{self, element_key, NavEdge, SiteGraph};
use super::{dead_end_regions, dominators, path_to, reachable, shortest_paths};
use crate::ir::reads::block_gos;
use crate::ir::{self, ElementKind, PageId, Permission, Program};
use petgraph::graph::NodeIndex;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct KnowledgeSpec {
    pub site: Site,
    pub pages: Vec<Page>,
    pub markers: Vec<Marker>,
    pub graph: Graph,
    pub flows: Vec<Flow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Site {
    pub name: String,
    pub title: String,
    pub domain: String,
    pub start: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Param {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
}

/// `guard holds else redirect`
#[derive(Clone, Debug, Serialize)]
pub struct Guard {
    pub holds: String,
    pub redirect: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Page {
    pub name: String,
    pub route: String,
    pub params: Vec<Param>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub guards: Vec<Guard>,
    /// Edges from the start to here in the navigation graph; `None`: unreachable.
    pub depth: Option<usize>,
    /// The pages every navigation from the start to this page shows, start
    /// first, this page last (empty when unreachable).
    pub dominators: Vec<String>,
    #[serde(flatten)]
    pub semantics: page::Semantics,
}

/// A button that triggers a marker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Trigger {
    pub page: String,
    pub element: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Marker {
    pub name: String,
    pub params: Vec<Param>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    /// The pages its `go`s lead to (none: the page re-renders).
    pub goes_to: Vec<String>,
    pub triggered_by: Vec<Trigger>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_extern: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
    #[serde(flatten)]
    pub edge: NavEdge,
}

#[derive(Clone, Debug, Serialize)]
pub struct Graph {
    /// The pages an episode starts on: the start page and its redirects.
    pub starts: Vec<String>,
    pub edges: Vec<Edge>,
    pub unreachable: Vec<String>,
    /// Sets of pages that, once entered, never lead out again (see
    /// [`super::dead_end_regions`]).
    pub dead_end_regions: Vec<Vec<String>>,
}

/// browse → detail → act → confirm: a shortest page path from the start to a
/// page that triggers `marker`, then where its `go` leads.
#[derive(Clone, Debug, Serialize)]
pub struct Flow {
    pub marker: String,
    /// From a start page to `trigger.page`, both included.
    pub path: Vec<String>,
    pub trigger: Trigger,
    /// Where the marker's `go`s lead (several for `go`s in branches; the
    /// trigger page itself when it has none).
    pub then: Vec<String>,
}

/// The knowledge spec of `program`.
pub fn knowledge_spec(program: &Program) -> KnowledgeSpec {
    let graph = ir_graph::build(program);
    let starts = ir_graph::starts(program, &graph);
    let tree = shortest_paths(&graph, &starts);
    let doms = dominators(&graph, &starts);
    let name = |i: NodeIndex| page_name_at(program, &graph, i);
    let pages = program
        .pages
        .iter()
        .enumerate()
        .map(|(id, def)| {
            let node = graph.node(&page_id(id));
            let depth = node.and_then(|n| tree.get(&n)).map(|r| r.depth);
            let dominators = node
                .and_then(|n| doms.get(&n))
                .map(|chain| chain.iter().map(|&d| name(d)).collect())
                .unwrap_or_default();
            page_spec(program, def, depth, dominators)
        })
        .collect();
    let seen = reachable(&graph, &starts);
    let nav = Graph {
        starts: starts.iter().map(|&s| name(s)).collect(),
        edges: graph
            .edges()
            .map(|(from, to, edge)| Edge {
                from: name(from),
                to: name(to),
                edge: edge.clone(),
            })
            .collect(),
        unreachable: graph
            .pages()
            .filter(|(i, _)| !seen.contains(i))
            .map(|(i, _)| name(i))
            .collect(),
        dead_end_regions: dead_end_regions(&graph, &starts)
            .into_iter()
            .map(|r| r.into_iter().map(name).collect())
            .collect(),
    };
    let markers: Vec<Marker> = program
        .markers
        .iter()
        .enumerate()
        .map(|(id, m)| marker_spec(program, m, triggers(program, id)))
        .collect();
    let flows = markers
        .iter()
        .filter_map(|m| flow(program, &graph, &tree, m))
        .collect();
    KnowledgeSpec {
        site: Site {
            name: program.site.name.clone(),
            title: program.site.title.clone(),
            domain: program.site.domain.clone(),
            start: expr_text::page_call(program, &Names::default(), &program.site.start),
        },
        pages,
        markers,
        graph: nav,
        flows,
    }
}

fn page_id(index: usize) -> PageId {
    PageId::try_from(index).unwrap_or(PageId::MAX)
}

fn page_name_at(program: &Program, graph: &SiteGraph, i: NodeIndex) -> String {
    graph
        .page(i)
        .map_or("?", |&p| expr_text::page_name(program, p))
        .to_string()
}

fn params(program: &Program, params: &[ir::ParamDef]) -> Vec<Param> {
    params
        .iter()
        .map(|p| Param {
            name: p.name.clone(),
            ty: page::ty_text(program, &p.ty),
        })
        .collect()
}

fn page_spec(
    program: &Program,
    def: &ir::PageDef,
    depth: Option<usize>,
    dominators: Vec<String>,
) -> Page {
    let names = Names::params(&def.params);
    let route = match &def.route {
        Some(parts) => expr_text::text(program, &names, parts),
        None => def
            .params
            .iter()
            .fold(format!("/{}", crate::env::snake_case(&def.name)), |r, p| {
                format!("{r}/{{{}}}", p.name)
            }),
    };
    Page {
        name: def.name.clone(),
        route,
        params: params(program, &def.params),
        title: def
            .title
            .as_ref()
            .map(|t| expr_text::text(program, &names, t)),
        guards: def
            .guards
            .iter()
            .map(|g| Guard {
                holds: expr_text::expr(program, &names, &g.cond),
                redirect: expr_text::page_call(program, &names, &g.redirect),
            })
            .collect(),
        depth,
        dominators,
        semantics: page::semantics(program, def),
    }
}

/// Every button that triggers marker `id`, in page then document order.
fn triggers(program: &Program, id: usize) -> Vec<Trigger> {
    let mut out = Vec::new();
    for page in &program.pages {
        ir_graph::visit_elements(page, &mut |v| {
            if let ElementKind::Button {
                action: ir::Action::Marker { marker, .. },
                ..
            } = &v.element.kind
            {
                if *marker as usize == id {
                    out.push(Trigger {
                        page: page.name.clone(),
                        element: element_key(page, v.element),
                    });
                }
            }
        });
    }
    out
}

fn marker_spec(program: &Program, m: &ir::MarkerDef, triggered_by: Vec<Trigger>) -> Marker {
    let names = Names::params(&m.params);
    let perms = |ps: &[Permission]| ps.iter().map(|p| permission(program, p)).collect();
    let mut goes_to: Vec<String> = Vec::new();
    for call in block_gos(&m.body) {
        let to = expr_text::page_name(program, call.page).to_string();
        if !goes_to.contains(&to) {
            goes_to.push(to);
        }
    }
    Marker {
        name: m.name.clone(),
        params: params(program, &m.params),
        requires: m
            .requires
            .iter()
            .map(|r| expr_text::expr(program, &names, &r.cond))
            .collect(),
        reads: perms(&m.reads),
        writes: perms(&m.writes),
        goes_to,
        triggered_by,
        is_extern: m.is_extern,
    }
}

/// `T`, `T.field` or `session.var`.
fn permission(program: &Program, p: &Permission) -> String {
    match p {
        Permission::Table(t) => expr_text::table_name(program, *t).to_string(),
        Permission::Field(t, f) => expr_text::field_name(program, *t, *f),
        Permission::Session(s) => format!(
            "session.{}",
            program
                .session
                .get(*s as usize)
                .map_or("?", |d| d.name.as_str())
        ),
    }
}

/// The flow of marker `m`: the trigger on the shallowest reachable page (ties
/// by page, then document order), the path there, and where `go` leads.
fn flow(
    program: &Program,
    graph: &SiteGraph,
    tree: &std::collections::BTreeMap<NodeIndex, super::Reached>,
    m: &Marker,
) -> Option<Flow> {
    let page_node = |name: &str| {
        let id = program.pages.iter().position(|p| p.name == name)?;
        graph.node(&page_id(id))
    };
    let (node, trigger) = m
        .triggered_by
        .iter()
        .filter_map(|t| {
            let n = page_node(&t.page)?;
            Some((tree.get(&n)?.depth, n, t))
        })
        .min_by_key(|(depth, n, _)| (*depth, *n))
        .map(|(_, n, t)| (n, t.clone()))?;
    let path = path_to(tree, node)
        .into_iter()
        .map(|n| page_name_at(program, graph, n))
        .collect();
    let then = if m.goes_to.is_empty() {
        vec![trigger.page.clone()]
    } else {
        m.goes_to.clone()
    };
    Some(Flow {
        marker: m.name.clone(),
        path,
        trigger,
        then,
    })
}
