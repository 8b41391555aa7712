//! Declarations (spec §2): each kind's names, types and shape rules. The site,
//! enums, tables and module table parameters, seed rows (E204, constants), the
//! session, invariants, pages, markers (their permissions' names) and tasks
//! (exactly one of `goal`/`answer`, binders, key nodes).

use super::elements::{element_names, form_vars};
use super::stmt::RowMode;
use super::suggest::did_you_mean;
use super::{list_names, Checker, Local, LocalKind, Place, Ty};
use crate::diagnostics::{Code, Diagnostic};
use crate::syntax::ast::*;
use crate::syntax::visit::Visit;

/// The domains a `site` may name (spec §2).
const DOMAINS: &[&str] = &[
    "banking",
    "ecommerce",
    "education",
    "government",
    "healthcare",
    "other",
    "social",
];

impl<'a> Checker<'a, '_> {
    pub(super) fn decl(&mut self, d: &'a Decl) {
        match &d.kind {
            DeclKind::Use(u) => self.use_decl(u),
            DeclKind::Site(s) => self.site(s),
            DeclKind::Enum(e) => self.enum_decl(e),
            DeclKind::Table(t) => {
                self.enter(format!("table {}", t.name.name));
                self.fields(&t.fields);
            }
            DeclKind::Seed(s) => self.seed(s),
            DeclKind::Session(s) => self.session(s),
            DeclKind::Invariant(i) => {
                self.enter(format!("invariant {}", i.name.name));
                self.cond(&i.cond, "an invariant");
            }
            DeclKind::Page(p) => self.page(p),
            DeclKind::Marker(m) => self.marker(m),
            DeclKind::Task(t) => self.task(t),
        }
    }

    /// `module cart(Item: table { ... })`: the parameters' fields.
    pub(super) fn module_header(&mut self, m: &'a ModuleHeader) {
        self.enter(format!("module {}", m.name.name));
        for p in &m.params {
            self.fields(&p.fields);
        }
    }

    /// `use std::cart(Item = Product)`: each binding names a table.
    fn use_decl(&mut self, u: &'a UseDecl) {
        self.enter("use".to_string());
        for (_, table) in &u.bindings {
            self.table_ty(table);
        }
    }

    /// The type a written type names; E101 when it names nothing.
    pub(super) fn decl_type(&mut self, te: &TypeExpr) -> Ty {
        if self.named_type(&te.name.name).is_none() {
            let name = te.name.name.as_str();
            let mut candidates: Vec<&str> = vec!["Int", "Money", "Bool", "Text", "Date", "Time"];
            candidates.extend(self.syms.enums.keys().copied());
            candidates.extend(self.tables.keys().copied());
            let help = did_you_mean(name, candidates).unwrap_or_else(|| {
                "a type is `Int`, `Money`, `Bool`, `Text`, `Date`, `Time`, an enum or a table"
                    .to_string()
            });
            self.report(
                Diagnostic::new(Code::E101, te.name.span, format!("unknown type `{name}`"))
                    .label("no such type")
                    .help(help),
            );
        }
        self.type_of(te)
    }

    fn site(&mut self, s: &'a SiteDecl) {
        self.enter(format!("site {}", s.name.name));
        if let Some(title) = &s.title {
            self.text(title);
        }
        if let Some(domain) = &s.domain {
            if !DOMAINS.contains(&domain.name.as_str()) {
                let help = did_you_mean(&domain.name, DOMAINS.iter().copied())
                    .unwrap_or_else(|| format!("the domains are {}", list_names(DOMAINS)));
                self.report(
                    Diagnostic::new(
                        Code::E101,
                        domain.span,
                        format!("unknown domain `{}`", domain.name),
                    )
                    .label("no such domain")
                    .help(help),
                );
            }
        }
        if let Some(start) = &s.start {
            self.page_ref(start);
        }
        if let Some(today) = &s.today {
            self.seed_value(today, &Ty::Date, "`today`");
        }
    }

    fn enum_decl(&mut self, e: &'a EnumDecl) {
        self.enter(format!("enum {}", e.name.name));
        for (i, v) in e.variants.iter().enumerate() {
            if let Some(first) = e.variants.iter().take(i).find(|w| w.name == v.name) {
                self.duplicate(v, first.span, "variant");
            }
        }
    }

    /// Field declarations: known types, no duplicates, no explicit `id`.
    fn fields(&mut self, fields: &'a [FieldDecl]) {
        for (i, f) in fields.iter().enumerate() {
            self.decl_type(&f.ty);
            if f.name.name == "id" {
                self.report(
                    Diagnostic::new(Code::E102, f.name.span, "duplicate field `id`")
                        .label("declared here")
                        .help(
                            "every table has an implicit, read-only `id: Int`; remove this field",
                        ),
                );
            } else if let Some(first) = fields.iter().take(i).find(|g| g.name.name == f.name.name) {
                self.duplicate(&f.name, first.name.span, "field");
            }
        }
    }

    fn duplicate(&mut self, name: &Ident, first: Span, what: &str) {
        self.report(crate::check::symbols::duplicate(name, first, what));
    }

    fn seed(&mut self, s: &'a SeedDecl) {
        self.enter(format!("seed {}", s.table.name));
        let known = !self.table_ty(&s.table).is_error();
        let table = known.then_some(s.table.name.as_str());
        for row in &s.rows {
            self.row_fields(table, &row.fields, row.span, RowMode::Seed);
        }
    }

    /// A seed value, session initial value or `today`: a constant of the
    /// expected type (spec §3).
    pub(super) fn seed_value(&mut self, value: &'a Expr, want: &Ty, what: &str) {
        let Some((label, help)) = not_constant(value, want) else {
            self.expect(value, want, what);
            return;
        };
        self.report(
            Diagnostic::new(Code::E201, value.span, format!("expected a constant for {what}"))
                .label(label)
                .help(format!(
                    "{help}; seed values and session initial values are constants: literals, `-` before a number or money, `none`, enum variants and `T[id]` references"
                )),
        );
    }

    fn session(&mut self, s: &'a SessionDecl) {
        self.enter("session".to_string());
        for var in &s.vars {
            let ty = self.decl_type(&var.ty);
            // Initial values are constants like seed values: the runtime
            // starts every episode from them without evaluating anything.
            self.seed_value(
                &var.init,
                &ty,
                &format!("session variable `{}`", var.name.name),
            );
        }
    }

    /// Parameters as locals (E101 for unknown types, E102 for repeated names).
    fn params(&mut self, params: &'a [Param]) -> Vec<Local<'a>> {
        let mut locals: Vec<Local<'a>> = Vec::new();
        for p in params {
            let ty = self.decl_type(&p.ty);
            if let Some(first) = locals.iter().find(|l| l.name == p.name.name) {
                let first = first.span;
                self.duplicate(&p.name, first, "parameter");
            }
            locals.push(Local::new(&p.name, ty, LocalKind::Param));
        }
        locals
    }

    fn page(&mut self, p: &'a PageDecl) {
        self.enter(format!("page {}", p.name.name));
        self.page_element_names(p);
        self.page_forms = form_vars(&p.body);
        let params = self.params(&p.params);
        self.scoped(params, |c| {
            if let Some(route) = &p.route {
                c.text(route);
            }
            // A guard `x != none` narrows `x` (§3, 1.1) in the later guards, the
            // title and the body: all of them are reached only when it held. Its
            // own `else` arguments are evaluated when it failed, so only the
            // earlier guards narrow them.
            let mut paths = Vec::new();
            for guard in &p.guards {
                c.narrowing(paths.clone(), |c| {
                    c.cond(&guard.cond, "a `guard` condition");
                    c.page_ref(&guard.target);
                });
                paths.extend(c.narrowed_paths(&guard.cond));
            }
            c.narrowing(paths, |c| {
                for (i, title) in p.titles.iter().enumerate() {
                    c.text(title);
                    if i > 0 {
                        c.report(
                            Diagnostic::new(
                                Code::E102,
                                title.span,
                                format!("page `{}` has a second `title`", p.name.name),
                            )
                            .label("second title")
                            .help("a page has at most one `title`; remove one"),
                        );
                    }
                }
                c.visit_elements(&p.body);
            });
        });
    }

    /// E102 for a `#name` used twice on one page.
    fn page_element_names(&mut self, p: &'a PageDecl) {
        let named = element_names(&p.body);
        for (i, n) in named.iter().enumerate() {
            if let Some(first) = named.iter().take(i).find(|m| m.name == n.name) {
                // Written with its `#`, as in the source and in task `key`s.
                self.report(
                    Diagnostic::new(
                        Code::E102,
                        n.span,
                        format!("duplicate element name `#{}`", n.name),
                    )
                    .label("named again here")
                    .related(first.span, "first named here")
                    .help("give each element of a page its own `#name`; tasks and trajectories refer to elements by it"),
                );
            }
        }
    }

    fn marker(&mut self, m: &'a MarkerDecl) {
        self.enter(format!("marker {}", m.name.name));
        for perm in m.reads.iter().chain(&m.writes) {
            self.permission(perm);
        }
        let params = self.params(&m.params);
        self.ctx.place = Place::Marker;
        self.scoped(params, |c| {
            // Each clause narrows the clauses after it and the body.
            let mut paths = Vec::new();
            for r in &m.requires {
                c.narrowing(paths.clone(), |c| {
                    c.cond(&r.cond, "a `requires` condition");
                    if let Some(message) = &r.message {
                        c.text(message);
                    }
                });
                paths.extend(c.narrowed_paths(&r.cond));
            }
            c.narrowing(paths, |c| c.stmts(&m.body));
        });
    }

    /// A permission names a table, one of its fields, or a session variable (E101).
    fn permission(&mut self, p: &'a Permission) {
        let base = p.base.name.as_str();
        if base == "session" && !self.tables.contains_key(base) {
            match &p.field {
                Some(var) if !self.syms.session.contains_key(var.name.as_str()) => {
                    self.unknown_session_var(var, Code::E101);
                }
                Some(_) => {}
                None => self.report(
                    Diagnostic::new(
                        Code::E101,
                        p.base.span,
                        "expected a session variable after `session`",
                    )
                    .label("which variable?")
                    .help("write `session.name` for the variable it may write"),
                ),
            }
            return;
        }
        if self.misspelt_session(p) || self.table_ty(&p.base).is_error() {
            return;
        }
        if let Some(field) = &p.field {
            if field.name != "id" && self.field_decl(base, &field.name).is_none() {
                self.unknown_field(base, field, Code::E101);
            }
        }
    }

    /// `sesion.q` in a permission: E101 with `session.q` as the suggestion
    /// (the table suggestions of [`Checker::unknown_table`] would not offer it).
    fn misspelt_session(&mut self, p: &'a Permission) -> bool {
        let base = p.base.name.as_str();
        let Some(var) = &p.field else { return false };
        let near_table = super::closest(base, self.tables.keys().copied()).is_some();
        if self.tables.contains_key(base)
            || near_table
            || super::closest(base, ["session"]).is_none()
        {
            return false;
        }
        self.report(
            Diagnostic::new(Code::E101, p.base.span, format!("unknown table `{base}`"))
                .label("no such table")
                .help(format!("did you mean `session.{}`?", var.name)),
        );
        true
    }

    fn task(&mut self, t: &'a TaskDecl) {
        self.enter(format!("task {}", t.name.name));
        for item in &t.repeated {
            self.report(
                Diagnostic::new(
                    Code::E102,
                    item.span,
                    format!("`{}` given twice in task `{}`", item.name, t.name.name),
                )
                .label("given again here")
                .help(format!("a task has at most one `{}`; keep one", item.name)),
            );
        }
        self.goal_or_answer(t);
        let Some(tpl) = &t.template else {
            self.task_body(t);
            return;
        };
        if let Some(limit) = &tpl.limit {
            self.expect(limit, &Ty::Int, "`limit`");
        }
        self.with_row_binder(&tpl.binder, &tpl.table, |c| {
            c.filter_then(tpl.filter.as_ref(), |c| c.task_body(t));
        });
    }

    /// Exactly one of `goal` and `answer` (E001).
    fn goal_or_answer(&mut self, t: &'a TaskDecl) {
        let name = &t.name.name;
        let d = match (&t.goal, &t.answer) {
            (Some(_), None) | (None, Some(_)) => return,
            (Some(goal), Some(answer)) => Diagnostic::new(
                Code::E001,
                answer.span,
                format!("task `{name}` has both `goal` and `answer`"),
            )
            .label("second success condition")
            .related(goal.span, "the goal is here"),
            (None, None) => Diagnostic::new(
                Code::E001,
                t.name.span,
                format!("task `{name}` has neither `goal` nor `answer`"),
            )
            .label("no success condition"),
        };
        self.report(d.help("an operation task states a `goal`; a retrieval task states an `answer`; give exactly one"));
    }

    fn task_body(&mut self, t: &'a TaskDecl) {
        if let Some(say) = &t.say {
            self.text(say);
        }
        if let Some(start) = &t.start {
            self.page_ref(start);
        }
        self.ctx.task_pred = true;
        if let Some(goal) = &t.goal {
            self.cond(goal, "a task goal");
        }
        for item in &t.progress {
            self.cond(&item.pred, "a progress predicate");
        }
        self.ctx.task_pred = false;
        if let Some(answer) = &t.answer {
            self.answer(answer);
        }
        for node in t.key.iter().flatten() {
            self.key_node(node);
        }
        for value in &t.values {
            self.text(value);
        }
        if let Some(setup) = &t.setup {
            self.ctx.place = Place::Setup;
            self.stmts(setup);
            self.ctx.place = Place::Other;
        }
    }

    /// `answer expr` takes any type; `answer [...]` lists equivalent texts
    /// (DECISIONS 8), so a list's items must be `Text`.
    fn answer(&mut self, answer: &'a Expr) {
        if matches!(answer.kind, ExprKind::List(_)) {
            self.expect(answer, &Ty::List(Box::new(Ty::Text)), "a list of answers");
        } else {
            self.infer(answer, None);
        }
    }

    fn key_node(&mut self, node: &'a KeyNode) {
        match node {
            KeyNode::Page(r) => self.page_ref(r),
            KeyNode::Element(id) if !self.element_names.contains(id.name.as_str()) => {
                let mut d = Diagnostic::new(
                    Code::E101,
                    id.span,
                    format!("unknown element `#{}`", id.name),
                )
                .label("no element has this name");
                let help = super::closest(&id.name, self.element_names.iter().copied())
                    .map(|c| format!("did you mean `#{c}`?"))
                    .unwrap_or_else(|| {
                        "name an element with `#name` right after its keyword: `button #add ...`"
                            .into()
                    });
                d = d.help(help);
                self.report(d);
            }
            KeyNode::Element(_) => {}
        }
    }
}

