//! Finding declarations and source text by name, for mapping the prover's
//! findings back to the source.

use crate::syntax::ast::{
    BinaryOp, DeclKind, Expr, ExprKind, InvariantDecl, MarkerDecl, SourceFile, Span, TaskDecl,
};

pub struct Ast<'a> {
    files: &'a [SourceFile],
    texts: &'a [&'a str],
}

impl<'a> Ast<'a> {
    pub fn new(files: &'a [SourceFile], texts: &'a [&'a str]) -> Ast<'a> {
        Ast { files, texts }
    }

    fn decls(&self) -> impl Iterator<Item = &'a DeclKind> {
        self.files
            .iter()
            .flat_map(|f| f.decls.iter().map(|d| &d.kind))
    }

    pub fn task(&self, name: &str) -> Option<&'a TaskDecl> {
        self.decls().find_map(|d| match d {
            DeclKind::Task(t) if t.name.name == name => Some(t),
            _ => None,
        })
    }

    pub fn marker(&self, name: &str) -> Option<&'a MarkerDecl> {
        self.decls().find_map(|d| match d {
            DeclKind::Marker(m) if m.name.name == name => Some(m),
            _ => None,
        })
    }

    pub fn invariant(&self, name: &str) -> Option<&'a InvariantDecl> {
        self.decls().find_map(|d| match d {
            DeclKind::Invariant(i) if i.name.name == name => Some(i),
            _ => None,
        })
    }

    /// The source text of a span (empty when out of range).
    pub fn text(&self, span: Span) -> &'a str {
        self.texts
            .get(span.file.0 as usize)
            .and_then(|t| t.get(span.start as usize..span.end as usize))
            .unwrap_or("")
    }
}

/// The top-level `and`-conjuncts of a goal, left to right: the same split the
/// prover makes of the lowered goal, so positions agree.
pub fn conjuncts(goal: &Expr) -> Vec<&Expr> {
    match &goal.kind {
        ExprKind::Binary(BinaryOp::And, l, r) => {
            let mut out = conjuncts(l);
            out.extend(conjuncts(r));
            out
        }
        _ => vec![goal],
    }
}
