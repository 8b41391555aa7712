//! Page guards (LANGUAGE.md §3, 1.1): where a navigation lands.
//!
//! Navigating to a page — a link, a navigating button, a marker's `go`, a
//! task's start page — first checks the page's guards in order, in a frame
//! holding the page's arguments. The first guard whose condition is false (a
//! condition that faults counts as false, as everywhere else) sends the
//! navigation on to its `else` page, whose arguments are evaluated in that
//! frame and the current state; that page's guards are checked in turn. The
//! step is never rejected by a guard. Two cases cannot redirect and show the
//! page reached so far instead (docs/DECISIONS.md 51): a guard
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

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use super::super::state::Database;
    use super::*;
    use crate::ir::{BinaryOp, Expr, PageCall, PageDef, PageGuard, ParamDef, Program, Ty};

    /// A page taking an `Int` `n`, with `guards`.
    fn page(name: &str, guards: Vec<PageGuard>) -> PageDef {
        PageDef {
            name: name.into(),
            params: vec![ParamDef {
                name: "n".into(),
                ty: Ty::Int,
            }],
            route: None,
            guards,
            title: None,
            body: vec![],
            frame: 1,
        }
    }

    fn guard(cond: Expr, to: PageId, arg: Expr) -> PageGuard {
        PageGuard {
            cond,
            redirect: PageCall {
                page: to,
                args: vec![arg],
            },
        }
    }

    fn landing(program: &Program, page: PageId, n: i64) -> (PageId, Vec<Value>) {
        let db = Database::from_seed(program);
        let ctx = Context {
            program,
            db: &db,
            session: &[],
            nav: None,
        };
        land(&ctx, page, vec![Value::Int(n)])
    }

    #[test]
    fn guards_are_checked_in_order_and_chains_are_followed() {
        let mut program = program();
        let positive = bin(BinaryOp::Gt, local(0), int(0));
        let small = bin(BinaryOp::Lt, local(0), int(10));
        program.pages = vec![
            // 0: n > 0 else 1(n + 100); n < 10 else 2(n)
            page(
                "A",
                vec![
                    guard(positive, 1, bin(BinaryOp::Add, local(0), int(100))),
                    guard(small, 2, local(0)),
                ],
            ),
            // 1: n > 50 else 0(1)
            page(
                "B",
                vec![guard(bin(BinaryOp::Gt, local(0), int(50)), 0, int(1))],
            ),
            page("C", vec![]),
        ];
        assert_eq!(landing(&program, 0, 5), (0, vec![Value::Int(5)]));
        // The first guard fails: B(100), whose guard holds.
        assert_eq!(landing(&program, 0, -3), (1, vec![Value::Int(97)]));
        // The second guard fails: C(12).
        assert_eq!(landing(&program, 0, 12), (2, vec![Value::Int(12)]));
        // B(7) fails its guard: A(1), which is shown.
        assert_eq!(landing(&program, 1, 7), (0, vec![Value::Int(1)]));
    }

    #[test]
    fn a_fault_redirects_and_faulting_arguments_or_a_cycle_stop_the_chain() {
        let mut program = program();
        let faulty = bin(BinaryOp::Div, int(1), int(0));
        let no = Expr::Const(Value::Bool(false));
        program.pages = vec![
            // A condition that faults counts as false.
            page("A", vec![guard(faulty.clone(), 2, int(7))]),
            // `else` arguments that fault: the page shows.
            page("B", vec![guard(no.clone(), 2, faulty)]),
            // C and D redirect to each other for ever.
            page("C", vec![guard(no.clone(), 3, local(0))]),
            page(
                "D",
                vec![guard(no, 2, bin(BinaryOp::Add, local(0), int(1)))],
            ),
        ];
        assert_eq!(landing(&program, 1, 3), (1, vec![Value::Int(3)]));
        // A → C(7) → D(7) → C(8) → D(8): four redirects, as many as pages.
        assert_eq!(landing(&program, 0, 0), (3, vec![Value::Int(8)]));
    }
}
