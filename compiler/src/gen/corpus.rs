//! Measuring generated sites: each one compiled and proven, and the figures
//! a corpus is described by (pages, task instances, seed rows, witness
//! lengths), per site and summed per domain.

use super::GeneratedSite;
use crate::{compile_str_with, Options};
use serde::Serialize;
use wsite_runtime::prove::Verdict;

/// One site, checked and proven.
#[derive(Clone, Debug, Serialize)]
pub struct SiteReport {
    pub file: String,
    pub domain: &'static str,
    pub pages: usize,
    pub tasks: usize,
    pub instances: usize,
    pub feasible: usize,
    pub rows: usize,
    /// The shortest witness of every feasible instance, in task order.
    pub witness_lengths: Vec<usize>,
    /// The codes of every error and warning found.
    pub errors: Vec<&'static str>,
    pub warnings: Vec<&'static str>,
}

impl SiteReport {
    /// No errors and every task instance proven feasible.
    pub fn builds(&self) -> bool {
        self.errors.is_empty() && self.instances > 0 && self.feasible == self.instances
    }
}

/// Compiles `site` and proves its tasks (the invariant sweep only when
/// `sweep`, as `wsitec check` does).
pub fn measure(site: &GeneratedSite, sweep: bool) -> SiteReport {
    let options = Options {
        prove: Some(Default::default()),
        only_task: None,
        skip_sweep: !sweep,
    };
    let c = compile_str_with(&site.file_name, &site.text, options);
    let (mut errors, mut warnings) = (Vec::new(), Vec::new());
    for d in &c.diagnostics {
        let code = d.code.as_str();
        if d.is_error() {
            errors.push(code);
        } else {
            warnings.push(code);
        }
    }
    let feasible: Vec<_> = c
        .proofs
        .iter()
        .filter(|p| p.verdict == Verdict::Feasible)
        .collect();
    SiteReport {
        file: site.file_name.clone(),
        domain: site.domain,
        pages: c.program.as_ref().map_or(0, |p| p.pages.len()),
        tasks: c.program.as_ref().map_or(0, |p| p.tasks.len()),
        instances: c.proofs.len(),
        feasible: feasible.len(),
        rows: site.rows,
        witness_lengths: feasible.iter().map(|p| p.witness.len()).collect(),
        errors,
        warnings,
    }
}

/// A domain's figures over its sites.
#[derive(Clone, Debug, Serialize)]
pub struct DomainStats {
    pub domain: String,
    pub sites: usize,
    pub built: usize,
    pub pages: Spread,
    pub instances: Spread,
    pub rows: Spread,
    pub witness: Spread,
    pub instances_total: usize,
    pub feasible_total: usize,
}

/// Mean, least and most of some counts.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub min: usize,
    pub max: usize,
}

impl Spread {
    fn of(values: impl IntoIterator<Item = usize>) -> Spread {
        let v: Vec<usize> = values.into_iter().collect();
        if v.is_empty() {
            return Spread::default();
        }
        Spread {
            mean: v.iter().sum::<usize>() as f64 / v.len() as f64,
            min: v.iter().copied().min().unwrap_or(0),
            max: v.iter().copied().max().unwrap_or(0),
        }
    }
}

/// Figures per domain (in the order domains first appear), then all together
/// as domain `all`.
pub fn summarize(reports: &[SiteReport]) -> Vec<DomainStats> {
    let mut domains: Vec<&str> = Vec::new();
    for r in reports {
        if !domains.contains(&r.domain) {
            domains.push(r.domain);
        }
    }
    let mut out: Vec<DomainStats> = domains
        .iter()
        .map(|d| stats(d, reports.iter().filter(|r| r.domain == *d)))
        .collect();
    if domains.len() > 1 {
        out.push(stats("all", reports.iter()));
    }
    out
}

fn stats<'a>(domain: &str, reports: impl Iterator<Item = &'a SiteReport> + Clone) -> DomainStats {
    DomainStats {
        domain: domain.to_string(),
        sites: reports.clone().count(),
        built: reports.clone().filter(|r| r.builds()).count(),
        pages: Spread::of(reports.clone().map(|r| r.pages)),
        instances: Spread::of(reports.clone().map(|r| r.instances)),
        rows: Spread::of(reports.clone().map(|r| r.rows)),
        witness: Spread::of(
            reports
                .clone()
                .flat_map(|r| r.witness_lengths.iter().copied()),
        ),
        instances_total: reports.clone().map(|r| r.instances).sum(),
        feasible_total: reports.map(|r| r.feasible).sum(),
    }
}

/// The figures as a text table, one line per domain.
pub fn table(stats: &[DomainStats]) -> String {
    let mut s = format!(
        "{:<11} {:>5} {:>6} {:>14} {:>16} {:>14} {:>14} {:>9}\n",
        "domain",
        "sites",
        "built",
        "pages",
        "task instances",
        "seed rows",
        "witness steps",
        "feasible"
    );
    for d in stats {
        s.push_str(&format!(
            "{:<11} {:>5} {:>6} {:>14} {:>16} {:>14} {:>14} {:>9}\n",
            d.domain,
            d.sites,
            d.built,
            spread(d.pages),
            spread(d.instances),
            spread(d.rows),
            spread(d.witness),
            format!("{}/{}", d.feasible_total, d.instances_total),
        ));
    }
    s
}

/// `14.2 (9–21)`.
fn spread(s: Spread) -> String {
    format!("{:.1} ({}–{})", s.mean, s.min, s.max)
}
