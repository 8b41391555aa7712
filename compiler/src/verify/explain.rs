//! The prover's findings as diagnostics: what to say, where to point, and what
//! to suggest, for F401–F406.

use super::lookup::{conjuncts, Ast};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::{ExprKind, Span, TaskDecl};
use serde_json::json;
use wsite_runtime::env::TaskInstance;
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{AnswerIssue, Explanation, MarkerReport, MarkerStatus, Proof, Verdict};

/// F403: a template that matches no row.
pub fn no_instance(ast: &Ast<'_>, task: &str, diags: &mut Diagnostics) {
    let Some(decl) = ast.task(task) else { return };
    let table = decl
        .template
        .as_ref()
        .map_or_else(String::new, |t| t.table.name.clone());
    diags.push(
        Diagnostic::new(
            Code::F403,
            decl.name.span,
            format!("task template `{task}` has no instance"),
        )
        .label(format!(
            "no row of `{table}` matches its `where` in the seed data"
        ))
        .help("seed a row the template matches, or loosen its `where`"),
    );
}

/// F402: goal conjuncts false at the start that nothing can change.
pub fn frozen(
    ast: &Ast<'_>,
    task: &str,
    instance: &str,
    frozen: &[usize],
    diags: &mut Diagnostics,
) -> String {
    let reason = "part of the goal is false at the start and no marker writes what it reads";
    let Some(decl) = ast.task(task) else {
        return reason.into();
    };
    let parts = goal_parts(decl);
    for &i in frozen {
        let span = parts.get(i).copied().unwrap_or(decl.name.span);
        diags.push(
            Diagnostic::new(
                Code::F402,
                span,
                format!("task `{instance}` can never succeed: this part of its goal can never hold"),
            )
            .label("false at the start, and no marker writes anything it reads")
            .related(decl.name.span, "the task")
            .help("add a marker (and a button for it) that writes what this condition reads, or correct the condition")
            .object(format!("task {task}")),
        );
    }
    reason.into()
}

/// A task instance that cannot even be reset (its `setup` fails).
pub fn cannot_start(
    ast: &Ast<'_>,
    task: &str,
    instance: &str,
    why: &str,
    diags: &mut Diagnostics,
) -> String {
    let message = format!("task `{instance}` cannot start");
    let help = "fix the task's `setup` or `start` so the episode can begin";
    on_task(ast, task, message, why, help, diags)
}

/// The prover failed on an instance it could start (a self-check that
/// disagreed, an engine error): F401's severity, so `check` fails, but
/// said as what it is, since the task is neither proven nor refuted.
pub fn prover_failed(
    ast: &Ast<'_>,
    task: &str,
    instance: &str,
    why: &str,
    diags: &mut Diagnostics,
) -> String {
    let message = format!("the prover failed on task `{instance}`: its reachability is undecided");
    let help = "this is a fault in wsitec, not in the site: please report it with this file";
    on_task(ast, task, message, why, help, diags)
}

/// An F401 on the task's name, labelled with `why`; `why` as the reason.
fn on_task(
    ast: &Ast<'_>,
    task: &str,
    message: String,
    why: &str,
    help: &str,
    diags: &mut Diagnostics,
) -> String {
    if let Some(decl) = ast.task(task) {
        diags.push(
            Diagnostic::new(Code::F401, decl.name.span, message)
                .label(why.to_string())
                .help(help),
        );
    }
    why.into()
}

/// F404: the goal holds before any step.
pub fn initially_true(ast: &Ast<'_>, task: &str, instance: &str, diags: &mut Diagnostics) {
    let Some(decl) = ast.task(task) else { return };
    let span = decl.goal.as_ref().map_or(decl.name.span, |g| g.span);
    diags.push(
        Diagnostic::new(
            Code::F404,
            span,
            format!("the goal of `{instance}` already holds before any step"),
        )
        .label("true in the initial state")
        .related(decl.name.span, "the task")
        .help("a task should need work: check the goal against the seed data and `setup`"),
    );
}

