//! The gate (§5.3): the one check every change to persistent state passes.
//!
//! A compiled marker body and an external writer's proposed delta (for an
//! `extern marker`) end up here alike, as a `World` after the change plus the
//! `Delta` of what was written. The gate accepts the change only when every
//! write lies within the marker's `writes`, every written value has its field's
//! (or session variable's) type, written references point at rows that exist
//! afterwards, no table grew past its capacity, and every invariant holds. The
//! compiler already proves most of this for compiled bodies; the gate is what
//! makes proposed deltas — which nothing has checked — safe to commit.
//!
//! Only *written* values are checked. A `delete` does not cascade and is not
//! refused because some untouched row still refers to the deleted one: reading
//! through such a reference faults at run time (§3), which the rest of the
//! runtime already handles.

mod values;

pub(crate) use values::{check_written, fits_capacity, After, Read};

use super::eval::{eval_bool, Context};
use super::state::{idx, TableState};
use super::world::{Delta, World};
use crate::ir::reads as footprint;
use crate::ir::{self, FieldId, MarkerId, Permission, SessionId, TableId, Ty, Value};
use std::fmt;
use values::{Failure, Place};

/// Why the gate refused a change. Every text is user-facing: it becomes the
/// step's alert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// A write the marker's `writes` do not cover; `what` says which
    /// (``insert into `Line` ``, ``set `Product.stock` ``).
    OutsideWrites {
        marker: String,
        what: String,
    },
    /// A stored value not of its place's type (`none` where not optional,
    /// an enum index out of range, a value of another kind).
    WrongType {
        place: String,
        expected: String,
        found: String,
    },
    /// A stored reference to a row that does not exist afterwards.
    DanglingReference {
        place: String,
        table: String,
        id: i64,
    },
    TableFull {
        table: String,
    },
    /// An invariant false (or faulting) afterwards.
    Invariant {
        name: String,
    },
    UnknownTable {
        name: String,
    },
    UnknownField {
        table: String,
        field: String,
    },
    UnknownSession {
        name: String,
    },
    /// A proposed `set` or `delete` of a row that does not exist.
    MissingRow {
        table: String,
        id: i64,
    },
    UnknownMarker {
        marker: MarkerId,
    },
    /// Only `extern marker`s take proposed deltas.
    NotExtern {
        marker: String,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::OutsideWrites { marker, what } => write!(f, "`{marker}` may not {what}"),
            Violation::WrongType {
                place,
                expected,
                found,
            } => {
                write!(f, "{place} must be {expected}, not {found}")
            }
            Violation::DanglingReference { place, table, id } => {
                write!(f, "{place} refers to no {table} with id {id}")
            }
            Violation::TableFull { table } => write!(f, "`{table}` is full"),
            Violation::Invariant { name } => write!(f, "invariant `{name}` would be broken"),
            Violation::UnknownTable { name } => write!(f, "unknown table `{name}`"),
            Violation::UnknownField { table, field } => {
                write!(f, "`{table}` has no field `{field}`")
            }
            Violation::UnknownSession { name } => write!(f, "unknown session variable `{name}`"),
            Violation::MissingRow { table, id } => write!(f, "no {table} with id {id}"),
            Violation::UnknownMarker { marker } => write!(f, "unknown marker #{marker}"),
            Violation::NotExtern { marker } => write!(f, "`{marker}` is not an extern marker"),
        }
    }
}

impl std::error::Error for Violation {}

/// Validates `after` against the marker's permissions and the program (see the
/// module docs). Checks run in a fixed order — permissions, capacities, values,
/// invariants — so the same bad delta always gets the same alert.
pub fn validate(
    program: &ir::Program,
    marker: &ir::MarkerDef,
    after: &World,
    delta: &Delta,
) -> Result<(), Violation> {
    check_permissions(program, marker, delta)?;
    validate_state(program, after, delta)
}

