//! Minimal blocking W3C WebDriver client for driving a real headless Chromium in tests.
//!
//! This module owns the whole browser lifecycle: it picks a free local port, spawns
//! `chromedriver` (in its own process group, with a private `TMPDIR`), waits for it to
//! become ready, and opens one WebDriver session on a headless Chromium. Dropping the
//! [`Driver`] deletes the session, kills whatever is left of the process group, reaps
//! `chromedriver` and deletes the temp profile, so no live browser, zombie child or
//! `/tmp` litter stays behind. Every command is a plain HTTP request (`ureq`, 30 s global
//! timeout); every WebDriver failure becomes a typed [`BrowserError`] carrying the W3C
//! error code and message. Elements are addressed by CSS selector; [`key_selector`] builds
//! the `[data-wsite-key="…"]` selector used by wsite pages. Use
//! [`Driver::click_and_wait_for_page`] for clicks that load a page: a plain click does not
//! reliably wait for the navigation it starts.

use std::fmt;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// W3C key under which an element reference is serialised.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
/// Upper bound for any single HTTP exchange with chromedriver.
const HTTP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long chromedriver may take to answer `/status` with `ready: true`.
const READY_TIMEOUT: Duration = Duration::from_secs(20);
/// Page loads must fail (with `timeout`) before the HTTP request itself times out.
const PAGE_LOAD_TIMEOUT_MS: u64 = 20_000;
/// Responses bigger than ureq's 10 MB default occur for screenshots of long pages.
const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;
/// Poll interval for [`Driver::wait_until`] and readiness checks.
const POLL: Duration = Duration::from_millis(50);
/// How long shutdown waits for killed browser processes to actually be gone.
const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// Everything that can go wrong while driving the browser.
#[derive(Debug)]
pub enum BrowserError {
    /// `chromedriver` could not be spawned (missing binary, no free port, temp dir, ...).
    Spawn(std::io::Error),
    /// `chromedriver` exited before it became ready (e.g. its port was taken).
    DriverExited(ExitStatus),
    /// `chromedriver` did not report ready within the allowed time.
    NotReady(Duration),
    /// The HTTP exchange itself failed (connection refused, timeout, ...).
    Http(String),
    /// The driver answered with a W3C error, e.g. code `no such element`.
    WebDriver {
        status: u16,
        code: String,
        message: String,
    },
    /// The driver answered with something this client cannot interpret.
    Protocol(String),
    /// A [`Driver::wait_until`] condition did not become true in time.
    Timeout { what: String, waited: Duration },
}

impl BrowserError {
    /// The W3C error code (`"no such element"`, `"timeout"`, ...) if this is a driver error.
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::WebDriver { code, .. } => Some(code),
            _ => None,
        }
    }
}

impl fmt::Display for BrowserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Spawn(e) => write!(f, "cannot start chromedriver: {e}"),
            Self::DriverExited(s) => write!(f, "chromedriver exited early: {s}"),
            Self::NotReady(d) => write!(f, "chromedriver not ready after {d:?}"),
            Self::Http(m) => write!(f, "webdriver http error: {m}"),
            Self::WebDriver {
                status,
                code,
                message,
            } => {
                write!(f, "webdriver error {code} (http {status}): {message}")
            }
            Self::Protocol(m) => write!(f, "unexpected webdriver response: {m}"),
            Self::Timeout { what, waited } => {
                write!(f, "timed out after {waited:?} waiting for {what}")
            }
        }
    }
}

impl std::error::Error for BrowserError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Spawn(e) => Some(e),
            _ => None,
        }
    }
}

/// Result alias used by every browser operation.
pub type Result<T> = std::result::Result<T, BrowserError>;

/// Opaque WebDriver element reference; valid until the page navigates away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementId(pub String);

/// A cookie as reported by the browser for the current page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cookie {
    pub name: String,
    pub value: String,
    pub path: Option<String>,
    pub domain: Option<String>,
    pub http_only: bool,
    pub secure: bool,
}

/// Builds `[data-wsite-key="…"]` for a wsite element key, safe for any key text.
pub fn key_selector(key: &str) -> String {
    format!("[data-wsite-key={}]", css_string(key))
}

