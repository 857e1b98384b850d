//! A request body read and checked as every grantor reads it: parsed from JSON with each
//! failure classified by the protocol's error codes, then each field checked beyond what its
//! type guarantees (names, durations, ids, stored sizes). The reference grantor and the grantors
//! on a key-value store ([`crate::kv_grantor`]) refuse exactly the same requests with exactly the
//! same codes, because they read them here.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::protocol::{
    is_valid_name, ClaimRequest, CompleteRequest, EnqueueRequest, ErrorCode, FailRequest,
    FencedReadRequest, FencedWriteRequest, GrantRequest, HeartbeatRequest, ItemRequest, NextClaim,
    QueueStatsRequest, ReleaseRequest, RenewRequest, RevokeRequest, StatusRequest, WatchRequest,
    MAX_ATTEMPTS, MAX_BATCH_RENEWALS, MAX_DEDUPE_KEY_LEN, MAX_ENQUEUE_ITEMS, MAX_ERROR_BYTES,
    MAX_FENCED_PAYLOAD_BYTES, MAX_HOLDER_LEN, MAX_PAYLOAD_BYTES, MAX_QUEUE_LEN,
    MAX_REQUEST_DURATION_MS, MAX_REQUEST_ID_LEN, MAX_RESOURCE_LEN, MAX_RESULT_BYTES, MAX_TOKEN,
    MAX_WATCH_VERSION, MAX_WORKER_LEN,
};
use crate::rules;

/// A request refused with an error: its stable code (which determines the HTTP status,
/// [`ErrorCode::http_status`]) and a message for the caller. Refused requests change nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The stable code.
    pub code: ErrorCode,
    /// The explanation shown to the caller.
    pub message: String,
}

impl Refusal {
    /// A refusal with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }

    /// A request id used before for a different request.
    pub fn request_id_reused() -> Refusal {
        Refusal::new(
            ErrorCode::RequestIdReused,
            "this requestId was already used for a different request; use a fresh id",
        )
    }

    /// A resource whose token counter is at [`MAX_TOKEN`].
    pub fn token_exhausted() -> Refusal {
        Refusal::new(
            ErrorCode::TokenExhausted,
            "the resource's token counter reached 2^53-1; it can make no more grants",
        )
    }

    /// An item id the queue does not have.
    pub fn no_such_item() -> Refusal {
        Refusal::new(ErrorCode::NoSuchItem, "the queue has no item with that id")
    }

    /// A request acting on a live grant without its secret.
    pub fn bad_lease_secret() -> Refusal {
        Refusal::new(
            ErrorCode::BadLeaseSecret,
            "this acts on a live grant: send that grant's leaseSecret, from its grant reply",
        )
    }

    /// A request acting on a live claim without its secret.
    pub fn bad_claim_secret() -> Refusal {
        Refusal::new(
            ErrorCode::BadClaimSecret,
            "this acts on a live claim: send that claim's claimSecret, from its claim reply",
        )
    }
}

impl Refusal {
    /// A claim token that is not the item's live claim, saying why.
    pub fn stale_claim(why: rules::StaleClaim, token: u64) -> Refusal {
        let token = token.to_string();
        let message = match why {
            rules::StaleClaim::Superseded { latest } => [
                "claim token ",
                &token,
                " is stale: the item's latest claim token is ",
                &latest.to_string(),
            ]
            .concat(),
            rules::StaleClaim::OtherWorker => {
                ["claim token ", &token, " belongs to another worker"].concat()
            }
            rules::StaleClaim::Completed => {
                ["the item was already completed under claim token ", &token].concat()
            }
            rules::StaleClaim::Ended => {
                ["the claim with token ", &token, " already ended"].concat()
            }
            rules::StaleClaim::RanOut => ["the claim with token ", &token, " ran out"].concat(),
        };
        Refusal::new(ErrorCode::StaleClaim, message)
    }
}

impl From<rules::RuleError> for Refusal {
    fn from(e: rules::RuleError) -> Refusal {
        match e {
            rules::RuleError::BadLeaseSecret => Refusal::bad_lease_secret(),
            rules::RuleError::TokenExhausted => Refusal::token_exhausted(),
        }
    }
}

