//! Seeded jitter. The core never reads a random source: the host passes a seed in.

/// SplitMix64: tiny, fast, and good enough to spread retries apart.
#[derive(Clone, Debug)]
pub struct Jitter {
    state: u64,
}

impl Jitter {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Jitter {
        Jitter { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `low..=high` (`low` if `high < low`).
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        let span = high - low;
        low + self.next_u64() % span.saturating_add(1).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_bounds_hold() {
        let mut a = Jitter::new(42);
        let mut b = Jitter::new(42);
        for _ in 0..1000 {
            let x = a.between(10, 20);
            assert_eq!(x, b.between(10, 20));
            assert!((10..=20).contains(&x));
        }
        assert_eq!(a.between(5, 5), 5);
        assert_eq!(a.between(7, 3), 7);
    }
}
