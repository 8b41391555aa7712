//! The trainer end to end (feature `train`): a short PPO run solves a small
//! site. The trained policy, with nothing but itself choosing actions,
//! completes its tasks taking its most likely action, and mostly completes
//! them sampling.

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
    // One intra-op thread: with more, the math library may use fewer
    // threads when the machine is busy, which changes the order of float
    // sums and so the run; the test must see the same run every time.
    wsite_runtime::train::tch::set_num_threads(1);
    let sites = vec![site("stdlib/sites/search.wsite")];
    let vs = nn::VarStore::new(nn::VarStore::new(wsite_runtime::train::tch::Device::Cpu).device());
    let policy = Policy::initialised(&vs, PolicyConfig::default()).unwrap();
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
    let rate = |r: &[run::SiteResult]| {
        r.iter().map(|s| s.successes).sum::<usize>() as f64
            / r.iter().map(|s| s.episodes).sum::<usize>().max(1) as f64
    };
    // The policy's own first choices must solve the site. Sampled episodes
    // are held to a lower bar: a machine whose float kernels differ trains
    // a slightly different policy, and one unlucky draw among a dozen
    // episodes is not a failure to learn (CI saw 11 of 12 once; over
    // twelve training seeds here, sampling solved 51 to 60 of 60 and the
    // greedy policy 12 of 12 every time).
    let greedy = run::evaluate(&compiled, &policy, &[0, 1, 2], true, &config).unwrap();
    assert!(
        rate(&greedy) >= 0.95,
        "greedy after training: {greedy:?} (training: {last:?})"
    );
    let seeds: Vec<u64> = (0..15).collect();
    let sampled = run::evaluate(&compiled, &policy, &seeds, false, &config).unwrap();
    assert!(
        rate(&sampled) >= 0.75,
        "sampling after training: {sampled:?} (training: {last:?})"
    );
    assert!(
        rate(&greedy) > rate(&before),
        "before {before:?}, after {greedy:?}"
    );
}

fn wsitec(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_wsitec"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("the wsitec binary runs")
}

fn metric_lines(dir: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_cli_trains_resumes_from_its_checkpoint_and_evaluates() {
    let dir = std::env::temp_dir().join(format!("wsite-train-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let site = "stdlib/sites/search.wsite";
    let first = wsitec(&["train", site, "--steps", "2000", "-o", out, "--no-eval"]);
    assert!(first.status.success(), "{first:?}");
    for file in [
        "config.json",
        "metrics.jsonl",
        "policy.safetensors",
        "optimizer.safetensors",
        "progress.json",
        "curve.png",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    let progress: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("progress.json")).unwrap()).unwrap();
    assert_eq!(progress["env_steps"], 2048);
    // A line written after the checkpoint (a run killed between
    // checkpoints) is dropped on resume rather than repeated.
    let mut stale = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    stale.push_str("{\"update\":3,\"env_steps\":3072}\n");
    std::fs::write(dir.join("metrics.jsonl"), stale).unwrap();
    let resumed = wsitec(&[
        "train",
        site,
        "--steps",
        "4000",
        "-o",
        out,
        "--no-eval",
        "--resume",
    ]);
    assert!(resumed.status.success(), "{resumed:?}");
    let lines = metric_lines(&dir);
    let steps: Vec<u64> = lines
        .iter()
        .map(|l| l["env_steps"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [1024, 2048, 3072, 4096]);
    let updates: Vec<u64> = lines
        .iter()
        .map(|l| l["update"].as_u64().unwrap())
        .collect();
    assert_eq!(updates, [1, 2, 3, 4]);

    let eval = wsitec(&[
        "eval",
        &format!("{out}/policy.safetensors"),
        site,
        "--seeds",
        "2",
        "--format",
        "json",
    ]);
    assert!(eval.status.success(), "{eval:?}");
    let report: serde_json::Value = serde_json::from_slice(&eval.stdout).unwrap();
    let overall = &report["overall"];
    let rate = overall["success_rate"].as_f64().unwrap();
    let ci = overall["ci95"].as_array().unwrap();
    assert!(
        ci[0].as_f64().unwrap() <= rate && rate <= ci[1].as_f64().unwrap(),
        "{report}"
    );
    assert!(overall["episodes"].as_u64().unwrap() > 0, "{report}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_broken_checkpoint_is_refused_and_the_run_left_as_it_was() {
    let dir = std::env::temp_dir().join(format!("wsite-train-broken-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let site = "stdlib/sites/search.wsite";
    let missing = wsitec(&["train", site, "--steps", "1000", "-o", out, "--resume"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("cannot resume"),
        "{missing:?}"
    );
    let first = wsitec(&["train", site, "--steps", "1000", "-o", out, "--no-eval"]);
    assert!(first.status.success(), "{first:?}");
    std::fs::write(dir.join("optimizer.safetensors"), "not a tensor file").unwrap();
    let before = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    let broken = wsitec(&["train", site, "--steps", "3000", "-o", out, "--resume"]);
    assert_eq!(broken.status.code(), Some(1));
    let err = String::from_utf8_lossy(&broken.stderr);
    assert!(err.contains("optimizer.safetensors"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap(),
        before
    );
    let cuda = wsitec(&[
        "eval",
        &format!("{out}/policy.safetensors"),
        site,
        "--device",
        "gpu",
    ]);
    assert_eq!(cuda.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&cuda.stderr).contains("unknown device"),
        "{cuda:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
