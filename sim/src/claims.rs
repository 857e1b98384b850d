//! The claims world: workers running the real [`ClaimMachine`] against an at-least-once queue.
//!
//! Each seed draws its own mix ([`ClaimParams`]): two to five workers, items that arrive over
//! the fault phase, claim durations from 300 ms to 15 s, drifting clocks ([`MachineClock`]), a
//! network with latency and jitter (which reorders), loss, long delays, replies lost after the
//! queue applied the request, 5xx answers, partitions of a worker, timers that fire late, and
//! workers that freeze (clocks running, or the machine asleep with its monotonic clock stopped),
//! crash and restart with no memory, or are told to stop claiming for a while. The application
//! claims, works for a while (sometimes far longer than the claim) and completes or fails the
//! item; each settlement asks for the worker's next item (`claimNext`) unless it is stopping.
//!
//! The queue redelivers an item whose claim lapsed (at-least-once), fences every heartbeat and
//! settlement by the item's claim token, and dead-letters an item after its last attempt. As the
//! grantor does, it claims a settlement's next item in the same step once the settlement took
//! effect (unless the seed's queue does not know `claimNext`), answers a repeated settlement the
//! same, and answers a retried `claimNext` with the claim its earlier attempt made, promising only
//! what is left of it.
//!
//! Invariants, after every step:
//! 1. `one-believer`: at any true instant at most one worker believes it safely holds an item.
//! 2. `queue-agrees`: a worker that believes it holds an item is the queue's current claimer
//!    under that token, and the claim is unexpired at true time.
//! 3. `complete-under-claim`: a completion is sent only while the queue's claim of that worker is
//!    current and unexpired (the gate before complete).
//! 4. `accepted-from-claimer`: a completion the queue accepts comes from its current claimer,
//!    while no other worker believes it holds the item.
//! 5. `nothing-lost` (liveness, after the healed phase): every item is done or dead-lettered.
//!
//! Also: no usage error from the machine and no busy loop.

use std::collections::{BinaryHeap, VecDeque};
use std::fmt;

use tenure::core::{
    ClaimConfig, ClaimEvent, ClaimMachine, ClaimMutation, ClaimOutput, ClaimReply, ClaimRequest,
    ClaimRequestKind, Failure, FailureKind, HeartbeatReply, MonoTime, Now, RequestId, SettleEnd,
    SettleOperation, SettleReply,
};
use tenure::protocol::Token;

use crate::clock::MachineClock;
use crate::rng::Rng;

const MS: u64 = 1_000;
/// Steps after which a run counts as a busy loop.
const MAX_STEPS: u64 = 400_000;
/// Events kept for a failure report.
const TRACE_TAIL: usize = 200;

/// What one seed draws.
#[derive(Clone, Debug)]
pub struct ClaimParams {
    /// Worker processes.
    pub workers: usize,
    /// Items in the queue from the start.
    pub initial_items: usize,
    /// Items in all; the rest arrive during the fault phase.
    pub items: usize,
    /// Attempts before an item is dead-lettered.
    pub max_attempts: u32,
    /// `claimMs`.
    pub claim_ms: u64,
    /// `marginMs`: at least `2·ρ·claimMs` plus slack.
    pub margin_ms: u64,
    /// ρ: clocks run at rates within `1 ± ρ`, in ppm.
    pub drift_ppm: i64,
    /// Shortest one-way latency, µs.
    pub latency_min: u64,
    /// Longest ordinary one-way latency, µs.
    pub latency_max: u64,
    /// Probability that a message is held up for up to a claim.
    pub long_delay: f64,
    /// Probability that a message is lost.
    pub loss: f64,
    /// Probability that a message is delivered twice.
    pub duplicate: f64,
    /// Probability that the queue applies a request and its reply is lost.
    pub reply_lost: f64,
    /// Probability that the queue answers 5xx without applying the request.
    pub server_error: f64,
    /// Mean true time between faults, µs.
    pub fault_gap: u64,
    /// Longest lateness of a timer in the fault phase, µs.
    pub timer_late_max: u64,
    /// Length of the fault phase, µs.
    pub fault_phase: u64,
    /// Mean work per item, µs.
    pub work_mean: u64,
    /// Probability that work takes one to three claims.
    pub long_work: f64,
    /// Probability that the application fails the item.
    pub fail_chance: f64,
    /// Whether the queue knows `claimNext` (a settlement that also claims the worker's next
    /// item); one that does not settles alone.
    pub claim_next_known: bool,
}

