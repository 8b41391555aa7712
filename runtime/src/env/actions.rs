//! Candidate actions A(o) and typeable values (§5.2), and reading typed text as
//! a form value (§5.3).
//!
//! The candidates are grouped by element in document order: `click` for an
//! enabled link, button or checkbox; for an input, `type v` for each typeable
//! value, then `type ""` (clear); for a select, one `select` per option. In a
//! retrieval task the `answer`s follow all of those: every interpolated value
//! shown, then every element's full text, duplicates removed.

use super::observe::{Handle, View};
use super::{Action, ActionKind, EnvError};
use crate::interp::eval::{eval, Context};
use crate::interp::render::render;
use crate::ir::{self, TextPart, Ty, Value};
use crate::value::{Date, Money, Time};
use std::collections::BTreeSet;

/// `values`, then each `{expr}` of `say` rendered, then each phrase between
/// double quotes in the rendered `say`; de-duplicated, first kept. Empty texts
/// are left out (clearing is its own action).
pub(crate) fn typeable_values(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    task: &ir::TaskDef,
    instruction: &str,
) -> Vec<String> {
    let mut all: Vec<String> = task.values.clone();
    for part in &task.say {
        if let TextPart::Interp(e, ty) = part {
            // An interpolation that faults shows `—`, which nobody types.
            if let Ok(v) = eval(ctx, frame, e) {
                all.push(render(ctx.program, ctx.db, &v, ty));
            }
        }
    }
    all.extend(quoted_phrases(instruction));
    dedupe(all.into_iter().filter(|s| !s.is_empty()))
}

/// The texts between pairs of `"` (an unpaired last `"` opens nothing).
fn quoted_phrases(text: &str) -> Vec<String> {
    let pieces: Vec<&str> = text.split('"').collect();
    let closed = pieces.len().saturating_sub(1);
    pieces
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 1 && *i < closed)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// Keeps the first occurrence of each text.
fn dedupe(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    items.filter(|s| seen.insert(s.clone())).collect()
}

fn act(kind: ActionKind, element: Option<usize>, text: Option<String>) -> Action {
    Action {
        kind,
        element,
        text,
    }
}

/// A(o) for the rendered page.
pub(crate) fn candidates(view: &View, typeable: &[String], retrieval: bool) -> Vec<Action> {
    let mut out = Vec::new();
    for (el, handle) in view.elements.iter().zip(&view.handles) {
        let at = Some(el.index);
        match handle {
            Handle::Inert => {}
            Handle::Go(_) | Handle::Marker(..) | Handle::Checkbox { .. } => {
                out.push(act(ActionKind::Click, at, None));
            }
            Handle::Input { .. } => {
                for v in typeable.iter().chain(std::iter::once(&String::new())) {
                    out.push(act(ActionKind::Type, at, Some(v.clone())));
                }
            }
            Handle::Select { options, .. } => {
                for text in dedupe(options.iter().map(|o| o.0.clone())) {
                    out.push(act(ActionKind::Select, at, Some(text)));
                }
            }
        }
    }
    if retrieval {
        let texts = view
            .shown
            .iter()
            .cloned()
            .chain(view.elements.iter().map(|e| e.text.clone()));
        for text in dedupe(texts.filter(|t| !t.is_empty())) {
            out.push(act(ActionKind::Answer, None, Some(text)));
        }
    }
    out
}

/// Typed text as a value of the input's type; `""` clears the input. Money
/// reads `$1,299.00`, `1299.00` or `1299`.
pub(crate) fn parse_input(program: &ir::Program, text: &str, ty: &Ty) -> Result<Value, EnvError> {
    parse_typed(program, text, ty).map_err(|expected| bad_input(text, expected))
}

/// The refusal of typed `text` that is not `expected` (it shows the text
/// trimmed, as it was parsed).
pub(crate) fn bad_input(text: &str, expected: &'static str) -> EnvError {
    EnvError::BadInput {
        text: text.trim().to_string(),
        expected,
    }
}

/// [`parse_input`]'s value, or what the text should have been: the one
/// parsing rule, for callers that need the refusal's message only
/// sometimes (a search never shows it) and so build none.
pub(crate) fn parse_typed(
    program: &ir::Program,
    text: &str,
    ty: &Ty,
) -> Result<Value, &'static str> {
    let t = text.trim();
    let inner = match ty {
        Ty::Optional(inner) => inner.as_ref(),
        other => other,
    };
    if t.is_empty() {
        return Ok(match (ty, inner) {
            (_, Ty::Text) => Value::Text(text.into()),
            (Ty::Optional(_), _) => Value::None,
            (_, Ty::Int) => Value::Int(0),
            (_, Ty::Money) => Value::Money(0),
            (_, Ty::Bool) => Value::Bool(false),
            _ => Value::None,
        });
    }
    match inner {
        Ty::Text => Ok(Value::Text(text.into())),
        Ty::Int => t
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| "a whole number"),
        Ty::Money => parse_money(t).map(Value::Money).ok_or("an amount of money"),
        Ty::Date => Date::parse_body(t)
            .map(Value::Date)
            .map_err(|_| "a date (YYYY-MM-DD)"),
        Ty::Time => Time::parse_body(t)
            .map(Value::Time)
            .map_err(|_| "a time (HH:MM)"),
        Ty::Bool => match t.to_lowercase().as_str() {
            "yes" | "true" => Ok(Value::Bool(true)),
            "no" | "false" => Ok(Value::Bool(false)),
            _ => Err("yes or no"),
        },
        Ty::Enum(e) => enum_variant(program, *e, t).ok_or("one of the choices"),
        Ty::Row(_) | Ty::Optional(_) => Err("something that can be typed"),
    }
}

/// Cents from `$1,299.00`, `-25`, `14.9`.
fn parse_money(t: &str) -> Option<i64> {
    let (neg, rest) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let rest = rest.strip_prefix('$').unwrap_or(rest);
    if rest.contains('_') {
        return None;
    }
    let body: String = rest.chars().filter(|c| *c != ',').collect();
    let Money(cents) = Money::parse_body(&body).ok()?;
    Some(if neg { -cents } else { cents })
}

fn enum_variant(program: &ir::Program, e: ir::EnumId, t: &str) -> Option<Value> {
    let def = program.enums.get(usize::try_from(e).ok()?)?;
    let i = def.variants.iter().position(|v| v == t)?;
    Some(Value::Enum(u32::try_from(i).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_phrases_pair_up() {
        assert_eq!(
            quoted_phrases(r#"Add "a b" and "c" then "d"#),
            vec!["a b", "c"]
        );
        assert!(quoted_phrases("none here").is_empty());
    }

    #[test]
    fn money_reads_common_forms() {
        assert_eq!(parse_money("$1,299.00"), Some(129_900));
        assert_eq!(parse_money("1299.00"), Some(129_900));
        assert_eq!(parse_money("1299"), Some(129_900));
        assert_eq!(parse_money("-$25"), Some(-2500));
        assert_eq!(parse_money("abc"), None);
    }
}
