//! C303: a hard-coded literal on a page duplicates a field the page could show.
//!
//! A heuristic (confidence [`CONFIDENCE`]), so the rule is narrow on purpose
//! (docs/language.md, "Consistency"; docs/DECISIONS.md):
//!
//! - **Rows in scope.** A page parameter whose type is a table (`p: Product`,
//!   `p: Product?`) is in scope on the whole page (its `title` included); the
//!   binder of `for x in T` is in scope in the loop's body. A later name
//!   (a list loop's binder, a form variable) shadows an earlier one.
//! - **Where.** The literal (non-interpolated) segments of the page's `title`
//!   and of its `heading` and `text` elements. Labels of links, buttons, inputs,
//!   selects, checkboxes and sections are not looked at.
//! - **Against what.** The rendered seed values of the fields of the tables the
//!   rows in scope range over: `Text` fields and row references (by the rendered
//!   name) of at least 3 characters, `Int`, `Money` other than `$0.00`, `Date`
//!   and `Time`. `id`, `Bool` and enum fields are left out: their few values
//!   (`yes`, `open`, ...) are words a label uses on purpose.
//! - **Match.** A *piece* of a literal segment is the segment, or its part after
//!   the first `": "` (`Author: Jane Austen`), trimmed of spaces and edge
//!   punctuation. A `Text` or reference value matches a piece equal to it,
//!   ignoring case. Numbers are everywhere (`/5`, `Step 2`), so an `Int` value
//!   matches only the part after a label that names its field (`In stock: 5`
//!   for `stock`, `Page count: 320` for `page_count`). A `Money`, `Date` or
//!   `Time` value matches a token anywhere in a segment that denotes the same
//!   amount, date or time (`$12.99`, `$1,299.00`, `2026-11-29`, `9:00`).
//! - **Not reported.** A value that a constant in an enclosing loop's `where` or
//!   an enclosing `if` condition names (`for t in Ticket where t.state == "Open"
//!   { text "Open" }` labels what the filter guarantees), and a field that the
//!   same text already interpolates (`"{p.price} (was $15.00)"`).
//! - **Once per literal.** Each text literal gets at most one C303: the first
//!   match, trying the innermost row in scope first and fields in declaration
//!   order.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::lower::Lowered;
use crate::syntax::ast::{
    DeclKind, Element, ElementKind, Expr, ExprKind, LoopSource, PageDecl, SourceFile, TextLit,
    TextPart,
};
use serde_json::json;
use std::collections::HashMap;
use wsite_runtime::interp::render::render;
use wsite_runtime::interp::state::Database;
use wsite_runtime::ir::{Program, TableId, Ty, Value};
use wsite_runtime::value::{Date, Money, Time};

/// How sure C303 is: the literal may be a deliberate label that happens to
/// equal a value.
pub const CONFIDENCE: f64 = 0.6;

/// A `Text` (or row reference) value shorter than this is too generic to report.
const MIN_TEXT_CHARS: usize = 3;

/// Characters trimmed from both ends of a piece (and of a text value before it
/// is compared).
const EDGE_PUNCTUATION: &[char] = &[
    ':', ';', ',', '.', '!', '?', '(', ')', '[', ']', '"', '\'', '“', '”', '‘', '’', '–', '—', '|',
    '/', '·', '•', '*',
];

/// A comparable form of a rendered value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// A `Text` or reference value: trimmed, lowercased.
    Words(String),
    Int(i64),
    /// Cents.
    Money(i64),
    Date(Date),
    Time(Time),
}

/// One value of one field among a table's seed rows, with the rows that hold it.
struct Candidate {
    field: usize,
    key: Key,
    /// How the page would show it.
    shown: String,
    rows: Vec<i64>,
}

/// Runs C303 over every page of `files`.
pub fn check(lowered: &Lowered, files: &[SourceFile], diags: &mut Diagnostics) {
    let program = &lowered.program;
    let db = Database::from_seed(program);
    let candidates: Vec<Vec<Candidate>> = (0..program.tables.len())
        .map(|t| table_candidates(program, &db, t))
        .collect();
    let seed = Seed {
        program,
        db: &db,
        candidates: &candidates,
    };
    for decl in files.iter().flat_map(|f| &f.decls) {
        if let DeclKind::Page(page) = &decl.kind {
            check_page(&seed, page, diags);
        }
    }
}

