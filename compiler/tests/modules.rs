//! Module table parameters end to end: a site binds a parameterised module to
//! its own table, the instantiated module checks, lowers and its task is
//! proven; and every way a binding can be wrong gets its diagnostic at the
//! binding, pointing back into the module.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsitec::diagnostics::{Code, Diagnostic};
use wsitec::{compile_with, Compilation, Options, Source};

const CART: &str = r#"module cart(Item: table { name: Text, price: Money, stock: Int })

table CartLine max 8 {
  item: Item
  qty: Int
}

page Shelf {
  for it in Item {
    text "{it.name}: {it.price}"
    button "Add {it.name}" -> add_to_cart(it, 1)
  }
}

marker add_to_cart(i: Item, qty: Int)
  reads Item.stock
  writes CartLine, Item.stock
  requires qty > 0 else "Choose a quantity"
  requires i.stock >= qty else "Out of stock"
{
  insert CartLine { item: i, qty: qty }
  set i.stock = i.stock - qty
}

task buy_one_of_each {
  say "Put one of every item in the cart"
  goal all it in Item: (exists l in CartLine: l.item == it)
  horizon 8
}
"#;

fn site(binding: &str, product_fields: &str) -> String {
    format!(
        r#"use "./cart.wsite"({binding})

site Shop {{
  title "Shop"
  domain ecommerce
  start Shelf
}}

table Product {{
  {product_fields}
}}

seed Product [
  {{ name: "Lamp", price: $12.00, stock: 2 }},
  {{ name: "Mug", price: $4.50, stock: 0 }},
]
"#
    )
}

const FIELDS: &str = "name: Text\n  price: Money\n  stock: Int\n  color: Text?";

fn compile(root: &str, prove: bool) -> Compilation {
    let mut loader = |_: &str, path: &str| match path {
        "./cart.wsite" => Ok(Source {
            name: "cart.wsite".into(),
            text: CART.into(),
        }),
        "./plain.wsite" => Ok(Source {
            name: "plain.wsite".into(),
            text: "enum Color { red, blue }\n".into(),
        }),
        other => Err(format!("no file `{other}` here")),
    };
    let options = Options {
        prove: prove.then(Default::default),
        only_task: None,
        ..Default::default()
    };
    compile_with(
        vec![Source {
            name: "shop.wsite".into(),
            text: root.into(),
        }],
        &mut loader,
        options,
    )
}

fn errors(c: &Compilation) -> Vec<&Diagnostic> {
    c.diagnostics.iter().filter(|d| d.is_error()).collect()
}

fn only_error(c: &Compilation, code: Code) -> &Diagnostic {
    let errs = errors(c);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}");
    assert_eq!(errs[0].code, code, "{:#?}", errs[0]);
    errs[0]
}

#[test]
fn a_bound_module_checks_lowers_and_its_task_is_proven() {
    let c = compile(&site("Item = Product", FIELDS), true);
    // The only error is the prover's: the task cannot be done with this data.
    let f401 = only_error(&c, Code::F401);
    assert_eq!(f401.span.file.0, 1, "reported on the module's task");
    let program = c.program.as_ref().expect("lowered");
    let names: Vec<&str> = program.tables.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"Product") && names.contains(&"CartLine"));
    assert!(
        !names.contains(&"Item"),
        "the parameter is not a table of its own"
    );
    assert!(program.markers.iter().any(|m| m.name == "add_to_cart"));
    // The Mug is out of stock, so one of each can never be in the cart.
    let verdicts: Vec<_> = c
        .proofs
        .iter()
        .map(|p| (p.instance.clone(), p.verdict))
        .collect();
    assert_eq!(verdicts.len(), 1, "{verdicts:?}");
    assert_eq!(
        verdicts[0].1,
        wsite_runtime::prove::Verdict::Infeasible,
        "{verdicts:?}"
    );
}

#[test]
fn a_bound_module_task_is_feasible_when_the_data_allows() {
    let root = site("Item = Product", FIELDS).replace("stock: 0", "stock: 1");
    let c = compile(&root, true);
    assert!(errors(&c).is_empty(), "{:#?}", c.diagnostics);
    assert_eq!(c.proofs.len(), 1);
    let proof = &c.proofs[0];
    assert_eq!(proof.verdict, wsite_runtime::prove::Verdict::Feasible);
    assert_eq!(proof.witness.len(), 2, "two clicks: {:?}", proof.witness);
}

#[test]
fn a_missing_field_is_reported_at_the_binding_and_the_module() {
    let c = compile(&site("Item = Product", "name: Text\n  price: Money"), false);
    // The module's own uses of the field are reported too; this one says why.
    let errs = errors(&c);
    let d = errs
        .iter()
        .find(|d| d.message.contains("which module `cart` needs"))
        .unwrap_or_else(|| panic!("{errs:#?}"));
    assert_eq!(d.code, Code::E101);
    assert!(d.message.contains("no field `stock`"), "{}", d.message);
    assert_eq!(d.span.file.0, 0, "at the binding, in the site");
    assert!(
        d.related.iter().any(|r| r.span.file.0 == 1),
        "points into the module: {d:#?}"
    );
}

#[test]
fn a_field_of_another_type_is_a_type_mismatch() {
    let c = compile(
        &site("Item = Product", "name: Text\n  price: Int\n  stock: Int"),
        false,
    );
    // The site's own seed now mistypes `price` too; this one says why.
    let errs = errors(&c);
    let d = errs
        .iter()
        .find(|d| d.message.contains("but module `cart` needs"))
        .unwrap_or_else(|| panic!("{errs:#?}"));
    assert_eq!(d.code, Code::E201);
    assert!(
        d.message.contains("`Product.price` is `Int`"),
        "{}",
        d.message
    );
    assert!(d.related.iter().any(|r| r.span.file.0 == 1));
}

#[test]
fn unknown_and_missing_parameters_are_named() {
    let c = compile(&site("Thing = Product", FIELDS), false);
    let errs = errors(&c);
    assert!(
        errs.iter()
            .any(|d| d.code == Code::E101 && d.message.contains("no parameter `Thing`")),
        "{errs:#?}"
    );
    assert!(
        errs.iter()
            .any(|d| d.code == Code::E101 && d.message.contains("needs a table for `Item`")),
        "{errs:#?}"
    );
}

#[test]
fn an_unknown_table_is_reported() {
    let c = compile(&site("Item = Gadget", FIELDS), false);
    assert!(
        errors(&c)
            .iter()
            .any(|d| d.code == Code::E101 && d.message.contains("Gadget")),
        "{:#?}",
        c.diagnostics
    );
}

#[test]
fn a_module_is_bound_once() {
    let root = site("Item = Product", FIELDS).replacen(
        "site Shop",
        "use \"./cart.wsite\"(Item = Product)\n\nsite Shop",
        1,
    );
    let c = compile(&root, false);
    assert!(
        errors(&c)
            .iter()
            .any(|d| d.code == Code::E102 && d.message.contains("already bound")),
        "{:#?}",
        c.diagnostics
    );
}

#[test]
fn binding_a_file_that_is_not_a_module_is_refused() {
    let root = site("Item = Product", FIELDS).replacen(
        "use \"./cart.wsite\"(Item = Product)",
        "use \"./plain.wsite\"(Item = Product)",
        1,
    );
    let c = compile(&root, false);
    assert!(
        errors(&c)
            .iter()
            .any(|d| d.code == Code::E101 && d.message.contains("not a module")),
        "{:#?}",
        c.diagnostics
    );
}
