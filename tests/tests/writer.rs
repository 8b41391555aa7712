//! State writers for extern markers, in process (INTERFACES.md, "Extern
//! markers at run time"): on the help-desk site (`tests/sites/helpdesk.wsite`),
//! every kind of hostile proposal is a rejected step that leaves the state's
//! bytes as they were (page, arguments, form values, database, session), the
//! episode goes on, and a valid proposal commits and shows on the page.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use serde_json::{json, Value as Json};
use std::sync::{Arc, Mutex};
use wsite_runtime::env::{
    self, Action, ActionKind, Env, Proposal, RewardConfig, SharedWriter, StateWriter, WriteRequest,
    WriterError,
};
use wsite_runtime::interp::gate::ProposedDelta;
use wsite_runtime::ir::{Program, Value};
use wsite_runtime::layout::{StateLayout, TextPool, HEADER_SIZE};

fn helpdesk() -> Program {
    let path = wsite_tests::repo_root().join("tests/sites/helpdesk.wsite");
    let text = std::fs::read_to_string(&path).expect("the help-desk site");
    let out = wsitec::compile_str("helpdesk.wsite", &text);
    out.program.expect("the help-desk site compiles")
}

/// A writer that answers every request with the same JSON line, and keeps
/// the requests it was given.
struct Scripted {
    answer: String,
    seen: Arc<Mutex<Vec<Json>>>,
}

impl StateWriter for Scripted {
    fn propose(&mut self, request: &WriteRequest<'_>) -> Result<Proposal, WriterError> {
        self.seen.lock().unwrap().push(request.to_json());
        request.parse_answer(&self.answer)
    }
}

/// A writer that always fails, as a broken process does.
struct Broken;

impl StateWriter for Broken {
    fn propose(&mut self, _: &WriteRequest<'_>) -> Result<Proposal, WriterError> {
        Err(WriterError::Failed(
            "the simulator exited (exit status: 1)".into(),
        ))
    }
}

/// An episode of `answer_printer` on the ticket page, a memo typed.
struct Episode<'p> {
    env: Env<'p>,
    layout: StateLayout,
    pool: TextPool,
    seen: Arc<Mutex<Vec<Json>>>,
}

