//! Executing statements (§2.3): marker bodies and task `setup`, transactionally.
//!
//! A marker runs in three phases. Its `requires` clauses are evaluated in order
//! on the untouched state; the body then runs on a *copy* of the world, noting
//! every write in a `Delta`; finally the gate (`gate::validate`) judges the copy.
//! Only a copy that passes replaces the world, so a rejected step — a false
//! `requires`, `reject`, a run-time fault, a full table, a gate violation —
//! leaves the world exactly as it was. Nothing here panics, whatever IR it gets.
//!
//! `go` is recorded where it is reached, together with a snapshot of the frame
//! at that point (so `go Order(o)` inside a loop sees that iteration's `o`); its
//! arguments are evaluated after the body, on the validated state that is about
//! to be committed (so `go Product(p)` shows `p` as the marker left it). If a
//! body reaches `go` more than once (the checker allows one `go` statement, but
//! it may sit in a loop), the last one reached wins, like a redirect replaced.
//! A fault while evaluating the `go` arguments rejects the step, keeping it
//! atomic.

use super::eval::{eval, eval_bool, render_text, Context, Fault, Navigation};
use super::gate;
use super::state::{idx, TableState};
pub use super::world::{Delta, World};
use crate::ir::{self, PageCall, RowData, RowScan, Slot, Stmt, TableId, TextPart, Value};
pub use setup::SetupError;

mod setup;

/// How a marker step ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The change is in the world; `go` is the page to show next, if any.
    Committed {
        go: Option<(ir::PageId, Vec<Value>)>,
        delta: Delta,
    },
    /// Nothing changed; `alert` says why, `cause` says which rule refused.
    Rejected { alert: String, cause: Rejection },
}

/// Which rule of §5.3 refused a marker (for the prover's explanations and C302).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// `requires` clause `index` (0-based) was false or faulted.
    Requires { index: usize },
    /// The body failed: `reject`, a run-time fault, a full table, a bad `go`.
    Body,
    /// The gate refused the delta.
    Gate(gate::Violation),
    /// An unknown marker or the wrong number of arguments (a broken IR).
    Call,
}

/// The alert texts of refused markers that the runtime words itself (a
/// `requires … else` or `reject` message is the author's): one place for the
/// interpreter and the JIT's runner (`jit::alert`), which must show the same.
pub(crate) mod alert {
    use super::super::eval::Fault;
    use crate::ir;

    /// A `requires` that was false without a message, or that faulted.
    pub fn rejected(program: &ir::Program, def: &ir::MarkerDef, fault: Option<&Fault>) -> String {
        match fault {
            None => format!("`{}` was rejected", def.name),
            Some(f) => format!("`{}` was rejected: {}", def.name, f.describe(program)),
        }
    }

    /// A body (or `setup`, or a `go`'s arguments) that faulted.
    pub fn failed(program: &ir::Program, name: &str, fault: &Fault) -> String {
        format!("`{name}` failed: {}", fault.describe(program))
    }

    /// An `insert` into a full table.
    pub fn full(table: &ir::TableDef) -> String {
        format!("`{}` is full", table.name)
    }

    pub fn unknown_marker(marker: ir::MarkerId) -> String {
        format!("unknown marker #{marker}")
    }

    pub fn arity(def: &ir::MarkerDef, given: usize) -> String {
        format!(
            "`{}` takes {} arguments, not {}",
            def.name,
            def.params.len(),
            given
        )
    }
}

/// Frames never need more slots than this (as in `eval`); a larger slot is a
/// broken IR, refused rather than allocated.
const MAX_SLOTS: usize = 1 << 16;

/// Runs marker `marker` with its argument values (the parameters' slots
/// `0..n`): `requires`, then the body on a copy, then the gate; commits only a
/// change the gate accepts. See the module docs for `go`.
pub fn run_marker(
    program: &ir::Program,
    world: &mut World,
    nav: Option<&Navigation>,
    marker: ir::MarkerId,
    args: Vec<Value>,
) -> Outcome {
    match try_marker(program, world, nav, marker, args) {
        Ok(outcome) => outcome,
        Err((alert, cause)) => Outcome::Rejected { alert, cause },
    }
}

