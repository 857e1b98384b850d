//! `HolderCore`: drives a core [`Holder`] with JavaScript's timers and a JavaScript grantor.
//!
//! The driving loop is [`Driver`]: it feeds the core, sends its requests through a [`Host`] and
//! delivers its events there, with one timer. `HolderCore` is a driver whose host is a
//! JavaScript grantor and event callback ([`JsHost`]); `TabLease`'s global mode drives one whose
//! grantor is on the page, behind the worker's messages.
//!
//! The rule that keeps this sound: **no `RefCell` borrow is held while JavaScript runs**. Every
//! step borrows the core, applies one input, drains the outputs into a local list, drops the
//! borrow, and only then calls the host (the grantor, the event callback) or the timer
//! functions. Those may call straight back into the holder (an `onLeaseLost` that re-acquires, a
//! grantor that answers synchronously), and they find the core free. Borrows are taken with
//! `try_borrow_mut`, and a step that found the core busy (which the rule rules out) does nothing
//! rather than panic.
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
use super::options::holder_config;
use super::reply::{failure_from_error, grant_outcome, renew_outcome};
use super::window::PublishedWindow;
use crate::core::{
    AcquireFailure, ConfigError, Event, Failure, FailureKind, Holder, HolderConfig, Micros,
    MonoTime, Now, Output, Phase, Reply, Request, RequestId, RequestKind, UsageError,
};
use crate::protocol::{is_valid_name, MAX_HOLDER_LEN};

/// What a driven holder talks to: the grantor and whoever hears its events. The driver calls
/// every method with no borrow held, so each may call straight back into the holder.
pub trait Host {
    /// Sends `request` to the grantor with `args` (`resource`, `holder`, `requestId` and the
    /// request's own fields); a promise of the grantor's answer, or `None` when the grantor
    /// has no method for it (an optional `release`).
    fn call(&self, id: RequestId, kind: &RequestKind, args: Object) -> Option<Promise>;
    /// The call `id` is over: it settled, or (`abandoned`) the holder stopped waiting for it.
    fn finished(&self, id: RequestId, abandoned: bool);
    /// Delivers one of the holder's events.
    fn deliver(&self, event: &Event);
    /// The holder was disposed: stop every call still in flight.
    fn dispose(&self);
}

/// The driver's state. Cells, not `RefCell`s, outside the core: each is taken out, changed and
/// put back, so none can be found borrowed.
struct Shared {
    core: RefCell<Holder>,
    window: PublishedWindow,
    host: Rc<dyn Host>,
    resource: JsValue,
    holder_id: JsValue,
    request_prefix: JsString,
    timer: Cell<Option<ArmedTimer>>,
    last_release: Cell<Option<Promise>>,
    disposed: Cell<bool>,
}

/// The one timer, armed for the core's `poll_timeout`; dropping it cancels it.
struct ArmedTimer {
    _timeout: Timeout,
    due: MonoTime,
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

/// Drives one core [`Holder`]: its timer, its requests through a [`Host`], its events back.
#[derive(Clone)]
pub struct Driver {
    shared: Rc<Shared>,
}

impl Driver {
    /// A holder of `resource` as `holder_id` (JavaScript strings, passed on as they are).
    pub fn new(
        config: HolderConfig,
        resource: JsValue,
        holder_id: JsValue,
        host: Rc<dyn Host>,
    ) -> Driver {
        let shared = Rc::new(Shared {
            core: RefCell::new(Holder::new(config)),
            window: PublishedWindow::new(),
            host,
            request_prefix: request_prefix(&holder_id),
            resource,
            holder_id,
            timer: Cell::new(None),
            last_release: Cell::new(None),
            disposed: Cell::new(false),
        });
        Driver { shared }
    }

    /// Starts acquiring (with `campaign`, until granted or cancelled); the outcome arrives as
    /// an [`Event::Acquired`] or [`Event::AcquireFailed`].
    pub fn acquire(&self, campaign: bool) -> Result<(), UsageError> {
        let now = now();
        let result = step(&self.shared, |core| core.acquire(now, campaign));
        drive(&self.shared);
        result.unwrap_or(Ok(()))
    }

    /// Stops a campaign or pending acquire.
    pub fn cancel_acquire(&self) {
        let now = now();
        step(&self.shared, |core| core.cancel_acquire(now));
        drive(&self.shared);
    }

    /// Ends the hold locally with `reason`.
    pub fn surrender(&self, reason: &str) {
        let now = now();
        step(&self.shared, |core| core.surrender(now, reason));
        drive(&self.shared);
    }

    /// Ends the hold and tells the grantor; the promise settles with the grantor's `release`
    /// (at once if nothing was held or the grantor has none).
    pub fn release(&self) -> Promise {
        self.give_back(None)
    }

