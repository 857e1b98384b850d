//! `KubernetesLeaseGrantorCore`: leases from Kubernetes `coordination.k8s.io/v1` Lease objects,
//! over the API server's REST API, with client-go leaderelection's rules: every change is a
//! compare-and-swap on `metadata.resourceVersion`, and another holder's lease is judged expired on
//! this process's own monotonic clock (the core's observed-expiry rule, [`ObserverCore`]), never by
//! comparing `renewTime` with the local wall clock. The package's `KubernetesLeaseGrantor` class
//! wraps it.
//!
//! A Lease read is checked strictly and kept as the server sent it: a write sends the object back
//! with the new spec, its other fields and annotations untouched, as client-go does.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use js_sys::{Object, Promise, Reflect};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::{
    attempt_key, check_duration_ms, check_holder, check_request_id, check_token,
    checked_credential, endpoint, Recent,
};
use crate::adapters::kubernetes::{
    lease_seconds, lease_version, refusal, token as lease_token, watch_end_ms, watch_failure,
    MAX_INT32, WATCH_WINDOW_S,
};
use crate::core::{HolderView, Micros, WatchConfig};
use crate::protocol::{ErrorCode, GrantReply, ReleaseReply, RenewRefusal, RenewReply, Token};
use crate::wasm::bounded::BoundedMap;
use crate::wasm::error::{get, set};
use crate::wasm::fetch::{
    bad_argument, clipped, config_error, decimal, grantor_error, json_text, lenient_json,
    malformed, pair_key, promise, reply_value, status_failure, strict_json, Detail, Endpoint,
    Reply,
};
use crate::wasm::js::{now_ms, performance_now};
use crate::wasm::observer::ObserverCore;
use crate::wasm::value::{from_js, Passed};
use crate::wasm::watch::{Feed, Fetching, ObservationCore, Sink};

/// Lease objects are small, but the API server adds `managedFields`; 256 KiB is generous.
const MAX_REPLY_BYTES: usize = 256 * 1024;
/// Observations kept; dropping one only makes the adapter wait a full lease again.
const MAX_OBSERVATIONS: usize = 4096;
/// The annotation recording which attempt (`requestId`) made the current grant.
const REQUEST_ID_ANNOTATION: &str = "tenure/request-id";

/// A Lease as the API server sends it: the fields checked here.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LeaseShape {
    kind: Option<String>,
    api_version: Option<String>,
    metadata: Option<MetadataShape>,
    spec: Option<SpecShape>,
}

/// The fields named with a leading underscore are read for their types only: checking them is
/// their purpose.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MetadataShape {
    name: Option<String>,
    resource_version: Option<String>,
    #[serde(rename = "annotations")]
    _annotations: Option<Annotations>,
}

/// Annotations: an object of them, whatever it holds.
#[derive(Deserialize)]
struct Annotations {}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SpecShape {
    holder_identity: Option<String>,
    lease_transitions: Option<u64>,
    lease_duration_seconds: Option<Passed>,
    #[serde(rename = "acquireTime")]
    _acquire_time: Option<String>,
    renew_time: Option<String>,
}

/// A new grant's spec.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NewSpec<'a> {
    holder_identity: &'a str,
    lease_duration_seconds: u64,
    acquire_time: &'a str,
    renew_time: &'a str,
    lease_transitions: u64,
}

/// `POST` of a new Lease.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NewLease<'a> {
    api_version: &'static str,
    kind: &'static str,
    metadata: NewMetadata<'a>,
    spec: NewSpec<'a>,
}

#[derive(Serialize)]
struct NewMetadata<'a> {
    name: &'a str,
    namespace: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<RequestIdAnnotation<'a>>,
}

#[derive(Serialize)]
struct RequestIdAnnotation<'a> {
    #[serde(rename = "tenure/request-id")]
    request_id: &'a str,
}

/// A Lease read and checked.
struct Lease {
    /// The object as the server sent it.
    raw: JsValue,
    /// Its spec with absent fields as the API defines them, other fields kept.
    spec: Object,
    holder: String,
    transitions: u64,
    /// The request id of the attempt that made the current grant.
    request_id: Option<String>,
}

/// A grantor on Kubernetes Lease objects, one per resource, named after it, in one namespace.
#[wasm_bindgen]
pub struct KubernetesLeaseGrantorCore {
    inner: Rc<Inner>,
}

