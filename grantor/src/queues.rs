//! Work queues: the design's work claims, on the same database and time model as the leases.
//!
//! An item is claimed with a processing lease: a claim token (the item's counter plus one) and a
//! claim that runs out by itself. Claim expiry is measured like lease expiry, on this process's
//! monotonic clock: `claim_expires_at` holds microseconds since [`Store`] opened the database,
//! which means nothing to the next process, so opening rebases every claim still recorded as
//! `claimed` to its full `claim_ms` from the restart. A claim can therefore only last longer than
//! its worker believes, never shorter, and no item is reclaimed early.
//!
//! Because SQLite has one writer at a time and every operation runs in one `BEGIN IMMEDIATE`
//! transaction, the claim's single `UPDATE … WHERE id = (SELECT … LIMIT 1) RETURNING` has the
//! effect of `FOR UPDATE SKIP LOCKED`: two workers never get the same item, and no worker waits
//! on an item another has claimed, because claimed items are simply not candidates.

use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;
use tenure::protocol::{
    ClaimReply, ClaimRequest, CompleteReply, EnqueueReply, EnqueuedItem, FailReply, HeartbeatReply,
    ItemReply, ItemState, NewItem, QueueStatsReply, Token,
};
use tenure::rules::{self, ClaimRecord, ItemRecord};

use crate::backend::ClaimRef;
use crate::records::{from_i64, stale_claim, to_i64, to_json, StoreError, StoredItem};
use crate::store::Store;

/// The columns [`ItemRow::read`] expects, in order.
const ITEM_COLUMNS: &str = "id, state, payload, dedupe_key, attempts, max_attempts, claim_token,
    claimed_by, claim_expires_at, completed_token, completed_by, result, failed_token, last_error";

/// One row of `work_items`.
struct ItemRow {
    id: u64,
    state: String,
    payload: String,
    dedupe_key: Option<String>,
    attempts: u32,
    max_attempts: u32,
    claim_token: u64,
    claimed_by: Option<String>,
    claim_expires_at: Option<i64>,
    completed_token: Option<u64>,
    completed_by: Option<String>,
    result: Option<String>,
    failed_token: Option<u64>,
    last_error: Option<String>,
}

impl ItemRow {
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

    fn read(r: &Row<'_>) -> rusqlite::Result<ItemRow> {
        let count = |i: usize| -> rusqlite::Result<u64> {
            let v: i64 = r.get(i)?;
            u64::try_from(v).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(i, v))
        };
        let small = |i: usize| -> rusqlite::Result<u32> {
            let v: i64 = r.get(i)?;
            u32::try_from(v).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(i, v))
        };
        let optional = |i: usize| -> rusqlite::Result<Option<u64>> {
            r.get::<_, Option<i64>>(i)?
                .map(|v| {
                    u64::try_from(v).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(i, v))
                })
                .transpose()
        };
        Ok(ItemRow {
            id: count(0)?,
            state: r.get(1)?,
            payload: r.get(2)?,
            dedupe_key: r.get(3)?,
            attempts: small(4)?,
            max_attempts: small(5)?,
            claim_token: count(6)?,
            claimed_by: r.get(7)?,
            claim_expires_at: r.get(8)?,
            completed_token: optional(9)?,
            completed_by: r.get(10)?,
            result: r.get(11)?,
            failed_token: optional(12)?,
            last_error: r.get(13)?,
        })
    }

    /// The state as the protocol reports it at `now`: a claim that ran out is pending again, or
    /// dead once it was the last allowed attempt, even before the sweep records it.
    fn state_at(&self, now: i64) -> Result<ItemState, StoreError> {
        Ok(rules::item_state(
            self.recorded()?,
            self.is_live(now),
            self.attempts,
            self.max_attempts,
        ))
    }

    /// How the item stands, as recorded.
    fn recorded(&self) -> Result<ItemRecord, StoreError> {
        Ok(match self.state.as_str() {
            "pending" => ItemRecord::Pending,
            "claimed" => ItemRecord::Claimed,
            "done" => ItemRecord::Done,
            "dead" => ItemRecord::Dead,
            other => return Err(StoreError::Corrupt(format!("item state {other}"))),
        })
    }

    /// How long the latest claim has left at `now`, if it is live.
    fn claim_left(&self, now: i64) -> Option<Duration> {
        let at = self.claim_expires_at.filter(|_| self.state == "claimed")?;
        rules::time_left(at, now)
    }

    fn is_live(&self, now: i64) -> bool {
        self.claim_left(now).is_some()
    }

    /// Whether `token` held by `worker` is this item's live claim; otherwise why not.
    fn check_claim(&self, worker: &str, token: Token, now: i64) -> Result<(), StoreError> {
        let record = ClaimRecord {
            recorded: self.recorded()?,
            token: self.claim_token,
            worker: self.claimed_by.as_deref(),
            live: self.is_live(now),
        };
        rules::check_claim(record, worker, token.get()).map_err(|why| stale_claim(why, token.get()))
    }
}

