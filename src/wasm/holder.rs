//! `HolderCore`: drives a core [`Holder`] with JavaScript's timers and a JavaScript grantor.
//!
//! The rule that keeps this sound: **no `RefCell` borrow is held while JavaScript runs**. Every
//! step borrows the core, applies one input, drains the outputs into a local list, drops the
//! borrow, and only then calls the grantor, the event callback or the timer functions. Those may
//! call straight back into the holder (an `onLeaseLost` that re-acquires, a grantor that answers
//! synchronously), and they find the core free.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::error::{config_error, get, lease_error, set};
use super::js::{clear_timeout, now_ms, set_timeout, AbortController};
use super::lease::now_or_expired;
use super::reply::{grant_outcome, renew_outcome};
use crate::core::{
    AcquireFailure, ConfigError, Event, Failure, FailureKind, Holder, HolderConfig,
    HolderOptionsMs, Micros, MonoTime, Now, Output, Phase, Reply, Request, RequestId, RequestKind,
};

/// The JavaScript side of a holder: what it talks to and whom it tells.
struct Shared {
    core: RefCell<Holder>,
    grantor: JsValue,
    grant: Function,
    renew: Function,
    release: Option<Function>,
    resource: String,
    holder_id: String,
    request_prefix: js_sys::JsString,
    on_event: Function,
    timer: RefCell<Option<ArmedTimer>>,
    timer_callback: RefCell<Option<Closure<dyn FnMut()>>>,
    in_flight: RefCell<Vec<(RequestId, AbortController)>>,
    last_release: RefCell<Option<Promise>>,
    disposed: Cell<bool>,
}

struct ArmedTimer {
    handle: JsValue,
    due: MonoTime,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // A timer left armed would call into a closure that no longer exists.
        if let Some(timer) = self.timer.get_mut().take() {
            clear_timeout(&timer.handle);
        }
        for (_, controller) in self.in_flight.get_mut().drain(..) {
            controller.abort();
        }
    }
}

/// Reads the clocks. A host whose clocks return garbage gets a reading far in the future on the
/// wall clock, which makes every lease look expired: failing safe.
fn now() -> Now {
    let (mono, wall) = now_ms();
    now_or_expired(mono, wall).unwrap_or(Now::from_micros(0, u64::MAX / 2))
}

/// Drives one lease holder. The package's `LeaseHolder` class wraps it.
#[wasm_bindgen]
pub struct HolderCore {
    shared: Rc<Shared>,
}

fn string_option(config: &JsValue, key: &'static str) -> Result<String, JsValue> {
    match get(config, key).as_string() {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(config_error(&ConfigError {
            field: key,
            problem: "must be a non-empty string",
        })),
    }
}

fn number_option(config: &JsValue, key: &'static str) -> Result<Option<f64>, JsValue> {
    let value = get(config, key);
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) => Ok(Some(n)),
        None => Err(config_error(&ConfigError {
            field: key,
            problem: "must be a number",
        })),
    }
}

fn required_number(config: &JsValue, key: &'static str) -> Result<f64, JsValue> {
    number_option(config, key)?.ok_or_else(|| {
        config_error(&ConfigError {
            field: key,
            problem: "is required",
        })
    })
}

fn method(grantor: &JsValue, name: &'static str) -> Option<Function> {
    get(grantor, name).dyn_into::<Function>().ok()
}

/// `holderId:<random>:`, so request ids stay unique across holders and process restarts. Built
/// with JavaScript's number formatting to keep Rust's formatting machinery out of the module.
fn request_prefix(holder_id: &str) -> js_sys::JsString {
    let random = js_sys::Number::from(js_sys::Math::random() * 9_007_199_254_740_991.0)
        .to_string_with_radix(36)
        .unwrap_or_else(|_| js_sys::JsString::from("0"));
    js_sys::JsString::from(holder_id)
        .concat(&JsValue::from_str(":"))
        .concat(&random)
        .concat(&JsValue::from_str(":"))
}

