//! The persistent part of a state: every table's rows.
//!
//! Rows are kept sorted by id so that scans visit them in id order (the spec's
//! order for loops, quantifiers and `find`) and lookups are a binary search. A
//! table's position in `Database::tables` is its `ir::TableId`.
//!
//! A table's rows are shared behind an `Arc` and copied on the first write
//! (`rows_mut`): a marker's transaction, an environment clone and every state
//! the prover keeps copy only the tables that actually change.

use crate::ir::{self, RowData, TableId};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};
use xxhash_rust::xxh3::Xxh3;

/// One table's rows, sorted by id, ids unique.
#[derive(Clone, Debug, Default)]
pub struct TableState {
    rows: Arc<Vec<RowData>>,
    /// The highest id this table has ever held (0 for none): the next insert
    /// takes one more, so a deleted row's id is never issued again and a stale
    /// reference can never come to point at a new row. Part of the state.
    high: i64,
    /// A 128-bit hash of `rows`, computed on first use and forgotten on
    /// every write: a state's fingerprint rehashes only the tables that
    /// changed. 128 bits like the fingerprint it feeds, so a collision of
    /// two tables is as unlikely as one of two whole states.
    digest: OnceLock<u128>,
}

impl PartialEq for TableState {
    fn eq(&self, other: &TableState) -> bool {
        self.high == other.high && (Arc::ptr_eq(&self.rows, &other.rows) || self.rows == other.rows)
    }
}

impl Eq for TableState {}

impl Hash for TableState {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(self.digest());
        state.write_i64(self.high);
    }
}

/// A [`Hasher`] feeding xxh3's 128-bit streaming state, for the prover's
/// state fingerprints and the table digests inside them: whatever implements
/// `Hash` gets a 128-bit digest ([`Digest128::finish128`]). Integers are fed
/// little-endian, so a digest is the same on every machine.
#[derive(Clone, Default)]
pub struct Digest128(Xxh3);

impl Digest128 {
    pub fn new() -> Digest128 {
        Digest128::default()
    }

    /// The 128-bit digest of everything written so far.
    pub fn finish128(&self) -> u128 {
        self.0.digest128()
    }
}

impl Hasher for Digest128 {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    fn write_u8(&mut self, i: u8) {
        self.0.update(&[i]);
    }
    fn write_u32(&mut self, i: u32) {
        self.0.update(&i.to_le_bytes());
    }
    fn write_u64(&mut self, i: u64) {
        self.0.update(&i.to_le_bytes());
    }
    fn write_u128(&mut self, i: u128) {
        self.0.update(&i.to_le_bytes());
    }
    fn write_i64(&mut self, i: i64) {
        self.0.update(&i.to_le_bytes());
    }
    fn write_usize(&mut self, i: usize) {
        self.0.update(&(i as u64).to_le_bytes());
    }
    /// The low half of the 128-bit digest (`Hasher` wants a `u64`); the
    /// prover uses [`Digest128::finish128`].
    fn finish(&self) -> u64 {
        self.finish128() as u64
    }
}

/// All tables, indexed by `TableId`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Database {
    pub tables: Vec<TableState>,
}

impl TableState {
    /// A table holding `rows`, sorted by id (the seed is already in id order;
    /// sorting again keeps the invariant whatever the caller passes).
    pub fn new(rows: Vec<RowData>) -> TableState {
        TableState::with_high(rows, 0)
    }

    /// A table holding `rows` that has issued ids up to `high` (raised to its
    /// largest row id if that is higher).
    pub fn with_high(mut rows: Vec<RowData>, high: i64) -> TableState {
        rows.sort_by_key(|r| r.id);
        let high = rows.last().map_or(high, |r| r.id.max(high)).max(0);
        TableState {
            rows: Arc::new(rows),
            high,
            digest: OnceLock::new(),
        }
    }

    /// The highest id ever held.
    pub fn high(&self) -> i64 {
        self.high
    }

    /// The id for a new row (one past the highest ever held), now taken;
    /// `None` when ids are exhausted. The caller pushes the row: being the
    /// largest id, it keeps the rows sorted.
    pub fn issue_id(&mut self) -> Option<i64> {
        let id = self.high.checked_add(1)?;
        self.high = id;
        Some(id)
    }

    /// The rows, in id order.
    pub fn rows(&self) -> &[RowData] {
        &self.rows
    }

    /// The rows, for writing: copied first if another state shares them.
    pub fn rows_mut(&mut self) -> &mut Vec<RowData> {
        self.digest = OnceLock::new();
        Arc::make_mut(&mut self.rows)
    }

    /// A 128-bit hash of the rows ([`Digest128`]: xxh3, unkeyed, so the
    /// same rows give the same digest in every run), cached until the next
    /// write.
    pub fn digest(&self) -> u128 {
        *self.digest.get_or_init(|| {
            let mut h = Digest128::new();
            self.rows.hash(&mut h);
            h.finish128()
        })
    }

    /// The row with this id, if any.
    pub fn row(&self, id: i64) -> Option<&RowData> {
        let at = self.rows.binary_search_by_key(&id, |r| r.id).ok()?;
        self.rows.get(at)
    }
}

impl Database {
    /// The initial database: each table's seed rows.
    pub fn from_seed(program: &ir::Program) -> Database {
        let tables = program
            .tables
            .iter()
            .map(|t| TableState::new(t.seed.clone()))
            .collect();
        Database { tables }
    }

    /// One table's state; `None` for an id outside the program.
    pub fn table(&self, table: TableId) -> Option<&TableState> {
        self.tables.get(idx(table))
    }

    /// The row `id` of `table`, if both exist.
    pub fn row(&self, table: TableId, id: i64) -> Option<&RowData> {
        self.table(table)?.row(id)
    }
}

/// A `u32` index as a `usize`; `usize::MAX` (never a valid index) where it does
/// not fit, so that a following `.get()` fails instead of wrapping.
pub(crate) fn idx(i: u32) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_and_found_by_id() {
        let row = |id| RowData { id, values: vec![] };
        let db = Database {
            tables: vec![TableState::new(vec![row(7), row(2), row(40)])],
        };
        let ids: Vec<i64> = db.tables[0].rows().iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![2, 7, 40]);
        assert_eq!(db.row(0, 7).map(|r| r.id), Some(7));
        assert!(db.row(0, 8).is_none());
        assert!(db.row(1, 7).is_none());
    }
}
