//! The grantor's rules, once: what a grant, renewal, release or claim is answered, given what the
//! grantor records and the time, which the caller reads and passes in.
//!
//! Nothing here reads a clock, touches storage or does IO. Every grantor (the SQLite and the
//! PostgreSQL store of the reference grantor, the simulation's reference grantor) records state
//! its own way and keeps time its own way (a monotonic clock in memory, the database server's
//! clock), then decides through these functions, so that they all answer alike.
//!
//! # Liveness at the boundary
//!
//! A grant (or a claim) that runs out at `expires_at` is **live up to and including
//! `expires_at`**, and has run out only once `now > expires_at` ([`is_live`]). At the expiry
//! instant itself its holder may still believe in it, so nobody else is granted it yet, and its
//! holder's renewal at that instant still renews. Every comparison with an expiry, in code or in
//! SQL, says this: live is `expires_at >= now`, ran out is `expires_at < now`.

use core::time::Duration;

use crate::core::replay::promised_ms;
use crate::protocol::{
    is_valid_name, watch_version, GrantReply, ItemState, RenewRefusal, RenewReply, Token,
    WatchReply, HANDOFF_MAX_MS, MAX_HOLDER_LEN, MAX_TOKEN, WATCH_MAX_WAIT_MS,
};

/// An instant on some grantor's clock: what an expiry and "now" are compared in. Each grantor
/// uses its own kind (a monotonic [`std::time::Instant`], the database server's
/// [`std::time::SystemTime`], microseconds on a clock of its own as `u64` or `i64`).
pub trait Moment: Copy + Ord {
    /// How long from `self` until `later`; zero if `later` is not after `self`.
    fn until(self, later: Self) -> Duration;
}

impl Moment for std::time::Instant {
    fn until(self, later: Self) -> Duration {
        later.saturating_duration_since(self)
    }
}

impl Moment for std::time::SystemTime {
    fn until(self, later: Self) -> Duration {
        later.duration_since(self).unwrap_or_default()
    }
}

/// Microseconds.
impl Moment for u64 {
    fn until(self, later: Self) -> Duration {
        Duration::from_micros(later.saturating_sub(self))
    }
}

/// Microseconds.
impl Moment for i64 {
    fn until(self, later: Self) -> Duration {
        Duration::from_micros(u64::try_from(later.saturating_sub(self)).unwrap_or(0))
    }
}

/// Whether a grant or claim that runs out at `expires_at` is still live at `now`: it is up to
/// and including `expires_at` itself (see the module's documentation).
pub fn is_live<T: Moment>(expires_at: T, now: T) -> bool {
    now <= expires_at
}

/// How long a grant or claim that runs out at `expires_at` has left at `now`, if it is live:
/// zero at the expiry instant itself.
pub fn time_left<T: Moment>(expires_at: T, now: T) -> Option<Duration> {
    is_live(expires_at, now).then(|| now.until(expires_at))
}

/// Whole milliseconds in `d`, rounded up, for telling someone how long to wait: never shorter
/// than the real time.
pub fn ceil_ms(d: Duration) -> u64 {
    let ms = d.as_millis() + u128::from(d.subsec_nanos() % 1_000_000 != 0);
    u64::try_from(ms).unwrap_or(u64::MAX)
}

/// Whole milliseconds a live grant with `remaining` left reports as its expiry: rounded up, and
/// at least 1, since at its expiry instant it is still live (and 0 would say it is not).
pub fn expires_in_ms(remaining: Duration) -> u64 {
    ceil_ms(remaining).max(1)
}

/// Why a request is refused with an error rather than answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// The request would act on a live grant but did not present its secret.
    BadLeaseSecret,
    /// The resource's token counter is at [`MAX_TOKEN`]: no further grant can be numbered.
    TokenExhausted,
}

/// How a resource's latest grant stands, as a grantor records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LeaseState {
    /// Never granted (a row made ready for a first grant).
    Free,
    /// Granted and not ended by anyone; live until its expiry ([`is_live`]).
    Held,
    /// Given back by its holder while live.
    Released,
    /// Ended by an administrator.
    Revoked,
    /// Recorded as run out (a grantor may instead leave it `Held` past its expiry).
    Expired,
}

impl LeaseState {
    /// The state as grantors store it.
    pub fn as_str(self) -> &'static str {
        match self {
            LeaseState::Free => "free",
            LeaseState::Held => "held",
            LeaseState::Released => "released",
            LeaseState::Revoked => "revoked",
            LeaseState::Expired => "expired",
        }
    }

    /// A stored state; anything else is `None`.
    pub fn parse(state: &str) -> Option<LeaseState> {
        Some(match state {
            "free" => LeaseState::Free,
            "held" => LeaseState::Held,
            "released" => LeaseState::Released,
            "revoked" => LeaseState::Revoked,
            "expired" => LeaseState::Expired,
            _ => return None,
        })
    }
}

