//! The reference grantor and the fenced resource, with authoritative (true) time.
//!
//! The grantor decides by the grantor's rules ([`tenure::rules`]), which the reference grantor's
//! stores decide by too:
//! - grant only if the resource is free, expired, or already held by the same holder; every
//!   successful grant issues `token + 1`; a grant is live up to and including its expiry instant;
//! - renew only for the current holder with the matching token while live; the token stays;
//!   otherwise refuse with `expired`, `revoked`, `not_holder` or `unknown`;
//! - a request id seen before is not applied again: it gets the original outcome, cut to what the
//!   grant has left, or refused once the grant ended;
//! - revocation ends the current grant at once;
//! - a restart keeps tokens and grants, and holds every grant that was unexpired when it went
//!   down for its full duration from the moment it is back (its clock restarted, so it cannot
//!   know how much of the grant had passed);
//! - renewals are not durable, as in the reference grantor's SQLite store: a restart forgets the
//!   outcomes of renewals (a retry is judged afresh), and only a renewal that changed the
//!   grant's duration was written. [`RestartRule::ResumeRecordedExpiry`] is the broken variant
//!   that shows why the restart rule above is what makes that safe;
//! - the fenced resource accepts a write iff `last_token <= token`.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::time::Duration;

use tenure::core::{Reply, RequestId, RequestKind};
use tenure::protocol::{GrantOutcome, GrantReply, RenewOutcome, RenewReply, Token};
use tenure::rules::{self, GrantDecision, LeaseState, LiveGrant, Recorded};

use crate::trace::Answer as Summary;

/// Index of a holder identity. Restarted processes keep their identity.
pub type HolderId = usize;

/// The grantor's record of the current (possibly expired) grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    /// Who holds it.
    pub holder: HolderId,
    /// Its fencing token.
    pub token: u64,
    /// True time at which it expires.
    pub expires_at: u64,
    /// The granted duration in microseconds.
    pub duration: u64,
    /// True time of the grant's last durable write: the grant, or a renewal that changed its
    /// duration. Renewals that keep it write nothing.
    pub written_at: u64,
}

/// How a restarted grantor decides how long the grants it recorded as held still last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RestartRule {
    /// Every grant unexpired at the crash is held for its full duration from the restart.
    FullDurationFromRestart,
    /// Broken on purpose: a grant is held until its last durable write plus its duration, as if
    /// the recorded expiry could be resumed. Renewals that wrote nothing are forgotten, so a
    /// holder that renewed may still believe in a lease the restarted grantor gives away.
    ResumeRecordedExpiry,
}

/// Deliberately broken ways of applying the grantor's rules, each of which the simulation must
/// catch: they show that its invariants would notice a grantor that decided otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RulesMutation {
    /// A grant is judged as if no grant were live: another holder's live grant is superseded.
    GrantOverLiveGrant,
    /// A renewal is answered `renewed` but the grant keeps its old expiry, so the grantor gives
    /// the resource away while the renewed holder still believes in it.
    RenewalKeepsOldExpiry,
}

impl RulesMutation {
    /// Every variant, for tests that must catch them all.
    pub const ALL: [RulesMutation; 2] = [
        RulesMutation::GrantOverLiveGrant,
        RulesMutation::RenewalKeepsOldExpiry,
    ];
}

/// What the grantor answered and whether it changed anything, for the trace.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The reply, if the request expects one (releases don't).
    pub reply: Option<Reply>,
    /// Whether this was a replay of a cached outcome.
    pub replayed: bool,
}

/// The reference grantor for a single resource.
#[derive(Clone, Debug)]
pub struct RefGrantor {
    names: Vec<String>,
    token: u64,
    current: Option<Record>,
    /// `issued[t]` is the holder that token `t` went to (index 0 unused).
    issued: Vec<HolderId>,
    /// `revoked[t]` is true if token `t` was ended by revocation.
    revoked: Vec<bool>,
    /// Outcomes by (holder, process incarnation, request id): request ids are unique per process.
    cache: BTreeMap<(HolderId, u32, u64), Reply>,
    max_duration_ms: u64,
    reports_duration: bool,
    down_since: Option<u64>,
    restart_rule: RestartRule,
    rules_mutation: Option<RulesMutation>,
    /// The holder a release handed the resource to, and until when (µs) it is kept for it.
    handoff: Option<(HolderId, u64)>,
}

