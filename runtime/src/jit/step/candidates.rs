//! What a candidate action says besides its kind and element: the text it
//! carries (the typed value, the chosen option's text, the answer) and,
//! where they are known without hashing that text, its words' hashes; and
//! the answer candidates of a retrieval task, as `env::actions` lists them
//! (the values shown, then the elements' texts, non-empty and each once).
//! It also lists a page's candidates (§5.2 order), or takes the list a
//! memory of renders kept with the page.

use super::*;

/// Text `i` of a page: its shown values, then its elements' texts (the
/// answer candidates of a retrieval task, before deduplication).
fn candidate_text(page: &PageStructure, i: u32) -> Option<&str> {
    match page.shown.get(i as usize) {
        Some(&s) => Some(page.text_at(s)),
        None => candidate_element(page, i).map(|e| page.text_of(e)),
    }
}

/// The element whose text is candidate `i` of a page (`None` for a shown
/// value).
fn candidate_element(page: &PageStructure, i: u32) -> Option<&ElementInstance> {
    page.elements
        .get((i as usize).checked_sub(page.shown.len())?)
}

impl FlatEnv<'_> {
    /// Lists the candidates of the page shown: those `memo` kept with the
    /// page's version, when it did (a debug build lists them again and
    /// demands the same), and it keeps them otherwise.
    pub(super) fn offer(&mut self, memo: Option<&mut RenderMemo>) -> R<()> {
        let typeable = self.start.typeable.len();
        let (Some(version), Some(memo)) = (self.version, memo) else {
            self.list_actions();
            return Ok(());
        };
        match memo.actions_of(version, typeable) {
            Some(kept) => {
                self.actions.extend_from_slice(kept);
                if cfg!(debug_assertions) {
                    let kept = std::mem::take(&mut self.actions);
                    self.list_actions();
                    if kept != self.actions {
                        return Err(FlatError::Unfaithful("remembered candidates differ"));
                    }
                }
            }
            None => {
                self.list_actions();
                memo.keep_actions(version, typeable, &self.actions);
            }
        }
        Ok(())
    }

    /// Lists the candidates of the page's elements (§5.2 order).
    pub(super) fn list_actions(&mut self) {
        for (i, el) in self.structure.elements.iter().enumerate() {
            let element = i + 1;
            let act = |kind, arg| FlatAction { kind, element, arg };
            match &el.handle {
                HandleWords::Inert => {}
                HandleWords::Go(_) | HandleWords::Marker(..) | HandleWords::Checkbox { .. } => {
                    self.actions.push(act(ActionKind::Click, 0));
                }
                HandleWords::Input { .. } => {
                    for arg in 0..=self.start.typeable.len() {
                        self.actions.push(act(ActionKind::Type, arg));
                    }
                }
                HandleWords::Select { .. } => {
                    // One choice per distinct option text, the first kept
                    // (as `env::actions` offers them).
                    let texts = self.structure.options_of(el);
                    for (arg, t) in texts.clone().enumerate() {
                        if !texts.clone().take(arg).any(|before| before == t) {
                            self.actions.push(act(ActionKind::Select, arg));
                        }
                    }
                }
            }
        }
    }

    /// The element `action` acts on (`None` for an answer, or an element
    /// the page lacks).
    pub(super) fn element_of(&self, action: &FlatAction) -> Option<&ElementInstance> {
        self.structure.elements.get(action.element.checked_sub(1)?)
    }

    /// Answer candidate `k` of the current page (retrieval tasks; none
    /// otherwise), which `answer` actions index.
    pub fn answer(&self, k: usize) -> Option<&str> {
        self.answers
            .get(k)
            .and_then(|&i| candidate_text(&self.structure, i))
    }

    /// The word hashes of an action's text where they are known without
    /// hashing it: the typed value's, and, when the page's words are
    /// rendered, a `select`'s option's and an `answer`'s that is an
    /// element's text (`None` otherwise: an interpolated value's, or
    /// none).
    pub fn action_words(&self, action: &FlatAction) -> Option<&[u64]> {
        match action.kind {
            ActionKind::Type => Some(
                self.start
                    .typeable_words
                    .get(action.arg)
                    .map_or(&[], Vec::as_slice),
            ),
            ActionKind::Select if self.structure.mode().words => {
                let e = self.element_of(action)?;
                self.structure.option_words_of(e, action.arg)
            }
            ActionKind::Answer if self.structure.mode().words => {
                let i = *self.answers.get(action.arg)?;
                let e = candidate_element(&self.structure, i)?;
                Some(self.structure.words_of(e.text_words))
            }
            _ => None,
        }
    }

    /// The task's typeable values (what `type` actions index).
    pub fn typeable_values(&self) -> &[String] {
        &self.start.typeable
    }

    /// The text a `type` action types (`None` for other kinds).
    pub fn typed_text(&self, action: &FlatAction) -> Option<&str> {
        if action.kind != ActionKind::Type {
            return None;
        }
        Some(
            self.start
                .typeable
                .get(action.arg)
                .map_or("", String::as_str),
        )
    }

    /// The text an action carries, as in `Action::text`: typed, the chosen
    /// option's, or the answer; `None` for a click.
    pub fn action_text(&self, action: &FlatAction) -> Option<&str> {
        match action.kind {
            ActionKind::Click => None,
            ActionKind::Type => self.typed_text(action),
            ActionKind::Select => self
                .element_of(action)
                .and_then(|e| self.structure.option_of(e, action.arg)),
            ActionKind::Answer => self.answer(action.arg),
        }
    }

    /// Answer candidates: the values shown, then element texts, non-empty and
    /// each once, in that order (`env::actions::candidates`).
    pub(super) fn list_answers(&mut self) {
        // The first of each run of equal texts, found by sorting indices
        // (ties by position) rather than with a set, so nothing allocates.
        let page = &self.structure;
        let count = u32::try_from(page.shown.len() + page.elements.len()).unwrap_or(u32::MAX);
        let mut order = std::mem::take(&mut self.answer_order);
        order.clear();
        order
            .extend((0..count).filter(|&i| candidate_text(page, i).is_some_and(|t| !t.is_empty())));
        order.sort_unstable_by(|&a, &b| {
            let text = |i| candidate_text(page, i).unwrap_or_default();
            text(a).cmp(text(b)).then(a.cmp(&b))
        });
        let mut previous: Option<&str> = None;
        for &i in &order {
            let t = candidate_text(page, i);
            if t != previous {
                self.answers.push(i);
                previous = t;
            }
        }
        self.answers.sort_unstable();
        self.answer_order = order;
        for arg in 0..self.answers.len() {
            self.actions.push(FlatAction {
                kind: ActionKind::Answer,
                element: 0,
                arg,
            });
        }
    }
}
