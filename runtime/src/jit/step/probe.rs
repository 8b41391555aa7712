//! Probing for searches: a candidate applied to the bytes without a render
//! or a header update, the bytes it can have written named, and the state
//! put back. A step writes in two ways only: a marker's compiled body,
//! through the helpers that log each write (`marker/body.rs`, recorded by
//! the [`UndoLog`] while probing), and `apply`'s navigation and form edits,
//! which touch the page, its arguments, the form variables and the visited
//! set and nothing else. [`FlatEnv::probe_writes`] names both, so the prover
//! restores and fingerprints a successor in time proportional to what the
//! step wrote rather than to the state (`prove::flat`).

use super::*;
use std::ops::Range;

/// The regions an action wrote outside a marker body's logged writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Wrote {
    /// The page, its arguments and the form variables (navigation clears
    /// them).
    pub(super) navigation: bool,
    /// The form variables.
    pub(super) forms: bool,
    /// Where the visited set's entries changed, when navigation added one
    /// (a page visited before leaves the set as it was).
    pub(super) visited_from: Option<usize>,
}

/// What probing a candidate found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub success: bool,
    /// The step was rejected (nothing changed).
    pub rejected: bool,
}

impl FlatEnv<'_> {
    /// For searches: applies candidate `index` to the bytes and says whether
    /// it succeeded or was rejected, as `step` would, but leaves the header
    /// alone and renders nothing, so the engine keeps the page structure and
    /// candidates of the state it was in. Only `state`, `probe_writes`,
    /// [`FlatEnv::unprobe`] (or `unprobe_writes`, or `unprobe_with`, which
    /// the prover uses) and `load_state` (or `unprobe_with` writing another
    /// state, then `show_loaded`) may follow: the prover reads the
    /// successor's bytes, then puts the state back and probes the next
    /// candidate.
    pub fn probe(&mut self, index: usize, pool: &mut TextPool) -> R<Probe> {
        // `let … else` rather than `ok_or`, which builds (and drops) the
        // error on every probe.
        let Some(&action) = self.actions.get(index) else {
            return Err(FlatError::NoCandidate(index));
        };
        let before = self.goal_before(pool)?;
        self.undo.record_writes(true);
        self.written = None;
        self.refusal = None;
        self.probed = true;
        self.wrote = Wrote::default();
        Ok(match self.apply(action, pool, Alert::Skip)? {
            Applied::Rejected(_) => Probe {
                success: self.goal_after(before, pool)?,
                rejected: true,
            },
            Applied::Answered(ok) => Probe {
                success: ok,
                rejected: false,
            },
            Applied::Done => Probe {
                success: self.goal_after(before, pool)?,
                rejected: false,
            },
        })
    }

    /// Why the marker the last probe clicked was refused (`None` when the
    /// probe clicked no marker, or the marker committed).
    pub fn probe_refusal(&self) -> Option<MarkerRejection> {
        self.refusal
    }

    /// Puts back the bytes of the state probed from (which the engine's page
    /// structure still describes), copying only what a step can have changed.
    pub fn unprobe(&mut self, bytes: &[u8]) -> R<()> {
        self.put_back_probed();
        self.written = None;
        copy_used(&mut self.state, bytes, &self.tails, &mut self.used)
    }

    /// The bytes are going back to the state probed from: what is known of
    /// it holds again. Without a probe out, they may be any state: nothing
    /// is known.
    fn put_back_probed(&mut self) {
        if !std::mem::take(&mut self.probed) {
            self.goal_now = None;
        }
    }

    /// After a probe from the state `before`: byte ranges that hold every
    /// byte the probe can have changed (overlapping, and more than were
    /// changed, at times) — each logged write of a committed marker body,
    /// and what `apply` wrote besides: on navigation the page, its
    /// arguments and the used prefix (in `before` or now) of the form
    /// variables, and, when the page was new to the visited set, its count
    /// and its entries from the one inserted on; on a form edit the form
    /// variables' used prefix. An action that did neither named none of
    /// those (a debug build's check that the put-back restores the whole
    /// state would catch a write this missed). Each range is given to
    /// `each`.
    pub fn probe_writes(&self, before: &[u8], each: impl FnMut(Range<usize>)) -> R<()> {
        self.named_writes(|list| entries::count_of(before, list), each)
    }

    /// The form variables' and the visited set's counts now, as
    /// [`FlatEnv::named_writes`] asks for them after the step.
    pub(super) fn used_counts(&self) -> R<[usize; 2]> {
        let l = self.layout;
        Ok([
            entries::count_of(&self.state, l.forms)?,
            entries::count_of(&self.state, l.visited)?,
        ])
    }

    /// [`FlatEnv::probe_writes`]' ranges, each given to `each`;
    /// `used_before`: a list's count before the action, asked only for a
    /// list the action wrote.
    pub(super) fn named_writes(
        &self,
        used_before: impl Fn(EntryList) -> R<usize>,
        mut each: impl FnMut(Range<usize>),
    ) -> R<()> {
        for &(at, len) in self.undo.written() {
            each(at..at + usize::from(len));
        }
        let l = self.layout;
        let Wrote {
            navigation,
            forms,
            visited_from,
        } = self.wrote;
        if navigation {
            each(l.page..l.page + 4);
            each(l.args.words..l.args.word_at(l.args.len));
            each(l.args.present..l.args.present_at(l.args.len));
        }
        let lists = [
            (l.forms, (navigation || forms).then_some(l.forms.entries)),
            (l.visited, visited_from),
        ];
        for (list, written) in lists {
            let Some(from) = written else {
                continue;
            };
            let used = used_before(list)?.max(entries::count_of(&self.state, list)?);
            each(list.count..list.count + 4);
            each(from..list.entry_at(used).max(from));
        }
        Ok(())
    }

    /// After [`FlatEnv::unprobe_with`] wrote another state of the search
    /// into the engine: its page rendered again, as `load_for_search`
    /// renders it.
    pub(crate) fn show_loaded(&mut self, pool: &mut TextPool, memo: Option<Recall<'_>>) -> R<()> {
        self.show(pool, memo)
    }

    /// Puts back the state probed from by `restore`, given the state's
    /// bytes, which must write back every byte the probe changed (the
    /// prover's debug builds compare the whole state after): the prover
    /// restores the words it found changed, which costs what changed where
    /// copying back every range written costs what a probe may have
    /// touched. The prover also writes the state it loads next this way
    /// ([`FlatEnv::show_loaded`]).
    pub(crate) fn unprobe_with(&mut self, restore: impl FnOnce(&mut [u8])) {
        self.put_back_probed();
        self.written = None;
        restore(&mut self.state);
    }

    /// Puts back the state probed from: `ranges` (what `probe_writes` gave)
    /// copied from `before`.
    pub fn unprobe_writes(&mut self, before: &[u8], ranges: &[Range<usize>]) -> R<()> {
        self.put_back_probed();
        self.written = None;
        if before.len() != self.state.len() {
            return Err(FlatError::StateSize {
                expected: self.state.len(),
                got: before.len(),
            });
        }
        for r in ranges {
            let (Some(dst), Some(src)) = (self.state.get_mut(r.clone()), before.get(r.clone()))
            else {
                return Err(FlatError::malformed(format!(
                    "bytes {}..{} are outside the state",
                    r.start, r.end
                )));
            };
            dst.copy_from_slice(src);
        }
        Ok(())
    }
}
