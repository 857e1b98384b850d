//! `POST /v1/renew/batch` over real HTTP, on SQLite and on PostgreSQL: each element means what
//! the same body sent alone to `/v1/renew` means (outcomes, errors, secrets, namespaces,
//! idempotency), results keep the request's order, the limits hold, a storage failure applies
//! nothing, and on PostgreSQL batches lock their rows in one order so that they never deadlock.

mod common;

use std::path::Path;
use std::time::Duration;

use common::postgres as pg;
use common::{grant, renew, Backend, Server};
use reqwest::header::AUTHORIZATION;
use serde_json::{json, Value};
use tenure::protocol::{
    max_batch_reply_bytes, RenewBatchReply, RenewBatchRequest, RenewBatchResult, RenewRefusal,
    RenewReply, RenewRequest, Token, MAX_BATCH_RESULT_BYTES, MAX_TOKEN,
};
use tenure_grantor::auth::{parse_keys, KeyRing};
use tenure_grantor::Storage;

const BATCH: &str = "/v1/renew/batch";

/// Grants `resource` to `holder` for `ms`; returns its token and secret.
async fn granted(server: &Server, resource: &str, holder: &str, ms: u64) -> (u64, String) {
    let (status, reply) = server
        .post_exact("/v1/grant", grant(resource, holder, ms, "grant"))
        .await;
    assert_eq!(status, 200, "{reply}");
    let token = reply["token"]
        .as_u64()
        .unwrap_or_else(|| panic!("no grant of {resource}: {reply}"));
    (token, reply["leaseSecret"].as_str().unwrap().to_owned())
}

/// A renew body carrying `secret`.
fn renewal(resource: &str, holder: &str, token: u64, ms: u64, id: &str, secret: &str) -> Value {
    let mut body = renew(resource, holder, token, ms, id);
    body["leaseSecret"] = json!(secret);
    body
}

