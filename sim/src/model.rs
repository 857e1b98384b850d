//! Exhaustive small-model check: every interleaving of two real holders, the reference
//! grantor, a bounded network and discrete time.
//!
//! Where the simulation samples schedules, this explores all of them within small bounds. A
//! state is two [`Holder`]s (the real core, cloned), their clocks, the grantor, the messages in
//! flight (a multiset: any of them may arrive next, so every reordering is covered) and what is
//! left of each fault budget. From each state every enabled action is tried:
//!
//! - time: advance true time by one quantum, with every clock moving a quantum, or one
//!   holder's clocks moving two or none (drift, within an absolute skew of `max_skew` quanta),
//!   or one holder's machine asleep (its wall clock moves, its monotonic clock does not, and
//!   its host re-checks on waking); step one holder's wall clock back;
//! - holders: fire a due timer, wake a holder spuriously, campaign again, release;
//! - network: deliver, drop, duplicate any message in flight, or corrupt a reply (malformed, or
//!   a token lower than the real one);
//! - grantor: restart (grants unexpired at the restart are held a full lease from it), revoke.
//!
//! Due timers fire before time moves on, except within a budget of late timers; a message
//! arrives (or is lost) within `max_delay` quanta of its send. After each action every holder's
//! belief is queried (on a copy of the core, so that a query does not make otherwise equal
//! states differ) and the same invariants as in the simulation are checked. Hosts read the
//! clocks on waking and after a wall-clock step, as in the simulation.
//!
//! States are identified by a 64-bit hash of everything that decides their future, the holders
//! by their `Debug` rendering. A collision would hide a state; among a million states the
//! chance of any collision is about three in a hundred million.
//!
//! The drift assumption becomes: each holder's clocks are at most `max_skew` quanta ahead of or
//! behind true time, so over any interval the holder's elapsed time is at least the true
//! elapsed time minus `2 · max_skew` quanta, and the margin is at least that.

use std::collections::hash_map::{DefaultHasher, Entry};
use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::hash::{Hash, Hasher};

use tenure::core::{
    Failure, FailureKind, Holder, HolderConfig, HolderOptionsMs, Mutation, Now, Output, Phase,
    Reply, RequestId,
};
use tenure::protocol::{GrantOutcome, RenewOutcome, Token};

use crate::grantor::RefGrantor;
use crate::invariants::{check_beliefs, Broken, HoldTracker, Invariant};
use crate::trace::{Answer, Req};

const HOLDERS: usize = 2;
const WALL_EPOCH: u64 = 1_700_000_000_000_000;

/// The bounds of one exploration.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// One quantum of time, µs.
    pub quantum: u64,
    /// Lease duration, in quanta.
    pub lease: u64,
    /// Safety margin, in quanta; at least `2 · max_skew`.
    pub margin: u64,
    /// Renew interval (and request timeout), in quanta.
    pub renew_interval: u64,
    /// True time explored, in quanta.
    pub horizon: u64,
    /// How many of the two holders campaign (the other stays idle).
    pub contenders: usize,
    /// How far a holder's clocks may run ahead of or behind true time, in quanta.
    pub max_skew: i64,
    /// Quanta a holder's clocks may run fast or slow, in total.
    pub drift_steps: u8,
    /// Times true time may advance past a due timer (a late timer), in total. Otherwise due
    /// timers fire before time moves on.
    pub late_timers: u8,
    /// Messages in flight at most; a send into a full network is lost.
    pub max_in_flight: usize,
    /// Quanta a message may stay in flight before it must arrive or be lost.
    pub max_delay: u64,
    /// Campaigns each holder may start after its first (which starts at time zero).
    pub acquires: u8,
    /// Releases in total.
    pub releases: u8,
    /// Message drops in total.
    pub drops: u8,
    /// Message duplications in total.
    pub duplicates: u8,
    /// Corrupted replies in total.
    pub corruptions: u8,
    /// Suspended quanta in total.
    pub suspends: u8,
    /// Backward wall steps (of two quanta) in total.
    pub wall_steps_back: u8,
    /// Spurious wake-ups in total.
    pub wakes: u8,
    /// Grantor restarts in total.
    pub grantor_restarts: u8,
    /// Revocations in total.
    pub revocations: u8,
    /// Stop after this many distinct states (the report then says it was cut short).
    pub max_states: usize,
}

