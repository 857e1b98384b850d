//! The time model: two clocks read at the edge, passed in, never read here.
//!
//! A JavaScript host has two clocks and each can lie:
//! - the monotonic clock (`performance.now()`) never steps back, but on most platforms it stops
//!   while the OS sleeps, so it under-counts elapsed time after a laptop wakes;
//! - the wall clock (`Date.now()`) keeps counting through sleep, but NTP or a user can step it in
//!   either direction.
//!
//! The core therefore counts time reading by reading, and each step between two readings as the
//! **larger** of the two clocks' forward movements ([`Clock`]). A stalled monotonic clock cannot
//! hide time that the wall clock saw pass, and a wall clock that steps back cannot add validity
//! because the monotonic clock still counts. A wall clock that steps forward only makes leases end
//! early, which costs availability, never safety.
//!
//! All values are integer microseconds so they are `Ord` and exact; the binding converts the
//! hosts' floating-point milliseconds once, at the edge ([`Now::from_ms`]).

use core::fmt;

/// A span of time in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Micros(pub u64);

impl Micros {
    /// Zero duration.
    pub const ZERO: Micros = Micros(0);

    /// `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Micros {
        Micros(ms.saturating_mul(1000))
    }

    /// Converts milliseconds given as a float, rounding to the nearest microsecond. The caller
    /// has already checked that `ms` is finite and not negative.
    pub fn from_ms_f64(ms: f64) -> Micros {
        // Adding one half and truncating rounds non-negative values without a libm call, which
        // keeps the WebAssembly hot path short. Out-of-range values saturate.
        Micros((ms * 1000.0 + 0.5) as u64)
    }

    /// This duration in (fractional) milliseconds.
    pub fn as_ms_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    /// This duration in whole milliseconds, rounded down.
    pub fn as_ms_floor(self) -> u64 {
        self.0 / 1000
    }

    /// `self - other`, or zero if `other` is larger.
    pub fn saturating_sub(self, other: Micros) -> Micros {
        Micros(self.0.saturating_sub(other.0))
    }

    /// `self + other`, saturating.
    pub fn saturating_add(self, other: Micros) -> Micros {
        Micros(self.0.saturating_add(other.0))
    }
}

impl fmt::Display for Micros {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}ms", self.0 / 1000, self.0 % 1000)
    }
}

/// A reading of the monotonic clock (`performance.now()`), in microseconds since its origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MonoTime(pub u64);

impl MonoTime {
    /// The instant `d` after this one.
    pub fn plus(self, d: Micros) -> MonoTime {
        MonoTime(self.0.saturating_add(d.0))
    }

    /// Time from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: MonoTime) -> Micros {
        Micros(self.0.saturating_sub(earlier.0))
    }
}

/// A reading of the wall clock (`Date.now()`), in microseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WallTime(pub u64);

impl WallTime {
    /// Time from `earlier` to `self`, zero if the wall clock went back.
    pub fn since(self, earlier: WallTime) -> Micros {
        Micros(self.0.saturating_sub(earlier.0))
    }
}

/// Both clocks, read at the same moment. Every input to the core carries one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Now {
    /// The monotonic reading.
    pub mono: MonoTime,
    /// The wall reading.
    pub wall: WallTime,
}

/// Why a pair of host readings cannot be used as time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeError {
    /// A reading is NaN, infinite or negative.
    NotAReading,
}

impl Now {
    /// Both clocks from microsecond counts.
    pub const fn from_micros(mono: u64, wall: u64) -> Now {
        Now {
            mono: MonoTime(mono),
            wall: WallTime(wall),
        }
    }

    /// Converts the hosts' `performance.now()` and `Date.now()` readings.
    pub fn from_ms(mono_ms: f64, wall_ms: f64) -> Result<Now, TimeError> {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if !ok(mono_ms) || !ok(wall_ms) {
            return Err(TimeError::NotAReading);
        }
        Ok(Now {
            mono: MonoTime(Micros::from_ms_f64(mono_ms).0),
            wall: WallTime(Micros::from_ms_f64(wall_ms).0),
        })
    }

