//! `wsitec report` end to end: an experiment directory laid out as
//! scripts/experiment.sh writes it becomes the Markdown tables (conditions
//! grouped by name, seeds pooled into t-intervals, domains, hand-written
//! sites apart) and a PNG of the learning curves.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn wsitec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .output()
        .expect("wsitec runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wsitec-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// `wsitec eval --format json` of a policy with `rate` overall and per domain.
fn evaluation(rate: f64) -> String {
    let line = |name: &str| {
        format!(
            r#"{{"name":"{name}","successes":{k},"episodes":100,"success_rate":{rate},"ci95":[0.0,1.0]}}"#,
            k = (rate * 100.0).round()
        )
    };
    format!(
        r#"{{"sites":[{}],"domains":[{}],"overall":{}}}"#,
        line("shop-1"),
        line("shop"),
        line("all")
    )
}

/// One run: ten updates of 1,000 steps each, training success rising to
/// `train_end`, and its test evaluation.
fn write_run(dir: &Path, name: &str, train_end: f64, test: f64) {
    let run = dir.join("runs").join(name);
    std::fs::create_dir_all(&run).unwrap();
    let metrics: String = (1..=10)
        .map(|k| {
            format!(
                "{{\"update\":{k},\"env_steps\":{},\"episodes\":8,\"mean_return\":0.1,\"success_rate\":{}}}\n",
                1000 * k,
                train_end * k as f64 / 10.0
            )
        })
        .collect();
    std::fs::write(run.join("metrics.jsonl"), metrics).unwrap();
    std::fs::create_dir_all(dir.join("eval")).unwrap();
    std::fs::write(
        dir.join("eval").join(format!("{name}.json")),
        evaluation(test),
    )
    .unwrap();
}

#[test]
fn an_experiment_directory_becomes_tables_and_a_figure() {
    let dir = scratch("experiment");
    for (condition, test) in [
        ("raw-terminal", 0.1),
        ("raw-dense", 0.2),
        ("verified-terminal", 0.3),
        ("verified-dense", 0.4),
    ] {
        for seed in 0..3 {
            write_run(
                &dir,
                &format!("{condition}-{seed}"),
                0.5,
                test + 0.01 * seed as f64,
            );
        }
    }
    std::fs::create_dir_all(dir.join("eval-heldout")).unwrap();
    std::fs::write(
        dir.join("eval-heldout/verified-dense-0.json"),
        evaluation(0.25),
    )
    .unwrap();
    let out = wsitec(&["report", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 0.40, 0.41, 0.42: half-width 4.303 · 0.01/√3 = 2.5 points; training
    // success over the last five updates (0.3 to 0.5) is 40%.
    assert!(
        stdout.contains(
            "| verified-dense | 3 | 41.0% | ±2.5 | 40.0%, 41.0%, 42.0% | 40.0% | 58.7% |"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("| shop | 11.0% ±2.5 | 21.0% ±2.5 | 31.0% ±2.5 | 41.0% ±2.5 |"),
        "{stdout}"
    );
    assert!(stdout.contains("ordering raw-terminal < raw-dense < verified-terminal < verified-dense (by means): holds"), "{stdout}");
    let heldout = stdout
        .split("Hand-written")
        .nth(1)
        .expect("a held-out section");
    assert!(
        heldout.contains("| verified-dense | 1 | 25.0% | n/a | 25.0% | 40.0% | — |"),
        "{heldout}"
    );
    let png = std::fs::read(dir.join("curves.png")).expect("the figure");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
}

#[test]
fn a_directory_without_runs_is_a_clear_error() {
    let dir = scratch("empty");
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let out = wsitec(&["report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no runs in"));
    std::fs::write(dir.join("runs/oops"), "").unwrap();
    std::fs::create_dir_all(dir.join("runs/bad-0")).unwrap();
    std::fs::write(
        dir.join("runs/bad-0/metrics.jsonl"),
        "{\"env_steps\":1}\nnot json\n",
    )
    .unwrap();
    let out = wsitec(&["report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("metrics.jsonl` line 1"), "{stderr}");
}
