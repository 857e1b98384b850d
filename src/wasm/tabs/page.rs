//! `TabLeaseCore`: the page's side of a `TabLease`.
//!
//! It checks the configuration, starts the election's engine (in a dedicated worker started from
//! a Blob, or inline where the page is itself a worker), mirrors every hold the engine reports on
//! this context's own clocks ([`PageHold`]), so `isActive` and `signal` never trust a late
//! message or timer, follows the page's lifecycle (pagehide, pageshow, resume,
//! visibilitychange, online) and makes the grantor calls of global mode, whose grantor lives
//! here. The package's `TabLease` class wraps it: promises, waiters, user callbacks.
//!
//! Every change of the page's standing is told to that class through one `notify` callback, and
//! like every other JavaScript (the grantor, `abort()`'s listeners) it is called with no borrow
//! of the page's state held: it may call straight back in.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{
    AbortController, Blob, BlobPropertyBag, BroadcastChannel, Event, EventTarget, MessageEvent,
    Url, Worker,
};

use super::super::error::{config_error, get, lease_error, set};
use super::super::js::{now_ms, performance_now, reading};
use super::super::options::holder_config;
use super::calls::Calls;
use super::engine::Engine;
use super::sys::{
    describe, error_with, global, has_global_function, later, lock_manager, on_settled, origin_ms,
    random_id,
};
use super::watch::Watcher;
use super::wire::{
    Answer, Call, EngineConfig, EntryWire, FromEngine, GlobalConfig, Report, ToEngine,
};
use super::{assert_supported, checked_name, CALL_PREFIX, NAME_PREFIX};
use crate::core::{
    checked_ms, ConfigError, HolderChange, Micros, PageHold, PageStanding, Stamp, TabConfig,
    TabMirror, WallTime, DEFAULT_CALL_TIMEOUT, HANDOFF_PROBE_TIMEOUT,
};
use crate::protocol::Token;

/// How the page reaches its engine.
enum Transport {
    /// A dedicated worker, with its handlers.
    Worker {
        worker: Worker,
        _on_message: Closure<dyn FnMut(MessageEvent)>,
        _on_error: Closure<dyn FnMut(Event)>,
    },
    /// The engine runs here; messages each way go on a microtask.
    Inline(Rc<Engine>),
}

/// A listener on the page's lifecycle, removed at `close()`.
struct Listener {
    target: EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(Event)>,
}

struct State {
    /// This page's candidate id: `<tab id>.<random>`, fresh per engine (a page back from the
    /// cache is a new candidate), its tab id the same for the instance's life.
    instance: String,
    /// Who holds the role, as this page sees it.
    watch: Option<Rc<Watcher>>,
    /// Calls into the active tab, made and served.
    tab_calls: Option<Rc<Calls>>,
    /// Whether the engine uses Web Locks (`mode`): this context's guess until the engine says.
    web_locks_mode: bool,
    transport: Option<Transport>,
    /// Whether the worker listens (messages wait in `queue` until it does).
    ready: bool,
    queue: Vec<ToEngine>,
    closed: bool,
    broken: bool,
    candidate: bool,
    rejoin: bool,
    /// The epoch of the current or most recent hold.
    epoch: Option<f64>,
    /// Global mode: the grantor token of the current or most recent grant.
    grantor_token: Option<f64>,
    hold: PageHold,
    /// Whether the class was told this tab is active.
    active: bool,
    mirror_timer: Option<Timeout>,
    close_timer: Option<Timeout>,
    /// Resolves the promise of `close()`, once the engine closed.
    closing: Option<Function>,
    /// Resolves the promises of `release()` (and `close()`), once the engine left.
    leaving: Vec<Function>,
    /// Grantor calls in progress, aborted when the engine stops waiting.
    calls: Vec<(f64, AbortController)>,
    /// Inline: messages on their way to the engine, and from it.
    to_engine: VecDeque<ToEngine>,
    from_engine: VecDeque<FromEngine>,
    listeners: Vec<Listener>,
}

/// The page's side of one `TabLease`.
struct Page {
    name: String,
    /// This instance's id, as holders are named to every tab (`tab.tabId`).
    tab_id: String,
    lease_ms: f64,
    margin_ms: f64,
    renew_interval_ms: f64,
    worker_heartbeat: bool,
    web_locks: bool,
    global: Option<GlobalConfig>,
    grantor: JsValue,
    worker_source: JsValue,
    core_module: JsValue,
    notify: Function,
    state: RefCell<State>,
}

/// What a change of standing tells the class.
enum Change {
    /// Nothing changed.
    None,
    /// Still active: the backstop timer follows the hold's new end.
    Rearm,
    /// Became active, with this epoch and grantor token.
    Active(Option<f64>, Option<f64>),
    /// Stopped being active, for this reason.
    Inactive(String),
}

