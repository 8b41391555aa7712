//! The policy: a small network (about 2.5M parameters) that reads the
//! instruction and the page and scores every candidate action, with a value
//! head for PPO.
//!
//! It sees only what transfers between sites: hashed text tokens (a bag of
//! embeddings per text), element roles and flags, action kinds, and how much
//! of a text also occurs in the instruction (the grounding signal: "add the
//! wool scarf to the cart" → the "Add to cart" button whose row reads "Wool
//! scarf"). No site-specific id reaches it, so it can act on sites it never
//! saw. Besides the elements it reads the context a person uses
//! ([`Features`]): what each element sits under and its place in its row,
//! what page this is and what the alert says, and what it did so far (the
//! last actions and the step count); each can be switched off for ablations.
//!
//! Elements and actions are encoded once per distinct (instruction, element)
//! and (instruction, action) pair (see `obs`); what differs from row to row
//! (page, alert, history) forms a per-row state that joins after those
//! encoders: in the value head, and in each action's score through a
//! low-rank product with the action's vector, so deduplication stays exact.
//!
//! Shapes: `R` rows, `E` elements, `A` actions, `D` embedding width, `H`
//! hidden width, `K` the state-action rank.

use super::error::NoLayer;
use super::init::{self, init_orthogonal};
use super::obs::{Obs, MAX_STEP_ID};
use crate::batch::MAX_SIBLING;
use tch::nn::{self, Module};
use tch::{Kind, Tensor};

/// The context the policy reads besides the elements themselves; each on by
/// default, off for an ablation (its inputs are then zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Features {
    /// What each element sits under (its row's first text or the heading
    /// above), its place in its row, and where an `answer` is shown.
    pub context: bool,
    /// The page's label and the alert.
    pub page: bool,
    /// The last actions taken and the step count.
    pub history: bool,
}

impl Default for Features {
    fn default() -> Features {
        Features {
            context: true,
            page: true,
            history: true,
        }
    }
}

impl Features {
    /// The names `--ablate` takes.
    pub const NAMES: [&'static str; 3] = ["context", "page", "history"];

    /// These features with the one called `name` switched off.
    pub fn without(self, name: &str) -> Option<Features> {
        self.switched(name, false)
    }

    /// These features with the one called `name` switched on.
    pub fn with(self, name: &str) -> Option<Features> {
        self.switched(name, true)
    }

    fn switched(self, name: &str, on: bool) -> Option<Features> {
        let mut f = self;
        match name {
            "context" => f.context = on,
            "page" => f.page = on,
            "history" => f.history = on,
            _ => return None,
        }
        Some(f)
    }
}

/// Sizes of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PolicyConfig {
    /// Hashed token buckets (the batch's `ObsSpec::vocab`).
    pub vocab: i64,
    pub embed: i64,
    pub hidden: i64,
    /// The rank of the state-action term of an action's score.
    pub rank: i64,
    pub features: Features,
}

impl Default for PolicyConfig {
    fn default() -> PolicyConfig {
        PolicyConfig {
            vocab: 1 << 15,
            embed: 64,
            hidden: 128,
            rank: 32,
            features: Features::default(),
        }
    }
}

/// Role and kind ids are small (see `batch::role_id`, `batch::kind_id`).
const ROLE_IDS: i64 = 32;
const KIND_IDS: i64 = 8;
/// The logit of a padding row: far below any real one, yet finite, so that
/// `0 · log p` stays 0 in the entropy.
pub const MASKED_LOGIT: f64 = -1e9;
/// `embedding_bag`'s mode for the mean (0 sums, 2 takes the maximum).
const EMBEDDING_BAG_MEAN: i64 = 1;

pub struct Policy {
    features: Features,
    tokens: nn::Embedding,
    roles: nn::Embedding,
    siblings: nn::Embedding,
    step_ids: nn::Embedding,
    history_kinds: nn::Embedding,
    instruction: nn::Linear,
    // Instruction, page label, alert, history and step count in one per-row
    // state vector.
    state: nn::Linear,
    element_in: nn::Linear,
    element_out: nn::Linear,
    context: nn::Linear,
    // The first action layer, split by input so that the element part runs
    // once per element rather than once per action, and the instruction
    // part once per row.
    action_element: nn::Linear,
    action_text: nn::Linear,
    action_kind: nn::Embedding,
    action_overlap: nn::Linear,
    action_instruction: nn::Linear,
    action_out: nn::Linear,
    // The state-action term: `⟨state_query(s), action_key(z)⟩`.
    state_query: nn::Linear,
    action_key: nn::Linear,
    value_in: nn::Linear,
    value_out: nn::Linear,
}

/// `t`, or zeros shaped like it when `on` is false (an ablated input).
fn when(on: bool, t: &Tensor) -> Tensor {
    if on {
        t.shallow_clone()
    } else {
        t.zeros_like()
    }
}

