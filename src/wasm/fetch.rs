//! The fetch client every grantor of the package shares: `HttpGrantor` and the adapters for etcd,
//! Consul, Kubernetes and Redis over HTTP.
//!
//! Requests go only to the configured base URL plus a path the grantor builds, with the configured
//! headers; redirects are never followed, so credentials reach no other origin. Each request has
//! its own timeout, combined with the caller's `AbortSignal`. A reply is read from its body stream
//! up to a size cap (a declared `Content-Length` over the cap is refused before reading), must be
//! UTF-8, and JSON that a grantor reads strictly has no object with a key twice
//! ([`has_duplicate_keys`]). Transport failures are typed `ERR_GRANTOR` errors: `timed_out` when
//! the request's own timeout ended it, `unreachable` otherwise; a reply over the cap or not UTF-8
//! is a `malformed_reply`. A reply that streams (a watch) is read line by line, each line within
//! a per-message cap and UTF-8 checked, until the server ends it or the caller's window closes
//! ([`Endpoint::stream_lines`]).
//!
//! The `fetch` called is the user's (option `fetch`) or the global one, looked up at each request
//! so that a host replacing it later is heard. A user's `fetch` is user code: it is called with
//! nothing borrowed (nothing here is in a `RefCell`). Whatever it resolves is read defensively,
//! through calls that may throw, so a strange value is a failed request, never a trap.

use std::future::Future;
use std::pin::Pin;

use js_sys::{Array, Function, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortSignal, Headers, ReadableStream, ReadableStreamDefaultReader, ReadableStreamReadResult,
    RequestInit, RequestRedirect, Url,
};

use super::error::{get, lease_error, set};
use super::js::date_now;
use crate::core::FailureKind;
use crate::protocol::{has_duplicate_keys, retry_after_ms, MAX_REQUEST_DURATION_MS};

#[wasm_bindgen]
extern "C" {
    /// A reply's body as a `fetch` resolved it: a stream, unless a user's `fetch` gave
    /// something else, so every call on it may throw.
    #[wasm_bindgen(extends = ReadableStream)]
    type Body;

    #[wasm_bindgen(method, catch, js_name = getReader)]
    fn get_reader_checked(this: &Body) -> Result<BodyReader, JsValue>;

    #[wasm_bindgen(method, catch, js_name = cancel)]
    fn cancel_checked(this: &Body) -> Result<Promise, JsValue>;

    /// The body's reader, read as defensively as the body.
    #[wasm_bindgen(extends = ReadableStreamDefaultReader)]
    type BodyReader;

    #[wasm_bindgen(method, catch, js_name = read)]
    fn read_checked(this: &BodyReader) -> Result<Promise, JsValue>;

    #[wasm_bindgen(method, catch, js_name = cancel)]
    fn cancel_reader(this: &BodyReader) -> Result<Promise, JsValue>;
}

/// `String(value)`: JavaScript's own conversion to text, as `new URL()` and `fetch` apply it to
/// what they are given; `None` where it throws (a Symbol).
pub fn text_of(value: &JsValue) -> Option<String> {
    super::js::js_string(value)
        .ok()
        .and_then(|text| text.as_string())
}

/// The default `timeoutMs` of each request.
const DEFAULT_TIMEOUT_MS: f64 = 10_000.0;

/// `n` in decimal, built without Rust's formatting machinery (which would weigh more than this
/// whole module).
pub fn decimal(mut n: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().map(|&d| char::from(d)).collect()
}

/// The value of a header made of decimal digits (`Content-Length`), saturating; 0 for anything
/// else, which the body's own length then judges.
fn decimal_value(text: &str) -> u64 {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    text.bytes().fold(0u64, |n, d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    })
}

/// The key of a tuple of names that cannot run into each other: each part with its length.
pub fn pair_key(parts: &[&str]) -> String {
    let mut key = String::new();
    for part in parts {
        key.push_str(&decimal(part.len() as u64));
        key.push(':');
        key.push_str(part);
    }
    key
}