fn random_u64() -> u64 {
    // Jitter only needs to differ between holders; Math.random is everywhere, crypto is not.
    let high = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    let low = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    (high << 32) | low
}

#[wasm_bindgen]
impl HolderCore {
    /// Validates the configuration (errors name the option) and prepares the holder.
    #[wasm_bindgen(constructor)]
    pub fn new(
        grantor: JsValue,
        config: JsValue,
        on_event: Function,
    ) -> Result<HolderCore, JsValue> {
        if !config.is_object() {
            return Err(config_error(&ConfigError {
                field: "config",
                problem: "must be an object",
            }));
        }
        let missing_grantor = |name: &'static str| {
            config_error(&ConfigError {
                field: name,
                problem: "must be a function on the grantor",
            })
        };
        let grant = method(&grantor, "grant").ok_or_else(|| missing_grantor("grantor.grant"))?;
        let renew = method(&grantor, "renew").ok_or_else(|| missing_grantor("grantor.renew"))?;
        let resource = string_option(&config, "resource")?;
        let holder_id = string_option(&config, "holderId")?;
        let options = HolderOptionsMs {
            renew_interval_ms: number_option(&config, "renewIntervalMs")?,
            request_timeout_ms: number_option(&config, "requestTimeoutMs")?,
            retry_delay_ms: number_option(&config, "retryDelayMs")?,
            retry_delay_max_ms: number_option(&config, "retryDelayMaxMs")?,
        };
        let lease_ms = required_number(&config, "leaseMs")?;
        let margin_ms = required_number(&config, "marginMs")?;
        let core = HolderConfig::from_ms(lease_ms, margin_ms, options, random_u64())
            .map_err(|e| config_error(&e))?;
        let shared = Rc::new(Shared {
            core: RefCell::new(Holder::new(core)),
            release: method(&grantor, "release"),
            grantor,
            grant,
            renew,
            request_prefix: request_prefix(&holder_id),
            resource,
            holder_id,
            on_event,
            timer: RefCell::new(None),
            timer_callback: RefCell::new(None),
            in_flight: RefCell::new(Vec::new()),
            last_release: RefCell::new(None),
            disposed: Cell::new(false),
        });
        let weak = Rc::downgrade(&shared);
        let callback = Closure::<dyn FnMut()>::new(move || on_timer(&weak));
        *shared.timer_callback.borrow_mut() = Some(callback);
        Ok(HolderCore { shared })
    }

    /// Starts acquiring; the outcome arrives as an `acquired` or `acquireFailed` event. With
    /// `campaign`, retries until granted or cancelled.
    pub fn acquire(&self, campaign: bool) -> Result<(), JsValue> {
        let result = self.shared.core.borrow_mut().acquire(now(), campaign);
        drive(&self.shared);
        result.map_err(|e| {
            let message = match e {
                crate::core::UsageError::AlreadyHeld => "the lease is already held",
                crate::core::UsageError::AcquireInProgress => "an acquire is already in progress",
            };
            lease_error("ERR_LEASE_USAGE", message, None)
        })
    }

    /// Stops a campaign or pending acquire.
    #[wasm_bindgen(js_name = cancelAcquire)]
    pub fn cancel_acquire(&self) {
        self.shared.core.borrow_mut().cancel_acquire(now());
        drive(&self.shared);
    }

    /// Ends the hold locally with `reason`, as the design's `surrender`.
    pub fn surrender(&self, reason: &str) {
        self.shared.core.borrow_mut().surrender(now(), reason);
        drive(&self.shared);
    }

    /// Ends the hold and tells the grantor. Resolves when the grantor's `release` settles
    /// (immediately if nothing was held or the grantor has no `release`).
    pub fn release(&self) -> Promise {
        self.shared.last_release.borrow_mut().take();
        self.shared.core.borrow_mut().release(now());
        drive(&self.shared);
        let pending = self.shared.last_release.borrow_mut().take();
        pending.unwrap_or_else(|| Promise::resolve(&JsValue::UNDEFINED))
    }

    /// Re-checks every deadline now. Hosts call it after possible sleep or throttling.
    pub fn check(&self) {
        self.shared.core.borrow_mut().handle_timeout(now());
        drive(&self.shared);
    }

    /// Whether the lease is held with more than the margin left at the given readings.
    #[wasm_bindgen(js_name = isSafelyHeldAt)]
    pub fn is_safely_held_at(&self, mono_ms: f64, wall_ms: f64) -> bool {
        match now_or_expired(mono_ms, wall_ms) {
            Some(now) => self.shared.core.borrow_mut().is_safely_held(now),
            None => false,
        }
    }

    /// Milliseconds left at the given readings (0 when not held).
    #[wasm_bindgen(js_name = remainingMsAt)]
    pub fn remaining_ms_at(&self, mono_ms: f64, wall_ms: f64) -> f64 {
        match now_or_expired(mono_ms, wall_ms) {
            Some(now) => self.shared.core.borrow_mut().remaining(now).as_ms_f64(),
            None => 0.0,
        }
    }

    /// `"idle"`, `"acquiring"` or `"held"`.
    #[wasm_bindgen(getter)]
    pub fn phase(&self) -> String {
        match self.shared.core.borrow().phase() {
            Phase::Idle => "idle",
            Phase::Acquiring => "acquiring",
            Phase::Held => "held",
        }
        .to_owned()
    }

    /// The held token, or `undefined`.
    #[wasm_bindgen(getter)]
    pub fn token(&self) -> Option<f64> {
        self.shared
            .core
            .borrow()
            .lease()
            .token()
            .map(|t| t.get() as f64)
    }

    /// The `performance.now()` stamp of the current grant's send time, or `undefined`.
    #[wasm_bindgen(getter, js_name = acquiredAt)]
    pub fn acquired_at(&self) -> Option<f64> {
        let core = self.shared.core.borrow();
        core.lease().acquired_at().map(|t| t.0 as f64 / 1000.0)
    }

    /// Renewal failures in a row.
    #[wasm_bindgen(getter, js_name = consecutiveFailures)]
    pub fn consecutive_failures(&self) -> u32 {
        self.shared.core.borrow().consecutive_failures()
    }

    /// The validated renew interval in ms.
    #[wasm_bindgen(getter, js_name = renewIntervalMs)]
    pub fn renew_interval_ms(&self) -> f64 {
        self.shared
            .core
            .borrow()
            .config()
            .renew_interval
            .as_ms_f64()
    }

    /// The validated lease duration in ms.
    #[wasm_bindgen(getter, js_name = leaseMs)]
    pub fn lease_ms(&self) -> f64 {
        self.shared.core.borrow().config().lease.as_ms_f64()
    }

    /// The validated margin in ms.
    #[wasm_bindgen(getter, js_name = marginMs)]
    pub fn margin_ms(&self) -> f64 {
        self.shared.core.borrow().config().margin.as_ms_f64()
    }

    /// Stops the timer and aborts requests in flight; the holder does nothing more.
    pub fn dispose(&self) {
        self.shared.disposed.set(true);
        if let Some(timer) = self.shared.timer.borrow_mut().take() {
            clear_timeout(&timer.handle);
        }
        let in_flight: Vec<_> = self.shared.in_flight.borrow_mut().drain(..).collect();
        for (_, controller) in in_flight {
            controller.abort();
        }
    }
}

