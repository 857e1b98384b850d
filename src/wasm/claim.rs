//! The package's `WorkClaimer` runs on [`ClaimMachine`], the worker slot the simulation drives:
//! one [`ClaimCore`] per slot (one per `process()` slot, one per chain of `claim()` and its
//! `claimNext` claims). This binding checks the grantor's replies and classifies its errors;
//! the JavaScript keeps the IO (the grantor calls, one timer, promises) and the values the
//! machine only passes on (items, settle bodies and replies, the grantor's errors).

use js_sys::{JsString, Object};
use wasm_bindgen::prelude::*;

use super::error::{config_error, get, lease_error, set};
use super::js::{random_seed, request_prefix};
use super::lease::now;
use super::reply::failure_from_error;
use crate::core::{
    claim_failure_kind, claim_gone, is_item_id, ClaimConfig, ClaimEvent, ClaimMachine, ClaimOutput,
    ClaimReply, ClaimRequestKind, ClaimUsageError, Failure, FailureKind, HeartbeatReply, RequestId,
    SettleReply,
};
use crate::protocol::Token;

/// Validates `claimMs`, `marginMs` and `requestTimeoutMs` by the holder's rules, under the
/// claimer's option names; returns the heartbeat interval in ms.
#[wasm_bindgen(skip_jsdoc, js_name = claimHeartbeatMs)]
pub fn claim_heartbeat_ms(
    claim_ms: JsValue,
    margin_ms: JsValue,
    request_timeout_ms: JsValue,
) -> Result<f64, JsValue> {
    claim_config(&claim_ms, &margin_ms, &request_timeout_ms, 0)
        .map(|config| config.heartbeat_interval().as_ms_f64())
}

fn number(v: &JsValue) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// A number option, `None` when not given.
fn given(v: &JsValue) -> Option<f64> {
    (!v.is_undefined()).then(|| number(v))
}

fn claim_config(
    claim_ms: &JsValue,
    margin_ms: &JsValue,
    request_timeout_ms: &JsValue,
    seed: u64,
) -> Result<ClaimConfig, JsValue> {
    ClaimConfig::from_ms(
        number(claim_ms),
        number(margin_ms),
        given(request_timeout_ms),
        seed,
    )
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
    ClaimConfig::check_concurrency(given(&concurrency)).map_err(|e| config_error(&e))
}

/// A request id as JavaScript sees it: its decimal digits, exact at any size (a number would not
/// be past 2^53). Written by hand to keep Rust's formatting machinery out of the module.
fn id_string(id: RequestId) -> JsString {
    let mut digits = [0u8; 20];
    let mut n = id.0;
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    JsString::from(std::str::from_utf8(&digits[start..]).unwrap_or("0"))
}

/// The id [`id_string`] wrote; `None` for anything else, whose reply is then ignored.
fn parse_id(id: &JsValue) -> Option<RequestId> {
    let text = id.as_string()?;
    let mut n: u64 = 0;
    if text.is_empty() {
        return None;
    }
    for b in text.bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(RequestId(n))
}

/// Whether the grantor's error says the claim is gone for good ([`claim_gone`]).
fn gone(error: &JsValue) -> bool {
    get(error, "grantorCode")
        .as_string()
        .is_some_and(|code| claim_gone(&code))
}

fn token_of(reply: &JsValue) -> Option<Token> {
    get(reply, "token")
        .as_f64()
        .and_then(|n| Token::from_f64(n).ok())
}

