//! `Batch`: N environments of one site, stepped together, whose buffers
//! Python reads in place.
//!
//! The observation, reward and done buffers are the runtime batch's own
//! (`wsite_runtime::batch::Buffers`), allocated once; `fields` hands Python
//! each one's address, element type and shape, and numpy wraps them without
//! copying (`wsite/_buffers.py`). The actions are a buffer too: Python writes
//! the rows into it, then `step` reads them. The arrays keep this object
//! alive, so the memory they view lives as long as they do.

use crate::errors::{bad_argument, lock_failed};
use crate::sites::{self, Site};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;
use wsite_runtime::batch::{
    Autoreset, BatchEnv, Dtype, FieldView, FlatEngine, InterpEngine, ObsSpec,
};
use wsite_runtime::env::{RewardConfig, RewardMode, SharedWriter, TaskInstance};
use wsite_runtime::jit::DEFAULT_RENDER_MEMO;

/// The most pages a thread may remember (2–5 KB each on the examples).
const MAX_RENDER_MEMO: usize = 1 << 16;

/// The two engines a batch can run on.
enum Engines {
    Jit(BatchEnv<FlatEngine<'static>>),
    Interp(BatchEnv<InterpEngine<'static>>),
}

/// Calls `$body` with the batch, whichever engine runs it.
macro_rules! with_batch {
    ($engines:expr, $b:ident => $body:expr) => {
        match $engines {
            Engines::Jit($b) => $body,
            Engines::Interp($b) => $body,
        }
    };
}

struct Inner {
    engines: Engines,
    /// `[n]`: the rows `step` takes, written by Python in place.
    actions: Vec<u32>,
}

/// N environments of one site's task instances.
#[pyclass(module = "wsite._wsite")]
pub struct Batch {
    inner: Mutex<Inner>,
    site: &'static Site,
    /// Indices into `site.instances` of the instances played.
    chosen: Vec<usize>,
    spec: ObsSpec,
    engine: &'static str,
    fields: Vec<FieldView>,
}

/// What a batch is asked to be.
struct Request<'a> {
    site: &'static Site,
    instances: Vec<TaskInstance>,
    n: usize,
    spec: ObsSpec,
    reward: RewardConfig,
    seed: u64,
    threads: usize,
    engine: &'a str,
    simulator: Option<SharedWriter>,
}

#[pymethods]
impl Batch {
    #[new]
    #[pyo3(signature = (
        site, num_envs=1, tasks=None, seed=0, threads=1, engine="auto", reward="dense",
        autoreset="same_step", simulator=None, simulator_timeout=10.0, spec=None,
        render_memo=DEFAULT_RENDER_MEMO
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        site: &str,
        num_envs: usize,
        tasks: Option<Vec<String>>,
        seed: u64,
        threads: usize,
        engine: &str,
        reward: &str,
        autoreset: &str,
        simulator: Option<String>,
        simulator_timeout: f64,
        spec: Option<HashMap<String, usize>>,
        render_memo: usize,
    ) -> PyResult<Batch> {
        if num_envs == 0 {
            return Err(bad_argument("`num_envs` must be at least 1"));
        }
        if !(1..=1024).contains(&threads) {
            return Err(bad_argument(format!(
                "`threads` must be 1 to 1024, not {threads}"
            )));
        }
        let mode = parse_autoreset(autoreset)?;
        let mode_of_reward = RewardMode::parse(reward).ok_or_else(|| {
            bad_argument(format!(
                "unknown reward `{reward}`: use dense, sparse or decomposed"
            ))
        })?;
        let spec = obs_spec(spec.unwrap_or_default())?;
        let opened = sites::open(site).map_err(crate::errors::site_error)?;
        let chosen = sites::select(opened, tasks.as_deref()).map_err(bad_argument)?;
        let simulator = start_simulator(simulator, simulator_timeout)?;
        let request = Request {
            site: opened,
            instances: chosen
                .iter()
                .map(|&i| opened.instances[i].clone())
                .collect(),
            n: num_envs,
            spec,
            reward: RewardConfig::with_mode(mode_of_reward),
            seed,
            threads,
            engine,
            simulator,
        };
        if render_memo > MAX_RENDER_MEMO {
            return Err(bad_argument(format!(
                "`render_memo` must be 0 to {MAX_RENDER_MEMO} pages, not {render_memo}"
            )));
        }
        let (mut engines, engine) = build(request)?;
        with_batch!(&mut engines, b => b.set_autoreset(mode));
        with_batch!(&mut engines, b => b.set_render_memo(render_memo));
        let fields = with_batch!(&engines, b => b.buffers().fields(&spec));
        Ok(Batch {
            inner: Mutex::new(Inner {
                engines,
                actions: vec![0; num_envs],
            }),
            site: opened,
            chosen,
            spec,
            engine,
            fields,
        })
    }

