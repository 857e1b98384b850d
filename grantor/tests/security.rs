//! Security of the reference grantor over real HTTP (and raw TCP): API keys and their
//! namespaces, admin-only revoke, lease and claim secrets binding grants to whoever received
//! them, rate limits, slow clients, oversize bodies, CORS, the refusal to serve an exposed
//! address without keys, and a check that no SQL is built from request input. Behaviours that
//! touch storage run on SQLite and on PostgreSQL.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{grant, Backend, Process, Server};
use reqwest::header::AUTHORIZATION;
use serde_json::{json, Value};
use tenure_grantor::auth::{parse_keys, sha256_hex, KeyRing};
use tenure_grantor::ConnectionLimits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const KEY_A: &str = "team-a-key-0123456789";
const KEY_AB: &str = "team-ab-key-0123456789";
const KEY_B: &str = "team-b-key-0123456789";
const KEY_OPS: &str = "ops-admin-key-0123456789";
const KEY_LIMITED: &str = "limited-key-0123456789";
/// Listed in the key ring only by its SHA-256.
const KEY_HASHED: &str = "hashed-key-0123456789";

/// The keys every test here runs with.
fn keys() -> KeyRing {
    let lines = format!(
        r#"# the test ring
{{"id": "team-a", "secret": "{KEY_A}", "namespaces": ["team-a/"]}}
{{"id": "team-ab", "secret": "{KEY_AB}", "namespaces": ["team-ab/"]}}
{{"id": "team-b", "secret": "{KEY_B}", "namespaces": ["team-b/"]}}
{{"id": "ops", "secret": "{KEY_OPS}", "namespaces": ["*"], "admin": true}}
{{"id": "limited", "secret": "{KEY_LIMITED}", "namespaces": ["limited/"], "ratePerSecond": 2, "burst": 3}}
{{"id": "hashed", "sha256": "{}", "namespaces": ["hashed/"]}}
"#,
        sha256_hex(KEY_HASHED)
    );
    KeyRing::new(parse_keys(&lines, "test keys").unwrap()).unwrap()
}

async fn start(backend: Backend) -> Server {
    Server::start_on(backend, |c| c.keys = keys()).await
}

/// The status, the headers and the parsed reply of one request.
type Reply = (u16, reqwest::header::HeaderMap, Value);

async fn send(request: reqwest::RequestBuilder) -> Reply {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, headers, body)
}

/// POSTs exactly `body` with `key` as the bearer key.
async fn post_as(server: &Server, key: &str, path: &str, body: Value) -> (u16, Value) {
    let (status, _, reply) = send(
        server
            .client
            .post(format!("{}{path}", server.url))
            .bearer_auth(key)
            .json(&body),
    )
    .await;
    (status, reply)
}

fn code(reply: &Value) -> &str {
    reply["error"]["code"].as_str().unwrap_or("")
}

fn token_of(reply: &Value) -> u64 {
    reply["token"]
        .as_u64()
        .unwrap_or_else(|| panic!("no token in {reply}"))
}

fn secret_of(reply: &Value) -> String {
    reply["leaseSecret"]
        .as_str()
        .unwrap_or_else(|| panic!("no leaseSecret in {reply}"))
        .to_owned()
}

#[tokio::test]
async fn every_v1_route_needs_a_known_key() {
    let server = start(Backend::Sqlite).await;
    let body = grant("team-a/x", "a", 5_000, "1");
    let url = |path: &str| format!("{}{path}", server.url);
    let attempts: Vec<(&str, reqwest::RequestBuilder)> = vec![
        ("none", server.client.post(url("/v1/grant")).json(&body)),
        (
            "unknown",
            server
                .client
                .post(url("/v1/grant"))
                .bearer_auth("no-such-key-0123456789")
                .json(&body),
        ),
        (
            "a prefix of a real key",
            server
                .client
                .post(url("/v1/grant"))
                .bearer_auth(&KEY_A[..KEY_A.len() - 1])
                .json(&body),
        ),
        (
            "another scheme",
            server
                .client
                .post(url("/v1/grant"))
                .header(AUTHORIZATION, format!("Basic {KEY_A}"))
                .json(&body),
        ),
        (
            "an empty bearer",
            server
                .client
                .post(url("/v1/grant"))
                .header(AUTHORIZATION, "Bearer ")
                .json(&body),
        ),
        (
            "two keys",
            server
                .client
                .post(url("/v1/grant"))
                .header(AUTHORIZATION, format!("Bearer {KEY_A}"))
                .header(AUTHORIZATION, format!("Bearer {KEY_OPS}"))
                .json(&body),
        ),
        // Refused before the body is read: no hint whether the body was valid.
        (
            "none, bad body",
            server.client.post(url("/v1/grant")).body("{"),
        ),
        (
            "none, renew",
            server.client.post(url("/v1/renew")).json(&json!({})),
        ),
        (
            "none, status",
            server.client.get(url("/v1/status?resource=team-a/x")),
        ),
        (
            "none, revoke",
            server
                .client
                .post(url("/v1/revoke"))
                .json(&json!({"resource": "team-a/x"})),
        ),
        (
            "none, claim",
            server.client.post(url("/v1/queues/claim")).json(&json!({})),
        ),
        (
            "none, unknown route",
            server.client.post(url("/v1/nope")).json(&json!({})),
        ),
    ];
    for (what, request) in attempts {
        let (status, headers, reply) = send(request).await;
        assert_eq!(
            (status, code(&reply)),
            (401, "unauthorized"),
            "{what}: {reply}"
        );
        assert_eq!(
            headers["www-authenticate"], "Bearer realm=\"tenure\"",
            "{what}"
        );
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            !message.contains(KEY_A) && !message.contains(KEY_OPS),
            "{what}: {message}"
        );
    }
    // Nothing was granted by any of them.
    let (_, status) = post_as(
        &server,
        KEY_OPS,
        "/v1/status",
        json!({"resource": "team-a/x"}),
    )
    .await;
    assert_eq!(status["holder"], Value::Null, "{status}");
    // Health and metrics stay open, for load balancers and scrapers.
    assert_eq!(server.get("/healthz").await.0, 200);
    let metrics = server.client.get(url("/metrics")).send().await.unwrap();
    assert_eq!(metrics.status(), 200);
    // A key listed only by its hash works; the scheme's case does not matter.
    let (status, _, reply) = send(
        server
            .client
            .post(url("/v1/grant"))
            .header(AUTHORIZATION, format!("bearer {KEY_HASHED}"))
            .json(&grant("hashed/x", "h", 5_000, "1")),
    )
    .await;
    assert_eq!((status, &reply["granted"]), (200, &json!(true)), "{reply}");
    server.stop().await;
}

