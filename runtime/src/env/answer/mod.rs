//! Retrieval answers (§5.3): the expected answer, and the one matching rule
//! every judge uses — the environment, the JIT's flat engine (and so the
//! batched engines and the trainer), the prover, `wsitec agent`/`play`/`eval`.
//!
//! The expected answer is evaluated once, in the task's initial state (after
//! `setup`), into an [`Expected`]. A typed value (`Int`, `Money`, `Date`,
//! `Time`, `Bool`, an enum; `T?` holding one) matches an answer that reads as
//! that type to an equal value (`number`, `calendar`, and the small readers
//! here): lenient about the format, strict about the value, so `3` does not
//! win an expected 2026-03-03. A `Text`, a row reference (by its name) and
//! each text of an `answer [...]` list match by token F1 ≥ 0.5 (`text`). An
//! expected `none` matches nothing: the instance is defective (F405).

mod calendar;
mod number;
#[cfg(test)]
mod tests;
mod text;

pub use text::texts_agree;

use crate::interp::eval::{eval, Context};
use crate::interp::render::render;
use crate::ir::{self, Ty, Value};
use crate::value::{Date, Money, Time};

/// What a retrieval task expects of an `answer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// An operation task: no answer is expected, and none matches.
    Nothing,
    /// The expected value is `none`: no answer can match (F405, "the
    /// expected answer is empty").
    Empty,
    /// Evaluating the expected value faulted (the reason); no answer matches.
    Faulted(String),
    /// A typed value, matched by value.
    Typed(Typed),
    /// Texts matched by token F1: a `Text` value, a row reference by its
    /// name, or the texts of an `answer [...]` list.
    Texts(Vec<String>),
}

/// An expected value of a type answers are read as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Typed {
    Int(i64),
    /// Cents.
    Money(i64),
    Date(Date),
    Time(Time),
    Bool(bool),
    /// An enum variant, by name.
    Variant(String),
}

impl Expected {
    /// The task's expected answer in the state `ctx` shows (`Nothing` for an
    /// operation task).
    pub(crate) fn evaluate(
        ctx: &Context<'_>,
        frame: &mut Vec<Value>,
        answer: Option<&ir::Answer>,
    ) -> Expected {
        match answer {
            None => Expected::Nothing,
            Some(ir::Answer::Texts(texts)) => Expected::Texts(texts.clone()),
            Some(ir::Answer::Value(e, ty)) => match eval(ctx, frame, e) {
                Ok(v) => Expected::of_value(ctx, &v, ty),
                Err(fault) => Expected::Faulted(fault.to_string()),
            },
        }
    }

    /// A value of static type `ty` as the expected answer.
    pub(crate) fn of_value(ctx: &Context<'_>, v: &Value, ty: &Ty) -> Expected {
        let typed = match v {
            Value::None => return Expected::Empty,
            Value::Int(n) => Typed::Int(*n),
            Value::Money(c) => Typed::Money(*c),
            Value::Date(d) => Typed::Date(*d),
            Value::Time(t) => Typed::Time(*t),
            Value::Bool(b) => Typed::Bool(*b),
            Value::Enum(_) => Typed::Variant(render(ctx.program, ctx.db, v, ty)),
            Value::Text(_) | Value::Row(_) => {
                return Expected::Texts(vec![render(ctx.program, ctx.db, v, ty)])
            }
        };
        Expected::Typed(typed)
    }

    /// Whether `answer` matches (§5.3).
    pub fn matches(&self, answer: &str) -> bool {
        match self {
            Expected::Nothing | Expected::Empty | Expected::Faulted(_) => false,
            Expected::Typed(t) => t.reads(answer),
            Expected::Texts(texts) => text::matches_any(answer, texts),
        }
    }

    /// The highest token F1 of `answer` against the expected answers as a
    /// page shows them ([`Expected::shown`]): WebFactory's answer F1 (0 when
    /// nothing can match).
    pub fn best_f1(&self, answer: &str) -> f64 {
        text::best_f1(answer, &self.shown())
    }

    /// Whether `text` does not match but shows the expected answer inside it
    /// (`Due 2026-03-03 (renewable)` for 2026-03-03): the author should show
    /// the value on its own. Never for an empty expected answer.
    pub fn buried_in(&self, text: &str) -> bool {
        if self.matches(text) {
            return false;
        }
        match self {
            Expected::Nothing | Expected::Empty | Expected::Faulted(_) => false,
            Expected::Texts(texts) => text::contains_any(text, texts),
            Expected::Typed(t) => {
                let words: Vec<&str> = text.split_whitespace().map(unwrap_word).collect();
                (1..=MAX_VALUE_WORDS.min(words.len()))
                    .flat_map(|n| words.windows(n))
                    .any(|w| t.reads(&w.join(" ")))
            }
        }
    }

    /// The expected answer as a page shows it (one text per alternative);
    /// empty when nothing can match.
    pub fn shown(&self) -> Vec<String> {
        match self {
            Expected::Nothing | Expected::Empty | Expected::Faulted(_) => Vec::new(),
            Expected::Typed(t) => vec![t.to_string()],
            Expected::Texts(texts) => texts.clone(),
        }
    }
}

/// The most words a typed value takes (`March 3, 2026`).
const MAX_VALUE_WORDS: usize = 3;

/// A word without the brackets and quotes around it.
fn unwrap_word(word: &str) -> &str {
    word.trim_matches([
        '(', ')', '[', ']', '{', '}', '"', '\'', '“', '”', ';', '!', '?',
    ])
}

impl Typed {
    /// Whether `answer` reads as this type to this very value.
    fn reads(&self, answer: &str) -> bool {
        match self {
            Typed::Int(n) => number::int(answer) == Some(*n),
            Typed::Money(c) => number::money(answer) == Some(*c),
            Typed::Date(d) => calendar::date(answer) == Some(*d),
            Typed::Time(t) => calendar::time(answer) == Some(*t),
            Typed::Bool(b) => boolean(answer) == Some(*b),
            Typed::Variant(name) => {
                let want = phrase(name);
                !want.is_empty() && phrase(answer) == want
            }
        }
    }
}

/// The rendering a page shows (§2.2).
impl std::fmt::Display for Typed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Typed::Int(n) => write!(f, "{n}"),
            Typed::Money(c) => write!(f, "{}", Money(*c)),
            Typed::Date(d) => write!(f, "{d}"),
            Typed::Time(t) => write!(f, "{t}"),
            Typed::Bool(b) => f.write_str(if *b { "yes" } else { "no" }),
            Typed::Variant(name) => f.write_str(name),
        }
    }
}

/// `yes`/`true` and `no`/`false`, in any case.
fn boolean(answer: &str) -> Option<bool> {
    match phrase(answer).as_str() {
        "yes" | "true" => Some(true),
        "no" | "false" => Some(false),
        _ => None,
    }
}

/// A phrase compared without case, `_` or spacing: `In_progress.` and
/// `in progress` are both `in progress`.
fn phrase(text: &str) -> String {
    let lower = text.to_lowercase().replace('_', " ");
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ")
}
