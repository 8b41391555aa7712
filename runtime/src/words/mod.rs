//! Words: the one definition of how a text splits into words (§5.3's answer
//! tokens) and of each word's 64-bit hash, shared by answer matching
//! (`env::answer`), the trainer's token ids (`batch::tokens`) and the JIT,
//! which hashes a label's literal words once when the site is compiled and
//! only the words of interpolated values per step (`jit::label`).
//!
//! A word is a run of non-white-space characters of the lowercased text,
//! trimmed at either end of everything that is not a letter, a digit or `$`;
//! empty words are dropped. Its hash is FNV-1a over its UTF-8 bytes, and its
//! token id in a vocabulary of `vocab` ids is `RESERVED + hash mod (vocab −
//! RESERVED)` ([`id_of_hash`]).
//!
//! Hashing allocates nothing: every ASCII letter lowercases on its own, and
//! a word with other letters is lowercased character by character as it is
//! hashed. The one context-dependent rule of `str::to_lowercase` (a final
//! capital sigma becomes `ς`) looks no further than the word, so a word
//! holding `Σ` is lowercased whole, with an allocation: that is what answer
//! matching always did, and the ids stay the same.

mod memo;

pub use memo::{ShownMemo, ShownWords, TextWords, ValueMemo};

/// Padding in token buffers.
pub const PAD: u32 = 0;
/// Token ids below this are reserved (padding and markers).
pub const RESERVED: u32 = 2;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = FNV_OFFSET;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// FNV-1a of `bytes` with ASCII letters lowercased.
fn fnv1a_ascii_lower(bytes: &[u8]) -> u64 {
    let mut h = FNV_OFFSET;
    for b in bytes {
        h ^= u64::from(b.to_ascii_lowercase());
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// Whether `c` survives the trim at a word's ends: a letter, a digit or `$`.
///
/// `char::is_alphanumeric` walks Unicode's tables, and for punctuation such
/// as `—` or `·` that walk costs hundreds of instructions, paid for every
/// such character of every text the trainer's observation hashes. Below
/// [`TABLED`] (Latin, Greek, Cyrillic and the common punctuation, currency
/// and symbols) the answer is read from a bit table computed from
/// `is_alphanumeric` itself on first use, so it is the same answer.
fn kept(c: char) -> bool {
    let k = u32::from(c);
    if let Ok(b) = u8::try_from(k) {
        if b.is_ascii() {
            return class(b) == KEPT;
        }
    }
    if k < TABLED {
        let word = kept_table().get((k / 64) as usize).copied().unwrap_or(0);
        return (word >> (k % 64)) & 1 == 1;
    }
    c.is_alphanumeric()
}

/// The characters below this have their [`kept`] answer in a table.
const TABLED: u32 = 0x3000;

/// Bit `k % 64` of word `k / 64`: whether the character `k` is kept.
fn kept_table() -> &'static [u64; TABLED as usize / 64] {
    static TABLE: std::sync::OnceLock<[u64; TABLED as usize / 64]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [0u64; TABLED as usize / 64];
        for k in 0..TABLED {
            if char::from_u32(k).is_some_and(|c| c.is_alphanumeric() || c == '$') {
                if let Some(word) = table.get_mut((k / 64) as usize) {
                    *word |= 1 << (k % 64);
                }
            }
        }
        table
    })
}

/// The words of an already lowercased text, trimmed, non-empty.
fn trimmed_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !kept(c)))
        .filter(|w| !w.is_empty())
}

