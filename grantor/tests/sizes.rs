//! Stored values and the replies that carry them: the grantor accepts an item's payload, a
//! completion's result, a failure's error and a fenced write's payload only if every reply that
//! carries them later (the claim, a completion or failure with its `next` claim, the item's
//! record, the fenced read) fits within
//! `MAX_REPLY_BYTES`, the most a client reads of a reply. Sizes count the value as stored, not
//! as sent.

mod common;

use common::{Backend, Server};
use serde_json::{json, Value};
use tenure::protocol::{
    ClaimReply, ClaimReplyWithSecret, ClaimedItem, CompleteReply, FailReply, ItemReply, ItemState,
    Token, WithNextClaim, ITEM_REPLY_OVERHEAD_BYTES, MAX_ATTEMPTS, MAX_DEDUPE_KEY_LEN,
    MAX_ERROR_BYTES, MAX_FENCED_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES, MAX_QUEUE_LEN, MAX_REPLY_BYTES,
    MAX_REQUEST_DURATION_MS, MAX_RESULT_BYTES, MAX_TOKEN, MAX_WORKER_LEN,
};

/// A JSON string value whose stored text takes exactly `bytes` bytes (its quotes included).
fn string_of(bytes: usize) -> Value {
    Value::String("x".repeat(bytes - 2))
}

/// A longest name whose every character is escaped in JSON, so it takes twice its length.
fn escaped_name(len: usize) -> String {
    "\"".repeat(len)
}

/// POSTs `body` as is; the status, the reply's exact length in bytes, and the parsed reply.
async fn post_text(server: &Server, path: &str, body: String) -> (u16, usize, Value) {
    let response = server
        .client
        .post(format!("{}{path}", server.url))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let bytes = response.bytes().await.unwrap();
    (status, bytes.len(), serde_json::from_slice(&bytes).unwrap())
}

async fn post(server: &Server, path: &str, body: Value) -> (u16, usize, Value) {
    post_text(server, path, body.to_string()).await
}