/// A grantor call's promise. Every call's future is boxed into this one type, so that the
/// machinery that drives it is not repeated per call.
pub fn promise(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let future: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(future);
    wasm_bindgen_futures::future_to_promise(future)
}

/// `body` as JSON text: converted to a JavaScript value with serde-wasm-bindgen and
/// stringified, so that values passed through (payloads) are written exactly as `JSON.stringify`
/// writes them (which may throw, for a `BigInt`).
pub fn json_text(body: &impl serde::Serialize) -> Result<String, JsValue> {
    let converted = serde_wasm_bindgen::to_value(body)
        .map_err(|_| JsValue::from(js_sys::TypeError::new("the request could not be converted")))?;
    let text = js_sys::JSON::stringify(&converted)?;
    Ok(text.as_string().unwrap_or_default())
}

/// A reply built here, as the protocol's type: converted with serde-wasm-bindgen.
pub fn reply_value(reply: &impl serde::Serialize) -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(reply)
        .map_err(|_| JsValue::from(js_sys::TypeError::new("the reply could not be converted")))
}

/// At most `max` characters of `text`: a server's message is kept for diagnosis, not whole.
pub fn clipped(text: &str, max: usize) -> &str {
    text.char_indices()
        .nth(max)
        .map_or(text, |(at, _)| &text[..at])
}

/// What a grantor failure carries besides its kind and message.
#[derive(Default)]
pub struct Detail<'a> {
    /// The HTTP status of the reply, if there was one.
    pub status: Option<u16>,
    /// The error code the reply named (the protocol's, or the store's).
    pub grantor_code: Option<&'a str>,
    /// How long the reply's `Retry-After` asks to wait.
    pub retry_after_ms: Option<u64>,
    /// What JavaScript threw, if anything.
    pub cause: Option<&'a JsValue>,
}

/// An `ERR_GRANTOR` failure with its `kind` (a [`FailureKind`] name), the fields of `detail` that
/// are known, and `message`. The package's `fromCore` re-creates it as its `LeaseError`.
pub fn grantor_error(kind: &str, message: &str, detail: Detail<'_>) -> JsValue {
    let error = lease_error("ERR_GRANTOR", message, None);
    set(&error, "kind", &JsValue::from_str(kind));
    if let Some(status) = detail.status {
        set(&error, "status", &JsValue::from(status));
    }
    if let Some(code) = detail.grantor_code {
        set(&error, "grantorCode", &JsValue::from_str(code));
    }
    if let Some(ms) = detail.retry_after_ms {
        set(&error, "retryAfterMs", &JsValue::from_f64(ms as f64));
    }
    if let Some(cause) = detail.cause {
        set(&error, "cause", cause);
    }
    error
}

/// A `malformed_reply` failure: `what: problem`.
pub fn malformed(what: &str, problem: &str, status: Option<u16>) -> JsValue {
    let detail = Detail {
        status,
        ..Detail::default()
    };
    grantor_error("malformed_reply", &[what, ": ", problem].concat(), detail)
}

/// A call's argument refused before anything was sent, with the protocol error code that names
/// it: a `bad_request`, never a grant.
pub fn bad_argument(code: &str, message: &str) -> JsValue {
    let detail = Detail {
        grantor_code: Some(code),
        ..Detail::default()
    };
    grantor_error("bad_request", message, detail)
}

/// `ERR_LEASE_CONFIG` naming the option `field`.
pub fn config_error(field: &str, message: &str) -> JsValue {
    lease_error("ERR_LEASE_CONFIG", message, Some(field))
}

