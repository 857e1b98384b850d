//! Wire types of the tenure grantor protocol (`/v1`, JSON over HTTP).
//!
//! One definition serves both sides: the reference grantor deserialises requests and serialises
//! replies with these types, the WebAssembly binding converts JavaScript values onto them, and
//! the client validates the
//! replies it receives against the same rules ([`GrantReply::outcome`], [`RenewReply::outcome`], [`Token::new`]).
//! `docs/protocol.md` is the prose form of this module.
//!
//! Durations on the wire are always relative milliseconds; no wall-clock timestamp ever crosses
//! the wire, because the two ends' wall clocks need not agree.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The largest token value: tokens travel as JSON numbers and must stay exact in JavaScript.
pub const MAX_TOKEN: u64 = (1 << 53) - 1;

/// The first token a grantor issues for a resource: counters start at 1, so no grant has token 0.
pub const FIRST_TOKEN: u64 = 1;

/// Longest resource name the protocol accepts, in bytes.
pub const MAX_RESOURCE_LEN: usize = 256;

/// Longest holder identity the protocol accepts, in bytes.
pub const MAX_HOLDER_LEN: usize = 256;

/// Longest request id the protocol accepts, in bytes.
pub const MAX_REQUEST_ID_LEN: usize = 128;

/// A fencing token: per resource, strictly increasing across holders and grantor restarts.
///
/// Always within `0..=MAX_TOKEN`, so it is exact as a JavaScript number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct Token(u64);

impl Token {
    /// Accepts `value` if it is a valid token (`<= MAX_TOKEN`).
    pub fn new(value: u64) -> Result<Token, TokenError> {
        if value > MAX_TOKEN {
            return Err(TokenError::TooLarge);
        }
        Ok(Token(value))
    }

    /// Accepts a JavaScript number if it is a non-negative integer no larger than `MAX_TOKEN`.
    pub fn from_f64(value: f64) -> Result<Token, TokenError> {
        if value.is_nan() {
            return Err(TokenError::NotANumber);
        }
        if value < 0.0 {
            return Err(TokenError::Negative);
        }
        if value.fract() != 0.0 || value.is_infinite() {
            return Err(TokenError::NotAnInteger);
        }
        if value > MAX_TOKEN as f64 {
            return Err(TokenError::TooLarge);
        }
        Ok(Token(value as u64))
    }

    /// Accepts a JavaScript number if it is a token a grantor can have issued: an integer from
    /// [`FIRST_TOKEN`] to `MAX_TOKEN`. A request about a grant (renew, release) names one of
    /// these; 0 names no grant, so an adapter refuses it before sending anything.
    pub fn issued_from_f64(value: f64) -> Option<Token> {
        Token::from_f64(value)
            .ok()
            .filter(|token| token.0 >= FIRST_TOKEN)
    }

    /// The token's value.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl TryFrom<u64> for Token {
    type Error = TokenError;
    fn try_from(value: u64) -> Result<Self, Self::Error> {
        Token::new(value)
    }
}

impl From<Token> for u64 {
    fn from(token: Token) -> u64 {
        token.0
    }
}

/// Why a value is not a valid token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenError {
    /// The value is NaN.
    NotANumber,
    /// The value is below zero.
    Negative,
    /// The value has a fractional part or is infinite.
    NotAnInteger,
    /// The value exceeds `MAX_TOKEN` (2^53 − 1).
    TooLarge,
}

impl TokenError {
    /// A short, stable description for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            TokenError::NotANumber => "token is NaN",
            TokenError::Negative => "token is negative",
            TokenError::NotAnInteger => "token is not an integer",
            TokenError::TooLarge => "token exceeds 2^53-1",
        }
    }
}

impl core::fmt::Display for TokenError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.describe())
    }
}

/// `POST /v1/grant`: ask for a lease on `resource`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GrantRequest {
    /// The resource to lease.
    pub resource: String,
    /// The requesting holder's identity.
    pub holder: String,
    /// The requested lease duration; the grantor may clamp it to its configured range.
    pub duration_ms: u64,
    /// Identifies this attempt; a retry with the same id returns the original outcome.
    pub request_id: String,
    /// The secret of this holder's live grant, if it holds one: a holder re-granting its own live
    /// lease must prove it received that grant, or it is denied like any other holder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_secret: Option<String>,
}

/// Reply to [`GrantRequest`]. `granted: true` carries `token` and `durationMs`; `granted: false`
/// carries the current `holder` and its `expiresInMs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantReply {
    /// Whether the lease was granted.
    pub granted: bool,
    /// The fencing token of the new grant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<Token>,
    /// The granted duration, possibly clamped by the grantor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// On denial: who holds the lease now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// On denial: how long the current grant has left, a hint for when to retry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_in_ms: Option<u64>,
}

/// What a [`GrantReply`] means once validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrantOutcome {
    /// The lease was granted with this token, for this duration if the grantor named one.
    Granted {
        /// The fencing token.
        token: Token,
        /// The granted duration, if the reply gave one.
        duration_ms: Option<u64>,
    },
    /// Somebody else holds the lease.
    Denied {
        /// The current holder, if the reply named one.
        holder: Option<String>,
        /// When the current grant ends, if the reply said.
        expires_in_ms: Option<u64>,
    },
}

impl GrantReply {
    /// A reply granting `token` for `duration_ms`.
    pub fn granted(token: Token, duration_ms: u64) -> GrantReply {
        GrantReply {
            granted: true,
            token: Some(token),
            duration_ms: Some(duration_ms),
            holder: None,
            expires_in_ms: None,
        }
    }

    /// A reply denying the grant because `holder` holds it for `expires_in_ms` more.
    pub fn denied(holder: String, expires_in_ms: u64) -> GrantReply {
        GrantReply {
            granted: false,
            token: None,
            duration_ms: None,
            holder: Some(holder),
            expires_in_ms: Some(expires_in_ms),
        }
    }

    /// Validates the reply. A grant without a token is malformed, never a grant.
    pub fn outcome(self) -> Result<GrantOutcome, MalformedReply> {
        if self.granted {
            let token = self.token.ok_or(MalformedReply::MissingToken)?;
            if self.duration_ms == Some(0) {
                return Err(MalformedReply::BadDuration);
            }
            Ok(GrantOutcome::Granted {
                token,
                duration_ms: self.duration_ms,
            })
        } else {
            Ok(GrantOutcome::Denied {
                holder: self.holder,
                expires_in_ms: self.expires_in_ms,
            })
        }
    }
}

/// A [`GrantReply`] with the grant's secret, as the reference grantor sends it. The secret binds
/// the grant to whoever received it: renewing or releasing the grant, writing with its token, and
/// re-granting it to the same holder all need it. It travels only in this reply (and in a replay
/// of the same request), so another party that learns the holder's name and token cannot act as
/// that holder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantReplyWithSecret {
    /// The reply itself; its fields appear at the top level.
    #[serde(flatten)]
    pub reply: GrantReply,
    /// On a grant, the grant's secret; absent on a denial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_secret: Option<String>,
}

/// `POST /v1/renew`: extend a held lease.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenewRequest {
    /// The leased resource.
    pub resource: String,
    /// The holder's identity.
    pub holder: String,
    /// The token of the grant being renewed.
    pub token: Token,
    /// The requested duration from now.
    pub duration_ms: u64,
    /// Identifies this attempt; a retry with the same id returns the original outcome.
    pub request_id: String,
    /// The grant's secret, from the grant's reply: required to renew a live grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_secret: Option<String>,
}

/// Why the grantor refused a renewal. Every reason is a definitive loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenewRefusal {
    /// The grant had already expired at the grantor.
    Expired,
    /// An administrator revoked the grant.
    Revoked,
    /// Somebody else holds the resource, or the token does not match.
    NotHolder,
    /// The grantor knows no such lease.
    Unknown,
}

