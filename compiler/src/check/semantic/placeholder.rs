//! M203: placeholder text (`TODO`, `lorem ipsum`, ...) in any text literal
//! (spec §4), found as whole words, case-insensitively.

use super::with_object;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::{Span, TextLit, TextPart};

/// Single words, and two-word phrases (written with whitespace between), that mark
/// text nobody finished writing. Compared case-insensitively, whole words only.
const PLACEHOLDER_WORDS: [&str; 5] = ["todo", "tbd", "fixme", "xxx", "placeholder"];
const PLACEHOLDER_PHRASES: [(&str, &str); 2] = [("lorem", "ipsum"), ("sample", "text")];

pub(super) fn check_placeholder(text: &TextLit, object: Option<&str>, diags: &mut Diagnostics) {
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