/// One word of a text: ASCII bytes already trimmed, still to be lowercased,
/// or a white-space-free run with other characters, still to be lowercased
/// and trimmed (it may trim to nothing).
enum Word<'a> {
    Ascii(&'a [u8]),
    Unicode(&'a str),
}

/// Calls `each` with every word of `text`, in order: the one splitting
/// rule behind [`each_hash`] and [`words`].
fn each_word(text: &str, mut each: impl FnMut(Word<'_>)) {
    if text.is_ascii() {
        ascii_words(text.as_bytes(), &mut each);
        return;
    }
    // Lowercasing one word looks no further than its own letters (white
    // space is neither cased nor case-ignorable), so each word can be
    // lowercased alone, and an ASCII word needs no lowercased copy.
    for word in text.split_whitespace() {
        if word.is_ascii() {
            ascii_words(word.as_bytes(), &mut each);
        } else {
            each(Word::Unicode(word));
        }
    }
}

/// Calls `each` with the hash of every word of `text`, in order.
pub fn each_hash(text: &str, mut each: impl FnMut(u64)) {
    each_word(text, |w| match w {
        Word::Ascii(bytes) => each(fnv1a_ascii_lower(bytes)),
        Word::Unicode(word) if word.contains('Σ') => {
            trimmed_words(&word.to_lowercase()).for_each(|w| each(fnv1a(w.as_bytes())));
        }
        Word::Unicode(word) => {
            if let Some(h) = unicode_word_hash(word) {
                each(h);
            }
        }
    });
}

/// FNV-1a of a white-space-free run lowercased char by char and trimmed,
/// without building the lowercased copy; `None` when nothing is kept. (No
/// character lowercases to white space, so the run stays one word.)
///
/// One pass: `running` hashes every lowercased character from the first
/// kept one on, and `through_last` is `running` as it stood after the last
/// kept one, which is the trimmed word's hash when the run ends.
fn unicode_word_hash(word: &str) -> Option<u64> {
    let mut running = FNV_OFFSET;
    let mut through_last = None;
    let mut utf8 = [0u8; 4];
    let mut feed = |c: char, running: &mut u64| {
        for b in c.encode_utf8(&mut utf8).as_bytes() {
            *running ^= u64::from(*b);
            *running = running.wrapping_mul(FNV_PRIME);
        }
    };
    let mut each = |c: char| {
        let keep = kept(c);
        if through_last.is_none() && !keep {
            return;
        }
        feed(c, &mut running);
        if keep {
            through_last = Some(running);
        }
    };
    for c in word.chars() {
        if c.is_ascii() {
            each(c.to_ascii_lowercase());
        } else {
            c.to_lowercase().for_each(&mut each);
        }
    }
    through_last
}

/// Byte classes of ASCII: white space (as `char::is_whitespace` has it) and
/// what a word's trim keeps.
const SPACE: u8 = 1;
const KEPT: u8 = 2;
const CLASS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if matches!(c, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r') {
            t[b] = SPACE;
        } else if c.is_ascii_alphanumeric() || c == b'$' {
            t[b] = KEPT;
        }
        b += 1;
    }
    t
};

fn class(b: u8) -> u8 {
    CLASS.get(usize::from(b)).copied().unwrap_or(0)
}

/// Whether `glue` is ASCII that a word's trim always drops: no white space,
/// no letter, digit nor `$`. Such text at either end of a white-space-free
/// run changes none of its words: the trim takes it off whatever the run
/// holds, and it never splits the run. Nor can it decide whether a capital
/// sigma is final: `str::to_lowercase` looks from the sigma past
/// case-ignorable characters for a cased letter, and a look that reaches
/// this text either skips it (`.`, `'`, `:`) to the run's end or stops at
/// it (`(`, `-`), finding no cased letter either way, as it would find
/// none at the run's end without it. The JIT's word plans leave it out
/// (`jit::label_words`).
pub(crate) fn trims_away(glue: &str) -> bool {
    glue.bytes().all(|b| b.is_ascii() && class(b) == 0)
}

/// The words of ASCII `bytes`, split and trimmed in one pass (not yet
/// lowercased).
fn ascii_words(bytes: &[u8], each: &mut impl FnMut(Word<'_>)) {
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        while i < n && class(bytes[i]) == SPACE {
            i += 1;
        }
        let mut start = i;
        while i < n && class(bytes[i]) != SPACE {
            i += 1;
        }
        let mut end = i;
        while start < end && class(bytes[start]) != KEPT {
            start += 1;
        }
        while end > start && class(bytes[end - 1]) != KEPT {
            end -= 1;
        }
        if start < end {
            each(Word::Ascii(&bytes[start..end]));
        }
    }
}

