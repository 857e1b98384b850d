//! API keys: who may call the grantor, on which names, how often, and who may revoke.
//!
//! Keys are bearer tokens (`Authorization: Bearer <key>`). The grantor keeps only their SHA-256
//! hashes: a key file may list a key's hash instead of the key itself, and a key given in plain
//! text is hashed when it is loaded. A presented key is hashed and compared with every known hash
//! in constant time, so neither the comparison nor the order of the keys tells an attacker how
//! close a guess came, and no key or hash is ever logged.
//!
//! Each key has namespaces: resource and queue name prefixes, each ending in `/` (or `*`, every
//! name). Names are compared byte for byte; the protocol's names are printable ASCII with no
//! escaping or path semantics, so `team-a/../team-b/x` is a resource inside `team-a/`, never
//! `team-b/x`.

use std::collections::HashSet;
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::header::{AUTHORIZATION, RETRY_AFTER};
use axum::http::request::Parts;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tenure::protocol::{is_valid_name, ErrorCode, MAX_QUEUE_LEN, MAX_RESOURCE_LEN};

use crate::error::ApiError;
use crate::AppState;

/// The shortest key accepted in plain text, in bytes. Generated keys are far longer.
pub const MIN_KEY_LEN: usize = 16;

/// The longest key id, in bytes.
const MAX_KEY_ID_LEN: usize = 64;

/// The namespace that covers every name.
const EVERY_NAME: &str = "*";

/// One API key as the grantor knows it: never the key itself.
pub struct ApiKey {
    /// Names the key in logs and configuration; not secret.
    id: String,
    hash: [u8; 32],
    namespaces: Vec<String>,
    admin: bool,
    rate: Option<Rate>,
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiKey")
            .field("id", &self.id)
            .field("namespaces", &self.namespaces)
            .field("admin", &self.admin)
            .field("rate", &self.rate)
            .finish_non_exhaustive()
    }
}

/// A token bucket's shape: `per_second` requests a second on average, bursts up to `burst`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    per_second: f64,
    burst: u32,
}

/// One line of a key file, or of `TENURE_GRANTOR_KEYS`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct KeyLine {
    id: String,
    #[serde(default)]
    secret: Option<String>,
    #[serde(default)]
    sha256: Option<String>,
    namespaces: Vec<String>,
    #[serde(default)]
    admin: bool,
    #[serde(default)]
    rate_per_second: Option<f64>,
    #[serde(default)]
    burst: Option<u32>,
}

/// SHA-256 of `key`, as lowercase hex: what a key file may list instead of the key.
pub fn sha256_hex(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new random key: `tnr_` and 256 bits from the operating system's CSPRNG, base64url.
pub fn generate_key() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a key: {e}"))?;
    Ok(format!("tnr_{}", URL_SAFE_NO_PAD.encode(bytes)))
}

fn check_key_text(key: &str) -> Result<(), String> {
    if key.len() < MIN_KEY_LEN {
        return Err(format!("a key must be at least {MIN_KEY_LEN} bytes long"));
    }
    // A bearer token is one header word: no spaces, nothing a header cannot carry.
    if !key.bytes().all(|b| (0x21..=0x7E).contains(&b)) {
        return Err("a key must be printable ASCII without spaces".into());
    }
    Ok(())
}

fn parse_hex_hash(hex: &str) -> Result<[u8; 32], String> {
    let bad = || "sha256 must be 64 hexadecimal digits".to_owned();
    if hex.len() != 64 {
        return Err(bad());
    }
    let mut hash = [0u8; 32];
    for (i, byte) in hash.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2).ok_or_else(bad)?, 16)
            .map_err(|_| bad())?;
    }
    Ok(hash)
}

