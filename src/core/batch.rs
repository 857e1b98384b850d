//! The renewal batcher: many holders' renewals to one grantor, sent together as
//! `POST /v1/renew/batch`, each still answered on its own.
//!
//! The host drives it like a [`Holder`](super::Holder): a command ([`Batcher::enqueue`],
//! [`Batcher::abandon`], [`Batcher::forget`]) or an input ([`Batcher::handle_timeout`],
//! [`Batcher::handle_batch_reply`], [`Batcher::handle_batch_failure`]), each with the current
//! [`Now`]; then it drains [`Batcher::poll_output`] (batches to send, renewals to send alone,
//! renewals to settle) and arms one timer for [`Batcher::poll_timeout`].
//!
//! # Why waiting is safe, and how long
//!
//! A holder stamps a renewal's send time when it hands the renewal over, so a renewal that waits
//! here only makes its holder believe less, never more; its holder's own deadline and margin stay
//! enforced whatever happens here. What waiting costs is time: from hand-over, its holder gives
//! the attempt until its request timeout or the start of its margin, whichever is first (see
//! [`HolderTiming::budget`]). A renewal waits at most half of that budget, leaving the other
//! half for the round trip ([`HolderTiming::safe_delay`]). The holder says what is left of its
//! lease: a renewal falls due late whenever the previous one came back after the renew interval
//! (it waited, or its round trip was slow), and then less than the on-schedule budget
//! ([`scheduled_budget`]) is left.
//!
//! A renewal whose holder did not say (a caller that gave only the lease) is assumed to have the
//! default renew interval and request timeout (a third of the lease each) and a margin of at
//! most a third: it waits a sixth of its lease ([`assumed_delay`]), or the configured
//! `max_delay`. If its holder abandons it while it waits, the lease has a shorter budget than
//! assumed: from then on it waits at most half as long as that renewal had waited, and its retry
//! goes at once. A lease whose latest attempt failed is renewed at once (with whatever is
//! queued), so batching never costs a retry its time.

use std::collections::VecDeque;

use super::config::{checked_ms, ConfigError, HolderConfig};
use super::holder::FailureKind;
use super::time::{Clock, Micros, MonoTime, Now};
use crate::protocol::MAX_BATCH_RENEWALS;

/// A batch body is split before it reaches this many characters, well inside the grantor's
/// 8 MiB.
pub const MAX_BATCH_BODY_CHARS: usize = 4 * 1024 * 1024;

/// How many leases a client remembers something about (the least recently touched go first),
/// so that what it keeps costs bounded memory however long it lives: the batcher, what it
/// learned of each lease; `HttpGrantor`, each grant's and claim's secret. Room for the leases of
/// six full batches ([`MAX_BATCH_RENEWALS`] each), rounded up to a power of two: 65,536.
pub const REMEMBERED_LEASES: usize = (6 * MAX_BATCH_RENEWALS).next_power_of_two();

/// Deliberately broken behaviours of the batcher. They take effect only in builds with the
/// `mutations` feature, where the simulation uses them to prove that it catches each bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchMutation {
    /// Every renewal waits `max_delay` (or a sixth of its lease), whatever its holder's settings:
    /// a holder with a short request timeout gives up before its renewal is sent.
    FixedDelay,
    /// What an abandoned renewal taught is ignored: the lease's next renewals wait as long again.
    IgnoreLearnedCap,
    /// A lease whose latest attempt failed waits for the batch timer like any other.
    UrgentWaits,
    /// Results are matched to renewals from the end of the batch instead of in order.
    ReversedResults,
}

impl BatchMutation {
    /// Every mutation, for tests that must catch them all.
    pub const ALL: [BatchMutation; 4] = [
        BatchMutation::FixedDelay,
        BatchMutation::IgnoreLearnedCap,
        BatchMutation::UrgentWaits,
        BatchMutation::ReversedResults,
    ];
}

/// How the batcher batches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchConfig {
    /// The longest a renewal whose holder's settings are unknown waits (`maxDelayMs`); `None`:
    /// a sixth of its lease. It never lets a renewal wait past its holder's safe delay.
    pub max_delay: Option<Micros>,
    /// The most renewals in one batch (`maxBatch`), at most [`MAX_BATCH_RENEWALS`]. A queue this
    /// full is sent at once.
    pub max_batch: usize,
    /// A deliberately broken behaviour, for proving the simulation catches it.
    #[cfg(feature = "mutations")]
    pub mutation: Option<BatchMutation>,
}

