//! Page elements (spec §2.2): their texts, targets and conditions, the form
//! variables `input`, `select` and `checkbox` declare, and page `let`s (§3, 1.1).
//!
//! A form variable or a page `let` is visible to every expression after its
//! declaration in the same block and the blocks nested in it, so elements are
//! walked in document order (the checker implements [`Visit`] for them) and each
//! declaration is bound in the innermost scope as it is met. Each `section`,
//! `for` body and `if` branch is a block of its own, opened in
//! `visit_elements`. Types follow DECISIONS 10. The element walks that only
//! collect (`#name`s, form variables) are here too.

use super::{Checker, Local, LocalKind, Ty};
use crate::check::statements;
use crate::diagnostics::{Code, Diagnostic};
use crate::syntax::ast::*;
use crate::syntax::visit::{self, for_each_element, Visit};

impl<'a> Visit<'a> for Checker<'a, '_> {
    /// A block of elements, in a scope of its own.
    fn visit_elements(&mut self, block: &'a [Element]) {
        self.scoped(Vec::new(), |c| visit::walk_elements(c, block));
    }

    /// Each element's parts against what the element expects of them; only
    /// the elements that expect nothing but texts and blocks take the default
    /// walk.
    fn visit_element(&mut self, el: &'a Element) {
        match &el.kind {
            ElementKind::Heading(_)
            | ElementKind::Text(_)
            | ElementKind::Image(_)
            | ElementKind::Section { .. } => visit::walk_element(self, el),
            ElementKind::Link {
                label,
                target,
                disabled,
            } => {
                self.text(label);
                self.page_ref(target);
                self.disabled(disabled.as_ref());
            }
            ElementKind::Button {
                label,
                target,
                disabled,
            } => {
                self.text(label);
                self.button_target(target);
                self.disabled(disabled.as_ref());
            }
            ElementKind::Input { var, ty, label } => {
                self.text(label);
                let t = self.input_type(ty.as_ref());
                self.declare_form(var, t);
            }
            ElementKind::SelectList {
                var,
                ty,
                label,
                options,
            } => {
                self.text(label);
                let t = self.list_select_options(ty.as_ref(), options);
                self.declare_form(var, t);
            }
            ElementKind::SelectFrom {
                var,
                ty,
                label,
                binder,
                table,
                filter,
                show,
            } => {
                self.text(label);
                let t = self.select_from(var, ty, binder, table, filter.as_ref(), show);
                self.declare_form(var, t);
            }
            ElementKind::Checkbox { var, label } => {
                self.text(label);
                self.declare_form(var, Ty::Bool);
            }
            ElementKind::For(f) => self.for_element(f),
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.cond_then(cond, "an `if` condition", |c| c.visit_elements(then));
                self.visit_elements(otherwise);
            }
            ElementKind::Let { var, value } => {
                // Visible to the rest of this block and the blocks nested in it.
                let t = self.infer(value, None);
                self.bind(Local::new(var, t, LocalKind::Let));
            }
            ElementKind::Stmt(s) => self.page_stmt(s),
        }
    }

    fn visit_text(&mut self, t: &'a TextLit) {
        self.text(t);
    }

    /// An expression the default walk reaches expects nothing: it is inferred
    /// on its own rather than skipped.
    fn visit_expr(&mut self, e: &'a Expr) {
        self.infer(e, None);
    }
}

