//! Tests of the semantic lints: where each finding lands, and seed numbering.

use super::placeholder::find_placeholder;
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

#[test]
fn setup_rows_follow_the_runtime_numbering() {
    let text = r#"site S { title "t" domain other start P }
table T { name: Text }
table U { name: Text }
seed T [ { id: -4, name: "a" } ]
page P { text "x" }
task numbered_from_one {
  say "Look"
  setup { insert T { name: "b" } }
  goal T[1].name == "b" and T[-4].name == "a" and T[2].name == "c"
}
task emptied {
  say "Look"
  setup {
    insert U { name: "u" }
    delete all x in U
    if count(T) > 0 { insert T { name: "c" } }
  }
  goal U[1].name == "u" or T[5].name == "c" or T[0].name == "c"
}
"#;
    // T's highest id is -4, but inserts start at 1 (ids never go below 1).
    // `delete all` without `where` empties U; an insert under `if` may make
    // any T id above the highest (0) exist, but not 0 itself.
    assert_eq!(
        found(text),
        vec![(Code::M205, 9), (Code::M205, 18), (Code::M205, 18)]
    );
}
