//! The simulated world: holders running the real core, the reference grantor, the network, the
//! clocks and the fault schedule, advanced one event at a time.
//!
//! Each step finds the earliest pending thing (a message arrival, a holder's timer, an
//! application action, a process waking up, the next fault, the heal), jumps true time there,
//! does it, and then checks every safety invariant. There are no threads and no real time.

use tenure::core::{
    Event, Failure, FailureKind, Holder, HolderConfig, Micros, Mutation, Now, Output, Phase, Reply,
    RequestId,
};
use tenure::protocol::{GrantOutcome, RenewOutcome, Token};

use crate::clock::MachineClock;
use crate::grantor::{FencedResource, HolderId, RefGrantor, RestartRule, RulesMutation};
use crate::invariants::{check_beliefs, Broken, HoldTracker, Invariant, Violation};
use crate::net::{Msg, Network};
use crate::rng::Rng;
use crate::swarm::{FaultKind, Swarm};
use crate::trace::{Answer, Ev, Note, Req, Trace};

const MS: u64 = 1_000;
/// Timers of a hidden tab fire up to this late.
const HIDDEN_TIMER_LATENESS: u64 = 60_000 * MS;
/// Timers of a visible tab fire up to this late (browsers clamp nested timers to 4 ms).
const VISIBLE_TIMER_LATENESS: u64 = 4 * MS;
/// Steps at one instant before the run counts as a busy loop.
const BUSY_LOOP_STEPS: u32 = 10_000;
/// Steps after which a run is cut short as runaway.
const MAX_STEPS: u64 = 200_000;
/// The wall clocks start near 2023-11-14, each at its own offset.
const WALL_EPOCH: u64 = 1_700_000_000_000_000;

/// What a holder process is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Running,
    /// Frozen with clocks running, until the given true time.
    Paused(u64),
    /// Machine asleep (monotonic clock stopped), until the given true time.
    Suspended(u64),
    /// Crashed; restarts at the given true time.
    Down(u64),
}

#[derive(Clone, Copy, Debug)]
struct Timer {
    target: u64,
    lateness: u64,
    fire_at: Option<u64>,
}

struct Slot {
    holder: Holder,
    incarnation: u32,
    clock: MachineClock,
    status: Status,
    timer: Option<Timer>,
    app_at: u64,
    hidden_until: u64,
    /// Holder-to-grantor link down until then.
    out_blocked_until: u64,
    /// Grantor-to-holder link down until then.
    in_blocked_until: u64,
    track: HoldTracker,
}

/// One input to a holder, as the host delivers it.
enum Input {
    Timeout,
    Reply(RequestId, Reply),
    Acquire(bool),
    Release,
    /// Hand the lease to holder `usize`.
    HandOff(usize),
    Surrender,
    Cancel,
}

#[derive(Clone, Copy, Debug)]
enum Due {
    Heal,
    GrantorUp,
    Wake(usize),
    Net,
    Timer(usize),
    App(usize),
    Fault,
    End,
}

/// The result of one run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The seed.
    pub seed: u64,
    /// The deliberately broken core variant, if any.
    pub mutation: Option<Mutation>,
    /// Steps taken.
    pub steps: u64,
    /// Events logged.
    pub events: u64,
    /// Hash of the whole event log.
    pub hash: u64,
    /// The first broken invariant, if any.
    pub violation: Option<Violation>,
    /// The parameters and the trace tail, kept only when something broke.
    details: Option<String>,
}

impl Outcome {
    /// A readable failure report: what broke, how to reproduce it, the run's parameters and
    /// the last events. Empty when nothing broke.
    pub fn report(&self) -> String {
        let Some(violation) = &self.violation else {
            return String::new();
        };
        let mutation = match self.mutation {
            Some(m) => format!(" with mutation {m:?}"),
            None => String::new(),
        };
        format!(
            "seed {seed}{mutation}: {violation}\n\
             reproduce: TENURE_SIM_SEED={seed} TENURE_SIM_RUNS=1 cargo test -p tenure-sim\n\
             {details}",
            seed = self.seed,
            details = self.details.as_deref().unwrap_or(""),
        )
    }
}

/// Runs one seeded schedule against the real core (optionally a mutated one).
pub fn run(seed: u64, mutation: Option<Mutation>) -> Outcome {
    run_with_restart_rule(seed, mutation, RestartRule::FullDurationFromRestart)
}

