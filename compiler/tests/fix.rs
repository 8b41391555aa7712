//! End-to-end tests of repair: `wsitec fix` (the dry run shows a diff and
//! writes nothing, `--apply` writes and the result checks clean of the fixed
//! codes, a second run finds nothing to do, a syntax error holds back new
//! declarations; overlapping fixes are tested in `compiler/src/fix/tests.rs`)
//! and its exit codes, and what `check --format json` gives a repair loop:
//! machine-applicable fixes, and defects ordered cause before consequence.

#![allow(clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn wsitec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .output()
        .expect("the wsitec binary runs")
}

/// A shop whose marker lacks its `writes` (E001 and E301, one fix) and whose
/// home page links to two pages nobody declared (two E101, one fix each,
/// both at the end of the file).
const SHOP: &str = r#"site Shop { title "Shop" domain ecommerce start Home }
table Product { name: Text  stock: Int }
seed Product [ { name: "Pen", stock: 3 } ]
page Home {
  heading "Shop"
  link "About" -> About
  link "Help" -> Help
  for p in Product { link "{p.name}" -> Detail(p) }
}
page Detail(p: Product) {
  text "{p.name}"
  button "Buy" -> buy(p)
  link "Home" -> Home
}
marker buy(p: Product)
  reads    Product.stock
  requires p.stock > 0
{
  set p.stock = p.stock - 1
}
"#;

fn scratch_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wsitec-fix-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join("shop.wsite");
    std::fs::write(&file, text).expect("the file is written");
    file
}

fn arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

