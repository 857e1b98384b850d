//! Both stores at exactly a grant's expiry instant: they answer alike, and on the safe side. At
//! that instant the old holder may still believe in its grant, so nobody else is granted the
//! resource and the old holder's renewal renews; a microsecond later the grant has run out.
//!
//! Each store reads a clock the test moves by hand ([`Store::with_clock`],
//! [`PgStore::with_clock`]), so the instant is exact rather than hoped for.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::postgres;
use tenure::protocol::{GrantRequest, RenewRequest, StatusReply, Token};
use tenure_grantor::{DurationLimits, PgStore, Store, StoreError, DEFAULT_MAX_ATTEMPTS};

const LEASE_MS: u64 = 1_000;

fn grant(resource: &str, holder: &str, request_id: &str) -> GrantRequest {
    GrantRequest {
        resource: resource.into(),
        holder: holder.into(),
        duration_ms: LEASE_MS,
        request_id: request_id.into(),
        lease_secret: None,
    }
}

fn renew(resource: &str, token: Token, secret: String, request_id: &str) -> RenewRequest {
    RenewRequest {
        resource: resource.into(),
        holder: "a".into(),
        token,
        duration_ms: LEASE_MS,
        request_id: request_id.into(),
        lease_secret: Some(secret),
    }
}

fn limits() -> DurationLimits {
    DurationLimits::new(1, 60_000).unwrap()
}

/// One step of the scenario, as a store answered it, in a form both stores' answers compare in.
type Answers = Vec<String>;

/// The scenario, given a store's operations and a way to set its clock `us` microseconds after
/// the first grant: `a` holds `r` and `s`; at their expiry instant `b` asks for `r`, `a` retries
/// its grant of `r` and renews it; a microsecond after it `b` asks for `s`.
macro_rules! scenario {
    ($set_clock:expr, $grant:expr, $renew:expr, $status:expr, $secret:expr) => {{
        let mut answers: Answers = Vec::new();
        let first = $grant(grant("r", "a", "1")).await.unwrap();
        let token = first.token.expect("a is granted r");
        let other = $grant(grant("s", "a", "1")).await.unwrap();
        assert!(other.granted, "{other:?}");

        $set_clock(LEASE_MS * 1000);
        let second = $grant(grant("r", "b", "2")).await.unwrap();
        assert!(
            !second.granted,
            "at the expiry instant a's grant can still be believed: {second:?}"
        );
        assert_eq!(second.holder.as_deref(), Some("a"));
        assert_eq!(second.expires_in_ms, Some(1), "{second:?}");
        answers.push(format!("{second:?}"));
        let status: StatusReply = $status("r").await.unwrap();
        assert_eq!(status.holder.as_deref(), Some("a"), "{status:?}");
        answers.push(format!("{status:?}"));
        // A retry promises what is left, which is nothing: not a grant.
        let retried = $grant(grant("r", "a", "1")).await.unwrap();
        assert!(!retried.granted, "{retried:?}");
        answers.push(format!("{retried:?}"));
        let renewed = $renew(renew("r", token, $secret("r", token.get()), "3"))
            .await
            .unwrap();
        assert!(
            renewed.renewed,
            "the old holder's renewal renews: {renewed:?}"
        );
        answers.push(format!("{renewed:?}"));

        $set_clock(LEASE_MS * 1000 + 1);
        let late = $grant(grant("s", "b", "2")).await.unwrap();
        assert!(
            late.granted,
            "a microsecond later the grant ran out: {late:?}"
        );
        answers.push(format!("{late:?}"));
        answers
    }};
}

