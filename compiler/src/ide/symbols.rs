//! The outline of a file: its declarations, with tables' fields, enums'
//! variants, session variables and pages' named elements beneath them.

use super::Analysis;
use crate::syntax::ast::{DeclKind, Element, ElementKind, FileId, Ident, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Site,
    Module,
    Page,
    Marker,
    Table,
    Field,
    Enum,
    Variant,
    Task,
    Invariant,
    Session,
    Seed,
    Element,
    /// A page `let`.
    Variable,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DocumentSymbol {
    pub name: String,
    pub detail: String,
    pub kind: SymbolKind,
    /// The whole declaration.
    pub span: Span,
    /// Its name.
    pub name_span: Span,
    pub children: Vec<DocumentSymbol>,
}

fn symbol(name: &Ident, kind: SymbolKind, span: Span, detail: String) -> DocumentSymbol {
    DocumentSymbol {
        name: name.name.clone(),
        detail,
        kind,
        span: span.to(name.span),
        name_span: name.span,
        children: Vec::new(),
    }
}

impl Analysis {
    pub fn document_symbols(&self, file: FileId) -> Vec<DocumentSymbol> {
        let Some(source) = self.compilation.files.iter().find(|f| f.file == file) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(m) = &source.module {
            out.push(symbol(&m.name, SymbolKind::Module, m.span, "module".into()));
        }
        for decl in &source.decls {
            let span = decl.span;
            let item = match &decl.kind {
                DeclKind::Use(_) => continue,
                DeclKind::Site(s) => symbol(&s.name, SymbolKind::Site, span, "site".into()),
                DeclKind::Enum(e) => {
                    let mut sym = symbol(&e.name, SymbolKind::Enum, span, "enum".into());
                    sym.children = e
                        .variants
                        .iter()
                        .map(|v| symbol(v, SymbolKind::Variant, v.span, String::new()))
                        .collect();
                    sym
                }
                DeclKind::Table(t) => {
                    let mut sym = symbol(&t.name, SymbolKind::Table, span, "table".into());
                    sym.children = t
                        .fields
                        .iter()
                        .map(|f| {
                            let detail = super::index::type_text(&f.ty);
                            symbol(
                                &f.name,
                                SymbolKind::Field,
                                f.name.span.to(f.ty.span),
                                detail,
                            )
                        })
                        .collect();
                    sym
                }
                DeclKind::Seed(s) => {
                    let detail = format!("{} rows", s.rows.len());
                    let mut sym = symbol(&s.table, SymbolKind::Seed, span, detail);
                    sym.name = format!("seed {}", s.table.name);
                    sym
                }
                DeclKind::Session(s) => {
                    let first = s.vars.first().map(|v| v.name.clone());
                    let Some(anchor) = first else { continue };
                    let mut sym = symbol(&anchor, SymbolKind::Session, span, String::new());
                    sym.name = "session".into();
                    sym.name_span = span;
                    sym.children = s
                        .vars
                        .iter()
                        .map(|v| {
                            let detail = super::index::type_text(&v.ty);
                            symbol(
                                &v.name,
                                SymbolKind::Field,
                                v.name.span.to(v.init.span),
                                detail,
                            )
                        })
                        .collect();
                    sym
                }
                DeclKind::Invariant(i) => {
                    symbol(&i.name, SymbolKind::Invariant, span, "invariant".into())
                }
                DeclKind::Page(p) => {
                    let mut sym = symbol(&p.name, SymbolKind::Page, span, "page".into());
                    named_elements(&p.body, &mut sym.children);
                    sym
                }
                DeclKind::Marker(m) => symbol(&m.name, SymbolKind::Marker, span, "marker".into()),
                DeclKind::Task(t) => symbol(&t.name, SymbolKind::Task, span, "task".into()),
            };
            out.push(item);
        }
        out
    }
}

/// Elements with a `#name` and page `let`s, at any depth, as children of
/// their page.
fn named_elements(elements: &[Element], out: &mut Vec<DocumentSymbol>) {
    for e in elements {
        if let Some(name) = &e.name {
            out.push(symbol(name, SymbolKind::Element, e.span, String::new()));
        }
        match &e.kind {
            ElementKind::Let { var, .. } => {
                out.push(symbol(var, SymbolKind::Variable, e.span, "let".into()))
            }
            ElementKind::Section { body, .. } => named_elements(body, out),
            ElementKind::For(f) => named_elements(&f.body, out),
            ElementKind::If {
                then, otherwise, ..
            } => {
                named_elements(then, out);
                named_elements(otherwise, out);
            }
            _ => {}
        }
    }
}
