//! The flat search's fingerprints, updated as cells change instead of
//! recomputed. A state's fingerprint is the sum, modulo 2¹²⁸, of a 128-bit
//! hash of (index, value) over the non-zero 8-byte words of the bytes that
//! tell states apart (the identity region, and the visited set when the task
//! reads it; bytes of a boundary word outside the region count as zero).
//! Because the layout's encoding is canonical (unused capacity zero), two
//! states have equal regions exactly when they have equal words, so the
//! fingerprint tells apart exactly the states that differ in the region. A
//! successor's is its parent's with the terms of the words its step changed
//! swapped, which costs what the step wrote, not what the state holds; the
//! terms of recently swapped words are remembered, exactly, by index and
//! value.
//!
//! Collisions: for two different regions the difference of the sums is a
//! sum of differences of hashes of distinct (index, value) pairs, which for
//! a hash that behaves randomly on such pairs is itself uniform, so two
//! states collide with odds 2⁻¹²⁸, as with one hash of the whole region
//! (`FINGERPRINT_BITS`). Sums of this kind are weak against an adversary
//! choosing states to collide; a search meets the states its site produces.

use std::ops::Range;
use xxhash_rust::xxh3::xxh3_128;

use crate::layout::WORD;

/// Word `j` of `bytes` (little-endian), bytes past the end taken as zero.
pub(super) fn word_at(bytes: &[u8], j: usize) -> u64 {
    let at = j * WORD;
    let mut w = [0u8; WORD];
    if let Some(whole) = bytes.get(at..at + WORD) {
        w.copy_from_slice(whole);
    } else if let Some(part) = bytes.get(at..) {
        w[..part.len()].copy_from_slice(part);
    }
    u64::from_le_bytes(w)
}

/// Writes word `j` of `bytes` (the bytes that exist of it).
pub(super) fn set_word(bytes: &mut [u8], j: usize, word: u64) {
    let at = j * WORD;
    // A whole word is one fixed-size store; only the last word of a state
    // whose size is not a multiple of 8 is cut (and costs a copy call).
    if let Some(dst) = bytes.get_mut(at..at + WORD) {
        dst.copy_from_slice(&word.to_le_bytes());
    } else if let Some(dst) = bytes.get_mut(at..) {
        let n = dst.len();
        dst.copy_from_slice(&word.to_le_bytes()[..n]);
    }
}

/// The words a step changed: `(j, before, after)` for each word that
/// differs, found from ranges that hold every changed byte; in the order
/// the ranges name them until [`Changes::in_order`] sorts them. A
/// fingerprint sums the words' terms in any order; only a state kept (about
/// half of those probed) needs its words in index order.
#[derive(Default)]
pub(super) struct Changes {
    pub(super) words: Vec<(usize, u64, u64)>,
    /// `stamp[j] == generation` when word `j` was already looked at (the
    /// written ranges overlap).
    stamp: Vec<u32>,
    generation: u32,
}

impl Changes {
    /// The words that differ between `before` and `after` within
    /// `ranges`.
    #[cfg(test)]
    pub(super) fn collect(&mut self, before: &[u8], after: &[u8], ranges: &[Range<usize>]) {
        self.begin(before.len());
        for r in ranges {
            self.look_in(before, after, r.clone());
        }
    }

