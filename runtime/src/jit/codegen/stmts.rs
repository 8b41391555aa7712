//! Lowering a marker body (`ir::Stmt`s) to a Cranelift function that runs it
//! on the mutable flat state, statement for statement as `interp::exec` runs
//! it, and the `go` arguments to functions of their own.
//!
//! Frame slots live in Cranelift variables (word and presence) typed by
//! `frames::marker_body_slots`; parameters are loaded from the frame memory at
//! entry. Expressions are lowered exactly as for predicates. Every write to
//! the state goes through a helper of `super::super::marker`, which keeps the
//! undo log and the delta; the generated code itself only loads (without
//! `readonly`, so no load moves across a helper call). The function returns
//! 1 when the body completes, or a negative code: a fault (`code::*`), or
//! `code::REJECTED` for `reject` and a full table. The gate and the `go`
//! arguments are the runner's business (`marker::run`), and so is a
//! `reject`'s message: the body only says which `reject` it reached and
//! snapshots the frame there, as for `go` (`jit::alert` renders it).

use super::*;
use ir::{PageCall, Stmt};

impl Gen<'_, '_> {
    /// Calls a body helper, returning its code from the function when it is
    /// negative.
    fn effect(&mut self, addr: usize, args: &[CValue]) -> R<CValue> {
        let r = self.call_addr(addr, args)?;
        let bad = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, 0);
        let fault = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(fault);
        self.b.ins().brif(bad, fault, &[], cont, &[]);
        self.b.switch_to_block(fault);
        self.b.ins().return_(&[r]);
        self.b.switch_to_block(cont);
        Ok(r)
    }

    /// A value's presence as an `i64` 0/1.
    fn pres64(&mut self, v: &Val) -> CValue {
        let p = self.pres(v.present);
        self.b.ins().uextend(types::I64, p)
    }

    fn stmts(&mut self, ss: &[Stmt]) -> R<()> {
        ss.iter().try_for_each(|s| self.stmt(s))
    }

    /// The variable pair of a frame slot.
    fn var(&self, slot: Slot) -> R<(Variable, Variable, Kind)> {
        let i = at_slot(slot)?;
        match self.vars.get(i) {
            Some(Some(v)) => Ok(*v),
            _ => Err(unsupported(format!("local slot {slot} of unknown type"))),
        }
    }

    /// `let slot = v` (and the other writes of a slot).
    fn assign(&mut self, slot: Slot, v: Val) -> R<()> {
        let (w, p, kind) = self.var(slot)?;
        if v.kind != Kind::Null && v.kind.class() != kind.class() {
            return Err(unsupported(format!(
                "a {:?} assigned to a {kind:?} slot",
                v.kind
            )));
        }
        let present = self.pres(v.present);
        self.b.def_var(w, v.word);
        self.b.def_var(p, present);
        Ok(())
    }

    /// A value stored into a place of type `ty` must have its kind (a `none`
    /// is checked by the gate at run time).
    fn storable(v: &Val, ty: &Ty) -> R<()> {
        if v.kind == Kind::Null || v.kind.class() == Kind::of_ty(ty).class() {
            Ok(())
        } else {
            Err(unsupported(format!(
                "a {:?} stored in a place of type {ty:?}",
                v.kind
            )))
        }
    }

    fn field_ty(&self, table: TableId, field: u32) -> R<Ty> {
        self.site
            .program
            .tables
            .get(idx(table))
            .and_then(|t| t.fields.get(idx(field)))
            .map(|f| f.ty.clone())
            .ok_or_else(|| unsupported(format!("unknown field #{field} of table #{table}")))
    }

    /// The id of the row `e` refers to (`none` faults).
    fn row_word(&mut self, e: &Expr) -> R<CValue> {
        let r = self.expr(e)?;
        match r.kind {
            Kind::Row(_) => {
                self.require(&r);
                Ok(r.word)
            }
            Kind::Null => {
                self.fault(code::NONE_VALUE);
                Ok(self.word(0))
            }
            k => Err(unsupported(format!("a {k:?} used as a row"))),
        }
    }

    /// Pushes the ids of the scan's rows passing its filter onto the
    /// snapshot stack; returns the stack's length before and after.
    fn snapshot(&mut self, scan: &ir::RowScan) -> R<(CValue, CValue)> {
        let base = self.call_addr(self.body_fn(|h| h.snap_len)?, &[])?;
        self.scan(scan, |g, row, _, _| {
            g.effect(g.body_fn(|h| h.snap_push)?, &[row.word])?;
            Ok(())
        })?;
        let end = self.call_addr(self.body_fn(|h| h.snap_len)?, &[])?;
        Ok((base, end))
    }

    /// A loop over snapshot entries `base..end`; `visit` gets the id.
    fn over_snapshot(
        &mut self,
        base: CValue,
        end: CValue,
        mut visit: impl FnMut(&mut Self, CValue) -> R<()>,
    ) -> R<()> {
        self.counted_loop(base, end, |g, iv, _, _| {
            let id = g.call_addr(g.body_fn(|h| h.snap_get)?, &[iv])?;
            visit(g, id)
        })?;
        self.call_addr(self.body_fn(|h| h.snap_truncate)?, &[base])?;
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Let(slot, e) => {
                let v = self.expr(e)?;
                self.assign(*slot, v)?;
            }
            Stmt::Insert {
                slot,
                table,
                fields,
            } => {
                self.table_layout(*table)?;
                // Every value before the row exists, as `exec` does.
                let mut vals = Vec::with_capacity(fields.len());
                for (f, e) in fields {
                    let ty = self.field_ty(*table, *f)?;
                    let v = self.expr(e)?;
                    Self::storable(&v, &ty)?;
                    vals.push((*f, v));
                }
                let t = self.word(i64::from(*table));
                self.effect(self.body_fn(|h| h.body_insert)?, &[t])?;
                let out = offset(std::mem::offset_of!(JitCtx, out))?;
                let flags = MemFlagsData::new().with_notrap();
                let id = self.b.ins().load(types::I64, flags, self.ctx, out);
                for (f, v) in vals {
                    let fw = self.word(i64::from(f));
                    let p = self.pres64(&v);
                    self.effect(self.body_fn(|h| h.body_insert_cell)?, &[t, fw, v.word, p])?;
                }
                if let Some(slot) = slot {
                    let row = Val {
                        kind: Kind::Row(Some(*table)),
                        word: id,
                        present: Pres::Yes,
                        slot: None,
                    };
                    self.assign(*slot, row)?;
                }
            }
            Stmt::SetField {
                row,
                table,
                field,
                value,
            } => {
                let ty = self.field_ty(*table, *field)?;
                self.table_layout(*table)?;
                let id = self.row_word(row)?;
                let v = self.expr(value)?;
                Self::storable(&v, &ty)?;
                let t = self.word(i64::from(*table));
                let f = self.word(i64::from(*field));
                let p = self.pres64(&v);
                self.effect(self.body_fn(|h| h.body_set_field)?, &[t, f, id, v.word, p])?;
            }
            Stmt::SetSession(s, e) => {
                let ty = self
                    .site
                    .program
                    .session
                    .get(idx(*s))
                    .map(|d| d.ty.clone())
                    .ok_or_else(|| unsupported(format!("unknown session variable #{s}")))?;
                let v = self.expr(e)?;
                Self::storable(&v, &ty)?;
                let sw = self.word(i64::from(*s));
                let p = self.pres64(&v);
                self.effect(self.body_fn(|h| h.body_set_session)?, &[sw, v.word, p])?;
            }
            Stmt::Delete { table, row } => {
                self.table_layout(*table)?;
                let id = self.row_word(row)?;
                let t = self.word(i64::from(*table));
                self.effect(self.body_fn(|h| h.body_delete)?, &[t, id])?;
            }
            Stmt::DeleteAll(scan) => {
                let (base, end) = self.snapshot(scan)?;
                let t = self.word(i64::from(scan.table));
                self.over_snapshot(base, end, |g, id| {
                    g.effect(g.body_fn(|h| h.body_delete)?, &[t, id])?;
                    Ok(())
                })?;
            }
            Stmt::For(scan, body) => {
                let (base, end) = self.snapshot(scan)?;
                let (w, p, _) = self.var(scan.binder)?;
                let saved_w = self.b.use_var(w);
                let saved_p = self.b.use_var(p);
                let t = self.word(i64::from(scan.table));
                self.over_snapshot(base, end, |g, id| {
                    // A row the body deleted meanwhile is skipped.
                    let exists = g.call_addr(g.body_fn(|h| h.row_exists)?, &[t, id])?;
                    let visit = g.b.create_block();
                    let skip = g.b.create_block();
                    g.b.ins().brif(exists, visit, &[], skip, &[]);
                    g.b.switch_to_block(visit);
                    let row = Val {
                        kind: Kind::Row(Some(scan.table)),
                        word: id,
                        present: Pres::Yes,
                        slot: None,
                    };
                    g.assign(scan.binder, row)?;
                    g.stmts(body)?;
                    g.b.ins().jump(skip, &[]);
                    g.b.switch_to_block(skip);
                    Ok(())
                })?;
                // The binder does not outlive its loop.
                self.b.def_var(w, saved_w);
                self.b.def_var(p, saved_p);
            }
            Stmt::If(cond, then, otherwise) => {
                let c = self.cond(cond)?;
                let yes = self.b.create_block();
                let no = self.b.create_block();
                let done = self.b.create_block();
                self.b.ins().brif(c, yes, &[], no, &[]);
                self.b.switch_to_block(yes);
                self.stmts(then)?;
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(no);
                self.stmts(otherwise)?;
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
            }
            Stmt::Reject(parts) => {
                let n = i64::try_from(self.rejects.len())
                    .map_err(|_| unsupported("too many `reject`s"))?;
                self.rejects.push(parts.clone());
                let n = self.word(n);
                self.call_addr(self.body_fn(|h| h.reject_begin)?, &[n])?;
                self.save_frame()?;
                self.fault(code::REJECTED);
            }
            Stmt::Go(call) => self.go(call)?,
        }
        Ok(())
    }

    /// `go`: remembers which `go` was reached and the frame there; the
    /// arguments are evaluated after the gate, by the `go` function.
    fn go(&mut self, call: &PageCall) -> R<()> {
        let n = i64::try_from(self.gos.len()).map_err(|_| unsupported("too many `go`s"))?;
        self.gos.push(call.clone());
        let n = self.word(n);
        self.call_addr(self.body_fn(|h| h.go_begin)?, &[n])?;
        self.save_frame()
    }

    /// Hands every frame slot of known type to `marker::frame_save`, for the
    /// snapshot the last `go_begin` or `reject_begin` started.
    fn save_frame(&mut self) -> R<()> {
        for i in 0..self.vars.len() {
            let Some((w, p, _)) = self.vars.get(i).copied().flatten() else {
                continue;
            };
            let slot = self.word(i64::try_from(i).map_err(|_| unsupported("slot out of range"))?);
            let word = self.b.use_var(w);
            let present = self.b.use_var(p);
            let present = self.b.ins().uextend(types::I64, present);
            self.call_addr(self.body_fn(|h| h.frame_save)?, &[slot, word, present])?;
        }
        Ok(())
    }
}

