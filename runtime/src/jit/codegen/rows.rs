//! Lowering row access: finding a row's slot by its id (a binary search
//! over the table's sorted ids, `MissingRow` when absent) and reading a
//! field of a row, as `interp::eval` reads them.

use super::*;

impl Gen<'_, '_> {
    /// The slot of row `id` of `table` (binary search over the sorted ids);
    /// faults with `MissingRow` when there is none.
    pub(super) fn find_row(&mut self, table: TableId, id: CValue) -> R<CValue> {
        let tl = self.table_layout(table)?.clone();
        let count = self.count(tl.count, tl.capacity)?;
        let lo = self.b.declare_var(types::I64);
        let hi = self.b.declare_var(types::I64);
        let zero = self.word(0);
        self.b.def_var(lo, zero);
        self.b.def_var(hi, count);
        let header = self.b.create_block();
        let body = self.b.create_block();
        let missing = self.b.create_block();
        let found = self.b.create_block();
        self.b.ins().jump(header, &[]);

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
        self.b.ins().brif(hit, found, &[], header, &[]);

        self.b.switch_to_block(missing);
        self.b.set_cold_block(missing);
        let t = self.word(i64::from(table));
        let flags = MemFlagsData::new().with_notrap();
        let table_at = offset(std::mem::offset_of!(JitCtx, missing_table))?;
        let id_at = offset(std::mem::offset_of!(JitCtx, missing_id))?;
        self.b.ins().store(flags, t, self.ctx, table_at);
        self.b.ins().store(flags, id, self.ctx, id_at);
        let c = self.word(code::MISSING_ROW);
        self.b.ins().return_(&[c]);

        self.b.switch_to_block(found);
        Ok(mid)
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
