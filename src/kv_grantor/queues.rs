//! Work queues on key-value records: the design's work claims, decided as the reference
//! grantor's queues are ([`crate::rules`]: claim tokens, item states, stale claims, replays).
//!
//! An item is a record ([`Key::Item`]) and, while it can still be claimed, an entry of its
//! queue's due index ([`Key::Due`]): due at 0 while pending, due at its claim's expiry while
//! claimed. A claim reads the index up to now (a pending item, or a claim that ran out) in the
//! order the items were enqueued among the pending, and takes the first item it may; commits
//! are checked on every record read, so two claimants never get the same item. An item that
//! reaches a final state (done, dead) leaves the index; its queue's record counts it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::view::{Halt, Read, View};
use super::{Key, KvGrantor};
use crate::protocol::{
    ClaimReply, ClaimReplyWithSecret, ClaimRequest, ClaimedItem, CompleteReply, CompleteRequest,
    EnqueueReply, EnqueueRequest, EnqueuedItem, FailReply, FailRequest, HeartbeatReply,
    HeartbeatRequest, ItemReply, ItemState, NextClaim, QueueStatsReply, Token, WithNextClaim,
    MAX_TOKEN,
};
use crate::requests::Refusal;
use crate::rules::{self, ClaimRecord, ItemRecord as Recorded};

/// How many due entries a claim reads at once: past items it finds dead it takes the next, and
/// when all of these were, it answers that nothing was claimed (the next claim reads on).
const CLAIM_CANDIDATES: usize = 16;

/// A work item as the store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemRecord {
    /// The queue it is in.
    pub queue: String,
    /// How it stands.
    pub state: Recorded,
    /// The payload, as enqueued.
    pub payload: Value,
    /// The dedupe key it was enqueued with.
    #[serde(default)]
    pub dedupe_key: Option<String>,
    /// Claims made so far.
    pub attempts: u32,
    /// Claims it may have.
    pub max_attempts: u32,
    /// The latest claim's token (0 before the first).
    pub claim_token: u64,
    /// Who holds the latest claim.
    #[serde(default)]
    pub claimed_by: Option<String>,
    /// The latest claim's duration, as granted or last extended.
    #[serde(default)]
    pub claim_ms: Option<u64>,
    /// When the latest claim runs out (while claimed), ms on the grantor's clock.
    #[serde(default)]
    pub claim_expires_at_ms: Option<u64>,
    /// The id of the claim request that made the latest claim, for its retry.
    #[serde(default)]
    pub claim_request_id: Option<String>,
    /// The claim token that completed it.
    #[serde(default)]
    pub completed_token: Option<u64>,
    /// Who completed it.
    #[serde(default)]
    pub completed_by: Option<String>,
    /// The result it was completed with.
    #[serde(default)]
    pub result: Option<Value>,
    /// The claim token of the latest failure reported.
    #[serde(default)]
    pub failed_token: Option<u64>,
    /// The error of the latest failure reported.
    #[serde(default)]
    pub last_error: Option<Value>,
}

/// A queue's counts of items in final states (the others are counted from its due index).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueRecord {
    /// Items completed.
    pub done: u64,
    /// Items given up.
    pub dead: u64,
}

/// A due index entry's record: what a queue's counts need of its item without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DueRecord {
    attempts: u32,
    max_attempts: u32,
}

/// The item a dedupe key or a claim request names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ItemRef {
    item_id: u64,
}

/// The last item id given out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ItemCounter {
    last: u64,
}

/// The claim a heartbeat, completion or failure acts under, as the request presented it.
struct ClaimRef<'a> {
    item_id: u64,
    worker: &'a str,
    token: Token,
    secret: Option<&'a String>,
}

/// The range of `queue`'s due index due before `until_ms` (pending items, and claims that ran
/// out), at most `limit` entries (`None`: all).
fn due_before(queue: &str, until_ms: u64, limit: Option<usize>) -> Read {
    let start = Key::Due {
        queue: queue.to_owned(),
        due_ms: 0,
        id: 0,
    };
    let end = Key::Due {
        queue: queue.to_owned(),
        due_ms: until_ms,
        id: 0,
    };
    Read::Range {
        kind: "due",
        start: start.name(),
        end: end.name(),
        limit,
    }
}

