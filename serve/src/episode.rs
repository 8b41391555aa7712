//! What a browser request does to an episode, without HTTP.
//!
//! A served episode is an [`Env`] rebuilt from its stored state for every
//! request, so the browser plays by exactly the rules of §5.3: following a
//! link is a `click` on it, posting a form is one `type`, `select` or `click`
//! step for each control whose value changed (in document order) and then a
//! `click` on the button pressed, and an answer is an `answer` step. All of a
//! request's steps run on a copy: a request that turns out to be malformed or
//! hostile (a field the page does not have, a button that is not there or is
//! disabled, an option that does not exist) is refused whole and changes
//! nothing. A step the simulator would reject (a `requires` that fails, text
//! that is not of the input's type) is not a refusal: it is played, counted
//! and shown as the alert, as in the simulator.

use crate::store::{Meta, Stored};
use std::fmt;
use std::sync::Arc;
use wsite_runtime::env::{
    find_instance, Action, ActionKind, Control, Env, EnvError, RewardConfig, SharedWriter, State,
    StepResult, TaskInstance,
};
use wsite_runtime::interp::exec::World;
use wsite_runtime::ir::{Program, TaskDef, TextPart};

/// The task a session plays before any reset when `--task` is not given: no
/// goal, no end. Not an identifier, so no site task can have this name.
pub const BROWSE: &str = "(browse)";

/// Longest text a form field or an answer may carry, in characters.
pub const MAX_FIELD: usize = 4096;

/// A site ready to serve.
pub struct Site {
    /// The compiled site, plus the browsing task when no task is the default.
    pub program: Arc<Program>,
    /// What a new session plays.
    pub default: TaskInstance,
    pub config: RewardConfig,
    pub writer: Option<SharedWriter>,
}

/// Why a request was refused; it changed nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// A URL that no link on the current page leads to.
    NotReachable {
        path: String,
    },
    /// A button or field key that is not on the current page.
    NoSuchElement {
        key: String,
    },
    /// A disabled link or button.
    Disabled {
        key: String,
    },
    /// A form without one of the page's fields.
    MissingField {
        key: String,
    },
    /// A field value the control cannot hold (an option that does not exist).
    BadValue {
        key: String,
        why: String,
    },
    /// An action on element `key` (`[7]`) that the environment refused.
    BadAction {
        key: String,
        why: EnvError,
    },
    TooLong {
        key: String,
    },
    /// A form posted from an earlier version of the page.
    Stale,
    /// The episode has ended.
    Over,
    /// An answer to a task that takes none.
    NoAnswer,
    /// No such task, or the task cannot start.
    NoTask(EnvError),
    /// A request body that is not what the endpoint takes.
    Malformed(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotReachable { path } => write!(
                f,
                "{path} cannot be opened from this page: follow a link on the page you are on"
            ),
            Refusal::NoSuchElement { key } => write!(f, "this page has no element `{key}`"),
            Refusal::Disabled { key } => write!(f, "`{key}` is disabled"),
            Refusal::MissingField { key } => write!(f, "the form is missing the field `{key}`"),
            Refusal::BadValue { key, why } => write!(f, "field `{key}`: {why}"),
            Refusal::BadAction { key, why } => write!(f, "field `{key}`: {why}"),
            Refusal::TooLong { key } => {
                write!(f, "field `{key}` is longer than {MAX_FIELD} characters")
            }
            Refusal::Stale => write!(
                f,
                "this form is out of date (it was sent before, or from an older copy of the page)"
            ),
            Refusal::Over => write!(f, "the episode is over; start it again to play on"),
            Refusal::NoAnswer => write!(f, "this task takes no answer"),
            Refusal::NoTask(why) => write!(f, "{why}"),
            Refusal::Malformed(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// A posted page form: the token it was rendered with, the button pressed
/// (`None` or empty: only the typed values), and every other field.
#[derive(Clone, Debug, Default)]
pub struct FormPost {
    pub token: Option<String>,
    pub key: Option<String>,
    pub fields: Vec<(String, String)>,
}

/// The names of a page form's own fields.
pub const TOKEN_FIELD: &str = "_token";
pub const KEY_FIELD: &str = "_key";

impl Site {
    /// `program` served with `task` (a task or template name) as what new
    /// sessions play, or free browsing without one.
    pub fn new(
        mut program: Program,
        task: Option<&str>,
        writer: Option<SharedWriter>,
    ) -> Result<Site, Refusal> {
        let default = match task {
            Some(name) => find_instance(&program, name).map_err(Refusal::NoTask)?,
            None => {
                program.tasks.push(browse_task());
                TaskInstance {
                    task: program.tasks.len() - 1,
                    binding: None,
                    name: BROWSE.into(),
                }
            }
        };
        Ok(Site {
            program: Arc::new(program),
            default,
            config: RewardConfig::default(),
            writer,
        })
    }

    /// The instance called `name` (the default for `None`).
    pub fn instance(&self, name: Option<&str>) -> Result<TaskInstance, Refusal> {
        match name {
            None => Ok(self.default.clone()),
            Some(BROWSE) if self.default.name == BROWSE => Ok(self.default.clone()),
            // The browsing task is not one of the site's.
            Some(name) => find_instance(&self.program, name).map_err(|mut why| {
                // The browsing task, always the last, is left out of a
                // list that names others.
                if let EnvError::UnknownTask { tasks, .. } = &mut why {
                    if tasks.len() > 1 {
                        tasks.retain(|t| t != BROWSE);
                    }
                }
                Refusal::NoTask(why)
            }),
        }
    }

    /// A fresh episode of `instance`.
    pub fn start(&self, instance: &TaskInstance) -> Result<Env<'_>, Refusal> {
        let mut env = Env::new(&self.program, instance, self.config).map_err(Refusal::NoTask)?;
        env.set_writer(self.writer.clone());
        Ok(env)
    }

    /// The stored episode, ready to act on.
    pub fn resume(&self, stored: &Stored) -> Result<Env<'_>, Refusal> {
        let mut env = self.start(&stored.meta.instance)?;
        let m = &stored.meta;
        env.load(State {
            world: World {
                db: stored.db.clone(),
                session: m.session.clone(),
            },
            nav: m.nav.clone(),
            forms: m.forms.iter().cloned().collect(),
            step: m.step,
            alert: m.alert.clone(),
            done: m.done,
            success: m.success,
        });
        Ok(env)
    }
}

