//! The differential check of the soundness campaign: every task instance of a
//! program proven five ways (interpreter and JIT engines, each with and
//! without cone-of-influence pruning, and the pruned interpreter search with
//! the exact reductions of `prove::bounds` tried first), and the results
//! compared. Decided verdicts must agree, feasible witnesses must have one
//! length, every feasible witness must replay on the interpreter, and each
//! engine must give the same proof as the other under the same pruning. A result that is
//! `Undecided` (the budget ran out) is compared with nothing. A program with
//! invariants and markers is also swept for invariant conflicts on both
//! engines, which must find the same conflicts with the same traces in the
//! same number of states. The static bound run on the goal's cone of markers
//! must rule out what it rules out run on every marker. [`Tally`] sums what
//! many sites gave and prints the campaign's one-line summary.

use std::fmt::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use wsite_runtime::env::{self, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, bounds, JitProver, Options, Proof, Verdict};

/// Distinct states per search in the campaign (small sites stay far below).
pub const CAMPAIGN_BUDGET: usize = 20_000;

/// The five ways an instance is proven, in report order (the JIT ones last,
/// absent without a JIT).
pub const WAYS: [&str; 5] = [
    "interpreter pruned",
    "interpreter unpruned",
    "interpreter reduced",
    "jit pruned",
    "jit unpruned",
];

/// One instance on which the four results disagree.
#[derive(Clone, Debug)]
pub struct Disagreement {
    pub instance: String,
    /// What differs, one line per problem.
    pub problems: Vec<(Kind, String)>,
    /// Each way's result, one line each (verdict, witness, states).
    pub results: Vec<String>,
}

/// What one program gave.
#[derive(Clone, Debug, Default)]
pub struct ProgramOutcome {
    pub instances: usize,
    /// Verdicts of the unpruned interpreter search, the reference:
    /// feasible, infeasible, undecided.
    pub verdicts: [usize; 3],
    /// Instances where pruning changed nothing but the state count, and
    /// how many states it saved.
    pub states_pruned: usize,
    pub states_unpruned: usize,
    /// Instances the static bound decided (the reduced search did not run).
    pub decided_by_bound: usize,
    /// Programs the JIT could not compile are proven on the interpreter only.
    pub jit_unavailable: bool,
    /// The invariant sweep ran (the program has invariants and markers),
    /// on the flat engine, and found this many conflicts.
    pub swept: bool,
    pub swept_flat: bool,
    pub sweep_conflicts: usize,
    pub disagreements: Vec<Disagreement>,
}

/// Proves every instance of `program` four ways and compares the results.
pub fn check_program(program: &Program, budget: usize) -> ProgramOutcome {
    let jit = JitProver::new(program).ok();
    let mut out = ProgramOutcome {
        jit_unavailable: jit.is_none(),
        ..ProgramOutcome::default()
    };
    for inst in env::instances(program) {
        out.instances += 1;
        let checked = catch_unwind(AssertUnwindSafe(|| {
            check_instance(program, jit.as_ref(), &inst, budget)
        }));
        let (results, problems) = match checked {
            Ok(r) => r,
            Err(panic) => {
                let why = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
                    .unwrap_or_default();
                let problem = (Kind::Failure, format!("the prover panicked: {why}"));
                (Vec::new(), vec![problem])
            }
        };
        if let Some(Ok(reference)) = results.get(1) {
            let slot = match reference.verdict {
                Verdict::Feasible => 0,
                Verdict::Infeasible => 1,
                Verdict::Undecided => 2,
            };
            out.verdicts[slot] += 1;
        }
        if let Some(Ok(reduced)) = results.get(2) {
            out.decided_by_bound += usize::from(reduced.engine == prove::Engine::Bound);
        }
        if let (Some(Ok(pruned)), Some(Ok(full))) = (results.first(), results.get(1)) {
            out.states_pruned += pruned.states;
            out.states_unpruned += full.states;
        }
        if !problems.is_empty() {
            out.disagreements.push(Disagreement {
                instance: inst.name.clone(),
                problems,
                results: results
                    .iter()
                    .zip(WAYS)
                    .map(|(r, way)| format!("{way}: {}", describe(r)))
                    .collect(),
            });
        }
    }
    check_sweep(program, budget, &mut out);
    out
}

