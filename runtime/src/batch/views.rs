//! Remembered element and action rows. When an engine names what it shows
//! ([`Engine::view_key`](super::Engine::view_key): for the JIT, the version
//! of a remembered page and the class of instances that offer the same
//! candidates on it), the rows the writer made from it are kept, and the
//! next observation with the same name is copied from them instead of
//! being tokenized again. The element rows (roles, flags, text, value and
//! context ids, sibling places) depend on the page alone, so they are kept
//! by its version, and found again by an environment whose instance offers
//! other candidates on the page; the action table (with its candidate
//! indices) is kept by the version and the class. Everything else in an
//! observation (the instruction, page label, alert, steps, history) is
//! written every step.
//!
//! The rows are a function of what is shown and of the batch's spec and
//! tokenizer, which are the same for every environment of a batch, so the
//! environments a thread steps share one memory. `tests/tests/render_memo.rs`
//! compares a remembering batch's buffers with a rendering one's, and fails
//! if the name leaves out the instance class or a slot's key is not
//! compared.

use super::buffers::Rows;
use super::{ObsSpec, CUT_ACTIONS, CUT_ELEMENTS};

/// A page's element rows, as the writer left them.
#[derive(Clone, Debug, Default)]
struct Elements {
    version: u64,
    element_count: u32,
    /// Element rows written (the rows past them were zero).
    elements: usize,
    role: Vec<u8>,
    flags: Vec<u8>,
    sibling: Vec<u8>,
    text: Vec<u32>,
    value: Vec<u32>,
    context: Vec<u32>,
    /// Whether the page had more elements than rows.
    cut: bool,
}

/// A page's action table for one class of instances.
#[derive(Clone, Debug, Default)]
struct Actions {
    key: (u64, usize),
    /// Row of the action table → candidate index.
    table: Vec<usize>,
    kind: Vec<u8>,
    element: Vec<i32>,
    text: Vec<u32>,
    /// Whether candidates were cut.
    cut: bool,
}

/// The rows of the last observations written, direct-mapped by key.
#[derive(Debug, Default)]
pub(super) struct ViewMemo {
    /// A power of two many of each (none: remember nothing).
    elements: Vec<Option<Box<Elements>>>,
    actions: Vec<Option<Box<Actions>>>,
    /// Observations whose element and action rows were both copied.
    pub(super) copied: u64,
}

impl ViewMemo {
    /// A memory of `capacity` pages' element rows and as many action
    /// tables (rounded up to a power of two; 0 remembers nothing).
    pub(super) fn new(capacity: usize) -> ViewMemo {
        let slots = crate::jit::memo_slots(capacity);
        ViewMemo {
            elements: (0..slots).map(|_| None).collect(),
            actions: (0..slots).map(|_| None).collect(),
            copied: 0,
        }
    }

    fn slot(&self, key: (u64, usize)) -> usize {
        let mixed = key.0 ^ (key.1 as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mixed as usize) & self.elements.len().saturating_sub(1)
    }

    /// Writes the element rows remembered for page `version` over the start
    /// of `rows`, with the element count: the rows written and the
    /// `overflow` bit for elements, or `None` (nothing written) when none
    /// are remembered. The rows past them are the caller's.
    pub(super) fn recall_elements(&self, version: u64, rows: &mut Rows<'_>) -> Option<(usize, u8)> {
        let kept = self.elements.get(self.slot((version, 0)))?.as_deref()?;
        if kept.version != version {
            return None;
        }
        *rows.element_count = kept.element_count;
        put(rows.role, &kept.role);
        put(rows.flags, &kept.flags);
        put(rows.sibling, &kept.sibling);
        put(rows.text, &kept.text);
        put(rows.value, &kept.value);
        put(rows.context, &kept.context);
        Some((kept.elements, if kept.cut { CUT_ELEMENTS } else { 0 }))
    }

    /// Writes the action table remembered for `key` over the start of
    /// `rows` (and `table`, the candidate index of each action row): the
    /// rows written and the `overflow` bit for actions, or `None` (nothing
    /// written) when none is remembered. The rows past them are the
    /// caller's.
    pub(super) fn recall_actions(
        &self,
        key: (u64, usize),
        rows: &mut Rows<'_>,
        table: &mut Vec<usize>,
    ) -> Option<(usize, u8)> {
        let kept = self.actions.get(self.slot(key))?.as_deref()?;
        if kept.key != key {
            return None;
        }
        table.clone_from(&kept.table);
        put(rows.action_kind, &kept.kind);
        put(rows.action_element, &kept.element);
        put(rows.action_text, &kept.text);
        Some((kept.table.len(), if kept.cut { CUT_ACTIONS } else { 0 }))
    }

    /// Remembers the element rows just written for page `version`: the
    /// first `elements`, and the `overflow` bits `cut`.
    pub(super) fn remember_elements(
        &mut self,
        version: u64,
        rows: &Rows<'_>,
        (spec, elements, cut): (&ObsSpec, usize, u8),
    ) {
        let at = self.slot((version, 0));
        let Some(slot) = self.elements.get_mut(at) else {
            return;
        };
        let kept = slot.get_or_insert_with(Box::default);
        kept.version = version;
        kept.element_count = *rows.element_count;
        kept.elements = elements;
        keep(&mut kept.role, rows.role, elements);
        keep(&mut kept.flags, rows.flags, elements);
        keep(&mut kept.sibling, rows.sibling, elements);
        keep(&mut kept.text, rows.text, elements * spec.text_tokens);
        keep(&mut kept.value, rows.value, elements * spec.value_tokens);
        keep(
            &mut kept.context,
            rows.context,
            elements * spec.context_tokens,
        );
        kept.cut = cut & CUT_ELEMENTS != 0;
    }

    /// Remembers the action table just written for `key`: the rows of
    /// `table`, and the `overflow` bits `cut`.
    pub(super) fn remember_actions(
        &mut self,
        key: (u64, usize),
        rows: &Rows<'_>,
        (spec, table, cut): (&ObsSpec, &[usize], u8),
    ) {
        let at = self.slot(key);
        let Some(slot) = self.actions.get_mut(at) else {
            return;
        };
        let kept = slot.get_or_insert_with(Box::default);
        let actions = table.len();
        kept.key = key;
        kept.table.clear();
        kept.table.extend_from_slice(table);
        keep(&mut kept.kind, rows.action_kind, actions);
        keep(&mut kept.element, rows.action_element, actions);
        keep(
            &mut kept.text,
            rows.action_text,
            actions * spec.action_tokens,
        );
        kept.cut = cut & CUT_ACTIONS != 0;
    }
}

/// Copies `kept` over the start of `row`.
fn put<T: Copy>(row: &mut [T], kept: &[T]) {
    if let Some(dst) = row.get_mut(..kept.len()) {
        dst.copy_from_slice(kept);
    }
}

/// Keeps the first `n` items of `row` in `into`.
fn keep<T: Copy>(into: &mut Vec<T>, row: &[T], n: usize) {
    into.clear();
    into.extend_from_slice(&row[..n.min(row.len())]);
}
