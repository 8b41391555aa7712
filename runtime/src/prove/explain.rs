//! Why a task has no witness, in terms a site author can act on.
//!
//! While the search runs, `Observed` keeps what it saw: which top-level goal
//! conjuncts ever held, the state of highest Ψ, the pages reached, and for each
//! marker whether its button was shown, enabled, tried, refused (and why, with
//! the values of the refusing `requires`) or committed. `explain` then names,
//! for every conjunct that never held, the markers that could write what it
//! reads and the reason each never made it true.

use super::answers::{buried_sentence, AnswerIssue, BuriedWatch, EMPTY_SUMMARY};
use super::{Verdict, WitnessStep};
use crate::env::{reward, Action, Env, State};
use crate::interp::eval::eval;
use crate::interp::exec::Rejection;
use crate::ir::reads::{expr_reads, marker_effects, touches, Locs};
use crate::ir::{self, BinaryOp, Expr, Value};
use serde::Serialize;
use std::collections::BTreeSet;

/// What an explanation reads of a finished search. The search implements it,
/// so explaining depends on no part of the search's bookkeeping.
pub(super) trait Searched<'p> {
    fn program(&self) -> &'p ir::Program;
    fn task(&self) -> &'p ir::TaskDef;
    /// What the search saw while it ran.
    fn observed(&self) -> &Observed<'p>;
    /// Distinct states explored.
    fn states(&self) -> usize;
    /// The steps the search looked ahead.
    fn horizon(&self) -> u32;
    /// The actions from the root to search node `node`.
    fn path(&self, node: u32) -> Vec<Action>;
    /// `path` replayed from the initial state, each action named by key.
    fn keyed(&self, path: &[Action]) -> Vec<WitnessStep>;
}

/// The top-level `and`-conjuncts of a goal, left to right.
pub fn conjuncts(goal: &Expr) -> Vec<&Expr> {
    match goal {
        Expr::Binary(BinaryOp::And, l, r) => {
            let mut out = conjuncts(l);
            out.extend(conjuncts(r));
            out
        }
        other => vec![other],
    }
}

#[derive(Clone, Debug, Default)]
struct MarkerSeen {
    /// An enabled button for it was on a page the search expanded.
    offered: bool,
    /// A disabled button for it was shown.
    disabled: bool,
    attempts: u32,
    commits: u32,
    first_refusal: Option<Refusal>,
}

#[derive(Clone, Debug)]
struct Refusal {
    alert: String,
    requirement: Option<usize>,
    /// The values of the refusing requirement's two sides (or of the whole
    /// condition when it is not a comparison), rendered.
    operands: Vec<String>,
    node: u32,
    action: Action,
    rank: usize,
    /// The invariant that refused it, when the gate did.
    invariant: Option<String>,
}

/// Attempts of one marker with one argument list that names an instance row.
#[derive(Clone, Debug)]
struct RowSeen {
    marker: ir::MarkerId,
    args: Vec<Value>,
    committed: bool,
    /// The first refusal with these arguments.
    refusal: Option<Refusal>,
}

/// At most this many argument lists are kept in `rows`: enough for every
/// marker that takes the instance's row, cheap however wide the search.
const MAX_ROWS_SEEN: usize = 64;

/// What the search saw, for explanations.
pub(super) struct Observed<'p> {
    program: &'p ir::Program,
    task: &'p ir::TaskDef,
    conjuncts: Vec<&'p Expr>,
    ever_true: Vec<bool>,
    best_progress: f64,
    best_node: u32,
    /// Pages of expanded states (their buttons were offered).
    pages: BTreeSet<ir::PageId>,
    /// Pages of every state reached, expanded or not (the start page even
    /// at horizon 0).
    arrived: BTreeSet<ir::PageId>,
    markers: Vec<MarkerSeen>,
    /// The rows the task instance is about (its template binding, and rows
    /// its goal names as `T[n]`), by table: attempts on them are kept apart
    /// in `rows`.
    instance_rows: Vec<(ir::TableId, Value)>,
    rows: Vec<RowSeen>,
    /// Each (marker, invariant) refusal, first (so shortest) occurrence, in
    /// the order found: the node it was tried from and the click.
    pub(super) invariant_refusals: Vec<(ir::MarkerId, String, u32, Action)>,
    /// The expected answer seen only inside a longer text (retrieval tasks).
    buried: BuriedWatch,
}

