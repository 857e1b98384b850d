//! Scripted-time scenarios for the holder state machine, one per safety rule.

use tenure::core::{
    AcquireFailure, Event, Failure, FailureKind, Holder, HolderConfig, HolderOptionsMs, LossReason,
    Micros, MonoTime, Now, Output, Phase, Reply, Request, RequestId, RequestKind,
};
use tenure::protocol::{GrantOutcome, RenewOutcome, RenewRefusal, Token};

const LEASE_MS: u64 = 9_000;
const MARGIN_MS: u64 = 1_000;
const WALL_EPOCH_MS: u64 = 1_700_000_000_000;

/// A holder plus scripted clocks; `mono` and `wall` are in ms and move only when a test says so.
struct Script {
    holder: Holder,
    mono_ms: u64,
    wall_ms: u64,
    sent: Vec<Request>,
    events: Vec<Event>,
    abandoned: Vec<RequestId>,
}

impl Script {
    fn new() -> Script {
        Script::with(HolderOptionsMs::default())
    }

    fn with(options: HolderOptionsMs) -> Script {
        let config = HolderConfig::from_ms(LEASE_MS as f64, MARGIN_MS as f64, options, 1).unwrap();
        Script {
            holder: Holder::new(config),
            mono_ms: 1_000,
            wall_ms: WALL_EPOCH_MS,
            sent: Vec::new(),
            events: Vec::new(),
            abandoned: Vec::new(),
        }
    }

    fn now(&self) -> Now {
        Now::from_micros(self.mono_ms * 1000, self.wall_ms * 1000)
    }

    /// Both clocks advance together, as they do on a healthy machine.
    fn advance(&mut self, ms: u64) {
        self.mono_ms += ms;
        self.wall_ms += ms;
    }

    fn drain(&mut self) {
        if let Some(at) = self.holder.poll_timeout() {
            assert!(
                at >= MonoTime(self.mono_ms * 1000),
                "poll_timeout asked for a past instant"
            );
        }
        while let Some(output) = self.holder.poll_output() {
            match output {
                Output::Send(request) => self.sent.push(request),
                Output::Event(event) => self.events.push(event),
                Output::Abandon(id) => self.abandoned.push(id),
            }
        }
    }

    fn acquire(&mut self, campaign: bool) -> RequestId {
        self.holder.acquire(self.now(), campaign).unwrap();
        self.drain();
        self.last_sent().id
    }

    fn reply(&mut self, id: RequestId, reply: Reply) {
        self.holder.handle_reply(self.now(), id, reply);
        self.drain();
    }

    fn grant(&mut self, id: RequestId, token: u64) {
        self.reply(id, granted(token));
    }

    /// Fires every timer due up to now, as a host's timer would (possibly late).
    fn tick(&mut self) {
        while let Some(at) = self.holder.poll_timeout() {
            if at > MonoTime(self.mono_ms * 1000) {
                break;
            }
            let before = self.sent.len() + self.events.len();
            self.holder.handle_timeout(self.now());
            self.drain();
            if self.sent.len() + self.events.len() == before {
                break;
            }
        }
    }

    /// Advances time in small steps, firing timers on time.
    fn run_for(&mut self, ms: u64) {
        for _ in 0..ms / 10 {
            self.advance(10);
            self.tick();
        }
    }

    fn last_sent(&self) -> &Request {
        self.sent.last().expect("something was sent")
    }

    fn renewals_sent(&self) -> Vec<RequestId> {
        self.sent
            .iter()
            .filter(|r| matches!(r.kind, RequestKind::Renew { .. }))
            .map(|r| r.id)
            .collect()
    }

    fn safely_held(&mut self) -> bool {
        let now = self.now();
        self.holder.is_safely_held(now)
    }

    fn losses(&self) -> Vec<LossReason> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Lost { reason, .. } => Some(reason.clone()),
                _ => None,
            })
            .collect()
    }

    fn held_and_acquired(&mut self, token: u64) {
        let id = self.acquire(false);
        self.grant(id, token);
        assert_eq!(self.holder.phase(), Phase::Held);
    }
}

fn token(n: u64) -> Token {
    Token::new(n).unwrap()
}

fn granted(n: u64) -> Reply {
    Reply::Grant(GrantOutcome::Granted {
        token: token(n),
        duration_ms: None,
    })
}

