//! The trained policy as a process-reward judge (issue 19, item 3;
//! docs/prm.md, "Judges"; docs/prm-prmpolicy.md): [`PolicyJudge`] scores a
//! [`Query`]'s candidates by the policy's log-probability of each one
//! ([`Reading::Policy`]) or by the value head on the state each one leads
//! to ([`Reading::Value`]).
//!
//! The policy reads more than the page: its inputs include the last actions
//! taken, as the batch writes them. So a query's state is rebuilt the way
//! the policy met it in training and evaluation: a one-environment
//! interpreter batch of the query's task, the trace taken row by row through
//! the batch's action table ([`replay`]). Every keyed step is resolved on
//! the live page (`prove::resolve_step`) and mapped to its table row; a
//! replay that does not reach the query's page (URL and §5.2 text) is
//! refused as stale.

use super::error::RowError;
use super::obs::ObsStore;
use super::policy::Policy;
use crate::batch::{BatchEnv, InterpEngine, ObsSpec};
use crate::env::RewardConfig;
use crate::ir::Program;
use crate::prm::judge::{Judge, JudgeError, Query};
use crate::prm::{task_instance, RestoreError};
use crate::prove::{resolve_step, WitnessStep};
use std::collections::BTreeMap;
use tch::{nn, Device, Kind, Tensor};

/// What the judge reads off the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The log-probability the policy gives each candidate.
    Policy,
    /// The value head on the state after each candidate.
    Value,
}

/// The score of a candidate the policy cannot score (it has no keyed step,
/// or the action table cut it): below every log-probability and value.
pub const UNSCORED: f64 = f64::MIN;

/// A trained policy judging candidates (see the module docs).
pub struct PolicyJudge<'a> {
    programs: &'a BTreeMap<String, Program>,
    /// Holds the weights `policy` reads.
    _weights: nn::VarStore,
    policy: Policy,
    reading: Reading,
    spec: ObsSpec,
    device: Device,
    unscored: usize,
}

impl<'a> PolicyJudge<'a> {
    /// `policy` (whose variables live in `weights`) judging queries on the
    /// sites `programs` (by name), observing them as `spec` shapes them.
    pub fn new(
        programs: &'a BTreeMap<String, Program>,
        weights: nn::VarStore,
        policy: Policy,
        reading: Reading,
        spec: ObsSpec,
    ) -> PolicyJudge<'a> {
        let device = weights.device();
        PolicyJudge {
            programs,
            _weights: weights,
            policy,
            reading,
            spec,
            device,
            unscored: 0,
        }
    }

    /// Candidates scored [`UNSCORED`] so far (no keyed step, or cut from
    /// the action table).
    pub fn unscored(&self) -> usize {
        self.unscored
    }

    /// The query's state in a fresh batch, checked against the query.
    fn state(&self, q: &Query) -> Result<BatchEnv<InterpEngine<'a>>, JudgeError> {
        let program = self
            .programs
            .get(&q.site)
            .ok_or_else(|| JudgeError::Unsupported(format!("no site `{}` loaded", q.site)))?;
        let batch = replay(program, &q.task, &q.trace, self.spec).map_err(unsupported)?;
        let env = batch
            .env(0)
            .ok_or_else(|| JudgeError::Unsupported("the replay batch is empty".into()))?;
        q.state().check(env).map_err(unsupported)?;
        Ok(batch)
    }

    /// Log-probabilities over the table rows and the value of the batch's
    /// state.
    fn read(&self, batch: &BatchEnv<InterpEngine<'_>>) -> (Vec<f64>, f64) {
        let mut store = ObsStore::new(self.spec);
        store.push(batch.buffers());
        let (logits, values) = tch::no_grad(|| self.policy.forward(&store.to_device(self.device)));
        let log_p = to_f64(&logits.log_softmax(-1, Kind::Float));
        (log_p, to_f64(&values).first().copied().unwrap_or(0.0))
    }

    fn policy_scores(&mut self, q: &Query) -> Result<Vec<f64>, JudgeError> {
        let batch = self.state(q)?;
        let (log_p, _) = self.read(&batch);
        let mut scores = Vec::with_capacity(q.candidates.len());
        for c in &q.candidates {
            let row = match &c.step {
                None => None,
                Some(step) => row_of_step(&batch, step).map_err(unsupported)?,
            };
            match row.and_then(|r| log_p.get(r as usize)) {
                Some(&lp) => scores.push(lp),
                None => {
                    self.unscored += 1;
                    scores.push(UNSCORED);
                }
            }
        }
        Ok(scores)
    }

    fn value_scores(&mut self, q: &Query) -> Result<Vec<f64>, JudgeError> {
        // Checked once; each candidate then replays on a batch of its own.
        let now = self.read(&self.state(q)?).1;
        let mut scores = Vec::with_capacity(q.candidates.len());
        for c in &q.candidates {
            let Some(step) = &c.step else {
                self.unscored += 1;
                scores.push(UNSCORED);
                continue;
            };
            let mut batch = self.state(q)?;
            let Some(row) = row_of_step(&batch, step).map_err(unsupported)? else {
                self.unscored += 1;
                scores.push(UNSCORED);
                continue;
            };
            batch
                .step(&[row])
                .map_err(|e| JudgeError::Unsupported(format!("{}: {e}", c.action)))?;
            let b = batch.buffers();
            // An episode that ends has no next state for V to read. Its
            // outcome would be the simulator's verdict, not the value
            // head's, so it scores V of the state the step was taken in:
            // every ending step ties.
            let score = if b.done.first().is_some_and(|&d| d != 0) {
                now
            } else {
                self.read(&batch).1
            };
            scores.push(score);
        }
        Ok(scores)
    }
}

