//! `wsitec agent SITE --task NAME`: the JSON-lines protocol for external agents
//! (docs/agent-protocol.md). One request per line on stdin, one reply per line
//! on stdout. A line that cannot be understood gets `{"error": ...}` and the
//! episode goes on unchanged. With `--record FILE` every episode played is
//! appended to FILE as a trajectory line (`wsite_runtime::replay`), its
//! actions named by stable key, one line and a flush per episode.

use super::{simulator, site};
use clap::Args;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsite_runtime::env::{Action, Env, RewardConfig, RewardMode, SharedWriter};
use wsite_runtime::ir::Program;
use wsite_runtime::replay::{self, Recorder, Trajectory};

#[derive(Args)]
pub struct AgentArgs {
    /// A `.wsite` file or a directory of them.
    site: PathBuf,
    /// The task to start with (a `reset` may name another).
    #[arg(long)]
    task: String,
    /// `dense` (§5.4), `terminal` (1 on success only) or `decomposed`
    /// (success plus exact per-step accuracy credit, and −w_f for a
    /// malformed request; docs/runtime.md).
    #[arg(long, default_value = "dense")]
    reward: String,
    /// The same as `--reward terminal`.
    #[arg(long)]
    terminal_reward: bool,
    #[command(flatten)]
    simulator: simulator::SimulatorArgs,
    /// Append every episode played to FILE as a trajectory (`wsitec replay`).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

pub fn run(args: AgentArgs) -> ExitCode {
    let program = match site::open(&args.site) {
        Ok(p) => p,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(1);
        }
    };
    let writer = match args.simulator.start() {
        Ok(w) => w,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(1);
        }
    };
    let config = match (RewardMode::parse(&args.reward), args.terminal_reward) {
        (Some(RewardMode::Dense | RewardMode::Terminal), true) => {
            RewardConfig::with_mode(RewardMode::Terminal)
        }
        (Some(mode), false) => RewardConfig::with_mode(mode),
        (Some(_), true) => {
            eprintln!(
                "error: `--terminal-reward` contradicts `--reward {}`",
                args.reward
            );
            return ExitCode::from(2);
        }
        (None, _) => {
            eprintln!(
                "error: unknown reward `{}`; use `dense`, `terminal` or `decomposed`",
                args.reward
            );
            return ExitCode::from(2);
        }
    };
    let record = match args.record.as_deref().map(open_record).transpose() {
        Ok(r) => r.map(|file| Recording {
            recorder: Recorder::new(&program.site.name),
            out: Box::new(file),
        }),
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(1);
        }
    };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    serve_recording(&program, args.task, config, writer, stdin, stdout, record);
    ExitCode::SUCCESS
}

/// The `--record` file, opened to append.
fn open_record(path: &Path) -> Result<std::fs::File, String> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open `{}` to record: {e}", path.display()))
}

/// Where `--record` writes the episodes, and the one being played.
pub struct Recording {
    pub recorder: Recorder,
    pub out: Box<dyn Write>,
}

impl Recording {
    /// Appends a finished episode as one line, flushed at once.
    fn write(&mut self, episode: Option<Trajectory>) {
        let Some(t) = episode else { return };
        let written = writeln!(self.out, "{}", t.to_json()).and_then(|()| self.out.flush());
        if let Err(e) = written {
            eprintln!("warning: an episode could not be recorded: {e}");
        }
    }
}

/// The protocol loop: one reply per non-blank request line of `input`, until
/// the input ends or the output closes. Separate from [`run`] so the fuzz
/// harness (`tests/src/fuzz_harness.rs`) drives this very code on bytes.
#[allow(dead_code)] // the CLI itself calls `serve_recording`
pub fn serve(
    program: &Program,
    default_task: String,
    config: RewardConfig,
    writer: Option<SharedWriter>,
    input: impl BufRead,
    output: impl Write,
) {
    serve_recording(program, default_task, config, writer, input, output, None);
}

