//! The batching world: many holders on one client renewing through one real
//! [`tenure::core::Batcher`] over a simulated network.
//!
//! Each holder is a real [`Holder`] with its own settings (leases from 0.6 s to 9 s, margins,
//! intervals and request timeouts varied, some shorter than a sixth of the lease) and its own
//! resource on its own reference grantor ([`RefGrantor`]). Grants and releases go alone over the
//! network ([`Network`]); renewals go to the batcher, and the batches it asks for travel as one
//! message each way. Some holders tell the batcher their settings, the others only their lease
//! (as a caller of `HttpGrantor.renew` that is not a `LeaseHolder` does). All of them share one
//! machine's clocks ([`MachineClock`]), drifting within 100 ppm.
//!
//! The grantor side is hostile as each seed draws: batch requests and replies lost (the client
//! then times the batch out), batches failed whole (503), refused for size (413), answered with
//! one result too few, elements answered with error bodies, replies arriving out of order, a
//! grantor that turns out to have no batch route, and revocations.
//!
//! After every step the world checks ([`BatchInvariant`]): no renewal of a holder whose settings
//! the batcher knows waits longer than half its budget; a lease whose latest attempt failed, or
//! that learned a cap, does not wait past it; every result reaches the renewal it answers, once;
//! batches stay within their size; and no holder believes it holds past its grantor's expiry.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt;
use std::hash::{Hash, Hasher};

use tenure::core::{
    BatchConfig, BatchFailure, BatchId, BatchMutation, BatchOutput, Batcher, Event, Failure,
    FailureKind, Holder, HolderConfig, HolderOptionsMs, HolderTiming, ItemResult, Micros, Output,
    Phase, RenewalId, RenewalSettlement, RenewalSpec, Reply, Request, RequestId, RequestKind,
};
use tenure::protocol::RenewOutcome;

use crate::clock::MachineClock;
use crate::grantor::RefGrantor;
use crate::net::{Msg, Network};
use crate::rng::Rng;

/// The properties the batching world keeps at every step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchInvariant {
    /// A renewal whose holder's settings the batcher knows waits at most half its budget (the
    /// time from when it falls due to when its holder gives up on it), and never longer than
    /// `max_delay`.
    WithinSafeBudget,
    /// A renewal of a lease whose latest attempt failed goes at once.
    UrgentGoesAtOnce,
    /// A renewal of a lease that had a renewal abandoned while waiting waits at most half as
    /// long as that one had.
    LearnedCapKept,
    /// Every result reaches the renewal it answers, and every renewal is settled at most once.
    ResultsReachTheirHolder,
    /// A batch carries 1 to `max_batch` renewals.
    BatchWithinSize,
    /// A holder that believes it safely holds is backed by its grantor at true time.
    GrantorAgrees,
}

impl fmt::Display for BatchInvariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BatchInvariant::WithinSafeBudget => "within-safe-budget",
            BatchInvariant::UrgentGoesAtOnce => "urgent-goes-at-once",
            BatchInvariant::LearnedCapKept => "learned-cap-kept",
            BatchInvariant::ResultsReachTheirHolder => "results-reach-their-holder",
            BatchInvariant::BatchWithinSize => "batch-within-size",
            BatchInvariant::GrantorAgrees => "grantor-agrees",
        })
    }
}

/// A broken invariant.
#[derive(Clone, Debug)]
pub struct BatchViolation {
    /// Which property broke.
    pub invariant: BatchInvariant,
    /// What exactly was seen.
    pub detail: String,
    /// True time of the step, µs.
    pub at: u64,
}

/// What one seed of the batching world did.
#[derive(Clone, Debug)]
pub struct BatchOutcome {
    /// The seed.
    pub seed: u64,
    /// Steps taken.
    pub steps: u64,
    /// Renewals handed to the batcher.
    pub renewals: u64,
    /// Batches sent.
    pub batches: u64,
    /// Renewals that completed (`Renewed` events).
    pub renewed: u64,
    /// Failed renewals and losses of holders whose settings the batcher knew and whose half
    /// budget covers the network's slowest round trip: batching must cost them nothing.
    pub known_failures: u64,
    /// Hash of the run's event log, for determinism checks.
    pub hash: u64,
    /// The first broken invariant, if any.
    pub violation: Option<BatchViolation>,
    /// The run's parameters, for reports.
    pub params: String,
}

