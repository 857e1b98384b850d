//! The observed-expiry world: parties on different machines share one record in a
//! compare-and-swap store (a Kubernetes `Lease`, a heartbeat row with a version) and judge
//! another's expiry only by observation, with the real [`Observer`].
//!
//! Each party either holds the record (it wrote the current version, stamping the attempt
//! before the write, and believes with a [`Lease`] on its own clocks while more than its margin
//! is left, renewing by writing the next version) or watches it: it reads the record, feeds
//! each version to its `Observer`, and once that says the version expired, writes the next
//! version naming itself, conditional on the version it judged (the takeover).
//!
//! Around them: store latency, replies lost after the store applied the write, process pauses
//! (clocks running), machine sleep (monotonic clock stopped, wall running), wall steps back,
//! clock drift within ρ; parties write different durations. Forward wall steps on an observer
//! are a separate fault family ([`ObservedFaults::forward_steps`]): the observer counts them as
//! time passed, which no reading can tell from sleep.
//!
//! Invariants, after every step:
//! 1. no early takeover: a party decides a takeover of version `v` only once the true time
//!    since `v`'s writer stamped it is at least `d / (1 + ρ)` (its duration on the fastest
//!    clock allowed) less [`WALL_JITTER_TOLERANCE`]. That allowance is the core's: its clock
//!    lets the wall clock run up to the tolerance ahead of the monotonic clock uncounted, then
//!    counts the whole lead at once, so a lead built up before the first sighting is counted
//!    after it, and an observer's wait may end that much early. Holders' margins cover it;
//!    without the allowance, seeds with clocks drifting apart judge a few milliseconds early;
//! 2. at most one party believes it holds at any true instant.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use tenure::core::{Lease, Micros, Now, ObservedMutation, Observer, WALL_JITTER_TOLERANCE};
use tenure::protocol::Token;

use crate::clock::MachineClock;
use crate::rng::Rng;

const MS: u64 = 1_000;
const SECOND: u64 = 1_000_000;
const WALL_EPOCH: u64 = 1_700_000_000_000_000;

/// Which faults an observed-expiry run may use beyond the default ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObservedFaults {
    /// Step observers' wall clocks forward (outside the drift assumption for observers).
    pub forward_steps: bool,
}

/// What an observed-expiry run broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObservedInvariant {
    /// A party decided a takeover before the version's lease had truly expired.
    EarlyTakeover,
    /// Two parties believed they held at once.
    OneHolder,
}

/// The result of one observed-expiry run.
#[derive(Clone, Debug)]
pub struct ObservedOutcome {
    /// The seed.
    pub seed: u64,
    /// Steps taken.
    pub steps: u64,
    /// Takeovers that succeeded.
    pub takeovers: u64,
    /// Hash of the trace, for determinism checks.
    pub hash: u64,
    /// The first broken invariant and what was seen.
    pub violation: Option<(ObservedInvariant, String)>,
    details: String,
}

impl ObservedOutcome {
    /// What broke, how to reproduce it and the last events; empty when nothing broke.
    pub fn report(&self) -> String {
        let Some((invariant, detail)) = &self.violation else {
            return String::new();
        };
        format!(
            "observed seed {seed}: {invariant:?} broken: {detail}\n\
             reproduce: TENURE_SIM_SEED={seed} TENURE_SIM_RUNS=1 cargo test -p tenure-sim --test observed\n\
             {details}",
            seed = self.seed,
            details = self.details
        )
    }
}

/// The record in the store.
#[derive(Clone, Debug)]
struct Record {
    holder: usize,
    version: u64,
    duration: u64,
    /// True time at which the writer stamped the attempt (the start of its belief).
    stamped: u64,
}

#[derive(Clone, Debug)]
enum Op {
    Read,
    /// Write `version` if the current one is `expected`.
    Write {
        expected: u64,
        version: u64,
        sent: Now,
        stamped: u64,
    },
}

#[derive(Clone, Debug)]
enum Due {
    Wake {
        party: usize,
        gen: u64,
    },
    Store {
        party: usize,
        op: Op,
    },
    Reply {
        party: usize,
        op: Op,
        result: Result<Option<Record>, ()>,
    },
    Fault,
    /// The party's machine wakes from sleep.
    Resume {
        party: usize,
    },
    End,
}

