//! The renewal rule, one for both stores: what a renewal is answered, given what the store
//! records for its resource. The stores differ only in how they know time (SQLite's monotonic
//! clock in memory, PostgreSQL's clock in the database) and how they write; the decision is here.

use std::collections::{HashMap, VecDeque};

use tenure::protocol::{RenewRefusal, RenewReply, RenewRequest};

use crate::replay::{self, LiveGrant};
use crate::store::StoreError;

/// What a store records about a resource's latest grant.
#[derive(Clone, Copy, Debug)]
pub struct Recorded<'a> {
    /// The latest grant's token: the resource's counter.
    pub token: u64,
    /// Who received it (none on a PostgreSQL row that was never granted).
    pub holder: Option<&'a str>,
    /// `held`, or how it ended: `released`, `revoked`, `expired` (SQLite) or `free` (PostgreSQL).
    pub state: &'a str,
    /// The latest revoked grant's token, so its holder learns `revoked` after a newer grant.
    pub revoked_token: Option<u64>,
    /// The latest revoked grant's holder.
    pub revoked_holder: Option<&'a str>,
}

/// The answer to a fresh renewal of `req`. `live` says whether the recorded grant is live now;
/// `proven` whether the request presented that grant's lease secret. A live grant renewed
/// without its secret is refused with an error, never a refusal, so that an attacker's attempt
/// cannot tell the real holder its lease is gone.
pub fn decide(
    recorded: Option<Recorded<'_>>,
    req: &RenewRequest,
    live: bool,
    proven: bool,
    duration_ms: u64,
) -> Result<RenewReply, StoreError> {
    let asked = req.token.get();
    Ok(match recorded {
        // No grant was ever made.
        None => RenewReply::refused(RenewRefusal::Unknown),
        Some(r) if r.state == "free" || asked > r.token => {
            RenewReply::refused(RenewRefusal::Unknown)
        }
        Some(r) if asked < r.token => {
            let revoked =
                r.revoked_token == Some(asked) && r.revoked_holder == Some(req.holder.as_str());
            RenewReply::refused(if revoked {
                RenewRefusal::Revoked
            } else {
                RenewRefusal::NotHolder
            })
        }
        Some(r) if r.holder != Some(req.holder.as_str()) => {
            RenewReply::refused(RenewRefusal::NotHolder)
        }
        Some(r) => match r.state {
            "held" if live && !proven => return Err(StoreError::BadLeaseSecret),
            "held" if live => RenewReply::renewed(req.token, duration_ms),
            "held" | "expired" => RenewReply::refused(RenewRefusal::Expired),
            "revoked" => RenewReply::refused(RenewRefusal::Revoked),
            "released" => RenewReply::refused(RenewRefusal::Unknown),
            other => return Err(StoreError::Corrupt(format!("lease state {other}"))),
        },
    })
}

/// The answer to a retried renewal whose first attempt was answered `stored`: the replay rule
/// of [`replay::replayed_renewal`], and a replayed success needs the secret as a fresh one does.
pub fn replayed(
    stored: RenewReply,
    holder: &str,
    live: Option<LiveGrant<'_>>,
    proven: bool,
) -> Result<RenewReply, StoreError> {
    let reply = replay::replayed_renewal(stored, holder, live);
    if reply.renewed && !proven {
        return Err(StoreError::BadLeaseSecret);
    }
    Ok(reply)
}

/// The latest renewals of a store's resources, kept in memory to answer their retries: renewal
/// outcomes need not be stored durably, because a renewal judged afresh is always safe (it
/// extends a live grant from the retry, never past what the grantor holds, or refuses), so a
/// retry whose outcome was forgotten (an older renewal, or any after a restart) is judged
/// afresh. `docs/protocol.md` (Idempotency) states the rule.
///
/// At most `capacity` resources are remembered; past that the resource recorded first is
/// forgotten first.
pub struct RecentRenewals {
    latest: HashMap<String, Recent>,
    order: VecDeque<String>,
    capacity: usize,
}

/// One resource's latest renewal: who sent it, its id, its request text and its reply as JSON.
struct Recent {
    holder: String,
    request_id: String,
    request: String,
    reply: String,
}

impl RecentRenewals {
    /// Remembers up to `capacity` resources.
    pub fn new(capacity: usize) -> RecentRenewals {
        RecentRenewals {
            latest: HashMap::new(),
            order: VecDeque::new(),
            capacity,
        }
    }

    /// The latest renewal of `resource` if it was `holder`'s with `request_id`: its request text
    /// and its reply as JSON.
    pub fn get(&self, resource: &str, holder: &str, request_id: &str) -> Option<(&str, &str)> {
        self.latest
            .get(resource)
            .filter(|r| r.holder == holder && r.request_id == request_id)
            .map(|r| (r.request.as_str(), r.reply.as_str()))
    }

    /// Records `reply` (JSON) as the latest renewal of `req`'s resource, `request` its text.
    pub fn record(&mut self, req: &RenewRequest, request: String, reply: String) {
        let recent = Recent {
            holder: req.holder.clone(),
            request_id: req.request_id.clone(),
            request,
            reply,
        };
        if self.latest.insert(req.resource.clone(), recent).is_none() {
            self.order.push_back(req.resource.clone());
        }
        while self.order.len() > self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.latest.remove(&oldest);
            }
        }
    }
}
