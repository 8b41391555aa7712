#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::completion::CompletionKind;
use super::symbols::SymbolKind;
use super::Analysis;
use crate::syntax::ast::FileId;
use crate::{compile_str, compile_str_with, Options};

const SHOP: &str = r#"site Shop {
  title "Shop"
  domain ecommerce
  start Home
  today @2026-11-30
}

enum Status { open, closed }

/// Things for sale.
table Product {
  name: Text
  price: Money
  stock: Int
  status: Status
}

seed Product [
  { name: "Lamp", price: $20.00, stock: 3, status: open },
]

session {
  note: Text = ""
}

page Home {
  title "Home"
  heading "Shop"
  for p in Product {
    link "{p.name}" -> ProductPage(p)
  }
}

page ProductPage(p: Product) {
  title "{p.name}"
  heading "{p.name}"
  text "{p.price}"
  button #buy "Buy" -> buy(p)
  link "Home" -> Home
}

/// Takes one off the stock.
marker buy(p: Product)
  reads    Product.price
  writes   Product.stock
  requires p.stock > 0 else "Sold out"
{
  set p.stock = p.stock - 1
}

/// Buying the lamp.
task buy_lamp {
  say "Buy the lamp"
  start Home
  goal Product[1].stock == 2
  horizon 4
}
"#;

fn analyse(text: &str) -> Analysis {
    Analysis::new(compile_str("shop.wsite", text))
}

/// The byte offset of the `nth` (0-based) occurrence of `needle`, plus `skip`.
fn at(text: &str, needle: &str, nth: usize, skip: usize) -> usize {
    text.match_indices(needle)
        .nth(nth)
        .map(|(i, _)| i + skip)
        .expect("needle")
}

const FILE: FileId = FileId(0);

#[test]
fn hover_shows_a_fields_type_and_a_tables_doc() {
    let a = analyse(SHOP);
    let h = a.hover(FILE, at(SHOP, "p.price", 0, 3)).unwrap();
    assert!(
        h.contents.contains("field Product.price: Money"),
        "{}",
        h.contents
    );
    let h = a.hover(FILE, at(SHOP, "Product", 1, 1)).unwrap();
    assert!(
        h.contents.contains("table Product (4 fields)"),
        "{}",
        h.contents
    );
    assert!(h.contents.contains("Things for sale."), "{}", h.contents);
}

#[test]
fn hover_off_a_name_shows_the_expressions_type() {
    let a = analyse(SHOP);
    // On the `>` of `p.stock > 0`.
    let h = a.hover(FILE, at(SHOP, "> 0", 0, 0)).unwrap();
    assert_eq!(h.contents, "```wsite\nBool\n```");
}

#[test]
fn hover_on_a_marker_compares_permissions_with_accesses() {
    let a = analyse(SHOP);
    let h = a.hover(FILE, at(SHOP, "marker buy", 0, 8)).unwrap();
    assert!(
        h.contents.contains("marker buy(p: Product)"),
        "{}",
        h.contents
    );
    assert!(
        h.contents
            .contains("declared: reads `Product.price`; writes `Product.stock`"),
        "{}",
        h.contents
    );
    // `p.stock` is read by the requires clause and the body; price is not.
    assert!(
        h.contents
            .contains("inferred: reads `Product.stock`; writes `Product.stock`"),
        "{}",
        h.contents
    );
}

#[test]
fn hover_on_a_task_gives_the_verdict_once_proven() {
    let plain = analyse(SHOP);
    let h = plain.hover(FILE, at(SHOP, "buy_lamp", 0, 1)).unwrap();
    assert!(h.contents.contains("not proven yet"), "{}", h.contents);
    let proven = Analysis::new(compile_str_with(
        "shop.wsite",
        SHOP,
        Options {
            prove: Some(Default::default()),
            ..Default::default()
        },
    ));
    assert!(
        !proven.compilation.proofs.is_empty(),
        "{:?}",
        proven.compilation.diagnostics
    );
    let h = proven.hover(FILE, at(SHOP, "buy_lamp", 0, 1)).unwrap();
    assert!(h.contents.contains("**feasible**"), "{}", h.contents);
    assert!(
        h.contents.contains("shortest witness: 2 steps"),
        "{}",
        h.contents
    );
}

