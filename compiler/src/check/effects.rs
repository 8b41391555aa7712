//! Effect checking (spec §2.3): each marker's actual reads and writes against its
//! declared permissions, and persistent writes where no marker is.
//!
//! For every marker (an extern marker through its `default` body) this pass walks
//! the `requires` clauses and the body, collecting each access that needs a
//! permission: reading a plain field (`T.f`), setting a field, inserting or
//! deleting rows (the whole table `T`), setting a session variable. Free accesses
//! need none and use none: reading `id`, reading a reference field, iterating or
//! counting rows, reading session variables. Each needed access must be covered:
//! a read by `T` or `T.f` in `reads` or `writes` (E302), a field write by `T` or
//! `T.f` in `writes`, a row insert or delete by `T` in `writes`, a session write
//! by `session.v` in `writes` (E301). A permission that covers no access is S107.
//! One mistake gets one diagnostic: an access that a misspelt permission (E101)
//! may have been meant to cover is not also E301/E302, and a `reads` permission
//! that an E301 says to move to `writes` is not also S107.
//! Statements among page elements that write are E303.
//!
//! What each expression reads comes from the type checker's [`Typed`]; this pass
//! never resolves a name itself. Permissions naming unknown things were reported
//! (E101) by the type checker and are skipped here.

use super::statements::{stmt_span, writes_state};
use super::types::{closest, table_fields, Access, Typed};
use super::Symbols;
use crate::diagnostics::{Code, Diagnostic, Diagnostics, Fix};
use crate::syntax::ast::*;
use crate::syntax::visit::{self, for_each_element, Visit};
use std::collections::{BTreeMap, BTreeSet};

/// `broken` are the spans of syntax errors: a marker holding one may miss the
/// statement that used a permission, so it gets no S107.
pub fn check(
    files: &[SourceFile],
    symbols: &Symbols<'_>,
    typed: &Typed,
    broken: &[Span],
    diags: &mut Diagnostics,
) {
    let tables = table_fields(files, symbols);
    let known = Known {
        tables: &tables,
        symbols,
    };
    for decl in files.iter().flat_map(|f| &f.decls) {
        match &decl.kind {
            DeclKind::Marker(m) => {
                let complete = !super::is_incomplete(&decl.span, broken);
                check_marker(m, typed, &known, complete, diags)
            }
            DeclKind::Page(p) => page_writes(&p.name, &p.body, diags),
            _ => {}
        }
    }
}

/// What names exist, to tell valid permissions from ones already reported.
struct Known<'k, 'a> {
    tables: &'k BTreeMap<&'a str, &'a [FieldDecl]>,
    symbols: &'k Symbols<'a>,
}

/// An access that needs a permission.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Need {
    /// Reading `T.f` (a plain, non-reference, non-`id` field).
    Read(String, String),
    /// `set r.f` on a row of `T`.
    WriteField(String, String),
    /// `insert` into or `delete` from `T` (needs the whole table).
    WriteRows(String, &'static str),
    /// `set session.v`.
    WriteSession(String),
}

/// A declared permission, as the item it grants.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Item<'a> {
    Table(&'a str),
    Field(&'a str, &'a str),
    Session(&'a str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Clause {
    Reads,
    Writes,
}

struct Grant<'a> {
    item: Item<'a>,
    clause: Clause,
    perm: &'a Permission,
    /// The item is a reference field (a field whose type is a table).
    reference: bool,
    used: bool,
}

/// Collects the needed accesses of one marker, in source order.
struct Collector<'t> {
    typed: &'t Typed,
    needs: Vec<(Need, Span)>,
}