/// The words of `text`, lowercased (answer matching's tokens).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_word(text, |w| match w {
        Word::Ascii(bytes) => out.push(
            bytes
                .iter()
                .map(|b| char::from(b.to_ascii_lowercase()))
                .collect(),
        ),
        Word::Unicode(word) => {
            out.extend(trimmed_words(&word.to_lowercase()).map(str::to_string));
        }
    });
    out
}

/// The hashes of `text`'s words.
pub fn hashes(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    each_hash(text, |h| out.push(h));
    out
}

/// The token id of a word whose hash is `hash`, in `vocab` ids:
/// `RESERVED + hash mod (vocab − RESERVED)`.
pub fn id_of_hash(hash: u64, vocab: u32) -> u32 {
    Vocab::new(vocab).id(hash)
}

/// [`id_of_hash`] for one vocabulary, with its division done ahead: a
/// batch writes hundreds of ids per step into one vocabulary, and a 64-bit
/// division (tens of cycles) per id was most of the writer's own
/// tokenizing time.
///
/// The remainder comes from a multiply by `r = ⌊(2⁶⁴−1)/span⌋`, a
/// reciprocal rounded down. The quotient estimate `q = ⌊hash·r/2⁶⁴⌋` is
/// `⌊hash/span − ε⌋` with `0 ≤ ε < 1` (the rounding of `r` loses less than
/// `hash/2⁶⁴ < 1`), so it is `⌊hash/span⌋` or one less: `hash − q·span`
/// lies in `[0, 2·span)` and one subtraction at most makes it the exact
/// remainder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vocab {
    span: u64,
    reciprocal: u64,
}

impl Vocab {
    pub fn new(vocab: u32) -> Vocab {
        let span = u64::from(vocab.saturating_sub(RESERVED).max(1));
        Vocab {
            span,
            reciprocal: u64::MAX / span,
        }
    }

    /// The number of ids: `RESERVED` and the span (`new`'s `vocab`, when
    /// that is above `RESERVED`).
    pub fn size(self) -> u32 {
        RESERVED.saturating_add(u32::try_from(self.span).unwrap_or(u32::MAX))
    }

    /// The token id of a word whose hash is `hash`.
    pub fn id(self, hash: u64) -> u32 {
        let product = u128::from(hash) * u128::from(self.reciprocal);
        let q = u64::try_from(product >> 64).unwrap_or(0);
        // q ≤ ⌊hash/span⌋, so q·span ≤ hash: neither overflows.
        let mut rest = hash - q * self.span;
        if rest >= self.span {
            rest -= self.span;
        }
        // rest < span ≤ u32::MAX − RESERVED.
        RESERVED + u32::try_from(rest).unwrap_or(0)
    }
}