impl ClaimParams {
    /// Draws a mix from `rng`.
    pub fn draw(rng: &mut Rng) -> ClaimParams {
        let claim_ms = rng.pick(&[300, 1_000, 3_000, 15_000]);
        let drift_ppm = rng.pick(&[0, 100, 1_000, 10_000, 50_000]);
        let claim = claim_ms * MS;
        let fraction = rng.pick(&[15, 25, 40, 60]);
        // Drift both ways over a claim, the wall clock's uncounted jitter (25 ms), and slack.
        let floor = (2 * drift_ppm as u64 * claim_ms / 1_000_000) + 30;
        let margin_ms = (claim_ms * fraction / 100).max(floor);
        let latency_min = rng.range(200, claim / 50);
        let latency_max = latency_min + rng.range(0, claim / 25);
        let initial_items = rng.range(1, 4) as usize;
        ClaimParams {
            workers: rng.range(2, 5) as usize,
            initial_items,
            items: initial_items + rng.range(1, 8) as usize,
            max_attempts: rng.range(3, 6) as u32,
            claim_ms,
            margin_ms,
            drift_ppm,
            latency_min,
            latency_max,
            long_delay: rng.pick(&[0.0, 0.01, 0.05]),
            loss: rng.pick(&[0.0, 0.01, 0.05, 0.2]),
            duplicate: rng.pick(&[0.0, 0.0, 0.02, 0.1]),
            reply_lost: rng.pick(&[0.0, 0.02, 0.1]),
            server_error: rng.pick(&[0.0, 0.02, 0.1]),
            fault_gap: claim * rng.pick(&[1, 2, 5]) / 2,
            timer_late_max: claim * rng.pick(&[0, 1, 5]) / 10,
            fault_phase: claim * rng.range(5, 15),
            work_mean: claim * rng.pick(&[1, 3, 8]) / 10,
            long_work: rng.pick(&[0.0, 0.1, 0.3]),
            fail_chance: rng.pick(&[0.0, 0.2, 0.5]),
            claim_next_known: rng.chance(0.8),
        }
    }
}

/// Counts of the cases a run reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Items claimed again after a claim lapsed (at-least-once redelivery).
    pub redelivered: u64,
    /// Claims the worker lost (heartbeats lapsed or refused).
    pub lost: u64,
    /// Completions refused at the gate: not sent.
    pub refused_at_gate: u64,
    /// Settle attempts sent after a failed one.
    pub settle_retries: u64,
    /// Claims made by a settlement's `claimNext`.
    pub claimed_next: u64,
    /// Claims a `claimNext` retry got again: its earlier attempt made them, its reply was lost.
    pub replayed_next: u64,
    /// Workers told to stop claiming, and later to start again.
    pub stops: u64,
}

impl Coverage {
    /// Adds `other` in.
    pub fn add(&mut self, other: Coverage) {
        self.redelivered += other.redelivered;
        self.lost += other.lost;
        self.refused_at_gate += other.refused_at_gate;
        self.settle_retries += other.settle_retries;
        self.claimed_next += other.claimed_next;
        self.replayed_next += other.replayed_next;
        self.stops += other.stops;
    }
}

/// A broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimViolation {
    /// Which one.
    pub invariant: &'static str,
    /// True time, µs.
    pub at: u64,
    /// What was seen.
    pub detail: String,
}

impl fmt::Display for ClaimViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invariant {} broken at {}.{:06}s: {}",
            self.invariant,
            self.at / 1_000_000,
            self.at % 1_000_000,
            self.detail
        )
    }
}

/// What one seed did.
#[derive(Clone, Debug)]
pub struct ClaimOutcome {
    /// The seed.
    pub seed: u64,
    /// The deliberately broken variant, if any.
    pub mutation: Option<ClaimMutation>,
    /// Steps taken.
    pub steps: u64,
    /// Hash of the run's events, for determinism checks.
    pub hash: u64,
    /// Items completed.
    pub done: usize,
    /// Items dead-lettered.
    pub dead: usize,
    /// What the run went through, to show the world reaches the cases that matter.
    pub coverage: Coverage,
    /// The first broken invariant, if any.
    pub violation: Option<ClaimViolation>,
    /// The parameters and the last events, when something broke.
    details: Option<String>,
}

impl ClaimOutcome {
    /// A readable failure report (empty when nothing broke).
    pub fn report(&self) -> String {
        let Some(violation) = &self.violation else {
            return String::new();
        };
        let mutation = self
            .mutation
            .map_or(String::new(), |m| format!(" with mutation {m:?}"));
        format!(
            "claims seed {seed}{mutation}: {violation}\n\
             reproduce: TENURE_SIM_SEED={seed} TENURE_SIM_RUNS=1 cargo test -p tenure-sim --test claims\n{}",
            self.details.as_deref().unwrap_or(""),
            seed = self.seed,
        )
    }
}

