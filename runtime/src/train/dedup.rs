//! Deduplication of observation parts before they reach the policy: a
//! rollout repeats the same instruction in every step of an episode and the
//! same element (under the same instruction) on every visit to its page, and
//! a page shorter than the fullest one is padding. Encoding each distinct
//! part once and gathering the results is exact (identical inputs give
//! identical outputs, and a gather's gradient sums over its copies) and
//! saves most of the forward and backward passes.
//!
//! Plain Rust over the store's host arrays; ids are given in order of first
//! occurrence, so the same rows always give the same ids.

use std::collections::HashMap;
use std::hash::Hash;

/// Distinct keys among a sequence of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unique {
    /// For each distinct key, the position of its first occurrence.
    pub first: Vec<usize>,
    /// For each key of the input, its distinct key's id (`first`'s index).
    pub ids: Vec<u32>,
}

impl Unique {
    /// Distinct keys counted.
    pub fn len(&self) -> usize {
        self.first.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
}

/// Numbers the distinct keys of `keys` in order of first occurrence (the
/// map is only looked up, never iterated, so the numbering is the input's).
pub fn unique<K: Hash + Eq>(keys: impl IntoIterator<Item = K>) -> Unique {
    let mut seen: HashMap<K, u32> = HashMap::new();
    let mut u = Unique::default();
    for (at, key) in keys.into_iter().enumerate() {
        let next = u.first.len() as u32;
        let id = *seen.entry(key).or_insert(next);
        if id == next {
            u.first.push(at);
        }
        u.ids.push(id);
    }
    u
}

/// The fixed-width slices of `flat` at `first` (each `width` long), one
/// after the other: the distinct rows' data.
pub fn gather<T: Copy>(flat: &[T], width: usize, first: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(first.len() * width);
    for &k in first {
        out.extend_from_slice(&flat[k * width..(k + 1) * width]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_keys_are_numbered_in_order_of_first_occurrence() {
        let u = unique([&[3, 4][..], &[1, 2], &[3, 4], &[1, 2], &[9, 9]]);
        assert_eq!(u.first, [0, 1, 4]);
        assert_eq!(u.ids, [0, 1, 0, 1, 2]);
        assert_eq!(u.len(), 3);
        assert!(unique(Vec::<u8>::new()).is_empty());
    }

    #[test]
    fn gathering_the_first_occurrences_gives_the_distinct_rows() {
        let flat = [3, 4, 1, 2, 3, 4, 9, 9];
        let u = unique(flat.chunks(2));
        assert_eq!(gather(&flat, 2, &u.first), [3, 4, 1, 2, 9, 9]);
        // Every row is its distinct row again.
        let rows = gather(&flat, 2, &u.first);
        for (k, &id) in u.ids.iter().enumerate() {
            let id = id as usize;
            assert_eq!(rows[id * 2..id * 2 + 2], flat[k * 2..k * 2 + 2]);
        }
    }
}
