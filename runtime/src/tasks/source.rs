//! Writing generated tasks as `.wsite` source (§1 literals, §2.4 tasks):
//! values as literals, sentences as `say` strings (escaped so that nothing is
//! interpolated by accident, with the phrases an agent must type in escaped
//! quotes, which makes them typeable), and whole task declarations.

use crate::ir::{self, Ty, Value};
use crate::value::{Date, Time};

/// A value of type `ty` as a source literal; `None` where the language has
/// none (a text that is not plain, an enum or table the program lacks).
pub fn literal(program: &ir::Program, ty: &Ty, value: &Value) -> Option<String> {
    Some(match (ty, value) {
        (Ty::Optional(inner), v) if *v != Value::None => return literal(program, inner, v),
        (Ty::Enum(e), Value::Enum(v)) => program
            .enums
            .get(*e as usize)?
            .variants
            .get(*v as usize)?
            .clone(),
        (Ty::Row(t), Value::Row(id)) => format!("{}[{id}]", program.tables.get(*t as usize)?.name),
        (Ty::Int, Value::Int(_))
        | (Ty::Money, Value::Money(_))
        | (Ty::Bool, Value::Bool(_))
        | (Ty::Text, Value::Text(_))
        | (Ty::Date, Value::Date(_))
        | (Ty::Time, Value::Time(_))
        | (_, Value::None) => return plain_literal(value),
        _ => return None,
    })
}

/// A value whose literal does not depend on its type (every value but enum
/// variants and rows) as source; `None` for those two.
pub fn plain_literal(value: &Value) -> Option<String> {
    Some(match value {
        Value::None => "none".into(),
        Value::Int(n) => n.to_string(),
        Value::Money(c) => money(*c),
        Value::Bool(b) => b.to_string(),
        Value::Text(t) => text(t),
        Value::Date(d) => date(*d),
        Value::Time(t) => time(*t),
        Value::Enum(_) | Value::Row(_) => return None,
    })
}

/// `$1299.00`, `-$5.00` (no grouping commas: they are not source syntax).
fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    format!("{sign}${}.{:02}", abs / 100, abs % 100)
}

fn date(d: Date) -> String {
    format!("@{d}")
}

fn time(t: Time) -> String {
    format!("@{t}")
}

/// A text literal: quoted, with `\ " { }` and newlines escaped.
pub fn text(t: &str) -> String {
    format!("\"{}\"", escape(t))
}

/// The body of a string literal that reads as exactly `t`.
pub fn escape(t: &str) -> String {
    let mut out = String::with_capacity(t.len() + 2);
    for ch in t.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Whether `t` can stand in a sentence as a quoted phrase the agent types
/// (§2.4: the phrase between escaped quotes becomes typeable, so it must
/// not hold a quote itself, and it must not be empty or span lines).
pub fn quotable(t: &str) -> bool {
    !t.trim().is_empty() && !t.contains(['"', '\n', '\\'])
}

/// What a generated declaration says and checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// `goal <expr>`.
    Goal(String),
    /// `answer <expr>`.
    Answer(String),
    /// `answer ["a", "b"]`.
    Texts(Vec<String>),
}

/// A task declaration: `say` is the plain sentence (escaped here), `values`
/// the texts to type that the sentence does not quote.
pub fn declaration(
    name: &str,
    say: &str,
    values: &[String],
    horizon: u32,
    check: &Check,
) -> String {
    let mut s = format!("task {name} {{\n  say \"{}\"\n", escape(say));
    if !values.is_empty() {
        let list: Vec<String> = values.iter().map(|v| text(v)).collect();
        s.push_str(&format!("  values [{}]\n", list.join(", ")));
    }
    s.push_str(&format!("  horizon {horizon}\n"));
    match check {
        Check::Goal(g) => s.push_str(&format!("  goal {g}\n")),
        Check::Answer(a) => s.push_str(&format!("  answer {a}\n")),
        Check::Texts(ts) => {
            let list: Vec<String> = ts.iter().map(|t| text(t)).collect();
            s.push_str(&format!("  answer [{}]\n", list.join(", ")));
        }
    }
    s.push_str("}\n");
    s
}