fn browse_task() -> TaskDef {
    TaskDef {
        name: BROWSE.into(),
        template: None,
        say: vec![TextPart::Lit("Browse the site.".into())],
        start: None,
        horizon: u32::MAX,
        goal: None,
        answer: None,
        progress: Vec::new(),
        key: Vec::new(),
        values: Vec::new(),
        setup: Vec::new(),
        frame: 0,
    }
}

/// `env`'s state as stored, with the episode's reward so far.
pub fn meta_of(env: &Env<'_>, seed: Option<u64>, reward: f64, total: f64) -> Meta {
    let s = env.state();
    Meta {
        instance: env.instance().clone(),
        seed,
        nav: s.nav.clone(),
        forms: s
            .forms
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        step: s.step,
        alert: s.alert.clone(),
        done: s.done,
        success: s.success,
        session: s.world.session.clone(),
        high: s.world.db.tables.iter().map(|t| t.high()).collect(),
        reward,
        total,
    }
}

/// The steps one request took.
#[derive(Clone, Debug, Default)]
pub struct Played {
    pub steps: Vec<StepResult>,
}

impl Played {
    /// The reward of the request's last step (that of the state endpoint).
    pub fn last_reward(&self) -> Option<f64> {
        self.steps.last().map(|s| s.reward)
    }
}

/// Opening `path`: nothing when it is the current page, else a click on the
/// first enabled link (or navigating button) that leads there.
pub fn follow(env: &mut Env<'_>, path: &str) -> Result<Played, Refusal> {
    if env.observation().url == path {
        return Ok(Played::default());
    }
    let target = env.page().iter().find_map(|e| match &e.control {
        Control::Navigate { href: Some(h) } if h == path => Some(e.element.index),
        _ => None,
    });
    let Some(index) = target else {
        return Err(Refusal::NotReachable { path: path.into() });
    };
    if env.done() {
        return Err(Refusal::Over);
    }
    let mut played = Played::default();
    step(env, &mut played, ActionKind::Click, index, None)?;
    Ok(played)
}

/// A posted page form: each changed control, then the button.
pub fn submit(env: &mut Env<'_>, post: &FormPost) -> Result<Played, Refusal> {
    if env.done() {
        return Err(Refusal::Over);
    }
    let changes = form_changes(env, post)?;
    let mut played = Played::default();
    for change in changes {
        if env.done() {
            return Ok(played);
        }
        // An earlier change may have re-rendered the page: find the control
        // again by its key (one that a change hid is skipped).
        let Some(e) = env.page().into_iter().find(|e| e.element.key == change.key) else {
            continue;
        };
        let index = e.element.index;
        step(env, &mut played, change.kind, index, change.text)?;
    }
    let pressed = post.key.as_deref().filter(|k| !k.is_empty());
    if let (Some(key), false) = (pressed, env.done()) {
        let index = clickable(env, key)?;
        step(env, &mut played, ActionKind::Click, index, None)?;
    }
    Ok(played)
}