fn codes(file: &Path) -> Vec<String> {
    let out = wsitec(&["check", "--no-prove", "--format", "json", arg(file)]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    report["defects"]
        .as_array()
        .map(|ds| {
            ds.iter()
                .filter_map(|d| d["code"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_dry_run_shows_the_diff_and_leaves_the_file_alone() {
    let file = scratch_file("dry", SHOP);
    let out = wsitec(&["fix", "--no-prove", arg(&file)]);
    let diff = String::from_utf8_lossy(&out.stdout);
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(diff.contains("+++ b/"), "{diff}");
    assert!(diff.contains("+  writes   Product.stock"), "{diff}");
    assert!(
        diff.contains("+page About {") && diff.contains("+page Help {"),
        "{diff}"
    );
    assert!(
        summary.contains("3 fixes applied in 2 rounds (dry run"),
        "{summary}"
    );
    // What is left after the fixes (warnings: the new pages are dead ends).
    assert_eq!(out.status.code(), Some(0), "{summary}");
    assert_eq!(std::fs::read_to_string(&file).ok().as_deref(), Some(SHOP));
}

#[test]
fn apply_writes_the_fixes_and_a_second_run_has_nothing_to_do() {
    let file = scratch_file("apply", SHOP);
    let before = codes(&file);
    assert!(before.iter().any(|c| c == "E301") && before.iter().any(|c| c == "E101"));
    let out = wsitec(&["fix", "--no-prove", "--apply", arg(&file)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "no diff with --apply");
    let after = codes(&file);
    assert!(!after.iter().any(|c| c.starts_with('E')), "{after:?}");
    let fixed = std::fs::read_to_string(&file).expect("the fixed file");
    assert!(fixed.contains("page About {"), "{fixed}");
    let again = wsitec(&[
        "fix",
        "--no-prove",
        "--format",
        "json",
        "--apply",
        arg(&file),
    ]);
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).expect("JSON");
    assert_eq!(
        report["applied"].as_array().map(Vec::len),
        Some(0),
        "{report}"
    );
    assert_eq!(report["rounds"], 0);
    assert_eq!(std::fs::read_to_string(&file).ok(), Some(fixed));
    // No temporary file is left beside it.
    let dir = file.parent().expect("a directory");
    let entries = std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0);
    assert_eq!(entries, 1);
}

#[test]
fn json_reports_rounds_fixes_and_what_is_left() {
    let file = scratch_file("json", SHOP);
    let out = wsitec(&["fix", "--no-prove", "--format", "json", arg(&file)]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let applied = report["applied"].as_array().cloned().unwrap_or_default();
    let rounds: Vec<(u64, &str)> = applied
        .iter()
        .map(|a| {
            (
                a["round"].as_u64().unwrap_or(0),
                a["code"].as_str().unwrap_or(""),
            )
        })
        .collect();
    // The permission first (syntax errors hold back new pages); then the
    // two pages, both appended at the end of the file.
    assert_eq!(
        rounds,
        vec![(1, "E301"), (2, "E101"), (2, "E101")],
        "{report}"
    );
    assert_eq!(report["before"]["errors"], 4, "{report}");
    assert_eq!(report["offered"], 3, "{report}");
    assert_eq!(report["left"]["errors"], 0, "{report}");
    assert_eq!(report["written"], false);
    let diff = report["files"][0]["diff"].as_str().unwrap_or("");
    assert!(diff.contains("+page Help {"), "{report}");
    assert_eq!(std::fs::read_to_string(&file).ok().as_deref(), Some(SHOP));
}

#[test]
fn a_syntax_error_is_left_and_fails_the_run() {
    let text = SHOP.replace("heading \"Shop\"", "heading \"Shop\"\n  ??? a broken line");
    let file = scratch_file("syntax", &text);
    let out = wsitec(&["fix", "--no-prove", "--format", "json", arg(&file)]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let applied: Vec<&str> = report["applied"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["code"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(applied, vec!["E301"], "{report}");
    let left = report["left_codes"].to_string();
    assert!(left.contains("E001") && left.contains("E101"), "{report}");
}

#[test]
fn usage_and_missing_files_have_their_exit_codes() {
    assert_eq!(wsitec(&["fix"]).status.code(), Some(2));
    assert_eq!(
        wsitec(&["fix", "--bogus", "x.wsite"]).status.code(),
        Some(2)
    );
    let out = wsitec(&["fix", "/nonexistent/shop.wsite"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn json_carries_machine_applicable_fixes() {
    let fixes = |fixture: &str| -> Vec<serde_json::Value> {
        let path = format!("{}/../tests/ui/{fixture}", env!("CARGO_MANIFEST_DIR"));
        let out = wsitec(&["check", "--no-prove", "--format", "json", &path]);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        report["defects"]
            .as_array()
            .expect("defects")
            .iter()
            .filter_map(|d| d.get("fix").cloned())
            .collect()
    };
    let added = fixes("E301_write_outside_writes.wsite");
    assert!(
        added
            .iter()
            .any(|f| f["kind"] == "add_permission" && f["clause"] == "writes"),
        "{added:?}"
    );
    let removed = fixes("S107_unused_permission.wsite");
    assert!(
        removed.iter().any(|f| f["kind"] == "remove_permission"),
        "{removed:?}"
    );
    let created = fixes("E101_unknown_names.wsite");
    assert!(
        created.iter().any(|f| f["kind"] == "create_page"),
        "{created:?}"
    );
}

/// The defects of `fixture` as `(id, code, depends_on)`, in report order.
fn repair_queue(fixture: &str) -> Vec<(u64, String, Vec<u64>)> {
    let path = wsite_tests::ui_dir().join(fixture);
    let out = wsitec(&[
        "check",
        "--format",
        "json",
        path.to_str().unwrap_or_default(),
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON report");
    report["defects"]
        .as_array()
        .expect("defects")
        .iter()
        .map(|d| {
            let deps = d["depends_on"].as_array().expect("depends_on");
            (
                d["id"].as_u64().expect("id"),
                d["code"].as_str().expect("code").to_string(),
                deps.iter().filter_map(serde_json::Value::as_u64).collect(),
            )
        })
        .collect()
}

#[test]
fn the_repair_queue_puts_the_structural_cause_before_the_f401_it_explains() {
    for (fixture, cause) in [
        ("F401_marker_without_button.wsite", "S102"),
        ("F401_button_on_unreachable_page.wsite", "S101"),
    ] {
        let queue = repair_queue(fixture);
        let find = |code: &str| queue.iter().position(|(_, c, _)| c == code);
        let (Some(c), Some(f)) = (find(cause), find("F401")) else {
            panic!("{fixture}: expected {cause} and F401 in {queue:?}");
        };
        assert!(c < f, "{fixture}: {cause} must come before F401: {queue:?}");
        assert!(
            queue[f].2.contains(&queue[c].0),
            "{fixture}: F401 must depend on {cause}: {queue:?}"
        );
    }
}
