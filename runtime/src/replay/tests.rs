//! Reading trajectory lines and task files: every accepted form, and a typed
//! error for each malformed one.

use super::*;
use crate::env::{Action, ActionKind};
use crate::prove::WitnessStep;

fn steps(line: &str) -> Vec<StepAction> {
    match Trajectory::parse(line) {
        Ok(t) => t.steps,
        Err(e) => panic!("{line}: {e}"),
    }
}

#[test]
fn the_three_action_forms_and_both_answer_forms_are_read() {
    let got = steps(
        r##"{"site": "s", "task": "t", "steps": [
            {"action": 2},
            {"action": {"kind": "click", "key": "#add"}},
            {"action": {"kind": "type", "element": 4, "text": "ThinkPad"}},
            {"action": {"kind": "answer"}, "answer": "11:00"},
            {"action": {"kind": "answer", "text": "11 am"}}]}"##,
    );
    let answer = |t: &str| {
        StepAction::Element(Action {
            kind: ActionKind::Answer,
            element: None,
            text: Some(t.into()),
        })
    };
    assert_eq!(
        got,
        vec![
            StepAction::Index(2),
            StepAction::Keyed(WitnessStep {
                kind: ActionKind::Click,
                key: Some("#add".into()),
                text: None
            }),
            StepAction::Element(Action {
                kind: ActionKind::Type,
                element: Some(4),
                text: Some("ThinkPad".into())
            }),
            answer("11:00"),
            answer("11 am"),
        ]
    );
}

#[test]
fn a_written_trajectory_reads_back_the_same() {
    let t = Trajectory {
        site: "Cafes".into(),
        task: "opening[c=3]".into(),
        seed: Some(7),
        steps: steps(
            r##"{"site":"s","task":"t","steps":[3,{"kind":"select","key":"Home:4:3[c=1]","text":"x"},{"kind":"click","element":2}]}"##,
        ),
    };
    let line = t.to_json().to_string();
    assert_eq!(Trajectory::parse(&line), Ok(t));
}

#[test]
fn each_malformed_line_gets_its_own_error() {
    let cases = [
        ("{nope", "not JSON"),
        ("[1]", "expected a JSON object"),
        (r#"{"task": "t", "steps": []}"#, "missing field `site`"),
        (
            r#"{"site": "s", "task": 3, "steps": []}"#,
            "field `task` must be a string",
        ),
        (r#"{"site": "s", "task": "t"}"#, "missing field `steps`"),
        (
            r#"{"site": "s", "task": "t", "steps": [0, {"action": {"kind": "jump", "element": 1}}]}"#,
            "step 2: unknown action kind `jump`",
        ),
        (
            r#"{"site": "s", "task": "t", "steps": [{"action": {"kind": "click"}}]}"#,
            "step 1: this action needs a `key` or an `element`",
        ),
        (
            r#"{"site": "s", "task": "t", "steps": [{"action": {"kind": "answer"}}]}"#,
            "step 1: an answer needs its text",
        ),
        (
            r#"{"site": "s", "task": "t", "steps": [{"action": {"kind": "click", "element": 0}}]}"#,
            "step 1: `element` must be a positive integer",
        ),
        (
            r#"{"site": "s", "task": "t", "steps": [-1]}"#,
            "step 1: an action is an index",
        ),
        (
            r#"{"site": "s", "task": "t", "seed": "x", "steps": []}"#,
            "field `seed` must be a whole number",
        ),
    ];
    for (line, want) in cases {
        match Trajectory::parse(line) {
            Ok(t) => panic!("{line} was read as {t:?}"),
            Err(e) => assert!(e.to_string().starts_with(want), "{line}: {e}"),
        }
    }
}

#[test]
fn task_files_are_read_in_every_layout() {
    let one = r#"{"task_id": "a", "key_nodes": ["search_box", "CafePage(3)"]}"#;
    let two = r#"{"task_id": "b"}"#;
    let layouts = [
        format!("[{one}, {two}]"),
        format!("{{\"tasks\": [{one}, {two}]}}"),
        format!("{one}\n\n{two}\n"),
    ];
    for text in layouts {
        let got = parse_task_file(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(got.len(), 2, "{text}");
        assert_eq!(got["a"], vec!["search_box", "CafePage(3)"]);
        assert!(got["b"].is_empty());
    }
    assert_eq!(
        parse_task_file("{\"task_id\": \"a\"}\n{oops"),
        Err(TaskFileError::NotJson(
            2,
            "key must be a string at line 1 column 2".into()
        ))
    );
    assert!(matches!(
        parse_task_file(r#"[{"key_nodes": []}]"#),
        Err(TaskFileError::BadTask(1, _))
    ));
}
