//! The replay of a path the flat search found (a witness, or a sweep's
//! trace to a refused marker) on the interpreter, which is what makes the
//! flat engine's answer a promise: the interpreter's own steps must end as
//! the search said, and they name the steps by stable key.
//!
//! The path is a list of candidate indices. A release build replays it on
//! the interpreter alone: if the flat engine offered its candidates in
//! another order, the interpreter's steps would be other steps, and the
//! path would not end as demanded (the proof is then an `Err`); if it ends
//! as demanded anyway, the steps it names are a true witness of the same
//! length. A trace must also end by clicking the marker the sweep noted,
//! since a refusal names only the invariant. A debug build also plays the
//! path on a fresh flat engine with texts beside it and demands the same
//! candidate at every step (kind, element and text): the engines'
//! agreement along the path, which the verdict does not need, is a check
//! of the JIT that every test's proof makes (DECISIONS 112).

use super::super::{step_of, ProveError, WitnessStep};
use super::{clear_header, FlatSearch, R};
use crate::env::{Action, Env, RewardConfig, Successor};
use crate::interp::exec::Rejection;
use crate::interp::gate::Violation;
use crate::ir;
use crate::jit::{FlatEnv, JitSite};
use crate::layout::TextPool;

/// How a replayed path must end.
#[derive(Clone, Copy)]
pub(super) enum PathEnd<'a> {
    /// The last step succeeds (a witness).
    Success,
    /// The last step clicks `marker`, which `invariant` refuses (a sweep's
    /// trace).
    Refused {
        invariant: &'a str,
        marker: ir::MarkerId,
    },
}

/// How an interpreter's step ended, as far as a [`PathEnd`] asks.
#[derive(Clone, Copy)]
struct Ending<'a> {
    success: bool,
    rejected: bool,
    /// Why a marker was refused, if one was.
    rejection: Option<&'a Rejection>,
}

impl<'a> From<&'a Successor> for Ending<'a> {
    fn from(succ: &'a Successor) -> Ending<'a> {
        Ending {
            success: succ.success,
            rejected: succ.rejected,
            rejection: succ.rejection.as_ref(),
        }
    }
}

impl PathEnd<'_> {
    /// Whether a step clicking `clicked` (the marker its action runs, if
    /// any) may stand where it does: a trace's last step must run the
    /// marker the sweep noted, since the refusal names only the invariant.
    fn clicks(self, clicked: Option<ir::MarkerId>, last: bool) -> bool {
        match self {
            PathEnd::Refused { marker, .. } if last => clicked == Some(marker),
            _ => true,
        }
    }

    /// Whether a step that ended as `step` did (the path's last, or not)
    /// ends as this end demands: a witness succeeds at its last step and
    /// neither succeeds nor is refused before; a trace is refused by the
    /// named invariant at its last step, and neither succeeds nor is
    /// refused before.
    fn met_by(self, step: Ending<'_>, last: bool) -> bool {
        match self {
            PathEnd::Success => step.success == last && (last || !step.rejected),
            PathEnd::Refused { invariant, .. } if last => matches!(
                step.rejection,
                Some(Rejection::Gate(Violation::Invariant { name })) if name == invariant
            ),
            PathEnd::Refused { .. } => !step.rejected && !step.success,
        }
    }
}

/// `path` (candidate indices) as keyed steps, replayed on the interpreter
/// from `env` (the instance's initial environment, taken: a proof has no
/// use for it after), which must end as `end` says; beside it, in a debug
/// build, on `site`'s flat engine.
pub(super) fn replay(
    site: &JitSite,
    search: &FlatSearch<'_>,
    mut env: Env<'_>,
    path: &[usize],
    end: PathEnd<'_>,
    pool: &mut TextPool,
) -> R<Vec<WitnessStep>> {
    let task = env.instance().name.clone();
    let broken = |i: usize, why: &dyn std::fmt::Display| {
        ProveError::self_check(
            &task,
            format!(
                "the JIT prover's witness does not replay on the interpreter (step {}: {why})",
                i + 1
            ),
        )
    };
    let mut beside = match cfg!(debug_assertions) {
        true => Some(Beside::new(site, search, pool)?),
        false => None,
    };
    let mut witness = Vec::with_capacity(path.len());
    for (i, &k) in path.iter().enumerate() {
        let Some(action) = env.actions().get(k).cloned() else {
            return Err(broken(i, &format!("no candidate #{k}")));
        };
        if let Some(beside) = &beside {
            if !beside.offers(&env, k, &action) {
                return Err(broken(i, &"the engines offer different candidates"));
            }
        }
        let last = i + 1 == path.len();
        if !end.clicks(env.marker_clicked(&action).map(|(m, _)| m), last) {
            return Err(broken(i, &"the last step runs another marker"));
        }
        witness.push(step_of(&env, &action));
        let succ = env.successor(&action).map_err(|e| broken(i, &e))?;
        if !end.met_by(Ending::from(&succ), last) {
            return Err(broken(i, &"the interpreter's step ends differently"));
        }
        // After the last step nothing is compared: its state is not shown
        // (a render on the interpreter costs more than the search's steps
        // around it on a small space).
        if !last {
            env.load(succ.state);
            if let Some(beside) = &mut beside {
                beside.step(k, pool).map_err(|e| broken(i, &e))?;
            }
        }
    }
    Ok(witness)
}

