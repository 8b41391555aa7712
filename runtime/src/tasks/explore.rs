//! The generator's exploration (docs/tasks.md, "Generating tasks"): a
//! breadth-first walk of the site's exact states (`Env`, §5.3) from its
//! initial state, typing the union of the site's task values (as the
//! invariant sweep of §5.5 does), that records what an agent can reach: every
//! distinct world (database and session) that committed marker clicks lead
//! to, with a shortest path there, and every text a page shows (the answer
//! candidates of §5.2) with the fewest steps it takes to see it.
//!
//! Nothing here is a verdict: the exploration only proposes candidates, and
//! every candidate is proven by `prove` before it is emitted.

use crate::env::observe::Handle;
use crate::env::{Action, ActionKind, Env, EnvError, RewardConfig, TaskInstance};
use crate::identity::fingerprint;
use crate::interp::exec::World;
use crate::interp::state::Digest128;
use crate::ir::{self, Value};
use crate::prove::with_open_task;
use std::collections::{BTreeMap, HashSet};
use std::hash::Hash;

/// How far the exploration goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Distinct states, at most.
    pub states: usize,
    /// Steps from the initial state, at most.
    pub depth: u32,
}

/// A committed marker click: the marker and its argument values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Click {
    pub marker: ir::MarkerId,
    pub args: Vec<Value>,
}

/// A world reached by committed marker clicks, by a shortest path.
#[derive(Clone, Debug)]
pub struct Effect {
    pub world: World,
    /// Steps of the path.
    pub steps: u32,
    /// The committed marker clicks of the path, in order.
    pub clicks: Vec<Click>,
    /// The texts the path types, in order (de-duplicated).
    pub typed: Vec<String>,
}

/// What the exploration found.
#[derive(Clone, Debug)]
pub struct Exploration {
    pub initial: World,
    /// Distinct worlds other than the initial one, in the order first reached.
    pub effects: Vec<Effect>,
    /// Every interpolated value and element text shown, with the fewest steps
    /// to a state that shows it.
    pub shown: BTreeMap<String, u32>,
    pub states: usize,
}

struct Node {
    parent: u32,
    action: Option<Action>,
    click: Option<Click>,
}

/// Explores `program` within `limits`. An `Err` only when the site has no
/// page to start on.
pub fn explore(program: &ir::Program, limits: Limits) -> Result<Exploration, EnvError> {
    let probe = probe_program(program, limits.depth);
    let instance = TaskInstance {
        task: probe.tasks.len() - 1,
        binding: None,
        name: PROBE.into(),
    };
    let mut env = Env::new(&probe, &instance, RewardConfig::default())?;
    let root = env.state().clone();
    let initial = root.world.clone();
    let mut seen: HashSet<u128> = HashSet::new();
    seen.insert(fingerprint(&root, false));
    let mut worlds: HashSet<u128> = HashSet::new();
    worlds.insert(digest(&initial));
    let mut nodes = vec![Node {
        parent: u32::MAX,
        action: None,
        click: None,
    }];
    let mut reached: Vec<(u32, u32, World)> = Vec::new();
    let mut shown = BTreeMap::new();
    let mut frontier = vec![(0u32, root)];
    let mut depth = 0;
    let mut full = false;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for (id, state) in std::mem::take(&mut frontier) {
            env.load(state);
            note_shown(&env, depth, &mut shown);
            if depth >= limits.depth || full {
                continue;
            }
            for action in env.actions().to_vec() {
                let click = committed_click(&env, &action);
                let Ok(succ) = env.successor(&action) else {
                    continue;
                };
                if succ.rejected || !seen.insert(fingerprint(&succ.state, false)) {
                    continue;
                }
                let node = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
                let changed = succ.state.world != env.state().world;
                nodes.push(Node {
                    parent: id,
                    action: Some(action),
                    click: click.filter(|_| changed),
                });
                if changed && worlds.insert(digest(&succ.state.world)) {
                    reached.push((node, depth + 1, succ.state.world.clone()));
                }
                next.push((node, succ.state));
                if seen.len() >= limits.states {
                    full = true;
                    break;
                }
            }
            if full {
                // The states already found are still shown and counted.
                continue;
            }
        }
        frontier = next;
        depth += 1;
    }
    let effects = reached
        .into_iter()
        .map(|(node, steps, world)| {
            let (clicks, typed) = path_of(&nodes, node);
            Effect {
                world,
                steps,
                clicks,
                typed,
            }
        })
        .collect();
    Ok(Exploration {
        initial,
        effects,
        shown,
        states: seen.len(),
    })
}

const PROBE: &str = "task generator exploration";

/// `program` with one more task: no goal, no answer, the union of the
/// tasks' typeable values, `depth` steps.
fn probe_program(program: &ir::Program, depth: u32) -> ir::Program {
    with_open_task(program, PROBE, depth.max(1))
}

fn digest(world: &World) -> u128 {
    let mut h = Digest128::new();
    world.hash(&mut h);
    h.finish128()
}

/// The marker a click on `action`'s element triggers, with its arguments.
fn committed_click(env: &Env<'_>, action: &Action) -> Option<Click> {
    if action.kind != ActionKind::Click {
        return None;
    }
    match env.view().handles.get(action.element?.wrapping_sub(1))? {
        Handle::Marker(m, Ok(args)) => Some(Click {
            marker: *m,
            args: args.clone(),
        }),
        _ => None,
    }
}

/// Records the texts the current page shows.
fn note_shown(env: &Env<'_>, depth: u32, shown: &mut BTreeMap<String, u32>) {
    let view = env.view();
    let texts = view
        .shown
        .iter()
        .chain(view.elements.iter().map(|e| &e.text));
    for t in texts {
        if !t.is_empty() && !shown.contains_key(t) {
            shown.insert(t.clone(), depth);
        }
    }
}

/// The committed clicks and typed texts on the path to `node`.
fn path_of(nodes: &[Node], mut node: u32) -> (Vec<Click>, Vec<String>) {
    let mut clicks = Vec::new();
    let mut typed: Vec<String> = Vec::new();
    while let Some(n) = nodes.get(node as usize) {
        if let Some(c) = &n.click {
            clicks.push(c.clone());
        }
        if let Some(a) = n.action.as_ref().filter(|a| a.kind == ActionKind::Type) {
            if let Some(t) = a
                .text
                .as_ref()
                .filter(|t| !t.is_empty() && !typed.contains(t))
            {
                typed.push(t.clone());
            }
        }
        node = n.parent;
    }
    clicks.reverse();
    typed.reverse();
    (clicks, typed)
}
