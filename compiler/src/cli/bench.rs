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
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Barrier;
use std::time::{Duration, Instant};
use wsite_runtime::env::{instances, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Verdict};

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
    /// The instance with the most distinct states, and how many.
    largest: Option<(String, usize)>,
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
    jit_batched_one: Option<Throughput>,
    jit_batched: Option<Throughput>,
    jit: JitStats,
    cores: usize,
    prover: ProverStats,
    /// The same proofs through `JitProver` (`None` when the site does not
    /// compile for it).
    prover_jit: Option<ProverStats>,
}

impl Row {
    fn scaling(&self) -> f64 {
        self.all_cores.steps_per_s() / self.one_core.steps_per_s().max(1e-9)
    }

    /// JIT batched steps/s on every core over those on one.
    fn jit_batched_scaling(&self) -> Option<f64> {
        let (one, all) = (self.jit_batched_one?, self.jit_batched?);
        Some(all.steps_per_s() / one.steps_per_s().max(1e-9))
    }

    /// JIT over interpreter batched steps/s, one core each.
    fn jit_batched_speedup(&self) -> Option<f64> {
        let jit = self.jit_batched_one?;
        Some(jit.steps_per_s() / self.batched_one.steps_per_s().max(1e-9))
    }
}

/// A cell for a figure that may be missing (`-`).
fn opt_cell<T>(value: Option<T>, show: impl Fn(T) -> String) -> String {
    value.map_or_else(|| "-".to_string(), show)
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
    let (jit_batched_one, jit_batched) = compiled
        .as_ref()
        .and_then(|(jit, pool)| play_batched_jit(site, jit, pool, cores, seconds))
        .unzip();
    let jit = measure_jit(site, seconds);
    Row {
        jit,
        site: site.name.clone(),
        compile_ms: compile_ms(&site.path),
        one_core,
        all_cores,
        batched_one,
        batched,
        jit_batched_one,
        jit_batched,
        cores,
        prover: prove_all(&site.instances, |i| {
            prove::prove_instance(&site.program, i, prove::Options::default())
        }),
        prover_jit: prove::JitProver::new(&site.program)
            .ok()
            .map(|jit| prove_all(&site.instances, |i| jit.prove(i, prove::Options::default()))),
    }
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
        (Ok(mut one), Ok(mut all)) => take_turns(&mut one, &mut all, seconds),
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

/// The same two batches on the JIT's flat engine (`None` when one of the
/// site's instances does not compile for it).
fn play_batched_jit(
    site: &Site,
    jit: &wsite_runtime::jit::JitSite,
    pool: &wsite_runtime::layout::TextPool,
    cores: usize,
    seconds: f64,
) -> Option<(Throughput, Throughput)> {
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
    let (mut one, mut all) = (make(1)?, make(cores)?);
    Some(take_turns(&mut one, &mut all, seconds))
}

/// Steps `one` and `all` in [`BATCH_ROUNDS`] alternating turns, about
/// `seconds` in all for each; their throughputs.
fn take_turns<E: wsite_runtime::batch::Engine>(
    one: &mut wsite_runtime::batch::BatchEnv<E>,
    all: &mut wsite_runtime::batch::BatchEnv<E>,
    seconds: f64,
) -> (Throughput, Throughput) {
    let turn = seconds / BATCH_ROUNDS as f64;
    let (mut t_one, mut t_all) = (Throughput::default(), Throughput::default());
    let (mut seed_one, mut seed_all) = (SEED, SEED);
    for _ in 0..BATCH_ROUNDS {
        t_one.add(drive_batch(one, turn, &mut seed_one));
        t_all.add(drive_batch(all, turn, &mut seed_all));
    }
    (t_one, t_all)
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
    for instance in instances {
        let Ok(proof) = prove(instance) else {
            continue;
        };
        stats.states += proof.states;
        stats.feasible += usize::from(proof.verdict == Verdict::Feasible);
        stats.flat += usize::from(proof.engine == prove::Engine::Jit);
        if stats
            .largest
            .as_ref()
            .is_none_or(|(_, n)| proof.states > *n)
        {
            stats.largest = Some((instance.name.clone(), proof.states));
        }
    }
    stats.seconds = started.elapsed().as_secs_f64();
    stats
}

fn states_per_s(p: &ProverStats) -> f64 {
    p.states as f64 / p.seconds.max(1e-9)
}

fn print_human(rows: &[Row], cores: usize) {
    let header = [
        "site".to_string(),
        "compile_ms".to_string(),
        "interp_steps/s(1 core)".to_string(),
        format!("interp_steps/s({cores} cores)"),
        "scaling".to_string(),
        "batched_steps/s(1 core)".to_string(),
        format!("batched_steps/s({cores} cores)"),
        "batched_scaling".to_string(),
        "jit_batched_steps/s(1 core)".to_string(),
        format!("jit_batched_steps/s({cores} cores)"),
        "jit_batched_scaling".to_string(),
        "jit/interp(batched, 1 core)".to_string(),
        "episodes/h".to_string(),
        "jit_compile_ms".to_string(),
        "goal_ns(interp/jit)".to_string(),
        "op_steps/s(interp/jit)".to_string(),
        "prover_states/s(interp/jit)".to_string(),
        "feasible".to_string(),
        "largest_space".to_string(),
    ];
    let mut table = vec![header.to_vec()];
    table.extend(rows.iter().map(human_cells));
    let mut out = std::io::stdout().lock();
    for line in align(&table) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "machine: {cores} available cores");
    let _ = writeln!(
        out,
        "prover: {}-bit state fingerprints",
        prove::FINGERPRINT_BITS
    );
}

