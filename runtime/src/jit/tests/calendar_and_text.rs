//! Differential tests of the 1.1 expressions: calendar arithmetic at and past
//! its bounds, and the text built-ins (`left`, `right`, `replace`, `to_int`,
//! `to_money`, `plural`) on constants, fields and parameters, with their
//! `none` and fault cases. Each condition runs in both engines (`run`).

use super::*;

fn d(s: &str) -> Expr {
    c(Value::Date(date(s)))
}

fn tm(s: &str) -> Expr {
    c(Value::Time(time(s)))
}

#[test]
fn calendar_arithmetic_agrees_and_faults_out_of_range() {
    let restock = fld(at(PRODUCT, 43), PRODUCT, RESTOCK);
    let r = plain(&[
        bin(Eq, bin(Add, restock.clone(), int(21)), d("2026-12-31")),
        bin(Eq, bin(Sub, d("2024-03-01"), int(1)), d("2024-02-29")),
        bin(Eq, bin(Sub, restock.clone(), d("2026-11-29")), int(11)),
        bin(
            Eq,
            bin(Sub, d("2026-11-29"), restock.clone()),
            call(Builtin::DaysBetween, vec![restock.clone(), d("2026-11-29")]),
        ),
        bin(Eq, bin(Add, tm("10:30"), int(90)), tm("12:00")),
        bin(Eq, bin(Sub, tm("00:10"), int(10)), tm("00:00")),
        bin(Eq, bin(Add, d("9999-12-31"), int(0)), d("9999-12-31")),
        bin(Lt, bin(Add, d("9999-12-31"), int(1)), d("2026-01-01")),
        bin(Lt, bin(Sub, d("0000-01-01"), int(1)), d("2026-01-01")),
        bin(
            Lt,
            bin(Add, d("2026-01-01"), int(i64::MAX)),
            d("2026-01-01"),
        ),
        bin(
            Lt,
            bin(Sub, d("2026-01-01"), int(i64::MIN)),
            d("2026-01-01"),
        ),
        bin(Lt, bin(Add, tm("23:59"), int(1)), tm("12:00")),
        bin(Lt, bin(Sub, tm("00:00"), int(1)), tm("12:00")),
        bin(Lt, bin(Sub, tm("12:00"), int(i64::MIN)), tm("12:00")),
        // A `none` date faults before the range matters.
        bin(
            Lt,
            bin(Add, fld(at(PRODUCT, 42), PRODUCT, RESTOCK), int(1)),
            d("2026-01-01"),
        ),
    ]);
    let range = fault(Fault::OutOfRange);
    let mut expected = vec![Ok(true); 7];
    expected.extend([range.clone(), range.clone(), range.clone(), range.clone()]);
    expected.extend([range.clone(), range.clone(), range, fault(Fault::NoneValue)]);
    assert_eq!(r, expected);
}

#[test]
fn text_builtins_agree_on_constants_fields_and_parameters() {
    let name = fld(at(PRODUCT, 42), PRODUCT, NAME);
    let left = |t, n| call(Builtin::Left, vec![t, int(n)]);
    let right = |t, n| call(Builtin::Right, vec![t, int(n)]);
    let to_int = |e| call(Builtin::ToInt, vec![e]);
    let to_money = |e| call(Builtin::ToMoney, vec![e]);
    let plural = |n| call(Builtin::Plural, vec![n, t("item"), t("items")]);
    let conds = [
        bin(Eq, left(name.clone(), 8), t("ThinkPad")),
        bin(Eq, right(name.clone(), 2), t("X1")),
        bin(Eq, left(t("héllo"), -1), t("")),
        bin(Eq, right(t("héllo"), 99), t("héllo")),
        bin(
            Eq,
            call(Builtin::Replace, vec![name.clone(), t("Pad"), t("pad")]),
            t("Thinkpad X1"),
        ),
        bin(
            Eq,
            call(Builtin::Replace, vec![t("abc"), t(""), t("x")]),
            t("abc"),
        ),
        bin(Eq, to_int(t(" 1,234 ")), int(1234)),
        bin(Eq, to_int(t("12,34")), none()),
        bin(Eq, to_int(local(0)), int(-5)),
        bin(
            Eq,
            to_money(t("$1,299.00")),
            fld(at(PRODUCT, 42), PRODUCT, PRICE),
        ),
        bin(Eq, to_money(t("1.999")), none()),
        bin(Gt, bin(Add, to_int(t("41")), int(1)), int(41)),
        // `none` from `to_int` faults where a value is needed.
        bin(Gt, bin(Add, to_int(t("x")), int(1)), int(41)),
        bin(Eq, plural(int(1)), t("item")),
        bin(Eq, plural(int(-1)), t("item")),
        bin(Eq, plural(fld(at(PRODUCT, 43), PRODUCT, STOCK)), t("items")),
        bin(Eq, left(local(1), 1), t("")),
    ];
    let r = run(
        &conds,
        &[Ty::Text, Ty::Optional(Box::new(Ty::Text))],
        &[text("-5"), Value::None],
        false,
    );
    let mut expected = vec![Ok(true); 12];
    expected.push(fault(Fault::NoneValue));
    expected.extend([Ok(true), Ok(true), Ok(true)]);
    expected.push(fault(Fault::NoneValue));
    assert_eq!(r, expected);
}