/// Why `e` is not a constant expression (spec §3), as a label and a first
/// sentence of help; `None` when it is one: a literal, `-` before a number or
/// money, `none`, an enum variant (a bare name) or `T[id]` (the id possibly
/// negative, as seed ids may be).
fn not_constant(e: &Expr, want: &Ty) -> Option<(&'static str, String)> {
    let literal_int = |x: &Expr| match &x.kind {
        ExprKind::Int(_) => true,
        ExprKind::Unary(UnaryOp::Neg, n) => matches!(n.kind, ExprKind::Int(_)),
        _ => false,
    };
    let reason = match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Money(_)
        | ExprKind::Bool(_)
        | ExprKind::Date(_)
        | ExprKind::Time(_)
        | ExprKind::None
        | ExprKind::Name(_)
        | ExprKind::Error => return None,
        ExprKind::Text(t) if t.interpolations().next().is_none() => return None,
        ExprKind::Unary(UnaryOp::Neg, x)
            if matches!(x.kind, ExprKind::Int(_) | ExprKind::Money(_)) =>
        {
            return None
        }
        ExprKind::Index(base, index)
            if matches!(base.kind, ExprKind::Name(_)) && literal_int(index) =>
        {
            return None
        }
        ExprKind::Text(_) => (
            "text with `{...}` is computed",
            "write the text out in full (`\\{` and `\\}` for literal braces)".to_string(),
        ),
        ExprKind::Field(base, variant) => match (&base.kind, want.base()) {
            (ExprKind::Name(ty), Ty::Enum(name)) if ty.name == *name => (
                "a variant is written bare",
                format!("write `{}` instead", variant.name),
            ),
            _ => (
                "reads a field",
                "write the value itself: seed rows cannot read other rows or the session"
                    .to_string(),
            ),
        },
        ExprKind::Binary(..) | ExprKind::Unary(..) => (
            "an operation is computed",
            "write the value it would compute".to_string(),
        ),
        ExprKind::Call(..) => (
            "a call is computed",
            "write the value it would return".to_string(),
        ),
        _ => ("not a constant", "write the value itself".to_string()),
    };
    Some(reason)
}
