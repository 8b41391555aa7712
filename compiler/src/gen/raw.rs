//! The defect injector behind `wsitec gen --raw`: it turns a generated site
//! into the kind of scaffold a language model writes, with the defects such
//! scaffolds have, and records each one (kind, line, the codes that should
//! report it) so that detection can be scored.
//!
//! Rates follow the pilot study of the method this project builds on: about
//! 12.4 defects per raw site over four categories, feasibility defects about
//! 11% of them. Each kind's count per site is Poisson with the mean in
//! [`RATES`], capped by how many places the site offers for it.
//!
//! A raw site is plain text: the same parser, checker and prover that judge
//! an author's site judge it, which is the point of the experiment.

use super::rng::Rng;
use super::GeneratedSite;
use crate::diagnostics::Diagnostic;
use serde::Serialize;

/// What a language model gets wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DefectKind {
    /// A link to a page that does not exist (E101).
    BrokenLink,
    /// A page nothing links to (S101).
    OrphanPage,
    /// The button that triggers a marker left out (S102; its tasks fail).
    MissingButton,
    /// Lorem ipsum, TODO and friends (M203).
    PlaceholderText,
    /// A price below zero in the seed data (M201).
    NegativePrice,
    /// A date that does not exist (M202).
    ImpossibleDate,
    /// Data that contradicts itself: a negative stock that breaks the
    /// site's invariant (C301), or a hard-coded price on a page that
    /// contradicts the one the page shows (C303).
    ContradictoryData,
    /// A task nobody can complete: no instance (F403), a goal nothing can
    /// write (F402), or a horizon too short (F401).
    ImpossibleTask,
}

impl DefectKind {
    pub const ALL: [DefectKind; 8] = [
        DefectKind::BrokenLink,
        DefectKind::OrphanPage,
        DefectKind::MissingButton,
        DefectKind::PlaceholderText,
        DefectKind::NegativePrice,
        DefectKind::ImpossibleDate,
        DefectKind::ContradictoryData,
        DefectKind::ImpossibleTask,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DefectKind::BrokenLink => "broken_link",
            DefectKind::OrphanPage => "orphan_page",
            DefectKind::MissingButton => "missing_button",
            DefectKind::PlaceholderText => "placeholder_text",
            DefectKind::NegativePrice => "negative_price",
            DefectKind::ImpossibleDate => "impossible_date",
            DefectKind::ContradictoryData => "contradictory_data",
            DefectKind::ImpossibleTask => "impossible_task",
        }
    }

    /// Whether finding it takes the analyses that a site's errors could
    /// mask (structural, consistency, the prover); they run over the rest of
    /// the site since partial results (`crate::partial`).
    pub fn needs_clean_front_end(self) -> bool {
        matches!(
            self,
            DefectKind::OrphanPage
                | DefectKind::MissingButton
                | DefectKind::ContradictoryData
                | DefectKind::ImpossibleTask
        )
    }
}

/// Mean defects of each kind per raw site (12.4 in all; the two feasibility
/// kinds, missing buttons and impossible tasks, 1.4 of them: 11%).
pub const RATES: [(DefectKind, f64); 8] = [
    (DefectKind::BrokenLink, 2.2),
    (DefectKind::OrphanPage, 1.2),
    (DefectKind::MissingButton, 0.6),
    (DefectKind::PlaceholderText, 3.2),
    (DefectKind::NegativePrice, 1.6),
    (DefectKind::ImpossibleDate, 0.8),
    (DefectKind::ContradictoryData, 2.0),
    (DefectKind::ImpossibleTask, 0.8),
];

/// One injected defect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Injected {
    pub kind: DefectKind,
    /// The 1-based line of the raw text where a diagnostic should point.
    pub line: usize,
    /// The codes any of which, at `line`, reports it.
    pub expect: Vec<&'static str>,
    /// What was done, for people.
    pub what: String,
}

/// A raw site and what was injected into it.
#[derive(Clone, Debug)]
pub struct RawSite {
    pub site: GeneratedSite,
    pub defects: Vec<Injected>,
}

/// A line of the site being edited, with the defects anchored on it.
struct Line {
    text: String,
    anchors: Vec<usize>,
}

/// What is being injected, before line numbers are known.
struct Pending {
    kind: DefectKind,
    expect: Vec<&'static str>,
    what: String,
}

struct Editor {
    lines: Vec<Line>,
    pending: Vec<Pending>,
    /// Lines already edited, so two defects never share one.
    used: Vec<bool>,
    next_name: usize,
    /// Only defects that keep the program loadable.
    runnable: bool,
}

/// Injects defects at the rates of [`RATES`] (the same for a seed).
pub fn inject(site: &GeneratedSite, seed: u64) -> RawSite {
    inject_drawn(site, seed, false)
}

