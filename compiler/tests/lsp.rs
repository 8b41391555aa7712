//! `wsitec lsp` end to end: a client speaking the protocol over pipes, as an
//! editor would: initialize, open a broken file, get its diagnostics, hover,
//! jump to a definition, complete, format, survive bad input, shut down.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wsitec"))
            .args(["lsp", "--debounce-ms", "20"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("wsitec lsp starts");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            while let Some(m) = read_message(&mut stdout) {
                if tx.send(m).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            incoming,
            next_id: 1,
        }
    }

    fn raw(&mut self, body: &str) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, message: Value) {
        self.raw(&message.to_string());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message that satisfies `want` (others are skipped).
    fn wait(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        loop {
            let m = self
                .incoming
                .recv_timeout(Duration::from_secs(60))
                .expect("the server answers");
            if want(&m) {
                return m;
            }
        }
    }

    /// Sends a request and returns its response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(|m| m["id"] == id)
    }

    fn initialize(&mut self) -> Value {
        let r = self.request("initialize", json!({"capabilities": {}, "processId": null}));
        self.notify("initialized", json!({}));
        r
    }
}

const URI: &str = "file:///nonexistent/shop.wsite";

const BROKEN: &str = "site Shop {\n  title \"Shop\"\n  domain ecommerce\n  start Home\n}\n\ntable Product {\n  name: Text\n  price: Money\n}\n\npage Home {\n  title \"Home\"\n  heading \"Shop\"\n  for p in Product {\n    link \"{p.name}\" -> ProductPage(p)\n  }\n  link \"Basket\" -> Baskett\n}\n\npage ProductPage(p: Product) {\n  title \"{p.name}\"\n  heading \"{p.name}\"\n  text \"{p.price}\"\n  link \"Home\" -> Home\n}\n";

fn doc() -> Value {
    json!({"uri": URI})
}

fn at(line: u32, character: u32) -> Value {
    json!({"textDocument": doc(), "position": {"line": line, "character": character}})
}

#[test]
fn an_editor_session_over_pipes() {
    let mut c = Client::start();
    let init = c.initialize();
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["hoverProvider"], true, "{init}");
    assert_eq!(caps["documentFormattingProvider"], true);

    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "wsite", "version": 1, "text": BROKEN}}),
    );
    let published = c.wait(|m| m["method"] == "textDocument/publishDiagnostics");
    let diags = published["params"]["diagnostics"].as_array().unwrap();
    let unknown = diags
        .iter()
        .find(|d| d["code"] == "E101")
        .unwrap_or_else(|| panic!("{published}"));
    // `Baskett` on line 18 (0-based 17), after `  link "Basket" -> `.
    assert_eq!(
        unknown["range"],
        json!({"start": {"line": 17, "character": 19}, "end": {"line": 17, "character": 26}})
    );
    assert_eq!(unknown["severity"], 1);

    let hover = c.request("textDocument/hover", at(23, 13));
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("field Product.price: Money"), "{hover}");

    let def = c.request("textDocument/definition", at(15, 26));
    assert_eq!(def["result"]["uri"], URI);
    assert_eq!(
        def["result"]["range"]["start"],
        json!({"line": 20, "character": 5})
    );

    let refs = c.request(
        "textDocument/references",
        json!({"textDocument": doc(), "position": {"line": 8, "character": 3}, "context": {"includeDeclaration": true}}),
    );
    assert_eq!(refs["result"].as_array().unwrap().len(), 2, "{refs}");

    // Typing `p.` in the product page, then completing after the dot.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 23, "character": 18}, "end": {"line": 23, "character": 18}}, "text": " text p."}
        ]}),
    );
    let completion = c.request("textDocument/completion", at(23, 26));
    let labels: Vec<&str> = completion["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["id", "name", "price"], "{completion}");

    // A quick fix for the unknown page: create it.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": BROKEN}]}),
    );
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": doc(), "range": {"start": {"line": 17, "character": 22}, "end": {"line": 17, "character": 22}}, "context": {"diagnostics": []}}),
    );
    let action = &actions["result"][0];
    assert_eq!(action["title"], "Create page `Baskett`", "{actions}");

    let messy = BROKEN.replace("  title \"Shop\"", "      title    \"Shop\"");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 4}, "contentChanges": [{"text": messy}]}),
    );
    let formatted = c.request(
        "textDocument/formatting",
        json!({"textDocument": doc(), "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let edits = formatted["result"].as_array().unwrap();
    assert_eq!(edits.len(), 1, "{formatted}");
    assert!(edits[0]["newText"]
        .as_str()
        .unwrap()
        .contains("\n  title \"Shop\"\n"));

    let shutdown = c.request("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null);
    c.notify("exit", Value::Null);
    let status = c.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn bad_input_gets_an_error_and_the_server_goes_on() {
    let mut c = Client::start();
    let early = c.request("textDocument/hover", at(0, 0));
    assert_eq!(early["error"]["code"], -32002, "{early}");
    c.initialize();
    c.raw("{ this is not json");
    let parse_error = c.wait(|m| m["id"].is_null() && m.get("error").is_some());
    assert_eq!(parse_error["error"]["code"], -32700);
    let unknown = c.request("textDocument/teleport", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let bad = c.request("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // A file that does not parse at all, and positions beyond its end.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "wsite", "version": 1, "text": "}}}{{ page ??? \u{1F600}"}}),
    );
    let published = c.wait(|m| m["method"] == "textDocument/publishDiagnostics");
    assert!(!published["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .is_empty());
    for method in [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/completion",
    ] {
        let r = c.request(method, at(99, 99));
        assert!(r.get("error").is_none(), "{method}: {r}");
    }
    // Still alive and answering.
    let hover = c.request("textDocument/hover", at(0, 1));
    assert!(hover.get("error").is_none(), "{hover}");
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    assert_eq!(c.child.wait().unwrap().code(), Some(0));
}

/// Found writing the `lsp_message` fuzz target: a header claiming terabytes
/// aborted the server, which allocated the claimed size up front. Now a bad
/// length is a parse error, a huge one is read only as far as bytes come,
/// and the server goes on.
#[test]
fn a_huge_or_bad_content_length_does_not_end_the_server() {
    let mut c = Client::start();
    c.initialize();
    write!(c.stdin, "Content-Length: -1\r\n\r\n").unwrap();
    let parse_error = c.wait(|m| m["id"].is_null() && m.get("error").is_some());
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    let hover = c.request("textDocument/hover", at(0, 0));
    assert!(hover.get("error").is_none(), "{hover}");
    // The claimed body never arrives; the input ends and so does the server,
    // with a status, not an abort.
    write!(c.stdin, "Content-Length: 99999999999999\r\n\r\n{{}}").unwrap();
    c.stdin.flush().unwrap();
    let Client {
        mut child, stdin, ..
    } = c;
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}
