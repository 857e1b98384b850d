//! The holder state machine: acquire, renew, surrender, release.

use std::collections::VecDeque;

use super::config::HolderConfig;
use super::lease::{Lease, SafeWindow};
use super::rng::Jitter;
use super::time::{Clock, Micros, MonoTime, Now, WallTime};
use super::Mutation;
use crate::protocol::{GrantOutcome, RenewOutcome, RenewRefusal, Token};

/// Identifies one request to the grantor, unique within a holder. A reply is matched to its
/// request by this id; a reply whose request was abandoned is ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestId(pub u64);

/// A request the host must send to the grantor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Pass it back with the reply.
    pub id: RequestId,
    /// What to ask.
    pub kind: RequestKind,
}

/// The three things a holder asks of a grantor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestKind {
    /// Grant a new lease of `duration_ms`.
    Grant {
        /// The requested duration.
        duration_ms: u64,
    },
    /// Renew the lease held under `token` for `duration_ms` from now.
    Renew {
        /// The held token.
        token: Token,
        /// The requested duration.
        duration_ms: u64,
    },
    /// Give the lease held under `token` back. Nothing waits for the reply.
    Release {
        /// The held token.
        token: Token,
        /// Hand the lease over to this holder ([`Holder::hand_off`]): the grantor keeps it for
        /// that holder for a while.
        hand_to: Option<String>,
    },
}

/// A grantor's answer, already validated by the host's adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// An answer to a grant request.
    Grant(GrantOutcome),
    /// An answer to a renew request.
    Renew(RenewOutcome),
    /// The attempt failed without a definitive answer: the lease may or may not have changed.
    Failed(Failure),
}

/// A failed attempt: transport error, server error, rate limit or malformed reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong.
    pub kind: FailureKind,
    /// The grantor asked us to wait this long before retrying (`Retry-After`).
    pub retry_after: Option<Micros>,
}

impl Failure {
    /// A failure of `kind` without a retry hint.
    pub fn of(kind: FailureKind) -> Failure {
        Failure {
            kind,
            retry_after: None,
        }
    }
}

/// Kinds of failed attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The grantor could not be reached, or the grantor object threw.
    Unreachable,
    /// The attempt took longer than its timeout and was abandoned.
    TimedOut,
    /// The grantor answered with an error status (5xx).
    Server,
    /// The grantor asked us to slow down (429).
    RateLimited,
    /// The grantor refused the request itself (a 4xx other than 429): retrying the same request
    /// will not help, but the lease is not known to be lost either.
    BadRequest,
    /// The reply did not validate: never a grant.
    Malformed,
    /// The reply answered a different question (a renewal reply to a grant, or the reverse).
    WrongReply,
    /// A grant carried a token no larger than one this holder already saw.
    TokenRegressed,
    /// The grant arrived with no safe time left, or for a duration inside the margin.
    TooLate,
}

impl FailureKind {
    /// What a non-2xx HTTP reply from a grantor stands for: `429` asks us to slow down, `408`
    /// says the request did not arrive in time (nothing was done), `5xx` is the grantor's own
    /// failure, and any other status (a refused request, a redirect, failed authentication) a
    /// request that retrying unchanged will not mend.
    pub fn for_status(status: u16) -> FailureKind {
        match status {
            429 => FailureKind::RateLimited,
            408 => FailureKind::TimedOut,
            500.. => FailureKind::Server,
            _ => FailureKind::BadRequest,
        }
    }

    /// What a reply carrying the protocol error `code` stands for: the kind of the status the
    /// protocol answers it with; an unknown code is a refused request.
    pub fn for_error_code(code: &str) -> FailureKind {
        crate::protocol::ErrorCode::parse(code).map_or(FailureKind::BadRequest, |code| {
            FailureKind::for_status(code.http_status())
        })
    }

    /// A stable name for logs, stats and JavaScript.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Unreachable => "unreachable",
            FailureKind::TimedOut => "timed_out",
            FailureKind::Server => "server_error",
            FailureKind::RateLimited => "rate_limited",
            FailureKind::BadRequest => "bad_request",
            FailureKind::Malformed => "malformed_reply",
            FailureKind::WrongReply => "wrong_reply",
            FailureKind::TokenRegressed => "token_regressed",
            FailureKind::TooLate => "too_late",
        }
    }
}

/// Why a hold ended without the holder asking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LossReason {
    /// Renewals did not succeed before the safety margin began.
    MarginExhausted,
    /// The grantor refused a renewal: a definitive loss.
    Refused(RenewRefusal),
    /// A renewal came back with a token lower than the one held.
    TokenRegressed {
        /// The token held.
        held: Token,
        /// The lower token in the reply.
        got: Token,
    },
    /// The application surrendered, giving this reason.
    Surrendered(String),
    /// The application handed the lease over ([`Holder::hand_off`]).
    HandedOff,
}

