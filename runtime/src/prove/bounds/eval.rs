//! Abstract evaluation for the static bound (`super`): the value an
//! expression can have in any concrete state the abstract world stands for,
//! and refinement, which narrows locations and locals to the values under
//! which a condition can take a given truth value (a `requires` that passed,
//! the branch of an `if` taken).
//!
//! An evaluation that fails (a `none` row, a division by zero) yields no
//! value, so failure is left out: what is computed is an over-approximation
//! of the *successful* results, which is all the bound needs (a goal holds
//! only when its evaluation succeeds with `true`; a marker commits only when
//! its `requires` evaluate to `true`). Expressions the analysis does not
//! model evaluate to `Top`.

use super::value::{mirrored, negated, Abs, Truth, FRESH};
use super::world::{AbsWorld, Cell};
use crate::ir::{self, BinaryOp, Expr, RowScan, TextPart, UnaryOp, Value};
use std::collections::BTreeMap;

/// One execution's view: the world before the step, and what this execution
/// has written or assumed so far.
#[derive(Clone)]
pub(super) struct Cx<'a> {
    pub(super) program: &'a ir::Program,
    pub(super) base: &'a AbsWorld,
    pub(super) overlay: BTreeMap<Cell, Abs>,
}

/// Where a refinement can narrow what it learnt.
enum Place {
    Slot(usize),
    Cell(Cell),
}

impl<'a> Cx<'a> {
    pub(super) fn new(program: &'a ir::Program, base: &'a AbsWorld) -> Self {
        Cx {
            program,
            base,
            overlay: BTreeMap::new(),
        }
    }

    pub(super) fn read(&self, cell: &Cell) -> Abs {
        match self.overlay.get(cell) {
            Some(v) => v.clone(),
            None => self.base.read(cell),
        }
    }

    /// A write: the location may now hold `v` as well as what it held.
    pub(super) fn write(&mut self, cell: Cell, v: &Abs) {
        let joined = self.read(&cell).join(v);
        self.overlay.insert(cell, joined);
    }

    /// Both executions' writes and assumptions, joined (after an `if`).
    pub(super) fn join(&mut self, other: &Cx<'_>) {
        let cells: Vec<Cell> = self
            .overlay
            .keys()
            .chain(other.overlay.keys())
            .copied()
            .collect();
        for cell in cells {
            let v = self.read(&cell).join(&other.read(&cell));
            self.overlay.insert(cell, v);
        }
    }

    /// The row ids an abstract row value of `table` may be (`FRESH` for rows
    /// inserted after the start).
    pub(super) fn rows_of(&self, table: ir::TableId, row: &Abs) -> Vec<i64> {
        match row {
            Abs::Set(s) => s
                .iter()
                .filter_map(|v| match v {
                    Value::Row(id) => Some(self.base.row_key(table, *id)),
                    _ => None,
                })
                .collect(),
            Abs::Top | Abs::Range { .. } => self.all_rows(table),
        }
    }

    /// Every row id `table` may hold: the start's rows, and `FRESH` once a
    /// row may have been inserted (before this step, or by this execution).
    pub(super) fn all_rows(&self, table: ir::TableId) -> Vec<i64> {
        let mut rows = self.base.start_rows(table);
        if self.has_fresh(table) {
            rows.push(FRESH);
        }
        rows
    }

    fn has_fresh(&self, table: ir::TableId) -> bool {
        self.base.has_fresh(table)
            || self
                .overlay
                .keys()
                .any(|c| matches!(c, Cell::Field(t, FRESH, _) if *t == table))
    }

