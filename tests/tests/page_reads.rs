//! What rendering a page can read (`JitSite::page_reads`), tested on its
//! own terms: the prover keys remembered pages by those words alone
//! (`jit/step/memo.rs`, DECISIONS 103), so a render must give the same
//! structure whatever every other word of the state holds. On states of
//! random sites, the corpus and the examples, reached by random steps,
//! every word outside the page's read set (header and visited set
//! included) is scrambled, and the page is rendered again in each mode;
//! the structure must be the same, and so must a render's failure.
//!
//! A page whose form variables reach a render without texts only as whole
//! arguments is keyed without them as well (`page_reads_forms_apart`):
//! there the form variables are also replaced, by those of other states of
//! the walk on the same page and by none, and the first render with the
//! new form values written in (`JitSite::refill_forms`) must equal the new
//! state's render.
//!
//! `WSITE_READS_SITES` (default 150) sets how many random sites.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use wsite_runtime::env::{instances, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_runtime::jit::{FlatEnv, JitSite, PageStructure, RenderMode};
use wsite_runtime::layout::{StateLayout, TextPool, WORD};
use wsite_runtime::prove::{JitProver, Options, Verdict};
use wsite_tests::soundness::Rng;

fn compile(name: &str, text: &str) -> Option<Program> {
    let compiled = wsitec::compile_str(name, text);
    if compiled.diagnostics.iter().any(|d| d.is_error()) {
        return None;
    }
    compiled.program
}

/// `state` with every word outside `keep` given random bytes.
fn scrambled(state: &[u8], keep: impl Fn(usize) -> bool, rng: &mut Rng) -> Vec<u8> {
    let mut out = state.to_vec();
    for (j, word) in out.chunks_mut(WORD).enumerate() {
        if !keep(j) {
            let noise = rng.next_u64().to_le_bytes();
            word.copy_from_slice(&noise[..word.len()]);
        }
    }
    out
}

/// Renders the page of `state` in `mode` and again from three scrambled
/// copies; panics unless all agree. Returns whether the page rendered.
/// `donors`: form variable regions of other states on the same page;
/// `refills` counts the
/// renders with other form values written in that were checked.
#[allow(clippy::too_many_arguments)]
fn check_state(
    what: &str,
    site: &JitSite,
    state: &[u8],
    pool: &mut TextPool,
    mode: RenderMode,
    rng: &mut Rng,
    donors: &[Vec<u8>],
    refills: &mut usize,
) -> bool {
    let layout = site.layout();
    let page = u32::from_le_bytes(state[layout.page..layout.page + 4].try_into().unwrap());
    let reads = site
        .page_reads(page, mode.texts || mode.words)
        .unwrap_or_else(|| panic!("{what}: page #{page} has no read set"));
    let mut first = PageStructure::default();
    first.set_mode(mode);
    let rendered = site.render_structure(page, state, pool, &mut first).is_ok();
    for _ in 0..3 {
        let other = scrambled(state, |j| reads.contains(j), rng);
        let mut again = PageStructure::default();
        again.set_mode(mode);
        let again_rendered = site
            .render_structure(page, &other, pool, &mut again)
            .is_ok();
        assert_eq!(
            rendered, again_rendered,
            "{what}: page #{page} ({mode:?}) renders or fails by words it does not read"
        );
        if rendered {
            assert!(
                first == again,
                "{what}: page #{page} ({mode:?}) renders differently when words it does not read change"
            );
        }
    }
    if rendered && mode == RenderMode::STRUCTURE {
        *refills += check_forms_apart(what, site, state, pool, &first, rng, donors);
    }
    rendered
}

/// On a page keyed without its form variables: `first` (the render of
/// `state`) with the form values of a scrambled copy written in equals
/// that copy's render, whatever form values the copy holds. Returns the
/// renders compared.
fn check_forms_apart(
    what: &str,
    site: &JitSite,
    state: &[u8],
    pool: &mut TextPool,
    first: &PageStructure,
    rng: &mut Rng,
    donors: &[Vec<u8>],
) -> usize {
    let layout = site.layout();
    let page = u32::from_le_bytes(state[layout.page..layout.page + 4].try_into().unwrap());
    let Some(apart) = site.page_reads_forms_apart(page) else {
        return 0;
    };
    let keyed = |state: &[u8]| -> Vec<_> {
        let value = |&e: &u32| site.form_value(state, e, &[]).ok();
        apart.keyed.iter().map(value).collect()
    };
    let mut compared = 0;
    let forms = layout.forms_region();
    let none = vec![0u8; forms.len()];
    let picks: Vec<&Vec<u8>> = (0..3).map(|_| &donors[rng.below(donors.len())]).collect();
    for donor in picks.into_iter().chain([&none]) {
        let mut other = scrambled(state, |j| apart.reads.contains(j), rng);
        other[forms.clone()].copy_from_slice(donor);
        if keyed(&other) != keyed(state) {
            // Another key: the page may differ in more than the values.
            continue;
        }
        let mut again = PageStructure::default();
        again.set_mode(RenderMode::STRUCTURE);
        let mut refilled = first.clone();
        let refill = site.refill_forms(&other, &mut refilled);
        match site.render_structure(page, &other, pool, &mut again) {
            Ok(()) => {
                refill.unwrap_or_else(|e| panic!("{what}: page #{page}: refill failed: {e}"));
                assert!(
                    refilled == again,
                    "{what}: page #{page}: the render with other form values written in differs from the render of those values"
                );
                compared += 1;
            }
            // A corrupt form list fails both.
            Err(e) => assert!(
                refill.is_err(),
                "{what}: page #{page}: only the render failed: {e}"
            ),
        }
    }
    compared
}

