//! Small memories of what values and texts show: by the value's kind and
//! word, the text a value renders to and the hashes of its words; by the
//! text, its words' hashes. They let a render skip turning a number, an
//! amount or a date into text (and hashing it) when the same value was
//! shown lately, which on the examples is most of the time: a page shows
//! the rows it showed the step before.
//!
//! A memory knows nothing of what a kind means. Its user promises that a
//! value's text is a function of the memory's owner and `(kind, word)`
//! alone: the JIT's owner is the compiled site, and it keys an
//! interpolation by its value's tag, only for the tags whose text is the
//! word's alone or the site's enum names (integers, amounts, truth values,
//! dates, times, enum variants; see `jit::label`). [`ValueMemo::serve`]
//! forgets everything when the owner changes. Under that promise an entry
//! found is exact: a slot answers only for the kind and word it holds.
//!
//! [`TextWords`] is the other kind of memory: the words of a text, keyed by
//! the whole text, which asks no promise of its user (a text's words are
//! the text's alone).
//!
//! A memory is direct-mapped (one slot per key, the later value replacing
//! the earlier) and allocated on first use, so a page structure that never
//! renders what it serves never pays for it.

/// Slots in a memory (a power of two): a few KiB, so that each of a
/// batch's environments keeps one without crowding the cache.
const SLOTS: usize = 128;

/// Words a [`ShownWords`] keeps: the texts it serves (`-1,234`, `$12.50`,
/// `yes`, `2026-03-03`, `09:30`, a variant's name) have one to three.
const MAX_WORDS: usize = 3;

#[derive(Clone, Debug, Default)]
struct Slot<T> {
    /// The kind remembered, 0 for an empty slot.
    kind: u8,
    word: i64,
    value: T,
}

/// What values of one owner show, by `(kind, word)`; see the module docs.
#[derive(Clone, Debug)]
pub struct ValueMemo<T> {
    /// Whose values the slots hold (0: nobody's yet).
    owner: u64,
    slots: Vec<Slot<T>>,
}

impl<T> Default for ValueMemo<T> {
    fn default() -> Self {
        ValueMemo {
            owner: 0,
            slots: Vec::new(),
        }
    }
}

impl<T: Clone + Default> ValueMemo<T> {
    /// The slot `(kind, word)` maps to: a multiplicative hash of both.
    fn slot(kind: u8, word: i64) -> usize {
        let mixed = (word as u64 ^ (u64::from(kind) << 56)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // The top bits are the best mixed; SLOTS is a power of two.
        (mixed >> (64 - SLOTS.trailing_zeros())) as usize
    }

    /// Makes the memory `owner`'s, forgetting what it holds of another
    /// owner's values.
    pub fn serve(&mut self, owner: u64) {
        if self.owner != owner {
            self.owner = owner;
            self.slots.iter_mut().for_each(|s| s.kind = 0);
        }
    }

    /// What is remembered of value `word` of `kind` (never anything for
    /// kind 0).
    pub fn get(&self, kind: u8, word: i64) -> Option<&T> {
        let s = self.slots.get(Self::slot(kind, word))?;
        (kind != 0 && s.kind == kind && s.word == word).then_some(&s.value)
    }

    /// The slot of value `word` of `kind`, made theirs, for the caller to
    /// fill whole (it holds whatever the slot held before); `None` for kind
    /// 0. Claim a slot only once what goes in it is known: a slot claimed
    /// and left as it was answers for the new key with the old value.
    pub fn put(&mut self, kind: u8, word: i64) -> Option<&mut T> {
        if kind == 0 {
            return None;
        }
        if self.slots.is_empty() {
            self.slots = vec![Slot::default(); SLOTS];
        }
        let s = self.slots.get_mut(Self::slot(kind, word))?;
        s.kind = kind;
        s.word = word;
        Some(&mut s.value)
    }
}

/// The words of a value's text: their hashes, and whether the text is
/// non-empty (a text of punctuation alone has no word).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShownWords {
    len: u8,
    pub nonempty: bool,
    hashes: [u64; MAX_WORDS],
}

