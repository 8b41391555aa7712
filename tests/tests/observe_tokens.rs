//! The JIT's token path against the interpreter's strings, at volume.
//!
//! The JIT batch renders pages in word mode: literal words hashed when the
//! site was compiled, only interpolated values hashed per step, no element
//! text built as a string. The interpreter batch renders strings and
//! tokenizes them. Both write the trainer's buffers; over random play on
//! random sites (`wsite_tests::soundness::generate`), sites of the generated
//! corpus (`wsitec gen`, every domain) and the stdlib's sample sites, every
//! buffer must be equal, byte for byte, after every step.
//!
//! The JIT batches remember the pages they render (`jit/step/memo.rs`) and
//! the rows written from them (`batch/views.rs`), so these comparisons
//! check both memories at volume too; the random sites must take some
//! pages and rows from them.
//!
//! `WSITE_TOKEN_SITES` (default 120) sets how many random sites, and
//! `WSITE_TOKEN_SEED` (default 0) the first one's seed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use wsite_runtime::batch::{BatchEnv, Buffers, ObsSpec};
use wsite_runtime::env::RewardConfig;
use wsite_runtime::ir::Program;
use wsite_runtime::jit::MemoCounts;

/// Environments per batch and steps per site.
const ENVS: usize = 4;
const STEPS: usize = 60;

/// A site's outcome: the instances compared and how often the JIT batch
/// took pages and rows from its memories; `None` when no instance plays on
/// the flat engine.
fn compare(name: &str, program: &Program, spec: ObsSpec, seed: u64) -> Option<(usize, MemoCounts)> {
    use wsite_runtime::jit::{FlatStart, JitSite};
    use wsite_runtime::layout::{StateLayout, TextPool};
    let layout = StateLayout::for_program(program).ok()?;
    let mut pool = TextPool::for_program(program);
    let site = JitSite::compile(program, &layout, &mut pool).ok()?;
    let instances: Vec<_> = wsite_runtime::env::instances(program)
        .into_iter()
        .filter(|inst| FlatStart::new(&site, inst, &mut pool.clone()).is_ok())
        .collect();
    if instances.is_empty() {
        return None;
    }
    let config = RewardConfig::default();
    let mut interp = BatchEnv::new(program, instances.clone(), ENVS, spec, config, seed, 1).ok()?;
    let mut jit = BatchEnv::jit(&site, &instances, ENVS, spec, config, seed, 1, &mut pool)
        .unwrap_or_else(|e| {
            panic!("{name}: the interpreter batch starts, the JIT's does not: {e}")
        });
    assert_same(name, 0, interp.buffers(), jit.buffers());
    let mut rng = seed | 1;
    for step in 1..=STEPS {
        let actions: Vec<u32> = interp
            .buffers()
            .action_count
            .iter()
            .map(|&n| {
                rng = rng
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((rng >> 33) % u64::from(n.max(1))) as u32
            })
            .collect();
        let a = interp.step(&actions);
        let b = jit.step(&actions);
        assert_eq!(a.is_ok(), b.is_ok(), "{name}: step {step}: {a:?} / {b:?}");
        if a.is_err() {
            break;
        }
        assert_same(name, step, interp.buffers(), jit.buffers());
    }
    Some((instances.len(), jit.memo_counts()))
}

fn assert_same(name: &str, step: usize, a: &Buffers, b: &Buffers) {
    if a != b {
        let field = wsite_tests::first_difference(a, b);
        panic!("{name}: step {step}: the buffers differ, first in `{field}`");
    }
}

fn compile(name: &str, text: &str) -> Option<Program> {
    let compiled = wsitec::compile_str(name, text);
    if compiled.diagnostics.iter().any(|d| d.is_error()) {
        return None;
    }
    compiled.program
}

/// A narrow spec, so that cuts (of texts, elements and actions) are
/// exercised as well as the trainer's default.
fn narrow() -> ObsSpec {
    ObsSpec {
        max_elements: 9,
        text_tokens: 2,
        value_tokens: 1,
        max_actions: 11,
        action_tokens: 1,
        context_tokens: 1,
        history_tokens: 3,
        vocab: 97,
        ..ObsSpec::default()
    }
}

#[test]
fn random_sites_write_the_same_tokens_on_both_engines() {
    let count = wsite_tests::env_u64("WSITE_TOKEN_SITES", 120);
    let first = wsite_tests::env_u64("WSITE_TOKEN_SEED", 0);
    let (mut sites, mut instances) = (0, 0);
    let (mut pages, mut rows) = (0, 0);
    for seed in first..first + count {
        let site = wsite_tests::soundness::generate(seed);
        let Some(program) = compile("random.wsite", &site.text) else {
            continue;
        };
        let spec = if seed % 2 == 0 {
            ObsSpec::default()
        } else {
            narrow()
        };
        if let Some((n, memo)) = compare(&format!("random site {seed}"), &program, spec, seed) {
            sites += 1;
            instances += n;
            pages += memo.hits;
            rows += memo.rows;
        }
    }
    eprintln!(
        "{sites} random sites, {instances} instances compared; \
         {pages} pages and {rows} observations' rows taken from memory"
    );
    assert!(pages > 0 && rows > 0, "the memories were never used");
    assert!(
        sites as u64 >= count / 2,
        "only {sites} of {count} sites compared"
    );
}

#[test]
fn corpus_and_stdlib_sites_write_the_same_tokens_on_both_engines() {
    use wsitec::gen::{generate as corpus, DOMAINS};
    let mut compared = 0;
    for (d, domain) in DOMAINS.iter().enumerate() {
        for (i, site) in corpus(domain, 77 + d as u64, 2)
            .unwrap()
            .into_iter()
            .enumerate()
        {
            let name = format!("corpus {domain} #{i}");
            let program =
                compile(&name, &site.text).unwrap_or_else(|| panic!("{name} does not compile"));
            for spec in [ObsSpec::default(), narrow()] {
                compared += usize::from(compare(&name, &program, spec, i as u64 + 3).is_some());
            }
        }
    }
    let samples = wsite_tests::repo_root().join("stdlib/sites");
    let mut paths: Vec<_> = std::fs::read_dir(&samples)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "wsite"))
        .collect();
    paths.sort();
    for path in paths {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let program = compile(&name, &text).unwrap_or_else(|| panic!("{name} does not compile"));
        for spec in [ObsSpec::default(), narrow()] {
            compared += usize::from(compare(&name, &program, spec, 11).is_some());
        }
    }
    eprintln!("{compared} site × spec runs compared");
    assert!(compared >= 20, "only {compared} runs compared");
}
