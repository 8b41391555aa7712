//! The batch's own bookkeeping, on a stub engine: an engine's error names
//! the environment it came from, whichever thread stepped it.

use super::*;
use crate::env::{EnvError, StepResult};
use write::Written;

/// An empty page with one `answer` candidate; environment `failing`'s steps
/// are refused, and so is every start of instance 1.
struct Stub {
    env: usize,
    failing: usize,
}

impl Engine for Stub {
    type Memo = ();

    fn memo(&self, _: usize) {}

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
    fn take(&mut self, _: usize, _: &mut ()) -> Result<StepResult, BatchError> {
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

/// A page whose size changes every `hold` steps: 1 to 80 elements (past
/// the rows' 64) with texts and values, and a candidate per element plus a
/// few answers, drawn from the page's version (the step count over
/// `hold`). Held longer than a step, the page names its view (its version
/// and the playing instance, which adds `2 × instance` answers: instances
/// of two classes on one page), and every fifth step ends the episode.
struct Shifting {
    step: u64,
    hold: u64,
    current: usize,
    texts: Vec<String>,
}

impl Shifting {
    fn new(step: u64, hold: u64) -> Shifting {
        let mut page = Shifting {
            step,
            hold,
            current: 0,
            texts: Vec::new(),
        };
        page.draw();
        page
    }

    fn version(&self) -> u64 {
        self.step / self.hold.max(1)
    }

    fn draw(&mut self) {
        let mut x = self.version().wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        x ^= x >> 29;
        let n = 1 + usize::try_from(x % 80).unwrap_or(0);
        self.texts = (0..n)
            .map(|i| format!("item {i} of {n} {}", "word ".repeat(i % 15)))
            .collect();
    }
}

impl Engine for Shifting {
    type Memo = ();

    fn memo(&self, _: usize) {}

    fn instruction(&self) -> &str {
        "find the item"
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
        self.texts.len()
    }
    fn element_path(&self, _: usize) -> &[i64] {
        &[]
    }
    fn element(&self, i: usize) -> Option<ElementView<'_>> {
        let text = self.texts.get(i)?;
        let value = i.is_multiple_of(3).then_some(text.as_str());
        // Headings give the elements below them a context.
        let role = if i.is_multiple_of(7) {
            "heading"
        } else {
            "button"
        };
        Some(ElementView::of_texts(
            role,
            text,
            value,
            i.is_multiple_of(4),
        ))
    }
    fn action_count(&self) -> usize {
        self.texts.len() + self.texts.len() % 5 + 2 * self.current
    }
    fn action(&self, i: usize) -> Option<ActionView<'_>> {
        let n = self.texts.len();
        (i < self.action_count()).then(|| match i < n {
            true => ActionView {
                kind: ActionKind::Click,
                element: Some(i + 1),
                text: None,
                words: None,
            },
            false => ActionView {
                kind: ActionKind::Answer,
                element: None,
                text: Some("item"),
                words: None,
            },
        })
    }
    fn view_key(&self) -> Option<(u64, usize)> {
        (self.hold > 1).then_some((self.version(), self.current))
    }
    fn take(&mut self, _: usize, _: &mut ()) -> Result<StepResult, BatchError> {
        self.step += 1;
        self.draw();
        Ok(StepResult {
            reward: 0.0,
            done: self.hold > 1 && self.step.is_multiple_of(5),
            success: false,
            epsilon: 0,
            progress: 0.0,
            judgement: None,
        })
    }
    fn begin(&mut self, instance: usize) -> Result<(), BatchError> {
        self.current = instance;
        Ok(())
    }
}

/// Three environments of [`Shifting`] pages held `hold` steps, playing
/// `instances` instances, the `k`-th starting at step `k × first`.
fn shifting_batch(instances: usize, first: u64, hold: u64) -> BatchEnv<Shifting> {
    let mut made = 0;
    BatchEnv::build(
        instances,
        3,
        ObsSpec::default(),
        5,
        1,
        Arc::from([]),
        |_| {
            made += 1;
            Ok(Shifting::new(made * first, hold))
        },
    )
    .expect("the pages start")
}

/// Demands that buffers `$a` and `$b` hold the same values in each field
/// named.
macro_rules! assert_same_rows {
    ($a:expr, $b:expr, $($field:ident),+) => {
        $(assert_eq!($a.$field, $b.$field, stringify!($field));)+
    };
}

/// Each environment's observation written afresh into zeroed buffers; the
/// candidate tables must come out as they were.
fn fresh_write(batch: &mut BatchEnv<Shifting>) -> Buffers {
    let spec = batch.spec;
    let mut fresh = Buffers::new(batch.len(), &spec);
    let labels = batch.labels.clone();
    for (slot, mut rows) in batch.slots.iter_mut().zip(fresh.rows(&spec)) {
        let (kept, table) = (slot.written, slot.table.clone());
        slot.written = Written::ALL;
        write::write_observation(slot, &mut rows, &spec, &labels, None);
        assert_eq!(slot.table, table);
        slot.written = kept;
    }
    fresh
}

#[test]
fn rows_left_from_a_longer_page_are_cleared() {
    // The writer zeroes only the rows the last observation filled and this
    // one does not; after every step each environment's rows must equal its
    // observation written afresh into zeroed buffers.
    let mut batch = shifting_batch(1, 1000, 1);
    let mut shrank = 0;
    let mut previous = [0u32; 3];
    for _ in 0..300 {
        batch.step(&[0, 0, 0]).expect("a step");
        let fresh = fresh_write(&mut batch);
        let b = &batch.buffers;
        assert_same_rows!(b, fresh, text, value, context, action_kind, action_element);
        assert_same_rows!(b, fresh, action_text, element_count);
        for (p, &now) in previous.iter_mut().zip(&b.element_count) {
            shrank += usize::from(now < *p);
            *p = now;
        }
    }
    assert!(shrank > 100, "pages shrank {shrank} times");
}

#[test]
fn rows_kept_in_place_are_the_ones_a_fresh_write_makes() {
    // The writer leaves rows that hold the shown page's view as they are.
    // After every step each environment's rows must equal its observation
    // written afresh, also when a new episode's instance of another class
    // shows a page of the same version.
    let mut batch = shifting_batch(2, 1, 3);
    let mut switched = 0;
    let mut last = batch.buffers.action_count.clone();
    for _ in 0..300 {
        batch.step(&[0, 0, 0]).expect("a step");
        let fresh = fresh_write(&mut batch);
        let b = &batch.buffers;
        assert_same_rows!(b, fresh, element_count, role, text, action_count);
        assert_same_rows!(b, fresh, action_mask, action_kind, action_text, overflow);
        let now = &b.action_count;
        switched += last.iter().zip(now).filter(|(a, b)| a != b).count();
        last.clone_from(now);
    }
    assert!(
        switched > 50,
        "the pages and instances changed ({switched} times)"
    );
}

#[test]
fn resetting_an_environment_past_the_batch_is_an_error() {
    let mut batch = stubs(2, 1, 9).expect("the stubs start");
    assert!(batch.reset(1, None, Some(0)).is_ok());
    for i in [2, usize::MAX / 2, usize::MAX] {
        let err = batch
            .reset(i, None, Some(0))
            .expect_err("no such environment");
        assert!(matches!(err, BatchError::NoEnvironment { env, count: 2 } if env == i));
    }
}