/// An answer, for a retrieval task.
pub fn answer(env: &mut Env<'_>, text: &str) -> Result<Played, Refusal> {
    if text.chars().count() > MAX_FIELD {
        return Err(Refusal::TooLong {
            key: "answer".into(),
        });
    }
    if env.done() {
        return Err(Refusal::Over);
    }
    if !env.takes_answer() {
        return Err(Refusal::NoAnswer);
    }
    let mut played = Played::default();
    let action = Action {
        kind: ActionKind::Answer,
        element: None,
        text: Some(text.into()),
    };
    let result = env.step(&action).map_err(|_| Refusal::NoAnswer)?;
    played.steps.push(result);
    Ok(played)
}

fn step(
    env: &mut Env<'_>,
    played: &mut Played,
    kind: ActionKind,
    index: usize,
    text: Option<String>,
) -> Result<(), Refusal> {
    let action = Action {
        kind,
        element: Some(index),
        text,
    };
    let result = env.step(&action).map_err(|why| Refusal::BadAction {
        key: format!("[{index}]"),
        why,
    })?;
    played.steps.push(result);
    Ok(())
}

/// The index of the enabled button or link `key`.
fn clickable(env: &Env<'_>, key: &str) -> Result<usize, Refusal> {
    let page = env.page();
    let e = page
        .iter()
        .find(|e| e.element.key == key)
        .ok_or_else(|| Refusal::NoSuchElement { key: key.into() })?;
    match e.control {
        Control::Navigate { .. } | Control::Marker => Ok(e.element.index),
        Control::Disabled => Err(Refusal::Disabled { key: key.into() }),
        _ => Err(Refusal::BadValue {
            key: key.into(),
            why: "this element cannot be pressed".into(),
        }),
    }
}

/// One control whose posted value differs from the page's.
struct Change {
    key: String,
    kind: ActionKind,
    text: Option<String>,
}

/// Checks every field of `post` against the page and lists the changes, in
/// document order. Nothing is applied yet, so a bad field refuses the whole
/// request.
fn form_changes(env: &Env<'_>, post: &FormPost) -> Result<Vec<Change>, Refusal> {
    let page = env.page();
    for (name, value) in &post.fields {
        if value.chars().count() > MAX_FIELD {
            return Err(Refusal::TooLong { key: name.clone() });
        }
        let known = page.iter().any(|e| {
            e.element.key == *name
                && matches!(
                    e.control,
                    Control::Input { .. } | Control::Select | Control::Checkbox { .. }
                )
        });
        if !known {
            return Err(Refusal::NoSuchElement { key: name.clone() });
        }
    }
    let mut changes = Vec::new();
    for e in &page {
        let key = &e.element.key;
        let posted = || {
            post.fields
                .iter()
                .rev()
                .find(|(n, _)| n == key)
                .map(|(_, v)| v.as_str())
                .ok_or_else(|| Refusal::MissingField { key: key.clone() })
        };
        let current = e.element.value.as_deref().unwrap_or("");
        let change = match &e.control {
            Control::Input { .. } => {
                let v = posted()?;
                (v != current).then(|| (ActionKind::Type, Some(v.to_string())))
            }
            Control::Select => {
                let option = select_option(&e.element.options, key, posted()?)?;
                (option != current).then(|| (ActionKind::Select, Some(option.to_string())))
            }
            Control::Checkbox { on } => {
                let wanted = match posted()? {
                    "on" => true,
                    "off" => false,
                    other => {
                        return Err(Refusal::BadValue {
                            key: key.clone(),
                            why: format!("a checkbox is `on` or `off`, not {other:?}"),
                        })
                    }
                };
                (wanted != *on).then_some((ActionKind::Click, None))
            }
            _ => None,
        };
        if let Some((kind, text)) = change {
            changes.push(Change {
                key: key.clone(),
                kind,
                text,
            });
        }
    }
    Ok(changes)
}

/// A select's field holds the chosen option's position.
fn select_option<'o>(options: &'o [String], key: &str, posted: &str) -> Result<&'o str, Refusal> {
    posted
        .parse::<usize>()
        .ok()
        .and_then(|i| options.get(i))
        .map(String::as_str)
        .ok_or_else(|| Refusal::BadValue {
            key: key.into(),
            why: format!("there is no option {posted:?}"),
        })
}