/// `run_marker` with rejection as an `Err((alert, cause))`; `world` is
/// assigned only on the last line, after everything that can fail.
fn try_marker(
    program: &ir::Program,
    world: &mut World,
    nav: Option<&Navigation>,
    marker: ir::MarkerId,
    args: Vec<Value>,
) -> Result<Outcome, (String, Rejection)> {
    let def = called_marker(program, marker, args.len())?;
    let mut frame = args;
    check_requires(program, world, nav, def, &mut frame)?;
    let mut exec = Exec::new(program, nav, world.clone());
    exec.run_block(&mut frame, &def.body)
        .map_err(|stop| (stop.alert(program, &def.name), Rejection::Body))?;
    let Exec {
        world: after,
        delta,
        go,
        ..
    } = exec;
    gate::validate_commit(program, def, &after, &delta)
        .map_err(|v| (v.to_string(), Rejection::Gate(v)))?;
    let go = match go {
        Some((call, mut at)) => Some(
            eval_call(program, &after, nav, &mut at, call)
                .map_err(|f| (alert::failed(program, &def.name, &f), Rejection::Body))?,
        ),
        None => None,
    };
    *world = after;
    Ok(Outcome::Committed { go, delta })
}

/// The checks `run_marker` makes before the body (the marker exists, the
/// arguments fit, every `requires` holds), alone: an extern marker's writer is
/// asked only once they pass (`env::writer`).
pub(crate) fn check_marker_requires(
    program: &ir::Program,
    world: &World,
    nav: Option<&Navigation>,
    marker: ir::MarkerId,
    args: &[Value],
) -> Result<(), (String, Rejection)> {
    let def = called_marker(program, marker, args.len())?;
    check_requires(program, world, nav, def, &mut args.to_vec())
}

/// Marker `marker`, called with `arity` arguments: refused (a broken IR)
/// when it does not exist or takes another number.
fn called_marker(
    program: &ir::Program,
    marker: ir::MarkerId,
    arity: usize,
) -> Result<&ir::MarkerDef, (String, Rejection)> {
    let def = program
        .markers
        .get(idx(marker))
        .ok_or_else(|| (alert::unknown_marker(marker), Rejection::Call))?;
    if arity != def.params.len() {
        return Err((alert::arity(def, arity), Rejection::Call));
    }
    Ok(def)
}

/// The `requires` clauses in order, on the untouched world. A fault rejects
/// too: a precondition that cannot be evaluated does not hold.
fn check_requires(
    program: &ir::Program,
    world: &World,
    nav: Option<&Navigation>,
    def: &ir::MarkerDef,
    frame: &mut Vec<Value>,
) -> Result<(), (String, Rejection)> {
    let ctx = world.context(program, nav);
    for (index, req) in def.requires.iter().enumerate() {
        let alert = match eval_bool(&ctx, frame, &req.cond) {
            Ok(true) => continue,
            Ok(false) => match &req.message {
                Some(parts) => render_text(&ctx, frame, parts),
                None => alert::rejected(program, def, None),
            },
            Err(fault) => alert::rejected(program, def, Some(&fault)),
        };
        return Err((alert, Rejection::Requires { index }));
    }
    Ok(())
}

/// A page reference's target, its arguments evaluated in `world`.
fn eval_call(
    program: &ir::Program,
    world: &World,
    nav: Option<&Navigation>,
    frame: &mut Vec<Value>,
    call: &PageCall,
) -> Result<(ir::PageId, Vec<Value>), Fault> {
    let ctx = world.context(program, nav);
    let args = call
        .args
        .iter()
        .map(|a| eval(&ctx, frame, a))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((call.page, args))
}

/// Runs task `setup` statements: like a marker body, but with no permissions to
/// respect and no `go`. The result must still pass the rest of the gate (types,
/// references, capacities, invariants): a task must not start from a state the
/// site could never be in. On an error, `world` and `frame` are unchanged.
pub fn run_setup(
    program: &ir::Program,
    world: &mut World,
    frame: &mut Vec<Value>,
    stmts: &[Stmt],
) -> Result<(), SetupError> {
    let mut exec = Exec::new(program, None, world.clone());
    let mut scratch = frame.clone();
    exec.run_block(&mut scratch, stmts)
        .map_err(|stop| match stop {
            Stop::Reject(alert) => SetupError::Rejected(alert),
            Stop::Fault(f) => SetupError::Fault(super::NamedFault::new(f, program)),
        })?;
    if exec.go.is_some() {
        return Err(SetupError::Go);
    }
    gate::validate_state(program, &exec.world, &exec.delta).map_err(SetupError::Invalid)?;
    *world = exec.world;
    *frame = scratch;
    Ok(())
}