struct Inner {
    endpoint: Endpoint,
    namespace: String,
    recent: Recent,
    /// Lease name → the core's observation of it: when this process first saw its current
    /// version.
    observed: RefCell<BoundedMap<String, Option<ObserverCore>>>,
}

/// A DNS-1123 label: lowercase letters, digits and `-`, not at either end.
fn is_dns_label(label: &str) -> bool {
    let b = label.as_bytes();
    let allowed = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-';
    !b.is_empty() && b.iter().all(allowed) && b[0] != b'-' && b[b.len() - 1] != b'-'
}

/// A resource as a Lease name: a DNS-1123 subdomain.
fn check_name(resource: &JsValue) -> Result<String, JsValue> {
    resource
        .as_string()
        .filter(|name| name.len() <= 253 && name.split('.').all(is_dns_label))
        .ok_or_else(|| {
            bad_argument(
                ErrorCode::BadResource.as_str(),
                "resource must be a Kubernetes object name: lowercase letters, digits, '-' and '.', at most 253",
            )
        })
}

/// `MicroTime` now: RFC 3339 in UTC with exactly six fractional digits, the layout the API server
/// parses. Only informational: no decision here ever reads these times back.
fn micro_time_now() -> String {
    let mut now: String = js_sys::Date::new_0().to_iso_string().into();
    if now.len() > 5 && now.ends_with('Z') && now.as_bytes()[now.len() - 5] == b'.' {
        now.insert_str(now.len() - 1, "000");
    }
    now
}

/// A count of `leaseDurationSeconds`: a safe integer from `min` to 2^31 - 1.
fn count(value: &JsValue, min: u64) -> Option<u64> {
    value
        .as_f64()
        .filter(|n| n.fract() == 0.0 && (min as f64..=MAX_INT32 as f64).contains(n))
        .map(|n| n as u64)
}

/// A non-2xx reply: the API server's errors are `Status` objects with a `reason`.
fn failure(what: &str, reply: &Reply) -> JsValue {
    let status = lenient_json(&reply.text);
    let code = get(&status, "reason").as_string();
    let message = get(&status, "message").as_string();
    let message = message.as_deref().map(|m| clipped(m, 300));
    status_failure(
        what,
        reply.status,
        reply.retry_after().as_deref(),
        code.as_deref(),
        message,
        None,
    )
}

/// A write's reply must show what was written: otherwise it is not a grant.
fn expect_spec(name: &str, lease: &Lease, holder: &str, transitions: u64) -> Result<(), JsValue> {
    if lease.holder != holder || lease.transitions != transitions {
        let what = ["Lease ", name].concat();
        return Err(malformed(
            &what,
            "the written Lease does not show this grant",
            None,
        ));
    }
    Ok(())
}

/// Why `holder` cannot renew or release grant `token` given the Lease; `None` if it can.
fn refusal_for(lease: Option<&Lease>, holder: &str, token: u64) -> Option<RenewRefusal> {
    refusal(
        lease.map(|l| (l.holder.as_str(), l.transitions)),
        holder,
        token,
    )
}

/// A copy of `spec` with `changes` set.
fn spec_with(spec: &Object, changes: &[(&str, JsValue)]) -> Object {
    let next = Object::assign(&Object::new(), spec);
    for (key, value) in changes {
        set(&next, key, value);
    }
    next
}

