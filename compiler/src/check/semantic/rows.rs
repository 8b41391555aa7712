//! M205: a `T[n]` with a literal id naming a row that does not exist (spec §4).
//!
//! Everywhere but in tasks, the rows that exist are the seeded ones. A task's
//! `setup` changes that for the task (spec §3, 1.1): its `start`, `goal`,
//! answer, progress and key may name the rows `setup` inserts, and must not name
//! those it deletes. [`Rows`] follows a `setup` statically, statement by
//! statement, as the interpreter runs it: an insert takes 1 + the highest id
//! the table has ever held (at least 0; `TableState::issue_id` in the runtime),
//! a delete never frees an id for reuse. It is exact for statements at the top
//! level of `setup`; inside `for` and `if` it cannot know how often a statement
//! runs, so it keeps a superset: rows such a statement deletes still count as
//! existing, and every id above the table's highest may have been inserted. A
//! reference is reported only when its row is certainly missing, so M205 never
//! rejects a task that runs. What the superset lets through is decided exactly
//! once the program is lowered ([`check_setup_runs`], called with the
//! consistency checks): each instance's `setup` runs on the reference
//! interpreter and the task's references are looked up in the rows it leaves.

use super::walk::Walk;
use super::{const_int, with_object, SeedId};
use crate::check::Symbols;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::{DeclKind, Expr, ExprKind, SourceFile, Span, Stmt, StmtKind, TaskDecl};
use crate::syntax::visit::Visit;
use std::collections::{BTreeMap, BTreeSet};
use wsite_runtime::env::{self, TaskInstance};
use wsite_runtime::interp::exec::{run_setup, World};
use wsite_runtime::ir::{self, TableId, Value};

/// The rows of one table that may exist at some point of a program.
#[derive(Clone, Debug, Default)]
struct TableRows {
    /// Every id that may exist (a superset of those that do).
    ids: BTreeSet<i64>,
    /// The highest id the table has held, when it is known.
    high: i64,
    /// Set when a statement under `for`/`if` may have inserted: every id above
    /// this one may exist.
    open_above: Option<i64>,
}

impl TableRows {
    fn may_exist(&self, id: i64) -> bool {
        self.ids.contains(&id) || self.open_above.is_some_and(|h| id > h)
    }
}

/// Where a reference is evaluated, for the wording of its M205.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum When {
    /// Before any task runs: the seeded rows.
    Start,
    /// In a task's `setup`, after the statements before it.
    InSetup,
    /// In a task's initial state, after its whole `setup`.
    AfterSetup,
}

/// The rows that may exist, by table name.
#[derive(Clone, Debug)]
pub(super) struct Rows<'a> {
    tables: BTreeMap<&'a str, TableRows>,
}

impl<'a> Rows<'a> {
    /// The seeded rows of every declared table.
    pub(super) fn seeded(symbols: &Symbols<'a>, ids: &BTreeMap<&'a str, Vec<SeedId<'a>>>) -> Self {
        let tables = symbols
            .tables
            .keys()
            .map(|t| {
                let ids: BTreeSet<i64> = ids.get(t).into_iter().flatten().map(|r| r.id).collect();
                // Like the runtime's `TableState::with_high`: never below 0.
                let high = ids.last().copied().unwrap_or(0).max(0);
                let rows = TableRows {
                    ids,
                    high,
                    open_above: None,
                };
                (*t, rows)
            })
            .collect();
        Rows { tables }
    }

    /// M205 for each `T[n]` among `exprs` whose row cannot exist.
    fn check(&self, exprs: &[&Expr], when: When, object: Option<&str>, diags: &mut Diagnostics) {
        for expr in exprs {
            let Some((table, n)) = literal_reference(expr) else {
                continue;
            };
            match self.tables.get(table) {
                Some(rows) if !rows.may_exist(n) => diags.push(with_object(
                    missing_row(table, n, expr.span, rows, when),
                    object,
                )),
                _ => {}
            }
        }
    }

    /// M205 outside tasks: every reference against the seeded rows.
    pub(super) fn check_start(
        &self,
        walk: &Walk<'_>,
        object: Option<&str>,
        diags: &mut Diagnostics,
    ) {
        self.check(&walk.exprs, When::Start, object, diags);
    }

