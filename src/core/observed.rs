//! Observed expiry: when another party's lease record counts as expired, judged on our clocks.
//!
//! A record written by another party (a tab's heartbeat in the shared election log, a
//! Kubernetes `Lease`) says "held, for `d`". Its writer's timestamps are on the writer's clocks,
//! which we cannot trust: another tab's `performance.now()` has another origin, another host's
//! wall clock may be minutes off. So, as Kubernetes' client-go does, the record's *version* is
//! what we compare: a record with version `v` and duration `d` counts as expired only once `d`
//! has elapsed on **our** clocks since we **first saw** `v`. Any new version (a renewal) restarts
//! the wait.
//!
//! This is safe because the writer started its own belief before it wrote `v` (it stamps the
//! attempt before the write, see [`Holder`](super::Holder)), and we saw `v` after it was written:
//! our wait starts later and lasts as long, so it ends after the writer's belief ends, provided
//! the writer's margin covers the difference in clock rates.
//!
//! Elapsed time is counted on our **monotonic clock only**, unlike the core's rule for a holder
//! judging its own lease ([`Now::elapsed_since`]: the larger of the monotonic and wall
//! movements). For a holder, more elapsed time ends its belief sooner, the safe direction. For
//! an observer it is the opposite: more elapsed time means taking over sooner, while the other
//! party may still hold. So an observer counts the *smaller* amount it can justify: a forward
//! wall step, or a wall clock running fast, must not shorten the wait, and the monotonic clock
//! is the only one it trusts. A sleep on our side (monotonic clock stalled, wall clock moving)
//! then goes uncounted, which only delays a takeover. Monotonic readings earlier than the last
//! one seen are replaced by the last one, so time never runs backwards.
//!
//! The boundary matches the grantor's (a grant is live up to and including its expiry instant,
//! see `tenure::rules::is_live`): a version first seen at `t` with duration `d` is live through
//! `t + d` and counts as expired only strictly after it, from `t + d + 1 µs`.

use super::time::{Micros, MonoTime, Now};

/// Deliberately broken variants of the observed-expiry rule. They take effect only in builds with
/// the `mutations` feature, where the simulation uses them to prove that it catches each bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObservedMutation {
    /// A new version does not restart the wait: the record counts as expired `d` after the
    /// *first* version was seen, so a holder that keeps renewing is judged gone anyway.
    NoRestartOnNewVersion,
    /// The observer judges with its own configured duration instead of the record's, so a
    /// holder that asked for a longer lease is judged gone early.
    OwnDurationOverRecord,
}

impl ObservedMutation {
    /// Every mutation, for tests that must catch them all.
    pub const ALL: [ObservedMutation; 2] = [
        ObservedMutation::NoRestartOnNewVersion,
        ObservedMutation::OwnDurationOverRecord,
    ];
}

/// The first sighting of the current version.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Sighting<V> {
    version: V,
    /// When we first saw `version`, on our monotonic clock.
    first_seen: MonoTime,
    /// How long the record says it holds.
    duration: Micros,
}

/// Tracks one record (one lease name) as another party rewrites it, and says when it counts as
/// expired by the first-seen-version rule (see the module documentation).
///
/// Every method takes the current [`Now`]; nothing here reads a clock.
#[derive(Clone, Debug)]
pub struct Observer<V> {
    /// The latest monotonic reading seen: readings earlier than it count as it.
    last: Option<MonoTime>,
    /// Used for records that carry no duration of their own.
    default_duration: Micros,
    seen: Option<Sighting<V>>,
    #[cfg(feature = "mutations")]
    mutation: Option<ObservedMutation>,
}

impl<V: PartialEq> Observer<V> {
    /// An observer that has seen nothing. `default_duration` is the wait for records that carry
    /// no duration (an empty log, say).
    pub fn new(default_duration: Micros) -> Observer<V> {
        Observer {
            last: None,
            default_duration,
            seen: None,
            #[cfg(feature = "mutations")]
            mutation: None,
        }
    }

