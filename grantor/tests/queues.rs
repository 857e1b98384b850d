//! Work queues over real HTTP: atomic claims, fenced heartbeats and completions, attempts and
//! dead-lettering, dedupe, and claims that outlive a grantor crash.

mod common;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{post, Backend, Process, Server};
use serde_json::{json, Value};
use tokio::sync::Barrier;

async fn enqueue(server: &Server, queue: &str, items: Value) -> Value {
    let (status, reply) = server
        .post(
            "/v1/queues/enqueue",
            json!({"queue": queue, "items": items}),
        )
        .await;
    assert_eq!(status, 200, "{reply}");
    reply
}

async fn claim(server: &Server, queue: &str, worker: &str, claim_ms: u64) -> Value {
    let body = json!({"queue": queue, "worker": worker, "claimMs": claim_ms});
    let (status, reply) = server.post("/v1/queues/claim", body).await;
    assert_eq!(status, 200, "{reply}");
    reply
}

/// The item id and claim token of a successful claim.
fn claimed(reply: &Value) -> (u64, u64) {
    assert_eq!(reply["claimed"], true, "{reply}");
    (
        reply["item"]["id"].as_u64().unwrap(),
        reply["token"].as_u64().unwrap(),
    )
}

fn fenced(queue: &str, item: u64, worker: &str, token: u64) -> Value {
    json!({"queue": queue, "itemId": item, "worker": worker, "token": token})
}

fn with(mut body: Value, key: &str, value: Value) -> Value {
    body[key] = value;
    body
}

async fn stats(server: &Server, queue: &str) -> Value {
    let (status, reply) = server
        .post("/v1/queues/stats", json!({"queue": queue}))
        .await;
    assert_eq!(status, 200, "{reply}");
    reply
}

async fn concurrent_workers_never_claim_the_same_item_twice(backend: Backend) {
    const ITEMS: u64 = 120;
    const WORKERS: usize = 16;
    let server = Server::start_on(backend, |_| {}).await;
    let items: Vec<Value> = (0..ITEMS).map(|n| json!({"payload": n})).collect();
    enqueue(&server, "jobs", Value::Array(items)).await;

    let barrier = Arc::new(Barrier::new(WORKERS));
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (client, url, barrier) =
                (server.client.clone(), server.url.clone(), barrier.clone());
            tokio::spawn(async move {
                let worker = format!("worker-{w}");
                let mut got = Vec::new();
                barrier.wait().await;
                loop {
                    let body = json!({"queue": "jobs", "worker": worker, "claimMs": 60_000});
                    let (status, reply) = post(&client, &url, "/v1/queues/claim", body).await;
                    assert_eq!(status, 200, "{reply}");
                    if reply["claimed"] == false {
                        return got;
                    }
                    got.push(claimed(&reply));
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await.unwrap());
    }
    // Every claim lives for a minute, so each item may be handed out once only, with token 1.
    assert_eq!(all.len() as u64, ITEMS, "claims: {all:?}");
    let ids: HashSet<u64> = all.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids.len() as u64, ITEMS, "an item was claimed twice");
    assert!(all.iter().all(|(_, token)| *token == 1));
    let counts = stats(&server, "jobs").await;
    assert_eq!(
        counts,
        json!({"queue": "jobs", "pending": 0, "claimed": ITEMS, "done": 0, "dead": 0})
    );
    server.stop().await;
}

async fn claims_take_the_oldest_item_and_skip_other_queues(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    enqueue(&server, "a", json!([{"payload": "a1"}])).await;
    enqueue(&server, "b", json!([{"payload": "b1"}])).await;
    enqueue(&server, "a", json!([{"payload": "a2"}])).await;
    let first = claim(&server, "a", "w", 10_000).await;
    assert_eq!(first["item"]["payload"], "a1");
    assert_eq!(first["item"]["attempts"], 1);
    assert_eq!(first["claimMs"], 10_000);
    let second = claim(&server, "a", "w", 10_000).await;
    assert_eq!(second["item"]["payload"], "a2");
    assert_eq!(
        claim(&server, "a", "w", 10_000).await,
        json!({"claimed": false})
    );
    assert_eq!(
        claim(&server, "b", "w", 10_000).await["item"]["payload"],
        "b1"
    );
    server.stop().await;
}

