//! The grantor adapters: the calls `LeaseHolder` makes (grant, renew, release) translated to the
//! JSON APIs of stores users already run, one file each: etcd ([`etcd`]), Consul ([`consul`]),
//! Kubernetes Lease objects ([`kubernetes`]) and Redis behind an Upstash-style REST endpoint
//! ([`redis`]). Each answers with the protocol's replies ([`crate::protocol`]), built here and
//! never passed through: a store's reply that does not read as it should is a `malformed_reply`,
//! never a grant. Each also watches a resource (`observe`) through the store's own change feed,
//! or by polling where it has none (Redis), as a [`Feed`](super::watch::Feed) of the core's
//! watcher.
//!
//! What they share is here: the endpoint every adapter's requests go through (the fetch client of
//! [`super::fetch`], with `accept: application/json` and the adapter's credentials), the checks
//! every adapter makes of its arguments before sending anything, and the memory of recent calls
//! that answers retries by the core's rule ([`crate::core::replay`]).

pub mod consul;
pub mod etcd;
pub mod kubernetes;
pub mod redis;

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::task::Poll;

use wasm_bindgen::prelude::*;

use super::error::get;
use super::fetch::{
    bad_argument, base_href, checked_base_url, checked_fetch, checked_timeout_ms, config_error,
    decimal, header_entries, pair_key, Endpoint, Style,
};
use super::js::performance_now;
use crate::adapters::failover::MAX_MEMBERS;
use crate::core::replay::RecentCalls;
use crate::core::Micros;
use crate::protocol::{
    is_valid_name, ErrorCode, Token, MAX_HOLDER_LEN, MAX_REQUEST_DURATION_MS, MAX_REQUEST_ID_LEN,
    MAX_RESOURCE_LEN,
};

/// The most bytes an adapter reads of a reply, unless it says otherwise: the stores' replies are
/// a few hundred bytes, so a longer one is hostile or broken.
pub const MAX_REPLY_BYTES: usize = 64 * 1024;

/// The endpoint of an adapter's options (`baseUrl`, `headers`, `timeoutMs`, `credentials`,
/// `fetch`), sending `auth` (a lowercase header name and its value) with every request. Requests
/// go only to `baseUrl` plus a path the adapter builds from checked names, so the credentials
/// reach no other origin; `baseUrl` may have no query or fragment for the same reason.
pub fn endpoint(options: &JsValue, auth: Option<(&str, String)>) -> Result<Endpoint, JsValue> {
    let url = service_url(&get(options, "baseUrl"), "baseUrl")?;
    endpoint_at(url, options, auth)
}

/// [`endpoint`] at `url`, already checked.
fn endpoint_at(
    url: String,
    options: &JsValue,
    auth: Option<(&str, String)>,
) -> Result<Endpoint, JsValue> {
    let timeout_ms = checked_timeout_ms(&get(options, "timeoutMs"))?;
    let mut headers = Vec::new();
    for (name, value) in header_entries(&get(options, "headers"))? {
        let Some(value) = value.as_string() else {
            let message = ["header ", &name, " must be a string"].concat();
            return Err(config_error("headers", &message));
        };
        // Two spellings of one header would both be sent, joined into one value.
        if auth
            .as_ref()
            .is_some_and(|(auth, _)| name.eq_ignore_ascii_case(auth))
        {
            let message = ["header ", &name, " comes from token: give one or the other"].concat();
            return Err(config_error("headers", &message));
        }
        headers.push((name, value));
    }
    if let Some((name, value)) = auth {
        headers.push((name.to_owned(), value));
    }
    let fetch = checked_fetch(&get(options, "fetch"))?;
    Ok(Endpoint::new(
        url,
        headers,
        timeout_ms,
        get(options, "credentials"),
        fetch,
        Style::Rest,
    ))
}

/// A service URL (the option `field`): as [`checked_base_url`] requires, without a query or a
/// fragment (requests append paths to it); as requests are built on it.
fn service_url(value: &JsValue, field: &str) -> Result<String, JsValue> {
    let url = checked_base_url(value, field)?;
    if !url.search().is_empty() || !url.hash().is_empty() {
        let message = [field, " must not have a query or a fragment"].concat();
        return Err(config_error(field, &message));
    }
    Ok(base_href(&url))
}

/// The endpoints of a replicated store's members: the options of [`endpoint`], the URLs either
/// `baseUrl` (one member) or `endpoints` (an array of 1 to [`MAX_MEMBERS`] URLs, each checked as
/// `baseUrl` is), never both. Every member gets the same headers, timeout and `fetch`.
pub fn endpoints(
    options: &JsValue,
    auth: Option<(&str, String)>,
) -> Result<Vec<Endpoint>, JsValue> {
    let list = get(options, "endpoints");
    if list.is_undefined() {
        return Ok(vec![endpoint(options, auth)?]);
    }
    if !get(options, "baseUrl").is_undefined() {
        return Err(config_error(
            "endpoints",
            "give baseUrl or endpoints, not both",
        ));
    }
    let not_a_list = || {
        let message = [
            "endpoints must be an array of 1 to ",
            &decimal(MAX_MEMBERS as u64),
            " URLs",
        ];
        config_error("endpoints", &message.concat())
    };
    if !js_sys::Array::is_array(&list) {
        return Err(not_a_list());
    }
    let list: js_sys::Array = list.unchecked_into();
    if list.length() == 0 || list.length() as usize > MAX_MEMBERS {
        return Err(not_a_list());
    }
    let mut urls = Vec::new();
    for url in list.iter() {
        urls.push(service_url(&url, "endpoints")?);
    }
    let first = endpoint_at(urls[0].clone(), options, auth)?;
    Ok(urls.into_iter().map(|url| first.at(url)).collect())
}