    /// M205 in a task: the template against the seed, each `setup` statement
    /// against the rows before it, the rest against the rows after `setup`.
    pub(super) fn check_task(
        &self,
        task: &TaskDecl,
        object: Option<&str>,
        diags: &mut Diagnostics,
    ) {
        let mut walk = Walk::default();
        walk.task_template(task);
        self.check(&walk.exprs, When::Start, object, diags);
        let mut rows = self.clone();
        for stmt in task.setup.iter().flatten() {
            let mut walk = Walk::default();
            walk.visit_stmt(stmt);
            if is_compound(stmt) {
                // How often its body runs is unknown: widen first, so no
                // reference inside is judged against rows it may have made.
                rows.apply(stmt, false);
                rows.check(&walk.exprs, When::InSetup, object, diags);
            } else {
                // Field values of an insert are evaluated before the row exists.
                rows.check(&walk.exprs, When::InSetup, object, diags);
                rows.apply(stmt, true);
            }
        }
        let mut walk = Walk::default();
        walk.task_after_setup(task);
        rows.check(&walk.exprs, When::AfterSetup, object, diags);
    }

    /// Follows the effect of `stmt` on the rows; `certain` when it runs exactly
    /// once (top level of `setup`).
    fn apply(&mut self, stmt: &Stmt, certain: bool) {
        match &stmt.kind {
            StmtKind::Insert { table, .. } => {
                if let Some(rows) = self.tables.get_mut(table.name.as_str()) {
                    rows.insert(certain);
                }
            }
            StmtKind::Delete(row) if certain => {
                if let Some((table, n)) = literal_reference(row) {
                    if let Some(rows) = self.tables.get_mut(table) {
                        rows.ids.remove(&n);
                    }
                }
            }
            StmtKind::DeleteAll {
                table,
                filter: None,
                ..
            } if certain => {
                if let Some(rows) = self.tables.get_mut(table.name.as_str()) {
                    rows.ids.clear();
                    rows.open_above = None;
                }
            }
            StmtKind::For { body, .. } => body.iter().for_each(|s| self.apply(s, false)),
            StmtKind::If {
                then, otherwise, ..
            } => then
                .iter()
                .chain(otherwise)
                .for_each(|s| self.apply(s, false)),
            // A `delete` of a row not named by a literal, or one that may not
            // run, leaves a superset: nothing to take away.
            StmtKind::Delete(_)
            | StmtKind::DeleteAll { .. }
            | StmtKind::Let { .. }
            | StmtKind::Set { .. }
            | StmtKind::Reject(_)
            | StmtKind::Go(_) => {}
        }
    }
}

/// M205, exactly, for the tasks whose `setup` holds a `for` or an `if` (where
/// the static walk keeps a superset): every instance's `setup` runs on the
/// seed with the reference interpreter, and each `T[n]` the task evaluates
/// after it is looked up in the rows it leaves. `program` is the lowering of
/// `files`, so it has no errors and the static walk reported nothing: what this
/// finds is new. A `setup` that fails is left to the prover, which says so.
pub fn check_setup_runs(program: &ir::Program, files: &[SourceFile], diags: &mut Diagnostics) {
    let instances = env::instances(program);
    let tasks = files
        .iter()
        .flat_map(|f| &f.decls)
        .filter_map(|d| match &d.kind {
            DeclKind::Task(t) => Some(t),
            _ => None,
        });
    for task in tasks {
        if !task.setup.iter().flatten().any(is_compound) {
            continue;
        }
        let Some(index) = program.tasks.iter().position(|t| t.name == task.name.name) else {
            continue;
        };
        let mut walk = Walk::default();
        walk.task_after_setup(task);
        let references: Vec<(&str, i64, Span, TableId)> = walk
            .exprs
            .iter()
            .filter_map(|e| {
                let (table, n) = literal_reference(e)?;
                let id = program.tables.iter().position(|t| t.name == table)?;
                Some((table, n, e.span, TableId::try_from(id).ok()?))
            })
            .collect();
        let object = format!("task {}", task.name.name);
        let mut reported = BTreeSet::new();
        for inst in instances.iter().filter(|i| i.task == index) {
            let Some(world) = world_after_setup(program, inst) else {
                continue;
            };
            for &(table, n, span, id) in &references {
                if world.db.row(id, n).is_some() || !reported.insert(span) {
                    continue;
                }
                let rows = TableRows {
                    ids: world
                        .db
                        .table(id)
                        .into_iter()
                        .flat_map(|t| t.rows())
                        .map(|r| r.id)
                        .collect(),
                    ..TableRows::default()
                };
                let mut d =
                    missing_row(table, n, span, &rows, When::AfterSetup).object(object.clone());
                if inst.binding.is_some() {
                    // Other instances may have the row: say which one lacks it.
                    d = d
                        .label(format!(
                            "`{table}[{n}]` does not exist after the `setup` of `{}`",
                            inst.name
                        ))
                        .evidence(serde_json::json!({ "instance": inst.name }));
                }
                diags.push(d);
            }
        }
    }
}