/// POSTs `body`, JSON text sent as it is; returns the status and the parsed reply.
async fn post_text(server: &Server, path: &str, body: String) -> (u16, Value) {
    let response = server
        .client
        .post(format!("{}{path}", server.url))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// POSTs a batch of `renewals`, each JSON text as it is; returns the status and the reply.
async fn batch_text(server: &Server, renewals: &[String]) -> (u16, Value) {
    let body = format!(r#"{{"renewals":[{}]}}"#, renewals.join(","));
    post_text(server, BATCH, body).await
}

/// POSTs a batch of `renewals`; returns the status and the reply.
async fn batch(server: &Server, renewals: Vec<Value>) -> (u16, Value) {
    let texts: Vec<String> = renewals.iter().map(Value::to_string).collect();
    batch_text(server, &texts).await
}

/// The results of a batch that must succeed as a whole.
async fn results(server: &Server, renewals: Vec<Value>) -> Vec<Value> {
    let texts: Vec<String> = renewals.iter().map(Value::to_string).collect();
    results_text(server, &texts).await
}

/// The results of a batch of JSON texts that must succeed as a whole.
async fn results_text(server: &Server, renewals: &[String]) -> Vec<Value> {
    let (status, reply) = batch_text(server, renewals).await;
    assert_eq!(status, 200, "{reply}");
    let results = reply["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), renewals.len(), "{reply}");
    results
}

/// A renewal's result as `/v1/renew` shows it: the reply for a 200, else the error body.
async fn single(server: &Server, body: Value) -> Value {
    post_text(server, "/v1/renew", body.to_string()).await.1
}

/// Leases in every state a renewal can meet, under `prefix`, and the renew bodies (JSON texts,
/// some deliberately malformed) that meet them. The same calls under two prefixes give two
/// identical worlds, one renewed one by one and one in a batch.
async fn every_case(server: &Server, prefix: &str) -> Vec<String> {
    let name = |what: &str| format!("{prefix}{what}");
    let (live, live_secret) = granted(server, &name("live"), "a", 30_000).await;
    let (expired, expired_secret) = granted(server, &name("expired"), "a", 60).await;
    let (revoked, revoked_secret) = granted(server, &name("revoked"), "a", 30_000).await;
    let (status, reply) = server
        .post_exact("/v1/revoke", json!({"resource": name("revoked")}))
        .await;
    assert_eq!((status, &reply["revoked"]), (200, &json!(true)), "{reply}");
    let (released, released_secret) = granted(server, &name("released"), "a", 30_000).await;
    let release = json!({"resource": name("released"), "holder": "a", "token": released, "leaseSecret": released_secret});
    let (_, reply) = server.post_exact("/v1/release", release).await;
    assert_eq!(reply["released"], true, "{reply}");
    // Released by "a", then granted to "b": "a"'s token is older than the current one.
    let (older, older_secret) = granted(server, &name("superseded"), "a", 30_000).await;
    let release = json!({"resource": name("superseded"), "holder": "a", "token": older, "leaseSecret": older_secret});
    server.post_exact("/v1/release", release).await;
    granted(server, &name("superseded"), "b", 30_000).await;
    let (guarded, _) = granted(server, &name("guarded"), "a", 30_000).await;
    // Outlive the 60 ms grant.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut extra = renewal(&name("live"), "a", live, 20_000, "5", &live_secret);
    extra["extra"] = json!(true);
    let values = [
        renewal(&name("live"), "a", live, 20_000, "1", &live_secret),
        renewal(&name("expired"), "a", expired, 20_000, "1", &expired_secret),
        renewal(&name("revoked"), "a", revoked, 20_000, "1", &revoked_secret),
        renewal(
            &name("released"),
            "a",
            released,
            20_000,
            "1",
            &released_secret,
        ),
        renewal(&name("superseded"), "a", older, 20_000, "1", &older_secret),
        // Another holder, a token never handed out, a resource never granted.
        renewal(&name("live"), "b", live, 20_000, "2", &live_secret),
        renewal(&name("live"), "a", live + 7, 20_000, "3", &live_secret),
        renewal(&name("never"), "a", 1, 20_000, "1", "c2VjcmV0"),
        // The secret of another grant, and none at all: the live grant stays untouched.
        renewal(&name("guarded"), "a", guarded, 20_000, "1", &live_secret),
        renew(&name("guarded"), "a", guarded, 20_000, "2"),
        // Malformed elements, each refused as the same body alone would be.
        json!({"resource": name("live"), "holder": "a", "token": live, "durationMs": 20_000}),
        renewal(&name("live"), "a", live, 0, "4", &live_secret),
        extra,
        renewal("", "a", live, 20_000, "6", &live_secret),
        renewal(&name("live"), "a\nb", live, 20_000, "7", &live_secret),
        json!({"resource": name("live"), "holder": "a", "token": -1, "durationMs": 20_000, "requestId": "8"}),
        json!({"resource": name("live"), "holder": "a", "token": "1", "durationMs": 20_000, "requestId": "9"}),
        json!("not an object"),
        json!([1, 2]),
    ];
    let mut texts: Vec<String> = values.iter().map(Value::to_string).collect();
    // A duplicated field survives only as text.
    texts.push(format!(
        r#"{{"resource":"{}","resource":"x","holder":"a","token":{live},"durationMs":20000,"requestId":"10"}}"#,
        name("live")
    ));
    texts
}

/// Every element of a batch is answered exactly as the same body alone: the same reply, or the
/// same error body, in the same order; and only the renewals that succeed change anything.
async fn elements_mean_what_single_renewals_mean(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let one_by_one = every_case(&server, "alone/").await;
    let batched = every_case(&server, "batch/").await;
    let mut expected = Vec::new();
    for body in one_by_one {
        expected.push(post_text(&server, "/v1/renew", body).await.1);
    }
    let got = results_text(&server, &batched).await;
    for (i, (got, expected)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(got, expected, "element {i}");
    }
    // Spot checks of what the comparison covers.
    let outcome = |i: usize| {
        got[i]["reason"]
            .as_str()
            .or(got[i]["error"]["code"].as_str())
            .unwrap_or("renewed")
            .to_owned()
    };
    let outcomes: Vec<String> = (0..got.len()).map(outcome).collect();
    assert_eq!(
        outcomes,
        [
            "renewed",
            "expired",
            "revoked",
            "unknown",
            "not_holder",
            "not_holder",
            "unknown",
            "unknown",
            "bad_lease_secret",
            "bad_lease_secret",
            "missing_field",
            "bad_duration",
            "unknown_field",
            "bad_resource",
            "bad_holder",
            "bad_token",
            "bad_token",
            "wrong_type",
            "wrong_type",
            "bad_json",
        ],
        "{got:#?}"
    );
    assert_eq!(
        got[0],
        json!({"renewed": true, "token": 1, "durationMs": 20_000})
    );
    // The renewal took effect; the guarded grant (no valid secret) kept its 30 s.
    let (_, live) = server.get("/v1/status?resource=batch/live").await;
    let left = live["expiresInMs"].as_u64().unwrap();
    assert!(left <= 20_000, "renewed to 20 s, not kept at 30 s: {live}");
    let (_, guarded) = server.get("/v1/status?resource=batch/guarded").await;
    assert!(
        guarded["expiresInMs"].as_u64().unwrap() > 20_000,
        "{guarded}"
    );
    server.stop().await;
}

/// A batch sent again is answered from the idempotency records element by element, under the
/// replay rules: a renewal whose grant ended since is refused, and an id reused for a different
/// request is that element's error. Batches and single renewals share the records.
async fn a_retried_batch_replays_each_element(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let mut bodies = Vec::new();
    let mut secrets = Vec::new();
    for name in ["r0", "r1", "r2"] {
        let (token, secret) = granted(&server, name, "a", 30_000).await;
        bodies.push(renewal(name, "a", token, 20_000, "retry", &secret));
        secrets.push((token, secret));
    }
    let first = results(&server, bodies.clone()).await;
    assert!(first.iter().all(|r| r["renewed"] == true), "{first:?}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let again = results(&server, bodies.clone()).await;
    for reply in &again {
        assert_eq!(reply["renewed"], true, "{reply}");
        assert_eq!(reply["token"], 1, "{reply}");
        // Replayed: what the grant has left, never the full duration again.
        let ms = reply["durationMs"].as_u64().unwrap();
        assert!((1..20_000).contains(&ms), "{reply}");
    }
    // r1's grant ends; its replayed renewal is now refused, the others still stand.
    let (token, secret) = &secrets[1];
    let release = json!({"resource": "r1", "holder": "a", "token": token, "leaseSecret": secret});
    assert_eq!(
        server.post_exact("/v1/release", release).await.1["released"],
        true
    );
    let mut changed = bodies.clone();
    changed[2]["durationMs"] = json!(9_000);
    let third = results(&server, changed).await;
    assert_eq!(third[0]["renewed"], true, "{third:?}");
    assert_eq!(third[1], json!({"renewed": false, "reason": "expired"}));
    assert_eq!(third[2]["error"]["code"], "request_id_reused", "{third:?}");
    // The single route finds the batch's record, and the reverse.
    let alone = single(&server, bodies[0].clone()).await;
    assert_eq!(alone["renewed"], true, "{alone}");
    assert!(alone["durationMs"].as_u64().unwrap() < 20_000, "{alone}");
    let mut fresh = bodies[0].clone();
    fresh["requestId"] = json!("alone");
    assert_eq!(single(&server, fresh.clone()).await["durationMs"], 20_000);
    let replayed = results(&server, vec![fresh]).await;
    assert!(
        replayed[0]["durationMs"].as_u64().unwrap() < 20_000,
        "{replayed:?}"
    );
    server.stop().await;
}

/// Elements about the same lease see the ones before them, as if sent one after the other.
async fn one_batch_may_name_a_lease_twice(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (token, secret) = granted(&server, "twice", "a", 30_000).await;
    let got = results(
        &server,
        vec![
            renewal("twice", "a", token, 10_000, "1", &secret),
            // A retry of element 0 within the same batch, then the same id for another request.
            renewal("twice", "a", token, 10_000, "1", &secret),
            renewal("twice", "a", token, 15_000, "1", &secret),
            renewal("twice", "a", token, 12_000, "2", &secret),
            renewal("twice", "b", token, 10_000, "3", &secret),
        ],
    )
    .await;
    assert_eq!(
        got[0],
        json!({"renewed": true, "token": token, "durationMs": 10_000})
    );
    assert_eq!(got[1]["renewed"], true, "{got:?}");
    assert!(got[1]["durationMs"].as_u64().unwrap() <= 10_000, "{got:?}");
    assert_eq!(got[2]["error"]["code"], "request_id_reused", "{got:?}");
    assert_eq!(
        got[3],
        json!({"renewed": true, "token": token, "durationMs": 12_000})
    );
    assert_eq!(got[4], json!({"renewed": false, "reason": "not_holder"}));
    // The later renewal is the one in force: 12 s from the batch.
    let (_, status) = server.get("/v1/status?resource=twice").await;
    let left = status["expiresInMs"].as_u64().unwrap();
    assert!((10_000..=12_000).contains(&left), "{status}");
    server.stop().await;
}

/// The protocol's Rust types are the wire format: a request built from `RenewBatchRequest`, a
/// reply read as `RenewBatchReply`.
async fn the_wire_types_describe_the_route(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (token, secret) = granted(&server, "typed", "a", 30_000).await;
    let element = |holder: &str, lease_secret: Option<String>| RenewRequest {
        resource: "typed".into(),
        holder: holder.into(),
        token: Token::new(token).unwrap(),
        duration_ms: 20_000,
        request_id: "typed".into(),
        lease_secret,
    };
    let request = RenewBatchRequest {
        renewals: vec![
            element("a", Some(secret)),
            element("b", None),
            element("a", None),
        ],
    };
    let (status, reply) = server
        .post_exact(BATCH, serde_json::to_value(&request).unwrap())
        .await;
    assert_eq!(status, 200, "{reply}");
    let reply: RenewBatchReply = serde_json::from_value(reply).unwrap();
    let token = Token::new(token).unwrap();
    assert_eq!(
        reply.results[0],
        RenewBatchResult::Reply(RenewReply::renewed(token, 20_000))
    );
    assert_eq!(
        reply.results[1],
        RenewBatchResult::Reply(RenewReply::refused(RenewRefusal::NotHolder))
    );
    // A retry of element 0 without the secret: a replayed renewal needs it too.
    match &reply.results[2] {
        RenewBatchResult::Error(error) => assert_eq!(error.error.code, "bad_lease_secret"),
        other => panic!("{other:?}"),
    }
    server.stop().await;
}

/// Results come back in the request's order, valid and invalid elements mixed.
async fn results_keep_the_order_of_the_request(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let mut leases = Vec::new();
    for i in 0..40 {
        leases.push(granted(&server, &format!("order/{i:02}"), "a", 30_000).await);
    }
    // Backwards through the names, each asking its own duration; every fifth one malformed and
    // every seventh one for a resource never granted.
    let mut bodies = Vec::new();
    for i in (0..40).rev() {
        let (token, secret) = &leases[i];
        let name = format!("order/{i:02}");
        let id = format!("{i}");
        bodies.push(match i {
            _ if i % 5 == 0 => {
                json!({"resource": name, "holder": "a", "token": token, "durationMs": 1_000 + i})
            }
            _ if i % 7 == 0 => renewal(&format!("gone/{i}"), "a", 1, 1_000, &id, secret),
            _ => renewal(&name, "a", *token, 1_000 + i as u64, &id, secret),
        });
    }
    let got = results(&server, bodies).await;
    for (position, i) in (0..40u64).rev().enumerate() {
        let reply = &got[position];
        match i {
            _ if i % 5 == 0 => assert_eq!(reply["error"]["code"], "missing_field", "{i}: {reply}"),
            _ if i % 7 == 0 => assert_eq!(reply["reason"], "unknown", "{i}: {reply}"),
            _ => assert_eq!(reply["durationMs"], 1_000 + i, "{i}: {reply}"),
        }
    }
    server.stop().await;
}

/// At most 10,000 renewals and 8 MiB: a larger batch is refused whole with a clear code, while
/// a batch far above the 64 KiB of every other route is served.
async fn limits(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let element = |i: usize| renew(&format!("limit/{i}"), "a", 1, 1_000, "1");
    let (status, reply) = batch(&server, (0..10_001).map(element).collect()).await;
    assert_eq!(
        (status, reply["error"]["code"].clone()),
        (400, json!("bad_batch")),
        "{reply}"
    );
    let (status, reply) = batch(&server, Vec::new()).await;
    assert_eq!(
        (status, reply["error"]["code"].clone()),
        (400, json!("bad_batch")),
        "{reply}"
    );
    // 10,000 renewals of leases never granted: about 700 KB, every one answered.
    let got = results(&server, (0..10_000).map(element).collect()).await;
    assert!(got
        .iter()
        .all(|r| *r == json!({"renewed": false, "reason": "unknown"})));
    let huge = format!(
        r#"{{"renewals":[{{"resource":"{}","holder":"a","token":1,"durationMs":1000,"requestId":"1"}}]}}"#,
        "x".repeat(9 << 20)
    );
    // Its own connection: the grantor closes it without reading the rest of the body.
    let response = reqwest::Client::new()
        .post(format!("{}{BATCH}", server.url))
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 413);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["error"]["code"], "body_too_large", "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("8388608"),
        "{reply}"
    );
    for (body, code) in [
        (json!({"renewals": [], "extra": 1}), "unknown_field"),
        (json!({"renewals": {"resource": "r"}}), "wrong_type"),
        (json!({}), "missing_field"),
    ] {
        let (status, reply) = server.post_exact(BATCH, body.clone()).await;
        assert_eq!(
            (status, reply["error"]["code"].clone()),
            (400, json!(code)),
            "{body}: {reply}"
        );
    }
    server.stop().await;
}

/// Every result of a batch reply fits the protocol's room for one, so the whole reply is never
/// longer than a client reads: a renew reply at its longest, and errors whose messages quote an
/// element's field of any length, any characters, which the grantor shortens (keeping the code).
async fn a_batch_reply_fits_what_a_client_reads(backend: Backend) {
    let longest = [
        RenewBatchResult::Reply(RenewReply {
            renewed: true,
            token: Some(Token::new(MAX_TOKEN).unwrap()),
            duration_ms: Some(u64::MAX),
            reason: None,
        }),
        RenewBatchResult::Reply(RenewReply::refused(RenewRefusal::NotHolder)),
    ];
    for result in longest {
        let text = serde_json::to_string(&result).unwrap();
        assert!(text.len() < MAX_BATCH_RESULT_BYTES, "{text}");
    }
    let server = Server::start_on(backend, |_| {}).await;
    let element = |field: String| {
        let mut body = renew("fits", "a", 1, 1_000, "1");
        body[field] = json!(1);
        body
    };
    let renewals: Vec<Value> = [
        "x".repeat(5_000),
        "\"\\\u{1}\n".repeat(1_000),
        "é€𝄞".repeat(1_000),
        "short".to_owned(),
    ]
    .into_iter()
    .map(element)
    .chain([renew("fits", "a", 1, 1_000, "2")])
    .collect();
    let body = json!({ "renewals": renewals }).to_string();
    let response = server
        .client
        .post(format!("{}{BATCH}", server.url))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let text = response.text().await.unwrap();
    assert!(
        text.len() <= max_batch_reply_bytes(renewals.len()),
        "{} bytes",
        text.len()
    );
    let reply: RenewBatchReply = serde_json::from_str(&text).unwrap();
    assert_eq!(reply.results.len(), renewals.len());
    for (i, result) in reply.results.iter().enumerate() {
        let text = serde_json::to_string(result).unwrap();
        assert!(
            text.len() < MAX_BATCH_RESULT_BYTES,
            "{i}: {} bytes",
            text.len()
        );
        match result {
            RenewBatchResult::Error(error) if i < 4 => {
                assert_eq!(error.error.code, "unknown_field", "{i}");
                assert_eq!(error.error.message.ends_with("..."), i < 3, "{i}: {text}");
            }
            RenewBatchResult::Reply(reply) if i == 4 => {
                assert_eq!(reply.reason, Some(RenewRefusal::Unknown), "{text}")
            }
            _ => panic!("{i}: {text}"),
        }
    }
    server.stop().await;
}

/// The hook that makes storage fail: recording a lease duration of 1,234 ms, which only the
/// batch's second renewal asks for.
async fn fail_on_boom(backend: Backend, server: Server, db: &Path) -> Server {
    match backend {
        Backend::Sqlite => {
            // The grantor holds SQLite's exclusive lock: install the hook while it is stopped.
            server.stop().await;
            let conn = rusqlite::Connection::open(db).unwrap();
            conn.execute_batch(
                "CREATE TRIGGER fail_on_boom BEFORE UPDATE OF duration_ms ON leases
                 WHEN NEW.duration_ms = 1234
                 BEGIN SELECT RAISE(ABORT, 'storage failure for the test'); END;",
            )
            .unwrap();
            drop(conn);
            let path = db.to_owned();
            Server::start_on(backend, move |c| c.storage = Storage::Sqlite(path)).await
        }
        Backend::Postgres => {
            let sql = pg::connect(server.postgres_url.as_deref().unwrap()).await;
            sql.batch_execute(
                "CREATE FUNCTION fail_on_boom() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN
                     IF NEW.duration_ms = 1234 THEN
                         RAISE EXCEPTION 'storage failure for the test';
                     END IF;
                     RETURN NEW;
                 END $$;
                 CREATE TRIGGER fail_on_boom BEFORE UPDATE ON lease_registry
                 FOR EACH ROW EXECUTE FUNCTION fail_on_boom();",
            )
            .await
            .unwrap();
            server
        }
    }
}

/// A storage failure in the middle of a batch fails the request with `503` and applies nothing:
/// not the renewal decided before it, not its idempotency record.
async fn a_storage_failure_applies_nothing(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let path = db.clone();
    let server = Server::start_on(backend, move |c| {
        if backend == Backend::Sqlite {
            c.storage = Storage::Sqlite(path);
        }
    })
    .await;
    let (token, secret) = granted(&server, "kept", "a", 30_000).await;
    let (boomed, boomed_secret) = granted(&server, "boomed", "a", 30_000).await;
    let server = fail_on_boom(backend, server, &db).await;
    let (status, reply) = batch(
        &server,
        vec![
            renewal("kept", "a", token, 50_000, "first", &secret),
            renewal("boomed", "a", boomed, 1_234, "boom", &boomed_secret),
        ],
    )
    .await;
    assert_eq!(status, 503, "{reply}");
    assert_eq!(reply["error"]["code"], "storage_unavailable", "{reply}");
    let (_, status) = server.get("/v1/status?resource=kept").await;
    let left = status["expiresInMs"].as_u64().unwrap();
    assert!(
        left <= 30_000,
        "the failed batch renewed the lease: {status}"
    );
    // No record of the first element: the same id with another duration is a new request.
    let again = single(
        &server,
        renewal("kept", "a", token, 40_000, "first", &secret),
    )
    .await;
    assert_eq!(
        again,
        json!({"renewed": true, "token": token, "durationMs": 40_000})
    );
    server.stop().await;
}

const KEY_A: &str = "team-a-key-0123456789";

/// With API keys, each element is confined to the key's namespaces and needs its own grant's
/// secret; the rate limit counts a batch as one request.
async fn keys_apply_to_each_element(backend: Backend) {
    let lines = format!(
        r#"{{"id": "team-a", "secret": "{KEY_A}", "namespaces": ["team-a/"], "ratePerSecond": 0.01, "burst": 4}}"#
    );
    let keys = KeyRing::new(parse_keys(&lines, "test keys").unwrap()).unwrap();
    let server = Server::start_on(backend, move |c| c.keys = keys).await;
    let post = |body: Value| {
        server
            .client
            .post(format!("{}{BATCH}", server.url))
            .header(AUTHORIZATION, format!("Bearer {KEY_A}"))
            .json(&body)
            .send()
    };
    let reply = server
        .client
        .post(format!("{}/v1/grant", server.url))
        .header(AUTHORIZATION, format!("Bearer {KEY_A}"))
        .json(&grant("team-a/x", "a", 30_000, "1"))
        .send()
        .await
        .unwrap();
    let reply: Value = reply.json().await.unwrap();
    let (token, secret) = (
        reply["token"].as_u64().unwrap(),
        reply["leaseSecret"].as_str().unwrap().to_owned(),
    );
    let mut renewals = vec![
        renewal("team-a/x", "a", token, 20_000, "r1", &secret),
        renewal("team-b/x", "a", token, 20_000, "r1", &secret),
        renewal("team-a/x", "a", token, 20_000, "r2", "bm90IHRoZSBzZWNyZXQ"),
    ];
    // 100 more elements cost the key's bucket nothing more.
    renewals.extend((0..100).map(|i| renew(&format!("team-a/none/{i}"), "a", 1, 1_000, "1")));
    let response = post(json!({ "renewals": renewals })).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["results"][0]["renewed"], true, "{reply}");
    assert_eq!(reply["results"][1]["error"]["code"], "forbidden_namespace");
    assert_eq!(reply["results"][2]["error"]["code"], "bad_lease_secret");
    assert_eq!(reply["results"][3]["reason"], "unknown");
    // The grant and the batch took two of the four requests of the burst; two more pass, then
    // the key waits (one request per 100 s).
    let one = json!({"renewals": [renewal("team-a/x", "a", token, 20_000, "r3", &secret)]});
    for _ in 0..2 {
        let response = post(one.clone()).await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
    }
    let response = post(one).await.unwrap();
    assert_eq!(response.status().as_u16(), 429);
    assert!(response.headers().contains_key("retry-after"));
    server.stop().await;
}

fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {series} in\n{text}"))
        .parse()
        .unwrap()
}