    pub(super) fn eval(&self, frame: &mut Vec<Abs>, e: &Expr) -> Abs {
        match e {
            Expr::Const(v) => Abs::of(v),
            Expr::Local(s) => frame.get(*s as usize).cloned().unwrap_or(Abs::Top),
            Expr::Session(s) => self.read(&Cell::Session(*s)),
            Expr::Field { row, table, field } => {
                let rows = self.eval(frame, row);
                // One row (a loop's binder, a row parameter): its cell's
                // value, which is what joining it onto nothing gives,
                // without the list and the join.
                if let Abs::Set(s) = &rows {
                    if let (1, Some(Value::Row(id))) = (s.len(), s.iter().next()) {
                        let id = self.base.row_key(*table, *id);
                        return self.read(&Cell::Field(*table, id, *field));
                    }
                }
                self.rows_of(*table, &rows)
                    .into_iter()
                    .fold(Abs::bottom(), |acc, id| {
                        acc.join(&self.read(&Cell::Field(*table, id, *field)))
                    })
            }
            Expr::Lookup { table, id } => match self.eval(frame, id).single() {
                Some(Value::Int(n)) => Abs::row(self.base.row_key(*table, n)),
                _ => Abs::Top,
            },
            Expr::Unary(UnaryOp::Not, x) => {
                let t = self.eval(frame, x).as_truth_or_bottom();
                t.map_or_else(Abs::bottom, |t| {
                    Abs::truth(Truth {
                        may_true: t.may_false,
                        may_false: t.may_true,
                    })
                })
            }
            Expr::Unary(UnaryOp::Neg, x) => self.eval(frame, x).negate(),
            Expr::Binary(op, l, r) => self.binary(frame, *op, l, r),
            Expr::In(x, items) => {
                let x = self.eval(frame, x);
                let mut t = Truth {
                    may_true: false,
                    may_false: true,
                };
                for item in items {
                    let eq = x.compare(BinaryOp::Eq, &self.eval(frame, item)).as_truth();
                    t.may_true |= eq.may_true;
                    t.may_false &= eq.may_false;
                }
                if x.is_bottom() {
                    Abs::bottom()
                } else {
                    Abs::truth(t)
                }
            }
            Expr::Exists(scan, body) => Abs::truth(Truth {
                may_true: self.any_row(frame, scan, body, true),
                may_false: true,
            }),
            Expr::All(scan, body) => Abs::truth(Truth {
                may_true: true,
                may_false: self.any_row(frame, scan, body, false),
            }),
            Expr::Count(scan) => Abs::Range {
                money: false,
                lo: 0,
                hi: self
                    .base
                    .max_rows(self.program, scan.table, self.has_fresh(scan.table)),
            },
            Expr::Text(parts) => literal_text(parts).map_or(Abs::Top, |t| Abs::of(&t)),
            // Not modelled: any value of the type.
            _ => Abs::Top,
        }
    }

