//! Property tests of the wire protocol: every wire type of `tenure::protocol` serialises and parses
//! back equal; malformed numbers are refused by the types and by the grantor with their stable
//! codes; and the grantor accepts every valid request that can be generated (it may answer with
//! a refusal or a `409`/`404` about the state, never with a parse error).

mod common;

use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};

use common::Server;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestRunner};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use tenure::protocol::*;

// --- strategies ---

/// A protocol name: 1 to `max` bytes of printable ASCII.
fn name(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::collection::vec(0x20u8..=0x7e, 1..=12),
        1 => proptest::collection::vec(0x20u8..=0x7e, max..=max),
        1 => proptest::collection::vec(0x20u8..=0x7e, 1..=max),
    ]
    .prop_map(|bytes| String::from_utf8(bytes).unwrap())
}

fn token() -> impl Strategy<Value = Token> {
    prop_oneof![0..=MAX_TOKEN, MAX_TOKEN - 4..=MAX_TOKEN].prop_map(|v| Token::new(v).unwrap())
}

fn duration() -> impl Strategy<Value = u64> {
    prop_oneof![
        1..=MAX_REQUEST_DURATION_MS,
        Just(MAX_REQUEST_DURATION_MS),
        1..=120_000u64
    ]
}

fn item_id() -> impl Strategy<Value = u64> {
    prop_oneof![1..=MAX_TOKEN, 1..=1_000u64]
}

fn text() -> impl Strategy<Value = String> {
    ".{0,16}"
}

/// Any JSON value a payload may be: nested arrays and objects of every scalar kind.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        // Fractions of at most 15 significant digits: serde_json (without its `float_roundtrip`
        // feature) may read a longer one back a unit in the last place off.
        (-1_000_000i64..1_000_000, 0u32..=8)
            .prop_map(|(n, e)| Value::from(n as f64 / f64::from(1u32 << e))),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(text(), inner, 0..4)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}

/// A value for an `Option<P>` field. `Some(null)` is left out: on the wire it is `null`, the same
/// as `None`, by design (a `null` result and no result are one thing).
fn optional_payload() -> impl Strategy<Value = Option<Value>> {
    proptest::option::of(json_value().prop_filter("null is absent", |v| !v.is_null()))
}

fn refusal() -> impl Strategy<Value = RenewRefusal> {
    prop_oneof![
        Just(RenewRefusal::Expired),
        Just(RenewRefusal::Revoked),
        Just(RenewRefusal::NotHolder),
        Just(RenewRefusal::Unknown),
    ]
}

fn item_state() -> impl Strategy<Value = ItemState> {
    prop_oneof![
        Just(ItemState::Pending),
        Just(ItemState::Claimed),
        Just(ItemState::Done),
        Just(ItemState::Dead),
    ]
}

/// A JSON object of the fields that are `Some`, in the order given.
fn object(fields: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .filter_map(|(name, value)| value.map(|v| (name.to_owned(), v)))
            .collect(),
    )
}

fn some<T: Into<Value>>(value: T) -> Option<Value> {
    Some(value.into())
}

fn token_value() -> impl Strategy<Value = Value> {
    token().prop_map(|t| Value::from(t.get()))
}

/// A grant's or claim's secret, when a request carries one: opaque printable text.
fn secret() -> impl Strategy<Value = Option<Value>> {
    proptest::option::of("[!-~]{1,64}".prop_map(Value::String))
}

// Messages are generated as the JSON on the wire, with optional fields omitted or `null` exactly
// as the wire types serialise them, so a round trip must give back the same JSON.

fn grant_request() -> impl Strategy<Value = Value> {
    (
        name(MAX_RESOURCE_LEN),
        name(MAX_HOLDER_LEN),
        duration(),
        name(MAX_REQUEST_ID_LEN),
        secret(),
    )
        .prop_map(|(resource, holder, duration_ms, request_id, secret)| {
            object(vec![
                ("resource", some(resource)),
                ("holder", some(holder)),
                ("durationMs", some(duration_ms)),
                ("requestId", some(request_id)),
                ("leaseSecret", secret),
            ])
        })
}

