//! `ConsulGrantorCore`: leases from Consul's sessions and KV locks, over Consul's HTTP API. The
//! package's `ConsulGrantor` class wraps it.
//!
//! A grant is a TTL session plus `PUT /v1/kv/<key>?acquire=<session>`; a renewal renews the session
//! and then checks that the key is still locked by it; a release unlocks the key, then destroys the
//! session. The fencing token is the key's `LockIndex`. Nothing is kept between calls that the
//! answer depends on: the key records which holder (and which attempt) locked it, so any instance
//! of the adapter can renew or release a grant another one made.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Promise};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::{
    attempt_key, check_duration_ms, check_holder, check_request_id, check_token,
    checked_credential, endpoint, Recent, MAX_REPLY_BYTES,
};
use crate::adapters::consul::{
    blocking_timeout_ms, key_version, next_index, refusal, session_ttl_s, Key, BLOCKING_WAIT_S,
    MAX_LOCK_DELAY_MS,
};
use crate::core::{HolderView, Micros, WatchConfig};
use crate::protocol::{
    ErrorCode, GrantReply, ReleaseReply, RenewRefusal, RenewReply, Token, MAX_REQUEST_DURATION_MS,
    MAX_RESOURCE_LEN,
};
use crate::wasm::error::get;
use crate::wasm::fetch::{
    bad_argument, clipped, config_error, decimal, grantor_error, json_text, malformed, promise,
    reply_value, status_failure, strict_json, text_of, Detail, Endpoint, Reply,
};
use crate::wasm::js::performance_now;
use crate::wasm::value::from_js;
use crate::wasm::watch::{Feed, Fetching, ObservationCore, Sink};

/// Who locked a key, as this adapter records it in the key's value.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Owner {
    holder: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<String>,
}

/// An entry of `GET /v1/kv/<key>`.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct KvEntry {
    key: Option<String>,
    lock_index: Option<u64>,
    modify_index: Option<u64>,
    create_index: Option<u64>,
    value: Option<String>,
    session: Option<String>,
}

/// `PUT /v1/session/create`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct SessionRequest {
    name: String,
    #[serde(rename = "TTL")]
    ttl: String,
    lock_delay: String,
    behavior: &'static str,
    node_checks: [(); 0],
    checks: [(); 0],
}

/// A session, as create and renew answer it.
#[derive(Deserialize)]
struct Session {
    #[serde(rename = "ID")]
    id: Option<String>,
    #[serde(rename = "TTL")]
    ttl: Option<String>,
}

/// A key's state: its lock's session, `LockIndex` and value.
struct Entry {
    session: Option<String>,
    lock_index: u64,
    value: Option<String>,
}

/// A grantor on Consul: sessions with a TTL, and locks on KV keys.
#[wasm_bindgen]
pub struct ConsulGrantorCore {
    inner: Rc<Inner>,
}

struct Inner {
    endpoint: Endpoint,
    prefix: String,
    lock_delay: String,
    recent: Recent,
}

/// Consul session ids are UUIDs; anything else from a reply never reaches a URL.
fn is_session_id(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Why `path` is no key (or key prefix, `what`) Consul accepts: only letters, digits and
/// `, - _ . /` (Consul's `validateKVKey`), not beginning with `/`, with no empty, `.` or `..`
/// segment.
fn key_path_problem(path: &str, what: &str) -> Option<String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || ",-_./".contains(c);
    if !path.chars().all(allowed) {
        return Some([what, " may only contain letters, digits and , - _ . /"].concat());
    }
    if path.starts_with('/') {
        return Some([what, " must not begin with /"].concat());
    }
    // A key prefix may end with "/", which leaves one empty last segment.
    let inner = if what == "keyPrefix" {
        path.strip_suffix('/').unwrap_or(path)
    } else {
        path
    };
    let bad = |s: &str| s.is_empty() || s == "." || s == "..";
    if !path.is_empty() && inner.split('/').any(bad) {
        return Some([what, " must not have empty, \".\" or \"..\" segments"].concat());
    }
    None
}

