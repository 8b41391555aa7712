//! `wsitec gen`: writes generated sites (see [`wsitec::gen`]), each with
//! `--tasks` generated, proven tasks appended, as `.wsite` files with a
//! `manifest.json` saying what each is made of; with `--split`
//! a train/validation/test corpus, with `--raw` sites with injected defects,
//! with `--stats` each site checked and proven and the corpus figures (or,
//! for raw sites, the detection rate per defect kind) printed.

use clap::Args;
use rayon::prelude::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsitec::gen::{self, corpus, raw, GeneratedSite};

#[derive(Args)]
pub struct GenArgs {
    /// ecommerce, social, banking, education, healthcare or government
    /// (with `--split`, leave it out for all six in turn).
    #[arg(long)]
    domain: Option<String>,
    /// The same seed writes the same sites.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many sites (without `--split`).
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// TRAIN/VALIDATION/TEST site counts, e.g. `350/75/75`: each part uses
    /// only its own page templates, written under `train/`, `validation/`
    /// and `test/`.
    #[arg(long)]
    split: Option<String>,
    /// Inject the defects language models make (recorded in the manifest).
    #[arg(long)]
    raw: bool,
    /// With `--raw`, only the defects that leave a site runnable (orphan
    /// pages, missing buttons, placeholders, hard-coded prices, impossible
    /// tasks, short horizons, unreachable goals), with task-blocking ones
    /// aimed so that `--feasible` of the task instances stay feasible: the
    /// raw side of the training experiment.
    #[arg(long, requires = "raw")]
    runnable: bool,
    /// With `--runnable`, the share of task instances left feasible over
    /// the corpus (each site within ±0.2 of it); the default is the pilot
    /// study's raw scaffolds.
    #[arg(long, requires = "runnable", default_value_t = raw::PAPER_FEASIBLE, value_parser = share)]
    feasible: f64,
    /// Check and prove every site and print the corpus figures (raw sites:
    /// the detection rate per defect kind).
    #[arg(long)]
    stats: bool,
    /// Generated tasks appended to each site (`wsitec tasks --generate`,
    /// each proven); 0 for none. Not with `--raw`, whose defect rates are
    /// calibrated on the templates' own tasks.
    #[arg(long, default_value_t = gen::tasks::DEFAULT_TASKS)]
    tasks: usize,
    /// The directory to write into (created if missing).
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
}

pub fn run(args: GenArgs) -> ExitCode {
    let sites = match generate(&args) {
        Ok(sites) => sites,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(2);
        }
    };
    let (sites, generated_tasks) = match with_tasks(&args, sites) {
        Ok(done) => done,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(1);
        }
    };
    let raws: Option<Vec<raw::RawSite>> = args.raw.then(|| {
        sites
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let seed = args.seed.wrapping_add(i as u64);
                if args.runnable {
                    raw::inject_runnable_at(s, seed, args.feasible)
                } else {
                    raw::inject(s, seed)
                }
            })
            .collect()
    });
    let written: Vec<&GeneratedSite> = match &raws {
        Some(r) => r.iter().map(|r| &r.site).collect(),
        None => sites.iter().collect(),
    };
    for site in &written {
        if let Err(e) = write(&args.out.join(&site.file_name), &site.text) {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    }
    let mut entries: Vec<Value> = written.iter().map(|s| entry(s)).collect();
    for (e, n) in entries.iter_mut().zip(&generated_tasks) {
        e["generated_tasks"] = json!(n);
    }
    if let Some(raws) = &raws {
        for (e, r) in entries.iter_mut().zip(raws) {
            e["defects"] = json!(r.defects);
            if args.runnable {
                e["aimed"] = json!({ "instances": r.instances, "blocked": r.aimed_blocked });
            }
        }
    }
    let mut summary = Value::Null;
    let mut ok = true;
    if args.stats {
        summary = match &raws {
            Some(raws) => raw_stats(&sites, raws, args.seed, &mut entries),
            None => {
                let (s, all_built) = site_stats(&sites, &mut entries);
                ok = all_built;
                s
            }
        };
    }
    let manifest = json!({
        "seed": args.seed,
        "domain": args.domain,
        "split": args.split,
        "raw": args.raw,
        "runnable": args.runnable,
        "feasible": args.runnable.then_some(args.feasible),
        "templates": templates(&sites),
        "summary": summary,
        "sites": entries,
    });
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    if let Err(e) = write(&args.out.join("manifest.json"), &text) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    println!(
        "wrote {} sites and manifest.json to {}",
        written.len(),
        args.out.display()
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn generate(args: &GenArgs) -> Result<Vec<GeneratedSite>, String> {
    match &args.split {
        Some(split) => gen::generate_split(args.domain.as_deref(), args.seed, parse_split(split)?),
        None => {
            let domain = args
                .domain
                .as_deref()
                .ok_or("say which `--domain` (or ask for a `--split`, which covers all six)")?;
            gen::generate(domain, args.seed, args.count)
        }
    }
}

/// The sites with their generated tasks (none with `--raw`), in parallel,
/// and how many each got.
fn with_tasks(
    args: &GenArgs,
    sites: Vec<GeneratedSite>,
) -> Result<(Vec<GeneratedSite>, Vec<usize>), String> {
    let count = if args.raw { 0 } else { args.tasks };
    let done: Vec<Result<(GeneratedSite, usize), String>> = sites
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            gen::tasks::with_tasks(s, count, args.seed.wrapping_add(i as u64))
                .map_err(|e| format!("{}: {e}", s.file_name))
        })
        .collect();
    let done = done.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(done.into_iter().unzip())
}

