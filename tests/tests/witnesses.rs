//! Every example's tasks can be completed by a scripted action sequence, and
//! that sequence earns exactly the rewards the formula of §5.4 gives.
//!
//! For every example site and every task instance (`env::instances`), a
//! breadth-first search over the real environment finds a *shortest*
//! successful action sequence (a witness): from the reset state it tries every
//! candidate action `env.actions()` offers (for retrieval tasks these include
//! the `answer` actions), on a clone of the `Env`, level by level, never deeper
//! than the task's horizon, and stops at the first step that ends with success.
//!
//! States are told apart as §5.5 says — page, arguments, form variables,
//! database and session, plus the visited set when the goal or a progress
//! predicate uses `visited`; never by step count or alert (the alert is cleared
//! by every step, and breadth-first order reaches each state first at its
//! smallest depth, so ignoring the step count loses no shorter witness). The
//! form variables are not public, so they are read from the observation: the
//! url and every element's key, value and disabled flag (a form value of an
//! element not rendered on the page is not seen: at worst two states that
//! differ only there are merged, which could make a task fail spuriously but
//! never pass wrongly, since every witness is replayed). Each state's key is
//! hashed to 64 bits into a `HashSet<u64>`. Rejected steps change nothing but
//! the step count, so they are skipped like already-seen states. The search is
//! bounded (`BUDGET` distinct states per task); a task whose bound is hit, or
//! whose bounded space is exhausted without success, fails the test by name —
//! nothing is silently skipped.
//!
//! Each witness is then replayed on a fresh `Env`: every action must be one of
//! the offered candidates, every step's reward must equal
//! `1[success] + 0.5·(Ψ' − Ψ) − 0.2·ε − 0.01` with Ψ read from the step results'
//! `progress` (Ψ before the first step is the reset env's `progress()`), only
//! the last step may end the episode, and it must end it with success. The
//! same witness in terminal mode earns 0 on every step but the last, which
//! earns 1.
//!
//! Cost: the largest searches (`register_databases`, whose progress uses
//! `visited`, and `post_cider_question`) see ~10⁵ states each. To keep the
//! test fast in a debug build the workspace `Cargo.toml` optimises the runtime
//! and this crate in the dev profile, the frontier holds node ids rather than
//! `Env` clones (rebuilt from a cached path, see `PathCache`), answers are
//! judged with `env::answer_matches` instead of stepping a clone, and the task
//! instances are spread over the available cores.
//!
//! This is the run-time counterpart of the compiler's feasibility proof (§5.5):
//! it checks that every task really can be played to success in the runtime.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use wsite_runtime::env::{self, Action, ActionKind, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;

/// Distinct states explored per task before the search gives up.
const BUDGET: usize = 300_000;

/// A small multiplicative hasher (FxHash's scheme): `DefaultHasher` (SipHash,
/// with debug checks) dominated the search's profile; 64-bit keys of a few hundred thousand states
/// make a collision — which could only hide a state — vanishingly unlikely.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add(u64::from_le_bytes(word));
        }
        let mut word = [0u8; 8];
        let rest = chunks.remainder();
        word[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        // One more round so the last words reach every bit.
        let mut h = *self;
        h.add(0);
        h.0
    }
}

/// The set of state keys (already hashes: `Fx` mixes them once more, cheaply).
type Seen = HashSet<u64, BuildHasherDefault<Fx>>;

/// Every example's lowered program, with its file name.
fn programs() -> Vec<(String, Program)> {
    wsite_tests::example_programs()
}

/// Whether the task's goal or a progress predicate mentions `visited` (then
/// the visited set is part of the state, §5.5).
fn uses_visited(program: &Program, instance: &TaskInstance) -> bool {
    let task = &program.tasks[instance.task];
    let mentions = |s: String| s.contains("Visited(");
    mentions(format!("{:?}", task.goal))
        || task
            .progress
            .iter()
            .any(|(_, p)| mentions(format!("{p:?}")))
}

/// The 64-bit hash of what determines the episode's future (see the module doc).
fn state_key(env: &Env<'_>, with_visited: bool) -> u64 {
    let mut h = Fx::default();
    env.world().hash(&mut h);
    let nav = env.navigation();
    nav.page.hash(&mut h);
    nav.args.hash(&mut h);
    if with_visited {
        nav.visited.hash(&mut h);
    }
    let obs = env.observation();
    obs.url.hash(&mut h);
    for e in &obs.elements {
        e.key.hash(&mut h);
        e.value.hash(&mut h);
        e.disabled.hash(&mut h);
    }
    h.finish()
}

