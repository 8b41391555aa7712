//! The navigation graph, knowledge spec and site map on the example sites.
//! The graph's facts are promises about real episodes, so random play in the
//! environment (§5) checks them: every page change is a graph edge, no
//! episode shows a page the graph calls unreachable, and every page shown has
//! all its dominators shown before it. The flows are checked against the
//! ecommerce example's checkout as read in its source, and both drawings for
//! determinism and well-formedness.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::collections::BTreeSet;
use wsite_runtime::env::{self, Env, RewardConfig};
use wsite_runtime::graph::draw::{dot::dot, svg::svg, Map};
use wsite_runtime::graph::spec::{knowledge_spec, KnowledgeSpec};
use wsite_runtime::ir::Program;
use wsite_tests::Lcg;

fn trailhead() -> (Program, KnowledgeSpec) {
    let program = wsite_tests::example_programs()
        .into_iter()
        .find(|(n, _)| n.ends_with("trailhead.wsite"))
        .expect("the ecommerce example")
        .1;
    let spec = knowledge_spec(&program);
    (program, spec)
}

#[test]
fn the_shop_checkout_flow_is_browse_cart_checkout_confirm() {
    let (_, spec) = trailhead();
    let flow = |m: &str| {
        spec.flows
            .iter()
            .find(|f| f.marker == m)
            .unwrap_or_else(|| panic!("no flow for {m}"))
    };
    // Home links to Cart (#cart_link), Cart's #checkout button leads to
    // Checkout, whose #place_order triggers place_order, which goes to
    // OrderConfirmation(o).
    let order = flow("place_order");
    assert_eq!(order.path, ["Home", "Cart", "Checkout"]);
    assert_eq!(order.trigger.element, "#place_order");
    assert_eq!(order.then, ["OrderConfirmation"]);
    let add = flow("add_to_cart");
    assert_eq!(add.path, ["Home", "ProductPage"]);
    assert_eq!(add.then, ["Cart"]);
    // cancel_order has no `go`: the order's page re-renders.
    let cancel = flow("cancel_order");
    assert_eq!(cancel.path, ["Home", "Orders", "OrderDetail"]);
    assert_eq!(cancel.then, ["OrderDetail"]);
    // Only Checkout leads to OrderConfirmation, only Cart to Checkout.
    let confirm = spec
        .pages
        .iter()
        .find(|p| p.name == "OrderConfirmation")
        .unwrap();
    assert_eq!(
        confirm.dominators,
        ["Home", "Cart", "Checkout", "OrderConfirmation"]
    );
    let checkout_edge = spec
        .graph
        .edges
        .iter()
        .find(|e| e.edge.element == "#checkout")
        .expect("the checkout button's edge");
    assert_eq!(
        (checkout_edge.from.as_str(), checkout_edge.to.as_str()),
        ("Cart", "Checkout")
    );
    assert!(checkout_edge.edge.disabled_when.is_some());
}

#[test]
fn the_spec_describes_pages_forms_and_markers() {
    let (_, spec) = trailhead();
    let product = spec.pages.iter().find(|p| p.name == "ProductPage").unwrap();
    assert_eq!(product.route, "/product/{p.id}");
    assert_eq!(product.params.len(), 1);
    assert!(product
        .semantics
        .forms
        .iter()
        .any(|f| f.ty == "Int" && f.kind == "input"));
    let add = product
        .semantics
        .actions
        .iter()
        .find(|a| a.element == "#add_to_cart")
        .unwrap();
    assert_eq!(add.disabled_when.as_deref(), Some("p.stock == 0"));
    assert!(product
        .semantics
        .loops
        .iter()
        .any(|l| l.over == "Review" && l.filter.as_deref() == Some("r.product == p")));
    assert!(product
        .semantics
        .shows
        .iter()
        .any(|s| s.fields.contains(&"Product.price".to_string())));
    let place = spec
        .markers
        .iter()
        .find(|m| m.name == "place_order")
        .unwrap();
    assert_eq!(place.goes_to, ["OrderConfirmation"]);
    assert!(place.writes.iter().any(|w| w == "Order"));
}