    /// Hands the hold over to `to` (or whoever asks next): a release that asks the grantor to
    /// keep the resource for `to`; settles as [`Self::release`].
    pub fn hand_off(&self, to: Option<String>) -> Promise {
        self.give_back(Some(to))
    }

    fn give_back(&self, hand_off: Option<Option<String>>) -> Promise {
        self.shared.last_release.take();
        let now = now();
        step(&self.shared, |core| match hand_off {
            Some(to) => core.hand_off(now, to),
            None => core.release(now),
        });
        drive(&self.shared);
        let pending = self.shared.last_release.take();
        pending.unwrap_or_else(|| Promise::resolve(&JsValue::UNDEFINED))
    }

    /// This holder's identity, if it is a string.
    pub fn holder_id(&self) -> Option<String> {
        self.shared.holder_id.as_string()
    }

    /// Campaign again after every loss, or not ([`Holder::recontend`]).
    pub fn recontend(&self, on: bool) {
        step(&self.shared, |core| core.recontend(on));
    }

    /// The grantor's change feed says `holder` holds the resource (kept for `handed_to`).
    pub fn holder_changed(&self, holder: Option<&str>, handed_to: Option<&str>) {
        let now = now();
        let holder_id = self.shared.holder_id.as_string().unwrap_or_default();
        step(&self.shared, |core| {
            core.handle_holder_change(now, holder, handed_to, &holder_id)
        });
        drive(&self.shared);
    }

    /// Re-checks every deadline now.
    pub fn check(&self) {
        let now = now();
        step(&self.shared, |core| core.handle_timeout(now));
        drive(&self.shared);
    }

    /// Whether the lease is held with more than the margin left at `now`.
    pub fn is_safely_held(&self, now: Now) -> bool {
        step(&self.shared, |core| core.is_safely_held(now)).unwrap_or(false)
    }

    /// Time left at `now` (zero when not held).
    pub fn remaining(&self, now: Now) -> Micros {
        step(&self.shared, |core| core.remaining(now)).unwrap_or(Micros::ZERO)
    }

    /// Runs `read` on the core unless it is busy (which the module's rule rules out).
    fn read<R>(&self, read: impl FnOnce(&Holder) -> R) -> Option<R> {
        self.shared.core.try_borrow().ok().map(|core| read(&core))
    }

    /// The held token, if any.
    pub fn token(&self) -> Option<f64> {
        self.read(|core| core.lease().token().map(|t| t.get() as f64))
            .flatten()
    }

    /// Stops the timer and every call in flight; the holder does nothing more.
    pub fn dispose(&self) {
        self.shared.disposed.set(true);
        drop(self.shared.timer.take());
        self.shared.host.dispose();
    }
}

/// `HolderCore`'s host: a JavaScript grantor, called with an `AbortSignal` that aborts when the
/// holder stops waiting, and a JavaScript event callback.
struct JsHost {
    grantor: JsValue,
    grant: Function,
    renew: Function,
    release: Option<Function>,
    on_event: Function,
    in_flight: Cell<Vec<(RequestId, AbortController)>>,
}

impl Drop for JsHost {
    fn drop(&mut self) {
        self.dispose();
    }
}

impl Host for JsHost {
    fn call(&self, id: RequestId, kind: &RequestKind, args: Object) -> Option<Promise> {
        // Every runtime the package supports has AbortController; `new` fails only where there
        // is none, and then the request goes without a signal (the core still abandons it on
        // time).
        let controller = AbortController::new().ok();
        let signal = controller
            .as_ref()
            .map_or(JsValue::UNDEFINED, |c| c.signal().into());
        set(&args, "signal", &signal);
        let function = match kind {
            RequestKind::Grant { .. } => Some(&self.grant),
            RequestKind::Renew { .. } => Some(&self.renew),
            RequestKind::Release { .. } => self.release.as_ref(),
        }?;
        // The grantor is user code: it may throw synchronously, return a value or a promise.
        let promise = match function.call1(&self.grantor, &args) {
            Ok(value) => Promise::resolve(&value),
            Err(error) => Promise::reject(&error),
        };
        // Nobody aborts a release: a failed release only means others wait for the expiry.
        if let (Some(controller), false) = (controller, matches!(kind, RequestKind::Release { .. }))
        {
            let mut in_flight = self.in_flight.take();
            in_flight.push((id, controller));
            self.in_flight.set(in_flight);
        }
        Some(promise)
    }