impl<'p> Episode<'p> {
    fn new(program: &'p Program) -> Episode<'p> {
        let instance = env::instances(program)
            .into_iter()
            .find(|i| i.name == "answer_printer")
            .expect("the task");
        let mut env = Env::new(program, &instance, RewardConfig::default()).expect("resets");
        let memo = index(&env, "#memo");
        env.step(&Action {
            kind: ActionKind::Type,
            element: Some(memo),
            text: Some("call back".into()),
        })
        .expect("types");
        Episode {
            env,
            layout: StateLayout::for_program(program).expect("a layout"),
            pool: TextPool::for_program(program),
            seen: Arc::new(Mutex::new(Vec::new())),
        }
    }

    fn answer(&mut self, line: &str) {
        self.env.set_writer(Some(SharedWriter::new(Scripted {
            answer: line.to_string(),
            seen: self.seen.clone(),
        })));
    }

    /// Everything but the header (step count, flags, alert): page, arguments,
    /// form values, session, tables, visited pages.
    fn bytes(&mut self) -> Vec<u8> {
        let all = self.env.encode_state(&self.layout, &mut self.pool).unwrap();
        all[HEADER_SIZE..].to_vec()
    }

    fn draft(&mut self) -> env::StepResult {
        let at = index(&self.env, "#draft");
        self.env.step(&click(at)).expect("the button takes a click")
    }

    /// Clicks `draft` expecting a refusal whose alert starts with `alert`,
    /// with the state as it was; then shows the episode goes on.
    fn refused(&mut self, alert: &str) {
        let before = self.bytes();
        let world = self.env.world().clone();
        let nav = self.env.navigation().clone();
        let steps = self.env.steps();
        let step = self.draft();
        let got = self.env.observation().alert.unwrap_or_default();
        assert!(got.starts_with(alert), "alert `{got}`, expected `{alert}…`");
        assert_eq!(step.epsilon, 1, "{got}");
        assert!(!step.done, "{got}");
        assert!((step.reward - (-0.2 - 0.01)).abs() < 1e-12, "{step:?}");
        assert_eq!(self.env.world(), &world, "{got}");
        assert_eq!(self.env.navigation(), &nav, "{got}");
        assert_eq!(self.bytes(), before, "{got}: the state's bytes changed");
        assert_eq!(self.env.steps(), steps + 1);
        // The episode goes on: another step is taken as usual.
        let back = index(&self.env, "Back to the inbox");
        let mut probe = self.env.clone();
        let next = probe.step(&click(back)).expect("a next step");
        assert_eq!(next.epsilon, 0);
        assert_ne!(probe.navigation().page, self.env.navigation().page);
    }

    fn text(&self) -> String {
        self.env.observation().axtree
    }
}

fn click(at: usize) -> Action {
    Action {
        kind: ActionKind::Click,
        element: Some(at),
        text: None,
    }
}

/// The index of the element with this key, or whose text starts so.
fn index(env: &Env<'_>, key: &str) -> usize {
    let obs = env.observation();
    obs.elements
        .iter()
        .find(|e| e.key == key || e.text.starts_with(key))
        .unwrap_or_else(|| panic!("no element {key} in\n{}", obs.axtree))
        .index
}

fn delta(d: Json) -> String {
    json!({ "delta": d }).to_string()
}

fn set(field: &str, value: Json) -> String {
    delta(json!({"set": [{"table": "Ticket", "id": 3, "field": field, "value": value}]}))
}

#[test]
fn hostile_proposals_are_refused_and_change_nothing() {
    let program = helpdesk();
    let note = |body: &str| json!({"table": "Note", "values": {"ticket": 3, "body": body}});
    let cases: Vec<(String, &str)> = vec![
        (
            set("subject", json!("pwned")),
            "proposal refused: `draft_reply` may not set `Ticket.subject`",
        ),
        (
            delta(json!({"delete": [{"table": "Agent", "id": 1}]})),
            "proposal refused: `draft_reply` may not delete from `Agent`",
        ),
        (
            set("reply", json!(5)),
            "proposal refused: `Ticket.reply`: expected a string or null, found the number 5",
        ),
        (
            set("fee", json!(12.5)),
            "proposal refused: `Ticket.fee`: expected money",
        ),
        (set("fee", json!("12.50")), "proposal refused: `Ticket.fee`: \"12.50\" is not an amount"),
        (set("fee", json!(null)), "proposal refused: `Ticket.fee` of row #3 must be Money, not none"),
        (set("status", json!("lost")), "proposal refused: `Ticket.status`: \"lost\" is not a variant of `Status`"),
        (set("status", json!(1)), "proposal refused: `Ticket.status`: expected a variant"),
        (
            set("due", json!("2026-02-31")),
            "proposal refused: `Ticket.due`: `2026-02-31` does not exist: February 2026 has 28 days",
        ),
        (set("due", json!("03/05/2026")), "proposal refused: `Ticket.due`: \"03/05/2026\" is not a date"),
        (set("callback", json!("25:00")), "proposal refused: `Ticket.callback`: \"25:00\" is not a time"),
        (set("agent", json!(99)), "proposal refused: `Ticket.agent` of row #3 refers to no Agent with id 99"),
        (set("agent", json!("Ada")), "proposal refused: `Ticket.agent`: expected the id of a `Agent` row"),
        (
            delta(json!({"insert": [note("a"), note("b"), note("c")]})),
            "proposal refused: `Note` is full",
        ),
        (
            delta(json!({"insert": [{"table": "Note", "values": {"ticket": 42, "body": "x"}}]})),
            "proposal refused: `Note.ticket` of new row #8 refers to no Ticket with id 42",
        ),
        (
            set("fee", json!("-$1.00")),
            "proposal refused: invariant `fees_never_negative` would be broken",
        ),
        (
            delta(json!({"set": [{"table": "Tiket", "id": 3, "field": "reply", "value": "x"}]})),
            "proposal refused: unknown table `Tiket`",
        ),
        (set("answer", json!("x")), "proposal refused: `Ticket` has no field `answer`"),
        (set("id", json!(9)), "proposal refused: `Ticket` has no field `id`"),
        (
            delta(json!({"session": {"user": 1}})),
            "proposal refused: unknown session variable `user`",
        ),
        (delta(json!({"session": {"drafts": "many"}})), "proposal refused: `session.drafts`: expected an integer"),
        (
            delta(json!({"set": [{"table": "Ticket", "id": 99, "field": "reply", "value": "x"}]})),
            "proposal refused: no Ticket with id 99",
        ),
        (delta(json!({"set": {"table": "Ticket"}})), "proposal refused: `delta.set` must be an array"),
        (delta(json!({"update": []})), "proposal refused: `delta.update` must be absent"),
        (delta(json!({"set": [{"table": "Ticket", "field": "reply", "value": "x"}]})), "proposal refused: `delta.set[0].id` must be an integer row id"),
        (delta(json!([])), "proposal refused: `delta` must be an object"),
        // A valid part does not carry an invalid one through.
        (
            delta(json!({"set": [
                {"table": "Ticket", "id": 3, "field": "reply", "value": "fine"},
                {"table": "Ticket", "id": 3, "field": "due", "value": "2026-13-01"},
            ]})),
            "proposal refused: `Ticket.due`",
        ),
        ("this is not JSON".into(), "simulator failed: answered `this is not JSON`, which is not JSON"),
        ("{\"default\": false}".into(), "simulator failed: answered"),
        ("[1, 2]".into(), "simulator failed: answered"),
        (String::new(), "simulator failed: answered"),
    ];
    for (answer, alert) in cases {
        let mut episode = Episode::new(&program);
        episode.answer(&answer);
        episode.refused(alert);
        assert!(episode.text().contains("No reply yet"), "{answer}");
    }
    let mut episode = Episode::new(&program);
    episode.env.set_writer(Some(SharedWriter::new(Broken)));
    episode.refused("simulator failed: the simulator exited");
}

#[test]
fn a_valid_proposal_commits_and_shows_on_the_page() {
    let program = helpdesk();
    let mut episode = Episode::new(&program);
    let memo_before = episode.env.observation().elements[index(&episode.env, "#memo") - 1]
        .value
        .clone();
    episode.answer(&delta(json!({
        "set": [
            {"table": "Ticket", "id": 3, "field": "reply", "value": "We sent a technician"},
            {"table": "Ticket", "id": 3, "field": "due", "value": "2026-03-04"},
            {"table": "Ticket", "id": 3, "field": "callback", "value": "09:15"},
            {"table": "Ticket", "id": 3, "field": "fee", "value": "$1,012.50"},
            {"table": "Ticket", "id": 3, "field": "status", "value": "answered"},
            {"table": "Ticket", "id": 3, "field": "agent", "value": 1},
        ],
        "insert": [{"table": "Note", "values": {"ticket": 3, "body": "Technician booked"}}],
        "delete": [{"table": "Note", "id": 7}],
        "session": {"drafts": 5},
    })));
    let step = episode.draft();
    assert_eq!(step.epsilon, 0);
    assert!(step.success && step.done, "{step:?}");
    let text = episode.text();
    for shown in [
        "Reply: We sent a technician",
        "Status: answered",
        "Fee: $1,012.50",
        "Notes: 1",
        "Drafts written: 5",
    ] {
        assert!(text.contains(shown), "`{shown}` not in\n{text}");
    }
    assert_eq!(episode.env.observation().alert, None);
    // No `go`: the same page, with its form values.
    assert!(text.contains("heading \"Printer on fire\""), "{text}");
    let memo_after = episode.env.observation().elements[index(&episode.env, "#memo") - 1]
        .value
        .clone();
    assert_eq!(memo_after, memo_before);
    assert_eq!(memo_after.as_deref(), Some("call back"));
    let ticket = episode.env.world().db.row(1, 3).expect("ticket 3");
    assert_eq!(ticket.values[4], Value::Money(101_250));
}

#[test]
fn the_request_names_the_marker_its_arguments_writes_and_reads() {
    let program = helpdesk();
    let mut episode = Episode::new(&program);
    episode.answer("{\"default\": true}");
    let step = episode.draft();
    // `{"default": true}` runs the default body.
    assert_eq!(step.epsilon, 0);
    assert!(step.success);
    assert!(episode
        .text()
        .contains("Reply: Thanks for writing, we are on it."));
    assert!(episode.text().contains("Drafts written: 1"));
    let seen = episode.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let request = &seen[0];
    assert_eq!(request["marker"], "draft_reply");
    assert_eq!(request["args"], json!({"t": 3}));
    assert_eq!(
        request["writes"],
        json!([
            "Ticket.reply",
            "Ticket.due",
            "Ticket.callback",
            "Ticket.fee",
            "Ticket.status",
            "Ticket.agent",
            "Note",
            "session.drafts"
        ])
    );
    let tickets = &request["reads"]["Ticket"];
    assert_eq!(
        tickets[0],
        json!({"id": 3, "subject": "Printer on fire", "reply": null, "due": null,
               "callback": null, "fee": "$12.50", "status": "open", "agent": null})
    );
    assert_eq!(tickets[1]["status"], "closed");
    assert_eq!(
        request["reads"]["Note"],
        json!([{"id": 7, "ticket": 3, "body": "Customer called twice"}])
    );
    assert_eq!(request["reads"]["session"], json!({"drafts": 0}));
    // No permission names `Agent`: its rows are not shown.
    assert!(request["reads"].get("Agent").is_none(), "{request}");
}

#[test]
fn requires_come_first_and_a_false_one_never_asks_the_writer() {
    let program = helpdesk();
    let mut episode = Episode::new(&program);
    episode.answer("{\"default\": true}");
    let back = index(&episode.env, "Back to the inbox");
    episode.env.step(&click(back)).unwrap();
    let closed = index(&episode.env, "Ticket #4");
    episode.env.step(&click(closed)).unwrap();
    let step = episode.draft();
    assert_eq!(step.epsilon, 1);
    assert_eq!(
        episode.env.observation().alert.as_deref(),
        Some("This ticket is closed")
    );
    assert!(episode.seen.lock().unwrap().is_empty());
}

#[test]
fn without_a_writer_the_default_body_runs_as_before() {
    let program = helpdesk();
    let mut with_default = Episode::new(&program);
    with_default.answer("{\"default\": true}");
    let mut without = Episode::new(&program);
    let a = with_default.draft();
    let b = without.draft();
    assert_eq!(a, b);
    assert_eq!(with_default.bytes(), without.bytes());
    assert_eq!(with_default.env.world(), without.env.world());
    // And `set_writer(None)` goes back to the default body.
    let mut unset = Episode::new(&program);
    unset.answer("garbage");
    unset.env.set_writer(None);
    assert_eq!(unset.draft(), b);
}

#[test]
fn a_refused_proposal_then_a_good_one_commits() {
    let program = helpdesk();
    let mut episode = Episode::new(&program);
    episode.answer(&set("due", json!("2026-02-29")));
    episode.refused("proposal refused: `Ticket.due`: `2026-02-29` does not exist");
    // The episode goes on: a good answer commits.
    episode.answer(&set("reply", json!("Leap years are hard")));
    let step = episode.draft();
    assert_eq!(step.epsilon, 0);
    assert!(step.success);
    assert!(episode.text().contains("Reply: Leap years are hard"));
    // A reset keeps the writer.
    episode.env.reset().unwrap();
    assert!(episode.text().contains("No reply yet"));
    let step = episode.draft();
    assert!(step.success);
    assert_eq!(episode.seen.lock().unwrap().len(), 3);
}

#[test]
fn proposals_read_typed_values() {
    let program = helpdesk();
    let p = |d: Json| {
        wsite_runtime::env::writer_json::parse_delta(&program, &d).map_err(|e| e.to_string())
    };
    let d = p(json!({"set": [
        {"table": "Ticket", "id": 3, "field": "fee", "value": "-$0.05"},
        {"table": "Ticket", "id": 3, "field": "callback", "value": "7:05"},
        {"table": "Ticket", "id": 3, "field": "reply", "value": null},
    ]}))
    .unwrap();
    let values: Vec<&Value> = d.sets.iter().map(|s| &s.3).collect();
    assert_eq!(values[0], &Value::Money(-5));
    assert!(matches!(values[1], Value::Time(t) if t.hour == 7 && t.minute == 5));
    assert_eq!(values[2], &Value::None);
    assert_eq!(p(json!({})).unwrap(), ProposedDelta::default());
    for bad in [
        "$1,2", "$12.505", "$", "$1_000", "12", "$12.", "$ 12", "--$1",
    ] {
        let e = p(json!({"set": [{"table": "Ticket", "id": 3, "field": "fee", "value": bad}]}));
        assert!(e.is_err(), "{bad} read as money");
    }
    let good = p(json!({"set": [{"table": "Ticket", "id": 3, "field": "fee", "value": "$1,299"}]}));
    assert_eq!(good.unwrap().sets[0].3, Value::Money(129_900));
    let big = p(json!({"set": [{"table": "Ticket", "id": 3, "field": "fee",
        "value": "$99999999999999999999"}]}));
    assert!(big.is_err());
}