/// Why a body stopped early.
enum Stop {
    Fault(Fault),
    /// `reject` or a full table: the alert as the user sees it.
    Reject(String),
}

impl From<Fault> for Stop {
    fn from(f: Fault) -> Stop {
        Stop::Fault(f)
    }
}

impl Stop {
    fn alert(self, program: &ir::Program, name: &str) -> String {
        match self {
            Stop::Reject(alert) => alert,
            Stop::Fault(f) => alert::failed(program, name, &f),
        }
    }
}

/// One run of a body on its own copy of the world.
struct Exec<'a> {
    program: &'a ir::Program,
    nav: Option<&'a Navigation>,
    world: World,
    delta: Delta,
    /// The last `go` reached, with the frame as it was there.
    go: Option<(&'a PageCall, Vec<Value>)>,
}

impl<'a> Exec<'a> {
    fn new(program: &'a ir::Program, nav: Option<&'a Navigation>, world: World) -> Exec<'a> {
        Exec {
            program,
            nav,
            world,
            delta: Delta::default(),
            go: None,
        }
    }

    fn ctx(&self) -> Context<'_> {
        self.world.context(self.program, self.nav)
    }

    fn eval(&self, frame: &mut Vec<Value>, e: &ir::Expr) -> Result<Value, Fault> {
        eval(&self.ctx(), frame, e)
    }

    fn run_block(&mut self, frame: &mut Vec<Value>, stmts: &'a [Stmt]) -> Result<(), Stop> {
        stmts.iter().try_for_each(|s| self.run_stmt(frame, s))
    }

    fn run_stmt(&mut self, frame: &mut Vec<Value>, stmt: &'a Stmt) -> Result<(), Stop> {
        match stmt {
            Stmt::Let(slot, e) => {
                let v = self.eval(frame, e)?;
                set_slot(frame, *slot, v)?;
            }
            Stmt::Insert {
                slot,
                table,
                fields,
            } => self.insert(frame, *slot, *table, fields)?,
            Stmt::SetField {
                row,
                table,
                field,
                value,
            } => self.set_field(frame, row, *table, *field, value)?,
            Stmt::SetSession(s, e) => self.set_session(frame, *s, e)?,
            Stmt::Delete { table, row } => {
                let id = self.row_id(frame, row)?;
                self.delete(*table, id)?;
            }
            Stmt::DeleteAll(scan) => {
                for id in self.matching_ids(frame, scan)? {
                    self.delete(scan.table, id)?;
                }
            }
            Stmt::For(scan, body) => self.run_for(frame, scan, body)?,
            Stmt::If(cond, then, otherwise) => {
                let branch = if eval_bool(&self.ctx(), frame, cond)? {
                    then
                } else {
                    otherwise
                };
                self.run_block(frame, branch)?;
            }
            Stmt::Reject(parts) => return Err(Stop::Reject(self.reject_text(frame, parts))),
            Stmt::Go(call) => self.go = Some((call, frame.clone())),
        }
        Ok(())
    }

    /// A `reject` message: a failed interpolation shows `—` rather than hiding
    /// the author's message behind a fault.
    fn reject_text(&self, frame: &mut Vec<Value>, parts: &[TextPart]) -> String {
        render_text(&self.ctx(), frame, parts)
    }

    /// The id of the row `e` refers to.
    fn row_id(&self, frame: &mut Vec<Value>, e: &ir::Expr) -> Result<i64, Fault> {
        match self.eval(frame, e)? {
            Value::Row(id) => Ok(id),
            Value::None => Err(Fault::NoneValue),
            _ => Err(Fault::TypeConfusion("not a row")),
        }
    }

    fn table_mut(&mut self, table: TableId) -> Result<&mut TableState, Fault> {
        self.world
            .db
            .tables
            .get_mut(idx(table))
            .ok_or(Fault::TypeConfusion("unknown table"))
    }

    /// `insert T { ... }`: field values are all evaluated before the row
    /// exists, so they cannot see it.
    fn insert(
        &mut self,
        frame: &mut Vec<Value>,
        slot: Option<Slot>,
        table: TableId,
        fields: &[(ir::FieldId, ir::Expr)],
    ) -> Result<(), Stop> {
        let def = self
            .program
            .tables
            .get(idx(table))
            .ok_or(Fault::TypeConfusion("unknown table"))?;
        let mut values = vec![Value::None; def.fields.len()];
        for (f, e) in fields {
            let v = self.eval(frame, e)?;
            *values
                .get_mut(idx(*f))
                .ok_or(Fault::TypeConfusion("unknown field"))? = v;
        }
        let state = self.table_mut(table)?;
        if !gate::fits_capacity(state.rows().len().saturating_add(1), def.capacity) {
            return Err(Stop::Reject(alert::full(def)));
        }
        let id = state.issue_id().ok_or(Fault::Overflow)?;
        state.rows_mut().push(RowData { id, values });
        self.delta.inserted.push((table, id));
        if let Some(slot) = slot {
            set_slot(frame, slot, Value::Row(id))?;
        }
        Ok(())
    }

    fn set_field(
        &mut self,
        frame: &mut Vec<Value>,
        row: &ir::Expr,
        table: TableId,
        field: ir::FieldId,
        value: &ir::Expr,
    ) -> Result<(), Fault> {
        let id = self.row_id(frame, row)?;
        let v = self.eval(frame, value)?;
        let state = self.table_mut(table)?;
        let at = state
            .rows()
            .binary_search_by_key(&id, |r| r.id)
            .map_err(|_| Fault::MissingRow { table, id })?;
        let cell = state
            .rows_mut()
            .get_mut(at)
            .and_then(|r| r.values.get_mut(idx(field)))
            .ok_or(Fault::TypeConfusion("unknown field"))?;
        *cell = v;
        self.delta.set_fields.push((table, id, field));
        Ok(())
    }

    fn set_session(
        &mut self,
        frame: &mut Vec<Value>,
        s: ir::SessionId,
        e: &ir::Expr,
    ) -> Result<(), Fault> {
        let v = self.eval(frame, e)?;
        let cell = self
            .world
            .session
            .get_mut(idx(s))
            .ok_or(Fault::TypeConfusion("unknown session variable"))?;
        *cell = v;
        self.delta.set_session.push(s);
        Ok(())
    }

    fn delete(&mut self, table: TableId, id: i64) -> Result<(), Fault> {
        let state = self.table_mut(table)?;
        let at = state
            .rows()
            .binary_search_by_key(&id, |r| r.id)
            .map_err(|_| Fault::MissingRow { table, id })?;
        state.rows_mut().remove(at);
        self.delta.deleted.push((table, id));
        Ok(())
    }

    /// `for x in T where c { ... }`: the rows matching when the loop starts, in
    /// id order; a row the body deleted meanwhile is skipped, a row it inserted
    /// is not visited.
    fn run_for(
        &mut self,
        frame: &mut Vec<Value>,
        scan: &RowScan,
        body: &'a [Stmt],
    ) -> Result<(), Stop> {
        let ids = self.matching_ids(frame, scan)?;
        let saved = set_slot(frame, scan.binder, Value::None)?;
        for id in ids {
            if self.world.db.row(scan.table, id).is_none() {
                continue;
            }
            set_slot(frame, scan.binder, Value::Row(id))?;
            self.run_block(frame, body)?;
        }
        // Like `eval`'s scans, the binder does not outlive its loop.
        set_slot(frame, scan.binder, saved)?;
        Ok(())
    }

    /// The ids of the scan's rows passing its filter now, in id order; the
    /// binder slot is restored afterwards.
    fn matching_ids(&self, frame: &mut Vec<Value>, scan: &RowScan) -> Result<Vec<i64>, Fault> {
        let table = self
            .world
            .db
            .table(scan.table)
            .ok_or(Fault::TypeConfusion("scan of an unknown table"))?;
        let ids: Vec<i64> = table.rows().iter().map(|r| r.id).collect();
        let Some(filter) = &scan.filter else {
            return Ok(ids);
        };
        let saved = set_slot(frame, scan.binder, Value::None)?;
        let kept = self.filter_ids(frame, scan.binder, filter, ids);
        set_slot(frame, scan.binder, saved)?;
        kept
    }

    fn filter_ids(
        &self,
        frame: &mut Vec<Value>,
        binder: Slot,
        filter: &ir::Expr,
        ids: Vec<i64>,
    ) -> Result<Vec<i64>, Fault> {
        let ctx = self.ctx();
        let mut kept = Vec::new();
        for id in ids {
            set_slot(frame, binder, Value::Row(id))?;
            if eval_bool(&ctx, frame, filter)? {
                kept.push(id);
            }
        }
        Ok(kept)
    }
}

