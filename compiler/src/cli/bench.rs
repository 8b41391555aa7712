//! `wsitec bench SITES… [--format human|json] [--seconds S]`: throughput of
//! each site in one run — compile time, interpreter steps per second on one
//! core and on every core (a fixed pseudo-random policy that renders each
//! observation, as an agent loop does), batched steps per second with the
//! trainer's buffers written (interpreter and JIT, one core and every core),
//! episodes per hour, and prover states per second, on the interpreter and on
//! the JIT's flat engine.

use super::{load, site};
use clap::{Args, ValueEnum};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Barrier;
use std::time::{Duration, Instant};
use wsite_runtime::env::{instances, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Verdict};

mod report;
use report::{print_human, print_json};

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Args)]
pub struct BenchArgs {
    /// `.wsite` files or directories (one program each), or built `.wsb` files.
    #[arg(required = true)]
    sites: Vec<PathBuf>,
    /// `human` (a table), or `json` (one object for the whole run).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Wall time each interpreter measurement runs for, per site.
    #[arg(long, default_value_t = 1.0, value_parser = positive_seconds)]
    seconds: f64,
}

/// Compilations timed per site; the median is reported.
const COMPILE_RUNS: usize = 5;
/// Policy steps between looks at the clock.
const CHECK_EVERY: usize = 16;
/// The policy's first seed (the same as `benches/step.rs`).
const SEED: u64 = 0x2545_F491_4F6C_DD1D;

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 => Ok(s),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

/// A site ready to measure.
struct Site {
    name: String,
    path: PathBuf,
    program: Program,
    instances: Vec<TaskInstance>,
}

/// Steps taken and episodes completed in a stretch of wall time.
#[derive(Clone, Copy, Default)]
struct Throughput {
    steps: u64,
    episodes: u64,
    seconds: f64,
}

impl Throughput {
    fn steps_per_s(self) -> f64 {
        self.steps as f64 / self.seconds.max(1e-9)
    }

    /// Counts `other`'s stretch into this one.
    fn add(&mut self, other: Throughput) {
        self.steps += other.steps;
        self.episodes += other.episodes;
        self.seconds += other.seconds;
    }

    fn episodes_per_hour(self) -> f64 {
        self.episodes as f64 * 3600.0 / self.seconds.max(1e-9)
    }
}

/// What proving every task instance cost.
#[derive(Default)]
struct ProverStats {
    states: usize,
    seconds: f64,
    instances: usize,
    feasible: usize,
    /// The instance with the most distinct states: its name, how many, and
    /// the seconds its proof took (the median of a few, `median_seconds`).
    largest: Option<(String, usize, f64)>,
    /// Instances whose verdict the JIT's flat engine decided.
    flat: usize,
}

/// One site's measurements.
struct Row {
    site: String,
    compile_ms: Option<f64>,
    one_core: Throughput,
    all_cores: Throughput,
    /// `BatchEnv` steps (observation buffers included) on one thread and on
    /// all cores, the same batch size.
    batched_one: Throughput,
    batched: Throughput,
    /// The same on the JIT's flat engine (`None` when an instance does not
    /// compile for it).
    jit_batched: Option<JitBatched>,
    jit: JitStats,
    cores: usize,
    prover: ProverStats,
    /// The same proofs through `JitProver` (`None` when the site does not
    /// compile for it).
    prover_jit: Option<ProverStats>,
    /// The invariant sweep `check` runs, on the interpreter and as `check`
    /// runs it (the flat engine where it can); `None` without invariants
    /// and markers.
    sweep: Option<(SweepStats, SweepStats)>,
}

/// The JIT's batched steps, observation buffers included.
#[derive(Clone, Copy)]
struct JitBatched {
    /// On one thread, and on all cores (the same batch size).
    one: Throughput,
    all: Throughput,
    /// On one thread, every page rendered (`BatchEnv::set_render_memo(0)`).
    rendering: Throughput,
    /// The share of the one-thread batch's steps whose page was remembered.
    remembered: f64,
}

/// One invariant sweep, timed.
#[derive(Clone, Copy)]
struct SweepStats {
    states: usize,
    seconds: f64,
    flat: bool,
}

