//! The package's `WorkClaimer` runs on [`ClaimMachine`], the worker slot the simulation drives:
//! one machine per slot (one per `process()` slot, one per chain of `claim()` and its
//! `claimNext` claims), all of one call driven by a [`ClaimerCore`]. This binding does the IO
//! (the grantor calls with their `AbortController`s, one timer), checks the grantor's replies and
//! classifies its errors; the JavaScript keeps the promises, the `Claim` objects and the
//! application's callbacks.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use js_sys::{Array, Function, JsString, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::AbortController;

use super::error::{config_error, get, lease_error, set};
use super::js::{js_string, random_seed, request_prefix, then_call};
use super::lease::now;
use super::reply::{claim_ms_of, claim_reply, failure_from_error, token_of};
use crate::core::{
    claim_failure_kind, claim_gone, ClaimConfig, ClaimEvent, ClaimMachine, ClaimOutput, ClaimReply,
    ClaimRequestKind, ConfigError, Failure, FailureKind, HeartbeatReply, MonoTime, RequestId,
    SettleEnd, SettleOperation, SettleReply,
};
use crate::protocol::{Token, MAX_ERROR_BYTES};

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
fn check_claimer_names(queue: JsValue, worker_id: JsValue) -> Result<(), JsValue> {
    let (queue, worker_id) = (queue.as_string(), worker_id.as_string());
    ClaimConfig::check_names(queue.as_deref(), worker_id.as_deref()).map_err(|e| config_error(&e))
}

/// The worker loop's slot count from its `concurrency` option (`undefined`: 1).
#[wasm_bindgen(skip_jsdoc, js_name = processConcurrency)]
pub fn process_concurrency(concurrency: JsValue) -> Result<u32, JsValue> {
    ClaimConfig::check_concurrency(given(&concurrency)).map_err(|e| config_error(&e))
}

/// `n` in decimal digits, exact at any size (a JavaScript number would not be past 2^53).
/// Written by hand to keep Rust's formatting machinery out of the module.
fn decimal(n: u64) -> String {
    let mut digits = [0u8; 20];
    let mut n = n;
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
    String::from(std::str::from_utf8(&digits[start..]).unwrap_or("0"))
}

/// A request id as the grantor sees it inside a `requestId`.
fn id_string(id: RequestId) -> JsString {
    JsString::from(decimal(id.0).as_str())
}

