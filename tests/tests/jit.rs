//! The JIT against the interpreter on the real examples: random play through
//! every task instance, and at every state every compiled invariant, the task's
//! goal and progress predicates (in the task frame, template binder bound) and
//! every marker `requires` (for sampled argument tuples) evaluated by both
//! engines — the interpreter on the state decoded from the bytes, the JIT on
//! the bytes — which must give the same `bool` or the same fault. Also: how
//! many predicates compile, why the others fall back, and how fast each engine
//! evaluates the goals (run with `--release --nocapture` for the figures).

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::time::Instant;
use wsite_runtime::env::{self, Env, RewardConfig, TaskInstance};
use wsite_runtime::interp::eval::{eval_bool, Context, Fault};
use wsite_runtime::interp::exec::{run_setup, World};
use wsite_runtime::ir::{Program, Ty, Value};
use wsite_runtime::jit::{JitError, JitFault, JitPredicate, JitSite};
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_tests::Lcg;

/// The task frame an environment evaluates goals in: the template binder
/// bound, then `setup` run (as `Env::reset` does).
fn task_frame(program: &Program, inst: &TaskInstance) -> Vec<Value> {
    let task = &program.tasks[inst.task];
    let mut frame = vec![Value::None; task.frame as usize];
    if let (Some(t), Some(id)) = (&task.template, inst.binding) {
        frame[t.scan.binder as usize] = Value::Row(id);
    }
    let mut world = World::initial(program);
    run_setup(program, &mut world, &mut frame, &task.setup).unwrap();
    frame
}

/// Whether both engines agree (type confusions may word their messages
/// differently).
fn same(i: &Result<bool, Fault>, j: &Result<bool, JitFault>) -> bool {
    match (i, j) {
        (Ok(a), Ok(b)) => a == b,
        (Err(Fault::TypeConfusion(_)), Err(JitFault::Fault(Fault::TypeConfusion(_)))) => true,
        (Err(f), Err(JitFault::Fault(g))) => f == g,
        _ => false,
    }
}

#[derive(Default)]
struct Tally {
    compared: usize,
    trues: usize,
    faults: usize,
    /// Faults met, by kind.
    kinds: std::collections::BTreeMap<String, usize>,
}

impl Tally {
    /// Evaluates `cond` with both engines and demands the same result.
    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        what: &str,
        pred: &JitPredicate,
        ctx: &Context<'_>,
        frame: &[Value],
        site: &JitSite,
        bytes: &[u8],
        pool: &mut TextPool,
        cond: &wsite_runtime::ir::Expr,
    ) {
        if !pred.is_compiled() {
            return;
        }
        let jframe = site.frame(frame, pool).unwrap();
        let jit = pred.eval(bytes, &jframe, pool);
        let interp = eval_bool(ctx, &mut frame.to_vec(), cond);
        assert!(
            same(&interp, &jit),
            "{what}: {}: interpreter {interp:?}, jit {jit:?}, frame {frame:?}",
            pred.name()
        );
        self.compared += 1;
        self.trues += usize::from(interp == Ok(true));
        if let Err(f) = &interp {
            self.faults += 1;
            let kind = format!("{f:?}");
            let kind = kind.split(['(', ' ']).next().unwrap_or("").to_string();
            *self.kinds.entry(kind).or_default() += 1;
        }
    }
}

/// The first `limit` tuples of the product of `domains`, in order.
fn combinations(domains: &[Vec<Value>], limit: usize) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = vec![Vec::new()];
    for d in domains {
        out = out
            .iter()
            .flat_map(|prefix| {
                d.iter().map(move |v| {
                    let mut t = prefix.clone();
                    t.push(v.clone());
                    t
                })
            })
            .take(limit)
            .collect();
    }
    out
}

/// Every text the tables hold (coupon codes, names, …), deduplicated.
fn table_texts(world: &World) -> Vec<Value> {
    let mut out: Vec<Value> = world
        .db
        .tables
        .iter()
        .flat_map(|t| t.rows().iter().flat_map(|r| r.values.iter()))
        .filter(|v| matches!(v, Value::Text(_)))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What one instance's checks share.
struct Play<'a> {
    program: &'a Program,
    layout: &'a StateLayout,
    site: &'a JitSite,
    task: usize,
    /// The task frame (template binder bound, `setup` run).
    frame: Vec<Value>,
    typeable: Vec<String>,
}

