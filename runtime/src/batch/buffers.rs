//! The batch's output: one contiguous buffer per observation field,
//! environment-major, shaped by an [`ObsSpec`], and the per-environment
//! mutable views ([`Rows`]) the workers write through.
//!
//! Besides the §5.2 observation itself (instruction, elements, candidate
//! actions) the buffers carry the context a person reads a page with: what
//! page this is, the alert, what each element sits under and where, and what
//! the agent did so far (see `write.rs` for how each is derived). All of it is
//! computed from what the agent is shown, never from the database or the goal.

use super::ObsSpec;

/// One buffer per field, environment-major (`[n, …]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Buffers {
    /// `[n, instruction_tokens]`
    pub instruction: Vec<u32>,
    /// `[n, page_tokens]`: the current page's label (see `write::page_labels`).
    pub page: Vec<u32>,
    /// `[n, alert_tokens]`: the alert the last step set (all padding when none).
    pub alert: Vec<u32>,
    /// `[n]`: steps taken in this episode.
    pub steps: Vec<u32>,
    /// `[n]`
    pub element_count: Vec<u32>,
    /// `[n, max_elements]`
    pub role: Vec<u8>,
    /// `[n, max_elements]`
    pub flags: Vec<u8>,
    /// `[n, max_elements, text_tokens]`
    pub text: Vec<u32>,
    /// `[n, max_elements, value_tokens]`
    pub value: Vec<u32>,
    /// `[n, max_elements, context_tokens]`: the text the element sits under.
    pub context: Vec<u32>,
    /// `[n, max_elements]`: 1 + the element's place in its repeated row
    /// (capped at [`MAX_SIBLING`]); 0 outside repeated rows.
    pub sibling: Vec<u8>,
    /// `[n]`
    pub action_count: Vec<u32>,
    /// `[n, max_actions]`
    pub action_kind: Vec<u8>,
    /// `[n, max_actions]`: the element's row; for `answer`, the first shown
    /// element whose text holds the answer; −1 for none and empty rows.
    pub action_element: Vec<i32>,
    /// `[n, max_actions, action_tokens]`
    pub action_text: Vec<u32>,
    /// `[n, max_actions]`: 1 for the rows of the action table in use (the
    /// first `action_count`), 0 for the padding.
    pub action_mask: Vec<u8>,
    /// `[n, history]`: the kinds of the last actions taken, most recent
    /// first (0: none yet).
    pub history_kind: Vec<u8>,
    /// `[n, history, history_tokens]`: their element's text, then their own.
    pub history_text: Vec<u32>,
    /// `[n]`, for the step just taken.
    pub reward: Vec<f32>,
    pub done: Vec<u8>,
    /// `[n]`: the episode ran out of steps (its task's horizon) without
    /// succeeding or answering: `done`, but cut short rather than ended by
    /// the task (Gymnasium's `truncated`).
    pub truncated: Vec<u8>,
    pub success: Vec<u8>,
    pub progress: Vec<f32>,
    /// `[n]`: the step's R_acc as the distance oracle judged it: 0 or 1,
    /// [`JUDGED_UNKNOWN`] when its budget ran out, [`NOT_JUDGED`] without
    /// an oracle.
    pub r_acc: Vec<u8>,
    /// `[n]`: an answer step's best token F1 against the expected answers
    /// (judged steps only); −1 otherwise.
    pub answer_f1: Vec<f32>,
    /// `[n]`: totals of the episode that ended this step (when `done`).
    pub episode_return: Vec<f32>,
    pub episode_length: Vec<u32>,
    /// `[n]`: `CUT_*` bits for the current observation.
    pub overflow: Vec<u8>,
}

/// `r_acc` of a step the oracle could not decide.
pub const JUDGED_UNKNOWN: u8 = 2;
/// `r_acc` of a step no oracle judged.
pub const NOT_JUDGED: u8 = u8::MAX;

/// The largest `sibling` value.
pub const MAX_SIBLING: u8 = 15;

impl Buffers {
    pub(super) fn new(n: usize, s: &ObsSpec) -> Buffers {
        let (e, a, h) = (s.max_elements, s.max_actions, s.history);
        Buffers {
            instruction: vec![0; n * s.instruction_tokens],
            page: vec![0; n * s.page_tokens],
            alert: vec![0; n * s.alert_tokens],
            steps: vec![0; n],
            element_count: vec![0; n],
            role: vec![0; n * e],
            flags: vec![0; n * e],
            text: vec![0; n * e * s.text_tokens],
            value: vec![0; n * e * s.value_tokens],
            context: vec![0; n * e * s.context_tokens],
            sibling: vec![0; n * e],
            action_count: vec![0; n],
            action_kind: vec![0; n * a],
            action_element: vec![-1; n * a],
            action_text: vec![0; n * a * s.action_tokens],
            action_mask: vec![0; n * a],
            history_kind: vec![0; n * h],
            history_text: vec![0; n * h * s.history_tokens],
            reward: vec![0.0; n],
            done: vec![0; n],
            truncated: vec![0; n],
            success: vec![0; n],
            progress: vec![0.0; n],
            r_acc: vec![NOT_JUDGED; n],
            answer_f1: vec![-1.0; n],
            episode_return: vec![0.0; n],
            episode_length: vec![0; n],
            overflow: vec![0; n],
        }
    }

