//! Statements of marker bodies and task `setup` (spec §2.3): `let`, `insert`,
//! `set` (E205 for what cannot be assigned), `delete`, loops, `if`, `reject`
//! and `go`.
//!
//! `go` rules (reported as E001, the code for a construct where the grammar of
//! the language does not allow it): `go` exists only in a marker body, and a
//! marker runs at most one, so a second `go` on the same path through the body is
//! an error, while `if c { go A } else { go B }` is fine.

use super::{Access, Checker, Local, LocalKind, Place, Resolved, Ty};
use crate::diagnostics::{Code, Diagnostic};
use crate::syntax::ast::*;

/// Whether a row's fields come from a `seed` or an `insert` (the rules differ
/// only for `id` and for constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RowMode {
    Seed,
    Insert,
}

impl<'a> Checker<'a, '_> {
    /// A block of statements, in a scope of its own.
    pub(super) fn stmts(&mut self, stmts: &'a [Stmt]) {
        self.scoped(Vec::new(), |c| {
            for s in stmts {
                c.stmt(s);
            }
        });
    }

    pub(super) fn stmt(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Let { name, value } => {
                let t = self.infer(value, None);
                self.bind(Local::new(name, t, LocalKind::Let));
            }
            StmtKind::Insert {
                name,
                table,
                fields,
            } => {
                let ty = self.table_ty(table);
                let known = (!ty.is_error()).then_some(table.name.as_str());
                self.row_fields(known, fields, table.span, RowMode::Insert);
                if let Some(name) = name {
                    self.bind(Local::new(name, ty, LocalKind::Let));
                }
            }
            StmtKind::Set { target, value } => self.set(target, value),
            StmtKind::Delete(row) => self.delete(row),
            StmtKind::DeleteAll {
                binder,
                table,
                filter,
            } => {
                self.with_row_binder(binder, table, |c| c.filter(filter.as_ref()));
            }
            StmtKind::For {
                binder,
                table,
                filter,
                body,
            } => {
                // A later iteration runs after what the body writes.
                self.forget_sets_in(body);
                self.with_row_binder(binder, table, |c| {
                    c.filter_then(filter.as_ref(), |c| c.stmts(body));
                });
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => self.if_stmt(cond, then, otherwise),
            StmtKind::Reject(message) => self.text(message),
            StmtKind::Go(target) => self.go(crate::check::statements::stmt_span(s), target),
        }
    }

    fn if_stmt(&mut self, cond: &'a Expr, then: &'a [Stmt], otherwise: &'a [Stmt]) {
        // Each branch is its own path for the one-`go` rule.
        let before = self.ctx.go_seen;
        self.cond_then(cond, "an `if` condition", |c| c.stmts(then));
        let after_then = self.ctx.go_seen;
        self.ctx.go_seen = before;
        self.stmts(otherwise);
        self.ctx.go_seen |= after_then;
    }

    fn go(&mut self, span: Span, target: &'a PageRef) {
        let problem = match self.ctx.place {
            Place::Marker if self.ctx.go_seen => Some((
                "a marker runs at most one `go`",
                "keep one `go`, as the last thing the marker does; `if` branches may each have one",
            )),
            Place::Marker => None,
            Place::Setup => Some((
                "`go` is not allowed in a task's `setup`",
                "choose the first page with `start Page`",
            )),
            Place::Page | Place::Other => Some((
                "`go` is only allowed in a marker body",
                "navigate with `link \"...\" -> Page` or `button \"...\" -> Page`",
            )),
        };
        if let Some((message, help)) = problem {
            self.report(
                Diagnostic::new(Code::E001, span, message)
                    .label("`go` here")
                    .help(help),
            );
        }
        self.ctx.go_seen = true;
        self.page_ref(target);
    }

    fn delete(&mut self, row: &'a Expr) {
        let t = self.infer(row, None);
        if !t.is_error() && t.row_table().is_none() {
            self.report(
                Diagnostic::new(Code::E201, row.span, format!("expected a row to delete, found `{t}`"))
                    .label(format!("this is `{t}`"))
                    .help("`delete r` deletes one row; `delete all x in T where ...` deletes the matching rows"),
            );
        }
    }

    /// `set target = value`; what went through the target is no longer
    /// narrowed after it.
    fn set(&mut self, target: &'a Expr, value: &'a Expr) {
        match self.set_target(target) {
            Some((want, what)) => {
                self.expect(value, &want, &what);
            }
            None => {
                self.infer(value, None);
            }
        }
        self.forget_set(target);
    }

    /// Checks what `set` assigns to; returns its type and a description, or
    /// `None` when it is not assignable (reported).
    fn set_target(&mut self, target: &'a Expr) -> Option<(Ty, String)> {
        let ExprKind::Field(base, field) = &target.kind else {
            return self.not_assignable(target);
        };
        if self.is_session_head(base) {
            return self.set_session(target, base, field);
        }
        // A narrowed target still holds what its field declares (`none` too).
        let ty = self.infer(target, None);
        let ty = match self.typed.fields.get(&target.id) {
            Some(Access::Field { table, field }) if field != "id" => self
                .field_decl(table, field)
                .map_or(ty, |decl| self.type_of(&decl.ty)),
            _ => ty,
        };
        self.typed.types.insert(target.id, ty.clone());
        match self.typed.fields.get(&target.id).cloned() {
            Some(Access::Field { field: f, .. }) if f == "id" => {
                self.report(
                    Diagnostic::new(Code::E205, field.span, "cannot assign to `id`")
                        .label("`id` is read-only")
                        .help("a row's `id` never changes; set another field, or insert a new row"),
                );
                None
            }
            Some(access @ Access::Field { .. }) => {
                let what = match &access {
                    Access::Field { table, field } => format!("field `{field}` of `{table}`"),
                    Access::Session(v) => format!("session variable `{v}`"),
                };
                self.typed.sets.insert(target.id, access);
                Some((ty, what))
            }
            _ => None,
        }
    }

    fn set_session(
        &mut self,
        target: &'a Expr,
        base: &'a Expr,
        var: &'a Ident,
    ) -> Option<(Ty, String)> {
        self.typed.names.insert(base.id, Resolved::Session);
        let Some(decl) = self.syms.session.get(var.name.as_str()) else {
            self.unknown_session_var(var, Code::E205);
            return None;
        };
        let ty = self.type_of(&decl.ty);
        let access = Access::Session(var.name.clone());
        self.typed.types.insert(target.id, ty.clone());
        self.typed.fields.insert(target.id, access.clone());
        self.typed.sets.insert(target.id, access);
        Some((ty, format!("session variable `{}`", var.name)))
    }

    /// E205 for `set x = ...` and other targets that are not fields.
    fn not_assignable(&mut self, target: &'a Expr) -> Option<(Ty, String)> {
        let message = if self.is_session_head(target) {
            // The whole session is not a value (inferring it would say E101);
            // only its variables are assignable.
            self.typed.names.insert(target.id, Resolved::Session);
            "cannot assign to `session`".to_string()
        } else {
            let t = self.infer(target, None);
            match (&target.kind, self.typed.names.get(&target.id)) {
                (ExprKind::Name(n), Some(Resolved::Local { .. })) => {
                    format!("cannot assign to variable `{}`", n.name)
                }
                _ if t.is_error() => return None,
                _ => "cannot assign to this expression".to_string(),
            }
        };
        self.report(Diagnostic::new(Code::E205, target.span, message).label("not a field or session variable").help(
            "`set` assigns a field of a row (`set r.field = ...`) or a session variable (`set session.var = ...`)",
        ));
        None
    }

    /// The `name: value` list of a seed row or an `insert` into `table` (`None`
    /// when the table is unknown, already reported). E204 for unknown and missing
    /// fields, at `span`.
    pub(super) fn row_fields(
        &mut self,
        table: Option<&'a str>,
        inits: &'a [FieldInit],
        span: Span,
        mode: RowMode,
    ) {
        let mut given: Vec<&'a Ident> = Vec::new();
        for init in inits {
            if let Some(first) = given.iter().find(|g| g.name == init.name.name) {
                let first = first.span;
                self.report(
                    Diagnostic::new(
                        Code::E102,
                        init.name.span,
                        format!("field `{}` given twice", init.name.name),
                    )
                    .label("given again here")
                    .related(first, "first given here")
                    .help("give each field once"),
                );
                continue;
            }
            given.push(&init.name);
            self.field_init(table, init, mode);
        }
        if let Some(table) = table {
            self.missing_fields(table, &given, span, mode);
        }
    }

    fn field_init(&mut self, table: Option<&'a str>, init: &'a FieldInit, mode: RowMode) {
        let Some(table) = table else {
            if mode == RowMode::Insert {
                self.infer(&init.value, None);
            }
            return;
        };
        let name = init.name.name.as_str();
        if name == "id" {
            match mode {
                RowMode::Seed => self.seed_value(&init.value, &Ty::Int, "field `id`"),
                RowMode::Insert => self.insert_id(init),
            }
            return;
        }
        let Some(decl) = self.field_decl(table, name) else {
            self.unknown_field(table, &init.name, Code::E204);
            if mode == RowMode::Insert {
                self.infer(&init.value, None);
            }
            return;
        };
        let want = self.type_of(&decl.ty);
        let what = format!("field `{name}` of `{table}`");
        match mode {
            RowMode::Seed => self.seed_value(&init.value, &want, &what),
            RowMode::Insert => {
                self.expect(&init.value, &want, &what);
            }
        }
    }

    fn insert_id(&mut self, init: &'a FieldInit) {
        self.infer(&init.value, None);
        self.report(
            Diagnostic::new(Code::E205, init.name.span, "cannot assign to `id`")
                .label("`id` is read-only")
                .help("an inserted row gets 1 + the largest id in its table; remove `id: ...`"),
        );
    }

    fn missing_fields(&mut self, table: &str, given: &[&Ident], span: Span, mode: RowMode) {
        let Some(fields) = self.tables.get(table) else {
            return;
        };
        let missing: Vec<&str> = fields
            .iter()
            // A field of an unknown type was reported at the table; asking for it again would only repeat that.
            .filter(|f| {
                !f.ty.optional && f.name.name != "id" && self.named_type(&f.ty.name.name).is_some()
            })
            .filter(|f| !given.iter().any(|g| g.name == f.name.name))
            .map(|f| f.name.name.as_str())
            .collect();
        if missing.is_empty() {
            return;
        }
        let what = if missing.len() == 1 {
            "field"
        } else {
            "fields"
        };
        let (message, label) = match mode {
            RowMode::Seed => (
                format!(
                    "seed row misses required {what} {}",
                    super::list_names(&missing)
                ),
                "in this row",
            ),
            RowMode::Insert => (
                format!(
                    "`insert` misses required {what} {}",
                    super::list_names(&missing)
                ),
                "inserted here",
            ),
        };
        let example: Vec<String> = missing.iter().map(|m| format!("`{m}: ...`")).collect();
        self.report(
            Diagnostic::new(Code::E204, span, message)
                .label(label)
                .help(format!(
                    "add {} (only optional fields, `T?`, may be left out)",
                    example.join(", ")
                )),
        );
    }
}
