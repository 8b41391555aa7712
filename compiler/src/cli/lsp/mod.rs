//! `wsitec lsp`: the language server, on stdio.
//!
//! One thread runs the loop (gleam's design): it applies edits, answers
//! requests from the editor features of `wsitec::ide`, and publishes
//! diagnostics. Edits are debounced: a changed file is analysed once typing
//! pauses (`--debounce-ms`, 150 ms by default), or at once when a request needs it. Saving runs
//! the prover too, so task verdicts (F401–F406) and their hovers appear on
//! save. Nothing a client sends — a malformed message, unknown method, bad
//! parameters, a file that does not parse — stops the server; only `exit`
//! (or the input closing) does.

mod convert;
mod transport;

use clap::Args;
use convert::{file_uri, uri_path};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;
use transport::Incoming;
use wsitec::ide::Analysis;
use wsitec::syntax::ast::FileId;
use wsitec::Source;

#[derive(Args)]
pub struct LspArgs {
    /// Milliseconds of quiet after an edit before the file is re-analysed.
    #[arg(long, default_value_t = 150)]
    debounce_ms: u64,
    /// States the prover may explore per task instance when a file is saved.
    #[arg(long, default_value_t = 200_000)]
    budget: usize,
}

pub fn run(args: LspArgs) -> ExitCode {
    let input = std::io::BufReader::new(std::io::stdin());
    let debounce = Duration::from_millis(args.debounce_ms);
    serve(input, &mut std::io::stdout(), debounce, args.budget)
}

/// The server on any framed input, until `exit` or the input's end. Separate
/// from [`run`] so the fuzz harness (`tests/src/fuzz_harness.rs`) drives this
/// very code on bytes.
pub fn serve(
    input: impl std::io::BufRead + Send + 'static,
    output: &mut dyn Write,
    debounce: Duration,
    budget: usize,
) -> ExitCode {
    let mut server = Server::new(output, debounce, budget);
    server.serve(transport::spawn_reader(input))
}

/// An open file.
struct Doc {
    uri: lsp::Uri,
    /// The name the compiler knows it by (its path, for a `file:` URI).
    name: String,
    text: String,
    analysis: Option<Analysis>,
    /// Edited since the last analysis.
    dirty: bool,
}

struct Server<'o> {
    out: &'o mut dyn Write,
    docs: BTreeMap<String, Doc>,
    initialized: bool,
    shutting_down: bool,
    debounce: Duration,
    budget: usize,
}

