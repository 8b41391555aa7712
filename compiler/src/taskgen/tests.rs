//! Generated tasks on a small site with two routes to every product: proven
//! again through the full pipeline, deterministic, one skeleton each,
//! answers that pass the answer rule, key nodes that are necessary.

use super::*;
use wsite_runtime::env::Env;
use wsite_runtime::prove::{verdict_avoiding, Avoid};
use wsite_runtime::tasks::{Kind, Request};

const SITE: &str = r#"
site Outfit {
  title "Outfit"
  domain ecommerce
  start Home
  today @2026-11-29
}

enum Kind { tent, stove, lamp }

table Product {
  name: Text
  kind: Kind
  price: Money
  stock: Int
}

table Order max 8 {
  product: Product
  qty: Int
}

seed Product [
  { id: 1, name: "Ridge Tent", kind: tent, price: $240.00, stock: 3 },
  { name: "Pocket Stove", kind: stove, price: $45.50, stock: 7 },
  { name: "Camp Lamp", kind: lamp, price: $19.99, stock: 0 },
  { name: "Dome Tent", kind: tent, price: $180.00, stock: 2 },
]

page Home {
  heading "Outfit"
  link "Catalog" -> Catalog
  link "Deals" -> Deals
  link "Orders" -> Orders
}

page Catalog {
  heading "Catalog"
  for p in Product {
    link "{p.name}" -> ProductPage(p)
  }
  link "Home" -> Home
}

page Deals {
  heading "Deals"
  for p in Product where p.price < $200.00 {
    link "{p.name}" -> ProductPage(p)
  }
  link "Home" -> Home
}

page ProductPage(p: Product) {
  heading "{p.name}"
  text "Price: {p.price}"
  text "{p.stock}"
  text "{p.kind}"
  button #buy "Buy one" -> buy(p) disabled when p.stock == 0
  link "Home" -> Home
}

page Orders {
  heading "Orders"
  for o in Order {
    text "{o.product.name} x {o.qty}"
  }
  link "Home" -> Home
}

marker buy(p: Product) reads Product.stock writes Order, Product.stock
  requires p.stock > 0 else "Sold out"
{
  insert Order { product: p, qty: 1 }
  set p.stock = p.stock - 1
  go Orders
}

task buy_stove {
  say "Buy a Pocket Stove."
  goal exists o in Order: o.product == Product[2]
}
"#;

fn roots() -> Vec<Source> {
    vec![Source {
        name: "outfit.wsite".into(),
        text: SITE.into(),
    }]
}

fn no_files(_: &str, path: &str) -> Result<Source, String> {
    Err(format!("no file `{path}` here"))
}

fn request(seed: u64) -> Request {
    Request {
        seed,
        ..Request::default()
    }
}

fn generated(count: usize, request: &Request) -> Generated {
    generate(&roots(), &mut no_files, "outfit.wsite", count, request).expect("generates")
}

/// The site with `g`'s tasks appended, lowered.
fn site_with(g: &Generated) -> ir::Program {
    compile_with(
        with_generated(&roots(), &[g.wsite()]),
        &mut no_files,
        Options::default(),
    )
    .program
    .expect("lowers")
}