/// What a search found.
enum Found {
    Witness(Vec<Action>),
    /// The bounded space was exhausted without success.
    Exhausted,
    /// The state budget ran out.
    OverBudget,
}

/// The search tree: node `i` is reached from `tree[i].0` (`ROOT` for the
/// reset state) by `tree[i].1`.
type Tree = Vec<(usize, Action)>;

/// The reset state's node id.
const ROOT: usize = usize::MAX;

/// The node ids from the root's child down to `node`.
fn lineage(tree: &Tree, mut node: usize) -> Vec<usize> {
    let mut ids = Vec::new();
    while node != ROOT {
        ids.push(node);
        node = tree[node].0;
    }
    ids.reverse();
    ids
}

/// The actions from the reset state to `node`.
fn actions_to(tree: &Tree, node: usize) -> Vec<Action> {
    lineage(tree, node)
        .into_iter()
        .map(|id| tree[id].1.clone())
        .collect()
}

/// Envs along the path to the node expanded last: `stack[0]` is the reset
/// state, `stack[k]` the env after the `k`-th action of `ids`. The frontier
/// holds node ids only (an `Env` clone per frontier state took gigabytes);
/// breadth-first order expands siblings together, so rebuilding a node's env
/// from the longest shared prefix costs about one step.
struct PathCache<'p> {
    ids: Vec<usize>,
    stack: Vec<Env<'p>>,
}

impl<'p> PathCache<'p> {
    fn env(&mut self, tree: &Tree, node: usize, task: &str) -> &Env<'p> {
        let want = lineage(tree, node);
        let shared = self
            .ids
            .iter()
            .zip(&want)
            .take_while(|(a, b)| a == b)
            .count();
        self.ids.truncate(shared);
        self.stack.truncate(shared + 1);
        for &id in &want[shared..] {
            let mut env = self.stack.last().expect("the reset state").clone();
            env.step(&tree[id].1)
                .unwrap_or_else(|e| panic!("{task}: rebuilding a state failed: {e}"));
            self.stack.push(env);
            self.ids.push(id);
        }
        self.stack.last().expect("the reset state")
    }
}

/// A shortest successful action sequence for `instance`, by breadth-first
/// search; also the number of distinct states seen.
fn search(program: &Program, instance: &TaskInstance) -> (Found, usize) {
    let task = instance.name.as_str();
    let with_visited = uses_visited(program, instance);
    let start = Env::new(program, instance, RewardConfig::default())
        .unwrap_or_else(|e| panic!("{task}: reset failed: {e}"));
    let mut seen = Seen::default();
    seen.insert(state_key(&start, with_visited));
    let mut cache = PathCache {
        ids: Vec::new(),
        stack: vec![start],
    };
    let mut tree = Tree::new();
    let mut level = vec![ROOT];
    while !level.is_empty() {
        let mut next = Vec::new();
        for &node in &level {
            let env = cache.env(&tree, node, task);
            for action in env.actions() {
                // An answer ends the episode, succeeding exactly when it
                // matches (§5.3): no need to step a clone (the replay does).
                if action.kind == ActionKind::Answer {
                    let text = action.text.as_deref().unwrap_or_default();
                    if env::answer_matches(text, env.expected_answers()) {
                        let mut witness = actions_to(&tree, node);
                        witness.push(action.clone());
                        return (Found::Witness(witness), seen.len());
                    }
                    continue;
                }
                let mut child = env.clone();
                let result = child
                    .step(action)
                    .unwrap_or_else(|e| panic!("{task}: candidate {action:?} refused: {e}"));
                if result.success {
                    let mut witness = actions_to(&tree, node);
                    witness.push(action.clone());
                    return (Found::Witness(witness), seen.len());
                }
                // A rejected step changes nothing the key sees (§5.3); an
                // episode that ended without success leads nowhere.
                if result.done || result.epsilon != 0 {
                    continue;
                }
                if !seen.insert(state_key(&child, with_visited)) {
                    continue;
                }
                if seen.len() >= BUDGET {
                    return (Found::OverBudget, seen.len());
                }
                tree.push((node, action.clone()));
                next.push(tree.len() - 1);
            }
        }
        level = next;
    }
    (Found::Exhausted, seen.len())
}

