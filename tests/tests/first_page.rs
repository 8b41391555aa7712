//! `FlatEnv::reset` copies the first page the last reset rendered
//! (`jit/step/first_page.rs`) only while the pool means by every id what it
//! meant then. The start page below passes a text its render makes
//! (`lower(n.body)`) as a link's argument, so the page holds that text's id:
//! after a reset with a pool whose next ids hold other texts, a copied page
//! would name the wrong text, and the page must be rendered anew. A copied
//! page carries a version (`FlatEnv::page_version`) and a rendered one
//! none, so the test also sees which way each reset went.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::sync::Arc;
use wsite_runtime::env::RewardConfig;
use wsite_runtime::jit::{FlatEnv, HandleWords};

const SITE: &str = r#"
site Shouting {
  title "Shouting"
  domain social
  start Home
}

table Note {
  body: Text
}

seed Note [
  { body: "Hello There" },
  { body: "Good Morning" },
]

page Home {
  heading "Notes"
  for n in Note {
    link "{n.body}" -> Quiet(lower(n.body))
  }
}

page Quiet(q: Text) {
  text "{q}"
  link #home "Back" -> Home
}

task visit {
  say "Read a note quietly."
  goal page is Quiet("hello there")
  horizon 4
}
"#;

/// The text ids the page's links pass (their arguments, in order).
fn link_arguments(flat: &FlatEnv<'_>) -> Vec<Option<i64>> {
    let page = flat.structure();
    page.elements
        .iter()
        .filter_map(|e| match &e.handle {
            HandleWords::Go(Ok((_, args))) => Some(page.values_of(*args).to_vec()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn a_reset_copies_its_first_page_only_for_a_pool_that_agrees() {
    let program = wsitec::compile_str("shouting.wsite", SITE)
        .program
        .expect("the site compiles");
    let (site, mut pool, instances) = wsite_tests::jit_site(&program);
    let instance = instances.first().expect("an instance");
    let config = RewardConfig::default();
    // A copy of the pool before any page was rendered, for the second
    // engine below.
    let mut other = pool.clone();
    let mut flat = FlatEnv::new(&site, instance, config, &mut pool).unwrap();
    let first = link_arguments(&flat);
    assert_eq!(first.len(), 2, "two links with an argument each");
    assert_eq!(flat.page_version(), None, "the constructor renders");

    // Resets with the same pool show the same page: the first renders and
    // keeps it, the others copy it.
    let mut versions = Vec::new();
    for _ in 0..3 {
        flat.step(0, &mut pool).unwrap();
        flat.reset(&mut pool).unwrap();
        assert_eq!(link_arguments(&flat), first);
        versions.push(flat.page_version());
    }
    assert_eq!(versions[0], None, "the first reset renders");
    assert!(versions[1].is_some(), "the second reset copies");
    assert_eq!(versions[1], versions[2], "both copies are of one page");
    let texts: Vec<Arc<str>> = first
        .iter()
        .map(|id| {
            pool.get(u32::try_from(id.unwrap()).unwrap())
                .unwrap()
                .clone()
        })
        .collect();
    assert_eq!(&*texts[0], "hello there");

    // Another pool whose next ids hold other texts: the lowered notes get
    // other ids there, and the page must name them.
    other.intern(&Arc::from("something else"));
    other.intern(&Arc::from("and more"));
    flat.reset(&mut other).unwrap();
    assert_eq!(flat.page_version(), None, "another pool renders");
    let shown = link_arguments(&flat);
    assert_ne!(
        shown, first,
        "the lowered texts have other ids in this pool"
    );
    for (id, text) in shown.iter().zip(&texts) {
        assert_eq!(other.get(u32::try_from(id.unwrap()).unwrap()), Some(text));
    }
    // Back to the first pool: its page again, rendered (the page kept
    // last is the other pool's), then copied.
    flat.reset(&mut pool).unwrap();
    assert_eq!(link_arguments(&flat), first);
    assert_eq!(flat.page_version(), None);
    flat.reset(&mut pool).unwrap();
    assert_eq!(link_arguments(&flat), first);
    assert!(flat.page_version().is_some());
}
