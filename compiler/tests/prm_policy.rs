//! The policy as a process-reward judge and reward-guided search (feature
//! `train`; docs/prm-prmpolicy.md): the policy and value judges rebuild a
//! query's state exactly and score every candidate finitely and
//! deterministically, and best-of-N search with an exact judge succeeds at
//! least as often as the policy alone, while best-of-1 is the policy alone.

#![cfg(feature = "train")]
#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, OnceLock};
use wsite_runtime::env::{ActionKind, Env, RewardConfig};
use wsite_runtime::ir::Program;
use wsite_runtime::prm::judge::{blind_order, Choice, Judge, JudgeError, Query};
use wsite_runtime::prm::label::after;
use wsite_runtime::prm::sample::{sample_site, SampleConfig};
use wsite_runtime::prm::{replay_trace, task_instance, After, Instance};
use wsite_runtime::prove::{resolve_step, DistanceOracle};
use wsite_runtime::train::policy::{Policy, PolicyConfig};
use wsite_runtime::train::prm::{replay, PolicyJudge, Reading, UNSCORED};
use wsite_runtime::train::run::{self, RunConfig, Site};
use wsite_runtime::train::search::evaluate_search;
use wsite_runtime::train::tch::{self, nn, Device};
use wsitec::{compile_str_with, Options};

/// The site in `file` (relative to the repository), named by its file stem
/// as `prm export` names sites, with its proven task instances.
fn site(file: &str) -> Site {
    let path = format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"));
    let stem = std::path::Path::new(file)
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let c = compile_str_with(
        &path,
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
        name: stem.into(),
        domain: program.site.domain.clone(),
        program,
        instances,
    }
}

/// The site the judges are tested on: enough states with four rejected
/// candidates, some of them one step from success.
const JUDGED: &str = "examples/education/northfield_registration.wsite";

/// Torch's generator is one per process and the tests run on threads:
/// each test holds this while it seeds and samples.
static TORCH: Mutex<()> = Mutex::new(());

fn torch() -> MutexGuard<'static, ()> {
    TORCH.lock().unwrap_or_else(|e| e.into_inner())
}

/// The judged site and its instances, proven and sampled once for all
/// the tests.
fn judged() -> &'static (Site, Vec<Instance>) {
    static JUDGED_SITE: OnceLock<(Site, Vec<Instance>)> = OnceLock::new();
    JUDGED_SITE.get_or_init(|| {
        let s = site(JUDGED);
        let all = instances(&s);
        (s, all)
    })
}

/// Labelled instances of the site's proven tasks.
fn instances(s: &Site) -> Vec<Instance> {
    let c = SampleConfig {
        rollouts: 2,
        per_task: 4,
        ..SampleConfig::default()
    };
    let out = sample_site(&s.program, &s.name, &s.domain, &s.instances, &c).instances;
    assert!(out.len() >= 3, "{} instances", out.len());
    out
}

/// An untrained policy with the default configuration, the same weights
/// for the same seed.
fn untrained(seed: i64) -> (nn::VarStore, Policy) {
    tch::manual_seed(seed);
    let vs = nn::VarStore::new(Device::Cpu);
    let policy = Policy::new(&vs.root(), PolicyConfig::default());
    (vs, policy)
}

fn programs(s: &Site) -> BTreeMap<String, Program> {
    BTreeMap::from([(s.name.clone(), s.program.clone())])
}

fn query(i: &Instance) -> Query {
    Query::of_instance(i, &blind_order(i, 0))
}

#[test]
fn a_replayed_trace_reaches_the_instances_page() {
    let _torch = torch();
    let (s, all) = judged();
    for i in all {
        let batch = replay(&s.program, &i.task, &i.trace, RunConfig::default().spec).unwrap();
        let env = batch.env(0).unwrap();
        let o = env.observation();
        assert_eq!(
            (o.url, o.axtree),
            (i.url.clone(), i.observation.clone()),
            "{}",
            i.id
        );
        assert_eq!(env.steps(), i.step, "{}", i.id);
    }
}

#[test]
fn policy_and_value_judges_score_every_candidate_finitely_and_deterministically() {
    let _torch = torch();
    let (s, all) = judged();
    let programs = programs(s);
    for reading in [Reading::Policy, Reading::Value] {
        let (vs, policy) = untrained(1);
        let mut judge = PolicyJudge::new(&programs, vs, policy, reading, RunConfig::default().spec);
        for i in all {
            let q = query(i);
            let a = judge.score(&q).unwrap();
            assert_eq!(a.len(), q.candidates.len(), "{}", i.id);
            assert!(a.iter().all(|x| x.is_finite()), "{}: {a:?}", i.id);
            assert_eq!(judge.score(&q).unwrap(), a, "{}", i.id);
            if reading == Reading::Policy {
                // Log-probabilities of distinct rows: at most 1 in all.
                let p: f64 = a.iter().filter(|&&x| x > UNSCORED).map(|x| x.exp()).sum();
                assert!(p <= 1.0 + 1e-6, "{}: {a:?}", i.id);
            }
        }
        assert_eq!(judge.unscored(), 0);
    }
}