/// F401, F405 or F406 with the prover's explanation. Returns a one-line
/// reason for the CLI.
pub fn no_witness(
    ast: &Ast<'_>,
    program: &Program,
    inst: &TaskInstance,
    proof: &Proof,
    needed: Option<usize>,
    diags: &mut Diagnostics,
) -> String {
    let Some(task) = program.tasks.get(inst.task) else {
        return String::new();
    };
    let Some(expl) = &proof.explanation else {
        return String::new();
    };
    let Some(decl) = ast.task(&task.name) else {
        return expl.summary.clone();
    };
    if expl.answer == Some(AnswerIssue::Empty) {
        return super::answer::empty(ast, decl, &inst.name, diags);
    }
    let retrieval = task.answer.is_some();
    let (code, message) = match (proof.verdict, retrieval) {
        (Verdict::Undecided, _) => (
            Code::F406,
            format!(
                "could not decide whether task `{}` can be completed",
                inst.name
            ),
        ),
        (_, true) => (
            Code::F405,
            format!(
                "task `{}` cannot be answered within {} steps",
                inst.name, task.horizon
            ),
        ),
        _ => (
            Code::F401,
            format!(
                "task `{}` cannot be completed within {} steps",
                inst.name, task.horizon
            ),
        ),
    };
    let mut d = Diagnostic::new(code, decl.name.span, message)
        .label(expl.summary.clone())
        .object(format!("task {}", task.name))
        .evidence(evidence(expl, proof));
    let parts = goal_parts(decl);
    for u in &expl.unmet {
        let span = parts.get(u.index).copied().unwrap_or(decl.name.span);
        d = d.related(span, "this part of the goal held in no explored state");
        for w in &u.writers {
            d = writer_labels(ast, d, w);
        }
    }
    d = match (code, needed) {
        (Code::F406, _) => d.help(
            "raise the budget (`--budget N`), or shrink the space: fewer typeable values, smaller tables, a shorter horizon",
        ),
        (_, Some(n)) => d.help(format!(
            "a witness needs {n} steps: raise `horizon` to at least {n}, or shorten the path to the goal"
        )),
        (Code::F405, None) => d.help(super::answer::unanswered_help(expl.answer.as_ref())),
        _ => d.help(
            page_goal_help(decl, ast, expl)
                .or_else(|| {
                    let first = expl.unmet.iter().flat_map(|u| &u.writers).next()?;
                    row_refusal_help(ast, first)
                })
                .unwrap_or_else(|| suggestion(expl, retrieval)),
        ),
    };
    d.after.extend(blamed_objects(expl));
    diags.push(d);
    expl.summary.clone()
}

/// The spans of a task's goal conjuncts (in the prover's order).
fn goal_parts(decl: &TaskDecl) -> Vec<Span> {
    decl.goal
        .as_ref()
        .map(|g| conjuncts(g).iter().map(|c| c.span).collect())
        .unwrap_or_default()
}