#[test]
fn definition_and_references_follow_names_across_kinds() {
    let a = analyse(SHOP);
    let decl = at(SHOP, "page ProductPage", 0, 5);
    // From the link's target to the page.
    let def = a
        .definition(FILE, at(SHOP, "-> ProductPage", 0, 4))
        .unwrap();
    assert_eq!(def.start as usize, decl);
    // A field from its use in a marker to the table.
    let def = a.definition(FILE, at(SHOP, "p.stock - 1", 0, 3)).unwrap();
    assert_eq!(def.start as usize, at(SHOP, "stock: Int", 0, 0));
    // An enum variant in a seed row.
    let def = a.definition(FILE, at(SHOP, "status: open", 0, 9)).unwrap();
    assert_eq!(def.start as usize, at(SHOP, "open,", 0, 0));
    // A marker parameter from its use.
    let def = a.definition(FILE, at(SHOP, "set p.", 0, 4)).unwrap();
    assert_eq!(def.start as usize, at(SHOP, "buy(p: Product)", 0, 4));
    // `stock` is declared once, permitted once, seeded once and used four times.
    let refs = a.references(FILE, at(SHOP, "stock: Int", 0, 0), true);
    assert_eq!(refs.len(), 7, "{refs:?}");
    let without = a.references(FILE, at(SHOP, "stock: Int", 0, 0), false);
    assert_eq!(without.len(), 6);
}

#[test]
fn completion_after_a_dot_lists_fields_and_session_variables() {
    let text = SHOP.replace("text \"{p.price}\"", "text \"{p.price}\" text p.");
    let a = analyse(SHOP);
    let offset = at(&text, "text p.", 0, 7);
    let labels: Vec<String> = a
        .completions(FILE, &text, offset)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(labels, ["id", "name", "price", "status", "stock"]);
    let text = SHOP.replace("goal Product[1].stock == 2", "goal session.");
    let offset = at(&text, "session.", 0, 8);
    let c = a.completions(FILE, &text, offset);
    assert_eq!(c.len(), 1);
    assert_eq!(
        (c[0].label.as_str(), c[0].kind),
        ("note", CompletionKind::Session)
    );
}

#[test]
fn completion_after_an_arrow_lists_pages_and_markers() {
    let text = SHOP.replace("link \"Home\" -> Home", "link \"Home\" -> ");
    let a = analyse(SHOP);
    let offset = at(&text, "\"Home\" -> ", 0, 10);
    let labels: Vec<String> = a
        .completions(FILE, &text, offset)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(labels, ["Home", "ProductPage", "buy"]);
}

#[test]
fn completion_elsewhere_offers_keywords_globals_and_locals_in_scope() {
    let a = analyse(SHOP);
    let offset = at(SHOP, "  text \"{p.price}\"", 0, 2);
    let c = a.completions(FILE, SHOP, offset);
    let has = |label: &str, kind| c.iter().any(|x| x.label == label && x.kind == kind);
    assert!(has("heading", CompletionKind::Keyword));
    assert!(has("Product", CompletionKind::Table));
    assert!(has("open", CompletionKind::Variant));
    assert!(has("p", CompletionKind::Local));
    assert!(has("buy_lamp", CompletionKind::Task));
    // The `p` of another declaration is not in scope in `Home`'s header.
    let offset = at(SHOP, "page Home", 0, 0);
    let c = a.completions(FILE, SHOP, offset);
    assert!(!c.iter().any(|x| x.kind == CompletionKind::Local));
}

#[test]
fn built_ins_are_completed_and_hovered_with_their_signatures() {
    let a = analyse(SHOP);
    let offset = at(SHOP, "  text \"{p.price}\"", 0, 2);
    let c = a.completions(FILE, SHOP, offset);
    let left = c
        .iter()
        .find(|x| x.label == "left")
        .expect("`left` offered");
    assert_eq!(left.kind, CompletionKind::Builtin);
    assert_eq!(left.detail, "left(text: Text, count: Int) -> Text");
    let to_int = c
        .iter()
        .find(|x| x.label == "to_int")
        .expect("`to_int` offered");
    assert_eq!(to_int.detail, "to_int(text: Text) -> Int?");
    let today = c
        .iter()
        .find(|x| x.label == "today")
        .expect("`today` offered");
    assert_eq!(
        today.kind,
        CompletionKind::Builtin,
        "the built-in wins over the keyword"
    );

    let text = SHOP.replace(
        "  text \"{p.price}\"",
        "  text \"{plural(p.stock, \"lamp\", \"lamps\")} {p.price}\"\n  input d: Date \"Day\"\n  if d != none {\n    text \"{d + 1}\"\n  }",
    );
    let a = analyse(&text);
    let h = a.hover(FILE, at(&text, "plural(", 0, 2)).unwrap();
    assert!(
        h.contents
            .contains("plural(count: Int, singular: Text, plural: Text) -> Text"),
        "{}",
        h.contents
    );
    assert!(
        h.contents.contains("`singular` when `count` is 1"),
        "{}",
        h.contents
    );
    // Inside `if d != none`, `d` is narrowed to `Date`.
    let h = a.hover(FILE, at(&text, "d + 1", 0, 2)).unwrap();
    assert_eq!(h.contents, "```wsite\nDate\n```");
}

