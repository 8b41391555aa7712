//! Compiled page structures against the interpreter on the real examples:
//! random play through every task instance, and at every state (and a
//! perturbed copy of it, to reach faults) the current page's structure — every
//! element instance with its loop path, role, rendered text, value, option
//! texts, `disabled` flag and handle as words, and the interpolated values
//! shown — written by the JIT from the flat bytes must equal the one built
//! from the interpreter's rendered view (`Env::structure`).

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{self, Env, RewardConfig};
use wsite_runtime::ir::{Program, Ty};
use wsite_runtime::jit::{ElementInstance, JitError, JitSite, PageStructure};
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_tests::Lcg;

#[derive(Default)]
struct Tally {
    compared: usize,
    fallback_states: usize,
    elements: usize,
    faulted_handles: usize,
    disabled: usize,
}

/// Sometimes points a row argument of the page at a missing row, then
/// overwrites a few table cells with other values of their types.
fn perturb(
    program: &Program,
    layout: &StateLayout,
    bytes: &mut [u8],
    pool_len: usize,
    rng: &mut Lcg,
) {
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    // Sometimes a row argument of the page that no longer exists, so that
    // argument and condition evaluation fault.
    let page = u32_at(bytes, layout.page) as usize;
    for (i, p) in program.pages[page].params.iter().enumerate() {
        if matches!(p.ty, Ty::Row(_)) && rng.next(3) == 0 {
            let at = layout.args.word_at(i);
            bytes[at..at + 8].copy_from_slice(&999_999i64.to_le_bytes());
        }
    }
    wsite_tests::perturb_cells(program, layout, bytes, pool_len, rng);
}

/// Compares the JIT's structure of `bytes` with the interpreter's, after
/// loading them into `twin`.
#[allow(clippy::too_many_arguments)]
fn check_state(
    site: &JitSite,
    layout: &StateLayout,
    twin: &mut Env<'_>,
    bytes: &[u8],
    pool: &mut TextPool,
    out: &mut PageStructure,
    what: &str,
    tally: &mut Tally,
) {
    if twin.restore_state(layout, pool, bytes).is_err() {
        return;
    }
    let page = twin.navigation().page;
    if !site.page_is_compiled(page) {
        tally.fallback_states += 1;
        return;
    }
    site.render_structure(page, bytes, pool, out)
        .unwrap_or_else(|e| panic!("{what}: page #{page}: {e}"));
    let expected = twin.structure(pool).unwrap();
    if *out != expected {
        let n = out.elements.len().max(expected.elements.len());
        for i in 0..n {
            let (a, b) = (out.elements.get(i), expected.elements.get(i));
            let same = match (a, b) {
                (Some(a), Some(b)) => out.same_element(a, &expected, b),
                _ => false,
            };
            if !same {
                let show = |p: &PageStructure, e: Option<&ElementInstance>| {
                    e.map(|e| {
                        format!(
                            "{e:?} at {:?}, {:?}",
                            p.path_of(e),
                            p.handle_values(&e.handle)
                        )
                    })
                };
                let (a, b) = (show(out, a), show(&expected, b));
                panic!("{what}: page #{page}: element {i} differs:\n jit    {a:?}\n interp {b:?}");
            }
        }
        assert_eq!(
            out.shown, expected.shown,
            "{what}: page #{page}: shown values differ"
        );
    }
    check_modes(site, page, bytes, pool, &expected, what);
    tally.compared += 1;
    tally.elements += out.elements.len();
    for e in &out.elements {
        tally.disabled += usize::from(e.disabled);
        if matches!(
            &e.handle,
            wsite_runtime::jit::HandleWords::Go(Err(_))
                | wsite_runtime::jit::HandleWords::Marker(_, Err(_))
        ) {
            tally.faulted_handles += 1;
        }
    }
}

/// The same page rendered with words only, and with structure only: the
/// words are the hashes of the interpreter's texts, and the structure
/// (paths, roles, handles, options, `disabled`) is the same.
fn check_modes(
    site: &JitSite,
    page: u32,
    bytes: &[u8],
    pool: &mut TextPool,
    expected: &PageStructure,
    what: &str,
) {
    use wsite_runtime::jit::RenderMode;
    use wsite_runtime::words::hashes;
    for mode in [RenderMode::WORDS, RenderMode::ALL, RenderMode::STRUCTURE] {
        let mut out = PageStructure::default();
        out.set_mode(mode);
        site.render_structure(page, bytes, pool, &mut out)
            .unwrap_or_else(|e| panic!("{what}: page #{page} in {mode:?}: {e}"));
        assert_eq!(
            out.elements.len(),
            expected.elements.len(),
            "{what}: {mode:?}"
        );
        for (i, (a, b)) in out.elements.iter().zip(&expected.elements).enumerate() {
            let at = format!("{what}: page #{page}: element {i} in {mode:?}");
            let (ha, hb) = (
                out.handle_values(&a.handle),
                expected.handle_values(&b.handle),
            );
            let (oa, ob) = (
                out.options_of(a).collect::<Vec<_>>(),
                expected.options_of(b).collect::<Vec<_>>(),
            );
            assert_eq!(
                (out.path_of(a), a.role, ha, oa, a.disabled),
                (expected.path_of(b), b.role, hb, ob, b.disabled),
                "{at}"
            );
            assert_eq!(a.value.is_some(), b.value.is_some(), "{at}");
            let (text, value) = (expected.text_of(b), expected.value_of(b));
            if mode.texts {
                assert_eq!((out.text_of(a), out.value_of(a)), (text, value), "{at}");
            }
            if mode.texts || mode.words {
                assert_eq!(a.nonempty, !text.is_empty(), "{at}");
            }
            if mode.words {
                assert_eq!(out.words_of(a.text_words), hashes(text), "{at}: text words");
                assert_eq!(
                    out.words_of(a.value_words),
                    hashes(value.unwrap_or("")),
                    "{at}: value words"
                );
            }
        }
    }
}