/// The invariant sweep on both engines (`prove::invariant_sweep`, flat where
/// it can play the site, against `prove::invariant_sweep_interp`): the same
/// conflicts with the same traces, the same state count and completeness.
fn check_sweep(program: &Program, budget: usize, out: &mut ProgramOutcome) {
    if program.invariants.is_empty() || program.markers.is_empty() {
        return;
    }
    let options = Options {
        budget,
        ..Options::default()
    };
    let swept = catch_unwind(AssertUnwindSafe(|| {
        (
            prove::invariant_sweep(program, options),
            prove::invariant_sweep_interp(program, options),
        )
    }));
    out.swept = true;
    let problem = match swept {
        Ok((Ok(flat), Ok(interp))) => {
            out.swept_flat = flat.engine == prove::Engine::Jit;
            out.sweep_conflicts = interp.conflicts.len();
            let same = flat.states == interp.states
                && flat.complete == interp.complete
                && flat.conflicts == interp.conflicts;
            (!same).then(|| {
                (
                    Kind::Engines,
                    format!(
                        "the sweeps differ: {:?} ({} states, complete {}) against the interpreter's {:?} ({} states, complete {})",
                        flat.conflicts, flat.states, flat.complete,
                        interp.conflicts, interp.states, interp.complete
                    ),
                )
            })
        }
        Ok((flat, interp)) => Some((
            Kind::Failure,
            format!("a sweep failed: {:?} / {:?}", flat.err(), interp.err()),
        )),
        Err(_) => Some((Kind::Failure, "a sweep panicked".to_string())),
    };
    if let Some(problem) = problem {
        out.disagreements.push(Disagreement {
            instance: "invariant sweep".into(),
            problems: vec![problem],
            results: Vec::new(),
        });
    }
}

type Outcome = Result<Proof, prove::ProveError>;

/// Every instance's four results, one line each (for looking at a site).
pub fn describe_program(program: &Program, budget: usize) -> String {
    let jit = JitProver::new(program).ok();
    let mut s = String::new();
    for inst in env::instances(program) {
        let (results, problems) = check_instance(program, jit.as_ref(), &inst, budget);
        let _ = writeln!(s, "-- task instance `{}`", inst.name);
        for (r, way) in results.iter().zip(WAYS) {
            let _ = writeln!(s, "   {way}: {}", describe(r));
        }
        for (kind, p) in &problems {
            let _ = writeln!(s, "   problem ({}): {p}", kind.as_str());
        }
    }
    s
}

/// What kind of problem a disagreement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Pruning changed a verdict or a witness's length.
    Pruning,
    /// The engines differ under the same pruning.
    Engines,
    /// The exact reductions changed a verdict or a witness's length.
    Reduction,
    /// A feasible witness does not replay on the interpreter.
    Replay,
    /// A search failed or panicked.
    Failure,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Pruning,
        Kind::Engines,
        Kind::Reduction,
        Kind::Replay,
        Kind::Failure,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Pruning => "pruning",
            Kind::Engines => "engines",
            Kind::Reduction => "reduction",
            Kind::Replay => "replay",
            Kind::Failure => "failure",
        }
    }
}

