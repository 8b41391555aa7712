//! Recording episodes played over the agent protocol as trajectories
//! (`wsitec agent --record`): each action is named by stable key
//! (`prove::step_of`), so the record replays even if a page's elements are
//! re-ordered.

use super::trajectory::{StepAction, Trajectory};
use crate::env::{Action, Env};
use crate::prove::step_of;

/// The episode being recorded, if any.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    site: String,
    current: Option<Trajectory>,
}

impl Recorder {
    /// A recorder for episodes of the site named `site`.
    pub fn new(site: &str) -> Recorder {
        Recorder {
            site: site.to_string(),
            current: None,
        }
    }

    /// Starts an episode of `task`; hands back the one it ends, if it had
    /// steps.
    pub fn start(&mut self, task: &str, seed: Option<u64>) -> Option<Trajectory> {
        let finished = self.finish();
        self.current = Some(Trajectory {
            site: self.site.clone(),
            task: task.to_string(),
            seed,
            steps: Vec::new(),
        });
        finished
    }

    /// The step `action` names in `env`'s current state (before it is
    /// taken), by stable key.
    pub fn keyed(env: &Env<'_>, action: &Action) -> StepAction {
        StepAction::Keyed(step_of(env, action))
    }

    /// Adds a step the environment took to the current episode.
    pub fn push(&mut self, step: StepAction) {
        if let Some(t) = self.current.as_mut() {
            t.steps.push(step);
        }
    }

    /// Ends the current episode; hands it back if it had steps (an episode
    /// reset before any step was not played).
    pub fn finish(&mut self) -> Option<Trajectory> {
        self.current.take().filter(|t| !t.steps.is_empty())
    }
}
