//! `wsitec prm judge` (being written): scores a benchmark's instances with a
//! judge and writes judgements; `make_judge` builds a judge by name (shared
//! with `wsitec eval --search`).

use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use wsite_runtime::ir::Program;
use wsite_runtime::prm::judge::Judge;

#[derive(Args)]
pub struct JudgeArgs {}

pub fn run(_args: JudgeArgs) -> ExitCode {
    eprintln!("error: `wsitec prm judge` is not written yet");
    ExitCode::from(2)
}

/// What building a judge may need besides its name.
#[derive(Clone, Debug)]
pub struct JudgeOptions {
    pub seed: u64,
    /// A checkpoint (`policy.safetensors`), for `policy` and `value`.
    pub policy: Option<PathBuf>,
    /// `cpu` or `cuda`.
    pub device: String,
    /// Distinct states one distance query may explore (`oracle`).
    pub oracle_budget: usize,
    /// How long an external judge may take per query.
    pub timeout: std::time::Duration,
}

/// The judge called `name`: `random`, `overlap`, `oracle`, `policy`, `value`,
/// or `cmd:COMMAND` (an external process); `programs` are the sites by name
/// (file stem), for judges that replay states.
pub fn make_judge<'a>(
    name: &str,
    programs: &'a BTreeMap<String, Program>,
    options: &JudgeOptions,
) -> Result<Box<dyn Judge + 'a>, String> {
    let _ = (programs, options);
    Err(format!("no judge `{name}` yet"))
}
