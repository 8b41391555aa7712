//! Task-blocking defects aimed by proof: the clean site is proven once, and
//! its witnesses say which task each defect would block, so that a runnable
//! raw site loses the share of feasible instances it was meant to lose.
//!
//! Three mistakes a language model's scaffold makes while the site still
//! runs, each aimed at one task:
//! - the buttons of the marker its witness clicks left out (structural,
//!   S102): every task that needs that marker goes with it;
//! - that marker's `requires qty > 0` written `qty > 1` while its buttons
//!   ask for one (consistency: a precondition the site's own data never
//!   meets; F401 on the task), with the same reach;
//! - a horizon shorter than its shortest witness (feasibility, F401 or, for
//!   a retrieval task, F405);
//! - a goal that also asks for rows of a table nothing writes (feasibility,
//!   F402).

use super::editor::Editor;
use super::{Category, DefectKind};
use crate::gen::rng::Rng;
use crate::gen::GeneratedSite;
use wsite_runtime::env::ActionKind;
use wsite_runtime::prove::Verdict;

/// How far one site's blocked share may stray from the corpus mean, either
/// way (uniformly, less near 0 and 1): raw scaffolds are not all equally
/// broken.
const SPREAD: f64 = 0.2;

/// What the clean site's proofs say of one task.
struct TaskProof {
    name: String,
    retrieval: bool,
    instances: usize,
    /// Every instance proven feasible.
    feasible: bool,
    /// The fewest steps of any instance's witness.
    shortest: usize,
    /// Per instance, the lines of the site's own elements its witness
    /// clicks (0-based, in the clean text).
    clicked: Vec<Vec<usize>>,
}

/// How many of a site's task instances the aimed defects block.
pub(super) struct Aim {
    pub instances: usize,
    pub blocked: usize,
}

/// One way to block a task, with every task it blocks.
struct Candidate {
    kind: DefectKind,
    /// Indices into the proofs.
    blocks: Vec<usize>,
    edit: Edit,
}

enum Edit {
    /// The task's `horizon` line (and the task line, where F401 points).
    Horizon {
        task_line: usize,
        at: usize,
        steps: usize,
        retrieval: bool,
    },
    /// The task's `goal` line and a table nothing writes.
    Goal { at: usize, table: String },
    /// A marker's `requires qty > 0` line, and the aimed task's line.
    Guard {
        at: usize,
        task_line: usize,
        retrieval: bool,
        marker: String,
    },
    /// Every button line of a marker, and the marker's declaration.
    Buttons {
        marker: String,
        lines: Vec<usize>,
        decl: usize,
    },
}

/// Blocks tasks of `site` until about `share` of its instances (give or take
/// [`SPREAD`], drawn per site) are blocked; the edits go into `e`, which must
/// not have been edited yet (witness keys name lines of the clean text).
pub(super) fn aim(e: &mut Editor, site: &GeneratedSite, share: f64, rng: &mut Rng) -> Aim {
    let proofs = prove(site);
    let instances: usize = proofs.iter().map(|p| p.instances).sum();
    // Symmetric and never clipped, so that the mean stays `share`.
    let spread = SPREAD.min(share).min(1.0 - share).max(0.0);
    let target = (share + spread * (2.0 * unit(rng) - 1.0)) * instances as f64;
    let mut blocked = vec![false; proofs.len()];
    let mut count = 0;
    for t in shuffled(proofs.len(), rng) {
        if blocked[t] || !proofs[t].feasible {
            continue;
        }
        let candidates = candidates(e, &proofs, t);
        if candidates.is_empty() {
            continue;
        }
        let c = weighted(&candidates, rng);
        let gain: usize = c
            .blocks
            .iter()
            .filter(|&&u| !blocked[u])
            .map(|&u| proofs[u].instances)
            .sum();
        // Take it when it brings the count nearer the target.
        if count as f64 + gain as f64 / 2.0 > target {
            continue;
        }
        apply(e, c, &proofs[t], rng);
        for &u in &c.blocks {
            blocked[u] = true;
        }
        count += gain;
    }
    Aim {
        instances,
        blocked: count,
    }
}

