//! Key nodes (§2.4 `key [...]`; WebFactory's `key_nodes`): the pages and
//! elements an episode must pass, and the share of them it passed.
//!
//! A page node is passed when the page was shown with those arguments (the
//! visited set of §5.1, start page included); an element node when a step
//! acted on that element, rejected steps included (the agent did act on it).
//! Declared nodes are evaluated like the expected answer: in the task's
//! initial state, template binder bound, so `CommunityPage(c)` names a row.
//!
//! Listed nodes (a WebFactory task file) are texts: `#search_box` or
//! `search_box` for a named element (any loop row), a positional stable key
//! `Page:3:5[p=4]`, `CafePage` for a page with any arguments, and
//! `CafePage(3)` for a page with these arguments, each written as the agent
//! protocol writes values (rows by id, money `$12.50`, enums by name;
//! `Cafe[3]` is read as `3`).

use crate::env::writer_json::value_to_json;
use crate::env::{observe, Env};
use crate::ir::{self, PageId, Program, Value};
use serde_json::Value as Json;
use std::collections::BTreeSet;

/// A key node, resolved against the site.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyNode {
    Page {
        page: PageId,
        args: PageArgs,
        label: String,
    },
    /// An element by stable key; a key without `[...]` also names every loop
    /// row's copy of the element.
    Element { key: String, label: String },
    /// A node naming no page of the site (or whose arguments fault): it is
    /// never passed.
    Unresolved { label: String },
}

/// Which arguments a page node asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum PageArgs {
    Any,
    Values(Vec<Value>),
    /// As written in a task file, compared with each value's protocol form.
    Texts(Vec<String>),
}

/// How much of its key nodes an episode passed.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// Passed / all; 1.0 when there are none.
    pub share: f64,
    /// The labels of the nodes not passed, in the order given.
    pub missing: Vec<String>,
}

impl KeyNode {
    /// The node as a person writes it: `#add`, `ProductPage(42)`.
    pub fn label(&self) -> &str {
        match self {
            KeyNode::Page { label, .. }
            | KeyNode::Element { label, .. }
            | KeyNode::Unresolved { label } => label,
        }
    }

    fn passed(
        &self,
        program: &Program,
        visited: &BTreeSet<(PageId, Vec<Value>)>,
        acted: &BTreeSet<String>,
    ) -> bool {
        match self {
            KeyNode::Page { page, args, .. } => visited
                .iter()
                .any(|(p, shown)| p == page && args_match(program, *p, args, shown)),
            KeyNode::Element { key, .. } => acted.iter().any(|k| element_matches(key, k)),
            KeyNode::Unresolved { .. } => false,
        }
    }
}

/// The task's declared `key [...]`, evaluated in `env`'s state (a fresh one:
/// the task's initial state).
pub fn declared(program: &Program, env: &Env<'_>) -> Vec<KeyNode> {
    let ctx = env.world().context(program, None);
    env.task()
        .key
        .iter()
        .map(|node| match node {
            ir::KeyNode::Element(name) => KeyNode::Element {
                key: format!("#{name}"),
                label: format!("#{name}"),
            },
            ir::KeyNode::Page(call) => {
                let mut frame = env.task_frame().to_vec();
                match observe::eval_call(&ctx, &mut frame, call) {
                    Ok((page, args)) => KeyNode::Page {
                        page,
                        label: page_label(program, page, &args),
                        args: PageArgs::Values(args),
                    },
                    Err(_) => KeyNode::Unresolved {
                        label: format!("{}(?)", page_name(program, call.page)),
                    },
                }
            }
        })
        .collect()
}

/// Key nodes as a task file lists them.
pub fn listed(program: &Program, nodes: &[String]) -> Vec<KeyNode> {
    nodes
        .iter()
        .map(|n| listed_node(program, n.trim()))
        .collect()
}

fn listed_node(program: &Program, text: &str) -> KeyNode {
    if text.starts_with('#') || text.contains(':') {
        return KeyNode::Element {
            key: text.to_string(),
            label: text.to_string(),
        };
    }
    let (name, args) = match text.split_once('(') {
        Some((name, rest)) => match rest.strip_suffix(')') {
            Some(inner) => (name.trim(), PageArgs::Texts(split_args(inner))),
            None => {
                return KeyNode::Unresolved {
                    label: text.to_string(),
                }
            }
        },
        None => (text, PageArgs::Any),
    };
    let page = program.pages.iter().position(|p| p.name == name);
    match (page.and_then(|p| PageId::try_from(p).ok()), &args) {
        (Some(page), _) => KeyNode::Page {
            page,
            args,
            label: text.to_string(),
        },
        (None, PageArgs::Any) => KeyNode::Element {
            key: format!("#{text}"),
            label: text.to_string(),
        },
        (None, _) => KeyNode::Unresolved {
            label: text.to_string(),
        },
    }
}