/// A fresh generator for a marker body (which keeps words in 64-bit
/// variables, so it needs a 64-bit host).
fn start<'a, 'f>(
    site: &'a Site<'a>,
    func: &'f mut Function,
    fctx: &'f mut FunctionBuilderContext,
    pool: &'a mut TextPool,
) -> R<Gen<'a, 'f>> {
    if site.config.pointer_type() != types::I64 {
        return Err(unsupported("marker bodies need a 64-bit host"));
    }
    Gen::start(site, func, fctx, pool)
}

fn finish(g: Gen<'_, '_>, site: &Site<'_>) -> Lowered {
    let one = {
        let mut g = g;
        let one = g.word(1);
        g.b.ins().return_(&[one]);
        g.b.seal_all_blocks();
        g
    };
    let Gen {
        b,
        reads,
        texts,
        gos,
        rejects,
        ..
    } = one;
    b.finalize(site.config);
    let locals = reads.keys().next_back().map_or(0, |&s| s + 1);
    Lowered {
        reads: reads.into_iter().collect(),
        texts,
        locals,
        gos,
        rejects,
    }
}

/// Lowers `marker`'s body; `site.slots` are the body's slot types
/// (`frames::marker_body_slots`), `site.mutable` must be set.
/// The addresses of the `extern "C"` helpers a marker body calls (its
/// writes, `go`, `reject` and loop snapshots, in `jit::marker::body`),
/// handed in by the marker compiler through [`Site::body`], so that lowering
/// does not depend on the module that runs markers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyHelpers {
    pub snap_len: usize,
    pub snap_push: usize,
    pub snap_get: usize,
    pub snap_truncate: usize,
    pub body_insert: usize,
    pub body_insert_cell: usize,
    pub body_set_field: usize,
    pub body_set_session: usize,
    pub body_delete: usize,
    pub row_exists: usize,
    pub reject_begin: usize,
    pub go_begin: usize,
    pub frame_save: usize,
    pub go_out: usize,
}

