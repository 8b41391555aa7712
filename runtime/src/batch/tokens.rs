//! Text to token ids for the trainer: hashed words, so any site's text maps
//! into one fixed vocabulary without a vocabulary file.
//!
//! Words and their hashes are `crate::words`'s (§5.3's answer tokens); a
//! word's id is `RESERVED + fnv1a(word) mod (vocab − RESERVED)`, ids below
//! `RESERVED` being padding and markers. The policy therefore sees text,
//! never a site-specific id, and unseen sites reuse the same embedding rows.
//! Hashing a word is cheaper than looking its text up in a cache would be,
//! so nothing is cached; the tokenizer keeps one buffer of ids, reused.

use crate::words::{each_hash, Vocab};
pub use crate::words::{id_of, PAD, RESERVED};

/// A hashing tokenizer into a fixed vocabulary.
#[derive(Clone, Debug)]
pub struct Tokenizer {
    /// The vocabulary, its division done once.
    map: Vocab,
    ids: Vec<u32>,
}

impl Tokenizer {
    /// A tokenizer into `vocab` ids (at least `RESERVED + 1`).
    pub fn new(vocab: u32) -> Tokenizer {
        Tokenizer {
            map: Vocab::new(vocab.max(RESERVED + 1)),
            ids: Vec::new(),
        }
    }

    /// The vocabulary's size.
    pub fn vocab(&self) -> u32 {
        self.map.size()
    }

    /// The ids of `text`'s words.
    pub fn tokens(&mut self, text: &str) -> &[u32] {
        let map = self.map;
        self.ids.clear();
        let ids = &mut self.ids;
        each_hash(text, |h| ids.push(map.id(h)));
        &self.ids
    }

    /// Writes `text`'s ids into `out`, padding with `PAD`; whether they fit.
    pub fn fill(&self, text: &str, out: &mut [u32]) -> bool {
        let map = self.map;
        let mut n = 0;
        each_hash(text, |h| {
            if let Some(slot) = out.get_mut(n) {
                *slot = map.id(h);
            }
            n += 1;
        });
        if let Some(rest) = out.get_mut(n..) {
            rest.fill(PAD);
        }
        n <= out.len()
    }

    /// Writes the ids of words hashed as `hashes` into `out`, padding with
    /// `PAD`; whether they fit.
    pub fn fill_hashes(&self, hashes: &[u64], out: &mut [u32]) -> bool {
        let n = hashes.len().min(out.len());
        for (slot, &h) in out.iter_mut().zip(&hashes[..n]) {
            *slot = self.map.id(h);
        }
        out[n..].fill(PAD);
        hashes.len() <= out.len()
    }

    /// Appends a text's ids (from its hashes when they are known) to `out`
    /// while it is shorter than `limit`.
    pub fn push_ids(&self, text: &str, hashes: Option<&[u64]>, out: &mut Vec<u32>, limit: usize) {
        let map = self.map;
        // Room for the whole limit at once: the record is reused, and will
        // not need to grow again.
        out.reserve(limit.saturating_sub(out.len()));
        let mut push = |h: u64| {
            if out.len() < limit {
                out.push(map.id(h));
            }
        };
        match hashes {
            Some(hs) => hs.iter().for_each(|&h| push(h)),
            None => each_hash(text, push),
        }
    }

    /// Writes a text's ids, from its hashes when they are known.
    pub fn fill_text(&self, text: &str, hashes: Option<&[u64]>, out: &mut [u32]) -> bool {
        match hashes {
            Some(h) => self.fill_hashes(h, out),
            None => self.fill(text, out),
        }
    }
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