impl Inner {
    fn path(&self, name: Option<&str>) -> String {
        let collection = [
            "/apis/coordination.k8s.io/v1/namespaces/",
            &self.namespace,
            "/leases",
        ];
        match name {
            Some(name) => [&collection.concat(), "/", name].concat(),
            None => collection.concat(),
        }
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

    /// GET: the checked Lease, or `None` when there is none.
    async fn get(&self, name: &str, signal: &JsValue) -> Result<Option<Lease>, JsValue> {
        let what = ["GET Lease ", name].concat();
        let reply = self
            .request("GET", &self.path(Some(name)), None, signal)
            .await?;
        match reply.status {
            404 => Ok(None),
            200 => self.accept(name, &reply, &what).map(Some),
            _ => Err(failure(&what, &reply)),
        }
    }

    /// POST: the created Lease, or `None` when one already existed (409 AlreadyExists).
    async fn create(
        &self,
        name: &str,
        spec: NewSpec<'_>,
        request_id: Option<&str>,
        signal: &JsValue,
    ) -> Result<Option<Lease>, JsValue> {
        let what = ["POST Lease ", name].concat();
        let body = NewLease {
            api_version: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: NewMetadata {
                name,
                namespace: &self.namespace,
                annotations: request_id.map(|request_id| RequestIdAnnotation { request_id }),
            },
            spec,
        };
        let reply = self
            .request("POST", &self.path(None), Some(&json_text(&body)?), signal)
            .await?;
        match reply.status {
            409 => Ok(None),
            200 | 201 => self.accept(name, &reply, &what).map(Some),
            _ => Err(failure(&what, &reply)),
        }
    }

    /// PUT with the `resourceVersion` read: the updated Lease, or `None` on 409 Conflict. The
    /// object as read is sent back with the new spec (other fields and annotations kept, as
    /// client-go does), and the request-id annotation set to `request_id` or removed.
    async fn replace(
        &self,
        name: &str,
        lease: &Lease,
        spec: &JsValue,
        request_id: Option<&str>,
        signal: &JsValue,
    ) -> Result<Option<Lease>, JsValue> {
        let what = ["PUT Lease ", name].concat();
        let metadata = Object::assign(&Object::new(), &Object::from(get(&lease.raw, "metadata")));
        let annotations = get(&metadata, "annotations");
        let annotations = if annotations.is_object() {
            Object::assign(&Object::new(), annotations.unchecked_ref())
        } else {
            Object::new()
        };
        let key = JsValue::from_str(REQUEST_ID_ANNOTATION);
        match request_id {
            Some(id) => set(&annotations, REQUEST_ID_ANNOTATION, &JsValue::from_str(id)),
            None => {
                let _ = Reflect::delete_property(&annotations, &key);
            }
        }
        set(&metadata, "annotations", &annotations);
        let body = Object::assign(&Object::new(), lease.raw.unchecked_ref());
        set(&body, "metadata", &metadata);
        set(&body, "spec", spec);
        let text = js_sys::JSON::stringify(&body)?
            .as_string()
            .unwrap_or_default();
        let reply = self
            .request("PUT", &self.path(Some(name)), Some(&text), signal)
            .await?;
        match reply.status {
            409 => Ok(None),
            200 | 201 => self.accept(name, &reply, &what).map(Some),
            _ => Err(failure(&what, &reply)),
        }
    }

    /// Parses and checks a Lease reply, and records this process's sighting of it: a new version
    /// restarts the wait for its expiry, one seen before does not.
    fn accept(&self, name: &str, reply: &Reply, what: &str) -> Result<Lease, JsValue> {
        let status = Some(reply.status);
        let raw =
            strict_json(&reply.text).ok_or_else(|| malformed(what, "reply is not JSON", status))?;
        self.check(name, raw, what, status)
    }

    /// Checks a Lease object (a reply's, a list's item or a watch event's) and records this
    /// process's sighting of it, as [`Inner::accept`].
    fn check(
        &self,
        name: &str,
        raw: JsValue,
        what: &str,
        status: Option<u16>,
    ) -> Result<Lease, JsValue> {
        let bad = |problem: &str| malformed(what, problem, status);
        if !crate::wasm::fetch::is_plain_object(&raw) {
            return Err(bad("not an object"));
        }
        let shape: LeaseShape =
            from_js(&raw).map_err(|_| bad("not a Lease of the expected shape"))?;
        if shape.kind.as_deref() != Some("Lease")
            || shape.api_version.as_deref() != Some("coordination.k8s.io/v1")
        {
            return Err(bad("not a coordination.k8s.io/v1 Lease"));
        }
        let Some(metadata) = shape.metadata.filter(|m| m.name.as_deref() == Some(name)) else {
            return Err(bad("metadata.name is not the Lease asked for"));
        };
        let namespace = get(&get(&raw, "metadata"), "namespace");
        if !namespace.is_undefined()
            && namespace.as_string().as_deref() != Some(self.namespace.as_str())
        {
            return Err(bad("metadata.namespace is not the namespace asked for"));
        }
        let Some(version) = metadata
            .resource_version
            .filter(|v| !v.is_empty() && v.encode_utf16().count() <= 128)
        else {
            return Err(bad("metadata.resourceVersion must be a non-empty string"));
        };
        let spec = shape.spec.unwrap_or(SpecShape {
            holder_identity: None,
            lease_transitions: None,
            lease_duration_seconds: None,
            _acquire_time: None,
            renew_time: None,
        });
        let holder = spec.holder_identity.unwrap_or_default();
        let transitions = spec.lease_transitions.unwrap_or(0);
        if transitions > MAX_INT32 {
            return Err(bad(
                "spec.leaseTransitions must be an integer from 0 to 2^31 - 1",
            ));
        }
        let duration = spec
            .lease_duration_seconds
            .map_or(JsValue::UNDEFINED, |d| d.0);
        // A held Lease whose duration is unreadable can never be judged expired: refuse it rather
        // than guess (client-go would read it as 0 and take it over at once).
        let seconds = count(&duration, 1);
        if !holder.is_empty() && seconds.is_none() {
            return Err(bad(
                "spec.leaseDurationSeconds must be an integer from 1 to 2^31 - 1",
            ));
        }
        // Any write changes the resourceVersion; the holder and renewTime are included as well, so
        // a server that reused a version for a different record would still count as a change.
        let renew_time = spec
            .renew_time
            .map_or("0".to_owned(), |t| ["1", &t].concat());
        let version = pair_key(&[&version, &holder, &renew_time, &decimal(transitions)]);
        let raw_spec = get(&raw, "spec");
        let raw_spec = if raw_spec.is_object() {
            raw_spec.unchecked_into()
        } else {
            Object::new()
        };
        let normalized = spec_with(
            &raw_spec,
            &[
                ("holderIdentity", JsValue::from_str(&holder)),
                ("leaseTransitions", JsValue::from_f64(transitions as f64)),
                ("leaseDurationSeconds", duration),
            ],
        );
        let request_id = get(
            &get(&get(&raw, "metadata"), "annotations"),
            REQUEST_ID_ANNOTATION,
        )
        .as_string();
        // Every Lease read here carries its duration when held; the default is never used.
        let (mono, wall) = now_ms();
        let duration_ms = seconds.map_or(f64::NAN, |s| (s * 1000) as f64);
        {
            let mut observed = self.observed.borrow_mut();
            let observer =
                observed.touch_or_insert(name.to_owned(), || ObserverCore::new(1000.0).ok());
            if let Some(observer) = observer.as_mut() {
                observer.observe(mono, wall, version, duration_ms);
            }
        }
        Ok(Lease {
            raw,
            spec: normalized,
            holder,
            transitions,
            request_id,
        })
    }

    /// By this process's observation of Lease `name`: `None` once it has run out, else how long
    /// it has left (a denial's hint), in whole ms if known.
    fn live(&self, name: &str) -> Option<Option<u64>> {
        let (mono, wall) = now_ms();
        let mut observed = self.observed.borrow_mut();
        let Some(observer) = observed.touch_or_insert(name.to_owned(), || None).as_mut() else {
            return Some(None);
        };
        if observer.is_expired(mono, wall) {
            return None;
        }
        let left = observer.expires_in_ms(mono, wall);
        Some(left.is_finite().then_some(left as u64))
    }
}

fn granted(token: u64, duration_ms: u64) -> Result<JsValue, JsValue> {
    let token = Token::new(token).map_err(|_| JsValue::UNDEFINED)?;
    reply_value(&GrantReply::granted(token, duration_ms))
}

fn denied(holder: Option<String>, expires_in_ms: Option<u64>) -> Result<JsValue, JsValue> {
    reply_value(&GrantReply {
        granted: false,
        token: None,
        duration_ms: None,
        holder,
        expires_in_ms,
    })
}

#[wasm_bindgen]
impl KubernetesLeaseGrantorCore {
    /// Validates the options (errors name the option): `baseUrl`, `namespace`, `token`,
    /// `headers`, `timeoutMs`, `credentials`, `fetch`.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(options: JsValue) -> Result<KubernetesLeaseGrantorCore, JsValue> {
        let token = get(&options, "token");
        let auth = if token.is_undefined() {
            None
        } else {
            let token = checked_credential(&token, "token")?;
            Some(("authorization", ["Bearer ", &token].concat()))
        };
        let endpoint = endpoint(&options, auth)?;
        let namespace = get(&options, "namespace");
        let namespace = if namespace.is_undefined() {
            "default".to_owned()
        } else {
            namespace
                .as_string()
                .filter(|n| n.len() <= 63 && is_dns_label(n))
                .ok_or_else(|| config_error("namespace", "namespace must be a DNS-1123 label"))?
        };
        Ok(KubernetesLeaseGrantorCore {
            inner: Rc::new(Inner {
                endpoint,
                namespace,
                recent: Recent::default(),
                observed: RefCell::new(BoundedMap::new(MAX_OBSERVATIONS)),
            }),
        })
    }

