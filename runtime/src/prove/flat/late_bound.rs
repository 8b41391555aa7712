//! When the flat prover consults the static bound (`bounds`, F401). The
//! bound only ever decides an instance infeasible, and it pays off on
//! spaces too large to search; on the many small ones it is a fixed cost
//! per proof (a twentieth of proving the largest space of `cascade_cu`,
//! and more on its small ones). So the flat search starts first, and the
//! bound is consulted once: when the search has reached [`BOUND_AFTER`]
//! distinct states (stopping it if the bound decides), or when it ended
//! without a witness, or before the interpreter takes over a search the
//! flat engine could not finish.
//!
//! *Why the proofs are those the bound-first order gives.* Whatever the
//! bound says, the search it does not stop is the same search (it reads
//! nothing the bound computes), and a verdict from the bound is returned
//! in place of the search's just as before. The one order-dependent case
//! is a search that finds a witness within [`BOUND_AFTER`] states: the
//! bound, consulted first, would have ruled the goal out and then failed
//! its own check (its explaining search finds the witness), an error. Such
//! a bound would be unsound; debug builds still consult it on every
//! witness and fail the proof in that case, and the soundness campaign
//! compares the bound's verdicts with the unreduced search's.

use super::super::{bounds, Options, Proof, ProveError};
use super::R;
use crate::env::{Env, TaskInstance};
use crate::ir;

/// Distinct states a flat search reaches before the bound is consulted.
/// An instance the bound decides costs at most this many flat states more
/// than before (a few milliseconds, next to the explaining search of up
/// to `bounds::EXPLAIN_BUDGET` interpreter states its verdict runs).
pub(super) const BOUND_AFTER: usize = 4096;

/// The static bound of one proof, consulted at most once.
pub(super) struct LateBound<'a, 'p> {
    program: &'a ir::Program,
    env: &'a Env<'p>,
    instance: &'a TaskInstance,
    options: Options,
    /// `None` until consulted; then the bound's proof, if it decided.
    decided: Option<Option<Proof>>,
}

impl<'a, 'p> LateBound<'a, 'p> {
    pub(super) fn new(
        program: &'a ir::Program,
        env: &'a Env<'p>,
        instance: &'a TaskInstance,
        options: Options,
    ) -> LateBound<'a, 'p> {
        LateBound {
            program,
            env,
            instance,
            options,
            decided: None,
        }
    }

    /// Consults the bound, the first time only: whether it decided.
    pub(super) fn consult(&mut self) -> R<bool> {
        if self.decided.is_none() {
            let proof = bounds::decide(self.program, self.env, self.instance, self.options)?;
            self.decided = Some(proof);
        }
        Ok(matches!(self.decided, Some(Some(_))))
    }

    /// The bound's proof, consulting it if it was not yet.
    pub(super) fn decide(&mut self) -> R<Option<Proof>> {
        self.consult()?;
        Ok(self.decided.take().flatten())
    }

    /// An error when the bound decides the instance, which `what` (a
    /// witness) contradicts.
    pub(super) fn expect_undecided(&mut self, what: &str) -> R<()> {
        match self.consult()? {
            false => Ok(()),
            true => Err(ProveError::self_check(
                &self.instance.name,
                format!("the static bound rules the goal out, but {what}"),
            )),
        }
    }
}
