//! Narrowing (spec §3, 1.1): after a condition `x != none`, where `x` is a
//! *path* — a variable, a parameter, `session.var`, or a field path on one of
//! these (`c.sunday_open`, `l.book.due`) — `x` has type `T` instead of `T?`
//! wherever the condition is known to hold: the rest of an `and` chain, the
//! then-branch of `if`, the body of a `for … where` (and of a quantifier,
//! aggregate, `select … from` or task template after `where`), and, after
//! `requires x != none`, the later clauses and the marker body.
//!
//! The rule is static only: the value of a narrowed path is present whenever
//! the narrowed code runs, so lowering and the engines need nothing (the IR
//! keeps no separate representation for optional values). Two things keep
//! that true inside statement blocks, where state changes: a `set` forgets
//! every narrowed path through the field or session variable it writes, for
//! the rest of the narrowing, and a statement loop forgets, before its body,
//! what the body writes (a later iteration runs after those writes).
//!
//! The entry points for other constructs (the page engineer's guards, say):
//! [`Checker::narrowed_paths`] lists what a checked condition narrows, and
//! [`Checker::narrowing`] checks a region with those paths narrowed.

use super::{Checker, Ty};
use crate::syntax::ast::*;

/// A narrowable expression: where its value comes from, then field names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Path {
    head: Head,
    fields: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Head {
    /// A local, by its declaration (so a shadowing local is another path).
    Local(Span),
    /// `session.var`
    Session(String),
}

/// What a `set` writes, by name: the last field of its target, or a
/// session variable. Paths through it are forgotten.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Written {
    Field(String),
    Session(String),
}

impl Path {
    fn through(&self, w: &Written) -> bool {
        match w {
            Written::Field(f) => self.fields.iter().any(|x| x == f),
            Written::Session(v) => self.head == Head::Session(v.clone()),
        }
    }
}

impl<'a> Checker<'a, '_> {
    /// The path `e` denotes, if it is narrowable.
    pub(crate) fn path_of(&self, e: &Expr) -> Option<Path> {
        match &e.kind {
            ExprKind::Name(n) => self.lookup(&n.name).map(|l| Path {
                head: Head::Local(l.span),
                fields: Vec::new(),
            }),
            ExprKind::Field(base, field) if self.is_session_head(base) => Some(Path {
                head: Head::Session(field.name.clone()),
                fields: Vec::new(),
            }),
            ExprKind::Field(base, field) => {
                let mut path = self.path_of(base)?;
                path.fields.push(field.name.clone());
                Some(path)
            }
            _ => None,
        }
    }

    /// The paths a (checked) condition proves present when it holds:
    /// `p != none`, `none != p`, and those of both sides of an `and`.
    pub(crate) fn narrowed_paths(&self, cond: &Expr) -> Vec<Path> {
        match &cond.kind {
            ExprKind::Binary(BinaryOp::And, l, r) => {
                let mut paths = self.narrowed_paths(l);
                paths.extend(self.narrowed_paths(r));
                paths
            }
            ExprKind::Binary(BinaryOp::Ne, l, r) => {
                let tested = match (&l.kind, &r.kind) {
                    (_, ExprKind::None) => l,
                    (ExprKind::None, _) => r,
                    _ => return Vec::new(),
                };
                self.path_of(tested).into_iter().collect()
            }
            _ => Vec::new(),
        }
    }

    /// Runs `f` with `paths` narrowed (on top of what already is).
    pub(crate) fn narrowing<R>(&mut self, paths: Vec<Path>, f: impl FnOnce(&mut Self) -> R) -> R {
        self.narrowed.push(paths);
        let result = f(self);
        self.narrowed.pop();
        result
    }

    /// Checks `cond` as a condition, then runs `f` where it holds.
    pub(super) fn cond_then<R>(
        &mut self,
        cond: &'a Expr,
        what: &str,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        self.cond(cond, what);
        let paths = self.narrowed_paths(cond);
        self.narrowing(paths, f)
    }

    /// Checks an optional `where` filter, then runs `f` for the rows it keeps.
    pub(super) fn filter_then<R>(
        &mut self,
        filter: Option<&'a Expr>,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        match filter {
            Some(cond) => self.cond_then(cond, "a `where` filter", f),
            None => f(self),
        }
    }

    /// `ty` without its `?` when `e` is a narrowed path.
    pub(super) fn narrow(&self, e: &Expr, ty: Ty) -> Ty {
        match ty {
            Ty::Optional(inner) if self.is_narrowed(e) => *inner,
            other => other,
        }
    }

    fn is_narrowed(&self, e: &Expr) -> bool {
        if self.narrowed.iter().all(Vec::is_empty) {
            return false;
        }
        self.path_of(e)
            .is_some_and(|p| self.narrowed.iter().flatten().any(|n| *n == p))
    }

    /// After `set target = …`: what went through the target is no longer
    /// known to be present.
    pub(super) fn forget_set(&mut self, target: &Expr) {
        if let Some(w) = self.written(target) {
            for paths in &mut self.narrowed {
                paths.retain(|p| !p.through(&w));
            }
        }
    }

    /// Before a statement loop's body: forgets what the body writes.
    pub(super) fn forget_sets_in(&mut self, body: &[Stmt]) {
        for s in body {
            match &s.kind {
                StmtKind::Set { target, .. } => self.forget_set(target),
                StmtKind::For { body, .. } => self.forget_sets_in(body),
                StmtKind::If {
                    then, otherwise, ..
                } => {
                    self.forget_sets_in(then);
                    self.forget_sets_in(otherwise);
                }
                _ => {}
            }
        }
    }

    fn written(&self, target: &Expr) -> Option<Written> {
        match &target.kind {
            ExprKind::Field(base, var) if self.is_session_head(base) => {
                Some(Written::Session(var.name.clone()))
            }
            ExprKind::Field(_, field) => Some(Written::Field(field.name.clone())),
            _ => None,
        }
    }

    /// How to write the test that narrows `e`, when `e` is a path:
    /// `l.book.due != none`.
    pub(super) fn narrowing_test(&self, e: &Expr) -> Option<String> {
        self.path_of(e)?;
        Some(format!("{} != none", path_text(e)?))
    }
}

/// The source form of a path expression (`session.user`, `l.book.due`).
fn path_text(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.name.clone()),
        ExprKind::Field(base, field) => Some(format!("{}.{}", path_text(base)?, field.name)),
        _ => None,
    }
}
