//! Writing one environment's observation into its [`Rows`]: the §5.2
//! elements and candidate actions, and the context a person reads them in.
//!
//! Each piece of context is derived from what the agent is shown, the same
//! way for both engines, so the JIT batch and the interpreter batch write the
//! same bytes:
//! - **page**: a label per page of the program ([`page_labels`]): its name's
//!   words and the literal words of its route and title (the same on every
//!   visit, so it tells *what kind* of page this is);
//! - **alert**: the text the last step's alert shows;
//! - **context** of an element: inside a repeated row (a run of consecutive
//!   elements rendered for the same loop rows), the row's first element with
//!   text, so a row's "Add to cart" button reads as belonging to its "Wool
//!   scarf"; elsewhere, the nearest heading or section above it;
//! - **sibling**: the element's place in its repeated row;
//! - **history**: the last actions taken (kind, then the element's text and
//!   the action's own), most recent first, kept by the batch per episode.
//!
//! Candidate actions keep §5.2's order. When they do not all fit, the
//! `answer`s of a retrieval task are kept (they are the only way to finish
//! it) and the element actions that do not fit are cut; each `answer` points
//! at the first shown element whose text holds it, so it reads in that
//! element's context.

use super::buffers::{Rows, MAX_SIBLING};
use super::engines::{ElementView, Engine};
use super::views::ViewMemo;
use super::{kind_id, role_id, ObsSpec, Slot, CUT_ACTIONS, CUT_ELEMENTS, CUT_INSTRUCTION};
use super::{FLAG_DISABLED, FLAG_HAS_VALUE, FLAG_TEXT_CUT};
use crate::env::ActionKind;
use crate::ir::{self, TextPart};

/// One label per page of `program`, in page order.
pub fn page_labels(program: &ir::Program) -> Vec<String> {
    program.pages.iter().map(page_label).collect()
}