impl Bounds {
    /// No faults at all: a 6 s lease with a 1 s margin, renewed every 3 s, both holders
    /// campaigning from the start, 8 s of true time, messages arriving within a quantum of
    /// their send, at most two in flight.
    pub fn quiet() -> Bounds {
        Bounds {
            quantum: 1_000_000,
            lease: 6,
            margin: 1,
            renew_interval: 3,
            horizon: 8,
            contenders: 2,
            max_skew: 0,
            drift_steps: 0,
            late_timers: 0,
            max_in_flight: 2,
            max_delay: 1,
            acquires: 0,
            releases: 0,
            drops: 0,
            duplicates: 0,
            corruptions: 0,
            suspends: 0,
            wall_steps_back: 0,
            wakes: 0,
            grantor_restarts: 0,
            revocations: 0,
            max_states: 20_000_000,
        }
    }

    /// The fault families the real core is checked under, one exhaustive exploration each,
    /// smallest first: combining them all multiplies the state space past what is worth
    /// running on every test.
    pub fn scenarios() -> Vec<(&'static str, Bounds)> {
        let quiet = Bounds::quiet();
        vec![
            ("quiet", quiet.clone()),
            (
                "slow replies",
                Bounds {
                    max_delay: 3,
                    contenders: 1,
                    drops: 1,
                    ..quiet.clone()
                },
            ),
            (
                "overlapping renewals",
                Bounds {
                    renew_interval: 2,
                    max_delay: 2,
                    contenders: 1,
                    drops: 1,
                    ..quiet.clone()
                },
            ),
            (
                "drift with loss",
                Bounds {
                    max_skew: 1,
                    drift_steps: 2,
                    margin: 2,
                    drops: 1,
                    contenders: 1,
                    ..quiet.clone()
                },
            ),
            (
                "grantor restart and revocation",
                Bounds {
                    grantor_restarts: 1,
                    revocations: 1,
                    ..quiet.clone()
                },
            ),
            (
                "hostile grantor",
                Bounds {
                    corruptions: 1,
                    ..quiet.clone()
                },
            ),
            (
                "late and spurious timers",
                Bounds {
                    late_timers: 1,
                    wakes: 1,
                    ..quiet.clone()
                },
            ),
            (
                "lossy network",
                Bounds {
                    drops: 1,
                    duplicates: 1,
                    ..quiet.clone()
                },
            ),
            (
                "drift",
                Bounds {
                    max_skew: 1,
                    drift_steps: 2,
                    margin: 2,
                    ..quiet.clone()
                },
            ),
            (
                "release and acquire again",
                Bounds {
                    releases: 1,
                    acquires: 1,
                    ..quiet.clone()
                },
            ),
            (
                "sleep and wall steps",
                Bounds {
                    suspends: 2,
                    wall_steps_back: 1,
                    ..quiet
                },
            ),
        ]
    }

    /// These bounds with `extra` more quanta of true time.
    pub fn longer(self, extra: u64) -> Bounds {
        Bounds {
            horizon: self.horizon + extra,
            ..self
        }
    }

    /// The holders' configuration under these bounds.
    pub fn config(&self, seed: u64, mutation: Option<Mutation>) -> HolderConfig {
        let ms = self.quantum as f64 / 1000.0;
        let options = HolderOptionsMs {
            renew_interval_ms: Some(self.renew_interval as f64 * ms),
            ..HolderOptionsMs::default()
        };
        let mut config = HolderConfig::from_ms(
            self.lease as f64 * ms,
            self.margin as f64 * ms,
            options,
            seed,
        )
        .expect("model bounds make a valid configuration");
        config.mutation = mutation;
        config
    }
}

/// A message in flight, as a totally ordered summary (the network is a multiset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Packet {
    /// A request from holder `.0` with id `.1`.
    Request(usize, u64, Req),
    /// A reply to holder `.0`'s request `.1`.
    Reply(usize, u64, Answer),
}