async fn a_retried_claim_returns_the_same_item(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    enqueue(&server, "q", json!([{"payload": 1}, {"payload": 2}])).await;
    let body = json!({"queue": "q", "worker": "w", "claimMs": 10_000, "requestId": "r1"});
    let (_, first) = server.post("/v1/queues/claim", body.clone()).await;
    let (_, retried) = server.post("/v1/queues/claim", body).await;
    assert_eq!(first["item"], retried["item"]);
    assert_eq!(first["token"], retried["token"]);
    // The retry's worker measures from the retry's send: it is promised only what is left.
    let left = retried["claimMs"].as_u64().unwrap();
    assert!((1..=10_000).contains(&left), "replayed claimMs {left}");
    assert_eq!(claimed(&claim(&server, "q", "w", 10_000).await).0, 2);
    server.stop().await;
}

async fn heartbeats_extend_only_the_live_claim_with_its_token(backend: Backend) {
    const CLAIM_MS: u64 = 1_000;
    let server = Server::start_on(backend, |_| {}).await;
    enqueue(&server, "q", json!([{"payload": 1}])).await;
    let (item, token) = claimed(&claim(&server, "q", "w", CLAIM_MS).await);

    let wrong = with(
        fenced("q", item, "w", token + 1),
        "claimMs",
        json!(CLAIM_MS),
    );
    let (status, reply) = server.post("/v1/queues/heartbeat", wrong).await;
    assert_eq!(
        (status, &reply["error"]["code"]),
        (409, &json!("stale_claim"))
    );
    let other = with(fenced("q", item, "v", token), "claimMs", json!(CLAIM_MS));
    let (status, reply) = server.post("/v1/queues/heartbeat", other).await;
    assert_eq!(
        (status, &reply["error"]["code"]),
        (409, &json!("stale_claim"))
    );

    // Heartbeats every 200 ms keep a 1 s claim for well past its first expiry. The claim is five
    // heartbeats long so that a machine under load (a slow PostgreSQL commit) cannot let it lapse
    // between two of them.
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(2_500) {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let body = with(fenced("q", item, "w", token), "claimMs", json!(CLAIM_MS));
        let (status, reply) = server.post("/v1/queues/heartbeat", body).await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(
            reply,
            json!({"extended": true, "token": token, "claimMs": CLAIM_MS})
        );
        assert_eq!(
            claim(&server, "q", "v", CLAIM_MS).await,
            json!({"claimed": false})
        );
    }

    // Without heartbeats it runs out; then the old token is refused and another worker claims.
    tokio::time::sleep(Duration::from_millis(CLAIM_MS + 400)).await;
    let late = with(fenced("q", item, "w", token), "claimMs", json!(CLAIM_MS));
    let (status, reply) = server.post("/v1/queues/heartbeat", late).await;
    assert_eq!(
        (status, &reply["error"]["code"]),
        (409, &json!("stale_claim"))
    );
    let (again, next) = claimed(&claim(&server, "q", "v", CLAIM_MS).await);
    assert_eq!((again, next), (item, token + 1));
    server.stop().await;
}

async fn a_stale_completion_is_rejected_and_the_item_records_its_completing_token(
    backend: Backend,
) {
    let server = Server::start_on(backend, |_| {}).await;
    enqueue(&server, "q", json!([{"payload": "job"}])).await;
    let (item, old) = claimed(&claim(&server, "q", "slow", 100).await);
    tokio::time::sleep(Duration::from_millis(250)).await;
    let (same, new) = claimed(&claim(&server, "q", "fast", 10_000).await);
    assert_eq!(same, item);
    assert!(new > old);

    let stale = with(fenced("q", item, "slow", old), "result", json!("late"));
    let (status, reply) = server.post("/v1/queues/complete", stale.clone()).await;
    assert_eq!(
        (status, &reply["error"]["code"]),
        (409, &json!("stale_claim"))
    );
    let (status, reply) = server
        .post(
            "/v1/queues/fail",
            with(fenced("q", item, "slow", old), "error", json!("x")),
        )
        .await;
    assert_eq!(
        (status, &reply["error"]["code"]),
        (409, &json!("stale_claim"))
    );

    let done = with(
        fenced("q", item, "fast", new),
        "result",
        json!({"ok": true}),
    );
    let (status, reply) = server.post("/v1/queues/complete", done.clone()).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply, json!({"completed": true, "token": new}));
    // A retry of the same completion is answered the same; the stale one still is not.
    assert_eq!(server.post("/v1/queues/complete", done).await.1, reply);
    let (status, _) = server.post("/v1/queues/complete", stale).await;
    assert_eq!(status, 409);

    let (_, record) = server
        .post("/v1/queues/item", json!({"queue": "q", "itemId": item}))
        .await;
    assert_eq!(record["state"], "done");
    assert_eq!(record["completedToken"], new);
    assert_eq!(record["completedBy"], "fast");
    assert_eq!(record["result"], json!({"ok": true}));
    assert_eq!(record["attempts"], 2);
    let (status, reply) = server
        .post("/v1/queues/item", json!({"queue": "other", "itemId": item}))
        .await;
    assert_eq!(
        (status, &reply["error"]["code"]),
        (404, &json!("no_such_item"))
    );
    server.stop().await;
}