fn page_label(page: &ir::PageDef) -> String {
    let mut words = vec![crate::env::snake_case(&page.name).replace('_', " ")];
    let literal = |parts: &[TextPart]| {
        parts
            .iter()
            .filter_map(|p| match p {
                TextPart::Lit(s) => Some(s.replace(['/', '-', '_'], " ")),
                TextPart::Interp(..) => None,
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    if let Some(route) = &page.route {
        words.push(literal(route));
    }
    if let Some(title) = &page.title {
        words.push(literal(title));
    }
    words.join(" ")
}

/// How many element rows and action-table rows an environment's last
/// observation filled. Rows past those are zero, so the next observation
/// zeroes only the rows it no longer fills rather than every row past its
/// own: most pages fill a fraction of the rows, and zeroing the rest of
/// them on every step was the writer's largest single cost. Only the writer
/// writes these rows (Python's views of the observation are read-only).
///
/// The instruction row likewise holds the episode's instruction once it
/// is written (`Some`, with whether it fit), until the next episode begins,
/// and the element and action rows written through the view memory are
/// named by their view key, so that a step which leaves the page's version
/// as it was copies nothing (a fifth to a quarter of the steps on cascade
/// and trailhead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Written {
    elements: usize,
    actions: usize,
    pub(super) instruction: Option<bool>,
    /// The page version whose element rows the rows hold, with their
    /// `overflow` bit, when they were written through the view memory.
    elements_of: Option<(u64, u8)>,
    /// Likewise the view key of the action table the rows hold.
    actions_of: Option<((u64, usize), u8)>,
}

impl Written {
    /// Nothing known: the next write zeroes every row it does not fill.
    pub(super) const ALL: Written = Written {
        elements: usize::MAX,
        actions: usize::MAX,
        instruction: None,
        elements_of: None,
        actions_of: None,
    };
}

/// Sets the rows `from..to` of `width` items each (clamped to `rows`) to
/// `value`.
fn fill_rows<T: Copy>(rows: &mut [T], width: usize, from: usize, to: usize, value: T) {
    let end = to.saturating_mul(width).min(rows.len());
    if let Some(stale) = rows.get_mut(from.saturating_mul(width).min(end)..end) {
        stale.fill(value);
    }
}

/// A step's record for the history: the action's kind and its words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Taken {
    pub kind: u8,
    pub tokens: Vec<u32>,
}

/// What the engine's candidate `index` is, for the history, read before the
/// step changes the page: the kind, then the words of its element and its
/// own text, at most `width` ids. Written into `taken`, whose buffer is
/// reused.
pub(super) fn describe<E: Engine>(slot: &Slot<E>, index: usize, width: usize, taken: &mut Taken) {
    taken.kind = 0;
    taken.tokens.clear();
    let Some(a) = slot.engine.action(index) else {
        return;
    };
    taken.kind = kind_id(a.kind);
    let element = a
        .element
        .and_then(|e| slot.engine.element(e.wrapping_sub(1)))
        .map(|e| (e.text, e.words));
    let own = a.text.map(|t| (t, a.words));
    for (text, words) in [element, own].into_iter().flatten() {
        slot.tokens.push_ids(text, words, &mut taken.tokens, width);
    }
}

/// Writes the environment's current observation, context and action table,
/// copying the element and action rows from `views` when it remembers what
/// the engine shows, and remembering them there otherwise.
pub(super) fn write_observation<E: Engine>(
    slot: &mut Slot<E>,
    rows: &mut Rows<'_>,
    spec: &ObsSpec,
    labels: &[Vec<u64>],
    views: Option<&mut ViewMemo>,
) {
    let mut cut = 0u8;
    let fits = match slot.written.instruction {
        Some(fits) => fits,
        None => {
            let (text, words) = (slot.engine.instruction(), slot.engine.instruction_words());
            let fits = slot.tokens.fill_text(text, words, rows.instruction);
            slot.written.instruction = Some(fits);
            fits
        }
    };
    if !fits {
        cut |= CUT_INSTRUCTION;
    }
    let label = slot
        .engine
        .page()
        .and_then(|p| labels.get(p))
        .map_or(&[][..], Vec::as_slice);
    slot.tokens.fill_hashes(label, rows.page);
    let alert = slot.engine.alert().unwrap_or("");
    let (last, ids) = &mut slot.alert;
    if last != alert || ids.len() != rows.alert.len() {
        last.clear();
        last.push_str(alert);
        ids.resize(rows.alert.len(), 0);
        slot.tokens.fill(alert, ids);
    }
    rows.alert.copy_from_slice(ids);
    *rows.steps = slot.engine.steps();
    write_history(slot, rows.history_kind, rows.history_text, spec);
    let key = views.as_ref().and_then(|_| slot.engine.view_key());
    let (views, key) = match (views, key) {
        (Some(views), Some(key)) => (views, key),
        _ => {
            slot.written.elements_of = None;
            slot.written.actions_of = None;
            *rows.overflow = cut | write_shown(slot, rows, spec);
            return;
        }
    };
    // Rows that already hold what is shown (the step changed nothing the
    // page shows) are left as they are.
    let (elements, elements_kept) = match slot.written.elements_of {
        Some((version, cut)) if version == key.0 => (cut, true),
        _ => element_rows_through(views, key.0, slot, rows, spec),
    };
    let (actions, actions_kept) = match slot.written.actions_of {
        Some((held, cut)) if held == key => (cut, true),
        _ => action_rows_through(views, key, slot, rows, spec),
    };
    views.copied += u64::from(elements_kept && actions_kept);
    *rows.overflow = cut | elements | actions;
}

/// Writes the element rows of the page of version `version` through the
/// view memory, copying them when it holds them; the `overflow` bit of the
/// rows, and whether they were copied.
fn element_rows_through<E: Engine>(
    views: &mut ViewMemo,
    version: u64,
    slot: &mut Slot<E>,
    rows: &mut Rows<'_>,
    spec: &ObsSpec,
) -> (u8, bool) {
    let (cut, copied) = match views.recall_elements(version, rows) {
        Some((elements, cut)) => {
            clear_elements_past(slot, rows, spec, elements);
            (cut, true)
        }
        None => {
            let cut = write_element_rows(slot, rows, spec);
            views.remember_elements(version, rows, (spec, slot.written.elements, cut));
            (cut, false)
        }
    };
    slot.written.elements_of = Some((version, cut));
    (cut, copied)
}

/// [`element_rows_through`] for the action table of view `key`.
fn action_rows_through<E: Engine>(
    views: &mut ViewMemo,
    key: (u64, usize),
    slot: &mut Slot<E>,
    rows: &mut Rows<'_>,
    spec: &ObsSpec,
) -> (u8, bool) {
    let (cut, copied) = match views.recall_actions(key, rows, &mut slot.table) {
        Some((actions, cut)) => {
            clear_actions_past(slot, rows, spec, actions);
            (cut, true)
        }
        None => {
            let cut = write_action_rows(slot, rows, spec);
            views.remember_actions(key, rows, (spec, &slot.table, cut));
            (cut, false)
        }
    };
    slot.written.actions_of = Some((key, cut));
    (cut, copied)
}

/// Zeroes the element rows past the first `elements`, which remembered
/// rows were copied over, that the last observation filled.
fn clear_elements_past<E: Engine>(
    slot: &mut Slot<E>,
    rows: &mut Rows<'_>,
    spec: &ObsSpec,
    elements: usize,
) {
    let stale = slot.written.elements;
    for flags in [&mut *rows.role, &mut *rows.flags, &mut *rows.sibling] {
        if let Some(past) = flags.get_mut(elements..) {
            past.fill(0);
        }
    }
    fill_rows(rows.text, spec.text_tokens, elements, stale, 0);
    fill_rows(rows.value, spec.value_tokens, elements, stale, 0);
    fill_rows(rows.context, spec.context_tokens, elements, stale, 0);
    slot.written.elements = elements;
}

/// Zeroes the action rows past the first `actions`, which a remembered
/// table was copied over, that the last observation filled, and sets the
/// table's length and mask.
fn clear_actions_past<E: Engine>(
    slot: &mut Slot<E>,
    rows: &mut Rows<'_>,
    spec: &ObsSpec,
    actions: usize,
) {
    let stale = slot.written.actions;
    fill_rows(rows.action_kind, 1, actions, stale, 0);
    fill_rows(rows.action_element, 1, actions, stale, -1);
    fill_rows(rows.action_text, spec.action_tokens, actions, stale, 0);
    slot.written.actions = actions;
    set_action_count(rows, actions);
}

/// Sets the action table's length and its mask (the first `n` rows).
fn set_action_count(rows: &mut Rows<'_>, n: usize) {
    *rows.action_count = u32::try_from(n).unwrap_or(u32::MAX);
    // Two fills rather than a comparison per row: the mask has a row for
    // every action the table can hold, most of them past `n`.
    let (on, off) = rows.action_mask.split_at_mut(n.min(rows.action_mask.len()));
    on.fill(1);
    off.fill(0);
}

/// Writes the element rows and the action table from the engine; the
/// `overflow` bits for elements and actions.
fn write_shown<E: Engine>(slot: &mut Slot<E>, rows: &mut Rows<'_>, spec: &ObsSpec) -> u8 {
    write_element_rows(slot, rows, spec) | write_action_rows(slot, rows, spec)
}

/// Writes the element rows and their count from the engine; the
/// `overflow` bit for elements.
fn write_element_rows<E: Engine>(slot: &mut Slot<E>, rows: &mut Rows<'_>, spec: &ObsSpec) -> u8 {
    let count = slot.engine.element_count();
    let shown = count.min(spec.max_elements);
    *rows.element_count = u32::try_from(shown).unwrap_or(u32::MAX);
    let elements = ElementRows {
        role: &mut *rows.role,
        flags: &mut *rows.flags,
        text: &mut *rows.text,
        value: &mut *rows.value,
        context: &mut *rows.context,
        sibling: &mut *rows.sibling,
    };
    write_elements(slot, elements, spec, shown);
    if shown < count {
        CUT_ELEMENTS
    } else {
        0
    }
}

/// Writes the action table, its length and mask from the engine, for the
/// elements `rows` count as shown; the `overflow` bit for actions.
fn write_action_rows<E: Engine>(slot: &mut Slot<E>, rows: &mut Rows<'_>, spec: &ObsSpec) -> u8 {
    let mut cut = 0u8;
    let shown = usize::try_from(*rows.element_count).unwrap_or(usize::MAX);
    let actions = ActionRows {
        kind: &mut *rows.action_kind,
        element: &mut *rows.action_element,
        text: &mut *rows.action_text,
    };
    write_actions(slot, actions, spec, shown, &mut cut);
    set_action_count(rows, slot.table.len());
    cut
}

/// The element part of one environment's rows.
struct ElementRows<'b> {
    role: &'b mut [u8],
    flags: &'b mut [u8],
    text: &'b mut [u32],
    value: &'b mut [u32],
    context: &'b mut [u32],
    sibling: &'b mut [u8],
}