/// The token id of one (lowercased, trimmed) word.
pub fn id_of(word: &str, vocab: u32) -> u32 {
    id_of_hash(fnv1a(word.as_bytes()), vocab)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trim_keeps_exactly_letters_digits_and_the_dollar_sign() {
        // Every character, tabled or not, against the rule written plainly.
        let mut kept_count = 0;
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            let want = c.is_alphanumeric() || c == '$';
            assert_eq!(kept(c), want, "{c:?} (U+{:04X})", u32::from(c));
            kept_count += usize::from(want);
        }
        // Not vacuous: letters and digits of many scripts are kept, and
        // punctuation around them is not.
        assert!(kept_count > 100_000);
        assert!(kept('é') && kept('Ж') && kept('٣') && kept('中'));
        assert!(!kept('—') && !kept('·') && !kept('“') && !kept('€'));
        assert_eq!(
            hashes("Payroll — “Bridgeview” · café"),
            hashes("payroll bridgeview CAFÉ")
        );
        // `İ` lowercases to `i` and a combining dot, which the trim drops.
        assert_eq!(hashes("«İ»"), hashes("i"));
    }

    #[test]
    fn a_vocabulary_maps_hashes_as_the_remainder_does() {
        // The rule written plainly, against the reciprocal's arithmetic, on
        // spans from 1 to u32's largest and hashes near every edge.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut vocabs = vec![
            0,
            1,
            RESERVED,
            RESERVED + 1,
            RESERVED + 2,
            1000,
            8192,
            50_000,
        ];
        vocabs.extend([u32::MAX, u32::MAX - 1, (1 << 31) + 7, 1 << 20]);
        for _ in 0..200 {
            vocabs.push(u32::try_from(next() >> 32).unwrap_or(0));
        }
        for &vocab in &vocabs {
            let span = u64::from(vocab.saturating_sub(RESERVED).max(1));
            let plain = |h: u64| RESERVED + u32::try_from(h % span).unwrap_or(0);
            let map = Vocab::new(vocab);
            let mut hashes = vec![0, 1, span - 1, span, span + 1, u64::MAX, u64::MAX - 1];
            hashes.extend([
                u64::MAX - span,
                (u64::MAX / span) * span,
                (u64::MAX / span) * span - 1,
            ]);
            for _ in 0..2_000 {
                hashes.push(next());
            }
            for h in hashes {
                assert_eq!(map.id(h), plain(h), "vocab {vocab}, hash {h}");
            }
        }
    }

    /// The definition written out the slow way.
    fn reference(text: &str) -> Vec<String> {
        text.to_lowercase()
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !kept(c)).to_string())
            .filter(|w| !w.is_empty())
            .collect()
    }

    #[test]
    fn words_follow_the_definition_on_ascii_and_other_text() {
        let texts = [
            "Buy the ThinkPad X1, now!",
            "  $14.99\tper\x0Bmonth ",
            "ΟΔΟΣ. Σ Straße İstanbul ǅ",
            "--- ... !!",
            "",
            "x\u{a0}y\u{2003}z",
            "Café ΣΑΣ. (Total: $3) ÉTÉ\u{1c}x",
            "\u{85}a\u{1f}b\u{0b}c",
        ];
        for t in texts {
            assert_eq!(words(t), reference(t), "{t:?}");
            let expected: Vec<u64> = reference(t).iter().map(|w| fnv1a(w.as_bytes())).collect();
            assert_eq!(hashes(t), expected, "{t:?}");
        }
        assert_eq!(
            words("Buy the ThinkPad X1, now!"),
            ["buy", "the", "thinkpad", "x1", "now"]
        );
    }

    #[test]
    fn random_texts_split_and_hash_as_the_definition_says() {
        let alphabet: Vec<char> =
            " \t\n\u{b}\u{c}\r\u{1c}\u{85}\u{a0}\u{2028}aZ9$.,-'!(é)ΣσςİK\u{301}_"
                .chars()
                .collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..50_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 59) as usize;
            let mut text = String::new();
            let mut s = seed;
            for _ in 0..len {
                s = s.rotate_left(7).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x1234;
                text.push(alphabet[(s >> 40) as usize % alphabet.len()]);
            }
            let expected: Vec<u64> = reference(&text)
                .iter()
                .map(|w| fnv1a(w.as_bytes()))
                .collect();
            assert_eq!(hashes(&text), expected, "{text:?}");
            assert_eq!(words(&text), reference(&text), "{text:?}");
        }
    }

    /// The char-by-char hashing of non-ASCII words assumes no character
    /// lowercases to white space.
    #[test]
    fn no_character_lowercases_to_white_space() {
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            if !c.is_whitespace() {
                assert!(!c.to_lowercase().any(char::is_whitespace), "{c:?}");
            }
        }
    }

    #[test]
    fn ids_fall_in_the_vocabulary_above_the_reserved_ones() {
        for w in ["a", "thinkpad", "$14.99", "ς"] {
            let id = id_of(w, 1000);
            assert!((RESERVED..1000).contains(&id));
            assert_eq!(id, id_of_hash(fnv1a(w.as_bytes()), 1000));
        }
        // A vocabulary too small to hold a word still gives a valid id.
        assert_eq!(id_of("a", 0), RESERVED);
    }
}