/// The failure a non-2xx reply stands for, by the core's status rule
/// ([`FailureKind::for_status`]) unless the grantor knows better (`kind`). `grantor_code` and
/// `message` are what the reply said, if anything; `retry_after` its `Retry-After`.
pub fn status_failure(
    what: &str,
    status: u16,
    retry_after: Option<&str>,
    grantor_code: Option<&str>,
    message: Option<&str>,
    kind: Option<FailureKind>,
) -> JsValue {
    // The body is the server's (or a middlebox's) text: enough to diagnose, not a whole page.
    let detail = message.map_or(String::new(), |m| [": ", clipped(m, 200)].concat());
    let status_text = decimal(u64::from(status));
    let (kind, text) = match kind {
        Some(kind) => (kind, [": ", &status_text, &detail].concat()),
        None => match FailureKind::for_status(status) {
            FailureKind::RateLimited => (
                FailureKind::RateLimited,
                [": rate limited", &detail].concat(),
            ),
            FailureKind::TimedOut => (
                FailureKind::TimedOut,
                [": request timed out at the server", &detail].concat(),
            ),
            FailureKind::Server => (
                FailureKind::Server,
                [": error ", &status_text, &detail].concat(),
            ),
            other => {
                let refused = if detail.is_empty() {
                    " refused"
                } else {
                    &detail
                };
                (other, [": ", &status_text, refused].concat())
            }
        },
    };
    // A wall clock before the epoch (or not a number) puts every HTTP-date in the future: the
    // longest wait, never a retry too early. (`as` saturates: NaN and negatives are 0.)
    let retry_after_ms = retry_after.and_then(|value| retry_after_ms(value, date_now() as u64));
    let detail = Detail {
        status: Some(status),
        grantor_code,
        retry_after_ms,
        cause: None,
    };
    grantor_error(kind.as_str(), &[what, &text].concat(), detail)
}

/// Parses a reply's JSON text strictly: `JSON.parse`, refusing an object with a key twice. `None`
/// for anything it refuses.
pub fn strict_json(text: &str) -> Option<JsValue> {
    let value = js_sys::JSON::parse(text).ok()?;
    (!has_duplicate_keys(text)).then_some(value)
}

/// `JSON.parse`, `undefined` when the text is not JSON: for error bodies, read only for a hint.
pub fn lenient_json(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap_or(JsValue::UNDEFINED)
}

/// Whether `value` is a JSON object (not an array, not `null`).
pub fn is_plain_object(value: &JsValue) -> bool {
    value.is_object() && !Array::is_array(value)
}

/// A base URL (the option `field`, e.g. `baseUrl`): an absolute http(s) URL without credentials;
/// else a config error naming `field`.
pub fn checked_base_url(value: &JsValue, field: &str) -> Result<Url, JsValue> {
    let not_absolute = || config_error(field, &[field, " must be an absolute URL"].concat());
    if value.is_undefined() || value.is_null() {
        return Err(not_absolute());
    }
    let text = text_of(value).ok_or_else(not_absolute)?;
    let url = Url::new(&text).map_err(|_| not_absolute())?;
    let protocol = url.protocol();
    if protocol != "http:" && protocol != "https:" {
        let message = [field, " must be http: or https:"].concat();
        return Err(config_error(field, &message));
    }
    if !url.username().is_empty() || !url.password().is_empty() {
        let message = [field, " must not carry credentials; use headers"].concat();
        return Err(config_error(field, &message));
    }
    Ok(url)
}

/// The URL as requests are built on it: its `href` less a trailing slash.
pub fn base_href(url: &Url) -> String {
    let mut href = url.href();
    if href.ends_with('/') {
        href.pop();
    }
    href
}

/// `timeoutMs`, each request's own timeout: 10 000 when absent, else a number above 0 and within
/// a timer's reach (the protocol's longest duration, 2^31 - 1); else a config error.
pub fn checked_timeout_ms(value: &JsValue) -> Result<f64, JsValue> {
    if value.is_undefined() {
        return Ok(DEFAULT_TIMEOUT_MS);
    }
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms > 0.0 && ms <= MAX_REQUEST_DURATION_MS as f64 => Ok(ms),
        _ => Err(config_error(
            "timeoutMs",
            "timeoutMs must be a number above 0 and at most 2147483647",
        )),
    }
}

