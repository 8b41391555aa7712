//! Scoring judgements against a benchmark (docs/prm.md, "Eval";
//! INTERFACES.md, "Process-reward data"): pure, no I/O.
//!
//! A judgement line is `{"id", "scores": [s_chosen, s_r1..s_r4]}`, `{"id",
//! "preferences": [b1..b4]}` (b_i true iff the chosen action is preferred
//! over rejected i) or `{"id", "error": "…"}`, with an optional `judge` name.
//! Per instance there are one pairwise outcome per rejected candidate (the
//! chosen one scored *strictly* above it: a tie is wrong, as in
//! WebShepherd's evaluator) and a Best-of-N outcome (all pairs right).
//! Pairwise accuracy is correct pairs over all pairs, BoN accuracy is
//! instances with every pair right over instances; both overall (micro),
//! per domain, and WebArbiter's "Avg", the mean over domains (macro).
//!
//! Nothing is skipped silently: every [`Problem`] is reported with its kind.
//! An instance without a usable judgement (missing, malformed with a
//! readable id, a judge's error line, or judged twice) is counted wrong; a
//! judgement for an id the benchmark does not have is reported and ignored.

use super::Instance;
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What scoring needs of a benchmark instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub id: String,
    pub domain: String,
    /// How many rejected candidates it has (pairs it contributes).
    pub rejected: usize,
}

impl From<&Instance> for Item {
    fn from(i: &Instance) -> Item {
        Item {
            id: i.id.clone(),
            domain: i.domain.clone(),
            rejected: i.rejected.len(),
        }
    }
}

/// A judge's answer for one instance.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// One finite score per candidate, `[chosen, rejected…]`.
    Scores(Vec<f64>),
    /// One preference per rejected candidate: true iff chosen is preferred.
    Preferences(Vec<bool>),
    /// The judge could not judge it.
    Error(String),
}

/// One parsed judgement line.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    pub id: String,
    pub judge: Option<String>,
    pub answer: Answer,
}

/// Why a judgement line is malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Malformed {
    /// Not a JSON value at all.
    NotJson(String),
    /// JSON, but not an object.
    NotObject,
    /// No string `id`.
    NoId,
    /// None of `scores`, `preferences`, `error`, or more than one.
    NoAnswer,
    /// A field of the wrong type (`scores` not all numbers, …).
    WrongType(&'static str),
    /// A score that is not a finite number.
    NonFinite,
    /// The wrong number of scores or preferences for the instance.
    Arity { expected: usize, found: usize },
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::NotJson(why) => write!(f, "not JSON ({why})"),
            Malformed::NotObject => f.write_str("not a JSON object"),
            Malformed::NoId => f.write_str("no string `id`"),
            Malformed::NoAnswer => {
                f.write_str("exactly one of `scores`, `preferences`, `error` is needed")
            }
            Malformed::WrongType(field) => write!(f, "`{field}` has the wrong type"),
            Malformed::NonFinite => f.write_str("a score is not a finite number"),
            Malformed::Arity { expected, found } => {
                write!(f, "{found} values where the instance needs {expected}")
            }
        }
    }
}

impl std::error::Error for Malformed {}

/// Reads one judgement line. A malformed line whose id could be read comes
/// back with it, so the instance can be charged.
pub fn parse_line(line: &str) -> Result<Judgement, (Option<String>, Malformed)> {
    let value: Json =
        serde_json::from_str(line).map_err(|e| (None, Malformed::NotJson(e.to_string())))?;
    let object = value.as_object().ok_or((None, Malformed::NotObject))?;
    let id = object
        .get("id")
        .and_then(Json::as_str)
        .ok_or((None, Malformed::NoId))?
        .to_string();
    let fail = |why| (Some(id.clone()), why);
    let judge = match object.get("judge") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(_) => return Err(fail(Malformed::WrongType("judge"))),
    };
    let fields: Vec<&str> = ["scores", "preferences", "error"]
        .into_iter()
        .filter(|k| object.contains_key(*k))
        .collect();
    let answer = match (fields.as_slice(), object) {
        (["scores"], o) => Answer::Scores(scores(&o["scores"]).map_err(fail)?),
        (["preferences"], o) => Answer::Preferences(preferences(&o["preferences"]).map_err(fail)?),
        (["error"], o) => match &o["error"] {
            Json::String(s) => Answer::Error(s.clone()),
            _ => return Err(fail(Malformed::WrongType("error"))),
        },
        _ => return Err(fail(Malformed::NoAnswer)),
    };
    Ok(Judgement { id, judge, answer })
}