impl RenewRefusal {
    /// The reason as it appears on the wire and in `onLeaseLost`.
    pub fn as_str(self) -> &'static str {
        match self {
            RenewRefusal::Expired => "expired",
            RenewRefusal::Revoked => "revoked",
            RenewRefusal::NotHolder => "not_holder",
            RenewRefusal::Unknown => "unknown",
        }
    }

    /// Parses a wire reason; anything unrecognised is `None`.
    pub fn parse(reason: &str) -> Option<RenewRefusal> {
        Some(match reason {
            "expired" => RenewRefusal::Expired,
            "revoked" => RenewRefusal::Revoked,
            "not_holder" => RenewRefusal::NotHolder,
            "unknown" => RenewRefusal::Unknown,
            _ => return None,
        })
    }
}

/// Reply to [`RenewRequest`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenewReply {
    /// Whether the lease was renewed.
    pub renewed: bool,
    /// On success: the (unchanged or larger) token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<Token>,
    /// On success: the renewed duration, possibly clamped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// On failure: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<RenewRefusal>,
}

/// What a [`RenewReply`] means once validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenewOutcome {
    /// Renewed with this token, for this duration if the grantor named one.
    Renewed {
        /// The token after renewal.
        token: Token,
        /// The renewed duration, if the reply gave one.
        duration_ms: Option<u64>,
    },
    /// The grantor refused: the lease is lost.
    Refused(RenewRefusal),
}

impl RenewReply {
    /// A successful renewal.
    pub fn renewed(token: Token, duration_ms: u64) -> RenewReply {
        RenewReply {
            renewed: true,
            token: Some(token),
            duration_ms: Some(duration_ms),
            reason: None,
        }
    }

    /// A refused renewal.
    pub fn refused(reason: RenewRefusal) -> RenewReply {
        RenewReply {
            renewed: false,
            token: None,
            duration_ms: None,
            reason: Some(reason),
        }
    }

    /// Validates the reply. A renewal without a token is malformed, never a renewal; a refusal
    /// without a reason counts as `unknown`.
    pub fn outcome(self) -> Result<RenewOutcome, MalformedReply> {
        if self.renewed {
            let token = self.token.ok_or(MalformedReply::MissingToken)?;
            if self.duration_ms == Some(0) {
                return Err(MalformedReply::BadDuration);
            }
            Ok(RenewOutcome::Renewed {
                token,
                duration_ms: self.duration_ms,
            })
        } else {
            Ok(RenewOutcome::Refused(
                self.reason.unwrap_or(RenewRefusal::Unknown),
            ))
        }
    }
}

/// The most renewals one `POST /v1/renew/batch` may carry.
pub const MAX_BATCH_RENEWALS: usize = 10_000;

/// The most bytes of JSON text one result of a [`RenewBatchReply`] takes, its separating comma
/// included: a renew reply is under 100 bytes, and a grantor shortens an error result's message
/// ([`ErrorReply::within`]) to fit. A client reads no more of a batch reply than
/// [`max_batch_reply_bytes`] allows, so a hostile reply costs bounded memory.
pub const MAX_BATCH_RESULT_BYTES: usize = 1024;

/// The bytes a [`RenewBatchReply`] has beyond its results (`{"results":[`, `]}`), with room to
/// spare.
pub const BATCH_REPLY_ENVELOPE_BYTES: usize = 1024;

/// The most bytes of JSON text a grantor's reply to a batch of `renewals` renewals takes: what a
/// client reads of it at most.
pub const fn max_batch_reply_bytes(renewals: usize) -> usize {
    BATCH_REPLY_ENVELOPE_BYTES + renewals * MAX_BATCH_RESULT_BYTES
}

/// The most bytes a client reads of any reply other than a batch's: a protocol reply is a few
/// hundred bytes plus the payloads an application stored, so a longer one is hostile or broken.
pub const MAX_REPLY_BYTES: usize = 64 * 1024;

/// `POST /v1/renew/batch`: many renewals in one round trip. Each element is exactly a
/// [`RenewRequest`], judged as if it had been sent alone; the grantor parses each on its own, so
/// a malformed element gets its own error and the others are still renewed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenewBatchRequest {
    /// 1 to [`MAX_BATCH_RENEWALS`] renewals, answered in this order.
    pub renewals: Vec<RenewRequest>,
}

/// One element's outcome in a [`RenewBatchReply`]: what `POST /v1/renew` would have answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RenewBatchResult {
    /// The renewal's reply: renewed, or refused with a reason.
    Reply(RenewReply),
    /// The error the renewal alone would have had, such as `bad_lease_secret`.
    Error(ErrorReply),
}

/// Reply to [`RenewBatchRequest`]: one result per renewal, in the request's order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenewBatchReply {
    /// The outcome of each renewal.
    pub results: Vec<RenewBatchResult>,
}

/// `POST /v1/release`: give a lease back early. Idempotent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseRequest {
    /// The leased resource.
    pub resource: String,
    /// The holder's identity.
    pub holder: String,
    /// The token of the grant being released.
    pub token: Token,
    /// The grant's secret, from the grant's reply: required to release a live grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_secret: Option<String>,
    /// Hand the lease over: for a bounded time after this release ([`HANDOFF_MAX_MS`] at most)
    /// the grantor grants the resource to this holder only, and denies everyone else as if it
    /// held it. Absent for a plain release. Only a release that ends a live grant hands it over
    /// (the rules: `crate::rules::handoff_ms`); a holder identity that is not valid, or the
    /// releasing holder's own, is refused (`bad_holder`) and nothing is released.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_to: Option<String>,
}

/// The longest a grantor keeps a released resource for the holder it was handed to
/// ([`ReleaseRequest::hand_to`]) before anyone may be granted it again.
pub const HANDOFF_MAX_MS: u64 = 10_000;

/// `GET /v1/watch?resource=…&after=…&waitMs=…`: who holds a resource, once that has changed.
///
/// A long poll: the grantor answers at once when the resource's [`WatchReply::version`] is past
/// `after` (or `after` is absent), and otherwise when it moves past it (a grant, a release, a
/// revocation, an expiry) or `waitMs` runs out, whichever is first; a reply whose version is
/// still `after` means nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WatchRequest {
    /// The resource watched.
    pub resource: String,
    /// The version the watcher has already seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
    /// How long the grantor may hold the request open; clamped to [`WATCH_MAX_WAIT_MS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

/// The longest a grantor holds a [`WatchRequest`] open, and the wait when none is asked.
pub const WATCH_MAX_WAIT_MS: u64 = 30_000;

/// Reply to [`WatchRequest`]: the resource's state and its version. `holder`, `token` and
/// `expiresInMs` are all set while somebody holds the resource, and all `null` when nobody does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchReply {
    /// The resource watched, echoed.
    pub resource: String,
    /// The state's place in the resource's history ([`watch_version`]): every change makes it
    /// larger, so a watcher can tell a newer state from an older one.
    pub version: u64,
    /// The current holder.
    pub holder: Option<String>,
    /// The current grant's fencing token.
    pub token: Option<Token>,
    /// How long the current grant has left, by the grantor's clock.
    pub expires_in_ms: Option<u64>,
    /// The holder the resource was handed to ([`ReleaseRequest::hand_to`]) while the grantor
    /// keeps it for that holder alone; absent otherwise. The preference running out is no
    /// change of [`WatchReply::version`]: a watcher learns of it with its next reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handed_to: Option<String>,
}

/// A resource's watch version, from its token counter (its latest grant's token, 0 if never
/// granted) and whether that grant is live: `2 × counter` while it is, `2 × counter + 1` once it
/// ended. Every grant takes the next token and a grant ends at most once, so each change (grant,
/// release, revocation, expiry) makes the version larger, and it needs nothing stored beyond
/// what every grantor keeps.
pub fn watch_version(counter: u64, live: bool) -> u64 {
    counter.saturating_mul(2).saturating_add(u64::from(!live))
}

/// The largest [`WatchReply::version`]: that of a resource whose counter reached [`MAX_TOKEN`]
/// and whose last grant ended. A grantor refuses a [`WatchRequest::after`] past it as a bad
/// token (`bad_token`), since no version it could ever report is larger.
pub const MAX_WATCH_VERSION: u64 = 2 * MAX_TOKEN + 1;

