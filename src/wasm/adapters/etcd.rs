//! `EtcdGrantorCore`: leases kept in etcd v3, through its JSON gateway (`/v3/...`). The package's
//! `EtcdGrantor` class wraps it.
//!
//! A grant is an etcd lease plus a key created under it (`<keyPrefix><resource>`, value = the
//! holder id) by a transaction that succeeds only while the key does not exist. The fencing token
//! is the key's `create_revision`: etcd's store revision is one counter for the whole cluster that
//! only grows, so each new grant of a resource gets a larger one, across holders and restarts.
//! Renewal is a keepalive of the lease; release deletes the key only if it is still the one this
//! grant created, then revokes the lease. The gateway sends 64-bit integers as decimal strings and
//! keys and values as base64: both are read strictly, and anything unexpected is a
//! `malformed_reply`, never a grant.
//!
//! Given several members (`endpoints`), each request goes to one of them by the failover rules of
//! [`crate::adapters::failover`]: requests stay on a member that answers, a member that fails is
//! tried after the others for a while, and a request goes on to the next member only when sending
//! it twice cannot change the answer. The grant's create-if-absent and the release's delete are
//! sent once: when one fails unanswered, the call fails retryably, and the holder's retry (a new
//! grant, which treats a key naming this holder as its own grant) goes to the next member.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Promise;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::{
    check_duration_ms, check_text_name, check_token, endpoints, join, key_prefix, token_option,
};
use super::{Recent, MAX_REPLY_BYTES};
use crate::adapters::etcd::{
    denial_wait_ms, has_null, watch_lost, watch_start, MAX_TTL_SECONDS, WATCH_WINDOW_MS,
};
use crate::adapters::failover::{Effect, Failover};
use crate::adapters::whole_seconds;
use crate::core::{FailureKind, HolderView, Micros, WatchConfig};
use crate::protocol::{GrantReply, ReleaseReply, RenewRefusal, RenewReply, Token, MAX_TOKEN};
use crate::wasm::bounded::BoundedMap;
use crate::wasm::error::get;
use crate::wasm::fetch::{
    caller_signal, decimal, grantor_error, is_plain_object, json_text, lenient_json, malformed,
    pair_key, promise, reply_value, status_failure, strict_json, text_of, Detail, Endpoint, Reply,
};
use crate::wasm::js::performance_now;
use crate::wasm::reply::failure_from_error;
use crate::wasm::value::from_js;
use crate::wasm::watch::{Feed, Fetching, ObservationCore, Sink};

/// Lease IDs remembered for renewals; beyond this the oldest are forgotten and looked up again.
const MAX_TRACKED: usize = 1024;
/// The gRPC code etcd answers for a lease it does not know.
const GRPC_NOT_FOUND: i64 = 5;

/// The failure kind of gRPC codes whose meaning does not depend on the HTTP status a gateway
/// build maps them to.
fn grpc_kind(code: i64) -> Option<FailureKind> {
    match code {
        // DeadlineExceeded, Aborted, Internal, Unavailable (no leader, stopping, ...).
        4 | 10 | 13 | 14 => Some(FailureKind::Server),
        // ResourceExhausted: etcd's "too many requests".
        8 => Some(FailureKind::RateLimited),
        _ => None,
    }
}

/// `POST /v3/lease/grant`.
#[derive(Serialize)]
struct LeaseGrantRequest {
    #[serde(rename = "TTL")]
    ttl: String,
}

/// A lease ID, for keepalive, revoke and timetolive.
#[derive(Serialize)]
struct LeaseRequest<'a> {
    #[serde(rename = "ID")]
    id: &'a str,
}

/// A lease's ID and TTL, as grant, keepalive and timetolive answer them.
#[derive(Deserialize)]
struct LeaseReply {
    #[serde(rename = "ID")]
    id: Option<String>,
    #[serde(rename = "TTL")]
    ttl: Option<String>,
}

/// `POST /v3/kv/txn`.
#[derive(Serialize)]
struct TxnRequest<'a> {
    compare: Vec<Compare<'a>>,
    success: Vec<Op<'a>>,
    failure: Vec<Op<'a>>,
}

/// One comparison of a txn: the key's `target` equals the value given.
#[derive(Serialize)]
struct Compare<'a> {
    key: &'a str,
    target: &'static str,
    result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    create_revision: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lease: Option<&'a str>,
}

impl<'a> Compare<'a> {
    fn equal(key: &'a str, target: &'static str) -> Compare<'a> {
        Compare {
            key,
            target,
            result: "EQUAL",
            create_revision: None,
            value: None,
            lease: None,
        }
    }
}