/// [`run`] with a grantor that applies its rules in the broken way `mutation`, which the
/// simulation must catch.
pub fn run_with_rules_mutation(seed: u64, mutation: RulesMutation) -> Outcome {
    let mut world = World::new(seed, None, RestartRule::FullDurationFromRestart);
    world.grantor = world.grantor.clone().with_rules_mutation(mutation);
    world.outcome(seed)
}

/// [`run`] with a grantor that restarts by `rule`: the broken rule is the grantor's own
/// deliberately broken variant, which the simulation must catch.
pub fn run_with_restart_rule(seed: u64, mutation: Option<Mutation>, rule: RestartRule) -> Outcome {
    World::new(seed, mutation, rule).outcome(seed)
}

struct World {
    rng: Rng,
    swarm: Swarm,
    mutation: Option<Mutation>,
    now: u64,
    grantor: RefGrantor,
    grantor_up_at: Option<u64>,
    resource: FencedResource,
    net: Network,
    slots: Vec<Slot>,
    fault_rate: f64,
    next_fault_at: u64,
    healed_at: Option<u64>,
    live_deadline: u64,
    end_at: u64,
    /// The first holder process to acquire or renew after the heal; it must keep the lease.
    keeper: Option<(usize, u32)>,
    trace: Trace,
    steps: u64,
    same_time_steps: u32,
    violation: Option<Violation>,
}

impl World {
    /// Runs the world to its end and reports what happened.
    fn outcome(mut self, seed: u64) -> Outcome {
        self.run();
        let details = self.violation.as_ref().map(|_| {
            format!(
                "parameters: {:#?}\nlast events (true time):\n{}",
                self.swarm,
                self.trace.render_tail()
            )
        });
        Outcome {
            seed,
            mutation: self.mutation,
            steps: self.steps,
            events: self.trace.count(),
            hash: self.trace.hash(),
            violation: self.violation,
            details,
        }
    }

    fn new(seed: u64, mutation: Option<Mutation>, restart_rule: RestartRule) -> World {
        let mut rng = Rng::new(seed);
        let swarm = Swarm::draw(&mut rng);
        let n = swarm.holders;
        let rho = swarm.rho_ppm as i64;
        let mut slots = Vec::with_capacity(n);
        for _ in 0..n {
            let clock = MachineClock::new(
                0,
                rng.range(0, 1_000_000_000_000),
                WALL_EPOCH + rng.range(0, 1_000_000_000),
                rng.range(0, 2 * rho as u64) as i64 - rho,
                rng.range(0, 2 * rho as u64) as i64 - rho,
            );
            let app_at = rng.range(0, swarm.app.think_max);
            slots.push(Slot {
                holder: Holder::new(holder_config(&swarm.config, rng.next_u64(), mutation)),
                incarnation: 0,
                clock,
                status: Status::Running,
                timer: None,
                app_at,
                hidden_until: 0,
                out_blocked_until: 0,
                in_blocked_until: 0,
                track: HoldTracker::default(),
            });
        }
        let fault_rate = swarm
            .faults
            .mean_interval
            .iter()
            .flatten()
            .map(|mean| 1.0 / *mean as f64)
            .sum();
        let mut world = World {
            grantor: RefGrantor::new(n, swarm.grantor_max_ms, swarm.grantor_reports_duration)
                .with_restart_rule(restart_rule),
            rng,
            swarm,
            mutation,
            now: 0,
            grantor_up_at: None,
            resource: FencedResource::default(),
            net: Network::default(),
            slots,
            fault_rate,
            next_fault_at: u64::MAX,
            healed_at: None,
            live_deadline: u64::MAX,
            end_at: u64::MAX,
            keeper: None,
            trace: Trace::default(),
            steps: 0,
            same_time_steps: 0,
            violation: None,
        };
        world.trace.note(0, Note::Start);
        world.schedule_next_fault();
        world
    }

    fn healed(&self) -> bool {
        self.healed_at.is_some()
    }

    fn fail(&mut self, invariant: Invariant, detail: String) {
        if self.violation.is_none() {
            self.violation = Some(Violation {
                invariant,
                detail,
                at: self.now,
            });
        }
    }

    fn broke(&mut self, (invariant, detail): Broken) {
        self.fail(invariant, detail);
    }