#[test]
fn the_outline_lists_declarations_with_their_members() {
    let a = analyse(SHOP);
    let symbols = a.document_symbols(FILE);
    let names: Vec<(&str, SymbolKind)> =
        symbols.iter().map(|s| (s.name.as_str(), s.kind)).collect();
    assert_eq!(
        names,
        [
            ("Shop", SymbolKind::Site),
            ("Status", SymbolKind::Enum),
            ("Product", SymbolKind::Table),
            ("seed Product", SymbolKind::Seed),
            ("session", SymbolKind::Session),
            ("Home", SymbolKind::Page),
            ("ProductPage", SymbolKind::Page),
            ("buy", SymbolKind::Marker),
            ("buy_lamp", SymbolKind::Task),
        ]
    );
    let product = &symbols[2];
    assert_eq!(product.children.len(), 4);
    assert_eq!(product.children[1].detail, "Money");
    assert_eq!(symbols[6].children[0].name, "buy");
}

/// Applies the edits of the only action offered at `offset`.
fn apply_fix(text: &str, offset: usize) -> (String, String) {
    let a = analyse(text);
    let actions = a.code_actions(FILE, offset, offset);
    assert_eq!(
        actions.len(),
        1,
        "{actions:?} {:?}",
        a.compilation.diagnostics
    );
    let mut out = text.to_string();
    let mut edits = actions[0].edits.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.start));
    for e in edits {
        out.replace_range(e.start..e.end, &e.text);
    }
    (actions[0].title.clone(), out)
}

fn codes(text: &str) -> Vec<&'static str> {
    compile_str("shop.wsite", text)
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

#[test]
fn a_quick_fix_adds_the_missing_permission() {
    let text = SHOP.replace("  writes   Product.stock\n", "");
    assert!(codes(&text).contains(&"E301"));
    let (title, fixed) = apply_fix(&text, at(&text, "set p.stock", 0, 6));
    assert_eq!(title, "Add `Product.stock` to `writes` of `buy`");
    assert!(
        fixed.contains("marker buy(p: Product)\n  writes   Product.stock\n"),
        "{fixed}"
    );
    assert!(!codes(&fixed).contains(&"E301"), "{:?}", codes(&fixed));
}

#[test]
fn a_quick_fix_extends_an_existing_clause() {
    let text = SHOP.replace("writes   Product.stock", "writes   Product.price");
    let (_, fixed) = apply_fix(&text, at(&text, "set p.stock", 0, 6));
    assert!(
        fixed.contains("writes   Product.price, Product.stock\n"),
        "{fixed}"
    );
}

#[test]
fn a_quick_fix_removes_an_unused_permission() {
    // `Product.price` is never read by `buy`: S107, removed with its line.
    let (title, fixed) = apply_fix(SHOP, at(SHOP, "Product.price\n", 0, 1));
    assert_eq!(title, "Remove `Product.price` from `reads` of `buy`");
    assert!(
        fixed.contains("marker buy(p: Product)\n  writes   Product.stock\n"),
        "{fixed}"
    );
    assert!(!codes(&fixed).contains(&"S107"), "{:?}", codes(&fixed));
}

#[test]
fn a_quick_fix_rewrites_a_foreign_operator() {
    let text = SHOP.replace(
        "requires p.stock > 0 ",
        "requires p.stock > 0 && p.stock < 99 ",
    );
    assert!(codes(&text).contains(&"E001"));
    let (title, fixed) = apply_fix(&text, at(&text, "&&", 0, 0));
    assert_eq!(title, "Write `and` instead");
    assert!(
        fixed.contains("requires p.stock > 0 and p.stock < 99 "),
        "{fixed}"
    );
    assert!(!codes(&fixed).contains(&"E001"), "{:?}", codes(&fixed));
}

#[test]
fn a_quick_fix_creates_a_missing_page() {
    let text = SHOP.replace("link \"Home\" -> Home", "link \"Reviews\" -> Reviews(p)");
    let (title, fixed) = apply_fix(&text, at(&text, "Reviews(p)", 0, 1));
    assert_eq!(title, "Create page `Reviews`");
    assert!(fixed.contains("page Reviews(p: Product) {"), "{fixed}");
    assert!(
        !codes(&fixed).iter().any(|c| c.starts_with('E')),
        "{:?}",
        codes(&fixed)
    );
}

#[test]
fn features_work_on_a_file_that_does_not_parse() {
    let text = SHOP.replace("heading \"Shop\"", "heading \"Shop\"\n  ??? a broken line");
    let a = analyse(&text);
    assert!(a.compilation.has_errors());
    assert!(a
        .definition(FILE, at(&text, "-> ProductPage", 0, 4))
        .is_some());
    assert!(!a.document_symbols(FILE).is_empty());
    // Any offset, in or out of range, answers without a panic.
    for offset in (0..text.len() + 10).step_by(7) {
        let _ = a.hover(FILE, offset);
        let _ = a.definition(FILE, offset);
        let _ = a.completions(FILE, &text, offset);
        let _ = a.code_actions(FILE, offset, offset + 3);
    }
}