    fn binary(&self, frame: &mut Vec<Abs>, op: BinaryOp, l: &Expr, r: &Expr) -> Abs {
        match op {
            BinaryOp::And | BinaryOp::Or => {
                let Some(a) = self.eval(frame, l).as_truth_or_bottom() else {
                    return Abs::bottom();
                };
                let b = self.eval(frame, r).as_truth_or_bottom().unwrap_or(Truth {
                    may_true: false,
                    may_false: false,
                });
                // The right side runs only when the left does not decide.
                Abs::truth(if op == BinaryOp::And {
                    Truth {
                        may_true: a.may_true && b.may_true,
                        may_false: a.may_false || (a.may_true && b.may_false),
                    }
                } else {
                    Truth {
                        may_true: a.may_true || (a.may_false && b.may_true),
                        may_false: a.may_false && b.may_false,
                    }
                })
            }
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => {
                let a = self.eval(frame, l);
                a.compare(op, &self.eval(frame, r))
            }
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                let a = self.eval(frame, l);
                a.arith(op, &self.eval(frame, r))
            }
        }
    }

    /// Whether some row of `scan` (one the start had, or one inserted
    /// since) can pass its filter with `body` evaluating to `want`.
    fn any_row(&self, frame: &mut Vec<Abs>, scan: &RowScan, body: &Expr, want: bool) -> bool {
        let slot = scan.binder as usize;
        if frame.len() <= slot {
            frame.resize(slot + 1, Abs::Top);
        }
        self.all_rows(scan.table).into_iter().any(|id| {
            if let Some(f) = frame.get_mut(slot) {
                *f = Abs::row(id);
            }
            let passes = scan
                .filter
                .as_ref()
                .is_none_or(|f| self.eval(frame, f).as_truth().may_true);
            // The body is evaluated only for a row that may pass.
            passes && {
                let t = self.eval(frame, body).as_truth();
                if want {
                    t.may_true
                } else {
                    t.may_false
                }
            }
        })
    }

    /// Narrows what `cond` reads to the states in which it evaluates to
    /// `want`; `false` when it cannot.
    pub(super) fn refine(&mut self, frame: &mut Vec<Abs>, cond: &Expr, want: bool) -> bool {
        let t = self.eval(frame, cond).as_truth();
        if !(if want { t.may_true } else { t.may_false }) {
            return false;
        }
        match cond {
            Expr::Unary(UnaryOp::Not, x) => self.refine(frame, x, !want),
            Expr::Binary(BinaryOp::And, l, r) if want => {
                self.refine(frame, l, true) && self.refine(frame, r, true)
            }
            Expr::Binary(BinaryOp::Or, l, r) if !want => {
                self.refine(frame, l, false) && self.refine(frame, r, false)
            }
            Expr::Binary(op, l, r) => {
                let op = if want { Some(*op) } else { negated(*op) };
                let Some(op) = op.filter(|o| negated(*o).is_some()) else {
                    return true;
                };
                let right = self.eval(frame, r);
                if !self.narrow(frame, l, op, &right) {
                    return false;
                }
                let left = self.eval(frame, l);
                self.narrow(frame, r, mirrored(op), &left)
            }
            other => self.narrow(frame, other, BinaryOp::Eq, &Abs::of(&Value::Bool(want))),
        }
    }

    /// Narrows the place `e` names (if it names one) to values `v` with
    /// `v op other`; `false` when none is left.
    fn narrow(&mut self, frame: &mut Vec<Abs>, e: &Expr, op: BinaryOp, other: &Abs) -> bool {
        let Some(place) = self.place(frame, e) else {
            return true;
        };
        let now = match &place {
            Place::Slot(s) => frame.get(*s).cloned().unwrap_or(Abs::Top),
            Place::Cell(c) => self.read(c),
        };
        let narrowed = now.narrow(op, other);
        if narrowed.is_bottom() {
            return false;
        }
        match place {
            Place::Slot(s) => {
                if let Some(f) = frame.get_mut(s) {
                    *f = narrowed;
                }
            }
            Place::Cell(c) => {
                self.overlay.insert(c, narrowed);
            }
        }
        true
    }

    /// The one location or local `e` reads, when it reads exactly one: a
    /// local, a session variable, or a field of one row the start had (a
    /// field of the inserted rows stands for many rows, and cannot be
    /// narrowed by what one of them satisfies).
    fn place(&self, frame: &mut Vec<Abs>, e: &Expr) -> Option<Place> {
        match e {
            Expr::Local(s) => Some(Place::Slot(*s as usize)),
            Expr::Session(s) => Some(Place::Cell(Cell::Session(*s))),
            Expr::Field { row, table, field } => {
                let rows = self.eval(frame, row);
                match rows.single() {
                    Some(Value::Row(id)) => {
                        let id = self.base.row_key(*table, id);
                        (id != FRESH).then_some(Place::Cell(Cell::Field(*table, id, *field)))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// A text without interpolations, as the value it always renders to.
fn literal_text(parts: &[TextPart]) -> Option<Value> {
    let mut text = String::new();
    for part in parts {
        match part {
            TextPart::Lit(s) => text.push_str(s),
            TextPart::Interp(..) => return None,
        }
    }
    Some(Value::Text(text.into()))
}

impl Abs {
    /// The truth values allowed, or `None` for the bottom (no value).
    fn as_truth_or_bottom(&self) -> Option<Truth> {
        (!self.is_bottom()).then(|| self.as_truth())
    }
}