/// Why a grant or renewal reply is not acceptable. The client counts it as a failed attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MalformedReply {
    /// The reply is not a JSON object.
    NotAnObject,
    /// `granted` or `renewed` is missing or not a boolean.
    BadFlag,
    /// A success without a token.
    MissingToken,
    /// The token is not a valid token.
    BadToken(TokenError),
    /// A duration that is not a positive integer of milliseconds.
    BadDuration,
    /// A field has the wrong type.
    BadField(&'static str),
}

impl core::fmt::Display for MalformedReply {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MalformedReply::NotAnObject => f.write_str("reply is not an object"),
            MalformedReply::BadFlag => f.write_str("granted/renewed is not a boolean"),
            MalformedReply::MissingToken => f.write_str("success without a token"),
            MalformedReply::BadToken(e) => f.write_str(e.describe()),
            MalformedReply::BadDuration => f.write_str("duration is not a positive integer"),
            MalformedReply::BadField(name) => write!(f, "field {name} has the wrong type"),
        }
    }
}

/// The largest `durationMs` a request may carry: 2^31 − 1 ms (about 24.8 days), the longest
/// delay a JavaScript timer can wait, so every duration the grantor accepts is one a browser
/// holder can schedule. The grantor clamps accepted durations further to its configured range.
pub const MAX_REQUEST_DURATION_MS: u64 = 2_147_483_647;

/// The shortest `durationMs` a request may carry: 1 ms (a lease of no time is no lease).
pub const MIN_REQUEST_DURATION_MS: u64 = 1;

/// Reply to [`ReleaseRequest`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseReply {
    /// Whether a live grant matching the holder and token was ended by this request; `false`
    /// when there was nothing to release (already released, expired, revoked or superseded).
    pub released: bool,
}

/// `GET /v1/status?resource=…` (query string) or `POST /v1/status` (JSON body): who holds a
/// resource now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusRequest {
    /// The resource to look up.
    pub resource: String,
}

/// Reply to [`StatusRequest`]. `holder`, `token` and `expiresInMs` are all `null` when nobody
/// holds the resource, and all set when somebody does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReply {
    /// The resource looked up, echoed.
    pub resource: String,
    /// The current holder.
    pub holder: Option<String>,
    /// The current grant's fencing token.
    pub token: Option<Token>,
    /// How long the current grant has left, by the grantor's clock.
    pub expires_in_ms: Option<u64>,
}

/// `POST /v1/revoke`: end the current grant on a resource before it expires. Administrative.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevokeRequest {
    /// The resource whose grant ends.
    pub resource: String,
}

/// Reply to [`RevokeRequest`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RevokeReply {
    /// Whether a live grant was ended; `false` when nobody held the resource.
    pub revoked: bool,
}

/// `POST /v1/fenced/write`: store `payload` under `resource` unless a write with a larger token
/// already happened. `P` is the payload's type; the grantor accepts any JSON value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FencedWriteRequest<P> {
    /// The protected resource.
    pub resource: String,
    /// The value to store.
    pub payload: P,
    /// The writer's fencing token.
    pub token: Token,
    /// The secret of the grant with `token`, from the grant's reply: required for a write that
    /// would be accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_secret: Option<String>,
}

/// Reply to [`FencedWriteRequest`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FencedWriteReply {
    /// Whether the payload was stored: true exactly when no earlier accepted write carried a
    /// larger token.
    pub accepted: bool,
    /// The token of the latest accepted write, after this request: the incoming token when
    /// accepted, the larger one that fenced this write out otherwise.
    pub last_token: Token,
}

/// `POST /v1/fenced/read`: the latest accepted payload of a protected resource.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FencedReadRequest {
    /// The protected resource.
    pub resource: String,
}

/// Reply to [`FencedReadRequest`]. Both fields are `null` when the resource was never written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FencedReadReply<P> {
    /// The latest accepted payload.
    pub payload: Option<P>,
    /// The token that wrote it.
    pub last_token: Option<Token>,
}

/// How many claims an item gets before it is dead-lettered, when its enqueue names no limit
/// and the grantor is not configured otherwise.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 5;

/// Longest queue name the protocol accepts, in bytes.
pub const MAX_QUEUE_LEN: usize = 256;

/// Longest worker identity the protocol accepts, in bytes.
pub const MAX_WORKER_LEN: usize = 256;

/// Longest dedupe key the protocol accepts, in bytes.
pub const MAX_DEDUPE_KEY_LEN: usize = 256;

/// The most items one enqueue request may carry.
pub const MAX_ENQUEUE_ITEMS: usize = 1000;

/// The largest `maxAttempts` an item may be given.
pub const MAX_ATTEMPTS: u32 = 1000;

/// The most bytes a completion's `result` may take as the grantor stores it (serialized
/// without whitespace, numbers in their canonical form). An item's record carries its payload,
/// result and last error in one reply, so each has its own share of [`MAX_REPLY_BYTES`].
pub const MAX_RESULT_BYTES: usize = 8 * 1024;

/// The most bytes a failure's `error` may take as the grantor stores it (see
/// [`MAX_RESULT_BYTES`]). Larger than the result's share: a described error (name, message of
/// up to 4096 characters, code) takes up to about 12 KiB of UTF-8.
pub const MAX_ERROR_BYTES: usize = 16 * 1024;

/// Room for everything of an item's record (`/v1/queues/item`) but its payload, result and last
/// error: the field names, the numbers and three names of at most 256 bytes (`dedupeKey`,
/// `claimedBy`, `completedBy`) even when escaping doubles them. It also covers what a claim
/// reply, or a completion or failure reply with its `next` claim, adds to the payload.
pub const ITEM_REPLY_OVERHEAD_BYTES: usize = 2 * 1024;

/// The most bytes an item's `payload` may take as the grantor stores it (serialized without
/// whitespace, numbers in their canonical form, so `9E15` takes 18 bytes as `9000000000000000.0`).
/// Bounded so that every reply carrying it (claim, completion or failure with `next`, the
/// item's record with its largest result and error) stays within [`MAX_REPLY_BYTES`], which a
/// client reads at most: a larger item could be claimed but never handled.
pub const MAX_PAYLOAD_BYTES: usize =
    MAX_REPLY_BYTES - ITEM_REPLY_OVERHEAD_BYTES - MAX_RESULT_BYTES - MAX_ERROR_BYTES;

/// The most bytes a fenced write's `payload` may take as the grantor stores it (see
/// [`MAX_PAYLOAD_BYTES`]): the fenced read's reply carries it beside its token, within
/// [`MAX_REPLY_BYTES`], so a value that could be written can always be read back.
pub const MAX_FENCED_PAYLOAD_BYTES: usize = MAX_REPLY_BYTES - 1024;

/// Where a work item is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemState {
    /// Waiting to be claimed: never claimed, failed with attempts left, or its claim ran out.
    Pending,
    /// Claimed by a worker whose claim has not run out.
    Claimed,
    /// Completed by a worker holding its live claim; final.
    Done,
    /// Given up after its last allowed attempt (the dead-letter state); final.
    Dead,
}

impl ItemState {
    /// The state as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemState::Pending => "pending",
            ItemState::Claimed => "claimed",
            ItemState::Done => "done",
            ItemState::Dead => "dead",
        }
    }
}

/// One item of a [`EnqueueRequest`]. `P` is the payload's type; the grantor accepts any JSON value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewItem<P> {
    /// What the worker that claims the item receives.
    pub payload: P,
    /// While an item with this key exists in the queue, enqueueing another with the same key
    /// adds nothing and returns the existing item's id.
    #[serde(default)]
    pub dedupe_key: Option<String>,
    /// How many claims the item may get before it is dead-lettered; the grantor's default
    /// (`--max-attempts`) when absent.
    #[serde(default)]
    pub max_attempts: Option<u32>,
}

