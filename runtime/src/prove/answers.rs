//! Why a retrieval task cannot be answered, beyond "no state offered a
//! matching answer" (F405, §5.3): its expected answer is `none` (the instance
//! is defective; no search is needed), or the searched states showed the
//! expected value only inside a longer text, where no `answer` candidate
//! matches it ("buried"), so the author should show the value on its own.

use crate::env::{ActionKind, Env};
use crate::ir;
use serde::Serialize;
use std::collections::HashSet;

/// What is wrong with a retrieval task's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AnswerIssue {
    /// The expected value is `none`: no answer can match.
    Empty,
    /// The expected value was shown only inside `text`, an element of `page`.
    Buried { page: String, text: String },
}

/// The summary of an instance whose expected answer is `none` (spec words).
pub const EMPTY_SUMMARY: &str = "the expected answer is empty";

/// Watches the answer candidates of the states a search expands for the
/// first one that buries the expected answer.
#[derive(Default)]
pub(super) struct BuriedWatch {
    found: Option<AnswerIssue>,
    /// Candidate texts already looked at (pages repeat from state to state).
    checked: HashSet<String>,
}

impl BuriedWatch {
    /// Looks at the answer candidates of the state `env` holds.
    pub(super) fn note(&mut self, program: &ir::Program, env: &Env<'_>) {
        if self.found.is_some() {
            return;
        }
        let expected = env.expected_answer();
        let answers = env
            .actions()
            .iter()
            .filter(|a| a.kind == ActionKind::Answer);
        for text in answers.filter_map(|a| a.text.as_deref()) {
            if self.checked.contains(text) {
                continue;
            }
            self.checked.insert(text.to_string());
            if expected.buried_in(text) {
                let page = env.state().nav.page;
                self.found = Some(AnswerIssue::Buried {
                    page: program
                        .pages
                        .get(page as usize)
                        .map_or_else(|| format!("#{page}"), |p| p.name.clone()),
                    text: text.to_string(),
                });
                return;
            }
        }
    }

    /// The buried answer found, if any.
    pub(super) fn found(&self) -> Option<&AnswerIssue> {
        self.found.as_ref()
    }
}

/// The explanation's sentence for a buried answer, to follow its summary.
pub(super) fn buried_sentence(issue: &AnswerIssue) -> Option<String> {
    match issue {
        AnswerIssue::Buried { page, text } => Some(format!(
            "the expected answer is only shown inside the longer text `{text}` on `{page}`"
        )),
        AnswerIssue::Empty => None,
    }
}