fn renew_request() -> impl Strategy<Value = Value> {
    (
        name(MAX_RESOURCE_LEN),
        name(MAX_HOLDER_LEN),
        token_value(),
        duration(),
        name(MAX_REQUEST_ID_LEN),
        secret(),
    )
        .prop_map(
            |(resource, holder, token, duration_ms, request_id, secret)| {
                object(vec![
                    ("resource", some(resource)),
                    ("holder", some(holder)),
                    ("token", Some(token)),
                    ("durationMs", some(duration_ms)),
                    ("requestId", some(request_id)),
                    ("leaseSecret", secret),
                ])
            },
        )
}

fn release_request() -> impl Strategy<Value = Value> {
    (
        name(MAX_RESOURCE_LEN),
        name(MAX_HOLDER_LEN),
        token_value(),
        secret(),
    )
        .prop_map(|(resource, holder, token, secret)| {
            object(vec![
                ("resource", some(resource)),
                ("holder", some(holder)),
                ("token", Some(token)),
                ("leaseSecret", secret),
            ])
        })
}

fn fenced_write_request() -> impl Strategy<Value = Value> {
    (
        name(MAX_RESOURCE_LEN),
        json_value(),
        token_value(),
        secret(),
    )
        .prop_map(|(resource, payload, token, secret)| {
            object(vec![
                ("resource", some(resource)),
                ("payload", Some(payload)),
                ("token", Some(token)),
                ("leaseSecret", secret),
            ])
        })
}

fn new_item() -> impl Strategy<Value = Value> {
    (
        json_value(),
        proptest::option::of(name(MAX_DEDUPE_KEY_LEN)),
        proptest::option::of(1..=MAX_ATTEMPTS),
    )
        .prop_map(|(payload, dedupe_key, max_attempts)| {
            // Both optional fields serialise as null when absent.
            object(vec![
                ("payload", Some(payload)),
                ("dedupeKey", Some(dedupe_key.into())),
                ("maxAttempts", Some(max_attempts.into())),
            ])
        })
}

fn enqueue_request() -> impl Strategy<Value = Value> {
    (
        name(MAX_QUEUE_LEN),
        proptest::collection::vec(new_item(), 1..=4),
    )
        .prop_map(|(queue, items)| json!({ "queue": queue, "items": items }))
}

fn claim_request() -> impl Strategy<Value = Value> {
    (
        name(MAX_QUEUE_LEN),
        name(MAX_WORKER_LEN),
        duration(),
        proptest::option::of(name(MAX_REQUEST_ID_LEN)),
    )
        .prop_map(|(queue, worker, claim_ms, request_id)| {
            json!({ "queue": queue, "worker": worker, "claimMs": claim_ms, "requestId": request_id })
        })
}

/// Heartbeat, completion and failure bodies: `extra` is `claimMs` (a duration), or `result` or
/// `error` (any JSON).
fn claim_call(extra: &'static str) -> impl Strategy<Value = Value> {
    let value = if extra == "claimMs" {
        duration().prop_map(Value::from).boxed()
    } else {
        json_value().boxed()
    };
    (
        name(MAX_QUEUE_LEN),
        item_id(),
        name(MAX_WORKER_LEN),
        token_value(),
        value,
        secret(),
    )
        .prop_map(move |(queue, item_id, worker, token, value, secret)| {
            object(vec![
                ("queue", some(queue)),
                ("itemId", some(item_id)),
                ("worker", some(worker)),
                ("token", Some(token)),
                (extra, Some(value)),
                ("claimSecret", secret),
            ])
        })
}

fn item_reply() -> impl Strategy<Value = Value> {
    (
        (
            item_id(),
            item_state(),
            json_value(),
            proptest::option::of(name(MAX_DEDUPE_KEY_LEN)),
            any::<u32>(),
            any::<u32>(),
            token_value(),
        ),
        (
            proptest::option::of(name(MAX_WORKER_LEN)),
            proptest::option::of(any::<u64>()),
            proptest::option::of(token_value()),
            proptest::option::of(name(MAX_WORKER_LEN)),
            optional_payload(),
            optional_payload(),
        ),
    )
        .prop_map(
            |(
                (id, state, payload, dedupe_key, attempts, max_attempts, claim_token),
                (claimed_by, expires_in_ms, completed_token, completed_by, result, last_error),
            )| {
                json!({
                    "id": id,
                    "state": state.as_str(),
                    "payload": payload,
                    "dedupeKey": dedupe_key,
                    "attempts": attempts,
                    "maxAttempts": max_attempts,
                    "claimToken": claim_token,
                    "claimedBy": claimed_by,
                    "claimExpiresInMs": expires_in_ms,
                    "completedToken": completed_token,
                    "completedBy": completed_by,
                    "result": result,
                    "lastError": last_error,
                })
            },
        )
}