    /// The API server's base URL.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.inner.endpoint.base_url().to_owned()
    }

    /// The namespace the Lease objects live in.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn namespace(&self) -> String {
        self.inner.namespace.clone()
    }

    /// Grants the Lease named `resource`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn grant(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { grant(&inner, &args).await })
    }

    /// Renews: a compare-and-swap of `renewTime` (and the duration), only while this grant holds.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn renew(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { renew(&inner, &args).await })
    }

    /// Releases as client-go's `ReleaseOnCancel` does, if this grant still holds.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn release(&self, args: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        promise(async move { release(&inner, &args).await })
    }
    /// Who holds the Lease named `resource`, change by change: a list, then a watch of it.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn observe(&self, resource: JsValue, signal: JsValue) -> Result<ObservationCore, JsValue> {
        let feed = LeaseFeed {
            name: check_name(&resource)?,
            inner: Rc::clone(&self.inner),
        };
        ObservationCore::start(Rc::new(feed), &signal)
    }
}

async fn grant(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let name = check_name(&get(args, "resource"))?;
    let holder = check_holder(&get(args, "holder"))?;
    let duration_ms = check_duration_ms(&get(args, "durationMs"))?;
    let request_id = check_request_id(&get(args, "requestId"))?;
    let signal = get(args, "signal");
    let started = performance_now();
    let seconds = lease_seconds(duration_ms);
    let attempt = attempt_key(&["grant", &name, &holder], request_id.as_deref());
    let grant_of = |lease: &Lease| {
        let duration_ms = seconds * 1000;
        inner
            .recent
            .remember(attempt.as_deref(), started, duration_ms);
        granted(lease_token(lease.transitions), duration_ms)
    };

    // Two passes: a lost race (create or compare-and-swap) is answered from a fresh read.
    for _ in 0..2 {
        let now = micro_time_now();
        let Some(lease) = inner.get(&name, &signal).await? else {
            let spec = NewSpec {
                holder_identity: &holder,
                lease_duration_seconds: seconds,
                acquire_time: &now,
                renew_time: &now,
                lease_transitions: 0,
            };
            let Some(created) = inner
                .create(&name, spec, request_id.as_deref(), &signal)
                .await?
            else {
                continue; // someone else created it first
            };
            expect_spec(&name, &created, &holder, 0)?;
            return grant_of(&created);
        };
        if lease.holder == holder && request_id.is_some() && lease.request_id == request_id {
            return replay_grant(inner, &name, &lease, seconds, attempt.as_deref(), &signal).await;
        }
        if !lease.holder.is_empty() && lease.holder != holder {
            // Expired only once a full lease has passed, on this process's clocks, since it first
            // saw the Lease as it is now.
            if let Some(left) = inner.live(&name) {
                return denied(Some(lease.holder), left);
            }
        }
        // Free, expired by our observation, or this holder's own older grant: a new grant.
        let transitions = lease_token(lease.transitions);
        if transitions > MAX_INT32 {
            return Err(malformed(
                &["Lease ", &name].concat(),
                "leaseTransitions is exhausted",
                None,
            ));
        }
        let spec = NewSpec {
            holder_identity: &holder,
            lease_duration_seconds: seconds,
            acquire_time: &now,
            renew_time: &now,
            lease_transitions: transitions,
        };
        let spec = reply_value(&spec)?;
        let Some(updated) = inner
            .replace(&name, &lease, &spec, request_id.as_deref(), &signal)
            .await?
        else {
            continue; // changed since we read it
        };
        expect_spec(&name, &updated, &holder, transitions)?;
        return grant_of(&updated);
    }
    let lease = inner.get(&name, &signal).await?;
    denied(lease.map(|l| l.holder).filter(|h| !h.is_empty()), None)
}

