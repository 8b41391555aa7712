//! The artifact `.wsb`: a built site in one SQLite file.
//!
//! This module owns the file format and nothing else: [`write()`] stores an
//! [`Artifact`] (the lowered program, the sources it came from, the prover's
//! verdict on every task and the defects found) and [`read`] loads one back.
//! The data is plain in both directions, so the compiler and the prover fill it
//! without knowing SQL. The file is for machines (the IR blob is the truth) and
//! for people: every site table's seed rows are also stored as a real SQL table,
//! `seed_<Table>`, so any SQLite client can inspect them.
//!
//! Two promises shape the code. A build is reproducible byte for byte: nothing
//! time- or random-dependent reaches the file, and the SQLite header and page
//! layout are pinned. And reading never crashes and never modifies the file:
//! every way a file can be wrong (missing, not SQLite, a foreign database, an
//! older format, another compiler's build, damaged bytes) is an
//! [`ArtifactError`] that names the file and says what to do.

mod error;
mod seed;

pub use error::{ArtifactError, InvalidArtifact, SeedError};

use crate::ir::Program;
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, params_from_iter, Connection, ErrorCode, OpenFlags};
use seed::{seed_table, SeedTable};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

/// The layout of the file; bump it whenever a table or a meta key changes
/// meaning, so an old reader refuses a new file instead of misreading it.
pub const FORMAT_VERSION: u32 = 1;

/// `PRAGMA application_id`: "WSIT" in ASCII. It marks the file as ours for
/// `file(1)`, and lets the reader tell our `meta` table from someone else's.
pub const APPLICATION_ID: i32 = 0x5753_4954;

/// The first 16 bytes of every SQLite 3 database.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Everything a `.wsb` holds.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub meta: Meta,
    pub program: Program,
    /// The sources the program was built from, so defects can be shown with
    /// snippets without the original files.
    pub sources: Vec<SourceFile>,
    pub tasks: Vec<TaskRecord>,
    pub defects: Vec<DefectRecord>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The `wsitec` version that built the file; [`read`] refuses any other.
    pub compiler_version: String,
    /// [`source_hash`] of the sources. Leave it empty and [`write()`] fills it
    /// in; a non-empty one must equal it.
    pub source_hash: String,
    pub site_name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

/// The prover's result for one task (instance).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRecord {
    pub name: String,
    /// `operation` or `retrieval`.
    pub kind: String,
    pub instruction: String,
    pub horizon: u32,
    /// `feasible`, `infeasible` or `undecided`.
    pub verdict: String,
    /// The witness's actions, by stable key.
    pub witness: Vec<String>,
    pub states_explored: u64,
}

/// One defect, as the defect report has it; span and evidence stay JSON text
/// so this module need not know their shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefectRecord {
    pub code: String,
    pub severity: String,
    pub category: String,
    pub object: String,
    pub message: String,
    pub span_json: String,
    pub evidence_json: String,
}

/// Whether `bytes_prefix` (the start of a file, at least 16 bytes) is an
/// SQLite database, i.e. worth handing to [`read`] rather than the parser.
pub fn looks_like_artifact(bytes_prefix: &[u8]) -> bool {
    bytes_prefix.starts_with(SQLITE_MAGIC)
}

/// The xxh3-128 of the sources, as 32 hex digits. Files are taken in path
/// order, so the hash does not depend on the order a directory was listed
/// in; each path and text is length-prefixed, so moving text from one file to
/// the next changes it.
pub fn source_hash(sources: &[SourceFile]) -> String {
    let mut sorted: Vec<&SourceFile> = sources.iter().collect();
    sorted.sort_by(|a, b| (&a.path, &a.text).cmp(&(&b.path, &b.text)));
    let mut hasher = Xxh3::new();
    for file in sorted {
        for part in [file.path.as_bytes(), file.text.as_bytes()] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
    }
    format!("{:032x}", hasher.digest128())
}

fn ir_hash(blob: &[u8]) -> String {
    format!("{:032x}", xxh3_128(blob))
}

// ---------------------------------------------------------------- writing --

