//! Work queues in PostgreSQL: the design's work claims, with claim expiry on the database clock.
//!
//! As in the design, an item stays `pending` while claimed: a claim is live while
//! `claim_expires_at >= now`, and one that ran out makes the item claimable again without any
//! write. `done` and `dead` are final. An item whose last allowed claim ran out reads as dead at
//! once; the background sweep only records that, so claims do not scan past such items.

use std::time::SystemTime;

use serde_json::Value;
use tenure::protocol::{
    ClaimReply, ClaimRequest, CompleteReply, EnqueueReply, EnqueuedItem, FailReply, HeartbeatReply,
    ItemReply, ItemState, NewItem, QueueStatsReply, Token,
};
use tokio_postgres::Row;

use super::{database_now, execute, query_opt, PgStore};
use deadpool_postgres::Transaction;

use crate::backend::ClaimRef;
use crate::queues::StoredItem;
use crate::store::{ceil_ms, from_i64, to_i64, to_json, StoreError};

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS work_queue (
    -- Creation order: claims take the smallest claimable id first. The design orders by a
    -- created_at timestamp; an identity cannot tie, nor step back with the clock.
    item_id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue            TEXT NOT NULL,
    payload          TEXT NOT NULL,
    dedupe_key       TEXT,
    status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'dead')),
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts     INTEGER NOT NULL CHECK (max_attempts >= 1),
    -- The per-item counter: the token of the latest claim, 0 before the first. Only incremented.
    claim_token      BIGINT NOT NULL DEFAULT 0 CHECK (claim_token >= 0),
    claimed_by       TEXT,
    claim_request_id TEXT,
    -- The duration of the latest claim or heartbeat, in ms.
    claim_ms         BIGINT,
    -- When the latest claim runs out, by the database server's clock; NULL once it ended.
    claim_expires_at TIMESTAMPTZ,
    completed_token  BIGINT,
    completed_by     TEXT,
    result           TEXT,
    -- The token of the claim that reported the latest failure, so a retried fail is answered.
    failed_token     BIGINT,
    last_error       TEXT,
    UNIQUE (queue, dedupe_key)
);

CREATE INDEX IF NOT EXISTS work_queue_pending ON work_queue (queue, item_id)
    WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS work_queue_claims ON work_queue (claim_expires_at)
    WHERE status = 'pending' AND claim_expires_at IS NOT NULL;
";

/// The columns [`ItemRow::read`] expects, in order.
const ITEM_COLUMNS: &str = "item_id, status, payload, dedupe_key, attempts, max_attempts,
    claim_token, claimed_by, claim_expires_at, completed_token, completed_by, result,
    failed_token, last_error, claim_ms";

/// The design's claim. As written it hard-codes 60 s and counts no attempts; here the duration
/// is the request's, each claim counts an attempt, an item out of attempts is not a candidate,
/// and the time is `clock_timestamp()`: the subquery has locked the row (skipping rows other
/// claims hold) before the new expiry is computed, whereas `CURRENT_TIMESTAMP` would be the
/// start of the transaction.
const CLAIM: &str = "
UPDATE work_queue
SET claimed_by       = $2,
    claim_token      = claim_token + 1,
    attempts         = attempts + 1,
    claim_ms         = $3::bigint,
    claim_request_id = $4,
    claim_expires_at = clock_timestamp() + $3::bigint * INTERVAL '1 millisecond'
WHERE item_id = (
    SELECT item_id
    FROM work_queue
    WHERE queue = $1
      AND status = 'pending'
      AND (claim_expires_at IS NULL OR claim_expires_at < clock_timestamp())
      AND attempts < max_attempts
    ORDER BY item_id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)";

/// One row of `work_queue`.
struct ItemRow {
    id: u64,
    status: String,
    payload: String,
    dedupe_key: Option<String>,
    attempts: u32,
    max_attempts: u32,
    claim_token: u64,
    claimed_by: Option<String>,
    claim_expires_at: Option<SystemTime>,
    completed_token: Option<u64>,
    completed_by: Option<String>,
    result: Option<String>,
    failed_token: Option<u64>,
    last_error: Option<String>,
    claim_ms: Option<u64>,
}