/// A Go duration (`"15s"`, `"1m30s"`) in whole milliseconds, rounded down; `None` for anything
/// else. Counted exactly in nanoseconds, saturating.
fn go_duration_ms(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 64 {
        return None;
    }
    let mut rest = text;
    let mut total_ns: u128 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(digits);
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
            return None;
        }
        let units: [(&str, u128); 8] = [
            ("ns", 1),
            ("us", 1_000),
            ("µs", 1_000),
            ("μs", 1_000),
            ("ms", 1_000_000),
            ("s", 1_000_000_000),
            ("m", 60_000_000_000),
            ("h", 3_600_000_000_000),
        ];
        let (unit, scale) = units.iter().find(|(unit, _)| after.starts_with(unit))?;
        // "m" must not be read from "ms": the longer names come first above.
        let value = |digits: &str| {
            digits.bytes().fold(0u128, |n, d| {
                n.saturating_mul(10).saturating_add(u128::from(d - b'0'))
            })
        };
        let mut part = value(whole).saturating_mul(*scale);
        let mut divisor: u128 = 1;
        for d in fraction.bytes().take(30) {
            divisor = divisor.saturating_mul(10);
            part = part.saturating_add(u128::from(d - b'0') * scale / divisor);
        }
        total_ns = total_ns.saturating_add(part);
        rest = &after[unit.len()..];
    }
    Some(u64::try_from(total_ns / 1_000_000).unwrap_or(u64::MAX))
}

/// Base64 as `atob` reads it: ASCII whitespace ignored, padding optional; the bytes, or `None`.
fn atob(text: &str) -> Option<Vec<u8>> {
    let mut cleaned: String = text
        .chars()
        .filter(|c| !" \t\n\x0c\r".contains(*c))
        .collect();
    if cleaned.len() % 4 == 0 {
        for _ in 0..2 {
            if cleaned.ends_with('=') {
                cleaned.pop();
            }
        }
    }
    if cleaned.len() % 4 == 1 || cleaned.contains('=') {
        return None;
    }
    while cleaned.len() % 4 != 0 {
        cleaned.push('=');
    }
    super::etcd::from_base64(&cleaned)
}

/// Who locked a key, from its base64 value: `None` for anything this adapter did not write.
fn owner_of(value: Option<&str>) -> Option<Owner> {
    let bytes = atob(value?)?;
    let text = String::from_utf8(bytes).ok()?;
    let value = js_sys::JSON::parse(&text).ok()?;
    let holder = get(&value, "holder").as_string()?;
    Some(Owner {
        holder,
        request_id: get(&value, "requestId").as_string(),
    })
}

fn denied(owner: Option<Owner>) -> Result<JsValue, JsValue> {
    reply_value(&GrantReply {
        granted: false,
        token: None,
        duration_ms: None,
        holder: owner.map(|o| o.holder),
        expires_in_ms: None,
    })
}

/// Why `holder` cannot renew or release grant `token` given the key's state; `None` if it can.
fn refusal_for(entry: Option<&Entry>, holder: &str, token: u64) -> Option<RenewRefusal> {
    let owner = entry.and_then(|e| owner_of(e.value.as_deref()));
    let key = entry.map(|e| Key {
        locked: e.session.is_some(),
        lock_index: e.lock_index,
        owner: owner.as_ref().map(|o| o.holder.as_str()),
    });
    refusal(key, holder, token)
}

/// A non-2xx Consul reply: Consul's error bodies are plain text, quoted briefly.
fn failure(what: &str, reply: &Reply) -> JsValue {
    let text = reply.text.trim();
    let message = (!text.is_empty()).then(|| clipped(text, 200));
    status_failure(
        what,
        reply.status,
        reply.retry_after().as_deref(),
        None,
        message,
        None,
    )
}

fn parsed(what: &str, reply: &Reply) -> Result<JsValue, JsValue> {
    strict_json(&reply.text).ok_or_else(|| malformed(what, "reply is not JSON", Some(reply.status)))
}

