//! Training and evaluation runs: sites compiled once (JIT), batched
//! environments per site, rollouts sampled from the policy, PPO updates, and
//! greedy or sampled evaluation episodes.
//!
//! Nothing here reads the clock or touches a file: the caller (the CLI) times
//! updates, writes metrics and checkpoints through the callback, and owns the
//! variable store.

use super::gae;
use super::obs::{Obs, ObsStore};
use super::policy::Policy;
use super::ppo::{self, PpoConfig};
use crate::batch::{BatchEnv, FlatEngine, ObsSpec};
use crate::env::{RewardConfig, TaskInstance};
use crate::ir::Program;
use crate::jit::JitSite;
use crate::layout::{StateLayout, TextPool};
use tch::nn::{self, OptimizerConfig};
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
pub fn compile(sites: &[Site]) -> Result<Vec<Compiled<'_>>, String> {
    sites
        .iter()
        .map(|site| {
            let layout = StateLayout::for_program(&site.program)
                .map_err(|e| format!("{}: {e}", site.name))?;
            let mut pool = TextPool::for_program(&site.program);
            let jit = JitSite::compile(&site.program, &layout, &mut pool)
                .map_err(|e| format!("{}: {e}", site.name))?;
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
        }
    }
}

/// What one update did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct UpdateMetrics {
    pub update: usize,
    pub env_steps: u64,
    pub episodes: usize,
    /// Over the episodes that ended during this update's rollout.
    pub mean_return: f64,
    pub success_rate: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub entropy: f64,
    pub approx_kl: f64,
    pub clip_fraction: f64,
}

/// The environments of a run: one batch per site.
struct Worlds<'s> {
    batches: Vec<BatchEnv<FlatEngine<'s>>>,
}

