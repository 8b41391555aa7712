//! The trainer end to end (feature `train`): a short PPO run solves a small
//! site, and the trained policy, sampling its actions with nothing but itself
//! choosing actions, completes its tasks.

#![cfg(feature = "train")]
#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::train::policy::{Policy, PolicyConfig};
use wsite_runtime::train::run::{self, RunConfig, Site};
use wsite_runtime::train::tch::nn;
use wsitec::{compile_str_with, Options};

fn site(path: &str) -> Site {
    let text =
        std::fs::read_to_string(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let c = compile_str_with(
        path,
        &text,
        Options {
            prove: Some(Default::default()),
            only_task: None,
            skip_sweep: true,
        },
    );
    let program = c.program.clone().unwrap();
    let instances = c.proven_instances();
    Site {
        name: path.into(),
        domain: program.site.domain.clone(),
        program,
        instances,
    }
}

#[test]
fn a_short_run_solves_a_small_site() {
    let sites = vec![site("stdlib/sites/search.wsite")];
    let vs = nn::VarStore::new(nn::VarStore::new(wsite_runtime::train::tch::Device::Cpu).device());
    let policy = Policy::new(&vs.root(), PolicyConfig::default());
    let config = RunConfig {
        seed: 3,
        ..RunConfig::default()
    };
    let compiled = run::compile(&sites).unwrap();
    let before = run::evaluate(&compiled, &policy, &[0], true, &config).unwrap();
    let mut last = Vec::new();
    run::train(&compiled, &vs, &policy, 20_000, &config, &mut |m| {
        last.push(m.success_rate);
        true
    })
    .unwrap();
    assert!(last.len() >= 19, "{} updates", last.len());
    let after = run::evaluate(&compiled, &policy, &[0, 1, 2], false, &config).unwrap();
    let rate = |r: &[run::SiteResult]| {
        r.iter().map(|s| s.successes).sum::<usize>() as f64
            / r.iter().map(|s| s.episodes).sum::<usize>().max(1) as f64
    };
    assert!(
        rate(&after) >= 0.95,
        "after training: {after:?} (training: {last:?})"
    );
    assert!(
        rate(&after) > rate(&before),
        "before {before:?}, after {after:?}"
    );
}