/// Plays random candidate actions from the site's start page, checking each
/// page change against the example's knowledge spec; the problems, and how
/// many distinct pages the episodes showed.
fn check_episodes(program: &Program, spec: &KnowledgeSpec, seed: u64) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut ever = BTreeSet::new();
    let Some(inst) = env::instances(program)
        .into_iter()
        .find(|i| program.tasks.get(i.task).is_some_and(|t| t.start.is_none()))
    else {
        return (problems, 0);
    };
    let page_name = |id: u32| program.pages[id as usize].name.clone();
    let edges: BTreeSet<(String, String)> = spec
        .graph
        .edges
        .iter()
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    let mut env = Env::new(program, &inst, RewardConfig::default()).unwrap();
    let mut rng = Lcg(seed);
    let mut shown = BTreeSet::new();
    shown.insert(page_name(env.navigation().page));
    for _ in 0..3000 {
        if env.done() {
            env.reset().unwrap();
            shown.clear();
            shown.insert(page_name(env.navigation().page));
        }
        let from = page_name(env.navigation().page);
        let actions = env.actions().to_vec();
        let Some(action) = actions.get(rng.next(actions.len())) else {
            break;
        };
        if env.step(action).is_err() {
            continue;
        }
        let to = page_name(env.navigation().page);
        let page = spec.pages.iter().find(|p| p.name == to).unwrap();
        if from != to && !edges.contains(&(from.clone(), to.clone())) {
            problems.push(format!("{from} → {to} is no graph edge"));
        }
        if page.depth.is_none() {
            problems.push(format!("{to} was shown but is called unreachable"));
        }
        shown.insert(to.clone());
        ever.insert(to.clone());
        for d in &page.dominators {
            if !shown.contains(d) {
                problems.push(format!("{to} shown before its dominator {d}"));
            }
        }
    }
    (problems, ever.len())
}

#[test]
fn random_episodes_keep_every_graph_promise() {
    let mut problems = Vec::new();
    for (name, program) in wsite_tests::example_programs() {
        let spec = knowledge_spec(&program);
        let (found, pages) = check_episodes(&program, &spec, 7);
        // The check means something only if play moves around the site.
        assert!(pages >= 3, "{name}: random play showed only {pages} pages");
        for p in found {
            problems.push(format!("{name}: {p}"));
        }
    }
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_flow_walks_graph_edges_to_its_trigger() {
    for (name, program) in wsite_tests::example_programs() {
        let spec = knowledge_spec(&program);
        for flow in &spec.flows {
            assert!(
                spec.graph.starts.contains(&flow.path[0]),
                "{name}: {flow:?}"
            );
            assert_eq!(
                flow.path.last(),
                Some(&flow.trigger.page),
                "{name}: {flow:?}"
            );
            for pair in flow.path.windows(2) {
                assert!(
                    spec.graph
                        .edges
                        .iter()
                        .any(|e| e.from == pair[0] && e.to == pair[1]),
                    "{name}: {pair:?} is no edge"
                );
            }
            let page = spec
                .pages
                .iter()
                .find(|p| p.name == flow.trigger.page)
                .unwrap();
            assert!(page
                .semantics
                .actions
                .iter()
                .any(|a| a.element == flow.trigger.element
                    && a.marker
                        .as_deref()
                        .is_some_and(|m| m.starts_with(&format!("{}(", flow.marker)))));
        }
    }
}

/// Whether `xml` nests its tags properly (a tiny check: no DTD, no CDATA).
fn balanced(xml: &str) -> Result<usize, String> {
    let mut open: Vec<String> = Vec::new();
    let mut count = 0;
    let mut rest = xml;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').ok_or("unclosed tag")? + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.contains('<') {
            return Err(format!("`<` inside tag {tag}"));
        }
        if let Some(name) = tag.strip_prefix('/') {
            if open.pop().as_deref() != Some(name.trim()) {
                return Err(format!("unexpected </{name}>"));
            }
        } else if !tag.ends_with('/') {
            open.push(tag.split_whitespace().next().unwrap_or("").to_string());
        }
        count += 1;
    }
    if !open.is_empty() {
        return Err(format!("unclosed {open:?}"));
    }
    if rest.contains('>') || xml.contains("& ") {
        return Err("stray `>` or unescaped `&`".into());
    }
    Ok(count)
}

#[test]
fn drawings_are_deterministic_and_well_formed() {
    for (name, program) in wsite_tests::example_programs() {
        let spec = knowledge_spec(&program);
        let again = knowledge_spec(&program);
        assert_eq!(
            serde_json::to_string(&spec).unwrap(),
            serde_json::to_string(&again).unwrap()
        );
        let (d1, d2) = (dot(&Map::new(&spec)), dot(&Map::new(&again)));
        assert_eq!(d1, d2, "{name}: DOT differs between runs");
        assert!(d1.starts_with("digraph ") && d1.ends_with("}\n"));
        assert_eq!(d1.matches('{').count(), d1.matches('}').count());
        for (i, _) in spec.pages.iter().enumerate() {
            assert!(
                d1.contains(&format!("  p{i} [label=")),
                "{name}: page {i} missing"
            );
        }
        let (s1, s2) = (svg(&Map::new(&spec)), svg(&Map::new(&again)));
        assert_eq!(s1, s2, "{name}: SVG differs between runs");
        let tags = balanced(&s1).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(tags > spec.pages.len() * 3, "{name}: only {tags} tags");
        assert_eq!(s1.matches("<rect ").count(), spec.pages.len());
    }
}

