//! `wsitec replay SITE TRAJ.jsonl [--tasks FILE] [--format text|json]`: the
//! three WebFactory filters (`wsite_runtime::replay`) on every recorded
//! episode, a report per episode and a summary (docs/tasks.md, "Replaying
//! trajectories").
//!
//! A line names its site by the SITE path as given, its file stem (a
//! directory's name) or the site's declared name. A line that cannot be
//! judged (not a trajectory, another site, an unknown task) gets its own
//! error and counts as not accepted; the rest are still judged. Exit 0 once
//! the file is judged, whatever the verdicts; 1 when SITE, the trajectories or
//! the task file cannot be read.

use super::site;
use clap::{Args, ValueEnum};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsite_runtime::ir::Program;
use wsite_runtime::replay::{
    judge, parse_task_file, EpisodeReport, KeyNodeSource, Thresholds, Trajectory,
};

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// A `.wsite` file, a directory of them, or a built `.wsb`.
    site: PathBuf,
    /// Recorded episodes, one JSON object a line.
    trajectories: PathBuf,
    /// A WebFactory task file (`wsitec tasks --generate`): its `key_nodes`
    /// replace the declared `key [...]` of the tasks it names.
    #[arg(long)]
    tasks: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The least share of key nodes an accepted episode passes.
    #[arg(long, default_value_t = 1.0)]
    min_coverage: f64,
}

/// One line's outcome.
enum Judged {
    Episode(EpisodeReport),
    Malformed(String),
}

pub fn run(args: ReplayArgs) -> ExitCode {
    match judge_file(&args) {
        Ok(results) => {
            print_report(&results, args.format);
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

/// Every non-blank line of the trajectory file, judged, with its line number.
fn judge_file(args: &ReplayArgs) -> Result<Vec<(usize, Judged)>, String> {
    let program = site::open(&args.site)?;
    let text = std::fs::read_to_string(&args.trajectories)
        .map_err(|e| format!("cannot read `{}`: {e}", args.trajectories.display()))?;
    let key_nodes = match &args.tasks {
        None => BTreeMap::new(),
        Some(path) => {
            let tasks = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            parse_task_file(&tasks).map_err(|e| format!("{}: {e}", path.display()))?
        }
    };
    let judge = LineJudge {
        program: &program,
        names: site_names(&args.site, &program),
        key_nodes,
        thresholds: Thresholds {
            min_coverage: args.min_coverage,
        },
    };
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let judged = match judge.line(l) {
                Ok(report) => Judged::Episode(report),
                Err(why) => Judged::Malformed(why),
            };
            (i + 1, judged)
        })
        .collect())
}

/// What a line is judged against.
struct LineJudge<'p> {
    program: &'p Program,
    /// The names a line's `site` may give.
    names: Vec<String>,
    /// `task_id` → `key_nodes`, from `--tasks`.
    key_nodes: BTreeMap<String, Vec<String>>,
    thresholds: Thresholds,
}

impl LineJudge<'_> {
    fn line(&self, line: &str) -> Result<EpisodeReport, String> {
        let t = Trajectory::parse(line).map_err(|e| e.to_string())?;
        if !self.names.contains(&t.site) {
            return Err(format!(
                "site `{}` is not the site given ({})",
                t.site,
                self.names.join(", ")
            ));
        }
        let instance = site::instance(self.program, &t.task)?;
        // The task file names an instance or its template.
        let listed = [instance.name.as_str(), t.task.as_str()]
            .iter()
            .find_map(|name| self.key_nodes.get(*name));
        let source = match listed {
            Some(nodes) => KeyNodeSource::Listed(nodes),
            None => KeyNodeSource::Declared,
        };
        judge(self.program, &instance, &t.steps, source, self.thresholds).map_err(|e| e.to_string())
    }
}

/// The SITE path as given, its file stem, and the site's declared name.
fn site_names(path: &Path, program: &Program) -> Vec<String> {
    let mut names = vec![path.display().to_string()];
    if let Some(stem) = path.file_stem() {
        names.push(stem.to_string_lossy().into_owned());
    }
    names.push(program.site.name.clone());
    names.dedup();
    names
}

