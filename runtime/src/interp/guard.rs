//! Page guards (LANGUAGE.md §3, 1.1): where a navigation lands.
//!
//! Navigating to a page — a link, a navigating button, a marker's `go`, a
//! task's start page — first checks the page's guards in order, in a frame
//! holding the page's arguments. The first guard whose condition is false (a
//! condition that faults counts as false, as everywhere else) sends the
//! navigation on to its `else` page, whose arguments are evaluated in that
//! frame and the current state; that page's guards are checked in turn. The
//! step is never rejected by a guard. Two cases cannot redirect and show the
//! page reached so far instead (docs/decisions-pending/page.md): a guard
//! whose `else` arguments fault, and a chain that has already redirected as
//! many times as the site has pages (the guards redirect in a cycle). The JIT
//! (`jit::guard`) follows the same rule.

use super::eval::{eval, eval_bool, Context};
use crate::ir::{PageId, Value};

/// Frames never grow past this (as in `eval`).
const MAX_SLOTS: usize = 1 << 16;

/// The page a navigation to `page` with `args` lands on, and its arguments.
pub fn land(ctx: &Context<'_>, page: PageId, args: Vec<Value>) -> (PageId, Vec<Value>) {
    let mut at = (page, args);
    for _ in 0..ctx.program.pages.len() {
        match redirect(ctx, at.0, &at.1) {
            Some(next) => at = next,
            None => break,
        }
    }
    at
}

/// Where the first false guard of `page` sends a navigation with `args`;
/// `None` when the page is shown (every guard holds, or the failing guard's
/// `else` arguments fault, or there is no such page).
pub fn redirect(ctx: &Context<'_>, page: PageId, args: &[Value]) -> Option<(PageId, Vec<Value>)> {
    let def = ctx
        .program
        .pages
        .get(usize::try_from(page).unwrap_or(usize::MAX))?;
    if def.guards.is_empty() {
        return None;
    }
    let size = usize::try_from(def.frame).unwrap_or(0).min(MAX_SLOTS);
    let mut frame = args.to_vec();
    frame.resize(size.max(args.len()), Value::None);
    for guard in &def.guards {
        if eval_bool(ctx, &mut frame, &guard.cond).unwrap_or(false) {
            continue;
        }
        let to: Result<Vec<Value>, _> = guard
            .redirect
            .args
            .iter()
            .map(|a| eval(ctx, &mut frame, a))
            .collect();
        return to.ok().map(|to| (guard.redirect.page, to));
    }
    None
}
