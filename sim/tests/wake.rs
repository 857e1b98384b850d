//! The wake detector driven with holders in one simulated process: random OS sleeps (the
//! monotonic clock stops, the wall clock runs on), wall-clock steps back, a busy event loop, and
//! holders that re-acquire as soon as they lose. Checked after every step: a holder whose lease a
//! wake ended delivers its loss no later than one tick interval (250 ms, or a quarter of the
//! smallest held margin) after the wake, and a holder is never `Held` while its lease is not
//! safely held once that bound has passed. Each broken detector variant must be caught.

use tenure::core::{
    Event, Holder, HolderConfig, HolderOptionsMs, Jitter, Micros, Now, Output, Phase, Reply,
    RequestKind, WakeDetector, WakeMutation,
};
use tenure::protocol::{GrantOutcome, RenewOutcome, Token};

const MS: u64 = 1_000;
/// The host runs in steps of this much real time: timers fire at the first step at or past due.
const STEP: u64 = MS;
const SEEDS: u64 = 200;

struct Host {
    holders: Vec<(Holder, Micros)>,
    detector: WakeDetector,
    next_token: u64,
}

impl Host {
    /// Performs every output of holder `i` at `now`: the grantor answers at once.
    fn drive(&mut self, i: usize, now: Now) {
        loop {
            let (holder, margin) = &mut self.holders[i];
            let Some(output) = holder.poll_output() else {
                break;
            };
            match output {
                Output::Send(request) => {
                    let reply = match request.kind {
                        RequestKind::Grant { duration_ms } => {
                            self.next_token += 1;
                            let token = Token::new(self.next_token).unwrap();
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
                    holder.handle_reply(now, request.id, reply);
                }
                Output::Event(Event::Acquired { .. }) => self.detector.hold_started(now, *margin),
                Output::Event(Event::Lost { .. }) => {
                    self.detector.hold_ended(*margin);
                    // Lost: try again at once, as an application's onLeaseLost might.
                    let _ = holder.acquire(now, false);
                }
                Output::Event(_) | Output::Abandon(_) => {}
            }
        }
    }
}

/// Runs one seed; `Err` describes the first violation.
fn run(seed: u64, mutation: Option<WakeMutation>) -> Result<(), String> {
    let mut rng = Jitter::new(seed);
    let margins = [100, 400, 2_000];
    let mut host = Host {
        holders: Vec::new(),
        detector: match mutation {
            Some(m) => WakeDetector::with_mutation(m),
            None => WakeDetector::new(),
        },
        next_token: 0,
    };
    // Real time, and the host's clocks.
    let (mut real, mut mono, mut wall) = (0u64, 1_000 * MS, 1_700_000_000_000 * MS);
    let now = |mono: u64, wall: u64| Now::from_micros(mono, wall);
    for (i, margin_ms) in margins.iter().enumerate() {
        let lease_ms = (*margin_ms * 5) as f64;
        let config = HolderConfig::from_ms(
            lease_ms,
            *margin_ms as f64,
            HolderOptionsMs::default(),
            seed + i as u64,
        )
        .unwrap();
        host.holders
            .push((Holder::new(config), Micros::from_ms(*margin_ms)));
        host.holders[i].0.acquire(now(mono, wall), false).unwrap();
        host.drive(i, now(mono, wall));
    }
    // Per holder: the real time by which a wake requires its loss, if one is owed.
    let mut owed: Vec<Option<u64>> = vec![None; margins.len()];
    let end = 120_000 * MS;
    while real < end {
        // What happens before the next step: mostly nothing, sometimes a sleep, a step back or a
        // busy loop.
        let roll = rng.between(0, 1_000);
        let mut woke = false;
        if roll < 3 {
            // OS sleep: only real time and the wall clock move.
            let slept = rng.between(50 * MS, 20_000 * MS);
            real += slept;
            wall += slept;
            woke = true;
        } else if roll < 5 {
            wall = wall.saturating_sub(rng.between(MS, 5_000 * MS));
        } else if roll < 7 {
            let busy = rng.between(MS, 300 * MS);
            real += busy;
            mono += busy;
            wall += busy;
        }
        real += STEP;
        mono += STEP;
        wall += STEP;
        let at = now(mono, wall);
        if woke {
            // The bound the detector promises, from the margins held, not from the detector.
            let expected = Micros(250 * MS).min(Micros(
                host.holders
                    .iter()
                    .filter(|(h, _)| h.phase() == Phase::Held)
                    .map(|(_, m)| m.0 / 4)
                    .min()
                    .unwrap_or(0),
            ));
            for (i, (holder, _)) in host.holders.iter().enumerate() {
                if holder.phase() == Phase::Held && !holder.clone().is_safely_held(at) {
                    owed[i] = Some(real + expected.0 + STEP);
                }
            }
        }
        // The event loop: holders' own timers, then the detector's tick.
        for i in 0..host.holders.len() {
            if host.holders[i]
                .0
                .poll_timeout()
                .is_some_and(|due| due.0 <= mono)
            {
                host.holders[i].0.handle_timeout(at);
                host.drive(i, at);
            }
        }
        if host
            .detector
            .poll_timeout()
            .is_some_and(|due| due.0 <= mono)
            && host.detector.handle_tick(at)
        {
            for i in 0..host.holders.len() {
                if host.holders[i].0.phase() == Phase::Held {
                    host.holders[i].0.handle_timeout(at);
                    host.drive(i, at);
                }
            }
        }
        for (i, (holder, _)) in host.holders.iter().enumerate() {
            let still_owed = holder.phase() == Phase::Held && !holder.clone().is_safely_held(at);
            if !still_owed {
                owed[i] = None;
            } else if owed[i].is_some_and(|by| real > by) {
                return Err(format!(
                    "seed {seed}: holder {i} (margin {} ms) still held, unsafe, {} ms after its loss was due",
                    margins[i],
                    (real - owed[i].unwrap()) / MS
                ));
            }
        }
        // The detector watches exactly the held leases.
        let held = host
            .holders
            .iter()
            .filter(|(h, _)| h.phase() == Phase::Held)
            .count();
        if host.detector.holds() as usize != held {
            return Err(format!(
                "seed {seed}: detector watches {} holds, {held} held",
                host.detector.holds()
            ));
        }
    }
    Ok(())
}

#[test]
fn every_loss_a_wake_causes_is_delivered_within_the_bound() {
    for seed in 0..SEEDS {
        run(seed, None).unwrap();
    }
}

#[test]
fn every_broken_detector_is_caught() {
    for mutation in WakeMutation::ALL {
        let caught = (0..SEEDS).find_map(|seed| run(seed, Some(mutation)).err());
        println!("{mutation:?}: {caught:?}");
        assert!(
            caught.is_some(),
            "{mutation:?} was not caught by seeds below {SEEDS}"
        );
    }
}