/// `headers`: absent (none) or an object of header names to values; its entries.
pub fn header_entries(value: &JsValue) -> Result<Vec<(String, JsValue)>, JsValue> {
    if value.is_undefined() {
        return Ok(Vec::new());
    }
    if !is_plain_object(value) {
        return Err(config_error(
            "headers",
            "headers must be an object of header names to strings",
        ));
    }
    let entries = js_sys::Object::entries(value.unchecked_ref());
    Ok(entries
        .iter()
        .map(|entry| {
            let entry: Array = entry.unchecked_into();
            (entry.get(0).as_string().unwrap_or_default(), entry.get(1))
        })
        .collect())
}

/// `fetch`: the user's function, or none to use the global one (which must exist now).
pub fn checked_fetch(value: &JsValue) -> Result<Option<Function>, JsValue> {
    let missing = || config_error("fetch", "no fetch function available");
    if value.is_undefined() || value.is_null() {
        return match global_fetch() {
            Some(_) => Ok(None),
            None => Err(missing()),
        };
    }
    value
        .dyn_ref::<Function>()
        .cloned()
        .map(Some)
        .ok_or_else(missing)
}

fn global_fetch() -> Option<Function> {
    get(&js_sys::global(), "fetch").dyn_into::<Function>().ok()
}

/// Which headers a request carries besides the configured ones.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The tenure protocol: `content-type: application/json` on every request (a configured
    /// header may replace it).
    Protocol,
    /// Someone else's JSON API: `accept: application/json`, and `content-type` on a request with a
    /// body.
    Rest,
}

/// A reply, whatever its status.
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The reply's headers.
    pub headers: Headers,
    /// The body, read whole (within the cap) and decoded.
    pub text: String,
}

impl Reply {
    /// Whether the status is 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The `Retry-After` header, if any.
    pub fn retry_after(&self) -> Option<String> {
        self.headers.get("retry-after").ok().flatten()
    }
}

/// How a request failed before a [`Reply`]: JavaScript threw (the network, an abort, a bad
/// header), or the reply broke a rule here (already a typed failure).
enum Failure {
    Thrown(JsValue),
    Refused(JsValue),
}

/// One HTTP API reached with `fetch`: a base URL, headers and a timeout for every request.
#[derive(Clone)]
pub struct Endpoint {
    base_url: String,
    headers: Vec<(String, String)>,
    timeout_ms: f64,
    credentials: JsValue,
    fetch: Option<Function>,
    style: Style,
}
#[wasm_bindgen]
extern "C" {
    /// `AbortSignal.any`, with the TypeError it throws for anything that is not an AbortSignal
    /// caught: its brand check knows signals of every realm, where `instanceof` knows only this
    /// one's (an iframe's, a `vm` context's).
    #[wasm_bindgen(catch, js_namespace = AbortSignal, js_name = any)]
    fn abort_signal_any(signals: &Array) -> Result<AbortSignal, JsValue>;
}

/// A caller's `signal`: `None` when it is undefined or null, the signal when it is an AbortSignal
/// of any realm, `Err` for anything else.
pub fn caller_signal(value: &JsValue) -> Result<Option<AbortSignal>, ()> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if let Some(signal) = value.dyn_ref::<AbortSignal>() {
        return Ok(Some(signal.clone()));
    }
    match abort_signal_any(&Array::of1(value)) {
        Ok(_) => Ok(Some(value.clone().unchecked_into())),
        Err(_) => Err(()),
    }
}

impl Endpoint {
    /// An endpoint on `base_url` (as [`base_href`] gives it), sending `headers` with every
    /// request, each with its own `timeout_ms`; `credentials` is passed to `fetch` unless
    /// undefined, and `fetch` is the user's or none for the global one.
    pub fn new(
        base_url: String,
        headers: Vec<(String, String)>,
        timeout_ms: f64,
        credentials: JsValue,
        fetch: Option<Function>,
        style: Style,
    ) -> Endpoint {
        Endpoint {
            base_url,
            headers,
            timeout_ms,
            credentials,
            fetch,
            style,
        }
    }

