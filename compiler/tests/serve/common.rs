//! Shared support for the serve tests: the real `wsitec serve` as a child
//! process ([`Served`]), a plain HTTP client with one session cookie
//! ([`Client`]), one session's rows and episode read straight from the
//! SQLite file next to the simulator's, the page form scanned out of the
//! served HTML, and the steps a browser's form post stands for.

#![allow(dead_code)]

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OpenFlags};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use wsite_runtime::env::{
    find_instance, Action, ActionKind, Control, Env, RewardConfig, StepResult,
};
use wsite_runtime::interp::state::Database;
use wsite_runtime::ir::Program;
use wsite_serve::Meta;

/// One session's rows of one table: `(id, columns)` in id order.
pub type Rows = Vec<(i64, Vec<Sql>)>;

/// A fresh path under the system temp directory (nothing is created).
pub fn temp_path(stem: &str, ext: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!(
        "wsite-{stem}-{}-{n}-{nanos}.{ext}",
        std::process::id()
    ))
}

/// Removes a SQLite file and its WAL companions.
pub fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

/// `wsitec serve SITE --port 0 --db TMP` running; killed and its database
/// removed on drop.
pub struct Served {
    child: Child,
    /// Whether dropping it removes the database file.
    owns_db: bool,
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub base: String,
    pub addr: std::net::SocketAddr,
    pub db: PathBuf,
}

impl Served {
    pub fn start(site: &Path, extra: &[&str]) -> Served {
        let mut served = Served::with_db(site, temp_path("served", "sqlite"), extra);
        served.owns_db = true;
        served
    }

    /// Serves `site` with the database file `db`, which outlives it.
    pub fn with_db(site: &Path, db: PathBuf, extra: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wsitec"))
            .arg("serve")
            .arg(site)
            .args(["--port", "0", "--db"])
            .arg(&db)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("wsitec serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        let read = stdout.read_line(&mut line);
        // Keep the pipe drained, so that a later write never blocks or fails.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let url = line
            .trim()
            .rsplit_once(" at ")
            .map(|(_, u)| u.trim_end_matches('/').to_string());
        let Some(base) = url.filter(|_| read.is_ok()) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("wsitec serve printed {line:?}, not its address");
        };
        let addr = base
            .trim_start_matches("http://")
            .parse()
            .expect("a socket address");
        Served {
            child,
            owns_db: false,
            base,
            addr,
            db,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if self.owns_db {
            remove_db(&self.db);
        }
    }
}

/// A read-only connection to a served database (WAL: sees every commit).
pub fn open_ro(db: &Path) -> Connection {
    Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("the database opens read-only")
}

/// `session`'s rows of `table`, straight from the SQL table: each row's id
/// and its field columns in table order (the session column left out).
pub fn session_rows(conn: &Connection, table: &str, session: &str) -> Rows {
    let sql = format!(
        "SELECT * FROM \"{}\" WHERE \"wsite:session\" = ?1 ORDER BY id",
        table.replace('"', "\"\"")
    );
    let mut stmt = conn.prepare(&sql).expect("the table exists");
    let width = stmt.column_count();
    let id_col = stmt.column_index("id").expect("an id column");
    let session_col = stmt
        .column_index("wsite:session")
        .expect("a session column");
    stmt.query_map([session], |r| {
        let id: i64 = r.get(id_col)?;
        let mut values = Vec::new();
        for i in (0..width).filter(|&i| i != id_col && i != session_col) {
            values.push(r.get::<_, Sql>(i)?);
        }
        Ok((id, values))
    })
    .expect("the query runs")
    .collect::<Result<_, _>>()
    .expect("rows decode")
}

/// [`session_rows`] of the database file at `db`.
pub fn session_rows_at(db: &Path, table: &str, session: &str) -> Rows {
    session_rows(&open_ro(db), table, session)
}

/// Every table's rows for `session`, by table name.
pub fn all_rows(conn: &Connection, program: &Program, session: &str) -> Vec<(String, Rows)> {
    program
        .tables
        .iter()
        .map(|t| (t.name.clone(), session_rows(conn, &t.name, session)))
        .collect()
}

/// The simulator's database in the shape of [`all_rows`].
pub fn sim_rows(program: &Program, db: &Database) -> Vec<(String, Rows)> {
    program
        .tables
        .iter()
        .zip(&db.tables)
        .map(|(def, table)| {
            let rows = table
                .rows()
                .iter()
                .map(|row| {
                    let values = def
                        .fields
                        .iter()
                        .zip(&row.values)
                        .map(|(f, v)| wsite_serve::values::to_sql(program, v, &f.ty))
                        .collect();
                    (row.id, values)
                })
                .collect();
            (def.name.clone(), rows)
        })
        .collect()
}

/// The page's form as a browser would send it: the token, and every
/// control's field with its current value, in document order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageForm {
    pub token: String,
    pub fields: Vec<(String, String)>,
    /// Each select's option texts, by field name.
    pub selects: Vec<(String, Vec<String>)>,
    /// The checkboxes' field names.
    pub checkboxes: Vec<String>,
    /// Plain links: key and (encoded) href.
    pub links: Vec<(String, String)>,
    /// The keys of the buttons (and link-buttons) that submit a form.
    pub buttons: Vec<String>,
}