/// The seed data, ready to compare with.
struct Seed<'a> {
    program: &'a Program,
    db: &'a Database,
    /// Per table, its comparable field values.
    candidates: &'a [Vec<Candidate>],
}

impl Seed<'_> {
    fn table_id(&self, name: &str) -> Option<TableId> {
        self.program
            .tables
            .iter()
            .position(|t| t.name == name)
            .and_then(|i| TableId::try_from(i).ok())
    }
}

/// The comparable values of table `t`'s fields, grouped by value, in field
/// order and then in the order of the rows that first hold them.
fn table_candidates(program: &Program, db: &Database, t: usize) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut index: HashMap<(usize, Key), usize> = HashMap::new();
    let Some(def) = program.tables.get(t) else {
        return out;
    };
    for (f, field) in def.fields.iter().enumerate() {
        for row in &def.seed {
            let Some(value) = row.values.get(f) else {
                continue;
            };
            let shown = render(program, db, value, &field.ty);
            let Some(key) = value_key(value, &field.ty, &shown) else {
                continue;
            };
            match index.get(&(f, key.clone())).and_then(|&i| out.get_mut(i)) {
                Some(c) => c.rows.push(row.id),
                None => {
                    index.insert((f, key.clone()), out.len());
                    out.push(Candidate {
                        field: f,
                        key,
                        shown,
                        rows: vec![row.id],
                    });
                }
            }
        }
    }
    out
}

/// The key a field value is compared by, or `None` when the rule leaves the
/// value out (`none`, `Bool`, enums, `$0.00`, short texts).
fn value_key(value: &Value, ty: &Ty, shown: &str) -> Option<Key> {
    let ty = match ty {
        Ty::Optional(inner) => inner.as_ref(),
        other => other,
    };
    match (value, ty) {
        (Value::Text(_), Ty::Text) | (Value::Row(_), Ty::Row(_)) => {
            let words = normalize(shown);
            (words.chars().count() >= MIN_TEXT_CHARS).then_some(Key::Words(words))
        }
        (Value::Int(n), Ty::Int) => Some(Key::Int(*n)),
        (Value::Money(c), Ty::Money) => (*c != 0).then_some(Key::Money(*c)),
        (Value::Date(d), Ty::Date) => Some(Key::Date(*d)),
        (Value::Time(t), Ty::Time) => Some(Key::Time(*t)),
        _ => None,
    }
}

/// A name in scope while walking a page: a row of a table, or something else
/// that shadows an earlier row of the same name.
struct Binding<'a> {
    name: &'a str,
    table: Option<TableId>,
}

/// What the walk carries: the names in scope (innermost last) and the
/// conditions guarding the current element (loop filters, `if` conditions).
struct Scope<'a> {
    names: Vec<Binding<'a>>,
    guards: Vec<&'a Expr>,
}

fn check_page(seed: &Seed<'_>, page: &PageDecl, diags: &mut Diagnostics) {
    let mut scope = Scope {
        names: Vec::new(),
        guards: Vec::new(),
    };
    for p in &page.params {
        let table = seed.table_id(&p.ty.name.name);
        scope.names.push(Binding {
            name: &p.name.name,
            table,
        });
    }
    let object = format!("page {}", page.name.name);
    for title in &page.titles {
        examine(seed, &scope, title, &object, diags);
    }
    walk(seed, &mut scope, &page.body, &object, diags);
}

/// Walks one block of elements; names it declares go out of scope at its end.
fn walk<'a>(
    seed: &Seed<'_>,
    scope: &mut Scope<'a>,
    body: &'a [Element],
    object: &str,
    diags: &mut Diagnostics,
) {
    let mark = scope.names.len();
    for el in body {
        match &el.kind {
            ElementKind::Heading(t) | ElementKind::Text(t) => {
                examine(seed, scope, t, object, diags)
            }
            ElementKind::Section { body, .. } => walk(seed, scope, body, object, diags),
            ElementKind::For(f) => {
                let table = match &f.source {
                    LoopSource::Table(t) => seed.table_id(&t.name),
                    LoopSource::List(..) => None,
                };
                scope.names.push(Binding {
                    name: &f.binder.name,
                    table,
                });
                let guards = scope.guards.len();
                scope.guards.extend(f.filter.as_ref());
                walk(seed, scope, &f.body, object, diags);
                scope.guards.truncate(guards);
                scope.names.pop();
            }
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                scope.guards.push(cond);
                walk(seed, scope, then, object, diags);
                walk(seed, scope, otherwise, object, diags);
                scope.guards.pop();
            }
            ElementKind::Input { var, .. }
            | ElementKind::SelectList { var, .. }
            | ElementKind::SelectFrom { var, .. }
            | ElementKind::Checkbox { var, .. }
            | ElementKind::Let { var, .. } => scope.names.push(Binding {
                name: &var.name,
                table: None,
            }),
            ElementKind::Image(_)
            | ElementKind::Link { .. }
            | ElementKind::Button { .. }
            | ElementKind::Stmt(_) => {}
        }
    }
    scope.names.truncate(mark);
}

