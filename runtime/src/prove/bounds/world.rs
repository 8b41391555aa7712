//! The abstract world of the static bound (`super`): one abstract value per
//! session variable, per field of each row the instance starts with, and per
//! field of the rows inserted after the start (all of them together, under
//! the row id `FRESH`).

use super::value::{Abs, FRESH};
use crate::interp::exec::World;
use crate::ir::{self, FieldId, SessionId, TableId};
use std::collections::BTreeMap;

/// One abstract location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Cell {
    Session(SessionId),
    /// A field of a row the start had, or (`FRESH`) of every inserted row.
    Field(TableId, i64, FieldId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct AbsWorld {
    session: Vec<Abs>,
    tables: Vec<AbsTable>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct AbsTable {
    /// The start's rows by id: one value per field.
    rows: BTreeMap<i64, Vec<Abs>>,
    /// What the inserted rows' fields may hold; `None` while no insert into
    /// the table can have happened.
    fresh: Option<Vec<Abs>>,
}

impl AbsWorld {
    /// Exactly the concrete world `world`.
    pub(super) fn of(world: &World) -> AbsWorld {
        AbsWorld {
            session: world.session.iter().map(Abs::of).collect(),
            tables: world
                .db
                .tables
                .iter()
                .map(|t| AbsTable {
                    rows: t
                        .rows()
                        .iter()
                        .map(|r| (r.id, r.values.iter().map(Abs::of).collect()))
                        .collect(),
                    fresh: None,
                })
                .collect(),
        }
    }

    pub(super) fn read(&self, cell: &Cell) -> Abs {
        let found = match *cell {
            Cell::Session(s) => self.session.get(s as usize),
            Cell::Field(t, id, f) => self.tables.get(t as usize).and_then(|table| {
                let values = if id == FRESH {
                    table.fresh.as_ref()
                } else {
                    table.rows.get(&id)
                };
                values.and_then(|v| v.get(f as usize))
            }),
        };
        // A location the world does not have holds nothing.
        found.cloned().unwrap_or_else(Abs::bottom)
    }

    /// Joins `v` into `cell`; the first write to an inserted row's field
    /// makes the inserted rows exist.
    pub(super) fn absorb(&mut self, program: &ir::Program, cell: Cell, v: &Abs) {
        let slot = match cell {
            Cell::Session(s) => self.session.get_mut(s as usize),
            Cell::Field(t, id, f) => {
                let width = program.tables.get(t as usize).map_or(0, |d| d.fields.len());
                self.tables.get_mut(t as usize).and_then(|table| {
                    let values = if id == FRESH {
                        Some(
                            table
                                .fresh
                                .get_or_insert_with(|| vec![Abs::bottom(); width]),
                        )
                    } else {
                        table.rows.get_mut(&id)
                    };
                    values.and_then(|v| v.get_mut(f as usize))
                })
            }
        };
        if let Some(slot) = slot {
            *slot = slot.join(v);
        }
    }

    /// The id under which row `id` of `table` is kept: its own for a row
    /// the start had, `FRESH` for any other (ids are never reused, so any
    /// other id is one issued after the start).
    pub(super) fn row_key(&self, table: TableId, id: i64) -> i64 {
        match self.tables.get(table as usize) {
            Some(t) if t.rows.contains_key(&id) => id,
            _ => FRESH,
        }
    }

    /// The ids of the start's rows of `table`.
    pub(super) fn start_rows(&self, table: TableId) -> Vec<i64> {
        self.tables
            .get(table as usize)
            .map(|t| t.rows.keys().copied().collect())
            .unwrap_or_default()
    }

    pub(super) fn has_fresh(&self, table: TableId) -> bool {
        self.tables
            .get(table as usize)
            .is_some_and(|t| t.fresh.is_some())
    }

    /// The most rows `table` can hold: its start's rows, or, once rows may
    /// have been inserted, its capacity (an insert beyond it is refused).
    pub(super) fn max_rows(&self, program: &ir::Program, table: TableId, fresh: bool) -> i64 {
        let start = self.tables.get(table as usize).map_or(0, |t| t.rows.len());
        let capacity = program.tables.get(table as usize).map_or(0, |d| d.capacity);
        let most = if fresh {
            start.max(capacity as usize)
        } else {
            start
        };
        i64::try_from(most).unwrap_or(i64::MAX)
    }
}
