//! `wsitec agent --record` and `wsitec replay` end to end on
//! `tests/sites/cafes.wsite`: prover witnesses played over the agent
//! protocol (actions by candidate index, by element and by stable key, bad
//! lines in between) are recorded one line per episode and replay as
//! accepted; an unfinished episode is recorded and rejected; malformed lines
//! get their own error while the others are judged; `--tasks` key nodes
//! replace the declared ones; an unreadable file exits 1.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use serde_json::{json, Value as Json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use wsite_runtime::env::{self, Env, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Options};

fn site() -> PathBuf {
    wsite_tests::repo_root().join("tests/sites/cafes.wsite")
}

fn program() -> Program {
    let text = std::fs::read_to_string(site()).unwrap();
    wsitec::compile_str("cafes.wsite", &text).program.unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wsitec-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn wsitec(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// `wsitec replay SITE FILE --format json [extra]`: the episode lines and the
/// summary.
fn replay(file: &Path, extra: &[&str]) -> (Vec<Json>, Json) {
    let site = site();
    let mut args = vec![
        "replay",
        site.to_str().unwrap(),
        file.to_str().unwrap(),
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = wsitec(&args, "");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut lines: Vec<Json> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = lines.pop().unwrap()["summary"].clone();
    (lines, summary)
}

/// The protocol requests that play `task`'s witness: step `i` by candidate
/// index when `i` is even, by element index otherwise.
fn witness_requests(program: &Program, task: &str) -> Vec<String> {
    let instance = env::instances(program)
        .into_iter()
        .find(|i| i.name == task)
        .unwrap();
    let proof = prove::prove_instance(program, &instance, Options::default()).unwrap();
    let mut env = Env::new(program, &instance, RewardConfig::default()).unwrap();
    let mut out = vec![json!({"reset": {"task": task, "seed": 4}}).to_string()];
    for (i, step) in proof.witness.iter().enumerate() {
        let action = prove::resolve_step(&env, step).unwrap();
        let act = if i % 2 == 0 {
            json!(env.actions().iter().position(|a| *a == action).unwrap())
        } else {
            serde_json::to_value(&action).unwrap()
        };
        out.push(json!({ "act": act }).to_string());
        env.step(&action).unwrap();
    }
    out
}

#[test]
fn witnesses_played_over_the_protocol_are_recorded_and_accepted() {
    let program = program();
    let record = scratch("recorded.jsonl");
    let mut requests = witness_requests(&program, "star_bean");
    // Bad lines are answered with an error and not recorded.
    requests.insert(2, "garbage".into());
    requests.insert(3, r#"{"act": 999}"#.into());
    // A reset before any step plays no episode.
    requests.push(r#"{"reset": {"task": "bean_opens"}}"#.into());
    requests.extend(witness_requests(&program, "bean_opens"));
    // An episode cut short by the end of input, its step by stable key.
    requests.push(r#"{"reset": {"task": "star_bean"}}"#.into());
    requests.push(r##"{"act": {"kind": "click", "key": "#browse"}}"##.into());
    let site = site();
    let args = [
        "agent",
        site.to_str().unwrap(),
        "--task",
        "star_bean",
        "--record",
        record.to_str().unwrap(),
    ];
    let out = wsitec(&args, &(requests.join("\n") + "\n"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert_eq!(recorded.lines().count(), 3, "{recorded}");
    assert!(recorded.contains(r##""key":"#shortcut""##), "{recorded}");
    let (episodes, summary) = replay(&record, &[]);
    let verdicts: Vec<(&str, bool)> = episodes
        .iter()
        .map(|e| (e["task"].as_str().unwrap(), e["accepted"] == true))
        .collect();
    assert_eq!(
        verdicts,
        vec![
            ("star_bean", true),
            ("bean_opens", true),
            ("star_bean", false)
        ]
    );
    assert_eq!(episodes[2]["replay_ok"], true);
    assert_eq!(episodes[2]["success"], false);
    assert_eq!(
        (summary["episodes"].as_u64(), summary["accepted"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(summary["mean_steps_accepted"], 2.0);
    // A second session appends.
    wsitec(&args, &witness_requests(&program, "star_bean").join("\n"));
    assert_eq!(std::fs::read_to_string(&record).unwrap().lines().count(), 4);
}

#[test]
fn malformed_lines_are_reported_each_and_the_rest_judged() {
    let file = scratch("mixed.jsonl");
    let good = r##"{"site": "Cafes", "task": "star_bean", "steps": [{"action": {"kind": "click", "key": "#shortcut"}}, {"action": {"kind": "click", "key": "#star"}}]}"##;
    let lines = [
        good,
        "not json",
        r#"{"site": "cafes", "steps": []}"#,
        "",
        r#"{"site": "elsewhere", "task": "star_bean", "steps": []}"#,
        r#"{"site": "cafes", "task": "no_such_task", "steps": []}"#,
        good,
    ];
    std::fs::write(&file, lines.join("\n")).unwrap();
    let (episodes, summary) = replay(&file, &[]);
    let errors: Vec<(u64, &str)> = episodes
        .iter()
        .filter_map(|e| Some((e["line"].as_u64()?, e["error"].as_str()?)))
        .collect();
    assert_eq!(errors.len(), 4, "{episodes:?}");
    assert_eq!(errors[0].0, 2);
    assert!(errors[0].1.starts_with("not JSON"));
    assert_eq!(errors[1], (3, "missing field `task`"));
    assert!(errors[2].1.contains("site `elsewhere`"), "{}", errors[2].1);
    assert!(
        errors[3].1.contains("no task `no_such_task`"),
        "{}",
        errors[3].1
    );
    assert_eq!(episodes[5]["line"], 7);
    assert_eq!(episodes[5]["accepted"], true);
    assert_eq!(summary["malformed"], 4);
    assert_eq!(summary["accepted"], 2);
    // The same in text, for people.
    let site = site();
    let out = wsitec(
        &["replay", site.to_str().unwrap(), file.to_str().unwrap()],
        "",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("line 3: missing field `task`"), "{text}");
    assert!(text.contains("6 episodes, 2 accepted (33.3%)"), "{text}");
}

#[test]
fn a_task_file_supplies_the_key_nodes() {
    let file = scratch("detour.jsonl");
    std::fs::write(
        &file,
        r##"{"site": "cafes", "task": "star_bean", "steps": [{"action": {"kind": "click", "key": "#browse"}}, {"action": {"kind": "click", "key": "#to_list"}}, {"action": {"kind": "click", "key": "#quick_star[c=2]"}}]}"##,
    )
    .unwrap();
    let (declared, _) = replay(&file, &[]);
    assert_eq!(
        declared[0]["missing_key_nodes"],
        json!(["CafePage(2)", "#star"])
    );
    let tasks = scratch("tasks.json");
    std::fs::write(
        &tasks,
        r#"[{"task_id": "star_bean", "kind": "operation", "key_nodes": ["CafeList", "quick_star"]}]"#,
    )
    .unwrap();
    let (listed, _) = replay(&file, &["--tasks", tasks.to_str().unwrap()]);
    assert_eq!(listed[0]["accepted"], true, "{listed:?}");
}

#[test]
fn unreadable_inputs_exit_1() {
    let site = site();
    let missing = scratch("missing.jsonl");
    let out = wsitec(
        &["replay", site.to_str().unwrap(), missing.to_str().unwrap()],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let out = wsitec(
        &["replay", "no/such/site.wsite", missing.to_str().unwrap()],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
}
