//! Choosing the states of a benchmark (docs/prm.md, "Which states"): for
//! each task instance of a site, every state of one shortest successful
//! episode (the witness prefixes, where a good judge must recognise the way
//! forward) and the end states of random rollouts of random length (off the
//! shortest paths, where it must recognise a way back). Each state is
//! labelled by `label`; states seen twice are labelled once; everything is
//! seeded, so one seed gives the same instances byte for byte.

use super::label::{label, Skip};
use super::text::action_line;
use super::{Instance, Origin};
use crate::env::distance::{DistanceOracle, DEFAULT_ORACLE_BUDGET};
use crate::env::{Env, EnvError, RewardConfig, TaskInstance};
use crate::identity::fingerprint;
use crate::ir::Program;
use crate::prove::{step_of, WitnessStep};
use crate::tasks::Rng;
use std::collections::{BTreeMap, HashSet};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// How states are sampled and labelled.
#[derive(Clone, Copy, Debug)]
pub struct SampleConfig {
    pub seed: u64,
    /// Random rollouts per task instance.
    pub rollouts: usize,
    /// Instances kept per task instance at most (witness states first).
    pub per_task: usize,
    /// Distinct states one oracle query may explore.
    pub oracle_budget: usize,
    /// Negatives whose distance is measured before the hardest are kept.
    pub shortlist: usize,
}

impl Default for SampleConfig {
    fn default() -> SampleConfig {
        SampleConfig {
            seed: 0,
            rollouts: 4,
            per_task: 8,
            oracle_budget: DEFAULT_ORACLE_BUDGET,
            shortlist: 12,
        }
    }
}

/// A site's instances and what sampling them cost.
#[derive(Clone, Debug, Default)]
pub struct SiteSample {
    pub instances: Vec<Instance>,
    /// States that yielded no instance, by reason.
    pub skipped: BTreeMap<Skip, usize>,
    /// Task instances that could not start.
    pub failed: Vec<(String, EnvError)>,
    /// Oracle searches and the states they reached.
    pub searches: usize,
    pub explored: usize,
}

/// Samples and labels states of every task instance in `tasks` (in order).
pub fn sample_site(
    program: &Program,
    site: &str,
    domain: &str,
    tasks: &[TaskInstance],
    c: &SampleConfig,
) -> SiteSample {
    let mut out = SiteSample::default();
    for task in tasks {
        let mut s = TaskSampler {
            program,
            site,
            domain,
            task,
            c,
            oracle: DistanceOracle::new(c.oracle_budget),
            seen: HashSet::new(),
            kept: Vec::new(),
            out: &mut out,
        };
        if let Err(why) = s.run() {
            out.failed.push((task.name.clone(), why));
            continue;
        }
    }
    out
}

/// One task instance's sampling.
struct TaskSampler<'a, 'p> {
    program: &'p Program,
    site: &'a str,
    domain: &'a str,
    task: &'a TaskInstance,
    c: &'a SampleConfig,
    oracle: DistanceOracle,
    /// Fingerprints of the states labelled (or skipped) already.
    seen: HashSet<u128>,
    kept: Vec<Instance>,
    out: &'a mut SiteSample,
}

/// An episode in progress with its history.
struct Walk<'p> {
    env: Env<'p>,
    history: Vec<String>,
    trace: Vec<WitnessStep>,
}

impl<'p> Walk<'p> {
    /// Takes `action`, recording it; `false` once the episode is over.
    fn take(&mut self, action: &crate::env::Action) -> bool {
        self.history.push(action_line(self.env.elements(), action));
        self.trace.push(step_of(&self.env, action));
        match self.env.step(action) {
            Ok(r) => !r.done,
            Err(_) => false,
        }
    }
}

impl<'p> TaskSampler<'_, 'p> {
    fn run(&mut self) -> Result<(), EnvError> {
        let seed = xxh3_64_with_seed(
            format!("{}/{}", self.site, self.task.name).as_bytes(),
            self.c.seed,
        );
        self.witness_walk(seed)?;
        let mut rng = Rng(seed);
        for _ in 0..self.c.rollouts {
            self.random_walk(&mut rng)?;
        }
        let searches = self.oracle.searches();
        let explored = self.oracle.explored();
        self.kept.truncate(self.c.per_task);
        self.out.instances.append(&mut self.kept);
        self.out.searches += searches;
        self.out.explored += explored;
        Ok(())
    }

    fn start(&self) -> Result<Walk<'p>, EnvError> {
        Ok(Walk {
            env: Env::new(self.program, self.task, RewardConfig::default())?,
            history: Vec::new(),
            trace: Vec::new(),
        })
    }

    /// Labels every state of one shortest successful episode.
    fn witness_walk(&mut self, seed: u64) -> Result<(), EnvError> {
        let mut walk = self.start()?;
        loop {
            let next = match self.visit(&walk, Origin::Witness, seed) {
                Some(chosen) => Some(chosen),
                // Unlabelled, but possibly still on the way: follow O(s).
                None => self.oracle.query(&walk.env).optimal.first().cloned(),
            };
            match next {
                Some(action) if walk.take(&action) => {}
                _ => return Ok(()),
            }
        }
    }

    /// Takes between 1 and the horizon's steps of uniformly random
    /// candidates, then labels the state reached.
    fn random_walk(&mut self, rng: &mut Rng) -> Result<(), EnvError> {
        let mut walk = self.start()?;
        let horizon = walk.env.task().horizon.max(1) as usize;
        let length = 1 + rng.below(horizon);
        for _ in 0..length {
            let actions = walk.env.actions();
            if actions.is_empty() {
                return Ok(());
            }
            let pick = actions[rng.below(actions.len())].clone();
            if !walk.take(&pick) {
                return Ok(());
            }
        }
        let seed = rng.next();
        self.visit(&walk, Origin::Random, seed);
        Ok(())
    }

    /// Labels the walk's state once; the chosen action when it yielded an
    /// instance.
    fn visit(&mut self, walk: &Walk<'p>, origin: Origin, seed: u64) -> Option<crate::env::Action> {
        let env = &walk.env;
        let fp = fingerprint(env.state(), true);
        if !self.seen.insert(fp) {
            return None;
        }
        let labelled = match label(env, &mut self.oracle, seed, self.c.shortlist) {
            Ok(l) => l,
            Err(skip) => {
                *self.out.skipped.entry(skip).or_default() += 1;
                return None;
            }
        };
        let chosen = labelled
            .chosen
            .step
            .as_ref()
            .and_then(|step| crate::prove::resolve_step(env, step).ok());
        let observation = env.observation();
        let n = self.kept.len();
        self.kept.push(Instance {
            id: format!("{}/{}@{}#{n}", self.site, self.task.name, env.steps()),
            site: self.site.to_string(),
            domain: self.domain.to_string(),
            task: self.task.name.clone(),
            kind: if env.task().answer.is_some() {
                "retrieval".into()
            } else {
                "operation".into()
            },
            step: env.steps(),
            origin,
            instruction: observation.instruction,
            url: observation.url,
            title: observation.title,
            alert: observation.alert,
            observation: observation.axtree,
            history: walk.history.clone(),
            trace: walk.trace.clone(),
            distance: labelled.distance,
            remaining: env.task().horizon.saturating_sub(env.steps()),
            chosen: labelled.chosen,
            rejected: labelled.rejected,
        });
        chosen
    }
}
