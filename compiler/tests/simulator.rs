//! `--simulator CMD` end to end (INTERFACES.md, "Extern markers at run
//! time"): `wsitec agent` and `wsitec play` on the help-desk site
//! (`tests/sites/helpdesk.wsite`) with the documented Python writer
//! (`examples/simulators/echo_writer.py`) and with simulators that answer
//! garbage, die or stall. Every failure is a rejected step that changes
//! nothing, the episode goes on, and nothing hangs: each reply is awaited for
//! at most `WAIT`.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use serde_json::Value as Json;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wsite_tests::agent_process::{AgentProcess, WAIT};

const SITE: &str = "tests/sites/helpdesk.wsite";
const TASK: &str = "answer_printer";

/// A running `wsitec agent` in the repository root, reset to `TASK`.
struct Agent(AgentProcess);

impl Agent {
    fn start(simulator: &str, timeout: &str) -> Agent {
        let mut command = Command::new(env!("CARGO_BIN_EXE_wsitec"));
        command
            .current_dir(wsite_tests::repo_root())
            .args(["agent", SITE, "--task", TASK])
            .args(["--simulator", simulator, "--simulator-timeout", timeout])
            .stderr(Stdio::null());
        let mut agent = Agent(AgentProcess::spawn(command));
        let first = agent.reset();
        assert!(first.get("obs").is_some(), "{first}");
        agent
    }

    fn click(&mut self, last: &Json, key: &str) -> Json {
        self.0.click(last, key)
    }

    fn reset(&mut self) -> Json {
        self.0
            .send(&format!("{{\"reset\": {{\"task\": \"{TASK}\"}}}}"))
    }

    fn finish(self) {
        self.0.finish();
    }
}

fn echo(delta: &str) -> String {
    format!("python3 examples/simulators/echo_writer.py '{delta}'")
}

fn axtree(reply: &Json) -> &str {
    reply["obs"]["axtree"].as_str().unwrap_or_default()
}

fn alert(reply: &Json) -> &str {
    reply["obs"]["alert"].as_str().unwrap_or_default()
}

/// A rejected step: the alert starts with `prefix`, ε = 1, the page as
/// before (elements, url), the episode not over.
fn assert_rejected(before: &Json, after: &Json, prefix: &str) {
    assert!(
        alert(after).starts_with(prefix),
        "alert `{}`, expected `{prefix}…`",
        alert(after)
    );
    assert_eq!(after["info"]["epsilon"], 1, "{after}");
    assert_eq!(after["done"], false, "{after}");
    assert_eq!(after["obs"]["url"], before["obs"]["url"]);
    assert_eq!(after["obs"]["elements"], before["obs"]["elements"]);
}

#[test]
fn the_echo_writer_commits_a_proposal_over_the_agent_protocol() {
    let delta = r#"{"set": [{"table": "Ticket", "id": "{t}", "field": "reply", "value": "On it"}], "session": {"drafts": 2}}"#;
    let mut agent = Agent::start(&echo(delta), "10");
    let start = agent.reset();
    assert!(axtree(&start).contains("No reply yet"));
    let done = agent.click(&start, "#draft");
    assert_eq!(done["info"]["epsilon"], 0, "{done}");
    assert_eq!(done["success"], true, "{done}");
    assert!(axtree(&done).contains("Reply: On it"), "{done}");
    assert!(axtree(&done).contains("Drafts written: 2"), "{done}");
    agent.finish();
}

#[test]
fn default_true_runs_the_default_body() {
    let mut agent = Agent::start("python3 examples/simulators/echo_writer.py", "10");
    let start = agent.reset();
    let done = agent.click(&start, "#draft");
    assert_eq!(done["success"], true, "{done}");
    assert!(
        axtree(&done).contains("Reply: Thanks for writing"),
        "{done}"
    );
    agent.finish();
}

#[test]
fn hostile_proposals_are_rejected_steps_and_the_episode_goes_on() {
    let cases = [
        (
            r#"{"set": [{"table": "Ticket", "id": "{t}", "field": "subject", "value": "x"}]}"#,
            "proposal refused: `draft_reply` may not set `Ticket.subject`",
        ),
        (
            r#"{"set": [{"table": "Ticket", "id": "{t}", "field": "due", "value": "2026-02-31"}]}"#,
            "proposal refused: `Ticket.due`: `2026-02-31` does not exist",
        ),
        (
            r#"{"set": [{"table": "Ticket", "id": "{t}", "field": "fee", "value": "-$5.00"}]}"#,
            "proposal refused: invariant `fees_never_negative` would be broken",
        ),
        (
            r#"{"insert": [{"table": "Nope", "values": {}}]}"#,
            "proposal refused: unknown table `Nope`",
        ),
    ];
    for (delta, prefix) in cases {
        let mut agent = Agent::start(&echo(delta), "10");
        let start = agent.reset();
        let refused = agent.click(&start, "#draft");
        assert_rejected(&start, &refused, prefix);
        // The simulator still works (a refusal is not a failure), and the
        // episode goes on.
        let again = agent.click(&refused, "#draft");
        assert_rejected(&start, &again, prefix);
        let inbox = agent.click(&again, "Back to the inbox");
        assert_eq!(inbox["info"]["epsilon"], 0, "{inbox}");
        agent.finish();
    }
}