/// A message in flight and how many quanta it has been in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Flight {
    /// The message.
    pub packet: Packet,
    /// Quanta since it was sent.
    pub age: u64,
}

/// One step of the model.
#[derive(Clone, Copy, Debug)]
pub enum Action {
    /// True time advances a quantum; every clock moves with it.
    Tick,
    /// True time advances a quantum; holder `.0`'s clocks move two.
    Fast(usize),
    /// True time advances a quantum; holder `.0`'s clocks stand still.
    Slow(usize),
    /// True time advances a quantum while holder `.0`'s machine sleeps: only its wall moves.
    Suspend(usize),
    /// Holder `.0`'s wall clock steps back two quanta.
    WallBack(usize),
    /// Holder `.0`'s due timer fires.
    Timer(usize),
    /// Holder `.0`'s host calls `handle_timeout` with nothing due.
    Wake(usize),
    /// Holder `.0` starts a campaign.
    Acquire(usize),
    /// Holder `.0` releases.
    Release(usize),
    /// A message arrives.
    Deliver(Flight),
    /// A message is lost.
    Drop(Flight),
    /// A message is duplicated.
    Duplicate(Flight),
    /// A reply arrives malformed.
    Malform(Flight),
    /// A grant or renewal reply carries a lower token.
    Regress(Flight),
    /// The grantor restarts.
    GrantorRestart,
    /// The current grant is revoked.
    Revoke,
}

#[derive(Clone)]
struct ModelHolder {
    core: Holder,
    /// Hash of the core's `Debug` rendering, refreshed whenever the core is touched.
    core_fp: u64,
    mono: u64,
    wall: u64,
    skew: i64,
    acquires: u8,
    track: HoldTracker,
}

impl ModelHolder {
    fn now(&self) -> Now {
        Now::from_micros(self.mono, self.wall)
    }

    fn refresh_fp(&mut self) {
        let mut h = DefaultHasher::new();
        write!(HashWriter(&mut h), "{:?}", self.core).expect("hashing cannot fail");
        self.core_fp = h.finish();
    }
}

#[derive(Clone)]
struct State {
    t: u64,
    holders: [ModelHolder; HOLDERS],
    grantor: RefGrantor,
    /// Sorted, so that the same multiset always hashes the same. Replies carry the real reply;
    /// requests are fully described by their packet.
    net: Vec<(Flight, Option<Reply>)>,
    releases: u8,
    drops: u8,
    duplicates: u8,
    corruptions: u8,
    suspends: u8,
    wall_steps_back: u8,
    grantor_restarts: u8,
    revocations: u8,
    drift_steps: u8,
    late_timers: u8,
    wakes: u8,
}

/// Feeds `Debug` output straight into a hasher, without building a string.
struct HashWriter<'a>(&'a mut DefaultHasher);

impl fmt::Write for HashWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

impl State {
    fn fingerprint(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.t.hash(&mut h);
        for holder in &self.holders {
            holder.core_fp.hash(&mut h);
            (holder.mono, holder.wall, holder.skew).hash(&mut h);
            holder.acquires.hash(&mut h);
            holder.track.hash(&mut h);
        }
        self.grantor.hash_state(&mut h);
        for (flight, _) in &self.net {
            flight.hash(&mut h);
        }
        (self.releases, self.drops, self.duplicates, self.corruptions).hash(&mut h);
        (self.suspends, self.wall_steps_back).hash(&mut h);
        (self.grantor_restarts, self.revocations).hash(&mut h);
        (self.drift_steps, self.late_timers, self.wakes).hash(&mut h);
        h.finish()
    }

    fn send(&mut self, flight: Flight, reply: Option<Reply>, cap: usize) {
        if self.net.len() < cap {
            let at = self.net.partition_point(|(f, _)| *f <= flight);
            self.net.insert(at, (flight, reply));
        }
    }

    fn take(&mut self, flight: Flight) -> Option<Reply> {
        let at = self
            .net
            .iter()
            .position(|(f, _)| *f == flight)
            .expect("the action names a message in flight");
        self.net.remove(at).1
    }