/// `claimMs` of a reply: absent, or a positive whole number of ms; `Err` for anything else.
fn claim_ms_of(reply: &JsValue) -> Result<Option<u64>, ()> {
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

/// A claim reply (`{claimed: true, item: {id, …}, token, claimMs?}` or `{claimed: false}`) and
/// its item. Anything else is a malformed reply: never a claim.
fn claim_reply(reply: &JsValue) -> (ClaimReply, JsValue) {
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

/// A heartbeat's outcome: `{extended: true, token, claimMs?}` extends; `{extended: false}` or a
/// rejection saying the claim is gone ends the claim; another rejection is retried.
fn heartbeat_reply(ok: bool, value: &JsValue) -> HeartbeatReply {
    if !ok {
        if gone(value) {
            return HeartbeatReply::Stale;
        }
        return HeartbeatReply::Failed(failure_from_error(value));
    }
    let malformed = HeartbeatReply::Failed(Failure::of(FailureKind::Malformed));
    match get(value, "extended").as_bool() {
        Some(true) => match (token_of(value), claim_ms_of(value)) {
            (Some(token), Ok(claim_ms)) => HeartbeatReply::Extended { token, claim_ms },
            _ => malformed,
        },
        Some(false) => HeartbeatReply::Stale,
        None => malformed,
    }
}

/// A settle attempt's rejection: a claim gone ([`claim_gone`]) is definitive; an `ERR_GRANTOR`
/// failure may be retried unless the request itself was refused or the reply was malformed;
/// anything else is not a grantor failure and is never retried.
fn settle_failure(error: &JsValue) -> SettleReply {
    if gone(error) {
        return SettleReply::Stale;
    }
    if get(error, "code").as_string().as_deref() != Some("ERR_GRANTOR") {
        return SettleReply::Error;
    }
    SettleReply::Failed(failure_from_error(error))
}

fn grantor_error(message: &str, kind: &str) -> JsValue {
    let error = lease_error("ERR_GRANTOR", message, None);
    set(&error, "kind", &JsValue::from_str(kind));
    error
}

/// One worker slot: a [`ClaimMachine`] and the JavaScript values it passes on.
///
/// Commands read the clocks and act; replies come back by request id (`claimReply`,
/// `heartbeatReply`, `settleReply` with whether the call fulfilled and its value or reason).
/// After each, drain `pollOutput()`: `{send: {id, kind, …}}` to call the grantor with,
/// `{abandon: id}` to abort, or `{event, …}`; then arm one timer for `pollTimeoutMs()`.
#[wasm_bindgen]
pub struct ClaimCore {
    machine: ClaimMachine,
    prefix: JsString,
    timeout_ms: f64,
    /// The item of the latest valid claim reply, for the `claimed` event it leads to.
    item: JsValue,
    /// The rejection of the latest claim request, for the `claimFailed` event it leads to.
    claim_error: JsValue,
    /// The body of the settlement under way (`{result}` or `{error}`).
    body: JsValue,
    /// The settle attempt in flight, whose abandonment is a timeout.
    settle_attempt: Option<RequestId>,
    /// The latest settle attempt's fulfilled value, and its rejection (or timeout).
    settle_value: JsValue,
    settle_error: JsValue,
}

#[wasm_bindgen]
impl ClaimCore {
    /// Validates the options as [`claim_heartbeat_ms`] does. `oneShot`: claim once, and on only
    /// through `claimNext` (`WorkClaimer.claim()`); otherwise the worker loop's slot.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        worker_id: JsValue,
        claim_ms: JsValue,
        margin_ms: JsValue,
        request_timeout_ms: JsValue,
        idle_delay_ms: JsValue,
        idle_delay_max_ms: JsValue,
        one_shot: bool,
    ) -> Result<ClaimCore, JsValue> {
        let config = claim_config(&claim_ms, &margin_ms, &request_timeout_ms, random_seed())?
            .with_idle_ms(given(&idle_delay_ms), given(&idle_delay_max_ms));
        let timeout_ms = config.settle_timeout().as_ms_f64();
        let machine = if one_shot {
            ClaimMachine::one_shot(config)
        } else {
            ClaimMachine::new(config)
        };
        Ok(ClaimCore {
            machine,
            prefix: request_prefix(&worker_id),
            timeout_ms,
            item: JsValue::UNDEFINED,
            claim_error: JsValue::UNDEFINED,
            body: JsValue::UNDEFINED,
            settle_attempt: None,
            settle_value: JsValue::UNDEFINED,
            settle_error: JsValue::UNDEFINED,
        })
    }

    /// Starts claiming.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn start(&mut self) {
        self.machine.start(now());
    }

    /// Claims nothing more; a claim that arrives after this is given back.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn stop(&mut self) {
        self.machine.stop(now());
    }

    /// Completes the item in hand with `body` (`{result}`), asking for the next with `claimNext`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn complete(&mut self, body: JsValue, claim_next: bool) -> Result<(), JsValue> {
        self.body = body;
        usage(self.machine.complete(now(), claim_next))
    }

    /// Fails the item in hand with `body` (`{error}`), asking for the next with `claimNext`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn fail(&mut self, body: JsValue, claim_next: bool) -> Result<(), JsValue> {
        self.body = body;
        usage(self.machine.fail(now(), claim_next))
    }

    /// Whether the item in hand is safely held now, judged on the clocks.
    #[wasm_bindgen(skip_jsdoc, js_name = safelyHeld)]
    pub fn safely_held(&mut self) -> bool {
        self.machine.safely_held(now()).is_some()
    }

    /// Ms left on the claim in hand before the grantor may hand its item to another worker.
    #[wasm_bindgen(skip_jsdoc, js_name = remainingMs)]
    pub fn remaining_ms(&mut self) -> f64 {
        self.machine.remaining(now()).as_ms_f64()
    }

    /// The item id in hand, until its settlement ends.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = itemId)]
    pub fn item_id(&self) -> Option<f64> {
        self.machine.in_hand().map(|(item, _)| item as f64)
    }

    /// The claim token in hand, until its settlement ends.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn token(&self) -> Option<f64> {
        self.machine.in_hand().map(|(_, token)| token.get() as f64)
    }

    /// Whether the slot is stopped (a cancelled claim may still be in flight).
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn stopped(&self) -> bool {
        self.machine.is_stopped()
    }

    /// The worker loop's idle callback has run: the idle wait starts now.
    #[wasm_bindgen(skip_jsdoc, js_name = idleBegins)]
    pub fn idle_begins(&mut self) {
        self.machine.idle_begins(now());
    }

    /// The outcome of claim request `id`.
    #[wasm_bindgen(skip_jsdoc, js_name = claimReply)]
    pub fn claim_reply(&mut self, id: JsValue, ok: bool, value: JsValue) {
        let Some(id) = parse_id(&id) else { return };
        let reply = if ok {
            self.claim_error = JsValue::UNDEFINED;
            let (reply, item) = claim_reply(&value);
            self.item = item;
            reply
        } else {
            let failure = failure_from_error(&value);
            self.claim_error = value;
            ClaimReply::Failed(failure)
        };
        self.machine.handle_claim_reply(now(), id, reply);
    }

    /// The outcome of heartbeat `id`.
    #[wasm_bindgen(skip_jsdoc, js_name = heartbeatReply)]
    pub fn heartbeat_reply(&mut self, id: JsValue, ok: bool, value: JsValue) {
        let Some(id) = parse_id(&id) else { return };
        let reply = heartbeat_reply(ok, &value);
        self.machine.handle_heartbeat_reply(now(), id, reply);
    }

    /// The outcome of settle attempt `id`. A fulfilled one took effect; its `next`, when there is
    /// one, is the next claim's reply.
    #[wasm_bindgen(skip_jsdoc, js_name = settleReply)]
    pub fn settle_reply(&mut self, id: JsValue, ok: bool, value: JsValue) {
        let Some(id) = parse_id(&id) else { return };
        if self.settle_attempt != Some(id) {
            return;
        }
        let reply = if ok {
            let next = get(&value, "next");
            let next = if next.is_undefined() {
                None
            } else {
                self.claim_error = JsValue::UNDEFINED;
                let (reply, item) = claim_reply(&next);
                self.item = item;
                Some(reply)
            };
            self.settle_value = value;
            SettleReply::Settled { next }
        } else {
            let reply = settle_failure(&value);
            self.settle_error = value;
            reply
        };
        self.machine.handle_settle_reply(now(), id, reply);
    }

    /// Acts on everything due now; also how a host delivers a loss whose timer has not fired.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn timeout(&mut self) {
        self.machine.handle_timeout(now());
    }

    /// Ms until `timeout()` is due, or `undefined` when nothing is.
    #[wasm_bindgen(skip_jsdoc, js_name = pollTimeoutMs)]
    pub fn poll_timeout_ms(&self) -> Option<f64> {
        let due = self.machine.poll_timeout()?;
        Some(due.since(now().mono).as_ms_f64())
    }

    /// The next output, or `undefined` when drained.
    #[wasm_bindgen(skip_jsdoc, js_name = pollOutput)]
    pub fn poll_output(&mut self) -> JsValue {
        loop {
            let Some(output) = self.machine.poll_output() else {
                return JsValue::UNDEFINED;
            };
            let out = Object::new();
            match output {
                ClaimOutput::Send(request) => {
                    let send = self.send(request.id, request.kind);
                    set(&out, "send", &send);
                }
                ClaimOutput::Abandon(id) => {
                    if self.settle_attempt == Some(id) {
                        self.settle_error = self.timed_out();
                    }
                    set(&out, "abandon", &id_string(id));
                }
                ClaimOutput::Event(event) => {
                    if !self.event(&out, event) {
                        continue;
                    }
                }
            }
            return out.into();
        }
    }
}