thread_local! {
    /// One Blob URL per page for the heartbeat worker's script, kept for the page's life: every
    /// TabLease of the page starts its worker from it.
    static WORKER_URL: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn worker_url(source: &JsValue) -> Result<String, JsValue> {
    if let Some(url) = WORKER_URL.with(|url| url.borrow().clone()) {
        return Ok(url);
    }
    let options = BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob = Blob::new_with_str_sequence_and_options(&Array::of1(source), &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    WORKER_URL.with(|cell| *cell.borrow_mut() = Some(url.clone()));
    Ok(url)
}

/// Reads a report as the page's mirror takes it: the page's readings now, on both clocks and on
/// the shared time line, and the report's token, remaining time and stamp. `None` when a field
/// is not a number it can be.
fn report_read(report: &Report) -> Option<(crate::core::Now, Micros, Token, Micros, Stamp)> {
    let (mono, wall) = now_ms();
    let now = crate::core::Now::from_ms(mono, wall).ok()?;
    let ms = |value: f64| (value.is_finite() && value >= 0.0).then(|| Micros::from_ms_f64(value));
    let token = Token::from_f64(report.token).ok()?;
    let sent = Stamp {
        wall: WallTime(ms(report.wall_ms)?.0),
        origin: ms(report.origin_ms)?,
    };
    Some((
        now,
        ms(origin_ms(mono))?,
        token,
        ms(report.remaining_ms)?,
        sent,
    ))
}

/// A `ERR_LEASE_CONFIG` about global mode's `problem`, naming `global.<field>`.
fn global_error(field: &str, problem: &str) -> JsValue {
    let mut message = String::from("global.");
    message.push_str(field);
    let mut named = message.clone();
    named.push(' ');
    named.push_str(problem);
    lease_error("ERR_LEASE_CONFIG", &named, Some(&message))
}

/// A holder timing error under `global`: `global: <message>`, naming `global.<field>`.
fn global_timing_error(error: &ConfigError) -> JsValue {
    let mut message = String::from("global: ");
    message.push_str(error.field);
    message.push(' ');
    message.push_str(error.problem);
    let mut field = String::from("global.");
    field.push_str(error.field);
    lease_error("ERR_LEASE_CONFIG", &message, Some(&field))
}

/// Global mode's options (`global`), checked: its config and the grantor.
fn global_options(global: &JsValue) -> Result<(GlobalConfig, JsValue), JsValue> {
    let grantor = get(global, "grantor");
    if !get(&grantor, "grant").is_function() || !get(&grantor, "renew").is_function() {
        return Err(global_error(
            "grantor",
            "must be a grantor such as HttpGrantor",
        ));
    }
    let Some(resource) = get(global, "resource")
        .as_string()
        .filter(|r| !r.is_empty())
    else {
        return Err(global_error("resource", "must be a non-empty string"));
    };
    let holder_id = get(global, "holderId");
    let holder_id = if holder_id.is_undefined() {
        None
    } else {
        let id = holder_id.as_string().filter(|id| !id.is_empty());
        Some(id.ok_or_else(|| global_error("holderId", "must be a non-empty string"))?)
    };
    let holder = holder_config(global, 0).map_err(|e| global_timing_error(&e))?;
    let config = GlobalConfig {
        resource,
        holder_id,
        lease_ms: holder.lease.as_ms_f64(),
        margin_ms: holder.margin.as_ms_f64(),
        renew_interval_ms: holder.renew_interval.as_ms_f64(),
        request_timeout_ms: holder.request_timeout.as_ms_f64(),
        retry_delay_ms: holder.retry_base.as_ms_f64(),
        retry_delay_max_ms: holder.retry_max.as_ms_f64(),
    };
    Ok((config, grantor))
}

/// The options of a `TabLease`, checked in the order the package always checked them.
fn page(
    name: &JsValue,
    options: &JsValue,
    worker_source: JsValue,
    core_module: JsValue,
    notify: Function,
) -> Result<Page, JsValue> {
    let name = checked_name(name)?;
    // The holder's own rules for the heartbeat's timing, defaults applied.
    let option = |key, default: f64| {
        let value = get(options, key);
        if value.is_undefined() {
            JsValue::from_f64(default)
        } else {
            value
        }
    };
    let timings = Object::new();
    let lease = option("leaseMs", TabConfig::DEFAULT_LEASE.as_ms_f64());
    let margin = option("marginMs", TabConfig::DEFAULT_MARGIN.as_ms_f64());
    set(&timings, "leaseMs", &lease);
    set(&timings, "marginMs", &margin);
    set(
        &timings,
        "renewIntervalMs",
        &get(options, "renewIntervalMs"),
    );
    let heartbeat = holder_config(&timings, 0).map_err(|e| config_error(&e))?;
    // Numbers, as the check just found; kept as given for the getters and the engine.
    let (lease_ms, margin_ms) = (
        lease.as_f64().unwrap_or(0.0),
        margin.as_f64().unwrap_or(0.0),
    );

    let in_window = !get(&global(), "document").is_undefined();
    let has_worker = has_global_function("Worker");
    let chosen = get(options, "heartbeat");
    let worker_heartbeat = if chosen.is_undefined() || chosen.is_null() {
        in_window && has_worker
    } else {
        match chosen.as_string().as_deref() {
            Some("worker") => true,
            Some("inline") => false,
            _ => {
                return Err(config_error(&ConfigError {
                    field: "heartbeat",
                    problem: "must be \"worker\" or \"inline\"",
                }))
            }
        }
    };
    if worker_heartbeat && !has_worker {
        return Err(lease_error(
            "ERR_LEASE_CONFIG",
            "heartbeat: Worker is not available here",
            Some("heartbeat"),
        ));
    }

    let global_option = get(options, "global");
    let (global_config, grantor) = if global_option.is_undefined() || global_option.is_null() {
        (None, JsValue::UNDEFINED)
    } else if cfg!(feature = "holder") {
        let (config, grantor) = global_options(&global_option)?;
        (Some(config), grantor)
    } else {
        return Err(lease_error(
            "ERR_LEASE_CONFIG",
            "global mode needs a lease holder, which \"tenure/tabs\" leaves out: import TabLease from \"tenure\"",
            Some("global"),
        ));
    };

    assert_supported("TabLease")?;
    let web_locks = get(options, "webLocks").as_bool() != Some(false);
    let mirror = |lease, margin| TabMirror::new(lease, margin).map_err(|e| config_error(&e));
    let grantor_mirror = match &global_config {
        Some(config) => Some(mirror(
            Micros::from_ms_f64(config.lease_ms),
            Micros::from_ms_f64(config.margin_ms),
        )?),
        None => None,
    };
    let hold = PageHold::new(mirror(heartbeat.lease, heartbeat.margin)?, grantor_mirror);
    Ok(Page {
        name,
        tab_id: random_id("tab-"),
        lease_ms,
        margin_ms,
        renew_interval_ms: heartbeat.renew_interval.as_ms_f64(),
        worker_heartbeat,
        web_locks,
        global: global_config,
        grantor,
        worker_source,
        core_module,
        notify,
        state: RefCell::new(State {
            instance: String::new(),
            watch: None,
            tab_calls: None,
            web_locks_mode: web_locks && lock_manager().is_some(),
            transport: None,
            ready: false,
            queue: Vec::new(),
            closed: false,
            broken: false,
            candidate: false,
            rejoin: false,
            epoch: None,
            grantor_token: None,
            hold,
            active: false,
            mirror_timer: None,
            close_timer: None,
            closing: None,
            leaving: Vec::new(),
            calls: Vec::new(),
            to_engine: VecDeque::new(),
            from_engine: VecDeque::new(),
            listeners: Vec::new(),
        }),
    })
}

/// Resolves every function in `resolvers` with `undefined`.
fn resolve_all(resolvers: Vec<Function>) {
    for resolve in resolvers {
        let _ = resolve.call0(&JsValue::UNDEFINED);
    }
}

impl Page {
    fn with<R>(&self, read: impl FnOnce(&mut State) -> R) -> Option<R> {
        self.state
            .try_borrow_mut()
            .ok()
            .map(|mut state| read(&mut state))
    }

    /// Calls the class's callback: `("active", epoch, grantorToken)`, `("inactive", reason,
    /// voluntary)` or `("failed", error)`. It catches what the user's callbacks throw.
    fn tell(&self, kind: &str, first: &JsValue, second: &JsValue) {
        let _ = self
            .notify
            .call3(&JsValue::UNDEFINED, &JsValue::from_str(kind), first, second);
    }

    fn join(self: &Rc<Self>) {
        if self.with(|s| s.closed).unwrap_or(true) {
            return;
        }
        self.with(|s| s.candidate = true);
        self.ensure_transport();
        self.post(ToEngine::Join);
    }

    /// Becomes idle after an abandoned `acquire()`: no longer a candidate.
    fn abandon(self: &Rc<Self>) {
        self.with(|s| s.candidate = false);
        let _ = self.leave();
    }

    /// Steps down (if active) and stops being a candidate.
    fn withdraw(self: &Rc<Self>) {
        self.with(|s| {
            s.candidate = false;
            s.rejoin = false;
        });
        self.step_down("released");
    }

    fn step_down(self: &Rc<Self>, reason: &str) {
        self.with(|s| s.hold.step_down());
        self.update(reason);
    }

    /// Resolves once the engine withdrew, at once without one.
    fn leave(self: &Rc<Self>) -> Promise {
        if self
            .with(|s| s.transport.is_none() || s.broken)
            .unwrap_or(true)
        {
            return Promise::resolve(&JsValue::UNDEFINED);
        }
        let left = Promise::new(&mut |resolve, _| {
            self.with(|s| s.leaving.push(resolve));
        });
        self.post(ToEngine::Leave);
        left
    }

    fn release(self: &Rc<Self>) -> Promise {
        if self.with(|s| s.closed).unwrap_or(true) {
            return Promise::resolve(&JsValue::UNDEFINED);
        }
        self.withdraw();
        self.leave()
    }

    /// Releases, stops the engine and removes every listener; `None` if already closed.
    fn close(self: &Rc<Self>) -> Option<Promise> {
        if self.with(|s| s.closed).unwrap_or(true) {
            return None;
        }
        self.withdraw();
        if let Some(watch) = self.watch() {
            watch.pause();
        }
        if let Some(calls) = self.calls() {
            calls.close(&lease_error(
                "ERR_TAB_CLOSED",
                "this TabLease was closed",
                None,
            ));
        }
        // Closed before the release is confirmed: the next tab may take the role while the
        // engine's answer is still on its way, and this instance must not read as a mere "idle"
        // one then.
        self.with(|s| s.closed = true);
        let left = self.leave();
        let weak = Rc::downgrade(self);
        Some(Promise::new(&mut |resolve, _| {
            let weak = weak.clone();
            on_settled(&left, move |_| {
                if let Some(page) = weak.upgrade() {
                    page.after_leaving(resolve);
                } else {
                    let _ = resolve.call0(&JsValue::UNDEFINED);
                }
            });
        }))
    }

    fn after_leaving(self: &Rc<Self>, resolve: Function) {
        let (listeners, has_transport) = self
            .with(|s| {
                s.mirror_timer = None;
                (std::mem::take(&mut s.listeners), s.transport.is_some())
            })
            .unwrap_or_default();
        for listener in listeners {
            let _ = listener.target.remove_event_listener_with_callback(
                listener.kind,
                listener.closure.as_ref().unchecked_ref(),
            );
        }
        if !has_transport {
            let _ = resolve.call0(&JsValue::UNDEFINED);
            return;
        }
        let weak = Rc::downgrade(self);
        // A worker that cannot answer (still loading, or broken) is simply stopped.
        let timer = Timeout::new(1_000, move || {
            if let Some(page) = weak.upgrade() {
                page.closed_engine();
            }
        });
        self.with(|s| {
            s.closing = Some(resolve);
            s.close_timer = Some(timer);
        });
        self.post(ToEngine::Close);
    }

    /// The engine closed (or did not answer in time): stop the worker and resolve `close()`.
    fn closed_engine(&self) {
        let (resolve, worker, timer) = self
            .with(|s| {
                let worker = match &s.transport {
                    Some(Transport::Worker { worker, .. }) => Some(worker.clone()),
                    _ => None,
                };
                (s.closing.take(), worker, s.close_timer.take())
            })
            .unwrap_or((None, None, None));
        drop(timer);
        let Some(resolve) = resolve else { return };
        if let Some(worker) = worker {
            worker.terminate();
        }
        let _ = resolve.call0(&JsValue::UNDEFINED);
    }

    fn ensure_transport(self: &Rc<Self>) {
        let Some(false) = self.with(|s| s.transport.is_some()) else {
            return;
        };
        let mut prefix = self.tab_id.clone();
        prefix.push('.');
        let instance = random_id(&prefix);
        let config = EngineConfig {
            name: self.name.clone(),
            instance: instance.clone(),
            lease_ms: self.lease_ms,
            margin_ms: self.margin_ms,
            renew_interval_ms: self.renew_interval_ms,
            web_locks: self.web_locks,
            global: self.global.clone(),
        };
        self.with(|s| s.instance = instance);
        let started = if self.worker_heartbeat {
            self.start_worker()
                .map(|worker| (worker, false))
                .map_err(|error| ("the heartbeat worker could not start: ", error))
        } else {
            let weak = Rc::downgrade(self);
            let emit = Box::new(move |message| {
                if let Some(page) = weak.upgrade() {
                    page.hear_later(message);
                }
            });
            // The page checked the configuration: the engine takes it.
            Engine::new(config.clone(), false, emit)
                .map(|engine| (Transport::Inline(engine), true))
                .map_err(|error| ("the heartbeat engine could not start: ", error))
        };
        match started {
            Ok((transport, ready)) => self.with(|s| {
                s.transport = Some(transport);
                s.ready = ready;
                if !ready {
                    s.queue.push(ToEngine::Init(config));
                }
            }),
            Err((what, error)) => {
                self.fail(&error_with("ERR_TAB_WORKER", what, &error));
                None
            }
        };
    }

    fn start_worker(self: &Rc<Self>) -> Result<Transport, JsValue> {
        let worker = Worker::new(&worker_url(&self.worker_source)?)?;
        // The compiled core goes first: the worker shares it instead of loading its own copy.
        let start = Object::new();
        set(&start, "type", &JsValue::from_str("core"));
        set(&start, "module", &self.core_module);
        if let Err(error) = worker.post_message(&start) {
            worker.terminate();
            return Err(error);
        }
        let weak = Rc::downgrade(self);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(page) = weak.upgrade() else { return };
            if let Some(message) = FromEngine::from_js(&event.data()) {
                page.hear(message);
            }
        });
        let weak = Rc::downgrade(self);
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            event.prevent_default();
            let Some(page) = weak.upgrade() else { return };
            // A Content-Security-Policy without `worker-src blob:` blocks the worker this way.
            let message = get(&event, "message")
                .as_string()
                .unwrap_or_else(|| "could not start it (worker-src blob: allowed?)".to_owned());
            let mut text = String::from("the heartbeat worker failed: ");
            text.push_str(&message);
            page.fail(&lease_error("ERR_TAB_WORKER", &text, None));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Transport::Worker {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Sends `message` to the engine (queued until a worker listens).
    fn post(self: &Rc<Self>, message: ToEngine) {
        enum Via {
            Worker(Worker),
            Inline(bool),
        }
        let via = self.with(|s| {
            if !s.ready {
                if s.transport.is_some() {
                    s.queue.push(message);
                }
                return None;
            }
            match &s.transport {
                Some(Transport::Worker { worker, .. }) => {
                    Some((Via::Worker(worker.clone()), Some(message)))
                }
                Some(Transport::Inline(_)) => {
                    s.to_engine.push_back(message);
                    Some((Via::Inline(s.to_engine.len() == 1), None))
                }
                None => None,
            }
        });
        match via.flatten() {
            Some((Via::Worker(worker), Some(message))) => {
                let _ = worker.post_message(&message.to_js());
            }
            Some((Via::Inline(true), _)) => {
                let weak = Rc::downgrade(self);
                later(move || {
                    if let Some(page) = weak.upgrade() {
                        page.deliver_inline();
                    }
                });
            }
            _ => {}
        }
    }

    /// Inline: hands the engine what the page posted.
    fn deliver_inline(&self) {
        loop {
            let next = self.with(|s| {
                let engine = match &s.transport {
                    Some(Transport::Inline(engine)) => Some(Rc::clone(engine)),
                    _ => None,
                };
                Some((engine?, s.to_engine.pop_front()?))
            });
            let Some((engine, message)) = next.flatten() else {
                return;
            };
            engine.handle(message);
        }
    }

    /// Inline: the engine's message, heard on a microtask, as from a worker.
    fn hear_later(self: &Rc<Self>, message: FromEngine) {
        let first = self
            .with(|s| {
                s.from_engine.push_back(message);
                s.from_engine.len() == 1
            })
            .unwrap_or(false);
        if !first {
            return;
        }
        let weak = Rc::downgrade(self);
        later(move || {
            let Some(page) = weak.upgrade() else { return };
            while let Some(message) = page.with(|s| s.from_engine.pop_front()).flatten() {
                page.hear(message);
            }
        });
    }

    /// Lets go of everything the engine holds, now; the next `join` starts afresh if needed.
    fn detach(self: &Rc<Self>) {
        enum Held {
            Worker(Transport),
            Inline(Rc<Engine>),
        }
        let held = self.with(|s| {
            if s.broken {
                return None;
            }
            match s.transport.take() {
                Some(Transport::Inline(engine)) => {
                    s.transport = Some(Transport::Inline(Rc::clone(&engine)));
                    Some(Held::Inline(engine))
                }
                Some(worker) => Some(Held::Worker(worker)),
                None => None,
            }
        });
        match held.flatten() {
            // Synchronously: the lock and channel are let go before the page may be frozen.
            Some(Held::Inline(engine)) => engine.leave_now(),
            // Stopping the worker frees its Web Lock and channel at once: nothing is left
            // running that could keep the page out of the back/forward cache, or hold the role
            // from it. What it posted and the page has not heard yet is dropped with it: it
            // speaks of a candidate that no longer exists, whose hold the page must not take up
            // on rejoining.
            Some(Held::Worker(Transport::Worker { worker, .. })) => {
                worker.set_onmessage(None);
                worker.set_onerror(None);
                worker.terminate();
                let (calls, leaving) = self
                    .with(|s| {
                        s.ready = false;
                        s.queue.clear();
                        (std::mem::take(&mut s.calls), std::mem::take(&mut s.leaving))
                    })
                    .unwrap_or_default();
                for (_, call) in calls {
                    call.abort();
                }
                resolve_all(leaving);
            }
            _ => {}
        }
    }

    fn fail(self: &Rc<Self>, error: &JsValue) {
        self.with(|s| {
            s.broken = true;
            s.candidate = false;
        });
        self.step_down("closed");
        self.tell("failed", error, &JsValue::UNDEFINED);
        let leaving = self
            .with(|s| std::mem::take(&mut s.leaving))
            .unwrap_or_default();
        resolve_all(leaving);
    }

    /// A message from the engine.
    fn hear(self: &Rc<Self>, message: FromEngine) {
        match message {
            FromEngine::Ready => {
                let queued = self
                    .with(|s| {
                        s.ready = true;
                        std::mem::take(&mut s.queue)
                    })
                    .unwrap_or_default();
                for message in queued {
                    self.post(message);
                }
            }
            // The engine writes a heartbeat only after this answer: a frozen or hung page cannot
            // give it, so its role lapses. Messages, unlike timers, are not throttled in hidden
            // tabs.
            FromEngine::Ping(number) => self.post(ToEngine::Pong(number)),
            FromEngine::WebLocks(locks) => {
                self.with(|s| s.web_locks_mode = locks);
            }
            FromEngine::Role(report) => {
                let taken = self.with(|s| {
                    if s.closed || !s.candidate {
                        return false;
                    }
                    s.epoch = Some(report.token);
                    match report_read(&report) {
                        Some((now, origin, epoch, remaining, sent)) => {
                            s.hold.role_granted(now, origin, epoch, remaining, sent)
                        }
                        // A report that cannot be read ends any hold instead: failing safe.
                        None => s.hold.step_down(),
                    }
                    true
                });
                if taken == Some(true) {
                    self.update("expired");
                }
            }
            FromEngine::Renewed(report) => {
                self.with(|s| {
                    if let Some((now, origin, epoch, remaining, sent)) = report_read(&report) {
                        s.hold.role_renewed(now, origin, epoch, remaining, sent);
                    }
                });
                self.update("expired");
            }
            FromEngine::RoleLost { epoch, reason } => {
                let mirrored = self
                    .with(|s| Token::from_f64(epoch).is_ok_and(|epoch| s.hold.role_lost(epoch)));
                if mirrored == Some(true) {
                    self.update(&reason);
                }
            }
            FromEngine::Global(report) => {
                self.with(|s| {
                    let counts = match report_read(&report) {
                        Some((now, origin, token, remaining, sent)) => {
                            s.hold.grantor_granted(now, origin, token, remaining, sent)
                        }
                        // A report that cannot be read drops the lease mirrored: failing safe.
                        None => {
                            s.hold.grantor_lost();
                            false
                        }
                    };
                    if counts {
                        s.grantor_token = Some(report.token);
                    }
                });
                self.update("grantor_lost");
            }
            FromEngine::GlobalLost => {
                self.with(|s| s.hold.grantor_lost());
                self.update("grantor_lost");
            }
            FromEngine::Left => {
                let leaving = self
                    .with(|s| std::mem::take(&mut s.leaving))
                    .unwrap_or_default();
                resolve_all(leaving);
            }
            FromEngine::Closed => self.closed_engine(),
            FromEngine::Call(call) => self.call(call),
            FromEngine::Abort(id) => {
                let call = self
                    .with(|s| {
                        s.calls
                            .iter()
                            .find(|(i, _)| *i == id)
                            .map(|(_, c)| c.clone())
                    })
                    .flatten();
                if let Some(call) = call {
                    call.abort();
                }
            }
            FromEngine::Failed(message) => {
                let mut text = String::from("the heartbeat worker failed: ");
                text.push_str(&message);
                self.fail(&lease_error("ERR_TAB_WORKER", &text, None));
            }
        }
    }

    /// Moves between active and not, telling the class; `reason` explains a step down.
    fn update(self: &Rc<Self>, reason: &str) {
        let (mono, wall) = now_ms();
        let decided = self.with(|s| {
            if s.closed {
                return None;
            }
            // The core says where the hold stands by this side's clocks, and which lapse ended
            // it.
            let epoch = s.hold.epoch();
            let standing = s.hold.standing(reading(mono, wall));
            // The hold ran out here (a freeze, a hang, messages that never came): the core
            // dropped it; have the engine step down so the role is freed. The yield names the
            // hold: it may arrive after the engine moved on to a newer one, which it must not
            // end.
            let yielded = epoch.filter(|_| standing == PageStanding::Expired);
            let active = standing == PageStanding::Holds;
            let change = if active && !s.active {
                s.active = true;
                Change::Active(s.epoch, s.grantor_token)
            } else if !active && s.active {
                s.active = false;
                s.mirror_timer = None;
                let lapse = matches!(standing, PageStanding::Expired | PageStanding::GrantorLost);
                Change::Inactive(if lapse { standing.as_str() } else { reason }.to_owned())
            } else if active {
                Change::Rearm
            } else {
                Change::None
            };
            Some((yielded, change))
        });
        let Some((yielded, change)) = decided.flatten() else {
            return;
        };
        if let Some(epoch) = yielded {
            self.post(ToEngine::Yield(epoch.get() as f64));
        }
        let number = |n: Option<f64>| n.map_or(JsValue::NULL, JsValue::from_f64);
        match change {
            Change::Active(epoch, token) => {
                self.arm_mirror_timer();
                self.tell("active", &number(epoch), &number(token));
            }
            Change::Inactive(reason) => {
                let voluntary = TabMirror::ended_voluntarily(&reason);
                self.tell(
                    "inactive",
                    &JsValue::from_str(&reason),
                    &JsValue::from_bool(voluntary),
                );
            }
            Change::Rearm => self.arm_mirror_timer(),
            Change::None => {}
        }
    }

    fn arm_mirror_timer(self: &Rc<Self>) {
        let until = self
            .with(|s| s.hold.safe_until().map_or(0.0, |at| at.0 as f64 / 1000.0))
            .unwrap_or(0.0);
        let left = until - performance_now();
        let weak = Rc::downgrade(self);
        // A backstop only: in a hidden tab this timer may fire a minute late, but every read of
        // `isActive` or `signal`, and every wake-up event, checks the clocks directly.
        let delay_ms = (left.max(0.0) + 1.0).min(2_147_483_647.0);
        let timer = Timeout::new(delay_ms as u32, move || {
            if let Some(page) = weak.upgrade() {
                page.update("expired");
            }
        });
        let previous = self.with(|s| s.mirror_timer.replace(timer));
        drop(previous);
    }

    /// Makes a grantor call for the engine, with a signal that aborts when the engine stops
    /// waiting, and answers with the outcome.
    fn call(self: &Rc<Self>, call: Call) {
        let controller = AbortController::new().ok();
        if let Some(controller) = &controller {
            self.with(|s| s.calls.push((call.id, controller.clone())));
        }
        let method = get(&self.grantor, &call.method).dyn_into::<Function>().ok();
        let promise = match method {
            None => Promise::resolve(&JsValue::UNDEFINED),
            Some(method) => {
                let args = Object::assign(&Object::new(), call.args.unchecked_ref());
                if let Some(controller) = &controller {
                    set(&args, "signal", &controller.signal());
                }
                // The grantor is user code: it may throw synchronously, return a value or a
                // promise.
                match method.call1(&self.grantor, &args) {
                    Ok(value) => Promise::resolve(&value),
                    Err(error) => Promise::reject(&error),
                }
            }
        };
        let id = call.id;
        let weak = Rc::downgrade(self);
        on_settled(&promise, move |outcome| {
            let Some(page) = weak.upgrade() else { return };
            page.with(|s| s.calls.retain(|(i, _)| *i != id));
            let answer = match outcome {
                Ok(value) => Answer {
                    id,
                    ok: true,
                    value,
                },
                Err(error) => Answer {
                    id,
                    ok: false,
                    value: plain_error(&error),
                },
            };
            if page.with(|s| s.transport.is_some()) == Some(true) {
                page.post(ToEngine::Answer(answer));
            }
        });
    }

    /// Leaving the page (closing, navigating, entering the back/forward cache): hand off now
    /// rather than make the next tab wait, and rejoin if the page comes back from the cache.
    fn pagehide(self: &Rc<Self>) {
        // A message reaching a cached page's channel evicts the page: stop listening.
        if let Some(watch) = self.watch() {
            watch.pause();
        }
        if let Some(calls) = self.calls() {
            calls.mute();
        }
        let leaving = self.with(|s| {
            if !s.candidate {
                return None;
            }
            s.candidate = false;
            s.rejoin = true;
            Some((s.hold.epoch(), s.instance.clone()))
        });
        let Some((epoch, instance)) = leaving.flatten() else {
            return;
        };
        self.step_down("pagehide");
        if let (Some(epoch), true) = (epoch, has_global_function("BroadcastChannel")) {
            // The logged release may never commit before the page is gone; this message leaves
            // now, so candidates need not wait out the lease.
            let mut name = String::from(NAME_PREFIX);
            name.push_str(&self.name);
            if let Ok(channel) = BroadcastChannel::new(&name) {
                let _ = channel.post_message(&EntryWire::leaving(&instance, epoch.get()).to_js());
                channel.close();
            }
        }
        self.detach();
    }

    fn pageshow(self: &Rc<Self>, event: &Event) {
        let persisted = get(event, "persisted").as_bool() == Some(true);
        let rejoin =
            persisted && self.with(|s| std::mem::replace(&mut s.rejoin, false)) == Some(true);
        if rejoin {
            self.join();
        }
        if let Some(watch) = self.watch().filter(|_| !self.is_closed()) {
            watch.resume();
        }
        if let Some(calls) = self.calls().filter(|_| !self.is_closed()) {
            calls.listen();
        }
        self.revalidate();
    }

    fn revalidate(self: &Rc<Self>) {
        self.update("expired");
        self.post(ToEngine::Check);
        if let Some(watch) = self.watch() {
            watch.check();
        }
    }

    /// Steps down now (the page stops acting: `"handed_off"`) and has the engine hand the role
    /// to `to`.
    fn hand_off(self: &Rc<Self>, to: Option<String>) {
        self.step_down("handed_off");
        self.post(ToEngine::HandOff(to));
    }

    fn watch(&self) -> Option<Rc<Watcher>> {
        self.with(|s| s.watch.clone()).flatten()
    }

    fn calls(&self) -> Option<Rc<Calls>> {
        self.with(|s| s.tab_calls.clone()).flatten()
    }

    /// The epoch this page holds now, judged on its clocks (`None` while not active).
    fn held(self: &Rc<Self>) -> Option<u64> {
        self.update("expired");
        self.with(|s| s.hold.epoch().filter(|_| s.active).map(Token::get))
            .flatten()
    }

    fn is_closed(&self) -> bool {
        self.with(|s| s.closed).unwrap_or(true)
    }

    /// Starts the watch of who holds the role, each change told to the class as
    /// `("holder", change)`, and the calls into the active tab, which it routes.
    fn start_watch(self: &Rc<Self>) {
        let mut channel = String::from(NAME_PREFIX);
        channel.push_str(&self.name);
        let mut call_channel = String::from(CALL_PREFIX);
        call_channel.push_str(&self.name);
        let page = Rc::downgrade(self);
        let candidate = page.clone();
        let calls = Calls::new(
            self.tab_id.clone(),
            call_channel,
            Box::new(move || page.upgrade().and_then(|page| page.held())),
            Box::new(move || {
                candidate
                    .upgrade()
                    .and_then(|page| page.with(|s| s.candidate && !s.closed && !s.broken))
                    .unwrap_or(false)
            }),
        );
        let page = Rc::downgrade(self);
        let watch = Watcher::new(
            self.name.clone(),
            channel,
            Micros::from_ms_f64(self.lease_ms),
            Box::new(move |change| {
                let Some(page) = page.upgrade() else { return };
                if let Some(calls) = page.calls() {
                    calls.holder_changed(change.holder.as_ref().map(|_| change.epoch));
                }
                page.tell("holder", &change_js(change), &JsValue::UNDEFINED);
            }),
        );
        self.with(|s| {
            s.watch = Some(Rc::clone(&watch));
            s.tab_calls = Some(Rc::clone(&calls));
        });
        calls.listen();
        watch.resume();
    }

    fn listen(self: &Rc<Self>) {
        let window = global();
        let document = get(&window, "document");
        self.on(&window, "pagehide", |page, _| page.pagehide());
        self.on(&window, "pageshow", |page, event| page.pageshow(event));
        // No hand-off on `freeze`: nothing started there is sure to finish before the page
        // stops, and a short freeze should not cost the role. A frozen page cannot answer its
        // worker, so its heartbeat stops and another tab takes over after `leaseMs`; on `resume`
        // it re-checks first.
        self.on(&document, "resume", |page, _| page.revalidate());
        self.on(&document, "visibilitychange", |page, _| {
            let document = get(&global(), "document");
            if get(&document, "visibilityState").as_string().as_deref() == Some("visible") {
                page.revalidate();
            }
        });
        self.on(&window, "online", |page, _| page.revalidate());
    }

    fn on(self: &Rc<Self>, target: &JsValue, kind: &'static str, handler: fn(&Rc<Page>, &Event)) {
        let weak: Weak<Page> = Rc::downgrade(self);
        let closure = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            if let Some(page) = weak.upgrade() {
                handler(&page, &event);
            }
        });
        let target: EventTarget = target.clone().unchecked_into();
        let _ = target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
        self.with(|s| {
            s.listeners.push(Listener {
                target,
                kind,
                closure,
            })
        });
    }
}