impl SweepStats {
    fn states_per_s(&self) -> f64 {
        self.states as f64 / self.seconds.max(1e-9)
    }
}

impl Row {
    fn scaling(&self) -> f64 {
        self.all_cores.steps_per_s() / self.one_core.steps_per_s().max(1e-9)
    }

    /// JIT batched steps/s on every core over those on one.
    fn jit_batched_scaling(&self) -> Option<f64> {
        let jit = self.jit_batched?;
        Some(jit.all.steps_per_s() / jit.one.steps_per_s().max(1e-9))
    }

    /// JIT over interpreter batched steps/s, one core each.
    fn jit_batched_speedup(&self) -> Option<f64> {
        let jit = self.jit_batched?.one;
        Some(jit.steps_per_s() / self.batched_one.steps_per_s().max(1e-9))
    }
}

pub fn run(args: BenchArgs) -> ExitCode {
    let sites = match open_all(&args.sites) {
        Ok(sites) => sites,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(1);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let rows: Vec<Row> = sites
        .iter()
        .map(|s| measure(s, cores, args.seconds))
        .collect();
    match args.format {
        Format::Human => print_human(&rows, cores),
        Format::Json => print_json(&rows, cores),
    }
    ExitCode::SUCCESS
}

/// Opens every site before measuring any, so a bad path fails fast.
fn open_all(paths: &[PathBuf]) -> Result<Vec<Site>, String> {
    paths
        .iter()
        .map(|path| {
            let program = site::open(path)?;
            let instances = instances(&program);
            let name = path.display().to_string();
            if instances.is_empty() {
                return Err(format!("{name} has no task instance to play"));
            }
            Ok(Site {
                name,
                path: path.clone(),
                program,
                instances,
            })
        })
        .collect()
}

fn measure(site: &Site, cores: usize, seconds: f64) -> Row {
    let one_core = play_one_core(site, seconds);
    let all_cores = play_all_cores(site, cores, seconds);
    let (batched_one, batched) = play_batched(site, cores, seconds);
    let compiled = compile_jit(site);
    let jit_batched = compiled
        .as_ref()
        .and_then(|(jit, pool)| play_batched_jit(site, jit, pool, cores, seconds));
    let jit = measure_jit(site, seconds);
    Row {
        jit,
        site: site.name.clone(),
        compile_ms: compile_ms(&site.path),
        one_core,
        all_cores,
        batched_one,
        batched,
        jit_batched,
        cores,
        prover: prove_all(&site.instances, |i| {
            prove::prove_instance(&site.program, i, prove::Options::default())
        }),
        prover_jit: prove::JitProver::new(&site.program)
            .ok()
            .map(|jit| prove_all(&site.instances, |i| jit.prove(i, prove::Options::default()))),
        sweep: sweep_both(&site.program),
    }
}

/// The invariant sweep with `check`'s budget, on the interpreter and then as
/// `check` runs it; `None` for a site without invariants or markers, or one
/// whose sweep fails.
fn sweep_both(program: &Program) -> Option<(SweepStats, SweepStats)> {
    if program.invariants.is_empty() || program.markers.is_empty() {
        return None;
    }
    let options = prove::Options {
        budget: wsitec::verify::SWEEP_BUDGET,
        ..prove::Options::default()
    };
    let timed =
        |sweep: fn(&Program, prove::Options) -> Result<prove::SweepReport, prove::ProveError>| {
            let started = Instant::now();
            let report = sweep(program, options).ok()?;
            Some(SweepStats {
                states: report.states,
                seconds: started.elapsed().as_secs_f64(),
                flat: report.engine == prove::Engine::Jit,
            })
        };
    Some((
        timed(prove::invariant_sweep_interp)?,
        timed(prove::invariant_sweep)?,
    ))
}

/// The median time to parse, check and lower the site (no prover), or `None`
/// if it does not compile (an artifact's sources are compiled too).
fn compile_ms(path: &Path) -> Option<f64> {
    let mut times = Vec::with_capacity(COMPILE_RUNS);
    for _ in 0..COMPILE_RUNS {
        let input = load::program_input(path).ok()?;
        let started = Instant::now();
        let compiled = load::compile(input);
        let ms = started.elapsed().as_secs_f64() * 1e3;
        compiled.program.as_ref()?;
        times.push(ms);
    }
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied()
}

/// A fixed pseudo-random agent cycling through the site's task instances, one
/// episode each in turn.
struct Player<'p> {
    envs: Vec<Env<'p>>,
    current: usize,
    seed: u64,
    steps: u64,
    episodes: u64,
}