    /// Elapsed time from `start` to `self`: the larger of the monotonic and the wall elapsed
    /// times. See the module documentation for why.
    pub fn elapsed_since(self, start: Now) -> Micros {
        self.mono.since(start.mono).max(self.wall.since(start.wall))
    }
}

/// How far the wall clock must run ahead of the monotonic clock before the core counts the
/// difference. `Date.now()` moves in whole milliseconds (coarser in some browsers), so between
/// two close readings it jitters around the monotonic clock; counting every jitter as elapsed
/// time made a lease that was checked often run out early (checked in a tight loop, twice as
/// fast). Movements beyond this are sleep or forward steps, counted in full; at most this much
/// of a sleep can go uncounted, which the margin must cover.
pub const WALL_JITTER_TOLERANCE: Micros = Micros(25_000);

/// Makes each clock non-decreasing, so time never goes backwards inside the core.
///
/// A monotonic reading earlier than the last one seen is replaced by the last one. The wall
/// reading the core works with is not the host's: between two readings it advances by the
/// monotonic clock's movement, plus whatever the host's wall clock has run ahead of the
/// monotonic clock since it last did so (sleep, or a forward step), once that exceeds
/// [`WALL_JITTER_TOLERANCE`]. A backward wall step moves it not at all, and lowers the point
/// from which the next run-ahead is measured. So the wall elapsed time of a lease is, reading by
/// reading, the time whichever clock saw pass, and `Now::elapsed_since` (the larger of the two
/// elapsed times) is that sum.
///
/// Two simpler rules are unsafe, both found by the simulation:
/// - clamping the wall reading (freeze after a step back until real time catches up) blinds the
///   core to OS sleep for as long as the step was large: a clock stepped back an hour let the
///   machine sleep for up to an hour with neither clock moving (tenure-sim seed 80);
/// - counting the wall clock's own forward movement but comparing each clock's elapsed time
///   from the lease start separately loses time when a sleep (seen only by the wall clock) is
///   followed, later in the same lease, by a step back (which hides the wall clock's recent
///   movement, seen by the monotonic clock only from the sleep's end): neither clock alone
///   covers the whole lease (tenure-sim seed 67116).
///
/// Only a step back *and* a sleep between the same two readings can still hide time; no pair of
/// readings can tell that apart from no time passing. Over-counting only ends leases early:
/// availability, never safety.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    last: Option<Now>,
    /// The lowest `host wall − monotonic` offset since the wall clock last ran ahead; a
    /// run-ahead is measured from here.
    baseline: i128,
    /// The latest backward wall step beyond [`WALL_JITTER_TOLERANCE`].
    step_back: Option<StepBack>,
    /// The monotonic reading that saw the step back before it.
    earlier_step_back: Option<MonoTime>,
}

/// A backward wall step as a [`Clock`] saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StepBack {
    /// The monotonic reading that saw it.
    seen: MonoTime,
    /// How far the clock's frame ran ahead of the host's wall clock before it, at least
    /// (`counted wall − host wall`; it grows with each backward step).
    frame_before: i128,
}

fn offset(now: Now) -> i128 {
    i128::from(now.wall.0) - i128::from(now.mono.0)
}

impl Clock {
    /// A clock that has seen nothing yet.
    pub const fn new() -> Clock {
        Clock {
            last: None,
            baseline: 0,
            step_back: None,
            earlier_step_back: None,
        }
    }

    /// Records a reading and returns it as the core counts time (see the type's documentation):
    /// neither clock ever goes backwards.
    pub fn observe(&mut self, now: Now) -> Now {
        let seen = match self.last {
            None => {
                self.baseline = offset(now);
                now
            }
            Some(last) => {
                let mono = now.mono.max(last.mono);
                let host_offset = offset(Now {
                    mono,
                    wall: now.wall,
                });
                let tolerance = i128::from(WALL_JITTER_TOLERANCE.0);
                if host_offset < self.baseline - tolerance {
                    // Before the step, the host's offset was within the tolerance above the
                    // baseline: the frame was at least this far ahead.
                    let counted_offset = offset(last);
                    self.earlier_step_back = self.step_back.map(|step| step.seen);
                    self.step_back = Some(StepBack {
                        seen: mono,
                        frame_before: counted_offset - self.baseline - tolerance,
                    });
                }
                self.baseline = self.baseline.min(host_offset);
                let ahead = host_offset - self.baseline;
                let extra = if ahead > i128::from(WALL_JITTER_TOLERANCE.0) {
                    self.baseline = host_offset;
                    u64::try_from(ahead).unwrap_or(u64::MAX)
                } else {
                    0
                };
                let step = mono.since(last.mono).0.saturating_add(extra);
                Now {
                    mono,
                    wall: WallTime(last.wall.0.saturating_add(step)),
                }
            }
        };
        self.last = Some(seen);
        seen
    }