impl LossReason {
    /// The reason as `onLeaseLost` receives it.
    pub fn as_str(&self) -> &str {
        match self {
            LossReason::MarginExhausted => "margin_exhausted",
            LossReason::Refused(refusal) => refusal.as_str(),
            LossReason::TokenRegressed { .. } => "token_regressed",
            LossReason::Surrendered(reason) => reason,
            LossReason::HandedOff => "handed_off",
        }
    }
}

/// Why an acquire attempt ended without a lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AcquireFailure {
    /// Somebody else holds it.
    Denied {
        /// The current holder, if the grantor said.
        holder: Option<String>,
        /// How long the current grant has left, if the grantor said.
        expires_in: Option<Micros>,
    },
    /// The attempt failed; see the failure.
    Failed(Failure),
    /// The application cancelled the campaign.
    Cancelled,
}

/// Something the application should hear about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A lease was granted.
    Acquired {
        /// Its token.
        token: Token,
    },
    /// An acquire (single attempt or campaign) ended without a lease.
    AcquireFailed(AcquireFailure),
    /// A renewal succeeded.
    Renewed {
        /// The token after renewal.
        token: Token,
        /// The renewal's round trip.
        rtt: Micros,
    },
    /// A renewal attempt failed; the holder retries while budget remains.
    RenewFailed {
        /// Failures in a row, this one included.
        consecutive: u32,
        /// What went wrong.
        failure: Failure,
    },
    /// The hold ended without the application releasing it. Emitted once per hold.
    Lost {
        /// The token that was held.
        token: Token,
        /// Why.
        reason: LossReason,
    },
    /// The application released the hold. Emitted once per hold.
    Released {
        /// The token that was held.
        token: Token,
    },
}

/// Something the host must do: send a request or deliver an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Send this request to the grantor and feed its outcome to [`Holder::handle_reply`].
    Send(Request),
    /// Deliver this event to the application.
    Event(Event),
    /// Stop waiting for request `id` (it timed out or is no longer wanted): abort it if the
    /// transport can. Any reply to it will be ignored anyway.
    Abandon(RequestId),
}

/// A calling mistake, as opposed to a lease outcome (which is an [`Event`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageError {
    /// `acquire` while an acquire is already running.
    AcquireInProgress,
    /// `acquire` while the lease is held.
    AlreadyHeld,
}

#[derive(Clone, Copy, Debug)]
struct Attempt {
    id: RequestId,
    sent: Now,
    deadline: MonoTime,
}

#[derive(Clone, Copy, Debug)]
enum AcquireStep {
    InFlight(Attempt),
    RetryAt(MonoTime),
}

#[derive(Clone, Copy, Debug)]
enum Renewal {
    ScheduledAt(MonoTime),
    InFlight(Attempt),
}

#[derive(Clone, Debug)]
enum State {
    Idle,
    Acquiring {
        campaign: bool,
        step: AcquireStep,
    },
    Held {
        renewal: Renewal,
        /// Renewals superseded while still in flight; only the overlapping-renewals mutation
        /// ever fills it.
        #[cfg(feature = "mutations")]
        superseded: Vec<RequestId>,
    },
}

/// What the holder is doing, for hosts and traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not holding and not trying to.
    Idle,
    /// Waiting for a grant, or for the next campaign attempt.
    Acquiring,
    /// Holding the lease (which may still be inside its margin until the next input).
    Held,
}

/// The sans-IO lease holder.
///
/// The host drives it:
/// 1. call a command ([`acquire`](Holder::acquire), [`release`](Holder::release),
///    [`surrender`](Holder::surrender)) or an input ([`handle_reply`](Holder::handle_reply),
///    [`handle_timeout`](Holder::handle_timeout)), each with the current [`Now`];
/// 2. drain [`poll_output`](Holder::poll_output) until it returns `None`, sending each request
///    and delivering each event;
/// 3. arm one timer for [`poll_timeout`](Holder::poll_timeout) and, when it fires, **read the
///    clocks** and call `handle_timeout`. Timers may fire late (hidden tabs) or early; the core
///    only trusts the time it is given. Calling `handle_timeout` spuriously is harmless.
///
/// Call `handle_timeout` also whenever the host may have been asleep or throttled
/// (`visibilitychange`, `resume`, `pageshow`, `online`).
#[derive(Clone, Debug)]
pub struct Holder {
    config: HolderConfig,
    lease: Lease,
    clock: Clock,
    state: State,
    next_id: u64,
    consecutive_failures: u32,
    highest_token: Option<Token>,
    /// A grant request still in flight when its acquire was cancelled. The grantor may already
    /// have granted it; if its reply says so, the grant is released at once instead of being
    /// left to expire while nobody holds it.
    cancelled_grant: Option<Attempt>,
    jitter: Jitter,
    /// Campaign again after every loss ([`Holder::recontend`]).
    recontend: bool,
    outputs: VecDeque<Output>,
}