impl Play<'_> {
    /// Both engines on every predicate in the state `bytes` hold (decoded
    /// into `twin` for the interpreter), with `tuples` argument tuples per
    /// marker (`None`: every combination, up to 200). A buffer that does not
    /// decode is skipped.
    #[allow(clippy::too_many_arguments)]
    fn check_state(
        &self,
        twin: &mut Env<'_>,
        bytes: &[u8],
        pool: &mut TextPool,
        rng: &mut Lcg,
        tuples: Option<usize>,
        what: &str,
        tally: &mut Tally,
    ) {
        let (program, site) = (self.program, self.site);
        if twin.restore_state(self.layout, pool, bytes).is_err() {
            return;
        }
        let world = twin.world();
        let nav = twin.navigation();
        let task = &program.tasks[self.task];

        let plain = world.context(program, None);
        for (i, inv) in program.invariants.iter().enumerate() {
            let pred = site.invariant(i).unwrap();
            tally.check(what, pred, &plain, &[], site, bytes, pool, &inv.cond);
        }

        let ctx = world.context(program, Some(nav));
        if let Some(goal) = &task.goal {
            let pred = site.goal(self.task).unwrap();
            tally.check(what, pred, &ctx, &self.frame, site, bytes, pool, goal);
        }
        for (i, (_, p)) in task.progress.iter().enumerate() {
            let pred = site.progress(self.task, i).unwrap();
            tally.check(what, pred, &ctx, &self.frame, site, bytes, pool, p);
        }

        let texts = table_texts(world);
        for (m, marker) in program.markers.iter().enumerate() {
            let domains: Vec<Vec<Value>> = marker
                .params
                .iter()
                .map(|p| {
                    wsite_tests::argument_values(program, world, &p.ty, &self.typeable, &texts)
                })
                .collect();
            let tuples = match tuples {
                None => combinations(&domains, 200),
                Some(n) => (0..n)
                    .map(|_| {
                        domains
                            .iter()
                            .map(|d| d[rng.next(d.len())].clone())
                            .collect()
                    })
                    .collect(),
            };
            for args in tuples {
                for (i, req) in marker.requires.iter().enumerate() {
                    let pred = site.requires(m, i).unwrap();
                    tally.check(what, pred, &ctx, &args, site, bytes, pool, &req.cond);
                }
            }
        }
    }

    /// Overwrites a few random table and session cells of `bytes` with values
    /// of their types that play rarely reaches: extreme numbers, other texts
    /// of the pool, references to rows that do not exist, `none` in optional
    /// fields.
    fn perturb(&self, bytes: &mut [u8], pool_len: usize, rng: &mut Lcg) {
        let (program, layout) = (self.program, self.layout);
        let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        for _ in 0..4 {
            let (cells, i, ty) = if rng.next(5) == 0 && !program.session.is_empty() {
                let s = rng.next(program.session.len());
                (layout.session, s, &program.session[s].ty)
            } else {
                let t = rng.next(program.tables.len());
                let tl = &layout.tables[t];
                let count = u32_at(bytes, tl.count) as usize;
                let fields = &program.tables[t].fields;
                if count == 0 || fields.is_empty() {
                    continue;
                }
                let f = rng.next(fields.len());
                (tl.columns[f], rng.next(count), &fields[f].ty)
            };
            let (optional, base) = match ty {
                Ty::Optional(inner) => (true, &**inner),
                other => (false, other),
            };
            let word = match base {
                Ty::Int | Ty::Money => {
                    let picks = [0, 1, -1, 2, 1000, i64::MAX, i64::MIN, i64::MAX - 1];
                    picks[rng.next(picks.len())]
                }
                Ty::Bool => rng.next(2) as i64,
                Ty::Text => rng.next(pool_len) as i64,
                Ty::Date => program.site.today.day_number() + rng.next(1000) as i64 - 500,
                Ty::Time => rng.next(24 * 60) as i64,
                Ty::Enum(e) => rng.next(program.enums[*e as usize].variants.len()) as i64,
                Ty::Row(rt) => {
                    let tl = &layout.tables[*rt as usize];
                    let count = u32_at(bytes, tl.count) as usize;
                    if count == 0 || rng.next(6) == 0 {
                        999_999
                    } else {
                        let at = tl.ids + 8 * rng.next(count);
                        i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
                    }
                }
                Ty::Optional(_) => continue,
            };
            let absent = optional && rng.next(4) == 0;
            let word = if absent { 0 } else { word };
            let at = cells.word_at(i);
            bytes[at..at + 8].copy_from_slice(&word.to_le_bytes());
            bytes[cells.present_at(i)] = u8::from(!absent);
        }
    }
}

/// Random play on `inst`, both engines on every predicate at every state
/// and at a perturbed copy of it.
#[allow(clippy::too_many_arguments)]
fn check_instance(
    program: &Program,
    layout: &StateLayout,
    site: &JitSite,
    pool: &mut TextPool,
    inst: &TaskInstance,
    seed: u64,
    exhaustive: bool,
    tally: &mut Tally,
) {
    let mut env = Env::new(program, inst, RewardConfig::default()).unwrap();
    let mut twin = Env::new(program, inst, RewardConfig::default()).unwrap();
    let play = Play {
        program,
        layout,
        site,
        task: inst.task,
        frame: task_frame(program, inst),
        typeable: env.typeable_values().to_vec(),
    };
    let mut rng = Lcg(seed);
    for step in 0..70 {
        if env.done() {
            env.reset().unwrap();
        }
        let bytes = env.encode_state(layout, pool).unwrap();
        let what = format!("{} step {step}", inst.name);
        // Every combination of arguments once per site, then three random
        // tuples per state.
        let tuples = if exhaustive && step == 0 {
            None
        } else {
            Some(3)
        };
        play.check_state(&mut twin, &bytes, pool, &mut rng, tuples, &what, tally);

        let mut odd = bytes.clone();
        play.perturb(&mut odd, pool.len(), &mut rng);
        let what = format!("{what} (perturbed)");
        play.check_state(&mut twin, &odd, pool, &mut rng, Some(1), &what, tally);

        let actions = env.actions().to_vec();
        let action = &actions[rng.next(actions.len())];
        env.step(action).unwrap();
    }
}

