//! WebPRMBench's record format (docs/prm.md, "WebPRMBench"; seed 002): the
//! public WebPRMBench / WebRewardBench records, written from and read into
//! [`Instance`]s so a PRM trained elsewhere can be scored on wsite's exact
//! labels and the reverse.
//!
//! A record is `{task_id, step_id, intent, start_url, current_url,
//! text_observation, action_history, thought_history, chosen: [{thought,
//! action}], rejected: [{thought, action} ×4], source_name}` (optionally
//! `gt_checklist`, `image_list`, ignored here), actions as BrowserGym calls
//! (`click('12')`, `fill('3', 'x')`: `text::browsergym`, the element's
//! index as bid). Written records keep the instance's id in `task_id` and
//! an extra `id` field, so judgements map back; thoughts are empty. Read
//! records become instances of origin `imported`: domain and site are
//! `source_name`, each candidate's text is its BrowserGym call, its wsite
//! step is absent and its distance unknown (so only text judges and
//! external ones can judge them; the oracle cannot).

use super::text::{browsergym, parse_browsergym};
use super::{After, Candidate, Instance, Origin};
use crate::env::Action;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::fmt;

/// One step with a thought, as the records hold actions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    #[serde(default)]
    pub thought: String,
    pub action: String,
}

/// One WebPRMBench record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// wsite's instance id, when the record was written here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A string or a number in the public data.
    pub task_id: Json,
    #[serde(default)]
    pub step_id: Json,
    pub intent: String,
    #[serde(default)]
    pub start_url: String,
    #[serde(default)]
    pub current_url: String,
    pub text_observation: String,
    #[serde(default)]
    pub action_history: Vec<String>,
    #[serde(default)]
    pub thought_history: Vec<String>,
    pub chosen: Vec<Step>,
    pub rejected: Vec<Step>,
    pub source_name: String,
}

/// Why records cannot be read.
#[derive(Debug)]
pub enum ImportError {
    /// The whole file is not a JSON array of objects, nor JSON lines.
    NotJson(serde_json::Error),
    /// Record `n` (1-based: its line, or its place in the array) is not a
    /// record.
    Record { n: usize, why: RecordError },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::NotJson(why) => write!(f, "not a JSON array: {why}"),
            ImportError::Record { n, why } => write!(f, "record {n}: {why}"),
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportError::NotJson(why) => Some(why),
            ImportError::Record { why, .. } => Some(why),
        }
    }
}

/// Why one record is not a record wsite can read.
#[derive(Debug)]
pub enum RecordError {
    /// Its JSON is not a record's (a field missing or of the wrong type).
    Json(serde_json::Error),
    /// `chosen` holds this many actions, not one.
    Chosen(usize),
    /// `rejected` holds no action.
    NoRejected,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Json(e) => e.fmt(f),
            RecordError::Chosen(n) => write!(f, "`chosen` holds {n} actions, not one"),
            RecordError::NoRejected => f.write_str("`rejected` is empty"),
        }
    }
}

impl std::error::Error for RecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordError::Json(e) => Some(e),
            RecordError::Chosen(_) | RecordError::NoRejected => None,
        }
    }
}

/// The BrowserGym call of a candidate: from its wsite step when it has one,
/// else its text (an imported candidate's text already is the call).
fn call(c: &Candidate) -> String {
    match &c.step {
        Some(step) => browsergym(&Action {
            kind: step.kind,
            element: c.element,
            text: step.text.clone(),
        }),
        None => c.action.clone(),
    }
}

fn step(c: &Candidate) -> Step {
    Step {
        thought: String::new(),
        action: call(c),
    }
}

/// `instance` as a WebPRMBench record.
pub fn to_record(instance: &Instance) -> Record {
    Record {
        id: Some(instance.id.clone()),
        task_id: Json::String(instance.id.clone()),
        step_id: Json::from(instance.step),
        intent: instance.instruction.clone(),
        start_url: if instance.trace.is_empty() {
            instance.url.clone()
        } else {
            String::new()
        },
        current_url: instance.url.clone(),
        text_observation: instance.observation.clone(),
        action_history: instance.history.clone(),
        thought_history: vec![String::new(); instance.history.len()],
        chosen: vec![step(&instance.chosen)],
        rejected: instance.rejected.iter().map(step).collect(),
        source_name: instance.domain.clone(),
    }
}

/// A JSON id (string or number) as text.
fn id_text(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        Json::Null => String::new(),
        other => other.to_string(),
    }
}

fn candidate(s: &Step) -> Candidate {
    Candidate {
        action: s.action.clone(),
        step: None,
        element: parse_browsergym(&s.action).and_then(|a| a.element),
        distance_after: After::Unknown,
        hard: Vec::new(),
    }
}

/// A record as an instance (see the module's note on what is unknown).
pub fn from_record(record: &Record) -> Result<Instance, RecordError> {
    let [chosen] = record.chosen.as_slice() else {
        return Err(RecordError::Chosen(record.chosen.len()));
    };
    if record.rejected.is_empty() {
        return Err(RecordError::NoRejected);
    }
    let task = id_text(&record.task_id);
    let step = id_text(&record.step_id);
    let id = record.id.clone().unwrap_or_else(|| match step.as_str() {
        "" => task.clone(),
        s => format!("{task}:{s}"),
    });
    Ok(Instance {
        id,
        site: record.source_name.clone(),
        domain: record.source_name.clone(),
        task,
        kind: "unknown".into(),
        step: record
            .step_id
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0),
        origin: Origin::Imported,
        instruction: record.intent.clone(),
        url: record.current_url.clone(),
        title: String::new(),
        alert: None,
        observation: record.text_observation.clone(),
        history: record.action_history.clone(),
        trace: Vec::new(),
        distance: 0,
        remaining: 0,
        chosen: candidate(chosen),
        rejected: record.rejected.iter().map(candidate).collect(),
    })
}

/// Reads records from a JSON array or from JSON lines (blank lines skipped).
pub fn read_records(text: &str) -> Result<Vec<Record>, ImportError> {
    if text.trim_start().starts_with('[') {
        let values: Vec<Json> = serde_json::from_str(text).map_err(ImportError::NotJson)?;
        return values
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                serde_json::from_value(v).map_err(|e| ImportError::Record {
                    n: i + 1,
                    why: RecordError::Json(e),
                })
            })
            .collect();
    }
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| ImportError::Record {
                n: i + 1,
                why: RecordError::Json(e),
            })
        })
        .collect()
}

/// Reads records and turns each into an instance.
pub fn import(text: &str) -> Result<Vec<Instance>, ImportError> {
    read_records(text)?
        .iter()
        .enumerate()
        .map(|(i, r)| from_record(r).map_err(|why| ImportError::Record { n: i + 1, why }))
        .collect()
}

#[cfg(test)]
#[path = "webprmbench_tests.rs"]
mod tests;