async fn namespaces_confine_each_key(backend: Backend) {
    let server = start(backend).await;
    let grant_as = |key: &'static str, resource: &str| {
        let body = grant(resource, "h", 30_000, "1");
        let server = &server;
        async move { post_as(server, key, "/v1/grant", body).await }
    };
    let (status, held) = grant_as(KEY_A, "team-a/x").await;
    assert_eq!((status, &held["granted"]), (200, &json!(true)), "{held}");

    // Escapes from team-a/: another namespace, a longer prefix sharing the start, the bare
    // prefix, encodings that decode to another namespace elsewhere, and look-alikes.
    for resource in [
        "team-b/x",
        "team-ab/x",
        "team-a",
        "team-a%2Fx",
        "team-a\\x",
        "TEAM-A/x",
        "./team-a/x",
        "/team-a/x",
    ] {
        let (status, reply) = grant_as(KEY_A, resource).await;
        assert_eq!(
            (status, code(&reply)),
            (403, "forbidden_namespace"),
            "{resource}: {reply}"
        );
    }
    // The other way round: team-ab/ may not reach team-a/.
    let (status, reply) = grant_as(KEY_AB, "team-a/x").await;
    assert_eq!(
        (status, code(&reply)),
        (403, "forbidden_namespace"),
        "{reply}"
    );
    // A look-alike hyphen (U+2010) or a full-width slash is not printable ASCII: refused as a
    // name before any namespace is consulted, and never granted.
    for resource in ["team\u{2010}a/x", "team-a\u{ff0f}x"] {
        let (status, reply) = grant_as(KEY_A, resource).await;
        assert_eq!(
            (status, code(&reply)),
            (400, "bad_resource"),
            "{resource}: {reply}"
        );
    }
    // `..` is just bytes of a name: inside team-a/, and not team-b/x.
    let (status, dots) = grant_as(KEY_A, "team-a/../team-b/x").await;
    assert_eq!((status, &dots["granted"]), (200, &json!(true)), "{dots}");
    let (_, other) = post_as(
        &server,
        KEY_B,
        "/v1/status",
        json!({"resource": "team-b/x"}),
    )
    .await;
    assert_eq!(other["holder"], Value::Null, "{other}");

    // The query string is percent-decoded before the check, so encoding cannot smuggle a name.
    let status_get = |query: &'static str| {
        server
            .client
            .get(format!("{}/v1/status?resource={query}", server.url))
            .bearer_auth(KEY_A)
    };
    let (status, _, reply) = send(status_get("team-b%2Fx")).await;
    assert_eq!(
        (status, code(&reply)),
        (403, "forbidden_namespace"),
        "{reply}"
    );
    let (status, _, reply) = send(status_get("team-a%2Fx")).await;
    assert_eq!((status, &reply["holder"]), (200, &json!("h")), "{reply}");

    // Every lease, fenced and queue route checks its name.
    let outside: Vec<(&str, Value)> = vec![
        (
            "/v1/renew",
            json!({"resource": "team-b/x", "holder": "h", "token": 1, "durationMs": 1000, "requestId": "2"}),
        ),
        (
            "/v1/release",
            json!({"resource": "team-b/x", "holder": "h", "token": 1}),
        ),
        ("/v1/status", json!({"resource": "team-b/x"})),
        (
            "/v1/fenced/write",
            json!({"resource": "team-b/x", "payload": 1, "token": 1}),
        ),
        ("/v1/fenced/read", json!({"resource": "team-b/x"})),
        (
            "/v1/queues/enqueue",
            json!({"queue": "team-b/q", "items": [{"payload": 1}]}),
        ),
        (
            "/v1/queues/claim",
            json!({"queue": "team-b/q", "worker": "w", "claimMs": 1000}),
        ),
        (
            "/v1/queues/heartbeat",
            json!({"queue": "team-b/q", "itemId": 1, "worker": "w", "token": 1, "claimMs": 1000}),
        ),
        (
            "/v1/queues/complete",
            json!({"queue": "team-b/q", "itemId": 1, "worker": "w", "token": 1}),
        ),
        (
            "/v1/queues/fail",
            json!({"queue": "team-b/q", "itemId": 1, "worker": "w", "token": 1}),
        ),
        ("/v1/queues/stats", json!({"queue": "team-b/q"})),
        ("/v1/queues/item", json!({"queue": "team-b/q", "itemId": 1})),
    ];
    for (path, body) in outside {
        let (status, reply) = post_as(&server, KEY_A, path, body).await;
        assert_eq!(
            (status, code(&reply)),
            (403, "forbidden_namespace"),
            "{path}: {reply}"
        );
    }
    let (status, reply) = post_as(
        &server,
        KEY_A,
        "/v1/queues/enqueue",
        json!({"queue": "team-a/q", "items": [{"payload": 1}]}),
    )
    .await;
    assert_eq!(status, 200, "{reply}");

    // Revoke is for admin keys, even inside the key's own namespace.
    let (status, reply) = post_as(
        &server,
        KEY_A,
        "/v1/revoke",
        json!({"resource": "team-a/x"}),
    )
    .await;
    assert_eq!((status, code(&reply)), (403, "admin_only"), "{reply}");
    let (_, still) = post_as(
        &server,
        KEY_A,
        "/v1/status",
        json!({"resource": "team-a/x"}),
    )
    .await;
    assert_eq!(still["holder"], "h");
    let (status, reply) = post_as(
        &server,
        KEY_OPS,
        "/v1/revoke",
        json!({"resource": "team-a/x"}),
    )
    .await;
    assert_eq!((status, reply), (200, json!({"revoked": true})));
    server.stop().await;
}

