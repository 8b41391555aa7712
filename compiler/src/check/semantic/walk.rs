//! The walk the semantic lints share: every text literal and every expression
//! node of a declaration (or of one part of a task), in source order.

use crate::syntax::ast::*;
use crate::syntax::visit::{self, Visit};

/// Collects every [`TextLit`] and every [`Expr`] node (nested ones included) of
/// what it visits, in source order.
#[derive(Default)]
pub(super) struct Walk<'a> {
    pub texts: Vec<&'a TextLit>,
    pub exprs: Vec<&'a Expr>,
}

impl<'a> Walk<'a> {
    /// What runs on the seed, before `setup`: the template's `where` and `limit`.
    pub(super) fn task_template(&mut self, t: &'a TaskDecl) {
        if let Some(template) = &t.template {
            self.visit_task_template(template);
        }
    }

    /// What runs in the task's initial state, after `setup` (spec §2.4).
    pub(super) fn task_after_setup(&mut self, t: &'a TaskDecl) {
        visit::walk_task_after_setup(self, t);
    }
}

impl<'a> Visit<'a> for Walk<'a> {
    fn visit_text(&mut self, t: &'a TextLit) {
        self.texts.push(t);
        visit::walk_text(self, t);
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        self.exprs.push(e);
        visit::walk_expr(self, e);
    }
}