impl BatchConfig {
    /// Validates `batchRenewals`' settings as JavaScript passes them (`max_batch` `None`: the
    /// protocol's limit). Errors name the option.
    pub fn from_ms(max_delay_ms: Option<f64>, max_batch: Option<f64>) -> Result<Self, ConfigError> {
        let max_delay = match max_delay_ms {
            // Zero is allowed: every renewal goes out with whatever is queued in the same turn.
            Some(0.0) => Some(Micros::ZERO),
            Some(ms) => Some(checked_ms("batchRenewals.maxDelayMs", ms).map_err(|_| {
                ConfigError::new(
                    "batchRenewals.maxDelayMs",
                    "must be a number from 0 to 2^31-1 ms",
                )
            })?),
            None => None,
        };
        let max_batch = match max_batch {
            None => MAX_BATCH_RENEWALS,
            Some(n) if n.fract() == 0.0 && (1.0..=MAX_BATCH_RENEWALS as f64).contains(&n) => {
                n as usize
            }
            Some(_) => {
                return Err(ConfigError::new(
                    "batchRenewals.maxBatch",
                    "must be an integer from 1 to 10000",
                ))
            }
        };
        Ok(BatchConfig {
            max_delay,
            max_batch,
            #[cfg(feature = "mutations")]
            mutation: None,
        })
    }
}

/// What a renewal's holder says of the attempt it hands over: how long it will wait for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HolderTiming {
    /// How long the holder waits for one attempt (`requestTimeoutMs`).
    pub request_timeout: Micros,
    /// What is left of the holder's lease before its margin begins, at hand-over.
    pub safe_for: Micros,
}

impl HolderTiming {
    /// The timing of a renewal that a holder with `config`, its lease safely held for another
    /// `safe_for`, hands over.
    pub fn of(config: &HolderConfig, safe_for: Micros) -> HolderTiming {
        HolderTiming {
            request_timeout: config.request_timeout,
            safe_for,
        }
    }

    /// The time from hand-over to when the holder gives up on the attempt, by the holder's own
    /// rule: at its request timeout, and at the latest when its margin begins.
    pub fn budget(&self) -> Micros {
        self.request_timeout.min(self.safe_for)
    }

    /// The longest the renewal may wait for its batch: half of its [`budget`](Self::budget),
    /// leaving the other half for the round trip.
    pub fn safe_delay(&self) -> Micros {
        Micros(self.budget().0 / 2)
    }
}

/// The budget of a renewal that falls due on schedule, for a holder with `config`: its request
/// timeout, or what is left before its margin (`lease - margin` after the previous renewal's
/// send, which was `renew_interval` before), if less.
pub fn scheduled_budget(config: &HolderConfig) -> Micros {
    let before_margin = config
        .lease
        .saturating_sub(config.margin)
        .saturating_sub(config.renew_interval);
    config.request_timeout.min(before_margin)
}

/// The wait assumed safe for a renewal of `lease` whose holder did not say: a sixth of the
/// lease, half the [`scheduled_budget`] of a holder with the default renew interval and request
/// timeout (a third of the lease each) and a margin of at most a third.
pub fn assumed_delay(lease: Micros) -> Micros {
    Micros(lease.0 / 6)
}

/// The longest `max_delay` that puts none of the holders with `configs` at risk: the smallest of
/// their safe delays (`HttpGrantor.batchDelayMs`).
pub fn batch_delay(configs: &[HolderConfig]) -> Option<Micros> {
    configs
        .iter()
        .map(|config| Micros(scheduled_budget(config).0 / 2))
        .min()
}

/// What the host knows of one renewal it hands to the batcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenewalSpec<'a> {
    /// Identifies the lease (resource and holder) across its renewals.
    pub key: &'a str,
    /// The lease asked for, if the request says (one that does not is sent at once: the grantor
    /// answers it).
    pub lease: Option<Micros>,
    /// How long its holder waits for it, if it said; otherwise it is assumed from the lease.
    pub holder: Option<HolderTiming>,
    /// The length of the renewal's JSON text, for splitting batches by size.
    pub body_chars: usize,
}

/// Identifies one renewal handed to the batcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RenewalId(pub u64);

/// Identifies one batch the batcher asked the host to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BatchId(pub u64);

/// A batch to send: these renewals, in this order, as one `POST /v1/renew/batch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Pass it back with the reply or failure.
    pub id: BatchId,
    /// The renewals, in the order of the request body.
    pub renewals: Vec<RenewalId>,
}

/// How one renewal ends, as far as the batcher is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenewalSettlement {
    /// Result `index` of its batch's reply is its reply: deliver it (its holder validates it).
    Reply {
        /// Position in the reply's `results`.
        index: usize,
    },
    /// Result `index` of its batch's reply is an error body: fail the renewal with `kind`.
    ElementFailed {
        /// Position in the reply's `results`.
        index: usize,
        /// The failure the error stands for, as its status would say alone.
        kind: FailureKind,
    },
    /// Its batch failed as a whole: fail the renewal with the batch's failure.
    BatchFailed,
    /// Its batch's reply did not carry one result per renewal.
    Malformed,
    /// Its holder gave up on it before it was sent; it never will be.
    Abandoned,
}