    fn run(&mut self) {
        loop {
            let (at, due) = self.next_due();
            if let Due::End = due {
                break;
            }
            if at == self.now {
                self.same_time_steps += 1;
                if self.same_time_steps > BUSY_LOOP_STEPS {
                    let detail = format!("{BUSY_LOOP_STEPS} steps without time passing");
                    self.fail(Invariant::WellDriven, detail);
                    return;
                }
            } else {
                self.same_time_steps = 0;
            }
            self.now = at;
            self.steps += 1;
            if self.steps > MAX_STEPS {
                let detail = format!("schedule still running after {MAX_STEPS} steps");
                self.fail(Invariant::WellDriven, detail);
                return;
            }
            self.dispatch(due);
            if self.violation.is_some() {
                return;
            }
            self.check_step();
            if self.violation.is_some() {
                return;
            }
        }
        self.check_end();
    }

    /// The earliest pending thing; on ties, the first in this order wins: heal, grantor
    /// restart, processes waking, arrivals, timers, applications, faults.
    fn next_due(&self) -> (u64, Due) {
        let mut best: Option<(u64, Due)> = None;
        let mut consider = |at: u64, due: Due| {
            if best.is_none_or(|(t, _)| at < t) {
                best = Some((at, due));
            }
        };
        if !self.healed() {
            let heal_at = if self.steps >= self.swarm.fault_steps {
                self.now
            } else {
                self.swarm.fault_time.max(self.now)
            };
            consider(heal_at, Due::Heal);
        }
        if let Some(at) = self.grantor_up_at {
            consider(at, Due::GrantorUp);
        }
        for (i, slot) in self.slots.iter().enumerate() {
            match slot.status {
                Status::Paused(at) | Status::Suspended(at) | Status::Down(at) => {
                    consider(at, Due::Wake(i))
                }
                Status::Running => {}
            }
        }
        if let Some(at) = self.net.next_arrival() {
            consider(at, Due::Net);
        }
        for (i, slot) in self.slots.iter().enumerate() {
            if slot.status == Status::Running {
                if let Some(at) = slot.timer.and_then(|t| t.fire_at) {
                    consider(at, Due::Timer(i));
                }
            }
        }
        for (i, slot) in self.slots.iter().enumerate() {
            if slot.status == Status::Running {
                consider(slot.app_at.max(self.now), Due::App(i));
            }
        }
        if !self.healed() {
            consider(self.next_fault_at, Due::Fault);
        }
        consider(self.end_at, Due::End);
        best.expect("End is always pending")
    }

    fn dispatch(&mut self, due: Due) {
        match due {
            Due::Heal => self.heal(),
            Due::GrantorUp => {
                self.grantor_up_at = None;
                self.grantor.up(self.now);
                self.trace
                    .note(self.now, Note::Fault("grantor up", None, 0));
            }
            Due::Wake(i) => match self.slots[i].status {
                Status::Down(_) => self.restart(i),
                _ => self.resume(i),
            },
            Due::Net => {
                let envelope = self.net.pop().expect("an arrival is due");
                self.arrive(envelope.msg);
            }
            Due::Timer(i) => {
                let slot = &mut self.slots[i];
                slot.timer = None;
                let mono = slot.clock.mono_at(self.now);
                self.trace.note(self.now, Note::Timer(i, mono));
                self.input(i, Input::Timeout);
            }
            Due::App(i) => self.app(i),
            Due::Fault => {
                self.fault();
                self.schedule_next_fault();
            }
            Due::End => {}
        }
    }

    // ---- the network ------------------------------------------------------------------------

    fn latency(&mut self) -> u64 {
        let net = &self.swarm.net;
        let (mut min, mut max, long_p, (long_min, long_max)) = (
            net.latency_min,
            net.latency_max,
            net.long_delay,
            net.long_delay_range,
        );
        if self.healed() {
            max = max.min(self.swarm.healthy_latency_max());
            min = min.min(max);
        }
        let mut latency = self.rng.range(min, max);
        if !self.healed() && self.rng.chance(long_p) {
            latency += self.rng.range(long_min, long_max);
        }
        latency
    }

    /// Puts a message on the wire, subject to loss, duplication, latency and jitter.
    fn transmit(&mut self, msg: Msg) {
        let faulty = !self.healed();
        if faulty && self.rng.chance(self.swarm.net.loss) {
            self.trace
                .note(self.now, Note::Dropped(msg.holder(), "lost"));
            return;
        }
        if faulty && self.rng.chance(self.swarm.net.duplicate) {
            let at = self.now + self.latency();
            self.net.push(at, msg.clone());
        }
        let at = self.now + self.latency();
        self.net.push(at, msg);
    }