/// What a grantor records about a resource's latest grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded<'a> {
    /// The latest grant's token: the resource's counter.
    pub token: u64,
    /// Who received it (none if it was never granted).
    pub holder: Option<&'a str>,
    /// How it stands.
    pub state: LeaseState,
    /// The latest revoked grant's token, so its holder learns `revoked` after a newer grant.
    pub revoked_token: Option<u64>,
    /// The latest revoked grant's holder.
    pub revoked_holder: Option<&'a str>,
}

/// The grant a grantor holds live for a resource right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveGrant<'a> {
    /// Who holds it.
    pub holder: &'a str,
    /// Its fencing token.
    pub token: u64,
    /// How long until it expires, on the grantor's clock (zero at the expiry instant).
    pub remaining: Duration,
}

impl<'a> Recorded<'a> {
    /// The recorded grant, if it is live: held, and `remaining` (from [`time_left`]) says its
    /// expiry has not passed.
    pub fn live(&self, remaining: Option<Duration>) -> Option<LiveGrant<'a>> {
        Some(LiveGrant {
            holder: self.holder.filter(|_| self.state == LeaseState::Held)?,
            token: self.token,
            remaining: remaining?,
        })
    }
}

/// What a fresh grant request gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrantDecision {
    /// Granted under `token` (the counter plus one). The grantor holds the grant for `kept_ms`
    /// from now, which is the duration granted, or longer when the same holder re-grants its own
    /// live grant: a grantor never ends a grant earlier than it promised. The reply names the
    /// duration granted, which the holder measures from its send.
    Grant {
        /// The new grant's token.
        token: Token,
        /// How long the grantor holds it from now.
        kept_ms: u64,
        /// The reply.
        reply: GrantReply,
    },
    /// Denied: somebody else's grant is live. Nothing changes.
    Deny(GrantReply),
}

/// The design's grant: granted when the resource is free, ran out, or is held by the same
/// holder, and then always under the next token.
///
/// `counter` is the resource's latest token (0 if never granted), `live` its live grant if any,
/// `duration_ms` the (clamped) duration to grant. A holder re-granting its own live grant must
/// prove it, `proves(token)` saying whether the request presented that grant's secret; without
/// it the request is denied like any other holder's, so that knowing a holder's name is not
/// enough to supersede its grant.
pub fn grant(
    counter: u64,
    live: Option<LiveGrant<'_>>,
    holder: &str,
    proves: impl FnOnce(u64) -> bool,
    duration_ms: u64,
) -> Result<GrantDecision, RuleError> {
    grant_handed(counter, live, None, holder, proves, duration_ms)
}

/// [`grant`], for a resource that may have been handed over ([`Handoff`]): while the preference
/// lasts, everyone but the holder it names is denied exactly as if that holder held the
/// resource for the time the preference has left, and the named holder is granted at once under
/// the next token. Any grant ends the preference (the grantor clears it when it records one).
pub fn grant_handed(
    counter: u64,
    live: Option<LiveGrant<'_>>,
    handoff: Option<Handoff<'_>>,
    holder: &str,
    proves: impl FnOnce(u64) -> bool,
    duration_ms: u64,
) -> Result<GrantDecision, RuleError> {
    if let Some(live) = live {
        if live.holder != holder || !proves(live.token) {
            return Ok(GrantDecision::Deny(denial(live)));
        }
    } else if let Some(handoff) = handoff.filter(|h| h.to != holder) {
        return Ok(GrantDecision::Deny(GrantReply::denied(
            handoff.to.to_owned(),
            expires_in_ms(handoff.remaining),
        )));
    }
    let next = counter.saturating_add(1);
    if next > MAX_TOKEN {
        return Err(RuleError::TokenExhausted);
    }
    let token = Token::new(next).map_err(|_| RuleError::TokenExhausted)?;
    let kept_ms = live.map_or(duration_ms, |l| duration_ms.max(ceil_ms(l.remaining)));
    Ok(GrantDecision::Grant {
        token,
        kept_ms,
        reply: GrantReply::granted(token, duration_ms),
    })
}

/// The denial `live` stands for: who holds it and how long it has left ([`expires_in_ms`]).
fn denial(live: LiveGrant<'_>) -> GrantReply {
    GrantReply::denied(live.holder.to_owned(), expires_in_ms(live.remaining))
}

