//! `BatchCore`: the core [`Batcher`] for `HttpGrantor`'s `batchRenewals`, with the clocks read
//! here. The JavaScript side (`RenewBatcher` in `pkg/http-grantor.js`) does the IO: it sends what
//! this asks, arms one timer for [`BatchCore::delay_until_due`], and routes each settlement to its
//! renewal's promise. No JavaScript runs inside these calls, so they take `&mut self` freely.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::error::{config_error, get, lease_error};
use super::js::now_ms;
use super::lease::now_or_expired;
use crate::core::{
    batch_delay, BatchConfig, BatchFailure, BatchId, BatchOutput, Batcher, HolderConfig,
    HolderOptionsMs, HolderTiming, ItemResult, Micros, Now, RenewalId, RenewalSettlement,
    RenewalSpec,
};

/// What [`BatchCore::poll`] answers, as the first element of its array.
const SEND: f64 = 0.0;
const SEND_ALONE: f64 = 1.0;
const SETTLE: f64 = 2.0;

/// Settlements, as the third element of a `SETTLE` output.
const REPLY: f64 = 0.0;
const ELEMENT_FAILED: f64 = 1.0;
const BATCH_FAILED: f64 = 2.0;
const MALFORMED: f64 = 3.0;
const ABANDONED: f64 = 4.0;

/// Reads the clocks; garbage readings make every delay run out at once (failing safe: a renewal
/// goes out sooner, never later).
fn now() -> Now {
    let (mono, wall) = now_ms();
    now_or_expired(mono, wall).unwrap_or(Now::from_micros(u64::MAX / 2, u64::MAX / 2))
}

/// A number option: `None` when absent, NaN (refused by the check) when not a number.
fn number(value: &JsValue) -> Option<f64> {
    if value.is_undefined() {
        return None;
    }
    Some(value.as_f64().unwrap_or(f64::NAN))
}

/// A duration in ms that a request may carry: `None` unless a finite number not below 0.
fn duration(value: &JsValue) -> Option<Micros> {
    value
        .as_f64()
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(Micros::from_ms_f64)
}

/// The renewal batcher of one `HttpGrantor`.
#[wasm_bindgen]
pub struct BatchCore {
    core: Batcher,
}

#[wasm_bindgen]
impl BatchCore {
    /// Validates `batchRenewals`' `maxDelayMs` and `maxBatch` (errors name the option).
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(max_delay_ms: JsValue, max_batch: JsValue) -> Result<BatchCore, JsValue> {
        let config = BatchConfig::from_ms(number(&max_delay_ms), number(&max_batch))
            .map_err(|e| config_error(&e))?;
        Ok(BatchCore {
            core: Batcher::new(config),
        })
    }

    /// The longest `maxDelayMs` that puts none of the holders with `configs` (an array of
    /// LeaseHolder configurations) at risk, in whole ms.
    #[wasm_bindgen(skip_jsdoc, js_name = delayMs)]
    pub fn delay_ms(configs: Array) -> Result<f64, JsValue> {
        let mut checked = Vec::new();
        for config in configs.iter() {
            let options = HolderOptionsMs {
                renew_interval_ms: number(&get(&config, "renewIntervalMs")),
                request_timeout_ms: number(&get(&config, "requestTimeoutMs")),
                ..HolderOptionsMs::default()
            };
            let lease = number(&get(&config, "leaseMs")).unwrap_or(f64::NAN);
            let margin = number(&get(&config, "marginMs")).unwrap_or(f64::NAN);
            checked.push(
                HolderConfig::from_ms(lease, margin, options, 0).map_err(|e| config_error(&e))?,
            );
        }
        match batch_delay(&checked) {
            Some(delay) => Ok(delay.as_ms_floor() as f64),
            None => Err(lease_error(
                "ERR_LEASE_CONFIG",
                "give at least one holder configuration",
                Some("configs"),
            )),
        }
    }

