//! Task generation (issue 18; docs/tasks.md, "Generating tasks"): operation
//! tasks, multi-step workflows and retrieval tasks synthesised from a
//! lowered site, with varied instructions, for `wsitec tasks --generate`.
//!
//! [`explore`] walks the site's exact states (`Env`, §5.3) and records the
//! worlds marker clicks reach and the texts pages show; [`operation`] turns a
//! reached world into a goal over the database (§3 expressions), and
//! [`retrieval`] asks about the seed data where a page shows the answer
//! (§5.2, §5.3); [`phrasing`] writes instructions from several sentence
//! skeletons per family; [`source`] writes `.wsite` task declarations
//! (§2.4). Candidates are proposals only: the compiler's orchestration
//! (`wsitec::taskgen`) appends them to the site, checks, lowers and proves
//! each (§5.5) and emits only those proven feasible, with the [`keys`] every
//! successful episode must use. Pure and deterministic: the same program,
//! request and seed give the same candidates in the same order.

mod error;
pub mod explore;
pub mod keys;
pub mod operation;
pub mod phrasing;
pub mod retrieval;
pub mod source;

pub use error::{KeyNodesError, TaskGenError};
pub use keys::{element_node, key_nodes, page_node, KeyNode, KeyNodes};
pub use phrasing::{Family, Slots};
pub use source::Check;

use crate::ir;

/// Which tasks to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Operation,
    Retrieval,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Operation => "operation",
            Kind::Retrieval => "retrieval",
        }
    }

    pub fn of(family: Family) -> Kind {
        if family.is_retrieval() {
            Kind::Retrieval
        } else {
            Kind::Operation
        }
    }
}

/// An inclusive range a difficulty measure must fall in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    pub min: u32,
    pub max: u32,
}

impl Band {
    pub const ANY: Band = Band {
        min: 0,
        max: u32::MAX,
    };

    pub fn contains(self, v: u32) -> bool {
        (self.min..=self.max).contains(&v)
    }
}

/// WebFactory's three difficulty axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knobs {
    /// Data complexity: rows and session variables a goal involves, or the
    /// conditions a question combines (1 a single value; 2 a comparison, a
    /// count or a lookup; 3 a comparison within a group).
    pub data: Band,
    /// UI depth: the steps of the shortest path the exploration found.
    pub depth: Band,
    /// Workflow length: the marker clicks in order (0 for retrieval).
    pub workflow: Band,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            data: Band::ANY,
            depth: Band::ANY,
            workflow: Band::ANY,
        }
    }
}

/// The presets of `--difficulty`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
}

impl Difficulty {
    pub fn knobs(self) -> Knobs {
        let band = |min, max| Band { min, max };
        match self {
            Difficulty::Easy => Knobs {
                data: band(0, 1),
                depth: band(0, 4),
                workflow: band(0, 1),
            },
            Difficulty::Medium => Knobs {
                data: band(1, 2),
                depth: band(3, 8),
                workflow: band(0, 2),
            },
            Difficulty::Hard => Knobs {
                data: band(2, u32::MAX),
                depth: band(5, u32::MAX),
                workflow: band(0, u32::MAX),
            },
        }
    }
}

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Only this kind; both when `None`.
    pub kind: Option<Kind>,
    pub knobs: Knobs,
    pub seed: u64,
    /// How far the exploration goes.
    pub limits: explore::Limits,
}

impl Default for Request {
    fn default() -> Request {
        Request {
            kind: None,
            knobs: Knobs::default(),
            seed: 0,
            limits: explore::Limits {
                states: 20_000,
                depth: 10,
            },
        }
    }
}

/// A proposed task, before it is proven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub family: Family,
    pub slots: Slots,
    pub check: Check,
    /// Texts to type that the instruction does not quote.
    pub values: Vec<String>,
    /// The three difficulty measures (see [`Knobs`]).
    pub data: u32,
    pub depth: u32,
    pub workflow: u32,
    /// Retrieval: the canonical answer and equivalent phrasings.
    pub expected: Vec<String>,
}

impl Candidate {
    pub fn kind(&self) -> Kind {
        Kind::of(self.family)
    }

