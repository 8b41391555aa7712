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

use crate::ir::{Program, TableDef, Ty, Value};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, params_from_iter, Connection, ErrorCode, OpenFlags};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
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

/// Why an artifact could not be written or read. Each message names the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArtifactError {
    /// There is no file at the path.
    Missing { path: PathBuf },
    /// The file system refused (permissions, a missing folder, a full disk).
    Io {
        path: PathBuf,
        /// `read` or `write`.
        action: &'static str,
        why: String,
    },
    /// The artifact given to [`write()`] cannot be stored as it is (a seed value
    /// of the wrong type, a duplicate task name, a wrong source hash).
    Invalid { path: PathBuf, why: String },
    /// The file is not an SQLite database at all.
    NotSqlite { path: PathBuf },
    /// An SQLite database, but not one that wsite wrote.
    Foreign { path: PathBuf, why: String },
    /// A wsite artifact in a layout this build does not read.
    FormatVersion {
        path: PathBuf,
        found: String,
        expected: u32,
    },
    /// Built by another version of the compiler.
    Stale {
        path: PathBuf,
        built_by: String,
        current: String,
    },
    /// Damaged: truncated, bytes overwritten, rows missing or altered.
    Corrupted { path: PathBuf, why: String },
}

impl fmt::Display for ArtifactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const REBUILD: &str = "rebuild it with `wsitec build`";
        match self {
            ArtifactError::Missing { path } => {
                write!(f, "`{}` does not exist", path.display())
            }
            ArtifactError::Io { path, action, why } => {
                write!(f, "cannot {action} `{}`: {why}", path.display())
            }
            ArtifactError::Invalid { path, why } => {
                write!(f, "cannot write `{}`: {why}", path.display())
            }
            ArtifactError::NotSqlite { path } => write!(
                f,
                "`{}` is not a wsite artifact (not an SQLite database)",
                path.display()
            ),
            ArtifactError::Foreign { path, why } => write!(
                f,
                "`{}` is not a wsite artifact (foreign SQLite file: {why})",
                path.display()
            ),
            ArtifactError::FormatVersion {
                path,
                found,
                expected,
            } => write!(
                f,
                "`{}` has artifact format {found}, this wsitec reads format {expected}; {REBUILD}",
                path.display()
            ),
            ArtifactError::Stale {
                path,
                built_by,
                current,
            } => write!(
                f,
                "`{}` is a stale artifact: built by wsitec {built_by}, this is wsitec {current}; {REBUILD}",
                path.display()
            ),
            ArtifactError::Corrupted { path, why } => write!(
                f,
                "`{}` is a corrupted artifact ({why}); {REBUILD}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ArtifactError {}

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
    let invalid = |why: String| ArtifactError::Invalid {
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

/// One `seed_<Table>`: its DDL, its INSERT and its rows (id first).
struct SeedTable {
    create: String,
    insert: String,
    rows: Vec<Vec<SqlValue>>,
}

impl<'a> Plan<'a> {
    fn new(artifact: &'a Artifact) -> Result<Plan<'a>, String> {
        let program = &artifact.program;
        let ir =
            serde_json::to_vec(program).map_err(|e| format!("the IR does not serialize: {e}"))?;
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

fn checked_source_hash(artifact: &Artifact) -> Result<String, String> {
    let computed = source_hash(&artifact.sources);
    let given = &artifact.meta.source_hash;
    if given.is_empty() || *given == computed {
        Ok(computed)
    } else {
        Err(format!(
            "the source hash {given} does not match the sources (their hash is {computed})"
        ))
    }
}

fn task_row(task: &TaskRecord) -> Result<[SqlValue; 7], String> {
    let witness = serde_json::to_string(&task.witness)
        .map_err(|e| format!("task `{}`: the witness does not serialize: {e}", task.name))?;
    let states = i64::try_from(task.states_explored).map_err(|_| {
        format!(
            "task `{}`: {} states explored does not fit in SQLite",
            task.name, task.states_explored
        )
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
fn temp_path(path: &Path) -> Result<PathBuf, String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .ok_or_else(|| "the path does not name a file".to_string())?;
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
            why: e.to_string(),
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

// ------------------------------------------------------------ seed tables --

/// `"name"`, with quotes doubled: site names are identifiers, but a quoted
/// name can never collide with an SQL keyword.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn seed_name(table: &str) -> String {
    ident(&format!("seed_{table}"))
}

fn seed_table(program: &Program, table: &TableDef) -> Result<SeedTable, String> {
    let mut columns = vec![ident("id")];
    let mut defs = vec![format!("{} INTEGER PRIMARY KEY", ident("id"))];
    for field in &table.fields {
        let (name, def) = column(program, &field.name, &field.ty)
            .map_err(|why| format!("table `{}`, field `{}`: {why}", table.name, field.name))?;
        defs.push(format!("{name} {def}"));
        columns.push(name);
    }
    let rows = table
        .seed
        .iter()
        .map(|row| seed_row(program, table, row))
        .collect::<Result<_, _>>()?;
    let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    Ok(SeedTable {
        create: format!(
            "CREATE TABLE {} (\n    {}\n);",
            seed_name(&table.name),
            defs.join(",\n    ")
        ),
        insert: format!(
            "INSERT INTO {} ({}) VALUES ({})",
            seed_name(&table.name),
            columns.join(", "),
            placeholders.join(", ")
        ),
        rows,
    })
}

/// A field's quoted column name and its declaration: the SQL type, `NOT NULL`
/// unless optional, and a `CHECK` or `REFERENCES` where the type has one.
fn column(program: &Program, field: &str, ty: &Ty) -> Result<(String, String), String> {
    let (ty, optional) = match ty {
        Ty::Optional(inner) => (strip_optional(inner), true),
        other => (other, false),
    };
    let plain = ident(field);
    let null = if optional { "" } else { " NOT NULL" };
    Ok(match ty {
        Ty::Int => (plain, format!("INTEGER{null}")),
        Ty::Money => (ident(&format!("{field}_cents")), format!("INTEGER{null}")),
        Ty::Bool => {
            let check = format!(" CHECK ({plain} IN (0, 1))");
            (plain, format!("INTEGER{null}{check}"))
        }
        Ty::Text | Ty::Date | Ty::Time => (plain, format!("TEXT{null}")),
        Ty::Enum(id) => {
            let variants = &enum_def(program, *id)?.variants;
            let list: Vec<String> = variants.iter().map(|v| literal(v)).collect();
            let check = format!(" CHECK ({plain} IN ({}))", list.join(", "));
            (plain, format!("TEXT{null}{check}"))
        }
        Ty::Row(id) => {
            let target = table_def(program, *id)?;
            let reference = format!(" REFERENCES {}({})", seed_name(&target.name), ident("id"));
            (plain, format!("INTEGER{null}{reference}"))
        }
        Ty::Optional(_) => return Err("a nested optional type".into()),
    })
}

fn strip_optional(ty: &Ty) -> &Ty {
    match ty {
        Ty::Optional(inner) => strip_optional(inner),
        other => other,
    }
}

fn enum_def(program: &Program, id: u32) -> Result<&crate::ir::EnumDef, String> {
    program
        .enums
        .get(id as usize)
        .ok_or_else(|| format!("enum #{id} does not exist"))
}

fn table_def(program: &Program, id: u32) -> Result<&TableDef, String> {
    program
        .tables
        .get(id as usize)
        .ok_or_else(|| format!("table #{id} does not exist"))
}

fn seed_row(
    program: &Program,
    table: &TableDef,
    row: &crate::ir::RowData,
) -> Result<Vec<SqlValue>, String> {
    let at = |why: String| format!("table `{}`, seed row {}: {why}", table.name, row.id);
    if row.values.len() != table.fields.len() {
        return Err(at(format!(
            "{} values for {} fields",
            row.values.len(),
            table.fields.len()
        )));
    }
    let mut out = vec![SqlValue::Integer(row.id)];
    for (field, value) in table.fields.iter().zip(&row.values) {
        let v = seed_value(program, &field.ty, value)
            .map_err(|why| at(format!("field `{}`: {why}", field.name)))?;
        out.push(v);
    }
    Ok(out)
}

/// A seed value as its column stores it. The value must fit the field's
/// type: SQLite itself would accept text in an INTEGER column.
fn seed_value(program: &Program, ty: &Ty, value: &Value) -> Result<SqlValue, String> {
    Ok(match (ty, value) {
        (Ty::Optional(_), Value::None) => SqlValue::Null,
        (Ty::Optional(inner), v) => return seed_value(program, inner, v),
        (Ty::Int, Value::Int(n)) | (Ty::Money, Value::Money(n)) | (Ty::Row(_), Value::Row(n)) => {
            SqlValue::Integer(*n)
        }
        (Ty::Bool, Value::Bool(b)) => SqlValue::Integer(i64::from(*b)),
        (Ty::Text, Value::Text(s)) => SqlValue::Text(s.to_string()),
        (Ty::Date, Value::Date(d)) => SqlValue::Text(d.to_string()),
        (Ty::Time, Value::Time(t)) => SqlValue::Text(t.to_string()),
        (Ty::Enum(id), Value::Enum(i)) => {
            let def = enum_def(program, *id)?;
            let name = def
                .variants
                .get(*i as usize)
                .ok_or_else(|| format!("`{}` has no variant #{i}", def.name))?;
            SqlValue::Text(name.clone())
        }
        (ty, value) => return Err(format!("{value:?} is not a value of type {ty:?}")),
    })
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
mod tests {
    use super::*;
    use crate::interp::fixture;
    use crate::ir::{FieldDef, RowData};
    use crate::value::{Date, Time};

    /// A fresh folder per test, removed when the test ends.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(test: &str) -> TempDir {
            let dir =
                std::env::temp_dir().join(format!("wsite-artifact-{}-{test}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        fn join(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }

        fn entries(&self) -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(&self.0)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// The interpreter's fixture plus a table with the types it lacks (bool,
    /// time, optional text and money).
    fn program() -> Program {
        let mut program = fixture::program();
        let field = |name: &str, ty: Ty| FieldDef {
            name: name.into(),
            ty,
        };
        let opt = |ty: Ty| Ty::Optional(Box::new(ty));
        program.tables.push(TableDef {
            name: "Slot".into(),
            fields: vec![
                field("open", Ty::Bool),
                field("at", Ty::Time),
                field("note", opt(Ty::Text)),
                field("day", Ty::Date),
                field("fee", opt(Ty::Money)),
            ],
            capacity: 64,
            seed: vec![
                RowData {
                    id: 1,
                    values: vec![
                        Value::Bool(true),
                        Value::Time(Time::parse_body("9:30").unwrap()),
                        Value::Text("it's \"quoted\"".into()),
                        Value::Date(Date::parse_body("2026-12-01").unwrap()),
                        Value::Money(250),
                    ],
                },
                RowData {
                    id: 2,
                    values: vec![
                        Value::Bool(false),
                        Value::Time(Time::parse_body("14:00").unwrap()),
                        Value::None,
                        Value::Date(Date::parse_body("2026-12-02").unwrap()),
                        Value::None,
                    ],
                },
            ],
        });
        program
    }

    fn artifact(compiler_version: &str) -> Artifact {
        let sources = vec![
            SourceFile {
                path: "shop/site.wsite".into(),
                text: "site Shop {\n  title \"Acme\"\n}\n".into(),
            },
            SourceFile {
                path: "shop/pages.wsite".into(),
                text: "page Home { heading \"Hi\" }\n".into(),
            },
        ];
        Artifact {
            meta: Meta {
                compiler_version: compiler_version.into(),
                source_hash: source_hash(&sources),
                site_name: "Shop".into(),
            },
            program: program(),
            sources,
            tasks: vec![
                TaskRecord {
                    name: "buy_laptop".into(),
                    kind: "operation".into(),
                    instruction: "Buy the ThinkPad X1.".into(),
                    horizon: 12,
                    verdict: "feasible".into(),
                    witness: vec!["Home:3:5".into(), "Product[p=42]:#buy".into()],
                    states_explored: 1234,
                },
                TaskRecord {
                    name: "opening_hours[c=3]".into(),
                    kind: "retrieval".into(),
                    instruction: "When do you open?".into(),
                    horizon: 4,
                    verdict: "undecided".into(),
                    witness: vec![],
                    states_explored: 0,
                },
            ],
            defects: vec![DefectRecord {
                code: "W0102".into(),
                severity: "warning".into(),
                category: "reachability".into(),
                object: "page Orphan".into(),
                message: "`Orphan` is not reachable".into(),
                span_json: r#"{"file":"shop/pages.wsite","line":1}"#.into(),
                evidence_json: "{}".into(),
            }],
        }
    }

    /// A good artifact built by wsitec 0.1.0 at `dir/site.wsb`.
    fn built(dir: &TempDir) -> PathBuf {
        let path = dir.join("site.wsb");
        write(&artifact("0.1.0"), &path).unwrap();
        path
    }

    fn sql(path: &Path, statements: &str) {
        Connection::open(path)
            .unwrap()
            .execute_batch(statements)
            .unwrap();
    }

    fn assert_same(a: &Artifact, b: &Artifact) {
        assert_eq!(a.meta, b.meta);
        assert_eq!(
            serde_json::to_string(&a.program).unwrap(),
            serde_json::to_string(&b.program).unwrap()
        );
        assert_eq!(a.sources, b.sources);
        assert_eq!(a.tasks, b.tasks);
        assert_eq!(a.defects, b.defects);
    }

    fn read_err(path: &Path) -> ArtifactError {
        read(path, "0.1.0").unwrap_err()
    }

    #[test]
    fn round_trips() {
        let dir = TempDir::new("round_trips");
        let path = built(&dir);
        let back = read(&path, "0.1.0").unwrap();
        assert_same(&artifact("0.1.0"), &back);
    }

    #[test]
    fn fills_an_empty_source_hash_and_refuses_a_wrong_one() {
        let dir = TempDir::new("source_hash_fill");
        let mut a = artifact("0.1.0");
        let expected = a.meta.source_hash.clone();
        a.meta.source_hash.clear();
        let path = dir.join("site.wsb");
        write(&a, &path).unwrap();
        assert_eq!(read(&path, "0.1.0").unwrap().meta.source_hash, expected);

        a.meta.source_hash = "0".repeat(32);
        let err = write(&a, &dir.join("other.wsb")).unwrap_err();
        assert!(matches!(err, ArtifactError::Invalid { .. }), "{err}");
    }

    #[test]
    fn is_reproducible_byte_for_byte() {
        let dir = TempDir::new("reproducible");
        let (one, two) = (dir.join("one.wsb"), dir.join("two.wsb"));
        write(&artifact("0.1.0"), &one).unwrap();
        write(&artifact("0.1.0"), &two).unwrap();
        let bytes = std::fs::read(&one).unwrap();
        assert_eq!(bytes, std::fs::read(&two).unwrap());
        // Overwriting an existing artifact gives the same bytes again.
        write(&artifact("0.1.0"), &one).unwrap();
        assert_eq!(bytes, std::fs::read(&one).unwrap());
        assert_eq!(bytes.len() % 4096, 0);
        assert_eq!(dir.entries(), ["one.wsb", "two.wsb"]);
    }

    /// `open, at, note, day, fee_cents` of a `seed_Slot` row.
    type SlotRow = (i64, String, Option<String>, String, Option<i64>);

    #[test]
    fn seed_tables_have_real_column_types() {
        let dir = TempDir::new("seed_tables");
        let path = built(&dir);
        let conn = Connection::open(&path).unwrap();
        let product: Vec<(String, i64, String, Option<String>, String)> = query_all(
            &conn,
            "SELECT name, price_cents, typeof(price_cents), restock, status
             FROM seed_Product ORDER BY id",
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
        assert_eq!(
            product[1],
            (
                "Logi M185".into(),
                1499,
                "integer".into(),
                Some("2026-12-10".into()),
                "confirmed".into()
            )
        );
        assert_eq!(product[0].3, None);
        let slot: Vec<SlotRow> = query_all(
            &conn,
            "SELECT open, at, note, day, fee_cents FROM seed_Slot ORDER BY id",
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
        assert_eq!(
            slot,
            [
                (
                    1,
                    "09:30".into(),
                    Some("it's \"quoted\"".into()),
                    "2026-12-01".into(),
                    Some(250)
                ),
                (0, "14:00".into(), None, "2026-12-02".into(), None),
            ]
        );
        // Declared types, nullability and references are what a client sees.
        let columns: Vec<(String, String, bool)> = query_all(
            &conn,
            "SELECT name, type, \"notnull\" FROM pragma_table_info('seed_Line')",
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
        assert_eq!(
            columns,
            [
                ("id".into(), "INTEGER".into(), false),
                ("product".into(), "INTEGER".into(), true),
                ("qty".into(), "INTEGER".into(), true),
            ]
        );
        let broken: Vec<String> =
            query_all(&conn, "PRAGMA foreign_key_check", |r| r.get(0)).unwrap();
        assert!(broken.is_empty(), "{broken:?}");
        // The CHECKs hold: an unknown variant or a bool of 2 is refused.
        assert!(conn
            .execute("UPDATE seed_Product SET status = 'lost' WHERE id = 42", [])
            .is_err());
        assert!(conn
            .execute("UPDATE seed_Slot SET open = 2 WHERE id = 1", [])
            .is_err());
    }

    #[test]
    fn reading_leaves_the_file_untouched() {
        let dir = TempDir::new("read_only");
        let path = built(&dir);
        let before = std::fs::read(&path).unwrap();
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        read(&path, "0.1.0").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            modified
        );
        assert_eq!(dir.entries(), ["site.wsb"]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_artifact() {
        let dir = TempDir::new("failed_write");
        let path = built(&dir);
        let before = std::fs::read(&path).unwrap();

        // Caught before the disk is touched: a seed value of the wrong type.
        let mut bad = artifact("0.2.0");
        bad.program.tables[0].seed[0].values[1] = Value::Text("free".into());
        let err = write(&bad, &path).unwrap_err();
        assert!(matches!(err, ArtifactError::Invalid { .. }), "{err}");
        assert!(err.to_string().contains("Product"), "{err}");

        // Caught by SQLite halfway through the write: a duplicate task name.
        let mut bad = artifact("0.2.0");
        bad.tasks.push(bad.tasks[0].clone());
        let err = write(&bad, &path).unwrap_err();
        assert!(matches!(err, ArtifactError::Invalid { .. }), "{err}");

        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(dir.entries(), ["site.wsb"]);
        assert_eq!(read(&path, "0.1.0").unwrap().meta.compiler_version, "0.1.0");
    }

    #[test]
    fn writing_into_a_missing_folder_is_an_io_error() {
        let dir = TempDir::new("missing_folder");
        let err = write(&artifact("0.1.0"), &dir.join("nope/site.wsb")).unwrap_err();
        assert!(
            matches!(
                err,
                ArtifactError::Io {
                    action: "write",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("nope/site.wsb"), "{err}");
    }

    #[test]
    fn a_missing_file_is_missing() {
        let dir = TempDir::new("missing");
        let err = read_err(&dir.join("nope.wsb"));
        assert!(matches!(err, ArtifactError::Missing { .. }), "{err}");
        assert!(
            err.to_string().contains("nope.wsb` does not exist"),
            "{err}"
        );
    }

    #[test]
    fn random_bytes_are_not_sqlite() {
        let dir = TempDir::new("random");
        let path = dir.join("x.wsb");
        // A fixed linear congruential sequence: random-looking, reproducible.
        let mut state: u32 = 12345;
        let bytes: Vec<u8> = (0..10_000)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (state >> 16) as u8
            })
            .collect();
        std::fs::write(&path, bytes).unwrap();
        let err = read_err(&path);
        assert!(matches!(err, ArtifactError::NotSqlite { .. }), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "`{}` is not a wsite artifact (not an SQLite database)",
                path.display()
            )
        );
        std::fs::write(&path, b"").unwrap();
        assert!(matches!(read_err(&path), ArtifactError::NotSqlite { .. }));
        std::fs::write(&path, b"site Shop {}\n").unwrap();
        assert!(matches!(read_err(&path), ArtifactError::NotSqlite { .. }));
    }

    #[test]
    fn a_foreign_sqlite_file_is_foreign() {
        let dir = TempDir::new("foreign");
        let path = dir.join("x.wsb");
        sql(
            &path,
            "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ann');",
        );
        let err = read_err(&path);
        assert!(matches!(err, ArtifactError::Foreign { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("foreign SQLite file: no `meta` table"),
            "{err}"
        );

        // A `meta` table of another shape.
        let other = dir.join("y.wsb");
        sql(&other, "CREATE TABLE meta (a, b);");
        assert!(matches!(read_err(&other), ArtifactError::Foreign { .. }));

        // The right shape but not written by us.
        let lookalike = dir.join("z.wsb");
        sql(
            &lookalike,
            "CREATE TABLE meta (key TEXT, value TEXT);
             INSERT INTO meta VALUES ('format_version', '1');",
        );
        let err = read_err(&lookalike);
        assert!(matches!(err, ArtifactError::Foreign { .. }), "{err}");
        assert!(err.to_string().contains("application id"), "{err}");
    }

    #[test]
    fn another_format_version_is_refused() {
        let dir = TempDir::new("format_version");
        let path = built(&dir);
        sql(
            &path,
            "UPDATE meta SET value = '2' WHERE key = 'format_version'",
        );
        let err = read_err(&path);
        assert_eq!(
            err,
            ArtifactError::FormatVersion {
                path: path.clone(),
                found: "2".into(),
                expected: FORMAT_VERSION
            }
        );
        assert!(err.to_string().contains("rebuild it with `wsitec build`"));
    }

    #[test]
    fn another_compiler_version_is_stale() {
        let dir = TempDir::new("stale");
        let path = dir.join("site.wsb");
        write(&artifact("0.0.9"), &path).unwrap();
        let err = read(&path, "0.1.0").unwrap_err();
        assert!(matches!(err, ArtifactError::Stale { .. }), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "`{}` is a stale artifact: built by wsitec 0.0.9, this is wsitec 0.1.0; \
                 rebuild it with `wsitec build`",
                path.display()
            )
        );
    }

    fn assert_corrupted(path: &Path, says: &str) {
        let err = read_err(path);
        assert!(matches!(err, ArtifactError::Corrupted { .. }), "{err}");
        assert!(err.to_string().contains(says), "{err}");
    }

    #[test]
    fn a_wrong_ir_hash_is_corruption() {
        let dir = TempDir::new("ir_hash");
        let path = built(&dir);
        sql(
            &path,
            "UPDATE meta SET value = '00000000' WHERE key = 'ir_hash'",
        );
        assert_corrupted(&path, "the IR does not match its hash");
    }

    #[test]
    fn a_missing_ir_row_is_corruption() {
        let dir = TempDir::new("ir_row");
        let path = built(&dir);
        sql(&path, "DELETE FROM ir");
        assert_corrupted(&path, "0 IR rows");
    }

    #[test]
    fn an_ir_that_does_not_deserialize_is_corruption() {
        let dir = TempDir::new("ir_json");
        let path = built(&dir);
        let blob = br#"{"not":"a program"}"#;
        let conn = Connection::open(&path).unwrap();
        conn.execute("UPDATE ir SET blob = ?1", params![&blob[..]])
            .unwrap();
        conn.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'ir_hash'",
            params![ir_hash(blob)],
        )
        .unwrap();
        drop(conn);
        assert_corrupted(&path, "the IR does not deserialize");
    }

    #[test]
    fn altered_sources_or_witnesses_are_corruption() {
        let dir = TempDir::new("records");
        let path = built(&dir);
        sql(
            &path,
            "UPDATE source SET text = 'site Evil {}' WHERE rowid = 1",
        );
        assert_corrupted(&path, "the sources do not match their hash");

        let path = built(&dir);
        sql(&path, "UPDATE task SET witness_json = 'nope'");
        assert_corrupted(&path, "the witness of task `buy_laptop`");

        let path = built(&dir);
        sql(&path, "DROP TABLE defect");
        assert_corrupted(&path, "no such table: defect");

        let path = built(&dir);
        sql(&path, "DELETE FROM meta WHERE key = 'compiler_version'");
        assert_corrupted(&path, "`meta` has no `compiler_version`");
    }

    #[test]
    fn a_truncated_file_is_corruption() {
        let dir = TempDir::new("truncated");
        let path = built(&dir);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert_corrupted(&path, "truncated");
        std::fs::write(&path, &bytes[..50]).unwrap();
        assert_corrupted(&path, "not even a whole header");
    }

    #[test]
    fn flipped_bytes_in_the_ir_are_corruption() {
        let dir = TempDir::new("flipped_ir");
        let path = built(&dir);
        let mut bytes = std::fs::read(&path).unwrap();
        let start = br#"{"site":{"name":"Shop""#;
        let at = bytes.windows(start.len()).position(|w| w == start).unwrap();
        bytes[at + start.len() - 2] ^= 0x01; // "Shop" becomes "Shoq"
        std::fs::write(&path, bytes).unwrap();
        assert_corrupted(&path, "the IR does not match its hash");
    }

    #[test]
    fn a_garbage_page_is_corruption() {
        let dir = TempDir::new("garbage_page");
        let path = built(&dir);
        let bytes = std::fs::read(&path).unwrap();
        // Every page of a fresh artifact is in use; overwrite each in turn
        // (but the first, whose header the other tests cover).
        for page in 1..bytes.len() / 4096 {
            let mut damaged = bytes.clone();
            damaged[page * 4096..(page + 1) * 4096].fill(0xAB);
            std::fs::write(&path, &damaged).unwrap();
            let err = read_err(&path);
            assert!(
                matches!(err, ArtifactError::Corrupted { .. }),
                "page {page}: {err}"
            );
            assert!(!err.to_string().contains('\n'), "{err}");
        }
    }

    #[test]
    fn looks_like_artifact_checks_the_magic() {
        let dir = TempDir::new("magic");
        let bytes = std::fs::read(built(&dir)).unwrap();
        assert!(looks_like_artifact(&bytes[..16]));
        assert!(!looks_like_artifact(&bytes[..15]));
        assert!(!looks_like_artifact(b"site Shop {\n  title \"Acme\"\n}"));
    }

    #[test]
    fn source_hash_ignores_order_but_not_boundaries() {
        let file = |path: &str, text: &str| SourceFile {
            path: path.into(),
            text: text.into(),
        };
        let (a, b) = (file("a.wsite", "ab"), file("b.wsite", "c"));
        let hash = source_hash(&[a.clone(), b.clone()]);
        assert_eq!(hash.len(), 32);
        assert_eq!(hash, source_hash(&[b, a.clone()]));
        assert_ne!(
            hash,
            source_hash(&[file("a.wsite", "a"), file("b.wsite", "bc")])
        );
        assert_ne!(source_hash(&[a]), source_hash(&[]));
    }

    #[test]
    fn identifiers_and_literals_are_quoted() {
        assert_eq!(ident("order"), "\"order\"");
        assert_eq!(ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(literal("it's"), "'it''s'");
    }
}
