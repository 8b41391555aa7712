//! The formatter's lexer: cuts a source text into tokens exactly where the
//! grammar (`grammar/wsite.pest`) would, so that the layout can change the
//! whitespace between tokens and nothing else.
//!
//! It knows comments, text literals (with escapes and `{...}` interpolations,
//! which may hold further text literals; a literal is one opaque token),
//! numbers, amounts, `@` dates and times, `#names`, words and the grammar's
//! punctuation, multi-character operators first. It is total: any input, even
//! one the parser rejects, yields tokens covering every non-blank character,
//! and it never panics.

/// What a token is, as far as spacing and indentation care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// An identifier or keyword.
    Word,
    /// `42`, `1_000`, `1.5`
    Number,
    /// `$9.99`
    Money,
    /// `@2026-11-29`, `@09:30`, or a malformed `@...`
    At,
    /// `#buy`
    ElName,
    /// `"..."`, interpolations included.
    Text,
    /// `// ...` to the end of the line (doc comments included).
    Comment,
    /// Grammar punctuation: brackets, `,`, `:`, `::`, `.`, `?`, `->` and the
    /// operators.
    Punct,
    /// A character the grammar has no use for (only in files that do not parse).
    Other,
}

/// One token: its kind and its byte range in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

/// Multi-character punctuation, matched before single characters.
const PUNCT2: [&str; 6] = ["::", "->", "==", "!=", "<=", ">="];
const PUNCT1: &[u8] = b"{}()[],:.?=<>+-*/%";

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every token of `src`, in order. Whitespace (space, tab, CR, LF) separates
/// tokens and belongs to none.
pub(super) fn tokens(src: &str) -> Vec<Token> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
            continue;
        }
        let start = i;
        let (kind, end) = if bytes[i..].starts_with(b"//") {
            (Kind::Comment, line_end(bytes, i))
        } else if b == b'"' {
            (Kind::Text, text_end(src, i))
        } else if is_ident_start(b) {
            (Kind::Word, run(bytes, i + 1, is_ident_char))
        } else if b.is_ascii_digit() {
            (Kind::Number, number_end(bytes, i))
        } else if b == b'$' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            (Kind::Money, money_end(bytes, i))
        } else if b == b'@' {
            (Kind::At, at_end(bytes, i))
        } else if b == b'#' && bytes.get(i + 1).copied().is_some_and(is_ident_start) {
            (Kind::ElName, run(bytes, i + 2, is_ident_char))
        } else if let Some(p) = PUNCT2.iter().find(|p| bytes[i..].starts_with(p.as_bytes())) {
            (Kind::Punct, i + p.len())
        } else if PUNCT1.contains(&b) {
            (Kind::Punct, i + 1)
        } else {
            (Kind::Other, i + char_len(src, i))
        };
        out.push(Token { kind, start, end });
        i = end;
    }
    out
}

/// The byte length of the character starting at `i` (1 if `i` is not a
/// character boundary, which the callers never ask for).
fn char_len(src: &str, i: usize) -> usize {
    src.get(i..)
        .and_then(|s| s.chars().next())
        .map_or(1, char::len_utf8)
}

/// The first index from `i` whose byte fails `keep`.
fn run(bytes: &[u8], mut i: usize, keep: impl Fn(u8) -> bool) -> usize {
    while i < bytes.len() && keep(bytes[i]) {
        i += 1;
    }
    i
}

/// The index of the line break ending the line that holds `i` (or the end).
fn line_end(bytes: &[u8], i: usize) -> usize {
    run(bytes, i, |b| b != b'\n')
}

/// `bad_decimal` (`1.5`) before `int_lit` (`1_000`), as the grammar orders them.
fn number_end(bytes: &[u8], i: usize) -> usize {
    let digits = run(bytes, i, |b| b.is_ascii_digit());
    if bytes.get(digits) == Some(&b'.') && bytes.get(digits + 1).is_some_and(u8::is_ascii_digit) {
        return run(bytes, digits + 1, |b| b.is_ascii_digit());
    }
    run(bytes, digits, |b| b.is_ascii_digit() || b == b'_')
}