fn count(row: &Row, i: usize) -> Result<u32, StoreError> {
    let v: i32 = row.try_get(i)?;
    u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("negative count {v}")))
}

fn optional(row: &Row, i: usize) -> Result<Option<u64>, StoreError> {
    row.try_get::<_, Option<i64>>(i)?.map(from_i64).transpose()
}

impl ItemRow {
    fn read(row: &Row) -> Result<ItemRow, StoreError> {
        Ok(ItemRow {
            id: from_i64(row.try_get(0)?)?,
            status: row.try_get(1)?,
            payload: row.try_get(2)?,
            dedupe_key: row.try_get(3)?,
            attempts: count(row, 4)?,
            max_attempts: count(row, 5)?,
            claim_token: from_i64(row.try_get(6)?)?,
            claimed_by: row.try_get(7)?,
            claim_expires_at: row.try_get(8)?,
            completed_token: optional(row, 9)?,
            completed_by: row.try_get(10)?,
            result: row.try_get(11)?,
            failed_token: optional(row, 12)?,
            last_error: row.try_get(13)?,
            claim_ms: optional(row, 14)?,
        })
    }

    /// Whether the latest claim is live at `now` (the design: ran out once `< now`).
    fn is_live(&self, now: SystemTime) -> bool {
        self.status == "pending" && self.claim_expires_at.is_some_and(|at| at >= now)
    }

    /// The state as the protocol reports it at `now`.
    fn state_at(&self, now: SystemTime) -> Result<ItemState, StoreError> {
        Ok(match self.status.as_str() {
            "done" => ItemState::Done,
            "dead" => ItemState::Dead,
            "pending" if self.is_live(now) => ItemState::Claimed,
            "pending" if self.attempts >= self.max_attempts => ItemState::Dead,
            "pending" => ItemState::Pending,
            other => return Err(StoreError::Corrupt(format!("item status {other}"))),
        })
    }

    /// Whether `token` held by `worker` is this item's live claim; otherwise why not.
    fn check_claim(&self, worker: &str, token: Token, now: SystemTime) -> Result<(), StoreError> {
        let token = token.get();
        let why = if token != self.claim_token {
            format!(
                "claim token {token} is stale: the item's latest claim token is {}",
                self.claim_token
            )
        } else if self.claimed_by.as_deref() != Some(worker) {
            format!("claim token {token} belongs to another worker")
        } else if self.status == "done" {
            format!("the item was already completed under claim token {token}")
        } else if self.status != "pending" || self.claim_expires_at.is_none() {
            format!("the claim with token {token} already ended")
        } else if !self.is_live(now) {
            format!("the claim with token {token} ran out")
        } else {
            return Ok(());
        };
        Err(StoreError::StaleClaim(why))
    }

    /// The part of the row the replies are built from.
    fn stored(self) -> StoredItem {
        StoredItem {
            id: self.id,
            payload: self.payload,
            dedupe_key: self.dedupe_key,
            attempts: self.attempts,
            max_attempts: self.max_attempts,
            claim_token: self.claim_token,
            claimed_by: self.claimed_by,
            completed_token: self.completed_token,
            completed_by: self.completed_by,
            result: self.result,
            last_error: self.last_error,
        }
    }

    fn claimed_reply(self) -> Result<ClaimReply<Value>, StoreError> {
        let claim_ms = self.claim_ms.ok_or_else(|| {
            StoreError::Corrupt(format!("claim of item {} has no duration", self.id))
        })?;
        self.stored().claimed_reply(claim_ms)
    }
}

