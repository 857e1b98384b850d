//! Error replies: every failure is `{"error": {"code", "message"}}` with the code's HTTP status.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use tenure::protocol::{ErrorCode, ErrorReply};
use tenure::requests::Refusal;

use crate::records::StoreError;

/// A request that failed, with its stable code and a human-readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The stable code; it determines the HTTP status.
    pub code: ErrorCode,
    /// The explanation shown to the caller.
    pub message: String,
}

impl ApiError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(e: Refusal) -> ApiError {
        ApiError::new(e.code, e.message)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::RequestIdReused => Refusal::request_id_reused().into(),
            StoreError::TokenExhausted => Refusal::token_exhausted().into(),
            StoreError::NoSuchItem => Refusal::no_such_item().into(),
            StoreError::StaleClaim(why) => ApiError::new(ErrorCode::StaleClaim, why),
            StoreError::BadLeaseSecret => Refusal::bad_lease_secret().into(),
            StoreError::BadClaimSecret => Refusal::bad_claim_secret().into(),
            e @ (StoreError::Storage(_) | StoreError::GroupFailed(_)) => {
                tracing::error!(error = %e, "storage failed");
                ApiError::new(
                    ErrorCode::StorageUnavailable,
                    "storage failed; the request had no effect",
                )
            }
            e @ (StoreError::Postgres(_) | StoreError::Unavailable(_)) => {
                tracing::error!(error = %e, "storage failed");
                // A connection that broke while committing leaves the outcome unknown, so this
                // does not claim "no effect"; every request is safe to repeat.
                ApiError::new(
                    ErrorCode::StorageUnavailable,
                    "storage failed; the request may be repeated",
                )
            }
            e @ (StoreError::Corrupt(_) | StoreError::TaskFailed(_)) => {
                tracing::error!(error = %e, "internal failure");
                ApiError::new(ErrorCode::Internal, "internal failure")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(ErrorReply::new(self.code, self.message))).into_response();
        match self.code {
            ErrorCode::Unauthorized => {
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"tenure\""),
                );
            }
            // The rest of a body that came too slowly is not worth waiting for.
            ErrorCode::RequestTimeout => {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            _ => {}
        }
        response
    }
}
