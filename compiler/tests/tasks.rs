//! `wsitec tasks --generate` on the six examples: every generated task,
//! appended to its site, checks clean, builds proven and replays; bad
//! arguments are usage errors with a clear message.

#![allow(clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;
use wsite_runtime::tasks::{explore::Limits, Request};
use wsitec::taskgen;
use wsitec::Source;

const EXAMPLES: [&str; 6] = [
    "banking/cascade_cu.wsite",
    "ecommerce/trailhead.wsite",
    "education/northfield_registration.wsite",
    "government/marlow_bay_city_services.wsite",
    "healthcare/riverbend_patient_portal.wsite",
    "social/threadline.wsite",
];

fn example(name: &str) -> Source {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    Source {
        name: name.into(),
        text: std::fs::read_to_string(&path).expect("the example exists"),
    }
}

fn no_files(_: &str, path: &str) -> Result<Source, String> {
    Err(format!("no file `{path}` here"))
}

#[test]
fn generated_tasks_are_re_proven_on_every_example() {
    // A small exploration keeps witnesses short, so the debug build's
    // searches stay quick; the release figures use the defaults.
    let request = Request {
        seed: 5,
        limits: Limits {
            states: 3_000,
            depth: 5,
        },
        ..Request::default()
    };
    for name in EXAMPLES {
        let roots = [example(name)];
        let g = taskgen::generate(&roots, &mut no_files, name, 4, &request).expect("generates");
        assert!(g.tasks.len() >= 2, "{name}: {:?}", g.stats);
        let v = taskgen::validate(&roots, &mut no_files, &g.wsite());
        let n = g.tasks.len();
        assert_eq!(
            (v.declared, v.diagnostics, v.feasible, v.executable),
            (n, 0, n, n),
            "{name}"
        );
        for t in &g.tasks {
            assert!(t.witness.len() as u32 <= t.horizon, "{name}: {}", t.task_id);
            assert!(
                !t.key_nodes.is_empty(),
                "{name}: the start page is always key"
            );
        }
    }
}

fn wsitec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("wsitec runs")
}

#[test]
fn bad_arguments_are_usage_errors_with_a_message() {
    let site = "examples/banking/cascade_cu.wsite";
    for bad in [
        vec!["tasks", site, "--generate", "0"],
        vec!["tasks", site, "--generate", "3", "--kind", "shopping"],
        vec!["tasks", site, "--generate", "3", "--depth", "5-2"],
        vec!["tasks", site],
    ] {
        let run = wsitec(&bad);
        assert_eq!(run.status.code(), Some(2), "{bad:?}: {run:?}");
        assert!(
            String::from_utf8_lossy(&run.stderr).contains("error"),
            "{bad:?}"
        );
    }
    let missing = wsitec(&["tasks", "examples/nowhere.wsite", "--generate", "2"]);
    assert_eq!(missing.status.code(), Some(1), "{missing:?}");
}

#[test]
fn the_cli_writes_json_lines_and_declarations() {
    let site = "examples/banking/cascade_cu.wsite";
    let common = [
        "--generate",
        "2",
        "--kind",
        "retrieval",
        "--explore-states",
        "2000",
    ];
    let json = wsitec(&[&["tasks", site][..], &common].concat());
    assert!(json.status.success(), "{json:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON task per line"))
        .collect();
    assert_eq!(lines.len(), 2);
    for t in &lines {
        for field in [
            "task_id",
            "site",
            "kind",
            "goal",
            "expected_answers",
            "key_nodes",
            "horizon",
            "witness",
            "wsite",
        ] {
            assert!(t.get(field).is_some(), "{field} missing in {t}");
        }
        assert_eq!(t["kind"], "retrieval");
    }
    let wsite = wsitec(&[&["tasks", site, "--format", "wsite"][..], &common].concat());
    let text = String::from_utf8_lossy(&wsite.stdout);
    assert_eq!(text.matches("task gen_").count(), 2, "{text}");
}