/// Blocks up to `count` tasks with `kind` alone (for measuring detection).
pub(super) fn aim_only(
    e: &mut Editor,
    site: &GeneratedSite,
    kind: DefectKind,
    count: usize,
    rng: &mut Rng,
) {
    let proofs = prove(site);
    let mut done = 0;
    for t in shuffled(proofs.len(), rng) {
        if done == count || !proofs[t].feasible {
            continue;
        }
        let candidates = candidates(e, &proofs, t);
        if let Some(c) = candidates.iter().find(|c| c.kind == kind) {
            apply(e, c, &proofs[t], rng);
            done += 1;
        }
    }
}

/// One of `candidates` (not empty), a marker's three times as likely as a
/// task's own lines: the pilot study finds feasibility defects only 11% of
/// all, most blocking coming from missing controls and inconsistencies.
fn weighted<'a>(candidates: &'a [Candidate], rng: &mut Rng) -> &'a Candidate {
    let weight = |c: &Candidate| match c.kind.category() {
        Category::Feasibility => 1,
        _ => 3,
    };
    let total: u64 = candidates.iter().map(weight).sum();
    let mut draw = rng.range(0, total - 1);
    for c in candidates {
        if draw < weight(c) {
            return c;
        }
        draw -= weight(c);
    }
    &candidates[0]
}

/// A number in `[0, 1)`.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next() >> 11) as f64 / (1u64 << 53) as f64
}

/// `0..n` in a random order (Fisher–Yates).
fn shuffled(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.range(0, i as u64) as usize;
        order.swap(i, j);
    }
    order
}

/// Proves the clean site and groups the outcomes by task, in source order.
fn prove(site: &GeneratedSite) -> Vec<TaskProof> {
    let c = super::check::compile_and_prove(&site.file_name, &site.text);
    let lines: Vec<&str> = site.text.lines().collect();
    let mut proofs: Vec<TaskProof> = Vec::new();
    for o in &c.proofs {
        let clicked: Vec<usize> = o
            .witness
            .iter()
            .filter(|s| s.kind == ActionKind::Click)
            .filter_map(|s| s.key.as_deref())
            .flat_map(|key| element_lines(&lines, key))
            .collect();
        let feasible = o.verdict == Verdict::Feasible;
        match proofs.last_mut().filter(|p| p.name == o.task) {
            Some(p) => {
                p.instances += 1;
                p.feasible &= feasible;
                p.shortest = p.shortest.min(o.witness.len());
                p.clicked.push(clicked);
            }
            None => proofs.push(TaskProof {
                name: o.task.clone(),
                retrieval: o.kind == "retrieval",
                instances: 1,
                feasible,
                shortest: o.witness.len(),
                clicked: vec![clicked],
            }),
        }
    }
    proofs
}

/// The lines of the site's own text that a witness key names: `#place` (an
/// element id, every line that declares it) or `Catalog:202:5[x=1]` (a
/// line of page `Catalog`; a module's page names lines of another file).
fn element_lines(lines: &[&str], key: &str) -> Vec<usize> {
    if key.starts_with('#') {
        let id = format!(" {key} ");
        return (0..lines.len())
            .filter(|&i| lines[i].contains(&id))
            .collect();
    }
    let mut parts = key.split(':');
    let (Some(page), Some(Ok(line))) = (parts.next(), parts.next().map(str::parse::<usize>)) else {
        return Vec::new();
    };
    let Some(at) = line.checked_sub(1).filter(|&at| at < lines.len()) else {
        return Vec::new();
    };
    let owner = lines[..=at].iter().rev().find(|l| l.starts_with("page "));
    let named = owner.is_some_and(|l| {
        l["page ".len()..].starts_with(page)
            && l["page ".len() + page.len()..].starts_with([' ', '('])
    });
    if named {
        vec![at]
    } else {
        Vec::new()
    }
}

