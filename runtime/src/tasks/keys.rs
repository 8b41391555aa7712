//! Key nodes (INTERFACES "Tasks", §2.4 `key`): the pages and elements of a
//! task's witness that every successful episode must use. A witness node is
//! a key node iff the prover's search with that node forbidden
//! (`prove::verdict_avoiding`: never arriving at that page with those
//! arguments, never acting on that element) finds the instance infeasible
//! within its horizon — exact, like every verdict; a search that runs out of
//! budget leaves the node out (unknown is not necessary).
//!
//! Names: a page is `CafePage(3)` (its name and its arguments as shown, a row
//! by its id), an element its stable key without the `#` of a named one
//! (`search_box`), as in INTERFACES.md; [`page_node`] and [`element_node`]
//! are the one place these names are made.

use super::error::KeyNodesError;
use super::retrieval::strip;
use super::source::literal;
use crate::env::{Env, RewardConfig, TaskInstance};
use crate::ir::{self, Value};
use crate::prove::{resolve_step, verdict_avoiding, Avoid, Options, Verdict, WitnessStep};

/// One key node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyNode {
    /// `CafePage(3)` or `search_box`.
    pub name: String,
    /// The node in `.wsite` source (`CafePage(Cafe[3])`, `#search_box`);
    /// `None` for an element without a `#name`, which source cannot name.
    pub source: Option<String>,
}

/// `CafePage(3)`: a page and its argument values.
pub fn page_node(program: &ir::Program, page: ir::PageId, args: &[Value]) -> String {
    // Replay reads these names back (`--tasks FILE`): one writer for both.
    crate::replay::key_nodes::page_label(program, page, args)
}

/// An element's key node: its stable key, without the `#` of a named one.
pub fn element_node(key: &str) -> String {
    key.strip_prefix('#').unwrap_or(key).to_string()
}

/// The key nodes of a witness, and how many of its nodes the search could
/// not decide within its budget (left out: unknown is not necessary).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyNodes {
    pub nodes: Vec<KeyNode>,
    pub undecided: usize,
}

/// The key nodes of `witness`, in the order the witness first uses them.
pub fn key_nodes(
    program: &ir::Program,
    instance: &TaskInstance,
    witness: &[WitnessStep],
    options: Options,
) -> Result<KeyNodes, KeyNodesError> {
    let mut out = KeyNodes::default();
    for node in witness_nodes(program, instance, witness)? {
        let (avoid, name, source) = match node {
            Node::Page(page, args) => (
                Avoid {
                    pages: vec![(page, args.clone())],
                    keys: Vec::new(),
                },
                page_node(program, page, &args),
                page_source(program, page, &args),
            ),
            Node::Element(key) => (
                Avoid {
                    pages: Vec::new(),
                    keys: vec![key.clone()],
                },
                element_node(&key),
                key.starts_with('#').then(|| key.clone()),
            ),
        };
        match verdict_avoiding(program, instance, options, &avoid)? {
            Verdict::Infeasible => out.nodes.push(KeyNode { name, source }),
            Verdict::Undecided => out.undecided += 1,
            Verdict::Feasible => {}
        }
    }
    Ok(out)
}

enum Node {
    Page(ir::PageId, Vec<Value>),
    Element(String),
}

/// The pages the witness shows (the start page included) and the elements
/// it acts on, each once, in order.
fn witness_nodes(
    program: &ir::Program,
    instance: &TaskInstance,
    witness: &[WitnessStep],
) -> Result<Vec<Node>, KeyNodesError> {
    let mut env = Env::new(program, instance, RewardConfig::default())?;
    let mut pages: Vec<(ir::PageId, Vec<Value>)> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut note_page = |env: &Env<'_>, out: &mut Vec<Node>| {
        let nav = env.navigation();
        let here = (nav.page, nav.args.clone());
        if !pages.contains(&here) {
            pages.push(here.clone());
            out.push(Node::Page(here.0, here.1));
        }
    };
    note_page(&env, &mut out);
    for step in witness {
        let action = resolve_step(&env, step)?;
        if let Some(key) = step.key.as_ref().filter(|k| !keys.contains(k)) {
            keys.push(key.clone());
            out.push(Node::Element(key.clone()));
        }
        env.step(&action)?;
        note_page(&env, &mut out);
    }
    Ok(out)
}

/// `CafePage(Cafe[3])`: a page call in source, when every argument has a
/// literal and every row it names is seeded (a `key` may only name rows
/// that exist at the start, M205; a row the episode inserts cannot be
/// written there).
fn page_source(program: &ir::Program, page: ir::PageId, args: &[Value]) -> Option<String> {
    let def = program.pages.get(page as usize)?;
    if args.is_empty() {
        return Some(def.name.clone());
    }
    let seed = crate::interp::state::Database::from_seed(program);
    let seeded = def
        .params
        .iter()
        .zip(args)
        .all(|(p, v)| match (strip(&p.ty), v) {
            (ir::Ty::Row(t), Value::Row(id)) => seed.row(*t, *id).is_some(),
            _ => true,
        });
    if !seeded {
        return None;
    }
    let lits: Vec<String> = def
        .params
        .iter()
        .zip(args)
        .map(|(p, v)| literal(program, &p.ty, v))
        .collect::<Option<_>>()?;
    Some(format!("{}({})", def.name, lits.join(", ")))
}
