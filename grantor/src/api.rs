//! The `/v1` handlers.

use std::net::SocketAddr;
use std::time::Instant;

use axum::extract::{ConnectInfo, FromRequestParts, Query, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::Json;
use serde_json::Value;
use tenure::protocol::{
    ClaimReply, ClaimRequest, CompleteReply, CompleteRequest, EnqueueReply, EnqueueRequest,
    ErrorCode, FailReply, FailRequest, FencedReadReply, FencedReadRequest, FencedWriteReply,
    FencedWriteRequest, GrantReply, GrantRequest, HeartbeatReply, HeartbeatRequest, ItemReply,
    ItemRequest, QueueStatsReply, QueueStatsRequest, ReleaseReply, ReleaseRequest, RenewReply,
    RenewRequest, RevokeReply, RevokeRequest, StatusReply, StatusRequest,
};

use crate::error::ApiError;
use crate::extract::{status_query, ApiJson};
use crate::store::StoreError;
use crate::AppState;

/// `POST /v1/grant`.
pub async fn grant(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<GrantRequest>,
) -> Result<Json<GrantReply>, ApiError> {
    let (resource, holder) = (req.resource.clone(), req.holder.clone());
    let reply = state.backend.grant(req).await?;
    state.metrics.grant(&resource, &holder, &reply);
    Ok(Json(reply))
}

/// `POST /v1/renew`.
pub async fn renew(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<RenewRequest>,
) -> Result<Json<RenewReply>, ApiError> {
    let (resource, holder) = (req.resource.clone(), req.holder.clone());
    let reply = state.backend.renew(req).await?;
    state.metrics.renew(&resource, &holder, &reply);
    Ok(Json(reply))
}

/// `POST /v1/renew/batch`: reserved for batched renewals; see `docs/protocol.md`.
pub async fn renew_batch() -> ApiError {
    ApiError::new(
        ErrorCode::NotImplemented,
        "batched renewals are reserved for a later protocol revision",
    )
}

/// `POST /v1/release`.
pub async fn release(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ReleaseRequest>,
) -> Result<Json<ReleaseReply>, ApiError> {
    let (resource, token) = (req.resource.clone(), req.token.get());
    let reply = state.backend.release(req).await?;
    state.metrics.release(&resource, token, &reply);
    Ok(Json(reply))
}

/// `GET /v1/status?resource=…`.
pub async fn status_get(
    State(state): State<AppState>,
    query: Result<Query<StatusRequest>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<StatusReply>, ApiError> {
    let req = status_query(query)?;
    status(state, req).await
}

/// `POST /v1/status`.
pub async fn status_post(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<StatusRequest>,
) -> Result<Json<StatusReply>, ApiError> {
    status(state, req).await
}

async fn status(state: AppState, req: StatusRequest) -> Result<Json<StatusReply>, ApiError> {
    let reply = state.backend.status(req.resource).await?;
    Ok(Json(reply))
}

/// `POST /v1/revoke`. [`Admin`] runs first, so an unauthorised caller learns nothing about the
/// body's validity.
pub async fn revoke(
    State(state): State<AppState>,
    _admin: Admin,
    ApiJson(req): ApiJson<RevokeRequest>,
) -> Result<Json<RevokeReply>, ApiError> {
    let (resource, started) = (req.resource.clone(), Instant::now());
    let revoked = state.backend.revoke(req.resource).await?;
    state.metrics.revoke(&resource, started, revoked);
    Ok(Json(RevokeReply { revoked }))
}

/// `POST /v1/fenced/write`.
pub async fn fenced_write(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<FencedWriteRequest<Value>>,
) -> Result<Json<FencedWriteReply>, ApiError> {
    // Re-serialising a parsed `Value` cannot fail: its keys are strings and its numbers finite.
    let payload = serde_json::to_string(&req.payload)
        .map_err(|_| ApiError::new(ErrorCode::WrongType, "payload is not serialisable JSON"))?;
    let reply = state
        .backend
        .fenced_write(req.resource, payload, req.token)
        .await?;
    state.metrics.fenced_write(&reply);
    Ok(Json(reply))
}

/// `POST /v1/fenced/read`.
pub async fn fenced_read(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<FencedReadRequest>,
) -> Result<Json<FencedReadReply<Value>>, ApiError> {
    let stored = state.backend.fenced_read(req.resource).await?;
    let payload = stored
        .payload
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .map_err(|e| ApiError::from(StoreError::Corrupt(format!("stored payload: {e}"))))?;
    Ok(Json(FencedReadReply {
        payload,
        last_token: stored.last_token,
    }))
}

/// `POST /v1/queues/enqueue`.
pub async fn enqueue(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<EnqueueRequest<Value>>,
) -> Result<Json<EnqueueReply>, ApiError> {
    let reply = state.backend.enqueue(req.queue, req.items).await?;
    Ok(Json(reply))
}

/// `POST /v1/queues/claim`.
pub async fn claim(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ClaimRequest>,
) -> Result<Json<ClaimReply<Value>>, ApiError> {
    let reply = state.backend.claim(req).await?;
    state.metrics.claim(reply.claimed);
    Ok(Json(reply))
}

/// `POST /v1/queues/heartbeat`.
pub async fn heartbeat(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<HeartbeatRequest>,
) -> Result<Json<HeartbeatReply>, ApiError> {
    let reply = state
        .backend
        .heartbeat(req.queue, req.item_id, req.worker, req.token, req.claim_ms)
        .await?;
    Ok(Json(reply))
}

/// `POST /v1/queues/complete`.
pub async fn complete(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<CompleteRequest<Value>>,
) -> Result<Json<CompleteReply>, ApiError> {
    let reply = state
        .backend
        .complete(req.queue, req.item_id, req.worker, req.token, req.result)
        .await?;
    state.metrics.completion();
    Ok(Json(reply))
}

/// `POST /v1/queues/fail`.
pub async fn fail(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<FailRequest<Value>>,
) -> Result<Json<FailReply>, ApiError> {
    let reply = state
        .backend
        .fail(req.queue, req.item_id, req.worker, req.token, req.error)
        .await?;
    state.metrics.failure();
    Ok(Json(reply))
}

/// `POST /v1/queues/stats`.
pub async fn queue_stats(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<QueueStatsRequest>,
) -> Result<Json<QueueStatsReply>, ApiError> {
    let reply = state.backend.queue_stats(req.queue).await?;
    Ok(Json(reply))
}

/// `POST /v1/queues/item`.
pub async fn item(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ItemRequest>,
) -> Result<Json<ItemReply<Value>>, ApiError> {
    let reply = state.backend.item(req.queue, req.item_id).await?;
    Ok(Json(reply))
}

/// `GET /healthz`: the process is up and its database answers.
pub async fn healthz(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    state.backend.ping().await?;
    Ok(Json(serde_json::json!({ "ok": true })))
}

/// The reply to any unknown route.
pub async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such route")
}

/// The reply to a known route called with the wrong method.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not accept that HTTP method",
    )
}

