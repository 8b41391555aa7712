//! Lowering row access: finding a row's slot by its id (slot `id - 1`
//! first, where an undeleted row sits, then a binary search over the
//! table's sorted ids, `MissingRow` when absent) and reading a field of a
//! row, as `interp::eval` reads them.
//!
//! A lookup by a constant id inside a scan (`e.student == Student[1]` in a
//! goal's `exists`) would search the ids once per row scanned. In code that
//! does not write the state (predicates, conditions, labels) the state is
//! the same all through a call, so each such lookup is searched once,
//! before the outermost scan that holds it, without faulting; where the
//! lookup is evaluated, a row that was not found faults then, as it would
//! have (a lookup the scan never reaches faults never).

use super::*;

/// A row lookup by a constant id searched ahead of a scan.
pub(super) struct Hoisted {
    table: TableId,
    id: i64,
    /// The row's slot (0 when not found).
    slot: CValue,
    /// An `i8`: whether the row was found.
    found: CValue,
}

impl Gen<'_, '_> {
    /// `table[id]`: the row, or a fault (`NoneValue` for a `none` id,
    /// `MissingRow` for an id the table lacks).
    pub(super) fn lookup(&mut self, table: TableId, id: &Expr) -> R<Val> {
        if let Some(k) = constant_id(id) {
            if let Some(h) = self.hoisted.iter().find(|h| h.table == table && h.id == k) {
                let (slot, found) = (h.slot, h.found);
                let word = self.word(k);
                let missing = self.b.create_block();
                let cont = self.b.create_block();
                self.b.ins().brif(found, cont, &[], missing, &[]);
                self.b.switch_to_block(missing);
                self.missing_row(table, word)?;
                self.b.switch_to_block(cont);
                return Ok(Val {
                    kind: Kind::Row(Some(table)),
                    word,
                    present: Pres::Yes,
                    slot: Some(slot),
                });
            }
        }
        let v = self.expr(id)?;
        match v.kind {
            Kind::Int => {
                self.require(&v);
                let slot = self.find_row(table, v.word)?;
                Ok(Val {
                    kind: Kind::Row(Some(table)),
                    word: v.word,
                    present: Pres::Yes,
                    slot: Some(slot),
                })
            }
            Kind::Null => {
                self.fault(code::NONE_VALUE);
                Ok(self.dead(Kind::Row(Some(table))))
            }
            k => Err(unsupported(format!("row lookup by a {k:?}"))),
        }
    }

    /// Lowers the scan expression `e` with `lower`, each row lookup by a
    /// constant id inside it (and not searched already) searched first.
    pub(super) fn hoisting_lookups(
        &mut self,
        e: &Expr,
        lower: impl FnOnce(&mut Self) -> R<Val>,
    ) -> R<Val> {
        // A marker body's statements write the state between lookups.
        if self.site.mutable {
            return lower(self);
        }
        let mut wanted: Vec<(TableId, i64)> = Vec::new();
        e.for_each_child(&mut |child| {
            child.walk(&mut |x| {
                if let Expr::Lookup { table, id } = x {
                    if let Some(k) = constant_id(id) {
                        wanted.push((*table, k));
                    }
                }
            })
        });
        let before = self.hoisted.len();
        for (table, id) in wanted {
            if self.hoisted.iter().any(|h| h.table == table && h.id == id) {
                continue;
            }
            let word = self.word(id);
            let (slot, found) = self.search_row(table, word)?;
            self.hoisted.push(Hoisted {
                table,
                id,
                slot,
                found,
            });
        }
        let lowered = lower(self);
        self.hoisted.truncate(before);
        lowered
    }