/// A retried grant: the original token, and no more time than the original has left.
async fn replay_grant(
    inner: &Inner,
    name: &str,
    lease: &Lease,
    seconds: u64,
    attempt: Option<&str>,
    signal: &JsValue,
) -> Result<JsValue, JsValue> {
    let token = lease_token(lease.transitions);
    if let Some(left) = inner.recent.remaining_ms(attempt) {
        return granted(token, left);
    }
    // Not remembered here: renew, so the full duration counts from now, after the retry was sent.
    let next = spec_with(
        &lease.spec,
        &[
            ("leaseDurationSeconds", JsValue::from_f64(seconds as f64)),
            ("renewTime", JsValue::from_str(&micro_time_now())),
        ],
    );
    let request_id = lease.request_id.as_deref();
    let Some(updated) = inner
        .replace(name, lease, &next, request_id, signal)
        .await?
    else {
        return denied(None, None);
    };
    expect_spec(name, &updated, &lease.holder, lease.transitions)?;
    granted(token, seconds * 1000)
}

async fn renew(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let name = check_name(&get(args, "resource"))?;
    let holder = check_holder(&get(args, "holder"))?;
    let token = check_token(&get(args, "token"))?;
    let duration_ms = check_duration_ms(&get(args, "durationMs"))?;
    let request_id = check_request_id(&get(args, "requestId"))?;
    let signal = get(args, "signal");
    let started = performance_now();
    let seconds = lease_seconds(duration_ms);
    let refused = |reason| reply_value(&RenewReply::refused(reason));
    for _ in 0..2 {
        let lease = inner.get(&name, &signal).await?;
        if let Some(refusal) = refusal_for(lease.as_ref(), &holder, token) {
            return refused(refusal);
        }
        let Some(lease) = lease else {
            return refused(RenewRefusal::Unknown);
        };
        let next = spec_with(
            &lease.spec,
            &[
                ("leaseDurationSeconds", JsValue::from_f64(seconds as f64)),
                ("renewTime", JsValue::from_str(&micro_time_now())),
            ],
        );
        let request = lease.request_id.as_deref();
        let Some(updated) = inner
            .replace(&name, &lease, &next, request, &signal)
            .await?
        else {
            continue; // written meanwhile: read again and decide afresh
        };
        expect_spec(&name, &updated, &holder, token - 1)?;
        let attempt = attempt_key(
            &["renew", &name, &holder, &decimal(token)],
            request_id.as_deref(),
        );
        // A retried renewal promises no more than the original had left.
        let promised = inner
            .recent
            .promise(attempt.as_deref(), started, seconds * 1000);
        let token = Token::new(token).map_err(|_| JsValue::UNDEFINED)?;
        return reply_value(&RenewReply::renewed(token, promised));
    }
    let lease = inner.get(&name, &signal).await?;
    if let Some(refusal) = refusal_for(lease.as_ref(), &holder, token) {
        return refused(refusal);
    }
    Err(kept_changing(&name, "renewal"))
}