/// Permission to revoke: `Authorization: Bearer <admin key>` when an admin key is configured,
/// otherwise a loopback peer.
pub struct Admin;

impl FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Admin, ApiError> {
        let Some(key) = state.admin_key.as_deref() else {
            let peer = parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(addr)| addr.ip().to_canonical());
            return match peer {
                Some(ip) if ip.is_loopback() => Ok(Admin),
                _ => Err(ApiError::new(
                    ErrorCode::Forbidden,
                    "no admin key is configured, so only loopback peers may revoke",
                )),
            };
        };
        let Some(header) = parts.headers.get(AUTHORIZATION) else {
            return Err(ApiError::new(
                ErrorCode::Unauthorized,
                "revoke needs Authorization: Bearer <admin key>",
            ));
        };
        let presented = header
            .to_str()
            .ok()
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, credential)| credential.trim());
        match presented {
            Some(credential) if constant_time_eq(credential.as_bytes(), key.as_bytes()) => {
                Ok(Admin)
            }
            _ => Err(ApiError::new(ErrorCode::Forbidden, "wrong admin key")),
        }
    }
}

/// Compares without an early exit on the first differing byte, so response timing does not
/// reveal how much of a guessed key was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::constant_time_eq;

    #[test]
    fn constant_time_eq_compares_whole_slices() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secrets"));
        assert!(!constant_time_eq(b"", b"x"));
    }
}
