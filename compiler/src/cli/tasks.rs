//! `wsitec tasks SITE --spec`: the knowledge spec (printed by `graph`).
//! `wsitec tasks SITE --generate N`: generated operation and retrieval tasks,
//! each proven before it is emitted (see [`wsitec::taskgen`] and
//! docs/tasks.md, "Generating tasks"). JSON lines (one WebFactory task per
//! line, INTERFACES.md) or `.wsite` declarations to append to the site;
//! `--stats` re-proves the emitted declarations through the full pipeline
//! and prints the figures (executable and valid shares, diversity, complex
//! share, tasks per second) on stderr.

use super::load;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use wsite_runtime::tasks::{explore::Limits, Band, Difficulty, Kind, Request};
use wsitec::taskgen::{self, figures};

#[derive(Clone, Copy, ValueEnum)]
pub enum KindArg {
    Operation,
    Retrieval,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum DifficultyArg {
    Easy,
    Medium,
    Hard,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Json,
    Wsite,
}

#[derive(Args)]
pub struct TasksArgs {
    /// A `.wsite` file, a directory of them (one program), or a built `.wsb`.
    site: PathBuf,
    /// Print the site's knowledge spec (JSON, as `wsitec graph --format
    /// json`) instead of generating.
    #[arg(long, conflicts_with = "generate")]
    spec: bool,
    /// Generate this many tasks (fewer when the site offers fewer).
    #[arg(long, value_name = "N")]
    generate: Option<usize>,
    /// Only operation or only retrieval tasks.
    #[arg(long, value_enum)]
    kind: Option<KindArg>,
    /// A preset for the three knobs below (a knob given overrides it).
    #[arg(long, value_enum)]
    difficulty: Option<DifficultyArg>,
    /// Data complexity: `N` or `MIN-MAX` rows/conditions a task involves.
    #[arg(long, value_parser = band)]
    data: Option<Band>,
    /// UI depth: `N` or `MIN-MAX` steps of the shortest path found.
    #[arg(long, value_parser = band)]
    depth: Option<Band>,
    /// Workflow length: `N` or `MIN-MAX` markers in order.
    #[arg(long, value_parser = band)]
    workflow: Option<Band>,
    /// The same seed gives the same tasks, byte for byte.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// `json` (one task per line) or `wsite` (declarations to append).
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// Re-prove the emitted tasks and print the figures on stderr.
    #[arg(long)]
    stats: bool,
    /// Distinct states the exploration may visit.
    #[arg(long, default_value_t = 20_000)]
    explore_states: usize,
    /// Steps the exploration may go from the start page.
    #[arg(long, default_value_t = 10)]
    explore_depth: u32,
}

/// `3` or `2-5`.
fn band(s: &str) -> Result<Band, String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{s}` is not a count or a range like `2-5`"))
    };
    let (min, max) = match s.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => (num(s)?, num(s)?),
    };
    if min > max {
        return Err(format!("`{s}`: the range is empty"));
    }
    Ok(Band { min, max })
}

pub fn run(args: TasksArgs) -> ExitCode {
    if args.spec {
        return super::graph::print_spec(&args.site);
    }
    let Some(count) = args.generate else {
        eprintln!("error: say what to do: `--spec` or `--generate N`");
        return ExitCode::from(2);
    };
    if count == 0 {
        eprintln!("error: --generate needs a count of 1 or more");
        return ExitCode::from(2);
    }
    let input = match load::program_input(&args.site) {
        Ok(input) => input,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(1);
        }
    };
    let request = request(&args);
    let started = Instant::now();
    let mut loader = load::disk_loader(input.embedded.clone());
    let generated = match taskgen::generate(&input.roots, &mut loader, &input.name, count, &request)
    {
        Ok(g) => g,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(1);
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    match args.format {
        Format::Json => {
            for t in &generated.tasks {
                println!("{}", serde_json::to_string(t).unwrap_or_default());
            }
        }
        Format::Wsite => print!("{}", generated.wsite()),
    }
    if generated.tasks.len() < count {
        eprintln!(
            "note: {} of {count} tasks generated: the site offered no more that the prover accepts within these limits",
            generated.tasks.len()
        );
    }
    if generated.stats.skeletons_reused > 0 {
        eprintln!(
            "note: {} sentence skeleton(s) used more than once: more tasks than skeletons",
            generated.stats.skeletons_reused
        );
    }
    if args.stats {
        let v = taskgen::validate(&input.roots, &mut loader, &generated.wsite());
        print_stats(&generated, &v, seconds);
    }
    ExitCode::SUCCESS
}

fn request(args: &TasksArgs) -> Request {
    let mut knobs = args.difficulty.map_or_else(Default::default, |d| {
        match d {
            DifficultyArg::Easy => Difficulty::Easy,
            DifficultyArg::Medium => Difficulty::Medium,
            DifficultyArg::Hard => Difficulty::Hard,
        }
        .knobs()
    });
    knobs.data = args.data.unwrap_or(knobs.data);
    knobs.depth = args.depth.unwrap_or(knobs.depth);
    knobs.workflow = args.workflow.unwrap_or(knobs.workflow);
    Request {
        kind: args.kind.map(|k| match k {
            KindArg::Operation => Kind::Operation,
            KindArg::Retrieval => Kind::Retrieval,
        }),
        knobs,
        seed: args.seed,
        limits: Limits {
            states: args.explore_states,
            depth: args.explore_depth,
        },
    }
}

fn print_stats(g: &taskgen::Generated, v: &taskgen::Validation, seconds: f64) {
    let f = figures::figures(&g.tasks);
    let pct = |k: usize, n: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * k as f64 / n as f64
        }
    };
    let n = g.tasks.len();
    eprintln!(
        "tasks {n} ({} operation, {} retrieval) of {} requested; {} candidates, {} tried, {} dropped by the check, {} by the prover",
        f.operation, f.retrieval, g.stats.requested, g.stats.candidates, g.stats.tried,
        g.stats.dropped_by_check, g.stats.dropped_by_prover
    );
    eprintln!(
        "executable {:.1}% ({}/{n})  valid {:.1}% ({}/{n}, {} diagnostics on them)",
        pct(v.executable, n),
        v.executable,
        pct(v.feasible.min(v.declared), n),
        v.feasible,
        v.diagnostics
    );
    eprintln!(
        "diversity {:.3}  distinct skeletons {:.1}%  complex {:.1}%  mean witness {:.1} steps  {:.2} tasks/s",
        f.diversity,
        100.0 * f.distinct_skeletons,
        100.0 * f.complex_share,
        f.mean_witness,
        if seconds > 0.0 { n as f64 / seconds } else { 0.0 }
    );
    let json = serde_json::json!({
        "requested": g.stats.requested, "tasks": n, "figures": f, "validation": v,
        "seconds": seconds, "stats": g.stats,
    });
    eprintln!("{json}");
}
