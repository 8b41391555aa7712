//! `wsitec graph SITE --format dot|svg|json [-o FILE]`: the site map. `dot` is
//! Graphviz text, `svg` a drawing laid out by wsite itself (no Graphviz
//! needed), `json` the knowledge spec (`wsite_runtime::graph::spec`, the one
//! source `wsitec tasks --spec` prints too). SITE is a `.wsite` file, a
//! directory, or a built `.wsb`.

use super::site;
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsite_runtime::graph::draw::{dot::dot, svg::svg, Map};
use wsite_runtime::graph::spec::knowledge_spec;

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Dot,
    Svg,
    Json,
}

#[derive(Args)]
pub struct GraphArgs {
    /// A `.wsite` file, a directory (one program) or a built `.wsb`.
    site: PathBuf,
    /// `dot` (Graphviz), `svg` (drawn without Graphviz) or `json` (the knowledge spec).
    #[arg(long, value_enum, default_value = "dot")]
    format: Format,
    /// Write here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: GraphArgs) -> ExitCode {
    emit(&args.site, args.format, args.output.as_deref())
}

/// The knowledge spec of SITE as JSON on standard output (`wsitec tasks
/// SITE --spec`).
pub(super) fn print_spec(site: &Path) -> ExitCode {
    emit(site, Format::Json, None)
}

/// SITE drawn or described in `format`, written to `output` or stdout.
fn emit(site: &Path, format: Format, output: Option<&Path>) -> ExitCode {
    let program = match site::open(site) {
        Ok(p) => p,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(1);
        }
    };
    let spec = knowledge_spec(&program);
    let text = match format {
        Format::Dot => dot(&Map::new(&spec)),
        Format::Svg => svg(&Map::new(&spec)),
        Format::Json => match serde_json::to_string_pretty(&spec) {
            Ok(s) => s + "\n",
            Err(e) => {
                eprintln!("error: cannot write the knowledge spec: {e}");
                return ExitCode::from(1);
            }
        },
    };
    let written = match output {
        Some(path) => std::fs::write(path, &text)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display())),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write to standard output: {e}")),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}
