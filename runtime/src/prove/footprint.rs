//! What each part of a site reads and writes, and the cone of influence of a
//! task: the markers and form fields that can matter to its outcome.
//!
//! The prover may skip actions outside the cone without changing a verdict or
//! a shortest witness's length. The argument: let R be the set of state
//! locations closed under "a marker that writes into R reads only R", seeded
//! with everything the goal reads and everything any page reads to decide
//! which actions exist and what they do (conditions, loops, arguments, option
//! lists; for retrieval tasks also every text shown, since answers are picked
//! from it). Every guard and effect on R then depends on R alone, so an action
//! that writes nothing in R can be deleted from any witness, which stays a
//! witness and gets shorter. Writes and reads here are read off the IR (the
//! marker's actual statements, not its declared permissions), inserts and
//! deletes also read the table (capacity, next id), and any write reads every
//! invariant, because the gate evaluates them all.

use crate::ir::{self, Element, ElementKind, Expr, FieldId, SessionId, Stmt, TableId, TextPart};
use std::collections::BTreeSet;

/// One place in the database or session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Loc {
    /// Which rows a table has (existence, count, ids, capacity).
    Rows(TableId),
    Field(TableId, FieldId),
    Session(SessionId),
}

pub type Locs = BTreeSet<Loc>;

/// Whether writing `writes` can change anything that reading `reads` sees.
pub fn touches(writes: &Locs, reads: &Locs) -> bool {
    writes.iter().any(|w| match w {
        Loc::Rows(t) => reads.iter().any(|r| match r {
            Loc::Rows(u) | Loc::Field(u, _) => u == t,
            Loc::Session(_) => false,
        }),
        other => reads.contains(other),
    })
}

/// The locations `expr` reads.
pub fn expr_reads(expr: &Expr, out: &mut Locs) {
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
        _ => {}
    });
}

fn text_reads(parts: &[TextPart], out: &mut Locs) {
    ir::for_each_interpolation(parts, &mut |e| expr_reads(e, out));
}

fn scan_reads(scan: &ir::RowScan, out: &mut Locs) {
    out.insert(Loc::Rows(scan.table));
    scan.for_each_child(&mut |e| expr_reads(e, out));
}

/// What a statement block reads and writes.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    pub reads: Locs,
    pub writes: Locs,
}

impl Effects {
    pub fn of_block(program: &ir::Program, stmts: &[Stmt]) -> Effects {
        let mut fx = Effects::default();
        fx.add_block(program, stmts);
        fx
    }

    fn add_block(&mut self, program: &ir::Program, stmts: &[Stmt]) {
        for s in stmts {
            self.add(program, s);
        }
    }

    fn add(&mut self, program: &ir::Program, stmt: &Stmt) {
        let reads = &mut self.reads;
        match stmt {
            Stmt::Let(_, e) => expr_reads(e, reads),
            Stmt::Insert { table, fields, .. } => {
                fields.iter().for_each(|(_, e)| expr_reads(e, reads));
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
                expr_reads(row, reads);
                expr_reads(value, reads);
                reads.insert(Loc::Rows(*table));
                self.writes.insert(Loc::Field(*table, *field));
            }
            Stmt::SetSession(s, e) => {
                expr_reads(e, reads);
                self.writes.insert(Loc::Session(*s));
            }
            Stmt::Delete { table, row } => {
                expr_reads(row, reads);
                reads.insert(Loc::Rows(*table));
                self.writes.insert(Loc::Rows(*table));
            }
            Stmt::DeleteAll(scan) => {
                scan_reads(scan, reads);
                self.writes.insert(Loc::Rows(scan.table));
            }
            Stmt::For(scan, body) => {
                scan_reads(scan, reads);
                self.add_block(program, body);
            }
            Stmt::If(c, then, otherwise) => {
                expr_reads(c, reads);
                self.add_block(program, then);
                self.add_block(program, otherwise);
            }
            Stmt::Reject(parts) => text_reads(parts, reads),
            Stmt::Go(call) => call.args.iter().for_each(|a| expr_reads(a, reads)),
        }
    }
}

