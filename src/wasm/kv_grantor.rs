//! `KvGrantorCore`: the grantor protocol served from a key-value store, for the Durable Object
//! and Deno KV grantors. Every decision is [`crate::kv_grantor`]'s; this reads the records a
//! request names, commits what it decided, and waits for a watched record to change, through a
//! store object the package's JavaScript makes for each platform:
//!
//! - `read(keys)`: `keys` an array of `[kind, name]`; resolves to `{values, stamp}`, the
//!   records' JSON text (`undefined` where none is stored) and whatever the store needs to check
//!   at commit that none of them changed since;
//! - `commit(stamp, writes)`: `writes` an array of `[kind, name, text]`, written atomically
//!   unless a record read changed since `stamp`; resolves to whether it was written;
//! - `changed(kind, name, waitMs, stamp)`: resolves once that record differs from what the read
//!   that resolved `stamp` saw (at once if it already does), or after `waitMs`. The stamp is
//!   passed so that a change landing between that read and the start of the wait is not
//!   missed: the watch would otherwise wait for a further change, or its whole wait.
//!
//! A commit refused because a record changed is decided again from fresh reads: the store's
//! own atomicity (a Durable Object's single thread, Deno KV's versionstamp checks) is what makes
//! two grantors sharing it agree.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::error::{get, lease_error, set};
use super::js::date_now;
use crate::kv_grantor::ops::{Op, Step};
use crate::kv_grantor::{DurationLimits, Key, KvGrantor};
use crate::protocol::ErrorCode;
use crate::requests::Refusal;
use crate::secrets::{Secrets, SERVER_KEY_LEN};

/// How many times a request is decided again after its commit was refused, before it fails
/// with `storage_unavailable` (retryable): contention that long means the store is overloaded.
const MAX_ATTEMPTS: u32 = 64;

/// The protocol's routes, for telling a wrong method from an unknown route.
const ROUTES: [&str; 9] = [
    "/v1/grant",
    "/v1/renew",
    "/v1/renew/batch",
    "/v1/release",
    "/v1/status",
    "/v1/watch",
    "/v1/revoke",
    "/v1/fenced/write",
    "/v1/fenced/read",
];

/// A grantor serving the protocol from the store object it was given.
#[wasm_bindgen]
pub struct KvGrantorCore {
    inner: Rc<Inner>,
}

struct Inner {
    grantor: KvGrantor,
    store: JsValue,
}

#[wasm_bindgen]
impl KvGrantorCore {
    /// A grantor over `store` (see the module's documentation). `options`: `serverKey` (32
    /// random bytes, kept by the store: the secrets are derived from it), `minDurationMs` and
    /// `maxDurationMs` (the durations granted, 500 and 600 000 by default, as the reference
    /// grantor's), `clockSkewMs` (how much longer every grant counts as live, 0 by default).
    #[wasm_bindgen(constructor)]
    pub fn new(store: JsValue, options: JsValue) -> Result<KvGrantorCore, JsValue> {
        let key = get(&options, "serverKey")
            .dyn_into::<Uint8Array>()
            .ok()
            .filter(|bytes| bytes.length() as usize == SERVER_KEY_LEN)
            .ok_or_else(|| config("serverKey", "must be a Uint8Array of 32 random bytes"))?;
        let mut server_key = [0u8; SERVER_KEY_LEN];
        key.copy_to(&mut server_key);
        let (limits, clock_skew_ms) = settings(&options)?;
        for method in ["read", "commit", "changed"] {
            if !get(&store, method).is_function() {
                return Err(config(
                    "store",
                    "must have read, commit and changed methods",
                ));
            }
        }
        Ok(KvGrantorCore {
            inner: Rc::new(Inner {
                grantor: KvGrantor::new(Secrets::new(server_key), limits, clock_skew_ms),
                store,
            }),
        })
    }

    /// Serves one request: `method` and `path` (no query) and the body's text. Resolves to
    /// `{status, body}`, the reply's HTTP status and JSON text; rejects only when the store
    /// failed, and then nothing may be assumed of the request.
    pub fn serve(&self, method: String, path: String, body: String) -> Promise {
        let inner = Rc::clone(&self.inner);
        wasm_bindgen_futures::future_to_promise(async move {
            let step = if method != "POST" {
                Step::refused(if ROUTES.contains(&path.as_str()) {
                    Refusal::new(
                        ErrorCode::MethodNotAllowed,
                        "this route does not accept that HTTP method",
                    )
                } else {
                    Refusal::new(ErrorCode::NotFound, "no such route")
                })
            } else {
                match Op::parse(&path, body.as_bytes()) {
                    Ok(op) => inner.run(op).await?,
                    Err(refusal) => Step::refused(refusal),
                }
            };
            let Step::Reply { status, body, .. } = step else {
                unreachable!("run answers every watch")
            };
            let reply = js_sys::Object::new();
            set(&reply, "status", &JsValue::from(status));
            set(&reply, "body", &JsValue::from_str(&body));
            Ok(reply.into())
        })
    }
}

