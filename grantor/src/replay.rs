//! What a retried grant or renewal is told.
//!
//! A retry (same holder, same `requestId`) gets the original outcome, never a second action. But
//! the holder's clock for a retry starts when the *retry* was sent, later than the original
//! request: replaying the original `durationMs` verbatim would let it believe in a lease past the
//! grantor's expiry. So a replayed success is cut to what the grant has left now, and one whose
//! grant has since ended (expired, released, revoked, superseded) becomes a denial or refusal.
//! Both stores answer replays through these functions.

use std::time::Duration;

use tenure::protocol::{GrantReply, RenewRefusal, RenewReply};

/// The grant a store holds live for a resource right now.
#[derive(Clone, Copy, Debug)]
pub struct LiveGrant<'a> {
    /// Who holds it.
    pub holder: &'a str,
    /// Its fencing token.
    pub token: u64,
    /// How long until it expires, on the store's clock.
    pub remaining: Duration,
}

/// Whole milliseconds left, rounded down: a holder may believe less than the grantor, never more.
fn floor_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The still-live part of the original grant, if `live` is that very grant.
fn still_held(holder: &str, token: u64, live: Option<LiveGrant<'_>>) -> Option<u64> {
    live.filter(|l| l.holder == holder && l.token == token)
        .map(|l| floor_ms(l.remaining))
        .filter(|&ms| ms > 0)
}

/// The reply to a retried grant whose first attempt was answered `stored`, by `holder`.
pub fn replayed_grant(stored: GrantReply, holder: &str, live: Option<LiveGrant<'_>>) -> GrantReply {
    let Some(token) = stored.token.filter(|_| stored.granted) else {
        // A denial stays a denial: the retry did not act, so it cannot have won since.
        return stored;
    };
    match still_held(holder, token.get(), live) {
        Some(left) => GrantReply::granted(token, stored.duration_ms.map_or(left, |d| d.min(left))),
        None => GrantReply {
            granted: false,
            token: None,
            duration_ms: None,
            holder: live.map(|l| l.holder.to_owned()),
            expires_in_ms: Some(live.map_or(0, |l| crate::store::ceil_ms(l.remaining))),
        },
    }
}

/// The reply to a retried renewal whose first attempt was answered `stored`, by `holder`.
pub fn replayed_renewal(
    stored: RenewReply,
    holder: &str,
    live: Option<LiveGrant<'_>>,
) -> RenewReply {
    let Some(token) = stored.token.filter(|_| stored.renewed) else {
        return stored;
    };
    match still_held(holder, token.get(), live) {
        Some(left) => RenewReply::renewed(token, stored.duration_ms.map_or(left, |d| d.min(left))),
        // Another grant is live: the renewed one was superseded.
        None if live.is_some_and(|l| l.holder != holder || l.token != token.get()) => {
            RenewReply::refused(RenewRefusal::NotHolder)
        }
        None => RenewReply::refused(RenewRefusal::Expired),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenure::protocol::Token;

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
        let regranted_to_self = replayed_grant(stored, "a", live("a", 5, 700));
        assert!(
            !regranted_to_self.granted,
            "a newer grant's token is not the one replayed"
        );
    }

    #[test]
    fn a_replayed_denial_is_verbatim() {
        let stored = GrantReply::denied("b".into(), 300);
        assert_eq!(replayed_grant(stored.clone(), "a", None), stored);
    }

    #[test]
    fn a_replayed_renewal_is_cut_or_refused() {
        let stored = RenewReply::renewed(token(2), 5_000);
        assert_eq!(
            replayed_renewal(stored.clone(), "a", live("a", 2, 3_000)),
            RenewReply::renewed(token(2), 3_000)
        );
        assert_eq!(
            replayed_renewal(stored.clone(), "a", None),
            RenewReply::refused(RenewRefusal::Expired)
        );
        assert_eq!(
            replayed_renewal(stored.clone(), "a", live("b", 3, 100)),
            RenewReply::refused(RenewRefusal::NotHolder)
        );
        // Less than a whole millisecond left is nothing a holder could use.
        let barely = Some(LiveGrant {
            holder: "a",
            token: 2,
            remaining: Duration::from_micros(400),
        });
        assert_eq!(
            replayed_renewal(stored, "a", barely),
            RenewReply::refused(RenewRefusal::Expired)
        );
        let refusal = RenewReply::refused(RenewRefusal::Revoked);
        assert_eq!(replayed_renewal(refusal.clone(), "a", None), refusal);
    }
}