/// `validate` for a marker's own commit from a state the runtime produced,
/// checking only the invariants the delta can affect.
///
/// Every state the runtime reaches satisfies every invariant: the seed is
/// checked by C301 (a site that breaks one is not run), and `setup` and every
/// commit pass the full gate or change nothing. So an invariant that reads
/// nothing the delta wrote (its footprint, see `prove::footprint`) still holds
/// and need not be evaluated again; one that reads nothing at all is always
/// evaluated, being cheap. Outcomes are those of `validate` on such states;
/// the prover spends most of its time here otherwise.
pub(crate) fn validate_commit(
    program: &ir::Program,
    marker: &ir::MarkerDef,
    after: &World,
    delta: &Delta,
) -> Result<(), Violation> {
    check_permissions(program, marker, delta)?;
    check_values(program, after, delta)?;
    check_invariants_where(program, after, |inv| {
        let mut reads = footprint::Locs::new();
        footprint::expr_reads(program, &inv.cond, &mut reads);
        invariant_affected_by(delta, &reads)
    })
}

/// Whether a commit that wrote `written` must re-check an invariant that
/// reads `reads` (see [`validate_commit`]): the one rule both gates, the
/// interpreter's and the JIT's, and the JIT's choice of what to compile,
/// follow.
pub(crate) fn invariant_affected(written: &footprint::Locs, reads: &footprint::Locs) -> bool {
    reads.is_empty() || footprint::touches(written, reads)
}

/// [`invariant_affected`] by the locations `delta` wrote ([`written_locs`]),
/// without building their set: a commit asks this of every invariant that
/// reads something. An inserted or deleted row's table stands for its
/// fields too, which it touches whatever a reader reads of the table.
pub(crate) fn invariant_affected_by(delta: &Delta, reads: &footprint::Locs) -> bool {
    use footprint::Loc;
    let rows = delta.inserted.iter().chain(&delta.deleted);
    reads.is_empty()
        || rows
            .map(|&(t, _)| Loc::Rows(t))
            .any(|w| footprint::touches_one(w, reads))
        || delta
            .set_fields
            .iter()
            .any(|&(t, _, f)| footprint::touches_one(Loc::Field(t, f), reads))
        || delta
            .set_session
            .iter()
            .any(|&s| footprint::touches_one(Loc::Session(s), reads))
}

/// The locations a delta wrote: inserted and deleted rows write their table
/// (and every field), set fields and session variables themselves.
#[cfg(test)]
pub(crate) fn written_locs(program: &ir::Program, delta: &Delta) -> footprint::Locs {
    use footprint::Loc;
    let mut out = footprint::Locs::new();
    for (t, _) in delta.inserted.iter().chain(&delta.deleted) {
        out.insert(Loc::Rows(*t));
        let fields = program.tables.get(idx(*t)).map_or(0, |d| d.fields.len());
        out.extend(
            (0..fields)
                .filter_map(|f| u32::try_from(f).ok())
                .map(|f| Loc::Field(*t, f)),
        );
    }
    out.extend(delta.set_fields.iter().map(|(t, _, f)| Loc::Field(*t, *f)));
    out.extend(delta.set_session.iter().map(|s| Loc::Session(*s)));
    out
}

/// Everything `validate` checks except the permissions: what task `setup`
/// statements (which have none) must still satisfy.
pub(crate) fn validate_state(
    program: &ir::Program,
    after: &World,
    delta: &Delta,
) -> Result<(), Violation> {
    check_values(program, after, delta)?;
    check_invariants(program, after)
}

/// Capacities, then every written value's type and references, in the fixed
/// order both the full and the commit-time gate (and the JIT's) use
/// (`values`).
fn check_values(program: &ir::Program, after: &World, delta: &Delta) -> Result<(), Violation> {
    values::check_written(program, after, delta).map_err(|f| violation(program, after, f))
}

// ---- names, for messages ---------------------------------------------------------

