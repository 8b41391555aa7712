//! Observations on their way to the policy: rows copied out of a batch's
//! buffers ([`ObsStore`], plain vectors on the host, one row per environment
//! step) and the same rows as tensors on the policy's device ([`Obs`]),
//! uploaded once per rollout. Besides the elements and actions, a row holds
//! the context the batch writes (page label, alert, steps, each element's
//! context and place, the last actions: see `batch::buffers`).

use crate::batch::{Buffers, ObsSpec, FLAG_DISABLED, FLAG_HAS_VALUE, FLAG_TEXT_CUT};
use tch::{Device, Kind, Tensor};

/// Rows of observations, laid out as the batch writes them.
#[derive(Clone, Debug)]
pub struct ObsStore {
    pub spec: ObsSpec,
    pub rows: usize,
    instruction: Vec<i32>,
    page: Vec<i32>,
    alert: Vec<i32>,
    steps: Vec<i64>,
    element_count: Vec<i64>,
    role: Vec<u8>,
    flags: Vec<u8>,
    text: Vec<i32>,
    value: Vec<i32>,
    context: Vec<i32>,
    sibling: Vec<u8>,
    action_count: Vec<i64>,
    action_kind: Vec<u8>,
    action_element: Vec<i32>,
    action_text: Vec<i32>,
    history_kind: Vec<u8>,
    history_text: Vec<i32>,
}

/// Observation rows as tensors on one device.
pub struct Obs {
    /// `[R, I]` token ids (0 pads).
    pub instruction: Tensor,
    /// `[R, P]` and `[R, L]` token ids: the page's label and the alert.
    pub page: Tensor,
    pub alert: Tensor,
    /// `[R]` steps taken, capped at [`MAX_STEP_ID`].
    pub steps: Tensor,
    /// `[R, E, C]` token ids of what each element sits under.
    pub context: Tensor,
    /// `[R, E]` place in a repeated row (0: none).
    pub sibling: Tensor,
    /// `[R, E, 1]`: the element's place on the page, 0 at the top, 1 at the end.
    pub position: Tensor,
    /// `[R, H]` kinds (0: none) and `[R, H, T]` token ids of the last actions.
    pub history_kind: Tensor,
    pub history_text: Tensor,
    /// `[R, E, 1]`: the share of the context's tokens found in the instruction.
    pub context_overlap: Tensor,
    /// `[R, E]` role ids (0: no element).
    pub role: Tensor,
    /// `[R, E, 3]`: disabled, has a value, text cut.
    pub flags: Tensor,
    /// `[R, E, T]` and `[R, E, V]` token ids.
    pub text: Tensor,
    pub value: Tensor,
    /// `[R, E]`: a real element.
    pub element_mask: Tensor,
    /// `[R, A]` kind ids, element rows (−1: none), `[R, A, K]` token ids.
    pub action_kind: Tensor,
    pub action_element: Tensor,
    pub action_text: Tensor,
    /// `[R, A]`: a real action.
    pub action_mask: Tensor,
    /// `[R, E, 1]`, `[R, E, 1]`, `[R, A, 1]`: the share of the text's,
    /// value's and action text's tokens found in the instruction (see
    /// [`overlap`]). They hold no parameter, so they are computed once per
    /// upload rather than in every epoch's forward pass.
    pub text_overlap: Tensor,
    pub value_overlap: Tensor,
    pub action_overlap: Tensor,
}

/// Steps beyond this share one id: what matters is "just started" against
/// "a while in".
pub const MAX_STEP_ID: i64 = 15;

fn tokens(v: &[u32]) -> impl Iterator<Item = i32> + '_ {
    // Ids are below the vocabulary size (2^15 by default), so they fit.
    v.iter().map(|&t| t as i32)
}

impl ObsStore {
    pub fn new(spec: ObsSpec) -> ObsStore {
        ObsStore {
            spec,
            rows: 0,
            instruction: Vec::new(),
            page: Vec::new(),
            alert: Vec::new(),
            steps: Vec::new(),
            element_count: Vec::new(),
            role: Vec::new(),
            flags: Vec::new(),
            text: Vec::new(),
            value: Vec::new(),
            context: Vec::new(),
            sibling: Vec::new(),
            action_count: Vec::new(),
            action_kind: Vec::new(),
            action_element: Vec::new(),
            action_text: Vec::new(),
            history_kind: Vec::new(),
            history_text: Vec::new(),
        }
    }