impl ShownWords {
    /// `None` for a text of more words than are kept.
    #[cfg(test)]
    pub fn of(hashes: &[u64], nonempty: bool) -> Option<ShownWords> {
        let mut kept = [0; MAX_WORDS];
        kept.get_mut(..hashes.len())?.copy_from_slice(hashes);
        Some(ShownWords {
            len: u8::try_from(hashes.len()).ok()?,
            nonempty,
            hashes: kept,
        })
    }

    /// Sends the hash of each word of `text` (whose non-emptiness is
    /// `nonempty`) to `each`, and keeps them when there are few enough.
    pub fn hashing(text: &str, nonempty: bool, mut each: impl FnMut(u64)) -> Option<ShownWords> {
        let mut kept = Some(ShownWords {
            len: 0,
            nonempty,
            hashes: [0; MAX_WORDS],
        });
        super::each_hash(text, |h| {
            each(h);
            kept = kept.and_then(|mut k| {
                *k.hashes.get_mut(usize::from(k.len))? = h;
                k.len += 1;
                Some(k)
            });
        });
        kept
    }

    pub fn hashes(&self) -> &[u64] {
        self.hashes.get(..usize::from(self.len)).unwrap_or_default()
    }
}

/// A page structure's memories of shown values: their texts (for renders
/// with texts, and for text glued to a value) and their words (for values
/// standing alone in a render with words).
#[derive(Clone, Debug, Default)]
pub struct ShownMemo {
    pub texts: ValueMemo<String>,
    pub words: ValueMemo<ShownWords>,
}

impl ShownMemo {
    /// Makes both memories `owner`'s ([`ValueMemo::serve`]).
    pub fn serve(&mut self, owner: u64) {
        self.texts.serve(owner);
        self.words.serve(owner);
    }
}

/// Slots in a [`TextWords`] (a power of two): about 7 KiB and the texts
/// they hold per page structure. 256 found a little more (0.2–0.5% of a
/// batched step) for twice the memory; 64 lost 0.3–1.0%.
const TEXT_SLOTS: usize = 128;

/// Texts longer than this are hashed every time: a select's options and a
/// shown value are shorter, and keeping long texts would crowd the cache.
const MAX_TEXT: usize = 160;

#[derive(Clone, Debug, Default)]
struct TextSlot {
    /// `xxh3` of `text`.
    hash: u64,
    text: String,
    words: Vec<u64>,
}

/// The word hashes of texts met lately, keyed by the whole text (compared,
/// not only hashed), so an entry found is exact without any promise from
/// its user: a text's words are a function of the text alone. Finding a
/// short text costs a fast hash and a comparison; splitting, trimming,
/// lowercasing and hashing its words costs several times that, and far
/// more for a word with a character past ASCII (`—`, `·`). A select's
/// options are the texts it serves: a page shows the same accounts or
/// sizes step after step. Direct-mapped and allocated on first use, as
/// [`ValueMemo`] is.
#[derive(Clone, Debug, Default)]
pub struct TextWords {
    slots: Vec<TextSlot>,
}

