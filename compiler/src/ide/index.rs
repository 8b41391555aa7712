//! Where every name of a program is declared and where it is used, built by
//! one walk over the AST (a [`Visit`]) with the type checker's resolutions.
//! Hover, go to definition, find references, rename-like features and
//! completion all read this index; none resolves a name itself.

use crate::check::types::{Access, Resolved, Typed};
use crate::syntax::ast::*;
use crate::syntax::visit::{self, Visit};

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
            decl: None,
        };
        for file in files {
            if let Some(module) = &file.module {
                for p in &module.params {
                    walker.table_def(&p.name, &p.fields, None, "module parameter");
                }
            }
            for decl in &file.decls {
                walker.visit_decl(decl);
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

/// Builds the [`Index`], recording each name as the walk meets it.
struct Walker<'t, 'ast> {
    index: Index,
    typed: &'t Typed,
    tables: Vec<String>,
    markers: Vec<String>,
    /// The declaration being walked: its span is its locals' scope, its doc
    /// goes with every name it declares.
    decl: Option<&'ast Decl>,
}

impl<'ast> Visit<'ast> for Walker<'_, 'ast> {
    fn visit_decl(&mut self, decl: &'ast Decl) {
        self.decl = Some(decl);
        self.declare(decl);
        visit::walk_decl(self, decl);
        self.decl = None;
    }

    /// Each variable is declared right before its initial value.
    fn visit_session_var(&mut self, v: &'ast SessionVar) {
        self.type_ref(&v.ty);
        self.def(
            Key::Session(v.name.name.clone()),
            &v.name,
            format!("session {}: {}", v.name.name, type_text(&v.ty)),
            self.doc(),
        );
        visit::walk_session_var(self, v);
    }

    /// Form variables and `let`s are declared after what they hold.
    fn visit_element(&mut self, e: &'ast Element) {
        visit::walk_element(self, e);
        match &e.kind {
            ElementKind::Input { var, ty, .. } => self.form_var(var, "form input", ty.as_ref()),
            ElementKind::SelectList { var, ty, .. } => {
                self.form_var(var, "form select", ty.as_ref())
            }
            ElementKind::SelectFrom { var, ty, .. } => self.form_var(var, "form select", Some(ty)),
            ElementKind::Checkbox { var, .. } => {
                self.local(var, "form checkbox", "Bool".into(), None)
            }
            ElementKind::Let { var, value } => self.let_local(var, value),
            _ => {}
        }
    }

    /// `let`s are declared after their value.
    fn visit_stmt(&mut self, s: &'ast Stmt) {
        visit::walk_stmt(self, s);
        match &s.kind {
            StmtKind::Let { name, value } => self.let_local(name, value),
            StmtKind::Insert {
                name: Some(name),
                table,
                ..
            } => self.local(name, "let", table.name.clone(), Some(table.name.clone())),
            _ => {}
        }
    }

    fn visit_field_init(&mut self, table: &'ast Ident, f: &'ast FieldInit) {
        self.used(
            f.name.span,
            Key::Field(table.name.clone(), f.name.name.clone()),
        );
        visit::walk_field_init(self, table, f);
    }

    fn visit_page_ref(&mut self, r: &'ast PageRef) {
        let name = r.name.name.clone();
        let key = if self.markers.contains(&name) {
            Key::Marker(name)
        } else {
            Key::Page(name)
        };
        self.page_use(r, key);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        self.index.exprs.push((e.span, e.id));
        match &e.kind {
            ExprKind::Name(name) => self.name_use(e.id, name),
            ExprKind::Field(_, field) => self.field_use(e.id, field),
            // `visited` and `page is` name a page, never a marker.
            ExprKind::Visited(r) | ExprKind::PageIs(r) => {
                self.page_use(r, Key::Page(r.name.name.clone()));
                return;
            }
            _ => {}
        }
        visit::walk_expr(self, e);
    }

    fn visit_row_binder(&mut self, binder: &'ast Ident, table: &'ast Ident) {
        self.table_ref(table);
        self.local(
            binder,
            "binder",
            table.name.clone(),
            Some(table.name.clone()),
        );
    }

    fn visit_list_binder(&mut self, binder: &'ast Ident) {
        self.local(binder, "binder", "Text".into(), None);
    }

    fn visit_table_ref(&mut self, table: &'ast Ident) {
        self.table_ref(table);
    }
}

impl<'ast> Walker<'_, 'ast> {
    fn doc(&self) -> Option<&'ast String> {
        self.decl.and_then(|d| d.doc.as_ref())
    }

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
            scope: self.decl.map(|d| d.span),
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

    /// A reference to the page or marker `key`, then its arguments.
    fn page_use(&mut self, r: &'ast PageRef, key: Key) {
        self.used(r.name.span, key);
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
        visit::walk_page_ref(self, r);
    }

    fn name_use(&mut self, id: ExprId, name: &Ident) {
        match self.typed.names.get(&id) {
            Some(Resolved::Local { span, .. }) => self.used(name.span, Key::Local(*span)),
            Some(Resolved::Variant { enum_name, variant }) => {
                self.used(name.span, Key::Variant(enum_name.clone(), variant.clone()));
            }
            Some(Resolved::Table(t)) => self.used(name.span, Key::Table(t.clone())),
            Some(Resolved::Session) | None => {}
        }
    }

    /// A field read or a `set` target.
    fn field_use(&mut self, id: ExprId, field: &Ident) {
        let access = self
            .typed
            .fields
            .get(&id)
            .or_else(|| self.typed.sets.get(&id));
        match access {
            Some(Access::Field { table, field: f }) => {
                self.used(field.span, Key::Field(table.clone(), f.clone()));
            }
            Some(Access::Session(v)) => self.used(field.span, Key::Session(v.clone())),
            None => {}
        }
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

    /// What a declaration declares in its header, before anything in its
    /// body. (Session variables are declared one by one, in
    /// `visit_session_var`.)
    fn declare(&mut self, decl: &Decl) {
        let doc = decl.doc.as_ref();
        match &decl.kind {
            DeclKind::Site(s) => self.def(Key::Site, &s.name, format!("site {}", s.name.name), doc),
            DeclKind::Enum(e) => self.enum_def(e, doc),
            DeclKind::Table(t) => self.table_def(&t.name, &t.fields, doc, "table"),
            DeclKind::Invariant(i) => self.def(
                Key::Invariant(i.name.name.clone()),
                &i.name,
                format!("invariant {}", i.name.name),
                doc,
            ),
            DeclKind::Page(p) => {
                self.def(
                    Key::Page(p.name.name.clone()),
                    &p.name,
                    format!("page {}{}", p.name.name, params_text(&p.params)),
                    doc,
                );
                self.params(&p.params);
            }
            DeclKind::Marker(m) => self.marker_def(m, doc),
            DeclKind::Task(t) => self.def(
                Key::Task(t.name.name.clone()),
                &t.name,
                format!("task {}", t.name.name),
                doc,
            ),
            DeclKind::Use(_) | DeclKind::Seed(_) | DeclKind::Session(_) => {}
        }
    }

    fn enum_def(&mut self, e: &EnumDecl, doc: Option<&String>) {
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

    /// The marker, its parameters and the names its permissions use.
    fn marker_def(&mut self, m: &MarkerDecl, doc: Option<&String>) {
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

    /// A `let`, in a marker, a `setup` or on a page, once its value is walked.
    fn let_local(&mut self, name: &Ident, value: &Expr) {
        let ty = self.typed.ty(value.id);
        let table = ty.row_table().map(str::to_string);
        self.local(name, "let", ty.to_string(), table);
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
