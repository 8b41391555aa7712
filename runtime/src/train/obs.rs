//! Observations on their way to the policy: rows copied out of a batch's
//! buffers ([`ObsStore`], plain vectors on the host, one row per environment
//! step) and the same rows as tensors on the policy's device ([`Obs`]),
//! uploaded once per rollout. Besides the elements and actions, a row holds
//! the context the batch writes (page label, alert, steps, each element's
//! context and place, the last actions: see `batch::buffers`); the element
//! context is part of an element's identity when deduplicating, the rest is
//! per row.

use super::dedup;
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

/// Observation rows as tensors on one device, with the instructions, the
/// elements and the actions deduplicated (see [`super::dedup`]): the policy
/// encodes each distinct instruction, each distinct (instruction, element)
/// pair and each distinct (instruction, action) pair once, and the rows
/// point at them.
pub struct Obs {
    /// `[N, I]` token ids (0 pads) of the distinct instructions.
    pub instruction: Tensor,
    /// `[R]`: each row's instruction (an index into `instruction`).
    pub row_instruction: Tensor,
    /// `[R, P]` and `[R, L]` token ids: each row's page label and alert.
    pub page: Tensor,
    pub alert: Tensor,
    /// `[R]` steps taken, capped at [`MAX_STEP_ID`].
    pub steps: Tensor,
    /// `[R, H]` kinds (0: none) and `[R, H, T]` token ids of the last actions.
    pub history_kind: Tensor,
    pub history_text: Tensor,
    /// `[U, C]` token ids of what each distinct element sits under, `[U]`
    /// its place in its repeated row (0: none) and `[U, 1]` the share of the
    /// context's tokens found in the instruction.
    pub context: Tensor,
    pub sibling: Tensor,
    pub context_overlap: Tensor,
    /// `[U]` role ids of the distinct elements.
    pub role: Tensor,
    /// `[U, 3]`: disabled, has a value, text cut.
    pub flags: Tensor,
    /// `[U, T]` and `[U, V]` token ids.
    pub text: Tensor,
    pub value: Tensor,
    /// `[U]`: the instruction each distinct element is seen under.
    pub element_instruction: Tensor,
    /// `[R, E]`: each row's elements as indices into the distinct ones,
    /// `U` (one past the last) where the row has no element.
    pub element_index: Tensor,
    /// `[W]` kind ids of the distinct actions, the distinct element each
    /// acts on (`U`: none), its instruction, and `[W, K]` token ids.
    pub action_kind: Tensor,
    pub action_element: Tensor,
    pub action_instruction: Tensor,
    pub action_text: Tensor,
    /// `[R, A]`: each row's actions as indices into the distinct ones, `W`
    /// where the row has no action.
    pub action_index: Tensor,
    /// `[R, A]`: a real action.
    pub action_mask: Tensor,
    /// `[U, 1]`, `[U, 1]`, `[W, 1]`: the share of the text's, value's and
    /// action text's tokens found in the instruction (see [`overlap`]).
    /// They hold no parameter, so they are computed once per upload rather
    /// than in every epoch's forward pass.
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

