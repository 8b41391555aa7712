//! A read-only visitor over the syntax tree, in the style of `syn::visit`: the
//! one place that knows how to recurse from a declaration down to its
//! statements, elements, texts and expressions. [`Visit`] has one `visit_*`
//! method per kind of node an analysis may care about; each defaults to the
//! `walk_*` function of the same name, which visits the node's children in
//! source order. An analysis overrides only the methods where it does
//! something, calls the `walk_*` function to go on into the children, and
//! leaves the call out where it must not descend.
//!
//! Binders are visited before the parts that see them (`exists x in T where
//! c: body` visits `x`, then `c`, then `body`), so an analysis that tracks
//! scopes meets each declaration before its uses.

use super::ast::*;

/// One method per kind of node; see the module documentation.
pub trait Visit<'ast> {
    fn visit_decl(&mut self, decl: &'ast Decl) {
        walk_decl(self, decl);
    }

    fn visit_site(&mut self, site: &'ast SiteDecl) {
        walk_site(self, site);
    }

    fn visit_seed(&mut self, seed: &'ast SeedDecl) {
        walk_seed(self, seed);
    }

    fn visit_session_var(&mut self, var: &'ast SessionVar) {
        walk_session_var(self, var);
    }

    fn visit_page(&mut self, page: &'ast PageDecl) {
        walk_page(self, page);
    }

    fn visit_marker(&mut self, marker: &'ast MarkerDecl) {
        walk_marker(self, marker);
    }

    fn visit_task(&mut self, task: &'ast TaskDecl) {
        walk_task(self, task);
    }

    fn visit_task_template(&mut self, template: &'ast TaskTemplate) {
        walk_task_template(self, template);
    }

    /// A block of elements: a page body, a section, a `for` body or an `if`
    /// branch (each a scope of its own).
    fn visit_elements(&mut self, block: &'ast [Element]) {
        walk_elements(self, block);
    }

    fn visit_element(&mut self, element: &'ast Element) {
        walk_element(self, element);
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        walk_stmt(self, stmt);
    }

    /// `name: value` of a seed row or an `insert` into `table`.
    fn visit_field_init(&mut self, table: &'ast Ident, field: &'ast FieldInit) {
        walk_field_init(self, table, field);
    }

    /// A page or marker with its arguments: a link's or button's target, `go`,
    /// a guard's `else`, a start page, a task key, `visited`, `page is`.
    fn visit_page_ref(&mut self, target: &'ast PageRef) {
        walk_page_ref(self, target);
    }

    fn visit_text(&mut self, text: &'ast TextLit) {
        walk_text(self, text);
    }

    /// The expression of one `{...}` in a text: what gets rendered.
    fn visit_interpolation(&mut self, expr: &'ast Expr) {
        self.visit_expr(expr);
    }

    fn visit_expr(&mut self, expr: &'ast Expr) {
        walk_expr(self, expr);
    }

    /// `binder` ranging over the rows of `table` (`for x in T`, `exists x in
    /// T`, `delete all x in T`, ...), visited before anything that sees it.
    fn visit_row_binder(&mut self, _binder: &'ast Ident, table: &'ast Ident) {
        self.visit_table_ref(table);
    }

    /// `binder` ranging over the items of a written list (`for x in ["a", "b"]`),
    /// visited after the items and before anything that sees it.
    fn visit_list_binder(&mut self, _binder: &'ast Ident) {}

    /// A table named where rows are inserted, counted, seeded or bound.
    fn visit_table_ref(&mut self, _table: &'ast Ident) {}
}

pub fn walk_decl<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, decl: &'ast Decl) {
    match &decl.kind {
        DeclKind::Use(u) => u.bindings.iter().for_each(|(_, t)| v.visit_table_ref(t)),
        DeclKind::Site(s) => v.visit_site(s),
        DeclKind::Enum(_) | DeclKind::Table(_) => {}
        DeclKind::Seed(s) => v.visit_seed(s),
        DeclKind::Session(s) => s.vars.iter().for_each(|var| v.visit_session_var(var)),
        DeclKind::Invariant(i) => v.visit_expr(&i.cond),
        DeclKind::Page(p) => v.visit_page(p),
        DeclKind::Marker(m) => v.visit_marker(m),
        DeclKind::Task(t) => v.visit_task(t),
    }
}

pub fn walk_site<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, site: &'ast SiteDecl) {
    if let Some(title) = &site.title {
        v.visit_text(title);
    }
    if let Some(start) = &site.start {
        v.visit_page_ref(start);
    }
    visit_opt(v, site.today.as_ref());
}

