//! Load over real HTTP: `wsitec serve` on the banking example (a child
//! process with a SQLite file), many sessions at once, each a small browser
//! (ureq, redirects and cookie by hand) that replays the prover's witnesses
//! as a person would: it reads the page's form out of the HTML, types and
//! selects into it locally, and follows links or submits the page form with
//! every control's current value. After each task the session's
//! `/_wsite/state` (as text) and its SQL rows must equal the simulator's after
//! the same steps, so no update was lost; every session also adds a payee
//! whose name is its own, and each session's rows must hold exactly its own
//! names. Per-request latency is printed (requests/s, p50/p90/p99). A second
//! test races two posts of one session: the store serialises them, one wins
//! and the other is refused as stale. `scripts/serve-load.sh` runs the heavier
//! `#[ignore]`d variant in release.

use crate::common::{all_rows, encode_form, open_ro, play_post, sim_rows, sim_state, PageForm};
use crate::common::{Client, Reply, Served};
use std::path::PathBuf;
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};
use wsite_runtime::env::{instances, Action, ActionKind, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Verdict, WitnessStep};

const SITE: &str = "examples/banking/cascade_cu.wsite";

fn site() -> (PathBuf, Program) {
    let path = wsite_tests::repo_root().join(SITE);
    let text = std::fs::read_to_string(&path).expect("the example reads");
    let program = wsitec::compile_str(SITE, &text)
        .program
        .expect("the example compiles");
    (path, program)
}

/// What one browser request asked the episode to do.
#[derive(Clone, Debug)]
enum Sent {
    /// A plain link followed (GET its href).
    Link(String),
    /// The page form submitted, pressing a key (`""`: none).
    Form(Vec<(String, String)>, String),
    Answer(String),
}

/// A tiny browser: one session's cookie, the current page and its form.
struct Browser {
    client: Client,
    url: String,
    form: PageForm,
    /// What this episode sent, for the simulator.
    sent: Vec<Sent>,
    latencies: Vec<Duration>,
}

impl Browser {
    fn new(base: &str) -> Browser {
        Browser {
            client: Client::new(base),
            url: String::new(),
            form: PageForm::default(),
            sent: Vec::new(),
            latencies: Vec::new(),
        }
    }

    /// One timed request; the server must never fail.
    fn request(&mut self, path: &str, body: Option<(&str, String)>) -> Reply {
        let start = Instant::now();
        let reply = self.client.request(path, body);
        self.latencies.push(start.elapsed());
        assert!(
            reply.status < 500,
            "{path}: {} {}",
            reply.status,
            reply.body
        );
        reply
    }

    /// GETs `path`, following one redirect, and reads the page.
    fn open(&mut self, path: &str) {
        let mut reply = self.request(path, None);
        let mut here = path.to_string();
        if reply.status == 303 {
            here = reply.location.expect("a Location");
            reply = self.request(&here, None);
        }
        assert_eq!(reply.status, 200, "GET {here}: {}", reply.body);
        self.url = here;
        self.form = PageForm::scan(&reply.body);
    }

    /// POSTs `body` to `path`; a 303 is followed.
    fn post(&mut self, path: &str, content_type: &str, body: String) {
        let reply = self.request(path, Some((content_type, body)));
        assert_eq!(reply.status, 303, "POST {path}: {}", reply.body);
        self.open(&reply.location.expect("a Location"));
    }

    /// Starts `task` in this session (a new session on first use).
    fn reset(&mut self, task: &str) {
        if self.client.cookie.is_none() {
            self.open("/");
        }
        let body = serde_json::json!({ "task": task }).to_string();
        let reply = self.request("/_wsite/reset", Some(("application/json", body)));
        assert_eq!(reply.status, 200, "{}", reply.body);
        let url: serde_json::Value = serde_json::from_str(&reply.body).expect("JSON");
        self.sent.clear();
        self.open(url["url"].as_str().expect("a url"));
    }

    /// One witness step, as a person at a browser does it.
    fn act(&mut self, step: &WitnessStep) {
        let key = step.key.clone().unwrap_or_default();
        let text = step.text.clone().unwrap_or_default();
        match step.kind {
            ActionKind::Type => self.form.set(&key, &text),
            ActionKind::Select => {
                let (_, options) = self
                    .form
                    .selects
                    .iter()
                    .find(|s| s.0 == key)
                    .expect("a select");
                let i = options.iter().position(|o| *o == text).expect("the option");
                self.form.set(&key, &i.to_string());
            }
            ActionKind::Click if self.form.checkboxes.contains(&key) => {
                let on = self.form.get(&key) == Some("on");
                self.form.set(&key, if on { "off" } else { "on" });
            }
            ActionKind::Click => self.click(&key),
            ActionKind::Answer => {
                let pairs = [
                    ("_token".to_string(), self.form.token.clone()),
                    ("answer".into(), text.clone()),
                ];
                self.sent.push(Sent::Answer(text));
                self.post("/_wsite/answer", FORM, encode_form(&pairs));
            }
        }
    }

