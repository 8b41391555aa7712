//! Remembered renders (`runtime/src/jit/step/memo.rs`): a page taken from
//! the memory is the page a render gives, so a batch that remembers writes
//! every buffer byte for byte as one that renders every step; and a page
//! showing a text an episode made is never taken for a state whose bytes
//! are equal but whose pool means another text by the same id. (Debug
//! builds also render every remembered page again and demand the same.) A
//! page is found again whatever the state holds where it does not read.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::sync::Arc;
use wsite_runtime::batch::{BatchEnv, FlatEngine, ObsSpec};
use wsite_runtime::env::{ActionKind, RewardConfig, TaskInstance};
use wsite_runtime::jit::{FlatEnv, FlatStart, JitSite, RenderMemo};
use wsite_runtime::layout::TextPool;
use wsite_runtime::page::HandleView;
use wsite_tests::Lcg;

/// A JIT batch of 16 environments over `instances`, on two threads.
fn batch<'s>(
    site: &'s JitSite,
    instances: &[wsite_runtime::env::TaskInstance],
    pool: &mut TextPool,
) -> BatchEnv<FlatEngine<'s>> {
    let (spec, config) = (ObsSpec::default(), RewardConfig::default());
    BatchEnv::jit(site, instances, 16, spec, config, 11, 2, pool).unwrap()
}

#[test]
fn remembering_batches_write_what_rendering_batches_write() {
    let mut remembered = 0;
    for (name, program) in wsite_tests::example_programs() {
        let (site, mut pool, instances) = wsite_tests::jit_site(&program);
        if instances.is_empty() {
            continue;
        }
        let counts = compare_with_rendering(&name, &site, &instances, &mut pool, None);
        assert!(counts.hits > 0, "{name}: no page was remembered");
        assert!(counts.rows > 0, "{name}: no rows were copied");
        eprintln!(
            "{name}: {} of {} pages remembered, rows copied {} times",
            counts.hits,
            counts.lookups(),
            counts.rows
        );
        // One slot for every page and every view: each lookup meets what
        // another key left, so a key that is not compared shows.
        compare_with_rendering(&name, &site, &instances, &mut pool, Some(1));
        remembered += 1;
    }
    assert!(remembered >= 5, "too few sites compared");
}

/// Steps a remembering batch (of `memo` pages a thread, or the default)
/// and a rendering one alike with random actions, demanding the same
/// buffers after every step; the remembering batch's counts.
fn compare_with_rendering(
    name: &str,
    site: &JitSite,
    instances: &[TaskInstance],
    pool: &mut TextPool,
    memo: Option<usize>,
) -> wsite_runtime::jit::MemoCounts {
    let mut remembering = batch(site, instances, pool);
    if let Some(memo) = memo {
        remembering.set_render_memo(memo);
    }
    let mut rendering = batch(site, instances, pool);
    rendering.set_render_memo(0);
    assert!(remembering.buffers() == rendering.buffers(), "{name}");
    let mut rng = Lcg(23);
    for step in 0..120 {
        let counts = remembering.buffers().action_count.iter();
        let actions: Vec<u32> = counts.map(|&n| rng.next(n as usize) as u32).collect();
        remembering.step(&actions).unwrap();
        rendering.step(&actions).unwrap();
        let (a, b) = (remembering.buffers(), rendering.buffers());
        if a != b {
            panic!(
                "{name}: memo {memo:?}: step {step}: buffers differ: {}",
                wsite_tests::first_difference(a, b)
            );
        }
        // The states too: a page taken from the memory must leave every
        // pool as a render would, or later texts get other ids.
        for i in 0..remembering.len() {
            let states = [&remembering, &rendering].map(|b| b.flat(i).map(|f| f.state()));
            assert!(
                states[0] == states[1],
                "{name}: step {step}: env {i}: states differ"
            );
        }
    }
    assert_eq!(rendering.memo_counts().hits, 0, "{name}");
    remembering.memo_counts()
}

/// The site `tests/sites/<name>.wsite`, compiled for the JIT.
fn test_site(name: &str) -> (JitSite, TextPool, Vec<TaskInstance>) {
    let file = format!("sites/{name}.wsite");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let program = wsitec::compile_str(name, &text).program.unwrap();
    wsite_tests::jit_site(&program)
}

/// The start of the first instance, alone in its family, with the pool
/// frozen past its texts (as a batch leaves it).
fn first_start(site: &JitSite, instances: &[TaskInstance], pool: &mut TextPool) -> Arc<FlatStart> {
    let instance = instances.first().expect("a flat instance");
    let start = FlatStart::new(site, instance, pool).unwrap();
    FlatStart::join_family(std::slice::from_ref(&start));
    pool.freeze();
    start
}