/// [`serve`], appending every episode played to `record` when given.
pub fn serve_recording(
    program: &Program,
    default_task: String,
    config: RewardConfig,
    writer: Option<SharedWriter>,
    input: impl BufRead,
    mut output: impl Write,
    record: Option<Recording>,
) {
    let mut session = Session {
        program,
        config,
        env: None,
        default_task,
        writer,
        record,
    };
    for line in input.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = session.handle(&line);
        if writeln!(output, "{reply}")
            .and_then(|_| output.flush())
            .is_err()
        {
            break;
        }
    }
    if let Some(r) = session.record.as_mut() {
        let last = r.recorder.finish();
        r.write(last);
    }
}

struct Session<'p> {
    program: &'p Program,
    config: RewardConfig,
    env: Option<Env<'p>>,
    default_task: String,
    /// The `--simulator` process, shared by every episode of the session.
    writer: Option<SharedWriter>,
    record: Option<Recording>,
}

impl<'p> Session<'p> {
    fn handle(&mut self, line: &str) -> Value {
        let request: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return self.malformed(format!("not JSON: {e}")),
        };
        if let Some(reset) = request.get("reset") {
            return self.reset(reset);
        }
        if let Some(act) = request.get("act") {
            return self.act(act);
        }
        self.malformed("expected {\"reset\": {...}} or {\"act\": ...}".to_string())
    }

    /// The error reply to a request that is not a well-formed candidate
    /// action; in decomposed mode, while an episode is on, it also carries
    /// the format term `−w_f` (the state is unchanged either way).
    fn malformed(&self, why: String) -> Value {
        let mut reply = error(why);
        let live = self.env.as_ref().is_some_and(|e| !e.done());
        if live && self.config.mode == RewardMode::Decomposed {
            reply["reward"] = json!(-self.config.format_penalty);
        }
        reply
    }

    fn reset(&mut self, reset: &Value) -> Value {
        let task = reset
            .get("task")
            .and_then(Value::as_str)
            .unwrap_or(&self.default_task)
            .to_string();
        let instance = match site::instance(self.program, &task) {
            Ok(i) => i,
            Err(why) => return error(why),
        };
        match Env::new(self.program, &instance, self.config) {
            Ok(mut env) => {
                env.set_writer(self.writer.clone());
                let reply = json!({ "obs": env.observation(), "actions": env.actions() });
                self.env = Some(env);
                if let Some(r) = self.record.as_mut() {
                    let seed = reset.get("seed").and_then(Value::as_u64);
                    let finished = r.recorder.start(&instance.name, seed);
                    r.write(finished);
                }
                reply
            }
            Err(why) => error(why.to_string()),
        }
    }

    fn act(&mut self, act: &Value) -> Value {
        let Some(env) = self.env.as_mut() else {
            return error("no episode yet: send {\"reset\": {\"task\": ...}} first".to_string());
        };
        let action = match parse_action(env, act) {
            Ok(a) => a,
            Err(why) => return self.malformed(why),
        };
        let keyed = Recorder::keyed(env, &action);
        let stepped = env.step(&action);
        if let (Ok(step), Some(r)) = (&stepped, self.record.as_mut()) {
            r.recorder.push(keyed);
            if step.done {
                let finished = r.recorder.finish();
                r.write(finished);
            }
        }
        match stepped {
            Ok(step) => {
                let mut info = json!({ "epsilon": step.epsilon, "progress": step.progress });
                if let Some(j) = step.judgement {
                    info["r_acc"] = json!(u8::from(j.r_acc));
                    info["unknown"] = json!(j.unknown);
                    info["new_best"] = json!(j.new_best);
                }
                json!({
                    "obs": env.observation(),
                    "actions": env.actions(),
                    "reward": step.reward,
                    "done": step.done,
                    "success": step.success,
                    "info": info,
                })
            }
            Err(why) => self.malformed(why.to_string()),
        }
    }
}

/// `3` (an index into the last `actions`), `{"kind", "element", "text"}` or
/// `{"kind", "key", "text"}` (an element by stable key), read and resolved as
/// `wsitec replay` reads a trajectory's steps.
fn parse_action(env: &Env<'_>, act: &Value) -> Result<Action, String> {
    let step = replay::parse_action(act, None).map_err(|e| e.to_string())?;
    replay::resolve(env, &step).map_err(|e| e.to_string())
}

fn error(message: String) -> Value {
    json!({ "error": message })
}