/// Whether the grantor's error says the claim is gone for good ([`claim_gone`]).
fn gone(error: &JsValue) -> bool {
    get(error, "grantorCode")
        .as_string()
        .is_some_and(|code| claim_gone(&code))
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

/// A request in flight: abandoning it aborts its signal.
struct InFlight {
    id: RequestId,
    heartbeat: bool,
    controller: AbortController,
}

/// One worker slot: a [`ClaimMachine`], the JavaScript values it passes on, and its requests in
/// flight.
struct Slot {
    machine: ClaimMachine,
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
    in_flight: Vec<InFlight>,
    /// The worker loop runs the application's `onIdle`: no timeouts meanwhile.
    paused: bool,
    /// This slot's request ids' prefix: slots count their ids alike, and a grantor answers a
    /// repeated request id with the same claim.
    prefix: JsString,
}

/// What a slot asks for once its borrow is dropped: calls into JavaScript.
enum Action {
    Send {
        method: usize,
        args: Object,
        id: RequestId,
        kind: ClaimRequestKind,
    },
    Abort(AbortController),
    Event(Object),
}

/// The grantor's queue methods, each looked up when called (as a JavaScript caller would).
const METHODS: [&str; 4] = ["claim", "heartbeat", "complete", "fail"];
/// The option a missing method is reported under.
const METHOD_FIELDS: [&str; 4] = [
    "grantor.claim",
    "grantor.heartbeat",
    "grantor.complete",
    "grantor.fail",
];
const CLAIM: usize = 0;
const HEARTBEAT: usize = 1;
const COMPLETE: usize = 2;
const FAIL: usize = 3;

struct Shared {
    grantor: JsValue,
    queue: JsValue,
    worker_id: JsValue,
    config: ClaimConfig,
    timeout_ms: f64,
    on_event: Function,
    slots: RefCell<Vec<Slot>>,
    timer: Cell<Option<ArmedTimer>>,
    /// Whether the latest step left every slot stopped with nothing in flight, as reported.
    finished: Cell<bool>,
}

/// The one timer, for the earliest deadline of any running slot; dropping it cancels it.
struct ArmedTimer {
    _timeout: Timeout,
    due: MonoTime,
}

/// Drives every slot of one `WorkClaimer` call (`claim()` and its `claimNext` chain, or one
/// `process()` loop): sends what the machines ask to the grantor with an `AbortController` each,
/// feeds the outcomes back, keeps one timer armed for the earliest deadline, and reports each
/// slot's events to `onEvent(slot, event)`. The package's `WorkClaimer` and `Claim` wrap it.
///
/// No `RefCell` borrow is held while JavaScript runs (the grantor, `abort()`'s listeners, the
/// event callback): each step takes what it needs out of the slots, drops the borrow, then acts.
#[wasm_bindgen]
pub struct ClaimerCore {
    shared: Rc<Shared>,
}

#[wasm_bindgen]
impl ClaimerCore {
    /// Checks the grantor's queue methods, `queue`, `workerId`, `claimMs`, `marginMs` and
    /// `requestTimeoutMs` (naming the bad option), then waits for slots.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(
        grantor: JsValue,
        options: JsValue,
        on_event: Function,
    ) -> Result<ClaimerCore, JsValue> {
        let config = claimer_config(&grantor, &options, random_seed())?;
        let worker_id = get(&options, "workerId");
        Ok(ClaimerCore {
            shared: Rc::new(Shared {
                grantor,
                queue: get(&options, "queue"),
                worker_id,
                timeout_ms: config.settle_timeout().as_ms_f64(),
                config,
                on_event,
                slots: RefCell::new(Vec::new()),
                timer: Cell::new(None),
                finished: Cell::new(false),
            }),
        })
    }

    /// Adds a slot and returns its number. `oneShot`: claim once, and on only through
    /// `claimNext` (`claim()`); otherwise a worker loop's slot, idling from `idleDelayMs` up to
    /// `idleDelayMaxMs` when nothing is claimable.
    #[wasm_bindgen(skip_jsdoc, js_name = addSlot)]
    pub fn add_slot(
        &self,
        one_shot: bool,
        idle_delay_ms: JsValue,
        idle_delay_max_ms: JsValue,
    ) -> Result<u32, JsValue> {
        let mut config = self.shared.config.clone();
        config.seed = random_seed();
        let config = config.with_idle_ms(given(&idle_delay_ms), given(&idle_delay_max_ms));
        let machine = if one_shot {
            ClaimMachine::one_shot(config)
        } else {
            ClaimMachine::new(config)
        };
        let mut slots = self.shared.slots.try_borrow_mut().map_err(|_| busy())?;
        slots.push(Slot {
            machine,
            item: JsValue::UNDEFINED,
            claim_error: JsValue::UNDEFINED,
            body: JsValue::UNDEFINED,
            settle_attempt: None,
            settle_value: JsValue::UNDEFINED,
            settle_error: JsValue::UNDEFINED,
            in_flight: Vec::new(),
            paused: false,
            prefix: request_prefix(&self.shared.worker_id),
        });
        Ok(slots.len() as u32 - 1)
    }

    /// Starts claiming on `slot`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn start(&self, slot: u32) {
        command(&self.shared, slot, |m, now| {
            m.start(now);
            Ok(())
        })
        .ok();
    }

    /// Claims nothing more on `slot`; a claim that arrives after this is given back.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn stop(&self, slot: u32) {
        command(&self.shared, slot, |m, now| {
            m.stop(now);
            Ok(())
        })
        .ok();
    }

    /// Settles the item in hand on `slot`: `operation` `"complete"` with `body` `{result}` or
    /// `"fail"` with `{error}`, asking for the next item with `claimNext`. The outcome arrives as
    /// the slot's `settled` event.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn settle(
        &self,
        slot: u32,
        operation: &str,
        body: JsValue,
        claim_next: bool,
    ) -> Result<(), JsValue> {
        let complete = operation == "complete";
        {
            let mut slots = self.shared.slots.try_borrow_mut().map_err(|_| busy())?;
            let slot = slots.get_mut(slot as usize).ok_or_else(busy)?;
            slot.body = body;
        }
        command(&self.shared, slot, |m, now| {
            let result = if complete {
                m.complete(now, claim_next)
            } else {
                m.fail(now, claim_next)
            };
            result.map_err(|_| lease_error("ERR_LEASE_USAGE", "no claim in hand to settle", None))
        })
    }

    /// Holds `slot`'s timeouts while the worker loop runs its `onIdle` (`paused`), or lets them
    /// go again.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn pause(&self, slot: u32, paused: bool) {
        if let Ok(mut slots) = self.shared.slots.try_borrow_mut() {
            if let Some(slot) = slots.get_mut(slot as usize) {
                slot.paused = paused;
            }
        }
        arm_timer(&self.shared);
    }

    /// The worker loop's `onIdle` has run: `slot`'s idle wait starts now.
    #[wasm_bindgen(skip_jsdoc, js_name = idleBegins)]
    pub fn idle_begins(&self, slot: u32) {
        command(&self.shared, slot, |m, now| {
            m.idle_begins(now);
            Ok(())
        })
        .ok();
    }

    /// Delivers what is due on `slot` now: a loss whose timer has not fired yet.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn check(&self, slot: u32) {
        command(&self.shared, slot, |m, now| {
            m.handle_timeout(now);
            Ok(())
        })
        .ok();
    }

    /// Whether `slot` holds claim `token` on item `item` safely now, judged on the clocks.
    #[wasm_bindgen(skip_jsdoc, js_name = safelyHeld)]
    pub fn safely_held(&self, slot: u32, item: f64, token: f64) -> bool {
        let now = now();
        self.with_slot(slot, |m| {
            held_as(m, item, token) && m.safely_held(now).is_some()
        })
    }

    /// Ms left on `slot`'s claim `token` on item `item`; 0 once it is not the claim in hand.
    #[wasm_bindgen(skip_jsdoc, js_name = remainingMs)]
    pub fn remaining_ms(&self, slot: u32, item: f64, token: f64) -> f64 {
        let now = now();
        self.with_slot(slot, |m| {
            if held_as(m, item, token) {
                m.remaining(now).as_ms_f64()
            } else {
                0.0
            }
        })
    }

    /// Whether claim `token` on item `item` is still `slot`'s claim in hand.
    #[wasm_bindgen(skip_jsdoc, js_name = inHand)]
    pub fn in_hand(&self, slot: u32, item: f64, token: f64) -> bool {
        self.with_slot(slot, |m| held_as(m, item, token))
    }

    /// Whether every slot is stopped with nothing in flight.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn finished(&self) -> bool {
        self.shared
            .slots
            .try_borrow()
            .is_ok_and(|slots| all_finished(&slots))
    }
}