fn renewed(n: u64) -> Reply {
    Reply::Renew(RenewOutcome::Renewed {
        token: token(n),
        duration_ms: None,
    })
}

#[test]
fn late_grant_reply_counts_from_the_send_time() {
    let mut s = Script::new();
    let id = s.acquire(false);
    s.advance(5_000);
    s.grant(id, 1);
    // 9 s lease sent 5 s ago: 4 s remain, not 9.
    let now = s.now();
    assert_eq!(s.holder.remaining(now), Micros::from_ms(4_000));
    s.advance(3_000);
    assert!(!s.safely_held(), "1 s left is inside the 1 s margin");
}

#[test]
fn grant_arriving_inside_the_margin_is_no_grant_and_is_handed_back() {
    let mut s = Script::new();
    let id = s.acquire(false);
    s.advance(8_500);
    s.grant(id, 1);
    assert_eq!(s.holder.phase(), Phase::Idle);
    assert!(matches!(
        s.last_sent().kind,
        RequestKind::Release { token: t, .. } if t == token(1)
    ));
    assert!(matches!(
        s.events.last(),
        Some(Event::AcquireFailed(AcquireFailure::Failed(Failure {
            kind: FailureKind::TooLate,
            ..
        })))
    ));
}

#[test]
fn renews_every_third_of_the_lease_with_one_renewal_in_flight() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    s.run_for(2_990);
    assert!(s.renewals_sent().is_empty());
    s.run_for(20);
    assert_eq!(s.renewals_sent().len(), 1);
    // No reply yet: no second renewal goes out while the first is in flight.
    s.run_for(2_900);
    assert_eq!(s.renewals_sent().len(), 1);
    let id = s.renewals_sent()[0];
    s.reply(id, renewed(1));
    assert_eq!(s.holder.consecutive_failures(), 0);
    assert!(s.safely_held());
}

#[test]
fn hung_renewal_is_abandoned_and_the_holder_surrenders_at_the_margin() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    // The grantor never answers anything again.
    s.run_for(7_990);
    assert!(s.safely_held());
    assert!(s.losses().is_empty());
    s.run_for(20);
    assert_eq!(s.losses(), vec![LossReason::MarginExhausted]);
    assert!(!s.safely_held());
    // Retries happened while budget remained, and each timed out.
    assert!(
        s.renewals_sent().len() >= 2,
        "retried after the first timeout"
    );
    // Every attempt was abandoned, the last one at the surrender.
    assert_eq!(s.abandoned, s.renewals_sent());
    assert!(s.holder.consecutive_failures() >= 1);
    // Surrender happened at the margin: started at 1 s, 9 s lease, 1 s margin -> mono 9 s.
    assert!(s.mono_ms <= 9_010);
}

#[test]
fn surrender_does_not_wait_for_a_late_timer() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    // The tab is hidden: no timer fires for 60 s. Any query already says the truth.
    s.advance(60_000);
    assert!(!s.safely_held());
    s.tick();
    assert_eq!(s.losses(), vec![LossReason::MarginExhausted]);
}

#[test]
fn wall_clock_stepping_back_adds_no_validity() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    s.mono_ms += 8_000;
    s.wall_ms -= 3_600_000;
    assert!(!s.safely_held(), "8 s of 9 elapsed on the monotonic clock");
}

#[test]
fn wall_clock_stepping_forward_ends_the_lease_early() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    s.mono_ms += 10;
    s.wall_ms += 3_600_000;
    assert!(!s.safely_held());
    s.tick();
    // The monotonic deadline has not come, but the next input sees the wall clock.
    s.holder.handle_timeout(s.now());
    s.drain();
    assert_eq!(s.losses(), vec![LossReason::MarginExhausted]);
}

#[test]
fn monotonic_clock_stalled_in_os_sleep_expires_the_lease() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    // Laptop sleeps for 5 minutes: performance.now() does not move, Date.now() does.
    s.wall_ms += 300_000;
    assert!(!s.safely_held());
    // On wake the host reports a resume; the hold ends at once.
    s.holder.handle_timeout(s.now());
    s.drain();
    assert_eq!(s.losses(), vec![LossReason::MarginExhausted]);
}

