//! No input makes the front end panic: arbitrary text, and (more searching) the
//! example sites with random edits, which reach deep into the grammar and the
//! checker with almost-valid programs. Also: spans land on the right line and
//! column, and recovery keeps the rest of a file alive.

#![allow(clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use wsitec::diagnostics::json::line_col;
use wsitec::diagnostics::Code;

fn corpus() -> Vec<String> {
    wsite_tests::examples()
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// Applies `edits` (position fraction, kind, byte) to `text`, on char boundaries.
fn mutate(text: &str, edits: &[(f64, u8, char)]) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for &(at, kind, ch) in edits {
        if s.is_empty() {
            s.push(ch);
            continue;
        }
        let i = ((s.len() as f64) * at) as usize % s.len();
        match kind % 4 {
            0 => {
                s.remove(i);
            }
            1 => s.insert(i, ch),
            2 => s[i] = ch,
            _ => {
                // Drop a whole line: the most common mistake a model makes.
                let start = s[..i]
                    .iter()
                    .rposition(|c| *c == '\n')
                    .map(|p| p + 1)
                    .unwrap_or(0);
                let end = s[i..]
                    .iter()
                    .position(|c| *c == '\n')
                    .map(|p| i + p + 1)
                    .unwrap_or(s.len());
                s.drain(start..end);
            }
        }
    }
    s.into_iter().collect()
}

const INTERESTING: &[char] = &[
    '{', '}', '(', ')', '[', ']', '"', '\\', '$', '@', '.', ':', '-', '#', '\n', 'x', '0', ' ',
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let _ = wsitec::compile_str("fuzz.wsite", &text);
    }

    #[test]
    fn edited_examples_never_panic(
        which in 0usize..64,
        edits in prop::collection::vec((0.0f64..1.0, any::<u8>(), prop::sample::select(INTERESTING)), 1..6),
    ) {
        let corpus = corpus();
        prop_assume!(!corpus.is_empty());
        let text = mutate(&corpus[which % corpus.len()], &edits);
        let compiled = wsitec::compile_str("edited.wsite", &text);
        for d in &compiled.diagnostics {
            // Every span stays inside the text and on char boundaries.
            prop_assert!(d.span.end as usize <= text.len());
            prop_assert!(text.is_char_boundary(d.span.start as usize));
        }
    }
}

#[test]
fn spans_give_the_right_line_and_column() {
    let text = "site S { title \"t\" domain other start A }\npage A {\n  link \"b\" -> B\n    text \"{nope}\"\n}\npage B { link \"a\" -> A }\n";
    let compiled = wsitec::compile_str("s.wsite", text);
    let unknown = compiled
        .diagnostics
        .iter()
        .find(|d| d.code == Code::E101)
        .expect("an E101 for `nope`");
    assert_eq!(line_col(text, unknown.span.start as usize), (4, 12));
    assert_eq!(&text[unknown.span.range()], "nope");
}

#[test]
fn a_bad_line_in_one_page_leaves_the_other_pages_checked() {
    let text = "site S { title \"t\" domain other start A }\npage A {\n  link \"b\" => B\n  text \"{missing_a}\"\n}\npage B {\n  link \"a\" -> A\n  text \"{missing_b}\"\n}\n";
    let compiled = wsitec::compile_str("s.wsite", text);
    let codes: Vec<(Code, usize)> = compiled
        .diagnostics
        .iter()
        .map(|d| (d.code, line_col(text, d.span.start as usize).0))
        .collect();
    assert!(codes.contains(&(Code::E001, 3)), "{codes:?}");
    assert!(codes.contains(&(Code::E101, 4)), "{codes:?}");
    assert!(codes.contains(&(Code::E101, 8)), "{codes:?}");
    assert_eq!(
        codes.iter().filter(|(c, _)| *c == Code::E001).count(),
        1,
        "{codes:?}"
    );
}

#[test]
fn deeply_nested_quantifiers_do_not_overflow_the_stack() {
    let body = "exists x in T: ".repeat(3000);
    let text = format!("invariant deep: {body}true\n");
    // Runs on a thread with the default test stack: a diagnostic or a clean
    // result are both fine, a crash is not.
    let _ = wsitec::compile_str("deep.wsite", &text);
}

#[test]
fn long_operator_chains_are_cut_off_with_one_diagnostic() {
    let text = format!(
        "invariant sum: {}1 > 0\ninvariant nots: {}true\ninvariant path: A{} == 1\n",
        "1 + ".repeat(20_000),
        "not ".repeat(20_000),
        ".a".repeat(20_000)
    );
    // The default test thread's stack: later passes recurse over expressions,
    // so this only passes if their depth was capped.
    let compiled = wsitec::compile_str("chains.wsite", &text);
    let too_deep = compiled
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("nested too deeply"))
        .count();
    assert_eq!(
        too_deep,
        1,
        "{:?}",
        compiled
            .diagnostics
            .iter()
            .map(|d| &d.message)
            .collect::<Vec<_>>()
    );
}