    /// The base URL, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Each request's timeout.
    pub fn timeout_ms(&self) -> f64 {
        self.timeout_ms
    }

    /// The same endpoint (headers, timeout, `fetch`) at another base URL, as [`base_href`] gives
    /// it: another member of the same service.
    pub fn at(&self, base_url: String) -> Endpoint {
        Endpoint {
            base_url,
            ..self.clone()
        }
    }

    /// [`Self::request`], its failures' messages starting with the method and the path.
    pub async fn request_to(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        signal: &JsValue,
        max_bytes: usize,
    ) -> Result<Reply, JsValue> {
        let what = [method, " ", path].concat();
        self.request(method, path, body, signal, max_bytes, &what)
            .await
    }

    /// Sends `method` to the base URL plus `path`, with `body` (JSON text) if given, stopping
    /// at the request's timeout or when `signal` (the caller's, if not undefined) aborts; reads
    /// at most `max_bytes` of the reply. Resolves the reply whatever its status; fails as
    /// `unreachable`, `timed_out` or (over the cap, not UTF-8) `malformed_reply`, the message
    /// starting with `what`.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        signal: &JsValue,
        max_bytes: usize,
        what: &str,
    ) -> Result<Reply, JsValue> {
        let (call, timeout_ms) = ((method, path, body), self.timeout_ms);
        self.request_within(call, signal, max_bytes, what, timeout_ms)
            .await
    }

    /// [`Self::request`] with a timeout of its own, for a request the server holds open (a long
    /// poll): `call` is the method, the path and the body.
    pub async fn request_within(
        &self,
        (method, path, body): (&str, &str, Option<&str>),
        signal: &JsValue,
        max_bytes: usize,
        what: &str,
        timeout_ms: f64,
    ) -> Result<Reply, JsValue> {
        let Ok(caller) = caller_signal(signal) else {
            let message = [what, ": signal is not an AbortSignal"].concat();
            return Err(grantor_error("unreachable", &message, Detail::default()));
        };
        let timeout = AbortSignal::timeout_with_f64(timeout_ms);
        let combined = match &caller {
            Some(caller) => AbortSignal::any(&Array::of2(caller, &timeout)),
            None => timeout.clone(),
        };
        match self
            .exchange(method, path, body, &combined, max_bytes)
            .await
        {
            Ok(reply) => Ok(reply),
            Err(Failure::Refused(error)) => Err(error),
            Err(Failure::Thrown(error)) => {
                let by_timeout = timeout.aborted() && !caller.is_some_and(|c| c.aborted());
                let kind = if by_timeout {
                    "timed_out"
                } else {
                    "unreachable"
                };
                let message = [what, ": ", &describe(&error)].concat();
                let detail = Detail {
                    cause: Some(&error),
                    ..Detail::default()
                };
                Err(grantor_error(kind, &message, detail))
            }
        }
    }

    /// Sends the request; resolves the response with its status and headers, its body unread.
    async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        signal: &AbortSignal,
    ) -> Result<(JsValue, u16, Headers), Failure> {
        let headers = Headers::new().map_err(Failure::Thrown)?;
        let json = "application/json";
        let put = |name: &str, value: &str| headers.set(name, value).map_err(Failure::Thrown);
        match self.style {
            Style::Protocol => put("content-type", json)?,
            Style::Rest => put("accept", json)?,
        }
        for (name, value) in &self.headers {
            put(name, value)?;
        }
        if self.style == Style::Rest && body.is_some() {
            put("content-type", json)?;
        }
        let init = RequestInit::new();
        init.set_method(method);
        init.set_headers(&headers);
        if let Some(body) = body {
            init.set_body(&JsValue::from_str(body));
        }
        init.set_signal(Some(signal));
        // Never follow a redirect: it could carry the headers to another origin.
        init.set_redirect(RequestRedirect::Manual);
        // Some runtimes (workerd) refuse the option outright, so it goes only when given; as
        // given, so that `fetch` judges it.
        if !self.credentials.is_undefined() {
            set(&init, "credentials", &self.credentials);
        }
        let url = JsValue::from_str(&[self.base_url.as_str(), path].concat());
        // Called as a plain function: browsers throw "Illegal invocation" when fetch gets a
        // `this` other than the global object.
        let (function, this) = match &self.fetch {
            Some(function) => (function.clone(), JsValue::UNDEFINED),
            None => {
                let Some(function) = global_fetch() else {
                    let error = js_sys::TypeError::new("fetch is not a function");
                    return Err(Failure::Thrown(error.into()));
                };
                (function, js_sys::global().into())
            }
        };
        let pending = function
            .call2(&this, &url, &init)
            .map_err(Failure::Thrown)?;
        let response = JsFuture::from(Promise::resolve(&pending))
            .await
            .map_err(Failure::Thrown)?;
        let not_a_response = || {
            let error = js_sys::TypeError::new("fetch did not resolve a Response");
            Failure::Thrown(error.into())
        };
        let status = get(&response, "status")
            .as_f64()
            .ok_or_else(not_a_response)?;
        let headers = get(&response, "headers");
        if !headers.is_object() || !(0.0..=999.0).contains(&status) {
            return Err(not_a_response());
        }
        let headers: Headers = headers.unchecked_into();
        Ok((response, status as u16, headers))
    }

    /// [`Self::send`], then the reply's body read whole within `max_bytes`.
    async fn exchange(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        signal: &AbortSignal,
        max_bytes: usize,
    ) -> Result<Reply, Failure> {
        let (response, status, headers) = self.send(method, path, body, signal).await?;
        let text = read_limited(&response, &headers, max_bytes).await?;
        Ok(Reply {
            status,
            headers,
            text,
        })
    }

    /// A request whose 2xx reply is a stream of JSON texts, one a line (a Kubernetes watch, the
    /// etcd gateway's watch): `on_line` gets each line as it arrives, UTF-8 checked and within
    /// `max_line` bytes (a longer one is a `malformed_reply`), blank lines skipped. It stops when
    /// `signal` (the caller's) aborts, which is a failure, or when `end` aborts, which ends the
    /// stream normally once its headers came (the caller's own window), and is `timed_out` before.
    /// Resolves `None` once the stream ended (the server closed it, or `end`), or the reply when
    /// it is not 2xx, its body read within `max_line` bytes. An `Err` from `on_line` stops
    /// reading and is returned as it is.
    pub async fn stream_lines(
        &self,
        (method, path, body): (&str, &str, Option<&str>),
        signal: &JsValue,
        end: &AbortSignal,
        what: &str,
        max_line: usize,
        on_line: &mut dyn FnMut(&str) -> Result<(), JsValue>,
    ) -> Result<Option<Reply>, JsValue> {
        let Ok(caller) = caller_signal(signal) else {
            let message = [what, ": signal is not an AbortSignal"].concat();
            return Err(grantor_error("unreachable", &message, Detail::default()));
        };
        let combined = match &caller {
            Some(caller) => AbortSignal::any(&Array::of2(caller, end)),
            None => end.clone(),
        };
        let thrown = |error: JsValue, headers_came: bool| {
            let by_end = end.aborted() && !caller.as_ref().is_some_and(AbortSignal::aborted);
            if by_end && headers_came {
                return None;
            }
            let kind = if by_end { "timed_out" } else { "unreachable" };
            let message = [what, ": ", &describe(&error)].concat();
            let detail = Detail {
                cause: Some(&error),
                ..Detail::default()
            };
            Some(grantor_error(kind, &message, detail))
        };
        let sent = self.send(method, path, body, &combined).await;
        let (response, status, headers) = match sent {
            Ok(sent) => sent,
            Err(Failure::Refused(error)) => return Err(error),
            Err(Failure::Thrown(error)) => {
                return Err(thrown(error, false).unwrap_or(JsValue::UNDEFINED));
            }
        };
        if !(200..300).contains(&status) {
            let text = match read_limited(&response, &headers, max_line).await {
                Ok(text) => text,
                Err(Failure::Refused(error)) => return Err(error),
                Err(Failure::Thrown(error)) => {
                    return Err(thrown(error, false).unwrap_or(JsValue::UNDEFINED));
                }
            };
            return Ok(Some(Reply {
                status,
                headers,
                text,
            }));
        }
        match read_lines(&response, max_line, on_line).await {
            Ok(()) => Ok(None),
            Err(Failure::Refused(error)) => Err(error),
            Err(Failure::Thrown(error)) => match thrown(error, true) {
                None => Ok(None),
                Some(error) => Err(error),
            },
        }
    }
}