fn on_timer(weak: &Weak<Shared>) {
    let Some(shared) = weak.upgrade() else { return };
    shared.timer.borrow_mut().take();
    // Trust the clock, not the timer: it may have fired late (hidden tab) or early.
    shared.core.borrow_mut().handle_timeout(now());
    drive(&shared);
}

/// Drains the core's outputs and performs them with no borrow held, then re-arms the timer.
fn drive(shared: &Rc<Shared>) {
    if shared.disposed.get() {
        return;
    }
    let outputs: Vec<Output> = {
        let mut core = shared.core.borrow_mut();
        std::iter::from_fn(|| core.poll_output()).collect()
    };
    for output in outputs {
        match output {
            Output::Send(request) => send(shared, request),
            Output::Event(event) => deliver(shared, &event),
            Output::Abandon(id) => abandon(shared, id),
        }
    }
    arm_timer(shared);
}

fn arm_timer(shared: &Rc<Shared>) {
    if shared.disposed.get() {
        return;
    }
    let due = shared.core.borrow().poll_timeout();
    let armed_due = shared.timer.borrow().as_ref().map(|armed| armed.due);
    if armed_due.is_some() && armed_due == due {
        return;
    }
    // Borrows end before each timer call: a host (or a test's fake timers) may run code there.
    let previous = shared.timer.borrow_mut().take();
    if let Some(previous) = previous {
        clear_timeout(&previous.handle);
    }
    let Some(due) = due else { return };
    let callback: Option<Function> = shared
        .timer_callback
        .borrow()
        .as_ref()
        .map(|closure| closure.as_ref().unchecked_ref::<Function>().clone());
    let Some(callback) = callback else { return };
    // setTimeout takes a signed 32-bit delay; a longer wait re-arms when it fires.
    let delay_ms = (due.since(now().mono).0 as f64 / 1000.0).clamp(0.0, 2_147_483_647.0);
    let handle = set_timeout(&callback, delay_ms.ceil());
    *shared.timer.borrow_mut() = Some(ArmedTimer { handle, due });
}

