//! The cone of influence of a task: the actions that can matter to its
//! outcome. The prover skips the others (`--no-prune` turns this off).
//!
//! # Why skipping is sound
//!
//! A search state is (page, page arguments, form values, database, session,
//! visited set). Let R be the smallest set of database and session locations
//! (`ir::reads::Loc`) that holds
//! - everything the goal reads (for a retrieval task the expected answer is
//!   fixed at the start, so nothing),
//! - everything any page reads to decide which actions exist and what they do:
//!   `if` and loop conditions, `order by`, `limit` and `offset`, `disabled when`, the
//!   arguments of links, navigating buttons and marker buttons, select options
//!   and the texts that name them (choosing goes by option text, and a row
//!   shows as its `name`, `ir::reads::render_reads`), and every page
//!   guard's condition and redirect arguments (they decide where a
//!   navigation lands); for a retrieval task
//!   also every text shown, since answers are picked from it,
//! - everything a *live* marker reads: its `requires`, its body (conditions,
//!   values, `go` arguments, rendered `reject` texts) and, when it writes at
//!   all, every invariant (the gate evaluates them);
//!
//! where a marker is live when its written locations touch R **or when its
//! body can navigate** (`go`): a navigation changes the page, its arguments,
//! the form values and the visited set, which decide everything else, so such
//! a click is never skipped, whatever it writes.
//!
//! Take any witness and an action `a` in it that is not live: a click on a
//! non-navigating marker that writes nothing in R, or a `type`/`select`/
//! `click` on a form element whose variable no expression of its page reads.
//! Whether `a` commits or is rejected, it leaves the page, its arguments and
//! the visited set as they were (a marker without `go` re-renders the same
//! page and keeps its form values, §5.3), and changes at most locations
//! outside R, or a form value nothing reads. Every later step depends only on
//! the navigation, the form values that are read, and R: the offered actions
//! and their targets by the second clause, the outcome of every live marker by
//! the third, the goal by the first. So deleting `a` leaves a sequence that
//! takes the same actions to the same navigation and the same R, and reaches
//! the goal one step sooner. Hence the pruned search finds a witness exactly
//! when the full one does, of the same shortest length: "infeasible" under
//! pruning means infeasible. One case escapes the deletion: a goal that
//! holds before any step, where every single step is a witness and deleting
//! it leaves the empty sequence, which is none (the goal is checked after a
//! step). Such instances are searched without pruning (`search::prunes`). Step counts, alerts and rewards are not part of
//! the state and change nothing here.
//!
//! What keeps the argument honest as the language grows: the read analysis
//! destructures pages and loops without `..`, so a new construct (page
//! guards, page-level `let`, loop offsets) does not compile until its reads
//! are counted; and the soundness campaign (`tests/tests/soundness.rs`)
//! compares pruned and unpruned verdicts on thousands of random sites.

use crate::ir::reads::{block_navigates, close_cone, expr_reads, marker_effects, page_reads, Locs};
use crate::ir::{self, Element, ElementKind, Expr, TextPart};
use std::collections::BTreeSet;

/// A task's cone of influence: which markers and form elements can matter.
#[derive(Clone, Debug, Default)]
pub struct Cone {
    /// Markers whose writes can never reach the goal (or the answers shown).
    pub idle_markers: BTreeSet<ir::MarkerId>,
    /// `(page, element id)` of form elements whose variable nothing reads.
    pub idle_fields: BTreeSet<(ir::PageId, u32)>,
}