impl Holder {
    /// A holder that holds nothing yet.
    pub fn new(config: HolderConfig) -> Holder {
        // `HolderConfig::from_ms` already checked lease > margin > 0.
        #[allow(unused_mut)]
        let mut lease = Lease::validated(config.lease, config.margin);
        #[cfg(feature = "mutations")]
        lease.set_mutation(config.mutation);
        Holder {
            jitter: Jitter::new(config.seed),
            config,
            lease,
            clock: Clock::new(),
            state: State::Idle,
            next_id: 0,
            consecutive_failures: 0,
            highest_token: None,
            cancelled_grant: None,
            recontend: false,
            outputs: VecDeque::new(),
        }
    }

    /// Whether this holder runs the deliberately broken variant `mutation`. Always false in
    /// builds without the `mutations` feature, so the checks compile away.
    #[inline(always)]
    fn mutated(&self, mutation: Mutation) -> bool {
        #[cfg(feature = "mutations")]
        return self.config.mutation == Some(mutation);
        #[cfg(not(feature = "mutations"))]
        {
            let _ = mutation;
            false
        }
    }

    /// The configuration.
    pub fn config(&self) -> &HolderConfig {
        &self.config
    }

    /// The lease as currently believed.
    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    /// What the holder is doing.
    pub fn phase(&self) -> Phase {
        match self.state {
            State::Idle => Phase::Idle,
            State::Acquiring { .. } => Phase::Acquiring,
            State::Held { .. } => Phase::Held,
        }
    }

    /// Renewal failures in a row; reset by a success or a new hold.
    pub fn consecutive_failures(&self) -> u32 {
        self.consecutive_failures
    }

    /// When the next renewal is due on the lease's own schedule (`renew_interval` after the
    /// send, scaled down for a short grant): `None` unless held with that renewal still waiting.
    /// A retry after a failure follows a jittered backoff instead, so it has no schedule to be
    /// late against; hosts measure their timers' lateness against this.
    pub fn renewal_due(&self) -> Option<MonoTime> {
        match self.state {
            State::Held {
                renewal: Renewal::ScheduledAt(at),
                ..
            } if self.consecutive_failures == 0 => Some(at),
            _ => None,
        }
    }

    /// The highest token this holder has ever been granted.
    pub fn highest_token(&self) -> Option<Token> {
        self.highest_token
    }

    /// Whether the holder holds the lease with more than the margin left at `now`.
    ///
    /// This is a pure query; the hold ends (with a [`Event::Lost`]) at the next input. Hosts that
    /// answer `false` here while [`phase`](Holder::phase) is `Held` should call
    /// [`handle_timeout`](Holder::handle_timeout) so the loss is delivered at once.
    pub fn is_safely_held(&mut self, now: Now) -> bool {
        let now = self.clock.observe(now);
        matches!(self.state, State::Held { .. }) && self.lease.is_safely_held_seen(now)
    }

    /// Time left on the lease at `now` (zero when not held).
    pub fn remaining(&mut self, now: Now) -> Micros {
        let now = self.clock.observe(now);
        match self.state {
            State::Held { .. } => self.lease.remaining_seen(now),
            _ => Micros::ZERO,
        }
    }

    /// The readings at which [`is_safely_held`](Holder::is_safely_held) is settled in advance:
    /// the held lease's [`SafeWindow`] on this holder's clock, `None` unless held.
    pub fn safe_window(&self) -> Option<SafeWindow> {
        match self.state {
            State::Held { .. } => self.lease.window_on(&self.clock),
            _ => None,
        }
    }

    /// Records a reading that [`safe_window`](Holder::safe_window) admitted, as observing it
    /// would.
    pub fn observe_quiet(&mut self, mono: MonoTime) {
        self.clock.observe_quiet(mono);
    }

    /// The clock this holder counts time on.
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Starts acquiring: one attempt, or with `campaign` retries until granted or cancelled.
    pub fn acquire(&mut self, now: Now, campaign: bool) -> Result<(), UsageError> {
        let now = self.clock.observe(now);
        match self.state {
            State::Held { .. } => return Err(UsageError::AlreadyHeld),
            State::Acquiring { .. } => return Err(UsageError::AcquireInProgress),
            State::Idle => {}
        }
        // A cancelled grant request still in flight becomes this acquire's attempt again rather
        // than being raced by a new one: a grantor may deny the new request while the first one's
        // grant stands (the reference grantor does, without that grant's secret), and releasing
        // the first one's token could end the new hold (etcd and Redis return the same token to
        // the same holder). Its earlier send time only makes the lease start earlier.
        let attempt = match self.cancelled_grant.take() {
            Some(cancelled) => cancelled,
            None => self.send_grant(now),
        };
        self.state = State::Acquiring {
            campaign,
            step: AcquireStep::InFlight(attempt),
        };
        Ok(())
    }