/// What a thrown value says: its `message`, or the value as text.
fn describe(error: &JsValue) -> String {
    get(error, "message")
        .as_string()
        .or_else(|| text_of(error))
        .unwrap_or_default()
}

/// Lets a promise settle unobserved: a cancellation that fails changes nothing.
fn ignore(promise: Result<Promise, JsValue>) {
    if let Ok(promise) = promise {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = JsFuture::from(promise).await;
        });
    }
}

/// Reads at most `limit` bytes of the body; more is a `malformed_reply`, so a huge reply costs
/// nothing. Invalid UTF-8 is a broken reply, not text to patch with replacement characters.
async fn read_limited(
    response: &JsValue,
    headers: &Headers,
    limit: usize,
) -> Result<String, Failure> {
    let body = get(response, "body");
    let stream: Option<Body> =
        (!body.is_null() && !body.is_undefined()).then(|| body.unchecked_into());
    let too_large = |problem: &[&str]| {
        Failure::Refused(grantor_error(
            "malformed_reply",
            &problem.concat(),
            Detail::default(),
        ))
    };
    if let Ok(Some(declared)) = headers.get("content-length") {
        let declared = decimal_value(declared.trim());
        if declared > limit as u64 {
            if let Some(stream) = &stream {
                ignore(stream.cancel_checked());
            }
            let declared = decimal(declared);
            let limit = decimal(limit as u64);
            return Err(too_large(&[
                "reply of ",
                &declared,
                " bytes exceeds ",
                &limit,
            ]));
        }
    }
    let Some(stream) = stream else {
        return Ok(String::new());
    };
    let reader = stream.get_reader_checked().map_err(Failure::Thrown)?;
    let mut bytes: Vec<u8> = Vec::new();
    while let Some(chunk) = next_chunk(&reader).await? {
        let length = chunk.length();
        let Some(total) = bytes
            .len()
            .checked_add(length as usize)
            .filter(|&t| t <= limit)
        else {
            ignore(reader.cancel_reader());
            return Err(too_large(&[
                "reply exceeds ",
                &decimal(limit as u64),
                " bytes",
            ]));
        };
        let start = bytes.len();
        bytes.resize(total, 0);
        chunk.copy_to(&mut bytes[start..]);
    }
    // As a fatal TextDecoder reads it: a leading byte-order mark is dropped.
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|_| {
        Failure::Refused(grantor_error(
            "malformed_reply",
            "reply is not valid UTF-8",
            Detail::default(),
        ))
    })
}

