//! The trained policy as a process-reward judge (docs/prm-prmpolicy.md):
//! loads a checkpoint as `wsitec eval` does and hands it to
//! `wsite_runtime::train::prm::PolicyJudge`, which scores each candidate by
//! the policy's log-probability (`policy`) or by its value head on the
//! candidate's next state (`value`).

use std::collections::BTreeMap;
use std::path::Path;
use wsite_runtime::ir::Program;
use wsite_runtime::prm::judge::{Judge, JudgeError, Query};
use wsite_runtime::train::prm::{PolicyJudge, Reading};
use wsite_runtime::train::run::RunConfig;

/// The policy in `checkpoint` judging by its action scores, or by its value
/// of the next state when `value`.
pub fn judge<'a>(
    checkpoint: &Path,
    programs: &'a BTreeMap<String, Program>,
    value: bool,
    device: &str,
) -> Result<Box<dyn Judge + 'a>, String> {
    let device = crate::cli::train::imp::device(device)?;
    let (weights, policy) = crate::cli::train::imp::load_policy(checkpoint, device)?;
    let reading = if value {
        Reading::Value
    } else {
        Reading::Policy
    };
    // Observed as evaluation observes (the spec the policy was trained on).
    let spec = RunConfig::default().spec;
    Ok(Box::new(Noting(PolicyJudge::new(
        programs, weights, policy, reading, spec,
    ))))
}

/// A policy judge that, when done, says how many candidates it could not
/// score (they were scored lowest), so the count is never silent.
struct Noting<'a>(PolicyJudge<'a>);

impl Judge for Noting<'_> {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn score(&mut self, query: &Query) -> Result<Vec<f64>, JudgeError> {
        self.0.score(query)
    }
}

impl Drop for Noting<'_> {
    fn drop(&mut self) {
        let n = self.0.unscored();
        if n > 0 {
            eprintln!(
                "note: the `{}` judge scored {n} candidates lowest: they had no keyed step or were cut from the policy's action table",
                self.0.name()
            );
        }
    }
}
