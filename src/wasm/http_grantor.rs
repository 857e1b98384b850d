//! `HttpGrantorCore`: the tenure grantor protocol (`/v1`, JSON over HTTP) over `fetch`, and the
//! renewal batcher that shares one request among many leases. The package's `HttpGrantor` class
//! wraps it.
//!
//! Requests are the protocol's types ([`crate::protocol`]): the caller's arguments are read onto
//! them ([`super::value`]), completed with the secrets this grantor remembers, converted with
//! serde-wasm-bindgen and sent as JSON text. A 2xx reply is read strictly ([`super::fetch`]: within
//! its size cap, UTF-8, JSON without duplicate keys) and resolved as the grantor sent it: the
//! holder's or claimer's core validates it like any grantor's reply, so a malformed one is a
//! failed attempt there, never a grant. What this grantor itself acts on (a grant's or claim's
//! secret) it reads onto the protocol's reply types; a reply that does not fit teaches it nothing.
//! A non-2xx reply is a typed failure by the core's status rule.
//!
//! Nothing here is borrowed while JavaScript runs: the secrets and the batcher are taken and put
//! back around each step, and the user's `fetch` and abort listeners run with no borrow held.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use js_sys::{Array, Function, Object, Promise};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, AddEventListenerOptions};

use super::bounded::BoundedMap;
use super::error::{config_error as core_config_error, get, lease_error, set};
use super::fetch::{
    base_href, caller_signal, checked_base_url, checked_fetch, checked_timeout_ms, config_error,
    decimal, grantor_error, header_entries, json_text, lenient_json, malformed, pair_key, promise,
    status_failure, strict_json, text_of, Detail, Endpoint, Reply, Style,
};
use super::js::now_ms;
use super::lease::now_or_expired;
use super::reply::{claim_reply, grant_outcome, renew_outcome};
use super::value::{from_js, from_js_strict, Passed};
use super::watch::{held_view, Feed, Fetching, ObservationCore, Sink};
use crate::core::{
    batch_delay, BatchConfig, BatchFailure, BatchId, BatchOutput, Batcher, ClaimReply,
    HolderConfig, HolderOptionsMs, HolderTiming, ItemResult, Micros, MonoTime, Now, RenewalId,
    RenewalSettlement, RenewalSpec, WatchConfig, REMEMBERED_LEASES,
};
use crate::protocol::{
    max_batch_reply_bytes, refuses_unknown_field, ClaimRequest, CompleteRequest, EnqueueRequest,
    ErrorCode, FailRequest, FencedReadRequest, FencedWriteRequest, GrantOutcome, GrantRequest,
    HeartbeatRequest, ItemRequest, NewItem, NextClaim, QueueStatsRequest, ReleaseRequest,
    RenewOutcome, RenewRequest, RevokeRequest, StatusRequest, Token, WatchRequest, MAX_REPLY_BYTES,
};

const BATCH_PATH: &str = "/v1/renew/batch";
const RENEW_PATH: &str = "/v1/renew";
const CLAIM_PATH: &str = "/v1/queues/claim";

/// The failure of a call whose arguments do not fit the protocol's request (a field of the wrong
/// type, a required one missing, or, in a value sent as it is, one the protocol does not know):
/// refused before sending, as the grantor would refuse it.
fn wrong_type(path: &str) -> JsValue {
    let detail = Detail {
        grantor_code: Some(ErrorCode::WrongType.as_str()),
        ..Detail::default()
    };
    let message = [
        path,
        ": the arguments do not fit the protocol's request (a field missing, unknown or of the wrong type)",
    ]
    .concat();
    grantor_error("bad_request", &message, detail)
}

/// The caller's value as the protocol type `T`, or [`wrong_type`].
fn typed<T: DeserializeOwned>(value: &JsValue, path: &str) -> Result<T, JsValue> {
    from_js(value).map_err(|_| wrong_type(path))
}

/// A value the caller passes as part of the wire request itself, as the protocol type `T`, every
/// field of it read, so that one the protocol does not know is refused as the grantor would.
fn typed_strictly<T: DeserializeOwned>(value: &JsValue, path: &str) -> Result<T, JsValue> {
    from_js_strict(value).map_err(|_| wrong_type(path))
}

/// A settlement's `claimNext`, read strictly.
fn claim_next(args: &JsValue, path: &str) -> Result<Option<NextClaim>, JsValue> {
    let next = get(args, "claimNext");
    if next.is_undefined() || next.is_null() {
        return Ok(None);
    }
    typed_strictly(&next, path).map(Some)
}

/// An explicit secret (`leaseSecret`, `claimSecret`) must be a non-empty string; absent means
/// "the one this grantor remembers".
fn explicit_secret(
    args: &JsValue,
    field: &str,
    code: ErrorCode,
) -> Result<Option<String>, JsValue> {
    let value = get(args, field);
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_string() {
        Some(secret) if !secret.is_empty() => Ok(Some(secret)),
        _ => {
            let detail = Detail {
                grantor_code: Some(code.as_str()),
                ..Detail::default()
            };
            let message = [field, " must be a non-empty string"].concat();
            Err(grantor_error("bad_request", &message, detail))
        }
    }
}

/// A completion or failure report: the claim it settles, its secret and its `claimNext`.
trait Settlement: Serialize + DeserializeOwned {
    fn claim_next(&mut self) -> &mut Option<NextClaim>;
    fn claim_secret(&mut self) -> &mut Option<String>;
    /// `(itemId, token)` of the claim it settles.
    fn claim(&self) -> (u64, Token);
    fn queue(&self) -> &str;
    fn worker(&self) -> &str;
}

