//! Completion: what may be written at the cursor. The context comes from the
//! text just before it (the file being typed rarely parses), the candidates
//! from the index of the last analysis:
//!
//! - after `session.`: the session variables;
//! - after `T.` (a table, in a permission) or `x.` (a local holding rows of
//!   `T`): `T`'s fields and `id`;
//! - after `->`: pages, and markers (a button may trigger one);
//! - after a page guard's `else`: pages;
//! - elsewhere: the built-in functions (with their signatures), keywords,
//!   the locals in scope, and every declared name.

use super::index::{Def, Key};
use super::Analysis;
use crate::check::types::builtin_docs;
use crate::syntax::ast::FileId;

/// The words of the grammar.
pub const KEYWORDS: &[&str] = &[
    "all",
    "and",
    "answer",
    "at",
    "button",
    "by",
    "checkbox",
    "count",
    "default",
    "delete",
    "desc",
    "disabled",
    "domain",
    "else",
    "enum",
    "exists",
    "extern",
    "false",
    "find",
    "for",
    "from",
    "go",
    "guard",
    "goal",
    "heading",
    "horizon",
    "if",
    "image",
    "in",
    "input",
    "insert",
    "invariant",
    "is",
    "key",
    "let",
    "limit",
    "link",
    "marker",
    "max",
    "min",
    "module",
    "none",
    "not",
    "offset",
    "or",
    "order",
    "page",
    "progress",
    "reads",
    "reject",
    "requires",
    "say",
    "section",
    "seed",
    "select",
    "session",
    "set",
    "setup",
    "show",
    "site",
    "start",
    "std",
    "sum",
    "table",
    "task",
    "text",
    "title",
    "today",
    "true",
    "use",
    "values",
    "visited",
    "when",
    "where",
    "writes",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Keyword,
    Page,
    Marker,
    Table,
    Field,
    Enum,
    Variant,
    Task,
    Session,
    Local,
    /// A built-in function (`left`, `to_int`, ...).
    Builtin,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: String,
}

/// Whether `head` (the text before the word being typed, trimmed) ends with
/// the `else` of a page guard: an `else` after the last `guard`, with no
/// brace between (an `if`'s `else` follows a `}`).
fn after_guard_else(head: &str) -> bool {
    let Some(before) = head.strip_suffix("else") else {
        return false;
    };
    if before.ends_with(is_word) {
        return false;
    }
    let guard = before.rfind("guard");
    let brace = before.rfind(['{', '}']);
    matches!((guard, brace), (Some(g), b) if b.is_none_or(|b| b < g))
}

impl Analysis {
    /// Candidates at byte `offset` of `file`, given the file's current `text`
    /// (which may be newer than the analysis).
    pub fn completions(&self, file: FileId, text: &str, offset: usize) -> Vec<Completion> {
        let offset = floor_char_boundary(text, offset);
        let before = &text[..offset];
        let word_start = before.rfind(|c: char| !is_word(c)).map_or(0, |i| {
            i + before[i..].chars().next().map_or(1, char::len_utf8)
        });
        let head = before[..word_start].trim_end();
        let mut out: Vec<Completion> = if let Some(base) = head.strip_suffix('.') {
            let base = trailing_word(base);
            self.members(base, offset)
        } else if head.ends_with("->") {
            self.globals(|k| matches!(k, Key::Page(_) | Key::Marker(_)))
        } else if after_guard_else(head) {
            self.globals(|k| matches!(k, Key::Page(_)))
        } else {
            // Built-ins first: `today` is a keyword too, and the first of
            // equal labels is kept.
            let mut all: Vec<Completion> = builtin_docs()
                .into_iter()
                .map(|b| Completion {
                    label: b.name.into(),
                    kind: CompletionKind::Builtin,
                    detail: b.signature,
                })
                .collect();
            all.extend(KEYWORDS.iter().map(|k| Completion {
                label: (*k).into(),
                kind: CompletionKind::Keyword,
                detail: "keyword".into(),
            }));
            all.extend(self.locals_in_scope(file, offset));
            all.extend(self.globals(|k| !matches!(k, Key::Field(..) | Key::Local(_) | Key::Site)));
            all
        };
        out.sort_by(|a, b| a.label.cmp(&b.label));
        out.dedup_by(|a, b| a.label == b.label);
        out
    }

    /// After `base.`: session variables, or the fields of a table.
    fn members(&self, base: &str, offset: usize) -> Vec<Completion> {
        if base == "session" {
            return self.globals(|k| matches!(k, Key::Session(_)));
        }
        let table = if self.index.def(&Key::Table(base.into())).is_some() {
            Some(base.to_string())
        } else {
            // The local of that name declared closest before the cursor.
            self.index
                .defs
                .iter()
                .filter(|d| matches!(d.key, Key::Local(_)) && d.name == base)
                .filter(|d| (d.span.start as usize) < offset)
                .max_by_key(|d| d.span.start)
                .and_then(|d| d.row_table.clone())
        };
        let Some(table) = table else {
            return Vec::new();
        };
        let mut fields = self.globals(|k| matches!(k, Key::Field(t, _) if *t == table));
        fields.push(Completion {
            label: "id".into(),
            kind: CompletionKind::Field,
            detail: format!("field {table}.id: Int"),
        });
        fields
    }

    fn globals(&self, keep: impl Fn(&Key) -> bool) -> Vec<Completion> {
        self.index
            .defs
            .iter()
            .filter(|d| keep(&d.key))
            .map(completion)
            .collect()
    }

    /// Locals whose declaration encloses the cursor and comes before it.
    fn locals_in_scope(&self, file: FileId, offset: usize) -> Vec<Completion> {
        self.index
            .defs
            .iter()
            .filter(|d| matches!(d.key, Key::Local(_)) && d.span.file == file)
            .filter(|d| (d.span.start as usize) < offset)
            .filter(|d| {
                d.scope
                    .is_some_and(|s| s.start as usize <= offset && offset <= s.end as usize)
            })
            .map(completion)
            .collect()
    }
}

fn completion(d: &Def) -> Completion {
    let kind = match d.key {
        Key::Page(_) => CompletionKind::Page,
        Key::Marker(_) => CompletionKind::Marker,
        Key::Table(_) => CompletionKind::Table,
        Key::Field(..) => CompletionKind::Field,
        Key::Enum(_) => CompletionKind::Enum,
        Key::Variant(..) => CompletionKind::Variant,
        Key::Task(_) => CompletionKind::Task,
        Key::Session(_) => CompletionKind::Session,
        Key::Local(_) => CompletionKind::Local,
        Key::Site | Key::Invariant(_) => CompletionKind::Other,
    };
    Completion {
        label: d.name.clone(),
        kind,
        detail: d.signature.clone(),
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn trailing_word(s: &str) -> &str {
    let start = s
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(s.len(), |(i, _)| i);
    &s[start..]
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