impl ClaimerCore {
    /// `read` on `slot`'s machine; the default answer (false, 0) for a busy or unknown slot.
    fn with_slot<R: Default>(&self, slot: u32, read: impl FnOnce(&mut ClaimMachine) -> R) -> R {
        let Ok(mut slots) = self.shared.slots.try_borrow_mut() else {
            return R::default();
        };
        slots
            .get_mut(slot as usize)
            .map_or_else(R::default, |s| read(&mut s.machine))
    }
}

/// Checks a `WorkClaimer`'s grantor and options as [`ClaimerCore::new`] does, naming the bad one;
/// returns the heartbeat interval in ms (`claimMs / 3`).
#[wasm_bindgen(skip_jsdoc, js_name = checkClaimer)]
pub fn check_claimer(grantor: JsValue, options: JsValue) -> Result<f64, JsValue> {
    claimer_config(&grantor, &options, 0).map(|config| config.heartbeat_interval().as_ms_f64())
}

/// The grantor's queue methods first, then `queue` and `workerId`, then the timings.
fn claimer_config(grantor: &JsValue, options: &JsValue, seed: u64) -> Result<ClaimConfig, JsValue> {
    for (name, field) in METHODS.into_iter().zip(METHOD_FIELDS) {
        if !get(grantor, name).is_function() {
            return Err(config_error(&ConfigError {
                field,
                problem: "must be a function on the grantor",
            }));
        }
    }
    check_claimer_names(get(options, "queue"), get(options, "workerId"))?;
    claim_config(
        &get(options, "claimMs"),
        &get(options, "marginMs"),
        &get(options, "requestTimeoutMs"),
        seed,
    )
}

