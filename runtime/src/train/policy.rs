//! The policy: a small network (about 2.5M parameters) that reads the
//! instruction and the page and scores every candidate action, with a value
//! head for PPO.
//!
//! It sees only what transfers between sites: hashed text tokens (a bag of
//! embeddings per text), element roles and flags, action kinds, and how much
//! of a text also occurs in the instruction (the grounding signal: "add the
//! wool scarf to the cart" → the "Add to cart" button whose row reads "Wool
//! scarf"). No site-specific id reaches it, so it can act on sites it never
//! saw. Besides the elements it reads the context a person uses ([`Features`]):
//! what each element sits under and where it is, what page this is and what
//! the alert says, and what it did so far (the last actions and the step
//! count); each can be switched off for ablations.
//!
//! Shapes: `R` rows, `E` elements, `A` actions, `D` embedding width, `H`
//! hidden width.

use super::obs::{Obs, MAX_STEP_ID};
use crate::batch::MAX_SIBLING;
use tch::nn::{self, Module};
use tch::{Kind, Tensor};

/// The context the policy reads besides the elements themselves; each on by
/// default, off for an ablation (its inputs are then zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Features {
    /// What each element sits under (its row's first text or the heading
    /// above), its place in its row and on the page, and where an `answer`
    /// is shown.
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
        match name {
            "context" => Some(Features {
                context: false,
                ..self
            }),
            "page" => Some(Features {
                page: false,
                ..self
            }),
            "history" => Some(Features {
                history: false,
                ..self
            }),
            _ => None,
        }
    }
}

/// Sizes of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PolicyConfig {
    /// Hashed token buckets (the batch's `ObsSpec::vocab`).
    pub vocab: i64,
    pub embed: i64,
    pub hidden: i64,
    pub features: Features,
}

impl Default for PolicyConfig {
    fn default() -> PolicyConfig {
        PolicyConfig {
            vocab: 1 << 15,
            embed: 64,
            hidden: 128,
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
    // What the page and the episode so far say: instruction, page label,
    // alert, history and step count, in one state vector.
    state: nn::Linear,
    element_in: nn::Linear,
    element_out: nn::Linear,
    context: nn::Linear,
    // The first action layer, split by input so that the element part runs
    // once per element rather than once per action, and the state part once
    // per row.
    action_element: nn::Linear,
    action_text: nn::Linear,
    action_kind: nn::Embedding,
    action_overlap: nn::Linear,
    action_state: nn::Linear,
    action_out: nn::Linear,
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
            // text, value, context, role, sibling; three flags, three
            // overlaps, the position
            element_in: lin("element_in", 5 * d + 7, h),
            element_out: lin("element_out", h, h),
            // element, state, their product
            context: lin("context", 3 * h, h),
            action_element: lin("action_element", h, h),
            action_text: nn::linear(root / "action_text", d, h, no_bias),
            action_kind: nn::embedding(root / "action_kind", KIND_IDS, h, Default::default()),
            action_overlap: nn::linear(root / "action_overlap", 1, h, no_bias),
            action_state: nn::linear(root / "action_state", h, h, no_bias),
            action_out: lin("action_out", h, 1),
            value_in: lin("value_in", 2 * h, h),
            value_out: lin("value_out", h, 1),
        }
    }

    /// The mean embedding of the non-padding tokens of `ids` (`[…, L]`;
    /// zero for a text of padding only), as one `embedding_bag`: the
    /// `[…, L, D]` embeddings are never materialised, which on a page of 64
    /// elements is most of the forward pass's memory traffic.
    fn bag(&self, ids: &Tensor) -> Tensor {
        let shape = ids.size();
        let width = shape.last().copied().unwrap_or(1).max(1);
        let bags = ids.numel() as i64 / width;
        let offsets =
            Tensor::arange_start_step(0, bags * width, width, (Kind::Int64, ids.device()));
        let (mean, ..) = Tensor::embedding_bag_padding_idx(
            &self.tokens.ws,
            &ids.reshape([-1]),
            &offsets,
            false,
            EMBEDDING_BAG_MEAN,
            false,
            None::<Tensor>,
            false,
            Some(0),
        );
        let mut out = shape[..shape.len() - 1].to_vec();
        out.push(mean.size()[1]);
        mean.reshape(out)
    }

