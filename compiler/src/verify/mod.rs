//! The checks that run the site: the prover's verdict on every task instance
//! (F401–F406) and the invariant sweep (C302).
//!
//! The runtime's prover works on the IR and speaks in indices and stable keys;
//! this module maps what it found back to source spans (the task, the goal
//! conjunct that never held, the marker that could have made it hold, the
//! `requires` that refused it) and words it as diagnostics a person or a
//! repair loop can act on. It is pure, like the rest of the library: the CLI
//! times the searches, this module only runs them.

mod answer;
mod explain;
mod lookup;

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::SourceFile;
use lookup::Ast;
use wsite_runtime::env::{self, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Proof, ProveError, Verdict, WitnessStep};

/// What the prover concluded about one task instance.
#[derive(Clone, Debug)]
pub struct TaskOutcome {
    /// `buy_x1` or `opening_hours[c=3]`.
    pub instance: String,
    pub task: String,
    /// `operation` or `retrieval`.
    pub kind: &'static str,
    pub instruction: String,
    pub horizon: u32,
    pub verdict: Verdict,
    /// A shortest witness, when feasible.
    pub witness: Vec<WitnessStep>,
    pub states: usize,
    /// Why not, when not feasible (for people).
    pub reason: Option<String>,
}

/// Proves every task instance of `program` (or only those of task `only`) and
/// sweeps its invariants (when proving everything and `sweep_invariants`), reporting F401–F406 and
/// C302 into `diags`.
pub fn verify(
    files: &[SourceFile],
    texts: &[&str],
    program: &Program,
    options: prove::Options,
    only: Option<&str>,
    sweep_invariants: bool,
    diags: &mut Diagnostics,
) -> Vec<TaskOutcome> {
    let ast = Ast::new(files, texts);
    let all = env::instances(program);
    // One compilation serves every instance (and the longer re-searches);
    // without it (no JIT backend, a layout the program does not fit) the
    // interpreter proves everything.
    let jit = (!all.is_empty())
        .then(|| prove::JitProver::new(program).ok())
        .flatten();
    let prover = Prover {
        program,
        jit: jit.as_ref(),
    };
    let mut outcomes = Vec::new();
    for (t, task) in program.tasks.iter().enumerate() {
        let wanted = |i: &&TaskInstance| only.is_none_or(|o| o == task.name || o == i.name);
        let mine: Vec<&TaskInstance> = all.iter().filter(|i| i.task == t).filter(wanted).collect();
        if only.is_some_and(|o| o != task.name) && mine.is_empty() {
            continue;
        }
        if task.template.is_some() && mine.is_empty() {
            explain::no_instance(&ast, &task.name, diags);
        }
        for inst in mine {
            outcomes.push(verify_instance(&ast, &prover, inst, options, diags));
        }
    }
    if only.is_none() && sweep_invariants {
        sweep(&ast, program, options, diags);
    }
    outcomes
}

/// Proves on the JIT's flat engine when there is one for the program (it
/// hands instances it cannot play to the interpreter itself).
struct Prover<'a> {
    program: &'a Program,
    jit: Option<&'a prove::JitProver>,
}

impl Prover<'_> {
    fn prove(&self, inst: &TaskInstance, options: prove::Options) -> Result<Proof, ProveError> {
        match self.jit {
            Some(jit) => jit.prove(inst, options),
            None => prove::prove_instance(self.program, inst, options),
        }
    }
}

fn verify_instance(
    ast: &Ast<'_>,
    prover: &Prover<'_>,
    inst: &TaskInstance,
    options: prove::Options,
    diags: &mut Diagnostics,
) -> TaskOutcome {
    let program = prover.program;
    let task = &program.tasks[inst.task];
    let mut outcome = TaskOutcome {
        instance: inst.name.clone(),
        task: task.name.clone(),
        kind: if task.answer.is_some() {
            "retrieval"
        } else {
            "operation"
        },
        instruction: Env::new(program, inst, RewardConfig::default())
            .map(|e| e.observation().instruction)
            .unwrap_or_default(),
        horizon: task.horizon,
        verdict: Verdict::Infeasible,
        witness: Vec::new(),
        states: 0,
        reason: None,
    };
    match prove::frozen_conjuncts(program, inst) {
        Ok(frozen) if !frozen.is_empty() => {
            outcome.reason = Some(explain::frozen(ast, &task.name, &inst.name, &frozen, diags));
            return outcome;
        }
        Ok(_) => {}
        Err(why) => {
            outcome.reason = Some(explain::cannot_start(
                ast,
                &task.name,
                &inst.name,
                &why.to_string(),
                diags,
            ));
            return outcome;
        }
    }
    let proof = match prover.prove(inst, options) {
        Ok(p) => p,
        Err(why) => {
            let (task, instance, text) = (&task.name, &inst.name, why.to_string());
            let reason = if starts_wrong(&why) {
                explain::cannot_start(ast, task, instance, &text, diags)
            } else {
                // Neither proven nor refuted: the prover itself failed.
                outcome.verdict = Verdict::Undecided;
                explain::prover_failed(ast, task, instance, &text, diags)
            };
            outcome.reason = Some(reason);
            return outcome;
        }
    };
    outcome.verdict = proof.verdict;
    outcome.states = proof.states;
    if proof.initially_true {
        explain::initially_true(ast, &task.name, &inst.name, diags);
    }
    match proof.verdict {
        Verdict::Feasible => outcome.witness = proof.witness,
        Verdict::Infeasible | Verdict::Undecided => {
            let longer = needed_horizon(prover, inst, &proof, options);
            outcome.reason = Some(explain::no_witness(
                ast, program, inst, &proof, longer, diags,
            ));
        }
    }
    outcome
}

