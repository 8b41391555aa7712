//! Training and evaluation runs: sites compiled once (JIT), batched
//! environments per site, rollouts sampled from the policy, PPO updates, and
//! greedy or sampled evaluation episodes.
//!
//! Nothing here reads the clock or touches a file: the caller (the CLI) times
//! updates, writes metrics and checkpoints through the callback, and owns the
//! variable store.

use super::adam::Adam;
use super::error::RunError;
use super::gae;
use super::obs::{Obs, ObsStore};
use super::policy::Policy;
use super::ppo::PpoConfig;
use super::profile::{NoClock, Phase, Stopwatch};
use super::update::{self, Batch, UpdateMetrics};
use crate::batch::{
    BatchEnv, BatchError, EpisodeRecord, FlatEngine, InterpEngine, ObsSpec, StepCounts, Tally,
};
use crate::env::{RewardConfig, RewardMode, TaskInstance};
use crate::ir::Program;
use crate::jit::JitSite;
use crate::layout::{StateLayout, TextPool};
use tch::nn;
use tch::{Device, Kind, Tensor};

/// A site to train or evaluate on, with the task instances to use (for a
/// verified site, the proven ones).
pub struct Site {
    pub name: String,
    pub domain: String,
    pub program: Program,
    pub instances: Vec<TaskInstance>,
}

/// A site compiled for the batched JIT environments.
pub struct Compiled<'p> {
    site: &'p Site,
    jit: JitSite,
    pool: TextPool,
}

/// Compiles every site once, for [`train`] and [`evaluate`]; a site the JIT
/// cannot take is an `Err` naming it.
pub fn compile(sites: &[Site]) -> Result<Vec<Compiled<'_>>, RunError> {
    use rayon::prelude::*;
    // On every core: a large corpus is hundreds of sites to compile.
    sites
        .par_iter()
        .map(|site| {
            let layout =
                StateLayout::for_program(&site.program).map_err(|error| RunError::Layout {
                    site: site.name.clone(),
                    error,
                })?;
            let mut pool = TextPool::for_program(&site.program);
            let jit = JitSite::compile(&site.program, &layout, &mut pool).map_err(|error| {
                RunError::Compile {
                    site: site.name.clone(),
                    error,
                }
            })?;
            Ok(Compiled { site, jit, pool })
        })
        .collect()
}

/// How a run is shaped.
#[derive(Clone, Copy, Debug)]
pub struct RunConfig {
    /// Environments in all (at least one per site).
    pub envs: usize,
    /// Steps per environment between updates.
    pub rollout: usize,
    pub spec: ObsSpec,
    pub reward: RewardConfig,
    pub ppo: PpoConfig,
    pub seed: u64,
    pub device: Device,
    /// Evaluate on the interpreter with the distance oracle judging every
    /// step (step accuracy, answer F1); off, evaluation runs on the flat
    /// engine and reports success alone (what training's quick before and
    /// after rates need).
    pub judge: bool,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig {
            envs: 32,
            rollout: 32,
            spec: ObsSpec::default(),
            reward: RewardConfig::default(),
            ppo: PpoConfig::default(),
            seed: 0,
            device: Device::Cpu,
            judge: true,
        }
    }
}

