//! The protocol's routes over [`KvGrantor`]: a request read from its path and JSON body
//! ([`Op::parse`]), the records it reads first ([`Op::reads`]), and its decision from what was
//! read ([`Op::decide`]): more to read, or the reply's status and JSON text with the records to
//! write (as JSON text; `None` deletes) in one atomic commit. A binding needs nothing else to
//! serve the protocol from a key-value store: it reads, decides, commits and answers.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::view::{to_json, Halt, Read, Reads, View};
use super::{Decided, FenceRecord, Key, KvGrantor, LeaseRecord};
use crate::protocol::{
    ClaimRequest, CompleteRequest, EnqueueReply, EnqueueRequest, ErrorCode, ErrorReply,
    FailRequest, FencedReadRequest, FencedWriteRequest, GrantRequest, HeartbeatRequest,
    ItemRequest, QueueStatsRequest, ReleaseRequest, RenewBatchReply, RenewRequest, RevokeRequest,
    StatusRequest, WatchRequest,
};
use crate::requests::{parse_request, BatchBody, Refusal, MAX_BATCH_BODY_BYTES, MAX_BODY_BYTES};
use crate::rules::{self, WatchStep};

/// The protocol's routes, every one `POST`.
pub const ROUTES: [&str; 16] = [
    "/v1/grant",
    "/v1/renew",
    "/v1/renew/batch",
    "/v1/release",
    "/v1/status",
    "/v1/watch",
    "/v1/revoke",
    "/v1/fenced/write",
    "/v1/fenced/read",
    "/v1/queues/enqueue",
    "/v1/queues/claim",
    "/v1/queues/heartbeat",
    "/v1/queues/complete",
    "/v1/queues/fail",
    "/v1/queues/stats",
    "/v1/queues/item",
];

/// The renewals of a batch committed together on a store of small commits ([`Op::split`]):
/// each may check and write one lease record of up to about 57 KB (the longest names, escaped,
/// in every outcome kept), so ten stay within 100 checks and 800 KiB.
pub const RENEWALS_PER_PART: usize = 10;

/// The items of an enqueue committed together on a store of small commits ([`Op::split`]):
/// each may check a dedupe key and write an item (its payload under 64 KiB), its due entry and
/// its dedupe key, with the counter besides: ten stay within 100 checks, 1,000 mutations and
/// 800 KiB.
pub const ITEMS_PER_PART: usize = 10;

/// A request, read and checked, to be decided.
#[derive(Clone, Debug)]
pub enum Op {
    /// `POST /v1/grant`.
    Grant(GrantRequest),
    /// `POST /v1/renew`.
    Renew(RenewRequest),
    /// `POST /v1/renew/batch`: each element as read on its own.
    RenewBatch(Vec<Result<RenewRequest, Refusal>>),
    /// `POST /v1/release`.
    Release(ReleaseRequest),
    /// `POST /v1/status`.
    Status(StatusRequest),
    /// `POST /v1/watch`.
    Watch(WatchRequest),
    /// `POST /v1/revoke`.
    Revoke(RevokeRequest),
    /// `POST /v1/fenced/write`.
    FencedWrite(FencedWriteRequest<Value>),
    /// `POST /v1/fenced/read`.
    FencedRead(FencedReadRequest),
    /// `POST /v1/queues/enqueue`.
    Enqueue(EnqueueRequest<Value>),
    /// `POST /v1/queues/claim`.
    Claim(ClaimRequest),
    /// `POST /v1/queues/heartbeat`.
    Heartbeat(HeartbeatRequest),
    /// `POST /v1/queues/complete`.
    Complete(CompleteRequest<Value>),
    /// `POST /v1/queues/fail`.
    Fail(FailRequest<Value>),
    /// `POST /v1/queues/stats`.
    QueueStats(QueueStatsRequest),
    /// `POST /v1/queues/item`.
    Item(ItemRequest),
}