/// `3, "a, b", Cafe[4]` → `3`, `a, b`, `4`; `` → nothing.
fn split_args(inner: &str) -> Vec<String> {
    if inner.trim().is_empty() {
        return Vec::new();
    }
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for ch in inner.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => args.push(std::mem::take(&mut current)),
            _ => current.push(ch),
        }
    }
    args.push(current);
    args.iter().map(|a| row_reference(a.trim())).collect()
}

/// `Cafe[3]` → `3`; anything else as it is.
fn row_reference(arg: &str) -> String {
    let id = arg
        .strip_suffix(']')
        .and_then(|a| a.split_once('['))
        .filter(|(table, id)| {
            !table.is_empty()
                && table.chars().all(|c| c.is_alphanumeric() || c == '_')
                && id.parse::<i64>().is_ok()
        })
        .map(|(_, id)| id.to_string());
    id.unwrap_or_else(|| arg.to_string())
}

/// Whether the stable key `acted` is the element `key` names.
fn element_matches(key: &str, acted: &str) -> bool {
    acted == key || (!key.contains('[') && acted.split('[').next() == Some(key))
}

fn args_match(program: &Program, page: PageId, want: &PageArgs, shown: &[Value]) -> bool {
    match want {
        PageArgs::Any => true,
        PageArgs::Values(values) => values.as_slice() == shown,
        PageArgs::Texts(texts) => {
            texts.len() == shown.len()
                && texts
                    .iter()
                    .zip(arg_texts(program, page, shown))
                    .all(|(want, got)| *want == got)
        }
    }
}

/// Each argument in the agent protocol's form, as text.
fn arg_texts(program: &Program, page: PageId, args: &[Value]) -> Vec<String> {
    let params = program
        .pages
        .get(crate::interp::state::idx(page))
        .map_or(&[][..], |p| p.params.as_slice());
    args.iter()
        .enumerate()
        .map(|(i, v)| {
            let json = match params.get(i) {
                Some(param) => value_to_json(program, &param.ty, v),
                None => value_to_json(program, &ir::Ty::Int, v),
            };
            match json {
                Json::String(s) => s,
                other => other.to_string(),
            }
        })
        .collect()
}

fn page_name(program: &Program, page: PageId) -> &str {
    program
        .pages
        .get(crate::interp::state::idx(page))
        .map_or("?", |p| p.name.as_str())
}

/// `ProductPage(42)`, or `Home` for a page without arguments.
pub fn page_label(program: &Program, page: PageId, args: &[Value]) -> String {
    let name = page_name(program, page);
    if args.is_empty() {
        return name.to_string();
    }
    format!("{name}({})", arg_texts(program, page, args).join(", "))
}

/// The share of `nodes` passed by an episode that showed `visited` and acted
/// on the elements `acted` (stable keys).
pub fn coverage(
    program: &Program,
    nodes: &[KeyNode],
    visited: &BTreeSet<(PageId, Vec<Value>)>,
    acted: &BTreeSet<String>,
) -> Coverage {
    let missing: Vec<String> = nodes
        .iter()
        .filter(|n| !n.passed(program, visited, acted))
        .map(|n| n.label().to_string())
        .collect();
    let share = if nodes.is_empty() {
        1.0
    } else {
        (nodes.len() - missing.len()) as f64 / nodes.len() as f64
    };
    Coverage { share, missing }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_split_outside_quotes_and_rows_read_as_ids() {
        assert_eq!(split_args(r#"3, "a, b", Cafe[4]"#), vec!["3", "a, b", "4"]);
        assert!(split_args("  ").is_empty());
        assert_eq!(row_reference("x[y]"), "x[y]");
    }

    #[test]
    fn an_element_key_without_rows_names_every_row() {
        assert!(element_matches("#add", "#add[p=3]"));
        assert!(element_matches("#add[p=3]", "#add[p=3]"));
        assert!(!element_matches("#add[p=3]", "#add[p=4]"));
        assert!(!element_matches("#add", "#added"));
        assert!(element_matches("Home:3:5", "Home:3:5[x=1]"));
    }
}
