//! Partial results on small sites: what a defect elsewhere leaves visible,
//! and which findings it makes provisional.

use crate::diagnostics::{Code, Diagnostic};

/// A shop whose `Home` is reachable, with a marker, a task and an invariant;
/// `{extra}` is spliced in at the end and `{home}` into the start page.
fn shop(home: &str, extra: &str) -> String {
    format!(
        r#"site Shop {{ title "Shop" domain ecommerce start Home }}
table Product {{ name: Text  stock: Int  price: Money }}
seed Product [
  {{ name: "Pen", stock: 3, price: $2 }},
  {{ name: "Ink", stock: 5, price: $4 }},
]
invariant stock_never_negative: all p in Product: p.stock >= 0
page Home {{
  heading "Welcome"
  {home}
  for p in Product {{ link "{{p.name}}" -> Detail(p) }}
}}
page Detail(p: Product) {{
  text "{{p.name}}"
  button "Buy" -> buy(p)
  link "Home" -> Home
}}
marker buy(p: Product) reads Product.stock writes Product.stock requires p.stock > 0 {{
  set p.stock = p.stock - 1
}}
{extra}
"#
    )
}

const ORPHAN: &str = "page Orphan {\n  text \"Old\"\n  link \"Home\" -> Home\n}\n";
const NO_INSTANCE: &str = "task cheap for p in Product where p.price < $0 {\n  say \"Open {p.name}\"\n  goal page is Detail(p)\n}\n";
const TOO_SHORT: &str = "task buy_one {\n  say \"Buy a pen\"\n  goal exists p in Product: p.stock == 2\n  horizon 1\n}\n";

fn proved(text: &str) -> crate::Compilation {
    crate::compile_str_with(
        "shop.wsite",
        text,
        crate::Options {
            prove: Some(wsite_runtime::prove::Options {
                budget: 50_000,
                ..Default::default()
            }),
            only_task: None,
            skip_sweep: true,
        },
    )
}

fn find(c: &crate::Compilation, code: Code) -> Vec<&Diagnostic> {
    c.diagnostics.iter().filter(|d| d.code == code).collect()
}

#[test]
fn a_clean_shop_has_nothing_to_report() {
    let c = proved(&shop("", ""));
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
}

#[test]
fn an_unreachable_page_behind_a_broken_link_is_reported_as_provisional() {
    let c = proved(&shop("link \"Sale\" -> SalePage", ORPHAN));
    assert_eq!(find(&c, Code::E101).len(), 1);
    let s101 = find(&c, Code::S101);
    assert_eq!(s101.len(), 1, "{:?}", c.diagnostics);
    // The broken link is on a reachable page: it may be the missing edge.
    assert_eq!(s101[0].after, vec!["page Home".to_string()]);
}

#[test]
fn a_broken_link_on_an_unreachable_page_leaves_the_verdict_final() {
    let orphan = "page Orphan {\n  text \"Old\"\n  link \"Gone\" -> Gone\n}\n";
    let c = proved(&shop("", orphan));
    let s101 = find(&c, Code::S101);
    assert_eq!(s101.len(), 1, "{:?}", c.diagnostics);
    assert!(s101[0].after.is_empty(), "{:?}", s101[0].after);
}

#[test]
fn a_marker_without_button_is_found_next_to_a_broken_link() {
    let text = shop("link \"Sale\" -> SalePage", "").replace("button \"Buy\" -> buy(p)", "");
    let c = proved(&text);
    let s102 = find(&c, Code::S102);
    assert_eq!(s102.len(), 1, "{:?}", c.diagnostics);
    // A link cannot trigger a marker, so the broken link changes nothing.
    assert!(s102[0].after.is_empty(), "{:?}", s102[0].after);
}

#[test]
fn a_broken_button_makes_an_untriggered_marker_provisional() {
    let text = shop("button \"Sale\" -> sale_now", "").replace("button \"Buy\" -> buy(p)", "");
    let c = proved(&text);
    let s102 = find(&c, Code::S102);
    assert_eq!(s102.len(), 1, "{:?}", c.diagnostics);
    assert_eq!(s102[0].after, vec!["page Home".to_string()]);
}