impl RefGrantor {
    /// A grantor that knows `holders` identities and clamps durations to `max_duration_ms`.
    /// Without `reports_duration` it omits the duration from replies that grant what was asked.
    pub fn new(holders: usize, max_duration_ms: u64, reports_duration: bool) -> RefGrantor {
        RefGrantor {
            names: (0..holders).map(|h| format!("h{h}")).collect(),
            token: 0,
            current: None,
            issued: vec![usize::MAX],
            revoked: vec![false],
            cache: BTreeMap::new(),
            max_duration_ms,
            reports_duration,
            down_since: None,
            restart_rule: RestartRule::FullDurationFromRestart,
            rules_mutation: None,
            handoff: None,
        }
    }

    /// The same grantor applying its rules in the broken way `mutation`.
    pub fn with_rules_mutation(mut self, mutation: RulesMutation) -> RefGrantor {
        self.rules_mutation = Some(mutation);
        self
    }

    /// The same grantor restarting by `rule`.
    pub fn with_restart_rule(mut self, rule: RestartRule) -> RefGrantor {
        self.restart_rule = rule;
        self
    }

    /// Feeds everything that decides the grantor's future behaviour into `state`, for the
    /// model checker's visited set.
    pub fn hash_state<H: Hasher>(&self, state: &mut H) {
        self.token.hash(state);
        self.current.hash(state);
        self.issued.hash(state);
        self.revoked.hash(state);
        self.down_since.hash(state);
        self.restart_rule.hash(state);
        self.rules_mutation.hash(state);
        self.handoff.hash(state);
        for (key, reply) in &self.cache {
            key.hash(state);
            Summary::of(reply).hash(state);
        }
    }

    /// The current record if it is live at `now` ([`rules::is_live`]).
    pub fn live(&self, now: u64) -> Option<Record> {
        self.current.filter(|r| rules::is_live(r.expires_at, now))
    }

