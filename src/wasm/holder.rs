//! `HolderCore`: drives a core [`Holder`] with JavaScript's timers and a JavaScript grantor.
//!
//! The rule that keeps this sound: **no `RefCell` borrow is held while JavaScript runs**. Every
//! step borrows the core, applies one input, drains the outputs into a local list, drops the
//! borrow, and only then calls the grantor, the event callback or the timer functions. Those may
//! call straight back into the holder (an `onLeaseLost` that re-acquires, a grantor that answers
//! synchronously), and they find the core free. Borrows are taken with `try_borrow_mut`, and a
//! step that found the core busy (which the rule rules out) does nothing rather than panic.
//!
//! Every step also publishes the core's safe window for the package's `Lease` (see
//! [`super::window`]), and first records the reading that `Lease` last answered from it.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Array, Float64Array, Function, JsString, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

use super::error::{config_error, get, lease_error, set};
use gloo_timers::callback::Timeout;
use web_sys::AbortController;

use super::js::{random_seed, request_prefix, then_call};
use super::lease::{now, now_or_expired};
use super::reply::{failure_from_error, grant_outcome, renew_outcome};
use super::window::PublishedWindow;
use crate::core::{
    AcquireFailure, ConfigError, Event, Failure, FailureKind, Holder, HolderConfig,
    HolderOptionsMs, Micros, MonoTime, Output, Phase, Reply, Request, RequestId, RequestKind,
};

/// The JavaScript side of a holder: what it talks to and whom it tells. Cells, not `RefCell`s,
/// outside the core: each is taken out, changed and put back, so none can be found borrowed.
struct Shared {
    core: RefCell<Holder>,
    window: PublishedWindow,
    grantor: JsValue,
    grant: Function,
    renew: Function,
    release: Option<Function>,
    resource: JsValue,
    holder_id: JsValue,
    request_prefix: JsString,
    on_event: Function,
    /// `leaseMs`, `marginMs` and `renewIntervalMs` as validated: fixed for the holder's life.
    config: (f64, f64, f64),
    timer: Cell<Option<ArmedTimer>>,
    in_flight: Cell<Vec<(RequestId, AbortController)>>,
    last_release: Cell<Option<Promise>>,
    disposed: Cell<bool>,
}

/// The one timer, armed for the core's `poll_timeout`; dropping it cancels it.
struct ArmedTimer {
    _timeout: Timeout,
    due: MonoTime,
}

impl Drop for Shared {
    fn drop(&mut self) {
        for (_, controller) in self.in_flight.take() {
            controller.abort();
        }
    }
}

/// Runs `step` on the core, between recording the reading the package's `Lease` answered from
/// the window and publishing the window again. `None` if the core is busy, which the module's
/// rule (no borrow held while JavaScript runs) rules out; so callers read the clocks (JavaScript)
/// before, not inside, `step`.
fn step<R>(shared: &Shared, step: impl FnOnce(&mut Holder) -> R) -> Option<R> {
    let mut core = shared.core.try_borrow_mut().ok()?;
    if let Some(mono) = shared.window.recorded() {
        core.observe_quiet(mono);
    }
    let result = step(&mut core);
    shared.window.publish(core.safe_window());
    Some(result)
}

/// Drives one lease holder. The package's `LeaseHolder` class wraps it.
#[wasm_bindgen]
pub struct HolderCore {
    shared: Rc<Shared>,
}

