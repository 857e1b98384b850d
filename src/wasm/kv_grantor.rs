//! `KvGrantorCore`: the grantor protocol served from a key-value store, for the Durable Object
//! and Deno KV grantors. Every decision is [`crate::kv_grantor`]'s; this reads the records a
//! request names, commits what it decided, and waits for a watched record to change, through a
//! store object the package's JavaScript makes for each platform:
//!
//! - `read(gets, ranges)`: `gets` an array of `[kind, name]`, `ranges` an array of
//!   `[kind, start, end, limit]` (the records of a kind named from `start` up to, not including,
//!   `end`, in order, at most `limit`, or all when it is undefined); resolves to
//!   `{values, ranges, stamp}`: each get's JSON text (`undefined` where none is stored), each
//!   range's `[name, text]` pairs, and whatever the store needs to check at commit that none of
//!   what was read changed since;
//! - `commit(stamps, writes)`: `stamps` those of every read of the request, `writes` an array of
//!   `[kind, name, text]` (`text` undefined: delete), written atomically unless something read
//!   changed since; resolves to whether it was written;
//! - a `read` may reject with an error whose `busy` is true (the store could not read just now,
//!   as Deno KV when another process holds the database's lock): the request is decided again
//!   after a pause, as after a refused commit;
//! - `changed(kind, name, waitMs, stamps)`: resolves once that record differs from what the
//!   reads that resolved `stamps` saw (at once if it already does), or after `waitMs`. The
//!   stamps are passed so that a change landing between those reads and the start of the wait
//!   is not missed: the watch would otherwise wait for a further change, or its whole wait.
//!
//! A commit refused because a record changed is decided again from fresh reads: the store's
//! own atomicity (a Durable Object's single thread, Deno KV's versionstamp checks) is what makes
//! two grantors sharing it agree.

use std::rc::Rc;
use std::time::Duration;

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::error::{get, lease_error, set};
use super::js::date_now;
use crate::kv_grantor::ops::{Op, Step, ROUTES};
use crate::kv_grantor::{DurationLimits, Key, KvGrantor, Read, Reads};
use crate::protocol::{ErrorCode, DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS};
use crate::requests::Refusal;
use crate::secrets::{Secrets, SERVER_KEY_LEN};

/// How many times a request is decided again after its commit was refused, before it fails
/// with `storage_unavailable` (retryable): contention that long means the store is overloaded.
const MAX_COMMIT_TRIES: u32 = 64;

/// The longest pause before deciding a refused request again, in ms. Grantors that lost a race
/// pause a random part of a doubling wait up to this, so that they do not all retry together.
const MAX_BACKOFF_MS: f64 = 64.0;

/// How many rounds of reads one decision may ask for: each is a few records or a range, so a
/// request needing more is a bug, answered as an internal error rather than looping.
const MAX_READ_ROUNDS: usize = 8;

/// A grantor serving the protocol from the store object it was given.
#[wasm_bindgen]
pub struct KvGrantorCore {
    inner: Rc<Inner>,
}

struct Inner {
    grantor: KvGrantor,
    store: JsValue,
    /// Whether the store's atomic commits are small (Deno KV's): large requests go in parts.
    small_commits: bool,
}

