//! Abstract execution of marker bodies for the static bound (`super`): the
//! abstract world after one more step, from every marker with every
//! argument it could be clicked with.

use super::eval::Cx;
use super::value::{Abs, FRESH};
use super::world::{AbsWorld, Cell};
use crate::ir::reads::{close_cone, expr_reads, marker_own_effects, Effects, Loc, Locs};
use crate::ir::{self, Stmt, Ty, Value};

/// Row-parameter bindings tried per marker before its row parameters are
/// left unknown (one binding that stands for all).
const MAX_BINDINGS: usize = 4096;

/// Rounds a loop body is run to a fixed point before the locations it keeps
/// changing are given up (`Top`).
const LOOP_ROUNDS: usize = 4;

/// Where each marker that can matter to the goal can be clicked from: the
/// argument lists of every button that triggers it, by marker. A marker
/// without call sites is never run.
pub(super) struct CallSites<'p> {
    sites: Vec<Vec<&'p [ir::Expr]>>,
}

impl<'p> CallSites<'p> {
    /// The call sites of the markers in the cone of `goal` (the locations
    /// the goal reads); every other marker gets none.
    ///
    /// *Why leaving them out changes no verdict.* Let R be the smallest set
    /// of locations that holds `goal` and everything a marker whose writes
    /// touch R reads: its `requires`, its body, the arguments its buttons
    /// pass, and the rows of the table of each row parameter (a binding is
    /// tried per row). Abstract execution reads only through those
    /// expressions and row lists (`eval`, `bindings`), so what a marker of
    /// the cone does from a world depends on the world's cells in R alone.
    /// Every other marker writes only outside R; that includes the rows
    /// that an insert adds, since an insert writes its table's rows and
    /// every field. By induction on k, each Wₖ computed without those
    /// markers agrees with the full one on every cell in R, and the goal's
    /// conjuncts, which read only R, evaluate alike. A world that stops
    /// changing here is one whose cells in R stop changing in the full
    /// analysis too, so its verdict holds for every horizon.
    pub(super) fn reaching(program: &'p ir::Program, goal: &Locs) -> Self {
        let CallSites { mut sites } = CallSites::every(program);
        let effects: Vec<Effects> = program
            .markers
            .iter()
            .zip(&sites)
            .map(|(marker, calls)| abstract_reads(program, marker, calls))
            .collect();
        let mut live = vec![false; effects.len()];
        close_cone(&effects, &mut goal.clone(), &mut live);
        for (calls, live) in sites.iter_mut().zip(live) {
            if !live {
                calls.clear();
            }
        }
        CallSites { sites }
    }

    /// The call sites of every marker.
    pub(super) fn every(program: &'p ir::Program) -> Self {
        let mut sites = vec![Vec::new(); program.markers.len()];
        for page in &program.pages {
            collect_sites(&page.body, &mut sites);
        }
        CallSites { sites }
    }
}

/// What running `marker` abstractly can read and write: its own effects,
/// the arguments its buttons pass, and the rows its row parameters range
/// over. (The bound ignores invariants: they can only refuse a commit.)
fn abstract_reads(program: &ir::Program, marker: &ir::MarkerDef, calls: &[&[ir::Expr]]) -> Effects {
    let mut fx = marker_own_effects(program, marker);
    for arg in calls.iter().flat_map(|args| args.iter()) {
        expr_reads(program, arg, &mut fx.reads);
    }
    for param in &marker.params {
        if let Ty::Row(t) = param.ty.without_optional() {
            fx.reads.insert(Loc::Rows(*t));
        }
    }
    fx
}