/// The key's state from a reply to `GET /v1/kv/<key>`: `None` when there is no key (404).
fn entry_of(key: &str, what: &str, reply: &Reply) -> Result<Option<Entry>, JsValue> {
    if reply.status == 404 {
        return Ok(None);
    }
    if reply.status != 200 {
        return Err(failure(what, reply));
    }
    let status = Some(reply.status);
    let entries = parsed(what, reply)?;
    let bad = |problem: &str| malformed(what, problem, status);
    if !Array::is_array(&entries) || Array::from(&entries).length() != 1 {
        return Err(bad("expected a list of exactly one entry"));
    }
    let entry: KvEntry = from_js(&Array::from(&entries).get(0))
        .map_err(|_| bad("the entry does not have the fields of a KV entry"))?;
    if entry.key.as_deref() != Some(key) {
        return Err(bad("the entry is not the key asked for"));
    }
    let (Some(lock_index), Some(_), Some(_)) =
        (entry.lock_index, entry.modify_index, entry.create_index)
    else {
        return Err(bad(
            "LockIndex, ModifyIndex and CreateIndex must be non-negative safe integers",
        ));
    };
    let session = entry.session.filter(|s| !s.is_empty());
    if let Some(session) = &session {
        if !is_session_id(session) {
            return Err(bad("Session must be a session id"));
        }
        if lock_index < 1 {
            return Err(bad("a locked key must have a LockIndex of 1 or more"));
        }
    }
    Ok(Some(Entry {
        session,
        lock_index,
        value: entry.value,
    }))
}

impl Inner {
    /// The KV key that locks `resource`.
    fn key_of(&self, resource: &JsValue) -> Result<String, JsValue> {
        let code = ErrorCode::BadResource.as_str();
        let resource = resource
            .as_string()
            .filter(|r| !r.is_empty() && r.encode_utf16().count() <= MAX_RESOURCE_LEN)
            .ok_or_else(|| {
                bad_argument(code, "resource must be a string of 1 to 256 characters")
            })?;
        if let Some(problem) = key_path_problem(&resource, "resource") {
            return Err(bad_argument(code, &problem));
        }
        Ok([self.prefix.as_str(), &resource].concat())
    }

