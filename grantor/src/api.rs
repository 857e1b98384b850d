//! The `/v1` handlers.
//!
//! Each takes the [`Caller`] first, so an unauthenticated request is refused before its body is
//! read, then the body, then checks the names it touches against the caller's namespaces.

use std::time::Instant;

use axum::extract::{Query, State};
use axum::response::Response;
use axum::Json;
use serde_json::Value;
use tenure::protocol::{
    ClaimReply, ClaimReplyWithSecret, ClaimRequest, CompleteReply, CompleteRequest, EnqueueReply,
    EnqueueRequest, ErrorCode, FailReply, FailRequest, FencedReadReply, FencedReadRequest,
    FencedWriteReply, FencedWriteRequest, GrantReplyWithSecret, GrantRequest, HeartbeatReply,
    HeartbeatRequest, ItemReply, ItemRequest, QueueStatsReply, QueueStatsRequest, ReleaseReply,
    ReleaseRequest, RenewReply, RenewRequest, RevokeReply, RevokeRequest, StatusReply,
    StatusRequest, WatchRequest, WithNextClaim,
};

use crate::auth::{Admin, Caller};
use crate::backend::ClaimRef;
use crate::error::ApiError;
use crate::extract::{status_query, ApiJson};
use crate::records::StoreError;
use crate::AppState;

/// `POST /v1/grant`: the reply carries the grant's `leaseSecret`.
pub async fn grant(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<GrantRequest>,
) -> Result<Json<GrantReplyWithSecret>, ApiError> {
    caller.check_resource(&req.resource)?;
    let (resource, holder) = (req.resource.clone(), req.holder.clone());
    let reply = state.backend.grant(req).await?;
    state.metrics.grant(&resource, &holder, &reply);
    if reply.granted {
        state.watches.registry.changed(&resource);
    }
    // A replay of this same request (same holder and requestId) gets the same token, and so the
    // same secret: a holder whose reply was lost still learns it.
    let lease_secret = reply
        .token
        .filter(|_| reply.granted)
        .map(|token| state.secrets.lease(&resource, token.get()));
    Ok(Json(GrantReplyWithSecret {
        reply,
        lease_secret,
    }))
}

/// `POST /v1/renew`.
pub async fn renew(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<RenewRequest>,
) -> Result<Json<RenewReply>, ApiError> {
    caller.check_resource(&req.resource)?;
    let (resource, holder) = (req.resource.clone(), req.holder.clone());
    let reply = state.backend.renew(req).await?;
    state.metrics.renew(&resource, &holder, &reply);
    Ok(Json(reply))
}

/// `POST /v1/release`.
pub async fn release(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<ReleaseRequest>,
) -> Result<Json<ReleaseReply>, ApiError> {
    caller.check_resource(&req.resource)?;
    let (resource, token, handed) = (req.resource.clone(), req.token.get(), req.hand_to.is_some());
    let reply = state.backend.release(req).await?;
    state.metrics.release(&resource, token, &reply, handed);
    if reply.released {
        state.watches.registry.changed(&resource);
    }
    Ok(Json(reply))
}