impl PgStore {
    /// Adds `items` to `queue` in order, skipping those whose dedupe key is already in the queue.
    pub async fn enqueue(
        &self,
        queue: &str,
        items: &[NewItem<Value>],
    ) -> Result<EnqueueReply, StoreError> {
        let default_max = self.default_max_attempts;
        self.transact(|tx| {
            Box::pin(enqueue_in(
                tx,
                queue.to_owned(),
                items.to_vec(),
                default_max,
            ))
        })
        .await
    }

    /// The design's claim: the oldest pending item whose claim is absent or ran out, with the
    /// claim token incremented and one more attempt counted.
    pub async fn claim(&self, req: &ClaimRequest) -> Result<ClaimReply<Value>, StoreError> {
        let claim_ms = self.limits.clamp(req.claim_ms);
        let reply = self
            .transact(|tx| Box::pin(claim_in(tx, req.clone(), claim_ms)))
            .await?;
        if let (Some(item), Some(token)) = (&reply.item, reply.token) {
            tracing::debug!(
                queue = %req.queue,
                item = item.id,
                worker = %req.worker,
                token = token.get(),
                "claimed"
            );
        }
        Ok(reply)
    }

    /// Whether `claim_secret` is the secret of item `item_id`'s claim with `token`.
    fn proves(&self, item_id: u64, token: Token, claim_secret: Option<&str>) -> bool {
        self.secrets
            .claim_proof(item_id, claim_secret.map(str::to_owned))
            .proves(token.get())
    }

    /// Extends the live claim `token` of `worker` on an item to `claim_ms` from now; needs the
    /// claim's secret ([`StoreError::BadClaimSecret`] otherwise).
    pub async fn heartbeat(
        &self,
        queue: &str,
        item_id: u64,
        worker: &str,
        token: Token,
        claim_ms: u64,
        claim_secret: Option<&str>,
    ) -> Result<HeartbeatReply, StoreError> {
        let claim_ms = self.limits.clamp(claim_ms);
        let claim = Claim::new(
            queue,
            item_id,
            worker,
            token,
            self.proves(item_id, token, claim_secret),
        );
        self.transact(|tx| Box::pin(heartbeat_in(tx, claim.clone(), claim_ms)))
            .await
    }

    /// Completes an item under its live claim `token`, recording which claim completed it.
    /// Repeating a successful completion answers the same again. Both need the claim's secret.
    pub async fn complete(
        &self,
        claim: &ClaimRef,
        result: &Value,
        next: Option<&ClaimRequest>,
    ) -> Result<(CompleteReply, Option<ClaimReply<Value>>), StoreError> {
        let proven = self.proves(claim.item_id, claim.token, claim.secret.as_deref());
        let claim = Claim::new(&claim.queue, claim.item_id, &claim.worker, claim.token, proven);
        let result = to_json(result)?;
        let next = next.map(|req| {
            let claim_ms = self.limits.clamp(req.claim_ms);
            (req.clone(), claim_ms)
        });
        self.transact(|tx| {
            let (claim, result, next) = (claim.clone(), result.clone(), next.clone());
            Box::pin(async move {
                let reply = complete_in(tx, claim, result).await?;
                // In the same transaction: the next claim stands only if the complete does.
                let next = match next {
                    Some((req, claim_ms)) => Some(claim_in(tx, req, claim_ms).await?),
                    None => None,
                };
                Ok((reply, next))
            })
        })
        .await
    }

    /// Ends the live claim `token` after a failed attempt: the item is pending again, or dead
    /// after its last allowed attempt. Repeating a successful fail answers the same again. Both
    /// need the claim's secret.
    pub async fn fail(
        &self,
        claim: &ClaimRef,
        error: &Value,
        next: Option<&ClaimRequest>,
    ) -> Result<(FailReply, Option<ClaimReply<Value>>), StoreError> {
        let proven = self.proves(claim.item_id, claim.token, claim.secret.as_deref());
        let claim = Claim::new(&claim.queue, claim.item_id, &claim.worker, claim.token, proven);
        let error = to_json(error)?;
        let next = next.map(|req| {
            let claim_ms = self.limits.clamp(req.claim_ms);
            (req.clone(), claim_ms)
        });
        self.transact(|tx| {
            let (claim, error, next) = (claim.clone(), error.clone(), next.clone());
            Box::pin(async move {
                let reply = fail_in(tx, claim, error).await?;
                // In the same transaction: the next claim stands only if the fail does.
                let next = match next {
                    Some((req, claim_ms)) => Some(claim_in(tx, req, claim_ms).await?),
                    None => None,
                };
                Ok((reply, next))
            })
        })
        .await
    }