/// What to do next with a request being decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Read these too, then decide again with everything read.
    Read(Vec<Read>),
    /// Commit `writes` (each record's key and JSON text; `None` deletes) atomically, checked on
    /// every record read, then answer `status` with the JSON text `body`. No writes: answer at
    /// once.
    Reply {
        /// The HTTP status.
        status: u16,
        /// The reply's JSON text.
        body: String,
        /// The records to write.
        writes: Vec<(Key, Option<String>)>,
    },
    /// A watch that has seen the current state: wait until `key`'s record changes, or `recheck`
    /// passes (the moment a live grant would run out, which nothing signals), then decide it
    /// again from fresh reads; when the watch's own wait ([`Op::watch_wait`]) is over first,
    /// answer `body` (the unchanged state) with status 200.
    Wait {
        /// The record whose change ends the wait.
        key: Key,
        /// When to decide again even without a change.
        recheck: Option<Duration>,
        /// The reply if the watch's wait runs out first.
        body: String,
    },
}

impl Step {
    /// The reply to a refused request: its code's status and error body, and nothing written.
    pub fn refused(refusal: Refusal) -> Step {
        Step::Reply {
            status: refusal.code.http_status(),
            body: to_json(&ErrorReply::new(refusal.code, refusal.message)),
            writes: Vec::new(),
        }
    }
}

impl Op {
    /// Reads `POST path` with `body`: the route, then the body as the reference grantor reads
    /// it ([`parse_request`]); anything unreadable or not allowed is refused.
    pub fn parse(path: &str, body: &[u8]) -> Result<Op, Refusal> {
        let limit = if path == "/v1/renew/batch" {
            MAX_BATCH_BODY_BYTES
        } else {
            MAX_BODY_BYTES
        };
        if body.len() > limit {
            return Err(Refusal::new(
                ErrorCode::BodyTooLarge,
                ["the body exceeds ", &limit.to_string(), " bytes"].concat(),
            ));
        }
        Ok(match path {
            "/v1/grant" => Op::Grant(parse_request(body)?),
            "/v1/renew" => Op::Renew(parse_request(body)?),
            "/v1/renew/batch" => {
                let batch: BatchBody = parse_request(body)?;
                Op::RenewBatch(batch.elements().collect())
            }
            "/v1/release" => Op::Release(parse_request(body)?),
            "/v1/status" => Op::Status(parse_request(body)?),
            "/v1/watch" => Op::Watch(parse_request(body)?),
            "/v1/revoke" => Op::Revoke(parse_request(body)?),
            "/v1/fenced/write" => Op::FencedWrite(parse_request(body)?),
            "/v1/fenced/read" => Op::FencedRead(parse_request(body)?),
            "/v1/queues/enqueue" => Op::Enqueue(parse_request(body)?),
            "/v1/queues/claim" => Op::Claim(parse_request(body)?),
            "/v1/queues/heartbeat" => Op::Heartbeat(parse_request(body)?),
            "/v1/queues/complete" => Op::Complete(parse_request(body)?),
            "/v1/queues/fail" => Op::Fail(parse_request(body)?),
            "/v1/queues/stats" => Op::QueueStats(parse_request(body)?),
            "/v1/queues/item" => Op::Item(parse_request(body)?),
            _ => return Err(Refusal::new(ErrorCode::NotFound, "no such route")),
        })
    }

    /// The request as parts to decide and commit one after another, for a store whose atomic
    /// commits are small (Deno KV: at most 100 checks, 1,000 mutations and 800 KiB each): a
    /// renewal batch in parts of [`RENEWALS_PER_PART`] renewals, an enqueue in parts of
    /// [`ITEMS_PER_PART`] items; any other request whole. Renewals in a batch are independent
    /// (each is answered as if sent alone), so parts lose nothing; an enqueue's parts each
    /// commit their items, so a failure part-way leaves the earlier parts enqueued (their
    /// retry with the same dedupe keys enqueues nothing twice). Join the parts' replies with
    /// [`Op::join`].
    pub fn split(self) -> Vec<Op> {
        match self {
            Op::RenewBatch(reqs) if reqs.len() > RENEWALS_PER_PART => reqs
                .chunks(RENEWALS_PER_PART)
                .map(|part| Op::RenewBatch(part.to_vec()))
                .collect(),
            Op::Enqueue(req) if req.items.len() > ITEMS_PER_PART => req
                .items
                .chunks(ITEMS_PER_PART)
                .map(|part| {
                    Op::Enqueue(EnqueueRequest {
                        queue: req.queue.clone(),
                        items: part.to_vec(),
                    })
                })
                .collect(),
            op => vec![op],
        }
    }