    /// The slot of row `id` of `table` and an `i8` saying whether it was
    /// found (slot 0 when not), without faulting.
    fn search_row(&mut self, table: TableId, id: CValue) -> R<(CValue, CValue)> {
        let missing = self.b.create_block();
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64);
        self.b.append_block_param(join, types::I8);
        let slot = self.binary_search(table, id, missing)?;
        let yes = self.iconst(types::I8, 1);
        self.b.ins().jump(join, &[slot.into(), yes.into()]);
        self.b.switch_to_block(missing);
        let zero = self.word(0);
        let no = self.iconst(types::I8, 0);
        self.b.ins().jump(join, &[zero.into(), no.into()]);
        self.b.switch_to_block(join);
        let &[slot, found] = self.b.block_params(join) else {
            return Err(internal("a join block without its two parameters"));
        };
        Ok((slot, found))
    }

    /// The slot of row `id` of `table`; faults with `MissingRow` when there
    /// is none.
    pub(super) fn find_row(&mut self, table: TableId, id: CValue) -> R<CValue> {
        let missing = self.b.create_block();
        let slot = self.binary_search(table, id, missing)?;
        let found = self.b.current_block().ok_or_else(|| internal("no block"))?;
        self.b.switch_to_block(missing);
        self.missing_row(table, id)?;
        self.b.switch_to_block(found);
        Ok(slot)
    }

    /// Ends the current block (made cold) with the `MissingRow` fault for
    /// row `id` of `table`.
    fn missing_row(&mut self, table: TableId, id: CValue) -> R<()> {
        let block = self.b.current_block().ok_or_else(|| internal("no block"))?;
        self.b.set_cold_block(block);
        let t = self.word(i64::from(table));
        let flags = MemFlagsData::new().with_notrap();
        let table_at = offset(std::mem::offset_of!(JitCtx, missing_table))?;
        let id_at = offset(std::mem::offset_of!(JitCtx, missing_id))?;
        self.b.ins().store(flags, t, self.ctx, table_at);
        self.b.ins().store(flags, id, self.ctx, id_at);
        let c = self.word(code::MISSING_ROW);
        self.b.ins().return_(&[c]);
        Ok(())
    }

    /// Row `id`'s slot in `table`'s sorted ids: the builder ends in the
    /// block where it was found, with its slot; a miss goes on to
    /// `missing`.
    ///
    /// Rows are given ids 1, 2, 3… in order (`TableState::issue_id`, and
    /// seed rows from 1), so until a row is deleted, row `id` sits at slot
    /// `id - 1`. That slot is tried first; when it holds another id (a row
    /// before it was deleted) or lies past the rows, a binary search
    /// follows. Either way the slot found is the one holding `id`, and ids
    /// are distinct, so the guess changes no answer, only how soon it
    /// comes: a loop's binder is a row id, and every field read of it
    /// looked its row up again.
    fn binary_search(&mut self, table: TableId, id: CValue, missing: Block) -> R<CValue> {
        let tl = self.table_layout(table)?.clone();
        let count = self.count(tl.count, tl.capacity)?;
        let lo = self.b.declare_var(types::I64);
        let hi = self.b.declare_var(types::I64);
        let zero = self.word(0);
        self.b.def_var(lo, zero);
        self.b.def_var(hi, count);
        let guess = self.b.create_block();
        let header = self.b.create_block();
        let body = self.b.create_block();
        let found = self.b.create_block();
        self.b.append_block_param(found, types::I64);

        // Slot `id - 1`, when it is one of the rows (an id of 0 or less
        // wraps past every count, unsigned).
        let g = self.b.ins().iadd_imm_s(id, -1);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, g, count);
        self.b.ins().brif(inside, guess, &[], header, &[]);
        self.b.switch_to_block(guess);
        let at = self.b.ins().ishl_imm_u(g, 3);
        let at = self.b.ins().iadd(self.state, at);
        let v = self.state_word(at, tl.ids)?;
        let hit = self.b.ins().icmp(IntCC::Equal, v, id);
        self.b.ins().brif(hit, found, &[g.into()], header, &[]);

        self.b.switch_to_block(header);
        let l = self.b.use_var(lo);
        let h = self.b.use_var(hi);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, l, h);
        self.b.ins().brif(more, body, &[], missing, &[]);

        self.b.switch_to_block(body);
        let sum = self.b.ins().iadd(l, h);
        let mid = self.b.ins().ushr_imm_u(sum, 1);
        let at = self.b.ins().ishl_imm_u(mid, 3);
        let at = self.b.ins().iadd(self.state, at);
        let v = self.state_word(at, tl.ids)?;
        let less = self.b.ins().icmp(IntCC::SignedLessThan, v, id);
        let next_lo = self.b.ins().iadd_imm_s(mid, 1);
        let new_lo = self.b.ins().select(less, next_lo, l);
        let new_hi = self.b.ins().select(less, h, mid);
        self.b.def_var(lo, new_lo);
        self.b.def_var(hi, new_hi);
        let hit = self.b.ins().icmp(IntCC::Equal, v, id);
        self.b.ins().brif(hit, found, &[mid.into()], header, &[]);

        self.b.switch_to_block(found);
        let &[slot] = self.b.block_params(found) else {
            return Err(internal("a found block without its slot"));
        };
        Ok(slot)
    }

    /// `row.field`: `none` faults, a row that does not exist faults.
    pub(super) fn field(&mut self, r: Val, table: TableId, field: u32) -> R<Val> {
        let def = self
            .site
            .program
            .tables
            .get(idx(table))
            .and_then(|t| t.fields.get(idx(field)))
            .ok_or_else(|| unsupported(format!("unknown field #{field} of table #{table}")))?;
        let kind = Kind::of_ty(&def.ty);
        let cells = *self
            .table_layout(table)?
            .columns
            .get(idx(field))
            .ok_or_else(|| unsupported(format!("no column for field #{field}")))?;
        match r.kind {
            Kind::Row(_) => {}
            Kind::Null => {
                self.fault(code::NONE_VALUE);
                return Ok(self.dead(kind));
            }
            k => return Err(unsupported(format!("a field of a {k:?}"))),
        }
        self.require(&r);
        let slot = match (r.kind, r.slot) {
            (Kind::Row(Some(t)), Some(s)) if t == table => s,
            _ => self.find_row(table, r.word)?,
        };
        self.cell_at(cells, slot, kind)
    }
}

/// `k` when `id` is the constant integer `k`.
fn constant_id(id: &Expr) -> Option<i64> {
    match id {
        Expr::Const(Value::Int(k)) => Some(*k),
        _ => None,
    }
}