impl Cone {
    pub fn of_task(program: &ir::Program, task: &ir::TaskDef) -> Cone {
        let retrieval = task.answer.is_some();
        let mut relevant = Locs::new();
        for page in &program.pages {
            page_reads(program, page, retrieval, &mut relevant);
        }
        if let Some(goal) = &task.goal {
            expr_reads(program, goal, &mut relevant);
        }
        let effects: Vec<_> = program
            .markers
            .iter()
            .map(|m| marker_effects(program, m))
            .collect();
        // A navigating marker is live whatever it writes; its reads join R.
        let mut live = vec![false; effects.len()];
        for (i, m) in program.markers.iter().enumerate() {
            if block_navigates(&m.body) {
                if let (Some(l), Some(fx)) = (live.get_mut(i), effects.get(i)) {
                    *l = true;
                    relevant.extend(fx.reads.iter().copied());
                }
            }
        }
        close_cone(&effects, &mut relevant, &mut live);
        let idle_markers = live
            .iter()
            .enumerate()
            .filter(|(_, l)| !**l)
            .filter_map(|(i, _)| u32::try_from(i).ok())
            .collect();
        Cone {
            idle_markers,
            idle_fields: idle_fields(program),
        }
    }
}

/// Form elements whose variable no expression of their page reads.
fn idle_fields(program: &ir::Program) -> BTreeSet<(ir::PageId, u32)> {
    let mut out = BTreeSet::new();
    for (p, page) in program.pages.iter().enumerate() {
        let Ok(p) = u32::try_from(p) else { continue };
        let mut read = BTreeSet::new();
        let mut fields = Vec::new();
        page_locals(&page.body, &mut read, &mut fields);
        for (element, slot) in fields {
            if !read.contains(&slot) {
                out.insert((p, element));
            }
        }
    }
    out
}

/// Every local slot read by an expression of `body`, and every form element
/// with its slot.
fn page_locals(body: &[Element], read: &mut BTreeSet<ir::Slot>, fields: &mut Vec<(u32, ir::Slot)>) {
    let note = |e: &Expr, read: &mut BTreeSet<ir::Slot>| {
        e.walk(&mut |x| {
            if let Expr::Local(s) = x {
                read.insert(*s);
            }
        })
    };
    for e in body {
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut texts: Vec<&[TextPart]> = Vec::new();
        match &e.kind {
            ElementKind::Heading(p) | ElementKind::Text(p) | ElementKind::Image(p) => texts.push(p),
            ElementKind::Link {
                label,
                target,
                disabled,
            } => {
                texts.push(label);
                exprs.extend(target.args.iter());
                exprs.extend(disabled.iter());
            }
            ElementKind::Button {
                label,
                action,
                disabled,
            } => {
                texts.push(label);
                match action {
                    ir::Action::Go(call) => exprs.extend(call.args.iter()),
                    ir::Action::Marker { args, .. } => exprs.extend(args.iter()),
                }
                exprs.extend(disabled.iter());
            }
            ElementKind::Input { slot, label, .. } | ElementKind::Checkbox { slot, label } => {
                texts.push(label);
                fields.push((e.id, *slot));
            }
            ElementKind::SelectList {
                slot,
                label,
                options,
                ..
            } => {
                texts.push(label);
                exprs.extend(options.iter());
                fields.push((e.id, *slot));
            }
            ElementKind::SelectFrom {
                slot,
                label,
                scan,
                show,
                ..
            } => {
                texts.push(label);
                texts.push(show);
                exprs.extend(scan.filter.as_deref());
                fields.push((e.id, *slot));
            }
            ElementKind::Section { label, body } => {
                texts.push(label);
                page_locals(body, read, fields);
            }
            ElementKind::For(f) => {
                match &f.source {
                    ir::LoopSource::Rows(scan) => exprs.extend(scan.filter.as_deref()),
                    ir::LoopSource::List { items, filter, .. } => {
                        exprs.extend(items.iter());
                        exprs.extend(filter.as_deref());
                    }
                }
                exprs.extend(f.order.iter().map(|(k, _)| k));
                exprs.extend(f.limit.iter());
                exprs.extend(f.offset.iter());
                page_locals(&f.body, read, fields);
            }
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                exprs.push(cond);
                page_locals(then, read, fields);
                page_locals(otherwise, read, fields);
            }
        }
        for x in exprs {
            note(x, read);
        }
        for t in texts {
            ir::for_each_interpolation(t, &mut |x| note(x, read));
        }
    }
}