impl KvGrantor {
    /// When a claim that runs out at `expires_at_ms` is over for good: `clock_skew_ms` later,
    /// as for leases.
    fn claim_over_after(&self, expires_at_ms: u64) -> u64 {
        expires_at_ms.saturating_add(self.clock_skew_ms)
    }

    fn claim_left(&self, item: &ItemRecord, now_ms: u64) -> Option<std::time::Duration> {
        let until = item
            .claim_expires_at_ms
            .filter(|_| item.state == Recorded::Claimed)?;
        rules::time_left(
            super::micros(self.claim_over_after(until)),
            super::micros(now_ms),
        )
    }

    /// The item `item_id` of `queue`, or `no_such_item`.
    fn item(&self, view: &View<'_>, queue: &str, item_id: u64) -> Result<ItemRecord, Halt> {
        view.get::<ItemRecord>(&Key::Item(item_id))?
            .filter(|item| item.queue == queue)
            .ok_or_else(|| Refusal::no_such_item().into())
    }

    /// Whether `claim` is the item's live claim, else why not.
    fn check_claim(
        &self,
        item: &ItemRecord,
        claim: &ClaimRef<'_>,
        now_ms: u64,
    ) -> Result<(), Halt> {
        let record = ClaimRecord {
            recorded: item.state,
            token: item.claim_token,
            worker: item.claimed_by.as_deref(),
            live: self.claim_left(item, now_ms).is_some(),
        };
        rules::check_claim(record, claim.worker, claim.token.get())
            .map_err(|why| Refusal::stale_claim(why, claim.token.get()).into())
    }

    /// Refuses to act on a claim without its secret.
    fn check_proven(&self, claim: &ClaimRef<'_>) -> Result<(), Halt> {
        let proven = self
            .secrets
            .claim_proof(claim.item_id, claim.secret.cloned())
            .proves(claim.token.get());
        if proven {
            Ok(())
        } else {
            Err(Refusal::bad_claim_secret().into())
        }
    }

    /// `POST /v1/queues/enqueue`: adds the items in order, each unless its dedupe key already
    /// names an item of the queue.
    pub fn enqueue(
        &self,
        req: &EnqueueRequest<Value>,
        view: &mut View<'_>,
    ) -> Result<EnqueueReply, Halt> {
        let dedupe = |key: &String| Key::Dedupe {
            queue: req.queue.clone(),
            key: key.clone(),
        };
        let mut keys = vec![Key::ItemCounter];
        keys.extend(
            req.items
                .iter()
                .filter_map(|i| i.dedupe_key.as_ref())
                .map(dedupe),
        );
        view.need(&keys)?;
        let mut counter = view
            .get::<ItemCounter>(&Key::ItemCounter)?
            .unwrap_or_default();
        let mut items = Vec::with_capacity(req.items.len());
        for new in &req.items {
            if let Some(key) = &new.dedupe_key {
                if let Some(existing) = view.get::<ItemRef>(&dedupe(key))? {
                    items.push(EnqueuedItem {
                        item_id: existing.item_id,
                        enqueued: false,
                    });
                    continue;
                }
            }
            if counter.last >= MAX_TOKEN {
                return Err(Refusal::token_exhausted().into());
            }
            counter.last += 1;
            let id = counter.last;
            let max_attempts = new.max_attempts.unwrap_or(self.default_max_attempts);
            view.put(
                Key::Item(id),
                &ItemRecord {
                    queue: req.queue.clone(),
                    state: Recorded::Pending,
                    payload: new.payload.clone(),
                    dedupe_key: new.dedupe_key.clone(),
                    attempts: 0,
                    max_attempts,
                    claim_token: 0,
                    claimed_by: None,
                    claim_ms: None,
                    claim_expires_at_ms: None,
                    claim_request_id: None,
                    completed_token: None,
                    completed_by: None,
                    result: None,
                    failed_token: None,
                    last_error: None,
                },
            );
            self.index(view, &req.queue, 0, id, 0, max_attempts);
            if let Some(key) = &new.dedupe_key {
                view.put(dedupe(key), &ItemRef { item_id: id });
            }
            items.push(EnqueuedItem {
                item_id: id,
                enqueued: true,
            });
        }
        view.put(Key::ItemCounter, &counter);
        Ok(EnqueueReply { items })
    }