/// A settlement without a claim in hand, as `ERR_LEASE_USAGE`.
fn usage(result: Result<(), ClaimUsageError>) -> Result<(), JsValue> {
    result.map_err(|_| lease_error("ERR_LEASE_USAGE", "no claim in hand to settle", None))
}

impl ClaimCore {
    fn timed_out(&self) -> JsValue {
        let mut message = String::from("settle attempt timed out after ");
        message.push_str(
            &js_sys::Number::from(self.timeout_ms)
                .to_string_with_radix(10)
                .map(String::from)
                .unwrap_or_default(),
        );
        message.push_str(" ms");
        grantor_error(&message, FailureKind::TimedOut.as_str())
    }

    fn send(&mut self, id: RequestId, kind: ClaimRequestKind) -> Object {
        let send = Object::new();
        set(&send, "id", &id_string(id));
        let (name, item, token, claim_ms) = match kind {
            ClaimRequestKind::Claim { claim_ms } => {
                set(&send, "requestId", &self.prefix.concat(&id_string(id)));
                ("claim", None, None, Some(claim_ms))
            }
            ClaimRequestKind::Heartbeat {
                item,
                token,
                claim_ms,
            } => ("heartbeat", Some(item), Some(token), Some(claim_ms)),
            ClaimRequestKind::Settle {
                operation,
                item,
                token,
                next,
            } => {
                self.settle_attempt = Some(id);
                self.settle_value = JsValue::UNDEFINED;
                self.settle_error = JsValue::UNDEFINED;
                set(&send, "operation", &JsValue::from_str(operation.as_str()));
                set(&send, "body", &self.body);
                if let Some(next) = next {
                    let claim_next = Object::new();
                    set(
                        &claim_next,
                        "claimMs",
                        &JsValue::from_f64(next.claim_ms as f64),
                    );
                    let request_id = self.prefix.concat(&id_string(next.request));
                    set(&claim_next, "requestId", &request_id);
                    set(&send, "claimNext", &claim_next);
                }
                ("settle", Some(item), Some(token), None)
            }
            ClaimRequestKind::GiveBack { item, token } => {
                ("giveBack", Some(item), Some(token), None)
            }
        };
        set(&send, "kind", &JsValue::from_str(name));
        if let Some(item) = item {
            set(&send, "itemId", &JsValue::from_f64(item as f64));
        }
        if let Some(token) = token {
            set(&send, "token", &JsValue::from_f64(token.get() as f64));
        }
        if let Some(claim_ms) = claim_ms {
            set(&send, "claimMs", &JsValue::from_f64(claim_ms as f64));
        }
        send
    }

