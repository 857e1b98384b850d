//! What both stores share: the errors they fail with, the configured duration range, how an
//! item's replies are built from what is recorded of it, and the conversions of stored values.
//! Neither store depends on the other; both decide through `tenure::rules`.

use std::sync::Arc;

use serde_json::Value;
use tenure::protocol::{
    ClaimReply, ClaimedItem, ItemReply, ItemState, Token, MAX_REQUEST_DURATION_MS,
};
use tenure::rules::{RuleError, StaleClaim};

/// How many idempotency outcomes are kept per resource; older ones are pruned. Large enough to
/// cover every retry of many concurrent holders, small enough to keep the table bounded.
pub const OUTCOMES_KEPT_PER_RESOURCE: u32 = 1024;

pub use tenure::protocol::DEFAULT_MAX_ATTEMPTS;

/// The grantor's configured range of lease durations; requests are clamped into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurationLimits {
    /// Shortest duration granted, in ms.
    pub min_ms: u64,
    /// Longest duration granted, in ms.
    pub max_ms: u64,
}

impl DurationLimits {
    /// Validates the range: `1 <= min_ms <= max_ms <= MAX_REQUEST_DURATION_MS`.
    pub fn new(min_ms: u64, max_ms: u64) -> Result<DurationLimits, String> {
        if min_ms == 0 {
            return Err("the minimum duration must be at least 1 ms".into());
        }
        if max_ms > MAX_REQUEST_DURATION_MS {
            return Err(format!(
                "the maximum duration must be at most {MAX_REQUEST_DURATION_MS} ms"
            ));
        }
        if min_ms > max_ms {
            return Err("the minimum duration exceeds the maximum".into());
        }
        Ok(DurationLimits { min_ms, max_ms })
    }

    pub(crate) fn clamp(self, duration_ms: u64) -> u64 {
        duration_ms.clamp(self.min_ms, self.max_ms)
    }
}

/// Why a store operation failed.
#[derive(Debug)]
pub enum StoreError {
    /// SQLite failed; the operation had no effect.
    Storage(rusqlite::Error),
    /// PostgreSQL failed or could not be reached. The operation had no effect, unless the
    /// connection broke while committing; every operation is safe to repeat. Shared, so that
    /// every request of a group that failed as one gets the failure itself.
    Postgres(Arc<tokio_postgres::Error>),
    /// No PostgreSQL connection could be had in time.
    Unavailable(String),
    /// The task running the operation failed.
    TaskFailed(String),
    /// The database holds something this build never writes.
    Corrupt(String),
    /// The request id was used before, by a different request.
    RequestIdReused,
    /// The resource's counter is at `MAX_TOKEN`.
    TokenExhausted,
    /// The queue has no item with that id.
    NoSuchItem,
    /// The claim token is not the item's live claim; the text says why.
    StaleClaim(String),
    /// The request would act on a live grant but did not present its secret.
    BadLeaseSecret,
    /// The request would act on a live claim but did not present its secret.
    BadClaimSecret,
    /// The group of requests this one ran in failed to begin or commit (SQLite's message), so
    /// nothing of it was applied.
    GroupFailed(String),
}

impl StoreError {
    /// Whether this is the request's own error (it is refused as it stands, and retrying it
    /// unchanged fails the same way) rather than a failure of the storage. In a batch, such an
    /// error is one element's result; any other fails the whole batch.
    pub(crate) fn is_request_error(&self) -> bool {
        matches!(
            self,
            StoreError::RequestIdReused
                | StoreError::TokenExhausted
                | StoreError::NoSuchItem
                | StoreError::StaleClaim(_)
                | StoreError::BadLeaseSecret
                | StoreError::BadClaimSecret
        )
    }
}

impl StoreError {
    /// This failure again, for another request of a group that failed as one: the same kind,
    /// so the same reply, and the same cause. (The drivers' errors cannot be cloned: SQLite's is
    /// kept as its text.)
    pub(crate) fn for_group_member(&self) -> StoreError {
        match self {
            StoreError::Storage(e) => StoreError::GroupFailed(e.to_string()),
            StoreError::Postgres(e) => StoreError::Postgres(Arc::clone(e)),
            StoreError::Unavailable(why) => StoreError::Unavailable(why.clone()),
            StoreError::TaskFailed(why) => StoreError::TaskFailed(why.clone()),
            StoreError::Corrupt(what) => StoreError::Corrupt(what.clone()),
            StoreError::RequestIdReused => StoreError::RequestIdReused,
            StoreError::TokenExhausted => StoreError::TokenExhausted,
            StoreError::NoSuchItem => StoreError::NoSuchItem,
            StoreError::StaleClaim(why) => StoreError::StaleClaim(why.clone()),
            StoreError::BadLeaseSecret => StoreError::BadLeaseSecret,
            StoreError::BadClaimSecret => StoreError::BadClaimSecret,
            StoreError::GroupFailed(why) => StoreError::GroupFailed(why.clone()),
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Storage(e)
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Storage(e) => write!(f, "storage failed: {e}"),
            StoreError::Postgres(e) => write!(f, "PostgreSQL failed: {e}"),
            StoreError::Unavailable(why) => write!(f, "no PostgreSQL connection: {why}"),
            StoreError::TaskFailed(why) => write!(f, "store task failed: {why}"),
            StoreError::Corrupt(what) => write!(f, "database holds unexpected data: {what}"),
            StoreError::RequestIdReused => f.write_str("request id reused for another request"),
            StoreError::TokenExhausted => f.write_str("token counter exhausted"),
            StoreError::NoSuchItem => f.write_str("no such item"),
            StoreError::StaleClaim(why) => write!(f, "stale claim: {why}"),
            StoreError::BadLeaseSecret => f.write_str("the grant's secret was not presented"),
            StoreError::BadClaimSecret => f.write_str("the claim's secret was not presented"),
            StoreError::GroupFailed(why) => write!(f, "storage failed: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<RuleError> for StoreError {
    fn from(e: RuleError) -> StoreError {
        match e {
            RuleError::BadLeaseSecret => StoreError::BadLeaseSecret,
            RuleError::TokenExhausted => StoreError::TokenExhausted,
        }
    }
}

/// The error for claim `token` not being the item's live claim, saying why.
pub(crate) fn stale_claim(why: StaleClaim, token: u64) -> StoreError {
    StoreError::StaleClaim(tenure::requests::Refusal::stale_claim(why, token).message)
}

/// JSON text of a value to store; failing only on a value serde cannot represent.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(serialising)
}

/// A value that could not be serialised as JSON: nothing the grantor writes is like that.
pub(crate) fn serialising(e: serde_json::Error) -> StoreError {
    StoreError::Corrupt(format!("serialising: {e}"))
}

/// A stored JSON text read back; unreadable means the database was altered behind our back.
pub(crate) fn parse_json(text: &str, what: &str) -> Result<serde_json::Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("stored {what}: {e}")))
}