impl<'o> Server<'o> {
    fn new(out: &'o mut dyn Write, debounce: Duration, budget: usize) -> Server<'o> {
        Server {
            out,
            docs: BTreeMap::new(),
            initialized: false,
            shutting_down: false,
            debounce,
            budget,
        }
    }

    fn serve(&mut self, incoming: std::sync::mpsc::Receiver<Incoming>) -> ExitCode {
        loop {
            let waiting = self.docs.values().any(|d| d.dirty);
            let next = if waiting {
                incoming.recv_timeout(self.debounce)
            } else {
                incoming.recv().map_err(|_| RecvTimeoutError::Disconnected)
            };
            let result = match next {
                Err(RecvTimeoutError::Timeout) => self.analyse_dirty(),
                Err(RecvTimeoutError::Disconnected) => {
                    return ExitCode::from(u8::from(!self.shutting_down));
                }
                Ok(Incoming::Malformed(why)) => {
                    eprintln!("wsitec lsp: {why}");
                    transport::send_parse_error(self.out, &why)
                }
                Ok(Incoming::Message(Message::Request(r))) => self.request(r),
                Ok(Incoming::Message(Message::Notification(n))) => {
                    if n.method == "exit" {
                        return ExitCode::from(u8::from(!self.shutting_down));
                    }
                    self.notification(n)
                }
                Ok(Incoming::Message(Message::Response(_))) => Ok(()),
            };
            if result.is_err() {
                // The client's end is gone; nothing can be answered.
                return ExitCode::from(1);
            }
        }
    }

    fn reply(
        &mut self,
        id: RequestId,
        result: Result<Value, (ErrorCode, String)>,
    ) -> std::io::Result<()> {
        let response = match result {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        };
        transport::send(self.out, Message::Response(response))
    }

    fn notify(&mut self, method: &str, params: Value) -> std::io::Result<()> {
        transport::send(
            self.out,
            Message::Notification(Notification::new(method.into(), params)),
        )
    }

    fn request(&mut self, r: Request) -> std::io::Result<()> {
        let id = r.id.clone();
        let result = match r.method.as_str() {
            "initialize" => {
                self.initialized = true;
                Ok(capabilities())
            }
            _ if !self.initialized => Err((
                ErrorCode::ServerNotInitialized,
                "the first request must be `initialize`".into(),
            )),
            "shutdown" => {
                self.shutting_down = true;
                Ok(Value::Null)
            }
            method => self.feature(method, r.params),
        };
        self.reply(id, result)
    }

    /// Answers an editor-feature request.
    fn feature(&mut self, method: &str, params: Value) -> Result<Value, (ErrorCode, String)> {
        use lsp::request::*;
        fn parse<R: lsp::request::Request>(
            params: Value,
        ) -> Result<R::Params, (ErrorCode, String)> {
            serde_json::from_value(params).map_err(|e| {
                (
                    ErrorCode::InvalidParams,
                    format!("bad parameters for `{}`: {e}", R::METHOD),
                )
            })
        }
        match method {
            HoverRequest::METHOD => {
                let p = parse::<HoverRequest>(params)?.text_document_position_params;
                Ok(self.at(&p, |a, o, _| convert::hover(a, o)))
            }
            GotoDefinition::METHOD => {
                let p = parse::<GotoDefinition>(params)?.text_document_position_params;
                Ok(self.at(&p, convert::definition))
            }
            References::METHOD => {
                let p = parse::<References>(params)?;
                let with_decl = p.context.include_declaration;
                Ok(self.at(&p.text_document_position, |a, o, uri| {
                    convert::references(a, o, with_decl, uri)
                }))
            }
            Completion::METHOD => {
                let p = parse::<Completion>(params)?.text_document_position;
                let text = self.doc_text(&p.text_document.uri);
                Ok(self.at(&p, |a, o, _| convert::completions(a, &text, o)))
            }
            DocumentSymbolRequest::METHOD => {
                let p = parse::<DocumentSymbolRequest>(params)?;
                Ok(self
                    .analysis(&p.text_document.uri)
                    .map_or(Value::Null, convert::symbols))
            }
            CodeActionRequest::METHOD => {
                let p = parse::<CodeActionRequest>(params)?;
                let uri = p.text_document.uri.clone();
                Ok(self
                    .analysis(&uri)
                    .map_or(Value::Null, |a| convert::code_actions(a, &uri, p.range)))
            }
            Formatting::METHOD => {
                let p = parse::<Formatting>(params)?;
                let text = self.doc_text(&p.text_document.uri);
                Ok(convert::formatting(&text))
            }
            other => Err((
                ErrorCode::MethodNotFound,
                format!("`{other}` is not supported by wsitec lsp"),
            )),
        }
    }

    /// Runs `f` on the analysis of the position's file and the position's
    /// byte offset (null when the file is not open).
    fn at(
        &mut self,
        p: &lsp::TextDocumentPositionParams,
        f: impl FnOnce(&Analysis, usize, &lsp::Uri) -> Value,
    ) -> Value {
        let Some(analysis) = self.analysis(&p.text_document.uri) else {
            return Value::Null;
        };
        let offset = analysis
            .lines(FileId(0))
            .offset(convert::position(p.position));
        f(analysis, offset, &p.text_document.uri)
    }

    fn doc_text(&self, uri: &lsp::Uri) -> String {
        self.docs
            .get(uri.as_str())
            .map(|d| d.text.clone())
            .unwrap_or_default()
    }

    /// The analysis of an open file, brought up to date first.
    fn analysis(&mut self, uri: &lsp::Uri) -> Option<&Analysis> {
        let key = uri.as_str().to_string();
        if self.docs.get(&key)?.dirty {
            self.refresh(&key, false);
        }
        self.docs.get(&key)?.analysis.as_ref()
    }

    /// Re-analyses one file (with the prover when `prove`).
    fn refresh(&mut self, key: &str, prove: bool) {
        let others: Vec<Source> = self
            .docs
            .iter()
            .filter(|(k, _)| k.as_str() != key)
            .map(|(_, d)| Source {
                name: d.name.clone(),
                text: d.text.clone(),
            })
            .collect();
        let budget = self.budget;
        let Some(doc) = self.docs.get_mut(key) else {
            return;
        };
        let input = super::load::ProgramInput {
            name: doc.name.clone(),
            roots: vec![Source {
                name: doc.name.clone(),
                text: doc.text.clone(),
            }],
            embedded: others,
        };
        let options = wsitec::Options {
            prove: prove.then(|| wsite_runtime::prove::Options {
                budget,
                ..Default::default()
            }),
            ..Default::default()
        };
        doc.analysis = Some(Analysis::new(super::load::compile_with(input, options)));
        doc.dirty = false;
    }

    fn publish(&mut self, key: &str) -> std::io::Result<()> {
        let Some(doc) = self.docs.get(key) else {
            return Ok(());
        };
        let diagnostics = doc
            .analysis
            .as_ref()
            .map_or_else(Vec::new, |a| convert::diagnostics(a, &doc.uri));
        let params = json!({ "uri": doc.uri.as_str(), "diagnostics": diagnostics });
        self.notify("textDocument/publishDiagnostics", params)
    }

    fn analyse_dirty(&mut self) -> std::io::Result<()> {
        let dirty: Vec<String> = self
            .docs
            .iter()
            .filter(|(_, d)| d.dirty)
            .map(|(k, _)| k.clone())
            .collect();
        for key in dirty {
            self.refresh(&key, false);
            self.publish(&key)?;
        }
        Ok(())
    }

    fn notification(&mut self, n: Notification) -> std::io::Result<()> {
        use lsp::notification::*;
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp::DidOpenTextDocumentParams>(n.params)
                else {
                    return Ok(());
                };
                let key = p.text_document.uri.as_str().to_string();
                let name = uri_path(&p.text_document.uri).unwrap_or_else(|| key.clone());
                self.docs.insert(
                    key.clone(),
                    Doc {
                        uri: p.text_document.uri,
                        name,
                        text: p.text_document.text,
                        analysis: None,
                        dirty: true,
                    },
                );
                self.refresh(&key, false);
                self.publish(&key)
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp::DidChangeTextDocumentParams>(n.params)
                else {
                    return Ok(());
                };
                if let Some(doc) = self.docs.get_mut(p.text_document.uri.as_str()) {
                    for change in p.content_changes {
                        convert::apply_change(&mut doc.text, change);
                    }
                    doc.dirty = true;
                }
                Ok(())
            }
            DidSaveTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp::DidSaveTextDocumentParams>(n.params)
                else {
                    return Ok(());
                };
                let key = p.text_document.uri.as_str().to_string();
                if let (Some(text), Some(doc)) = (p.text, self.docs.get_mut(&key)) {
                    doc.text = text;
                }
                self.refresh(&key, true);
                self.publish(&key)
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp::DidCloseTextDocumentParams>(n.params)
                else {
                    return Ok(());
                };
                if self.docs.remove(p.text_document.uri.as_str()).is_some() {
                    let params = json!({ "uri": p.text_document.uri.as_str(), "diagnostics": [] });
                    self.notify("textDocument/publishDiagnostics", params)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

fn capabilities() -> Value {
    json!({
        "capabilities": {
            "positionEncoding": "utf-16",
            "textDocumentSync": { "openClose": true, "change": 2, "save": { "includeText": false } },
            "hoverProvider": true,
            "definitionProvider": true,
            "referencesProvider": true,
            "completionProvider": { "triggerCharacters": [".", ">"] },
            "documentSymbolProvider": true,
            "codeActionProvider": { "codeActionKinds": ["quickfix"] },
            "documentFormattingProvider": true,
        },
        "serverInfo": { "name": "wsitec", "version": env!("CARGO_PKG_VERSION") },
    })
}

/// The URI of a file the compiler knows by `name` (a path), if it is one.
pub(crate) fn location_uri(name: &str) -> Option<lsp::Uri> {
    let path = std::path::Path::new(name);
    path.is_file().then(|| file_uri(path)).flatten()
}
