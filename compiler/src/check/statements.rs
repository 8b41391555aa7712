//! What the checks know about a statement from the AST alone, shared by the
//! type checker ([`types`](super::types)) and the effect checker
//! ([`effects`](super::effects)): whether it writes persistent state, and the
//! span a diagnostic about it (or about a page reference) points at.

use crate::syntax::ast::{PageRef, Span, Stmt, StmtKind};

/// Whether a statement writes persistent state (the database or the session).
pub(crate) fn writes_state(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Insert { .. }
        | StmtKind::Set { .. }
        | StmtKind::Delete(_)
        | StmtKind::DeleteAll { .. } => true,
        StmtKind::For { body, .. } => body.iter().any(writes_state),
        StmtKind::If {
            then, otherwise, ..
        } => then.iter().chain(otherwise).any(writes_state),
        StmtKind::Let { .. } | StmtKind::Reject(_) | StmtKind::Go(_) => false,
    }
}

/// A statement's span from its keyword to the end of its last part. (The
/// parser's span of a statement that ends in an optional part may run on over
/// the whitespace and comments after it.) Block statements keep their own span,
/// which ends at their `}`.
pub(crate) fn stmt_span(s: &Stmt) -> Span {
    let end = match &s.kind {
        StmtKind::Let { value, .. } => Some(value.span),
        StmtKind::Set { value, .. } => Some(value.span),
        StmtKind::Delete(row) => Some(row.span),
        StmtKind::DeleteAll { table, filter, .. } => {
            Some(filter.as_ref().map_or(table.span, |f| f.span))
        }
        StmtKind::Reject(message) => Some(message.span),
        StmtKind::Go(target) => Some(page_ref_span(target)),
        StmtKind::Insert { .. } | StmtKind::For { .. } | StmtKind::If { .. } => None,
    };
    match end {
        Some(end) if end.end >= s.span.start && end.end <= s.span.end => Span {
            end: end.end,
            ..s.span
        },
        _ => s.span,
    }
}

/// A page reference's span, `Name` alone when it has no `( )`.
pub(crate) fn page_ref_span(r: &PageRef) -> Span {
    if r.has_parens {
        r.span
    } else {
        r.name.span
    }
}