fn check_marker(
    m: &MarkerDecl,
    typed: &Typed,
    known: &Known<'_, '_>,
    complete: bool,
    diags: &mut Diagnostics,
) {
    let needs = collect_needs(m, typed);
    let mut grants = grants(m, known);
    let mut reported: BTreeSet<Need> = BTreeSet::new();
    let needs = needs
        .into_iter()
        .filter(|(need, _)| on_known_table(need, known));
    let misspelt = misspelt_scopes(m, known);
    for (need, span) in needs {
        let covered = cover(&need, &mut grants);
        // A permission that names nothing (already E101) may be the one meant
        // for this access; saying it is missing too would double the report.
        let excused = misspelt.iter().any(|scope| scope.may_cover(&need));
        if !covered && !excused && reported.insert(need.clone()) {
            diags.push(uncovered(m, &need, span));
            // The E301 already says to move this permission from `reads` to
            // `writes`; an S107 telling to delete it would contradict that.
            excuse_misplaced_reads(&need, &mut grants);
        }
    }
    // An extern marker's permissions are the gate for effects proposed at run
    // time, which its `default` body need not exercise: no S107 for them.
    if !m.is_extern && complete {
        for g in grants.iter().filter(|g| !g.used) {
            diags.push(unused(m, g));
        }
    }
}

/// Every access of `m` that needs a permission, in source order.
fn collect_needs(m: &MarkerDecl, typed: &Typed) -> Vec<(Need, Span)> {
    let mut collector = Collector {
        typed,
        needs: Vec::new(),
    };
    collector.visit_marker(m);
    collector.needs
}

/// The marker's valid permissions (unknown names were reported by the type checker).
fn grants<'a>(m: &'a MarkerDecl, known: &Known<'_, '_>) -> Vec<Grant<'a>> {
    let reads = m.reads.iter().map(|p| (p, Clause::Reads));
    let writes = m.writes.iter().map(|p| (p, Clause::Writes));
    reads
        .chain(writes)
        .filter_map(|(perm, clause)| {
            let item = item(perm, known)?;
            let reference = is_reference(&item, known);
            Some(Grant {
                item,
                clause,
                perm,
                reference,
                used: false,
            })
        })
        .collect()
}

fn is_reference(item: &Item<'_>, known: &Known<'_, '_>) -> bool {
    let Item::Field(table, field) = item else {
        return false;
    };
    let decl = known
        .tables
        .get(table)
        .and_then(|fs| fs.iter().find(|f| f.name.name == *field));
    decl.is_some_and(|d| known.tables.contains_key(d.ty.name.name.as_str()))
}

fn item<'a>(p: &'a Permission, known: &Known<'_, '_>) -> Option<Item<'a>> {
    let base = p.base.name.as_str();
    let field = p.field.as_ref().map(|f| f.name.as_str());
    if base == "session" && !known.tables.contains_key(base) {
        let var = field?;
        return known
            .symbols
            .session
            .contains_key(var)
            .then_some(Item::Session(var));
    }
    let fields = known.tables.get(base)?;
    match field {
        None => Some(Item::Table(base)),
        Some(f) if f == "id" || fields.iter().any(|d| d.name.name == f) => {
            Some(Item::Field(base, f))
        }
        Some(_) => None,
    }
}

/// Whether `need` concerns a table that exists. `insert` and `delete all` name
/// their table in the source; an unknown one was reported (E101) by the type
/// checker and needs no permission on top. Other needs come from resolved types.
fn on_known_table(need: &Need, known: &Known<'_, '_>) -> bool {
    match need {
        Need::WriteRows(t, _) => known.tables.contains_key(t.as_str()),
        Need::Read(..) | Need::WriteField(..) | Need::WriteSession(_) => true,
    }
}

/// What a permission that names nothing valid may have been meant to grant.
enum Misspelt<'a> {
    /// `Book.stok`: something of table `Book`.
    Table(&'a str),
    /// `session.qq`: a session variable.
    Session,
    /// `Bok.name`: anything.
    Any,
}