    async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        signal: &JsValue,
    ) -> Result<Reply, JsValue> {
        let request = self
            .endpoint
            .request_to(method, path, body, signal, MAX_REPLY_BYTES);
        request.await
    }

    /// `GET /v1/kv/<key>?consistent`: the key's state, or `None` when there is no key.
    async fn read(&self, key: &str, signal: &JsValue) -> Result<Option<Entry>, JsValue> {
        let what = ["GET /v1/kv/", key].concat();
        let path = ["/v1/kv/", key, "?consistent"].concat();
        let reply = self.request("GET", &path, None, signal).await?;
        entry_of(key, &what, &reply)
    }

    /// `PUT /v1/session/create`: a TTL session tied to no health check; its id.
    async fn create_session(
        &self,
        resource: &str,
        holder: &str,
        ttl_s: u64,
        signal: &JsValue,
    ) -> Result<String, JsValue> {
        let what = "PUT /v1/session/create";
        let body = SessionRequest {
            name: ["tenure ", resource, " ", holder].concat(),
            ttl: [decimal(ttl_s).as_str(), "s"].concat(),
            lock_delay: self.lock_delay.clone(),
            behavior: "release",
            // A holder is not a Consul node: without these the session would follow the agent's
            // serfHealth check as well as its TTL. `Checks` is the field agents before 1.7 read.
            node_checks: [],
            checks: [],
        };
        let reply = self
            .request(
                "PUT",
                "/v1/session/create",
                Some(&json_text(&body)?),
                signal,
            )
            .await?;
        if reply.status != 200 {
            return Err(failure(what, &reply));
        }
        let created: Option<Session> = from_js(&parsed(what, &reply)?).ok();
        created
            .and_then(|s| s.id)
            .filter(|id| is_session_id(id))
            .ok_or_else(|| malformed(what, "ID must be a session id", Some(reply.status)))
    }

    /// A `PUT` with the JSON text `body`, whose reply is `true` or `false`.
    async fn boolean_reply(
        &self,
        path: &str,
        body: Option<&str>,
        signal: &JsValue,
    ) -> Result<bool, JsValue> {
        let what = ["PUT ", path.split('?').next().unwrap_or(path)].concat();
        let reply = self.request("PUT", path, body, signal).await?;
        if reply.status != 200 {
            return Err(failure(&what, &reply));
        }
        parsed(&what, &reply)?
            .as_bool()
            .ok_or_else(|| malformed(&what, "expected true or false", Some(reply.status)))
    }

    /// `PUT /v1/kv/<key>?acquire=<session>`, writing who locked it: whether it locked.
    async fn acquire(
        &self,
        key: &str,
        session: &str,
        owner: &Owner,
        signal: &JsValue,
    ) -> Result<bool, JsValue> {
        let path = ["/v1/kv/", key, "?acquire=", session].concat();
        self.boolean_reply(&path, Some(&json_text(owner)?), signal)
            .await
    }

    /// `PUT /v1/kv/<key>?release=<session>`, keeping the value: whether it unlocked.
    async fn unlock(
        &self,
        key: &str,
        session: &str,
        value: Option<&str>,
        signal: &JsValue,
    ) -> Result<bool, JsValue> {
        let path = ["/v1/kv/", key, "?release=", session].concat();
        // Consul writes the request body as the key's value; send back what was there.
        let body = match owner_of(value) {
            Some(owner) => json_text(&owner)?,
            None => "{}".to_owned(),
        };
        self.boolean_reply(&path, Some(&body), signal).await
    }

    /// `PUT /v1/session/destroy/<session>`; Consul answers true even for an unknown session.
    async fn destroy(&self, session: &str, signal: &JsValue) -> Result<(), JsValue> {
        let path = ["/v1/session/destroy/", session].concat();
        if !self.boolean_reply(&path, None, signal).await? {
            return Err(malformed(&["PUT ", &path].concat(), "expected true", None));
        }
        Ok(())
    }

    /// `PUT /v1/session/renew/<session>`: the TTL Consul renewed to, in ms, or `None` if gone.
    async fn renew_session(&self, session: &str, signal: &JsValue) -> Result<Option<u64>, JsValue> {
        let path = ["/v1/session/renew/", session].concat();
        let what = ["PUT ", &path].concat();
        let reply = self.request("PUT", &path, None, signal).await?;
        if reply.status == 404 {
            return Ok(None); // "Session id '…' not found": invalidated
        }
        if reply.status != 200 {
            return Err(failure(&what, &reply));
        }
        let sessions = parsed(&what, &reply)?;
        let renewed = if Array::is_array(&sessions) {
            Array::from(&sessions)
                .iter()
                .filter_map(|s| from_js::<Session>(&s).ok())
                .find(|s| s.id.as_deref() == Some(session))
        } else {
            None
        };
        let Some(renewed) = renewed else {
            return Err(malformed(
                &what,
                "the reply does not list the session",
                Some(reply.status),
            ));
        };
        match renewed.ttl.as_deref().and_then(go_duration_ms) {
            Some(ms) if (1..=MAX_REQUEST_DURATION_MS).contains(&ms) => Ok(Some(ms)),
            _ => Err(malformed(
                &what,
                "TTL must be a duration from 1 ms to 2147483647 ms",
                Some(reply.status),
            )),
        }
    }

    /// A retried grant: the original token, and no more time than the original has left.
    async fn replay_grant(
        &self,
        key: &str,
        entry: Entry,
        attempt: Option<&str>,
        signal: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let token = super::check_token(&JsValue::from_f64(entry.lock_index as f64))?;
        if let Some(left) = self.recent.remaining_ms(attempt) {
            return granted(token, left);
        }
        // Not remembered here (another instance made it, or it was forgotten): renew the session,
        // so its full TTL counts from now, after the retry was sent.
        let Some(session) = &entry.session else {
            return denied(None);
        };
        let ttl_ms = self.renew_session(session, signal).await?;
        let after = match ttl_ms {
            Some(_) => self.read(key, signal).await?,
            None => None,
        };
        match (ttl_ms, after) {
            (Some(ttl_ms), Some(after))
                if after.session == entry.session && after.lock_index == token =>
            {
                granted(token, ttl_ms)
            }
            (_, after) => denied(
                after
                    .filter(|a| a.session.is_some())
                    .and_then(|a| owner_of(a.value.as_deref())),
            ),
        }
    }

    /// Unlocks the key (if the session holds it) and destroys the session, in the background:
    /// the caller's grant failed, so nobody may believe in this session. Unlocking first keeps a
    /// lock-delay from starting. If this fails too, Consul invalidates the session after its TTL.
    fn clean_up(self: &Rc<Self>, key: String, session: String, owner: Owner) {
        let inner = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let none = JsValue::UNDEFINED;
            let path = ["/v1/kv/", &key, "?release=", &session].concat();
            if let Ok(body) = json_text(&owner) {
                let _ = inner.boolean_reply(&path, Some(&body), &none).await;
            }
            let _ = inner.destroy(&session, &none).await;
        });
    }
}