/// Something the host must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatchOutput {
    /// Send this batch and feed its outcome to [`Batcher::handle_batch_reply`] or
    /// [`Batcher::handle_batch_failure`].
    Send(Batch),
    /// Send this renewal on its own (`POST /v1/renew`) and give its holder that outcome.
    SendAlone(RenewalId),
    /// The renewal's outcome: give it to its holder.
    Settle(RenewalId, RenewalSettlement),
}

/// How a batch failed as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchFailure {
    /// The grantor has no batch route (it predates it): every renewal goes alone from now on.
    NoRoute,
    /// The grantor refused the batch's size: its renewals go alone.
    TooLarge,
    /// Anything else (unreachable, timed out, server error, rate limited): its renewals fail.
    Failed,
}

impl BatchFailure {
    /// Classifies a failed batch request by its HTTP status and error code, if it had them.
    pub fn of(status: Option<u16>, code: Option<&str>) -> BatchFailure {
        match status {
            Some(501) => BatchFailure::NoRoute,
            Some(404) if code == Some("not_found") => BatchFailure::NoRoute,
            Some(413) => BatchFailure::TooLarge,
            _ => BatchFailure::Failed,
        }
    }
}

/// One element of a batch reply, as the host read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemResult<'a> {
    /// A renew reply; `renewed` if it says `renewed: true`.
    Reply {
        /// Whether the reply renewed the lease.
        renewed: bool,
    },
    /// An error body, with its code if it had a string one.
    Error(Option<&'a str>),
}

/// The failure an element's error code stands for, as its status would say alone (the
/// protocol's one code-to-kind rule, [`FailureKind::for_error_code`]).
pub fn element_failure_kind(code: Option<&str>) -> FailureKind {
    code.map_or(FailureKind::BadRequest, FailureKind::for_error_code)
}

#[derive(Clone, Debug)]
struct Queued {
    id: RenewalId,
    key: String,
    queued: Now,
    delay: Micros,
    chars: usize,
}

#[derive(Clone, Debug)]
struct InFlight {
    id: BatchId,
    renewals: Vec<Sent>,
}

/// A renewal in a batch in flight, and the lease its result teaches about.
#[derive(Clone, Debug)]
struct Sent {
    id: RenewalId,
    key: String,
}

/// What the batcher learned about one lease.
#[derive(Clone, Copy, Debug, Default)]
struct Learned {
    /// Its latest attempt failed: the next one goes at once.
    urgent: bool,
    /// The longest its renewals may wait, learned from one abandoned while it waited.
    cap: Option<Micros>,
}

/// Leases' [`Learned`], forgetting the least recently touched beyond [`REMEMBERED_LEASES`].
/// Only leases with something to remember are kept: a lease that renews on time costs nothing.
/// A sorted list rather than a hash map: it is far smaller in WebAssembly, and it only grows
/// when a lease's renewal fails.
#[derive(Clone, Debug, Default)]
struct LearnedMap {
    /// (key, when last touched, what was learned), sorted by key.
    entries: Vec<(String, u64, Learned)>,
    touches: u64,
}

impl LearnedMap {
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|(k, _, _)| k.as_str().cmp(key))
    }

    fn get(&self, key: &str) -> Learned {
        match self.find(key) {
            Ok(i) => self.entries.get(i).map_or_else(Learned::default, |e| e.2),
            Err(_) => Learned::default(),
        }
    }

    /// What was learned about `key`, to change: touched now, and made room for if new. One
    /// function, not a generic one per change, to keep the WebAssembly small.
    #[inline(never)]
    fn entry(&mut self, key: &str) -> Option<&mut Learned> {
        self.touches += 1;
        let i = match self.find(key) {
            Ok(i) => i,
            Err(mut i) => {
                if self.entries.len() >= REMEMBERED_LEASES {
                    let oldest =
                        (0..self.entries.len()).min_by_key(|&i| self.entries.get(i).map(|e| e.1));
                    if let Some(oldest) = oldest {
                        self.entries.remove(oldest);
                        i -= usize::from(oldest < i);
                    }
                }
                self.entries
                    .insert(i, (key.to_owned(), 0, Learned::default()));
                i
            }
        };
        let entry = self.entries.get_mut(i)?;
        entry.1 = self.touches;
        Some(&mut entry.2)
    }

    fn remove(&mut self, key: &str) {
        if let Ok(i) = self.find(key) {
            self.entries.remove(i);
        }
    }
}