impl Policy {
    pub fn new(root: &nn::Path, c: PolicyConfig) -> Policy {
        let (d, h) = (c.embed, c.hidden);
        let lin = |name: &str, i: i64, o: i64| nn::linear(root / name, i, o, Default::default());
        let no_bias = nn::LinearConfig {
            bias: false,
            ..Default::default()
        };
        let emb = |name: &str, n: i64, w: i64| nn::embedding(root / name, n, w, Default::default());
        Policy {
            features: c.features,
            tokens: emb("tokens", c.vocab, d),
            roles: emb("roles", ROLE_IDS, d),
            siblings: emb("siblings", i64::from(MAX_SIBLING) + 1, d),
            step_ids: emb("step_ids", MAX_STEP_ID + 1, d),
            history_kinds: emb("history_kinds", KIND_IDS, d),
            instruction: lin("instruction", d, h),
            // instruction, page, alert, history, steps
            state: lin("state", h + 4 * d, h),
            // text, value, context, role, sibling; three flags, three overlaps
            element_in: lin("element_in", 5 * d + 6, h),
            element_out: lin("element_out", h, h),
            // element, instruction, their product
            context: lin("context", 3 * h, h),
            action_element: lin("action_element", h, h),
            action_text: nn::linear(root / "action_text", d, h, no_bias),
            action_kind: nn::embedding(root / "action_kind", KIND_IDS, h, Default::default()),
            action_overlap: nn::linear(root / "action_overlap", 1, h, no_bias),
            action_instruction: nn::linear(root / "action_instruction", h, h, no_bias),
            action_out: lin("action_out", h, 1),
            state_query: nn::linear(root / "state_query", h, c.rank, no_bias),
            action_key: nn::linear(root / "action_key", h, c.rank, no_bias),
            // state, page mean
            value_in: lin("value_in", 2 * h, h),
            value_out: lin("value_out", h, 1),
        }
    }

    /// A policy in `vs` with CleanRL's initialisation: orthogonal hidden
    /// layers (gain √2), an action head of gain 0.01 (so the first policy is
    /// near uniform over the candidates) and a value head of gain 1.
    pub fn initialised(vs: &nn::VarStore, c: PolicyConfig) -> Result<Policy, NoLayer> {
        let policy = Policy::new(&vs.root(), c);
        let hidden = [
            "instruction",
            "state",
            "element_in",
            "element_out",
            "context",
            "action_element",
            "value_in",
        ];
        let mut layers: Vec<(&str, f64)> = hidden.iter().map(|&l| (l, init::HIDDEN)).collect();
        layers.extend([
            ("action_out", init::ACTION_HEAD),
            ("state_query", init::ACTION_HEAD),
            ("value_out", init::VALUE_HEAD),
        ]);
        init_orthogonal(vs, &layers)?;
        Ok(policy)
    }

    /// The mean embedding of the non-padding tokens of `ids` (`[…, L]`;
    /// zero for a text of padding only), as one `embedding_bag`: the
    /// `[…, L, D]` embeddings are never materialised, which on a page of 64
    /// elements is most of the forward pass's memory traffic.
    #[cfg(test)]
    fn bag(&self, ids: &Tensor) -> Tensor {
        let shape = ids.size();
        let width = shape.last().copied().unwrap_or(1).max(1);
        let [mean] = self.bags([&ids.reshape([-1, width])]);
        let mut out = shape[..shape.len() - 1].to_vec();
        out.push(mean.size()[1]);
        mean.reshape(out)
    }

    /// The bags of several `[n, L]` id tables (each its own width) as one
    /// `embedding_bag`, so back-propagation builds one dense gradient of
    /// the token table rather than one per table.
    fn bags<const K: usize>(&self, tables: [&Tensor; K]) -> [Tensor; K] {
        let device = self.tokens.ws.device();
        let (mut ids, mut offsets, mut rows) = (Vec::new(), Vec::new(), Vec::<i64>::new());
        let mut at = 0;
        for t in tables {
            let (n, width) = (t.size()[0], t.size().last().copied().unwrap_or(1).max(1));
            ids.push(t.reshape([-1]));
            offsets.push(Tensor::arange_start_step(
                at,
                at + n * width,
                width,
                (Kind::Int64, device),
            ));
            rows.push(n);
            at += n * width;
        }
        let (mean, ..) = Tensor::embedding_bag_padding_idx(
            &self.tokens.ws,
            &Tensor::cat(&ids, 0),
            &Tensor::cat(&offsets, 0),
            false,
            EMBEDDING_BAG_MEAN,
            false,
            None::<Tensor>,
            false,
            Some(0),
        );
        let starts: Vec<i64> = rows
            .iter()
            .scan(0, |start, &n| {
                *start += n;
                Some(*start - n)
            })
            .collect();
        std::array::from_fn(|k| mean.narrow(0, starts[k], rows[k]))
    }

