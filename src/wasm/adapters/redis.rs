//! `RedisHttpGrantorCore`: leases kept in Redis behind an Upstash-style REST endpoint (`POST` a
//! JSON command array, `Authorization: Bearer <token>`, replies `{"result": ...}` or
//! `{"error": ...}`). The package's `RedisHttpGrantor` class wraps it.
//!
//! Each operation is one Lua script, so it is atomic in Redis. A resource's grant is the key
//! `<keyPrefix>{<resource>}` holding `<token>:<holder>` with a `PX` expiry; the fencing token comes
//! from `INCR` of `<keyPrefix>{<resource>}:fence` (the braces keep both keys in one hash slot). The
//! token only grows while that counter survives: Redis must keep it (persistence on, no eviction of
//! these keys), and a replica promoted after an asynchronous failover may have lost recent grants.

use std::rc::Rc;

use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::{check_duration_ms, check_text_name, check_token, endpoint, key_prefix, token_option};
use super::{Recent, MAX_REPLY_BYTES};
use crate::adapters::redis::{grant_value, named_holder, watch_state, POLL_MAX_MS};
use crate::core::{HolderView, Micros, WatchConfig};
use crate::protocol::{GrantReply, ReleaseReply, RenewRefusal, RenewReply, Token};
use crate::wasm::error::get;
use crate::wasm::fetch::{
    decimal, is_plain_object, json_text, lenient_json, malformed, pair_key, promise, reply_value,
    status_failure, strict_json, text_of, Endpoint,
};
use crate::wasm::js::performance_now;
use crate::wasm::value::from_js;
use crate::wasm::watch::{Feed, Fetching, ObservationCore, Sink};

/// Grant. KEYS[1] the lock, KEYS[2] its fence counter; ARGV[1] the holder, ARGV[2] the duration
/// in ms. Returns {1, value, ms} for a new grant, {2, value, pttl} when the holder already holds
/// it, {0, value, pttl} when someone else does. The counter is read back with GET: a Lua number
/// would print a large counter in exponent form.
const GRANT: &str = r#"local current = redis.call("GET", KEYS[1])
if current then
  local pttl = redis.call("PTTL", KEYS[1])
  local sep = string.find(current, ":", 1, true)
  if sep and string.sub(current, sep + 1) == ARGV[1] then return {2, current, pttl} end
  return {0, current, pttl}
end
redis.call("INCR", KEYS[2])
local value = redis.call("GET", KEYS[2]) .. ":" .. ARGV[1]
redis.call("SET", KEYS[1], value, "PX", ARGV[2])
return {1, value, tonumber(ARGV[2])}"#;

/// Renew. KEYS[1] the lock; ARGV[1] the grant's value, ARGV[2] the duration in ms. Resets the
/// expiry to the full duration from now: 1; the key is gone: 0; it holds another grant: -1.
const RENEW: &str = r#"local current = redis.call("GET", KEYS[1])
if not current then return 0 end
if current ~= ARGV[1] then return -1 end
redis.call("PEXPIRE", KEYS[1], ARGV[2])
return 1"#;

/// Release. KEYS[1] the lock; ARGV[1] the grant's value. Deletes only that grant: 1, else 0.
const RELEASE: &str = r#"if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0"#;

/// Read for `observe()`. KEYS[1] the lock, KEYS[2] its fence counter. Returns {value, pttl,
/// counter}, an absent key or counter as "" (a nil would cut the list short).
const WATCH: &str = r#"local value = redis.call("GET", KEYS[1]) or ""
local counter = redis.call("GET", KEYS[2]) or ""
return {value, redis.call("PTTL", KEYS[1]), counter}"#;

/// A grantor keeping leases in Redis behind an Upstash-style REST endpoint.
#[wasm_bindgen]
pub struct RedisHttpGrantorCore {
    inner: Rc<Inner>,
}

struct Inner {
    endpoint: Endpoint,
    prefix: String,
    recent: Recent,
}

/// A grant's stored value, `<token>:<holder>` ([`grant_value`]); anything else is a
/// `malformed_reply`.
fn parse_value(what: &str, value: &str) -> Result<(u64, String), JsValue> {
    grant_value(value)
        .map(|(token, holder)| (token, holder.to_owned()))
        .ok_or_else(|| malformed(what, "the grant's value has no token in 1..2^53-1", None))
}

impl Inner {
    fn key_of(&self, resource: &str) -> String {
        [self.prefix.as_str(), "{", resource, "}"].concat()
    }