/// A marker's effects: its `requires` and body, plus every invariant's reads
/// when it writes anything (the gate checks them all).
pub fn marker_effects(program: &ir::Program, marker: &ir::MarkerDef) -> Effects {
    let mut fx = Effects::of_block(program, &marker.body);
    for r in &marker.requires {
        expr_reads(&r.cond, &mut fx.reads);
        if let Some(m) = &r.message {
            text_reads(m, &mut fx.reads);
        }
    }
    if !fx.writes.is_empty() {
        for inv in &program.invariants {
            expr_reads(&inv.cond, &mut fx.reads);
        }
    }
    fx
}

/// What pages read to decide which actions exist and what they do; with
/// `texts`, also everything they show.
pub fn page_reads(program: &ir::Program, texts: bool) -> Locs {
    let mut out = Locs::new();
    for page in &program.pages {
        elements_reads(&page.body, texts, &mut out);
    }
    out
}

fn elements_reads(body: &[Element], texts: bool, out: &mut Locs) {
    for e in body {
        let shown: Option<&[TextPart]> = match &e.kind {
            ElementKind::Heading(p) | ElementKind::Text(p) | ElementKind::Image(p) => Some(p),
            ElementKind::Link {
                label,
                target,
                disabled,
            } => {
                target.args.iter().for_each(|a| expr_reads(a, out));
                disabled.iter().for_each(|d| expr_reads(d, out));
                Some(label)
            }
            ElementKind::Button {
                label,
                action,
                disabled,
            } => {
                let args = match action {
                    ir::Action::Go(call) => &call.args,
                    ir::Action::Marker { args, .. } => args,
                };
                args.iter().for_each(|a| expr_reads(a, out));
                disabled.iter().for_each(|d| expr_reads(d, out));
                Some(label)
            }
            ElementKind::Input { label, .. } | ElementKind::Checkbox { label, .. } => Some(label),
            ElementKind::SelectList { label, options, .. } => {
                options.iter().for_each(|o| expr_reads(o, out));
                Some(label)
            }
            ElementKind::SelectFrom {
                label, scan, show, ..
            } => {
                scan_reads(scan, out);
                // The options' texts are how a `select` names its choice.
                text_reads(show, out);
                Some(label)
            }
            ElementKind::Section { label, body } => {
                elements_reads(body, texts, out);
                Some(label)
            }
            ElementKind::For(f) => {
                match &f.source {
                    ir::LoopSource::Rows(scan) => scan_reads(scan, out),
                    ir::LoopSource::List { items, filter, .. } => {
                        items.iter().for_each(|i| expr_reads(i, out));
                        filter.iter().for_each(|c| expr_reads(c, out));
                    }
                }
                f.order.iter().for_each(|(k, _)| expr_reads(k, out));
                f.limit.iter().for_each(|l| expr_reads(l, out));
                elements_reads(&f.body, texts, out);
                None
            }
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                expr_reads(cond, out);
                elements_reads(then, texts, out);
                elements_reads(otherwise, texts, out);
                None
            }
        };
        if let (true, Some(parts)) = (texts, shown) {
            text_reads(parts, out);
        }
    }
}

/// A task's cone of influence: which markers and form elements can matter.
#[derive(Clone, Debug, Default)]
pub struct Cone {
    /// Markers whose writes can never reach the goal (or the answers shown).
    pub idle_markers: BTreeSet<ir::MarkerId>,
    /// `(page, element id)` of form elements whose variable nothing reads.
    pub idle_fields: BTreeSet<(ir::PageId, u32)>,
}

