//! Messages in and out over stdio. A reader thread frames incoming
//! messages (`Content-Length` headers, JSON bodies) and hands them to the
//! server's single-threaded loop through a channel, so the loop can wait
//! with a timeout (the debounce). A body that is not a JSON-RPC message is
//! passed on as [`Incoming::Malformed`] and reading goes on: one bad message
//! never ends the session. (lsp-server's own stdio thread stops at the first
//! one, which is why this small reader exists.) The framing is done here too:
//! lsp-server allocates a body's declared `Content-Length` up front, so one
//! header claiming terabytes aborted the server (found writing the
//! `lsp_message` fuzz target); here a body's buffer grows only with the
//! bytes that actually arrive.

use lsp_server::Message;
use std::io::{BufRead, Read, Write};
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
        let next = match read(&mut input) {
            Ok(Some(Ok(message))) => Incoming::Message(message),
            Ok(Some(Err(why))) => Incoming::Malformed(why),
            Ok(None) | Err(_) => return,
        };
        if tx.send(next).is_err() {
            return;
        }
    });
    rx
}

/// Reads one framed message: `None` at the end of the input (a body cut
/// short included), an `Err` for a message that is not one. Headers other
/// than `Content-Length` are ignored, as lsp-server does.
pub fn read(input: &mut impl BufRead) -> std::io::Result<Option<Result<Message, String>>> {
    let mut size: Option<Result<u64, String>> = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let Some(header) = line.strip_suffix("\r\n") else {
            return Ok(Some(Err(format!("malformed header: {line:?}"))));
        };
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(": ") else {
            return Ok(Some(Err(format!("malformed header: {header:?}"))));
        };
        if name.eq_ignore_ascii_case("Content-Length") {
            size = Some(
                value
                    .parse::<u64>()
                    .map_err(|e| format!("bad Content-Length {value:?}: {e}")),
            );
        }
    }
    let size = match size {
        Some(Ok(size)) => size,
        Some(Err(why)) => return Ok(Some(Err(why))),
        None => return Ok(Some(Err("no Content-Length".into()))),
    };
    // `take` + `read_to_end`: the buffer grows with what arrives, never to
    // the size a header merely claims.
    let mut body = Vec::new();
    input.take(size).read_to_end(&mut body)?;
    if (body.len() as u64) < size {
        return Ok(None);
    }
    Ok(Some(serde_json::from_slice::<Message>(&body).map_err(
        |e| {
            let text = String::from_utf8_lossy(&body);
            format!("malformed LSP payload `{e}`: {text:?}")
        },
    )))
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