impl<'p> Observed<'p> {
    pub(super) fn new(program: &'p ir::Program, task: &'p ir::TaskDef) -> Self {
        let conjuncts = task.goal.as_ref().map(conjuncts).unwrap_or_default();
        Observed {
            program,
            task,
            ever_true: vec![false; conjuncts.len()],
            conjuncts,
            best_progress: -1.0,
            best_node: 0,
            pages: BTreeSet::new(),
            arrived: BTreeSet::new(),
            markers: vec![MarkerSeen::default(); program.markers.len()],
            instance_rows: task.goal.as_ref().map(named_rows).unwrap_or_default(),
            rows: Vec::new(),
            invariant_refusals: Vec::new(),
            buried: BuriedWatch::default(),
        }
    }

    /// A state reached for the first time.
    pub(super) fn note_state(&mut self, state: &State, frame: &[Value], node: u32) {
        if let (true, Some(t)) = (self.arrived.is_empty(), &self.task.template) {
            // The root: the task frame holds the template's binding.
            if let Some(row) = frame.get(t.scan.binder as usize) {
                self.instance_rows.push((t.scan.table, row.clone()));
            }
        }
        self.arrived.insert(state.nav.page);
        for (c, seen) in self.conjuncts.iter().zip(self.ever_true.iter_mut()) {
            if !*seen {
                *seen = reward::holds(self.program, state, frame, c);
            }
        }
        let psi = reward::potential(self.program, self.task, state, frame);
        if psi > self.best_progress {
            self.best_progress = psi;
            self.best_node = node;
        }
    }

    /// A state expanded: its page, and the markers its buttons offer.
    pub(super) fn note_expanded(&mut self, env: &Env<'_>) {
        self.pages.insert(env.state().nav.page);
        if self.task.answer.is_some() {
            self.buried.note(self.program, env);
        }
        let view = env.view();
        for h in &view.handles {
            if let crate::env::observe::Handle::Marker(m, _) = h {
                if let Some(seen) = self.markers.get_mut(*m as usize) {
                    seen.offered = true;
                }
            }
        }
        for m in &view.disabled_markers {
            if let Some(seen) = self.markers.get_mut(*m as usize) {
                seen.disabled = true;
            }
        }
    }

    /// A click on marker `m`'s button from node `node`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn note_attempt(
        &mut self,
        m: ir::MarkerId,
        args: &[Value],
        env: &Env<'_>,
        rejection: Option<&Rejection>,
        alert: &Option<String>,
        node: u32,
        action: &Action,
    ) {
        let program = self.program;
        let Some(seen) = self.markers.get_mut(m as usize) else {
            return;
        };
        seen.attempts = seen.attempts.saturating_add(1);
        let Some(cause) = rejection else {
            seen.commits = seen.commits.saturating_add(1);
            if let Some(row) = self.row_seen(m, args) {
                row.committed = true;
            }
            return;
        };
        if let Some(row) = self.row_seen(m, args) {
            if row.refusal.is_none() {
                row.refusal = Some(refusal(program, env, m, args, cause, alert, node, action));
            }
        }
        if let Rejection::Gate(crate::interp::gate::Violation::Invariant { name }) = cause {
            let known = self
                .invariant_refusals
                .iter()
                .any(|(k, n, _, _)| *k == m && n == name);
            if !known {
                self.invariant_refusals
                    .push((m, name.clone(), node, action.clone()));
            }
        }
        let Some(seen) = self.markers.get_mut(m as usize) else {
            return;
        };
        // Keep the refusal that got furthest (a later `requires`, the body,
        // the gate): it says most about what stands in the way.
        let rank = refusal_rank(cause);
        if seen.first_refusal.as_ref().is_some_and(|r| r.rank >= rank) {
            return;
        }
        seen.first_refusal = Some(refusal(program, env, m, args, cause, alert, node, action));
    }

    /// The record of `m` tried with `args`, when they name an instance row.
    fn row_seen(&mut self, m: ir::MarkerId, args: &[Value]) -> Option<&mut RowSeen> {
        let params = &self.program.markers.get(m as usize)?.params;
        let names_instance_row = args.iter().zip(params).any(|(a, p)| match p.ty {
            ir::Ty::Row(t) => self.instance_rows.iter().any(|(rt, r)| *rt == t && r == a),
            _ => false,
        });
        if !names_instance_row {
            return None;
        }
        match self
            .rows
            .iter()
            .position(|r| r.marker == m && r.args == args)
        {
            Some(i) => self.rows.get_mut(i),
            None if self.rows.len() < MAX_ROWS_SEEN => {
                self.rows.push(RowSeen {
                    marker: m,
                    args: args.to_vec(),
                    committed: false,
                    refusal: None,
                });
                self.rows.last_mut()
            }
            None => None,
        }
    }
}

