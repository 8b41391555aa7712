//! The generator's random numbers: SplitMix64, the same on every machine.

/// A 64-bit generator (SplitMix64): the same numbers on every machine.
pub(super) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1).max(1)
    }

    /// One of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() as u64 - 1) as usize]
    }

    /// A count with mean `mean` (Poisson, by Knuth's method: fine for the
    /// small means the defect injector uses).
    pub fn poisson(&mut self, mean: f64) -> usize {
        let limit = (-mean).exp();
        let mut k = 0;
        let mut p = 1.0;
        loop {
            p *= (self.next() >> 11) as f64 / (1u64 << 53) as f64;
            if p <= limit {
                return k;
            }
            k += 1;
        }
    }
}