/// Runs one seed of the claims world.
pub fn run_claims(seed: u64, mutation: Option<ClaimMutation>) -> ClaimOutcome {
    let mut world = ClaimWorld::new(seed, mutation, false);
    world.run();
    let details = world.violation.as_ref().map(|_| {
        // Runs are deterministic: the same seed again, with its events written out this time.
        let mut world = ClaimWorld::new(seed, mutation, true);
        world.run();
        let tail: Vec<&str> = world.trace.iter().map(String::as_str).collect();
        format!(
            "parameters: {:#?}\nlast events (true time):\n{}",
            world.params,
            tail.join("\n")
        )
    });
    ClaimOutcome {
        seed,
        mutation,
        steps: world.steps,
        hash: world.hash,
        done: world.queue.count(|s| matches!(s, ItemState::Done { .. })),
        dead: world.queue.count(|s| matches!(s, ItemState::Dead)),
        coverage: world.coverage,
        violation: world.violation,
        details,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ItemState {
    /// Not yet arrived.
    Future,
    Pending,
    Claimed {
        worker: usize,
        token: u64,
        until: u64,
    },
    /// Completed by this worker under this token.
    Done {
        worker: usize,
        token: u64,
    },
    Dead,
}

#[derive(Clone, Debug)]
struct Item {
    state: ItemState,
    /// The last token issued for it.
    token: u64,
    attempts: u32,
    /// The `claimNext` request (worker incarnation, request id) of its current claim, if one
    /// made it: a retry with the same request gets this claim again while it lives.
    claim_request: Option<(u32, u64)>,
    /// The worker and token of its last accepted settlement: repeating it answers the same.
    settled: Option<(usize, u64)>,
}

/// The queue, judged at true time: a claim is live while `until > now`.
#[derive(Clone, Debug)]
struct Queue {
    items: Vec<Item>,
    max_attempts: u32,
    /// Lapsed claims found by a claim (redelivered or dead-lettered).
    redelivered: u64,
    /// Claims answered again to a retried `claimNext`.
    replayed: u64,
}

impl Queue {
    fn count(&self, f: impl Fn(&ItemState) -> bool) -> usize {
        self.items.iter().filter(|i| f(&i.state)).count()
    }

    fn live_claim(&self, item: u64, now: u64) -> Option<(usize, u64)> {
        match self.items.get(item as usize)?.state {
            ItemState::Claimed {
                worker,
                token,
                until,
            } if until > now => Some((worker, token)),
            _ => None,
        }
    }

    /// A claim by `worker`; `request` is a `claimNext`'s (incarnation, request id).
    fn claim(
        &mut self,
        worker: usize,
        now: u64,
        claim_ms: u64,
        request: Option<(u32, u64)>,
    ) -> ClaimReply {
        if let Some(request) = request {
            // As the grantor does: a retry whose earlier attempt made a claim that still lives
            // gets it again, promised only what is left of it, since the retry's worker measures
            // from the retry's send.
            for (index, item) in self.items.iter().enumerate() {
                let ItemState::Claimed {
                    worker: holder,
                    token,
                    until,
                } = item.state
                else {
                    continue;
                };
                let left_ms = until.saturating_sub(now) / MS;
                if holder == worker && item.claim_request == Some(request) && left_ms > 0 {
                    self.replayed += 1;
                    return ClaimReply::Claimed {
                        item: index as u64,
                        token: Token::new(token).expect("small tokens"),
                        claim_ms: Some(left_ms.min(claim_ms)),
                    };
                }
            }
        }
        for (index, item) in self.items.iter_mut().enumerate() {
            if matches!(item.state, ItemState::Claimed { until, .. } if until <= now) {
                self.redelivered += 1;
            }
            let claimable = match item.state {
                ItemState::Pending => true,
                // At-least-once: a lapsed claim is redelivered, or dead-lettered after its last
                // attempt.
                ItemState::Claimed { until, .. } if until <= now => {
                    if item.attempts >= self.max_attempts {
                        item.state = ItemState::Dead;
                        false
                    } else {
                        true
                    }
                }
                _ => false,
            };
            if claimable {
                item.token += 1;
                item.attempts += 1;
                item.claim_request = request;
                item.state = ItemState::Claimed {
                    worker,
                    token: item.token,
                    until: now + claim_ms * MS,
                };
                return ClaimReply::Claimed {
                    item: index as u64,
                    token: Token::new(item.token).expect("small tokens"),
                    claim_ms: Some(claim_ms),
                };
            }
        }
        ClaimReply::Empty
    }

    fn heartbeat(&mut self, worker: usize, item: u64, token: Token, now: u64, ms: u64) -> bool {
        if self.live_claim(item, now) != Some((worker, token.get())) {
            return false;
        }
        self.items[item as usize].state = ItemState::Claimed {
            worker,
            token: token.get(),
            until: now + ms * MS,
        };
        true
    }

    fn settle(
        &mut self,
        worker: usize,
        operation: SettleOperation,
        item: u64,
        token: Token,
        now: u64,
    ) -> bool {
        if self.live_claim(item, now) != Some((worker, token.get())) {
            // A repeat of the last accepted settlement (its reply lost) answers the same.
            return self.items[item as usize].settled == Some((worker, token.get()));
        }
        let entry = &mut self.items[item as usize];
        entry.settled = Some((worker, token.get()));
        entry.state = match operation {
            SettleOperation::Complete => ItemState::Done {
                worker,
                token: token.get(),
            },
            SettleOperation::Fail if entry.attempts >= self.max_attempts => ItemState::Dead,
            SettleOperation::Fail => ItemState::Pending,
        };
        true
    }
}

#[derive(Clone, Debug)]
enum Answer {
    Claim(ClaimReply),
    Heartbeat(HeartbeatReply),
    Settle(SettleReply),
}

#[derive(Clone, Debug)]
enum Msg {
    Request {
        worker: usize,
        incarnation: u32,
        request: ClaimRequest,
    },
    Reply {
        worker: usize,
        incarnation: u32,
        id: RequestId,
        answer: Answer,
    },
}

type Envelope = crate::net::Envelope<Msg>;

#[derive(Clone, Debug)]
struct Work {
    done_at: u64,
    fail: bool,
}

struct Worker {
    machine: ClaimMachine,
    clock: MachineClock,
    incarnation: u32,
    /// Frozen (no timers, no inputs, no application progress) until then.
    frozen_until: Option<u64>,
    /// Crashed, restarting then.
    down_until: Option<u64>,
    partitioned_until: u64,
    /// Replies that arrived while frozen, delivered on thaw.
    inbox: Vec<(RequestId, Answer)>,
    work: Option<Work>,
    /// The timer: the monotonic target asked for and the true time it fires.
    timer: Option<(MonoTime, u64)>,
    /// Asleep: frozen with the monotonic clock stopped.
    asleep: bool,
    /// The claim of the last settle attempt sent, to count retries.
    last_settle: Option<(u64, Token)>,
    /// Told to stop claiming (a shutdown that was called off), starting again then.
    stopped_until: Option<u64>,
}

struct ClaimWorld {
    rng: Rng,
    params: ClaimParams,
    mutation: Option<ClaimMutation>,
    now: u64,
    heal_at: u64,
    end_at: u64,
    healed: bool,
    queue: Queue,
    /// Arrival times of the items not yet in the queue, earliest last.
    arrivals: Vec<(u64, usize)>,
    workers: Vec<Worker>,
    net: BinaryHeap<Envelope>,
    seq: u64,
    next_fault: u64,
    steps: u64,
    hash: u64,
    /// Whether to write events out (only to report a failure: formatting costs most of a run).
    tracing: bool,
    coverage: Coverage,
    trace: VecDeque<String>,
    violation: Option<ClaimViolation>,
}

impl ClaimWorld {
    fn new(seed: u64, mutation: Option<ClaimMutation>, tracing: bool) -> ClaimWorld {
        let mut rng = Rng::new(seed ^ 0xC1A1_4500);
        let params = ClaimParams::draw(&mut rng);
        let claim = params.claim_ms * MS;
        let heal_at = params.fault_phase;
        let idle_max = claim / 2;
        let end_at = heal_at
            + (params.items as u64 * u64::from(params.max_attempts) + 10) * (2 * claim + idle_max);
        let mut items = Vec::new();
        let mut arrivals = Vec::new();
        for index in 0..params.items {
            let state = if index < params.initial_items {
                ItemState::Pending
            } else {
                arrivals.push((rng.range(0, params.fault_phase), index));
                ItemState::Future
            };
            items.push(Item {
                state,
                token: 0,
                attempts: 0,
                claim_request: None,
                settled: None,
            });
        }
        arrivals.sort_by(|a, b| b.cmp(a));
        let mut world = ClaimWorld {
            next_fault: rng.exponential(params.fault_gap),
            queue: Queue {
                items,
                max_attempts: params.max_attempts,
                redelivered: 0,
                replayed: 0,
            },
            coverage: Coverage::default(),
            arrivals,
            workers: Vec::new(),
            mutation,
            now: 0,
            heal_at,
            end_at,
            healed: false,
            net: BinaryHeap::new(),
            seq: 0,
            steps: 0,
            hash: 0xCBF2_9CE4_8422_2325,
            tracing,
            trace: VecDeque::new(),
            violation: None,
            params,
            rng,
        };
        for w in 0..world.params.workers {
            let rho = world.params.drift_ppm;
            let mono_ppm = world.rng.range(0, 2 * rho as u64) as i64 - rho;
            let wall_ppm = world.rng.range(0, 2 * rho as u64) as i64 - rho;
            let mono = world.rng.range(0, 1_000_000 * MS);
            let wall = 1_700_000_000_000 * MS + world.rng.range(0, 1_000_000 * MS);
            let clock = MachineClock::new(0, mono, wall, mono_ppm, wall_ppm);
            let machine = world.fresh_machine();
            world.workers.push(Worker {
                machine,
                clock,
                incarnation: 0,
                frozen_until: None,
                down_until: None,
                partitioned_until: 0,
                inbox: Vec::new(),
                work: None,
                timer: None,
                asleep: false,
                last_settle: None,
                stopped_until: None,
            });
            world.start_worker(w);
        }
        world
    }

    fn fresh_machine(&mut self) -> ClaimMachine {
        let claim = self.params.claim_ms as f64;
        #[allow(unused_mut)]
        let mut config = ClaimConfig::from_ms(
            claim,
            self.params.margin_ms as f64,
            None,
            self.rng.next_u64(),
        )
        .expect("the drawn configuration is valid")
        .with_idle_ms(Some(claim / 20.0), Some(claim / 2.0));
        config.mutation = self.mutation;
        ClaimMachine::new(config)
    }

    fn log(&mut self, tag: u64, a: u64, b: u64, text: impl FnOnce() -> String) {
        for x in [self.now, tag, a, b] {
            self.hash = (self.hash ^ x).wrapping_mul(0x0100_0000_01B3);
        }
        if !self.tracing {
            return;
        }
        if self.trace.len() == TRACE_TAIL {
            self.trace.pop_front();
        }
        let now = self.now;
        self.trace.push_back(format!(
            "{:>6}.{:06}s  {}",
            now / 1_000_000,
            now % 1_000_000,
            text()
        ));
    }

    fn break_invariant(&mut self, invariant: &'static str, detail: String) {
        if self.violation.is_none() {
            self.violation = Some(ClaimViolation {
                invariant,
                at: self.now,
                detail,
            });
        }
    }

    fn run(&mut self) {
        self.run_steps();
        self.coverage.redelivered = self.queue.redelivered;
        self.coverage.replayed_next = self.queue.replayed;
    }

    fn run_steps(&mut self) {
        while self.violation.is_none() {
            let Some(at) = self.next_at() else { break };
            if at > self.end_at {
                break;
            }
            self.now = self.now.max(at);
            self.step();
            self.check();
            self.steps += 1;
            if self.steps > MAX_STEPS {
                let detail = format!("{MAX_STEPS} steps without the run ending");
                self.break_invariant("busy-loop", detail);
            }
            if self.healed && self.all_settled() {
                break;
            }
        }
        if self.violation.is_none() && !self.all_settled() {
            let open: Vec<String> = (0..self.queue.items.len())
                .filter(|&i| {
                    !matches!(
                        self.queue.items[i].state,
                        ItemState::Done { .. } | ItemState::Dead
                    )
                })
                .map(|i| format!("item {i}: {:?}", self.queue.items[i].state))
                .collect();
            self.now = self.end_at;
            self.break_invariant(
                "nothing-lost",
                format!("healed for long, still open: {}", open.join(", ")),
            );
        }
    }

    fn all_settled(&self) -> bool {
        self.queue
            .items
            .iter()
            .all(|i| matches!(i.state, ItemState::Done { .. } | ItemState::Dead))
    }

    fn next_at(&self) -> Option<u64> {
        let mut at = self.net.peek().map(|e| e.at);
        let mut consider = |t: Option<u64>| {
            if let Some(t) = t {
                at = Some(at.map_or(t, |a| a.min(t)));
            }
        };
        if !self.healed {
            consider(Some(self.heal_at));
            consider(Some(self.next_fault));
        }
        consider(self.arrivals.last().map(|a| a.0));
        for worker in &self.workers {
            if let Some(until) = worker.down_until {
                consider(Some(until));
                continue;
            }
            if let Some(until) = worker.frozen_until {
                consider(Some(until));
                continue;
            }
            consider(worker.timer.map(|t| t.1));
            consider(worker.stopped_until);
            consider(worker.work.as_ref().map(|w| w.done_at));
        }
        at
    }

    fn step(&mut self) {
        let now = self.now;
        if !self.healed && now >= self.heal_at {
            return self.heal();
        }
        if !self.healed && now >= self.next_fault {
            self.next_fault = now + self.rng.exponential(self.params.fault_gap);
            return self.fault();
        }
        if self.arrivals.last().is_some_and(|a| a.0 <= now) {
            let (_, index) = self.arrivals.pop().expect("just seen");
            self.queue.items[index].state = ItemState::Pending;
            return self.log(1, index as u64, 0, || format!("item {index} arrives"));
        }
        if self.net.peek().is_some_and(|e| e.at <= now) {
            let envelope = self.net.pop().expect("just seen");
            return self.deliver(envelope.msg);
        }
        for w in 0..self.workers.len() {
            if self.workers[w].down_until.is_some_and(|t| t <= now) {
                return self.restart(w);
            }
            if self.workers[w].down_until.is_some() {
                continue;
            }
            if self.workers[w].frozen_until.is_some_and(|t| t <= now) {
                return self.thaw(w);
            }
            if self.workers[w].frozen_until.is_some() {
                continue;
            }
            if self.workers[w].stopped_until.is_some_and(|t| t <= now) {
                return self.resume(w);
            }
            if self.workers[w].timer.is_some_and(|t| t.1 <= now) {
                self.workers[w].timer = None;
                let reading = self.reading(w);
                self.workers[w].machine.handle_timeout(reading);
                return self.drain(w);
            }
            if self.workers[w]
                .work
                .as_ref()
                .is_some_and(|k| k.done_at <= now)
            {
                return self.finish_work(w);
            }
        }
    }

    fn reading(&self, w: usize) -> Now {
        self.workers[w].clock.now_at(self.now)
    }

    fn start_worker(&mut self, w: usize) {
        let reading = self.reading(w);
        self.workers[w].machine.start(reading);
        self.drain(w);
    }

    /// Performs the machine's outputs and re-arms its timer.
    fn drain(&mut self, w: usize) {
        while let Some(output) = self.workers[w].machine.poll_output() {
            match output {
                ClaimOutput::Send(request) => self.send(w, request),
                ClaimOutput::Event(event) => self.on_event(w, event),
                ClaimOutput::Abandon(_) => {}
            }
        }
        let target = self.workers[w].machine.poll_timeout();
        let worker = &self.workers[w];
        let timer = match (target, worker.timer) {
            (None, _) => None,
            (Some(target), Some((armed, at))) if armed == target => Some((target, at)),
            (Some(target), _) => worker
                .clock
                .true_time_of_mono(self.now, target.0)
                .map(|at| (target, at + self.timer_lateness())),
        };
        self.workers[w].timer = timer;
    }

    fn timer_lateness(&mut self) -> u64 {
        if self.healed || self.params.timer_late_max == 0 {
            return 0;
        }
        self.rng.range(0, self.params.timer_late_max)
    }

    fn on_event(&mut self, w: usize, event: ClaimEvent) {
        match &event {
            ClaimEvent::Claimed { item, token } => {
                let duration = self.work_duration();
                let fail = self.rng.chance(self.params.fail_chance);
                self.workers[w].work = Some(Work {
                    done_at: self.now + duration,
                    fail,
                });
                let (item, token) = (*item, token.get());
                self.log(2, item, token, || {
                    format!("w{w} claimed item {item} token {token}, works {duration}µs")
                });
            }
            ClaimEvent::Lost { .. } => {
                self.coverage.lost += 1;
                self.log(18, w as u64, 0, || format!("w{w} {event:?}"));
            }
            ClaimEvent::SettleEnded { item, end, .. } => {
                if *end == SettleEnd::NotHeld {
                    self.coverage.refused_at_gate += 1;
                }
                let tag = match end {
                    SettleEnd::Settled => 3,
                    SettleEnd::Stale => 4,
                    SettleEnd::NotHeld => 5,
                    SettleEnd::GaveUp(_) => 6,
                    SettleEnd::Error => 7,
                };
                let item = *item;
                self.log(tag, item, w as u64, || format!("w{w} {event:?}"));
            }
            _ => self.log(8, w as u64, 0, || format!("w{w} {event:?}")),
        }
    }

    fn work_duration(&mut self) -> u64 {
        let claim = self.params.claim_ms * MS;
        if self.healed {
            return self.rng.range(1, claim / 5);
        }
        if self.rng.chance(self.params.long_work) {
            return self.rng.range(claim, 3 * claim);
        }
        self.rng.exponential(self.params.work_mean)
    }

    fn finish_work(&mut self, w: usize) {
        let Some(work) = self.workers[w].work.take() else {
            return;
        };
        let reading = self.reading(w);
        let machine = &mut self.workers[w].machine;
        let result = if work.fail {
            machine.fail(reading, true)
        } else {
            machine.complete(reading, true)
        };
        if let Err(error) = result {
            return self.break_invariant("usage", format!("w{w}: {error:?}"));
        }
        self.drain(w);
    }

    fn latency(&mut self) -> u64 {
        if !self.healed && self.rng.chance(self.params.long_delay) {
            return self.rng.range(1, self.params.claim_ms * MS);
        }
        self.rng
            .range(self.params.latency_min, self.params.latency_max)
    }

    fn lost_in_transit(&mut self, w: usize) -> bool {
        !self.healed
            && (self.workers[w].partitioned_until > self.now || self.rng.chance(self.params.loss))
    }

    fn push(&mut self, at: u64, msg: Msg) {
        if !self.healed && self.rng.chance(self.params.duplicate) {
            // The copy draws its own latency, so it may arrive first.
            let copy_at = self.now + self.latency();
            self.seq += 1;
            self.net.push(Envelope::new(copy_at, self.seq, msg.clone()));
        }
        self.seq += 1;
        self.net.push(Envelope::new(at, self.seq, msg));
    }

    fn send(&mut self, w: usize, request: ClaimRequest) {
        if let ClaimRequestKind::Settle { item, token, .. } = request.kind {
            if self.workers[w].last_settle.replace((item, token)) == Some((item, token)) {
                self.coverage.settle_retries += 1;
            }
        }
        if let ClaimRequestKind::Settle {
            operation: SettleOperation::Complete,
            item,
            token,
            ..
        } = request.kind
        {
            // The gate before complete, judged at true time. A retry of a completion that took
            // effect (its reply lost) finds the item done by this very claim.
            let retry_of_done = self.queue.items[item as usize].state
                == ItemState::Done {
                    worker: w,
                    token: token.get(),
                };
            if !retry_of_done && self.queue.live_claim(item, self.now) != Some((w, token.get())) {
                let state = self.queue.items[item as usize].state;
                self.break_invariant(
                    "complete-under-claim",
                    format!("w{w} sends complete of item {item} token {token:?}; queue: {state:?}"),
                );
            }
        }
        let id = request.id.0;
        self.log(9, w as u64, id, || format!("w{w} sends {request:?}"));
        if self.lost_in_transit(w) {
            return self.log(10, w as u64, id, || format!("w{w} request {id:#x} lost"));
        }
        let at = self.now + self.latency();
        let incarnation = self.workers[w].incarnation;
        self.push(
            at,
            Msg::Request {
                worker: w,
                incarnation,
                request,
            },
        );
    }

    fn deliver(&mut self, msg: Msg) {
        match msg {
            Msg::Request {
                worker,
                incarnation,
                request,
            } => self.at_queue(worker, incarnation, request),
            Msg::Reply {
                worker,
                incarnation,
                id,
                answer,
            } => {
                let target = &mut self.workers[worker];
                if target.incarnation != incarnation || target.down_until.is_some() {
                    return;
                }
                if target.frozen_until.is_some() {
                    target.inbox.push((id, answer));
                    return;
                }
                self.feed(worker, id, answer);
            }
        }
    }

    fn feed(&mut self, w: usize, id: RequestId, answer: Answer) {
        let reading = self.reading(w);
        let machine = &mut self.workers[w].machine;
        match answer {
            Answer::Claim(reply) => machine.handle_claim_reply(reading, id, reply),
            Answer::Heartbeat(reply) => machine.handle_heartbeat_reply(reading, id, reply),
            Answer::Settle(reply) => machine.handle_settle_reply(reading, id, reply),
        }
        self.drain(w);
    }

    fn at_queue(&mut self, w: usize, incarnation: u32, request: ClaimRequest) {
        let now = self.now;
        let id = request.id;
        if !self.healed && self.rng.chance(self.params.server_error) {
            let failed = Failure::of(FailureKind::Server);
            let answer = match request.kind {
                ClaimRequestKind::Claim { .. } => Answer::Claim(ClaimReply::Failed(failed)),
                ClaimRequestKind::Heartbeat { .. } => {
                    Answer::Heartbeat(HeartbeatReply::Failed(failed))
                }
                ClaimRequestKind::Settle { .. } => Answer::Settle(SettleReply::Failed(failed)),
                ClaimRequestKind::GiveBack { .. } => return,
            };
            return self.reply(w, incarnation, id, answer);
        }
        let answer = match request.kind {
            ClaimRequestKind::Claim { claim_ms } => {
                Answer::Claim(self.queue.claim(w, now, claim_ms, None))
            }
            ClaimRequestKind::Heartbeat {
                item,
                token,
                claim_ms,
            } => Answer::Heartbeat(if self.queue.heartbeat(w, item, token, now, claim_ms) {
                HeartbeatReply::Extended {
                    token,
                    claim_ms: Some(claim_ms),
                }
            } else {
                HeartbeatReply::Stale
            }),
            ClaimRequestKind::Settle {
                operation,
                item,
                token,
                next,
            } => {
                let others = self.other_believers(w, item);
                let accepted = self.queue.settle(w, operation, item, token, now);
                if accepted && operation == SettleOperation::Complete && !others.is_empty() {
                    self.break_invariant(
                        "accepted-from-claimer",
                        format!(
                            "item {item} completed by w{w} while {others:?} believe they hold it"
                        ),
                    );
                }
                if !accepted {
                    Answer::Settle(SettleReply::Stale)
                } else {
                    // In the same transaction, once the settlement took effect.
                    let next = next.filter(|_| self.params.claim_next_known).map(|next| {
                        let request = Some((incarnation, next.request.0));
                        let reply = self.queue.claim(w, now, next.claim_ms, request);
                        if matches!(reply, ClaimReply::Claimed { .. }) {
                            self.coverage.claimed_next += 1;
                        }
                        reply
                    });
                    Answer::Settle(SettleReply::Settled { next })
                }
            }
            ClaimRequestKind::GiveBack { item, token } => {
                self.queue
                    .settle(w, SettleOperation::Fail, item, token, now);
                return;
            }
        };
        self.log(11, w as u64, id.0, || {
            format!("queue answers w{w}: {answer:?}")
        });
        if !self.healed && self.rng.chance(self.params.reply_lost) {
            return;
        }
        self.reply(w, incarnation, id, answer);
    }

    fn reply(&mut self, w: usize, incarnation: u32, id: RequestId, answer: Answer) {
        if self.lost_in_transit(w) {
            return;
        }
        let at = self.now + self.latency();
        self.push(
            at,
            Msg::Reply {
                worker: w,
                incarnation,
                id,
                answer,
            },
        );
    }

    /// Workers other than `w` that believe they safely hold `item` now.
    fn other_believers(&mut self, w: usize, item: u64) -> Vec<usize> {
        (0..self.workers.len())
            .filter(|&v| v != w)
            .filter(|&v| self.believed(v).is_some_and(|(i, _)| i == item))
            .collect()
    }

    fn believed(&mut self, w: usize) -> Option<(u64, Token)> {
        if self.workers[w].down_until.is_some() {
            return None;
        }
        let reading = self.reading(w);
        self.workers[w].machine.safely_held(reading)
    }

    fn check(&mut self) {
        let mut holders: Vec<Option<usize>> = vec![None; self.queue.items.len()];
        for w in 0..self.workers.len() {
            let Some((item, token)) = self.believed(w) else {
                continue;
            };
            if let Some(other) = holders[item as usize] {
                return self.break_invariant(
                    "one-believer",
                    format!("w{other} and w{w} both believe they hold item {item}"),
                );
            }
            holders[item as usize] = Some(w);
            if self.queue.live_claim(item, self.now) != Some((w, token.get())) {
                let state = self.queue.items[item as usize].state;
                return self.break_invariant(
                    "queue-agrees",
                    format!("w{w} believes it holds item {item} under {token:?}; queue: {state:?}"),
                );
            }
        }
    }

    fn fault(&mut self) {
        let w = self.rng.below(self.workers.len());
        let claim = self.params.claim_ms * MS;
        if self.workers[w].down_until.is_some() {
            return;
        }
        match self.rng.below(6) {
            0 => {
                let duration = self.rng.range(claim / 4, 2 * claim);
                self.workers[w].partitioned_until = self.now + duration;
                self.log(12, w as u64, duration, || {
                    format!("FAULT partition w{w} {duration}µs")
                });
            }
            1 | 2 if self.workers[w].frozen_until.is_none() => {
                let duration = self.rng.range(claim / 4, 3 * claim);
                let suspend = self.rng.chance(0.3);
                self.workers[w].frozen_until = Some(self.now + duration);
                if suspend {
                    self.workers[w].clock.set_suspended(self.now, true);
                    self.workers[w].asleep = true;
                }
                self.log(13, w as u64, duration, || {
                    format!("FAULT freeze w{w} {duration}µs (suspend: {suspend})")
                });
            }
            3 => {
                let duration = self.rng.range(claim / 4, 2 * claim);
                let worker = &mut self.workers[w];
                worker.down_until = Some(self.now + duration);
                worker.frozen_until = None;
                worker.clock.set_suspended(self.now, false);
                worker.asleep = false;
                worker.inbox.clear();
                worker.work = None;
                worker.timer = None;
                worker.stopped_until = None;
                worker.incarnation += 1;
                self.log(14, w as u64, duration, || {
                    format!("FAULT crash w{w} {duration}µs")
                });
            }
            4 => {
                // Either way while awake; only forward while asleep, where a step back cannot be
                // told from no time passing (the drift assumption of `clock`).
                let size = self.rng.range(1, 2 * claim) as i64;
                let back = !self.workers[w].asleep && self.rng.chance(0.5);
                let delta = if back { -size } else { size };
                self.workers[w].clock.step_wall(self.now, delta);
                self.log(19, w as u64, delta as u64, || {
                    format!("FAULT wall step w{w} {delta}µs")
                });
            }
            5 if self.workers[w].frozen_until.is_none()
                && self.workers[w].stopped_until.is_none() =>
            {
                // A claim in flight is given back when it arrives, and so is a next claim that
                // comes with a settlement asked for before the stop.
                let duration = self.rng.range(claim / 4, 2 * claim);
                self.workers[w].stopped_until = Some(self.now + duration);
                self.coverage.stops += 1;
                self.log(20, w as u64, duration, || {
                    format!("FAULT stop w{w} {duration}µs")
                });
                let reading = self.reading(w);
                self.workers[w].machine.stop(reading);
                self.drain(w);
            }
            _ => {}
        }
    }

    /// A stopped worker starts claiming again.
    fn resume(&mut self, w: usize) {
        self.workers[w].stopped_until = None;
        self.log(21, w as u64, 0, || format!("w{w} starts again"));
        self.start_worker(w);
    }

    fn thaw(&mut self, w: usize) {
        let now = self.now;
        let worker = &mut self.workers[w];
        worker.frozen_until = None;
        worker.clock.set_suspended(now, false);
        worker.asleep = false;
        let inbox = std::mem::take(&mut worker.inbox);
        self.log(15, w as u64, 0, || format!("w{w} thaws"));
        // The host wakes: it checks its deadlines first, then reads the replies that waited.
        let reading = self.reading(w);
        self.workers[w].timer = None;
        self.workers[w].machine.handle_timeout(reading);
        self.drain(w);
        for (id, answer) in inbox {
            self.feed(w, id, answer);
        }
    }

    fn restart(&mut self, w: usize) {
        self.workers[w].down_until = None;
        self.workers[w].machine = self.fresh_machine();
        self.workers[w].timer = None;
        self.log(16, w as u64, 0, || format!("w{w} restarts"));
        self.start_worker(w);
    }

    fn heal(&mut self) {
        self.healed = true;
        self.log(17, 0, 0, || "HEAL".to_owned());
        // Connections reset: whatever is in flight is gone; timeouts take over.
        self.net.clear();
        for w in 0..self.workers.len() {
            self.workers[w].partitioned_until = 0;
            if self.workers[w].down_until.is_some() {
                self.restart(w);
            } else if self.workers[w].frozen_until.is_some() {
                self.thaw(w);
            }
        }
    }
}

/// What a range of seeds did.
#[derive(Debug, Default)]
pub struct ClaimRangeReport {
    /// Seeds run.
    pub runs: u64,
    /// Steps over all runs.
    pub steps: u64,
    /// Items completed over all runs.
    pub done: u64,
    /// What all runs reached.
    pub coverage: Coverage,
    /// The failed runs, lowest seed first.
    pub failures: Vec<ClaimOutcome>,
}

/// Runs seeds `first..first + runs` on `threads` threads.
pub fn run_claims_range(
    first: u64,
    runs: u64,
    mutation: Option<ClaimMutation>,
    threads: usize,
) -> ClaimRangeReport {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;
    let steps = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    let coverage = Mutex::new(Coverage::default());
    crate::for_each_seed(first, runs, threads, |seed| {
        let outcome = run_claims(seed, mutation);
        coverage
            .lock()
            .expect("no panics while locked")
            .add(outcome.coverage);
        steps.fetch_add(outcome.steps, Ordering::Relaxed);
        done.fetch_add(outcome.done as u64, Ordering::Relaxed);
        if outcome.violation.is_some() {
            failures
                .lock()
                .expect("no panics while locked")
                .push(outcome);
        }
    });
    let mut failures = failures.into_inner().expect("no panics while locked");
    failures.sort_by_key(|o| o.seed);
    ClaimRangeReport {
        runs,
        steps: steps.into_inner(),
        done: done.into_inner(),
        coverage: coverage.into_inner().expect("no panics while locked"),
        failures,
    }
}