    /// A message reached a link that is partitioned: held until it heals, or dropped.
    fn partitioned(&mut self, msg: Msg, until: u64) {
        if self.swarm.net.partition_holds {
            let at = until + self.latency();
            self.net.push(at, msg);
        } else {
            self.trace
                .note(self.now, Note::Dropped(msg.holder(), "partitioned"));
        }
    }

    fn arrive(&mut self, msg: Msg) {
        let h = msg.holder();
        let blocked_until = if msg.is_outbound() {
            self.slots[h].out_blocked_until
        } else {
            self.slots[h].in_blocked_until
        };
        if blocked_until > self.now {
            return self.partitioned(msg, blocked_until);
        }
        match msg {
            Msg::Request {
                from,
                incarnation,
                request,
            } => self.at_grantor(from, incarnation, request.id, request.kind),
            Msg::Reply {
                to,
                incarnation,
                id,
                reply,
            } => {
                let slot = &self.slots[to];
                if slot.incarnation != incarnation || matches!(slot.status, Status::Down(_)) {
                    self.trace.note(self.now, Note::Dropped(to, "process gone"));
                    return;
                }
                match slot.status {
                    // The OS keeps the response until the process runs again.
                    Status::Paused(until) | Status::Suspended(until) => {
                        self.net.push(
                            until,
                            Msg::Reply {
                                to,
                                incarnation,
                                id,
                                reply,
                            },
                        );
                    }
                    _ => {
                        self.trace
                            .note(self.now, Note::Delivered(to, id.0, Answer::of(&reply)));
                        self.input(to, Input::Reply(id, reply));
                    }
                }
            }
            Msg::Write { from, token } => {
                let accepted = self.resource.write(self.now, from, token.get());
                self.trace
                    .note(self.now, Note::Write(from, token.get(), accepted));
                let history = self.resource.history();
                if let [.., before, last] = history {
                    if last.2 < before.2 {
                        let detail = format!(
                            "fenced resource accepted token {} after token {}",
                            last.2, before.2
                        );
                        self.fail(Invariant::TokensIncrease, detail);
                    }
                }
            }
        }
    }

    fn at_grantor(
        &mut self,
        from: HolderId,
        incarnation: u32,
        id: RequestId,
        kind: tenure::core::RequestKind,
    ) {
        let req = Req::of(&kind);
        let wants_reply = !matches!(req, Req::Release(_));
        let reply_with = |reply: Reply| Msg::Reply {
            to: from,
            incarnation,
            id,
            reply,
        };
        if self.grantor.is_down() {
            if self.swarm.net.refuse_when_down && wants_reply {
                let refused = Reply::Failed(Failure::of(FailureKind::Unreachable));
                self.transmit(reply_with(refused));
            } else {
                self.trace
                    .note(self.now, Note::Dropped(from, "grantor down"));
            }
            return;
        }
        if !self.healed() && wants_reply {
            let hostile = &self.swarm.hostile;
            let (server_error, rate_limited) = (hostile.server_error, hostile.rate_limited);
            let failure = if self.rng.chance(server_error) {
                Some(Failure::of(FailureKind::Server))
            } else if self.rng.chance(rate_limited) {
                let retry_max = self.swarm.config.retry_max.0;
                Some(Failure {
                    kind: FailureKind::RateLimited,
                    retry_after: Some(Micros(self.rng.range(MS, retry_max.max(MS)))),
                })
            } else {
                None
            };
            if let Some(failure) = failure {
                let reply = Reply::Failed(failure);
                let answer = Some(Answer::of(&reply));
                self.trace
                    .note(self.now, Note::Applied(from, id.0, req, answer, false));
                self.transmit(reply_with(reply));
                return;
            }
        }
        let answer = self.grantor.handle(self.now, from, incarnation, id, &kind);
        let summary = answer.reply.as_ref().map(Answer::of);
        self.trace.note(
            self.now,
            Note::Applied(from, id.0, req, summary, answer.replayed),
        );
        let Some(reply) = answer.reply else {
            return;
        };
        if !self.healed() && self.rng.chance(self.swarm.net.reply_lost_after_apply) {
            self.trace
                .note(self.now, Note::Dropped(from, "reply lost after apply"));
            return;
        }
        let reply = if self.healed() {
            reply
        } else {
            self.corrupt(from, id, reply)
        };
        self.transmit(reply_with(reply));
    }