/// The next chunk of `reader`'s bytes, or `None` at the end of the stream.
async fn next_chunk(reader: &BodyReader) -> Result<Option<Uint8Array>, Failure> {
    let read = reader.read_checked().map_err(Failure::Thrown)?;
    let chunk = JsFuture::from(read).await.map_err(Failure::Thrown)?;
    if !chunk.is_object() {
        return Err(Failure::Thrown(
            js_sys::TypeError::new("the body's reader gave no result").into(),
        ));
    }
    let chunk: ReadableStreamReadResult = chunk.unchecked_into();
    if chunk.get_done() == Some(true) {
        return Ok(None);
    }
    // Realm-independent: Firefox hands chunks that fail `instanceof Uint8Array` here.
    let value = chunk.get_value();
    if !js_sys::ArrayBuffer::is_view(&value) {
        ignore(reader.cancel_reader());
        return Err(Failure::Thrown(
            js_sys::TypeError::new("the body is not bytes").into(),
        ));
    }
    // Any view counts by its bytes, read once: a caller's own fetch may hand a view that is not
    // a Uint8Array, whose `length` counts elements.
    let value: Uint8Array = value.unchecked_into();
    let own = Uint8Array::new_with_byte_offset_and_length(
        &value.buffer(),
        value.byte_offset(),
        value.byte_length(),
    );
    Ok(Some(own))
}

