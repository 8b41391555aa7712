//! Evaluating expressions: §3's operators, quantifiers, aggregates and built-ins.
//!
//! Evaluation is a tree walk over `ir::Expr` against a read-only `Database`, the
//! session variables and a frame of local slots. Anything that fails at run time —
//! division by zero, a field of `none`, a reference to a deleted row, overflow — is
//! a `Fault` returned to the caller, who decides what it means there (a predicate
//! is false, a marker is rejected, text shows `—`). Nothing here panics, whatever
//! IR it is given: an IR the checker could not have produced yields
//! `Fault::TypeConfusion`.

use super::builtins::{builtin, calendar_arith};
use super::render::{render, FAILED};
use super::state::{idx, Database};
use crate::ir::{self, AggKind, BinaryOp, Expr, RowScan, Slot, TableId, TextPart, UnaryOp, Value};
use std::cmp::Ordering;

pub use super::fault::Fault;

/// What an expression may read besides its frame.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    pub program: &'a ir::Program,
    pub db: &'a Database,
    pub session: &'a [Value],
    /// Where the episode is and has been: what `visited` and `page is` read.
    /// `None` outside tasks (invariants, seed checks), where they cannot occur.
    pub nav: Option<&'a Navigation>,
}

/// The navigation part of an episode's state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Navigation {
    pub page: ir::PageId,
    pub args: Vec<Value>,
    /// Every page shown this episode (the start page included), with its arguments.
    pub visited: std::collections::BTreeSet<(ir::PageId, Vec<Value>)>,
}

/// A page reference evaluated: the page and its argument values.
fn page_key(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    call: &ir::PageCall,
) -> Result<(ir::PageId, Vec<Value>), Fault> {
    let args = call
        .args
        .iter()
        .map(|a| eval(ctx, frame, a))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((call.page, args))
}

/// Frames never need more slots than this; a larger slot index is a broken IR,
/// refused rather than allocated.
const MAX_SLOTS: usize = 1 << 16;

/// Evaluates `expr`. `frame` holds the local slots; it grows (with `none`) when a
/// binder's slot lies beyond its end, and every binder slot a scan uses is
/// restored afterwards, so evaluation leaves the frame's values as it found them.
pub fn eval(ctx: &Context<'_>, frame: &mut Vec<Value>, expr: &Expr) -> Result<Value, Fault> {
    match expr {
        Expr::Visited(call) => {
            let here = page_key(ctx, frame, call)?;
            let nav = ctx
                .nav
                .ok_or(Fault::TypeConfusion("`visited` outside a task"))?;
            Ok(Value::Bool(nav.visited.contains(&here)))
        }
        Expr::PageIs(call) => {
            let (page, args) = page_key(ctx, frame, call)?;
            let nav = ctx
                .nav
                .ok_or(Fault::TypeConfusion("`page is` outside a task"))?;
            Ok(Value::Bool(nav.page == page && nav.args == args))
        }
        Expr::Const(v) => Ok(v.clone()),
        Expr::Local(slot) => Ok(frame.get(idx(*slot)).cloned().unwrap_or(Value::None)),
        Expr::Session(s) => ctx
            .session
            .get(idx(*s))
            .cloned()
            .ok_or(Fault::TypeConfusion("unknown session variable")),
        Expr::Field { row, table, field } => {
            let row = eval(ctx, frame, row)?;
            field_of(ctx.db, &row, *table, *field)
        }
        Expr::RowId(row) => row_id(eval(ctx, frame, row)?),
        Expr::Lookup { table, id } => lookup(ctx.db, *table, eval(ctx, frame, id)?),
        Expr::Unary(op, e) => unary(*op, eval(ctx, frame, e)?),
        Expr::Binary(op, l, r) => binary(ctx, frame, *op, l, r),
        Expr::In(x, items) => member(ctx, frame, x, items).map(Value::Bool),
        Expr::Exists(scan, body) => exists(ctx, frame, scan, body).map(Value::Bool),
        Expr::All(scan, body) => all(ctx, frame, scan, body).map(Value::Bool),
        Expr::Count(scan) => count(ctx, frame, scan),
        Expr::Aggregate { kind, value, scan } => aggregate(ctx, frame, *kind, value, scan),
        Expr::Find(scan) => find(ctx, frame, scan),
        Expr::Call(f, args) => {
            let vals = args
                .iter()
                .map(|a| eval(ctx, frame, a))
                .collect::<Result<Vec<_>, _>>()?;
            builtin(ctx.program, *f, &vals)
        }
        Expr::Text(parts) => try_render_text(ctx, frame, parts).map(|s| Value::Text(s.into())),
    }
}