#[test]
fn renewal_with_a_lower_token_is_a_loss_saying_so() {
    let mut s = Script::new();
    s.held_and_acquired(7);
    s.run_for(3_010);
    let id = s.renewals_sent()[0];
    s.reply(id, renewed(6));
    assert_eq!(
        s.losses(),
        vec![LossReason::TokenRegressed {
            held: token(7),
            got: token(6)
        }]
    );
}

#[test]
fn a_grant_with_a_token_already_seen_is_not_a_grant() {
    let mut s = Script::new();
    s.held_and_acquired(5);
    s.holder.release(s.now());
    s.drain();
    let id = s.acquire(false);
    s.grant(id, 5);
    assert_eq!(s.holder.phase(), Phase::Idle);
    assert!(matches!(
        s.events.last(),
        Some(Event::AcquireFailed(AcquireFailure::Failed(Failure {
            kind: FailureKind::TokenRegressed,
            ..
        })))
    ));
    // The grant it does not believe is handed back, so the resource is not left to expire.
    assert_eq!(
        s.last_sent().kind,
        RequestKind::Release {
            token: token(5),
            hand_to: None,
        }
    );
}

#[test]
fn malformed_replies_are_failed_attempts_never_grants() {
    let mut s = Script::new();
    let id = s.acquire(false);
    s.reply(id, Reply::Failed(Failure::of(FailureKind::Malformed)));
    assert_eq!(s.holder.phase(), Phase::Idle);
    assert!(!s.safely_held());
    // A renewal-shaped reply to a grant is no grant either.
    let id = s.acquire(false);
    s.reply(id, renewed(3));
    assert_eq!(s.holder.phase(), Phase::Idle);
    // During a hold, a malformed renewal reply is a failure that is retried.
    s.held_and_acquired(4);
    s.run_for(3_010);
    let id = *s.renewals_sent().last().unwrap();
    s.reply(id, Reply::Failed(Failure::of(FailureKind::Malformed)));
    assert_eq!(s.holder.consecutive_failures(), 1);
    assert!(s.safely_held());
    s.run_for(1_500);
    assert_eq!(s.renewals_sent().len(), 2, "retried after the failure");
}

#[test]
fn reply_to_an_abandoned_renewal_is_ignored() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    s.run_for(3_010);
    let first = s.renewals_sent()[0];
    // The attempt times out after its 3 s timeout; a retry goes out.
    s.run_for(3_500);
    assert!(s.renewals_sent().len() >= 2);
    let before = s.holder.lease().grant().unwrap().start;
    // Now the first attempt's reply arrives: it must not move the lease start.
    s.reply(first, renewed(1));
    assert_eq!(s.holder.lease().grant().unwrap().start, before);
    assert!(!s.events.iter().any(|e| matches!(e, Event::Renewed { .. })));
}

#[test]
fn definitive_refusal_surrenders_at_once_with_the_grantors_reason() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    s.run_for(3_010);
    let id = s.renewals_sent()[0];
    s.reply(
        id,
        Reply::Renew(RenewOutcome::Refused(RenewRefusal::Revoked)),
    );
    assert_eq!(s.losses(), vec![LossReason::Refused(RenewRefusal::Revoked)]);
    assert_eq!(s.losses()[0].as_str(), "revoked");
}

#[test]
fn retry_after_is_honoured_within_the_budget() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    s.run_for(3_010);
    let id = s.renewals_sent()[0];
    s.reply(
        id,
        Reply::Failed(Failure {
            kind: FailureKind::RateLimited,
            retry_after: Some(Micros::from_ms(2_000)),
        }),
    );
    s.run_for(1_900);
    assert_eq!(s.renewals_sent().len(), 1, "waited for Retry-After");
    s.run_for(200);
    assert_eq!(s.renewals_sent().len(), 2);
}

#[test]
fn duration_clamped_down_by_the_grantor_is_believed_shorter() {
    let mut s = Script::new();
    let id = s.acquire(false);
    s.reply(
        id,
        Reply::Grant(GrantOutcome::Granted {
            token: token(1),
            duration_ms: Some(5_000),
        }),
    );
    let now = s.now();
    assert_eq!(s.holder.remaining(now), Micros::from_ms(5_000));
    // A larger duration than asked is not believed.
    let mut t = Script::new();
    let id = t.acquire(false);
    t.reply(
        id,
        Reply::Grant(GrantOutcome::Granted {
            token: token(1),
            duration_ms: Some(60_000),
        }),
    );
    let now = t.now();
    assert_eq!(t.holder.remaining(now), Micros::from_ms(LEASE_MS));
}