/// Reads the body line by line (see [`Endpoint::stream_lines`]): each complete line, and what is
/// left at the end, goes to `on_line`. The reader is cancelled when reading stops early.
async fn read_lines(
    response: &JsValue,
    max_line: usize,
    on_line: &mut dyn FnMut(&str) -> Result<(), JsValue>,
) -> Result<(), Failure> {
    let body = get(response, "body");
    if body.is_null() || body.is_undefined() {
        return Ok(());
    }
    let stream: Body = body.unchecked_into();
    let reader = stream.get_reader_checked().map_err(Failure::Thrown)?;
    let mut pending: Vec<u8> = Vec::new();
    let outcome = async {
        loop {
            let chunk = next_chunk(&reader).await?;
            let Some(chunk) = chunk else {
                return take_line(&pending, max_line, on_line);
            };
            let start = pending.len();
            pending.resize(start + chunk.length() as usize, 0);
            chunk.copy_to(&mut pending[start..]);
            let mut from = 0;
            while let Some(at) = pending[from..].iter().position(|&b| b == b'\n') {
                take_line(&pending[from..from + at], max_line, on_line)?;
                from += at + 1;
            }
            pending.drain(..from);
            if pending.len() > max_line {
                return Err(Failure::Refused(line_too_long(max_line)));
            }
        }
    }
    .await;
    if outcome.is_err() {
        ignore(reader.cancel_reader());
    }
    outcome
}

fn line_too_long(max_line: usize) -> JsValue {
    let message = [
        "a streamed message exceeds ",
        &decimal(max_line as u64),
        " bytes",
    ]
    .concat();
    grantor_error("malformed_reply", &message, Detail::default())
}

/// One line of a stream, to `on_line` unless blank; not UTF-8 or too long is `malformed_reply`.
fn take_line(
    line: &[u8],
    max_line: usize,
    on_line: &mut dyn FnMut(&str) -> Result<(), JsValue>,
) -> Result<(), Failure> {
    if line.len() > max_line {
        return Err(Failure::Refused(line_too_long(max_line)));
    }
    let Ok(text) = core::str::from_utf8(line) else {
        return Err(Failure::Refused(grantor_error(
            "malformed_reply",
            "a streamed message is not valid UTF-8",
            Detail::default(),
        )));
    };
    let text = text.trim_matches(|c: char| c == '\r' || c == ' ' || c == '\t');
    if text.is_empty() {
        return Ok(());
    }
    on_line(text).map_err(Failure::Refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn decimal_and_clipped_text() {
        assert_eq!(decimal(0), "0");
        assert_eq!(decimal(408), "408");
        assert_eq!(decimal(u64::MAX), "18446744073709551615");
        assert_eq!(decimal_value("1000000000"), 1_000_000_000);
        assert_eq!(decimal_value("99999999999999999999999"), u64::MAX);
        assert_eq!(decimal_value("1e9"), 0);
        assert_eq!(decimal_value(""), 0);
        assert_eq!(clipped("héllo", 2), "hé");
        assert_eq!(clipped("hi", 200), "hi");
        assert_ne!(pair_key(&["a:b", "c"]), pair_key(&["a", "b:c"]));
        assert_ne!(pair_key(&["1:a", ""]), pair_key(&["", "1:a"]));
        assert_eq!(pair_key(&["r", "h"]), "1:r1:h");
    }
}
