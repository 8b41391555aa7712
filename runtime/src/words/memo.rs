//! A small memory of the word hashes of values, by the value's kind and
//! word: what lets a render with words skip turning a number, an amount or
//! a date into text and hashing it, when the same value was shown lately.
//!
//! The memory knows nothing of what a kind means. Its user promises that a
//! value's words are a function of its owner and `(kind, word)` alone: the
//! JIT's owner is the compiled site, and it keys an interpolation by its
//! value's tag, only for the tags whose text is the word's alone or the
//! site's enum names (integers, amounts, truth values, dates, times, enum
//! variants; see `jit::label`). [`WordsMemo::serve`] forgets everything
//! when the owner changes. Under that promise an entry found is exact: a
//! slot answers only for the kind and word it holds, and a value with more
//! words than a slot keeps is never remembered.
//!
//! The memory is direct-mapped (one slot per key, the later value
//! replacing the earlier) and allocated on first use, so a structure that
//! never renders words never pays for it.

/// Slots in a memory (a power of two): about 6 KiB, so that a batch's
/// environments each keep one without crowding the cache.
const SLOTS: usize = 128;

/// Words a slot keeps: the texts it serves (`-1,234`, `$12.50`, `yes`,
/// `Mar 3, 2026`, `09:30`) have one to three.
const MAX_WORDS: usize = 3;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// The kind remembered, 0 for an empty slot.
    kind: u8,
    len: u8,
    /// Whether the value's text is non-empty (a text of punctuation alone
    /// has no word).
    nonempty: bool,
    word: i64,
    hashes: [u64; MAX_WORDS],
}

/// Word hashes by `(kind, word)`; see the module docs.
#[derive(Clone, Debug, Default)]
pub struct WordsMemo {
    /// Whose values the slots hold (0: nobody's yet).
    owner: u64,
    slots: Vec<Slot>,
}

/// What the memory holds of one value: its words' hashes, and whether its
/// text is non-empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remembered<'a> {
    pub hashes: &'a [u64],
    pub nonempty: bool,
}

impl WordsMemo {
    /// Makes the memory `owner`'s (not 0), forgetting what it holds of
    /// another owner's values.
    pub fn serve(&mut self, owner: u64) {
        if self.owner != owner {
            self.owner = owner;
            self.slots.fill(Slot::default());
        }
    }

    /// The slot `(kind, word)` maps to: a multiplicative hash of both.
    fn slot(kind: u8, word: i64) -> usize {
        let mixed = (word as u64 ^ (u64::from(kind) << 56)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // The top bits are the best mixed; SLOTS is a power of two.
        (mixed >> (64 - SLOTS.trailing_zeros())) as usize
    }

    /// What is remembered of value `word` of `kind` (`kind` is not 0).
    pub fn get(&self, kind: u8, word: i64) -> Option<Remembered<'_>> {
        let s = self.slots.get(Self::slot(kind, word))?;
        (kind != 0 && s.kind == kind && s.word == word).then(|| Remembered {
            hashes: s.hashes.get(..usize::from(s.len)).unwrap_or_default(),
            nonempty: s.nonempty,
        })
    }

    /// Remembers that value `word` of `kind` (not 0) has the words `hashes`
    /// and a text that is `nonempty` or not; a value of more words than a
    /// slot keeps is not remembered.
    pub fn put(&mut self, kind: u8, word: i64, hashes: &[u64], nonempty: bool) {
        if kind == 0 || hashes.len() > MAX_WORDS {
            return;
        }
        if self.slots.is_empty() {
            self.slots = vec![Slot::default(); SLOTS];
        }
        let Some(s) = self.slots.get_mut(Self::slot(kind, word)) else {
            return;
        };
        let mut kept = [0; MAX_WORDS];
        kept[..hashes.len()].copy_from_slice(hashes);
        *s = Slot {
            kind,
            len: hashes.len() as u8,
            nonempty,
            word,
            hashes: kept,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_answers_only_for_its_own_kind_and_word() {
        let mut memo = WordsMemo::default();
        assert_eq!(memo.get(1, 7), None);
        memo.put(1, 7, &[11, 12], true);
        let found = memo.get(1, 7).expect("remembered");
        assert_eq!((found.hashes, found.nonempty), (&[11, 12][..], true));
        // Another kind of the same word, another word of the same kind.
        assert_eq!(memo.get(2, 7), None);
        assert_eq!(memo.get(1, 8), None);
        // Kind 0 is never remembered nor found.
        memo.put(0, 9, &[1], true);
        assert_eq!(memo.get(0, 9), None);
        assert_eq!(memo.get(0, 0), None);
    }

    #[test]
    fn a_later_value_replaces_an_earlier_one_in_its_slot() {
        let mut memo = WordsMemo::default();
        // Two words that share a slot.
        let first = 3;
        let other = (4..)
            .find(|&w| WordsMemo::slot(1, w) == WordsMemo::slot(1, first))
            .expect("a colliding word");
        memo.put(1, first, &[5], true);
        memo.put(1, other, &[6, 7, 8], false);
        assert_eq!(memo.get(1, first), None);
        let found = memo.get(1, other).expect("the later value");
        assert_eq!((found.hashes, found.nonempty), (&[6, 7, 8][..], false));
    }

    #[test]
    fn another_owner_finds_nothing_of_the_last_ones_values() {
        let mut memo = WordsMemo::default();
        memo.serve(1);
        memo.put(1, 7, &[11], true);
        memo.serve(1);
        assert!(memo.get(1, 7).is_some());
        memo.serve(2);
        assert_eq!(memo.get(1, 7), None);
        memo.put(1, 7, &[12], true);
        memo.serve(1);
        assert_eq!(memo.get(1, 7), None);
    }

    #[test]
    fn values_of_too_many_words_and_of_none_are_handled_exactly() {
        let mut memo = WordsMemo::default();
        memo.put(2, 1, &[1, 2, 3, 4], true);
        assert_eq!(memo.get(2, 1), None);
        // A text of punctuation: no word, yet shown.
        memo.put(2, 2, &[], true);
        let found = memo.get(2, 2).expect("remembered");
        assert_eq!((found.hashes, found.nonempty), (&[][..], true));
    }
}