/// The rows in scope, innermost first, each name once (shadowed ones left out).
fn rows_in_scope<'a>(scope: &Scope<'a>) -> Vec<(&'a str, TableId)> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for b in scope.names.iter().rev() {
        if seen.contains(&b.name) {
            continue;
        }
        seen.push(b.name);
        if let Some(t) = b.table {
            out.push((b.name, t));
        }
    }
    out
}

/// What a text literal's literal segments could be compared by.
#[derive(Default)]
struct Literal {
    /// Pieces as written (trimmed) and their keys.
    pieces: Vec<(String, Key)>,
    /// `Label: 42`: the label (normalized), the number as written and its value.
    numbers: Vec<(String, String, i64)>,
    /// Money, date and time tokens as written and their keys.
    tokens: Vec<(String, Key)>,
}

impl Literal {
    fn of(text: &TextLit) -> Literal {
        let mut lit = Literal::default();
        for part in &text.parts {
            let TextPart::Lit(segment) = part else {
                continue;
            };
            let mut pieces = vec![trim_piece(segment)];
            if let Some((label, after)) = segment.split_once(": ") {
                let after = trim_piece(after);
                pieces.push(after);
                let label = normalize(label);
                if let (false, Some(n)) = (label.is_empty(), parse_int(after)) {
                    lit.numbers.push((label, after.to_string(), n));
                }
            }
            for piece in pieces.into_iter().filter(|p| !p.is_empty()) {
                lit.pieces
                    .push((piece.to_string(), Key::Words(normalize(piece))));
            }
            lit.tokens.extend(tokens(segment));
        }
        lit
    }

    /// The literal as written that matches `key`, a value of the field named
    /// `field`, if any.
    fn matching(&self, key: &Key, field: &str) -> Option<&str> {
        if let Key::Int(n) = key {
            let field = field.replace('_', " ").to_lowercase();
            return self
                .numbers
                .iter()
                .find(|(label, _, m)| m == n && label.contains(&field))
                .map(|(_, shown, _)| shown.as_str());
        }
        let within = match key {
            Key::Words(_) | Key::Int(_) => &self.pieces,
            Key::Money(_) | Key::Date(_) | Key::Time(_) => &self.tokens,
        };
        within
            .iter()
            .find(|(_, k)| k == key)
            .map(|(shown, _)| shown.as_str())
    }
}

fn examine(
    seed: &Seed<'_>,
    scope: &Scope<'_>,
    text: &TextLit,
    object: &str,
    diags: &mut Diagnostics,
) {
    let rows = rows_in_scope(scope);
    if rows.is_empty() || !text.parts.iter().any(|p| matches!(p, TextPart::Lit(_))) {
        return;
    }
    let lit = Literal::of(text);
    let guarded = guard_keys(&scope.guards);
    let interpolated = interpolated_fields(text);
    for (var, table) in rows {
        let (Some(def), Some(candidates)) = (
            seed.program.tables.get(table as usize),
            seed.candidates.get(table as usize),
        ) else {
            continue;
        };
        for c in candidates {
            let Some(field) = def.fields.get(c.field) else {
                continue;
            };
            if guarded.contains(&c.key)
                || interpolated
                    .iter()
                    .any(|(v, f)| *v == var && *f == field.name)
            {
                continue;
            }
            let Some(written) = lit.matching(&c.key, &field.name) else {
                continue;
            };
            let hit = Hit {
                table,
                table_name: &def.name,
                var,
                field: &field.name,
                candidate: c,
                written,
            };
            diags.push(report(seed, &hit, text, object));
            return;
        }
    }
}

