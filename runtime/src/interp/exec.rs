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
mod tests;