/// [`Settlement`] for each report type, whose fields are the same.
macro_rules! settlement {
    ($request:ty) => {
        impl Settlement for $request {
            fn claim_next(&mut self) -> &mut Option<NextClaim> {
                &mut self.claim_next
            }
            fn claim_secret(&mut self) -> &mut Option<String> {
                &mut self.claim_secret
            }
            fn claim(&self) -> (u64, Token) {
                (self.item_id, self.token)
            }
            fn queue(&self) -> &str {
                &self.queue
            }
            fn worker(&self) -> &str {
                &self.worker
            }
        }
    };
}
settlement!(CompleteRequest<Passed>);
settlement!(FailRequest<Passed>);

/// What the grantor shares with its requests in flight.
struct Shared {
    endpoint: Endpoint,
    /// `(resource, token)` → the grant's secret.
    lease_secrets: RefCell<BoundedMap<(String, u64), String>>,
    /// `(resource, holder)` → the secret of that holder's latest grant, for a re-grant.
    holder_secrets: RefCell<BoundedMap<(String, String), String>>,
    /// `(itemId, token)` → the claim's secret.
    claim_secrets: RefCell<BoundedMap<(u64, u64), String>>,
    /// The renewal batcher, with `batchRenewals`.
    batching: Option<Batching>,
    /// Set once the grantor refuses `claimNext` (it predates it): settle, then claim apart.
    claim_next_refused: Cell<bool>,
}

/// A grantor speaking the tenure protocol over `fetch`. The package's `HttpGrantor` wraps it.
#[wasm_bindgen]
pub struct HttpGrantorCore {
    shared: Rc<Shared>,
}

/// `batchRenewals`: off (absent or false), on with the defaults (true), or `{maxDelayMs,
/// maxBatch}`, which the core checks.
fn batch_config(value: &JsValue) -> Result<Option<BatchConfig>, JsValue> {
    if value.is_undefined() || value.as_bool() == Some(false) {
        return Ok(None);
    }
    let number = |value: JsValue| -> Option<f64> {
        (!value.is_undefined()).then(|| value.as_f64().unwrap_or(f64::NAN))
    };
    let (max_delay, max_batch) = if value.as_bool() == Some(true) {
        (None, None)
    } else {
        if !super::fetch::is_plain_object(value) {
            return Err(config_error(
                "batchRenewals",
                "batchRenewals must be true, false or {maxDelayMs?, maxBatch?}",
            ));
        }
        for key in js_sys::Object::keys(value.unchecked_ref::<Object>()).iter() {
            let key = key.as_string().unwrap_or_default();
            if key != "maxDelayMs" && key != "maxBatch" {
                let message = ["batchRenewals has no option ", &key].concat();
                return Err(config_error("batchRenewals", &message));
            }
        }
        (
            number(get(value, "maxDelayMs")),
            number(get(value, "maxBatch")),
        )
    };
    BatchConfig::from_ms(max_delay, max_batch)
        .map(Some)
        .map_err(|e| core_config_error(&e))
}

/// `apiKey`: a bearer key, one header word, not given twice.
fn checked_api_key(
    value: &JsValue,
    headers: &[(String, String)],
) -> Result<Option<String>, JsValue> {
    if value.is_undefined() {
        return Ok(None);
    }
    let key = value
        .as_string()
        .filter(|k| !k.is_empty() && k.bytes().all(|b| (0x21..=0x7e).contains(&b)))
        .ok_or_else(|| {
            config_error(
                "apiKey",
                "apiKey must be a non-empty string of printable ASCII without spaces",
            )
        })?;
    if headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
    {
        return Err(config_error(
            "headers",
            "give apiKey or an authorization header, not both",
        ));
    }
    Ok(Some(key))
}

