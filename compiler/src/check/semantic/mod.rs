//! Semantic lints on data and text: negative money in seed data (M201), placeholder
//! text in any text literal (M203, [`placeholder`]), duplicate seed ids (M204),
//! `T[n]` references to rows that do not exist (M205, [`rows`]: the seeded rows,
//! or in a task the rows after its `setup`), empty text in required seed fields
//! (M206) and tasks without `say` (M207, spec §3 1.1).
//!
//! It also owns [`seed_ids`], the one definition of how seed rows are numbered,
//! which later stages (the interpreter, the artifact writer) reuse so that the ids
//! the checker reasons about are the ids the site runs with. Impossible dates
//! (M202) are reported by the parser, where the literal is read, not here. Types
//! are not checked here either: a value of the wrong type is the type checker's
//! E201, so these lints look only at constant literals and skip anything else.

mod placeholder;
mod rows;
#[cfg(test)]
mod tests;
mod walk;

use super::Symbols;
use crate::diagnostics::{Code, Diagnostic, Diagnostics, Fix};
use crate::syntax::ast::*;
use crate::syntax::visit::Visit;
use placeholder::check_placeholder;
pub use placeholder::find_placeholder;
pub use rows::check_setup_runs;
use rows::Rows;
use std::collections::BTreeMap;
use walk::Walk;
use wsite_runtime::value::Money;

/// The id one seed row gets, and where that id comes from.
#[derive(Clone, Copy, Debug)]
pub struct SeedId<'a> {
    pub id: i64,
    /// The `id:` value when the row sets one, otherwise the whole row.
    pub span: Span,
    /// Whether the row wrote `id:` itself.
    pub explicit: bool,
    pub row: &'a SeedRow,
}

/// The ids of every seed row, by table name, in source order (all `seed` blocks of
/// a table together, in the order they appear in the program).
///
/// A row that sets `id: n` (an `Int` literal, possibly negated) gets `n`; any other
/// row gets 1 + the largest id among the rows listed before it in that table, or 1
/// for the first (spec §2.1). A row whose `id:` is not a constant integer (a type
/// error reported elsewhere) is numbered as if it had none. Ids may repeat: that is
/// M204, which callers that need unique ids should treat as fatal. Seed blocks for
/// tables that do not exist are included under their written name.
pub fn seed_ids<'a>(symbols: &Symbols<'a>) -> BTreeMap<&'a str, Vec<SeedId<'a>>> {
    let mut out: BTreeMap<&'a str, Vec<SeedId<'a>>> = BTreeMap::new();
    // The largest id so far per table, so numbering stays linear in the rows.
    let mut largest: BTreeMap<&'a str, i64> = BTreeMap::new();
    for seed in &symbols.seeds {
        let table = seed.table.name.as_str();
        let rows = out.entry(table).or_default();
        for row in &seed.rows {
            let explicit = explicit_id(row);
            let id = match explicit {
                Some((id, _)) => id,
                None => largest.get(table).map_or(1, |m| m.saturating_add(1)),
            };
            largest
                .entry(table)
                .and_modify(|m| *m = (*m).max(id))
                .or_insert(id);
            let span = explicit.map_or(row.span, |(_, span)| span);
            rows.push(SeedId {
                id,
                span,
                explicit: explicit.is_some(),
                row,
            });
        }
    }
    out
}

/// The row's own `id: n`, when it writes one as a constant integer.
fn explicit_id(row: &SeedRow) -> Option<(i64, Span)> {
    let init = row.fields.iter().find(|f| f.name.name == "id")?;
    Some((const_int(&init.value)?, init.value.span))
}

/// The value of an `Int` literal, possibly behind unary minus signs.
fn const_int(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(n) => Some(*n),
        ExprKind::Unary(UnaryOp::Neg, inner) => const_int(inner)?.checked_neg(),
        _ => None,
    }
}

/// The value of a `Money` literal in cents, possibly behind unary minus signs.
fn const_money(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Money(n) => Some(*n),
        ExprKind::Unary(UnaryOp::Neg, inner) => const_money(inner)?.checked_neg(),
        _ => None,
    }
}

/// Runs M201, M203, M204, M205, M206 and M207 over the program.
pub fn check(files: &[SourceFile], symbols: &Symbols<'_>, diags: &mut Diagnostics) {
    let ids = seed_ids(symbols);
    check_seed_values(symbols, diags);
    check_duplicate_ids(&ids, diags);
    let seeded = Rows::seeded(symbols, &ids);
    // One walk per declaration, so each finding can name the declaration it is in.
    for decl in files.iter().flat_map(|f| &f.decls) {
        let mut walk = Walk::default();
        walk.visit_decl(decl);
        let object = object_of(decl);
        let object = object.as_deref();
        for text in &walk.texts {
            check_placeholder(text, object, diags);
        }
        match &decl.kind {
            DeclKind::Task(t) => {
                seeded.check_task(t, object, diags);
                check_say(t, diags);
            }
            _ => seeded.check_start(&walk, object, diags),
        }
    }
}