    /// How far ahead of the host's wall clock this clock's frame ran when the host read
    /// `sent` (a reading taken at or before `now`, the host reading observed last, and not
    /// observed itself): add it to `sent`'s wall reading to judge it in this clock's frame.
    /// Without a backward step since `sent`, that is the frame's offset at `now`. A backward step after
    /// `sent` moved the frame since, so the offset from before that step is the one that
    /// applied; after two such steps it is not known, and zero (the host's own frame, which
    /// counts the steps as time passed) is the answer that never adds validity. Jitter below
    /// [`WALL_JITTER_TOLERANCE`] is not a step: it may shift the answer by that much, which the
    /// margin covers.
    pub fn frame_offset_at(&self, sent: MonoTime, now: Now) -> Micros {
        let after = |seen: MonoTime| seen > sent;
        let current = self
            .last
            .map_or(0, |last| i128::from(last.wall.0) - i128::from(now.wall.0));
        let frame = match self.step_back {
            Some(step) if after(step.seen) => {
                if self.earlier_step_back.is_some_and(after) {
                    0
                } else {
                    step.frame_before
                }
            }
            _ => current,
        };
        Micros(u64::try_from(frame.max(0)).unwrap_or(u64::MAX))
    }

    /// The last reading observed, if any.
    pub fn last(&self) -> Option<Now> {
        self.last
    }

    /// The host offsets (`wall − monotonic`, µs, inclusive) of a *quiet* reading, `None` before
    /// the first reading. A reading is quiet when its monotonic part is not behind the last one
    /// and its offset lies in this band: its wall clock neither fell below the baseline nor ran
    /// ahead by more than [`WALL_JITTER_TOLERANCE`]. Observing a quiet reading changes nothing
    /// but the latest monotonic reading ([`Clock::observe_quiet`]), so a host may skip handing
    /// it over and record just that.
    pub fn quiet_offsets(&self) -> Option<(i128, i128)> {
        self.last.map(|_| {
            (
                self.baseline,
                self.baseline + i128::from(WALL_JITTER_TOLERANCE.0),
            )
        })
    }