/// One related label per writer marker (and its refusing `requires`).
fn writer_labels(ast: &Ast<'_>, mut d: Diagnostic, w: &MarkerReport) -> Diagnostic {
    let Some(marker) = ast.marker(&w.marker) else {
        return d;
    };
    let name = &w.marker;
    let text = match &w.status {
        MarkerStatus::NoTrigger => {
            format!("`{name}` could make it hold, but no button triggers it")
        }
        MarkerStatus::PagesUnreached { pages } => format!(
            "`{name}` could make it hold, but its button is on {}, which no explored state reached",
            names(pages)
        ),
        MarkerStatus::NoStepsLeft { pages } => format!(
            "`{name}` could make it hold, but its button is on {}, reached only with no step left",
            names(pages)
        ),
        MarkerStatus::NeverShown { pages } => format!(
            "`{name}` could make it hold, but its button never appeared on {}",
            names(pages)
        ),
        MarkerStatus::AlwaysDisabled { pages } => format!(
            "`{name}` could make it hold, but its button on {} was always disabled",
            names(pages)
        ),
        MarkerStatus::AlwaysRejected {
            attempts, alert, ..
        } => format!(
            "`{name}` was tried {} and always refused: {alert}",
            times(*attempts)
        ),
        MarkerStatus::Committed { commits } => {
            format!(
                "`{name}` committed {}, yet this part never held",
                times(*commits)
            )
        }
    };
    // A refusal on this instance's own row says more than what the marker
    // did on other rows.
    if let Some(row) = &w.row_refusal {
        let call = format!("{name}({})", row.args.join(", "));
        let refused = if row.committed {
            "committed, then was refused"
        } else {
            "was always refused"
        };
        d = d.related(
            marker.name.span,
            format!("`{call}`, this task's row, {refused}: {}", row.alert),
        );
        if let Some(req) = row.requirement.and_then(|i| marker.requires.get(i)) {
            d = d.related(
                req.cond.span,
                operand_text(ast, &req.cond.kind, &row.operands),
            );
        }
        return d;
    }
    d = d.related(marker.name.span, text);
    if let MarkerStatus::AlwaysRejected {
        requirement: Some(i),
        operands,
        ..
    } = &w.status
    {
        if let Some(req) = marker.requires.get(*i) {
            d = d.related(req.cond.span, operand_text(ast, &req.cond.kind, operands));
        }
    }
    d
}

/// The help for a writer refused on the instance's row: the refusing
/// `requires` as written, and what it saw.
fn row_refusal_help(ast: &Ast<'_>, w: &MarkerReport) -> Option<String> {
    let row = w.row_refusal.as_ref()?;
    let call = format!("{}({})", w.marker, row.args.join(", "));
    // Refusals by the body or an invariant keep the marker-level advice.
    let req = ast.marker(&w.marker)?.requires.get(row.requirement?)?;
    let cond = ast.text(req.cond.span);
    let seen = operand_text(ast, &req.cond.kind, &row.operands);
    Some(if row.committed {
        format!(
            "`{call}` stops at `requires {cond}` ({seen}) before the goal holds: relax the \
             requirement or ask for less in the goal"
        )
    } else {
        format!(
            "`{call}` is refused by `requires {cond}` ({seen}): make it hold for this row \
             (seed data, an earlier step, a typeable value), or relax the requirement"
        )
    })
}

/// For an unmet `page is P(args)` part: where a link to `P` is missing.
/// The example passes the goal's own arguments, which are in scope in the
/// task, never a page parameter's name.
fn page_goal_help(decl: &TaskDecl, ast: &Ast<'_>, expl: &Explanation) -> Option<String> {
    let goal = decl.goal.as_ref()?;
    let parts = conjuncts(goal);
    expl.unmet.iter().find_map(|u| {
        let ExprKind::PageIs(r) = &parts.get(u.index)?.kind else {
            return None;
        };
        let page = &r.name.name;
        let args: Vec<&str> = r.args.iter().map(|a| ast.text(a.span)).collect();
        Some(if args.is_empty() {
            format!("link `{page}` from a page the task can reach")
        } else {
            format!(
                "link `{page}` from a page the task can reach, passing the row the goal names \
                 (`{page}({})`), for example from a loop over its table",
                args.join(", ")
            )
        })
    })
}

/// "false when tried: `p.stock` was 0 and `qty` was 2" (literal sides need no
/// telling).
fn operand_text(ast: &Ast<'_>, cond: &ExprKind, values: &[String]) -> String {
    let (ExprKind::Binary(_, l, r), [a, b]) = (cond, values) else {
        return "false when tried".into();
    };
    let sides: Vec<String> = [(l, a), (r, b)]
        .into_iter()
        .filter(|(e, _)| !is_literal(&e.kind))
        .map(|(e, v)| format!("`{}` was {v}", ast.text(e.span)))
        .collect();
    if sides.is_empty() {
        "false when tried".into()
    } else {
        format!("false when tried: {}", sides.join(" and "))
    }
}

