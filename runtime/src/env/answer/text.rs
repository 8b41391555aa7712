//! Text answers (§5.3): token F1 against an expected text, and the tokens
//! themselves (which the batched observations reuse, `batch/tokens.rs`).
//!
//! Tokens are the lowercased, whitespace-separated words stripped of leading
//! and trailing characters that are not letters, digits or `$`. An answer
//! matches an expected text when their token F1 is at least 0.5.

use std::collections::BTreeMap;

/// The least token F1 that counts as a match.
const MIN_F1: f64 = 0.5;

/// The tokens of a text: its words (`crate::words`), lowercased and
/// trimmed of anything but letters, digits and `$` at either end.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    crate::words::words(text)
}

/// Token F1 of `answer` against `expected` (multiset overlap).
fn f1(answer: &[String], expected: &[String]) -> f64 {
    if answer.is_empty() || expected.is_empty() {
        return 0.0;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for t in expected {
        *counts.entry(t.as_str()).or_default() += 1;
    }
    let mut overlap = 0usize;
    for t in answer {
        if let Some(n) = counts.get_mut(t.as_str()) {
            if *n > 0 {
                *n -= 1;
                overlap += 1;
            }
        }
    }
    if overlap == 0 {
        return 0.0;
    }
    let p = overlap as f64 / answer.len() as f64;
    let r = overlap as f64 / expected.len() as f64;
    2.0 * p * r / (p + r)
}

/// Whether `answer` matches one of `expected` (token F1 ≥ 0.5).
pub(super) fn matches_any(answer: &str, expected: &[String]) -> bool {
    best_f1(answer, expected) >= MIN_F1
}

/// The highest token F1 of `answer` against any of `expected` (0 for none).
pub(super) fn best_f1(answer: &str, expected: &[String]) -> f64 {
    let got = tokens(answer);
    expected
        .iter()
        .map(|e| f1(&got, &tokens(e)))
        .fold(0.0, f64::max)
}

/// Whether two texts agree by the answer rule's token F1 (≥ 0.5): the text
/// half of the decomposed reward's judgement of a `type`.
pub fn texts_agree(a: &str, b: &str) -> bool {
    f1(&tokens(a), &tokens(b)) >= MIN_F1
}

/// Whether the tokens of one of `expected` occur, in order and adjacent,
/// among the tokens of `text` (the text shows that answer inside it).
pub(super) fn contains_any(text: &str, expected: &[String]) -> bool {
    let hay = tokens(text);
    expected.iter().any(|e| {
        let needle = tokens(e);
        !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle.as_slice())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn matching_uses_token_f1() {
        let exp = strings(&["Maya Okafor"]);
        assert!(matches_any("Maya Okafor", &exp));
        assert!(matches_any("maya okafor.", &exp));
        assert!(matches_any("Maya", &exp));
        assert!(!matches_any("the customer is maya really", &exp));
        assert!(!matches_any("", &exp));
        assert!(!matches_any("Maya Okafor", &[]));
    }

    #[test]
    fn containment_is_by_adjacent_tokens() {
        let exp = strings(&["B-214"]);
        assert!(contains_any("Room B-214, second floor, east wing", &exp));
        assert!(!contains_any("Room B-215", &exp));
        let two = strings(&["Maya Okafor"]);
        assert!(contains_any("Ask Maya Okafor at the desk", &two));
        assert!(!contains_any("Ask Okafor or Maya", &two));
    }
}
