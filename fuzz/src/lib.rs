//! Fuzz targets. Each takes arbitrary bytes, runs them through the code under test, and panics
//! when an independent statement of the protocol's rules (`docs/protocol.md`) is broken; it
//! returns a short label of what happened, which the stable runner uses as cheap feedback (an
//! input that produces a label not seen before is kept for further mutation).
//!
//! - [`token_f64`]: `Token::from_f64`, the check every token from JavaScript passes.
//! - [`grant_reply`], [`renew_reply`]: a reply's JSON through the wire types and
//!   `GrantReply::outcome` / `RenewReply::outcome`; a grant or renewal must come only from a
//!   reply that says so with a valid token and duration.
//! - [`grantor_request`]: a body sent to one of the reference grantor's routes, through its whole
//!   router; never a panic, every error a known code with its status, and a `200` only for a
//!   request that is valid field by field.
//! - [`status_query`]: the query string of `GET /v1/status`, likewise.

pub mod mutate;

mod grantor;

pub use grantor::{grantor_request, remove_scratch, status_query};

use serde::Deserialize;
use serde_json::Value;
use tenure::protocol::{
    GrantOutcome, GrantReply, RenewOutcome, RenewRefusal, RenewReply, Token, TokenError, MAX_TOKEN,
};

/// A fuzz target: bytes in, a label of the outcome out; panics on a broken rule.
pub type Target = fn(&[u8]) -> String;

/// Every target by name, as `scripts/fuzz` and the stable runner know them.
pub const TARGETS: [(&str, Target); 5] = [
    ("token_f64", token_f64),
    ("grant_reply", grant_reply),
    ("renew_reply", renew_reply),
    ("grantor_request", grantor_request),
    ("status_query", status_query),
];

/// What `Token::from_f64` must answer for `value`, stated independently.
fn expected_token(value: f64) -> Result<f64, TokenError> {
    if value.is_nan() {
        Err(TokenError::NotANumber)
    } else if value < 0.0 {
        Err(TokenError::Negative)
    } else if value.is_infinite() || value.fract() != 0.0 {
        Err(TokenError::NotAnInteger)
    } else if value > 9_007_199_254_740_991.0 {
        Err(TokenError::TooLarge)
    } else {
        Ok(value)
    }
}

fn check_token(value: f64) -> String {
    let got = Token::from_f64(value);
    match (got, expected_token(value)) {
        (Ok(token), Ok(number)) => {
            assert!(
                token.get() as f64 == number && token.get() <= MAX_TOKEN,
                "{value} became token {}",
                token.get()
            );
            "token".to_owned()
        }
        (Err(e), Err(want)) => {
            assert_eq!(e, want, "{value}");
            format!("{e:?}")
        }
        (got, want) => panic!("Token::from_f64({value:?}) = {got:?}, expected {want:?}"),
    }
}

/// `Token::from_f64` on the input read two ways: its first 8 bytes as an f64, and its text as a
/// JavaScript number literal (what `JSON.parse` makes of a token).
pub fn token_f64(data: &[u8]) -> String {
    let mut label = String::new();
    if let Some(bytes) = data.get(..8) {
        let value = f64::from_le_bytes(bytes.try_into().unwrap());
        label.push_str(&check_token(value));
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(value) = text.trim().parse::<f64>() {
            label.push('/');
            label.push_str(&check_token(value));
        }
    }
    label
}

/// The fields a grant or renewal reply's outcome depends on, as the bytes say, each read as plain
/// JSON. Other fields are skipped as the wire types skip them (serde does not look inside a field
/// it ignores: invalid UTF-8 or a number out of range there passes, as it does through
/// `JSON.parse` in the JavaScript client); what matters is that these say what the outcome says.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Said {
    granted: Option<Value>,
    renewed: Option<Value>,
    token: Option<Value>,
    duration_ms: Option<Value>,
    reason: Option<Value>,
}

fn said(data: &[u8]) -> Said {
    serde_json::from_slice(data)
        .unwrap_or_else(|e| panic!("the wire type parsed what is not a reply object: {e}"))
}

/// `durationMs` must be absent, `null`, or the positive integer the outcome carries.
fn check_duration(said: &Said, duration_ms: Option<u64>) {
    match &said.duration_ms {
        None => assert_eq!(duration_ms, None),
        Some(value) => {
            let ms = value
                .as_u64()
                .expect("durationMs accepted as a non-integer");
            assert!(ms >= 1, "durationMs 0 accepted");
            assert_eq!(duration_ms, Some(ms));
        }
    }
}

/// The token must be the integer in `0..=MAX_TOKEN` the reply says.
fn check_token_field(said: &Said, token: Token) {
    let wire = said
        .token
        .as_ref()
        .and_then(Value::as_u64)
        .expect("a token accepted that is not an integer");
    assert!(wire <= MAX_TOKEN, "token {wire} accepted");
    assert_eq!(token.get(), wire);
}

/// A grant reply's JSON through `GrantReply` and `GrantReply::outcome`.
pub fn grant_reply(data: &[u8]) -> String {
    let reply = match serde_json::from_slice::<GrantReply>(data) {
        Ok(reply) => reply,
        Err(e) => return format!("parse {:?}", e.classify()),
    };
    let said = said(data);
    match reply.outcome() {
        Ok(GrantOutcome::Granted { token, duration_ms }) => {
            assert_eq!(
                said.granted,
                Some(Value::Bool(true)),
                "a grant without granted: true"
            );
            check_token_field(&said, token);
            check_duration(&said, duration_ms);
            "granted".to_owned()
        }
        Ok(GrantOutcome::Denied { .. }) => {
            assert_eq!(said.granted, Some(Value::Bool(false)));
            "denied".to_owned()
        }
        Err(e) => format!("malformed {e:?}"),
    }
}

/// A renewal reply's JSON through `RenewReply` and `RenewReply::outcome`.
pub fn renew_reply(data: &[u8]) -> String {
    let reply = match serde_json::from_slice::<RenewReply>(data) {
        Ok(reply) => reply,
        Err(e) => return format!("parse {:?}", e.classify()),
    };
    let said = said(data);
    match reply.outcome() {
        Ok(RenewOutcome::Renewed { token, duration_ms }) => {
            assert_eq!(
                said.renewed,
                Some(Value::Bool(true)),
                "a renewal without renewed: true"
            );
            check_token_field(&said, token);
            check_duration(&said, duration_ms);
            "renewed".to_owned()
        }
        Ok(RenewOutcome::Refused(reason)) => {
            assert_eq!(said.renewed, Some(Value::Bool(false)));
            let named = said.reason.as_ref().and_then(Value::as_str);
            match named {
                Some(text) => assert_eq!(RenewRefusal::parse(text), Some(reason)),
                None => assert_eq!(reason, RenewRefusal::Unknown),
            }
            format!("refused {}", reason.as_str())
        }
        Err(e) => format!("malformed {e:?}"),
    }
}
