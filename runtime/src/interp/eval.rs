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
use super::render::try_render_text;
use super::state::{idx, Database};
use crate::ir::{self, AggKind, BinaryOp, Expr, RowScan, Slot, TableId, UnaryOp, Value};
use std::cmp::Ordering;
use std::fmt;

/// Why an evaluation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    DivisionByZero,
    /// A field of `none`, or `none` where a value is needed.
    NoneValue,
    /// A reference to, or a lookup of, a row that does not exist.
    MissingRow {
        table: TableId,
        id: i64,
    },
    /// Int or money arithmetic out of the 64-bit range.
    Overflow,
    /// Date or time arithmetic that leaves the calendar (`@9999-12-31 + 1`)
    /// or the day (`@23:30 + 45`).
    OutOfRange,
    /// The IR is inconsistent (wrong kinds of values for an operator, an unknown
    /// table or field). Never expected from a checked program.
    TypeConfusion(&'static str),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::DivisionByZero => f.write_str("division by zero"),
            Fault::NoneValue => f.write_str("a value is none"),
            Fault::MissingRow { id, .. } => write!(f, "row #{id} does not exist"),
            Fault::Overflow => f.write_str("number out of range"),
            Fault::OutOfRange => f.write_str("date or time out of range"),
            Fault::TypeConfusion(what) => write!(f, "internal error: {what}"),
        }
    }
}

