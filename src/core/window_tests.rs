//! The safe window against the plain rule: a host that answers admitted readings from the window
//! and records them with `observe_quiet` must see exactly what a host that hands every reading to
//! the core sees, answer by answer and state by state, whatever the clocks do.

use super::*;
use crate::protocol::{GrantOutcome, RenewOutcome, Token};

/// Host readings in µs from a machine whose clocks misbehave now and then.
struct Readings {
    rng: Jitter,
    mono: u64,
    wall: u64,
}

impl Readings {
    fn new(seed: u64) -> Readings {
        Readings {
            rng: Jitter::new(seed),
            mono: 5_000_000,
            wall: 1_700_000_000_000_000,
        }
    }

    /// The next reading: mostly close together with `Date.now()`'s whole-millisecond jitter,
    /// sometimes a sleep, a wall step either way, or a monotonic reading that went back.
    fn next(&mut self) -> Now {
        let step = match self.rng.between(0, 99) {
            0..=59 => self.rng.between(0, 300),
            60..=84 => self.rng.between(300, 40_000),
            _ => self.rng.between(40_000, 900_000),
        };
        self.mono += step;
        self.wall += step;
        match self.rng.between(0, 99) {
            0..=2 => self.wall += self.rng.between(1, 60_000_000), // asleep, or stepped forward
            3..=5 => self.wall -= self.rng.between(1, 60_000_000), // stepped back
            6 => self.mono -= self.rng.between(1, 50_000).min(self.mono), // a broken host
            _ => {}
        }
        // Date.now() moves in whole milliseconds, performance.now() in microseconds.
        Now::from_micros(self.mono, self.wall / 1_000 * 1_000)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.between(0, 99) < percent
    }
}

#[test]
fn a_lease_answers_the_same_with_and_without_its_window() {
    let mut admitted = 0;
    let mut total = 0;
    for seed in 0..300 {
        let mut readings = Readings::new(seed);
        let duration = Micros::from_ms(readings.rng.between(2_000, 20_000));
        let margin = Micros(duration.0 / readings.rng.between(2, 10));
        // `fast` answers admitted readings from its window; `plain` observes everything.
        let mut fast = Lease::new(duration, margin).unwrap();
        let mut plain = fast.clone();
        let mut tokens = 0;
        let mut previous = readings.next();
        for _ in 0..400 {
            let now = readings.next();
            if tokens == 0 || readings.chance(3) {
                tokens += 1;
                let token = Token::new(tokens).unwrap();
                fast.grant_at(token, previous, now);
                plain.grant_at(token, previous, now);
            }
            let ask_remaining = readings.chance(30);
            total += 1;
            match fast.safe_window() {
                Some(window) if window.admits(now) => {
                    admitted += 1;
                    fast.observe_quiet(now.mono);
                    if ask_remaining {
                        assert_eq!(
                            plain.remaining(now),
                            window.remaining(now.mono),
                            "seed {seed}"
                        );
                    } else {
                        assert!(plain.is_safely_held(now), "seed {seed}");
                    }
                }
                _ => {
                    if ask_remaining {
                        assert_eq!(fast.remaining(now), plain.remaining(now), "seed {seed}");
                    } else {
                        assert_eq!(fast.is_safely_held(now), plain.is_safely_held(now));
                    }
                }
            }
            assert_eq!(fast.clock(), plain.clock(), "seed {seed}");
            assert_eq!(fast.grant(), plain.grant(), "seed {seed}");
            previous = now;
        }
    }
    // The comparison means something only if both paths ran often.
    assert!(admitted * 4 > total, "{admitted} of {total} admitted");
    assert!(admitted * 4 < total * 3, "{admitted} of {total} admitted");
}

#[test]
fn a_window_admits_nothing_it_cannot_answer() {
    let mut lease = Lease::new(Micros::from_ms(10_000), Micros::from_ms(1_000)).unwrap();
    assert_eq!(lease.safe_window(), None, "not granted");
    let start = Now::from_micros(1_000_000, 50_000_000);
    lease.grant_at(Token::new(1).unwrap(), start, start);
    let window = lease.safe_window().unwrap();
    assert_eq!(window.mono_from, MonoTime(1_000_000));
    assert_eq!(window.safe_until, MonoTime(10_000_000));
    assert_eq!(window.expires_at, MonoTime(11_000_000));
    assert_eq!(
        (window.offset_min, window.offset_max),
        (49_000_000, 49_025_000)
    );
    assert!(window.admits(Now::from_micros(9_999_999, 58_999_999)));
    assert!(
        !window.admits(Now::from_micros(10_000_000, 59_000_000)),
        "margin"
    );
    assert!(
        !window.admits(Now::from_micros(999_999, 49_999_999)),
        "behind"
    );
    assert!(
        !window.admits(Now::from_micros(2_000_000, 50_999_999)),
        "wall back"
    );
    assert!(
        !window.admits(Now::from_micros(2_000_000, 51_025_001)),
        "wall ahead"
    );
    // Inside the margin there is no window at all.
    assert!(!lease.is_safely_held(Now::from_micros(10_000_000, 59_000_000)));
    assert_eq!(lease.safe_window(), None);
}