    fn finished(&self, id: RequestId, abandoned: bool) {
        let (ended, waiting): (Vec<_>, Vec<_>) = self
            .in_flight
            .take()
            .into_iter()
            .partition(|(i, _)| *i == id);
        self.in_flight.set(waiting);
        // abort() runs the grantor's abort listeners: user code, so the list is back in place
        // first.
        if abandoned {
            for (_, controller) in ended {
                controller.abort();
            }
        }
    }

    fn deliver(&self, event: &Event) {
        let (kind, detail) = event_detail(event);
        // The JavaScript layer catches and re-throws callback errors on a microtask, so an
        // exception here cannot leave the holder half-driven.
        let _ = self
            .on_event
            .call2(&JsValue::UNDEFINED, &JsValue::from_str(kind), &detail);
    }

    fn dispose(&self) {
        for (_, controller) in self.in_flight.take() {
            controller.abort();
        }
    }
}

/// Drives one lease holder. The package's `LeaseHolder` class wraps it.
#[wasm_bindgen]
pub struct HolderCore {
    driver: Driver,
    /// `leaseMs`, `marginMs` and `renewIntervalMs` as validated: fixed for the holder's life.
    config: (f64, f64, f64),
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
        let core = holder_config(&config, random_seed()).map_err(|e| config_error(&e))?;
        let validated = (
            core.lease.as_ms_f64(),
            core.margin.as_ms_f64(),
            core.renew_interval.as_ms_f64(),
        );
        let host = Rc::new(JsHost {
            release: method(&grantor, "release"),
            grantor,
            grant,
            renew,
            on_event,
            in_flight: Cell::new(Vec::new()),
        });
        Ok(HolderCore {
            driver: Driver::new(core, resource, holder_id, host),
            config: validated,
        })
    }

    /// Starts acquiring; the outcome arrives as an `acquired` or `acquireFailed` event. With
    /// `campaign`, retries until granted or cancelled.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn acquire(&self, campaign: bool) -> Result<(), JsValue> {
        match self.driver.acquire(campaign) {
            Err(UsageError::AlreadyHeld) => Err(lease_error(
                "ERR_LEASE_USAGE",
                "the lease is already held",
                None,
            )),
            Err(UsageError::AcquireInProgress) => Err(lease_error(
                "ERR_LEASE_USAGE",
                "an acquire is already in progress",
                None,
            )),
            Ok(()) => Ok(()),
        }
    }

    /// Stops a campaign or pending acquire.
    #[wasm_bindgen(skip_jsdoc, js_name = cancelAcquire)]
    pub fn cancel_acquire(&self) {
        self.driver.cancel_acquire();
    }

    /// Ends the hold locally with `reason`, as the design's `surrender`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn surrender(&self, reason: &str) {
        self.driver.surrender(reason);
    }

    /// Hands the hold over to `to` (a holder id, or `undefined` for whoever asks next): releases
    /// with `handTo`, and the hold ends as lost with reason `handed_off`. Resolves when the
    /// grantor's `release` settles; rejects at once with `ERR_LEASE_CONFIG` for a `to` that is
    /// not a valid holder id, or is this holder's own.
    #[wasm_bindgen(skip_jsdoc, js_name = handOff)]
    pub fn hand_off(&self, to: JsValue) -> Promise {
        if to.is_undefined() || to.is_null() {
            return self.driver.hand_off(None);
        }
        match to.as_string() {
            Some(to)
                if is_valid_name(&to, MAX_HOLDER_LEN)
                    && Some(&to) != self.driver.holder_id().as_ref() =>
            {
                self.driver.hand_off(Some(to))
            }
            _ => Promise::reject(&lease_error(
                "ERR_LEASE_CONFIG",
                "handOff: the holder to hand to must be another holder's id",
                Some("toHolderId"),
            )),
        }
    }

    /// Campaign again after every loss (`acquire({ wait: true, recontend: true })`) or not.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn recontend(&self, on: bool) {
        self.driver.recontend(on);
    }

    /// The grantor's change feed says `holder` holds the resource (null: nobody), kept for
    /// `handedTo` if any: a waiting campaign asks at once when it is free for this holder.
    #[wasm_bindgen(skip_jsdoc, js_name = holderChanged)]
    pub fn holder_changed(&self, holder: Option<String>, handed_to: Option<String>) {
        self.driver
            .holder_changed(holder.as_deref(), handed_to.as_deref());
    }

    /// Ends the hold and tells the grantor. Resolves when the grantor's `release` settles
    /// (immediately if nothing was held or the grantor has no `release`). A cancelled acquire's
    /// grant still in flight is released when its reply arrives, after this resolves.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn release(&self) -> Promise {
        self.driver.release()
    }

    /// Re-checks every deadline now. Hosts call it after possible sleep or throttling.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn check(&self) {
        self.driver.check();
    }

    /// Whether the lease is held with more than the margin left at the given readings.
    #[wasm_bindgen(skip_jsdoc, js_name = isSafelyHeldAt)]
    pub fn is_safely_held_at(&self, mono_ms: f64, wall_ms: f64) -> bool {
        now_or_expired(mono_ms, wall_ms).is_some_and(|now| self.driver.is_safely_held(now))
    }

    /// Milliseconds left at the given readings (0 when not held).
    #[wasm_bindgen(skip_jsdoc, js_name = remainingMsAt)]
    pub fn remaining_ms_at(&self, mono_ms: f64, wall_ms: f64) -> f64 {
        now_or_expired(mono_ms, wall_ms).map_or(0.0, |now| self.driver.remaining(now).as_ms_f64())
    }

    /// `"idle"`, `"acquiring"` or `"held"`.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn phase(&self) -> JsString {
        JsString::from(match self.driver.read(Holder::phase) {
            Some(Phase::Held) => "held",
            Some(Phase::Acquiring) => "acquiring",
            _ => "idle",
        })
    }

    /// The published window (see [`super::window`]): five numbers the package's `Lease` reads.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn window(&self) -> Float64Array {
        self.driver.shared.window.view()
    }

    /// The held token, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn token(&self) -> Option<f64> {
        self.driver.token()
    }

    /// The `performance.now()` stamp of the current grant's send time, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = acquiredAt)]
    pub fn acquired_at(&self) -> Option<f64> {
        self.driver
            .read(|core| core.lease().acquired_at().map(|t| t.0 as f64 / 1000.0))
            .flatten()
    }

    /// The `performance.now()` stamp at which the next renewal is due on the lease's own
    /// schedule, or `undefined` (not held, a renewal in flight, or retrying after a failure).
    #[wasm_bindgen(skip_jsdoc, getter, js_name = renewDueAtMs)]
    pub fn renew_due_at_ms(&self) -> Option<f64> {
        self.driver
            .read(|core| core.renewal_due().map(|t| t.0 as f64 / 1000.0))
            .flatten()
    }

    /// Renewal failures in a row.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = consecutiveFailures)]
    pub fn consecutive_failures(&self) -> u32 {
        self.driver.read(Holder::consecutive_failures).unwrap_or(0)
    }

    /// The validated renew interval in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = renewIntervalMs)]
    pub fn renew_interval_ms(&self) -> f64 {
        self.config.2
    }

    /// The validated lease duration in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = leaseMs)]
    pub fn lease_ms(&self) -> f64 {
        self.config.0
    }

    /// The validated margin in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = marginMs)]
    pub fn margin_ms(&self) -> f64 {
        self.config.1
    }

    /// Stops the timer and aborts requests in flight; the holder does nothing more.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn dispose(&self) {
        self.driver.dispose();
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
            Output::Event(event) => shared.host.deliver(&event),
            Output::Abandon(id) => shared.host.finished(id, true),
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

