//! Expressions: the type of each one, the names inside them, and the rules of
//! spec §3 for operators, field access, row lookups, lists, quantifiers and
//! aggregates (E101, E201, E202, E203).
//!
//! Inference is bottom-up with an optional *hint*, the type the context expects.
//! The hint only resolves what cannot be typed alone: a bare enum variant
//! (`status: draft`) and `none`. Whether the result fits the context is checked
//! by the caller ([`Checker::expect`]), so a mismatch is reported once, where the
//! value is used.

use super::suggest::did_you_mean;
use super::{accepts, comparable, list_names, Access, Checker, Local, LocalKind, Resolved, Ty};
use crate::diagnostics::{Code, Diagnostic, Fix};
use crate::syntax::ast::*;

impl<'a> Checker<'a, '_> {
    /// Infers and records the type of `e` (a narrowed path loses its `?`).
    pub(super) fn infer(&mut self, e: &'a Expr, hint: Option<&Ty>) -> Ty {
        let ty = self.infer_kind(e, hint);
        let ty = self.narrow(e, ty);
        self.typed.types.insert(e.id, ty.clone());
        ty
    }

    /// Infers `e` and reports E201 unless it fits where `want` is expected;
    /// `what` names the place in the message (`field `price` of `Product``).
    pub(super) fn expect(&mut self, e: &'a Expr, want: &Ty, what: &str) -> Ty {
        let got = self.infer(e, Some(want));
        if !accepts(want, &got) {
            let help = self.optional_help(e, want, &got);
            self.report_mismatch(e.span, want, &got, what, help);
        }
        got
    }

    pub(super) fn mismatch(&mut self, span: Span, want: &Ty, got: &Ty, what: &str) {
        self.report_mismatch(span, want, got, what, None);
    }

    /// E201; `help` replaces the general advice.
    fn report_mismatch(
        &mut self,
        span: Span,
        want: &Ty,
        got: &Ty,
        what: &str,
        help: Option<String>,
    ) {
        let d = Diagnostic::new(
            Code::E201,
            span,
            format!("expected `{want}` for {what}, found `{got}`"),
        )
        .label(format!("this is `{got}`"));
        let help = help
            .or_else(|| mismatch_help(want, got))
            .unwrap_or_else(|| {
                format!("give {what} a value of type `{want}`; wsite converts no types implicitly")
            });
        self.report(d.help(help));
    }

    /// For a `T?` where a `T` is needed: how `!= none` narrows it (spec §3).
    pub(super) fn optional_help(&self, e: &Expr, want: &Ty, got: &Ty) -> Option<String> {
        if !matches!(got, Ty::Optional(_)) || !accepts(want, got.base()) {
            return None;
        }
        let start = format!("this may be `none`, but a `{want}` is needed");
        Some(match self.narrowing_test(e) {
            Some(test) => format!(
                "{start}; test it first: after `{test}` (in an `if`, a `where`, a `requires`, or before `and`) it is a `{want}`"
            ),
            None => format!(
                "{start}; `!= none` narrows only a variable, parameter, `session.var` or field path, so name the value with `let` and test the name"
            ),
        })
    }

    /// A condition (`requires`, `if`, `where`, goals, ...): must be `Bool` (E202).
    pub(super) fn cond(&mut self, e: &'a Expr, what: &str) {
        let got = self.infer(e, Some(&Ty::Bool));
        if got.is_error() || got == Ty::Bool {
            return;
        }
        let help = match &got {
            Ty::Optional(_) | Ty::None => "test for a value with `!= none`".to_string(),
            Ty::Bool => String::new(),
            other => format!("a condition is `Bool`; compare the `{other}` with something, e.g. `== ...` or `> ...`"),
        };
        self.report(
            Diagnostic::new(
                Code::E202,
                e.span,
                format!("{what} must be `Bool`, found `{got}`"),
            )
            .label("not a condition")
            .help(help),
        );
    }

    /// The type of every `{expr}` in a text (any type renders).
    pub(super) fn text(&mut self, t: &'a TextLit) {
        for e in t.interpolations() {
            let ty = self.infer(e, None);
            let reads = self.rendered_fields(&ty);
            if !reads.is_empty() {
                self.typed.renders.insert(e.id, reads);
            }
        }
    }

    /// The plain fields that showing a value of `ty` reads: a row shows its
    /// `name`, and a `name` that is itself a reference shows that row's.
    fn rendered_fields(&self, ty: &Ty) -> Vec<Access> {
        let mut out = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        let mut table = ty.row_table().map(str::to_string);
        while let Some(t) = table.take() {
            let Some(fields) = self.tables.get(t.as_str()) else {
                break;
            };
            let Some(name) = fields.iter().find(|f| f.name.name == "name") else {
                break;
            };
            let next = name.ty.name.name.as_str();
            if self.tables.contains_key(next) {
                if !seen.contains(&next) {
                    seen.push(next);
                    table = Some(next.to_string());
                }
            } else {
                out.push(Access::Field {
                    table: t,
                    field: "name".into(),
                });
            }
        }
        out
    }

    fn infer_kind(&mut self, e: &'a Expr, hint: Option<&Ty>) -> Ty {
        match &e.kind {
            ExprKind::Int(_) => Ty::Int,
            ExprKind::Money(_) => Ty::Money,
            ExprKind::Bool(_) => Ty::Bool,
            ExprKind::Date(_) => Ty::Date,
            ExprKind::Time(_) => Ty::Time,
            ExprKind::Text(t) => {
                self.text(t);
                Ty::Text
            }
            ExprKind::None => match hint {
                Some(h @ Ty::Optional(_)) => h.clone(),
                _ => Ty::None,
            },
            ExprKind::List(items) => self.list(items, hint),
            ExprKind::Name(id) => self.name(e, id, hint),
            ExprKind::Field(base, field) => self.field(e, base, field),
            ExprKind::Index(base, index) => self.index(base, index),
            ExprKind::Call(f, args) => self.call(f, args),
            ExprKind::Unary(op, x) => self.unary(e, *op, x),
            ExprKind::Binary(op, l, r) => self.binary(e, *op, l, r),
            ExprKind::In(x, list) => self.membership(x, list),
            ExprKind::Quantifier {
                binder,
                table,
                filter,
                body,
                ..
            } => {
                self.with_row_binder(binder, table, |c| {
                    c.filter_then(filter.as_deref(), |c| c.cond(body, "the quantifier's body"));
                });
                Ty::Bool
            }
            ExprKind::Count {
                binder,
                table,
                filter,
            } => self.count(binder.as_ref(), table, filter.as_deref()),
            ExprKind::Aggregate {
                kind,
                value,
                binder,
                table,
                filter,
            } => self.aggregate(e, *kind, value, binder, table, filter.as_deref()),
            ExprKind::Find {
                binder,
                table,
                filter,
            } => {
                let row = self.with_row_binder(binder, table, |c| {
                    c.filter(filter.as_deref());
                    c.lookup(&binder.name)
                        .map(|l| l.ty.clone())
                        .unwrap_or(Ty::Error)
                });
                row.optional()
            }
            ExprKind::Visited(r) => self.page_predicate(e.span, "visited", r),
            ExprKind::PageIs(r) => self.page_predicate(e.span, "page is", r),
            ExprKind::Error => Ty::Error,
        }
    }

    /// An optional `where` filter.
    pub(super) fn filter(&mut self, filter: Option<&'a Expr>) {
        if let Some(f) = filter {
            self.cond(f, "a `where` filter");
        }
    }

    /// Runs `f` with `binder` bound to a row of `table` (E101 for an unknown
    /// table, after which the binder has the error type).
    pub(super) fn with_row_binder<R>(
        &mut self,
        binder: &'a Ident,
        table: &'a Ident,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let ty = self.table_ty(table);
        self.scoped(vec![Local::new(binder, ty, LocalKind::Binder)], f)
    }

    /// `Row(T)` for a known table `T`; E101 and the error type otherwise.
    pub(super) fn table_ty(&mut self, table: &Ident) -> Ty {
        if self.tables.contains_key(table.name.as_str()) {
            Ty::Row(table.name.clone())
        } else {
            self.unknown_table(table);
            Ty::Error
        }
    }

    pub(super) fn unknown_table(&mut self, table: &Ident) {
        let name = table.name.as_str();
        let mut d = Diagnostic::new(Code::E101, table.span, format!("unknown table `{name}`"))
            .label("no such table");
        let help = if self.syms.enums.contains_key(name) {
            Some(format!("`{name}` is an enum, not a table"))
        } else {
            did_you_mean(name, self.tables.keys().copied())
        };
        if let Some(help) = help {
            d = d.help(help);
        }
        self.report(d);
    }

    /// `[a, b]`: every item has the first item's type (or the hinted item type).
    pub(super) fn list(&mut self, items: &'a [Expr], hint: Option<&Ty>) -> Ty {
        let mut want: Option<Ty> = hint.and_then(Ty::list_item).cloned();
        for item in items {
            let got = self.infer(item, want.as_ref());
            match &want {
                Some(w) if !accepts(w, &got) => self.mismatch(item.span, w, &got, "a list item"),
                Some(_) => {}
                None if !got.is_error() => want = Some(got),
                None => {}
            }
        }
        Ty::List(Box::new(want.unwrap_or(Ty::Error)))
    }

    /// A bare name: a local first, then a variant of the enum the context expects.
    fn name(&mut self, e: &'a Expr, id: &'a Ident, hint: Option<&Ty>) -> Ty {
        if let Some(local) = self.lookup(&id.name) {
            let (ty, kind, span) = (local.ty.clone(), local.kind, local.span);
            self.typed
                .names
                .insert(e.id, Resolved::Local { kind, span });
            return ty;
        }
        if let Some(enum_name) = hint.and_then(Ty::enum_name) {
            if self.has_variant(enum_name, &id.name) {
                let enum_name = enum_name.to_string();
                let variant = id.name.clone();
                self.typed.names.insert(
                    e.id,
                    Resolved::Variant {
                        enum_name: enum_name.clone(),
                        variant,
                    },
                );
                return Ty::Enum(enum_name);
            }
        }
        // The context already failed (its type is unknown): do not pile on.
        if !matches!(hint, Some(Ty::Error)) {
            self.unknown_name(id, hint);
        }
        Ty::Error
    }

    fn unknown_name(&mut self, id: &Ident, hint: Option<&Ty>) {
        let n = id.name.as_str();
        let d = match self.global_kind(n) {
            Some(kind) => {
                let what = if n == "session" {
                    "`session`".to_string()
                } else {
                    format!("{kind} `{n}`")
                };
                Diagnostic::new(
                    Code::E101,
                    id.span,
                    format!("expected a value, found {what}"),
                )
                .label("not a value")
                .help(not_a_value_help(kind, n))
            }
            None => {
                let d = Diagnostic::new(Code::E101, id.span, format!("unknown name `{n}`"))
                    .label("not found in this scope");
                if let Some(form) = self.page_forms.iter().find(|f| f.name == n) {
                    d.related(form.span, format!("the form variable `{n}` is declared here"))
                        .help(
                            "a form variable is visible only after its declaration, in the same block and the \
                             blocks nested in it; move the use below it, or the declaration up",
                        )
                } else if let Some((ours, help)) = crate::syntax::foreign::unknown_name(n) {
                    d.help(help).fix(Fix::Replace {
                        start: id.span.start,
                        end: id.span.end,
                        text: ours.into(),
                    })
                } else {
                    match self.name_help(n, hint) {
                        Some(help) => d.help(help),
                        None => d.help(format!(
                            "`{n}` is not a variable, parameter, form variable or enum variant here; declare it or fix the name"
                        )),
                    }
                }
            }
        };
        self.report(d);
    }

    /// What a non-value global name is, for "expected a value" messages.
    fn global_kind(&self, n: &str) -> Option<&'static str> {
        if n == "session" {
            Some("the session")
        } else if self.tables.contains_key(n) {
            Some("table")
        } else if self.syms.enums.contains_key(n) {
            Some("enum")
        } else if self.syms.pages.contains_key(n) {
            Some("page")
        } else if self.syms.markers.contains_key(n) {
            Some("marker")
        } else {
            None
        }
    }

    /// Help for an unknown bare name: a near local or variant, or the enum that
    /// has this variant although the context does not expect it.
    fn name_help(&self, n: &str, hint: Option<&Ty>) -> Option<String> {
        let expected = hint
            .and_then(Ty::enum_name)
            .and_then(|e| self.syms.enums.get(e));
        let mut candidates = self.local_names();
        if let Some(en) = expected {
            candidates.extend(en.variants.iter().map(|v| v.name.as_str()));
        }
        if let Some(help) = did_you_mean(n, candidates) {
            return Some(help);
        }
        if let Some(en) = expected {
            let variants: Vec<&str> = en.variants.iter().map(|v| v.name.as_str()).collect();
            return Some(format!(
                "`{}` has the variants {}",
                en.name.name,
                list_names(&variants)
            ));
        }
        let owner = self
            .syms
            .enums
            .values()
            .find(|e| e.variants.iter().any(|v| v.name == n))?;
        let en = &owner.name.name;
        Some(format!(
            "`{n}` is a variant of `{en}`, but no `{en}` is expected here; a variant is known by the type it is \
             compared with or assigned to, e.g. `x.field == {n}`"
        ))
    }

    /// `session` not shadowed by a local: `session.var` reads a session variable.
    pub(super) fn is_session_head(&self, base: &Expr) -> bool {
        matches!(&base.kind, ExprKind::Name(n) if n.name == "session")
            && self.lookup("session").is_none()
    }

    /// `base.field`: a session variable or a field of a (possibly optional) row.
    fn field(&mut self, e: &'a Expr, base: &'a Expr, field: &'a Ident) -> Ty {
        if self.is_session_head(base) {
            return self.session_var(e, base, field);
        }
        let base_ty = self.infer(base, None);
        if let Some(table) = base_ty.row_table() {
            let table = table.to_string();
            return self.table_field(e, &table, field);
        }
        if !base_ty.is_error() {
            self.report(
                Diagnostic::new(
                    Code::E201,
                    base.span,
                    format!("expected a row before `.{}`, found `{base_ty}`", field.name),
                )
                .label(format!("this is `{base_ty}`"))
                .help("only rows (`T`, `T?`) and `session` have fields"),
            );
        }
        Ty::Error
    }

    /// `session.var`, read (or, through `stmt`, written).
    pub(super) fn session_var(&mut self, e: &'a Expr, base: &'a Expr, var: &'a Ident) -> Ty {
        self.typed.names.insert(base.id, Resolved::Session);
        match self.syms.session.get(var.name.as_str()) {
            Some(decl) => {
                self.typed
                    .fields
                    .insert(e.id, Access::Session(var.name.clone()));
                self.type_of(&decl.ty)
            }
            None => {
                self.unknown_session_var(var, Code::E101);
                Ty::Error
            }
        }
    }

    pub(super) fn unknown_session_var(&mut self, var: &Ident, code: Code) {
        let mut d = Diagnostic::new(
            code,
            var.span,
            format!("unknown session variable `{}`", var.name),
        )
        .label("not declared in `session { }`");
        let help = did_you_mean(&var.name, self.syms.session.keys().copied())
            .unwrap_or_else(|| format!("declare it: `session {{ {}: Type = value }}`", var.name));
        d = d.help(help);
        self.report(d);
    }

    /// `.field` on a row of `table` (`id` is every table's).
    fn table_field(&mut self, e: &'a Expr, table: &str, field: &'a Ident) -> Ty {
        let access = Access::Field {
            table: table.to_string(),
            field: field.name.clone(),
        };
        if field.name == "id" {
            self.typed.fields.insert(e.id, access);
            return Ty::Int;
        }
        match self.field_decl(table, &field.name) {
            Some(decl) => {
                self.typed.fields.insert(e.id, access);
                self.type_of(&decl.ty)
            }
            None => {
                self.unknown_field(table, field, Code::E101);
                Ty::Error
            }
        }
    }

    pub(super) fn unknown_field(&mut self, table: &str, field: &Ident, code: Code) {
        let mut d = Diagnostic::new(
            code,
            field.span,
            format!("table `{table}` has no field `{}`", field.name),
        )
        .label("unknown field");
        let names = self
            .tables
            .get(table)
            .map(|fs| fs.iter().map(|f| f.name.name.as_str()).collect::<Vec<_>>());
        let help = names
            .as_ref()
            .and_then(|ns| did_you_mean(&field.name, ns.iter().copied()))
            .or_else(|| {
                names
                    .filter(|ns| !ns.is_empty())
                    .map(|ns| format!("the fields of `{table}` are `id`, {}", list_names(&ns)))
            });
        if let Some(help) = help {
            d = d.help(help);
        }
        self.report(d);
    }

    /// `T[index]`: a row of table `T` by id.
    fn index(&mut self, base: &'a Expr, index: &'a Expr) -> Ty {
        let ExprKind::Name(table) = &base.kind else {
            let base_ty = self.infer(base, None);
            self.infer(index, None);
            if !base_ty.is_error() {
                self.report(
                    Diagnostic::new(
                        Code::E201,
                        base.span,
                        format!("expected a table name before `[...]`, found `{base_ty}`"),
                    )
                    .label("not a table")
                    .help("`T[id]` looks up the row of table `T` with that id"),
                );
            }
            return Ty::Error;
        };
        self.expect(index, &Ty::Int, "a row id");
        if self.tables.contains_key(table.name.as_str()) {
            self.typed
                .names
                .insert(base.id, Resolved::Table(table.name.clone()));
            Ty::Row(table.name.clone())
        } else {
            self.unknown_table(table);
            Ty::Error
        }
    }

    fn unary(&mut self, e: &'a Expr, op: UnaryOp, x: &'a Expr) -> Ty {
        let hint = if op == UnaryOp::Not {
            Some(&Ty::Bool)
        } else {
            None
        };
        let t = self.infer(x, hint);
        match (op, &t) {
            (_, Ty::Error) => Ty::Error,
            (UnaryOp::Neg, Ty::Int | Ty::Money) => t,
            (UnaryOp::Not, Ty::Bool) => Ty::Bool,
            (UnaryOp::Neg, _) => {
                self.bad_operator(
                    e.span,
                    format!("operator `-` is not defined for `{t}`"),
                    "`-` negates `Int` and `Money`",
                );
                Ty::Error
            }
            (UnaryOp::Not, _) => {
                self.bad_operator(
                    e.span,
                    format!("operator `not` is not defined for `{t}`"),
                    "`not` takes a `Bool`",
                );
                Ty::Error
            }
        }
    }

    pub(super) fn bad_operator(&mut self, span: Span, message: String, help: impl Into<String>) {
        self.report(
            Diagnostic::new(Code::E203, span, message)
                .label("operator used here")
                .help(help),
        );
    }

    fn binary(&mut self, e: &'a Expr, op: BinaryOp, l: &'a Expr, r: &'a Expr) -> Ty {
        match op {
            BinaryOp::And | BinaryOp::Or => self.logic(e, op, l, r),
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => self.compare(e, op, l, r),
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                self.arith(e, op, l, r)
            }
        }
    }

    /// `and`/`or`; the right side of `and` sees what the left side narrows.
    fn logic(&mut self, e: &'a Expr, op: BinaryOp, l: &'a Expr, r: &'a Expr) -> Ty {
        let lt = self.infer(l, Some(&Ty::Bool));
        let paths = if op == BinaryOp::And {
            self.narrowed_paths(l)
        } else {
            Vec::new()
        };
        let rt = self.narrowing(paths, |c| c.infer(r, Some(&Ty::Bool)));
        let bad = |t: &Ty| !t.is_error() && *t != Ty::Bool;
        if bad(&lt) || bad(&rt) {
            let sym = op.symbol();
            self.bad_operator(
                e.span,
                format!("operator `{sym}` is not defined for `{lt}` and `{rt}`"),
                format!("`{sym}` combines two `Bool` conditions"),
            );
        }
        Ty::Bool
    }

    /// Types both sides of a comparison. A side that is a bare unbound name (an
    /// enum variant, presumably) is typed second, with the other side as its hint.
    fn infer_pair(&mut self, l: &'a Expr, r: &'a Expr) -> (Ty, Ty) {
        if self.is_unbound_name(l) && !self.is_unbound_name(r) {
            let rt = self.infer(r, None);
            let lt = self.infer(l, Some(&rt));
            (lt, rt)
        } else {
            let lt = self.infer(l, None);
            let rt = self.infer(r, Some(&lt));
            (lt, rt)
        }
    }

    fn is_unbound_name(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Name(n) if self.lookup(&n.name).is_none())
    }

    fn compare(&mut self, e: &'a Expr, op: BinaryOp, l: &'a Expr, r: &'a Expr) -> Ty {
        let (lt, rt) = self.infer_pair(l, r);
        if lt.is_error() || rt.is_error() {
            return Ty::Bool;
        }
        let sym = op.symbol();
        let ordering = !matches!(op, BinaryOp::Eq | BinaryOp::Ne);
        if !comparable(&lt, &rt) {
            self.bad_operator(
                e.span,
                format!("operator `{sym}` is not defined for `{lt}` and `{rt}`"),
                "both sides of a comparison must have the same type (up to `?`)",
            );
        } else if ordering && !(lt.is_ordered() && rt.is_ordered()) {
            self.bad_operator(
                e.span,
                format!("operator `{sym}` is not defined for `{lt}` and `{rt}`"),
                "only `Int`, `Money`, `Date`, `Time` and `Text` are ordered; use `==` or `!=`",
            );
        }
        Ty::Bool
    }

    /// `x in [a, b]`: the items must have `x`'s type (DECISIONS 5). For an
    /// optional `x` that includes `none`, as `x == none` does.
    fn membership(&mut self, x: &'a Expr, list: &'a Expr) -> Ty {
        let xt = self.infer(x, None);
        let item = match &xt {
            Ty::Optional(_) => xt.clone(),
            _ => xt.base().clone(),
        };
        let want = Ty::List(Box::new(item));
        let lt = self.infer(list, Some(&want));
        match &lt {
            Ty::Error => {}
            Ty::List(item) if comparable(&xt, item) => {}
            _ => self.mismatch(list.span, &want, &lt, "the list after `in`"),
        }
        Ty::Bool
    }

    fn count(
        &mut self,
        binder: Option<&'a Ident>,
        table: &'a Ident,
        filter: Option<&'a Expr>,
    ) -> Ty {
        match binder {
            Some(b) => self.with_row_binder(b, table, |c| c.filter(filter)),
            None => {
                self.table_ty(table);
                self.filter(filter);
            }
        }
        Ty::Int
    }

    fn aggregate(
        &mut self,
        e: &'a Expr,
        kind: AggKind,
        value: &'a Expr,
        binder: &'a Ident,
        table: &'a Ident,
        filter: Option<&'a Expr>,
    ) -> Ty {
        let vt = self.with_row_binder(binder, table, |c| {
            c.filter_then(filter, |c| c.infer(value, None))
        });
        match kind {
            _ if vt.is_error() => Ty::Error,
            AggKind::Sum if matches!(vt, Ty::Int | Ty::Money) => vt,
            AggKind::Min | AggKind::Max if vt.is_ordered() => vt.base().clone().optional(),
            AggKind::Sum => {
                self.bad_operator(
                    e.span,
                    format!("`sum` is not defined for `{vt}`"),
                    "`sum` adds `Int` or `Money` values",
                );
                Ty::Error
            }
            AggKind::Min | AggKind::Max => {
                let word = if kind == AggKind::Min { "min" } else { "max" };
                self.bad_operator(
                    e.span,
                    format!("`{word}` is not defined for `{vt}`"),
                    "only `Int`, `Money`, `Date`, `Time` and `Text` are ordered",
                );
                Ty::Error
            }
        }
    }

    /// `visited P(args)` and `page is P(args)`: tasks' `goal` and `progress` only.
    fn page_predicate(&mut self, span: Span, word: &str, r: &'a PageRef) -> Ty {
        if !self.ctx.task_pred {
            self.report(
                Diagnostic::new(
                    Code::E101,
                    span,
                    format!("`{word}` is only available in a task's `goal` and `progress`"),
                )
                .label("not available here")
                .help("pages and markers see the current state, not the episode's history"),
            );
        }
        self.page_ref(r);
        Ty::Bool
    }
}