/// One operation of a txn, as `{"request_put": {...}}` and so on.
#[derive(Serialize)]
enum Op<'a> {
    #[serde(rename = "request_put")]
    Put {
        key: &'a str,
        value: &'a str,
        lease: &'a str,
    },
    #[serde(rename = "request_range")]
    Range { key: &'a str },
    #[serde(rename = "request_delete_range")]
    DeleteRange { key: &'a str },
}

/// A txn's reply: etcd omits `succeeded` when false.
#[derive(Deserialize)]
struct TxnReply {
    succeeded: Option<bool>,
    responses: Option<Vec<TxnResponse>>,
}

#[derive(Deserialize)]
struct TxnResponse {
    response_range: Option<RangeReply>,
}

/// A range's reply (also `/v3/kv/range`'s): etcd omits an empty `kvs`.
#[derive(Deserialize)]
struct RangeReply {
    kvs: Option<Vec<Kv>>,
}

/// A key and what it holds; etcd omits empty fields.
#[derive(Deserialize)]
struct Kv {
    key: Option<String>,
    value: Option<String>,
    create_revision: Option<String>,
    lease: Option<String>,
}

/// One line of the keepalive stream: a result or an error.
#[derive(Deserialize)]
struct KeepAliveLine {
    result: Option<LeaseReply>,
}

/// A grantor keeping leases in etcd v3 through its JSON gateway.
#[wasm_bindgen]
pub struct EtcdGrantorCore {
    inner: Rc<Inner>,
}

struct Inner {
    /// The cluster's members (one for `baseUrl`), in the order given.
    members: Vec<Endpoint>,
    /// Which member each request goes to.
    failover: RefCell<Failover>,
    prefix: String,
    /// `(resource, holder, token)` → the etcd lease ID of that grant.
    leases: RefCell<BoundedMap<(String, String, u64), String>>,
    recent: Recent,
}

/// A 64-bit integer as the gateway sends it: a canonical decimal string (no sign on zero, no
/// leading zeros, no spaces, no exponent). A field etcd omits is its default, `absent`.
fn int64(
    what: &str,
    field: &str,
    value: Option<&str>,
    absent: Option<i64>,
) -> Result<i64, JsValue> {
    let bad = |problem: &str| malformed(what, &[field, problem].concat(), None);
    let Some(text) = value else {
        return absent.ok_or_else(|| bad(" is not a decimal integer string"));
    };
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let canonical = !digits.is_empty()
        && digits.len() <= 19
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" && !negative || !digits.starts_with('0'));
    if !canonical {
        return Err(bad(" is not a decimal integer string"));
    }
    // Up to 19 digits fit in an i128 with room; outside i64 is out of range.
    let magnitude = digits
        .bytes()
        .fold(0i128, |n, d| n * 10 + i128::from(d - b'0'));
    let number = if negative { -magnitude } else { magnitude };
    i64::try_from(number).map_err(|_| bad(" is out of the 64-bit range"))
}

/// A fencing token: a create revision in 1 ..= 2^53 - 1, so it is exact as a number.
fn revision(what: &str, value: Option<&str>) -> Result<u64, JsValue> {
    let number = int64(what, "create_revision", value, None)?;
    match u64::try_from(number) {
        Ok(token) if (1..=MAX_TOKEN).contains(&token) => Ok(token),
        _ => {
            let problem = [
                "create_revision ",
                value.unwrap_or(""),
                " is not a token in 1..2^53-1",
            ];
            Err(malformed(what, &problem.concat(), None))
        }
    }
}

/// A lease ID, kept as its decimal string: IDs use all 63 bits, beyond a number's precision.
/// `None` for an optional ID that is absent or 0 (no lease).
fn lease_id(what: &str, value: Option<&str>, optional: bool) -> Result<Option<String>, JsValue> {
    let number = int64(what, "lease ID", value, optional.then_some(0))?;
    if number < 0 || (number == 0 && !optional) {
        let problem = ["lease ID ", value.unwrap_or(""), " is not positive"];
        return Err(malformed(what, &problem.concat(), None));
    }
    Ok((number != 0).then(|| value.unwrap_or_default().to_owned()))
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 of a string's UTF-8 bytes.
fn to_base64(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(BASE64[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64, strictly (padded, no spaces), to its bytes; `None` for anything else.
pub(super) fn from_base64(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    if b.len() % 4 != 0 {
        return None;
    }
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (index, chunk) in b.chunks(4).enumerate() {
        let last = index + 1 == b.len() / 4;
        let padding = if last { pad } else { 0 };
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let value = if i >= 4 - padding {
                0
            } else {
                BASE64.iter().position(|&d| d == c)? as u32
            };
            n = n << 6 | value;
        }
        out.extend_from_slice(&n.to_be_bytes()[1..4 - padding]);
    }
    Some(out)
}

/// Decodes a base64 field holding UTF-8 text; etcd omits empty bytes fields.
fn text_field(what: &str, field: &str, value: Option<&str>) -> Result<String, JsValue> {
    let Some(value) = value else {
        return Ok(String::new());
    };
    let bytes = from_base64(value)
        .ok_or_else(|| malformed(what, &[field, " is not base64"].concat(), None))?;
    String::from_utf8(bytes).map_err(|_| malformed(what, &[field, " is not UTF-8"].concat(), None))
}

/// The key/value of the range at `responses[index]` of a txn, checked to be `key`; `None` when
/// the range found nothing.
fn ranged_kv(
    what: &str,
    responses: &[TxnResponse],
    index: usize,
    key: &str,
) -> Result<Option<Kv>, JsValue> {
    let response = responses
        .get(index)
        .ok_or_else(|| malformed(what, "a txn response is missing", None))?;
    let range = response
        .response_range
        .as_ref()
        .ok_or_else(|| malformed(what, "a range response is missing", None))?;
    only_kv(what, range, key)
}

/// The one key/value of a range, checked to be `key`; `None` when it found nothing.
fn only_kv(what: &str, range: &RangeReply, key: &str) -> Result<Option<Kv>, JsValue> {
    let kvs = match &range.kvs {
        None => return Ok(None),
        Some(kvs) if kvs.is_empty() => return Ok(None),
        Some(kvs) => kvs,
    };
    let [kv] = kvs.as_slice() else {
        return Err(malformed(what, "kvs is not a list of one key", None));
    };
    if kv.key.as_deref() != Some(key) {
        return Err(malformed(what, "the range returned another key", None));
    }
    Ok(Some(Kv {
        key: kv.key.clone(),
        value: kv.value.clone(),
        create_revision: kv.create_revision.clone(),
        lease: kv.lease.clone(),
    }))
}

/// A TTL etcd answered, in 1 ..= etcd's longest lease.
fn granted_ttl(what: &str, value: Option<&str>) -> Result<i64, JsValue> {
    let ttl = int64(what, "TTL", value, None)?;
    if ttl <= 0 || ttl > MAX_TTL_SECONDS {
        return Err(malformed(
            what,
            &["TTL ", value.unwrap_or("")].concat(),
            None,
        ));
    }
    Ok(ttl)
}

impl Inner {
    /// One gateway request, to the members in the order failover gives. `failed` tells a member's
    /// reply that is a failure (its typed error) from one to read; a failure goes on to the next
    /// member only as the failover rules say ([`Failover::failed`]: a failure blaming the member,
    /// of a request that may be sent twice, while the caller still waits). Resolves the reply to
    /// read, else fails with the last failure.
    async fn send(
        &self,
        path: &str,
        text: &str,
        signal: &JsValue,
        effect: Effect,
        failed: &dyn Fn(&Reply) -> Option<JsValue>,
    ) -> Result<Reply, JsValue> {
        let order = self.failover.borrow().order(now_ms());
        let mut last = JsValue::UNDEFINED;
        for index in order {
            let Some(member) = self.members.get(index) else {
                break;
            };
            let reply = member
                .request_to("POST", path, Some(text), signal, MAX_REPLY_BYTES)
                .await;
            let error = match reply {
                Ok(reply) => match failed(&reply) {
                    None => {
                        self.failover.borrow_mut().answered(index);
                        return Ok(reply);
                    }
                    Some(error) => error,
                },
                Err(error) => error,
            };
            let kind = failure_from_error(&error).kind;
            let gave_up = caller_signal(signal)
                .ok()
                .flatten()
                .is_some_and(|signal| signal.aborted());
            last = error;
            let next = self
                .failover
                .borrow_mut()
                .failed(index, kind, effect, gave_up, now_ms());
            if !next {
                break;
            }
        }
        Err(last)
    }

    /// One gateway call; resolves the reply object of a 2xx as `T`, else fails with the typed
    /// failure.
    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        path: &str,
        body: &impl Serialize,
        signal: &JsValue,
        effect: Effect,
    ) -> Result<T, JsValue> {
        let failed = |reply: &Reply| (!reply.ok()).then(|| failure(what, reply));
        let text = json_text(body)?;
        let reply = self.send(path, &text, signal, effect, &failed).await?;
        let value = parsed(what, &reply.text, reply.status)?;
        from_js(&value).map_err(|_| {
            let problem = [path, " reply is not an object of the expected shape"];
            malformed(what, &problem.concat(), None)
        })
    }

    fn track(&self, resource: &str, holder: &str, token: u64, lease: String) {
        let key = (resource.to_owned(), holder.to_owned(), token);
        self.leases.borrow_mut().set(key, lease);
    }

    /// `/v3/lease/keepalive`: the lease's TTL in seconds after the keepalive, 0 when it is gone.
    /// Repeatable: a second keepalive extends the lease from a later moment, and the holder counts
    /// its lease from before the first.
    async fn keep_alive(&self, lease: &str, signal: &JsValue) -> Result<i64, JsValue> {
        let body = json_text(&LeaseRequest { id: lease })?;
        let failed = |reply: &Reply| keep_alive_error(reply);
        let reply = self
            .send(
                "/v3/lease/keepalive",
                &body,
                signal,
                Effect::Repeatable,
                &failed,
            )
            .await?;
        keep_alive_ttl(lease, &reply)
    }

    /// `/v3/lease/timetolive`: whole seconds left (truncated), -1 when the lease is gone.
    async fn time_to_live(&self, lease: &str, signal: &JsValue) -> Result<i64, JsValue> {
        let what = "grant";
        let path = "/v3/lease/timetolive";
        let body = LeaseRequest { id: lease };
        let reply: LeaseReply = self
            .call(what, path, &body, signal, Effect::Repeatable)
            .await?;
        let ttl = int64(what, "TTL", reply.ttl.as_deref(), Some(0))?;
        if !(-1..=MAX_TTL_SECONDS).contains(&ttl) {
            let ttl = reply.ttl.unwrap_or_default();
            return Err(malformed(what, &["TTL ", &ttl].concat(), None));
        }
        Ok(ttl)
    }

    /// `/v3/lease/revoke`: true if revoked, false if etcd no longer knew the lease (so a repeat
    /// of one that took effect answers false, which no caller reads as anything but "gone").
    async fn revoke(&self, lease: &str, signal: &JsValue) -> Result<bool, JsValue> {
        let failed = |reply: &Reply| {
            if reply.ok() {
                return None;
            }
            let failure = failure("revoke", reply);
            let code = get(&failure, "grantorCode").as_string();
            (code != Some(decimal(GRPC_NOT_FOUND as u64))).then_some(failure)
        };
        let body = json_text(&LeaseRequest { id: lease })?;
        let reply = self
            .send(
                "/v3/lease/revoke",
                &body,
                signal,
                Effect::Repeatable,
                &failed,
            )
            .await?;
        Ok(reply.ok())
    }
}

/// Now, in whole ms of `performance.now()`, for the failover rules (a reading that is not a
/// number counts as 0: avoidances then last their full time from the next good reading).
fn now_ms() -> u64 {
    performance_now() as u64
}

/// The failure a keepalive's reply stands for: a non-2xx status, or the `{"error": ...}` line the
/// gateway streams with a 200. `None` for a reply to read (which may still be malformed).
fn keep_alive_error(reply: &Reply) -> Option<JsValue> {
    let what = "renew";
    if !reply.ok() {
        return Some(failure(what, reply));
    }
    // The gateway answers a stream: one `{"result": ...}` (or `{"error": ...}`) line per request
    // object in the body. One object, one line.
    // A line that does not read strictly is left to `keep_alive_ttl`, which refuses it.
    let message = parsed(what, first_line(&reply.text), reply.status).ok()?;
    let error = get(&message, "error");
    if !is_plain_object(&message) || error.is_undefined() {
        return None;
    }
    let error = if is_plain_object(&error) {
        error
    } else {
        JsValue::UNDEFINED
    };
    let status = integer(&get(&error, "http_code")).unwrap_or(500);
    let status = u16::try_from(status).unwrap_or(500);
    Some(failure_of(
        what,
        status,
        None,
        &get(&error, "grpc_code"),
        &get(&error, "message"),
    ))
}

/// The first non-blank line of a streamed reply.
fn first_line(text: &str) -> &str {
    let line = text.split('\n').find(|part| !part.trim().is_empty());
    line.unwrap_or("")
}

/// A keepalive's reply that is no failure ([`keep_alive_error`], which took every `error` line),
/// read strictly: the lease's TTL in seconds, 0 when it is gone.
fn keep_alive_ttl(lease: &str, reply: &Reply) -> Result<i64, JsValue> {
    let what = "renew";
    let message = parsed(what, first_line(&reply.text), reply.status)?;
    if !is_plain_object(&message) {
        return Err(malformed(what, "keepalive reply is not an object", None));
    }
    let line: KeepAliveLine = from_js(&message)
        .map_err(|_| malformed(what, "keepalive reply is not of the expected shape", None))?;
    let result = line
        .result
        .ok_or_else(|| malformed(what, "keepalive reply has no result", None))?;
    if lease_id(what, result.id.as_deref(), false)?.as_deref() != Some(lease) {
        return Err(malformed(
            what,
            "keepalive answered for another lease",
            None,
        ));
    }
    let ttl = int64(what, "TTL", result.ttl.as_deref(), Some(0))?;
    if ttl > MAX_TTL_SECONDS {
        let ttl = result.ttl.unwrap_or_default();
        return Err(malformed(what, &["TTL ", &ttl].concat(), None));
    }
    Ok(ttl.max(0))
}

/// A reply's JSON text, read strictly; anything else is a `malformed_reply`.
fn parsed(what: &str, text: &str, status: u16) -> Result<JsValue, JsValue> {
    let value =
        strict_json(text).ok_or_else(|| malformed(what, "reply is not JSON", Some(status)))?;
    if has_null(text) {
        return Err(malformed(
            what,
            "reply has a null, which etcd never sends",
            Some(status),
        ));
    }
    Ok(value)
}

/// A JSON number that is an integer (of any size, as JavaScript's `Number.isInteger`).
fn integer(value: &JsValue) -> Option<i64> {
    value
        .as_f64()
        .filter(|n| n.is_finite() && n.fract() == 0.0)
        .map(|n| n as i64)
}

/// The failure of a non-2xx gateway reply, `{error, message, code}` (3.4, 3.5) or `{code,
/// message}` (3.6). The HTTP status a gRPC code maps to differs between builds, so codes with a
/// clear meaning decide the kind.
fn failure(what: &str, reply: &Reply) -> JsValue {
    let body = lenient_json(&reply.text);
    let text = match get(&body, "message") {
        message if !message.is_undefined() && !message.is_null() => message,
        _ => get(&body, "error"),
    };
    failure_of(
        what,
        reply.status,
        reply.retry_after().as_deref(),
        &get(&body, "code"),
        &text,
    )
}

fn failure_of(
    what: &str,
    status: u16,
    retry_after: Option<&str>,
    code: &JsValue,
    text: &JsValue,
) -> JsValue {
    let code = integer(code);
    let code_text = code.map(|code| {
        let digits = decimal(code.unsigned_abs());
        if code < 0 {
            ["-", &digits].concat()
        } else {
            digits
        }
    });
    let message = text.as_string();
    let kind = code.and_then(grpc_kind);
    status_failure(
        what,
        status,
        retry_after,
        code_text.as_deref(),
        message.as_deref(),
        kind,
    )
}

#[wasm_bindgen]
impl EtcdGrantorCore {
    /// Validates the options (errors name the option): `baseUrl` or `endpoints`, `token`,
    /// `headers`, `timeoutMs`, `keyPrefix`, `credentials`, `fetch`.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(options: JsValue) -> Result<EtcdGrantorCore, JsValue> {
        let prefix = key_prefix(&options, "tenure/leases/")?;
        // The gateway wants the token itself: with a "Bearer " prefix etcd answers 401.
        let auth = token_option(&options)?.map(|token| ("authorization", token));
        let members = endpoints(&options, auth)?;
        Ok(EtcdGrantorCore {
            inner: Rc::new(Inner {
                failover: RefCell::new(Failover::new(members.len())),
                members,
                prefix,
                leases: RefCell::new(BoundedMap::new(MAX_TRACKED)),
                recent: Recent::default(),
            }),
        })
    }

    /// The first member's client URL.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        let first = self.inner.members.first();
        first.map_or("", |member| member.base_url()).to_owned()
    }

    /// Every member's client URL, in the order given.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn endpoints(&self) -> js_sys::Array {
        let urls = self.inner.members.iter();
        urls.map(|member| JsValue::from_str(member.base_url()))
            .collect()
    }

    /// The etcd key holding `resource`'s grant.
    #[wasm_bindgen(skip_jsdoc, js_name = keyOf)]
    pub fn key_of(&self, resource: JsValue) -> String {
        [
            self.inner.prefix.as_str(),
            &text_of(&resource).unwrap_or_default(),
        ]
        .concat()
    }

    /// Grants a new lease (`/v3/lease/grant`) and creates the resource's key under it if the key
    /// does not exist (`/v3/kv/txn`).
    #[wasm_bindgen(skip_jsdoc)]
    pub fn grant(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { grant(&inner, &args).await })
    }

    /// Keeps the grant's lease alive (`/v3/lease/keepalive`), then checks that the resource's key
    /// is still the one this grant created, under this lease.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn renew(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { renew(&inner, &args).await })
    }

    /// Deletes the resource's key if it is still the one this grant created, then revokes the
    /// grant's lease.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn release(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { release(&inner, &args).await })
    }
}

