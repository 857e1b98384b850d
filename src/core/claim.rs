//! Work claims: one worker slot claiming queue items, heartbeating them, settling them.
//!
//! A claim is a processing lease on one item, so the claim and its heartbeats run on a
//! [`Holder`] (grant = claim the next item, renew = heartbeat, release = give the item back): the
//! claim's clock starts when the claim was sent, expiry is judged on both clocks, and the claim
//! is lost at the margin. The heartbeat cadence and the margin's rules are the holder's
//! ([`HolderConfig::from_ms`]), under the claimer's option names.
//!
//! On top of the holder this module decides what a queue worker adds:
//! - **the gate before complete**: a completion goes out only while the claim is safely held,
//!   checked right before *every* attempt, since a claim whose heartbeats lapsed must not be
//!   completed as if held (another worker may already have it);
//! - **settle retries** ([`Settlement`]): a completion or failure that failed in transit is
//!   retried a few times with exponential backoff and seeded jitter, so workers that failed
//!   together do not retry in lockstep; a failure is retried only while the claim is held;
//! - **idle backoff** ([`IdleBackoff`]): when nothing is claimable, wait from a base delay
//!   doubling to a ceiling, each wait a seeded pick in the upper half of its ceiling.
//!
//! [`ClaimMachine`] composes them into one worker slot in the style of [`Holder`]: commands and
//! `handle_*` inputs with the time passed in, [`ClaimMachine::poll_output`] and
//! [`ClaimMachine::poll_timeout`]. A settlement may also ask for the slot's next item in the same
//! request ([`NextClaim`], `claimNext`), never once the slot is stopping; that claim is timed from the
//! settle attempt's send, as any claim is from its request's. A settle attempt is abandoned at the
//! holder's `request_timeout` ([`ClaimConfig::settle_timeout`]) and counts as timed out. A claim
//! that arrives after [`ClaimMachine::stop`] (on its own or with a settlement) is given back.
//!
//! The JavaScript `WorkClaimer` runs this machine, one per worker slot (`src/wasm/claim.rs`): the
//! worker loop's slots as [`ClaimMachine::new`] makes them, and each `claim()` as a
//! [`ClaimMachine::one_shot`] slot, which claims on only through a settlement's `claimNext`. So
//! what ships is what the simulation checks; the JavaScript keeps only the IO and the values
//! this machine passes on without looking at them (items, settle bodies and replies, errors).

use std::collections::VecDeque;

use super::config::{checked_ms, ConfigError, HolderConfig, HolderOptionsMs};
use super::holder::{
    AcquireFailure, Event, Failure, FailureKind, Holder, LossReason, Output, Reply, RequestId,
    RequestKind,
};
use super::rng::Jitter;
use super::time::{Clock, Micros, MonoTime, Now};
use crate::protocol::{
    is_valid_name, GrantOutcome, RenewOutcome, RenewRefusal, Token, MAX_QUEUE_LEN, MAX_WORKER_LEN,
};

/// Deliberately broken claim behaviours. They take effect only in builds with the `mutations`
/// feature, where the simulation uses them to prove that it catches each bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClaimMutation {
    /// A completion is sent without asking whether the claim is still safely held.
    CompleteWithoutGate,
    /// The gate is checked before a completion's first attempt only, not before its retries.
    GateFirstAttemptOnly,
    /// Whether the claim is held is read from the holder's phase, which changes only when an
    /// input arrives (a heartbeat's reply, the expiry timer), instead of from the clocks: a claim
    /// whose heartbeats lapsed counts as held until something happens to say otherwise.
    LapseNoticedOnlyByEvents,
    /// A next claim that came with a settlement's reply is timed from the reply's arrival rather
    /// than from the send of the settle attempt that asked for it, so the worker believes in time
    /// the grantor never promised.
    NextClaimTimedFromReply,
}

impl ClaimMutation {
    /// Every claim mutation, for tests that must catch them all.
    pub const ALL: [ClaimMutation; 4] = [
        ClaimMutation::CompleteWithoutGate,
        ClaimMutation::GateFirstAttemptOnly,
        ClaimMutation::LapseNoticedOnlyByEvents,
        ClaimMutation::NextClaimTimedFromReply,
    ];
}

/// How many times a settlement is sent at most.
pub const SETTLE_ATTEMPTS: u32 = 4;
/// The settle retry delay after the first failed attempt; it doubles per failure.
pub const SETTLE_RETRY_BASE: Micros = Micros::from_ms(100);
/// The longest settle retry delay.
pub const SETTLE_RETRY_MAX: Micros = Micros::from_ms(1_000);

/// The first idle wait ceiling when the worker loop is not given `idleDelayMs`.
pub const DEFAULT_IDLE_DELAY: Micros = Micros::from_ms(50);
/// The largest idle wait ceiling when the worker loop is not given `idleDelayMaxMs`.
pub const DEFAULT_IDLE_DELAY_MAX: Micros = Micros::from_ms(2_000);

/// How a worker claims, heartbeats and settles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimConfig {
    /// The claim's lease: `lease` is `claimMs`, `renew_interval` the heartbeat interval.
    pub holder: HolderConfig,
    /// Waits when nothing is claimable: the first ceiling.
    pub idle_base: Micros,
    /// Waits when nothing is claimable: the largest ceiling.
    pub idle_max: Micros,
    /// Seed for settle and idle jitter, and for each claim's holder.
    pub seed: u64,
    /// A deliberately broken behaviour, for proving the simulation catches it.
    #[cfg(feature = "mutations")]
    pub mutation: Option<ClaimMutation>,
}

impl ClaimConfig {
    /// Validates `claimMs`, `marginMs` and `requestTimeoutMs` by the holder's rules (heartbeats
    /// every `claimMs / 3`, which must come before the margin) and names the claimer's options in
    /// errors. Idle waits start at 50 ms and double to 2 s; see [`ClaimConfig::with_idle_ms`].
    pub fn from_ms(
        claim_ms: f64,
        margin_ms: f64,
        request_timeout_ms: Option<f64>,
        seed: u64,
    ) -> Result<ClaimConfig, ConfigError> {
        let options = HolderOptionsMs {
            request_timeout_ms,
            ..HolderOptionsMs::default()
        };
        let holder =
            HolderConfig::from_ms(claim_ms, margin_ms, options, seed).map_err(|e| {
                match e.field {
                    "leaseMs" => ConfigError::new("claimMs", e.problem),
                    "marginMs" if margin_ms.is_finite() && margin_ms > 0.0 => {
                        ConfigError::new("marginMs", "must be less than claimMs")
                    }
                    "renewIntervalMs" => ConfigError::new(
                        "marginMs",
                        "must leave room for a heartbeat: below claimMs * 2/3",
                    ),
                    _ => e,
                }
            })?;
        Ok(ClaimConfig {
            holder,
            idle_base: DEFAULT_IDLE_DELAY,
            idle_max: DEFAULT_IDLE_DELAY_MAX,
            seed,
            #[cfg(feature = "mutations")]
            mutation: None,
        })
    }

    /// The same with other idle waits (`idleDelayMs`, `idleDelayMaxMs`) as JavaScript passes
    /// them, unvalidated: anything not a positive number waits not at all; one not given
    /// (`None`) keeps its default, 50 ms or 2 s (`DEFAULT_IDLE_DELAY`, `DEFAULT_IDLE_DELAY_MAX`).
    pub fn with_idle_ms(mut self, base_ms: Option<f64>, max_ms: Option<f64>) -> ClaimConfig {
        self.idle_base = base_ms.map_or(DEFAULT_IDLE_DELAY, lenient_ms);
        self.idle_max = max_ms.map_or(DEFAULT_IDLE_DELAY_MAX, lenient_ms);
        self
    }

