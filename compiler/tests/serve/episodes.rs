//! Episodes outlive the server, refuse a foreign database, and take extern
//! markers' effects from `--simulator`, over real HTTP.

use super::common::{remove_db, session_rows_at, stored_meta, temp_path, Client, PageForm, Served};
use serde_json::json;
use std::process::Command;

const SHOP: &str = "examples/ecommerce/trailhead.wsite";

fn root(path: &str) -> std::path::PathBuf {
    wsite_tests::repo_root().join(path)
}

#[test]
fn a_restart_keeps_every_session() {
    let db = temp_path("restart", "sqlite");
    let (cookie, state) = {
        let served = Served::with_db(&root(SHOP), db.clone(), &[]);
        let mut client = Client::new(&served.base);
        assert_eq!(client.get("/").status, 200);
        let reply = client.get("/orders");
        assert_eq!(
            (reply.status, reply.location.as_deref()),
            (303, Some("/orders"))
        );
        (client.cookie.clone(), client.state())
    };
    assert_eq!(state["step"], 1, "{state}");
    let served = Served::with_db(&root(SHOP), db.clone(), &[]);
    let mut client = Client::new(&served.base);
    client.cookie = cookie.clone();
    assert_eq!(client.state(), state, "the same episode after the restart");
    assert_eq!(client.cookie, cookie, "no new session was started");
    assert_eq!(
        client.get("/orders").status,
        200,
        "still on the orders page"
    );
    drop(served);
    remove_db(&db);
}

#[test]
fn a_database_of_another_site_is_refused() {
    let db = temp_path("foreign", "sqlite");
    let db_arg = db.display().to_string();
    drop(Served::with_db(&root(SHOP), db.clone(), &[]));
    let other = Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(["serve", "--port", "0", "--db", &db_arg])
        .arg(root("examples/banking/cascade_cu.wsite"))
        .output()
        .expect("wsitec runs");
    assert!(!other.status.success());
    let err = String::from_utf8_lossy(&other.stderr);
    remove_db(&db);
    assert!(err.contains("holds the sessions of another site"), "{err}");
}

#[test]
fn extern_markers_take_the_simulators_delta() {
    let delta = r#"{"set": [{"table": "Ticket", "id": "{t}", "field": "reply", "value": "On it"}], "session": {"drafts": 2}}"#;
    let simulator = format!(
        "python3 {} '{delta}'",
        root("examples/simulators/echo_writer.py").display()
    );
    let site = root("tests/sites/helpdesk.wsite");
    let served = Served::start(&site, &["--simulator", &simulator]);
    let mut client = Client::new(&served.base);
    let reset = client.post_json(
        "/_wsite/reset",
        &json!({"task": "answer_printer", "seed": 7}),
    );
    assert_eq!(reset.status, 200, "{}", reset.body);
    let url = serde_json::from_str::<serde_json::Value>(&reset.body).expect("JSON")["url"]
        .as_str()
        .expect("a start URL")
        .to_string();
    let page = client.get(&url);
    assert!(page.body.contains("No reply yet"), "{}", page.body);
    let token = PageForm::scan(&page.body).token;
    let sent = client.post_form(
        &url,
        &[("_token", &token), ("#memo", ""), ("_key", "#draft")],
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    let state = client.state();
    assert_eq!(
        (state["success"].clone(), state["step"].clone()),
        (json!(true), json!(1))
    );
    let program = wsitec::compile_str(
        "helpdesk",
        &std::fs::read_to_string(&site).expect("readable"),
    )
    .program
    .expect("compiles");
    let session = client.cookie.clone().expect("a session");
    let tickets = session_rows_at(&served.db, "Ticket", &session);
    let reply = program
        .tables
        .iter()
        .find(|t| t.name == "Ticket")
        .and_then(|t| t.fields.iter().position(|f| f.name == "reply"))
        .expect("a Ticket.reply field");
    let row = tickets.iter().find(|(id, _)| *id == 3).expect("ticket 3");
    assert_eq!(row.1[reply], rusqlite::types::Value::Text("On it".into()));
    let meta = stored_meta(&served.db, &session);
    assert_eq!(meta.session, vec![wsite_runtime::ir::Value::Int(2)]);
    assert_eq!(meta.seed, Some(7));
}