impl Store {
    /// Microseconds on this process's monotonic clock since the database was opened.
    pub(crate) fn queue_now(&self) -> i64 {
        let elapsed = self.now().saturating_duration_since(self.queue_epoch);
        i64::try_from(elapsed.as_micros()).unwrap_or(i64::MAX)
    }

    /// Adds `items` to `queue` in order, skipping those whose dedupe key is already in the queue.
    pub fn enqueue(
        &mut self,
        queue: &str,
        items: &[NewItem<Value>],
    ) -> Result<EnqueueReply, StoreError> {
        let default_max = self.default_max_attempts;
        let tx = &self.conn;
        let mut replies = Vec::with_capacity(items.len());
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO work_items (queue, payload, dedupe_key, state, max_attempts)
                 VALUES (?1, ?2, ?3, 'pending', ?4)
                 ON CONFLICT (queue, dedupe_key) DO NOTHING
                 RETURNING id",
            )?;
            let mut existing = tx
                .prepare_cached("SELECT id FROM work_items WHERE queue = ?1 AND dedupe_key = ?2")?;
            for item in items {
                let max_attempts = item.max_attempts.unwrap_or(default_max);
                let inserted: Option<i64> = insert
                    .query_row(
                        params![
                            queue,
                            to_json(&item.payload)?,
                            item.dedupe_key,
                            max_attempts
                        ],
                        |r| r.get(0),
                    )
                    .optional()?;
                let (id, enqueued) = match inserted {
                    Some(id) => (id, true),
                    None => {
                        let id: i64 =
                            existing.query_row(params![queue, item.dedupe_key], |r| r.get(0))?;
                        (id, false)
                    }
                };
                replies.push(EnqueuedItem {
                    item_id: from_i64(id)?,
                    enqueued,
                });
            }
        }
        Ok(EnqueueReply { items: replies })
    }

    /// The design's claim: the oldest pending item whose claim is absent or ran out, with the
    /// claim token incremented and one more attempt counted.
    pub fn claim(&mut self, req: &ClaimRequest) -> Result<ClaimReply<Value>, StoreError> {
        let claim_ms = self.limits.clamp(req.claim_ms);
        let now = self.queue_now();
        let tx = &self.conn;
        if let Some(request_id) = &req.request_id {
            // A retry of a claim whose reply was lost gets the same item while that claim lives.
            let replay = tx
                .query_row(
                    &format!(
                        "SELECT {ITEM_COLUMNS}, claim_ms FROM work_items
                         WHERE queue = ?1 AND state = 'claimed' AND claimed_by = ?2
                           AND claim_request_id = ?3
                         ORDER BY claim_expires_at DESC LIMIT 1"
                    ),
                    params![req.queue, req.worker, request_id],
                    |r| Ok((ItemRow::read(r)?, r.get::<_, i64>(14)?)),
                )
                .optional()?;
            if let Some((row, granted_ms)) = replay {
                // The retry's worker measures from the retry's send: promise only what is left.
                let left = row.claim_left(now);
                if let Some(claim_ms) = rules::replayed_claim_ms(from_i64(granted_ms)?, left) {
                    return row.stored().claimed_reply(claim_ms);
                }
            }
        }
        // An exhausted item whose last claim ran out is dead, not claimable again.
        tx.execute(
            "UPDATE work_items SET state = 'dead', claim_expires_at = NULL
             WHERE queue = ?1 AND state = 'claimed' AND claim_expires_at < ?2
               AND attempts >= max_attempts",
            params![req.queue, now],
        )?;
        let claimed = tx
            .prepare_cached(&format!(
                "UPDATE work_items
                     SET state = 'claimed',
                         claimed_by = ?2,
                         claim_token = claim_token + 1,
                         attempts = attempts + 1,
                         claim_ms = ?3,
                         claim_expires_at = ?4 + ?3 * 1000,
                         claim_request_id = ?5
                     WHERE id = (
                         -- The oldest pending item or ran-out claim: two index lookups, so
                         -- the search does not pass over a long history of done items.
                         SELECT MIN(id) FROM (
                             SELECT id FROM (
                                 SELECT id FROM work_items
                                 WHERE queue = ?1 AND state = 'pending'
                                   AND attempts < max_attempts
                                 ORDER BY id LIMIT 1)
                             UNION ALL
                             SELECT id FROM (
                                 SELECT id FROM work_items
                                 WHERE queue = ?1 AND state = 'claimed'
                                   AND claim_expires_at < ?4 AND attempts < max_attempts
                                 ORDER BY id LIMIT 1)
                         )
                     )
                     RETURNING {ITEM_COLUMNS}"
            ))?
            .query_row(
                params![req.queue, req.worker, to_i64(claim_ms), now, req.request_id],
                ItemRow::read,
            )
            .optional()?;
        match claimed {
            None => Ok(ClaimReply {
                claimed: false,
                item: None,
                token: None,
                claim_ms: None,
            }),
            Some(row) => {
                tracing::debug!(
                    queue = %req.queue,
                    item = row.id,
                    worker = %req.worker,
                    token = row.claim_token,
                    "claimed"
                );
                row.stored().claimed_reply(claim_ms)
            }
        }
    }

    /// Extends the live claim `token` of `worker` on an item to `claim_ms` from now; needs the
    /// claim's secret ([`StoreError::BadClaimSecret`] otherwise).
    pub fn heartbeat(
        &mut self,
        claim: &ClaimRef,
        claim_ms: u64,
    ) -> Result<HeartbeatReply, StoreError> {
        let claim_ms = self.limits.clamp(claim_ms);
        let claim = claim.prove(&self.secrets);
        let (item_id, token) = (claim.item_id, claim.token);
        let now = self.queue_now();
        let tx = &self.conn;
        let row = item_row(tx, &claim.queue, item_id)?;
        row.check_claim(&claim.worker, token, now)?;
        claim.check_proven()?;
        tx.prepare_cached(
            "UPDATE work_items SET claim_ms = ?2, claim_expires_at = ?3 + ?2 * 1000 WHERE id = ?1",
        )?
        .execute(params![to_i64(item_id), to_i64(claim_ms), now])?;
        Ok(HeartbeatReply {
            extended: true,
            token,
            claim_ms,
        })
    }

    /// Completes an item under its live claim `token`, recording which claim completed it.
    /// Repeating a successful completion answers the same again. Both need the claim's secret.
    pub fn complete(
        &mut self,
        claim: &ClaimRef,
        result: &Value,
        next: Option<&ClaimRequest>,
    ) -> Result<(CompleteReply, Option<ClaimReply<Value>>), StoreError> {
        let claim = claim.prove(&self.secrets);
        let (queue, item_id, worker, token) = (
            claim.queue.as_str(),
            claim.item_id,
            claim.worker.as_str(),
            claim.token,
        );
        let now = self.queue_now();
        let tx = &self.conn;
        let row = item_row(tx, queue, item_id)?;
        let repeated = row.state == "done"
            && row.completed_token == Some(token.get())
            && row.completed_by.as_deref() == Some(worker);
        if !repeated {
            row.check_claim(worker, token, now)?;
        }
        claim.check_proven()?;
        if !repeated {
            tx.execute(
                "UPDATE work_items
                 SET state = 'done', result = ?2, completed_token = claim_token,
                     completed_by = claimed_by, claim_expires_at = NULL
                 WHERE id = ?1",
                params![to_i64(item_id), to_json(result)?],
            )?;
        }
        let reply = CompleteReply {
            completed: true,
            token,
        };
        Ok((reply, next.map(|req| self.claim(req)).transpose()?))
    }

    /// Ends the live claim `token` after a failed attempt: the item is pending again, or dead
    /// after its last allowed attempt. Repeating a successful fail answers the same again. Both
    /// need the claim's secret.
    pub fn fail(
        &mut self,
        claim: &ClaimRef,
        error: &Value,
        next: Option<&ClaimRequest>,
    ) -> Result<(FailReply, Option<ClaimReply<Value>>), StoreError> {
        let claim = claim.prove(&self.secrets);
        let (queue, item_id, worker, token) = (
            claim.queue.as_str(),
            claim.item_id,
            claim.worker.as_str(),
            claim.token,
        );
        let now = self.queue_now();
        let tx = &self.conn;
        let mut row = item_row(tx, queue, item_id)?;
        let repeated = matches!(row.state.as_str(), "pending" | "dead")
            && row.failed_token == Some(token.get())
            && row.claim_token == token.get()
            && row.claimed_by.as_deref() == Some(worker);
        if !repeated {
            row.check_claim(worker, token, now)?;
        }
        claim.check_proven()?;
        if !repeated {
            row.state = match rules::after_failure(row.attempts, row.max_attempts) {
                ItemRecord::Dead => "dead",
                _ => "pending",
            }
            .to_owned();
            tx.execute(
                "UPDATE work_items
                 SET state = ?2, last_error = ?3, failed_token = claim_token,
                     claim_expires_at = NULL
                 WHERE id = ?1",
                params![to_i64(item_id), row.state, to_json(error)?],
            )?;
            tracing::debug!(queue, item = item_id, worker, state = %row.state, "failed");
        }
        let reply = FailReply {
            state: row.state_at(now)?,
            attempts: row.attempts,
            max_attempts: row.max_attempts,
        };
        Ok((reply, next.map(|req| self.claim(req)).transpose()?))
    }

    /// How many items of `queue` are in each state now.
    pub fn queue_stats(&self, queue: &str) -> Result<QueueStatsReply, StoreError> {
        let now = self.queue_now();
        let (pending, claimed, done, dead): (i64, i64, i64, i64) = self.conn.query_row(
            "SELECT
                COUNT(*) FILTER (WHERE state = 'pending' OR (state = 'claimed'
                    AND claim_expires_at < ?2 AND attempts < max_attempts)),
                COUNT(*) FILTER (WHERE state = 'claimed' AND claim_expires_at >= ?2),
                COUNT(*) FILTER (WHERE state = 'done'),
                COUNT(*) FILTER (WHERE state = 'dead' OR (state = 'claimed'
                    AND claim_expires_at < ?2 AND attempts >= max_attempts))
             FROM work_items WHERE queue = ?1",
            params![queue, now],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
        Ok(QueueStatsReply {
            queue: queue.to_owned(),
            pending: from_i64(pending)?,
            claimed: from_i64(claimed)?,
            done: from_i64(done)?,
            dead: from_i64(dead)?,
        })
    }

    /// One item's record.
    pub fn item(&self, queue: &str, item_id: u64) -> Result<ItemReply<Value>, StoreError> {
        let now = self.queue_now();
        let row = item_row(&self.conn, queue, item_id)?;
        let state = row.state_at(now)?;
        let claim_expires_in_ms = match state {
            ItemState::Claimed => row.claim_left(now).map(rules::ceil_ms),
            _ => None,
        };
        row.stored().item_reply(state, claim_expires_in_ms)
    }

    /// Records every claim that ran out: its item is pending again, or dead after its last
    /// allowed attempt, so a restart does not hold it again. Returns how many were recorded.
    pub fn sweep_claims(&mut self) -> Result<usize, StoreError> {
        let now = self.queue_now();
        let ended = self.conn.execute(
            "UPDATE work_items
             SET state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
                 claim_expires_at = NULL
             WHERE state = 'claimed' AND claim_expires_at < ?1",
            params![now],
        )?;
        Ok(ended)
    }
}

fn item_row(conn: &Connection, queue: &str, item_id: u64) -> Result<ItemRow, StoreError> {
    conn.query_row(
        &format!("SELECT {ITEM_COLUMNS} FROM work_items WHERE id = ?1 AND queue = ?2"),
        params![to_i64(item_id), queue],
        ItemRow::read,
    )
    .optional()?
    .ok_or(StoreError::NoSuchItem)
}