impl<'p> Player<'p> {
    fn new(program: &'p Program, instances: &[TaskInstance], seed: u64) -> Player<'p> {
        let envs = instances
            .iter()
            .filter_map(|i| Env::new(program, i, RewardConfig::default()).ok())
            .collect();
        Player {
            envs,
            current: 0,
            seed,
            steps: 0,
            episodes: 0,
        }
    }

    /// One step of the policy, rendering the observation after it; at the end
    /// of an episode, a reset and a move to the next instance instead.
    fn tick(&mut self) {
        self.seed = self
            .seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let count = self.envs.len();
        let Some(env) = self.envs.get_mut(self.current) else {
            return;
        };
        let actions = env.actions();
        if actions.is_empty() || env.done() {
            let _ = env.reset();
            self.episodes += 1;
            self.current = (self.current + 1) % count.max(1);
            return;
        }
        let action = actions[(self.seed >> 33) as usize % actions.len()].clone();
        if env.step(&action).is_ok() {
            self.steps += 1;
        }
        black_box(env.observation());
    }

    /// Plays for `seconds` of wall time.
    fn play_for(&mut self, seconds: f64) -> Throughput {
        let budget = Duration::from_secs_f64(seconds);
        let started = Instant::now();
        while started.elapsed() < budget {
            for _ in 0..CHECK_EVERY {
                self.tick();
            }
        }
        Throughput {
            steps: self.steps,
            episodes: self.episodes,
            seconds: started.elapsed().as_secs_f64(),
        }
    }
}

fn play_one_core(site: &Site, seconds: f64) -> Throughput {
    Player::new(&site.program, &site.instances, SEED).play_for(seconds)
}

/// One player per core, each with its own environments, started together;
/// total steps over the wall time of the slowest.
fn play_all_cores(site: &Site, cores: usize, seconds: f64) -> Throughput {
    let barrier = Barrier::new(cores + 1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..cores)
            .map(|i| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let seed = SEED.wrapping_add(i as u64);
                    let mut player = Player::new(&site.program, &site.instances, seed);
                    barrier.wait();
                    player.play_for(seconds)
                })
            })
            .collect();
        barrier.wait();
        let started = Instant::now();
        let mut total = Throughput::default();
        for done in handles.into_iter().filter_map(|h| h.join().ok()) {
            total.steps += done.steps;
            total.episodes += done.episodes;
        }
        total.seconds = started.elapsed().as_secs_f64();
        total
    })
}

/// Proves every task instance with the default options.
/// The predicate JIT on one site: how long compiling takes, how many
/// predicates compile, and goal evaluation time against the interpreter.
#[derive(Default)]
struct JitStats {
    compile_ms: f64,
    compiled: usize,
    predicates: usize,
    /// Mean ns per goal evaluation, on each instance's initial state.
    interp_ns: f64,
    jit_ns: f64,
    /// Whole steps on the operation tasks `FlatEnv` accepts, same policy and
    /// same instances for both engines (`None` when it accepts none).
    steps: Option<(Throughput, Throughput)>,
}

/// Evaluations of each goal per engine.
const GOAL_EVALS: usize = 20_000;

