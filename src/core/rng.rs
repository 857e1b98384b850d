//! Seeded jitter. The core never reads a random source: the host passes a seed in.

use super::time::Micros;

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

    /// Exponential backoff with jitter, the one rule every retry in the core follows: before
    /// the `attempt`-th retry (from 1) the ceiling is `base * 2^(attempt-1)`, at most `max`, and
    /// the wait a pick in its upper half, so retries from many clients spread out instead of
    /// arriving together. The exponent stops at 63, where any base has already reached `max`
    /// (the product saturates), so no attempt count overflows.
    pub fn backoff(&mut self, base: Micros, max: Micros, attempt: u32) -> Micros {
        let shift = attempt.saturating_sub(1).min(63);
        let ceiling = base.0.saturating_mul(1u64 << shift).min(max.0);
        Micros(self.between(ceiling / 2, ceiling))
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

    #[test]
    fn backoff_doubles_per_attempt_up_to_max_and_picks_the_upper_half() {
        let mut jitter = Jitter::new(7);
        let (base, max) = (Micros(100), Micros(1_000));
        for (attempt, ceiling) in [(0, 100), (1, 100), (2, 200), (3, 400), (4, 800), (5, 1_000)] {
            for _ in 0..100 {
                let wait = jitter.backoff(base, max, attempt).0;
                assert!((ceiling / 2..=ceiling).contains(&wait), "{attempt}: {wait}");
            }
        }
        let huge = jitter.backoff(Micros(3), Micros(u64::MAX), u32::MAX).0;
        assert!(
            huge >= u64::MAX / 2,
            "saturates instead of overflowing: {huge}"
        );
        assert_eq!(jitter.backoff(Micros::ZERO, max, 9), Micros::ZERO);
    }
}