    /// Every buffer: `(name, numpy typestr, shape, low, high, address)`,
    /// the actions last.
    fn fields(&self) -> PyResult<Vec<Field>> {
        let inner = self.inner.lock().map_err(|_| lock_failed())?;
        let mut out: Vec<Field> = self
            .fields
            .iter()
            .map(|f| {
                let (name, shape) = (f.name.to_string(), f.shape.clone());
                (name, typestr(f.dtype), shape, f.low, f.high, f.address)
            })
            .collect();
        let n = inner.actions.len();
        let rows = (self.spec.max_actions as f64) - 1.0;
        let address = inner.actions.as_ptr() as usize;
        out.push((
            "actions".into(),
            typestr(Dtype::U32),
            vec![n],
            0.0,
            rows,
            address,
        ));
        Ok(out)
    }

    /// Takes row `actions[i]` in environment `i`, for every `i`. A row out
    /// of range anywhere is a `ValueError` and nothing changes.
    fn step(&self) -> PyResult<()> {
        let mut inner = self.inner.lock().map_err(|_| lock_failed())?;
        let Inner { engines, actions } = &mut *inner;
        with_batch!(engines, b => b.step(actions)).map_err(bad_argument)
    }

    /// Starts a new episode in environment `i` (see `BatchEnv::reset`);
    /// `instance` counts among the instances this batch plays.
    #[pyo3(signature = (i, seed=None, instance=None))]
    fn reset(&self, i: usize, seed: Option<u64>, instance: Option<usize>) -> PyResult<()> {
        let mut inner = self.inner.lock().map_err(|_| lock_failed())?;
        with_batch!(&mut inner.engines, b => b.reset(i, seed, instance)).map_err(bad_argument)
    }

    /// Environment `i`'s observation as text (the interpreter engine only).
    fn text(&self, i: usize) -> PyResult<String> {
        let inner = self.inner.lock().map_err(|_| lock_failed())?;
        match &inner.engines {
            Engines::Interp(b) => b
                .text(i)
                .ok_or_else(|| bad_argument(format!("no environment {i}"))),
            Engines::Jit(_) => Err(bad_argument("the text observation needs engine=\"interp\"")),
        }
    }

    /// Steps the batch `steps` times in Rust, each environment taking a
    /// uniformly random row of those its page offers (a 64-bit LCG seeded
    /// with `seed`); the seconds it took. What the Python layer's overhead
    /// is measured against (`python/bench/throughput.py`).
    fn drive(&self, steps: usize, seed: u64) -> PyResult<f64> {
        let mut inner = self.inner.lock().map_err(|_| lock_failed())?;
        let Inner { engines, actions } = &mut *inner;
        let mut rng = seed;
        let started = std::time::Instant::now();
        for _ in 0..steps {
            with_batch!(&mut *engines, b => {
                for (a, &count) in actions.iter_mut().zip(&b.buffers().action_count) {
                    rng = rng
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    *a = u32::try_from((rng >> 33) % u64::from(count.max(1))).unwrap_or(0);
                }
                b.step(actions).map_err(bad_argument)?;
            });
        }
        Ok(started.elapsed().as_secs_f64())
    }