/// The id a new row gets: one past the largest (the rows are sorted, so the
/// last), or 1 in an empty table; `None` on overflow.
/// Writes `v` into `slot`, growing the frame as needed; returns the old value.
fn set_slot(frame: &mut Vec<Value>, slot: Slot, v: Value) -> Result<Value, Fault> {
    let i = idx(slot);
    if i >= MAX_SLOTS {
        return Err(Fault::TypeConfusion("local slot out of range"));
    }
    if i >= frame.len() {
        frame.resize(i + 1, Value::None);
    }
    let cell = frame
        .get_mut(i)
        .ok_or(Fault::TypeConfusion("local slot out of range"))?;
    Ok(std::mem::replace(cell, v))
}

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use super::*;
    use crate::ir::{
        BinaryOp::*, Expr, InvariantDef, MarkerDef, ParamDef, Permission, Program, Requirement, Ty,
    };

    const SHOW: ir::PageId = 3;

    fn marker(
        name: &str,
        params: Vec<Ty>,
        writes: Vec<Permission>,
        requires: Vec<Requirement>,
        body: Vec<Stmt>,
    ) -> MarkerDef {
        MarkerDef {
            name: name.into(),
            params: params
                .into_iter()
                .map(|ty| ParamDef {
                    name: "p".into(),
                    ty,
                })
                .collect(),
            reads: vec![],
            writes,
            requires,
            body,
            is_extern: false,
            frame: 8,
        }
    }

    fn lit(s: &str) -> Vec<TextPart> {
        vec![TextPart::Lit(s.into())]
    }

    fn set(row: Expr, table: TableId, field: ir::FieldId, value: Expr) -> Stmt {
        Stmt::SetField {
            row,
            table,
            field,
            value,
        }
    }

    fn go(args: Vec<Expr>) -> Stmt {
        Stmt::Go(PageCall { page: SHOW, args })
    }

    /// The fixture with `stock >= 0` as an invariant and `markers` added.
    fn site(markers: Vec<MarkerDef>) -> Program {
        let mut p = program();
        p.invariants.push(InvariantDef {
            name: "stock_nonneg".into(),
            cond: Expr::All(
                over(0, PRODUCT, None),
                Box::new(bin(Ge, fld(local(0), PRODUCT, STOCK), int(0))),
            ),
            frame: 1,
        });
        p.markers = markers;
        p
    }

    /// Runs marker 0 of a one-marker site on the initial world.
    fn run1(m: MarkerDef, args: Vec<Value>) -> (Outcome, World) {
        let p = site(vec![m]);
        let mut world = World::initial(&p);
        let outcome = run_marker(&p, &mut world, None, 0, args);
        (outcome, world)
    }

    /// Runs a marker expected to be rejected; checks the world is untouched and
    /// returns the alert.
    fn rejected(p: &Program, marker: ir::MarkerId, args: Vec<Value>) -> String {
        let before = World::initial(p);
        let mut world = before.clone();
        let outcome = run_marker(p, &mut world, None, marker, args);
        assert_eq!(world, before, "a rejected step changed the world");
        match outcome {
            Outcome::Rejected { alert, .. } => alert,
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    fn reject1(m: MarkerDef, args: Vec<Value>) -> String {
        rejected(&site(vec![m]), 0, args)
    }

    fn stock(world: &World, id: i64) -> Option<Value> {
        world
            .db
            .row(PRODUCT, id)
            .and_then(|r| r.values.get(2).cloned())
    }

    fn ids(world: &World, t: TableId) -> Vec<i64> {
        world.db.tables[t as usize]
            .rows()
            .iter()
            .map(|r| r.id)
            .collect()
    }

    /// `add_to_cart(p, qty)` from §2.3, going to `Show(line, p.stock)`.
    fn add_to_cart() -> MarkerDef {
        marker(
            "add_to_cart",
            vec![Ty::Row(PRODUCT), Ty::Int],
            vec![Permission::Table(LINE), Permission::Field(PRODUCT, STOCK)],
            vec![
                Requirement {
                    cond: bin(Gt, local(1), int(0)),
                    message: Some(lit("Choose a quantity")),
                },
                Requirement {
                    cond: bin(Ge, fld(local(0), PRODUCT, STOCK), local(1)),
                    message: None,
                },
            ],
            vec![
                Stmt::Insert {
                    slot: Some(2),
                    table: LINE,
                    fields: vec![(L_PRODUCT, local(0)), (L_QTY, local(1))],
                },
                set(
                    local(0),
                    PRODUCT,
                    STOCK,
                    bin(Sub, fld(local(0), PRODUCT, STOCK), local(1)),
                ),
                go(vec![local(2), fld(local(0), PRODUCT, STOCK)]),
            ],
        )
    }

    #[test]
    fn insert_and_set_commit_and_go_sees_the_committed_state() {
        let (outcome, world) = run1(add_to_cart(), vec![Value::Row(42), Value::Int(2)]);
        let Outcome::Committed { go, delta } = outcome else {
            panic!("rejected: {outcome:?}")
        };
        assert_eq!(go, Some((SHOW, vec![Value::Row(3), Value::Int(3)])));
        assert_eq!(delta.inserted, vec![(LINE, 3)]);
        assert_eq!(delta.set_fields, vec![(PRODUCT, 42, STOCK)]);
        assert_eq!(ids(&world, LINE), vec![1, 2, 3]);
        assert_eq!(
            world.db.row(LINE, 3).map(|r| r.values.clone()),
            Some(vec![Value::Row(42), Value::Int(2)])
        );
        assert_eq!(stock(&world, 42), Some(Value::Int(3)));
    }

    #[test]
    fn insert_into_an_empty_table_gets_id_1_and_missing_fields_are_none() {
        let m = marker(
            "tag",
            vec![],
            vec![Permission::Table(ALIAS), Permission::Table(EMPTY)],
            vec![],
            vec![
                Stmt::Insert {
                    slot: None,
                    table: EMPTY,
                    fields: vec![(0, money(5)), (1, int(1))],
                },
                Stmt::Insert {
                    slot: None,
                    table: ALIAS,
                    fields: vec![],
                },
            ],
        );
        let (outcome, world) = run1(m, vec![]);
        assert!(
            matches!(outcome, Outcome::Committed { go: None, .. }),
            "{outcome:?}"
        );
        assert_eq!(ids(&world, EMPTY), vec![1]);
        assert_eq!(
            world.db.row(ALIAS, 3).map(|r| r.values.clone()),
            Some(vec![Value::None])
        );
    }

    #[test]
    fn a_deleted_rows_id_is_never_issued_again() {
        // Replacing the newest line twice: 2 is deleted and the new line gets
        // 3, then 3 is deleted and the next gets 4. A reference still holding
        // a deleted id points at nothing, never at a newer row.
        let replace = |id: i64| {
            marker(
                "replace_newest",
                vec![],
                vec![Permission::Table(LINE)],
                vec![],
                vec![
                    Stmt::Delete {
                        table: LINE,
                        row: at(LINE, id),
                    },
                    Stmt::Insert {
                        slot: None,
                        table: LINE,
                        fields: vec![(L_PRODUCT, at(PRODUCT, 42)), (L_QTY, int(1))],
                    },
                ],
            )
        };
        let p = site(vec![replace(2), replace(3)]);
        let mut world = World::initial(&p);
        let first = run_marker(&p, &mut world, None, 0, vec![]);
        assert!(matches!(first, Outcome::Committed { .. }), "{first:?}");
        assert_eq!(ids(&world, LINE), vec![1, 3]);
        let second = run_marker(&p, &mut world, None, 1, vec![]);
        assert!(matches!(second, Outcome::Committed { .. }), "{second:?}");
        assert_eq!(ids(&world, LINE), vec![1, 4]);
        assert_eq!(world.db.tables[LINE as usize].high(), 4);
    }

    #[test]
    fn delete_and_delete_all_commit() {
        let m = marker(
            "clear",
            vec![],
            vec![Permission::Table(LINE), Permission::Table(PRODUCT)],
            vec![],
            vec![
                Stmt::Delete {
                    table: LINE,
                    row: at(LINE, 1),
                },
                Stmt::DeleteAll(over(
                    0,
                    PRODUCT,
                    Some(bin(Eq, fld(local(0), PRODUCT, STOCK), int(0))),
                )),
            ],
        );
        let (outcome, world) = run1(m, vec![]);
        let Outcome::Committed { delta, .. } = outcome else {
            panic!("rejected: {outcome:?}")
        };
        assert_eq!(delta.deleted, vec![(LINE, 1), (PRODUCT, 43)]);
        assert_eq!(ids(&world, LINE), vec![2]);
        assert_eq!(ids(&world, PRODUCT), vec![42, 50]);
    }

    #[test]
    fn for_visits_rows_matching_at_the_start_and_skips_deleted_ones() {
        let body = vec![
            set(local(0), PRODUCT, STOCK, int(0)),
            Stmt::Delete {
                table: PRODUCT,
                row: c(Value::Row(50)),
            },
            // Inserted rows are not visited: this runs once.
            Stmt::Insert {
                slot: None,
                table: TAG,
                fields: vec![(0, c(text("x")))],
            },
        ];
        let filter = Some(bin(Gt, fld(local(0), PRODUCT, STOCK), int(0)));
        let m = marker(
            "zero",
            vec![],
            vec![Permission::Table(PRODUCT), Permission::Table(TAG)],
            vec![],
            vec![Stmt::For(over(0, PRODUCT, filter), body)],
        );
        let (outcome, world) = run1(m, vec![]);
        let Outcome::Committed { delta, .. } = outcome else {
            panic!("rejected: {outcome:?}")
        };
        assert_eq!(delta.set_fields, vec![(PRODUCT, 42, STOCK)]);
        assert_eq!(ids(&world, PRODUCT), vec![42, 43]);
        assert_eq!(ids(&world, TAG), vec![1, 2]);
        assert_eq!(stock(&world, 42), Some(Value::Int(0)));
    }

    #[test]
    fn if_let_and_session_commit() {
        let m = marker(
            "login",
            vec![Ty::Int],
            vec![Permission::Session(0)],
            vec![],
            vec![
                Stmt::Let(1, bin(Add, local(0), int(1))),
                Stmt::If(
                    bin(Gt, local(1), int(5)),
                    vec![Stmt::SetSession(0, local(1))],
                    vec![Stmt::Reject(lit("too small"))],
                ),
            ],
        );
        let (outcome, world) = run1(m.clone(), vec![Value::Int(8)]);
        assert!(matches!(outcome, Outcome::Committed { .. }), "{outcome:?}");
        assert_eq!(world.session, vec![Value::Int(9)]);
        assert_eq!(reject1(m, vec![Value::Int(1)]), "too small");
    }

    #[test]
    fn requires_reject_in_order_with_their_messages() {
        assert_eq!(
            reject1(add_to_cart(), vec![Value::Row(42), Value::Int(0)]),
            "Choose a quantity"
        );
        assert_eq!(
            reject1(add_to_cart(), vec![Value::Row(42), Value::Int(6)]),
            "`add_to_cart` was rejected"
        );
        let alert = reject1(add_to_cart(), vec![Value::Row(99), Value::Int(1)]);
        assert_eq!(alert, "`add_to_cart` was rejected: no Product with id 99");
        let faulty_req = Requirement {
            cond: faulty(),
            message: Some(lit("never shown")),
        };
        let m = marker("m", vec![], vec![], vec![faulty_req], vec![]);
        assert_eq!(reject1(m, vec![]), "`m` was rejected: division by zero");
    }

    /// A body that writes before it stops: the writes must not survive.
    fn writes_then(last: Stmt) -> MarkerDef {
        marker(
            "m",
            vec![],
            vec![
                Permission::Table(PRODUCT),
                Permission::Table(LINE),
                Permission::Session(0),
            ],
            vec![],
            vec![
                set(c(Value::Row(42)), PRODUCT, STOCK, int(1)),
                Stmt::Insert {
                    slot: None,
                    table: LINE,
                    fields: vec![(L_PRODUCT, c(Value::Row(42))), (L_QTY, int(1))],
                },
                Stmt::Delete {
                    table: PRODUCT,
                    row: c(Value::Row(50)),
                },
                Stmt::SetSession(0, int(99)),
                last,
            ],
        )
    }

    #[test]
    fn reject_and_faults_in_the_body_leave_the_world_unchanged() {
        let interp = TextPart::Interp(fld(c(Value::Row(42)), PRODUCT, STOCK), Ty::Int);
        let reject = Stmt::Reject(vec![TextPart::Lit("only ".into()), interp]);
        assert_eq!(reject1(writes_then(reject), vec![]), "only 1");
        let fault = Stmt::Let(0, bin(Div, int(1), int(0)));
        assert_eq!(
            reject1(writes_then(fault), vec![]),
            "`m` failed: division by zero"
        );
        let missing = set(c(Value::Row(999)), PRODUCT, STOCK, int(1));
        assert_eq!(
            reject1(writes_then(missing), vec![]),
            "`m` failed: no Product with id 999"
        );
        let gone = Stmt::Delete {
            table: LINE,
            row: c(Value::Row(999)),
        };
        assert_eq!(
            reject1(writes_then(gone), vec![]),
            "`m` failed: no Line with id 999"
        );
        let of_none = set(none(), PRODUCT, STOCK, int(1));
        assert_eq!(
            reject1(writes_then(of_none), vec![]),
            "`m` failed: a value is none"
        );
        let bad_go = go(vec![bin(Div, int(1), int(0))]);
        assert_eq!(
            reject1(writes_then(bad_go), vec![]),
            "`m` failed: division by zero"
        );
    }

    #[test]
    fn a_full_table_rejects_the_insert() {
        let mut p = site(vec![writes_then(Stmt::Insert {
            slot: None,
            table: TAG,
            fields: vec![],
        })]);
        p.markers[0].writes.push(Permission::Table(TAG));
        p.tables[TAG as usize].capacity = 1;
        assert_eq!(rejected(&p, 0, vec![]), "`Tag` is full");
    }

    #[test]
    fn the_gate_rejects_bad_bodies() {
        let mut outside = writes_then(set(c(Value::Row(42)), PRODUCT, PRICE, money(1)));
        outside.writes = vec![
            Permission::Field(PRODUCT, STOCK),
            Permission::Table(LINE),
            Permission::Session(0),
        ];
        // `Product` (delete of 50) is no longer covered either; the first write found is reported.
        assert_eq!(
            reject1(outside, vec![]),
            "`m` may not delete from `Product`"
        );
        let wrong = writes_then(set(c(Value::Row(42)), PRODUCT, STOCK, c(text("lots"))));
        assert_eq!(
            reject1(wrong, vec![]),
            "`Product.stock` of row #42 must be Int, not Text"
        );
        let dangling = Stmt::Insert {
            slot: None,
            table: LINE,
            fields: vec![(L_PRODUCT, c(Value::Row(999))), (L_QTY, int(1))],
        };
        assert_eq!(
            reject1(writes_then(dangling), vec![]),
            "`Line.product` of new row #4 refers to no Product with id 999"
        );
        let broken = writes_then(set(c(Value::Row(42)), PRODUCT, STOCK, int(-1)));
        assert_eq!(
            reject1(broken, vec![]),
            "invariant `stock_nonneg` would be broken"
        );
        let session = writes_then(Stmt::SetSession(0, none()));
        assert_eq!(
            reject1(session, vec![]),
            "`session.user` must be Int, not none"
        );
    }

    #[test]
    fn bad_calls_are_rejected() {
        let p = site(vec![add_to_cart()]);
        assert_eq!(rejected(&p, 1, vec![]), "unknown marker #1");
        assert_eq!(
            rejected(&p, 0, vec![Value::Row(42)]),
            "`add_to_cart` takes 2 arguments, not 1"
        );
    }

    #[test]
    fn go_in_a_loop_keeps_the_last_target_reached() {
        let m = marker(
            "m",
            vec![],
            vec![],
            vec![],
            vec![Stmt::For(over(0, PRODUCT, None), vec![go(vec![local(0)])])],
        );
        let (outcome, _) = run1(m, vec![]);
        assert!(
            matches!(outcome, Outcome::Committed { go: Some((SHOW, ref args)), .. } if args == &vec![Value::Row(50)])
        );
    }

    #[test]
    fn setup_runs_without_permissions_but_keeps_the_gate() {
        let p = site(vec![]);
        let before = World::initial(&p);
        let mut world = before.clone();
        let mut frame = Vec::new();
        let ok = [
            Stmt::Insert {
                slot: Some(0),
                table: TAG,
                fields: vec![(0, c(text("new")))],
            },
            Stmt::SetSession(0, int(1)),
        ];
        assert_eq!(run_setup(&p, &mut world, &mut frame, &ok), Ok(()));
        assert_eq!(frame, vec![Value::Row(2)]);
        assert_eq!(world.session, vec![Value::Int(1)]);
        for bad in [
            vec![Stmt::SetSession(0, int(3)), Stmt::Let(0, faulty())],
            vec![Stmt::Reject(lit("no"))],
            vec![go(vec![])],
            vec![set(c(Value::Row(42)), PRODUCT, STOCK, int(-5))],
        ] {
            let snapshot = world.clone();
            let mut f = frame.clone();
            assert!(run_setup(&p, &mut world, &mut f, &bad).is_err());
            assert_eq!(world, snapshot);
            assert_eq!(f, frame);
        }
        assert_eq!(
            run_setup(&p, &mut world, &mut frame, &[Stmt::Let(0, faulty())])
                .map_err(|e| e.to_string()),
            Err("`setup` failed: division by zero".into())
        );
    }
}