impl Gen<'_, '_> {
    /// The address of one body helper; lowering a body without them is a
    /// bug of the caller.
    fn body_fn(&self, pick: fn(&BodyHelpers) -> usize) -> R<usize> {
        self.site
            .body
            .map(pick)
            .ok_or_else(|| internal("a marker body lowered without its helpers"))
    }
}

pub(crate) fn lower_body(
    site: &Site<'_>,
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    pool: &mut TextPool,
    marker: &ir::MarkerDef,
) -> R<Lowered> {
    if !site.mutable {
        return Err(internal("a body lowered over a read-only state"));
    }
    let mut g = start(site, func, fctx, pool)?;
    for (i, ty) in site.slots.iter().enumerate() {
        let Some(ty) = ty else {
            g.vars.push(None);
            continue;
        };
        let kind = Kind::of_ty(ty);
        let w = g.b.declare_var(types::I64);
        let p = g.b.declare_var(types::I8);
        if i < marker.params.len() {
            // A parameter: from the frame, as `local` reads it.
            g.reads.insert(i, kind.tag());
            let at = offset(i * 2 * WORD)?;
            let word = g.b.ins().load(types::I64, frame_flags(), g.locals, at);
            let at = offset(i * 2 * WORD + WORD)?;
            let present = g.b.ins().load(types::I64, frame_flags(), g.locals, at);
            let present = g.b.ins().icmp_imm_s(IntCC::NotEqual, present, 0);
            g.b.def_var(w, word);
            g.b.def_var(p, present);
        } else {
            let zero = g.word(0);
            let no = g.iconst(types::I8, 0);
            g.b.def_var(w, zero);
            g.b.def_var(p, no);
        }
        g.vars.push(Some((w, p, kind)));
    }
    g.stmts(&marker.body)?;
    Ok(finish(g, site))
}

