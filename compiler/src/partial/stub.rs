//! The stand-in program behind partial results: a copy of the AST in which
//! each declaration with an error is stubbed so that the rest still lowers.
//!
//! What is done, by where the error is (LANGUAGE.md §4 lists the codes):
//!
//! - in a page element (a link to a page that does not exist, a mistyped
//!   condition): that element, the innermost one holding the error, is left
//!   out; the page keeps its name and the rest of its body;
//! - in a marker's `requires` or body: the marker keeps its name, parameters
//!   and permissions, with no `requires` and an empty body;
//! - in a task or an invariant: the declaration is left out;
//! - in source that still means one definite thing (see [`LOWERABLE`]):
//!   nothing, it lowers as written;
//! - a seed value the checker rejects but whose meaning is clear: the
//!   nearest valid value stands in for it (the last day of the month for an
//!   impossible date, M202; `$4.00` for a negative `-$4.00`, M201, as its
//!   help suggests), and the seed counts as stubbed;
//! - outside every declaration (source the parser skipped): nothing can be
//!   stubbed, but whatever was written there is unknown, so it counts as a
//!   stub of the declaration just before it;
//! - anywhere else (a table, an enum, the site, a session variable, a page's
//!   or marker's header, a seed row the checker rejects): there is no sound
//!   stand-in, and no partial program.
//!
//! Every stub is recorded with the object it stands for (`page Cart`), so
//! that findings computed over it can name it (see [`super::footprint`]).

use crate::diagnostics::{json::enclosing_object, Code, Diagnostic};
use crate::syntax::ast::{
    Decl, DeclKind, Element, ElementKind, ExprKind, SourceFile, Span, UnaryOp,
};
use wsite_runtime::value::{days_in_month, Date};

/// What was done to a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StubKind {
    /// Elements were left out of a page.
    Page,
    /// A marker's `requires` and body were emptied.
    Marker,
    /// A task was left out: nothing else depends on a task.
    Task,
    /// An invariant was left out (broken, or broken by the seed data).
    Invariant,
    /// A seed value was replaced by a stand-in.
    Seed,
    /// Source the parser could not read: it may have held anything.
    Unknown,
}

/// One stubbed declaration: what it is about (`page Cart`) and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stub {
    pub object: String,
    pub kind: StubKind,
}

/// The stand-in files and what was stubbed in them.
pub struct Stubbed {
    pub files: Vec<SourceFile>,
    pub stubs: Vec<Stub>,
}

/// Errors in source that still means one definite thing, which lowers and
/// runs as written: a marker reading or writing without permission (E302,
/// E301; what a marker touches is computed from its body, not from its
/// permissions).
const LOWERABLE: [Code; 2] = [Code::E301, Code::E302];

/// Stubs every declaration `diags` reports an error in; `None` when one of
/// them has no sound stand-in.
pub fn stub(files: &[SourceFile], texts: &[&str], diags: &[Diagnostic]) -> Option<Stubbed> {
    let mut out = Stubbed {
        files: files.to_vec(),
        stubs: Vec::new(),
    };
    for d in diags
        .iter()
        .filter(|d| d.is_error() && !LOWERABLE.contains(&d.code))
    {
        out.stub_error(files, texts, d)?;
    }
    for file in &mut out.files {
        file.decls.retain(|decl| !is_dropped(decl));
    }
    Some(out)
}

/// Tasks and invariants are left out by emptying their name (see
/// [`Stubbed::stub_error`]); no declaration can have an empty name otherwise.
fn is_dropped(decl: &Decl) -> bool {
    match &decl.kind {
        DeclKind::Task(t) => t.name.name.is_empty(),
        DeclKind::Invariant(i) => i.name.name.is_empty(),
        _ => false,
    }
}

fn inside(outer: Span, inner: Span) -> bool {
    outer.file == inner.file && outer.start <= inner.start && inner.end <= outer.end
}