/// Every element is listed, without a catch-all: an element kind that can
/// hold a button must be searched, or a marker's arguments would be missed.
fn collect_sites<'p>(body: &'p [ir::Element], sites: &mut Vec<Vec<&'p [ir::Expr]>>) {
    for element in body {
        match &element.kind {
            ir::ElementKind::Button {
                action: ir::Action::Marker { marker, args },
                ..
            } => {
                if let Some(s) = sites.get_mut(*marker as usize) {
                    s.push(args.as_slice());
                }
            }
            ir::ElementKind::Section { body, .. } => collect_sites(body, sites),
            ir::ElementKind::For(f) => collect_sites(&f.body, sites),
            ir::ElementKind::If {
                then, otherwise, ..
            } => {
                collect_sites(then, sites);
                collect_sites(otherwise, sites);
            }
            ir::ElementKind::Button {
                action: ir::Action::Go(_),
                ..
            }
            | ir::ElementKind::Heading(_)
            | ir::ElementKind::Text(_)
            | ir::ElementKind::Image(_)
            | ir::ElementKind::Link { .. }
            | ir::ElementKind::Input { .. }
            | ir::ElementKind::SelectList { .. }
            | ir::ElementKind::SelectFrom { .. }
            | ir::ElementKind::Checkbox { .. } => {}
        }
    }
}

/// Whether `e` reads no local (no page parameter, loop binder, form value or
/// quantifier binder) and no navigation: its value depends on the database
/// and session alone, so the abstract world bounds it.
fn closed(e: &ir::Expr) -> bool {
    let mut open = false;
    e.walk(&mut |x| {
        open |= matches!(
            x,
            ir::Expr::Local(_) | ir::Expr::Visited(_) | ir::Expr::PageIs(_)
        );
    });
    !open
}

/// The world after at most one more step: `world` joined with what every
/// marker can commit from it.
pub(super) fn step(program: &ir::Program, sites: &CallSites<'_>, world: &AbsWorld) -> AbsWorld {
    let mut next = world.clone();
    for (m, marker) in program.markers.iter().enumerate() {
        let calls = sites.sites.get(m).map_or(&[][..], Vec::as_slice);
        for binding in bindings(program, world, marker, calls) {
            let mut cx = Cx::new(program, world);
            let mut frame = binding;
            frame.resize(marker.frame as usize, Abs::Top);
            let passes = marker
                .requires
                .iter()
                .all(|r| cx.refine(&mut frame, &r.cond, true));
            if passes && block(&mut cx, &mut frame, &marker.body) {
                for (cell, v) in &cx.overlay {
                    next.absorb(program, *cell, v);
                }
            }
        }
    }
    next
}

/// The argument lists a marker is tried with, from the buttons that trigger
/// it (`calls`; none, and it is never tried). An argument every button
/// computes from the database and session alone is bounded by its value in
/// `world`; any other is unknown. Each row parameter is then bound to each
/// row it may be, one at a time, so that a `requires` on that row narrows it
/// alone.
fn bindings(
    program: &ir::Program,
    world: &AbsWorld,
    marker: &ir::MarkerDef,
    calls: &[&[ir::Expr]],
) -> Vec<Vec<Abs>> {
    if calls.is_empty() {
        return Vec::new();
    }
    let cx = Cx::new(program, world);
    let choices: Vec<Vec<Abs>> = marker
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let args: Option<Vec<&ir::Expr>> = calls
                .iter()
                .map(|args| args.get(i).filter(|e| closed(e)))
                .collect();
            let bound = args.map(|args| {
                args.into_iter().fold(Abs::bottom(), |acc, e| {
                    acc.join(&cx.eval(&mut Vec::new(), e))
                })
            });
            match (&p.ty, bound) {
                (Ty::Row(t), bound) => cx
                    .rows_of(*t, &bound.unwrap_or(Abs::Top))
                    .into_iter()
                    .map(Abs::row)
                    .collect(),
                (_, bound) => vec![bound.unwrap_or(Abs::Top)],
            }
        })
        .collect();
    let count = choices
        .iter()
        .try_fold(1usize, |n, c| n.checked_mul(c.len().max(1)));
    if count.is_none_or(|n| n > MAX_BINDINGS) {
        return vec![vec![Abs::Top; marker.params.len()]];
    }
    let mut out: Vec<Vec<Abs>> = vec![Vec::new()];
    for c in choices {
        let c = if c.is_empty() { vec![Abs::bottom()] } else { c };
        out = out
            .into_iter()
            .flat_map(|prefix| {
                c.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    out
}

/// Runs `stmts`; `false` when every way through them is refused.
pub(super) fn block(cx: &mut Cx<'_>, frame: &mut Vec<Abs>, stmts: &[Stmt]) -> bool {
    stmts.iter().all(|s| statement(cx, frame, s))
}

fn statement(cx: &mut Cx<'_>, frame: &mut Vec<Abs>, stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Let(slot, e) => {
            let v = cx.eval(frame, e);
            set_slot(frame, *slot, v);
            true
        }
        Stmt::Insert {
            slot,
            table,
            fields,
        } => {
            let width = cx
                .program
                .tables
                .get(*table as usize)
                .map_or(0, |d| d.fields.len());
            let mut values = vec![Abs::of(&Value::None); width];
            for (f, e) in fields {
                if let Some(v) = values.get_mut(*f as usize) {
                    *v = cx.eval(frame, e);
                }
            }
            for (f, v) in values.iter().enumerate() {
                let f = u32::try_from(f).unwrap_or(u32::MAX);
                cx.write(Cell::Field(*table, FRESH, f), v);
            }
            if let Some(slot) = slot {
                set_slot(frame, *slot, Abs::row(FRESH));
            }
            true
        }
        Stmt::SetField {
            row,
            table,
            field,
            value,
        } => {
            let v = cx.eval(frame, value);
            let rows = cx.eval(frame, row);
            for id in cx.rows_of(*table, &rows) {
                cx.write(Cell::Field(*table, id, *field), &v);
            }
            true
        }
        Stmt::SetSession(s, e) => {
            let v = cx.eval(frame, e);
            cx.write(Cell::Session(*s), &v);
            true
        }
        // Deleting changes no value; rows only disappear.
        Stmt::Delete { .. } | Stmt::DeleteAll(_) | Stmt::Go(_) => true,
        Stmt::Reject(_) => false,
        Stmt::If(cond, then, otherwise) => branch(cx, frame, cond, then, otherwise),
        Stmt::For(scan, body) => {
            repeat(cx, frame, scan.binder, body);
            true
        }
    }
}

