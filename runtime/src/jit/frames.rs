//! The static types of frame slots, which the IR does not record: the JIT must
//! know what kind of value a `Local` holds to lower the operators on it.
//!
//! A marker's `requires` see its parameters, typed by their declarations. A
//! task's goal and progress predicates see the task frame after `setup`: the
//! template binder (a row of the template's table) and whatever `setup` bound,
//! typed here by a small inference over `let` values. A slot whose type this
//! cannot tell (assigned values of two kinds, an expression it does not type)
//! stays unknown, and a predicate reading it is not compiled. The inference need
//! not be perfect to be safe: every call checks the frame's actual values
//! against the kinds the code was compiled for (`JitPredicate::eval`).

use crate::ir::{self, AggKind, BinaryOp, Builtin, Expr, Slot, Stmt, Ty, UnaryOp};

/// What is known of one slot.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Known {
    Unset,
    Is(Ty),
    /// Assigned values of different types.
    Mixed,
}

/// A frame slot's index, when it is a plausible one.
fn at(slot: Slot) -> Option<usize> {
    usize::try_from(slot).ok().filter(|&i| i < 1 << 16)
}

/// The slot types of a task's frame after `setup`.
pub(crate) fn task_slots(program: &ir::Program, task: &ir::TaskDef) -> Vec<Option<Ty>> {
    let size = at(task.frame).unwrap_or(0);
    let mut slots = vec![Known::Unset; size];
    if let Some(t) = &task.template {
        assign(&mut slots, t.scan.binder, Some(Ty::Row(t.scan.table)));
    }
    statements(program, &mut slots, &task.setup);
    slots
        .into_iter()
        .map(|k| match k {
            Known::Is(ty) => Some(ty),
            Known::Unset | Known::Mixed => None,
        })
        .collect()
}

/// The slot types of a marker's frame when its `requires` run: its parameters.
pub(crate) fn marker_slots(marker: &ir::MarkerDef) -> Vec<Option<Ty>> {
    marker.params.iter().map(|p| Some(p.ty.clone())).collect()
}

/// The slot types of a uniqueness invariant's check of one row
/// (`ir::unique`): the row it tests, in the outer binder's slot.
pub(crate) fn alone_slots(key: &ir::unique::UniqueKey) -> Vec<Option<Ty>> {
    let Some(row) = at(key.row) else {
        return Vec::new();
    };
    let mut slots = vec![None; row + 1];
    if let Some(cell) = slots.get_mut(row) {
        *cell = Some(Ty::Row(key.table));
    }
    slots
}

/// The slot types of a marker's frame while its body runs: the parameters,
/// then whatever the body binds (`let`, `insert ... as`, `for` binders). A
/// slot assigned values of two types is unknown.
pub(crate) fn marker_body_slots(program: &ir::Program, marker: &ir::MarkerDef) -> Vec<Option<Ty>> {
    let size = at(marker.frame).unwrap_or(0).max(marker.params.len());
    let mut slots = vec![Known::Unset; size];
    for (i, p) in marker.params.iter().enumerate() {
        if let Ok(slot) = Slot::try_from(i) {
            assign(&mut slots, slot, Some(p.ty.clone()));
        }
    }
    statements(program, &mut slots, &marker.body);
    slots
        .into_iter()
        .map(|k| match k {
            Known::Is(ty) => Some(ty),
            Known::Unset | Known::Mixed => None,
        })
        .collect()
}

fn assign(slots: &mut Vec<Known>, slot: Slot, ty: Option<Ty>) {
    let Some(i) = at(slot) else { return };
    if i >= slots.len() {
        slots.resize(i + 1, Known::Unset);
    }
    let ty = ty.map(|t| base(&t).clone());
    if let Some(cell) = slots.get_mut(i) {
        *cell = match (&*cell, ty) {
            (Known::Unset, Some(t)) => Known::Is(t),
            (Known::Is(old), Some(t)) if *old == t => Known::Is(t),
            _ => Known::Mixed,
        };
    }
}

fn statements(program: &ir::Program, slots: &mut Vec<Known>, stmts: &[Stmt]) {
    for s in stmts {
        match s {
            Stmt::Let(slot, e) => {
                let ty = infer(program, slots, &mut Vec::new(), e);
                assign(slots, *slot, ty);
            }
            Stmt::Insert {
                slot: Some(slot),
                table,
                ..
            } => assign(slots, *slot, Some(Ty::Row(*table))),
            Stmt::For(scan, body) => {
                // The binder holds rows of the table while (and, if the loop
                // does not restore it, after) the loop runs.
                assign(slots, scan.binder, Some(Ty::Row(scan.table)));
                statements(program, slots, body);
            }
            Stmt::If(_, then, otherwise) => {
                statements(program, slots, then);
                statements(program, slots, otherwise);
            }
            Stmt::Insert { slot: None, .. }
            | Stmt::SetField { .. }
            | Stmt::SetSession(..)
            | Stmt::Delete { .. }
            | Stmt::DeleteAll(_)
            | Stmt::Reject(_)
            | Stmt::Go(_) => {}
        }
    }
}