fn check_namespace(namespace: &str) -> Result<(), String> {
    if namespace == EVERY_NAME {
        return Ok(());
    }
    if !is_valid_name(namespace, MAX_RESOURCE_LEN.max(MAX_QUEUE_LEN)) {
        return Err(format!(
            "namespace {namespace:?} must be printable ASCII of at most {MAX_RESOURCE_LEN} bytes"
        ));
    }
    // Without the slash, `team-a` would also cover `team-ab/...`.
    if !namespace.ends_with('/') {
        return Err(format!(
            "namespace {namespace:?} must end with '/' (or be \"*\" for every name)"
        ));
    }
    Ok(())
}

impl ApiKey {
    fn from_line(line: KeyLine) -> Result<ApiKey, String> {
        if line.id.is_empty()
            || line.id.len() > MAX_KEY_ID_LEN
            || !line.id.bytes().all(|b| (0x21..=0x7E).contains(&b))
        {
            return Err(format!(
                "id must be 1 to {MAX_KEY_ID_LEN} bytes of printable ASCII without spaces"
            ));
        }
        let hash = match (&line.secret, &line.sha256) {
            (Some(secret), None) => {
                check_key_text(secret)?;
                Sha256::digest(secret.as_bytes()).into()
            }
            (None, Some(hex)) => parse_hex_hash(hex)?,
            _ => return Err("give exactly one of secret and sha256".into()),
        };
        if line.namespaces.is_empty() {
            return Err("namespaces must list at least one prefix (or \"*\")".into());
        }
        for namespace in &line.namespaces {
            check_namespace(namespace)?;
        }
        let rate = match (line.rate_per_second, line.burst) {
            (None, None) => None,
            (None, Some(_)) => return Err("burst needs ratePerSecond".into()),
            (Some(per_second), burst) => {
                if !(per_second.is_finite() && per_second > 0.0 && per_second <= 1e6) {
                    return Err("ratePerSecond must be a number above 0, at most 1000000".into());
                }
                // By default a key may spend one second's worth at once.
                let burst = burst.unwrap_or_else(|| per_second.ceil() as u32).max(1);
                Some(Rate { per_second, burst })
            }
        };
        Ok(ApiKey {
            id: line.id,
            hash,
            namespaces: line.namespaces,
            admin: line.admin,
            rate,
        })
    }

    /// An admin key for every name: what `--admin-key` and `TENURE_GRANTOR_ADMIN_KEY` give.
    pub fn admin(id: &str, key: &str) -> Result<ApiKey, String> {
        ApiKey::from_line(KeyLine {
            id: id.to_owned(),
            secret: Some(key.to_owned()),
            sha256: None,
            namespaces: vec![EVERY_NAME.to_owned()],
            admin: true,
            rate_per_second: None,
            burst: None,
        })
    }

    /// The key's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether the key may revoke.
    pub fn is_admin(&self) -> bool {
        self.admin
    }

    /// Whether `name` (a resource or queue) lies in one of the key's namespaces.
    pub fn allows(&self, name: &str) -> bool {
        self.namespaces
            .iter()
            .any(|ns| ns == EVERY_NAME || name.starts_with(ns.as_str()))
    }
}

/// Parses keys given as JSON lines (a key file, or `TENURE_GRANTOR_KEYS`): one JSON object per
/// line; blank lines and lines starting with `#` are ignored. `source` names where the text came
/// from, for error messages.
pub fn parse_keys(text: &str, source: &str) -> Result<Vec<ApiKey>, String> {
    let mut keys = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // serde's messages name fields and positions, and quote a value only when its type is
        // wrong, which a string key never is: no key reaches the error.
        let parsed: KeyLine =
            serde_json::from_str(line).map_err(|e| format!("{source} line {}: {e}", number + 1))?;
        let key =
            ApiKey::from_line(parsed).map_err(|e| format!("{source} line {}: {e}", number + 1))?;
        keys.push(key);
    }
    Ok(keys)
}

/// Every key the grantor accepts. Empty means no authentication (loopback only, or explicitly
/// insecure).
#[derive(Clone, Debug, Default)]
pub struct KeyRing {
    keys: Arc<[Arc<ApiKey>]>,
}