    /// Per-environment mutable views, in order.
    pub(super) fn rows(&mut self, s: &ObsSpec) -> Vec<Rows<'_>> {
        self.span().rows(s).collect()
    }
}

/// Names every field once, with its element type and, for the fields of
/// several values per environment, its width: the per-environment view
/// ([`Rows`]), the whole buffers' view ([`Span`]) and the splitting of
/// one into the other all follow from this list.
macro_rules! row_fields {
    (
        slices { $($s:ident: $st:ty = $w:expr,)* }
        scalars { $($c:ident: $ct:ty,)* }
    ) => {
        /// One environment's part of every buffer.
        pub(super) struct Rows<'b> {
            $(pub $s: &'b mut [$st],)*
            $(pub $c: &'b mut $ct,)*
        }

        /// Consecutive environments' parts of every buffer: a share of a
        /// batch, which it splits into [`Rows`] as it steps them.
        pub(super) struct Span<'b> {
            $($s: &'b mut [$st],)*
            $($c: &'b mut [$ct],)*
        }

        impl Buffers {
            /// Every environment's part of every buffer.
            pub(super) fn span(&mut self) -> Span<'_> {
                Span {
                    $($s: &mut self.$s,)*
                    $($c: &mut self.$c,)*
                }
            }
        }

        impl<'b> Span<'b> {
            /// The first `n` environments' parts (fewer when fewer are
            /// left), taken off the front.
            pub(super) fn take_front(&mut self, n: usize, s: &ObsSpec) -> Span<'b> {
                Span {
                    $($s: {
                        let width: fn(&ObsSpec) -> usize = $w;
                        take_front(&mut self.$s, n.saturating_mul(width(s)))
                    },)*
                    $($c: take_front(&mut self.$c, n),)*
                }
            }

            /// Each environment's rows, in order.
            pub(super) fn rows(self, s: &ObsSpec) -> impl Iterator<Item = Rows<'b>> {
                // `chunks_mut` refuses a zero width; the spec's widths are
                // at least 1 (`ObsSpec::at_least_one`).
                $(let mut $s = self.$s.chunks_mut({
                    let width: fn(&ObsSpec) -> usize = $w;
                    width(s).max(1)
                });)*
                $(let mut $c = self.$c.iter_mut();)*
                std::iter::from_fn(move || {
                    Some(Rows {
                        $($s: $s.next()?,)*
                        $($c: $c.next()?,)*
                    })
                })
            }
        }
    };
}

row_fields! {
    slices {
        instruction: u32 = |s| s.instruction_tokens,
        page: u32 = |s| s.page_tokens,
        alert: u32 = |s| s.alert_tokens,
        role: u8 = |s| s.max_elements,
        flags: u8 = |s| s.max_elements,
        text: u32 = |s| s.max_elements * s.text_tokens,
        value: u32 = |s| s.max_elements * s.value_tokens,
        context: u32 = |s| s.max_elements * s.context_tokens,
        sibling: u8 = |s| s.max_elements,
        action_kind: u8 = |s| s.max_actions,
        action_element: i32 = |s| s.max_actions,
        action_text: u32 = |s| s.max_actions * s.action_tokens,
        action_mask: u8 = |s| s.max_actions,
        history_kind: u8 = |s| s.history,
        history_text: u32 = |s| s.history * s.history_tokens,
    }
    scalars {
        steps: u32,
        element_count: u32,
        action_count: u32,
        reward: f32,
        done: u8,
        truncated: u8,
        success: u8,
        progress: f32,
        r_acc: u8,
        answer_f1: f32,
        episode_return: f32,
        episode_length: u32,
        overflow: u8,
    }
}

/// The first `n` values of `*slice` (all when fewer), leaving the rest.
fn take_front<'b, T>(slice: &mut &'b mut [T], n: usize) -> &'b mut [T] {
    let whole = std::mem::take(slice);
    let (front, rest) = whole.split_at_mut(n.min(whole.len()));
    *slice = rest;
    front
}

