//! The walk the semantic lints share: every text literal and every expression
//! node of a declaration (or of one part of a task), in source order.

use crate::syntax::ast::*;

/// Collects every [`TextLit`] and every [`Expr`] node (nested ones included) of
/// the declarations it is shown, in source order.
#[derive(Default)]
pub(super) struct Walk<'a> {
    pub texts: Vec<&'a TextLit>,
    pub exprs: Vec<&'a Expr>,
}

impl<'a> Walk<'a> {
    pub(super) fn decl(&mut self, decl: &'a Decl) {
        match &decl.kind {
            DeclKind::Use(_) | DeclKind::Enum(_) | DeclKind::Table(_) => {}
            DeclKind::Site(s) => {
                self.opt_text(s.title.as_ref());
                self.page_ref_opt(s.start.as_ref());
                self.opt_expr(s.today.as_ref());
            }
            DeclKind::Seed(s) => s
                .rows
                .iter()
                .flat_map(|r| &r.fields)
                .for_each(|f| self.expr(&f.value)),
            DeclKind::Session(s) => s.vars.iter().for_each(|v| self.expr(&v.init)),
            DeclKind::Invariant(i) => self.expr(&i.cond),
            DeclKind::Page(p) => self.page(p),
            DeclKind::Marker(m) => self.marker(m),
            DeclKind::Task(t) => self.task(t),
        }
    }

    fn page(&mut self, p: &'a PageDecl) {
        self.opt_text(p.route.as_ref());
        for guard in &p.guards {
            self.expr(&guard.cond);
            self.page_ref(&guard.target);
        }
        p.titles.iter().for_each(|t| self.text(t));
        self.elements(&p.body);
    }

    fn marker(&mut self, m: &'a MarkerDecl) {
        for r in &m.requires {
            self.expr(&r.cond);
            self.opt_text(r.message.as_ref());
        }
        self.stmts(&m.body);
    }

    fn task(&mut self, t: &'a TaskDecl) {
        self.task_template(t);
        self.task_after_setup(t);
        if let Some(setup) = &t.setup {
            self.stmts(setup);
        }
    }

    /// What runs on the seed, before `setup`: the template's `where` and `limit`.
    pub(super) fn task_template(&mut self, t: &'a TaskDecl) {
        if let Some(tpl) = &t.template {
            self.opt_expr(tpl.filter.as_ref());
            self.opt_expr(tpl.limit.as_ref());
        }
    }

    /// What runs in the task's initial state, after `setup` (spec §2.4): the
    /// instruction, start page, goal, answer, progress, key nodes and values.
    pub(super) fn task_after_setup(&mut self, t: &'a TaskDecl) {
        self.opt_text(t.say.as_ref());
        self.page_ref_opt(t.start.as_ref());
        self.opt_expr(t.goal.as_ref());
        self.opt_expr(t.answer.as_ref());
        t.progress.iter().for_each(|p| self.expr(&p.pred));
        for node in t.key.iter().flatten() {
            if let KeyNode::Page(r) = node {
                self.page_ref(r);
            }
        }
        t.values.iter().for_each(|v| self.text(v));
    }

    fn elements(&mut self, body: &'a [Element]) {
        body.iter().for_each(|e| self.element(e));
    }

    fn element(&mut self, e: &'a Element) {
        match &e.kind {
            ElementKind::Heading(t) | ElementKind::Text(t) | ElementKind::Image(t) => self.text(t),
            ElementKind::Link {
                label,
                target,
                disabled,
            }
            | ElementKind::Button {
                label,
                target,
                disabled,
            } => {
                self.text(label);
                self.page_ref(target);
                self.opt_expr(disabled.as_ref());
            }
            ElementKind::Input { label, .. } | ElementKind::Checkbox { label, .. } => {
                self.text(label)
            }
            ElementKind::SelectList { label, options, .. } => {
                self.text(label);
                options.iter().for_each(|o| self.expr(o));
            }
            ElementKind::SelectFrom {
                label,
                filter,
                show,
                ..
            } => {
                self.text(label);
                self.opt_expr(filter.as_ref());
                self.expr(show);
            }
            ElementKind::Section { label, body } => {
                self.text(label);
                self.elements(body);
            }
            ElementKind::For(f) => self.for_element(f),
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.elements(then);
                self.elements(otherwise);
            }
            ElementKind::Let { value, .. } => self.expr(value),
            ElementKind::Stmt(s) => self.stmt(s),
        }
    }

    fn for_element(&mut self, f: &'a ForElement) {
        if let LoopSource::List(items, _) = &f.source {
            items.iter().for_each(|i| self.expr(i));
        }
        self.opt_expr(f.filter.as_ref());
        self.opt_expr(f.order.as_ref().map(|o| &o.key));
        self.opt_expr(f.limit.as_ref());
        self.opt_expr(f.offset.as_ref());
        self.elements(&f.body);
    }

    fn stmts(&mut self, body: &'a [Stmt]) {
        body.iter().for_each(|s| self.stmt(s));
    }

    pub(super) fn stmt(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Let { value, .. } => self.expr(value),
            StmtKind::Insert { fields, .. } => fields.iter().for_each(|f| self.expr(&f.value)),
            StmtKind::Set { target, value } => {
                self.expr(target);
                self.expr(value);
            }
            StmtKind::Delete(e) => self.expr(e),
            StmtKind::DeleteAll { filter, .. } => self.opt_expr(filter.as_ref()),
            StmtKind::For { filter, body, .. } => {
                self.opt_expr(filter.as_ref());
                self.stmts(body);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.stmts(then);
                self.stmts(otherwise);
            }
            StmtKind::Reject(t) => self.text(t),
            StmtKind::Go(r) => self.page_ref(r),
        }
    }

    pub(super) fn page_ref(&mut self, r: &'a PageRef) {
        r.args.iter().for_each(|a| self.expr(a));
    }

    pub(super) fn page_ref_opt(&mut self, r: Option<&'a PageRef>) {
        if let Some(r) = r {
            self.page_ref(r);
        }
    }

    pub(super) fn text(&mut self, t: &'a TextLit) {
        self.texts.push(t);
        t.interpolations().for_each(|e| self.expr(e));
    }

    pub(super) fn opt_text(&mut self, t: Option<&'a TextLit>) {
        if let Some(t) = t {
            self.text(t);
        }
    }

    pub(super) fn opt_expr(&mut self, e: Option<&'a Expr>) {
        if let Some(e) = e {
            self.expr(e);
        }
    }

    pub(super) fn expr(&mut self, e: &'a Expr) {
        self.exprs.push(e);
        if let ExprKind::Text(t) = &e.kind {
            self.texts.push(t);
        }
        e.kind.children().into_iter().for_each(|c| self.expr(c));
    }
}