#[wasm_bindgen]
impl HttpGrantorCore {
    /// Validates the options (errors name the option): `baseUrl`, `apiKey`, `headers`,
    /// `timeoutMs`, `credentials`, `fetch`, `batchRenewals`.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(options: JsValue) -> Result<HttpGrantorCore, JsValue> {
        let url = checked_base_url(&get(&options, "baseUrl"), "baseUrl")?;
        let batching = batch_config(&get(&options, "batchRenewals"))?;
        let timeout_ms = checked_timeout_ms(&get(&options, "timeoutMs"))?;
        let mut headers = Vec::new();
        for (name, value) in header_entries(&get(&options, "headers"))? {
            // As fetch would take it: the value as text.
            let message = ["header ", &name, " must be a string"].concat();
            let value = text_of(&value).ok_or_else(|| config_error("headers", &message))?;
            headers.push((name, value));
        }
        if let Some(key) = checked_api_key(&get(&options, "apiKey"), &headers)? {
            headers.push(("authorization".into(), ["Bearer ", &key].concat()));
        }
        let fetch = checked_fetch(&get(&options, "fetch"))?;
        let endpoint = Endpoint::new(
            base_href(&url),
            headers,
            timeout_ms,
            get(&options, "credentials"),
            fetch,
            Style::Protocol,
        );
        Ok(HttpGrantorCore {
            shared: Rc::new(Shared {
                endpoint,
                lease_secrets: RefCell::new(BoundedMap::new(REMEMBERED_LEASES)),
                holder_secrets: RefCell::new(BoundedMap::new(REMEMBERED_LEASES)),
                claim_secrets: RefCell::new(BoundedMap::new(REMEMBERED_LEASES)),
                batching: batching.map(Batching::new),
                claim_next_refused: Cell::new(false),
            }),
        })
    }

    /// The longest `batchRenewals.maxDelayMs` that puts none of the holders with `configs` (a
    /// LeaseHolder configuration or an array of them) at risk, in whole ms.
    #[wasm_bindgen(skip_jsdoc, js_name = batchDelayMs)]
    pub fn batch_delay_ms(configs: JsValue) -> Result<f64, JsValue> {
        let configs = if Array::is_array(&configs) {
            Array::from(&configs)
        } else {
            Array::of1(&configs)
        };
        let number = |value: JsValue| -> Option<f64> {
            (!value.is_undefined()).then(|| value.as_f64().unwrap_or(f64::NAN))
        };
        let mut checked = Vec::new();
        for config in configs.iter() {
            let options = HolderOptionsMs {
                renew_interval_ms: number(get(&config, "renewIntervalMs")),
                request_timeout_ms: number(get(&config, "requestTimeoutMs")),
                ..HolderOptionsMs::default()
            };
            let lease = number(get(&config, "leaseMs")).unwrap_or(f64::NAN);
            let margin = number(get(&config, "marginMs")).unwrap_or(f64::NAN);
            checked.push(
                HolderConfig::from_ms(lease, margin, options, 0)
                    .map_err(|e| core_config_error(&e))?,
            );
        }
        match batch_delay(&checked) {
            Some(delay) => Ok(delay.as_ms_floor() as f64),
            None => Err(lease_error(
                "ERR_LEASE_CONFIG",
                "give at least one holder configuration",
                Some("configs"),
            )),
        }
    }

    /// The grantor's base URL.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.shared.endpoint.base_url().to_owned()
    }

    /// `POST /v1/grant`, with the secret of this holder's latest grant (or `leaseSecret`);
    /// remembers the new grant's secret.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn grant(&self, args: JsValue) -> Promise {
        self.start(|shared| {
            let path = "/v1/grant";
            let explicit = explicit_secret(&args, "leaseSecret", ErrorCode::BadLeaseSecret)?;
            let mut body: GrantRequest = typed(&args, path)?;
            let holder_key = (body.resource.clone(), body.holder.clone());
            body.lease_secret =
                explicit.or_else(|| shared.holder_secrets.borrow().get(&holder_key).cloned());
            let remember = Remember::Grant(holder_key);
            Call::new(path, &body, &args, remember)
        })
    }

    /// `POST /v1/renew` with the grant's secret; with `batchRenewals`, one element of the next
    /// `POST /v1/renew/batch`, answered the same way.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn renew(&self, args: JsValue) -> Promise {
        let renewal = (|| {
            let explicit = explicit_secret(&args, "leaseSecret", ErrorCode::BadLeaseSecret)?;
            let mut body: RenewRequest = typed(&args, RENEW_PATH)?;
            let lease = (body.resource.clone(), body.token.get());
            let secret =
                explicit.or_else(|| self.shared.lease_secrets.borrow().get(&lease).cloned());
            body.lease_secret = secret.clone();
            Ok::<_, JsValue>((body, Remember::Renewal(lease, secret)))
        })();
        let (body, remember) = match renewal {
            Ok(renewal) => renewal,
            Err(error) => return Promise::reject(&error),
        };
        if self.shared.batching.is_some() {
            let shared = Rc::clone(&self.shared);
            return promise(batched_renew(shared, body, args, remember));
        }
        self.start(|_| Call::new(RENEW_PATH, &body, &args, remember))
    }

    /// `POST /v1/release` with the grant's secret: idempotent.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn release(&self, args: JsValue) -> Promise {
        self.start(|shared| {
            let path = "/v1/release";
            let explicit = explicit_secret(&args, "leaseSecret", ErrorCode::BadLeaseSecret)?;
            let mut body: ReleaseRequest = typed(&args, path)?;
            let lease = (body.resource.clone(), body.token.get());
            body.lease_secret =
                explicit.or_else(|| shared.lease_secrets.borrow().get(&lease).cloned());
            if let Some(batching) = &shared.batching {
                let key = pair_key(&[&body.resource, &body.holder]);
                batching.core.borrow_mut().forget(&key);
            }
            Call::new(path, &body, &args, Remember::Nothing)
        })
    }

    /// `POST /v1/status`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn status(&self, resource: JsValue, signal: JsValue) -> Promise {
        self.start(|_| {
            let path = "/v1/status";
            let body = StatusRequest {
                resource: typed(&resource, path)?,
            };
            Call::signalled(path, &body, signal)
        })
    }

    /// `POST /v1/watch`, long polls one after another: who holds `resource`, change by change.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn observe(&self, resource: JsValue, signal: JsValue) -> Result<ObservationCore, JsValue> {
        let resource = typed(&resource, "/v1/watch")?;
        let feed = WatchFeed {
            shared: Rc::clone(&self.shared),
            resource,
        };
        ObservationCore::start(Rc::new(feed), &signal)
    }

    /// `POST /v1/revoke`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn revoke(&self, resource: JsValue, signal: JsValue) -> Promise {
        self.start(|_| {
            let path = "/v1/revoke";
            let body = RevokeRequest {
                resource: typed(&resource, path)?,
            };
            Call::signalled(path, &body, signal)
        })
    }

    /// `POST /v1/fenced/write`, with the secret of the grant with `token` (or `leaseSecret`).
    #[wasm_bindgen(skip_jsdoc, js_name = fencedWrite)]
    pub fn fenced_write(
        &self,
        resource: JsValue,
        payload: JsValue,
        token: JsValue,
        options: JsValue,
    ) -> Promise {
        self.start(|shared| {
            let path = "/v1/fenced/write";
            let explicit = explicit_secret(&options, "leaseSecret", ErrorCode::BadLeaseSecret)?;
            let resource: String = typed(&resource, path)?;
            let token: Token = typed(&token, path)?;
            let lease = (resource.clone(), token.get());
            let lease_secret =
                explicit.or_else(|| shared.lease_secrets.borrow().get(&lease).cloned());
            let body = FencedWriteRequest {
                resource,
                payload: Passed(payload),
                token,
                lease_secret,
            };
            let signal = get(&options, "signal");
            Call::signalled(path, &body, signal)
        })
    }

    /// `POST /v1/fenced/read`.
    #[wasm_bindgen(skip_jsdoc, js_name = fencedRead)]
    pub fn fenced_read(&self, resource: JsValue, signal: JsValue) -> Promise {
        self.start(|_| {
            let path = "/v1/fenced/read";
            let body = FencedReadRequest {
                resource: typed(&resource, path)?,
            };
            Call::signalled(path, &body, signal)
        })
    }

    /// `POST /v1/queues/enqueue`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn enqueue(&self, queue: JsValue, items: JsValue, signal: JsValue) -> Promise {
        self.start(|_| {
            let path = "/v1/queues/enqueue";
            let items: Vec<NewItem<Passed>> = typed_strictly(&items, path)?;
            let body = EnqueueRequest {
                queue: typed(&queue, path)?,
                items,
            };
            Call::signalled(path, &body, signal)
        })
    }

    /// `POST /v1/queues/claim`; remembers the claim's secret.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn claim(&self, args: JsValue) -> Promise {
        self.start(|_| {
            let body: ClaimRequest = typed(&args, CLAIM_PATH)?;
            Call::new(CLAIM_PATH, &body, &args, Remember::Claim)
        })
    }

    /// `POST /v1/queues/heartbeat`, with the claim's secret.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn heartbeat(&self, args: JsValue) -> Promise {
        self.start(|shared| {
            let path = "/v1/queues/heartbeat";
            let explicit = explicit_secret(&args, "claimSecret", ErrorCode::BadClaimSecret)?;
            let mut body: HeartbeatRequest = typed(&args, path)?;
            body.claim_secret = explicit.or_else(|| claim_secret(shared, body.item_id, body.token));
            Call::new(path, &body, &args, Remember::Nothing)
        })
    }

    /// `POST /v1/queues/complete`, with the claim's secret; with `claimNext`, see [`settle`].
    #[wasm_bindgen(skip_jsdoc)]
    pub fn complete(&self, args: JsValue) -> Promise {
        self.settle_claim::<CompleteRequest<Passed>>("/v1/queues/complete", &args)
    }

    /// `POST /v1/queues/fail`, with the claim's secret; with `claimNext`, see [`settle`].
    #[wasm_bindgen(skip_jsdoc)]
    pub fn fail(&self, args: JsValue) -> Promise {
        self.settle_claim::<FailRequest<Passed>>("/v1/queues/fail", &args)
    }

    /// `POST /v1/queues/stats`.
    #[wasm_bindgen(skip_jsdoc, js_name = queueStats)]
    pub fn queue_stats(&self, queue: JsValue, signal: JsValue) -> Promise {
        self.start(|_| {
            let path = "/v1/queues/stats";
            let body = QueueStatsRequest {
                queue: typed(&queue, path)?,
            };
            Call::signalled(path, &body, signal)
        })
    }

    /// `POST /v1/queues/item`.
    #[wasm_bindgen(skip_jsdoc, js_name = queueItem)]
    pub fn queue_item(&self, queue: JsValue, item_id: JsValue, signal: JsValue) -> Promise {
        self.start(|_| {
            let path = "/v1/queues/item";
            let body = ItemRequest {
                queue: typed(&queue, path)?,
                item_id: typed(&item_id, path)?,
            };
            Call::signalled(path, &body, signal)
        })
    }
}