/// The answer to a fresh renewal by `holder` of its grant `token`, given what is recorded for
/// the resource. `live` says whether the recorded grant is live now; `proven` whether the
/// request presented that grant's secret. A live grant renewed without its secret is refused
/// with an error, never a refusal, so that an attacker's attempt cannot tell the real holder its
/// lease is gone. A renewal that renews is granted `duration_ms` (clamped) from now.
pub fn renew(
    recorded: Option<Recorded<'_>>,
    holder: &str,
    token: Token,
    live: bool,
    proven: bool,
    duration_ms: u64,
) -> Result<RenewReply, RuleError> {
    let asked = token.get();
    Ok(match recorded {
        // No grant was ever made.
        None => RenewReply::refused(RenewRefusal::Unknown),
        Some(r) if r.state == LeaseState::Free || asked > r.token => {
            RenewReply::refused(RenewRefusal::Unknown)
        }
        Some(r) if asked < r.token => {
            let revoked = r.revoked_token == Some(asked) && r.revoked_holder == Some(holder);
            RenewReply::refused(if revoked {
                RenewRefusal::Revoked
            } else {
                RenewRefusal::NotHolder
            })
        }
        Some(r) if r.holder != Some(holder) => RenewReply::refused(RenewRefusal::NotHolder),
        Some(r) => match r.state {
            LeaseState::Held if live && !proven => return Err(RuleError::BadLeaseSecret),
            LeaseState::Held if live => RenewReply::renewed(token, duration_ms),
            LeaseState::Held | LeaseState::Expired => RenewReply::refused(RenewRefusal::Expired),
            LeaseState::Revoked => RenewReply::refused(RenewRefusal::Revoked),
            LeaseState::Released | LeaseState::Free => RenewReply::refused(RenewRefusal::Unknown),
        },
    })
}

/// How a request to end a grant (a release by its holder, a revocation) turns out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It names no grant recorded as held: nothing changes.
    NotHeld,
    /// The grant is recorded as held but already ran out: it is not ended by this request (its
    /// holder did not give it back in time); a grantor that records expiry records it as such.
    RanOut,
    /// The live grant ends now.
    Ends,
}

/// Whether releasing the grant ends it: `held` says the request names the grant recorded as
/// held (resource, holder and token), `live` whether that grant is live now, `proven` whether
/// the request presented its secret, which ending a live grant needs.
pub fn release(held: bool, live: bool, proven: bool) -> Result<Ending, RuleError> {
    match (held, live) {
        (false, _) => Ok(Ending::NotHeld),
        (true, false) => Ok(Ending::RanOut),
        (true, true) if proven => Ok(Ending::Ends),
        (true, true) => Err(RuleError::BadLeaseSecret),
    }
}

/// A released resource kept for the holder it was handed to ([`crate::protocol::ReleaseRequest`]'s
/// `handTo`), as a grantor records it while the preference lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handoff<'a> {
    /// The holder the resource is kept for.
    pub to: &'a str,
    /// How long the preference has left, on the grantor's clock ([`time_left`]: zero at its
    /// last instant, which still counts).
    pub remaining: Duration,
}

/// Whether a release by `holder` may hand the resource to `hand_to`: a valid holder identity
/// (as a grant's `holder` must be), and another holder than the releaser, who could simply keep
/// the lease. Anything else is refused as a bad request, before anything is released.
pub fn valid_hand_to(holder: &str, hand_to: &str) -> bool {
    is_valid_name(hand_to, MAX_HOLDER_LEN) && hand_to != holder
}

/// How long, in ms, a release that hands the resource over keeps it for the named holder, given
/// how the release turns out ([`release`]) and the released grant's duration as the grantor
/// records it (the duration of its latest grant or renewal).
///
/// Only a release that ends a live grant hands anything over: one that ends nothing (not held,
/// or it already ran out) records no preference, since the resource was not its to give. The
/// preference lasts as long as the released grant's duration, and at most [`HANDOFF_MAX_MS`]:
/// the releaser could have kept everyone else out that long by keeping the lease, so a named
/// holder that never comes costs the others no more than a holder that crashed would have, and
/// never more than [`HANDOFF_MAX_MS`].
pub fn handoff_ms(ending: Ending, granted_ms: u64) -> Option<u64> {
    (ending == Ending::Ends).then(|| granted_ms.clamp(1, HANDOFF_MAX_MS))
}

/// The reply to a watch of `resource` (`GET /v1/watch`): its version ([`watch_version`] of its
/// token counter `counter` and whether `live` is a live grant), the live grant if any, and the
/// holder it was handed to while that preference lasts. A live token past [`MAX_TOKEN`], which
/// no grantor records, is [`RuleError::TokenExhausted`].
pub fn watch_reply(
    resource: &str,
    counter: u64,
    live: Option<LiveGrant<'_>>,
    handoff: Option<Handoff<'_>>,
) -> Result<WatchReply, RuleError> {
    let token = live
        .map(|l| Token::new(l.token).map_err(|_| RuleError::TokenExhausted))
        .transpose()?;
    Ok(WatchReply {
        resource: resource.to_owned(),
        version: watch_version(counter, live.is_some()),
        holder: live.map(|l| l.holder.to_owned()),
        token,
        expires_in_ms: live.map(|l| expires_in_ms(l.remaining)),
        // A grant ends the preference; a grantor that has not cleared it yet reports the grant.
        handed_to: handoff.filter(|_| live.is_none()).map(|h| h.to.to_owned()),
    })
}