fn measure_jit(site: &Site, seconds: f64) -> JitStats {
    use wsite_runtime::interp::eval::eval_bool;
    use wsite_runtime::jit::JitSite;
    use wsite_runtime::layout::{StateLayout, TextPool};
    let mut stats = JitStats::default();
    let Ok(layout) = StateLayout::for_program(&site.program) else {
        return stats;
    };
    let mut pool = TextPool::for_program(&site.program);
    let started = Instant::now();
    let Ok(jit) = JitSite::compile(&site.program, &layout, &mut pool) else {
        return stats;
    };
    stats.compile_ms = started.elapsed().as_secs_f64() * 1e3;
    (stats.compiled, stats.predicates) = {
        let (c, f) = jit.compile_stats();
        (c, c + f)
    };
    let (mut interp, mut native, mut evals) = (0.0, 0.0, 0usize);
    for inst in &site.instances {
        let task = &site.program.tasks[inst.task];
        let (Some(goal), Some(pred)) = (&task.goal, jit.goal(inst.task)) else {
            continue;
        };
        let Ok(env) = Env::new(&site.program, inst, RewardConfig::default()) else {
            continue;
        };
        let (Ok(bytes), Ok(frame)) = (
            env.encode_state(&layout, &mut pool),
            jit.frame(env.task_frame(), &mut pool),
        ) else {
            continue;
        };
        if !pred.is_compiled() {
            continue;
        }
        let ctx = env.world().context(&site.program, Some(env.navigation()));
        let mut scratch = env.task_frame().to_vec();
        let t = Instant::now();
        for _ in 0..GOAL_EVALS {
            let _ = black_box(eval_bool(&ctx, black_box(&mut scratch), goal));
        }
        interp += t.elapsed().as_secs_f64();
        let t = Instant::now();
        for _ in 0..GOAL_EVALS {
            let _ = black_box(pred.eval(black_box(&bytes), &frame, &mut pool));
        }
        native += t.elapsed().as_secs_f64();
        evals += GOAL_EVALS;
    }
    if evals > 0 {
        stats.interp_ns = interp / evals as f64 * 1e9;
        stats.jit_ns = native / evals as f64 * 1e9;
    }
    stats.steps = flat_steps(site, &jit, &mut pool, seconds);
    stats
}

/// Steps/s of the interpreter's `Env` and of the JIT's `FlatEnv` over the
/// instances `FlatEnv` accepts, each for about `seconds`, with the same
/// pseudo-random choice among candidates.
fn flat_steps(
    site: &Site,
    jit: &wsite_runtime::jit::JitSite,
    pool: &mut wsite_runtime::layout::TextPool,
    seconds: f64,
) -> Option<(Throughput, Throughput)> {
    use wsite_runtime::jit::FlatEnv;
    let config = RewardConfig::default();
    let mut flats: Vec<FlatEnv<'_>> = site
        .instances
        .iter()
        .filter_map(|i| FlatEnv::new(jit, i, config, pool).ok())
        .collect();
    let accepted: Vec<&TaskInstance> = site
        .instances
        .iter()
        .filter(|i| FlatEnv::new(jit, i, config, pool).is_ok())
        .collect();
    if flats.is_empty() {
        return None;
    }
    let mut envs: Vec<Env<'_>> = accepted
        .iter()
        .filter_map(|i| Env::new(&site.program, i, config).ok())
        .collect();
    let interp = timed(seconds, envs.len(), |k, seed| {
        let env = &mut envs[k];
        if env.done() || env.actions().is_empty() {
            let _ = env.reset();
            return (0, 1);
        }
        let a = env.actions()[(seed >> 33) as usize % env.actions().len()].clone();
        (u64::from(env.step(&a).is_ok()), 0)
    });
    let native = timed(seconds, flats.len(), |k, seed| {
        let env = &mut flats[k];
        if env.done() || env.actions().is_empty() {
            let _ = env.reset(pool);
            return (0, 1);
        }
        let n = env.actions().len();
        (
            u64::from(env.step((seed >> 33) as usize % n, pool).is_ok()),
            0,
        )
    });
    Some((interp, native))
}

/// Runs `tick(environment, seed)` round-robin over `n` environments for about
/// `seconds`; `tick` returns (steps taken, episodes ended).
fn timed(seconds: f64, n: usize, mut tick: impl FnMut(usize, u64) -> (u64, u64)) -> Throughput {
    let mut t = Throughput::default();
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let started = Instant::now();
    let mut k = 0;
    while started.elapsed().as_secs_f64() < seconds {
        // Check the clock every 256 ticks: a step is far shorter than a read.
        for _ in 0..256 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let (steps, episodes) = tick(k, seed);
            t.steps += steps;
            t.episodes += episodes;
            k = (k + 1) % n.max(1);
        }
    }
    t.seconds = started.elapsed().as_secs_f64();
    t
}