impl Fault {
    /// Like `Display`, but names the table of a missing row (`no Product with id
    /// 7`), which needs the program.
    pub fn describe(&self, program: &ir::Program) -> String {
        match self {
            Fault::MissingRow { table, id } => match program.tables.get(idx(*table)) {
                Some(t) => format!("no {} with id {id}", t.name),
                None => self.to_string(),
            },
            _ => self.to_string(),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use super::*;
    use crate::ir::{AggKind, BinaryOp::*, Builtin, Expr, Program, TextPart, Ty, UnaryOp};

    struct World {
        program: Program,
        db: Database,
        session: Vec<Value>,
    }

    impl World {
        fn new() -> World {
            let program = program();
            let db = Database::from_seed(&program);
            let session = program.session.iter().map(|s| s.init.clone()).collect();
            World {
                program,
                db,
                session,
            }
        }

        fn ctx(&self) -> Context<'_> {
            Context {
                program: &self.program,
                db: &self.db,
                session: &self.session,
                nav: None,
            }
        }

        fn run(&self, e: &Expr) -> Result<Value, Fault> {
            eval(&self.ctx(), &mut Vec::new(), e)
        }
    }

    fn run(e: &Expr) -> Result<Value, Fault> {
        World::new().run(e)
    }

    fn neg(e: Expr) -> Expr {
        Expr::Unary(UnaryOp::Neg, Box::new(e))
    }

    fn call(f: Builtin, args: Vec<Expr>) -> Expr {
        Expr::Call(f, args)
    }

    fn t(s: &str) -> Expr {
        c(text(s))
    }

    fn agg(kind: AggKind, value: Expr, s: RowScan) -> Expr {
        Expr::Aggregate {
            kind,
            value: Box::new(value),
            scan: s,
        }
    }

    /// `p.field` where `p` is the binder in slot 0, of Product.
    fn p(field: u32) -> Expr {
        fld(local(0), PRODUCT, field)
    }

    #[test]
    fn int_arithmetic_is_checked() {
        assert_eq!(run(&bin(Add, int(7), int(5))), Ok(Value::Int(12)));
        assert_eq!(run(&bin(Sub, int(7), int(10))), Ok(Value::Int(-3)));
        assert_eq!(run(&bin(Mul, int(6), int(7))), Ok(Value::Int(42)));
        assert_eq!(run(&bin(Div, int(7), int(2))), Ok(Value::Int(3)));
        assert_eq!(run(&bin(Div, int(-7), int(2))), Ok(Value::Int(-3)));
        assert_eq!(run(&bin(Rem, int(7), int(3))), Ok(Value::Int(1)));
        assert_eq!(run(&bin(Rem, int(-7), int(3))), Ok(Value::Int(-1)));
        assert_eq!(run(&bin(Add, int(i64::MAX), int(1))), Err(Fault::Overflow));
        assert_eq!(run(&bin(Sub, int(i64::MIN), int(1))), Err(Fault::Overflow));
        assert_eq!(run(&bin(Mul, int(i64::MAX), int(2))), Err(Fault::Overflow));
        assert_eq!(run(&bin(Div, int(i64::MIN), int(-1))), Err(Fault::Overflow));
        assert_eq!(run(&bin(Rem, int(i64::MIN), int(-1))), Ok(Value::Int(0)));
    }

    #[test]
    fn division_and_remainder_by_zero_fault() {
        assert_eq!(run(&bin(Div, int(1), int(0))), Err(Fault::DivisionByZero));
        assert_eq!(run(&bin(Rem, int(1), int(0))), Err(Fault::DivisionByZero));
        assert_eq!(
            run(&bin(Div, money(100), int(0))),
            Err(Fault::DivisionByZero)
        );
        assert_eq!(
            run(&bin(Div, int(i64::MIN), int(0))),
            Err(Fault::DivisionByZero)
        );
    }

    #[test]
    fn money_arithmetic() {
        assert_eq!(
            run(&bin(Add, money(1000), money(250))),
            Ok(Value::Money(1250))
        );
        assert_eq!(
            run(&bin(Sub, money(1000), money(1200))),
            Ok(Value::Money(-200))
        );
        assert_eq!(run(&bin(Mul, money(333), int(3))), Ok(Value::Money(999)));
        assert_eq!(run(&bin(Mul, int(3), money(333))), Ok(Value::Money(999)));
        // Truncation toward zero, both signs.
        assert_eq!(run(&bin(Div, money(1000), int(3))), Ok(Value::Money(333)));
        assert_eq!(run(&bin(Div, money(-1000), int(3))), Ok(Value::Money(-333)));
        assert_eq!(
            run(&bin(Mul, money(i64::MAX), int(2))),
            Err(Fault::Overflow)
        );
        // Not defined by §3: the checker refuses these, the interpreter says so.
        assert!(matches!(
            run(&bin(Add, money(1), int(1))),
            Err(Fault::TypeConfusion(_))
        ));
        assert!(matches!(
            run(&bin(Rem, money(1), int(1))),
            Err(Fault::TypeConfusion(_))
        ));
        assert!(matches!(
            run(&bin(Div, int(1), money(1))),
            Err(Fault::TypeConfusion(_))
        ));
        assert_eq!(run(&bin(Add, none(), int(1))), Err(Fault::NoneValue));
    }

    #[test]
    fn unary_minus_and_not() {
        assert_eq!(run(&neg(int(5))), Ok(Value::Int(-5)));
        assert_eq!(run(&neg(money(-2500))), Ok(Value::Money(2500)));
        assert_eq!(run(&neg(int(i64::MIN))), Err(Fault::Overflow));
        assert_eq!(run(&neg(none())), Err(Fault::NoneValue));
        let not = |e| Expr::Unary(UnaryOp::Not, Box::new(e));
        assert_eq!(run(&not(bool_(true))), Ok(Value::Bool(false)));
        assert_eq!(run(&not(faulty())), Err(Fault::DivisionByZero));
    }

    #[test]
    fn and_or_short_circuit_left_to_right() {
        assert_eq!(
            run(&bin(And, bool_(false), faulty())),
            Ok(Value::Bool(false))
        );
        assert_eq!(run(&bin(Or, bool_(true), faulty())), Ok(Value::Bool(true)));
        assert_eq!(
            run(&bin(And, bool_(true), faulty())),
            Err(Fault::DivisionByZero)
        );
        assert_eq!(
            run(&bin(Or, bool_(false), faulty())),
            Err(Fault::DivisionByZero)
        );
        // The left side goes first, so its fault wins even when the right decides.
        assert_eq!(
            run(&bin(And, faulty(), bool_(false))),
            Err(Fault::DivisionByZero)
        );
        assert_eq!(
            run(&bin(Or, bool_(false), bool_(true))),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            run(&bin(And, bool_(true), bool_(true))),
            Ok(Value::Bool(true))
        );
    }

    #[test]
    fn equality_is_structural_and_none_aware() {
        let yes = Ok(Value::Bool(true));
        let no = Ok(Value::Bool(false));
        assert_eq!(run(&bin(Eq, none(), none())), yes);
        assert_eq!(run(&bin(Eq, none(), int(3))), no);
        assert_eq!(run(&bin(Ne, none(), int(3))), yes);
        assert_eq!(run(&bin(Eq, t("abc"), t("abc"))), yes);
        assert_eq!(run(&bin(Eq, c(Value::Row(42)), at(PRODUCT, 42))), yes);
        assert_eq!(run(&bin(Ne, c(Value::Enum(1)), c(Value::Enum(1)))), no);
    }

    #[test]
    fn ordering_covers_ordered_kinds_and_is_false_with_none() {
        let yes = Ok(Value::Bool(true));
        let no = Ok(Value::Bool(false));
        assert_eq!(run(&bin(Lt, int(2), int(3))), yes);
        assert_eq!(run(&bin(Ge, money(300), money(300))), yes);
        assert_eq!(run(&bin(Gt, money(299), money(300))), no);
        let d = |s| c(Value::Date(date(s)));
        assert_eq!(run(&bin(Lt, d("2026-01-31"), d("2026-02-01"))), yes);
        let tm = |s| c(Value::Time(time(s)));
        assert_eq!(run(&bin(Le, tm("9:05"), tm("10:00"))), yes);
        // Code-point order: uppercase before lowercase, accents after ASCII.
        assert_eq!(run(&bin(Lt, t("Z"), t("a"))), yes);
        assert_eq!(run(&bin(Gt, t("é"), t("z"))), yes);
        assert_eq!(run(&bin(Lt, t("ab"), t("abc"))), yes);
        for op in [Lt, Le, Gt, Ge] {
            assert_eq!(run(&bin(op, int(3), none())), no);
            assert_eq!(run(&bin(op, none(), int(3))), no);
            assert_eq!(run(&bin(op, none(), none())), no);
        }
        assert!(matches!(
            run(&bin(Lt, int(1), money(2))),
            Err(Fault::TypeConfusion(_))
        ));
        assert!(matches!(
            run(&bin(Lt, bool_(false), bool_(true))),
            Err(Fault::TypeConfusion(_))
        ));
    }

    #[test]
    fn membership_is_equality_to_any_item_in_order() {
        let within = |x, items| run(&Expr::In(Box::new(x), items));
        assert_eq!(within(int(3), vec![int(1), int(3)]), Ok(Value::Bool(true)));
        assert_eq!(within(int(2), vec![int(1), int(3)]), Ok(Value::Bool(false)));
        assert_eq!(within(int(2), vec![]), Ok(Value::Bool(false)));
        assert_eq!(within(none(), vec![int(1), none()]), Ok(Value::Bool(true)));
        // Like `or`: stops at the first match, faults before one.
        let boom = || bin(Div, int(1), int(0));
        assert_eq!(within(int(1), vec![int(1), boom()]), Ok(Value::Bool(true)));
        assert_eq!(
            within(int(2), vec![int(1), boom()]),
            Err(Fault::DivisionByZero)
        );
    }

    #[test]
    fn fields_lookups_and_ids() {
        let price = fld(at(PRODUCT, 42), PRODUCT, PRICE);
        assert_eq!(run(&price), Ok(Value::Money(129_900)));
        let chain = fld(fld(at(LINE, 2), LINE, L_PRODUCT), PRODUCT, NAME);
        assert_eq!(run(&chain), Ok(text("Logi M185")));
        assert_eq!(
            run(&fld(at(PRODUCT, 42), PRODUCT, RESTOCK)),
            Ok(Value::None)
        );
        assert_eq!(run(&fld(none(), PRODUCT, NAME)), Err(Fault::NoneValue));
        let gone = fld(c(Value::Row(99)), PRODUCT, NAME);
        assert_eq!(
            run(&gone),
            Err(Fault::MissingRow {
                table: PRODUCT,
                id: 99
            })
        );
        assert_eq!(
            run(&at(PRODUCT, 99)),
            Err(Fault::MissingRow {
                table: PRODUCT,
                id: 99
            })
        );
        assert_eq!(run(&at(PRODUCT, 43)), Ok(Value::Row(43)));
        let id = |e| Expr::RowId(Box::new(e));
        assert_eq!(run(&id(at(PRODUCT, 50))), Ok(Value::Int(50)));
        assert_eq!(run(&id(none())), Err(Fault::NoneValue));
        assert!(matches!(
            run(&fld(at(PRODUCT, 42), PRODUCT, 17)),
            Err(Fault::TypeConfusion(_))
        ));
    }

    #[test]
    fn locals_and_session() {
        let w = World::new();
        let mut frame = vec![Value::Int(1), Value::Row(43)];
        let e = fld(local(1), PRODUCT, STOCK);
        assert_eq!(eval(&w.ctx(), &mut frame, &e), Ok(Value::Int(0)));
        // A slot past the frame's end reads as `none`.
        assert_eq!(eval(&w.ctx(), &mut frame, &local(9)), Ok(Value::None));
        assert_eq!(w.run(&Expr::Session(0)), Ok(Value::Int(7)));
        assert!(matches!(
            w.run(&Expr::Session(3)),
            Err(Fault::TypeConfusion(_))
        ));
    }

    #[test]
    fn exists_and_all() {
        let out_of_stock = bin(Eq, p(STOCK), int(0));
        let exists = |f, body| Expr::Exists(over(0, PRODUCT, f), Box::new(body));
        let all = |f, body| Expr::All(over(0, PRODUCT, f), Box::new(body));
        assert_eq!(
            run(&exists(None, out_of_stock.clone())),
            Ok(Value::Bool(true))
        );
        let cheap = bin(Lt, p(PRICE), money(10_000));
        assert_eq!(
            run(&exists(Some(cheap.clone()), bin(Gt, p(STOCK), int(9)))),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            run(&all(None, bin(Ge, p(STOCK), int(0)))),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            run(&all(None, bin(Gt, p(STOCK), int(0)))),
            Ok(Value::Bool(false))
        );
        assert_eq!(
            run(&all(Some(cheap), bin(Lt, p(STOCK), int(20)))),
            Ok(Value::Bool(true))
        );
        let none_rows = Expr::All(over(0, EMPTY, None), Box::new(bool_(false)));
        assert_eq!(run(&none_rows), Ok(Value::Bool(true)));
        let none_rows = Expr::Exists(over(0, EMPTY, None), Box::new(bool_(true)));
        assert_eq!(run(&none_rows), Ok(Value::Bool(false)));
        // Rows go in id order and the scan stops once decided: 100 / stock is
        // fine for 42 (stock 5) and faults for 43 (stock 0).
        let ratio = bin(Gt, bin(Div, int(100), p(STOCK)), int(0));
        assert_eq!(run(&exists(None, ratio.clone())), Ok(Value::Bool(true)));
        assert_eq!(run(&all(None, ratio)), Err(Fault::DivisionByZero));
        // A faulting filter faults the quantifier.
        assert_eq!(
            run(&exists(Some(faulty()), bool_(true))),
            Err(Fault::DivisionByZero)
        );
    }

    #[test]
    fn nested_scans_see_both_binders() {
        // exists p in Product: exists l in Line: l.product == p and l.qty == 3
        let inner = Expr::Exists(
            over(
                1,
                LINE,
                Some(bin(Eq, fld(local(1), LINE, L_PRODUCT), local(0))),
            ),
            Box::new(bin(Eq, fld(local(1), LINE, L_QTY), int(3))),
        );
        let found = Expr::Find(over(0, PRODUCT, Some(inner)));
        assert_eq!(run(&found), Ok(Value::Row(43)));
    }

    #[test]
    fn scans_grow_the_frame_and_restore_binders() {
        let w = World::new();
        let mut frame = vec![Value::Int(9)];
        let e = Expr::Count(over(3, PRODUCT, None));
        assert_eq!(eval(&w.ctx(), &mut frame, &e), Ok(Value::Int(3)));
        assert_eq!(
            frame,
            vec![Value::Int(9), Value::None, Value::None, Value::None]
        );
        let mut frame = vec![text("kept")];
        let e = Expr::Find(over(0, PRODUCT, Some(faulty())));
        assert_eq!(eval(&w.ctx(), &mut frame, &e), Err(Fault::DivisionByZero));
        assert_eq!(frame, vec![text("kept")]);
        let huge = Expr::Count(over(u32::MAX, PRODUCT, None));
        assert!(matches!(w.run(&huge), Err(Fault::TypeConfusion(_))));
    }

    #[test]
    fn count_and_find() {
        assert_eq!(run(&Expr::Count(over(0, PRODUCT, None))), Ok(Value::Int(3)));
        assert_eq!(run(&Expr::Count(over(0, EMPTY, None))), Ok(Value::Int(0)));
        let stocked = bin(Gt, p(STOCK), int(0));
        assert_eq!(
            run(&Expr::Count(over(0, PRODUCT, Some(stocked)))),
            Ok(Value::Int(2))
        );
        // Lowest id among 43 and 50.
        let cheap = bin(Lt, p(PRICE), money(10_000));
        assert_eq!(
            run(&Expr::Find(over(0, PRODUCT, Some(cheap)))),
            Ok(Value::Row(43))
        );
        let nothing = bin(Gt, p(STOCK), int(100));
        assert_eq!(
            run(&Expr::Find(over(0, PRODUCT, Some(nothing)))),
            Ok(Value::None)
        );
        assert_eq!(run(&Expr::Find(over(0, EMPTY, None))), Ok(Value::None));
    }

    #[test]
    fn sums() {
        let qty = fld(local(0), LINE, L_QTY);
        assert_eq!(
            run(&agg(AggKind::Sum, qty, over(0, LINE, None))),
            Ok(Value::Int(5))
        );
        let all = agg(AggKind::SumMoney, p(PRICE), over(0, PRODUCT, None));
        assert_eq!(run(&all), Ok(Value::Money(129_900 + 1499 + 500)));
        let open = bin(Eq, p(STATUS), c(Value::Enum(0)));
        let filtered = agg(AggKind::SumMoney, p(PRICE), over(0, PRODUCT, Some(open)));
        assert_eq!(run(&filtered), Ok(Value::Money(130_400)));
        // Over no rows: `0` and `$0.00`.
        let n = fld(local(0), EMPTY, 1);
        let amount = fld(local(0), EMPTY, 0);
        assert_eq!(
            run(&agg(AggKind::Sum, n, over(0, EMPTY, None))),
            Ok(Value::Int(0))
        );
        let zero = agg(AggKind::SumMoney, amount, over(0, EMPTY, None));
        assert_eq!(run(&zero), Ok(Value::Money(0)));
        // Lowering a money sum as `Sum` is an IR bug, not a silent result.
        let wrong = agg(AggKind::Sum, p(PRICE), over(0, PRODUCT, None));
        assert!(matches!(run(&wrong), Err(Fault::TypeConfusion(_))));
        let big = agg(AggKind::Sum, int(i64::MAX), over(0, PRODUCT, None));
        assert_eq!(run(&big), Err(Fault::Overflow));
        let holes = agg(AggKind::Sum, none(), over(0, PRODUCT, None));
        assert_eq!(run(&holes), Err(Fault::NoneValue));
    }

    #[test]
    fn min_and_max() {
        let all = || over(0, PRODUCT, None);
        assert_eq!(
            run(&agg(AggKind::Min, p(PRICE), all())),
            Ok(Value::Money(500))
        );
        assert_eq!(
            run(&agg(AggKind::Max, p(PRICE), all())),
            Ok(Value::Money(129_900))
        );
        assert_eq!(run(&agg(AggKind::Min, p(NAME), all())), Ok(text("Cable")));
        assert_eq!(
            run(&agg(AggKind::Max, p(NAME), all())),
            Ok(text("ThinkPad X1"))
        );
        // `none` values are skipped; only 43 has a restock date.
        let restock = Ok(Value::Date(date("2026-12-10")));
        assert_eq!(run(&agg(AggKind::Min, p(RESTOCK), all())), restock);
        assert_eq!(run(&agg(AggKind::Max, p(RESTOCK), all())), restock);
        let open = bin(Eq, p(STATUS), c(Value::Enum(0)));
        let filtered = agg(AggKind::Min, p(STOCK), over(0, PRODUCT, Some(open)));
        assert_eq!(run(&filtered), Ok(Value::Int(5)));
        let n = fld(local(0), EMPTY, 1);
        assert_eq!(
            run(&agg(AggKind::Min, n.clone(), over(0, EMPTY, None))),
            Ok(Value::None)
        );
        assert_eq!(
            run(&agg(AggKind::Max, n, over(0, EMPTY, None))),
            Ok(Value::None)
        );
    }

    #[test]
    fn text_builtins() {
        assert_eq!(run(&call(Builtin::Lower, vec![t("ÀbC")])), Ok(text("àbc")));
        assert_eq!(
            run(&call(Builtin::Upper, vec![t("straße")])),
            Ok(text("STRASSE"))
        );
        assert_eq!(
            run(&call(Builtin::Trim, vec![t("  a b \n")])),
            Ok(text("a b"))
        );
        assert_eq!(
            run(&call(Builtin::Len, vec![t("héllo")])),
            Ok(Value::Int(5))
        );
        assert_eq!(run(&call(Builtin::Len, vec![t("")])), Ok(Value::Int(0)));
        let yes = Ok(Value::Bool(true));
        let no = Ok(Value::Bool(false));
        assert_eq!(
            run(&call(Builtin::Contains, vec![t("ThinkPad"), t("kPa")])),
            yes
        );
        assert_eq!(
            run(&call(Builtin::Contains, vec![t("ThinkPad"), t("pad")])),
            no
        );
        assert_eq!(
            run(&call(Builtin::StartsWith, vec![t("ThinkPad"), t("Think")])),
            yes
        );
        assert_eq!(
            run(&call(Builtin::StartsWith, vec![t("ThinkPad"), t("Pad")])),
            no
        );
        assert_eq!(
            run(&call(Builtin::EndsWith, vec![t("ThinkPad"), t("Pad")])),
            yes
        );
        assert_eq!(run(&call(Builtin::Contains, vec![t("x"), t("")])), yes);
        assert_eq!(
            run(&call(Builtin::Lower, vec![none()])),
            Err(Fault::NoneValue)
        );
        assert!(matches!(
            run(&call(Builtin::Lower, vec![])),
            Err(Fault::TypeConfusion(_))
        ));
    }

    #[test]
    fn numeric_and_date_builtins() {
        assert_eq!(run(&call(Builtin::Abs, vec![int(-4)])), Ok(Value::Int(4)));
        assert_eq!(
            run(&call(Builtin::Abs, vec![money(-2500)])),
            Ok(Value::Money(2500))
        );
        assert_eq!(
            run(&call(Builtin::Abs, vec![int(i64::MIN)])),
            Err(Fault::Overflow)
        );
        assert_eq!(
            run(&call(Builtin::Abs, vec![money(i64::MIN)])),
            Err(Fault::Overflow)
        );
        let d = |s| c(Value::Date(date(s)));
        let between = |a, b| run(&call(Builtin::DaysBetween, vec![d(a), d(b)]));
        assert_eq!(between("2026-11-29", "2026-12-10"), Ok(Value::Int(11)));
        assert_eq!(between("2026-12-10", "2026-11-29"), Ok(Value::Int(-11)));
        assert_eq!(between("2024-02-28", "2024-03-01"), Ok(Value::Int(2)));
        assert_eq!(
            run(&call(Builtin::Today, vec![])),
            Ok(Value::Date(date("2026-11-29")))
        );
        let from_today = call(
            Builtin::DaysBetween,
            vec![call(Builtin::Today, vec![]), d("2026-12-01")],
        );
        assert_eq!(run(&from_today), Ok(Value::Int(2)));
    }

    #[test]
    fn text_expressions_render_and_propagate_faults() {
        let price = fld(at(PRODUCT, 42), PRODUCT, PRICE);
        let e = Expr::Text(vec![
            TextPart::Lit("Price: ".into()),
            TextPart::Interp(price, Ty::Money),
        ]);
        assert_eq!(run(&e), Ok(text("Price: $1,299.00")));
        let bad = Expr::Text(vec![TextPart::Interp(bin(Div, int(1), int(0)), Ty::Int)]);
        assert_eq!(run(&bad), Err(Fault::DivisionByZero));
    }

    #[test]
    fn conditions_must_be_bools() {
        let w = World::new();
        assert_eq!(eval_bool(&w.ctx(), &mut Vec::new(), &bool_(true)), Ok(true));
        assert_eq!(
            eval_bool(&w.ctx(), &mut Vec::new(), &none()),
            Err(Fault::NoneValue)
        );
        assert!(matches!(
            eval_bool(&w.ctx(), &mut Vec::new(), &int(1)),
            Err(Fault::TypeConfusion(_))
        ));
        assert_eq!(
            eval_bool(&w.ctx(), &mut Vec::new(), &faulty()),
            Err(Fault::DivisionByZero)
        );
    }

    #[test]
    fn faults_read_as_lowercase_messages() {
        let w = World::new();
        assert_eq!(Fault::DivisionByZero.to_string(), "division by zero");
        assert_eq!(Fault::NoneValue.to_string(), "a value is none");
        assert_eq!(Fault::Overflow.to_string(), "number out of range");
        let gone = Fault::MissingRow {
            table: PRODUCT,
            id: 7,
        };
        assert_eq!(gone.to_string(), "row #7 does not exist");
        assert_eq!(gone.describe(&w.program), "no Product with id 7");
        assert_eq!(Fault::TypeConfusion("x").to_string(), "internal error: x");
    }
}