pub fn walk_seed<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, seed: &'ast SeedDecl) {
    v.visit_table_ref(&seed.table);
    for field in seed.rows.iter().flat_map(|row| &row.fields) {
        v.visit_field_init(&seed.table, field);
    }
}

pub fn walk_session_var<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, var: &'ast SessionVar) {
    v.visit_expr(&var.init);
}

pub fn walk_page<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, page: &'ast PageDecl) {
    if let Some(route) = &page.route {
        v.visit_text(route);
    }
    for guard in &page.guards {
        v.visit_expr(&guard.cond);
        v.visit_page_ref(&guard.target);
    }
    page.titles.iter().for_each(|title| v.visit_text(title));
    v.visit_elements(&page.body);
}

pub fn walk_marker<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, marker: &'ast MarkerDecl) {
    for requires in &marker.requires {
        v.visit_expr(&requires.cond);
        if let Some(message) = &requires.message {
            v.visit_text(message);
        }
    }
    visit_stmts(v, &marker.body);
}

/// The template, then what the task evaluates after `setup` (see
/// [`walk_task_after_setup`]), then `setup` itself.
pub fn walk_task<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, task: &'ast TaskDecl) {
    if let Some(template) = &task.template {
        v.visit_task_template(template);
    }
    walk_task_after_setup(v, task);
    if let Some(setup) = &task.setup {
        visit_stmts(v, setup);
    }
}

pub fn walk_task_template<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, template: &'ast TaskTemplate) {
    v.visit_row_binder(&template.binder, &template.table);
    visit_opt(v, template.filter.as_ref());
    visit_opt(v, template.limit.as_ref());
}

/// What a task evaluates in its initial state, after `setup` (spec §2.4): the
/// instruction, start page, goal, answer, progress, key pages and values.
pub fn walk_task_after_setup<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, task: &'ast TaskDecl) {
    if let Some(say) = &task.say {
        v.visit_text(say);
    }
    if let Some(start) = &task.start {
        v.visit_page_ref(start);
    }
    visit_opt(v, task.goal.as_ref());
    visit_opt(v, task.answer.as_ref());
    task.progress.iter().for_each(|p| v.visit_expr(&p.pred));
    for node in task.key.iter().flatten() {
        if let KeyNode::Page(target) = node {
            v.visit_page_ref(target);
        }
    }
    task.values.iter().for_each(|value| v.visit_text(value));
}

pub fn walk_elements<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, block: &'ast [Element]) {
    block.iter().for_each(|element| v.visit_element(element));
}

pub fn walk_element<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, element: &'ast Element) {
    match &element.kind {
        ElementKind::Heading(text) | ElementKind::Text(text) | ElementKind::Image(text) => {
            v.visit_text(text)
        }
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
            v.visit_text(label);
            v.visit_page_ref(target);
            visit_opt(v, disabled.as_ref());
        }
        ElementKind::Input { label, .. } | ElementKind::Checkbox { label, .. } => {
            v.visit_text(label)
        }
        ElementKind::SelectList { label, options, .. } => {
            v.visit_text(label);
            options.iter().for_each(|option| v.visit_expr(option));
        }
        ElementKind::SelectFrom {
            label,
            binder,
            table,
            filter,
            show,
            ..
        } => {
            v.visit_text(label);
            v.visit_row_binder(binder, table);
            visit_opt(v, filter.as_ref());
            v.visit_expr(show);
        }
        ElementKind::Section { label, body } => {
            v.visit_text(label);
            v.visit_elements(body);
        }
        ElementKind::For(f) => walk_for_element(v, f),
        ElementKind::If {
            cond,
            then,
            otherwise,
        } => {
            v.visit_expr(cond);
            v.visit_elements(then);
            v.visit_elements(otherwise);
        }
        ElementKind::Let { value, .. } => v.visit_expr(value),
        ElementKind::Stmt(stmt) => v.visit_stmt(stmt),
    }
}

fn walk_for_element<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, f: &'ast ForElement) {
    match &f.source {
        LoopSource::Table(table) => v.visit_row_binder(&f.binder, table),
        LoopSource::List(items, _) => {
            items.iter().for_each(|item| v.visit_expr(item));
            v.visit_list_binder(&f.binder);
        }
    }
    visit_opt(v, f.filter.as_ref());
    visit_opt(v, f.order.as_ref().map(|order| &order.key));
    visit_opt(v, f.limit.as_ref());
    visit_opt(v, f.offset.as_ref());
    v.visit_elements(&f.body);
}