/// A busy or unknown slot: the module's rule (no borrow across JavaScript) rules it out.
fn busy() -> JsValue {
    lease_error("ERR_LEASE_USAGE", "the claimer is busy", None)
}

fn held_as(machine: &ClaimMachine, item: f64, token: f64) -> bool {
    machine
        .in_hand()
        .is_some_and(|(i, t)| i as f64 == item && t.get() as f64 == token)
}

/// Runs `step` on `slot`'s machine with the clocks read now, then acts on what it asks.
fn command(
    shared: &Rc<Shared>,
    slot: u32,
    step: impl FnOnce(&mut ClaimMachine, crate::core::Now) -> Result<(), JsValue>,
) -> Result<(), JsValue> {
    let now = now();
    let result = {
        let mut slots = shared.slots.try_borrow_mut().map_err(|_| busy())?;
        let machine = &mut slots.get_mut(slot as usize).ok_or_else(busy)?.machine;
        step(machine, now)
    };
    pump(shared, slot);
    result
}

/// Drains `slot`'s outputs into actions with the borrow held, then performs them without it,
/// then re-arms the timer.
fn pump(shared: &Rc<Shared>, slot: u32) {
    let actions = {
        let Ok(mut slots) = shared.slots.try_borrow_mut() else {
            return;
        };
        let Some(state) = slots.get_mut(slot as usize) else {
            return;
        };
        drain(shared, state)
    };
    for action in actions {
        match action {
            Action::Send {
                method,
                args,
                id,
                kind,
            } => send(shared, slot, method, &args, id, kind),
            Action::Abort(controller) => controller.abort(),
            Action::Event(event) => notify(shared, slot, &event),
        }
    }
    arm_timer(shared);
    // A step that leaves every slot stopped with nothing in flight may bring no event (a
    // give-back's reply, an abandoned claim): say so, once, for the loop that waits for it.
    let finished = shared
        .slots
        .try_borrow()
        .is_ok_and(|slots| all_finished(&slots));
    if finished != shared.finished.replace(finished) && finished {
        let event = Object::new();
        set(&event, "event", &JsValue::from_str("finished"));
        notify(shared, slot, &event);
    }
}

/// Tells the application's handler; it may call straight back in, and finds nothing borrowed.
fn notify(shared: &Shared, slot: u32, event: &Object) {
    let _ = shared
        .on_event
        .call2(&JsValue::NULL, &JsValue::from(slot), event);
}

fn all_finished(slots: &[Slot]) -> bool {
    slots
        .iter()
        .all(|s| s.machine.is_stopped() && s.in_flight.is_empty())
}

