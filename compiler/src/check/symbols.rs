//! The global symbol table: every declaration by name, across all files.
//!
//! Declarations may appear in any order, so this pass runs first and later passes
//! look names up here. It reports the name-level problems it can see on its own:
//! duplicate declarations (E102) and a missing or repeated `site` (E104).

mod routes;

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::*;
use std::collections::BTreeMap;

/// Everything declared in a program, borrowed from its files.
#[derive(Default)]
pub struct Symbols<'a> {
    pub site: Option<&'a SiteDecl>,
    pub enums: BTreeMap<&'a str, &'a EnumDecl>,
    pub tables: BTreeMap<&'a str, &'a TableDecl>,
    pub pages: BTreeMap<&'a str, &'a PageDecl>,
    pub markers: BTreeMap<&'a str, &'a MarkerDecl>,
    pub tasks: BTreeMap<&'a str, &'a TaskDecl>,
    pub invariants: BTreeMap<&'a str, &'a InvariantDecl>,
    /// Session variables from every `session` block.
    pub session: BTreeMap<&'a str, &'a SessionVar>,
    /// Seed blocks in source order (a table may have several).
    pub seeds: Vec<&'a SeedDecl>,
}

impl<'a> Symbols<'a> {
    /// Collects the declarations of `files`, reporting E102 and E104.
    pub fn collect(files: &'a [SourceFile], diags: &mut Diagnostics) -> Symbols<'a> {
        let mut syms = Symbols::default();
        let mut sites: Vec<&'a SiteDecl> = Vec::new();
        // Pages, tables, enums and markers share one namespace (spec §3, 1.1): a
        // field type names a table or an enum, a button's target a page or a
        // marker, and a reader should never have to ask which `Book` is meant.
        let mut named: BTreeMap<&'a str, (Span, DeclKindName)> = BTreeMap::new();
        for decl in files.iter().flat_map(|f| &f.decls) {
            match &decl.kind {
                DeclKind::Site(s) => sites.push(s),
                DeclKind::Enum(e) => {
                    if claim(&mut named, &e.name, DeclKindName::Enum, diags) {
                        syms.enums.insert(&e.name.name, e);
                    }
                }
                DeclKind::Table(t) => {
                    if claim(&mut named, &t.name, DeclKindName::Table, diags) {
                        syms.tables.insert(&t.name.name, t);
                    }
                }
                DeclKind::Page(p) => {
                    if claim(&mut named, &p.name, DeclKindName::Page, diags) {
                        syms.pages.insert(&p.name.name, p);
                    }
                }
                DeclKind::Marker(m) => {
                    if claim(&mut named, &m.name, DeclKindName::Marker, diags) {
                        syms.markers.insert(&m.name.name, m);
                    }
                }
                DeclKind::Task(t) => insert_unique(&mut syms.tasks, &t.name, t, "task", diags),
                DeclKind::Invariant(i) => {
                    insert_unique(&mut syms.invariants, &i.name, i, "invariant", diags)
                }
                DeclKind::Session(s) => {
                    for var in &s.vars {
                        insert_unique(&mut syms.session, &var.name, var, "session variable", diags);
                    }
                }
                DeclKind::Seed(s) => syms.seeds.push(s),
                DeclKind::Use(_) => {}
            }
        }
        check_site_count(&sites, files, diags);
        routes::check(syms.pages.values().copied(), diags);
        syms.site = sites.first().copied();
        syms
    }

    /// The fields of a table, `id` excluded.
    pub fn field(&self, table: &str, field: &str) -> Option<&'a FieldDecl> {
        self.tables
            .get(table)?
            .fields
            .iter()
            .find(|f| f.name.name == field)
    }
}

/// The kinds of declaration that share the one global namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DeclKindName {
    Enum,
    Table,
    Page,
    Marker,
}

