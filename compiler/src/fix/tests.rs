//! Fixing whole programs: rounds, overlapping fixes, idempotence and files
//! that do not parse.

use super::*;
use crate::syntax::ast::FileId;

const SHOP: &str = r#"site Shop { title "Shop" domain ecommerce start Home }
table Product { name: Text  stock: Int }
seed Product [ { name: "Pen", stock: 3 } ]
page Home {
  heading "Shop"
  for p in Product { link "{p.name}" -> Detail(p) }
}
page Detail(p: Product) {
  text "{p.name}"
  button "Buy" -> buy(p)
  link "Home" -> Home
}
marker buy(p: Product)
  reads    Product.stock
  requires p.stock > 0
{
  set p.stock = p.stock - 1
}
"#;

/// [`SHOP`] with its missing permission: it checks clean.
fn clean_shop() -> String {
    SHOP.replace(
        "  reads    Product.stock\n",
        "  reads    Product.stock\n  writes   Product.stock\n",
    )
}

fn fix(text: &str) -> Outcome {
    let roots = vec![Source {
        name: "shop.wsite".into(),
        text: text.into(),
    }];
    let mut none = |_: &str, path: &str| Err(format!("cannot load `{path}`"));
    fix_program(roots, &mut none, &Options::default(), DEFAULT_ROUNDS)
}

fn codes(c: &Compilation) -> Vec<&'static str> {
    c.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn fixed_text(o: &Outcome) -> String {
    o.changed
        .first()
        .map(|c| c.after.clone())
        .unwrap_or_default()
}

#[test]
fn a_missing_permission_is_added_and_the_program_checks_clean() {
    let o = fix(SHOP);
    assert!(
        o.first.iter().any(|d| d.code == Code::E301),
        "{:?}",
        o.first
    );
    assert_eq!(o.offered(), 1);
    assert_eq!(o.applied.len(), 1, "{:?}", o.applied);
    assert_eq!(o.applied[0].code, Code::E301);
    assert_eq!(o.applied[0].line, 17);
    assert!(codes(&o.last).is_empty(), "{:?}", codes(&o.last));
    assert!(fixed_text(&o).contains("marker buy(p: Product)\n  writes   Product.stock\n"));
}

#[test]
fn fixing_twice_changes_nothing_the_second_time() {
    let once = fixed_text(&fix(SHOP));
    let twice = fix(&once);
    assert!(twice.applied.is_empty(), "{:?}", twice.applied);
    assert!(twice.changed.is_empty());
    assert_eq!(twice.rounds, 0);
}

#[test]
fn overlapping_fixes_wait_for_the_next_round() {
    // Two permissions for a marker with no `writes`: both would open the
    // clause at the same place, so the second extends it in round two.
    let text = SHOP.replace(
        "  set p.stock = p.stock - 1\n",
        "  set p.stock = p.stock - 1\n  set p.name = \"Sold\"\n",
    );
    let o = fix(&text);
    let rounds: Vec<(usize, &str)> = o
        .applied
        .iter()
        .map(|a| (a.round, a.title.as_str()))
        .collect();
    assert_eq!(
        rounds,
        vec![
            (1, "Add `Product.name` to `writes` of `buy`"),
            (2, "Add `Product.stock` to `writes` of `buy`")
        ],
        "{:?}",
        o.applied
    );
    assert!(fixed_text(&o).contains("writes   Product.name, Product.stock\n"));
    assert!(!o.last.has_errors(), "{:?}", codes(&o.last));
}

#[test]
fn pages_appended_at_the_end_go_in_one_round() {
    let text = clean_shop()
        .replace(
            "link \"Home\" -> Home",
            "link \"Home\" -> Home\n  link \"Help\" -> Help",
        )
        .replace(
            "heading \"Shop\"",
            "heading \"Shop\"\n  link \"About\" -> About",
        );
    let o = fix(&text);
    let pages: Vec<(usize, &str)> = o
        .applied
        .iter()
        .map(|a| (a.round, a.title.as_str()))
        .collect();
    assert_eq!(
        pages,
        vec![(1, "Create page `About`"), (1, "Create page `Help`")],
        "{:?}",
        o.applied
    );
    let after = fixed_text(&o);
    let (about, help) = (after.find("page About {"), after.find("page Help {"));
    assert!(about.is_some() && about < help, "{after}");
    assert!(!o.last.has_errors(), "{:?}", codes(&o.last));
}