/// M207: a task without `say` gives the agent no instruction.
fn check_say(t: &TaskDecl, diags: &mut Diagnostics) {
    if t.say.is_some() {
        return;
    }
    let name = &t.name.name;
    diags.push(
        Diagnostic::new(
            Code::M207,
            t.name.span,
            format!("task `{name}` has no `say`"),
        )
        .label("the agent would get no instruction")
        .help("add `say \"...\"` with the instruction the agent reads, as you would tell a person")
        .object(format!("task {name}")),
    );
}

/// What a declaration is called in a diagnostic's `object` field.
fn object_of(decl: &Decl) -> Option<String> {
    match &decl.kind {
        DeclKind::Site(s) => Some(format!("site {}", s.name.name)),
        DeclKind::Seed(s) => Some(format!("table {}", s.table.name)),
        DeclKind::Session(_) => Some("session".to_string()),
        DeclKind::Invariant(i) => Some(format!("invariant {}", i.name.name)),
        DeclKind::Page(p) => Some(format!("page {}", p.name.name)),
        DeclKind::Marker(m) => Some(format!("marker {}", m.name.name)),
        DeclKind::Task(t) => Some(format!("task {}", t.name.name)),
        DeclKind::Use(_) | DeclKind::Enum(_) | DeclKind::Table(_) => None,
    }
}

/// Sets `object` on `d` when there is one.
fn with_object(d: Diagnostic, object: Option<&str>) -> Diagnostic {
    match object {
        Some(o) => d.object(o),
        None => d,
    }
}

// ---------------------------------------------------------------------------
// Seed values: M201, M206

fn check_seed_values(symbols: &Symbols<'_>, diags: &mut Diagnostics) {
    for seed in &symbols.seeds {
        let table = seed.table.name.as_str();
        for init in seed.rows.iter().flat_map(|r| &r.fields) {
            if let Some(cents) = const_money(&init.value).filter(|c| *c < 0) {
                diags.push(negative_money(table, init, cents));
            }
            if is_empty_text(&init.value) && is_required_text(symbols, table, &init.name.name) {
                diags.push(empty_text(table, init));
            }
        }
    }
}

fn negative_money(table: &str, init: &FieldInit, cents: i64) -> Diagnostic {
    let field = &init.name.name;
    let shown = Money(cents).to_string();
    let positive = Money(cents.saturating_neg()).to_string();
    Diagnostic::new(
        Code::M201,
        init.value.span,
        format!("negative money `{shown}` in seed data"),
    )
    .label(format!(
        "`{table}.{field}` is seeded with a negative amount"
    ))
    .help(format!(
        "seed amounts are zero or more; write `{positive}` if that is what you meant"
    ))
    // A sign slipped in: the amount without it is the repair the help offers.
    .fix(Fix::Replace {
        start: init.value.span.start,
        end: init.value.span.end,
        text: positive,
    })
    .object(format!("table {table}"))
}

/// `""`: a text literal with no characters and no interpolation.
fn is_empty_text(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Text(t) => t
            .parts
            .iter()
            .all(|p| matches!(p, TextPart::Lit(s) if s.is_empty())),
        _ => false,
    }
}

/// Whether `table.field` is declared `Text` (not `Text?`).
fn is_required_text(symbols: &Symbols<'_>, table: &str, field: &str) -> bool {
    symbols
        .field(table, field)
        .is_some_and(|f| f.ty.name.name == "Text" && !f.ty.optional)
}

fn empty_text(table: &str, init: &FieldInit) -> Diagnostic {
    let field = &init.name.name;
    Diagnostic::new(
        Code::M206,
        init.value.span,
        format!("empty text in required field `{table}.{field}`"),
    )
    .label("this row shows nothing here")
    .help(format!(
        "write the text this row should have, or declare `{field}: Text?` and seed `none`"
    ))
    .object(format!("table {table}"))
}

// ---------------------------------------------------------------------------
// M204: duplicate seed ids

fn check_duplicate_ids(ids: &BTreeMap<&str, Vec<SeedId<'_>>>, diags: &mut Diagnostics) {
    for (table, rows) in ids {
        let mut first: BTreeMap<i64, &SeedId<'_>> = BTreeMap::new();
        for row in rows {
            match first.get(&row.id) {
                Some(earlier) => diags.push(duplicate_id(table, row, earlier)),
                None => {
                    first.insert(row.id, row);
                }
            }
        }
    }
}

fn duplicate_id(table: &str, row: &SeedId<'_>, earlier: &SeedId<'_>) -> Diagnostic {
    let id = row.id;
    let how = if earlier.explicit {
        format!("id `{id}` first used here")
    } else {
        format!("this earlier row gets id `{id}` implicitly")
    };
    Diagnostic::new(
        Code::M204,
        row.span,
        format!("duplicate id `{id}` in seed data for `{table}`"),
    )
    .label("a second row with this id")
    .related(earlier.span, how)
    .help("give each row its own id, or leave `id` out so the row is numbered after the rows above it")
    .object(format!("table {table}"))
}
