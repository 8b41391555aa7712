//! The served site's request handling, independent of the HTTP stack.
//!
//! [`App::handle`] takes a plain [`Request`] and gives a plain [`Response`],
//! so every route is testable without sockets; `http.rs` only adapts axum to
//! it. Sessions are a cookie (`wsite_session`, 128 random bits in hex); a
//! cookie that is malformed or names no stored episode gets a new session,
//! so nobody can pick a session id or step into another's. Each request
//! loads its episode from the store, acts on it, and saves what changed, all
//! under one lock: requests are serialised, so no update is ever lost or
//! lands in another session. Pages follow post/redirect/get: a request that
//! steps answers `303 See Other` to the page the episode is now on.

use crate::episode::{
    self, meta_of, FormPost, Played, Refusal, Site, BROWSE, KEY_FIELD, TOKEN_FIELD,
};
use crate::html;
use crate::store::{Store, StoreError, Stored};
use serde_json::{json, Value as Json};
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use wsite_runtime::env::{instances, Env, SharedWriter};
use wsite_runtime::ir::Program;

/// How to serve a site.
#[derive(Default)]
pub struct Options {
    /// The SQLite file; `None` keeps everything in memory.
    pub db: Option<PathBuf>,
    /// What new sessions play; `None` browses freely.
    pub task: Option<String>,
    /// Proposes the effects of extern markers (`--simulator`).
    pub writer: Option<SharedWriter>,
}

/// Why a site cannot be served.
#[derive(Debug)]
pub enum ServeError {
    Store(StoreError),
    Task(Refusal),
    Io(std::io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Store(e) => write!(f, "{e}"),
            ServeError::Task(e) => write!(f, "{e}"),
            ServeError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ServeError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Other,
}

/// A request, as the app needs it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: Method,
    /// The path, still percent-encoded; no query.
    pub path: String,
    /// The `wsite_session` cookie, if sent.
    pub session: Option<String>,
    /// Whether the body is JSON (else a urlencoded form).
    pub json: bool,
    pub body: Vec<u8>,
}

/// A response, as the app gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    /// For redirects: where to (encoded).
    pub location: Option<String>,
    /// A new session's id, to set as the cookie.
    pub new_session: Option<String>,
}

pub const COOKIE: &str = "wsite_session";
const HTML: &str = "text/html; charset=utf-8";
const JSON: &str = "application/json";
const CSS: &str = "text/css; charset=utf-8";
/// At most this many fields in one form.
const MAX_FIELDS: usize = 512;

/// A served site.
pub struct App {
    site: Site,
    store: Mutex<Store>,
}

impl App {
    pub fn new(program: Program, options: Options) -> Result<App, ServeError> {
        let site = Site::new(program, options.task.as_deref(), options.writer)
            .map_err(ServeError::Task)?;
        let store = Store::open(options.db.as_deref(), Arc::clone(&site.program))
            .map_err(ServeError::Store)?;
        Ok(App {
            site,
            store: Mutex::new(store),
        })
    }

    /// How many sessions the store holds.
    pub fn sessions(&self) -> Result<i64, StoreError> {
        self.lock().sessions()
    }

