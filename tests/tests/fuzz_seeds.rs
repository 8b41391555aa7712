//! The fuzz targets' smoke test on stable: every committed seed input
//! (`fuzz/seeds/<target>/`) and every regression input found by fuzzing goes
//! through the same harness body the target runs
//! (`wsite_tests::fuzz_harness`), without libFuzzer. A panic is a failure.

#![allow(clippy::expect_used)]

use std::path::PathBuf;
use wsite_tests::fuzz_harness;

type Harness = fn(&[u8]);

const TARGETS: [(&str, Harness); 7] = [
    ("parse_check", fuzz_harness::parse_check),
    ("format", fuzz_harness::format),
    ("agent_line", fuzz_harness::agent_lines),
    ("lsp_message", fuzz_harness::lsp_messages),
    ("wsb_load", fuzz_harness::wsb_load),
    ("simulator_reply", fuzz_harness::simulator_reply),
    ("serve_request", fuzz_harness::serve_requests),
];

fn seeds(target: &str) -> Vec<PathBuf> {
    let dir = wsite_tests::repo_root().join("fuzz/seeds").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn every_seed_runs_through_its_target() {
    for (target, harness) in TARGETS {
        let files = seeds(target);
        assert!(!files.is_empty(), "no seeds for `{target}`");
        for file in files {
            let data = std::fs::read(&file).expect("a readable seed");
            harness(&data);
        }
    }
}
