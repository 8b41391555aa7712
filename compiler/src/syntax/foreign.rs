//! Spellings borrowed from other languages (`&&`, `!x`, `'text'`, `x += 1`,
//! `# comment`, `elif`): an E001 at one of them gets a help naming this
//! language's spelling and, where the rewrite is unambiguous, a [`Fix`] a tool
//! can apply (LANGUAGE.md §2 for the tokens, §4 for statements). The parser
//! calls [`hint`] for each syntax error it reports; the type checker calls
//! [`unknown_name`] for names such as `null` and `True` (E101).

use super::lexical::comment_start;
use crate::diagnostics::Fix;
use crate::syntax::ast::{Expr, ExprKind};

/// A targeted help, and the rewrite when there is exactly one.
#[derive(Clone, Debug, PartialEq)]
pub struct Hint {
    pub help: String,
    pub fix: Option<Fix>,
}

impl Hint {
    fn new(help: impl Into<String>, fix: Option<Fix>) -> Hint {
        Hint {
            help: help.into(),
            fix,
        }
    }
}

/// Where a syntax error was found, for [`hint`].
pub(crate) struct ErrorSite<'t> {
    pub text: &'t str,
    /// The offending token's first byte.
    pub pos: usize,
    /// What the parser expected there, as its message says it.
    pub expected: &'t str,
    /// The recovery chunk (a skipped line) holding the error, if any.
    pub chunk: Option<(usize, usize)>,
    /// Whether the chunk stands where a statement belongs.
    pub statement: bool,
}

/// The help (and fix) for a foreign spelling at the error, if it is one.
pub(crate) fn hint(site: &ErrorSite<'_>) -> Option<Hint> {
    let rest = site.text.get(site.pos..)?;
    operator(site, rest)
        .or_else(|| quote(site.pos, rest))
        .or_else(|| comment(site.text, site.pos, rest))
        .or_else(|| site.statement.then(|| assignment(site)).flatten())
        .or_else(|| keyword(site.pos, rest))
        .or_else(|| list_type(site, rest))
}

fn replace(start: usize, end: usize, text: impl Into<String>) -> Option<Fix> {
    Some(Fix::Replace {
        start: u32::try_from(start).ok()?,
        end: u32::try_from(end).ok()?,
        text: text.into(),
    })
}

/// `word` with a space on each side that does not already have one (or an
/// opening bracket), so `a&&b` becomes `a and b` and `(!a)` `(not a)`.
fn spaced(text: &str, start: usize, end: usize, word: &str) -> String {
    let before = text[..start]
        .chars()
        .next_back()
        .is_none_or(|c| c.is_whitespace() || c == '(');
    let after = text[end..].chars().next().is_none_or(char::is_whitespace);
    format!(
        "{}{word}{}",
        if before { "" } else { " " },
        if after { "" } else { " " }
    )
}

/// `&&`, `||`, `!x`, `=>`, `=`/`==` where `:` belongs, `=` in a condition,
/// `===`, and a `;` at the end of a line.
fn operator(site: &ErrorSite<'_>, rest: &str) -> Option<Hint> {
    let (text, pos) = (site.text, site.pos);
    let word = |len: usize, word: &str, help: String| {
        Some(Hint::new(
            help,
            replace(pos, pos + len, spaced(text, pos, pos + len, word)),
        ))
    };
    if rest.starts_with("&&") {
        return word(2, "and", "write `and` for logical and: `a and b`".into());
    }
    if rest.starts_with("||") {
        return word(2, "or", "write `or` for logical or: `a or b`".into());
    }
    if rest.starts_with('!') && !rest.starts_with("!=") {
        return word(
            1,
            "not",
            "write `not` for negation: `not x` (`!=` is still not-equal)".into(),
        );
    }
    if rest.starts_with("=>") && site.expected.contains("`->`") {
        return Some(Hint::new(
            "links and buttons point with `->`",
            replace(pos, pos + 2, "->"),
        ));
    }
    if rest.starts_with('=') && site.expected.contains("`:`") {
        let len = if rest.starts_with("==") { 2 } else { 1 };
        // `name = x` becomes `name: x`, the colon against the name.
        let start = text[..pos].trim_end_matches([' ', '\t']).len();
        return Some(Hint::new(
            "a field is written `name: value` (seed rows, `insert`) or `name: Type` (tables)",
            replace(start, pos + len, ":"),
        ));
    }
    if rest.starts_with('=') && text[..pos].ends_with("==") {
        return Some(Hint::new(
            "equality is `==` (there is no `===`)",
            replace(pos, pos + 1, ""),
        ));
    }
    if rest.starts_with('=') && !rest.starts_with("==") && site.expected.contains("an operator") {
        return Some(Hint::new(
            "compare with `==`; a single `=` only assigns, in `set x = ...` and `let x = ...`",
            replace(pos, pos + 1, "=="),
        ));
    }
    if rest.starts_with(';') {
        return Some(Hint::new(
            "a line ends an item or statement; no `;` is needed",
            replace(pos, pos + 1, ""),
        ));
    }
    None
}