/// The action-table part of one environment's rows.
struct ActionRows<'b> {
    kind: &'b mut [u8],
    element: &'b mut [i32],
    text: &'b mut [u32],
}

fn write_history<E: Engine>(slot: &Slot<E>, kind: &mut [u8], text: &mut [u32], spec: &ObsSpec) {
    kind.fill(0);
    text.fill(0);
    let width = spec.history_tokens;
    for (k, taken) in slot.history.iter().enumerate().take(kind.len()) {
        kind[k] = taken.kind;
        let n = taken.tokens.len().min(width);
        text[k * width..k * width + n].copy_from_slice(&taken.tokens[..n]);
    }
}

/// Where each shown element sits, found element by element in document
/// order: the element whose text gives its context (if any) and its place
/// in its repeated row (0 outside one).
#[derive(Default)]
struct Placement<'p> {
    /// The last heading or section with text outside repeated rows.
    heading: Option<usize>,
    /// The current repeated row: where it starts, its first element with
    /// text, and its elements' loop path.
    run_start: usize,
    run_head: Option<usize>,
    previous: &'p [i64],
}

impl<'p> Placement<'p> {
    /// The context and sibling place of element `i` (with view `e`, loop
    /// path `path`), the elements before it having been placed in order.
    fn place(&mut self, i: usize, e: &ElementView<'_>, path: &'p [i64]) -> (Option<usize>, u8) {
        let same_run = i > 0 && !path.is_empty() && self.previous == path;
        self.previous = path;
        if !same_run {
            self.run_start = i;
            self.run_head = None;
        }
        let context = if path.is_empty() {
            self.heading
        } else {
            self.run_head.filter(|&h| h != i).or(self.heading)
        };
        let sibling = if path.is_empty() {
            0
        } else {
            u8::try_from(i - self.run_start + 1)
                .unwrap_or(MAX_SIBLING)
                .min(MAX_SIBLING)
        };
        if !path.is_empty() && self.run_head.is_none() && e.nonempty {
            self.run_head = Some(i);
        }
        if path.is_empty() && matches!(e.role, "heading" | "section") && e.nonempty {
            self.heading = Some(i);
        }
        (context, sibling)
    }
}

