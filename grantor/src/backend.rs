//! The one interface the handlers call, over either store: embedded SQLite ([`Store`], one grantor
//! process, expiry on its monotonic clock) or PostgreSQL ([`PgStore`], any number of grantor
//! processes, expiry on the database server's clock).

use serde_json::Value;
use tenure::protocol::{
    ClaimReply, ClaimRequest, CompleteReply, EnqueueReply, FailReply, FencedReadReply,
    FencedWriteReply, GrantReply, GrantRequest, HeartbeatReply, ItemReply, NewItem,
    QueueStatsReply, ReleaseReply, ReleaseRequest, RenewReply, RenewRequest, StatusReply, Token,
    WatchReply,
};

use crate::postgres::PgStore;
use crate::records::StoreError;
use crate::secrets::Secrets;
use crate::writer::{Urgency, Writer};

/// The claim a heartbeat, completion or failure report acts under, as the request presented it.
pub struct ClaimRef {
    /// The queue.
    pub queue: String,
    /// The claimed item.
    pub item_id: u64,
    /// The claiming worker.
    pub worker: String,
    /// The claim token.
    pub token: Token,
    /// The claim's secret, if the request sent one.
    pub secret: Option<String>,
}

impl ClaimRef {
    /// The claim as a store acts on it: whether the secret presented is the claim's, checked
    /// with the store's `secrets`.
    pub(crate) fn prove(&self, secrets: &Secrets) -> Claim {
        let proven = secrets
            .claim_proof(self.item_id, self.secret.clone())
            .proves(self.token.get());
        Claim {
            queue: self.queue.clone(),
            item_id: self.item_id,
            worker: self.worker.clone(),
            token: self.token,
            proven,
        }
    }
}

/// The claim a heartbeat, completion or failure report acts under, its secret checked.
#[derive(Clone, Debug)]
pub(crate) struct Claim {
    pub(crate) queue: String,
    pub(crate) item_id: u64,
    pub(crate) worker: String,
    pub(crate) token: Token,
    /// Whether the request presented the claim's secret.
    proven: bool,
}

impl Claim {
    /// Refuses to act without the claim's secret. A store calls it once it knows the claim is
    /// live (or the request a repeat), so that a stale claim is told it is stale first.
    pub(crate) fn check_proven(&self) -> Result<(), StoreError> {
        if self.proven {
            Ok(())
        } else {
            Err(StoreError::BadClaimSecret)
        }
    }
}

/// Where the grantor's state lives.
#[derive(Clone)]
pub enum Backend {
    /// SQLite: one connection, owned by the writer thread that runs requests in groups.
    Sqlite(Writer),
    /// PostgreSQL: a connection pool shared by the handlers.
    Postgres(PgStore),
}

impl Backend {
    /// What lease and claim secrets are derived with: the same key for every process sharing the
    /// database, and across restarts.
    pub fn secrets(&self) -> Secrets {
        match self {
            Backend::Sqlite(writer) => writer.secrets(),
            Backend::Postgres(pg) => pg.secrets(),
        }
    }