    /// Checks the claimer's names by the protocol's rules: `queue` must be a queue name and
    /// `worker_id` a worker name (non-empty printable ASCII within the protocol's lengths);
    /// `None` stands for a value that is not a string.
    pub fn check_names(queue: Option<&str>, worker_id: Option<&str>) -> Result<(), ConfigError> {
        for (name, field, max_len) in [
            (queue, "queue", MAX_QUEUE_LEN),
            (worker_id, "workerId", MAX_WORKER_LEN),
        ] {
            match name {
                None | Some("") => {
                    return Err(ConfigError::new(field, "must be a non-empty string"));
                }
                Some(name) if !is_valid_name(name, max_len) => {
                    return Err(ConfigError::new(
                        field,
                        "must be printable ASCII of at most 256 bytes",
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The worker loop's `concurrency`: how many items it works on at once, an integer of at
    /// least 1 (`None`, not given, is 1).
    pub fn check_concurrency(concurrency: Option<f64>) -> Result<u32, ConfigError> {
        match concurrency {
            None => Ok(1),
            Some(n) if n.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(&n) => Ok(n as u32),
            Some(_) => Err(ConfigError::new(
                "concurrency",
                "must be an integer of at least 1",
            )),
        }
    }

    /// The heartbeat interval: the holder's renew interval.
    pub fn heartbeat_interval(&self) -> Micros {
        self.holder.renew_interval
    }

    /// How long one settle attempt may take before it is abandoned and counts as timed out: the
    /// holder's `request_timeout`, as for its claims and heartbeats.
    pub fn settle_timeout(&self) -> Micros {
        self.holder.request_timeout
    }
}

/// A delay option that was never validated: anything not a positive number waits not at all, as
/// a JavaScript timer would, and the largest wait is a timer's.
fn lenient_ms(ms: f64) -> Micros {
    checked_ms("delay", ms.min(super::config::MAX_DURATION_MS)).unwrap_or(Micros::ZERO)
}

/// Waits between claims that found nothing: from a base ceiling doubling per empty claim to a
/// largest one, each wait a seeded pick in the upper half of its ceiling, so idle workers spread
/// out instead of polling together.
#[derive(Clone, Debug)]
pub struct IdleBackoff {
    base: Micros,
    max: Micros,
    empty: u32,
    jitter: Jitter,
}

impl IdleBackoff {
    /// Backoff from `base` to `max`, jittered from `seed`.
    pub fn new(base: Micros, max: Micros, seed: u64) -> IdleBackoff {
        IdleBackoff {
            base,
            max,
            empty: 0,
            jitter: Jitter::new(seed),
        }
    }

    /// The wait after one more claim that found nothing (or could not be made).
    pub fn next_wait(&mut self) -> Micros {
        self.empty = self.empty.saturating_add(1);
        self.jitter.backoff(self.base, self.max, self.empty)
    }

    /// A claim succeeded: the next wait starts from the base again.
    pub fn reset(&mut self) {
        self.empty = 0;
    }
}

/// Which settlement: the item is done, or this attempt at it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SettleOperation {
    /// The item is done. Sent only while the claim is safely held.
    Complete,
    /// The attempt failed: the item is pending again (or dead-lettered). Sent even when the
    /// claim is no longer safely held, since the grantor's token check decides.
    Fail,
}

impl SettleOperation {
    /// `"complete"` or `"fail"`, the grantor method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SettleOperation::Complete => "complete",
            SettleOperation::Fail => "fail",
        }
    }
}

/// The grantor's answer to one settle attempt, as the host's adapter classified it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettleReply {
    /// The settlement took effect; with the reply about the next claim when the attempt asked
    /// for one ([`NextClaim`]) and the grantor knows `claimNext` (`None` otherwise).
    Settled {
        /// The next claim's reply, as a claim request's.
        next: Option<ClaimReply>,
    },
    /// The grantor no longer holds this claim (`stale_claim`): definitive.
    Stale,
    /// The attempt failed without a definitive answer.
    Failed(Failure),
    /// The grantor object threw something that is not a grantor failure: never retried.
    Error,
}

/// How a settlement ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettleEnd {
    /// It took effect.
    Settled,
    /// The grantor refused the token.
    Stale,
    /// A completion was not sent: the claim was no longer safely held.
    NotHeld,
    /// The last attempt failed and no retry is allowed.
    GaveUp(Failure),
    /// The grantor object threw something that is not a grantor failure.
    Error,
}

impl SettleEnd {
    /// A stable name for JavaScript and traces.
    pub fn as_str(&self) -> &'static str {
        match self {
            SettleEnd::Settled => "settled",
            SettleEnd::Stale => "stale",
            SettleEnd::NotHeld => "not_held",
            SettleEnd::GaveUp(_) => "gave_up",
            SettleEnd::Error => "error",
        }
    }
}

/// What a settlement asks the host to do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettleStep {
    /// Send an attempt now.
    Send,
    /// Wait until this reading of the monotonic clock, then call [`Settlement::attempt`].
    WaitUntil(MonoTime),
    /// The settlement is over.
    Ended(SettleEnd),
}

/// The retry policy and the gate of one completion or failure. Each call is given whether the
/// claim is safely held at that moment (the holder's answer at the same reading).
#[derive(Clone, Debug)]
pub struct Settlement {
    operation: SettleOperation,
    attempts: u32,
    retry_at: Option<MonoTime>,
    ended: bool,
    jitter: Jitter,
    #[cfg(feature = "mutations")]
    mutation: Option<ClaimMutation>,
}

impl Settlement {
    /// A settlement not yet attempted; retry jitter from `seed`.
    pub fn new(operation: SettleOperation, seed: u64) -> Settlement {
        Settlement {
            operation,
            attempts: 0,
            retry_at: None,
            ended: false,
            jitter: Jitter::new(seed),
            #[cfg(feature = "mutations")]
            mutation: None,
        }
    }

    /// The same, with a deliberately broken behaviour.
    #[cfg(feature = "mutations")]
    pub fn with_mutation(mut self, mutation: Option<ClaimMutation>) -> Settlement {
        self.mutation = mutation;
        self
    }

    /// The operation being settled.
    pub fn operation(&self) -> SettleOperation {
        self.operation
    }

    /// Attempts sent so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The next step at `now`: send an attempt (the first, or a retry that is due), keep
    /// waiting, or stop because a completion's claim is not safely held (`held`).
    pub fn attempt(&mut self, now: MonoTime, held: bool) -> SettleStep {
        if self.ended {
            return SettleStep::Ended(SettleEnd::NotHeld);
        }
        if let Some(at) = self.retry_at {
            if now < at {
                return SettleStep::WaitUntil(at);
            }
        }
        if self.operation == SettleOperation::Complete && !held && self.gated() {
            return self.end(SettleEnd::NotHeld);
        }
        self.retry_at = None;
        self.attempts += 1;
        SettleStep::Send
    }

    /// Whether this attempt is checked at the gate: always, unless mutated. Builds without the
    /// `mutations` feature compile the question away.
    #[inline(always)]
    fn gated(&self) -> bool {
        #[cfg(feature = "mutations")]
        match self.mutation {
            Some(ClaimMutation::CompleteWithoutGate) => return false,
            Some(ClaimMutation::GateFirstAttemptOnly) => return self.attempts == 0,
            Some(ClaimMutation::LapseNoticedOnlyByEvents)
            | Some(ClaimMutation::NextClaimTimedFromReply)
            | None => {}
        }
        true
    }

    /// The outcome of the attempt in flight, at `now`, with the claim safely held or not
    /// (`held`). A failure in transit is retried after a jittered backoff, up to
    /// [`SETTLE_ATTEMPTS`] attempts; a failure report only while the claim is held, since once
    /// it is not the grantor redelivers the item anyway.
    pub fn outcome(&mut self, now: MonoTime, reply: SettleReply, held: bool) -> SettleStep {
        let failure = match reply {
            SettleReply::Settled { .. } => return self.end(SettleEnd::Settled),
            SettleReply::Stale => return self.end(SettleEnd::Stale),
            SettleReply::Error => return self.end(SettleEnd::Error),
            SettleReply::Failed(failure) => failure,
        };
        let retryable = !matches!(
            failure.kind,
            FailureKind::BadRequest | FailureKind::Malformed
        );
        let may_retry = self.operation == SettleOperation::Complete || held;
        if !retryable || self.attempts >= SETTLE_ATTEMPTS || !may_retry {
            return self.end(SettleEnd::GaveUp(failure));
        }
        let at = now.plus(self.backoff());
        self.retry_at = Some(at);
        SettleStep::WaitUntil(at)
    }

