//! `wsitec prm judge | eval | convert` end to end (docs/prm.md) on the tiny
//! site (`tests/sites/reward_tiny.wsite`): the exact oracle scores every
//! exported instance right (the check that the labels are right), the
//! random judge is the same on every run, an external judge that answers,
//! dies or stalls never stops or hangs the run, eval reports bad inputs,
//! and a WebPRMBench round trip keeps what judgements are scored against.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const SITE: &str = "tests/sites/reward_tiny.wsite";

fn wsitec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .current_dir(wsite_tests::repo_root())
        .args(args)
        .output()
        .expect("the wsitec binary runs")
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wsite-prm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The tiny site's benchmark, every instance kept.
fn bench(dir: &Path) -> PathBuf {
    let out = dir.join("bench.jsonl");
    let r = wsitec(&["prm", "export", SITE, "-o", s(&out), "--per-domain", "all"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    out
}

fn judge(bench: &Path, how: &[&str], out: &Path) -> Output {
    let mut args = vec!["prm", "judge", s(bench), "--sites", SITE, "-o", s(out)];
    args.extend_from_slice(how);
    wsitec(&args)
}

fn eval_json(bench: &Path, judgements: &Path) -> Json {
    let r = wsitec(&["prm", "eval", s(bench), s(judgements), "--format", "json"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    serde_json::from_slice(&r.stdout).unwrap()
}

#[test]
fn the_oracle_is_perfect_and_random_is_deterministic() {
    let dir = scratch("oracle");
    let bench = bench(&dir);
    let oracle = dir.join("oracle.jsonl");
    assert!(judge(&bench, &["--baseline", "oracle"], &oracle)
        .status
        .success());
    let report = eval_json(&bench, &oracle);
    let row = &report["rows"][0];
    assert_eq!(row["judge"], "oracle");
    assert!(report["instances"].as_u64().unwrap() >= 3, "{report}");
    assert_eq!(row["all"]["pairwise"], 1.0, "{report}");
    assert_eq!(row["all"]["bon"], 1.0, "{report}");
    assert_eq!(row["problems"].as_array().map(Vec::len), Some(0));

    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    assert!(judge(&bench, &["--baseline", "random", "--seed", "3"], &a)
        .status
        .success());
    assert!(judge(&bench, &["--baseline", "random", "--seed", "3"], &b)
        .status
        .success());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn external_judges_answer_die_or_stall_and_the_run_goes_on() {
    let dir = scratch("cmd");
    let bench = bench(&dir);
    let n = std::fs::read_to_string(&bench).unwrap().lines().count();
    let script = dir.join("best0.py");
    std::fs::write(
        &script,
        "import json, sys\nfor line in sys.stdin:\n    q = json.loads(line)\n    \
         print(json.dumps({'id': q['id'], 'best': 0}), flush=True)\n",
    )
    .unwrap();
    // (command, timeout, error lines): Python may start slowly on a busy
    // machine, the failing ones must not make the run wait long.
    let cases = [
        (format!("python3 {}", s(&script)), "20", 0),
        ("exit 3".to_string(), "0.3", n),
        ("sleep 100".to_string(), "0.3", n),
        ("echo nonsense; cat > /dev/null".to_string(), "0.3", n),
    ];
    for (command, timeout, failures) in cases {
        let out = dir.join("out.jsonl");
        let start = Instant::now();
        let r = judge(&bench, &["--cmd", &command, "--timeout", timeout], &out);
        assert!(
            r.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{command} took too long"
        );
        let lines: Vec<Json> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), n, "{command}");
        let errors = lines.iter().filter(|l| l.get("error").is_some()).count();
        assert_eq!(errors, failures, "{command}: {lines:?}");
        let report = eval_json(&bench, &out);
        assert_eq!(
            report["rows"][0]["problem_counts"]
                .get("judge error")
                .and_then(Json::as_u64)
                .unwrap_or(0),
            failures as u64
        );
    }
}

#[test]
fn eval_names_bad_lines_and_unreadable_files() {
    let dir = scratch("eval");
    let bench = bench(&dir);
    let broken = dir.join("broken.jsonl");
    let mut text = std::fs::read_to_string(&bench).unwrap();
    text.push_str("{\"id\": 3}\n");
    std::fs::write(&broken, &text).unwrap();
    let lines = text.lines().count();
    let judgements = dir.join("j.jsonl");
    std::fs::write(&judgements, "not json\n").unwrap();
    let r = wsitec(&["prm", "eval", s(&broken), s(&judgements)]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains(&format!("broken.jsonl:{lines}:")), "{err}");
    let r = wsitec(&["prm", "eval", s(&bench), s(&dir.join("absent.jsonl"))]);
    assert_eq!(r.status.code(), Some(1));
    // Every instance missing, one malformed line: all listed, nothing right.
    let r = wsitec(&["prm", "eval", s(&bench), s(&judgements)]);
    assert!(r.status.success());
    let table = String::from_utf8_lossy(&r.stdout);
    assert!(table.contains("1 malformed"), "{table}");
    assert!(table.contains("missing"), "{table}");
    assert!(table.contains("0.00   0.00"), "{table}");
}

#[test]
fn webprmbench_round_trip_keeps_what_judgements_are_scored_against() {
    let dir = scratch("convert");
    let bench = bench(&dir);
    let (records, back) = (dir.join("records.jsonl"), dir.join("back.jsonl"));
    let r = wsitec(&[
        "prm",
        "convert",
        s(&bench),
        s(&records),
        "--to",
        "webprmbench",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let first: Json = serde_json::from_str(
        std::fs::read_to_string(&records)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["rejected"].as_array().map(Vec::len), Some(4));
    assert!(
        first["chosen"][0]["action"].as_str().unwrap().contains('('),
        "{first}"
    );
    let r = wsitec(&["prm", "convert", s(&records), s(&back), "--to", "wsite"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // The oracle's judgements of ours score 100% on the imported copy: the
    // ids map back and the chosen candidate is the same.
    let oracle = dir.join("oracle.jsonl");
    assert!(judge(&bench, &["--baseline", "oracle"], &oracle)
        .status
        .success());
    assert_eq!(eval_json(&back, &oracle)["rows"][0]["all"]["bon"], 1.0);
    // Text judges read imported instances; the oracle refuses them.
    let overlap = dir.join("overlap.jsonl");
    assert!(judge(&back, &["--baseline", "overlap"], &overlap)
        .status
        .success());
    assert_eq!(
        eval_json(&back, &overlap)["rows"][0]["problems"]
            .as_array()
            .map(Vec::len),
        Some(0)
    );
    let refused = dir.join("refused.jsonl");
    assert!(judge(&back, &["--baseline", "oracle"], &refused)
        .status
        .success());
    let report = eval_json(&back, &refused);
    assert_eq!(report["rows"][0]["all"]["bon"], 0.0);
}