async fn another_holder_cannot_act_on_a_grant_it_did_not_receive(backend: Backend) {
    let server = start(backend).await;
    let resource = "team-a/job";
    // B holds the lease; A shares B's key and namespace, and reads B's name and token.
    let (_, b_grant) = post_as(
        &server,
        KEY_A,
        "/v1/grant",
        grant(resource, "b", 30_000, "b1"),
    )
    .await;
    let (b_token, b_secret) = (token_of(&b_grant), secret_of(&b_grant));
    assert!(b_secret.len() >= 22, "at least 128 bits: {b_secret}");
    let (_, seen) = post_as(&server, KEY_A, "/v1/status", json!({"resource": resource})).await;
    assert_eq!(
        (&seen["holder"], seen["token"].as_u64()),
        (&json!("b"), Some(b_token))
    );
    assert!(
        seen.get("leaseSecret").is_none(),
        "status never shows the secret: {seen}"
    );
    // A's own grant of another resource: a real secret, of another grant.
    let (_, a_grant) = post_as(
        &server,
        KEY_A,
        "/v1/grant",
        grant("team-a/other", "a", 30_000, "a1"),
    )
    .await;
    let a_secret = secret_of(&a_grant);

    let wrong_secrets = [
        None,
        Some(a_secret.clone()),
        Some("A".repeat(43)),
        Some(format!("{b_secret}x")),
        Some(b_secret[..b_secret.len() - 1].to_owned()),
        Some(String::new()),
    ];
    for secret in &wrong_secrets {
        let with = |mut body: Value| {
            if let Some(secret) = secret {
                body["leaseSecret"] = json!(secret);
            }
            body
        };
        let renew = with(
            json!({"resource": resource, "holder": "b", "token": b_token, "durationMs": 30_000, "requestId": format!("x{secret:?}")}),
        );
        let (status, reply) = post_as(&server, KEY_A, "/v1/renew", renew).await;
        assert_eq!(
            (status, code(&reply)),
            (403, "bad_lease_secret"),
            "renew with {secret:?}: {reply}"
        );
        let release = with(json!({"resource": resource, "holder": "b", "token": b_token}));
        let (status, reply) = post_as(&server, KEY_A, "/v1/release", release).await;
        assert_eq!(
            (status, code(&reply)),
            (403, "bad_lease_secret"),
            "release with {secret:?}: {reply}"
        );
        let write = with(json!({"resource": resource, "payload": "forged", "token": b_token}));
        let (status, reply) = post_as(&server, KEY_A, "/v1/fenced/write", write).await;
        assert_eq!(
            (status, code(&reply)),
            (403, "bad_lease_secret"),
            "write with {secret:?}: {reply}"
        );
        // A re-grant under B's name is denied like anyone else's while B's grant lives.
        let regrant = with(grant(resource, "b", 30_000, &format!("r{secret:?}")));
        let (status, reply) = post_as(&server, KEY_A, "/v1/grant", regrant).await;
        assert_eq!(
            (status, &reply["granted"], &reply["holder"]),
            (200, &json!(false), &json!("b")),
            "{reply}"
        );
    }
    // None of it touched B's lease or the protected resource.
    let (_, after) = post_as(&server, KEY_A, "/v1/status", json!({"resource": resource})).await;
    assert_eq!(
        (&after["holder"], after["token"].as_u64()),
        (&json!("b"), Some(b_token)),
        "{after}"
    );
    let (_, read) = post_as(
        &server,
        KEY_A,
        "/v1/fenced/read",
        json!({"resource": resource}),
    )
    .await;
    assert_eq!(read, json!({"payload": null, "lastToken": null}));
    // Requests refused anyway get their ordinary answers, secret or not.
    let (_, refused) = post_as(
        &server,
        KEY_A,
        "/v1/renew",
        json!({"resource": resource, "holder": "a", "token": b_token, "durationMs": 1000, "requestId": "n1"}),
    )
    .await;
    assert_eq!(refused, json!({"renewed": false, "reason": "not_holder"}));
    let (_, refused) = post_as(
        &server,
        KEY_A,
        "/v1/renew",
        json!({"resource": resource, "holder": "b", "token": b_token + 1, "durationMs": 1000, "requestId": "n2"}),
    )
    .await;
    assert_eq!(refused, json!({"renewed": false, "reason": "unknown"}));

    // B, with its secret, renews, writes, re-grants and releases as usual.
    let renew = json!({"resource": resource, "holder": "b", "token": b_token, "durationMs": 30_000, "requestId": "b2", "leaseSecret": b_secret});
    let (_, renewed) = post_as(&server, KEY_A, "/v1/renew", renew).await;
    assert_eq!(renewed["renewed"], true, "{renewed}");
    let write =
        json!({"resource": resource, "payload": "by b", "token": b_token, "leaseSecret": b_secret});
    let (_, written) = post_as(&server, KEY_A, "/v1/fenced/write", write).await;
    assert_eq!(written, json!({"accepted": true, "lastToken": b_token}));
    let regrant = json!({"resource": resource, "holder": "b", "durationMs": 30_000, "requestId": "b3", "leaseSecret": b_secret});
    let (_, regranted) = post_as(&server, KEY_A, "/v1/grant", regrant).await;
    assert_eq!(token_of(&regranted), b_token + 1, "{regranted}");
    let new_secret = secret_of(&regranted);
    assert_ne!(new_secret, b_secret);
    // The old grant's secret does not act on the new grant.
    let stale =
        json!({"resource": resource, "holder": "b", "token": b_token + 1, "leaseSecret": b_secret});
    let (status, reply) = post_as(&server, KEY_A, "/v1/release", stale).await;
    assert_eq!((status, code(&reply)), (403, "bad_lease_secret"), "{reply}");
    // A write with the superseded token is fenced out by the newer write, not by the secret.
    let newer = json!({"resource": resource, "payload": "newer", "token": b_token + 1, "leaseSecret": new_secret});
    assert_eq!(
        post_as(&server, KEY_A, "/v1/fenced/write", newer).await.1["accepted"],
        true
    );
    let late = json!({"resource": resource, "payload": "late", "token": b_token});
    let (_, fenced) = post_as(&server, KEY_A, "/v1/fenced/write", late).await;
    assert_eq!(fenced, json!({"accepted": false, "lastToken": b_token + 1}));
    let release = json!({"resource": resource, "holder": "b", "token": b_token + 1, "leaseSecret": new_secret});
    let (_, released) = post_as(&server, KEY_A, "/v1/release", release).await;
    assert_eq!(released, json!({"released": true}));
    server.stop().await;
}