fn table_def(program: &ir::Program, t: TableId) -> Result<&ir::TableDef, Violation> {
    program
        .tables
        .get(idx(t))
        .ok_or_else(|| Violation::UnknownTable {
            name: format!("#{t}"),
        })
}

fn field_def(program: &ir::Program, t: TableId, f: FieldId) -> Result<&ir::FieldDef, Violation> {
    let table = table_def(program, t)?;
    table
        .fields
        .get(idx(f))
        .ok_or_else(|| Violation::UnknownField {
            table: table.name.clone(),
            field: format!("#{f}"),
        })
}

fn session_def(program: &ir::Program, s: SessionId) -> Result<&ir::SessionDef, Violation> {
    program
        .session
        .get(idx(s))
        .ok_or_else(|| Violation::UnknownSession {
            name: format!("#{s}"),
        })
}

fn table_name(program: &ir::Program, t: TableId) -> String {
    program
        .tables
        .get(idx(t))
        .map_or_else(|| format!("#{t}"), |d| d.name.clone())
}

/// A type as the language writes it (`Int`, `Product`, `Date?`); the
/// knowledge spec (`graph::spec`) writes parameter and form types with it too.
pub(crate) fn ty_name(program: &ir::Program, ty: &Ty) -> String {
    match ty {
        Ty::Int => "Int".into(),
        Ty::Money => "Money".into(),
        Ty::Bool => "Bool".into(),
        Ty::Text => "Text".into(),
        Ty::Date => "Date".into(),
        Ty::Time => "Time".into(),
        Ty::Enum(e) => program
            .enums
            .get(idx(*e))
            .map_or_else(|| format!("enum #{e}"), |d| d.name.clone()),
        Ty::Row(t) => table_name(program, *t),
        Ty::Optional(inner) => format!("{}?", ty_name(program, inner)),
    }
}

/// What kind of value was found where another was expected.
fn value_kind(value: &Value) -> String {
    match value {
        Value::None => "none".into(),
        Value::Int(_) => "an Int".into(),
        Value::Money(_) => "Money".into(),
        Value::Bool(_) => "a Bool".into(),
        Value::Text(_) => "Text".into(),
        Value::Date(d) if !d.is_valid() => format!("the impossible date {d}"),
        Value::Time(t) if !t.is_valid() => format!("the impossible time {t}"),
        Value::Date(_) => "a Date".into(),
        Value::Time(_) => "a Time".into(),
        Value::Enum(i) => format!("variant #{i}"),
        Value::Row(id) => format!("a reference to row #{id}"),
    }
}

// ---- permissions -------------------------------------------------------------------

/// Every write in the delta must be covered by one of the marker's `writes`.
pub(crate) fn check_permissions(
    program: &ir::Program,
    marker: &ir::MarkerDef,
    delta: &Delta,
) -> Result<(), Violation> {
    // A marker grants a handful of permissions: a scan of them costs less
    // than building a set on every commit.
    let writes = &marker.writes;
    let outside = |what: String| Violation::OutsideWrites {
        marker: marker.name.clone(),
        what,
    };
    for &(t, _) in &delta.inserted {
        if !writes.contains(&Permission::Table(t)) {
            return Err(outside(format!("insert into `{}`", table_name(program, t))));
        }
    }
    for &(t, _) in &delta.deleted {
        if !writes.contains(&Permission::Table(t)) {
            return Err(outside(format!("delete from `{}`", table_name(program, t))));
        }
    }
    for &(t, _, f) in &delta.set_fields {
        if !writes.contains(&Permission::Table(t)) && !writes.contains(&Permission::Field(t, f)) {
            let field = field_def(program, t, f)?;
            return Err(outside(format!(
                "set `{}.{}`",
                table_name(program, t),
                field.name
            )));
        }
    }
    for &s in &delta.set_session {
        if !writes.contains(&Permission::Session(s)) {
            return Err(outside(format!(
                "set `session.{}`",
                session_def(program, s)?.name
            )));
        }
    }
    Ok(())
}

// ---- values ------------------------------------------------------------------------