fn assert_refused(status: u16, reply: &Value, field: &str) {
    assert_eq!(status, 413, "{reply}");
    assert_eq!(reply["error"]["code"], "value_too_large", "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with(field), "{message}");
}

async fn the_largest_accepted_values_fit_every_reply_that_carries_them(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let queue = escaped_name(MAX_QUEUE_LEN);
    let worker = escaped_name(MAX_WORKER_LEN);
    let enqueue = |payload: Value, key: &str| {
        json!({"queue": queue, "items": [
            {"payload": payload, "dedupeKey": key, "maxAttempts": MAX_ATTEMPTS}
        ]})
    };

    // One byte over is refused, and adds nothing.
    let over = enqueue(string_of(MAX_PAYLOAD_BYTES + 1), "over");
    let (status, _, reply) = post(&server, "/v1/queues/enqueue", over).await;
    assert_refused(status, &reply, "payload");
    // The largest payloads are accepted: two items, so that a completion's `next` claims one.
    let first_key = escaped_name(MAX_DEDUPE_KEY_LEN);
    for key in [first_key.as_str(), "second"] {
        let body = enqueue(string_of(MAX_PAYLOAD_BYTES), key);
        let (status, _, reply) = post(&server, "/v1/queues/enqueue", body).await;
        assert_eq!(
            (status, &reply["items"][0]["enqueued"]),
            (200, &json!(true)),
            "{reply}"
        );
    }

    let claim = json!({"queue": queue, "worker": worker, "claimMs": 60_000});
    let (status, len, claimed) = post(&server, "/v1/queues/claim", claim).await;
    assert_eq!(status, 200, "{claimed}");
    assert_eq!(claimed["item"]["payload"], string_of(MAX_PAYLOAD_BYTES));
    assert!(len <= MAX_REPLY_BYTES, "a claim reply of {len} bytes");
    let item = claimed["item"]["id"].as_u64().unwrap();

    let settle = |reply: &Value, field: &str, value: Value| {
        json!({
            "queue": queue, "itemId": item, "worker": worker, "token": reply["token"],
            "claimSecret": reply["claimSecret"], field: value,
            "claimNext": {"claimMs": 60_000},
        })
    };
    // A failure with an error one byte over is refused; the largest is stored, and its `next`
    // claims the same item again.
    let (status, _, reply) = post(
        &server,
        "/v1/queues/fail",
        settle(&claimed, "error", string_of(MAX_ERROR_BYTES + 1)),
    )
    .await;
    assert_refused(status, &reply, "error");
    let body = settle(&claimed, "error", string_of(MAX_ERROR_BYTES));
    let (status, len, failed) = post(&server, "/v1/queues/fail", body).await;
    assert_eq!(status, 200, "{failed}");
    assert_eq!(failed["next"]["item"]["id"], item, "{failed}");
    assert!(len <= MAX_REPLY_BYTES, "a failure reply of {len} bytes");
    let again = &failed["next"];

    // Likewise a completion's result; its `next` claims the second item.
    let (status, _, reply) = post(
        &server,
        "/v1/queues/complete",
        settle(again, "result", string_of(MAX_RESULT_BYTES + 1)),
    )
    .await;
    assert_refused(status, &reply, "result");
    let body = settle(again, "result", string_of(MAX_RESULT_BYTES));
    let (status, len, completed) = post(&server, "/v1/queues/complete", body).await;
    assert_eq!(status, 200, "{completed}");
    assert_eq!(completed["next"]["claimed"], true, "{completed}");
    assert_ne!(completed["next"]["item"]["id"], item, "{completed}");
    assert!(len <= MAX_REPLY_BYTES, "a completion reply of {len} bytes");

    // The item's record carries its payload, result and last error at once.
    let body = json!({"queue": queue, "itemId": item});
    let (status, len, record) = post(&server, "/v1/queues/item", body).await;
    assert_eq!(status, 200, "{record}");
    assert_eq!(
        (
            &record["state"],
            &record["dedupeKey"],
            &record["completedBy"]
        ),
        (&json!("done"), &json!(first_key), &json!(worker))
    );
    assert_eq!(record["payload"], string_of(MAX_PAYLOAD_BYTES));
    assert_eq!(record["result"], string_of(MAX_RESULT_BYTES));
    assert_eq!(record["lastError"], string_of(MAX_ERROR_BYTES));
    assert!(len <= MAX_REPLY_BYTES, "an item record of {len} bytes");
}

async fn sizes_count_the_value_as_stored_not_as_sent(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    // `9E15` is sent in 4 bytes and stored as `9000000000000000.0`: a payload sent well within
    // the limit expands beyond it, and is refused.
    let stored = serde_json::to_string(&serde_json::from_str::<Value>("9E15").unwrap()).unwrap();
    let count = MAX_PAYLOAD_BYTES / (stored.len() + 1) + 1;
    let payload = format!("[{}]", vec!["9E15"; count].join(","));
    assert!(payload.len() < MAX_PAYLOAD_BYTES / 2);
    let body = format!(r#"{{"queue": "q", "items": [{{"payload": {payload}}}]}}"#);
    let (status, _, reply) = post_text(&server, "/v1/queues/enqueue", body).await;
    assert_refused(status, &reply, "payload");
    let (status, _, stats) = post(&server, "/v1/queues/stats", json!({"queue": "q"})).await;
    assert_eq!((status, &stats["pending"]), (200, &json!(0)), "{stats}");

    // Whitespace is not stored: a payload sent in more bytes than the limit but stored within
    // it is accepted, and claimed as stored.
    let numbers = MAX_PAYLOAD_BYTES / 2 - 1;
    let sent = format!("[{}]", vec!["1"; numbers].join(", "));
    assert!(sent.len() > MAX_PAYLOAD_BYTES);
    let body = format!(r#"{{"queue": "q", "items": [{{"payload": {sent}}}]}}"#);
    let (status, _, reply) = post_text(&server, "/v1/queues/enqueue", body).await;
    assert_eq!(status, 200, "{reply}");
    let claim = json!({"queue": "q", "worker": "w", "claimMs": 60_000});
    let (status, len, claimed) = post(&server, "/v1/queues/claim", claim).await;
    assert_eq!(status, 200, "{claimed}");
    assert_eq!(
        claimed["item"]["payload"].as_array().unwrap().len(),
        numbers
    );
    assert!(len <= MAX_REPLY_BYTES, "a claim reply of {len} bytes");
}

async fn a_fenced_value_that_can_be_written_can_be_read_back(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let (status, _, granted) =
        post(&server, "/v1/grant", common::grant("r", "h", 60_000, "1")).await;
    assert_eq!(status, 200, "{granted}");
    let write = |payload: Value| {
        json!({"resource": "r", "payload": payload, "token": granted["token"],
               "leaseSecret": granted["leaseSecret"]})
    };
    let over = write(string_of(MAX_FENCED_PAYLOAD_BYTES + 1));
    let (status, _, reply) = post(&server, "/v1/fenced/write", over).await;
    assert_refused(status, &reply, "payload");
    let (status, _, read) = post(&server, "/v1/fenced/read", json!({"resource": "r"})).await;
    assert_eq!((status, &read["payload"]), (200, &Value::Null), "{read}");

    let largest = write(string_of(MAX_FENCED_PAYLOAD_BYTES));
    let (status, _, reply) = post(&server, "/v1/fenced/write", largest).await;
    assert_eq!((status, &reply["accepted"]), (200, &json!(true)), "{reply}");
    let (status, len, read) = post(&server, "/v1/fenced/read", json!({"resource": "r"})).await;
    assert_eq!(status, 200);
    assert_eq!(read["payload"], string_of(MAX_FENCED_PAYLOAD_BYTES));
    assert!(len <= MAX_REPLY_BYTES, "a fenced read reply of {len} bytes");
    // At its worst (the largest token) the reply still fits.
    let worst = json!({"payload": string_of(MAX_FENCED_PAYLOAD_BYTES), "lastToken": MAX_TOKEN});
    assert!(worst.to_string().len() <= MAX_REPLY_BYTES);
}

on_both_backends!(
    the_largest_accepted_values_fit_every_reply_that_carries_them,
    sizes_count_the_value_as_stored_not_as_sent,
    a_fenced_value_that_can_be_written_can_be_read_back,
);

/// The largest number of each kind a reply can carry.
const MAX_U32: u32 = u32::MAX;

/// The replies that carry stored values, at their worst: every number at its largest, every name
/// at its longest with every character escaped, every value at its limit. The tests over HTTP
/// above meet small ids and tokens; this covers the rest of `ITEM_REPLY_OVERHEAD_BYTES`.
#[test]
fn the_overhead_covers_the_longest_replies() {
    let token = Token::new(MAX_TOKEN).unwrap();
    let name = || Some(escaped_name(MAX_WORKER_LEN.max(MAX_DEDUPE_KEY_LEN)));
    let claim = || ClaimReplyWithSecret {
        reply: ClaimReply {
            claimed: true,
            item: Some(ClaimedItem {
                id: MAX_TOKEN,
                payload: string_of(MAX_PAYLOAD_BYTES),
                attempts: MAX_U32,
                max_attempts: MAX_U32,
            }),
            token: Some(token),
            claim_ms: Some(MAX_REQUEST_DURATION_MS),
        },
        // A claim secret is 32 bytes of HMAC, base64url without padding: 43 characters.
        claim_secret: Some("s".repeat(43)),
    };
    let record = ItemReply {
        id: MAX_TOKEN,
        state: ItemState::Claimed,
        payload: string_of(MAX_PAYLOAD_BYTES),
        dedupe_key: name(),
        attempts: MAX_U32,
        max_attempts: MAX_U32,
        claim_token: token,
        claimed_by: name(),
        claim_expires_in_ms: Some(MAX_REQUEST_DURATION_MS),
        completed_token: Some(token),
        completed_by: name(),
        result: Some(string_of(MAX_RESULT_BYTES)),
        last_error: Some(string_of(MAX_ERROR_BYTES)),
    };
    let completed = WithNextClaim {
        reply: CompleteReply {
            completed: true,
            token,
        },
        next: Some(claim()),
    };
    let failed = WithNextClaim {
        reply: FailReply {
            state: ItemState::Pending,
            attempts: MAX_U32,
            max_attempts: MAX_U32,
        },
        next: Some(claim()),
    };
    let sizes = [
        ("item record", serde_json::to_vec(&record).unwrap().len()),
        ("claim", serde_json::to_vec(&claim()).unwrap().len()),
        ("completion", serde_json::to_vec(&completed).unwrap().len()),
        ("failure", serde_json::to_vec(&failed).unwrap().len()),
    ];
    for (what, len) in sizes {
        assert!(
            len <= MAX_REPLY_BYTES,
            "the longest {what} reply takes {len} bytes"
        );
    }
    // The record is the one the overhead is sized for: within it, and not far below.
    let values = MAX_PAYLOAD_BYTES + MAX_RESULT_BYTES + MAX_ERROR_BYTES;
    let overhead = sizes[0].1 - values;
    assert!(
        overhead <= ITEM_REPLY_OVERHEAD_BYTES && overhead > ITEM_REPLY_OVERHEAD_BYTES / 2,
        "the record's overhead is {overhead} bytes"
    );
}