#[test]
fn tasks_are_proven_over_a_stubbed_page() {
    let text = shop(
        "link \"Sale\" -> SalePage",
        &format!("{NO_INSTANCE}{TOO_SHORT}"),
    );
    let c = proved(&text);
    // No instance: the seed data decides it alone, so it is final.
    let f403 = find(&c, Code::F403);
    assert_eq!(f403.len(), 1, "{:?}", c.diagnostics);
    assert!(f403[0].after.is_empty(), "{:?}", f403[0].after);
    // The horizon: the missing link could shorten the way, so it waits.
    let f401 = find(&c, Code::F401);
    assert_eq!(f401.len(), 1, "{:?}", c.diagnostics);
    assert!(f401[0].after.contains(&"page Home".to_string()));
    // Provisional verdicts are no proofs, and a program with errors has no IR.
    assert!(c.proofs.is_empty());
    assert!(c.program.is_none());
}

#[test]
fn an_invariant_the_seed_breaks_is_left_out_of_the_runs() {
    let text = shop("", TOO_SHORT).replace("stock: 5", "stock: -5");
    let c = proved(&text);
    assert_eq!(find(&c, Code::C301).len(), 1, "{:?}", c.diagnostics);
    let f401 = find(&c, Code::F401);
    assert_eq!(f401.len(), 1, "{:?}", c.diagnostics);
    let invariant = "invariant stock_never_negative".to_string();
    assert!(f401[0].after.contains(&invariant), "{:?}", f401[0].after);
}

#[test]
fn a_negative_price_stands_in_as_its_amount() {
    let text = shop("", NO_INSTANCE).replace("price: $4", "price: -$4");
    let c = proved(&text);
    assert_eq!(find(&c, Code::M201).len(), 1, "{:?}", c.diagnostics);
    // `-$4` reads as `$4`, so no row is below zero: the template has no
    // instance once the price is fixed, which the F403 says, provisionally.
    let f403 = find(&c, Code::F403);
    assert_eq!(f403.len(), 1, "{:?}", c.diagnostics);
    assert!(f403[0].after.contains(&"seed Product".to_string()));
}

#[test]
fn a_broken_table_leaves_no_partial_program() {
    let text = shop("", TOO_SHORT).replace("price: Money }", "price: Monny }");
    let c = proved(&text);
    assert!(!find(&c, Code::E101).is_empty(), "{:?}", c.diagnostics);
    assert!(find(&c, Code::F401).is_empty(), "{:?}", c.diagnostics);
}

#[test]
fn the_json_report_links_a_provisional_finding_to_its_cause() {
    // A finding that reads a stubbed seed depends on the seed row's error.
    let text = shop("", NO_INSTANCE).replace("price: $4", "price: -$4");
    let c = proved(&text);
    let report = crate::diagnostics::json::report("shop", &c.sources, &c.files, &c.diagnostics);
    let ids = |code: &str| -> Vec<serde_json::Value> {
        let defects = report["defects"].as_array().cloned().unwrap_or_default();
        defects
            .iter()
            .filter(|d| d["code"] == code)
            .map(|d| d["id"].clone())
            .collect()
    };
    let f403 = report["defects"]
        .as_array()
        .and_then(|ds| ds.iter().find(|d| d["code"] == "F403"))
        .map(|d| d["depends_on"].clone());
    assert_eq!(
        f403,
        Some(serde_json::Value::Array(ids("M201"))),
        "{report}"
    );

    let c = proved(&shop("link \"Sale\" -> SalePage", ORPHAN));
    let report = crate::diagnostics::json::report("shop", &c.sources, &c.files, &c.diagnostics);
    let defects = report["defects"].as_array().cloned().unwrap_or_default();
    let id_of = |code: &str| {
        defects
            .iter()
            .find(|d| d["code"] == code)
            .map(|d| d["id"].clone())
    };
    let s101 = defects.iter().find(|d| d["code"] == "S101");
    let deps = s101.map(|d| d["depends_on"].clone());
    assert_eq!(deps, Some(serde_json::json!([id_of("E101")])), "{report}");
}

#[test]
fn an_impossible_seed_date_stands_in_as_the_month_s_last_day() {
    let text = shop("", NO_INSTANCE)
        .replace("price: Money }", "price: Money  since: Date }")
        .replace("price: $2 }", "price: $2, since: @2026-04-31 }")
        .replace("price: $4 }", "price: $4, since: @2026-01-02 }");
    let c = proved(&text);
    assert_eq!(find(&c, Code::M202).len(), 1, "{:?}", c.diagnostics);
    // The task is still proven, and its F403 reads the stubbed seed.
    let f403 = find(&c, Code::F403);
    assert_eq!(f403.len(), 1, "{:?}", c.diagnostics);
    assert!(f403[0].after.contains(&"seed Product".to_string()));
    let leap = super::stub::nearest_date("@2028-02-30").map(|d| (d.year, d.month, d.day));
    assert_eq!(leap, Some((2028, 2, 29)));
}