/// Lowers `exprs` (a `go`'s arguments) to a function that evaluates them in
/// order and hands each to `marker::go_out`; returns the kinds (tags) of
/// the values besides what `lower` returns.
pub(crate) fn lower_values(
    site: &Site<'_>,
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    pool: &mut TextPool,
    exprs: &[Expr],
) -> R<(Lowered, Vec<Tag>)> {
    let mut g = start(site, func, fctx, pool)?;
    let mut tags = Vec::with_capacity(exprs.len());
    for (i, e) in exprs.iter().enumerate() {
        let v = g.expr(e)?;
        tags.push(v.kind.tag());
        let n = g.word(i64::try_from(i).map_err(|_| unsupported("too many arguments"))?);
        let p = g.pres64(&v);
        g.call_addr(g.body_fn(|h| h.go_out)?, &[n, v.word, p])?;
    }
    Ok((finish(g, site), tags))
}

/// Lowers `expr` as a value (a page's link and marker arguments, select
/// options, loop keys and limits): the function returns a fault code
/// (negative), 0 for `none`, or 1 with the value's word stored in
/// `JitCtx::out`; also returns the value's kind (tag).
pub(crate) fn lower_value(
    site: &Site<'_>,
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    pool: &mut TextPool,
    expr: &Expr,
) -> R<(Lowered, Tag)> {
    let mut g = start(site, func, fctx, pool)?;
    let v = g.expr(expr)?;
    let tag = v.kind.tag();
    let out = offset(std::mem::offset_of!(JitCtx, out))?;
    let flags = MemFlagsData::new().with_notrap();
    g.b.ins().store(flags, v.word, g.ctx, out);
    let p = g.pres64(&v);
    g.b.ins().return_(&[p]);
    g.b.seal_all_blocks();
    let Gen {
        b, reads, texts, ..
    } = g;
    b.finalize(site.config);
    let locals = reads.keys().next_back().map_or(0, |&s| s + 1);
    Ok((
        Lowered {
            reads: reads.into_iter().collect(),
            texts,
            locals,
            gos: Vec::new(),
            rejects: Vec::new(),
        },
        tag,
    ))
}