fn granted(token: u64, duration_ms: u64) -> Result<JsValue, JsValue> {
    let token = Token::new(token).map_err(|_| JsValue::UNDEFINED)?;
    reply_value(&GrantReply::granted(token, duration_ms))
}

#[wasm_bindgen]
impl ConsulGrantorCore {
    /// Validates the options (errors name the option): `baseUrl`, `token`, `keyPrefix`,
    /// `lockDelayMs`, `headers`, `timeoutMs`, `credentials`, `fetch`.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(options: JsValue) -> Result<ConsulGrantorCore, JsValue> {
        let token = get(&options, "token");
        let auth = if token.is_undefined() {
            None
        } else {
            Some(("x-consul-token", checked_credential(&token, "token")?))
        };
        let endpoint = endpoint(&options, auth)?;
        let prefix = get(&options, "keyPrefix");
        let prefix = if prefix.is_undefined() {
            "tenure/".to_owned()
        } else {
            let text = text_of(&prefix).unwrap_or_default();
            let problem = key_path_problem(&text, "keyPrefix");
            match (prefix.as_string(), problem) {
                (Some(prefix), None) => prefix,
                (_, problem) => {
                    let message = problem.unwrap_or_else(|| "keyPrefix must be a string".into());
                    return Err(config_error("keyPrefix", &message));
                }
            }
        };
        let lock_delay = get(&options, "lockDelayMs");
        let lock_delay = if lock_delay.is_undefined() {
            0
        } else {
            match lock_delay.as_f64() {
                Some(ms) if ms.fract() == 0.0 && (0.0..=MAX_LOCK_DELAY_MS as f64).contains(&ms) => {
                    ms as u64
                }
                _ => {
                    return Err(config_error(
                        "lockDelayMs",
                        "lockDelayMs must be an integer from 0 to 60000",
                    ))
                }
            }
        };
        Ok(ConsulGrantorCore {
            inner: Rc::new(Inner {
                endpoint,
                prefix,
                // Consul reads a lock-delay string below 1000 ns as seconds; "0ms" and
                // "1ms".."60000ms" are all far above it or zero, so the value means what it says.
                lock_delay: [decimal(lock_delay).as_str(), "ms"].concat(),
                recent: Recent::default(),
            }),
        })
    }

    /// The agent's base URL.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.inner.endpoint.base_url().to_owned()
    }

    /// The KV key that locks `resource`.
    #[wasm_bindgen(skip_jsdoc, js_name = keyOf)]
    pub fn key_of(&self, resource: JsValue) -> Result<String, JsValue> {
        self.inner.key_of(&resource)
    }

    /// Creates a session and locks the resource's key with it.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn grant(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { grant(&inner, &args).await })
    }

    /// Renews the session that locked the key, then checks the key is still locked by it with the
    /// same `LockIndex`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn renew(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { renew(&inner, &args).await })
    }

    /// Unlocks the key if this holder's grant still holds it, then destroys its session.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn release(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { release(&inner, &args).await })
    }

    /// Who holds `resource`, change by change: blocking queries on its lock key.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn observe(&self, resource: JsValue, signal: JsValue) -> Result<ObservationCore, JsValue> {
        let feed = KeyFeed {
            key: self.inner.key_of(&resource)?,
            inner: Rc::clone(&self.inner),
            index: Rc::default(),
        };
        ObservationCore::start(Rc::new(feed), &signal)
    }
}

