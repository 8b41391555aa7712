//! State identity (LANGUAGE §5.5): when two episode states count as the same.
//!
//! Every search over exact `Env` states (the prover's search, the distance
//! oracle of the decomposed reward, the task generator's exploration, the
//! process-reward sampler) tells states apart by the one 128-bit fingerprint
//! here, with or without the visited set as the task asks. This module owns
//! that rule and the hasher for sets of fingerprints, so that the searches
//! depend on it rather than on one another.

use crate::episode::State;
use crate::interp::state::Digest128;
use crate::ir::{self, Expr};
use std::hash::{Hash, Hasher};

/// Whether the searches of `task`'s instances must tell states apart by the
/// visited set: its goal or a progress predicate asks `visited` (§5.5).
pub(crate) fn tells_visited(task: &ir::TaskDef) -> bool {
    task.goal.as_ref().is_some_and(mentions_visited)
        || task.progress.iter().any(|(_, p)| mentions_visited(p))
}

/// The state's 128-bit fingerprint (§5.5): page, arguments, form variables,
/// database and session, plus the visited set when `with_visited`; never
/// step or alert. Every search over `Env` states tells them apart by it.
pub(crate) fn fingerprint(state: &State, with_visited: bool) -> u128 {
    let mut h = Digest128::new();
    state.world.hash(&mut h);
    state.nav.page.hash(&mut h);
    state.nav.args.hash(&mut h);
    state.forms.hash(&mut h);
    if with_visited {
        state.nav.visited.hash(&mut h);
    }
    h.finish128()
}

/// Whether an expression asks `visited`.
pub(crate) fn mentions_visited(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Visited(_)));
    found
}

/// For sets of fingerprints, which are already well mixed.
#[derive(Default)]
pub(crate) struct Prehashed(u64);

impl Hasher for Prehashed {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    fn write_u128(&mut self, i: u128) {
        // Both halves, so that sets stay spread whichever half varies.
        self.0 = (i as u64) ^ ((i >> 64) as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
