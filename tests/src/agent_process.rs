//! A `wsitec agent` child process driven over its JSON-lines protocol, for
//! the CLI's end-to-end tests: one request line in, one reply line out, each
//! reply awaited for at most [`WAIT`] so a broken agent fails a test instead
//! of hanging it. Test support: its failures panic with what went wrong.

#![allow(clippy::expect_used, clippy::panic)]

use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// Longer than any reply may take.
pub const WAIT: Duration = Duration::from_secs(30);

pub struct AgentProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
}

impl AgentProcess {
    /// Starts `command` (a `wsitec agent …` invocation) with piped stdin and
    /// stdout; its stdout is read on a thread so replies can time out.
    pub fn spawn(mut command: Command) -> AgentProcess {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("wsitec agent starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        AgentProcess {
            child,
            stdin,
            replies,
        }
    }

    /// Sends one request line and returns the reply.
    pub fn send(&mut self, request: &str) -> Json {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{request}").expect("write request");
        let line = self
            .replies
            .recv_timeout(WAIT)
            .unwrap_or_else(|e| panic!("no reply to {request} within {WAIT:?}: {e}"));
        serde_json::from_str(&line).expect("a JSON reply")
    }

    /// Clicks the element whose stable key is `key` (or whose text starts
    /// so) in the observation of `last`.
    pub fn click(&mut self, last: &Json, key: &str) -> Json {
        let index = last["obs"]["elements"]
            .as_array()
            .and_then(|els| {
                els.iter().find(|e| {
                    e["key"] == key || e["text"].as_str().is_some_and(|t| t.starts_with(key))
                })
            })
            .and_then(|e| e["index"].as_u64())
            .unwrap_or_else(|| panic!("no element `{key}` in {last}"));
        self.send(&format!(
            "{{\"act\": {{\"kind\": \"click\", \"element\": {index}}}}}"
        ))
    }

    /// Closes stdin and waits, at most [`WAIT`], for a successful exit.
    pub fn finish(mut self) {
        self.stdin = None;
        let start = Instant::now();
        while start.elapsed() < WAIT {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "{status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("wsitec agent did not exit after its input closed");
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
