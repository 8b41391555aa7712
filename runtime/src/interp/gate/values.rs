//! The gate's value checks (§5.3) as one sequence over either
//! representation of the state after a body: the interpreter's `World` and
//! the JIT's flat bytes. Which writes are checked, in which order, and what
//! each cell must hold is decided here once; a representation only says
//! how to read a cell ([`After`]).
//!
//! The order is the gate's: capacities of the tables that gained rows, then
//! every field of every inserted row still present, then every set field of
//! a row still present, then every set session variable. A cell fits its
//! declared type when it holds `none` only where the type is optional, a
//! value of the type's kind that exists (no impossible date or time), an
//! enum variant in range, and a reference to a row present afterwards.

use super::super::state::idx;
use super::super::world::Delta;
use crate::ir::{self, SessionId, TableId, Ty};

/// One written cell as a check reads it, against the base (non-optional)
/// type declared for its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// `none`.
    None,
    /// A value of another kind, or one that does not exist (an impossible
    /// date or time).
    WrongKind,
    /// A value of the type's kind that needs no further check.
    Fine,
    /// An enum variant, by index.
    Variant(i64),
    /// A reference to the row with this id.
    Row(i64),
}

/// The state after a body, as the value checks read it.
pub(crate) trait After {
    /// Rows `table` holds (`None` when the representation has no such table).
    fn rows(&self, table: TableId) -> Option<usize>;
    /// Whether `table` holds a row with this id.
    fn has_row(&self, table: TableId, id: i64) -> bool;
    /// Field `field` of row `id` of `table`, read against `base`; `None`
    /// when the row is gone (deleted after it was written).
    fn field(&self, table: TableId, id: i64, field: usize, base: &Ty) -> Option<Read>;
    /// Session variable `s`, read against `base`; `None` when the state has
    /// no such variable.
    fn session(&self, s: SessionId, base: &Ty) -> Option<Read>;
}

/// Where a written value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Field `field` of the new row `id` of `table`.
    NewRow {
        table: TableId,
        id: i64,
        field: usize,
    },
    /// Field `field` of the existing row `id` of `table`.
    Row {
        table: TableId,
        id: i64,
        field: usize,
    },
    Session(SessionId),
}

/// Why the value checks refused the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The delta names a table, field or session variable the program (or
    /// the state) does not have.
    UnknownTable(TableId),
    UnknownField(TableId, usize),
    UnknownSession(SessionId),
    /// A table that gained rows holds more than its capacity.
    Full(TableId),
    /// A value not of its place's type.
    WrongType(Place),
    /// A reference to a row of `table` that does not exist afterwards.
    Dangling {
        place: Place,
        table: TableId,
        id: i64,
    },
}

/// Every value check of the gate, in its order (see the module docs).
pub(crate) fn check_written(
    program: &ir::Program,
    after: &impl After,
    delta: &Delta,
) -> Result<(), Failure> {
    // The tables that gained rows, lowest id first; found without
    // collecting them, since the JIT's gate runs this on every commit.
    let over = |t: TableId| match (program.tables.get(idx(t)), after.rows(t)) {
        (Some(def), Some(rows)) => (!fits_capacity(rows, def.capacity)).then_some(Failure::Full(t)),
        _ => Some(Failure::UnknownTable(t)),
    };
    let first = delta.inserted.iter().map(|&(t, _)| t);
    if let Some((_, failure)) = first
        .filter_map(|t| Some((t, over(t)?)))
        .min_by_key(|&(t, _)| t)
    {
        return Err(failure);
    }
    for &(t, id) in &delta.inserted {
        let def = table(program, t)?;
        for (field, f) in def.fields.iter().enumerate() {
            let place = Place::NewRow {
                table: t,
                id,
                field,
            };
            let Some(read) = after.field(t, id, field, base(&f.ty)) else {
                // The row itself is gone: nothing was left to check.
                break;
            };
            fits(program, after, read, &f.ty, place)?;
        }
    }
    for &(t, id, f) in &delta.set_fields {
        let field = idx(f);
        let def = table(program, t)?
            .fields
            .get(field)
            .ok_or(Failure::UnknownField(t, field))?;
        let place = Place::Row {
            table: t,
            id,
            field,
        };
        if let Some(read) = after.field(t, id, field, base(&def.ty)) {
            fits(program, after, read, &def.ty, place)?;
        }
    }
    for &s in &delta.set_session {
        let def = program
            .session
            .get(idx(s))
            .ok_or(Failure::UnknownSession(s))?;
        let read = after
            .session(s, base(&def.ty))
            .ok_or(Failure::UnknownSession(s))?;
        fits(program, after, read, &def.ty, Place::Session(s))?;
    }
    Ok(())
}

/// `rows ≤ capacity`, without a lossy cast either way.
pub(crate) fn fits_capacity(rows: usize, capacity: u32) -> bool {
    u64::try_from(rows).is_ok_and(|n| n <= u64::from(capacity))
}

/// The type a present value of `ty` has.
fn base(ty: &Ty) -> &Ty {
    match ty {
        Ty::Optional(inner) => base(inner),
        other => other,
    }
}

fn table(program: &ir::Program, t: TableId) -> Result<&ir::TableDef, Failure> {
    program.tables.get(idx(t)).ok_or(Failure::UnknownTable(t))
}

/// Whether a cell read as `read` may be stored where `ty` is declared.
fn fits(
    program: &ir::Program,
    after: &impl After,
    read: Read,
    ty: &Ty,
    place: Place,
) -> Result<(), Failure> {
    let ok = match (read, base(ty)) {
        (Read::None, _) => matches!(ty, Ty::Optional(_)),
        (Read::WrongKind, _) => false,
        (Read::Fine, _) => true,
        (Read::Variant(i), Ty::Enum(e)) => {
            let variants = program.enums.get(idx(*e)).map_or(0, |d| d.variants.len());
            usize::try_from(i).is_ok_and(|i| i < variants)
        }
        (Read::Row(id), Ty::Row(t)) => {
            if after.has_row(*t, id) {
                true
            } else {
                return Err(Failure::Dangling {
                    place,
                    table: *t,
                    id,
                });
            }
        }
        (Read::Variant(_) | Read::Row(_), _) => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Failure::WrongType(place))
    }
}