/// The largest request body a grantor accepts, in bytes, on every route but
/// `/v1/renew/batch`.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The largest batch body accepted, in bytes: 10,000 renewals of up to about 800 bytes each,
/// names at their longest. Every other route keeps the 64 KiB limit.
pub const MAX_BATCH_BODY_BYTES: usize = 8 * 1024 * 1024;

/// A batch as it arrives: the elements are kept as their JSON text, to be parsed one by one.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BatchBody {
    renewals: Vec<Box<RawValue>>,
}

impl BatchBody {
    /// Each element parsed and checked as a `/v1/renew` body alone, in order.
    pub fn elements(&self) -> impl ExactSizeIterator<Item = Result<RenewRequest, Refusal>> + '_ {
        self.renewals
            .iter()
            .map(|raw| parse_request(raw.get().as_bytes()))
    }
}

impl Validate for BatchBody {
    fn validate(&self) -> Result<(), Refusal> {
        if (1..=MAX_BATCH_RENEWALS).contains(&self.renewals.len()) {
            return Ok(());
        }
        Err(Refusal::new(
            ErrorCode::BadBatch,
            format!("renewals must hold 1 to {MAX_BATCH_RENEWALS} renewals"),
        ))
    }
}

/// A grant request as a grantor keeps it with its outcome, to tell a retry (the same text) from a
/// reuse of its id for another request: `grant:` and its JSON, without the secret, which no
/// grantor stores.
pub fn grant_fingerprint(req: &GrantRequest) -> Result<String, serde_json::Error> {
    let bare = GrantRequest {
        lease_secret: None,
        ..req.clone()
    };
    Ok(["grant:", &serde_json::to_string(&bare)?].concat())
}

/// A renewal as a grantor keeps it with its outcome; see [`grant_fingerprint`].
pub fn renew_fingerprint(req: &RenewRequest) -> Result<String, serde_json::Error> {
    let bare = RenewRequest {
        lease_secret: None,
        ..req.clone()
    };
    Ok(["renew:", &serde_json::to_string(&bare)?].concat())
}

/// A request whose fields can be checked beyond what their types guarantee.
pub trait Validate {
    /// Rejects values the protocol does not allow.
    fn validate(&self) -> Result<(), Refusal>;
}

/// Parses and validates a request body: the whole of what a grantor checks before acting,
/// as a pure function of the bytes (no I/O, no state), so it can be fuzzed on its own.
pub fn parse_request<T: DeserializeOwned + Validate>(bytes: &[u8]) -> Result<T, Refusal> {
    let value: T = parse_body(bytes)?;
    value.validate()?;
    Ok(value)
}

/// Whether valid JSON `bytes` hold an object (rather than an array or a scalar).
fn is_json_object(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .is_some_and(|&b| b == b'{')
}

/// Parses a body, classifying failures by the protocol's codes.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Refusal> {
    let error = match serde_json::from_slice::<T>(bytes) {
        // serde also fills a struct from a JSON array of its fields in order; every request of
        // the protocol is an object, so anything else is refused rather than half-understood.
        Ok(_) if !is_json_object(bytes) => {
            return Err(Refusal::new(
                ErrorCode::WrongType,
                "the body must be a JSON object",
            ))
        }
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    if !error.is_data() {
        return Err(Refusal::new(
            ErrorCode::BadJson,
            format!("the body is not valid JSON: {error}"),
        ));
    }
    let message = error.to_string();
    if message.starts_with("unknown field") {
        return Err(Refusal::new(ErrorCode::UnknownField, message));
    }
    if message.starts_with("missing field") {
        return Err(Refusal::new(ErrorCode::MissingField, message));
    }
    if message.starts_with("duplicate field") {
        return Err(Refusal::new(ErrorCode::BadJson, message));
    }
    // serde does not name the field whose value was wrong, so look at the fields that have
    // their own codes; anything else is a plain type error.
    if let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(bytes) {
        for name in ["durationMs", "claimMs"] {
            if fields.get(name).is_some_and(|d| d.as_u64().is_none()) {
                return Err(bad_duration(name));
            }
        }
        // A watch's wait is clamped, not refused, when it is long; it must still be a whole
        // number of ms.
        if fields
            .get("waitMs")
            .is_some_and(|w| !w.is_null() && w.as_u64().is_none())
        {
            return Err(bad_wait());
        }
        if fields
            .get("after")
            .is_some_and(|a| !a.is_null() && a.as_u64().is_none_or(|a| a > MAX_WATCH_VERSION))
        {
            return Err(bad_after());
        }
        if fields.get("itemId").is_some_and(|id| id.as_u64().is_none()) {
            return Err(bad_item_id());
        }
        let bad_attempts = |item: &Value| {
            item.get("maxAttempts")
                .is_some_and(|n| !n.is_null() && n.as_u64().is_none_or(|n| n > MAX_ATTEMPTS.into()))
        };
        if let Some(Value::Array(items)) = fields.get("items") {
            if items.iter().any(bad_attempts) {
                return Err(bad_max_attempts());
            }
        }
        if let Some(t) = fields.get("token") {
            if t.as_u64().is_none_or(|t| t > MAX_TOKEN) {
                return Err(bad_token());
            }
        }
    }
    Err(Refusal::new(ErrorCode::WrongType, message))
}