impl KeyRing {
    /// The keys, refused if two share an id or a key.
    pub fn new(keys: Vec<ApiKey>) -> Result<KeyRing, String> {
        let mut ids = HashSet::new();
        let mut hashes = HashSet::new();
        for key in &keys {
            if !ids.insert(key.id.as_str()) {
                return Err(format!("two keys have the id {:?}", key.id));
            }
            if !hashes.insert(key.hash) {
                return Err(format!("key {:?} repeats another key", key.id));
            }
        }
        Ok(KeyRing {
            keys: keys.into_iter().map(Arc::new).collect(),
        })
    }

    /// Whether no key is configured.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// The key `presented` is, with its index. Looks at every key, whatever matches.
    fn find(&self, presented: &str) -> Option<(usize, &Arc<ApiKey>)> {
        let hash: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let mut found = None;
        for (index, key) in self.keys.iter().enumerate() {
            if constant_time_eq(&hash, &key.hash) {
                found = Some((index, key));
            }
        }
        found
    }
}

/// Compares without an early exit on the first differing byte, so response timing does not
/// reveal how much of a guess was right.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A token bucket per key.
pub struct RateLimits {
    buckets: Vec<Mutex<Bucket>>,
}

struct Bucket {
    tokens: f64,
    refilled: Instant,
}

impl RateLimits {
    /// Full buckets for every key of `keys`.
    pub fn new(keys: &KeyRing) -> RateLimits {
        let now = Instant::now();
        RateLimits {
            buckets: keys
                .keys
                .iter()
                .map(|key| {
                    Mutex::new(Bucket {
                        tokens: key.rate.map_or(0.0, |r| f64::from(r.burst)),
                        refilled: now,
                    })
                })
                .collect(),
        }
    }

    /// Takes one request from key `index`'s bucket, or says how long until one is there.
    fn take(&self, index: usize, rate: Rate) -> Result<(), Duration> {
        let Some(bucket) = self.buckets.get(index) else {
            return Ok(());
        };
        let mut bucket = bucket.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        let elapsed = now.saturating_duration_since(bucket.refilled).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate.per_second).min(f64::from(rate.burst));
        bucket.refilled = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(
                (1.0 - bucket.tokens) / rate.per_second,
            ))
        }
    }
}

/// Who is calling, as the authentication middleware established it.
#[derive(Clone, Debug)]
pub enum Caller {
    /// No keys are configured: anyone who can reach the grantor.
    Open,
    /// The holder of this key.
    Key(Arc<ApiKey>),
}

impl Caller {
    /// Refuses a resource outside the caller's namespaces.
    pub fn check_resource(&self, resource: &str) -> Result<(), ApiError> {
        self.check(resource, "resource")
    }

    /// Refuses a queue outside the caller's namespaces.
    pub fn check_queue(&self, queue: &str) -> Result<(), ApiError> {
        self.check(queue, "queue")
    }

    fn check(&self, name: &str, what: &str) -> Result<(), ApiError> {
        match self {
            Caller::Key(key) if !key.allows(name) => Err(ApiError::new(
                ErrorCode::ForbiddenNamespace,
                format!("this API key may not use a {what} of that name (outside its namespaces)"),
            )),
            _ => Ok(()),
        }
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Caller, ApiError> {
        // The middleware sets it on every /v1 request; its absence is a wiring bug, and failing
        // closed is the safe answer to that.
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ApiError::new(ErrorCode::Internal, "no caller established"))
    }
}

/// The bearer credential of `Authorization`, if the header is there and well formed.
fn bearer(request: &Request) -> Result<&str, &'static str> {
    let mut headers = request.headers().get_all(AUTHORIZATION).iter();
    let header = headers
        .next()
        .ok_or("this grantor requires an API key: send Authorization: Bearer <key>")?;
    if headers.next().is_some() {
        return Err("send one Authorization header");
    }
    header
        .to_str()
        .ok()
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, credential)| credential.trim())
        .filter(|credential| !credential.is_empty())
        .ok_or("the Authorization header must be: Bearer <key>")
}