/// A literal found to duplicate a field value.
struct Hit<'a> {
    table: TableId,
    table_name: &'a str,
    var: &'a str,
    field: &'a str,
    candidate: &'a Candidate,
    /// The literal as written.
    written: &'a str,
}

fn report(seed: &Seed<'_>, hit: &Hit<'_>, text: &TextLit, object: &str) -> Diagnostic {
    let Hit {
        table,
        table_name,
        var,
        field,
        candidate: c,
        written,
    } = *hit;
    let first = c.rows.first().copied().unwrap_or_default();
    let shown = render(seed.program, seed.db, &Value::Row(first), &Ty::Row(table));
    let row = if shown == format!("#{first}") {
        format!("with id {first}")
    } else {
        format!("`{shown}` (id {first})")
    };
    let others = match c.rows.len() {
        0 | 1 => String::new(),
        2 => " and 1 other row".to_string(),
        n => format!(" and {} other rows", n - 1),
    };
    let label = format!(
        "the seed row {row}{others} of `{table_name}` has {field} `{}`",
        c.shown
    );
    Diagnostic::new(
        Code::C303,
        text.span,
        format!("hard-coded `{written}` duplicates the field `{var}.{field}`"),
    )
    .label(label)
    .help(format!(
        "write `{{{var}.{field}}}` so the page follows the data"
    ))
    .object(object.to_string())
    .evidence(json!({
        "literal": written,
        "variable": var,
        "table": table_name,
        "field": field,
        "value": c.shown,
        "rows": c.rows,
    }))
    .confidence(CONFIDENCE)
}

/// The keys of the constants that guarding conditions mention.
fn guard_keys(guards: &[&Expr]) -> Vec<Key> {
    fn visit(e: &Expr, out: &mut Vec<Key>) {
        match &e.kind {
            ExprKind::Int(n) => out.push(Key::Int(*n)),
            ExprKind::Money(c) => out.push(Key::Money(*c)),
            ExprKind::Date(d) => out.push(Key::Date(*d)),
            ExprKind::Time(t) => out.push(Key::Time(*t)),
            ExprKind::Text(t) if t.interpolations().next().is_none() => {
                out.push(Key::Words(normalize(&t.plain())));
            }
            _ => {}
        }
        for child in e.kind.children() {
            visit(child, out);
        }
    }
    let mut out = Vec::new();
    for g in guards {
        visit(g, &mut out);
    }
    out
}

/// `(variable, field)` for every `x.field` inside the text's interpolations.
fn interpolated_fields(text: &TextLit) -> Vec<(&str, &str)> {
    fn visit<'a>(e: &'a Expr, out: &mut Vec<(&'a str, &'a str)>) {
        if let ExprKind::Field(base, field) = &e.kind {
            if let ExprKind::Name(var) = &base.kind {
                out.push((var.name.as_str(), field.name.as_str()));
            }
        }
        for child in e.kind.children() {
            visit(child, out);
        }
    }
    let mut out = Vec::new();
    for e in text.interpolations() {
        visit(e, &mut out);
    }
    out
}

/// A piece of text trimmed of white space and edge punctuation.
fn trim_piece(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || EDGE_PUNCTUATION.contains(&c))
}

/// The comparable form of words: trimmed and lowercased, inner white space
/// collapsed to single spaces.
fn normalize(s: &str) -> String {
    trim_piece(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// An integer written plainly or with `,`/`_` separators (`1299`, `1,299`, `-3`).
fn parse_int(piece: &str) -> Option<i64> {
    let (neg, digits) = match piece.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, piece),
    };
    if digits.is_empty()
        || !digits.starts_with(|c: char| c.is_ascii_digit())
        || !digits
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == '_')
    {
        return None;
    }
    let plain: String = digits.chars().filter(char::is_ascii_digit).collect();
    let n: i64 = plain.parse().ok()?;
    Some(if neg { -n } else { n })
}

