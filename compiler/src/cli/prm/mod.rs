//! `wsitec prm …`: process-reward data (INTERFACES.md, "Process-reward
//! data"; docs/prm.md). `export` samples and labels step-level preference
//! instances with exact distances, `judge` scores them with a baseline or an
//! external process, `eval` turns judgements into Pairwise and Best-of-N
//! accuracy per domain, and `convert` reads and writes WebPRMBench's format.

mod convert;
mod eval;
mod export;
mod external;
pub(super) mod judge;
#[cfg(feature = "train")]
mod learned;

use clap::{Args, Subcommand};
use std::process::ExitCode;

#[derive(Args)]
pub struct PrmArgs {
    #[command(subcommand)]
    command: PrmCommand,
}

#[derive(Subcommand)]
enum PrmCommand {
    /// Sample states of the sites' proven tasks and label one chosen and four rejected actions each, exactly.
    Export(export::ExportArgs),
    /// Score every instance's candidates with a baseline judge or an external process.
    Judge(judge::JudgeArgs),
    /// Pairwise and Best-of-N accuracy of judgements, overall and per domain.
    Eval(eval::EvalArgs),
    /// Convert between wsite's instances and WebPRMBench's records.
    Convert(convert::ConvertArgs),
}

pub fn run(args: PrmArgs) -> ExitCode {
    match args.command {
        PrmCommand::Export(a) => export::run(a),
        PrmCommand::Judge(a) => judge::run(a),
        PrmCommand::Eval(a) => eval::run(a),
        PrmCommand::Convert(a) => convert::run(a),
    }
}