/// One site's batch: on the JIT's flat engine, or, for the decomposed
/// reward (whose oracle searches exact `Env` states) and for judged
/// evaluation, on the interpreter. Both write the same buffers.
pub(super) enum SiteBatch<'s> {
    Flat(BatchEnv<FlatEngine<'s>>),
    Interp(BatchEnv<InterpEngine<'s>>),
}

impl<'s> SiteBatch<'s> {
    /// `n` environments of `instances` of site `s`, on the engine `c.reward`
    /// needs (the interpreter, judging every step, when `judged`).
    fn new(
        s: &'s Compiled<'_>,
        instances: &[TaskInstance],
        n: usize,
        c: &RunConfig,
        seed: u64,
        judged: bool,
    ) -> Result<SiteBatch<'s>, BatchError> {
        if judged || c.reward.mode == RewardMode::Decomposed {
            let mut batch = BatchEnv::new(
                &s.site.program,
                instances.to_vec(),
                n,
                c.spec,
                c.reward,
                seed,
                1,
            )?;
            batch.judge_steps();
            return Ok(SiteBatch::Interp(batch));
        }
        let mut pool = s.pool.clone();
        let batch = BatchEnv::jit(&s.jit, instances, n, c.spec, c.reward, seed, 1, &mut pool)?;
        Ok(SiteBatch::Flat(batch))
    }

    fn len(&self) -> usize {
        match self {
            SiteBatch::Flat(b) => b.len(),
            SiteBatch::Interp(b) => b.len(),
        }
    }

    pub(super) fn buffers(&self) -> &crate::batch::Buffers {
        match self {
            SiteBatch::Flat(b) => b.buffers(),
            SiteBatch::Interp(b) => b.buffers(),
        }
    }

    fn step(&mut self, actions: &[u32]) -> Result<(), BatchError> {
        match self {
            SiteBatch::Flat(b) => b.step(actions),
            SiteBatch::Interp(b) => b.step(actions),
        }
    }

    /// The interpreter batch (judged evaluation runs on it).
    pub(super) fn interp(&self) -> Option<&BatchEnv<InterpEngine<'s>>> {
        match self {
            SiteBatch::Flat(_) => None,
            SiteBatch::Interp(b) => Some(b),
        }
    }
}

/// The environments of a run: one batch per site.
struct Worlds<'s> {
    batches: Vec<SiteBatch<'s>>,
}

impl<'s> Worlds<'s> {
    fn new(compiled: &'s [Compiled<'_>], c: &RunConfig) -> Result<Worlds<'s>, RunError> {
        let per_site = c.envs.div_ceil(compiled.len().max(1)).max(1);
        let mut batches = Vec::new();
        for (k, s) in compiled.iter().enumerate() {
            if s.site.instances.is_empty() {
                continue;
            }
            let seed = c.seed.wrapping_add(k as u64 * 7919);
            batches.push(SiteBatch::new(
                s,
                &s.site.instances,
                per_site,
                c,
                seed,
                false,
            )?);
        }
        if batches.is_empty() {
            return Err(RunError::NoInstances);
        }
        Ok(Worlds { batches })
    }

    fn len(&self) -> usize {
        self.batches.iter().map(SiteBatch::len).sum()
    }

    /// Adds the judgements of the step just taken to `counts`.
    fn count_judged(&self, counts: &mut StepCounts) {
        for b in &self.batches {
            for &r in &b.buffers().r_acc {
                counts.note(r);
            }
        }
    }

    fn observe(&self, store: &mut ObsStore) {
        for b in &self.batches {
            store.push(b.buffers());
        }
    }

    /// Steps every environment; returns (reward, done, success, episode
    /// return) per environment.
    fn step(&mut self, actions: &[i64]) -> Result<Vec<(f32, bool, bool, f32)>, BatchError> {
        let mut out = Vec::with_capacity(actions.len());
        let mut at = 0;
        for b in &mut self.batches {
            let n = b.len();
            let rows: Vec<u32> = actions[at..at + n]
                .iter()
                .map(|&a| u32::try_from(a).unwrap_or(0))
                .collect();
            b.step(&rows)?;
            let buf = b.buffers();
            for i in 0..n {
                out.push((
                    buf.reward[i],
                    buf.done[i] != 0,
                    buf.success[i] != 0,
                    buf.episode_return[i],
                ));
            }
            at += n;
        }
        Ok(out)
    }
}

/// Samples an action per row (or takes the most likely, when `greedy`);
/// returns the actions and their log-probabilities.
fn act(policy: &Policy, obs: &Obs, greedy: bool) -> (Tensor, Tensor, Tensor) {
    let (logits, values) = policy.forward(obs);
    let log_p = logits.log_softmax(-1, Kind::Float);
    let actions = if greedy {
        logits.argmax(-1, false)
    } else {
        log_p.exp().multinomial(1, true).squeeze_dim(-1)
    };
    let taken = log_p.gather(1, &actions.unsqueeze(1), false).squeeze_dim(1);
    (actions, taken, values)
}