/// `POST /v1/queues/enqueue`: add items to a queue, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnqueueRequest<P> {
    /// The queue.
    pub queue: String,
    /// One to [`MAX_ENQUEUE_ITEMS`] items, enqueued in this order in one transaction.
    pub items: Vec<NewItem<P>>,
}

/// What happened to one item of an [`EnqueueRequest`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnqueuedItem {
    /// The item's id: larger for items enqueued later, across all queues.
    pub item_id: u64,
    /// `false` when the dedupe key matched an existing item, whose id this is.
    pub enqueued: bool,
}

/// Reply to [`EnqueueRequest`], one entry per item, in request order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnqueueReply {
    /// The outcome per item.
    pub items: Vec<EnqueuedItem>,
}

/// `POST /v1/queues/claim`: claim the oldest pending item whose claim is absent or ran out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimRequest {
    /// The queue.
    pub queue: String,
    /// The claiming worker's identity.
    pub worker: String,
    /// The requested claim duration; clamped like a lease duration.
    pub claim_ms: u64,
    /// Identifies this attempt: a retry with the same id, while its claim is live, returns the
    /// same item and token instead of claiming another.
    #[serde(default)]
    pub request_id: Option<String>,
}

/// The item a [`ClaimReply`] hands out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimedItem<P> {
    /// The item's id.
    pub id: u64,
    /// The payload it was enqueued with.
    pub payload: P,
    /// Claims so far, this one included.
    pub attempts: u32,
    /// Claims allowed before the item is dead-lettered.
    pub max_attempts: u32,
}

/// Reply to [`ClaimRequest`]. `claimed: true` carries `item`, `token` and `claimMs`;
/// `claimed: false` (nothing claimable) carries nothing else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimReply<P> {
    /// Whether an item was claimed.
    pub claimed: bool,
    /// The claimed item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<ClaimedItem<P>>,
    /// The claim token: the item's previous claim token plus one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<Token>,
    /// The granted claim duration, possibly clamped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_ms: Option<u64>,
}

/// A [`ClaimReply`] with the claim's secret, as the reference grantor sends it: heartbeats,
/// completions and failure reports under that claim must present it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimReplyWithSecret<P> {
    /// The reply itself; its fields appear at the top level.
    #[serde(flatten)]
    pub reply: ClaimReply<P>,
    /// On a claim, the claim's secret; absent when nothing was claimed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_secret: Option<String>,
}

/// `POST /v1/queues/heartbeat`: extend a live claim to `claimMs` from now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HeartbeatRequest {
    /// The queue.
    pub queue: String,
    /// The claimed item.
    pub item_id: u64,
    /// The claiming worker.
    pub worker: String,
    /// The claim token.
    pub token: Token,
    /// The requested duration from now; clamped like a lease duration.
    pub claim_ms: u64,
    /// The claim's secret, from the claim's reply: required to extend a live claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_secret: Option<String>,
}

/// Reply to [`HeartbeatRequest`]. A stale claim is an error (`409 stale_claim`), not a reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeartbeatReply {
    /// Always `true`.
    pub extended: bool,
    /// The claim token, unchanged.
    pub token: Token,
    /// The granted duration from now, possibly clamped.
    pub claim_ms: u64,
}

/// `POST /v1/queues/complete`: finish a claimed item, fenced by its claim token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompleteRequest<R> {
    /// The queue.
    pub queue: String,
    /// The claimed item.
    pub item_id: u64,
    /// The claiming worker.
    pub worker: String,
    /// The claim token.
    pub token: Token,
    /// What the work produced, kept with the item; `null` when absent.
    #[serde(default)]
    pub result: R,
    /// The claim's secret, from the claim's reply: required to complete under a live claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_secret: Option<String>,
    /// The worker's next claim on the same queue, made in the same transaction once this
    /// completion took effect: one round trip instead of two per item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_next: Option<NextClaim>,
}

/// A claim asked for alongside a completion or failure report (`claimNext`): the claim request
/// the same worker would send next, on the same queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NextClaim {
    /// The requested claim duration; clamped like a lease duration.
    pub claim_ms: u64,
    /// Identifies the claim attempt, as [`ClaimRequest::request_id`]: a retry of the whole
    /// request gets the same next item while that claim lives.
    #[serde(default)]
    pub request_id: Option<String>,
}

impl NextClaim {
    /// The claim request this stands for, by `worker` on `queue`.
    pub fn request(&self, queue: &str, worker: &str) -> ClaimRequest {
        ClaimRequest {
            queue: queue.to_owned(),
            worker: worker.to_owned(),
            claim_ms: self.claim_ms,
            request_id: self.request_id.clone(),
        }
    }
}

/// A completion or failure reply with the next claim it asked for (`claimNext`): `next` is
/// exactly what `/v1/queues/claim` would have answered, and absent when none was asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WithNextClaim<R, P> {
    /// The reply itself; its fields appear at the top level.
    #[serde(flatten)]
    pub reply: R,
    /// The next claim's reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<ClaimReplyWithSecret<P>>,
}

/// Reply to [`CompleteRequest`]. A stale claim is an error (`409 stale_claim`), not a reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteReply {
    /// Always `true`.
    pub completed: bool,
    /// The claim token that completed the item.
    pub token: Token,
}

/// `POST /v1/queues/fail`: give a claimed item back after a failed attempt, fenced by its claim
/// token. The item is pending again, or dead once it had its last allowed attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FailRequest<E> {
    /// The queue.
    pub queue: String,
    /// The claimed item.
    pub item_id: u64,
    /// The claiming worker.
    pub worker: String,
    /// The claim token.
    pub token: Token,
    /// What went wrong, kept with the item as its last error; `null` when absent.
    #[serde(default)]
    pub error: E,
    /// The claim's secret, from the claim's reply: required to fail a live claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_secret: Option<String>,
    /// The worker's next claim, as [`CompleteRequest::claim_next`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_next: Option<NextClaim>,
}

/// Reply to [`FailRequest`]. A stale claim is an error (`409 stale_claim`), not a reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailReply {
    /// `pending` (it will be claimed again) or `dead` (it had its last allowed attempt).
    pub state: ItemState,
    /// Claims so far.
    pub attempts: u32,
    /// Claims allowed.
    pub max_attempts: u32,
}

/// `POST /v1/queues/stats`: how many items of a queue are in each state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueueStatsRequest {
    /// The queue.
    pub queue: String,
}

/// Reply to [`QueueStatsRequest`], by the grantor's clock at the time of the request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueStatsReply {
    /// The queue, echoed.
    pub queue: String,
    /// Items waiting to be claimed.
    pub pending: u64,
    /// Items under a live claim.
    pub claimed: u64,
    /// Completed items.
    pub done: u64,
    /// Dead-lettered items.
    pub dead: u64,
}

/// `POST /v1/queues/item`: one item's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemRequest {
    /// The queue.
    pub queue: String,
    /// The item.
    pub item_id: u64,
}

/// Reply to [`ItemRequest`]. `P` is the type of the payload, result and error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemReply<P> {
    /// The item's id.
    pub id: u64,
    /// Its state now.
    pub state: ItemState,
    /// The payload it was enqueued with.
    pub payload: P,
    /// Its dedupe key, if it has one.
    pub dedupe_key: Option<String>,
    /// Claims so far.
    pub attempts: u32,
    /// Claims allowed before it is dead-lettered.
    pub max_attempts: u32,
    /// The token of its latest claim; 0 when never claimed.
    pub claim_token: Token,
    /// The worker of its latest claim.
    pub claimed_by: Option<String>,
    /// How long its live claim has left; `null` unless `claimed`.
    pub claim_expires_in_ms: Option<u64>,
    /// The claim token that completed it; `null` unless `done`.
    pub completed_token: Option<Token>,
    /// The worker that completed it; `null` unless `done`.
    pub completed_by: Option<String>,
    /// The result it was completed with; `null` unless `done`.
    pub result: Option<P>,
    /// The error of its latest failed attempt, if any.
    pub last_error: Option<P>,
}