impl Inner {
    /// Decides `op` until its commit is written (or it needs none), waiting out a watch.
    async fn run(&self, op: Op) -> Result<Step, JsValue> {
        let watch_until = op
            .watch_wait()
            .map(|wait| date_now() + wait.as_millis() as f64);
        let keys = op.reads();
        let mut refused = 0;
        loop {
            let (records, stamp) = self.read(&keys).await?;
            let now = date_now();
            match op.decide(&self.grantor, &records, clock(now)) {
                Step::Reply { writes, .. } if refused >= MAX_ATTEMPTS && !writes.is_empty() => {
                    return Ok(Step::refused(Refusal::new(
                        ErrorCode::StorageUnavailable,
                        "the store was too busy to commit; the request had no effect",
                    )));
                }
                Step::Reply {
                    status,
                    body,
                    writes,
                } => {
                    if writes.is_empty() || self.commit(&stamp, &writes).await? {
                        return Ok(Step::Reply {
                            status,
                            body,
                            writes: Vec::new(),
                        });
                    }
                    refused += 1;
                }
                Step::Wait { key, recheck, body } => {
                    let left = watch_until.map_or(0.0, |until| until - now);
                    if left <= 0.0 {
                        return Ok(Step::Reply {
                            status: 200,
                            body,
                            writes: Vec::new(),
                        });
                    }
                    let wait = recheck.map_or(left, |r| left.min(millis(r)));
                    self.changed(&key, wait, &stamp).await?;
                }
            }
        }
    }

    async fn read(
        &self,
        keys: &[Key],
    ) -> Result<(BTreeMap<Key, Option<String>>, JsValue), JsValue> {
        let names: Array = keys.iter().map(key_parts).collect();
        let read = self.call("read", &[names.into()])?;
        let result = JsFuture::from(read).await?;
        let values = get(&result, "values");
        let values = values
            .dyn_ref::<Array>()
            .filter(|values| values.length() as usize == keys.len())
            .ok_or_else(|| store_error("read resolved without a value for every key"))?;
        let mut records = BTreeMap::new();
        for (key, value) in keys.iter().zip(values.iter()) {
            let text = match value.as_string() {
                Some(text) => Some(text),
                None if value.is_undefined() || value.is_null() => None,
                None => return Err(store_error("read resolved a value that is not text")),
            };
            records.insert(key.clone(), text);
        }
        Ok((records, get(&result, "stamp")))
    }

    async fn commit(&self, stamp: &JsValue, writes: &[(Key, String)]) -> Result<bool, JsValue> {
        let entries: Array = writes
            .iter()
            .map(|(key, text)| {
                let entry = key_parts(key);
                entry.push(&JsValue::from_str(text));
                JsValue::from(entry)
            })
            .collect();
        let committed =
            JsFuture::from(self.call("commit", &[stamp.clone(), entries.into()])?).await?;
        Ok(committed.is_truthy())
    }

    async fn changed(&self, key: &Key, wait_ms: f64, stamp: &JsValue) -> Result<(), JsValue> {
        let waited = self.call(
            "changed",
            &[
                JsValue::from_str(key.kind()),
                JsValue::from_str(key.name()),
                JsValue::from(wait_ms.ceil()),
                stamp.clone(),
            ],
        )?;
        JsFuture::from(waited).await.map(drop)
    }

    /// `store[method](...args)`, as a promise (a value that is not one is resolved as one).
    fn call(&self, method: &str, args: &[JsValue]) -> Result<Promise, JsValue> {
        let function: js_sys::Function = get(&self.store, method).unchecked_into();
        let args: Array = args.iter().collect();
        let value = function.apply(&self.store, &args)?;
        Ok(Promise::resolve(&value))
    }
}

/// Checks the settings of `options` (all but `serverKey`), as [`KvGrantorCore::new`] does, so
/// that a grantor whose key comes later refuses bad settings at once.
#[wasm_bindgen(js_name = checkKvGrantorOptions)]
pub fn check_kv_grantor_options(options: JsValue) -> Result<(), JsValue> {
    settings(&options).map(drop)
}

/// The durations granted and the clock skew bound, from `options`.
fn settings(options: &JsValue) -> Result<(DurationLimits, u64), JsValue> {
    let min_ms = whole_ms(options, "minDurationMs", 500)?;
    let max_ms = whole_ms(options, "maxDurationMs", 600_000)?;
    let limits = DurationLimits::new(min_ms, max_ms).ok_or_else(|| {
        config(
            "maxDurationMs",
            "must be at least minDurationMs, which must be at least 1, and at most 2147483647",
        )
    })?;
    Ok((limits, whole_ms(options, "clockSkewMs", 0)?))
}

/// A key as the store objects take it: `[kind, name]`.
fn key_parts(key: &Key) -> Array {
    Array::of2(
        &JsValue::from_str(key.kind()),
        &JsValue::from_str(key.name()),
    )
}

/// The wall clock as the grantor reads it: whole ms since the epoch. A clock before the epoch
/// (or not a number) reads as the epoch, which makes every grant look live: failing safe, as
/// nothing is granted over a grant that might still be held.
fn clock(now_ms: f64) -> u64 {
    if now_ms.is_finite() && now_ms > 0.0 {
        now_ms as u64
    } else {
        0
    }
}

fn millis(d: Duration) -> f64 {
    d.as_millis() as f64
}

/// An option that must be a whole number of ms from 0 to 2^31 - 1, or absent (`default`).
fn whole_ms(options: &JsValue, field: &'static str, default: u64) -> Result<u64, JsValue> {
    let value = get(options, field);
    if value.is_undefined() {
        return Ok(default);
    }
    value
        .as_f64()
        .filter(|ms| ms.fract() == 0.0 && (0.0..=2_147_483_647.0).contains(ms))
        .map(|ms| ms as u64)
        .ok_or_else(|| config(field, "must be a whole number of ms from 0 to 2147483647"))
}

fn config(field: &str, problem: &str) -> JsValue {
    lease_error(
        "ERR_LEASE_CONFIG",
        &[field, " ", problem].concat(),
        Some(field),
    )
}

fn store_error(problem: &str) -> JsValue {
    lease_error(
        "ERR_GRANTOR_STORE",
        &["the store's ", problem].concat(),
        None,
    )
}