    /// Drains holder `i`'s outputs into the network and checks its events.
    fn drain(&mut self, i: usize, cap: usize) -> Result<(), Broken> {
        while let Some(output) = self.holders[i].core.poll_output() {
            match output {
                Output::Send(request) => {
                    // Durations are fixed by the configuration, so the summary is the request.
                    let packet = Packet::Request(i, request.id.0, Req::of(&request.kind));
                    self.send(Flight { packet, age: 0 }, None, cap);
                }
                Output::Event(event) => {
                    self.holders[i].track.on_event(i, &event)?;
                }
                Output::Abandon(_) => {}
            }
        }
        Ok(())
    }

    /// Runs one input on holder `i` at its current clocks and applies the per-input checks.
    fn input(
        &mut self,
        i: usize,
        cap: usize,
        f: impl FnOnce(&mut Holder, Now),
    ) -> Result<(), Broken> {
        let now = self.holders[i].now();
        self.holders[i].track.saw(now);
        f(&mut self.holders[i].core, now);
        self.drain(i, cap)?;
        let holder = &mut self.holders[i];
        holder.track.after_input(i, &mut holder.core, now)?;
        holder.refresh_fp();
        Ok(())
    }
}

/// What an exploration found.
#[derive(Clone, Debug)]
pub struct ModelReport {
    /// Distinct states reached.
    pub states: usize,
    /// Transitions taken (including those into states already seen).
    pub transitions: u64,
    /// Whether `max_states` cut the exploration short.
    pub truncated: bool,
    /// The first broken invariant and the steps that lead to it from the initial state.
    pub violation: Option<(Invariant, String, Vec<String>)>,
}

impl fmt::Display for ModelReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} states, {} transitions{}",
            self.states,
            self.transitions,
            if self.truncated { " (cut short)" } else { "" }
        )?;
        if let Some((invariant, detail, path)) = &self.violation {
            write!(f, "\ninvariant {invariant} broken: {detail}\npath:")?;
            for step in path {
                write!(f, "\n  {step}")?;
            }
        }
        Ok(())
    }
}

/// The model: bounds plus the holders' configuration.
pub struct Model {
    bounds: Bounds,
    config: HolderConfig,
}

impl Model {
    /// A model of the real core (or a mutated one) under `bounds`.
    pub fn new(bounds: Bounds, mutation: Option<Mutation>) -> Model {
        let config = bounds.config(0, mutation);
        Model { bounds, config }
    }

    /// Both holders start campaigning at time zero; `acquires` more campaigns each may follow
    /// once a hold ends.
    fn initial(&self) -> State {
        let holder = |seed: u64| ModelHolder {
            core: Holder::new(HolderConfig {
                seed,
                ..self.config.clone()
            }),
            core_fp: 0,
            mono: 100 * self.bounds.quantum * (seed + 1),
            wall: WALL_EPOCH + 7 * self.bounds.quantum * seed,
            skew: 0,
            acquires: self.bounds.acquires,
            track: HoldTracker::default(),
        };
        let lease_ms = self.config.lease.as_ms_floor();
        let b = &self.bounds;
        let mut state = State {
            t: 0,
            holders: [holder(1), holder(2)],
            grantor: RefGrantor::new(HOLDERS, lease_ms, true),
            net: Vec::new(),
            releases: b.releases,
            drops: b.drops,
            duplicates: b.duplicates,
            corruptions: b.corruptions,
            suspends: b.suspends,
            wall_steps_back: b.wall_steps_back,
            grantor_restarts: b.grantor_restarts,
            revocations: b.revocations,
            drift_steps: b.drift_steps,
            late_timers: b.late_timers,
            wakes: b.wakes,
        };
        for (i, h) in state.holders.iter_mut().enumerate() {
            if i >= b.contenders {
                h.acquires = 0;
            }
        }
        for i in 0..b.contenders.min(HOLDERS) {
            state
                .input(i, b.max_in_flight, |core, now| {
                    core.acquire(now, true).expect("a new holder is idle")
                })
                .expect("starting a campaign breaks nothing");
        }
        state
    }