fn set_slot(frame: &mut Vec<Abs>, slot: ir::Slot, v: Abs) {
    let slot = slot as usize;
    if frame.len() <= slot {
        frame.resize(slot + 1, Abs::Top);
    }
    if let Some(f) = frame.get_mut(slot) {
        *f = v;
    }
}

/// `if`: each branch that can be taken, run on the states that take it,
/// then joined.
fn branch(
    cx: &mut Cx<'_>,
    frame: &mut Vec<Abs>,
    cond: &ir::Expr,
    then: &[Stmt],
    otherwise: &[Stmt],
) -> bool {
    let mut taken: Vec<(Cx<'_>, Vec<Abs>)> = Vec::new();
    for (want, body) in [(true, then), (false, otherwise)] {
        let mut c = cx.clone();
        let mut f = frame.clone();
        if c.refine(&mut f, cond, want) && block(&mut c, &mut f, body) {
            taken.push((c, f));
        }
    }
    let mut taken = taken.into_iter();
    let Some((mut joined, mut joined_frame)) = taken.next() else {
        return false;
    };
    for (c, f) in taken {
        joined.join(&c);
        for (a, b) in joined_frame.iter_mut().zip(&f) {
            *a = a.join(b);
        }
    }
    cx.overlay = joined.overlay;
    *frame = joined_frame;
    true
}

/// A loop body run any number of times (each row, in any state the earlier
/// rounds left): rounds until nothing changes, and locations still changing
/// after `LOOP_ROUNDS` rounds become `Top`, so it ends. A round that is
/// refused every way leaves nothing (the loop may also run no round).
fn repeat(cx: &mut Cx<'_>, frame: &[Abs], binder: ir::Slot, body: &[Stmt]) {
    let mut rounds = 0;
    loop {
        let before = cx.overlay.clone();
        let mut c = cx.clone();
        let mut f = frame.to_vec();
        set_slot(&mut f, binder, Abs::Top);
        if !block(&mut c, &mut f, body) {
            return;
        }
        cx.join(&c);
        if cx.overlay == before {
            return;
        }
        rounds += 1;
        if rounds >= LOOP_ROUNDS {
            let changed: Vec<Cell> = cx
                .overlay
                .iter()
                .filter(|(cell, v)| before.get(cell) != Some(v))
                .map(|(cell, _)| *cell)
                .collect();
            for cell in changed {
                cx.overlay.insert(cell, Abs::Top);
            }
        }
    }
}