    /// Hands over a renewal of the lease `key` asking `durationMs`, whose JSON text is
    /// `body_chars` long; `requestTimeoutMs` and `safeForMs` are what its holder said of the
    /// attempt, if it did. Returns its id.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn enqueue(
        &mut self,
        key: &str,
        duration_ms: JsValue,
        request_timeout_ms: JsValue,
        safe_for_ms: JsValue,
        body_chars: usize,
    ) -> f64 {
        let holder = match (duration(&request_timeout_ms), duration(&safe_for_ms)) {
            (Some(request_timeout), Some(safe_for)) => Some(HolderTiming {
                request_timeout,
                safe_for,
            }),
            _ => None,
        };
        let spec = RenewalSpec {
            key,
            lease: duration(&duration_ms),
            holder,
            body_chars,
        };
        self.core.enqueue(now(), spec).0 as f64
    }

    /// The renewal `id`'s holder gave up on it.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn abandon(&mut self, id: f64) {
        self.core.abandon(now(), RenewalId(id as u64));
    }

    /// The lease `key` was released.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn forget(&mut self, key: &str) {
        self.core.forget(key);
    }

    /// The timer fired.
    #[wasm_bindgen(skip_jsdoc, js_name = handleTimeout)]
    pub fn handle_timeout(&mut self) {
        self.core.handle_timeout(now());
    }

    /// Batch `id`'s reply's `results` (anything but an array counts as no result at all).
    #[wasm_bindgen(skip_jsdoc, js_name = handleReply)]
    pub fn handle_reply(&mut self, id: f64, results: JsValue) {
        let results: Vec<JsValue> = if Array::is_array(&results) {
            Array::from(&results).iter().collect()
        } else {
            Vec::new()
        };
        let codes: Vec<Option<String>> = results
            .iter()
            .map(|result| {
                let error = if result.is_object() {
                    get(result, "error")
                } else {
                    JsValue::UNDEFINED
                };
                (!error.is_undefined()).then(|| get(&error, "code").as_string().unwrap_or_default())
            })
            .collect();
        let items: Vec<ItemResult<'_>> = results
            .iter()
            .zip(&codes)
            .map(|(result, code)| match code {
                Some(code) => ItemResult::Error(Some(code.as_str()).filter(|c| !c.is_empty())),
                None => ItemResult::Reply {
                    renewed: get(result, "renewed").as_bool() == Some(true),
                },
            })
            .collect();
        self.core
            .handle_batch_reply(now(), BatchId(id as u64), &items);
    }

    /// Batch `id` failed with this HTTP `status` and error code, if it had them.
    #[wasm_bindgen(skip_jsdoc, js_name = handleFailure)]
    pub fn handle_failure(&mut self, id: f64, status: JsValue, code: JsValue) {
        let status = status.as_f64().map(|s| s as u16);
        let code = code.as_string();
        let failure = BatchFailure::of(status, code.as_deref());
        self.core
            .handle_batch_failure(now(), BatchId(id as u64), failure);
    }

    /// The next thing to do, or `undefined`: `[0, batchId, ...renewalIds]` (send them as one
    /// batch), `[1, renewalId]` (send it alone), or `[2, renewalId, settlement, index, kind]`
    /// (settle it: 0 with result `index`, 1 failed by result `index`'s error as `kind`, 2 failed
    /// with its batch, 3 the reply had the wrong number of results, 4 abandoned).
    #[wasm_bindgen(skip_jsdoc)]
    pub fn poll(&mut self) -> JsValue {
        let Some(output) = self.core.poll_output() else {
            return JsValue::UNDEFINED;
        };
        let array = Array::new();
        let push = |value: f64| array.push(&JsValue::from_f64(value));
        match output {
            BatchOutput::Send(batch) => {
                push(SEND);
                push(batch.id.0 as f64);
                for renewal in batch.renewals {
                    push(renewal.0 as f64);
                }
            }
            BatchOutput::SendAlone(renewal) => {
                push(SEND_ALONE);
                push(renewal.0 as f64);
            }
            BatchOutput::Settle(renewal, settlement) => {
                push(SETTLE);
                push(renewal.0 as f64);
                let (code, index) = match settlement {
                    RenewalSettlement::Reply { index } => (REPLY, index),
                    RenewalSettlement::ElementFailed { index, kind } => {
                        push(ELEMENT_FAILED);
                        push(index as f64);
                        array.push(&JsValue::from_str(kind.as_str()));
                        return array.into();
                    }
                    RenewalSettlement::BatchFailed => (BATCH_FAILED, 0),
                    RenewalSettlement::Malformed => (MALFORMED, 0),
                    RenewalSettlement::Abandoned => (ABANDONED, 0),
                };
                push(code);
                push(index as f64);
            }
        }
        array.into()
    }

    /// The `performance.now()` reading the timer is due at, or `undefined` with nothing queued.
    #[wasm_bindgen(skip_jsdoc, js_name = dueAt)]
    pub fn due_at(&self) -> Option<f64> {
        self.core.poll_timeout().map(|due| due.0 as f64 / 1000.0)
    }

    /// How long from now until the timer is due, in whole ms within `setTimeout`'s range, or
    /// `undefined` with nothing queued.
    #[wasm_bindgen(skip_jsdoc, js_name = delayUntilDue)]
    pub fn delay_until_due(&self) -> Option<f64> {
        let due = self.core.poll_timeout()?;
        let delay = due.since(now().mono);
        Some(
            (delay.0 as f64 / 1000.0)
                .ceil()
                .min(crate::core::MAX_DURATION_MS),
        )
    }
}
