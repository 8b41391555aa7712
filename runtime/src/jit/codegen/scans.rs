//! Lowering row scans: quantifiers, `count`, `sum`, `min`/`max` and `find`
//! over a table's rows in id order, the binder's slot restored after.

use super::*;

impl Gen<'_, '_> {
    /// A loop over the rows of `s.table` in id order (slot order), the binder
    /// in scope for the filter and `visit`. `visit` emits code for a row that
    /// passed the filter; it gets the row, the block of the next row and the
    /// block after the loop, and must leave an open block (which then goes on
    /// to the next row).
    pub(super) fn scan(
        &mut self,
        s: &RowScan,
        mut visit: impl FnMut(&mut Self, Val, Block, Block) -> R<()>,
    ) -> R<()> {
        at_slot(s.binder)?;
        let tl = self.table_layout(s.table)?.clone();
        let count = self.count(tl.count, tl.capacity)?;
        let from = self.word(0);
        self.counted_loop(from, count, |g, iv, next, exit| {
            let at = g.b.ins().ishl_imm_u(iv, 3);
            let at = g.b.ins().iadd(g.state, at);
            let id = g.state_word(at, tl.ids)?;
            let row = Val {
                kind: Kind::Row(Some(s.table)),
                word: id,
                present: Pres::Yes,
                slot: Some(iv),
            };
            g.scope.push((s.binder, row));
            let visited = g.scan_body(s, row, next, exit, &mut visit);
            g.scope.pop();
            visited
        })
    }

    /// A loop of `i` from `from` while `i < end` (signed), one up each time:
    /// every counted loop the code generator emits (row scans, the visited
    /// list, a marker's snapshot). `body` is emitted with `i`, the block
    /// that goes on to the next `i` and the block after the loop, and must
    /// leave an open block, which then goes on to the next `i`; the builder
    /// ends in the block after the loop.
    pub(super) fn counted_loop(
        &mut self,
        from: CValue,
        end: CValue,
        body: impl FnOnce(&mut Self, CValue, Block, Block) -> R<()>,
    ) -> R<()> {
        let i = self.b.declare_var(types::I64);
        self.b.def_var(i, from);
        let header = self.b.create_block();
        let first = self.b.create_block();
        let next = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);