/// `GET /v1/status?resource=…`.
pub async fn status_get(
    State(state): State<AppState>,
    caller: Caller,
    query: Result<Query<StatusRequest>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<StatusReply>, ApiError> {
    let req = status_query(query)?;
    status(state, caller, req).await
}

/// `POST /v1/status`.
pub async fn status_post(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<StatusRequest>,
) -> Result<Json<StatusReply>, ApiError> {
    status(state, caller, req).await
}

async fn status(
    state: AppState,
    caller: Caller,
    req: StatusRequest,
) -> Result<Json<StatusReply>, ApiError> {
    caller.check_resource(&req.resource)?;
    let reply = state.backend.status(req.resource).await?;
    Ok(Json(reply))
}

/// `GET /v1/watch?resource=…&after=…&waitMs=…`: a long poll (see `watch.rs`).
pub async fn watch_get(
    State(state): State<AppState>,
    caller: Caller,
    query: Result<Query<WatchRequest>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let req = status_query(query)?;
    caller.check_resource(&req.resource)?;
    crate::watch::watch(state, req).await
}

/// `POST /v1/watch`: the same, with a JSON body.
pub async fn watch_post(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<WatchRequest>,
) -> Result<Response, ApiError> {
    caller.check_resource(&req.resource)?;
    crate::watch::watch(state, req).await
}

/// `POST /v1/revoke`. [`Admin`] runs first, so an unauthorised caller learns nothing about the
/// body's validity.
pub async fn revoke(
    State(state): State<AppState>,
    Admin(caller): Admin,
    ApiJson(req): ApiJson<RevokeRequest>,
) -> Result<Json<RevokeReply>, ApiError> {
    caller.check_resource(&req.resource)?;
    let (resource, started) = (req.resource.clone(), Instant::now());
    let revoked = state.backend.revoke(req.resource).await?;
    state.metrics.revoke(&resource, started, revoked);
    if revoked {
        state.watches.registry.changed(&resource);
    }
    Ok(Json(RevokeReply { revoked }))
}

/// `POST /v1/fenced/write`.
pub async fn fenced_write(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<FencedWriteRequest<Value>>,
) -> Result<Json<FencedWriteReply>, ApiError> {
    caller.check_resource(&req.resource)?;
    // Re-serialising a parsed `Value` cannot fail: its keys are strings and its numbers finite.
    let payload = serde_json::to_string(&req.payload)
        .map_err(|_| ApiError::new(ErrorCode::WrongType, "payload is not serialisable JSON"))?;
    let reply = state
        .backend
        .fenced_write(req.resource, payload, req.token, req.lease_secret)
        .await?;
    state.metrics.fenced_write(&reply);
    Ok(Json(reply))
}

/// `POST /v1/fenced/read`.
pub async fn fenced_read(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<FencedReadRequest>,
) -> Result<Json<FencedReadReply<Value>>, ApiError> {
    caller.check_resource(&req.resource)?;
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
    caller: Caller,
    ApiJson(req): ApiJson<EnqueueRequest<Value>>,
) -> Result<Json<EnqueueReply>, ApiError> {
    caller.check_queue(&req.queue)?;
    let reply = state.backend.enqueue(req.queue, req.items).await?;
    Ok(Json(reply))
}

/// `POST /v1/queues/claim`: a claim carries its `claimSecret`.
pub async fn claim(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<ClaimRequest>,
) -> Result<Json<ClaimReplyWithSecret<Value>>, ApiError> {
    caller.check_queue(&req.queue)?;
    let reply = state.backend.claim(req).await?;
    Ok(Json(with_secret(&state, reply)))
}

/// A claim reply as the worker receives it: with the claim's secret, counted in the metrics.
fn with_secret(state: &AppState, reply: ClaimReply<Value>) -> ClaimReplyWithSecret<Value> {
    state.metrics.claim(reply.claimed);
    let claim_secret = match (&reply.item, reply.token) {
        (Some(item), Some(token)) if reply.claimed => {
            Some(state.secrets.claim(item.id, token.get()))
        }
        _ => None,
    };
    ClaimReplyWithSecret {
        reply,
        claim_secret,
    }
}

/// `POST /v1/queues/heartbeat`.
pub async fn heartbeat(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<HeartbeatRequest>,
) -> Result<Json<HeartbeatReply>, ApiError> {
    caller.check_queue(&req.queue)?;
    let claim = ClaimRef {
        queue: req.queue,
        item_id: req.item_id,
        worker: req.worker,
        token: req.token,
        secret: req.claim_secret,
    };
    let reply = state.backend.heartbeat(claim, req.claim_ms).await?;
    Ok(Json(reply))
}

/// `POST /v1/queues/complete`, with the worker's next claim when `claimNext` asks for it.
pub async fn complete(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<CompleteRequest<Value>>,
) -> Result<Json<WithNextClaim<CompleteReply, Value>>, ApiError> {
    caller.check_queue(&req.queue)?;
    let next = req
        .claim_next
        .as_ref()
        .map(|next| next.request(&req.queue, &req.worker));
    let claim = ClaimRef {
        queue: req.queue,
        item_id: req.item_id,
        worker: req.worker,
        token: req.token,
        secret: req.claim_secret,
    };
    let (reply, next) = state.backend.complete(claim, req.result, next).await?;
    state.metrics.completion();
    Ok(Json(WithNextClaim {
        reply,
        next: next.map(|next| with_secret(&state, next)),
    }))
}

/// `POST /v1/queues/fail`, with the worker's next claim when `claimNext` asks for it.
pub async fn fail(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<FailRequest<Value>>,
) -> Result<Json<WithNextClaim<FailReply, Value>>, ApiError> {
    caller.check_queue(&req.queue)?;
    let next = req
        .claim_next
        .as_ref()
        .map(|next| next.request(&req.queue, &req.worker));
    let claim = ClaimRef {
        queue: req.queue,
        item_id: req.item_id,
        worker: req.worker,
        token: req.token,
        secret: req.claim_secret,
    };
    let (reply, next) = state.backend.fail(claim, req.error, next).await?;
    state.metrics.failure();
    Ok(Json(WithNextClaim {
        reply,
        next: next.map(|next| with_secret(&state, next)),
    }))
}

/// `POST /v1/queues/stats`.
pub async fn queue_stats(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<QueueStatsRequest>,
) -> Result<Json<QueueStatsReply>, ApiError> {
    caller.check_queue(&req.queue)?;
    let reply = state.backend.queue_stats(req.queue).await?;
    Ok(Json(reply))
}

/// `POST /v1/queues/item`.
pub async fn item(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<ItemRequest>,
) -> Result<Json<ItemReply<Value>>, ApiError> {
    caller.check_queue(&req.queue)?;
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