/// Establishes the [`Caller`] of every `/v1` request: with keys configured, the request must
/// carry a known one (else `401 unauthorized`) within its rate (else `429 rate_limited`).
pub async fn authenticate(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    if !request.uri().path().starts_with("/v1/") {
        return next.run(request).await;
    }
    let caller = if state.keys.is_empty() {
        Caller::Open
    } else {
        let found = bearer(&request).and_then(|presented| {
            state
                .keys
                .find(presented)
                .ok_or("unknown API key")
                .map(|(index, key)| (index, key.clone()))
        });
        let (index, key) = match found {
            Ok(found) => found,
            Err(why) => {
                let peer = request
                    .extensions()
                    .get::<ConnectInfo<SocketAddr>>()
                    .map(|ConnectInfo(addr)| addr.ip());
                tracing::debug!(?peer, why, "request refused: no valid API key");
                return ApiError::new(ErrorCode::Unauthorized, why).into_response();
            }
        };
        if let Some(rate) = key.rate {
            if let Err(wait) = state.rate_limits.take(index, rate) {
                return rate_limited(&key, wait);
            }
        }
        Caller::Key(key)
    };
    request.extensions_mut().insert(caller);
    next.run(request).await
}

fn rate_limited(key: &ApiKey, wait: Duration) -> Response {
    // Whole seconds, rounded up: `Retry-After` has no finer unit.
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let seconds = seconds.max(1);
    tracing::debug!(key = key.id(), seconds, "rate limited");
    let mut response = ApiError::new(
        ErrorCode::RateLimited,
        format!("this API key is over its request rate; retry in {seconds} s"),
    )
    .into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// Permission to revoke: an admin key when keys are configured, otherwise a loopback peer.
pub struct Admin(pub Caller);

impl FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Admin, ApiError> {
        match Caller::from_request_parts(parts, state).await? {
            Caller::Key(key) if key.is_admin() => Ok(Admin(Caller::Key(key))),
            Caller::Key(_) => Err(ApiError::new(
                ErrorCode::AdminOnly,
                "revoke needs an admin API key",
            )),
            Caller::Open => {
                let peer = parts
                    .extensions
                    .get::<ConnectInfo<SocketAddr>>()
                    .map(|ConnectInfo(addr)| addr.ip().to_canonical());
                match peer {
                    Some(ip) if ip.is_loopback() => Ok(Admin(Caller::Open)),
                    _ => Err(ApiError::new(
                        ErrorCode::Forbidden,
                        "no API keys are configured, so only loopback peers may revoke",
                    )),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef-key";

    fn one(line: &str) -> Result<ApiKey, String> {
        parse_keys(line, "test").map(|mut keys| keys.remove(0))
    }

    #[test]
    fn constant_time_eq_compares_whole_slices() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secrets"));
        assert!(!constant_time_eq(b"", b"x"));
    }

    #[test]
    fn a_key_file_lists_hashes_or_secrets_with_namespaces() {
        let text = format!(
            "# ops\n\n{{\"id\":\"a\",\"sha256\":\"{}\",\"namespaces\":[\"team-a/\"]}}\n\
             {{\"id\":\"ops\",\"secret\":\"{KEY}x\",\"namespaces\":[\"*\"],\"admin\":true,\"ratePerSecond\":2.5}}\n",
            sha256_hex(KEY)
        );
        let ring = KeyRing::new(parse_keys(&text, "test").unwrap()).unwrap();
        assert_eq!(ring.len(), 2);
        let (index, a) = ring.find(KEY).unwrap();
        assert_eq!((index, a.id(), a.is_admin()), (0, "a", false));
        assert!(a.allows("team-a/x") && !a.allows("team-ab/x") && !a.allows("team-a"));
        let (_, ops) = ring.find(&format!("{KEY}x")).unwrap();
        assert!(ops.is_admin() && ops.allows("anything"));
        assert_eq!(
            ops.rate,
            Some(Rate {
                per_second: 2.5,
                burst: 3
            })
        );
        assert!(ring.find("0123456789abcdef-kez").is_none());
    }

    #[test]
    fn bad_key_lines_are_refused_with_their_line_number() {
        let hash = sha256_hex(KEY);
        for (line, expected) in [
            (
                r#"{"id":"a","namespaces":["a/"]}"#.to_owned(),
                "exactly one",
            ),
            (
                format!(r#"{{"id":"a","secret":"{KEY}","sha256":"{hash}","namespaces":["a/"]}}"#),
                "exactly one",
            ),
            (
                r#"{"id":"a","secret":"short","namespaces":["a/"]}"#.to_owned(),
                "at least 16",
            ),
            (
                r#"{"id":"a","secret":"with spaces in the key","namespaces":["a/"]}"#.to_owned(),
                "without spaces",
            ),
            (
                r#"{"id":"a","sha256":"abc","namespaces":["a/"]}"#.to_owned(),
                "64 hexadecimal",
            ),
            (
                format!(r#"{{"id":"a","sha256":"{hash}","namespaces":[]}}"#),
                "at least one",
            ),
            (
                format!(r#"{{"id":"a","sha256":"{hash}","namespaces":["team-a"]}}"#),
                "must end with '/'",
            ),
            (
                format!(r#"{{"id":"a","sha256":"{hash}","namespaces":["a/"],"ratePerSecond":0}}"#),
                "above 0",
            ),
            (
                format!(r#"{{"id":"a","sha256":"{hash}","namespaces":["a/"],"burst":3}}"#),
                "needs ratePerSecond",
            ),
            (
                format!(r#"{{"id":"","sha256":"{hash}","namespaces":["a/"]}}"#),
                "id must be",
            ),
            (
                format!(r#"{{"id":"a","sha256":"{hash}","namespaces":["a/"],"extra":1}}"#),
                "unknown field",
            ),
        ] {
            let text = format!("# header\n{line}");
            let error = one(&text).unwrap_err();
            assert!(error.starts_with("test line 2: "), "{error}");
            assert!(error.contains(expected), "{line}: {error}");
            assert!(!error.contains(KEY), "the error repeats the key: {error}");
        }
    }

    #[test]
    fn duplicate_ids_and_keys_are_refused() {
        let a = || ApiKey::admin("a", KEY).unwrap();
        assert!(KeyRing::new(vec![a(), a()]).unwrap_err().contains("id"));
        let b = ApiKey::admin("b", KEY).unwrap();
        assert!(KeyRing::new(vec![a(), b]).unwrap_err().contains("repeats"));
    }

    #[test]
    fn a_bucket_allows_its_burst_then_paces() {
        let ring = KeyRing::new(vec![one(&format!(
            r#"{{"id":"a","secret":"{KEY}","namespaces":["*"],"ratePerSecond":1,"burst":2}}"#
        ))
        .unwrap()])
        .unwrap();
        let limits = RateLimits::new(&ring);
        let rate = ring.keys[0].rate.unwrap();
        assert!(limits.take(0, rate).is_ok());
        assert!(limits.take(0, rate).is_ok());
        let wait = limits.take(0, rate).unwrap_err();
        assert!(
            wait > Duration::from_millis(900) && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
    }

    #[test]
    fn generated_keys_are_long_and_distinct() {
        let (a, b) = (generate_key().unwrap(), generate_key().unwrap());
        assert_ne!(a, b);
        assert!(a.starts_with("tnr_") && a.len() == 47, "{a}");
        check_key_text(&a).unwrap();
    }
}