    /// Records a quiet reading taken at `mono` exactly as [`Clock::observe`] would: the step
    /// counts on both clocks, and the baseline stays. An earlier `mono` changes nothing.
    pub fn observe_quiet(&mut self, mono: MonoTime) {
        if let Some(last) = self.last {
            if mono > last.mono {
                // Both clocks moved alike, so the frame offset stays.
                self.last = Some(Now {
                    mono,
                    wall: WallTime(last.wall.0.saturating_add(mono.since(last.mono).0)),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_takes_the_larger_clock() {
        let start = Now::from_micros(1_000, 50_000);
        // Monotonic stalled (OS sleep), wall advanced 10 s: elapsed is 10 s.
        let after_sleep = Now::from_micros(1_000, 10_050_000);
        assert_eq!(after_sleep.elapsed_since(start), Micros(10_000_000));
        // Wall stepped back an hour, monotonic advanced 2 s: elapsed is 2 s, not negative.
        let after_step = Now::from_micros(2_001_000, 0);
        assert_eq!(after_step.elapsed_since(start), Micros(2_000_000));
    }

    #[test]
    fn clock_never_goes_backwards() {
        let mut clock = Clock::new();
        clock.observe(Now::from_micros(100, 100));
        let back = clock.observe(Now::from_micros(50, 20));
        assert_eq!(back, Now::from_micros(100, 100));
        // After the step back, time counts on at once: here the monotonic clock saw more.
        let mixed = clock.observe(Now::from_micros(200, 90));
        assert_eq!(mixed, Now::from_micros(200, 200));
    }

    #[test]
    fn sleep_after_a_wall_step_back_is_still_seen() {
        let mut clock = Clock::new();
        let start = clock.observe(Now::from_micros(1_000, 7_200_000_000));
        // NTP steps the wall clock back an hour, then the machine sleeps for ten minutes: the
        // monotonic clock stops, the wall clock moves on from its new reading.
        clock.observe(Now::from_micros(2_000, 3_600_001_000));
        let woke = clock.observe(Now::from_micros(2_000, 4_200_001_000));
        assert_eq!(woke.elapsed_since(start), Micros(600_001_000));
    }

    #[test]
    fn sleep_then_a_later_wall_step_back_loses_no_time() {
        let mut clock = Clock::new();
        let start = clock.observe(Now::from_micros(0, 1_000_000_000));
        // Asleep 5 s: only the wall clock moves.
        clock.observe(Now::from_micros(0, 1_005_000_000));
        // Awake 3 s, then the wall clock steps back 10 s before the next reading.
        let now = clock.observe(Now::from_micros(3_000_000, 998_000_000));
        assert_eq!(now.elapsed_since(start), Micros(8_000_000));
    }

    #[test]
    fn frequent_readings_do_not_speed_the_clock_up() {
        // Read every 10 µs for 200 ms: Date.now() moves in whole milliseconds, so between most
        // readings it stands still and then jumps 1 ms. That is jitter, not elapsed time.
        let mut clock = Clock::new();
        let wall_epoch = 1_700_000_000_000_000;
        let start = clock.observe(Now::from_micros(5_000, wall_epoch));
        let mut last = start;
        for step in 1..=20_000u64 {
            let mono = 5_000 + step * 10;
            let wall = wall_epoch + (step * 10) / 1_000 * 1_000;
            last = clock.observe(Now::from_micros(mono, wall));
        }
        assert_eq!(last.elapsed_since(start), Micros(200_000));
    }

    #[test]
    fn a_run_ahead_within_the_tolerance_waits_and_a_larger_one_counts_in_full() {
        let mut clock = Clock::new();
        let start = clock.observe(Now::from_micros(0, 1_000_000));
        let small = clock.observe(Now::from_micros(1_000, 1_021_000));
        assert_eq!(small.elapsed_since(start), Micros(1_000));
        let slept = clock.observe(Now::from_micros(2_000, 1_052_000));
        assert_eq!(slept.elapsed_since(start), Micros(52_000));
    }

    #[test]
    fn a_quiet_reading_changes_only_the_latest_monotonic_reading() {
        let mut clock = Clock::new();
        assert_eq!(clock.quiet_offsets(), None);
        clock.observe(Now::from_micros(1_000, 5_000));
        assert_eq!(clock.quiet_offsets(), Some((4_000, 29_000)));
        // Both ends of the band are quiet: observing or recording them is the same.
        for wall in [7_000, 7_000 + 25_000] {
            let mut observed = clock;
            let mut recorded = clock;
            observed.observe(Now::from_micros(3_000, wall));
            recorded.observe_quiet(MonoTime(3_000));
            assert_eq!(observed, recorded);
        }
        // Just outside the band the wall clock counts, so the reading is not quiet.
        let mut observed = clock;
        let mut recorded = clock;
        observed.observe(Now::from_micros(3_000, 7_000 + 25_001));
        recorded.observe_quiet(MonoTime(3_000));
        assert_ne!(observed, recorded);
        // A reading behind the last one is not recorded.
        let mut behind = clock;
        behind.observe_quiet(MonoTime(500));
        assert_eq!(behind, clock);
    }

    #[test]
    fn host_readings_are_validated() {
        assert!(Now::from_ms(f64::NAN, 1.0).is_err());
        assert!(Now::from_ms(1.0, -1.0).is_err());
        assert!(Now::from_ms(f64::INFINITY, 1.0).is_err());
        assert_eq!(
            Now::from_ms(1.5, 2.0).unwrap(),
            Now::from_micros(1_500, 2_000)
        );
    }
}
