//! Lowering what a predicate asks about navigation: a page call's
//! arguments, `page is` (the current page and its arguments) and `visited`
//! (the visited set), over the header and the visited region of the flat
//! state.

use super::*;

impl Gen<'_, '_> {
    /// A page reference's arguments, evaluated in order, with the page's
    /// parameter count; each must have its parameter's class (or be `none`).
    pub(super) fn page_args(&mut self, call: &ir::PageCall) -> R<Vec<Val>> {
        if !self.site.nav {
            return Err(unsupported("`visited`/`page is` outside a task"));
        }
        let page = self
            .site
            .program
            .pages
            .get(idx(call.page))
            .ok_or_else(|| unsupported(format!("unknown page #{}", call.page)))?;
        if page.params.len() != call.args.len() || page.params.len() > self.site.layout.max_arity {
            return Err(unsupported(
                "a page reference with the wrong number of arguments",
            ));
        }
        let params: Vec<Kind> = page.params.iter().map(|p| Kind::of_ty(&p.ty)).collect();
        let mut vals = Vec::with_capacity(call.args.len());
        for (a, k) in call.args.iter().zip(params) {
            let v = self.expr(a)?;
            if v.kind != Kind::Null && v.kind.class() != k.class() {
                return Err(unsupported(format!(
                    "a {:?} argument for a {k:?} parameter",
                    v.kind
                )));
            }
            vals.push(v);
        }
        Ok(vals)
    }

    /// `page is P(args)`: the current page and its arguments.
    pub(super) fn page_is(&mut self, call: &ir::PageCall) -> R<Val> {
        let args = self.page_args(call)?;
        let layout = self.site.layout;
        let page = self.state_u32(layout.page)?;
        let mut holds = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, page, i64::from(call.page));
        for (i, a) in args.iter().enumerate() {
            // The state's argument has the parameter's kind when the page
            // matches (and the result is false anyway when it does not).
            let s = self.cell(layout.args, i, a.kind)?;
            let e = self.equal(&s, a);
            holds = self.b.ins().band(holds, e);
        }
        Ok(self.bool_val(holds))
    }

    /// `visited P(args)`: a linear search of the visited list, whose entries
    /// are page id, presence bits and argument words (0 for `none`).
    pub(super) fn visited(&mut self, call: &ir::PageCall) -> R<Val> {
        let args = self.page_args(call)?;
        let list = self.site.layout.visited;
        // The presence bits the entry must have.
        let mut mask = self.word(0);
        for (i, a) in args.iter().enumerate() {
            let p = self.pres(a.present);
            let p = self.b.ins().uextend(types::I64, p);
            let bit = self.b.ins().ishl_imm_u(p, i64::try_from(i).unwrap_or(0));
            mask = self.b.ins().bor(mask, bit);
        }
        let count = self.count(list.count, list.capacity)?;
        let result = self.b.declare_var(types::I8);
        let no = self.iconst(types::I8, 0);
        self.b.def_var(result, no);
        let i = self.b.declare_var(types::I64);
        let zero = self.word(0);
        self.b.def_var(i, zero);
        let header = self.b.create_block();
        let body = self.b.create_block();
        let hit = self.b.create_block();
        let next = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);

        self.b.switch_to_block(header);
        let iv = self.b.use_var(i);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, iv, count);
        self.b.ins().brif(more, body, &[], exit, &[]);

        self.b.switch_to_block(body);
        let size =
            i64::try_from(list.entry_size).map_err(|_| unsupported("entry size out of range"))?;
        let at = self.b.ins().imul_imm_s(iv, size);
        let entry = self.b.ins().iadd(self.state, at);
        let base = list.entries;
        let at = offset(base)?;
        let flags = self.sflags();
        let page = self.b.ins().uload32(flags, entry, at);
        let mut same = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, page, i64::from(call.page));
        let at = offset(base + 4)?;
        let bits = self.b.ins().uload32(flags, entry, at);
        let m = self.b.ins().icmp(IntCC::Equal, bits, mask);
        same = self.b.ins().band(same, m);
        for (j, a) in args.iter().enumerate() {
            let w = self.state_word(entry, base + WORD * (1 + j))?;
            let e = self.b.ins().icmp(IntCC::Equal, w, a.word);
            same = self.b.ins().band(same, e);
        }
        self.b.ins().brif(same, hit, &[], next, &[]);

        self.b.switch_to_block(hit);
        let yes = self.iconst(types::I8, 1);
        self.b.def_var(result, yes);
        self.b.ins().jump(exit, &[]);

        self.b.switch_to_block(next);
        let n = self.b.ins().iadd_imm_s(iv, 1);
        self.b.def_var(i, n);
        self.b.ins().jump(header, &[]);

        self.b.switch_to_block(exit);
        let v = self.b.use_var(result);
        Ok(self.bool_val(v))
    }
}