/// Extra advice for common mismatches.
fn mismatch_help(want: &Ty, got: &Ty) -> Option<String> {
    match (want, got) {
        (_, Ty::None) => Some(format!(
            "`none` is only a value of optional types; make it `{want}?` or give a value"
        )),
        (w, Ty::Optional(g)) if **g == *w => Some(format!(
            "this may be `none`, but a `{w}` is needed; a value of `{w}?` is not accepted as `{w}`"
        )),
        (Ty::Money, Ty::Int) => Some("write money with a `$`: `$5` or `$5.00`".to_string()),
        (Ty::Text, Ty::Int | Ty::Money | Ty::Date | Ty::Time | Ty::Enum(_) | Ty::Row(_)) => {
            Some("make text from a value with interpolation: `\"{x}\"`".to_string())
        }
        _ => None,
    }
}

/// Help for a global name used as a value.
fn not_a_value_help(kind: &str, n: &str) -> String {
    match kind {
        "table" => format!("write `{n}[id]` for one of its rows, or `count({n})`"),
        "the session" => "write `session.name` to read a session variable".to_string(),
        "enum" => format!("write one of the variants of `{n}`"),
        "page" => format!("pages are targets: `link \"...\" -> {n}`"),
        _ => format!("markers are triggered by buttons: `button \"...\" -> {n}(...)`"),
    }
}
