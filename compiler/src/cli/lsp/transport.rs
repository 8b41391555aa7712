//! Messages in and out over stdio. A reader thread frames incoming
//! messages (`Content-Length` headers, JSON bodies) and hands them to the
//! server's single-threaded loop through a channel, so the loop can wait
//! with a timeout (the debounce). A body that is not a JSON-RPC message is
//! passed on as [`Incoming::Malformed`] and reading goes on: one bad message
//! never ends the session. (lsp-server's own stdio thread stops at the first
//! one, which is why this small reader exists.)

use lsp_server::Message;
use std::io::{BufRead, Write};
use std::sync::mpsc::{channel, Receiver};

pub enum Incoming {
    Message(Message),
    /// A message that could not be read, and why.
    Malformed(String),
}

/// Starts reading `input` on a thread of its own; the channel closes when
/// the input ends.
pub fn spawn_reader(mut input: impl BufRead + Send + 'static) -> Receiver<Incoming> {
    let (tx, rx) = channel();
    std::thread::spawn(move || loop {
        let next = match Message::read(&mut input) {
            Ok(Some(message)) => Incoming::Message(message),
            Ok(None) => return,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                Incoming::Malformed(e.to_string())
            }
            Err(_) => return,
        };
        if tx.send(next).is_err() {
            return;
        }
    });
    rx
}

/// Writes one message, framed; a closed output is reported to the caller.
pub fn send(out: &mut dyn Write, message: Message) -> std::io::Result<()> {
    let mut buf = Vec::new();
    message.write(&mut buf)?;
    out.write_all(&buf)?;
    out.flush()
}

/// The JSON-RPC answer to a message that could not be parsed: an error with
/// a null id (lsp-server's ids cannot be null, so it is written by hand).
pub fn send_parse_error(out: &mut dyn Write, why: &str) -> std::io::Result<()> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32700, "message": format!("cannot read this message: {why}") },
    })
    .to_string();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}