fn request_args(shared: &Shared, request: &Request, signal: &JsValue) -> Object {
    let args = Object::new();
    set(&args, "resource", &JsValue::from_str(&shared.resource));
    set(&args, "holder", &JsValue::from_str(&shared.holder_id));
    match request.kind {
        RequestKind::Grant { duration_ms } => {
            set(&args, "durationMs", &JsValue::from_f64(duration_ms as f64));
        }
        RequestKind::Renew { token, duration_ms } => {
            set(&args, "token", &JsValue::from_f64(token.get() as f64));
            set(&args, "durationMs", &JsValue::from_f64(duration_ms as f64));
        }
        RequestKind::Release { token } => {
            set(&args, "token", &JsValue::from_f64(token.get() as f64));
        }
    }
    let request_id = shared
        .request_prefix
        .concat(&JsValue::from_f64(request.id.0 as f64));
    set(&args, "requestId", &request_id);
    set(&args, "signal", signal);
    args
}

fn send(shared: &Rc<Shared>, request: Request) {
    let controller = AbortController::new();
    let args = request_args(shared, &request, &controller.signal());
    let function = match request.kind {
        RequestKind::Grant { .. } => Some(&shared.grant),
        RequestKind::Renew { .. } => Some(&shared.renew),
        RequestKind::Release { .. } => shared.release.as_ref(),
    };
    let Some(function) = function else { return };
    // The grantor is user code: it may throw synchronously, return a value or a promise.
    let promise = match function.call1(&shared.grantor, &args) {
        Ok(value) => Promise::resolve(&value),
        Err(error) => Promise::reject(&error),
    };
    if let RequestKind::Release { .. } = request.kind {
        // Nobody waits on a release's outcome except `release()`'s caller; a failed release only
        // means others wait for the expiry.
        let settled = wasm_bindgen_futures::future_to_promise(async move {
            let _ = JsFuture::from(promise).await;
            Ok(JsValue::UNDEFINED)
        });
        *shared.last_release.borrow_mut() = Some(settled);
        return;
    }
    shared.in_flight.borrow_mut().push((request.id, controller));
    let shared = Rc::clone(shared);
    wasm_bindgen_futures::spawn_local(async move {
        let settled = JsFuture::from(promise).await;
        forget_in_flight(&shared, request.id);
        if shared.disposed.get() {
            return;
        }
        let reply = match (&request.kind, settled) {
            (RequestKind::Grant { .. }, Ok(value)) => grant_outcome(&value)
                .map(Reply::Grant)
                .unwrap_or_else(|_| Reply::Failed(Failure::of(FailureKind::Malformed))),
            (RequestKind::Renew { .. }, Ok(value)) => renew_outcome(&value)
                .map(Reply::Renew)
                .unwrap_or_else(|_| Reply::Failed(Failure::of(FailureKind::Malformed))),
            (_, Err(error)) => Reply::Failed(failure_from_error(&error)),
            (RequestKind::Release { .. }, Ok(_)) => return,
        };
        shared
            .core
            .borrow_mut()
            .handle_reply(now(), request.id, reply);
        drive(&shared);
    });
}

