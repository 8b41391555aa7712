//! `wsitec prm export SITES… -o bench.jsonl`: step-level preference
//! instances of the sites' proven tasks, labelled by exact distances
//! (`wsite_runtime::prm`), one JSON object per line, and a manifest beside
//! them with the counts and what labelling cost. Sites are loaded and
//! sampled on every core; the output is the same for a seed whatever the
//! cores.

use super::super::load;
use clap::Args;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wsite_runtime::prm::label::Skip;
use wsite_runtime::prm::sample::{sample_site, SampleConfig, SiteSample};
use wsite_runtime::prm::{After, Instance};

#[derive(Args)]
pub struct ExportArgs {
    /// `.wsite` files or directories of them (each file one site).
    #[arg(required = true)]
    sites: Vec<PathBuf>,
    /// The benchmark, one instance per line.
    #[arg(short, long)]
    output: PathBuf,
    /// The manifest (default: the output's name with `.manifest.json`).
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// Seeds the chosen actions, the random rollouts and the balance.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Random rollouts per task instance (their end states are off the
    /// shortest paths).
    #[arg(long, default_value_t = 4)]
    rollouts: usize,
    /// Instances kept per task instance at most.
    #[arg(long, default_value_t = 8)]
    per_task: usize,
    /// Instances per domain: `balanced` (as many as the smallest domain
    /// has), `all`, or a number (at most that many).
    #[arg(long, default_value = "balanced")]
    per_domain: String,
    /// Distinct states the prover may explore per task instance.
    #[arg(long, default_value_t = 200_000)]
    budget: usize,
    /// Distinct states one distance query may explore; a state it cannot
    /// decide yields no instance (counted in the manifest).
    #[arg(long, default_value_t = wsite_runtime::prove::DEFAULT_ORACLE_BUDGET)]
    oracle_budget: usize,
}

/// How many instances each domain keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PerDomain {
    Balanced,
    All,
    AtMost(usize),
}

fn per_domain(text: &str) -> Result<PerDomain, String> {
    match text {
        "balanced" => Ok(PerDomain::Balanced),
        "all" => Ok(PerDomain::All),
        n => n
            .parse()
            .map(PerDomain::AtMost)
            .map_err(|_| format!("--per-domain takes `balanced`, `all` or a number, not `{n}`")),
    }
}

pub fn run(args: ExportArgs) -> ExitCode {
    match export(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::from(1)
        }
    }
}

/// One site's sample with its name and domain.
struct Sampled {
    name: String,
    /// The path as given, for messages.
    path: String,
    domain: String,
    sample: SiteSample,
}

