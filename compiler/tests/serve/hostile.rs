//! Hostile requests against `App::handle` (no sockets), on the banking and
//! shop examples: forged buttons and fields, missing and out-of-range
//! values, oversized fields, replayed, stale, out-of-order and
//! cross-session forms, unknown cookies, unlinked URLs, malformed escapes
//! and bodies, ill-typed control JSON, unknown methods and endpoints. Each is
//! refused with a 4xx and a human reason (an error page with
//! `role="alert"`, or JSON `{"error"}`), and changes nothing: the session's
//! `/_wsite/state`, its episode row and every SQL table row of the session,
//! read from the SQLite file by a second, read-only connection, are identical
//! before and after. A property test throws random mutations of valid posts
//! at the app: each is a refusal that changes nothing, or a 303 whose state
//! and rows equal the simulator's after the same steps. Typed text reaches
//! the SQL tables verbatim (parameterised SQL).

use crate::common::{all_rows, encode_form, open_ro, remove_db, sim_rows};
use crate::common::{temp_path, unescape, PageForm, Rows, Sim};
use rusqlite::Connection;
use std::path::PathBuf;
use wsite_runtime::ir::Program;
use wsite_serve::{App, Method, Options, Request, Response};

const BANK: &str = "banking/cascade_cu.wsite";
const SHOP: &str = "ecommerce/trailhead.wsite";
/// A bank task that takes no answer, and its pages with forms.
const BANK_TASK: &str = "add_library_payee";
const SHOP_TASK: &str = "buy_two_headlamps";
/// The shop category page's checkbox and select.
const IN_STOCK: &str = "CategoryPage:260:3";
const SORT: &str = "CategoryPage:261:3";

/// A served example, in process, with its SQLite file.
struct Fixture {
    program: Program,
    app: App,
    db: PathBuf,
    conn: Connection,
}

/// Everything a refusal must leave as it was.
#[derive(Debug, PartialEq)]
struct Snapshot {
    state: String,
    episode: (i64, String),
    rows: Vec<(String, Rows)>,
}

fn program(site: &str) -> Program {
    let path = wsite_tests::repo_root().join("examples").join(site);
    let text = std::fs::read_to_string(&path).expect("the example reads");
    wsitec::compile_str(site, &text)
        .program
        .expect("the example compiles")
}

impl Fixture {
    fn new(site: &str, task: Option<&str>) -> Fixture {
        let program = program(site);
        let db = temp_path("hostile", "sqlite");
        let options = Options {
            db: Some(db.clone()),
            task: task.map(str::to_string),
            writer: None,
        };
        let app = App::new(program.clone(), options).expect("the site serves");
        let conn = open_ro(&db);
        Fixture {
            program,
            app,
            db,
            conn,
        }
    }

    fn bank() -> Fixture {
        Fixture::new(BANK, Some(BANK_TASK))
    }

    fn request(
        &self,
        method: Method,
        session: &str,
        path: &str,
        json: bool,
        body: &[u8],
    ) -> Response {
        self.app.handle(&Request {
            method,
            path: path.into(),
            session: Some(session.into()),
            json,
            body: body.to_vec(),
        })
    }

    fn get(&self, session: &str, path: &str) -> Response {
        self.request(Method::Get, session, path, false, b"")
    }

    fn post(&self, session: &str, path: &str, body: impl AsRef<[u8]>) -> Response {
        self.request(Method::Post, session, path, false, body.as_ref())
    }

    fn json(&self, session: &str, path: &str, body: &str) -> Response {
        self.request(Method::Post, session, path, true, body.as_bytes())
    }

    /// A new session, its episode started.
    fn session(&self) -> String {
        let r = self.app.handle(&Request {
            method: Method::Get,
            path: "/".into(),
            session: None,
            json: false,
            body: Vec::new(),
        });
        assert_eq!(r.status, 200, "{}", r.body);
        r.new_session.expect("a new session")
    }

    /// Follows links from the current page to `path`, one GET per hop.
    fn open(&self, session: &str, hops: &[&str]) -> String {
        for hop in hops {
            let r = self.get(session, hop);
            assert_eq!(r.status, 303, "GET {hop}: {}", r.body);
            assert_eq!(r.location.as_deref(), Some(*hop));
        }
        let here = self.url(session);
        let page = self.get(session, &here);
        assert_eq!(page.status, 200);
        page.body
    }