async fn a_replayed_grant_returns_the_same_secret(backend: Backend) {
    let server = start(backend).await;
    let body = grant("team-a/replayed", "a", 30_000, "same-id");
    let (_, first) = post_as(&server, KEY_A, "/v1/grant", body.clone()).await;
    let (_, again) = post_as(&server, KEY_A, "/v1/grant", body.clone()).await;
    assert_eq!(token_of(&again), token_of(&first));
    assert_eq!(secret_of(&again), secret_of(&first));
    // The same requestId from another holder name is another request: denied, no secret.
    let thief = grant("team-a/replayed", "z", 30_000, "same-id");
    let (_, denied) = post_as(&server, KEY_A, "/v1/grant", thief).await;
    assert_eq!(denied["granted"], false, "{denied}");
    assert!(denied.get("leaseSecret").is_none(), "{denied}");
    // The replayed secret renews, and replays of the renewal need it too.
    let renew = json!({"resource": "team-a/replayed", "holder": "a", "token": token_of(&first),
                       "durationMs": 30_000, "requestId": "renew-1", "leaseSecret": secret_of(&again)});
    let (_, renewed) = post_as(&server, KEY_A, "/v1/renew", renew.clone()).await;
    assert_eq!(renewed["renewed"], true, "{renewed}");
    let mut bare = renew.clone();
    bare.as_object_mut().unwrap().remove("leaseSecret");
    let (status, reply) = post_as(&server, KEY_A, "/v1/renew", bare).await;
    assert_eq!((status, code(&reply)), (403, "bad_lease_secret"), "{reply}");
    assert_eq!(
        post_as(&server, KEY_A, "/v1/renew", renew).await.1["renewed"],
        true
    );
    server.stop().await;
}

async fn a_claim_is_bound_to_its_secret(backend: Backend) {
    let server = start(backend).await;
    let queue = "team-a/jobs";
    post_as(
        &server,
        KEY_A,
        "/v1/queues/enqueue",
        json!({"queue": queue, "items": [{"payload": "x"}]}),
    )
    .await;
    let (_, claim) = post_as(
        &server,
        KEY_A,
        "/v1/queues/claim",
        json!({"queue": queue, "worker": "w1", "claimMs": 30_000}),
    )
    .await;
    let (item, token) = (claim["item"]["id"].as_u64().unwrap(), token_of(&claim));
    let secret = claim["claimSecret"]
        .as_str()
        .expect("a claim secret")
        .to_owned();
    // The lease secret of the same numbers is no claim secret.
    let (_, lease) = post_as(
        &server,
        KEY_A,
        "/v1/grant",
        grant("team-a/jobs", "w1", 30_000, "1"),
    )
    .await;
    for wrong in [None, Some("B".repeat(43)), Some(secret_of(&lease))] {
        for (path, extra) in [
            ("/v1/queues/heartbeat", json!({"claimMs": 30_000})),
            ("/v1/queues/complete", json!({"result": "forged"})),
            ("/v1/queues/fail", json!({"error": "forged"})),
        ] {
            let mut body = json!({"queue": queue, "itemId": item, "worker": "w1", "token": token});
            body.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            if let Some(wrong) = &wrong {
                body["claimSecret"] = json!(wrong);
            }
            let (status, reply) = post_as(&server, KEY_A, path, body).await;
            assert_eq!(
                (status, code(&reply)),
                (403, "bad_claim_secret"),
                "{path} {wrong:?}: {reply}"
            );
        }
    }
    let (_, record) = post_as(
        &server,
        KEY_A,
        "/v1/queues/item",
        json!({"queue": queue, "itemId": item}),
    )
    .await;
    assert_eq!(
        (&record["state"], &record["attempts"], &record["result"]),
        (&json!("claimed"), &json!(1), &Value::Null)
    );
    let complete = json!({"queue": queue, "itemId": item, "worker": "w1", "token": token, "result": "ok", "claimSecret": secret});
    let (status, done) = post_as(&server, KEY_A, "/v1/queues/complete", complete.clone()).await;
    assert_eq!(
        (status, done),
        (200, json!({"completed": true, "token": token}))
    );
    // Repeating the completion needs the secret as well; a stale claim is stale either way.
    let mut bare = complete;
    bare.as_object_mut().unwrap().remove("claimSecret");
    let (status, reply) = post_as(&server, KEY_A, "/v1/queues/complete", bare).await;
    assert_eq!((status, code(&reply)), (403, "bad_claim_secret"), "{reply}");
    let heartbeat =
        json!({"queue": queue, "itemId": item, "worker": "w1", "token": token, "claimMs": 1000});
    let (status, reply) = post_as(&server, KEY_A, "/v1/queues/heartbeat", heartbeat).await;
    assert_eq!((status, code(&reply)), (409, "stale_claim"), "{reply}");
    server.stop().await;
}