/// The interpreter's state after a body, for the shared value checks.
impl values::After for World {
    fn rows(&self, table: TableId) -> Option<usize> {
        Some(
            self.db
                .table(table)
                .map_or(0, |s: &TableState| s.rows().len()),
        )
    }

    fn has_row(&self, table: TableId, id: i64) -> bool {
        self.db.row(table, id).is_some()
    }

    fn field(&self, table: TableId, id: i64, field: usize, base: &Ty) -> Option<Read> {
        let row = self.db.row(table, id)?;
        // A short row is missing values: they count as `none`.
        Some(read(row.values.get(field).unwrap_or(&Value::None), base))
    }

    fn session(&self, s: SessionId, base: &Ty) -> Option<Read> {
        self.session.get(idx(s)).map(|v| read(v, base))
    }
}

/// A value as the value checks read it where `base` is declared.
fn read(value: &Value, base: &Ty) -> Read {
    match (base, value) {
        (_, Value::None) => Read::None,
        (Ty::Int, Value::Int(_))
        | (Ty::Money, Value::Money(_))
        | (Ty::Bool, Value::Bool(_))
        | (Ty::Text, Value::Text(_)) => Read::Fine,
        // Only days and times that exist: the flat layout stores a date as its
        // day number, where `2026-02-31` would silently become March 3rd.
        (Ty::Date, Value::Date(d)) if d.is_valid() => Read::Fine,
        (Ty::Time, Value::Time(t)) if t.is_valid() => Read::Fine,
        (Ty::Enum(_), Value::Enum(i)) => Read::Variant(i64::from(*i)),
        (Ty::Row(_), Value::Row(id)) => Read::Row(*id),
        _ => Read::WrongKind,
    }
}

/// The violation a failed value check is, named for its user.
fn violation(program: &ir::Program, after: &World, failure: Failure) -> Violation {
    match failure {
        Failure::UnknownTable(t) => Violation::UnknownTable {
            name: format!("#{t}"),
        },
        Failure::UnknownField(t, f) => Violation::UnknownField {
            table: table_name(program, t),
            field: format!("#{f}"),
        },
        Failure::UnknownSession(s) => Violation::UnknownSession {
            name: program
                .session
                .get(idx(s))
                .map_or_else(|| format!("#{s}"), |d| d.name.clone()),
        },
        Failure::Full(t) => Violation::TableFull {
            table: table_name(program, t),
        },
        Failure::WrongType(place) => {
            let (name, value, ty) = placed(program, after, place);
            Violation::WrongType {
                place: name,
                expected: ty.map_or_else(|| "?".into(), |ty| ty_name(program, ty)),
                found: value_kind(&value),
            }
        }
        Failure::Dangling { place, table, id } => Violation::DanglingReference {
            place: placed(program, after, place).0,
            table: table_name(program, table),
            id,
        },
    }
}

/// A place's name in messages, the value it holds in `after` and its
/// declared type.
fn placed<'p>(
    program: &'p ir::Program,
    after: &World,
    place: Place,
) -> (String, Value, Option<&'p Ty>) {
    let field_of = |t: TableId, id: i64, f: usize| {
        let def = program.tables.get(idx(t));
        let field = def.and_then(|d| d.fields.get(f));
        let name = field.map_or_else(|| format!("#{f}"), |d| d.name.clone());
        let value = after
            .db
            .row(t, id)
            .and_then(|r| r.values.get(f).cloned())
            .unwrap_or(Value::None);
        (table_name(program, t), name, value, field.map(|d| &d.ty))
    };
    match place {
        Place::NewRow { table, id, field } => {
            let (t, f, value, ty) = field_of(table, id, field);
            (format!("`{t}.{f}` of new row #{id}"), value, ty)
        }
        Place::Row { table, id, field } => {
            let (t, f, value, ty) = field_of(table, id, field);
            (format!("`{t}.{f}` of row #{id}"), value, ty)
        }
        Place::Session(s) => {
            let def = program.session.get(idx(s));
            let name = def.map_or_else(|| format!("#{s}"), |d| d.name.clone());
            let value = after.session.get(idx(s)).cloned().unwrap_or(Value::None);
            (format!("`session.{name}`"), value, def.map(|d| &d.ty))
        }
    }
}