impl<'s> Worlds<'s> {
    fn new(compiled: &'s [Compiled<'_>], c: &RunConfig) -> Result<Worlds<'s>, String> {
        let per_site = c.envs.div_ceil(compiled.len().max(1)).max(1);
        let mut batches = Vec::new();
        for (k, s) in compiled.iter().enumerate() {
            if s.site.instances.is_empty() {
                continue;
            }
            let mut pool = s.pool.clone();
            batches.push(BatchEnv::jit(
                &s.jit,
                &s.site.instances,
                per_site,
                c.spec,
                c.reward,
                c.seed.wrapping_add(k as u64 * 7919),
                1,
                &mut pool,
            )?);
        }
        if batches.is_empty() {
            return Err("no task instance to run on any site".into());
        }
        Ok(Worlds { batches })
    }

    fn len(&self) -> usize {
        self.batches.iter().map(BatchEnv::len).sum()
    }

    fn observe(&self, store: &mut ObsStore) {
        for b in &self.batches {
            store.push(b.buffers());
        }
    }

    /// Steps every environment; returns (reward, done, success, episode
    /// return) per environment.
    fn step(&mut self, actions: &[i64]) -> Result<Vec<(f32, bool, bool, f32)>, String> {
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

fn to_vec_f32(t: &Tensor) -> Vec<f32> {
    let t = t.to_device(Device::Cpu).to_kind(Kind::Float);
    let n = t.numel();
    let mut v = vec![0f32; n];
    t.copy_data(&mut v, n);
    v
}

fn to_vec_i64(t: &Tensor) -> Vec<i64> {
    let t = t.to_device(Device::Cpu).to_kind(Kind::Int64);
    let n = t.numel();
    let mut v = vec![0i64; n];
    t.copy_data(&mut v, n);
    v
}

/// Trains `policy` (whose variables live in `vs`) for at least `steps`
/// environment steps; `on_update` sees each update's metrics and may stop the
/// run by returning `false`.
pub fn train(
    compiled: &[Compiled<'_>],
    vs: &nn::VarStore,
    policy: &Policy,
    steps: u64,
    c: &RunConfig,
    on_update: &mut dyn FnMut(&UpdateMetrics) -> bool,
) -> Result<(), String> {
    tch::manual_seed(c.seed as i64);
    let mut worlds = Worlds::new(compiled, c)?;
    let mut opt = nn::Adam::default()
        .build(vs, c.ppo.learning_rate)
        .map_err(|e| e.to_string())?;
    let n = worlds.len();
    let mut env_steps = 0u64;
    let mut update = 0;
    while env_steps < steps {
        let mut store = ObsStore::new(c.spec);
        let (mut actions, mut log_probs, mut values) = (Vec::new(), Vec::new(), Vec::new());
        let (mut rewards, mut dones) = (Vec::new(), Vec::new());
        let mut finished: Vec<(f32, bool)> = Vec::new();
        for _ in 0..c.rollout {
            let mut now = ObsStore::new(c.spec);
            worlds.observe(&mut now);
            let (a, lp, v) = tch::no_grad(|| act(policy, &now.to_device(c.device), false));
            let a = to_vec_i64(&a);
            store.append(&now);
            log_probs.extend(to_vec_f32(&lp));
            values.extend(to_vec_f32(&v));
            for (r, done, success, ret) in worlds.step(&a)? {
                rewards.push(r);
                dones.push(done);
                if done {
                    finished.push((ret, success));
                }
            }
            actions.extend(a);
        }
        env_steps += (n * c.rollout) as u64;
        let mut last = ObsStore::new(c.spec);
        worlds.observe(&mut last);
        let last_values = to_vec_f32(&tch::no_grad(|| {
            policy.forward(&last.to_device(c.device)).1
        }));
        let est = gae::estimate(
            &rewards,
            &values,
            &dones,
            &last_values,
            c.ppo.gamma,
            c.ppo.lambda,
        );
        // The learning rate falls linearly over the run (to a tenth), so the
        // policy settles instead of drifting at the end.
        let left = 1.0 - env_steps as f64 / steps.max(1) as f64;
        opt.set_lr(c.ppo.learning_rate * left.max(0.1));
        let mut m = optimise(policy, &mut opt, &store, &actions, &log_probs, &est, c);
        update += 1;
        m.update = update;
        m.env_steps = env_steps;
        m.episodes = finished.len();
        if !finished.is_empty() {
            let k = finished.len() as f64;
            m.mean_return = finished.iter().map(|f| f64::from(f.0)).sum::<f64>() / k;
            m.success_rate = finished.iter().filter(|f| f.1).count() as f64 / k;
        }
        if !on_update(&m) {
            break;
        }
    }
    Ok(())
}

/// Several epochs of minibatch PPO over one rollout, uploaded once.
fn optimise(
    policy: &Policy,
    opt: &mut nn::Optimizer,
    store: &ObsStore,
    actions: &[i64],
    log_probs: &[f32],
    est: &gae::Estimates,
    c: &RunConfig,
) -> UpdateMetrics {
    let d = c.device;
    let obs = store.to_device(d);
    let actions = Tensor::from_slice(actions).to_device(d);
    let old = Tensor::from_slice(log_probs).to_device(d);
    let adv = Tensor::from_slice(&est.advantages).to_device(d);
    let adv = (&adv - adv.mean(Kind::Float)) / (adv.std(true) + 1e-8);
    let returns = Tensor::from_slice(&est.returns).to_device(d);
    let rows = store.rows as i64;
    let size = (rows / c.ppo.minibatches.max(1) as i64).max(1);
    let mut m = UpdateMetrics::default();
    let mut count = 0.0;
    for _ in 0..c.ppo.epochs {
        let order = Tensor::randperm(rows, (Kind::Int64, d));
        let mut start = 0;
        while start < rows {
            let idx = order.narrow(0, start, size.min(rows - start));
            let (logits, values) = policy.forward(&obs.select(&idx));
            let l = ppo::loss(
                &logits,
                &actions.index_select(0, &idx),
                &old.index_select(0, &idx),
                &adv.index_select(0, &idx),
                &returns.index_select(0, &idx),
                &values,
                &c.ppo,
            );
            opt.backward_step_clip_norm(&l.total, c.ppo.max_grad_norm);
            m.policy_loss += l.policy;
            m.value_loss += l.value;
            m.entropy += l.entropy;
            m.approx_kl += l.approx_kl;
            m.clip_fraction += l.clip_fraction;
            count += 1.0;
            start += size;
        }
    }
    if count > 0.0 {
        m.policy_loss /= count;
        m.value_loss /= count;
        m.entropy /= count;
        m.approx_kl /= count;
        m.clip_fraction /= count;
    }
    m
}

/// One site's evaluation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SiteResult {
    pub site: String,
    pub domain: String,
    pub episodes: usize,
    pub successes: usize,
}

/// Plays every task instance of every site `episodes` times per seed (one
/// environment per episode, stepping until each has finished once), sampling
/// from the policy or, when `greedy`, taking its most likely action. Only the
/// policy picks actions.
pub fn evaluate(
    compiled: &[Compiled<'_>],
    policy: &Policy,
    seeds: &[u64],
    greedy: bool,
    c: &RunConfig,
) -> Result<Vec<SiteResult>, String> {
    let mut results = Vec::new();
    for s in compiled {
        let mut r = SiteResult {
            site: s.site.name.clone(),
            domain: s.site.domain.clone(),
            episodes: 0,
            successes: 0,
        };
        for &seed in seeds {
            tch::manual_seed(seed as i64);
            let (episodes, successes) = play_each_once(s, policy, seed, greedy, c)?;
            r.episodes += episodes;
            r.successes += successes;
        }
        results.push(r);
    }
    Ok(results)
}

/// One episode per task instance of `s` (the batch draws instances by its
/// seed, so every instance gets its own environment here).
fn play_each_once(
    s: &Compiled<'_>,
    policy: &Policy,
    seed: u64,
    greedy: bool,
    c: &RunConfig,
) -> Result<(usize, usize), String> {
    let mut successes = 0;
    for (k, inst) in s.site.instances.iter().enumerate() {
        let mut pool = s.pool.clone();
        let mut batch = BatchEnv::jit(
            &s.jit,
            std::slice::from_ref(inst),
            1,
            c.spec,
            c.reward,
            seed.wrapping_add(k as u64),
            1,
            &mut pool,
        )?;
        let horizon = s.site.program.tasks[inst.task].horizon.max(1);
        for _ in 0..horizon {
            let mut now = ObsStore::new(c.spec);
            now.push(batch.buffers());
            let (a, _, _) = tch::no_grad(|| act(policy, &now.to_device(c.device), greedy));
            let a = to_vec_i64(&a);
            batch.step(&[u32::try_from(a[0]).unwrap_or(0)])?;
            let b = batch.buffers();
            if b.done[0] != 0 {
                successes += usize::from(b.success[0] != 0);
                break;
            }
        }
    }
    Ok((s.site.instances.len(), successes))
}
