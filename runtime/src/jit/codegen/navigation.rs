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
        let size =
            i64::try_from(list.entry_size).map_err(|_| unsupported("entry size out of range"))?;
        let from = self.word(0);
        self.counted_loop(from, count, |g, iv, _, exit| {
            let at = g.b.ins().imul_imm_s(iv, size);
            let entry = g.b.ins().iadd(g.state, at);
            let base = list.entries;
            let at = offset(base)?;
            let flags = g.sflags();
            let page = g.b.ins().uload32(flags, entry, at);
            let mut same =
                g.b.ins()
                    .icmp_imm_s(IntCC::Equal, page, i64::from(call.page));
            let at = offset(base + 4)?;
            let bits = g.b.ins().uload32(flags, entry, at);
            let m = g.b.ins().icmp(IntCC::Equal, bits, mask);
            same = g.b.ins().band(same, m);
            for (j, a) in args.iter().enumerate() {
                let w = g.state_word(entry, base + WORD * (1 + j))?;
                let e = g.b.ins().icmp(IntCC::Equal, w, a.word);
                same = g.b.ins().band(same, e);
            }
            // A match sets the result and leaves the loop; any other entry
            // goes on to the next.
            let (hit, miss) = (g.b.create_block(), g.b.create_block());
            g.b.ins().brif(same, hit, &[], miss, &[]);
            g.b.switch_to_block(hit);
            let yes = g.iconst(types::I8, 1);
            g.b.def_var(result, yes);
            g.b.ins().jump(exit, &[]);
            g.b.switch_to_block(miss);
            Ok(())
        })?;
        let v = self.b.use_var(result);
        Ok(self.bool_val(v))
    }
}
