//! `wsitec prm eval` (being written).

use clap::Args;
use std::process::ExitCode;

#[derive(Args)]
pub struct EvalArgs {}

pub fn run(_args: EvalArgs) -> ExitCode {
    eprintln!("error: `wsitec prm eval` is not written yet");
    ExitCode::from(2)
}