    /// The current grant if it is live at `now`, as the rules read it.
    fn live_grant(&self, now: u64) -> Option<LiveGrant<'_>> {
        self.live(now).map(|r| LiveGrant {
            holder: &self.names[r.holder],
            token: r.token,
            remaining: Duration::from_micros(r.expires_at - now),
        })
    }

    /// Whether the grantor is down (restarting).
    pub fn is_down(&self) -> bool {
        self.down_since.is_some()
    }

    /// Whether `token` was ended by revocation.
    pub fn is_revoked(&self, token: u64) -> bool {
        self.revoked.get(token as usize).copied().unwrap_or(false)
    }

    /// Checks that the grantor still backs `holder`'s belief in `token` at `now`: the holder is
    /// the current holder, its grant is unexpired, and every token from `token` to the current
    /// one went to this holder (a delayed duplicate grant request from the same holder may have
    /// re-granted it under `token + 1` without the holder knowing; that is still its grant).
    pub fn backs(&self, now: u64, holder: HolderId, token: u64) -> Result<(), String> {
        let Some(record) = self.current else {
            return Err(format!(
                "grantor has no grant; h{holder} believes token {token}"
            ));
        };
        if record.holder != holder {
            return Err(format!(
                "grantor's holder is h{} (token {}); h{holder} believes token {token}",
                record.holder, record.token
            ));
        }
        if record.token < token
            || (token..=record.token).any(|t| self.issued.get(t as usize) != Some(&holder))
        {
            return Err(format!(
                "grantor's token for h{holder} is {}, not a re-grant of believed token {token}",
                record.token
            ));
        }
        if now >= record.expires_at {
            return Err(format!(
                "h{holder}'s grant (token {}) expired at the grantor {}us ago",
                record.token,
                now - record.expires_at
            ));
        }
        Ok(())
    }

    /// Applies one request at true time `now`.
    pub fn handle(
        &mut self,
        now: u64,
        holder: HolderId,
        incarnation: u32,
        id: RequestId,
        kind: &RequestKind,
    ) -> Answer {
        let key = (holder, incarnation, id.0);
        if let Some(reply) = self.cache.get(&key) {
            return Answer {
                reply: Some(self.replayed(now, holder, reply.clone())),
                replayed: true,
            };
        }
        let reply = match *kind {
            RequestKind::Grant { duration_ms } => Some(self.grant(now, holder, duration_ms)),
            RequestKind::Renew { token, duration_ms } => {
                Some(self.renew(now, holder, token.get(), duration_ms))
            }
            RequestKind::Release { token, ref hand_to } => {
                let hand_to = hand_to.as_deref().and_then(|to| self.id_of(to));
                self.release(now, holder, token.get(), hand_to);
                None
            }
        };
        if let Some(reply) = &reply {
            self.cache.insert(key, reply.clone());
        }
        Answer {
            reply,
            replayed: false,
        }
    }

    fn granted_ms(&self, requested_ms: u64) -> (u64, Option<u64>) {
        let granted = requested_ms.min(self.max_duration_ms);
        let reported = (self.reports_duration || granted < requested_ms).then_some(granted);
        (granted, reported)
    }

    /// What a retry of a request first answered `stored` is told now, by the replay rules.
    fn replayed(&self, now: u64, holder: HolderId, stored: Reply) -> Reply {
        let name = &self.names[holder];
        let live = self.live_grant(now);
        match stored {
            Reply::Grant(outcome) => {
                let reply = rules::replayed_grant(grant_reply(outcome), name, live);
                Reply::Grant(reply.outcome().expect("the rules reply well-formed"))
            }
            Reply::Renew(outcome) => {
                let reply = rules::replayed_renewal(renew_reply(outcome), name, live, true)
                    .expect("the simulation's holders always prove their grants");
                Reply::Renew(reply.outcome().expect("the rules reply well-formed"))
            }
            failed @ Reply::Failed(_) => failed,
        }
    }

    fn grant(&mut self, now: u64, holder: HolderId, duration_ms: u64) -> Reply {
        let (granted, reported) = self.granted_ms(duration_ms);
        // A holder's identity is its proof here: the simulation has no impostors.
        let live = match self.rules_mutation {
            Some(RulesMutation::GrantOverLiveGrant) => None,
            _ => self.live_grant(now),
        };
        let handoff = self
            .handoff
            .filter(|&(_, until)| now <= until)
            .map(|(to, until)| rules::Handoff {
                to: &self.names[to],
                remaining: Duration::from_micros(until - now),
            });
        let decision = rules::grant_handed(
            self.token,
            live,
            handoff,
            &self.names[holder],
            |_| true,
            granted,
        )
        .expect("tokens stay far below 2^53");
        let (token, kept_ms) = match decision {
            GrantDecision::Deny(reply) => {
                return Reply::Grant(reply.outcome().expect("the rules reply well-formed"))
            }
            GrantDecision::Grant { token, kept_ms, .. } => (token, kept_ms),
        };
        self.token = token.get();
        self.handoff = None;
        self.issued.push(holder);
        self.revoked.push(false);
        self.current = Some(Record {
            holder,
            token: self.token,
            expires_at: now + kept_ms * 1000,
            duration: kept_ms * 1000,
            written_at: now,
        });
        Reply::Grant(GrantOutcome::Granted {
            token,
            duration_ms: reported,
        })
    }

    /// What the grantor records of the latest grant, for a renewal of `asked` to be judged by.
    fn recorded(&self, asked: u64) -> Option<Recorded<'_>> {
        let latest = usize::try_from(self.token).ok().filter(|&t| t > 0)?;
        let state = match self.current {
            Some(_) => LeaseState::Held,
            None if self.revoked[latest] => LeaseState::Revoked,
            None => LeaseState::Released,
        };
        // Every token of a revoked run is revoked; the rules ask about the one renewed.
        let revoked = self.is_revoked(asked);
        Some(Recorded {
            token: self.token,
            holder: Some(&self.names[self.issued[latest]]),
            state,
            revoked_token: revoked.then_some(asked),
            revoked_holder: revoked.then(|| self.names[self.issued[asked as usize]].as_str()),
        })
    }

    fn renew(&mut self, now: u64, holder: HolderId, token: u64, duration_ms: u64) -> Reply {
        let (granted, reported) = self.granted_ms(duration_ms);
        let live = self.live(now).is_some();
        let asked = Token::new(token).expect("token came from a grant");
        let reply = rules::renew(
            self.recorded(token),
            &self.names[holder],
            asked,
            live,
            true,
            granted,
        )
        .expect("the simulation's holders always prove their grants");
        if reply.renewed {
            let record = self.current.expect("a renewal renews the current grant");
            let duration = granted * 1000;
            let expires_at = match self.rules_mutation {
                Some(RulesMutation::RenewalKeepsOldExpiry) => record.expires_at,
                _ => now + duration,
            };
            self.current = Some(Record {
                expires_at,
                duration,
                written_at: if duration == record.duration {
                    record.written_at
                } else {
                    now
                },
                ..record
            });
            return Reply::Renew(RenewOutcome::Renewed {
                token: asked,
                duration_ms: reported,
            });
        }
        Reply::Renew(reply.outcome().expect("the rules reply well-formed"))
    }

    /// Ends `holder`'s live grant `token`, keeping the resource for `hand_to` for as long as
    /// the rules say (the released grant's duration, at most `HANDOFF_MAX_MS`).
    fn release(&mut self, now: u64, holder: HolderId, token: u64, hand_to: Option<HolderId>) {
        let Some(record) = self
            .live(now)
            .filter(|r| r.holder == holder && r.token == token)
        else {
            return;
        };
        self.current = None;
        if let Some(to) = hand_to.filter(|&to| to != holder) {
            let kept_ms = rules::handoff_ms(rules::Ending::Ends, record.duration / 1000);
            self.handoff = kept_ms.map(|ms| (to, now + ms * 1000));
        }
    }

    fn id_of(&self, name: &str) -> Option<HolderId> {
        self.names.iter().position(|n| n == name)
    }

    /// Ends the current unexpired grant at once; returns its token.
    pub fn revoke(&mut self, now: u64) -> Option<u64> {
        let record = self.live(now)?;
        // Every consecutive token of this holder's run is the same grant as far as the holder
        // can tell (see `backs`), so all of them are revoked.
        let mut t = record.token;
        while t > 0 && self.issued[t as usize] == record.holder {
            self.revoked[t as usize] = true;
            t -= 1;
        }
        self.current = None;
        Some(record.token)
    }

    /// The grantor process stops at `now`; requests are not answered until [`RefGrantor::up`].
    pub fn down(&mut self, now: u64) {
        self.down_since.get_or_insert(now);
    }

    /// The grantor is back at `now`. A grant that was unexpired when it went down is held for
    /// its full duration from now: never re-granted early.
    pub fn up(&mut self, now: u64) {
        let Some(since) = self.down_since.take() else {
            return;
        };
        if let Some(record) = self.current.as_mut() {
            if since < record.expires_at {
                record.expires_at = match self.restart_rule {
                    RestartRule::FullDurationFromRestart => {
                        record.expires_at.max(now + record.duration)
                    }
                    RestartRule::ResumeRecordedExpiry => record.written_at + record.duration,
                };
            }
        }
        // Renewal outcomes were kept in memory only.
        self.cache
            .retain(|_, reply| !matches!(reply, Reply::Renew(_)));
    }
}

