//! Noticing that the host slept, for hosts that have no wake event.
//!
//! A holder's timers run on the monotonic clock, which on most platforms stops while the OS
//! sleeps. After a wake the holder's next timer is therefore as far away as it was when the
//! machine went to sleep, although the wall clock says the lease may be long over:
//! [`Holder::is_safely_held`](super::Holder::is_safely_held) answers `false` at once, but a saved
//! signal and `onLeaseLost` would wait for that timer, up to a renew interval. Browsers announce
//! a wake (`visibilitychange`, `resume`); Node does not.
//!
//! So one [`WakeDetector`] per process watches while any lease is held: the host reads both
//! clocks at each of its ticks and hands the reading in; the detector counts the step between
//! readings as [`Clock`] does, and a step in which the wall clock ran ahead of the monotonic
//! clock (by more than [`WALL_JITTER_TOLERANCE`](super::WALL_JITTER_TOLERANCE)) is a sleep or a
//! forward step: the host then calls [`Holder::handle_timeout`](super::Holder::handle_timeout) on
//! every holder that holds a lease, which delivers each loss at once. Ticks come every
//! [`WAKE_CHECK_INTERVAL`] or a quarter of the smallest held margin, whichever is less, so a loss
//! caused by a sleep is delivered that soon after the wake. The cost is one clock reading per
//! tick for the whole process, however many leases are held.
//!
//! A late tick with both clocks moved alike needs nothing: the holders' own timers run on the
//! same monotonic clock, so they are due by then too.

use super::time::{Clock, Micros, MonoTime, Now};

/// The longest time between two ticks while a lease is held: the bound on how late a loss
/// caused by a sleep is delivered after the wake.
pub const WAKE_CHECK_INTERVAL: Micros = Micros(250_000);

/// The shortest time between two ticks, whatever the margins: timers are no finer.
const SHORTEST_INTERVAL: Micros = Micros(1_000);

/// Deliberately broken variants of the wake detector. They take effect only in builds with the
/// `mutations` feature, where tests prove that each one is caught.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WakeMutation {
    /// A wake is a tick that arrived late on the monotonic clock, as a timer-drift detector
    /// judges it: OS sleep, which stops that clock, goes unnoticed.
    MonotonicOnly,
    /// Ticks follow the largest held margin instead of the smallest, so a lease with a short
    /// margin is checked too rarely.
    LargestMargin,
    /// Every new hold restarts the detector's clock, so a wake that a new grant reaches before
    /// the next tick is never reported.
    FreshReadingOnEveryHold,
}

impl WakeMutation {
    /// Every mutation, for tests that must catch them all.
    pub const ALL: [WakeMutation; 3] = [
        WakeMutation::MonotonicOnly,
        WakeMutation::LargestMargin,
        WakeMutation::FreshReadingOnEveryHold,
    ];
}

/// Decides, from successive clock readings, whether the host slept, and when it next needs a
/// reading. Sans-IO: the host reads the clocks and owns the one timer.
#[derive(Clone, Debug, Default)]
pub struct WakeDetector {
    clock: Clock,
    /// The margins of the leases held, each with how many holds have it. Holders of one process
    /// mostly share a configuration, so the list stays short.
    margins: Vec<(Micros, u32)>,
    #[cfg(feature = "mutations")]
    mutation: Option<WakeMutation>,
}

impl WakeDetector {
    /// A detector watching nothing.
    pub fn new() -> WakeDetector {
        WakeDetector::default()
    }

    /// A detector running the deliberately broken variant `mutation`.
    #[cfg(feature = "mutations")]
    pub fn with_mutation(mutation: WakeMutation) -> WakeDetector {
        WakeDetector {
            mutation: Some(mutation),
            ..WakeDetector::default()
        }
    }

    #[inline(always)]
    fn mutated(&self, mutation: WakeMutation) -> bool {
        #[cfg(feature = "mutations")]
        return self.mutation == Some(mutation);
        #[cfg(not(feature = "mutations"))]
        {
            let _ = mutation;
            false
        }
    }

    /// A lease with `margin` is now held. The first hold starts the watch from `now`; later ones
    /// leave the last reading alone, so a sleep since then is still reported at the next tick.
    pub fn hold_started(&mut self, now: Now, margin: Micros) {
        if self.margins.is_empty() || self.mutated(WakeMutation::FreshReadingOnEveryHold) {
            self.clock = Clock::new();
            self.clock.observe(now);
        }
        match self.margins.iter_mut().find(|(m, _)| *m == margin) {
            Some((_, count)) => *count += 1,
            None => self.margins.push((margin, 1)),
        }
    }

    /// A hold with `margin` ended. With none left the watch stops: no ticks are needed.
    pub fn hold_ended(&mut self, margin: Micros) {
        if let Some(i) = self.margins.iter().position(|(m, _)| *m == margin) {
            self.margins[i].1 -= 1;
            if self.margins[i].1 == 0 {
                self.margins.swap_remove(i);
            }
        }
        if self.margins.is_empty() {
            self.clock = Clock::new();
        }
    }

