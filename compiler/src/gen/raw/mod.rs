//! The defect injector behind `wsitec gen --raw`: it turns a generated site
//! into the kind of scaffold a language model writes, with the defects such
//! scaffolds have, and records each one (kind, category, line, the codes
//! that should report it) so that detection can be scored.
//!
//! Rates follow the pilot study of the method this project builds on (500
//! raw scaffolds): about 12.4 defects per raw site over four categories, 4.9
//! of them task-blocking, and 48.6% of task instances feasible.
//!
//! - [`inject`] draws every kind, each count Poisson with the mean in
//!   [`RATES`]: most such sites have errors and do not run.
//! - [`inject_runnable`] keeps every site runnable (it lowers, so that
//!   `wsitec train --unverified` trains on all of its instances) and blocks
//!   tasks on purpose: [`block`] proves the clean site, then breaks tasks
//!   until the share of blocked instances reaches a per-site target whose
//!   mean is `1 − feasible` ([`PAPER_FEASIBLE`] unless asked otherwise). The
//!   feasible share is hit by construction, not by luck.
//!
//! A raw site is plain text: the same parser, checker and prover that judge
//! an author's site judge it, which is the point of the experiment.

mod block;
mod check;
mod editor;
#[cfg(test)]
mod tests;

pub use check::{
    check, check_alone, rates, shares, shares_table, Checked, KindRate, Shares, RAW_BUDGET,
};

use super::rng::Rng;
use super::GeneratedSite;
use editor::Editor;
use serde::Serialize;

/// The pilot study's share of task instances that raw scaffolds leave
/// feasible.
pub const PAPER_FEASIBLE: f64 = 0.486;
/// The pilot study's defects per raw site.
pub const PAPER_DEFECTS: f64 = 12.4;
/// The pilot study's task-blocking defects per raw site.
pub const PAPER_BLOCKING: f64 = 4.9;
/// The pilot study's share of feasibility defects among all defects.
pub const PAPER_FEASIBILITY_SHARE: f64 = 0.111;

/// The pilot study's four kinds of defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Broken links, orphan pages, missing controls.
    Structural,
    /// Negative prices, impossible dates, placeholder text.
    Semantic,
    /// Data that contradicts itself or the site's invariants.
    Consistency,
    /// Tasks whose completion condition cannot be reached.
    Feasibility,
}

impl Category {
    pub const ALL: [Category; 4] = [
        Category::Structural,
        Category::Semantic,
        Category::Consistency,
        Category::Feasibility,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Category::Structural => "structural",
            Category::Semantic => "semantic",
            Category::Consistency => "consistency",
            Category::Feasibility => "feasibility",
        }
    }
}

/// What a language model gets wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DefectKind {
    /// A link to a page that does not exist (E101).
    BrokenLink,
    /// A page nothing links to (S101).
    OrphanPage,
    /// Every button that triggers a marker left out (S102; its tasks fail).
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
    /// A task's horizon shorter than its shortest solution (F401).
    ShortHorizon,
    /// A task's goal that asks for what no marker ever writes (F402).
    UnreachableGoal,
    /// A marker's precondition that its own buttons never meet (F401 on
    /// the tasks that need it).
    ContradictoryGuard,
}

impl DefectKind {
    pub const ALL: [DefectKind; 11] = [
        DefectKind::BrokenLink,
        DefectKind::OrphanPage,
        DefectKind::MissingButton,
        DefectKind::PlaceholderText,
        DefectKind::NegativePrice,
        DefectKind::ImpossibleDate,
        DefectKind::ContradictoryData,
        DefectKind::ImpossibleTask,
        DefectKind::ShortHorizon,
        DefectKind::UnreachableGoal,
        DefectKind::ContradictoryGuard,
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
            DefectKind::ShortHorizon => "short_horizon",
            DefectKind::UnreachableGoal => "unreachable_goal",
            DefectKind::ContradictoryGuard => "contradictory_guard",
        }
    }

    pub fn category(self) -> Category {
        match self {
            DefectKind::BrokenLink | DefectKind::OrphanPage | DefectKind::MissingButton => {
                Category::Structural
            }
            DefectKind::PlaceholderText
            | DefectKind::NegativePrice
            | DefectKind::ImpossibleDate => Category::Semantic,
            DefectKind::ContradictoryData | DefectKind::ContradictoryGuard => Category::Consistency,
            DefectKind::ImpossibleTask | DefectKind::ShortHorizon | DefectKind::UnreachableGoal => {
                Category::Feasibility
            }
        }
    }

    /// Whether it makes some task impossible while the site still runs (the
    /// pilot study's task-blocking defects).
    pub fn blocks_tasks(self) -> bool {
        matches!(
            self,
            DefectKind::MissingButton
                | DefectKind::ImpossibleTask
                | DefectKind::ShortHorizon
                | DefectKind::UnreachableGoal
                | DefectKind::ContradictoryGuard
        )
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
                | DefectKind::ShortHorizon
                | DefectKind::UnreachableGoal
                | DefectKind::ContradictoryGuard
        )
    }
}