    fn timer_due(h: &ModelHolder) -> bool {
        h.core.poll_timeout().is_some_and(|at| at.0 <= h.mono)
    }

    /// Every action enabled in `s`.
    fn actions(&self, s: &State) -> Vec<Action> {
        let b = &self.bounds;
        let mut out = Vec::new();
        // Time moves on past a due timer only as a late timer, within its budget.
        let late = s.holders.iter().any(Self::timer_due);
        let overdue = s.net.iter().any(|(f, _)| f.age >= b.max_delay);
        let time_left =
            s.t + b.quantum <= b.horizon * b.quantum && (!late || s.late_timers > 0) && !overdue;
        if time_left {
            out.push(Action::Tick);
        }
        for (i, h) in s.holders.iter().enumerate() {
            if time_left && s.drift_steps > 0 && h.skew < b.max_skew {
                out.push(Action::Fast(i));
            }
            if time_left && s.drift_steps > 0 && h.skew > -b.max_skew {
                out.push(Action::Slow(i));
            }
            if time_left && s.suspends > 0 {
                out.push(Action::Suspend(i));
            }
            if s.wall_steps_back > 0 {
                out.push(Action::WallBack(i));
            }
            if Self::timer_due(h) {
                out.push(Action::Timer(i));
            }
            if s.wakes > 0 {
                out.push(Action::Wake(i));
            }
            match h.core.phase() {
                Phase::Idle if h.acquires > 0 => out.push(Action::Acquire(i)),
                Phase::Held if s.releases > 0 => out.push(Action::Release(i)),
                _ => {}
            }
        }
        let mut previous = None;
        for (flight, _) in &s.net {
            // Identical copies lead to identical states; try each distinct message once.
            if previous == Some(*flight) {
                continue;
            }
            previous = Some(*flight);
            out.push(Action::Deliver(*flight));
            if s.drops > 0 {
                out.push(Action::Drop(*flight));
            }
            if s.duplicates > 0 && s.net.len() < b.max_in_flight {
                out.push(Action::Duplicate(*flight));
            }
            if let Packet::Reply(to, _, answer) = flight.packet {
                if s.corruptions > 0 {
                    out.push(Action::Malform(*flight));
                    let seen = s.holders[to].core.highest_token().is_some();
                    match answer {
                        Answer::Renewed(t) if t > 0 => out.push(Action::Regress(*flight)),
                        Answer::Granted(t, _) if t > 0 && seen => {
                            out.push(Action::Regress(*flight))
                        }
                        _ => {}
                    }
                }
            }
        }
        if s.grantor_restarts > 0 {
            out.push(Action::GrantorRestart);
        }
        if s.revocations > 0 && s.grantor.live(s.t).is_some() {
            out.push(Action::Revoke);
        }
        out
    }

    fn advance(&self, s: &mut State, still: Option<usize>, suspended: Option<usize>) {
        let q = self.bounds.quantum;
        if s.holders.iter().any(Self::timer_due) {
            s.late_timers -= 1;
        }
        for (flight, _) in s.net.iter_mut() {
            flight.age += 1;
        }
        s.t += q;
        for (i, h) in s.holders.iter_mut().enumerate() {
            if still == Some(i) {
                continue;
            }
            if suspended != Some(i) {
                h.mono += q;
            }
            h.wall += q;
        }
    }

