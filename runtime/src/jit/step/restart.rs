//! Restarting an episode by copying back only what it changed. A batch
//! restarts an environment every few steps, and copying every row in use of
//! the initial bytes (kilobytes) cost more cache misses than the steps
//! between restarts. So an engine keeps, from the moment its bytes are an
//! instance's initial ones, the set of 64-byte lines its steps have written
//! ([`Lines`]; every write a step makes is one the prover's probe names
//! too, `probe.rs`), and instances prepared together form a family whose
//! members each know the lines where their initial bytes differ from the
//! family's first. A restart within a family copies the written lines and
//! the lines where the old or the new instance differs from the first:
//! every other line holds the first instance's bytes in both. Any other
//! way of setting the bytes (a load, a probe) forgets the written set, and
//! the next restart copies every row in use; debug builds compare each
//! restart's bytes with the instance's initial ones.

use super::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// The bytes per line tracked.
pub(super) const LINE: usize = 64;

/// A set of 64-byte lines of a state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Lines {
    bits: Vec<u64>,
}

impl Lines {
    /// No line of a state of `bytes` bytes.
    pub(super) fn empty(bytes: usize) -> Lines {
        Lines {
            bits: vec![0; bytes.div_ceil(LINE).div_ceil(64)],
        }
    }

    /// The lines where `a` and `b` differ (`a` and `b` of one length).
    fn differing(a: &[u8], b: &[u8]) -> Lines {
        let mut lines = Lines::empty(a.len());
        for (k, (x, y)) in a.chunks(LINE).zip(b.chunks(LINE)).enumerate() {
            if x != y {
                lines.mark(k * LINE..k * LINE + 1);
            }
        }
        lines
    }

    /// Adds the lines that bytes `r` lie in (ignored past the state).
    pub(super) fn mark(&mut self, r: Range<usize>) {
        if r.is_empty() {
            return;
        }
        for line in r.start / LINE..=(r.end - 1) / LINE {
            if let Some(word) = self.bits.get_mut(line / 64) {
                *word |= 1 << (line % 64);
            }
        }
    }

    pub(super) fn clear(&mut self) {
        self.bits.fill(0);
    }

    /// Each line in either of `sets` and in `mask`, in order, with the
    /// bytes it covers. `mask` lists the items of `bits` to look at, each
    /// with its index and the lines to keep (a page's read lines).
    pub(super) fn each<'a>(
        sets: [&'a Lines; 2],
        mask: &'a [(usize, u64)],
    ) -> impl Iterator<Item = (usize, Range<usize>)> + 'a {
        let [a, b] = sets;
        mask.iter().flat_map(|&(w, m)| {
            let item = |l: &Lines| l.bits.get(w).copied().unwrap_or(0);
            let mut rest = (item(a) | item(b)) & m;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let line = w * 64 + rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    (line, line * LINE..(line + 1) * LINE)
                })
            })
        })
    }

    /// Copies from `src` into `dst` every line in any of `sets`.
    fn copy(dst: &mut [u8], src: &[u8], sets: [&Lines; 3]) {
        let words = sets.iter().map(|s| s.bits.len()).min().unwrap_or(0);
        for w in 0..words {
            let mut bits = sets.iter().fold(0, |acc, s| acc | s.bits[w]);
            while bits != 0 {
                let line = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let r = line * LINE..((line + 1) * LINE).min(dst.len());
                if let (Some(d), Some(s)) = (dst.get_mut(r.clone()), src.get(r)) {
                    d.copy_from_slice(s);
                }
            }
        }
    }
}

/// Instances prepared together: `id` names the family, `differs` the lines
/// where this instance's initial bytes differ from the family's first's.
#[derive(Debug)]
pub(super) struct Family {
    pub(super) id: u64,
    pub(super) differs: Lines,
    /// The family's first instance's initial bytes, and the texts its pool
    /// held once they were encoded (every text id in them is below).
    pub(super) first: Arc<[u8]>,
    pub(super) first_texts: usize,
}

impl FlatStart {
    /// Makes `starts` a family, so that an engine restarting from one of
    /// them onto another copies only what differs (see the module header).
    /// A start already in a family stays in it; starts of another size than
    /// the first are left out.
    pub fn join_family(starts: &[Arc<FlatStart>]) {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let Some(first) = starts.first() else {
            return;
        };
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let bytes: Arc<[u8]> = Arc::from(first.initial.as_slice());
        for start in starts {
            if start.initial.len() == first.initial.len() {
                let differs = Lines::differing(&first.initial, &start.initial);
                let family = Family {
                    id,
                    differs,
                    first: bytes.clone(),
                    first_texts: first.texts,
                };
                let _ = start.family.set(family);
            }
        }
    }
}

impl FlatEnv<'_> {
    /// Makes the bytes `self.start`'s initial ones, having been those of
    /// `old`'s initial ones plus the lines `self.written` names (when that
    /// is known): only those lines and the two instances' differences are
    /// copied when both are of one family, every row in use otherwise.
    pub(super) fn copy_initial_from(&mut self, old: &FlatStart) -> R<()> {
        let families = (old.family.get(), self.start.family.get());
        match (self.written.as_mut(), families) {
            (Some(written), (Some(was), Some(now))) if was.id == now.id => {
                Lines::copy(
                    &mut self.state,
                    &self.start.initial,
                    [written, &was.differs, &now.differs],
                );
                written.clear();
            }
            _ => {
                copy_used(
                    &mut self.state,
                    &self.start.initial,
                    &self.tails,
                    &mut self.used,
                )?;
                // Only a family's restarts can use what steps write.
                let tracked = self.start.family.get().is_some();
                self.written = tracked.then(|| Lines::empty(self.state.len()));
            }
        }
        if cfg!(debug_assertions) && self.state != self.start.initial {
            return Err(FlatError::malformed(
                "a restart left bytes of the last episode",
            ));
        }
        self.held = self.start.held;
        Ok(())
    }

    /// Adds what the step just applied wrote to `written`: the header, and
    /// every range [`FlatEnv::probe_writes`] would name. `used_before`: the
    /// form variables' and the visited set's counts before the step.
    pub(super) fn note_step_writes(&self, written: &mut Lines, used_before: [usize; 2]) -> R<()> {
        written.mark(0..ALERT_AT + 4);
        let [forms, visited] = used_before;
        let before = |list: EntryList| {
            Ok(if list == self.layout.forms {
                forms
            } else {
                visited
            })
        };
        self.named_writes(before, |r| written.mark(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marked_lines_cover_each_range_and_nothing_else() {
        let mut lines = Lines::empty(1000);
        lines.mark(63..65);
        lines.mark(640..641);
        lines.mark(900..900);
        lines.mark(5000..6000);
        let marked: Vec<usize> = (0..1000usize.div_ceil(LINE))
            .filter(|&l| lines.bits[l / 64] >> (l % 64) & 1 == 1)
            .collect();
        assert_eq!(marked, vec![0, 1, 10]);
        let a: Vec<u8> = (0..1000).map(|i| (i % 251) as u8).collect();
        let mut b = a.clone();
        b[130] ^= 1;
        b[999] ^= 1;
        let differs = Lines::differing(&a, &b);
        let mut dst = vec![0u8; 1000];
        Lines::copy(&mut dst, &b, [&differs, &Lines::empty(1000), &lines]);
        for (i, (&d, &s)) in dst.iter().zip(&b).enumerate() {
            let copied = [0, 1, 2, 10, 15].contains(&(i / LINE));
            assert_eq!(d, if copied { s } else { 0 }, "byte {i}");
        }
    }
}