/// The five results (the JIT ones absent without a JIT) and the problems.
fn check_instance(
    program: &Program,
    jit: Option<&JitProver>,
    inst: &TaskInstance,
    budget: usize,
) -> (Vec<Outcome>, Vec<(Kind, String)>) {
    let pruned = Options {
        budget,
        prune: true,
        horizon: None,
        reduce: false,
        explain: true,
    };
    let full = Options {
        prune: false,
        ..pruned
    };
    let reduced = Options {
        reduce: true,
        ..pruned
    };
    let mut results = vec![
        prove::prove_instance(program, inst, pruned),
        prove::prove_instance(program, inst, full),
        prove::prove_instance(program, inst, reduced),
    ];
    if let Some(jit) = jit {
        results.push(jit.prove(inst, pruned));
        results.push(jit.prove(inst, full));
    }
    let mut problems: Vec<(Kind, String)> = Vec::new();
    let errors = results.iter().filter(|r| r.is_err()).count();
    if errors > 0 && errors < results.len() {
        let interpreter_ok = results.iter().take(3).all(Result::is_ok);
        for (i, (r, way)) in results.iter().zip(WAYS).enumerate() {
            if let Err(e) = r {
                let kind = if i >= 3 && interpreter_ok {
                    Kind::Engines
                } else {
                    Kind::Failure
                };
                problems.push((kind, format!("{way} failed: {e}")));
            }
        }
    }
    // Pruning against no pruning on each engine, engine against engine
    // under the same pruning, and the reductions against the plain pruned
    // search; transitivity covers the rest.
    let pairs = [
        (0, 1, Kind::Pruning),
        (3, 4, Kind::Pruning),
        (0, 3, Kind::Engines),
        (1, 4, Kind::Engines),
        (0, 2, Kind::Reduction),
    ];
    for (a, b, kind) in pairs {
        let (Some(Ok(x)), Some(Ok(y))) = (results.get(a), results.get(b)) else {
            continue;
        };
        let decided = x.verdict != Verdict::Undecided && y.verdict != Verdict::Undecided;
        let problem = if decided && x.verdict != y.verdict {
            Some(format!(
                "verdicts differ: {} {}, {} {}",
                WAYS[a],
                x.verdict.as_str(),
                WAYS[b],
                y.verdict.as_str()
            ))
        } else if decided && x.verdict == Verdict::Feasible && x.witness.len() != y.witness.len() {
            Some(format!(
                "witness lengths differ: {} {}, {} {}",
                WAYS[a],
                x.witness.len(),
                WAYS[b],
                y.witness.len()
            ))
        } else if kind == Kind::Engines
            && (x.verdict != y.verdict || x.witness != y.witness || x.states != y.states)
        {
            // The engines search the same states in the same order.
            Some(format!(
                "the engines differ: {} ({}, {} states) and {} ({}, {} states)",
                WAYS[a],
                x.verdict.as_str(),
                x.states,
                WAYS[b],
                y.verdict.as_str(),
                y.states
            ))
        } else {
            None
        };
        problems.extend(problem.map(|p| (kind, p)));
    }
    problems.extend(cone_bound_problem(program, inst).map(|p| (Kind::Reduction, p)));
    for (r, way) in results.iter().zip(WAYS) {
        let Ok(p) = r else { continue };
        if p.verdict == Verdict::Feasible {
            match prove::replay(program, inst, &p.witness) {
                Ok(true) => {}
                Ok(false) => problems.push((
                    Kind::Replay,
                    format!("{way}: the witness does not succeed on replay"),
                )),
                Err(e) => problems.push((
                    Kind::Replay,
                    format!("{way}: the witness does not replay: {e}"),
                )),
            }
        }
    }
    (results, problems)
}

/// The static bound run on the goal's cone of markers against the same
/// bound run on every marker: the same goal parts ruled out, and a fixed
/// point found no later.
fn cone_bound_problem(program: &Program, inst: &TaskInstance) -> Option<String> {
    let env = env::Env::new(program, inst, env::RewardConfig::default()).ok()?;
    let horizon = program.tasks.get(inst.task)?.horizon;
    let cone = bounds::bound(program, &env, horizon);
    let every = bounds::bound_every_marker(program, &env, horizon);
    let ruled_out = |b: &Option<bounds::Bound>| b.as_ref().map(|b| b.impossible.clone());
    let fixed = |b: &Option<bounds::Bound>| b.as_ref().is_some_and(|b| b.any_horizon);
    let agree = ruled_out(&cone) == ruled_out(&every) && (fixed(&cone) || !fixed(&every));
    (!agree)
        .then(|| format!("the bound on the goal's cone gives {cone:?}, on every marker {every:?}"))
}