    /// Runs the deliberately broken variant `mutation` (see [`ObservedMutation`]).
    #[cfg(feature = "mutations")]
    pub fn with_mutation(mut self, mutation: Option<ObservedMutation>) -> Observer<V> {
        self.mutation = mutation;
        self
    }

    /// Records `now`'s monotonic reading and returns it, never earlier than the last one. The
    /// wall reading is ignored on purpose (see the module documentation).
    fn observe_mono(&mut self, now: Now) -> MonoTime {
        let mono = self.last.map_or(now.mono, |last| last.max(now.mono));
        self.last = Some(mono);
        mono
    }

    /// How long `seen` has left at `mono`: until the first instant at which it counts as
    /// expired, strictly after its duration has elapsed.
    fn left(seen: &Sighting<V>, mono: MonoTime) -> Micros {
        seen.duration
            .saturating_add(Micros(1))
            .saturating_sub(mono.since(seen.first_seen))
    }

    #[inline(always)]
    fn mutated(&self, mutation: ObservedMutation) -> bool {
        #[cfg(feature = "mutations")]
        return self.mutation == Some(mutation);
        #[cfg(not(feature = "mutations"))]
        {
            let _ = mutation;
            false
        }
    }

    /// Records that the record reads `version` with `duration` (`None`: the default) at `now`.
    /// Returns whether this is a new version, which restarts the wait; seeing the same version
    /// again changes nothing (its duration included: a version is immutable).
    pub fn observe(&mut self, now: Now, version: V, duration: Option<Micros>) -> bool {
        let now = self.observe_mono(now);
        if self
            .seen
            .as_ref()
            .is_some_and(|seen| seen.version == version)
        {
            return false;
        }
        let duration = match duration {
            Some(d) if !self.mutated(ObservedMutation::OwnDurationOverRecord) => d,
            _ => self.default_duration,
        };
        let first_seen = match &self.seen {
            Some(seen) if self.mutated(ObservedMutation::NoRestartOnNewVersion) => seen.first_seen,
            _ => now,
        };
        self.seen = Some(Sighting {
            version,
            first_seen,
            duration,
        });
        true
    }

    /// Forgets the record (it was deleted, or we stop watching): the next sighting starts afresh.
    pub fn forget(&mut self) {
        self.seen = None;
    }

    /// The version last seen, if any.
    pub fn version(&self) -> Option<&V> {
        self.seen.as_ref().map(|seen| &seen.version)
    }

    /// How long the version seen has left at `now` by our monotonic clock: the wait until it
    /// counts as expired (zero once it does; a record is still live at the exact instant its
    /// duration has elapsed), or `None` before any sighting.
    pub fn remaining(&mut self, now: Now) -> Option<Micros> {
        let mono = self.observe_mono(now);
        self.seen.as_ref().map(|seen| Self::left(seen, mono))
    }

    /// Whether the version seen counts as expired at `now`: strictly more than its duration has
    /// elapsed on our monotonic clock since we first saw it. False before any sighting (nothing
    /// seen is nothing to take over).
    pub fn is_expired(&mut self, now: Now) -> bool {
        self.remaining(now) == Some(Micros::ZERO)
    }

    /// The first monotonic reading at which the version seen counts as expired (the wall clock
    /// plays no part); `None` before any sighting.
    pub fn expires_at(&self) -> Option<MonoTime> {
        let seen = self.seen.as_ref()?;
        Some(
            seen.first_seen
                .plus(seen.duration.saturating_add(Micros(1))),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: u64 = 1_000_000;

    fn at(s: u64) -> Now {
        Now::from_micros(s * SECOND, 1_700_000_000 * SECOND + s * SECOND)
    }

    #[test]
    fn a_version_expires_its_duration_after_first_sight() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        assert!(!observer.is_expired(at(0)));
        assert_eq!(observer.remaining(at(0)), None);
        assert!(observer.observe(at(1), 7u64, Some(Micros(3 * SECOND))));
        // Seeing it again is no news and does not restart anything.
        assert!(!observer.observe(at(2), 7, Some(Micros(9 * SECOND))));
        assert_eq!(observer.remaining(at(3)), Some(Micros(SECOND + 1)));
        assert_eq!(observer.expires_at(), Some(MonoTime(4 * SECOND + 1)));
        assert!(!observer.is_expired(at(3)));
        // Live up to and including the instant its duration has elapsed, expired just after.
        assert_eq!(observer.remaining(at(4)), Some(Micros(1)));
        assert!(!observer.is_expired(at(4)));
        let just_after = Now::from_micros(4 * SECOND + 1, at(4).wall.0 + 1);
        assert!(observer.is_expired(just_after));
        assert_eq!(observer.remaining(just_after), Some(Micros::ZERO));
    }

    #[test]
    fn a_new_version_restarts_the_wait() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(at(0), 1u64, Some(Micros(3 * SECOND)));
        assert!(observer.observe(at(2), 2, Some(Micros(3 * SECOND))));
        assert!(!observer.is_expired(at(4)));
        assert!(!observer.is_expired(at(5)));
        assert!(observer.is_expired(at(6)));
    }