/// Evaluates a condition. A fault is returned, not turned into `false`: callers
/// decide (a predicate is false, a marker is rejected).
pub fn eval_bool(ctx: &Context<'_>, frame: &mut Vec<Value>, expr: &Expr) -> Result<bool, Fault> {
    match eval(ctx, frame, expr)? {
        Value::Bool(b) => Ok(b),
        Value::None => Err(Fault::NoneValue),
        _ => Err(Fault::TypeConfusion("a condition is not a Bool")),
    }
}

// ---- rows ----------------------------------------------------------------------

/// `row.field`. The row must still exist: a page argument or local may name a
/// row deleted since it was bound.
fn field_of(db: &Database, row: &Value, table: TableId, field: u32) -> Result<Value, Fault> {
    let id = match row {
        Value::Row(id) => *id,
        Value::None => return Err(Fault::NoneValue),
        _ => return Err(Fault::TypeConfusion("field access on a non-row")),
    };
    let data = db.row(table, id).ok_or(Fault::MissingRow { table, id })?;
    data.values
        .get(idx(field))
        .cloned()
        .ok_or(Fault::TypeConfusion("field index out of range"))
}

/// `row.id`. `Expr::RowId` does not say the row's table, so this cannot check the
/// row still exists; a reference's id is its value either way.
fn row_id(row: Value) -> Result<Value, Fault> {
    match row {
        Value::Row(id) => Ok(Value::Int(id)),
        Value::None => Err(Fault::NoneValue),
        _ => Err(Fault::TypeConfusion("`.id` of a non-row")),
    }
}

/// `T[id]`: a reference to an existing row, or a fault.
fn lookup(db: &Database, table: TableId, id: Value) -> Result<Value, Fault> {
    let id = match id {
        Value::Int(id) => id,
        Value::None => return Err(Fault::NoneValue),
        _ => return Err(Fault::TypeConfusion("row lookup by a non-Int")),
    };
    match db.row(table, id) {
        Some(_) => Ok(Value::Row(id)),
        None => Err(Fault::MissingRow { table, id }),
    }
}

// ---- operators -----------------------------------------------------------------