#[tokio::test]
async fn a_secret_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let client = reqwest::Client::new();
    let first = Process::start(&db);
    let (_, held) = common::post(
        &client,
        &first.url,
        "/v1/grant",
        grant("r", "a", 30_000, "1"),
    )
    .await;
    first.kill();
    let second = Process::start(&db);
    let renew = json!({"resource": "r", "holder": "a", "token": token_of(&held), "durationMs": 30_000,
                       "requestId": "2", "leaseSecret": secret_of(&held)});
    let (_, renewed) = common::post(&client, &second.url, "/v1/renew", renew).await;
    assert_eq!(renewed["renewed"], true, "{renewed}");
    // Another database has another key: the secret means nothing there.
    let elsewhere = Process::start(&dir.path().join("other.db"));
    let (_, other) = common::post(
        &client,
        &elsewhere.url,
        "/v1/grant",
        grant("r", "a", 30_000, "1"),
    )
    .await;
    assert_eq!(token_of(&other), token_of(&held));
    assert_ne!(secret_of(&other), secret_of(&held));
    second.kill();
    elsewhere.kill();
}

#[tokio::test]
async fn a_key_over_its_rate_waits_its_retry_after() {
    let server = start(Backend::Sqlite).await;
    let body = json!({"resource": "limited/x"});
    let status_as_limited = || {
        send(
            server
                .client
                .post(format!("{}/v1/status", server.url))
                .bearer_auth(KEY_LIMITED)
                .json(&body),
        )
    };
    // Burst 3, then 2 per second: requests in a quick row run out, however slow the machine,
    // long before 20 of them could have taken the 8.5 s that would refill enough.
    let mut served = 0;
    let (headers, reply) = loop {
        let (status, headers, reply) = status_as_limited().await;
        if status == 429 {
            break (headers, reply);
        }
        assert_eq!(status, 200, "{reply}");
        served += 1;
        assert!(served < 20, "never rate limited");
    };
    assert!(served >= 3, "the burst of 3 was not served: {served}");
    assert_eq!(code(&reply), "rate_limited", "{reply}");
    let retry_after: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert_eq!(retry_after, 1);
    // Other keys have their own buckets.
    let (code_a, _) = post_as(
        &server,
        KEY_A,
        "/v1/status",
        json!({"resource": "team-a/x"}),
    )
    .await;
    assert_eq!(code_a, 200);
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    let (status, _, reply) = status_as_limited().await;
    assert_eq!(status, 200, "after Retry-After: {reply}");
    server.stop().await;
}

/// Writes `bytes` one at a time, `every` apart, until the peer closes or `limit` passes; returns
/// how long the connection lasted and what the peer sent back.
async fn trickle(
    stream: TcpStream,
    bytes: &[u8],
    every: Duration,
    limit: Duration,
) -> (Duration, String) {
    let started = Instant::now();
    let (mut reader, mut writer) = stream.into_split();
    let reading = tokio::spawn(async move {
        let mut received = Vec::new();
        let _ = reader.read_to_end(&mut received).await;
        (
            started.elapsed(),
            String::from_utf8_lossy(&received).into_owned(),
        )
    });
    for byte in bytes.iter().cycle() {
        if reading.is_finished() || started.elapsed() > limit {
            break;
        }
        if writer.write_all(&[*byte]).await.is_err() {
            break;
        }
        tokio::time::sleep(every).await;
    }
    tokio::time::timeout(limit, reading)
        .await
        .expect("the grantor kept the connection open")
        .unwrap()
}

#[tokio::test]
async fn slow_clients_are_cut_off() {
    let server = Server::start(|c| {
        c.header_timeout = Duration::from_millis(500);
        c.body_timeout = Duration::from_millis(500);
    })
    .await;
    let address = server.url.trim_start_matches("http://").to_owned();
    let connect = || TcpStream::connect(address.clone());

    // Headers trickled a byte every 100 ms never finish; the connection is closed.
    let head = b"POST /v1/grant HTTP/1.1\r\nHost: grantor\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let (lasted, _) = trickle(
        connect().await.unwrap(),
        head,
        Duration::from_millis(100),
        Duration::from_secs(10),
    )
    .await;
    assert!(
        lasted >= Duration::from_millis(400) && lasted < Duration::from_secs(5),
        "headers: {lasted:?}"
    );

    // An idle connection is closed too.
    let mut idle = connect().await.unwrap();
    let started = Instant::now();
    let mut sink = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), idle.read_to_end(&mut sink))
        .await
        .expect("an idle connection stayed open");
    assert!(started.elapsed() < Duration::from_secs(5));

    // Complete headers, then a body trickled a byte every 100 ms: 408, and the connection closes.
    let body = grant("slow", "s", 5_000, "1").to_string();
    let mut stream = connect().await.unwrap();
    let head = format!(
        "POST /v1/grant HTTP/1.1\r\nHost: grantor\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (lasted, reply) = trickle(
        stream,
        body.as_bytes(),
        Duration::from_millis(100),
        Duration::from_secs(10),
    )
    .await;
    assert!(lasted < Duration::from_secs(5), "body: {lasted:?}");
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("request_timeout"), "{reply}");
    assert!(
        reply.to_ascii_lowercase().contains("connection: close"),
        "{reply}"
    );

    // Nothing was granted, and the grantor still serves everyone else.
    let (status, free) = server.get("/v1/status?resource=slow").await;
    assert_eq!((status, &free["holder"]), (200, &Value::Null));
    server.stop().await;
}

/// One keep-alive request on `stream`; returns the reply's status line.
async fn status_post(stream: &mut TcpStream, path: &str, body: &str) -> String {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: grantor\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = Vec::new();
    let mut chunk = [0u8; 4096];
    // The grantor's replies are small and carry Content-Length: read until the whole body came.
    loop {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut chunk))
            .await
            .expect("a reply")
            .unwrap();
        assert!(n > 0, "the grantor closed the connection");
        reply.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&reply).to_ascii_lowercase();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .and_then(|l| l.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if reply.len() >= end + 4 + length {
                return text.lines().next().unwrap_or("").to_owned();
            }
        }
    }
}

/// Whether the grantor closed `stream` within `within` (reading and discarding what it sent).
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut sink = Vec::new();
    tokio::time::timeout(within, stream.read_to_end(&mut sink))
        .await
        .is_ok()
}