#[wasm_bindgen]
impl KvGrantorCore {
    /// A grantor over `store` (see the module's documentation). `options`: `serverKey` (32
    /// random bytes, kept by the store: the secrets are derived from it), `minDurationMs` and
    /// `maxDurationMs` (the durations granted, 500 and 600 000 by default, as the reference
    /// grantor's), `clockSkewMs` (how much longer every grant and claim counts as live, 0 by
    /// default), `maxAttempts` (claims an item gets when its enqueue names no limit, 5 by default),
    /// `smallCommits` (the store's atomic commits are small, as Deno KV's: renewal batches and
    /// enqueues are committed in parts).
    #[wasm_bindgen(constructor)]
    pub fn new(store: JsValue, options: JsValue) -> Result<KvGrantorCore, JsValue> {
        let key = get(&options, "serverKey")
            .dyn_into::<Uint8Array>()
            .ok()
            .filter(|bytes| bytes.length() as usize == SERVER_KEY_LEN)
            .ok_or_else(|| config("serverKey", "must be a Uint8Array of 32 random bytes"))?;
        let mut server_key = [0u8; SERVER_KEY_LEN];
        key.copy_to(&mut server_key);
        let (limits, clock_skew_ms, max_attempts) = settings(&options)?;
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
                grantor: KvGrantor::new(Secrets::new(server_key), limits, clock_skew_ms)
                    .with_max_attempts(max_attempts),
                small_commits: get(&options, "smallCommits").is_truthy(),
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
                    Ok(op) if inner.small_commits => inner.run_in_parts(op).await?,
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
    /// Runs `op` in the parts a store of small commits takes ([`Op::split`]): one after another,
    /// answering the first part that fails, else all parts' replies joined.
    async fn run_in_parts(&self, op: Op) -> Result<Step, JsValue> {
        let parts = op.clone().split();
        if parts.len() == 1 {
            return self.run(op).await;
        }
        let mut bodies = Vec::with_capacity(parts.len());
        for part in parts {
            match self.run(part).await? {
                Step::Reply {
                    status: 200, body, ..
                } => bodies.push(body),
                failed => return Ok(failed),
            }
        }
        Ok(match op.join(&bodies) {
            Ok(body) => Step::Reply {
                status: 200,
                body,
                writes: Vec::new(),
            },
            Err(refusal) => Step::refused(refusal),
        })
    }

    /// Decides `op` until its commit is written (or it needs none), waiting out a watch. A
    /// commit refused because something read changed, or a store too busy to read, is decided
    /// again after a random pause, at most [`MAX_COMMIT_TRIES`] times.
    async fn run(&self, op: Op) -> Result<Step, JsValue> {
        let watch_until = op.watch_wait().map(|wait| date_now() + millis(wait));
        let mut refused = 0;
        loop {
            let Some((step, now, stamps)) = self.decide(&op).await? else {
                refused += 1;
                if refused >= MAX_COMMIT_TRIES {
                    return Ok(too_busy());
                }
                back_off(refused).await?;
                continue;
            };
            match step {
                Step::Reply { writes, .. } if refused >= MAX_COMMIT_TRIES && !writes.is_empty() => {
                    return Ok(too_busy());
                }
                Step::Reply {
                    status,
                    body,
                    writes,
                } => {
                    if writes.is_empty() || self.commit(&stamps, &writes).await? {
                        return Ok(Step::Reply {
                            status,
                            body,
                            writes: Vec::new(),
                        });
                    }
                    refused += 1;
                    back_off(refused).await?;
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
                    self.changed(&key, wait, &stamps).await?;
                }
                Step::Read(_) => unreachable!("decide answers every read"),
            }
        }
    }

    /// Reads what `op` asks for, round after round, and decides it: the decision, the time it
    /// was made at, and the stamps of every read. `None` when the store was too busy to read
    /// (its read rejected with `busy` set): nothing was read.
    async fn decide(&self, op: &Op) -> Result<Option<(Step, f64, Array)>, JsValue> {
        let mut reads = Reads::default();
        let stamps = Array::new();
        let mut pending = op.reads();
        for _ in 0..=MAX_READ_ROUNDS {
            let stamp = match self.read(&pending, &mut reads).await {
                Ok(stamp) => stamp,
                Err(error) if get(&error, "busy").is_truthy() => return Ok(None),
                Err(error) => return Err(error),
            };
            stamps.push(&stamp);
            let now = date_now();
            match op.decide(&self.grantor, &reads, clock(now)) {
                Step::Read(more) => pending = more,
                step => return Ok(Some((step, now, stamps))),
            }
        }
        let refusal = Refusal::new(ErrorCode::Internal, "the request asked for too many reads");
        Ok(Some((Step::refused(refusal), date_now(), stamps)))
    }

    /// Reads `pending` into `reads`; resolves to the read's stamp.
    async fn read(&self, pending: &[Read], reads: &mut Reads) -> Result<JsValue, JsValue> {
        let gets = Array::new();
        let ranges = Array::new();
        for read in pending {
            match read {
                Read::Get(key) => {
                    gets.push(&key_parts(key));
                }
                Read::Range {
                    kind,
                    start,
                    end,
                    limit,
                } => {
                    let range = Array::of4(
                        &JsValue::from_str(kind),
                        &JsValue::from_str(start),
                        &JsValue::from_str(end),
                        &limit.map_or(JsValue::UNDEFINED, |n| JsValue::from(n as f64)),
                    );
                    ranges.push(&range);
                }
            }
        }
        let result = JsFuture::from(self.call("read", &[gets.into(), ranges.into()])?).await?;
        let values = get(&result, "values");
        let mut values = values
            .dyn_ref::<Array>()
            .ok_or_else(|| store_error("read resolved without values"))?
            .iter();
        let found_ranges = get(&result, "ranges");
        let mut found_ranges = found_ranges
            .dyn_ref::<Array>()
            .ok_or_else(|| store_error("read resolved without ranges"))?
            .iter();
        for read in pending {
            match read {
                Read::Get(key) => {
                    let value = values.next().ok_or_else(|| {
                        store_error("read resolved without a value for every key")
                    })?;
                    let found = text(&value)?.map(|text| (key.clone(), text));
                    reads.add(read.clone(), found.into_iter().collect());
                }
                Read::Range { kind, .. } => {
                    let entries = found_ranges
                        .next()
                        .and_then(|entries| entries.dyn_into::<Array>().ok())
                        .ok_or_else(|| store_error("read resolved without every range"))?;
                    let mut found = Vec::with_capacity(entries.length() as usize);
                    for entry in entries.iter() {
                        let entry: Array = entry
                            .dyn_into()
                            .map_err(|_| store_error("range entry that is not [name, text]"))?;
                        let name = entry.get(0).as_string();
                        let key = name.and_then(|name| Key::parse(kind, &name));
                        let (Some(key), Some(text)) = (key, text(&entry.get(1))?) else {
                            return Err(store_error("range entry that is not [name, text]"));
                        };
                        found.push((key, text));
                    }
                    reads.add(read.clone(), found);
                }
            }
        }
        Ok(get(&result, "stamp"))
    }

    async fn commit(
        &self,
        stamps: &Array,
        writes: &[(Key, Option<String>)],
    ) -> Result<bool, JsValue> {
        let entries: Array = writes
            .iter()
            .map(|(key, text)| {
                let entry = key_parts(key);
                entry.push(
                    &text
                        .as_deref()
                        .map_or(JsValue::UNDEFINED, JsValue::from_str),
                );
                JsValue::from(entry)
            })
            .collect();
        let committed =
            JsFuture::from(self.call("commit", &[stamps.into(), entries.into()])?).await?;
        Ok(committed.is_truthy())
    }

    async fn changed(&self, key: &Key, wait_ms: f64, stamp: &JsValue) -> Result<(), JsValue> {
        let waited = self.call(
            "changed",
            &[
                JsValue::from_str(key.kind()),
                JsValue::from_str(&key.name()),
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

/// A record's text as a store gave it: `None` when absent; anything but text is the store's
/// error.
fn text(value: &JsValue) -> Result<Option<String>, JsValue> {
    match value.as_string() {
        Some(text) => Ok(Some(text)),
        None if value.is_undefined() || value.is_null() => Ok(None),
        None => Err(store_error("read resolved a value that is not text")),
    }
}

/// The answer to a request decided again [`MAX_COMMIT_TRIES`] times without committing.
fn too_busy() -> Step {
    Step::refused(Refusal::new(
        ErrorCode::StorageUnavailable,
        "the store was too busy to commit; the request had no effect",
    ))
}

/// The pause before deciding a request again after its `refused`-th refusal: random, so that
/// grantors that collided do not collide again, within a doubling ceiling.
async fn back_off(refused: u32) -> Result<(), JsValue> {
    let ceiling = MAX_BACKOFF_MS.min(f64::from(1u32 << refused.min(6)));
    sleep(js_sys::Math::random() * ceiling).await
}

/// Resolves after `ms`, on the global `setTimeout`.
async fn sleep(ms: f64) -> Result<(), JsValue> {
    let promise = Promise::new(&mut |resolve, _| {
        let set_timeout: js_sys::Function = get(&js_sys::global(), "setTimeout").unchecked_into();
        let _ = set_timeout.call2(&JsValue::UNDEFINED, &resolve, &JsValue::from(ms));
    });
    JsFuture::from(promise).await.map(drop)
}

/// Checks the settings of `options` (all but `serverKey`), as [`KvGrantorCore::new`] does, so
/// that a grantor whose key comes later refuses bad settings at once.
#[wasm_bindgen(js_name = checkKvGrantorOptions)]
pub fn check_kv_grantor_options(options: JsValue) -> Result<(), JsValue> {
    settings(&options).map(drop)
}

/// The durations granted, the clock skew bound and the claims an item gets, from `options`.
fn settings(options: &JsValue) -> Result<(DurationLimits, u64, u32), JsValue> {
    let min_ms = whole_ms(options, "minDurationMs", 500)?;
    let max_ms = whole_ms(options, "maxDurationMs", 600_000)?;
    let limits = DurationLimits::new(min_ms, max_ms).ok_or_else(|| {
        config(
            "maxDurationMs",
            "must be at least minDurationMs, which must be at least 1, and at most 2147483647",
        )
    })?;
    let max_attempts = match get(options, "maxAttempts") {
        value if value.is_undefined() => DEFAULT_MAX_ATTEMPTS,
        value => value
            .as_f64()
            .filter(|n| n.fract() == 0.0 && (1.0..=f64::from(MAX_ATTEMPTS)).contains(n))
            .map(|n| n as u32)
            .ok_or_else(|| config("maxAttempts", "must be a whole number from 1 to 1000"))?,
    };
    // A store's own setting (DenoKvGrantor's re-reads while a watch waits), checked here with
    // the rest so that every duration option has one rule.
    whole_ms(options, "watchPollMs", 0)?;
    Ok((limits, whole_ms(options, "clockSkewMs", 0)?, max_attempts))
}

/// A key as the store objects take it: `[kind, name]`.
fn key_parts(key: &Key) -> Array {
    Array::of2(
        &JsValue::from_str(key.kind()),
        &JsValue::from_str(&key.name()),
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
