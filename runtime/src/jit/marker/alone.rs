//! The gate's check of a uniqueness invariant one added row at a time.
//!
//! `ir::unique` recognises `all v in T: count(w in T where w.a == v.a …) == 1`
//! and argues why, on a state where the invariant held, a commit that changed
//! no key field needs only its added rows checked. The site compiles that
//! per-row check (`PredicateRef::Alone`, the invariant's own body with `v` an
//! input), so it is the same code, with the same equality, as the whole one.
//!
//! Which states the invariant is known to hold on is the caller's to say,
//! as a [`Held`] mask. `JitSite::run_marker` says none, so it checks every
//! invariant whole on any bytes. The flat engine says which hold on its
//! instance's initial bytes (`FlatStart`) for as long as its state comes
//! from those bytes through committed steps: a commit that could break an
//! invariant is checked by the gate, so an invariant that held still holds.
//! Debug builds check every invariant whole as well and compare.

use super::*;
use crate::ir::unique::UniqueKey;

/// The invariants (bit `i` for invariant `i`, the first 64 only) known to
/// hold on the state a marker runs on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held(u64);

impl Held {
    /// Nothing known: every invariant is checked whole.
    pub const NONE: Held = Held(0);

    fn has(self, i: usize) -> bool {
        i < 64 && self.0 & (1 << i) != 0
    }
}

/// Each invariant's key and compiled per-row check, when it has the shape.
pub(crate) struct Unique {
    checks: Vec<Option<(UniqueKey, JitPredicate)>>,
}

impl Unique {
    /// `keys` per invariant, and the per-row checks of those with a key, in
    /// the same order.
    pub(crate) fn new(keys: Vec<Option<UniqueKey>>, checks: Vec<JitPredicate>) -> Unique {
        let mut checks = checks.into_iter();
        let checks = keys
            .into_iter()
            .map(|key| key.and_then(|k| checks.next().map(|c| (k, c))))
            .collect();
        Unique { checks }
    }

    /// Invariant `i`'s per-row check, compiled or not.
    pub(crate) fn check(&self, i: usize) -> Option<&JitPredicate> {
        self.checks.get(i)?.as_ref().map(|(_, c)| c)
    }

    /// Invariant `i`'s key and compiled check, when the commit `delta` on a
    /// state where it held may be checked row by row: no key field of the
    /// table was set.
    fn row_by_row(
        &self,
        i: usize,
        held: Held,
        delta: &Delta,
    ) -> Option<(&UniqueKey, &JitPredicate)> {
        if !held.has(i) {
            return None;
        }
        let (key, check) = self.checks.get(i)?.as_ref()?;
        let rekeyed = (delta.set_fields.iter()).any(|&(t, _, f)| t == key.table && key.is_key(f));
        (check.is_compiled() && !rekeyed).then_some((key, check))
    }
}

impl JitSite {
    /// Which invariants with a per-row check hold on `state`: the mask a
    /// flat engine starting from these bytes runs its markers with.
    pub(crate) fn invariants_held(&self, state: &[u8], pool: &mut TextPool) -> Held {
        let mut frame = JitFrame::default();
        if self.frame_into(&[], pool, &mut frame).is_err() {
            return Held::NONE;
        }
        let mut mask = 0u64;
        for i in 0..self.gate.unique.checks.len().min(64) {
            let checked = self.gate.unique.check(i).is_some_and(|c| c.is_compiled());
            let holds = checked
                && self
                    .invariant(i)
                    .is_some_and(|p| matches!(p.eval(state, &frame, pool), Ok(true)));
            if holds {
                mask |= 1 << i;
            }
        }
        Held(mask)
    }

    /// Whether invariant `i` holds on `state`, the bytes after a commit
    /// `delta` from a state where the invariants in `held` held: row by row
    /// where `ir::unique`'s argument allows, else whole. `frame` is the
    /// invariants' empty frame, lent to the per-row check and left empty.
    pub(crate) fn invariant_holds(
        &self,
        i: usize,
        held: Held,
        state: &[u8],
        delta: &Delta,
        frame: &mut JitFrame,
        pool: &mut TextPool,
    ) -> Result<bool, JitFault> {
        let whole = |pool: &mut TextPool, frame: &JitFrame| match self.invariant(i) {
            Some(pred) => pred.eval(state, frame, pool),
            None => Err(JitFault::NotCompiled),
        };
        let Some((key, check)) = self.gate.unique.row_by_row(i, held, delta) else {
            return whole(pool, frame);
        };
        let alone = self.added_rows_alone(key, check, state, delta, frame, pool);
        if cfg!(debug_assertions) {
            if let Ok(by_rows) = &alone {
                let at_once = matches!(whole(pool, frame), Ok(true));
                debug_assert_eq!(
                    *by_rows, at_once,
                    "invariant {i} checked row by row disagrees with the whole check"
                );
            }
        }
        alone
    }

    /// Whether each row of `key.table` that `delta` added, and that is there
    /// in `state`, is alone with its key.
    fn added_rows_alone(
        &self,
        key: &UniqueKey,
        check: &JitPredicate,
        state: &[u8],
        delta: &Delta,
        frame: &mut JitFrame,
        pool: &mut TextPool,
    ) -> Result<bool, JitFault> {
        let slot = usize::try_from(key.row).map_err(|_| JitFault::NotCompiled)?;
        let added = (delta.inserted.iter()).filter(|&&(t, id)| {
            t == key.table && find_row(state, &self.gate.layout, idx(t), id).is_some()
        });
        let mut result = Ok(true);
        for &(_, id) in added {
            set_row(frame, slot, Some(id));
            result = match check.eval(state, frame, pool) {
                Ok(true) => continue,
                // A fault is a violation, as for the whole invariant (which
                // would meet the same evaluation).
                Ok(false) | Err(JitFault::Fault(_)) => Ok(false),
                Err(other) => Err(other),
            };
            break;
        }
        set_row(frame, slot, None);
        result
    }
}

/// Puts row `id` in frame slot `slot` (or empties the slot).
fn set_row(frame: &mut JitFrame, slot: usize, id: Option<i64>) {
    if let Some([word, present]) = frame.cells.get_mut(2 * slot..2 * slot + 2) {
        *word = id.unwrap_or(0);
        *present = i64::from(id.is_some());
    }
    if let Some(tag) = frame.tags.get_mut(slot) {
        *tag = if id.is_some() { Tag::Row } else { Tag::None };
    }
}
