//! Scoring raw sites: what `wsitec check` and the prover make of each one
//! (which injected defects are reported where they should be, how many task
//! instances stay feasible, whether the site still runs), and the corpus
//! figures `wsitec gen --raw --stats` prints beside the pilot study's.

use super::{
    inject_only, Category, DefectKind, Injected, RawSite, PAPER_BLOCKING, PAPER_DEFECTS,
    PAPER_FEASIBILITY_SHARE, PAPER_FEASIBLE,
};
use crate::diagnostics::Diagnostic;
use crate::gen::GeneratedSite;
use serde::Serialize;
use std::fmt::Write;

/// What `wsitec check` makes of one raw site.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    /// Per injected defect (in order), whether a diagnostic reports it.
    pub detected: Vec<bool>,
    /// Per injected defect, whether every diagnostic reporting it names
    /// others it depends on (`after`: computed over stubs, see
    /// `crate::partial`).
    pub provisional: Vec<bool>,
    /// Whether the site has errors.
    pub has_errors: bool,
    /// Whether it lowers with no errors but feasibility ones: what
    /// `wsitec train --unverified` needs to train on every instance.
    pub runs: bool,
    /// Task instances proven, and how many of them feasible.
    pub instances: usize,
    pub feasible: usize,
    /// Whether `wsitec build --drop-infeasible` accepts it: no errors but
    /// those of tasks it drops, and a task left.
    pub accepted: bool,
    /// Per kind in the site: (kind, injected alone, detected alone), filled
    /// by [`check_alone`].
    pub alone: Vec<(DefectKind, usize, usize)>,
}

/// Injects each kind of `raw`'s defects, as many as it has, alone into the
/// clean `site`, and records how many of them are detected: what the
/// checker finds when nothing masks it.
pub fn check_alone(site: &GeneratedSite, raw: &RawSite, seed: u64, checked: &mut Checked) {
    for kind in DefectKind::ALL {
        let n = raw.defects.iter().filter(|d| d.kind == kind).count();
        if n == 0 {
            continue;
        }
        let alone = inject_only(site, kind, n, seed);
        let found = check(&alone).detected.iter().filter(|&&f| f).count();
        checked.alone.push((kind, alone.defects.len(), found));
    }
}

/// The prover's budget on raw sites: a missing button leaves its tasks
/// searching the whole space up to their horizons, which S102 reports anyway,
/// so the search stops early (F406) rather than at the default million.
pub const RAW_BUDGET: usize = 50_000;

/// A site's text checked and its tasks proven at [`RAW_BUDGET`] (no
/// invariant sweep): how both the injector and the scoring judge a site.
pub(super) fn compile_and_prove(file_name: &str, text: &str) -> crate::Compilation {
    crate::compile_str_with(
        file_name,
        text,
        crate::Options {
            prove: Some(wsite_runtime::prove::Options {
                budget: RAW_BUDGET,
                ..Default::default()
            }),
            only_task: None,
            skip_sweep: true,
        },
    )
}

/// Checks and proves `raw` (no invariant sweep) and scores its defects: one
/// counts as detected when a diagnostic with one of its codes points at its
/// line.
pub fn check(raw: &RawSite) -> Checked {
    let c = compile_and_prove(&raw.site.file_name, &raw.site.text);
    let starts: Vec<usize> = std::iter::once(0)
        .chain(raw.site.text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |d: &Diagnostic| -> Option<usize> {
        (d.span.file.0 == 0).then(|| starts.partition_point(|&s| s <= d.span.start as usize))
    };
    let reporting = |defect: &Injected| -> Vec<&Diagnostic> {
        c.diagnostics
            .iter()
            .filter(|d| defect.expect.contains(&d.code.as_str()) && line_of(d) == Some(defect.line))
            .collect()
    };
    let detected = raw
        .defects
        .iter()
        .map(|d| !reporting(d).is_empty())
        .collect();
    // Reported, but only by findings that depend on other defects.
    let provisional = raw
        .defects
        .iter()
        .map(|defect| {
            let found = reporting(defect);
            !found.is_empty() && found.iter().all(|d| !d.after.is_empty())
        })
        .collect();
    let feasible = c
        .proofs
        .iter()
        .filter(|p| p.verdict == wsite_runtime::prove::Verdict::Feasible)
        .count();
    let droppable = ["F401", "F402", "F403", "F405"];
    let runs = c.program.is_some()
        && c.diagnostics
            .iter()
            .all(|d| !d.is_error() || d.code.as_str().starts_with('F'));
    Checked {
        alone: Vec::new(),
        detected,
        provisional,
        has_errors: c.has_errors(),
        runs,
        instances: c.proofs.len(),
        feasible,
        accepted: feasible > 0
            && c.diagnostics
                .iter()
                .filter(|d| d.is_error())
                .all(|d| droppable.contains(&d.code.as_str())),
    }
}

/// Detection figures for one defect kind.
#[derive(Clone, Debug, Default, Serialize)]
pub struct KindRate {
    pub kind: String,
    pub injected: usize,
    pub detected: usize,
    /// Missed in a site with errors, which the analyses this kind needs do
    /// not reach.
    pub masked: usize,
    /// Detected, but only by findings that depend on other defects.
    pub provisional: usize,
    /// The same number of this kind injected alone into the clean site.
    pub alone_injected: usize,
    pub alone_detected: usize,
}

/// Sums detection per kind over raw sites and their checks (in the same
/// order).
pub fn rates(raws: &[RawSite], checks: &[Checked]) -> Vec<KindRate> {
    DefectKind::ALL
        .iter()
        .map(|&kind| {
            let mut r = KindRate {
                kind: kind.name().to_string(),
                ..KindRate::default()
            };
            for (raw, checked) in raws.iter().zip(checks) {
                let flags = checked.detected.iter().zip(&checked.provisional);
                for (d, (&found, &provisional)) in raw.defects.iter().zip(flags) {
                    if d.kind != kind {
                        continue;
                    }
                    r.injected += 1;
                    r.detected += usize::from(found);
                    r.provisional += usize::from(provisional);
                    r.masked +=
                        usize::from(!found && kind.needs_clean_front_end() && checked.has_errors);
                }
                for &(k, injected, found) in &checked.alone {
                    if k == kind {
                        r.alone_injected += injected;
                        r.alone_detected += found;
                    }
                }
            }
            r
        })
        .collect()
}

/// The corpus figures of a raw corpus, to set beside the pilot study's.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Shares {
    pub sites: usize,
    /// Sites that lower with no errors but feasibility ones.
    pub runnable: usize,
    /// Task instances the prover judged, and how many of them feasible.
    pub instances: usize,
    pub feasible: usize,
    /// The feasible share the injector aimed at, from the clean sites'
    /// proofs (runnable corpora; `None` otherwise).
    pub aimed_feasible: Option<f64>,
    pub defects_per_site: f64,
    /// Defects per site in each category, in [`Category::ALL`] order.
    pub per_category: Vec<(Category, f64)>,
    pub blocking_per_site: f64,
    /// Sites `wsitec build --drop-infeasible` accepts.
    pub accepted: usize,
}