/// Writes `artifact` to `path`, replacing any file there. The file is built
/// under a temporary name next to `path` and renamed over it only once
/// complete, so an error never leaves a half-written file nor destroys the
/// artifact that was there.
pub fn write(artifact: &Artifact, path: &Path) -> Result<(), ArtifactError> {
    let invalid = |why: InvalidArtifact| ArtifactError::Invalid {
        path: path.to_path_buf(),
        why,
    };
    // Everything that can be wrong with the data is found before the disk is
    // touched.
    let plan = Plan::new(artifact).map_err(invalid)?;
    let tmp = temp_path(path).map_err(invalid)?;
    let result = write_file(&plan, &tmp, path).and_then(|()| {
        File::open(&tmp)
            .and_then(|f| f.sync_all())
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| io_error(path, "write", &e))
    });
    if result.is_err() {
        // Best effort: the error being reported matters more than this one.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The artifact turned into the exact rows to store.
struct Plan<'a> {
    artifact: &'a Artifact,
    meta: Vec<(&'static str, String)>,
    ir: Vec<u8>,
    tasks: Vec<[SqlValue; 7]>,
    seeds: Vec<SeedTable>,
}

impl<'a> Plan<'a> {
    fn new(artifact: &'a Artifact) -> Result<Plan<'a>, InvalidArtifact> {
        let program = &artifact.program;
        let ir = serde_json::to_vec(program).map_err(InvalidArtifact::Ir)?;
        let meta = vec![
            ("format_version", FORMAT_VERSION.to_string()),
            ("compiler_version", artifact.meta.compiler_version.clone()),
            ("source_hash", checked_source_hash(artifact)?),
            ("ir_hash", ir_hash(&ir)),
            ("site_name", artifact.meta.site_name.clone()),
            ("site_domain", program.site.domain.clone()),
        ];
        let tasks = artifact
            .tasks
            .iter()
            .map(task_row)
            .collect::<Result<_, _>>()?;
        let seeds = program
            .tables
            .iter()
            .map(|table| seed_table(program, table))
            .collect::<Result<_, _>>()?;
        Ok(Plan {
            artifact,
            meta,
            ir,
            tasks,
            seeds,
        })
    }
}

fn checked_source_hash(artifact: &Artifact) -> Result<String, InvalidArtifact> {
    let computed = source_hash(&artifact.sources);
    let given = &artifact.meta.source_hash;
    if given.is_empty() || *given == computed {
        Ok(computed)
    } else {
        Err(InvalidArtifact::SourceHash {
            given: given.clone(),
            computed,
        })
    }
}

fn task_row(task: &TaskRecord) -> Result<[SqlValue; 7], InvalidArtifact> {
    let witness =
        serde_json::to_string(&task.witness).map_err(|error| InvalidArtifact::Witness {
            task: task.name.clone(),
            error,
        })?;
    let states = i64::try_from(task.states_explored).map_err(|_| InvalidArtifact::States {
        task: task.name.clone(),
        states: task.states_explored,
    })?;
    Ok([
        SqlValue::Text(task.name.clone()),
        SqlValue::Text(task.kind.clone()),
        SqlValue::Text(task.instruction.clone()),
        SqlValue::Integer(i64::from(task.horizon)),
        SqlValue::Text(task.verdict.clone()),
        SqlValue::Text(witness),
        SqlValue::Integer(states),
    ])
}

/// A temporary name in `path`'s folder (so the rename cannot cross file
/// systems), unique to this process and call so concurrent writes don't
/// collide.
fn temp_path(path: &Path) -> Result<PathBuf, InvalidArtifact> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or(InvalidArtifact::NoFileName)?;
    let mut tmp = OsString::from(".");
    tmp.push(name);
    tmp.push(format!(
        ".{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    Ok(path.with_file_name(tmp))
}

/// The pragmas that pin the file's bytes: page size, vacuum mode and encoding
/// are set rather than left to the library's defaults. The journal lives in memory (no
/// `-journal` file appears; a failed write is thrown away whole anyway),
/// syncing is ours to do once at the end, and foreign keys are not enforced
/// while writing because seed rows may refer to rows inserted after them.
const PRAGMAS: &str = "PRAGMA page_size = 4096;
PRAGMA auto_vacuum = NONE;
PRAGMA encoding = 'UTF-8';
PRAGMA journal_mode = MEMORY;
PRAGMA synchronous = OFF;
PRAGMA foreign_keys = OFF;";

/// The fixed tables; `seed_<Table>` ones are added per site.
const SCHEMA: &str = "CREATE TABLE meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ir (blob BLOB NOT NULL);
CREATE TABLE source (path TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE task (
    name TEXT NOT NULL PRIMARY KEY,
    kind TEXT NOT NULL,
    instruction TEXT NOT NULL,
    horizon INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    witness_json TEXT NOT NULL,
    states_explored INTEGER NOT NULL
);
CREATE TABLE defect (
    code TEXT NOT NULL,
    severity TEXT NOT NULL,
    category TEXT NOT NULL,
    object TEXT NOT NULL,
    message TEXT NOT NULL,
    span_json TEXT NOT NULL,
    evidence_json TEXT NOT NULL
);";

fn write_file(plan: &Plan<'_>, tmp: &Path, target: &Path) -> Result<(), ArtifactError> {
    // Creating the file ourselves gives the file system's own error message
    // (a missing folder, no permission) rather than SQLite's generic one.
    File::create(tmp).map_err(|e| io_error(target, "write", &e))?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn =
        Connection::open_with_flags(sqlite_path(tmp), flags).map_err(|e| write_error(target, e))?;
    fill(&mut conn, plan).map_err(|e| write_error(target, e))?;
    conn.close().map_err(|(_, e)| write_error(target, e))
}

/// Everything goes in one transaction: one commit, one final layout.
fn fill(conn: &mut Connection, plan: &Plan<'_>) -> rusqlite::Result<()> {
    conn.execute_batch(PRAGMAS)?;
    conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    let tx = conn.transaction()?;
    tx.execute_batch(SCHEMA)?;
    for (key, value) in &plan.meta {
        tx.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)",
            params![key, value],
        )?;
    }
    tx.execute("INSERT INTO ir (blob) VALUES (?1)", params![plan.ir])?;
    for file in &plan.artifact.sources {
        tx.execute(
            "INSERT INTO source (path, text) VALUES (?1, ?2)",
            params![file.path, file.text],
        )?;
    }
    for row in &plan.tasks {
        tx.execute(
            "INSERT INTO task VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params_from_iter(row),
        )?;
    }
    for d in &plan.artifact.defects {
        tx.execute(
            "INSERT INTO defect VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                d.code,
                d.severity,
                d.category,
                d.object,
                d.message,
                d.span_json,
                d.evidence_json
            ],
        )?;
    }
    for seed in &plan.seeds {
        tx.execute_batch(&seed.create)?;
        let mut insert = tx.prepare(&seed.insert)?;
        for row in &seed.rows {
            insert.execute(params_from_iter(row))?;
        }
    }
    tx.commit()
}

/// SQLite failures while writing: the disk's fault is `Io`, anything else
/// (a constraint, a clashing column name) means the data was wrong.
fn write_error(path: &Path, e: rusqlite::Error) -> ArtifactError {
    let path = path.to_path_buf();
    match e.sqlite_error_code() {
        Some(
            ErrorCode::SystemIoFailure
            | ErrorCode::DiskFull
            | ErrorCode::CannotOpen
            | ErrorCode::PermissionDenied
            | ErrorCode::ReadOnly,
        ) => ArtifactError::Io {
            path,
            action: "write",
            why: e.to_string(),
        },
        _ => ArtifactError::Invalid {
            path,
            why: InvalidArtifact::Sqlite(e),
        },
    }
}

fn io_error(path: &Path, action: &'static str, e: &std::io::Error) -> ArtifactError {
    ArtifactError::Io {
        path: path.to_path_buf(),
        action,
        why: e.to_string().to_lowercase(),
    }
}

/// The bundled SQLite is built with URI filenames on, so a relative path that
/// happens to start with `file:` would be parsed as a URI; `./` keeps it a
/// plain name.
fn sqlite_path(path: &Path) -> PathBuf {
    if path.as_os_str().as_encoded_bytes().starts_with(b"file:") {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    }
}

// ---------------------------------------------------------------- reading --

/// Reads the artifact at `path`, refusing one built by any compiler version
/// but `expected_compiler_version`. The file is opened read-only and is never
/// modified.
pub fn read(path: &Path, expected_compiler_version: &str) -> Result<Artifact, ArtifactError> {
    check_header(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn =
        Connection::open_with_flags(sqlite_path(path), flags).map_err(|e| read_error(path, e))?;
    let meta = read_meta(&conn, path)?;
    check_versions(&conn, path, &meta, expected_compiler_version)?;
    // Only now, for a file that claims to be ours: a foreign or stale file
    // deserves that answer, not a slow scan of its pages.
    quick_check(&conn, path)?;
    let corrupted = |why: String| ArtifactError::Corrupted {
        path: path.to_path_buf(),
        why,
    };
    let required = |key: &str| {
        meta.get(key)
            .cloned()
            .ok_or_else(|| corrupted(format!("`meta` has no `{key}`")))
    };
    let meta_out = Meta {
        compiler_version: required("compiler_version")?,
        source_hash: required("source_hash")?,
        site_name: required("site_name")?,
    };
    let program = read_program(&conn, path, &required("ir_hash")?)?;
    let sources = read_sources(&conn, path)?;
    if source_hash(&sources) != meta_out.source_hash {
        return Err(corrupted("the sources do not match their hash".into()));
    }
    Ok(Artifact {
        meta: meta_out,
        program,
        sources,
        tasks: read_tasks(&conn, path)?,
        defects: read_defects(&conn, path)?,
    })
}

/// Looks at the raw header before SQLite does: to tell "not SQLite at all"
/// from "damaged SQLite", and to catch a truncated file, which SQLite would
/// otherwise read as zero-filled pages.
fn check_header(path: &Path) -> Result<(), ArtifactError> {
    let file = File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ArtifactError::Missing {
            path: path.to_path_buf(),
        },
        _ => io_error(path, "read", &e),
    })?;
    let len = file
        .metadata()
        .map_err(|e| io_error(path, "read", &e))?
        .len();
    let mut header = Vec::with_capacity(100);
    file.take(100)
        .read_to_end(&mut header)
        .map_err(|e| io_error(path, "read", &e))?;
    if !looks_like_artifact(&header) {
        return Err(ArtifactError::NotSqlite {
            path: path.to_path_buf(),
        });
    }
    if header.len() < 100 {
        return Err(ArtifactError::Corrupted {
            path: path.to_path_buf(),
            why: format!("truncated: {len} bytes, not even a whole header"),
        });
    }
    match promised_size(&header) {
        Some(expected) if len < expected => Err(ArtifactError::Corrupted {
            path: path.to_path_buf(),
            why: format!("truncated: {len} bytes where the header promises {expected}"),
        }),
        _ => Ok(()),
    }
}