async fn sqlite_answers() -> Answers {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("leases.db"), limits()).unwrap();
    // Ahead of the monotonic clock that stamped what opening loaded (nothing, here).
    let start = Instant::now() + Duration::from_secs(1);
    let now = Arc::new(Mutex::new(start));
    let read = Arc::clone(&now);
    let store = Arc::new(Mutex::new(
        store.with_clock(Arc::new(move || *read.lock().unwrap())),
    ));
    let set_clock = |us: u64| *now.lock().unwrap() = start + Duration::from_micros(us);
    let op = |req: GrantRequest| {
        let store = Arc::clone(&store);
        async move { store.lock().unwrap().run(|s| s.grant(&req)) }
    };
    let renew_op = |req: RenewRequest| {
        let store = Arc::clone(&store);
        async move { store.lock().unwrap().run(|s| s.renew(&req)) }
    };
    let status = |resource: &'static str| {
        let store = Arc::clone(&store);
        async move { store.lock().unwrap().status(resource) }
    };
    let secret = |resource: &str, token: u64| store.lock().unwrap().lease_secret(resource, token);
    scenario!(set_clock, op, renew_op, status, secret)
}

async fn postgres_answers() -> Answers {
    let url = postgres::shared().fresh_database().await;
    let store = PgStore::open(&url.parse().unwrap(), limits(), DEFAULT_MAX_ATTEMPTS)
        .await
        .unwrap();
    // Whole microseconds, the database's resolution, so that expiries stored come back exact.
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let start = UNIX_EPOCH + Duration::from_secs(since_epoch.as_secs());
    let now = Arc::new(Mutex::new(start));
    let read = Arc::clone(&now);
    let store = store.with_clock(Arc::new(move || *read.lock().unwrap()));
    let set_clock = |us: u64| *now.lock().unwrap() = start + Duration::from_micros(us);
    let op = |req: GrantRequest| {
        let store = store.clone();
        async move { store.grant(&req).await }
    };
    let renew_op = |req: RenewRequest| {
        let store = store.clone();
        async move { store.renew(&req).await }
    };
    let status = |resource: &'static str| {
        let store = store.clone();
        async move { store.status(resource).await }
    };
    let secret = |resource: &str, token: u64| store.lease_secret(resource, token);
    let answers: Answers = scenario!(set_clock, op, renew_op, status, secret);
    answers
}

#[tokio::test]
async fn both_stores_answer_alike_and_safely_at_the_expiry_instant() {
    let sqlite = sqlite_answers().await;
    let postgres = postgres_answers().await;
    assert_eq!(sqlite, postgres);
}

/// A renewal without its secret at the expiry instant is refused with the same error by both
/// stores, since the grant is still live (a refusal would tell an attacker the lease is gone).
#[tokio::test]
async fn an_unproven_renewal_at_the_expiry_instant_is_an_error_in_both_stores() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now() + Duration::from_secs(1);
    let now = Arc::new(Mutex::new(start));
    let read = Arc::clone(&now);
    let mut sqlite = Store::open(&dir.path().join("leases.db"), limits())
        .unwrap()
        .with_clock(Arc::new(move || *read.lock().unwrap()));
    let token = sqlite.run(|s| s.grant(&grant("r", "a", "1"))).unwrap();
    *now.lock().unwrap() = start + Duration::from_millis(LEASE_MS);
    let unproven = RenewRequest {
        lease_secret: None,
        ..renew("r", token.token.unwrap(), String::new(), "2")
    };
    let sqlite_error = sqlite.run(|s| s.renew(&unproven));
    assert!(
        matches!(sqlite_error, Err(StoreError::BadLeaseSecret)),
        "{sqlite_error:?}"
    );

    let url = postgres::shared().fresh_database().await;
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let wall_start = UNIX_EPOCH + Duration::from_secs(since_epoch.as_secs());
    let wall = Arc::new(Mutex::new(wall_start));
    let read = Arc::clone(&wall);
    let pg = PgStore::open(&url.parse().unwrap(), limits(), DEFAULT_MAX_ATTEMPTS)
        .await
        .unwrap()
        .with_clock(Arc::new(move || *read.lock().unwrap()));
    pg.grant(&grant("r", "a", "1")).await.unwrap();
    *wall.lock().unwrap() = wall_start + Duration::from_millis(LEASE_MS);
    let pg_error = pg.renew(&unproven).await;
    assert!(
        matches!(pg_error, Err(StoreError::BadLeaseSecret)),
        "{pg_error:?}"
    );
}