    pub fn clear(&mut self) {
        *self = ObsStore::new(self.spec);
    }

    /// Appends every environment's current observation from `b`.
    pub fn push(&mut self, b: &Buffers) {
        self.rows += b.element_count.len();
        self.instruction.extend(tokens(&b.instruction));
        self.page.extend(tokens(&b.page));
        self.alert.extend(tokens(&b.alert));
        self.steps.extend(b.steps.iter().map(|&s| i64::from(s)));
        self.context.extend(tokens(&b.context));
        self.sibling.extend_from_slice(&b.sibling);
        self.history_kind.extend_from_slice(&b.history_kind);
        self.history_text.extend(tokens(&b.history_text));
        self.element_count
            .extend(b.element_count.iter().map(|&c| i64::from(c)));
        self.role.extend_from_slice(&b.role);
        self.flags.extend_from_slice(&b.flags);
        self.text.extend(tokens(&b.text));
        self.value.extend(tokens(&b.value));
        self.action_count
            .extend(b.action_count.iter().map(|&c| i64::from(c)));
        self.action_kind.extend_from_slice(&b.action_kind);
        self.action_element.extend_from_slice(&b.action_element);
        self.action_text.extend(tokens(&b.action_text));
    }

    /// Appends another store's rows.
    pub fn append(&mut self, o: &ObsStore) {
        self.rows += o.rows;
        self.instruction.extend_from_slice(&o.instruction);
        self.page.extend_from_slice(&o.page);
        self.alert.extend_from_slice(&o.alert);
        self.steps.extend_from_slice(&o.steps);
        self.context.extend_from_slice(&o.context);
        self.sibling.extend_from_slice(&o.sibling);
        self.history_kind.extend_from_slice(&o.history_kind);
        self.history_text.extend_from_slice(&o.history_text);
        self.element_count.extend_from_slice(&o.element_count);
        self.role.extend_from_slice(&o.role);
        self.flags.extend_from_slice(&o.flags);
        self.text.extend_from_slice(&o.text);
        self.value.extend_from_slice(&o.value);
        self.action_count.extend_from_slice(&o.action_count);
        self.action_kind.extend_from_slice(&o.action_kind);
        self.action_element.extend_from_slice(&o.action_element);
        self.action_text.extend_from_slice(&o.action_text);
    }

    /// Every row as tensors on `device`, in one upload per field.
    pub fn to_device(&self, device: Device) -> Obs {
        let s = &self.spec;
        let r = self.rows as i64;
        let (e, a) = (s.max_elements as i64, s.max_actions as i64);
        let long = |v: &[i32], shape: &[i64]| {
            Tensor::from_slice(v)
                .view(shape)
                .to_device(device)
                .to_kind(Kind::Int64)
        };
        let small = |v: &[u8], shape: &[i64]| {
            Tensor::from_slice(v)
                .view(shape)
                .to_device(device)
                .to_kind(Kind::Int64)
        };
        let flags = small(&self.flags, &[r, e]);
        let bit = |b: u8| flags.bitwise_and(i64::from(b)).ne(0).to_kind(Kind::Float);
        let flags = Tensor::stack(
            &[bit(FLAG_DISABLED), bit(FLAG_HAS_VALUE), bit(FLAG_TEXT_CUT)],
            -1,
        );
        let upto = |counts: &[i64], width: i64| {
            let c = Tensor::from_slice(counts).to_device(device).view([r, 1]);
            Tensor::arange(width, (Kind::Int64, device))
                .view([1, width])
                .lt_tensor(&c)
        };
        // Only as many element and action rows as the fullest observation
        // uses: the policy's cost grows with these widths, and a small site
        // fills a tenth of the buffer's.
        let used =
            |counts: &[i64], width: i64| counts.iter().copied().max().unwrap_or(1).clamp(1, width);
        let (ue, ua) = (used(&self.element_count, e), used(&self.action_count, a));
        let cut = |t: Tensor, width: i64| t.narrow(1, 0, width);
        let instruction = long(&self.instruction, &[r, s.instruction_tokens as i64]);
        let text = cut(long(&self.text, &[r, e, s.text_tokens as i64]), ue);
        let value = cut(long(&self.value, &[r, e, s.value_tokens as i64]), ue);
        let action_text = cut(long(&self.action_text, &[r, a, s.action_tokens as i64]), ua);
        let context = cut(long(&self.context, &[r, e, s.context_tokens as i64]), ue);
        let h = s.history as i64;
        let element_mask = upto(&self.element_count, ue);
        Obs {
            page: long(&self.page, &[r, s.page_tokens as i64]),
            alert: long(&self.alert, &[r, s.alert_tokens as i64]),
            steps: Tensor::from_slice(&self.steps)
                .to_device(device)
                .clamp_max(MAX_STEP_ID),
            context_overlap: overlap(&context, &instruction),
            context,
            sibling: cut(small(&self.sibling, &[r, e]), ue),
            position: position(&self.element_count, ue, device),
            history_kind: small(&self.history_kind, &[r, h]),
            history_text: long(&self.history_text, &[r, h, s.history_tokens as i64]),
            role: cut(small(&self.role, &[r, e]), ue),
            flags: cut(flags, ue),
            text_overlap: overlap(&text, &instruction),
            value_overlap: overlap(&value, &instruction),
            action_overlap: overlap(&action_text, &instruction),
            instruction,
            text,
            value,
            element_mask,
            action_kind: cut(small(&self.action_kind, &[r, a]), ua),
            action_element: cut(long(&self.action_element, &[r, a]), ua),
            action_text,
            action_mask: upto(&self.action_count, ua),
        }
    }
}