    /// `[R, H]`: each row's instruction read with its page label, alert,
    /// last actions and step count.
    fn state(&self, o: &Obs, q: &Tensor, page: &Tensor, alert: &Tensor, taken: &Tensor) -> Tensor {
        let f = self.features;
        // The last actions: each its kind plus its words, averaged over the
        // actions taken so far (zero at the start of an episode).
        let hist = o.history_kind.size();
        let each = self.history_kinds.forward(&o.history_kind) + taken.view([hist[0], hist[1], -1]);
        let real = o.history_kind.ne(0).to_kind(Kind::Float).unsqueeze(-1);
        let history = (each * &real).sum_dim_intlist(1, false, Kind::Float)
            / real.sum_dim_intlist(1, false, Kind::Float).clamp_min(1.0);
        let inputs = Tensor::cat(
            &[
                q.shallow_clone(),
                when(f.page, page),
                when(f.page, alert),
                when(f.history, &history),
                when(f.history, &self.step_ids.forward(&o.steps)),
            ],
            -1,
        );
        self.state.forward(&inputs).tanh()
    }

    /// Action logits `[R, A]` (padding rows at [`MASKED_LOGIT`]) and values
    /// `[R]`. Instructions and (instruction, element) pairs are encoded once
    /// each, as [`Obs`] holds them, and gathered per row.
    pub fn forward(&self, o: &Obs) -> (Tensor, Tensor) {
        let f = self.features;
        let history_text = o.history_text.reshape([-1, o.history_text.size()[2]]);
        let [instruction, text, value, context, action_text, page, alert, taken] = self.bags([
            &o.instruction,
            &o.text,
            &o.value,
            &o.context,
            &o.action_text,
            &o.page,
            &o.alert,
            &history_text,
        ]);
        let qs = self.instruction.forward(&instruction).tanh(); // [N, H]
        let q = qs.index_select(0, &o.row_instruction); // [R, H]
        let qe = qs.index_select(0, &o.element_instruction); // [U, H]
        let s = self.state(o, &q, &page, &alert, &taken); // [R, H]
        let elements = Tensor::cat(
            &[
                text,
                value,
                when(f.context, &context),
                self.roles.forward(&o.role),
                when(f.context, &self.siblings.forward(&o.sibling)),
                o.flags.shallow_clone(),
                o.text_overlap.shallow_clone(),
                o.value_overlap.shallow_clone(),
                when(f.context, &o.context_overlap),
            ],
            -1,
        );
        let h = self
            .element_out
            .forward(&self.element_in.forward(&elements).relu())
            .relu(); // [U, H]
        let h = self
            .context
            .forward(&Tensor::cat(
                &[h.shallow_clone(), qe.shallow_clone(), &h * &qe],
                -1,
            ))
            .relu();
        // The mean over each row's elements, the padding index left out
        // (zero for a row without elements).
        let page = mean_rows(&with_padding(&h), &o.element_index, o.elements());
        let value = self
            .value_out
            .forward(&self.value_in.forward(&Tensor::cat(&[&s, &page], -1)).relu())
            .squeeze_dim(-1);
        let logits = self.score_actions(o, &h, &qs, &action_text, &s);
        (logits, value)
    }

    /// Each distinct action scored once from its element's vector, its
    /// text, kind, overlap and instruction, then gathered per row, plus the
    /// row's state against the action's key.
    fn score_actions(
        &self,
        o: &Obs,
        h: &Tensor,
        qs: &Tensor,
        texts: &Tensor,
        s: &Tensor,
    ) -> Tensor {
        // The padding row is zero after the layer, so an action without an
        // element gets no element term. Without the context features an
        // `answer` reads on its own, not at the element that shows it.
        let elements = with_padding(&self.action_element.forward(h)); // [U + 1, H]
        let target = if self.features.context {
            o.action_element.shallow_clone()
        } else {
            let answer = i64::from(crate::batch::kind_id(crate::env::ActionKind::Answer));
            o.action_element
                .masked_fill(&o.action_kind.eq(answer), o.elements())
        };
        let first = elements.index_select(0, &target)
            + self.action_text.forward(texts)
            + self.action_kind.forward(&o.action_kind)
            + self.action_overlap.forward(&o.action_overlap)
            + self
                .action_instruction
                .forward(qs)
                .index_select(0, &o.action_instruction); // [W, H]
        let z = first.relu();
        let flat = o.action_index.reshape([-1]);
        let scores = with_padding(&self.action_out.forward(&z)).reshape([-1]);
        let base = scores.index_select(0, &flat).view_as(&o.action_index); // [R, A]
                                                                           // ⟨query(s_r), key(z_w)⟩ for every row r and its actions w.
        let keys = with_padding(&self.action_key.forward(&z)).index_select(0, &flat);
        let (rows, width) = (o.action_index.size()[0], o.action_index.size()[1]);
        let keys = keys.view([rows, width, -1]); // [R, A, K]
        let query = self.state_query.forward(s).unsqueeze(-1); // [R, K, 1]
        let by_state = keys.bmm(&query).squeeze_dim(-1); // [R, A]
        (base + by_state).masked_fill(&o.action_mask.logical_not(), MASKED_LOGIT)
    }
}