pub(crate) fn token(value: u64) -> Result<Token, StoreError> {
    Token::new(value).map_err(|e| StoreError::Corrupt(format!("token {value}: {e}")))
}

/// Tokens and durations are at most 2^53 − 1, so they always fit SQLite's signed integers.
pub(crate) fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub(crate) fn from_i64(value: i64) -> Result<u64, StoreError> {
    u64::try_from(value).map_err(|_| StoreError::Corrupt(format!("negative integer {value}")))
}

/// What both stores record of an item, as the claim and item replies are built from it: the
/// rules of what a reply shows live here once, whatever the store.
pub(crate) struct StoredItem {
    pub(crate) id: u64,
    pub(crate) payload: String,
    pub(crate) dedupe_key: Option<String>,
    pub(crate) attempts: u32,
    pub(crate) max_attempts: u32,
    pub(crate) claim_token: u64,
    pub(crate) claimed_by: Option<String>,
    pub(crate) completed_token: Option<u64>,
    pub(crate) completed_by: Option<String>,
    pub(crate) result: Option<String>,
    pub(crate) last_error: Option<String>,
}

impl StoredItem {
    /// The reply to a claim of this item, promising `claim_ms`.
    pub(crate) fn claimed_reply(self, claim_ms: u64) -> Result<ClaimReply<Value>, StoreError> {
        Ok(ClaimReply {
            claimed: true,
            item: Some(ClaimedItem {
                id: self.id,
                payload: parse_json(&self.payload, "payload")?,
                attempts: self.attempts,
                max_attempts: self.max_attempts,
            }),
            token: Some(token(self.claim_token)?),
            claim_ms: Some(claim_ms),
        })
    }

    /// The item's record in `state`; who completed it and with what only once it is done.
    pub(crate) fn item_reply(
        self,
        state: ItemState,
        claim_expires_in_ms: Option<u64>,
    ) -> Result<ItemReply<Value>, StoreError> {
        let done = state == ItemState::Done;
        Ok(ItemReply {
            id: self.id,
            state,
            payload: parse_json(&self.payload, "payload")?,
            dedupe_key: self.dedupe_key,
            attempts: self.attempts,
            max_attempts: self.max_attempts,
            claim_token: token(self.claim_token)?,
            claimed_by: self.claimed_by,
            claim_expires_in_ms,
            completed_token: self
                .completed_token
                .filter(|_| done)
                .map(token)
                .transpose()?,
            completed_by: self.completed_by.filter(|_| done),
            result: self
                .result
                .filter(|_| done)
                .map(|r| parse_json(&r, "result"))
                .transpose()?,
            last_error: self
                .last_error
                .map(|e| parse_json(&e, "error"))
                .transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_request_of_a_failed_group_gets_the_failure_itself() {
        // A real driver error: nothing listens on port 1.
        let refused = tokio_postgres::connect(
            "host=127.0.0.1 port=1 user=tenure connect_timeout=5",
            tokio_postgres::NoTls,
        )
        .await
        .err()
        .expect("nothing listens on port 1");
        let failures = [
            StoreError::Postgres(Arc::new(refused)),
            StoreError::Unavailable("timed out waiting for a connection".into()),
            StoreError::Corrupt("a token of -1".into()),
            StoreError::TaskFailed("the task panicked".into()),
        ];
        for failure in failures {
            let member = failure.for_group_member();
            assert_eq!(member.to_string(), failure.to_string());
            assert_eq!(
                std::mem::discriminant(&member),
                std::mem::discriminant(&failure),
                "{failure}"
            );
        }
        let sqlite = StoreError::Storage(rusqlite::Error::InvalidQuery);
        assert_eq!(
            sqlite.for_group_member().to_string(),
            format!("storage failed: {}", rusqlite::Error::InvalidQuery)
        );
    }
}