pub fn walk_stmt<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, stmt: &'ast Stmt) {
    match &stmt.kind {
        StmtKind::Let { value, .. } => v.visit_expr(value),
        StmtKind::Insert { table, fields, .. } => {
            v.visit_table_ref(table);
            fields
                .iter()
                .for_each(|field| v.visit_field_init(table, field));
        }
        StmtKind::Set { target, value } => {
            v.visit_expr(target);
            v.visit_expr(value);
        }
        StmtKind::Delete(row) => v.visit_expr(row),
        StmtKind::DeleteAll {
            binder,
            table,
            filter,
        } => {
            v.visit_row_binder(binder, table);
            visit_opt(v, filter.as_ref());
        }
        StmtKind::For {
            binder,
            table,
            filter,
            body,
        } => {
            v.visit_row_binder(binder, table);
            visit_opt(v, filter.as_ref());
            visit_stmts(v, body);
        }
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            v.visit_expr(cond);
            visit_stmts(v, then);
            visit_stmts(v, otherwise);
        }
        StmtKind::Reject(message) => v.visit_text(message),
        StmtKind::Go(target) => v.visit_page_ref(target),
    }
}

pub fn walk_field_init<'ast, V: Visit<'ast> + ?Sized>(
    v: &mut V,
    _table: &'ast Ident,
    field: &'ast FieldInit,
) {
    v.visit_expr(&field.value);
}

pub fn walk_page_ref<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, target: &'ast PageRef) {
    target.args.iter().for_each(|arg| v.visit_expr(arg));
}

pub fn walk_text<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, text: &'ast TextLit) {
    text.interpolations()
        .for_each(|expr| v.visit_interpolation(expr));
}

pub fn walk_expr<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, expr: &'ast Expr) {
    match &expr.kind {
        ExprKind::Field(base, _) | ExprKind::Unary(_, base) => v.visit_expr(base),
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::In(a, b) => {
            v.visit_expr(a);
            v.visit_expr(b);
        }
        ExprKind::Call(_, items) | ExprKind::List(items) => {
            items.iter().for_each(|item| v.visit_expr(item))
        }
        ExprKind::Text(text) => v.visit_text(text),
        ExprKind::Quantifier {
            binder,
            table,
            filter,
            body,
            ..
        } => {
            v.visit_row_binder(binder, table);
            visit_opt(v, filter.as_deref());
            v.visit_expr(body);
        }
        ExprKind::Count {
            binder,
            table,
            filter,
        } => {
            match binder {
                Some(binder) => v.visit_row_binder(binder, table),
                None => v.visit_table_ref(table),
            }
            visit_opt(v, filter.as_deref());
        }
        ExprKind::Aggregate {
            value,
            binder,
            table,
            filter,
            ..
        } => {
            v.visit_row_binder(binder, table);
            v.visit_expr(value);
            visit_opt(v, filter.as_deref());
        }
        ExprKind::Find {
            binder,
            table,
            filter,
        } => {
            v.visit_row_binder(binder, table);
            visit_opt(v, filter.as_deref());
        }
        ExprKind::Visited(target) | ExprKind::PageIs(target) => v.visit_page_ref(target),
        ExprKind::Int(_)
        | ExprKind::Money(_)
        | ExprKind::Bool(_)
        | ExprKind::Date(_)
        | ExprKind::Time(_)
        | ExprKind::None
        | ExprKind::Name(_)
        | ExprKind::Error => {}
    }
}

/// Calls `f` on every element of `block` and of the blocks nested in it
/// (sections, `for` bodies, `if` branches) in document order, each element
/// before the ones inside it.
pub fn for_each_element<'ast>(block: &'ast [Element], f: impl FnMut(&'ast Element)) {
    struct Elements<F>(F);
    impl<'ast, F: FnMut(&'ast Element)> Visit<'ast> for Elements<F> {
        fn visit_element(&mut self, element: &'ast Element) {
            (self.0)(element);
            walk_element(self, element);
        }
        // Elements nest only in blocks: nothing below a text, an expression
        // or a statement can hold one.
        fn visit_text(&mut self, _: &'ast TextLit) {}
        fn visit_expr(&mut self, _: &'ast Expr) {}
        fn visit_stmt(&mut self, _: &'ast Stmt) {}
    }
    Elements(f).visit_elements(block);
}

fn visit_stmts<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, block: &'ast [Stmt]) {
    block.iter().for_each(|stmt| v.visit_stmt(stmt));
}

fn visit_opt<'ast, V: Visit<'ast> + ?Sized>(v: &mut V, expr: Option<&'ast Expr>) {
    if let Some(expr) = expr {
        v.visit_expr(expr);
    }
}