/// `/metrics` counts batches, the renewals that came in them, and each renewal's outcome.
async fn metrics_count_batches_and_their_renewals(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (token, secret) = granted(&server, "m", "a", 30_000).await;
    results(
        &server,
        vec![
            renewal("m", "a", token, 20_000, "1", &secret),
            renewal("m", "a", token, 20_000, "2", &secret),
            renew("unknown", "a", 1, 1_000, "1"),
            json!({"resource": "m"}),
        ],
    )
    .await;
    let text = server
        .client
        .get(format!("{}/metrics", server.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(metric(&text, "tenure_grantor_renew_batches_total"), 1.0);
    assert_eq!(
        metric(&text, "tenure_grantor_renew_batch_elements_total"),
        4.0
    );
    assert_eq!(metric(&text, "tenure_grantor_renewals_total"), 2.0);
    assert_eq!(
        metric(
            &text,
            "tenure_grantor_renewal_refusals_total{reason=\"unknown\"}"
        ),
        1.0
    );
    assert_eq!(
        metric(
            &text,
            "tenure_grantor_http_requests_total{route=\"/v1/renew/batch\",status=\"2xx\"}"
        ),
        1.0
    );
    server.stop().await;
}

on_both_backends!(
    elements_mean_what_single_renewals_mean,
    a_retried_batch_replays_each_element,
    one_batch_may_name_a_lease_twice,
    the_wire_types_describe_the_route,
    results_keep_the_order_of_the_request,
    limits,
    a_batch_reply_fits_what_a_client_reads,
    a_storage_failure_applies_nothing,
    keys_apply_to_each_element,
    metrics_count_batches_and_their_renewals,
);

/// Grants `count` resources `lock/000…` on `server`; returns the renew bodies for them.
async fn locked_leases(server: &Server, count: usize) -> Vec<Value> {
    let mut bodies = Vec::new();
    for i in 0..count {
        let name = format!("lock/{i:03}");
        let (token, secret) = granted(server, &name, "a", 60_000).await;
        bodies.push(renewal(&name, "a", token, 60_000, "", &secret));
    }
    bodies
}

/// With each id fresh, so every element renews.
fn fresh(bodies: &[Value], round: &str) -> Vec<Value> {
    bodies
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b["requestId"] = json!(round);
            b
        })
        .collect()
}

