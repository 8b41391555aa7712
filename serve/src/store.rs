//! Episodes in SQLite (INTERFACES "`wsitec serve`": state in SQLite).
//!
//! Every site table is a real SQL table of the same name, with one column per
//! field (see [`crate::values`]) plus the owning session: `("wsite:session",
//! id)` is the primary key, so one session's rows are invisible to every query
//! of another. The rest of an episode — task, page, form values, session
//! variables, step, alert, reward — is one JSON row of `"wsite:episodes"`,
//! with a version that every save checks and bumps, so two writers of one
//! session can never silently overwrite each other. A step's changes to the
//! tables and to the episode row commit in one transaction, so a crash
//! leaves either the state before the step or the state after it.
//! `"wsite:site"` holds a fingerprint of the compiled site: a database file
//! written for another site (or another version of it) is refused at open.

use crate::values::{column_type, from_sql, to_sql, BadColumn};
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wsite_runtime::env::{FormKey, TaskInstance};
use wsite_runtime::interp::eval::Navigation;
use wsite_runtime::interp::state::{Database, TableState};
use wsite_runtime::ir::{Program, RowData, TableDef, Value};

/// The column naming a row's session; not an identifier, so no field can
/// take its name.
const SESSION: &str = "\"wsite:session\"";

/// An episode's state besides its rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub instance: TaskInstance,
    pub seed: Option<u64>,
    pub nav: Navigation,
    pub forms: Vec<(FormKey, Value)>,
    pub step: u32,
    pub alert: Option<String>,
    pub done: bool,
    pub success: bool,
    /// The session variables, by `ir::SessionId`.
    pub session: Vec<Value>,
    /// Each table's highest id ever issued.
    pub high: Vec<i64>,
    /// The last step's reward and the episode's return so far.
    pub reward: f64,
    #[serde(rename = "return")]
    pub total: f64,
}

/// One session's episode as stored.
#[derive(Clone, Debug)]
pub struct Stored {
    /// Bumped by every save.
    pub version: i64,
    pub meta: Meta,
    pub db: Database,
}

#[derive(Debug)]
pub enum StoreError {
    Sql(rusqlite::Error),
    /// A stored column that is not of its field's type.
    Column {
        table: String,
        id: i64,
        field: String,
        why: BadColumn,
    },
    /// An episode row whose JSON does not decode.
    Meta(serde_json::Error),
    /// The file holds the sessions of another site, or of another version.
    OtherSite(PathBuf),
    /// The episode changed since it was loaded.
    Conflict,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Sql(e) => write!(f, "SQLite: {e}"),
            StoreError::Column {
                table,
                id,
                field,
                why,
            } => write!(f, "{table} row {id}, field `{field}`: {why}"),
            StoreError::Meta(e) => write!(f, "an episode record does not decode: {e}"),
            StoreError::OtherSite(path) => write!(
                f,
                "{} holds the sessions of another site (or of another version of this one); \
                 name a new file with --db, or delete this one",
                path.display()
            ),
            StoreError::Conflict => write!(f, "the episode was changed by another request"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Sql(e)
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> StoreError {
        StoreError::Meta(e)
    }
}

/// The SQLite database of a served site.
pub struct Store {
    conn: Connection,
    program: Arc<Program>,
}

impl Store {
    /// Opens `path` (created if missing), or a private in-memory database,
    /// and makes the site's tables.
    pub fn open(path: Option<&Path>, program: Arc<Program>) -> Result<Store, StoreError> {
        let conn = match path {
            Some(p) => Connection::open(p)?,
            None => Connection::open_in_memory()?,
        };
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let store = Store { conn, program };
        store.create_schema(path)?;
        Ok(store)
    }

