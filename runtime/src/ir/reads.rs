//! What each piece of IR reads and writes in the database and session.
//!
//! One analysis, three users: the gate and the JIT use it to decide which
//! invariants a write can break, and the prover's cone of influence
//! (`prove::footprint`) uses it to decide which actions cannot matter to a
//! task. It lives with the IR so that none of them imports another.
//!
//! The analysis is conservative: a location is listed whenever some run could
//! touch it. Two reads are easy to miss and are counted on purpose:
//! - rendering a row in text (`"{p}"`, a `select … show "{x}"` option, a
//!   row-typed select list) reads its table's rows (a missing row shows as
//!   `#<id>`) and its `name` field, and through a `name` that is itself a
//!   reference, that table's too (LANGUAGE.md §2.2, text rendering);
//! - an `insert` or `delete` reads the table's rows (capacity, the next id).
//!
//! Reading `id`, a local, a form variable or the navigation (`visited`,
//! `page is`) touches no location: those are not database or session state.

use super::rendered::Evaluated;
use super::{
    Expr, FieldId, MarkerDef, PageCall, PageDef, Program, RowScan, SessionId, Stmt, TableId,
    TextPart, Ty,
};
use std::collections::BTreeSet;

/// One place in the database or session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Loc {
    /// Which rows a table has (existence, count, ids, capacity, next id).
    Rows(TableId),
    Field(TableId, FieldId),
    Session(SessionId),
}

pub type Locs = BTreeSet<Loc>;

/// Whether writing `writes` can change anything that reading `reads` sees.
pub fn touches(writes: &Locs, reads: &Locs) -> bool {
    writes.iter().any(|w| touches_one(*w, reads))
}

/// Whether writing `write` can change anything that reading `reads` sees:
/// writing a table's rows touches every read of that table, its rows or any
/// field; a field or a session variable touches only itself.
pub fn touches_one(write: Loc, reads: &Locs) -> bool {
    match write {
        Loc::Rows(t) => {
            reads.contains(&Loc::Rows(t))
                || reads
                    .range(Loc::Field(t, FieldId::MIN)..=Loc::Field(t, FieldId::MAX))
                    .next()
                    .is_some()
        }
        other => reads.contains(&other),
    }
}

/// The locations `expr` reads, text interpolations and their renderings
/// included.
pub fn expr_reads(program: &Program, expr: &Expr, out: &mut Locs) {
    expr.walk(&mut |e| match e {
        Expr::Field { table, field, .. } => {
            out.insert(Loc::Field(*table, *field));
        }
        Expr::Lookup { table, .. } => {
            out.insert(Loc::Rows(*table));
        }
        Expr::Exists(scan, _) | Expr::All(scan, _) | Expr::Count(scan) | Expr::Find(scan) => {
            out.insert(Loc::Rows(scan.table));
        }
        Expr::Aggregate { scan, .. } => {
            out.insert(Loc::Rows(scan.table));
        }
        Expr::Session(s) => {
            out.insert(Loc::Session(*s));
        }
        // `walk` visits the interpolated expressions themselves; what their
        // rendering adds is here.
        Expr::Text(parts) => parts.iter().for_each(|p| {
            if let TextPart::Interp(_, ty) = p {
                render_reads(program, ty, out);
            }
        }),
        _ => {}
    });
}

/// What rendering a value of type `ty` as text reads: for a row, whether it
/// exists and its `name`, followed through references.
pub fn render_reads(program: &Program, ty: &Ty, out: &mut Locs) {
    let mut ty = ty;
    // A `name` chain can loop back (A's name is a B, B's name an A).
    let mut seen = Vec::new();
    while let Ty::Row(t) = ty.without_optional() {
        if seen.contains(t) {
            return;
        }
        seen.push(*t);
        out.insert(Loc::Rows(*t));
        let Some(def) = program
            .tables
            .get(usize::try_from(*t).unwrap_or(usize::MAX))
        else {
            return;
        };
        let named = def
            .fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == "name");
        let Some((Ok(at), field)) = named.map(|(i, f)| (FieldId::try_from(i), f)) else {
            return;
        };
        out.insert(Loc::Field(*t, at));
        ty = &field.ty;
    }
}

/// What showing `parts` reads: each interpolation and its rendering.
pub fn text_reads(program: &Program, parts: &[TextPart], out: &mut Locs) {
    for p in parts {
        if let TextPart::Interp(e, ty) = p {
            expr_reads(program, e, out);
            render_reads(program, ty, out);
        }
    }
}

/// What choosing rows with `scan` reads: the table's rows and the filter.
pub fn scan_reads(program: &Program, scan: &RowScan, out: &mut Locs) {
    out.insert(Loc::Rows(scan.table));
    scan.for_each_child(&mut |e| expr_reads(program, e, out));
}

/// What a statement block reads and writes.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    pub reads: Locs,
    pub writes: Locs,
}

impl Effects {
    pub fn of_block(program: &Program, stmts: &[Stmt]) -> Effects {
        let mut fx = Effects::default();
        fx.add_block(program, stmts);
        fx
    }

    fn add_block(&mut self, program: &Program, stmts: &[Stmt]) {
        for s in stmts {
            self.add(program, s);
        }
    }