#[tokio::test]
async fn a_flood_of_connections_displaces_only_itself() {
    let server = Server::start(|c| {
        c.connections = ConnectionLimits {
            max_total: 4,
            max_per_address: 4,
            ..ConnectionLimits::default()
        };
    })
    .await;
    let address = server.url.trim_start_matches("http://").to_owned();
    let status = grant("flood", "h", 5_000, "1").to_string();
    // A holder's connection proves itself with a request.
    let mut holder = TcpStream::connect(&address).await.unwrap();
    assert!(status_post(&mut holder, "/v1/grant", &status)
        .await
        .contains("200"));
    // Connections that never send a request fill the other places.
    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(TcpStream::connect(&address).await.unwrap());
    }
    // While they are new (under a second old), a newcomer is refused rather than one of them
    // closed: a client that just connected gets its chance to send a request.
    let mut refused = TcpStream::connect(&address).await.unwrap();
    assert!(
        closed_within(&mut refused, Duration::from_secs(5)).await,
        "a fifth connection was kept"
    );
    // Once they are older, each newcomer closes the oldest of them.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let mut newcomers = Vec::new();
    for _ in 0..3 {
        newcomers.push(TcpStream::connect(&address).await.unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for stream in &mut idle {
        assert!(
            closed_within(stream, Duration::from_secs(5)).await,
            "an old idle connection stayed open"
        );
    }
    // The holder's connection was kept, and still serves it.
    let status = json!({"resource": "flood"}).to_string();
    assert!(status_post(&mut holder, "/v1/status", &status)
        .await
        .contains("200"));
    // A newcomer that got in is served, and proves itself.
    assert!(status_post(&mut newcomers[0], "/v1/status", &status)
        .await
        .contains("200"));
    server.stop().await;
}

#[tokio::test]
async fn when_every_connection_is_proven_a_new_one_is_refused() {
    let server = Server::start(|c| {
        c.connections = ConnectionLimits {
            max_total: 2,
            ..ConnectionLimits::default()
        };
    })
    .await;
    let address = server.url.trim_start_matches("http://").to_owned();
    let status = json!({"resource": "full"}).to_string();
    let mut first = TcpStream::connect(&address).await.unwrap();
    let mut second = TcpStream::connect(&address).await.unwrap();
    assert!(status_post(&mut first, "/v1/status", &status)
        .await
        .contains("200"));
    assert!(status_post(&mut second, "/v1/status", &status)
        .await
        .contains("200"));
    let mut third = TcpStream::connect(&address).await.unwrap();
    assert!(
        closed_within(&mut third, Duration::from_secs(5)).await,
        "a third connection was served"
    );
    assert!(status_post(&mut first, "/v1/status", &status)
        .await
        .contains("200"));
    drop(second);
    // The place the closed connection held is free again (the grantor notices the close).
    let mut admitted = false;
    for _ in 0..50 {
        let mut next = TcpStream::connect(&address).await.unwrap();
        next.write_all(format!("POST /v1/status HTTP/1.1\r\nHost: g\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{status}", status.len()).as_bytes()).await.unwrap();
        let mut reply = [0u8; 12];
        if let Ok(Ok(12)) =
            tokio::time::timeout(Duration::from_secs(1), next.read_exact(&mut reply)).await
        {
            admitted = reply.starts_with(b"HTTP/1.1 200");
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(admitted, "no connection was admitted after one closed");
    server.stop().await;
}

#[tokio::test]
async fn a_reader_that_does_not_read_is_cut_off() {
    let server = Server::start(|c| {
        c.connections = ConnectionLimits {
            write_stall: Duration::from_millis(300),
            ..ConnectionLimits::default()
        };
    })
    .await;
    let address = server.url.trim_start_matches("http://").to_owned();
    let stream = TcpStream::connect(&address).await.unwrap();
    // Pipelined requests whose replies are never read: once the socket buffers are full, the
    // grantor's writes stall, and it closes the connection.
    let body = json!({"resource": "slow-read"}).to_string();
    let request = format!(
        "POST /v1/status HTTP/1.1\r\nHost: grantor\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (_reader, mut writer) = stream.into_split();
    let started = Instant::now();
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(30) {
        // A write blocks once the grantor stops reading; it must fail (closed) rather than hang.
        let pipelined = request.repeat(64);
        let written = tokio::time::timeout(
            Duration::from_secs(30),
            writer.write_all(pipelined.as_bytes()),
        )
        .await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(_)) => {
                closed = true;
                break;
            }
            Err(_) => break,
        }
    }
    assert!(
        closed,
        "the grantor kept writing to a peer that does not read"
    );
    // Everyone else is served as usual.
    let (status, _) = server.get("/v1/status?resource=slow-read").await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test]
async fn oversize_bodies_are_refused_on_every_route() {
    let server = start(Backend::Sqlite).await;
    let padding = "x".repeat(70 * 1024);
    for path in [
        "/v1/grant",
        "/v1/renew",
        "/v1/release",
        "/v1/status",
        "/v1/revoke",
        "/v1/fenced/write",
        "/v1/fenced/read",
        "/v1/queues/enqueue",
        "/v1/queues/claim",
        "/v1/queues/heartbeat",
        "/v1/queues/complete",
        "/v1/queues/fail",
        "/v1/queues/stats",
        "/v1/queues/item",
    ] {
        let body = json!({"resource": "team-a/x", "queue": "team-a/q", "padding": padding});
        let (status, reply) = post_as(&server, KEY_OPS, path, body).await;
        assert_eq!(
            (status, code(&reply)),
            (413, "body_too_large"),
            "{path}: {reply}"
        );
    }
    // Without a Content-Length (chunked), the limit holds while reading: 66 chunks of 1 KiB,
    // and no last chunk, so only the limit can end the request.
    let mut request = format!(
        "POST /v1/grant HTTP/1.1\r\nHost: grantor\r\nAuthorization: Bearer {KEY_OPS}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    for _ in 0..66 {
        request.extend_from_slice(format!("400\r\n{}\r\n", "x".repeat(1024)).as_bytes());
    }
    let mut stream = TcpStream::connect(server.url.trim_start_matches("http://"))
        .await
        .unwrap();
    stream.write_all(&request).await.unwrap();
    let mut reply = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut reply))
        .await
        .expect("no reply to an endless chunked body");
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(reply.contains("body_too_large"), "{reply}");
    server.stop().await;
}

