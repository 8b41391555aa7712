//! One step (§5.3).
//!
//! An action is first checked against the rendered page: clicking needs an
//! enabled link, button or checkbox, selecting needs one of the select's
//! options, typing needs an input, answering needs a retrieval task. Typed and
//! answered text may be any text (language-model agents write their own), so
//! those two are not limited to the candidate list. An action that fails this
//! check is an `Err` and changes nothing — not even the step count — which is
//! how the agent protocol answers `{"error"}` and goes on.
//!
//! A valid action is a step: the alert is cleared, the action applied, the step
//! counted. A *rejected* step (a marker refused, a fault in link or marker
//! arguments, typed text that is not of the input's type, an extern marker's
//! proposal refused or its writer failing — see `writer`) changes nothing but
//! the step count and the alert, and costs ε = 1.

use super::actions::parse_input;
use super::distance::Shortest;
use super::observe::Handle;
use super::writer::{self, Asked, SharedWriter};
use super::{
    answer, judge, reward, Action, ActionKind, Env, EnvError, FormKey, Judgement, State, StepResult,
};
use crate::interp::exec::{run_marker, Outcome, Rejection};
use crate::interp::guard::land;
use crate::interp::state::idx;
use crate::interp::ActionFault;
use crate::ir::{self, Value};

/// A valid action, resolved against the page.
enum Move {
    Go(Result<(ir::PageId, Vec<Value>), ActionFault>),
    Marker(ir::MarkerId, Result<Vec<Value>, ActionFault>),
    SetForm(FormKey, Value),
    /// Typed text that is no value of the input's type.
    Reject(EnvError),
    Answer(String),
}

/// A candidate's outcome, as [`Env::successor`] computes it.
pub(crate) struct Successor {
    pub state: super::State,
    pub success: bool,
    pub rejected: bool,
    /// Why a marker was refused (`None` for other rejections).
    pub rejection: Option<Rejection>,
}

/// How applying a move ended.
enum Applied {
    Done,
    Rejected(String, Option<Rejection>),
    Answered(bool),
}

impl Env<'_> {
    /// Takes `action`; an `Err` (an invalid action, or an episode already
    /// over) leaves the environment exactly as it was.
    pub fn step(&mut self, action: &Action) -> Result<super::StepResult, EnvError> {
        if self.state.done {
            return Err(EnvError::EpisodeOver);
        }
        let mv = self.resolve(action)?;
        // The oracle judges the state the action is taken in.
        let shortest = match self.prejudged.take() {
            Some(s) => Some(s),
            None => self.shortest(),
        };
        let writer = self.writer.as_ref();
        let (epsilon, answered, _) =
            take(self.program, &self.expected, &mut self.state, mv, writer);
        Ok(self.finish(epsilon, answered, action, shortest))
    }

    /// The state `action` leads to, its success, and whether it was rejected,
    /// without rendering it or touching this environment: what a search needs
    /// from each candidate.
    pub(crate) fn successor(&self, action: &Action) -> Result<Successor, EnvError> {
        if self.state.done {
            return Err(EnvError::Ended);
        }
        let mv = self.resolve(action)?;
        let mut state = self.state.clone();
        // A search explores the `default` bodies (§2.3), never a writer.
        let (epsilon, answered, rejection) =
            take(self.program, &self.expected, &mut state, mv, None);
        let success = match answered {
            Some(ok) => ok,
            // A step that changed neither database nor session leaves a goal
            // that ignores navigation as it was.
            None if self.goal_ignores_navigation() && state.world == self.state.world => {
                self.goal_holds_now()
            }
            None => reward::goal_holds(self.program, self.task, &state, &self.frame),
        };
        Ok(Successor {
            state,
            success,
            rejected: epsilon == 1,
            rejection,
        })
    }

    /// Success, termination, the new view, the judgement and the reward of
    /// the step just taken (`action`, from a state the oracle answered
    /// `shortest` for).
    fn finish(
        &mut self,
        epsilon: u8,
        answered: Option<bool>,
        action: &Action,
        shortest: Option<Shortest>,
    ) -> StepResult {
        let success = match answered {
            Some(ok) => ok,
            None => reward::goal_holds(self.program, self.task, &self.state, &self.frame),
        };
        let done = answered.is_some() || success || self.state.step >= self.task.horizon;
        self.state.success = success;
        self.state.done = done;
        self.refresh();
        let before = self.psi;
        self.psi = reward::potential(self.program, self.task, &self.state, &self.frame);
        let judgement = shortest.map(|s| self.judge(&s, action, success));
        let credit = match (judgement, self.credit) {
            (Some(j), Some(c)) => c.credit(self.config.beta, j.new_best),
            _ => 0.0,
        };
        StepResult {
            reward: reward::reward(&self.config, success, before, self.psi, epsilon, credit),
            done,
            success,
            epsilon,
            progress: self.psi,
            judgement,
        }
    }

    /// R_acc of `action` and whether it earned the progress credit.
    fn judge(&mut self, shortest: &Shortest, action: &Action, success: bool) -> Judgement {
        let (r_acc, unknown) = judge::r_acc(shortest, action, success);
        let credit = self
            .credit
            .get_or_insert_with(|| judge::Credit::starting(shortest.distance));
        let new_best = credit.claim(shortest.distance, r_acc);
        let answer_f1 = match (action.kind, &action.text) {
            (ActionKind::Answer, Some(text)) => Some(self.expected.best_f1(text)),
            _ => None,
        };
        Judgement {
            r_acc,
            unknown,
            new_best,
            answer_f1,
        }
    }

    /// Checks `action` against the page and says what it would do.
    fn resolve(&self, action: &Action) -> Result<Move, EnvError> {
        if action.kind == ActionKind::Answer {
            if self.task.answer.is_none() {
                return Err(EnvError::TakesNoAnswer);
            }
            let text = action.text.clone().ok_or(EnvError::AnswerNeedsText)?;
            return Ok(Move::Answer(text));
        }
        let at = action.element.ok_or(EnvError::NeedsElement)?;
        let handle = at
            .checked_sub(1)
            .and_then(|i| self.view.handles.get(i))
            .ok_or(EnvError::NoElement(at))?;
        match (action.kind, handle) {
            (ActionKind::Click, Handle::Go(target)) => Ok(Move::Go(target.clone())),
            (ActionKind::Click, Handle::Marker(m, args)) => Ok(Move::Marker(*m, args.clone())),
            (ActionKind::Click, Handle::Checkbox { key, on }) => {
                Ok(Move::SetForm(key.clone(), Value::Bool(!on)))
            }
            (ActionKind::Type, Handle::Input { key, ty }) => {
                let text = action.text.as_deref().ok_or(EnvError::TypingNeedsText)?;
                Ok(match parse_input(self.program, text, ty) {
                    Ok(v) => Move::SetForm(key.clone(), v),
                    Err(why) => Move::Reject(why),
                })
            }
            (ActionKind::Select, Handle::Select { key, options }) => {
                let text = action
                    .text
                    .as_deref()
                    .ok_or(EnvError::SelectingNeedsOption)?;
                let (_, v) =
                    options
                        .iter()
                        .find(|o| o.0 == text)
                        .ok_or_else(|| EnvError::NoOption {
                            element: at,
                            option: text.to_string(),
                        })?;
                Ok(Move::SetForm(key.clone(), v.clone()))
            }
            _ => Err(EnvError::WrongAction(at)),
        }
    }
}