    /// Fills `out` with `event`; false for one the JavaScript does not act on.
    fn event(&mut self, out: &Object, event: ClaimEvent) -> bool {
        let name = match event {
            ClaimEvent::Claimed { token, .. } => {
                set(out, "item", &self.item);
                set(out, "token", &JsValue::from_f64(token.get() as f64));
                "claimed"
            }
            ClaimEvent::NothingClaimable => "empty",
            ClaimEvent::ClaimFailed(failure) => {
                let error = if self.claim_error.is_undefined() {
                    let kind = claim_failure_kind(failure.kind.as_str());
                    let mut message = String::from("claim failed: ");
                    message.push_str(kind);
                    grantor_error(&message, kind)
                } else {
                    self.claim_error.clone()
                };
                self.claim_error = JsValue::UNDEFINED;
                set(out, "error", &error);
                "claimFailed"
            }
            ClaimEvent::HeartbeatFailed(_) => return false,
            ClaimEvent::Lost { reason, .. } => {
                set(out, "reason", &JsValue::from_str(reason.as_str()));
                "lost"
            }
            ClaimEvent::SettleEnded { operation, end, .. } => {
                self.settle_attempt = None;
                set(out, "operation", &JsValue::from_str(operation.as_str()));
                set(out, "end", &JsValue::from_str(end.as_str()));
                set(out, "reply", &self.settle_value);
                set(out, "error", &self.settle_error);
                self.body = JsValue::UNDEFINED;
                "settled"
            }
        };
        set(out, "event", &JsValue::from_str(name));
        true
    }
}
