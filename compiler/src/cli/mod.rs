//! Argument parsing and dispatch: one file per subcommand. Exit codes: 0 on
//! success, 1 on a user error (reported as a diagnostic), 2 on bad usage.

mod agent;
mod bench;
mod build;
mod check;
mod eval;
mod fix;
mod fmt;
mod gen;
mod graph;
mod lsp;
mod play;
mod prm;
mod prove;
mod replay;
mod report;
mod serve;
mod tasks;
mod train;

use clap::{Parser, Subcommand};
// Reading programs from disk lives in the library, where the Python binding
// calls it too; the subcommands reach it as `super::load`, `super::site` and so on.
use std::process::ExitCode;
use wsitec::host::{load, process, simulator, site};

#[derive(Parser)]
#[command(
    name = "wsitec",
    version,
    about = "The wsite compiler: verified training worlds for web agents"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every analysis: parse, resolve, type- and effect-check, lint, and prove.
    Check(check::CheckArgs),
    /// Prove every task, then write the certified `.wsb` artifact.
    Build(build::BuildArgs),
    /// Reachability only: each task's verdict, shortest witness or explanation.
    Prove(prove::ProveArgs),
    /// Generate operation and retrieval tasks, each proven before it is emitted.
    Tasks(tasks::TasksArgs),
    /// Play a task in the terminal: numbered actions, reward after each step.
    Play(play::PlayArgs),
    /// Serve a task to an external agent over JSON lines on stdin/stdout.
    Agent(agent::AgentArgs),
    /// Throughput: compile time, interpreter steps/s (one core, all cores), prover states/s.
    Bench(bench::BenchArgs),
    /// Write varied sites for a domain, a train/validation/test corpus, or raw sites with defects.
    Gen(gen::GenArgs),
    /// Train a policy with PPO on the sites' proven tasks (feature `train`).
    Train(train::TrainArgs),
    /// A trained policy's success rate with a 95% interval, per site and domain.
    Eval(eval::EvalArgs),
    /// Process-reward data: export exactly labelled step preferences, judge them, score judges.
    Prm(prm::PrmArgs),
    /// An experiment's results: tables with 95% intervals per condition and domain, and its learning curves.
    Report(report::ReportArgs),
    /// The site map: navigation graph as `dot`, `svg`, or the knowledge spec as `json`.
    Graph(graph::GraphArgs),
    /// Apply the machine-applicable fixes the check offers (a diff; `--apply` writes).
    Fix(fix::FixArgs),
    /// Judge recorded episodes: state replay, key-node coverage, answer check.
    Replay(replay::ReplayArgs),
    /// Serve the site as a web application: HTML pages, SQLite sessions,
    /// control endpoints for task episodes.
    Serve(serve::ServeArgs),
    /// Lay `.wsite` files out in the canonical layout (`--check` for CI, `--stdin` for editors).
    Fmt(fmt::FmtArgs),
    /// The language server, on stdio (for editors; see editors/vscode).
    Lsp(lsp::LspArgs),
}

pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Check(args) => check::run(args),
        Command::Build(args) => build::run(args),
        Command::Prove(args) => prove::run(args),
        Command::Tasks(args) => tasks::run(args),
        Command::Play(args) => play::run(args),
        Command::Agent(args) => agent::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Train(args) => train::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Report(args) => report::run(args),
        Command::Prm(args) => prm::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Fix(args) => fix::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Lsp(args) => lsp::run(args),
    }
}