    /// Answers one request; never panics on any input.
    pub fn handle(&self, req: &Request) -> Response {
        let mut store = self.lock();
        let (session, fresh) = self.session(&store, req.session.as_deref());
        let mut response = match self.route(&mut store, &session, req) {
            Ok(r) => r,
            Err(failure) => self.failure(&mut store, &session, req, failure),
        };
        if fresh {
            response.new_session = Some(session);
        }
        response
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic while holding the lock cannot leave the store inconsistent
        // (every write is one transaction), so a poisoned lock is still good.
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The request's session, or a new one.
    fn session(&self, store: &Store, cookie: Option<&str>) -> (String, bool) {
        if let Some(id) = cookie.filter(|c| valid_session_id(c)) {
            if matches!(store.exists(id), Ok(true)) {
                return (id.to_string(), false);
            }
        }
        (new_session_id(), true)
    }

    fn route(&self, store: &mut Store, session: &str, req: &Request) -> Result<Response, Failure> {
        let path = html::decode_path(&req.path)
            .ok_or_else(|| Refusal::Malformed("the URL has a malformed %-escape".into()))?;
        match (req.method, path.as_str()) {
            (Method::Get | Method::Head, "/_wsite/style.css") => {
                Ok(Response::ok(CSS, include_str!("style.css").to_string()))
            }
            (Method::Get | Method::Head, "/_wsite/state") => self.state(store, session),
            (Method::Get | Method::Head, "/_wsite" | "/_wsite/") => self.task_list(store, session),
            (Method::Post, "/_wsite/reset") => self.reset(store, session, req),
            (Method::Post, "/_wsite/answer") => self.answer(store, session, req),
            (Method::Other, _)
            | (Method::Get | Method::Head, "/_wsite/reset" | "/_wsite/answer") => {
                Err(Failure::Method)
            }
            (_, p) if p.starts_with("/_wsite/") => Err(Failure::NotFound(path.clone())),
            (Method::Get, _) => self.follow(store, session, &path),
            (Method::Head, _) => self.peek(store, session, &path),
            (Method::Post, _) => self.submit(store, session, &path, req),
        }
    }

    /// The stored episode, or the default one started now.
    fn episode(&self, store: &mut Store, session: &str) -> Result<Stored, Failure> {
        if let Some(stored) = store.load(session)? {
            return Ok(stored);
        }
        let instance = self.site.default.clone();
        self.start(store, session, &instance, None)?;
        store
            .load(session)?
            .ok_or(Failure::Store(StoreError::Conflict))
    }

    fn start(
        &self,
        store: &mut Store,
        session: &str,
        instance: &wsite_runtime::env::TaskInstance,
        seed: Option<u64>,
    ) -> Result<String, Failure> {
        let env = self.site.start(instance)?;
        let meta = meta_of(&env, seed, 0.0, 0.0);
        store.create(session, &meta, &env.state().world.db)?;
        Ok(env.observation().url)
    }

    /// Runs `op` on the session's episode and saves what it changed; says
    /// whether it took a step.
    fn act(
        &self,
        store: &mut Store,
        session: &str,
        token: Option<&str>,
        op: impl FnOnce(&mut Env<'_>) -> Result<Played, Refusal>,
    ) -> Result<(Stored, String, bool), Failure> {
        let stored = self.episode(store, session)?;
        if let Some(sent) = token {
            if sent != form_token(session, stored.version) {
                return Err(Refusal::Stale.into());
            }
        }
        let mut env = self.site.resume(&stored)?;
        let played = op(&mut env)?;
        let url = env.observation().url;
        if played.steps.is_empty() {
            return Ok((stored, url, false));
        }
        let m = &stored.meta;
        let reward = played.last_reward().unwrap_or(m.reward);
        // Summed step by step, as an agent's return is.
        let total = played.steps.iter().fold(m.total, |t, s| t + s.reward);
        let meta = meta_of(&env, m.seed, reward, total);
        let version = store.save(
            session,
            stored.version,
            &stored.db,
            &meta,
            &env.state().world.db,
        )?;
        let saved = Stored {
            version,
            meta,
            db: env.state().world.db.clone(),
        };
        Ok((saved, url, true))
    }

    fn follow(&self, store: &mut Store, session: &str, path: &str) -> Result<Response, Failure> {
        let (stored, url, stepped) =
            self.act(store, session, None, |env| episode::follow(env, path))?;
        if stepped {
            return Ok(Response::see_other(&url));
        }
        self.render(&stored, session)
    }

    /// `HEAD` never steps: the current page, or not reachable.
    fn peek(&self, store: &mut Store, session: &str, path: &str) -> Result<Response, Failure> {
        let stored = self.episode(store, session)?;
        if self.site.resume(&stored)?.observation().url != path {
            return Err(Refusal::NotReachable { path: path.into() }.into());
        }
        self.render(&stored, session)
    }

    fn submit(
        &self,
        store: &mut Store,
        session: &str,
        path: &str,
        req: &Request,
    ) -> Result<Response, Failure> {
        let post = parse_post(&req.body)?;
        let token = post.token.clone().unwrap_or_default();
        let (_, url, _) = self.act(store, session, Some(&token), |env| {
            if env.observation().url != path {
                // A form of another page: an older tab, or a replay.
                return Err(Refusal::Stale);
            }
            episode::submit(env, &post)
        })?;
        Ok(Response::see_other(&url))
    }

    fn answer(&self, store: &mut Store, session: &str, req: &Request) -> Result<Response, Failure> {
        if req.json {
            let body = parse_json(&req.body)?;
            let text = match body.get("answer") {
                Some(Json::String(s)) => s.clone(),
                _ => {
                    return Err(
                        Refusal::Malformed("the body needs \"answer\": a string".into()).into(),
                    )
                }
            };
            self.act(store, session, None, |env| episode::answer(env, &text))?;
            return self.state(store, session);
        }
        let fields = parse_form(&req.body)?;
        let text = field(&fields, "answer").ok_or_else(|| Refusal::MissingField {
            key: "answer".into(),
        })?;
        let token = field(&fields, TOKEN_FIELD).unwrap_or("");
        let (_, url, _) = self.act(store, session, Some(token), |env| {
            episode::answer(env, text)
        })?;
        Ok(Response::see_other(&url))
    }

    fn reset(&self, store: &mut Store, session: &str, req: &Request) -> Result<Response, Failure> {
        let (task, seed) = if req.json {
            reset_json(&parse_json(&req.body)?)?
        } else {
            let fields = parse_form(&req.body)?;
            (field(&fields, "task").map(str::to_string), None)
        };
        let instance = self.site.instance(task.as_deref())?;
        let url = self.start(store, session, &instance, seed)?;
        if !req.json {
            return Ok(Response::see_other(&url));
        }
        let stored = self.episode(store, session)?;
        let env = self.site.resume(&stored)?;
        let reply = json!({"url": url, "instruction": env.instruction()});
        Ok(Response::ok(JSON, reply.to_string()))
    }

    fn state(&self, store: &mut Store, session: &str) -> Result<Response, Failure> {
        let stored = self.episode(store, session)?;
        let env = self.site.resume(&stored)?;
        let m = &stored.meta;
        let reply = json!({
            "task": m.instance.name,
            "step": m.step,
            "reward": m.reward,
            "return": m.total,
            "progress": env.progress(),
            "done": m.done,
            "success": m.success,
            "alert": m.alert,
            "url": env.observation().url,
        });
        Ok(Response::ok(JSON, reply.to_string()))
    }

    fn task_list(&self, store: &mut Store, session: &str) -> Result<Response, Failure> {
        let stored = self.episode(store, session)?;
        let program = &self.site.program;
        let names: Vec<String> = instances(program)
            .into_iter()
            .map(|i| i.name)
            .filter(|n| n != BROWSE)
            .collect();
        let body = html::tasks(
            &program.site.title,
            &program.site.domain,
            &names,
            &stored.meta.instance.name,
        );
        Ok(Response::ok(HTML, body))
    }

    fn render(&self, stored: &Stored, session: &str) -> Result<Response, Failure> {
        let env = self.site.resume(stored)?;
        let program = &self.site.program;
        let token = form_token(session, stored.version);
        let browsing = stored.meta.instance.name == BROWSE;
        let instruction = if browsing { "" } else { env.instruction() };
        let frame = html::Frame {
            site_title: &program.site.title,
            domain: &program.site.domain,
            token: &token,
            task: &stored.meta.instance.name,
            instruction,
        };
        Ok(Response::ok(HTML, html::page(&env, &frame)))
    }

    /// A refusal as an error page (or JSON, for the control endpoints).
    fn failure(
        &self,
        store: &mut Store,
        session: &str,
        req: &Request,
        failure: Failure,
    ) -> Response {
        let status = failure.status();
        let message = failure.to_string();
        if req.path.starts_with("/_wsite/") && req.json || req.path == "/_wsite/state" {
            return Response {
                status,
                ..Response::ok(JSON, json!({ "error": message }).to_string())
            };
        }
        let back = self
            .episode(store, session)
            .ok()
            .and_then(|s| self.site.resume(&s).ok().map(|e| e.observation().url))
            .unwrap_or_else(|| "/".into());
        let program = &self.site.program;
        let body = html::error(
            &program.site.title,
            &program.site.domain,
            failure.title(),
            &message,
            &back,
        );
        Response {
            status,
            ..Response::ok(HTML, body)
        }
    }
}

/// Why a request failed.
#[derive(Debug)]
enum Failure {
    Refused(Refusal),
    NotFound(String),
    Method,
    Store(StoreError),
}

impl From<Refusal> for Failure {
    fn from(r: Refusal) -> Failure {
        Failure::Refused(r)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        Failure::Store(e)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Refused(r) => write!(f, "{r}"),
            Failure::NotFound(p) => write!(f, "there is no control endpoint {p}"),
            Failure::Method => write!(
                f,
                "pages take GET and POST; /_wsite/reset and /_wsite/answer take POST"
            ),
            Failure::Store(e) => write!(f, "the session store failed: {e}"),
        }
    }
}

impl Failure {
    fn status(&self) -> u16 {
        match self {
            Failure::Refused(Refusal::NotReachable { .. }) | Failure::NotFound(_) => 404,
            Failure::Refused(Refusal::Stale | Refusal::Over) => 409,
            Failure::Refused(Refusal::TooLong { .. }) => 413,
            Failure::Refused(_) => 400,
            Failure::Method => 405,
            Failure::Store(StoreError::Conflict) => 409,
            Failure::Store(_) => 500,
        }
    }