fn scores(value: &Json) -> Result<Vec<f64>, Malformed> {
    let list = value.as_array().ok_or(Malformed::WrongType("scores"))?;
    list.iter()
        .map(|v| {
            let x = v.as_f64().ok_or(Malformed::WrongType("scores"))?;
            if x.is_finite() {
                Ok(x)
            } else {
                Err(Malformed::NonFinite)
            }
        })
        .collect()
}

fn preferences(value: &Json) -> Result<Vec<bool>, Malformed> {
    let list = value
        .as_array()
        .ok_or(Malformed::WrongType("preferences"))?;
    list.iter()
        .map(|v| v.as_bool().ok_or(Malformed::WrongType("preferences")))
        .collect()
}

/// The pairwise outcomes of one answer (an error line: all wrong).
fn outcomes(answer: &Answer, rejected: usize) -> Result<Vec<bool>, Malformed> {
    match answer {
        Answer::Scores(s) => match s.split_first() {
            Some((chosen, rest)) if rest.len() == rejected => {
                Ok(rest.iter().map(|r| chosen > r).collect())
            }
            _ => Err(Malformed::Arity {
                expected: rejected + 1,
                found: s.len(),
            }),
        },
        Answer::Preferences(p) if p.len() == rejected => Ok(p.clone()),
        Answer::Preferences(p) => Err(Malformed::Arity {
            expected: rejected,
            found: p.len(),
        }),
        Answer::Error(_) => Ok(vec![false; rejected]),
    }
}

/// Something wrong with the judgements, by kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// No line judges this instance (counted wrong).
    Missing { id: String },
    /// Line `line` (1-based) is malformed; `id` when it could be read (that
    /// instance is then counted wrong).
    Malformed {
        line: usize,
        id: Option<String>,
        why: Malformed,
    },
    /// A judgement for an id the benchmark does not have (ignored).
    UnknownId { line: usize, id: String },
    /// A second judgement of the same instance (counted wrong).
    Duplicate { line: usize, id: String },
    /// The judge answered with an error (counted wrong).
    JudgeError {
        line: usize,
        id: String,
        message: String,
    },
}

impl Problem {
    /// The kind, as reports group problems.
    pub fn kind(&self) -> &'static str {
        match self {
            Problem::Missing { .. } => "missing",
            Problem::Malformed { .. } => "malformed",
            Problem::UnknownId { .. } => "unknown id",
            Problem::Duplicate { .. } => "duplicate",
            Problem::JudgeError { .. } => "judge error",
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing { id } => write!(f, "{id}: no judgement (counted wrong)"),
            Problem::Malformed {
                line,
                id: Some(id),
                why,
            } => {
                write!(f, "line {line} ({id}): {why} (counted wrong)")
            }
            Problem::Malformed {
                line,
                id: None,
                why,
            } => write!(f, "line {line}: {why}"),
            Problem::UnknownId { line, id } => {
                write!(f, "line {line}: `{id}` is not in the benchmark (ignored)")
            }
            Problem::Duplicate { line, id } => {
                write!(f, "line {line}: `{id}` judged again (counted wrong)")
            }
            Problem::JudgeError { line, id, message } => {
                write!(
                    f,
                    "line {line} ({id}): the judge failed: {message} (counted wrong)"
                )
            }
        }
    }
}

/// Correct pairs and instances out of all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub pairs: usize,
    pub pairs_correct: usize,
    pub instances: usize,
    pub bon_correct: usize,
}

