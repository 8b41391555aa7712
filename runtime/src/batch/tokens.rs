//! Text to token ids for the trainer: hashed words, so any site's text maps
//! into one fixed vocabulary without a vocabulary file.
//!
//! A word is what answer matching calls a token (§5.3): lowercased, split on
//! whitespace, trimmed of everything but letters, digits and `$` at either end.
//! Its id is `RESERVED + fnv1a(word) mod (vocab − RESERVED)`; ids below
//! `RESERVED` are padding and markers. The policy therefore sees text, never a
//! site-specific id, and unseen sites reuse the same embedding rows. Pages
//! repeat the same strings step after step, so each worker keeps a cache and
//! tokenizes a string once.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Padding.
pub const PAD: u32 = 0;
/// Ids below this are reserved.
pub const RESERVED: u32 = 2;

/// A hashing tokenizer with a cache of the texts it has seen.
#[derive(Clone, Debug)]
pub struct Tokenizer {
    vocab: u32,
    cache: HashMap<String, Vec<u32>, BuildHasherDefault<Fnv>>,
}

/// FNV-1a for the cache's keys: page texts are short, and a keyed
/// cryptographic hash would cost more than the lookup it serves.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(FNV_OFFSET)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

impl Tokenizer {
    /// A tokenizer into `vocab` ids (at least `RESERVED + 1`).
    pub fn new(vocab: u32) -> Tokenizer {
        Tokenizer {
            vocab: vocab.max(RESERVED + 1),
            cache: HashMap::default(),
        }
    }

    /// The ids of `text`'s words.
    pub fn tokens(&mut self, text: &str) -> &[u32] {
        let vocab = self.vocab;
        // Texts repeat from step to step; the cache keeps the first answer.
        if !self.cache.contains_key(text) {
            let ids = crate::env::answer::tokens(text)
                .iter()
                .map(|w| id_of(w, vocab))
                .collect();
            self.cache.insert(text.to_string(), ids);
        }
        self.cache.get(text).map_or(&[], Vec::as_slice)
    }

    /// Writes `text`'s ids into `out`, padding with `PAD`; whether they fit.
    pub fn fill(&mut self, text: &str, out: &mut [u32]) -> bool {
        let ids = self.tokens(text);
        let n = ids.len().min(out.len());
        out[..n].copy_from_slice(&ids[..n]);
        out[n..].fill(PAD);
        ids.len() <= out.len()
    }
}

/// The id of one word.
pub fn id_of(word: &str, vocab: u32) -> u32 {
    let mut fnv = Fnv::default();
    fnv.write(word.as_bytes());
    let h = fnv.finish();
    let span = u64::from(vocab.saturating_sub(RESERVED).max(1));
    RESERVED + u32::try_from(h % span).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_hash_into_the_vocabulary_the_way_answers_are_split() {
        let mut t = Tokenizer::new(1000);
        let a = t.tokens("Buy the ThinkPad X1, now!").to_vec();
        assert_eq!(a.len(), 5);
        assert!(a.iter().all(|&i| (RESERVED..1000).contains(&i)));
        assert_eq!(
            t.tokens("thinkpad")[0],
            a[2],
            "case and punctuation do not matter"
        );
        assert_eq!(t.tokens("$14.99")[0], id_of("$14.99", 1000));
        let mut out = [9u32; 3];
        assert!(!t.fill("one two three four", &mut out));
        assert_eq!(
            out,
            [id_of("one", 1000), id_of("two", 1000), id_of("three", 1000)]
        );
        assert!(t.fill("one", &mut out));
        assert_eq!(out[1..], [PAD, PAD]);
    }
}