#[test]
fn the_value_judge_does_not_read_an_ending_steps_outcome() {
    let _torch = torch();
    let (s, all) = judged();
    let programs = programs(s);
    let (vs, policy) = untrained(2);
    let mut judge = PolicyJudge::new(
        &programs,
        vs,
        policy,
        Reading::Value,
        RunConfig::default().spec,
    );
    // A right answer (the chosen one, d = 1) beside a wrong one: both end
    // the episode, so the value head has no next state to tell them apart.
    let mut pairs = 0;
    for i in all
        .iter()
        .filter(|i| i.chosen.distance_after == After::Steps(0))
    {
        let order: Vec<usize> = (0..=i.rejected.len()).collect();
        let scores = judge.score(&Query::of_instance(i, &order)).unwrap();
        for (k, r) in i.rejected.iter().enumerate() {
            let wrong_answer = r
                .step
                .as_ref()
                .is_some_and(|s| s.kind == ActionKind::Answer);
            if wrong_answer
                && i.chosen
                    .step
                    .as_ref()
                    .is_some_and(|s| s.kind == ActionKind::Answer)
            {
                assert_eq!(scores[0], scores[k + 1], "{}: {}", i.id, r.action);
                pairs += 1;
            }
        }
    }
    assert!(pairs > 0, "no right and wrong answer side by side");
}

#[test]
fn queries_the_policy_cannot_replay_are_refused_and_keyless_candidates_scored_lowest() {
    let _torch = torch();
    let (s, all) = judged();
    let programs = programs(s);
    let (vs, policy) = untrained(3);
    let mut judge = PolicyJudge::new(
        &programs,
        vs,
        policy,
        Reading::Policy,
        RunConfig::default().spec,
    );
    let i = &all[0];
    let mut stale = query(i);
    stale.url.push_str("/elsewhere");
    assert!(matches!(
        judge.score(&stale),
        Err(JudgeError::Unsupported(_))
    ));
    let mut foreign = query(i);
    foreign.site = "no_such_site".into();
    assert!(matches!(
        judge.score(&foreign),
        Err(JudgeError::Unsupported(_))
    ));
    let mut keyless = query(i);
    keyless.candidates.push(Choice {
        action: "click [999] link \"Nowhere\"".into(),
        step: None,
    });
    let scores = judge.score(&keyless).unwrap();
    assert_eq!(scores.last(), Some(&UNSCORED));
    assert!(scores[..scores.len() - 1].iter().all(|&x| x > UNSCORED));
    assert_eq!(judge.unscored(), 1);
}

/// An exact judge for tests: minus the true distance after each candidate.
struct Exact<'a> {
    programs: &'a BTreeMap<String, Program>,
    oracles: BTreeMap<String, DistanceOracle>,
    asked: usize,
}

impl Judge for Exact<'_> {
    fn name(&self) -> &str {
        "exact"
    }

    fn score(&mut self, q: &Query) -> Result<Vec<f64>, JudgeError> {
        self.asked += 1;
        let program = &self.programs[&q.site];
        let task = task_instance(program, &q.task).unwrap();
        let mut env = Env::new(program, &task, RewardConfig::default()).unwrap();
        replay_trace(&mut env, &q.trace).unwrap();
        assert_eq!(env.observation().url, q.url);
        let oracle = self
            .oracles
            .entry(q.task.clone())
            .or_insert_with(|| DistanceOracle::new(wsite_runtime::prove::DEFAULT_ORACLE_BUDGET));
        let mut scores = Vec::new();
        for c in &q.candidates {
            let action = resolve_step(&env, c.step.as_ref().unwrap()).unwrap();
            scores.push(match after(&env, oracle, &action) {
                After::Steps(n) => -f64::from(n),
                After::Unknown => -1e6,
                After::Unreachable => -1e9,
            });
        }
        Ok(scores)
    }
}

#[test]
fn search_with_an_exact_judge_beats_or_equals_the_policy_and_best_of_one_is_the_policy() {
    let _torch = torch();
    let sites = vec![site("stdlib/sites/search.wsite")];
    let programs = programs(&sites[0]);
    let (_vs, policy) = untrained(4);
    let config = RunConfig::default();
    let compiled = run::compile(&sites).unwrap();
    let seeds = [0, 1, 2];
    let plain = run::evaluate(&compiled, &policy, &seeds, false, &config).unwrap();
    let mut exact = Exact {
        programs: &programs,
        oracles: BTreeMap::new(),
        asked: 0,
    };
    let one = evaluate_search(&compiled, &policy, &seeds, 1, &mut exact, &config).unwrap();
    assert_eq!(exact.asked, 0);
    assert_eq!(one.counts.asked, 0);
    let key = |r: &[run::SiteResult]| {
        r.iter()
            .map(|s| (s.site.clone(), s.episodes, s.successes, s.metrics))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&one.sites), key(&plain));
    let four = evaluate_search(&compiled, &policy, &seeds, 4, &mut exact, &config).unwrap();
    let wins = |r: &[run::SiteResult]| r.iter().map(|s| s.successes).sum::<usize>();
    assert!(four.counts.asked > 0 && exact.asked == four.counts.asked);
    assert_eq!(four.counts.judge_errors, 0);
    assert!(
        wins(&four.sites) >= wins(&plain),
        "search {} < plain {} ({:?})",
        wins(&four.sites),
        wins(&plain),
        four.counts
    );
    // Runs are reproducible: the same seeds, the same search.
    let again = evaluate_search(&compiled, &policy, &seeds, 4, &mut exact, &config).unwrap();
    assert_eq!(key(&again.sites), key(&four.sites));
    assert_eq!(again.counts, four.counts);
}
