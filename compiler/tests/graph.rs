//! `wsitec graph`: the three formats on an example, `-o`, and the exit codes
//! for a missing site (1) and a bad format (2).

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

fn wsitec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .output()
        .expect("the wsitec binary runs")
}

fn shop() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/ecommerce/trailhead.wsite")
        .display()
        .to_string()
}

#[test]
fn json_is_the_knowledge_spec() {
    let out = wsitec(&["graph", &shop(), "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(spec["site"]["start"], "Home");
    let flows = spec["flows"].as_array().unwrap();
    let order = flows.iter().find(|f| f["marker"] == "place_order").unwrap();
    assert_eq!(
        order["path"],
        serde_json::json!(["Home", "Cart", "Checkout"])
    );
}

#[test]
fn dot_and_svg_are_written_and_repeatable() {
    let dot = wsitec(&["graph", &shop(), "--format", "dot"]);
    assert_eq!(dot.status.code(), Some(0));
    let text = String::from_utf8(dot.stdout).unwrap();
    assert!(
        text.starts_with("digraph \"Trailhead Supply Co.\" {"),
        "{text}"
    );
    assert!(
        text.contains("style=dashed, label=\"place_order\""),
        "{text}"
    );
    let dir = std::env::temp_dir().join(format!("wsitec-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("map.svg");
    let file_arg = file.display().to_string();
    for _ in 0..2 {
        let out = wsitec(&["graph", &shop(), "--format", "svg", "-o", &file_arg]);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
    }
    let svg = std::fs::read_to_string(&file).unwrap();
    let stdout = wsitec(&["graph", &shop(), "--format", "svg"]).stdout;
    assert_eq!(svg.as_bytes(), stdout.as_slice(), "-o and stdout differ");
    assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_site_is_a_user_error_and_a_bad_format_is_usage() {
    let missing = wsitec(&["graph", "no/such/site.wsite"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("error:"));
    let bad = wsitec(&["graph", &shop(), "--format", "png"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `wsitec tasks SITE --spec` prints the same knowledge spec as `wsitec
/// graph SITE --format json`; `--spec` with `--generate` is bad usage.
#[test]
fn tasks_spec_is_the_graph_json() {
    let site = format!(
        "{}/../examples/ecommerce/trailhead.wsite",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_wsitec"))
            .args(args)
            .output()
            .unwrap()
    };
    let spec = run(&["tasks", &site, "--spec"]);
    let graph = run(&["graph", &site, "--format", "json"]);
    assert!(
        spec.status.success(),
        "{}",
        String::from_utf8_lossy(&spec.stderr)
    );
    assert_eq!(spec.stdout, graph.stdout);
    assert!(String::from_utf8_lossy(&spec.stdout).contains("add_to_cart"));
    let both = run(&["tasks", &site, "--spec", "--generate", "2"]);
    assert_eq!(both.status.code(), Some(2));
}