impl Obs {
    /// The rows `idx` (a 1-D `Int64` tensor on the same device).
    pub fn select(&self, idx: &Tensor) -> Obs {
        let pick = |t: &Tensor| t.index_select(0, idx);
        Obs {
            instruction: pick(&self.instruction),
            page: pick(&self.page),
            alert: pick(&self.alert),
            steps: pick(&self.steps),
            context: pick(&self.context),
            sibling: pick(&self.sibling),
            position: pick(&self.position),
            history_kind: pick(&self.history_kind),
            history_text: pick(&self.history_text),
            context_overlap: pick(&self.context_overlap),
            role: pick(&self.role),
            flags: pick(&self.flags),
            text: pick(&self.text),
            value: pick(&self.value),
            element_mask: pick(&self.element_mask),
            action_kind: pick(&self.action_kind),
            action_element: pick(&self.action_element),
            action_text: pick(&self.action_text),
            action_mask: pick(&self.action_mask),
            text_overlap: pick(&self.text_overlap),
            value_overlap: pick(&self.value_overlap),
            action_overlap: pick(&self.action_overlap),
        }
    }
}

/// `[R, E, 1]`: element `j` of a page of `n` elements sits at `j / (n − 1)`
/// (0 for a page of one element and for padding rows).
fn position(counts: &[i64], width: i64, device: Device) -> Tensor {
    let n = Tensor::from_slice(counts)
        .to_device(device)
        .view([-1, 1])
        .to_kind(Kind::Float);
    let j = Tensor::arange(width, (Kind::Float, device)).view([1, width]);
    let p = j / (n - 1.0).clamp_min(1.0);
    p.clamp(0.0, 1.0).unsqueeze(-1)
}

/// The share of `ids`' tokens (`[R, N, L]`) that also occur in the
/// instruction (`[R, I]`): `[R, N, 1]`, 0 for an empty text.
pub fn overlap(ids: &Tensor, instruction: &Tensor) -> Tensor {
    let present = ids.ne(0);
    let instr = instruction.unsqueeze(1).unsqueeze(1); // [R, 1, 1, I]
    let found = ids
        .unsqueeze(-1)
        .eq_tensor(&instr)
        .logical_and(&instr.ne(0))
        .any_dim(-1, false)
        .logical_and(&present)
        .to_kind(Kind::Float)
        .sum_dim_intlist(-1, true, Kind::Float);
    found
        / present
            .to_kind(Kind::Float)
            .sum_dim_intlist(-1, true, Kind::Float)
            .clamp_min(1.0)
}