/// Walks each instance of `program` at random for `steps` steps, checking
/// every state's page in every mode. Returns the renders checked, and
/// those of them checked with other form values written in.
fn check_program(what: &str, program: &Program, steps: usize, seed: u64) -> [usize; 2] {
    let Ok(layout) = StateLayout::for_program(program) else {
        return [0, 0];
    };
    let mut pool = TextPool::for_program(program);
    let Ok(site) = JitSite::compile(program, &layout, &mut pool) else {
        return [0, 0];
    };
    let mut refills = 0;
    let mut rng = Rng::new(seed);
    let mut checked = 0;
    let forms = layout.forms_region();
    // Form variable regions of the walk's states, by page: a state's form
    // variables are its page's, of their elements' types (navigation
    // clears them), which the values written in are taken to be.
    let mut donors: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
    for inst in instances(program) {
        let Ok(mut env) = FlatEnv::new(&site, &inst, RewardConfig::default(), &mut pool) else {
            continue;
        };
        for _ in 0..steps {
            let state = env.state().to_vec();
            let page = u32::from_le_bytes(state[layout.page..layout.page + 4].try_into().unwrap());
            let donors = donors
                .entry(page)
                .or_insert_with(|| vec![vec![0u8; forms.len()]]);
            donors.push(state[forms.clone()].to_vec());
            for mode in [RenderMode::STRUCTURE, RenderMode::TEXTS, RenderMode::WORDS] {
                let here = format!("{what} {}", inst.name);
                let rng = &mut rng;
                let checks = check_state(
                    &here,
                    &site,
                    &state,
                    &mut pool,
                    mode,
                    rng,
                    donors,
                    &mut refills,
                );
                checked += usize::from(checks);
            }
            let count = env.actions().len();
            let moved = match (env.done(), count) {
                (false, n) if n > 0 => env.step(rng.below(n), &mut pool).is_ok(),
                _ => false,
            };
            if !moved && env.reset(&mut pool).is_err() {
                break;
            }
        }
    }
    [checked, refills]
}

#[test]
fn a_page_renders_alike_whatever_the_words_it_does_not_read_hold() {
    let count = wsite_tests::env_u64("WSITE_READS_SITES", 150);
    let mut checked = [0, 0];
    let mut add = |[a, b]: [usize; 2]| {
        checked[0] += a;
        checked[1] += b;
    };
    for seed in 0..count {
        let site = wsite_tests::soundness::generate(seed);
        if let Some(program) = compile("random.wsite", &site.text) {
            add(check_program(
                &format!("random site {seed}"),
                &program,
                12,
                seed,
            ));
        }
    }
    for (d, domain) in wsitec::gen::DOMAINS.iter().enumerate() {
        let sites = wsitec::gen::generate(domain, 31 + d as u64, 2).unwrap();
        for (i, site) in sites.into_iter().enumerate() {
            let name = format!("corpus {domain} #{i}");
            let program =
                compile(&name, &site.text).unwrap_or_else(|| panic!("{name} does not compile"));
            add(check_program(&name, &program, 12, i as u64));
        }
    }
    for (name, program) in wsite_tests::example_programs() {
        add(check_program(&name, &program, 20, 7));
    }
    let [renders, refilled] = checked;
    eprintln!(
        "{renders} renders checked against scrambled states, {refilled} with other form values written in"
    );
    assert!(renders > 1_000, "only {renders} renders checked");
    assert!(
        refilled > 100,
        "only {refilled} renders checked with other form values"
    );
}

/// `tests/sites/forms_apart.wsite`: its `Send` page reads its form
/// variables only as the button's whole arguments, `Filter` filters a loop
/// by one (and passes another whole), `Twice` passes a sum of one and
/// disables its button by another, and `PerRow` disables a button by an
/// input repeated in a loop.
#[test]
fn a_page_reading_form_variables_only_as_whole_arguments_is_keyed_without_them() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/sites/forms_apart.wsite");
    let text = std::fs::read_to_string(path).unwrap();
    let program = compile("forms_apart.wsite", &text).expect("the site compiles");
    let layout = StateLayout::for_program(&program).unwrap();
    let mut pool = TextPool::for_program(&program);
    let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
    let page = |name: &str| {
        let at = program.pages.iter().position(|p| p.name == name).unwrap();
        u32::try_from(at).unwrap()
    };
    let keyed = |name: &str| {
        let apart = site.page_reads_forms_apart(page(name));
        apart.map(|a| a.keyed.len())
    };
    assert_eq!(
        keyed("Send"),
        Some(0),
        "Send reads its form variables only as arguments"
    );
    assert_eq!(keyed("Filter"), Some(1), "Filter's loop reads its select");
    assert_eq!(keyed("Twice"), None, "Twice reads both its form variables");
    assert_eq!(
        keyed("PerRow"),
        None,
        "PerRow reads an input repeated in a loop"
    );
    let forms = layout.forms_region();
    let send = &site.page_reads_forms_apart(page("Send")).unwrap().reads;
    let with_forms = site.page_reads(page("Send"), false).unwrap();
    let form_words = forms.start / WORD..forms.end.div_ceil(WORD);
    assert!(form_words
        .clone()
        .all(|j| !send.contains(j) && with_forms.contains(j)));

    // The prover's states on `Send` differ in the account chosen, the
    // amount typed and the box ticked; keyed without them, its page is
    // rendered once per balance and taken from memory otherwise.
    let jit = JitProver::new(&program).unwrap();
    let inst = instances(&program).into_iter().next().unwrap();
    let proof = jit.prove(&inst, Options::default()).unwrap();
    let counts = jit.memo_counts();
    eprintln!("{} states, {counts:?}", proof.states);
    assert_eq!(proof.verdict, Verdict::Feasible);
    assert!(counts.hits > counts.misses, "{counts:?}");
}
