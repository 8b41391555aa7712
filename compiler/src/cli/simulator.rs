//! `--simulator CMD`: a state writer that is a process (INTERFACES.md,
//! "Extern markers at run time: the state-writer protocol").
//!
//! This module owns the simulator process and nothing of the protocol's
//! meaning: it starts `sh -c CMD` once, writes each request as one JSON line
//! to its stdin and reads one line back from its stdout, and hands that line
//! to the runtime (`WriteRequest::parse_answer`), which reads it and passes
//! the delta through the gate. Every failure — the process exited, answered
//! something that is not an answer, or said nothing within the timeout — is a
//! `simulator failed: …` step; the process is then killed and started afresh,
//! once: a replacement that fails before it ever answers is not restarted
//! again, and every later click fails at once with the reason. Nothing waits
//! longer than the timeout, so a stalled simulator never hangs the episode.
//!
//! Each process has two helper threads, so that no call here blocks: one
//! writes requests (a simulator that stops reading would otherwise block us
//! on a full pipe), one reads answer lines into a channel that is read with
//! `recv_timeout`. The process runs in its own process group, killed as a
//! whole, because `sh -c` forks the command rather than replacing itself.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;
use wsite_runtime::env::{Proposal, SharedWriter, StateWriter, WriteRequest, WriterError};

/// The longest answer line read; a longer one is a failure, not a memory
/// hazard.
const MAX_LINE: u64 = 16 << 20;

/// A simulator process speaking the state-writer protocol.
pub struct ProcessWriter {
    command: String,
    timeout: Duration,
    running: Option<Running>,
    /// Why the simulator is not used any more: set when a restart failed.
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

impl ProcessWriter {
    /// Starts `command` under `sh -c`; each answer is waited for at most
    /// `timeout`.
    pub fn start(command: &str, timeout: Duration) -> Result<ProcessWriter, String> {
        let running = spawn(command)?;
        Ok(ProcessWriter {
            command: command.to_string(),
            timeout,
            running: Some(running),
            gone: None,
            replacement: false,
        })
    }

    /// One request line out, one answer line back.
    fn exchange(&mut self, line: String) -> Result<String, String> {
        let running = self
            .running
            .as_mut()
            .ok_or_else(|| "the simulator is not running".to_string())?;
        // An answer left over from an earlier request (a simulator that wrote
        // two lines) must not be taken as the answer to this one.
        while running.answers.try_recv().is_ok() {}
        let sent = running
            .requests
            .as_ref()
            .is_some_and(|tx| tx.send(line).is_ok());
        if !sent {
            return Err(exit_reason(&mut running.child));
        }
        match running.answers.recv_timeout(self.timeout) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(why)) => Err(why),
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("no answer within {} s", self.timeout.as_secs_f64()))
            }
            Err(RecvTimeoutError::Disconnected) => Err(exit_reason(&mut running.child)),
        }
    }

    /// After a failure: kills the process and starts a replacement, unless
    /// the process was already a replacement that never answered. Returns the
    /// failure to report.
    fn recover(&mut self, why: String) -> WriterError {
        self.stop();
        if self.replacement {
            self.gone = Some(format!(
                "`{}` failed again after a restart ({why}); it is not restarted again",
                self.command
            ));
            return WriterError::Failed(why);
        }
        match spawn(&self.command) {
            Ok(running) => {
                self.running = Some(running);
                self.replacement = true;
                WriterError::Failed(format!("{why}; restarted it"))
            }
            Err(e) => {
                self.gone = Some(format!("could not restart `{}`: {e}", self.command));
                WriterError::Failed(format!("{why}; could not restart it: {e}"))
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

impl StateWriter for ProcessWriter {
    fn propose(&mut self, request: &WriteRequest<'_>) -> Result<Proposal, WriterError> {
        if let Some(why) = &self.gone {
            return Err(WriterError::Failed(why.clone()));
        }
        let answer = match self.exchange(request.to_json().to_string()) {
            Ok(answer) => answer,
            Err(why) => return Err(self.recover(why)),
        };
        match request.parse_answer(&answer) {
            Err(WriterError::Failed(why)) => Err(self.recover(why)),
            // A proposal, even a refused one, is an answer: the process works.
            other => {
                self.replacement = false;
                other
            }
        }
    }
}

impl Drop for ProcessWriter {
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
        .name("simulator-writer".into())
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
                .name("simulator-reader".into())
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
fn exit_reason(child: &mut Child) -> String {
    // The output closes just before the process is reaped; give it a moment.
    for _ in 0..20 {
        if let Ok(Some(status)) = child.try_wait() {
            return format!("the simulator exited ({status})");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    "the simulator closed its output".to_string()
}

/// The command-line options every command that runs episodes shares.
#[derive(clap::Args)]
pub struct SimulatorArgs {
    /// A command (run by `sh -c`) that proposes the effects of extern
    /// markers over JSON lines (docs/runtime.md); without it their `default`
    /// bodies run.
    #[arg(long, value_name = "CMD")]
    simulator: Option<String>,
    /// Seconds to wait for each of the simulator's answers.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_timeout)]
    simulator_timeout: Duration,
}

/// A positive number of seconds (fractions allowed).
fn parse_timeout(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|t| !t.is_zero())
        .ok_or_else(|| format!("`{text}` is not a positive number of seconds"))
}

impl SimulatorArgs {
    /// The simulator as a writer for the environments, if one was asked for.
    pub fn start(&self) -> Result<Option<SharedWriter>, String> {
        let Some(command) = &self.simulator else {
            return Ok(None);
        };
        ProcessWriter::start(command, self.simulator_timeout).map(|w| Some(SharedWriter::new(w)))
    }
}
