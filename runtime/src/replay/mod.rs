//! Judging recorded episodes (INTERFACES.md, "Trajectories"; WebFactory's
//! trajectory filters) and recording them.
//!
//! A trajectory is one episode of a task instance as a JSON line
//! (`trajectory`). `judge` plays it on the reference environment and applies
//! the three filters, each exact: *state replay* (every step is an action the
//! state reached offers, §5.2–5.3, and none comes after the episode ended),
//! *key-node coverage* (the share of the task's key nodes, §2.4, the episode
//! passed — `key_nodes`), and the *answer check* (§5.3: the answer matches
//! by the environment's own matcher, or the goal holds). `record` turns
//! episodes played over the agent protocol into trajectories.

mod judge;
pub mod key_nodes;
mod record;
mod task_file;
#[cfg(test)]
mod tests;
mod trajectory;

pub use judge::{judge, resolve, Ending, EpisodeReport, KeyNodeSource, StepFailure, Thresholds};
pub use key_nodes::{Coverage, KeyNode, PageArgs};
pub use record::Recorder;
pub use task_file::{parse_task_file, TaskFileError};
pub use trajectory::{parse_action, ActionError, LineError, StepAction, Trajectory};