/// The body of every error reply: `{"error": {"code": "…", "message": "…"}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorReply {
    /// What went wrong.
    pub error: ErrorDetail,
}

/// The inside of an [`ErrorReply`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    /// A stable, machine-readable code; see [`ErrorCode`]. Kept as text so that a client keeps
    /// working when a newer grantor adds codes.
    pub code: String,
    /// A human-readable explanation; its wording may change between versions.
    pub message: String,
}

impl ErrorReply {
    /// An error reply with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorReply {
        ErrorReply {
            error: ErrorDetail {
                code: code.as_str().to_owned(),
                message: message.into(),
            },
        }
    }

    /// The same reply, its message cut short (at a character, ending in `...`) so that its
    /// compact JSON text `{"error":{"code":…,"message":…}}` takes at most `max_bytes` bytes, given
    /// room for the code and the `...`; a reply that fits is unchanged. The code is never cut: it
    /// is what a client acts on, while the message's wording is free to change.
    pub fn within(mut self, max_bytes: usize) -> ErrorReply {
        const ELLIPSIS: &str = "...";
        let fixed = r#"{"error":{"code":"","message":""}}"#.len() + json_text_len(&self.error.code);
        let room = max_bytes.saturating_sub(fixed);
        let message = &mut self.error.message;
        if json_text_len(message) <= room {
            return self;
        }
        let room = room.saturating_sub(ELLIPSIS.len());
        let mut used = 0;
        let cut = message
            .char_indices()
            .find(|&(_, c)| {
                used += json_char_len(c);
                used > room
            })
            .map_or(message.len(), |(at, _)| at);
        message.truncate(cut);
        message.push_str(ELLIPSIS);
        self
    }
}

/// The bytes `text` takes inside a JSON string as serde_json writes it: `"` and `\\` escaped
/// with a backslash, control characters as `\n`-style or `\u00XX` escapes, the rest as UTF-8.
fn json_text_len(text: &str) -> usize {
    text.chars().map(json_char_len).sum()
}

fn json_char_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        '\0'..='\u{1f}' => 6,
        _ => c.len_utf8(),
    }
}

impl ErrorDetail {
    /// The code, if it is one this version knows.
    pub fn known_code(&self) -> Option<ErrorCode> {
        ErrorCode::parse(&self.code)
    }
}

/// The stable error codes of the protocol. `docs/protocol.md` lists the HTTP status of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The body is not valid JSON.
    BadJson,
    /// The body is not a JSON object, or a field has the wrong JSON type.
    WrongType,
    /// The request has a field the endpoint does not define.
    UnknownField,
    /// A required field is missing.
    MissingField,
    /// The query string could not be read.
    BadQuery,
    /// The resource name is empty, too long or has a character outside the allowed set.
    BadResource,
    /// The holder identity is empty, too long or has a character outside the allowed set.
    BadHolder,
    /// The request id is empty, too long or has a character outside the allowed set.
    BadRequestId,
    /// `durationMs` is not an integer in `1..=MAX_REQUEST_DURATION_MS`.
    BadDuration,
    /// `token` is not an integer in `0..=MAX_TOKEN`.
    BadToken,
    /// The queue name is empty, too long or has a character outside the allowed set.
    BadQueue,
    /// The worker identity is empty, too long or has a character outside the allowed set.
    BadWorker,
    /// A dedupe key is empty, too long or has a character outside the allowed set.
    BadDedupeKey,
    /// `itemId` is not an integer in `1..=MAX_TOKEN`.
    BadItemId,
    /// `maxAttempts` is not an integer in `1..=MAX_ATTEMPTS`.
    BadMaxAttempts,
    /// An enqueue request has no items, or more than `MAX_ENQUEUE_ITEMS`.
    BadItems,
    /// A batch of renewals has no element, or more than `MAX_BATCH_RENEWALS`.
    BadBatch,
    /// An item's `payload`, a completion's `result` or a failure's `error` takes more bytes as
    /// stored than `MAX_PAYLOAD_BYTES`, `MAX_FENCED_PAYLOAD_BYTES`, `MAX_RESULT_BYTES` or
    /// `MAX_ERROR_BYTES`; nothing was done.
    ValueTooLarge,
    /// The request carries no API key, or one the grantor does not know, while keys are required
    /// (or, for revoke, the admin key is missing or wrong).
    Unauthorized,
    /// Without keys configured, a peer other than loopback asked to revoke.
    Forbidden,
    /// The API key may not touch this resource or queue: its name is outside the key's
    /// namespaces.
    ForbiddenNamespace,
    /// The route needs an admin key (revoke).
    AdminOnly,
    /// The request would act on a live grant without that grant's secret (or with a wrong one).
    BadLeaseSecret,
    /// The request would act on a live claim without that claim's secret (or with a wrong one).
    BadClaimSecret,
    /// The API key used up its request rate, or (on `/v1/watch`) the grantor has as many
    /// watches open as it allows; `Retry-After` says when to try again.
    RateLimited,
    /// The request's headers or body did not arrive in time.
    RequestTimeout,
    /// The request comes from a browser origin the grantor does not allow.
    OriginNotAllowed,
    /// No such route.
    NotFound,
    /// The queue has no item with that id.
    NoSuchItem,
    /// The route exists but not for this HTTP method.
    MethodNotAllowed,
    /// The request id was already used with a different request.
    RequestIdReused,
    /// The claim token is not the item's live claim: it ran out, another claim superseded it,
    /// or the item was already completed or failed under it.
    StaleClaim,
    /// The resource's token counter reached `MAX_TOKEN`; it can make no more grants.
    TokenExhausted,
    /// The body exceeds the size limit.
    BodyTooLarge,
    /// The body's content type is not JSON.
    UnsupportedMediaType,
    /// An unexpected failure inside the grantor.
    Internal,
    /// The grantor does not implement this optional route (as `/v1/renew/batch` was answered
    /// before it was defined); a client falls back to what every grantor implements.
    NotImplemented,
    /// The grantor's storage failed; the request had no effect and may be retried.
    StorageUnavailable,
}

