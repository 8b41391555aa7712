//! The generator's source of randomness: SplitMix64, so a seed gives the same
//! site on every machine and with every compiler version.

/// A SplitMix64 stream with the few draws the generator needs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5eed_50a7_d1ff_0001)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi` (`lo` when the range is empty).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo + 1) as u64;
        lo + usize::try_from(self.next_u64() % span).unwrap_or(0)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.range(0, n - 1)
        }
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One item of a non-empty slice (the first when it is empty would be a
    /// caller bug; `None` then).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }

    /// A copy of one item, or `fallback` when `items` is empty.
    pub fn pick_or<T: Clone>(&mut self, items: &[T], fallback: T) -> T {
        self.pick(items).cloned().unwrap_or(fallback)
    }
}