fn kept_changing(name: &str, during: &str) -> JsValue {
    let detail = Detail {
        status: Some(409),
        ..Detail::default()
    };
    let message = ["Lease ", name, " kept changing during the ", during].concat();
    grantor_error("server_error", &message, detail)
}

async fn release(inner: &Inner, args: &JsValue) -> Result<JsValue, JsValue> {
    let name = check_name(&get(args, "resource"))?;
    let holder = check_holder(&get(args, "holder"))?;
    let token = check_token(&get(args, "token"))?;
    let signal = get(args, "signal");
    for _ in 0..3 {
        let lease = inner.get(&name, &signal).await?;
        let (None, Some(lease)) = (refusal_for(lease.as_ref(), &holder, token), lease) else {
            return reply_value(&ReleaseReply { released: false });
        };
        let now = JsValue::from_str(&micro_time_now());
        let next = spec_with(
            &lease.spec,
            &[
                ("holderIdentity", JsValue::from_str("")),
                ("leaseDurationSeconds", JsValue::from_f64(1.0)),
                ("acquireTime", now.clone()),
                ("renewTime", now),
            ],
        );
        if inner
            .replace(&name, &lease, &next, None, &signal)
            .await?
            .is_some()
        {
            return reply_value(&ReleaseReply { released: true });
        }
    }
    Err(kept_changing(&name, "release"))
}