async fn an_item_is_dead_lettered_after_its_last_attempt(backend: Backend) {
    let server = Server::start_on(backend, |config| config.max_attempts = 3).await;
    enqueue(
        &server,
        "q",
        json!([{"payload": "poison"}, {"payload": "once", "maxAttempts": 1}]),
    )
    .await;
    for attempt in 1..=3 {
        let reply = claim(&server, "q", "w", 10_000).await;
        let (item, token) = claimed(&reply);
        assert_eq!(
            (item, reply["item"]["attempts"].as_u64()),
            (1, Some(attempt))
        );
        let body = with(
            fenced("q", item, "w", token),
            "error",
            json!({"attempt": attempt}),
        );
        let (status, reply) = server.post("/v1/queues/fail", body).await;
        assert_eq!(status, 200, "{reply}");
        let state = if attempt < 3 { "pending" } else { "dead" };
        assert_eq!(
            reply,
            json!({"state": state, "attempts": attempt, "maxAttempts": 3})
        );
    }
    // A claim that runs out counts as an attempt too: a worker that crashes on an item every
    // time cannot keep it alive forever.
    let (once, _) = claimed(&claim(&server, "q", "w", 100).await);
    assert_eq!(once, 2);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(
        claim(&server, "q", "w", 10_000).await,
        json!({"claimed": false})
    );
    assert_eq!(
        stats(&server, "q").await,
        json!({"queue": "q", "pending": 0, "claimed": 0, "done": 0, "dead": 2})
    );
    let (_, record) = server
        .post("/v1/queues/item", json!({"queue": "q", "itemId": 1}))
        .await;
    assert_eq!(record["state"], "dead");
    assert_eq!(record["lastError"], json!({"attempt": 3}));
    server.stop().await;
}

async fn a_dedupe_key_enqueues_once_per_queue(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let first = enqueue(
        &server,
        "q",
        json!([{"payload": 1, "dedupeKey": "k"}, {"payload": 2}]),
    )
    .await;
    let again = enqueue(&server, "q", json!([{"payload": 3, "dedupeKey": "k"}])).await;
    let elsewhere = enqueue(&server, "r", json!([{"payload": 4, "dedupeKey": "k"}])).await;
    let id = first["items"][0]["itemId"].as_u64().unwrap();
    assert_eq!(first["items"][0]["enqueued"], true);
    assert_eq!(again, json!({"items": [{"itemId": id, "enqueued": false}]}));
    assert_eq!(elsewhere["items"][0]["enqueued"], true);
    assert!(first["items"][1]["itemId"].as_u64().unwrap() > id);
    assert_eq!(stats(&server, "q").await["pending"], 2);
    let (_, record) = server
        .post("/v1/queues/item", json!({"queue": "q", "itemId": id}))
        .await;
    assert_eq!(
        (&record["payload"], &record["dedupeKey"]),
        (&json!(1), &json!("k"))
    );
    server.stop().await;
}

