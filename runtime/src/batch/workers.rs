//! The threads that step a batch. With one thread the caller steps every
//! environment. With `t` threads the caller steps the first share and `t − 1`
//! rayon workers, kept for the batch's life, step one share each, worker `k`
//! always share `k + 1`, so an environment's memory stays with one thread.
//!
//! What this module adds to a plain rayon pool is staying awake. Waking a
//! sleeping thread costs a system call on each side and, on a virtual
//! machine, tens to hundreds of microseconds (as much as a whole share of a
//! small batch). So after a step the workers spin, each on one shared epoch
//! counter, for a short spell ([`Workers::warm`]); a step that comes within
//! the spell (a bench loop, a vectorised agent) finds them running, and the
//! caller, done with its share, spins for the others' instead of sleeping.
//! After the spell they sleep as rayon's workers do, so a long pause between
//! steps (a policy's forward pass) gets its cores back. Everything here is
//! safe Rust: the shares borrow the batch through a rayon scope.
//!
//! Spinning pays only while every thread has a core. When another process
//! takes one, a spinning worker spends its turns on the shared core
//! spinning, and a caller spinning on its own core keeps the kernel from
//! moving the waiting worker there: each step then waits for the other
//! process's time slice, and two threads stepped a batch 4–11 times slower
//! than one. So a caller that finishes its share before a worker that was
//! in its spell has even started its own ([`LATE_GRACE`] after) takes that
//! as a busy machine: it sleeps until the share is done instead of
//! spinning, and the next steps keep no worker awake (a busy spell). Then
//! the spell is tried again. A late worker can also be a hiccup of a
//! virtual machine, and each step of a busy spell pays for waking the
//! workers, so the first busy spell is short ([`FIRST_BUSY_STEPS`]); a
//! late worker met within [`STRIKE_WINDOW`] steps of the last busy spell
//! doubles the next, up to [`BUSY_STEPS`]. A worker not kept awake (the
//! first step, a step after a longer pause than the spell, the step that
//! ends a busy spell) is not judged: waking it from sleep takes tens of
//! microseconds on any machine.

use super::BatchError;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long workers stay awake after a step by default: longer than a
/// Python vector loop spends between steps (~0.1–0.2 ms), short next to a
/// policy's forward pass on the CPU.
pub const DEFAULT_WARM: Duration = Duration::from_micros(250);

/// The longest the caller spins for the workers' shares once its own is
/// done, before it sleeps until they are. Their shares are running, so the
/// wait is about as long as the difference between two shares.
const CALLER_SPIN: Duration = Duration::from_millis(2);

/// How long a caller done with its share waits, spinning, for a worker to
/// start its own before it takes the machine for busy: far longer than a
/// worker awake takes to see its share, shorter than a scheduler's slice.
const LATE_GRACE: Duration = Duration::from_micros(50);

/// The longest busy spell: steps during which no worker is kept awake and
/// the caller does not spin.
const BUSY_STEPS: u32 = 256;

/// The busy spell after a lone late worker. On an idle virtual machine a
/// worker in its spell starts late about once in thousands of steps (the
/// host takes its core for a moment), while each step of a busy spell pays
/// 50–500 µs to wake the workers: a hiccup should cost few of them.
const FIRST_BUSY_STEPS: u32 = 16;

/// A late worker met within this many steps outside a busy spell after the
/// last one doubles the next spell: on a busy machine most judged steps
/// find a late worker, and the spells soon reach [`BUSY_STEPS`].
const STRIKE_WINDOW: u32 = 64;

/// The caller's thread and, for more than one thread, a pool of the rest.
pub(super) struct Workers {
    /// `threads − 1` workers; `None` for one thread.
    pool: Option<rayon::ThreadPool>,
    /// Bumped when a step starts: it ends the workers' spell awake.
    epoch: Arc<AtomicU64>,
    warm: Duration,
    /// How long the caller spins for the workers' shares (zero with more
    /// threads than cores).
    caller_spin: Duration,
    /// Steps left during which the machine is taken for busy (no spinning).
    busy: AtomicU32,
    /// How long the last busy spell was.
    last_busy: AtomicU32,
    /// Steps outside busy spells since the last late worker (saturating).
    since_late: AtomicU32,
    /// When the workers' spell after the last step is surely still on
    /// (nanoseconds from `born`; 0: no spell was kept).
    spell_ends: AtomicU64,
    born: Instant,
}