    /// The state after `action`, or the invariant it breaks.
    fn apply(&self, s: &State, action: Action) -> Result<State, Broken> {
        let mut s = s.clone();
        let q = self.bounds.quantum;
        let cap = self.bounds.max_in_flight;
        match action {
            Action::Tick => self.advance(&mut s, None, None),
            Action::Fast(i) => {
                self.advance(&mut s, None, None);
                let h = &mut s.holders[i];
                h.mono += q;
                h.wall += q;
                h.skew += 1;
                s.drift_steps -= 1;
            }
            Action::Slow(i) => {
                self.advance(&mut s, Some(i), None);
                s.holders[i].skew -= 1;
                s.drift_steps -= 1;
            }
            Action::Suspend(i) => {
                self.advance(&mut s, None, Some(i));
                s.suspends -= 1;
                // The machine wakes and the host re-checks at once, as hosts do on resume.
                s.input(i, cap, |core, now| core.handle_timeout(now))?;
            }
            Action::WallBack(i) => {
                let h = &mut s.holders[i];
                h.wall -= 2 * q;
                // The host reads the clocks right after the step, as the simulation's per-step
                // checks do: a step back that no reading sees before the machine sleeps hides
                // the sleep from both clocks, which is outside the fault model.
                let now = h.now();
                h.track.saw(now);
                h.core.is_safely_held(now);
                h.refresh_fp();
                s.wall_steps_back -= 1;
            }
            Action::Timer(i) => s.input(i, cap, |core, now| core.handle_timeout(now))?,
            Action::Wake(i) => {
                s.wakes -= 1;
                s.input(i, cap, |core, now| core.handle_timeout(now))?;
            }
            Action::Acquire(i) => {
                s.holders[i].acquires -= 1;
                s.input(i, cap, |core, now| {
                    core.acquire(now, true).expect("only offered while idle")
                })?;
            }
            Action::Release(i) => {
                s.releases -= 1;
                s.input(i, cap, |core, now| core.release(now))?;
            }
            Action::Deliver(flight) => {
                let reply = s.take(flight);
                match flight.packet {
                    Packet::Request(from, id, req) => {
                        let kind = self.request_kind(req);
                        let answer = s.grantor.handle(s.t, from, 0, RequestId(id), &kind);
                        if let Some(reply) = answer.reply {
                            let packet = Packet::Reply(from, id, Answer::of(&reply));
                            s.send(Flight { packet, age: 0 }, Some(reply), cap);
                        }
                    }
                    Packet::Reply(to, id, _) => {
                        let reply = reply.expect("replies carry their reply");
                        s.input(to, cap, |core, now| {
                            core.handle_reply(now, RequestId(id), reply)
                        })?;
                    }
                }
            }
            Action::Drop(flight) => {
                s.take(flight);
                s.drops -= 1;
            }
            Action::Duplicate(flight) => {
                let reply = s
                    .net
                    .iter()
                    .find(|(f, _)| *f == flight)
                    .map(|(_, r)| r.clone())
                    .expect("the action names a message in flight");
                s.send(flight, reply, cap);
                s.duplicates -= 1;
            }
            Action::Malform(flight) | Action::Regress(flight) => {
                let Packet::Reply(to, id, _) = flight.packet else {
                    unreachable!("only replies are corrupted")
                };
                let reply = s.take(flight).expect("replies carry their reply");
                let seen = s.holders[to].core.highest_token().map_or(0, |t| t.get());
                let corrupted = match (action, reply) {
                    (Action::Malform(_), _) => Reply::Failed(Failure::of(FailureKind::Malformed)),
                    (_, Reply::Renew(RenewOutcome::Renewed { token, duration_ms })) => {
                        Reply::Renew(RenewOutcome::Renewed {
                            token: lower(token),
                            duration_ms,
                        })
                    }
                    // A lower grant token than one the holder saw: one it can recognise as
                    // stale. A lie about a token it never saw is undetectable by any holder.
                    (_, Reply::Grant(GrantOutcome::Granted { token, duration_ms })) => {
                        Reply::Grant(GrantOutcome::Granted {
                            token: Token::new(lower(token).get().min(seen))
                                .expect("no larger than a valid token"),
                            duration_ms,
                        })
                    }
                    (_, other) => other,
                };
                let packet = Packet::Reply(to, id, Answer::of(&corrupted));
                s.send(Flight { packet, ..flight }, Some(corrupted), cap);
                s.corruptions -= 1;
            }
            Action::GrantorRestart => {
                s.grantor.down(s.t);
                s.grantor.up(s.t);
                s.grantor_restarts -= 1;
            }
            Action::Revoke => {
                s.grantor.revoke(s.t);
                s.revocations -= 1;
            }
        }
        // What each holder believes now. The query runs on a copy, so that states differ only
        // where the core was really driven (a query moves the core's clock floor forward).
        let mut beliefs = Vec::with_capacity(HOLDERS);
        for (i, h) in s.holders.iter_mut().enumerate() {
            let now = h.now();
            let mut probe = h.core.clone();
            if let Some(token) = h.track.sample(i, &mut probe, now)? {
                beliefs.push((i, token));
            }
        }
        check_beliefs(&s.grantor, s.t, &beliefs)?;
        Ok(s)
    }