/// Quotes `s` as a CSS string literal: `"` and `\` are backslash-escaped, control
/// characters become hex escapes (a raw newline would end the string), NUL becomes U+FFFD.
pub fn css_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\0' => out.push('\u{FFFD}'),
            c if c.is_control() => out.push_str(&format!("\\{:x} ", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A running chromedriver plus one headless Chromium session. Dropping it shuts both down.
///
/// chromedriver runs in its own process group (which Chromium inherits) and with its own
/// `TMPDIR`, so shutdown can kill every browser process and delete every temp profile /
/// singleton-socket dir, even when the session could not be deleted politely.
pub struct Driver {
    agent: ureq::Agent,
    /// `http://127.0.0.1:PORT`
    server: String,
    /// `http://127.0.0.1:PORT/session/ID`; empty until the session exists.
    session: String,
    child: Child,
    /// Private TMPDIR handed to chromedriver and Chromium; removed on shutdown.
    tmp: PathBuf,
    closed: bool,
}

impl Driver {
    /// Spawns chromedriver on a free port and opens a headless session on `chromium`.
    ///
    /// Retries with a fresh port when chromedriver dies early, because the port picked
    /// by binding `127.0.0.1:0` can be taken by someone else before chromedriver binds it.
    pub fn start(chromedriver: &Path, chromium: &Path) -> Result<Driver> {
        let mut last = BrowserError::NotReady(Duration::ZERO);
        for _ in 0..3 {
            match Self::start_once(chromedriver, chromium) {
                Err(BrowserError::DriverExited(s)) => last = BrowserError::DriverExited(s),
                other => return other,
            }
        }
        Err(last)
    }

    fn start_once(chromedriver: &Path, chromium: &Path) -> Result<Driver> {
        let port = free_port()?;
        let tmp =
            std::env::temp_dir().join(format!("wsite-webdriver-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&tmp).map_err(BrowserError::Spawn)?;
        let child = match spawn_chromedriver(chromedriver, port, &tmp) {
            Ok(child) => child,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(HTTP_TIMEOUT))
            .http_status_as_error(false)
            .build()
            .into();
        let server = format!("http://127.0.0.1:{port}");
        // From here on `driver` owns the child, so any early return still reaps it.
        let mut driver = Driver {
            agent,
            server,
            session: String::new(),
            child,
            tmp,
            closed: false,
        };
        driver.wait_ready()?;
        let id = driver.new_session(chromium)?;
        driver.session = format!("{}/session/{id}", driver.server);
        Ok(driver)
    }

    /// Polls `GET /status` until `value.ready` is true, failing fast if chromedriver exits.
    fn wait_ready(&mut self) -> Result<()> {
        let started = Instant::now();
        let url = format!("{}/status", self.server);
        while started.elapsed() < READY_TIMEOUT {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(BrowserError::DriverExited(status));
            }
            if self.status_ready(&url) {
                return Ok(());
            }
            sleep(POLL);
        }
        Err(BrowserError::NotReady(READY_TIMEOUT))
    }

    /// One short-timeout `/status` probe, so a hung driver cannot stretch the 20 s bound.
    fn status_ready(&self, url: &str) -> bool {
        let resp = self
            .agent
            .get(url)
            .config()
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .call();
        let text = resp
            .ok()
            .and_then(|mut r| r.body_mut().read_to_string().ok());
        let value = text.and_then(|t| parse_response(200, &t).ok());
        value.and_then(|v| v.get("ready").and_then(Value::as_bool)) == Some(true)
    }

    fn new_session(&self, chromium: &Path) -> Result<String> {
        let caps = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "timeouts": { "pageLoad": PAGE_LOAD_TIMEOUT_MS, "script": 10_000, "implicit": 0 },
            "goog:chromeOptions": {
                "binary": chromium.to_string_lossy(),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,900"],
            },
        }}});
        let value = self.request("POST", &format!("{}/session", self.server), Some(&caps))?;
        value
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| BrowserError::Protocol(format!("no sessionId in {value}")))
    }

    /// Deletes the session (which closes Chromium), then kills whatever is left of the
    /// process group, reaps chromedriver and removes the private TMPDIR.
    /// Called by `Drop`; call it directly to observe the session-delete error.
    pub fn quit(mut self) -> Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        let deleted = if self.session.is_empty() {
            Ok(Value::Null)
        } else {
            self.request("DELETE", &self.session, None)
        };
        // DELETE returns before Chromium's helper processes have exited (observed under CPU
        // load), and does nothing if the session is wedged: kill the whole group first,
        // while the un-reaped chromedriver still pins the group id, then reap it.
        let pgid = self.child.id();
        kill_group(pgid);
        let _ = self.child.kill();
        let _ = self.child.wait();
        wait_group_gone(pgid, EXIT_TIMEOUT);
        let _ = std::fs::remove_dir_all(&self.tmp);
        deleted.map(|_| ())
    }

    // ----- navigation -------------------------------------------------------------------

    /// Navigates and, under the "normal" page-load strategy, waits for the load event.
    pub fn goto(&self, url: &str) -> Result<()> {
        self.cmd("POST", "/url", json!({ "url": url })).map(|_| ())
    }

    pub fn current_url(&self) -> Result<String> {
        self.cmd_string("/url")
    }

    pub fn title(&self) -> Result<String> {
        self.cmd_string("/title")
    }

    /// Serialised current DOM (not the bytes the server sent).
    pub fn page_source(&self) -> Result<String> {
        self.cmd_string("/source")
    }

    // ----- elements by CSS selector ---------------------------------------------------

    /// First element matching `css`; error code `no such element` when there is none.
    pub fn find(&self, css: &str) -> Result<ElementId> {
        let v = self.cmd("POST", "/element", css_locator(css))?;
        element_id(&v)
    }

    /// All elements matching `css` (possibly none).
    pub fn find_all(&self, css: &str) -> Result<Vec<ElementId>> {
        let v = self.cmd("POST", "/elements", css_locator(css))?;
        let items = v
            .as_array()
            .ok_or_else(|| BrowserError::Protocol(format!("expected array, got {v}")))?;
        items.iter().map(element_id).collect()
    }

    /// Clicks the element. chromedriver *usually* waits for a navigation the click starts,
    /// but not always (measured: ~1 in 20 form submits returned early): use
    /// [`Driver::click_and_wait_for_page`] when the click is meant to load a page.
    pub fn click(&self, css: &str) -> Result<()> {
        self.element_click(&self.find(css)?)
    }

    /// Clicks and returns once a *new* document has replaced the current one and finished
    /// loading. Marks the current `window` first; the mark vanishes with the old document.
    /// Times out for clicks that do not load a new document (e.g. `#fragment` links).
    pub fn click_and_wait_for_page(&self, css: &str, timeout: Duration) -> Result<()> {
        let id = self.find(css)?;
        self.execute("window.__webdriverOldPage = true;", vec![])?;
        self.element_click(&id)?;
        self.wait_for_new_document(timeout)
    }

    /// Runs `act` (which should start a navigation: submit a form, pick an option
    /// that submits one) and returns once a new document has loaded, as
    /// [`Driver::click_and_wait_for_page`] does.
    pub fn wait_for_page_after<F>(&self, timeout: Duration, act: F) -> Result<()>
    where
        F: FnOnce(&Driver) -> Result<()>,
    {
        self.execute("window.__webdriverOldPage = true;", vec![])?;
        act(self)?;
        self.wait_for_new_document(timeout)
    }

    /// Polls until the marked old document is gone and the new one is `complete`.
    /// Driver errors while the page is being swapped are expected, so they are retried.
    fn wait_for_new_document(&self, timeout: Duration) -> Result<()> {
        const PROBE: &str =
            "return !window.__webdriverOldPage && document.readyState === 'complete';";
        let mut last_err = None;
        let waited = self.wait_until("a new page to load", timeout, |d| {
            match d.execute(PROBE, vec![]) {
                Ok(v) => Ok(v == Value::Bool(true)),
                Err(e @ BrowserError::WebDriver { .. }) => {
                    last_err = Some(e.to_string());
                    Ok(false)
                }
                Err(e) => Err(e),
            }
        });
        waited.map_err(|e| match (e, last_err) {
            (BrowserError::Timeout { what, waited }, Some(err)) => BrowserError::Timeout {
                what: format!("{what} (last error: {err})"),
                waited,
            },
            (e, _) => e,
        })
    }

    pub fn clear(&self, css: &str) -> Result<()> {
        let id = self.find(css)?;
        self.el_cmd("POST", &id, "/clear", json!({})).map(|_| ())
    }

    /// Types `text` literally into the element (W3C "Element Send Keys").
    pub fn send_keys(&self, css: &str, text: &str) -> Result<()> {
        self.element_send_keys(&self.find(css)?, text)
    }

    /// Rendered, visible text of the element (hidden parts are excluded).
    pub fn text(&self, css: &str) -> Result<String> {
        self.element_text(&self.find(css)?)
    }

    /// HTML attribute as written in the markup; `None` when absent.
    pub fn attribute(&self, css: &str, name: &str) -> Result<Option<String>> {
        self.element_attribute(&self.find(css)?, name)
    }

    /// Live DOM property (e.g. `value`, `checked`), reflecting user interaction.
    pub fn property(&self, css: &str, name: &str) -> Result<Value> {
        self.element_property(&self.find(css)?, name)
    }

    /// Selects the `<option>` whose `value` attribute equals `value` by clicking it,
    /// which fires the same input/change events as a user would.
    pub fn select_option(&self, select_css: &str, value: &str) -> Result<()> {
        let select = self.find(select_css)?;
        let locator = css_locator(&format!("option[value={}]", css_string(value)));
        let option = element_id(&self.el_cmd("POST", &select, "/element", locator)?)?;
        self.element_click(&option)
    }

    // ----- elements by id (for callers that keep a reference) ---------------------------

    pub fn element_click(&self, id: &ElementId) -> Result<()> {
        self.el_cmd("POST", id, "/click", json!({})).map(|_| ())
    }

    pub fn element_send_keys(&self, id: &ElementId, text: &str) -> Result<()> {
        self.el_cmd("POST", id, "/value", json!({ "text": text }))
            .map(|_| ())
    }

    pub fn element_text(&self, id: &ElementId) -> Result<String> {
        as_string(self.el_cmd("GET", id, "/text", Value::Null)?)
    }

    pub fn element_attribute(&self, id: &ElementId, name: &str) -> Result<Option<String>> {
        match self.el_cmd(
            "GET",
            id,
            &format!("/attribute/{}", path_segment(name)),
            Value::Null,
        )? {
            Value::Null => Ok(None),
            v => as_string(v).map(Some),
        }
    }

    pub fn element_property(&self, id: &ElementId, name: &str) -> Result<Value> {
        self.el_cmd(
            "GET",
            id,
            &format!("/property/{}", path_segment(name)),
            Value::Null,
        )
    }

    // ----- page-level helpers --------------------------------------------------------

    /// Cookies visible to the current page (including HttpOnly ones).
    pub fn cookies(&self) -> Result<Vec<Cookie>> {
        let v = self.cmd("GET", "/cookie", Value::Null)?;
        let items = v
            .as_array()
            .ok_or_else(|| BrowserError::Protocol(format!("expected array, got {v}")))?;
        items.iter().map(parse_cookie).collect()
    }

    /// Runs `script` as a function body (`return …` yields the result) with `args`.
    pub fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": args }),
        )
    }

    /// PNG screenshot of the viewport.
    pub fn screenshot_png(&self) -> Result<Vec<u8>> {
        let b64 = as_string(self.cmd("GET", "/screenshot", Value::Null)?)?;
        base64_decode(&b64)
            .ok_or_else(|| BrowserError::Protocol("screenshot is not valid base64".into()))
    }

    /// Polls `cond` every 50 ms until it returns `Ok(true)`; a driver error aborts the wait.
    pub fn wait_until<F>(&self, what: &str, timeout: Duration, mut cond: F) -> Result<()>
    where
        F: FnMut(&Driver) -> Result<bool>,
    {
        let started = Instant::now();
        loop {
            if cond(self)? {
                return Ok(());
            }
            if started.elapsed() >= timeout {
                return Err(BrowserError::Timeout {
                    what: what.to_owned(),
                    waited: timeout,
                });
            }
            sleep(POLL);
        }
    }

    /// Waits until the current URL satisfies `pred` and returns it.
    pub fn wait_for_url<P>(&self, timeout: Duration, pred: P) -> Result<String>
    where
        P: Fn(&str) -> bool,
    {
        let mut last = String::new();
        self.wait_until("url condition", timeout, |d| {
            last = d.current_url()?;
            Ok(pred(&last))
        })?;
        Ok(last)
    }

    // ----- transport -------------------------------------------------------------------

    fn cmd_string(&self, path: &str) -> Result<String> {
        as_string(self.cmd("GET", path, Value::Null)?)
    }

    fn el_cmd(&self, method: &str, id: &ElementId, path: &str, body: Value) -> Result<Value> {
        self.cmd(
            method,
            &format!("/element/{}{path}", path_segment(&id.0)),
            body,
        )
    }

    /// Session-scoped command; `body` is ignored for GET/DELETE.
    fn cmd(&self, method: &str, path: &str, body: Value) -> Result<Value> {
        let url = format!("{}{path}", self.session);
        self.request(method, &url, Some(&body))
    }

    /// One HTTP exchange; returns the unwrapped `value` member or a typed error.
    fn request(&self, method: &str, url: &str, body: Option<&Value>) -> Result<Value> {
        let http = |e: ureq::Error| BrowserError::Http(format!("{method} {url}: {e}"));
        let mut resp = match method {
            "GET" => self.agent.get(url).call(),
            "DELETE" => self.agent.delete(url).call(),
            // WebDriver requires a JSON object body on every POST, even `{}`.
            _ => {
                let text = body
                    .filter(|b| !b.is_null())
                    .map_or_else(|| "{}".to_owned(), Value::to_string);
                self.agent
                    .post(url)
                    .header("content-type", "application/json; charset=utf-8")
                    .send(text)
            }
        }
        .map_err(http)?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_string()
            .map_err(http)?;
        parse_response(status, &text)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Splits a W3C response into its `value` or a [`BrowserError::WebDriver`].
fn parse_response(status: u16, text: &str) -> Result<Value> {
    let mut doc: Value = serde_json::from_str(text).map_err(|e| {
        BrowserError::Protocol(format!("http {status}, invalid json ({e}): {text:.200}"))
    })?;
    let value = doc.get_mut("value").map(Value::take).unwrap_or(Value::Null);
    let code = value.get("error").and_then(Value::as_str);
    if status < 400 && code.is_none() {
        return Ok(value);
    }
    let message = value.get("message").and_then(Value::as_str).unwrap_or(text);
    Err(BrowserError::WebDriver {
        status,
        code: code.unwrap_or("unknown error").to_owned(),
        message: message.to_owned(),
    })
}

/// Asks the OS for an unused port. Racy by nature; `Driver::start` retries on failure.
fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(BrowserError::Spawn)?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(BrowserError::Spawn)
}