/// A grant outcome as the wire reply the rules take.
fn grant_reply(outcome: GrantOutcome) -> GrantReply {
    match outcome {
        GrantOutcome::Granted { token, duration_ms } => GrantReply {
            duration_ms,
            ..GrantReply::granted(token, 0)
        },
        GrantOutcome::Denied {
            holder,
            expires_in_ms,
        } => GrantReply {
            granted: false,
            token: None,
            duration_ms: None,
            holder,
            expires_in_ms,
        },
    }
}

/// A renewal outcome as the wire reply the rules take.
fn renew_reply(outcome: RenewOutcome) -> RenewReply {
    match outcome {
        RenewOutcome::Renewed { token, duration_ms } => RenewReply {
            duration_ms,
            ..RenewReply::renewed(token, 0)
        },
        RenewOutcome::Refused(reason) => RenewReply::refused(reason),
    }
}

/// A resource protected by fencing tokens: accepts a write iff no larger token wrote before.
#[derive(Clone, Debug, Default)]
pub struct FencedResource {
    last_token: Option<u64>,
    /// Accepted writes: (true time, writer, token).
    history: Vec<(u64, HolderId, u64)>,
}

impl FencedResource {
    /// Applies a write with `token` by `holder` at `now`; returns whether it was accepted.
    pub fn write(&mut self, now: u64, holder: HolderId, token: u64) -> bool {
        if self.last_token.is_some_and(|last| last > token) {
            return false;
        }
        self.last_token = Some(token);
        self.history.push((now, holder, token));
        true
    }