    /// The hostile grantor: malformed replies, and tokens that go backwards.
    fn corrupt(&mut self, to: HolderId, id: RequestId, reply: Reply) -> Reply {
        let hostile = &self.swarm.hostile;
        let (malformed, regression) = (hostile.malformed, hostile.token_regression);
        let corrupted = if self.rng.chance(malformed) {
            Reply::Failed(Failure::of(FailureKind::Malformed))
        } else if self.rng.chance(regression) {
            match reply {
                Reply::Renew(RenewOutcome::Renewed { token, duration_ms }) if token.get() > 0 => {
                    let lower = self.rng.range(0, token.get() - 1);
                    Reply::Renew(RenewOutcome::Renewed {
                        token: Token::new(lower).expect("lower than a valid token"),
                        duration_ms,
                    })
                }
                Reply::Grant(GrantOutcome::Granted { token, duration_ms }) => {
                    match self.slots[to].holder.highest_token() {
                        Some(seen) => {
                            let stale = self.rng.range(0, seen.get().min(token.get()));
                            Reply::Grant(GrantOutcome::Granted {
                                token: Token::new(stale).expect("no larger than a valid token"),
                                duration_ms,
                            })
                        }
                        None => return Reply::Grant(GrantOutcome::Granted { token, duration_ms }),
                    }
                }
                other => return other,
            }
        } else {
            return reply;
        };
        self.trace
            .note(self.now, Note::Corrupted(to, id.0, Answer::of(&corrupted)));
        corrupted
    }

    // ---- holders ----------------------------------------------------------------------------

    /// Reads holder `i`'s clocks now, as its host would, and remembers the reading.
    fn local_now(&mut self, i: usize) -> Now {
        let slot = &mut self.slots[i];
        let now = slot.clock.now_at(self.now);
        slot.track.saw(now);
        now
    }

    fn think(&mut self) -> u64 {
        let app = &self.swarm.app;
        let (min, max) = (app.think_min, app.think_max);
        self.now + self.rng.range(min, max)
    }

    /// Feeds one input to holder `i`, performs its outputs, and checks the per-input rules.
    fn input(&mut self, i: usize, input: Input) {
        let now = self.local_now(i);
        let holder = &mut self.slots[i].holder;
        match input {
            Input::Timeout => holder.handle_timeout(now),
            Input::Reply(id, reply) => holder.handle_reply(now, id, reply),
            Input::Acquire(campaign) => {
                if let Err(e) = holder.acquire(now, campaign) {
                    let detail = format!("h{i}: acquire while idle failed: {e:?}");
                    return self.fail(Invariant::WellDriven, detail);
                }
            }
            Input::Release => holder.release(now),
            Input::HandOff(to) => holder.hand_off(now, Some(format!("h{to}"))),
            Input::Surrender => holder.surrender(now, "application gave up"),
            Input::Cancel => holder.cancel_acquire(now),
        }
        self.drain(i);
        let slot = &mut self.slots[i];
        if let Err(broken) = slot.track.after_input(i, &mut slot.holder, now) {
            return self.broke(broken);
        }
        self.refresh_timer(i);
    }

    fn drain(&mut self, i: usize) {
        while let Some(output) = self.slots[i].holder.poll_output() {
            match output {
                Output::Send(request) => {
                    let req = Req::of(&request.kind);
                    self.trace.note(self.now, Note::Send(i, request.id.0, req));
                    let incarnation = self.slots[i].incarnation;
                    self.transmit(Msg::Request {
                        from: i,
                        incarnation,
                        request,
                    });
                }
                Output::Event(event) => {
                    self.trace.note(self.now, Note::Event(i, Ev::of(&event)));
                    self.track_event(i, &event);
                }
                // Aborting a fetch does not unsend it: the request may still reach the grantor,
                // and a reply may still arrive (the core must ignore it).
                Output::Abandon(id) => self.trace.note(self.now, Note::Abandoned(i, id.0)),
            }
        }
    }

    /// Checks each event against the hold it belongs to (invariants 3, 4 and 6b).
    fn track_event(&mut self, i: usize, event: &Event) {
        let incarnation = self.slots[i].incarnation;
        let effect = match self.slots[i].track.on_event(i, event) {
            Ok(effect) => effect,
            Err(broken) => return self.broke(broken),
        };
        let me = Some((i, incarnation));
        if effect.refreshed && self.healed() && self.keeper.is_none() {
            self.keeper = me;
        }
        if effect.ended {
            self.slots[i].app_at = self.think();
            if self.keeper == me && !matches!(event, Event::AcquireFailed(_)) {
                let detail = format!("h{i} lost its lease after the heal: {event:?}");
                self.fail(Invariant::HealthyHolderKeeps, detail);
            }
        }
    }