fn bad_duration(field: &str) -> Refusal {
    Refusal::new(
        ErrorCode::BadDuration,
        format!("{field} must be an integer from 1 to {MAX_REQUEST_DURATION_MS}"),
    )
}

fn bad_wait() -> Refusal {
    Refusal::new(
        ErrorCode::BadDuration,
        "waitMs must be a whole number of ms, 0 or more (longer waits are shortened)",
    )
}

fn bad_after() -> Refusal {
    Refusal::new(
        ErrorCode::BadToken,
        format!("after must be a watch version: an integer from 0 to {MAX_WATCH_VERSION}"),
    )
}

fn bad_item_id() -> Refusal {
    Refusal::new(
        ErrorCode::BadItemId,
        format!("itemId must be an integer from 1 to {MAX_TOKEN}"),
    )
}

fn bad_token() -> Refusal {
    Refusal::new(
        ErrorCode::BadToken,
        format!("token must be an integer from 0 to {MAX_TOKEN}"),
    )
}

fn check_resource(resource: &str) -> Result<(), Refusal> {
    if is_valid_name(resource, MAX_RESOURCE_LEN) {
        return Ok(());
    }
    Err(Refusal::new(
        ErrorCode::BadResource,
        format!("resource must be 1 to {MAX_RESOURCE_LEN} bytes of printable ASCII"),
    ))
}

fn check_holder(holder: &str) -> Result<(), Refusal> {
    if is_valid_name(holder, MAX_HOLDER_LEN) {
        return Ok(());
    }
    Err(Refusal::new(
        ErrorCode::BadHolder,
        format!("holder must be 1 to {MAX_HOLDER_LEN} bytes of printable ASCII"),
    ))
}

fn check_request_id(request_id: &str) -> Result<(), Refusal> {
    if is_valid_name(request_id, MAX_REQUEST_ID_LEN) {
        return Ok(());
    }
    Err(Refusal::new(
        ErrorCode::BadRequestId,
        format!("requestId must be 1 to {MAX_REQUEST_ID_LEN} bytes of printable ASCII"),
    ))
}

fn check_duration(duration_ms: u64, field: &str) -> Result<(), Refusal> {
    if (1..=MAX_REQUEST_DURATION_MS).contains(&duration_ms) {
        return Ok(());
    }
    Err(bad_duration(field))
}

fn check_name(name: &str, max_len: usize, field: &str, code: ErrorCode) -> Result<(), Refusal> {
    if is_valid_name(name, max_len) {
        return Ok(());
    }
    Err(Refusal::new(
        code,
        format!("{field} must be 1 to {max_len} bytes of printable ASCII"),
    ))
}

fn check_queue(queue: &str) -> Result<(), Refusal> {
    check_name(queue, MAX_QUEUE_LEN, "queue", ErrorCode::BadQueue)
}

fn check_worker(worker: &str) -> Result<(), Refusal> {
    check_name(worker, MAX_WORKER_LEN, "worker", ErrorCode::BadWorker)
}

fn check_item_id(item_id: u64) -> Result<(), Refusal> {
    if (1..=MAX_TOKEN).contains(&item_id) {
        return Ok(());
    }
    Err(bad_item_id())
}

impl Validate for GrantRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_resource(&self.resource)?;
        check_holder(&self.holder)?;
        check_duration(self.duration_ms, "durationMs")?;
        check_request_id(&self.request_id)
    }
}

impl Validate for RenewRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_resource(&self.resource)?;
        check_holder(&self.holder)?;
        check_duration(self.duration_ms, "durationMs")?;
        check_request_id(&self.request_id)
    }
}