    /// Every row as tensors on `device`, in one upload per field, with the
    /// instructions, elements and actions deduplicated.
    pub fn to_device(&self, device: Device) -> Obs {
        let s = &self.spec;
        let r = self.rows as i64;
        let it = s.instruction_tokens;
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
        let index = |v: &[i64]| Tensor::from_slice(v).to_device(device);
        let ids = |v: &[u32]| index(&v.iter().map(|&k| i64::from(k)).collect::<Vec<_>>());
        let instructions =
            dedup::unique((0..self.rows).map(|k| &self.instruction[k * it..(k + 1) * it]));
        let instruction = long(
            &dedup::gather(&self.instruction, it, &instructions.first),
            &[instructions.len() as i64, it as i64],
        );
        let el = self.distinct_elements(&instructions.ids);
        let ac = self.distinct_actions(&instructions.ids, &el);
        let (u, w) = (el.first.len() as i64, ac.first.len() as i64);
        let flags = small(&dedup::gather(&self.flags, 1, &el.first), &[u]);
        let bit = |b: u8| flags.bitwise_and(i64::from(b)).ne(0).to_kind(Kind::Float);
        // `[n, 1, L]`, the shape `overlap` takes, then `[n, L]`.
        let texts = |v: &[i32], width: usize, first: &[usize], n: i64| {
            long(&dedup::gather(v, width, first), &[n, 1, width as i64])
        };
        let text = texts(&self.text, s.text_tokens, &el.first, u);
        let context = texts(&self.context, s.context_tokens, &el.first, u);
        let value = texts(&self.value, s.value_tokens, &el.first, u);
        let action_text = texts(&self.action_text, s.action_tokens, &ac.first, w);
        let element_instruction = ids(&el.instruction);
        let action_instruction = ids(&ac.instruction);
        let under = |of: &Tensor| instruction.index_select(0, of);
        let upto = |counts: &[i64], width: i64| {
            let c = Tensor::from_slice(counts).to_device(device).view([r, 1]);
            Tensor::arange(width, (Kind::Int64, device))
                .view([1, width])
                .lt_tensor(&c)
        };
        let h = s.history as i64;
        Obs {
            page: long(&self.page, &[r, s.page_tokens as i64]),
            alert: long(&self.alert, &[r, s.alert_tokens as i64]),
            steps: index(&self.steps).clamp_max(MAX_STEP_ID),
            history_kind: small(&self.history_kind, &[r, h]),
            history_text: long(&self.history_text, &[r, h, s.history_tokens as i64]),
            context_overlap: overlap(&context, &under(&element_instruction)).squeeze_dim(1),
            context: context.squeeze_dim(1),
            sibling: small(&dedup::gather(&self.sibling, 1, &el.first), &[u]),
            role: small(&dedup::gather(&self.role, 1, &el.first), &[u]),
            flags: Tensor::stack(
                &[bit(FLAG_DISABLED), bit(FLAG_HAS_VALUE), bit(FLAG_TEXT_CUT)],
                -1,
            ),
            text_overlap: overlap(&text, &under(&element_instruction)).squeeze_dim(1),
            value_overlap: overlap(&value, &under(&element_instruction)).squeeze_dim(1),
            action_overlap: overlap(&action_text, &under(&action_instruction)).squeeze_dim(1),
            text: text.squeeze_dim(1),
            value: value.squeeze_dim(1),
            action_text: action_text.squeeze_dim(1),
            element_instruction,
            element_index: index(&el.index).view([r, el.width]),
            instruction,
            row_instruction: ids(&instructions.ids),
            action_kind: small(&dedup::gather(&self.action_kind, 1, &ac.first), &[w]),
            action_element: index(&ac.element),
            action_instruction,
            action_index: index(&ac.index).view([r, ac.width]),
            action_mask: upto(&self.action_count, ac.width),
        }
    }

    /// The distinct (instruction, element) pairs among the rows' real
    /// elements, given each row's instruction id.
    fn distinct_elements(&self, row_instruction: &[u32]) -> Distinct {
        let s = &self.spec;
        let (e, tt, vt, ct) = (
            s.max_elements,
            s.text_tokens,
            s.value_tokens,
            s.context_tokens,
        );
        let real = real_slots(&self.element_count, e);
        let distinct = dedup::unique(real.slots.iter().map(|&(row, k)| {
            let i = row * e + k;
            (
                row_instruction[row],
                &self.text[i * tt..(i + 1) * tt],
                &self.value[i * vt..(i + 1) * vt],
                &self.context[i * ct..(i + 1) * ct],
                (self.role[i], self.flags[i], self.sibling[i]),
            )
        }));
        Distinct::new(&real, &distinct, e, row_instruction, |_| 0)
    }