impl ErrorCode {
    /// Every code, in documentation order.
    pub const ALL: [ErrorCode; 38] = [
        ErrorCode::BadJson,
        ErrorCode::WrongType,
        ErrorCode::UnknownField,
        ErrorCode::MissingField,
        ErrorCode::BadQuery,
        ErrorCode::BadResource,
        ErrorCode::BadHolder,
        ErrorCode::BadRequestId,
        ErrorCode::BadDuration,
        ErrorCode::BadToken,
        ErrorCode::BadQueue,
        ErrorCode::BadWorker,
        ErrorCode::BadDedupeKey,
        ErrorCode::BadItemId,
        ErrorCode::BadMaxAttempts,
        ErrorCode::BadItems,
        ErrorCode::BadBatch,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::ForbiddenNamespace,
        ErrorCode::AdminOnly,
        ErrorCode::BadLeaseSecret,
        ErrorCode::BadClaimSecret,
        ErrorCode::OriginNotAllowed,
        ErrorCode::NotFound,
        ErrorCode::NoSuchItem,
        ErrorCode::MethodNotAllowed,
        ErrorCode::RequestTimeout,
        ErrorCode::RequestIdReused,
        ErrorCode::StaleClaim,
        ErrorCode::TokenExhausted,
        ErrorCode::BodyTooLarge,
        ErrorCode::ValueTooLarge,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::RateLimited,
        ErrorCode::Internal,
        ErrorCode::NotImplemented,
        ErrorCode::StorageUnavailable,
    ];

    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadJson => "bad_json",
            ErrorCode::WrongType => "wrong_type",
            ErrorCode::UnknownField => "unknown_field",
            ErrorCode::MissingField => "missing_field",
            ErrorCode::BadQuery => "bad_query",
            ErrorCode::BadResource => "bad_resource",
            ErrorCode::BadHolder => "bad_holder",
            ErrorCode::BadRequestId => "bad_request_id",
            ErrorCode::BadDuration => "bad_duration",
            ErrorCode::BadToken => "bad_token",
            ErrorCode::BadQueue => "bad_queue",
            ErrorCode::BadWorker => "bad_worker",
            ErrorCode::BadDedupeKey => "bad_dedupe_key",
            ErrorCode::BadItemId => "bad_item_id",
            ErrorCode::BadMaxAttempts => "bad_max_attempts",
            ErrorCode::BadItems => "bad_items",
            ErrorCode::BadBatch => "bad_batch",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::ForbiddenNamespace => "forbidden_namespace",
            ErrorCode::AdminOnly => "admin_only",
            ErrorCode::BadLeaseSecret => "bad_lease_secret",
            ErrorCode::BadClaimSecret => "bad_claim_secret",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::OriginNotAllowed => "origin_not_allowed",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NoSuchItem => "no_such_item",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::RequestIdReused => "request_id_reused",
            ErrorCode::StaleClaim => "stale_claim",
            ErrorCode::TokenExhausted => "token_exhausted",
            ErrorCode::BodyTooLarge => "body_too_large",
            ErrorCode::ValueTooLarge => "value_too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::Internal => "internal",
            ErrorCode::NotImplemented => "not_implemented",
            ErrorCode::StorageUnavailable => "storage_unavailable",
        }
    }

    /// Parses a wire code; anything unrecognised is `None`.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }

    /// The HTTP status the grantor answers with this code.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadJson
            | ErrorCode::WrongType
            | ErrorCode::UnknownField
            | ErrorCode::MissingField
            | ErrorCode::BadQuery
            | ErrorCode::BadResource
            | ErrorCode::BadHolder
            | ErrorCode::BadRequestId
            | ErrorCode::BadDuration
            | ErrorCode::BadToken
            | ErrorCode::BadQueue
            | ErrorCode::BadWorker
            | ErrorCode::BadDedupeKey
            | ErrorCode::BadItemId
            | ErrorCode::BadMaxAttempts
            | ErrorCode::BadItems
            | ErrorCode::BadBatch => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden
            | ErrorCode::ForbiddenNamespace
            | ErrorCode::AdminOnly
            | ErrorCode::BadLeaseSecret
            | ErrorCode::BadClaimSecret
            | ErrorCode::OriginNotAllowed => 403,
            ErrorCode::NotFound | ErrorCode::NoSuchItem => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::RequestTimeout => 408,
            ErrorCode::RequestIdReused | ErrorCode::StaleClaim | ErrorCode::TokenExhausted => 409,
            ErrorCode::BodyTooLarge | ErrorCode::ValueTooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::RateLimited => 429,
            ErrorCode::Internal => 500,
            ErrorCode::NotImplemented => 501,
            ErrorCode::StorageUnavailable => 503,
        }
    }
}

/// Whether a refusal with HTTP `status` and error `code` says that the request has a field the
/// grantor does not know, and so that the grantor did nothing: how a grantor that predates an
/// optional field (such as `claimNext`) answers a request carrying it. The client may send the
/// request again without the field.
pub fn refuses_unknown_field(status: u16, code: &str) -> bool {
    let unknown = ErrorCode::UnknownField;
    code == unknown.as_str() && status == unknown.http_status()
}

impl core::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The longest wait a `Retry-After` imposes: the protocol's longest duration (2^31 − 1 ms, the
/// longest delay a JavaScript timer can wait). A grantor asking for more is capped, not obeyed
/// for days.
pub const MAX_RETRY_AFTER_MS: u64 = MAX_REQUEST_DURATION_MS;

/// How long a `Retry-After` field value (RFC 9110 §10.2.3) asks a client to wait, in whole ms,
/// at the wall-clock reading `now_unix_ms` (ms since the Unix epoch): `delay-seconds` (digits
/// only), or an HTTP-date, in the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`) or the
/// obsolete RFC 850 and asctime forms that RFC 9110 requires a recipient to accept. A date in the
/// past is 0; a wait beyond [`MAX_RETRY_AFTER_MS`] is capped at it. Anything else (a fraction, a
/// sign, a date that does not exist or whose weekday is wrong, text around it) is `None`: the
/// failure stands without a hint.
pub fn retry_after_ms(value: &str, now_unix_ms: u64) -> Option<u64> {
    let value = value.trim_matches(|c| c == ' ' || c == '\t');
    let wait_ms = if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Digits beyond u64 are a wait beyond the cap.
        value
            .parse::<u64>()
            .map_or(u64::MAX, |s| s.saturating_mul(1000))
    } else {
        let at_ms = http_date_unix_s(value, now_unix_ms / 1000)?.saturating_mul(1000);
        at_ms.saturating_sub(now_unix_ms)
    };
    Some(wait_ms.min(MAX_RETRY_AFTER_MS))
}

const DAY_NAMES: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTH_NAMES: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// An HTTP-date (RFC 9110 §5.6.7) as seconds since the Unix epoch, 0 for a date before it;
/// `now_unix_s` resolves the two-digit year of the RFC 850 form. Names are case-sensitive, as
/// the grammar has them.
fn http_date_unix_s(value: &str, now_unix_s: u64) -> Option<u64> {
    let b = value.as_bytes();
    let digits = |range: core::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    let month = |range: core::ops::Range<usize>| -> Option<i64> {
        let name = value.get(range)?;
        let index = MONTH_NAMES.iter().position(|m| *m == name)?;
        Some(index as i64 + 1)
    };
    let short_day = || DAY_NAMES.iter().position(|d| value.get(..3) == Some(*d));
    // Each form: its weekday, date, where its time of day starts and what follows the time.
    let (weekday, year, month, day, time, tail) = if b.get(3) == Some(&b',') {
        // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
        if b.len() != 29 || b[4] != b' ' || b[7] != b' ' || b[11] != b' ' || b[16] != b' ' {
            return None;
        }
        let date = (digits(12..16)?, month(8..11)?, digits(5..7)?);
        (short_day()?, date.0, date.1, date.2, 17, " GMT")
    } else if let Some(comma) = value.find(", ") {
        // RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`.
        let weekday = LONG_DAY_NAMES
            .iter()
            .position(|d| value.get(..comma) == Some(*d))?;
        let at = comma + 2;
        let rest = &b[at..];
        if rest.len() != 22 || rest[2] != b'-' || rest[6] != b'-' || rest[9] != b' ' {
            return None;
        }
        // A year more than 50 years ahead is the latest past year with those two digits.
        let this_year = year_of_day(now_unix_s / 86_400);
        let mut year = this_year - this_year % 100 + digits(at + 7..at + 9)?;
        if year > this_year + 50 {
            year -= 100;
        }
        let date = (month(at + 3..at + 6)?, digits(at..at + 2)?);
        (weekday, year, date.0, date.1, at + 10, " GMT")
    } else {
        // asctime: `Sun Nov  6 08:49:37 1994`, the day padded with a space; no zone.
        if b.len() != 24 || b[3] != b' ' || b[7] != b' ' || b[10] != b' ' || b[19] != b' ' {
            return None;
        }
        let day = if b[8] == b' ' {
            digits(9..10)?
        } else {
            digits(8..10)?
        };
        (short_day()?, digits(20..24)?, month(4..7)?, day, 11, "")
    };
    let clock = b.get(time..time + 8)?;
    let shape = clock.iter().enumerate().all(|(i, c)| match i {
        2 | 5 => *c == b':',
        _ => c.is_ascii_digit(),
    });
    // asctime's tail (the year) was read with the date.
    if !shape || (!tail.is_empty() && b.get(time + 8..) != Some(tail.as_bytes())) {
        return None;
    }
    let two = |i: usize| i64::from(clock[i] - b'0') * 10 + i64::from(clock[i + 1] - b'0');
    let (hour, minute, second) = (two(0), two(3), two(6));
    // A leap second, :60, is allowed.
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day)?;
    // 1970-01-01 was a Thursday (3, counting from Monday).
    if (days + 3).rem_euclid(7) != weekday as i64 {
        return None;
    }
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second;
    Some(u64::try_from(seconds).unwrap_or(0))
}

