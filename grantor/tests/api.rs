//! The `/v1` protocol over real HTTP against an in-process grantor, on a real SQLite file and on
//! a real PostgreSQL database.

mod common;

use std::time::Duration;

use common::{grant, renew, Backend, Server};
use serde_json::{json, Value};

fn token_of(reply: &Value) -> u64 {
    reply["token"]
        .as_u64()
        .unwrap_or_else(|| panic!("no token in {reply}"))
}

/// Sends a raw request and returns the status, the content type and the parsed body.
async fn raw(
    server: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Vec<u8>>,
) -> (u16, String, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = server
        .client
        .request(method, format!("{}{path}", server.url));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, content_type, body)
}

/// Method, path, headers, body, expected status and expected code.
type Case<'a> = (
    &'a str,
    &'a str,
    Vec<(&'a str, &'a str)>,
    Option<String>,
    u16,
    &'a str,
);

async fn every_bad_request_gets_its_code(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    const JSON: (&str, &str) = ("content-type", "application/json");
    let valid = r#"{"resource":"r","holder":"h","durationMs":1000,"requestId":"1"}"#;
    let long_resource = format!(
        r#"{{"resource":"{}","holder":"h","durationMs":1000,"requestId":"1"}}"#,
        "r".repeat(257)
    );
    let oversize = format!(
        r#"{{"resource":"r","holder":"h","durationMs":1000,"requestId":"{}"}}"#,
        "x".repeat(70 * 1024)
    );
    let cases: Vec<Case> = vec![
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"h","durationMs":1000,"requestId":"1","extra":true}"#.into()), 400, "unknown_field"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":["r"],"holder":"h","durationMs":1000,"requestId":"1"}"#.into()), 400, "wrong_type"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"["not","an","object"]"#.into()), 400, "wrong_type"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"h","durationMs":1000}"#.into()), 400, "missing_field"),
        ("POST", "/v1/grant", vec![JSON], Some(oversize), 413, "body_too_large"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"","holder":"h","durationMs":1000,"requestId":"1"}"#.into()), 400, "bad_resource"),
        ("POST", "/v1/grant", vec![JSON], Some(long_resource), 400, "bad_resource"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"line\nbreak","holder":"h","durationMs":1000,"requestId":"1"}"#.into()), 400, "bad_resource"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"","durationMs":1000,"requestId":"1"}"#.into()), 400, "bad_holder"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"h","durationMs":1000,"requestId":""}"#.into()), 400, "bad_request_id"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"h","durationMs":0,"requestId":"1"}"#.into()), 400, "bad_duration"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"h","durationMs":-5,"requestId":"1"}"#.into()), 400, "bad_duration"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"h","durationMs":12.5,"requestId":"1"}"#.into()), 400, "bad_duration"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"h","durationMs":"1000","requestId":"1"}"#.into()), 400, "bad_duration"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder":"h","durationMs":2147483648,"requestId":"1"}"#.into()), 400, "bad_duration"),
        ("POST", "/v1/renew", vec![JSON], Some(r#"{"resource":"r","holder":"h","token":9007199254740992,"durationMs":1000,"requestId":"1"}"#.into()), 400, "bad_token"),
        ("POST", "/v1/release", vec![JSON], Some(r#"{"resource":"r","holder":"h","token":-1}"#.into()), 400, "bad_token"),
        ("POST", "/v1/grant", vec![JSON], Some(r#"{"resource":"r","holder""#.into()), 400, "bad_json"),
        ("POST", "/v1/grant", vec![JSON], Some(String::new()), 400, "bad_json"),
        ("POST", "/v1/grant", vec![("content-type", "text/plain")], Some(valid.into()), 415, "unsupported_media_type"),
        ("POST", "/v1/grant", vec![("content-type", "application/x-www-form-urlencoded")], Some(valid.into()), 415, "unsupported_media_type"),
        ("POST", "/v1/nope", vec![JSON], Some("{}".into()), 404, "not_found"),
        ("GET", "/nope", vec![], None, 404, "not_found"),
        ("GET", "/v1/grant", vec![], None, 405, "method_not_allowed"),
        ("DELETE", "/v1/status", vec![], None, 405, "method_not_allowed"),
        ("GET", "/v1/status", vec![], None, 400, "missing_field"),
        ("GET", "/v1/status?resource=r&holder=h", vec![], None, 400, "unknown_field"),
        ("GET", "/v1/status?resource=", vec![], None, 400, "bad_resource"),
        ("POST", "/v1/grant", vec![JSON, ("origin", "https://elsewhere.example")], Some(valid.into()), 403, "origin_not_allowed"),
        ("POST", "/v1/renew/batch", vec![JSON], Some(r#"{"renewals":[]}"#.into()), 400, "bad_batch"),
        ("POST", "/v1/fenced/write", vec![JSON], Some(r#"{"resource":"r","token":1}"#.into()), 400, "missing_field"),
        ("POST", "/v1/fenced/read", vec![JSON], Some(r#"{"resource":"r","token":1}"#.into()), 400, "unknown_field"),
    ];
    for (method, path, headers, body, status, code) in cases {
        let what = format!(
            "{method} {path} {:?}",
            body.as_deref().map(|b| &b[..b.len().min(120)])
        );
        let (got_status, content_type, reply) = raw(
            &server,
            method,
            path,
            &headers,
            body.map(String::into_bytes),
        )
        .await;
        assert_eq!(got_status, status, "{what}: {reply}");
        assert_eq!(content_type, "application/json", "{what}");
        assert_eq!(reply["error"]["code"], code, "{what}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{what}"
        );
    }
    // A missing content type is accepted, for simple clients.
    let (status, _, reply) = raw(&server, "POST", "/v1/grant", &[], Some(valid.into())).await;
    assert_eq!((status, reply["granted"].clone()), (200, json!(true)));
    server.stop().await;
}

async fn a_retried_grant_or_renew_returns_the_original_outcome(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (status, first) = server.post("/v1/grant", grant("r", "a", 5_000, "g1")).await;
    assert_eq!(status, 200);
    assert_eq!(first["granted"], true);
    tokio::time::sleep(Duration::from_millis(30)).await;
    let (_, retried) = server.post("/v1/grant", grant("r", "a", 5_000, "g1")).await;
    assert_eq!(retried["granted"], true);
    assert_eq!(
        token_of(&retried),
        token_of(&first),
        "a retry must not re-grant with token+1"
    );
    // The retry's holder measures from the retry's send: it is promised only what is left.
    let left = retried["durationMs"].as_u64().unwrap();
    assert!((1..=4_970).contains(&left), "replayed durationMs {left}");

    // A fresh request id is a new grant to the same holder: the design increments the token.
    let (_, again) = server.post("/v1/grant", grant("r", "a", 5_000, "g2")).await;
    assert_eq!(token_of(&again), token_of(&first) + 1);
    let token = token_of(&again);
    // The first grant is superseded now: its retry is told so, never granted.
    let (_, superseded) = server.post("/v1/grant", grant("r", "a", 5_000, "g1")).await;
    assert_eq!(superseded["granted"], false, "{superseded}");
    assert_eq!(superseded["holder"], "a");

    // A denial is replayed too, even though the lease is still held.
    let (_, denied) = server.post("/v1/grant", grant("r", "b", 5_000, "b1")).await;
    assert_eq!(denied["granted"], false);
    assert_eq!(denied["holder"], "a");
    let (_, denied_again) = server.post("/v1/grant", grant("r", "b", 5_000, "b1")).await;
    assert_eq!(denied_again["granted"], false);

    let (_, renewed) = server
        .post("/v1/renew", renew("r", "a", token, 4_000, "n1"))
        .await;
    assert_eq!(
        renewed,
        json!({"renewed": true, "token": token, "durationMs": 4_000})
    );
    server
        .post(
            "/v1/release",
            json!({"resource": "r", "holder": "a", "token": token}),
        )
        .await;
    let (_, renew_retried) = server
        .post("/v1/renew", renew("r", "a", token, 4_000, "n1"))
        .await;
    assert_eq!(
        renew_retried,
        json!({"renewed": false, "reason": "expired"}),
        "a retried renew of a grant released since is not a renewal"
    );

    // The same id with a different request is refused rather than silently replayed.
    let (status, reused) = server.post("/v1/grant", grant("r", "a", 6_000, "g1")).await;
    assert_eq!(status, 409);
    assert_eq!(reused["error"]["code"], "request_id_reused");
    let (status, reused) = server
        .post("/v1/renew", renew("r", "a", token, 4_000, "g1"))
        .await;
    assert_eq!(status, 409);
    assert_eq!(reused["error"]["code"], "request_id_reused");
    server.stop().await;
}

async fn renew_keeps_the_token_and_resets_to_the_full_duration(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, granted) = server.post("/v1/grant", grant("r", "a", 5_000, "1")).await;
    let token = token_of(&granted);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, renewed) = server
        .post("/v1/renew", renew("r", "a", token, 20_000, "2"))
        .await;
    assert_eq!(
        renewed,
        json!({"renewed": true, "token": token, "durationMs": 20_000})
    );
    let (_, status) = server.get("/v1/status?resource=r").await;
    assert_eq!(status["holder"], "a");
    assert_eq!(status["token"], token);
    let left = status["expiresInMs"].as_u64().unwrap();
    // Reset from now, not added to what was left (which would exceed 24 000).
    assert!((10_000..=20_000).contains(&left), "{left}");

    // A shorter renewal shortens the lease: it is "the full duration from now", nothing more.
    let (_, renewed) = server
        .post("/v1/renew", renew("r", "a", token, 5_000, "3"))
        .await;
    assert_eq!(renewed["renewed"], true);
    let (_, status) = server.get("/v1/status?resource=r").await;
    assert!(status["expiresInMs"].as_u64().unwrap() <= 5_000);
    server.stop().await;
}

async fn durations_are_clamped_to_the_configured_range(backend: Backend) {
    let server = Server::start_on(backend, |c| {
        c.durations = tenure_grantor::DurationLimits::new(1_000, 30_000).unwrap();
    })
    .await;
    let (_, short) = server.post("/v1/grant", grant("short", "a", 10, "1")).await;
    assert_eq!(short["durationMs"], 1_000);
    let (_, long) = server
        .post("/v1/grant", grant("long", "a", 2_000_000, "1"))
        .await;
    assert_eq!(long["durationMs"], 30_000);
    let (_, renewed) = server
        .post("/v1/renew", renew("long", "a", token_of(&long), 1, "2"))
        .await;
    assert_eq!(renewed["durationMs"], 1_000);
    server.stop().await;
}

async fn renew_refusals_name_their_reason(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, unknown) = server
        .post("/v1/renew", renew("nothing", "a", 1, 1_000, "1"))
        .await;
    assert_eq!(unknown, json!({"renewed": false, "reason": "unknown"}));

    let (_, granted) = server.post("/v1/grant", grant("r", "a", 200, "1")).await;
    let token = token_of(&granted);
    let (_, other) = server
        .post("/v1/renew", renew("r", "b", token, 1_000, "1"))
        .await;
    assert_eq!(other["reason"], "not_holder");
    let (_, future) = server
        .post("/v1/renew", renew("r", "a", token + 5, 1_000, "2"))
        .await;
    assert_eq!(future["reason"], "unknown");

    tokio::time::sleep(Duration::from_millis(400)).await;
    let (_, expired) = server
        .post("/v1/renew", renew("r", "a", token, 1_000, "3"))
        .await;
    assert_eq!(expired, json!({"renewed": false, "reason": "expired"}));

    // Once somebody else has a newer grant, the old token is simply not the holder's any more.
    let (_, newer) = server.post("/v1/grant", grant("r", "b", 5_000, "2")).await;
    assert!(token_of(&newer) > token);
    let (_, superseded) = server
        .post("/v1/renew", renew("r", "a", token, 1_000, "4"))
        .await;
    assert_eq!(superseded["reason"], "not_holder");
    server.stop().await;
}

async fn release_is_idempotent_and_keeps_the_counter(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, granted) = server.post("/v1/grant", grant("r", "a", 10_000, "1")).await;
    let token = token_of(&granted);
    let release = json!({"resource": "r", "holder": "a", "token": token});
    let wrong_holder = json!({"resource": "r", "holder": "b", "token": token});
    assert_eq!(
        server.post("/v1/release", wrong_holder).await,
        (200, json!({"released": false}))
    );
    assert_eq!(
        server.post("/v1/release", release.clone()).await,
        (200, json!({"released": true}))
    );
    assert_eq!(
        server.post("/v1/release", release).await,
        (200, json!({"released": false}))
    );
    let never = json!({"resource": "never", "holder": "a", "token": 1});
    assert_eq!(
        server.post("/v1/release", never).await,
        (200, json!({"released": false}))
    );

    let (_, status) = server.get("/v1/status?resource=r").await;
    assert_eq!(
        status,
        json!({"resource": "r", "holder": null, "token": null, "expiresInMs": null})
    );
    let (_, renewed) = server
        .post("/v1/renew", renew("r", "a", token, 1_000, "2"))
        .await;
    assert_eq!(renewed["renewed"], false);
    let (_, next) = server.post("/v1/grant", grant("r", "b", 10_000, "1")).await;
    assert_eq!(
        token_of(&next),
        token + 1,
        "release must not reset the counter"
    );
    server.stop().await;
}

async fn status_by_query_or_body_reports_the_live_grant(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, free) = server
        .get("/v1/status?resource=jobs%2Fnightly%20report")
        .await;
    assert_eq!(
        free,
        json!({"resource": "jobs/nightly report", "holder": null, "token": null, "expiresInMs": null})
    );
    let (_, granted) = server.post("/v1/grant", grant("r", "a", 10_000, "1")).await;
    let (status, held) = server.post("/v1/status", json!({"resource": "r"})).await;
    assert_eq!(status, 200);
    assert_eq!(held["holder"], "a");
    assert_eq!(held["token"], granted["token"]);
    let left = held["expiresInMs"].as_u64().unwrap();
    assert!((1..=10_000).contains(&left), "{left}");
    server.stop().await;
}

async fn revoke_ends_the_grant_and_the_next_token_is_larger(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, granted) = server.post("/v1/grant", grant("r", "a", 30_000, "1")).await;
    let token = token_of(&granted);
    let revoke = |body: Value| {
        server
            .client
            .post(format!("{}/v1/revoke", server.url))
            .json(&body)
            .send()
    };
    let reply: Value = revoke(json!({"resource": "r"}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(reply, json!({"revoked": true}));
    let again: Value = revoke(json!({"resource": "r"}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(again, json!({"revoked": false}));

    let (_, renewed) = server
        .post("/v1/renew", renew("r", "a", token, 30_000, "2"))
        .await;
    assert_eq!(renewed, json!({"renewed": false, "reason": "revoked"}));
    let (_, next) = server.post("/v1/grant", grant("r", "b", 30_000, "1")).await;
    assert!(token_of(&next) > token);
    // The revoked holder still learns "revoked" after the resource moved on.
    let (_, late) = server
        .post("/v1/renew", renew("r", "a", token, 30_000, "3"))
        .await;
    assert_eq!(late["reason"], "revoked");
    server.stop().await;
}

async fn without_api_keys_loopback_peers_may_revoke(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, granted) = server.post("/v1/grant", grant("r", "a", 30_000, "1")).await;
    let (status, reply) = server.post("/v1/revoke", json!({"resource": "r"})).await;
    assert_eq!((status, reply), (200, json!({"revoked": true})));
    let (_, renewed) = server
        .post(
            "/v1/renew",
            renew("r", "a", token_of(&granted), 30_000, "2"),
        )
        .await;
    assert_eq!(renewed["reason"], "revoked");
    server.stop().await;
}

async fn fenced_writes_accept_only_tokens_at_least_the_last(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, never) = server
        .post("/v1/fenced/read", json!({"resource": "r"}))
        .await;
    assert_eq!(never, json!({"payload": null, "lastToken": null}));

    // Three successive grants, each released before the next: tokens t1 < t2 < t3, each
    // written with the secret its grant's reply carried.
    let mut tokens = Vec::new();
    for (i, holder) in ["a", "b", "c"].into_iter().enumerate() {
        let (_, granted) = server
            .post("/v1/grant", grant("r", holder, 30_000, &i.to_string()))
            .await;
        let token = token_of(&granted);
        let release = json!({"resource": "r", "holder": holder, "token": token});
        let (_, released) = server.post("/v1/release", release).await;
        assert_eq!(released, json!({"released": true}));
        tokens.push(token);
    }
    let [t1, t2, t3] = tokens[..] else {
        unreachable!()
    };
    let write =
        |payload: Value, token: u64| json!({"resource": "r", "payload": payload, "token": token});
    let (_, first) = server
        .post("/v1/fenced/write", write(json!({"v": 1}), t2))
        .await;
    assert_eq!(first, json!({"accepted": true, "lastToken": t2}));
    let (_, stale) = server
        .post("/v1/fenced/write", write(json!("stale"), t1))
        .await;
    assert_eq!(stale, json!({"accepted": false, "lastToken": t2}));
    let (_, equal) = server
        .post("/v1/fenced/write", write(json!([1, "two", null]), t2))
        .await;
    assert_eq!(equal, json!({"accepted": true, "lastToken": t2}));
    let (_, read) = server
        .post("/v1/fenced/read", json!({"resource": "r"}))
        .await;
    assert_eq!(read, json!({"payload": [1, "two", null], "lastToken": t2}));
    let (_, newer) = server.post("/v1/fenced/write", write(json!(7.5), t3)).await;
    assert_eq!(newer, json!({"accepted": true, "lastToken": t3}));
    let (_, read) = server
        .post("/v1/fenced/read", json!({"resource": "r"}))
        .await;
    assert_eq!(read, json!({"payload": 7.5, "lastToken": t3}));
    server.stop().await;
}

#[tokio::test]
async fn cors_allows_local_development_origins_by_default() {
    let server = Server::start(|_| {}).await;
    let preflight = |origin: &'static str| {
        server
            .client
            .request(reqwest::Method::OPTIONS, format!("{}/v1/grant", server.url))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "content-type, authorization",
            )
            .send()
    };
    let allowed = preflight("http://localhost:5173").await.unwrap();
    assert!(allowed.status().is_success());
    assert_eq!(
        allowed.headers()["access-control-allow-origin"],
        "http://localhost:5173"
    );
    let headers = allowed.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap();
    assert!(
        headers.contains("content-type") && headers.contains("authorization"),
        "{headers}"
    );
    let other = preflight("https://elsewhere.example").await.unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());

    let response = server
        .client
        .post(format!("{}/v1/grant", server.url))
        .header("origin", "http://127.0.0.1:8000")
        .json(&grant("r", "a", 1_000, "1"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "http://127.0.0.1:8000"
    );
    assert_eq!(response.status(), 200);
    server.stop().await;
}

#[tokio::test]
async fn cors_follows_a_configured_allowlist() {
    let server = Server::start(|c| c.cors_origins = vec!["https://app.example".into()]).await;
    let send = |origin: &'static str| {
        server
            .client
            .post(format!("{}/v1/status", server.url))
            .header("origin", origin)
            .json(&json!({"resource": "r"}))
            .send()
    };
    let listed = send("https://app.example").await.unwrap();
    assert_eq!(listed.status(), 200);
    assert_eq!(
        listed.headers()["access-control-allow-origin"],
        "https://app.example"
    );
    let local = send("http://localhost:5173").await.unwrap();
    assert_eq!(
        local.status(),
        403,
        "a configured list replaces the development default"
    );
    server.stop().await;
}

async fn health_and_static_files_are_served(backend: Backend) {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("index.html"), "<h1>demo</h1>").unwrap();
    let dir = site.path().to_path_buf();
    let server = Server::start_on(backend, move |c| c.static_dir = Some(dir)).await;
    assert_eq!(server.get("/healthz").await, (200, json!({"ok": true})));
    let page = server
        .client
        .get(format!("{}/", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.text().await.unwrap(), "<h1>demo</h1>");
    let (status, missing) = server.get("/missing.js").await;
    assert_eq!(status, 404);
    assert_eq!(missing["error"]["code"], "not_found");
    let (status, missing) = server.get("/v1/missing").await;
    assert_eq!(
        (status, missing["error"]["code"].clone()),
        (404, json!("not_found"))
    );
    server.stop().await;
}

async fn an_expired_grant_goes_to_the_next_holder_with_a_larger_token(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, first) = server.post("/v1/grant", grant("r", "a", 1_000, "1")).await;
    let (_, denied) = server.post("/v1/grant", grant("r", "b", 1_000, "1")).await;
    assert_eq!(denied["granted"], false);
    assert!(denied["expiresInMs"].as_u64().unwrap() <= 1_000);
    let started = std::time::Instant::now();
    let mut attempt = 1;
    let next = loop {
        attempt += 1;
        let (_, reply) = server
            .post("/v1/grant", grant("r", "b", 200, &attempt.to_string()))
            .await;
        if reply["granted"] == true {
            break reply;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never granted: {reply}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(token_of(&next) > token_of(&first));
    server.stop().await;
}

async fn a_regrant_never_ends_a_live_lease_sooner_than_promised(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (_, long) = server.post("/v1/grant", grant("r", "a", 20_000, "1")).await;
    // The same holder asks again, for much less: a new token, but the resource stays promised
    // until the first grant's end, so nobody else can be granted before then.
    let (_, mut short) = server.post("/v1/grant", grant("r", "a", 200, "2")).await;
    // A new grant: a new secret.
    let secret = short
        .as_object_mut()
        .unwrap()
        .remove("leaseSecret")
        .unwrap();
    assert_ne!(secret, long["leaseSecret"]);
    assert_eq!(
        short,
        json!({"granted": true, "token": token_of(&long) + 1, "durationMs": 200})
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    let (_, denied) = server.post("/v1/grant", grant("r", "b", 200, "1")).await;
    assert_eq!(denied["granted"], false, "{denied}");
    assert_eq!(denied["holder"], "a");
    let left = denied["expiresInMs"].as_u64().unwrap();
    assert!((15_000..=20_000).contains(&left), "{left}");
    server.stop().await;
}

#[tokio::test]
async fn a_wrong_method_names_the_allowed_ones() {
    let server = Server::start(|_| {}).await;
    let response = server
        .client
        .get(format!("{}/v1/grant", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "POST");
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["error"]["code"], "method_not_allowed");
    server.stop().await;
}

on_both_backends!(
    every_bad_request_gets_its_code,
    a_retried_grant_or_renew_returns_the_original_outcome,
    renew_keeps_the_token_and_resets_to_the_full_duration,
    durations_are_clamped_to_the_configured_range,
    renew_refusals_name_their_reason,
    release_is_idempotent_and_keeps_the_counter,
    status_by_query_or_body_reports_the_live_grant,
    revoke_ends_the_grant_and_the_next_token_is_larger,
    without_api_keys_loopback_peers_may_revoke,
    fenced_writes_accept_only_tokens_at_least_the_last,
    health_and_static_files_are_served,
    an_expired_grant_goes_to_the_next_holder_with_a_larger_token,
    a_regrant_never_ends_a_live_lease_sooner_than_promised,
);