fn human_cells(row: &Row) -> Vec<String> {
    let p = &row.prover;
    vec![
        row.site.clone(),
        row.compile_ms
            .map_or("-".to_string(), |ms| format!("{ms:.1}")),
        format!("{:.0}", row.one_core.steps_per_s()),
        format!("{:.0}", row.all_cores.steps_per_s()),
        format!("{:.2}x", row.scaling()),
        format!("{:.0}", row.batched_one.steps_per_s()),
        format!("{:.0}", row.batched.steps_per_s()),
        format!(
            "{:.2}x",
            row.batched.steps_per_s() / row.batched_one.steps_per_s().max(1e-9)
        ),
        opt_cell(row.jit_batched_one, |t| format!("{:.0}", t.steps_per_s())),
        opt_cell(row.jit_batched, |t| format!("{:.0}", t.steps_per_s())),
        opt_cell(row.jit_batched_scaling(), |x| format!("{x:.2}x")),
        opt_cell(row.jit_batched_speedup(), |x| format!("{x:.1}x")),
        format!("{:.0}", row.one_core.episodes_per_hour()),
        format!("{:.1}", row.jit.compile_ms),
        format!(
            "{:.0}/{:.0} ({:.1}x)",
            row.jit.interp_ns,
            row.jit.jit_ns,
            row.jit.interp_ns / row.jit.jit_ns.max(1e-9)
        ),
        row.jit.steps.map_or("-".to_string(), |(i, j)| {
            format!(
                "{:.0}/{:.0} ({:.1}x)",
                i.steps_per_s(),
                j.steps_per_s(),
                j.steps_per_s() / i.steps_per_s().max(1e-9)
            )
        }),
        prover_cell(p, row.prover_jit.as_ref()),
        format!("{}/{}", p.feasible, p.instances),
        p.largest
            .as_ref()
            .map_or("-".to_string(), |(task, n)| format!("{task} ({n})")),
    ]
}