fn unary(op: UnaryOp, v: Value) -> Result<Value, Fault> {
    match (op, v) {
        (UnaryOp::Neg, Value::Int(n)) => n.checked_neg().map(Value::Int).ok_or(Fault::Overflow),
        (UnaryOp::Neg, Value::Money(c)) => c.checked_neg().map(Value::Money).ok_or(Fault::Overflow),
        (UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
        (_, Value::None) => Err(Fault::NoneValue),
        _ => Err(Fault::TypeConfusion(
            "unary operator on the wrong kind of value",
        )),
    }
}

/// `and`/`or` evaluate their right side only when the left does not decide
/// (so `false and 1/0 == 0` is false); every other operator evaluates both sides,
/// left first.
fn binary(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    op: BinaryOp,
    l: &Expr,
    r: &Expr,
) -> Result<Value, Fault> {
    match op {
        BinaryOp::And => Ok(Value::Bool(
            eval_bool(ctx, frame, l)? && eval_bool(ctx, frame, r)?,
        )),
        BinaryOp::Or => Ok(Value::Bool(
            eval_bool(ctx, frame, l)? || eval_bool(ctx, frame, r)?,
        )),
        _ => {
            let a = eval(ctx, frame, l)?;
            let b = eval(ctx, frame, r)?;
            strict_binary(op, &a, &b)
        }
    }
}

fn strict_binary(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, Fault> {
    match op {
        BinaryOp::Eq => Ok(Value::Bool(a == b)),
        BinaryOp::Ne => Ok(Value::Bool(a != b)),
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => compare(op, a, b),
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
            arith(op, a, b)
        }
        BinaryOp::And | BinaryOp::Or => {
            Err(Fault::TypeConfusion("logic operator evaluated strictly"))
        }
    }
}

/// The order of two values of one ordered kind; `None` when either is `none`
/// (an ordering with `none` is false, not a fault). Text compares by code point,
/// which is exactly the byte order of UTF-8.
fn order(a: &Value, b: &Value) -> Result<Option<Ordering>, Fault> {
    Ok(Some(match (a, b) {
        (Value::None, _) | (_, Value::None) => return Ok(None),
        (Value::Int(x), Value::Int(y)) | (Value::Money(x), Value::Money(y)) => x.cmp(y),
        (Value::Date(x), Value::Date(y)) => x.cmp(y),
        (Value::Time(x), Value::Time(y)) => x.cmp(y),
        (Value::Text(x), Value::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => {
            return Err(Fault::TypeConfusion(
                "ordering of unordered or mismatched values",
            ))
        }
    }))
}

fn compare(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, Fault> {
    let holds = match order(a, b)? {
        None => false,
        Some(o) => match op {
            BinaryOp::Lt => o.is_lt(),
            BinaryOp::Le => o.is_le(),
            BinaryOp::Gt => o.is_gt(),
            _ => o.is_ge(),
        },
    };
    Ok(Value::Bool(holds))
}

/// The arithmetic §3 defines: Int with Int, Money ± Money, Money * Int,
/// Int * Money and Money / Int; and (1.1) Date ± Int, Time ± Int, Date - Date.
fn arith(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, Fault> {
    use BinaryOp::{Add, Div, Mul, Sub};
    match (a, b) {
        (Value::None, _) | (_, Value::None) => Err(Fault::NoneValue),
        (Value::Int(x), Value::Int(y)) => int_op(op, *x, *y).map(Value::Int),
        (Value::Money(x), Value::Money(y)) if matches!(op, Add | Sub) => {
            int_op(op, *x, *y).map(Value::Money)
        }
        (Value::Money(x), Value::Int(y)) if matches!(op, Mul | Div) => {
            int_op(op, *x, *y).map(Value::Money)
        }
        (Value::Int(x), Value::Money(y)) if op == Mul => int_op(op, *x, *y).map(Value::Money),
        _ => calendar_arith(op, a, b),
    }
}

/// Checked 64-bit arithmetic; `/` truncates toward zero and `%` takes the sign of
/// the dividend (Rust's, and C's, convention).
fn int_op(op: BinaryOp, x: i64, y: i64) -> Result<i64, Fault> {
    let r = match op {
        BinaryOp::Add => x.checked_add(y),
        BinaryOp::Sub => x.checked_sub(y),
        BinaryOp::Mul => x.checked_mul(y),
        BinaryOp::Div | BinaryOp::Rem if y == 0 => return Err(Fault::DivisionByZero),
        BinaryOp::Div => x.checked_div(y),
        // `i64::MIN % -1` is 0 mathematically; only the hardware op overflows.
        BinaryOp::Rem => Some(x.wrapping_rem(y)),
        _ => return Err(Fault::TypeConfusion("not an arithmetic operator")),
    };
    r.ok_or(Fault::Overflow)
}

/// `x in [a, b, …]`: like `x == a or x == b or …`, so it stops at the first
/// equal item and later items are not evaluated.
fn member(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    x: &Expr,
    items: &[Expr],
) -> Result<bool, Fault> {
    let x = eval(ctx, frame, x)?;
    for item in items {
        if eval(ctx, frame, item)? == x {
            return Ok(true);
        }
    }
    Ok(false)
}

// ---- scans ---------------------------------------------------------------------

/// Writes `v` into `slot`, growing the frame as needed; returns the old value.
fn swap_slot(frame: &mut Vec<Value>, slot: Slot, v: Value) -> Result<Value, Fault> {
    let i = idx(slot);
    if i >= MAX_SLOTS {
        return Err(Fault::TypeConfusion("local slot out of range"));
    }
    if i >= frame.len() {
        frame.resize(i + 1, Value::None);
    }
    match frame.get_mut(i) {
        Some(cell) => Ok(std::mem::replace(cell, v)),
        None => Err(Fault::TypeConfusion("local slot out of range")),
    }
}

/// Calls `visit` with each row of the scan's table that passes its filter, in id
/// order, the row bound to the binder as `Value::Row(id)`. `visit` returns
/// `Some` to stop early. The binder slot gets its old value back afterwards, so
/// a scan never leaks its binder into the enclosing expression.
fn scan<T>(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    scan: &RowScan,
    mut visit: impl FnMut(&mut Vec<Value>, i64) -> Result<Option<T>, Fault>,
) -> Result<Option<T>, Fault> {
    let table = ctx
        .db
        .table(scan.table)
        .ok_or(Fault::TypeConfusion("scan of an unknown table"))?;
    let saved = swap_slot(frame, scan.binder, Value::None)?;
    let result = scan_rows(ctx, frame, scan, table.rows(), &mut visit);
    swap_slot(frame, scan.binder, saved)?;
    result
}

fn scan_rows<T>(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    scan: &RowScan,
    rows: &[ir::RowData],
    visit: &mut impl FnMut(&mut Vec<Value>, i64) -> Result<Option<T>, Fault>,
) -> Result<Option<T>, Fault> {
    for row in rows {
        swap_slot(frame, scan.binder, Value::Row(row.id))?;
        if let Some(filter) = &scan.filter {
            if !eval_bool(ctx, frame, filter)? {
                continue;
            }
        }
        if let Some(done) = visit(frame, row.id)? {
            return Ok(Some(done));
        }
    }
    Ok(None)
}

/// `exists`: stops at the first row where the body holds.
fn exists(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    s: &RowScan,
    body: &Expr,
) -> Result<bool, Fault> {
    let hit = scan(ctx, frame, s, |frame, _| {
        Ok(eval_bool(ctx, frame, body)?.then_some(()))
    })?;
    Ok(hit.is_some())
}

/// `all`: stops at the first row where the body fails; true over no rows.
fn all(ctx: &Context<'_>, frame: &mut Vec<Value>, s: &RowScan, body: &Expr) -> Result<bool, Fault> {
    let miss = scan(ctx, frame, s, |frame, _| {
        Ok((!eval_bool(ctx, frame, body)?).then_some(()))
    })?;
    Ok(miss.is_none())
}

fn count(ctx: &Context<'_>, frame: &mut Vec<Value>, s: &RowScan) -> Result<Value, Fault> {
    let mut n: i64 = 0;
    scan(ctx, frame, s, |_, _| {
        n = n.checked_add(1).ok_or(Fault::Overflow)?;
        Ok(None::<()>)
    })?;
    Ok(Value::Int(n))
}

/// `find`: the lowest-id match, or `none`.
fn find(ctx: &Context<'_>, frame: &mut Vec<Value>, s: &RowScan) -> Result<Value, Fault> {
    let hit = scan(ctx, frame, s, |_, id| Ok(Some(id)))?;
    Ok(hit.map_or(Value::None, Value::Row))
}

fn aggregate(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    kind: AggKind,
    value: &Expr,
    s: &RowScan,
) -> Result<Value, Fault> {
    let mut acc = match kind {
        AggKind::Sum => Value::Int(0),
        AggKind::SumMoney => Value::Money(0),
        AggKind::Min | AggKind::Max => Value::None,
    };
    scan(ctx, frame, s, |frame, _| {
        let v = eval(ctx, frame, value)?;
        acc = fold(kind, std::mem::replace(&mut acc, Value::None), v)?;
        Ok(None::<()>)
    })?;
    Ok(acc)
}

/// One step of an aggregate. `min`/`max` skip `none` values (the checker lets
/// them range over optional values; their result is `none` only when no row has
/// a value); a `none` in a `sum` is a fault, as in `+`.
fn fold(kind: AggKind, acc: Value, v: Value) -> Result<Value, Fault> {
    match (kind, acc, v) {
        (AggKind::Sum, Value::Int(a), Value::Int(b)) => {
            a.checked_add(b).map(Value::Int).ok_or(Fault::Overflow)
        }
        (AggKind::SumMoney, Value::Money(a), Value::Money(b)) => {
            a.checked_add(b).map(Value::Money).ok_or(Fault::Overflow)
        }
        (AggKind::Sum | AggKind::SumMoney, _, Value::None) => Err(Fault::NoneValue),
        (AggKind::Sum | AggKind::SumMoney, _, _) => Err(Fault::TypeConfusion(
            "sum of the wrong kind of value (Sum vs SumMoney)",
        )),
        (_, acc, Value::None) => Ok(acc),
        (_, Value::None, v) => Ok(v),
        (AggKind::Min, acc, v) => Ok(if order(&v, &acc)? == Some(Ordering::Less) {
            v
        } else {
            acc
        }),
        (AggKind::Max, acc, v) => Ok(if order(&v, &acc)? == Some(Ordering::Greater) {
            v
        } else {
            acc
        }),
    }
}

/// Renders text parts, each interpolation by its static type; one that faults
/// renders as `—` and the rest still render.
pub fn render_text(ctx: &Context<'_>, frame: &mut Vec<Value>, parts: &[TextPart]) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            TextPart::Lit(s) => out.push_str(s),
            TextPart::Interp(e, ty) => match eval(ctx, frame, e) {
                Ok(v) => out.push_str(&render(ctx.program, ctx.db, &v, ty)),
                Err(_) => out.push_str(FAILED),
            },
        }
    }
    out
}

/// Like `render_text`, but the first fault fails the whole text. This is the
/// value of a text expression (`Expr::Text`) used as a value — assigned, passed,
/// compared — where a fault must reject the marker rather than store `—`.
pub fn try_render_text(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    parts: &[TextPart],
) -> Result<String, Fault> {
    let mut out = String::new();
    for part in parts {
        match part {
            TextPart::Lit(s) => out.push_str(s),
            TextPart::Interp(e, ty) => {
                let v = eval(ctx, frame, e)?;
                out.push_str(&render(ctx.program, ctx.db, &v, ty));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
