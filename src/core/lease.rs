//! A single lease: how long it lasts, how much margin to keep, and when it started.

use super::config::ConfigError;
use super::time::{Clock, Micros, MonoTime, Now, WallTime};
use crate::protocol::Token;

/// A time-bounded grant as the holder sees it.
///
/// The start is stamped at the moment the grant or renew request was **sent**, never when the
/// reply arrived: the grantor may have started its clock at any point after the send, so the send
/// time is the only stamp that can't make the holder believe longer than the grantor.
#[derive(Clone, Debug)]
pub struct Lease {
    duration: Micros,
    margin: Micros,
    grant: Option<Grant>,
    clock: Clock,
    #[cfg(feature = "mutations")]
    mutation: Option<crate::core::Mutation>,
}

/// The current grant of a [`Lease`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The fencing token.
    pub token: Token,
    /// When the request that obtained this grant was sent.
    pub start: Now,
    /// How long the grant lasts from `start`.
    pub duration: Micros,
}

impl Lease {
    /// A lease of `duration`, safely held only while more than `margin` remains.
    pub fn new(duration: Micros, margin: Micros) -> Result<Lease, ConfigError> {
        if margin == Micros::ZERO {
            return Err(ConfigError::new("safetyMarginMs", "must be greater than 0"));
        }
        if duration <= margin {
            return Err(ConfigError::new(
                "durationMs",
                "must be greater than safetyMarginMs",
            ));
        }
        Ok(Lease::validated(duration, margin))
    }

    /// A lease whose `duration > margin > 0` the caller has already checked.
    pub(crate) fn validated(duration: Micros, margin: Micros) -> Lease {
        debug_assert!(margin > Micros::ZERO && duration > margin);
        Lease {
            duration,
            margin,
            grant: None,
            clock: Clock::new(),
            #[cfg(feature = "mutations")]
            mutation: None,
        }
    }

    #[cfg(feature = "mutations")]
    pub(crate) fn set_mutation(&mut self, mutation: Option<crate::core::Mutation>) {
        self.mutation = mutation;
    }

    /// The configured duration.
    pub fn duration(&self) -> Micros {
        self.duration
    }

    /// The configured safety margin.
    pub fn margin(&self) -> Micros {
        self.margin
    }

    /// The current grant, if any.
    pub fn grant(&self) -> Option<Grant> {
        self.grant
    }

    /// The current token, if granted.
    pub fn token(&self) -> Option<Token> {
        self.grant.map(|g| g.token)
    }

    /// The monotonic send-time stamp of the current grant (the design's `acquiredAt`).
    pub fn acquired_at(&self) -> Option<MonoTime> {
        self.grant.map(|g| g.start.mono)
    }

    /// Records a grant of the configured duration whose request was sent at `sent`.
    pub fn grant_at(&mut self, token: Token, sent: Now, now: Now) {
        self.grant_for(token, sent, now, self.duration);
    }

    /// Records a grant of `duration` (which the grantor may have clamped) sent at `sent`. A send
    /// stamp later than `now` is clamped to `now`: a start in the future would add validity.
    pub fn grant_for(&mut self, token: Token, sent: Now, now: Now, duration: Micros) {
        let raw_now = now;
        let now = self.clock.observe(now);
        // The clock counts wall time in its own frame, which runs ahead of the host's after a
        // backward step (see `Clock`). `sent` is a host reading, so move it into that frame by
        // the same offset; otherwise every grant after a step back would look expired at once.
        let frame_offset = now.wall.since(raw_now.wall);
        let start = Now {
            mono: sent.mono.min(now.mono),
            wall: WallTime(sent.wall.0.saturating_add(frame_offset.0)).min(now.wall),
        };
        self.grant = Some(Grant {
            token,
            start,
            duration,
        });
    }

    /// Forgets the grant.
    pub fn clear(&mut self) {
        self.grant = None;
    }

    /// Time left before the grantor may reclaim, judged on both clocks; zero when not granted.
    pub fn remaining(&mut self, now: Now) -> Micros {
        let now = self.clock.observe(now);
        match self.grant {
            None => Micros::ZERO,
            Some(grant) => grant
                .duration
                .saturating_sub(self.elapsed(grant.start, now)),
        }
    }

    /// Whether more than the margin remains.
    pub fn is_safely_held(&mut self, now: Now) -> bool {
        if self.grant.is_none() {
            return false;
        }
        #[cfg(feature = "mutations")]
        if self.mutation == Some(crate::core::Mutation::IgnoreMargin) {
            return self.remaining(now) > Micros::ZERO;
        }
        self.remaining(now) > self.margin
    }

    /// The monotonic instant at which the lease stops being safely held if the monotonic clock
    /// runs true. The wall clock can only make that earlier, so a timer set here never fires late
    /// for a reason the core could have seen.
    pub fn safe_until(&self) -> Option<MonoTime> {
        self.grant.map(|g| {
            g.start
                .mono
                .plus(g.duration.saturating_sub(self.effective_margin()))
        })
    }