/// `$` digit (digit | `_`)* (`.` digit*)?
fn money_end(bytes: &[u8], i: usize) -> usize {
    let end = run(bytes, i + 1, |b| b.is_ascii_digit() || b == b'_');
    if bytes.get(end) == Some(&b'.') {
        run(bytes, end + 1, |b| b.is_ascii_digit())
    } else {
        end
    }
}

/// A date (`@D+-D+-D+`), else a time (`@D+:D+`), else the grammar's catch-all
/// for a malformed one.
fn at_end(bytes: &[u8], i: usize) -> usize {
    let digits = |from: usize| {
        let end = run(bytes, from, |b| b.is_ascii_digit());
        (end > from).then_some(end)
    };
    let after = |end: usize, sep: u8| (bytes.get(end) == Some(&sep)).then_some(end + 1);
    let date = digits(i + 1)
        .and_then(|e| after(e, b'-'))
        .and_then(digits)
        .and_then(|e| after(e, b'-'))
        .and_then(digits);
    let time = || digits(i + 1).and_then(|e| after(e, b':')).and_then(digits);
    date.or_else(time).unwrap_or_else(|| {
        run(bytes, i + 1, |b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b':' | b'.' | b'_')
        })
    })
}

/// Where the text literal opening at `i` ends: after its closing quote, or at
/// the line break (or end) that cuts it off. Interpolations may span lines and
/// hold comments and further literals; an explicit stack keeps any nesting
/// depth off the call stack.
fn text_end(src: &str, i: usize) -> usize {
    #[derive(Clone, Copy)]
    enum Frame {
        Text,
        Interp,
    }
    let bytes = src.as_bytes();
    let mut stack = vec![Frame::Text];
    let mut i = i + 1;
    while let Some(&top) = stack.last() {
        let Some(&b) = bytes.get(i) else { break };
        match top {
            Frame::Text => match b {
                b'\\' => {
                    i += 1;
                    if bytes.get(i).is_some_and(|&n| n != b'\n' && n != b'\r') {
                        i += char_len(src, i);
                    }
                }
                b'"' => {
                    stack.pop();
                    i += 1;
                }
                b'\n' | b'\r' => {
                    stack.pop();
                }
                b'{' => {
                    stack.push(Frame::Interp);
                    i += 1;
                }
                _ => i += char_len(src, i),
            },
            Frame::Interp => match b {
                b'"' => {
                    stack.push(Frame::Text);
                    i += 1;
                }
                b'}' => {
                    stack.pop();
                    i += 1;
                }
                b'{' => {
                    stack.push(Frame::Interp);
                    i += 1;
                }
                b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_end(bytes, i),
                _ => i += char_len(src, i),
            },
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<&str> {
        tokens(src).iter().map(|t| &src[t.start..t.end]).collect()
    }

    #[test]
    fn cuts_where_the_grammar_does() {
        assert_eq!(
            texts("a.b->c==-1 $9.99 $5. @2026-11-29: @09:30 @x:y 1.5 1_000 #buy std::x"),
            vec![
                "a",
                ".",
                "b",
                "->",
                "c",
                "==",
                "-",
                "1",
                "$9.99",
                "$5.",
                "@2026-11-29",
                ":",
                "@09:30",
                "@x:y",
                "1.5",
                "1_000",
                "#buy",
                "std",
                "::",
                "x"
            ]
        );
    }

    #[test]
    fn text_literals_are_one_token() {
        let src = r#"text "a \"b\" {f("}", x)} \{" // c"#;
        assert_eq!(
            texts(src),
            vec!["text", r#""a \"b\" {f("}", x)} \{""#, "// c"]
        );
        assert_eq!(texts("\"open\nx"), vec!["\"open", "x"]);
    }

    #[test]
    fn any_bytes_are_covered() {
        let src = "é \u{0} ! $ # @ \"\\";
        let toks = tokens(src);
        assert!(toks.iter().all(|t| src.get(t.start..t.end).is_some()));
        assert_eq!(toks.len(), 7);
    }
}