/// A call's name: a non-empty string.
fn call_name(name: &JsValue) -> Result<String, JsValue> {
    name.as_string().filter(|n| !n.is_empty()).ok_or_else(|| {
        lease_error(
            "ERR_LEASE_USAGE",
            "a call's name must be a non-empty string",
            Some("name"),
        )
    })
}

/// A change as the class hears it: `{holder, epoch, since}` (`holder`: a tab id or null;
/// `since`: when this page learned of it, in ms since the epoch).
fn change_js(change: &HolderChange) -> JsValue {
    let object = Object::new();
    let holder = change
        .holder
        .as_deref()
        .map_or(JsValue::NULL, JsValue::from_str);
    set(&object, "holder", &holder);
    set(&object, "epoch", &JsValue::from_f64(change.epoch as f64));
    set(
        &object,
        "since",
        &JsValue::from_f64((change.since.0 / 1_000) as f64),
    );
    object.into()
}

/// An error as the engine receives it: its message and the fields a holder reads.
fn plain_error(error: &JsValue) -> JsValue {
    let plain = Object::new();
    set(&plain, "message", &JsValue::from_str(&describe(error)));
    for field in ["code", "kind", "status", "grantorCode", "retryAfterMs"] {
        let value = get(error, field);
        if !value.is_undefined() {
            set(&plain, field, &value);
        }
    }
    plain.into()
}

