//! How the flat search stores the states it reaches (§5.5's levels), in as
//! few bytes as it can rebuild them from.
//!
//! A state reached is stored as its *step*: the words its step changed,
//! with their new values, and its parent's position in the level before
//! ([`Level`]). Most states of a large space are reached at the last level
//! searched and never expanded, and a step changes a few words where a
//! state differs from the initial one in tens, so this is what costs least
//! to write for every state.
//!
//! A state is rebuilt only when it is expanded, and levels are expanded in
//! order: its words that differ from the initial state are its parent's
//! (rebuilt when the parent was expanded, in [`Rebuilt`]) updated with its
//! step ([`differences_after`]). Each rebuilt state is kept until its own
//! level's states, which need it as their parent, have been expanded.

use super::fingerprint::word_at;
use std::ops::Range;

/// Words of states as two columns, word indices and values: 12 bytes a word
/// where `(usize, u64)` pairs take 16.
#[derive(Default)]
pub(super) struct Words {
    at: Vec<u32>,
    values: Vec<u64>,
}

impl Words {
    pub(super) fn len(&self) -> usize {
        self.at.len()
    }

    fn clear(&mut self) {
        self.at.clear();
        self.values.clear();
    }

    /// Appends word `j` holding `w`; `None` for an index past `u32`.
    pub(super) fn push(&mut self, j: usize, w: u64) -> Option<()> {
        self.at.push(u32::try_from(j).ok()?);
        self.values.push(w);
        Some(())
    }

    /// The words in `range`, as `(index, value)`.
    pub(super) fn get(
        &self,
        range: Range<usize>,
    ) -> Option<impl Iterator<Item = (usize, u64)> + Clone + '_> {
        let at = self.at.get(range.clone())?;
        let values = self.values.get(range)?;
        Some(at.iter().map(|&j| j as usize).zip(values.iter().copied()))
    }
}

/// A run of word lists, one per state, back to back.
#[derive(Default)]
pub(super) struct Lists {
    words: Words,
    ends: Vec<usize>,
}

impl Lists {
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    fn clear(&mut self) {
        self.words.clear();
        self.ends.clear();
    }

    /// List `i`, as `(index, value)` in index order.
    pub(super) fn get(&self, i: usize) -> Option<impl Iterator<Item = (usize, u64)> + Clone + '_> {
        let start = match i.checked_sub(1) {
            Some(before) => *self.ends.get(before)?,
            None => 0,
        };
        self.words.get(start..*self.ends.get(i)?)
    }

    /// Appends a list of `words`; `None` for an index past `u32`.
    pub(super) fn push(&mut self, words: impl Iterator<Item = (usize, u64)>) -> Option<()> {
        for (j, w) in words {
            self.words.push(j, w)?;
        }
        self.ends.push(self.words.len());
        Some(())
    }

    /// Appends the list of a state whose parent's list is `parent` and
    /// whose step changed `step` (see [`differences_after`]).
    fn push_after(
        &mut self,
        parent: impl Iterator<Item = (usize, u64)>,
        step: impl Iterator<Item = (usize, u64)>,
        root: &[u8],
    ) -> Option<()> {
        differences_after(parent, step, root, &mut self.words)?;
        self.ends.push(self.words.len());
        Some(())
    }
}

/// The parent of a state stored at the root level: none.
pub(super) const NO_PARENT: u32 = u32::MAX;

/// One level of the search, in the order its states were reached: each
/// state's step, its parent's position in the level before, and its
/// fingerprint.
#[derive(Default)]
pub(super) struct Level {
    pub(super) steps: Lists,
    pub(super) parents: Vec<u32>,
    pub(super) fingerprints: Vec<u128>,
}

impl super::bfs::Level for Level {
    fn clear(&mut self) {
        self.steps.clear();
        self.parents.clear();
        self.fingerprints.clear();
    }
}

impl Level {
    /// Stores a state reached from position `parent` of the level before
    /// by a step that changed `step` (`(index, after)`, in index order).
    pub(super) fn push(
        &mut self,
        parent: u32,
        step: impl Iterator<Item = (usize, u64)>,
        fingerprint: u128,
    ) -> Option<()> {
        self.steps.push(step)?;
        self.parents.push(parent);
        self.fingerprints.push(fingerprint);
        Some(())
    }
}

/// The states rebuilt so far: every state of the level being expanded, up
/// to the one expanded now, and every state of the level before (their
/// parents), each as its words that differ from the initial state.
#[derive(Default)]
pub(super) struct Rebuilt {
    parents: Lists,
    current: Lists,
}

impl Rebuilt {
    pub(super) fn clear(&mut self) {
        self.parents.clear();
        self.current.clear();
    }

    /// Rebuilds state `i` of `level` (`i` is 0 for the first state of a
    /// level, and one more at each call within it) and returns its words
    /// that differ from `root`. `None` when the level does not hold `i`,
    /// its parent was not rebuilt, or a word index is past `u32`.
    pub(super) fn rebuild(
        &mut self,
        level: &Level,
        i: usize,
        root: &[u8],
    ) -> Option<impl Iterator<Item = (usize, u64)> + '_> {
        if i == 0 {
            std::mem::swap(&mut self.parents, &mut self.current);
            self.current.clear();
        }
        if self.current.len() != i {
            return None;
        }
        let step = level.steps.get(i)?;
        match *level.parents.get(i)? {
            NO_PARENT => self.current.push_after(std::iter::empty(), step, root)?,
            p => {
                let parent = self.parents.get(p as usize)?;
                self.current.push_after(parent, step, root)?;
            }
        }
        self.current.get(i)
    }
}

/// The differences from `root` of a state whose parent differs from it at
/// `parent` and which differs from its parent at `step` (`(index, value)`;
/// both in index order), appended to `out` in index order: the parent's,
/// updated with the step's, a word changed back to its value in `root`
/// dropped. `None` for a word index past `u32`.
pub(super) fn differences_after(
    parent: impl Iterator<Item = (usize, u64)>,
    step: impl Iterator<Item = (usize, u64)>,
    root: &[u8],
    out: &mut Words,
) -> Option<()> {
    // A stepped word is kept only when it differs from `root`; a parent's
    // word the step left alone already does (every stored word does).
    let stepped = |out: &mut Words, j: usize, w: u64| match w != word_at(root, j) {
        true => out.push(j, w),
        false => Some(()),
    };
    let (mut parent, mut step) = (parent.peekable(), step.peekable());
    loop {
        match (parent.peek().copied(), step.peek().copied()) {
            (Some((ja, wa)), Some((jb, wb))) => {
                if ja < jb {
                    out.push(ja, wa)?;
                    parent.next();
                } else {
                    stepped(out, jb, wb)?;
                    step.next();
                    if ja == jb {
                        parent.next();
                    }
                }
            }
            (Some((ja, wa)), None) => {
                out.push(ja, wa)?;
                parent.next();
            }
            (None, Some((jb, wb))) => {
                stepped(out, jb, wb)?;
                step.next();
            }
            (None, None) => return Some(()),
        }
    }
}