// ---- invariants --------------------------------------------------------------------

/// Every invariant, in declaration order; one that faults counts as false,
/// since a state where it cannot even be evaluated is not one it vouches for.
fn check_invariants(program: &ir::Program, after: &World) -> Result<(), Violation> {
    check_invariants_where(program, after, |_| true)
}

/// The invariants `wanted` picks, in order; the first false one is the
/// violation.
fn check_invariants_where(
    program: &ir::Program,
    after: &World,
    wanted: impl Fn(&ir::InvariantDef) -> bool,
) -> Result<(), Violation> {
    let ctx = Context {
        program,
        db: &after.db,
        session: &after.session,
        nav: None,
    };
    for inv in program.invariants.iter().filter(|i| wanted(i)) {
        // The frame grows on demand as quantifiers bind; no need to pre-size it.
        let mut frame = Vec::new();
        if !matches!(eval_bool(&ctx, &mut frame, &inv.cond), Ok(true)) {
            return Err(Violation::Invariant {
                name: inv.name.clone(),
            });
        }
    }
    Ok(())
}

// ---- proposed deltas (extern markers) ----------------------------------------------

/// The public API for `extern marker`s: an external writer proposes a delta, by
/// names, since it does not know the IR's indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProposedDelta {
    /// `(table, [(field, value)])`; fields not given are `none`.
    pub inserts: Vec<(String, Vec<(String, Value)>)>,
    /// `(table, row id, field, value)`.
    pub sets: Vec<(String, i64, String, Value)>,
    /// `(table, row id)`.
    pub deletes: Vec<(String, i64)>,
    /// `(session variable, value)`.
    pub session: Vec<(String, Value)>,
}

/// Applies a proposed delta for extern marker `marker` on a copy of `world`,
/// validates it with the same gate as compiled bodies, and commits it; on any
/// violation `world` is left exactly as it was.
///
/// The parts apply in a fixed order — inserts (ids as for `insert`: one past
/// the highest id the table ever held), then sets, then deletes, then session
/// variables — so sets may target the new rows and everything is judged on
/// the final state.
pub fn apply_proposed(
    program: &ir::Program,
    world: &mut World,
    marker: MarkerId,
    delta: &ProposedDelta,
) -> Result<(), Violation> {
    let def = program
        .markers
        .get(idx(marker))
        .ok_or(Violation::UnknownMarker { marker })?;
    if !def.is_extern {
        return Err(Violation::NotExtern {
            marker: def.name.clone(),
        });
    }
    let mut after = world.clone();
    let mut written = Delta::default();
    for (table, fields) in &delta.inserts {
        propose_insert(program, &mut after, &mut written, table, fields)?;
    }
    for (table, id, field, value) in &delta.sets {
        propose_set(
            program,
            &mut after,
            &mut written,
            (table, *id, field),
            value,
        )?;
    }
    for (table, id) in &delta.deletes {
        propose_delete(program, &mut after, &mut written, table, *id)?;
    }
    for (name, value) in &delta.session {
        propose_session(program, &mut after, &mut written, name, value)?;
    }
    validate(program, def, &after, &written)?;
    *world = after;
    Ok(())
}

fn resolve_table(program: &ir::Program, name: &str) -> Result<TableId, Violation> {
    let at = program.tables.iter().position(|t| t.name == name);
    at.and_then(|i| TableId::try_from(i).ok())
        .ok_or_else(|| Violation::UnknownTable { name: name.into() })
}