fn drain(shared: &Shared, slot: &mut Slot) -> Vec<Action> {
    let mut actions = Vec::new();
    while let Some(output) = slot.machine.poll_output() {
        match output {
            ClaimOutput::Send(request) => {
                let Some(controller) = AbortController::new().ok() else {
                    continue;
                };
                let (method, args) = request_args(shared, slot, request.id, request.kind);
                set(&args, "signal", &controller.signal());
                // In flight before the call: the grantor may stop the loop from inside it.
                slot.in_flight.push(InFlight {
                    id: request.id,
                    heartbeat: matches!(request.kind, ClaimRequestKind::Heartbeat { .. }),
                    controller,
                });
                actions.push(Action::Send {
                    method,
                    args,
                    id: request.id,
                    kind: request.kind,
                });
            }
            ClaimOutput::Abandon(id) => {
                if slot.settle_attempt == Some(id) {
                    slot.settle_error = timed_out(shared.timeout_ms);
                }
                if let Some(at) = slot.in_flight.iter().position(|r| r.id == id) {
                    actions.push(Action::Abort(slot.in_flight.swap_remove(at).controller));
                }
            }
            ClaimOutput::Event(event) => {
                if let ClaimEvent::SettleEnded { .. } = event {
                    // The core ignores any reply to the settled claim's heartbeats: stop waiting
                    // for them.
                    let (heartbeats, rest) = std::mem::take(&mut slot.in_flight)
                        .into_iter()
                        .partition(|r: &InFlight| r.heartbeat);
                    slot.in_flight = rest;
                    for request in heartbeats {
                        actions.push(Action::Abort(request.controller));
                    }
                }
                if let Some(object) = event_object(slot, event) {
                    actions.push(Action::Event(object));
                }
            }
        }
    }
    actions
}

/// The grantor method and its arguments for a request.
fn request_args(
    shared: &Shared,
    slot: &mut Slot,
    id: RequestId,
    kind: ClaimRequestKind,
) -> (usize, Object) {
    let args = Object::new();
    set(&args, "queue", &shared.queue);
    set(&args, "worker", &shared.worker_id);
    let claim = |args: &Object, item: u64, token: Token| {
        set(args, "itemId", &JsValue::from_f64(item as f64));
        set(args, "token", &JsValue::from_f64(token.get() as f64));
    };
    match kind {
        ClaimRequestKind::Claim { claim_ms } => {
            set(&args, "claimMs", &JsValue::from_f64(claim_ms as f64));
            set(&args, "requestId", &slot.prefix.concat(&id_string(id)));
            (CLAIM, args)
        }
        ClaimRequestKind::Heartbeat {
            item,
            token,
            claim_ms,
        } => {
            claim(&args, item, token);
            set(&args, "claimMs", &JsValue::from_f64(claim_ms as f64));
            (HEARTBEAT, args)
        }
        ClaimRequestKind::Settle {
            operation,
            item,
            token,
            next,
        } => {
            slot.settle_attempt = Some(id);
            slot.settle_value = JsValue::UNDEFINED;
            slot.settle_error = JsValue::UNDEFINED;
            claim(&args, item, token);
            // `{result}` or `{error}`, as the application gave it.
            let _ = Object::assign(&args, slot.body.unchecked_ref());
            if let Some(next) = next {
                let claim_next = Object::new();
                set(
                    &claim_next,
                    "claimMs",
                    &JsValue::from_f64(next.claim_ms as f64),
                );
                set(
                    &claim_next,
                    "requestId",
                    &slot.prefix.concat(&id_string(next.request)),
                );
                set(&args, "claimNext", &claim_next);
            }
            let method = if operation == SettleOperation::Complete {
                COMPLETE
            } else {
                FAIL
            };
            (method, args)
        }
        ClaimRequestKind::GiveBack { item, token } => {
            claim(&args, item, token);
            // What a claim given back unused is reported as, so its item is claimable at once.
            let error = Object::new();
            set(&error, "name", &JsValue::from_str("ClaimReleased"));
            set(
                &error,
                "message",
                &JsValue::from_str("the claim was given back unused"),
            );
            set(&args, "error", &error);
            (FAIL, args)
        }
    }
}

