//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs`, docs/fuzzing.md).
//!
//! This module owns what each target feeds to wsite and what it asserts
//! besides "no panic": the formatter is idempotent, and a refused simulator
//! reply leaves the state as it was. It lives here, not in the fuzz crate, so
//! the stable test `tests/tests/fuzz_seeds.rs` runs every committed seed
//! through the very same code without libFuzzer.
//!
//! The agent protocol and the language server live in the `wsitec` binary,
//! not its library; their source files are compiled into this module too
//! (`#[path]` below), so a target drives the code the CLI runs, not a copy.
//! Every entry runs on a thread with the CLI's large stack (see
//! `compiler/src/main.rs`): deep nesting is an ordinary diagnostic there, and
//! must be one here too.

#![allow(clippy::expect_used, clippy::panic)]

use std::io::Cursor;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;
use wsite_runtime::env::{
    self, Action, ActionKind, Env, Proposal, RewardConfig, SharedWriter, StateWriter, WriteRequest,
    WriterError,
};
use wsite_runtime::ir::Program;
use wsite_runtime::layout::{StateLayout, TextPool, HEADER_SIZE};

// Reading programs from disk, as the CLI does.
use wsitec::host::{load, simulator, site};

// The CLI's modules the agent and the language server need, as the binary
// compiles them (`compiler/src/cli/`). Only some of their items are used here.
#[allow(dead_code)]
#[path = "../../compiler/src/cli/agent.rs"]
mod agent;
#[allow(dead_code)]
#[path = "../../compiler/src/cli/lsp/mod.rs"]
mod lsp;

/// The stack the CLI runs on (compiler/src/main.rs).
const STACK: usize = 256 * 1024 * 1024;

/// States the prover may explore on a fuzzed site that compiles: enough to
/// reach the JIT and the search, small enough to keep an execution fast.
const PROVE_BUDGET: usize = 200;

/// Runs `f` on a thread with the CLI's stack; a panic there is re-raised here
/// (and under libFuzzer its panic hook aborts the process first).
fn on_big_stack(f: impl FnOnce() + Send) {
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, f)
            .expect("a worker thread");
        if let Err(panic) = worker.join() {
            std::panic::resume_unwind(panic);
        }
    });
}

/// `parse_check`: the bytes as a `.wsite` source through parsing and every
/// check; a site that compiles clean is proven too, on a tiny budget.
pub fn parse_check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    on_big_stack(|| {
        let compiled = wsitec::compile_str("fuzz.wsite", &text);
        if compiled.program.is_none() || compiled.has_errors() {
            return;
        }
        let options = wsitec::Options {
            prove: Some(wsite_runtime::prove::Options {
                budget: PROVE_BUDGET,
                ..Default::default()
            }),
            ..Default::default()
        };
        let _ = wsitec::compile_str_with("fuzz.wsite", &text, options);
    });
}

/// `format`: the formatter never panics, and what it returns formats to
/// itself.
pub fn format(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    on_big_stack(|| {
        if let Ok(once) = wsitec::format::format(text) {
            match wsitec::format::format(&once) {
                Ok(twice) => assert_eq!(twice, once, "formatting is not idempotent"),
                Err(e) => panic!("the formatter's own output does not format: {e}\n{once}"),
            }
        }
    });
}

/// The site the agent target plays (`stdlib/sites/search.wsite`), compiled once.
fn search_site() -> &'static (Program, String) {
    static SITE: OnceLock<(Program, String)> = OnceLock::new();
    SITE.get_or_init(|| {
        let path = crate::repo_root().join("stdlib/sites/search.wsite");
        let text = std::fs::read_to_string(path).expect("stdlib/sites/search.wsite");
        let program = wsitec::compile_str("search.wsite", &text)
            .program
            .expect("the search site compiles");
        let task = env::instances(&program)
            .first()
            .map(|i| i.name.clone())
            .expect("the search site has a task");
        (program, task)
    })
}