    fn title(&self) -> &'static str {
        match self {
            Failure::Refused(Refusal::NotReachable { .. }) => "Not reachable from here",
            Failure::Refused(Refusal::Stale) => "This form is out of date",
            Failure::Refused(Refusal::Over) => "The episode is over",
            Failure::Refused(_) => "Request refused",
            Failure::NotFound(_) => "Not found",
            Failure::Method => "Method not allowed",
            Failure::Store(_) => "Server error",
        }
    }
}

impl Response {
    fn ok(content_type: &'static str, body: String) -> Response {
        Response {
            status: 200,
            content_type,
            body,
            location: None,
            new_session: None,
        }
    }

    fn see_other(url: &str) -> Response {
        Response {
            status: 303,
            location: Some(html::encode_path(url)),
            ..Response::ok(HTML, String::new())
        }
    }
}

/// The token a page's forms carry: the session and the episode's version,
/// hashed. A form posted after any change, or with another session's cookie,
/// does not match.
pub fn form_token(session: &str, version: i64) -> String {
    let digest = xxhash_rust::xxh3::xxh3_64(format!("{session}:{version}").as_bytes());
    format!("{digest:016x}")
}

fn valid_session_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::getrandom(&mut bytes).is_err() {
        // No system randomness: fall back to the clock and a counter, still
        // unique within this process.
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (t ^ u128::from(n) << 64).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn parse_json(body: &[u8]) -> Result<Json, Refusal> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(body)
        .map_err(|e| Refusal::Malformed(format!("the body is not JSON: {e}")))
}