// observe(): a list, then a watch, of one Lease.

/// The Lease named `name` watched: each fetch lists it (`?fieldSelector=metadata.name=NAME`),
/// which is the current state, then watches it from the list's `resourceVersion`
/// (`?watch=1`, newline-delimited events) until the window ends or, sooner, until the holder it
/// last saw runs out by this process's observation ([`watch_end_ms`]): a Lease never expires by
/// itself, so the next list is what reports it gone. Versions come from `leaseTransitions`
/// ([`lease_version`]).
struct LeaseFeed {
    inner: Rc<Inner>,
    name: String,
}

impl LeaseFeed {
    fn timeout_ms(&self) -> u64 {
        self.inner.endpoint.timeout_ms().ceil() as u64
    }
}

/// A Lease's state for an observer, and how long its holder has left by this process's
/// observation (`None` when nobody holds it).
fn lease_view(inner: &Inner, name: &str, lease: Option<&Lease>) -> (HolderView, Option<u64>) {
    let live = match lease {
        Some(lease) if !lease.holder.is_empty() => inner.live(name),
        _ => None,
    };
    let version = lease_version(lease.map(|l| (l.transitions, live.is_some())));
    let held = lease.filter(|_| live.is_some());
    let left = live.flatten();
    let view = HolderView {
        version,
        holder: held.map(|l| l.holder.clone()),
        token: held.map(|l| lease_token(l.transitions)),
        expires_in_ms: held.and(left),
        handed_to: None,
    };
    (view, left.filter(|_| held.is_some()))
}

/// A watch's failure: by its status, 410 Gone retried from a fresh list ([`watch_failure`]).
fn watch_error(what: &str, status: u16, reply: Option<&Reply>) -> JsValue {
    let body = reply.map_or(JsValue::UNDEFINED, |r| lenient_json(&r.text));
    let code = get(&body, "reason").as_string();
    let message = get(&body, "message").as_string();
    let message = message.as_deref().map(|m| clipped(m, 300));
    let retry_after = reply.and_then(Reply::retry_after);
    status_failure(
        what,
        status,
        retry_after.as_deref(),
        code.as_deref(),
        message,
        Some(watch_failure(status)),
    )
}

/// Ends the watch in `ms`: aborts `end`, which the stream reader takes as a normal end.
fn end_in(end: &AbortController, ms: u64) -> Timeout {
    let end = end.clone();
    Timeout::new(ms.min(u64::from(u32::MAX)) as u32, move || end.abort())
}

impl Feed for LeaseFeed {
    fn config(&self) -> WatchConfig {
        // A list, then a watch the server ends after the window; the stream reader's own end
        // comes a request timeout later, the watcher's deadline a second after that.
        let deadline = 2 * self.timeout_ms() + WATCH_WINDOW_S * 1000 + 1_000;
        WatchConfig::changes(Micros::from_ms(deadline))
    }

