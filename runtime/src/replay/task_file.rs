//! Reading the key nodes of a WebFactory task file (INTERFACES.md, "Tasks":
//! the JSON `wsitec tasks --generate` emits): `task_id` → `key_nodes`.
//!
//! The file may be one JSON array of tasks, an object with a `tasks` array,
//! a single task object, or JSON lines (one task a line). Other fields are
//! ignored; a task without `key_nodes` has none.

use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::fmt;

/// Why a task file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskFileError {
    /// Not JSON (as a whole, nor line by line): the 1-based line and why.
    NotJson(usize, String),
    /// Task `n` (1-based, in file order) lacks a string `task_id` or has
    /// `key_nodes` that are not a list of strings.
    BadTask(usize, &'static str),
}

impl fmt::Display for TaskFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskFileError::NotJson(line, why) => write!(f, "line {line}: not JSON: {why}"),
            TaskFileError::BadTask(n, why) => write!(f, "task {n}: {why}"),
        }
    }
}

impl std::error::Error for TaskFileError {}

/// `task_id` → `key_nodes` for every task in `text`.
pub fn parse_task_file(text: &str) -> Result<BTreeMap<String, Vec<String>>, TaskFileError> {
    let tasks: Vec<Json> = match serde_json::from_str::<Json>(text) {
        Ok(Json::Array(all)) => all,
        Ok(Json::Object(mut o)) => match o.remove("tasks") {
            Some(Json::Array(all)) => all,
            _ => vec![Json::Object(o)],
        },
        Ok(_) => return Err(TaskFileError::BadTask(1, "a task is a JSON object")),
        Err(_) => json_lines(text)?,
    };
    let mut out = BTreeMap::new();
    for (i, task) in tasks.iter().enumerate() {
        let (id, nodes) = key_nodes_of(task).map_err(|why| TaskFileError::BadTask(i + 1, why))?;
        out.insert(id, nodes);
    }
    Ok(out)
}

fn json_lines(text: &str) -> Result<Vec<Json>, TaskFileError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| TaskFileError::NotJson(i + 1, e.to_string()))
        })
        .collect()
}

fn key_nodes_of(task: &Json) -> Result<(String, Vec<String>), &'static str> {
    let id = task
        .get("task_id")
        .and_then(Json::as_str)
        .ok_or("missing a string `task_id`")?;
    let nodes = match task.get("key_nodes") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(list)) => list
            .iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or("`key_nodes` must be a list of strings")?,
        Some(_) => return Err("`key_nodes` must be a list of strings"),
    };
    Ok((id.to_string(), nodes))
}
