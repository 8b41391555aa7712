//! Lowering §3's operators: unary and binary arithmetic with overflow
//! faults, short-circuit logic, equality and ordering (texts through the
//! pool), and `in` lists.

use super::*;

impl Gen<'_, '_> {
    pub(super) fn unary(&mut self, op: UnaryOp, v: Val) -> R<Val> {
        match (op, v.kind) {
            (_, Kind::Null) => {
                self.fault(code::NONE_VALUE);
                Ok(self.dead(Kind::Null))
            }
            (UnaryOp::Neg, Kind::Int | Kind::Money) => {
                self.require(&v);
                let min = self.b.ins().icmp_imm_s(IntCC::Equal, v.word, i64::MIN);
                self.fault_if(min, code::OVERFLOW);
                let word = self.b.ins().ineg(v.word);
                Ok(Val {
                    kind: v.kind,
                    word,
                    present: Pres::Yes,
                    slot: None,
                })
            }
            (UnaryOp::Not, Kind::Bool) => {
                self.require(&v);
                let b = self.b.ins().icmp_imm_s(IntCC::Equal, v.word, 0);
                Ok(self.bool_val(b))
            }
            (op, k) => Err(unsupported(format!("{op:?} of a {k:?}"))),
        }
    }

    pub(super) fn binary(&mut self, op: BinaryOp, l: &Expr, r: &Expr) -> R<Val> {
        match op {
            BinaryOp::And | BinaryOp::Or => self.logic(op == BinaryOp::And, l, r),
            _ => {
                let a = self.expr(l)?;
                let b = self.expr(r)?;
                match op {
                    BinaryOp::Eq => {
                        let e = self.equal(&a, &b);
                        Ok(self.bool_val(e))
                    }
                    BinaryOp::Ne => {
                        let e = self.equal(&a, &b);
                        let n = self.b.ins().bxor_imm_s(e, 1);
                        Ok(self.bool_val(n))
                    }
                    BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                        let c = self.compare(op, &a, &b)?;
                        Ok(self.bool_val(c))
                    }
                    _ => self.arith(op, &a, &b),
                }
            }
        }
    }

    /// `and`/`or`: the right side only when the left does not decide.
    pub(super) fn logic(&mut self, and: bool, l: &Expr, r: &Expr) -> R<Val> {
        let result = self.b.declare_var(types::I8);
        let left = self.cond(l)?;
        self.b.def_var(result, left);
        let right = self.b.create_block();
        let done = self.b.create_block();
        if and {
            self.b.ins().brif(left, right, &[], done, &[]);
        } else {
            self.b.ins().brif(left, done, &[], right, &[]);
        }
        self.b.switch_to_block(right);
        let rv = self.cond(r)?;
        self.b.def_var(result, rv);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        let v = self.b.use_var(result);
        Ok(self.bool_val(v))
    }

    /// `Value` equality as an `i8`: same class, same presence, same word
    /// (words of `none` are 0); values of different classes are equal only
    /// when both are `none`.
    pub(super) fn equal(&mut self, a: &Val, b: &Val) -> CValue {
        let pa = self.pres(a.present);
        let pb = self.pres(b.present);
        if a.kind != Kind::Null && a.kind.class() == b.kind.class() {
            let words = self.b.ins().icmp(IntCC::Equal, a.word, b.word);
            if let (Pres::Yes, Pres::Yes) = (a.present, b.present) {
                return words;
            }
            let pres = self.b.ins().icmp(IntCC::Equal, pa, pb);
            self.b.ins().band(pres, words)
        } else {
            let either = self.b.ins().bor(pa, pb);
            self.b.ins().bxor_imm_s(either, 1)
        }
    }

    /// `<`, `<=`, `>`, `>=`: false when either side is `none`; texts by code
    /// point (a helper).
    pub(super) fn compare(&mut self, op: BinaryOp, a: &Val, b: &Val) -> R<CValue> {
        if a.kind == Kind::Null || b.kind == Kind::Null {
            return Ok(self.iconst(types::I8, 0));
        }
        if a.kind.class() != b.kind.class() || !a.kind.ordered() {
            return Err(unsupported(format!(
                "ordering of {:?} and {:?}",
                a.kind, b.kind
            )));
        }
        let cc = match op {
            BinaryOp::Lt => IntCC::SignedLessThan,
            BinaryOp::Le => IntCC::SignedLessThanOrEqual,
            BinaryOp::Gt => IntCC::SignedGreaterThan,
            _ => IntCC::SignedGreaterThanOrEqual,
        };
        let pa = self.pres(a.present);
        let pb = self.pres(b.present);
        let both = self.b.ins().band(pa, pb);
        if a.kind != Kind::Text {
            let c = self.b.ins().icmp(cc, a.word, b.word);
            return Ok(self.b.ins().band(both, c));
        }
        // Texts: call the helper only when both are present (the word of a
        // `none` is no text id).
        let result = self.b.declare_var(types::I8);
        let no = self.iconst(types::I8, 0);
        self.b.def_var(result, no);
        let call = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(both, call, &[], done, &[]);
        self.b.switch_to_block(call);
        let order = self.text_order(a.word, b.word)?;
        let c = self.b.ins().icmp_imm_s(cc, order, 0);
        self.b.def_var(result, c);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(self.b.use_var(result))
    }

    /// The order of two present texts: -1, 0 or 1 (faulting on an unknown id).
    pub(super) fn text_order(&mut self, a: CValue, b: CValue) -> R<CValue> {
        let order = self.call(Helper::Binary(helpers::text_cmp), &[a, b])?;
        let bad = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, order, helpers::CMP_ERROR);
        self.fault_if(bad, code::TEXT);
        Ok(order)
    }

    /// Checked arithmetic on the combinations §3 defines.
    pub(super) fn arith(&mut self, op: BinaryOp, a: &Val, b: &Val) -> R<Val> {
        use BinaryOp::{Add, Div, Mul, Sub};
        if a.kind == Kind::Null || b.kind == Kind::Null {
            self.fault(code::NONE_VALUE);
            return Ok(self.dead(Kind::Null));
        }
        let kind = match (a.kind, b.kind) {
            (Kind::Int, Kind::Int) => Kind::Int,
            (Kind::Money, Kind::Money) if matches!(op, Add | Sub) => Kind::Money,
            (Kind::Money, Kind::Int) if matches!(op, Mul | Div) => Kind::Money,
            (Kind::Int, Kind::Money) if op == Mul => Kind::Money,
            (Kind::Date | Kind::Time, _) => return self.calendar(op, a, b),
            (x, y) => return Err(unsupported(format!("{x:?} {} {y:?}", op.symbol()))),
        };
        self.require_all(&[*a, *b]);
        let word = self.int_op(op, a.word, b.word)?;
        Ok(Val {
            kind,
            word,
            present: Pres::Yes,
            slot: None,
        })
    }

    /// `interp::eval`'s `int_op`: overflow and division by zero fault; `%`
    /// of `i64::MIN` by -1 is 0.
    pub(super) fn int_op(&mut self, op: BinaryOp, x: CValue, y: CValue) -> R<CValue> {
        Ok(match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                let (r, of) = match op {
                    BinaryOp::Add => self.b.ins().sadd_overflow(x, y),
                    BinaryOp::Sub => self.b.ins().ssub_overflow(x, y),
                    _ => self.b.ins().smul_overflow(x, y),
                };
                self.fault_if(of, code::OVERFLOW);
                r
            }
            BinaryOp::Div => {
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
                self.fault_if(zero, code::DIVISION_BY_ZERO);
                let min = self.b.ins().icmp_imm_s(IntCC::Equal, x, i64::MIN);
                let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                let of = self.b.ins().band(min, minus_one);
                self.fault_if(of, code::OVERFLOW);
                // The guards above already returned for these divisors; the
                // select makes the division itself unable to trap.
                let unsafe_divisor = self.b.ins().bor(zero, minus_one);
                let one = self.word(1);
                let d = self.b.ins().select(unsafe_divisor, one, y);
                let q = self.b.ins().sdiv(x, d);
                let neg = self.b.ins().ineg(x);
                self.b.ins().select(minus_one, neg, q)
            }
            BinaryOp::Rem => {
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
                self.fault_if(zero, code::DIVISION_BY_ZERO);
                // `x % -1` is 0 for every x, as is `x % 1`; dividing by 1
                // instead keeps `i64::MIN % -1` from trapping.
                let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                let unsafe_divisor = self.b.ins().bor(zero, minus_one);
                let one = self.word(1);
                let d = self.b.ins().select(unsafe_divisor, one, y);
                self.b.ins().srem(x, d)
            }
            other => {
                return Err(unsupported(format!(
                    "`{}` is not arithmetic",
                    other.symbol()
                )))
            }
        })
    }

    /// `x in [a, b, …]`: the items in order until one equals `x`.
    pub(super) fn member(&mut self, x: &Expr, items: &[Expr]) -> R<Val> {
        let x = self.expr(x)?;
        let result = self.b.declare_var(types::I8);
        let hit = self.b.create_block();
        let done = self.b.create_block();
        for item in items {
            let v = self.expr(item)?;
            let e = self.equal(&x, &v);
            let next = self.b.create_block();
            self.b.ins().brif(e, hit, &[], next, &[]);
            self.b.switch_to_block(next);
        }
        let no = self.iconst(types::I8, 0);
        self.b.def_var(result, no);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(hit);
        let yes = self.iconst(types::I8, 1);
        self.b.def_var(result, yes);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        let v = self.b.use_var(result);
        Ok(self.bool_val(v))
    }
}