impl Tally {
    /// One instance: its pairwise outcomes, or `None` when it counts wrong.
    fn add(&mut self, outcome: Option<&[bool]>, pairs: usize) {
        let correct = outcome.map_or(0, |o| o.iter().filter(|&&b| b).count());
        self.pairs += pairs;
        self.pairs_correct += correct;
        self.instances += 1;
        self.bon_correct += usize::from(outcome.is_some() && correct == pairs);
    }

    /// Pairwise accuracy in [0, 1] (0 with no pairs).
    pub fn pairwise(&self) -> f64 {
        ratio(self.pairs_correct, self.pairs)
    }

    /// Best-of-N accuracy in [0, 1] (0 with no instances).
    pub fn bon(&self) -> f64 {
        ratio(self.bon_correct, self.instances)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// One judgements file scored against a benchmark.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// The first `judge` name the lines give.
    pub judge: Option<String>,
    pub overall: Tally,
    pub domains: BTreeMap<String, Tally>,
    /// In line order, then the missing instances in benchmark order.
    pub problems: Vec<Problem>,
}

impl Report {
    /// WebArbiter's "Avg": the mean over domains of (Pairwise, BoN).
    pub fn macro_avg(&self) -> (f64, f64) {
        let n = self.domains.len();
        if n == 0 {
            return (0.0, 0.0);
        }
        let (p, b) = self
            .domains
            .values()
            .fold((0.0, 0.0), |(p, b), t| (p + t.pairwise(), b + t.bon()));
        (p / n as f64, b / n as f64)
    }

    /// Problems counted by kind.
    pub fn problem_counts(&self) -> BTreeMap<&'static str, usize> {
        let mut out = BTreeMap::new();
        for p in &self.problems {
            *out.entry(p.kind()).or_default() += 1;
        }
        out
    }
}

/// Scores the judgement lines `text` (blank lines are skipped) against
/// `items`.
pub fn score(items: &[Item], text: &str) -> Report {
    let index: BTreeMap<&str, &Item> = items.iter().map(|i| (i.id.as_str(), i)).collect();
    let mut report = Report::default();
    // Per instance: its outcomes, or `None` once it must count wrong.
    let mut judged: BTreeMap<&str, Option<Vec<bool>>> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        if line.trim().is_empty() {
            continue;
        }
        let (id, result) = match parse_line(line) {
            Ok(j) => {
                if report.judge.is_none() {
                    report.judge = j.judge.clone();
                }
                (Some(j.id.clone()), Ok(j))
            }
            Err((id, why)) => (id, Err(why)),
        };
        let Some(id) = id else {
            if let Err(why) = result {
                report.problems.push(Problem::Malformed {
                    line: line_no,
                    id: None,
                    why,
                });
            }
            continue;
        };
        let Some((&key, item)) = index.get_key_value(id.as_str()) else {
            report
                .problems
                .push(Problem::UnknownId { line: line_no, id });
            continue;
        };
        if judged.contains_key(key) {
            report
                .problems
                .push(Problem::Duplicate { line: line_no, id });
            judged.insert(key, None);
            continue;
        }
        let outcome = result.and_then(|j| {
            if let Answer::Error(message) = &j.answer {
                report.problems.push(Problem::JudgeError {
                    line: line_no,
                    id: id.clone(),
                    message: message.clone(),
                });
                return Ok(None);
            }
            outcomes(&j.answer, item.rejected).map(Some)
        });
        match outcome {
            Ok(o) => judged.insert(key, o),
            Err(why) => {
                report.problems.push(Problem::Malformed {
                    line: line_no,
                    id: Some(id),
                    why,
                });
                judged.insert(key, None)
            }
        };
    }
    let mut seen = BTreeSet::new();
    for item in items {
        let outcome = match judged.get(item.id.as_str()) {
            Some(o) => o.as_deref(),
            None => {
                if seen.insert(item.id.as_str()) {
                    report.problems.push(Problem::Missing {
                        id: item.id.clone(),
                    });
                }
                None
            }
        };
        report.overall.add(outcome, item.rejected);
        report
            .domains
            .entry(item.domain.clone())
            .or_default()
            .add(outcome, item.rejected);
    }
    report
}

#[cfg(test)]
#[path = "score_tests.rs"]
mod tests;