    /// Re-arms holder `i`'s host timer for the core's next deadline, drawing how late it fires.
    fn refresh_timer(&mut self, i: usize) {
        let target = self.slots[i].holder.poll_timeout().map(|at| at.0);
        let current = self.slots[i].timer.map(|t| t.target);
        if target == current {
            return;
        }
        self.slots[i].timer = match target {
            None => None,
            Some(target) => {
                let max_late = if self.slots[i].hidden_until > self.now {
                    HIDDEN_TIMER_LATENESS
                } else {
                    VISIBLE_TIMER_LATENESS
                };
                let lateness = self.rng.range(0, max_late);
                let fire_at = self.slots[i]
                    .clock
                    .true_time_of_mono(self.now, target)
                    .map(|t| t + lateness);
                Some(Timer {
                    target,
                    lateness,
                    fire_at,
                })
            }
        };
    }

    /// Recomputes when holder `i`'s timer fires after its clock changed rate or stopped.
    fn rearm_timer(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        if let Some(timer) = slot.timer.as_mut() {
            timer.fire_at = slot
                .clock
                .true_time_of_mono(self.now, timer.target)
                .map(|t| t + timer.lateness);
        }
    }

    fn app(&mut self, i: usize) {
        self.slots[i].app_at = self.think();
        let healed = self.healed();
        let app = self.swarm.app.clone();
        if !healed && self.rng.chance(app.spurious_wake) {
            self.trace.note(self.now, Note::App(i, "spurious wake"));
            self.input(i, Input::Timeout);
            if self.violation.is_some() {
                return;
            }
        }
        match self.slots[i].holder.phase() {
            Phase::Idle => {
                let campaign = healed || self.rng.chance(app.campaign);
                // Some campaigns come back after every loss on their own (`recontend`).
                let recontend = campaign && self.rng.chance(0.3);
                let what = match (campaign, recontend) {
                    (true, true) => "campaign, recontending",
                    (true, false) => "campaign",
                    _ => "acquire once",
                };
                self.trace.note(self.now, Note::App(i, what));
                self.slots[i].holder.recontend(recontend);
                self.input(i, Input::Acquire(campaign));
            }
            Phase::Acquiring => {
                if !healed && self.rng.chance(app.cancel) {
                    self.trace.note(self.now, Note::App(i, "cancel"));
                    self.input(i, Input::Cancel);
                }
            }
            Phase::Held => {
                let now = self.local_now(i);
                let holder = &mut self.slots[i].holder;
                if holder.is_safely_held(now) && self.rng.chance(app.write) {
                    let token = holder.lease().token().expect("held implies a token");
                    self.trace.note(self.now, Note::WriteSent(i, token.get()));
                    self.transmit(Msg::Write { from: i, token });
                }
                if healed {
                    return;
                }
                if self.rng.chance(app.release) {
                    // A quarter of releases hand the lease to another holder.
                    if self.rng.chance(0.25) {
                        let others = self.slots.len() - 1;
                        let to = (i + 1 + self.rng.below(others.max(1))) % self.slots.len();
                        self.trace.note(self.now, Note::App(i, "hand off"));
                        self.input(i, Input::HandOff(to));
                    } else {
                        self.trace.note(self.now, Note::App(i, "release"));
                        self.input(i, Input::Release);
                    }
                } else if self.rng.chance(app.surrender) {
                    self.trace.note(self.now, Note::App(i, "surrender"));
                    self.input(i, Input::Surrender);
                }
            }
        }
    }

    fn resume(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        if let Status::Suspended(_) = slot.status {
            slot.clock.set_suspended(self.now, false);
        }
        slot.status = Status::Running;
        self.rearm_timer(i);
        self.trace.note(self.now, Note::Resumed(i));
        // Hosts call handle_timeout on resume, pageshow and visibilitychange.
        self.input(i, Input::Timeout);
    }

