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
        let n = self.element_count.len();
        let (e, a, h) = (s.max_elements, s.max_actions, s.history);
        // `chunks_mut` refuses a zero width; a zero-width field gets empty
        // slices all the same.
        fn per<T>(v: &mut [T], width: usize) -> std::slice::ChunksMut<'_, T> {
            v.chunks_mut(width.max(1))
        }
        let mut instruction = per(&mut self.instruction, s.instruction_tokens);
        let mut page = per(&mut self.page, s.page_tokens);
        let mut alert = per(&mut self.alert, s.alert_tokens);
        let mut role = per(&mut self.role, e);
        let mut flags = per(&mut self.flags, e);
        let mut text = per(&mut self.text, e * s.text_tokens);
        let mut value = per(&mut self.value, e * s.value_tokens);
        let mut context = per(&mut self.context, e * s.context_tokens);
        let mut sibling = per(&mut self.sibling, e);
        let mut kind = per(&mut self.action_kind, a);
        let mut element = per(&mut self.action_element, a);
        let mut atext = per(&mut self.action_text, a * s.action_tokens);
        let mut mask = per(&mut self.action_mask, a);
        let mut hkind = per(&mut self.history_kind, h);
        let mut htext = per(&mut self.history_text, h * s.history_tokens);
        let mut steps = self.steps.iter_mut();
        let mut ec = self.element_count.iter_mut();
        let mut ac = self.action_count.iter_mut();
        let mut rw = self.reward.iter_mut();
        let mut dn = self.done.iter_mut();
        let mut tr = self.truncated.iter_mut();
        let mut sc = self.success.iter_mut();
        let mut pg = self.progress.iter_mut();
        let mut ra = self.r_acc.iter_mut();
        let mut af = self.answer_f1.iter_mut();
        let mut er = self.episode_return.iter_mut();
        let mut el = self.episode_length.iter_mut();
        let mut ov = self.overflow.iter_mut();
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let row = (|| {
                Some(Rows {
                    instruction: instruction.next()?,
                    page: page.next()?,
                    alert: alert.next()?,
                    steps: steps.next()?,
                    element_count: ec.next()?,
                    role: role.next()?,
                    flags: flags.next()?,
                    text: text.next()?,
                    value: value.next()?,
                    context: context.next()?,
                    sibling: sibling.next()?,
                    action_count: ac.next()?,
                    action_kind: kind.next()?,
                    action_element: element.next()?,
                    action_text: atext.next()?,
                    action_mask: mask.next()?,
                    history_kind: hkind.next()?,
                    history_text: htext.next()?,
                    reward: rw.next()?,
                    done: dn.next()?,
                    truncated: tr.next()?,
                    success: sc.next()?,
                    progress: pg.next()?,
                    r_acc: ra.next()?,
                    answer_f1: af.next()?,
                    episode_return: er.next()?,
                    episode_length: el.next()?,
                    overflow: ov.next()?,
                })
            })();
            match row {
                Some(r) => out.push(r),
                None => break,
            }
        }
        out
    }
}

/// One environment's part of every buffer.
pub(super) struct Rows<'b> {
    pub instruction: &'b mut [u32],
    pub page: &'b mut [u32],
    pub alert: &'b mut [u32],
    pub steps: &'b mut u32,
    pub element_count: &'b mut u32,
    pub role: &'b mut [u8],
    pub flags: &'b mut [u8],
    pub text: &'b mut [u32],
    pub value: &'b mut [u32],
    pub context: &'b mut [u32],
    pub sibling: &'b mut [u8],
    pub action_count: &'b mut u32,
    pub action_kind: &'b mut [u8],
    pub action_element: &'b mut [i32],
    pub action_text: &'b mut [u32],
    pub action_mask: &'b mut [u8],
    pub history_kind: &'b mut [u8],
    pub history_text: &'b mut [u32],
    pub reward: &'b mut f32,
    pub done: &'b mut u8,
    pub truncated: &'b mut u8,
    pub success: &'b mut u8,
    pub progress: &'b mut f32,
    pub r_acc: &'b mut u8,
    pub answer_f1: &'b mut f32,
    pub episode_return: &'b mut f32,
    pub episode_length: &'b mut u32,
    pub overflow: &'b mut u8,
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