/// Prover states/s on both engines and the speed-up, with how many
/// instances the flat engine decided (the rest went to the interpreter).
fn prover_cell(interp: &ProverStats, jit: Option<&ProverStats>) -> String {
    let Some(jit) = jit else {
        return format!("{:.0}/-", states_per_s(interp));
    };
    format!(
        "{:.0}/{:.0} ({:.1}x, {}/{} flat)",
        states_per_s(interp),
        states_per_s(jit),
        states_per_s(jit) / states_per_s(interp).max(1e-9),
        jit.flat,
        jit.instances
    )
}

/// Pads each column to its widest cell: the first and last left-aligned, the
/// numbers between right-aligned.
fn align(table: &[Vec<String>]) -> Vec<String> {
    let columns = table.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            let cells = table.iter().filter_map(|r| r.get(c));
            cells.map(|s| s.chars().count()).max().unwrap_or(0)
        })
        .collect();
    table
        .iter()
        .map(|row| {
            let cells = row.iter().zip(&widths).enumerate().map(|(c, (s, &w))| {
                if c == 0 || c + 1 == columns {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            });
            cells.collect::<Vec<_>>().join("  ").trim_end().to_string()
        })
        .collect()
}

fn print_json(rows: &[Row], cores: usize) {
    let sites: Vec<serde_json::Value> = rows.iter().map(json_row).collect();
    let report = serde_json::json!({
        "machine": { "cores": cores },
        "prover": { "fingerprint_bits": prove::FINGERPRINT_BITS },
        "sites": sites,
    });
    let _ = writeln!(std::io::stdout().lock(), "{report}");
}

fn json_row(row: &Row) -> serde_json::Value {
    let p = &row.prover;
    let largest = p
        .largest
        .as_ref()
        .map(|(task, states)| serde_json::json!({ "task": task, "states": states }));
    serde_json::json!({
        "site": row.site,
        "compile_ms": row.compile_ms,
        "interp_steps_per_s": row.one_core.steps_per_s(),
        "interp_steps_per_s_all_cores": row.all_cores.steps_per_s(),
        "cores": row.cores,
        "scaling": row.scaling(),
        "batched_steps_per_s_one_core": row.batched_one.steps_per_s(),
        "batched_steps_per_s": row.batched.steps_per_s(),
        "batched_scaling": row.batched.steps_per_s() / row.batched_one.steps_per_s().max(1e-9),
        "batched_envs": BATCH_PER_CORE * row.cores,
        "jit_batched_steps_per_s_one_core": row.jit_batched_one.map(|t| t.steps_per_s()),
        "jit_batched_steps_per_s": row.jit_batched.map(|t| t.steps_per_s()),
        "jit_batched_episodes_per_hour": row.jit_batched_one.map(|t| t.episodes_per_hour()),
        "jit_batched_scaling": row.jit_batched_scaling(),
        "jit_batched_speedup": row.jit_batched_speedup(),
        "jit_compile_ms": row.jit.compile_ms,
        "jit_predicates_compiled": row.jit.compiled,
        "jit_predicates": row.jit.predicates,
        "goal_eval_ns_interp": row.jit.interp_ns,
        "goal_eval_ns_jit": row.jit.jit_ns,
        "goal_eval_jit_speedup": row.jit.interp_ns / row.jit.jit_ns.max(1e-9),
        "op_steps_per_s_interp": row.jit.steps.map(|(i, _)| i.steps_per_s()),
        "op_steps_per_s_jit": row.jit.steps.map(|(_, j)| j.steps_per_s()),
        "episodes_per_hour": row.one_core.episodes_per_hour(),
        "prover_states_per_s": states_per_s(p),
        "prover_states": p.states,
        "prover_seconds": p.seconds,
        "prover_states_per_s_jit": row.prover_jit.as_ref().map(states_per_s),
        "prover_states_jit": row.prover_jit.as_ref().map(|j| j.states),
        "prover_seconds_jit": row.prover_jit.as_ref().map(|j| j.seconds),
        "prover_instances_jit_decided": row.prover_jit.as_ref().map(|j| j.flat),
        "instances": p.instances,
        "feasible": p.feasible,
        "largest_space": largest,
    })
}