pub(super) fn to_vec_f32(t: &Tensor) -> Vec<f32> {
    let t = t.to_device(Device::Cpu).to_kind(Kind::Float);
    let n = t.numel();
    let mut v = vec![0f32; n];
    t.copy_data(&mut v, n);
    v
}

pub(super) fn to_vec_i64(t: &Tensor) -> Vec<i64> {
    let t = t.to_device(Device::Cpu).to_kind(Kind::Int64);
    let n = t.numel();
    let mut v = vec![0i64; n];
    t.copy_data(&mut v, n);
    v
}

/// How far a run has come: what a checkpoint records besides the weights
/// and the optimizer, so a resumed run continues its step count, update
/// numbering and learning-rate schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    pub env_steps: u64,
    pub updates: usize,
}

/// A training run in progress. The caller drives it one update at a time,
/// so that it can time, log and checkpoint between updates.
pub struct Trainer<'s, 'p> {
    worlds: Worlds<'s>,
    policy: &'p Policy,
    opt: Adam,
    config: RunConfig,
    progress: Progress,
    total: u64,
}

impl<'s, 'p> Trainer<'s, 'p> {
    /// A run of `policy` (optimised by `opt`, whose variables are the
    /// policy's) that has done `from` and stops after `total` env steps.
    pub fn new(
        compiled: &'s [Compiled<'_>],
        policy: &'p Policy,
        opt: Adam,
        c: &RunConfig,
        from: Progress,
        total: u64,
    ) -> Result<Trainer<'s, 'p>, RunError> {
        // A resumed run draws fresh episodes and samples, not a replay of
        // the ones its first part began with.
        let seed = c.seed.wrapping_add(from.env_steps);
        tch::manual_seed(seed as i64);
        let config = RunConfig { seed, ..*c };
        Ok(Trainer {
            worlds: Worlds::new(compiled, &config)?,
            policy,
            opt,
            config: *c,
            progress: from,
            total,
        })
    }

    pub fn progress(&self) -> Progress {
        self.progress
    }

    pub fn finished(&self) -> bool {
        self.progress.env_steps >= self.total
    }

    pub fn optimizer(&self) -> &Adam {
        &self.opt
    }

    /// One rollout from every environment, then one PPO update.
    pub fn update(&mut self) -> Result<UpdateMetrics, RunError> {
        self.update_timed(&mut NoClock)
    }

    /// [`Trainer::update`], marking the end of each phase on `watch`.
    pub fn update_timed(&mut self, watch: &mut dyn Stopwatch) -> Result<UpdateMetrics, RunError> {
        let c = self.config;
        let rollout = self.rollout(watch)?;
        self.progress.env_steps += (self.worlds.len() * c.rollout) as u64;
        // The learning rate falls linearly over the run (to a tenth), so the
        // policy settles instead of drifting at the end.
        let left = 1.0 - self.progress.env_steps as f64 / self.total.max(1) as f64;
        self.opt.learning_rate = c.ppo.learning_rate * left.max(0.1);
        let batch = Batch {
            store: &rollout.store,
            actions: &rollout.actions,
            log_probs: &rollout.log_probs,
            values: &rollout.values,
            advantages: &rollout.estimates.advantages,
            returns: &rollout.estimates.returns,
        };
        let mut m = update::optimise(self.policy, &mut self.opt, &batch, &c.ppo, c.device, watch)?;
        self.progress.updates += 1;
        m.update = self.progress.updates;
        m.env_steps = self.progress.env_steps;
        m.episodes = rollout.finished.len();
        let j = rollout.judged;
        m.step_accuracy = j.accuracy();
        m.unknown_steps = j.unknown;
        if !rollout.finished.is_empty() {
            let k = rollout.finished.len() as f64;
            m.mean_return = rollout.finished.iter().map(|f| f64::from(f.0)).sum::<f64>() / k;
            m.success_rate = rollout.finished.iter().filter(|f| f.1).count() as f64 / k;
        }
        Ok(m)
    }

    /// `rollout` steps of every environment with the policy sampling.
    fn rollout(&mut self, watch: &mut dyn Stopwatch) -> Result<Rollout, BatchError> {
        let c = &self.config;
        let mut r = Rollout {
            store: ObsStore::new(c.spec),
            actions: Vec::new(),
            log_probs: Vec::new(),
            values: Vec::new(),
            estimates: gae::Estimates::default(),
            finished: Vec::new(),
            judged: StepCounts::default(),
        };
        let (mut rewards, mut dones) = (Vec::new(), Vec::new());
        for _ in 0..c.rollout {
            let mut now = ObsStore::new(c.spec);
            self.worlds.observe(&mut now);
            watch.lap(Phase::Observe);
            let obs = now.to_device(c.device);
            watch.lap(Phase::Upload);
            let (a, lp, v) = tch::no_grad(|| act(self.policy, &obs, false));
            let a = to_vec_i64(&a);
            r.log_probs.extend(to_vec_f32(&lp));
            r.values.extend(to_vec_f32(&v));
            watch.lap(Phase::RolloutForward);
            r.store.append(&now);
            watch.lap(Phase::Observe);
            for (reward, done, success, ret) in self.worlds.step(&a)? {
                rewards.push(reward);
                dones.push(done);
                if done {
                    r.finished.push((ret, success));
                }
            }
            self.worlds.count_judged(&mut r.judged);
            r.actions.extend(a);
            watch.lap(Phase::EnvStep);
        }
        let mut last = ObsStore::new(c.spec);
        self.worlds.observe(&mut last);
        let last_values = to_vec_f32(&tch::no_grad(|| {
            self.policy.forward(&last.to_device(c.device)).1
        }));
        watch.lap(Phase::RolloutForward);
        r.estimates = gae::estimate(
            &rewards,
            &r.values,
            &dones,
            &last_values,
            c.ppo.gamma,
            c.ppo.lambda,
        );
        watch.lap(Phase::Advantages);
        Ok(r)
    }
}

