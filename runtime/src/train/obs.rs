//! Observations on their way to the policy: rows copied out of a batch's
//! buffers ([`ObsStore`], plain vectors on the host, one row per environment
//! step) and the same rows as tensors on the policy's device ([`Obs`]),
//! uploaded once per rollout.

use crate::batch::{Buffers, ObsSpec, FLAG_DISABLED, FLAG_HAS_VALUE, FLAG_TEXT_CUT};
use tch::{Device, Kind, Tensor};

/// Rows of observations, laid out as the batch writes them.
#[derive(Clone, Debug)]
pub struct ObsStore {
    pub spec: ObsSpec,
    pub rows: usize,
    instruction: Vec<i32>,
    element_count: Vec<i64>,
    role: Vec<u8>,
    flags: Vec<u8>,
    text: Vec<i32>,
    value: Vec<i32>,
    action_count: Vec<i64>,
    action_kind: Vec<u8>,
    action_element: Vec<i32>,
    action_text: Vec<i32>,
}

/// Observation rows as tensors on one device.
pub struct Obs {
    /// `[R, I]` token ids (0 pads).
    pub instruction: Tensor,
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
            element_count: Vec::new(),
            role: Vec::new(),
            flags: Vec::new(),
            text: Vec::new(),
            value: Vec::new(),
            action_count: Vec::new(),
            action_kind: Vec::new(),
            action_element: Vec::new(),
            action_text: Vec::new(),
        }
    }

    pub fn clear(&mut self) {
        *self = ObsStore::new(self.spec);
    }

    /// Appends every environment's current observation from `b`.
    pub fn push(&mut self, b: &Buffers) {
        self.rows += b.element_count.len();
        self.instruction.extend(tokens(&b.instruction));
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
        Obs {
            role: cut(small(&self.role, &[r, e]), ue),
            flags: cut(flags, ue),
            text_overlap: overlap(&text, &instruction),
            value_overlap: overlap(&value, &instruction),
            action_overlap: overlap(&action_text, &instruction),
            instruction,
            text,
            value,
            element_mask: upto(&self.element_count, ue),
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