impl HttpGrantorCore {
    /// Builds a call (failing before anything is sent) and sends it.
    fn start(&self, build: impl FnOnce(&Shared) -> Result<Call, JsValue>) -> Promise {
        match build(&self.shared) {
            Ok(call) => promise(send(Rc::clone(&self.shared), call)),
            Err(error) => Promise::reject(&error),
        }
    }

    /// Completes or fails a claim (`body` for `path`). With `claimNext`, once that took effect
    /// the grantor claims the worker's next item on the queue in the same request, and the
    /// reply's `next` is what `claim` would have answered, its secret remembered like a claim's.
    /// A grantor that predates claimNext refuses the field; from then on this grantor settles and
    /// then claims in two requests, with the same reply.
    /// Reads a completion or failure report from `args`, with the claim's secret (given, or
    /// remembered from its claim), and sends it as [`Self::settle`] does.
    fn settle_claim<B: Settlement>(&self, path: &'static str, args: &JsValue) -> Promise {
        let body = (|| {
            let explicit = explicit_secret(args, "claimSecret", ErrorCode::BadClaimSecret)?;
            let mut body: B = typed(args, path)?;
            *body.claim_next() = claim_next(args, path)?;
            let (item, token) = body.claim();
            *body.claim_secret() = explicit.or_else(|| claim_secret(&self.shared, item, token));
            Ok(body)
        })();
        match body {
            Ok(body) => self.settle(path, body, args),
            Err(error) => Promise::reject(&error),
        }
    }