/// A field by name; `id` is not among a table's fields, so it cannot be set.
fn resolve_field(program: &ir::Program, t: TableId, name: &str) -> Result<FieldId, Violation> {
    let def = table_def(program, t)?;
    let at = def.fields.iter().position(|f| f.name == name);
    at.and_then(|i| FieldId::try_from(i).ok())
        .ok_or_else(|| Violation::UnknownField {
            table: def.name.clone(),
            field: name.into(),
        })
}

fn table_mut<'w>(
    after: &'w mut World,
    program: &ir::Program,
    t: TableId,
) -> Result<&'w mut TableState, Violation> {
    after
        .db
        .tables
        .get_mut(idx(t))
        .ok_or_else(|| Violation::UnknownTable {
            name: table_name(program, t),
        })
}

fn propose_insert(
    program: &ir::Program,
    after: &mut World,
    written: &mut Delta,
    table: &str,
    fields: &[(String, Value)],
) -> Result<(), Violation> {
    let t = resolve_table(program, table)?;
    let def = table_def(program, t)?;
    let mut values = vec![Value::None; def.fields.len()];
    for (name, value) in fields {
        let f = resolve_field(program, t, name)?;
        if let Some(cell) = values.get_mut(idx(f)) {
            *cell = value.clone();
        }
    }
    let state = table_mut(after, program, t)?;
    // Refused before it grows: a table never exceeds its capacity, even on a copy.
    if !fits_capacity(state.rows().len().saturating_add(1), def.capacity) {
        return Err(Violation::TableFull {
            table: def.name.clone(),
        });
    }
    let id = state.issue_id().ok_or_else(|| Violation::TableFull {
        table: def.name.clone(),
    })?;
    state.rows_mut().push(ir::RowData { id, values });
    written.inserted.push((t, id));
    Ok(())
}

fn propose_set(
    program: &ir::Program,
    after: &mut World,
    written: &mut Delta,
    (table, id, field): (&str, i64, &str),
    value: &Value,
) -> Result<(), Violation> {
    let t = resolve_table(program, table)?;
    let f = resolve_field(program, t, field)?;
    let missing = || Violation::MissingRow {
        table: table.into(),
        id,
    };
    let state = table_mut(after, program, t)?;
    let at = row_index(state, table, id)?;
    let row = state.rows_mut().get_mut(at).ok_or_else(missing)?;
    // A row shorter than its table (never built by the runtime) is padded, so
    // the set lands in the right place.
    if row.values.len() <= idx(f) {
        row.values.resize(idx(f).saturating_add(1), Value::None);
    }
    let cell = row.values.get_mut(idx(f)).ok_or_else(missing)?;
    *cell = value.clone();
    written.set_fields.push((t, id, f));
    Ok(())
}

fn propose_delete(
    program: &ir::Program,
    after: &mut World,
    written: &mut Delta,
    table: &str,
    id: i64,
) -> Result<(), Violation> {
    let t = resolve_table(program, table)?;
    let state = table_mut(after, program, t)?;
    let at = row_index(state, table, id)?;
    state.rows_mut().remove(at);
    written.deleted.push((t, id));
    Ok(())
}

/// Where row `id` of `table` (named for the message) sits.
fn row_index(state: &TableState, table: &str, id: i64) -> Result<usize, Violation> {
    state
        .rows()
        .binary_search_by_key(&id, |r| r.id)
        .map_err(|_| Violation::MissingRow {
            table: table.into(),
            id,
        })
}

fn propose_session(
    program: &ir::Program,
    after: &mut World,
    written: &mut Delta,
    name: &str,
    value: &Value,
) -> Result<(), Violation> {
    let unknown = || Violation::UnknownSession { name: name.into() };
    let at = program
        .session
        .iter()
        .position(|s| s.name == name)
        .ok_or_else(unknown)?;
    let s = SessionId::try_from(at).map_err(|_| unknown())?;
    let cell = after.session.get_mut(at).ok_or_else(unknown)?;
    *cell = value.clone();
    written.set_session.push(s);
    Ok(())
}

#[cfg(test)]
mod tests;