/// Replays `witness` with dense rewards and checks every step against the
/// formula; then in terminal mode. `Err` says what went wrong.
fn replay(program: &Program, instance: &TaskInstance, witness: &[Action]) -> Result<(), String> {
    let dense = RewardConfig::default();
    let mut env = Env::new(program, instance, dense)?;
    let mut psi = env.progress();
    for (i, action) in witness.iter().enumerate() {
        if !env.actions().contains(action) {
            return Err(format!("step {i}: {action:?} is not a candidate"));
        }
        let r = env.step(action).map_err(|e| format!("step {i}: {e}"))?;
        let win = if r.success { 1.0 } else { 0.0 };
        // §5.4 with its default α = 0.5, γ = 0.2, η = 0.01, written out.
        let expected = win + 0.5 * (r.progress - psi) - 0.2 * f64::from(r.epsilon) - 0.01;
        if (r.reward - expected).abs() > 1e-12 {
            return Err(format!(
                "step {i}: reward {} but the formula gives {expected} (Ψ {psi} → {}, ε {})",
                r.reward, r.progress, r.epsilon
            ));
        }
        let last = i + 1 == witness.len();
        if r.done != last || r.success != last {
            return Err(format!(
                "step {i}: done={} success={} (last step: {last})",
                r.done, r.success
            ));
        }
        psi = r.progress;
    }
    let terminal = RewardConfig {
        terminal: true,
        ..dense
    };
    let mut env = Env::new(program, instance, terminal)?;
    for (i, action) in witness.iter().enumerate() {
        let r = env
            .step(action)
            .map_err(|e| format!("terminal step {i}: {e}"))?;
        let want = if i + 1 == witness.len() { 1.0 } else { 0.0 };
        if r.reward != want {
            return Err(format!("terminal step {i}: reward {} not {want}", r.reward));
        }
    }
    if !env.done() {
        return Err("terminal replay did not end the episode".into());
    }
    Ok(())
}

/// One task instance to check.
struct Job<'a> {
    file: &'a str,
    program: &'a Program,
    instance: TaskInstance,
}

/// Searches and replays one task instance: its summary line, or why it fails.
fn check(job: &Job<'_>) -> Result<String, String> {
    let t = Instant::now();
    let (found, states) = search(job.program, &job.instance);
    let horizon = job.program.tasks[job.instance.task].horizon;
    let ms = t.elapsed().as_millis();
    let label = format!("{}: {}", job.file, job.instance.name);
    match found {
        Found::Witness(w) => {
            if w.len() > horizon as usize {
                return Err(format!(
                    "{label}: witness longer than the horizon {horizon}"
                ));
            }
            replay(job.program, &job.instance, &w).map_err(|e| format!("{label}: replay: {e}"))?;
            Ok(format!(
                "{label}: witness of {} steps (horizon {horizon}), {states} states, {ms} ms",
                w.len()
            ))
        }
        Found::Exhausted => Err(format!(
            "{label}: no successful sequence within the horizon {horizon} ({states} states)"
        )),
        Found::OverBudget => Err(format!(
            "{label}: undecided, the budget of {BUDGET} states ran out ({ms} ms)"
        )),
    }
}

#[test]
fn every_task_has_a_witness_with_exact_rewards() {
    let started = Instant::now();
    let programs = programs();
    let jobs: Vec<Job<'_>> = programs
        .iter()
        .flat_map(|(file, program)| {
            env::instances(program)
                .into_iter()
                .map(move |instance| Job {
                    file,
                    program,
                    instance,
                })
        })
        .collect();
    assert!(!jobs.is_empty(), "no task instances found");
    // The searches are independent: spread them over the cores (each worker
    // takes the next unclaimed task).
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<String, String>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let outcome = check(job);
                results.lock().expect("no worker panicked")[i] = Some(outcome);
            });
        }
    });
    let results = results.into_inner().expect("no worker panicked");
    let mut failures = Vec::new();
    for outcome in results {
        match outcome.expect("every job ran") {
            Ok(line) => eprintln!("{line}"),
            Err(why) => {
                eprintln!("FAILED {why}");
                failures.push(why);
            }
        }
    }
    eprintln!(
        "{} task instances searched in {:.1} s on {workers} threads",
        jobs.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
