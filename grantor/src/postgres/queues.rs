//! Work queues in PostgreSQL: the design's work claims, with claim expiry on the database clock.
//!
//! As in the design, an item stays `pending` while claimed: a claim is live while
//! `claim_expires_at >= now`, and one that ran out makes the item claimable again without any
//! write. `done` and `dead` are final. An item whose last allowed claim ran out reads as dead at
//! once; the background sweep only records that, so claims do not scan past such items.

use std::time::{Duration, SystemTime};

use serde_json::Value;
use tenure::protocol::{
    ClaimReply, ClaimRequest, CompleteReply, EnqueueReply, EnqueuedItem, FailReply, HeartbeatReply,
    ItemReply, ItemState, NewItem, QueueStatsReply, Token,
};
use tenure::rules::{self, ClaimRecord, ItemRecord};
use tokio_postgres::types::ToSql;
use tokio_postgres::Row;

use super::{now_from, take, PgStore, Sql, Tx, NOW};

use crate::backend::{Claim, ClaimRef};
use crate::records::{from_i64, stale_claim, to_i64, to_json, StoreError, StoredItem};

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

-- The sweep's: ran-out claims of every queue, by expiry.
CREATE INDEX IF NOT EXISTS work_queue_claims ON work_queue (claim_expires_at)
    WHERE status = 'pending' AND claim_expires_at IS NOT NULL;
-- The claim's two candidates (see CLAIM): the oldest item of a queue never claimed (or failed
-- back), and its claims by expiry, so that a ran-out one is found without passing the live ones.
-- They replace an index of all pending items, in which a claim passed every live claim.
DROP INDEX IF EXISTS work_queue_pending;
CREATE INDEX IF NOT EXISTS work_queue_unclaimed ON work_queue (queue, item_id)
    WHERE status = 'pending' AND claim_expires_at IS NULL;
CREATE INDEX IF NOT EXISTS work_queue_claimed ON work_queue (queue, claim_expires_at)
    WHERE status = 'pending' AND claim_expires_at IS NOT NULL;
-- A retried claim's lookup of the claim its first attempt made (REPLAY).
CREATE INDEX IF NOT EXISTS work_queue_claim_requests
    ON work_queue (queue, claimed_by, claim_request_id)
    WHERE status = 'pending' AND claim_request_id IS NOT NULL;
";

/// The columns [`ItemRow::read`] expects, in order.
const ITEM_COLUMNS: &str = "item_id, status, payload, dedupe_key, attempts, max_attempts,
    claim_token, claimed_by, claim_expires_at, completed_token, completed_by, result,
    failed_token, last_error, claim_ms";

/// The design's claim. As written it hard-codes 60 s and counts no attempts; here the duration
/// is the request's, each claim counts an attempt, an item out of attempts is not a candidate,
/// and the new expiry is computed from `clock_timestamp()`: the subqueries have locked the row
/// (skipping rows other claims hold) before it is computed, whereas `CURRENT_TIMESTAMP` would be
/// the start of the transaction.
///
/// The candidate is the smaller of two, each one index lookup however many items are done or
/// claimed: the oldest item never claimed (or failed back, which ends its claim), and the oldest
/// whose claim ran out. Together they are the design's oldest claimable item, as in the SQLite
/// store. Each subquery locks its candidate; the larger stays locked until the transaction ends,
/// so a concurrent claim passes over it as over any item another claim holds.
///
/// - The first is written with `queue` as a range, not `queue = $1`, so that the ordering is by
///   `(queue, item_id)`, which only `work_queue_unclaimed` gives. With `queue = $1` the planner
///   drops `queue` from the ordering and may walk the primary key instead, through every done
///   item and every item of other queues (it assumes the matches are spread evenly over the key,
///   but they lie at its end).
/// - The second looks up the claims that ran out by expiry in `work_queue_claimed`, passing no
///   live claim, and orders those few by `item_id + 0`, again so that the planner cannot walk the
///   primary key instead. Ran out means before `statement_timestamp()`, the start of this
///   statement, rather than `clock_timestamp()`: a volatile bound cannot limit an index scan, and
///   the earlier instant only leaves a claim that ran out during the statement to the next one.
const CLAIM: &str = "
UPDATE work_queue
SET claimed_by       = $2,
    claim_token      = claim_token + 1,
    attempts         = attempts + 1,
    claim_ms         = $3::bigint,
    claim_request_id = $4,
    claim_expires_at = clock_timestamp() + $3::bigint * INTERVAL '1 millisecond'