#[test]
fn a_grant_clamped_short_is_renewed_in_proportion() {
    let mut s = Script::new();
    let id = s.acquire(false);
    s.reply(
        id,
        Reply::Grant(GrantOutcome::Granted {
            token: token(1),
            duration_ms: Some(3_000),
        }),
    );
    // A third of the 3 s actually granted, not of the 9 s asked for.
    s.run_for(990);
    assert!(s.renewals_sent().is_empty());
    s.run_for(30);
    assert_eq!(s.renewals_sent().len(), 1);
    // Answer every renewal for 5 s with the same short grant.
    for _ in 0..500 {
        if let Some(id) = s.renewals_sent().last().copied() {
            s.reply(
                id,
                Reply::Renew(RenewOutcome::Renewed {
                    token: token(1),
                    duration_ms: Some(3_000),
                }),
            );
        }
        s.run_for(10);
    }
    assert!(s.renewals_sent().len() >= 5, "renewed about every second");
    assert!(s.safely_held(), "kept renewing the short grant");
    assert!(s.losses().is_empty());
}

#[test]
fn campaign_waits_for_the_denials_hint_then_acquires() {
    let mut s = Script::new();
    let id = s.acquire(true);
    s.reply(
        id,
        Reply::Grant(GrantOutcome::Denied {
            holder: Some("other".into()),
            expires_in_ms: Some(4_000),
        }),
    );
    assert_eq!(s.holder.phase(), Phase::Acquiring);
    s.run_for(3_990);
    assert_eq!(s.sent.len(), 1, "no retry before the hint");
    s.run_for(2_000);
    assert_eq!(s.sent.len(), 2);
    let id = s.last_sent().id;
    s.grant(id, 2);
    assert_eq!(s.holder.phase(), Phase::Held);
}

#[test]
fn campaign_backs_off_after_failures_and_can_be_cancelled() {
    let mut s = Script::new();
    let id = s.acquire(true);
    s.reply(id, Reply::Failed(Failure::of(FailureKind::Unreachable)));
    assert_eq!(s.holder.phase(), Phase::Acquiring);
    s.run_for(3_000);
    assert!(s.sent.len() >= 2, "retried");
    s.holder.cancel_acquire(s.now());
    s.drain();
    assert_eq!(s.holder.phase(), Phase::Idle);
    assert!(matches!(
        s.events.last(),
        Some(Event::AcquireFailed(AcquireFailure::Cancelled))
    ));
    // A grant for the cancelled campaign's attempt does not make it held, and is handed back at
    // once, so the lease is not left held by nobody until it expires.
    let id = s.last_sent().id;
    assert!(
        !s.abandoned.contains(&id),
        "kept so that its grant can be released"
    );
    s.grant(id, 9);
    assert_eq!(s.holder.phase(), Phase::Idle);
    assert_eq!(
        s.last_sent().kind,
        RequestKind::Release {
            token: token(9),
            hand_to: None
        }
    );
}

#[test]
fn a_cancelled_grant_that_was_denied_or_timed_out_needs_nothing() {
    let mut s = Script::new();
    let id = s.acquire(true);
    s.holder.cancel_acquire(s.now());
    s.drain();
    s.reply(
        id,
        Reply::Grant(GrantOutcome::Denied {
            holder: Some("other".into()),
            expires_in_ms: Some(100),
        }),
    );
    assert_eq!(s.sent.len(), 1, "nothing to release after a denial");

    let id = s.acquire(false);
    s.holder.cancel_acquire(s.now());
    s.drain();
    s.run_for(60_000);
    assert!(s.abandoned.contains(&id), "abandoned at its timeout");
    assert_eq!(s.holder.poll_timeout(), None, "nothing left to wait for");
    s.grant(id, 3);
    assert_eq!(s.sent.len(), 2, "a reply after the timeout is ignored");
}