    /// Adds item `id` to `queue`'s due index, due at `due_ms`.
    fn index(
        &self,
        view: &mut View<'_>,
        queue: &str,
        due_ms: u64,
        id: u64,
        attempts: u32,
        max_attempts: u32,
    ) {
        let key = Key::Due {
            queue: queue.to_owned(),
            due_ms,
            id,
        };
        view.put(
            key,
            &DueRecord {
                attempts,
                max_attempts,
            },
        );
    }

    /// Forgets the request that made the item's latest claim, once that claim ended: its retry
    /// is then a new claim (as the replay rule has it for a claim no longer live), and the record
    /// would otherwise be kept for good.
    fn forget_claim_request(view: &mut View<'_>, item: &mut ItemRecord) {
        if let (Some(request_id), Some(worker)) = (item.claim_request_id.take(), &item.claimed_by) {
            view.delete(Key::ClaimRequest {
                queue: item.queue.clone(),
                worker: worker.clone(),
                request_id,
            });
        }
    }

    /// The item's current due index entry.
    fn due_key(item: &ItemRecord, id: u64) -> Key {
        Key::Due {
            queue: item.queue.clone(),
            due_ms: match item.state {
                Recorded::Claimed => item.claim_expires_at_ms.unwrap_or(0),
                _ => 0,
            },
            id,
        }
    }