impl<'a> Checker<'a, '_> {
    /// The options of `select x "label" [...]`, and the type they give `x`.
    /// Options of a typed list select (`select s: Status "S" [open, closed]`)
    /// have its type; an untyped one holds text.
    fn list_select_options(&mut self, ty: Option<&'a TypeExpr>, options: &'a [Expr]) -> Ty {
        let t = match ty {
            Some(te) => self.list_select_type(te),
            None => Ty::Text,
        };
        for option in options {
            self.expect(option, &t, "a select option");
        }
        t
    }

    fn disabled(&mut self, cond: Option<&'a Expr>) {
        if let Some(c) = cond {
            self.cond(c, "a `disabled when` condition");
        }
    }

    /// Binds a form variable; a second one of the same name in the same block is E102.
    fn declare_form(&mut self, var: &'a Ident, ty: Ty) {
        let first = self.scopes.last().and_then(|s| {
            s.iter()
                .find(|l| l.name == var.name && l.kind == LocalKind::Form)
        });
        if let Some(first) = first {
            let first = first.span;
            self.report(
                Diagnostic::new(
                    Code::E102,
                    var.span,
                    format!("duplicate form variable `{}`", var.name),
                )
                .label("declared again here")
                .related(first, "first declared here")
                .help("give each input, select and checkbox of a block its own name"),
            );
        }
        self.bind(Local::new(var, ty, LocalKind::Form));
    }

    /// The variable type of `input x: T` (DECISIONS 10).
    fn input_type(&mut self, ty: Option<&'a TypeExpr>) -> Ty {
        let Some(te) = ty else { return Ty::Text };
        let t = match te.name.name.as_str() {
            "Text" if !te.optional => Ty::Text,
            "Int" if !te.optional => Ty::Int,
            "Money" if !te.optional => Ty::Money,
            // Date and time inputs start empty, so their variables are optional.
            "Date" => Ty::Date.optional(),
            "Time" => Ty::Time.optional(),
            _ => {
                if !self.decl_type(te).is_error() {
                    self.report(
                        Diagnostic::new(Code::E201, te.name.span, format!("`{}` is not an input type", te.name.name))
                            .label("inputs hold `Text`, `Int`, `Money`, `Date` or `Time`")
                            .help("use a `checkbox` for a `Bool`, and `select x: T \"...\" from r in T show r.name` for a row"),
                    );
                }
                Ty::Error
            }
        };
        t
    }

    /// The type of a typed list select: any non-optional value type (a select
    /// always has a current option, so its variable is never `none`).
    fn list_select_type(&mut self, te: &'a TypeExpr) -> Ty {
        let t = self.decl_type(te);
        if te.optional && !t.is_error() {
            self.report(
                Diagnostic::new(
                    Code::E201,
                    te.span,
                    format!("a select cannot hold `{}?`", te.name.name),
                )
                .label("a select always has one of its options chosen")
                .help(format!("write `{}` without `?`", te.name.name)),
            );
        }
        if te.optional {
            Ty::Error
        } else {
            t
        }
    }

    /// `select x: T "label" from r in T where c show e`: the variable is a `T` row.
    fn select_from(
        &mut self,
        var: &'a Ident,
        ty: &'a TypeExpr,
        binder: &'a Ident,
        table: &'a Ident,
        filter: Option<&'a Expr>,
        show: &'a Expr,
    ) -> Ty {
        if let Some(e) = self.syms.enums.get(table.name.as_str()) {
            // Options come from table rows only; an enum's are listed instead.
            let variants: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
            self.report(
                Diagnostic::new(
                    Code::E101,
                    table.span,
                    format!("unknown table `{}`", table.name),
                )
                .label("an enum, not a table")
                .help(format!(
                    "a select over an enum lists its variants: `select {}: {} \"...\" [{}]`",
                    var.name,
                    table.name,
                    variants.join(", ")
                )),
            );
            return Ty::Error;
        }
        let declared = self.decl_type(ty);
        let row = self.with_row_binder(binder, table, |c| {
            c.filter_then(filter, |c| c.infer(show, None));
            c.lookup(&binder.name)
                .map(|l| l.ty.clone())
                .unwrap_or(Ty::Error)
        });
        if !declared.is_error() && !row.is_error() && declared != row {
            self.report(
                Diagnostic::new(
                    Code::E201,
                    ty.name.span,
                    format!(
                        "select `{}` is declared `{declared}`, but its options are `{row}` rows",
                        var.name
                    ),
                )
                .label(format!("expected `{row}`"))
                .help(format!("write `select {}: {row} ...`", var.name)),
            );
        }
        row
    }

    fn for_element(&mut self, f: &'a ForElement) {
        let item = match &f.source {
            LoopSource::Table(table) => self.table_ty(table),
            LoopSource::List(items, _) => match self.list(items, None) {
                Ty::List(item) => *item,
                _ => Ty::Error,
            },
        };
        if let Some(limit) = &f.limit {
            self.expect(limit, &Ty::Int, "`limit`");
        }
        if let Some(offset) = &f.offset {
            self.expect(offset, &Ty::Int, "`offset`");
        }
        self.scoped(vec![Local::new(&f.binder, item, LocalKind::Binder)], |c| {
            c.filter(f.filter.as_ref());
            if let Some(order) = &f.order {
                c.order_key(&order.key);
            }
            let paths = f
                .filter
                .as_ref()
                .map(|cond| c.narrowed_paths(cond))
                .unwrap_or_default();
            c.narrowing(paths, |c| c.visit_elements(&f.body));
        });
    }

    fn order_key(&mut self, key: &'a Expr) {
        let t = self.infer(key, None);
        if !t.is_error() && !t.is_ordered() {
            self.bad_operator(
                key.span,
                format!("cannot order by `{t}`"),
                "order by an `Int`, `Money`, `Date`, `Time` or `Text` value",
            );
        }
    }

    /// A statement among page elements. A writing one is the effect pass's E303;
    /// any other kind is not a page element at all (E001, as the parser would say
    /// for any other misplaced keyword). `go` reports itself (markers only).
    fn page_stmt(&mut self, s: &'a Stmt) {
        if !statements::writes_state(s) && !matches!(s.kind, StmtKind::Go(_)) {
            self.report(
                Diagnostic::new(
                    Code::E001,
                    statements::stmt_span(s),
                    format!("`{}` is not a page element", stmt_word(&s.kind)),
                )
                .label("statement among page elements")
                .help("statements belong in a marker body or a task's `setup`"),
            );
        }
        let saved = self.ctx.place;
        self.ctx.place = super::Place::Page;
        self.stmt(s);
        self.ctx.place = saved;
    }
}

/// The keyword that starts a statement, for messages.
fn stmt_word(kind: &StmtKind) -> &'static str {
    match kind {
        StmtKind::Let { .. } => "let",
        StmtKind::Insert { .. } => "insert",
        StmtKind::Set { .. } => "set",
        StmtKind::Delete(_) | StmtKind::DeleteAll { .. } => "delete",
        StmtKind::For { .. } => "for",
        StmtKind::If { .. } => "if",
        StmtKind::Reject(_) => "reject",
        StmtKind::Go(_) => "go",
    }
}

/// The `#name`s of `block` and of everything nested in it, in document order.
pub(super) fn element_names(block: &[Element]) -> Vec<&Ident> {
    let mut names = Vec::new();
    for_each_element(block, |el| names.extend(&el.name));
    names
}

/// The variables that the `input`, `select` and `checkbox` elements of `block`
/// (nested ones included) declare, in document order.
pub(super) fn form_vars(block: &[Element]) -> Vec<&Ident> {
    let mut vars = Vec::new();
    for_each_element(block, |el| match &el.kind {
        ElementKind::Input { var, .. }
        | ElementKind::SelectList { var, .. }
        | ElementKind::SelectFrom { var, .. }
        | ElementKind::Checkbox { var, .. } => vars.push(var),
        _ => {}
    });
    vars
}