#[test]
fn acquiring_again_waits_for_the_cancelled_grant_instead_of_racing_it() {
    let mut s = Script::new();
    let first = s.acquire(false);
    s.holder.cancel_acquire(s.now());
    s.drain();
    s.holder.acquire(s.now(), false).unwrap();
    s.drain();
    // No second grant request: it could be denied while the first one's grant stands (the
    // reference grantor denies a same-holder re-grant without the grant's secret), leaving the
    // lease held by nobody; and the first one's token must not be released, since a grantor may
    // answer both with the same token.
    assert_eq!(s.sent.len(), 1, "the first request is awaited again");
    assert!(!s.abandoned.contains(&first));
    s.grant(first, 4);
    assert_eq!(s.holder.phase(), Phase::Held);
    assert_eq!(s.holder.lease().token(), Some(token(4)));
    assert!(!s
        .sent
        .iter()
        .any(|request| matches!(request.kind, RequestKind::Release { .. })));
}

#[test]
fn a_released_late_grant_still_counts_for_token_order() {
    let mut s = Script::new();
    let first = s.acquire(false);
    s.holder.cancel_acquire(s.now());
    s.drain();
    s.grant(first, 8);
    assert_eq!(
        s.last_sent().kind,
        RequestKind::Release {
            token: token(8),
            hand_to: None
        }
    );
    let second = s.acquire(false);
    s.grant(second, 5);
    assert_eq!(
        s.holder.phase(),
        Phase::Idle,
        "a token below one already issued is refused"
    );
    assert!(matches!(
        s.events.last(),
        Some(Event::AcquireFailed(AcquireFailure::Failed(failure))) if failure.kind == FailureKind::TokenRegressed
    ));
}

#[test]
fn single_acquire_reports_the_denial() {
    let mut s = Script::new();
    let id = s.acquire(false);
    s.reply(
        id,
        Reply::Grant(GrantOutcome::Denied {
            holder: Some("other".into()),
            expires_in_ms: Some(100),
        }),
    );
    assert_eq!(
        s.events,
        vec![Event::AcquireFailed(AcquireFailure::Denied {
            holder: Some("other".into()),
            expires_in: Some(Micros::from_ms(100)),
        })]
    );
}

#[test]
fn grant_attempt_times_out() {
    let mut s = Script::new();
    s.acquire(false);
    s.run_for(3_100);
    assert!(matches!(
        s.events.last(),
        Some(Event::AcquireFailed(AcquireFailure::Failed(Failure {
            kind: FailureKind::TimedOut,
            ..
        })))
    ));
}

#[test]
fn release_tells_the_grantor_and_ends_the_hold_once() {
    let mut s = Script::new();
    s.held_and_acquired(3);
    s.holder.release(s.now());
    s.drain();
    assert!(matches!(s.last_sent().kind, RequestKind::Release { token: t, .. } if t == token(3)));
    assert_eq!(s.events.last(), Some(&Event::Released { token: token(3) }));
    s.holder.release(s.now());
    s.holder.surrender(s.now(), "again");
    s.drain();
    let endings = s
        .events
        .iter()
        .filter(|e| matches!(e, Event::Released { .. } | Event::Lost { .. }))
        .count();
    assert_eq!(endings, 1);
    assert!(s.holder.poll_timeout().is_none(), "no timers after release");
}

#[test]
fn surrender_reports_the_applications_reason() {
    let mut s = Script::new();
    s.held_and_acquired(3);
    s.holder.surrender(s.now(), "shutting down");
    s.drain();
    assert_eq!(
        s.losses(),
        vec![LossReason::Surrendered("shutting down".into())]
    );
}

#[test]
fn healthy_holder_keeps_its_lease_indefinitely() {
    let mut s = Script::new();
    s.held_and_acquired(1);
    for round in 1..=100 {
        while s.renewals_sent().len() < round {
            s.run_for(10);
        }
        let id = *s.renewals_sent().last().unwrap();
        s.advance(40);
        s.reply(id, renewed(1));
        assert!(s.safely_held());
    }
    assert!(s.losses().is_empty());
}

fn denied(holder: &str, expires_in_ms: u64) -> Reply {
    Reply::Grant(GrantOutcome::Denied {
        holder: Some(holder.into()),
        expires_in_ms: Some(expires_in_ms),
    })
}