impl Validate for ReleaseRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_resource(&self.resource)?;
        check_holder(&self.holder)?;
        match &self.hand_to {
            Some(to) if !rules::valid_hand_to(&self.holder, to) => Err(Refusal::new(
                ErrorCode::BadHolder,
                format!(
                    "handTo must name another holder than the one releasing: 1 to \
                     {MAX_HOLDER_LEN} bytes of printable ASCII"
                ),
            )),
            _ => Ok(()),
        }
    }
}

impl Validate for WatchRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_resource(&self.resource)?;
        // A query string's numbers are checked here; a body's already were, by `parse_body`.
        match self.after {
            Some(after) if after > MAX_WATCH_VERSION => Err(bad_after()),
            _ => Ok(()),
        }
    }
}

impl Validate for StatusRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_resource(&self.resource)
    }
}

impl Validate for RevokeRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_resource(&self.resource)
    }
}

impl<P: Serialize> Validate for FencedWriteRequest<P> {
    fn validate(&self) -> Result<(), Refusal> {
        check_resource(&self.resource)?;
        check_stored_size(&self.payload, MAX_FENCED_PAYLOAD_BYTES, "payload")
    }
}

impl Validate for FencedReadRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_resource(&self.resource)
    }
}

/// Counts the bytes written to it, so a value's stored size is known without building the text.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Refuses `value` if its stored text (what the stores write: `serde_json` without whitespace,
/// numbers canonical) exceeds `max_bytes`. Measured as stored rather than as sent because the
/// replies carry the stored form, and `9E15` is sent in 4 bytes but stored in 18.
fn check_stored_size<T: Serialize>(
    value: &T,
    max_bytes: usize,
    field: &str,
) -> Result<(), Refusal> {
    let mut count = ByteCount(0);
    serde_json::to_writer(&mut count, value).map_err(|_| {
        Refusal::new(
            ErrorCode::WrongType,
            format!("{field} is not serialisable JSON"),
        )
    })?;
    if count.0 > max_bytes {
        return Err(Refusal::new(
            ErrorCode::ValueTooLarge,
            format!(
                "{field} takes {} bytes as stored, more than {max_bytes}; nothing was done",
                count.0
            ),
        ));
    }
    Ok(())
}

impl<P: Serialize> Validate for EnqueueRequest<P> {
    fn validate(&self) -> Result<(), Refusal> {
        check_queue(&self.queue)?;
        if !(1..=MAX_ENQUEUE_ITEMS).contains(&self.items.len()) {
            return Err(Refusal::new(
                ErrorCode::BadItems,
                format!("items must hold 1 to {MAX_ENQUEUE_ITEMS} items"),
            ));
        }
        for item in &self.items {
            if let Some(key) = &item.dedupe_key {
                check_name(
                    key,
                    MAX_DEDUPE_KEY_LEN,
                    "dedupeKey",
                    ErrorCode::BadDedupeKey,
                )?;
            }
            if item
                .max_attempts
                .is_some_and(|n| !(1..=MAX_ATTEMPTS).contains(&n))
            {
                return Err(bad_max_attempts());
            }
            check_stored_size(&item.payload, MAX_PAYLOAD_BYTES, "payload")?;
        }
        Ok(())
    }
}

fn bad_max_attempts() -> Refusal {
    Refusal::new(
        ErrorCode::BadMaxAttempts,
        format!("maxAttempts must be an integer from 1 to {MAX_ATTEMPTS}"),
    )
}

impl Validate for ClaimRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_queue(&self.queue)?;
        check_worker(&self.worker)?;
        check_duration(self.claim_ms, "claimMs")?;
        match &self.request_id {
            Some(id) => check_request_id(id),
            None => Ok(()),
        }
    }
}

/// A `claimNext` is checked as the claim request it stands for.
fn check_next_claim(next: Option<&NextClaim>) -> Result<(), Refusal> {
    let Some(next) = next else {
        return Ok(());
    };
    check_duration(next.claim_ms, "claimNext.claimMs")?;
    match &next.request_id {
        Some(id) => check_request_id(id),
        None => Ok(()),
    }
}

impl Validate for HeartbeatRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_queue(&self.queue)?;
        check_item_id(self.item_id)?;
        check_worker(&self.worker)?;
        check_duration(self.claim_ms, "claimMs")
    }
}

