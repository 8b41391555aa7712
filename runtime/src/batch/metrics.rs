//! WebFactory's evaluation metrics (docs/training.md, "Decomposed reward"),
//! gathered from a batch's buffers step by step: per task kind the task
//! completion rate (TCR); for operation tasks the step accuracy, the mean
//! R_acc over every step taken as the exact distance oracle judged it
//! (`env::judge`); for retrieval tasks the mean answer F1 (the best token F1
//! of the answer given against the expected answers, 0 for an episode that
//! gave none).

use super::{Buffers, JUDGED_UNKNOWN, NOT_JUDGED};

/// What WebFactory's metrics are computed from: per task kind, episodes and
/// successes (TCR); for operation tasks the steps and their R_acc as the
/// distance oracle judged them (step accuracy); for retrieval tasks the sum
/// of each episode's answer F1 (0 for an episode that gave no answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Tally {
    pub operation_episodes: usize,
    pub operation_successes: usize,
    /// Operation steps the oracle judged (all of them when judging).
    pub operation_steps: usize,
    /// Operation steps with R_acc = 1.
    pub accurate_steps: usize,
    /// Operation steps the oracle could not decide (counted with R_acc = 0).
    pub unknown_steps: usize,
    pub retrieval_episodes: usize,
    pub retrieval_successes: usize,
    pub answer_f1_sum: f64,
}

impl Tally {
    /// The sum of two tallies.
    pub fn plus(&self, o: &Tally) -> Tally {
        Tally {
            operation_episodes: self.operation_episodes + o.operation_episodes,
            operation_successes: self.operation_successes + o.operation_successes,
            operation_steps: self.operation_steps + o.operation_steps,
            accurate_steps: self.accurate_steps + o.accurate_steps,
            unknown_steps: self.unknown_steps + o.unknown_steps,
            retrieval_episodes: self.retrieval_episodes + o.retrieval_episodes,
            retrieval_successes: self.retrieval_successes + o.retrieval_successes,
            answer_f1_sum: self.answer_f1_sum + o.answer_f1_sum,
        }
    }

    /// Operation tasks' completion rate (`None` without such episodes).
    pub fn operation_tcr(&self) -> Option<f64> {
        ratio(self.operation_successes, self.operation_episodes)
    }

    /// Mean R_acc over every operation step taken.
    pub fn step_accuracy(&self) -> Option<f64> {
        ratio(self.accurate_steps, self.operation_steps)
    }

    /// Retrieval tasks' completion rate.
    pub fn retrieval_tcr(&self) -> Option<f64> {
        ratio(self.retrieval_successes, self.retrieval_episodes)
    }

    /// Mean answer F1 over retrieval episodes.
    pub fn answer_f1(&self) -> Option<f64> {
        (self.retrieval_episodes > 0).then(|| self.answer_f1_sum / self.retrieval_episodes as f64)
    }
}

fn ratio(k: usize, n: usize) -> Option<f64> {
    (n > 0).then(|| k as f64 / n as f64)
}

/// Steps the oracle judged; those with R_acc = 1; those it could not
/// decide. The one reader of the `r_acc` buffer's codes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounts {
    pub judged: usize,
    pub accurate: usize,
    pub unknown: usize,
}

impl StepCounts {
    /// Counts one step's `r_acc` code.
    pub fn note(&mut self, r_acc: u8) {
        match r_acc {
            NOT_JUDGED => {}
            JUDGED_UNKNOWN => {
                self.judged += 1;
                self.unknown += 1;
            }
            r => {
                self.judged += 1;
                self.accurate += usize::from(r == 1);
            }
        }
    }

    /// Accurate steps over judged ones (`None` when none was judged).
    pub fn accuracy(&self) -> Option<f64> {
        ratio(self.accurate, self.judged)
    }
}

/// One episode's record, fed the buffers after each of its steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EpisodeRecord {
    retrieval: bool,
    success: bool,
    steps: StepCounts,
    answer_f1: f64,
}

impl EpisodeRecord {
    /// The record of an episode of a retrieval task (`retrieval`) or an
    /// operation task.
    pub fn new(retrieval: bool) -> EpisodeRecord {
        EpisodeRecord {
            retrieval,
            ..EpisodeRecord::default()
        }
    }

    /// Notes the step environment `row` of `buffers` just took.
    pub fn note(&mut self, buffers: &Buffers, row: usize) {
        self.steps
            .note(buffers.r_acc.get(row).copied().unwrap_or(NOT_JUDGED));
        if let Some(f1) = buffers.answer_f1.get(row).filter(|f| **f >= 0.0) {
            self.answer_f1 = f64::from(*f1);
        }
        if buffers.done.get(row).is_some_and(|d| *d != 0) {
            self.success = buffers.success.get(row).is_some_and(|s| *s != 0);
        }
    }

    /// Whether the episode ended in success.
    pub fn success(&self) -> bool {
        self.success
    }

    /// This episode's part of the metrics.
    pub fn tally(&self) -> Tally {
        let won = usize::from(self.success);
        if self.retrieval {
            return Tally {
                retrieval_episodes: 1,
                retrieval_successes: won,
                answer_f1_sum: self.answer_f1,
                ..Tally::default()
            };
        }
        Tally {
            operation_episodes: 1,
            operation_successes: won,
            operation_steps: self.steps.judged,
            accurate_steps: self.steps.accurate,
            unknown_steps: self.steps.unknown,
            ..Tally::default()
        }
    }
}
