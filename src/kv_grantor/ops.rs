//! The protocol's routes over [`KvGrantor`]: a request read from its path and JSON body
//! ([`Op::parse`]), the records it reads ([`Op::reads`]), and its decision from them
//! ([`Op::decide`]): the reply's status and JSON text and the records to write, as JSON text, in
//! one atomic commit. A binding needs nothing else to serve the protocol from a key-value
//! store: it reads, decides, commits, and answers.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::{Decided, FenceRecord, Key, KvGrantor, LeaseRecord};
use crate::protocol::{
    ErrorCode, ErrorReply, FencedReadRequest, FencedWriteRequest, GrantRequest, ReleaseRequest,
    RenewBatchReply, RenewRequest, RevokeRequest, StatusRequest, WatchRequest,
};
use crate::requests::{parse_request, BatchBody, Refusal, MAX_BATCH_BODY_BYTES, MAX_BODY_BYTES};
use crate::rules::{self, WatchStep};

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
}

/// What to do with a decided request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Commit `writes` (each record's key and JSON text) atomically, then answer `status` with
    /// the JSON text `body`. No writes: answer at once.
    Reply {
        /// The HTTP status.
        status: u16,
        /// The reply's JSON text.
        body: String,
        /// The records to write.
        writes: Vec<(Key, String)>,
    },
    /// A watch that has seen the current state: wait until `key`'s record changes, or `recheck`
    /// passes (the moment a live grant would run out, which nothing signals), then decide it
    /// again; when the watch's own wait ([`Op::watch_wait`]) is over first, answer `body` (the
    /// unchanged state) with status 200.
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
            _ => return Err(Refusal::new(ErrorCode::NotFound, "no such route")),
        })
    }

    /// The records the request is decided from.
    pub fn reads(&self) -> Vec<Key> {
        let lease = |resource: &str| vec![Key::Lease(resource.to_owned())];
        match self {
            Op::Grant(req) => lease(&req.resource),
            Op::Renew(req) => lease(&req.resource),
            Op::RenewBatch(reqs) => {
                let mut keys: Vec<Key> = reqs
                    .iter()
                    .flatten()
                    .map(|req| Key::Lease(req.resource.clone()))
                    .collect();
                keys.sort();
                keys.dedup();
                keys
            }
            Op::Release(req) => lease(&req.resource),
            Op::Status(req) => lease(&req.resource),
            Op::Watch(req) => lease(&req.resource),
            Op::Revoke(req) => lease(&req.resource),
            Op::FencedWrite(req) => vec![Key::Fence(req.resource.clone())],
            Op::FencedRead(req) => vec![Key::Fence(req.resource.clone())],
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

    /// Decides the request at `now_ms` from `records`, which holds the JSON text of every record
    /// [`Op::reads`] named (`None`: not stored). A refusal is a [`Step::Reply`] too
    /// ([`Step::refused`]).
    pub fn decide(
        &self,
        grantor: &KvGrantor,
        records: &BTreeMap<Key, Option<String>>,
        now_ms: u64,
    ) -> Step {
        self.decided(grantor, records, now_ms)
            .unwrap_or_else(Step::refused)
    }

    fn decided(
        &self,
        grantor: &KvGrantor,
        records: &BTreeMap<Key, Option<String>>,
        now_ms: u64,
    ) -> Result<Step, Refusal> {
        let lease = |resource: &str| read::<LeaseRecord>(records, Key::Lease(resource.to_owned()));
        let fence =
            |resource: &str| read::<FenceRecord<Value>>(records, Key::Fence(resource.to_owned()));
        match self {
            Op::Grant(req) => {
                let decided = grantor.grant(req, lease(&req.resource)?.as_ref(), now_ms)?;
                Ok(lease_reply(decided, &req.resource))
            }
            Op::Renew(req) => {
                let decided = grantor.renew(req, lease(&req.resource)?.as_ref(), now_ms)?;
                Ok(lease_reply(decided, &req.resource))
            }
            Op::RenewBatch(reqs) => {
                let mut leases = BTreeMap::new();
                for key in self.reads() {
                    leases.insert(key.name().to_owned(), lease(key.name())?);
                }
                let (results, changed) = grantor.renew_batch(reqs.clone(), &mut leases, now_ms);
                let writes = changed
                    .into_iter()
                    .filter_map(|resource| {
                        let record = leases.get(&resource)?.as_ref()?;
                        Some((Key::Lease(resource), to_json(record)))
                    })
                    .collect();
                Ok(Step::Reply {
                    status: 200,
                    body: to_json(&RenewBatchReply { results }),
                    writes,
                })
            }
            Op::Release(req) => {
                let decided = grantor.release(req, lease(&req.resource)?.as_ref(), now_ms)?;
                Ok(lease_reply(decided, &req.resource))
            }
            Op::Status(req) => {
                let reply =
                    grantor.status(&req.resource, lease(&req.resource)?.as_ref(), now_ms)?;
                Ok(ok(&reply))
            }
            Op::Watch(req) => {
                let reply = grantor.watch(&req.resource, lease(&req.resource)?.as_ref(), now_ms)?;
                Ok(match rules::watch_step(req.after, &reply) {
                    WatchStep::Answer => ok(&reply),
                    WatchStep::Wait { recheck } => Step::Wait {
                        key: Key::Lease(req.resource.clone()),
                        recheck,
                        body: to_json(&reply),
                    },
                })
            }
            Op::Revoke(req) => {
                let decided = grantor.revoke(lease(&req.resource)?.as_ref(), now_ms);
                Ok(lease_reply(decided, &req.resource))
            }
            Op::FencedWrite(req) => {
                let decided = grantor.fenced_write(req.clone(), fence(&req.resource)?.as_ref())?;
                Ok(Step::Reply {
                    status: 200,
                    body: to_json(&decided.reply),
                    writes: decided
                        .write
                        .map(|record| (Key::Fence(req.resource.clone()), to_json(&record)))
                        .into_iter()
                        .collect(),
                })
            }
            Op::FencedRead(req) => Ok(ok(&grantor.fenced_read(fence(&req.resource)?.as_ref())?)),
        }
    }
}

/// The reply to a request on a lease record, with the record it writes.
fn lease_reply<R: Serialize>(decided: Decided<R, LeaseRecord>, resource: &str) -> Step {
    Step::Reply {
        status: 200,
        body: to_json(&decided.reply),
        writes: decided
            .write
            .map(|record| (Key::Lease(resource.to_owned()), to_json(&record)))
            .into_iter()
            .collect(),
    }
}

/// A successful reply that writes nothing.
fn ok<R: Serialize>(reply: &R) -> Step {
    Step::Reply {
        status: 200,
        body: to_json(reply),
        writes: Vec::new(),
    }
}

/// A record's stored text read back. One that cannot be read was not written by a grantor: the
/// request fails, and nothing is written over it.
fn read<T: DeserializeOwned>(
    records: &BTreeMap<Key, Option<String>>,
    key: Key,
) -> Result<Option<T>, Refusal> {
    let Some(text) = records.get(&key).and_then(Option::as_deref) else {
        return Ok(None);
    };
    serde_json::from_str(text).map(Some).map_err(|_| {
        Refusal::new(
            ErrorCode::Internal,
            ["the stored ", key.kind(), " record is unreadable"].concat(),
        )
    })
}

/// JSON text of a reply or record: the protocol's types and [`Value`] always serialise.
fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
