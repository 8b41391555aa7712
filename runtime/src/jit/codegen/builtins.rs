//! Lowering the built-in functions (spec §3) and the calendar arithmetic of
//! 1.1 (`Date ± Int`, `Time ± Int`, `Date - Date`), as `interp::builtins`
//! evaluates them.
//!
//! Text built-ins call the helpers of `jit::helpers`, which apply the same
//! `crate::textops` functions as the interpreter; `plural` is a select, and
//! the calendar bounds are `crate::value`'s, compared as day numbers and
//! minute counts (the layout's words for dates and times).

use super::*;
use crate::value::{Date, MINUTES_PER_DAY};
use ir::Builtin;

impl Gen<'_, '_> {
    pub(super) fn builtin(&mut self, f: Builtin, args: &[Expr]) -> R<Val> {
        if f == Builtin::Today {
            if !args.is_empty() {
                return Err(unsupported("`today` with arguments"));
            }
            let word = self.word(self.site.program.site.today.day_number());
            return Ok(present(Kind::Date, word));
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.expr(a)?);
        }
        // Any `none` faults before the arguments' kinds matter.
        self.require_all(&vals);
        let kinds: Vec<Kind> = vals.iter().map(|v| v.kind).collect();
        if kinds.contains(&Kind::Null) {
            return Ok(self.dead(Kind::Null));
        }
        let words: Vec<CValue> = vals.iter().map(|v| v.word).collect();
        let (kind, word) = match (f, kinds.as_slice(), words.as_slice()) {
            (Builtin::Lower | Builtin::Upper | Builtin::Trim, [Kind::Text], [t]) => {
                let helper = match f {
                    Builtin::Lower => Helper::Unary(helpers::text_lower),
                    Builtin::Upper => Helper::Unary(helpers::text_upper),
                    _ => Helper::Unary(helpers::text_trim),
                };
                (Kind::Text, self.checked_call(helper, &[*t])?)
            }
            (Builtin::Len, [Kind::Text], [t]) => (
                Kind::Int,
                self.checked_call(Helper::Unary(helpers::text_len), &[*t])?,
            ),
            (
                Builtin::Contains | Builtin::StartsWith | Builtin::EndsWith,
                [Kind::Text, Kind::Text],
                [t, p],
            ) => {
                let helper = match f {
                    Builtin::Contains => Helper::Binary(helpers::text_contains),
                    Builtin::StartsWith => Helper::Binary(helpers::text_starts_with),
                    _ => Helper::Binary(helpers::text_ends_with),
                };
                (Kind::Bool, self.checked_call(helper, &[*t, *p])?)
            }
            (Builtin::Abs, [k @ (Kind::Int | Kind::Money)], [x]) => {
                let min = self.b.ins().icmp_imm_s(IntCC::Equal, *x, i64::MIN);
                self.fault_if(min, code::OVERFLOW);
                let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, *x, 0);
                let minus = self.b.ins().ineg(*x);
                (*k, self.b.ins().select(neg, minus, *x))
            }
            (Builtin::DaysBetween, [Kind::Date, Kind::Date], [from, to]) => {
                (Kind::Int, self.int_op(BinaryOp::Sub, *to, *from)?)
            }
            (Builtin::Left | Builtin::Right, [Kind::Text, Kind::Int], [t, n]) => {
                let helper = if f == Builtin::Left {
                    Helper::Binary(helpers::text_left)
                } else {
                    Helper::Binary(helpers::text_right)
                };
                (Kind::Text, self.checked_call(helper, &[*t, *n])?)
            }
            (Builtin::Replace, [Kind::Text, Kind::Text, Kind::Text], [t, old, new]) => {
                let helper = Helper::Ternary(helpers::text_replace);
                (Kind::Text, self.checked_call(helper, &[*t, *old, *new])?)
            }
            (Builtin::ToInt, [Kind::Text], [t]) => {
                return self.parse_text(Helper::Unary(helpers::text_to_int), Kind::Int, *t)
            }
            (Builtin::ToMoney, [Kind::Text], [t]) => {
                return self.parse_text(Helper::Unary(helpers::text_to_money), Kind::Money, *t)
            }
            (Builtin::Plural, [Kind::Int, Kind::Text, Kind::Text], [n, one, many]) => {
                let is_one = self.b.ins().icmp_imm_s(IntCC::Equal, *n, 1);
                let is_minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, *n, -1);
                let singular = self.b.ins().bor(is_one, is_minus_one);
                (Kind::Text, self.b.ins().select(singular, *one, *many))
            }
            (f, k, _) => return Err(unsupported(format!("{f:?} of {k:?}"))),
        };
        Ok(present(kind, word))
    }

    /// A helper whose negative result means an unknown text (or a full pool).
    fn checked_call(&mut self, f: Helper, args: &[CValue]) -> R<CValue> {
        let r = self.call(f, args)?;
        let bad = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, 0);
        self.fault_if(bad, code::TEXT);
        Ok(r)
    }

    /// `to_int`/`to_money`: the helper says whether the text is a number and
    /// leaves it (or 0, the word of `none`) in `JitCtx::out`.
    fn parse_text(&mut self, f: Helper, kind: Kind, t: CValue) -> R<Val> {
        let parsed = self.checked_call(f, &[t])?;
        let out = offset(std::mem::offset_of!(JitCtx, out))?;
        let flags = MemFlagsData::new().with_notrap();
        let word = self.b.ins().load(types::I64, flags, self.ctx, out);
        let present = self.b.ins().icmp_imm_s(IntCC::NotEqual, parsed, 0);
        Ok(Val {
            kind,
            word,
            present: Pres::Dyn(present),
            slot: None,
        })
    }

    /// `Date ± Int`, `Time ± Int` and `Date - Date`; both values are known to
    /// be present kinds other than `none`. A result outside
    /// [`Date::FIRST`]..=[`Date::LAST`], or outside the day, faults with
    /// `OUT_OF_RANGE`, as does a shift that overflows the word (its result
    /// would be out of range too).
    pub(super) fn calendar(&mut self, op: BinaryOp, a: &Val, b: &Val) -> R<Val> {
        let (kind, first, last) = match (a.kind, b.kind, op) {
            (Kind::Date, Kind::Date, BinaryOp::Sub) => {
                self.require_all(&[*a, *b]);
                let days = self.int_op(op, a.word, b.word)?;
                return Ok(present(Kind::Int, days));
            }
            (Kind::Date, Kind::Int, BinaryOp::Add | BinaryOp::Sub) => (
                Kind::Date,
                Date::FIRST.day_number(),
                Date::LAST.day_number(),
            ),
            (Kind::Time, Kind::Int, BinaryOp::Add | BinaryOp::Sub) => {
                (Kind::Time, 0, MINUTES_PER_DAY - 1)
            }
            (x, y, op) => return Err(unsupported(format!("{x:?} {} {y:?}", op.symbol()))),
        };
        self.require_all(&[*a, *b]);
        let (r, overflow) = if op == BinaryOp::Add {
            self.b.ins().sadd_overflow(a.word, b.word)
        } else {
            self.b.ins().ssub_overflow(a.word, b.word)
        };
        let below = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, first);
        let above = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, r, last);
        let outside = self.b.ins().bor(below, above);
        let bad = self.b.ins().bor(outside, overflow);
        self.fault_if(bad, code::OUT_OF_RANGE);
        Ok(present(kind, r))
    }
}

/// A present value of `kind`.
fn present(kind: Kind, word: CValue) -> Val {
    Val {
        kind,
        word,
        present: Pres::Yes,
        slot: None,
    }
}