#[tokio::test]
async fn cors_is_an_exact_allowlist() {
    let server = Server::start_on(Backend::Sqlite, |c| {
        c.keys = keys();
        c.cors_origins = vec!["https://app.example.com".into()];
    })
    .await;
    let preflight = |origin: &'static str| {
        send(
            server
                .client
                .request(reqwest::Method::OPTIONS, format!("{}/v1/grant", server.url))
                .header("origin", origin)
                .header("access-control-request-method", "POST")
                .header(
                    "access-control-request-headers",
                    "authorization, content-type",
                ),
        )
    };
    let (status, headers, _) = preflight("https://app.example.com").await;
    assert!((200..300).contains(&status), "{status}");
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://app.example.com"
    );
    let allowed = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(allowed.contains("authorization"), "{allowed}");
    // Bearer keys need no cookies, so credentialed CORS is never offered.
    assert!(headers.get("access-control-allow-credentials").is_none());
    for origin in [
        "https://app.example.com.evil.example",
        "https://evil-app.example.com",
        "http://app.example.com",
        "https://app.example.com:8443",
        "null",
    ] {
        let (_, headers, _) = preflight(origin).await;
        assert!(
            headers.get("access-control-allow-origin").is_none(),
            "{origin}"
        );
        // And the request itself is refused, even with a valid key.
        let (status, _, reply) = send(
            server
                .client
                .post(format!("{}/v1/grant", server.url))
                .header("origin", origin)
                .bearer_auth(KEY_A)
                .json(&grant("team-a/cors", "p", 5_000, "1")),
        )
        .await;
        assert_eq!(
            (status, code(&reply)),
            (403, "origin_not_allowed"),
            "{origin}: {reply}"
        );
    }
    // The allowed origin without a key: 401, readable by the page.
    let (status, headers, reply) = send(
        server
            .client
            .post(format!("{}/v1/grant", server.url))
            .header("origin", "https://app.example.com")
            .json(&grant("team-a/cors", "p", 5_000, "1")),
    )
    .await;
    assert_eq!((status, code(&reply)), (401, "unauthorized"));
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://app.example.com"
    );
    server.stop().await;
}

/// Runs `tenure-grantor` with `args` and `env`; returns whether it exited successfully and its
/// standard error, or kills it once it prints its address and returns `(true, that line)`.
fn run_grantor(args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tenure-grantor"));
    command
        .args(args)
        .env("RUST_LOG", "warn")
        .env_remove("TENURE_ADMIN_KEY")
        .env_remove("TENURE_GRANTOR_ADMIN_KEY")
        .env_remove("TENURE_GRANTOR_KEYS")
        .env_remove("TENURE_POSTGRES_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    if line.starts_with("listening on ") {
        child.kill().unwrap();
        child.wait().unwrap();
        return (true, line);
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.success() && line.is_empty(), stderr)
}

#[test]
fn an_exposed_grantor_without_keys_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let db = db.to_str().unwrap();
    for listen in ["0.0.0.0:0", "[::]:0"] {
        let (ok, stderr) = run_grantor(&["serve", "--db", db, "--listen", listen], &[]);
        assert!(!ok, "{listen}");
        assert!(
            stderr.contains("refusing to serve") && stderr.contains("--keys-file"),
            "{stderr}"
        );
    }
    // Loopback without keys stays open, as before; an exposed address needs keys or the flag.
    let (ok, line) = run_grantor(&["serve", "--db", db, "--listen", "127.0.0.1:0"], &[]);
    assert!(
        ok && line.starts_with("listening on http://127.0.0.1:"),
        "{line}"
    );
    let (ok, line) = run_grantor(
        &[
            "serve",
            "--db",
            db,
            "--listen",
            "0.0.0.0:0",
            "--insecure-no-auth",
        ],
        &[],
    );
    assert!(
        ok && line.starts_with("listening on http://0.0.0.0:"),
        "{line}"
    );
    let keys = format!(
        r#"{{"id":"k","sha256":"{}","namespaces":["*"]}}"#,
        sha256_hex(KEY_A)
    );
    let (ok, line) = run_grantor(
        &["serve", "--db", db, "--listen", "0.0.0.0:0"],
        &[("TENURE_GRANTOR_KEYS", &keys)],
    );
    assert!(ok, "{line}");
    let (ok, stderr) = run_grantor(
        &["serve", "--db", db, "--insecure-no-auth"],
        &[("TENURE_GRANTOR_KEYS", &keys)],
    );
    assert!(!ok && stderr.contains("contradicts"), "{stderr}");
}

#[test]
fn bad_security_settings_are_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let db = db.to_str().unwrap();
    let keys_file = dir.path().join("keys.jsonl");
    std::fs::write(
        &keys_file,
        format!("{{\"id\":\"a\",\"secret\":\"{KEY_A}\",\"namespaces\":[\"a/\"]}}\n{{\"id\":\"b\",\"secret\":\"{KEY_B}\",\"namespaces\":[\"b\"]}}\n"),
    )
    .unwrap();
    let keys_file = keys_file.to_str().unwrap();
    let serve = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["serve", "--db", db, "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        run_grantor(&args, env)
    };
    let (ok, stderr) = serve(&["--keys-file", keys_file], &[]);
    assert!(
        !ok && stderr.contains("line 2") && stderr.contains("must end with '/'"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(KEY_A) && !stderr.contains(KEY_B),
        "a key reached the log: {stderr}"
    );
    let (ok, stderr) = serve(&["--keys-file", "/nonexistent/keys"], &[]);
    assert!(
        !ok && stderr.contains("cannot read the keys file"),
        "{stderr}"
    );
    let (ok, stderr) = serve(&["--admin-key", "short"], &[]);
    assert!(!ok && stderr.contains("at least 16"), "{stderr}");
    let (ok, stderr) = serve(
        &[],
        &[
            ("TENURE_GRANTOR_ADMIN_KEY", KEY_OPS),
            ("TENURE_ADMIN_KEY", KEY_A),
        ],
    );
    assert!(!ok && stderr.contains("given twice"), "{stderr}");
    for origin in [
        "https://app.example.com/",
        "app.example.com",
        "https://APP.example.com",
        "https://a.example/path",
    ] {
        let (ok, stderr) = serve(&["--cors-origin", origin], &[]);
        assert!(!ok && stderr.contains("CORS origin"), "{origin}: {stderr}");
    }
}

