//! Where every name of a program is declared and where it is used, built by
//! one walk over the AST with the type checker's resolutions. Hover, go to
//! definition, find references, rename-like features and completion all read
//! this index; none resolves a name itself.

use crate::check::types::{Access, Resolved, Typed};
use crate::syntax::ast::*;

/// What a name denotes, independent of where it is written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    Site,
    Page(String),
    Marker(String),
    Table(String),
    /// A table's field (`id` included).
    Field(String, String),
    Enum(String),
    Variant(String, String),
    Task(String),
    Invariant(String),
    Session(String),
    /// A parameter, form variable, binder or `let`, by its declaring span.
    Local(Span),
}

/// A declaration: its key, its name's span and what to show about it.
#[derive(Clone, Debug)]
pub struct Def {
    pub key: Key,
    pub name: String,
    pub span: Span,
    /// One line: `page ProductPage(p: Product)`, `field price: Money`.
    pub signature: String,
    pub doc: Option<String>,
    /// For locals: the table whose rows it holds (for completion after `.`).
    pub row_table: Option<String>,
    /// For locals: the declaration they belong to (their scope).
    pub scope: Option<Span>,
}

/// One written name and what it denotes (declarations included).
#[derive(Clone, Debug)]
pub struct Occurrence {
    pub span: Span,
    pub key: Key,
}

#[derive(Default)]
pub struct Index {
    pub defs: Vec<Def>,
    pub occurrences: Vec<Occurrence>,
    /// Every expression's span and id (for the type under the cursor).
    pub exprs: Vec<(Span, ExprId)>,
    /// Every reference to a page or marker with arguments (a link, a button,
    /// `go`, `start`, `visited`, `page is`), for fixes that need the
    /// arguments' names and types.
    pub page_refs: Vec<PageUse>,
}

/// A page or marker reference: its name's span and, per argument, the name
/// it was written as (for a bare name) and its expression.
#[derive(Clone, Debug)]
pub struct PageUse {
    pub name: Span,
    pub args: Vec<(Option<String>, ExprId)>,
}

impl Index {
    pub fn build(files: &[SourceFile], typed: &Typed) -> Index {
        let mut walker = Walker {
            index: Index::default(),
            typed,
            tables: files
                .iter()
                .flat_map(|f| &f.decls)
                .filter_map(|d| match &d.kind {
                    DeclKind::Table(t) => Some(t.name.name.clone()),
                    _ => None,
                })
                .chain(
                    files
                        .iter()
                        .filter_map(|f| f.module.as_ref())
                        .flat_map(|m| m.params.iter().map(|p| p.name.name.clone())),
                )
                .collect(),
            markers: files
                .iter()
                .flat_map(|f| &f.decls)
                .filter_map(|d| match &d.kind {
                    DeclKind::Marker(m) => Some(m.name.name.clone()),
                    _ => None,
                })
                .collect(),
            scope: None,
        };
        for file in files {
            if let Some(module) = &file.module {
                for p in &module.params {
                    walker.table_def(&p.name, &p.fields, None, "module parameter");
                }
            }
            for decl in &file.decls {
                walker.decl(decl);
            }
        }
        walker.index
    }

    /// The occurrence whose span holds byte `offset` of `file` (the
    /// narrowest, should two nest).
    pub fn at(&self, file: FileId, offset: usize) -> Option<&Occurrence> {
        self.occurrences
            .iter()
            .filter(|o| o.span.file == file && contains(o.span, offset))
            .min_by_key(|o| o.span.end - o.span.start)
    }

    pub fn def(&self, key: &Key) -> Option<&Def> {
        self.defs.iter().find(|d| &d.key == key)
    }

    /// Every occurrence of `key`, in file and source order.
    pub fn references(&self, key: &Key) -> Vec<Span> {
        let mut spans: Vec<Span> = self
            .occurrences
            .iter()
            .filter(|o| &o.key == key)
            .map(|o| o.span)
            .collect();
        spans.sort();
        spans.dedup();
        spans
    }
}

/// Whether `offset` is in `span` or just after it (a cursor at the end of a
/// name is still on it).
pub fn contains(span: Span, offset: usize) -> bool {
    span.start as usize <= offset && offset <= span.end as usize
}

struct Walker<'t> {
    index: Index,
    typed: &'t Typed,
    tables: Vec<String>,
    markers: Vec<String>,
    /// The declaration being walked, for locals' scope.
    scope: Option<Span>,
}