    fn settle<B: Settlement>(&self, path: &'static str, mut body: B, args: &JsValue) -> Promise {
        let Some(next) = body.claim_next().take() else {
            return self.start(|_| Call::new(path, &body, args, Remember::Nothing));
        };
        let texts = (|| {
            let alone = json_text(&body)?;
            let claim = json_text(&next.request(body.queue(), body.worker()))?;
            *body.claim_next() = Some(next);
            Ok::<_, JsValue>((json_text(&body)?, alone, claim))
        })();
        let (with_next, alone, claim) = match texts {
            Ok(texts) => texts,
            Err(error) => return Promise::reject(&error),
        };
        let signal = get(args, "signal");
        let call = |path, text, remember| Call {
            path,
            text,
            signal: signal.clone(),
            remember,
        };
        let with_next = call(path, with_next, Remember::Next);
        let alone = call(path, alone, Remember::Nothing);
        let claim = call(CLAIM_PATH, claim, Remember::Claim);
        promise(settle(Rc::clone(&self.shared), with_next, alone, claim))
    }
}

fn claim_secret(shared: &Shared, item_id: u64, token: Token) -> Option<String> {
    shared
        .claim_secrets
        .borrow()
        .get(&(item_id, token.get()))
        .cloned()
}

/// What to remember once a reply is in. The reply itself is passed through as the grantor sent
/// it, for the holder's or claimer's core to judge like any grantor's; what this grantor acts on
/// is read onto the protocol's reply type, and a reply that does not fit teaches it nothing.
enum Remember {
    Nothing,
    /// A grant's secret, for `(resource, holder)`.
    Grant((String, String)),
    /// A renewed lease `(resource, token)` keeps its secret among the newest remembered.
    Renewal((String, u64), Option<String>),
    /// A claim's secret.
    Claim,
    /// The secret of a settlement's `next` claim.
    Next,
}

/// One request, ready to go.
struct Call {
    path: &'static str,
    text: String,
    signal: JsValue,
    remember: Remember,
}

impl Call {
    /// A call with `body`, the caller's `signal` read from `args`.
    fn new(
        path: &'static str,
        body: &impl Serialize,
        args: &JsValue,
        remember: Remember,
    ) -> Result<Call, JsValue> {
        Ok(Call {
            path,
            text: json_text(body)?,
            signal: get(args, "signal"),
            remember,
        })
    }

    /// A call with `body` and `signal`, remembering nothing.
    fn signalled(
        path: &'static str,
        body: &impl Serialize,
        signal: JsValue,
    ) -> Result<Call, JsValue> {
        Ok(Call {
            path,
            text: json_text(body)?,
            signal,
            remember: Remember::Nothing,
        })
    }
}

/// Sends `call`; resolves the reply as the grantor sent it.
async fn send(shared: Rc<Shared>, call: Call) -> Result<JsValue, JsValue> {
    let (reply, _) = exchange(
        &shared,
        call.path,
        &call.text,
        &call.signal,
        MAX_REPLY_BYTES,
    )
    .await?;
    remember(&shared, &reply, call.remember);
    Ok(reply)
}

/// Remembers what `reply` says, as `what` asks.
fn remember(shared: &Shared, reply: &JsValue, what: Remember) {
    match what {
        Remember::Nothing => {}
        Remember::Grant((resource, holder)) => {
            // The secret travels beside the reply's fields (`GrantReplyWithSecret`). The reply is
            // read as the holder reads it: a grant the holder believes has its secret kept.
            if let (Ok(GrantOutcome::Granted { token, .. }), Some(secret)) =
                (grant_outcome(reply), get(reply, "leaseSecret").as_string())
            {
                let mut secrets = shared.lease_secrets.borrow_mut();
                secrets.set((resource.clone(), token.get()), secret.clone());
                shared
                    .holder_secrets
                    .borrow_mut()
                    .set((resource, holder), secret);
            }
        }
        Remember::Renewal(lease, Some(secret)) => {
            if matches!(renew_outcome(reply), Ok(RenewOutcome::Renewed { .. })) {
                shared.lease_secrets.borrow_mut().set(lease, secret);
            }
        }
        Remember::Renewal(_, None) => {}
        Remember::Claim => remember_claim(shared, reply),
        Remember::Next => remember_claim(shared, &get(reply, "next")),
    }
}

/// POSTs the JSON text `text`; resolves the parsed 2xx reply and its status, or fails with the
/// typed failure.
async fn exchange(
    shared: &Shared,
    path: &str,
    text: &str,
    signal: &JsValue,
    max_reply_bytes: usize,
) -> Result<(JsValue, u16), JsValue> {
    let reply = shared
        .endpoint
        .request("POST", path, Some(text), signal, max_reply_bytes, path)
        .await?;
    if reply.ok() {
        return strict_json(&reply.text)
            .map(|value| (value, reply.status))
            .ok_or_else(|| {
                malformed(
                    path,
                    "reply is not JSON without duplicate keys",
                    Some(reply.status),
                )
            });
    }
    Err(reply_failure(path, &reply))
}

/// The typed failure a non-2xx reply to `path` stands for, by the core's status rule.
fn reply_failure(path: &str, reply: &Reply) -> JsValue {
    let code = get(&get(&lenient_json(&reply.text), "error"), "code").as_string();
    status_failure(
        path,
        reply.status,
        reply.retry_after().as_deref(),
        code.as_deref(),
        code.as_deref(),
        None,
    )
}

/// How long the grantor may hold a watch open: under its `WATCH_MAX_WAIT_MS`, so that proxies
/// with a 30 s idle timeout see an answer first.
const WATCH_WAIT_MS: u64 = 25_000;

/// The reference grantor's change feed: `POST /v1/watch`, a long poll.
struct WatchFeed {
    shared: Rc<Shared>,
    resource: String,
}

