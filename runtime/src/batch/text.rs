//! The text observation for language-model agents (§5.2's text form): the
//! page's address, title, the instruction and the alert, then one line per
//! element (`[7] link "ThinkPad X1"`), then the action table, one line per
//! row, numbered as the discrete action that takes it (`3: click [7]`).
//!
//! The rows are the batch's, so the number an agent reads is the number it
//! sends back, and a row cut from the table is not listed.

use crate::env::observe::quote;
use crate::env::{ActionKind, Env};
use std::fmt::Write;

/// `env`'s observation and action table (`table[row]` = candidate index).
pub(super) fn text_form(env: &Env<'_>, table: &[usize]) -> String {
    let obs = env.observation();
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "url: {}", obs.url);
    let _ = writeln!(out, "title: {}", quote(&obs.title));
    let _ = writeln!(out, "instruction: {}", quote(&obs.instruction));
    if let Some(alert) = &obs.alert {
        let _ = writeln!(out, "alert: {}", quote(alert));
    }
    out.push_str("elements:\n");
    if !obs.axtree.is_empty() {
        out.push_str(&obs.axtree);
        out.push('\n');
    }
    out.push_str("actions:\n");
    for (row, &candidate) in table.iter().enumerate() {
        let Some(a) = env.actions().get(candidate) else {
            continue;
        };
        let kind = match a.kind {
            ActionKind::Click => "click",
            ActionKind::Type => "type",
            ActionKind::Select => "select",
            ActionKind::Answer => "answer",
        };
        let _ = write!(out, "{row}: {kind}");
        if let Some(e) = a.element {
            let _ = write!(out, " [{e}]");
        }
        if let Some(t) = &a.text {
            let _ = write!(out, " {}", quote(t));
        }
        out.push('\n');
    }
    out
}