    fn click(&mut self, key: &str) {
        if let Some((_, href)) = self.form.links.iter().find(|l| l.0 == key).cloned() {
            self.sent.push(Sent::Link(key.into()));
            let reply = self.request(&href, None);
            assert_eq!(reply.status, 303, "GET {href}: {}", reply.body);
            return self.open(&reply.location.expect("a Location"));
        }
        self.sent
            .push(Sent::Form(self.form.fields.clone(), key.into()));
        let url = self.url.clone();
        let body = self.form.body(key);
        self.post(&url, FORM, body);
    }

    fn state(&mut self) -> String {
        self.request("/_wsite/state", None).body
    }
}

const FORM: &str = "application/x-www-form-urlencoded";

/// The simulator after what a browser sent: its `/_wsite/state` text and
/// its database.
fn simulate<'p>(program: &'p Program, instance: &TaskInstance, sent: &[Sent]) -> (String, Env<'p>) {
    let mut env = Env::new(program, instance, RewardConfig::default()).expect("it starts");
    let (mut reward, mut total) = (0.0, 0.0);
    for s in sent {
        let rewards: Vec<f64> = match s {
            Sent::Link(key) => vec![step(&mut env, ActionKind::Click, Some(key), None)],
            Sent::Form(fields, key) => play_post(&mut env, fields, key)
                .into_iter()
                .map(|(_, r)| r.reward)
                .collect(),
            Sent::Answer(text) => vec![step(&mut env, ActionKind::Answer, None, Some(text))],
        };
        if let Some(r) = rewards.last() {
            reward = *r;
            // Step by step, as the server (and an agent) sums a return.
            total = rewards.iter().fold(total, |t, r| t + r);
        }
    }
    (
        sim_state(&env, &instance.name, reward, total).to_string(),
        env,
    )
}

fn step(env: &mut Env<'_>, kind: ActionKind, key: Option<&str>, text: Option<&str>) -> f64 {
    let element = key.map(|k| {
        let page = env.page();
        let e = page
            .iter()
            .find(|e| e.element.key == k)
            .expect("the element");
        e.element.index
    });
    let action = Action {
        kind,
        element,
        text: text.map(str::to_string),
    };
    env.step(&action).expect("the simulator takes it").reward
}

/// Every task of the site with its witness.
fn witnesses(program: &Program) -> Vec<(TaskInstance, Vec<WitnessStep>)> {
    instances(program)
        .into_iter()
        .map(|instance| {
            let proof = prove::prove_instance(program, &instance, prove::Options::default())
                .expect("the prover runs");
            assert_eq!(proof.verdict, Verdict::Feasible, "{}", instance.name);
            (instance, proof.witness)
        })
        .collect()
}

/// Session `n`'s own payee: a marker inserts a row with its typed name.
fn own_payee(n: usize) -> Vec<WitnessStep> {
    let step = |kind, key: &str, text: Option<String>| WitnessStep {
        kind,
        key: Some(key.into()),
        text,
    };
    vec![
        step(ActionKind::Click, "#payees_link", None),
        step(
            ActionKind::Type,
            "#payee_name",
            Some(format!("Payee of session {n}")),
        ),
        step(ActionKind::Type, "#payee_ref", Some(format!("REF-{n:04}"))),
        step(ActionKind::Click, "#add_payee", None),
    ]
}

/// How much load: sessions, threads, tasks each session plays.
struct Load {
    sessions: usize,
    threads: usize,
    tasks_per_session: usize,
}

/// One session's run: its id and request latencies.
struct Run {
    session: String,
    latencies: Vec<Duration>,
}

fn play_session(
    served: &Served,
    program: &Program,
    tasks: &[(TaskInstance, Vec<WitnessStep>)],
    n: usize,
    per_session: usize,
) -> Run {
    let mut browser = Browser::new(&served.base);
    let conn = open_ro(&served.db);
    let payee = tasks
        .iter()
        .find(|t| t.0.name == "add_library_payee")
        .expect("the task");
    let own = (payee.0.clone(), own_payee(n));
    let plan = (0..per_session).map(|i| (&tasks[(n + i) % tasks.len()], true));
    for ((instance, witness), completes) in plan.chain([(&own, false)]) {
        browser.reset(&instance.name);
        for step in witness {
            browser.act(step);
        }
        let (want, env) = simulate(program, instance, &browser.sent);
        let session = browser.client.cookie.clone().expect("a session");
        assert_eq!(browser.state(), want, "session {n}, {}", instance.name);
        let rows = all_rows(&conn, program, &session);
        assert_eq!(
            rows,
            sim_rows(program, &env.state().world.db),
            "session {n}, {}",
            instance.name
        );
        if completes {
            assert!(
                env.state().success,
                "session {n}: {} not completed",
                instance.name
            );
        }
    }
    Run {
        session: browser.client.cookie.expect("a session"),
        latencies: browser.latencies,
    }
}