/// The sans-IO renewal batcher of one client and one grantor. See the module documentation.
#[derive(Clone, Debug)]
pub struct Batcher {
    config: BatchConfig,
    clock: Clock,
    queue: Vec<Queued>,
    in_flight: Vec<InFlight>,
    learned: LearnedMap,
    /// Set once the grantor answered that it has no batch route.
    unsupported: bool,
    next_renewal: u64,
    next_batch: u64,
    outputs: VecDeque<BatchOutput>,
}

impl Batcher {
    /// A batcher with nothing queued.
    pub fn new(config: BatchConfig) -> Batcher {
        Batcher {
            config,
            clock: Clock::new(),
            queue: Vec::new(),
            in_flight: Vec::new(),
            learned: LearnedMap::default(),
            unsupported: false,
            next_renewal: 0,
            next_batch: 0,
            outputs: VecDeque::new(),
        }
    }

    /// Whether this batcher runs the deliberately broken variant `mutation`. Always false in
    /// builds without the `mutations` feature, so the checks compile away.
    #[inline(always)]
    fn mutated(&self, mutation: BatchMutation) -> bool {
        #[cfg(feature = "mutations")]
        return self.config.mutation == Some(mutation);
        #[cfg(not(feature = "mutations"))]
        {
            let _ = mutation;
            false
        }
    }

    /// The configuration.
    pub fn config(&self) -> &BatchConfig {
        &self.config
    }

    /// How many renewals wait for a batch.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// How long a renewal of `spec` may wait, given what was learned about its lease.
    pub fn delay_for(&self, spec: &RenewalSpec<'_>) -> Micros {
        let learned = self.learned.get(spec.key);
        if learned.urgent && !self.mutated(BatchMutation::UrgentWaits) {
            return Micros::ZERO;
        }
        let assumed = spec.lease.map(assumed_delay);
        let delay = match (spec.holder, self.config.max_delay) {
            (Some(holder), max) if !self.mutated(BatchMutation::FixedDelay) => {
                let safe = holder.safe_delay();
                max.map_or(safe, |max| max.min(safe))
            }
            // A duration that is not a number still goes out, at once: the grantor answers it.
            (_, max) => match (max, assumed) {
                (Some(max), _) => max,
                (None, Some(assumed)) => assumed,
                (None, None) => Micros::ZERO,
            },
        };
        match learned.cap {
            Some(cap) if !self.mutated(BatchMutation::IgnoreLearnedCap) => delay.min(cap),
            _ => delay,
        }
    }

    /// Hands over a renewal to send. It waits for a batch at most its delay
    /// ([`delay_for`](Self::delay_for)); a full queue goes at once, and once the grantor has
    /// said it has no batch route every renewal goes alone.
    pub fn enqueue(&mut self, now: Now, spec: RenewalSpec<'_>) -> RenewalId {
        let now = self.clock.observe(now);
        self.next_renewal += 1;
        let id = RenewalId(self.next_renewal);
        if self.unsupported {
            self.outputs.push_back(BatchOutput::SendAlone(id));
            return id;
        }
        let delay = self.delay_for(&spec);
        self.queue.push(Queued {
            id,
            key: spec.key.to_owned(),
            queued: now,
            delay,
            chars: spec.body_chars,
        });
        if self.queue.len() >= self.config.max_batch {
            self.flush();
        }
        id
    }

    /// Its holder no longer wants `renewal`. Still queued, it leaves the queue and is settled
    /// [`RenewalSettlement::Abandoned`]; its lease's later renewals wait at most half as long as this
    /// one did, and the next goes at once. Already sent, nothing changes: its holder ignores the
    /// reply.
    pub fn abandon(&mut self, now: Now, renewal: RenewalId) {
        let now = self.clock.observe(now);
        let mut found = None;
        self.queue.retain_mut(|q| {
            let this = q.id == renewal;
            if this {
                found = Some((q.queued, core::mem::take(&mut q.key)));
            }
            !this
        });
        let Some((queued_at, key)) = found else {
            return;
        };
        let waited = now.elapsed_since(queued_at);
        // Its holder gave up on it sooner than it was meant to wait. (A holder that releases
        // also abandons its renewal; `forget` then clears what this learned.)
        if let Some(learned) = self.learned.entry(&key) {
            learned.cap = Some(Micros(waited.0 / 2).min(learned.cap.unwrap_or(Micros(u64::MAX))));
            learned.urgent = true;
        }
        self.outputs
            .push_back(BatchOutput::Settle(renewal, RenewalSettlement::Abandoned));
    }

    /// Forgets what was learned about the lease `key`: it was released.
    pub fn forget(&mut self, key: &str) {
        self.learned.remove(key);
    }