WHERE item_id = LEAST(
    (SELECT item_id
     FROM work_queue
     WHERE queue >= $1 AND queue <= $1
       AND status = 'pending'
       AND claim_expires_at IS NULL
       AND attempts < max_attempts
     ORDER BY queue, item_id
     LIMIT 1
     FOR UPDATE SKIP LOCKED),
    (SELECT item_id
     FROM work_queue
     WHERE queue = $1
       AND status = 'pending'
       AND claim_expires_at < statement_timestamp()
       AND attempts < max_attempts
     ORDER BY item_id + 0
     LIMIT 1
     FOR UPDATE SKIP LOCKED)
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

    /// How the item stands, as recorded: a pending item with a claim expiry is claimed (live or
    /// not), as in the design.
    fn recorded(&self) -> Result<ItemRecord, StoreError> {
        Ok(match self.status.as_str() {
            "pending" if self.claim_expires_at.is_some() => ItemRecord::Claimed,
            "pending" => ItemRecord::Pending,
            "done" => ItemRecord::Done,
            "dead" => ItemRecord::Dead,
            other => return Err(StoreError::Corrupt(format!("item status {other}"))),
        })
    }

    /// How long the latest claim has left at `now`, if it is live ([`rules::time_left`]: the
    /// design's "ran out once `< now`").
    fn claim_left(&self, now: SystemTime) -> Option<Duration> {
        let at = self.claim_expires_at.filter(|_| self.status == "pending")?;
        rules::time_left(at, now)
    }

    /// The state as the protocol reports it at `now`.
    fn state_at(&self, now: SystemTime) -> Result<ItemState, StoreError> {
        Ok(rules::item_state(
            self.recorded()?,
            self.claim_left(now).is_some(),
            self.attempts,
            self.max_attempts,
        ))
    }

    /// Whether `token` held by `worker` is this item's live claim; otherwise why not.
    fn check_claim(&self, worker: &str, token: Token, now: SystemTime) -> Result<(), StoreError> {
        let record = ClaimRecord {
            recorded: self.recorded()?,
            token: self.claim_token,
            worker: self.claimed_by.as_deref(),
            live: self.claim_left(now).is_some(),
        };
        rules::check_claim(record, worker, token.get()).map_err(|why| stale_claim(why, token.get()))
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
            .transact(|tx| {
                let req = req.clone();
                Box::pin(async move { claim_in(tx, &req, claim_ms, None).await })
            })
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

    /// Extends the live claim `token` of `worker` on an item to `claim_ms` from now; needs the
    /// claim's secret ([`StoreError::BadClaimSecret`] otherwise).
    pub async fn heartbeat(
        &self,
        claim: &ClaimRef,
        claim_ms: u64,
    ) -> Result<HeartbeatReply, StoreError> {
        let claim_ms = self.limits.clamp(claim_ms);
        let claim = claim.prove(&self.secrets);
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
        let claim = claim.prove(&self.secrets);
        let result = to_json(result)?;
        let next = next.map(|req| {
            let claim_ms = self.limits.clamp(req.claim_ms);
            (req.clone(), claim_ms)
        });
        self.transact(|tx| {
            let (claim, result, next) = (claim.clone(), result.clone(), next.clone());
            Box::pin(complete_in(tx, claim, result, next))
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
        let claim = claim.prove(&self.secrets);
        let error = to_json(error)?;
        let next = next.map(|req| {
            let claim_ms = self.limits.clamp(req.claim_ms);
            (req.clone(), claim_ms)
        });
        self.transact(|tx| {
            let (claim, error, next) = (claim.clone(), error.clone(), next.clone());
            Box::pin(fail_in(tx, claim, error, next))
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
        let claim_expires_in_ms = match state {
            ItemState::Claimed => item.claim_left(now).map(rules::ceil_ms),
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

/// Reading a claimed item under the claim its request presented.
impl Claim {
    /// Locks the item's row until the transaction ends, and reads it with the database clock
    /// read after the lock.
    async fn lock(&self, tx: &Tx) -> Result<(ItemRow, SystemTime), StoreError> {
        let lock = format!(
            "SELECT {ITEM_COLUMNS} FROM work_queue WHERE item_id = $1 AND queue = $2 FOR UPDATE"
        );
        let [item, now] = take(
            tx.pipeline(
                &[(&lock, &[&to_i64(self.item_id), &self.queue]), (NOW, &[])],
                false,
            )
            .await?,
        )?;
        let item = item.first().ok_or(StoreError::NoSuchItem)?;
        Ok((ItemRow::read(item)?, now_from(&now)?))
    }
}

async fn enqueue_in(
    tx: &Tx,
    queue: String,
    items: Vec<NewItem<Value>>,
    default_max: u32,
) -> Result<EnqueueReply, StoreError> {
    let mut values = Vec::with_capacity(items.len());
    for item in &items {
        let max_attempts = i32::try_from(item.max_attempts.unwrap_or(default_max))
            .map_err(|_| StoreError::Corrupt("maxAttempts beyond range".into()))?;
        values.push((to_json(&item.payload)?, max_attempts));
    }
    let params: Vec<[&(dyn ToSql + Sync); 4]> = items
        .iter()
        .zip(&values)
        .map(|(item, (payload, max_attempts))| {
            [
                &queue as &(dyn ToSql + Sync),
                payload,
                &item.dedupe_key,
                max_attempts,
            ]
        })
        .collect();
    // In order, in one round trip: an item whose key an earlier one of this enqueue took conflicts
    // just as if each had waited for the one before.
    let inserts: Vec<Sql> = params
        .iter()
        .map(|params| {
            (
                "INSERT INTO work_queue (queue, payload, dedupe_key, max_attempts)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (queue, dedupe_key) DO NOTHING
                 RETURNING item_id",
                &params[..],
            )
        })
        .collect();
    let inserted = tx.pipeline(&inserts, false).await?;
    let mut replies = Vec::with_capacity(items.len());
    for (item, rows) in items.iter().zip(inserted) {
        let (row, enqueued) = match rows.into_iter().next() {
            Some(row) => (row, true),
            None => {
                // The key is taken: by a committed item, or by one earlier in this same enqueue.
                let existing = tx
                    .pipeline(
                        &[(
                            "SELECT item_id FROM work_queue WHERE queue = $1 AND dedupe_key = $2",
                            &[&queue, &item.dedupe_key],
                        )],
                        false,
                    )
                    .await?
                    .pop()
                    .and_then(|rows| rows.into_iter().next())
                    .ok_or_else(|| {
                        StoreError::Corrupt("a dedupe key conflicted but is gone".into())
                    })?;
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

/// The design's claim ([`CLAIM`]), or a retry's replay, committed in the same round trip as its
/// last statement. `ahead` is a write of the same transaction still to send, sent in the same
/// round trip as the claim's first statement.
async fn claim_in(
    tx: &Tx,
    req: &ClaimRequest,
    claim_ms: u64,
    mut ahead: Option<Sql<'_>>,
) -> Result<ClaimReply<Value>, StoreError> {
    if let Some(request_id) = &req.request_id {
        if let Some(reply) = replayed_claim(tx, req, request_id, ahead.take()).await? {
            return Ok(reply);
        }
    }
    let claim = format!("{CLAIM} RETURNING {ITEM_COLUMNS}");
    let claim_ms = to_i64(claim_ms);
    let params: [&(dyn ToSql + Sync); 4] = [&req.queue, &req.worker, &claim_ms, &req.request_id];
    let mut statements: Vec<Sql> = ahead.into_iter().collect();
    statements.push((&claim, &params));
    let claimed = tx
        .pipeline(&statements, true)
        .await?
        .pop()
        .unwrap_or_default();
    match claimed.first() {
        Some(row) => ItemRow::read(row)?.claimed_reply(),
        None => Ok(ClaimReply {
            claimed: false,
            item: None,
            token: None,
            claim_ms: None,
        }),
    }
}

/// The claim a retry of `req` (with `request_id`) gets, if its first attempt's claim lives: the
/// same item and token, with `claimMs` cut to what the claim has left. `ahead` goes first.
async fn replayed_claim(
    tx: &Tx,
    req: &ClaimRequest,
    request_id: &str,
    ahead: Option<Sql<'_>>,
) -> Result<Option<ClaimReply<Value>>, StoreError> {
    // A retry of a claim whose reply was lost gets the same item while that claim lives. The
    // transaction-scoped advisory lock on the retry's key makes a retry that reached another
    // grantor process while the first attempt was still in flight wait for it, and then find its
    // claim: the lookup is a statement of its own, after the lock, so it sees what committed
    // before the lock was granted. (A hash collision with another key only makes one wait for
    // the other.)
    let key = format!("claim\n{}\n{}\n{request_id}", req.queue, req.worker);
    let lock: [&(dyn ToSql + Sync); 1] = [&key];
    // The retry's worker measures from the retry's send: promise only what is left, measured
    // after the lookup.
    let replay = format!(
        "SELECT {ITEM_COLUMNS}, clock_timestamp()
         FROM work_queue
         WHERE queue = $1 AND claimed_by = $2 AND claim_request_id = $3
           AND status = 'pending' AND claim_expires_at IS NOT NULL
         ORDER BY claim_expires_at DESC LIMIT 1"
    );
    let lookup: [&(dyn ToSql + Sync); 3] = [&req.queue, &req.worker, &request_id];
    let mut statements: Vec<Sql> = ahead.into_iter().collect();
    statements.push((
        "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
        &lock,
    ));
    statements.push((&replay, &lookup));
    let found = tx
        .pipeline(&statements, false)
        .await?
        .pop()
        .unwrap_or_default();
    let Some(row) = found.first() else {
        return Ok(None);
    };
    let mut item = ItemRow::read(row)?;
    let now: SystemTime = row.try_get(15)?;
    let left = item.claim_left(now);
    let Some(claim_ms) = item
        .claim_ms
        .and_then(|granted| rules::replayed_claim_ms(granted, left))
    else {
        return Ok(None);
    };
    item.claim_ms = Some(claim_ms);
    item.claimed_reply().map(Some)
}

/// Sends the last write of a completion or failure (if it has one) and commits, with the next
/// claim in between when the request asked for one: the next claim stands only if the report
/// does.
async fn finish(
    tx: &Tx,
    write: Option<Sql<'_>>,
    next: Option<(ClaimRequest, u64)>,
) -> Result<Option<ClaimReply<Value>>, StoreError> {
    match next {
        Some((req, claim_ms)) => Ok(Some(claim_in(tx, &req, claim_ms, write).await?)),
        None => {
            if let Some(write) = write {
                tx.pipeline(&[write], true).await?;
            }
            Ok(None)
        }
    }
}

async fn heartbeat_in(tx: &Tx, claim: Claim, claim_ms: u64) -> Result<HeartbeatReply, StoreError> {
    let (item, now) = claim.lock(tx).await?;
    item.check_claim(&claim.worker, claim.token, now)?;
    claim.check_proven()?;
    tx.pipeline(
        &[(
            "UPDATE work_queue
             SET claim_ms = $2::bigint,
                 claim_expires_at = $3::timestamptz + $2::bigint * INTERVAL '1 millisecond'
             WHERE item_id = $1",
            &[&to_i64(claim.item_id), &to_i64(claim_ms), &now],
        )],
        true,
    )
    .await?;
    Ok(HeartbeatReply {
        extended: true,
        token: claim.token,
        claim_ms,
    })
}

async fn complete_in(
    tx: &Tx,
    claim: Claim,
    result: String,
    next: Option<(ClaimRequest, u64)>,
) -> Result<(CompleteReply, Option<ClaimReply<Value>>), StoreError> {
    let (item, now) = claim.lock(tx).await?;
    let repeated = item.status == "done"
        && item.completed_token == Some(claim.token.get())
        && item.completed_by.as_deref() == Some(claim.worker.as_str());
    if !repeated {
        item.check_claim(&claim.worker, claim.token, now)?;
    }
    claim.check_proven()?;
    let item_id = to_i64(claim.item_id);
    let params: [&(dyn ToSql + Sync); 2] = [&item_id, &result];
    let write = (!repeated).then_some((
        "UPDATE work_queue
         SET status = 'done', result = $2, completed_token = claim_token,
             completed_by = claimed_by, claim_expires_at = NULL
         WHERE item_id = $1",
        &params[..],
    ));
    let next = finish(tx, write, next).await?;
    let reply = CompleteReply {
        completed: true,
        token: claim.token,
    };
    Ok((reply, next))
}

async fn fail_in(
    tx: &Tx,
    claim: Claim,
    error: String,
    next: Option<(ClaimRequest, u64)>,
) -> Result<(FailReply, Option<ClaimReply<Value>>), StoreError> {
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
        item.status = match rules::after_failure(item.attempts, item.max_attempts) {
            ItemRecord::Dead => "dead",
            _ => "pending",
        }
        .to_owned();
        item.claim_expires_at = None;
    }
    let item_id = to_i64(claim.item_id);
    let params: [&(dyn ToSql + Sync); 3] = [&item_id, &item.status, &error];
    let write = (!repeated).then_some((
        "UPDATE work_queue
         SET status = $2, last_error = $3, failed_token = claim_token,
             claim_expires_at = NULL
         WHERE item_id = $1",
        &params[..],
    ));
    let next = finish(tx, write, next).await?;
    if !repeated {
        tracing::debug!(
            queue = %claim.queue,
            item = claim.item_id,
            worker = %claim.worker,
            status = %item.status,
            "failed"
        );
    }
    let reply = FailReply {
        state: item.state_at(now)?,
        attempts: item.attempts,
        max_attempts: item.max_attempts,
    };
    Ok((reply, next))
}