fn print_report(results: &[(usize, Judged)], format: Format) {
    for (line, judged) in results {
        match format {
            Format::Json => println!("{}", episode_json(*line, judged)),
            Format::Text => println!("{}", episode_text(*line, judged)),
        }
    }
    let summary = Summary::of(results);
    match format {
        Format::Json => println!("{}", json!({ "summary": summary.json() })),
        Format::Text => println!("{}", summary.text()),
    }
}

fn episode_json(line: usize, judged: &Judged) -> Json {
    match judged {
        Judged::Episode(report) => {
            let mut out = json!({ "line": line });
            if let (Some(o), Ok(Json::Object(fields))) =
                (out.as_object_mut(), serde_json::to_value(report))
            {
                o.extend(fields);
            }
            out
        }
        Judged::Malformed(why) => json!({ "line": line, "error": why, "accepted": false }),
    }
}

fn episode_text(line: usize, judged: &Judged) -> String {
    let r = match judged {
        Judged::Malformed(why) => return format!("line {line}: {why}"),
        Judged::Episode(r) => r,
    };
    let verdict = if r.accepted { "accepted" } else { "REJECTED" };
    let mut out = format!(
        "line {line}: {} {verdict}: {} steps ({} rejected), key nodes {:.2}, {}",
        r.task,
        r.steps,
        r.rejected_steps,
        r.key_node_coverage,
        match (r.kind, r.answer_ok) {
            ("retrieval", true) => "answer right",
            ("retrieval", false) => "answer wrong",
            (_, true) => "goal met",
            (_, false) => "goal not met",
        },
    );
    if let (Some(step), Some(why)) = (r.failed_step, &r.why) {
        out.push_str(&format!("\n  replay fails at step {step}: {why}"));
    }
    if !r.missing_key_nodes.is_empty() {
        out.push_str(&format!("\n  missed: {}", r.missing_key_nodes.join(", ")));
    }
    out
}

/// Counts over the whole file.
#[derive(Default)]
struct Summary {
    episodes: usize,
    accepted: usize,
    malformed: usize,
    failed_replay: usize,
    failed_coverage: usize,
    failed_answer: usize,
    steps: Vec<usize>,
    accepted_steps: Vec<usize>,
}

impl Summary {
    fn of(results: &[(usize, Judged)]) -> Summary {
        let mut s = Summary {
            episodes: results.len(),
            ..Summary::default()
        };
        for (_, judged) in results {
            let Judged::Episode(r) = judged else {
                s.malformed += 1;
                continue;
            };
            s.failed_replay += usize::from(!r.replay_ok);
            s.failed_coverage += usize::from(!r.coverage_ok);
            s.failed_answer += usize::from(!r.answer_ok);
            s.steps.push(r.steps);
            if r.accepted {
                s.accepted += 1;
                s.accepted_steps.push(r.steps);
            }
        }
        s
    }

    fn share(&self) -> Option<f64> {
        (self.episodes > 0).then(|| self.accepted as f64 / self.episodes as f64)
    }

    fn json(&self) -> Json {
        json!({
            "episodes": self.episodes,
            "accepted": self.accepted,
            "accepted_share": self.share(),
            "malformed": self.malformed,
            "failed_replay": self.failed_replay,
            "failed_coverage": self.failed_coverage,
            "failed_answer": self.failed_answer,
            "mean_steps": mean(&self.steps),
            "mean_steps_accepted": mean(&self.accepted_steps),
        })
    }

    fn text(&self) -> String {
        let num = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.2}"));
        format!(
            "{} episodes, {} accepted ({}); rejected by replay {}, by key nodes {}, by answer {}; \
             {} malformed; mean steps {} (accepted {})",
            self.episodes,
            self.accepted,
            self.share()
                .map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s)),
            self.failed_replay,
            self.failed_coverage,
            self.failed_answer,
            self.malformed,
            num(mean(&self.steps)),
            num(mean(&self.accepted_steps)),
        )
    }
}

fn mean(xs: &[usize]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<usize>() as f64 / xs.len() as f64)
}