/// Spawns chromedriver quietly, as leader of a new process group, with a private TMPDIR
/// (Chromium leaves `org.chromium.Chromium.*` dirs behind in TMPDIR on every run).
/// Set `CHROMEDRIVER_LOG=/path` to get chromedriver's verbose log.
fn spawn_chromedriver(chromedriver: &Path, port: u16, tmp: &Path) -> Result<Child> {
    let mut cmd = Command::new(chromedriver);
    cmd.arg(format!("--port={port}"))
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    if let Some(log) = std::env::var_os("CHROMEDRIVER_LOG") {
        cmd.arg("--verbose")
            .arg(format!("--log-path={}", log.to_string_lossy()));
    }
    cmd.spawn().map_err(BrowserError::Spawn)
}

/// SIGKILLs every process in group `pgid` via `kill(1)`, avoiding `unsafe` libc calls.
/// Best effort: a missing `kill` binary only means helpers may outlive chromedriver.
fn kill_group(pgid: u32) {
    if cfg!(unix) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Waits until no live (non-zombie) process is left in group `pgid`. Orphaned zombies are
/// PID 1's to reap; they hold no resources. Linux-only check; elsewhere returns at once.
fn wait_group_gone(pgid: u32, timeout: Duration) {
    let started = Instant::now();
    while live_group_members(pgid) > 0 && started.elapsed() < timeout {
        sleep(Duration::from_millis(20));
    }
}

fn live_group_members(pgid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| is_live_member(stat, pgid))
        .count()
}

