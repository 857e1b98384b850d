//! The reference grantor's request parsing, through its whole router in this process (on a
//! throwaway SQLite file), judged against the protocol's field rules stated here independently of
//! `grantor/src/extract.rs`.

use std::collections::HashSet;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::OnceLock;

use axum::body::{to_bytes, Body};
use axum::extract::ConnectInfo;
use axum::http::{header, Method, Request, Uri};
use axum::Router;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use tenure::protocol::{
    is_valid_name, ErrorCode, MAX_ATTEMPTS, MAX_DEDUPE_KEY_LEN, MAX_ENQUEUE_ITEMS, MAX_HOLDER_LEN,
    MAX_QUEUE_LEN, MAX_REQUEST_DURATION_MS, MAX_REQUEST_ID_LEN, MAX_RESOURCE_LEN, MAX_TOKEN,
    MAX_WORKER_LEN,
};
use tenure_grantor::{app, AppState, Config, Storage};
use tower::ServiceExt;

/// What a field of a request must be for the request to be valid.
#[derive(Clone, Copy)]
enum Field {
    /// A protocol name of at most this many bytes.
    Name(usize),
    /// Absent, `null`, or a name of at most this many bytes.
    OptionalName(usize),
    /// Absent, `null`, or any string (a grant's or claim's secret).
    OptionalText,
    /// An integer in `1..=MAX_REQUEST_DURATION_MS`.
    Duration,
    /// An integer in `0..=MAX_TOKEN`.
    Token,
    /// An integer in `1..=MAX_TOKEN`.
    ItemId,
    /// Any JSON value, present.
    Any,
    /// Any JSON value, or absent.
    OptionalAny,
    /// An enqueue's items.
    Items,
}

use Field::*;

/// The routes with a JSON body, and their fields.
const ROUTES: [(&str, &[(&str, Field)]); 14] = [
    (
        "/v1/grant",
        &[
            ("resource", Name(MAX_RESOURCE_LEN)),
            ("holder", Name(MAX_HOLDER_LEN)),
            ("durationMs", Duration),
            ("requestId", Name(MAX_REQUEST_ID_LEN)),
            ("leaseSecret", OptionalText),
        ],
    ),
    (
        "/v1/renew",
        &[
            ("resource", Name(MAX_RESOURCE_LEN)),
            ("holder", Name(MAX_HOLDER_LEN)),
            ("token", Token),
            ("durationMs", Duration),
            ("requestId", Name(MAX_REQUEST_ID_LEN)),
            ("leaseSecret", OptionalText),
        ],
    ),
    (
        "/v1/release",
        &[
            ("resource", Name(MAX_RESOURCE_LEN)),
            ("holder", Name(MAX_HOLDER_LEN)),
            ("token", Token),
            ("leaseSecret", OptionalText),
        ],
    ),
    ("/v1/status", &[("resource", Name(MAX_RESOURCE_LEN))]),
    ("/v1/revoke", &[("resource", Name(MAX_RESOURCE_LEN))]),
    (
        "/v1/fenced/write",
        &[
            ("resource", Name(MAX_RESOURCE_LEN)),
            ("payload", Any),
            ("token", Token),
            ("leaseSecret", OptionalText),
        ],
    ),
    ("/v1/fenced/read", &[("resource", Name(MAX_RESOURCE_LEN))]),
    (
        "/v1/queues/enqueue",
        &[("queue", Name(MAX_QUEUE_LEN)), ("items", Items)],
    ),
    (
        "/v1/queues/claim",
        &[
            ("queue", Name(MAX_QUEUE_LEN)),
            ("worker", Name(MAX_WORKER_LEN)),
            ("claimMs", Duration),
            ("requestId", OptionalName(MAX_REQUEST_ID_LEN)),
        ],
    ),
    (
        "/v1/queues/heartbeat",
        &[
            ("queue", Name(MAX_QUEUE_LEN)),
            ("itemId", ItemId),
            ("worker", Name(MAX_WORKER_LEN)),
            ("token", Token),
            ("claimMs", Duration),
            ("claimSecret", OptionalText),
        ],
    ),
    (
        "/v1/queues/complete",
        &[
            ("queue", Name(MAX_QUEUE_LEN)),
            ("itemId", ItemId),
            ("worker", Name(MAX_WORKER_LEN)),
            ("token", Token),
            ("result", OptionalAny),
            ("claimSecret", OptionalText),
        ],
    ),
    (
        "/v1/queues/fail",
        &[
            ("queue", Name(MAX_QUEUE_LEN)),
            ("itemId", ItemId),
            ("worker", Name(MAX_WORKER_LEN)),
            ("token", Token),
            ("error", OptionalAny),
            ("claimSecret", OptionalText),
        ],
    ),
    ("/v1/queues/stats", &[("queue", Name(MAX_QUEUE_LEN))]),
    (
        "/v1/queues/item",
        &[("queue", Name(MAX_QUEUE_LEN)), ("itemId", ItemId)],
    ),
];