impl TextWords {
    /// Sends the hash of each word of `text` to `each`, as
    /// [`super::each_hash`] would, from memory when `text` was met lately.
    pub fn each_hash(&mut self, text: &str, mut each: impl FnMut(u64)) {
        if text.len() > MAX_TEXT {
            return super::each_hash(text, each);
        }
        let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        if self.slots.is_empty() {
            self.slots = vec![TextSlot::default(); TEXT_SLOTS];
        }
        // The top bits are the best mixed; TEXT_SLOTS is a power of two.
        let at = (hash >> (64 - TEXT_SLOTS.trailing_zeros())) as usize;
        let Some(slot) = self.slots.get_mut(at) else {
            return super::each_hash(text, each);
        };
        if slot.hash == hash && slot.text == text {
            slot.words.iter().for_each(|&h| each(h));
            return;
        }
        // The slot answers for no text while it fills (should `each`
        // unwind, it is left empty, never with another text's words).
        slot.hash = 0;
        slot.text.clear();
        slot.words.clear();
        super::each_hash(text, |h| {
            slot.words.push(h);
            each(h);
        });
        slot.hash = hash;
        slot.text.push_str(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(hashes: &[u64]) -> ShownWords {
        ShownWords::of(hashes, true).expect("few enough words")
    }

    #[test]
    fn a_slot_answers_only_for_its_own_kind_and_word() {
        let mut memo = ValueMemo::<ShownWords>::default();
        assert_eq!(memo.get(1, 7), None);
        *memo.put(1, 7).expect("a slot") = words(&[11, 12]);
        assert_eq!(memo.get(1, 7).map(ShownWords::hashes), Some(&[11, 12][..]));
        // Another kind of the same word, another word of the same kind.
        assert_eq!(memo.get(2, 7), None);
        assert_eq!(memo.get(1, 8), None);
        // Kind 0 is never remembered nor found.
        assert!(memo.put(0, 9).is_none());
        assert_eq!(memo.get(0, 9), None);
        assert_eq!(memo.get(0, 0), None);
    }

    #[test]
    fn a_later_value_replaces_an_earlier_one_in_its_slot() {
        let mut memo = ValueMemo::<String>::default();
        // Two words that share a slot.
        let first = 3;
        let slot = ValueMemo::<String>::slot;
        let other = (4..)
            .find(|&w| slot(1, w) == slot(1, first))
            .expect("a colliding word");
        memo.put(1, first).expect("a slot").push_str("three");
        let s = memo.put(1, other).expect("a slot");
        s.clear();
        s.push_str("other");
        assert_eq!(memo.get(1, first), None);
        assert_eq!(memo.get(1, other).map(String::as_str), Some("other"));
    }

    #[test]
    fn another_owner_finds_nothing_of_the_last_ones_values() {
        let mut memo = ShownMemo::default();
        memo.serve(1);
        memo.texts.put(1, 7).expect("a slot").push('7');
        *memo.words.put(1, 7).expect("a slot") = words(&[11]);
        memo.serve(1);
        assert!(memo.texts.get(1, 7).is_some() && memo.words.get(1, 7).is_some());
        memo.serve(2);
        assert!(memo.texts.get(1, 7).is_none() && memo.words.get(1, 7).is_none());
        memo.words.put(1, 7).expect("a slot");
        memo.serve(1);
        assert_eq!(memo.words.get(1, 7), None);
    }

    #[test]
    fn remembered_text_words_are_the_texts_words_whatever_the_slots_held() {
        let mut memo = TextWords::default();
        let long = "word ".repeat(MAX_TEXT);
        let texts = [
            "Everyday Checking (****1234) — $1,234.56",
            "",
            "Money in",
            "—",
            &long,
        ];
        // Enough texts that many share a slot, each met several times.
        let many: Vec<String> = (0..3 * TEXT_SLOTS)
            .map(|i| format!("Opt·{i} Σ{i}Σ"))
            .collect();
        for round in 0..3 {
            for text in texts.iter().copied().chain(many.iter().map(String::as_str)) {
                let mut sent = Vec::new();
                memo.each_hash(text, |h| sent.push(h));
                assert_eq!(sent, crate::words::hashes(text), "{text} in round {round}");
            }
        }
    }

    #[test]
    fn words_past_the_kept_number_are_not_kept_and_punctuation_is_shown() {
        assert_eq!(ShownWords::of(&[1, 2, 3, 4], true), None);
        // Hashing a text sends every word, and keeps them when they fit.
        for text in ["$1,234.50", "2026-03-03", "a b c", "a b c d", "", "—"] {
            let mut sent = Vec::new();
            let kept = ShownWords::hashing(text, !text.is_empty(), |h| sent.push(h));
            assert_eq!(sent, crate::words::hashes(text), "{text}");
            assert_eq!(kept, ShownWords::of(&sent, !text.is_empty()), "{text}");
        }
        let three = words(&[1, 2, 3]);
        assert_eq!(three.hashes(), &[1, 2, 3]);
        // A text of punctuation: no word, yet shown.
        let none = words(&[]);
        assert_eq!((none.hashes(), none.nonempty), (&[][..], true));
    }
}