    /// How many items of `queue` are in each state now, by the database clock.
    pub async fn queue_stats(&self, queue: &str) -> Result<QueueStatsReply, StoreError> {
        let client = self.client().await?;
        // One instant for every count: statement_timestamp() is fixed for the statement.
        let statement = client
            .prepare_cached(
                "SELECT
                    COUNT(*) FILTER (WHERE status = 'pending' AND attempts < max_attempts
                        AND (claim_expires_at IS NULL OR claim_expires_at < statement_timestamp())),
                    COUNT(*) FILTER (WHERE status = 'pending'
                        AND claim_expires_at >= statement_timestamp()),
                    COUNT(*) FILTER (WHERE status = 'done'),
                    COUNT(*) FILTER (WHERE status = 'dead' OR (status = 'pending'
                        AND attempts >= max_attempts
                        AND (claim_expires_at IS NULL OR claim_expires_at < statement_timestamp())))
                 FROM work_queue WHERE queue = $1",
            )
            .await?;
        let row = client.query_one(&statement, &[&queue]).await?;
        Ok(QueueStatsReply {
            queue: queue.to_owned(),
            pending: from_i64(row.try_get(0)?)?,
            claimed: from_i64(row.try_get(1)?)?,
            done: from_i64(row.try_get(2)?)?,
            dead: from_i64(row.try_get(3)?)?,
        })
    }

    /// One item's record, by the database clock.
    pub async fn item(&self, queue: &str, item_id: u64) -> Result<ItemReply<Value>, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {ITEM_COLUMNS}, statement_timestamp() FROM work_queue
                 WHERE item_id = $1 AND queue = $2"
            ))
            .await?;
        let row = client
            .query_opt(&statement, &[&to_i64(item_id), &queue])
            .await?
            .ok_or(StoreError::NoSuchItem)?;
        let now: SystemTime = row.try_get(15)?;
        let item = ItemRow::read(&row)?;
        let state = item.state_at(now)?;
        let claim_expires_in_ms = match (state, item.claim_expires_at) {
            (ItemState::Claimed, Some(at)) => {
                Some(ceil_ms(at.duration_since(now).unwrap_or_default()))
            }
            _ => None,
        };
        item.stored().item_reply(state, claim_expires_in_ms)
    }

    /// Records as dead every item whose last allowed claim ran out. Rows another transaction
    /// holds are skipped (and recorded by a later sweep), so sweeps of several grantor processes
    /// never wait on each other or on a claim. Returns how many were recorded.
    pub async fn sweep_claims(&self) -> Result<usize, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "UPDATE work_queue SET status = 'dead', claim_expires_at = NULL
                 WHERE item_id IN (
                     SELECT item_id FROM work_queue
                     WHERE status = 'pending' AND claim_expires_at < clock_timestamp()
                       AND attempts >= max_attempts
                     FOR UPDATE SKIP LOCKED
                 )",
            )
            .await?;
        let swept = client.execute(&statement, &[]).await?;
        Ok(usize::try_from(swept).unwrap_or(usize::MAX))
    }
}

/// The claim a heartbeat, completion or failure report presents.
#[derive(Clone)]
struct Claim {
    queue: String,
    item_id: u64,
    worker: String,
    token: Token,
    /// Whether the request presented the claim's secret.
    proven: bool,
}