/// The rows `goal` names as `T[n]` with a constant `n`.
fn named_rows(goal: &Expr) -> Vec<(ir::TableId, Value)> {
    let mut out = Vec::new();
    goal.walk(&mut |e| {
        if let Expr::Lookup { table, id } = e {
            if let Expr::Const(Value::Int(n)) = id.as_ref() {
                out.push((*table, Value::Row(*n)));
            }
        }
    });
    out
}

/// A refusal of `m(args)` from node `node`, with the refusing requirement's
/// operand values.
#[allow(clippy::too_many_arguments)]
fn refusal(
    program: &ir::Program,
    env: &Env<'_>,
    m: ir::MarkerId,
    args: &[Value],
    cause: &Rejection,
    alert: &Option<String>,
    node: u32,
    action: &Action,
) -> Refusal {
    let requirement = match cause {
        Rejection::Requires { index } => Some(*index),
        _ => None,
    };
    let operands = requirement
        .map(|i| requirement_operands(program, env.state(), m, args, i))
        .unwrap_or_default();
    Refusal {
        alert: alert.clone().unwrap_or_default(),
        requirement,
        operands,
        node,
        action: action.clone(),
        rank: refusal_rank(cause),
        invariant: match cause {
            Rejection::Gate(crate::interp::gate::Violation::Invariant { name }) => {
                Some(name.clone())
            }
            _ => None,
        },
    }
}

/// How far a refused marker got: each `requires` passed counts, then the body,
/// then the gate.
fn refusal_rank(cause: &Rejection) -> usize {
    match cause {
        Rejection::Call => 0,
        Rejection::Requires { index } => 1 + index,
        Rejection::Body => usize::MAX - 1,
        Rejection::Gate(_) => usize::MAX,
    }
}

/// The values of a marker's requirement `index`'s sides, evaluated in `state`
/// with the marker's arguments.
fn requirement_operands(
    program: &ir::Program,
    state: &State,
    m: ir::MarkerId,
    args: &[Value],
    index: usize,
) -> Vec<String> {
    let Some(def) = program.markers.get(m as usize) else {
        return Vec::new();
    };
    let Some(req) = def.requires.get(index) else {
        return Vec::new();
    };
    let ctx = state.world.context(program, Some(&state.nav));
    let mut frame = args.to_vec();
    let sides: Vec<&Expr> = match &req.cond {
        Expr::Binary(op, l, r) if !matches!(op, BinaryOp::And | BinaryOp::Or) => vec![l, r],
        other => vec![other],
    };
    sides
        .into_iter()
        .map(|e| match eval(&ctx, &mut frame, e) {
            Ok(v) => describe(&v),
            Err(f) => format!("(fails: {})", f.describe(program)),
        })
        .collect()
}

/// A value as an explanation shows it (without its static type, an enum is
/// its variant number and a row its id).
fn describe(v: &Value) -> String {
    match v {
        Value::None => "none".into(),
        Value::Int(n) => n.to_string(),
        Value::Money(c) => crate::value::Money(*c).to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Text(s) => format!("{s:?}"),
        Value::Date(d) => d.to_string(),
        Value::Time(t) => t.to_string(),
        Value::Enum(i) => format!("variant #{i}"),
        Value::Row(id) => format!("row {id}"),
    }
}

/// Why no witness: the conjuncts that never held and their writers' stories,
/// the closest approach, and the pages reached.
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    /// One sentence.
    pub summary: String,
    pub unmet: Vec<UnmetConjunct>,
    pub closest: Closest,
    /// The pages any explored state showed, by name.
    pub pages_reached: Vec<String>,
    /// Pages no explored state showed, by name.
    pub pages_unreached: Vec<String>,
    /// Why a retrieval task's answer could not be given, when known.
    pub answer: Option<AnswerIssue>,
}

impl Explanation {
    /// The explanation of an instance whose expected answer is `none`: no
    /// search ran, so nothing was reached and nothing came close.
    pub(super) fn of_empty_answer() -> Explanation {
        Explanation {
            summary: EMPTY_SUMMARY.into(),
            unmet: Vec::new(),
            closest: Closest {
                progress: 0.0,
                trace: Vec::new(),
            },
            pages_reached: Vec::new(),
            pages_unreached: Vec::new(),
            answer: Some(AnswerIssue::Empty),
        }
    }
}