/// `agent_line`: the bytes as the agent protocol's stdin (one request a
/// line), on the search site, through the CLI's own loop.
pub fn agent_lines(data: &[u8]) {
    let (program, task) = search_site();
    on_big_stack(|| {
        agent::serve(
            program,
            task.clone(),
            RewardConfig::default(),
            None,
            Cursor::new(data),
            std::io::sink(),
        );
    });
}

/// `lsp_message`: the bytes as the language server's stdin (framed JSON-RPC),
/// through the server's reader and loop. Analysis runs at once (no debounce)
/// and a save proves on a tiny budget.
pub fn lsp_messages(data: &[u8]) {
    let input = Cursor::new(data.to_vec());
    on_big_stack(|| {
        let mut out = Vec::new();
        let _ = lsp::serve(input, &mut out, Duration::ZERO, PROVE_BUDGET);
    });
}

/// `wsb_load`: the bytes as a `.wsb` file, read as `wsitec agent site.wsb`
/// reads it; an artifact that loads is reset and stepped a little.
pub fn wsb_load(data: &[u8]) {
    // A file of its own per call: the stable test runs seeds in parallel.
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("wsite-fuzz-{}-{n}.wsb", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let loaded = load::read_artifact(&path);
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let mut p = path.clone().into_os_string();
        p.push(suffix);
        let _ = std::fs::remove_file(p);
    }
    let Ok(artifact) = loaded else { return };
    on_big_stack(|| {
        let program = &artifact.program;
        for instance in env::instances(program).iter().take(2) {
            let Ok(mut env) = Env::new(program, instance, RewardConfig::default()) else {
                continue;
            };
            for i in 0..4 {
                let Some(action) = env.actions().get(i).cloned() else {
                    break;
                };
                if env.step(&action).is_err() {
                    break;
                }
            }
        }
    });
}

/// A writer that answers every request with one fixed line, parsed as the
/// simulator's answers are.
struct Scripted(String);

impl StateWriter for Scripted {
    fn propose(&mut self, request: &WriteRequest<'_>) -> Result<Proposal, WriterError> {
        let _ = request.to_json();
        request.parse_answer(&self.0)
    }
}

/// The help-desk site (`tests/sites/helpdesk.wsite`), compiled once.
fn helpdesk() -> &'static Program {
    static SITE: OnceLock<Program> = OnceLock::new();
    SITE.get_or_init(|| {
        let path = crate::repo_root().join("tests/sites/helpdesk.wsite");
        let text = std::fs::read_to_string(path).expect("tests/sites/helpdesk.wsite");
        wsitec::compile_str("helpdesk.wsite", &text)
            .program
            .expect("the help-desk site compiles")
    })
}

/// The index of the element with this key or whose text starts so.
fn element(env: &Env<'_>, key: &str) -> usize {
    env.elements()
        .iter()
        .find(|e| e.key == key || e.text.starts_with(key))
        .map(|e| e.index)
        .unwrap_or_else(|| panic!("no element {key} on the help-desk page"))
}