    /// The reply to a request decided in parts ([`Op::split`]), from the parts' reply bodies in
    /// order: their results (renewals) or items (enqueues) in order.
    pub fn join(&self, bodies: &[String]) -> Result<String, Refusal> {
        let unreadable = || Refusal::new(ErrorCode::Internal, "a part's reply is unreadable");
        match self {
            Op::RenewBatch(_) => {
                let mut results = Vec::new();
                for body in bodies {
                    let part: RenewBatchReply =
                        serde_json::from_str(body).map_err(|_| unreadable())?;
                    results.extend(part.results);
                }
                Ok(to_json(&RenewBatchReply { results }))
            }
            Op::Enqueue(_) => {
                let mut items = Vec::new();
                for body in bodies {
                    let part: EnqueueReply =
                        serde_json::from_str(body).map_err(|_| unreadable())?;
                    items.extend(part.items);
                }
                Ok(to_json(&EnqueueReply { items }))
            }
            _ => bodies.first().cloned().ok_or_else(unreadable),
        }
    }

    /// The records read first (the rest, if any, [`Op::decide`] asks for).
    pub fn reads(&self) -> Vec<Read> {
        let lease = |resource: &str| vec![Read::Get(Key::Lease(resource.to_owned()))];
        let item = |id: u64, queue: &str| {
            vec![
                Read::Get(Key::Item(id)),
                Read::Get(Key::Queue(queue.to_owned())),
            ]
        };
        match self {
            Op::Grant(req) => lease(&req.resource),
            Op::Renew(req) => lease(&req.resource),
            Op::RenewBatch(reqs) => {
                let mut keys: Vec<Read> = reqs
                    .iter()
                    .flatten()
                    .map(|req| Read::Get(Key::Lease(req.resource.clone())))
                    .collect();
                keys.sort();
                keys.dedup();
                keys
            }
            Op::Release(req) => lease(&req.resource),
            Op::Status(req) => lease(&req.resource),
            Op::Watch(req) => lease(&req.resource),
            Op::Revoke(req) => lease(&req.resource),
            Op::FencedWrite(req) => vec![Read::Get(Key::Fence(req.resource.clone()))],
            Op::FencedRead(req) => vec![Read::Get(Key::Fence(req.resource.clone()))],
            Op::Enqueue(_) => vec![Read::Get(Key::ItemCounter)],
            Op::Claim(req) => vec![Read::Get(Key::Queue(req.queue.clone()))],
            Op::Heartbeat(req) => item(req.item_id, &req.queue),
            Op::Complete(req) => item(req.item_id, &req.queue),
            Op::Fail(req) => item(req.item_id, &req.queue),
            Op::QueueStats(req) => vec![Read::Get(Key::Queue(req.queue.clone()))],
            Op::Item(req) => item(req.item_id, &req.queue),
        }
    }

    /// How long a watch may wait for a change ([`rules::watch_wait`]); `None` for any other
    /// request.
    pub fn watch_wait(&self) -> Option<Duration> {
        match self {
            Op::Watch(req) => Some(rules::watch_wait(req.wait_ms)),
            _ => None,
        }
    }

    /// Decides the request at `now_ms` from `reads`. A refusal is a [`Step::Reply`] too
    /// ([`Step::refused`]), and writes nothing.
    pub fn decide(&self, grantor: &KvGrantor, reads: &Reads, now_ms: u64) -> Step {
        let mut view = View::new(reads);
        match self.decided(grantor, &mut view, now_ms) {
            Ok(Decision::Reply(status, body)) => Step::Reply {
                status,
                body,
                writes: view.into_writes(),
            },
            Ok(Decision::Wait(key, recheck, body)) => Step::Wait { key, recheck, body },
            Err(Halt::Read(reads)) => Step::Read(reads),
            Err(Halt::Refused(refusal)) => Step::refused(refusal),
        }
    }

