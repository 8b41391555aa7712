//! One recorded episode as a JSON line (INTERFACES.md, "Trajectories"):
//! `{"site", "task", "seed"?, "steps": [{"action": ACTION, "answer"?}]}`, read
//! with a typed error for every way a line can be malformed, and written back
//! (what `wsitec agent --record` appends).
//!
//! ACTION is one of the three ways an agent names an action: an index into
//! the candidate actions A(o) of the state reached (0-based, as `{"act": 3}`
//! in the agent protocol), the agent protocol's `{"kind", "element", "text"}`
//! (element 1-based, §5.2), or a witness step `{"kind", "key", "text"}` naming
//! the element by stable key (§5.5), which survives page re-ordering. An
//! `answer` may carry its text in the action or in the step's `answer`.

use crate::env::{Action, ActionKind};
use crate::prove::WitnessStep;
use serde_json::{json, Map, Value as Json};
use std::fmt;

/// How a step names its action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepAction {
    /// An index into A(o), 0-based.
    Index(usize),
    /// The agent protocol's action: an element by its 1-based index.
    Element(Action),
    /// A witness step: an element by stable key.
    Keyed(WitnessStep),
}

/// One recorded episode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trajectory {
    /// The site it was played on (file stem, path or declared name).
    pub site: String,
    /// A task or a template instance (`opening_hours[c=3]`).
    pub task: String,
    /// The `reset`'s seed, kept for the record (episodes are deterministic).
    pub seed: Option<u64>,
    pub steps: Vec<StepAction>,
}

/// Why a line is not a trajectory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    NotJson(String),
    NotAnObject,
    MissingField(&'static str),
    /// A field of the wrong JSON type: the field and what it should be.
    WrongType(&'static str, &'static str),
    /// Step `n` (1-based) does not name an action.
    BadStep(usize, ActionError),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NotJson(why) => write!(f, "not JSON: {why}"),
            LineError::NotAnObject => {
                f.write_str("expected a JSON object {\"site\", \"task\", \"steps\"}")
            }
            LineError::MissingField(name) => write!(f, "missing field `{name}`"),
            LineError::WrongType(name, want) => write!(f, "field `{name}` must be {want}"),
            LineError::BadStep(n, why) => write!(f, "step {n}: {why}"),
        }
    }
}

impl std::error::Error for LineError {}

/// Why a step's JSON names no action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionError {
    NoAction,
    NotAnAction,
    UnknownKind(String),
    /// A click, type or select with neither `key` nor `element`.
    NoElement,
    /// `element` is not a positive integer.
    BadElement,
    /// `key` or `text` is not a string.
    NotText(&'static str),
    AnswerWithoutText,
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::NoAction => f.write_str("missing field `action`"),
            ActionError::NotAnAction => f.write_str(
                "an action is an index or {\"kind\", \"key\" or \"element\", \"text\"?}",
            ),
            ActionError::UnknownKind(k) => {
                write!(
                    f,
                    "unknown action kind `{k}`: use click, type, select or answer"
                )
            }
            ActionError::NoElement => f.write_str("this action needs a `key` or an `element`"),
            ActionError::BadElement => f.write_str("`element` must be a positive integer"),
            ActionError::NotText(field) => write!(f, "`{field}` must be a string"),
            ActionError::AnswerWithoutText => {
                f.write_str("an answer needs its text in `text` or in the step's `answer`")
            }
        }
    }
}

impl std::error::Error for ActionError {}