    /// `EVAL script numkeys keys... args...`: the command's `result`, or the typed failure.
    async fn eval(
        &self,
        what: &str,
        script: &str,
        keys: &[&str],
        args: &[&str],
        signal: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let count = decimal(keys.len() as u64);
        let mut command = vec!["EVAL", script, &count];
        command.extend_from_slice(keys);
        command.extend_from_slice(args);
        let text = json_text(&command)?;
        let reply = self
            .endpoint
            .request("POST", "", Some(&text), signal, MAX_REPLY_BYTES, "POST /")
            .await?;
        let body = if reply.ok() {
            strict_json(&reply.text)
                .ok_or_else(|| malformed(what, "reply is not JSON", Some(reply.status)))?
        } else {
            lenient_json(&reply.text)
        };
        let message = get(&body, "error").as_string();
        // A Redis error comes with status 400; one in a 2xx body is a refusal all the same.
        if !reply.ok() || message.is_some() {
            let status = if reply.ok() { 400 } else { reply.status };
            let retry_after = reply.retry_after();
            return Err(status_failure(
                what,
                status,
                retry_after.as_deref(),
                None,
                message.as_deref(),
                None,
            ));
        }
        if !is_plain_object(&body)
            || !Object::has_own(body.unchecked_ref::<Object>(), &"result".into())
        {
            return Err(malformed(what, "reply has no result", None));
        }
        Ok(get(&body, "result"))
    }
}

#[wasm_bindgen]
impl RedisHttpGrantorCore {
    /// Validates the options (errors name the option): `baseUrl`, `token`, `headers`,
    /// `timeoutMs`, `keyPrefix`, `credentials`, `fetch`.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(options: JsValue) -> Result<RedisHttpGrantorCore, JsValue> {
        let prefix = key_prefix(&options, "tenure:")?;
        let auth =
            token_option(&options)?.map(|token| ("authorization", ["Bearer ", &token].concat()));
        Ok(RedisHttpGrantorCore {
            inner: Rc::new(Inner {
                endpoint: endpoint(&options, auth)?,
                prefix,
                recent: Recent::default(),
            }),
        })
    }

    /// The REST endpoint's URL.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.inner.endpoint.base_url().to_owned()
    }

    /// The Redis key holding `resource`'s grant; its fence counter is this plus `:fence`.
    #[wasm_bindgen(skip_jsdoc, js_name = keyOf)]
    pub fn key_of(&self, resource: JsValue) -> String {
        self.inner.key_of(&text_of(&resource).unwrap_or_default())
    }

    /// Grants the resource if its key is free.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn grant(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { grant(&inner, &args).await })
    }

    /// Resets the grant's expiry to the full duration from now.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn renew(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { renew(&inner, &args).await })
    }

    /// Deletes the grant's key if it still holds this grant; idempotent.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn release(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { release(&inner, &args).await })
    }
    /// Who holds `resource`, change by change: its key read again and again, with backoff while
    /// it stays the same (Redis has no change feed here).
    #[wasm_bindgen(skip_jsdoc)]
    pub fn observe(&self, resource: JsValue, signal: JsValue) -> Result<ObservationCore, JsValue> {
        let resource = check_text_name("resource", &resource)?;
        let feed = KeyPoll {
            inner: Rc::clone(&self.inner),
            key: self.inner.key_of(&resource),
        };
        ObservationCore::start(Rc::new(feed), &signal)
    }
}

// observe(): polling the key.

/// A resource's key and its fence counter, read in one script, polled ([`WatchConfig::poll`]).
struct KeyPoll {
    inner: Rc<Inner>,
    key: String,
}

impl Feed for KeyPoll {
    fn config(&self) -> WatchConfig {
        let timeout = Micros::from_ms_f64(self.inner.endpoint.timeout_ms());
        WatchConfig::poll(timeout, Micros::from_ms(POLL_MAX_MS))
    }

    fn fetch(&self, _after: Option<u64>, signal: AbortSignal, sink: Sink) -> Fetching {
        let inner = Rc::clone(&self.inner);
        let key = self.key.clone();
        Box::pin(async move {
            let what = "observe";
            let fence = [key.as_str(), ":fence"].concat();
            let signal: JsValue = signal.into();
            let result = inner
                .eval(what, WATCH, &[&key, &fence], &[], &signal)
                .await?;
            let (value, left, counter): (String, i64, String) = from_js(&result).map_err(|_| {
                malformed(
                    what,
                    "result is not [value, ms, counter] with strings and an integer",
                    None,
                )
            })?;
            let Some((version, grant)) = watch_state(&value, &counter) else {
                return Err(malformed(
                    what,
                    "the key holds no grant of its fence counter",
                    None,
                ));
            };
            sink(HolderView {
                version,
                holder: grant.map(|(_, holder)| holder.to_owned()),
                token: grant.map(|(token, _)| token),
                // -1: a key without an expiry, which this adapter never writes.
                expires_in_ms: grant.and_then(|_| u64::try_from(left).ok()),
                handed_to: None,
            });
            Ok(())
        })
    }
}