#[test]
fn jit_and_interpreter_agree_on_every_example() {
    let (mut compiled, mut fallback) = (0, 0);
    let mut tally = Tally::default();
    for (name, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        let mut pool = TextPool::for_program(&program);
        let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
        let (c, f) = site.compile_stats();
        compiled += c;
        fallback += f;
        eprintln!("{name}: {c} predicates compiled, {f} fall back");
        for p in site.predicates() {
            match p.fallback_reason() {
                None => {}
                Some(JitError::Unsupported(why)) => eprintln!("  {}: {why}", p.name()),
                Some(other) => panic!("{name}: {}: {other}", p.name()),
            }
        }
        for (i, inst) in env::instances(&program).iter().enumerate() {
            check_instance(
                &program,
                &layout,
                &site,
                &mut pool,
                inst,
                17 + i as u64,
                i == 0,
                &mut tally,
            );
        }
    }
    eprintln!(
        "all examples: {compiled} compiled, {fallback} fall back; {} evaluations compared ({} true, {} faults: {:?})",
        tally.compared, tally.trues, tally.faults, tally.kinds
    );
    assert!(compiled > 0 && compiled >= 4 * fallback, "too few compile");
    assert!(
        tally.compared > 10_000,
        "only {} comparisons",
        tally.compared
    );
    assert!(tally.trues > 0 && tally.trues < tally.compared);
    assert!(tally.kinds.contains_key("MissingRow") && tally.kinds.contains_key("Overflow"));
}

/// Evaluations per second of each task's goal, by the interpreter and by the
/// JIT, on the start state of its first instance. 100k evaluations each in
/// release builds (`cargo test --release -p wsite-tests --test jit -- --nocapture`).
#[test]
fn goal_evaluation_speed() {
    let n = if cfg!(debug_assertions) {
        2_000
    } else {
        100_000
    };
    let (mut t_interp, mut t_jit, mut goals) = (0.0, 0.0, 0);
    for (name, program) in wsite_tests::example_programs() {
        let layout = StateLayout::for_program(&program).unwrap();
        let mut pool = TextPool::for_program(&program);
        let start = Instant::now();
        let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
        eprintln!(
            "{name}: {} predicates compiled in {:.1} ms",
            site.compile_stats().0,
            start.elapsed().as_secs_f64() * 1e3
        );
        let instances = env::instances(&program);
        for (t, task) in program.tasks.iter().enumerate() {
            let (Some(goal), Some(pred)) = (&task.goal, site.goal(t)) else {
                continue;
            };
            if !pred.is_compiled() {
                continue;
            }
            let Some(inst) = instances.iter().find(|i| i.task == t) else {
                continue;
            };
            let env = Env::new(&program, inst, RewardConfig::default()).unwrap();
            let bytes = env.encode_state(&layout, &mut pool).unwrap();
            let frame = task_frame(&program, inst);
            let jframe = site.frame(&frame, &mut pool).unwrap();
            let ctx = env.world().context(&program, Some(env.navigation()));

            let mut scratch = frame.clone();
            let start = Instant::now();
            let mut expected = Ok(false);
            for _ in 0..n {
                expected = eval_bool(&ctx, std::hint::black_box(&mut scratch), goal);
            }
            let interp = start.elapsed().as_secs_f64();
            let start = Instant::now();
            let mut got = Ok(false);
            for _ in 0..n {
                got = pred.eval(std::hint::black_box(&bytes), &jframe, &mut pool);
            }
            let jit = start.elapsed().as_secs_f64();
            assert!(same(&expected, &got), "{}: results differ", task.name);
            eprintln!(
                "{name}: `{}`: interpreter {:.0} ns, jit {:.0} ns per evaluation ({:.1}x)",
                task.name,
                interp / n as f64 * 1e9,
                jit / n as f64 * 1e9,
                interp / jit.max(1e-12)
            );
            t_interp += interp;
            t_jit += jit;
            goals += 1;
        }
    }
    eprintln!(
        "{goals} goals, {n} evaluations each: interpreter {:.0} ns, jit {:.0} ns on average ({:.1}x)",
        t_interp / (goals * n) as f64 * 1e9,
        t_jit / (goals * n) as f64 * 1e9,
        t_interp / t_jit.max(1e-12)
    );
    assert!(goals > 0);
}