/// `Optional(T)` → `T`.
fn base(ty: &Ty) -> &Ty {
    match ty {
        Ty::Optional(inner) => base(inner),
        other => other,
    }
}

/// The (non-optional) type of `e`'s values, when simple rules tell it.
fn infer(
    program: &ir::Program,
    slots: &[Known],
    scope: &mut Vec<(Slot, Ty)>,
    e: &Expr,
) -> Option<Ty> {
    let field_ty = |table: u32, field: u32| {
        let t = program.tables.get(usize::try_from(table).ok()?)?;
        Some(base(&t.fields.get(usize::try_from(field).ok()?)?.ty).clone())
    };
    Some(match e {
        Expr::Const(v) => crate::layout::value_ty(v)?,
        Expr::Local(slot) => {
            if let Some((_, ty)) = scope.iter().rev().find(|(s, _)| s == slot) {
                return Some(ty.clone());
            }
            match slots.get(at(*slot)?)? {
                Known::Is(ty) => ty.clone(),
                Known::Unset | Known::Mixed => return None,
            }
        }
        Expr::Session(s) => base(&program.session.get(usize::try_from(*s).ok()?)?.ty).clone(),
        Expr::Field { table, field, .. } => field_ty(*table, *field)?,
        Expr::RowId(_) | Expr::Count(_) => Ty::Int,
        Expr::Lookup { table, .. } => Ty::Row(*table),
        Expr::Find(scan) => Ty::Row(scan.table),
        Expr::Unary(UnaryOp::Not, _)
        | Expr::In(..)
        | Expr::Exists(..)
        | Expr::All(..)
        | Expr::Visited(_)
        | Expr::PageIs(_) => Ty::Bool,
        Expr::Unary(UnaryOp::Neg, e) => infer(program, slots, scope, e)?,
        Expr::Binary(op, l, r) => match op {
            BinaryOp::Or
            | BinaryOp::And
            | BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => Ty::Bool,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                let a = infer(program, slots, scope, l)?;
                let b = infer(program, slots, scope, r)?;
                ir::arith_type(*op, &a, &b)?
            }
        },
        Expr::Aggregate { kind, value, scan } => match kind {
            AggKind::Sum => Ty::Int,
            AggKind::SumMoney => Ty::Money,
            AggKind::Min | AggKind::Max => {
                scope.push((scan.binder, Ty::Row(scan.table)));
                let ty = infer(program, slots, scope, value);
                scope.pop();
                ty?
            }
        },
        Expr::Call(f, args) => match f {
            Builtin::Lower
            | Builtin::Upper
            | Builtin::Trim
            | Builtin::Left
            | Builtin::Right
            | Builtin::Replace
            | Builtin::Plural => Ty::Text,
            Builtin::Len | Builtin::DaysBetween | Builtin::ToInt => Ty::Int,
            Builtin::ToMoney => Ty::Money,
            Builtin::Contains | Builtin::StartsWith | Builtin::EndsWith => Ty::Bool,
            Builtin::Today => Ty::Date,
            Builtin::Abs => infer(program, slots, scope, args.first()?)?,
        },
        Expr::Text(_) => Ty::Text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::fixture::{self, PRODUCT};
    use crate::ir::Value;

    fn task(frame: u32, setup: Vec<Stmt>) -> ir::TaskDef {
        ir::TaskDef {
            name: "t".into(),
            template: Some(ir::TaskTemplate {
                scan: fixture::over(0, PRODUCT, None),
                binder_name: "p".into(),
                limit: None,
            }),
            say: vec![],
            start: None,
            horizon: 3,
            goal: None,
            answer: None,
            progress: vec![],
            key: vec![],
            values: vec![],
            setup,
            frame,
        }
    }

    #[test]
    fn template_binder_and_setup_lets_are_typed() {
        let program = fixture::program();
        let price = fixture::fld(fixture::local(0), PRODUCT, fixture::PRICE);
        let t = task(
            4,
            vec![
                Stmt::Let(1, price),
                Stmt::Let(2, fixture::int(3)),
                Stmt::Let(3, fixture::int(3)),
                Stmt::Let(3, Expr::Const(Value::Text("x".into()))),
            ],
        );
        assert_eq!(
            task_slots(&program, &t),
            vec![Some(Ty::Row(PRODUCT)), Some(Ty::Money), Some(Ty::Int), None]
        );
    }
}