/// Calls the grantor (user code, no borrow held) and feeds its outcome back to `slot`.
fn send(
    shared: &Rc<Shared>,
    slot: u32,
    method: usize,
    args: &Object,
    id: RequestId,
    kind: ClaimRequestKind,
) {
    let function = get(&shared.grantor, METHODS[method]);
    let call = match function.dyn_ref::<Function>() {
        Some(function) => function.call1(&shared.grantor, args),
        None => Err(js_sys::TypeError::new("the grantor's queue method is not a function").into()),
    };
    let promise = match call {
        Ok(value) => Promise::resolve(&value),
        Err(error) => Promise::reject(&error),
    };
    let shared = Rc::clone(shared);
    let on_settled = Closure::once_into_js(move |outcomes: JsValue| {
        let outcome = Reflect::get_u32(&outcomes, 0).unwrap_or(JsValue::UNDEFINED);
        let ok = get(&outcome, "status").as_string().as_deref() == Some("fulfilled");
        let value = get(&outcome, if ok { "value" } else { "reason" });
        let now = now();
        {
            let Ok(mut slots) = shared.slots.try_borrow_mut() else {
                return;
            };
            let Some(state) = slots.get_mut(slot as usize) else {
                return;
            };
            // An abandoned request's outcome is nobody's business any more.
            let Some(at) = state.in_flight.iter().position(|r| r.id == id) else {
                return;
            };
            state.in_flight.swap_remove(at);
            match kind {
                ClaimRequestKind::Claim { .. } => claim_outcome(state, now, id, ok, value),
                ClaimRequestKind::Heartbeat { .. } => {
                    let reply = heartbeat_reply(ok, &value);
                    state.machine.handle_heartbeat_reply(now, id, reply);
                }
                ClaimRequestKind::Settle { .. } => settle_outcome(state, now, id, ok, value),
                // Nothing waits on a give-back: the grantor's token check decides.
                ClaimRequestKind::GiveBack { .. } => {}
            }
        }
        pump(&shared, slot);
    });
    let _ = then_call(&Promise::all_settled(&Array::of1(&promise)), &on_settled);
}

fn claim_outcome(state: &mut Slot, now: crate::core::Now, id: RequestId, ok: bool, value: JsValue) {
    let reply = if ok {
        state.claim_error = JsValue::UNDEFINED;
        let (reply, item) = claim_reply(&value);
        state.item = item;
        reply
    } else {
        let failure = failure_from_error(&value);
        state.claim_error = value;
        ClaimReply::Failed(failure)
    };
    state.machine.handle_claim_reply(now, id, reply);
}

/// A fulfilled settle attempt took effect; its `next`, when there is one, is the next claim's
/// reply.
fn settle_outcome(
    state: &mut Slot,
    now: crate::core::Now,
    id: RequestId,
    ok: bool,
    value: JsValue,
) {
    if state.settle_attempt != Some(id) {
        return;
    }
    let reply = if ok {
        let next = get(&value, "next");
        let next = if next.is_undefined() {
            None
        } else {
            state.claim_error = JsValue::UNDEFINED;
            let (reply, item) = claim_reply(&next);
            state.item = item;
            Some(reply)
        };
        state.settle_value = value;
        SettleReply::Settled { next }
    } else {
        let reply = settle_failure(&value);
        state.settle_error = value;
        reply
    };
    state.machine.handle_settle_reply(now, id, reply);
}