/// `simulator_reply`: each line of the bytes as a simulator's answer to a
/// click on the extern marker `draft_reply` (`tests/sites/helpdesk.wsite`).
/// Never a panic; a refused answer (ε = 1) leaves the page, the form, the
/// database and the session byte for byte as they were.
pub fn simulator_reply(data: &[u8]) {
    let program = helpdesk();
    let text = String::from_utf8_lossy(data);
    on_big_stack(|| {
        let instance = env::instances(program)
            .into_iter()
            .find(|i| i.name == "answer_printer")
            .expect("the task answer_printer");
        let mut env = Env::new(program, &instance, RewardConfig::default()).expect("a reset");
        let memo = element(&env, "#memo");
        env.step(&Action {
            kind: ActionKind::Type,
            element: Some(memo),
            text: Some("call back".into()),
        })
        .expect("typing a memo");
        let layout = StateLayout::for_program(program).expect("a layout");
        let mut pool = TextPool::for_program(program);
        for line in text.split('\n') {
            if env.done() {
                break;
            }
            let Some(draft) = env.elements().iter().find(|e| e.key == "#draft") else {
                break;
            };
            let click = Action {
                kind: ActionKind::Click,
                element: Some(draft.index),
                text: None,
            };
            env.set_writer(Some(SharedWriter::new(Scripted(line.to_string()))));
            let before = env.encode_state(&layout, &mut pool).expect("an encoding");
            let (world, nav) = (env.world().clone(), env.navigation().clone());
            let step = env.step(&click).expect("the button takes a click");
            if step.epsilon == 1 {
                let after = env.encode_state(&layout, &mut pool).expect("an encoding");
                assert_eq!(env.world(), &world, "a refused reply changed the world");
                assert_eq!(env.navigation(), &nav, "a refused reply moved the page");
                assert!(
                    after[HEADER_SIZE..] == before[HEADER_SIZE..],
                    "a refused reply changed the state's bytes"
                );
            }
        }
    });
}

/// The site the serve target serves (`examples/ecommerce/trailhead.wsite`,
/// forms of every kind), compiled once.
fn shop_site() -> &'static Program {
    static SITE: OnceLock<Program> = OnceLock::new();
    SITE.get_or_init(|| {
        let path = crate::repo_root().join("examples/ecommerce/trailhead.wsite");
        let text = std::fs::read_to_string(path).expect("the shop example");
        wsitec::compile_str("trailhead.wsite", &text)
            .program
            .expect("the shop example compiles")
    })
}

/// `serve_request`: the bytes as HTTP requests to a served shop (a fresh
/// in-memory app per input), one a line: `METHOD PATH [json] BODY`. The
/// session cookie a response sets is sent with the next request, as a
/// browser does, and `{token}` in a body becomes the form token of the last
/// page shown, so that the fuzzer reaches the form logic. Every answer must
/// be a success, a redirect with a `Location`, or a refusal: never a server
/// error.
pub fn serve_requests(data: &[u8]) {
    let options = wsite_serve::Options::default();
    let app = wsite_serve::App::new(shop_site().clone(), options).expect("the shop serves");
    let mut session = None;
    let mut token = String::new();
    for line in data.split(|b| *b == b'\n') {
        let request = serve_request(line, session.clone(), &token);
        let response = app.handle(&request);
        assert!(
            response.status < 500,
            "{request:?} answered {}: {}",
            response.status,
            response.body
        );
        assert_eq!(response.status == 303, response.location.is_some());
        if let Some(id) = response.new_session {
            session = Some(id);
        }
        let marker = "name=\"_token\" value=\"";
        if let Some(at) = response.body.find(marker) {
            let rest = &response.body[at + marker.len()..];
            token = rest.split('"').next().unwrap_or_default().to_string();
        }
    }
}

/// One line as a request.
fn serve_request(line: &[u8], session: Option<String>, token: &str) -> wsite_serve::Request {
    let mut parts = line.splitn(3, |b| *b == b' ');
    let method = match parts.next().unwrap_or_default() {
        b"GET" => wsite_serve::Method::Get,
        b"HEAD" => wsite_serve::Method::Head,
        b"POST" => wsite_serve::Method::Post,
        _ => wsite_serve::Method::Other,
    };
    let path = String::from_utf8_lossy(parts.next().unwrap_or(b"/")).into_owned();
    let mut body = parts.next().unwrap_or_default().to_vec();
    let json = body.starts_with(b"json ");
    if json {
        body.drain(..5);
    }
    let body = match std::str::from_utf8(&body) {
        Ok(text) => text.replace("{token}", token).into_bytes(),
        Err(_) => body,
    };
    wsite_serve::Request {
        method,
        path,
        session,
        json,
        body,
    }
}