/// Applies a resolved move as a step: alert cleared, step counted; returns ε,
/// for an answer whether it matched, and for a refused marker which rule
/// refused it. `writer`, if any, proposes the effects of extern markers.
fn take(
    program: &ir::Program,
    expected: &answer::Expected,
    state: &mut State,
    mv: Move,
    writer: Option<&SharedWriter>,
) -> (u8, Option<bool>, Option<Rejection>) {
    state.alert = None;
    let applied = apply(program, expected, state, mv, writer);
    state.step = state.step.saturating_add(1);
    match applied {
        Applied::Done => (0, None, None),
        Applied::Rejected(alert, cause) => {
            state.alert = Some(alert);
            (1, None, cause)
        }
        Applied::Answered(ok) => (0, Some(ok), None),
    }
}

/// Applies a resolved move; a rejection changes nothing.
fn apply(
    program: &ir::Program,
    expected: &answer::Expected,
    state: &mut State,
    mv: Move,
    writer: Option<&SharedWriter>,
) -> Applied {
    match mv {
        Move::Go(Ok((page, args))) => navigate(program, state, page, args),
        Move::Go(Err(why)) | Move::Marker(_, Err(why)) => Applied::Rejected(why.to_string(), None),
        Move::Reject(why) => Applied::Rejected(why.to_string(), None),
        Move::Marker(m, Ok(args)) => {
            if let Some(w) = writer {
                match writer::ask(program, &mut state.world, &state.nav, w, m, &args) {
                    Asked::RunBody => {}
                    // A proposal has no `go`: the page stays (docs/DECISIONS.md).
                    Asked::Committed => return Applied::Done,
                    Asked::Rejected(alert, cause) => return Applied::Rejected(alert, cause),
                }
            }
            match run_marker(program, &mut state.world, Some(&state.nav), m, args) {
                Outcome::Committed {
                    go: Some((page, args)),
                    ..
                } => navigate(program, state, page, args),
                // Without `go` the page stays, with its arguments and form values.
                Outcome::Committed { go: None, .. } => Applied::Done,
                Outcome::Rejected { alert, cause } => Applied::Rejected(alert, Some(cause)),
            }
        }
        Move::SetForm(key, v) => {
            state.forms.insert(key, v);
            Applied::Done
        }
        Move::Answer(text) => Applied::Answered(expected.matches(&text)),
    }
}

/// Shows `page` with `args`, or the page its guards redirect to
/// (`interp::guard`): form variables reset, the page shown marked visited.
fn navigate(
    program: &ir::Program,
    state: &mut State,
    page: ir::PageId,
    args: Vec<Value>,
) -> Applied {
    let (page, args) = land(&state.world.context(program, Some(&state.nav)), page, args);
    if program.pages.get(idx(page)).is_none() {
        return Applied::Rejected(format!("there is no page #{page}"), None);
    }
    state.forms.clear();
    state.nav.visited.insert((page, args.clone()));
    state.nav.page = page;
    state.nav.args = args;
    Applied::Done
}