struct Party {
    clock: MachineClock,
    observer: Observer<u64>,
    belief: Lease,
    /// The version this party wrote last and still thinks current.
    holding: Option<u64>,
    duration: u64,
    renew: u64,
    poll: u64,
    /// Frozen (paused or asleep) until this true time.
    frozen_until: u64,
    asleep: bool,
    busy: bool,
    gen: u64,
}

struct World {
    rng: Rng,
    rho_ppm: i64,
    faults: ObservedFaults,
    latency: u64,
    loss: f64,
    t: u64,
    seq: u64,
    queue: BTreeMap<(u64, u64), Due>,
    parties: Vec<Party>,
    record: Option<Record>,
    trace: Vec<String>,
    hash: u64,
    steps: u64,
    takeovers: u64,
    violation: Option<(ObservedInvariant, String)>,
}

/// Runs one seeded observed-expiry schedule with the observers' `mutation`, if any.
pub fn run_observed(
    seed: u64,
    mutation: Option<ObservedMutation>,
    faults: ObservedFaults,
) -> ObservedOutcome {
    let mut rng = Rng::new(seed ^ 0x0B5E_57ED);
    let rho_ppm = rng.pick(&[0, 100, 1_000, 10_000, 50_000]);
    let count = rng.range(2, 4) as usize;
    let mut parties = Vec::new();
    for _ in 0..count {
        let duration = rng.pick(&[1_000, 3_000, 10_000]) * MS;
        // The drift assumption: the holder's margin covers twice the drift over its lease, and
        // the sleep the wall clock's jitter tolerance may hide.
        let margin = (duration / 5).max(2 * duration * rho_ppm as u64 / 1_000_000 + 30 * MS);
        let renew = (duration - margin) * rng.range(20, 70) / 100;
        let own = Micros(rng.pick(&[1_000, 3_000, 10_000]) * MS);
        parties.push(Party {
            clock: MachineClock::new(
                0,
                rng.range(0, 100 * SECOND),
                WALL_EPOCH + rng.range(0, 600 * SECOND),
                0,
                0,
            ),
            observer: Observer::new(own).with_mutation(mutation),
            belief: Lease::new(Micros(duration), Micros(margin)).expect("margin below duration"),
            holding: None,
            duration,
            renew,
            poll: rng.range(duration / 10, duration),
            frozen_until: 0,
            asleep: false,
            busy: false,
            gen: 0,
        });
    }
    let latency = rng.pick(&[100, 2_000, 50_000]);
    let loss = rng.pick(&[0.0, 0.05, 0.2]);
    let mut world = World {
        rng,
        rho_ppm,
        faults,
        latency,
        loss,
        t: 0,
        seq: 0,
        queue: BTreeMap::new(),
        parties,
        record: None,
        trace: Vec::new(),
        hash: 0xcbf2_9ce4_8422_2325,
        steps: 0,
        takeovers: 0,
        violation: None,
    };
    for party in 0..count {
        let at = world.rng.range(0, SECOND);
        world.at(at, Due::Wake { party, gen: 0 });
    }
    world.at(SECOND, Due::Fault);
    world.at(120 * SECOND, Due::End);
    world.run();
    let mut details = String::new();
    if world.violation.is_some() {
        let _ = writeln!(
            details,
            "rho {} ppm, latency {}us, loss {}; durations {:?}\nlast events (true time):",
            world.rho_ppm,
            world.latency,
            world.loss,
            world.parties.iter().map(|p| p.duration).collect::<Vec<_>>()
        );
        for line in world.trace.iter().rev().take(60).rev() {
            let _ = writeln!(details, "  {line}");
        }
    }
    ObservedOutcome {
        seed,
        steps: world.steps,
        takeovers: world.takeovers,
        hash: world.hash,
        violation: world.violation,
        details,
    }
}

impl World {
    fn at(&mut self, t: u64, due: Due) {
        self.seq += 1;
        self.queue.insert((t.max(self.t), self.seq), due);
    }

    fn note(&mut self, line: String) {
        for b in line.as_bytes() {
            self.hash ^= u64::from(*b);
            self.hash = self.hash.wrapping_mul(0x0100_0000_01b3);
        }
        let t = self.t;
        self.trace
            .push(format!("{}.{:06}s {line}", t / SECOND, t % SECOND));
    }

