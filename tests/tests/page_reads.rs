//! What rendering a page can read (`JitSite::page_reads`), tested on its
//! own terms: the prover keys remembered pages by those words alone
//! (`jit/step/memo.rs`, DECISIONS 103), so a render must give the same
//! structure whatever every other word of the state holds. On states of
//! random sites, the corpus and the examples, reached by random steps,
//! every word outside the page's read set (header and visited set
//! included) is scrambled, and the page is rendered again in each mode;
//! the structure must be the same, and so must a render's failure.
//!
//! `WSITE_READS_SITES` (default 150) sets how many random sites.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use wsite_runtime::env::{instances, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_runtime::jit::{FlatEnv, JitSite, PageStructure, RenderMode};
use wsite_runtime::layout::{StateLayout, TextPool, WORD};
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
fn check_state(
    what: &str,
    site: &JitSite,
    state: &[u8],
    pool: &mut TextPool,
    mode: RenderMode,
    rng: &mut Rng,
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
    rendered
}

/// Walks each instance of `program` at random for `steps` steps, checking
/// every state's page in every mode. Returns the renders checked.
fn check_program(what: &str, program: &Program, steps: usize, seed: u64) -> usize {
    let Ok(layout) = StateLayout::for_program(program) else {
        return 0;
    };
    let mut pool = TextPool::for_program(program);
    let Ok(site) = JitSite::compile(program, &layout, &mut pool) else {
        return 0;
    };
    let mut rng = Rng::new(seed);
    let mut checked = 0;
    for inst in instances(program) {
        let Ok(mut env) = FlatEnv::new(&site, &inst, RewardConfig::default(), &mut pool) else {
            continue;
        };
        for _ in 0..steps {
            let state = env.state().to_vec();
            for mode in [RenderMode::STRUCTURE, RenderMode::TEXTS, RenderMode::WORDS] {
                let here = format!("{what} {}", inst.name);
                checked +=
                    usize::from(check_state(&here, &site, &state, &mut pool, mode, &mut rng));
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
    checked
}

#[test]
fn a_page_renders_alike_whatever_the_words_it_does_not_read_hold() {
    let count = wsite_tests::env_u64("WSITE_READS_SITES", 150);
    let mut checked = 0;
    for seed in 0..count {
        let site = wsite_tests::soundness::generate(seed);
        if let Some(program) = compile("random.wsite", &site.text) {
            checked += check_program(&format!("random site {seed}"), &program, 12, seed);
        }
    }
    for (d, domain) in wsitec::gen::DOMAINS.iter().enumerate() {
        let sites = wsitec::gen::generate(domain, 31 + d as u64, 2).unwrap();
        for (i, site) in sites.into_iter().enumerate() {
            let name = format!("corpus {domain} #{i}");
            let program =
                compile(&name, &site.text).unwrap_or_else(|| panic!("{name} does not compile"));
            checked += check_program(&name, &program, 12, i as u64);
        }
    }
    for (name, program) in wsite_tests::example_programs() {
        checked += check_program(&name, &program, 20, 7);
    }
    eprintln!("{checked} renders checked against scrambled states");
    assert!(checked > 1_000, "only {checked} renders checked");
}
