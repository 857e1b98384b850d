//! The simulation's only source of randomness: a seeded SplitMix64 stream.
//!
//! Everything random in a run (the swarm parameters, latencies, fault times, the holders' jitter
//! seeds) is drawn from one stream, so a seed fully determines a run on every platform.

use tenure::core::Jitter;

/// A seeded pseudo-random stream: the core's own SplitMix64 generator, with the draws a
/// simulation needs on top.
#[derive(Clone, Debug)]
pub struct Rng {
    bits: Jitter,
}

impl Rng {
    /// A stream for `seed`. Seeds are mixed first so that neighbouring seeds diverge at once.
    pub fn new(seed: u64) -> Rng {
        let mut rng = Rng {
            bits: Jitter::new(seed ^ 0x5DEE_CE66_D1CE_4E5B),
        };
        rng.next_u64();
        rng
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.bits.next_u64()
    }

    /// A value in `low..=high` (`low` when `high <= low`).
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        let span = high - low;
        if span == u64::MAX {
            return self.next_u64();
        }
        low + self.next_u64() % (span + 1)
    }

    /// An index below `n` (`n` must be positive).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    /// One of `choices`, uniformly.
    pub fn pick<T: Copy>(&mut self, choices: &[T]) -> T {
        choices[self.below(choices.len())]
    }

    /// An exponentially distributed delay with the given mean, at least 1.
    pub fn exponential(&mut self, mean: u64) -> u64 {
        let u = 1.0 - self.unit();
        ((-u.ln()) * mean as f64).max(1.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_ranges_hold() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            let x = a.range(3, 9);
            assert_eq!(x, b.range(3, 9));
            assert!((3..=9).contains(&x));
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }
}
