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
//! ASCII text, nearly all text a site shows, is split and hashed without
//! allocating: every ASCII letter lowercases on its own. Other text is
//! lowercased as a whole first (`str::to_lowercase`, whose final-sigma rule
//! looks at a letter's neighbours), exactly as answer matching always did.

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

/// Whether `c` survives the trim at a word's ends.
fn kept(c: char) -> bool {
    c.is_alphanumeric() || c == '$'
}

/// The words of an already lowercased (or ASCII) text, trimmed, non-empty.
fn trimmed_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !kept(c)))
        .filter(|w| !w.is_empty())
}

/// Calls `each` with every word of `text`, lowercased. `scratch` holds the
/// lowercased word or text, so that a caller looping over many texts
/// allocates only while it grows.
pub fn each_word(text: &str, scratch: &mut String, mut each: impl FnMut(&str)) {
    if text.is_ascii() {
        for w in trimmed_words(text) {
            scratch.clear();
            scratch.extend(w.chars().map(|c| c.to_ascii_lowercase()));
            each(scratch);
        }
    } else {
        *scratch = text.to_lowercase();
        for w in trimmed_words(scratch) {
            each(w);
        }
    }
}

/// Calls `each` with the hash of every word of `text`, in order.
pub fn each_hash(text: &str, mut each: impl FnMut(u64)) {
    if text.is_ascii() {
        for w in trimmed_words(text) {
            each(fnv1a_ascii_lower(w.as_bytes()));
        }
    } else {
        let lower = text.to_lowercase();
        for w in trimmed_words(&lower) {
            each(fnv1a(w.as_bytes()));
        }
    }
}

/// The words of `text`, lowercased (answer matching's tokens).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_word(text, &mut String::new(), |w| out.push(w.to_string()));
    out
}

/// The hashes of `text`'s words.
pub fn hashes(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    each_hash(text, |h| out.push(h));
    out
}

/// The token id of a word whose hash is `hash`, in `vocab` ids.
pub fn id_of_hash(hash: u64, vocab: u32) -> u32 {
    let span = u64::from(vocab.saturating_sub(RESERVED).max(1));
    RESERVED + u32::try_from(hash % span).unwrap_or(0)
}

/// The token id of one (lowercased, trimmed) word.
pub fn id_of(word: &str, vocab: u32) -> u32 {
    id_of_hash(fnv1a(word.as_bytes()), vocab)
}

#[cfg(test)]
mod tests {
    use super::*;

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