impl Workers {
    /// Steps on `threads` threads (at least one); fails when the operating
    /// system refuses to start the workers.
    pub fn new(threads: usize) -> Result<Workers, BatchError> {
        let pool = match threads.max(1) - 1 {
            0 => None,
            w => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(w)
                    .thread_name(|k| format!("wsite-batch-{}", k + 1))
                    .build()
                    .map_err(|error| BatchError::Workers { workers: w, error })?,
            ),
        };
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        // Spinning threads that outnumber the cores would take turns
        // instead of working: then they sleep at once.
        let fits = threads <= cores;
        Ok(Workers {
            pool,
            epoch: Arc::new(AtomicU64::new(0)),
            warm: if fits { DEFAULT_WARM } else { Duration::ZERO },
            caller_spin: if fits { CALLER_SPIN } else { Duration::ZERO },
            busy: AtomicU32::new(0),
            last_busy: AtomicU32::new(0),
            since_late: AtomicU32::new(u32::MAX),
            spell_ends: AtomicU64::new(0),
            born: Instant::now(),
        })
    }

    /// How many threads step a batch (the caller included).
    pub fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or(1, |p| p.current_num_threads() + 1)
    }

    /// How long the workers stay awake after a step.
    pub fn warm(&self) -> Duration {
        self.warm
    }

    /// Sets how long the workers stay awake after a step (zero: they sleep
    /// as soon as their share is done, as a caller that pauses long between
    /// steps wants).
    pub fn set_warm(&mut self, warm: Duration) {
        self.warm = warm;
    }

    /// `work` on every job, job 0 on the caller's thread and job `k` on
    /// worker `k − 1`; returns the results in job order once all are done.
    /// A panic in any job is raised here after the others finish.
    pub fn run<J: Send, R: Send>(&self, jobs: Vec<J>, work: impl Fn(J) -> R + Sync) -> Vec<R> {
        let Some(pool) = &self.pool else {
            return jobs.into_iter().map(work).collect();
        };
        let mut jobs = jobs.into_iter();
        let first = jobs.next();
        // Each cell is taken by exactly one worker (by its index), so the
        // locks are never contended.
        let theirs: Vec<Mutex<Option<J>>> = jobs.map(|j| Mutex::new(Some(j))).collect();
        let results: Vec<Mutex<Option<R>>> = theirs.iter().map(|_| Mutex::new(None)).collect();
        let workers = pool.current_num_threads();
        let running = AtomicUsize::new(workers);
        let started = AtomicUsize::new(0);
        let pace = self.pace();
        let mine = pool.in_place_scope(|scope| {
            scope.spawn_broadcast(|_, ctx| {
                started.fetch_add(1, Ordering::AcqRel);
                let _done = Finished(&running);
                let k = ctx.index();
                let job = theirs.get(k).and_then(|cell| cell.lock().ok()?.take());
                if let (Some(job), Some(cell)) = (job, results.get(k)) {
                    let r = work(job);
                    if let Ok(mut cell) = cell.lock() {
                        *cell = Some(r);
                    }
                }
            });
            // Queued behind the share, so a worker goes from its share
            // straight to spinning, never through rayon's sleep.
            if !pace.quiet {
                self.keep_warm(pool);
            }
            // Only now end the last spell: a worker that stops spinning finds
            // its share already queued.
            self.epoch.fetch_add(1, Ordering::AcqRel);
            let mine = first.map(&work);
            if pace.quiet {
                return mine;
            }
            let all_started = || started.load(Ordering::Acquire) == workers;
            if pace.judge {
                spin_while(self.caller_spin.min(LATE_GRACE), || !all_started());
                if !all_started() {
                    // A worker has no core: sleep, so that it may take ours
                    // (its spell, queued above, is its last for a while).
                    self.start_busy_spell();
                    return mine;
                }
            }
            // The scope would sleep until the workers are done; spin first.
            spin_while(self.caller_spin, || running.load(Ordering::Acquire) > 0);
            mine
        });
        self.note_spell(pace);
        mine.into_iter()
            .chain(
                results
                    .into_iter()
                    .filter_map(|cell| cell.into_inner().ok().flatten()),
            )
            .collect()
    }

    /// How the step about to start paces its threads (module docs); a
    /// busy step is counted down.
    fn pace(&self) -> Pace {
        let busy = self.busy.load(Ordering::Relaxed);
        if busy > 0 {
            self.busy.store(busy - 1, Ordering::Relaxed);
            return Pace {
                quiet: true,
                judge: false,
            };
        }
        let since = self.since_late.load(Ordering::Relaxed);
        self.since_late
            .store(since.saturating_add(1), Ordering::Relaxed);
        Pace {
            quiet: false,
            judge: self.now() < self.spell_ends.load(Ordering::Relaxed),
        }
    }

    /// Starts a busy spell after a late worker: twice the last one when
    /// that was lately, [`FIRST_BUSY_STEPS`] otherwise (module docs).
    fn start_busy_spell(&self) {
        let since = self.since_late.swap(0, Ordering::Relaxed);
        let spell = if since <= STRIKE_WINDOW {
            self.last_busy.load(Ordering::Relaxed).saturating_mul(2)
        } else {
            FIRST_BUSY_STEPS
        };
        let spell = spell.clamp(FIRST_BUSY_STEPS, BUSY_STEPS);
        self.last_busy.store(spell, Ordering::Relaxed);
        self.busy.store(spell, Ordering::Relaxed);
    }

    /// Notes, after a step, until when its spell is surely on (none when the
    /// step was quiet, found a late worker, or keeps no spell at all). The
    /// workers spin from the end of their shares, before now: half the
    /// spell is surely left.
    fn note_spell(&self, pace: Pace) {
        let kept = !pace.quiet && !self.warm.is_zero() && self.busy.load(Ordering::Relaxed) == 0;
        let ends = match kept {
            true => self.now().saturating_add(duration_nanos(self.warm / 2)),
            false => 0,
        };
        self.spell_ends.store(ends, Ordering::Relaxed);
    }

    /// Nanoseconds since the workers were made.
    fn now(&self) -> u64 {
        duration_nanos(self.born.elapsed())
    }

    /// Gives every worker a job that spins until the step after the one
    /// about to start begins, or the spell ends, whichever is first.
    fn keep_warm(&self, pool: &rayon::ThreadPool) {
        if self.warm.is_zero() {
            return;
        }
        let epoch = Arc::clone(&self.epoch);
        let seen = epoch.load(Ordering::Acquire).wrapping_add(1);
        let warm = self.warm;
        pool.spawn_broadcast(move |_| {
            spin_while(warm, || epoch.load(Ordering::Acquire) == seen);
        });
    }
}