/// How long a watch may be held open when it asks for `wait_ms`: [`WATCH_MAX_WAIT_MS`] when it
/// does not say, and never longer.
pub fn watch_wait(wait_ms: Option<u64>) -> Duration {
    Duration::from_millis(wait_ms.map_or(WATCH_MAX_WAIT_MS, |w| w.min(WATCH_MAX_WAIT_MS)))
}

/// What a watch that saw `after` does with the state `reply` read now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchStep {
    /// Answer with the state read: it is past `after` (or the watcher named no version).
    Answer,
    /// Wait for a change, for the rest of the wait at most; when the state read has a live
    /// grant, also no longer than `recheck`, the moment its expiry has passed (expiry is a
    /// change, but nothing signals it): then read again, since the grant may have been renewed
    /// meanwhile, which is no change.
    Wait {
        /// When to read again even without a signal.
        recheck: Option<Duration>,
    },
}

/// Whether a watch that saw `after` answers with `reply` now or waits ([`WatchStep`]). A grant
/// reported with `expiresInMs` of `n` is live up to `n` ms from the read (rounded up), and ran
/// out one millisecond later.
pub fn watch_step(after: Option<u64>, reply: &WatchReply) -> WatchStep {
    if after != Some(reply.version) {
        return WatchStep::Answer;
    }
    WatchStep::Wait {
        recheck: reply
            .expires_in_ms
            .map(|ms| Duration::from_millis(ms.saturating_add(1))),
    }
}

/// Whether revoking ends the grant: `held` says a grant is recorded as held, `live` whether it
/// is live now.
pub fn revoke(held: bool, live: bool) -> Ending {
    match (held, live) {
        (false, _) => Ending::NotHeld,
        (true, false) => Ending::RanOut,
        (true, true) => Ending::Ends,
    }
}

/// The still-live part of the original grant, if `live` is that very grant, as a retry may be
/// promised it.
fn still_held(
    holder: &str,
    token: u64,
    wanted_ms: u64,
    live: Option<LiveGrant<'_>>,
) -> Option<u64> {
    live.filter(|l| l.holder == holder && l.token == token)
        .and_then(|l| promised_ms(wanted_ms, l.remaining))
}

/// The reply to a retried grant whose first attempt was answered `stored`, by `holder`.
///
/// A retry gets the original outcome, never a second action. But the holder measures a retry
/// from the retry's send, later than the original: so a replayed success promises no more than
/// the grant has left now ([`promised_ms`]), and one whose grant has since ended (expired,
/// released, revoked, superseded) becomes a denial.
pub fn replayed_grant(stored: GrantReply, holder: &str, live: Option<LiveGrant<'_>>) -> GrantReply {
    let Some(token) = stored.token.filter(|_| stored.granted) else {
        // A denial stays a denial: the retry did not act, so it cannot have won since.
        return stored;
    };
    let wanted = stored.duration_ms.unwrap_or(u64::MAX);
    match still_held(holder, token.get(), wanted, live) {
        Some(left) => GrantReply::granted(token, left),
        None => GrantReply {
            granted: false,
            token: None,
            duration_ms: None,
            holder: live.map(|l| l.holder.to_owned()),
            expires_in_ms: Some(live.map_or(0, |l| expires_in_ms(l.remaining))),
        },
    }
}

/// The reply to a retried renewal whose first attempt was answered `stored`, by `holder`; cut
/// as [`replayed_grant`] is, or refused once the grant ended. A replayed success needs the
/// grant's secret as a fresh one does (`proven`).
pub fn replayed_renewal(
    stored: RenewReply,
    holder: &str,
    live: Option<LiveGrant<'_>>,
    proven: bool,
) -> Result<RenewReply, RuleError> {
    let Some(token) = stored.token.filter(|_| stored.renewed) else {
        return Ok(stored);
    };
    let wanted = stored.duration_ms.unwrap_or(u64::MAX);
    Ok(match still_held(holder, token.get(), wanted, live) {
        Some(_) if !proven => return Err(RuleError::BadLeaseSecret),
        Some(left) => RenewReply::renewed(token, left),
        // Another grant is live: the renewed one was superseded.
        None if live.is_some_and(|l| l.holder != holder || l.token != token.get()) => {
            RenewReply::refused(RenewRefusal::NotHolder)
        }
        None => RenewReply::refused(RenewRefusal::Expired),
    })
}

/// What a retried claim (same worker, same request id) is promised, in ms, when its first
/// attempt's claim was for `claim_ms` and has `left` now: as for grants, no more than is left,
/// and nothing (a fresh claim instead) once less than a millisecond is.
pub fn replayed_claim_ms(claim_ms: u64, left: Option<Duration>) -> Option<u64> {
    promised_ms(claim_ms, left?)
}

