//! Why the environment refused something: a task instance it cannot find or
//! start, an action the page does not take (the agent protocol answers it
//! with `{"error"}` and goes on, nothing changed), or typed text that is no
//! value of its input's type (a rejected step, whose alert this is).

use crate::interp::exec::SetupError;
use crate::interp::ActionFault;
use std::fmt;

/// What the environment could not do. The messages are the ones the CLI
/// prints and the agent protocol answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvError {
    /// No task instance of this name, nor a template of it; `tasks` names
    /// every instance the program has.
    UnknownTask { name: String, tasks: Vec<String> },
    /// The program has no task of this index.
    NoTask(usize),
    /// The task's `setup` failed.
    Setup { task: String, why: SetupError },
    /// The start page's arguments faulted.
    StartPage { task: String, fault: ActionFault },
    /// The start page (after its guards) is no page of the program.
    NoPage { task: String, page: u32 },
    /// The template's binder slot is outside the task's frame (a broken IR).
    BinderOutsideFrame,
    /// A template task played without a row bound.
    Unbound { task: String },
    /// An observation element read back with a role that is none of
    /// [`super::ROLES`].
    UnknownRole { role: String },
    /// `step` after the episode ended.
    EpisodeOver,
    /// A successor asked of a state whose episode is over.
    Ended,
    /// An `answer` in a task that takes none.
    TakesNoAnswer,
    /// An `answer` without its text.
    AnswerNeedsText,
    /// A `type` without its text.
    TypingNeedsText,
    /// A `select` without the option's text.
    SelectingNeedsOption,
    /// A `click`, `type` or `select` without an element.
    NeedsElement,
    /// No element of this (1-based) index on the page.
    NoElement(usize),
    /// The element cannot take the action's kind.
    WrongAction(usize),
    /// The select has no option of this text.
    NoOption { element: usize, option: String },
    /// Typed text that is no value of the input's type: `text` (trimmed) is
    /// not `expected` (`a whole number`, `a date (YYYY-MM-DD)`, ...).
    BadInput {
        text: String,
        expected: &'static str,
    },
}

impl fmt::Display for EnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvError::UnknownTask { name, tasks } => {
                write!(f, "no task `{name}`; the tasks are: {}", tasks.join(", "))
            }
            EnvError::NoTask(i) => write!(f, "no task #{i}"),
            EnvError::Setup { task, why } => write!(f, "task `{task}`: setup failed: {why}"),
            EnvError::StartPage { task, fault } => write!(f, "task `{task}`: start page: {fault}"),
            EnvError::NoPage { task, page } => write!(f, "task `{task}`: no page #{page}"),
            EnvError::BinderOutsideFrame => {
                f.write_str("the template binder is outside the task's frame")
            }
            EnvError::Unbound { task } => write!(f, "task `{task}` is a template: bind a row"),
            EnvError::UnknownRole { role } => write!(f, "unknown role `{role}`"),
            EnvError::EpisodeOver => f.write_str("the episode is over; reset to play again"),
            EnvError::Ended => f.write_str("the episode is over"),
            EnvError::TakesNoAnswer => f.write_str("this task takes no answer"),
            EnvError::AnswerNeedsText => f.write_str("an answer needs a text"),
            EnvError::TypingNeedsText => f.write_str("typing needs a text"),
            EnvError::SelectingNeedsOption => f.write_str("selecting needs an option"),
            EnvError::NeedsElement => f.write_str("this action needs an element"),
            EnvError::NoElement(i) => write!(f, "there is no element [{i}]"),
            EnvError::WrongAction(i) => write!(f, "element [{i}] cannot take this action"),
            EnvError::NoOption { element, option } => {
                write!(f, "element [{element}] has no option “{option}”")
            }
            EnvError::BadInput { text, expected } => write!(f, "“{text}” is not {expected}"),
        }
    }
}

impl std::error::Error for EnvError {}