impl Drop for Workers {
    /// Ends the spell, so that the pool's threads can exit promptly.
    fn drop(&mut self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }
}

/// How one step paces its threads.
#[derive(Clone, Copy)]
struct Pace {
    /// A busy machine: no spell is kept, and the caller does not spin.
    quiet: bool,
    /// The workers are in the last step's spell, so one that has not
    /// started its share soon after the caller's is taken for late.
    judge: bool,
}

/// Counts a worker out when its share is done, panicking or not.
struct Finished<'a>(&'a AtomicUsize);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn duration_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Spins while `busy()` holds, for at most `limit`.
fn spin_while(limit: Duration, busy: impl Fn() -> bool) {
    if limit.is_zero() {
        return;
    }
    let started = Instant::now();
    while busy() {
        // Reading the clock costs more than a pause: read it now and then.
        for _ in 0..16 {
            std::hint::spin_loop();
        }
        if started.elapsed() >= limit {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_runs_once_and_results_keep_job_order() {
        for threads in 1..=4 {
            let workers = Workers::new(threads).unwrap();
            assert_eq!(workers.threads(), threads);
            for count in 0..=threads {
                let jobs: Vec<usize> = (0..count).collect();
                let out = workers.run(jobs, |j| (j, j * j));
                assert_eq!(out, (0..count).map(|j| (j, j * j)).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn each_worker_takes_the_same_share_every_time() {
        let workers = Workers::new(3).unwrap();
        let mut seen = Vec::new();
        for _ in 0..50 {
            let names = workers.run(vec![0, 1, 2], |_| {
                std::thread::current().name().map(str::to_string)
            });
            seen.push(names);
        }
        let first = &seen[0];
        assert_eq!(first[1].as_deref(), Some("wsite-batch-1"));
        assert_eq!(first[2].as_deref(), Some("wsite-batch-2"));
        assert!(seen.iter().all(|names| names == first));
    }

    #[test]
    fn jobs_borrow_and_mutate_the_callers_data() {
        let mut data = [0u64; 12];
        let workers = Workers::new(3).unwrap();
        for round in 1..=20u64 {
            let jobs: Vec<&mut [u64]> = data.chunks_mut(4).collect();
            workers.run(jobs, |share| share.iter_mut().for_each(|x| *x += round));
        }
        assert!(data.iter().all(|&x| x == 210));
    }

    #[test]
    fn a_worker_panic_reaches_the_caller() {
        let workers = Workers::new(2).unwrap();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            workers.run(vec![0, 1], |j| assert!(j == 0, "job {j} failed"))
        }));
        assert!(caught.is_err());
        // The pool still works afterwards.
        assert_eq!(workers.run(vec![1, 2], |j| j + 1), vec![2, 3]);
    }

    /// Holds `workers`' one worker with another job until the returned
    /// sender releases it.
    fn hold_the_worker(workers: &Workers) -> std::sync::mpsc::Sender<()> {
        let pool = workers.pool.as_ref().expect("a worker");
        let (release, held) = std::sync::mpsc::channel::<()>();
        let (holding, is_holding) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            let _ = holding.send(());
            let _ = held.recv();
        });
        is_holding.recv().unwrap();
        release
    }

    /// A step whose one worker is in its spell, as far as the caller
    /// knows, but does not start its share: it is released only once the
    /// caller has started a busy spell (or after 10 s), so a slow test
    /// thread cannot make it look punctual.
    fn late_step(workers: &Workers, job: usize) {
        let release = hold_the_worker(workers);
        workers
            .spell_ends
            .store(workers.now() + 10_000_000_000, Ordering::Relaxed);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let started = Instant::now();
                while workers.busy.load(Ordering::Relaxed) == 0
                    && started.elapsed() < Duration::from_secs(10)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let _ = release.send(());
            });
            let out = workers.run(vec![job, job + 1], |j| j * 10);
            assert_eq!(out, vec![job * 10, job * 10 + 10]);
        });
        assert_eq!(
            workers.spell_ends.load(Ordering::Relaxed),
            0,
            "no spell kept"
        );
    }

    /// Steps until the busy spell is over; how many steps it lasted.
    fn sit_out(workers: &Workers) -> u32 {
        let mut quiet = 0;
        while workers.busy.load(Ordering::Relaxed) > 0 {
            // The busy steps still run every share.
            assert_eq!(workers.run(vec![3, 4], |j| j * 10), vec![30, 40]);
            quiet += 1;
        }
        quiet
    }

    #[test]
    fn late_workers_soon_after_each_other_lengthen_the_busy_spells() {
        let mut workers = Workers::new(2).unwrap();
        // No spell between the late steps: only the held worker is judged.
        workers.set_warm(Duration::ZERO);
        let mut spells = Vec::new();
        for k in 0..6 {
            late_step(&workers, k);
            spells.push(sit_out(&workers));
            for _ in 0..3 {
                assert_eq!(workers.run(vec![5, 6], |j| j * 10), vec![50, 60]);
            }
        }
        let first = FIRST_BUSY_STEPS;
        let doubled = [
            first,
            2 * first,
            4 * first,
            8 * first,
            BUSY_STEPS,
            BUSY_STEPS,
        ];
        assert_eq!(spells, doubled);
    }

    #[test]
    fn late_workers_far_apart_are_hiccups() {
        let mut workers = Workers::new(2).unwrap();
        workers.set_warm(Duration::ZERO);
        let steps = |n: u32| {
            for j in 0..n as usize {
                assert_eq!(workers.run(vec![j, j], |x| x + 1), vec![j + 1, j + 1]);
            }
        };
        late_step(&workers, 0);
        assert_eq!(sit_out(&workers), FIRST_BUSY_STEPS);
        // The late step itself is the window's last step: still lately.
        steps(STRIKE_WINDOW - 1);
        late_step(&workers, 1);
        assert_eq!(sit_out(&workers), 2 * FIRST_BUSY_STEPS);
        // One step more, and the spells start over.
        steps(STRIKE_WINDOW);
        late_step(&workers, 2);
        assert_eq!(sit_out(&workers), FIRST_BUSY_STEPS);
    }

    #[test]
    fn a_worker_not_kept_awake_is_not_judged_late() {
        let workers = Workers::new(2).unwrap();
        // The first step: no spell was kept, so a slow start says nothing.
        let release = hold_the_worker(&workers);
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            let _ = release.send(());
        });
        assert_eq!(workers.run(vec![1, 2], |j| j + 1), vec![2, 3]);
        assert_eq!(workers.busy.load(Ordering::Relaxed), 0);
        releaser.join().unwrap();
        // That step kept a spell (where the workers have cores to spin on).
        let spelled = workers.spell_ends.load(Ordering::Relaxed) > 0;
        assert_eq!(spelled, !workers.warm.is_zero());
    }

    #[test]
    fn zero_warmth_sleeps_at_once_and_still_runs_everything() {
        let mut workers = Workers::new(2).unwrap();
        workers.set_warm(Duration::ZERO);
        assert_eq!(workers.warm(), Duration::ZERO);
        assert_eq!(workers.run(vec![3, 4], |j| j * 2), vec![6, 8]);
    }
}