async fn grant(inner: &Rc<Inner>, args: &JsValue) -> Result<JsValue, JsValue> {
    let resource = get(args, "resource");
    let key = inner.key_of(&resource)?;
    let resource = resource.as_string().unwrap_or_default();
    let holder = check_holder(&get(args, "holder"))?;
    let duration_ms = check_duration_ms(&get(args, "durationMs"))?;
    let request_id = check_request_id(&get(args, "requestId"))?;
    let signal = get(args, "signal");
    let started = performance_now();
    let ttl_s = session_ttl_s(duration_ms);
    let attempt = attempt_key(&["grant", &resource, &holder], request_id.as_deref());

    if let Some(entry) = inner.read(&key, &signal).await? {
        if let Some(session) = entry.session.clone() {
            let owner = owner_of(entry.value.as_deref());
            let Some(owner) = owner.filter(|o| o.holder == holder) else {
                return denied(owner_of(entry.value.as_deref()));
            };
            if request_id.is_some() && owner.request_id == request_id {
                return inner
                    .replay_grant(&key, entry, attempt.as_deref(), &signal)
                    .await;
            }
            // The same holder again, in a new attempt: its older grant gives way to this one.
            // Unlock first: destroying a session that still holds the key would start Consul's
            // lock-delay.
            inner
                .unlock(&key, &session, entry.value.as_deref(), &signal)
                .await?;
            inner.destroy(&session, &signal).await?;
        }
    }

    let session = inner
        .create_session(&resource, &holder, ttl_s, &signal)
        .await?;
    let owner = Owner {
        holder: holder.clone(),
        request_id: request_id.clone(),
    };
    let outcome = async {
        if !inner.acquire(&key, &session, &owner, &signal).await? {
            // Held by another session, or inside the lock-delay of one that was invalidated.
            let current = inner.read(&key, &signal).await?;
            let holder = current
                .filter(|c| c.session.is_some())
                .and_then(|c| owner_of(c.value.as_deref()));
            return Ok((denied(holder)?, false));
        }
        let after = inner.read(&key, &signal).await?;
        let Some(after) = after.filter(|a| a.session.as_deref() == Some(session.as_str())) else {
            let what = ["GET /v1/kv/", &key].concat();
            return Err(malformed(
                &what,
                "the key is not locked by the session that acquired it",
                None,
            ));
        };
        let token = super::check_token(&JsValue::from_f64(after.lock_index as f64))?;
        let duration_ms = ttl_s * 1000;
        inner
            .recent
            .remember(attempt.as_deref(), started, duration_ms);
        Ok((granted(token, duration_ms)?, true))
    }
    .await;
    // Whatever went wrong, leave no session (and no lock) behind for a grant nobody received.
    // (An acquire whose reply was lost may have locked the key: unlock it too.)
    if !matches!(outcome, Ok((_, true))) {
        inner.clean_up(key, session, owner);
    }
    outcome.map(|(reply, _)| reply)
}

