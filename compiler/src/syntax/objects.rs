//! The objects a file declares, as diagnostics name them (`page Cart`,
//! `marker buy`): the syntax tree's side of [`Declarations`], which the JSON
//! report reads without knowing the tree.

use super::ast::{DeclKind, SourceFile, Span};
use crate::diagnostics::json::Declarations;

impl Declarations for SourceFile {
    fn declaration_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.decls.iter().map(|d| d.span)
    }

    fn object_at(&self, span: Span) -> Option<String> {
        let decl = self
            .decls
            .iter()
            .rev()
            // The declaration holding the span, or the one just before it (an
            // unclosed block is reported where the next token should have been).
            .find(|d| d.span.start <= span.start)?;
        let (kind, name) = match &decl.kind {
            DeclKind::Site(s) => ("site", s.name.name.as_str()),
            DeclKind::Enum(e) => ("enum", e.name.name.as_str()),
            DeclKind::Table(t) => ("table", t.name.name.as_str()),
            DeclKind::Seed(s) => ("seed", s.table.name.as_str()),
            DeclKind::Session(_) => ("session", ""),
            DeclKind::Invariant(i) => ("invariant", i.name.name.as_str()),
            DeclKind::Page(p) => ("page", p.name.name.as_str()),
            DeclKind::Marker(m) => ("marker", m.name.name.as_str()),
            DeclKind::Task(t) => ("task", t.name.name.as_str()),
            DeclKind::Use(_) => ("use", ""),
        };
        Some(if name.is_empty() {
            kind.to_string()
        } else {
            format!("{kind} {name}")
        })
    }
}
