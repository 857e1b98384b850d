//! `GET|POST /v1/watch` (long polls on a resource's version) and `handTo` on release, over real
//! HTTP against in-process grantors on SQLite and PostgreSQL, and across grantors sharing one
//! PostgreSQL database.
//!
//! Timing bounds are generous: a watch that should be woken by a change must answer within
//! [`WOKEN`], far below its own wait (`waitMs` of [`LONG_WAIT_MS`]), so a watch that is not woken
//! fails the test by answering only at its wait bound.

mod common;

use std::time::Duration;

use common::postgres as pg;
use common::{grant, renew, wait_until, Backend, Server};
use serde_json::{json, Value};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// How long a watch may take to answer once woken (a change, an expiry): generous for a loaded
/// machine, far below [`LONG_WAIT_MS`].
const WOKEN: Duration = Duration::from_secs(5);

/// The wait of watches that a change must wake.
const LONG_WAIT_MS: u64 = 20_000;

fn version(reply: &Value) -> u64 {
    reply["version"]
        .as_u64()
        .unwrap_or_else(|| panic!("no version in {reply}"))
}

fn token_of(reply: &Value) -> u64 {
    reply["token"]
        .as_u64()
        .unwrap_or_else(|| panic!("no token in {reply}"))
}

/// A watch answered at once: the resource's state and version now.
async fn snapshot(server: &Server, resource: &str) -> Value {
    let (status, reply) = server
        .get(&format!("/v1/watch?resource={resource}&waitMs=0"))
        .await;
    assert_eq!(status, 200, "{reply}");
    reply
}

/// A watch of `resource` after version `after`, sent in the background; resolves to its
/// status, reply and how long it took.
fn watch_after(server: &Server, resource: &str, after: u64, wait_ms: u64) -> Watch {
    let url = format!(
        "{}/v1/watch?resource={resource}&after={after}&waitMs={wait_ms}",
        server.url
    );
    let client = server.client.clone();
    tokio::spawn(async move {
        let started = Instant::now();
        let response = client.get(url).send().await.unwrap();
        let status = response.status().as_u16();
        let reply: Value = response.json().await.unwrap();
        (status, reply, started.elapsed())
    })
}

type Watch = JoinHandle<(u16, Value, Duration)>;

/// The `tenure_grantor_watches_open` gauge.
async fn watches_open(server: &Server) -> u64 {
    metric(server, "watches_open").await
}