    /// Forgets the words collected, to collect those of states of `len`
    /// bytes ([`Changes::look_in`]).
    pub(super) fn begin(&mut self, len: usize) {
        self.words.clear();
        if self.stamp.len() < len.div_ceil(WORD) {
            self.stamp = vec![0; len.div_ceil(WORD)];
            self.generation = 0;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
    }

    /// Notes the words within `r` that differ between `before` and `after`
    /// (each word once per collection, however the ranges overlap).
    #[inline]
    pub(super) fn look_in(&mut self, before: &[u8], after: &[u8], r: Range<usize>) {
        // Most ranges are one logged write inside one word (a field, a
        // count, the page id): looked at without the general loop's set-up.
        let first = r.start / WORD;
        if r.start < r.end && (r.end - 1) / WORD == first {
            self.look_at(first, before, after);
        } else {
            self.look_in_words(before, after, r);
        }
    }

    /// [`Changes::look_in`] for a range of several words (or none).
    fn look_in_words(&mut self, before: &[u8], after: &[u8], r: Range<usize>) {
        let words = r.start / WORD..r.end.div_ceil(WORD);
        let bytes = words.start * WORD..words.end * WORD;
        // Whole words on both sides (all but a state's cut last word):
        // compared in 8-byte chunks, without a bounds check each.
        if let (Some(b), Some(a), Some(marks)) = (
            before.get(bytes.clone()),
            after.get(bytes),
            self.stamp.get_mut(words.clone()),
        ) {
            let pairs = b.chunks_exact(WORD).zip(a.chunks_exact(WORD));
            for ((j, mark), (b, a)) in words.zip(marks.iter_mut()).zip(pairs) {
                if *mark == self.generation {
                    continue;
                }
                *mark = self.generation;
                let (old, new) = (word_at(b, 0), word_at(a, 0));
                if old != new {
                    self.words.push((j, old, new));
                }
            }
            return;
        }
        for j in words {
            self.look_at(j, before, after);
        }
    }

    /// Word `j`, unless already looked at in this collection: noted when it
    /// differs.
    #[inline]
    fn look_at(&mut self, j: usize, before: &[u8], after: &[u8]) {
        let Some(mark) = self.stamp.get_mut(j) else {
            return;
        };
        if *mark == self.generation {
            return;
        }
        *mark = self.generation;
        let (old, new) = (word_at(before, j), word_at(after, j));
        if old != new {
            self.words.push((j, old, new));
        }
    }

    /// The words, in index order.
    pub(super) fn in_order(&mut self) -> &[(usize, u64, u64)] {
        // Writes come mostly in index order already.
        if !self.words.is_sorted_by_key(|&(j, _, _)| j) {
            self.words.sort_unstable_by_key(|&(j, _, _)| j);
        }
        &self.words
    }
}

/// Fingerprints over one byte region of a state.
pub(super) struct Fingerprint {
    region: Range<usize>,
    /// The words wholly inside the region, whose mask is every bit: most
    /// changed words, which then skip computing it.
    whole: Range<usize>,
    /// Terms computed lately, by `(index, value)`: a search swaps the same
    /// few words' terms over and over (a page id, a form entry, a status),
    /// and a lookup costs a fraction of a hash. Exact: an entry answers only
    /// for its own index and value.
    memo: Box<[Memo]>,
}

/// One remembered term: word `j` holding `word` has share `term`.
#[derive(Clone, Copy)]
struct Memo {
    j: u64,
    word: u64,
    term: u128,
}

/// How many terms are remembered (a power of two; 32 KiB).
const MEMO_SLOTS: usize = 1024;

impl Fingerprint {
    pub(super) fn new(region: Range<usize>) -> Fingerprint {
        // No word has index `u64::MAX`: every slot starts empty.
        let empty = Memo {
            j: u64::MAX,
            word: 0,
            term: 0,
        };
        Fingerprint {
            whole: region.start.div_ceil(WORD)..region.end / WORD,
            region,
            memo: vec![empty; MEMO_SLOTS].into_boxed_slice(),
        }
    }

    /// The fingerprint of `state`, computed from every word.
    pub(super) fn of(&self, state: &[u8]) -> u128 {
        let words = self.region.start / WORD..self.region.end.div_ceil(WORD);
        let edge = |j: usize| term(j, word_at(state, j) & self.mask(j));
        // The words wholly inside the region, read in 8-byte chunks: most
        // of a layout is unused capacity, whose zero words add nothing and
        // are passed over at the cost of a compare.
        // (A region inside one word has no whole word, and an inverted
        // range: `get` answers `None`, and every word is an edge word.)
        let whole = self.whole.start * WORD..self.whole.end * WORD;
        let Some(inner) = state.get(whole) else {
            return words.fold(0u128, |sum, j| sum.wrapping_add(edge(j)));
        };
        let inside = (inner.chunks_exact(WORD).zip(self.whole.clone()))
            .map(|(w, j)| (j, word_at(w, 0)))
            .filter(|&(_, w)| w != 0)
            .fold(0u128, |sum, (j, w)| sum.wrapping_add(term(j, w)));
        (words.start..self.whole.start)
            .chain(self.whole.end..words.end)
            .fold(inside, |sum, j| sum.wrapping_add(edge(j)))
    }