impl BatchOutcome {
    /// A readable report of a failure: what broke and how to reproduce it.
    pub fn report(&self) -> String {
        match &self.violation {
            None => String::new(),
            Some(v) => format!(
                "batch seed {}: invariant {} broken at {}us: {}\n  params: {}\n  reproduce: \
                 TENURE_SIM_SEED={} TENURE_SIM_RUNS=1 cargo test -p tenure-sim --test batch",
                self.seed, v.invariant, v.at, v.detail, self.params, self.seed
            ),
        }
    }
}

/// How hostile the grantor and network are in one run.
#[derive(Clone, Debug)]
struct Faults {
    latency: u64,
    jitter: u64,
    loss: f64,
    batch_fails: f64,
    too_large: f64,
    short_reply: f64,
    element_error: f64,
    /// True time from which the grantor answers batches with 501.
    no_route_from: Option<u64>,
    revoke_every: Option<u64>,
    /// The client's timeout on one request (`timeoutMs`).
    http_timeout: u64,
}

impl Faults {
    fn draw(rng: &mut Rng, calm: bool) -> Faults {
        let latency = rng.range(500, 40_000);
        if calm {
            return Faults {
                latency,
                jitter: latency / 4,
                loss: 0.0,
                batch_fails: 0.0,
                too_large: 0.0,
                short_reply: 0.0,
                element_error: 0.0,
                no_route_from: None,
                revoke_every: None,
                http_timeout: 10_000_000,
            };
        }
        let mut p = |max: f64| {
            if rng.chance(0.5) {
                rng.unit() * max
            } else {
                0.0
            }
        };
        let loss = p(0.15);
        let batch_fails = p(0.15);
        let too_large = p(0.05);
        let short_reply = p(0.05);
        let element_error = p(0.15);
        Faults {
            latency,
            jitter: rng.range(0, latency * 3),
            loss,
            batch_fails,
            too_large,
            short_reply,
            element_error,
            no_route_from: rng.chance(0.1).then(|| rng.range(1_000_000, 30_000_000)),
            revoke_every: rng.chance(0.3).then(|| rng.range(2_000_000, 15_000_000)),
            http_timeout: rng.pick(&[300_000, 1_000_000, 3_000_000, 10_000_000]),
        }
    }
}

/// What the world remembers of a renewal it handed to the batcher.
#[derive(Clone, Debug)]
struct Handed {
    holder: usize,
    request: Request,
    queued_at: u64,
    /// The longest it may wait, by the world's own reading of the rules, µs of client time.
    bound: Option<(u64, BatchInvariant)>,
    sent: bool,
    settled: bool,
}

/// What travels in the simulated network besides the single requests.
#[derive(Clone, Debug)]
enum Wire {
    /// A batch arrives at the grantor side.
    Arrives {
        batch: BatchId,
        elements: Vec<(usize, Request)>,
    },
    /// Its reply arrives back at the client: per element, whose request it answers and what.
    Answered {
        batch: BatchId,
        answer: Result<Vec<Answered>, u16>,
    },
    /// The client stops waiting for the batch.
    TimedOut { batch: BatchId },
}

/// One element of a batch reply: whose request (holder, id) it answers, and what.
type Answered = ((usize, RequestId), Element);