#[test]
fn compiled_page_structures_and_interpreter_agree_on_every_example() {
    let (mut compiled, mut fallback) = (0, 0);
    let mut tally = Tally::default();
    let mut out = PageStructure::default();
    for (name, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        let mut pool = TextPool::for_program(&program);
        let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
        let (c, f) = site.page_stats();
        compiled += c;
        fallback += f;
        eprintln!("{name}: {c} pages compiled, {f} fall back");
        for (p, page) in program.pages.iter().enumerate() {
            match site.page_fallback_reason(p as u32) {
                None => {}
                Some(JitError::Unsupported(w)) => eprintln!("  page `{}`: {w}", page.name),
                Some(other) => panic!("{name}: page `{}`: {other}", page.name),
            }
        }
        for (i, inst) in env::instances(&program).iter().enumerate() {
            let mut env = Env::new(&program, inst, RewardConfig::default()).unwrap();
            let mut twin = Env::new(&program, inst, RewardConfig::default()).unwrap();
            let mut rng = Lcg(7 + i as u64);
            for step in 0..60 {
                if env.done() {
                    env.reset().unwrap();
                }
                let bytes = env.encode_state(&layout, &mut pool).unwrap();
                let what = format!("{name} {} step {step}", inst.name);
                check_state(
                    &site, &layout, &mut twin, &bytes, &mut pool, &mut out, &what, &mut tally,
                );
                let mut odd = bytes.clone();
                perturb(&program, &layout, &mut odd, pool.len(), &mut rng);
                let what = format!("{what} (perturbed)");
                check_state(
                    &site, &layout, &mut twin, &odd, &mut pool, &mut out, &what, &mut tally,
                );
                let actions = env.actions().to_vec();
                if actions.is_empty() {
                    env.reset().unwrap();
                    continue;
                }
                let action = &actions[rng.next(actions.len())];
                env.step(action).unwrap();
            }
        }
    }
    eprintln!(
        "all examples: {compiled} pages compiled, {fallback} fall back; {} states compared ({} elements, {} disabled, {} faulted handles); {} states on fallback pages",
        tally.compared, tally.elements, tally.disabled, tally.faulted_handles, tally.fallback_states
    );
    assert!(compiled > 0);
    assert!(
        tally.compared > 1_000,
        "only {} comparisons",
        tally.compared
    );
}

/// A site whose start page shows an enum value (the first of `variants`),
/// a number and a date, each standing alone in a label.
fn shown_values_site(variants: &str) -> Program {
    let first = variants.split(',').next().unwrap_or_default().trim();
    let text = format!(
        r#"site Weather {{
  title "Weather"
  domain social
  start Home
  today @2026-11-30
}}

enum Mood {{ {variants} }}

table Day {{
  name: Text
  mood: Mood
  rain: Int
  on: Date
}}

seed Day [
  {{ name: "mon", mood: {first}, rain: 3, on: @2026-11-30 }},
]

page Home at "/" {{
  for d in Day {{
    text "{{d.mood}} today"
    text "rain {{d.rain}} on {{d.on}}"
  }}
}}

task look {{
  say "Look at the weather"
  goal page is Home
}}
"#
    );
    let compiled = wsitec::compile_str("weather.wsite", &text);
    let errors: Vec<_> = compiled
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    compiled.program.expect("a program")
}

/// The texts and words of values a page showed are kept across renders,
/// keyed by the value: one structure rendered by two sites whose enums name
/// their variants differently must not show the first site's names on the
/// second.
#[test]
fn a_structure_rendered_by_another_site_shows_that_sites_words() {
    use wsite_runtime::jit::RenderMode;
    use wsite_runtime::words::hashes;
    for mode in [RenderMode::WORDS, RenderMode::ALL] {
        let mut shared = PageStructure::default();
        shared.set_mode(mode);
        // The same variant (the first) of the same enum (the first), named
        // otherwise on the second site; then the first site again.
        for (variants, shown) in [
            ("calm, stormy", "calm today"),
            ("sunny, rainy", "sunny today"),
            ("calm, stormy", "calm today"),
        ] {
            let program = shown_values_site(variants);
            let layout = StateLayout::for_program(&program).unwrap();
            let mut pool = TextPool::for_program(&program);
            let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
            let inst = &env::instances(&program)[0];
            let env = Env::new(&program, inst, RewardConfig::default()).unwrap();
            let bytes = env.encode_state(&layout, &mut pool).unwrap();
            let page = env.navigation().page;
            // Twice on the shared structure (the second finds the values),
            // and once on a fresh one.
            for _ in 0..2 {
                site.render_structure(page, &bytes, &mut pool, &mut shared)
                    .unwrap();
            }
            let mut fresh = PageStructure::default();
            fresh.set_mode(mode);
            site.render_structure(page, &bytes, &mut pool, &mut fresh)
                .unwrap();
            let words = |p: &PageStructure| -> Vec<(String, Vec<u64>)> {
                let text = |e: &ElementInstance| p.text_of(e).to_string();
                let words = |e: &ElementInstance| p.words_of(e.text_words).to_vec();
                p.elements.iter().map(|e| (text(e), words(e))).collect()
            };
            let what = format!("{variants} in {mode:?}");
            assert_eq!(words(&shared), words(&fresh), "{what}");
            assert_eq!(words(&fresh)[0].1, hashes(shown), "{what}");
            if mode.texts {
                assert_eq!(words(&fresh)[0].0, shown, "{what}");
            }
        }
    }
}