impl Judge for PolicyJudge<'_> {
    fn name(&self) -> &str {
        match self.reading {
            Reading::Policy => "policy",
            Reading::Value => "value",
        }
    }

    fn score(&mut self, query: &Query) -> Result<Vec<f64>, JudgeError> {
        match self.reading {
            Reading::Policy => self.policy_scores(query),
            Reading::Value => self.value_scores(query),
        }
    }
}

/// A state or step the policy cannot be asked about, as the judge says it.
fn unsupported(e: impl std::fmt::Display) -> JudgeError {
    JudgeError::Unsupported(e.to_string())
}

/// A one-environment interpreter batch of `program`'s task instance `task`
/// with `trace` taken through the batch's action table, so its buffers
/// (history included) are what the policy saw when it played those steps.
pub fn replay<'p>(
    program: &'p Program,
    task: &str,
    trace: &[WitnessStep],
    spec: ObsSpec,
) -> Result<BatchEnv<InterpEngine<'p>>, RestoreError> {
    let instance = task_instance(program, task).ok_or_else(|| RestoreError::NoTask(task.into()))?;
    let mut batch = BatchEnv::new(
        program,
        vec![instance],
        1,
        spec,
        RewardConfig::default(),
        0,
        1,
    )
    .map_err(|e| RestoreError::Start(e.to_string()))?;
    for (i, step) in trace.iter().enumerate() {
        let row = row_of_step(&batch, step)
            .map_err(|e| RestoreError::Step(i + 1, e.to_string()))?
            .ok_or_else(|| RestoreError::Step(i + 1, "not in the action table".into()))?;
        batch
            .step(&[row])
            .map_err(|e| RestoreError::Step(i + 1, e.to_string()))?;
        if batch.buffers().done.first().is_some_and(|&d| d != 0) {
            return Err(RestoreError::Ended(i + 1));
        }
    }
    Ok(batch)
}

/// The action-table row of `step` on environment 0's page: `Err` when the
/// step names nothing there, `Ok(None)` when its action is not in the table.
pub fn row_of_step(
    batch: &BatchEnv<InterpEngine<'_>>,
    step: &WitnessStep,
) -> Result<Option<u32>, RowError> {
    let env = batch.env(0).ok_or(RowError::EmptyBatch)?;
    let action = resolve_step(env, step).map_err(RowError::Missing)?;
    let index = env
        .actions()
        .iter()
        .position(|a| *a == action)
        .ok_or_else(|| RowError::NotCandidate {
            step: step.clone(),
            url: env.observation().url,
        })?;
    Ok(batch.row_of(0, index))
}

fn to_f64(t: &Tensor) -> Vec<f64> {
    let t = t.to_device(Device::Cpu).to_kind(Kind::Double).reshape([-1]);
    let n = t.numel();
    let mut v = vec![0f64; n];
    t.copy_data(&mut v, n);
    v
}