    /// The name of the task instance environment `i` plays.
    fn instance_of(&self, i: usize) -> PyResult<String> {
        let inner = self.inner.lock().map_err(|_| lock_failed())?;
        with_batch!(&inner.engines, b => b.instance_of(i))
            .and_then(|k| self.chosen.get(k))
            .map(|&k| self.site.instances[k].name.clone())
            .ok_or_else(|| bad_argument(format!("no environment {i}")))
    }

    /// The step budget (horizon) of the task environment `i` plays.
    fn horizon(&self, i: usize) -> PyResult<u32> {
        let inner = self.inner.lock().map_err(|_| lock_failed())?;
        with_batch!(&inner.engines, b => b.instance_of(i))
            .and_then(|k| self.chosen.get(k))
            .and_then(|&k| self.site.program.tasks.get(self.site.instances[k].task))
            .map(|t| t.horizon)
            .ok_or_else(|| bad_argument(format!("no environment {i}")))
    }

    /// Whether environment `i`'s episode ended and it waits for its reset.
    fn is_finished(&self, i: usize) -> PyResult<bool> {
        let inner = self.inner.lock().map_err(|_| lock_failed())?;
        with_batch!(&inner.engines, b => b.is_finished(i))
            .ok_or_else(|| bad_argument(format!("no environment {i}")))
    }

    /// The names of the instances played, in the order `reset`'s
    /// `instance` counts them.
    #[getter]
    fn instances(&self) -> Vec<String> {
        self.chosen
            .iter()
            .map(|&k| self.site.instances[k].name.clone())
            .collect()
    }

    #[getter]
    fn engine(&self) -> &'static str {
        self.engine
    }

    #[getter]
    fn site(&self) -> String {
        self.site.name.clone()
    }

    /// The observation's widths.
    #[getter]
    fn spec(&self) -> HashMap<&'static str, usize> {
        spec_entries(&self.spec).into_iter().collect()
    }
}

/// Makes the batch on the engine asked for; the engine's name.
fn build(r: Request<'_>) -> PyResult<(Engines, &'static str)> {
    let interp_needed = r.simulator.is_some() || r.reward.mode == RewardMode::Decomposed;
    let jit_first =
        match r.engine {
            "jit" if interp_needed => return Err(bad_argument(
                "engine=\"jit\" runs neither a simulator nor the decomposed reward: use \"interp\"",
            )),
            "jit" => true,
            "auto" => !interp_needed,
            "interp" => false,
            other => {
                return Err(bad_argument(format!(
                    "unknown engine `{other}`: use auto, jit or interp"
                )))
            }
        };
    if jit_first {
        match jit_batch(&r) {
            Ok(b) => return Ok((Engines::Jit(b), "jit")),
            Err(why) if r.engine == "jit" => {
                return Err(bad_argument(format!("the JIT cannot run this site: {why}")))
            }
            // `auto` falls back to the interpreter, which runs every site.
            Err(_) => {}
        }
    }
    let program = &r.site.program;
    let mut b = BatchEnv::new(
        program,
        r.instances,
        r.n,
        r.spec,
        r.reward,
        r.seed,
        r.threads,
    )
    .map_err(bad_argument)?;
    b.set_writer(r.simulator);
    Ok((Engines::Interp(b), "interp"))
}