/// The file size a full 100-byte header promises (page size × page count),
/// or `None` where the count is not valid and SQLite goes by the file's size.
fn promised_size(header: &[u8]) -> Option<u64> {
    let be32 = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(header.get(at..at + 4)?.try_into().ok()?))
    };
    let raw_page = u16::from_be_bytes(header.get(16..18)?.try_into().ok()?);
    // The page size 65536 does not fit in two bytes and is stored as 1.
    let page = if raw_page == 1 {
        65536
    } else {
        u64::from(raw_page)
    };
    let (changes, pages, valid_for) = (be32(24)?, be32(28)?, be32(92)?);
    // SQLite only trusts the count when the same change wrote both numbers.
    let valid = pages != 0 && changes == valid_for;
    valid.then(|| page * u64::from(pages))
}

/// SQLite failures while reading. Once the header looked like SQLite, a
/// failure to make sense of it is damage, not a foreign file.
fn read_error(path: &Path, e: rusqlite::Error) -> ArtifactError {
    let path = path.to_path_buf();
    match e.sqlite_error_code() {
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => ArtifactError::Io {
            path,
            action: "read",
            why: e.to_string(),
        },
        _ => ArtifactError::Corrupted {
            path,
            why: e.to_string(),
        },
    }
}

fn read_meta(conn: &Connection, path: &Path) -> Result<BTreeMap<String, String>, ArtifactError> {
    let foreign = |why: String| ArtifactError::Foreign {
        path: path.to_path_buf(),
        why,
    };
    let has_meta: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta')",
            [],
            |row| row.get(0),
        )
        .map_err(|e| read_error(path, e))?;
    if !has_meta {
        return Err(foreign("no `meta` table".into()));
    }
    let rows = query_all(conn, "SELECT key, value FROM meta", |row| {
        Ok((row.get(0)?, row.get(1)?))
    });
    match rows {
        Ok(rows) => Ok(rows.into_iter().collect()),
        Err(e) if is_damage(&e) => Err(read_error(path, e)),
        // A `meta` table of another shape (other columns, numbers for text).
        Err(e) => Err(foreign(format!("its `meta` table is not wsite's ({e})"))),
    }
}

fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// Foreign, then format, then compiler version: each question only makes
/// sense once the one before it has been answered.
fn check_versions(
    conn: &Connection,
    path: &Path,
    meta: &BTreeMap<String, String>,
    expected_compiler_version: &str,
) -> Result<(), ArtifactError> {
    let path_buf = path.to_path_buf();
    let Some(format) = meta.get("format_version") else {
        return Err(ArtifactError::Foreign {
            path: path_buf,
            why: "its `meta` table has no `format_version`".into(),
        });
    };
    let app_id: i32 = conn
        .query_row("PRAGMA application_id", [], |row| row.get(0))
        .map_err(|e| read_error(path, e))?;
    if app_id != APPLICATION_ID {
        return Err(ArtifactError::Foreign {
            path: path_buf,
            why: format!("application id {app_id:#x}, not wsite's {APPLICATION_ID:#x}"),
        });
    }
    if *format != FORMAT_VERSION.to_string() {
        return Err(ArtifactError::FormatVersion {
            path: path_buf,
            found: format.clone(),
            expected: FORMAT_VERSION,
        });
    }
    match meta.get("compiler_version") {
        None => Err(ArtifactError::Corrupted {
            path: path_buf,
            why: "`meta` has no `compiler_version`".into(),
        }),
        Some(built_by) if built_by != expected_compiler_version => Err(ArtifactError::Stale {
            path: path_buf,
            built_by: built_by.clone(),
            current: expected_compiler_version.to_string(),
        }),
        Some(_) => Ok(()),
    }
}