fn export(args: &ExportArgs) -> Result<(), String> {
    use rayon::prelude::*;
    let balance = per_domain(&args.per_domain)?;
    let config = SampleConfig {
        seed: args.seed,
        rollouts: args.rollouts,
        per_task: args.per_task.max(1),
        oracle_budget: args.oracle_budget,
        ..SampleConfig::default()
    };
    let files = load::site_files(&args.sites)?;
    let sampled = files
        .par_iter()
        .map(|file| {
            let Some(site) = load::runnable_site(file, true, args.budget)? else {
                return Ok(None);
            };
            let domain = site.program.site.domain.clone();
            let name = site_name(file);
            let sample = sample_site(&site.program, &name, &domain, &site.instances, &config);
            Ok(Some(Sampled {
                name,
                path: site.name,
                domain,
                sample,
            }))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let sampled: Vec<Sampled> = sampled.into_iter().flatten().collect();
    for s in &sampled {
        for (task, why) in &s.sample.failed {
            eprintln!("warning: {}: task `{task}` cannot start: {why}", s.path);
        }
    }
    let kept = balance_domains(&sampled, balance);
    if kept.is_empty() {
        return Err(
            "no state of these sites yields an instance (see the manifest's skip counts)".into(),
        );
    }
    write_lines(&args.output, &kept)?;
    let manifest_path = args
        .manifest
        .clone()
        .unwrap_or_else(|| args.output.with_extension("manifest.json"));
    let manifest = manifest(args, &sampled, &kept);
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(&manifest_path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", manifest_path.display()))?;
    println!(
        "wrote {} instances from {} sites to {} (manifest {})",
        kept.len(),
        sampled.len(),
        args.output.display(),
        manifest_path.display()
    );
    Ok(())
}

/// A site's name in instances: its file's stem (what `prm judge --sites`
/// finds it by).
pub(super) fn site_name(file: &Path) -> String {
    file.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.display().to_string())
}

/// The instances each domain keeps: round-robin over its sites (in file
/// order), each site's instances in their order, until the domain's share
/// is taken.
fn balance_domains(sampled: &[Sampled], balance: PerDomain) -> Vec<&Instance> {
    let mut domains: BTreeMap<&str, Vec<&Sampled>> = BTreeMap::new();
    for s in sampled {
        domains.entry(s.domain.as_str()).or_default().push(s);
    }
    let available = |sites: &Vec<&Sampled>| {
        sites
            .iter()
            .map(|s| s.sample.instances.len())
            .sum::<usize>()
    };
    let smallest = domains
        .values()
        .map(available)
        .filter(|&n| n > 0)
        .min()
        .unwrap_or(0);
    let mut kept = Vec::new();
    for sites in domains.values() {
        let share = match balance {
            PerDomain::Balanced => smallest,
            PerDomain::All => usize::MAX,
            PerDomain::AtMost(n) => n,
        };
        let mut taken = 0;
        let mut round = 0;
        while taken < share {
            let mut any = false;
            for s in sites {
                if taken >= share {
                    break;
                }
                if let Some(i) = s.sample.instances.get(round) {
                    kept.push(i);
                    taken += 1;
                    any = true;
                }
            }
            if !any {
                break;
            }
            round += 1;
        }
    }
    kept
}

fn write_lines(path: &Path, instances: &[&Instance]) -> Result<(), String> {
    let mut out = Vec::new();
    for i in instances {
        serde_json::to_writer(&mut out, i).map_err(|e| e.to_string())?;
        out.push(b'\n');
    }
    std::fs::File::create(path)
        .and_then(|mut f| f.write_all(&out))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Counts of the kept instances by a key.
fn count<'a>(
    kept: &[&'a Instance],
    key: impl Fn(&'a Instance) -> String,
) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for i in kept {
        *out.entry(key(i)).or_default() += 1;
    }
    out
}

fn manifest(args: &ExportArgs, sampled: &[Sampled], kept: &[&Instance]) -> Json {
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    for s in sampled {
        for (why, n) in &s.sample.skipped {
            *skipped.entry(Skip::as_str(*why)).or_default() += n;
        }
    }
    let mut hardness: BTreeMap<String, usize> = BTreeMap::new();
    let mut after: BTreeMap<String, usize> = BTreeMap::new();
    for i in kept {
        for r in &i.rejected {
            for h in &r.hard {
                let name = serde_json::to_value(h)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from));
                *hardness.entry(name.unwrap_or_default()).or_default() += 1;
            }
            let bucket = match r.distance_after {
                After::Steps(n) if n == i.distance => "same distance".to_string(),
                After::Steps(n) => format!("+{}", n.saturating_sub(i.distance)),
                After::Unreachable => "unreachable".into(),
                After::Unknown => "unknown".into(),
            };
            *after.entry(bucket).or_default() += 1;
        }
    }
    let sites: Vec<Json> = sampled
        .iter()
        .map(|s| {
            let exported = kept.iter().filter(|i| i.site == s.name).count();
            json!({"site": s.name, "domain": s.domain, "sampled": s.sample.instances.len(),
                   "exported": exported, "oracle_searches": s.sample.searches,
                   "oracle_states": s.sample.explored})
        })
        .collect();
    let searches: usize = sampled.iter().map(|s| s.sample.searches).sum();
    let states: usize = sampled.iter().map(|s| s.sample.explored).sum();
    json!({
        "format": "wsite-prm/1",
        "instances": kept.len(),
        "seed": args.seed,
        "rollouts": args.rollouts,
        "per_task": args.per_task,
        "per_domain": args.per_domain,
        "oracle_budget": args.oracle_budget,
        "domains": count(kept, |i| i.domain.clone()),
        "kinds": count(kept, |i| i.kind.clone()),
        "origins": count(kept, |i| i.origin.as_str().to_string()),
        "distances": count(kept, |i| format!("{:02}", i.distance)),
        "chosen_kinds": count(kept, |i| i.chosen.step.as_ref().map_or("text", |s| wsite_runtime::prm::text::kind_name(s.kind)).to_string()),
        "rejected_hardness": hardness,
        "rejected_distance_after": after,
        "skipped_states": skipped,
        "oracle": {"searches": searches, "states": states},
        "sites": sites,
    })
}