/// How a work item stands, as a grantor records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemRecord {
    /// Waiting to be claimed: never claimed, or its last claim failed with attempts left.
    Pending,
    /// Claimed, live until the claim's expiry ([`is_live`]), then claimable again.
    Claimed,
    /// Completed under a live claim; final.
    Done,
    /// Given up after its last allowed attempt; final.
    Dead,
}

/// The state an item reports, given how it is recorded and whether its claim (if claimed) is
/// live now: a claim that ran out leaves the item pending again, or dead once it was the last
/// allowed attempt, before any sweep records that.
pub fn item_state(
    recorded: ItemRecord,
    claim_live: bool,
    attempts: u32,
    max_attempts: u32,
) -> ItemState {
    match recorded {
        ItemRecord::Pending => ItemState::Pending,
        ItemRecord::Done => ItemState::Done,
        ItemRecord::Dead => ItemState::Dead,
        ItemRecord::Claimed if claim_live => ItemState::Claimed,
        ItemRecord::Claimed if attempts >= max_attempts => ItemState::Dead,
        ItemRecord::Claimed => ItemState::Pending,
    }
}

/// Where an item goes when its live claim fails: pending again, or dead after its last allowed
/// attempt.
pub fn after_failure(attempts: u32, max_attempts: u32) -> ItemRecord {
    if attempts >= max_attempts {
        ItemRecord::Dead
    } else {
        ItemRecord::Pending
    }
}

/// Why a claim token presented by a worker is not the item's live claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaleClaim {
    /// A newer claim was made since: `latest` is the item's latest claim token.
    Superseded {
        /// The item's latest claim token.
        latest: u64,
    },
    /// The token is the latest, but another worker's.
    OtherWorker,
    /// The item was completed under this claim already.
    Completed,
    /// The claim was ended already (failed, or given up).
    Ended,
    /// The claim ran out.
    RanOut,
}

/// What a grantor records of an item's latest claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClaimRecord<'a> {
    /// How the item stands.
    pub recorded: ItemRecord,
    /// The latest claim's token (0 before the first).
    pub token: u64,
    /// Who holds the latest claim.
    pub worker: Option<&'a str>,
    /// Whether the latest claim is live now.
    pub live: bool,
}