/// The page's side of a `TabLease`; the package's `TabLease` class wraps it.
#[wasm_bindgen]
pub struct TabLeaseCore {
    page: Rc<Page>,
}

#[wasm_bindgen]
impl TabLeaseCore {
    /// Checks `options` (errors name the option; `ERR_TAB_UNSUPPORTED` where IndexedDB is
    /// missing) and starts following the page's lifecycle. `workerSource` is the heartbeat
    /// worker's script, `coreModule` the compiled core it is given; `notify(kind, a, b)` hears
    /// `("active", epoch, grantorToken)`, `("inactive", reason, voluntary)` and
    /// `("failed", error)`.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(
        name: JsValue,
        options: JsValue,
        worker_source: JsValue,
        core_module: JsValue,
        notify: Function,
    ) -> Result<TabLeaseCore, JsValue> {
        let page = Rc::new(page(&name, &options, worker_source, core_module, notify)?);
        if !get(&global(), "document").is_undefined() {
            page.listen();
        }
        page.start_watch();
        Ok(TabLeaseCore { page })
    }

    /// This instance's tab id, as every tab names the holder.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = tabId)]
    pub fn tab_id(&self) -> String {
        self.page.tab_id.clone()
    }

    /// Registers `handler` for calls of `name` while this tab is active.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn handle(&self, name: JsValue, handler: Function) -> Result<(), JsValue> {
        let name = call_name(&name)?;
        if let Some(calls) = self.page.calls() {
            calls.handle(name, handler);
        }
        Ok(())
    }

    /// Unregisters `handler` for `name`, if it is still the one registered.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn unhandle(&self, name: JsValue, handler: Function) {
        if let (Some(name), Some(calls)) = (name.as_string(), self.page.calls()) {
            calls.unhandle(&name, &handler);
        }
    }

    /// Calls `name` with `args` in the active tab, failing after `timeoutMs` (default 10 s):
    /// `[promise, id]`, the id for `cancelCall`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn call(
        &self,
        name: JsValue,
        args: JsValue,
        timeout_ms: JsValue,
    ) -> Result<Array, JsValue> {
        let name = call_name(&name)?;
        let timeout = if timeout_ms.is_undefined() {
            DEFAULT_CALL_TIMEOUT
        } else {
            checked_ms("timeoutMs", timeout_ms.as_f64().unwrap_or(f64::NAN))
                .map_err(|e| config_error(&e))?
        };
        let calls = self
            .page
            .calls()
            .ok_or_else(|| lease_error("ERR_TAB_CLOSED", "this TabLease was closed", None))?;
        let (promise, id) = calls.call(JsValue::from_str(&name), args, timeout);
        Ok(Array::of2(&promise, &JsValue::from_f64(id as f64)))
    }

    /// Hands the role over to the tab `to` (a tab id; `undefined`: whichever candidate is
    /// next). Rejects `ERR_LEASE_NOT_HELD` unless this tab is active, and, without stepping
    /// down, `ERR_TAB_HANDOFF_TARGET` unless the named tab says within a second that it is a
    /// candidate of this name; else this tab steps down (`"handed_off"`) and the promise
    /// resolves.
    #[wasm_bindgen(skip_jsdoc, js_name = handOff)]
    pub fn hand_off(&self, to: JsValue) -> Promise {
        let page = Rc::clone(&self.page);
        let to = if to.is_undefined() || to.is_null() {
            None
        } else {
            match to.as_string().filter(|to| !to.is_empty()) {
                Some(to) if to == page.tab_id => {
                    return Promise::reject(&lease_error(
                        "ERR_LEASE_USAGE",
                        "handOff(toTabId) names this tab itself",
                        Some("toTabId"),
                    ))
                }
                Some(to) => Some(to),
                None => {
                    return Promise::reject(&lease_error(
                        "ERR_LEASE_USAGE",
                        "handOff(toTabId) needs a tab id (a string) or nothing",
                        Some("toTabId"),
                    ))
                }
            }
        };
        if page.held().is_none() {
            return Promise::reject(&lease_error(
                "ERR_LEASE_NOT_HELD",
                "only the active tab can hand the role over",
                None,
            ));
        }
        let Some(target) = to else {
            page.hand_off(None);
            return Promise::resolve(&JsValue::UNDEFINED);
        };
        let Some(calls) = page.calls() else {
            return Promise::reject(&lease_error(
                "ERR_TAB_CLOSED",
                "this TabLease was closed",
                None,
            ));
        };
        let probe = calls.probe(&target, HANDOFF_PROBE_TIMEOUT);
        Promise::new(&mut |resolve, reject| {
            let page = Rc::clone(&page);
            let target = target.clone();
            on_settled(&probe, move |outcome| {
                if outcome.ok().and_then(|c| c.as_bool()) != Some(true) {
                    let mut message = String::from("tab ");
                    message.push_str(&target);
                    message.push_str(
                        " is not a candidate of this name (or did not answer): nothing was handed over",
                    );
                    let error = lease_error("ERR_TAB_HANDOFF_TARGET", &message, Some("toTabId"));
                    let _ = reject.call1(&JsValue::UNDEFINED, &error);
                    return;
                }
                if page.held().is_none() {
                    let error = lease_error(
                        "ERR_LEASE_NOT_HELD",
                        "this tab stopped being active before the handover",
                        None,
                    );
                    let _ = reject.call1(&JsValue::UNDEFINED, &error);
                    return;
                }
                page.hand_off(Some(target));
                let _ = resolve.call0(&JsValue::UNDEFINED);
            });
        })
    }

    /// Gives up on call `id` (its caller's signal aborted).
    #[wasm_bindgen(skip_jsdoc, js_name = cancelCall)]
    pub fn cancel_call(&self, id: f64) {
        if let Some(calls) = self.page.calls() {
            calls.cancel(id as u64);
        }
    }

    /// The last change of holder this page saw (`{holder, epoch, since}`), or `undefined`
    /// before the log was read.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn holder(&self) -> JsValue {
        self.page
            .watch()
            .and_then(|watch| watch.holder())
            .map_or(JsValue::UNDEFINED, |change| change_js(&change))
    }

    /// The role's name.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn name(&self) -> String {
        self.page.name.clone()
    }

    /// The heartbeat lease, in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = leaseMs)]
    pub fn lease_ms(&self) -> f64 {
        self.page.lease_ms
    }

    /// The margin, in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = marginMs)]
    pub fn margin_ms(&self) -> f64 {
        self.page.margin_ms
    }

    /// The heartbeat's interval, in ms.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = renewIntervalMs)]
    pub fn renew_interval_ms(&self) -> f64 {
        self.page.renew_interval_ms
    }

    /// `"worker"` or `"inline"`.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn heartbeat(&self) -> String {
        if self.page.worker_heartbeat {
            "worker"
        } else {
            "inline"
        }
        .to_owned()
    }

    /// `"web-locks"`, or `"lease"` where Web Locks are missing or disabled.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn mode(&self) -> String {
        let locks = self.page.with(|s| s.web_locks_mode).unwrap_or(false);
        if locks { "web-locks" } else { "lease" }.to_owned()
    }

    /// `"idle"`, `"waiting"`, `"active"` or `"closed"`, judged on this context's clocks now.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn state(&self) -> String {
        if self.closed() {
            return "closed".to_owned();
        }
        self.page.update("expired");
        let (active, candidate) = self
            .page
            .with(|s| (s.active, s.candidate))
            .unwrap_or_default();
        match (active, candidate) {
            (true, _) => "active",
            (false, true) => "waiting",
            (false, false) => "idle",
        }
        .to_owned()
    }

    /// Whether this tab is the active one now, judged on this context's clocks.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = isActive)]
    pub fn is_active(&self) -> bool {
        self.page.update("expired");
        self.page.with(|s| s.active).unwrap_or(false)
    }

    /// The epoch of the current or most recent hold, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn epoch(&self) -> Option<f64> {
        self.page.with(|s| s.epoch).flatten()
    }

    /// Global mode: the grantor token of the current or most recent grant, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = grantorToken)]
    pub fn grantor_token(&self) -> Option<f64> {
        self.page.with(|s| s.grantor_token).flatten()
    }

    /// Whether `close()` was called.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn closed(&self) -> bool {
        self.page.with(|s| s.closed).unwrap_or(true)
    }

    /// Becomes a candidate.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn join(&self) {
        self.page.join();
    }

    /// Withdraws the candidacy of an `acquire()` nobody waits for any more (not active).
    #[wasm_bindgen(skip_jsdoc)]
    pub fn abandon(&self) {
        self.page.abandon();
    }

    /// Steps down and withdraws; resolves once the role is free for the next tab.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn release(&self) -> Promise {
        self.page.release()
    }

    /// Releases, stops the engine and removes every listener; resolves once done, or
    /// `undefined` when already closed.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn close(&self) -> Option<Promise> {
        self.page.close()
    }
}
