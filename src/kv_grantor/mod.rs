//! A grantor whose state is records in a key-value store, for the grantors that live in the
//! platforms' own stores: a Durable Object's storage and Deno KV.
//!
//! Sans-IO, like the core: each request is decided from the records it names ([`Key`]), at a
//! time the caller passes in, and answered with its reply and the records to write back. The
//! caller reads the records and commits the writes atomically: a Durable Object in one storage
//! transaction, Deno KV in one atomic operation checked on the versionstamps it read (and, when
//! the check fails, decides again from fresh reads). Every decision is [`crate::rules`]'s, the
//! secrets are [`crate::secrets`]', and the requests are read by [`crate::requests`], so these
//! grantors answer as the reference grantor does.
//!
//! # Records
//!
//! - [`Key::Lease`]: a resource's [`LeaseRecord`]: its token counter and latest grant, how that
//!   grant stands, a handover preference, and the outcomes of its latest successful grant and
//!   renewal requests, so that a retry is answered as its first attempt was.
//! - [`Key::Fence`]: a resource's [`FenceRecord`]: the latest accepted fenced write.
//!
//! A lease record is never deleted: its counter is what makes every later token larger, across
//! restarts, evictions and processes.
//!
//! # Time
//!
//! `now_ms` is the grantor's wall clock, in ms since the Unix epoch: the one clock a Durable
//! Object, or every process sharing a Deno KV database, has in common. Expiries are stored on
//! it. Where grantors on different machines share one store, their clocks differ a little; a
//! grantor made with a `clock_skew_ms` bound counts every grant live for that much longer, in
//! every decision (grant, renewal, release, status), so that no grantor whose clock runs ahead
//! grants a resource that one running behind still counts as held. The store's own expiry of a
//! record (Deno KV's `expireIn`, which is only the earliest deletion) decides nothing.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{
    ErrorCode, ErrorReply, FencedReadReply, FencedWriteReply, FencedWriteRequest, GrantReply,
    GrantReplyWithSecret, GrantRequest, ReleaseReply, ReleaseRequest, RenewBatchResult, RenewReply,
    RenewRequest, RevokeReply, StatusReply, Token, WatchReply, MAX_BATCH_RESULT_BYTES,
    MAX_REQUEST_DURATION_MS,
};
use crate::requests::{self, Refusal};
use crate::rules::{self, Ending, GrantDecision, Handoff, LeaseState, LiveGrant, Recorded};
use crate::secrets::Secrets;

pub mod ops;
pub mod queues;
mod view;

pub use view::{Halt, Read, Reads, View};

/// How many outcomes of successful grant and renewal requests a lease record keeps for retries.
/// A retry of an older one is decided afresh, which is safe: a grant decided again is denied to
/// a holder that does not present its live grant's secret, or granted under a new, larger token;
/// a renewal decided again renews the same grant or is refused.
pub const OUTCOMES_KEPT: usize = 16;

/// A record's place in the store. Each binding spells it its own way (a Durable Object's string
/// key, a Deno KV key's parts) from [`Key::kind`] and [`Key::name`]; names of one kind sort as
/// their records should be listed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// A resource's [`LeaseRecord`].
    Lease(String),
    /// A resource's [`FenceRecord`].
    Fence(String),
    /// The last item id given out, by every queue: ids are unique across queues, as the claim
    /// secrets derived from them must be.
    ItemCounter,
    /// A work item's record ([`queues::ItemRecord`]).
    Item(u64),
    /// A queue's counts of items that reached a final state ([`queues::QueueRecord`]).
    Queue(String),
    /// The item a queue's dedupe key names.
    Dedupe {
        /// The queue.
        queue: String,
        /// The dedupe key.
        key: String,
    },
    /// The item a worker's claim request (by its id) was given, for answering its retry.
    ClaimRequest {
        /// The queue.
        queue: String,
        /// The worker.
        worker: String,
        /// The claim request's id.
        request_id: String,
    },
    /// An entry of a queue's due index: an item waiting to be claimed (due at 0) or claimed
    /// until `due_ms`, when it may be claimed again.
    Due {
        /// The queue.
        queue: String,
        /// When the item may be claimed, ms on the grantor's clock (0: now).
        due_ms: u64,
        /// The item.
        id: u64,
    },
}

/// Separates the parts of a composite name: names are printable ASCII, so it appears in none.
const PART: &str = "\n";