    fn create_schema(&self, path: Option<&Path>) -> Result<(), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "CREATE TABLE IF NOT EXISTS \"wsite:site\" (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            [],
        )?;
        let print = fingerprint(&self.program)?;
        let found: Option<String> = tx
            .query_row(
                "SELECT value FROM \"wsite:site\" WHERE key = 'fingerprint'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        match found {
            Some(f) if f != print => {
                return Err(StoreError::OtherSite(
                    path.map(Path::to_path_buf).unwrap_or_default(),
                ))
            }
            Some(_) => {}
            None => {
                tx.execute(
                    "INSERT INTO \"wsite:site\" (key, value) VALUES ('fingerprint', ?1)",
                    params![print],
                )?;
            }
        }
        tx.execute(
            "CREATE TABLE IF NOT EXISTS \"wsite:episodes\" (session TEXT PRIMARY KEY, \
             version INTEGER NOT NULL, meta TEXT NOT NULL)",
            [],
        )?;
        for table in &self.program.tables {
            tx.execute(&create_table(table), [])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Whether `session` has an episode (without loading it).
    pub fn exists(&self, session: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM \"wsite:episodes\" WHERE session = ?1")?
            .exists(params![session])?)
    }

    /// The episode of `session`, if it has one.
    pub fn load(&self, session: &str) -> Result<Option<Stored>, StoreError> {
        let row: Option<(i64, String)> = self
            .conn
            .prepare_cached("SELECT version, meta FROM \"wsite:episodes\" WHERE session = ?1")?
            .query_row(params![session], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((version, meta)) = row else {
            return Ok(None);
        };
        let meta: Meta = serde_json::from_str(&meta)?;
        let mut tables = Vec::with_capacity(self.program.tables.len());
        for (t, def) in self.program.tables.iter().enumerate() {
            let rows = self.load_rows(session, def)?;
            let high = meta.high.get(t).copied().unwrap_or(0);
            tables.push(TableState::with_high(rows, high));
        }
        Ok(Some(Stored {
            version,
            meta,
            db: Database { tables },
        }))
    }

    fn load_rows(&self, session: &str, def: &TableDef) -> Result<Vec<RowData>, StoreError> {
        let columns: Vec<String> = def.fields.iter().map(|f| quote(&f.name)).collect();
        let sql = format!(
            "SELECT id{}{} FROM {} WHERE {SESSION} = ?1 ORDER BY id",
            if columns.is_empty() { "" } else { ", " },
            columns.join(", "),
            quote(&def.name)
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let raw = stmt
            .query_map(params![session], |r| {
                let id: i64 = r.get(0)?;
                let mut values = Vec::with_capacity(def.fields.len());
                for i in 0..def.fields.len() {
                    values.push(r.get::<_, rusqlite::types::Value>(i + 1)?);
                }
                Ok((id, values))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        raw.into_iter()
            .map(|(id, sqls)| {
                let values = sqls
                    .into_iter()
                    .zip(&def.fields)
                    .map(|(sql, field)| {
                        from_sql(&self.program, sql, &field.ty).map_err(|why| StoreError::Column {
                            table: def.name.clone(),
                            id,
                            field: field.name.clone(),
                            why,
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(RowData { id, values })
            })
            .collect()
    }

    /// Starts `session`'s episode afresh: its rows become `db`'s.
    pub fn create(&mut self, session: &str, meta: &Meta, db: &Database) -> Result<i64, StoreError> {
        let tx = self.conn.transaction()?;
        for def in &self.program.tables {
            let sql = format!("DELETE FROM {} WHERE {SESSION} = ?1", quote(&def.name));
            tx.prepare_cached(&sql)?.execute(params![session])?;
        }
        for (def, table) in self.program.tables.iter().zip(&db.tables) {
            for row in table.rows() {
                insert(&tx, &self.program, def, session, row)?;
            }
        }
        let json = serde_json::to_string(meta)?;
        tx.prepare_cached(
            "INSERT INTO \"wsite:episodes\" (session, version, meta) VALUES (?1, 1, ?2) \
             ON CONFLICT(session) DO UPDATE SET version = version + 1, meta = excluded.meta",
        )?
        .execute(params![session, json])?;
        let version = tx.query_row(
            "SELECT version FROM \"wsite:episodes\" WHERE session = ?1",
            params![session],
            |r| r.get(0),
        )?;
        tx.commit()?;
        Ok(version)
    }

    /// Saves a step of `session`: the rows that differ between `before` (as
    /// loaded at `version`) and `after`, and the new `meta`, in one
    /// transaction. Returns the new version.
    pub fn save(
        &mut self,
        session: &str,
        version: i64,
        before: &Database,
        meta: &Meta,
        after: &Database,
    ) -> Result<i64, StoreError> {
        let tx = self.conn.transaction()?;
        let json = serde_json::to_string(meta)?;
        let updated = tx
            .prepare_cached(
                "UPDATE \"wsite:episodes\" SET version = version + 1, meta = ?1 \
                 WHERE session = ?2 AND version = ?3",
            )?
            .execute(params![json, session, version])?;
        if updated != 1 {
            return Err(StoreError::Conflict);
        }
        let tables = self.program.tables.iter();
        for ((def, old), new) in tables.zip(&before.tables).zip(&after.tables) {
            if old != new {
                write_changes(&tx, &self.program, def, session, old.rows(), new.rows())?;
            }
        }
        tx.commit()?;
        Ok(version + 1)
    }

    /// How many sessions have an episode.
    pub fn sessions(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT COUNT(*) FROM \"wsite:episodes\"", [], |r| r.get(0))?)
    }
}

/// Walks two id-sorted row lists together, writing what differs.
fn write_changes(
    tx: &rusqlite::Transaction<'_>,
    program: &Program,
    def: &TableDef,
    session: &str,
    old: &[RowData],
    new: &[RowData],
) -> Result<(), StoreError> {
    let (mut i, mut j) = (0, 0);
    loop {
        match (old.get(i), new.get(j)) {
            (None, None) => return Ok(()),
            (Some(o), Some(n)) if o.id == n.id => {
                if o != n {
                    update(tx, program, def, session, n)?;
                }
                i += 1;
                j += 1;
            }
            (Some(o), Some(n)) if o.id < n.id => {
                delete(tx, def, session, o.id)?;
                i += 1;
            }
            (Some(o), None) => {
                delete(tx, def, session, o.id)?;
                i += 1;
            }
            (_, Some(n)) => {
                insert(tx, program, def, session, n)?;
                j += 1;
            }
        }
    }
}

fn delete(
    tx: &rusqlite::Transaction<'_>,
    def: &TableDef,
    session: &str,
    id: i64,
) -> Result<(), StoreError> {
    let sql = format!(
        "DELETE FROM {} WHERE {SESSION} = ?1 AND id = ?2",
        quote(&def.name)
    );
    tx.prepare_cached(&sql)?.execute(params![session, id])?;
    Ok(())
}

fn insert(
    tx: &rusqlite::Transaction<'_>,
    program: &Program,
    def: &TableDef,
    session: &str,
    row: &RowData,
) -> Result<(), StoreError> {
    let mut columns = vec![SESSION.to_string(), "id".to_string()];
    columns.extend(def.fields.iter().map(|f| quote(&f.name)));
    let marks: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        quote(&def.name),
        columns.join(", "),
        marks.join(", ")
    );
    let values = row_values(program, def, session, row);
    tx.prepare_cached(&sql)?.execute(params_from_iter(values))?;
    Ok(())
}

fn update(
    tx: &rusqlite::Transaction<'_>,
    program: &Program,
    def: &TableDef,
    session: &str,
    row: &RowData,
) -> Result<(), StoreError> {
    if def.fields.is_empty() {
        return Ok(());
    }
    let sets: Vec<String> = def
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| format!("{} = ?{}", quote(&f.name), i + 3))
        .collect();
    let sql = format!(
        "UPDATE {} SET {} WHERE {SESSION} = ?1 AND id = ?2",
        quote(&def.name),
        sets.join(", ")
    );
    let values = row_values(program, def, session, row);
    tx.prepare_cached(&sql)?.execute(params_from_iter(values))?;
    Ok(())
}

/// The parameters of an insert or update: session, id, then the fields.
fn row_values(
    program: &Program,
    def: &TableDef,
    session: &str,
    row: &RowData,
) -> Vec<rusqlite::types::Value> {
    let mut values = vec![
        rusqlite::types::Value::Text(session.to_string()),
        rusqlite::types::Value::Integer(row.id),
    ];
    values.extend(
        def.fields
            .iter()
            .zip(&row.values)
            .map(|(f, v)| to_sql(program, v, &f.ty)),
    );
    values
}

fn create_table(def: &TableDef) -> String {
    let mut columns = vec![
        format!("{SESSION} TEXT NOT NULL"),
        "id INTEGER NOT NULL".into(),
    ];
    for f in &def.fields {
        columns.push(format!("{} {}", quote(&f.name), column_type(&f.ty)));
    }
    columns.push(format!("PRIMARY KEY ({SESSION}, id)"));
    format!(
        "CREATE TABLE IF NOT EXISTS {} ({}) WITHOUT ROWID",
        quote(&def.name),
        columns.join(", ")
    )
}

/// An SQL identifier, quoted (site names are identifiers already; quoting
/// keeps a name like `order` from meaning SQL).
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A digest of the compiled site: its IR as JSON, hashed.
fn fingerprint(program: &Program) -> Result<String, StoreError> {
    let json = serde_json::to_vec(program)?;
    Ok(format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&json)))
}
