//! A holder machine's two clocks as functions of the simulation's true time.
//!
//! True time is the grantor's authoritative clock, in microseconds. Each holder machine has:
//! - a monotonic clock (`performance.now()`) that runs at `1 + mono_ppm / 10^6` times true rate,
//!   and stops while the machine is suspended;
//! - a wall clock (`Date.now()`) that runs at `1 + wall_ppm / 10^6` times true rate, keeps
//!   running through suspend, and can be stepped forward or back at any moment.
//!
//! **Drift assumption.** Both rates stay within `[1 - ρ, 1 + ρ]`. The monotonic clock may stop
//! (suspend) but the wall clock never does, and wall steps are instantaneous. Between any two
//! readings the core takes, at least one clock moves forward by at least `(1 - ρ)` times the
//! true time that passed, unless the wall clock stepped back in that same gap *and* the
//! monotonic clock was stopped: a step back while the machine sleeps. No pair of readings can
//! tell that from no time passing, so it is outside the fault model, and the simulation steps a
//! sleeping machine's wall clock forward only. (Hosts read the clocks whenever they query the
//! holder; the simulation does at every step.) Holders keep a margin of at least `2·ρ·lease`,
//! so a clock running as slow as allowed still stops believing before the grantor's grant
//! ends.

use tenure::core::Now;

const PPM: i128 = 1_000_000;

/// Both clocks of one holder machine.
#[derive(Clone, Debug)]
pub struct MachineClock {
    /// True time of the last rebase.
    base_true: u64,
    /// Monotonic reading at `base_true`.
    base_mono: u64,
    /// Wall reading at `base_true`.
    base_wall: u64,
    mono_ppm: i64,
    wall_ppm: i64,
    suspended: bool,
}

/// `dt` true microseconds as seen by a clock running `ppm` parts per million fast.
fn scaled(dt: u64, ppm: i64) -> u64 {
    let dt = dt as i128;
    (dt + dt * ppm as i128 / PPM).max(0) as u64
}

impl MachineClock {
    /// Clocks reading `mono` and `wall` at true time `now`, running at the given rates.
    pub fn new(now: u64, mono: u64, wall: u64, mono_ppm: i64, wall_ppm: i64) -> MachineClock {
        MachineClock {
            base_true: now,
            base_mono: mono,
            base_wall: wall,
            mono_ppm,
            wall_ppm,
            suspended: false,
        }
    }

    /// The monotonic reading at true time `t` (not before the last rebase).
    pub fn mono_at(&self, t: u64) -> u64 {
        if self.suspended {
            return self.base_mono;
        }
        self.base_mono + scaled(t.saturating_sub(self.base_true), self.mono_ppm)
    }

    /// The wall reading at true time `t` (not before the last rebase).
    pub fn wall_at(&self, t: u64) -> u64 {
        self.base_wall + scaled(t.saturating_sub(self.base_true), self.wall_ppm)
    }

    /// Both readings at true time `t`, as the host passes them to the core.
    pub fn now_at(&self, t: u64) -> Now {
        Now::from_micros(self.mono_at(t), self.wall_at(t))
    }

    /// The current rates, in ppm.
    pub fn rates(&self) -> (i64, i64) {
        (self.mono_ppm, self.wall_ppm)
    }

    fn rebase(&mut self, t: u64) {
        self.base_mono = self.mono_at(t);
        self.base_wall = self.wall_at(t);
        self.base_true = t;
    }

    /// Changes both rates from true time `t` on.
    pub fn set_rates(&mut self, t: u64, mono_ppm: i64, wall_ppm: i64) {
        self.rebase(t);
        self.mono_ppm = mono_ppm;
        self.wall_ppm = wall_ppm;
    }

    /// Steps the wall clock by `delta` microseconds (either sign) at true time `t`.
    pub fn step_wall(&mut self, t: u64, delta: i64) {
        self.rebase(t);
        self.base_wall = (self.base_wall as i64).saturating_add(delta).max(0) as u64;
    }

    /// Stops (suspend) or restarts (resume) the monotonic clock at true time `t`.
    pub fn set_suspended(&mut self, t: u64, suspended: bool) {
        self.rebase(t);
        self.suspended = suspended;
    }

    /// The earliest true time at or after `now` at which the monotonic clock reads at least
    /// `target`, or `None` while it is stopped and behind `target`.
    pub fn true_time_of_mono(&self, now: u64, target: u64) -> Option<u64> {
        if self.mono_at(now) >= target {
            return Some(now);
        }
        if self.suspended {
            return None;
        }
        let need = (target - self.base_mono) as i128;
        let rate = PPM + self.mono_ppm as i128;
        // Solve `x + x * ppm / 10^6 >= need` for the smallest x. The clock's reading floors, so
        // the estimate can be off by one either way: a timer must never fire early, nor later
        // than the host's timer would.
        let mut x = ((need * PPM + rate - 1) / rate) as u64;
        while scaled(x, self.mono_ppm) < need as u64 {
            x += 1;
        }
        while x > 0 && scaled(x - 1, self.mono_ppm) >= need as u64 {
            x -= 1;
        }
        Some((self.base_true + x).max(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drifting_clock_reaches_targets_exactly() {
        for ppm in [-50_000, -1, 0, 7, 50_000] {
            let clock = MachineClock::new(1_000, 5, 10, ppm, 0);
            for target in [5, 6, 1_000, 123_457, 9_999_999] {
                let t = clock.true_time_of_mono(1_000, target).unwrap();
                assert!(clock.mono_at(t) >= target);
                assert!(t == 1_000 || clock.mono_at(t - 1) < target);
            }
        }
    }

    #[test]
    fn suspend_stops_mono_but_not_wall() {
        let mut clock = MachineClock::new(0, 100, 1_000, 0, 0);
        clock.set_suspended(50, true);
        assert_eq!(clock.mono_at(500), 150);
        assert_eq!(clock.wall_at(500), 1_500);
        assert_eq!(clock.true_time_of_mono(500, 151), None);
        clock.set_suspended(500, false);
        assert_eq!(clock.mono_at(600), 250);
        clock.step_wall(600, -2_000);
        assert_eq!(clock.wall_at(600), 0);
    }
}