/// Decimal digits enough for any `u64`, zero-padded so that numbers sort as text.
fn padded(n: u64) -> String {
    let digits = n.to_string();
    ["0".repeat(20 - digits.len()), digits].concat()
}

impl Key {
    /// The kind of record, one short word.
    pub fn kind(&self) -> &'static str {
        match self {
            Key::Lease(_) => "lease",
            Key::Fence(_) => "fence",
            Key::ItemCounter => "items",
            Key::Item(_) => "item",
            Key::Queue(_) => "queue",
            Key::Dedupe { .. } => "dedupe",
            Key::ClaimRequest { .. } => "claim",
            Key::Due { .. } => "due",
        }
    }

    /// The record's name among those of its kind.
    pub fn name(&self) -> String {
        match self {
            Key::Lease(name) | Key::Fence(name) | Key::Queue(name) => name.clone(),
            Key::ItemCounter => String::new(),
            Key::Item(id) => padded(*id),
            Key::Dedupe { queue, key } => [queue, PART, key].concat(),
            Key::ClaimRequest {
                queue,
                worker,
                request_id,
            } => [queue, PART, worker, PART, request_id].concat(),
            Key::Due { queue, due_ms, id } => {
                [queue, PART, &padded(*due_ms), PART, &padded(*id)].concat()
            }
        }
    }

    /// The key of kind `kind` named `name`, as a binding reads it back from a range.
    pub fn parse(kind: &str, name: &str) -> Option<Key> {
        let number = |text: &str| text.parse::<u64>().ok().filter(|_| text.len() == 20);
        Some(match kind {
            "lease" => Key::Lease(name.to_owned()),
            "fence" => Key::Fence(name.to_owned()),
            "items" if name.is_empty() => Key::ItemCounter,
            "item" => Key::Item(number(name)?),
            "queue" => Key::Queue(name.to_owned()),
            "due" => {
                let mut parts = name.split(PART);
                let (queue, due, id) = (parts.next()?, parts.next()?, parts.next()?);
                if parts.next().is_some() {
                    return None;
                }
                Key::Due {
                    queue: queue.to_owned(),
                    due_ms: number(due)?,
                    id: number(id)?,
                }
            }
            _ => return None,
        })
    }
}

/// What the store holds about a resource's leases.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseRecord {
    /// The resource's counter: its latest grant's token.
    pub token: u64,
    /// Who received the latest grant.
    pub holder: String,
    /// How the latest grant stands.
    pub state: LeaseState,
    /// When the latest grant runs out (while `state` is held), ms on the grantor's clock.
    pub expires_at_ms: u64,
    /// The latest grant's duration, as granted or last renewed: how long a handover keeps it.
    pub duration_ms: u64,
    /// The latest revoked grant's token, so that its holder learns `revoked` after a newer grant.
    #[serde(default)]
    pub revoked_token: Option<u64>,
    /// The latest revoked grant's holder.
    #[serde(default)]
    pub revoked_holder: Option<String>,
    /// The holder a release handed the resource to.
    #[serde(default)]
    pub handed_to: Option<String>,
    /// Until when the resource is kept for `handed_to`, ms on the grantor's clock.
    #[serde(default)]
    pub handoff_until_ms: Option<u64>,
    /// The outcomes of the latest successful grant and renewal requests, oldest first, at most
    /// [`OUTCOMES_KEPT`].
    #[serde(default)]
    pub outcomes: Vec<Outcome>,
}

/// A successful grant or renewal request, kept so that its retry is answered as it was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The requesting holder.
    pub holder: String,
    /// The request's id.
    pub request_id: String,
    /// The request as first received (its JSON text, secret left out), to tell a retry from a
    /// reuse of the id for another request.
    pub request: String,
    /// What it was answered.
    pub reply: Replied,
}

/// The reply an [`Outcome`] kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "reply")]
pub enum Replied {
    /// A grant's reply.
    Grant(GrantReply),
    /// A renewal's reply.
    Renew(RenewReply),
}

/// The latest accepted fenced write of a resource. `P` is the payload, kept as the binding
/// stores it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FenceRecord<P> {
    /// The payload written.
    pub payload: P,
    /// The token that wrote it.
    pub last_token: u64,
}

/// A request's reply, and the record to write back in the same commit (none: nothing changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided<R, W> {
    /// The reply.
    pub reply: R,
    /// The record to write.
    pub write: Option<W>,
}