/// A goal conjunct (by position) that held in no explored state.
#[derive(Clone, Debug, Serialize)]
pub struct UnmetConjunct {
    /// 0-based position among the goal's top-level `and`s.
    pub index: usize,
    pub of: usize,
    /// Markers that write something it reads, and why each never made it hold.
    pub writers: Vec<MarkerReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MarkerReport {
    pub marker: String,
    pub status: MarkerStatus,
    /// Tried on this task instance's row and refused every time there,
    /// whatever it did on other rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_refusal: Option<RowRefusal>,
}

/// A marker refused for the instance's row: its arguments (`Loan[7]`),
/// whether it had committed with them before, the first refusal's alert, the refusing `requires` (0-based) and the values of
/// its sides.
#[derive(Clone, Debug, Serialize)]
pub struct RowRefusal {
    pub args: Vec<String>,
    /// It committed with these arguments before it was refused.
    pub committed: bool,
    pub alert: String,
    pub requirement: Option<usize>,
    pub operands: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum MarkerStatus {
    /// No button anywhere triggers it.
    NoTrigger,
    /// Its buttons are on pages no explored state reached.
    PagesUnreached { pages: Vec<String> },
    /// Its buttons' pages were reached only with no step left (the horizon
    /// ended there).
    NoStepsLeft { pages: Vec<String> },
    /// Its pages were reached but its button was never rendered there.
    NeverShown { pages: Vec<String> },
    /// Its button was shown, always disabled.
    AlwaysDisabled { pages: Vec<String> },
    /// Tried and refused every time; the refusal that got furthest (its alert,
    /// the refusing `requires`, 0-based, with its sides' values) and the
    /// shortest trace to it.
    AlwaysRejected {
        attempts: u32,
        alert: String,
        requirement: Option<usize>,
        operands: Vec<String>,
        /// The invariant that refused the change, when the gate did.
        invariant: Option<String>,
        trace: Vec<WitnessStep>,
    },
    /// It committed, yet the conjunct never held.
    Committed { commits: u32 },
}

/// The explored state of highest Ψ (the first found, so the shallowest).
#[derive(Clone, Debug, Serialize)]
pub struct Closest {
    pub progress: f64,
    pub trace: Vec<WitnessStep>,
}

pub(super) fn explain<'p>(search: &impl Searched<'p>, verdict: Verdict, depth: u32) -> Explanation {
    let program = search.program();
    let task = search.task();
    let seen = search.observed();
    let name = |p: ir::PageId| {
        program
            .pages
            .get(p as usize)
            .map_or_else(|| format!("#{p}"), |d| d.name.clone())
    };
    let summary = match verdict {
        Verdict::Undecided => budget_summary(search.states(), depth),
        _ if task.answer.is_some() => format!(
            "no state within {} offers an answer that matches ({} explored)",
            plural(search.horizon() as usize, "step"),
            plural(search.states(), "state")
        ),
        _ => format!(
            "the goal holds in no state within {} ({} explored)",
            plural(search.horizon() as usize, "step"),
            plural(search.states(), "state")
        ),
    };
    let answer = seen.buried.found().cloned();
    let summary = match answer.as_ref().and_then(buried_sentence) {
        Some(buried) => format!("{summary}; {buried}"),
        None => summary,
    };
    let unmet = seen
        .conjuncts
        .iter()
        .zip(&seen.ever_true)
        .enumerate()
        .filter(|(_, (_, held))| !**held)
        .map(|(index, (c, _))| UnmetConjunct {
            index,
            of: seen.conjuncts.len(),
            writers: writers(search, c),
        })
        .collect();
    let pages_reached = seen.pages.iter().map(|p| name(*p)).collect();
    let pages_unreached = (0..program.pages.len())
        .filter_map(|p| u32::try_from(p).ok())
        .filter(|p| !seen.arrived.contains(p))
        .map(name)
        .collect();
    Explanation {
        summary,
        unmet,
        closest: Closest {
            progress: seen.best_progress.max(0.0),
            trace: search.keyed(&search.path(seen.best_node)),
        },
        pages_reached,
        pages_unreached,
        answer,
    }
}

/// The summary of an undecided search that saw `states` states, every one
/// up to `depth` steps.
pub(super) fn budget_summary(states: usize, depth: u32) -> String {
    format!(
        "the search budget ran out after {}, with every state up to {} explored",
        plural(states, "state"),
        plural(depth as usize, "step")
    )
}

/// "1 step", "40 steps".
pub(super) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The markers that write what `conjunct` reads, each with its story.
fn writers<'p>(search: &impl Searched<'p>, conjunct: &Expr) -> Vec<MarkerReport> {
    let program = search.program();
    let mut reads = Locs::new();
    expr_reads(program, conjunct, &mut reads);
    program
        .markers
        .iter()
        .enumerate()
        .filter(|(_, m)| touches(&marker_effects(program, m).writes, &reads))
        .map(|(i, m)| {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            MarkerReport {
                marker: m.name.clone(),
                status: status(search, id),
                row_refusal: row_refusal(search, id),
            }
        })
        .collect()
}

