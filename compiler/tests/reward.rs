//! The decomposed reward through the CLI (docs/runtime.md, docs/training.md):
//! `wsitec agent --reward decomposed` pays the progress credit, reports
//! `r_acc` in `info` and charges the format term for malformed requests;
//! `--terminal-reward` still works and contradicts `--reward decomposed`;
//! and (feature `train`) a short `wsitec train --reward decomposed` run.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::process::Command;
use wsite_tests::agent_process::AgentProcess;

fn tiny() -> String {
    format!(
        "{}/../tests/sites/reward_tiny.wsite",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn agent(reward: &[&str]) -> AgentProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_wsitec"));
    command.args(["agent", &tiny(), "--task", "order_large"]);
    command.args(reward);
    AgentProcess::spawn(command)
}

#[test]
fn the_protocol_pays_the_decomposed_reward_and_the_format_term() {
    let mut agent = agent(&["--reward", "decomposed"]);
    let start = agent.send("{\"reset\": {}}");
    // d₀ = 4 (Shop, name, size, Order): a shortest step earns β/4.
    let shop = agent.click(&start, "Shop");
    assert_eq!(shop["reward"], 0.125, "{shop}");
    assert_eq!(shop["info"]["r_acc"], 1, "{shop}");
    for bad in [
        "garbage",
        "{\"act\": 99}",
        "{\"act\": {\"kind\": \"click\", \"element\": 42}}",
        "{\"act\": {\"kind\": \"type\", \"element\": 1}}",
        "{\"act\": {\"kind\": \"hover\", \"element\": 1}}",
    ] {
        let reply = agent.send(bad);
        assert!(reply.get("error").is_some(), "{reply}");
        assert_eq!(reply["reward"], -0.1, "{bad}: {reply}");
    }
    // The state did not change: going home is a click off every shortest path.
    let home = agent.click(&shop, "Home");
    assert_eq!(
        (home["reward"].as_f64(), &home["info"]["r_acc"]),
        (Some(0.0), &serde_json::json!(0))
    );
    agent.finish();
}

#[test]
fn dense_replies_carry_no_judgement_or_format_term() {
    let mut agent = agent(&[]);
    let start = agent.send("{\"reset\": {}}");
    let shop = agent.click(&start, "Shop");
    assert!(shop["info"].get("r_acc").is_none(), "{shop}");
    let bad = agent.send("garbage");
    assert!(bad.get("reward").is_none(), "{bad}");
    agent.finish();
    // The old flag is still terminal mode: no step cost on a plain step.
    let mut terminal = self::agent(&["--terminal-reward"]);
    let start = terminal.send("{\"reset\": {}}");
    assert_eq!(terminal.click(&start, "Shop")["reward"], 0.0);
    terminal.finish();
}

#[test]
fn contradictory_or_unknown_rewards_are_usage_errors() {
    for args in [
        &["--terminal-reward", "--reward", "decomposed"][..],
        &["--reward", "sparse"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_wsitec"))
            .args(["agent", &tiny(), "--task", "order_large"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// A CI-sized decomposed run: a few hundred steps on the interpreter, with
/// its metrics written.
#[cfg(feature = "train")]
#[test]
fn train_runs_with_the_decomposed_reward() {
    let out_dir = std::env::temp_dir().join(format!("wsite-reward-train-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(["train", &tiny(), "--reward", "decomposed", "--steps", "256"])
        .args(["--envs", "4", "--rollout", "32", "--no-eval", "-o"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metrics = std::fs::read_to_string(out_dir.join("metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = metrics
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{metrics}");
    assert!(lines.iter().all(|l| l["env_steps"].as_u64().is_some()));
    std::fs::remove_dir_all(&out_dir).ok();
}