/// What one rollout collected.
struct Rollout {
    store: ObsStore,
    actions: Vec<i64>,
    log_probs: Vec<f32>,
    /// The values when each row was observed.
    values: Vec<f32>,
    estimates: gae::Estimates,
    /// (return, success) of every episode that ended.
    finished: Vec<(f32, bool)>,
    judged: StepCounts,
}

/// Trains `policy` (whose variables live in `vs`) from scratch for at least
/// `steps` environment steps; `on_update` sees each update's metrics and may
/// stop the run by returning `false`.
pub fn train(
    compiled: &[Compiled<'_>],
    vs: &nn::VarStore,
    policy: &Policy,
    steps: u64,
    c: &RunConfig,
    on_update: &mut dyn FnMut(&UpdateMetrics) -> bool,
) -> Result<(), RunError> {
    let opt = Adam::new(vs, c.ppo.learning_rate);
    let mut trainer = Trainer::new(compiled, policy, opt, c, Progress::default(), steps)?;
    while !trainer.finished() {
        if !on_update(&trainer.update()?) {
            break;
        }
    }
    Ok(())
}

/// One site's evaluation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SiteResult {
    pub site: String,
    pub domain: String,
    pub episodes: usize,
    pub successes: usize,
    /// WebFactory's metrics (TCR, step accuracy, answer F1).
    pub metrics: Tally,
}

/// Episodes played side by side in one evaluation step: enough to batch
/// the policy's forward pass, few enough to bound the buffers held at once.
const EVAL_BATCH: usize = 256;

