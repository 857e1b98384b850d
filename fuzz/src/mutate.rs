//! A seeded, JSON-aware byte mutator for running the targets without libFuzzer: byte flips,
//! insertions, deletions, repeats, splices with other inputs, and dictionary words chosen to hit
//! the protocol's edges (numbers at and past 2^53, 2^31 and u64, exponents, nesting, the field
//! names, invalid UTF-8). Deterministic for a seed, so a failure can be reproduced.

/// xorshift64*: small, fast and good enough to pick mutations.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`: any value, each giving its own sequence (SplitMix64 spreads the
    /// seed's bits, and the state is never 0).
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)).max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Words that move JSON and the protocol to their edges.
const DICTIONARY: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"\"",
    b"\\",
    b"\\u0000",
    b"\\ud800",
    b"null",
    b"true",
    b"false",
    b"0",
    b"-0",
    b"1",
    b"-1",
    b"1.5",
    b"1e3",
    b"1e400",
    b"-1e400",
    b"0.0",
    b"2147483647",
    b"2147483648",
    b"4294967296",
    b"9007199254740991",
    b"9007199254740992",
    b"9007199254740993",
    b"18446744073709551615",
    b"18446744073709551616",
    b"\"resource\"",
    b"\"holder\"",
    b"\"durationMs\"",
    b"\"requestId\"",
    b"\"token\"",
    b"\"leaseSecret\"",
    b"\"claimSecret\"",
    b"\"granted\"",
    b"\"renewed\"",
    b"\"reason\"",
    b"\"expiresInMs\"",
    b"\"payload\"",
    b"\"queue\"",
    b"\"worker\"",
    b"\"claimMs\"",
    b"\"itemId\"",
    b"\"items\"",
    b"\"dedupeKey\"",
    b"\"maxAttempts\"",
    b"\"result\"",
    b"\"error\"",
    b"\"__proto__\"",
    b"\"expired\"",
    b"\"not_holder\"",
    b"resource=",
    b"&",
    b"%",
    b"%2B",
    b"%00",
    b"%FF",
    b"+",
    b"=",
    b"\xff",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\t",
    b" ",
    b"\x7f",
    b"\xe2\x80\xa8",
];

/// One to four random mutations of `input`; `others` are other inputs to splice from.
pub fn mutate(rng: &mut Rng, input: &[u8], others: &[Vec<u8>], max_len: usize) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(10) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next_u64() as u8;
            }
            2 => {
                let i = rng.below(len + 1);
                data.insert(i, rng.next_u64() as u8);
            }
            3 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(8)).min(len);
                data.drain(start..end);
            }
            4 if len > 0 => {
                // Repeat a run: deep nesting and long names come from here.
                let start = rng.below(len);
                let end = (start + 1 + rng.below(16)).min(len);
                let run = data[start..end].to_vec();
                let times = 1 + rng.below(64);
                for _ in 0..times {
                    data.splice(end..end, run.iter().copied());
                }
            }
            5 if !others.is_empty() => {
                let other = &others[rng.below(others.len())];
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    let to = from + rng.below(other.len() - from) + 1;
                    let at = rng.below(len + 1);
                    let cut = (at + rng.below(8)).min(len);
                    data.splice(at..cut, other[from..to].iter().copied());
                }
            }
            6 if len > 0 => {
                // Replace a run of digits (a number) with a dictionary word.
                let starts: Vec<usize> = (0..len).filter(|&i| data[i].is_ascii_digit()).collect();
                if let Some(&start) = starts.get(rng.below(starts.len().max(1))) {
                    let end = (start..len)
                        .find(|&i| !data[i].is_ascii_digit())
                        .unwrap_or(len);
                    let word = DICTIONARY[rng.below(DICTIONARY.len())];
                    data.splice(start..end, word.iter().copied());
                }
            }
            7 if len > 1 => {
                data.truncate(rng.below(len));
            }
            _ => {
                let word = DICTIONARY[rng.below(DICTIONARY.len())];
                let at = rng.below(len + 1);
                data.splice(at..at, word.iter().copied());
            }
        }
    }
    data.truncate(max_len);
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_mutations() {
        let seed = br#"{"granted":true,"token":5}"#;
        let run = |s| {
            let mut rng = Rng::new(s);
            (0..50)
                .map(|_| mutate(&mut rng, seed, &[], 4096))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }
}
