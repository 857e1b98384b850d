//! The claim rules for the package's `WorkClaimer`: its configuration, the settle retry policy
//! and gate ([`Settlement`]), and the idle backoff ([`IdleBackoff`]). The JavaScript keeps the IO
//! (the grantor calls, timers, promises); each decision comes from here. A claim's heartbeats are
//! a `LeaseHolder`'s renewals, so they are [`super::HolderCore`]'s.

use js_sys::JsString;
use wasm_bindgen::prelude::*;

use super::error::{config_error, get};
use super::js::now_ms;
use super::lease::now_or_expired;
use crate::core::{
    claim_failure_kind, claim_gone, is_item_id, ClaimConfig, Failure, FailureKind, IdleBackoff,
    MonoTime, SettleEnd, SettleOperation, SettleReply, SettleStep, Settlement,
};
use crate::protocol::RenewRefusal;

/// Validates `claimMs`, `marginMs` and `requestTimeoutMs` by the holder's rules, under the
/// claimer's option names; returns the heartbeat interval in ms.
#[wasm_bindgen(skip_jsdoc, js_name = claimHeartbeatMs)]
pub fn claim_heartbeat_ms(
    claim_ms: JsValue,
    margin_ms: JsValue,
    request_timeout_ms: JsValue,
) -> Result<f64, JsValue> {
    claim_config(&claim_ms, &margin_ms, &request_timeout_ms)
        .map(|config| config.heartbeat_interval().as_ms_f64())
}

/// How long one settle attempt may take, in ms, before it is abandoned and counts as timed out:
/// the claim's `requestTimeoutMs` rule, as for its claims and heartbeats. The options are
/// validated as by [`claim_heartbeat_ms`].
#[wasm_bindgen(skip_jsdoc, js_name = claimSettleTimeoutMs)]
pub fn claim_settle_timeout_ms(
    claim_ms: JsValue,
    margin_ms: JsValue,
    request_timeout_ms: JsValue,
) -> Result<f64, JsValue> {
    claim_config(&claim_ms, &margin_ms, &request_timeout_ms)
        .map(|config| config.settle_timeout().as_ms_f64())
}

fn claim_config(
    claim_ms: &JsValue,
    margin_ms: &JsValue,
    request_timeout_ms: &JsValue,
) -> Result<ClaimConfig, JsValue> {
    let number = |v: &JsValue| v.as_f64().unwrap_or(f64::NAN);
    let timeout = (!request_timeout_ms.is_undefined()).then(|| number(request_timeout_ms));
    ClaimConfig::from_ms(number(claim_ms), number(margin_ms), timeout, 0)
        .map_err(|e| config_error(&e))
}

/// Checks the claimer's `queue` and `workerId` by the protocol's name rules.
#[wasm_bindgen(skip_jsdoc, js_name = checkClaimerNames)]
pub fn check_claimer_names(queue: JsValue, worker_id: JsValue) -> Result<(), JsValue> {
    let (queue, worker_id) = (queue.as_string(), worker_id.as_string());
    ClaimConfig::check_names(queue.as_deref(), worker_id.as_deref()).map_err(|e| config_error(&e))
}

/// The worker loop's slot count from its `concurrency` option (`undefined`: 1).
#[wasm_bindgen(skip_jsdoc, js_name = processConcurrency)]
pub fn process_concurrency(concurrency: JsValue) -> Result<u32, JsValue> {
    let given = (!concurrency.is_undefined()).then(|| concurrency.as_f64().unwrap_or(f64::NAN));
    ClaimConfig::check_concurrency(given).map_err(|e| config_error(&e))
}

/// Whether `id` is a work item id the protocol could have issued.
#[wasm_bindgen(skip_jsdoc, js_name = isItemId)]
pub fn is_item_id_js(id: JsValue) -> bool {
    id.as_f64().is_some_and(is_item_id)
}

/// A heartbeat's answer to a grantor error: `"not_holder"` when the error's `grantorCode` says
/// the claim is gone, ending the claim; `undefined` when the error stands and is retried.
#[wasm_bindgen(skip_jsdoc, js_name = heartbeatRefusal)]
pub fn heartbeat_refusal(error: &JsValue) -> Option<JsString> {
    let code = get(error, "grantorCode").as_string()?;
    claim_gone(&code).then(|| JsString::from(RenewRefusal::NotHolder.as_str()))
}