async fn grant(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let resource = check_text_name("resource", &get(args, "resource"))?;
    let holder = check_text_name("holder", &get(args, "holder"))?;
    let what = "grant";
    let ms = check_duration_ms(&get(args, "durationMs"))?;
    let key = inner.key_of(&resource);
    let fence = [key.as_str(), ":fence"].concat();
    let duration = decimal(ms);
    let signal = get(args, "signal");
    let result = inner
        .eval(what, GRANT, &[&key, &fence], &[&holder, &duration], &signal)
        .await?;
    let (status, value, left): (i64, String, i64) = from_js(&result).map_err(|_| {
        malformed(
            what,
            "result is not [status, value, ms] with integers and a string",
            None,
        )
    })?;
    if status == 0 {
        // Only a denial: a key written by other software still names whoever holds it. PTTL -1:
        // a key without an expiry, set by something else; no end to announce.
        return reply_value(&GrantReply {
            granted: false,
            token: None,
            duration_ms: None,
            holder: Some(named_holder(&value).to_owned()),
            expires_in_ms: u64::try_from(left).ok(),
        });
    }
    let (token, current) = parse_value(what, &value)?;
    let token_value = Token::new(token).map_err(|_| JsValue::UNDEFINED)?;
    if status == 1 {
        if current != holder || left != ms as i64 {
            return Err(malformed(what, "the new grant is not this one", None));
        }
        return reply_value(&GrantReply::granted(token_value, ms));
    }
    if status == 2 && current == holder && left > 0 {
        // A retry of a grant whose reply was lost: the same grant. The holder's clock starts at
        // this retry's send, so it may believe only what the key has left now. The expiry is not
        // pushed out either: a late duplicate of a grant request must not keep alive a lease its
        // holder has stopped renewing.
        return reply_value(&GrantReply::granted(token_value, left as u64));
    }
    if status != 2 || current != holder {
        let problem = ["unexpected status ", &decimal(status.unsigned_abs())].concat();
        return Err(malformed(what, &problem, None));
    }
    // Ours, but with no time left (or no expiry at all): not a grant to believe in.
    reply_value(&GrantReply {
        granted: false,
        token: None,
        duration_ms: None,
        holder: Some(holder),
        expires_in_ms: Some(left.max(0) as u64),
    })
}

async fn renew(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let resource = check_text_name("resource", &get(args, "resource"))?;
    let holder = check_text_name("holder", &get(args, "holder"))?;
    let token = check_token(&get(args, "token"))?;
    let started = performance_now();
    let what = "renew";
    let ms = check_duration_ms(&get(args, "durationMs"))?;
    let value = [decimal(token).as_str(), ":", &holder].concat();
    let key = inner.key_of(&resource);
    let signal = get(args, "signal");
    let result = inner
        .eval(what, RENEW, &[&key], &[&value, &decimal(ms)], &signal)
        .await?;
    let result: i64 =
        from_js(&result).map_err(|_| malformed(what, "result is not an integer", None))?;
    match result {
        1 => {
            let request_id = get(args, "requestId");
            let attempt = (!request_id.is_undefined()).then(|| {
                let request_id = text_of(&request_id).unwrap_or_default();
                pair_key(&[&resource, &holder, &decimal(token), &request_id])
            });
            let promised = inner.recent.promise(attempt.as_deref(), started, ms);
            let token = Token::new(token).map_err(|_| JsValue::UNDEFINED)?;
            reply_value(&RenewReply::renewed(token, promised))
        }
        0 => reply_value(&RenewReply::refused(RenewRefusal::Expired)),
        -1 => reply_value(&RenewReply::refused(RenewRefusal::NotHolder)),
        _ => Err(malformed(what, "unknown result", None)),
    }
}

async fn release(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let resource = check_text_name("resource", &get(args, "resource"))?;
    let holder = check_text_name("holder", &get(args, "holder"))?;
    let token = check_token(&get(args, "token"))?;
    let what = "release";
    let value = [decimal(token).as_str(), ":", &holder].concat();
    let key = inner.key_of(&resource);
    let signal = get(args, "signal");
    let result = inner
        .eval(what, RELEASE, &[&key], &[&value], &signal)
        .await?;
    match from_js::<i64>(&result) {
        Ok(deleted @ (0 | 1)) => reply_value(&ReleaseReply {
            released: deleted == 1,
        }),
        Ok(_) => Err(malformed(what, "unknown result", None)),
        Err(_) => Err(malformed(what, "result is not an integer", None)),
    }
}