impl Trajectory {
    /// Reads one line.
    pub fn parse(line: &str) -> Result<Trajectory, LineError> {
        let json: Json =
            serde_json::from_str(line).map_err(|e| LineError::NotJson(e.to_string()))?;
        let object = json.as_object().ok_or(LineError::NotAnObject)?;
        let site = text_field(object, "site")?;
        let task = text_field(object, "task")?;
        let seed = match object.get("seed") {
            None | Some(Json::Null) => None,
            Some(s) => Some(
                s.as_u64()
                    .ok_or(LineError::WrongType("seed", "a whole number"))?,
            ),
        };
        let steps = object
            .get("steps")
            .ok_or(LineError::MissingField("steps"))?
            .as_array()
            .ok_or(LineError::WrongType("steps", "a list"))?
            .iter()
            .enumerate()
            .map(|(i, step)| parse_step(step).map_err(|e| LineError::BadStep(i + 1, e)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Trajectory {
            site,
            task,
            seed,
            steps,
        })
    }

    /// The line `parse` reads back (no trailing newline).
    pub fn to_json(&self) -> Json {
        let steps: Vec<Json> = self
            .steps
            .iter()
            .map(|s| json!({ "action": action_json(s) }))
            .collect();
        let mut line = json!({ "site": self.site, "task": self.task, "steps": steps });
        if let (Some(seed), Some(object)) = (self.seed, line.as_object_mut()) {
            object.insert("seed".into(), Json::from(seed));
        }
        line
    }
}

fn text_field(object: &Map<String, Json>, name: &'static str) -> Result<String, LineError> {
    object
        .get(name)
        .ok_or(LineError::MissingField(name))?
        .as_str()
        .map(str::to_string)
        .ok_or(LineError::WrongType(name, "a string"))
}

/// `{"action": ACTION, "answer"?: "..."}`; a bare ACTION is read too.
fn parse_step(step: &Json) -> Result<StepAction, ActionError> {
    let (action, answer) = match step.as_object() {
        Some(o) if o.contains_key("action") || o.contains_key("answer") => (
            o.get("action").ok_or(ActionError::NoAction)?,
            o.get("answer"),
        ),
        _ => (step, None),
    };
    let answer = match answer {
        None | Some(Json::Null) => None,
        Some(a) => Some(a.as_str().ok_or(ActionError::NotText("answer"))?),
    };
    parse_action(action, answer)
}

/// One ACTION; `answer` fills the text of an answer that has none.
pub fn parse_action(action: &Json, answer: Option<&str>) -> Result<StepAction, ActionError> {
    if let Some(n) = action.as_u64() {
        return usize::try_from(n)
            .map(StepAction::Index)
            .map_err(|_| ActionError::NotAnAction);
    }
    let object = action.as_object().ok_or(ActionError::NotAnAction)?;
    let kind = match object.get("kind").map(|k| k.as_str()) {
        None => return Err(ActionError::NotAnAction),
        Some(None) => return Err(ActionError::NotText("kind")),
        Some(Some(k)) => kind_named(k)?,
    };
    let mut text = optional_text(object, "text")?;
    if kind == ActionKind::Answer {
        text = text.or(answer.map(str::to_string));
        if text.is_none() {
            return Err(ActionError::AnswerWithoutText);
        }
    }
    if let Some(key) = optional_text(object, "key")? {
        return Ok(StepAction::Keyed(WitnessStep {
            kind,
            key: Some(key),
            text,
        }));
    }
    let element = match object.get("element") {
        None | Some(Json::Null) => None,
        Some(e) => Some(
            e.as_u64()
                .filter(|&e| e > 0)
                .and_then(|e| usize::try_from(e).ok())
                .ok_or(ActionError::BadElement)?,
        ),
    };
    if element.is_none() && kind != ActionKind::Answer {
        return Err(ActionError::NoElement);
    }
    Ok(StepAction::Element(Action {
        kind,
        element,
        text,
    }))
}

fn kind_named(name: &str) -> Result<ActionKind, ActionError> {
    match name {
        "click" => Ok(ActionKind::Click),
        "type" => Ok(ActionKind::Type),
        "select" => Ok(ActionKind::Select),
        "answer" => Ok(ActionKind::Answer),
        other => Err(ActionError::UnknownKind(other.to_string())),
    }
}

fn optional_text(
    object: &Map<String, Json>,
    field: &'static str,
) -> Result<Option<String>, ActionError> {
    match object.get(field) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or(ActionError::NotText(field)),
    }
}

fn action_json(action: &StepAction) -> Json {
    match action {
        StepAction::Index(n) => Json::from(*n),
        StepAction::Keyed(step) => serde_json::to_value(step).unwrap_or(Json::Null),
        StepAction::Element(a) => {
            let mut out = Map::new();
            out.insert(
                "kind".into(),
                serde_json::to_value(a.kind).unwrap_or(Json::Null),
            );
            if let Some(e) = a.element {
                out.insert("element".into(), Json::from(e));
            }
            if let Some(t) = &a.text {
                out.insert("text".into(), Json::from(t.as_str()));
            }
            Json::Object(out)
        }
    }
}