impl<R, W> Decided<R, W> {
    fn read_only(reply: R) -> Decided<R, W> {
        Decided { reply, write: None }
    }
}

/// The durations a grantor grants: a request's `durationMs` is clamped into this range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurationLimits {
    /// Shortest duration granted, in ms.
    pub min_ms: u64,
    /// Longest duration granted, in ms.
    pub max_ms: u64,
}

impl DurationLimits {
    /// The range `min_ms..=max_ms`, if `1 <= min_ms <= max_ms <= MAX_REQUEST_DURATION_MS`.
    pub fn new(min_ms: u64, max_ms: u64) -> Option<DurationLimits> {
        (1 <= min_ms && min_ms <= max_ms && max_ms <= MAX_REQUEST_DURATION_MS)
            .then_some(DurationLimits { min_ms, max_ms })
    }

    fn clamp(self, duration_ms: u64) -> u64 {
        duration_ms.clamp(self.min_ms, self.max_ms)
    }
}

/// The grantor's decisions over lease and fence records. Holds no state of its own: a Durable
/// Object, or each of many Deno processes, makes one from its server key and settings.
#[derive(Clone, Debug)]
pub struct KvGrantor {
    secrets: Secrets,
    limits: DurationLimits,
    clock_skew_ms: u64,
    default_max_attempts: u32,
}

impl KvGrantor {
    /// A grantor deriving secrets with `secrets`, granting durations within `limits`, and
    /// counting every grant live `clock_skew_ms` longer than its expiry (see the module's
    /// documentation; 0 where one clock decides everything, as in a Durable Object).
    pub fn new(secrets: Secrets, limits: DurationLimits, clock_skew_ms: u64) -> KvGrantor {
        KvGrantor {
            secrets,
            limits,
            clock_skew_ms,
            default_max_attempts: crate::protocol::DEFAULT_MAX_ATTEMPTS,
        }
    }

    /// The same grantor, giving `max_attempts` claims to an item whose enqueue names no limit.
    pub fn with_max_attempts(mut self, max_attempts: u32) -> KvGrantor {
        self.default_max_attempts = max_attempts;
        self
    }

    /// How long the record's grant has left at `now_ms`, if it is recorded as held and live.
    fn time_left(&self, record: &LeaseRecord, now_ms: u64) -> Option<Duration> {
        if record.state != LeaseState::Held {
            return None;
        }
        let until = micros(record.expires_at_ms.saturating_add(self.clock_skew_ms));
        rules::time_left(until, micros(now_ms))
    }