/// The money (`$12.99`, `-$1,299.00`), date (`2026-11-29`) and time (`9:00`)
/// tokens of a segment, as written and as keys.
fn tokens(segment: &str) -> Vec<(String, Key)> {
    let chars: Vec<(usize, char)> = segment.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = chars.get(i).map(|(b, _)| *b).unwrap_or(segment.len());
        let prev_is_word = i > 0
            && chars
                .get(i - 1)
                .is_some_and(|(_, c)| c.is_alphanumeric() || *c == '_');
        // The longest run of number-ish characters from here.
        let mut j = i;
        while chars.get(j).is_some_and(|(_, c)| {
            c.is_ascii_digit() || matches!(c, '$' | ',' | '.' | '_' | '-' | ':')
        }) {
            j += 1;
        }
        if j == i || prev_is_word {
            i += 1;
            continue;
        }
        let end = chars.get(j).map(|(b, _)| *b).unwrap_or(segment.len());
        let next_is_word = chars.get(j).is_some_and(|(_, c)| c.is_alphanumeric());
        let run = segment.get(start..end).unwrap_or("");
        let found = if next_is_word { None } else { token_key(run) };
        match found {
            Some((written, key)) => {
                out.push((written.to_string(), key));
                i = j;
            }
            None => i += 1,
        }
    }
    out
}

/// Reads a run of number-ish characters as one money, date or time token
/// (ignoring trailing punctuation such as a sentence's `.` or `,`).
fn token_key(run: &str) -> Option<(&str, Key)> {
    let run = run.trim_end_matches(['.', ',', ':', '-', '_']);
    if let Some(body) = run.strip_prefix("-$") {
        let cents = money_cents(body)?;
        return Some((run, Key::Money(-cents)));
    }
    if let Some(body) = run.strip_prefix('$') {
        return Some((run, Key::Money(money_cents(body)?)));
    }
    if run.len() == 10 && run.as_bytes().get(4) == Some(&b'-') {
        return Date::parse_body(run).ok().map(|d| (run, Key::Date(d)));
    }
    if run.contains(':') && !run.contains(['$', ',', '.', '-']) {
        return Time::parse_body(run).ok().map(|t| (run, Key::Time(t)));
    }
    None
}

/// The cents of an amount written after `$`, with `,` or `_` separators.
fn money_cents(body: &str) -> Option<i64> {
    if body.starts_with([',', '_', '.']) {
        return None;
    }
    let plain: String = body.chars().filter(|c| !matches!(c, ',' | '_')).collect();
    Money::parse_body(&plain).ok().map(|m| m.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(segment: &str) -> Vec<(String, Key)> {
        tokens(segment)
    }

    #[test]
    fn finds_money_date_and_time_tokens() {
        let got = keys("Price: $1,299.00, was $1299. Due 2026-11-29 at 9:00.");
        assert_eq!(
            got,
            vec![
                ("$1,299.00".to_string(), Key::Money(129_900)),
                ("$1299".to_string(), Key::Money(129_900)),
                (
                    "2026-11-29".to_string(),
                    Key::Date(Date {
                        year: 2026,
                        month: 11,
                        day: 29
                    })
                ),
                ("9:00".to_string(), Key::Time(Time { hour: 9, minute: 0 })),
            ]
        );
        assert_eq!(
            keys("-$25.00 refund"),
            vec![("-$25.00".to_string(), Key::Money(-2500))]
        );
    }

    #[test]
    fn ignores_numbers_inside_words_and_malformed_tokens() {
        assert!(keys("SKU A12:30 and $12.999 and 25:00 and 2026-13-01").is_empty());
        assert!(keys("room 12, floor 3").is_empty());
    }

    #[test]
    fn pieces_are_trimmed_and_split_after_a_label() {
        let text = TextLit {
            parts: vec![TextPart::Lit("Author: Jane  Austen.".to_string())],
            span: Default::default(),
        };
        let lit = Literal::of(&text);
        assert_eq!(
            lit.matching(&Key::Words("jane austen".into()), "author"),
            Some("Jane  Austen")
        );
        assert_eq!(
            lit.matching(&Key::Words("author: jane austen".into()), "x"),
            Some("Author: Jane  Austen")
        );
        let stock = TextLit {
            parts: vec![TextPart::Lit("/5 — In stock: 5".to_string())],
            span: Default::default(),
        };
        let lit = Literal::of(&stock);
        assert_eq!(lit.matching(&Key::Int(5), "stock"), Some("5"));
        assert_eq!(lit.matching(&Key::Int(5), "stars"), None);
        assert_eq!(lit.matching(&Key::Int(4), "stock"), None);
        assert_eq!(parse_int("1,299"), Some(1299));
        assert_eq!(parse_int("-3"), Some(-3));
        assert_eq!(parse_int("3a"), None);
        assert_eq!(parse_int(",3"), None);
    }
}