async fn renew(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let resource = get(args, "resource");
    let key = inner.key_of(&resource)?;
    let resource = resource.as_string().unwrap_or_default();
    let holder = check_holder(&get(args, "holder"))?;
    let token = check_token(&get(args, "token"))?;
    check_duration_ms(&get(args, "durationMs"))?;
    let request_id = check_request_id(&get(args, "requestId"))?;
    let signal = get(args, "signal");
    let started = performance_now();
    let refused = |reason| reply_value(&RenewReply::refused(reason));
    let entry = inner.read(&key, &signal).await?;
    if let Some(refusal) = refusal_for(entry.as_ref(), &holder, token) {
        return refused(refusal);
    }
    let Some(Entry {
        session: Some(session),
        ..
    }) = entry
    else {
        return refused(RenewRefusal::Unknown);
    };
    let Some(ttl_ms) = inner.renew_session(&session, &signal).await? else {
        return refused(RenewRefusal::Expired);
    };
    let after = inner.read(&key, &signal).await?;
    let same = after
        .as_ref()
        .is_some_and(|a| a.session.as_deref() == Some(session.as_str()) && a.lock_index == token);
    if !same {
        let reason = refusal_for(after.as_ref(), &holder, token).unwrap_or(RenewRefusal::NotHolder);
        return refused(reason);
    }
    let attempt = attempt_key(
        &["renew", &resource, &holder, &decimal(token)],
        request_id.as_deref(),
    );
    // Consul renews to the session's TTL, which it may have raised: that is what was granted. A
    // retried renewal promises no more than the original had left.
    let promised = inner.recent.promise(attempt.as_deref(), started, ttl_ms);
    let token = Token::new(token).map_err(|_| JsValue::UNDEFINED)?;
    reply_value(&RenewReply::renewed(token, promised))
}

async fn release(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let key = inner.key_of(&get(args, "resource"))?;
    let holder = check_holder(&get(args, "holder"))?;
    let token = check_token(&get(args, "token"))?;
    let signal = get(args, "signal");
    let entry = inner.read(&key, &signal).await?;
    let (
        None,
        Some(Entry {
            session: Some(session),
            value,
            ..
        }),
    ) = (refusal_for(entry.as_ref(), &holder, token), entry)
    else {
        return reply_value(&ReleaseReply { released: false });
    };
    // `?release=` only unlocks if this session still holds the key, so a newer grant is safe.
    let released = inner
        .unlock(&key, &session, value.as_deref(), &signal)
        .await?;
    inner.destroy(&session, &signal).await?;
    reply_value(&ReleaseReply { released })
}

// observe(): blocking queries on the lock key.

/// The lock key's change feed: `GET /v1/kv/<key>?index=<X-Consul-Index>&wait=30s`, a blocking
/// query Consul holds open until the key changes or the wait runs out. A snapshot is a plain
/// consistent read. The version is the key's, from its `LockIndex` ([`key_version`]); the index is
/// only where the next query waits from ([`next_index`]).
struct KeyFeed {
    inner: Rc<Inner>,
    key: String,
    /// The `X-Consul-Index` of the last reply this feed trusted: the next blocking query waits
    /// for a change past it.
    index: Rc<Cell<u64>>,
}

impl KeyFeed {
    fn timeout_ms(&self) -> u64 {
        blocking_timeout_ms(self.inner.endpoint.timeout_ms().ceil() as u64)
    }
}

/// A key's state as an observer sees it: the holder the key's value names (or, for a lock this
/// adapter did not take, the session's id), with the `LockIndex` as its token. Consul does not
/// say how long a session has left, so `expiresInMs` is unknown.
fn key_view(entry: Option<&Entry>) -> HolderView {
    let owner = entry.and_then(|e| owner_of(e.value.as_deref()));
    let key = entry.map(|e| Key {
        locked: e.session.is_some(),
        lock_index: e.lock_index,
        owner: owner.as_ref().map(|o| o.holder.as_str()),
    });
    let held = entry.and_then(|e| e.session.as_ref().map(|s| (e.lock_index, s)));
    HolderView {
        version: key_version(key),
        holder: held.map(|(_, session)| owner.map_or_else(|| session.clone(), |o| o.holder)),
        token: held.map(|(token, _)| token),
        expires_in_ms: None,
        handed_to: None,
    }
}

impl Feed for KeyFeed {
    fn config(&self) -> WatchConfig {
        // The request's own timeout ends a silent query first; the watcher's deadline is the
        // backstop for a `fetch` that ignores its signal.
        WatchConfig::changes(Micros::from_ms(self.timeout_ms() + 1_000))
    }