#[test]
fn the_svg_escapes_text() {
    assert_eq!(
        wsite_runtime::graph::draw::svg::escape("a<b & \"c\">"),
        "a&lt;b &amp; &quot;c&quot;&gt;"
    );
}

/// A site with a dead-end region (two pages linking only to each other), a
/// guarded page and a marker, and a title that needs escaping.
const MAZE: &str = r#"site Maze { title "Tools & <Co>" domain other start Home }
table Item { name: Text  stock: Int }
seed Item [ { name: "Pen", stock: 3 } ]
page Home {
  heading "Shop"
  link "Vault" -> Vault
  link "Maze" -> MazeA
  for i in Item { button "Buy {i.name}" -> buy(i) disabled when i.stock == 0 }
}
page Vault guard count(Item) > 5 else Home {
  text "Vault"
  link "Home" -> Home
}
page MazeA { text "A" link "B" -> MazeB }
page MazeB { text "B" link "A" -> MazeA }
page Done { text "Thanks" link "Home" -> Home }
marker buy(i: Item) reads Item.stock writes Item.stock requires i.stock > 0 {
  set i.stock = i.stock - 1
  go Done
}
task buy_pen {
  say "Buy a pen."
  goal Item[1].stock == 2
}
"#;

#[test]
fn regions_guards_and_markers_are_drawn() {
    let compiled = wsitec::compile_str("maze.wsite", MAZE);
    assert!(
        !compiled.has_errors(),
        "the maze site compiles: {:?}",
        compiled.diagnostics.first()
    );
    let program = compiled.program.clone().expect("a program without errors");
    let spec = knowledge_spec(&program);
    assert_eq!(spec.graph.dead_end_regions, [["MazeA", "MazeB"]]);
    let guard = spec
        .graph
        .edges
        .iter()
        .find(|e| e.edge.guard.is_some())
        .expect("the Vault guard's redirect edge");
    assert_eq!((guard.from.as_str(), guard.to.as_str()), ("Home", "Home"));
    let redirect = guard.edge.guard.as_ref().unwrap();
    assert_eq!(
        (redirect.page.as_str(), redirect.holds.as_str()),
        ("Vault", "count(Item) > 5")
    );
    let flow = spec.flows.iter().find(|f| f.marker == "buy").unwrap();
    assert_eq!(flow.path, ["Home"]);
    assert_eq!(flow.then, ["Done"]);
    let dot = dot(&Map::new(&spec));
    assert!(dot.contains("subgraph cluster_dead_end_0"), "{dot}");
    assert!(
        dot.contains("style=dashed, label=\"buy\\ndisabled when i.stock == 0\""),
        "{dot}"
    );
    assert!(
        dot.contains("style=dotted, label=\"unless count(Item) > 5 (Vault)\""),
        "{dot}"
    );
    let svg = svg(&Map::new(&spec));
    assert!(svg.contains("Tools &amp; &lt;Co&gt;"));
    assert!(balanced(&svg).is_ok());
    assert_eq!(
        svg.matches("fill=\"#f5b7b1\"").count(),
        2,
        "both maze pages filled"
    );
}

/// The compiler's lints build the graph from the AST, the spec from the IR:
/// on every fixture that compiles, they agree on what S101 and S103 report.
#[test]
fn ast_and_ir_graphs_agree_on_the_fixtures() {
    use wsitec::diagnostics::Code;
    let mut checked = 0;
    for path in wsite_tests::fixtures() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let compiled = wsitec::compile_str(&path.display().to_string(), &text);
        let Some(program) = compiled.program.clone() else {
            continue;
        };
        let spec = knowledge_spec(&program);
        let pages = |code: Code| -> BTreeSet<String> {
            compiled
                .diagnostics
                .iter()
                .filter(|d| d.code == code)
                .filter_map(|d| {
                    d.object
                        .as_deref()?
                        .strip_prefix("page ")
                        .map(str::to_string)
                })
                .collect()
        };
        let unreachable: BTreeSet<String> = spec.graph.unreachable.iter().cloned().collect();
        assert_eq!(pages(Code::S101), unreachable, "{}", path.display());
        // S103 names a page no edge leaves: a dead-end region of one, or
        // the start page (which no region holds).
        for page in pages(Code::S103) {
            let alone = spec
                .graph
                .dead_end_regions
                .iter()
                .any(|r| r == std::slice::from_ref(&page));
            assert!(
                alone || spec.graph.starts.contains(&page),
                "{}: S103 page {page} is no region of one",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked > 20, "only {checked} fixtures compiled");
}
