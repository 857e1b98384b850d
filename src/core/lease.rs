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
        let host_now = now;
        let now = self.clock.observe(now);
        // The clock counts wall time in its own frame, which runs ahead of the host's after a
        // backward step (see `Clock`). `sent` is a host reading, so move it into that frame by
        // the offset that applied when it was read; otherwise every grant after a step back
        // would look expired at once, and a step back while the request was out would hide a
        // sleep that followed it (tenure-sim observed seed 5082).
        let frame_offset = self.clock.frame_offset_at(sent.mono, host_now);
        let sent = Now {
            mono: sent.mono,
            wall: WallTime(sent.wall.0.saturating_add(frame_offset.0)),
        };
        self.grant_seen(token, sent, now, duration);
    }

    /// [`Lease::grant_for`] with `sent` and `now` already in the frame of the caller's clock.
    ///
    /// A [`Holder`](super::Holder) counts time on its own clock and passes the readings it has
    /// observed; a second clock here would only observe them again and agree with the first.
    pub(crate) fn grant_seen(&mut self, token: Token, sent: Now, now: Now, duration: Micros) {
        let start = Now {
            mono: sent.mono.min(now.mono),
            wall: sent.wall.min(now.wall),
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
        self.remaining_seen(now)
    }

    /// Whether more than the margin remains.
    pub fn is_safely_held(&mut self, now: Now) -> bool {
        let now = self.clock.observe(now);
        self.is_safely_held_seen(now)
    }

    /// [`Lease::remaining`] at a reading the caller's clock has already observed.
    pub(crate) fn remaining_seen(&self, now: Now) -> Micros {
        match self.grant {
            None => Micros::ZERO,
            Some(grant) => grant
                .duration
                .saturating_sub(self.elapsed(grant.start, now)),
        }
    }

    /// [`Lease::is_safely_held`] at a reading the caller's clock has already observed.
    pub(crate) fn is_safely_held_seen(&self, now: Now) -> bool {
        if self.grant.is_none() {
            return false;
        }
        self.remaining_seen(now) > self.effective_margin()
    }

    /// The readings at which this lease is safely held and which its clock would observe without
    /// changing anything but its latest monotonic reading; `None` when there are none (not
    /// granted, not safely held at the last reading, or no reading yet). See [`SafeWindow`].
    pub fn safe_window(&self) -> Option<SafeWindow> {
        self.window_on(&self.clock)
    }

    /// Records a reading that [`Lease::safe_window`] admitted, as observing it would.
    pub fn observe_quiet(&mut self, mono: MonoTime) {
        self.clock.observe_quiet(mono);
    }

    #[cfg(test)]
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// [`Lease::safe_window`] for a lease whose time is counted on `clock`.
    pub(crate) fn window_on(&self, clock: &Clock) -> Option<SafeWindow> {
        #[cfg(feature = "mutations")]
        if self.mutation.is_some() {
            return None;
        }
        let grant = self.grant?;
        let last = clock.last()?;
        let (offset_min, offset_max) = clock.quiet_offsets()?;
        // For a quiet reading at monotonic `m`, the clock's wall reading is `m + frame`, so the
        // elapsed time (the larger of the two clocks' elapsed times) is `m - start` with `start`
        // the earlier of the grant's two start stamps in monotonic terms.
        let frame = i128::from(last.wall.0) - i128::from(last.mono.0);
        let start = i128::from(grant.start.mono.0).min(i128::from(grant.start.wall.0) - frame);
        let safe_for = grant.duration.0.checked_sub(self.margin.0)?;
        let safe_until = u64::try_from(start + i128::from(safe_for)).ok()?;
        let expires_at = u64::try_from(start + i128::from(grant.duration.0)).ok()?;
        if safe_until <= last.mono.0 {
            return None;
        }
        Some(SafeWindow {
            mono_from: last.mono,
            safe_until: MonoTime(safe_until),
            expires_at: MonoTime(expires_at),
            offset_min,
            offset_max,
        })
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

/// The readings at which a lease's answer is settled before they are taken.
///
/// Checking a lease observes a reading, which moves the clock on. For a *quiet* reading (see
/// [`Clock::quiet_offsets`]) that move is only "the latest monotonic reading is now this one",
/// and while the lease is safely held the answer follows from the monotonic reading alone. So
/// for every reading `now` with [`SafeWindow::admits`]`(now)`:
/// - `is_safely_held(now)` is `true` and `remaining(now)` is [`SafeWindow::remaining`];
/// - `observe_quiet(now.mono)` leaves the lease exactly as `is_safely_held(now)` would.
///
/// A host that pays for every call into the core (WebAssembly) checks the window itself and
/// calls in only for readings outside it: every decision is still the core's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SafeWindow {
    /// The clock's latest monotonic reading: earlier readings are not admitted.
    pub mono_from: MonoTime,
    /// The lease is safely held at monotonic readings before this one.
    pub safe_until: MonoTime,
    /// Where the remaining time reaches zero, on the monotonic clock.
    pub expires_at: MonoTime,
    /// The lowest admitted `wall − monotonic` offset of a host reading, µs.
    pub offset_min: i128,
    /// The highest admitted `wall − monotonic` offset of a host reading, µs.
    pub offset_max: i128,
}

impl SafeWindow {
    /// Whether the host reading `now` is inside the window.
    pub fn admits(&self, now: Now) -> bool {
        let offset = i128::from(now.wall.0) - i128::from(now.mono.0);
        now.mono >= self.mono_from
            && now.mono < self.safe_until
            && offset >= self.offset_min
            && offset <= self.offset_max
    }

    /// The time left at an admitted reading taken at `mono`.
    pub fn remaining(&self, mono: MonoTime) -> Micros {
        self.expires_at.since(mono)
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
    fn a_sleep_after_a_step_back_while_the_request_was_out_ends_the_lease() {
        const HOUR: u64 = 3_600_000;
        let wall = 7_200_000_000;
        let mut lease = Lease::new(ms(1_000), ms(100)).unwrap();
        lease.grant_at(token(1), at(0, wall), at(0, wall));
        // The renewal is sent; the wall clock steps back an hour while it is out; the machine
        // then sleeps 20 s (the monotonic clock stops) before the reply is read.
        let sent = at(300, wall + 300);
        assert!(lease.is_safely_held(at(350, wall + 350 - HOUR)));
        let reply = at(360, wall + 350 + 20_000 - HOUR);
        lease.grant_at(token(2), sent, reply);
        assert!(
            !lease.is_safely_held(reply),
            "the sleep was hidden by the step back"
        );

        // Two steps back while it was out: the frame at the send is not known, and the host's
        // own (here: the first) frame is used.
        let mut lease = Lease::new(ms(1_000), ms(100)).unwrap();
        lease.grant_at(token(1), at(0, wall), at(0, wall));
        let sent = at(300, wall + 300);
        lease.is_safely_held(at(310, wall + 310 - 60_000));
        lease.is_safely_held(at(320, wall + 320 - 120_000));
        let reply = at(330, wall + 320 + 20_000 - 120_000);
        lease.grant_at(token(2), sent, reply);
        assert!(
            !lease.is_safely_held(reply),
            "the sleep was hidden by two steps back"
        );
        let mut lease = Lease::new(ms(1_000), ms(100)).unwrap();
        lease.grant_at(token(1), at(0, wall), at(0, wall));
        lease.is_safely_held(at(310, wall + 310 - 60_000));
        lease.is_safely_held(at(320, wall + 320 - 120_000));
        let reply = at(330, wall + 330 - 120_000);
        lease.grant_at(token(2), sent, reply);
        assert_eq!(
            lease.remaining(reply),
            ms(970),
            "no sleep: the grant is whole"
        );

        // One step back long before the send: the grant is judged in the stepped frame, whole.
        let mut lease = Lease::new(ms(1_000), ms(100)).unwrap();
        lease.grant_at(token(1), at(0, wall), at(0, wall));
        lease.is_safely_held(at(10, wall + 10 - HOUR));
        let sent = at(500, wall + 500 - HOUR);
        let reply = at(520, wall + 520 - HOUR);
        lease.grant_at(token(2), sent, reply);
        assert_eq!(lease.remaining(reply), ms(980));
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