    /// The design's grant, idempotent by `requestId`.
    pub async fn grant(&self, req: GrantRequest) -> Result<GrantReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => writer.run(Urgency::Other, move |s| s.grant(&req)).await,
            Backend::Postgres(pg) => pg.grant(&req).await,
        }
    }

    /// Renews a live grant to the full duration from now, idempotent by `requestId`.
    pub async fn renew(&self, req: RenewRequest) -> Result<RenewReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => writer.run(Urgency::Renewal, move |s| s.renew(&req)).await,
            Backend::Postgres(pg) => pg.renew(&req).await,
        }
    }

    /// Renews each of `reqs` as [`Backend::renew`] would, in order, in one transaction. Each
    /// element's own error is its result; a storage failure fails the whole batch, and then
    /// none of it was applied.
    pub async fn renew_batch(
        &self,
        reqs: Vec<RenewRequest>,
    ) -> Result<Vec<Result<RenewReply, StoreError>>, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Renewal, move |s| s.renew_batch(&reqs))
                    .await
            }
            Backend::Postgres(pg) => pg.renew_batch(&reqs).await,
        }
    }

    /// Ends the grant identified by holder and token, if it is live.
    pub async fn release(&self, req: ReleaseRequest) -> Result<ReleaseReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => writer.run(Urgency::Other, move |s| s.release(&req)).await,
            Backend::Postgres(pg) => pg.release(&req).await,
        }
    }

    /// Ends the live grant of `resource`, whoever holds it.
    pub async fn revoke(&self, resource: String) -> Result<bool, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| s.revoke(&resource))
                    .await
            }
            Backend::Postgres(pg) => pg.revoke(&resource).await,
        }
    }

    /// Who holds `resource` now.
    pub async fn status(&self, resource: String) -> Result<StatusReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| s.status(&resource))
                    .await
            }
            Backend::Postgres(pg) => pg.status(&resource).await,
        }
    }

    /// The state a watch of `resource` reports now, with its version.
    pub async fn watch(&self, resource: String) -> Result<WatchReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| s.watch(&resource))
                    .await
            }
            Backend::Postgres(pg) => pg.watch(&resource).await,
        }
    }

    /// The design's fenced write of `payload` (JSON text), by the grant with `token` and
    /// `lease_secret`.
    pub async fn fenced_write(
        &self,
        resource: String,
        payload: String,
        token: Token,
        lease_secret: Option<String>,
    ) -> Result<FencedWriteReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| {
                        s.fenced_write(&resource, &payload, token, lease_secret.as_deref())
                    })
                    .await
            }
            Backend::Postgres(pg) => {
                pg.fenced_write(&resource, &payload, token, lease_secret.as_deref())
                    .await
            }
        }
    }

    /// The latest accepted payload (JSON text) of `resource`.
    pub async fn fenced_read(
        &self,
        resource: String,
    ) -> Result<FencedReadReply<String>, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| s.fenced_read(&resource))
                    .await
            }
            Backend::Postgres(pg) => pg.fenced_read(&resource).await,
        }
    }

    /// Adds items to a queue.
    pub async fn enqueue(
        &self,
        queue: String,
        items: Vec<NewItem<Value>>,
    ) -> Result<EnqueueReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| s.enqueue(&queue, &items))
                    .await
            }
            Backend::Postgres(pg) => pg.enqueue(&queue, &items).await,
        }
    }

    /// The design's claim: the oldest claimable item of a queue.
    pub async fn claim(&self, req: ClaimRequest) -> Result<ClaimReply<Value>, StoreError> {
        match self {
            Backend::Sqlite(writer) => writer.run(Urgency::Other, move |s| s.claim(&req)).await,
            Backend::Postgres(pg) => pg.claim(&req).await,
        }
    }

    /// Extends a live claim, presented with its secret.
    pub async fn heartbeat(
        &self,
        claim: ClaimRef,
        claim_ms: u64,
    ) -> Result<HeartbeatReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| s.heartbeat(&claim, claim_ms))
                    .await
            }
            Backend::Postgres(pg) => pg.heartbeat(&claim, claim_ms).await,
        }
    }

    /// Completes an item under its live claim, presented with its secret; then, if `next` asks
    /// for it, claims the worker's next item: that claim is made only once the completion took
    /// effect, and its reply comes back with the completion's.
    pub async fn complete(
        &self,
        claim: ClaimRef,
        result: Value,
        next: Option<ClaimRequest>,
    ) -> Result<(CompleteReply, Option<ClaimReply<Value>>), StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| {
                        s.complete(&claim, &result, next.as_ref())
                    })
                    .await
            }
            Backend::Postgres(pg) => pg.complete(&claim, &result, next.as_ref()).await,
        }
    }

    /// Ends a live claim after a failed attempt, presented with its secret; then claims the
    /// worker's next item if `next` asks for it, as [`Backend::complete`] does.
    pub async fn fail(
        &self,
        claim: ClaimRef,
        error: Value,
        next: Option<ClaimRequest>,
    ) -> Result<(FailReply, Option<ClaimReply<Value>>), StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| {
                        s.fail(&claim, &error, next.as_ref())
                    })
                    .await
            }
            Backend::Postgres(pg) => pg.fail(&claim, &error, next.as_ref()).await,
        }
    }

    /// How many items of a queue are in each state now.
    pub async fn queue_stats(&self, queue: String) -> Result<QueueStatsReply, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| s.queue_stats(&queue))
                    .await
            }
            Backend::Postgres(pg) => pg.queue_stats(&queue).await,
        }
    }

    /// One item's record.
    pub async fn item(&self, queue: String, item_id: u64) -> Result<ItemReply<Value>, StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, move |s| s.item(&queue, item_id))
                    .await
            }
            Backend::Postgres(pg) => pg.item(&queue, item_id).await,
        }
    }

    /// Checks that the storage answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(writer) => writer.run(Urgency::Other, |s| s.ping()).await,
            Backend::Postgres(pg) => pg.ping().await,
        }
    }

    /// Records what ran out, so that storage holds only what may still be live; returns how many
    /// grants and claims were recorded.
    pub async fn sweep(&self) -> Result<(usize, usize), StoreError> {
        match self {
            Backend::Sqlite(writer) => {
                writer
                    .run(Urgency::Other, |s| Ok((s.sweep()?, s.sweep_claims()?)))
                    .await
            }
            // Lease expiry is a comparison with the database clock; nothing needs recording.
            Backend::Postgres(pg) => Ok((0, pg.sweep_claims().await?)),
        }
    }
}
