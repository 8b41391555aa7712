//! Reward-guided search (issue 19, item 5; WebArbiter's best-of-N on
//! WebArena-Lite; docs/prm-prmpolicy.md): at every step the policy samples N
//! actions, and a process-reward [`Judge`] picks among the distinct ones.
//!
//! The episodes are [`evaluate`](super::run::evaluate)'s (the same task instances, seeds and
//! one-environment interpreter batches, judged by the distance oracle for
//! WebFactory's metrics); only the choice of each action differs. Sampling
//! draws from torch's generator exactly as plain evaluation does, so with
//! N = 1 the search plays the plain episodes. A judge is asked only when the
//! samples hold two distinct actions or more; its best-scored one is taken,
//! ties going to the policy's most likely, and a judge that fails (or
//! answers the wrong number of scores, or a non-finite one) is counted and
//! the policy's most likely sample taken.

use super::error::{RunError, ScoreError, SearchError};
use super::obs::ObsStore;
use super::policy::Policy;
use super::run::{
    evaluate_with, live_observations, to_vec_f32, to_vec_i64, Compiled, Game, RunConfig, SiteResult,
};
use crate::prm::judge::{Choice, Judge, Query};
use crate::prm::text::action_line;
use crate::prove::{step_of, WitnessStep};
use tch::{Kind, Tensor};

/// How the steps of a search went.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SearchCounts {
    /// Steps taken in all.
    pub steps: usize,
    /// Steps whose samples held one distinct action (taken unasked).
    pub single: usize,
    /// Steps the judge was asked about.
    pub asked: usize,
    /// Asked steps where the judge's choice was not the policy's most
    /// likely sample.
    pub overruled: usize,
    /// Asked steps where the judge failed (the most likely sample taken).
    pub judge_errors: usize,
    /// The first failure, to report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// A search's evaluation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SearchResult {
    pub sites: Vec<SiteResult>,
    pub counts: SearchCounts,
}

