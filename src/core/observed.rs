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
//! the writer's margin covers the difference in clock rates. Elapsed time is counted with the
//! core's rule ([`Now::elapsed_since`] over a [`Clock`]): each step between readings as the
//! larger of the monotonic and wall movements, so a sleep on our side (monotonic clock stalled)
//! still counts, and a wall clock stepped back cannot stretch the wait.

use super::time::{Clock, Micros, MonoTime, Now};

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
    /// When we first saw `version`, as our [`Clock`] counts time.
    first_seen: Now,
    /// How long the record says it holds.
    duration: Micros,
}

/// Tracks one record (one lease name) as another party rewrites it, and says when it counts as
/// expired by the first-seen-version rule (see the module documentation).
///
/// Every method takes the current [`Now`]; nothing here reads a clock.
#[derive(Clone, Debug)]
pub struct Observer<V> {
    clock: Clock,
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
            clock: Clock::new(),
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
        let now = self.clock.observe(now);
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

    /// How long the version seen has left at `now` by our clocks (zero once expired), or `None`
    /// before any sighting.
    pub fn remaining(&mut self, now: Now) -> Option<Micros> {
        let now = self.clock.observe(now);
        self.seen.as_ref().map(|seen| {
            seen.duration
                .saturating_sub(now.elapsed_since(seen.first_seen))
        })
    }

    /// Whether the version seen counts as expired at `now`; false before any sighting (nothing
    /// seen is nothing to take over).
    pub fn is_expired(&mut self, now: Now) -> bool {
        self.remaining(now) == Some(Micros::ZERO)
    }

    /// The earliest monotonic reading at which the version seen can count as expired (the wall
    /// clock may make it sooner, so recheck at any wake-up); `None` before any sighting.
    pub fn expires_at(&self) -> Option<MonoTime> {
        let seen = self.seen.as_ref()?;
        let last = self.clock.last()?;
        let left = seen
            .duration
            .saturating_sub(last.elapsed_since(seen.first_seen));
        Some(last.mono.plus(left))
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
        assert_eq!(observer.remaining(at(3)), Some(Micros(SECOND)));
        assert_eq!(observer.expires_at(), Some(MonoTime(4 * SECOND)));
        assert!(!observer.is_expired(at(3)));
        assert!(observer.is_expired(at(4)));
    }

    #[test]
    fn a_new_version_restarts_the_wait() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(at(0), 1u64, Some(Micros(3 * SECOND)));
        assert!(observer.observe(at(2), 2, Some(Micros(3 * SECOND))));
        assert!(!observer.is_expired(at(4)));
        assert!(observer.is_expired(at(5)));
    }

    #[test]
    fn a_record_without_duration_waits_the_default() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(at(0), 0u64, None);
        assert!(!observer.is_expired(at(4)));
        assert!(observer.is_expired(at(5)));
    }

    #[test]
    fn our_sleep_counts_and_a_wall_step_back_does_not_stretch_the_wait() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        let start = Now::from_micros(0, 100 * SECOND);
        observer.observe(start, "v1", Some(Micros(5 * SECOND)));
        // Asleep for 10 s: the monotonic clock stalls, the wall clock runs.
        assert!(observer.is_expired(Now::from_micros(0, 110 * SECOND)));

        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(start, "v1", Some(Micros(5 * SECOND)));
        // The wall clock steps back an hour; the monotonic clock still counts 5 s.
        assert!(observer.is_expired(Now::from_micros(5 * SECOND, 0)));
    }

    #[test]
    fn forgetting_starts_afresh() {
        let mut observer = Observer::new(Micros(5 * SECOND));
        observer.observe(at(0), 1u64, None);
        observer.forget();
        assert_eq!(observer.version(), None);
        assert!(observer.observe(at(4), 1, None));
        assert!(!observer.is_expired(at(6)));
    }

    #[cfg(feature = "mutations")]
    #[test]
    fn each_mutation_judges_a_live_holder_expired() {
        for mutation in ObservedMutation::ALL {
            let mut observer = Observer::new(Micros(2 * SECOND)).with_mutation(Some(mutation));
            // A holder with a 5 s lease renewing every 3 s: never expired.
            let mut expired = false;
            for s in 0..30u64 {
                if s % 3 == 0 {
                    observer.observe(at(s), s, Some(Micros(5 * SECOND)));
                }
                expired |= observer.is_expired(at(s));
            }
            assert!(expired, "{mutation:?} went unnoticed");
        }
    }
}
