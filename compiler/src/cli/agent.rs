//! `wsitec agent SITE --task NAME`: the JSON-lines protocol for external agents
//! (docs/agent-protocol.md). One request per line on stdin, one reply per line
//! on stdout. A line that cannot be understood gets `{"error": ...}` and the
//! episode goes on unchanged.

use super::{simulator, site};
use clap::Args;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use wsite_runtime::env::{Action, ActionKind, Env, RewardConfig, RewardMode, SharedWriter};
use wsite_runtime::ir::Program;

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
    let stdin = std::io::stdin().lock();
    serve(
        &program,
        args.task,
        config,
        writer,
        stdin,
        std::io::stdout().lock(),
    );
    ExitCode::SUCCESS
}

/// The protocol loop: one reply per non-blank request line of `input`, until
/// the input ends or the output closes. Separate from [`run`] so the fuzz
/// harness (`tests/src/fuzz_harness.rs`) drives this very code on bytes.
pub fn serve(
    program: &Program,
    default_task: String,
    config: RewardConfig,
    writer: Option<SharedWriter>,
    input: impl BufRead,
    mut output: impl Write,
) {
    let mut session = Session {
        program,
        config,
        env: None,
        default_task,
        writer,
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
}

struct Session<'p> {
    program: &'p Program,
    config: RewardConfig,
    env: Option<Env<'p>>,
    default_task: String,
    /// The `--simulator` process, shared by every episode of the session.
    writer: Option<SharedWriter>,
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
                reply
            }
            Err(why) => error(why),
        }
    }

    fn act(&mut self, act: &Value) -> Value {
        let Some(env) = self.env.as_mut() else {
            return error("no episode yet: send {\"reset\": {\"task\": ...}} first".to_string());
        };
        let step = parse_action(env, act).and_then(|action| env.step(&action));
        match step {
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
            Err(why) => self.malformed(why),
        }
    }
}

/// `3` (an index into the last `actions`) or `{"kind", "element", "text"}`.
fn parse_action(env: &Env<'_>, act: &Value) -> Result<Action, String> {
    if let Some(n) = act.as_u64() {
        return env
            .actions()
            .get(n as usize)
            .cloned()
            .ok_or_else(|| format!("no action {n}: there are {} actions", env.actions().len()));
    }
    let kind = match act.get("kind").and_then(Value::as_str) {
        Some("click") => ActionKind::Click,
        Some("type") => ActionKind::Type,
        Some("select") => ActionKind::Select,
        Some("answer") => ActionKind::Answer,
        Some(other) => {
            return Err(format!(
                "unknown action kind `{other}`: use click, type, select or answer"
            ))
        }
        None => {
            return Err(
                "an action is an index or {\"kind\": ..., \"element\": ..., \"text\": ...}"
                    .to_string(),
            )
        }
    };
    let element = act
        .get("element")
        .and_then(Value::as_u64)
        .map(|e| e as usize);
    let text = act.get("text").and_then(Value::as_str).map(str::to_string);
    Ok(Action {
        kind,
        element,
        text,
    })
}

fn error(message: String) -> Value {
    json!({ "error": message })
}