    /// Acquires with a grant request that already went out at `sent`, inside another machine's
    /// request (a settle attempt that also claims the next item), for a fresh holder.
    ///
    /// `clock` is the clock of the holder that sent it, which has observed every reading since
    /// `sent`. A fresh clock would see only `sent` and `now`, and a wall step back followed by a
    /// sleep between them would hide the sleep (tenure-sim claims seed 1381058); on the clock
    /// that saw the step, `sent` is judged in the frame that applied when it was read.
    pub(crate) fn acquire_sent(&mut self, clock: Clock, sent: Now, now: Now) {
        debug_assert!(matches!(self.state, State::Idle), "a fresh holder");
        self.clock = clock;
        let framed_now = self.clock.observe(now);
        let offset = self.clock.frame_offset_at(sent.mono, now);
        let sent = Now {
            mono: sent.mono.min(framed_now.mono),
            wall: WallTime(sent.wall.0.saturating_add(offset.0)).min(framed_now.wall),
        };
        let attempt = self.send_grant(sent);
        self.state = State::Acquiring {
            campaign: false,
            step: AcquireStep::InFlight(attempt),
        };
    }

    /// Stops an acquire in progress. A grant request still in flight is kept until its reply or
    /// timeout: if the grantor granted it, the grant is released at once, so a cancelled
    /// campaign never leaves the lease held by nobody until it expires.
    pub fn cancel_acquire(&mut self, now: Now) {
        self.clock.observe(now);
        self.recontend = false;
        if let State::Acquiring { step, .. } = self.state {
            if let AcquireStep::InFlight(attempt) = step {
                self.cancelled_grant = Some(attempt);
            }
            self.state = State::Idle;
            self.emit(Event::AcquireFailed(AcquireFailure::Cancelled));
        }
    }

    /// Whether to campaign again after every loss of the lease (a refused renewal, renewals that
    /// did not succeed in time), until [`Holder::release`], [`Holder::hand_off`],
    /// [`Holder::surrender`] or [`Holder::cancel_acquire`]: a holder that lost leadership to a
    /// network partition comes back when it can, instead of staying out for good. The new
    /// campaign starts within one retry base of the loss, and is granted under a new token.
    pub fn recontend(&mut self, on: bool) {
        self.recontend = on;
    }

    /// Ends the hold locally with `reason`, without telling the grantor (the design's
    /// `surrender`). Emits [`Event::Lost`].
    pub fn surrender(&mut self, now: Now, reason: &str) {
        self.clock.observe(now);
        self.recontend = false;
        if let State::Held { .. } = self.state {
            self.lose(LossReason::Surrendered(reason.to_owned()));
        }
    }

    /// Ends the hold and tells the grantor, so others need not wait for expiry. Also cancels an
    /// acquire in progress. Emits [`Event::Released`] if something was held.
    pub fn release(&mut self, now: Now) {
        self.give_back(now, None);
    }

    /// Hands the lease over: releases it as [`Holder::release`] does, asking the grantor to keep
    /// it for holder `to` for a while (the reference grantor does, for at most
    /// [`HANDOFF_MAX_MS`](crate::protocol::HANDOFF_MAX_MS)); with `None`, or on a grantor
    /// that keeps nothing for anyone, whoever asks next is granted it. Emits [`Event::Lost`]
    /// with [`LossReason::HandedOff`] if something was held.
    pub fn hand_off(&mut self, now: Now, to: Option<String>) {
        self.give_back(now, Some(to));
    }

    /// Releases (`hand_off` `None`) or hands over.
    fn give_back(&mut self, now: Now, hand_off: Option<Option<String>>) {
        let now = self.clock.observe(now);
        self.recontend = false;
        match self.state {
            State::Held { .. } => {
                // A hold already past its margin is lost, not released: report what happened.
                if !self.lease.is_safely_held_seen(now) {
                    self.lose(LossReason::MarginExhausted);
                    return;
                }
                let Some(token) = self.lease.token() else {
                    return self.lose(LossReason::MarginExhausted);
                };
                self.abandon_renewal();
                self.lease.clear();
                self.state = State::Idle;
                let handing = hand_off.is_some();
                let hand_to = hand_off.flatten();
                self.send(RequestKind::Release { token, hand_to });
                self.emit(match handing {
                    true => Event::Lost {
                        token,
                        reason: LossReason::HandedOff,
                    },
                    false => Event::Released { token },
                });
            }
            State::Acquiring { .. } => self.cancel_acquire(now),
            State::Idle => {}
        }
    }