async fn grant(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let resource = check_text_name("resource", &get(args, "resource"))?;
    let holder = check_text_name("holder", &get(args, "holder"))?;
    let signal = get(args, "signal");
    let what = "grant";
    // Whole seconds, well within etcd's longest lease for the protocol's longest duration.
    let ttl = whole_seconds(check_duration_ms(&get(args, "durationMs"))?);
    let key = to_base64(&[inner.prefix.as_str(), &resource].concat());
    let request = LeaseGrantRequest { ttl: decimal(ttl) };
    // Repeatable: a lease granted by a try whose reply was lost holds no key, and only lingers
    // until its TTL.
    let granted: LeaseReply = inner
        .call(
            what,
            "/v3/lease/grant",
            &request,
            &signal,
            Effect::Repeatable,
        )
        .await?;
    let Some(lease) = lease_id(what, granted.id.as_deref(), false)? else {
        return Err(malformed(what, "lease ID is missing", None));
    };
    let granted_ttl = granted_ttl(what, granted.ttl.as_deref())?;

    // If this request's reply is lost after the commit, the lease keeps the key alive for its
    // TTL and a retry finds the key naming this holder (below). Revoking here instead could race
    // that retry and delete a key the holder was just told it holds.
    let mut create = Compare::equal(&key, "CREATE");
    create.create_revision = Some("0".into());
    let value = to_base64(&holder);
    let txn = TxnRequest {
        compare: vec![create],
        success: vec![
            Op::Put {
                key: &key,
                value: &value,
                lease: &lease,
            },
            Op::Range { key: &key },
        ],
        failure: vec![Op::Range { key: &key }],
    };
    // Sent once: a repeat after this one took effect unseen would find the key this one made and
    // revoke the lease it lives on (below). The call fails instead, and the holder's own retry, a
    // new grant, finds the key naming it and answers that grant.
    let txn: TxnReply = inner
        .call(what, "/v3/kv/txn", &txn, &signal, Effect::Once)
        .await?;
    let responses = txn.responses.unwrap_or_default();
    if txn.succeeded == Some(true) {
        let Some(kv) = ranged_kv(what, &responses, 1, &key)? else {
            return Err(malformed(what, "the created key is missing", None));
        };
        let ours = text_field(what, "value", kv.value.as_deref())? == holder;
        if !ours || lease_id(what, kv.lease.as_deref(), true)?.as_deref() != Some(lease.as_str()) {
            return Err(malformed(
                what,
                "the created key does not hold this grant",
                None,
            ));
        }
        let token = revision(what, kv.create_revision.as_deref())?;
        inner.track(&resource, &holder, token, lease);
        return granted_reply(token, granted_ttl as u64 * 1000);
    }

    // Held already. The lease just made is not needed: revoke it so it does not linger for its
    // TTL, and ask how long the current grant has left. Neither is needed for a denial, so their
    // failures only leave the lease to expire and the denial without a hint.
    let Some(kv) = ranged_kv(what, &responses, 0, &key)? else {
        return Err(malformed(
            what,
            "the txn failed but the key is missing",
            None,
        ));
    };
    let current = text_field(what, "value", kv.value.as_deref())?;
    let current_lease = lease_id(what, kv.lease.as_deref(), true)?;
    let revoked = inner.revoke(&lease, &signal);
    let left = async {
        match &current_lease {
            Some(current) => inner.time_to_live(current, &signal).await.ok(),
            None => None,
        }
    };
    let (_, left) = join(revoked, left).await;
    if let (true, Some(current_lease), Some(left)) = (current == holder, current_lease, left) {
        if left > 0 {
            // A retry of a grant whose reply was lost: the same grant. The holder's clock starts
            // at this retry's send, so it may only believe what the lease has left now (etcd
            // truncates to whole seconds, which errs on the short side), never a fresh TTL.
            let token = revision(what, kv.create_revision.as_deref())?;
            inner.track(&resource, &holder, token, current_lease);
            return granted_reply(token, left as u64 * 1000);
        }
    }
    let denial = GrantReply {
        granted: false,
        token: None,
        duration_ms: None,
        holder: Some(current),
        expires_in_ms: left.map(denial_wait_ms),
    };
    reply_value(&denial)
}

