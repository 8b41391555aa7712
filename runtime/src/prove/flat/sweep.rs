//! §5.5's invariant sweep on the flat engine: the open task's search
//! (`search::sweep_target`) run by the flat search, noting the first
//! refusal of each (marker, invariant) pair in search order, which the
//! breadth-first order makes one with a shortest trace. The levels,
//! candidates, order and budget are the shared loop's (`bfs`), so the
//! states counted and the pairs found, with their nodes, are the
//! interpreter's sweep's (`search::invariant_sweep_interp`); each trace is
//! replayed on the interpreter, which must take every step and see the
//! last one refused by the same invariant. A site the flat engine cannot
//! play, or a search it cannot finish, is swept by the interpreter.

use super::replay::{replay, PathEnd};
use super::{JitProver, R};
use crate::env::TaskInstance;
use crate::ir;
use crate::prove::search::{invariant_sweep_interp, sweep_target};
use crate::prove::{Engine, InvariantConflict, Options, ProveError, SweepReport};

/// Every marker an invariant can refuse within the longest horizon, with
/// its shortest trace (see `search::sweep_target`), on the flat engine where
/// it can play the site and on the interpreter otherwise.
pub fn invariant_sweep(program: &ir::Program, options: Options) -> R<SweepReport> {
    let (swept, instance, options) = sweep_target(program, options);
    if let Ok(prover) = JitProver::new(&swept) {
        match prover.sweep(&instance, options) {
            Ok(Some(report)) => return Ok(report),
            Err(e @ ProveError::SelfCheck { .. }) => return Err(e),
            Ok(None) | Err(_) => {}
        }
    }
    invariant_sweep_interp(program, options)
}

impl JitProver {
    /// The sweep of `instance` (the open task of this prover's program), or
    /// `None` when the flat engine cannot play it or finish its search.
    fn sweep(&self, instance: &TaskInstance, options: Options) -> R<Option<SweepReport>> {
        let mut pool = self.pool.clone();
        let env = crate::prove::fresh_env(&self.program, instance)?;
        let Some(mut search) = self.search(&env, options, &mut pool)? else {
            return Ok(None);
        };
        search.engine.refusals = Some(Vec::new());
        let ended = match search.run(&mut pool, None) {
            Ok(ended) => ended,
            Err(e) => {
                super::leave_to_interpreter(e, &instance.name)?;
                return Ok(None);
            }
        };
        let refusals = search.engine.refusals.take().unwrap_or_default();
        let mut conflicts = Vec::with_capacity(refusals.len());
        for r in refusals {
            let name = |what: &str, found: Option<&String>| {
                found.cloned().ok_or_else(|| {
                    ProveError::self_check(
                        &instance.name,
                        format!("the sweep noted an unknown {what}"),
                    )
                })
            };
            let invariant = name(
                "invariant",
                self.program.invariants.get(r.invariant).map(|d| &d.name),
            )?;
            let marker = name(
                "marker",
                self.program.markers.get(r.marker as usize).map(|d| &d.name),
            )?;
            let path = search.witness(r.node, r.candidate);
            let end = PathEnd::Refused {
                invariant: &invariant,
                marker: r.marker,
            };
            let trace = replay(&self.site, &search, env.clone(), &path, end, &mut pool)?;
            conflicts.push(InvariantConflict {
                marker,
                invariant,
                trace,
            });
        }
        Ok(Some(SweepReport {
            conflicts,
            states: search.bfs.states(),
            complete: ended.complete(),
            engine: Engine::Jit,
        }))
    }
}
