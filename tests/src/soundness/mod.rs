//! Random small sites aimed at the prover, for the soundness campaign
//! (`tests/tests/soundness.rs`, `scripts/soundness.sh`).
//!
//! [`generate`] turns a `u64` seed into `.wsite` source text (so the whole
//! compiler runs on it, not only the runtime): 2–5 pages, 1–3 tables with 1–4
//! seed rows, a few session variables, 2–6 markers and 1–3 tasks with horizons
//! 3–8. The mix is chosen to stress the prover's cone-of-influence pruning:
//! markers that only navigate, `go` with computed arguments, selects whose
//! options are row names that markers rename, loops over tables that markers
//! insert into, `visited` and `page is` goals, answers that a page reveals
//! only after some step, `requires` chains, invariants, `disabled when`.
//! Every generated site compiles without errors by construction: expressions
//! are drawn by type from what is in scope, and each marker's permissions are
//! written from what its code was drawn to read and write. [`differential`]
//! proves each task instance four ways and compares the results.

pub mod differential;
mod exprs;
mod markers;
mod pages;
mod rng;
pub use rng::Rng;
mod schema;
mod tasks;

use exprs::Exprs;
use pages::{PagePlan, PageWriter};
use schema::{Schema, Ty};
use std::collections::BTreeSet;
use tasks::TaskWriter;

/// One generated site.
#[derive(Clone, Debug)]
pub struct GeneratedSite {
    pub seed: u64,
    pub text: String,
    /// What it was drawn to exercise (`navigate-only`, `go-find`, ...).
    pub features: BTreeSet<&'static str>,
}

/// A page's name and its one parameter, if any.
#[derive(Clone, Debug)]
pub struct PageSig {
    pub name: String,
    pub param: Option<(String, Ty)>,
}

const PAGE_NAMES: [&str; 5] = ["Home", "Shop", "Detail", "Board", "Done"];

/// The site for `seed` (the same text for the same seed, everywhere).
pub fn generate(seed: u64) -> GeneratedSite {
    let mut rng = Rng::new(seed);
    let schema = Schema::draw(&mut rng);
    let mut ex = Exprs::new(&schema);
    let pages = draw_pages(&mut rng, &schema);
    let markers = markers::draw_markers(&mut rng, &mut ex, &pages);
    let plans = plan_pages(&mut rng, pages.len(), markers.len());

    let mut features: BTreeSet<&'static str> = BTreeSet::new();
    let mut text = format!("// soundness campaign, seed {seed}\n");
    schema.write(&mut text, "Gen", &pages[0].name);
    if !schema.invariants.is_empty() {
        features.insert("invariant");
    }
    let mut page_texts = Vec::new();
    let shown;
    {
        let mut writer = PageWriter::new(&mut rng, &mut ex, &pages, &markers);
        for (i, plan) in plans.iter().enumerate() {
            page_texts.push(writer.page(i, plan));
        }
        features.extend(writer.features.iter().copied());
        shown = writer.shown;
    }
    for p in &page_texts {
        text.push_str(p);
        text.push('\n');
    }
    for m in &markers {
        text.push_str(&m.text);
        text.push('\n');
        features.extend(m.features.iter().copied());
    }
    let task_count = rng.range(1, 3);
    let mut writer = TaskWriter {
        rng: &mut rng,
        ex: &mut ex,
        pages: &pages,
        features: Vec::new(),
        effects: markers.iter().flat_map(|m| m.effects.clone()).collect(),
        shown,
    };
    for i in 0..task_count {
        text.push_str(&writer.task(i));
        text.push('\n');
    }
    features.extend(writer.features.iter().copied());
    GeneratedSite {
        seed,
        text,
        features,
    }
}

fn draw_pages(rng: &mut Rng, schema: &Schema) -> Vec<PageSig> {
    let count = rng.range(2, 5);
    (0..count)
        .map(|i| {
            let param = if i == 0 {
                None
            } else {
                match rng.below(100) {
                    0..=39 => Some(("r".to_string(), Ty::Row(rng.below(schema.tables.len())))),
                    40..=44 => Some(("r".to_string(), Ty::OptRow(rng.below(schema.tables.len())))),
                    45..=52 => Some(("word".to_string(), Ty::Text)),
                    53..=59 => Some(("num".to_string(), Ty::Int)),
                    _ => None,
                }
            };
            PageSig {
                name: PAGE_NAMES[i].into(),
                param,
            }
        })
        .collect()
}

/// Which markers get a button where, and which pages link where. Some pages
/// get no link at all, so only a marker's `go` reaches them.
fn plan_pages(rng: &mut Rng, pages: usize, markers: usize) -> Vec<PagePlan> {
    let mut plans = vec![PagePlan::default(); pages];
    for m in 0..markers {
        let copies = match rng.below(20) {
            0 => 0,
            1 | 2 => 2,
            _ => 1,
        };
        for _ in 0..copies {
            plans[rng.below(pages)].markers.push(m);
        }
    }
    for target in 1..pages {
        if rng.chance(65) {
            let from = rng.below(pages);
            plans[from].links.push(target);
        }
        if rng.chance(45) {
            plans[target].links.push(0);
        }
    }
    // No page without a way on (a dead end rarely teaches the prover much).
    for (p, plan) in plans.iter_mut().enumerate() {
        if plan.markers.is_empty() && plan.links.is_empty() {
            let to = (p + 1 + rng.below(pages - 1)) % pages;
            plan.links.push(to);
        }
    }
    plans
}