impl Misspelt<'_> {
    fn may_cover(&self, need: &Need) -> bool {
        match (self, need) {
            (Misspelt::Any, _) => true,
            (Misspelt::Session, Need::WriteSession(_)) => true,
            (Misspelt::Table(t), Need::Read(nt, _))
            | (Misspelt::Table(t), Need::WriteField(nt, _))
            | (Misspelt::Table(t), Need::WriteRows(nt, _)) => t == nt,
            _ => false,
        }
    }
}

/// The marker's permissions that resolve to nothing (reported by the type
/// checker), by what they may have been meant to grant.
fn misspelt_scopes<'a>(m: &'a MarkerDecl, known: &Known<'_, '_>) -> Vec<Misspelt<'a>> {
    m.reads
        .iter()
        .chain(&m.writes)
        .filter(|p| item(p, known).is_none())
        .map(|p| {
            let base = p.base.name.as_str();
            match known.tables.get_key_value(base) {
                Some(_) => Misspelt::Table(base),
                None if closest(base, ["session"]).is_some() || base == "session" => {
                    Misspelt::Session
                }
                None => Misspelt::Any,
            }
        })
        .collect()
}

/// Marks every grant that covers `need` as used; whether any did.
fn cover(need: &Need, grants: &mut [Grant<'_>]) -> bool {
    let mut covered = false;
    for g in grants.iter_mut() {
        let hit = match (need, &g.item) {
            (Need::Read(t, _), Item::Table(gt)) => t == gt,
            (Need::Read(t, f), Item::Field(gt, gf)) => t == gt && f == gf,
            (Need::WriteField(t, _), Item::Table(gt)) => g.clause == Clause::Writes && t == gt,
            (Need::WriteField(t, f), Item::Field(gt, gf)) => {
                g.clause == Clause::Writes && t == gt && f == gf
            }
            (Need::WriteRows(t, _), Item::Table(gt)) => g.clause == Clause::Writes && t == gt,
            (Need::WriteSession(v), Item::Session(gv)) => g.clause == Clause::Writes && v == gv,
            _ => false,
        };
        if hit {
            g.used = true;
            covered = true;
        }
    }
    covered
}

/// Marks as used every `reads` grant that would cover the write `need` if it
/// were in `writes` (the help of [`uncovered`] suggests moving it there).
fn excuse_misplaced_reads(need: &Need, grants: &mut [Grant<'_>]) {
    for g in grants.iter_mut().filter(|g| g.clause == Clause::Reads) {
        let hit = match (need, &g.item) {
            (Need::WriteField(t, _), Item::Table(gt)) => t == gt,
            (Need::WriteField(t, f), Item::Field(gt, gf)) => t == gt && f == gf,
            (Need::WriteSession(v), Item::Session(gv)) => v == gv,
            _ => false,
        };
        g.used |= hit;
    }
}

/// The span of a permission's words. (Built from its idents: the parser's span
/// may run on over the whitespace after the permission.)
fn perm_span(p: &Permission) -> Span {
    match &p.field {
        Some(f) => p.base.span.to(f.span),
        None => p.base.span,
    }
}

/// The span of a whole clause (first to last permission), if it has any.
fn clause_span(perms: &[Permission]) -> Option<Span> {
    let first = perms.first()?;
    let last = perms.last()?;
    Some(perm_span(first).to(perm_span(last)))
}

/// E301 or E302 for an access no permission covers.
fn uncovered(m: &MarkerDecl, need: &Need, span: Span) -> Diagnostic {
    let name = &m.name.name;
    let (code, message, label, clause, item) = match need {
        Need::Read(t, f) => (
            Code::E302,
            format!("marker `{name}` reads `{t}.{f}` without permission"),
            "read here",
            "reads",
            format!("{t}.{f}"),
        ),
        Need::WriteField(t, f) => (
            Code::E301,
            format!("marker `{name}` sets `{t}.{f}` without permission"),
            "written here",
            "writes",
            format!("{t}.{f}"),
        ),
        Need::WriteRows(t, verb) => (
            Code::E301,
            format!("marker `{name}` {verb} `{t}` rows without permission"),
            "written here",
            "writes",
            t.clone(),
        ),
        Need::WriteSession(v) => (
            Code::E301,
            format!("marker `{name}` sets `session.{v}` without permission"),
            "written here",
            "writes",
            format!("session.{v}"),
        ),
    };
    let mut help = match moved_from_reads(m, need) {
        Some(read) => format!(
            "move `{read}` from `reads` to `writes` (a permission in `reads` grants no write)"
        ),
        None => format!("add `{item}` to `{clause}`"),
    };
    if matches!(need, Need::WriteRows(..)) {
        help.push_str(" (inserting and deleting rows need the whole table, not single fields)");
    }
    let d = Diagnostic::new(code, span, message)
        .label(label)
        .help(help)
        .object(format!("marker {name}"))
        .fix(Fix::AddPermission {
            marker: name.clone(),
            clause: clause.into(),
            item,
        });
    let perms = if clause == "reads" {
        &m.reads
    } else {
        &m.writes
    };
    match clause_span(perms) {
        Some(s) => d.related(s, format!("the marker's `{clause}`")),
        None if clause == "writes" => match m.writes_span {
            Some(s) => d.related(s, "the marker's `writes`"),
            None => d.related(m.name.span, format!("`{name}` is declared here")),
        },
        None => d.related(m.name.span, format!("`{name}` has no `reads`")),
    }
}

/// For a field or session write: the permission in `reads` that would cover it
/// in `writes`, as written.
fn moved_from_reads(m: &MarkerDecl, need: &Need) -> Option<String> {
    let covers = |p: &&Permission| {
        let field = p.field.as_ref().map(|f| f.name.as_str());
        match need {
            Need::WriteField(t, f) => {
                p.base.name == *t && (field.is_none() || field == Some(f.as_str()))
            }
            Need::WriteSession(v) => p.base.name == "session" && field == Some(v.as_str()),
            Need::Read(..) | Need::WriteRows(..) => false,
        }
    };
    let p = m.reads.iter().find(covers)?;
    Some(match &p.field {
        Some(f) => format!("{}.{}", p.base.name, f.name),
        None => p.base.name.clone(),
    })
}

/// S107 for a permission no access uses.
fn unused(m: &MarkerDecl, g: &Grant<'_>) -> Diagnostic {
    let clause = if g.clause == Clause::Reads {
        "reads"
    } else {
        "writes"
    };
    let text = match &g.item {
        Item::Table(t) => t.to_string(),
        Item::Field(t, f) => format!("{t}.{f}"),
        Item::Session(v) => format!("session.{v}"),
    };
    let why = match (&g.item, g.clause) {
        (Item::Field(_, "id"), _) => " (reading `id` needs no permission)",
        (Item::Session(_), Clause::Reads) => " (reading a session variable needs no permission)",
        (Item::Field(..), Clause::Reads) if g.reference => {
            " (reading a reference field needs no permission)"
        }
        (Item::Table(_), Clause::Reads) => " (iterating and counting rows need no permission)",
        _ => "",
    };
    Diagnostic::new(
        Code::S107,
        perm_span(g.perm),
        format!("permission `{text}` is never used"),
    )
    .label(format!("in `{clause}` of marker `{}`", m.name.name))
    .help(format!("remove `{text}` from `{clause}`{why}"))
    .object(format!("marker {}", m.name.name))
    .fix(Fix::RemovePermission {
        marker: m.name.name.clone(),
        clause: clause.into(),
        item: text,
    })
}

/// What a marker actually reads and writes, as permissions would name them
/// (`Product.price`, `CartLine`, `session.user`), each sorted: the inferred
/// side of an editor's hover, next to the declared `reads` and `writes`.
pub struct Accesses {
    pub reads: BTreeSet<String>,
    pub writes: BTreeSet<String>,
}

pub fn marker_accesses(m: &MarkerDecl, typed: &Typed) -> Accesses {
    let mut out = Accesses {
        reads: BTreeSet::new(),
        writes: BTreeSet::new(),
    };
    for (need, _) in collect_needs(m, typed) {
        match need {
            Need::Read(t, f) => out.reads.insert(format!("{t}.{f}")),
            Need::WriteField(t, f) => out.writes.insert(format!("{t}.{f}")),
            Need::WriteRows(t, _) => out.writes.insert(t),
            Need::WriteSession(v) => out.writes.insert(format!("session.{v}")),
        };
    }
    out
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_stmt(&mut self, s: &'ast Stmt) {
        match &s.kind {
            StmtKind::Insert { table, .. } => self
                .needs
                .push((Need::WriteRows(table.name.clone(), "inserts"), table.span)),
            StmtKind::Delete(row) => {
                if let Some(t) = self.typed.ty(row.id).row_table() {
                    self.needs
                        .push((Need::WriteRows(t.to_string(), "deletes"), stmt_span(s)));
                }
            }
            StmtKind::DeleteAll { table, .. } => self
                .needs
                .push((Need::WriteRows(table.name.clone(), "deletes"), stmt_span(s))),
            // Not the default walk: the target's own field is written, not read.
            StmtKind::Set { target, value } => {
                self.set(target, value);
                return;
            }
            _ => {}
        }
        visit::walk_stmt(self, s);
    }

    fn visit_interpolation(&mut self, e: &'ast Expr) {
        self.visit_expr(e);
        // Showing a row reads its `name` (§2.2): `"{p}"` needs `p`'s table's
        // `name` as much as `"{p.name}"` does.
        for access in self.typed.renders.get(&e.id).into_iter().flatten() {
            if let Access::Field { table, field } = access {
                self.needs
                    .push((Need::Read(table.clone(), field.clone()), e.span));
            }
        }
    }

    /// Records the reads of `e` and everything in it.
    fn visit_expr(&mut self, e: &'ast Expr) {
        match &e.kind {
            ExprKind::Field(..) => self.field_read(e),
            // In the order they run: a row's filter before its value.
            ExprKind::Aggregate { value, filter, .. } => {
                if let Some(filter) = filter {
                    self.visit_expr(filter);
                }
                self.visit_expr(value);
                return;
            }
            _ => {}
        }
        visit::walk_expr(self, e);
    }
}

impl Collector<'_> {
    /// The target's own field is written; what leads to its row is read.
    fn set(&mut self, target: &Expr, value: &Expr) {
        match self.typed.sets.get(&target.id) {
            Some(Access::Field { table, field }) => {
                self.needs
                    .push((Need::WriteField(table.clone(), field.clone()), target.span));
            }
            Some(Access::Session(v)) => self
                .needs
                .push((Need::WriteSession(v.clone()), target.span)),
            None => {}
        }
        match &target.kind {
            ExprKind::Field(base, _) => self.visit_expr(base),
            _ => self.visit_expr(target),
        }
        self.visit_expr(value);
    }

    /// A field read needs a permission unless it is `id`, a reference field, or
    /// a session variable.
    fn field_read(&mut self, e: &Expr) {
        let Some(Access::Field { table, field }) = self.typed.fields.get(&e.id) else {
            return;
        };
        if field == "id" || self.typed.ty(e.id).row_table().is_some() {
            return;
        }
        self.needs
            .push((Need::Read(table.clone(), field.clone()), e.span));
    }
}

/// E303 for every writing statement among a page's elements, nested ones included.
fn page_writes(page: &Ident, elements: &[Element], diags: &mut Diagnostics) {
    for_each_element(elements, |el| match &el.kind {
        ElementKind::Stmt(s) if writes_state(s) => diags.push(
            Diagnostic::new(
                Code::E303,
                stmt_span(s),
                format!("page `{}` writes persistent state", page.name),
            )
            .label("a write among page elements")
            .help("pages only show state; move this into a marker and trigger it with a `button`")
            .object(format!("page {}", page.name)),
        ),
        _ => {}
    });
}
