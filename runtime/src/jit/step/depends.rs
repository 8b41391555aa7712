//! Which steps can change a task predicate's value, so that a step that
//! cannot is not made to evaluate it again.
//!
//! A goal or progress predicate is a function of the database, the session,
//! the navigation (`visited`, `page is`) and the task's frame, which is
//! constant over an episode. Markers are the only writers of the database
//! and the session (§5.3), so a predicate that asks nothing about navigation
//! keeps its value over every step except a committed marker whose writes
//! touch what the predicate reads — the reads analysis (`ir::reads`) and
//! the rule (`touches`) the gate uses to skip invariants a commit cannot
//! affect and the prover uses for its cone. An extern marker's writes come
//! from outside, so it is taken to touch everything.

use crate::ir::reads::{expr_reads, marker_effects, touches, Locs};
use crate::ir::{self, Expr, MarkerId};

/// What can change the value of some task predicates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Depends {
    /// One of them asks about navigation: every step may change it.
    navigation: bool,
    /// By marker: its commit may change one of them.
    markers: Vec<bool>,
}

/// What can change a task's goal, and what its progress predicates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TaskDepends {
    pub goal: Depends,
    pub progress: Depends,
}

impl TaskDepends {
    /// Every task's, in program order: a property of the program, which
    /// the site keeps, rather than of an instance (each marker's effects
    /// are found once, not once per instance prepared).
    pub fn of_program(program: &ir::Program) -> Vec<TaskDepends> {
        let writes: Vec<Option<Locs>> = (program.markers.iter())
            .map(|m| (!m.is_extern).then(|| marker_effects(program, m).writes))
            .collect();
        (program.tasks.iter())
            .map(|task| TaskDepends {
                goal: Depends::of(program, task.goal.iter(), &writes),
                progress: Depends::of(program, task.progress.iter().map(|(_, p)| p), &writes),
            })
            .collect()
    }
}

impl Depends {
    /// The dependence of `exprs` (all of them, taken together), given each
    /// marker's writes (`None`: an extern marker, taken to touch all).
    fn of<'e>(
        program: &ir::Program,
        exprs: impl IntoIterator<Item = &'e Expr>,
        writes: &[Option<Locs>],
    ) -> Depends {
        let mut reads = Locs::new();
        let mut navigation = false;
        for e in exprs {
            expr_reads(program, e, &mut reads);
            navigation |= e.reads_navigation();
        }
        let markers = (writes.iter())
            .map(|w| w.as_ref().is_none_or(|w| touches(w, &reads)))
            .collect();
        Depends {
            navigation,
            markers,
        }
    }

    /// Whether a step that committed `committed` (`None`: no marker, or one
    /// that was refused and changed nothing) may change the value.
    pub fn changed_by(&self, committed: Option<MarkerId>) -> bool {
        self.navigation
            || committed.is_some_and(|m| {
                usize::try_from(m)
                    .ok()
                    .and_then(|m| self.markers.get(m))
                    .copied()
                    .unwrap_or(true)
            })
    }

    /// Whether only navigation-free values are involved, so that a known
    /// value before a step can stand for the value after it.
    pub fn ignores_navigation(&self) -> bool {
        !self.navigation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_marker_counts_as_touching() {
        let d = Depends {
            navigation: false,
            markers: vec![false, true],
        };
        assert!(!d.changed_by(None));
        assert!(!d.changed_by(Some(0)));
        assert!(d.changed_by(Some(1)));
        assert!(d.changed_by(Some(7)));
        let nav = Depends {
            navigation: true,
            markers: vec![false],
        };
        assert!(nav.changed_by(None));
    }
}