fn reset_json(body: &Json) -> Result<(Option<String>, Option<u64>), Refusal> {
    let task = match body.get("task") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(_) => return Err(Refusal::Malformed("\"task\" must be a string".into())),
    };
    let seed =
        match body.get("seed") {
            None | Some(Json::Null) => None,
            Some(v) => Some(v.as_u64().ok_or_else(|| {
                Refusal::Malformed("\"seed\" must be a non-negative integer".into())
            })?),
        };
    Ok((task, seed))
}

/// A urlencoded body's fields, in order.
fn parse_form(body: &[u8]) -> Result<Vec<(String, String)>, Refusal> {
    let body = std::str::from_utf8(body)
        .map_err(|_| Refusal::Malformed("the form is not UTF-8".into()))?;
    let mut fields = Vec::new();
    for pair in body.split('&').filter(|p| !p.is_empty()) {
        if fields.len() == MAX_FIELDS {
            return Err(Refusal::Malformed(format!(
                "the form has more than {MAX_FIELDS} fields"
            )));
        }
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decode = |s: &str| {
            html::decode_path(&s.replace('+', " "))
                .ok_or_else(|| Refusal::Malformed("the form has a malformed %-escape".into()))
        };
        fields.push((decode(name)?, decode(value)?));
    }
    Ok(fields)
}

fn field<'f>(fields: &'f [(String, String)], name: &str) -> Option<&'f str> {
    fields
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

fn parse_post(body: &[u8]) -> Result<FormPost, Refusal> {
    let mut post = FormPost::default();
    for (name, value) in parse_form(body)? {
        match name.as_str() {
            TOKEN_FIELD => post.token = Some(value),
            KEY_FIELD => post.key = Some(value),
            _ => post.fields.push((name, value)),
        }
    }
    Ok(post)
}