impl Cone {
    pub fn of_task(program: &ir::Program, task: &ir::TaskDef) -> Cone {
        let retrieval = task.answer.is_some();
        let mut relevant = page_reads(program, retrieval);
        if let Some(goal) = &task.goal {
            expr_reads(goal, &mut relevant);
        }
        let effects: Vec<Effects> = program
            .markers
            .iter()
            .map(|m| marker_effects(program, m))
            .collect();
        let mut live = vec![false; effects.len()];
        loop {
            let mut grew = false;
            for (i, fx) in effects.iter().enumerate() {
                if !live[i] && touches(&fx.writes, &relevant) {
                    live[i] = true;
                    relevant.extend(fx.reads.iter().copied());
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let idle_markers = live
            .iter()
            .enumerate()
            .filter(|(_, l)| !**l)
            .filter_map(|(i, _)| u32::try_from(i).ok())
            .collect();
        Cone {
            idle_markers,
            idle_fields: idle_fields(program),
        }
    }
}

/// Form elements whose variable no expression of their page reads.
fn idle_fields(program: &ir::Program) -> BTreeSet<(ir::PageId, u32)> {
    let mut out = BTreeSet::new();
    for (p, page) in program.pages.iter().enumerate() {
        let Ok(p) = u32::try_from(p) else { continue };
        let mut read = BTreeSet::new();
        let mut fields = Vec::new();
        page_locals(&page.body, &mut read, &mut fields);
        for (element, slot) in fields {
            if !read.contains(&slot) {
                out.insert((p, element));
            }
        }
    }
    out
}

/// Every local slot read by an expression of `body`, and every form element
/// with its slot.
fn page_locals(body: &[Element], read: &mut BTreeSet<ir::Slot>, fields: &mut Vec<(u32, ir::Slot)>) {
    let note = |e: &Expr, read: &mut BTreeSet<ir::Slot>| {
        e.walk(&mut |x| {
            if let Expr::Local(s) = x {
                read.insert(*s);
            }
        })
    };
    for e in body {
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut texts: Vec<&[TextPart]> = Vec::new();
        match &e.kind {
            ElementKind::Heading(p) | ElementKind::Text(p) | ElementKind::Image(p) => texts.push(p),
            ElementKind::Link {
                label,
                target,
                disabled,
            } => {
                texts.push(label);
                exprs.extend(target.args.iter());
                exprs.extend(disabled.iter());
            }
            ElementKind::Button {
                label,
                action,
                disabled,
            } => {
                texts.push(label);
                match action {
                    ir::Action::Go(call) => exprs.extend(call.args.iter()),
                    ir::Action::Marker { args, .. } => exprs.extend(args.iter()),
                }
                exprs.extend(disabled.iter());
            }
            ElementKind::Input { slot, label, .. } | ElementKind::Checkbox { slot, label } => {
                texts.push(label);
                fields.push((e.id, *slot));
            }
            ElementKind::SelectList {
                slot,
                label,
                options,
                ..
            } => {
                texts.push(label);
                exprs.extend(options.iter());
                fields.push((e.id, *slot));
            }
            ElementKind::SelectFrom {
                slot,
                label,
                scan,
                show,
                ..
            } => {
                texts.push(label);
                texts.push(show);
                exprs.extend(scan.filter.as_deref());
                fields.push((e.id, *slot));
            }
            ElementKind::Section { label, body } => {
                texts.push(label);
                page_locals(body, read, fields);
            }
            ElementKind::For(f) => {
                match &f.source {
                    ir::LoopSource::Rows(scan) => exprs.extend(scan.filter.as_deref()),
                    ir::LoopSource::List { items, filter, .. } => {
                        exprs.extend(items.iter());
                        exprs.extend(filter.as_deref());
                    }
                }
                exprs.extend(f.order.iter().map(|(k, _)| k));
                exprs.extend(f.limit.iter());
                page_locals(&f.body, read, fields);
            }
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                exprs.push(cond);
                page_locals(then, read, fields);
                page_locals(otherwise, read, fields);
            }
        }
        for x in exprs {
            note(x, read);
        }
        for t in texts {
            ir::for_each_interpolation(t, &mut |x| note(x, read));
        }
    }
}
