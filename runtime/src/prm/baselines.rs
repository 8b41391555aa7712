//! The baseline judges of the process-reward table (docs/prm.md,
//! "Baselines"; issue 19 item 3): `random` (a seeded hash of the query's
//! id and each action's text, so the same scores on every run), `overlap`
//! (the words an action shares with the instruction; ties stay ties, which
//! the eval counts wrong — honest about a heuristic that cannot tell), and
//! `oracle` (replays the query's state on its site and scores each
//! candidate by minus its exact distance to success afterwards, via
//! `label::after`: 100% by construction on an exported benchmark, which is
//! the check that the labels are right).

use super::judge::{Judge, JudgeError, Query};
use super::label::after;
use super::text::{jaccard, words};
use super::{restore_state, After};
use crate::env::distance::DistanceOracle;
use crate::env::RewardConfig;
use crate::ir::Program;
use crate::prove::resolve_step;
use std::collections::BTreeMap;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Uniform scores in [0, 1) from a hash of the seed, the query's id and the
/// action's text: deterministic, and blind to everything else.
pub struct RandomJudge {
    pub seed: u64,
}

impl Judge for RandomJudge {
    fn name(&self) -> &str {
        "random"
    }

    fn score(&mut self, query: &Query) -> Result<Vec<f64>, JudgeError> {
        let base = xxh3_64_with_seed(query.id.as_bytes(), self.seed);
        Ok(query
            .candidates
            .iter()
            .map(|c| {
                (xxh3_64_with_seed(c.action.as_bytes(), base) >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect())
    }
}

/// The Jaccard overlap of the words of the instruction and of each action
/// line (kind, role and text): a judge that reads only words.
pub struct OverlapJudge;

impl Judge for OverlapJudge {
    fn name(&self) -> &str {
        "overlap"
    }

    fn score(&mut self, query: &Query) -> Result<Vec<f64>, JudgeError> {
        let instruction = words(&query.instruction);
        Ok(query
            .candidates
            .iter()
            .map(|c| jaccard(&instruction, &words(&c.action)))
            .collect())
    }
}

/// The exact oracle: −(distance to success after the candidate), with an
/// unreachable or undecided candidate below every reachable one.
pub struct OracleJudge<'p> {
    programs: &'p BTreeMap<String, Program>,
    budget: usize,
}

/// Scores for candidates the oracle cannot place: below any distance a
/// horizon allows, and unreachable below undecided.
const UNKNOWN_SCORE: f64 = -1e9;
const UNREACHABLE_SCORE: f64 = -2e9;

impl<'p> OracleJudge<'p> {
    /// `programs` by site name; `budget` bounds each distance query.
    pub fn new(programs: &'p BTreeMap<String, Program>, budget: usize) -> OracleJudge<'p> {
        OracleJudge { programs, budget }
    }
}

impl Judge for OracleJudge<'_> {
    fn name(&self) -> &str {
        "oracle"
    }

    fn score(&mut self, query: &Query) -> Result<Vec<f64>, JudgeError> {
        let program = self.programs.get(&query.site).ok_or_else(|| {
            JudgeError::Unsupported(format!("site `{}` was not loaded (--sites)", query.site))
        })?;
        let env = restore_state(program, &query.state(), RewardConfig::default())
            .map_err(|e| JudgeError::Unsupported(e.to_string()))?;
        // A fresh oracle per query: its memo must not carry one query's
        // budget exhaustion into another's answer.
        let mut oracle = DistanceOracle::new(self.budget);
        query
            .candidates
            .iter()
            .map(|c| {
                let step = c.step.as_ref().ok_or_else(|| {
                    JudgeError::Unsupported(format!(
                        "`{}` is text only, not a wsite step",
                        c.action
                    ))
                })?;
                let action = resolve_step(&env, step)
                    .map_err(|e| JudgeError::Unsupported(format!("`{}`: {e}", c.action)))?;
                Ok(match after(&env, &mut oracle, &action) {
                    // `0.0 - n`, not `-n`: a success scores 0, not -0.
                    After::Steps(n) => 0.0 - f64::from(n),
                    After::Unknown => UNKNOWN_SCORE,
                    After::Unreachable => UNREACHABLE_SCORE,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prm::judge::Choice;

    fn query(id: &str, instruction: &str, actions: &[&str]) -> Query {
        Query {
            id: id.into(),
            site: "s".into(),
            domain: "d".into(),
            task: "t".into(),
            instruction: instruction.into(),
            url: "/".into(),
            title: String::new(),
            alert: None,
            observation: String::new(),
            history: Vec::new(),
            trace: Vec::new(),
            candidates: actions
                .iter()
                .map(|a| Choice {
                    action: (*a).into(),
                    step: None,
                })
                .collect(),
        }
    }

    #[test]
    fn random_is_seeded_and_depends_on_id_and_action() {
        let q = query(
            "x",
            "buy",
            &["click [1] link \"A\"", "click [2] link \"B\""],
        );
        let a = RandomJudge { seed: 1 }.score(&q).unwrap();
        assert_eq!(a, RandomJudge { seed: 1 }.score(&q).unwrap());
        assert_ne!(a, RandomJudge { seed: 2 }.score(&q).unwrap());
        assert_ne!(a[0], a[1]);
        assert!(a.iter().all(|s| (0.0..1.0).contains(s)));
        let other = RandomJudge { seed: 1 }
            .score(&query("y", "buy", &["click [1] link \"A\""]))
            .unwrap();
        assert_ne!(other[0], a[0]);
    }

    #[test]
    fn overlap_prefers_shared_words_and_keeps_ties() {
        let q = query(
            "x",
            "Buy the ThinkPad X1",
            &[
                "click [3] link \"ThinkPad X1\"",
                "click [4] link \"Home\"",
                "click [5] link \"About\"",
            ],
        );
        let s = OverlapJudge.score(&q).unwrap();
        assert!(s[0] > s[1]);
        assert_eq!(s[1], s[2]);
    }

    #[test]
    fn oracle_refuses_unknown_sites_and_text_only_actions() {
        let programs = BTreeMap::new();
        let q = query("x", "buy", &["click('3')"]);
        let err = OracleJudge::new(&programs, 10).score(&q).unwrap_err();
        assert!(matches!(err, JudgeError::Unsupported(_)), "{err}");
    }
}
