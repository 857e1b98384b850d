//! The renewal rule, one for both stores: what a renewal is answered, given what the store
//! records for its resource. The stores differ only in how they know time (SQLite's monotonic
//! clock in memory, PostgreSQL's clock in the database) and how they write; the decision is here.

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