/// Plays every task instance of every site once per seed, sampling from the
/// policy or, when `greedy`, taking its most likely action. Only the policy
/// picks actions. Episodes run side by side (one environment each) so the
/// policy sees them as one batch; each on the interpreter, whose distance
/// oracle judges every step (step accuracy, answer F1) whatever the reward.
pub fn evaluate(
    compiled: &[Compiled<'_>],
    policy: &Policy,
    seeds: &[u64],
    greedy: bool,
    c: &RunConfig,
) -> Result<Vec<SiteResult>, RunError> {
    evaluate_with(compiled, seeds, c, &mut |games| {
        play(games, policy, greedy, c)
    })
}

/// [`evaluate`]'s episodes, each chunk of games played to its end by
/// `play` (the policy alone, or a search around it).
pub(super) fn evaluate_with(
    compiled: &[Compiled<'_>],
    seeds: &[u64],
    c: &RunConfig,
    play: &mut dyn FnMut(&mut [Game<'_>]) -> Result<(), RunError>,
) -> Result<Vec<SiteResult>, RunError> {
    let mut results: Vec<SiteResult> = compiled
        .iter()
        .map(|s| SiteResult {
            site: s.site.name.clone(),
            domain: s.site.domain.clone(),
            episodes: 0,
            successes: 0,
            metrics: Tally::default(),
        })
        .collect();
    let episodes: Vec<(usize, usize)> = compiled
        .iter()
        .enumerate()
        .flat_map(|(s, site)| (0..site.site.instances.len()).map(move |k| (s, k)))
        .collect();
    for &seed in seeds {
        tch::manual_seed(seed as i64);
        for chunk in episodes.chunks(EVAL_BATCH) {
            let mut games = chunk
                .iter()
                .map(|&(s, k)| Game::new(&compiled[s], k, seed, c))
                .collect::<Result<Vec<_>, BatchError>>()?;
            play(&mut games)?;
            for (g, &(s, _)) in games.iter().zip(chunk) {
                let r = &mut results[s];
                r.episodes += 1;
                r.successes += usize::from(g.record.success());
                r.metrics = r.metrics.plus(&g.record.tally());
            }
        }
    }
    Ok(results)
}

/// One evaluation episode: a task instance in an environment of its own.
pub(super) struct Game<'s> {
    pub(super) batch: SiteBatch<'s>,
    horizon: u32,
    steps: u32,
    pub(super) over: bool,
    record: EpisodeRecord,
    /// Names for queries about the game's state (search).
    pub(super) site: &'s Site,
    pub(super) task: &'s TaskInstance,
}

impl<'s> Game<'s> {
    fn new(
        s: &'s Compiled<'_>,
        k: usize,
        seed: u64,
        c: &RunConfig,
    ) -> Result<Game<'s>, BatchError> {
        let inst = &s.site.instances[k];
        let batch = SiteBatch::new(
            s,
            std::slice::from_ref(inst),
            1,
            c,
            seed.wrapping_add(k as u64),
            c.judge,
        )?;
        let task = &s.site.program.tasks[inst.task];
        Ok(Game {
            batch,
            horizon: task.horizon.max(1),
            steps: 0,
            over: false,
            record: EpisodeRecord::new(task.answer.is_some()),
            site: s.site,
            task: inst,
        })
    }

    /// Takes action-table row `row` and records what the step was judged.
    pub(super) fn step(&mut self, row: u32) -> Result<(), BatchError> {
        self.batch.step(&[row])?;
        self.steps += 1;
        let b = self.batch.buffers();
        self.record.note(b, 0);
        self.over = b.done[0] != 0 || self.steps >= self.horizon;
        Ok(())
    }
}

/// The games still running, and their observations in that order.
pub(super) fn live_observations(games: &[Game<'_>], spec: ObsSpec) -> (Vec<usize>, ObsStore) {
    let live: Vec<usize> = (0..games.len()).filter(|&i| !games[i].over).collect();
    let mut now = ObsStore::new(spec);
    for &i in &live {
        now.push(games[i].batch.buffers());
    }
    (live, now)
}

/// Steps every game until each has ended or run out of its horizon.
fn play(
    games: &mut [Game<'_>],
    policy: &Policy,
    greedy: bool,
    c: &RunConfig,
) -> Result<(), RunError> {
    loop {
        let (live, now) = live_observations(games, c.spec);
        if live.is_empty() {
            return Ok(());
        }
        let (a, _, _) = tch::no_grad(|| act(policy, &now.to_device(c.device), greedy));
        for (&i, a) in live.iter().zip(to_vec_i64(&a)) {
            games[i].step(u32::try_from(a).unwrap_or(0))?;
        }
    }
}