    fn decided(
        &self,
        grantor: &KvGrantor,
        view: &mut View<'_>,
        now_ms: u64,
    ) -> Result<Decision, Halt> {
        let lease_key = |resource: &str| Key::Lease(resource.to_owned());
        let lease = |view: &View<'_>, resource: &str| view.get::<LeaseRecord>(&lease_key(resource));
        match self {
            Op::Grant(req) => {
                let record = lease(view, &req.resource)?;
                let decided = grantor.grant(req, record.as_ref(), now_ms)?;
                Ok(write_lease(view, decided, &req.resource))
            }
            Op::Renew(req) => {
                let record = lease(view, &req.resource)?;
                let decided = grantor.renew(req, record.as_ref(), now_ms)?;
                Ok(write_lease(view, decided, &req.resource))
            }
            Op::RenewBatch(reqs) => {
                let mut leases = BTreeMap::new();
                for req in reqs.iter().flatten() {
                    leases.insert(req.resource.clone(), lease(view, &req.resource)?);
                }
                let (results, changed) = grantor.renew_batch(reqs.clone(), &mut leases, now_ms);
                for resource in changed {
                    if let Some(Some(record)) = leases.get(&resource) {
                        view.put(lease_key(&resource), record);
                    }
                }
                Ok(ok(&RenewBatchReply { results }))
            }
            Op::Release(req) => {
                let record = lease(view, &req.resource)?;
                let decided = grantor.release(req, record.as_ref(), now_ms)?;
                Ok(write_lease(view, decided, &req.resource))
            }
            Op::Status(req) => {
                let record = lease(view, &req.resource)?;
                Ok(ok(&grantor.status(
                    &req.resource,
                    record.as_ref(),
                    now_ms,
                )?))
            }
            Op::Watch(req) => {
                let record = lease(view, &req.resource)?;
                let reply = grantor.watch(&req.resource, record.as_ref(), now_ms)?;
                Ok(match rules::watch_step(req.after, &reply) {
                    WatchStep::Answer => ok(&reply),
                    WatchStep::Wait { recheck } => {
                        Decision::Wait(lease_key(&req.resource), recheck, to_json(&reply))
                    }
                })
            }
            Op::Revoke(req) => {
                let record = lease(view, &req.resource)?;
                let decided = grantor.revoke(record.as_ref(), now_ms);
                Ok(write_lease(view, decided, &req.resource))
            }
            Op::FencedWrite(req) => {
                let key = Key::Fence(req.resource.clone());
                let fence = view.get::<FenceRecord<Value>>(&key)?;
                let decided = grantor.fenced_write(req.clone(), fence.as_ref())?;
                if let Some(record) = &decided.write {
                    view.put(key, record);
                }
                Ok(ok(&decided.reply))
            }
            Op::FencedRead(req) => {
                let fence = view.get::<FenceRecord<Value>>(&Key::Fence(req.resource.clone()))?;
                Ok(ok(&grantor.fenced_read(fence.as_ref())?))
            }
            Op::Enqueue(req) => Ok(ok(&grantor.enqueue(req, view)?)),
            Op::Claim(req) => Ok(ok(&grantor.claim(req, view, now_ms)?)),
            Op::Heartbeat(req) => Ok(ok(&grantor.heartbeat(req, view, now_ms)?)),
            Op::Complete(req) => Ok(ok(&grantor.complete(req, view, now_ms)?)),
            Op::Fail(req) => Ok(ok(&grantor.fail(req, view, now_ms)?)),
            Op::QueueStats(req) => Ok(ok(&grantor.queue_stats(&req.queue, view, now_ms)?)),
            Op::Item(req) => Ok(ok(&grantor.item_reply(
                &req.queue,
                req.item_id,
                view,
                now_ms,
            )?)),
        }
    }
}

/// A decision's end: a reply (status and JSON text; the view holds its writes), or a wait.
enum Decision {
    Reply(u16, String),
    Wait(Key, Option<Duration>, String),
}

/// Writes a lease request's record, if it decided one, and answers its reply.
fn write_lease<R: Serialize>(
    view: &mut View<'_>,
    decided: Decided<R, LeaseRecord>,
    resource: &str,
) -> Decision {
    if let Some(record) = &decided.write {
        view.put(Key::Lease(resource.to_owned()), record);
    }
    ok(&decided.reply)
}

/// A successful reply.
fn ok<R: Serialize>(reply: &R) -> Decision {
    Decision::Reply(200, to_json(reply))
}
