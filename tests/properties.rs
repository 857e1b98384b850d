//! Property tests of the client's wire rules: which numbers are tokens, which grant and renewal
//! replies mean a grant, and which names the protocol accepts. Each property is checked against
//! an independent statement of the rule from `docs/protocol.md`, over generated values including
//! every f64 bit pattern.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use tenure::protocol::{
    is_valid_name, ErrorCode, GrantOutcome, GrantReply, MalformedReply, RenewOutcome, RenewRefusal,
    RenewReply, Token, TokenError, MAX_RESOURCE_LEN, MAX_TOKEN,
};

/// Any f64, NaN payloads, infinities and subnormals included, plus the edges of the token range.
fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        any::<f64>(),
        (0..=MAX_TOKEN).prop_map(|v| v as f64),
        (MAX_TOKEN - 4..=MAX_TOKEN + 4).prop_map(|v| v as f64),
        (-4.0..4.0f64),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
        Just(f64::MIN_POSITIVE / 2.0),
    ]
}

fn any_token() -> impl Strategy<Value = Token> {
    prop_oneof![0..=MAX_TOKEN, MAX_TOKEN - 8..=MAX_TOKEN].prop_map(|v| Token::new(v).unwrap())
}

fn any_refusal() -> impl Strategy<Value = RenewRefusal> {
    prop_oneof![
        Just(RenewRefusal::Expired),
        Just(RenewRefusal::Revoked),
        Just(RenewRefusal::NotHolder),
        Just(RenewRefusal::Unknown),
    ]
}

fn any_grant_reply() -> impl Strategy<Value = GrantReply> {
    (
        any::<bool>(),
        proptest::option::of(any_token()),
        proptest::option::of(prop_oneof![Just(0u64), any::<u64>()]),
        proptest::option::of(".{0,12}"),
        proptest::option::of(any::<u64>()),
    )
        .prop_map(
            |(granted, token, duration_ms, holder, expires_in_ms)| GrantReply {
                granted,
                token,
                duration_ms,
                holder,
                expires_in_ms,
            },
        )
}