/// SQLite's own structural check (every page reachable, every b-tree sane):
/// it catches bytes overwritten anywhere the hashes don't cover.
fn quick_check(conn: &Connection, path: &Path) -> Result<(), ArtifactError> {
    let verdict: String = conn
        .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
        .map_err(|e| read_error(path, e))?;
    if verdict == "ok" {
        Ok(())
    } else {
        Err(ArtifactError::Corrupted {
            path: path.to_path_buf(),
            why: format!(
                "sqlite integrity check: {}",
                // Drop the banner naming the schema; keep the one-line finding.
                verdict
                    .replace("*** in database main ***\n", "")
                    .to_lowercase()
            ),
        })
    }
}

fn query_all<T>(
    conn: &Connection,
    sql: &str,
    f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], f)?;
    rows.collect()
}

fn read_program(
    conn: &Connection,
    path: &Path,
    expected_hash: &str,
) -> Result<Program, ArtifactError> {
    let corrupted = |why: String| ArtifactError::Corrupted {
        path: path.to_path_buf(),
        why,
    };
    let blobs: Vec<Vec<u8>> = query_all(conn, "SELECT blob FROM ir", |row| row.get(0))
        .map_err(|e| read_error(path, e))?;
    let [blob] = blobs.as_slice() else {
        return Err(corrupted(format!(
            "{} IR rows where there should be one",
            blobs.len()
        )));
    };
    if ir_hash(blob) != expected_hash {
        return Err(corrupted("the IR does not match its hash".into()));
    }
    serde_json::from_slice(blob).map_err(|e| corrupted(format!("the IR does not deserialize: {e}")))
}

fn read_sources(conn: &Connection, path: &Path) -> Result<Vec<SourceFile>, ArtifactError> {
    query_all(
        conn,
        "SELECT path, text FROM source ORDER BY rowid",
        |row| {
            Ok(SourceFile {
                path: row.get(0)?,
                text: row.get(1)?,
            })
        },
    )
    .map_err(|e| read_error(path, e))
}

fn read_tasks(conn: &Connection, path: &Path) -> Result<Vec<TaskRecord>, ArtifactError> {
    let sql = "SELECT name, kind, instruction, horizon, verdict, witness_json, states_explored
               FROM task ORDER BY rowid";
    // The witness is parsed after the query, where its error can say which
    // task it belongs to.
    let rows = query_all(conn, sql, |row| {
        let task = TaskRecord {
            name: row.get(0)?,
            kind: row.get(1)?,
            instruction: row.get(2)?,
            horizon: row.get(3)?,
            verdict: row.get(4)?,
            witness: Vec::new(),
            states_explored: {
                let n: i64 = row.get(6)?;
                u64::try_from(n).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(6, n))?
            },
        };
        Ok((task, row.get::<_, String>(5)?))
    })
    .map_err(|e| read_error(path, e))?;
    rows.into_iter()
        .map(|(mut task, witness)| {
            task.witness =
                serde_json::from_str(&witness).map_err(|e| ArtifactError::Corrupted {
                    path: path.to_path_buf(),
                    why: format!(
                        "the witness of task `{}` is not a list of actions: {e}",
                        task.name
                    ),
                })?;
            Ok(task)
        })
        .collect()
}

fn read_defects(conn: &Connection, path: &Path) -> Result<Vec<DefectRecord>, ArtifactError> {
    let sql = "SELECT code, severity, category, object, message, span_json, evidence_json
               FROM defect ORDER BY rowid";
    query_all(conn, sql, |row| {
        Ok(DefectRecord {
            code: row.get(0)?,
            severity: row.get(1)?,
            category: row.get(2)?,
            object: row.get(3)?,
            message: row.get(4)?,
            span_json: row.get(5)?,
            evidence_json: row.get(6)?,
        })
    })
    .map_err(|e| read_error(path, e))
}

#[cfg(test)]
mod tests;