    /// The next output to act on, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<BatchOutput> {
        self.outputs.pop_front()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next: when the most urgent queued
    /// renewal's delay runs out. Never earlier than the latest time the batcher was given.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        let due = self
            .queue
            .iter()
            .map(|q| q.queued.mono.plus(q.delay))
            .min()?;
        Some(self.clock.last().map_or(due, |last| due.max(last.mono)))
    }

    /// Sends everything queued once any queued renewal's delay has run out (on either clock:
    /// time the machine slept counts).
    pub fn handle_timeout(&mut self, now: Now) {
        let now = self.clock.observe(now);
        if self
            .queue
            .iter()
            .any(|q| now.elapsed_since(q.queued) >= q.delay)
        {
            self.flush();
        }
    }

    /// Feeds the reply of `batch`: one result per renewal, in order. Each renewal is settled
    /// with its own result; one that did not renew makes its lease urgent.
    pub fn handle_batch_reply(&mut self, now: Now, batch: BatchId, results: &[ItemResult<'_>]) {
        self.clock.observe(now);
        let Some(sent) = self.take_in_flight(batch) else {
            return;
        };
        if results.len() != sent.renewals.len() {
            for renewal in &sent.renewals {
                self.mark_urgent(&renewal.key, true);
                self.outputs.push_back(BatchOutput::Settle(
                    renewal.id,
                    RenewalSettlement::Malformed,
                ));
            }
            return;
        }
        let last = results.len().saturating_sub(1);
        for (position, renewal) in sent.renewals.iter().enumerate() {
            let index = if self.mutated(BatchMutation::ReversedResults) {
                last - position
            } else {
                position
            };
            let key = &renewal.key;
            let Some(result) = results.get(index) else {
                continue;
            };
            let settlement = match *result {
                ItemResult::Reply { renewed } => {
                    // A refusal ends the hold; only a renewal says the lease is well again.
                    if renewed && self.learned.get(key).urgent {
                        self.mark_urgent(key, false);
                    }
                    RenewalSettlement::Reply { index }
                }
                ItemResult::Error(code) => {
                    self.mark_urgent(key, true);
                    RenewalSettlement::ElementFailed {
                        index,
                        kind: element_failure_kind(code),
                    }
                }
            };
            self.outputs
                .push_back(BatchOutput::Settle(renewal.id, settlement));
        }
    }

    /// Feeds the failure of `batch` as a whole. A grantor without the batch route gets every
    /// renewal alone from now on, one that refuses the size gets this batch's alone; otherwise
    /// each renewal fails with the batch's failure and its lease is urgent.
    pub fn handle_batch_failure(&mut self, now: Now, batch: BatchId, failure: BatchFailure) {
        self.clock.observe(now);
        let Some(sent) = self.take_in_flight(batch) else {
            return;
        };
        if failure == BatchFailure::NoRoute {
            self.unsupported = true;
        }
        for renewal in sent.renewals {
            let output = match failure {
                BatchFailure::NoRoute | BatchFailure::TooLarge => {
                    BatchOutput::SendAlone(renewal.id)
                }
                BatchFailure::Failed => {
                    self.mark_urgent(&renewal.key, true);
                    BatchOutput::Settle(renewal.id, RenewalSettlement::BatchFailed)
                }
            };
            self.outputs.push_back(output);
        }
        if self.unsupported {
            // What waits would otherwise go as a batch the grantor cannot answer.
            for queued in core::mem::take(&mut self.queue) {
                self.outputs.push_back(BatchOutput::SendAlone(queued.id));
            }
        }
    }

    fn mark_urgent(&mut self, key: &str, urgent: bool) {
        if let Some(learned) = self.learned.entry(key) {
            learned.urgent = urgent;
        }
    }

    fn take_in_flight(&mut self, batch: BatchId) -> Option<InFlight> {
        let mut found = None;
        self.in_flight.retain_mut(|b| {
            let this = b.id == batch;
            if this {
                found = Some(InFlight {
                    id: b.id,
                    renewals: core::mem::take(&mut b.renewals),
                });
            }
            !this
        });
        found
    }

    /// Sends everything queued, in batches of at most `max_batch` renewals and
    /// [`MAX_BATCH_BODY_CHARS`].
    fn flush(&mut self) {
        let mut chunk: Vec<Sent> = Vec::new();
        let mut chars = 0usize;
        for queued in core::mem::take(&mut self.queue) {
            let full = chunk.len() >= self.config.max_batch
                || chars.saturating_add(queued.chars) > MAX_BATCH_BODY_CHARS;
            if !chunk.is_empty() && full {
                self.send(core::mem::take(&mut chunk));
                chars = 0;
            }
            chars = chars.saturating_add(queued.chars).saturating_add(1);
            chunk.push(Sent {
                id: queued.id,
                key: queued.key,
            });
        }
        if !chunk.is_empty() {
            self.send(chunk);
        }
    }

    fn send(&mut self, renewals: Vec<Sent>) {
        self.next_batch += 1;
        let id = BatchId(self.next_batch);
        let batch = Batch {
            id,
            renewals: renewals.iter().map(|renewal| renewal.id).collect(),
        };
        self.in_flight.push(InFlight { id, renewals });
        self.outputs.push_back(BatchOutput::Send(batch));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::HolderOptionsMs;

    fn at(ms: u64) -> Now {
        Now::from_micros(ms * 1000, 1_700_000_000_000_000 + ms * 1000)
    }

    fn spec(key: &str, lease_ms: u64) -> RenewalSpec<'_> {
        RenewalSpec {
            key,
            lease: Some(Micros::from_ms(lease_ms)),
            holder: None,
            body_chars: 100,
        }
    }

    fn holder(timeout_ms: f64, safe_for_ms: u64) -> HolderTiming {
        let options = HolderOptionsMs {
            request_timeout_ms: Some(timeout_ms),
            ..HolderOptionsMs::default()
        };
        let config = HolderConfig::from_ms(60_000.0, 1_000.0, options, 0).unwrap();
        HolderTiming::of(&config, Micros::from_ms(safe_for_ms))
    }

    fn batcher(max_delay_ms: Option<f64>, max_batch: Option<f64>) -> Batcher {
        Batcher::new(BatchConfig::from_ms(max_delay_ms, max_batch).unwrap())
    }

    fn drain(batcher: &mut Batcher) -> Vec<BatchOutput> {
        std::iter::from_fn(|| batcher.poll_output()).collect()
    }

    fn sent(outputs: &[BatchOutput]) -> Vec<Vec<RenewalId>> {
        outputs
            .iter()
            .filter_map(|o| match o {
                BatchOutput::Send(batch) => Some(batch.renewals.clone()),
                _ => None,
            })
            .collect()
    }

    fn only_batch(outputs: &[BatchOutput]) -> BatchId {
        let ids: Vec<BatchId> = outputs
            .iter()
            .filter_map(|o| match o {
                BatchOutput::Send(batch) => Some(batch.id),
                _ => None,
            })
            .collect();
        assert_eq!(ids.len(), 1, "{outputs:?}");
        ids[0]
    }

    #[test]
    fn an_unknown_holder_waits_a_sixth_of_its_lease_and_shares_the_batch() {
        let mut b = batcher(None, None);
        let first = b.enqueue(at(0), spec("a", 6_000));
        assert_eq!(b.poll_timeout(), Some(MonoTime(1_000_000)));
        let second = b.enqueue(at(200), spec("b", 60_000));
        // The most urgent decides for all.
        assert_eq!(b.poll_timeout(), Some(MonoTime(1_000_000)));
        b.handle_timeout(at(999));
        assert!(drain(&mut b).is_empty());
        b.handle_timeout(at(1_000));
        assert_eq!(sent(&drain(&mut b)), vec![vec![first, second]]);
        assert_eq!(b.poll_timeout(), None);
    }

    #[test]
    fn a_known_holder_waits_at_most_half_its_budget() {
        // Its request timeout is shorter than what is left of its lease.
        let short = holder(800.0, 5_000);
        assert_eq!(short.budget(), Micros::from_ms(800));
        // A renewal that fell due late (its margin starts in 300 ms) has less.
        assert_eq!(holder(800.0, 300).safe_delay(), Micros::from_ms(150));
        let mut b = batcher(Some(5_000.0), None);
        b.enqueue(
            at(0),
            RenewalSpec {
                holder: Some(short),
                ..spec("a", 10_000)
            },
        );
        assert_eq!(b.poll_timeout(), Some(MonoTime(400_000)));
        // Without its settings the same lease would wait the configured 5 s.
        assert_eq!(b.delay_for(&spec("b", 10_000)), Micros::from_ms(5_000));
    }

    #[test]
    fn max_delay_never_lengthens_a_known_holders_wait() {
        let roomy = holder(11_000.0, 11_000);
        let b = batcher(Some(1_000.0), None);
        let with = RenewalSpec {
            holder: Some(roomy),
            ..spec("a", 20_000)
        };
        assert_eq!(b.delay_for(&with), Micros::from_ms(1_000));
        assert_eq!(batcher(None, None).delay_for(&with), Micros::from_ms(5_500));
    }

    #[test]
    fn batch_delay_is_the_smallest_safe_delay() {
        let config =
            |lease, margin, options| HolderConfig::from_ms(lease, margin, options, 0).unwrap();
        let none = HolderOptionsMs::default();
        assert_eq!(
            batch_delay(&[config(15_000.0, 3_000.0, none)]),
            Some(Micros::from_ms(2_500))
        );
        assert_eq!(
            batch_delay(&[config(10_000.0, 6_000.0, none)]).map(Micros::as_ms_floor),
            Some(333)
        );
        let tuned = HolderOptionsMs {
            renew_interval_ms: Some(5_000.0),
            request_timeout_ms: Some(11_000.0),
            ..none
        };
        assert_eq!(
            batch_delay(&[
                config(20_000.0, 4_000.0, tuned),
                config(60_000.0, 10_000.0, none)
            ]),
            Some(Micros::from_ms(5_500))
        );
        assert_eq!(batch_delay(&[]), None);
    }

    #[test]
    fn a_full_queue_goes_at_once_and_batches_split_at_max_batch_and_size() {
        let mut b = batcher(Some(1_000.0), Some(3.0));
        let ids: Vec<RenewalId> = ["a", "b", "c"]
            .iter()
            .map(|k| b.enqueue(at(0), spec(k, 9_000)))
            .collect();
        assert_eq!(sent(&drain(&mut b)), vec![ids]);
        let mut b = batcher(Some(1_000.0), None);
        let big = |key| RenewalSpec {
            body_chars: MAX_BATCH_BODY_CHARS / 2,
            ..spec(key, 9_000)
        };
        let ids: Vec<RenewalId> = ["a", "b", "c"]
            .into_iter()
            .map(|k| b.enqueue(at(0), big(k)))
            .collect();
        b.handle_timeout(at(1_000));
        assert_eq!(
            sent(&drain(&mut b)),
            vec![vec![ids[0]], vec![ids[1]], vec![ids[2]]]
        );
    }

    #[test]
    fn each_result_settles_its_own_renewal_and_failures_make_the_next_urgent() {
        let mut b = batcher(Some(1_000.0), None);
        let ok = b.enqueue(at(0), spec("ok", 9_000));
        let bad = b.enqueue(at(0), spec("bad", 9_000));
        b.handle_timeout(at(1_000));
        let batch = only_batch(&drain(&mut b));
        b.handle_batch_reply(
            at(1_050),
            batch,
            &[
                ItemResult::Reply { renewed: true },
                ItemResult::Error(Some("storage_unavailable")),
            ],
        );
        assert_eq!(
            drain(&mut b),
            vec![
                BatchOutput::Settle(ok, RenewalSettlement::Reply { index: 0 }),
                BatchOutput::Settle(
                    bad,
                    RenewalSettlement::ElementFailed {
                        index: 1,
                        kind: FailureKind::Server
                    }
                ),
            ]
        );
        assert_eq!(b.delay_for(&spec("bad", 9_000)), Micros::ZERO);
        assert_eq!(b.delay_for(&spec("ok", 9_000)), Micros::from_ms(1_000));
        // A reply to a batch already settled changes nothing.
        b.handle_batch_reply(at(1_100), batch, &[]);
        assert!(drain(&mut b).is_empty());
    }

    #[test]
    fn a_reply_without_one_result_per_renewal_fails_them_all() {
        let mut b = batcher(Some(0.0), None);
        let a = b.enqueue(at(0), spec("a", 9_000));
        let c = b.enqueue(at(0), spec("c", 9_000));
        b.handle_timeout(at(0));
        let batch = only_batch(&drain(&mut b));
        b.handle_batch_reply(at(10), batch, &[ItemResult::Reply { renewed: true }]);
        assert_eq!(
            drain(&mut b),
            vec![
                BatchOutput::Settle(a, RenewalSettlement::Malformed),
                BatchOutput::Settle(c, RenewalSettlement::Malformed)
            ]
        );
    }

    #[test]
    fn an_abandoned_renewal_is_never_sent_and_teaches_a_cap_until_forgotten() {
        let mut b = batcher(Some(1_000.0), None);
        let dropped = b.enqueue(at(0), spec("a", 10_000));
        b.abandon(at(400), dropped);
        assert_eq!(
            drain(&mut b),
            vec![BatchOutput::Settle(dropped, RenewalSettlement::Abandoned)]
        );
        assert_eq!(b.poll_timeout(), None);
        // Its retry goes at once; once renewed, it waits at most half of what it had waited.
        let retry = b.enqueue(at(400), spec("a", 10_000));
        assert_eq!(b.poll_timeout(), Some(MonoTime(400_000)));
        b.handle_timeout(at(400));
        let batch = only_batch(&drain(&mut b));
        assert_eq!(b.queued(), 0);
        b.abandon(at(450), retry); // already sent: nothing to do
        b.handle_batch_reply(at(500), batch, &[ItemResult::Reply { renewed: true }]);
        drain(&mut b);
        assert_eq!(b.delay_for(&spec("a", 10_000)), Micros::from_ms(200));
        b.forget("a");
        assert_eq!(b.delay_for(&spec("a", 10_000)), Micros::from_ms(1_000));
    }

    #[test]
    fn a_grantor_without_the_route_gets_every_renewal_alone() {
        let mut b = batcher(Some(100.0), None);
        let first = b.enqueue(at(0), spec("a", 9_000));
        b.handle_timeout(at(100));
        let batch = only_batch(&drain(&mut b));
        let waiting = b.enqueue(at(110), spec("b", 9_000));
        b.handle_batch_failure(at(120), batch, BatchFailure::of(Some(501), None));
        assert_eq!(
            drain(&mut b),
            vec![
                BatchOutput::SendAlone(first),
                BatchOutput::SendAlone(waiting)
            ]
        );
        let later = b.enqueue(at(130), spec("c", 9_000));
        assert_eq!(drain(&mut b), vec![BatchOutput::SendAlone(later)]);
    }

    #[test]
    fn a_refused_size_goes_alone_once_and_other_failures_fail_each_renewal() {
        let mut b = batcher(Some(100.0), None);
        let a = b.enqueue(at(0), spec("a", 9_000));
        b.handle_timeout(at(100));
        let batch = only_batch(&drain(&mut b));
        b.handle_batch_failure(
            at(120),
            batch,
            BatchFailure::of(Some(413), Some("body_too_large")),
        );
        assert_eq!(drain(&mut b), vec![BatchOutput::SendAlone(a)]);
        let c = b.enqueue(at(200), spec("c", 9_000));
        b.handle_timeout(at(300));
        let batch = only_batch(&drain(&mut b));
        b.handle_batch_failure(at(320), batch, BatchFailure::of(Some(503), None));
        assert_eq!(
            drain(&mut b),
            vec![BatchOutput::Settle(c, RenewalSettlement::BatchFailed)]
        );
        assert_eq!(b.delay_for(&spec("c", 9_000)), Micros::ZERO);
        assert_eq!(
            BatchFailure::of(Some(404), Some("not_found")),
            BatchFailure::NoRoute
        );
        assert_eq!(BatchFailure::of(Some(404), None), BatchFailure::Failed);
        assert_eq!(BatchFailure::of(None, None), BatchFailure::Failed);
    }

    #[test]
    fn time_the_machine_slept_counts_towards_the_delay() {
        let mut b = batcher(Some(1_000.0), None);
        let a = b.enqueue(at(0), spec("a", 9_000));
        // The monotonic clock stood still while the wall clock moved 5 s.
        b.handle_timeout(Now::from_micros(10_000, 1_700_000_005_000_000));
        assert_eq!(sent(&drain(&mut b)), vec![vec![a]]);
    }

    #[test]
    fn element_codes_map_to_the_kinds_their_status_would() {
        assert_eq!(
            element_failure_kind(Some("rate_limited")),
            FailureKind::RateLimited
        );
        assert_eq!(
            element_failure_kind(Some("request_timeout")),
            FailureKind::TimedOut
        );
        assert_eq!(element_failure_kind(Some("internal")), FailureKind::Server);
        assert_eq!(
            element_failure_kind(Some("bad_lease_secret")),
            FailureKind::BadRequest
        );
        assert_eq!(element_failure_kind(None), FailureKind::BadRequest);
    }

    #[test]
    fn settings_are_checked_with_the_field_named() {
        let field = |delay, batch| BatchConfig::from_ms(delay, batch).unwrap_err().field;
        assert_eq!(field(Some(-1.0), None), "batchRenewals.maxDelayMs");
        assert_eq!(field(Some(f64::NAN), None), "batchRenewals.maxDelayMs");
        assert_eq!(field(Some(3e9), None), "batchRenewals.maxDelayMs");
        assert_eq!(field(None, Some(0.0)), "batchRenewals.maxBatch");
        assert_eq!(field(None, Some(10_001.0)), "batchRenewals.maxBatch");
        assert_eq!(field(None, Some(2.5)), "batchRenewals.maxBatch");
        assert_eq!(
            BatchConfig::from_ms(Some(0.0), None).unwrap().max_delay,
            Some(Micros::ZERO)
        );
        assert_eq!(
            BatchConfig::from_ms(None, None).unwrap().max_batch,
            MAX_BATCH_RENEWALS
        );
    }

    #[test]
    fn the_memory_bound_is_six_full_batches_rounded_up() {
        assert_eq!(REMEMBERED_LEASES, 65_536);
    }

    #[test]
    fn what_was_learned_stays_bounded() {
        let mut learned = LearnedMap::default();
        for i in 0..REMEMBERED_LEASES + 10 {
            learned.entry(&i.to_string()).unwrap().urgent = true;
        }
        assert_eq!(learned.entries.len(), REMEMBERED_LEASES);
        assert!(!learned.get("0").urgent);
        assert!(learned.get(&(REMEMBERED_LEASES + 9).to_string()).urgent);
    }
}
