//! Arithmetic operators (spec §3): which operand types combine and what they
//! give (E203 with a help that shows the right form otherwise), including the
//! calendar arithmetic of 1.1: `Date ± Int` (days), `Time ± Int` (minutes) and
//! `Date - Date` (days). `Int + Date` is refused: a date is written first.

use super::{Checker, Ty};
use crate::diagnostics::{Code, Diagnostic, Fix};
use crate::syntax::ast::*;

impl<'a> Checker<'a, '_> {
    pub(super) fn arith(&mut self, e: &'a Expr, op: BinaryOp, l: &'a Expr, r: &'a Expr) -> Ty {
        let lt = self.infer(l, None);
        let rt = self.infer(r, None);
        if lt.is_error() || rt.is_error() {
            return Ty::Error;
        }
        if let Some(t) = arith_result(op, &lt, &rt) {
            return t;
        }
        let sym = op.symbol();
        let message = format!("operator `{sym}` is not defined for `{lt}` and `{rt}`");
        // `"a" + name`: text is joined by interpolation, a fix we can write.
        let joined = (op == BinaryOp::Add && (lt == Ty::Text || rt == Ty::Text))
            .then(|| crate::syntax::foreign::interpolation(l, r))
            .flatten();
        if let Some(text) = joined {
            self.report(
                Diagnostic::new(Code::E203, e.span, message)
                    .label("operator used here")
                    .help(format!("join text by interpolation instead: `{text}`"))
                    .fix(Fix::Replace {
                        start: e.span.start,
                        end: e.span.end,
                        text,
                    }),
            );
            return Ty::Error;
        }
        let help = match (&lt, &rt) {
            (Ty::Optional(_) | Ty::None, _) => self.optional_operand_help(l),
            (_, Ty::Optional(_) | Ty::None) => self.optional_operand_help(r),
            _ => arith_help(op, &lt, &rt),
        };
        self.bad_operator(e.span, message, help);
        Ty::Error
    }

    /// Help for an operand that may be `none`.
    fn optional_operand_help(&self, operand: &Expr) -> String {
        let general = "an optional value may be `none` and arithmetic needs a value";
        match self.narrowing_test(operand) {
            Some(test) => format!("{general}; test it first, e.g. `{test} and ...` or `if {test} {{ ... }}`, after which it is not optional"),
            None => format!("{general}; `!= none` narrows a variable, parameter, `session.var` or field path, so name the value with `let` and test the name"),
        }
    }
}

/// The result type of an arithmetic operator (spec §3), or `None`.
fn arith_result(op: BinaryOp, l: &Ty, r: &Ty) -> Option<Ty> {
    use BinaryOp::{Add, Div, Mul, Sub};
    match (op, l, r) {
        (_, Ty::Int, Ty::Int) => Some(Ty::Int),
        (Add | Sub, Ty::Money, Ty::Money)
        | (Mul, Ty::Money, Ty::Int)
        | (Mul, Ty::Int, Ty::Money)
        | (Div, Ty::Money, Ty::Int) => Some(Ty::Money),
        (Add | Sub, Ty::Date, Ty::Int) => Some(Ty::Date),
        (Add | Sub, Ty::Time, Ty::Int) => Some(Ty::Time),
        (Sub, Ty::Date, Ty::Date) => Some(Ty::Int),
        _ => None,
    }
}

fn arith_help(op: BinaryOp, l: &Ty, r: &Ty) -> String {
    let general = "arithmetic is defined for `Int` with `Int`, `Money` ± `Money`, `Money` * `Int`, `Int` * `Money`, \
                   `Money` / `Int`, `Date` ± `Int` (days), `Time` ± `Int` (minutes) and `Date` - `Date`";
    let calendar = |t: &Ty| matches!(t, Ty::Date | Ty::Time);
    match (op, l, r) {
        (BinaryOp::Add, Ty::Text, _) | (BinaryOp::Add, _, Ty::Text) => {
            "join text by interpolation instead: `\"{a}{b}\"`".to_string()
        }
        (BinaryOp::Add, Ty::Date, Ty::Date) => {
            "add a number of days to a date: `due + 7`; `d2 - d1` gives the days between two dates".to_string()
        }
        (BinaryOp::Add | BinaryOp::Sub, Ty::Int, Ty::Date) => {
            format!("write the date first: `d {} 3` moves `d` by 3 days", op.symbol())
        }
        (BinaryOp::Add | BinaryOp::Sub, Ty::Int, Ty::Time) => {
            format!("write the time first: `t {} 30` moves `t` by 30 minutes", op.symbol())
        }
        (BinaryOp::Sub, Ty::Time, Ty::Time) => {
            "a time moves by minutes, `t - 30`; the difference of two times is not defined".to_string()
        }
        (_, Ty::Date, Ty::Time) | (_, Ty::Time, Ty::Date) => {
            "a `Date` and a `Time` do not combine; move a date by days (`d + 1`) and a time by minutes (`t + 30`)"
                .to_string()
        }
        (BinaryOp::Add | BinaryOp::Sub, Ty::Date, _) => {
            "a date moves by a number of days: `d + 7`, `d - 1`".to_string()
        }
        (BinaryOp::Add | BinaryOp::Sub, Ty::Time, _) => {
            "a time moves by a number of minutes: `t + 30`, `t - 90`".to_string()
        }
        _ if calendar(l) || calendar(r) => {
            "dates and times only take `+` and `-` with an `Int`: `d + 7` (days), `t + 30` (minutes)".to_string()
        }
        (BinaryOp::Rem, _, _) => "`%` is defined only for `Int`".to_string(),
        (BinaryOp::Add | BinaryOp::Sub, Ty::Money, Ty::Int)
        | (BinaryOp::Add | BinaryOp::Sub, Ty::Int, Ty::Money) => {
            "`Money` and `Int` do not mix in `+` and `-`; write money as `$5`".to_string()
        }
        (BinaryOp::Div, Ty::Int, Ty::Money) => {
            "an amount can be divided by an `Int` (`Money` / `Int`), but nothing is divided by an amount"
                .to_string()
        }
        (BinaryOp::Div, Ty::Money, Ty::Money) => {
            "`Money` / `Money` is not defined; divide an amount by an `Int`, or compare the amounts"
                .to_string()
        }
        _ => general.to_string(),
    }
}
