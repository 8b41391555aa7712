//! Served generated sites equal the simulator, at volume.
//!
//! The examples are few and hand-written; the corpus generator (`wsitec
//! gen`) makes sites of every domain from other templates. For two sites of
//! each domain, a random browser in process (`App::handle`, no sockets) follows
//! plain links and posts the page form with random control values and a
//! random button, as a person clicking around would. After every request the
//! session's state and every SQL row must equal the simulator's after the
//! steps that request stands for (`play_post`). An episode that ends is
//! started again.

use crate::common::{all_rows, open_ro, remove_db, sim_rows, temp_path, PageForm, Sim};
use wsite_runtime::env::{instances, Control, Env};
use wsite_runtime::ir::Program;
use wsite_serve::{App, Method, Options, Request, Response};
use wsite_tests::Lcg;

/// Requests per site.
const ROUNDS: usize = 60;

fn sites() -> Vec<(String, Program)> {
    let mut out = Vec::new();
    for domain in wsitec::gen::DOMAINS {
        for site in wsitec::gen::generate(domain, 11, 2).expect("the generator runs") {
            let compiled = wsitec::compile_str(&site.file_name, &site.text);
            let program = compiled.program.expect("a generated site compiles");
            out.push((site.file_name, program));
        }
    }
    out
}

fn call(app: &App, session: &Option<String>, method: Method, path: &str, body: &str) -> Response {
    app.handle(&Request {
        method,
        path: path.into(),
        session: session.clone(),
        json: path == "/_wsite/reset",
        body: body.as_bytes().to_vec(),
    })
}

/// A random value for each control, a random button (or none).
fn random_post(env: &Env<'_>, form: &mut PageForm, rng: &mut Lcg) -> String {
    for e in env.page() {
        let key = &e.element.key;
        if form.get(key).is_none() || rng.next(3) != 0 {
            continue;
        }
        let value = match e.control {
            Control::Input { .. } => {
                let pool = env.typeable_values();
                if pool.is_empty() || rng.next(4) == 0 {
                    ["", "12", "abc", "2026-03-03"][rng.next(4)].to_string()
                } else {
                    pool[rng.next(pool.len())].clone()
                }
            }
            Control::Select => rng.next(e.element.options.len().max(1)).to_string(),
            Control::Checkbox { .. } => ["on", "off"][rng.next(2)].to_string(),
            _ => continue,
        };
        form.set(key, &value);
    }
    match form.buttons.len() {
        0 => String::new(),
        n => form.buttons[rng.next(n)].clone(),
    }
}

#[test]
fn random_browsing_on_generated_sites_equals_the_simulator() {
    let mut requests = 0;
    for (n, (name, program)) in sites().into_iter().enumerate() {
        let Some(task) = instances(&program).into_iter().next() else {
            continue;
        };
        let db = temp_path("generated", "sqlite");
        let options = Options {
            db: Some(db.clone()),
            task: Some(task.name.clone()),
            writer: None,
        };
        let app = App::new(program.clone(), options).expect("the site serves");
        let conn = open_ro(&db);
        let first = call(&app, &None, Method::Get, "/", "");
        let session = first.new_session.clone();
        let id = session.clone().expect("a session");
        let mut sim = Sim::new(&program, &task.name);
        let mut rng = Lcg(n as u64 * 104_729 + 3);
        for round in 0..ROUNDS {
            if sim.env.done() {
                // The episode ended (goal or horizon): start it again.
                let body = serde_json::json!({ "task": task.name }).to_string();
                let reset = call(&app, &session, Method::Post, "/_wsite/reset", &body);
                assert_eq!(reset.status, 200, "{name}: {}", reset.body);
                sim = Sim::new(&program, &task.name);
            }
            let url = sim.env.observation().url;
            let page = call(
                &app,
                &session,
                Method::Get,
                &wsite_serve::encode_path(&url),
                "",
            );
            assert_eq!(
                page.status, 200,
                "{name} round {round}: GET {url}: {}",
                page.body
            );
            let mut form = PageForm::scan(&page.body);
            let follow = !form.links.is_empty() && (form.token.is_empty() || rng.next(3) == 0);
            let (reply, what) = if follow {
                let (key, href) = form.links[rng.next(form.links.len())].clone();
                let first = form.links.iter().find(|l| l.1 == href).map(|l| l.0.clone());
                sim.post(&[], &first.unwrap_or(key));
                (
                    call(&app, &session, Method::Get, &href, ""),
                    format!("GET {href}"),
                )
            } else if !form.token.is_empty() {
                let key = random_post(&sim.env, &mut form, &mut rng);
                sim.post(&form.fields, &key);
                let body = form.body(&key);
                let path = wsite_serve::encode_path(&url);
                (
                    call(&app, &session, Method::Post, &path, &body),
                    format!("POST {body}"),
                )
            } else {
                break; // a page with nothing to do: the walk ends here
            };
            let what = format!("{name} round {round}: {what}");
            assert_eq!(reply.status, 303, "{what}: {}", reply.body);
            let state = call(&app, &session, Method::Get, "/_wsite/state", "").body;
            assert_eq!(state, sim.state(&task.name).to_string(), "{what}");
            let rows = all_rows(&conn, &program, &id);
            assert_eq!(
                rows,
                sim_rows(&program, &sim.env.state().world.db),
                "{what}"
            );
            requests += 1;
        }
        drop(conn);
        drop(app);
        remove_db(&db);
    }
    eprintln!("generated sites: {requests} requests compared with the simulator");
    assert!(requests > 200, "only {requests} requests were compared");
}