fn error_code() -> impl Strategy<Value = ErrorCode> {
    proptest::sample::select(ErrorCode::ALL.to_vec())
}

// --- round trips ---

/// Parses `wire` as a `T`, then checks that `T` serialises back to exactly `wire` and that its
/// JSON text parses back to an equal `T`.
fn round_trip<T>(wire: &Value) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let parsed: T = serde_json::from_value(wire.clone())
        .map_err(|e| TestCaseError::fail(format!("{wire} does not parse: {e}")))?;
    let back = serde_json::to_value(&parsed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&back, wire, "{:?} serialises differently", parsed);
    let text = serde_json::to_string(&parsed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let again: T = serde_json::from_str(&text)
        .map_err(|e| TestCaseError::fail(format!("{text} does not parse back: {e}")))?;
    prop_assert_eq!(again, parsed, "through {}", text);
    Ok(())
}

fn grant_reply() -> impl Strategy<Value = Value> {
    prop_oneof![
        (token_value(), 1..=u64::MAX, secret()).prop_map(|(token, duration_ms, secret)| object(
            vec![
                ("granted", some(true)),
                ("token", Some(token)),
                ("durationMs", some(duration_ms)),
                ("leaseSecret", secret),
            ]
        )),
        (name(MAX_HOLDER_LEN), any::<u64>()).prop_map(|(holder, expires_in_ms)| {
            json!({ "granted": false, "holder": holder, "expiresInMs": expires_in_ms })
        }),
    ]
}

fn renew_reply() -> impl Strategy<Value = Value> {
    prop_oneof![
        (token_value(), 1..=u64::MAX).prop_map(|(token, duration_ms)| {
            json!({ "renewed": true, "token": token, "durationMs": duration_ms })
        }),
        refusal().prop_map(|reason| json!({ "renewed": false, "reason": reason.as_str() })),
    ]
}