/// A non-empty string option, kept as the JavaScript string it is: the holder only passes it on.
fn string_option(config: &JsValue, key: &'static str) -> Result<JsValue, JsValue> {
    let value = get(config, key);
    match value.dyn_ref::<JsString>() {
        Some(s) if s.length() > 0 => Ok(value),
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

#[wasm_bindgen]
impl HolderCore {
    /// Validates the configuration (errors name the option) and prepares the holder.
    #[wasm_bindgen(skip_jsdoc, constructor)]
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
        let core = HolderConfig::from_ms(lease_ms, margin_ms, options, random_seed())
            .map_err(|e| config_error(&e))?;
        let config = (
            core.lease.as_ms_f64(),
            core.margin.as_ms_f64(),
            core.renew_interval.as_ms_f64(),
        );
        let shared = Rc::new(Shared {
            core: RefCell::new(Holder::new(core)),
            window: PublishedWindow::new(),
            release: method(&grantor, "release"),
            grantor,
            grant,
            renew,
            request_prefix: request_prefix(&holder_id),
            resource,
            holder_id,
            on_event,
            config,
            timer: Cell::new(None),
            in_flight: Cell::new(Vec::new()),
            last_release: Cell::new(None),
            disposed: Cell::new(false),
        });
        Ok(HolderCore { shared })
    }

    /// Starts acquiring; the outcome arrives as an `acquired` or `acquireFailed` event. With
    /// `campaign`, retries until granted or cancelled.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn acquire(&self, campaign: bool) -> Result<(), JsValue> {
        let now = now();
        let result = step(&self.shared, |core| core.acquire(now, campaign));
        drive(&self.shared);
        match result {
            Some(Err(crate::core::UsageError::AlreadyHeld)) => Err(lease_error(
                "ERR_LEASE_USAGE",
                "the lease is already held",
                None,
            )),
            Some(Err(crate::core::UsageError::AcquireInProgress)) => Err(lease_error(
                "ERR_LEASE_USAGE",
                "an acquire is already in progress",
                None,
            )),
            _ => Ok(()),
        }
    }

    /// Stops a campaign or pending acquire.
    #[wasm_bindgen(skip_jsdoc, js_name = cancelAcquire)]
    pub fn cancel_acquire(&self) {
        let now = now();
        step(&self.shared, |core| core.cancel_acquire(now));
        drive(&self.shared);
    }

    /// Ends the hold locally with `reason`, as the design's `surrender`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn surrender(&self, reason: &str) {
        let now = now();
        step(&self.shared, |core| core.surrender(now, reason));
        drive(&self.shared);
    }

    /// Ends the hold and tells the grantor. Resolves when the grantor's `release` settles
    /// (immediately if nothing was held or the grantor has no `release`). A cancelled acquire's
    /// grant still in flight is released when its reply arrives, after this resolves.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn release(&self) -> Promise {
        self.shared.last_release.take();
        let now = now();
        step(&self.shared, |core| core.release(now));
        drive(&self.shared);
        let pending = self.shared.last_release.take();
        pending.unwrap_or_else(|| Promise::resolve(&JsValue::UNDEFINED))
    }

    /// Re-checks every deadline now. Hosts call it after possible sleep or throttling.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn check(&self) {
        let now = now();
        step(&self.shared, |core| core.handle_timeout(now));
        drive(&self.shared);
    }

    /// Whether the lease is held with more than the margin left at the given readings.
    #[wasm_bindgen(skip_jsdoc, js_name = isSafelyHeldAt)]
    pub fn is_safely_held_at(&self, mono_ms: f64, wall_ms: f64) -> bool {
        match now_or_expired(mono_ms, wall_ms) {
            Some(now) => step(&self.shared, |core| core.is_safely_held(now)).unwrap_or(false),
            None => false,
        }
    }

    /// Milliseconds left at the given readings (0 when not held).
    #[wasm_bindgen(skip_jsdoc, js_name = remainingMsAt)]
    pub fn remaining_ms_at(&self, mono_ms: f64, wall_ms: f64) -> f64 {
        match now_or_expired(mono_ms, wall_ms) {
            Some(now) => step(&self.shared, |core| core.remaining(now))
                .unwrap_or(Micros::ZERO)
                .as_ms_f64(),
            None => 0.0,
        }
    }

    /// `"idle"`, `"acquiring"` or `"held"`.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn phase(&self) -> JsString {
        let phase = self.shared.core.try_borrow().map(|core| core.phase());
        JsString::from(match phase {
            Ok(Phase::Held) => "held",
            Ok(Phase::Acquiring) => "acquiring",
            _ => "idle",
        })
    }

    /// The published window (see [`super::window`]): five numbers the package's `Lease` reads.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn window(&self) -> Float64Array {
        self.shared.window.view()
    }

    /// The held token, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn token(&self) -> Option<f64> {
        let core = self.shared.core.try_borrow().ok()?;
        core.lease().token().map(|t| t.get() as f64)
    }

    /// The `performance.now()` stamp of the current grant's send time, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = acquiredAt)]
    pub fn acquired_at(&self) -> Option<f64> {
        let core = self.shared.core.try_borrow().ok()?;
        core.lease().acquired_at().map(|t| t.0 as f64 / 1000.0)
    }

    /// The `performance.now()` stamp at which the next renewal is due on the lease's own
    /// schedule, or `undefined` (not held, a renewal in flight, or retrying after a failure).
    #[wasm_bindgen(skip_jsdoc, getter, js_name = renewDueAtMs)]
    pub fn renew_due_at_ms(&self) -> Option<f64> {
        let core = self.shared.core.try_borrow().ok()?;
        core.renewal_due().map(|t| t.0 as f64 / 1000.0)
    }

    /// Renewal failures in a row.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = consecutiveFailures)]
    pub fn consecutive_failures(&self) -> u32 {
        let core = self.shared.core.try_borrow();
        core.map_or(0, |core| core.consecutive_failures())
    }

    /// The validated renew interval in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = renewIntervalMs)]
    pub fn renew_interval_ms(&self) -> f64 {
        self.shared.config.2
    }

    /// The validated lease duration in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = leaseMs)]
    pub fn lease_ms(&self) -> f64 {
        self.shared.config.0
    }

    /// The validated margin in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = marginMs)]
    pub fn margin_ms(&self) -> f64 {
        self.shared.config.1
    }

    /// Stops the timer and aborts requests in flight; the holder does nothing more.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn dispose(&self) {
        self.shared.disposed.set(true);
        drop(self.shared.timer.take());
        for (_, controller) in self.shared.in_flight.take() {
            controller.abort();
        }
    }
}