/// A share in `0..=1`.
fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "`{text}` should be a share between 0 and 1, like 0.486"
        )),
    }
}

/// `350/75/75` → `[350, 75, 75]`.
fn parse_split(text: &str) -> Result<[usize; 3], String> {
    let parts: Vec<Result<usize, _>> = text.split('/').map(|p| p.trim().parse()).collect();
    match parts.as_slice() {
        [Ok(a), Ok(b), Ok(c)] => Ok([*a, *b, *c]),
        _ => Err(format!(
            "`--split {text}` should be three counts, TRAIN/VALIDATION/TEST, like `350/75/75`"
        )),
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn entry(site: &GeneratedSite) -> Value {
    json!({
        "file": site.file_name,
        "domain": site.domain,
        "split": site.pool.map(|p| p.name()),
        "templates": site.templates,
        "modules": site.modules,
        "rows": site.rows,
    })
}

/// The templates each part of a split uses (empty parts left out).
fn templates(sites: &[GeneratedSite]) -> Value {
    let mut out = serde_json::Map::new();
    for pool in gen::Pool::ALL {
        let mut used: Vec<&str> = sites
            .iter()
            .filter(|s| s.pool == Some(pool))
            .flat_map(|s| s.templates.iter().map(String::as_str))
            .collect();
        used.sort_unstable();
        used.dedup();
        if !used.is_empty() {
            out.insert(pool.name().into(), json!(used));
        }
    }
    Value::Object(out)
}

/// Proves every site in parallel; prints the figures per domain.
fn site_stats(sites: &[GeneratedSite], entries: &mut [Value]) -> (Value, bool) {
    let reports: Vec<corpus::SiteReport> = sites
        .par_iter()
        .map(|s| corpus::measure(s, false))
        .collect();
    for (e, r) in entries.iter_mut().zip(&reports) {
        e["check"] = json!(r);
    }
    let failed: Vec<&str> = reports
        .iter()
        .filter(|r| !r.builds())
        .map(|r| r.file.as_str())
        .collect();
    let stats = corpus::summarize(&reports);
    print!("{}", corpus::table(&stats));
    for f in &failed {
        eprintln!("error: {f} does not build with every task proven (see manifest.json)");
    }
    (json!(stats), failed.is_empty())
}

/// Checks every raw site in parallel; prints the detection rate per kind and
/// how many sites the verified set keeps.
fn raw_stats(
    sites: &[GeneratedSite],
    raws: &[raw::RawSite],
    seed: u64,
    entries: &mut [Value],
) -> Value {
    let checked: Vec<raw::Checked> = raws
        .par_iter()
        .zip(sites)
        .enumerate()
        .map(|(i, (r, site))| {
            let mut c = raw::check(r);
            raw::check_alone(site, r, seed.wrapping_add(i as u64), &mut c);
            c
        })
        .collect();
    for (e, c) in entries.iter_mut().zip(&checked) {
        e["check"] = json!(c);
    }
    let rates = raw::rates(raws, &checked);
    println!(
        "{:<19} {:>8} {:>8} {:>7} {:>11} {:>7}   {:>15} {:>7}",
        "defect kind",
        "injected",
        "detected",
        "rate",
        "provisional",
        "masked",
        "alone: detected",
        "rate"
    );
    for r in &rates {
        println!(
            "{:<19} {:>8} {:>8} {:>7} {:>11} {:>7}   {:>15} {:>7}",
            r.kind,
            r.injected,
            r.detected,
            percent(r.detected, r.injected),
            r.provisional,
            r.masked,
            format!("{}/{}", r.alone_detected, r.alone_injected),
            percent(r.alone_detected, r.alone_injected)
        );
    }
    let shares = raw::shares(raws, &checked);
    println!();
    print!("{}", raw::shares_table(&shares));
    json!({ "rates": rates, "shares": shares, "accepted": shares.accepted, "defects_per_site": shares.defects_per_site })
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}
