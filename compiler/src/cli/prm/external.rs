//! `cmd:COMMAND` judges (docs/prm.md, "External judges"; issue 19 item 4):
//! a process, started once under `sh -c` (`super::super::process`), that
//! reads one [`Query`] per line (the blind candidate order, no labels) and
//! answers one line, `{"id", "scores": [..]}` in the shown order or `{"id",
//! "best": k}` (k scores 1, the others 0). An answer for another id, of the
//! wrong length, with a non-finite score, or no answer within the timeout
//! is `JudgeError::Failed` for that query; the process is restarted once
//! (as `--simulator`'s) and the run goes on.

use super::super::process::LineProcess;
use serde_json::Value as Json;
use std::time::Duration;
use wsite_runtime::prm::judge::{Judge, JudgeError, Query};

/// A judge that is a process speaking JSON lines.
pub struct ExternalJudge {
    name: String,
    process: LineProcess,
}

impl ExternalJudge {
    /// Starts `command`; each answer is waited for at most `timeout`.
    pub fn start(command: &str, timeout: Duration) -> Result<ExternalJudge, String> {
        Ok(ExternalJudge {
            name: format!("cmd:{command}"),
            process: LineProcess::start(command, "judge", timeout)?,
        })
    }
}

impl Judge for ExternalJudge {
    fn name(&self) -> &str {
        &self.name
    }

    fn score(&mut self, query: &Query) -> Result<Vec<f64>, JudgeError> {
        if let Some(why) = self.process.gone() {
            return Err(JudgeError::Failed(why.to_string()));
        }
        let line = serde_json::to_string(query).map_err(|e| JudgeError::Failed(e.to_string()))?;
        let answer = self
            .process
            .exchange(line)
            .and_then(|a| parse_answer(&a, query));
        match answer {
            Ok(scores) => {
                self.process.answered();
                Ok(scores)
            }
            Err(why) => Err(JudgeError::Failed(self.process.recover(why))),
        }
    }
}

/// Reads an answer line for `query`: its scores in shown order.
pub fn parse_answer(line: &str, query: &Query) -> Result<Vec<f64>, String> {
    let shown = || line.trim().chars().take(80).collect::<String>();
    let value: Json = serde_json::from_str(line)
        .map_err(|_| format!("answered `{}`, which is not JSON", shown()))?;
    let id = value.get("id").and_then(Json::as_str);
    if id != Some(query.id.as_str()) {
        return Err(format!("answered for id {:?}, not `{}`", id, query.id));
    }
    let n = query.candidates.len();
    if let Some(best) = value.get("best") {
        let k = best
            .as_u64()
            .and_then(|k| usize::try_from(k).ok())
            .filter(|&k| k < n)
            .ok_or_else(|| format!("`best` must be a candidate's place 0..{n}, not {best}"))?;
        return Ok((0..n).map(|i| if i == k { 1.0 } else { 0.0 }).collect());
    }
    let scores = value
        .get("scores")
        .and_then(Json::as_array)
        .ok_or_else(|| format!("answered `{}`, with neither `scores` nor `best`", shown()))?;
    if scores.len() != n {
        return Err(format!("gave {} scores for {n} candidates", scores.len()));
    }
    scores
        .iter()
        .map(|s| {
            s.as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("score {s} is not a finite number"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wsite_runtime::prm::judge::Choice;

    fn query() -> Query {
        Query {
            id: "q1".into(),
            site: "s".into(),
            domain: "d".into(),
            task: "t".into(),
            instruction: "i".into(),
            url: "/".into(),
            title: String::new(),
            alert: None,
            observation: String::new(),
            history: Vec::new(),
            trace: Vec::new(),
            candidates: (0..3)
                .map(|k| Choice {
                    action: format!("click [{k}]"),
                    step: None,
                })
                .collect(),
        }
    }

    #[test]
    fn answers_are_checked() {
        let q = query();
        assert_eq!(
            parse_answer(r#"{"id":"q1","scores":[1,2.5,-3]}"#, &q),
            Ok(vec![1.0, 2.5, -3.0])
        );
        assert_eq!(
            parse_answer(r#"{"id":"q1","best":2}"#, &q),
            Ok(vec![0.0, 0.0, 1.0])
        );
        for bad in [
            "nonsense",
            r#"{"id":"q2","best":0}"#,
            r#"{"id":"q1","best":3}"#,
            r#"{"id":"q1","scores":[1,2]}"#,
            r#"{"id":"q1","scores":[1,"a",2]}"#,
            r#"{"id":"q1"}"#,
        ] {
            assert!(parse_answer(bad, &q).is_err(), "{bad}");
        }
    }
}