    /// The grantor's change feed says `holder` holds the resource now (`None`: nobody), kept for
    /// `handed_to` if any ([`Holder::hand_off`]); `holder_id` is this holder's identity. When
    /// nobody holds it and it is not kept for another holder, a campaign waiting to retry asks
    /// at once rather than at the end of its wait, so a lease released or handed to this holder
    /// is taken up within a round trip. Anything else changes nothing.
    pub fn handle_holder_change(
        &mut self,
        now: Now,
        holder: Option<&str>,
        handed_to: Option<&str>,
        holder_id: &str,
    ) {
        let now = self.clock.observe(now);
        if holder.is_some() || handed_to.is_some_and(|to| to != holder_id) {
            return;
        }
        if let State::Acquiring {
            campaign: true,
            step: AcquireStep::RetryAt(_),
        } = self.state
        {
            let attempt = self.send_grant(now);
            self.state = State::Acquiring {
                campaign: true,
                step: AcquireStep::InFlight(attempt),
            };
        }
    }

    /// The next output to act on, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// When to call [`handle_timeout`](Holder::handle_timeout) next, on the monotonic clock; `None`
    /// when nothing is pending. Never earlier than the latest time the holder was given.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        let at = match &self.state {
            State::Idle => None,
            State::Acquiring { step, .. } => Some(match step {
                AcquireStep::InFlight(attempt) => attempt.deadline,
                AcquireStep::RetryAt(at) => *at,
            }),
            State::Held { renewal, .. } => {
                let renewal_at = match renewal {
                    Renewal::ScheduledAt(at) => *at,
                    Renewal::InFlight(attempt) if self.mutated(Mutation::OverlappingRenewals) => {
                        let overdue = attempt.sent.mono.plus(self.config.renew_interval);
                        attempt.deadline.min(overdue)
                    }
                    Renewal::InFlight(attempt) => attempt.deadline,
                };
                let expiry = if self.mutated(Mutation::NoIndependentExpiry) {
                    None
                } else {
                    self.lease.safe_until()
                };
                Some(expiry.map_or(renewal_at, |e| e.min(renewal_at)))
            }
        };
        let cancelled = self.cancelled_grant.map(|attempt| attempt.deadline);
        let at = match (at, cancelled) {
            (Some(at), Some(cancelled)) => Some(at.min(cancelled)),
            (at, cancelled) => at.or(cancelled),
        };
        let floor = self.clock.last().map(|n| n.mono);
        match (at, floor) {
            (Some(at), Some(floor)) => Some(at.max(floor)),
            (at, _) => at,
        }
    }

    /// Acts on everything due at `now`: expiry, abandoned attempts, renewals and retries.
    pub fn handle_timeout(&mut self, now: Now) {
        let now = self.clock.observe(now);
        if let Some(cancelled) = self.cancelled_grant {
            if now.mono >= cancelled.deadline {
                self.cancelled_grant = None;
                self.abandon(cancelled.id);
            }
        }
        match self.state.clone() {
            State::Idle => {}
            State::Acquiring { campaign, step } => match step {
                AcquireStep::InFlight(attempt) if now.mono >= attempt.deadline => {
                    self.abandon(attempt.id);
                    self.acquire_failed(now, campaign, Failure::of(FailureKind::TimedOut));
                }
                AcquireStep::RetryAt(at) if now.mono >= at => {
                    let attempt = self.send_grant(now);
                    self.state = State::Acquiring {
                        campaign,
                        step: AcquireStep::InFlight(attempt),
                    };
                }
                _ => {}
            },
            State::Held { renewal, .. } => {
                if !self.mutated(Mutation::NoIndependentExpiry)
                    && !self.lease.is_safely_held_seen(now)
                {
                    self.lose(LossReason::MarginExhausted);
                    return;
                }
                match renewal {
                    Renewal::InFlight(attempt) if now.mono >= attempt.deadline => {
                        self.abandon(attempt.id);
                        self.renew_failed(now, Failure::of(FailureKind::TimedOut));
                    }
                    Renewal::ScheduledAt(at) if now.mono >= at => self.send_renewal(now),
                    Renewal::InFlight(_)
                        if self.mutated(Mutation::OverlappingRenewals)
                            && self.renewal_overdue(now) =>
                    {
                        self.send_renewal(now)
                    }
                    _ => {}
                }
            }
        }
    }

    /// Feeds the outcome of request `id`. Outcomes of abandoned or unknown requests are ignored.
    pub fn handle_reply(&mut self, now: Now, id: RequestId, reply: Reply) {
        let now = self.clock.observe(now);
        if self
            .cancelled_grant
            .is_some_and(|cancelled| cancelled.id == id)
        {
            self.cancelled_grant = None;
            if let Reply::Grant(GrantOutcome::Granted { token, .. }) = reply {
                // The grantor issued it, so a later reply with a lower token is still a
                // regression.
                self.highest_token = Some(self.highest_token.map_or(token, |t| t.max(token)));
                self.send(RequestKind::Release {
                    token,
                    hand_to: None,
                });
            }
            return;
        }
        // Like `handle_timeout`, end a hold whose margin has begun before anything else. Without
        // this, a stale or duplicate reply (which is then ignored) arriving after the margin
        // began, with the expiry timer late or not yet due on the monotonic clock while the wall
        // clock already ran out, left the holder `Held` past expiry. Found by the simulation
        // (tenure-sim seed 261).
        if matches!(self.state, State::Held { .. })
            && !self.mutated(Mutation::NoIndependentExpiry)
            && !self.lease.is_safely_held_seen(now)
        {
            return self.lose(LossReason::MarginExhausted);
        }
        match self.state.clone() {
            State::Acquiring {
                campaign,
                step: AcquireStep::InFlight(attempt),
            } if attempt.id == id => self.on_grant_reply(now, campaign, attempt, reply),
            State::Held {
                renewal: Renewal::InFlight(attempt),
                ..
            } if attempt.id == id || self.is_superseded(id) => {
                self.on_renew_reply(now, attempt, reply)
            }
            _ => {}
        }
    }

    fn on_grant_reply(&mut self, now: Now, campaign: bool, attempt: Attempt, reply: Reply) {
        match reply {
            Reply::Grant(GrantOutcome::Granted { token, duration_ms }) => {
                if self.highest_token.is_some_and(|seen| token <= seen)
                    && !self.mutated(Mutation::AcceptTokenRegression)
                {
                    // Not believed, but the grantor holds it for us: hand it back, or nobody
                    // (this holder's own retry included) is granted the resource until it
                    // expires. Stores that keep one grant per holder (etcd, Redis) answer a
                    // holder whose hold ended at its margin with that same grant, whose token
                    // it has seen (found by the etcd cluster test).
                    self.send(RequestKind::Release {
                        token,
                        hand_to: None,
                    });
                    let failure = Failure::of(FailureKind::TokenRegressed);
                    return self.acquire_failed(now, campaign, failure);
                }
                let duration = self.granted_duration(duration_ms);
                let start = self.stamp(attempt.sent, now);
                self.lease.grant_seen(token, start, now, duration);
                if !self.lease.is_safely_held_seen(now) {
                    // The grantor holds it for us but no safe time is left: hand it back so
                    // others need not wait, and count the attempt as failed.
                    self.lease.clear();
                    self.send(RequestKind::Release {
                        token,
                        hand_to: None,
                    });
                    let failure = Failure::of(FailureKind::TooLate);
                    return self.acquire_failed(now, campaign, failure);
                }
                self.highest_token = Some(self.highest_token.map_or(token, |t| t.max(token)));
                self.consecutive_failures = 0;
                let next = self.next_renewal_at(start, now);
                self.state = State::Held {
                    renewal: Renewal::ScheduledAt(next),
                    #[cfg(feature = "mutations")]
                    superseded: Vec::new(),
                };
                self.emit(Event::Acquired { token });
            }
            Reply::Grant(GrantOutcome::Denied {
                holder,
                expires_in_ms,
            }) => {
                let expires_in = expires_in_ms.map(Micros::from_ms);
                if campaign {
                    // Come back when the current grant should have lapsed, spread out so that
                    // waiting holders don't all arrive at once.
                    let hint = expires_in.unwrap_or_else(|| self.backoff(1));
                    let spread = self.jitter.between(0, self.config.retry_base.0);
                    let delay = hint.saturating_add(Micros(spread)).max(Micros(1));
                    self.state = State::Acquiring {
                        campaign,
                        step: AcquireStep::RetryAt(now.mono.plus(capped(delay))),
                    };
                } else {
                    self.state = State::Idle;
                    self.emit(Event::AcquireFailed(AcquireFailure::Denied {
                        holder,
                        expires_in,
                    }));
                }
            }
            Reply::Renew(_) => {
                self.acquire_failed(now, campaign, Failure::of(FailureKind::WrongReply))
            }
            Reply::Failed(failure) => self.acquire_failed(now, campaign, failure),
        }
    }

    fn on_renew_reply(&mut self, now: Now, attempt: Attempt, reply: Reply) {
        let Some(held) = self.lease.token() else {
            return self.lose(LossReason::MarginExhausted);
        };
        match reply {
            Reply::Renew(RenewOutcome::Renewed { token, duration_ms }) => {
                if token < held && !self.mutated(Mutation::AcceptTokenRegression) {
                    return self.lose(LossReason::TokenRegressed { held, got: token });
                }
                let duration = self.granted_duration(duration_ms);
                let start = self.stamp(attempt.sent, now);
                self.lease.grant_seen(token, start, now, duration);
                self.highest_token = Some(self.highest_token.map_or(token, |t| t.max(token)));
                if !self.lease.is_safely_held_seen(now) {
                    // Renewed, but the reply took so long that no safe time is left.
                    return self.lose(LossReason::MarginExhausted);
                }
                self.consecutive_failures = 0;
                let next = self.next_renewal_at(start, now);
                self.state = State::Held {
                    renewal: Renewal::ScheduledAt(next),
                    #[cfg(feature = "mutations")]
                    superseded: Vec::new(),
                };
                self.emit(Event::Renewed {
                    token,
                    rtt: now.mono.since(attempt.sent.mono),
                });
            }
            Reply::Renew(RenewOutcome::Refused(refusal)) => {
                self.lose(LossReason::Refused(refusal));
            }
            Reply::Grant(_) => self.renew_failed(now, Failure::of(FailureKind::WrongReply)),
            Reply::Failed(failure) => self.renew_failed(now, failure),
        }
    }

    fn acquire_failed(&mut self, now: Now, campaign: bool, failure: Failure) {
        if campaign {
            self.consecutive_failures = self.consecutive_failures.saturating_add(1);
            let delay = self
                .backoff(self.consecutive_failures)
                .max(failure.retry_after.unwrap_or(Micros::ZERO));
            self.state = State::Acquiring {
                campaign,
                step: AcquireStep::RetryAt(now.mono.plus(capped(delay))),
            };
        } else {
            self.state = State::Idle;
            self.emit(Event::AcquireFailed(AcquireFailure::Failed(failure)));
        }
    }

    fn renew_failed(&mut self, now: Now, failure: Failure) {
        self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        if !self.lease.is_safely_held_seen(now) {
            return self.lose(LossReason::MarginExhausted);
        }
        // Honour Retry-After, but a retry after the margin begins is pointless: the expiry
        // deadline fires first and surrenders.
        let delay = self
            .backoff(self.consecutive_failures)
            .max(failure.retry_after.unwrap_or(Micros::ZERO));
        self.state = State::Held {
            renewal: Renewal::ScheduledAt(now.mono.plus(capped(delay))),
            #[cfg(feature = "mutations")]
            superseded: Vec::new(),
        };
        self.emit(Event::RenewFailed {
            consecutive: self.consecutive_failures,
            failure,
        });
    }

    fn lose(&mut self, reason: LossReason) {
        self.abandon_renewal();
        let token = self.lease.token();
        self.lease.clear();
        self.state = State::Idle;
        // The Held state always carries a grant; the check only keeps panics out of the binary.
        debug_assert!(token.is_some(), "a hold without a grant");
        if let Some(token) = token {
            self.emit(Event::Lost { token, reason });
        }
        if self.recontend {
            // Campaign again, soon but spread out, from the latest reading.
            let Some(now) = self.clock.last() else {
                return;
            };
            let spread = Micros(self.jitter.between(0, self.config.retry_base.0).max(1));
            self.state = State::Acquiring {
                campaign: true,
                step: AcquireStep::RetryAt(now.mono.plus(spread)),
            };
        }
    }

    fn send_grant(&mut self, now: Now) -> Attempt {
        let duration_ms = self.config.lease.as_ms_floor().max(1);
        let id = self.send(RequestKind::Grant { duration_ms });
        Attempt {
            id,
            sent: now,
            deadline: now.mono.plus(self.config.request_timeout),
        }
    }

    fn send_renewal(&mut self, now: Now) {
        let Some(token) = self.lease.token() else {
            return self.lose(LossReason::MarginExhausted);
        };
        let duration_ms = self.config.lease.as_ms_floor().max(1);
        let id = self.send(RequestKind::Renew { token, duration_ms });
        // An attempt is abandoned at its timeout, and at the latest when the margin begins.
        let timeout = now.mono.plus(self.config.request_timeout);
        let safe_until = self.lease.safe_until().unwrap_or(timeout);
        let deadline = if self.mutated(Mutation::NoIndependentExpiry) {
            timeout
        } else if self.mutated(Mutation::OverlappingRenewals) {
            safe_until
        } else {
            timeout.min(safe_until)
        };
        let attempt = Attempt {
            id,
            sent: now,
            deadline,
        };
        #[cfg(feature = "mutations")]
        let superseded = match &self.state {
            State::Held {
                renewal: Renewal::InFlight(previous),
                superseded,
            } => {
                let mut ids = superseded.clone();
                ids.push(previous.id);
                ids
            }
            _ => Vec::new(),
        };
        self.state = State::Held {
            renewal: Renewal::InFlight(attempt),
            #[cfg(feature = "mutations")]
            superseded,
        };
    }

    fn send(&mut self, kind: RequestKind) -> RequestId {
        self.next_id += 1;
        let id = RequestId(self.next_id);
        self.outputs.push_back(Output::Send(Request { id, kind }));
        id
    }

    fn abandon(&mut self, id: RequestId) {
        self.outputs.push_back(Output::Abandon(id));
    }

    fn abandon_renewal(&mut self) {
        if let State::Held {
            renewal: Renewal::InFlight(attempt),
            ..
        } = self.state
        {
            self.abandon(attempt.id);
        }
    }

    fn emit(&mut self, event: Event) {
        self.outputs.push_back(Output::Event(event));
    }

    /// The lease start for a reply to a request sent at `sent`: the send time, always.
    fn stamp(&self, sent: Now, now: Now) -> Now {
        if self.mutated(Mutation::ClockStartsAtReply) {
            return now;
        }
        sent
    }

    /// The grantor may clamp the duration down; never believe longer than we asked for.
    fn granted_duration(&self, duration_ms: Option<u64>) -> Micros {
        duration_ms
            .map(Micros::from_ms)
            .map_or(self.config.lease, |granted| granted.min(self.config.lease))
    }

    /// The next renewal, `renew_interval` after the send; scaled down in proportion when the
    /// grantor clamped the duration below what was asked, so a short grant still gets renewed
    /// before its margin instead of ending there.
    fn next_renewal_at(&self, start: Now, now: Now) -> MonoTime {
        let granted = self
            .lease
            .grant()
            .map_or(self.config.lease, |grant| grant.duration);
        let interval = if granted < self.config.lease {
            let scaled = u128::from(self.config.renew_interval.0) * u128::from(granted.0)
                / u128::from(self.config.lease.0.max(1));
            Micros(u64::try_from(scaled).unwrap_or(u64::MAX))
        } else {
            self.config.renew_interval
        };
        start.mono.plus(interval).max(now.mono)
    }

    /// The wait before retrying after `failures` failures in a row: the core's one backoff rule
    /// (`Jitter::backoff`) from `retry_base` to `retry_max`.
    fn backoff(&mut self, failures: u32) -> Micros {
        let (base, max) = (self.config.retry_base, self.config.retry_max);
        // Never 0: a retry due at once would send again in the same step.
        Micros(self.jitter.backoff(base, max, failures).0.max(1))
    }

    #[cfg(feature = "mutations")]
    fn is_superseded(&self, id: RequestId) -> bool {
        matches!(&self.state, State::Held { superseded, .. } if superseded.contains(&id))
    }

    #[cfg(not(feature = "mutations"))]
    fn is_superseded(&self, _: RequestId) -> bool {
        false
    }

    /// With overlapping renewals, a new one goes out on schedule even while one is in flight.
    fn renewal_overdue(&self, now: Now) -> bool {
        match (&self.state, self.lease.grant()) {
            (
                State::Held {
                    renewal: Renewal::InFlight(attempt),
                    ..
                },
                Some(_),
            ) => now.mono >= attempt.sent.mono.plus(self.config.renew_interval),
            _ => false,
        }
    }
}

