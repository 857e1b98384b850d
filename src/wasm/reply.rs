//! Validates what a JavaScript grantor returned. Anything that does not validate is a failed
//! attempt, never a grant.

use wasm_bindgen::prelude::*;

use super::error::get;
#[cfg(any(feature = "claims", feature = "grantors"))]
use crate::core::{is_item_id, ClaimReply};
use crate::core::{Failure, FailureKind, Micros};
use crate::protocol::{
    GrantOutcome, GrantReply, MalformedReply, RenewOutcome, RenewRefusal, RenewReply, Token,
};

/// `{granted, token, durationMs?}` or `{granted: false, holder?, expiresInMs?}`.
pub fn grant_outcome(reply: &JsValue) -> Result<GrantOutcome, MalformedReply> {
    if !reply.is_object() {
        return Err(MalformedReply::NotAnObject);
    }
    let granted = get(reply, "granted")
        .as_bool()
        .ok_or(MalformedReply::BadFlag)?;
    let parsed = if granted {
        GrantReply {
            granted,
            token: token(reply)?,
            duration_ms: duration(reply, "durationMs")?,
            holder: None,
            expires_in_ms: None,
        }
    } else {
        GrantReply {
            granted,
            token: None,
            duration_ms: None,
            holder: optional_string(reply, "holder")?,
            expires_in_ms: expires_in(reply)?,
        }
    };
    parsed.outcome()
}

/// `{renewed: true, token, durationMs?}` or `{renewed: false, reason?}`.
pub fn renew_outcome(reply: &JsValue) -> Result<RenewOutcome, MalformedReply> {
    if !reply.is_object() {
        return Err(MalformedReply::NotAnObject);
    }
    let renewed = get(reply, "renewed")
        .as_bool()
        .ok_or(MalformedReply::BadFlag)?;
    let parsed = if renewed {
        RenewReply {
            renewed,
            token: token(reply)?,
            duration_ms: duration(reply, "durationMs")?,
            reason: None,
        }
    } else {
        // A refusal is a definitive loss whatever its reason; an unrecognised or missing reason
        // is reported as `unknown` rather than turning a loss into a retry.
        let reason = optional_string(reply, "reason")?
            .and_then(|r| RenewRefusal::parse(&r))
            .unwrap_or(RenewRefusal::Unknown);
        RenewReply::refused(reason)
    };
    parsed.outcome()
}

fn token(reply: &JsValue) -> Result<Option<Token>, MalformedReply> {
    let value = get(reply, "token");
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let number = value.as_f64().ok_or(MalformedReply::BadField("token"))?;
    Token::from_f64(number)
        .map(Some)
        .map_err(MalformedReply::BadToken)
}

fn duration(reply: &JsValue, key: &'static str) -> Result<Option<u64>, MalformedReply> {
    let value = get(reply, key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms > 0.0 && ms.fract() == 0.0 && ms <= 9.007e15 => {
            Ok(Some(ms as u64))
        }
        _ => Err(MalformedReply::BadDuration),
    }
}

fn expires_in(reply: &JsValue) -> Result<Option<u64>, MalformedReply> {
    let value = get(reply, "expiresInMs");
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms >= 0.0 => Ok(Some(ms.ceil() as u64)),
        _ => Err(MalformedReply::BadField("expiresInMs")),
    }
}

fn optional_string(reply: &JsValue, key: &'static str) -> Result<Option<String>, MalformedReply> {
    let value = get(reply, key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .as_string()
        .map(Some)
        .ok_or(MalformedReply::BadField(key))
}

/// A grantor that rejects may say what kind of failure it was (`HttpGrantor` does, through the
/// error's `kind` and `retryAfterMs`); any other rejection means "unreachable".
pub fn failure_from_error(error: &JsValue) -> Failure {
    let kind = match get(error, "kind").as_string().as_deref() {
        Some("server_error") => FailureKind::Server,
        Some("rate_limited") => FailureKind::RateLimited,
        Some("bad_request") => FailureKind::BadRequest,
        Some("malformed_reply") => FailureKind::Malformed,
        Some("timed_out") => FailureKind::TimedOut,
        _ => FailureKind::Unreachable,
    };
    let retry_after = get(error, "retryAfterMs")
        .as_f64()
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(Micros::from_ms_f64);
    Failure { kind, retry_after }
}

#[cfg(any(feature = "claims", feature = "grantors"))]
/// A reply's `token`, if it is one.
pub fn token_of(reply: &JsValue) -> Option<Token> {
    get(reply, "token")
        .as_f64()
        .and_then(|n| Token::from_f64(n).ok())
}

#[cfg(any(feature = "claims", feature = "grantors"))]
/// `claimMs` of a reply: absent, or a positive whole number of ms; `Err` for anything else.
pub fn claim_ms_of(reply: &JsValue) -> Result<Option<u64>, ()> {
    let value = get(reply, "claimMs");
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms > 0.0 && ms.fract() == 0.0 && ms <= 9.007e15 => {
            Ok(Some(ms as u64))
        }
        _ => Err(()),
    }
}

#[cfg(any(feature = "claims", feature = "grantors"))]
/// A claim reply (`{claimed: true, item: {id, …}, token, claimMs?}` or `{claimed: false}`) and
/// its item. Anything else is a malformed reply: never a claim.
pub fn claim_reply(reply: &JsValue) -> (ClaimReply, JsValue) {
    let malformed = (
        ClaimReply::Failed(Failure::of(FailureKind::Malformed)),
        JsValue::UNDEFINED,
    );
    if !reply.is_object() {
        return malformed;
    }
    match get(reply, "claimed").as_bool() {
        Some(false) => return (ClaimReply::Empty, JsValue::UNDEFINED),
        Some(true) => {}
        None => return malformed,
    }
    let item = get(reply, "item");
    let id = get(&item, "id").as_f64().filter(|id| is_item_id(*id));
    match (id, token_of(reply), claim_ms_of(reply)) {
        (Some(id), Some(token), Ok(claim_ms)) => (
            ClaimReply::Claimed {
                item: id as u64,
                token,
                claim_ms,
            },
            item,
        ),
        _ => malformed,
    }
}