    /// Complex (docs/tasks.md): a workflow of two markers or more, a
    /// retrieval that combines conditions (comparison, count, lookup), or a
    /// shortest path of 6 steps or more.
    pub fn is_complex(&self) -> bool {
        self.workflow >= 2 || self.data >= 2 && self.family.is_retrieval() || self.depth >= 6
    }

    /// The horizon a draft is proven with: the exploration's path with
    /// room to spare (half again, at least 4 steps). The emitted task gets
    /// [`emitted_horizon`] of its shortest witness, which is no longer.
    pub fn horizon(&self) -> u32 {
        self.depth + (self.depth / 2).max(4)
    }
}

/// The horizon an emitted task declares: its shortest witness plus half of
/// it, at least 2 steps more — room for an agent to stray, while keeping
/// the proofs behind key nodes (exhaustive searches to the horizon) small.
pub fn emitted_horizon(witness: usize) -> u32 {
    let w = u32::try_from(witness).unwrap_or(u32::MAX);
    w.saturating_add(2)
}

/// Every candidate the request allows, in the order they should be tried:
/// families taken in turn, each family's candidates shuffled by the seed.
pub fn candidates(
    program: &ir::Program,
    request: &Request,
) -> Result<Vec<Candidate>, TaskGenError> {
    let explored = explore::explore(program, request.limits).map_err(TaskGenError::Unplayable)?;
    let mut all = operation::candidates(program, &explored);
    all.extend(retrieval::candidates(program, &explored));
    let knobs = request.knobs;
    let mut rng = Rng(request.seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut queues: Vec<Vec<Candidate>> = Family::ALL
        .iter()
        .map(|f| {
            let mut q: Vec<Candidate> = all
                .iter()
                .filter(|c| c.family == *f)
                .filter(|c| request.kind.is_none_or(|k| k == c.kind()))
                .filter(|c| knobs.data.contains(c.data))
                .filter(|c| knobs.depth.contains(c.depth))
                .filter(|c| knobs.workflow.contains(c.workflow))
                .cloned()
                .collect();
            rng.shuffle(&mut q);
            q.reverse();
            q
        })
        .collect();
    let mut out = Vec::new();
    while queues.iter().any(|q| !q.is_empty()) {
        for q in &mut queues {
            out.extend(q.pop());
        }
    }
    Ok(out)
}

/// Assigns sentence skeletons: each task gets one no task has used yet
/// (drawn by the seed), or, once its family's are all used, the least used.
#[derive(Clone, Debug, Default)]
pub struct Skeletons {
    used: Vec<(Family, usize, u32)>,
    rng: Rng,
}

impl Skeletons {
    pub fn new(seed: u64) -> Skeletons {
        Skeletons {
            used: Vec::new(),
            rng: Rng(seed ^ 0x2545_f491_4f6c_dd1d),
        }
    }

    /// The skeleton index for a task of `family`, now counted as used.
    pub fn take(&mut self, family: Family) -> usize {
        let n = family.skeletons().len();
        let uses = |k: usize| {
            self.used
                .iter()
                .find(|(f, i, _)| *f == family && *i == k)
                .map_or(0, |(_, _, u)| *u)
        };
        let least = (0..n).map(uses).min().unwrap_or(0);
        let free: Vec<usize> = (0..n).filter(|k| uses(*k) == least).collect();
        let pick = free.get(self.rng.below(free.len())).copied().unwrap_or(0);
        match self
            .used
            .iter_mut()
            .find(|(f, i, _)| *f == family && *i == pick)
        {
            Some(entry) => entry.2 += 1,
            None => self.used.push((family, pick, 1)),
        }
        pick
    }

    /// Gives back a skeleton taken for a task that was not emitted.
    pub fn release(&mut self, family: Family, index: usize) {
        if let Some(entry) = self
            .used
            .iter_mut()
            .find(|(f, i, _)| *f == family && *i == index)
        {
            entry.2 = entry.2.saturating_sub(1);
        }
    }

    /// Skeletons used by more than one task.
    pub fn reused(&self) -> usize {
        self.used.iter().filter(|(_, _, u)| *u > 1).count()
    }
}

/// `op.3`: a skeleton's id.
pub fn skeleton_id(family: Family, index: usize) -> String {
    format!("{}.{}", family.name(), index + 1)
}

/// A small seeded generator (splitmix64): no unseeded randomness (§5.6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform-enough in `0..n` (`0` when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}