    /// The fingerprint of a state whose parent's is `parent` and whose
    /// words differ from the parent's exactly at `changed`.
    pub(super) fn after(&mut self, parent: u128, changed: &[(usize, u64, u64)]) -> u128 {
        changed.iter().fold(parent, |sum, &(j, old, new)| {
            let keep = self.mask(j);
            let (old, new) = (old & keep, new & keep);
            // A word that changed only outside the region (the header, a
            // region's edge) changes no term: skip its two hashes.
            if old == new {
                return sum;
            }
            sum.wrapping_sub(self.remembered(j, old))
                .wrapping_add(self.remembered(j, new))
        })
    }

    /// `term(j, word)`, from the memo when it holds it.
    fn remembered(&mut self, j: usize, word: u64) -> u128 {
        if word == 0 {
            return 0;
        }
        let j = j as u64;
        // A multiplicative hash of both halves picks the slot.
        let mixed = (word ^ j.rotate_left(32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = (mixed >> 54) as usize & (MEMO_SLOTS - 1);
        let Some(m) = self.memo.get_mut(slot) else {
            return term(j as usize, word);
        };
        if m.j != j || m.word != word {
            *m = Memo {
                j,
                word,
                term: term(j as usize, word),
            };
        }
        m.term
    }

    /// Word `j`'s value `word` with its bytes outside the region zeroed.
    #[cfg(test)]
    fn masked(&self, j: usize, word: u64) -> u64 {
        word & self.mask(j)
    }

    /// The bits of word `j` that lie in the region (little-endian: byte `k`
    /// of the word is bits `8k..8k + 8`).
    fn mask(&self, j: usize) -> u64 {
        if self.whole.contains(&j) {
            return u64::MAX;
        }
        let at = j * WORD;
        // The word's bytes `lo..hi` are in the region.
        let lo = self.region.start.saturating_sub(at).min(WORD);
        let hi = self.region.end.saturating_sub(at).min(WORD);
        if lo >= hi {
            return 0;
        }
        let below_hi = match hi {
            WORD => u64::MAX,
            _ => (1u64 << (8 * hi)) - 1,
        };
        // `lo < hi <= WORD`, so the shift is below 64.
        below_hi & (u64::MAX << (8 * lo))
    }
}

/// Word `j`'s share of a fingerprint: nothing for a zero word, so that the
/// unused capacity of a layout costs nothing.
fn term(j: usize, word: u64) -> u128 {
    if word == 0 {
        return 0;
    }
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&(j as u64).to_le_bytes());
    key[8..].copy_from_slice(&word.to_le_bytes());
    xxh3_128(&key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small xorshift, for reproducible random states.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn remembered_terms_are_the_terms() {
        // Few indices and values, so slots are shared and entries evicted
        // and refilled; zero, whose term is nothing, included.
        let mut f = Fingerprint::new(0..64);
        let mut seed = 0x2545_f491_4f6c_dd1d;
        for _ in 0..50_000 {
            let j = (next(&mut seed) % 3_000) as usize;
            let word = next(&mut seed) % 5_000;
            assert_eq!(f.remembered(j, word), term(j, word), "word {j} = {word}");
        }
    }

    #[test]
    fn updates_equal_recomputing_for_random_writes() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for round in 0..2_000 {
            let size = 64 + (next(&mut seed) % 200) as usize;
            let lo = (next(&mut seed) % 40) as usize;
            let hi = size - (next(&mut seed) % 40) as usize;
            let mut f = Fingerprint::new(lo..hi);
            let mut changes = Changes::default();
            let before: Vec<u8> = (0..size)
                .map(|_| {
                    if next(&mut seed).is_multiple_of(3) {
                        0
                    } else {
                        next(&mut seed) as u8
                    }
                })
                .collect();
            let mut after = before.clone();
            let mut changed = Vec::new();
            for _ in 0..(next(&mut seed) % 6) {
                let at = (next(&mut seed) as usize) % size;
                let len = 1 + (next(&mut seed) as usize) % 9;
                let end = (at + len).min(size);
                for b in &mut after[at..end] {
                    *b = if next(&mut seed).is_multiple_of(4) {
                        0
                    } else {
                        next(&mut seed) as u8
                    };
                }
                changed.push(at..end);
                // Overlaps and ranges that changed nothing are allowed.
                if round % 2 == 0 {
                    changed.push(at..end);
                }
            }
            let parent = f.of(&before);
            changes.collect(&before, &after, &changed);
            assert_eq!(
                f.after(parent, &changes.words),
                f.of(&after),
                "round {round}"
            );
            let mut rebuilt = before.clone();
            for &(j, old, new) in &changes.words {
                assert_eq!(word_at(&rebuilt, j), old);
                set_word(&mut rebuilt, j, new);
            }
            assert_eq!(rebuilt, after, "round {round}");
        }
    }

    /// The byte-by-byte definition of [`Fingerprint::masked`].
    fn masked_bytewise(region: &Range<usize>, j: usize, word: u64) -> u64 {
        let mut bytes = word.to_le_bytes();
        for (k, b) in bytes.iter_mut().enumerate() {
            if !region.contains(&(j * WORD + k)) {
                *b = 0;
            }
        }
        u64::from_le_bytes(bytes)
    }

    #[test]
    fn masks_keep_exactly_the_bytes_in_the_region() {
        let mut seed = 0x2545_f491_4f6c_dd1d;
        for start in 0..40 {
            for end in start..48 {
                let f = Fingerprint::new(start..end);
                for j in 0..7 {
                    let word = next(&mut seed);
                    assert_eq!(
                        f.masked(j, word),
                        masked_bytewise(&(start..end), j, word),
                        "region {start}..{end}, word {j}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_whole_fingerprint_is_the_sum_of_its_words_terms() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for start in 0..30 {
            for end in start..60 {
                let f = Fingerprint::new(start..end);
                // States longer and shorter than the region; zero words
                // among the others.
                for len in [end + 9, end, end.saturating_sub(5), start / 2] {
                    let state: Vec<u8> = (0..len)
                        .map(|_| match next(&mut seed) % 3 {
                            0 => 0,
                            _ => next(&mut seed) as u8,
                        })
                        .collect();
                    let by_words = (start / WORD..end.div_ceil(WORD)).fold(0u128, |sum, j| {
                        let word = masked_bytewise(&(start..end), j, word_at(&state, j));
                        sum.wrapping_add(term(j, word))
                    });
                    assert_eq!(f.of(&state), by_words, "region {start}..{end}, {len} bytes");
                }
            }
        }
    }

    #[test]
    fn bytes_outside_the_region_do_not_count() {
        let f = Fingerprint::new(3..13);
        let mut a = vec![0u8; 16];
        let b = a.clone();
        a[0] = 7;
        a[2] = 1;
        a[13] = 9;
        a[15] = 4;
        assert_eq!(f.of(&a), f.of(&b));
        a[3] = 1;
        assert_ne!(f.of(&a), f.of(&b));
        a[3] = 0;
        a[12] = 1;
        assert_ne!(f.of(&a), f.of(&b));
    }

    #[test]
    fn moving_a_value_changes_the_fingerprint() {
        // Words are hashed with their index: a value moved to another word,
        // or two values swapped, is another state.
        let f = Fingerprint::new(0..32);
        let mut a = vec![0u8; 32];
        let mut b = vec![0u8; 32];
        a[0] = 5;
        b[8] = 5;
        assert_ne!(f.of(&a), f.of(&b));
        a[8] = 6;
        b[0] = 6;
        assert_ne!(f.of(&a), f.of(&b));
        assert_eq!(f.of(&[0u8; 32]), 0);
    }
}