    /// How many holds are watched.
    pub fn holds(&self) -> u32 {
        self.margins.iter().map(|(_, count)| count).sum()
    }

    /// Time between ticks: [`WAKE_CHECK_INTERVAL`], or a quarter of the smallest held margin if
    /// less (at least a millisecond). `None` while nothing is held.
    pub fn interval(&self) -> Option<Micros> {
        let margins = self.margins.iter().map(|(m, _)| *m);
        let margin = if self.mutated(WakeMutation::LargestMargin) {
            margins.max()
        } else {
            margins.min()
        }?;
        Some(
            WAKE_CHECK_INTERVAL
                .min(Micros(margin.0 / 4))
                .max(SHORTEST_INTERVAL),
        )
    }

    /// When the host should next read the clocks and call [`handle_tick`](Self::handle_tick), on
    /// the monotonic clock; `None` while nothing is held.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        let interval = self.interval()?;
        let last = self.clock.last()?;
        Some(last.mono.plus(interval))
    }

    /// Takes the tick's reading. `true` when the host slept or its wall clock stepped forward
    /// since the last reading: the host must then call `handle_timeout` on every holder holding a
    /// lease. Harmless to call early, late or with nothing held (then always `false`).
    pub fn handle_tick(&mut self, now: Now) -> bool {
        if self.margins.is_empty() {
            return false;
        }
        let Some(last) = self.clock.last() else {
            self.clock.observe(now);
            return false;
        };
        let seen = self.clock.observe(now);
        let mono_step = seen.mono.since(last.mono);
        if self.mutated(WakeMutation::MonotonicOnly) {
            let interval = self.interval().unwrap_or(WAKE_CHECK_INTERVAL);
            return mono_step > interval.saturating_add(interval);
        }
        // The clock advances its wall reading by the monotonic step plus any run-ahead beyond
        // the jitter tolerance: a larger wall step is exactly a sleep or a forward step.
        seen.wall.since(last.wall) > mono_step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000;
    const EPOCH: u64 = 1_700_000_000_000_000;

    fn at(mono_ms: u64, wall_ms: u64) -> Now {
        Now::from_micros(mono_ms * MS, EPOCH + wall_ms * MS)
    }

    fn detector() -> WakeDetector {
        WakeDetector::new()
    }

    /// Ticks on schedule from `from_ms` to `to_ms` with both clocks together; true if any tick
    /// reported a wake.
    fn quiet_ticks(d: &mut WakeDetector, from_ms: u64, to_ms: u64, wall_offset_ms: u64) -> bool {
        let mut woke = false;
        let mut t = from_ms;
        while t < to_ms {
            t = d.poll_timeout().map_or(to_ms, |due| due.0 / MS);
            woke |= d.handle_tick(at(t, t + wall_offset_ms));
        }
        woke
    }

    #[test]
    fn nothing_held_needs_no_ticks() {
        let mut d = detector();
        assert_eq!(d.poll_timeout(), None);
        assert_eq!(d.interval(), None);
        assert!(!d.handle_tick(at(0, 0)));
        assert!(!d.handle_tick(at(0, 60_000)));
        assert_eq!(d.poll_timeout(), None);
    }

    #[test]
    fn ticks_every_250_ms_or_a_quarter_of_the_smallest_margin() {
        let mut d = detector();
        d.hold_started(at(100, 100), Micros::from_ms(5_000));
        assert_eq!(d.interval(), Some(WAKE_CHECK_INTERVAL));
        assert_eq!(d.poll_timeout(), Some(MonoTime(350 * MS)));
        d.hold_started(at(200, 200), Micros::from_ms(400));
        d.hold_started(at(200, 200), Micros::from_ms(2_000));
        assert_eq!(d.interval(), Some(Micros::from_ms(100)));
        // The first hold's reading still counts: the next tick is due from it.
        assert_eq!(d.poll_timeout(), Some(MonoTime(200 * MS)));
        d.hold_ended(Micros::from_ms(400));
        assert_eq!(d.interval(), Some(WAKE_CHECK_INTERVAL));
        d.hold_ended(Micros::from_ms(5_000));
        d.hold_ended(Micros::from_ms(2_000));
        assert_eq!(d.holds(), 0);
        assert_eq!(d.poll_timeout(), None);
    }

    #[test]
    fn a_tiny_margin_still_ticks_at_most_once_a_millisecond() {
        let mut d = detector();
        d.hold_started(at(0, 0), Micros(2_000));
        assert_eq!(d.interval(), Some(Micros::from_ms(1)));
    }

    #[test]
    fn holds_with_the_same_margin_are_counted() {
        let mut d = detector();
        for _ in 0..10_000 {
            d.hold_started(at(0, 0), Micros::from_ms(1_000));
        }
        assert_eq!(d.holds(), 10_000);
        for _ in 0..9_999 {
            d.hold_ended(Micros::from_ms(1_000));
        }
        assert_eq!(d.interval(), Some(WAKE_CHECK_INTERVAL));
        d.hold_ended(Micros::from_ms(1_000));
        assert_eq!(d.interval(), None);
        // Ending a hold that was never started changes nothing.
        d.hold_ended(Micros::from_ms(1_000));
        assert_eq!(d.holds(), 0);
    }

    #[test]
    fn quiet_ticks_report_no_wake() {
        let mut d = detector();
        d.hold_started(at(0, 0), Micros::from_ms(2_000));
        assert!(!quiet_ticks(&mut d, 0, 60_000, 0));
        // A late tick (a busy event loop) with both clocks together is no wake either.
        assert!(!d.handle_tick(at(65_000, 65_000)));
        // Wall jitter within the tolerance is not a wake.
        assert!(!d.handle_tick(at(65_250, 65_270)));
        assert!(!d.handle_tick(at(65_500, 65_500)));
    }

    #[test]
    fn os_sleep_is_reported_at_the_first_tick_after_it() {
        let mut d = detector();
        d.hold_started(at(0, 0), Micros::from_ms(2_000));
        assert!(!quiet_ticks(&mut d, 0, 1_000, 0));
        let due = d.poll_timeout().unwrap().0 / MS;
        // Asleep for a minute: the monotonic clock stopped, the wall clock did not. The tick
        // comes when it was due on the monotonic clock, and reports the wake.
        assert!(d.handle_tick(at(due, due + 60_000)));
        // Once: the ticks after it are quiet again.
        assert!(!quiet_ticks(&mut d, due, due + 2_000, 60_000));
    }

    #[test]
    fn a_stopped_process_whose_wall_clock_moved_is_reported() {
        let mut d = detector();
        d.hold_started(at(0, 0), Micros::from_ms(2_000));
        quiet_ticks(&mut d, 0, 1_000, 0);
        // SIGSTOP for a second while the wall clock jumps a minute.
        assert!(d.handle_tick(at(2_000, 62_000)));
    }

    #[test]
    fn a_wall_step_back_is_not_a_wake() {
        let mut d = detector();
        d.hold_started(at(0, 3_600_000), Micros::from_ms(2_000));
        quiet_ticks(&mut d, 0, 1_000, 3_600_000);
        let due = d.poll_timeout().unwrap().0 / MS;
        assert!(!d.handle_tick(at(due, due)));
        // Nor is the wall clock catching up with itself afterwards.
        assert!(!quiet_ticks(&mut d, due, due + 2_000, 0));
    }

    #[test]
    fn a_sleep_before_a_new_hold_is_still_reported() {
        let mut d = detector();
        d.hold_started(at(0, 0), Micros::from_ms(2_000));
        quiet_ticks(&mut d, 0, 1_000, 0);
        // The host wakes and a second grant arrives before the next tick.
        d.hold_started(at(1_100, 61_100), Micros::from_ms(2_000));
        assert!(d.handle_tick(at(1_250, 61_250)));
    }

    #[test]
    fn a_sleep_while_nothing_was_held_is_not_reported_later() {
        let mut d = detector();
        d.hold_started(at(0, 0), Micros::from_ms(2_000));
        quiet_ticks(&mut d, 0, 1_000, 0);
        d.hold_ended(Micros::from_ms(2_000));
        // Slept with nothing held; the next hold starts a fresh watch.
        d.hold_started(at(2_000, 62_000), Micros::from_ms(2_000));
        assert!(!d.handle_tick(at(2_250, 62_250)));
    }

    /// The property the host relies on, checked under one mutation or none: after a wake (and a
    /// grant that arrives before the next tick), the first tick reports it, no later than a
    /// quarter of the smallest held margin after the wake.
    fn catches_every_wake(mut d: WakeDetector) -> bool {
        let short = Micros::from_ms(200);
        d.hold_started(at(0, 0), Micros::from_ms(10_000));
        d.hold_started(at(0, 0), short);
        quiet_ticks(&mut d, 0, 1_000, 0);
        // Asleep for a minute with the monotonic clock stopped, 10 ms after the last tick.
        let last_tick = d.poll_timeout().unwrap().0 / MS - d.interval().unwrap().0 / MS;
        let woke_at = last_tick + 10;
        d.hold_started(at(woke_at, woke_at + 60_000), short);
        let tick = d.poll_timeout().unwrap().0 / MS;
        let reported = d.handle_tick(at(tick, tick + 60_000));
        reported && tick - woke_at <= short.0 / 4 / MS
    }

    #[test]
    fn the_detector_reports_every_wake_in_time() {
        assert!(catches_every_wake(detector()));
    }

    #[cfg(feature = "mutations")]
    #[test]
    fn every_mutation_misses_a_wake_or_reports_it_late() {
        for mutation in WakeMutation::ALL {
            assert!(
                !catches_every_wake(WakeDetector::with_mutation(mutation)),
                "{mutation:?} was not caught"
            );
        }
    }
}