    fn fail(&mut self, invariant: ObservedInvariant, detail: String) {
        if self.violation.is_none() {
            self.note(format!("BROKEN {invariant:?}: {detail}"));
            self.violation = Some((invariant, detail));
        }
    }

    fn now(&self, party: usize) -> Now {
        self.parties[party].clock.now_at(self.t)
    }

    fn run(&mut self) {
        while let Some(((t, _), due)) = self.queue.pop_first() {
            self.t = t;
            self.steps += 1;
            match due {
                Due::End => break,
                Due::Wake { party, gen } => {
                    if self.parties[party].gen == gen {
                        self.wake(party);
                    }
                }
                Due::Store { party, op } => self.store(party, op),
                Due::Reply { party, op, result } => self.reply(party, op, result),
                Due::Resume { party } => {
                    let p = &mut self.parties[party];
                    p.asleep = false;
                    p.clock.set_suspended(self.t, false);
                    self.arm(party);
                }
                Due::Fault => {
                    self.fault();
                    let next = self.rng.exponential(2 * SECOND);
                    self.at(self.t + next, Due::Fault);
                }
            }
            self.check_beliefs();
            if self.violation.is_some() {
                return;
            }
        }
    }

    /// Arms the party's one timer: its renewal while holding, else the next poll or the
    /// observed version's expiry, whichever is first.
    fn arm(&mut self, party: usize) {
        let p = &mut self.parties[party];
        p.gen += 1;
        let gen = p.gen;
        let now = p.clock.now_at(self.t);
        let wait = match p.holding {
            Some(_) => p.renew,
            None => {
                let left = p.observer.remaining(now).map_or(p.poll, |left| left.0 + 1);
                left.min(p.poll)
            }
        };
        let target = now.mono.0 + wait;
        let fire = p
            .clock
            .true_time_of_mono(self.t, target)
            .unwrap_or(p.frozen_until)
            .max(p.frozen_until);
        self.at(fire, Due::Wake { party, gen });
    }

    fn frozen(&self, party: usize) -> bool {
        self.t < self.parties[party].frozen_until
    }

    fn wake(&mut self, party: usize) {
        if self.frozen(party) {
            return self.arm(party);
        }
        if self.parties[party].busy {
            return;
        }
        let now = self.now(party);
        let p = &mut self.parties[party];
        match p.holding {
            Some(version) if p.belief.is_safely_held(now) => {
                let op = Op::Write {
                    expected: version,
                    version: version + 1,
                    sent: now,
                    stamped: self.t,
                };
                self.send(party, op);
            }
            _ => {
                p.holding = None;
                p.belief.clear();
                self.send(party, Op::Read);
            }
        }
    }

    fn send(&mut self, party: usize, op: Op) {
        self.parties[party].busy = true;
        let d = self.rng.exponential(self.latency);
        self.at(self.t + d, Due::Store { party, op });
    }

    fn store(&mut self, party: usize, op: Op) {
        let result = match &op {
            Op::Read => Ok(self.record.clone()),
            Op::Write {
                expected,
                version,
                stamped,
                ..
            } => {
                let current = self.record.as_ref().map_or(0, |r| r.version);
                if current == *expected {
                    let previous = self.record.as_ref().map(|r| r.holder);
                    if previous.is_some_and(|h| h != party) {
                        self.takeovers += 1;
                    }
                    self.note(format!("p{party} writes version {version}"));
                    self.record = Some(Record {
                        holder: party,
                        version: *version,
                        duration: self.parties[party].duration,
                        stamped: *stamped,
                    });
                    Ok(self.record.clone())
                } else {
                    Err(())
                }
            }
        };
        if self.rng.chance(self.loss) {
            // The reply is lost; the party learns on its next read.
            self.parties[party].busy = false;
            return self.arm(party);
        }
        let d = self.rng.exponential(self.latency);
        self.at(self.t + d, Due::Reply { party, op, result });
    }

