//! Shared support: a served example (the real `wsitec serve` binary on a
//! free loopback port, with its SQLite file), and the simulator's side of a
//! comparison: one session's rows and episode as the file holds them, next to
//! an `Env`'s world.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OpenFlags};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use wsite_runtime::env::Env;
use wsite_runtime::ir::Program;
use wsite_serve::values::to_sql;
use wsite_serve::Meta;

/// `wsitec serve SITE` running until dropped.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    pub db: PathBuf,
    _dir: TempDir,
}

impl Served {
    /// Serves `site` (extra flags in `args`) with a fresh database file.
    pub fn start(site: &Path, args: &[&str]) -> Served {
        let dir = TempDir::new("serve");
        let db = dir.0.join("sessions.sqlite");
        Served::with_db(site, db, dir, args)
    }

    /// Serves `site` with the database file `db` (kept in `dir`).
    pub fn with_db(site: &Path, db: PathBuf, dir: TempDir, args: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wsitec"))
            .arg("serve")
            .arg(site)
            .args(["--port", "0", "--db"])
            .arg(&db)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("wsitec starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the server says where it listens");
        let base = line
            .trim()
            .rsplit(" at ")
            .next()
            .map(|u| u.trim_end_matches('/').to_string())
            .filter(|u| u.starts_with("http://"))
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
        Served {
            child,
            base,
            db,
            _dir: dir,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("wsite-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One table's rows of one session, as `(id, columns)`.
pub type Rows = Vec<(i64, Vec<Sql>)>;

/// Every table's rows of `session` in the database file, in table order.
pub fn stored_rows(db: &Path, program: &Program, session: &str) -> Vec<Rows> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("the database file opens");
    program
        .tables
        .iter()
        .map(|t| {
            let columns: Vec<String> = t.fields.iter().map(|f| format!("\"{}\"", f.name)).collect();
            let sql = format!(
                "SELECT id{}{} FROM \"{}\" WHERE \"wsite:session\" = ?1 ORDER BY id",
                if columns.is_empty() { "" } else { ", " },
                columns.join(", "),
                t.name
            );
            let mut stmt = conn.prepare(&sql).expect("the table exists");
            stmt.query_map([session], |r| {
                let values = (1..=t.fields.len())
                    .map(|i| r.get::<_, Sql>(i))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((r.get(0)?, values))
            })
            .expect("the query runs")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows read")
        })
        .collect()
}

/// The simulator's rows, as the server would store them.
pub fn simulator_rows(program: &Program, env: &Env<'_>) -> Vec<Rows> {
    program
        .tables
        .iter()
        .zip(&env.state().world.db.tables)
        .map(|(def, table)| {
            table
                .rows()
                .iter()
                .map(|row| {
                    let values = def
                        .fields
                        .iter()
                        .zip(&row.values)
                        .map(|(f, v)| to_sql(program, v, &f.ty))
                        .collect();
                    (row.id, values)
                })
                .collect()
        })
        .collect()
}

/// The episode record of `session`.
pub fn stored_meta(db: &Path, session: &str) -> Meta {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("the database file opens");
    let json: String = conn
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
    let stored = stored_rows(db, program, session);
    let expected = simulator_rows(program, env);
    for ((def, got), want) in program.tables.iter().zip(&stored).zip(&expected) {
        if got != want {
            return Err(format!(
                "table {}: served rows {got:?}\nsimulator rows {want:?}",
                def.name
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
        let mut request = self.agent.get(format!("{}{path}", self.base));
        if let Some(c) = &self.cookie {
            request = request.header("cookie", format!("{}={c}", wsite_serve::COOKIE));
        }
        self.read(request.call().expect("the server answers"))
    }

    /// Posts `fields` urlencoded.
    pub fn post_form(&mut self, path: &str, fields: &[(&str, &str)]) -> Reply {
        let body: Vec<String> = fields
            .iter()
            .map(|(n, v)| format!("{}={}", urlencode(n), urlencode(v)))
            .collect();
        self.post(path, "application/x-www-form-urlencoded", body.join("&"))
    }

    pub fn post_json(&mut self, path: &str, body: &serde_json::Value) -> Reply {
        self.post(path, "application/json", body.to_string())
    }

    pub fn post(&mut self, path: &str, content_type: &str, body: String) -> Reply {
        let mut request = self
            .agent
            .post(format!("{}{path}", self.base))
            .header("content-type", content_type);
        if let Some(c) = &self.cookie {
            request = request.header("cookie", format!("{}={c}", wsite_serve::COOKIE));
        }
        self.read(request.send(body).expect("the server answers"))
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

/// `application/x-www-form-urlencoded` text.
pub fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b))
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The value of the page's form token.
pub fn token(html: &str) -> String {
    let marker = "name=\"_token\" value=\"";
    let at = html.find(marker).expect("the page has a form token") + marker.len();
    html[at..].split('"').next().unwrap_or_default().to_string()
}