/// `rows` `[U, H]` with a row of zeros appended: what the padding index of
/// [`Obs::element_index`] points at.
fn with_padding(rows: &Tensor) -> Tensor {
    let zero = Tensor::zeros([1, rows.size()[1]], (rows.kind(), rows.device()));
    Tensor::cat(&[rows, &zero], 0)
}

/// The mean of `table`'s rows picked by each row of `index` (`[R, E]`),
/// `padding` left out, as one `embedding_bag`.
fn mean_rows(table: &Tensor, index: &Tensor, padding: i64) -> Tensor {
    let width = index.size()[1].max(1);
    let bags = index.size()[0];
    let offsets = Tensor::arange_start_step(0, bags * width, width, (Kind::Int64, index.device()));
    let (mean, ..) = Tensor::embedding_bag_padding_idx(
        table,
        &index.reshape([-1]),
        &offsets,
        false,
        EMBEDDING_BAG_MEAN,
        false,
        None::<Tensor>,
        false,
        Some(padding),
    );
    mean
}

/// The number of trainable parameters in `vs`.
pub fn parameter_count(vs: &nn::VarStore) -> i64 {
    vs.trainable_variables()
        .iter()
        .map(Tensor::numel)
        .map(|n| n as i64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    #[test]
    fn inputs_switch_by_name_and_unknown_names_are_refused() {
        let d = Features::default();
        assert!(d.context && d.page && d.history);
        let off = d.without("context");
        assert_eq!(off.map(|f| f.context), Some(false));
        assert_eq!(off.and_then(|f| f.with("context")), Some(d));
        assert_eq!(d.without("history").map(|f| f.history), Some(false));
        assert_eq!(
            d.without("page").map(|f| (f.page, f.history)),
            Some((false, true))
        );
        assert!(d.with("colour").is_none() && d.without("").is_none());
    }

    #[test]
    fn the_policy_has_under_ten_million_parameters() {
        let vs = nn::VarStore::new(Device::Cpu);
        let _policy = Policy::new(&vs.root(), PolicyConfig::default());
        let n = parameter_count(&vs);
        assert!(n > 1_000_000 && n < 10_000_000, "{n}");
    }

    #[test]
    fn a_bag_is_the_mean_embedding_of_its_non_padding_tokens() {
        let vs = nn::VarStore::new(Device::Cpu);
        let policy = Policy::new(&vs.root(), PolicyConfig::default());
        // [2, 3, 4]: full, partly padded and all-padding texts.
        let ids = Tensor::from_slice(&[
            5i64, 9, 9, 100, 7, 0, 0, 0, 0, 0, 0, 0, //
            3, 0, 4, 0, 1, 2, 3, 4, 32767, 0, 0, 0,
        ])
        .view([2, 3, 4]);
        let mask = ids.ne(0).to_kind(Kind::Float).unsqueeze(-1);
        let sum = (policy.tokens.forward(&ids) * &mask).sum_dim_intlist(-2, false, Kind::Float);
        let expected = sum / mask.sum_dim_intlist(-2, false, Kind::Float).clamp_min(1.0);
        let bag = policy.bag(&ids);
        assert_eq!(bag.size(), [2, 3, 64]);
        assert!(bag.allclose(&expected, 1e-6, 1e-6, false));
        assert!(bag.get(0).get(2).abs().sum(Kind::Float).double_value(&[]) == 0.0);
    }

    #[test]
    fn a_checkpoint_loads_back_into_a_fresh_policy() {
        let dir = std::env::temp_dir().join(format!("wsite-policy-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("policy.safetensors");
        let a = nn::VarStore::new(Device::Cpu);
        let _pa = Policy::new(&a.root(), PolicyConfig::default());
        assert!(a.save(&path).is_ok());
        let mut b = nn::VarStore::new(Device::Cpu);
        let _pb = Policy::new(&b.root(), PolicyConfig::default());
        // Made to differ from `a`'s whatever the random state: another test
        // may seed torch's generator between the two initialisations.
        let mut before = b.variables()["tokens.weight"].shallow_clone();
        tch::no_grad(|| {
            let _ = before.fill_(0.25);
        });
        assert!(!before.equal(&a.variables()["tokens.weight"]));
        assert!(b.load(&path).is_ok());
        assert!(b.variables()["tokens.weight"].equal(&a.variables()["tokens.weight"]));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