/// A batch locks its rows in the order of the resource names, whatever its own order: while
/// another transaction holds the middle row, a batch listing the rows backwards has locked the
/// first name and not yet the last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_batches_lock_rows_in_name_order() {
    let server = Server::start_on(Backend::Postgres, |_| {}).await;
    let url = server.postgres_url.clone().unwrap();
    let bodies = locked_leases(&server, 3).await;
    let mut blocker = pg::connect(&url).await;
    let hold = blocker.transaction().await.unwrap();
    hold.execute(
        "SELECT 1 FROM lease_registry WHERE resource = 'lock/001' FOR UPDATE",
        &[],
    )
    .await
    .unwrap();
    let backwards: Vec<Value> = fresh(&bodies, "1").into_iter().rev().collect();
    let waiting = tokio::spawn({
        let (client, url) = (server.client.clone(), server.url.clone());
        async move { common::post(&client, &url, BATCH, json!({ "renewals": backwards })).await }
    });
    let probe = pg::connect(&url).await;
    common::wait_until(
        Duration::from_secs(4),
        "the batch waiting for the lock",
        || async {
            let row = probe
                .query_one("SELECT count(*) FROM pg_locks WHERE NOT granted", &[])
                .await
                .unwrap();
            row.get::<_, i64>(0) > 0
        },
    )
    .await;
    let try_lock = |name: &'static str| {
        let probe = &probe;
        async move {
            probe
                .execute(
                    "SELECT 1 FROM lease_registry WHERE resource = $1 FOR UPDATE NOWAIT",
                    &[&name],
                )
                .await
        }
    };
    let first = try_lock("lock/000").await;
    let last = try_lock("lock/002").await;
    hold.commit().await.unwrap();
    let (status, reply) = waiting.await.unwrap();
    assert!(first.is_err(), "the batch had not locked the first name");
    assert!(
        last.is_ok(),
        "the batch had locked the last name before the middle one"
    );
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["renewed"] == true),
        "{reply}"
    );
    server.stop().await;
}

