//! Request parsing that answers every malformed request with a protocol error code, instead of
//! the framework's plain-text rejections. What a body must hold is [`tenure::requests`], shared
//! with every grantor; this reads the body off the connection, and the status query string.

use axum::body::Bytes;
use axum::extract::{FromRequest, Query, Request};
use axum::http::header;
use serde::de::DeserializeOwned;
use tenure::protocol::ErrorCode;
pub use tenure::requests::{parse_body, parse_request, Validate, MAX_BODY_BYTES};

use crate::error::ApiError;

/// When the request's body must have arrived; set on every request by the router.
#[derive(Clone, Copy, Debug)]
pub struct BodyDeadline(pub tokio::time::Instant);

/// A JSON body parsed into `T` and validated.
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned + Validate,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        check_content_type(&req)?;
        let deadline = req.extensions().get::<BodyDeadline>().copied();
        let read = Bytes::from_request(req, state);
        let read = match deadline {
            Some(BodyDeadline(at)) => tokio::time::timeout_at(at, read)
                .await
                .map_err(|_| body_timed_out())?,
            None => read.await,
        };
        let bytes = read.map_err(|rejection| {
            if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    ErrorCode::BodyTooLarge,
                    format!("the body exceeds {MAX_BODY_BYTES} bytes"),
                )
            } else {
                ApiError::new(ErrorCode::BadJson, "the body could not be read")
            }
        })?;
        Ok(ApiJson(parse_request(&bytes)?))
    }
}

fn body_timed_out() -> ApiError {
    ApiError::new(
        ErrorCode::RequestTimeout,
        "the request body did not arrive in time; nothing was done",
    )
}

/// Accepts a missing content type (lenient for simple clients) or any JSON type, so that a
/// browser cannot send a state-changing `text/plain` request without a CORS preflight.
fn check_content_type(req: &Request) -> Result<(), ApiError> {
    let Some(value) = req.headers().get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let essence = value
        .to_str()
        .ok()
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    match essence {
        Some(e)
            if e == "application/json"
                || (e.starts_with("application/") && e.ends_with("+json")) =>
        {
            Ok(())
        }
        _ => Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "the body must be JSON (Content-Type: application/json)",
        )),
    }
}

/// Parses the query string of `GET /v1/status` or `GET /v1/watch`.
pub fn status_query<T: DeserializeOwned + Validate>(
    query: Result<Query<T>, axum::extract::rejection::QueryRejection>,
) -> Result<T, ApiError> {
    let Query(request) = query.map_err(|rejection| {
        let message = rejection.body_text();
        let code = if message.contains("unknown field") {
            ErrorCode::UnknownField
        } else if message.contains("missing field") {
            ErrorCode::MissingField
        } else {
            ErrorCode::BadQuery
        };
        ApiError::new(code, message)
    })?;
    request.validate()?;
    Ok(request)
}
