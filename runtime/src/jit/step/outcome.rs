//! What a step evaluates after it acts: whether the goal holds and Ψ
//! (`env::reward`), each only when the step can have changed it
//! (`depends`), and the page a refused step keeps. `step` and `probe`
//! share these.

use super::*;

impl FlatEnv<'_> {
    /// After a rejected step that did not end the episode: a rejection
    /// changes nothing past the header, which no render reads, so the page,
    /// its candidates and answers stand as rendered. A debug build renders
    /// the page again and demands the same structure.
    pub(super) fn keep_render(&mut self, pool: &mut TextPool) -> R<()> {
        if cfg!(debug_assertions) {
            self.check_kept(pool, "a rejected step changed the page it was taken on")?;
        }
        Ok(())
    }

    /// Renders the current page again and demands the structure it stands
    /// with (an `Err` saying `differs` otherwise): how a debug build checks
    /// a page that was kept rather than rendered.
    pub(super) fn check_kept(&mut self, pool: &mut TextPool, differs: &'static str) -> R<()> {
        let mut again = std::mem::take(&mut self.rendered_again);
        again.clear();
        again.set_mode(self.structure.mode());
        let page = self.page()?;
        let rendered = self
            .site
            .render_structure(page, &self.state, pool, &mut again);
        let same = again == self.structure;
        self.rendered_again = again;
        rendered?;
        if !same {
            return Err(FlatError::Unfaithful(differs));
        }
        Ok(())
    }

    /// Ψ of the current state, as `env::reward::potential` computes it.
    pub(super) fn potential(&self, pool: &mut TextPool) -> R<f64> {
        let total: i64 = self
            .task
            .progress
            .iter()
            .map(|(w, _)| *w)
            .fold(0, i64::saturating_add);
        if total == 0 {
            return Ok(0.0);
        }
        let mut got: i64 = 0;
        for (i, (w, _)) in self.task.progress.iter().enumerate() {
            let Some(pred) = self.site.progress(self.start.task_index, i) else {
                return Err(FlatError::Fault(JitFault::NotCompiled));
            };
            if self.holds(pred, pool)? {
                got = got.saturating_add(*w);
            }
        }
        Ok(got as f64 / total as f64)
    }

    /// A predicate's truth, a fault counting as false.
    pub(super) fn holds(&self, pred: &crate::jit::JitPredicate, pool: &mut TextPool) -> R<bool> {
        match pred.eval(&self.state, &self.start.frame, pool) {
            Ok(b) => Ok(b),
            Err(JitFault::Fault(_)) => Ok(false),
            Err(other) => Err(FlatError::Fault(other)),
        }
    }

    /// Before a step or probe: whether the goal holds in the current state,
    /// where the step cannot need it evaluated after (`depends`): known, or
    /// evaluated now. `None` when the goal asks about navigation.
    pub(super) fn goal_before(&mut self, pool: &mut TextPool) -> R<Option<bool>> {
        if self.probed {
            // A successor not put back: its bytes are not the state known.
            self.goal_now = None;
            self.probed = false;
        }
        if !self.start.goal_depends.ignores_navigation() {
            return Ok(None);
        }
        if self.goal_now.is_none() {
            self.goal_now = Some(self.goal_holds(pool)?);
        }
        Ok(self.goal_now)
    }

    /// After an action: whether the goal holds, evaluated only when the
    /// action may have changed it from `before` (`goal_before`'s).
    pub(super) fn goal_after(&self, before: Option<bool>, pool: &mut TextPool) -> R<bool> {
        match before {
            Some(b) if !self.start.goal_depends.changed_by(self.committed) => Ok(b),
            _ => self.goal_holds(pool),
        }
    }

    pub(super) fn goal_holds(&self, pool: &mut TextPool) -> R<bool> {
        if self.task.goal.is_none() {
            return Ok(false);
        }
        let Some(pred) = self.site.goal(self.start.task_index) else {
            return Err(FlatError::Fault(JitFault::NotCompiled));
        };
        self.holds(pred, pool)
    }
}