    fn effective_margin(&self) -> Micros {
        #[cfg(feature = "mutations")]
        if self.mutation == Some(crate::core::Mutation::IgnoreMargin) {
            return Micros::ZERO;
        }
        self.margin
    }

    fn elapsed(&self, start: Now, now: Now) -> Micros {
        #[cfg(feature = "mutations")]
        if self.mutation == Some(crate::core::Mutation::NoWallCrossCheck) {
            return now.mono.since(start.mono);
        }
        now.elapsed_since(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(n: u64) -> Token {
        Token::new(n).unwrap()
    }

    fn ms(n: u64) -> Micros {
        Micros::from_ms(n)
    }

    fn at(mono_ms: u64, wall_ms: u64) -> Now {
        Now::from_micros(mono_ms * 1000, wall_ms * 1000)
    }

    #[test]
    fn rejects_bad_durations_naming_the_field() {
        assert_eq!(
            Lease::new(ms(10), ms(0)).unwrap_err().field,
            "safetyMarginMs"
        );
        assert_eq!(Lease::new(ms(10), ms(10)).unwrap_err().field, "durationMs");
    }

    #[test]
    fn clock_starts_at_send_not_at_reply() {
        let mut lease = Lease::new(ms(10_000), ms(2_000)).unwrap();
        // Sent at 0, reply arrived 7 s later: only 3 s remain, inside the margin? No: 3 > 2.
        lease.grant_at(token(1), at(0, 0), at(7_000, 7_000));
        assert_eq!(lease.remaining(at(7_000, 7_000)), ms(3_000));
        assert!(lease.is_safely_held(at(7_000, 7_000)));
        assert!(!lease.is_safely_held(at(8_000, 8_000)));
    }

    #[test]
    fn wall_step_back_adds_no_validity() {
        let mut lease = Lease::new(ms(10_000), ms(1_000)).unwrap();
        lease.grant_at(token(1), at(0, 5_000_000), at(0, 5_000_000));
        // Wall steps back an hour while 8 s pass on the monotonic clock.
        assert_eq!(lease.remaining(at(8_000, 5_000_000 - 3_600_000)), ms(2_000));
        assert!(!lease.is_safely_held(at(9_000, 5_000_000 - 3_599_000)));
    }

    #[test]
    fn wall_step_forward_ends_the_lease_early() {
        let mut lease = Lease::new(ms(10_000), ms(1_000)).unwrap();
        lease.grant_at(token(1), at(0, 1_000_000), at(0, 1_000_000));
        assert!(!lease.is_safely_held(at(1_000, 1_000_000 + 60_000)));
    }

    #[test]
    fn monotonic_stall_during_sleep_expires_the_lease() {
        let mut lease = Lease::new(ms(10_000), ms(1_000)).unwrap();
        lease.grant_at(token(1), at(500, 1_000_000), at(500, 1_000_000));
        // The machine slept 30 s: performance.now() barely moved, Date.now() moved 30 s.
        assert_eq!(lease.remaining(at(510, 1_030_000)), Micros::ZERO);
        assert!(!lease.is_safely_held(at(510, 1_030_000)));
    }

    #[test]
    fn a_send_stamp_in_the_future_is_clamped() {
        let mut lease = Lease::new(ms(10_000), ms(1_000)).unwrap();
        lease.grant_at(token(1), at(5_000, 5_000), at(1_000, 1_000));
        assert_eq!(lease.remaining(at(1_000, 1_000)), ms(10_000));
    }

    #[test]
    fn a_grant_after_a_wall_step_back_is_judged_in_the_same_frame() {
        let mut lease = Lease::new(ms(10_000), ms(1_000)).unwrap();
        lease.grant_at(token(1), at(0, 5_000_000), at(0, 5_000_000));
        // The wall clock steps back an hour; the lease ends on the monotonic clock as usual.
        assert!(!lease.is_safely_held(at(9_500, 5_000_000 - 3_600_000)));
        // A new grant stamped with the (stepped-back) host readings is a fresh, full lease.
        let sent = at(10_000, 5_000_000 - 3_599_500);
        lease.grant_at(token(2), sent, sent);
        assert_eq!(lease.remaining(sent), ms(10_000));
        assert!(lease.is_safely_held(at(15_000, 5_000_000 - 3_594_500)));
        assert!(!lease.is_safely_held(at(19_000, 5_000_000 - 3_590_500)));
    }

    #[test]
    fn safe_until_is_where_the_margin_begins() {
        let mut lease = Lease::new(ms(10_000), ms(1_000)).unwrap();
        assert_eq!(lease.safe_until(), None);
        lease.grant_at(token(3), at(100, 100), at(100, 100));
        assert_eq!(lease.safe_until(), Some(MonoTime(9_100_000)));
        assert!(lease.is_safely_held(at(9_099, 9_099)));
        assert!(!lease.is_safely_held(at(9_100, 9_100)));
    }
}