    /// The distinct (instruction, action) pairs among the rows' real
    /// actions: an action is its kind, its text and its element (as a
    /// distinct element of `el`, which already carries the instruction).
    fn distinct_actions(&self, row_instruction: &[u32], el: &Distinct) -> Distinct {
        let s = &self.spec;
        let (a, at) = (s.max_actions, s.action_tokens);
        let real = real_slots(&self.action_count, a);
        let none = el.first.len() as i64;
        let element = |row: usize, k: usize| {
            let target = usize::try_from(self.action_element[row * a + k]).ok();
            target
                .filter(|&t| t < el.width as usize)
                .map_or(none, |t| el.index[row * el.width as usize + t])
        };
        let distinct = dedup::unique(real.slots.iter().map(|&(row, k)| {
            let i = row * a + k;
            (
                row_instruction[row],
                element(row, k),
                self.action_kind[i],
                &self.action_text[i * at..(i + 1) * at],
            )
        }));
        Distinct::new(&real, &distinct, a, row_instruction, |(row, k)| {
            element(row, k)
        })
    }
}

/// The real (row, position) slots of rows holding `counts` items each (at
/// most `cap`), and the widest row's width.
struct Slots {
    slots: Vec<(usize, usize)>,
    width: usize,
}

fn real_slots(counts: &[i64], cap: usize) -> Slots {
    let counts: Vec<usize> = counts
        .iter()
        .map(|&c| usize::try_from(c).unwrap_or(0).min(cap))
        .collect();
    Slots {
        width: counts.iter().copied().max().unwrap_or(1).max(1),
        slots: counts
            .iter()
            .enumerate()
            .flat_map(|(row, &n)| (0..n).map(move |k| (row, k)))
            .collect(),
    }
}

/// The distinct items (elements or actions) of a store's rows.
struct Distinct {
    /// Each distinct item's position in the store's arrays (`row × cap + k`).
    first: Vec<usize>,
    /// Each distinct item's instruction id.
    instruction: Vec<u32>,
    /// Each distinct action's distinct element (0 for elements).
    element: Vec<i64>,
    /// `[R, width]`: indices into the distinct items, their count where a
    /// row has no item.
    index: Vec<i64>,
    width: i64,
}

impl Distinct {
    fn new(
        real: &Slots,
        distinct: &dedup::Unique,
        cap: usize,
        row_instruction: &[u32],
        element: impl Fn((usize, usize)) -> i64,
    ) -> Distinct {
        let padding = distinct.len() as i64;
        let rows = row_instruction.len();
        let mut index = vec![padding; rows * real.width];
        for (&(row, k), &id) in real.slots.iter().zip(&distinct.ids) {
            index[row * real.width + k] = i64::from(id);
        }
        let firsts = distinct.first.iter().map(|&j| real.slots[j]);
        Distinct {
            first: firsts.clone().map(|(row, k)| row * cap + k).collect(),
            instruction: firsts
                .clone()
                .map(|(row, _)| row_instruction[row])
                .collect(),
            element: firsts.map(element).collect(),
            index,
            width: real.width as i64,
        }
    }
}

/// The distinct ids used by `index` (`[B, W]`, with `padding` the largest
/// possible id), in increasing order and without `padding`; `index`
/// renumbered into them (`padding` becoming their count); and the map from
/// old ids (`padding` included) to new ones.
fn compact(index: &Tensor, padding: i64) -> (Tensor, Tensor, Tensor) {
    let device = index.device();
    let pad = Tensor::from_slice(&[padding]).to_device(device);
    // The padding id joins the used ones so that it stays the largest, and
    // last, after `unique` sorts them.
    let all = Tensor::cat(&[index.reshape([-1]), pad], 0);
    let (used, inverse, _) = all.internal_unique2(true, true, false);
    let n = used.size()[0];
    let remap = Tensor::zeros([padding + 1], (Kind::Int64, device)).index_copy(
        0,
        &used,
        &Tensor::arange(n, (Kind::Int64, device)),
    );
    (
        used.narrow(0, 0, n - 1),
        inverse.narrow(0, 0, index.numel() as i64).view_as(index),
        remap,
    )
}

impl Obs {
    /// Distinct elements: the padding index of `element_index`.
    pub fn elements(&self) -> i64 {
        self.role.size()[0]
    }

    /// Distinct actions: the padding index of `action_index`.
    pub fn actions(&self) -> i64 {
        self.action_kind.size()[0]
    }