impl Walker<'_> {
    fn def(&mut self, key: Key, name: &Ident, signature: String, doc: Option<&String>) {
        self.index.occurrences.push(Occurrence {
            span: name.span,
            key: key.clone(),
        });
        self.index.defs.push(Def {
            key,
            name: name.name.clone(),
            span: name.span,
            signature,
            doc: doc.cloned(),
            row_table: None,
            scope: None,
        });
    }

    fn local(&mut self, name: &Ident, what: &str, ty: String, row_table: Option<String>) {
        let key = Key::Local(name.span);
        self.index.occurrences.push(Occurrence {
            span: name.span,
            key: key.clone(),
        });
        self.index.defs.push(Def {
            key,
            name: name.name.clone(),
            span: name.span,
            signature: format!("{what} {}: {ty}", name.name),
            doc: None,
            row_table,
            scope: self.scope,
        });
    }

    fn used(&mut self, span: Span, key: Key) {
        self.index.occurrences.push(Occurrence { span, key });
    }

    fn table_ref(&mut self, name: &Ident) {
        self.used(name.span, Key::Table(name.name.clone()));
    }

    /// A written type names a table or an enum.
    fn type_ref(&mut self, t: &TypeExpr) {
        let name = &t.name.name;
        if self.tables.contains(name) {
            self.used(t.name.span, Key::Table(name.clone()));
        } else if !is_builtin_type(name) {
            self.used(t.name.span, Key::Enum(name.clone()));
        }
    }

    fn page_ref(&mut self, r: &PageRef) {
        let name = r.name.name.clone();
        let key = if self.markers.contains(&name) {
            Key::Marker(name)
        } else {
            Key::Page(name)
        };
        self.used(r.name.span, key);
        self.record_page_use(r);
        self.exprs(&r.args);
    }

    fn record_page_use(&mut self, r: &PageRef) {
        let args = r
            .args
            .iter()
            .map(|a| match &a.kind {
                ExprKind::Name(n) => (Some(n.name.clone()), a.id),
                _ => (None, a.id),
            })
            .collect();
        self.index.page_refs.push(PageUse {
            name: r.name.span,
            args,
        });
    }

    fn table_def(&mut self, name: &Ident, fields: &[FieldDecl], doc: Option<&String>, what: &str) {
        let table = name.name.clone();
        self.def(
            Key::Table(table.clone()),
            name,
            format!("{what} {table} ({} fields)", fields.len()),
            doc,
        );
        for f in fields {
            self.type_ref(&f.ty);
            self.def(
                Key::Field(table.clone(), f.name.name.clone()),
                &f.name,
                format!("field {table}.{}: {}", f.name.name, type_text(&f.ty)),
                None,
            );
        }
    }

    fn decl(&mut self, decl: &Decl) {
        self.scope = Some(decl.span);
        let doc = decl.doc.as_ref();
        match &decl.kind {
            DeclKind::Use(u) => {
                for (_, table) in &u.bindings {
                    self.table_ref(table);
                }
            }
            DeclKind::Site(s) => {
                self.def(Key::Site, &s.name, format!("site {}", s.name.name), doc);
                if let Some(start) = &s.start {
                    self.page_ref(start);
                }
                if let Some(today) = &s.today {
                    self.expr(today);
                }
            }
            DeclKind::Enum(e) => {
                let variants: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
                self.def(
                    Key::Enum(e.name.name.clone()),
                    &e.name,
                    format!("enum {} {{ {} }}", e.name.name, variants.join(", ")),
                    doc,
                );
                for v in &e.variants {
                    self.def(
                        Key::Variant(e.name.name.clone(), v.name.clone()),
                        v,
                        format!("variant {}.{}", e.name.name, v.name),
                        None,
                    );
                }
            }
            DeclKind::Table(t) => self.table_def(&t.name, &t.fields, doc, "table"),
            DeclKind::Seed(s) => {
                self.table_ref(&s.table);
                for row in &s.rows {
                    self.field_inits(&s.table.name, &row.fields);
                }
            }
            DeclKind::Session(s) => {
                for v in &s.vars {
                    self.type_ref(&v.ty);
                    self.def(
                        Key::Session(v.name.name.clone()),
                        &v.name,
                        format!("session {}: {}", v.name.name, type_text(&v.ty)),
                        doc,
                    );
                    self.expr(&v.init);
                }
            }
            DeclKind::Invariant(i) => {
                self.def(
                    Key::Invariant(i.name.name.clone()),
                    &i.name,
                    format!("invariant {}", i.name.name),
                    doc,
                );
                self.expr(&i.cond);
            }
            DeclKind::Page(p) => {
                self.def(
                    Key::Page(p.name.name.clone()),
                    &p.name,
                    format!("page {}{}", p.name.name, params_text(&p.params)),
                    doc,
                );
                self.params(&p.params);
                if let Some(route) = &p.route {
                    self.text(route);
                }
                for guard in &p.guards {
                    self.expr(&guard.cond);
                    self.page_ref(&guard.target);
                }
                for t in &p.titles {
                    self.text(t);
                }
                self.elements(&p.body);
            }
            DeclKind::Marker(m) => self.marker(m, doc),
            DeclKind::Task(t) => self.task(t, doc),
        }
        self.scope = None;
    }

    fn params(&mut self, params: &[Param]) {
        for p in params {
            self.form_var(&p.name, "parameter", Some(&p.ty));
        }
    }

    /// A parameter or form variable of a written type (`Text` when none is
    /// written), remembering the table when it holds rows.
    fn form_var(&mut self, var: &Ident, what: &str, ty: Option<&TypeExpr>) {
        let Some(ty) = ty else {
            self.local(var, what, "Text".into(), None);
            return;
        };
        self.type_ref(ty);
        let rows = self
            .tables
            .contains(&ty.name.name)
            .then(|| ty.name.name.clone());
        self.local(var, what, type_text(ty), rows);
    }

    fn marker(&mut self, m: &MarkerDecl, doc: Option<&String>) {
        let head = if m.is_extern {
            "extern marker"
        } else {
            "marker"
        };
        self.def(
            Key::Marker(m.name.name.clone()),
            &m.name,
            format!("{head} {}{}", m.name.name, params_text(&m.params)),
            doc,
        );
        self.params(&m.params);
        for p in m.reads.iter().chain(&m.writes) {
            self.permission(p);
        }
        for r in &m.requires {
            self.expr(&r.cond);
            if let Some(msg) = &r.message {
                self.text(msg);
            }
        }
        self.stmts(&m.body);
    }

    fn permission(&mut self, p: &Permission) {
        if p.base.name == "session" {
            if let Some(f) = &p.field {
                self.used(f.span, Key::Session(f.name.clone()));
            }
            return;
        }
        self.table_ref(&p.base);
        if let Some(f) = &p.field {
            self.used(f.span, Key::Field(p.base.name.clone(), f.name.clone()));
        }
    }

    fn task(&mut self, t: &TaskDecl, doc: Option<&String>) {
        self.def(
            Key::Task(t.name.name.clone()),
            &t.name,
            format!("task {}", t.name.name),
            doc,
        );
        if let Some(tpl) = &t.template {
            self.binder(&tpl.binder, &tpl.table);
            self.opt(tpl.filter.as_ref());
            self.opt(tpl.limit.as_ref());
        }
        if let Some(say) = &t.say {
            self.text(say);
        }
        if let Some(start) = &t.start {
            self.page_ref(start);
        }
        self.opt(t.goal.as_ref());
        self.opt(t.answer.as_ref());
        for p in &t.progress {
            self.expr(&p.pred);
        }
        for node in t.key.iter().flatten() {
            if let KeyNode::Page(r) = node {
                self.page_ref(r);
            }
        }
        for v in &t.values {
            self.text(v);
        }
        if let Some(setup) = &t.setup {
            self.stmts(setup);
        }
    }

    fn elements(&mut self, elements: &[Element]) {
        for e in elements {
            self.element(e);
        }
    }

    fn element(&mut self, e: &Element) {
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
                self.opt(disabled.as_ref());
            }
            ElementKind::Input { var, ty, label } => {
                self.text(label);
                self.form_var(var, "form input", ty.as_ref());
            }
            ElementKind::SelectList {
                var,
                ty,
                label,
                options,
            } => {
                self.text(label);
                self.exprs(options);
                self.form_var(var, "form select", ty.as_ref());
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
                self.binder(binder, table);
                self.opt(filter.as_ref());
                self.expr(show);
                self.form_var(var, "form select", Some(ty));
            }
            ElementKind::Checkbox { var, label } => {
                self.text(label);
                self.local(var, "form checkbox", "Bool".into(), None);
            }
            ElementKind::Section { label, body } => {
                self.text(label);
                self.elements(body);
            }
            ElementKind::For(f) => {
                match &f.source {
                    LoopSource::Table(t) => {
                        self.binder(&f.binder, t);
                    }
                    LoopSource::List(items, _) => {
                        self.exprs(items);
                        self.local(&f.binder, "binder", "Text".into(), None);
                    }
                }
                self.opt(f.filter.as_ref());
                if let Some(order) = &f.order {
                    self.expr(&order.key);
                }
                self.opt(f.limit.as_ref());
                self.opt(f.offset.as_ref());
                self.elements(&f.body);
            }
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.elements(then);
                self.elements(otherwise);
            }
            ElementKind::Let { var, value } => self.let_local(var, value),
            ElementKind::Stmt(s) => self.stmt(s),
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// `let name = value`, in a marker, a `setup` or on a page.
    fn let_local(&mut self, name: &Ident, value: &Expr) {
        self.expr(value);
        let ty = self.typed.ty(value.id);
        let table = ty.row_table().map(str::to_string);
        self.local(name, "let", ty.to_string(), table);
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { name, value } => self.let_local(name, value),
            StmtKind::Insert {
                name,
                table,
                fields,
            } => {
                self.table_ref(table);
                self.field_inits(&table.name, fields);
                if let Some(name) = name {
                    self.local(name, "let", table.name.clone(), Some(table.name.clone()));
                }
            }
            StmtKind::Set { target, value } => {
                self.expr(target);
                self.expr(value);
            }
            StmtKind::Delete(e) => self.expr(e),
            StmtKind::DeleteAll {
                binder,
                table,
                filter,
            } => {
                self.binder(binder, table);
                self.opt(filter.as_ref());
            }
            StmtKind::For {
                binder,
                table,
                filter,
                body,
            } => {
                self.binder(binder, table);
                self.opt(filter.as_ref());
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

    fn field_inits(&mut self, table: &str, fields: &[FieldInit]) {
        for f in fields {
            self.used(f.name.span, Key::Field(table.into(), f.name.name.clone()));
            self.expr(&f.value);
        }
    }

    fn text(&mut self, t: &TextLit) {
        for e in t.interpolations() {
            self.expr(e);
        }
    }

    fn opt(&mut self, e: Option<&Expr>) {
        if let Some(e) = e {
            self.expr(e);
        }
    }

    fn exprs(&mut self, es: &[Expr]) {
        for e in es {
            self.expr(e);
        }
    }

    /// A binder over the rows of `table`.
    fn binder(&mut self, binder: &Ident, table: &Ident) {
        self.table_ref(table);
        self.local(
            binder,
            "binder",
            table.name.clone(),
            Some(table.name.clone()),
        );
    }

    fn expr(&mut self, e: &Expr) {
        self.index.exprs.push((e.span, e.id));
        match &e.kind {
            ExprKind::Name(name) => match self.typed.names.get(&e.id) {
                Some(Resolved::Local { span, .. }) => self.used(name.span, Key::Local(*span)),
                Some(Resolved::Variant { enum_name, variant }) => {
                    self.used(name.span, Key::Variant(enum_name.clone(), variant.clone()));
                }
                Some(Resolved::Table(t)) => self.used(name.span, Key::Table(t.clone())),
                Some(Resolved::Session) | None => {}
            },
            ExprKind::Field(_, field) => {
                let access = self
                    .typed
                    .fields
                    .get(&e.id)
                    .or_else(|| self.typed.sets.get(&e.id));
                match access {
                    Some(Access::Field { table, field: f }) => {
                        self.used(field.span, Key::Field(table.clone(), f.clone()));
                    }
                    Some(Access::Session(v)) => self.used(field.span, Key::Session(v.clone())),
                    None => {}
                }
            }
            ExprKind::Quantifier { binder, table, .. }
            | ExprKind::Aggregate { binder, table, .. }
            | ExprKind::Find { binder, table, .. } => self.binder(binder, table),
            ExprKind::Count { binder, table, .. } => match binder {
                Some(b) => self.binder(b, table),
                None => self.table_ref(table),
            },
            ExprKind::Visited(r) | ExprKind::PageIs(r) => {
                let name = r.name.name.clone();
                self.used(r.name.span, Key::Page(name));
                self.record_page_use(r);
            }
            _ => {}
        }
        // Children after the binder, so a binder's declaration comes first.
        for child in e.kind.children() {
            self.expr(child);
        }
    }
}

fn is_builtin_type(name: &str) -> bool {
    matches!(name, "Int" | "Money" | "Bool" | "Text" | "Date" | "Time")
}

pub fn type_text(t: &TypeExpr) -> String {
    format!("{}{}", t.name.name, if t.optional { "?" } else { "" })
}

fn params_text(params: &[Param]) -> String {
    if params.is_empty() {
        return String::new();
    }
    let list: Vec<String> = params
        .iter()
        .map(|p| format!("{}: {}", p.name.name, type_text(&p.ty)))
        .collect();
    format!("({})", list.join(", "))
}