impl<R: Serialize> Validate for CompleteRequest<R> {
    fn validate(&self) -> Result<(), Refusal> {
        check_queue(&self.queue)?;
        check_item_id(self.item_id)?;
        check_worker(&self.worker)?;
        check_next_claim(self.claim_next.as_ref())?;
        check_stored_size(&self.result, MAX_RESULT_BYTES, "result")
    }
}

impl<E: Serialize> Validate for FailRequest<E> {
    fn validate(&self) -> Result<(), Refusal> {
        check_queue(&self.queue)?;
        check_item_id(self.item_id)?;
        check_worker(&self.worker)?;
        check_next_claim(self.claim_next.as_ref())?;
        check_stored_size(&self.error, MAX_ERROR_BYTES, "error")
    }
}

impl Validate for QueueStatsRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_queue(&self.queue)
    }
}

impl Validate for ItemRequest {
    fn validate(&self) -> Result<(), Refusal> {
        check_queue(&self.queue)?;
        check_item_id(self.item_id)
    }
}

#[cfg(test)]
#[cfg(test)]
mod tests {
    use super::*;

    fn code_of<T: DeserializeOwned + Validate>(body: &str) -> ErrorCode {
        match parse_body::<T>(body.as_bytes()).and_then(|v| v.validate()) {
            Ok(()) => panic!("{body} was accepted"),
            Err(e) => e.code,
        }
    }

    #[test]
    fn classifies_malformed_bodies() {
        let ok = r#"{"resource":"r","holder":"h","durationMs":1000,"requestId":"1"}"#;
        assert!(parse_body::<GrantRequest>(ok.as_bytes()).is_ok());
        for (body, code) in [
            ("{", ErrorCode::BadJson),
            ("", ErrorCode::BadJson),
            ("[1]", ErrorCode::WrongType),
            // A full array of the fields in order would fill the struct: still not an object.
            (r#"["r","h",5000,"1"]"#, ErrorCode::WrongType),
            (r#" ["r","h",5000,"1"]"#, ErrorCode::WrongType),
            (r#"{"resource":"r","resource":"s"}"#, ErrorCode::BadJson),
            (
                r#"{"resource":"r","holder":"h","durationMs":1000}"#,
                ErrorCode::MissingField,
            ),
            (
                r#"{"resource":5,"holder":"h","durationMs":1000,"requestId":"1"}"#,
                ErrorCode::WrongType,
            ),
            (
                r#"{"resource":"r","holder":"h","durationMs":1.5,"requestId":"1"}"#,
                ErrorCode::BadDuration,
            ),
            (
                r#"{"resource":"r","holder":"h","durationMs":-1,"requestId":"1"}"#,
                ErrorCode::BadDuration,
            ),
            (
                r#"{"resource":"r","holder":"h","durationMs":0,"requestId":"1"}"#,
                ErrorCode::BadDuration,
            ),
            (
                r#"{"resource":"r","holder":"h","durationMs":2147483648,"requestId":"1"}"#,
                ErrorCode::BadDuration,
            ),
            (
                r#"{"resource":"","holder":"h","durationMs":1000,"requestId":"1"}"#,
                ErrorCode::BadResource,
            ),
            (
                r#"{"resource":"r","holder":"","durationMs":1000,"requestId":"1"}"#,
                ErrorCode::BadHolder,
            ),
            (
                r#"{"resource":"r","holder":"h","durationMs":1000,"requestId":""}"#,
                ErrorCode::BadRequestId,
            ),
            (
                r#"{"resource":"r","holder":"h","durationMs":1000,"requestId":"1","x":1}"#,
                ErrorCode::UnknownField,
            ),
        ] {
            assert_eq!(code_of::<GrantRequest>(body), code, "{body}");
        }
        for (body, code) in [
            (
                r#"{"resource":"r","holder":"h","token":-1}"#,
                ErrorCode::BadToken,
            ),
            (
                r#"{"resource":"r","holder":"h","token":9007199254740992}"#,
                ErrorCode::BadToken,
            ),
            (
                r#"{"resource":"r","holder":"h","token":"1"}"#,
                ErrorCode::BadToken,
            ),
        ] {
            assert_eq!(code_of::<ReleaseRequest>(body), code, "{body}");
        }
    }
}