    /// When the next retry is due, if one is waiting.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        self.retry_at
    }

    fn end(&mut self, end: SettleEnd) -> SettleStep {
        self.ended = true;
        self.retry_at = None;
        SettleStep::Ended(end)
    }

    /// The wait after the n-th attempt: [`Jitter::backoff`] from the settle retry base.
    fn backoff(&mut self) -> Micros {
        self.jitter
            .backoff(SETTLE_RETRY_BASE, SETTLE_RETRY_MAX, self.attempts)
    }
}

/// What a [`ClaimMachine`] asks of the queue's grantor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimRequestKind {
    /// Claim the oldest claimable item for `claim_ms`.
    Claim {
        /// The claim's duration.
        claim_ms: u64,
    },
    /// Extend the claim on `item` held under `token` for `claim_ms` from now.
    Heartbeat {
        /// The claimed item.
        item: u64,
        /// The claim token.
        token: Token,
        /// The extension.
        claim_ms: u64,
    },
    /// Complete or fail `item`, fenced by `token`; with `next`, also claim the slot's next item
    /// once the settlement took effect (`claimNext`), in the same request.
    Settle {
        /// Which settlement.
        operation: SettleOperation,
        /// The claimed item.
        item: u64,
        /// The claim token.
        token: Token,
        /// The next claim asked for with it.
        next: Option<NextClaim>,
    },
    /// Give `item` back unused (reported as a failed attempt). Nothing waits for the reply.
    GiveBack {
        /// The claimed item.
        item: u64,
        /// The claim token.
        token: Token,
    },
}

/// The next claim a settlement asks for (`claimNext`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextClaim {
    /// The claim's duration.
    pub claim_ms: u64,
    /// The claim's request id (`claimNext.requestId`): the id of the settlement's first attempt,
    /// the same for every retry, so that when an earlier attempt took effect and only its reply
    /// was lost, the grantor answers with the item it claimed then instead of claiming another
    /// that nobody would work on until its claim ran out.
    pub request: RequestId,
}

/// A request the host must send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClaimRequest {
    /// Pass it back with the reply.
    pub id: RequestId,
    /// What to ask.
    pub kind: ClaimRequestKind,
}

/// The grantor's answer to a claim request, validated by the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimReply {
    /// `item` is claimed under `token`, for `claim_ms` if the grantor said.
    Claimed {
        /// The item's id.
        item: u64,
        /// The claim token.
        token: Token,
        /// The granted duration.
        claim_ms: Option<u64>,
    },
    /// Nothing is claimable.
    Empty,
    /// The attempt failed.
    Failed(Failure),
}

/// Whether `id` is a work item id as the protocol issues them: an integer from 1 that a
/// JavaScript number holds exactly.
pub fn is_item_id(id: f64) -> bool {
    id.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&id)
}

/// The largest integer a JavaScript number holds exactly, `2^53 - 1`.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Whether a grantor's error code says the claim is gone for good: its token was superseded
/// (`stale_claim`) or the item no longer exists (`no_such_item`). A heartbeat or a settlement
/// answered so is over ([`HeartbeatReply::Stale`], [`SettleReply::Stale`]); a network failure is
/// retried instead.
pub fn claim_gone(grantor_code: &str) -> bool {
    matches!(grantor_code, "stale_claim" | "no_such_item")
}

/// The `kind` a failed claim attempt reports: the holder's failure kind, except that a claim
/// which arrived with no safe time left is reported as `timed_out`, a claim that took too long.
pub fn claim_failure_kind(reason: &str) -> &str {
    if reason == FailureKind::TooLate.as_str() {
        FailureKind::TimedOut.as_str()
    } else {
        reason
    }
}

/// The grantor's answer to a heartbeat, validated by the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeartbeatReply {
    /// Extended, under `token`, for `claim_ms` if the grantor said.
    Extended {
        /// The claim token.
        token: Token,
        /// The granted duration.
        claim_ms: Option<u64>,
    },
    /// The claim is gone (`stale_claim`, `no_such_item`): definitive.
    Stale,
    /// The attempt failed.
    Failed(Failure),
}

/// Something the worker's application should hear about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimEvent {
    /// `item` is claimed: work on it while the claim is safely held.
    Claimed {
        /// The item.
        item: u64,
        /// The claim token.
        token: Token,
    },
    /// Nothing was claimable; the next claim goes out after an idle wait.
    NothingClaimable,
    /// The claim attempt failed; the next claim goes out after an idle wait.
    ClaimFailed(Failure),
    /// A heartbeat failed; the holder retries while the claim is safe.
    HeartbeatFailed(Failure),
    /// The claim is no longer safely held. Stop acting on the item.
    Lost {
        /// The item.
        item: u64,
        /// The claim token.
        token: Token,
        /// Why.
        reason: LossReason,
    },
    /// A completion or failure ended, one way or another.
    SettleEnded {
        /// The item.
        item: u64,
        /// The claim token.
        token: Token,
        /// Which settlement.
        operation: SettleOperation,
        /// How it ended.
        end: SettleEnd,
    },
}

/// Something the host must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimOutput {
    /// Send this request and feed its reply to the matching `handle_*`.
    Send(ClaimRequest),
    /// Deliver this event.
    Event(ClaimEvent),
    /// Stop waiting for request `id`; any reply to it is ignored.
    Abandon(RequestId),
}

/// A calling mistake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimUsageError {
    /// `complete` or `fail` without a claim in hand (or with its settlement under way).
    NoClaim,
}

#[derive(Clone, Copy, Debug)]
struct SettleAttempt {
    id: RequestId,
    /// When it was sent: the start of the clock of a next claim that comes with its reply.
    sent: Now,
    deadline: MonoTime,
}

#[derive(Clone, Debug)]
enum Slot {
    /// Not claiming.
    Stopped,
    /// A claim is in flight.
    Claiming,
    /// An item is in hand (the holder may have lost it since).
    Holding { item: u64, token: Token },
    /// Its completion or failure is under way; the holder keeps heartbeating meanwhile.
    Settling {
        item: u64,
        token: Token,
        settlement: Settlement,
        in_flight: Option<SettleAttempt>,
        /// The next claim every attempt asks for, once the first attempt's id is known; `None`
        /// when none is asked for (the slot is stopping) or before the first attempt.
        next: Option<NextClaim>,
        /// Whether attempts ask for the next claim.
        claim_next: bool,
    },
    /// Nothing was claimable: the next claim goes out at `until`, `wait` after the idle began.
    Idle { until: MonoTime, wait: Micros },
}

/// Settle request ids carry this bit; holder request ids never reach it.
const SETTLE_ID: u64 = 1 << 31;

/// One worker slot: claims an item, heartbeats it while the application works, settles it, and
/// claims the next, backing off while nothing is claimable.
///
/// Driven like a [`Holder`]: a command ([`start`](ClaimMachine::start),
/// [`complete`](ClaimMachine::complete), [`fail`](ClaimMachine::fail),
/// [`stop`](ClaimMachine::stop)) or an input (`handle_*`, [`handle_timeout`](Self::handle_timeout))
/// with the current [`Now`], then drain [`poll_output`](Self::poll_output) and arm a timer for
/// [`poll_timeout`](Self::poll_timeout).
///
/// Each claim runs on a fresh [`Holder`]: tokens are per item, so one claim's token says nothing
/// about the next. Request ids carry the claim's generation in their upper half, so a late reply
/// to an earlier claim's request is recognised and ignored.
#[derive(Clone, Debug)]
pub struct ClaimMachine {
    config: ClaimConfig,
    holder: Holder,
    generation: u64,
    slot: Slot,
    stopping: bool,
    /// Claims once, and again only when a settlement asks for the next item (`claimNext`):
    /// `WorkClaimer.claim()`'s chain of claims, where the worker loop claims on by itself.
    one_shot: bool,
    /// The item of the last claim reply, for the holder's give-back of a claim that arrived too
    /// late or after the claim was cancelled.
    last_item: Option<u64>,
    idle: IdleBackoff,
    seeds: Jitter,
    outputs: VecDeque<ClaimOutput>,
}