#[test]
fn a_holder_answers_the_same_with_and_without_its_window() {
    let mut admitted = 0;
    let mut total = 0;
    for seed in 0..200 {
        let mut readings = Readings::new(seed);
        let config =
            HolderConfig::from_ms(9_000.0, 1_500.0, HolderOptionsMs::default(), seed).unwrap();
        let mut fast = Holder::new(config);
        let mut plain = fast.clone();
        let mut tokens = 0;
        for _ in 0..300 {
            let now = readings.next();
            // Drive both alike: (re-)acquire when idle, answer what they sent, fire timers.
            if fast.phase() == Phase::Idle && readings.chance(50) {
                assert_eq!(fast.acquire(now, false), plain.acquire(now, false));
            } else if readings.chance(20) {
                fast.handle_timeout(now);
                plain.handle_timeout(now);
            }
            let sent_fast: Vec<Output> = std::iter::from_fn(|| fast.poll_output()).collect();
            let sent_plain: Vec<Output> = std::iter::from_fn(|| plain.poll_output()).collect();
            assert_eq!(sent_fast, sent_plain, "seed {seed}");
            for output in sent_fast {
                let Output::Send(request) = output else {
                    continue;
                };
                let reply = match request.kind {
                    RequestKind::Grant { duration_ms } => {
                        tokens += 1;
                        let token = Token::new(tokens).unwrap();
                        Reply::Grant(GrantOutcome::Granted {
                            token,
                            duration_ms: Some(duration_ms),
                        })
                    }
                    RequestKind::Renew { token, duration_ms } => {
                        Reply::Renew(RenewOutcome::Renewed {
                            token,
                            duration_ms: Some(duration_ms),
                        })
                    }
                    RequestKind::Release { .. } => continue,
                };
                let replied = readings.next();
                fast.handle_reply(replied, request.id, reply.clone());
                plain.handle_reply(replied, request.id, reply);
            }
            // The query, answered from the window when it admits the reading.
            let now = readings.next();
            total += 1;
            match fast.safe_window() {
                Some(window) if window.admits(now) => {
                    admitted += 1;
                    fast.observe_quiet(now.mono);
                    assert!(plain.is_safely_held(now), "seed {seed}");
                }
                _ => assert_eq!(fast.is_safely_held(now), plain.is_safely_held(now)),
            }
            assert_eq!(fast.clock(), plain.clock(), "seed {seed}");
            assert_eq!(fast.phase(), plain.phase(), "seed {seed}");
            assert_eq!(fast.lease().grant(), plain.lease().grant(), "seed {seed}");
            assert_eq!(fast.poll_timeout(), plain.poll_timeout(), "seed {seed}");
        }
    }
    assert!(admitted * 5 > total, "{admitted} of {total} admitted");
    assert!(admitted < total, "{admitted} of {total} admitted");
}

#[test]
fn a_holder_has_a_window_only_while_held() {
    let config = HolderConfig::from_ms(9_000.0, 1_000.0, HolderOptionsMs::default(), 1).unwrap();
    let mut holder = Holder::new(config);
    let now = Now::from_micros(1_000_000, 1_700_000_000_000_000);
    assert_eq!(holder.safe_window(), None);
    holder.acquire(now, false).unwrap();
    let Some(Output::Send(request)) = holder.poll_output() else {
        panic!("no grant request")
    };
    assert_eq!(holder.safe_window(), None, "acquiring");
    let granted = Reply::Grant(GrantOutcome::Granted {
        token: Token::new(7).unwrap(),
        duration_ms: None,
    });
    holder.handle_reply(now, request.id, granted);
    let window = holder.safe_window().unwrap();
    assert_eq!(window.safe_until, MonoTime(9_000_000));
    holder.release(now);
    assert_eq!(holder.safe_window(), None, "released");
}