#[test]
fn generated_tasks_append_check_clean_and_are_all_proven_and_executable() {
    let g = generated(8, &request(1));
    assert!(g.tasks.len() >= 6, "{:?}", g.stats);
    assert!(g.tasks.iter().any(|t| t.kind == "operation"));
    assert!(g.tasks.iter().any(|t| t.kind == "retrieval"));
    let v = validate(&roots(), &mut no_files, &g.wsite());
    let n = g.tasks.len();
    assert_eq!(
        v,
        Validation {
            declared: n,
            diagnostics: 0,
            feasible: n,
            executable: n
        }
    );
    // Appended to the site's own text, the declarations build as well.
    let appended = format!("{SITE}\n{}", g.wsite());
    let c = crate::compile_str_with(
        "outfit.wsite",
        &appended,
        crate::Options {
            prove: Some(Default::default()),
            ..Default::default()
        },
    );
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    assert!(c.proofs.iter().all(|p| p.verdict == Verdict::Feasible));
    assert_eq!(c.proofs.len(), n + 1);
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_other_tasks() {
    let json = |g: &Generated| serde_json::to_string(&g.tasks).unwrap();
    let a = generated(5, &request(7));
    let b = generated(5, &request(7));
    assert_eq!(json(&a), json(&b));
    let c = generated(5, &request(8));
    assert_ne!(json(&a), json(&c));
}

#[test]
fn no_two_tasks_share_a_skeleton_until_the_skeletons_run_out() {
    let g = generated(10, &request(3));
    let mut seen: Vec<&str> = g.tasks.iter().map(|t| t.skeleton.as_str()).collect();
    seen.sort_unstable();
    let before = seen.len();
    seen.dedup();
    assert_eq!(before, seen.len(), "{seen:?}");
    assert_eq!(g.stats.skeletons_reused, 0);
}

#[test]
fn every_expected_answer_passes_the_answer_rule() {
    let only = Request {
        kind: Some(Kind::Retrieval),
        ..request(2)
    };
    let g = generated(6, &only);
    assert!(!g.tasks.is_empty());
    let program = site_with(&g);
    for t in &g.tasks {
        assert_eq!(t.kind, "retrieval");
        assert!(!t.expected_answers.is_empty(), "{}", t.task_id);
        let instance = instance_named(&program, &t.task_id).expect("declared");
        let env = Env::new(&program, &instance, Default::default()).expect("env");
        for a in &t.expected_answers {
            assert!(env.expected_answer().matches(a), "{}: {a}", t.task_id);
        }
        // And a wrong one does not.
        assert!(!env.expected_answer().matches("Zanzibar 99999"));
    }
}

#[test]
fn key_nodes_are_necessary_and_on_the_witness() {
    let only = Request {
        kind: Some(Kind::Operation),
        ..request(0)
    };
    let g = generated(3, &only);
    assert!(!g.tasks.is_empty());
    let program = site_with(&g);
    for t in &g.tasks {
        let instance = instance_named(&program, &t.task_id).expect("declared");
        // Buying needs the product page and its button; either list leads
        // there, so neither `Catalog` nor `Deals` may be a key node.
        assert!(
            t.key_nodes.contains(&"buy".to_string()),
            "{:?}",
            t.key_nodes
        );
        assert!(t.key_nodes.iter().any(|k| k.starts_with("ProductPage(")));
        assert!(!t.key_nodes.iter().any(|k| k == "Catalog" || k == "Deals"));
        for k in &t.key_nodes {
            let avoid = match t
                .witness
                .iter()
                .filter_map(|s| s.key.clone())
                .find(|key| wsite_runtime::tasks::element_node(key) == *k)
            {
                Some(key) => Avoid {
                    pages: Vec::new(),
                    keys: vec![key],
                },
                None => Avoid {
                    pages: vec![page_of(&program, k)],
                    keys: Vec::new(),
                },
            };
            let verdict = verdict_avoiding(&program, &instance, prove::Options::default(), &avoid);
            assert_eq!(verdict, Ok(Verdict::Infeasible), "{k}");
        }
    }
}

/// `ProductPage(2)` → the page and its row argument (this site's pages take
/// rows or nothing).
fn page_of(program: &ir::Program, node: &str) -> (ir::PageId, Vec<ir::Value>) {
    let (name, args) = node.split_once('(').unwrap_or((node, ""));
    let page = program.pages.iter().position(|p| p.name == name);
    let page = page.unwrap_or_else(|| panic!("{node} is neither an element nor a page"));
    let args = args
        .trim_end_matches(')')
        .split(", ")
        .filter(|a| !a.is_empty())
        .map(|a| ir::Value::Row(a.parse().unwrap()))
        .collect();
    (page as ir::PageId, args)
}

#[test]
fn bad_requests_are_clear_errors() {
    let none = generate(&roots(), &mut no_files, "x", 0, &request(0));
    assert_eq!(none.err(), Some(GenerateError::NothingRequested));
    let broken = vec![Source {
        name: "broken.wsite".into(),
        text: "site S { title \"x\" domain other start Nowhere }".into(),
    }];
    let err = generate(&broken, &mut no_files, "x", 3, &request(0)).err();
    assert!(
        matches!(err, Some(GenerateError::SiteHasErrors(_))),
        "{err:?}"
    );
    assert!(err.unwrap().to_string().contains("wsitec check"));
}

#[test]
fn diversity_is_one_for_disjoint_and_zero_for_equal_instructions() {
    assert_eq!(
        figures::diversity(&["buy the tent", "what is my balance"]),
        1.0
    );
    assert_eq!(figures::diversity(&["buy the tent", "buy the tent"]), 0.0);
    assert_eq!(figures::diversity(&["alone"]), 0.0);
}
