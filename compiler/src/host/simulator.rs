//! `--simulator CMD`: a state writer that is a process (INTERFACES.md,
//! "Extern markers at run time: the state-writer protocol").
//!
//! This module owns the simulator's side of the protocol and nothing of its
//! meaning: it writes each request as one JSON line to the process
//! (`super::process::LineProcess`, which owns starting, timing out and
//! restarting it) and hands the answer line to the runtime
//! (`WriteRequest::parse_answer`), which reads it and passes the delta
//! through the gate. Every failure — the process exited, answered something
//! that is not an answer, or said nothing within the timeout — is a
//! `simulator failed: …` step; the process is then killed and started
//! afresh, once: a replacement that fails before it ever answers is not
//! restarted again, and every later click fails at once with the reason.

use super::process::LineProcess;
use std::time::Duration;
use wsite_runtime::env::{Proposal, SharedWriter, StateWriter, WriteRequest, WriterError};

/// A simulator process speaking the state-writer protocol.
pub struct ProcessWriter {
    process: LineProcess,
}

impl ProcessWriter {
    /// Starts `command` under `sh -c`; each answer is waited for at most
    /// `timeout`.
    pub fn start(command: &str, timeout: Duration) -> Result<ProcessWriter, String> {
        let process = LineProcess::start(command, "simulator", timeout)?;
        Ok(ProcessWriter { process })
    }
}

impl StateWriter for ProcessWriter {
    fn propose(&mut self, request: &WriteRequest<'_>) -> Result<Proposal, WriterError> {
        if let Some(why) = self.process.gone() {
            return Err(WriterError::Failed(why.to_string()));
        }
        let answer = match self.process.exchange(request.to_json().to_string()) {
            Ok(answer) => answer,
            Err(why) => return Err(WriterError::Failed(self.process.recover(why))),
        };
        match request.parse_answer(&answer) {
            Err(WriterError::Failed(why)) => Err(WriterError::Failed(self.process.recover(why))),
            // A proposal, even a refused one, is an answer: the process works.
            other => {
                self.process.answered();
                other
            }
        }
    }
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
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
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