/// The `kind` of the error a failed claim attempt rejects with, from the holder's failure reason.
#[wasm_bindgen(skip_jsdoc, js_name = claimFailureKind)]
pub fn claim_failure_kind_of(reason: &str) -> JsString {
    JsString::from(claim_failure_kind(reason))
}

/// Jitter seeds only need to differ between workers; Math.random is everywhere, crypto is not.
fn seed() -> u64 {
    let high = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    let low = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    (high << 32) | low
}

/// The monotonic reading now; a host whose clock returns garbage gets one far ahead, which ends
/// every wait at once.
fn mono_now() -> MonoTime {
    let (mono, wall) = now_ms();
    now_or_expired(mono, wall).map_or(MonoTime(u64::MAX / 2), |now| now.mono)
}

/// One completion or failure: when to send, when to retry, when to stop.
///
/// Each step answers a number of ms to wait before asking again (0: send now), or why the
/// settlement is over: `"not_held"` (a completion whose claim is not safely held: nothing sent),
/// `"stale"` (the grantor refused the token) or `"gave_up"` (the failure stands).
#[wasm_bindgen]
pub struct SettleCore {
    settlement: Settlement,
}

#[wasm_bindgen]
impl SettleCore {
    /// A settlement of `operation` (`"complete"` or `"fail"`).
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(operation: &str) -> SettleCore {
        let operation = if operation == "complete" {
            SettleOperation::Complete
        } else {
            SettleOperation::Fail
        };
        SettleCore {
            settlement: Settlement::new(operation, seed()),
        }
    }

    /// The next step, given whether the claim is safely held now.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn attempt(&mut self, held: bool) -> JsValue {
        let now = mono_now();
        let step = self.settlement.attempt(now, held);
        step_value(now, &step)
    }

    /// The step after an attempt rejected with `error`, given whether the claim is safely held.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn outcome(&mut self, error: JsValue, held: bool) -> JsValue {
        let now = mono_now();
        let step = self.settlement.outcome(now, settle_reply(&error), held);
        step_value(now, &step)
    }
}

/// A grantor's rejection: a claim gone ([`claim_gone`]) is definitive; an `ERR_GRANTOR` failure may be retried
/// unless the request itself was refused or the reply was malformed; anything else is not a
/// grantor failure and is never retried.
fn settle_reply(error: &JsValue) -> SettleReply {
    if get(error, "grantorCode")
        .as_string()
        .is_some_and(|code| claim_gone(&code))
    {
        return SettleReply::Stale;
    }
    if get(error, "code").as_string().as_deref() != Some("ERR_GRANTOR") {
        return SettleReply::Error;
    }
    let kind = match get(error, "kind").as_string().as_deref() {
        Some("bad_request") => FailureKind::BadRequest,
        Some("malformed_reply") => FailureKind::Malformed,
        _ => FailureKind::Unreachable,
    };
    SettleReply::Failed(Failure::of(kind))
}

fn step_value(now: MonoTime, step: &SettleStep) -> JsValue {
    match step {
        SettleStep::Send => JsValue::from_f64(0.0),
        // Never 0 while waiting: the host asks again after the wait, and a wait rounded to
        // nothing would send before the retry is due.
        SettleStep::WaitUntil(at) => JsValue::from_f64(at.since(now).as_ms_f64().max(0.001)),
        SettleStep::Ended(end) => JsString::from(match end {
            SettleEnd::GaveUp(_) | SettleEnd::Error => "gave_up",
            other => other.as_str(),
        })
        .into(),
    }
}

/// The waits of one worker loop slot while nothing is claimable.
#[wasm_bindgen]
pub struct IdleCore {
    backoff: IdleBackoff,
}

#[wasm_bindgen]
impl IdleCore {
    /// Waits from `idleDelayMs` doubling to `idleDelayMaxMs`; `undefined` is the default.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(base_ms: JsValue, max_ms: JsValue) -> IdleCore {
        let number = |v: &JsValue| (!v.is_undefined()).then(|| v.as_f64().unwrap_or(f64::NAN));
        IdleCore {
            backoff: IdleBackoff::from_ms(number(&base_ms), number(&max_ms), seed()),
        }
    }

    /// The wait in ms after one more claim that found nothing.
    #[wasm_bindgen(skip_jsdoc, js_name = nextWaitMs)]
    pub fn next_wait_ms(&mut self) -> f64 {
        self.backoff.next_wait().as_ms_f64()
    }

    /// A claim succeeded: waits start from the base again.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn reset(&mut self) {
        self.backoff.reset();
    }
}