impl Claim {
    fn new(queue: &str, item_id: u64, worker: &str, token: Token, proven: bool) -> Claim {
        Claim {
            queue: queue.to_owned(),
            item_id,
            worker: worker.to_owned(),
            token,
            proven,
        }
    }

    /// Refuses to act without the claim's secret, once the claim is known to be live.
    fn check_proven(&self) -> Result<(), StoreError> {
        if self.proven {
            Ok(())
        } else {
            Err(StoreError::BadClaimSecret)
        }
    }

    /// Locks the item's row until the transaction ends, and reads it with the database clock
    /// read after the lock.
    async fn lock(&self, tx: &Transaction<'_>) -> Result<(ItemRow, SystemTime), StoreError> {
        let row = query_opt(
            tx,
            &format!("SELECT {ITEM_COLUMNS} FROM work_queue WHERE item_id = $1 AND queue = $2 FOR UPDATE"),
            &[&to_i64(self.item_id), &self.queue],
        )
        .await?
        .ok_or(StoreError::NoSuchItem)?;
        Ok((ItemRow::read(&row)?, database_now(tx).await?))
    }
}

async fn enqueue_in(
    tx: &Transaction<'_>,
    queue: String,
    items: Vec<NewItem<Value>>,
    default_max: u32,
) -> Result<EnqueueReply, StoreError> {
    let mut replies = Vec::with_capacity(items.len());
    for item in &items {
        let max_attempts = i32::try_from(item.max_attempts.unwrap_or(default_max))
            .map_err(|_| StoreError::Corrupt("maxAttempts beyond range".into()))?;
        let inserted = query_opt(
            tx,
            "INSERT INTO work_queue (queue, payload, dedupe_key, max_attempts)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (queue, dedupe_key) DO NOTHING
             RETURNING item_id",
            &[
                &queue,
                &to_json(&item.payload)?,
                &item.dedupe_key,
                &max_attempts,
            ],
        )
        .await?;
        let (row, enqueued) = match inserted {
            Some(row) => (row, true),
            None => {
                // The key is taken: by a committed item, or by one earlier in this same enqueue.
                let existing = query_opt(
                    tx,
                    "SELECT item_id FROM work_queue WHERE queue = $1 AND dedupe_key = $2",
                    &[&queue, &item.dedupe_key],
                )
                .await?
                .ok_or_else(|| StoreError::Corrupt("a dedupe key conflicted but is gone".into()))?;
                (existing, false)
            }
        };
        replies.push(EnqueuedItem {
            item_id: from_i64(row.try_get(0)?)?,
            enqueued,
        });
    }
    Ok(EnqueueReply { items: replies })
}

async fn claim_in(
    tx: &Transaction<'_>,
    req: ClaimRequest,
    claim_ms: u64,
) -> Result<ClaimReply<Value>, StoreError> {
    if let Some(request_id) = &req.request_id {
        // A retry of a claim whose reply was lost gets the same item while that claim lives. The
        // transaction-scoped advisory lock on the retry's key makes a retry that reached another
        // grantor process while the first attempt was still in flight wait for it, and then
        // find its claim. (A hash collision with another key only makes one wait for the other.)
        let key = format!("claim\n{}\n{}\n{request_id}", req.queue, req.worker);
        execute(
            tx,
            "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
            &[&key],
        )
        .await?;
        let replay = query_opt(
            tx,
            &format!(
                "SELECT {ITEM_COLUMNS} FROM work_queue
                 WHERE queue = $1 AND claimed_by = $2 AND claim_request_id = $3
                   AND status = 'pending'
                   AND claim_expires_at >= clock_timestamp() + INTERVAL '1 millisecond'"
            ),
            &[&req.queue, &req.worker, request_id],
        )
        .await?;
        if let Some(row) = replay {
            let mut item = ItemRow::read(&row)?;
            // The retry's worker measures from the retry's send: promise only what is left.
            let left = query_opt(
                tx,
                "SELECT FLOOR(EXTRACT(EPOCH FROM (claim_expires_at - clock_timestamp())) * 1000)::bigint
                 FROM work_queue WHERE item_id = $1",
                &[&to_i64(item.id)],
            )
            .await?
            .map(|r| r.try_get::<_, i64>(0))
            .transpose()?
            .unwrap_or(0);
            let left_ms = u64::try_from(left).unwrap_or(0);
            item.claim_ms = item.claim_ms.map(|granted| granted.min(left_ms));
            return item.claimed_reply();
        }
    }
    let claimed = query_opt(
        tx,
        &format!("{CLAIM} RETURNING {ITEM_COLUMNS}"),
        &[&req.queue, &req.worker, &to_i64(claim_ms), &req.request_id],
    )
    .await?;
    match claimed {
        Some(row) => ItemRow::read(&row)?.claimed_reply(),
        None => Ok(ClaimReply {
            claimed: false,
            item: None,
            token: None,
            claim_ms: None,
        }),
    }
}