fn write_elements<E: Engine>(
    slot: &mut Slot<E>,
    rows: ElementRows<'_>,
    spec: &ObsSpec,
    shown: usize,
) {
    rows.role.fill(0);
    rows.flags.fill(0);
    rows.sibling.fill(0);
    let (tt, vt, ct) = (spec.text_tokens, spec.value_tokens, spec.context_tokens);
    let mut placement = Placement::default();
    let mut written = 0;
    for i in 0..shown {
        let Some(e) = slot.engine.element(i) else {
            break;
        };
        let (context, sibling) = placement.place(i, &e, slot.engine.element_path(i));
        written = i + 1;
        rows.role[i] = role_id(e.role);
        rows.sibling[i] = sibling;
        let mut f = 0;
        if e.disabled {
            f |= FLAG_DISABLED;
        }
        if !slot
            .tokens
            .fill_text(e.text, e.words, &mut rows.text[i * tt..(i + 1) * tt])
        {
            f |= FLAG_TEXT_CUT;
        }
        let value = &mut rows.value[i * vt..(i + 1) * vt];
        match e.value {
            Some(v) => {
                f |= FLAG_HAS_VALUE;
                slot.tokens.fill_text(v, e.value_words, value);
            }
            None => value.fill(0),
        }
        rows.flags[i] = f;
        let out = &mut rows.context[i * ct..(i + 1) * ct];
        write_context(slot, rows.text, out, context, (i, tt));
    }
    let stale = slot.written.elements;
    fill_rows(rows.text, tt, written, stale, 0);
    fill_rows(rows.value, vt, written, stale, 0);
    fill_rows(rows.context, ct, written, stale, 0);
    slot.written.elements = written;
}

/// Writes element `i`'s context row `out` (`ct` ids wide): the ids of
/// element `context`'s text, at most `ct` of them (padding when there is
/// none); `text_rows` are the text rows, `tt` ids each.
///
/// The context is an element written earlier in this observation, so when
/// a context row is no wider than a text row (the default: 6 against 12)
/// its ids are the first `ct` of that element's text row, whose ids are
/// padded the same way; they are copied from there rather than read and
/// hashed again. A debug build checks every copy (of a row up to 64 ids
/// wide) against the ids written from the text.
fn write_context<E: Engine>(
    slot: &Slot<E>,
    text_rows: &[u32],
    out: &mut [u32],
    context: Option<usize>,
    (i, tt): (usize, usize),
) {
    let ct = out.len();
    let from_text = |c: usize| {
        let written = c < i && ct <= tt;
        written
            .then(|| text_rows.get(c * tt..c * tt + ct))
            .flatten()
    };
    match context.and_then(from_text) {
        Some(ids) => {
            out.copy_from_slice(ids);
            // On the stack: a warm step allocates nothing, in a debug build
            // too (`tests/tests/step_allocations.rs`).
            if cfg!(debug_assertions) {
                let mut check = [0u32; 64];
                if let Some(check) = check.get_mut(..ct) {
                    fill_context(slot, context, check);
                    assert_eq!(
                        check, out,
                        "a copied context row differs from its text's ids"
                    );
                }
            }
        }
        None => fill_context(slot, context, out),
    }
}