fn claim_reply() -> impl Strategy<Value = Value> {
    prop_oneof![
        (item_id(), json_value(), any::<u32>(), any::<u32>(), token_value(), duration()).prop_map(
            |(id, payload, attempts, max_attempts, token, claim_ms)| json!({
                "claimed": true,
                "item": { "id": id, "payload": payload, "attempts": attempts, "maxAttempts": max_attempts },
                "token": token,
                "claimMs": claim_ms,
            })
        ),
        Just(json!({ "claimed": false })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn lease_requests_round_trip(
        grant in grant_request(),
        renew in renew_request(),
        release in release_request(),
        write in fenced_write_request(),
        resource in name(MAX_RESOURCE_LEN),
    ) {
        round_trip::<GrantRequest>(&grant)?;
        round_trip::<RenewRequest>(&renew)?;
        round_trip::<ReleaseRequest>(&release)?;
        round_trip::<FencedWriteRequest<Value>>(&write)?;
        let named = json!({ "resource": resource });
        round_trip::<StatusRequest>(&named)?;
        round_trip::<RevokeRequest>(&named)?;
        round_trip::<FencedReadRequest>(&named)?;
    }

    #[test]
    fn lease_replies_round_trip(
        grant in grant_reply(),
        renew in renew_reply(),
        flag in any::<bool>(),
        status in proptest::option::of((name(MAX_HOLDER_LEN), token_value(), any::<u64>())),
        resource in name(MAX_RESOURCE_LEN),
        payload in optional_payload(),
        last_token in proptest::option::of(token_value()),
        write_token in token_value(),
    ) {
        round_trip::<GrantReply>(&object(vec![
            ("granted", grant.get("granted").cloned()),
            ("token", grant.get("token").cloned()),
            ("durationMs", grant.get("durationMs").cloned()),
            ("holder", grant.get("holder").cloned()),
            ("expiresInMs", grant.get("expiresInMs").cloned()),
        ]))?;
        round_trip::<GrantReplyWithSecret>(&grant)?;
        round_trip::<RenewReply>(&renew)?;
        round_trip::<RenewRefusal>(&renew.get("reason").cloned().unwrap_or(json!("expired")))?;
        round_trip::<ReleaseReply>(&json!({ "released": flag }))?;
        round_trip::<RevokeReply>(&json!({ "revoked": flag }))?;
        round_trip::<FencedWriteReply>(&json!({ "accepted": flag, "lastToken": write_token }))?;
        round_trip::<FencedReadReply<Value>>(&json!({ "payload": payload, "lastToken": last_token }))?;
        let (holder, token, expires_in_ms) = match status {
            Some((h, t, e)) => (Some(h), Some(t), Some(e)),
            None => (None, None, None),
        };
        round_trip::<StatusReply>(&json!({
            "resource": resource, "holder": holder, "token": token, "expiresInMs": expires_in_ms,
        }))?;
    }

    #[test]
    fn queue_messages_round_trip(
        enqueue in enqueue_request(),
        claim in claim_request(),
        heartbeat in claim_call("claimMs"),
        complete in claim_call("result"),
        fail in claim_call("error"),
        item in item_reply(),
        claimed in claim_reply(),
        ids in proptest::collection::vec((item_id(), any::<bool>()), 0..4),
        counts in (any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>()),
        attempts in (any::<u32>(), any::<u32>()),
        state in item_state(),
        queue in name(MAX_QUEUE_LEN),
        secret in secret(),
    ) {
        round_trip::<EnqueueRequest<Value>>(&enqueue)?;
        round_trip::<ClaimRequest>(&claim)?;
        round_trip::<HeartbeatRequest>(&heartbeat)?;
        round_trip::<CompleteRequest<Value>>(&complete)?;
        round_trip::<FailRequest<Value>>(&fail)?;
        round_trip::<ItemReply<Value>>(&item)?;
        round_trip::<ItemState>(&json!(state.as_str()))?;
        round_trip::<ClaimReply<Value>>(&claimed)?;
        let mut with_secret = claimed.clone();
        if let (Some(secret), true) = (secret, claimed["claimed"] == json!(true)) {
            with_secret["claimSecret"] = secret;
        }
        round_trip::<ClaimReplyWithSecret<Value>>(&with_secret)?;
        let items: Vec<Value> = ids.iter().map(|(id, enqueued)| json!({ "itemId": id, "enqueued": enqueued })).collect();
        round_trip::<EnqueueReply>(&json!({ "items": items }))?;
        let token = heartbeat["token"].clone();
        round_trip::<HeartbeatReply>(&json!({ "extended": true, "token": token, "claimMs": heartbeat["claimMs"] }))?;
        round_trip::<CompleteReply>(&json!({ "completed": true, "token": token }))?;
        round_trip::<FailReply>(&json!({ "state": state.as_str(), "attempts": attempts.0, "maxAttempts": attempts.1 }))?;
        round_trip::<QueueStatsRequest>(&json!({ "queue": queue }))?;
        round_trip::<ItemRequest>(&json!({ "queue": queue, "itemId": heartbeat["itemId"] }))?;
        round_trip::<QueueStatsReply>(&json!({
            "queue": queue, "pending": counts.0, "claimed": counts.1, "done": counts.2, "dead": counts.3,
        }))?;
    }

    #[test]
    fn error_replies_round_trip(code in error_code(), message in text()) {
        let reply = ErrorReply::new(code, message.clone());
        round_trip::<ErrorReply>(&json!({ "error": { "code": code.as_str(), "message": message } }))?;
        let wire = serde_json::to_value(&reply).unwrap();
        prop_assert_eq!(wire["error"]["code"].as_str(), Some(code.as_str()));
        prop_assert_eq!(reply.error.known_code(), Some(code));
    }

    /// A token's JSON text, read as a JavaScript number, is the same token.
    #[test]
    fn token_text_is_exact_as_a_javascript_number(token in token()) {
        let text = serde_json::to_string(&token).unwrap();
        let number: f64 = text.parse().unwrap();
        prop_assert_eq!(Token::from_f64(number), Ok(token));
        prop_assert_eq!(serde_json::from_str::<Token>(&text).unwrap(), token);
    }

    /// Numbers that are not tokens are refused by the type.
    #[test]
    fn malformed_token_numbers_are_refused(text in malformed_number()) {
        prop_assert!(serde_json::from_str::<Token>(&text).is_err(), "{} parsed as a token", text);
    }
}

/// JSON numbers (and near-numbers) that are not tokens: too large, negative, fractional, in
/// exponent form, quoted, or not numbers at all.
fn malformed_number() -> impl Strategy<Value = String> {
    prop_oneof![
        (MAX_TOKEN + 1..=u64::MAX).prop_map(|v| v.to_string()),
        "[1-9][0-9]{20,30}",
        (1..=i64::MAX).prop_map(|v| format!("-{v}")),
        (0..=MAX_TOKEN, 1..=999u32).prop_map(|(v, f)| format!("{v}.{f:03}")),
        (0..=MAX_TOKEN).prop_map(|v| format!("{v}.0")),
        (1..=9u32, 1..=40u32).prop_map(|(m, e)| format!("{m}e{e}")),
        (0..=MAX_TOKEN).prop_map(|v| format!("\"{v}\"")),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just("[1]".to_owned()),
        Just("{}".to_owned()),
    ]
}

// --- the grantor accepts every valid request ---

/// One in-process grantor and a runtime to drive it for the generated requests.
struct Harness {
    runtime: tokio::runtime::Runtime,
    server: Option<Server>,
    unique: AtomicU64,
}

impl Harness {
    fn start() -> Harness {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(Server::start(|_| {}));
        Harness {
            runtime,
            server: Some(server),
            unique: AtomicU64::new(0),
        }
    }

    fn server(&self) -> &Server {
        self.server.as_ref().unwrap()
    }

    /// A fresh suffix, so that generated request ids are never reused with another request.
    fn fresh(&self) -> u64 {
        self.unique.fetch_add(1, Ordering::Relaxed)
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.runtime.block_on(self.server().post(path, body))
    }

    fn run<S: Strategy>(
        &self,
        cases: u32,
        strategy: S,
        test: impl Fn(S::Value) -> Result<(), TestCaseError>,
    ) {
        let mut runner = TestRunner::new(RunnerConfig::with_cases(cases));
        if let Err(e) = runner.run(&strategy, test) {
            panic!("{e}");
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            self.runtime.block_on(server.stop());
        }
    }
}

/// The request was parsed and validated: a `200`, or an error about the state (no such item, a
/// stale claim, a missing secret), never one of the codes for a malformed request (`400`, `413`,
/// `415`). A `200` reply must parse as `R`.
fn assert_parsed<R: DeserializeOwned>(
    path: &str,
    body: &Value,
    (status, reply): &(u16, Value),
) -> Result<(), TestCaseError> {
    prop_assert!(
        ![400, 413, 415].contains(status) && (*status == 200 || reply["error"]["code"].is_string()),
        "{} {} was refused: {} {}",
        path,
        body,
        status,
        reply
    );
    if *status == 200 {
        if let Err(e) = serde_json::from_value::<R>(reply.clone()) {
            return Err(TestCaseError::fail(format!(
                "{path}: {reply} is not a reply: {e}"
            )));
        }
    }
    Ok(())
}

/// Makes a generated request id unique (keeping it within the limit), so that no id is reused
/// with another request.
fn fresh_request_id(h: &Harness, request: &mut Value) {
    if let Some(id) = request["requestId"].as_str() {
        let id = format!("{}-{}", h.fresh(), &id[..id.len().min(100)]);
        request["requestId"] = Value::String(id);
    }
}

/// The same request without its secret: a generated secret could only be refused.
fn without_secret(mut request: Value) -> Value {
    if let Value::Object(fields) = &mut request {
        fields.remove("leaseSecret");
        fields.remove("claimSecret");
    }
    request
}

#[test]
fn the_grantor_accepts_every_valid_lease_request() {
    let h = Harness::start();
    h.run(96, grant_request(), |request| {
        let mut request = without_secret(request);
        fresh_request_id(&h, &mut request);
        let reply = h.post("/v1/grant", request.clone());
        assert_parsed::<GrantReplyWithSecret>("/v1/grant", &request, &reply)
    });
    h.run(64, renew_request(), |request| {
        let mut request = without_secret(request);
        fresh_request_id(&h, &mut request);
        let reply = h.post("/v1/renew", request.clone());
        assert_parsed::<RenewReply>("/v1/renew", &request, &reply)
    });
    h.run(64, release_request(), |request| {
        let request = without_secret(request);
        let reply = h.post("/v1/release", request.clone());
        assert_parsed::<ReleaseReply>("/v1/release", &request, &reply)
    });
    h.run(64, fenced_write_request(), |request| {
        let request = without_secret(request);
        let reply = h.post("/v1/fenced/write", request.clone());
        assert_parsed::<FencedWriteReply>("/v1/fenced/write", &request, &reply)?;
        let named = json!({ "resource": request["resource"] });
        let reply = h.post("/v1/fenced/read", named.clone());
        assert_parsed::<FencedReadReply<Value>>("/v1/fenced/read", &named, &reply)?;
        let reply = h.post("/v1/status", named.clone());
        assert_parsed::<StatusReply>("/v1/status", &named, &reply)
    });
}

#[test]
fn the_grantor_reads_every_valid_resource_from_the_status_query() {
    let h = Harness::start();
    h.run(96, name(MAX_RESOURCE_LEN), |resource| {
        let query: String = resource
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_owned(),
                _ => format!("%{b:02X}"),
            })
            .collect();
        let path = format!("/v1/status?resource={query}");
        let (status, reply) = h.runtime.block_on(h.server().get(&path));
        prop_assert_eq!(status, 200, "{} -> {}", path, reply);
        let parsed: StatusReply = serde_json::from_value(reply).unwrap();
        prop_assert_eq!(parsed.resource, resource);
        Ok(())
    });
}

