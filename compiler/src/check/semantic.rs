//! Semantic lints on data and text: negative money in seed data (M201), placeholder
//! text in any text literal (M203), duplicate seed ids (M204), `T[n]` references to
//! rows that are not seeded (M205) and empty text in required seed fields (M206).
//!
//! It also owns [`seed_ids`], the one definition of how seed rows are numbered,
//! which later stages (the interpreter, the artifact writer) reuse so that the ids
//! the checker reasons about are the ids the site runs with. Impossible dates
//! (M202) are reported by the parser, where the literal is read, not here. Types
//! are not checked here either: a value of the wrong type is the type checker's
//! E201, so these lints look only at constant literals and skip anything else.

use super::Symbols;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::*;
use std::collections::{BTreeMap, BTreeSet};
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

/// Runs M201, M203, M204, M205 and M206 over the program.
pub fn check(files: &[SourceFile], symbols: &Symbols<'_>, diags: &mut Diagnostics) {
    let ids = seed_ids(symbols);
    check_seed_values(symbols, diags);
    check_duplicate_ids(&ids, diags);
    let id_sets: BTreeMap<&str, BTreeSet<i64>> = ids
        .iter()
        .map(|(t, rows)| (*t, rows.iter().map(|r| r.id).collect()))
        .collect();
    // One walk per declaration, so each finding can name the declaration it is in.
    for decl in files.iter().flat_map(|f| &f.decls) {
        let mut walk = Walk::default();
        walk.decl(decl);
        let object = object_of(decl);
        for text in &walk.texts {
            check_placeholder(text, object.as_deref(), diags);
        }
        for expr in &walk.exprs {
            check_row_reference(symbols, &id_sets, expr, object.as_deref(), diags);
        }
    }
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

// ---------------------------------------------------------------------------
// M205: `T[n]` naming a row that is not seeded

fn check_row_reference(
    symbols: &Symbols<'_>,
    ids: &BTreeMap<&str, BTreeSet<i64>>,
    expr: &Expr,
    object: Option<&str>,
    diags: &mut Diagnostics,
) {
    let ExprKind::Index(base, index) = &expr.kind else {
        return;
    };
    let ExprKind::Name(table) = &base.kind else {
        return;
    };
    let Some(n) = const_int(index) else { return };
    if !symbols.tables.contains_key(table.name.as_str()) {
        return;
    }
    let empty = BTreeSet::new();
    let seeded = ids.get(table.name.as_str()).unwrap_or(&empty);
    if !seeded.contains(&n) {
        diags.push(with_object(
            missing_row(&table.name, n, expr.span, seeded),
            object,
        ));
    }
}

fn missing_row(table: &str, n: i64, span: Span, known: &BTreeSet<i64>) -> Diagnostic {
    let d = Diagnostic::new(Code::M205, span, format!("no `{table}` row with id `{n}`"))
        .label(format!("`{table}[{n}]` is not a seeded row"));
    if known.is_empty() {
        return d.help(format!(
            "`{table}` has no seed rows, so no row exists at the start; add `seed {table} [ {{ id: {n}, ... }} ]`"
        ));
    }
    let shown: Vec<String> = known.iter().take(10).map(i64::to_string).collect();
    let more = if known.len() > 10 { ", ..." } else { "" };
    d.help(format!(
        "the seeded `{table}` ids are {}{more}; use one of them or add a seed row with `id: {n}`",
        shown.join(", ")
    ))
}

// ---------------------------------------------------------------------------
// M203: placeholder text

/// Single words, and two-word phrases (written with whitespace between), that mark
/// text nobody finished writing. Compared case-insensitively, whole words only.
const PLACEHOLDER_WORDS: [&str; 5] = ["todo", "tbd", "fixme", "xxx", "placeholder"];
const PLACEHOLDER_PHRASES: [(&str, &str); 2] = [("lorem", "ipsum"), ("sample", "text")];

fn check_placeholder(text: &TextLit, object: Option<&str>, diags: &mut Diagnostics) {
    // Each literal chunk separately: an interpolation between two chunks is not
    // whitespace, so `lorem {x} ipsum` is not the phrase.
    for part in &text.parts {
        let TextPart::Lit(chunk) = part else { continue };
        if let Some(range) = find_placeholder(chunk) {
            let found = chunk.get(range.clone()).unwrap_or_default();
            let span = precise_span(text, chunk, range).unwrap_or(text.span);
            let d = Diagnostic::new(Code::M203, span, format!("placeholder text `{found}`"))
                .label("this looks unfinished")
                .help("replace it with the real text the site should show");
            diags.push(with_object(d, object));
            return;
        }
    }
}

/// The byte range of the first placeholder word or phrase in `s`.
pub fn find_placeholder(s: &str) -> Option<std::ops::Range<usize>> {
    let words = words(s);
    for (i, w) in words.iter().enumerate() {
        let lower = s.get(w.clone()).unwrap_or_default().to_lowercase();
        if PLACEHOLDER_WORDS.contains(&lower.as_str()) {
            return Some(w.clone());
        }
        let Some(next) = words.get(i + 1) else {
            continue;
        };
        let gap = s.get(w.end..next.start).unwrap_or_default();
        let second = s.get(next.clone()).unwrap_or_default().to_lowercase();
        let phrase = PLACEHOLDER_PHRASES
            .iter()
            .any(|(a, b)| *a == lower && *b == second);
        if phrase && gap.chars().all(char::is_whitespace) {
            return Some(w.start..next.end);
        }
    }
    None
}

/// Byte ranges of the words of `s`: maximal runs of letters, digits and `_` (so
/// `todos`, `xxxl` and `TODO_LIST` are single words that match nothing).
fn words(s: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        let word_char = c.is_alphanumeric() || c == '_';
        match (word_char, start) {
            (true, None) => start = Some(i),
            (false, Some(b)) => {
                out.push(b..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(b) = start {
        out.push(b..s.len());
    }
    out
}

/// The span of `range` within the source, when the literal is a single chunk
/// written without escapes (its source is then the chunk between two quotes).
/// Otherwise escapes shift offsets and the whole literal is the safer span.
fn precise_span(text: &TextLit, chunk: &str, range: std::ops::Range<usize>) -> Option<Span> {
    let written = text.span.end.checked_sub(text.span.start)? as usize;
    // Characters that are written escaped in source; with none of them the chunk
    // is byte for byte what sits between the quotes.
    let escaped = chunk.contains(['"', '\\', '{', '}', '\n']);
    if text.parts.len() != 1 || escaped || written != chunk.len() + 2 {
        return None;
    }
    let start = text.span.start as usize + 1 + range.start;
    Some(Span::new(text.span.file, start, start + range.len()))
}

// ---------------------------------------------------------------------------
// The walk: every text literal and every expression node of the program

/// Collects every [`TextLit`] and every [`Expr`] node (nested ones included) of
/// the declarations it is shown, in source order.
#[derive(Default)]
struct Walk<'a> {
    texts: Vec<&'a TextLit>,
    exprs: Vec<&'a Expr>,
}

impl<'a> Walk<'a> {
    fn decl(&mut self, decl: &'a Decl) {
        match &decl.kind {
            DeclKind::Use(_) | DeclKind::Enum(_) | DeclKind::Table(_) => {}
            DeclKind::Site(s) => {
                self.opt_text(s.title.as_ref());
                self.page_ref_opt(s.start.as_ref());
                self.opt_expr(s.today.as_ref());
            }
            DeclKind::Seed(s) => s
                .rows
                .iter()
                .flat_map(|r| &r.fields)
                .for_each(|f| self.expr(&f.value)),
            DeclKind::Session(s) => s.vars.iter().for_each(|v| self.expr(&v.init)),
            DeclKind::Invariant(i) => self.expr(&i.cond),
            DeclKind::Page(p) => self.page(p),
            DeclKind::Marker(m) => self.marker(m),
            DeclKind::Task(t) => self.task(t),
        }
    }

    fn page(&mut self, p: &'a PageDecl) {
        self.opt_text(p.route.as_ref());
        for guard in &p.guards {
            self.expr(&guard.cond);
            self.page_ref(&guard.target);
        }
        p.titles.iter().for_each(|t| self.text(t));
        self.elements(&p.body);
    }

    fn marker(&mut self, m: &'a MarkerDecl) {
        for r in &m.requires {
            self.expr(&r.cond);
            self.opt_text(r.message.as_ref());
        }
        self.stmts(&m.body);
    }

    fn task(&mut self, t: &'a TaskDecl) {
        if let Some(tpl) = &t.template {
            self.opt_expr(tpl.filter.as_ref());
            self.opt_expr(tpl.limit.as_ref());
        }
        self.opt_text(t.say.as_ref());
        self.page_ref_opt(t.start.as_ref());
        self.opt_expr(t.goal.as_ref());
        self.opt_expr(t.answer.as_ref());
        t.progress.iter().for_each(|p| self.expr(&p.pred));
        for node in t.key.iter().flatten() {
            if let KeyNode::Page(r) = node {
                self.page_ref(r);
            }
        }
        t.values.iter().for_each(|v| self.text(v));
        if let Some(setup) = &t.setup {
            self.stmts(setup);
        }
    }

    fn elements(&mut self, body: &'a [Element]) {
        body.iter().for_each(|e| self.element(e));
    }

    fn element(&mut self, e: &'a Element) {
        match &e.kind {
            ElementKind::Heading(t) | ElementKind::Text(t) | ElementKind::Image(t) => self.text(t),
            ElementKind::Link {
                label,
                target,
                disabled,
            }
            | ElementKind::Button {
                label,
                target,
                disabled,
            } => {
                self.text(label);
                self.page_ref(target);
                self.opt_expr(disabled.as_ref());
            }
            ElementKind::Input { label, .. } | ElementKind::Checkbox { label, .. } => {
                self.text(label)
            }
            ElementKind::SelectList { label, options, .. } => {
                self.text(label);
                options.iter().for_each(|o| self.expr(o));
            }
            ElementKind::SelectFrom {
                label,
                filter,
                show,
                ..
            } => {
                self.text(label);
                self.opt_expr(filter.as_ref());
                self.expr(show);
            }
            ElementKind::Section { label, body } => {
                self.text(label);
                self.elements(body);
            }
            ElementKind::For(f) => self.for_element(f),
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.elements(then);
                self.elements(otherwise);
            }
            ElementKind::Let { value, .. } => self.expr(value),
            ElementKind::Stmt(s) => self.stmt(s),
        }
    }

    fn for_element(&mut self, f: &'a ForElement) {
        if let LoopSource::List(items, _) = &f.source {
            items.iter().for_each(|i| self.expr(i));
        }
        self.opt_expr(f.filter.as_ref());
        self.opt_expr(f.order.as_ref().map(|o| &o.key));
        self.opt_expr(f.limit.as_ref());
        self.opt_expr(f.offset.as_ref());
        self.elements(&f.body);
    }

    fn stmts(&mut self, body: &'a [Stmt]) {
        body.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Let { value, .. } => self.expr(value),
            StmtKind::Insert { fields, .. } => fields.iter().for_each(|f| self.expr(&f.value)),
            StmtKind::Set { target, value } => {
                self.expr(target);
                self.expr(value);
            }
            StmtKind::Delete(e) => self.expr(e),
            StmtKind::DeleteAll { filter, .. } => self.opt_expr(filter.as_ref()),
            StmtKind::For { filter, body, .. } => {
                self.opt_expr(filter.as_ref());
                self.stmts(body);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.stmts(then);
                self.stmts(otherwise);
            }
            StmtKind::Reject(t) => self.text(t),
            StmtKind::Go(r) => self.page_ref(r),
        }
    }

    fn page_ref(&mut self, r: &'a PageRef) {
        r.args.iter().for_each(|a| self.expr(a));
    }

    fn page_ref_opt(&mut self, r: Option<&'a PageRef>) {
        if let Some(r) = r {
            self.page_ref(r);
        }
    }

    fn text(&mut self, t: &'a TextLit) {
        self.texts.push(t);
        t.interpolations().for_each(|e| self.expr(e));
    }

    fn opt_text(&mut self, t: Option<&'a TextLit>) {
        if let Some(t) = t {
            self.text(t);
        }
    }

    fn opt_expr(&mut self, e: Option<&'a Expr>) {
        if let Some(e) = e {
            self.expr(e);
        }
    }

    fn expr(&mut self, e: &'a Expr) {
        self.exprs.push(e);
        if let ExprKind::Text(t) = &e.kind {
            self.texts.push(t);
        }
        e.kind.children().into_iter().for_each(|c| self.expr(c));
    }
}

#[cfg(test)]
mod tests {
    use super::find_placeholder;
    use crate::diagnostics::Code;

    #[test]
    fn placeholders_match_whole_words_case_insensitively() {
        let hit = |s: &str| {
            find_placeholder(s)
                .and_then(|r| s.get(r))
                .map(str::to_string)
        };
        assert_eq!(hit("TODO: write this"), Some("TODO".into()));
        assert_eq!(hit("price tbd"), Some("tbd".into()));
        assert_eq!(hit("Lorem   Ipsum dolor"), Some("Lorem   Ipsum".into()));
        assert_eq!(hit("a Sample text here"), Some("Sample text".into()));
        assert_eq!(hit("(xxx)"), Some("xxx".into()));
        assert_eq!(hit("Placeholder"), Some("Placeholder".into()));
        assert_eq!(hit("my todos"), None);
        assert_eq!(hit("size xxxl"), None);
        assert_eq!(hit("TODO_LIST"), None);
        assert_eq!(hit("sample, text"), None);
        assert_eq!(hit("lorem"), None);
        assert_eq!(hit("Café fixme"), Some("fixme".into()));
        assert_eq!(hit(""), None);
    }

    /// (code, 1-based line) of every M-code diagnostic for `text`.
    fn found(text: &str) -> Vec<(Code, usize)> {
        let c = crate::compile_str("test.wsite", text);
        c.diagnostics
            .iter()
            .filter(|d| d.code.as_str().starts_with('M'))
            .map(|d| {
                (
                    d.code,
                    text.get(..d.span.start as usize)
                        .map_or(0, |s| s.matches('\n').count())
                        + 1,
                )
            })
            .collect()
    }

    const SEEDS: &str = r#"site S { title "Shop" domain ecommerce start Home }
table Item { name: Text  note: Text?  price: Money }
table Line { item: Item  qty: Int }
seed Item [
  { name: "Pen", note: "", price: $1.00 },
  { id: 5, name: "Cup", price: -$2.50 },
  { name: "", price: $3.00 },
]
seed Item [
  { id: 6, name: "Mug", price: $4.00 },
  { id: 5, name: "Bowl", price: $0 },
]
seed Line [
  { item: Item[6], qty: 1 },
  { item: Item[3], qty: 1 },
]
page Home {
  heading "Lorem ipsum"
  text "{Item[5].name} and {Item[9].name}"
  text "todos, xxxl"
}
"#;

    #[test]
    fn seed_lints_find_their_lines() {
        let got = found(SEEDS);
        let want = vec![
            (Code::M201, 6),
            (Code::M206, 7),
            (Code::M204, 10),
            (Code::M204, 11),
            (Code::M205, 15),
            (Code::M203, 18),
            (Code::M205, 19),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn seed_ids_number_rows_across_blocks() {
        let text = r#"site S { title "t" domain other start P }
table T { name: Text }
table U { name: Text }
seed T [ { name: "a" }, { id: 7, name: "b" }, { name: "c" }, { id: -2, name: "d" } ]
seed U [ { name: "x" } ]
seed T [ { name: "e" }, { id: 3, name: "f" }, { name: "g" } ]
page P { text "x" }
"#;
        let c = crate::compile_str("t.wsite", text);
        let mut sink = crate::diagnostics::Diagnostics::default();
        let symbols = crate::check::Symbols::collect(&c.files, &mut sink);
        let ids = super::seed_ids(&symbols);
        let of = |t: &str| {
            ids.get(t)
                .map(|rows| rows.iter().map(|r| r.id).collect::<Vec<_>>())
        };
        assert_eq!(of("T"), Some(vec![1, 7, 8, -2, 9, 3, 10]));
        assert_eq!(of("U"), Some(vec![1]));
        let explicit: Vec<bool> = ids
            .get("T")
            .map(|r| r.iter().map(|r| r.explicit).collect())
            .unwrap_or_default();
        assert_eq!(explicit, vec![false, true, false, true, false, true, false]);
    }

    #[test]
    fn row_references_outside_seeds_and_zero_money() {
        let text = r#"site S { title "t" domain other start P }
table T { name: Text  price: Money }
seed T [ { name: "a", price: -$0 } ]
page P {
  text "{T[1].name}"
}
task t {
  say "Look"
  setup { set T[2].name = "b" }
  goal T[1].name == "a" and T[-1].name == "a"
}
"#;
        assert_eq!(found(text), vec![(Code::M205, 9), (Code::M205, 10)]);
    }

    #[test]
    fn placeholder_span_is_the_word_when_the_literal_has_no_escapes() {
        let text =
            "site S { title \"t\" domain other start P }\npage P { text \"see TODO\" text \"a \\\"b\\\" TODO\" }\n";
        let c = crate::compile_str("t.wsite", text);
        let spans: Vec<&str> = c
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::M203)
            .filter_map(|d| text.get(d.span.range()))
            .collect();
        assert_eq!(spans, vec!["TODO", "\"a \\\"b\\\" TODO\""]);
    }
}