/// The `keyPrefix` option: a string, `default` when it is not given.
pub fn key_prefix(options: &JsValue, default: &str) -> Result<String, JsValue> {
    let prefix = get(options, "keyPrefix");
    if prefix.is_undefined() {
        return Ok(default.to_owned());
    }
    prefix
        .as_string()
        .ok_or_else(|| config_error("keyPrefix", "keyPrefix must be a string"))
}

/// The `token` option of a store that takes one in the `authorization` header (etcd, Redis over
/// HTTP): `None` when it is not given; a non-empty string, and never beside an `authorization`
/// header of the user's own.
pub fn token_option(options: &JsValue) -> Result<Option<String>, JsValue> {
    let token = get(options, "token");
    if token.is_undefined() {
        return Ok(None);
    }
    let token = token
        .as_string()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| config_error("token", "token must be a non-empty string"))?;
    if has_authorization(options) {
        return Err(config_error(
            "token",
            "give either token or an authorization header",
        ));
    }
    Ok(Some(token))
}

/// Whether the user's `headers` option names `authorization` already.
fn has_authorization(options: &JsValue) -> bool {
    header_entries(&get(options, "headers")).is_ok_and(|headers| {
        headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("authorization"))
    })
}

/// A token option given as a credential (Consul's, Kubernetes'): a non-empty string a `Headers`
/// object accepts, without outer spaces.
pub fn checked_credential(value: &JsValue, field: &str) -> Result<String, JsValue> {
    let problem = || {
        let message = [
            field,
            " must be a non-empty string without line breaks or outer spaces",
        ];
        config_error(field, &message.concat())
    };
    let text = value.as_string().ok_or_else(problem)?;
    // JavaScript's trim also takes the byte-order mark, which Rust's does not count as space.
    let trimmed = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if text.is_empty() || text.contains(['\r', '\n', '\0']) || trimmed.len() != text.len() {
        return Err(problem());
    }
    Ok(text)
}

/// `holder`: a non-empty printable ASCII string within the protocol's length.
pub fn check_holder(value: &JsValue) -> Result<String, JsValue> {
    value
        .as_string()
        .filter(|holder| is_valid_name(holder, MAX_HOLDER_LEN))
        .ok_or_else(|| {
            bad_argument(
                ErrorCode::BadHolder.as_str(),
                "holder must be 1 to 256 printable ASCII characters",
            )
        })
}

/// `resource` or `holder` (`field`) for a store that keeps names as any text (etcd, Redis): a
/// non-empty string within the protocol's length, in UTF-16 units as JavaScript counts it. Those
/// stores hold UTF-8 names intact, and their users rely on it, so only the length is the
/// protocol's, not its printable-ASCII alphabet.
pub fn check_text_name(field: &str, value: &JsValue) -> Result<String, JsValue> {
    let resource = field == "resource";
    let max = if resource {
        MAX_RESOURCE_LEN
    } else {
        MAX_HOLDER_LEN
    };
    match value.as_string() {
        Some(name) if !name.is_empty() && name.encode_utf16().count() <= max => Ok(name),
        _ => {
            let code = if resource {
                ErrorCode::BadResource
            } else {
                ErrorCode::BadHolder
            };
            let message = [
                field,
                " must be a string of 1 to ",
                &decimal(max as u64),
                " characters",
            ];
            Err(bad_argument(code.as_str(), &message.concat()))
        }
    }
}

/// `requestId`: absent, or a non-empty printable ASCII string within the protocol's length.
pub fn check_request_id(value: &JsValue) -> Result<Option<String>, JsValue> {
    if value.is_undefined() {
        return Ok(None);
    }
    value
        .as_string()
        .filter(|id| is_valid_name(id, MAX_REQUEST_ID_LEN))
        .map(Some)
        .ok_or_else(|| {
            bad_argument(
                ErrorCode::BadRequestId.as_str(),
                "requestId must be 1 to 128 printable ASCII characters",
            )
        })
}

/// `durationMs`: an integer from 1 to the protocol's longest duration (2^31 - 1).
pub fn check_duration_ms(value: &JsValue) -> Result<u64, JsValue> {
    match value.as_f64() {
        Some(ms) if ms.fract() == 0.0 && (1.0..=MAX_REQUEST_DURATION_MS as f64).contains(&ms) => {
            Ok(ms as u64)
        }
        _ => Err(bad_argument(
            ErrorCode::BadDuration.as_str(),
            "durationMs must be an integer from 1 to 2147483647",
        )),
    }
}