#[test]
fn two_links_to_one_missing_page_create_it_once() {
    let text = clean_shop()
        .replace(
            "link \"Home\" -> Home",
            "link \"Home\" -> Home\n  link \"Help\" -> Help",
        )
        .replace(
            "heading \"Shop\"",
            "heading \"Shop\"\n  link \"Help\" -> Help",
        );
    let o = fix(&text);
    let after = fixed_text(&o);
    assert_eq!(after.matches("page Help {").count(), 1, "{after}");
    assert_eq!(o.rounds, 1, "{:?}", o.applied);
}

#[test]
fn a_file_with_a_syntax_error_gets_no_new_declarations() {
    let text = SHOP.replace(
        "heading \"Shop\"",
        "heading \"Shop\"\n  link \"About\" -> About\n  ??? a broken line",
    );
    let o = fix(&text);
    assert!(
        o.first.iter().any(|d| d.code == Code::E001),
        "{:?}",
        o.first
    );
    // The permission is added inside its marker; the missing page, which
    // the skipped line might have declared, is not created.
    let fixed: Vec<Code> = o.applied.iter().map(|a| a.code).collect();
    assert_eq!(fixed, vec![Code::E301], "{:?}", o.applied);
    assert!(!fixed_text(&o).contains("page About"));
    assert!(o.last.has_errors());
}

#[test]
fn overlapping_candidates_are_chosen_in_position_order() {
    let edit = |start, end, text: &str| Edit {
        file: FileId(0),
        start,
        end,
        text: text.into(),
    };
    let cand = |diagnostic, edits| Candidate {
        diagnostic,
        title: format!("fix {diagnostic}"),
        edits,
    };
    let chosen = choose(
        vec![
            cand(0, vec![edit(10, 20, "x")]),
            cand(1, vec![edit(2, 12, "y")]),
            cand(2, vec![edit(20, 20, "z")]),
            cand(3, vec![edit(2, 2, "w")]),
            cand(5, vec![edit(24, 24, "Q")]),
            cand(4, vec![edit(24, 24, "P")]),
        ],
        &[24],
    );
    let ids: Vec<usize> = chosen.iter().map(|c| c.diagnostic).collect();
    // 3 inserts at 2, where 1 would replace from: 1 waits. 0 comes next;
    // 2 inserts right after 0's range, which is no overlap; 4 and 5 append
    // at the end, which never overlaps, in title order.
    assert_eq!(ids, vec![3, 0, 2, 4, 5]);
    let edits: Vec<&Edit> = chosen.iter().flat_map(|c| &c.edits).collect();
    assert_eq!(
        apply_edits("0123456789abcdefghijKLMN", &edits),
        "01w23456789xzKLMNPQ"
    );
}

#[test]
fn a_diff_shows_the_change_with_context() {
    let diff = unified_diff("shop.wsite", "a\nb\nc\n", "a\nB\nc\n");
    assert!(
        diff.starts_with("--- a/shop.wsite\n+++ b/shop.wsite\n"),
        "{diff}"
    );
    assert!(diff.contains("-b\n+B\n"), "{diff}");
    assert!(unified_diff("x", "same", "same").is_empty());
}

#[test]
fn a_created_page_links_back_to_the_start_and_is_no_dead_end() {
    let text = clean_shop().replace(
        "link \"Home\" -> Home",
        "link \"Home\" -> Home\n  link \"Help\" -> Help",
    );
    let o = fix(&text);
    let after = fixed_text(&o);
    assert!(
        after.contains(
            "page Help {\n  title \"Help\"\n  heading \"Help\"\n  link \"Home\" -> Home\n}"
        ),
        "{after}"
    );
    assert!(codes(&o.last).is_empty(), "{:?}", codes(&o.last));
}

#[test]
fn a_negative_seed_amount_loses_its_sign() {
    let text = clean_shop()
        .replace("stock: Int }", "stock: Int  price: Money }")
        .replace("stock: 3 }", "stock: 3, price: -$4.50 }");
    let o = fix(&text);
    assert!(o.first.iter().any(|d| d.code == Code::M201));
    assert!(
        fixed_text(&o).contains("price: $4.50 }"),
        "{}",
        fixed_text(&o)
    );
    assert!(codes(&o.last).is_empty(), "{:?}", codes(&o.last));
}

#[test]
fn an_orphan_page_gets_a_link_from_the_start_page() {
    let text = format!(
        "{}page Contact {{\n  text \"Write to us\"\n  link \"Home\" -> Home\n}}\n",
        clean_shop()
    );
    let o = fix(&text);
    assert!(o.first.iter().any(|d| d.code == Code::S101));
    let after = fixed_text(&o);
    assert!(
        after.contains(
            "for p in Product { link \"{p.name}\" -> Detail(p) }\n  link \"Contact\" -> Contact\n}"
        ),
        "{after}"
    );
    assert!(codes(&o.last).is_empty(), "{:?}", codes(&o.last));
}