fn arm_timer(shared: &Rc<Shared>) {
    let due = {
        let Ok(slots) = shared.slots.try_borrow() else {
            return;
        };
        slots
            .iter()
            .filter(|s| !s.paused)
            .filter_map(|s| s.machine.poll_timeout())
            .min()
    };
    let previous = shared.timer.take();
    if let Some(previous) = previous {
        if Some(previous.due) == due {
            shared.timer.set(Some(previous));
            return;
        }
    }
    let Some(due) = due else { return };
    let delay_ms = (due.since(now().mono).0 as f64 / 1000.0).clamp(0.0, 2_147_483_647.0);
    let weak = Rc::downgrade(shared);
    let timeout = Timeout::new(delay_ms.ceil() as u32, move || on_timer(&weak));
    shared.timer.set(Some(ArmedTimer {
        _timeout: timeout,
        due,
    }));
}

fn on_timer(weak: &Weak<Shared>) {
    let Some(shared) = weak.upgrade() else { return };
    drop(shared.timer.take());
    // Trust the clock, not the timer: it may have fired late.
    let now = now();
    let count = {
        let Ok(mut slots) = shared.slots.try_borrow_mut() else {
            return;
        };
        for slot in slots.iter_mut().filter(|s| !s.paused) {
            slot.machine.handle_timeout(now);
        }
        slots.len()
    };
    for slot in 0..count {
        pump(&shared, slot as u32);
    }
}

fn timed_out(timeout_ms: f64) -> JsValue {
    let mut message = String::from("settle attempt timed out after ");
    message.push_str(&decimal(timeout_ms.max(0.0) as u64));
    message.push_str(" ms");
    grantor_error(&message, FailureKind::TimedOut.as_str())
}

/// `claim <token> on item <item>`, for the messages that name a claim.
fn claim_name(token: Token, item: u64) -> String {
    let mut text = String::from("claim ");
    text.push_str(&decimal(token.get()));
    text.push_str(" on item ");
    text.push_str(&decimal(item));
    text
}

/// The event object for `event`, or `None` for one the application does not hear.
fn event_object(slot: &mut Slot, event: ClaimEvent) -> Option<Object> {
    let out = Object::new();
    let name = match event {
        ClaimEvent::Claimed { token, .. } => {
            set(&out, "item", &slot.item);
            set(&out, "token", &JsValue::from_f64(token.get() as f64));
            "claimed"
        }
        ClaimEvent::NothingClaimable => "empty",
        ClaimEvent::ClaimFailed(failure) => {
            let error = if slot.claim_error.is_undefined() {
                let kind = claim_failure_kind(failure.kind.as_str());
                let mut message = String::from("claim failed: ");
                message.push_str(kind);
                grantor_error(&message, kind)
            } else {
                std::mem::replace(&mut slot.claim_error, JsValue::UNDEFINED)
            };
            set(&out, "error", &error);
            "claimFailed"
        }
        ClaimEvent::HeartbeatFailed(_) => return None,
        ClaimEvent::Lost { reason, .. } => {
            let mut message = String::from("lease lost: ");
            message.push_str(reason.as_str());
            let error = lease_error("ERR_LEASE_LOST", &message, None);
            set(&error, "reason", &JsValue::from_str(reason.as_str()));
            set(&out, "error", &error);
            "lost"
        }
        ClaimEvent::SettleEnded {
            item,
            token,
            operation,
            end,
        } => {
            slot.settle_attempt = None;
            slot.body = JsValue::UNDEFINED;
            let value = std::mem::replace(&mut slot.settle_value, JsValue::UNDEFINED);
            let error = std::mem::replace(&mut slot.settle_error, JsValue::UNDEFINED);
            match end {
                SettleEnd::Settled => set(&out, "reply", &value),
                SettleEnd::NotHeld => {
                    let mut message = claim_name(token, item);
                    message.push_str(" is not safely held; not sent");
                    set(
                        &out,
                        "error",
                        &lease_error("ERR_CLAIM_LOST", &message, None),
                    );
                }
                SettleEnd::Stale => {
                    let mut message = String::from(operation.as_str());
                    message.push_str(": the grantor no longer holds this claim");
                    let stale = lease_error("ERR_CLAIM_STALE", &message, None);
                    set(&stale, "cause", &error);
                    set(&out, "error", &stale);
                }
                _ => set(&out, "error", &error),
            }
            set(&out, "end", &JsValue::from_str(end.as_str()));
            "settled"
        }
    };
    set(&out, "event", &JsValue::from_str(name));
    Some(out)
}