/// Writes the ids of element `context`'s text into `out` (padding when
/// there is none).
fn fill_context<E: Engine>(slot: &Slot<E>, context: Option<usize>, out: &mut [u32]) {
    let under = context
        .and_then(|c| slot.engine.element(c))
        .map_or(("", None), |c| (c.text, c.words));
    slot.tokens.fill_text(under.0, under.1, out);
}

/// The action table: candidates whose element is shown, in §5.2 order, with
/// every `answer` kept (element actions are cut first when they do not fit).
fn write_actions<E: Engine>(
    slot: &mut Slot<E>,
    rows: ActionRows<'_>,
    spec: &ObsSpec,
    shown: usize,
    cut: &mut u8,
) {
    slot.table.clear();
    let total = slot.engine.action_count();
    let answers = (0..total)
        .filter(|&i| slot.engine.action_kind(i) == Some(ActionKind::Answer))
        .count();
    if answers > 0 {
        sketch_elements(&slot.engine, shown, &mut slot.sketches);
    }
    let for_elements = spec.max_actions.saturating_sub(answers);
    let mut element_rows = 0;
    for i in 0..total {
        let Some(a) = slot.engine.action(i) else {
            break;
        };
        let row = slot.table.len();
        let is_answer = a.kind == ActionKind::Answer;
        let visible = a.element.is_none_or(|e| e >= 1 && e <= shown);
        let room = row < spec.max_actions && (is_answer || element_rows < for_elements);
        if !visible || !room {
            *cut |= CUT_ACTIONS;
            continue;
        }
        element_rows += usize::from(!is_answer);
        rows.kind[row] = kind_id(a.kind);
        let at = match (a.element, a.text) {
            (Some(e), _) => Some(e - 1),
            (None, Some(t)) if is_answer => anchor(&slot.engine, t, &slot.sketches),
            (None, _) => None,
        };
        rows.element[row] = at.and_then(|e| i32::try_from(e).ok()).unwrap_or(-1);
        let w = spec.action_tokens;
        let text = &mut rows.text[row * w..(row + 1) * w];
        match a.text {
            Some(t) => {
                slot.tokens.fill_text(t, a.words, text);
            }
            None => text.fill(0),
        }
        slot.table.push(i);
    }
    // Rows the last table filled and this one does not (a written row's
    // text is padded as it is written).
    let (written, stale) = (slot.table.len(), slot.written.actions);
    fill_rows(rows.kind, 1, written, stale, 0);
    fill_rows(rows.element, 1, written, stale, -1);
    fill_rows(rows.text, spec.action_tokens, written, stale, 0);
    slot.written.actions = written;
}

/// What a text holds, cheaply: the set of its bytes (folded to seven bits)
/// and its length. A text holds `answer` only if it is at least as long and
/// its set covers the answer's, which rules out most elements before a
/// substring search (a retrieval page offers tens of answers over tens of
/// elements every step).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TextSketch {
    bytes: u128,
    len: usize,
}

impl TextSketch {
    fn of(text: &str) -> TextSketch {
        let bytes = text.bytes().fold(0u128, |set, b| set | 1 << (b & 127));
        TextSketch {
            bytes,
            len: text.len(),
        }
    }

    /// Whether a text of this sketch may hold a text of `part`'s.
    fn may_hold(self, part: TextSketch) -> bool {
        self.len >= part.len && part.bytes & !self.bytes == 0
    }
}

/// The sketches of the first `shown` elements' texts, into `out`.
fn sketch_elements<E: Engine>(engine: &E, shown: usize, out: &mut Vec<TextSketch>) {
    out.clear();
    out.extend((0..shown).map(|i| {
        engine
            .element(i)
            .map(|e| TextSketch::of(e.text))
            .unwrap_or_default()
    }));
}

/// The first shown element whose text holds `answer` (`sketches`: those of
/// the shown elements).
fn anchor<E: Engine>(engine: &E, answer: &str, sketches: &[TextSketch]) -> Option<usize> {
    let wanted = TextSketch::of(answer);
    sketches.iter().enumerate().find_map(|(i, s)| {
        let holds =
            s.may_hold(wanted) && engine.element(i).is_some_and(|e| e.text.contains(answer));
        holds.then_some(i)
    })
}
