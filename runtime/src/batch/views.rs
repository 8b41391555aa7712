//! Remembered element and action rows. When an engine names what it shows
//! ([`Engine::view_key`](super::Engine::view_key): for the JIT, the version
//! of a remembered page and the class of instances that offer the same
//! candidates on it), the rows the writer made from it are kept, and the
//! next observation with the same name is copied from them instead of
//! being tokenized again: the elements' roles, flags, text, value and
//! context ids and sibling places, and the action table with its
//! candidate indices and the cuts it made. Everything else in an
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
use super::ObsSpec;

/// One observation's element and action rows, as the writer left them.
#[derive(Clone, Debug, Default)]
struct View {
    key: (u64, usize),
    element_count: u32,
    /// Element rows written (the rows past them were zero).
    elements: usize,
    role: Vec<u8>,
    flags: Vec<u8>,
    sibling: Vec<u8>,
    text: Vec<u32>,
    value: Vec<u32>,
    context: Vec<u32>,
    /// Row of the action table → candidate index.
    table: Vec<usize>,
    kind: Vec<u8>,
    element: Vec<i32>,
    action_text: Vec<u32>,
    /// The `overflow` bits for elements and actions.
    cut: u8,
}

/// The rows of the last observations written, direct-mapped by key.
#[derive(Debug, Default)]
pub(super) struct ViewMemo {
    /// A power of two many (none: remember nothing).
    slots: Vec<Option<Box<View>>>,
    /// Observations written from remembered rows.
    pub(super) copied: u64,
}

impl ViewMemo {
    /// A memory of `capacity` views (rounded up to a power of two; 0
    /// remembers nothing).
    pub(super) fn new(capacity: usize) -> ViewMemo {
        let slots = crate::jit::memo_slots(capacity);
        ViewMemo {
            slots: (0..slots).map(|_| None).collect(),
            copied: 0,
        }
    }

    fn slot(&self, key: (u64, usize)) -> usize {
        let mixed = key.0 ^ (key.1 as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mixed as usize) & self.slots.len().saturating_sub(1)
    }

    /// Writes the rows remembered for `key` over the start of `rows` (and
    /// `table`, the candidate index of each action row): the element and
    /// action rows written and the cut bits, or `None` (nothing written)
    /// when none are remembered. The rows past them are the caller's.
    pub(super) fn recall(
        &mut self,
        key: (u64, usize),
        rows: &mut Rows<'_>,
        table: &mut Vec<usize>,
    ) -> Option<(usize, usize, u8)> {
        let view = self.slots.get(self.slot(key))?.as_deref()?;
        if view.key != key {
            return None;
        }
        let n = view.elements;
        *rows.element_count = view.element_count;
        put(rows.role, &view.role);
        put(rows.flags, &view.flags);
        put(rows.sibling, &view.sibling);
        put(rows.text, &view.text);
        put(rows.value, &view.value);
        put(rows.context, &view.context);
        table.clone_from(&view.table);
        put(rows.action_kind, &view.kind);
        put(rows.action_element, &view.element);
        put(rows.action_text, &view.action_text);
        let got = (n, view.table.len(), view.cut);
        self.copied += 1;
        Some(got)
    }

    /// Remembers the rows just written for `key`: `elements` element rows
    /// and the action rows of `table`.
    pub(super) fn remember(
        &mut self,
        key: (u64, usize),
        rows: &Rows<'_>,
        (spec, elements, cut): (&ObsSpec, usize, u8),
        table: &[usize],
    ) {
        let at = self.slot(key);
        let Some(slot) = self.slots.get_mut(at) else {
            return;
        };
        let view = slot.get_or_insert_with(Box::default);
        let actions = table.len();
        view.key = key;
        view.element_count = *rows.element_count;
        view.elements = elements;
        keep(&mut view.role, rows.role, elements);
        keep(&mut view.flags, rows.flags, elements);
        keep(&mut view.sibling, rows.sibling, elements);
        keep(&mut view.text, rows.text, elements * spec.text_tokens);
        keep(&mut view.value, rows.value, elements * spec.value_tokens);
        keep(
            &mut view.context,
            rows.context,
            elements * spec.context_tokens,
        );
        view.table.clear();
        view.table.extend_from_slice(table);
        keep(&mut view.kind, rows.action_kind, actions);
        keep(&mut view.element, rows.action_element, actions);
        keep(
            &mut view.action_text,
            rows.action_text,
            actions * spec.action_tokens,
        );
        view.cut = cut;
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