impl WatchFeed {
    /// A long poll's timeout: the grantor's wait plus the endpoint's own timeout.
    fn timeout_ms(&self) -> f64 {
        WATCH_WAIT_MS as f64 + self.shared.endpoint.timeout_ms()
    }
}

impl Feed for WatchFeed {
    fn config(&self) -> WatchConfig {
        // The request's own timeout ends a silent long poll first; the watcher's deadline is
        // the backstop for a `fetch` that ignores its signal.
        WatchConfig::changes(Micros::from_ms_f64(self.timeout_ms() + 1_000.0))
    }

    fn fetch(&self, after: Option<u64>, signal: AbortSignal, sink: Sink) -> Fetching {
        const PATH: &str = "/v1/watch";
        let shared = Rc::clone(&self.shared);
        let timeout_ms = self.timeout_ms();
        let body = WatchRequest {
            resource: self.resource.clone(),
            after,
            wait_ms: after.map(|_| WATCH_WAIT_MS),
        };
        Box::pin(async move {
            let text = json_text(&body)?;
            let call = ("POST", PATH, Some(text.as_str()));
            let signal: JsValue = signal.into();
            let reply = shared
                .endpoint
                .request_within(call, &signal, MAX_REPLY_BYTES, PATH, timeout_ms)
                .await?;
            if !reply.ok() {
                return Err(reply_failure(PATH, &reply));
            }
            let bad = |problem| malformed(PATH, problem, Some(reply.status));
            let value = strict_json(&reply.text)
                .ok_or_else(|| bad("reply is not JSON without duplicate keys"))?;
            if get(&value, "resource").as_string().as_deref() != Some(body.resource.as_str()) {
                return Err(bad("reply is about another resource"));
            }
            let version = get(&value, "version")
                .as_f64()
                .and_then(|v| {
                    Token::issued_from_f64(v)
                        .map(Token::get)
                        .or((v == 0.0).then_some(0))
                })
                .ok_or_else(|| bad("version is not a whole number"))?;
            let mut view = held_view(&value, PATH)?;
            view.version = version;
            sink(view);
            Ok(())
        })
    }
}

/// Remembers the secret of the claim a claim reply (or a settlement's `next`) made, read as the
/// claimer reads it: a claim the claimer works on has its secret kept, and one that is no claim
/// is simply not remembered.
fn remember_claim(shared: &Shared, reply: &JsValue) {
    if let ((ClaimReply::Claimed { item, token, .. }, _), Some(secret)) =
        (claim_reply(reply), get(reply, "claimSecret").as_string())
    {
        shared
            .claim_secrets
            .borrow_mut()
            .set((item, token.get()), secret);
    }
}

/// A settlement with `claimNext` (see [`HttpGrantorCore::settle`]): `with_next` unless the
/// grantor refuses the field, else `alone` and then `claim`.
async fn settle(
    shared: Rc<Shared>,
    with_next: Call,
    alone: Call,
    claim: Call,
) -> Result<JsValue, JsValue> {
    if !shared.claim_next_refused.get() {
        match send(Rc::clone(&shared), with_next).await {
            Ok(reply) => return Ok(reply),
            Err(error) => {
                let status = get(&error, "status").as_f64().unwrap_or(0.0) as u16;
                let code = get(&error, "grantorCode").as_string().unwrap_or_default();
                if !refuses_unknown_field(status, &code) {
                    return Err(error);
                }
                shared.claim_next_refused.set(true);
            }
        }
    }
    let reply = send(Rc::clone(&shared), alone).await?;
    let next = send(shared, claim).await?;
    let joined = Object::assign(&Object::new(), reply.unchecked_ref());
    set(&joined, "next", &next);
    Ok(joined.into())
}

/// The shared renewal queue of one grantor with `batchRenewals`: renewals wait and go out
/// together as `POST /v1/renew/batch`, each answered with its own result.
///
/// The core ([`Batcher`]) decides how long each renewal waits, when a batch goes and what it
/// carries, and how each renewal ends; this sends what it asks, keeps one timer for its next
/// deadline, and settles each renewal's promise as it says.
struct Batching {
    core: RefCell<Batcher>,
    /// By renewal id, which only grows: in order.
    entries: RefCell<Vec<(u64, Entry)>>,
    timer: Cell<Option<(Timeout, MonoTime)>>,
}

/// A renewal waiting in the batcher, until settled.
struct Entry {
    text: String,
    signal: Option<AbortSignal>,
    on_abort: Option<Closure<dyn FnMut()>>,
    resolve: Function,
    reject: Function,
}

/// A renewal's abort listener, taken out of its entry so that it can be removed with nothing
/// borrowed (removing it calls into JavaScript, which may be a caller's own signal class).
type Listening = (AbortSignal, Closure<dyn FnMut()>);

impl Entry {
    /// Sent or settled: an abort can no longer unsend it, and its holder ignores the reply. The
    /// listener is returned for [`stop_listening`].
    fn take_listener(&mut self) -> Option<Listening> {
        Some((self.signal.clone()?, self.on_abort.take()?))
    }
}

/// Removes a listener [`Entry::take_listener`] took out.
fn stop_listening(listening: Option<Listening>) {
    if let Some((signal, listener)) = listening {
        let _ =
            signal.remove_event_listener_with_callback("abort", listener.as_ref().unchecked_ref());
    }
}

/// What a batch came to, for the settlements that follow it.
enum BatchOutcome {
    Replied { results: Array, count: usize },
    Failed(JsValue),
}