impl ClaimMachine {
    /// A stopped slot.
    pub fn new(config: ClaimConfig) -> ClaimMachine {
        let mut seeds = Jitter::new(config.seed);
        let idle = IdleBackoff::new(config.idle_base, config.idle_max, seeds.next_u64());
        let mut machine = ClaimMachine {
            holder: Holder::new(config.holder.clone()),
            config,
            generation: 0,
            slot: Slot::Stopped,
            stopping: false,
            one_shot: false,
            last_item: None,
            idle,
            seeds,
            outputs: VecDeque::new(),
        };
        machine.fresh_holder();
        machine
    }

    /// A stopped slot that claims once when started: nothing claimable (or a failed claim) stops
    /// it instead of waiting to claim again, and so does a settlement that asked for no next
    /// item. A settlement that did ask, from a grantor that does not know `claimNext`, claims the
    /// next item apart once it took effect, as the worker loop does.
    pub fn one_shot(config: ClaimConfig) -> ClaimMachine {
        let mut machine = ClaimMachine::new(config);
        machine.one_shot = true;
        machine
    }

    /// The configuration.
    pub fn config(&self) -> &ClaimConfig {
        &self.config
    }

    /// The item and token this slot safely holds at `now`, if any: what the application may act
    /// on. None once its settlement is under way (the grantor may already have applied it), as
    /// `Claim.isSafelyHeld()` answers. A pure query, as [`Holder::is_safely_held`] is.
    pub fn safely_held(&mut self, now: Now) -> Option<(u64, Token)> {
        // Asked first, whatever the slot: the holder records every reading it is given.
        let held = self.held(now);
        let Slot::Holding { item, token } = self.slot else {
            return None;
        };
        held.then_some((item, token))
    }

    /// Whether the slot is stopped: it claims nothing more and holds nothing. A claim cancelled
    /// by [`stop`](ClaimMachine::stop) may still be in flight, to be given back when it arrives.
    pub fn is_stopped(&self) -> bool {
        matches!(self.slot, Slot::Stopped)
    }

    /// The item in hand and its token, safe or not, until its settlement ends.
    pub fn in_hand(&self) -> Option<(u64, Token)> {
        match self.slot {
            Slot::Holding { item, token } | Slot::Settling { item, token, .. } => {
                Some((item, token))
            }
            _ => None,
        }
    }

    /// Time left on the claim in hand at `now` before the grantor may hand its item to another
    /// worker (zero when nothing is in hand or the claim is lost), as `Claim.remainingMs()`
    /// answers.
    pub fn remaining(&mut self, now: Now) -> Micros {
        match self.slot {
            Slot::Holding { .. } | Slot::Settling { .. } => self.holder.remaining(now),
            _ => Micros::ZERO,
        }
    }

    /// Starts claiming (again, after [`stop`](ClaimMachine::stop)).
    pub fn start(&mut self, now: Now) {
        self.stopping = false;
        if let Slot::Stopped = self.slot {
            self.claim(now);
        }
    }

    /// Claims nothing more. An item in hand is still settled, asking for no next claim; a claim
    /// in flight is cancelled (given back if the grantor made it), and so is a next claim that
    /// comes with a settlement asked for before the stop.
    pub fn stop(&mut self, now: Now) {
        self.stopping = true;
        match self.slot {
            Slot::Claiming => {
                self.holder.cancel_acquire(now);
                self.slot = Slot::Stopped;
                self.drain_holder();
            }
            Slot::Idle { .. } => self.slot = Slot::Stopped,
            _ => {}
        }
    }

    /// Completes the item in hand: sent only while the claim is safely held, before each attempt.
    /// With `claim_next`, each attempt also asks for the slot's next item, unless the slot is
    /// stopping.
    pub fn complete(&mut self, now: Now, claim_next: bool) -> Result<(), ClaimUsageError> {
        self.settle(now, SettleOperation::Complete, claim_next)
    }

    /// Reports the attempt at the item in hand as failed; `claim_next` as for
    /// [`complete`](ClaimMachine::complete).
    pub fn fail(&mut self, now: Now, claim_next: bool) -> Result<(), ClaimUsageError> {
        self.settle(now, SettleOperation::Fail, claim_next)
    }

    /// The host's idle callback has run: the idle wait under way starts over from `now`, so the
    /// wait between claims that found nothing is never shortened by the time the callback took.
    pub fn idle_begins(&mut self, now: Now) {
        if let Slot::Idle { until, wait } = &mut self.slot {
            *until = now.mono.plus(*wait);
        }
    }

    fn settle(
        &mut self,
        now: Now,
        operation: SettleOperation,
        claim_next: bool,
    ) -> Result<(), ClaimUsageError> {
        let Slot::Holding { item, token } = self.slot else {
            return Err(ClaimUsageError::NoClaim);
        };
        #[allow(unused_mut)]
        let mut settlement = Settlement::new(operation, self.seeds.next_u64());
        #[cfg(feature = "mutations")]
        {
            settlement = settlement.with_mutation(self.config.mutation);
        }
        self.slot = Slot::Settling {
            item,
            token,
            settlement,
            in_flight: None,
            next: None,
            claim_next: claim_next && !self.stopping,
        };
        self.settle_step(now);
        Ok(())
    }

    /// Feeds the reply to claim request `id`.
    pub fn handle_claim_reply(&mut self, now: Now, id: RequestId, reply: ClaimReply) {
        let Some(inner) = self.holder_id(id) else {
            return;
        };
        let reply = match reply {
            ClaimReply::Claimed {
                item,
                token,
                claim_ms,
            } => {
                self.last_item = Some(item);
                Reply::Grant(GrantOutcome::Granted {
                    token,
                    duration_ms: claim_ms,
                })
            }
            ClaimReply::Empty => Reply::Grant(GrantOutcome::Denied {
                holder: None,
                expires_in_ms: None,
            }),
            ClaimReply::Failed(failure) => Reply::Failed(failure),
        };
        self.holder.handle_reply(now, inner, reply);
        self.after_holder(now);
    }

    /// Feeds the reply to heartbeat `id`.
    pub fn handle_heartbeat_reply(&mut self, now: Now, id: RequestId, reply: HeartbeatReply) {
        let Some(inner) = self.holder_id(id) else {
            return;
        };
        let reply = match reply {
            HeartbeatReply::Extended { token, claim_ms } => Reply::Renew(RenewOutcome::Renewed {
                token,
                duration_ms: claim_ms,
            }),
            HeartbeatReply::Stale => Reply::Renew(RenewOutcome::Refused(RenewRefusal::NotHolder)),
            HeartbeatReply::Failed(failure) => Reply::Failed(failure),
        };
        self.holder.handle_reply(now, inner, reply);
        self.after_holder(now);
    }

    /// Feeds the reply to settle attempt `id`.
    pub fn handle_settle_reply(&mut self, now: Now, id: RequestId, reply: SettleReply) {
        let Slot::Settling {
            in_flight: Some(attempt),
            ..
        } = &self.slot
        else {
            return;
        };
        if attempt.id != id {
            return;
        }
        self.settle_outcome(now, reply);
    }

    /// Acts on everything due at `now`: the holder's deadlines, a settle attempt's timeout or
    /// retry, the end of an idle wait.
    pub fn handle_timeout(&mut self, now: Now) {
        self.holder.handle_timeout(now);
        self.after_holder(now);
        match &self.slot {
            Slot::Settling {
                in_flight: Some(attempt),
                ..
            } if now.mono >= attempt.deadline => {
                let id = attempt.id;
                self.outputs.push_back(ClaimOutput::Abandon(id));
                self.settle_outcome(now, SettleReply::Failed(Failure::of(FailureKind::TimedOut)));
            }
            Slot::Settling {
                in_flight: None,
                settlement,
                ..
            } if settlement.poll_timeout().is_some_and(|at| now.mono >= at) => {
                self.settle_step(now)
            }
            Slot::Idle { until, .. } if now.mono >= *until => self.claim(now),
            _ => {}
        }
    }

