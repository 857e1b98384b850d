//! `POST /v1/renew/batch`: many renewals in one round trip, each meaning exactly what it would
//! mean sent alone to `/v1/renew`.
//!
//! Every element is parsed, validated and checked against the caller's namespaces on its own, so
//! a malformed or forbidden element gets the error body `/v1/renew` would have answered while
//! the others are still renewed. The valid ones go to the storage as one batch: one transaction
//! (on SQLite, one commit and so one fsync for the whole batch), with the idempotency record and
//! replay rules applied per element. A storage failure fails the whole request, and then nothing
//! of it was applied.
//!
//! Each result takes at most [`MAX_BATCH_RESULT_BYTES`]: an error's message is shortened to fit
//! (its code never is), so a whole reply stays within what a client reads of it.
//!
//! Rate limits count a batch as one request: it is one transaction, at most
//! [`MAX_BATCH_RENEWALS`](tenure::protocol::MAX_BATCH_RENEWALS) elements and [`MAX_BATCH_BODY_BYTES`] bytes, and a client batches
//! precisely to send fewer requests. (Counting elements would refuse forever any batch larger
//! than a key's burst.)

use axum::extract::State;
use axum::Json;
use tenure::protocol::{
    ErrorCode, ErrorReply, RenewBatchReply, RenewBatchResult, MAX_BATCH_RESULT_BYTES,
};

use crate::auth::Caller;
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::AppState;
pub use tenure::requests::{BatchBody, MAX_BATCH_BODY_BYTES};

/// `POST /v1/renew/batch`: `{"renewals": [renew body, …]}` → `{"results": [renew reply or
/// error body, …]}`, in order.
pub async fn renew_batch(
    State(state): State<AppState>,
    caller: Caller,
    body: Result<ApiJson<BatchBody>, ApiError>,
) -> Result<Json<RenewBatchReply>, ApiError> {
    let ApiJson(body) = body.map_err(|e| match e.code {
        // The shared extractor names the limit of every other route.
        ErrorCode::BodyTooLarge => ApiError::new(
            ErrorCode::BodyTooLarge,
            format!("a batch body may have at most {MAX_BATCH_BODY_BYTES} bytes"),
        ),
        _ => e,
    })?;
    // Each element's own checks, exactly those of `/v1/renew`: its body, then its namespace. The
    // valid ones go to the storage; each slot keeps what the metrics need of its element.
    let mut valid = Vec::with_capacity(body.elements().len());
    let slots: Vec<Result<(String, String), ApiError>> = body
        .elements()
        .map(|req| {
            let req = req?;
            caller.check_resource(&req.resource)?;
            let names = (req.resource.clone(), req.holder.clone());
            valid.push(req);
            Ok(names)
        })
        .collect();
    drop(body);
    let mut outcomes = if valid.is_empty() {
        Vec::new()
    } else {
        state.backend.renew_batch(valid).await?
    }
    .into_iter();
    let mut results = Vec::with_capacity(slots.len());
    for slot in slots {
        let outcome = slot.and_then(|(resource, holder)| {
            // One outcome per valid element, in order.
            let outcome = outcomes.next().ok_or_else(|| {
                ApiError::new(
                    ErrorCode::Internal,
                    "a renewal of the batch went unanswered",
                )
            })?;
            let reply = outcome?;
            state.metrics.renew(&resource, &holder, &reply);
            Ok(reply)
        });
        results.push(match outcome {
            Ok(reply) => RenewBatchResult::Reply(reply),
            // Within the protocol's room for a result (less its comma), so the reply is never
            // longer than a client reads: a message can quote the element, of any length.
            Err(error) => RenewBatchResult::Error(
                ErrorReply::new(error.code, error.message).within(MAX_BATCH_RESULT_BYTES - 1),
            ),
        });
    }
    state.metrics.renew_batch(results.len());
    Ok(Json(RenewBatchReply { results }))
}