    /// The accepted writes in order.
    pub fn history(&self) -> &[(u64, HolderId, u64)] {
        &self.history
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(g: &mut RefGrantor, now: u64, holder: HolderId, id: u64) -> Reply {
        let kind = RequestKind::Grant { duration_ms: 1_000 };
        g.handle(now, holder, 0, RequestId(id), &kind)
            .reply
            .unwrap()
    }

    fn token_of(reply: &Reply) -> u64 {
        match reply {
            Reply::Grant(GrantOutcome::Granted { token, .. }) => token.get(),
            other => panic!("not a grant: {other:?}"),
        }
    }

    #[test]
    fn grants_are_exclusive_until_expiry_and_tokens_increase() {
        let mut g = RefGrantor::new(2, 10_000, true);
        assert_eq!(token_of(&grant(&mut g, 0, 0, 1)), 1);
        assert!(matches!(
            grant(&mut g, 999_999, 1, 1),
            Reply::Grant(GrantOutcome::Denied { .. })
        ));
        // The same holder may be granted again, under a new token.
        assert_eq!(token_of(&grant(&mut g, 10, 0, 2)), 2);
        // A duplicate delivery replays the original outcome, cut to what it has left...
        assert_eq!(
            grant(&mut g, 20, 0, 2),
            Reply::Grant(GrantOutcome::Granted {
                token: Token::new(2).unwrap(),
                duration_ms: Some(999),
            })
        );
        // ...and denied once that grant was superseded.
        assert!(matches!(
            grant(&mut g, 20, 0, 1),
            Reply::Grant(GrantOutcome::Denied { .. })
        ));
        // At the expiry instant the grant is still live; a microsecond later it is not.
        assert!(matches!(
            grant(&mut g, 1_000_010, 1, 2),
            Reply::Grant(GrantOutcome::Denied { .. })
        ));
        assert_eq!(token_of(&grant(&mut g, 1_000_011, 1, 3)), 3);
    }

    #[test]
    fn restart_holds_unexpired_grants_for_a_full_duration() {
        let mut g = RefGrantor::new(2, 10_000, true);
        grant(&mut g, 0, 0, 1);
        g.down(500_000);
        g.up(700_000);
        assert_eq!(g.live(1_700_000).unwrap().holder, 0);
        assert!(g.live(1_700_001).is_none());
    }

    #[test]
    fn fenced_resource_rejects_older_tokens() {
        let mut r = FencedResource::default();
        assert!(r.write(0, 0, 3));
        assert!(r.write(1, 0, 3));
        assert!(!r.write(2, 1, 2));
        assert!(r.write(3, 1, 4));
        assert_eq!(r.history().len(), 3);
    }
}