/// Environments per core in the batched run.
const BATCH_PER_CORE: usize = 32;

/// Turns each of the one-thread and the all-thread batch gets: they take
/// turns, so that a slow spell of the machine falls on both and the scaling
/// ratio compares like with like.
const BATCH_ROUNDS: usize = 4;

/// Steps two interpreter `BatchEnv`s of `32 × cores` environments, one on
/// one thread and one on `cores` threads, for about `seconds` each, a random
/// valid action-table row for each environment, writing the trainer-ready
/// buffers every step.
fn play_batched(site: &Site, cores: usize, seconds: f64) -> (Throughput, Throughput) {
    use wsite_runtime::batch::{BatchEnv, ObsSpec};
    let make = |threads| {
        BatchEnv::new(
            &site.program,
            site.instances.clone(),
            BATCH_PER_CORE * cores,
            ObsSpec::default(),
            RewardConfig::default(),
            1,
            threads,
        )
    };
    match (make(1), make(cores)) {
        (Ok(mut one), Ok(mut all)) => {
            let [one, all] = take_turns([&mut one, &mut all], seconds);
            (one, all)
        }
        _ => Default::default(),
    }
}

/// The site compiled for the JIT, with the text pool it was compiled with.
fn compile_jit(
    site: &Site,
) -> Option<(wsite_runtime::jit::JitSite, wsite_runtime::layout::TextPool)> {
    use wsite_runtime::layout::{StateLayout, TextPool};
    let layout = StateLayout::for_program(&site.program).ok()?;
    let mut pool = TextPool::for_program(&site.program);
    let jit = wsite_runtime::jit::JitSite::compile(&site.program, &layout, &mut pool).ok()?;
    Some((jit, pool))
}

/// The JIT's batches: the same two batches on its flat engine, and a third
/// on one core that renders every page rather than taking the pages it
/// remembers (`None` when one of the site's instances does not compile for
/// it).
fn play_batched_jit(
    site: &Site,
    jit: &wsite_runtime::jit::JitSite,
    pool: &wsite_runtime::layout::TextPool,
    cores: usize,
    seconds: f64,
) -> Option<JitBatched> {
    use wsite_runtime::batch::{BatchEnv, ObsSpec};
    let make = |threads| {
        BatchEnv::jit(
            jit,
            &site.instances,
            BATCH_PER_CORE * cores,
            ObsSpec::default(),
            RewardConfig::default(),
            1,
            threads,
            &mut pool.clone(),
        )
        .ok()
    };
    let (mut one, mut all, mut rendering) = (make(1)?, make(cores)?, make(1)?);
    rendering.set_render_memo(0);
    let [t_one, t_all, t_rendering] = take_turns([&mut one, &mut all, &mut rendering], seconds);
    let counts = one.memo_counts();
    Some(JitBatched {
        one: t_one,
        all: t_all,
        rendering: t_rendering,
        remembered: counts.found_share(),
    })
}

/// Steps each of `batches` in turn, [`BATCH_ROUNDS`] rounds, about
/// `seconds` in all for each; their throughputs.
fn take_turns<E: wsite_runtime::batch::Engine, const N: usize>(
    mut batches: [&mut wsite_runtime::batch::BatchEnv<E>; N],
    seconds: f64,
) -> [Throughput; N] {
    let turn = seconds / BATCH_ROUNDS as f64;
    let mut totals = [Throughput::default(); N];
    let mut seeds = [SEED; N];
    for _ in 0..BATCH_ROUNDS {
        for ((batch, total), seed) in batches.iter_mut().zip(&mut totals).zip(&mut seeds) {
            total.add(drive_batch(batch, turn, seed));
        }
    }
    totals
}

