//! The one interface the handlers call, over either store: embedded SQLite ([`Store`], one grantor
//! process, expiry on its monotonic clock) or PostgreSQL ([`PgStore`], any number of grantor
//! processes, expiry on the database server's clock).

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tenure::protocol::{
    ClaimReply, ClaimRequest, CompleteReply, EnqueueReply, FailReply, FencedReadReply,
    FencedWriteReply, GrantReply, GrantRequest, HeartbeatReply, ItemReply, NewItem,
    QueueStatsReply, ReleaseReply, ReleaseRequest, RenewReply, RenewRequest, StatusReply, Token,
};

use crate::postgres::PgStore;
use crate::store::{Store, StoreError};

/// Where the grantor's state lives.
#[derive(Clone)]
pub enum Backend {
    /// SQLite: one connection behind a lock, driven on blocking threads.
    Sqlite(Arc<Mutex<Store>>),
    /// PostgreSQL: a connection pool shared by the handlers.
    Postgres(PgStore),
}

/// Runs `op` on the SQLite store off the async runtime: SQLite calls block, and with
/// `synchronous=FULL` every commit waits for the disk.
async fn blocking<T, F>(store: &Arc<Mutex<Store>>, op: F) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
{
    let store = store.clone();
    tokio::task::spawn_blocking(move || {
        let mut store = store.lock().map_err(|_| StoreError::Poisoned)?;
        op(&mut store)
    })
    .await
    .map_err(|e| StoreError::TaskFailed(e.to_string()))?
}

impl Backend {
    /// The design's grant, idempotent by `requestId`.
    pub async fn grant(&self, req: GrantRequest) -> Result<GrantReply, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.grant(&req)).await,
            Backend::Postgres(pg) => pg.grant(&req).await,
        }
    }

    /// Renews a live grant to the full duration from now, idempotent by `requestId`.
    pub async fn renew(&self, req: RenewRequest) -> Result<RenewReply, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.renew(&req)).await,
            Backend::Postgres(pg) => pg.renew(&req).await,
        }
    }

    /// Ends the grant identified by holder and token, if it is live.
    pub async fn release(&self, req: ReleaseRequest) -> Result<ReleaseReply, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.release(&req)).await,
            Backend::Postgres(pg) => pg.release(&req).await,
        }
    }

    /// Ends the live grant of `resource`, whoever holds it.
    pub async fn revoke(&self, resource: String) -> Result<bool, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.revoke(&resource)).await,
            Backend::Postgres(pg) => pg.revoke(&resource).await,
        }
    }

    /// Who holds `resource` now.
    pub async fn status(&self, resource: String) -> Result<StatusReply, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.status(&resource)).await,
            Backend::Postgres(pg) => pg.status(&resource).await,
        }
    }

    /// The design's fenced write of `payload` (JSON text).
    pub async fn fenced_write(
        &self,
        resource: String,
        payload: String,
        token: Token,
    ) -> Result<FencedWriteReply, StoreError> {
        match self {
            Backend::Sqlite(store) => {
                blocking(store, move |s| s.fenced_write(&resource, &payload, token)).await
            }
            Backend::Postgres(pg) => pg.fenced_write(&resource, &payload, token).await,
        }
    }

    /// The latest accepted payload (JSON text) of `resource`.
    pub async fn fenced_read(
        &self,
        resource: String,
    ) -> Result<FencedReadReply<String>, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.fenced_read(&resource)).await,
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
            Backend::Sqlite(store) => blocking(store, move |s| s.enqueue(&queue, &items)).await,
            Backend::Postgres(pg) => pg.enqueue(&queue, &items).await,
        }
    }

    /// The design's claim: the oldest claimable item of a queue.
    pub async fn claim(&self, req: ClaimRequest) -> Result<ClaimReply<Value>, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.claim(&req)).await,
            Backend::Postgres(pg) => pg.claim(&req).await,
        }
    }

    /// Extends a live claim.
    pub async fn heartbeat(
        &self,
        queue: String,
        item_id: u64,
        worker: String,
        token: Token,
        claim_ms: u64,
    ) -> Result<HeartbeatReply, StoreError> {
        match self {
            Backend::Sqlite(store) => {
                blocking(store, move |s| {
                    s.heartbeat(&queue, item_id, &worker, token, claim_ms)
                })
                .await
            }
            Backend::Postgres(pg) => {
                pg.heartbeat(&queue, item_id, &worker, token, claim_ms)
                    .await
            }
        }
    }

    /// Completes an item under its live claim.
    pub async fn complete(
        &self,
        queue: String,
        item_id: u64,
        worker: String,
        token: Token,
        result: Value,
    ) -> Result<CompleteReply, StoreError> {
        match self {
            Backend::Sqlite(store) => {
                blocking(store, move |s| {
                    s.complete(&queue, item_id, &worker, token, &result)
                })
                .await
            }
            Backend::Postgres(pg) => pg.complete(&queue, item_id, &worker, token, &result).await,
        }
    }

    /// Ends a live claim after a failed attempt.
    pub async fn fail(
        &self,
        queue: String,
        item_id: u64,
        worker: String,
        token: Token,
        error: Value,
    ) -> Result<FailReply, StoreError> {
        match self {
            Backend::Sqlite(store) => {
                blocking(store, move |s| {
                    s.fail(&queue, item_id, &worker, token, &error)
                })
                .await
            }
            Backend::Postgres(pg) => pg.fail(&queue, item_id, &worker, token, &error).await,
        }
    }

    /// How many items of a queue are in each state now.
    pub async fn queue_stats(&self, queue: String) -> Result<QueueStatsReply, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.queue_stats(&queue)).await,
            Backend::Postgres(pg) => pg.queue_stats(&queue).await,
        }
    }

    /// One item's record.
    pub async fn item(&self, queue: String, item_id: u64) -> Result<ItemReply<Value>, StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, move |s| s.item(&queue, item_id)).await,
            Backend::Postgres(pg) => pg.item(&queue, item_id).await,
        }
    }

    /// Checks that the storage answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite(store) => blocking(store, |s| s.ping()).await,
            Backend::Postgres(pg) => pg.ping().await,
        }
    }

    /// Records what ran out, so that storage holds only what may still be live; returns how many
    /// grants and claims were recorded.
    pub async fn sweep(&self) -> Result<(usize, usize), StoreError> {
        match self {
            Backend::Sqlite(store) => {
                blocking(store, |s| Ok((s.sweep()?, s.sweep_claims()?))).await
            }
            // Lease expiry is a comparison with the database clock; nothing needs recording.
            Backend::Postgres(pg) => Ok((0, pg.sweep_claims().await?)),
        }
    }
}