    fn add(&mut self, program: &Program, stmt: &Stmt) {
        let reads = &mut self.reads;
        match stmt {
            Stmt::Let(_, e) => expr_reads(program, e, reads),
            Stmt::Insert { table, fields, .. } => {
                fields
                    .iter()
                    .for_each(|(_, e)| expr_reads(program, e, reads));
                reads.insert(Loc::Rows(*table));
                self.writes.insert(Loc::Rows(*table));
                let n = program
                    .tables
                    .get(usize::try_from(*table).unwrap_or(usize::MAX))
                    .map_or(0, |t| t.fields.len());
                for f in 0..n {
                    if let Ok(f) = u32::try_from(f) {
                        self.writes.insert(Loc::Field(*table, f));
                    }
                }
            }
            Stmt::SetField {
                row,
                table,
                field,
                value,
            } => {
                expr_reads(program, row, reads);
                expr_reads(program, value, reads);
                reads.insert(Loc::Rows(*table));
                self.writes.insert(Loc::Field(*table, *field));
            }
            Stmt::SetSession(s, e) => {
                expr_reads(program, e, reads);
                self.writes.insert(Loc::Session(*s));
            }
            Stmt::Delete { table, row } => {
                expr_reads(program, row, reads);
                reads.insert(Loc::Rows(*table));
                self.writes.insert(Loc::Rows(*table));
            }
            Stmt::DeleteAll(scan) => {
                scan_reads(program, scan, reads);
                self.writes.insert(Loc::Rows(scan.table));
            }
            Stmt::For(scan, body) => {
                scan_reads(program, scan, reads);
                self.add_block(program, body);
            }
            Stmt::If(c, then, otherwise) => {
                expr_reads(program, c, reads);
                self.add_block(program, then);
                self.add_block(program, otherwise);
            }
            Stmt::Reject(parts) => text_reads(program, parts, reads),
            Stmt::Go(call) => call.args.iter().for_each(|a| expr_reads(program, a, reads)),
        }
    }
}

/// A marker's effects: its `requires` and body, plus every invariant's reads
/// when it writes anything (the gate checks them all).
pub fn marker_effects(program: &Program, marker: &MarkerDef) -> Effects {
    let mut fx = marker_own_effects(program, marker);
    if !fx.writes.is_empty() {
        for inv in &program.invariants {
            expr_reads(program, &inv.cond, &mut fx.reads);
        }
    }
    fx
}

/// Grows `relevant` to a cone of influence: each effect whose writes touch
/// it becomes live (`live`, by position) and adds its reads, until nothing
/// grows. An effect already live stays so; its reads must already be in
/// `relevant`.
pub fn close_cone(effects: &[Effects], relevant: &mut Locs, live: &mut [bool]) {
    loop {
        let mut grew = false;
        for (fx, live) in effects.iter().zip(live.iter_mut()) {
            if !*live && touches(&fx.writes, relevant) {
                *live = true;
                relevant.extend(fx.reads.iter().copied());
                grew = true;
            }
        }
        if !grew {
            return;
        }
    }
}

/// A marker's own effects: its `requires` (messages included) and body,
/// without the invariants the gate checks after it.
pub fn marker_own_effects(program: &Program, marker: &MarkerDef) -> Effects {
    let mut fx = Effects::of_block(program, &marker.body);
    for r in &marker.requires {
        expr_reads(program, &r.cond, &mut fx.reads);
        if let Some(m) = &r.message {
            text_reads(program, m, &mut fx.reads);
        }
    }
    fx
}

/// Every `go` in a statement block, in source order (`if` branches and loop
/// bodies included: different runs may go to different pages). The navigation
/// graph's marker edges (`graph::ir_graph`) are these.
pub fn block_gos(stmts: &[Stmt]) -> Vec<&PageCall> {
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Go(call) => out.push(call),
            Stmt::For(_, body) => out.extend(block_gos(body)),
            Stmt::If(_, then, otherwise) => {
                out.extend(block_gos(then));
                out.extend(block_gos(otherwise));
            }
            Stmt::Let(..)
            | Stmt::Insert { .. }
            | Stmt::SetField { .. }
            | Stmt::SetSession(..)
            | Stmt::Delete { .. }
            | Stmt::DeleteAll(_)
            | Stmt::Reject(_) => {}
        }
    }
    out
}

/// Whether a statement block can navigate (a `go` anywhere in it).
pub fn block_navigates(stmts: &[Stmt]) -> bool {
    !block_gos(stmts).is_empty()
}

/// What a page reads to decide which actions it offers and what they do:
/// conditions, loops, `disabled when`, link, button and marker arguments,
/// select options and the texts that name them; and what its guards read
/// (their conditions and redirect arguments), which decide where navigating
/// to it lands. With `texts`, also every text it shows (its title and route
/// too), since retrieval answers are picked from those.
pub fn page_reads(program: &Program, page: &PageDef, texts: bool, out: &mut Locs) {
    super::rendered::page_evaluates(page, texts, &mut |e| match e {
        Evaluated::Expr(x) | Evaluated::Argument(x) => expr_reads(program, x, out),
        Evaluated::Text(parts) => text_reads(program, parts, out),
        Evaluated::Scan(scan) => scan_reads(program, scan, out),
        Evaluated::Rendered(ty) => render_reads(program, ty, out),
        // Binding reads nothing of the database or session.
        Evaluated::FormVariable(_) | Evaluated::LoopBinder(_) => {}
    });
}
