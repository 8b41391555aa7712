//! `wsitec train --profile`: the wall clock behind the trainer's
//! [`Stopwatch`], charging each stretch of time to the phase that ended it,
//! and the report of where a run's time went.

use serde_json::json;
use std::time::Instant;
use wsite_runtime::train::profile::{Phase, Stopwatch};
use wsite_runtime::train::tch::{Cuda, Device};

/// Seconds spent per phase.
pub struct Phases {
    /// On CUDA, work is queued: each mark waits for it so the time lands in
    /// the phase that queued it.
    cuda: Option<i64>,
    last: Instant,
    seconds: [f64; Phase::ALL.len()],
}

impl Phases {
    pub fn new(device: Device) -> Phases {
        Phases {
            cuda: match device {
                Device::Cuda(k) => Some(k as i64),
                _ => None,
            },
            last: Instant::now(),
            seconds: [0.0; Phase::ALL.len()],
        }
    }

    /// Starts the clock afresh, so that what the caller did between updates
    /// (metrics, checkpoints) is charged to no phase.
    pub fn restart(&mut self) {
        self.last = Instant::now();
    }

    /// Prints the seconds and share of each phase, the rest of `wall` as
    /// "other", and the steps per second; returns the same as JSON.
    pub fn report(&self, steps: u64, wall: f64) -> serde_json::Value {
        let rate = steps as f64 / wall.max(1e-9);
        eprintln!("profile: {steps} env steps in {wall:.2} s, {rate:.0} steps/s");
        let timed: f64 = self.seconds.iter().sum();
        let rows = Phase::ALL
            .iter()
            .map(|p| (p.name(), self.seconds[*p as usize]))
            .chain([("other", (wall - timed).max(0.0))]);
        let mut phases = serde_json::Map::new();
        for (name, s) in rows {
            let share = s / wall.max(1e-9);
            eprintln!("  {name:<16} {s:>8.2} s  {:>5.1}%", 100.0 * share);
            phases.insert(name.into(), json!({ "seconds": s, "share": share }));
        }
        json!({ "env_steps": steps, "seconds": wall, "steps_per_second": rate, "phases": phases })
    }
}

impl Stopwatch for Phases {
    fn lap(&mut self, phase: Phase) {
        if let Some(k) = self.cuda {
            Cuda::synchronize(k);
        }
        let now = Instant::now();
        self.seconds[phase as usize] += (now - self.last).as_secs_f64();
        self.last = now;
    }
}
