//! Scripted versions of the schedules that found bugs in the core. The pinned seeds in
//! `swarm.rs` replay the original runs; these keep covering the same hazards if the swarm's
//! draw ever changes.

use tenure::core::{
    Holder, HolderConfig, HolderOptionsMs, Now, Output, Phase, Reply, RequestId, RequestKind,
};
use tenure::protocol::{GrantOutcome, Token};

const S: u64 = 1_000_000;
const WALL: u64 = 1_700_000_000 * S;

/// A holder with a 9 s lease and a 1.5 s margin, holding token 1 granted at mono 10 s.
fn holding() -> (Holder, Now) {
    let config = HolderConfig::from_ms(9_000.0, 1_500.0, HolderOptionsMs::default(), 7).unwrap();
    let mut holder = Holder::new(config);
    let start = Now::from_micros(10 * S, WALL);
    holder.acquire(start, false).unwrap();
    let id = sent(&mut holder)[0];
    let granted = Reply::Grant(GrantOutcome::Granted {
        token: Token::new(1).unwrap(),
        duration_ms: None,
    });
    holder.handle_reply(start, id, granted);
    drain(&mut holder);
    assert_eq!(holder.phase(), Phase::Held);
    (holder, start)
}

fn drain(holder: &mut Holder) {
    while holder.poll_output().is_some() {}
}

fn sent(holder: &mut Holder) -> Vec<RequestId> {
    let mut ids = Vec::new();
    while let Some(output) = holder.poll_output() {
        if let Output::Send(request) = output {
            if !matches!(request.kind, RequestKind::Release { .. }) {
                ids.push(request.id);
            }
        }
    }
    ids
}

#[test]
fn stale_reply_after_the_margin_ends_the_hold() {
    let (mut holder, _) = holding();
    // The wall clock ran 8 s while the monotonic clock ran 1 s: the margin has begun on the
    // wall clock, and the monotonic expiry timer is not due. A duplicate of the grant reply
    // arrives: it is ignored, but the holder must not stay Held past expiry.
    let now = Now::from_micros(11 * S, WALL + 8 * S);
    let stale = Reply::Grant(GrantOutcome::Granted {
        token: Token::new(1).unwrap(),
        duration_ms: None,
    });
    holder.handle_reply(now, RequestId(1), stale);
    assert_eq!(holder.phase(), Phase::Idle);
}

#[test]
fn sleep_after_a_wall_step_back_expires_the_lease() {
    let (mut holder, _) = holding();
    // NTP steps the wall clock back an hour; the host reads the clocks.
    assert!(holder.is_safely_held(Now::from_micros(11 * S, WALL + S - 3_600 * S)));
    // The machine sleeps 30 s: the monotonic clock stops, the wall clock moves on.
    let woke = Now::from_micros(11 * S, WALL + 31 * S - 3_600 * S);
    assert!(!holder.is_safely_held(woke));
}

#[test]
fn sleep_then_a_later_wall_step_back_loses_no_time() {
    let (mut holder, _) = holding();
    // Asleep 5 s, read on waking.
    assert!(holder.is_safely_held(Now::from_micros(10 * S, WALL + 5 * S)));
    // Awake 3 s, then the wall clock steps back 10 s before the next reading: 8 s of the
    // 9 s lease have passed, inside the 1.5 s margin.
    let now = Now::from_micros(13 * S, WALL + 8 * S - 10 * S);
    assert!(!holder.is_safely_held(now));
}