    fn restart(&mut self, i: usize) {
        let seed = self.rng.next_u64();
        let origin = self.rng.range(0, 1_000_000_000_000);
        let app_at = self.think();
        let config = holder_config(&self.swarm.config, seed, self.mutation);
        let slot = &mut self.slots[i];
        let wall = slot.clock.wall_at(self.now);
        let (mono_ppm, wall_ppm) = slot.clock.rates();
        // A new process: no memory, and a monotonic clock with a new origin.
        slot.clock = MachineClock::new(self.now, origin, wall, mono_ppm, wall_ppm);
        slot.holder = Holder::new(config);
        slot.incarnation += 1;
        slot.status = Status::Running;
        slot.timer = None;
        slot.track = HoldTracker::default();
        slot.app_at = app_at;
        let incarnation = slot.incarnation;
        self.trace.note(self.now, Note::Restarted(i, incarnation));
    }

    // ---- faults -----------------------------------------------------------------------------

    fn schedule_next_fault(&mut self) {
        self.next_fault_at = if self.fault_rate > 0.0 {
            let mean = (1.0 / self.fault_rate) as u64;
            self.now + self.rng.exponential(mean.max(1))
        } else {
            u64::MAX
        };
    }

    fn fault(&mut self) {
        let mut pick = self.rng.unit() * self.fault_rate;
        let mut kind = None;
        for (k, mean) in FaultKind::ALL.iter().zip(self.swarm.faults.mean_interval) {
            if let Some(mean) = mean {
                kind = Some(*k);
                pick -= 1.0 / mean as f64;
                if pick < 0.0 {
                    break;
                }
            }
        }
        let Some(kind) = kind else {
            return;
        };
        let i = self.rng.below(self.slots.len());
        let now = self.now;
        let f = self.swarm.faults.clone();
        let rho = self.swarm.rho_ppm;
        let lease = self.swarm.config.lease.0;
        match kind {
            FaultKind::Partition => {
                let until = now + self.rng.range(MS, f.partition_max.max(MS));
                let everyone = self.rng.chance(0.2);
                let (out, inbound) = self.rng.pick(&[(true, false), (false, true), (true, true)]);
                let targets = if everyone {
                    0..self.slots.len()
                } else {
                    i..i + 1
                };
                for h in targets {
                    let slot = &mut self.slots[h];
                    if out {
                        slot.out_blocked_until = slot.out_blocked_until.max(until);
                    }
                    if inbound {
                        slot.in_blocked_until = slot.in_blocked_until.max(until);
                    }
                }
                let what = match (out, inbound) {
                    (true, true) => "partition both ways",
                    (true, false) => "partition holder->grantor",
                    _ => "partition grantor->holder",
                };
                let who = (!everyone).then_some(i);
                self.trace
                    .note(now, Note::Fault(what, who, (until - now) as i64));
            }
            FaultKind::WallStep => {
                let size = self.rng.range(MS, f.wall_step_max) as i64;
                // A step back while the machine sleeps hides up to its size of the sleep from
                // both clocks before any reading can see it; that is outside the fault model
                // (see the drift assumption in `clock`), so a sleeping machine only steps forward.
                let asleep = matches!(self.slots[i].status, Status::Suspended(_));
                let delta = if asleep || self.rng.chance(0.5) {
                    size
                } else {
                    -size
                };
                self.slots[i].clock.step_wall(now, delta);
                self.trace
                    .note(now, Note::Fault("wall step", Some(i), delta));
            }
            FaultKind::Suspend => {
                if self.slots[i].status == Status::Running {
                    let until = now + self.rng.range(MS, f.suspend_max);
                    self.slots[i].clock.set_suspended(now, true);
                    self.slots[i].status = Status::Suspended(until);
                    self.trace
                        .note(now, Note::Fault("suspend", Some(i), (until - now) as i64));
                }
            }
            FaultKind::Pause => {
                if self.slots[i].status == Status::Running {
                    let until = now + self.rng.range(MS, f.pause_max.min(10 * lease));
                    self.slots[i].status = Status::Paused(until);
                    self.trace
                        .note(now, Note::Fault("pause", Some(i), (until - now) as i64));
                }
            }
            FaultKind::Crash => {
                if !matches!(self.slots[i].status, Status::Down(_)) {
                    let restart_at = now + self.rng.range(0, f.crash_down_max);
                    let slot = &mut self.slots[i];
                    if let Status::Suspended(_) = slot.status {
                        slot.clock.set_suspended(now, false);
                    }
                    slot.status = Status::Down(restart_at);
                    slot.timer = None;
                    self.trace.note(
                        now,
                        Note::Fault("crash", Some(i), (restart_at - now) as i64),
                    );
                }
            }
            FaultKind::Hidden => {
                let until = now + self.rng.range(lease.min(f.hidden_max), f.hidden_max);
                self.slots[i].hidden_until = until;
                self.slots[i].timer = None;
                self.refresh_timer(i);
                self.trace.note(
                    now,
                    Note::Fault("tab hidden", Some(i), (until - now) as i64),
                );
            }
            FaultKind::Drift => {
                let mono = self.rng.range(0, 2 * rho) as i64 - rho as i64;
                let wall = self.rng.range(0, 2 * rho) as i64 - rho as i64;
                self.slots[i].clock.set_rates(now, mono, wall);
                self.rearm_timer(i);
                self.trace
                    .note(now, Note::Fault("clock rate (mono ppm)", Some(i), mono));
            }
            FaultKind::GrantorRestart => {
                if !self.grantor.is_down() {
                    let up_at = now + self.rng.range(0, f.grantor_down_max);
                    self.grantor.down(now);
                    self.grantor_up_at = Some(up_at);
                    self.trace
                        .note(now, Note::Fault("grantor down", None, (up_at - now) as i64));
                }
            }
            FaultKind::Revoke => {
                if let Some(token) = self.grantor.revoke(now) {
                    self.trace
                        .note(now, Note::Fault("revoke", None, token as i64));
                }
            }
        }
    }

