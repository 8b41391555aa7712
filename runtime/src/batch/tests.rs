//! The batch's own bookkeeping, on a stub engine: an engine's error names
//! the environment it came from, whichever thread stepped it.

use super::*;
use crate::env::{EnvError, StepResult};

/// An empty page with one `answer` candidate; environment `failing`'s steps
/// are refused, and so is every start of instance 1.
struct Stub {
    env: usize,
    failing: usize,
}

impl Engine for Stub {
    fn instruction(&self) -> &str {
        ""
    }
    fn page(&self) -> Option<usize> {
        None
    }
    fn alert(&self) -> Option<&str> {
        None
    }
    fn steps(&self) -> u32 {
        0
    }
    fn element_count(&self) -> usize {
        0
    }
    fn element_path(&self, _: usize) -> &[i64] {
        &[]
    }
    fn element(&self, _: usize) -> Option<ElementView<'_>> {
        None
    }
    fn action_count(&self) -> usize {
        1
    }
    fn action(&self, i: usize) -> Option<ActionView<'_>> {
        (i == 0).then_some(ActionView {
            kind: ActionKind::Answer,
            element: None,
            text: None,
            words: None,
        })
    }
    fn take(&mut self, _: usize) -> Result<StepResult, BatchError> {
        if self.env == self.failing {
            return Err(EnvError::EpisodeOver.into());
        }
        Ok(StepResult {
            reward: 0.0,
            done: false,
            success: false,
            epsilon: 0,
            progress: 0.0,
            judgement: None,
        })
    }
    fn begin(&mut self, instance: usize) -> Result<(), BatchError> {
        match instance {
            1 => Err(EnvError::NoTask(instance).into()),
            _ => Ok(()),
        }
    }
}

/// `n` stub environments on `threads` threads, playing instance 0 of 2.
fn stubs(n: usize, threads: usize, failing: usize) -> Result<BatchEnv<Stub>, BatchError> {
    let mut env = 0;
    BatchEnv::build(2, n, ObsSpec::default(), 3, threads, Arc::from([]), |_| {
        env += 1;
        Ok(Stub {
            env: env - 1,
            failing,
        })
    })
}

#[test]
fn a_failing_environment_names_its_index() {
    // Three environments on two threads: the second thread's share starts
    // at environment 2.
    let mut batch = stubs(3, 2, 2).expect("stubs start");
    let err = batch.step(&[0, 0, 0]).expect_err("environment 2 refuses");
    assert!(
        matches!(err, BatchError::Env { env: Some(2), .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "environment 2: the episode is over; reset to play again"
    );
    assert!(std::error::Error::source(&err).is_some());

    let err = batch
        .reset(1, None, Some(1))
        .expect_err("instance 1 refuses");
    assert_eq!(err.to_string(), "environment 1: no task #1");

    // An engine's error where no environment is known keeps its message.
    assert_eq!(
        BatchError::from(EnvError::NoTask(4)).to_string(),
        "no task #4"
    );
}

#[test]
fn an_environment_that_cannot_start_names_its_index() {
    // `make` is called once per environment, in order.
    let mut next = 0;
    let err = BatchEnv::build(2, 3, ObsSpec::default(), 3, 1, Arc::from([]), |_| {
        next += 1;
        match next {
            2 => Err(BatchError::from(EnvError::NoTask(9))),
            env => Ok(Stub { env, failing: 9 }),
        }
    })
    .err()
    .expect("environment 1 cannot start");
    assert_eq!(err.to_string(), "environment 1: no task #9");
}