fn granted_reply(token: u64, duration_ms: u64) -> Result<JsValue, JsValue> {
    let token = Token::new(token).map_err(|_| JsValue::UNDEFINED)?;
    reply_value(&GrantReply::granted(token, duration_ms))
}

async fn renew(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let resource = check_text_name("resource", &get(args, "resource"))?;
    let holder = check_text_name("holder", &get(args, "holder"))?;
    let token = check_token(&get(args, "token"))?;
    let signal = get(args, "signal");
    let started = performance_now();
    let what = "renew";
    let key = to_base64(&[inner.prefix.as_str(), &resource].concat());
    let id = (resource.clone(), holder.clone(), token);
    let tracked = inner.leases.borrow().get(&id).cloned();
    let refused = |reason| reply_value(&RenewReply::refused(reason));
    let lease = match tracked {
        Some(lease) => lease,
        None => {
            // Granted through another instance, or forgotten: the key says which lease it lives
            // on.
            let body = RangeRequest { key: &key };
            let found: RangeReply = inner
                .call(what, "/v3/kv/range", &body, &signal, Effect::Repeatable)
                .await?;
            let Some(kv) = only_kv(what, &found, &key)? else {
                return refused(RenewRefusal::Expired);
            };
            let mine = text_field(what, "value", kv.value.as_deref())? == holder
                && revision(what, kv.create_revision.as_deref())? == token;
            let lease = lease_id(what, kv.lease.as_deref(), true)?;
            let (true, Some(lease)) = (mine, lease) else {
                return refused(RenewRefusal::NotHolder);
            };
            inner.track(&resource, &holder, token, lease.clone());
            lease
        }
    };

    let ttl = inner.keep_alive(&lease, &signal).await?;
    if ttl <= 0 {
        inner.leases.borrow_mut().remove(&id);
        return refused(RenewRefusal::Expired);
    }
    // A live lease is not enough: the key may have been deleted (or replaced) by someone else
    // while the lease lived on, and a renewal must not vouch for a grant that no longer exists.
    // Checked after the keepalive, so what it finds is the state the extension applies to.
    let value = to_base64(&holder);
    let mut created = Compare::equal(&key, "CREATE");
    created.create_revision = Some(decimal(token));
    let mut holds = Compare::equal(&key, "VALUE");
    holds.value = Some(&value);
    let mut on_lease = Compare::equal(&key, "LEASE");
    on_lease.lease = Some(&lease);
    let txn = TxnRequest {
        compare: vec![created, holds, on_lease],
        success: Vec::new(),
        failure: vec![Op::Range { key: &key }],
    };
    // Compares and reads only: repeatable.
    let txn: TxnReply = inner
        .call(what, "/v3/kv/txn", &txn, &signal, Effect::Repeatable)
        .await?;
    if txn.succeeded == Some(true) {
        let ttl_ms = ttl as u64 * 1000;
        let request_id = get(args, "requestId");
        let attempt = (!request_id.is_undefined()).then(|| {
            let request_id = text_of(&request_id).unwrap_or_default();
            pair_key(&[&resource, &holder, &decimal(token), &request_id])
        });
        let duration_ms = inner.recent.promise(attempt.as_deref(), started, ttl_ms);
        let token = Token::new(token).map_err(|_| JsValue::UNDEFINED)?;
        return reply_value(&RenewReply::renewed(token, duration_ms));
    }
    inner.leases.borrow_mut().remove(&id);
    let kv = ranged_kv(what, &txn.responses.unwrap_or_default(), 0, &key)?;
    // The lease protects nothing of ours any more; revoking it cannot touch a key that lives on
    // another lease. A key still on our lease was rewritten by someone: leave it alone.
    let on_our_lease = match &kv {
        Some(kv) => lease_id(what, kv.lease.as_deref(), true)?.as_deref() == Some(lease.as_str()),
        None => false,
    };
    if !on_our_lease {
        let _ = inner.revoke(&lease, &signal).await;
    }
    refused(RenewRefusal::NotHolder)
}