/// The state `inst` starts from: the seed, then its `setup` with the template
/// binder bound (what `Env::reset` does before rendering the start page).
fn world_after_setup(program: &ir::Program, inst: &TaskInstance) -> Option<World> {
    let task = program.tasks.get(inst.task)?;
    let mut frame = vec![Value::None; usize::try_from(task.frame).ok()?];
    if let (Some(template), Some(id)) = (&task.template, inst.binding) {
        *frame.get_mut(usize::try_from(template.scan.binder).ok()?)? = Value::Row(id);
    }
    let mut world = World::initial(program);
    run_setup(program, &mut world, &mut frame, &task.setup).ok()?;
    Some(world)
}

impl TableRows {
    fn insert(&mut self, certain: bool) {
        if certain {
            self.high = self.high.saturating_add(1);
            self.ids.insert(self.high);
        } else {
            let open = self.open_above.map_or(self.high, |h| h.min(self.high));
            self.open_above = Some(open);
        }
    }
}

/// Whether `stmt` holds statements that may run any number of times.
fn is_compound(stmt: &Stmt) -> bool {
    matches!(stmt.kind, StmtKind::For { .. } | StmtKind::If { .. })
}

/// `T[n]` with a literal (possibly negated) id: the table's name and `n`.
fn literal_reference(expr: &Expr) -> Option<(&str, i64)> {
    let ExprKind::Index(base, index) = &expr.kind else {
        return None;
    };
    let ExprKind::Name(table) = &base.kind else {
        return None;
    };
    Some((table.name.as_str(), const_int(index)?))
}

fn missing_row(table: &str, n: i64, span: Span, rows: &TableRows, when: When) -> Diagnostic {
    let label = match when {
        When::Start => format!("`{table}[{n}]` is not a seeded row"),
        When::InSetup => format!("`{table}[{n}]` does not exist at this point of `setup`"),
        When::AfterSetup => format!("`{table}[{n}]` does not exist after this task's `setup`"),
    };
    let d =
        Diagnostic::new(Code::M205, span, format!("no `{table}` row with id `{n}`")).label(label);
    let mut shown: Vec<String> = rows.ids.iter().take(10).map(i64::to_string).collect();
    if rows.ids.len() > 10 {
        shown.push("...".to_string());
    }
    if let Some(h) = rows.open_above {
        shown.push(format!("any id above {h}"));
    }
    let ids = shown.join(", ");
    let exist = if rows.open_above.is_some() {
        "may exist"
    } else {
        "exist"
    };
    d.help(match (when, shown.is_empty()) {
        (When::Start, true) => format!(
            "`{table}` has no seed rows, so no row exists at the start; add `seed {table} [ {{ id: {n}, ... }} ]`"
        ),
        (When::Start, false) => format!(
            "the seeded `{table}` ids are {ids}; use one of them or add a seed row with `id: {n}`"
        ),
        (_, true) => format!(
            "no `{table}` row exists here; a row that `setup` inserts gets 1 + the highest id the table has held"
        ),
        (_, false) => format!(
            "the `{table}` ids that {exist} here are {ids}; a row that `setup` inserts gets 1 + the highest id the table has held"
        ),
    })
}