/// The ways the site offers to block task `t`.
fn candidates(e: &Editor, proofs: &[TaskProof], t: usize) -> Vec<Candidate> {
    let p = &proofs[t];
    let Some((task_line, end)) = task_block(e, &p.name) else {
        return Vec::new();
    };
    let find = |prefix: &str| (task_line..end).find(|&i| e.lines[i].text.starts_with(prefix));
    let mut out = Vec::new();
    if let Some(at) = find("  horizon ").filter(|_| p.shortest >= 2) {
        out.push(Candidate {
            kind: DefectKind::ShortHorizon,
            blocks: vec![t],
            edit: Edit::Horizon {
                task_line,
                at,
                steps: p.shortest,
                retrieval: p.retrieval,
            },
        });
    }
    let goal = find("  goal ").filter(|&at| balanced(&e.lines[at].text));
    if let (Some(at), Some(table)) = (goal, unwritten_table(e)) {
        out.push(Candidate {
            kind: DefectKind::UnreachableGoal,
            blocks: vec![t],
            edit: Edit::Goal { at, table },
        });
    }
    out.extend(marker_candidates(e, proofs, t, task_line));
    out
}

/// The lines of task `name`: its `task` line and the closing brace.
fn task_block(e: &Editor, name: &str) -> Option<(usize, usize)> {
    let head = format!("task {name}");
    let start = e.lines.iter().position(|l| {
        l.text
            .strip_prefix(&head)
            .is_some_and(|rest| rest.starts_with([' ', '{']))
    })?;
    let end = (start..e.lines.len()).find(|&i| e.lines[i].text == "}")?;
    (!e.used[start..end].iter().any(|&u| u)).then_some((start, end))
}

/// Whether a line's parentheses close on it (a goal written on one line).
fn balanced(text: &str) -> bool {
    text.matches('(').count() == text.matches(')').count()
}

/// The first declared table that no marker of the site writes and no module
/// is bound to (a module's markers may write it).
fn unwritten_table(e: &Editor) -> Option<String> {
    let text: Vec<&str> = e.lines.iter().map(|l| l.text.as_str()).collect();
    let written = |table: &str| {
        text.iter().any(|l| {
            let l = l.trim_start();
            let writes = l.strip_prefix("writes ").unwrap_or("");
            let bound = l.starts_with("use ") && l.contains(&format!("= {table}"));
            bound
                || writes
                    .split([',', ' '])
                    .any(|w| w == table || w.starts_with(&format!("{table}.")))
        })
    };
    text.iter()
        .filter_map(|l| l.strip_prefix("table "))
        .filter_map(|rest| rest.split_whitespace().next())
        .find(|table| !written(table))
        .map(str::to_string)
}

/// Ways to break a marker that every instance of task `t` triggers, when
/// the site declares that marker: leaving out every button of it, or (when
/// every button asks for one of a thing) a `requires` that asks for more than
/// one. Either blocks each task whose every instance clicks those buttons.
fn marker_candidates(
    e: &Editor,
    proofs: &[TaskProof],
    t: usize,
    task_line: usize,
) -> Vec<Candidate> {
    let Some((marker, lines, decl, blocks)) = marker_needed(e, proofs, t) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let asks_one = lines.iter().all(|&i| e.lines[i].text.contains(", 1)"));
    let guard = (decl..e.lines.len())
        .take_while(|&i| e.lines[i].text != "{")
        .find(|&i| e.lines[i].text.starts_with("  requires qty > 0 else "));
    if let Some(at) = guard.filter(|&at| asks_one && !e.used[at]) {
        out.push(Candidate {
            kind: DefectKind::ContradictoryGuard,
            blocks: blocks.clone(),
            edit: Edit::Guard {
                at,
                task_line,
                retrieval: proofs[t].retrieval,
                marker: marker.clone(),
            },
        });
    }
    out.push(Candidate {
        kind: DefectKind::MissingButton,
        blocks,
        edit: Edit::Buttons {
            marker,
            lines,
            decl,
        },
    });
    out
}