/// Sums the figures of `raws` and their checks (in the same order).
pub fn shares(raws: &[RawSite], checks: &[Checked]) -> Shares {
    let sites = raws.len().max(1) as f64;
    let all = || raws.iter().flat_map(|r| &r.defects);
    let per_site =
        |keep: &dyn Fn(&Injected) -> bool| all().filter(|d| keep(d)).count() as f64 / sites;
    let clean: usize = raws.iter().map(|r| r.instances).sum();
    let aimed: usize = raws.iter().map(|r| r.aimed_blocked).sum();
    Shares {
        sites: raws.len(),
        runnable: checks.iter().filter(|c| c.runs).count(),
        instances: checks.iter().map(|c| c.instances).sum(),
        feasible: checks.iter().map(|c| c.feasible).sum(),
        aimed_feasible: (clean > 0).then(|| 1.0 - aimed as f64 / clean as f64),
        defects_per_site: per_site(&|_| true),
        per_category: Category::ALL
            .iter()
            .map(|&cat| (cat, per_site(&|d| d.category == cat)))
            .collect(),
        blocking_per_site: per_site(&|d| d.blocking),
        accepted: checks.iter().filter(|c| c.accepted).count(),
    }
}

/// The figures as a table, beside the pilot study's.
pub fn shares_table(s: &Shares) -> String {
    let mut out = String::new();
    let feasible = ratio(s.feasible, s.instances);
    let feasibility = s
        .per_category
        .iter()
        .find(|(c, _)| *c == Category::Feasibility)
        .map_or(0.0, |(_, n)| n / s.defects_per_site.max(f64::MIN_POSITIVE));
    let _ = writeln!(
        out,
        "{:<34} {:>12} {:>8}",
        "raw corpus", "achieved", "paper"
    );
    let mut row = |what: &str, got: String, paper: String| {
        let _ = writeln!(out, "{what:<34} {got:>12} {paper:>8}");
    };
    row(
        "feasible task instances",
        format!("{:.1}%", 100.0 * feasible),
        format!("{:.1}%", 100.0 * PAPER_FEASIBLE),
    );
    if let Some(aimed) = s.aimed_feasible {
        row(
            "  aimed at (clean proofs)",
            format!("{:.1}%", 100.0 * aimed),
            "".into(),
        );
    }
    row(
        "defects per site",
        format!("{:.2}", s.defects_per_site),
        format!("{PAPER_DEFECTS:.1}"),
    );
    for (cat, n) in &s.per_category {
        row(
            &format!("  {}", cat.name()),
            format!("{n:.2}"),
            String::new(),
        );
    }
    row(
        "  feasibility share of defects",
        format!("{:.1}%", 100.0 * feasibility),
        format!("{:.1}%", 100.0 * PAPER_FEASIBILITY_SHARE),
    );
    row(
        "task-blocking defects per site",
        format!("{:.2}", s.blocking_per_site),
        format!("{PAPER_BLOCKING:.1}"),
    );
    let _ = writeln!(
        out,
        "{} sites, {} runnable, {} accepted by `wsitec build --drop-infeasible`; {}/{} task instances feasible",
        s.sites, s.runnable, s.accepted, s.feasible, s.instances
    );
    out
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