/// A grantor that rejects may say what kind of failure it was (`HttpGrantor` does, through the
/// error's `kind` and `retryAfterMs`); any other rejection means "unreachable".
fn failure_from_error(error: &JsValue) -> Failure {
    let kind = match get(error, "kind").as_string().as_deref() {
        Some("server_error") => FailureKind::Server,
        Some("rate_limited") => FailureKind::RateLimited,
        Some("bad_request") => FailureKind::BadRequest,
        Some("malformed_reply") => FailureKind::Malformed,
        Some("timed_out") => FailureKind::TimedOut,
        _ => FailureKind::Unreachable,
    };
    let retry_after = get(error, "retryAfterMs")
        .as_f64()
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(Micros::from_ms_f64);
    Failure { kind, retry_after }
}

fn forget_in_flight(shared: &Shared, id: RequestId) {
    shared.in_flight.borrow_mut().retain(|(i, _)| *i != id);
}

fn abandon(shared: &Shared, id: RequestId) {
    let controller = {
        let mut in_flight = shared.in_flight.borrow_mut();
        let index = in_flight.iter().position(|(i, _)| *i == id);
        index.map(|i| in_flight.swap_remove(i).1)
    };
    // abort() runs the grantor's abort listeners: user code, so no borrow is held here.
    if let Some(controller) = controller {
        controller.abort();
    }
}

fn deliver(shared: &Shared, event: &Event) {
    let detail = Object::new();
    let kind = match event {
        Event::Acquired { token } => {
            set(&detail, "token", &JsValue::from_f64(token.get() as f64));
            "acquired"
        }
        Event::AcquireFailed(failure) => {
            let reason = match failure {
                AcquireFailure::Denied { holder, expires_in } => {
                    if let Some(holder) = holder {
                        set(&detail, "holder", &JsValue::from_str(holder));
                    }
                    if let Some(expires_in) = expires_in {
                        set(
                            &detail,
                            "expiresInMs",
                            &JsValue::from_f64(expires_in.as_ms_f64()),
                        );
                    }
                    "denied"
                }
                AcquireFailure::Failed(failure) => failure.kind.as_str(),
                AcquireFailure::Cancelled => "cancelled",
            };
            set(&detail, "reason", &JsValue::from_str(reason));
            "acquireFailed"
        }
        Event::Renewed { token, rtt } => {
            set(&detail, "token", &JsValue::from_f64(token.get() as f64));
            set(&detail, "rttMs", &JsValue::from_f64(rtt.as_ms_f64()));
            "renewed"
        }
        Event::RenewFailed {
            consecutive,
            failure,
        } => {
            set(&detail, "consecutiveFailures", &JsValue::from(*consecutive));
            set(&detail, "reason", &JsValue::from_str(failure.kind.as_str()));
            "renewFailed"
        }
        Event::Lost { token, reason } => {
            set(&detail, "token", &JsValue::from_f64(token.get() as f64));
            set(&detail, "reason", &JsValue::from_str(reason.as_str()));
            "lost"
        }
        Event::Released { token } => {
            set(&detail, "token", &JsValue::from_f64(token.get() as f64));
            "released"
        }
    };
    // The JavaScript layer catches and re-throws callback errors on a microtask, so an exception
    // here cannot leave the holder half-driven.
    let _ = shared
        .on_event
        .call2(&JsValue::UNDEFINED, &JsValue::from_str(kind), &detail);
}
