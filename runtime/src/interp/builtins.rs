//! The built-in functions of spec §3 applied to evaluated arguments, and the
//! calendar arithmetic of 1.1 (`Date ± Int`, `Time ± Int`, `Date - Date`).
//!
//! The text built-ins' rules live in `crate::textops` (shared with the JIT);
//! the calendar bounds in `crate::value`. A `none` argument faults before
//! anything else, as in every strict operator.

use super::fault::Fault;
use crate::ir::{self, BinaryOp, Builtin, Value};
use crate::textops;

/// Applies `f` to its evaluated arguments.
pub(super) fn builtin(program: &ir::Program, f: Builtin, args: &[Value]) -> Result<Value, Fault> {
    use Value::{Bool, Date, Int, Money, Text};
    let text = |s: &str| Ok(Text(s.into()));
    match (f, args) {
        (Builtin::Today, []) => Ok(Date(program.site.today)),
        (_, args) if args.contains(&Value::None) => Err(Fault::NoneValue),
        (Builtin::Lower, [Text(t)]) => text(&t.to_lowercase()),
        (Builtin::Upper, [Text(t)]) => text(&t.to_uppercase()),
        (Builtin::Trim, [Text(t)]) => text(t.trim()),
        (Builtin::Len, [Text(t)]) => i64::try_from(t.chars().count())
            .map(Int)
            .map_err(|_| Fault::Overflow),
        (Builtin::Contains, [Text(t), Text(p)]) => Ok(Bool(t.contains(&**p))),
        (Builtin::StartsWith, [Text(t), Text(p)]) => Ok(Bool(t.starts_with(&**p))),
        (Builtin::EndsWith, [Text(t), Text(p)]) => Ok(Bool(t.ends_with(&**p))),
        (Builtin::Abs, [Int(n)]) => n.checked_abs().map(Int).ok_or(Fault::Overflow),
        (Builtin::Abs, [Money(c)]) => c.checked_abs().map(Money).ok_or(Fault::Overflow),
        (Builtin::DaysBetween, [Date(from), Date(to)]) => days_apart(*to, *from),
        (Builtin::Left, [Text(t), Int(n)]) => text(textops::left(t, *n)),
        (Builtin::Right, [Text(t), Int(n)]) => text(textops::right(t, *n)),
        (Builtin::Replace, [Text(t), Text(old), Text(new)]) => text(&textops::replace(t, old, new)),
        (Builtin::ToInt, [Text(t)]) => Ok(textops::to_int(t).map_or(Value::None, Int)),
        (Builtin::ToMoney, [Text(t)]) => Ok(textops::to_money(t).map_or(Value::None, Money)),
        (Builtin::Plural, [Int(n), Text(one), Text(many)]) => text(textops::plural(*n, one, many)),
        _ => Err(Fault::TypeConfusion(
            "built-in called with the wrong arguments",
        )),
    }
}

/// `to - from` in days: `days_between(from, to)` and `to - from`.
fn days_apart(to: crate::value::Date, from: crate::value::Date) -> Result<Value, Fault> {
    to.day_number()
        .checked_sub(from.day_number())
        .map(Value::Int)
        .ok_or(Fault::Overflow)
}

/// `Date ± Int` (days), `Time ± Int` (minutes) and `Date - Date` (days); a
/// result outside the calendar or the day is [`Fault::OutOfRange`]. Any
/// other pair is a type confusion (the checker allows no other).
pub(super) fn calendar_arith(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, Fault> {
    let shift = |n: i64| match op {
        BinaryOp::Add => Ok(n),
        BinaryOp::Sub => n.checked_neg().ok_or(Fault::OutOfRange),
        _ => Err(Fault::TypeConfusion(
            "calendar arithmetic other than `+`/`-`",
        )),
    };
    match (a, b) {
        (Value::Date(d), Value::Int(n)) => d
            .add_days(shift(*n)?)
            .map(Value::Date)
            .ok_or(Fault::OutOfRange),
        (Value::Time(t), Value::Int(n)) => t
            .add_minutes(shift(*n)?)
            .map(Value::Time)
            .ok_or(Fault::OutOfRange),
        (Value::Date(x), Value::Date(y)) if op == BinaryOp::Sub => days_apart(*x, *y),
        _ => Err(Fault::TypeConfusion("arithmetic on mismatched values")),
    }
}