#[derive(Clone, Debug)]
enum Element {
    Reply(Reply),
    Error(&'static str),
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Due(Reverse<(u64, u64)>);

struct World {
    rng: Rng,
    now: u64,
    clock: MachineClock,
    holders: Vec<Holder>,
    known: Vec<bool>,
    /// Known holders whose half budget covers the slowest round trip.
    roomy: Vec<bool>,
    grantors: Vec<RefGrantor>,
    /// Holders waiting to acquire again, and from when.
    reacquire_at: Vec<Option<u64>>,
    /// Holders that will release, and when.
    release_at: Vec<(u64, usize)>,
    batcher: Batcher,
    max_batch: usize,
    max_delay: Option<Micros>,
    faults: Faults,
    network: Network,
    wire: BinaryHeap<(Due, usize)>,
    wire_items: Vec<Option<Wire>>,
    wire_seq: u64,
    handed: BTreeMap<RenewalId, Handed>,
    /// Renewals sent alone (no batch route, or a batch refused for size), by holder and id.
    alone: BTreeMap<(usize, RequestId), RenewalId>,
    pending_batches: BTreeMap<BatchId, Vec<RenewalId>>,
    /// The world's own record: leases whose latest attempt through the batcher failed.
    urgent: Vec<bool>,
    /// The world's own record: caps learned from abandoned renewals, µs.
    caps: Vec<Option<u64>>,
    next_revoke: Option<u64>,
    steps: u64,
    renewals: u64,
    batches: u64,
    renewed: u64,
    known_failures: u64,
    hasher: std::collections::hash_map::DefaultHasher,
    violation: Option<BatchViolation>,
}

/// Runs one seeded schedule of the batching world (with `calm`, a network that never fails).
pub fn run_batch(seed: u64, mutation: Option<BatchMutation>, calm: bool) -> BatchOutcome {
    let mut world = World::new(seed, mutation, calm);
    let params = world.params();
    world.run();
    BatchOutcome {
        seed,
        steps: world.steps,
        renewals: world.renewals,
        batches: world.batches,
        renewed: world.renewed,
        known_failures: world.known_failures,
        hash: world.hasher.finish(),
        violation: world.violation,
        params,
    }
}

/// The end of a run, true µs.
const RUN_LENGTH: u64 = 40_000_000;

impl World {
    fn new(seed: u64, mutation: Option<BatchMutation>, calm: bool) -> World {
        let mut rng = Rng::new(seed);
        let count = rng.range(3, 24) as usize;
        let mut holders = Vec::new();
        let mut known = Vec::new();
        let mut grantors = Vec::new();
        for _ in 0..count {
            let config = draw_config(&mut rng);
            holders.push(Holder::new(config));
            known.push(rng.chance(0.6));
            let reports = rng.chance(0.5);
            grantors.push(RefGrantor::new(1, 60_000, reports));
        }
        let max_delay_ms = rng
            .chance(0.5)
            .then(|| rng.pick(&[0.0, 50.0, 300.0, 1_000.0, 3_000.0]));
        let max_batch = rng.pick(&[1.0, 2.0, 3.0, 5.0, 10_000.0]);
        #[allow(unused_mut)]
        let mut config = BatchConfig::from_ms(max_delay_ms, Some(max_batch))
            .expect("the world's batch settings are valid");
        config.mutation = mutation;
        let max_delay = config.max_delay;
        let max_batch = config.max_batch;
        let faults = Faults::draw(&mut rng, calm);
        let clock = MachineClock::new(
            0,
            rng.range(0, 1_000_000_000),
            1_700_000_000_000_000,
            rng.range(0, 200) as i64 - 100,
            rng.range(0, 200) as i64 - 100,
        );
        let next_revoke = faults.revoke_every;
        let slowest_round_trip = 2 * (faults.latency + faults.jitter);
        let roomy = holders
            .iter()
            .zip(&known)
            .map(|(holder, known)| {
                let half = tenure::core::scheduled_budget(holder.config()).0 / 2;
                *known && half > slowest_round_trip
            })
            .collect();
        World {
            rng,
            now: 0,
            clock,
            reacquire_at: vec![Some(0); count],
            release_at: Vec::new(),
            holders,
            known,
            roomy,
            grantors,
            batcher: Batcher::new(config),
            max_batch,
            max_delay,
            faults,
            network: Network::default(),
            wire: BinaryHeap::new(),
            wire_items: Vec::new(),
            wire_seq: 0,
            handed: BTreeMap::new(),
            alone: BTreeMap::new(),
            pending_batches: BTreeMap::new(),
            urgent: vec![false; count],
            caps: vec![None; count],
            next_revoke,
            steps: 0,
            renewals: 0,
            batches: 0,
            renewed: 0,
            known_failures: 0,
            hasher: Default::default(),
            violation: None,
        }
    }

    fn params(&self) -> String {
        let holders: Vec<String> = self
            .holders
            .iter()
            .zip(&self.known)
            .map(|(h, known)| {
                let c = h.config();
                format!(
                    "{}/{}/{}/{}{}",
                    c.lease.as_ms_floor(),
                    c.margin.as_ms_floor(),
                    c.renew_interval.as_ms_floor(),
                    c.request_timeout.as_ms_floor(),
                    if *known { "" } else { "?" }
                )
            })
            .collect();
        format!(
            "max_delay {:?} max_batch {} faults {:?} holders (lease/margin/interval/timeout ms, \
             ? = unknown to the batcher) {holders:?}",
            self.max_delay, self.max_batch, self.faults
        )
    }

    fn fail(&mut self, invariant: BatchInvariant, detail: String) {
        if self.violation.is_none() {
            self.violation = Some(BatchViolation {
                invariant,
                detail,
                at: self.now,
            });
        }
    }

    fn log(&mut self, what: &str, a: u64, b: u64) {
        (self.now, what, a, b).hash(&mut self.hasher);
    }

    fn client_now(&self) -> tenure::core::Now {
        self.clock.now_at(self.now)
    }

    fn client_mono(&self) -> u64 {
        self.clock.mono_at(self.now)
    }

    fn latency(&mut self) -> u64 {
        self.faults.latency + self.rng.range(0, self.faults.jitter)
    }

    fn lost(&mut self) -> bool {
        self.rng.chance(self.faults.loss)
    }

    fn push_wire(&mut self, at: u64, item: Wire) {
        self.wire_seq += 1;
        self.wire_items.push(Some(item));
        self.wire
            .push((Due(Reverse((at, self.wire_seq))), self.wire_items.len() - 1));
    }

    fn run(&mut self) {
        while self.violation.is_none() {
            let Some(at) = self.next_time() else { break };
            if at > RUN_LENGTH {
                break;
            }
            self.now = at;
            self.steps += 1;
            self.step();
            self.check();
            if self.steps > 2_000_000 {
                self.fail(
                    BatchInvariant::WithinSafeBudget,
                    "the run did not end: a busy loop".into(),
                );
            }
        }
    }

    /// The earliest pending thing, true time.
    fn next_time(&self) -> Option<u64> {
        let mut next = [
            self.wire.peek().map(|(Due(Reverse((at, _))), _)| *at),
            self.network.next_arrival(),
            self.next_revoke,
            self.batcher
                .poll_timeout()
                .and_then(|due| self.clock.true_time_of_mono(self.now, due.0)),
        ]
        .into_iter()
        .chain(self.release_at.iter().map(|(at, _)| Some(*at)))
        .flatten()
        .min();
        for (h, holder) in self.holders.iter().enumerate() {
            let due = holder
                .poll_timeout()
                .and_then(|due| self.clock.true_time_of_mono(self.now, due.0));
            for at in [due, self.reacquire_at[h]].into_iter().flatten() {
                next = Some(next.map_or(at, |n| n.min(at)));
            }
        }
        next.map(|at| at.max(self.now))
    }

    fn step(&mut self) {
        let now = self.client_now();
        if let Some((Due(Reverse((at, _))), index)) = self.wire.peek() {
            if *at <= self.now {
                let index = *index;
                self.wire.pop();
                if let Some(item) = self.wire_items[index].take() {
                    self.on_wire(item);
                }
                return;
            }
        }
        if self.network.next_arrival().is_some_and(|at| at <= self.now) {
            let envelope = self.network.pop().expect("an arrival is due");
            self.on_single(envelope.msg);
            return;
        }
        if let Some(position) = self.release_at.iter().position(|(at, _)| *at <= self.now) {
            let (_, h) = self.release_at.swap_remove(position);
            self.holders[h].release(now);
            self.drive(h);
            self.reacquire_at[h] = Some(self.now + self.rng.range(0, 3_000_000));
            return;
        }
        if self.next_revoke.is_some_and(|at| at <= self.now) {
            let h = self.rng.below(self.holders.len());
            if let Some(token) = self.grantors[h].revoke(self.now) {
                self.log("revoke", h as u64, token);
            }
            self.next_revoke = self.faults.revoke_every.map(|every| self.now + every);
            return;
        }
        if let Some(due) = self.batcher.poll_timeout() {
            if due.0 <= self.client_mono() {
                self.batcher.handle_timeout(now);
                self.drain_batcher(None);
                return;
            }
        }
        for h in 0..self.holders.len() {
            if self.reacquire_at[h].is_some_and(|at| at <= self.now) {
                self.reacquire_at[h] = None;
                if self.holders[h].acquire(now, true).is_ok() {
                    self.drive(h);
                }
                return;
            }
            if self.holders[h]
                .poll_timeout()
                .is_some_and(|due| due.0 <= self.client_mono())
            {
                self.holders[h].handle_timeout(now);
                self.drive(h);
                return;
            }
        }
    }

    /// Drains holder `h`'s outputs.
    fn drive(&mut self, h: usize) {
        while let Some(output) = self.holders[h].poll_output() {
            match output {
                Output::Send(request) => match request.kind {
                    RequestKind::Renew { .. } => self.hand_over(h, request),
                    _ => self.send_single(h, request),
                },
                Output::Abandon(id) => {
                    let queued = self.handed.iter().find_map(|(rid, handed)| {
                        (handed.holder == h && handed.request.id == id && !handed.sent)
                            .then_some(*rid)
                    });
                    if let Some(rid) = queued {
                        self.batcher.abandon(self.client_now(), rid);
                        self.drain_batcher(None);
                    }
                }
                Output::Event(event) => self.on_event(h, event),
            }
        }
    }

    fn on_event(&mut self, h: usize, event: Event) {
        match event {
            Event::Renewed { token, .. } => {
                self.renewed += 1;
                self.log("renewed", h as u64, token.get());
            }
            Event::Lost { token, .. } => {
                self.log("lost", h as u64, token.get());
                self.known_failures += u64::from(self.roomy[h]);
                self.reacquire_at[h] = Some(self.now + self.rng.range(0, 2_000_000));
            }
            Event::Released { token } => {
                self.log("released", h as u64, token.get());
                self.batcher.forget(&key(h));
                self.caps[h] = None;
                self.urgent[h] = false;
            }
            Event::AcquireFailed(_) => {
                self.reacquire_at[h] = Some(self.now + self.rng.range(0, 1_000_000));
            }
            Event::Acquired { token } => {
                self.log("acquired", h as u64, token.get());
                // Now and then a holder lets go, to come back later.
                if self.rng.chance(0.1) {
                    let at = self.now + self.rng.range(1_000_000, 10_000_000);
                    self.reacquire_at[h] = None;
                    self.release_at.push((at, h));
                }
            }
            Event::RenewFailed { .. } => self.known_failures += u64::from(self.roomy[h]),
        }
    }

    /// A renewal goes to the batcher.
    fn hand_over(&mut self, h: usize, request: Request) {
        let config = self.holders[h].config().clone();
        let now = self.client_now();
        let safe_for = self.holders[h].remaining(now).saturating_sub(config.margin);
        let holder = self.known[h].then(|| HolderTiming::of(&config, safe_for));
        let key = key(h);
        let spec = RenewalSpec {
            key: &key,
            lease: Some(config.lease),
            holder,
            body_chars: 160,
        };
        let rid = self.batcher.enqueue(self.client_now(), spec);
        self.renewals += 1;
        self.log("enqueue", h as u64, rid.0);
        let bound = self.bound_for(h, &config);
        self.handed.insert(
            rid,
            Handed {
                holder: h,
                request,
                queued_at: self.client_mono(),
                bound,
                sent: false,
                settled: false,
            },
        );
        self.drain_batcher(None);
    }

    /// The longest a renewal of holder `h` may wait, as the world reads the rules, with the
    /// invariant that says so.
    fn bound_for(&self, h: usize, config: &HolderConfig) -> Option<(u64, BatchInvariant)> {
        if self.urgent[h] {
            return Some((0, BatchInvariant::UrgentGoesAtOnce));
        }
        let cap = self.caps[h].map(|cap| (cap, BatchInvariant::LearnedCapKept));
        let safe_until = self.holders[h].lease().safe_until();
        let own = self.known[h].then(|| {
            // The holder abandons the attempt at its request timeout, or when its margin begins:
            // read from the holder itself, not from the batcher's reasoning.
            let before_margin = safe_until.map_or(0, |at| at.0.saturating_sub(self.client_mono()));
            let budget = config.request_timeout.0.min(before_margin);
            let half = budget / 2;
            let bound = self.max_delay.map_or(half, |max| max.0.min(half));
            (bound, BatchInvariant::WithinSafeBudget)
        });
        match (own, cap) {
            (Some(own), Some(cap)) => Some(if cap.0 < own.0 { cap } else { own }),
            (own, cap) => own.or(cap),
        }
    }

    fn send_single(&mut self, h: usize, request: Request) {
        if self.lost() {
            return;
        }
        let at = self.now + self.latency();
        self.network.push(
            at,
            Msg::Request {
                from: h,
                incarnation: 0,
                request,
            },
        );
    }

    fn drain_batcher(&mut self, results: Option<&[Answered]>) {
        while let Some(output) = self.batcher.poll_output() {
            match output {
                BatchOutput::Send(batch) => self.send_batch(batch.id, batch.renewals),
                BatchOutput::SendAlone(rid) => {
                    let Some(handed) = self.handed.get_mut(&rid) else {
                        continue;
                    };
                    handed.sent = true;
                    handed.settled = true;
                    let (h, request) = (handed.holder, handed.request.clone());
                    self.alone.insert((h, request.id), rid);
                    self.send_single(h, request);
                }
                BatchOutput::Settle(rid, settlement) => self.settle(rid, settlement, results),
            }
        }
    }

    fn send_batch(&mut self, batch: BatchId, renewals: Vec<RenewalId>) {
        self.batches += 1;
        self.log("batch", batch.0, renewals.len() as u64);
        if renewals.is_empty() || renewals.len() > self.max_batch {
            self.fail(
                BatchInvariant::BatchWithinSize,
                format!(
                    "a batch of {} renewals, max {}",
                    renewals.len(),
                    self.max_batch
                ),
            );
        }
        let mut elements = Vec::new();
        for rid in &renewals {
            if let Some(handed) = self.handed.get_mut(rid) {
                handed.sent = true;
                elements.push((handed.holder, handed.request.clone()));
            }
        }
        self.pending_batches.insert(batch, renewals);
        let timeout = self.now + self.faults.http_timeout;
        self.push_wire(timeout, Wire::TimedOut { batch });
        if self.lost() {
            return;
        }
        let at = self.now + self.latency();
        self.push_wire(at, Wire::Arrives { batch, elements });
    }

    fn on_wire(&mut self, item: Wire) {
        match item {
            Wire::Arrives { batch, elements } => {
                let answer = self.answer_batch(elements);
                if self.lost() {
                    return;
                }
                let at = self.now + self.latency();
                self.push_wire(at, Wire::Answered { batch, answer });
            }
            Wire::Answered { batch, answer } => {
                if self.pending_batches.remove(&batch).is_none() {
                    return; // timed out already: the client stopped reading
                }
                let now = self.client_now();
                match answer {
                    Ok(results) => {
                        let items: Vec<ItemResult<'_>> = results
                            .iter()
                            .map(|(_, element)| match element {
                                Element::Reply(Reply::Renew(RenewOutcome::Renewed { .. })) => {
                                    ItemResult::Reply { renewed: true }
                                }
                                Element::Reply(_) => ItemResult::Reply { renewed: false },
                                Element::Error(code) => ItemResult::Error(Some(code)),
                            })
                            .collect();
                        self.batcher.handle_batch_reply(now, batch, &items);
                        self.drain_batcher(Some(&results));
                    }
                    Err(status) => {
                        self.batcher.handle_batch_failure(
                            now,
                            batch,
                            BatchFailure::of(Some(status), None),
                        );
                        self.drain_batcher(None);
                    }
                }
            }
            Wire::TimedOut { batch } => {
                if self.pending_batches.remove(&batch).is_some() {
                    self.batcher.handle_batch_failure(
                        self.client_now(),
                        batch,
                        BatchFailure::Failed,
                    );
                    self.drain_batcher(None);
                }
            }
        }
    }

    /// The grantor side of a batch: each element decided on its own, in order.
    fn answer_batch(&mut self, elements: Vec<(usize, Request)>) -> Result<Vec<Answered>, u16> {
        if self
            .faults
            .no_route_from
            .is_some_and(|from| self.now >= from)
        {
            return Err(501);
        }
        if self.rng.chance(self.faults.batch_fails) {
            return Err(503);
        }
        if self.rng.chance(self.faults.too_large) {
            return Err(413);
        }
        let mut results = Vec::new();
        for (h, request) in elements {
            let element = if self.rng.chance(self.faults.element_error) {
                Element::Error(self.rng.pick(&[
                    "storage_unavailable",
                    "rate_limited",
                    "bad_lease_secret",
                    "request_timeout",
                ]))
            } else {
                let answer = self.grantors[h].handle(self.now, 0, 0, request.id, &request.kind);
                match answer.reply {
                    Some(reply) => Element::Reply(reply),
                    None => Element::Error("internal"),
                }
            };
            results.push(((h, request.id), element));
        }
        if !results.is_empty() && self.rng.chance(self.faults.short_reply) {
            results.pop();
        }
        Ok(results)
    }

    fn on_single(&mut self, msg: Msg) {
        match msg {
            Msg::Request {
                from, request: req, ..
            } => {
                let answer = self.grantors[from].handle(self.now, 0, 0, req.id, &req.kind);
                let Some(reply) = answer.reply else { return };
                if self.lost() {
                    return;
                }
                let at = self.now + self.latency();
                self.network.push(
                    at,
                    Msg::Reply {
                        to: from,
                        incarnation: 0,
                        id: req.id,
                        reply,
                    },
                );
            }
            Msg::Reply { to, id, reply, .. } => {
                self.alone.remove(&(to, id));
                self.deliver(to, id, reply);
            }
            Msg::Write { .. } => {}
        }
    }

    fn deliver(&mut self, h: usize, id: RequestId, reply: Reply) {
        let now = self.client_now();
        self.holders[h].handle_reply(now, id, reply);
        self.drive(h);
    }

    fn settle(
        &mut self,
        rid: RenewalId,
        settlement: RenewalSettlement,
        results: Option<&[Answered]>,
    ) {
        let mono = self.client_mono();
        let Some(handed) = self.handed.get_mut(&rid) else {
            return self.fail(
                BatchInvariant::ResultsReachTheirHolder,
                format!("renewal {} settled but never handed over", rid.0),
            );
        };
        if handed.settled {
            return self.fail(
                BatchInvariant::ResultsReachTheirHolder,
                format!("renewal {} settled twice", rid.0),
            );
        }
        handed.settled = true;
        let (h, id) = (handed.holder, handed.request.id);
        let waited = mono.saturating_sub(handed.queued_at);
        self.handed.remove(&rid);
        let reply = match settlement {
            RenewalSettlement::Reply { index } | RenewalSettlement::ElementFailed { index, .. } => {
                let Some(((for_holder, for_id), element)) =
                    results.and_then(|r| r.get(index)).cloned()
                else {
                    return self.fail(
                        BatchInvariant::ResultsReachTheirHolder,
                        format!(
                            "renewal {} settled with result {index}, which is not there",
                            rid.0
                        ),
                    );
                };
                if (for_holder, for_id) != (h, id) {
                    return self.fail(
                        BatchInvariant::ResultsReachTheirHolder,
                        format!(
                            "h{h}'s renewal {} got the result for h{for_holder}'s request {}",
                            id.0, for_id.0
                        ),
                    );
                }
                match (element, settlement) {
                    (Element::Reply(reply), RenewalSettlement::Reply { .. }) => {
                        if matches!(reply, Reply::Renew(RenewOutcome::Renewed { .. })) {
                            self.urgent[h] = false;
                        }
                        reply
                    }
                    (Element::Error(_), RenewalSettlement::ElementFailed { kind, .. }) => {
                        self.urgent[h] = true;
                        Reply::Failed(Failure::of(kind))
                    }
                    _ => {
                        return self.fail(
                            BatchInvariant::ResultsReachTheirHolder,
                            format!("h{h}'s result was settled as {settlement:?}"),
                        )
                    }
                }
            }
            RenewalSettlement::BatchFailed => {
                self.urgent[h] = true;
                Reply::Failed(Failure::of(FailureKind::Server))
            }
            RenewalSettlement::Malformed => {
                self.urgent[h] = true;
                Reply::Failed(Failure::of(FailureKind::Malformed))
            }
            RenewalSettlement::Abandoned => {
                self.urgent[h] = true;
                let cap = waited / 2;
                self.caps[h] = Some(self.caps[h].map_or(cap, |c| c.min(cap)));
                return;
            }
        };
        self.deliver(h, id, reply);
    }

    fn check(&mut self) {
        let mono = self.client_mono();
        let late = self.handed.iter().find_map(|(rid, handed)| {
            let (bound, invariant) = handed.bound?;
            let waited = mono.saturating_sub(handed.queued_at);
            (!handed.sent && waited > bound).then(|| {
                (
                    invariant,
                    format!(
                        "h{}'s renewal {} has waited {waited}us, more than {bound}us",
                        handed.holder, rid.0
                    ),
                )
            })
        });
        if let Some((invariant, detail)) = late {
            return self.fail(invariant, detail);
        }
        let now = self.client_now();
        for h in 0..self.holders.len() {
            let holder = &mut self.holders[h];
            if holder.phase() != Phase::Held || !holder.is_safely_held(now) {
                continue;
            }
            let Some(token) = holder.lease().token() else {
                continue;
            };
            // Revocation ends a grant without telling its holder: it learns at its next renewal.
            if self.grantors[h].is_revoked(token.get()) {
                continue;
            }
            if let Err(detail) = self.grantors[h].backs(self.now, 0, token.get()) {
                return self.fail(BatchInvariant::GrantorAgrees, detail);
            }
        }
    }
}

fn key(h: usize) -> String {
    format!("h{h}")
}

/// A holder's settings: leases from 0.6 s to 9 s, margins of 10% to 30%, the default interval or
/// a shorter one, and a request timeout that is sometimes far shorter than a sixth of the lease.
fn draw_config(rng: &mut Rng) -> HolderConfig {
    let lease = rng.pick(&[600.0, 1_000.0, 2_000.0, 3_000.0, 6_000.0, 9_000.0]);
    let margin = lease * rng.pick(&[0.1, 0.2, 0.3]);
    let renew_interval = rng
        .chance(0.4)
        .then(|| (lease - margin) * rng.pick(&[0.25, 0.5]));
    let request_timeout = rng
        .chance(0.5)
        .then(|| lease * rng.pick(&[0.02, 0.05, 0.1, 0.5]));
    let options = HolderOptionsMs {
        renew_interval_ms: renew_interval,
        request_timeout_ms: request_timeout,
        ..HolderOptionsMs::default()
    };
    let seed = rng.next_u64();
    HolderConfig::from_ms(lease, margin, options, seed).expect("drawn settings are valid")
}