/// The value of the metric `tenure_grantor_{name}` (without labels).
async fn metric(server: &Server, name: &str) -> u64 {
    let text = server
        .client
        .get(format!("{}/metrics", server.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let prefix = format!("tenure_grantor_{name} ");
    text.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
        .parse()
        .unwrap()
}

/// Waits until `n` watches are open on `server`: they read the state and wait, so a change made
/// now is one they must be woken by.
async fn until_waiting(server: &Server, n: u64) {
    wait_until(Duration::from_secs(10), "the watches to wait", || async {
        watches_open(server).await >= n
    })
    .await;
}

/// The reply of a watch that a change must have woken: within [`WOKEN`], not at its wait bound.
async fn woken(watch: Watch) -> Value {
    let (status, reply, took) = watch.await.unwrap();
    assert_eq!(status, 200, "{reply}");
    assert!(took < WOKEN, "answered after {took:?}: {reply}");
    reply
}

fn release(resource: &str, holder: &str, token: u64) -> Value {
    json!({"resource": resource, "holder": holder, "token": token})
}

fn hand_over(resource: &str, holder: &str, token: u64, to: &str) -> Value {
    json!({"resource": resource, "holder": holder, "token": token, "handTo": to})
}

async fn granted(server: &Server, resource: &str, holder: &str, ms: u64, id: &str) -> u64 {
    let (status, reply) = server
        .post("/v1/grant", grant(resource, holder, ms, id))
        .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["granted"], true, "{reply}");
    token_of(&reply)
}

async fn a_watch_without_a_new_version_is_answered_at_once(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    // Never granted: version 1 (counter 0, nothing live), nobody holds it.
    let never = snapshot(&server, "r").await;
    assert_eq!(
        never,
        json!({"resource": "r", "version": 1, "holder": null, "token": null, "expiresInMs": null})
    );
    let token = granted(&server, "r", "a", 30_000, "1").await;
    // No `after`: the state now, at once, however long the wait asked.
    let started = Instant::now();
    let (status, held) = server.get("/v1/watch?resource=r&waitMs=20000").await;
    assert_eq!(status, 200, "{held}");
    assert!(started.elapsed() < WOKEN);
    assert_eq!(version(&held), 2 * token);
    assert_eq!(held["holder"], "a");
    assert_eq!(held["token"], token);
    let left = held["expiresInMs"].as_u64().unwrap();
    assert!((25_000..=30_000).contains(&left), "{left}");
    // An `after` that is not the version now (older, or one the grantor never reported): at once.
    for after in [1, 3, 1_000] {
        let (status, reply, took) = watch_after(&server, "r", after, LONG_WAIT_MS)
            .await
            .unwrap();
        assert_eq!(status, 200, "{reply}");
        assert!(took < WOKEN, "after={after} took {took:?}");
        assert_eq!(version(&reply), 2 * token, "{reply}");
    }
    // The same over POST.
    let (status, posted) = server
        .post(
            "/v1/watch",
            json!({"resource": "r", "after": 1, "waitMs": 20_000}),
        )
        .await;
    assert_eq!(status, 200, "{posted}");
    assert_eq!(version(&posted), 2 * token);
    server.stop().await;
}

async fn a_watch_is_woken_by_a_grant_a_release_and_a_revocation(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let free = version(&snapshot(&server, "r").await);

    let watch = watch_after(&server, "r", free, LONG_WAIT_MS);
    until_waiting(&server, 1).await;
    let token = granted(&server, "r", "a", 30_000, "1").await;
    let reply = woken(watch).await;
    assert_eq!(version(&reply), 2 * token);
    assert_eq!(
        (&reply["holder"], &reply["token"]),
        (&json!("a"), &json!(token))
    );

    let watch = watch_after(&server, "r", 2 * token, LONG_WAIT_MS);
    until_waiting(&server, 1).await;
    let (_, released) = server.post("/v1/release", release("r", "a", token)).await;
    assert_eq!(released["released"], true, "{released}");
    let reply = woken(watch).await;
    assert_eq!(version(&reply), 2 * token + 1);
    assert_eq!(reply["holder"], Value::Null);

    let token = granted(&server, "r", "b", 30_000, "1").await;
    let watch = watch_after(&server, "r", 2 * token, LONG_WAIT_MS);
    until_waiting(&server, 1).await;
    let (_, revoked) = server.post("/v1/revoke", json!({"resource": "r"})).await;
    assert_eq!(revoked["revoked"], true, "{revoked}");
    let reply = woken(watch).await;
    assert_eq!(version(&reply), 2 * token + 1);
    assert_eq!(reply["holder"], Value::Null);
    server.stop().await;
}

async fn a_watch_is_woken_by_expiry_but_not_by_a_renewal(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    // Nothing signals an expiry: the watch must read again when the grant runs out.
    let token = granted(&server, "r", "a", 600, "1").await;
    let watch = watch_after(&server, "r", 2 * token, LONG_WAIT_MS);
    let reply = woken(watch).await;
    assert_eq!(version(&reply), 2 * token + 1, "{reply}");
    assert_eq!(reply["holder"], Value::Null);

    // A renewal is no change: the watch reads again at the old expiry, finds the grant still
    // live, and waits on, to the end of its wait.
    let token = granted(&server, "r", "b", 600, "1").await;
    let watch = watch_after(&server, "r", 2 * token, 1_500);
    until_waiting(&server, 1).await;
    let (_, renewed) = server
        .post("/v1/renew", renew("r", "b", token, 5_000, "2"))
        .await;
    assert_eq!(renewed["renewed"], true, "{renewed}");
    let (status, reply, took) = watch.await.unwrap();
    assert_eq!(status, 200, "{reply}");
    assert!(took >= Duration::from_millis(1_400), "{took:?}");
    assert_eq!(version(&reply), 2 * token, "{reply}");
    assert_eq!(reply["holder"], "b");
    server.stop().await;
}

async fn a_watch_without_a_change_ends_at_its_wait(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let free = version(&snapshot(&server, "r").await);
    let (status, reply, took) = watch_after(&server, "r", free, 700).await.unwrap();
    assert_eq!(status, 200, "{reply}");
    // The same version: nothing changed.
    assert_eq!(version(&reply), free);
    assert!(took >= Duration::from_millis(650), "{took:?}");
    assert!(took < WOKEN, "{took:?}");
    // A change to another resource does not end it.
    let watch = watch_after(&server, "r", free, 1_000);
    until_waiting(&server, 1).await;
    granted(&server, "other", "a", 30_000, "1").await;
    let (_, reply, took) = watch.await.unwrap();
    assert_eq!(version(&reply), free);
    assert!(took >= Duration::from_millis(950), "{took:?}");
    server.stop().await;
}

async fn versions_only_grow(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let mut seen = vec![version(&snapshot(&server, "r").await)];
    let mut look = |reply: Value| seen.push(version(&reply));
    let t1 = granted(&server, "r", "a", 30_000, "1").await;
    look(snapshot(&server, "r").await);
    // A re-grant by the same holder takes the next token: a change.
    let t2 = granted(&server, "r", "a", 30_000, "2").await;
    assert_eq!(t2, t1 + 1);
    look(snapshot(&server, "r").await);
    server.post("/v1/release", release("r", "a", t2)).await;
    look(snapshot(&server, "r").await);
    let t3 = granted(&server, "r", "b", 300, "1").await;
    look(snapshot(&server, "r").await);
    tokio::time::sleep(Duration::from_millis(400)).await;
    look(snapshot(&server, "r").await);
    let t4 = granted(&server, "r", "c", 30_000, "1").await;
    look(snapshot(&server, "r").await);
    server.post("/v1/revoke", json!({"resource": "r"})).await;
    look(snapshot(&server, "r").await);
    assert!(t3 < t4);
    assert!(
        seen.windows(2).all(|w| w[0] < w[1]),
        "versions must grow with every change: {seen:?}"
    );
    // And nothing else moves them: a denial, a renewal, a release that ends nothing.
    let before = version(&snapshot(&server, "r").await);
    let t5 = granted(&server, "r", "d", 30_000, "1").await;
    let (_, denied) = server.post("/v1/grant", grant("r", "e", 1_000, "1")).await;
    assert_eq!(denied["granted"], false);
    server
        .post("/v1/renew", renew("r", "d", t5, 30_000, "2"))
        .await;
    server.post("/v1/release", release("r", "e", t5)).await;
    assert_eq!(version(&snapshot(&server, "r").await), 2 * t5);
    assert!(2 * t5 > before);
    server.stop().await;
}

async fn a_handoff_keeps_the_resource_for_the_named_holder(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let token = granted(&server, "r", "a", 5_000, "1").await;
    // A watcher sees the handoff: the release is a change.
    let watch = watch_after(&server, "r", 2 * token, LONG_WAIT_MS);
    until_waiting(&server, 1).await;
    let (status, released) = server
        .post("/v1/release", hand_over("r", "a", token, "b"))
        .await;
    assert_eq!((status, &released), (200, &json!({"released": true})));
    assert_eq!(metric(&server, "handoffs_total").await, 1);
    let reply = woken(watch).await;
    assert_eq!(version(&reply), 2 * token + 1);
    assert_eq!(reply["holder"], Value::Null);
    assert_eq!(reply["handedTo"], "b");
    // Status stays as it was: nobody holds it.
    let (_, status_reply) = server.get("/v1/status?resource=r").await;
    assert_eq!(status_reply["holder"], Value::Null, "{status_reply}");

    // Anyone else, the releaser included, is denied as if "b" held it.
    for (other, id) in [("c", "1"), ("a", "2")] {
        let (_, denied) = server.post("/v1/grant", grant("r", other, 1_000, id)).await;
        assert_eq!(denied["granted"], false, "{other}: {denied}");
        assert_eq!(denied["holder"], "b", "{denied}");
        let left = denied["expiresInMs"].as_u64().unwrap();
        assert!((1..=5_000).contains(&left), "{left}");
    }
    // The named holder is granted at once, under the next token; the preference ends.
    let handed = granted(&server, "r", "b", 30_000, "1").await;
    assert_eq!(handed, token + 1);
    let held = snapshot(&server, "r").await;
    assert_eq!(held["holder"], "b");
    assert!(held.get("handedTo").is_none(), "{held}");
    // A retry of the handing release ends nothing and hands nothing over again.
    let (_, retried) = server
        .post("/v1/release", hand_over("r", "a", token, "b"))
        .await;
    assert_eq!(retried, json!({"released": false}));
    assert_eq!(metric(&server, "handoffs_total").await, 1);
    server.post("/v1/release", release("r", "b", handed)).await;
    let next = granted(&server, "r", "c", 1_000, "2").await;
    assert_eq!(next, handed + 1);
    server.stop().await;
}

async fn a_handoff_lasts_a_bounded_time(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    // The preference lasts the released grant's duration (here shorter than HANDOFF_MAX_MS).
    let token = granted(&server, "r", "a", 700, "1").await;
    let started = Instant::now();
    let (_, released) = server
        .post("/v1/release", hand_over("r", "a", token, "b"))
        .await;
    assert_eq!(released["released"], true);
    let (_, denied) = server.post("/v1/grant", grant("r", "c", 1_000, "1")).await;
    assert_eq!(denied["granted"], false, "{denied}");
    assert_eq!(denied["holder"], "b");
    assert!(denied["expiresInMs"].as_u64().unwrap() <= 700, "{denied}");
    // Then the others are granted normally (the named holder never came).
    let mut attempt = 1;
    let taken = loop {
        attempt += 1;
        let (_, reply) = server
            .post("/v1/grant", grant("r", "c", 1_000, &attempt.to_string()))
            .await;
        if reply["granted"] == true {
            break token_of(&reply);
        }
        assert!(started.elapsed() < WOKEN, "still kept for b: {reply}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(started.elapsed() >= Duration::from_millis(650));
    assert_eq!(taken, token + 1);
    let held = snapshot(&server, "r").await;
    assert_eq!(held["holder"], "c");
    assert!(held.get("handedTo").is_none(), "{held}");
    server.stop().await;
}

async fn a_release_that_ends_nothing_hands_nothing_over(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    // Ran out before the release: nothing is handed over.
    let token = granted(&server, "r", "a", 100, "1").await;
    tokio::time::sleep(Duration::from_millis(250)).await;
    let (_, late) = server
        .post("/v1/release", hand_over("r", "a", token, "b"))
        .await;
    assert_eq!(late, json!({"released": false}));
    assert!(snapshot(&server, "r").await.get("handedTo").is_none());
    let next = granted(&server, "r", "c", 30_000, "1").await;
    // Not the holder's grant: nothing is handed over, and the live grant stays.
    let (_, wrong) = server
        .post("/v1/release", hand_over("r", "a", next, "b"))
        .await;
    assert_eq!(wrong, json!({"released": false}));
    assert_eq!(snapshot(&server, "r").await["holder"], "c");
    server.stop().await;
}

async fn a_bad_hand_to_is_refused_before_anything_is_released(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let token = granted(&server, "r", "a", 30_000, "1").await;
    let long = "b".repeat(257);
    for to in [
        json!("a"),
        json!(""),
        json!(long),
        json!("b\u{1}"),
        json!(5),
    ] {
        let mut body = release("r", "a", token);
        body["handTo"] = to.clone();
        let (status, reply) = server.post("/v1/release", body).await;
        assert_eq!(status, 400, "{to}: {reply}");
        let code = reply["error"]["code"].as_str().unwrap();
        assert!(
            ["bad_holder", "wrong_type"].contains(&code),
            "{to}: {reply}"
        );
    }
    assert_eq!(snapshot(&server, "r").await["holder"], "a");
    server.stop().await;
}

async fn hostile_watch_requests_get_errors_never_replies(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    for (query, code) in [
        ("", "missing_field"),
        ("after=1", "missing_field"),
        ("resource=", "bad_resource"),
        ("resource=r&after=-1", "bad_query"),
        ("resource=r&after=x", "bad_query"),
        ("resource=r&after=1.5", "bad_query"),
        ("resource=r&after=18014398509481984", "bad_token"),
        ("resource=r&after=99999999999999999999999", "bad_query"),
        ("resource=r&waitMs=-1", "bad_query"),
        ("resource=r&waitMs=soon", "bad_query"),
        ("resource=r&resource=s", "bad_query"),
        ("resource=r&wait=5", "unknown_field"),
        ("resource=r%01", "bad_resource"),
    ] {
        let (status, reply) = server.get(&format!("/v1/watch?{query}")).await;
        assert_eq!(status, 400, "{query}: {reply}");
        assert_eq!(reply["error"]["code"], code, "{query}: {reply}");
    }
    for (body, code) in [
        (json!({"resource": "r", "after": -1}), "bad_token"),
        (json!({"resource": "r", "after": 1.5}), "bad_token"),
        (json!({"resource": "r", "after": "1"}), "bad_token"),
        (
            json!({"resource": "r", "after": 18014398509481984u64}),
            "bad_token",
        ),
        (json!({"resource": "r", "waitMs": -1}), "bad_duration"),
        (json!({"resource": "r", "waitMs": 0.5}), "bad_duration"),
        (json!({"resource": "r", "waitMs": "1"}), "bad_duration"),
        (json!({"resource": "r", "extra": 1}), "unknown_field"),
        (json!({"after": 1}), "missing_field"),
        (json!({"resource": ""}), "bad_resource"),
        (json!(["r"]), "wrong_type"),
    ] {
        let (status, reply) = server.post_exact("/v1/watch", body.clone()).await;
        assert_eq!(status, 400, "{body}: {reply}");
        assert_eq!(reply["error"]["code"], code, "{body}: {reply}");
    }
    // The largest version is accepted, and so is a wait far past the bound (it is shortened).
    let (status, reply) = server
        .get("/v1/watch?resource=r&after=18014398509481983&waitMs=0")
        .await;
    assert_eq!(status, 200, "{reply}");
    let (status, reply) = server
        .get("/v1/watch?resource=r&waitMs=18446744073709551615")
        .await;
    assert_eq!(status, 200, "{reply}");
    server.stop().await;
}

async fn watches_past_the_limit_are_refused_and_a_hung_up_one_frees_its_place(backend: Backend) {
    let server = Server::start_on(backend, |config| config.max_watches = 2).await;
    let free = version(&snapshot(&server, "r").await);
    let first = watch_after(&server, "r", free, LONG_WAIT_MS);
    let second = watch_after(&server, "s", free, LONG_WAIT_MS);
    until_waiting(&server, 2).await;
    let response = server
        .client
        .get(format!("{}/v1/watch?resource=t", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 429);
    assert_eq!(response.headers()["retry-after"], "1");
    let refused: Value = response.json().await.unwrap();
    assert_eq!(refused["error"]["code"], "rate_limited", "{refused}");
    assert_eq!(metric(&server, "watch_refusals_total").await, 1);
    // A client that hangs up frees its place: its connection closes, the watch is dropped.
    first.abort();
    let _ = first.await;
    wait_until(
        Duration::from_secs(10),
        "the hung-up watch to end",
        || async { watches_open(&server).await == 1 },
    )
    .await;
    let third = watch_after(&server, "t", free, LONG_WAIT_MS);
    until_waiting(&server, 2).await;
    // Both open watches still answer their changes.
    granted(&server, "s", "a", 30_000, "1").await;
    granted(&server, "t", "a", 30_000, "1").await;
    assert_eq!(woken(second).await["holder"], "a");
    assert_eq!(woken(third).await["holder"], "a");
    server.stop().await;
}

async fn shutdown_does_not_wait_for_open_watches(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let free = version(&snapshot(&server, "r").await);
    let watch = watch_after(&server, "r", free, 30_000);
    until_waiting(&server, 1).await;
    let started = Instant::now();
    server.stop().await;
    assert!(started.elapsed() < WOKEN, "{:?}", started.elapsed());
    // The watch was answered with the state as it was.
    let (status, reply, _) = watch.await.unwrap();
    assert_eq!(status, 200, "{reply}");
    assert_eq!(version(&reply), free);
}

on_both_backends!(
    a_watch_without_a_new_version_is_answered_at_once,
    a_watch_is_woken_by_a_grant_a_release_and_a_revocation,
    a_watch_is_woken_by_expiry_but_not_by_a_renewal,
    a_watch_without_a_change_ends_at_its_wait,
    versions_only_grow,
    a_handoff_keeps_the_resource_for_the_named_holder,
    a_handoff_lasts_a_bounded_time,
    a_release_that_ends_nothing_hands_nothing_over,
    a_bad_hand_to_is_refused_before_anything_is_released,
    hostile_watch_requests_get_errors_never_replies,
    watches_past_the_limit_are_refused_and_a_hung_up_one_frees_its_place,
    shutdown_does_not_wait_for_open_watches,
);

/// The `pid`s of the grantors' `LISTEN` connections to the database at `url`.
async fn listeners(sql: &tokio_postgres::Client) -> Vec<i32> {
    sql.query(
        "SELECT pid FROM pg_stat_activity
         WHERE application_name = 'tenure-grantor-watch' AND datname = current_database()",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|row| row.get(0))
    .collect()
}

/// Two grantors on one PostgreSQL database: a watch on one is woken by a change made through
/// the other, carried by `pg_notify` and the watching grantor's `LISTEN` connection; still so
/// after that connection is killed and the grantor listens again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_is_woken_by_a_change_on_another_grantor() {
    let url = pg::shared().fresh_database().await;
    let a = Server::start_with(Some(url.clone()), |_| {}).await;
    let b = Server::start_with(Some(url.clone()), |_| {}).await;
    let sql = pg::connect(&url).await;
    wait_until(
        Duration::from_secs(10),
        "both grantors to listen",
        || async { listeners(&sql).await.len() == 2 },
    )
    .await;
    let free = version(&snapshot(&a, "r").await);
    let watch = watch_after(&a, "r", free, LONG_WAIT_MS);
    until_waiting(&a, 1).await;
    let token = granted(&b, "r", "x", 30_000, "1").await;
    let reply = woken(watch).await;
    assert_eq!(version(&reply), 2 * token);
    assert_eq!(reply["holder"], "x");

    // Kill both LISTEN connections; a watch open meanwhile is woken to read again, and once
    // the grantors listen anew, changes on the other grantor wake watches again.
    let watch = watch_after(&a, "r", 2 * token, LONG_WAIT_MS);
    until_waiting(&a, 1).await;
    let killed = listeners(&sql).await;
    for pid in &killed {
        sql.execute("SELECT pg_terminate_backend($1)", &[pid])
            .await
            .unwrap();
    }
    wait_until(
        Duration::from_secs(10),
        "the grantors to listen again",
        || async {
            let now = listeners(&sql).await;
            now.len() == 2 && now.iter().all(|pid| !killed.contains(pid))
        },
    )
    .await;
    let (_, released) = b.post("/v1/release", release("r", "x", token)).await;
    assert_eq!(released["released"], true, "{released}");
    let reply = woken(watch).await;
    assert_eq!(version(&reply), 2 * token + 1, "{reply}");

    let watch = watch_after(&a, "r", 2 * token + 1, LONG_WAIT_MS);
    until_waiting(&a, 1).await;
    let again = granted(&b, "r", "y", 30_000, "2").await;
    let reply = woken(watch).await;
    assert_eq!(version(&reply), 2 * again);
    assert_eq!(reply["holder"], "y");
    // A handoff made on one grantor binds the other.
    let (_, handed) = b.post("/v1/release", hand_over("r", "y", again, "z")).await;
    assert_eq!(handed["released"], true, "{handed}");
    let (_, denied) = a.post("/v1/grant", grant("r", "w", 1_000, "1")).await;
    assert_eq!(denied["holder"], "z", "{denied}");
    assert_eq!(granted(&a, "r", "z", 1_000, "1").await, again + 1);
    a.stop().await;
    b.stop().await;
}

/// A database a grantor of schema version 1 created opens, gains the handoff columns, and keeps
/// its grants.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_postgres_database_opens_and_gains_handoffs() {
    let url = pg::shared().fresh_database().await;
    let first = Server::start_with(Some(url.clone()), |_| {}).await;
    let token = granted(&first, "r", "a", 30_000, "1").await;
    first.stop().await;
    let sql = pg::connect(&url).await;
    sql.batch_execute(
        "ALTER TABLE lease_registry DROP COLUMN handed_to, DROP COLUMN handoff_until;
         UPDATE tenure_schema SET version = 1;",
    )
    .await
    .unwrap();
    let server = Server::start_with(Some(url.clone()), |_| {}).await;
    let version: i32 = sql
        .query_one("SELECT version FROM tenure_schema", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(version, 2);
    assert_eq!(snapshot(&server, "r").await["token"], token);
    // The first server's secrets are the same (one key per database); this one learns them anew.
    let secret = first_secret(&url, token).await;
    let (_, handed) = server
        .post_exact(
            "/v1/release",
            json!({"resource": "r", "holder": "a", "token": token, "leaseSecret": secret,
                   "handTo": "b"}),
        )
        .await;
    assert_eq!(handed["released"], true, "{handed}");
    let (_, denied) = server.post("/v1/grant", grant("r", "c", 1_000, "1")).await;
    assert_eq!(denied["holder"], "b", "{denied}");
    server.stop().await;
}

/// The secret of grant `token` of `r`, from a replay of its grant request on the database at
/// `url` (a retry is answered with the same token, and so the same secret).
async fn first_secret(url: &str, token: u64) -> String {
    let server = Server::start_with(Some(url.to_owned()), |_| {}).await;
    let (_, replay) = server.post("/v1/grant", grant("r", "a", 30_000, "1")).await;
    assert_eq!(replay["token"], token, "{replay}");
    let secret = replay["leaseSecret"].as_str().unwrap().to_owned();
    server.stop().await;
    secret
}

/// The same across two `tenure-grantor` processes on one database: a watch on one is woken by a
/// grant made through the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_is_woken_by_a_grant_in_another_grantor_process() {
    let url = pg::shared().fresh_database().await;
    let a = common::Process::start_postgres(&url);
    let b = common::Process::start_postgres(&url);
    let sql = pg::connect(&url).await;
    wait_until(
        Duration::from_secs(10),
        "both grantors to listen",
        || async { listeners(&sql).await.len() == 2 },
    )
    .await;
    let client = reqwest::Client::new();
    let watch_url = format!(
        "{}/v1/watch?resource=r&after=1&waitMs={LONG_WAIT_MS}",
        a.url
    );
    let watch = tokio::spawn({
        let client = client.clone();
        async move {
            let started = Instant::now();
            let reply: Value = client
                .get(watch_url)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            (reply, started.elapsed())
        }
    });
    // The watch is open once process A counts it.
    wait_until(Duration::from_secs(10), "the watch to wait", || async {
        let text = client
            .get(format!("{}/metrics", a.url))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.contains("tenure_grantor_watches_open 1")
    })
    .await;
    let (status, reply) =
        common::post(&client, &b.url, "/v1/grant", grant("r", "x", 30_000, "1")).await;
    assert_eq!((status, &reply["token"]), (200, &json!(1)), "{reply}");
    let (reply, took) = watch.await.unwrap();
    assert!(took < WOKEN, "answered after {took:?}: {reply}");
    assert_eq!(version(&reply), 2);
    assert_eq!(reply["holder"], "x");
    a.kill();
    b.kill();
}

/// A watch is authorised like `status`: an API key is needed when keys are configured, and it
/// may only watch names in its namespaces.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_needs_a_key_for_its_namespace() {
    let ring =
        "{\"id\": \"a\", \"secret\": \"team-a-key-0123456789\", \"namespaces\": [\"team-a/\"]}";
    let keys = tenure_grantor::auth::KeyRing::new(
        tenure_grantor::auth::parse_keys(ring, "test keys").unwrap(),
    )
    .unwrap();
    let server = Server::start(|config| config.keys = keys).await;
    let send = |query: &str, key: Option<&str>| {
        let mut request = server
            .client
            .get(format!("{}/v1/watch?{query}", server.url));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let reply: Value = response.json().await.unwrap();
            (status, reply)
        }
    };
    let key = Some("team-a-key-0123456789");
    for (query, key, status, code) in [
        ("resource=team-a/x&waitMs=0", None, 401, "unauthorized"),
        ("resource=team-a/x&after=x", None, 401, "unauthorized"),
        (
            "resource=team-a/x&waitMs=0",
            Some("wrong"),
            401,
            "unauthorized",
        ),
        (
            "resource=team-b/x&waitMs=0",
            key,
            403,
            "forbidden_namespace",
        ),
        ("resource=team-a%2Fx&after=0", key, 200, ""),
    ] {
        let (got, reply) = send(query, key).await;
        assert_eq!(got, status, "{query}: {reply}");
        if status != 200 {
            assert_eq!(reply["error"]["code"], code, "{query}: {reply}");
        } else {
            assert_eq!(reply["resource"], "team-a/x", "{reply}");
        }
    }
    // Refused watches took no place.
    assert_eq!(watches_open(&server).await, 0);
    server.stop().await;
}

/// A change made while a grantor cannot listen (its `LISTEN` connection killed, and the database
/// refusing it a new one) reaches that grantor's open watches once it listens again: they read
/// again then, not at the end of their wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_missed_while_not_listening_is_seen_once_listening_again() {
    let url = pg::shared().fresh_database().await;
    let database = url.rsplit('/').next().unwrap().to_owned();
    // The grantors connect as a role of this test's own, which can be refused new connections
    // without disturbing the other tests on the server.
    let role = format!("watcher_{database}");
    let sql = pg::connect(&url).await;
    sql.batch_execute(&format!(
        "CREATE ROLE {role} LOGIN; ALTER DATABASE {database} OWNER TO {role};"
    ))
    .await
    .unwrap();
    let role_url = url.replacen("tenure@", &format!("{role}@"), 1);
    let a = Server::start_with(Some(role_url.clone()), |_| {}).await;
    let b = Server::start_with(Some(role_url), |_| {}).await;
    wait_until(
        Duration::from_secs(10),
        "both grantors to listen",
        || async { listeners(&sql).await.len() == 2 },
    )
    .await;
    // Each grantor's pool keeps the connection these used, for the requests below.
    let free = version(&snapshot(&a, "r").await);
    snapshot(&b, "r").await;
    let watch = watch_after(&a, "r", free, LONG_WAIT_MS);
    until_waiting(&a, 1).await;

    sql.batch_execute(&format!("ALTER ROLE {role} NOLOGIN"))
        .await
        .unwrap();
    for pid in listeners(&sql).await {
        sql.execute("SELECT pg_terminate_backend($1)", &[&pid])
            .await
            .unwrap();
    }
    wait_until(
        Duration::from_secs(10),
        "the listeners to be gone",
        || async { listeners(&sql).await.is_empty() },
    )
    .await;
    // Nobody listens: this change's notification reaches no grantor.
    let token = granted(&b, "r", "x", 30_000, "1").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!watch.is_finished(), "woken while nobody listened");
    let allowed = Instant::now();
    sql.batch_execute(&format!("ALTER ROLE {role} LOGIN"))
        .await
        .unwrap();
    let (status, reply, _) = watch.await.unwrap();
    assert_eq!(status, 200, "{reply}");
    assert!(
        allowed.elapsed() < WOKEN,
        "answered {:?} after",
        allowed.elapsed()
    );
    assert_eq!(version(&reply), 2 * token, "{reply}");
    a.stop().await;
    b.stop().await;
}