impl Batching {
    fn new(config: BatchConfig) -> Batching {
        Batching {
            core: RefCell::new(Batcher::new(config)),
            entries: RefCell::new(Vec::new()),
            timer: Cell::new(None),
        }
    }

    fn take(&self, id: RenewalId) -> Option<Entry> {
        let mut entries = self.entries.borrow_mut();
        let at = entries.binary_search_by_key(&id.0, |e| e.0).ok()?;
        let (_, mut entry) = entries.remove(at);
        drop(entries);
        stop_listening(entry.take_listener());
        Some(entry)
    }
}

/// Reads the clocks; garbage readings make every delay run out at once (failing safe: a renewal
/// goes out sooner, never later).
fn batch_now() -> Now {
    let (mono, wall) = now_ms();
    now_or_expired(mono, wall).unwrap_or(Now::from_micros(u64::MAX / 2, u64::MAX / 2))
}

/// A duration in ms a holder said of its attempt: `None` unless a finite number not below 0.
fn attempt_ms(value: &JsValue) -> Option<Micros> {
    value
        .as_f64()
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(Micros::from_ms_f64)
}

fn abandoned(signal: Option<&AbortSignal>) -> JsValue {
    let reason = signal.map(AbortSignal::reason);
    let detail = Detail {
        cause: reason.as_ref(),
        ..Detail::default()
    };
    let message = [BATCH_PATH, ": the renewal was abandoned before it was sent"].concat();
    grantor_error("unreachable", &message, detail)
}

/// Queues the renewal `body`; resolves its reply (the batch's element, or a single renewal's
/// reply) or fails with its failure. `args` may say how long its holder waits for this attempt
/// (`requestTimeoutMs`) and what is left of its lease before the margin (`safeForMs`).
async fn batched_renew(
    shared: Rc<Shared>,
    body: RenewRequest,
    args: JsValue,
    remember: Remember,
) -> Result<JsValue, JsValue> {
    let Some(batching) = &shared.batching else {
        return Err(JsValue::UNDEFINED);
    };
    let Ok(signal) = caller_signal(&get(&args, "signal")) else {
        let message = [RENEW_PATH, ": signal is not an AbortSignal"].concat();
        return Err(grantor_error("unreachable", &message, Detail::default()));
    };
    if signal.as_ref().is_some_and(AbortSignal::aborted) {
        return Err(abandoned(signal.as_ref()));
    }
    let text = json_text(&body)?;
    let mut settle = None;
    let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
    let Some((resolve, reject)) = settle else {
        return Err(JsValue::UNDEFINED);
    };
    let holder = match (
        attempt_ms(&get(&args, "requestTimeoutMs")),
        attempt_ms(&get(&args, "safeForMs")),
    ) {
        (Some(request_timeout), Some(safe_for)) => Some(HolderTiming {
            request_timeout,
            safe_for,
        }),
        _ => None,
    };
    let key = pair_key(&[&body.resource, &body.holder]);
    let spec = RenewalSpec {
        key: &key,
        lease: Some(Micros::from_ms_f64(body.duration_ms as f64)),
        holder,
        body_chars: text.encode_utf16().count(),
    };
    let id = batching.core.borrow_mut().enqueue(batch_now(), spec);
    let on_abort = signal.as_ref().map(|signal| {
        let weak = Rc::downgrade(&shared);
        let listener = Closure::<dyn FnMut()>::new(move || {
            let Some(shared) = weak.upgrade() else { return };
            if let Some(Ok(mut core)) = shared.batching.as_ref().map(|b| b.core.try_borrow_mut()) {
                core.abandon(batch_now(), id);
            }
            drive(&shared, None);
        });
        let options = AddEventListenerOptions::new();
        options.set_once(true);
        let _ = signal.add_event_listener_with_callback_and_add_event_listener_options(
            "abort",
            listener.as_ref().unchecked_ref(),
            &options,
        );
        listener
    });
    let entry = Entry {
        text,
        signal,
        on_abort,
        resolve,
        reject,
    };
    batching.entries.borrow_mut().push((id.0, entry));
    drive(&shared, None);
    let reply = JsFuture::from(promise).await?;
    self::remember(&shared, &reply, remember);
    Ok(reply)
}

/// Does what the core asks, with nothing borrowed while acting; `outcome` is the batch whose
/// reply or failure the core was just given.
fn drive(shared: &Rc<Shared>, outcome: Option<&BatchOutcome>) {
    let Some(batching) = &shared.batching else {
        return;
    };
    let outputs: Vec<BatchOutput> = {
        let Ok(mut core) = batching.core.try_borrow_mut() else {
            return;
        };
        std::iter::from_fn(|| core.poll_output()).collect()
    };
    for output in outputs {
        match output {
            BatchOutput::Send(batch) => {
                let mut texts = Vec::with_capacity(batch.renewals.len());
                let mut listeners = Vec::with_capacity(batch.renewals.len());
                let mut entries = batching.entries.borrow_mut();
                for renewal in &batch.renewals {
                    let at = entries.binary_search_by_key(&renewal.0, |e| e.0);
                    if let Some((_, entry)) = at.ok().and_then(|at| entries.get_mut(at)) {
                        listeners.push(entry.take_listener());
                        texts.push(entry.text.clone());
                    }
                }
                drop(entries);
                listeners.into_iter().for_each(stop_listening);
                let shared = Rc::clone(shared);
                wasm_bindgen_futures::spawn_local(async move {
                    send_batch(&shared, batch.id, texts).await;
                });
            }
            BatchOutput::SendAlone(renewal) => {
                let Some(entry) = batching.take(renewal) else {
                    continue;
                };
                let shared = Rc::clone(shared);
                wasm_bindgen_futures::spawn_local(async move {
                    let signal = entry.signal.clone().map_or(JsValue::UNDEFINED, Into::into);
                    let sent = exchange(&shared, RENEW_PATH, &entry.text, &signal, MAX_REPLY_BYTES)
                        .await
                        .map(|(reply, _)| reply);
                    let _ = match sent {
                        Ok(reply) => entry.resolve.call1(&JsValue::UNDEFINED, &reply),
                        Err(error) => entry.reject.call1(&JsValue::UNDEFINED, &error),
                    };
                });
            }
            BatchOutput::Settle(renewal, settlement) => {
                if let Some(entry) = batching.take(renewal) {
                    settle_renewal(&entry, settlement, outcome);
                }
            }
        }
    }
    arm(shared);
}