fn is_literal(e: &ExprKind) -> bool {
    matches!(
        e,
        ExprKind::Int(_)
            | ExprKind::Money(_)
            | ExprKind::Bool(_)
            | ExprKind::Text(_)
            | ExprKind::Date(_)
            | ExprKind::Time(_)
            | ExprKind::None
    )
}

/// "once", "4 times".
fn times(n: u32) -> String {
    if n == 1 {
        "once".into()
    } else {
        format!("{n} times")
    }
}

fn names(pages: &[String]) -> String {
    let quoted: Vec<String> = pages.iter().map(|p| format!("`{p}`")).collect();
    quoted.join(", ")
}

/// What the explanation blames (for `depends_on`): every marker that could
/// have written an unmet part of the goal, and the unreached pages holding
/// their buttons. A structural defect on one of these (a marker no button
/// triggers, an unreachable or dead-end page) is the repair to make first.
fn blamed_objects(expl: &Explanation) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |object: String| {
        if !out.contains(&object) {
            out.push(object);
        }
    };
    for w in expl.unmet.iter().flat_map(|u| &u.writers) {
        add(format!("marker {}", w.marker));
        if let MarkerStatus::PagesUnreached { pages } = &w.status {
            pages.iter().for_each(|p| add(format!("page {p}")));
        }
    }
    out
}

/// The most useful next edit, from the first writer's story.
fn suggestion(expl: &Explanation, retrieval: bool) -> String {
    if retrieval {
        return super::answer::unanswered_help(None);
    }
    let first = expl.unmet.iter().flat_map(|u| &u.writers).next();
    match first.map(|w| (&w.marker, &w.status)) {
        None if expl.unmet.is_empty() => {
            "the goal's parts each held somewhere, never together: check that they can hold at once".into()
        }
        None => "no marker writes what the goal needs: add one, and a button for it".into(),
        Some((m, MarkerStatus::NoTrigger)) => format!("add a button that triggers `{m}`"),
        Some((_, MarkerStatus::PagesUnreached { pages })) => format!(
            "link {} from a page the task can reach",
            names(pages)
        ),
        Some((m, MarkerStatus::NoStepsLeft { .. })) => format!(
            "raise `horizon`: the task runs out of steps before it can click `{m}`'s button"
        ),
        Some((m, MarkerStatus::NeverShown { .. })) => {
            format!("check the `if` or loop around `{m}`'s button")
        }
        Some((m, MarkerStatus::AlwaysDisabled { .. })) => {
            format!("check the `disabled when` condition of `{m}`'s button")
        }
        Some((m, MarkerStatus::AlwaysRejected {
            invariant: Some(inv),
            ..
        })) => format!(
            "`{m}`'s change always breaks invariant `{inv}`: change what `{m}` writes so the invariant holds, or relax the invariant"
        ),
        Some((m, MarkerStatus::AlwaysRejected { .. })) => format!(
            "make `{m}`'s precondition reachable (seed data, an earlier step, a typeable value), or relax it"
        ),
        Some((m, MarkerStatus::Committed { .. })) => format!(
            "`{m}` fires but does not write what the goal asks: compare its body with the goal"
        ),
    }
}

fn evidence(expl: &Explanation, proof: &Proof) -> serde_json::Value {
    let trace: Vec<String> = expl.closest.trace.iter().map(ToString::to_string).collect();
    json!({
        "explanation": expl.summary,
        "states": proof.states,
        "depth": proof.depth,
        "unmet": expl.unmet,
        "closest": { "progress": expl.closest.progress, "trace": trace },
        "pages_unreached": expl.pages_unreached,
    })
}