    fn reply(&mut self, party: usize, op: Op, result: Result<Option<Record>, ()>) {
        if self.frozen(party) {
            // Delivered when the process runs again.
            let at = self.parties[party].frozen_until;
            return self.at(at, Due::Reply { party, op, result });
        }
        self.parties[party].busy = false;
        let now = self.now(party);
        match (op, result) {
            (Op::Write { version, sent, .. }, Ok(_)) => {
                let p = &mut self.parties[party];
                p.holding = Some(version);
                let token = Token::new(version).expect("versions are small");
                p.belief.grant_for(token, sent, now, Micros(p.duration));
                p.observer.observe(now, version, Some(Micros(p.duration)));
            }
            (Op::Write { .. }, Err(())) => {
                let p = &mut self.parties[party];
                p.holding = None;
                p.belief.clear();
                self.send(party, Op::Read);
                return;
            }
            (Op::Read, result) => {
                let record = result.ok().flatten();
                let p = &mut self.parties[party];
                let version = record.as_ref().map_or(0, |r| r.version);
                let duration = record.as_ref().map(|r| Micros(r.duration));
                p.observer.observe(now, version, duration);
                if record.is_none() || p.observer.is_expired(now) {
                    return self.take_over(party, now, record);
                }
            }
        }
        self.arm(party);
    }

    /// The observer judged `record` expired: write the next version over it.
    fn take_over(&mut self, party: usize, now: Now, record: Option<Record>) {
        let expected = record.as_ref().map_or(0, |r| r.version);
        if let Some(r) = &record {
            let current = self.record.as_ref().map(|c| c.version);
            // Only a judgement of the current version can succeed; judge it by true time.
            let floor = (r.duration * 1_000_000 / (1_000_000 + self.rho_ppm as u64))
                .saturating_sub(WALL_JITTER_TOLERANCE.0);
            if current == Some(r.version) && self.t < r.stamped + floor {
                let detail = format!(
                    "p{party} takes over version {} of p{} {}us after it was stamped; its lease \
                     of {}us lasts at least {floor}us on true time",
                    r.version,
                    r.holder,
                    self.t - r.stamped,
                    r.duration
                );
                return self.fail(ObservedInvariant::EarlyTakeover, detail);
            }
        }
        self.note(format!("p{party} judges version {expected} expired"));
        let op = Op::Write {
            expected,
            version: expected + 1,
            sent: now,
            stamped: self.t,
        };
        self.send(party, op);
    }

    fn check_beliefs(&mut self) {
        let mut believers = Vec::new();
        for party in 0..self.parties.len() {
            let now = self.now(party);
            if self.parties[party].belief.is_safely_held(now) {
                believers.push(party);
            }
        }
        if believers.len() > 1 {
            let detail = format!("parties {believers:?} believe they hold");
            self.fail(ObservedInvariant::OneHolder, detail);
        }
    }

    fn fault(&mut self) {
        let party = self.rng.below(self.parties.len());
        if self.frozen(party) {
            return;
        }
        let span = self.rng.range(100 * MS, 20 * SECOND);
        let rho = self.rho_ppm;
        match self.rng.below(5) {
            0 => {
                self.note(format!("FAULT pause p{party} for {span}us"));
                self.parties[party].frozen_until = self.t + span;
            }
            1 => {
                self.note(format!("FAULT p{party} sleeps for {span}us"));
                let p = &mut self.parties[party];
                p.frozen_until = self.t + span;
                p.asleep = true;
                p.clock.set_suspended(self.t, true);
                self.at(self.t + span, Due::Resume { party });
            }
            2 => {
                let back = self.rng.range(1, 3_600 * SECOND) as i64;
                self.note(format!("FAULT p{party} wall clock steps back {back}us"));
                self.parties[party].clock.step_wall(self.t, -back);
            }
            3 => {
                let mono = self.rng.range(0, 2 * rho as u64) as i64 - rho;
                let wall = self.rng.range(0, 2 * rho as u64) as i64 - rho;
                self.parties[party].clock.set_rates(self.t, mono, wall);
            }
            _ if self.faults.forward_steps => {
                let ahead = self.rng.range(1, 600 * SECOND) as i64;
                self.note(format!("FAULT p{party} wall clock steps forward {ahead}us"));
                self.parties[party].clock.step_wall(self.t, ahead);
            }
            _ => {}
        }
    }
}