    fn live<'a>(&self, record: Option<&'a LeaseRecord>, now_ms: u64) -> Option<LiveGrant<'a>> {
        let record = record?;
        recorded(record).live(self.time_left(record, now_ms))
    }

    /// `live` (the record's live grant) as a retry's reply may promise it: with the time left
    /// before the recorded expiry, without the skew bound. The holder counts the reply from the
    /// retry's send, and a grantor whose clock runs ahead of this one's by the skew bound grants
    /// the resource again as soon as the recorded expiry has passed on this clock: counting the
    /// skew in would promise up to that much more than the grant has.
    fn promisable<'a>(
        &self,
        live: Option<LiveGrant<'a>>,
        record: Option<&LeaseRecord>,
        now_ms: u64,
    ) -> Option<LiveGrant<'a>> {
        let until = micros(record?.expires_at_ms);
        let remaining = rules::time_left(until, micros(now_ms)).unwrap_or(Duration::ZERO);
        live.map(|live| LiveGrant { remaining, ..live })
    }

    fn handoff<'a>(&self, record: Option<&'a LeaseRecord>, now_ms: u64) -> Option<Handoff<'a>> {
        let record = record?;
        let to = record.handed_to.as_deref()?;
        let until = micros(record.handoff_until_ms?);
        Some(Handoff {
            to,
            remaining: rules::time_left(until, micros(now_ms))?,
        })
    }

    /// `POST /v1/grant`, given the resource's lease record.
    pub fn grant(
        &self,
        req: &GrantRequest,
        lease: Option<&LeaseRecord>,
        now_ms: u64,
    ) -> Result<Decided<GrantReplyWithSecret, LeaseRecord>, Refusal> {
        let request = requests::grant_fingerprint(req).map_err(unkeepable)?;
        let live = self.live(lease, now_ms);
        match previous(lease, &req.holder, &req.request_id, &request)? {
            Some(Replied::Grant(stored)) => {
                let live = self.promisable(live, lease, now_ms);
                let reply = rules::replayed_grant(stored, &req.holder, live);
                return Ok(Decided::read_only(self.with_secret(&req.resource, reply)));
            }
            Some(Replied::Renew(_)) => return Err(Refusal::request_id_reused()),
            None => {}
        }
        let proof = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret.clone());
        let duration_ms = self.limits.clamp(req.duration_ms);
        let decision = rules::grant_handed(
            lease.map_or(0, |r| r.token),
            live,
            self.handoff(lease, now_ms),
            &req.holder,
            |token| proof.proves(token),
            duration_ms,
        )?;
        let GrantDecision::Grant {
            token,
            kept_ms,
            reply,
        } = decision
        else {
            // A denial changes nothing, so it is not kept: its retry is decided afresh, as if
            // the first attempt had been lost.
            let GrantDecision::Deny(reply) = decision else {
                unreachable!("a decision is a grant or a denial")
            };
            return Ok(Decided::read_only(self.with_secret(&req.resource, reply)));
        };
        let mut record = LeaseRecord {
            token: token.get(),
            holder: req.holder.clone(),
            state: LeaseState::Held,
            expires_at_ms: now_ms.saturating_add(kept_ms),
            duration_ms: kept_ms,
            revoked_token: lease.and_then(|r| r.revoked_token),
            revoked_holder: lease.and_then(|r| r.revoked_holder.clone()),
            handed_to: None,
            handoff_until_ms: None,
            outcomes: lease.map(|r| r.outcomes.clone()).unwrap_or_default(),
        };
        keep(&mut record, req, request, Replied::Grant(reply.clone()));
        Ok(Decided {
            reply: self.with_secret(&req.resource, reply),
            write: Some(record),
        })
    }

    /// A grant reply as sent: with the grant's secret when it grants.
    fn with_secret(&self, resource: &str, reply: GrantReply) -> GrantReplyWithSecret {
        let lease_secret = reply
            .token
            .filter(|_| reply.granted)
            .map(|token| self.secrets.lease(resource, token.get()));
        GrantReplyWithSecret {
            reply,
            lease_secret,
        }
    }

    /// `POST /v1/renew`, given the resource's lease record.
    pub fn renew(
        &self,
        req: &RenewRequest,
        lease: Option<&LeaseRecord>,
        now_ms: u64,
    ) -> Result<Decided<RenewReply, LeaseRecord>, Refusal> {
        let request = requests::renew_fingerprint(req).map_err(unkeepable)?;
        let proven = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret.clone())
            .proves(req.token.get());
        let live = self.live(lease, now_ms);
        match previous(lease, &req.holder, &req.request_id, &request)? {
            Some(Replied::Renew(stored)) => {
                let live = self.promisable(live, lease, now_ms);
                let reply = rules::replayed_renewal(stored, &req.holder, live, proven)?;
                return Ok(Decided::read_only(reply));
            }
            Some(Replied::Grant(_)) => return Err(Refusal::request_id_reused()),
            None => {}
        }
        let duration_ms = self.limits.clamp(req.duration_ms);
        let reply = rules::renew(
            lease.map(recorded),
            &req.holder,
            req.token,
            live.is_some(),
            proven,
            duration_ms,
        )?;
        let Some(lease) = lease.filter(|_| reply.renewed) else {
            // A refusal changes nothing and is final: its retry is refused again.
            return Ok(Decided::read_only(reply));
        };
        let mut record = LeaseRecord {
            expires_at_ms: now_ms.saturating_add(duration_ms),
            duration_ms,
            ..lease.clone()
        };
        keep(&mut record, req, request, Replied::Renew(reply.clone()));
        Ok(Decided {
            reply,
            write: Some(record),
        })
    }

    /// `POST /v1/renew/batch`: each of `renewals` (as parsed, or refused) renewed in order, as
    /// if sent one by one, over `leases`, which holds the lease record of every resource named
    /// (`None`: none stored). `leases` is updated with every record written, and the resources
    /// whose records changed are returned with the results, to be committed together.
    pub fn renew_batch(
        &self,
        renewals: Vec<Result<RenewRequest, Refusal>>,
        leases: &mut BTreeMap<String, Option<LeaseRecord>>,
        now_ms: u64,
    ) -> (Vec<RenewBatchResult>, Vec<String>) {
        let mut changed = Vec::new();
        let results = renewals
            .into_iter()
            .map(|renewal| {
                let renewed = renewal.and_then(|req| {
                    let lease = leases.get(&req.resource).and_then(Option::as_ref);
                    let decided = self.renew(&req, lease, now_ms)?;
                    if let Some(record) = decided.write {
                        if !changed.contains(&req.resource) {
                            changed.push(req.resource.clone());
                        }
                        leases.insert(req.resource, Some(record));
                    }
                    Ok(decided.reply)
                });
                match renewed {
                    Ok(reply) => RenewBatchResult::Reply(reply),
                    // Within the protocol's room for a result (less its comma), as the
                    // reference grantor cuts it.
                    Err(e) => RenewBatchResult::Error(
                        ErrorReply::new(e.code, e.message).within(MAX_BATCH_RESULT_BYTES - 1),
                    ),
                }
            })
            .collect();
        (results, changed)
    }

    /// `POST /v1/release`, given the resource's lease record.
    pub fn release(
        &self,
        req: &ReleaseRequest,
        lease: Option<&LeaseRecord>,
        now_ms: u64,
    ) -> Result<Decided<ReleaseReply, LeaseRecord>, Refusal> {
        let Some(record) = lease else {
            return Ok(Decided::read_only(ReleaseReply { released: false }));
        };
        let held = record.state == LeaseState::Held
            && record.token == req.token.get()
            && record.holder == req.holder;
        let proven = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret.clone())
            .proves(req.token.get());
        let live = self.time_left(record, now_ms).is_some();
        let ending = rules::release(held, live, proven)?;
        // Only a release that ends the live grant can hand the resource over.
        let handoff = req.hand_to.as_deref().and_then(|to| {
            rules::handoff_ms(ending, record.duration_ms).map(|ms| (to.to_owned(), ms))
        });
        // A grant that already ran out is recorded as expired: its holder did not give it back.
        let (state, released) = match ending {
            Ending::NotHeld => return Ok(Decided::read_only(ReleaseReply { released: false })),
            Ending::RanOut => (LeaseState::Expired, false),
            Ending::Ends => (LeaseState::Released, true),
        };
        let (handed_to, handoff_until_ms) = match handoff {
            Some((to, ms)) => (Some(to), Some(now_ms.saturating_add(ms))),
            None => (None, None),
        };
        Ok(Decided {
            reply: ReleaseReply { released },
            write: Some(LeaseRecord {
                state,
                handed_to,
                handoff_until_ms,
                ..record.clone()
            }),
        })
    }

    /// `POST /v1/revoke`, given the resource's lease record: ends the current grant whoever
    /// holds it. The counter is kept, so the next grant gets a larger token.
    pub fn revoke(
        &self,
        lease: Option<&LeaseRecord>,
        now_ms: u64,
    ) -> Decided<RevokeReply, LeaseRecord> {
        let Some(record) = lease else {
            return Decided::read_only(RevokeReply { revoked: false });
        };
        let live = self.time_left(record, now_ms).is_some();
        let write = match rules::revoke(record.state == LeaseState::Held, live) {
            Ending::NotHeld => return Decided::read_only(RevokeReply { revoked: false }),
            Ending::RanOut => LeaseRecord {
                state: LeaseState::Expired,
                ..record.clone()
            },
            Ending::Ends => LeaseRecord {
                state: LeaseState::Revoked,
                revoked_token: Some(record.token),
                revoked_holder: Some(record.holder.clone()),
                ..record.clone()
            },
        };
        Decided {
            reply: RevokeReply {
                revoked: write.state == LeaseState::Revoked,
            },
            write: Some(write),
        }
    }

    /// `/v1/status`, given the resource's lease record.
    pub fn status(
        &self,
        resource: &str,
        lease: Option<&LeaseRecord>,
        now_ms: u64,
    ) -> Result<StatusReply, Refusal> {
        let live = self.live(lease, now_ms);
        Ok(StatusReply {
            resource: resource.to_owned(),
            holder: live.map(|l| l.holder.to_owned()),
            token: live.map(|l| live_token(l.token)).transpose()?,
            expires_in_ms: live.map(|l| rules::expires_in_ms(l.remaining)),
        })
    }

    /// What a watch of `resource` reports now ([`rules::watch_reply`]); whether to answer or
    /// wait is [`rules::watch_step`]'s, the waiting the binding's.
    pub fn watch(
        &self,
        resource: &str,
        lease: Option<&LeaseRecord>,
        now_ms: u64,
    ) -> Result<WatchReply, Refusal> {
        Ok(rules::watch_reply(
            resource,
            lease.map_or(0, |r| r.token),
            self.live(lease, now_ms),
            self.handoff(lease, now_ms),
        )?)
    }

    /// `POST /v1/fenced/write`, given the resource's fence record: the design's fenced write,
    /// storing the payload unless a larger token already wrote. A write that would be accepted
    /// needs the secret of the grant with its token; one fenced out is answered as usual.
    pub fn fenced_write<P>(
        &self,
        req: FencedWriteRequest<P>,
        fence: Option<&FenceRecord<P>>,
    ) -> Result<Decided<FencedWriteReply, FenceRecord<P>>, Refusal> {
        let incoming = req.token;
        let last = fence.map(|f| f.last_token);
        if let Some(last) = last.filter(|&last| last > incoming.get()) {
            return Ok(Decided::read_only(FencedWriteReply {
                accepted: false,
                last_token: live_token(last)?,
            }));
        }
        let proven = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret)
            .proves(incoming.get());
        if !proven {
            return Err(Refusal::bad_lease_secret());
        }
        Ok(Decided {
            reply: FencedWriteReply {
                accepted: true,
                last_token: incoming,
            },
            write: Some(FenceRecord {
                payload: req.payload,
                last_token: incoming.get(),
            }),
        })
    }

    /// `POST /v1/fenced/read`, given the resource's fence record.
    pub fn fenced_read<P: Clone>(
        &self,
        fence: Option<&FenceRecord<P>>,
    ) -> Result<FencedReadReply<P>, Refusal> {
        Ok(FencedReadReply {
            payload: fence.map(|f| f.payload.clone()),
            last_token: fence.map(|f| live_token(f.last_token)).transpose()?,
        })
    }
}