/// Two grantors on one database serve batches over the same 200 leases, half listing them
/// forwards and half backwards, all at once: every batch succeeds and renews every lease.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_concurrent_batches_over_shared_leases_all_succeed() {
    let first = Server::start_on(Backend::Postgres, |_| {}).await;
    let url = first.postgres_url.clone().unwrap();
    let second = Server::start_on(Backend::Postgres, move |c| {
        c.storage = Storage::Postgres(Box::new(url.parse().unwrap()));
    })
    .await;
    let bodies = locked_leases(&first, 200).await;
    let mut tasks = Vec::new();
    for task in 0..8 {
        let server = if task % 2 == 0 { &first } else { &second };
        let (client, url) = (server.client.clone(), server.url.clone());
        let bodies = bodies.clone();
        tasks.push(tokio::spawn(async move {
            for round in 0..4 {
                let mut renewals = fresh(&bodies, &format!("{task}-{round}"));
                if (task + round) % 2 == 1 {
                    renewals.reverse();
                }
                let (status, reply) =
                    common::post(&client, &url, BATCH, json!({ "renewals": renewals })).await;
                assert_eq!(status, 200, "{reply}");
                let results = reply["results"].as_array().unwrap();
                assert!(results.iter().all(|r| r["renewed"] == true), "{reply}");
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    second.stop().await;
    first.stop().await;
}