/// Parses `/proc/PID/stat` ("pid (comm) state ppid pgrp ..."); comm may contain spaces.
fn is_live_member(stat: &str, pgid: u32) -> bool {
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    match (fields.first(), fields.get(2)) {
        (Some(state), Some(pgrp)) => !matches!(*state, "Z" | "X") && pgrp.parse() == Ok(pgid),
        _ => false,
    }
}

fn css_locator(css: &str) -> Value {
    json!({ "using": "css selector", "value": css })
}

fn element_id(v: &Value) -> Result<ElementId> {
    v.get(ELEMENT_KEY)
        .and_then(Value::as_str)
        .map(|s| ElementId(s.to_owned()))
        .ok_or_else(|| BrowserError::Protocol(format!("not an element reference: {v}")))
}

fn as_string(v: Value) -> Result<String> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(BrowserError::Protocol(format!(
            "expected string, got {other}"
        ))),
    }
}

fn parse_cookie(v: &Value) -> Result<Cookie> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    match (text("name"), text("value")) {
        (Some(name), Some(value)) => Ok(Cookie {
            name,
            value,
            path: text("path"),
            domain: text("domain"),
            http_only: flag("httpOnly"),
            secure: flag("secure"),
        }),
        _ => Err(BrowserError::Protocol(format!("malformed cookie: {v}"))),
    }
}