impl PageForm {
    /// Scans served HTML (our own markup, so plain string scanning).
    pub fn scan(html: &str) -> PageForm {
        let mut form = PageForm::default();
        for chunk in html.split('<').skip(1) {
            let (tag, content) = chunk.split_once('>').unwrap_or((chunk, ""));
            if tag.starts_with("input ") {
                form.input(tag);
            } else if tag.starts_with("select ") {
                // With no option selected a browser sends the first.
                let name = attr_of(tag, "name").unwrap_or_default();
                form.fields.push((name.clone(), "0".into()));
                form.selects.push((name, Vec::new()));
            } else if tag.starts_with("option ") {
                if tag.contains(" selected") {
                    let value = attr_of(tag, "value").unwrap_or_default();
                    if let Some(last) = form.fields.last_mut() {
                        last.1 = value;
                    }
                }
                if let Some((_, options)) = form.selects.last_mut() {
                    options.push(unescape(content));
                }
            } else if tag.starts_with("button ") {
                let key = attr_of(tag, "value").unwrap_or_default();
                if attr_of(tag, "name").as_deref() == Some("_key") && !key.is_empty() {
                    form.buttons.push(key);
                }
            } else if tag.starts_with("a href=") {
                let href = attr_of(&format!(" {tag}"), "href").unwrap_or_default();
                let key = attr_of(tag, "data-wsite-key").unwrap_or_default();
                form.links.push((key, href));
            }
        }
        form
    }

    fn input(&mut self, tag: &str) {
        let name = attr_of(tag, "name").unwrap_or_default();
        let value = attr_of(tag, "value").unwrap_or_default();
        match attr_of(tag, "type").as_deref() {
            Some("hidden") if name == "_token" => {
                self.token = value;
            }
            Some("hidden") if name == "task" => {}
            Some("hidden") => self.fields.push((name, value)),
            // The hidden `off` came first; a checked box overrides it.
            Some("checkbox") => {
                if tag.contains(" checked") {
                    if let Some(f) = self.fields.iter_mut().rev().find(|f| f.0 == name) {
                        f.1 = "on".into();
                    }
                }
                self.checkboxes.push(name);
            }
            _ if name == "answer" => {}
            _ => self.fields.push((name, value)),
        }
    }

    /// Sets `name`'s value (the field must exist).
    pub fn set(&mut self, name: &str, value: &str) {
        let f = self.fields.iter_mut().find(|f| f.0 == name);
        f.unwrap_or_else(|| panic!("the page has no field {name}"))
            .1 = value.to_string();
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.0 == name)
            .map(|f| f.1.as_str())
    }

    /// The urlencoded body pressing `key` (`""`: no button).
    pub fn body(&self, key: &str) -> String {
        let mut pairs = vec![("_token".to_string(), self.token.clone())];
        pairs.push(("_key".into(), key.into()));
        pairs.extend(self.fields.iter().cloned());
        encode_form(&pairs)
    }
}

/// `name="..."`'s value in a tag, unescaped.
pub fn attr_of(tag: &str, name: &str) -> Option<String> {
    let needle = format!(" {name}=\"");
    let start = tag.find(&needle)? + needle.len();
    let end = tag[start..].find('"')? + start;
    Some(unescape(&tag[start..end]))
}

