//! `wsitec prm export` end to end on small test sites: the benchmark and its
//! manifest agree, the same seed gives the same bytes whatever the number of
//! threads, `--per-domain` caps each domain, and bad arguments exit 1 with a
//! message instead of writing anything.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn sites() -> Vec<String> {
    ["prm_notes", "reward_tiny", "cafes"]
        .iter()
        .map(|s| {
            wsite_tests::repo_root()
                .join(format!("tests/sites/{s}.wsite"))
                .display()
                .to_string()
        })
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wsitec-prm-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn export(out: &Path, extra: &[&str], threads: &str) -> Output {
    let mut args = vec!["prm".to_string(), "export".into()];
    args.extend(sites());
    args.extend(["-o".into(), out.display().to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(&args)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap()
}

#[test]
fn benchmark_and_manifest_agree_and_are_reproducible() {
    let out = scratch("bench.jsonl");
    let run = export(&out, &["--per-domain", "all", "--seed", "5"], "1");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<Json> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let manifest: Json = serde_json::from_str(
        &std::fs::read_to_string(out.with_extension("manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        manifest["instances"].as_u64().unwrap() as usize,
        lines.len()
    );
    assert!(lines.len() >= 8, "only {} instances", lines.len());
    for l in &lines {
        assert_eq!(l["rejected"].as_array().unwrap().len(), 4);
        assert!(l["observation"].as_str().unwrap().starts_with('['));
    }
    let again = scratch("again.jsonl");
    let run = export(&again, &["--per-domain", "all", "--seed", "5"], "2");
    assert!(run.status.success());
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        text,
        "threads changed the bytes"
    );

    let capped = scratch("capped.jsonl");
    let run = export(&capped, &["--per-domain", "3"], "1");
    assert!(run.status.success());
    assert_eq!(std::fs::read_to_string(&capped).unwrap().lines().count(), 3);
}

#[test]
fn bad_arguments_exit_1_with_a_message() {
    let out = scratch("bad.jsonl");
    let run = export(&out, &["--per-domain", "lots"], "1");
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--per-domain"));
    assert!(!out.exists());

    let run = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(["prm", "export", "no/such/site.wsite", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&run.stderr).is_empty());
    assert!(!out.exists());
}