/// `ms` in microseconds, the unit [`rules::Moment`] compares `u64` instants in.
fn micros(ms: u64) -> u64 {
    ms.saturating_mul(1000)
}

/// The record as the shared rules read it.
fn recorded(record: &LeaseRecord) -> Recorded<'_> {
    Recorded {
        token: record.token,
        holder: Some(&record.holder),
        state: record.state,
        revoked_token: record.revoked_token,
        revoked_holder: record.revoked_holder.as_deref(),
    }
}

/// A stored token as the wire carries it; a record holding one past `MAX_TOKEN` was not written
/// by a grantor.
fn live_token(token: u64) -> Result<Token, Refusal> {
    Token::new(token).map_err(|_| Refusal::token_exhausted())
}

/// A request that could not be written as JSON to keep its outcome: none of the protocol's.
fn unkeepable(_: serde_json::Error) -> Refusal {
    Refusal::new(ErrorCode::Internal, "the request could not be kept")
}

/// The kept outcome of the request `holder` sent with `request_id`, if any; a reuse of the id
/// for another request is refused.
fn previous(
    lease: Option<&LeaseRecord>,
    holder: &str,
    request_id: &str,
    request: &str,
) -> Result<Option<Replied>, Refusal> {
    let Some(kept) = lease.and_then(|r| {
        r.outcomes
            .iter()
            .find(|o| o.holder == holder && o.request_id == request_id)
    }) else {
        return Ok(None);
    };
    if kept.request != request {
        return Err(Refusal::request_id_reused());
    }
    Ok(Some(kept.reply.clone()))
}

/// What a grant or renewal request names that [`keep`] files its outcome under.
trait Requested {
    fn holder(&self) -> &str;
    fn request_id(&self) -> &str;
}

impl Requested for GrantRequest {
    fn holder(&self) -> &str {
        &self.holder
    }
    fn request_id(&self) -> &str {
        &self.request_id
    }
}

impl Requested for RenewRequest {
    fn holder(&self) -> &str {
        &self.holder
    }
    fn request_id(&self) -> &str {
        &self.request_id
    }
}

/// Keeps a successful request's outcome in `record`, dropping the oldest past [`OUTCOMES_KEPT`].
fn keep(record: &mut LeaseRecord, req: &impl Requested, request: String, reply: Replied) {
    if record.outcomes.len() >= OUTCOMES_KEPT {
        record.outcomes.remove(0);
    }
    record.outcomes.push(Outcome {
        holder: req.holder().to_owned(),
        request_id: req.request_id().to_owned(),
        request,
        reply,
    });
}

#[cfg(test)]
mod tests;