fn request_args(shared: &Shared, request: &Request) -> Object {
    let args = Object::new();
    set(&args, "resource", &shared.resource);
    set(&args, "holder", &shared.holder_id);
    match &request.kind {
        &RequestKind::Grant { duration_ms } => {
            set(&args, "durationMs", &JsValue::from_f64(duration_ms as f64));
        }
        &RequestKind::Renew { token, duration_ms } => {
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
        RequestKind::Release { token, hand_to } => {
            set(&args, "token", &JsValue::from_f64(token.get() as f64));
            if let Some(hand_to) = hand_to {
                set(&args, "handTo", &JsValue::from_str(hand_to));
            }
        }
    }
    let request_id = shared
        .request_prefix
        .concat(&JsValue::from_f64(request.id.0 as f64));
    set(&args, "requestId", &request_id);
    args
}

/// `promise` settled either way, as one fulfilled promise of `[{status, value | reason}]`, so
/// one callback (a one-shot closure, freed when called) sees every outcome.
fn settled(promise: &Promise) -> Promise {
    Promise::all_settled(&Array::of1(promise))
}

fn send(shared: &Rc<Shared>, request: Request) {
    let args = request_args(shared, &request);
    let Some(promise) = shared.host.call(request.id, &request.kind, args) else {
        return;
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
    // The closure holds the holder until the grantor answers, as a pending call should.
    let shared = Rc::clone(shared);
    let on_settled = Closure::once_into_js(move |outcomes: JsValue| {
        let outcome = Reflect::get_u32(&outcomes, 0).unwrap_or(JsValue::UNDEFINED);
        shared.host.finished(request.id, false);
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

/// An event as `HolderCore`'s callback hears it: a kind and a detail object.
fn event_detail(event: &Event) -> (&'static str, Object) {
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
    (kind, detail)
}