/// Percent-encodes everything but unreserved characters, for names used in URL paths.
fn path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Standard (RFC 4648) base64 decoder; padding optional, whitespace ignored.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xFF) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_selector_escapes_quotes_and_backslashes() {
        assert_eq!(key_selector("#add"), r##"[data-wsite-key="#add"]"##);
        assert_eq!(
            key_selector("ProductPage:7:3[p=44]"),
            r#"[data-wsite-key="ProductPage:7:3[p=44]"]"#
        );
        assert_eq!(key_selector(r#"a"b\c"#), r#"[data-wsite-key="a\"b\\c"]"#);
        assert_eq!(key_selector("a\nb"), "[data-wsite-key=\"a\\a b\"]");
    }

    #[test]
    fn proc_stat_parsing_handles_odd_comm_and_zombies() {
        assert!(is_live_member("42 (chrom ium) S 1 777 777 0", 777));
        assert!(is_live_member("42 (a) b) R 1 777 777 0", 777));
        assert!(!is_live_member("42 (chromium) Z 1 777 777 0", 777));
        assert!(!is_live_member("42 (chromium) S 1 778 778 0", 777));
        assert!(!is_live_member("garbage", 777));
    }

    #[test]
    fn base64_round_trips_known_vectors() {
        assert_eq!(base64_decode("").as_deref(), Some(&b""[..]));
        assert_eq!(base64_decode("Zg==").as_deref(), Some(&b"f"[..]));
        assert_eq!(base64_decode("Zm8=").as_deref(), Some(&b"fo"[..]));
        assert_eq!(base64_decode("Zm9vYmFy").as_deref(), Some(&b"foobar"[..]));
        assert_eq!(
            base64_decode("iVBORw0KGgo=").as_deref(),
            Some(&b"\x89PNG\r\n\x1a\n"[..])
        );
        assert_eq!(base64_decode("Zm9v!"), None);
    }

    #[test]
    fn error_responses_become_typed_errors() {
        let body = r#"{"value":{"error":"no such element","message":"gone","stacktrace":""}}"#;
        let err = parse_response(404, body).err();
        assert!(
            matches!(&err, Some(BrowserError::WebDriver { status: 404, code, message })
                if code == "no such element" && message == "gone"),
            "{err:?}"
        );
        assert_eq!(
            parse_response(200, r#"{"value":null}"#).ok(),
            Some(Value::Null)
        );
        assert!(matches!(
            parse_response(500, "oops"),
            Err(BrowserError::Protocol(_))
        ));
    }
}