/// `m` refused with arguments naming the instance's row, and never committed
/// with them: the first such refusal.
fn row_refusal<'p>(search: &impl Searched<'p>, m: ir::MarkerId) -> Option<RowRefusal> {
    let program = search.program();
    let seen = search.observed();
    // Refused and never committed first; else committed, then refused (a
    // `requires` that stops it short of the goal).
    // Among argument lists, the refusal that got furthest (as for the
    // marker's own summary), the first found on ties.
    let refused = |committed: bool| {
        seen.rows
            .iter()
            .filter(|r| r.marker == m && r.committed == committed)
            .filter_map(|r| r.refusal.as_ref().map(|f| (r, f)))
            .min_by_key(|(_, f)| std::cmp::Reverse(f.rank))
    };
    let (row, refusal) = refused(false).or_else(|| refused(true))?;
    let params = &program.markers.get(m as usize)?.params;
    let args = row
        .args
        .iter()
        .zip(params)
        .map(|(v, p)| match (v, &p.ty) {
            (Value::Row(id), ir::Ty::Row(t)) => program
                .tables
                .get(*t as usize)
                .map_or_else(|| describe(v), |t| format!("{}[{id}]", t.name)),
            _ => describe(v),
        })
        .collect();
    Some(RowRefusal {
        args,
        committed: row.committed,
        alert: refusal.alert.clone(),
        requirement: refusal.requirement,
        operands: refusal.operands.clone(),
    })
}

fn status<'p>(search: &impl Searched<'p>, m: ir::MarkerId) -> MarkerStatus {
    let program = search.program();
    let seen = search.observed();
    let name = |p: &ir::PageId| {
        program
            .pages
            .get(*p as usize)
            .map_or_else(|| format!("#{p}"), |d| d.name.clone())
    };
    let hosts = trigger_pages(program, m);
    let reached: Vec<ir::PageId> = hosts
        .iter()
        .copied()
        .filter(|p| seen.pages.contains(p))
        .collect();
    let arrived: Vec<ir::PageId> = hosts
        .iter()
        .copied()
        .filter(|p| seen.arrived.contains(p))
        .collect();
    let Some(ms) = seen.markers.get(m as usize) else {
        return MarkerStatus::NoTrigger;
    };
    if hosts.is_empty() {
        MarkerStatus::NoTrigger
    } else if reached.is_empty() && !arrived.is_empty() {
        MarkerStatus::NoStepsLeft {
            pages: arrived.iter().map(name).collect(),
        }
    } else if reached.is_empty() {
        MarkerStatus::PagesUnreached {
            pages: hosts.iter().map(name).collect(),
        }
    } else if ms.commits > 0 {
        MarkerStatus::Committed {
            commits: ms.commits,
        }
    } else if let Some(r) = &ms.first_refusal {
        let mut path = search.path(r.node);
        path.push(r.action.clone());
        MarkerStatus::AlwaysRejected {
            attempts: ms.attempts,
            alert: r.alert.clone(),
            requirement: r.requirement,
            operands: r.operands.clone(),
            invariant: r.invariant.clone(),
            trace: search.keyed(&path),
        }
    } else if ms.disabled && !ms.offered {
        MarkerStatus::AlwaysDisabled {
            pages: reached.iter().map(name).collect(),
        }
    } else {
        MarkerStatus::NeverShown {
            pages: reached.iter().map(name).collect(),
        }
    }
}

/// The pages with a button that triggers marker `m`.
pub fn trigger_pages(program: &ir::Program, m: ir::MarkerId) -> Vec<ir::PageId> {
    fn has(body: &[ir::Element], m: ir::MarkerId) -> bool {
        body.iter().any(|e| match &e.kind {
            ir::ElementKind::Button {
                action: ir::Action::Marker { marker, .. },
                ..
            } => *marker == m,
            ir::ElementKind::Section { body, .. } => has(body, m),
            ir::ElementKind::For(f) => has(&f.body, m),
            ir::ElementKind::If {
                then, otherwise, ..
            } => has(then, m) || has(otherwise, m),
            _ => false,
        })
    }
    program
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| has(&p.body, m))
        .filter_map(|(i, _)| u32::try_from(i).ok())
        .collect()
}