#[test]
fn hand_off_releases_naming_the_next_holder_and_reports_handed_off() {
    let mut s = Script::new();
    s.held_and_acquired(3);
    s.holder.hand_off(s.now(), Some("b".into()));
    s.drain();
    assert_eq!(
        s.last_sent().kind,
        RequestKind::Release {
            token: token(3),
            hand_to: Some("b".into()),
        }
    );
    assert_eq!(s.losses(), vec![LossReason::HandedOff]);
    assert_eq!(LossReason::HandedOff.as_str(), "handed_off");
    assert_eq!(s.holder.phase(), Phase::Idle);
    assert!(!s.safely_held());
    // A plain release names nobody and is a release, not a loss.
    let mut s = Script::new();
    s.held_and_acquired(4);
    s.holder.release(s.now());
    s.drain();
    assert_eq!(
        s.last_sent().kind,
        RequestKind::Release {
            token: token(4),
            hand_to: None,
        }
    );
    assert!(s.losses().is_empty());
}

#[test]
fn a_campaign_asks_at_once_when_the_feed_says_the_lease_is_free_for_it() {
    let mut s = Script::new();
    let id = s.acquire(true);
    s.reply(id, denied("a", 8_000));
    s.advance(100);
    // Still held by someone, or kept for another holder: the campaign keeps its wait.
    s.holder
        .handle_holder_change(s.now(), Some("a"), None, "me");
    s.holder
        .handle_holder_change(s.now(), None, Some("c"), "me");
    s.drain();
    assert_eq!(s.sent.len(), 1);
    // Handed to this holder: it asks now, not 8 s later.
    s.holder
        .handle_holder_change(s.now(), None, Some("me"), "me");
    s.drain();
    assert_eq!(s.sent.len(), 2);
    assert!(matches!(s.last_sent().kind, RequestKind::Grant { .. }));
    // While that attempt is in flight another change sends nothing more.
    s.holder.handle_holder_change(s.now(), None, None, "me");
    s.drain();
    assert_eq!(s.sent.len(), 2);
    let id = s.last_sent().id;
    s.grant(id, 5);
    assert_eq!(s.holder.phase(), Phase::Held);
    // A holder that is not campaigning ignores the feed.
    s.holder.handle_holder_change(s.now(), None, None, "me");
    s.drain();
    assert_eq!(s.sent.len(), 2);
}

#[test]
fn a_recontending_holder_campaigns_again_after_a_loss_but_not_after_release() {
    let mut s = Script::new();
    s.holder.recontend(true);
    s.held_and_acquired(2);
    let renewal = loop {
        s.run_for(100);
        if let Some(&id) = s.renewals_sent().last() {
            break id;
        }
    };
    s.reply(
        renewal,
        Reply::Renew(RenewOutcome::Refused(RenewRefusal::Revoked)),
    );
    assert_eq!(s.losses(), vec![LossReason::Refused(RenewRefusal::Revoked)]);
    assert_eq!(s.holder.phase(), Phase::Acquiring, "it campaigns again");
    let before = s.sent.len();
    s.run_for(1_000);
    assert_eq!(s.sent.len(), before + 1, "within one retry base");
    let id = s.last_sent().id;
    s.reply(id, denied("other", 3_000));
    assert_eq!(
        s.holder.phase(),
        Phase::Acquiring,
        "a denial does not end it"
    );
    s.run_for(3_500);
    let id = s.last_sent().id;
    s.grant(id, 4);
    assert_eq!(s.holder.phase(), Phase::Held);
    // Released: no campaign after.
    s.holder.release(s.now());
    s.drain();
    s.run_for(2_000);
    assert_eq!(s.holder.phase(), Phase::Idle);
    // Without recontend, a loss leaves the holder idle.
    let mut s = Script::new();
    s.held_and_acquired(2);
    s.holder.surrender(s.now(), "done");
    s.drain();
    assert_eq!(s.holder.phase(), Phase::Idle);
}

#[test]
fn a_recontending_holder_that_surrenders_or_hands_off_stays_out() {
    for end in ["surrender", "hand_off"] {
        let mut s = Script::new();
        s.holder.recontend(true);
        s.held_and_acquired(2);
        match end {
            "surrender" => s.holder.surrender(s.now(), "stop"),
            _ => s.holder.hand_off(s.now(), None),
        }
        s.drain();
        s.run_for(3_000);
        assert_eq!(s.holder.phase(), Phase::Idle, "{end}");
    }
}
