//! `wsitec prm convert` (being written).

use clap::Args;
use std::process::ExitCode;

#[derive(Args)]
pub struct ConvertArgs {}

pub fn run(_args: ConvertArgs) -> ExitCode {
    eprintln!("error: `wsitec prm convert` is not written yet");
    ExitCode::from(2)
}