    /// `POST /v1/queues/claim`: the first item of the queue that may be claimed (pending, or its
    /// claim ran out, with attempts left), under the next claim token, one more attempt counted.
    /// A retry of a claim (same worker and request id) gets the same item while that claim lives.
    pub fn claim(
        &self,
        req: &ClaimRequest,
        view: &mut View<'_>,
        now_ms: u64,
    ) -> Result<ClaimReplyWithSecret<Value>, Halt> {
        let claim_ms = self.limits.clamp(req.claim_ms);
        if let Some(request_id) = &req.request_id {
            let index = Key::ClaimRequest {
                queue: req.queue.clone(),
                worker: req.worker.clone(),
                request_id: request_id.clone(),
            };
            if let Some(given) = view.get::<ItemRef>(&index)? {
                let item = view.get::<ItemRecord>(&Key::Item(given.item_id))?;
                let replayed = item.filter(|item| {
                    item.state == Recorded::Claimed
                        && item.claimed_by.as_deref() == Some(req.worker.as_str())
                        && item.claim_request_id.as_deref() == Some(request_id.as_str())
                });
                if let Some(item) = replayed {
                    let left = self.claim_left(&item, now_ms);
                    let granted = item.claim_ms.unwrap_or(0);
                    if let Some(ms) = rules::replayed_claim_ms(granted, left) {
                        return self.claimed_reply(given.item_id, &item, ms);
                    }
                }
            }
        }
        // Claims that ran out by now, with the skew allowed for: due before now less the skew.
        let until = now_ms.saturating_sub(self.clock_skew_ms);
        let candidates = view.range(due_before(&req.queue, until, Some(CLAIM_CANDIDATES)))?;
        let ids: Vec<u64> = candidates
            .iter()
            .filter_map(|key| match key {
                Key::Due { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        view.need(&ids.iter().map(|id| Key::Item(*id)).collect::<Vec<_>>())?;
        for (due, id) in candidates.into_iter().zip(ids) {
            let Some(mut item) = view.get::<ItemRecord>(&Key::Item(id))? else {
                // An entry whose item is gone: nothing to claim there.
                view.delete(due);
                continue;
            };
            if Self::due_key(&item, id) != due {
                // An entry left behind by a change of the item: its own entry is elsewhere.
                view.delete(due);
                continue;
            }
            let claimable = match item.state {
                Recorded::Pending | Recorded::Claimed => item.attempts < item.max_attempts,
                Recorded::Done | Recorded::Dead => {
                    view.delete(due);
                    continue;
                }
            };
            view.delete(due);
            Self::forget_claim_request(view, &mut item);
            if !claimable {
                // Its last allowed claim ran out: it is dead, not claimable again.
                item.state = Recorded::Dead;
                item.claim_expires_at_ms = None;
                view.put(Key::Item(id), &item);
                self.count_final(view, &req.queue, Recorded::Dead)?;
                continue;
            }
            item.state = Recorded::Claimed;
            item.claimed_by = Some(req.worker.clone());
            item.claim_token += 1;
            item.attempts += 1;
            item.claim_ms = Some(claim_ms);
            let expires = now_ms.saturating_add(claim_ms);
            item.claim_expires_at_ms = Some(expires);
            item.claim_request_id = req.request_id.clone();
            self.index(
                view,
                &req.queue,
                expires,
                id,
                item.attempts,
                item.max_attempts,
            );
            if let Some(request_id) = &req.request_id {
                let index = Key::ClaimRequest {
                    queue: req.queue.clone(),
                    worker: req.worker.clone(),
                    request_id: request_id.clone(),
                };
                view.put(index, &ItemRef { item_id: id });
            }
            view.put(Key::Item(id), &item);
            return self.claimed_reply(id, &item, claim_ms);
        }
        Ok(ClaimReplyWithSecret {
            reply: ClaimReply {
                claimed: false,
                item: None,
                token: None,
                claim_ms: None,
            },
            claim_secret: None,
        })
    }

    fn claimed_reply(
        &self,
        id: u64,
        item: &ItemRecord,
        claim_ms: u64,
    ) -> Result<ClaimReplyWithSecret<Value>, Halt> {
        let token = Token::new(item.claim_token).map_err(|_| Refusal::token_exhausted())?;
        Ok(ClaimReplyWithSecret {
            reply: ClaimReply {
                claimed: true,
                item: Some(ClaimedItem {
                    id,
                    payload: item.payload.clone(),
                    attempts: item.attempts,
                    max_attempts: item.max_attempts,
                }),
                token: Some(token),
                claim_ms: Some(claim_ms),
            },
            claim_secret: Some(self.secrets.claim(id, token.get())),
        })
    }

    /// Counts an item of `queue` that reached a final state.
    fn count_final(&self, view: &mut View<'_>, queue: &str, state: Recorded) -> Result<(), Halt> {
        let key = Key::Queue(queue.to_owned());
        let mut counts = view.get::<QueueRecord>(&key)?.unwrap_or_default();
        match state {
            Recorded::Done => counts.done += 1,
            _ => counts.dead += 1,
        }
        view.put(key, &counts);
        Ok(())
    }

    /// The item a completion or failure report acts on, checked: the report's claim must be the
    /// item's live claim, unless `repeated` says the report repeats one already applied (then it
    /// is answered the same again); either way it needs the claim's secret. Returns the item and
    /// whether the report is a repeat.
    fn settled_item(
        &self,
        queue: &str,
        claim: &ClaimRef<'_>,
        view: &View<'_>,
        now_ms: u64,
        repeated: impl FnOnce(&ItemRecord) -> bool,
    ) -> Result<(ItemRecord, bool), Halt> {
        let item = self.item(view, queue, claim.item_id)?;
        let repeated = repeated(&item);
        if !repeated {
            self.check_claim(&item, claim, now_ms)?;
        }
        self.check_proven(claim)?;
        Ok((item, repeated))
    }

    /// The next item a completion or failure report asks to claim (`claimNext`), in its commit.
    fn claim_next(
        &self,
        next: Option<&NextClaim>,
        queue: &str,
        worker: &str,
        view: &mut View<'_>,
        now_ms: u64,
    ) -> Result<Option<ClaimReplyWithSecret<Value>>, Halt> {
        next.map(|next| self.claim(&next.request(queue, worker), view, now_ms))
            .transpose()
    }

    /// `POST /v1/queues/heartbeat`: extends the live claim to `claimMs` from now; needs the
    /// claim's secret.
    pub fn heartbeat(
        &self,
        req: &HeartbeatRequest,
        view: &mut View<'_>,
        now_ms: u64,
    ) -> Result<HeartbeatReply, Halt> {
        let claim = ClaimRef {
            item_id: req.item_id,
            worker: &req.worker,
            token: req.token,
            secret: req.claim_secret.as_ref(),
        };
        let claim_ms = self.limits.clamp(req.claim_ms);
        let mut item = self.item(view, &req.queue, req.item_id)?;
        self.check_claim(&item, &claim, now_ms)?;
        self.check_proven(&claim)?;
        view.delete(Self::due_key(&item, req.item_id));
        let expires = now_ms.saturating_add(claim_ms);
        item.claim_ms = Some(claim_ms);
        item.claim_expires_at_ms = Some(expires);
        self.index(
            view,
            &req.queue,
            expires,
            req.item_id,
            item.attempts,
            item.max_attempts,
        );
        view.put(Key::Item(req.item_id), &item);
        Ok(HeartbeatReply {
            extended: true,
            token: req.token,
            claim_ms,
        })
    }

    /// `POST /v1/queues/complete`: completes the item under its live claim, recording which
    /// claim completed it; a repeat of a successful completion is answered the same. Both need
    /// the claim's secret. With `claimNext`, claims the next item in the same commit.
    pub fn complete(
        &self,
        req: &CompleteRequest<Value>,
        view: &mut View<'_>,
        now_ms: u64,
    ) -> Result<WithNextClaim<CompleteReply, Value>, Halt> {
        let claim = ClaimRef {
            item_id: req.item_id,
            worker: &req.worker,
            token: req.token,
            secret: req.claim_secret.as_ref(),
        };
        let (mut item, repeated) = self.settled_item(&req.queue, &claim, view, now_ms, |item| {
            item.state == Recorded::Done
                && item.completed_token == Some(req.token.get())
                && item.completed_by.as_deref() == Some(req.worker.as_str())
        })?;
        if !repeated {
            view.delete(Self::due_key(&item, req.item_id));
            Self::forget_claim_request(view, &mut item);
            item.state = Recorded::Done;
            item.result = Some(req.result.clone());
            item.completed_token = Some(item.claim_token);
            item.completed_by = item.claimed_by.clone();
            item.claim_expires_at_ms = None;
            view.put(Key::Item(req.item_id), &item);
            self.count_final(view, &req.queue, Recorded::Done)?;
        }
        let next = self.claim_next(
            req.claim_next.as_ref(),
            &req.queue,
            &req.worker,
            view,
            now_ms,
        )?;
        Ok(WithNextClaim {
            reply: CompleteReply {
                completed: true,
                token: req.token,
            },
            next,
        })
    }

    /// `POST /v1/queues/fail`: ends the live claim after a failed attempt: the item is pending
    /// again, or dead after its last allowed attempt; a repeat of a successful failure report is
    /// answered the same. Both need the claim's secret. With `claimNext`, claims the next item in
    /// the same commit.
    pub fn fail(
        &self,
        req: &FailRequest<Value>,
        view: &mut View<'_>,
        now_ms: u64,
    ) -> Result<WithNextClaim<FailReply, Value>, Halt> {
        let claim = ClaimRef {
            item_id: req.item_id,
            worker: &req.worker,
            token: req.token,
            secret: req.claim_secret.as_ref(),
        };
        let (mut item, repeated) = self.settled_item(&req.queue, &claim, view, now_ms, |item| {
            matches!(item.state, Recorded::Pending | Recorded::Dead)
                && item.failed_token == Some(req.token.get())
                && item.claim_token == req.token.get()
                && item.claimed_by.as_deref() == Some(req.worker.as_str())
        })?;
        if !repeated {
            view.delete(Self::due_key(&item, req.item_id));
            Self::forget_claim_request(view, &mut item);
            item.state = rules::after_failure(item.attempts, item.max_attempts);
            item.last_error = Some(req.error.clone());
            item.failed_token = Some(item.claim_token);
            item.claim_expires_at_ms = None;
            if item.state == Recorded::Pending {
                self.index(
                    view,
                    &req.queue,
                    0,
                    req.item_id,
                    item.attempts,
                    item.max_attempts,
                );
            } else {
                self.count_final(view, &req.queue, Recorded::Dead)?;
            }
            view.put(Key::Item(req.item_id), &item);
        }
        let state = rules::item_state(
            item.state,
            self.claim_left(&item, now_ms).is_some(),
            item.attempts,
            item.max_attempts,
        );
        let next = self.claim_next(
            req.claim_next.as_ref(),
            &req.queue,
            &req.worker,
            view,
            now_ms,
        )?;
        Ok(WithNextClaim {
            reply: FailReply {
                state,
                attempts: item.attempts,
                max_attempts: item.max_attempts,
            },
            next,
        })
    }

    /// `POST /v1/queues/stats`: how many items of `queue` are in each state now. Reads the
    /// queue's whole due index (its items not yet done or dead).
    pub fn queue_stats(
        &self,
        queue: &str,
        view: &View<'_>,
        now_ms: u64,
    ) -> Result<QueueStatsReply, Halt> {
        let counts = view
            .get::<QueueRecord>(&Key::Queue(queue.to_owned()))?
            .unwrap_or_default();
        let mut reply = QueueStatsReply {
            queue: queue.to_owned(),
            pending: 0,
            claimed: 0,
            done: counts.done,
            dead: counts.dead,
        };
        for key in view.range(due_before(queue, u64::MAX, None))? {
            let Key::Due { due_ms, .. } = key else {
                continue;
            };
            let Some(due) = view.get::<DueRecord>(&key)? else {
                continue;
            };
            let claimed = due_ms != 0;
            let live = claimed
                && rules::is_live(
                    super::micros(self.claim_over_after(due_ms)),
                    super::micros(now_ms),
                );
            let recorded = if claimed {
                Recorded::Claimed
            } else {
                Recorded::Pending
            };
            match rules::item_state(recorded, live, due.attempts, due.max_attempts) {
                ItemState::Pending => reply.pending += 1,
                ItemState::Claimed => reply.claimed += 1,
                ItemState::Done => reply.done += 1,
                ItemState::Dead => reply.dead += 1,
            }
        }
        Ok(reply)
    }

    /// `POST /v1/queues/item`: one item's record.
    pub fn item_reply(
        &self,
        queue: &str,
        item_id: u64,
        view: &View<'_>,
        now_ms: u64,
    ) -> Result<ItemReply<Value>, Halt> {
        let item = self.item(view, queue, item_id)?;
        let left = self.claim_left(&item, now_ms);
        let state = rules::item_state(item.state, left.is_some(), item.attempts, item.max_attempts);
        let done = state == ItemState::Done;
        let token = |t: u64| Token::new(t).map_err(|_| Halt::from(Refusal::token_exhausted()));
        Ok(ItemReply {
            id: item_id,
            state,
            payload: item.payload,
            dedupe_key: item.dedupe_key,
            attempts: item.attempts,
            max_attempts: item.max_attempts,
            claim_token: token(item.claim_token)?,
            claimed_by: item.claimed_by,
            claim_expires_in_ms: left
                .filter(|_| state == ItemState::Claimed)
                .map(rules::ceil_ms),
            completed_token: item
                .completed_token
                .filter(|_| done)
                .map(token)
                .transpose()?,
            completed_by: item.completed_by.filter(|_| done),
            result: item.result.filter(|_| done),
            last_error: item.last_error,
        })
    }
}