/// `POST /v3/kv/range`.
#[derive(Serialize)]
struct RangeRequest<'a> {
    key: &'a str,
}

async fn release(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let resource = check_text_name("resource", &get(args, "resource"))?;
    let holder = check_text_name("holder", &get(args, "holder"))?;
    let token = check_token(&get(args, "token"))?;
    let signal = get(args, "signal");
    let what = "release";
    let key = to_base64(&[inner.prefix.as_str(), &resource].concat());
    let value = to_base64(&holder);
    let mut created = Compare::equal(&key, "CREATE");
    created.create_revision = Some(decimal(token));
    let mut holds = Compare::equal(&key, "VALUE");
    holds.value = Some(&value);
    let txn = TxnRequest {
        compare: vec![created, holds],
        success: vec![Op::Range { key: &key }, Op::DeleteRange { key: &key }],
        failure: Vec::new(),
    };
    // A delete: sent once. A repeat after it took effect would answer that nothing was released.
    let txn: TxnReply = inner
        .call(what, "/v3/kv/txn", &txn, &signal, Effect::Once)
        .await?;
    let released = txn.succeeded == Some(true);
    let id = (resource, holder, token);
    let tracked = inner.leases.borrow_mut().remove(&id);
    let mut lease = tracked;
    if released {
        let kv = ranged_kv(what, &txn.responses.unwrap_or_default(), 0, &key)?;
        if let (None, Some(kv)) = (&lease, kv) {
            lease = lease_id(what, kv.lease.as_deref(), true)?;
        }
    }
    // The key is gone either way; a lease left behind only lingers until its TTL runs out.
    if let Some(lease) = lease {
        let _ = inner.revoke(&lease, &signal).await;
    }
    reply_value(&ReleaseReply { released })
}

