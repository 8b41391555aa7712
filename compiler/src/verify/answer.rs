//! The F405 cases about the answer itself (§5.3): an expected answer that is
//! `none` (the instance is defective: "the expected answer is empty", with a
//! `where … != none` guard to add), and one the site shows only inside a
//! longer text (show the value on its own). The prover finds both
//! (`wsite_runtime::prove::AnswerIssue`); this module words them.

use super::lookup::Ast;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::TaskDecl;
use serde_json::json;
use wsite_runtime::prove::{AnswerIssue, EMPTY_SUMMARY};

/// F405 for an instance whose expected answer is `none`; returns the reason
/// for the CLI.
pub fn empty(ast: &Ast<'_>, decl: &TaskDecl, instance: &str, diags: &mut Diagnostics) -> String {
    let answer = decl.answer.as_ref().map(|e| (e.span, ast.text(e.span)));
    let (span, source) = answer.unwrap_or((decl.name.span, "the answer"));
    diags.push(
        Diagnostic::new(Code::F405, span, EMPTY_SUMMARY)
            .label(format!("`{source}` is `none` in `{instance}`"))
            .related(decl.name.span, "the task")
            .help(guard_help(ast, decl, source))
            .object(format!("task {}", decl.name.name))
            .evidence(json!({ "explanation": EMPTY_SUMMARY, "instance": instance })),
    );
    EMPTY_SUMMARY.into()
}

/// "add a `where b.due != none` guard", shaped to the task's template.
fn guard_help(ast: &Ast<'_>, decl: &TaskDecl, source: &str) -> String {
    let guard = format!("{source} != none");
    match &decl.template {
        Some(t) => match &t.filter {
            Some(filter) => format!(
                "add a `where … != none` guard: `for {} in {} where {} and {guard}`",
                t.binder.name,
                t.table.name,
                ast.text(filter.span)
            ),
            None => format!(
                "add a `where … != none` guard: `for {} in {} where {guard}`",
                t.binder.name, t.table.name
            ),
        },
        None => format!(
            "give `{source}` a value in the seed data or in `setup`, or ask for something that has one"
        ),
    }
}

/// The help of F405 when no state offered a matching answer.
pub fn unanswered_help(issue: Option<&AnswerIssue>) -> String {
    match issue {
        Some(AnswerIssue::Buried { page, text }) => format!(
            "show the value on its own: give it its own `text` element that interpolates just that value (`text \"{{…}}\"`), not only the longer text `{text}` on `{page}`"
        ),
        _ => "show the expected answer on a page the task can reach, as a value the agent can answer with".into(),
    }
}