    /// Ends the fault phase: everything healthy from here on.
    fn heal(&mut self) {
        let now = self.now;
        self.healed_at = Some(now);
        self.live_deadline = now + self.swarm.liveness_bound();
        self.end_at = self.live_deadline + 3 * self.swarm.config.lease.0;
        self.trace.note(now, Note::Heal);
        // Connections reset: nothing sent before the heal arrives after it.
        self.net.clear();
        if self.grantor.is_down() {
            self.grantor_up_at = None;
            self.grantor.up(now);
        }
        for i in 0..self.slots.len() {
            let slot = &mut self.slots[i];
            slot.out_blocked_until = 0;
            slot.in_blocked_until = 0;
            slot.hidden_until = 0;
            slot.clock.set_rates(now, 0, 0);
            // The tab becomes visible: the host re-arms its timer, which now fires on time.
            slot.timer = None;
            match slot.status {
                Status::Down(_) => self.restart(i),
                Status::Paused(_) | Status::Suspended(_) => self.resume(i),
                Status::Running => self.input(i, Input::Timeout),
            }
            if self.violation.is_some() {
                return;
            }
        }
    }

    // ---- invariants -------------------------------------------------------------------------

    /// The checks that hold at every instant (invariants 1, 2 and 5), plus the liveness
    /// deadline.
    fn check_step(&mut self) {
        let mut beliefs: Vec<(usize, u64)> = Vec::new();
        for i in 0..self.slots.len() {
            if self.slots[i].status != Status::Running {
                continue;
            }
            let now = self.slots[i].clock.now_at(self.now);
            let slot = &mut self.slots[i];
            match slot.track.sample(i, &mut slot.holder, now) {
                Ok(Some(token)) => beliefs.push((i, token)),
                Ok(None) => {}
                Err(broken) => return self.broke(broken),
            }
        }
        if let Err(broken) = check_beliefs(&self.grantor, self.now, &beliefs) {
            return self.broke(broken);
        }
        if self.healed() && self.now > self.live_deadline && self.keeper.is_none() {
            self.no_holder_in_time();
        }
    }

    fn no_holder_in_time(&mut self) {
        let bound = self.swarm.liveness_bound();
        let detail = format!(
            "no holder acquired or renewed within {}.{:03}s of the heal",
            bound / 1_000_000,
            bound / 1_000 % 1_000
        );
        self.fail(Invariant::EventuallyHeld, detail);
    }

    fn check_end(&mut self) {
        match self.keeper {
            None => self.no_holder_in_time(),
            Some((i, incarnation)) => {
                let slot = &self.slots[i];
                if slot.incarnation != incarnation || slot.holder.phase() != Phase::Held {
                    let detail = format!("h{i} no longer holds at the end of the run");
                    self.fail(Invariant::HealthyHolderKeeps, detail);
                }
            }
        }
    }
}

fn holder_config(base: &HolderConfig, seed: u64, mutation: Option<Mutation>) -> HolderConfig {
    HolderConfig {
        seed,
        mutation,
        ..base.clone()
    }
}