/// `'text'`: strings use double quotes.
fn quote(pos: usize, rest: &str) -> Option<Hint> {
    let inner = rest.strip_prefix('\'')?;
    let line = &inner[..inner.find('\n').unwrap_or(inner.len())];
    let help = "strings are written in double quotes: `\"...\"`";
    let Some(close) = line.find('\'') else {
        return Some(Hint::new(help, None));
    };
    let body = &line[..close];
    // Single-quoted text elsewhere is literal: keep it so here.
    let mut out = String::from("\"");
    for c in body.chars() {
        match c {
            '"' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    Some(Hint::new(help, replace(pos, pos + close + 2, out)))
}

/// `# comment` (or `--`) as a line's first token.
fn comment(text: &str, pos: usize, rest: &str) -> Option<Hint> {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..pos].trim().is_empty() {
        return None;
    }
    let len = if rest.starts_with("# ") || rest.starts_with("#\n") || rest.starts_with("##") {
        1
    } else if rest.starts_with("-- ") {
        2
    } else {
        return None;
    };
    Some(Hint::new(
        "comments start with `//`",
        replace(pos, pos + len, "//"),
    ))
}

/// `elif`, `elsif`, `elseif` and `else:`-free spellings of `else if`.
fn keyword(pos: usize, rest: &str) -> Option<Hint> {
    let word_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    match &rest[..word_len] {
        "elif" | "elsif" | "elseif" => Some(Hint::new(
            "write `else if`",
            replace(pos, pos + word_len, "else if"),
        )),
        _ => None,
    }
}

/// `tags: [Text]`: there are no list-typed fields.
fn list_type(site: &ErrorSite<'_>, rest: &str) -> Option<Hint> {
    let after_colon = site.text[..site.pos].trim_end().ends_with(':');
    if !(rest.starts_with('[') && after_colon) {
        return None;
    }
    Some(Hint::new(
        "lists exist only in expressions (`x in [1, 2]`); to store several values, declare a table \
         whose rows point back at this one, e.g. `table Tag { item: Item, name: Text }`",
        None,
    ))
}

/// `x += 1`, `x -= 1`, `x++`, `x = 1` where a statement belongs: `set x = ...`.
fn assignment(site: &ErrorSite<'_>) -> Option<Hint> {
    let (start, end) = site.chunk?;
    let chunk = site.text.get(start..end)?;
    let first = chunk.lines().next()?;
    let line = first[..comment_start(first).unwrap_or(first.len())].trim_end();
    let body = line.trim_start();
    let body = body.strip_prefix("set ").map_or(body, str::trim_start);
    let target_len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(body.len());
    let (target, after) = body.split_at(target_len);
    if target.is_empty() || target.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let after = after.trim_start();
    let (op, value) = if let Some(v) = after.strip_prefix("++") {
        ("+", v.trim().is_empty().then_some("1")?)
    } else if let Some(v) = after.strip_prefix("--") {
        ("-", v.trim().is_empty().then_some("1")?)
    } else if let Some((op, v)) = ["+=", "-=", "*=", "/=", "%="]
        .iter()
        .find_map(|op| after.strip_prefix(op).map(|v| (&op[..1], v.trim())))
    {
        (op, v)
    } else if let Some(v) = after.strip_prefix('=').filter(|v| !v.starts_with('=')) {
        ("", v.trim())
    } else {
        return None;
    };
    if value.is_empty() {
        return None;
    }
    let new = match op {
        "" => format!("set {target} = {value}"),
        _ if value.contains(' ') => format!("set {target} = {target} {op} ({value})"),
        _ => format!("set {target} = {target} {op} {value}"),
    };
    let line_start = start + (first.len() - first.trim_start().len());
    let line_end = start + line.len();
    Some(Hint::new(
        format!("assignments are statements: `{new}`"),
        replace(line_start, line_end, new),
    ))
}

/// A name another language uses for `none`, `true` or `false`.
pub fn unknown_name(name: &str) -> Option<(&'static str, String)> {
    let ours = match name {
        "null" | "nil" | "NULL" | "Nil" | "None" | "undefined" | "Null" => "none",
        "True" | "TRUE" => "true",
        "False" | "FALSE" => "false",
        _ => return None,
    };
    Some((ours, format!("this language writes `{ours}`")))
}

/// `"Hello " + name` written as one interpolated string, `"Hello {name}"`,
/// when each side is a name, a field path or a string without
/// interpolations (E203's fix for `+` on text).
pub fn interpolation(l: &Expr, r: &Expr) -> Option<String> {
    Some(format!("\"{}{}\"", piece(l)?, piece(r)?))
}

fn piece(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Text(t) if t.interpolations().next().is_none() => {
            let mut out = String::new();
            for c in t.plain().chars() {
                match c {
                    '"' | '{' | '}' | '\\' => {
                        out.push('\\');
                        out.push(c);
                    }
                    '\n' => out.push_str("\\n"),
                    _ => out.push(c),
                }
            }
            Some(out)
        }
        ExprKind::Name(_) | ExprKind::Field(..) => Some(format!("{{{}}}", path(e)?)),
        _ => None,
    }
}