#[tokio::test]
async fn the_admin_key_flag_and_its_old_variable_are_admin_keys() {
    let dir = tempfile::tempdir().unwrap();
    let client = reqwest::Client::new();
    for (i, variable) in ["TENURE_GRANTOR_ADMIN_KEY", "TENURE_ADMIN_KEY"]
        .into_iter()
        .enumerate()
    {
        let mut command = common::grantor(&dir.path().join(format!("{i}.db")));
        command.env(variable, KEY_OPS);
        let process = Process::spawn(command);
        let (status, _) = common::post(
            &client,
            &process.url,
            "/v1/grant",
            grant("r", "a", 5_000, "1"),
        )
        .await;
        assert_eq!(
            status, 401,
            "{variable}: a configured admin key makes keys required"
        );
        let as_admin = |path: &str, body: Value| {
            client
                .post(format!("{}{path}", process.url))
                .bearer_auth(KEY_OPS)
                .json(&body)
                .send()
        };
        let granted = as_admin("/v1/grant", grant("r", "a", 5_000, "1"))
            .await
            .unwrap();
        assert_eq!(granted.status(), 200);
        let revoked: Value = as_admin("/v1/revoke", json!({"resource": "r"}))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(revoked, json!({"revoked": true}), "{variable}");
        process.kill();
    }
}

#[tokio::test]
async fn keygen_prints_a_key_and_a_line_that_accepts_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_tenure-grantor"))
        .args([
            "keygen",
            "--id",
            "gen",
            "--namespace",
            "gen/",
            "--rate-per-second",
            "50",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines();
    let (key, line) = (lines.next().unwrap(), lines.next().unwrap());
    assert!(
        !line.contains(key),
        "the key file line holds only the hash: {line}"
    );
    let dir = tempfile::tempdir().unwrap();
    let keys_file = dir.path().join("keys.jsonl");
    std::fs::write(&keys_file, format!("{line}\n")).unwrap();
    let mut command = common::grantor(&dir.path().join("leases.db"));
    command.arg("--keys-file").arg(&keys_file);
    let process = Process::spawn(command);
    let client = reqwest::Client::new();
    let reply: Value = client
        .post(format!("{}/v1/grant", process.url))
        .bearer_auth(key)
        .json(&grant("gen/x", "a", 5_000, "1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(reply["granted"], true, "{reply}");
    process.kill();
}

/// Every `format!` whose text is SQL, in `source`, that interpolates anything but the listed
/// constants: SQL must take request values only as bound parameters.
fn sql_built_from_values(source: &str) -> Vec<String> {
    // Column lists and a fixed statement, all `const &str` written in the source itself.
    const CONSTANTS: [&str; 3] = ["ITEM_COLUMNS", "CLAIM", "LeaseRow::COLUMNS"];
    const SQL: [&str; 5] = ["SELECT ", "INSERT ", "UPDATE ", "DELETE ", " WHERE "];
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("format!(") {
        rest = &rest[at + "format!(".len()..];
        // The macro's arguments, up to the matching parenthesis (string contents included).
        let mut depth = 1;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map_or(rest.len(), |(i, _)| i);
        let call = &rest[..end];
        if !SQL.iter().any(|keyword| call.contains(keyword)) {
            continue;
        }
        let literal_end = call.rfind('"').unwrap_or(call.len());
        let (literal, args) = call.split_at(literal_end);
        let mut interpolated: Vec<String> = Vec::new();
        let mut text = literal;
        while let Some(open) = text.find('{') {
            let close = text[open..].find('}').map_or(text.len(), |c| open + c);
            let name = text[open + 1..close].split(':').next().unwrap_or("").trim();
            if name.is_empty() {
                // Positional: the arguments after the literal.
                interpolated.extend(
                    args.split(',')
                        .map(|a| a.trim().trim_start_matches('"').trim().to_owned())
                        .filter(|a| !a.is_empty()),
                );
            } else {
                interpolated.push(name.to_owned());
            }
            text = &text[(close + 1).min(text.len())..];
        }
        for name in interpolated {
            if !CONSTANTS.contains(&name.as_str()) {
                found.push(format!(
                    "{name} in format!({})",
                    call.chars().take(80).collect::<String>()
                ));
            }
        }
    }
    found
}

#[test]
fn no_sql_is_built_from_request_values() {
    // The check itself catches the mistake it exists for.
    let bad =
        r#"tx.execute(&format!("UPDATE leases SET holder = '{holder}' WHERE resource = ?1"), [])"#;
    assert_eq!(sql_built_from_values(bad).len(), 1);
    let positional = r#"let sql = format!("SELECT * FROM t WHERE id = {}", id);"#;
    assert_eq!(sql_built_from_values(positional).len(), 1);
    let fine = r#"format!("SELECT {ITEM_COLUMNS} FROM work_items WHERE id = ?1")"#;
    assert!(sql_built_from_values(fine).is_empty());

    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.clone()];
    let mut checked = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let source = std::fs::read_to_string(&path).unwrap();
            let found = sql_built_from_values(&source);
            assert!(
                found.is_empty(),
                "{}: SQL built from values: {found:#?}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} files checked");
}

on_both_backends!(
    namespaces_confine_each_key,
    another_holder_cannot_act_on_a_grant_it_did_not_receive,
    a_replayed_grant_returns_the_same_secret,
    a_claim_is_bound_to_its_secret,
);