#[test]
fn a_simulator_that_answers_garbage_is_restarted_once_then_given_up() {
    let mut agent = Agent::start("while read line; do echo nonsense; done", "10");
    let start = agent.reset();
    let first = agent.click(&start, "#draft");
    assert_rejected(
        &start,
        &first,
        "simulator failed: answered `nonsense`, which is not JSON; restarted it",
    );
    let second = agent.click(&first, "#draft");
    assert_rejected(&start, &second, "simulator failed: answered `nonsense`");
    let third = agent.click(&second, "#draft");
    assert_rejected(&start, &third, "simulator failed: `while read line");
    assert!(
        alert(&third).contains("it is not restarted again"),
        "{third}"
    );
    let inbox = agent.click(&third, "Back to the inbox");
    assert_eq!(inbox["info"]["epsilon"], 0);
    agent.finish();
}

#[test]
fn a_simulator_that_dies_fails_the_step_and_its_replacement_takes_over() {
    let dir = std::env::temp_dir().join(format!("wsite-sim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let flag = dir.join("started");
    // The first process exits at once; the restarted one works.
    let command = format!(
        "if [ -e '{0}' ]; then exec python3 examples/simulators/echo_writer.py; else touch '{0}'; exit 3; fi",
        flag.display()
    );
    let mut agent = Agent::start(&command, "10");
    let start = agent.reset();
    let failed = agent.click(&start, "#draft");
    assert_rejected(&start, &failed, "simulator failed: ");
    assert!(alert(&failed).ends_with("restarted it"), "{failed}");
    let done = agent.click(&failed, "#draft");
    assert_eq!(done["info"]["epsilon"], 0, "{done}");
    assert_eq!(done["success"], true, "{done}");
    agent.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_simulator_that_exits_is_reported_with_its_status() {
    let mut agent = Agent::start("exit 3", "10");
    let start = agent.reset();
    let first = agent.click(&start, "#draft");
    assert_rejected(&start, &first, "simulator failed: the simulator exited");
    let second = agent.click(&first, "#draft");
    assert_rejected(&start, &second, "simulator failed: the simulator exited");
    let third = agent.click(&second, "#draft");
    assert!(
        alert(&third).contains("failed again after a restart"),
        "{third}"
    );
    agent.finish();
}

#[test]
fn a_stalled_simulator_times_out_and_nothing_hangs() {
    // `sh -c` forks `sleep`; an odd duration finds it among the processes.
    let token = format!("{}.{}", 600 + std::process::id() % 100, std::process::id());
    let mut agent = Agent::start(&format!("sleep {token}"), "1");
    let needle = format!("sleep\0{token}");
    let seen = Instant::now();
    while !running(&needle) {
        assert!(seen.elapsed() < WAIT, "the simulator never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let start = agent.reset();
    let began = Instant::now();
    let first = agent.click(&start, "#draft");
    assert_rejected(
        &start,
        &first,
        "simulator failed: no answer within 1 s; restarted it",
    );
    let second = agent.click(&first, "#draft");
    assert_rejected(&start, &second, "simulator failed: no answer within 1 s");
    // Given up: the next click fails at once.
    let at = Instant::now();
    let third = agent.click(&second, "#draft");
    assert!(
        alert(&third).contains("it is not restarted again"),
        "{third}"
    );
    assert!(
        at.elapsed() < Duration::from_millis(900),
        "{:?}",
        at.elapsed()
    );
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    // A reset keeps the session going; the agent exits when its input ends.
    let again = agent.reset();
    assert!(again.get("obs").is_some());
    agent.finish();
    // Both processes were killed, the forked `sleep`s included.
    assert!(!running(&needle), "a `sleep {token}` is left");
}

/// Whether some process's command line contains `needle` (arguments are
/// separated by NUL in /proc).
fn running(needle: &str) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.filter_map(Result::ok).any(|p| {
        std::fs::read(p.path().join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
    })
}

#[test]
fn play_takes_a_simulator_too() {
    // Not the goal (a reply), so the page after the step is shown.
    let delta = r#"{"session": {"drafts": 7}}"#;
    let mut child = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .current_dir(wsite_tests::repo_root())
        .args(["play", SITE, "--task", TASK, "--simulator", &echo(delta)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("wsitec play starts");
    let mut stdin = child.stdin.take().expect("stdin");
    // Action 1 is the click on `Draft a reply` (0 clears the memo).
    writeln!(stdin, "1\nq").expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wsitec play ends");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Drafts written: 7"), "{text}");
    assert!(text.contains("reward -0.0100"), "{text}");
}

#[test]
fn a_bad_timeout_is_bad_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .current_dir(wsite_tests::repo_root())
        .args(["agent", SITE, "--task", TASK, "--simulator", "cat"])
        .args(["--simulator-timeout", "0"])
        .output()
        .expect("wsitec runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("positive number of seconds"));
}