    /// The next output to act on, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<ClaimOutput> {
        self.outputs.pop_front()
    }

    /// When to call [`handle_timeout`](ClaimMachine::handle_timeout) next, on the monotonic
    /// clock.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        let own = match &self.slot {
            Slot::Settling {
                in_flight: Some(attempt),
                ..
            } => Some(attempt.deadline),
            Slot::Settling { settlement, .. } => settlement.poll_timeout(),
            Slot::Idle { until, .. } => Some(*until),
            _ => None,
        };
        match (own, self.holder.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the claim's holder safely holds it at `now`, judged on the clocks.
    fn held(&mut self, now: Now) -> bool {
        #[cfg(feature = "mutations")]
        if self.config.mutation == Some(ClaimMutation::LapseNoticedOnlyByEvents) {
            return self.holder.phase() == super::holder::Phase::Held;
        }
        self.holder.is_safely_held(now)
    }

    fn fresh_holder(&mut self) {
        self.generation += 1;
        let mut config = self.config.holder.clone();
        config.seed = self.seeds.next_u64();
        self.holder = Holder::new(config);
    }

    fn claim(&mut self, now: Now) {
        self.slot = Slot::Claiming;
        self.last_item = None;
        // A fresh holder is always idle, so the acquire cannot be refused.
        let _ = self.holder.acquire(now, false);
        self.drain_holder();
    }

    /// The holder's id inside an id of this generation's holder.
    fn holder_id(&self, id: RequestId) -> Option<RequestId> {
        (id.0 >> 32 == self.generation && id.0 & SETTLE_ID == 0)
            .then_some(RequestId(id.0 & (SETTLE_ID - 1)))
    }

    fn outer_id(&self, inner: RequestId) -> RequestId {
        RequestId((self.generation << 32) | (inner.0 & (SETTLE_ID - 1)))
    }

    fn after_holder(&mut self, now: Now) {
        if let Some(next) = self.drain_holder() {
            match next {
                AfterClaim::Idle => self.go_idle(now),
                AfterClaim::Held => self.idle.reset(),
            }
        }
    }

    /// Maps the holder's outputs to the slot's; says what a claim attempt's end means.
    fn drain_holder(&mut self) -> Option<AfterClaim> {
        let mut after = None;
        while let Some(output) = self.holder.poll_output() {
            match output {
                Output::Send(request) => {
                    let kind = match request.kind {
                        RequestKind::Grant { duration_ms } => ClaimRequestKind::Claim {
                            claim_ms: duration_ms,
                        },
                        RequestKind::Renew { token, duration_ms } => {
                            let Some((item, _)) = self.in_hand() else {
                                continue;
                            };
                            ClaimRequestKind::Heartbeat {
                                item,
                                token,
                                claim_ms: duration_ms,
                            }
                        }
                        RequestKind::Release { token, .. } => {
                            let Some(item) = self.last_item else { continue };
                            ClaimRequestKind::GiveBack { item, token }
                        }
                    };
                    let id = self.outer_id(request.id);
                    self.outputs
                        .push_back(ClaimOutput::Send(ClaimRequest { id, kind }));
                }
                Output::Abandon(id) => {
                    let id = self.outer_id(id);
                    self.outputs.push_back(ClaimOutput::Abandon(id));
                }
                Output::Event(event) => {
                    if let Some(next) = self.on_holder_event(event) {
                        after = Some(next);
                    }
                }
            }
        }
        after
    }

    fn on_holder_event(&mut self, event: Event) -> Option<AfterClaim> {
        let claiming = matches!(self.slot, Slot::Claiming);
        match event {
            Event::Acquired { token } if claiming => {
                let item = self.last_item?;
                self.slot = Slot::Holding { item, token };
                self.emit(ClaimEvent::Claimed { item, token });
                Some(AfterClaim::Held)
            }
            Event::AcquireFailed(AcquireFailure::Denied { .. }) if claiming => {
                self.emit(ClaimEvent::NothingClaimable);
                Some(AfterClaim::Idle)
            }
            Event::AcquireFailed(AcquireFailure::Failed(failure)) if claiming => {
                self.emit(ClaimEvent::ClaimFailed(failure));
                Some(AfterClaim::Idle)
            }
            Event::RenewFailed { failure, .. } => {
                self.emit(ClaimEvent::HeartbeatFailed(failure));
                None
            }
            Event::Lost { token, reason } => {
                let (item, _) = self.in_hand()?;
                self.emit(ClaimEvent::Lost {
                    item,
                    token,
                    reason,
                });
                None
            }
            _ => None,
        }
    }

    fn go_idle(&mut self, now: Now) {
        if self.stopping || self.one_shot {
            self.slot = Slot::Stopped;
            return;
        }
        let wait = self.idle.next_wait();
        self.fresh_holder();
        self.slot = Slot::Idle {
            until: now.mono.plus(wait),
            wait,
        };
    }

    fn settle_step(&mut self, now: Now) {
        let held = self.held(now);
        let generation = self.generation;
        let timeout = self.config.settle_timeout();
        let claim_ms = self.config.holder.lease.as_ms_floor().max(1);
        let Slot::Settling {
            item,
            token,
            settlement,
            in_flight,
            next,
            claim_next,
        } = &mut self.slot
        else {
            return;
        };
        let (item, token) = (*item, *token);
        match settlement.attempt(now.mono, held) {
            SettleStep::Send => {
                let id =
                    RequestId((generation << 32) | SETTLE_ID | u64::from(settlement.attempts()));
                *in_flight = Some(SettleAttempt {
                    id,
                    sent: now,
                    deadline: now.mono.plus(timeout),
                });
                if *claim_next && next.is_none() {
                    *next = Some(NextClaim {
                        claim_ms,
                        request: id,
                    });
                }
                let operation = settlement.operation();
                let next = *next;
                self.outputs.push_back(ClaimOutput::Send(ClaimRequest {
                    id,
                    kind: ClaimRequestKind::Settle {
                        operation,
                        item,
                        token,
                        next,
                    },
                }));
            }
            SettleStep::WaitUntil(_) => {}
            SettleStep::Ended(end) => self.settle_ended(now, end, None),
        }
    }

    fn settle_outcome(&mut self, now: Now, reply: SettleReply) {
        let held = self.held(now);
        let Slot::Settling {
            settlement,
            in_flight,
            next,
            ..
        } = &mut self.slot
        else {
            return;
        };
        // A next claim counts only if this attempt asked for one.
        let next_claim = match (&reply, in_flight.take(), next) {
            (SettleReply::Settled { next: Some(claim) }, Some(attempt), Some(_)) => {
                Some((attempt.sent, claim.clone()))
            }
            _ => None,
        };
        match settlement.outcome(now.mono, reply, held) {
            SettleStep::Ended(end) => self.settle_ended(now, end, next_claim),
            SettleStep::Send => self.settle_step(now),
            SettleStep::WaitUntil(_) => {}
        }
    }

    /// The settlement is over; `next` is the next claim that came with its reply, and when the
    /// attempt that brought it was sent.
    fn settle_ended(&mut self, now: Now, end: SettleEnd, next: Option<(Now, ClaimReply)>) {
        let Slot::Settling {
            item,
            token,
            ref settlement,
            claim_next,
            ..
        } = self.slot
        else {
            return;
        };
        let operation = settlement.operation();
        // A one-shot slot claims on only for a settlement that asked for the next item and took
        // effect at a grantor that does not know `claimNext` (so no next claim came with it).
        let claim_apart = !self.one_shot || (claim_next && end == SettleEnd::Settled);
        self.emit(ClaimEvent::SettleEnded {
            item,
            token,
            operation,
            end,
        });
        // The holder's heartbeats end with the settlement; replies to them are ignored. Its
        // clock has seen every reading since the attempt that brought a next claim was sent.
        let clock = *self.holder.clock();
        self.fresh_holder();
        if let Some((sent, reply)) = next {
            self.claimed_with_settlement(clock, sent, now, reply);
        } else if self.stopping || !claim_apart {
            self.slot = Slot::Stopped;
        } else {
            self.claim(now);
        }
    }

    /// A next claim's reply that came with the settle attempt sent at `sent`. That attempt was
    /// the claim's request, so the fresh holder's grant attempt is taken as sent then (the
    /// claim's clock starts when it was sent, as for any claim) and is not sent again; the reply
    /// is then the holder's like any claim reply. A slot stopped since gives the claim back.
    fn claimed_with_settlement(&mut self, clock: Clock, sent: Now, now: Now, reply: ClaimReply) {
        self.slot = Slot::Claiming;
        self.last_item = None;
        #[cfg(feature = "mutations")]
        let sent = if self.config.mutation == Some(ClaimMutation::NextClaimTimedFromReply) {
            now
        } else {
            sent
        };
        self.holder.acquire_sent(clock, sent, now);
        let mut grant = None;
        while let Some(output) = self.holder.poll_output() {
            if let Output::Send(request) = output {
                grant = Some(request.id);
            }
        }
        let Some(inner) = grant else {
            return self.go_idle(now);
        };
        if self.stopping {
            self.holder.cancel_acquire(now);
            self.slot = Slot::Stopped;
            self.drain_holder();
        }
        let id = self.outer_id(inner);
        self.handle_claim_reply(now, id, reply);
    }

    fn emit(&mut self, event: ClaimEvent) {
        self.outputs.push_back(ClaimOutput::Event(event));
    }
}