/// Days from 1970-01-01 to a date (negative before it); `None` if the date does not exist.
fn days_from_civil(year: i64, month: i64, day: i64) -> Option<i64> {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month) || day < 1 || day > month_days[month as usize - 1] {
        return None;
    }
    // Howard Hinnant's days_from_civil, on years that start in March.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    Some(era * 146_097 + day_of_era - 719_468)
}

/// The year of a day counted from 1970-01-01 (Howard Hinnant's civil_from_days).
fn year_of_day(days: u64) -> i64 {
    let z = days as i64 + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // The year starts in March: January and February belong to the next one.
    let march_based_month = (5 * day_of_year + 2) / 153;
    year_of_era + era * 400 + i64::from(march_based_month >= 10)
}

/// Whether `name` is acceptable as a resource name, holder identity or request id of at most
/// `max_len` bytes: non-empty and printable ASCII only (`0x20..=0x7E`, space included), so names
/// survive logs, query strings and JavaScript unchanged.
pub fn is_valid_name(name: &str, max_len: usize) -> bool {
    !name.is_empty() && name.len() <= max_len && name.bytes().all(|b| (0x20..=0x7E).contains(&b))
}

/// Whether the JSON text `text` has an object with the same key twice. JSON allows it, but
/// parsers disagree on which value counts (`JSON.parse` keeps the last), so
/// `{"granted":false,…,"granted":true}` would read as a denial to one reader and a grant to
/// another: a client refuses such a reply. Keys are compared as decoded text (`"a"` and
/// `"\u0061"` are the same key). `text` must already be known to be valid JSON; anything else
/// may be answered either way.
pub fn has_duplicate_keys(text: &str) -> bool {
    let b = text.as_bytes();
    // One entry per open container: the keys seen so far for an object, None for an array. A
    // tree, not a sorted Vec: keys arriving in descending order would make each insert shift all
    // before it, and a hostile reply of a million keys would block the event loop for hours.
    let mut open: Vec<Option<BTreeSet<Vec<u16>>>> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let mut end = i + 1;
                while end < b.len() && b[end] != b'"' {
                    end += if b[end] == b'\\' { 2 } else { 1 };
                }
                if let (true, Some(Some(keys))) = (expect_key, open.last_mut()) {
                    let key = json_string_units(text.get(i + 1..end).unwrap_or(""));
                    if !keys.insert(key) {
                        return true;
                    }
                    expect_key = false;
                }
                i = end;
            }
            b'{' => {
                open.push(Some(BTreeSet::new()));
                expect_key = true;
            }
            b'[' => {
                open.push(None);
                expect_key = false;
            }
            b'}' | b']' => {
                open.pop();
                expect_key = false;
            }
            b',' => expect_key = matches!(open.last(), Some(Some(_))),
            _ => {}
        }
        i += 1;
    }
    false
}