    fn fetch(&self, _after: Option<u64>, signal: AbortSignal, sink: Sink) -> Fetching {
        let inner = Rc::clone(&self.inner);
        let name = self.name.clone();
        let timeout_ms = self.timeout_ms();
        Box::pin(async move {
            let signal: JsValue = signal.into();
            let selector = ["?fieldSelector=metadata.name%3D", &name].concat();
            let what = ["LIST Lease ", &name].concat();
            let path = [inner.path(None), selector.clone()].concat();
            let reply = inner.request("GET", &path, None, &signal).await?;
            if reply.status != 200 {
                return Err(watch_error(&what, reply.status, Some(&reply)));
            }
            let status = Some(reply.status);
            let bad = |problem: &str| malformed(&what, problem, status);
            let list = strict_json(&reply.text).ok_or_else(|| bad("reply is not JSON"))?;
            let version = get(&get(&list, "metadata"), "resourceVersion").as_string();
            let items = get(&list, "items");
            let (Some(version), true) = (
                version.filter(|v| !v.is_empty() && v.encode_utf16().count() <= 128),
                js_sys::Array::is_array(&items) && js_sys::Array::from(&items).length() <= 1,
            ) else {
                return Err(bad(
                    "not a LeaseList with a resourceVersion and at most one item",
                ));
            };
            let lease = match js_sys::Array::from(&items).get(0) {
                item if item.is_undefined() => None,
                item => Some(inner.check(&name, item, &what, status)?),
            };
            let (view, left) = lease_view(&inner, &name, lease.as_ref());
            sink(view);

            // The server ends the watch after the window; this end, a request timeout later, is
            // for one that does not.
            let window_ms = WATCH_WINDOW_S * 1000 + timeout_ms;
            let started = performance_now();
            let end = AbortController::new()?;
            let timer = RefCell::new(end_in(&end, watch_end_ms(window_ms, left)));
            let what = ["WATCH Lease ", &name].concat();
            let version = String::from(js_sys::encode_uri_component(&version));
            let window = decimal(WATCH_WINDOW_S);
            let path = [
                inner.path(None).as_str(),
                &selector,
                "&watch=1&allowWatchBookmarks=true&resourceVersion=",
                &version,
                "&timeoutSeconds=",
                &window,
            ]
            .concat();
            let mut on_line = |line: &str| -> Result<(), JsValue> {
                let bad = |problem: &str| malformed(&what, problem, None);
                let event = strict_json(line).ok_or_else(|| bad("an event is not JSON"))?;
                let object = get(&event, "object");
                let kind = get(&event, "type").as_string().unwrap_or_default();
                match kind.as_str() {
                    "ADDED" | "MODIFIED" => {
                        let lease = inner.check(&name, object, &what, None)?;
                        let (view, left) = lease_view(&inner, &name, Some(&lease));
                        let spent = (performance_now() - started).max(0.0) as u64;
                        let rest = window_ms.saturating_sub(spent);
                        *timer.borrow_mut() = end_in(&end, watch_end_ms(rest, left));
                        sink(view);
                    }
                    "DELETED" => {
                        let lease = inner.check(&name, object, &what, None)?;
                        let version = lease_version(Some((lease.transitions, false)));
                        sink(HolderView {
                            version,
                            holder: None,
                            token: None,
                            expires_in_ms: None,
                            handed_to: None,
                        });
                    }
                    "BOOKMARK" => {}
                    "ERROR" => {
                        // A `Status`: 410 Gone when the resourceVersion was compacted away.
                        let code = get(&object, "code").as_f64().unwrap_or(500.0);
                        let code = if (100.0..=599.0).contains(&code) {
                            code as u16
                        } else {
                            500
                        };
                        let text = js_sys::JSON::stringify(&object).ok();
                        let reply = Reply {
                            status: code,
                            headers: web_sys::Headers::new()?,
                            text: text.and_then(|t| t.as_string()).unwrap_or_default(),
                        };
                        return Err(watch_error(&what, code, Some(&reply)));
                    }
                    _ => return Err(bad("an event of an unknown type")),
                }
                Ok(())
            };
            let call = ("GET", path.as_str(), None);
            let streamed = inner
                .endpoint
                .stream_lines(
                    call,
                    &signal,
                    &end.signal(),
                    &what,
                    MAX_REPLY_BYTES,
                    &mut on_line,
                )
                .await;
            drop(timer);
            match streamed? {
                Some(reply) => Err(watch_error(&what, reply.status, Some(&reply))),
                None => Ok(()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn names_are_dns_subdomains() {
        for good in ["a", "lease-1", "a.b-c.d", "0"] {
            assert!(check_name(&good.into()).is_ok(), "{good}");
        }
        let long = "a".repeat(254);
        for bad in ["", "-a", "a-", "A", "a..b", "a_b", ".a", long.as_str()] {
            assert!(check_name(&bad.into()).is_err(), "{bad}");
        }
        assert!(is_dns_label("default"));
        assert!(!is_dns_label("a.b"));
    }

    #[wasm_bindgen_test]
    fn micro_time_has_six_fractional_digits() {
        let now = micro_time_now();
        assert!(now.ends_with("000Z"), "{now}");
        assert_eq!(now.len(), "2026-01-01T00:00:00.000000Z".len(), "{now}");
    }
}