fn on_timer(weak: &Weak<Shared>) {
    let Some(shared) = weak.upgrade() else { return };
    drop(shared.timer.take());
    // Trust the clock, not the timer: it may have fired late (hidden tab) or early.
    let now = now();
    step(&shared, |core| core.handle_timeout(now));
    drive(&shared);
}

/// Drains the core's outputs and performs them with no borrow held, then re-arms the timer.
fn drive(shared: &Rc<Shared>) {
    if shared.disposed.get() {
        return;
    }
    let outputs: Vec<Output> = step(shared, |core| {
        std::iter::from_fn(|| core.poll_output()).collect()
    })
    .unwrap_or_default();
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
    let Ok(due) = shared.core.try_borrow().map(|core| core.poll_timeout()) else {
        return;
    };
    // Borrows end before each timer call: a host (or a test's fake timers) may run code there.
    let previous = shared.timer.take();
    if let Some(previous) = previous {
        if Some(previous.due) == due {
            shared.timer.set(Some(previous));
            return;
        }
    }
    let Some(due) = due else { return };
    // setTimeout takes a signed 32-bit delay; a longer wait re-arms when it fires.
    let delay_ms = (due.since(now().mono).0 as f64 / 1000.0).clamp(0.0, 2_147_483_647.0);
    let weak = Rc::downgrade(shared);
    let timeout = Timeout::new(delay_ms.ceil() as u32, move || on_timer(&weak));
    shared.timer.set(Some(ArmedTimer {
        _timeout: timeout,
        due,
    }));
}

