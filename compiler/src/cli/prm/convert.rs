//! `wsitec prm convert IN OUT --to webprmbench|wsite` (docs/prm.md,
//! "WebPRMBench"): wsite's benchmark lines to WebPRMBench records (JSON
//! lines), or WebPRMBench records (JSON lines or one JSON array) to
//! instances that `prm judge` (text and external judges) and `prm eval`
//! read. The mapping is `wsite_runtime::prm::webprmbench`'s.

use super::eval::read_bench;
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsite_runtime::prm::webprmbench::{import, to_record};

#[derive(Args)]
pub struct ConvertArgs {
    /// The file to read: wsite instances for `--to webprmbench`,
    /// WebPRMBench records for `--to wsite`.
    input: PathBuf,
    /// The file to write, one JSON object per line.
    output: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    to: Target,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Target {
    Webprmbench,
    Wsite,
}

pub fn run(args: ConvertArgs) -> ExitCode {
    match convert(&args) {
        Ok(n) => {
            eprintln!("wrote {n} records to {}", args.output.display());
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

fn convert(args: &ConvertArgs) -> Result<usize, String> {
    match args.to {
        Target::Webprmbench => {
            let instances = read_bench(&args.input).map_err(|e| e.to_string())?;
            let records: Vec<_> = instances.iter().map(to_record).collect();
            write_lines(&args.output, &records)
        }
        Target::Wsite => {
            let text = std::fs::read_to_string(&args.input)
                .map_err(|e| format!("cannot read {}: {e}", args.input.display()))?;
            let instances = import(&text).map_err(|e| format!("{}: {e}", args.input.display()))?;
            write_lines(&args.output, &instances)
        }
    }
}

fn write_lines<T: Serialize>(path: &Path, items: &[T]) -> Result<usize, String> {
    let mut out = Vec::new();
    for item in items {
        serde_json::to_writer(&mut out, item).map_err(|e| e.to_string())?;
        out.push(b'\n');
    }
    std::fs::File::create(path)
        .and_then(|mut f| f.write_all(&out))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(items.len())
}