// observe(): the watch API. Kept apart from the rest of this file: only `observe` below and
// its feed.

/// The string field `field` of `object`: `None` when etcd omitted it, a `malformed_reply` when
/// it is anything but a string.
fn string_field(what: &str, object: &JsValue, field: &str) -> Result<Option<String>, JsValue> {
    match get(object, field) {
        value if value.is_undefined() => Ok(None),
        value => value
            .as_string()
            .map(Some)
            .ok_or_else(|| malformed(what, &[field, " is not a string"].concat(), None)),
    }
}

/// A key as a watch or a range sends it: its key (base64), and the state it stands for at
/// revision `version` ([`kv_view`]).
fn watched_kv(what: &str, kv: &JsValue, key: &str, version: u64) -> Result<HolderView, JsValue> {
    if !is_plain_object(kv) || string_field(what, kv, "key")?.as_deref() != Some(key) {
        return Err(malformed(what, "an entry is about another key", None));
    }
    let holder = text_field(what, "value", string_field(what, kv, "value")?.as_deref())?;
    let token = revision(what, string_field(what, kv, "create_revision")?.as_deref())?;
    Ok(HolderView {
        version,
        holder: Some(holder),
        token: Some(token),
        expires_in_ms: None,
        handed_to: None,
    })
}

/// The state where nobody holds the key, at revision `version`.
fn free_view(version: u64) -> HolderView {
    HolderView {
        version,
        holder: None,
        token: None,
        expires_in_ms: None,
        handed_to: None,
    }
}