/// `token`: one a grantor can have issued, an integer from 1 to 2^53 - 1.
pub fn check_token(value: &JsValue) -> Result<u64, JsValue> {
    value
        .as_f64()
        .and_then(Token::issued_from_f64)
        .map(Token::get)
        .ok_or_else(|| {
            bad_argument(
                ErrorCode::BadToken.as_str(),
                "token must be a positive safe integer",
            )
        })
}

/// The key of a call's attempt for [`Recent`]: none for a call without a `requestId`.
pub fn attempt_key(parts: &[&str], request_id: Option<&str>) -> Option<String> {
    let request_id = request_id?;
    let mut all = parts.to_vec();
    all.push(request_id);
    Some(pair_key(&all))
}

/// The durations of recent successful grants and renewals, keyed by attempt, and when each call
/// started. A retry of an attempt (same `requestId`) is answered with what the original has left,
/// counted from when the original call started, which is before the store started its lease: a
/// holder that measures from the retry must not be promised more than the original grant had. The
/// rule and its bounded memory are the core's ([`RecentCalls`], the rule the reference grantor
/// answers its stored replies by); this reads the clock for it.
#[derive(Default)]
pub struct Recent(RefCell<RecentCalls>);

/// A call's start, in µs, rounded down: an earlier start leaves less to promise. A reading that is
/// not a number counts as the clock's zero, which leaves the least.
fn started_at(ms: f64) -> Micros {
    Micros(if ms.is_finite() {
        (ms * 1000.0) as u64
    } else {
        0
    })
}

/// Now, in µs, rounded up: a later now leaves less to promise. A reading that is not a number
/// counts as infinitely late, which leaves nothing.
fn now_micros() -> Micros {
    let ms = performance_now();
    Micros(if ms.is_finite() {
        (ms * 1000.0).ceil() as u64
    } else {
        u64::MAX
    })
}

impl Recent {
    /// Records that the attempt `key`, which started at `started_ms` (`performance.now()`), got
    /// `duration_ms`.
    pub fn remember(&self, key: Option<&str>, started_ms: f64, duration_ms: u64) {
        if let Some(key) = key {
            let mut calls = self.0.borrow_mut();
            calls.remember(key, started_at(started_ms), duration_ms);
        }
    }

    /// Whole ms the remembered attempt `key` has left, or `None` when unknown or spent.
    pub fn remaining_ms(&self, key: Option<&str>) -> Option<u64> {
        self.0.borrow().remaining_ms(key?, now_micros())
    }

    /// What the attempt `key`, carried out again, may promise when the store now promised
    /// `duration_ms`: no more than the original has left. A call without a key promises
    /// `duration_ms`.
    pub fn promise(&self, key: Option<&str>, started_ms: f64, duration_ms: u64) -> u64 {
        match key {
            Some(key) => {
                let mut calls = self.0.borrow_mut();
                calls.promise(key, started_at(started_ms), duration_ms, now_micros())
            }
            None => duration_ms,
        }
    }
}

/// Runs two futures at once; resolves both outcomes.
pub async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let mut a = pin!(a);
    let mut b = pin!(b);
    let (mut first, mut second) = (None, None);
    std::future::poll_fn(|cx| {
        if first.is_none() {
            if let Poll::Ready(out) = a.as_mut().poll(cx) {
                first = Some(out);
            }
        }
        if second.is_none() {
            if let Poll::Ready(out) = b.as_mut().poll(cx) {
                second = Some(out);
            }
        }
        match (first.take(), second.take()) {
            (Some(x), Some(y)) => Poll::Ready((x, y)),
            (x, y) => {
                first = x;
                second = y;
                Poll::Pending
            }
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn arguments_are_checked_as_the_protocol_says() {
        assert!(check_holder(&"worker-1".into()).is_ok());
        assert!(check_holder(&"wörker".into()).is_err());
        assert!(check_text_name("holder", &"wörker-ñ-東".into()).is_ok());
        assert!(check_text_name("resource", &"é".repeat(257).into()).is_err());
        assert!(check_text_name("resource", &"é".repeat(256).into()).is_ok());
        assert!(check_duration_ms(&JsValue::from(2_147_483_647.0)).is_ok());
        for bad in [0.0, 1.5, 2_147_483_648.0, f64::NAN, f64::INFINITY] {
            assert!(check_duration_ms(&JsValue::from(bad)).is_err());
        }
        assert!(check_duration_ms(&"2000".into()).is_err());
        assert!(check_token(&JsValue::from(9_007_199_254_740_991.0)).is_ok());
        for bad in [0.0, -1.0, 2.5, 9_007_199_254_740_992.0] {
            assert!(check_token(&JsValue::from(bad)).is_err());
        }
        assert_eq!(check_request_id(&JsValue::UNDEFINED).ok(), Some(None));
        assert!(check_request_id(&"".into()).is_err());
        assert!(checked_credential(&" t".into(), "token").is_err());
        assert!(checked_credential(&"t\u{feff}".into(), "token").is_err());
        assert!(checked_credential(&"a b".into(), "token").is_ok());
    }
}