    fn request_kind(&self, req: Req) -> tenure::core::RequestKind {
        use tenure::core::RequestKind;
        let duration_ms = self.config.lease.as_ms_floor();
        let token = |t: u64| Token::new(t).expect("tokens in flight are valid");
        match req {
            Req::Grant => RequestKind::Grant { duration_ms },
            Req::Renew(t) => RequestKind::Renew {
                token: token(t),
                duration_ms,
            },
            Req::Release(t) => RequestKind::Release {
                token: token(t),
                hand_to: None,
            },
        }
    }

    /// Explores every state reachable within the bounds, depth first, and stops at the first
    /// broken invariant.
    pub fn explore(&self) -> ModelReport {
        let init = self.initial();
        let init_fp = init.fingerprint();
        // How each state was first reached, to rebuild the path to a violation.
        let mut seen: HashMap<u64, Option<(u64, Action)>> = HashMap::new();
        seen.insert(init_fp, None);
        let mut stack = vec![(init_fp, init)];
        let mut transitions = 0u64;
        while let Some((fp, state)) = stack.pop() {
            for action in self.actions(&state) {
                transitions += 1;
                match self.apply(&state, action) {
                    Err((invariant, detail)) => {
                        let path = self.path_to(&seen, fp, action);
                        return ModelReport {
                            states: seen.len(),
                            transitions,
                            truncated: false,
                            violation: Some((invariant, detail, path)),
                        };
                    }
                    Ok(next) => {
                        let next_fp = next.fingerprint();
                        if let Entry::Vacant(slot) = seen.entry(next_fp) {
                            slot.insert(Some((fp, action)));
                            stack.push((next_fp, next));
                        }
                    }
                }
            }
            if seen.len() >= self.bounds.max_states {
                return ModelReport {
                    states: seen.len(),
                    transitions,
                    truncated: true,
                    violation: None,
                };
            }
        }
        ModelReport {
            states: seen.len(),
            transitions,
            truncated: false,
            violation: None,
        }
    }

    /// The actions from the initial state to `fp`, then `last`, each with the true time and
    /// what the holders were doing after it.
    fn path_to(
        &self,
        seen: &HashMap<u64, Option<(u64, Action)>>,
        fp: u64,
        last: Action,
    ) -> Vec<String> {
        let mut actions = vec![last];
        let mut at = fp;
        while let Some(Some((parent, action))) = seen.get(&at) {
            actions.push(*action);
            at = *parent;
        }
        actions.reverse();
        let mut state = self.initial();
        let mut lines = Vec::with_capacity(actions.len());
        for action in actions {
            let t = state.t;
            match self.apply(&state, action) {
                Ok(next) => {
                    let phases: Vec<String> = next
                        .holders
                        .iter()
                        .map(|h| {
                            let token = h.core.lease().token().map(|t| t.get());
                            format!(
                                "{:?}{}",
                                h.core.phase(),
                                token.map_or(String::new(), |t| format!("({t})"))
                            )
                        })
                        .collect();
                    lines.push(format!(
                        "t={}s {action:?} -> {}",
                        t / self.bounds.quantum,
                        phases.join(", ")
                    ));
                    state = next;
                }
                Err((invariant, _)) => {
                    lines.push(format!(
                        "t={}s {action:?} -> breaks {invariant}",
                        t / self.bounds.quantum
                    ));
                }
            }
        }
        lines
    }
}

fn lower(token: Token) -> Token {
    Token::new(token.get().saturating_sub(1)).expect("lower than a valid token")
}