    fn fetch(&self, after: Option<u64>, signal: AbortSignal, sink: Sink) -> Fetching {
        let inner = Rc::clone(&self.inner);
        let key = self.key.clone();
        let cursor = Rc::clone(&self.index);
        let timeout_ms = self.timeout_ms() as f64;
        // A snapshot (after a failure, or the first fetch) forgets the index: a plain read.
        let previous = if after.is_some() { cursor.get() } else { 0 };
        Box::pin(async move {
            let what = ["GET /v1/kv/", &key].concat();
            let path = if previous == 0 {
                ["/v1/kv/", &key, "?consistent"].concat()
            } else {
                let wait = decimal(BLOCKING_WAIT_S);
                let index = decimal(previous);
                ["/v1/kv/", &key, "?index=", &index, "&wait=", &wait, "s"].concat()
            };
            let signal: JsValue = signal.into();
            let reply = inner
                .endpoint
                .request_within(
                    ("GET", &path, None),
                    &signal,
                    MAX_REPLY_BYTES,
                    &what,
                    timeout_ms,
                )
                .await?;
            let entry = entry_of(&key, &what, &reply)?;
            let returned = reply.headers.get("x-consul-index").ok().flatten();
            let Some(returned) = returned.as_deref().and_then(index_value) else {
                let problem = "X-Consul-Index must be a whole number";
                return Err(malformed(&what, problem, Some(reply.status)));
            };
            let Some(next) = next_index(previous, returned) else {
                cursor.set(0);
                let message = [
                    &what,
                    ": X-Consul-Index went backwards; reading the key afresh",
                ];
                let detail = Detail {
                    status: Some(reply.status),
                    ..Detail::default()
                };
                return Err(grantor_error("server_error", &message.concat(), detail));
            };
            cursor.set(next);
            sink(key_view(entry.as_ref()));
            Ok(())
        })
    }
}

/// A header of decimal digits as a number within JavaScript's safe integers.
fn index_value(text: &str) -> Option<u64> {
    let text = text.trim();
    if text.is_empty() || text.len() > 16 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = text.bytes().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    (n <= crate::protocol::MAX_TOKEN).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn go_durations_in_whole_ms() {
        assert_eq!(go_duration_ms("15s"), Some(15_000));
        assert_eq!(go_duration_ms("1m30s"), Some(90_000));
        assert_eq!(go_duration_ms("1.5s"), Some(1_500));
        assert_eq!(go_duration_ms(".5ms"), Some(0));
        assert_eq!(go_duration_ms("1h"), Some(3_600_000));
        assert_eq!(go_duration_ms("10µs"), Some(0));
        assert_eq!(
            go_duration_ms("99999999999h"),
            Some(359_999_999_996_400_000)
        );
        for bad in ["", "5", "s", "-5s", "1e3s", "5 s", "1..5s", "1.5.5s", "5x"] {
            assert_eq!(go_duration_ms(bad), None, "{bad}");
        }
    }

    #[wasm_bindgen_test]
    fn values_are_read_as_atob_reads_them() {
        assert_eq!(atob("YQ==").as_deref(), Some(&b"a"[..]));
        assert_eq!(atob("YQ").as_deref(), Some(&b"a"[..]));
        assert_eq!(atob(" Y Q = = ").as_deref(), Some(&b"a"[..]));
        assert_eq!(atob("Y"), None);
        assert_eq!(atob("YQ="), None);
        assert_eq!(atob("a!=="), None);
    }

    #[wasm_bindgen_test]
    fn keys_consul_accepts() {
        assert_eq!(key_path_problem("tenure/", "keyPrefix"), None);
        assert_eq!(key_path_problem("", "keyPrefix"), None);
        assert_eq!(key_path_problem("reports/nightly", "resource"), None);
        assert!(key_path_problem("a//b", "resource").is_some());
        assert!(key_path_problem("a/", "resource").is_some());
        assert!(key_path_problem("/a", "resource").is_some());
        assert!(key_path_problem("a/../b", "resource").is_some());
        assert!(key_path_problem("a b", "resource").is_some());
        assert!(key_path_problem("apps//", "keyPrefix").is_some());
        assert!(is_session_id("0b6f3a5e-7c1d-4e2f-9a8b-1c2d3e4f5a6b"));
        assert!(!is_session_id("0b6f3a5e-7c1d-4e2f-9a8b-1c2d3e4f5a6"));
    }
}