/// Content types a request may carry; only the JSON ones (or none) may be accepted.
const CONTENT_TYPES: [Option<&str>; 4] = [
    Some("application/json"),
    None,
    Some("application/problem+json; charset=utf-8"),
    Some("text/plain"),
];

fn valid_field(field: Field, value: Option<&Value>) -> bool {
    let name = |v: Option<&Value>, max| {
        v.and_then(Value::as_str)
            .is_some_and(|s| is_valid_name(s, max))
    };
    match field {
        Name(max) => name(value, max),
        OptionalName(max) => matches!(value, None | Some(Value::Null)) || name(value, max),
        OptionalText => matches!(value, None | Some(Value::Null | Value::String(_))),
        Duration => value
            .and_then(Value::as_u64)
            .is_some_and(|d| (1..=MAX_REQUEST_DURATION_MS).contains(&d)),
        Token => value
            .and_then(Value::as_u64)
            .is_some_and(|t| t <= MAX_TOKEN),
        ItemId => value
            .and_then(Value::as_u64)
            .is_some_and(|id| (1..=MAX_TOKEN).contains(&id)),
        Any => value.is_some(),
        OptionalAny => true,
        Items => value.and_then(Value::as_array).is_some_and(|items| {
            (1..=MAX_ENQUEUE_ITEMS).contains(&items.len())
                && items.iter().all(|item| {
                    let Some(fields) = item.as_object() else {
                        return false;
                    };
                    fields
                        .keys()
                        .all(|k| ["payload", "dedupeKey", "maxAttempts"].contains(&k.as_str()))
                        && fields.contains_key("payload")
                        && valid_field(OptionalName(MAX_DEDUPE_KEY_LEN), fields.get("dedupeKey"))
                        && match fields.get("maxAttempts") {
                            None | Some(Value::Null) => true,
                            Some(n) => n
                                .as_u64()
                                .is_some_and(|n| (1..=u64::from(MAX_ATTEMPTS)).contains(&n)),
                        }
                        && !has_duplicate_keys(&serde_json::to_vec(item).unwrap())
                })
        }),
    }
}

/// The top-level keys of a JSON object in the order written, duplicates kept.
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Keys, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = Keys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        deserializer.deserialize_map(KeysVisitor)
    }
}

fn has_duplicate_keys(json: &[u8]) -> bool {
    match serde_json::from_slice::<Keys>(json) {
        Ok(Keys(keys)) => {
            let mut seen = HashSet::new();
            !keys.iter().all(|k| seen.insert(k))
        }
        Err(_) => false,
    }
}

/// Whether `body` is a valid request for a route with `spec`.
fn valid_request(spec: &[(&str, Field)], body: &[u8]) -> bool {
    let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    !has_duplicate_keys(body)
        && fields
            .keys()
            .all(|k| spec.iter().any(|(name, _)| name == k))
        && spec
            .iter()
            .all(|&(name, field)| valid_field(field, fields.get(name)))
}

/// A reply that is not `200` must be `{"error": {"code", "message"}}` with a known code whose
/// status it has. Returns the code.
fn check_error(status: u16, reply: &Value, what: &str) -> ErrorCode {
    let code = reply["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: {status} without an error code: {reply}"));
    assert!(
        reply["error"]["message"].is_string(),
        "{what}: {status} without a message: {reply}"
    );
    let known = ErrorCode::parse(code).unwrap_or_else(|| panic!("{what}: unknown code {code}"));
    assert_eq!(
        known.http_status(),
        status,
        "{what}: {code} with status {status}"
    );
    known
}

/// A grantor in this process, on an SQLite file in a scratch directory of its own.
struct Grantor {
    runtime: tokio::runtime::Runtime,
    router: Router,
}