    /// The rows `idx` (a 1-D `Int64` tensor on the same device), with only
    /// the distinct elements and actions they use.
    pub fn select(&self, idx: &Tensor) -> Obs {
        let pick = |t: &Tensor| t.index_select(0, idx);
        let (elements, element_index, renumber) =
            compact(&pick(&self.element_index), self.elements());
        let (actions, action_index, _) = compact(&pick(&self.action_index), self.actions());
        let element = |t: &Tensor| t.index_select(0, &elements);
        let action = |t: &Tensor| t.index_select(0, &actions);
        Obs {
            instruction: self.instruction.shallow_clone(),
            row_instruction: pick(&self.row_instruction),
            page: pick(&self.page),
            alert: pick(&self.alert),
            steps: pick(&self.steps),
            history_kind: pick(&self.history_kind),
            history_text: pick(&self.history_text),
            context: element(&self.context),
            sibling: element(&self.sibling),
            context_overlap: element(&self.context_overlap),
            role: element(&self.role),
            flags: element(&self.flags),
            text: element(&self.text),
            value: element(&self.value),
            element_instruction: element(&self.element_instruction),
            element_index,
            text_overlap: element(&self.text_overlap),
            value_overlap: element(&self.value_overlap),
            action_kind: action(&self.action_kind),
            action_element: renumber.index_select(0, &action(&self.action_element)),
            action_instruction: action(&self.action_instruction),
            action_text: action(&self.action_text),
            action_index,
            action_mask: pick(&self.action_mask),
            action_overlap: action(&self.action_overlap),
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

#[cfg(test)]
mod tests {
    use super::super::policy::{Policy, PolicyConfig};
    use super::*;
    use tch::nn;

    fn spec() -> ObsSpec {
        ObsSpec {
            max_elements: 4,
            text_tokens: 2,
            value_tokens: 1,
            instruction_tokens: 3,
            max_actions: 4,
            action_tokens: 2,
            page_tokens: 2,
            alert_tokens: 2,
            context_tokens: 2,
            history: 2,
            history_tokens: 2,
            vocab: 64,
        }
    }

    /// A row: its instruction, elements (text, value, role, flags) and
    /// actions (kind, element or −1, text).
    struct Row {
        instruction: [i32; 3],
        /// The page label, the steps taken and the last action (kind, words).
        page: [i32; 2],
        steps: i64,
        last: (u8, [i32; 2]),
        elements: Vec<([i32; 2], i32, u8, u8)>,
        actions: Vec<(u8, i32, [i32; 2])>,
    }

    fn store(rows: &[&Row]) -> ObsStore {
        let s = spec();
        let mut o = ObsStore::new(s);
        for r in rows {
            o.rows += 1;
            o.instruction.extend(r.instruction);
            o.page.extend(r.page);
            o.alert.extend([0; 2]);
            o.steps.push(r.steps);
            o.history_kind.extend([r.last.0, 0]);
            o.history_text.extend(r.last.1);
            o.history_text.extend([0; 2]);
            o.element_count.push(r.elements.len() as i64);
            for k in 0..s.max_elements {
                let (text, value, role, flags) = r.elements.get(k).copied().unwrap_or_default();
                o.text.extend(text);
                o.value.push(value);
                o.role.push(role);
                o.flags.push(flags);
                o.context.extend([0; 2]);
                o.sibling.push(0);
            }
            o.action_count.push(r.actions.len() as i64);
            for k in 0..s.max_actions {
                let (kind, element, text) = r.actions.get(k).copied().unwrap_or((0, -1, [0, 0]));
                o.action_kind.push(kind);
                o.action_element.push(element);
                o.action_text.extend(text);
            }
        }
        o
    }

    impl Row {
        fn clone_row(&self) -> Row {
            Row {
                instruction: self.instruction,
                page: self.page,
                steps: self.steps,
                last: self.last,
                elements: self.elements.clone(),
                actions: self.actions.clone(),
            }
        }
    }

    fn rows() -> [Row; 2] {
        let page = vec![
            ([5, 6], 0, 1, 0),
            ([7, 0], 9, 2, FLAG_HAS_VALUE),
            ([5, 6], 0, 1, 0),
        ];
        [
            Row {
                instruction: [5, 7, 0],
                page: [11, 12],
                steps: 0,
                last: (0, [0, 0]),
                elements: page.clone(),
                actions: vec![
                    (1, 0, [0, 0]),
                    (2, 1, [8, 9]),
                    (1, 2, [0, 0]),
                    (4, -1, [5, 0]),
                ],
            },
            Row {
                instruction: [6, 0, 0],
                page: [13, 0],
                steps: 3,
                last: (1, [7, 9]),
                elements: page[..2].to_vec(),
                actions: vec![(1, 0, [0, 0]), (4, -1, [5, 0])],
            },
        ]
    }

    #[test]
    fn repeated_elements_and_actions_are_kept_once_per_instruction() {
        let [a, b] = rows();
        let o = store(&[&a, &b, &a]).to_device(Device::Cpu);
        // Two instructions; row a's elements 0 and 2 are one, and row b's
        // are the same texts under another instruction: 2 + 2.
        assert_eq!(o.instruction.size(), [2, 3]);
        assert_eq!(o.elements(), 4);
        let index = Vec::<i64>::try_from(o.element_index.reshape([-1])).unwrap_or_default();
        assert_eq!(index, [0, 1, 0, 2, 3, 4, 0, 1, 0]);
        // Row a: clicks on elements 0 and 2 are one action: 3 distinct;
        // row b: 2 more; the repeated row a: none.
        assert_eq!(o.actions(), 5);
        let actions = Vec::<i64>::try_from(o.action_index.reshape([-1])).unwrap_or_default();
        assert_eq!(actions, [0, 1, 0, 2, 3, 4, 5, 5, 0, 1, 0, 2]);
    }

    #[test]
    fn a_row_scores_the_same_alone_in_a_batch_and_in_a_minibatch() {
        tch::manual_seed(1);
        let vs = nn::VarStore::new(Device::Cpu);
        let policy = Policy::new(
            &vs.root(),
            PolicyConfig {
                vocab: 64,
                ..PolicyConfig::default()
            },
        );
        let [a, b] = rows();
        let all = store(&[&a, &b, &a]).to_device(Device::Cpu);
        let (logits, values) = policy.forward(&all);
        // Equal up to the order of floating-point sums: a batch of another
        // size may take another matrix-product path (differences of a few
        // 1e-6 on logits near 1); a wrong gather would be off by far more.
        let same = |x: &Tensor, y: &Tensor| x.allclose(y, 1e-4, 1e-5, false);
        for (k, row) in [(0, &a), (1, &b)] {
            let (alone, value) = policy.forward(&store(&[row]).to_device(Device::Cpu));
            let width = alone.size()[1];
            let (x, y) = (logits.get(k).narrow(0, 0, width), alone.get(0));
            assert!(
                same(&x, &y),
                "row {k}: {x:?} {y:?}, largest difference {}",
                (&x - &y).abs().max().double_value(&[])
            );
            assert!(same(&values.get(k), &value.get(0)));
        }
        assert!(same(&logits.get(0), &logits.get(2)));
        let idx = Tensor::from_slice(&[2i64, 1]);
        let (picked, picked_values) = policy.forward(&all.select(&idx));
        assert!(same(&picked, &logits.index_select(0, &idx)));
        assert!(same(&picked_values, &values.index_select(0, &idx)));
    }

    #[test]
    fn the_context_reaches_the_scores_only_when_switched_on() {
        let [a, b] = rows();
        // Row b as it is, and with another last action and step count.
        let other = Row {
            steps: 7,
            last: (2, [9, 8]),
            ..rows()[1].clone_row()
        };
        for history in [true, false] {
            tch::manual_seed(3);
            let vs = nn::VarStore::new(Device::Cpu);
            let mut c = PolicyConfig {
                vocab: 64,
                ..PolicyConfig::default()
            };
            c.features.history = history;
            let policy = match Policy::initialised(&vs, c) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
            let (l1, v1) = policy.forward(&store(&[&a, &b]).to_device(Device::Cpu));
            let (l2, v2) = policy.forward(&store(&[&a, &other]).to_device(Device::Cpu));
            let same = l1.allclose(&l2, 1e-6, 1e-7, false) && v1.allclose(&v2, 1e-6, 1e-7, false);
            assert_eq!(
                same,
                !history,
                "history switched {}",
                if history { "on" } else { "off" }
            );
        }
    }
}