    #[test]
    fn a_record_without_duration_waits_the_default() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(at(0), 0u64, None);
        assert!(!observer.is_expired(at(5)));
        assert!(observer.is_expired(at(6)));
    }

    #[test]
    fn a_forward_wall_step_on_the_observer_does_not_shorten_the_wait() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(
            Now::from_micros(0, 100 * SECOND),
            "v1",
            Some(Micros(5 * SECOND)),
        );
        // The wall clock jumps an hour ahead after 1 s: still 4 s to wait, by the monotonic clock.
        let stepped = Now::from_micros(SECOND, 3_701 * SECOND);
        assert!(!observer.is_expired(stepped));
        assert_eq!(observer.remaining(stepped), Some(Micros(4 * SECOND + 1)));
        assert_eq!(observer.expires_at(), Some(MonoTime(5 * SECOND + 1)));
        assert!(!observer.is_expired(Now::from_micros(5 * SECOND, 3_705 * SECOND)));
        assert!(observer.is_expired(Now::from_micros(5 * SECOND + 1, 3_705 * SECOND)));
    }

    #[test]
    fn a_sleep_of_the_observer_does_not_shorten_the_wait() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(
            Now::from_micros(0, 100 * SECOND),
            "v1",
            Some(Micros(5 * SECOND)),
        );
        // Asleep for 10 s: the monotonic clock stalls, the wall clock runs. Uncounted: the
        // takeover comes later, never earlier.
        let woken = Now::from_micros(0, 110 * SECOND);
        assert!(!observer.is_expired(woken));
        assert_eq!(observer.remaining(woken), Some(Micros(5 * SECOND + 1)));
        assert!(observer.is_expired(Now::from_micros(5 * SECOND + 1, 115 * SECOND)));
    }

    #[test]
    fn a_wall_step_back_or_a_monotonic_reading_going_back_does_not_stretch_the_wait() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(
            Now::from_micros(0, 3_600 * SECOND),
            "v1",
            Some(Micros(5 * SECOND)),
        );
        // The wall clock steps back an hour; the monotonic clock still counts.
        assert!(observer.is_expired(Now::from_micros(6 * SECOND, 0)));
        // A monotonic reading behind the last one counts as the last one.
        assert!(observer.is_expired(Now::from_micros(SECOND, 0)));
    }

    #[test]
    fn forgetting_starts_afresh() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(at(0), 1u64, None);
        observer.forget();
        assert_eq!(observer.version(), None);
        assert!(observer.observe(at(4), 1, None));
        assert!(!observer.is_expired(at(9)));
        assert!(observer.is_expired(at(10)));
    }

    #[cfg(feature = "mutations")]
    #[test]
    fn each_mutation_judges_a_live_holder_expired() {
        for mutation in ObservedMutation::ALL {
            let mut observer = Observer::new(Micros(2 * SECOND)).with_mutation(Some(mutation));
            // A holder with a 5 s lease renewing every 4 s: never expired.
            let mut expired = false;
            for s in 0..30u64 {
                if s % 4 == 0 {
                    observer.observe(at(s), s, Some(Micros(5 * SECOND)));
                }
                expired |= observer.is_expired(at(s));
            }
            assert!(expired, "{mutation:?} went unnoticed");
        }
    }
}