/// Where this process keeps its database: in memory-backed `/dev/shm` where there is one, so
/// that commits cost no disk writes. Named by process id; directories of processes that are gone
/// are removed first, since a fuzzer process ends without running destructors.
fn scratch_dir() -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    if let Ok(entries) = std::fs::read_dir(&base) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix("tenure-fuzz-") {
                if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
    }
    let dir = base.join(format!("tenure-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Removes this process's scratch directory; the stable runner calls it when done.
pub fn remove_scratch() {
    if let Some(dir) = SCRATCH.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

static SCRATCH: OnceLock<PathBuf> = OnceLock::new();

fn grantor() -> &'static Grantor {
    static GRANTOR: OnceLock<Grantor> = OnceLock::new();
    GRANTOR.get_or_init(|| {
        let dir = SCRATCH.get_or_init(scratch_dir);
        let config = Config::new(Storage::Sqlite(dir.join("leases.db")));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let state = runtime
            .block_on(AppState::open(&config))
            .expect("grantor state");
        Grantor {
            runtime,
            router: app(state),
        }
    })
}

impl Grantor {
    /// Sends one request from a loopback peer; resolves the status and the JSON reply.
    fn call(
        &self,
        method: Method,
        uri: Uri,
        content_type: Option<&str>,
        body: &[u8],
    ) -> (u16, Value) {
        let mut request = Request::builder().method(method).uri(uri);
        if let Some(content_type) = content_type {
            request = request.header(header::CONTENT_TYPE, content_type);
        }
        let mut request = request.body(Body::from(body.to_vec())).expect("request");
        request
            .extensions_mut()
            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 40000))));
        self.runtime.block_on(async {
            let response = self
                .router
                .clone()
                .oneshot(request)
                .await
                .expect("infallible");
            let status = response.status().as_u16();
            let bytes = to_bytes(response.into_body(), 1 << 20)
                .await
                .expect("reply body");
            let reply = serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("{status}: reply is not JSON ({e}): {bytes:?}"));
            (status, reply)
        })
    }
}

/// The first byte picks the route (low 4 bits) and the content type (next 2 bits); the rest is
/// the body.
pub fn grantor_request(data: &[u8]) -> String {
    let Some((&selector, body)) = data.split_first() else {
        return "empty".to_owned();
    };
    let (path, spec) = ROUTES[usize::from(selector & 0x0f) % ROUTES.len()];
    let content_type = CONTENT_TYPES[usize::from(selector >> 4) % CONTENT_TYPES.len()];
    let (status, reply) = grantor().call(Method::POST, Uri::from_static(path), content_type, body);
    let what = format!("{path} {:?}", String::from_utf8_lossy(body));
    if status == 200 {
        assert!(
            content_type.is_none_or(|t| t.contains("json")),
            "{what}: accepted as {content_type:?}"
        );
        assert!(
            valid_request(spec, body),
            "{what}: an invalid request was accepted: {reply}"
        );
        assert!(reply.is_object(), "{what}: {reply}");
        return format!("{path} 200");
    }
    let code = check_error(status, &reply, &what);
    if valid_request(spec, body) && content_type.is_none_or(|t| t.contains("json")) {
        // A valid request may be refused only for the state it meets, never as malformed.
        assert!(
            ![400, 413, 415].contains(&status),
            "{what}: a valid request was refused as {code}"
        );
    }
    format!("{path} {code}")
}

/// Decodes `application/x-www-form-urlencoded` pairs to bytes, skipping empty pairs; a `%` not
/// followed by two hex digits stands for itself.
fn form_pairs(query: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    fn hex(byte: u8) -> Option<u8> {
        (byte as char).to_digit(16).map(|d| d as u8)
    }
    fn decode(part: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(part.len());
        let mut i = 0;
        while i < part.len() {
            let escaped = match part.get(i..i + 3) {
                Some([b'%', high, low]) => hex(*high).zip(hex(*low)).map(|(h, l)| h * 16 + l),
                _ => None,
            };
            match (escaped, part[i]) {
                (Some(byte), _) => {
                    out.push(byte);
                    i += 3;
                }
                (None, b'+') => {
                    out.push(b' ');
                    i += 1;
                }
                (None, byte) => {
                    out.push(byte);
                    i += 1;
                }
            }
        }
        out
    }
    query
        .split(|&b| b == b'&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.iter().position(|&b| b == b'=') {
            Some(eq) => (decode(&pair[..eq]), decode(&pair[eq + 1..])),
            None => (decode(pair), Vec::new()),
        })
        .collect()
}

/// The input is the query string of `GET /v1/status`.
pub fn status_query(data: &[u8]) -> String {
    let mut text = b"/v1/status?".to_vec();
    text.extend_from_slice(data);
    let Ok(uri) = Uri::try_from(text) else {
        return "not a URI".to_owned();
    };
    let query = uri.query().unwrap_or_default().as_bytes().to_vec();
    let (status, reply) = grantor().call(Method::GET, uri, None, b"");
    let what = format!("GET /v1/status?{:?}", String::from_utf8_lossy(&query));
    let pairs = form_pairs(&query);
    let valid = match pairs.as_slice() {
        [(key, value)] if key == b"resource" => std::str::from_utf8(value)
            .ok()
            .filter(|v| is_valid_name(v, MAX_RESOURCE_LEN))
            .map(str::to_owned),
        _ => None,
    };
    if status == 200 {
        let resource =
            valid.unwrap_or_else(|| panic!("{what}: an invalid query was accepted: {reply}"));
        assert_eq!(
            reply["resource"].as_str(),
            Some(resource.as_str()),
            "{what}"
        );
        return "200".to_owned();
    }
    let code = check_error(status, &reply, &what);
    assert!(
        valid.is_none() || status != 400,
        "{what}: a valid query was refused as {code}"
    );
    code.to_string()
}