    fn url(&self, session: &str) -> String {
        self.state(session)["url"]
            .as_str()
            .expect("a url")
            .to_string()
    }

    fn state(&self, session: &str) -> serde_json::Value {
        let r = self.get(session, "/_wsite/state");
        assert_eq!(r.status, 200, "{}", r.body);
        serde_json::from_str(&r.body).expect("state is JSON")
    }

    fn snapshot(&self, session: &str) -> Snapshot {
        let episode = self
            .conn
            .query_row(
                "SELECT version, meta FROM \"wsite:episodes\" WHERE session = ?1",
                [session],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("the session has an episode row");
        Snapshot {
            state: self.get(session, "/_wsite/state").body,
            episode,
            rows: all_rows(&self.conn, &self.program, session),
        }
    }

    /// `attack` is refused with `status` and a reason containing `why`, and
    /// changes nothing of `session`.
    fn refused(&self, session: &str, status: u16, why: &str, attack: impl FnOnce() -> Response) {
        let before = self.snapshot(session);
        let r = attack();
        assert_refusal(&r, status, why);
        assert_eq!(r.new_session, None, "a refusal keeps the session");
        assert_eq!(
            self.snapshot(session),
            before,
            "the refusal changed the session"
        );
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        remove_db(&self.db);
    }
}

/// A 4xx with the reason shown: the error page's alert, or JSON `error`.
fn assert_refusal(r: &Response, status: u16, why: &str) {
    assert_eq!(r.status, status, "{}", r.body);
    if r.content_type.starts_with("application/json") {
        let body: serde_json::Value = serde_json::from_str(&r.body).expect("JSON error");
        let error = body["error"].as_str().expect("an error message");
        assert!(error.contains(why), "{error:?} should say {why:?}");
    } else {
        let alert = r
            .body
            .split("role=\"alert\"")
            .nth(1)
            .and_then(|s| s.split("</p>").next())
            .map(unescape)
            .unwrap_or_else(|| panic!("no role=alert in {}", r.body));
        assert!(alert.contains(why), "{alert:?} should say {why:?}");
    }
}

/// The bank's transfer page (two selects, one money input) and its form.
fn bank_transfer(f: &Fixture) -> (String, PageForm) {
    let s = f.session();
    let html = f.open(&s, &["/transfer"]);
    (s, PageForm::scan(&html))
}

/// The shop's first category page (a checkbox and a select) and its form.
fn shop_category(f: &Fixture) -> (String, PageForm) {
    let s = f.session();
    let html = f.open(&s, &["/category/1"]);
    (s, PageForm::scan(&html))
}

/// Both examples' form pages: fixture, session, page and form.
fn form_pages() -> Vec<(Fixture, String, String, PageForm)> {
    let bank = Fixture::bank();
    let (s1, f1) = bank_transfer(&bank);
    let shop = Fixture::new(SHOP, Some(SHOP_TASK));
    let (s2, f2) = shop_category(&shop);
    vec![
        (bank, s1, "/transfer".into(), f1),
        (shop, s2, "/category/1".into(), f2),
    ]
}

fn fields_with(form: &PageForm, extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut pairs = vec![("_token".to_string(), form.token.clone())];
    pairs.extend(form.fields.iter().cloned());
    pairs.extend(extra.iter().map(|(n, v)| (n.to_string(), v.to_string())));
    pairs
}

#[test]
fn forged_key_not_on_the_page_is_refused() {
    for (f, s, page, form) in form_pages() {
        f.refused(&s, 400, "no element `#pay_bill`", || {
            f.post(&s, &page, form.body("#pay_bill"))
        });
        // The reason is shown, escaped: no markup of the sender's reaches the page.
        f.refused(&s, 400, "no element `<script>`", || {
            let r = f.post(&s, &page, form.body("<script>"));
            assert!(!r.body.contains("<script>"), "{}", r.body);
            r
        });
    }
}

#[test]
fn disabled_button_is_refused() {
    let f = Fixture::bank();
    let s = f.session();
    let html = f.open(&s, &["/cards", "/cards/1"]);
    assert!(
        html.contains("disabled data-wsite-key=\"#unfreeze\""),
        "{html}"
    );
    let form = PageForm::scan(&html);
    f.refused(&s, 400, "`#unfreeze` is disabled", || {
        f.post(&s, "/cards/1", form.body("#unfreeze"))
    });
}

#[test]
fn forged_field_name_is_refused() {
    for (f, s, page, form) in form_pages() {
        let body = encode_form(&fields_with(&form, &[("balance", "1000000")]));
        f.refused(&s, 400, "no element `balance`", || f.post(&s, &page, body));
    }
}

#[test]
fn missing_control_field_is_refused() {
    for (f, s, page, mut form) in form_pages() {
        let (dropped, _) = form.fields.remove(0);
        let why = format!("missing the field `{dropped}`");
        f.refused(&s, 400, &why, || f.post(&s, &page, form.body("")));
    }
}

#[test]
fn select_index_out_of_range_or_not_a_number_is_refused() {
    let f = Fixture::bank();
    let (s, form) = bank_transfer(&f);
    for bad in ["99", "-1", "x", "", "1.0", "18446744073709551616"] {
        let mut form = form.clone();
        form.set("#source", bad);
        let why = format!("field `#source`: there is no option {bad:?}");
        f.refused(&s, 400, &why, || {
            f.post(&s, "/transfer", form.body("#transfer"))
        });
    }
    let shop = Fixture::new(SHOP, Some(SHOP_TASK));
    let (s, mut form) = shop_category(&shop);
    form.set(SORT, "2");
    shop.refused(&s, 400, "there is no option \"2\"", || {
        shop.post(&s, "/category/1", form.body(""))
    });
}

#[test]
fn checkbox_value_other_than_on_or_off_is_refused() {
    let f = Fixture::new(SHOP, Some(SHOP_TASK));
    let (s, form) = shop_category(&f);
    assert_eq!(form.get(IN_STOCK), Some("off"));
    for bad in ["true", "1", "ON", ""] {
        let mut form = form.clone();
        form.set(IN_STOCK, bad);
        f.refused(&s, 400, "a checkbox is `on` or `off`", || {
            f.post(&s, "/category/1", form.body(""))
        });
    }
}

#[test]
fn oversized_field_is_refused_with_413() {
    for (f, s, page, mut form) in form_pages() {
        let name = form.fields[0].0.clone();
        form.set(&name, &"9".repeat(wsite_serve::MAX_FIELD + 1));
        let why = format!("field `{name}` is longer than 4096 characters");
        f.refused(&s, 413, &why, || f.post(&s, &page, form.body("")));
    }
    let f = Fixture::bank();
    let s = f.session();
    let long = serde_json::json!({ "answer": "x".repeat(5000) }).to_string();
    f.refused(&s, 413, "longer than", || {
        f.json(&s, "/_wsite/answer", &long)
    });
}

/// A valid post that steps: the amount typed, nothing pressed.
fn typed_amount(form: &PageForm) -> PageForm {
    let mut typed = form.clone();
    typed.set("#amount", "12.50");
    typed
}

#[test]
fn replayed_form_post_is_refused() {
    let f = Fixture::bank();
    let (s, form) = bank_transfer(&f);
    let body = typed_amount(&form).body("");
    let first = f.post(&s, "/transfer", &body);
    assert_eq!(
        (first.status, first.location.as_deref()),
        (303, Some("/transfer"))
    );
    assert_eq!(f.state(&s)["step"], 2);
    f.refused(&s, 409, "out of date", || f.post(&s, "/transfer", &body));
}

#[test]
fn stale_token_from_before_a_step_is_refused() {
    let f = Fixture::bank();
    let (s, form) = bank_transfer(&f);
    assert_eq!(
        f.post(&s, "/transfer", typed_amount(&form).body("")).status,
        303
    );
    // The old page's form, otherwise valid (another value typed).
    let mut old = form.clone();
    old.set("#amount", "3");
    f.refused(&s, 409, "out of date", || {
        f.post(&s, "/transfer", old.body(""))
    });
    let mut forged = typed_amount(&form);
    forged.token = "0000000000000000".into();
    f.refused(&s, 409, "out of date", || {
        f.post(&s, "/transfer", forged.body(""))
    });
}

#[test]
fn form_of_an_earlier_page_is_refused() {
    let f = Fixture::bank();
    let s = f.session();
    let home = PageForm::scan(&f.open(&s, &[]));
    f.open(&s, &["/transfer"]);
    f.refused(&s, 409, "out of date", || f.post(&s, "/", home.body("")));
    // Even a freshly valid token does not make a post to another page good.
    let here = PageForm::scan(&f.get(&s, "/transfer").body);
    let mut forged = home.clone();
    forged.token = here.token;
    f.refused(&s, 409, "out of date", || f.post(&s, "/", forged.body("")));
}

#[test]
fn another_sessions_form_is_refused_and_touches_neither() {
    let f = Fixture::bank();
    let (a, form_a) = bank_transfer(&f);
    let (b, _) = bank_transfer(&f);
    let before_a = f.snapshot(&a);
    let body = typed_amount(&form_a).body("#transfer");
    f.refused(&b, 409, "out of date", || f.post(&b, "/transfer", &body));
    assert_eq!(f.snapshot(&a), before_a);
}

#[test]
fn cookie_naming_no_session_gets_a_new_one() {
    let f = Fixture::bank();
    let (a, form) = bank_transfer(&f);
    let before = f.snapshot(&a);
    let forged = "0123456789abcdef0123456789abcdef";
    let mut fresh = Vec::new();
    for cookie in [forged, "../../etc", &a.to_uppercase(), &format!("{a} ")] {
        let r = f.post(cookie, "/transfer", typed_amount(&form).body(""));
        // A new session's first request is on its start page: stale here.
        assert_eq!(r.status, 409, "{}", r.body);
        fresh.push(r.new_session.clone().expect("a new session"));
    }
    assert_eq!(f.snapshot(&a), before);
    fresh.extend([a.clone(), forged.to_string()]);
    fresh.sort();
    fresh.dedup();
    assert_eq!(
        fresh.len(),
        6,
        "a session id was reused or picked: {fresh:?}"
    );
    let picked: i64 = f
        .conn
        .query_row(
            "SELECT count(*) FROM \"wsite:episodes\" WHERE session = ?1",
            [forged],
            |r| r.get(0),
        )
        .expect("episodes read");
    assert_eq!(picked, 0, "the client picked its session id");
}

#[test]
fn unlinked_url_is_404_and_changes_nothing() {
    let f = Fixture::bank();
    let s = f.session();
    for path in ["/cards/1", "/accounts/999", "/nowhere", "/payees/"] {
        f.refused(&s, 404, "cannot be opened from this page", || {
            f.get(&s, path)
        });
    }
    // The examples have no guarded page (`page … guard`): nothing to test there.
}

#[test]
fn malformed_escapes_are_refused() {
    let f = Fixture::bank();
    let (s, form) = bank_transfer(&f);
    for path in ["/a%zz", "/a%2", "/%FF", "/%C3%28"] {
        f.refused(&s, 400, "malformed %-escape", || f.get(&s, path));
    }
    let mut body = form.body("");
    body.push_str("&%23amount=%G1");
    f.refused(&s, 400, "malformed %-escape", || {
        f.post(&s, "/transfer", &body)
    });
    let body = format!("{}&%23amount=%FF%FE", form.body(""));
    f.refused(&s, 400, "malformed %-escape", || {
        f.post(&s, "/transfer", &body)
    });
}

#[test]
fn non_utf8_body_is_refused() {
    let f = Fixture::bank();
    let (s, form) = bank_transfer(&f);
    let mut body = form.body("").into_bytes();
    body.extend_from_slice(b"&%23amount=\xff\xfe");
    f.refused(&s, 400, "not UTF-8", || f.post(&s, "/transfer", &body));
    f.refused(&s, 400, "not JSON", || {
        f.request(Method::Post, &s, "/_wsite/reset", true, b"\xff{")
    });
}

#[test]
fn control_json_of_wrong_types_is_refused() {
    let f = Fixture::bank();
    let (s, _) = bank_transfer(&f);
    let cases = [
        (
            "/_wsite/reset",
            r#"{"task": 5}"#,
            "\"task\" must be a string",
        ),
        (
            "/_wsite/reset",
            r#"{"seed": "x"}"#,
            "\"seed\" must be a non-negative integer",
        ),
        (
            "/_wsite/reset",
            r#"{"seed": -1}"#,
            "\"seed\" must be a non-negative integer",
        ),
        ("/_wsite/reset", "task=update_phone", "not JSON"),
        ("/_wsite/reset", "[1,2", "not JSON"),
        ("/_wsite/answer", r#"{"answer": 3}"#, "\"answer\": a string"),
        ("/_wsite/answer", "null", "\"answer\": a string"),
    ];
    for (path, body, why) in cases {
        f.refused(&s, 400, why, || f.json(&s, path, body));
    }
    f.refused(&s, 400, "no_such_task", || {
        f.json(&s, "/_wsite/reset", r#"{"task": "no_such_task"}"#)
    });
}

#[test]
fn methods_other_than_get_and_post_are_405() {
    let f = Fixture::bank();
    let s = f.session();
    for path in ["/", "/transfer", "/_wsite/state", "/_wsite/reset"] {
        f.refused(&s, 405, "GET and POST", || {
            f.request(Method::Other, &s, path, false, b"")
        });
    }
    // The control endpoints that act take POST only.
    for path in ["/_wsite/reset", "/_wsite/answer"] {
        f.refused(&s, 405, "take POST", || f.get(&s, path));
    }
}

#[test]
fn unknown_control_endpoint_is_404() {
    let f = Fixture::bank();
    let s = f.session();
    for path in [
        "/_wsite/admin",
        "/_wsite/state/x",
        "/_wsite/../_wsite/reset",
    ] {
        f.refused(&s, 404, "no control endpoint", || f.get(&s, path));
        f.refused(&s, 404, "no control endpoint", || f.json(&s, path, "{}"));
    }
}

#[test]
fn answer_to_an_operation_task_is_400() {
    let f = Fixture::bank();
    let s = f.session();
    f.refused(&s, 400, "takes no answer", || {
        f.json(&s, "/_wsite/answer", r#"{"answer": "42"}"#)
    });
    let token = PageForm::scan(&f.get(&s, "/").body).token;
    let body = encode_form(&[("_token".into(), token), ("answer".into(), "42".into())]);
    f.refused(&s, 400, "takes no answer", || {
        f.post(&s, "/_wsite/answer", body)
    });
}

#[test]
fn typed_text_is_stored_verbatim_in_sql() {
    let f = Fixture::bank();
    let s = f.session();
    let mut form = PageForm::scan(&f.open(&s, &["/payees"]));
    let name = "Bobby'); DROP TABLE \"Payee\"; -- \"quoted\" 'single' %25 ünï";
    let reference = "MCL-1'; DELETE FROM \"wsite:episodes\"; --";
    form.set("#payee_name", name);
    form.set("#payee_ref", reference);
    let r = f.post(&s, "/payees", form.body("#add_payee"));
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(f.state(&s)["alert"], serde_json::Value::Null);
    let stored: Vec<(String, String)> = f
        .conn
        .prepare("SELECT name, account_ref FROM \"Payee\" WHERE \"wsite:session\" = ?1")
        .and_then(|mut q| {
            q.query_map([&s], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()
        })
        .expect("Payee reads");
    assert!(
        stored.contains(&(name.to_string(), reference.to_string())),
        "{stored:?}"
    );
    for table in &f.program.tables {
        let n: i64 = f
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [&table.name],
                |r| r.get(0),
            )
            .expect("sqlite_master reads");
        assert_eq!(n, 1, "table {} is gone", table.name);
    }
    assert_eq!(f.app.sessions().expect("count"), 1);
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// The page's buttons' keys, or all its keys when it has no button; and
/// `""`, pressing nothing.
fn keys(html: &str) -> Vec<String> {
    let after = |pattern: &str| -> Vec<String> {
        html.split(pattern)
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .map(str::to_string)
            .collect()
    };
    let mut keys = after("name=\"_key\" value=\"");
    if keys.is_empty() {
        keys = after("data-wsite-key=\"");
    }
    keys.push(String::new());
    keys
}

const JUNK: &[&str] = &[
    "",
    "0",
    "1",
    "2",
    "7",
    "-1",
    "on",
    "off",
    "x",
    "12.50",
    "%zz",
    "ü",
    "99999999999999999999",
];

/// A form post as sent: its control fields and the key pressed.
type Post = (Vec<(String, String)>, String);

/// A post of the current page, mutated; `None` for raw random bytes.
fn mutated(rng: &mut Rng, form: &PageForm, html: &str) -> (Vec<u8>, Option<Post>) {
    if rng.below(12) == 0 {
        let n = rng.below(64);
        return ((0..n).map(|_| rng.next() as u8).collect(), None);
    }
    let mut token = form.token.clone();
    let mut fields = form.fields.clone();
    let page_keys = keys(html);
    let mut key = if rng.below(3) == 0 {
        String::new()
    } else {
        rng.pick(&page_keys).clone()
    };
    // A third of the posts are valid: a browser's own.
    for _ in 0..rng.below(3) * rng.below(2) {
        match rng.below(8) {
            0 if !fields.is_empty() => {
                fields.remove(rng.below(fields.len()));
            }
            1 if !fields.is_empty() => {
                let f = rng.pick(&fields).0.clone();
                fields.push((f, rng.pick(JUNK).to_string()));
            }
            2 if !fields.is_empty() => {
                let i = rng.below(fields.len());
                fields[i].0 = rng
                    .pick(&["_x", "#amount ", "q", "source", "#source", "#search"])
                    .to_string();
            }
            3 => token = format!("{:016x}", rng.next()),
            4 => {
                key = rng
                    .pick(&["nope", "#unfreeze", "#add_payee", "#transfer", "_token"])
                    .to_string()
            }
            _ if !fields.is_empty() => {
                let i = rng.below(fields.len());
                fields[i].1 = rng.pick(JUNK).to_string();
            }
            _ => {}
        }
    }
    let mut pairs = vec![("_token".to_string(), token), ("_key".into(), key.clone())];
    pairs.extend(fields.iter().cloned());
    (encode_form(&pairs).into_bytes(), Some((fields, key)))
}

/// GETs a plain link's `href`: the server clicks the first link leading
/// there, and so does the simulator.
fn follow_link(f: &Fixture, s: &str, sim: &mut Sim<'_>, href: String, form: &PageForm) {
    let r = f.get(s, &href);
    assert_eq!(r.status, 303, "GET {href}: {}", r.body);
    let first = form.links.iter().find(|l| l.1 == href).expect("the link");
    sim.post(&[], &first.0);
    let state = f.get(s, "/_wsite/state").body;
    assert_eq!(state, sim.state(BANK_TASK).to_string(), "GET {href}");
}

/// Random mutations of valid posts, on the bank's task: every response is a
/// refusal that changes nothing, or a 303 that leaves the served session
/// exactly where the simulator goes with the same steps.
#[test]
fn random_mutations_are_refused_or_agree_with_the_simulator() {
    let f = Fixture::bank();
    let s = f.session();
    let mut sim = Sim::new(&f.program, BANK_TASK);
    // WSITE_SERVE_SEED picks another sequence (a failure names its round).
    let seed = std::env::var("WSITE_SERVE_SEED")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut rng = Rng(seed.unwrap_or(0x9E37_79B9_7F4A_7C15) | 1);
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..300 {
        let url = f.url(&s);
        let html = f.get(&s, &url).body;
        let form = PageForm::scan(&html);
        if form.token.is_empty() && !form.links.is_empty() && rng.below(4) != 0 {
            // A page of plain links: a browser follows one.
            follow_link(&f, &s, &mut sim, rng.pick(&form.links).1.clone(), &form);
            continue;
        }
        let (body, parsed) = mutated(&mut rng, &form, &html);
        let path = if rng.below(10) == 0 {
            "/payees".to_string()
        } else {
            url
        };
        let before = f.snapshot(&s);
        let r = f.post(&s, &path, &body);
        let what = format!(
            "round {round}: POST {path} {:?}",
            String::from_utf8_lossy(&body)
        );
        assert!(r.status < 500, "{what}: {} {}", r.status, r.body);
        if r.status == 303 {
            let (fields, key) = parsed.unwrap_or_else(|| panic!("{what}: random bytes accepted"));
            sim.post(&fields, &key);
            // As text: a parsed float may be one ulp off.
            let state = f.get(&s, "/_wsite/state").body;
            assert_eq!(state, sim.state(BANK_TASK).to_string(), "{what}");
            let rows = all_rows(&f.conn, &f.program, &s);
            assert_eq!(
                rows,
                sim_rows(&f.program, &sim.env.state().world.db),
                "{what}"
            );
            accepted += 1;
        } else {
            assert!((400..500).contains(&r.status), "{what}: {}", r.status);
            assert_eq!(
                f.snapshot(&s),
                before,
                "{what}: a refusal changed the session"
            );
            refused += 1;
        }
        if sim.env.done() {
            let r = f.json(
                &s,
                "/_wsite/reset",
                &format!("{{\"task\": \"{BANK_TASK}\"}}"),
            );
            assert_eq!(r.status, 200, "{}", r.body);
            sim = Sim::new(&f.program, BANK_TASK);
        }
    }
    eprintln!("mutations: {accepted} accepted, {refused} refused");
    assert!(
        accepted >= 60 && refused >= 60,
        "{accepted} accepted, {refused} refused"
    );
}