/// Keeps a delay within what a JavaScript timer can represent.
fn capped(delay: Micros) -> Micros {
    delay.min(Micros::from_ms(super::config::MAX_DURATION_MS as u64))
}

#[cfg(test)]
mod tests {
    use super::FailureKind;

    #[test]
    fn http_statuses_stand_for_failure_kinds() {
        assert_eq!(FailureKind::for_status(429), FailureKind::RateLimited);
        assert_eq!(FailureKind::for_status(408), FailureKind::TimedOut);
        for status in [500, 501, 503, 599] {
            assert_eq!(FailureKind::for_status(status), FailureKind::Server);
        }
        for status in [301, 400, 401, 403, 404, 409, 413, 499] {
            assert_eq!(FailureKind::for_status(status), FailureKind::BadRequest);
        }
    }

    #[test]
    fn error_codes_stand_for_the_kind_of_their_status() {
        assert_eq!(
            FailureKind::for_error_code("rate_limited"),
            FailureKind::RateLimited
        );
        assert_eq!(
            FailureKind::for_error_code("request_timeout"),
            FailureKind::TimedOut
        );
        for code in ["internal", "not_implemented", "storage_unavailable"] {
            assert_eq!(FailureKind::for_error_code(code), FailureKind::Server);
        }
        for code in ["bad_token", "stale_claim", "unauthorized", "no_such_code"] {
            assert_eq!(FailureKind::for_error_code(code), FailureKind::BadRequest);
        }
    }
}