/// The elements of the list field `field` of `object`, none when etcd omitted it.
fn list_field(what: &str, object: &JsValue, field: &str) -> Result<js_sys::Array, JsValue> {
    match get(object, field) {
        value if value.is_undefined() => Ok(js_sys::Array::new()),
        value if js_sys::Array::is_array(&value) => Ok(value.unchecked_into()),
        _ => Err(malformed(what, &[field, " is not a list"].concat(), None)),
    }
}

/// `POST /v3/watch`'s request: watch one key from a revision.
#[derive(Serialize)]
struct WatchRequest<'a> {
    create_request: WatchCreate<'a>,
}

#[derive(Serialize)]
struct WatchCreate<'a> {
    key: &'a str,
    start_revision: String,
}

/// The resource's key watched: a fetch after a version streams `/v3/watch` from the next
/// revision ([`watch_start`]) for a window; a snapshot is a `/v3/kv/range`, at the header's
/// revision. Versions are etcd's revisions: a key's `mod_revision` (a put, or its deletion by a
/// release or the lease's expiry), which only grows across the cluster.
struct KeyWatch {
    inner: Rc<Inner>,
    /// The key, in base64.
    key: String,
}

/// A revision an observer orders by: a positive safe integer.
fn watch_revision(what: &str, field: &str, value: Option<&str>) -> Result<u64, JsValue> {
    let number = int64(what, field, value, None)?;
    u64::try_from(number)
        .ok()
        .filter(|n| (1..=MAX_TOKEN).contains(n))
        .ok_or_else(|| {
            malformed(
                what,
                &[field, " is not a revision in 1..2^53-1"].concat(),
                None,
            )
        })
}

impl KeyWatch {
    /// The current state: `/v3/kv/range` of the key, versioned by the header's revision.
    async fn snapshot(inner: &Inner, key: &str, signal: &JsValue) -> Result<HolderView, JsValue> {
        let what = "observe";
        let failed = |reply: &Reply| (!reply.ok()).then(|| failure(what, reply));
        let text = json_text(&RangeRequest { key })?;
        let reply = inner
            .send("/v3/kv/range", &text, signal, Effect::Repeatable, &failed)
            .await?;
        let value = parsed(what, &reply.text, reply.status)?;
        let header = string_field(what, &get(&value, "header"), "revision")?;
        let version = watch_revision(what, "header.revision", header.as_deref())?;
        let kvs = list_field(what, &value, "kvs")?;
        match kvs.length() {
            0 => Ok(free_view(version)),
            // The key's own last change versions its state, so a snapshot of a state already
            // reported is not news, and the watch resumes right after that change.
            1 => {
                let kv = kvs.get(0);
                let changed = string_field(what, &kv, "mod_revision")?;
                let changed = watch_revision(what, "mod_revision", changed.as_deref())?;
                watched_kv(what, &kv, key, changed.min(version))
            }
            _ => Err(malformed(
                what,
                "the range returned more than one key",
                None,
            )),
        }
    }