/// Steps `batch` with a pseudo-random policy (its generator `seed`) for
/// about `seconds`.
fn drive_batch<E: wsite_runtime::batch::Engine>(
    batch: &mut wsite_runtime::batch::BatchEnv<E>,
    seconds: f64,
    seed: &mut u64,
) -> Throughput {
    let n = batch.len();
    let mut t = Throughput::default();
    let started = Instant::now();
    let mut actions = vec![0u32; n];
    while started.elapsed().as_secs_f64() < seconds {
        for (a, &count) in actions.iter_mut().zip(&batch.buffers().action_count) {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            *a = u32::try_from((*seed >> 33) % u64::from(count.max(1))).unwrap_or(0);
        }
        if batch.step(&actions).is_err() {
            break;
        }
        t.steps += n as u64;
        t.episodes += batch
            .buffers()
            .done
            .iter()
            .map(|&d| u64::from(d))
            .sum::<u64>();
    }
    t.seconds = started.elapsed().as_secs_f64();
    t
}

/// Proves every task instance with `prove` (default options), timed.
fn prove_all(
    instances: &[TaskInstance],
    prove: impl Fn(&TaskInstance) -> Result<prove::Proof, prove::ProveError>,
) -> ProverStats {
    let mut stats = ProverStats {
        instances: instances.len(),
        ..ProverStats::default()
    };
    let started = Instant::now();
    let mut largest_at = None;
    for (at, instance) in instances.iter().enumerate() {
        let this = Instant::now();
        let Ok(proof) = prove(instance) else {
            continue;
        };
        let seconds = this.elapsed().as_secs_f64();
        stats.states += proof.states;
        stats.feasible += usize::from(proof.verdict == Verdict::Feasible);
        stats.flat += usize::from(proof.engine == prove::Engine::Jit);
        if stats
            .largest
            .as_ref()
            .is_none_or(|(_, n, _)| proof.states > *n)
        {
            stats.largest = Some((instance.name.clone(), proof.states, seconds));
            largest_at = Some(at);
        }
    }
    stats.seconds = started.elapsed().as_secs_f64();
    if let (Some(at), Some((_, _, seconds))) = (largest_at, stats.largest.as_mut()) {
        *seconds = median_seconds(*seconds, || {
            let this = Instant::now();
            prove(instances.get(at)?).ok()?;
            Some(this.elapsed().as_secs_f64())
        });
    }
    stats
}

/// Proofs of the largest instance timed, the first included.
const LARGEST_PROOFS: usize = 5;
/// Unless they have taken this many seconds already.
const LARGEST_SECONDS: f64 = 0.5;

/// The median (of an even count, the slower middle one) of `first` and of
/// up to [`LARGEST_PROOFS`]` - 1` more times `again` measures (fewer once
/// they add up to [`LARGEST_SECONDS`], or when `again` fails): one proof
/// of a small space takes a millisecond, which a single disturbance on a
/// shared machine halves.
fn median_seconds(first: f64, mut again: impl FnMut() -> Option<f64>) -> f64 {
    let mut times = vec![first];
    while times.len() < LARGEST_PROOFS && times.iter().sum::<f64>() < LARGEST_SECONDS {
        match again() {
            Some(t) => times.push(t),
            None => break,
        }
    }
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or(first)
}

fn states_per_s(p: &ProverStats) -> f64 {
    p.states as f64 / p.seconds.max(1e-9)
}

/// States per second on the instance with the most states alone (the
/// median of a few proofs of it): the prover's speed on a large space,
/// without the fixed cost of many small instances.
fn largest_states_per_s(p: &ProverStats) -> Option<f64> {
    p.largest
        .as_ref()
        .map(|(_, states, seconds)| *states as f64 / seconds.max(1e-9))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_space_is_timed_by_the_median_of_a_few_proofs() {
        let mut more = vec![4.0e-3, 5.0e-3, 2.0e-3, 3.0e-3, 9.0].into_iter();
        let mut calls = 0;
        let median = median_seconds(1.0e-3, || {
            calls += 1;
            more.next()
        });
        assert_eq!((median, calls), (3.0e-3, LARGEST_PROOFS - 1));
        // A proof that took long enough is not repeated.
        assert_eq!(median_seconds(0.6, || panic!("timed again")), 0.6);
        // Repeats stop at the time limit (0.3 + 0.3 reaches it).
        let median = median_seconds(0.3, || Some(0.3));
        assert_eq!(median, 0.3);
        // A proof that fails ends the repeats.
        let mut twice = vec![2.0e-3].into_iter();
        assert_eq!(median_seconds(4.0e-3, || twice.next()), 4.0e-3);
    }
}