/// Plays every task instance of every site once per seed, as
/// [`evaluate`](super::run::evaluate) does when sampling, but takes at each step the judge's
/// favourite of `n` sampled actions (see the module docs). Always on the
/// interpreter, whatever `c.judge`: the judge reads the live state.
pub fn evaluate_search(
    compiled: &[Compiled<'_>],
    policy: &Policy,
    seeds: &[u64],
    n: usize,
    judge: &mut dyn Judge,
    c: &RunConfig,
) -> Result<SearchResult, RunError> {
    let c = RunConfig { judge: true, ..*c };
    let mut counts = SearchCounts::default();
    let sites = evaluate_with(compiled, seeds, &c, &mut |games| {
        play(games, policy, n.max(1), judge, &c, &mut counts)
    })?;
    Ok(SearchResult { sites, counts })
}

/// The actions taken so far in one game, as a query shows them.
#[derive(Default)]
struct Path {
    history: Vec<String>,
    trace: Vec<WitnessStep>,
}

/// Steps every game until each has ended, choosing by search.
fn play(
    games: &mut [Game<'_>],
    policy: &Policy,
    n: usize,
    judge: &mut dyn Judge,
    c: &RunConfig,
    counts: &mut SearchCounts,
) -> Result<(), RunError> {
    let mut paths: Vec<Path> = games.iter().map(|_| Path::default()).collect();
    loop {
        let (live, now) = live_observations(games, c.spec);
        if live.is_empty() {
            return Ok(());
        }
        let (samples, log_p, width) = tch::no_grad(|| sample(policy, &now, n, c));
        for (j, &i) in live.iter().enumerate() {
            let rows = distinct(&samples[j * n..(j + 1) * n]);
            let row_log_p = &log_p[j * width..(j + 1) * width];
            let row = choose(&games[i], &paths[i], &rows, row_log_p, judge, counts)?;
            record(&games[i], &mut paths[i], row)?;
            games[i].step(row)?;
        }
    }
}

/// `n` rows sampled per game (with replacement), drawn as plain evaluation
/// draws one, and the log-probabilities `[games × width]`.
fn sample(policy: &Policy, now: &ObsStore, n: usize, c: &RunConfig) -> (Vec<i64>, Vec<f32>, usize) {
    let (logits, _) = policy.forward(&now.to_device(c.device));
    let log_p = logits.log_softmax(-1, Kind::Float);
    let samples: Tensor = log_p.exp().multinomial(n as i64, true);
    let width = usize::try_from(log_p.size().last().copied().unwrap_or(0)).unwrap_or(0);
    (to_vec_i64(&samples), to_vec_f32(&log_p), width)
}

/// The distinct rows of `samples`, in the order first drawn.
fn distinct(samples: &[i64]) -> Vec<u32> {
    let mut rows: Vec<u32> = Vec::new();
    for &s in samples {
        let row = u32::try_from(s).unwrap_or(0);
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    rows
}

/// The row to take: the only one, or the judge's favourite.
fn choose(
    game: &Game<'_>,
    path: &Path,
    rows: &[u32],
    log_p: &[f32],
    judge: &mut dyn Judge,
    counts: &mut SearchCounts,
) -> Result<u32, SearchError> {
    counts.steps += 1;
    let likely = most_likely(rows, log_p, |_| true);
    if rows.len() < 2 {
        counts.single += 1;
        return Ok(likely);
    }
    counts.asked += 1;
    let query = query(game, path, rows)?;
    let verdict = judge
        .score(&query)
        .map_err(ScoreError::Judge)
        .and_then(|scores| valid(scores, rows.len()));
    let scores = match verdict {
        Ok(s) => s,
        Err(why) => {
            counts.judge_errors += 1;
            counts.first_error.get_or_insert_with(|| why.to_string());
            return Ok(likely);
        }
    };
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let chosen = most_likely(rows, log_p, |k| scores[k] == best);
    counts.overruled += usize::from(chosen != likely);
    Ok(chosen)
}

/// A judge's scores, refused unless one finite score per candidate.
fn valid(scores: Vec<f64>, n: usize) -> Result<Vec<f64>, ScoreError> {
    if scores.len() != n {
        return Err(ScoreError::Count {
            scores: scores.len(),
            candidates: n,
        });
    }
    if scores.iter().any(|s| !s.is_finite()) {
        return Err(ScoreError::NotFinite);
    }
    Ok(scores)
}

/// The row among `rows` (those whose position `keep` accepts) the policy
/// gives the highest probability; the first such on ties.
fn most_likely(rows: &[u32], log_p: &[f32], keep: impl Fn(usize) -> bool) -> u32 {
    let lp = |r: u32| log_p.get(r as usize).copied().unwrap_or(f32::NEG_INFINITY);
    let mut best: Option<u32> = None;
    for (k, &r) in rows.iter().enumerate() {
        if keep(k) && best.is_none_or(|b| lp(r) > lp(b)) {
            best = Some(r);
        }
    }
    best.or(rows.first().copied()).unwrap_or(0)
}

/// The action behind table row `row` of the game's environment.
fn action_at<'g, 's>(
    game: &'g Game<'s>,
    row: u32,
) -> Result<(&'g crate::env::Env<'s>, crate::env::Action), SearchError> {
    let batch = game.batch.interp().ok_or(SearchError::NotInterpreter)?;
    let env = batch.env(0).ok_or(SearchError::EmptyBatch)?;
    let action = batch
        .candidate_at(0, row)
        .and_then(|i| env.actions().get(i))
        .cloned()
        .ok_or(SearchError::NoActionRow(row))?;
    Ok((env, action))
}

/// The game's live state with the candidate rows, as a judge sees it.
fn query(game: &Game<'_>, path: &Path, rows: &[u32]) -> Result<Query, SearchError> {
    let mut candidates = Vec::with_capacity(rows.len());
    for &row in rows {
        let (env, action) = action_at(game, row)?;
        candidates.push(Choice {
            action: action_line(env.elements(), &action),
            step: Some(step_of(env, &action)),
        });
    }
    let (env, _) = action_at(game, rows.first().copied().unwrap_or(0))?;
    let o = env.observation();
    Ok(Query {
        id: format!("{}/{}@{}", game.site.name, game.task.name, env.steps()),
        site: game.site.name.clone(),
        domain: game.site.domain.clone(),
        task: game.task.name.clone(),
        instruction: o.instruction,
        url: o.url,
        title: o.title,
        alert: o.alert,
        observation: o.axtree,
        history: path.history.clone(),
        trace: path.trace.clone(),
        candidates,
    })
}

/// Notes the action about to be taken in the game's path.
fn record(game: &Game<'_>, path: &mut Path, row: u32) -> Result<(), SearchError> {
    let (env, action) = action_at(game, row)?;
    path.history.push(action_line(env.elements(), &action));
    path.trace.push(step_of(env, &action));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_refused_unless_one_finite_score_per_candidate() {
        assert_eq!(valid(vec![0.5, -1.0], 2).ok(), Some(vec![0.5, -1.0]));
        let wrong = |scores: Vec<f64>, n| valid(scores, n).err().map(|e| e.to_string());
        assert_eq!(
            wrong(vec![1.0], 2).as_deref(),
            Some("1 scores for 2 candidates")
        );
        assert_eq!(
            wrong(vec![1.0, f64::NAN], 2).as_deref(),
            Some("a score that is not a finite number")
        );
    }
}