pub fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A urlencoded body.
pub fn encode_form(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(n, v)| format!("{}={}", encode(n), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// `application/x-www-form-urlencoded` escaping.
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The steps a browser's post of `fields` pressing `key` stands for
/// (INTERFACES "`wsitec serve`"): one `type`/`select`/`click` for each
/// control whose value differs from the page's, in document order, then a
/// click on the button — played on `env`. A control that an earlier step
/// hid is skipped. Returns the steps played.
pub fn play_post(
    env: &mut Env<'_>,
    fields: &[(String, String)],
    key: &str,
) -> Vec<(Action, StepResult)> {
    let mut played = Vec::new();
    let changes: Vec<(String, ActionKind, Option<String>)> = env
        .page()
        .iter()
        .filter_map(|e| {
            let posted = fields
                .iter()
                .rev()
                .find(|f| f.0 == e.element.key)?
                .1
                .clone();
            let current = e.element.value.clone().unwrap_or_default();
            let key = e.element.key.clone();
            match &e.control {
                Control::Input { .. } => {
                    (posted != current).then_some((key, ActionKind::Type, Some(posted)))
                }
                Control::Select => {
                    let option = e.element.options.get(posted.parse::<usize>().ok()?)?;
                    (*option != current).then(|| (key, ActionKind::Select, Some(option.clone())))
                }
                Control::Checkbox { on } => {
                    ((posted == "on") != *on).then_some((key, ActionKind::Click, None))
                }
                _ => None,
            }
        })
        .collect();
    for (key, kind, text) in changes {
        if env.done() {
            return played;
        }
        let Some(index) = index_of(env, &key) else {
            continue;
        };
        played.push(step(env, kind, index, text));
    }
    if !key.is_empty() && !env.done() {
        let index = index_of(env, key).expect("the pressed button is on the page");
        played.push(step(env, ActionKind::Click, index, None));
    }
    played
}

fn index_of(env: &Env<'_>, key: &str) -> Option<usize> {
    env.page()
        .iter()
        .find(|e| e.element.key == key)
        .map(|e| e.element.index)
}

fn step(
    env: &mut Env<'_>,
    kind: ActionKind,
    index: usize,
    text: Option<String>,
) -> (Action, StepResult) {
    let action = Action {
        kind,
        element: Some(index),
        text,
    };
    let result = env.step(&action).expect("the simulator takes the step");
    (action, result)
}

/// The state endpoint's JSON for the simulator's episode: what a served
/// session's `/_wsite/state` must equal (reward and return given).
pub fn sim_state(env: &Env<'_>, task: &str, reward: f64, total: f64) -> serde_json::Value {
    let s = env.state();
    serde_json::json!({
        "task": task,
        "step": s.step,
        "reward": reward,
        "return": total,
        "progress": env.progress(),
        "done": s.done,
        "success": s.success,
        "alert": s.alert,
        "url": env.observation().url,
    })
}

/// The simulator beside one served session: its episode, reward and return.
pub struct Sim<'p> {
    pub env: Env<'p>,
    reward: f64,
    total: f64,
}

impl<'p> Sim<'p> {
    pub fn new(program: &'p Program, task: &str) -> Sim<'p> {
        let instance = find_instance(program, task).expect("the task exists");
        let env = Env::new(program, &instance, RewardConfig::default()).expect("it starts");
        Sim {
            env,
            reward: 0.0,
            total: 0.0,
        }
    }

    /// Plays a post the server took, as the server must have.
    pub fn post(&mut self, fields: &[(String, String)], key: &str) {
        let steps = play_post(&mut self.env, fields, key);
        self.played(steps.iter().map(|(_, r)| r.reward).collect());
    }

    /// The server's reward bookkeeping: the last step's reward, and the
    /// request's sum added to the return.
    pub fn played(&mut self, rewards: Vec<f64>) {
        if let Some(r) = rewards.last() {
            self.reward = *r;
            // Step by step, as the server (and an agent) sums a return.
            self.total = rewards.iter().fold(self.total, |t, r| t + r);
        }
    }

    pub fn state(&self, task: &str) -> serde_json::Value {
        sim_state(&self.env, task, self.reward, self.total)
    }
}

/// The episode record of `session`.
pub fn stored_meta(db: &Path, session: &str) -> Meta {
    let json: String = open_ro(db)
        .query_row(
            "SELECT meta FROM \"wsite:episodes\" WHERE session = ?1",
            [session],
            |r| r.get(0),
        )
        .expect("the session has an episode");
    serde_json::from_str(&json).expect("the episode record decodes")
}

/// Compares the stored session with the simulator's episode; `Err` says
/// where they differ.
pub fn same_as_simulator(
    db: &Path,
    program: &Program,
    session: &str,
    env: &Env<'_>,
    total: f64,
) -> Result<(), String> {
    let stored = all_rows(&open_ro(db), program, session);
    let expected = sim_rows(program, &env.state().world.db);
    for ((table, got), (_, want)) in stored.iter().zip(&expected) {
        if got != want {
            return Err(format!(
                "table {table}: served rows {got:?}\nsimulator rows {want:?}"
            ));
        }
    }
    let meta = stored_meta(db, session);
    let state = env.state();
    let checks = [
        ("step", meta.step == state.step),
        ("done", meta.done == state.done),
        ("success", meta.success == state.success),
        ("alert", meta.alert == state.alert),
        ("session variables", meta.session == state.world.session),
        ("page", meta.nav == state.nav),
        ("return", meta.total == total),
    ];
    match checks.iter().find(|(_, ok)| !ok) {
        None => Ok(()),
        Some((what, _)) => Err(format!(
            "{what} differs: served step {} done {} success {} return {} alert {:?} url-page {:?}; \
             simulator step {} done {} success {} return {total} alert {:?} page {:?}",
            meta.step,
            meta.done,
            meta.success,
            meta.total,
            meta.alert,
            meta.nav.page,
            state.step,
            state.done,
            state.success,
            state.alert,
            state.nav.page
        )),
    }
}

/// A plain HTTP client with one session cookie, redirects not followed.
pub struct Client {
    agent: ureq::Agent,
    base: String,
    pub cookie: Option<String>,
}

/// A response: status, `Location`, body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub location: Option<String>,
    pub body: String,
}

impl Client {
    pub fn new(base: &str) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(30)))
            .build()
            .into();
        Client {
            agent,
            base: base.to_string(),
            cookie: None,
        }
    }

    pub fn get(&mut self, path: &str) -> Reply {
        self.request(path, None)
    }

    /// A GET, or a POST of `(content type, body)`.
    pub fn request(&mut self, path: &str, body: Option<(&str, String)>) -> Reply {
        let url = format!("{}{path}", self.base);
        let cookie = self
            .cookie
            .as_ref()
            .map(|c| format!("{}={c}", wsite_serve::COOKIE));
        let sent = match body {
            None => {
                let request = self.agent.get(&url);
                match &cookie {
                    Some(c) => request.header("cookie", c).call(),
                    None => request.call(),
                }
            }
            Some((content_type, body)) => {
                let request = self.agent.post(&url).header("content-type", content_type);
                match &cookie {
                    Some(c) => request.header("cookie", c).send(body),
                    None => request.send(body),
                }
            }
        };
        self.read(sent.unwrap_or_else(|e| panic!("{path}: {e}")))
    }

    /// Posts `fields` urlencoded.
    pub fn post_form(&mut self, path: &str, fields: &[(&str, &str)]) -> Reply {
        let pairs: Vec<(String, String)> = fields
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        self.post(
            path,
            "application/x-www-form-urlencoded",
            encode_form(&pairs),
        )
    }

    pub fn post_json(&mut self, path: &str, body: &serde_json::Value) -> Reply {
        self.post(path, "application/json", body.to_string())
    }

    pub fn post(&mut self, path: &str, content_type: &str, body: String) -> Reply {
        self.request(path, Some((content_type, body)))
    }

    pub fn state(&mut self) -> serde_json::Value {
        let reply = self.get("/_wsite/state");
        serde_json::from_str(&reply.body).expect("the state is JSON")
    }

    fn read(&mut self, mut response: ureq::http::Response<ureq::Body>) -> Reply {
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        if let Some(set) = header("set-cookie") {
            let value = set
                .split(';')
                .next()
                .and_then(|kv| kv.split_once('='))
                .map(|(_, v)| v.to_string());
            self.cookie = value;
        }
        let location = header("location");
        Reply {
            status: response.status().as_u16(),
            location,
            body: response.body_mut().read_to_string().unwrap_or_default(),
        }
    }
}