/// Two engines playing `start`, on pools `a` and `b`, and a memory of
/// renders for them to share.
fn two_engines<'s>(
    site: &'s JitSite,
    start: Arc<FlatStart>,
    a: &mut TextPool,
    b: &mut TextPool,
) -> (FlatEnv<'s>, FlatEnv<'s>, RenderMemo) {
    let config = RewardConfig::default();
    let first = FlatEnv::from_start(site, Arc::clone(&start), config, a).unwrap();
    let second = FlatEnv::from_start(site, start, config, b).unwrap();
    // Large, so that two pages the tests tell apart land in one slot (or
    // one `seen` entry) only once in tens of thousands of runs: a page's
    // slot follows its family's id, which a process-wide counter hands
    // out in whatever order the tests run.
    let memo = first.render_memo(1 << 16);
    (first, second, memo)
}

/// Types `value` into the page's input, then clicks its button.
fn type_and_save(env: &mut FlatEnv<'_>, value: &str, pool: &mut TextPool, memo: &mut RenderMemo) {
    let typing = env
        .actions()
        .iter()
        .position(|a| a.kind == ActionKind::Type && env.action_text(a) == Some(value));
    env.step_remembering(typing.expect("a type action"), pool, memo)
        .unwrap();
    let click = env
        .actions()
        .iter()
        .position(|a| a.kind == ActionKind::Click);
    env.step_remembering(click.expect("a click"), pool, memo)
        .unwrap();
}

fn texts(env: &FlatEnv<'_>) -> Vec<String> {
    let page = env.structure();
    page.elements
        .iter()
        .map(|e| page.text_of(e).to_string())
        .collect()
}

#[test]
fn a_text_made_in_one_pool_is_not_shown_for_another() {
    let (site, mut pool, instances) = test_site("greeter");
    let start = first_start(&site, &instances, &mut pool);
    let (mut pool_a, mut pool_b) = (pool.clone(), pool.clone());
    let (mut a, mut b, mut memo) = two_engines(&site, start, &mut pool_a, &mut pool_b);

    // A render is remembered the second time its state is met. Each
    // episode starts from the frozen texts, as a batch's do.
    let base = pool.len();
    for _ in 0..2 {
        pool_a.truncate(base);
        a.reset(&mut pool_a).unwrap();
        type_and_save(&mut a, "ann", &mut pool_a, &mut memo);
    }
    assert!(
        texts(&a).contains(&"Hello ann".to_string()),
        "{:?}",
        texts(&a)
    );
    assert_eq!(memo.counts().hits, 0);

    // Typing what `a` typed lands in a state `a` rendered, whose texts
    // every pool copied from the same frozen one means alike.
    let typing = b
        .actions()
        .iter()
        .position(|x| x.kind == ActionKind::Type && b.action_text(x) == Some("ann"));
    b.step_remembering(typing.unwrap(), &mut pool_b, &mut memo)
        .unwrap();
    assert_eq!(memo.counts().hits, 1, "a shared page was not remembered");

    // `b` saves another greeting: its bytes are `a`'s (one new note whose
    // text has the first id past the frozen ones, the form cleared by
    // `go`), but in `b`'s pool that id says something else.
    b.reset(&mut pool_b).unwrap();
    type_and_save(&mut b, "bob", &mut pool_b, &mut memo);
    assert_eq!(a.state()[16..], b.state()[16..], "the two states differ");
    let shown = texts(&b);
    assert!(shown.contains(&"Hello bob".to_string()), "{shown:?}");
    assert!(!shown.contains(&"Hello ann".to_string()), "{shown:?}");
}

#[test]
fn a_page_reading_no_text_an_episode_made_is_found_from_another_pool() {
    let (site, mut pool, instances) = test_site("greeter");
    let start = first_start(&site, &instances, &mut pool);
    let (mut pool_a, mut pool_b) = (pool.clone(), pool.clone());
    let (mut a, mut b, mut memo) = two_engines(&site, start, &mut pool_a, &mut pool_b);

    // `a` saves a note, a text its pool alone holds, then meets About
    // twice: the second render is remembered.
    type_and_save(&mut a, "ann", &mut pool_a, &mut memo);
    assert!(pool_a.len() > pool.len(), "no text was made");
    for label in ["About", "Home", "About"] {
        click(&mut a, label, &mut pool_a, &mut memo);
    }
    assert_eq!(memo.counts().hits, 0, "{:?}", memo.counts());

    // About reads no note, so `b`, whose pool shares only the frozen
    // texts with `a`'s, finds it; Home shows `a`'s note, and is rendered.
    click(&mut b, "About", &mut pool_b, &mut memo);
    assert_eq!(memo.counts().hits, 1, "About was not shared");
    assert_eq!(texts(&b), ["About", "Greeter keeps notes.", "Home"]);
    click(&mut b, "Home", &mut pool_b, &mut memo);
    assert!(!texts(&b).contains(&"Hello ann".to_string()));
}

