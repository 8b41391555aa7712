//! The artifact's promises: a build written twice is the same bytes, reading
//! gives back what was written, and every way a file can be wrong (missing,
//! not SQLite, foreign, another format or compiler, damaged) is refused with
//! an error that names the file.

use super::seed::{ident, literal};
use super::*;
use crate::interp::fixture;
use crate::ir::{FieldDef, RowData, TableDef, Ty, Value};
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
    let wrong = format!(
        "the source hash {} does not match the sources (their hash is {expected})",
        "0".repeat(32)
    );
    assert!(err.to_string().ends_with(&wrong), "{err}");
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
    let broken: Vec<String> = query_all(&conn, "PRAGMA foreign_key_check", |r| r.get(0)).unwrap();
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
    assert!(
        err.to_string().ends_with(
            "table `Product`, seed row 42: field `price`: Text(\"free\") is not a value of type Money"
        ),
        "{err}"
    );
    let why = std::error::Error::source(&err).expect("the invalid data");
    assert!(why.source().is_some(), "the seed value's error: {why}");

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
    assert!(
        matches!(
            &err,
            ArtifactError::FormatVersion { path: p, found, expected: FORMAT_VERSION }
                if *p == path && found == "2"
        ),
        "{err}"
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
