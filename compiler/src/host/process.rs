//! A line-protocol child process (`sh -c CMD`), shared by `--simulator`
//! (INTERFACES.md, "the state-writer protocol") and `prm judge --cmd`
//! (docs/prm.md, "External judges"): one JSON line out, one line back.
//!
//! This module owns the process, not the meaning of its lines: it starts the
//! command once, writes each request line to its stdin and reads one line
//! from its stdout within a timeout. On a failure the caller asks for
//! [`LineProcess::recover`]: the process is killed and started afresh, once;
//! a replacement that fails before it ever answers is not restarted again,
//! and every later exchange fails at once with the reason. Nothing waits
//! longer than the timeout, so a stalled process never hangs its caller.
//!
//! Each process has two helper threads, so that no call here blocks: one
//! writes requests (a process that stops reading would otherwise block us
//! on a full pipe), one reads answer lines into a channel that is read with
//! `recv_timeout`. The process runs in its own process group, killed as a
//! whole, because `sh -c` forks the command rather than replacing itself.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// The longest answer line read; a longer one is a failure, not a memory
/// hazard.
const MAX_LINE: u64 = 16 << 20;

/// A child process speaking one line per request.
pub struct LineProcess {
    command: String,
    /// What the process is called in messages (`simulator`, `judge`).
    role: &'static str,
    timeout: Duration,
    running: Option<Running>,
    /// Why the process is not used any more: set when a restart failed.
    gone: Option<String>,
    /// The running process replaced a failed one and has not answered yet.
    replacement: bool,
}

/// One started process and the channels to its helper threads.
struct Running {
    child: Child,
    /// Request lines for the writing thread; dropping it closes stdin.
    requests: Option<Sender<String>>,
    /// Answer lines, or why reading stopped.
    answers: Receiver<Result<String, String>>,
}

impl LineProcess {
    /// Starts `command` under `sh -c`; each answer is waited for at most
    /// `timeout`.
    pub fn start(
        command: &str,
        role: &'static str,
        timeout: Duration,
    ) -> Result<LineProcess, String> {
        let running = spawn(command)?;
        Ok(LineProcess {
            command: command.to_string(),
            role,
            timeout,
            running: Some(running),
            gone: None,
            replacement: false,
        })
    }

    /// Why the process is given up on, if it is.
    pub fn gone(&self) -> Option<&str> {
        self.gone.as_deref()
    }

    /// One request line out, one answer line back.
    pub fn exchange(&mut self, line: String) -> Result<String, String> {
        let role = self.role;
        let running = self
            .running
            .as_mut()
            .ok_or_else(|| format!("the {role} is not running"))?;
        // An answer left over from an earlier request (a process that wrote
        // two lines) must not be taken as the answer to this one.
        while running.answers.try_recv().is_ok() {}
        let sent = running
            .requests
            .as_ref()
            .is_some_and(|tx| tx.send(line).is_ok());
        if !sent {
            return Err(exit_reason(&mut running.child, role));
        }
        match running.answers.recv_timeout(self.timeout) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(why)) => Err(why),
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("no answer within {} s", self.timeout.as_secs_f64()))
            }
            Err(RecvTimeoutError::Disconnected) => Err(exit_reason(&mut running.child, role)),
        }
    }

    /// The last answer was a valid one: the process works.
    pub fn answered(&mut self) {
        self.replacement = false;
    }

    /// After a failure: kills the process and starts a replacement, unless
    /// the process was already a replacement that never answered. Returns the
    /// failure to report.
    pub fn recover(&mut self, why: String) -> String {
        self.stop();
        if self.replacement {
            self.gone = Some(format!(
                "`{}` failed again after a restart ({why}); it is not restarted again",
                self.command
            ));
            return why;
        }
        match spawn(&self.command) {
            Ok(running) => {
                self.running = Some(running);
                self.replacement = true;
                format!("{why}; restarted it")
            }
            Err(e) => {
                self.gone = Some(format!("could not restart `{}`: {e}", self.command));
                format!("{why}; could not restart it: {e}")
            }
        }
    }

    /// Kills the process (its whole group) and reaps it.
    fn stop(&mut self) {
        let Some(mut running) = self.running.take() else {
            return;
        };
        running.requests = None;
        if let Ok(pid) = i32::try_from(running.child.id()) {
            // `kill -KILL -- -PGID`: the group holds the command `sh` forked.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = running.child.kill();
        let _ = running.child.wait();
    }
}

impl Drop for LineProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts `sh -c command` in its own process group, with its helper threads.
/// Its stderr is ours, so a simulator's tracebacks reach the person.
fn spawn(command: &str) -> Result<Running, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start `{command}`: {e}"))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!("cannot talk to `{command}`: no pipes"));
    };
    let (requests, pending) = mpsc::channel::<String>();
    let (answered, answers) = mpsc::channel();
    let threads = std::thread::Builder::new()
        .name("line-process-writer".into())
        .spawn(move || {
            for line in pending {
                let ok = stdin
                    .write_all(line.as_bytes())
                    .and_then(|()| stdin.write_all(b"\n"))
                    .and_then(|()| stdin.flush());
                if ok.is_err() {
                    break;
                }
            }
        })
        .and_then(|_| {
            std::thread::Builder::new()
                .name("line-process-reader".into())
                .spawn(move || read_answers(stdout, &answered))
        });
    if let Err(e) = threads {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!("cannot start threads for `{command}`: {e}"));
    }
    Ok(Running {
        child,
        requests: Some(requests),
        answers,
    })
}

/// Sends each line of `stdout` until it ends, fails or runs too long.
fn read_answers(stdout: ChildStdout, answered: &Sender<Result<String, String>>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut line = Vec::new();
        match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if line.last() != Some(&b'\n') && u64::try_from(line.len()).is_ok_and(|n| n >= MAX_LINE) {
            let _ = answered.send(Err(format!(
                "answered a line longer than {} MiB",
                MAX_LINE >> 20
            )));
            return;
        }
        let text = String::from_utf8_lossy(&line).into_owned();
        if answered.send(Ok(text)).is_err() {
            return;
        }
    }
}

/// Why a process stopped talking: its exit status if it has one by now.
fn exit_reason(child: &mut Child, role: &str) -> String {
    // The output closes just before the process is reaped; give it a moment.
    for _ in 0..20 {
        if let Ok(Some(status)) = child.try_wait() {
            return format!("the {role} exited ({status})");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    format!("the {role} closed its output")
}