/// When the horizon cut the search short: the length of a shortest witness
/// within four times the horizon (and 60 more steps at most), if there is one.
fn needed_horizon(
    prover: &Prover<'_>,
    inst: &TaskInstance,
    proof: &Proof,
    options: prove::Options,
) -> Option<usize> {
    if proof.verdict != Verdict::Infeasible || !proof.cut_by_horizon {
        return None;
    }
    let h = prover.program.tasks.get(inst.task)?.horizon;
    // Only a witness's length is wanted: no explanation of a failure.
    let longer = prove::Options {
        horizon: Some(h.saturating_mul(4).min(h.saturating_add(60))),
        explain: false,
        ..options
    };
    let p = prover.prove(inst, longer).ok()?;
    (p.verdict == Verdict::Feasible).then_some(p.witness.len())
}

/// The sweep explores every action with every task's typeable values, so its
/// space dwarfs any one task's; it stops at this many states (shallowest
/// first, so the conflicts it finds have their shortest traces).
pub const SWEEP_BUDGET: usize = 100_000;

/// C302: every (marker, invariant) refusal the sweep reaches.
fn sweep(ast: &Ast<'_>, program: &Program, options: prove::Options, diags: &mut Diagnostics) {
    if program.invariants.is_empty() || program.markers.is_empty() {
        return;
    }
    let options = prove::Options {
        budget: options.budget.min(SWEEP_BUDGET),
        ..options
    };
    let report = match prove::invariant_sweep(program, options) {
        Ok(report) => report,
        // The flat sweep failed a self-check: the interpreter's sweep is the
        // exact path, so the C302 findings stay whole (the soundness
        // campaign calls the flat sweep itself, so such a failure cannot
        // pass the tests unseen).
        Err(ProveError::SelfCheck { .. }) => {
            match prove::invariant_sweep_interp(program, options) {
                Ok(report) => report,
                Err(_) => return,
            }
        }
        // No session can start from the initial state (its start page
        // faults): nothing is reachable to sweep, and each task that starts
        // there reports the failure itself (F401).
        Err(_) => return,
    };
    for c in &report.conflicts {
        let Some(marker) = ast.marker(&c.marker) else {
            continue;
        };
        let trace: Vec<String> = c.trace.iter().map(ToString::to_string).collect();
        let mut d = Diagnostic::new(
            Code::C302,
            marker.name.span,
            format!(
                "marker `{}` can be refused by invariant `{}`",
                c.marker, c.invariant
            ),
        )
        .label(format!("refused after {} steps from the start", trace.len()))
        .help(format!(
            "add a `requires` to `{}` that rules these states out, so the agent is told why, or relax the invariant",
            c.marker
        ))
        .object(format!("marker {}", c.marker))
        .evidence(serde_json::json!({ "invariant": c.invariant, "trace": trace }));
        if let Some(inv) = ast.invariant(&c.invariant) {
            d = d.related(inv.name.span, "this invariant would break");
        }
        diags.push(d);
    }
}

/// Whether the prover's error is the instance's own: its `setup` or start
/// page fails, which the interpreter reports when it makes the episode.
fn starts_wrong(why: &ProveError) -> bool {
    use wsite_runtime::jit::FlatError;
    matches!(
        why,
        ProveError::Instance(_) | ProveError::Flat(FlatError::Instance(_))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use wsite_runtime::env::EnvError;
    use wsite_runtime::jit::FlatError;

    #[test]
    fn only_the_instances_own_failures_read_as_cannot_start() {
        assert!(starts_wrong(&ProveError::Instance(EnvError::TakesNoAnswer)));
        assert!(starts_wrong(&ProveError::Flat(FlatError::Instance(
            EnvError::TakesNoAnswer
        ))));
        let disagreed = ProveError::SelfCheck {
            task: "t".into(),
            check: "two verdicts".into(),
        };
        assert!(!starts_wrong(&disagreed));
        assert!(!starts_wrong(&ProveError::Flat(FlatError::EpisodeOver)));
        assert!(!starts_wrong(&ProveError::Compact(
            "a frontier entry is missing".into()
        )));
    }
}