fn any_renew_reply() -> impl Strategy<Value = RenewReply> {
    (
        any::<bool>(),
        proptest::option::of(any_token()),
        proptest::option::of(prop_oneof![Just(0u64), any::<u64>()]),
        proptest::option::of(any_refusal()),
    )
        .prop_map(|(renewed, token, duration_ms, reason)| RenewReply {
            renewed,
            token,
            duration_ms,
            reason,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    /// Every token survives the trip through a JavaScript number, including as JSON text.
    #[test]
    fn tokens_in_range_round_trip_through_f64(value in prop_oneof![0..=MAX_TOKEN, MAX_TOKEN - 1024..=MAX_TOKEN]) {
        let token = Token::new(value).unwrap();
        prop_assert_eq!(Token::from_f64(value as f64), Ok(token));
        let parsed: f64 = value.to_string().parse().unwrap();
        prop_assert_eq!(Token::from_f64(parsed).map(Token::get), Ok(value));
        prop_assert_eq!(u64::from(token), value);
    }

    /// `Token::from_f64` accepts exactly the non-negative integers up to 2^53 − 1, keeps their
    /// value, and names the right reason for everything else.
    #[test]
    fn a_number_is_a_token_exactly_when_it_is_a_safe_non_negative_integer(value in any_f64()) {
        let expected = if value.is_nan() {
            Err(TokenError::NotANumber)
        } else if value < 0.0 {
            Err(TokenError::Negative)
        } else if value.is_infinite() || value.fract() != 0.0 {
            Err(TokenError::NotAnInteger)
        } else if value > 9_007_199_254_740_991.0 {
            Err(TokenError::TooLarge)
        } else {
            Ok(value)
        };
        match (Token::from_f64(value), expected) {
            (Ok(token), Ok(number)) => prop_assert_eq!(token.get() as f64, number),
            (got, want) => prop_assert_eq!(got.map(|t| t.get() as f64), want),
        }
    }

    /// Integers above the range are refused however large.
    #[test]
    fn integers_above_the_range_are_refused(value in MAX_TOKEN + 1..=u64::MAX) {
        prop_assert_eq!(Token::new(value), Err(TokenError::TooLarge));
        prop_assert_eq!(Token::try_from(value), Err(TokenError::TooLarge));
        let as_number = value as f64;
        prop_assert!(Token::from_f64(as_number).is_err());
    }

    /// A grant reply means a grant exactly when it says `granted`, carries a token and does not
    /// grant zero milliseconds; the grant carries the reply's token and duration unchanged.
    #[test]
    fn a_grant_reply_grants_only_with_a_token_and_a_positive_duration(reply in any_grant_reply()) {
        let outcome = reply.clone().outcome();
        match (reply.granted, reply.token, reply.duration_ms) {
            (false, _, _) => prop_assert_eq!(outcome, Ok(GrantOutcome::Denied {
                holder: reply.holder,
                expires_in_ms: reply.expires_in_ms,
            })),
            (true, None, _) => prop_assert_eq!(outcome, Err(MalformedReply::MissingToken)),
            (true, Some(_), Some(0)) => prop_assert_eq!(outcome, Err(MalformedReply::BadDuration)),
            (true, Some(token), duration_ms) => {
                prop_assert_eq!(outcome, Ok(GrantOutcome::Granted { token, duration_ms }))
            }
        }
    }

    /// The same for renewals; a refusal is always a loss, `unknown` when it names no reason.
    #[test]
    fn a_renew_reply_renews_only_with_a_token_and_a_positive_duration(reply in any_renew_reply()) {
        let outcome = reply.clone().outcome();
        match (reply.renewed, reply.token, reply.duration_ms) {
            (false, _, _) => prop_assert_eq!(
                outcome,
                Ok(RenewOutcome::Refused(reply.reason.unwrap_or(RenewRefusal::Unknown)))
            ),
            (true, None, _) => prop_assert_eq!(outcome, Err(MalformedReply::MissingToken)),
            (true, Some(_), Some(0)) => prop_assert_eq!(outcome, Err(MalformedReply::BadDuration)),
            (true, Some(token), duration_ms) => {
                prop_assert_eq!(outcome, Ok(RenewOutcome::Renewed { token, duration_ms }))
            }
        }
    }

    /// The constructors the grantor answers with always validate to what they say.
    #[test]
    fn constructed_replies_validate_to_what_they_say(
        token in any_token(),
        duration_ms in 1..=u64::MAX,
        holder in ".{0,12}",
        expires_in_ms in any::<u64>(),
        reason in any_refusal(),
    ) {
        prop_assert_eq!(
            GrantReply::granted(token, duration_ms).outcome(),
            Ok(GrantOutcome::Granted { token, duration_ms: Some(duration_ms) })
        );
        prop_assert_eq!(
            GrantReply::denied(holder.clone(), expires_in_ms).outcome(),
            Ok(GrantOutcome::Denied { holder: Some(holder), expires_in_ms: Some(expires_in_ms) })
        );
        prop_assert_eq!(
            RenewReply::renewed(token, duration_ms).outcome(),
            Ok(RenewOutcome::Renewed { token, duration_ms: Some(duration_ms) })
        );
        prop_assert_eq!(RenewReply::refused(reason).outcome(), Ok(RenewOutcome::Refused(reason)));
        prop_assert_eq!(RenewRefusal::parse(reason.as_str()), Some(reason));
    }

    /// A name is valid exactly when it is 1 to `max_len` bytes of printable ASCII.
    #[test]
    fn names_are_valid_exactly_when_non_empty_printable_ascii_within_the_limit(
        name in prop_oneof![".{0,20}", "[ -~]{0,300}", "[\\x00-\\x7f]{0,8}"],
        max_len in prop_oneof![Just(MAX_RESOURCE_LEN), 0usize..=24],
    ) {
        let expected = !name.is_empty()
            && name.len() <= max_len
            && name.chars().all(|c| (' '..='~').contains(&c));
        prop_assert_eq!(is_valid_name(&name, max_len), expected);
    }

    /// Wire codes and refusal reasons parse back to themselves and nothing else does.
    #[test]
    fn only_known_codes_and_reasons_parse(text in prop_oneof!["[a-z_]{0,24}", ".{0,8}"]) {
        match ErrorCode::parse(&text) {
            Some(code) => prop_assert_eq!(code.as_str(), text.as_str()),
            None => prop_assert!(ErrorCode::ALL.iter().all(|c| c.as_str() != text)),
        }
        match RenewRefusal::parse(&text) {
            Some(reason) => prop_assert_eq!(reason.as_str(), text.as_str()),
            None => prop_assert!(!["expired", "revoked", "not_holder", "unknown"].contains(&text.as_str())),
        }
    }
}

/// Every error code maps to an error status, and a grantor's code is recognised by its text.
#[test]
fn every_error_code_has_an_error_status() {
    for code in ErrorCode::ALL {
        let status = code.http_status();
        assert!((400..=599).contains(&status), "{code}: {status}");
        assert_eq!(ErrorCode::parse(&code.to_string()), Some(code));
    }
}
