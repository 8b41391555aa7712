//! End-to-end tests of the `wsitec` binary: exit codes, both output formats, and
//! that `check --format json` on each planted-defect fixture reports its codes at
//! the lines the fixture names.

#![allow(clippy::expect_used, clippy::panic)]

use std::process::Command;

fn wsitec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .output()
        .expect("the wsitec binary runs")
}

#[test]
fn json_reports_every_planted_defect_at_its_line() {
    let mut failures = Vec::new();
    for path in wsite_tests::fixtures() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let budget = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("// prove-budget:"))
            .map_or("200000", str::trim);
        let out = wsitec(&[
            "check",
            "--format",
            "json",
            "--budget",
            budget,
            path.to_str().unwrap_or_default(),
        ]);
        let expected = wsite_tests::expectations(&text);
        let code = out.status.code();
        let wants_error = expected.iter().any(|e| e.severity == "error");
        if code != Some(if wants_error { 1 } else { 0 }) {
            failures.push(format!("{}: exit code {code:?}", path.display()));
        }
        let report: serde_json::Value = match serde_json::from_slice(&out.stdout) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{}: not JSON ({e})", path.display()));
                continue;
            }
        };
        let actual: Vec<(usize, String, String, String)> = report["defects"]
            .as_array()
            .map(|ds| {
                ds.iter()
                    .map(|d| {
                        (
                            d["span"]["line"].as_u64().unwrap_or(0) as usize,
                            d["severity"].as_str().unwrap_or("").to_string(),
                            d["code"].as_str().unwrap_or("").to_string(),
                            d["message"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        for p in wsite_tests::compare(&expected, &actual) {
            failures.push(format!("{}: {p}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn json_defects_carry_the_contract_fields() {
    let fixture = wsite_tests::fixtures()
        .into_iter()
        .next()
        .expect("at least one fixture");
    let out = wsitec(&[
        "check",
        "--format",
        "json",
        fixture.to_str().unwrap_or_default(),
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(report["file"].is_string());
    for d in report["defects"].as_array().expect("defects") {
        for field in [
            "id",
            "code",
            "category",
            "severity",
            "object",
            "message",
            "span",
            "related",
            "evidence",
            "help",
            "confidence",
            "depends_on",
            "priority",
        ] {
            assert!(d.get(field).is_some(), "missing `{field}` in {d}");
        }
        for field in ["file", "line", "column", "start", "end"] {
            assert!(d["span"].get(field).is_some(), "span misses `{field}`");
        }
    }
}

#[test]
fn human_output_shows_source_and_help_and_exit_codes_follow_the_contract() {
    let dir = std::env::temp_dir().join(format!("wsitec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.wsite");
    std::fs::write(&bad, "site S { title \"t\" domain other start Home }\npage Home {\n  text \"{nope}\"\n  link \"h\" -> Home\n}\n").expect("write");
    let out = wsitec(&[
        "check",
        "--color",
        "never",
        bad.to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[E101]"), "{stderr}");
    assert!(stderr.contains("bad.wsite:3:"), "{stderr}");

    assert_eq!(
        wsitec(&["check"]).status.code(),
        Some(2),
        "missing FILE is bad usage"
    );
    assert_eq!(
        wsitec(&["frobnicate"]).status.code(),
        Some(2),
        "unknown command is bad usage"
    );
    let missing = wsitec(&["check", dir.join("nope.wsite").to_str().unwrap_or_default()]);
    assert_eq!(
        missing.status.code(),
        Some(1),
        "an unreadable file is a user error"
    );
    let binary = dir.join("binary.wsite");
    std::fs::write(&binary, [0xffu8, 0xfe, 0x00, 0x41]).expect("write");
    assert_eq!(
        wsitec(&["check", binary.to_str().unwrap_or_default()])
            .status
            .code(),
        Some(1)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn examples_check_clean_through_the_binary() {
    // Every analysis, the prover and the invariant sweep included.
    let examples = wsite_tests::examples();
    std::thread::scope(|s| {
        for path in &examples {
            s.spawn(move || {
                let out = wsitec(&[
                    "check",
                    "--color",
                    "never",
                    path.to_str().unwrap_or_default(),
                ]);
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{}:\n{}",
                    path.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
            });
        }
    });
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wsitec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn example(name: &str) -> String {
    wsite_tests::examples()
        .into_iter()
        .find(|p| p.ends_with(name))
        .and_then(|p| p.to_str().map(String::from))
        .unwrap_or_else(|| panic!("no example {name}"))
}

#[test]
fn build_writes_a_reproducible_artifact_every_command_accepts() {
    let dir = scratch("build");
    let site = example("banking/cascade_cu.wsite");
    let (a, b) = (dir.join("a.wsb"), dir.join("b.wsb"));
    for out in [&a, &b] {
        let o = wsitec(&["build", &site, "-o", out.to_str().unwrap_or_default()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let bytes = std::fs::read(&a).expect("the artifact");
    assert_eq!(
        bytes,
        std::fs::read(&b).expect("the second artifact"),
        "builds differ"
    );
    let built =
        wsite_runtime::artifact::read(&a, env!("CARGO_PKG_VERSION")).expect("it reads back");
    assert!(built
        .tasks
        .iter()
        .all(|t| t.verdict == "feasible" && !t.witness.is_empty()));
    assert_eq!(
        built.tasks.len(),
        wsite_runtime::env::instances(&built.program).len()
    );
    // The artifact runs: prove it again, and play a task over the agent protocol.
    let wsb = a.to_str().unwrap_or_default();
    let o = wsitec(&["prove", wsb, "--task", "update_phone"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("click #save_contact"));
    let agent = run_with_input(
        &["agent", wsb, "--task", "update_phone"],
        "{\"reset\": {\"task\": \"update_phone\"}}\n",
    );
    assert!(agent.contains("\"obs\""), "{agent}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stale_foreign_and_damaged_artifacts_get_clear_errors() {
    let dir = scratch("bad-wsb");
    let good = dir.join("good.wsb");
    let site = example("banking/cascade_cu.wsite");
    let o = wsitec(&["build", &site, "-o", good.to_str().unwrap_or_default()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut built = wsite_runtime::artifact::read(&good, env!("CARGO_PKG_VERSION")).expect("reads");
    built.meta.compiler_version = "0.0.1".into();
    let stale = dir.join("stale.wsb");
    wsite_runtime::artifact::write(&built, &stale).expect("writes");
    let bytes = std::fs::read(&good).expect("bytes");
    let truncated = dir.join("truncated.wsb");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("writes");
    let garbage = dir.join("garbage.wsb");
    std::fs::write(&garbage, b"this is not a database at all").expect("writes");
    let cases = [
        (&stale, "stale"),
        (&truncated, "corrupt"),
        (&garbage, "not a wsite artifact"),
    ];
    for (path, says) in cases {
        for cmd in ["play", "agent", "prove"] {
            let p = path.to_str().unwrap_or_default();
            let o = wsitec(&[cmd, p, "--task", "update_phone"]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{cmd} {p}: {err}");
            assert!(err.contains(says), "{cmd} {p}: expected “{says}” in: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn build_refuses_unproven_tasks_unless_told_to_drop_them() {
    let dir = scratch("drop");
    let src = dir.join("shop.wsite");
    let fixture = wsite_tests::ui_dir().join("F401_horizon_too_short.wsite");
    let text = std::fs::read_to_string(fixture).expect("the fixture");
    // A second, feasible task, so something is left after dropping.
    let text = format!(
        "{text}\ntask open_catalog {{\n  say \"Open the shop.\"\n  goal page is Catalog\n}}\n"
    );
    std::fs::write(&src, text).expect("writes");
    let out = dir.join("shop.wsb");
    let (s, o) = (
        src.to_str().unwrap_or_default(),
        out.to_str().unwrap_or_default(),
    );
    let refused = wsitec(&["build", s, "-o", o]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--drop-infeasible"));
    assert!(!out.exists(), "a refused build wrote the artifact");
    let dropped = wsitec(&["build", s, "-o", o, "--drop-infeasible"]);
    assert_eq!(
        dropped.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&dropped.stderr)
    );
    let built = wsite_runtime::artifact::read(&out, env!("CARGO_PKG_VERSION")).expect("reads");
    let names: Vec<&str> = built
        .program
        .tasks
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["open_catalog"]);
    assert!(built
        .tasks
        .iter()
        .any(|t| t.name == "buy_lamp" && t.verdict == "infeasible"));
    assert!(built.defects.iter().any(|d| d.code == "F401"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn prove_reports_verdicts_as_json_and_fails_on_unproven_tasks() {
    let fixture = wsite_tests::ui_dir().join("F401_horizon_too_short.wsite");
    let o = wsitec(&[
        "prove",
        "--format",
        "json",
        fixture.to_str().unwrap_or_default(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(report["tasks"][0]["verdict"], "infeasible");
    assert!(report["tasks"][0]["reason"]
        .as_str()
        .is_some_and(|r| r.contains("2 steps")));
    let site = example("ecommerce/trailhead.wsite");
    let o = wsitec(&["prove", "--format", "json", &site, "--task", "price_check"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let tasks = report["tasks"].as_array().expect("tasks");
    assert!(tasks.len() > 1, "every instance of the template");
    assert!(tasks
        .iter()
        .all(|t| t["verdict"] == "feasible"
            && t["witness"].as_array().is_some_and(|w| !w.is_empty())));
}

#[test]
fn use_joins_files_into_one_program() {
    let dir = std::env::temp_dir().join(format!("wsitec-use-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("parts")).expect("temp dir");
    std::fs::write(
        dir.join("main.wsite"),
        "use \"./parts/catalog.wsite\"\nsite S { title \"t\" domain other start Home }\npage Home {\n  for p in Product { text \"{p.name}\" }\n  link \"About\" -> About\n}\n",
    )
    .expect("write");
    std::fs::write(dir.join("parts/catalog.wsite"), "table Product { name: Text }\nseed Product [ { name: \"Lamp\" } ]\npage About { link \"Home\" -> Home }\n")
        .expect("write");
    let out = wsitec(&[
        "check",
        "--color",
        "never",
        dir.join("main.wsite").to_str().unwrap_or_default(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A mistake in the used file is reported against that file.
    std::fs::write(
        dir.join("parts/catalog.wsite"),
        "table Product { name: Text }\npage About { link \"Home\" -> Hom }\n",
    )
    .expect("write");
    let out = wsitec(&[
        "check",
        "--color",
        "never",
        dir.join("main.wsite").to_str().unwrap_or_default(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("catalog.wsite:2:"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `use` of something that is not a regular file (a FIFO blocked the
/// checker forever, a device never ends) is an E101, at once.
#[test]
fn use_of_a_fifo_or_a_device_is_an_error_not_a_hang() {
    let dir = scratch("use-special");
    let fifo = dir.join("pipe.wsite");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let mut targets = vec!["/dev/zero".to_string()];
    if made.is_ok_and(|s| s.success()) {
        targets.push(fifo.display().to_string());
    }
    for target in targets {
        let main = dir.join("main.wsite");
        std::fs::write(
            &main,
            format!("use \"{target}\"\nsite S {{ title \"t\" domain other start Home }}\npage Home {{ text \"x\" }}\n"),
        )
        .expect("write");
        let out = wsitec(&[
            "check",
            "--color",
            "never",
            main.to_str().unwrap_or_default(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{target}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{target}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn files_that_use_each_other_or_themselves_load_once() {
    let dir = std::env::temp_dir().join(format!("wsitec-cycle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("a.wsite"),
        "use \"./a.wsite\"\nuse \"././b.wsite\"\nsite S { title \"t\" domain other start Home }\npage Home { link \"About\" -> About }\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("b.wsite"),
        "use \"./a.wsite\"\nuse \"../wsitec-cycle-".to_string()
            + &std::process::id().to_string()
            + "/b.wsite\"\npage About { link \"Home\" -> Home }\n",
    )
    .expect("write");
    let out = wsitec(&[
        "check",
        "--color",
        "never",
        dir.join("./a.wsite").to_str().unwrap_or_default(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sarif_carries_the_same_defects_as_json() {
    for path in wsite_tests::fixtures().iter().take(12) {
        let file = path.to_str().unwrap_or_default();
        let json: serde_json::Value =
            serde_json::from_slice(&wsitec(&["check", "--format", "json", file]).stdout)
                .expect("json");
        let sarif: serde_json::Value =
            serde_json::from_slice(&wsitec(&["check", "--format", "sarif", file]).stdout)
                .expect("sarif");
        assert_eq!(sarif["version"], "2.1.0");
        let mut from_json: Vec<(String, u64)> = json["defects"]
            .as_array()
            .expect("defects")
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or("").to_string(),
                    d["span"]["line"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        let mut from_sarif: Vec<(String, u64)> = sarif["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| {
                let line = r["locations"][0]["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap_or(0);
                (r["ruleId"].as_str().unwrap_or("").to_string(), line)
            })
            .collect();
        from_json.sort();
        from_sarif.sort();
        assert_eq!(from_json, from_sarif, "{}", path.display());
    }
}

/// A running `wsitec agent` on `site`, starting with `task`.
fn agent(site: &str, task: &str) -> wsite_tests::agent_process::AgentProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_wsitec"));
    command.args(["agent", site, "--task", task]);
    wsite_tests::agent_process::AgentProcess::spawn(command)
}

#[test]
fn an_external_script_completes_a_task_over_the_agent_protocol() {
    let site = wsite_tests::repo_root().join("examples/ecommerce/trailhead.wsite");
    let mut agent = agent(site.to_str().unwrap_or_default(), "cancel_unshipped_order");
    let start = agent.send("{\"reset\": {\"task\": \"cancel_unshipped_order\", \"seed\": 0}}");
    let orders = agent.click(&start, "#orders_link");
    // Bad lines get an error and leave the episode as it was.
    assert!(agent.send("garbage").get("error").is_some());
    assert!(agent.send("{\"act\": 999}").get("error").is_some());
    let order = agent.click(&orders, "Order #4 ");
    let done = agent.click(&order, "#cancel_order");
    // Dense reward, α = 0.5, η = 0.01: `visited Orders` is 1/3 of the progress
    // weight, the order page the next 1/3, and the cancellation succeeds.
    let rewards: Vec<f64> = [&orders, &order, &done]
        .iter()
        .map(|r| r["reward"].as_f64().unwrap_or(f64::NAN))
        .collect();
    let expected = [
        0.5 * (1.0 / 3.0) - 0.01,
        0.5 * (2.0 / 3.0) - 0.01,
        1.0 - 0.01,
    ];
    for (got, want) in rewards.iter().zip(expected) {
        assert!(
            (got - want).abs() < 1e-12,
            "rewards {rewards:?}, expected {expected:?}"
        );
    }
    assert_eq!(done["done"], true);
    assert_eq!(done["success"], true);
    assert_eq!(done["info"]["epsilon"], 0);
}

#[test]
fn play_reports_bad_input_and_quits_cleanly() {
    use std::io::Write;
    let site = wsite_tests::repo_root().join("examples/ecommerce/trailhead.wsite");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args([
            "play",
            site.to_str().unwrap_or_default(),
            "--task",
            "cancel_unshipped_order",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("wsitec play starts");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "banana\n9999\n0\nq").expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wsitec play ends");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(text.contains("type an action number"), "{text}");
    assert!(text.contains("there is no action 9999"), "{text}");
    assert!(text.contains("reward"), "{text}");
    let unknown = wsitec(&[
        "play",
        site.to_str().unwrap_or_default(),
        "--task",
        "no_such_task",
    ]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no task `no_such_task`"));
}

/// Runs `wsitec args` with `input` on stdin; its stdout.
fn run_with_input(args: &[&str], input: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("wsitec starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wsitec ends");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn bench_reports_every_column_as_json() {
    let site = wsite_tests::examples()
        .into_iter()
        .find(|p| p.ends_with("banking/cascade_cu.wsite"))
        .expect("the cascade_cu example");
    let out = wsitec(&[
        "bench",
        "--format",
        "json",
        "--seconds",
        "0.2",
        site.to_str().unwrap_or_default(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert!(
        report["machine"]["cores"].as_u64().unwrap_or(0) > 0,
        "{report}"
    );
    assert_eq!(report["prover"]["fingerprint_bits"], 128, "{report}");
    let sites = report["sites"].as_array().expect("a sites array");
    assert_eq!(sites.len(), 1, "{report}");
    let row = &sites[0];
    assert!(row["site"]
        .as_str()
        .is_some_and(|s| s.ends_with("cascade_cu.wsite")));
    for field in [
        "compile_ms",
        "interp_steps_per_s",
        "interp_steps_per_s_all_cores",
        "cores",
        "scaling",
        "batched_steps_per_s",
        "batched_steps_per_s_one_core",
        "batched_scaling",
        "batched_envs",
        "jit_compile_ms",
        "jit_predicates",
        "goal_eval_ns_interp",
        "goal_eval_ns_jit",
        "episodes_per_hour",
        "prover_states_per_s",
        "prover_states",
        "prover_seconds",
        "prover_largest_states_per_s_jit",
        "instances",
        "feasible",
    ] {
        let value = row[field].as_f64().unwrap_or(0.0);
        assert!(value > 0.0, "{field} = {} in {row}", row[field]);
    }
    assert_eq!(row["feasible"], row["instances"], "{row}");
    assert_eq!(
        row["jit_predicates_compiled"], row["jit_predicates"],
        "{row}"
    );
    assert!(row["largest_space"]["task"]
        .as_str()
        .is_some_and(|t| !t.is_empty()));
    assert!(
        row["largest_space"]["states"].as_u64().unwrap_or(0) > 0,
        "{row}"
    );
    // Speed is reported, never asserted: timings flake.
    assert!(row["goal_eval_jit_speedup"].is_number(), "{row}");
    // Whole JIT steps need every page compiled; this site's dashboard is not.
    for key in ["op_steps_per_s_interp", "op_steps_per_s_jit"] {
        assert!(row.get(key).is_some(), "{key} missing in {row}");
    }
}

#[test]
fn gen_writes_a_split_with_its_manifest_and_refuses_bad_usage() {
    let dir = std::env::temp_dir().join(format!("wsitec-gen-{}", std::process::id()));
    let out = dir.to_str().unwrap_or_default();
    let run = wsitec(&[
        "gen", "--split", "6/2/2", "--seed", "4", "--stats", "-o", out,
    ]);
    assert!(run.status.success(), "{run:?}");
    let table = String::from_utf8_lossy(&run.stdout);
    assert!(
        table.contains("witness steps") && table.contains("all"),
        "{table}"
    );
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("a manifest"),
    )
    .expect("the manifest is JSON");
    let sites = manifest["sites"].as_array().expect("sites");
    assert_eq!(sites.len(), 10);
    for site in sites {
        let file = site["file"].as_str().expect("a file name");
        assert!(dir.join(file).exists(), "{file}");
        assert_eq!(site["check"]["errors"].as_array().map(Vec::len), Some(0));
    }
    assert!(manifest["templates"]["test"].is_array());

    let raw = wsitec(&[
        "gen", "--domain", "social", "--count", "3", "--raw", "-o", out,
    ]);
    assert!(raw.status.success(), "{raw:?}");
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).unwrap_or_default(),
    )
    .expect("the manifest is JSON");
    assert!(manifest["sites"][0]["defects"].is_array());

    for bad in [
        vec!["gen", "--split", "6/2", "-o", out],
        vec!["gen", "--count", "2", "-o", out],
        vec!["gen", "--domain", "astrology", "-o", out],
        // A feasible share needs `--runnable`, and lies between 0 and 1.
        vec![
            "gen",
            "--domain",
            "social",
            "--raw",
            "--feasible",
            "0.5",
            "-o",
            out,
        ],
        vec![
            "gen",
            "--domain",
            "social",
            "--raw",
            "--runnable",
            "--feasible",
            "1.5",
            "-o",
            out,
        ],
    ] {
        let run = wsitec(&bad);
        assert_eq!(run.status.code(), Some(2), "{bad:?}: {run:?}");
        assert!(
            String::from_utf8_lossy(&run.stderr).contains("error"),
            "{bad:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
