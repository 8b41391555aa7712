//! `wsitec check FILE…`: every analysis — the static ones and, unless
//! `--no-prove`, the bounded search behind the C and F codes — rendered for
//! people, as JSON or as SARIF.

use super::load;
use clap::{Args, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use wsitec::diagnostics::{human, json};

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Sarif,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// The bounded search's flags, for every command that runs the whole check.
#[derive(Args)]
pub struct SearchArgs {
    /// Skip the bounded reachability search (F401–F406, C302): static checks only.
    #[arg(long)]
    no_prove: bool,
    /// Distinct states the search may explore per task instance.
    #[arg(long, default_value_t = wsite_runtime::prove::DEFAULT_BUDGET)]
    budget: usize,
}

impl SearchArgs {
    /// The compiler options these flags ask for: every analysis, the search
    /// with its budget unless `--no-prove`.
    pub fn options(&self) -> wsitec::Options {
        wsitec::Options {
            prove: (!self.no_prove).then_some(wsite_runtime::prove::Options {
                budget: self.budget,
                ..Default::default()
            }),
            ..Default::default()
        }
    }
}

#[derive(Args)]
pub struct CheckArgs {
    /// `.wsite` files (each its own program) or directories (one program each).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output format: `human`, `json` (one report object per program, a line
    /// each) or `sarif` (one SARIF 2.1.0 log per program, a line each).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    #[command(flatten)]
    search: SearchArgs,
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
}

pub fn run(args: CheckArgs) -> ExitCode {
    let mut any_error = false;
    let stdout = std::io::stdout();
    for path in &args.files {
        let input = match load::program_input(path) {
            Ok(input) => input,
            Err(why) => {
                eprintln!("error: {why}");
                any_error = true;
                continue;
            }
        };
        let name = input.name.clone();
        let compiled = load::compile_with(input, args.search.options());
        any_error |= compiled.has_errors();
        match args.format {
            Format::Json => {
                let report = json::report(
                    &name,
                    &compiled.sources,
                    &compiled.files,
                    &compiled.diagnostics,
                );
                let _ = writeln!(stdout.lock(), "{report}");
            }
            Format::Sarif => {
                let log =
                    wsitec::diagnostics::sarif::report(&compiled.sources, &compiled.diagnostics);
                let _ = writeln!(stdout.lock(), "{log}");
            }
            Format::Human => print_human(&name, &compiled, args.color),
        }
    }
    ExitCode::from(u8::from(any_error))
}

fn print_human(name: &str, compiled: &wsitec::Compilation, color: Color) {
    let db = human::SourceDb::new(&compiled.sources);
    let use_color = match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    if use_color {
        use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
        let mut err = StandardStream::stderr(ColorChoice::Always);
        db.render_color(&compiled.diagnostics, &mut err);
    } else {
        eprint!("{}", db.render_plain(&compiled.diagnostics));
    }
    eprintln!("{name}: {}", human::summary(&compiled.diagnostics));
}