/// Draws each kind's count (all kinds, so the draws are the same with and
/// without `runnable`), keeps the runnable kinds when asked, and injects.
fn inject_drawn(site: &GeneratedSite, seed: u64, runnable: bool) -> RawSite {
    let mut rng = Rng(seed ^ 0x7261_7773_6974_6573);
    let counts: Vec<(DefectKind, usize)> = RATES
        .iter()
        .map(|&(kind, mean)| (kind, rng.poisson(mean)))
        .filter(|(kind, _)| !runnable || RUNNABLE.contains(kind))
        .collect();
    inject_with(site, &counts, &mut rng, runnable)
}

/// The kinds that leave a site runnable: its program still lowers and its
/// environments run, only some tasks cannot be done and some pages are
/// wrong. The raw side of the raw-versus-verified training experiment.
pub const RUNNABLE: [DefectKind; 5] = [
    DefectKind::OrphanPage,
    DefectKind::MissingButton,
    DefectKind::PlaceholderText,
    DefectKind::ContradictoryData,
    DefectKind::ImpossibleTask,
];

/// [`inject`] restricted to [`RUNNABLE`] kinds (contradictions only as
/// hard-coded prices, which are warnings), at the same rates.
pub fn inject_runnable(site: &GeneratedSite, seed: u64) -> RawSite {
    inject_drawn(site, seed, true)
}

/// Injects exactly `count` defects of `kind` where the site has room (for
/// measuring each kind alone).
pub fn inject_only(site: &GeneratedSite, kind: DefectKind, count: usize, seed: u64) -> RawSite {
    let mut rng = Rng(seed ^ 0x6f6e_6c79);
    inject_with(site, &[(kind, count)], &mut rng, false)
}

fn inject_with(
    site: &GeneratedSite,
    counts: &[(DefectKind, usize)],
    rng: &mut Rng,
    runnable: bool,
) -> RawSite {
    let lines: Vec<Line> = site
        .text
        .lines()
        .map(|l| Line {
            text: l.to_string(),
            anchors: Vec::new(),
        })
        .collect();
    let n = lines.len();
    let mut e = Editor {
        lines,
        pending: Vec::new(),
        used: vec![false; n],
        next_name: 0,
        runnable,
    };
    for &(kind, count) in counts {
        for _ in 0..count {
            e.one(kind, rng);
        }
    }
    let mut defects: Vec<Injected> = e
        .pending
        .into_iter()
        .map(|p| Injected {
            kind: p.kind,
            line: 0,
            expect: p.expect,
            what: p.what,
        })
        .collect();
    let mut text = String::new();
    for (i, line) in e.lines.iter().enumerate() {
        for &a in &line.anchors {
            defects[a].line = i + 1;
        }
        text.push_str(&line.text);
        text.push('\n');
    }
    let mut raw = site.clone();
    raw.text = text;
    RawSite { site: raw, defects }
}

impl Editor {
    /// Injects one defect of `kind`, if the site has a place for it.
    fn one(&mut self, kind: DefectKind, rng: &mut Rng) {
        let _ = match kind {
            DefectKind::BrokenLink => self.broken_link(rng),
            DefectKind::OrphanPage => self.orphan_page(),
            DefectKind::MissingButton => self.missing_button(rng),
            DefectKind::PlaceholderText => self.placeholder(rng),
            DefectKind::NegativePrice => self.negative_price(rng),
            DefectKind::ImpossibleDate => self.impossible_date(rng),
            DefectKind::ContradictoryData => self.contradictory(rng),
            DefectKind::ImpossibleTask => self.impossible_task(rng),
        };
    }

