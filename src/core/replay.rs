//! What a retried grant or renewal may be promised.
//!
//! A retry (the same attempt sent again) is answered with the original's outcome, not a new one.
//! But whoever retried measures its lease from the retry, later than the original started: the
//! original's duration, repeated verbatim, would let it believe in the lease past the moment the
//! original's promise runs out. So a retry is promised no more than the original has left, in
//! whole milliseconds rounded down, and nothing once less than a millisecond is left. The
//! reference grantor answers retries of its stored replies by this rule ([`crate::rules`]), and
//! so do the JavaScript adapters, which remember their recent calls ([`RecentCalls`]).

use core::time::Duration;

use super::Micros;

/// Whole milliseconds in `d`, rounded down: a holder may believe less than the grantor, never
/// more.
pub fn floor_ms(d: Duration) -> u64 {
    d.as_secs()
        .saturating_mul(1000)
        .saturating_add(u64::from(d.subsec_millis()))
}

/// What a retry may be promised, in ms, when a fresh answer would promise `wanted_ms` and the
/// original's promise has `left` to run: the lesser of the two, or `None` (nothing to promise)
/// when less than a whole millisecond is left.
pub fn promised_ms(wanted_ms: u64, left: Duration) -> Option<u64> {
    Some(floor_ms(left).min(wanted_ms)).filter(|&ms| ms > 0)
}

/// How many recent attempts [`RecentCalls`] remembers; the oldest is forgotten first.
pub const REMEMBERED_CALLS: usize = 1024;

/// One remembered attempt: when it started and what it was promised.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Call {
    key: String,
    started_at: Micros,
    duration_ms: u64,
}

/// The promises of recent successful attempts, keyed by attempt (the caller's text naming
/// it), so that a
/// retry of one is promised only what the original has left, counted from when the original
/// started ([`promised_ms`]). At most [`REMEMBERED_CALLS`] are kept: remembering one more forgets
/// the one remembered longest ago.
#[derive(Clone, Debug, Default)]
pub struct RecentCalls {
    /// Oldest first. A plain vector: at this size a search and a shift cost nothing next to the
    /// network call they answer.
    calls: Vec<Call>,
}

impl RecentCalls {
    /// Remembers nothing yet.
    pub fn new() -> RecentCalls {
        RecentCalls::default()
    }

    /// How many attempts are remembered.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether no attempt is remembered.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Records that attempt `key`, started at `started_at`, was promised `duration_ms`; it
    /// replaces what was remembered of `key` before.
    pub fn remember(&mut self, key: &str, started_at: Micros, duration_ms: u64) {
        if let Some(known) = self.calls.iter().position(|call| call.key == key) {
            self.calls.remove(known);
        }
        self.calls.push(Call {
            key: key.to_owned(),
            started_at,
            duration_ms,
        });
        if self.calls.len() > REMEMBERED_CALLS {
            self.calls.remove(0);
        }
    }

    /// Whole milliseconds the remembered attempt `key` has left at `now`, or `None` when it is
    /// unknown or less than a millisecond is left.
    pub fn remaining_ms(&self, key: &str, now: Micros) -> Option<u64> {
        let call = self.calls.iter().find(|call| call.key == key)?;
        let elapsed = now.0.saturating_sub(call.started_at.0);
        let left = call
            .duration_ms
            .saturating_mul(1000)
            .saturating_sub(elapsed);
        promised_ms(call.duration_ms, Duration::from_micros(left))
    }

    /// What attempt `key`, carried out again, may promise when the grantor now promised
    /// `duration_ms`: no more than the original has left. An attempt not seen before, or whose
    /// original promise has run out, stands on its own: it promises `duration_ms` and is
    /// remembered as started at `started_at`.
    pub fn promise(&mut self, key: &str, started_at: Micros, duration_ms: u64, now: Micros) -> u64 {
        if let Some(left) = self.remaining_ms(key, now) {
            return left.min(duration_ms);
        }
        self.remember(key, started_at, duration_ms);
        duration_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Micros {
        Micros(n * 1000)
    }

    #[test]
    fn a_retry_is_promised_what_is_left_rounded_down() {
        assert_eq!(
            promised_ms(10_000, Duration::from_micros(6_000_900)),
            Some(6_000)
        );
        assert_eq!(promised_ms(1_000, Duration::from_secs(9)), Some(1_000));
        assert_eq!(promised_ms(1_000, Duration::from_micros(999)), None);
        assert_eq!(promised_ms(1_000, Duration::ZERO), None);
    }

    #[test]
    fn a_remembered_attempt_is_promised_only_what_it_has_left() {
        let mut calls = RecentCalls::new();
        assert_eq!(calls.promise("1", ms(100), 5_000, ms(150)), 5_000);
        // Retried 2 s after the original started: 3 s are left, whatever the grantor says now.
        assert_eq!(calls.promise("1", ms(2_000), 5_000, ms(2_100)), 3_000);
        assert_eq!(calls.promise("1", ms(2_000), 1_000, ms(2_100)), 1_000);
        assert_eq!(calls.remaining_ms("1", ms(5_099)), Some(1));
        assert_eq!(calls.remaining_ms("1", ms(5_100)), None);
        // Spent: the next attempt stands on its own and is remembered from its own start.
        assert_eq!(calls.promise("1", ms(6_000), 4_000, ms(6_050)), 4_000);
        assert_eq!(calls.remaining_ms("1", ms(7_000)), Some(3_000));
        assert_eq!(calls.remaining_ms("2", ms(7_000)), None);
    }

    #[test]
    fn only_the_most_recent_attempts_are_remembered() {
        let mut calls = RecentCalls::new();
        for key in 0..=REMEMBERED_CALLS {
            calls.remember(&key.to_string(), ms(0), 60_000);
        }
        assert_eq!(calls.len(), REMEMBERED_CALLS);
        assert_eq!(
            calls.remaining_ms("0", ms(1)),
            None,
            "the oldest was forgotten"
        );
        assert_eq!(calls.remaining_ms("1", ms(1)), Some(59_999));
        // Remembering a known attempt again refreshes it instead of adding a second entry.
        calls.remember("1", ms(10), 60_000);
        calls.remember("next", ms(0), 60_000);
        assert_eq!(calls.len(), REMEMBERED_CALLS);
        assert_eq!(calls.remaining_ms("1", ms(10)), Some(60_000));
        assert_eq!(calls.remaining_ms("2", ms(1)), None);
    }
}