fn jit_batch(r: &Request<'_>) -> Result<BatchEnv<FlatEngine<'static>>, String> {
    let (jit, pool) = r.site.jit()?;
    let mut pool = pool.clone();
    BatchEnv::jit(
        jit,
        &r.instances,
        r.n,
        r.spec,
        r.reward,
        r.seed,
        r.threads,
        &mut pool,
    )
    .map_err(|e| e.to_string())
}

fn start_simulator(command: Option<String>, timeout: f64) -> PyResult<Option<SharedWriter>> {
    let Some(command) = command else {
        return Ok(None);
    };
    let timeout = wsitec::host::simulator::parse_timeout(&timeout.to_string())
        .map_err(|e| bad_argument(format!("`simulator_timeout`: {e}")))?;
    let writer = wsitec::host::simulator::ProcessWriter::start(&command, timeout)
        .map_err(|e| bad_argument(format!("cannot start the simulator: {e}")))?;
    Ok(Some(SharedWriter::new(writer)))
}

fn parse_autoreset(name: &str) -> PyResult<Autoreset> {
    match name {
        "same_step" => Ok(Autoreset::SameStep),
        "next_step" => Ok(Autoreset::NextStep),
        "disabled" => Ok(Autoreset::Disabled),
        other => Err(bad_argument(format!(
            "unknown autoreset `{other}`: use same_step, next_step or disabled"
        ))),
    }
}

/// The observation's widths by name.
fn spec_entries(s: &ObsSpec) -> Vec<(&'static str, usize)> {
    vec![
        ("max_elements", s.max_elements),
        ("text_tokens", s.text_tokens),
        ("value_tokens", s.value_tokens),
        ("instruction_tokens", s.instruction_tokens),
        ("max_actions", s.max_actions),
        ("action_tokens", s.action_tokens),
        ("page_tokens", s.page_tokens),
        ("alert_tokens", s.alert_tokens),
        ("context_tokens", s.context_tokens),
        ("history", s.history),
        ("history_tokens", s.history_tokens),
        ("vocab", s.vocab as usize),
    ]
}

/// The default widths with those `given` changed; an unknown name, a zero
/// or an absurd width is refused.
fn obs_spec(given: HashMap<String, usize>) -> PyResult<ObsSpec> {
    let mut s = ObsSpec::default();
    for (name, value) in given {
        let limit = if name == "vocab" { 1 << 24 } else { 4096 };
        if value == 0 || value > limit {
            return Err(bad_argument(format!(
                "`{name}` must be 1 to {limit}, not {value}"
            )));
        }
        let slot = match name.as_str() {
            "max_elements" => &mut s.max_elements,
            "text_tokens" => &mut s.text_tokens,
            "value_tokens" => &mut s.value_tokens,
            "instruction_tokens" => &mut s.instruction_tokens,
            "max_actions" => &mut s.max_actions,
            "action_tokens" => &mut s.action_tokens,
            "page_tokens" => &mut s.page_tokens,
            "alert_tokens" => &mut s.alert_tokens,
            "context_tokens" => &mut s.context_tokens,
            "history" => &mut s.history,
            "history_tokens" => &mut s.history_tokens,
            "vocab" => {
                s.vocab = u32::try_from(value).unwrap_or(u32::MAX);
                continue;
            }
            other => {
                let known: Vec<&str> = spec_entries(&ObsSpec::default())
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                return Err(bad_argument(format!(
                    "unknown observation width `{other}`; known: {}",
                    known.join(", ")
                )));
            }
        };
        *slot = value;
    }
    Ok(s)
}

/// A buffer as Python gets it: name, numpy typestr, shape, value range,
/// address.
type Field = (String, String, Vec<usize>, f64, f64, usize);

/// numpy's name for an element type, in this machine's byte order. The
/// `u32` buffers (token ids, counts, lengths, the actions) are shown as
/// `int32`, which torch and every framework take as they are: their values
/// stay below 2³¹ (`FieldView`'s ranges; the vocabulary is capped at 2²⁴),
/// where the two read the same bits alike.
fn typestr(d: Dtype) -> String {
    let order = if cfg!(target_endian = "little") {
        '<'
    } else {
        '>'
    };
    match d {
        Dtype::U8 => "|u1".into(),
        Dtype::U32 | Dtype::I32 => format!("{order}i4"),
        Dtype::F32 => format!("{order}f4"),
    }
}