#[test]
fn the_grantor_accepts_every_valid_queue_request() {
    let h = Harness::start();
    h.run(48, enqueue_request(), |request| {
        let reply = h.post("/v1/queues/enqueue", request.clone());
        assert_parsed::<EnqueueReply>("/v1/queues/enqueue", &request, &reply)?;
        let named = json!({ "queue": request["queue"] });
        let reply = h.post("/v1/queues/stats", named.clone());
        assert_parsed::<QueueStatsReply>("/v1/queues/stats", &named, &reply)
    });
    h.run(48, claim_request(), |mut request| {
        if request["requestId"].is_string() {
            fresh_request_id(&h, &mut request);
        }
        let reply = h.post("/v1/queues/claim", request.clone());
        assert_parsed::<ClaimReplyWithSecret<Value>>("/v1/queues/claim", &request, &reply)
    });
    for (path, extra) in [
        ("/v1/queues/heartbeat", "claimMs"),
        ("/v1/queues/complete", "result"),
        ("/v1/queues/fail", "error"),
    ] {
        h.run(48, claim_call(extra), |request| {
            let request = without_secret(request);
            let reply = h.post(path, request.clone());
            assert_parsed::<Value>(path, &request, &reply)
        });
    }
    h.run(48, (name(MAX_QUEUE_LEN), item_id()), |(queue, item_id)| {
        let request = json!({ "queue": queue, "itemId": item_id });
        let reply = h.post("/v1/queues/item", request.clone());
        assert_parsed::<ItemReply<Value>>("/v1/queues/item", &request, &reply)
    });
}

#[test]
fn the_grantor_refuses_malformed_numbers_with_their_codes() {
    let h = Harness::start();
    h.run(128, malformed_number(), |number| {
        let release = format!(r#"{{"resource":"r","holder":"h","token":{number}}}"#);
        let grant = format!(
            r#"{{"resource":"r","holder":"h","durationMs":{number},"requestId":"x{}"}}"#,
            h.fresh()
        );
        let heartbeat =
            format!(r#"{{"queue":"q","itemId":{number},"worker":"w","token":1,"claimMs":1000}}"#);
        for (path, text, code) in [
            ("/v1/release", release, "bad_token"),
            ("/v1/grant", grant, "bad_duration"),
            ("/v1/queues/heartbeat", heartbeat, "bad_item_id"),
        ] {
            let value: Value = serde_json::from_str(&text).unwrap();
            let (status, reply) = h.post(path, value);
            prop_assert_eq!(status, 400, "{} {} -> {}", path, text, reply);
            prop_assert_eq!(
                reply["error"]["code"].as_str(),
                Some(code),
                "{} {}",
                path,
                text
            );
        }
        Ok(())
    });
}
