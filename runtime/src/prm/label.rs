//! Labelling one state (docs/prm.md, "How labels are computed"): the
//! distance oracle gives d(s) and O(s), the candidates that begin a shortest
//! successful sequence; the chosen action is one of O(s), picked by seed, and
//! every other candidate is a negative, since a candidate outside O(s) leads
//! to a state whose distance is at least d(s) (or from which success is out
//! of reach). The negatives are ranked hardest first: one that makes the task
//! impossible within the steps left, then the same kind as the chosen action,
//! a nearby element, shared words; the oracle measures the exact distance
//! after each of the best-ranked `shortlist` (which is what finds the dead
//! ends), and the four hardest are kept.

use super::text::{action_line, jaccard, words};
use super::{After, Candidate, Hardness, REJECTED};
use crate::env::distance::{Distance, DistanceOracle};
use crate::env::{Action, Env};
use crate::prove::step_of;
use std::collections::BTreeSet;
use std::fmt;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Elements at most this many places apart are "nearby".
const NEARBY: usize = 3;
/// Shared words (Jaccard) from which texts are "similar".
const SIMILAR: f64 = 0.2;

/// A labelled state.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    pub distance: u32,
    pub chosen: Candidate,
    pub rejected: Vec<Candidate>,
}

/// Why a state yields no instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// The episode is over.
    Over,
    /// Success is out of reach from the state.
    Unreachable,
    /// The oracle's budget ran out before d(s) was known.
    Unknown,
    /// Fewer than four candidates leave the shortest paths.
    FewNegatives,
}

impl Skip {
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::Over => "episode_over",
            Skip::Unreachable => "unreachable",
            Skip::Unknown => "oracle_budget",
            Skip::FewNegatives => "few_negatives",
        }
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Labels `env`'s current state; `oracle` must be one of `env`'s instance
/// (its memo is reused across the states of an episode). `shortlist`
/// negatives get their distance measured (at least four).
pub fn label(
    env: &Env<'_>,
    oracle: &mut DistanceOracle,
    seed: u64,
    shortlist: usize,
) -> Result<Labelled, Skip> {
    if env.done() {
        return Err(Skip::Over);
    }
    let shortest = oracle.query(env);
    let d = match shortest.distance {
        Distance::Steps(d) => d,
        Distance::Unreachable => return Err(Skip::Unreachable),
        Distance::Unknown => return Err(Skip::Unknown),
    };
    let (good, bad): (Vec<&Action>, Vec<&Action>) = env
        .actions()
        .iter()
        .partition(|a| shortest.optimal.contains(a));
    if bad.len() < REJECTED {
        return Err(Skip::FewNegatives);
    }
    // O(s) holds candidates of this very state, so it is never empty here.
    let chosen = good
        .iter()
        .min_by_key(|a| tiebreak(seed, env, a))
        .copied()
        .ok_or(Skip::Unknown)?;
    let chosen_words = action_words(env, chosen);
    let mut ranked: Vec<Ranked> = bad
        .into_iter()
        .map(|a| Ranked::new(env, a, chosen, &chosen_words, seed))
        .collect();
    ranked.sort_by(Ranked::harder_first);
    ranked.truncate(shortlist.max(REJECTED));
    for r in &mut ranked {
        r.after = after(env, oracle, r.action);
        if r.after == After::Unreachable {
            r.hard.insert(0, Hardness::DeadEnd);
        }
    }
    ranked.sort_by(Ranked::harder_first);
    let rejected = ranked
        .into_iter()
        .take(REJECTED)
        .map(|r| candidate(env, r.action, r.after, r.hard))
        .collect();
    Ok(Labelled {
        distance: d,
        chosen: candidate(env, chosen, After::Steps(d - 1), Vec::new()),
        rejected,
    })
}

/// The exact distance once `action` is taken in `env`'s state.
pub fn after(env: &Env<'_>, oracle: &mut DistanceOracle, action: &Action) -> After {
    let mut next = env.detached();
    match next.step(action) {
        Err(_) => After::Unknown,
        Ok(r) if r.success => After::Steps(0),
        Ok(r) if r.done => After::Unreachable,
        Ok(_) => match oracle.query(&next).distance {
            Distance::Steps(n) => After::Steps(n),
            Distance::Unreachable => After::Unreachable,
            Distance::Unknown => After::Unknown,
        },
    }
}

fn candidate(env: &Env<'_>, action: &Action, after: After, hard: Vec<Hardness>) -> Candidate {
    Candidate {
        action: action_line(env.elements(), action),
        step: Some(step_of(env, action)),
        element: action.element,
        distance_after: after,
        hard,
    }
}

/// The words of an action's element and text (not its kind or role, which
/// every link click shares).
fn action_words(env: &Env<'_>, action: &Action) -> BTreeSet<String> {
    let element = action
        .element
        .and_then(|i| env.elements().iter().find(|e| e.index == i))
        .map_or("", |e| e.text.as_str());
    let mut w = words(element);
    w.extend(words(action.text.as_deref().unwrap_or("")));
    w
}

/// A seeded order among candidates that is the same on every machine.
fn tiebreak(seed: u64, env: &Env<'_>, action: &Action) -> u64 {
    xxh3_64_with_seed(action_line(env.elements(), action).as_bytes(), seed)
}

/// A negative with what makes it hard.
struct Ranked<'a> {
    action: &'a Action,
    hard: Vec<Hardness>,
    similarity: f64,
    gap: usize,
    after: After,
    tiebreak: u64,
}

impl<'a> Ranked<'a> {
    fn new(
        env: &Env<'_>,
        action: &'a Action,
        chosen: &Action,
        chosen_words: &BTreeSet<String>,
        seed: u64,
    ) -> Ranked<'a> {
        let similarity = jaccard(&action_words(env, action), chosen_words);
        let gap = match (action.element, chosen.element) {
            (Some(a), Some(b)) => a.abs_diff(b),
            _ => usize::MAX,
        };
        let mut hard = Vec::new();
        if action.kind == chosen.kind {
            hard.push(Hardness::SameKind);
        }
        if gap <= NEARBY {
            hard.push(Hardness::Nearby);
        }
        if similarity >= SIMILAR {
            hard.push(Hardness::SimilarText);
        }
        Ranked {
            action,
            hard,
            similarity,
            gap,
            after: After::Unknown,
            tiebreak: tiebreak(seed, env, action),
        }
    }

    /// Dead ends first, then more reasons, more shared words, a nearer
    /// element, and the seeded order.
    fn harder_first(a: &Ranked<'_>, b: &Ranked<'_>) -> std::cmp::Ordering {
        let dead = |r: &Ranked<'_>| r.hard.contains(&Hardness::DeadEnd);
        dead(b)
            .cmp(&dead(a))
            .then(b.hard.len().cmp(&a.hard.len()))
            .then(b.similarity.total_cmp(&a.similarity))
            .then(a.gap.cmp(&b.gap))
            .then(a.tiebreak.cmp(&b.tiebreak))
    }
}