/// Mean defects of each kind per raw site drawn by [`inject`] (12.4 in all;
/// the two feasibility kinds, missing buttons and impossible tasks, 1.4 of
/// them: 11%). The kinds that [`block`] aims at tasks are not drawn here.
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

/// Mean defects per runnable raw site besides the task-blocking ones that
/// [`block`] places (4.5 per site on the generated corpus at 48.6%
/// feasible), so that a site carries about 12.4 in all (hard-coded prices
/// land less often than drawn: a site has few places for them). Impossible
/// tasks are the F403 kind here (a template with no instance), which adds
/// no instance.
pub const RUNNABLE_RATES: [(DefectKind, f64); 4] = [
    (DefectKind::OrphanPage, 1.8),
    (DefectKind::PlaceholderText, 4.0),
    (DefectKind::ContradictoryData, 2.4),
    (DefectKind::ImpossibleTask, 0.4),
];

/// The kinds that leave a site runnable: its program still lowers and its
/// environments run, only some tasks cannot be done and some pages are
/// wrong. The raw side of the raw-versus-verified training experiment.
pub const RUNNABLE: [DefectKind; 8] = [
    DefectKind::OrphanPage,
    DefectKind::MissingButton,
    DefectKind::PlaceholderText,
    DefectKind::ContradictoryData,
    DefectKind::ImpossibleTask,
    DefectKind::ShortHorizon,
    DefectKind::UnreachableGoal,
    DefectKind::ContradictoryGuard,
];

/// One injected defect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Injected {
    pub kind: DefectKind,
    pub category: Category,
    /// Whether it was placed to make a task impossible.
    pub blocking: bool,
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
    /// Task instances of the clean site, and how many of them the injected
    /// defects were aimed at ([`inject_runnable`] only; 0 otherwise).
    pub instances: usize,
    pub aimed_blocked: usize,
}

/// Injects defects at the rates of [`RATES`] (the same for a seed).
pub fn inject(site: &GeneratedSite, seed: u64) -> RawSite {
    let mut rng = Rng(seed ^ 0x7261_7773_6974_6573);
    let counts: Vec<(DefectKind, usize)> = RATES
        .iter()
        .map(|&(kind, mean)| (kind, rng.poisson(mean)))
        .collect();
    let mut e = Editor::new(site, false);
    e.inject_counts(&counts, &mut rng);
    e.finish(site, 0, 0)
}

/// A runnable raw site whose task instances are feasible with probability
/// `feasible` on average over a corpus ([`PAPER_FEASIBLE`] for the pilot
/// study's population): the task-blocking defects first, aimed by [`block`],
/// then the others at the rates of [`RUNNABLE_RATES`]. The same for a seed.
pub fn inject_runnable_at(site: &GeneratedSite, seed: u64, feasible: f64) -> RawSite {
    let mut rng = Rng(seed ^ 0x7275_6e6e_6162_6c65);
    let mut e = Editor::new(site, true);
    let aim = block::aim(&mut e, site, 1.0 - feasible, &mut rng);
    let counts: Vec<(DefectKind, usize)> = RUNNABLE_RATES
        .iter()
        .map(|&(kind, mean)| (kind, rng.poisson(mean)))
        .collect();
    e.inject_counts(&counts, &mut rng);
    e.finish(site, aim.instances, aim.blocked)
}

/// [`inject_runnable_at`] the pilot study's feasible share.
pub fn inject_runnable(site: &GeneratedSite, seed: u64) -> RawSite {
    inject_runnable_at(site, seed, PAPER_FEASIBLE)
}

/// Injects exactly `count` defects of `kind` where the site has room (for
/// measuring each kind alone); task-blocking kinds are aimed at `count`
/// tasks that the clean site's proofs show they block.
pub fn inject_only(site: &GeneratedSite, kind: DefectKind, count: usize, seed: u64) -> RawSite {
    let mut rng = Rng(seed ^ 0x6f6e_6c79);
    let mut e = Editor::new(site, false);
    match kind {
        DefectKind::ShortHorizon | DefectKind::UnreachableGoal | DefectKind::ContradictoryGuard => {
            block::aim_only(&mut e, site, kind, count, &mut rng);
        }
        _ => e.inject_counts(&[(kind, count)], &mut rng),
    }
    e.finish(site, 0, 0)
}