/// Settles one renewal as the core said.
fn settle_renewal(entry: &Entry, settlement: RenewalSettlement, outcome: Option<&BatchOutcome>) {
    let fail = |error: &JsValue| entry.reject.call1(&JsValue::UNDEFINED, error);
    let _ = match (settlement, outcome) {
        (RenewalSettlement::Reply { index }, Some(BatchOutcome::Replied { results, .. })) => {
            let reply = results.get(index as u32);
            entry.resolve.call1(&JsValue::UNDEFINED, &reply)
        }
        (
            RenewalSettlement::ElementFailed { index, kind },
            Some(BatchOutcome::Replied { results, .. }),
        ) => {
            let code = get(&get(&results.get(index as u32), "error"), "code").as_string();
            let message = [BATCH_PATH, ": ", code.as_deref().unwrap_or("refused")].concat();
            let detail = Detail {
                grantor_code: code.as_deref(),
                ..Detail::default()
            };
            fail(&grantor_error(kind.as_str(), &message, detail))
        }
        (RenewalSettlement::BatchFailed, Some(BatchOutcome::Failed(error))) => fail(error),
        (RenewalSettlement::Malformed, Some(BatchOutcome::Replied { count, .. })) => {
            let message = ["expected ", &decimal(*count as u64), " results"].concat();
            fail(&malformed(BATCH_PATH, &message, None))
        }
        _ => fail(&abandoned(entry.signal.as_ref())),
    };
}

/// Sends one batch of the renewals' JSON `texts` and hands its outcome to the core.
async fn send_batch(shared: &Rc<Shared>, id: BatchId, texts: Vec<String>) {
    let Some(batching) = &shared.batching else {
        return;
    };
    let body = ["{\"renewals\":[", &texts.join(","), "]}"].concat();
    let max = max_batch_reply_bytes(texts.len());
    let sent = exchange(shared, BATCH_PATH, &body, &JsValue::UNDEFINED, max).await;
    let outcome = match sent {
        Err(error) => {
            let status = get(&error, "status").as_f64().map(|s| s as u16);
            let code = get(&error, "grantorCode").as_string();
            let failure = BatchFailure::of(status, code.as_deref());
            batching
                .core
                .borrow_mut()
                .handle_batch_failure(batch_now(), id, failure);
            BatchOutcome::Failed(error)
        }
        Ok((reply, _)) => {
            // Anything but an array counts as no result at all.
            let results = get(&reply, "results");
            let results: Array = if Array::is_array(&results) {
                results.unchecked_into()
            } else {
                Array::new()
            };
            let elements: Vec<JsValue> = results.iter().collect();
            let codes: Vec<Option<String>> = elements
                .iter()
                .map(|result| {
                    let error = if result.is_object() {
                        get(result, "error")
                    } else {
                        JsValue::UNDEFINED
                    };
                    (!error.is_undefined())
                        .then(|| get(&error, "code").as_string().unwrap_or_default())
                })
                .collect();
            let items: Vec<ItemResult<'_>> = elements
                .iter()
                .zip(&codes)
                .map(|(result, code)| match code {
                    Some(code) => ItemResult::Error(Some(code.as_str()).filter(|c| !c.is_empty())),
                    None => ItemResult::Reply {
                        renewed: get(result, "renewed").as_bool() == Some(true),
                    },
                })
                .collect();
            batching
                .core
                .borrow_mut()
                .handle_batch_reply(batch_now(), id, &items);
            BatchOutcome::Replied {
                results,
                count: texts.len(),
            }
        }
    };
    drive(shared, Some(&outcome));
}

/// One timer, for the core's next deadline; dropping the old one cancels it.
fn arm(shared: &Rc<Shared>) {
    let Some(batching) = &shared.batching else {
        return;
    };
    let Ok(due) = batching.core.try_borrow().map(|core| core.poll_timeout()) else {
        return;
    };
    let previous = batching.timer.take();
    if let Some(previous) = previous {
        if Some(previous.1) == due {
            batching.timer.set(Some(previous));
            return;
        }
    }
    let Some(due) = due else { return };
    // setTimeout takes a signed 32-bit delay; a longer wait re-arms when it fires.
    let delay_ms = (due.since(batch_now().mono).0 as f64 / 1000.0).clamp(0.0, 2_147_483_647.0);
    let weak: Weak<Shared> = Rc::downgrade(shared);
    let timeout = Timeout::new(delay_ms.ceil() as u32, move || {
        let Some(shared) = weak.upgrade() else { return };
        if let Some(batching) = &shared.batching {
            drop(batching.timer.take());
            batching.core.borrow_mut().handle_timeout(batch_now());
        }
        drive(&shared, None);
    });
    batching.timer.set(Some((timeout, due)));
}