/// What `fail(error)` stores for an application's `error`: an `Error` (or anything with a
/// `message`) as `{name, message, code?}`, another value as itself when it is JSON within the
/// text bound, else its string form. Each text is cut to [`MAX_ERROR_TEXT`] UTF-16 units and the
/// whole is halved until, as JSON, it fits what the grantor stores ([`MAX_ERROR_BYTES`]):
/// escaping can make a text up to six times longer, and a failure must never be refused for its
/// description.
#[wasm_bindgen(skip_jsdoc, js_name = describeFailure)]
pub fn describe_failure(error: JsValue) -> JsValue {
    let has_message = |value: &JsValue| {
        value.is_object() && Reflect::has(value, &"message".into()).unwrap_or(false)
    };
    let mut described: JsValue = if error.is_instance_of::<js_sys::Error>() || has_message(&error) {
        let object = Object::new();
        let name = get(&error, "name");
        let name = if name.is_undefined() || name.is_null() {
            String::from("Error")
        } else {
            string_of(&name)
        };
        set(&object, "name", &cut(&name, MAX_ERROR_TEXT).into());
        let message = string_of(&get(&error, "message"));
        set(&object, "message", &cut(&message, MAX_ERROR_TEXT).into());
        if let Some(code) = get(&error, "code").as_string() {
            set(&object, "code", &cut(&code, MAX_ERROR_TEXT).into());
        }
        object.into()
    } else {
        match js_sys::JSON::stringify(&error) {
            Ok(text) if !text.is_undefined() && text.length() as usize <= MAX_ERROR_TEXT => error,
            // Not JSON (cycles, BigInt, undefined) or too long: its string form.
            _ => cut(&string_of(&error), MAX_ERROR_TEXT).into(),
        }
    };
    while stored_bytes(&described) > MAX_ERROR_BYTES {
        described = if let Some(text) = described.as_string() {
            halve(&text).into()
        } else if has_message(&described) {
            let object = Object::new();
            for key in ["name", "message", "code"] {
                if let Some(text) = get(&described, key).as_string() {
                    set(&object, key, &halve(&text).into());
                }
            }
            object.into()
        } else {
            let text = js_sys::JSON::stringify(&described)
                .ok()
                .and_then(|text| text.as_string())
                .unwrap_or_default();
            halve(&text).into()
        };
    }
    described
}

/// Failure reports are stored with the item: each text of one is cut to this many UTF-16 units.
const MAX_ERROR_TEXT: usize = 4096;

/// `String(value)`; a value that cannot be turned into a string (a Symbol) is described as such.
fn string_of(value: &JsValue) -> String {
    js_string(value)
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_else(|| String::from("(not representable as text)"))
}

/// The bytes `value` takes as JSON text, as the grantor stores it (no whitespace).
fn stored_bytes(value: &JsValue) -> usize {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .map_or(0, |text| text.len())
}

fn halve(text: &str) -> String {
    cut(text, text.encode_utf16().count() / 2)
}

/// The first `length` UTF-16 units of `text`, never ending inside a character. (Lone
/// surrogates, which the grantor's JSON parser refuses escaped, became U+FFFD when the text
/// crossed into Rust.)
fn cut(text: &str, length: usize) -> String {
    let mut units = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > length {
            break;
        }
        end = at + c.len_utf8();
    }
    text.get(..end).unwrap_or_default().to_owned()
}