async fn heartbeat_in(
    tx: &Transaction<'_>,
    claim: Claim,
    claim_ms: u64,
) -> Result<HeartbeatReply, StoreError> {
    let (item, now) = claim.lock(tx).await?;
    item.check_claim(&claim.worker, claim.token, now)?;
    claim.check_proven()?;
    execute(
        tx,
        "UPDATE work_queue
         SET claim_ms = $2::bigint,
             claim_expires_at = $3::timestamptz + $2::bigint * INTERVAL '1 millisecond'
         WHERE item_id = $1",
        &[&to_i64(claim.item_id), &to_i64(claim_ms), &now],
    )
    .await?;
    Ok(HeartbeatReply {
        extended: true,
        token: claim.token,
        claim_ms,
    })
}

async fn complete_in(
    tx: &Transaction<'_>,
    claim: Claim,
    result: String,
) -> Result<CompleteReply, StoreError> {
    let (item, now) = claim.lock(tx).await?;
    let repeated = item.status == "done"
        && item.completed_token == Some(claim.token.get())
        && item.completed_by.as_deref() == Some(claim.worker.as_str());
    if !repeated {
        item.check_claim(&claim.worker, claim.token, now)?;
    }
    claim.check_proven()?;
    if !repeated {
        execute(
            tx,
            "UPDATE work_queue
             SET status = 'done', result = $2, completed_token = claim_token,
                 completed_by = claimed_by, claim_expires_at = NULL
             WHERE item_id = $1",
            &[&to_i64(claim.item_id), &result],
        )
        .await?;
    }
    Ok(CompleteReply {
        completed: true,
        token: claim.token,
    })
}

async fn fail_in(
    tx: &Transaction<'_>,
    claim: Claim,
    error: String,
) -> Result<FailReply, StoreError> {
    let (mut item, now) = claim.lock(tx).await?;
    let repeated = item.claim_expires_at.is_none()
        && matches!(item.status.as_str(), "pending" | "dead")
        && item.failed_token == Some(claim.token.get())
        && item.claim_token == claim.token.get()
        && item.claimed_by.as_deref() == Some(claim.worker.as_str());
    if !repeated {
        item.check_claim(&claim.worker, claim.token, now)?;
    }
    claim.check_proven()?;
    if !repeated {
        item.status = if item.attempts >= item.max_attempts {
            "dead"
        } else {
            "pending"
        }
        .to_owned();
        item.claim_expires_at = None;
        execute(
            tx,
            "UPDATE work_queue
             SET status = $2, last_error = $3, failed_token = claim_token,
                 claim_expires_at = NULL
             WHERE item_id = $1",
            &[&to_i64(claim.item_id), &item.status, &error],
        )
        .await?;
        tracing::debug!(
            queue = %claim.queue,
            item = claim.item_id,
            worker = %claim.worker,
            status = %item.status,
            "failed"
        );
    }
    Ok(FailReply {
        state: item.state_at(now)?,
        attempts: item.attempts,
        max_attempts: item.max_attempts,
    })
}