/// `a.b.c` for a name followed by fields.
fn path(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.name.clone()),
        ExprKind::Field(base, f) => Some(format!("{}.{}", path(base)?, f.name)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, token: &str, expected: &str, statement: bool) -> Option<Hint> {
        let pos = text.find(token)?;
        hint(&ErrorSite {
            text,
            pos,
            expected,
            chunk: Some((text.find(|c: char| !c.is_whitespace())?, text.len())),
            statement,
        })
    }

    fn applied(text: &str, hint: Option<Hint>) -> String {
        match hint.and_then(|h| h.fix) {
            Some(Fix::Replace {
                start,
                end,
                text: new,
            }) => {
                format!("{}{new}{}", &text[..start as usize], &text[end as usize..])
            }
            _ => "(no fix)".into(),
        }
    }

    #[test]
    fn operators_and_quotes_are_rewritten() {
        let cases = [
            ("a && b", "&&", "", "a and b"),
            ("a&&b", "&&", "", "a and b"),
            ("a || b", "||", "", "a or b"),
            ("!a", "!", "", "not a"),
            ("! a", "!", "", "not a"),
            ("(!a)", "!", "", "(not a)"),
            ("x = 'it\"s {x}'", "'", "", "x = \"it\\\"s \\{x\\}\""),
            ("a === b", "= b", "an expression", "a == b"),
            ("if a = b {", "= b", "an operator or `{`", "if a == b {"),
            ("{ name = \"x\" }", "=", "`:`", "{ name: \"x\" }"),
            ("link \"a\" => A", "=>", "`->`", "link \"a\" -> A"),
            ("  # note", "#", "", "  // note"),
            ("} elif b {", "elif", "", "} else if b {"),
        ];
        for (text, token, expected, want) in cases {
            assert_eq!(
                applied(text, at(text, token, expected, false)),
                want,
                "{text}"
            );
        }
        assert_eq!(applied("a != b", at("a != b", "!", "", false)), "(no fix)");
        assert!(at("a 'b", "'", "", false).is_some_and(|h| h.fix.is_none()));
        assert!(at("tags: [Text]", "[", "a name", false).is_some_and(|h| h.fix.is_none()));
    }

    #[test]
    fn assignments_become_set_statements() {
        let cases = [
            ("  x += 1 // why\n", "set x = x + 1 // why"),
            ("p.stock -= q + 1", "set p.stock = p.stock - (q + 1)"),
            ("set n *= 2", "set n = n * 2"),
            ("n++", "set n = n + 1"),
            ("session.user = u", "set session.user = u"),
        ];
        for (text, want) in cases {
            let h = at(text, text.trim_start(), "a statement", true);
            let line = applied(text, h);
            assert_eq!(line.trim(), want, "{text}");
        }
        assert!(at("x == 1", "x", "a statement", true).is_none());
        assert!(at("x += 1", "x", "a statement", false).is_none());
    }

    #[test]
    fn foreign_constants_name_ours() {
        assert_eq!(unknown_name("null").map(|h| h.0), Some("none"));
        assert_eq!(unknown_name("True").map(|h| h.0), Some("true"));
        assert_eq!(unknown_name("nothing"), None);
    }
}