fn request_args(shared: &Shared, request: &Request, signal: &JsValue) -> Object {
    let args = Object::new();
    set(&args, "resource", &shared.resource);
    set(&args, "holder", &shared.holder_id);
    match request.kind {
        RequestKind::Grant { duration_ms } => {
            set(&args, "durationMs", &JsValue::from_f64(duration_ms as f64));
        }
        RequestKind::Renew { token, duration_ms } => {
            set(&args, "token", &JsValue::from_f64(token.get() as f64));
            set(&args, "durationMs", &JsValue::from_f64(duration_ms as f64));
            // How long this attempt has, by the core's rule: a batching grantor keeps the
            // renewal's wait within it.
            if let Ok(core) = shared.core.try_borrow() {
                let timeout = core.config().request_timeout.as_ms_f64();
                set(&args, "requestTimeoutMs", &JsValue::from_f64(timeout));
                if let Some(until) = core.lease().safe_until() {
                    let safe_for = until.since(now().mono).as_ms_f64();
                    set(&args, "safeForMs", &JsValue::from_f64(safe_for));
                }
            }
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

/// `promise` settled either way, as one fulfilled promise of `[{status, value | reason}]`, so
/// one callback (a one-shot closure, freed when called) sees every outcome.
fn settled(promise: &Promise) -> Promise {
    Promise::all_settled(&Array::of1(promise))
}

fn send(shared: &Rc<Shared>, request: Request) {
    // Every runtime the package supports has AbortController; `new` fails only where there is
    // none, and then the request goes without a signal (the core still abandons it on time).
    let controller = AbortController::new().ok();
    let signal = controller
        .as_ref()
        .map_or(JsValue::UNDEFINED, |c| c.signal().into());
    let args = request_args(shared, &request, &signal);
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
        let done = Closure::once_into_js(|_: JsValue| {});
        shared
            .last_release
            .set(Some(then_call(&settled(&promise), &done)));
        return;
    }
    if let Some(controller) = controller {
        let mut in_flight = shared.in_flight.take();
        in_flight.push((request.id, controller));
        shared.in_flight.set(in_flight);
    }
    // The closure holds the holder until the grantor answers, as a pending call should.
    let shared = Rc::clone(shared);
    let on_settled = Closure::once_into_js(move |outcomes: JsValue| {
        let outcome = Reflect::get_u32(&outcomes, 0).unwrap_or(JsValue::UNDEFINED);
        forget_in_flight(&shared, request.id);
        if shared.disposed.get() {
            return;
        }
        let fulfilled = get(&outcome, "status").as_string().as_deref() == Some("fulfilled");
        let reply = match (&request.kind, fulfilled) {
            (RequestKind::Grant { .. }, true) => grant_outcome(&get(&outcome, "value"))
                .map(Reply::Grant)
                .unwrap_or_else(|_| Reply::Failed(Failure::of(FailureKind::Malformed))),
            (RequestKind::Renew { .. }, true) => renew_outcome(&get(&outcome, "value"))
                .map(Reply::Renew)
                .unwrap_or_else(|_| Reply::Failed(Failure::of(FailureKind::Malformed))),
            (_, false) => Reply::Failed(failure_from_error(&get(&outcome, "reason"))),
            (RequestKind::Release { .. }, true) => return,
        };
        let now = now();
        step(&shared, |core| core.handle_reply(now, request.id, reply));
        drive(&shared);
    });
    let _ = then_call(&settled(&promise), &on_settled);
}

fn forget_in_flight(shared: &Shared, id: RequestId) {
    let mut in_flight = shared.in_flight.take();
    in_flight.retain(|(i, _)| *i != id);
    shared.in_flight.set(in_flight);
}

fn abandon(shared: &Shared, id: RequestId) {
    let (abandoned, waiting): (Vec<_>, Vec<_>) = shared
        .in_flight
        .take()
        .into_iter()
        .partition(|(i, _)| *i == id);
    shared.in_flight.set(waiting);
    // abort() runs the grantor's abort listeners: user code, so the list is back in place first.
    for (_, controller) in abandoned {
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
