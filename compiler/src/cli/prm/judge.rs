//! `wsitec prm judge` (being written).

use clap::Args;
use std::process::ExitCode;

#[derive(Args)]
pub struct JudgeArgs {}

pub fn run(_args: JudgeArgs) -> ExitCode {
    eprintln!("error: `wsitec prm judge` is not written yet");
    ExitCode::from(2)
}