        self.b.switch_to_block(header);
        let iv = self.b.use_var(i);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, iv, end);
        self.b.ins().brif(more, first, &[], exit, &[]);

        self.b.switch_to_block(first);
        body(self, iv, next, exit)?;
        self.b.ins().jump(next, &[]);

        self.b.switch_to_block(next);
        let iv = self.b.use_var(i);
        let n = self.b.ins().iadd_imm_s(iv, 1);
        self.b.def_var(i, n);
        self.b.ins().jump(header, &[]);

        self.b.switch_to_block(exit);
        Ok(())
    }

    pub(super) fn scan_body(
        &mut self,
        s: &RowScan,
        row: Val,
        next: Block,
        exit: Block,
        visit: &mut impl FnMut(&mut Self, Val, Block, Block) -> R<()>,
    ) -> R<()> {
        if let Some(filter) = &s.filter {
            let keep = self.cond(filter)?;
            let pass = self.b.create_block();
            self.b.ins().brif(keep, pass, &[], next, &[]);
            self.b.switch_to_block(pass);
        }
        visit(self, row, next, exit)
    }

    /// `exists` stops at the first row where the body holds, `all` at the
    /// first where it does not.
    pub(super) fn quantifier(&mut self, s: &RowScan, body: &Expr, exists: bool) -> R<Val> {
        let result = self.b.declare_var(types::I8);
        let initial = self.iconst(types::I8, i64::from(!exists));
        self.b.def_var(result, initial);
        self.scan(s, |g, _, _, exit| {
            let holds = g.cond(body)?;
            let stop = g.b.create_block();
            let cont = g.b.create_block();
            if exists {
                g.b.ins().brif(holds, stop, &[], cont, &[]);
            } else {
                g.b.ins().brif(holds, cont, &[], stop, &[]);
            }
            g.b.switch_to_block(stop);
            let decided = g.iconst(types::I8, i64::from(exists));
            g.b.def_var(result, decided);
            g.b.ins().jump(exit, &[]);
            g.b.switch_to_block(cont);
            Ok(())
        })?;
        let v = self.b.use_var(result);
        Ok(self.bool_val(v))
    }

    pub(super) fn count_rows(&mut self, s: &RowScan) -> R<Val> {
        let n = self.b.declare_var(types::I64);
        let zero = self.word(0);
        self.b.def_var(n, zero);
        // A table holds at most its capacity, so the count cannot overflow.
        self.scan(s, |g, _, _, _| {
            let v = g.b.use_var(n);
            let v = g.b.ins().iadd_imm_s(v, 1);
            g.b.def_var(n, v);
            Ok(())
        })?;
        let word = self.b.use_var(n);
        Ok(Val {
            kind: Kind::Int,
            word,
            present: Pres::Yes,
            slot: None,
        })
    }

    /// `sum`: 0 (or $0.00) over no rows; a `none` value faults, as in `+`.
    pub(super) fn sum(&mut self, value: &Expr, s: &RowScan, kind: Kind) -> R<Val> {
        let acc = self.b.declare_var(types::I64);
        let zero = self.word(0);
        self.b.def_var(acc, zero);
        self.scan(s, |g, _, _, _| {
            let v = g.expr(value)?;
            if v.kind != kind && v.kind != Kind::Null {
                return Err(unsupported(format!(
                    "a {kind:?} sum of {:?} values",
                    v.kind
                )));
            }
            g.require(&v);
            let a = g.b.use_var(acc);
            let (r, of) = g.b.ins().sadd_overflow(a, v.word);
            g.fault_if(of, code::OVERFLOW);
            g.b.def_var(acc, r);
            Ok(())
        })?;
        let word = self.b.use_var(acc);
        Ok(Val {
            kind,
            word,
            present: Pres::Yes,
            slot: None,
        })
    }

    /// `min`/`max`: `none` values are skipped; `none` over no values; the
    /// first of equal values is kept.
    pub(super) fn extremum(&mut self, value: &Expr, s: &RowScan, min: bool) -> R<Val> {
        let acc = self.b.declare_var(types::I64);
        let has = self.b.declare_var(types::I8);
        let zero = self.word(0);
        self.b.def_var(acc, zero);
        let no = self.iconst(types::I8, 0);
        self.b.def_var(has, no);
        let mut kind = Kind::Null;
        self.scan(s, |g, _, next, _| {
            let v = g.expr(value)?;
            kind = v.kind;
            if v.kind == Kind::Null {
                return Ok(());
            }
            if !v.kind.ordered() {
                return Err(unsupported(format!("min/max of {:?} values", v.kind)));
            }
            let take = g.b.create_block();
            let check = g.b.create_block();
            let compare = g.b.create_block();
            let pv = g.pres(v.present);
            g.b.ins().brif(pv, check, &[], next, &[]);
            g.b.switch_to_block(check);
            let any = g.b.use_var(has);
            g.b.ins().brif(any, compare, &[], take, &[]);
            g.b.switch_to_block(compare);
            let a = g.b.use_var(acc);
            let cc = if min {
                IntCC::SignedLessThan
            } else {
                IntCC::SignedGreaterThan
            };
            let better = if v.kind == Kind::Text {
                let order = g.text_order(v.word, a)?;
                g.b.ins().icmp_imm_s(cc, order, 0)
            } else {
                g.b.ins().icmp(cc, v.word, a)
            };
            g.b.ins().brif(better, take, &[], next, &[]);
            g.b.switch_to_block(take);
            g.b.def_var(acc, v.word);
            let yes = g.iconst(types::I8, 1);
            g.b.def_var(has, yes);
            Ok(())
        })?;
        let word = self.b.use_var(acc);
        let present = self.b.use_var(has);
        Ok(Val {
            kind,
            word,
            present: Pres::Dyn(present),
            slot: None,
        })
    }

    /// `find`: the first (lowest-id) row passing the filter, or `none`.
    pub(super) fn find(&mut self, s: &RowScan) -> R<Val> {
        let id = self.b.declare_var(types::I64);
        let has = self.b.declare_var(types::I8);
        let slot = self.b.declare_var(types::I64);
        let zero = self.word(0);
        self.b.def_var(id, zero);
        self.b.def_var(slot, zero);
        let no = self.iconst(types::I8, 0);
        self.b.def_var(has, no);
        self.scan(s, |g, row, _, exit| {
            g.b.def_var(id, row.word);
            if let Some(at) = row.slot {
                g.b.def_var(slot, at);
            }
            let yes = g.iconst(types::I8, 1);
            g.b.def_var(has, yes);
            g.b.ins().jump(exit, &[]);
            // `scan` wants an open block; this one is unreachable.
            let after = g.b.create_block();
            g.b.switch_to_block(after);
            Ok(())
        })?;
        let word = self.b.use_var(id);
        let present = self.b.use_var(has);
        let at = self.b.use_var(slot);
        Ok(Val {
            kind: Kind::Row(Some(s.table)),
            word,
            present: Pres::Dyn(present),
            slot: Some(at),
        })
    }
}