/// The marker every instance of task `t` triggers (the last such in its
/// witness), its button lines, its declaration, and the tasks whose every
/// instance clicks one of those buttons.
fn marker_needed(
    e: &Editor,
    proofs: &[TaskProof],
    t: usize,
) -> Option<(String, Vec<usize>, usize, Vec<usize>)> {
    let marker_of = |i: usize| -> Option<String> {
        let l = e.lines[i].text.trim_start();
        let rest = l.strip_prefix("button ")?;
        let name = rest.split("-> ").nth(1)?.split('(').next()?.trim();
        Some(name.to_string())
    };
    let first = proofs[t].clicked.first()?;
    let marker = first.iter().rev().filter_map(|&i| marker_of(i)).find(|m| {
        proofs[t]
            .clicked
            .iter()
            .all(|c| c.iter().any(|&i| marker_of(i).as_deref() == Some(m)))
    })?;
    let decl = e
        .lines
        .iter()
        .position(|l| l.text.starts_with(&format!("marker {marker}(")))?;
    let lines: Vec<usize> = (0..e.lines.len())
        .filter(|&i| marker_of(i).as_deref() == Some(marker.as_str()))
        .collect();
    if lines.iter().any(|&i| e.used[i]) {
        return None;
    }
    let blocks: Vec<usize> = (0..proofs.len())
        .filter(|&u| {
            proofs[u].feasible
                && proofs[u]
                    .clicked
                    .iter()
                    .all(|c| c.iter().any(|i| lines.contains(i)))
        })
        .collect();
    Some((marker, lines, decl, blocks))
}

fn apply(e: &mut Editor, c: &Candidate, p: &TaskProof, rng: &mut Rng) {
    match &c.edit {
        Edit::Horizon {
            task_line,
            at,
            steps,
            retrieval,
        } => {
            let short = rng.range(1, *steps as u64 - 1);
            e.edit(*at, format!("  horizon {short}"));
            e.used[*task_line] = true;
            e.record(
                *task_line,
                c.kind,
                &[failure_code(*retrieval)],
                format!(
                    "task `{}` given {short} steps, fewer than its {steps}-step solution",
                    p.name
                ),
            );
        }
        Edit::Goal { at, table } => {
            let goal = e.lines[*at].text["  goal ".len()..].to_string();
            e.edit(
                *at,
                format!("  goal ({goal}) and count(other in {table}) > 999"),
            );
            e.record(
                *at,
                c.kind,
                &["F402"],
                format!(
                    "task `{}` also asks for more than 999 `{table}` rows, which nothing writes",
                    p.name
                ),
            );
        }
        Edit::Guard {
            at,
            task_line,
            retrieval,
            marker,
        } => {
            let text = e.lines[*at].text.replacen("qty > 0", "qty > 1", 1);
            e.edit(*at, text);
            e.used[*task_line] = true;
            e.record(
                *task_line,
                c.kind,
                &[failure_code(*retrieval)],
                format!(
                    "`{marker}` requires more than one while its buttons ask for one (task `{}`)",
                    p.name
                ),
            );
        }
        Edit::Buttons {
            marker,
            lines,
            decl,
        } => {
            // Element-less lines keep the numbering; the marker stays.
            for &i in lines {
                e.edit(i, String::new());
            }
            e.record(
                *decl,
                c.kind,
                &["S102"],
                format!(
                    "every button that triggers `{marker}` left out (task `{}`)",
                    p.name
                ),
            );
        }
    }
}

/// What the prover reports on a task no witness completes within its
/// horizon: F405 for a retrieval task, F401 for the others.
fn failure_code(retrieval: bool) -> &'static str {
    if retrieval {
        "F405"
    } else {
        "F401"
    }
}