/// The element type of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    U8,
    U32,
    I32,
    F32,
}

/// One buffer as a foreign caller sees it (the Python binding's numpy arrays
/// view the buffers in place through these): its name, element type, shape
/// (`[n, …]`), the range its values keep to, and its address. The buffers
/// are allocated once, when the batch is made, and never grow, so an address
/// stays valid as long as the batch.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldView {
    pub name: &'static str,
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    /// The least and greatest value an element can hold (infinite for
    /// rewards and returns).
    pub low: f64,
    pub high: f64,
    pub address: usize,
}

/// A buffer's element type and address.
trait Element {
    const DTYPE: Dtype;
}

impl Element for u8 {
    const DTYPE: Dtype = Dtype::U8;
}

impl Element for u32 {
    const DTYPE: Dtype = Dtype::U32;
}

impl Element for i32 {
    const DTYPE: Dtype = Dtype::I32;
}

impl Element for f32 {
    const DTYPE: Dtype = Dtype::F32;
}

fn view<T: Element>(name: &'static str, v: &[T], shape: &[usize], range: (f64, f64)) -> FieldView {
    FieldView {
        name,
        dtype: T::DTYPE,
        shape: shape.to_vec(),
        low: range.0,
        high: range.1,
        address: v.as_ptr() as usize,
    }
}

/// The greatest step count or episode length: a horizon is a `u32`, but no
/// episode is played for 2³¹ steps, so it fits a signed 32-bit integer too.
const COUNT_MAX: f64 = i32::MAX as f64;

impl Buffers {
    /// Every buffer, with its shape under `s` (the spec the batch was made
    /// with), in declaration order.
    pub fn fields(&self, s: &ObsSpec) -> Vec<FieldView> {
        let n = self.done.len();
        let (e, a, h) = (s.max_elements, s.max_actions, s.history);
        let token = (0.0, f64::from(s.vocab.max(1) - 1));
        let flag = (0.0, 1.0);
        let kinds = (
            0.0,
            f64::from(super::kind_id(crate::env::ActionKind::Answer)),
        );
        let real = (f64::NEG_INFINITY, f64::INFINITY);
        let roles = (0.0, crate::env::ROLES.len() as f64);
        let all_flags = super::FLAG_DISABLED | super::FLAG_HAS_VALUE | super::FLAG_TEXT_CUT;
        let cuts = super::CUT_ELEMENTS | super::CUT_ACTIONS | super::CUT_INSTRUCTION;
        vec![
            view(
                "instruction",
                &self.instruction,
                &[n, s.instruction_tokens],
                token,
            ),
            view("page", &self.page, &[n, s.page_tokens], token),
            view("alert", &self.alert, &[n, s.alert_tokens], token),
            view("steps", &self.steps, &[n], (0.0, COUNT_MAX)),
            view("element_count", &self.element_count, &[n], (0.0, e as f64)),
            view("role", &self.role, &[n, e], roles),
            view("flags", &self.flags, &[n, e], (0.0, f64::from(all_flags))),
            view("text", &self.text, &[n, e, s.text_tokens], token),
            view("value", &self.value, &[n, e, s.value_tokens], token),
            view("context", &self.context, &[n, e, s.context_tokens], token),
            view(
                "sibling",
                &self.sibling,
                &[n, e],
                (0.0, f64::from(MAX_SIBLING)),
            ),
            view("action_count", &self.action_count, &[n], (0.0, a as f64)),
            view("action_kind", &self.action_kind, &[n, a], kinds),
            view(
                "action_element",
                &self.action_element,
                &[n, a],
                (-1.0, e as f64 - 1.0),
            ),
            view(
                "action_text",
                &self.action_text,
                &[n, a, s.action_tokens],
                token,
            ),
            view("action_mask", &self.action_mask, &[n, a], flag),
            view("history_kind", &self.history_kind, &[n, h], kinds),
            view(
                "history_text",
                &self.history_text,
                &[n, h, s.history_tokens],
                token,
            ),
            view("reward", &self.reward, &[n], real),
            view("done", &self.done, &[n], flag),
            view("truncated", &self.truncated, &[n], flag),
            view("success", &self.success, &[n], flag),
            view("progress", &self.progress, &[n], real),
            view("r_acc", &self.r_acc, &[n], (0.0, f64::from(NOT_JUDGED))),
            view("answer_f1", &self.answer_f1, &[n], (-1.0, 1.0)),
            view("episode_return", &self.episode_return, &[n], real),
            view(
                "episode_length",
                &self.episode_length,
                &[n],
                (0.0, COUNT_MAX),
            ),
            view("overflow", &self.overflow, &[n], (0.0, f64::from(cuts))),
        ]
    }
}
