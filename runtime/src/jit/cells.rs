//! A frame as compiled code reads it (`JitFrame`: a word and a presence
//! word per slot, with each slot's kind), and the ways a site builds one:
//! from values, encoding each as the layout codec does, or from the words
//! the values were decoded from. Compiled predicates, marker bodies and
//! per-row checks all read their parameters from such a frame.

use super::{JitError, JitFault, JitSite, Tag};
use crate::ir::Value;
use crate::layout::TextPool;

/// A frame (parameters, template binder, `let`s) encoded for compiled code:
/// per slot a word and a presence word, exactly as the layout codec encodes a
/// cell. Made by [`JitSite::frame`]; padded with `none` to the widest frame
/// the site's code reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JitFrame {
    /// `[word₀, present₀, word₁, present₁, …]`.
    pub(super) cells: Vec<i64>,
    pub(super) tags: Vec<Tag>,
}

impl JitFrame {
    /// `len` empty slots, then each of `values` in its own: the word
    /// `word(i, value)` gives (`None` for none) and the value's kind.
    fn fill<E>(
        &mut self,
        len: usize,
        values: &[Value],
        mut word: impl FnMut(usize, &Value) -> Result<Option<i64>, E>,
    ) -> Result<(), E> {
        let JitFrame { cells, tags } = self;
        cells.clear();
        cells.resize(2 * len, 0);
        tags.clear();
        tags.resize(len, Tag::None);
        for (i, v) in values.iter().enumerate() {
            if let (Some(w), Some([cell, present])) = (word(i, v)?, cells.get_mut(2 * i..2 * i + 2))
            {
                *cell = w;
                *present = 1;
            }
            if let Some(t) = tags.get_mut(i) {
                *t = Tag::of(v);
            }
        }
        Ok(())
    }
}

impl JitSite {
    /// Encodes `values` (a task frame after `setup`, a marker's arguments; an
    /// empty slice for invariants) for compiled code, interning texts into
    /// `pool`. Each value is encoded by the layout codec's `to_word`.
    pub fn frame(&self, values: &[Value], pool: &mut TextPool) -> Result<JitFrame, JitError> {
        let mut frame = JitFrame::default();
        self.frame_into(values, pool, &mut frame)?;
        Ok(frame)
    }

    /// [`JitSite::frame`] into `frame`'s buffers (a marker run reuses one).
    pub(crate) fn frame_into(
        &self,
        values: &[Value],
        pool: &mut TextPool,
        frame: &mut JitFrame,
    ) -> Result<(), JitError> {
        let len = values.len().max(self.frame_len);
        frame.fill(len, values, |_, v| {
            crate::layout::to_word(v, &Tag::of(v).ty(), pool)
                .map_err(|e| JitError::Layout(e.to_string()))
        })
    }

    /// [`JitSite::frame_into`] for `values` that `layout::from_word` decoded
    /// from `words`. That decoder accepts only canonical words (a bool is 0
    /// or 1, a text id is in the pool, which holds each text once), so each
    /// word is what encoding its value would give back, and is copied as
    /// is; debug builds encode the values as well and compare.
    pub(crate) fn frame_of_words(
        &self,
        values: &[Value],
        words: &[Option<i64>],
        pool: &mut TextPool,
        frame: &mut JitFrame,
    ) -> Result<(), JitFault> {
        if values.len() != words.len() {
            return Err(JitFault::Input(
                "arguments and their words differ in number".into(),
            ));
        }
        let len = values.len().max(self.frame_len);
        frame.fill(len, values, |i, _| {
            Ok::<_, JitFault>(words.get(i).copied().flatten())
        })?;
        if cfg!(debug_assertions) {
            // The values' texts came from `pool`: encoding them interns
            // nothing new.
            let mut encoded = JitFrame::default();
            if self.frame_into(values, pool, &mut encoded).is_ok() {
                debug_assert_eq!(
                    (&encoded.cells, &encoded.tags),
                    (&frame.cells, &frame.tags),
                    "a frame from words differs from the encoded values"
                );
            }
        }
        Ok(())
    }
}