#[test]
fn a_standard_library_item_is_shown_at_the_use_that_brings_it_in() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../stdlib/sites/search.wsite"
    ))
    .unwrap();
    let a = analyse(&text);
    let offset = at(&text, "start Search", 0, 7);
    let def = a.definition(FILE, offset).unwrap();
    assert_eq!(a.std_module(def), Some("std::search"));
    let shown = a.visible_span(FILE, def).unwrap();
    assert_eq!(shown.file, FILE);
    assert!(
        text[shown.range()].starts_with("use std::search"),
        "{shown:?}"
    );
    let h = a.hover(FILE, offset).unwrap();
    assert!(h.contents.contains("page Search"), "{}", h.contents);
    assert!(h.contents.contains("from `std::search`"), "{}", h.contents);
}

const GUARDED: &str = r#"site Shop {
  title "Shop"
  domain ecommerce
  start Home
}

table User { name: Text }
table Line { qty: Int }

seed User [ { name: "ada" } ]
seed Line [ { qty: 2 } ]

session {
  me: User? = none
}

page Home {
  link "Account" -> Account
  link "Lines" -> Lines(0)
}

page SignIn {
  button "Sign in" -> sign_in()
}

page Account guard session.me != none else SignIn {
  let total = sum(l.qty for l in Line)
  text "{total}"
  link "Home" -> Home
}

page Lines(start: Int) {
  for l in Line limit 5 offset start {
    text "{l.qty}"
  }
  link "Home" -> Home
}

marker sign_in() writes session.me {
  set session.me = User[1]
  go Account
}
"#;

#[test]
fn guards_page_lets_and_offsets_are_navigable() {
    let a = analyse(GUARDED);
    assert!(
        a.compilation.diagnostics.is_empty(),
        "{:?}",
        a.compilation.diagnostics
    );
    // From a guard's `else` page to its declaration.
    let def = a
        .definition(FILE, at(GUARDED, "else SignIn", 0, 5))
        .unwrap();
    assert_eq!(def.start as usize, at(GUARDED, "page SignIn", 0, 5));
    // From a page `let`'s use to its name; hover gives its type.
    let def = a.definition(FILE, at(GUARDED, "{total}", 0, 1)).unwrap();
    assert_eq!(def.start as usize, at(GUARDED, "let total", 0, 4));
    let h = a.hover(FILE, at(GUARDED, "{total}", 0, 1)).unwrap();
    assert!(h.contents.contains("let total: Int"), "{}", h.contents);
    // A parameter used in `offset`.
    let def = a
        .definition(FILE, at(GUARDED, "offset start", 0, 7))
        .unwrap();
    assert_eq!(def.start as usize, at(GUARDED, "Lines(start", 0, 6));
    // The outline lists the page `let` under its page.
    let symbols = a.document_symbols(FILE);
    let account = symbols.iter().find(|s| s.name == "Account").unwrap();
    let lets: Vec<_> = account
        .children
        .iter()
        .map(|s| (s.name.as_str(), s.kind))
        .collect();
    assert_eq!(lets, [("total", SymbolKind::Variable)]);
    // Completion offers the new keywords.
    let c = a.completions(FILE, GUARDED, at(GUARDED, "  text \"{total}\"", 0, 2));
    for word in ["guard", "offset", "let"] {
        assert!(
            c.iter()
                .any(|x| x.label == word && x.kind == CompletionKind::Keyword),
            "{word}"
        );
    }
    assert!(c
        .iter()
        .any(|x| x.label == "total" && x.kind == CompletionKind::Local));
    // After a guard's `else`: pages only; after an `if`'s, everything.
    let text = GUARDED.replace("else SignIn {", "else  {");
    let offset = at(&text, "else  {", 0, 5);
    let labels: Vec<String> = a
        .completions(FILE, &text, offset)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(labels, ["Account", "Home", "Lines", "SignIn"]);
    let text = GUARDED.replace("  text \"{total}\"", "  if total > 0 { } else ");
    let offset = at(&text, "} else ", 0, 7);
    let c = a.completions(FILE, &text, offset);
    assert!(c.iter().any(|x| x.kind == CompletionKind::Keyword));
}

#[test]
fn names_in_a_site_title_are_navigable() {
    let text = SHOP.replace("title \"Shop\"", "title \"Shop: {count(Product)} things\"");
    let a = analyse(&text);
    let def = a
        .definition(FILE, at(&text, "count(Product)", 0, 7))
        .unwrap();
    assert_eq!(def.start as usize, at(&text, "table Product", 0, 6));
    let h = a.hover(FILE, at(&text, "count(", 0, 1)).unwrap();
    assert!(h.contents.contains("Int"), "{}", h.contents);
}