    /// Records a defect anchored on line `at`.
    fn record(&mut self, at: usize, kind: DefectKind, expect: &[&'static str], what: String) {
        self.lines[at].anchors.push(self.pending.len());
        self.pending.push(Pending {
            kind,
            expect: expect.to_vec(),
            what,
        });
    }

    /// A random unused line that `want` accepts.
    fn pick(&self, rng: &mut Rng, want: impl Fn(&str) -> bool) -> Option<usize> {
        let places: Vec<usize> = (0..self.lines.len())
            .filter(|&i| !self.used.get(i).copied().unwrap_or(true) && want(&self.lines[i].text))
            .collect();
        (!places.is_empty()).then(|| *rng.pick(&places))
    }

    fn edit(&mut self, at: usize, text: String) {
        self.lines[at].text = text;
        self.used[at] = true;
    }

    /// Inserts a line after `at`; returns its index.
    fn insert_after(&mut self, at: usize, text: String) -> usize {
        self.lines.insert(
            at + 1,
            Line {
                text,
                anchors: Vec::new(),
            },
        );
        self.used.insert(at + 1, true);
        at + 1
    }

    fn append(&mut self, text: &str) -> usize {
        self.lines.push(Line {
            text: String::new(),
            anchors: Vec::new(),
        });
        self.used.push(true);
        let first = self.lines.len();
        for l in text.lines() {
            self.lines.push(Line {
                text: l.to_string(),
                anchors: Vec::new(),
            });
            self.used.push(true);
        }
        first
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.next_name += 1;
        format!("{stem}{}", self.next_name)
    }

    /// `link "…" -> Page(…)` becomes a link to `PageView(…)`.
    fn broken_link(&mut self, rng: &mut Rng) -> Option<()> {
        let at = self.pick(rng, |l| {
            let t = l.trim_start();
            t.starts_with("link ") && t.contains(" -> ")
        })?;
        let text = self.lines[at].text.clone();
        let arrow = text.find(" -> ")? + 4;
        let end = text[arrow..]
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .map_or(text.len(), |k| arrow + k);
        let target = text[arrow..end].to_string();
        let broken = format!("{}View{}", &text[..end], &text[end..]);
        self.edit(at, broken);
        self.record(
            at,
            DefectKind::BrokenLink,
            &["E101"],
            format!("a link to `{target}View`, which does not exist"),
        );
        Some(())
    }

    fn orphan_page(&mut self) -> Option<()> {
        let name = self.fresh("OldPromotions");
        let at = self.append(&format!(
            "page {name} {{\n  heading \"Last season's offers\"\n  link \"Home\" -> Home\n}}"
        ));
        self.record(
            at,
            DefectKind::OrphanPage,
            &["S101"],
            format!("page `{name}` that nothing links to"),
        );
        Some(())
    }

    /// Deletes a button that triggers one of the site's own markers.
    fn missing_button(&mut self, rng: &mut Rng) -> Option<()> {
        let at = self.pick(rng, |l| {
            let t = l.trim_start();
            t.starts_with("button ") && (t.contains("-> place_") || t.contains("-> cancel_"))
        })?;
        let text = self.lines[at].text.clone();
        let marker = text
            .split("-> ")
            .nth(1)?
            .split('(')
            .next()?
            .trim()
            .to_string();
        // An element-less line keeps the numbering; the marker stays.
        self.edit(at, String::new());
        let decl = format!("marker {marker}(");
        let anchor = self.lines.iter().position(|l| l.text.starts_with(&decl))?;
        self.record(
            anchor,
            DefectKind::MissingButton,
            &["S102"],
            format!("the button that triggers `{marker}` left out"),
        );
        Some(())
    }

    fn placeholder(&mut self, rng: &mut Rng) -> Option<()> {
        const PLACEHOLDERS: [&str; 5] = [
            "Lorem ipsum dolor sit amet",
            "TODO: describe this page",
            "Sample text",
            "Opening hours TBD",
            "Placeholder for the introduction",
        ];
        let at = self.pick(rng, |l| l.trim_start().starts_with("heading \""))?;
        let indent: String = self.lines[at]
            .text
            .chars()
            .take_while(|c| *c == ' ')
            .collect();
        let words = *rng.pick(&PLACEHOLDERS);
        self.used[at] = true;
        let line = self.insert_after(at, format!("{indent}text \"{words}\""));
        self.record(
            line,
            DefectKind::PlaceholderText,
            &["M203"],
            format!("placeholder text `{words}`"),
        );
        Some(())
    }

    fn negative_price(&mut self, rng: &mut Rng) -> Option<()> {
        let at = self.pick(rng, |l| l.contains("price: $"))?;
        let text = self.lines[at].text.replacen("price: $", "price: -$", 1);
        self.edit(at, text);
        self.record(
            at,
            DefectKind::NegativePrice,
            &["M201"],
            "a negative price in the seed data".into(),
        );
        Some(())
    }

    fn impossible_date(&mut self, rng: &mut Rng) -> Option<()> {
        let at = self.pick(rng, |l| l.contains("day: @2026-"))?;
        let text = self.lines[at].text.clone();
        let k = text.find("day: @2026-")? + "day: @2026-".len();
        let day = *rng.pick(&["02-30", "02-31", "04-31", "06-31", "09-31", "11-31"]);
        let edited = format!("{}{day}{}", &text[..k], &text[k + 5..]);
        self.edit(at, edited);
        self.record(
            at,
            DefectKind::ImpossibleDate,
            &["M202"],
            format!("the date `2026-{day}`"),
        );
        Some(())
    }

    /// A negative stock against the stock invariant, or a hard-coded price
    /// on a thing's page.
    fn contradictory(&mut self, rng: &mut Rng) -> Option<()> {
        if rng.next().is_multiple_of(2) && !self.runnable {
            if let Some(at) = self.pick(rng, |l| l.contains("stock: ") && l.contains("price: ")) {
                let text = self.lines[at].text.clone();
                let k = text.find("stock: ")? + "stock: ".len();
                let end = text[k..].find(',').map(|e| k + e)?;
                self.edit(
                    at,
                    format!("{}-{}{}", &text[..k], rng.range(1, 5), &text[end..]),
                );
                let anchor = self
                    .lines
                    .iter()
                    .position(|l| l.text.starts_with("invariant stock_never_negative"))?;
                self.record(
                    anchor,
                    DefectKind::ContradictoryData,
                    &["C301"],
                    format!("a negative stock on line {}", at + 1),
                );
                return Some(());
            }
        }
        let price = {
            let rows: Vec<&Line> = self
                .lines
                .iter()
                .filter(|l| l.text.contains("price: $"))
                .collect();
            let row = rng.pick(&rows);
            let k = row.text.find("price: $")? + "price: ".len();
            let end = row.text[k..].find(',').map(|e| k + e)?;
            row.text[k..end].to_string()
        };
        let at = self.pick(rng, |l| l.trim_start().starts_with("page Detail("))?;
        self.used[at] = true;
        let line = self.insert_after(at, format!("  text \"Special offer: only {price}\""));
        self.record(
            line,
            DefectKind::ContradictoryData,
            &["C303"],
            format!("a hard-coded price `{price}` on the thing's page"),
        );
        Some(())
    }

    fn impossible_task(&mut self, rng: &mut Rng) -> Option<()> {
        let thing = self.table_after("invariant stock_never_negative: all x in ")?;
        let name = self.fresh("extra_task_");
        let (body, code) = match rng.range(0, 2) {
            0 => (
                format!(
                    "task {name} for x in {thing} where x.price < $0.00 {{\n  say \"Open the page of {{x.name}}\"\n  goal page is Detail(x)\n}}"
                ),
                "F403",
            ),
            1 => {
                let rec = self.table_with_field("day: Date")?;
                (
                    format!(
                        "task {name} {{\n  say \"Make a payment of a million\"\n  goal exists r in {rec}: r.amount > $1000000.00\n}}"
                    ),
                    "F402",
                )
            }
            _ => {
                // The workflow takes at least two actions from a thing's page.
                let req = self.table_with_field("choice: Text")?;
                (
                    format!(
                        "task {name} for x in {thing} where not (exists r in {req}: r.thing == x) limit 1 {{\n  say \"Get {{x.name}}\"\n  goal exists r in {req}: r.thing == x\n  horizon 1\n}}"
                    ),
                    "F401",
                )
            }
        };
        let at = self.append(&body);
        // F402 points at the part of the goal that can never hold.
        let at = if code == "F402" { at + 2 } else { at };
        self.record(
            at,
            DefectKind::ImpossibleTask,
            &[code],
            format!("task `{name}` that cannot be completed ({code})"),
        );
        Some(())
    }

    /// The identifier after `prefix` on the first line starting with it.
    fn table_after(&self, prefix: &str) -> Option<String> {
        let line = self.lines.iter().find(|l| l.text.starts_with(prefix))?;
        let rest = &line.text[prefix.len()..];
        let end = rest
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        Some(rest[..end].to_string())
    }

    /// The table that declares the field line `field` (`day: Date`).
    fn table_with_field(&self, field: &str) -> Option<String> {
        let at = self
            .lines
            .iter()
            .position(|l| l.text.trim_start().starts_with(field))?;
        let decl = self.lines[..at]
            .iter()
            .rev()
            .find(|l| l.text.starts_with("table "))?;
        let rest = decl.text.strip_prefix("table ")?;
        Some(rest.split_whitespace().next()?.to_string())
    }
}

/// What `wsitec check` makes of one raw site.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    /// Per injected defect (in order), whether a diagnostic reports it.
    pub detected: Vec<bool>,
    /// Per injected defect, whether every diagnostic reporting it names
    /// others it depends on (`after`: computed over stubs, see
    /// `crate::partial`).
    pub provisional: Vec<bool>,
    /// Whether the site has errors (then the prover does not run).
    pub has_errors: bool,
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

/// Checks and proves `raw` (no invariant sweep) and scores its defects: one
/// counts as detected when a diagnostic with one of its codes points at its
/// line.
pub fn check(raw: &RawSite) -> Checked {
    let c = crate::compile_str_with(
        &raw.site.file_name,
        &raw.site.text,
        crate::Options {
            prove: Some(wsite_runtime::prove::Options {
                budget: RAW_BUDGET,
                ..Default::default()
            }),
            only_task: None,
            skip_sweep: true,
        },
    );
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
    Checked {
        alone: Vec::new(),
        detected,
        provisional,
        has_errors: c.has_errors(),
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