#[test]
fn a_page_holding_a_text_an_episode_made_is_not_shared() {
    let (site, mut pool, instances) = test_site("shouter");
    let start = first_start(&site, &instances, &mut pool);
    let (mut pool_a, mut pool_b) = (pool.clone(), pool.clone());
    // The first id past the frozen texts says something else in `b`'s
    // pool, so `b`'s first render of Home derives `HI` under the next.
    pool_b.intern(&Arc::from("other")).unwrap();
    let (mut a, mut b, mut memo) = two_engines(&site, start, &mut pool_a, &mut pool_b);
    assert_ne!(pool_a.find("HI"), pool_b.find("HI"));
    for label in ["About", "Home", "About", "Home"] {
        click(&mut a, label, &mut pool_a, &mut memo);
    }
    assert_eq!(memo.counts().hits, 0, "{:?}", memo.counts());

    // About holds no text id: shared. Home's button holds `a`'s id of
    // `HI`: rendered anew, and the shout says `HI` in `b`'s pool too.
    click(&mut b, "About", &mut pool_b, &mut memo);
    assert_eq!(memo.counts().hits, 1, "About was not shared");
    click(&mut b, "Home", &mut pool_b, &mut memo);
    assert_eq!(memo.counts().hits, 1, "Home was shared");
    let shout = b.structure().elements[1].handle;
    let shouted = b.structure().handle_values(&shout);
    let id = pool_b.find("HI").map(i64::from);
    assert!(
        matches!(shouted, HandleView::Marker(_, Ok([Some(w)])) if Some(*w) == id),
        "{shouted:?}"
    );
}

#[test]
fn a_page_that_found_a_text_an_episode_made_is_not_shared() {
    let (site, mut pool, instances) = test_site("shouter");
    let start = first_start(&site, &instances, &mut pool);
    let (mut pool_a, mut pool_b) = (pool.clone(), pool.clone());
    let (mut a, mut b, mut memo) = two_engines(&site, start, &mut pool_a, &mut pool_b);
    // Loud's first render in `a` makes `PSST`; the later ones find it
    // past the frozen texts, and the third is remembered (a memory of
    // renders keeps a page the second time a render that adds no text
    // meets it), and found by the fourth. Loud shows the text only as
    // characters, but `b`'s pool lacks it.
    for label in ["Loud", "Home"].repeat(3) {
        click(&mut a, label, &mut pool_a, &mut memo);
    }
    let hits = memo.counts().hits;
    click(&mut a, "Loud", &mut pool_a, &mut memo);
    assert_eq!(memo.counts().hits, hits + 1, "Loud was not remembered");
    assert!(pool_a.find("PSST").is_some() && pool_b.find("PSST").is_none());
    let hits = memo.counts().hits;
    click(&mut b, "Loud", &mut pool_b, &mut memo);
    assert_eq!(memo.counts().hits, hits, "Loud was shared");
    assert_eq!(texts(&b), ["PSST", "Home"]);
    assert!(
        pool_b.find("PSST").is_some(),
        "`b` did not make the text a render makes"
    );
}

/// Clicks the element that says `label`.
fn click(env: &mut FlatEnv<'_>, label: &str, pool: &mut TextPool, memo: &mut RenderMemo) {
    let shown = texts(env);
    let at = env.actions().iter().position(|a| {
        a.kind == ActionKind::Click && shown.get(a.element - 1).map(String::as_str) == Some(label)
    });
    let at = at.unwrap_or_else(|| panic!("no {label:?} among {shown:?}"));
    env.step_remembering(at, pool, memo).unwrap();
}

#[test]
fn a_page_is_found_again_after_writes_it_does_not_read() {
    let (site, mut pool, instances) = test_site("tally");
    let start = first_start(&site, &instances, &mut pool);
    let mut env = FlatEnv::from_start(&site, start, RewardConfig::default(), &mut pool).unwrap();
    // Large, for the reason `two_engines` gives.
    let mut memo = env.render_memo(1 << 16);

    // A render is remembered the second time its state is met, and taken
    // from the memory the third.
    for label in ["Shop", "Home"].repeat(3) {
        click(&mut env, label, &mut pool, &mut memo);
    }
    assert_eq!(memo.counts().hits, 2, "{:?}", memo.counts());

    // A click on `add` writes a tally row and the session's count, and
    // Shop shows both: its page is rendered anew.
    click(&mut env, "Shop", &mut pool, &mut memo);
    let hits = memo.counts().hits;
    click(&mut env, "Add", &mut pool, &mut memo);
    assert_eq!(memo.counts().hits, hits, "Shop after a click is a new page");
    assert!(
        texts(&env).contains(&"Tick 0".to_string()),
        "{:?}",
        texts(&env)
    );

    // Home reads neither, so the state the click left renders the Home
    // page the memory holds, and it is found.
    let hits = memo.counts().hits;
    click(&mut env, "Home", &mut pool, &mut memo);
    assert_eq!(memo.counts().hits, hits + 1, "{:?}", memo.counts());
    assert_eq!(texts(&env), ["Home", "Shop"]);
}