impl DeclKindName {
    fn as_str(self) -> &'static str {
        match self {
            DeclKindName::Enum => "enum",
            DeclKindName::Table => "table",
            DeclKindName::Page => "page",
            DeclKindName::Marker => "marker",
        }
    }

    /// The kind with its indefinite article: `an enum`, `a table`.
    fn with_article(self) -> &'static str {
        match self {
            DeclKindName::Enum => "an enum",
            DeclKindName::Table => "a table",
            DeclKindName::Page => "a page",
            DeclKindName::Marker => "a marker",
        }
    }
}

/// Records `name` in `seen`; reports E102 and returns false if it was there.
fn claim<'a>(
    seen: &mut BTreeMap<&'a str, (Span, DeclKindName)>,
    name: &'a Ident,
    kind: DeclKindName,
    diags: &mut Diagnostics,
) -> bool {
    match seen.get(name.name.as_str()) {
        Some((first, first_kind)) if *first_kind == kind => {
            diags.push(duplicate(name, *first, kind.as_str()));
            false
        }
        Some((first, first_kind)) => {
            diags.push(name_clash(name, kind, *first, *first_kind));
            false
        }
        None => {
            seen.insert(&name.name, (name.span, kind));
            true
        }
    }
}

/// E102 for a declaration that takes the name of one of another kind.
fn name_clash(
    name: &Ident,
    kind: DeclKindName,
    first: Span,
    first_kind: DeclKindName,
) -> Diagnostic {
    let (n, a_first_kind) = (&name.name, first_kind.with_article());
    let (kind, first_kind) = (kind.as_str(), first_kind.as_str());
    Diagnostic::new(
        Code::E102,
        name.span,
        format!("{kind} `{n}` has the name of {a_first_kind}"),
    )
    .label(format!("this {kind} is named like the {first_kind}"))
    .related(first, format!("the {first_kind} `{n}` is declared here"))
    .help(format!(
        "pages, tables, enums and markers share one namespace; rename the {kind} or the {first_kind}"
    ))
}

fn insert_unique<'a, T>(
    map: &mut BTreeMap<&'a str, &'a T>,
    name: &'a Ident,
    value: &'a T,
    what: &str,
    diags: &mut Diagnostics,
) where
    T: HasName,
{
    if let Some(first) = map.get(name.name.as_str()) {
        diags.push(duplicate(name, first.name_span(), what));
    } else {
        map.insert(&name.name, value);
    }
}

/// E102 for a second declaration of `name`.
pub fn duplicate(name: &Ident, first: Span, what: &str) -> Diagnostic {
    Diagnostic::new(
        Code::E102,
        name.span,
        format!("duplicate {what} `{}`", name.name),
    )
    .label("declared again here")
    .related(first, "first declared here")
    .help(format!(
        "rename one of them or remove the second `{}`",
        name.name
    ))
}

trait HasName {
    fn name_span(&self) -> Span;
}
impl HasName for TaskDecl {
    fn name_span(&self) -> Span {
        self.name.span
    }
}
impl HasName for InvariantDecl {
    fn name_span(&self) -> Span {
        self.name.span
    }
}
impl HasName for SessionVar {
    fn name_span(&self) -> Span {
        self.name.span
    }
}

fn check_site_count(sites: &[&SiteDecl], files: &[SourceFile], diags: &mut Diagnostics) {
    if sites.is_empty() {
        // Module files (`module ...`) are allowed to have no site; a program whose
        // every file is a module is being checked as a library.
        if files.iter().all(|f| f.module.is_some()) && !files.is_empty() {
            return;
        }
        let file = files.first().map(|f| f.file).unwrap_or_default();
        diags.push(
            Diagnostic::new(Code::E104, Span::new(file, 0, 0), "no `site` declaration")
                .help("add `site Name { title \"...\" domain other start SomePage }` to one file"),
        );
    }
    for extra in sites.iter().skip(1) {
        diags.push(
            Diagnostic::new(
                Code::E104,
                extra.name.span,
                format!("second `site` declaration `{}`", extra.name.name),
            )
            .label("a program has exactly one site")
            .related(sites[0].name.span, "the first site is declared here")
            .help("remove one of the `site` declarations"),
        );
    }
}