fn describe(r: &Outcome) -> String {
    match r {
        Err(e) => format!("error: {e}"),
        Ok(p) => {
            let steps: Vec<String> = p.witness.iter().map(|s| s.to_string()).collect();
            let mut s = format!(
                "{} after {} states, depth {}",
                p.verdict.as_str(),
                p.states,
                p.depth
            );
            if !steps.is_empty() {
                let _ = write!(s, "; witness [{}]", steps.join(", "));
            }
            s
        }
    }
}

/// Sums over a campaign.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub sites: usize,
    /// Sites that did not compile (a generator bug for generated sites).
    pub not_compiled: usize,
    pub instances: usize,
    pub verdicts: [usize; 3],
    pub states_pruned: usize,
    pub states_unpruned: usize,
    pub decided_by_bound: usize,
    pub jit_unavailable: usize,
    pub disagreements: usize,
    /// Programs swept for invariant conflicts, those the flat engine swept,
    /// and the conflicts found.
    pub sweeps: usize,
    pub sweeps_flat: usize,
    pub sweep_conflicts: usize,
    /// Instances with a problem of each [`Kind`], in `Kind::ALL` order.
    pub by_kind: [usize; 5],
    /// Sites with at least one disagreement.
    pub disagreeing_sites: usize,
}

impl Tally {
    pub fn add(&mut self, outcome: &ProgramOutcome) {
        self.sites += 1;
        self.instances += outcome.instances;
        for (total, n) in self.verdicts.iter_mut().zip(outcome.verdicts) {
            *total += n;
        }
        self.states_pruned += outcome.states_pruned;
        self.states_unpruned += outcome.states_unpruned;
        self.decided_by_bound += outcome.decided_by_bound;
        self.jit_unavailable += usize::from(outcome.jit_unavailable);
        self.disagreements += outcome.disagreements.len();
        self.sweeps += usize::from(outcome.swept);
        self.sweeps_flat += usize::from(outcome.swept_flat);
        self.sweep_conflicts += outcome.sweep_conflicts;
        for d in &outcome.disagreements {
            for (i, kind) in Kind::ALL.iter().enumerate() {
                self.by_kind[i] += usize::from(d.problems.iter().any(|(k, _)| k == kind));
            }
        }
        self.disagreeing_sites += usize::from(!outcome.disagreements.is_empty());
    }

    pub fn add_uncompiled(&mut self) {
        self.sites += 1;
        self.not_compiled += 1;
    }

    /// The campaign's one-line summary.
    pub fn summary(&self, what: &str, seconds: f64) -> String {
        let kinds: Vec<String> = Kind::ALL
            .iter()
            .zip(self.by_kind)
            .map(|(k, n)| format!("{} {n}", k.as_str()))
            .collect();
        format!(
            "soundness {what}: {} sites ({} not compiled, {} without JIT), {} task instances \
             ({} feasible, {} infeasible, {} undecided), {} disagreements on {} sites \
             ({}), states pruned/unpruned {}/{}, decided by the static bound {}, \
             invariant sweeps {} ({} on the flat engine, {} conflicts), {seconds:.1} s",
            self.sites,
            self.not_compiled,
            self.jit_unavailable,
            self.instances,
            self.verdicts[0],
            self.verdicts[1],
            self.verdicts[2],
            self.disagreements,
            self.disagreeing_sites,
            kinds.join(", "),
            self.states_pruned,
            self.states_unpruned,
            self.decided_by_bound,
            self.sweeps,
            self.sweeps_flat,
            self.sweep_conflicts,
        )
    }
}

/// A report of one site's disagreements, with everything needed to turn it
/// into a fixture.
pub fn report(label: &str, source: &str, outcome: &ProgramOutcome) -> String {
    let mut s = format!("==== disagreement: {label}\n");
    for d in &outcome.disagreements {
        let _ = writeln!(s, "-- task instance `{}`", d.instance);
        for (kind, p) in &d.problems {
            let _ = writeln!(s, "   problem ({}): {p}", kind.as_str());
        }
        for r in &d.results {
            let _ = writeln!(s, "   {r}");
        }
    }
    let _ = writeln!(s, "-- source of {label}:\n{source}==== end of {label}");
    s
}