    /// Streams the key's events from revision `start` until the window ends.
    async fn stream(
        inner: &Inner,
        key: &str,
        start: u64,
        signal: &JsValue,
        sink: &Sink,
    ) -> Result<(), JsValue> {
        let what = "observe";
        let body = WatchRequest {
            create_request: WatchCreate {
                key,
                start_revision: decimal(start),
            },
        };
        let text = json_text(&body)?;
        let end = AbortSignal::timeout_with_f64(WATCH_WINDOW_MS as f64);
        let mut on_line = |line: &str| -> Result<(), JsValue> {
            let bad = |problem: &str| malformed(what, problem, None);
            let value = strict_json(line)
                .filter(|_| !has_null(line))
                .ok_or_else(|| bad("a watch message is not JSON of etcd's shape"))?;
            let error = get(&value, "error");
            if !error.is_undefined() {
                let message = get(&error, "message").as_string();
                let message = [
                    what,
                    ": the watch failed: ",
                    message.as_deref().unwrap_or(""),
                ];
                return Err(grantor_error(
                    "server_error",
                    &message.concat(),
                    Detail::default(),
                ));
            }
            let result = get(&value, "result");
            if !is_plain_object(&result) {
                return Err(bad("a watch message has no result"));
            }
            let canceled = match get(&result, "canceled") {
                flag if flag.is_undefined() => false,
                flag => flag
                    .as_bool()
                    .ok_or_else(|| bad("canceled is not a boolean"))?,
            };
            let compacted = string_field(what, &result, "compact_revision")?;
            let compacted = int64(what, "compact_revision", compacted.as_deref(), Some(0))?;
            if watch_lost(canceled, compacted) {
                let message = [what, ": the watch was cancelled or its revision compacted"];
                return Err(grantor_error(
                    "server_error",
                    &message.concat(),
                    Detail::default(),
                ));
            }
            for event in list_field(what, &result, "events")?.iter() {
                let kv = get(&event, "kv");
                let version = string_field(what, &kv, "mod_revision")?;
                let version = watch_revision(what, "mod_revision", version.as_deref())?;
                let view = match string_field(what, &event, "type")?.as_deref() {
                    None | Some("PUT") => watched_kv(what, &kv, key, version)?,
                    Some("DELETE") if string_field(what, &kv, "key")?.as_deref() == Some(key) => {
                        free_view(version)
                    }
                    Some("DELETE") => return Err(bad("an event is about another key")),
                    Some(_) => return Err(bad("an event of an unknown type")),
                };
                sink(view);
            }
            Ok(())
        };
        let call = ("POST", "/v3/watch", Some(text.as_str()));
        // A stream goes to the member the failover rules pick, like any request; one that fails
        // there is tried after the others next time (the watcher resumes from a snapshot).
        let order = inner.failover.borrow().order(now_ms());
        let Some((index, member)) = order
            .into_iter()
            .find_map(|index| Some((index, inner.members.get(index)?)))
        else {
            return Err(malformed(what, "no member to watch", None));
        };
        let streamed = member
            .stream_lines(call, signal, &end, what, MAX_REPLY_BYTES, &mut on_line)
            .await;
        let outcome = match streamed {
            Ok(Some(reply)) => Err(failure(what, &reply)),
            Ok(None) => Ok(()),
            Err(error) => Err(error),
        };
        match &outcome {
            Ok(()) => inner.failover.borrow_mut().answered(index),
            Err(error) => {
                let kind = failure_from_error(error).kind;
                let gave_up = caller_signal(signal)
                    .ok()
                    .flatten()
                    .is_some_and(|signal| signal.aborted());
                let mut failover = inner.failover.borrow_mut();
                failover.failed(index, kind, Effect::Repeatable, gave_up, now_ms());
            }
        }
        outcome
    }
}

impl Feed for KeyWatch {
    fn config(&self) -> WatchConfig {
        // The window ends the stream; the watcher's deadline is the backstop a request timeout
        // and a second later.
        let timeout_ms = self.inner.members.first().map_or(0.0, Endpoint::timeout_ms);
        let deadline = WATCH_WINDOW_MS as f64 + timeout_ms + 1_000.0;
        WatchConfig::changes(Micros::from_ms_f64(deadline))
    }

    fn fetch(&self, after: Option<u64>, signal: AbortSignal, sink: Sink) -> Fetching {
        let inner = Rc::clone(&self.inner);
        let key = self.key.clone();
        Box::pin(async move {
            let signal: JsValue = signal.into();
            match after {
                None => {
                    let view = KeyWatch::snapshot(&inner, &key, &signal).await?;
                    sink(view);
                    Ok(())
                }
                Some(after) => {
                    KeyWatch::stream(&inner, &key, watch_start(after), &signal, &sink).await
                }
            }
        })
    }
}

#[wasm_bindgen]
impl EtcdGrantorCore {
    /// Who holds `resource`, change by change: a range, then `/v3/watch` streams of its key.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn observe(&self, resource: JsValue, signal: JsValue) -> Result<ObservationCore, JsValue> {
        let resource = check_text_name("resource", &resource)?;
        let feed = KeyWatch {
            key: to_base64(&[self.inner.prefix.as_str(), &resource].concat()),
            inner: Rc::clone(&self.inner),
        };
        ObservationCore::start(Rc::new(feed), &signal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn base64_both_ways_strictly() {
        for text in ["", "a", "ab", "abc", "wörker-ñ-東", "tenure/leases/r"] {
            let encoded = to_base64(text);
            assert_eq!(
                from_base64(&encoded).as_deref(),
                Some(text.as_bytes()),
                "{text}"
            );
        }
        assert_eq!(to_base64("a"), "YQ==");
        assert_eq!(to_base64("abc"), "YWJj");
        for bad in ["a!==", "YQ=", "Y===", "YQ==YQ==", " YQ==", "YQ=\n"] {
            assert_eq!(from_base64(bad), None, "{bad}");
        }
        assert_eq!(from_base64("/w=="), Some(vec![0xff]));
    }

    #[wasm_bindgen_test]
    fn int64_is_a_canonical_decimal_string() {
        assert!(int64("w", "f", Some("40"), None).is_ok_and(|n| n == 40));
        assert!(int64("w", "f", Some("-7"), None).is_ok_and(|n| n == -7));
        assert!(int64("w", "f", Some("9223372036854775807"), None).is_ok());
        assert!(int64("w", "f", None, Some(0)).is_ok_and(|n| n == 0));
        for bad in [
            "040",
            " 40",
            "4e1",
            "0x28",
            "-0",
            "",
            "40.5",
            "9223372036854775808",
            "+1",
        ] {
            assert!(int64("w", "f", Some(bad), None).is_err(), "{bad}");
        }
        assert!(revision("w", Some("9007199254740991")).is_ok());
        assert!(revision("w", Some("9007199254740992")).is_err());
        assert!(revision("w", Some("0")).is_err());
    }
}
