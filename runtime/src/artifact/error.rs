//! Why an artifact could not be written or read ([`ArtifactError`], whose
//! every message names the file), and what is wrong with an artifact that
//! cannot be stored as it is ([`InvalidArtifact`], [`SeedError`]): the
//! wrapped JSON or SQLite error stays the source, and the sentence is the
//! one the compiler prints.

use crate::ir::{Ty, Value};
use std::fmt;
use std::path::PathBuf;

/// Why an artifact could not be written or read. Each message names the file.
#[derive(Debug)]
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
    /// The artifact given to [`write()`](super::write()) cannot be stored as
    /// it is (a seed value of the wrong type, a duplicate task name, a wrong
    /// source hash).
    Invalid { path: PathBuf, why: InvalidArtifact },
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

impl std::error::Error for ArtifactError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ArtifactError::Invalid { why, .. } => Some(why),
            _ => None,
        }
    }
}

/// What is wrong with an artifact [`write()`](super::write()) was given, found
/// before the disk is touched (all but [`InvalidArtifact::Sqlite`], which
/// SQLite finds while storing it).
#[derive(Debug)]
pub enum InvalidArtifact {
    /// The program does not serialize to JSON.
    Ir(serde_json::Error),
    /// `meta.source_hash` is set and is not the sources' hash.
    SourceHash { given: String, computed: String },
    /// A task's witness does not serialize to JSON.
    Witness {
        task: String,
        error: serde_json::Error,
    },
    /// A task's count of states explored is past SQLite's integers.
    States { task: String, states: u64 },
    /// The path to write ends in no file name.
    NoFileName,
    /// A table's field has no column type.
    Column {
        table: String,
        field: String,
        why: SeedError,
    },
    /// A seed row with `values` values for the table's `fields` fields.
    ValueCount {
        table: String,
        row: i64,
        values: usize,
        fields: usize,
    },
    /// A seed row's value of a field cannot be stored.
    SeedValue {
        table: String,
        row: i64,
        field: String,
        why: SeedError,
    },
    /// SQLite refused the data (a constraint, a clashing column name).
    Sqlite(rusqlite::Error),
}

impl fmt::Display for InvalidArtifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidArtifact::Ir(e) => write!(f, "the IR does not serialize: {e}"),
            InvalidArtifact::SourceHash { given, computed } => write!(
                f,
                "the source hash {given} does not match the sources (their hash is {computed})"
            ),
            InvalidArtifact::Witness { task, error } => {
                write!(f, "task `{task}`: the witness does not serialize: {error}")
            }
            InvalidArtifact::States { task, states } => {
                write!(
                    f,
                    "task `{task}`: {states} states explored does not fit in SQLite"
                )
            }
            InvalidArtifact::NoFileName => f.write_str("the path does not name a file"),
            InvalidArtifact::Column { table, field, why } => {
                write!(f, "table `{table}`, field `{field}`: {why}")
            }
            InvalidArtifact::ValueCount {
                table,
                row,
                values,
                fields,
            } => write!(
                f,
                "table `{table}`, seed row {row}: {values} values for {fields} fields"
            ),
            InvalidArtifact::SeedValue {
                table,
                row,
                field,
                why,
            } => write!(f, "table `{table}`, seed row {row}: field `{field}`: {why}"),
            InvalidArtifact::Sqlite(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for InvalidArtifact {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InvalidArtifact::Ir(e) | InvalidArtifact::Witness { error: e, .. } => Some(e),
            InvalidArtifact::Column { why, .. } | InvalidArtifact::SeedValue { why, .. } => {
                Some(why)
            }
            InvalidArtifact::Sqlite(e) => Some(e),
            InvalidArtifact::SourceHash { .. }
            | InvalidArtifact::States { .. }
            | InvalidArtifact::ValueCount { .. }
            | InvalidArtifact::NoFileName => None,
        }
    }
}

/// Why a site table or one of its seed values has no SQL form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeedError {
    /// An optional of an optional.
    NestedOptional,
    /// A type names an enum the program lacks.
    NoEnum(u32),
    /// A type names a table the program lacks.
    NoTable(u32),
    /// An enum value past its enum's variants.
    NoVariant { enum_name: String, variant: u32 },
    /// A value of another type than its field's.
    WrongType { value: Value, ty: Ty },
}

impl fmt::Display for SeedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeedError::NestedOptional => f.write_str("a nested optional type"),
            SeedError::NoEnum(id) => write!(f, "enum #{id} does not exist"),
            SeedError::NoTable(id) => write!(f, "table #{id} does not exist"),
            SeedError::NoVariant { enum_name, variant } => {
                write!(f, "`{enum_name}` has no variant #{variant}")
            }
            SeedError::WrongType { value, ty } => {
                write!(f, "{value:?} is not a value of type {ty:?}")
            }
        }
    }
}

impl std::error::Error for SeedError {}