fn run_load(load: &Load) {
    let (path, program) = site();
    let tasks = witnesses(&program);
    let served = Served::start(&path, &[]);
    let runs = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..load.threads {
            let (served, program, tasks, runs) = (&served, &program, &tasks, &runs);
            scope.spawn(move || {
                for n in (t..load.sessions).step_by(load.threads) {
                    let run = play_session(served, program, tasks, n, load.tasks_per_session);
                    runs.lock().expect("no panic holding it").push((n, run));
                }
            });
        }
    });
    let wall = start.elapsed();
    let runs = runs.into_inner().expect("no panic holding it");
    assert_eq!(runs.len(), load.sessions);
    report(&runs, wall);
    check_own_rows(&served, &runs);
}

/// Prints requests/s and latency percentiles.
fn report(runs: &[(usize, Run)], wall: Duration) {
    let mut all: Vec<Duration> = runs.iter().flat_map(|(_, r)| r.latencies.clone()).collect();
    all.sort();
    let pct = |p: usize| all[(all.len() * p / 100).min(all.len() - 1)].as_secs_f64() * 1e3;
    println!(
        "serve load: {} sessions, {} requests in {:.2} s: {:.0} requests/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms",
        runs.len(),
        all.len(),
        wall.as_secs_f64(),
        all.len() as f64 / wall.as_secs_f64(),
        pct(50),
        pct(90),
        pct(99)
    );
}

/// Every session's own payee is under that session only.
fn check_own_rows(served: &Served, runs: &[(usize, Run)]) {
    let conn = open_ro(&served.db);
    let mut stmt = conn
        .prepare(
            "SELECT \"wsite:session\", name FROM \"Payee\" WHERE name LIKE 'Payee of session %' \
             ORDER BY name",
        )
        .expect("Payee reads");
    let found: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .and_then(Iterator::collect)
        .expect("rows");
    let mut want: Vec<(String, String)> = runs
        .iter()
        .map(|(n, run)| (run.session.clone(), format!("Payee of session {n}")))
        .collect();
    want.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(found, want);
}

#[test]
fn concurrent_sessions_lose_nothing_and_cross_nothing() {
    run_load(&Load {
        sessions: 16,
        threads: 8,
        tasks_per_session: 3,
    });
}

/// The heavier variant for `scripts/serve-load.sh` (release).
#[test]
#[ignore = "heavy: run by scripts/serve-load.sh in release"]
fn load_heavy() {
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    run_load(&Load {
        sessions: env("WSITE_LOAD_SESSIONS", 64),
        threads: env("WSITE_LOAD_THREADS", 16).max(1),
        tasks_per_session: 12,
    });
}

/// Two posts of one session at once: one is applied, the other refused as
/// stale; never both, never a 5xx.
#[test]
fn racing_posts_of_one_session_are_serialised() {
    let (path, _) = site();
    let served = Served::start(&path, &["--task", "add_library_payee"]);
    let mut browser = Browser::new(&served.base);
    browser.open("/");
    browser.open("/transfer");
    let cookie = browser.client.cookie.clone().expect("a session");
    for round in 0..10 {
        let form = PageForm::scan(&browser.request("/transfer", None).body);
        let before: serde_json::Value = serde_json::from_str(&browser.state()).expect("JSON");
        let barrier = Barrier::new(2);
        let statuses: Vec<u16> = std::thread::scope(|scope| {
            let racers: Vec<_> = ["11", "22"]
                .into_iter()
                .map(|amount| {
                    let (barrier, served, cookie) = (&barrier, &served, &cookie);
                    let mut form = form.clone();
                    form.set("#amount", &format!("{amount}.{round:02}"));
                    scope.spawn(move || {
                        let mut racer = Browser::new(&served.base);
                        racer.client.cookie = Some(cookie.clone());
                        barrier.wait();
                        racer
                            .request("/transfer", Some((FORM, form.body(""))))
                            .status
                    })
                })
                .collect();
            racers
                .into_iter()
                .map(|r| r.join().expect("no panic"))
                .collect()
        });
        let mut sorted = statuses.clone();
        sorted.sort();
        assert_eq!(sorted, [303, 409], "round {round}");
        let after: serde_json::Value = serde_json::from_str(&browser.state()).expect("JSON");
        assert_eq!(after["step"], before["step"].as_u64().expect("a step") + 1);
    }
}

/// A body over the 64 KiB limit is refused by the HTTP layer (413).
#[test]
fn oversized_body_is_413_over_http() {
    let (path, _) = site();
    let served = Served::start(&path, &[]);
    let mut browser = Browser::new(&served.base);
    browser.open("/");
    let before = browser.state();
    let body = format!(
        "{}&x={}",
        browser.form.body(""),
        "a".repeat(wsite_serve::MAX_BODY)
    );
    let reply = browser.request("/", Some((FORM, body)));
    assert_eq!(reply.status, 413);
    assert_eq!(browser.state(), before);
}