    /// `[R, H]`: the instruction read together with the page's label, the
    /// alert, the last actions and the step count.
    fn state(&self, o: &Obs) -> Tensor {
        let f = self.features;
        let q = self.instruction.forward(&self.bag(&o.instruction)).tanh();
        // The last actions: each its kind plus its words, averaged over the
        // actions taken so far (zero at the start of an episode).
        let taken = o.history_kind.ne(0).to_kind(Kind::Float).unsqueeze(-1); // [R, H, 1]
        let each = self.history_kinds.forward(&o.history_kind) + self.bag(&o.history_text);
        let history = (each * &taken).sum_dim_intlist(1, false, Kind::Float)
            / taken.sum_dim_intlist(1, false, Kind::Float).clamp_min(1.0);
        let inputs = Tensor::cat(
            &[
                q,
                when(f.page, &self.bag(&o.page)),
                when(f.page, &self.bag(&o.alert)),
                when(f.history, &history),
                when(f.history, &self.step_ids.forward(&o.steps)),
            ],
            -1,
        );
        self.state.forward(&inputs).tanh()
    }

    /// Action logits `[R, A]` (padding rows at [`MASKED_LOGIT`]) and values `[R]`.
    pub fn forward(&self, o: &Obs) -> (Tensor, Tensor) {
        let f = self.features;
        let s = self.state(o); // [R, H]
        let elements = Tensor::cat(
            &[
                self.bag(&o.text),
                self.bag(&o.value),
                when(f.context, &self.bag(&o.context)),
                self.roles.forward(&o.role),
                when(f.context, &self.siblings.forward(&o.sibling)),
                o.flags.shallow_clone(),
                o.text_overlap.shallow_clone(),
                o.value_overlap.shallow_clone(),
                when(f.context, &o.context_overlap),
                when(f.context, &o.position),
            ],
            -1,
        );
        let h = self
            .element_out
            .forward(&self.element_in.forward(&elements).relu())
            .relu(); // [R, E, H]
        let se = s.unsqueeze(1).expand_as(&h);
        let h = self
            .context
            .forward(&Tensor::cat(
                &[h.shallow_clone(), se.shallow_clone(), &h * &se],
                -1,
            ))
            .relu();
        let emask = o.element_mask.to_kind(Kind::Float).unsqueeze(-1);
        let page = (&h * &emask).sum_dim_intlist(1, false, Kind::Float)
            / emask.sum_dim_intlist(1, false, Kind::Float).clamp_min(1.0);
        let value = self
            .value_out
            .forward(&self.value_in.forward(&Tensor::cat(&[&s, &page], -1)).relu())
            .squeeze_dim(-1);
        let logits = self.score_actions(o, &h, &s);
        (logits, value)
    }

    fn score_actions(&self, o: &Obs, h: &Tensor, s: &Tensor) -> Tensor {
        let elements = self.action_element.forward(h); // [R, E, H]
        let hidden = elements.size()[2];
        // An `answer` row points at the element that shows it; without the
        // context features it reads on its own, as it did before.
        let is_answer = o.action_kind.eq(i64::from(crate::batch::kind_id(
            crate::env::ActionKind::Answer,
        )));
        let element = if self.features.context {
            o.action_element.shallow_clone()
        } else {
            o.action_element.masked_fill(&is_answer, -1)
        };
        let has_element = element.ge(0).to_kind(Kind::Float).unsqueeze(-1);
        let rows = element
            .clamp_min(0)
            .unsqueeze(-1)
            .expand([-1, -1, hidden], false);
        let first = elements.gather(1, &rows, false) * has_element
            + self.action_text.forward(&self.bag(&o.action_text))
            + self.action_kind.forward(&o.action_kind)
            + self.action_overlap.forward(&o.action_overlap)
            + self.action_state.forward(s).unsqueeze(1);
        let logits = self.action_out.forward(&first.relu()).squeeze_dim(-1);
        logits.masked_fill(&o.action_mask.logical_not(), MASKED_LOGIT)
    }
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
        let before = b.variables()["tokens.weight"].shallow_clone();
        assert!(!before.equal(&a.variables()["tokens.weight"]));
        assert!(b.load(&path).is_ok());
        assert!(b.variables()["tokens.weight"].equal(&a.variables()["tokens.weight"]));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