/// Whether `token`, presented by `worker`, is the item's live claim; otherwise why not.
pub fn check_claim(record: ClaimRecord<'_>, worker: &str, token: u64) -> Result<(), StaleClaim> {
    Err(if token != record.token {
        StaleClaim::Superseded {
            latest: record.token,
        }
    } else if record.worker != Some(worker) {
        StaleClaim::OtherWorker
    } else if record.recorded == ItemRecord::Done {
        StaleClaim::Completed
    } else if record.recorded != ItemRecord::Claimed {
        StaleClaim::Ended
    } else if !record.live {
        StaleClaim::RanOut
    } else {
        return Ok(());
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(n: u64) -> Token {
        Token::new(n).unwrap()
    }

    fn live(holder: &str, token: u64, ms: u64) -> Option<LiveGrant<'_>> {
        Some(LiveGrant {
            holder,
            token,
            remaining: Duration::from_micros(ms * 1000 + 700),
        })
    }

    fn held(holder: &str, token: u64) -> Recorded<'_> {
        Recorded {
            token,
            holder: Some(holder),
            state: LeaseState::Held,
            revoked_token: None,
            revoked_holder: None,
        }
    }

    #[test]
    fn a_grant_is_live_at_its_expiry_instant_and_not_after() {
        assert!(is_live(100u64, 99));
        assert!(is_live(100u64, 100));
        assert!(!is_live(100u64, 101));
        assert_eq!(time_left(100u64, 100), Some(Duration::ZERO));
        assert_eq!(time_left(100u64, 40), Some(Duration::from_micros(60)));
        assert_eq!(time_left(100i64, 101), None);
        let start = std::time::Instant::now();
        let until = start + Duration::from_millis(5);
        assert!(is_live(until, until));
        assert!(!is_live(until, until + Duration::from_nanos(1)));
        let wall = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(9);
        assert_eq!(time_left(wall, wall), Some(Duration::ZERO));
    }

    #[test]
    fn nobody_else_is_granted_at_the_expiry_instant() {
        let at_expiry = Some(LiveGrant {
            holder: "a",
            token: 3,
            remaining: Duration::ZERO,
        });
        let denied = grant(3, at_expiry, "b", |_| true, 1_000).unwrap();
        assert_eq!(
            denied,
            GrantDecision::Deny(GrantReply::denied("a".into(), 1))
        );
        let granted = grant(3, None, "b", |_| false, 1_000).unwrap();
        assert_eq!(
            granted,
            GrantDecision::Grant {
                token: token(4),
                kept_ms: 1_000,
                reply: GrantReply::granted(token(4), 1_000),
            }
        );
    }

    #[test]
    fn a_regrant_needs_the_secret_and_never_shortens_the_grant() {
        let now_live = live("a", 3, 9_000);
        let unproven = grant(3, now_live, "a", |_| false, 1_000).unwrap();
        assert!(matches!(unproven, GrantDecision::Deny(_)));
        let proven = grant(3, now_live, "a", |t| t == 3, 1_000).unwrap();
        assert_eq!(
            proven,
            GrantDecision::Grant {
                token: token(4),
                kept_ms: 9_001,
                reply: GrantReply::granted(token(4), 1_000),
            }
        );
        assert_eq!(
            grant(MAX_TOKEN, None, "a", |_| true, 1),
            Err(RuleError::TokenExhausted)
        );
    }

    #[test]
    fn renewals_are_judged_by_the_record() {
        let t2 = token(2);
        let renew_held = |live, proven| renew(Some(held("a", 2)), "a", t2, live, proven, 500);
        assert_eq!(renew_held(true, true), Ok(RenewReply::renewed(t2, 500)));
        assert_eq!(renew_held(true, false), Err(RuleError::BadLeaseSecret));
        assert_eq!(
            renew_held(false, true),
            Ok(RenewReply::refused(RenewRefusal::Expired))
        );
        let refused = |recorded, holder| renew(recorded, holder, t2, true, true, 500).unwrap();
        assert_eq!(refused(None, "a").reason, Some(RenewRefusal::Unknown));
        assert_eq!(
            refused(Some(held("b", 2)), "a").reason,
            Some(RenewRefusal::NotHolder)
        );
        assert_eq!(
            refused(Some(held("a", 1)), "a").reason,
            Some(RenewRefusal::Unknown)
        );
        let revoked_then_regranted = Recorded {
            revoked_token: Some(2),
            revoked_holder: Some("a"),
            ..held("b", 3)
        };
        assert_eq!(
            refused(Some(revoked_then_regranted), "a").reason,
            Some(RenewRefusal::Revoked)
        );
        assert_eq!(
            refused(Some(held("b", 3)), "a").reason,
            Some(RenewRefusal::NotHolder)
        );
        for (state, reason) in [
            (LeaseState::Revoked, RenewRefusal::Revoked),
            (LeaseState::Released, RenewRefusal::Unknown),
            (LeaseState::Expired, RenewRefusal::Expired),
            (LeaseState::Free, RenewRefusal::Unknown),
        ] {
            let recorded = Recorded {
                state,
                ..held("a", 2)
            };
            assert_eq!(
                refused(Some(recorded), "a").reason,
                Some(reason),
                "{state:?}"
            );
        }
    }

    #[test]
    fn only_a_held_and_unexpired_record_is_live() {
        let remaining = Some(Duration::ZERO);
        assert_eq!(held("a", 2).live(remaining).unwrap().token, 2);
        assert_eq!(held("a", 2).live(None), None);
        let released = Recorded {
            state: LeaseState::Released,
            ..held("a", 2)
        };
        assert_eq!(released.live(remaining), None);
    }

    #[test]
    fn releases_and_revocations_end_only_live_grants() {
        assert_eq!(release(false, true, true), Ok(Ending::NotHeld));
        assert_eq!(release(true, false, false), Ok(Ending::RanOut));
        assert_eq!(release(true, true, true), Ok(Ending::Ends));
        assert_eq!(release(true, true, false), Err(RuleError::BadLeaseSecret));
        assert_eq!(revoke(true, true), Ending::Ends);
        assert_eq!(revoke(true, false), Ending::RanOut);
        assert_eq!(revoke(false, true), Ending::NotHeld);
    }

    #[test]
    fn a_handoff_keeps_the_resource_for_the_named_holder_only() {
        let kept = Some(Handoff {
            to: "b",
            remaining: Duration::from_micros(2_000_300),
        });
        // Anyone else, the releaser included, is denied as if "b" held it for the time left.
        for other in ["a", "c"] {
            assert_eq!(
                grant_handed(3, None, kept, other, |_| true, 1_000),
                Ok(GrantDecision::Deny(GrantReply::denied("b".into(), 2_001))),
                "{other}"
            );
        }
        // The named holder is granted at once, under the next token.
        assert_eq!(
            grant_handed(3, None, kept, "b", |_| false, 1_000),
            Ok(GrantDecision::Grant {
                token: token(4),
                kept_ms: 1_000,
                reply: GrantReply::granted(token(4), 1_000),
            })
        );
        // At its last instant it still counts.
        let last = Some(Handoff {
            to: "b",
            remaining: Duration::ZERO,
        });
        assert_eq!(
            grant_handed(3, None, last, "c", |_| true, 1_000),
            Ok(GrantDecision::Deny(GrantReply::denied("b".into(), 1)))
        );
        // A live grant is denied as a live grant (a grantor clears the preference on granting).
        assert_eq!(
            grant_handed(4, live("b", 4, 500), kept, "c", |_| true, 1_000),
            Ok(GrantDecision::Deny(GrantReply::denied("b".into(), 501)))
        );
        // Without a preference, grant_handed is grant.
        assert_eq!(
            grant_handed(3, None, None, "c", |_| true, 1_000),
            grant(3, None, "c", |_| true, 1_000)
        );
    }

    #[test]
    fn a_handoff_lasts_the_released_grants_duration_at_most_the_bound() {
        assert_eq!(handoff_ms(Ending::Ends, 3_000), Some(3_000));
        assert_eq!(
            handoff_ms(Ending::Ends, HANDOFF_MAX_MS + 1),
            Some(HANDOFF_MAX_MS)
        );
        assert_eq!(handoff_ms(Ending::Ends, u64::MAX), Some(HANDOFF_MAX_MS));
        // A release that ends nothing hands nothing over.
        assert_eq!(handoff_ms(Ending::NotHeld, 3_000), None);
        assert_eq!(handoff_ms(Ending::RanOut, 3_000), None);
    }

    #[test]
    fn only_another_valid_holder_can_be_handed_to() {
        assert!(valid_hand_to("a", "b"));
        assert!(!valid_hand_to("a", "a"));
        assert!(!valid_hand_to("a", ""));
        assert!(!valid_hand_to("a", "b\tc"));
        assert!(!valid_hand_to("a", &"b".repeat(MAX_HOLDER_LEN + 1)));
        assert!(valid_hand_to("a", &"b".repeat(MAX_HOLDER_LEN)));
    }

    #[test]
    fn a_watch_reports_the_version_the_grant_and_the_handoff() {
        let held = watch_reply("r", 4, live("a", 4, 900), None).unwrap();
        assert_eq!(
            held,
            WatchReply {
                resource: "r".into(),
                version: 8,
                holder: Some("a".into()),
                token: Some(token(4)),
                expires_in_ms: Some(901),
                handed_to: None,
            }
        );
        let handed = Some(Handoff {
            to: "b",
            remaining: Duration::from_millis(5),
        });
        let released = watch_reply("r", 4, None, handed).unwrap();
        assert_eq!(released.version, 9);
        assert_eq!(released.holder, None);
        assert_eq!(released.token, None);
        assert_eq!(released.expires_in_ms, None);
        assert_eq!(released.handed_to.as_deref(), Some("b"));
        let never = watch_reply("r", 0, None, None).unwrap();
        assert_eq!((never.version, never.handed_to), (1, None));
        // The next grant is a larger version than the release before it.
        assert!(
            watch_reply("r", 5, live("b", 5, 1), handed)
                .unwrap()
                .version
                > 9
        );
        assert_eq!(
            watch_reply("r", 5, live("b", 5, 1), handed)
                .unwrap()
                .handed_to,
            None
        );
    }

    #[test]
    fn a_watch_answers_a_new_version_and_waits_out_an_expiry() {
        let held = watch_reply("r", 4, live("a", 4, 900), None).unwrap();
        assert_eq!(watch_step(None, &held), WatchStep::Answer);
        assert_eq!(watch_step(Some(7), &held), WatchStep::Answer);
        assert_eq!(watch_step(Some(9), &held), WatchStep::Answer);
        assert_eq!(
            watch_step(Some(8), &held),
            WatchStep::Wait {
                recheck: Some(Duration::from_millis(902))
            }
        );
        let free = watch_reply("r", 4, None, None).unwrap();
        assert_eq!(
            watch_step(Some(9), &free),
            WatchStep::Wait { recheck: None }
        );
        assert_eq!(watch_wait(None), Duration::from_millis(WATCH_MAX_WAIT_MS));
        assert_eq!(watch_wait(Some(0)), Duration::ZERO);
        assert_eq!(watch_wait(Some(250)), Duration::from_millis(250));
        assert_eq!(
            watch_wait(Some(u64::MAX)),
            Duration::from_millis(WATCH_MAX_WAIT_MS)
        );
    }

    #[test]
    fn a_replayed_grant_promises_only_what_is_left() {
        let stored = GrantReply::granted(token(4), 10_000);
        let reply = replayed_grant(stored, "a", live("a", 4, 6_000));
        assert_eq!(reply, GrantReply::granted(token(4), 6_000));
    }

    #[test]
    fn a_replayed_grant_never_promises_more_than_the_original() {
        // Renewed since: more is left than the original reply said; the retry keeps the original.
        let stored = GrantReply::granted(token(4), 1_000);
        let reply = replayed_grant(stored, "a", live("a", 4, 9_000));
        assert_eq!(reply, GrantReply::granted(token(4), 1_000));
    }

    #[test]
    fn a_replayed_grant_that_has_ended_is_a_denial() {
        let stored = GrantReply::granted(token(4), 1_000);
        let gone = replayed_grant(stored.clone(), "a", None);
        assert!(!gone.granted && gone.token.is_none() && gone.holder.is_none());
        let superseded = replayed_grant(stored.clone(), "a", live("b", 5, 700));
        assert!(!superseded.granted);
        assert_eq!(superseded.holder.as_deref(), Some("b"));
        assert_eq!(superseded.expires_in_ms, Some(701));
        let regranted_to_self = replayed_grant(stored.clone(), "a", live("a", 5, 700));
        assert!(
            !regranted_to_self.granted,
            "a newer grant's token is not the one replayed"
        );
        let at_expiry = Some(LiveGrant {
            holder: "a",
            token: 4,
            remaining: Duration::ZERO,
        });
        let ended_now = replayed_grant(stored.clone(), "a", at_expiry);
        assert!(!ended_now.granted);
        assert_eq!(
            ended_now.expires_in_ms,
            Some(1),
            "a grant at its expiry instant is still live"
        );
        let taken_ending_now = Some(LiveGrant {
            holder: "b",
            token: 5,
            remaining: Duration::ZERO,
        });
        let denied_now = replayed_grant(stored, "a", taken_ending_now);
        assert_eq!(denied_now.holder.as_deref(), Some("b"));
        assert_eq!(denied_now.expires_in_ms, Some(1));
    }

    #[test]
    fn a_replayed_denial_is_verbatim() {
        let stored = GrantReply::denied("b".into(), 300);
        assert_eq!(replayed_grant(stored.clone(), "a", None), stored);
    }

    #[test]
    fn a_replayed_renewal_is_cut_or_refused() {
        let stored = RenewReply::renewed(token(2), 5_000);
        let replay = |live, proven| replayed_renewal(stored.clone(), "a", live, proven);
        assert_eq!(
            replay(live("a", 2, 3_000), true),
            Ok(RenewReply::renewed(token(2), 3_000))
        );
        assert_eq!(
            replay(live("a", 2, 3_000), false),
            Err(RuleError::BadLeaseSecret)
        );
        assert_eq!(
            replay(None, false),
            Ok(RenewReply::refused(RenewRefusal::Expired))
        );
        assert_eq!(
            replay(live("b", 3, 100), true),
            Ok(RenewReply::refused(RenewRefusal::NotHolder))
        );
        // Less than a whole millisecond left is nothing a holder could use.
        let barely = Some(LiveGrant {
            holder: "a",
            token: 2,
            remaining: Duration::from_micros(400),
        });
        assert_eq!(
            replay(barely, true),
            Ok(RenewReply::refused(RenewRefusal::Expired))
        );
        let refusal = RenewReply::refused(RenewRefusal::Revoked);
        assert_eq!(
            replayed_renewal(refusal.clone(), "a", None, false),
            Ok(refusal)
        );
    }

    #[test]
    fn a_replayed_claim_is_cut_to_what_is_left() {
        assert_eq!(
            replayed_claim_ms(5_000, Some(Duration::from_micros(2_500_900))),
            Some(2_500)
        );
        assert_eq!(
            replayed_claim_ms(5_000, Some(Duration::from_secs(9))),
            Some(5_000)
        );
        assert_eq!(
            replayed_claim_ms(5_000, Some(Duration::from_micros(999))),
            None
        );
        assert_eq!(replayed_claim_ms(5_000, None), None);
    }

    #[test]
    fn items_report_their_state_by_their_claim() {
        use ItemRecord::*;
        assert_eq!(item_state(Claimed, true, 5, 5), ItemState::Claimed);
        assert_eq!(item_state(Claimed, false, 4, 5), ItemState::Pending);
        assert_eq!(item_state(Claimed, false, 5, 5), ItemState::Dead);
        assert_eq!(item_state(Pending, false, 1, 5), ItemState::Pending);
        assert_eq!(item_state(Done, false, 1, 5), ItemState::Done);
        assert_eq!(item_state(Dead, true, 1, 5), ItemState::Dead);
        assert_eq!(after_failure(4, 5), Pending);
        assert_eq!(after_failure(5, 5), Dead);
    }

    #[test]
    fn a_claim_token_is_checked_against_the_latest_live_claim() {
        let live_claim = ClaimRecord {
            recorded: ItemRecord::Claimed,
            token: 3,
            worker: Some("w"),
            live: true,
        };
        assert_eq!(check_claim(live_claim, "w", 3), Ok(()));
        assert_eq!(
            check_claim(live_claim, "w", 2),
            Err(StaleClaim::Superseded { latest: 3 })
        );
        assert_eq!(
            check_claim(live_claim, "v", 3),
            Err(StaleClaim::OtherWorker)
        );
        let ran_out = ClaimRecord {
            live: false,
            ..live_claim
        };
        assert_eq!(check_claim(ran_out, "w", 3), Err(StaleClaim::RanOut));
        for (recorded, why) in [
            (ItemRecord::Done, StaleClaim::Completed),
            (ItemRecord::Pending, StaleClaim::Ended),
            (ItemRecord::Dead, StaleClaim::Ended),
        ] {
            let ended = ClaimRecord {
                recorded,
                ..live_claim
            };
            assert_eq!(check_claim(ended, "w", 3), Err(why));
        }
    }
}