/// The UTF-16 code units of the inside of a JSON string literal, escapes decoded: how
/// JavaScript compares keys, lone surrogates included.
fn json_string_units(inner: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        let unit = match chars.next() {
            Some('b') => 0x08,
            Some('f') => 0x0c,
            Some('n') => 0x0a,
            Some('r') => 0x0d,
            Some('t') => 0x09,
            Some('u') => (0..4).fold(0u16, |n, _| {
                let digit = chars.next().and_then(|d| d.to_digit(16)).unwrap_or(0);
                (n << 4) | digit as u16
            }),
            // `"`, `\` and `/` stand for themselves.
            Some(other) => other as u16,
            None => break,
        };
        units.push(unit);
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_of_many_keys_in_descending_order_is_checked_whole() {
        // Descending order is the worst case for keys kept in a sorted Vec (each insert shifts
        // every key before it): at this size that took seconds, and a batch reply's cap allows
        // twenty times more keys.
        let keys: Vec<String> = (0..100_000)
            .rev()
            .map(|n| format!("\"k{n:06}\":0"))
            .collect();
        let text = format!("{{{}}}", keys.join(","));
        assert!(!has_duplicate_keys(&text));
        let repeated = format!("{{{},\"k000000\":1}}", keys.join(","));
        assert!(has_duplicate_keys(&repeated));
    }

    #[test]
    fn duplicate_keys_are_found_as_decoded_text_at_any_depth() {
        for text in [
            r#"{"granted":true,"granted":false}"#,
            r#"{"granted":false,"token":5,"gr\u0061nted":true}"#,
            r#"{"a":{"b":1,"c":[{"d":1,"d":2}]}}"#,
            r#"[1,{"x":"\"","x":2}]"#,
            r#"{"\n":1,"\u000a":2}"#,
            r#"{"\/":1,"/":2}"#,
            r#"{"\ud83d\ude00":1,"😀":2}"#,
        ] {
            assert!(has_duplicate_keys(text), "{text}");
        }
        for text in [
            r#"{"granted":true,"token":5,"durationMs":6000}"#,
            r#"{"a":{"a":{"a":1}},"b":["a","a"]}"#,
            r#"{"x":"a","y":"a"}"#,
            r#"{"a\"b":1,"a":2,"ab":3}"#,
            r#"[{"k":1},{"k":2}]"#,
            r#"{"\ud800":1,"\ud801":2}"#,
            r#""{\"a\":1,\"a\":2}""#,
            "[]",
            "7",
        ] {
            assert!(!has_duplicate_keys(text), "{text}");
        }
    }

    #[test]
    fn an_issued_token_starts_at_one() {
        assert_eq!(Token::issued_from_f64(0.0), None);
        assert_eq!(Token::issued_from_f64(-0.0), None);
        assert_eq!(
            Token::issued_from_f64(1.0).map(Token::get),
            Some(FIRST_TOKEN)
        );
        assert_eq!(
            Token::issued_from_f64(9007199254740991.0).map(Token::get),
            Some(MAX_TOKEN)
        );
        for bad in [f64::NAN, -1.0, 1.5, f64::INFINITY, 9007199254740992.0] {
            assert_eq!(Token::issued_from_f64(bad), None);
        }
    }

    #[test]
    fn token_accepts_only_safe_non_negative_integers() {
        assert_eq!(Token::from_f64(0.0).unwrap().get(), 0);
        assert_eq!(
            Token::from_f64(9007199254740991.0).unwrap().get(),
            MAX_TOKEN
        );
        assert_eq!(Token::from_f64(f64::NAN), Err(TokenError::NotANumber));
        assert_eq!(Token::from_f64(-1.0), Err(TokenError::Negative));
        assert_eq!(Token::from_f64(1.5), Err(TokenError::NotAnInteger));
        assert_eq!(
            Token::from_f64(f64::INFINITY),
            Err(TokenError::NotAnInteger)
        );
        assert_eq!(
            Token::from_f64(9007199254740992.0),
            Err(TokenError::TooLarge)
        );
        assert_eq!(Token::new(MAX_TOKEN + 1), Err(TokenError::TooLarge));
    }

    #[test]
    fn a_grant_without_a_token_is_malformed_not_a_grant() {
        let reply = GrantReply {
            granted: true,
            token: None,
            duration_ms: Some(1000),
            holder: None,
            expires_in_ms: None,
        };
        assert_eq!(reply.outcome(), Err(MalformedReply::MissingToken));
    }

    #[test]
    fn a_refusal_without_reason_is_unknown() {
        let reply = RenewReply {
            renewed: false,
            token: None,
            duration_ms: None,
            reason: None,
        };
        assert_eq!(
            reply.outcome(),
            Ok(RenewOutcome::Refused(RenewRefusal::Unknown))
        );
    }

    #[test]
    fn refusal_reasons_round_trip() {
        for reason in [
            RenewRefusal::Expired,
            RenewRefusal::Revoked,
            RenewRefusal::NotHolder,
            RenewRefusal::Unknown,
        ] {
            assert_eq!(RenewRefusal::parse(reason.as_str()), Some(reason));
        }
        assert_eq!(RenewRefusal::parse("gone"), None);
    }

    #[test]
    fn only_a_400_unknown_field_says_a_field_is_unknown_and_nothing_was_done() {
        assert!(refuses_unknown_field(400, "unknown_field"));
        assert!(!refuses_unknown_field(409, "unknown_field"));
        assert!(!refuses_unknown_field(500, "unknown_field"));
        assert!(!refuses_unknown_field(400, "bad_json"));
        assert!(!refuses_unknown_field(400, "UNKNOWN_FIELD"));
        assert!(!refuses_unknown_field(400, ""));
    }

    #[test]
    fn stored_value_limits_are_the_documented_ones() {
        // docs/protocol.md and docs/guide.md state these sizes.
        assert_eq!(
            (
                MAX_PAYLOAD_BYTES,
                MAX_RESULT_BYTES,
                MAX_ERROR_BYTES,
                MAX_FENCED_PAYLOAD_BYTES
            ),
            (38_912, 8_192, 16_384, 64_512)
        );
        assert_eq!(ErrorCode::ValueTooLarge.http_status(), 413);
    }

    #[test]
    fn error_codes_round_trip() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::parse("teapot"), None);
    }

    #[test]
    fn names_are_non_empty_printable_ascii_within_the_limit() {
        let longest = "r".repeat(MAX_RESOURCE_LEN);
        assert!(is_valid_name("jobs/nightly report", MAX_RESOURCE_LEN));
        assert!(is_valid_name(&longest, MAX_RESOURCE_LEN));
        assert!(!is_valid_name("", MAX_RESOURCE_LEN));
        assert!(!is_valid_name(&format!("{longest}r"), MAX_RESOURCE_LEN));
        assert!(!is_valid_name("tab\tname", MAX_RESOURCE_LEN));
        assert!(!is_valid_name("caf\u{e9}", MAX_RESOURCE_LEN));
    }

    /// The compact JSON text length of `reply`, as [`ErrorReply::within`] counts it.
    fn reply_len(reply: &ErrorReply) -> usize {
        r#"{"error":{"code":"","message":""}}"#.len()
            + json_text_len(&reply.error.code)
            + json_text_len(&reply.error.message)
    }

    #[test]
    fn an_error_reply_within_a_size_keeps_its_code_and_the_longest_prefix_that_fits() {
        assert_eq!(
            json_text_len("a\"\\\u{1}\n\u{7f}é𝄞"),
            1 + 2 + 2 + 6 + 2 + 1 + 2 + 4
        );
        let short = ErrorReply::new(ErrorCode::UnknownField, "unknown field `x`");
        assert_eq!(short.clone().within(reply_len(&short)), short);
        for message in [
            "x".repeat(2_000),
            "\"\\\u{1}\n".repeat(500),
            "é€𝄞".repeat(500),
            format!("{}\u{1}", "y".repeat(290)),
        ] {
            for max in [300, 301, 302, 303, 1023] {
                let whole = ErrorReply::new(ErrorCode::UnknownField, message.clone());
                let reply = whole.clone().within(max);
                if reply_len(&whole) <= max {
                    assert_eq!(reply, whole);
                    continue;
                }
                assert_eq!(reply.error.code, "unknown_field");
                assert!(reply_len(&reply) <= max, "{max}: {reply:?}");
                let kept = reply.error.message.strip_suffix("...").unwrap();
                assert!(message.starts_with(kept));
                // One more character of the message would not have fitted.
                let next = message[kept.len()..].chars().next().unwrap();
                assert!(
                    reply_len(&reply) + json_char_len(next) > max,
                    "{max}: {reply:?}"
                );
            }
        }
    }

    /// 1994-11-06 08:49:37 UTC, RFC 9110's example date, in Unix ms.
    const EXAMPLE_MS: u64 = 784_111_777_000;

    #[test]
    fn retry_after_in_delay_seconds_is_digits_only() {
        let now = EXAMPLE_MS;
        assert_eq!(retry_after_ms("120", now), Some(120_000));
        assert_eq!(retry_after_ms("0", now), Some(0));
        assert_eq!(retry_after_ms(" 5\t", now), Some(5_000));
        for bad in [
            "", " ", "1.5", "-1", "+1", "1e3", "0x10", "1 2", "1,2", "٣", "Infinity", "1s",
        ] {
            assert_eq!(retry_after_ms(bad, now), None, "{bad:?}");
        }
    }

    #[test]
    fn retry_after_beyond_a_timers_reach_is_capped() {
        assert_eq!(retry_after_ms("2147483", 0), Some(2_147_483_000));
        assert_eq!(retry_after_ms("2147484", 0), Some(MAX_RETRY_AFTER_MS));
        assert_eq!(retry_after_ms(&"9".repeat(40), 0), Some(MAX_RETRY_AFTER_MS));
        let far = "Fri, 31 Dec 9999 23:59:59 GMT";
        assert_eq!(retry_after_ms(far, EXAMPLE_MS), Some(MAX_RETRY_AFTER_MS));
    }

    #[test]
    fn retry_after_as_an_http_date_in_each_of_its_three_forms() {
        let before = EXAMPLE_MS - 10_500;
        for date in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Sun Nov 06 08:49:37 1994",
        ] {
            assert_eq!(retry_after_ms(date, before), Some(10_500), "{date}");
            assert_eq!(retry_after_ms(date, EXAMPLE_MS), Some(0), "{date}");
            // A date in the past asks for no wait.
            assert_eq!(
                retry_after_ms(date, EXAMPLE_MS + 86_400_000),
                Some(0),
                "{date}"
            );
        }
        assert_eq!(
            retry_after_ms("Thu, 29 Feb 2024 00:00:00 GMT", 1_709_164_800_000 - 1),
            Some(1)
        );
        // A leap second, and dates at and before the epoch (past, so no wait).
        assert_eq!(
            retry_after_ms("Sun, 06 Nov 1994 08:49:60 GMT", before),
            Some(33_500)
        );
        for past in [
            "Thu, 01 Jan 1970 00:00:00 GMT",
            "Wed, 31 Dec 1969 23:59:59 GMT",
            "Sat, 01 Jan 0000 00:00:00 GMT",
        ] {
            assert_eq!(retry_after_ms(past, before), Some(0), "{past}");
        }
    }

    #[test]
    fn an_rfc_850_year_more_than_fifty_years_ahead_is_in_the_past_century() {
        // On 2026-12-02, "76" is 2076 and "77" is 1977: 01 Feb was a Saturday, and a Tuesday.
        let now = 1_796_169_600_000;
        assert_eq!(year_of_day(now / 86_400_000), 2026);
        let ahead = "Saturday, 01-Feb-76 00:00:00 GMT";
        assert_eq!(retry_after_ms(ahead, now), Some(MAX_RETRY_AFTER_MS));
        assert_eq!(
            retry_after_ms("Tuesday, 01-Feb-77 00:00:00 GMT", now),
            Some(0)
        );
        assert_eq!(retry_after_ms("Monday, 01-Feb-77 00:00:00 GMT", now), None);
    }

    #[test]
    fn a_retry_after_that_is_no_http_date_is_none() {
        for bad in [
            // The wrong weekday, or a date that does not exist.
            "Mon, 06 Nov 1994 08:49:37 GMT",
            "Thu, 31 Nov 1994 08:49:37 GMT",
            "Wed, 29 Feb 2023 00:00:00 GMT",
            "Thu, 29 Feb 1900 00:00:00 GMT",
            // Out of range, or not of the grammar's shape.
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov 1994 08:49:61 GMT",
            "sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 nov 1994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "Sun, 06 Nov 1994 08:49:37",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 08-49-37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMTX",
            "Sun,06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sun, 06-Nov-94 08:49:37 GMT",
            "Sunday, 06 Nov 94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994 GMT",
            "Sun Nov 6 08:49:37 1994",
            "1994-11-06T08:49:37Z",
            "Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT",
            "Sün, 06 Nov 1994 08:49:37 GMT",
            "tomorrow",
        ] {
            assert_eq!(retry_after_ms(bad, EXAMPLE_MS - 10_000), None, "{bad:?}");
        }
    }
}