#[derive(Clone, Copy, Debug)]
enum AfterClaim {
    Idle,
    Held,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::time::WallTime;

    #[test]
    fn claimer_rules_decide_names_concurrency_ids_and_gone_claims() {
        assert_eq!(ClaimConfig::check_names(Some("q"), Some("w")), Ok(()));
        let long = "q".repeat(MAX_QUEUE_LEN + 1);
        for (queue, worker, field) in [
            (None, Some("w"), "queue"),
            (Some(""), Some("w"), "queue"),
            (Some(long.as_str()), Some("w"), "queue"),
            (Some("q"), Some("w\u{e9}"), "workerId"),
            (Some("q"), None, "workerId"),
        ] {
            let error = ClaimConfig::check_names(queue, worker).unwrap_err();
            assert_eq!(error.field, field, "{queue:?} {worker:?}");
        }
        assert_eq!(ClaimConfig::check_concurrency(None), Ok(1));
        assert_eq!(ClaimConfig::check_concurrency(Some(3.0)), Ok(3));
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            assert!(ClaimConfig::check_concurrency(Some(bad)).is_err(), "{bad}");
        }
        assert!(is_item_id(1.0) && is_item_id(MAX_SAFE_INTEGER));
        assert!(!is_item_id(0.0) && !is_item_id(2.5) && !is_item_id(MAX_SAFE_INTEGER + 2.0));
        assert!(claim_gone("stale_claim") && claim_gone("no_such_item") && !claim_gone("busy"));
        assert_eq!(claim_failure_kind("too_late"), "timed_out");
        assert_eq!(claim_failure_kind("unreachable"), "unreachable");
    }

    const CLAIM_MS: f64 = 3_000.0;
    const MARGIN_MS: f64 = 600.0;

    fn at(ms: u64) -> Now {
        Now::from_micros(ms * 1000, 1_000_000_000 + ms * 1000)
    }

    fn machine() -> ClaimMachine {
        ClaimMachine::new(ClaimConfig::from_ms(CLAIM_MS, MARGIN_MS, None, 7).unwrap())
    }

    fn drain(m: &mut ClaimMachine) -> Vec<ClaimOutput> {
        std::iter::from_fn(|| m.poll_output()).collect()
    }

    fn sent(outputs: &[ClaimOutput]) -> Vec<ClaimRequest> {
        outputs
            .iter()
            .filter_map(|o| match o {
                ClaimOutput::Send(r) => Some(*r),
                _ => None,
            })
            .collect()
    }

    fn events(outputs: &[ClaimOutput]) -> Vec<ClaimEvent> {
        outputs
            .iter()
            .filter_map(|o| match o {
                ClaimOutput::Event(e) => Some(e.clone()),
                _ => None,
            })
            .collect()
    }

    fn token(n: u64) -> Token {
        Token::new(n).unwrap()
    }

    /// A machine holding item 5 under token 1, claimed at 0 ms.
    fn holding() -> ClaimMachine {
        let mut m = machine();
        m.start(at(0));
        let claim = sent(&drain(&mut m))[0];
        assert_eq!(claim.kind, ClaimRequestKind::Claim { claim_ms: 3_000 });
        m.handle_claim_reply(
            at(10),
            claim.id,
            ClaimReply::Claimed {
                item: 5,
                token: token(1),
                claim_ms: Some(3_000),
            },
        );
        let out = drain(&mut m);
        assert_eq!(
            events(&out),
            [ClaimEvent::Claimed {
                item: 5,
                token: token(1)
            }]
        );
        m
    }

    #[test]
    fn config_reuses_the_holder_rules_under_claim_names() {
        let config = ClaimConfig::from_ms(CLAIM_MS, MARGIN_MS, None, 0).unwrap();
        assert_eq!(config.holder.renew_interval, Micros::from_ms(1_000));
        let field = |claim, margin| ClaimConfig::from_ms(claim, margin, None, 0).unwrap_err();
        assert_eq!(field(f64::NAN, 1.0).field, "claimMs");
        assert_eq!(field(1_000.0, 0.0).field, "marginMs");
        assert_eq!(field(1_000.0, 1_000.0).problem, "must be less than claimMs");
        let no_room = field(900.0, 700.0);
        assert_eq!(no_room.field, "marginMs");
        assert!(no_room.problem.contains("heartbeat"));
        let timeout = ClaimConfig::from_ms(900.0, 200.0, Some(-1.0), 0).unwrap_err();
        assert_eq!(timeout.field, "requestTimeoutMs");
    }

    #[test]
    fn heartbeats_follow_the_holder_cadence_and_name_the_item() {
        let mut m = holding();
        assert_eq!(m.poll_timeout(), Some(at(1_000).mono));
        m.handle_timeout(at(1_000));
        let beat = sent(&drain(&mut m))[0];
        assert_eq!(
            beat.kind,
            ClaimRequestKind::Heartbeat {
                item: 5,
                token: token(1),
                claim_ms: 3_000
            }
        );
        m.handle_heartbeat_reply(at(1_020), beat.id, HeartbeatReply::Stale);
        let out = drain(&mut m);
        assert!(matches!(events(&out)[0], ClaimEvent::Lost { item: 5, .. }));
        assert_eq!(m.safely_held(at(1_030)), None);
    }

    #[test]
    fn complete_is_gated_on_a_safe_hold() {
        let mut m = holding();
        // Past the margin (claim sent at 0, 3 s, 600 ms margin) with no reply ever: not held.
        m.complete(at(2_500), true).unwrap();
        let out = drain(&mut m);
        assert!(!sent(&out)
            .iter()
            .any(|r| matches!(r.kind, ClaimRequestKind::Settle { .. })));
        assert!(events(&out).contains(&ClaimEvent::SettleEnded {
            item: 5,
            token: token(1),
            operation: SettleOperation::Complete,
            end: SettleEnd::NotHeld,
        }));
        // And it claims the next item.
        assert!(sent(&out)
            .iter()
            .any(|r| matches!(r.kind, ClaimRequestKind::Claim { .. })));
    }

    #[test]
    fn a_failure_is_sent_even_when_not_held_but_not_retried() {
        let mut m = holding();
        m.fail(at(2_500), true).unwrap();
        let settle = sent(&drain(&mut m))[0];
        assert!(matches!(
            settle.kind,
            ClaimRequestKind::Settle {
                operation: SettleOperation::Fail,
                ..
            }
        ));
        let unreachable = SettleReply::Failed(Failure::of(FailureKind::Unreachable));
        m.handle_settle_reply(at(2_600), settle.id, unreachable);
        let out = drain(&mut m);
        assert!(matches!(
            events(&out)[0],
            ClaimEvent::SettleEnded {
                end: SettleEnd::GaveUp(_),
                ..
            }
        ));
    }

    #[test]
    fn settle_retries_back_off_with_jitter_and_are_gated_each_time() {
        let mut m = holding();
        m.complete(at(100), true).unwrap();
        let first = sent(&drain(&mut m))[0];
        m.handle_settle_reply(
            at(120),
            first.id,
            SettleReply::Failed(Failure::of(FailureKind::Server)),
        );
        let retry_at = m.poll_timeout().unwrap();
        assert!(retry_at >= at(120 + 50).mono && retry_at <= at(120 + 100).mono);
        m.handle_timeout(Now {
            mono: retry_at,
            wall: at(0).wall,
        });
        let second = sent(&drain(&mut m));
        assert!(second
            .iter()
            .any(|r| matches!(r.kind, ClaimRequestKind::Settle { .. })));
        // The holder heartbeats on while the settlement is retried; the next retry, due after
        // the margin without a heartbeat reply, is refused at the gate.
        let settle = second
            .iter()
            .find(|r| matches!(r.kind, ClaimRequestKind::Settle { .. }))
            .unwrap();
        m.handle_settle_reply(
            at(2_390),
            settle.id,
            SettleReply::Failed(Failure::of(FailureKind::Server)),
        );
        m.handle_timeout(at(2_700));
        let out = drain(&mut m);
        assert!(events(&out).iter().any(|e| matches!(
            e,
            ClaimEvent::SettleEnded {
                end: SettleEnd::NotHeld,
                ..
            }
        )));
    }

    #[test]
    fn settlement_gives_up_after_its_attempts_and_on_final_failures() {
        let mut s = Settlement::new(SettleOperation::Complete, 1);
        let mut now = MonoTime(0);
        for _ in 0..SETTLE_ATTEMPTS - 1 {
            assert_eq!(s.attempt(now, true), SettleStep::Send);
            let failed = SettleReply::Failed(Failure::of(FailureKind::Unreachable));
            let SettleStep::WaitUntil(at) = s.outcome(now, failed, true) else {
                panic!("not retried")
            };
            assert!(matches!(s.attempt(now, true), SettleStep::WaitUntil(_)));
            now = at;
        }
        assert_eq!(s.attempt(now, true), SettleStep::Send);
        let failed = SettleReply::Failed(Failure::of(FailureKind::Unreachable));
        assert!(matches!(
            s.outcome(now, failed, true),
            SettleStep::Ended(SettleEnd::GaveUp(_))
        ));
        let mut bad = Settlement::new(SettleOperation::Fail, 1);
        assert_eq!(bad.attempt(MonoTime(0), true), SettleStep::Send);
        let refused = SettleReply::Failed(Failure::of(FailureKind::BadRequest));
        assert!(matches!(
            bad.outcome(MonoTime(0), refused, true),
            SettleStep::Ended(SettleEnd::GaveUp(_))
        ));
    }

    #[test]
    fn retries_of_different_seeds_spread_out() {
        let waits: Vec<MonoTime> = (0..8)
            .map(|seed| {
                let mut s = Settlement::new(SettleOperation::Complete, seed);
                s.attempt(MonoTime(0), true);
                let failed = SettleReply::Failed(Failure::of(FailureKind::Server));
                match s.outcome(MonoTime(0), failed, true) {
                    SettleStep::WaitUntil(at) => at,
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        let mut distinct = waits.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() > 4, "{waits:?}");
    }

    #[test]
    fn idle_backoff_doubles_to_its_ceiling_and_resets() {
        let mut idle = IdleBackoff::new(Micros::from_ms(50), Micros::from_ms(2_000), 3);
        let waits: Vec<u64> = (0..10).map(|_| idle.next_wait().0).collect();
        for (n, wait) in waits.iter().enumerate() {
            let ceiling = (50_000u64 << n).min(2_000_000);
            assert!((ceiling / 2..=ceiling).contains(wait), "{n}: {wait}");
        }
        idle.reset();
        assert!(idle.next_wait() <= Micros::from_ms(50));
    }

    #[test]
    fn nothing_claimable_waits_then_claims_again() {
        let mut m = machine();
        m.start(at(0));
        let claim = sent(&drain(&mut m))[0];
        m.handle_claim_reply(at(5), claim.id, ClaimReply::Empty);
        assert_eq!(events(&drain(&mut m)), [ClaimEvent::NothingClaimable]);
        let due = m.poll_timeout().unwrap();
        assert!(due >= at(5 + 25).mono && due <= at(5 + 50).mono);
        m.handle_timeout(Now {
            mono: due,
            wall: at(60).wall,
        });
        let again = sent(&drain(&mut m))[0];
        assert!(matches!(again.kind, ClaimRequestKind::Claim { .. }));
        // A late reply to the first claim's id is ignored.
        assert_ne!(again.id, claim.id);
        m.handle_claim_reply(at(70), claim.id, ClaimReply::Empty);
        assert!(drain(&mut m).is_empty());
    }

    #[test]
    fn stop_gives_back_a_claim_that_arrives_after_it() {
        let mut m = machine();
        m.start(at(0));
        let claim = sent(&drain(&mut m))[0];
        m.stop(at(5));
        drain(&mut m);
        m.handle_claim_reply(
            at(10),
            claim.id,
            ClaimReply::Claimed {
                item: 9,
                token: token(4),
                claim_ms: None,
            },
        );
        let out = sent(&drain(&mut m));
        assert_eq!(
            out.iter().map(|r| r.kind).collect::<Vec<_>>(),
            [ClaimRequestKind::GiveBack {
                item: 9,
                token: token(4)
            }]
        );
        assert_eq!(m.in_hand(), None);
    }

    fn settle_of(outputs: &[ClaimOutput]) -> (RequestId, Option<NextClaim>) {
        sent(outputs)
            .iter()
            .find_map(|r| match r.kind {
                ClaimRequestKind::Settle { next, .. } => Some((r.id, next)),
                _ => None,
            })
            .expect("a settle attempt")
    }

    fn next_claimed(item: u64, token_n: u64) -> SettleReply {
        SettleReply::Settled {
            next: Some(ClaimReply::Claimed {
                item,
                token: token(token_n),
                claim_ms: Some(3_000),
            }),
        }
    }

    #[test]
    fn a_settlement_claims_the_next_item_in_the_same_request() {
        let mut m = holding();
        m.complete(at(100), true).unwrap();
        let (id, next) = settle_of(&drain(&mut m));
        assert_eq!(
            next,
            Some(NextClaim {
                claim_ms: 3_000,
                request: id
            })
        );
        m.handle_settle_reply(at(150), id, next_claimed(6, 1));
        let out = drain(&mut m);
        assert_eq!(
            events(&out),
            [
                ClaimEvent::SettleEnded {
                    item: 5,
                    token: token(1),
                    operation: SettleOperation::Complete,
                    end: SettleEnd::Settled,
                },
                ClaimEvent::Claimed {
                    item: 6,
                    token: token(1)
                },
            ]
        );
        // The claim went out with the settlement: no claim request of its own.
        assert!(sent(&out).is_empty(), "{out:?}");
        assert_eq!(m.in_hand(), Some((6, token(1))));
        // Its clock starts when the settle attempt was sent (100 ms), not when it arrived:
        // heartbeats from 100 + 1000, the margin (600 ms) begins at 2500.
        assert_eq!(m.poll_timeout(), Some(at(1_100).mono));
        assert_eq!(m.safely_held(at(2_450)), Some((6, token(1))));
        assert_eq!(m.safely_held(at(2_520)), None);
    }

    #[test]
    fn a_next_claim_counts_a_sleep_after_a_wall_step_back_while_its_settlement_was_out() {
        // Readings with the wall clock `wall_ms` off `at`'s.
        let reading = |mono_ms: u64, wall_ms: i64| Now {
            mono: at(mono_ms).mono,
            wall: WallTime(at(0).wall.0.saturating_add_signed(wall_ms * 1000)),
        };
        let mut m = holding();
        m.complete(reading(100, 100), true).unwrap();
        let (id, _) = settle_of(&drain(&mut m));
        // The wall clock steps back 2 s (seen at 200 ms), then the machine sleeps 2.5 s: the
        // monotonic clock stops at 250 ms, the wall clock runs on.
        m.handle_timeout(reading(200, 200 - 2_000));
        let woke = reading(250, 250 - 2_000 + 2_500);
        m.handle_settle_reply(woke, id, next_claimed(6, 1));
        drain(&mut m);
        // 2.65 s of the next claim's 3 s have passed since the settlement was sent: inside the
        // 600 ms margin. Between the send and the reply alone, the step hides the sleep.
        assert_eq!(m.safely_held(woke), None);
    }

    #[test]
    fn every_attempt_of_a_settlement_asks_for_the_next_claim_under_the_first_attempts_id() {
        let mut m = holding();
        m.fail(at(100), true).unwrap();
        let (first, next) = settle_of(&drain(&mut m));
        let failed = SettleReply::Failed(Failure::of(FailureKind::Server));
        m.handle_settle_reply(at(120), first, failed);
        let retry_at = m.poll_timeout().unwrap();
        m.handle_timeout(Now {
            mono: retry_at,
            wall: at(300).wall,
        });
        let (second, again) = settle_of(&drain(&mut m));
        assert_ne!(second, first);
        assert_eq!(again, next);
        assert_eq!(again.unwrap().request, first);
    }

    #[test]
    fn a_grantor_without_claim_next_settles_alone_and_the_next_claim_goes_apart() {
        let mut m = holding();
        m.complete(at(100), true).unwrap();
        let (id, _) = settle_of(&drain(&mut m));
        m.handle_settle_reply(at(150), id, SettleReply::Settled { next: None });
        let out = drain(&mut m);
        assert_eq!(
            sent(&out).iter().map(|r| r.kind).collect::<Vec<_>>(),
            [ClaimRequestKind::Claim { claim_ms: 3_000 }]
        );
    }

    #[test]
    fn stop_gives_back_a_next_claim_that_comes_with_a_settlement() {
        let mut m = holding();
        m.complete(at(100), true).unwrap();
        let (id, next) = settle_of(&drain(&mut m));
        assert!(next.is_some());
        m.stop(at(120));
        assert!(drain(&mut m).is_empty());
        m.handle_settle_reply(at(150), id, next_claimed(6, 2));
        let out = drain(&mut m);
        assert!(!events(&out)
            .iter()
            .any(|e| matches!(e, ClaimEvent::Claimed { .. })));
        assert_eq!(
            sent(&out).iter().map(|r| r.kind).collect::<Vec<_>>(),
            [ClaimRequestKind::GiveBack {
                item: 6,
                token: token(2)
            }]
        );
        assert_eq!(m.in_hand(), None);
        assert_eq!(m.poll_timeout(), None);
    }

    #[test]
    fn a_stopped_slot_settles_without_asking_for_a_next_claim() {
        let mut m = holding();
        m.stop(at(50));
        m.complete(at(100), true).unwrap();
        let (id, next) = settle_of(&drain(&mut m));
        assert_eq!(next, None);
        m.handle_settle_reply(at(150), id, SettleReply::Settled { next: None });
        let out = drain(&mut m);
        assert!(sent(&out).is_empty(), "{out:?}");
        assert_eq!(m.in_hand(), None);
    }

    #[test]
    fn settle_without_a_claim_is_a_usage_error() {
        let mut m = machine();
        assert_eq!(m.complete(at(0), true), Err(ClaimUsageError::NoClaim));
    }

    fn one_shot() -> ClaimMachine {
        ClaimMachine::one_shot(ClaimConfig::from_ms(CLAIM_MS, MARGIN_MS, None, 7).unwrap())
    }

    #[test]
    fn a_one_shot_slot_stops_when_nothing_is_claimable_or_the_claim_fails() {
        for reply in [
            ClaimReply::Empty,
            ClaimReply::Failed(Failure::of(FailureKind::Server)),
        ] {
            let mut m = one_shot();
            m.start(at(0));
            let claim = sent(&drain(&mut m))[0];
            m.handle_claim_reply(at(5), claim.id, reply);
            assert_eq!(events(&drain(&mut m)).len(), 1);
            assert_eq!(m.poll_timeout(), None, "no idle wait, no claim again");
        }
    }

    /// A one-shot machine holding item 5 under token 1, claimed at 0 ms.
    fn one_shot_holding() -> ClaimMachine {
        let mut m = one_shot();
        m.start(at(0));
        let claim = sent(&drain(&mut m))[0];
        let claimed = ClaimReply::Claimed {
            item: 5,
            token: token(1),
            claim_ms: None,
        };
        m.handle_claim_reply(at(10), claim.id, claimed);
        drain(&mut m);
        m
    }

    #[test]
    fn a_one_shot_settlement_without_claim_next_asks_for_nothing_more() {
        let mut m = one_shot_holding();
        m.complete(at(100), false).unwrap();
        let (id, next) = settle_of(&drain(&mut m));
        assert_eq!(next, None);
        m.handle_settle_reply(at(150), id, SettleReply::Settled { next: None });
        let out = drain(&mut m);
        assert!(sent(&out).is_empty(), "{out:?}");
        assert_eq!(m.in_hand(), None);
        assert_eq!(m.poll_timeout(), None);
    }

    #[test]
    fn a_one_shot_settlement_with_claim_next_holds_the_next_claim() {
        let mut m = one_shot_holding();
        m.fail(at(100), true).unwrap();
        let (id, next) = settle_of(&drain(&mut m));
        assert!(next.is_some());
        m.handle_settle_reply(at(150), id, next_claimed(6, 1));
        let out = drain(&mut m);
        assert!(events(&out).contains(&ClaimEvent::Claimed {
            item: 6,
            token: token(1)
        }));
        assert_eq!(m.in_hand(), Some((6, token(1))));
    }

    #[test]
    fn a_one_shot_claim_next_at_a_grantor_without_it_claims_apart_only_once_settled() {
        let mut m = one_shot_holding();
        m.complete(at(100), true).unwrap();
        let (id, _) = settle_of(&drain(&mut m));
        m.handle_settle_reply(at(150), id, SettleReply::Settled { next: None });
        let out = drain(&mut m);
        assert_eq!(
            sent(&out).iter().map(|r| r.kind).collect::<Vec<_>>(),
            [ClaimRequestKind::Claim { claim_ms: 3_000 }]
        );
        // A settlement that did not take effect asks for nothing more.
        let mut m = one_shot_holding();
        m.complete(at(100), true).unwrap();
        let (id, _) = settle_of(&drain(&mut m));
        m.handle_settle_reply(at(150), id, SettleReply::Stale);
        let out = drain(&mut m);
        assert!(sent(&out).is_empty(), "{out:?}");
        assert_eq!(m.poll_timeout(), None);
    }

    #[test]
    fn claim_next_is_chosen_per_settlement() {
        let mut m = holding();
        m.complete(at(100), false).unwrap();
        let (id, next) = settle_of(&drain(&mut m));
        assert_eq!(next, None);
        // The loop claims on apart.
        m.handle_settle_reply(at(150), id, SettleReply::Settled { next: None });
        assert_eq!(
            sent(&drain(&mut m))
                .iter()
                .map(|r| r.kind)
                .collect::<Vec<_>>(),
            [ClaimRequestKind::Claim { claim_ms: 3_000 }]
        );
    }

    #[test]
    fn remaining_counts_down_from_the_claims_send() {
        let mut m = holding();
        assert_eq!(m.remaining(at(1_000)), Micros::from_ms(2_000));
        m.complete(at(1_000), false).unwrap();
        assert_eq!(m.remaining(at(1_500)), Micros::from_ms(1_500));
        let (id, _) = settle_of(&drain(&mut m));
        m.handle_settle_reply(at(1_600), id, SettleReply::Settled { next: None });
        assert_eq!(m.remaining(at(1_700)), Micros::ZERO);
    }

    #[test]
    fn the_idle_wait_starts_over_when_the_idle_callback_has_run() {
        let mut m = machine();
        m.start(at(0));
        let claim = sent(&drain(&mut m))[0];
        m.handle_claim_reply(at(5), claim.id, ClaimReply::Empty);
        drain(&mut m);
        let wait = m.poll_timeout().unwrap().since(at(5).mono);
        m.idle_begins(at(500));
        assert_eq!(m.poll_timeout(), Some(at(500).mono.plus(wait)));
        m.handle_timeout(at(499));
        assert!(drain(&mut m).is_empty());
    }
}