/// The flat engine playing the path beside the interpreter, with texts.
struct Beside<'s> {
    flat: FlatEnv<'s>,
    scratch: Vec<u8>,
}

impl<'s> Beside<'s> {
    fn new(site: &'s JitSite, search: &FlatSearch<'_>, pool: &mut TextPool) -> R<Beside<'s>> {
        let start = search.engine.parent.start().clone();
        let flat = FlatEnv::from_start(site, start, RewardConfig::default(), pool)?;
        let scratch = flat.state().to_vec();
        Ok(Beside { flat, scratch })
    }

    /// Whether the flat engine's candidate `k` is the interpreter's
    /// `action`, among as many candidates as `env` offers.
    fn offers(&self, env: &Env<'_>, k: usize, action: &Action) -> bool {
        let Some(candidate) = self.flat.actions().get(k) else {
            return false;
        };
        env.actions().len() == self.flat.actions().len()
            && action.kind == candidate.kind
            && action.element.unwrap_or(0) == candidate.element
            && action.text.as_deref() == self.flat.action_text(candidate)
    }

    /// Takes candidate `k`, then goes back to a zero header, as the search
    /// does, so a path longer than the task's horizon does not end the flat
    /// episode.
    fn step(&mut self, k: usize, pool: &mut TextPool) -> Result<(), crate::jit::FlatError> {
        self.flat.step(k, pool)?;
        self.scratch.copy_from_slice(self.flat.state());
        clear_header(&mut self.scratch);
        self.flat.load_state(&self.scratch, pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ending(success: bool, rejection: Option<&Rejection>) -> Ending<'_> {
        Ending {
            success,
            rejected: rejection.is_some(),
            rejection,
        }
    }

    #[test]
    fn a_witness_succeeds_at_its_last_step_only() {
        let refused = Rejection::Body;
        let end = PathEnd::Success;
        assert!(end.met_by(ending(true, None), true));
        assert!(!end.met_by(ending(false, None), true));
        assert!(end.met_by(ending(false, None), false));
        // Success before the last step: a shorter witness was missed.
        assert!(!end.met_by(ending(true, None), false));
        // A refused step changes nothing, so it is on no shortest witness.
        assert!(!end.met_by(ending(false, Some(&refused)), false));
    }

    #[test]
    fn a_trace_is_refused_by_its_invariant_at_its_last_step_only() {
        let by = |name: &str| Rejection::Gate(Violation::Invariant { name: name.into() });
        let (ours, other) = (by("balanced"), by("other"));
        let end = PathEnd::Refused {
            invariant: "balanced",
            marker: 3,
        };
        assert!(end.met_by(ending(false, Some(&ours)), true));
        assert!(!end.met_by(ending(false, Some(&other)), true));
        assert!(!end.met_by(ending(false, Some(&Rejection::Body)), true));
        assert!(!end.met_by(ending(false, None), true));
        assert!(end.met_by(ending(false, None), false));
        assert!(!end.met_by(ending(false, Some(&ours)), false));
        assert!(!end.met_by(ending(true, None), false));
    }

    #[test]
    fn a_trace_ends_on_the_marker_the_sweep_noted() {
        let end = PathEnd::Refused {
            invariant: "balanced",
            marker: 3,
        };
        assert!(end.clicks(Some(3), true));
        // The same invariant refusing another marker is another pair.
        assert!(!end.clicks(Some(4), true));
        assert!(!end.clicks(None, true));
        // Steps before the last may click anything.
        assert!(end.clicks(Some(4), false));
        assert!(end.clicks(None, false));
        // A witness ends on whatever step succeeds.
        assert!(PathEnd::Success.clicks(None, true));
        assert!(PathEnd::Success.clicks(Some(4), true));
    }
}
