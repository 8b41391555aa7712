//! Consistency checks that run the program: C301 (the seed data breaks an
//! invariant) and C303 (a hard-coded literal duplicates a field the page could
//! show, in [`hardcoded`]). They need the lowered IR and the reference
//! interpreter, so they run after lowering, on programs with no errors; so
//! does the exact half of M205 for task `setup`s with loops or conditions
//! ([`crate::check::semantic::check_setup_runs`]). Being above [`crate::lower`]
//! they live beside it, not in [`crate::check`], whose static analyses lowering
//! consumes.

pub mod hardcoded;

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::lower::Lowered;
use crate::syntax::ast::SourceFile;
use serde_json::json;
use wsite_runtime::interp::eval::{eval_bool, Context};
use wsite_runtime::interp::render::render;
use wsite_runtime::interp::state::Database;
use wsite_runtime::ir::{Expr, Ty, Value};

/// Runs every consistency check on a lowered program; `files` are its ASTs
/// (for the spans of page texts).
pub fn check(lowered: &Lowered, files: &[SourceFile], diags: &mut Diagnostics) {
    check_invariants(lowered, diags);
    hardcoded::check(lowered, files, diags);
    crate::check::semantic::check_setup_runs(&lowered.program, files, diags);
}

/// C301: every invariant must hold on the seed data and the session's initial
/// values. An invariant whose evaluation faults (a division by zero, a `none`
/// row) does not hold either: the spec makes a faulting predicate false.
fn check_invariants(lowered: &Lowered, diags: &mut Diagnostics) {
    let program = &lowered.program;
    let db = Database::from_seed(program);
    let session: Vec<_> = program.session.iter().map(|s| s.init.clone()).collect();
    let ctx = Context {
        program,
        db: &db,
        session: &session,
        nav: None,
    };
    for (inv, span) in program.invariants.iter().zip(&lowered.invariant_spans) {
        let mut frame = vec![wsite_runtime::ir::Value::None; inv.frame as usize];
        let (holds, why) = match eval_bool(&ctx, &mut frame, &inv.cond) {
            Ok(holds) => (holds, "it is false on the seed data".to_string()),
            Err(fault) => (
                false,
                format!("evaluating it on the seed data fails: {fault}"),
            ),
        };
        if !holds {
            let culprits = violating_rows(&ctx, &inv.cond, inv.frame);
            let why = match culprits.first() {
                Some((_, shown)) if culprits.len() == 1 => format!("false for the row {shown}"),
                Some(_) => format!("false for {} rows: {}", culprits.len(), list(&culprits)),
                None => why,
            };
            let evidence =
                json!({ "violating_rows": culprits.iter().map(|(id, _)| id).collect::<Vec<_>>() });
            diags.push(
                Diagnostic::new(Code::C301, *span, format!("seed data violates invariant `{}`", inv.name))
                    .label(why)
                    .help("fix the seed rows (or the session's initial values) so the invariant holds, or correct the invariant")
                    .object(format!("invariant {}", inv.name))
                    .evidence(evidence),
            );
        }
    }
}

/// For an invariant `all x in T: p`, the rows (id and how they render) for
/// which `p` does not hold: what a user has to fix. Other shapes name no rows.
fn violating_rows(ctx: &Context<'_>, cond: &Expr, frame_size: u32) -> Vec<(i64, String)> {
    let Expr::All(scan, body) = cond else {
        return Vec::new();
    };
    let Some(table) = ctx.db.tables.get(scan.table as usize) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for row in table.rows().iter() {
        let mut frame = vec![Value::None; frame_size as usize];
        if let Some(slot) = frame.get_mut(scan.binder as usize) {
            *slot = Value::Row(row.id);
        }
        let selected = match &scan.filter {
            Some(f) => eval_bool(ctx, &mut frame, f).unwrap_or(false),
            None => true,
        };
        if selected && !eval_bool(ctx, &mut frame, body).unwrap_or(false) {
            let shown = render(
                ctx.program,
                ctx.db,
                &Value::Row(row.id),
                &Ty::Row(scan.table),
            );
            out.push((row.id, format!("`{shown}` (id {})", row.id)));
        }
    }
    out
}

/// "`Desk` (id 2), `Shelf` (id 5)", at most five.
fn list(rows: &[(i64, String)]) -> String {
    let shown: Vec<&str> = rows.iter().take(5).map(|(_, s)| s.as_str()).collect();
    let more = if rows.len() > 5 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}
