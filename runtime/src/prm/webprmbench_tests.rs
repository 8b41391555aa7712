//! WebPRMBench records: the round trip ours → records → ours, and reading
//! the public shape (JSON array or lines, numeric ids).

use super::*;
use crate::env::ActionKind;
use crate::prove::WitnessStep;

fn cand(kind: ActionKind, element: Option<usize>, text: Option<&str>, line: &str) -> Candidate {
    Candidate {
        action: line.into(),
        step: Some(WitnessStep {
            kind,
            key: element.map(|e| format!("k{e}")),
            text: text.map(String::from),
        }),
        element,
        distance_after: After::Steps(2),
        hard: Vec::new(),
    }
}

fn instance() -> Instance {
    Instance {
        id: "shop/buy@1#0".into(),
        site: "shop".into(),
        domain: "ecommerce".into(),
        task: "buy".into(),
        kind: "operation".into(),
        step: 1,
        origin: Origin::Witness,
        instruction: "Buy the X1".into(),
        url: "/p/1".into(),
        title: "X1".into(),
        alert: None,
        observation: "[1] link \"Home\"\n[2] input \"Qty\"".into(),
        history: vec!["click [3] link \"X1\"".into()],
        trace: Vec::new(),
        distance: 3,
        remaining: 9,
        chosen: cand(
            ActionKind::Type,
            Some(2),
            Some("it's 2"),
            "type [2] input \"Qty\" \"it's 2\"",
        ),
        rejected: vec![
            cand(ActionKind::Click, Some(1), None, "click [1] link \"Home\""),
            cand(
                ActionKind::Select,
                Some(2),
                Some("L"),
                "select [2] input \"Qty\" \"L\"",
            ),
            cand(ActionKind::Answer, None, Some("42"), "answer \"42\""),
            cand(ActionKind::Click, Some(2), None, "click [2] input \"Qty\""),
        ],
    }
}

fn action_of(c: &Candidate) -> Option<Action> {
    c.step.as_ref().map(|s| Action {
        kind: s.kind,
        element: c.element,
        text: s.text.clone(),
    })
}

#[test]
fn round_trip_keeps_text_actions_and_the_chosen_one() {
    let ours = instance();
    let line = serde_json::to_string(&to_record(&ours)).unwrap();
    assert!(line.contains(r#""task_id":"shop/buy@1#0""#), "{line}");
    assert!(
        line.contains(r#""action":"fill('2', 'it\\'s 2')""#),
        "{line}"
    );
    let back = import(&line).unwrap();
    let [back] = back.as_slice() else {
        panic!("{back:?}")
    };
    assert_eq!(back.id, ours.id);
    assert_eq!(back.instruction, ours.instruction);
    assert_eq!(back.observation, ours.observation);
    assert_eq!(back.history, ours.history);
    assert_eq!(back.domain, ours.domain);
    assert_eq!(back.origin, Origin::Imported);
    let chosen = parse_browsergym(&back.chosen.action);
    assert_eq!(chosen, action_of(&ours.chosen));
    for (b, o) in back.rejected.iter().zip(&ours.rejected) {
        assert_eq!(parse_browsergym(&b.action), action_of(o));
        assert_eq!(b.distance_after, After::Unknown);
    }
    assert_eq!(back.rejected.len(), 4);
    // Written again, the imported instance gives the same record.
    assert_eq!(serde_json::to_string(&to_record(back)).unwrap(), line);
}

#[test]
fn public_records_read_from_an_array_with_numeric_ids() {
    let text = r#"[{"task_id": 17, "step_id": 3, "intent": "Find the hours", "start_url": "http://x",
      "current_url": "http://x/a", "text_observation": "[5] link 'Hours'",
      "action_history": ["click('2')"], "thought_history": ["go"],
      "chosen": [{"thought": "t", "action": "click('5')"}],
      "rejected": [{"thought": "", "action": "scroll(0, 200)"}, {"thought": "", "action": "click('1')"},
                   {"thought": "", "action": "go_back()"}, {"thought": "", "action": "fill('4', 'x')"}],
      "source_name": "webarena", "gt_checklist": "…", "image_list": []}]"#;
    let got = import(text).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].id, "17:3");
    assert_eq!(got[0].domain, "webarena");
    assert_eq!(got[0].chosen.element, Some(5));
    assert_eq!(got[0].rejected[0].element, None);
    assert_eq!(got[0].rejected[0].action, "scroll(0, 200)");
}

#[test]
fn bad_records_name_their_place() {
    let err = import("{\"task_id\": 1}\n").unwrap_err();
    assert!(matches!(err, ImportError::Record { n: 1, .. }), "{err}");
    let two_chosen = r#"{"task_id":"a","intent":"i","text_observation":"o","source_name":"s",
      "chosen":[{"action":"click('1')"},{"action":"click('2')"}],"rejected":[{"action":"click('3')"}]}"#
        .replace('\n', "");
    let err = import(&format!("\n{two_chosen}\n")).unwrap_err();
    assert!(matches!(err, ImportError::Record { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "record 1: `chosen` holds 2 actions, not one"
    );
    assert!(matches!(import("[1,"), Err(ImportError::NotJson(_))));
}