impl Stubbed {
    fn stub_error(
        &mut self,
        original: &[SourceFile],
        texts: &[&str],
        d: &Diagnostic,
    ) -> Option<()> {
        let file = d.span.file.0 as usize;
        let decls = &original.get(file)?.decls;
        let Some(at) = decls.iter().position(|decl| inside(decl.span, d.span)) else {
            // Outside every declaration: only the parser reports there.
            let object = enclosing_object(original, d.span).unwrap_or_else(|| "site".into());
            self.record(object, StubKind::Unknown);
            return Some(());
        };
        // Tests read the original declaration (an earlier error may already
        // have stubbed the copy); edits go to the copy.
        let copy = &mut self.files.get_mut(file)?.decls.get_mut(at)?.kind;
        let (object, kind) = match (&decls[at].kind, copy) {
            (DeclKind::Page(p), DeclKind::Page(stubbed)) => {
                if !p.body.iter().any(|e| inside(e.span, d.span)) {
                    return None;
                }
                remove_innermost(&mut stubbed.body, d.span);
                (format!("page {}", p.name.name), StubKind::Page)
            }
            (DeclKind::Marker(m), DeclKind::Marker(stubbed)) => {
                let in_body = m.body.iter().any(|s| inside(s.span, d.span))
                    || m.requires.iter().any(|r| inside(r.span, d.span));
                if !in_body {
                    return None;
                }
                stubbed.body.clear();
                stubbed.requires.clear();
                (format!("marker {}", m.name.name), StubKind::Marker)
            }
            (DeclKind::Task(t), DeclKind::Task(stubbed)) => {
                stubbed.name.name.clear();
                (format!("task {}", t.name.name), StubKind::Task)
            }
            (DeclKind::Invariant(i), DeclKind::Invariant(stubbed)) => {
                stubbed.name.name.clear();
                (format!("invariant {}", i.name.name), StubKind::Invariant)
            }
            (DeclKind::Seed(seed), DeclKind::Seed(stubbed)) => {
                let value = stubbed
                    .rows
                    .iter_mut()
                    .flat_map(|r| &mut r.fields)
                    .map(|f| &mut f.value)
                    .find(|v| v.span == d.span)?;
                value.kind = match (d.code, &value.kind) {
                    (Code::M202, _) => {
                        let at = d.span.start as usize..d.span.end as usize;
                        ExprKind::Date(nearest_date(texts.get(file)?.get(at)?)?)
                    }
                    (Code::M201, ExprKind::Unary(UnaryOp::Neg, amount)) => amount.kind.clone(),
                    _ => return None,
                };
                (format!("seed {}", seed.table.name), StubKind::Seed)
            }
            _ => return None,
        };
        // The error's own object too (`table Product` for a seed row), which
        // is how the JSON report links a finding that names it to the error.
        if let Some(named) = d.object.clone().filter(|o| *o != object) {
            self.record(named, kind);
        }
        self.record(object, kind);
        Some(())
    }

    fn record(&mut self, object: String, kind: StubKind) {
        if !self.stubs.iter().any(|s| s.object == object) {
            self.stubs.push(Stub { object, kind });
        }
    }
}

/// Removes the innermost element of `body` (nested ones included) that holds
/// `span`; whether there was one (none when an earlier error removed it).
fn remove_innermost(body: &mut Vec<Element>, span: Span) -> bool {
    let Some(k) = body.iter().position(|e| inside(e.span, span)) else {
        return false;
    };
    let removed_inside = match &mut body[k].kind {
        ElementKind::Section { body, .. } => remove_innermost(body, span),
        ElementKind::For(f) => remove_innermost(&mut f.body, span),
        ElementKind::If {
            then, otherwise, ..
        } => remove_innermost(then, span) || remove_innermost(otherwise, span),
        _ => false,
    };
    if !removed_inside {
        body.remove(k);
    }
    true
}

/// `@2026-04-31` → 2026-04-30: the last day of the month for a day past its
/// end; `None` for anything else.
pub(super) fn nearest_date(written: &str) -> Option<Date> {
    let mut parts = written.strip_prefix('@')?.split('-');
    let year: i32 = parts.next()?.parse().ok()?;
    let month: u8 = parts.next()?.parse().ok()?;
    let day: u8 = parts.next()?.parse().ok()?;
    let last = days_in_month(year, month)?;
    Some(Date {
        year,
        month,
        day: day.min(last),
    })
}
