//! The trained policy as a process-reward judge (being written): its action
//! scores (`policy`) or its value head on each candidate's next state
//! (`value`).

use std::collections::BTreeMap;
use std::path::Path;
use wsite_runtime::ir::Program;
use wsite_runtime::prm::judge::Judge;

/// The policy in `checkpoint` judging by its action scores, or by its value
/// of the next state when `value`.
pub fn judge<'a>(
    checkpoint: &Path,
    programs: &'a BTreeMap<String, Program>,
    value: bool,
    device: &str,
) -> Result<Box<dyn Judge + 'a>, String> {
    let _ = (checkpoint, programs, value, device);
    Err("the policy judges are not written yet".into())
}