async fn malformed_queue_requests_get_their_codes(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let long = "q".repeat(257);
    for (path, body, code) in [
        (
            "enqueue",
            json!({"queue": "", "items": [{"payload": 1}]}),
            "bad_queue",
        ),
        (
            "enqueue",
            json!({"queue": long, "items": [{"payload": 1}]}),
            "bad_queue",
        ),
        ("enqueue", json!({"queue": "q", "items": []}), "bad_items"),
        (
            "enqueue",
            json!({"queue": "q", "items": [{"payload": 1, "dedupeKey": ""}]}),
            "bad_dedupe_key",
        ),
        (
            "enqueue",
            json!({"queue": "q", "items": [{"payload": 1, "maxAttempts": 0}]}),
            "bad_max_attempts",
        ),
        (
            "enqueue",
            json!({"queue": "q", "items": [{"payload": 1, "maxAttempts": 1.5}]}),
            "bad_max_attempts",
        ),
        (
            "enqueue",
            json!({"queue": "q", "items": [{"payload": 1, "extra": 1}]}),
            "unknown_field",
        ),
        (
            "claim",
            json!({"queue": "q", "worker": "", "claimMs": 1000}),
            "bad_worker",
        ),
        (
            "claim",
            json!({"queue": "q", "worker": "w", "claimMs": 0}),
            "bad_duration",
        ),
        (
            "claim",
            json!({"queue": "q", "worker": "w", "claimMs": -5}),
            "bad_duration",
        ),
        (
            "claim",
            json!({"queue": "q", "worker": "w"}),
            "missing_field",
        ),
        (
            "claim",
            json!({"queue": "q", "worker": "w", "claimMs": 1000, "requestId": ""}),
            "bad_request_id",
        ),
        (
            "heartbeat",
            json!({"queue": "q", "itemId": 0, "worker": "w", "token": 1, "claimMs": 1000}),
            "bad_item_id",
        ),
        (
            "heartbeat",
            json!({"queue": "q", "itemId": "1", "worker": "w", "token": 1, "claimMs": 1000}),
            "bad_item_id",
        ),
        (
            "complete",
            json!({"queue": "q", "itemId": 1, "worker": "w", "token": -1}),
            "bad_token",
        ),
        (
            "complete",
            json!({"queue": "q", "itemId": 99, "worker": "w", "token": 1}),
            "no_such_item",
        ),
        (
            "fail",
            json!({"queue": "q", "itemId": 99, "worker": "w", "token": 1}),
            "no_such_item",
        ),
        (
            "stats",
            json!({"queue": "q", "worker": "w"}),
            "unknown_field",
        ),
        ("item", json!({"queue": "q", "itemId": 1}), "no_such_item"),
    ] {
        let (status, reply) = server
            .post(&format!("/v1/queues/{path}"), body.clone())
            .await;
        assert_eq!(reply["error"]["code"], code, "{path} {body}: {reply}");
        assert!((400..500).contains(&status), "{path} {body}: {status}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_claim_live_at_a_crash_is_held_for_its_full_duration_after_the_restart() {
    const CLAIM_MS: u64 = 3_000;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let client = reqwest::Client::new();
    let first = Process::start(&db);
    let items = json!({"queue": "q", "items": [{"payload": "held"}, {"payload": "done"}]});
    post(&client, &first.url, "/v1/queues/enqueue", items).await;
    let body = json!({"queue": "q", "worker": "a", "claimMs": CLAIM_MS});
    let (_, held) = post(&client, &first.url, "/v1/queues/claim", body.clone()).await;
    let (item, token) = claimed(&held);
    let (_, other) = post(&client, &first.url, "/v1/queues/claim", body).await;
    let (done, done_token) = claimed(&other);
    let completion = with(fenced("q", done, "a", done_token), "result", json!(1));
    let completion = with(completion, "claimSecret", other["claimSecret"].clone());
    let (status, _) = post(&client, &first.url, "/v1/queues/complete", completion).await;
    assert_eq!(status, 200);
    first.kill();

    let restarted = Instant::now();
    let second = Process::start(&db);
    let body = json!({"queue": "q", "worker": "b", "claimMs": CLAIM_MS});
    let reclaimed = loop {
        let (_, reply) = post(&client, &second.url, "/v1/queues/claim", body.clone()).await;
        if reply["claimed"] == true {
            break reply;
        }
        assert!(
            restarted.elapsed() < Duration::from_secs(20),
            "never reclaimed: {reply}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let waited = restarted.elapsed();
    assert!(
        waited >= Duration::from_millis(CLAIM_MS),
        "reclaimed {waited:?} after the restart, before the claim's full duration"
    );
    assert_eq!(claimed(&reclaimed), (item, token + 1));
    assert_eq!(reclaimed["item"]["attempts"], 2);
    // The completed item stays done, with its completing token, across the crash.
    let (_, record) = post(
        &client,
        &second.url,
        "/v1/queues/item",
        json!({"queue": "q", "itemId": done}),
    )
    .await;
    assert_eq!(
        (&record["state"], &record["completedToken"]),
        (&json!("done"), &json!(done_token))
    );
    second.kill();
}

on_both_backends!(
    concurrent_workers_never_claim_the_same_item_twice,
    claims_take_the_oldest_item_and_skip_other_queues,
    a_retried_claim_returns_the_same_item,
    heartbeats_extend_only_the_live_claim_with_its_token,
    a_stale_completion_is_rejected_and_the_item_records_its_completing_token,
    an_item_is_dead_lettered_after_its_last_attempt,
    a_dedupe_key_enqueues_once_per_queue,
    malformed_queue_requests_get_their_codes,
);
