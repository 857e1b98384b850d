//! `ObservationCore`: one `observe()` of a resource, the core's [`Watcher`] driven over a
//! grantor's change feed. The package's `observe` wraps it into an async iterator.
//!
//! A [`Feed`] does one fetch at a time as the watcher asks (the reference grantor's long poll,
//! or a grantor's `status()` polled); the watcher decides what is news, when to fetch again and
//! when to resynchronise. Reports wait in a queue until the iterator takes them. Nothing here is
//! borrowed while JavaScript runs: a feed's request, an abort and a waiting iterator's promise
//! are all called with the state's borrow released.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::error::{get, set};
use super::fetch::{caller_signal, grantor_error, malformed, Detail};
use super::js::{date_now, performance_now};
use crate::core::{
    ends_watch, status_version, FetchId, HolderView, Micros, MonoTime, WatchConfig, WatchOutput,
    Watcher,
};
use crate::protocol::Token;

/// A fetch in progress: resolves once the fetch ended, having passed each state it learned to
/// its sink.
pub type Fetching = Pin<Box<dyn Future<Output = Result<(), JsValue>>>>;

/// Where a resource's states come from.
pub trait Feed {
    /// How the watcher should time its fetches.
    fn config(&self) -> WatchConfig;
    /// Starts one fetch: the first state past `after` (held open by a change feed), or the
    /// current state for `None`. Each state learned goes to `sink`; `signal` aborts it.
    fn fetch(&self, after: Option<u64>, signal: AbortSignal, sink: Sink) -> Fetching;
}

/// Takes the states a fetch learns.
pub type Sink = Rc<dyn Fn(HolderView)>;

/// A grantor polled through its `status(resource, { signal })`: any grantor object, for stores
/// without a change feed.
pub struct StatusFeed {
    grantor: JsValue,
    resource: JsValue,
    config: WatchConfig,
    /// The largest token seen, which numbers the states where nobody holds the resource.
    largest_token: Rc<std::cell::Cell<u64>>,
}

impl StatusFeed {
    /// Polls `grantor.status(resource)`, each poll abandoned after `timeout`, at most `poll_max`
    /// apart.
    pub fn new(grantor: JsValue, resource: JsValue, timeout: Micros, poll_max: Micros) -> Self {
        StatusFeed {
            grantor,
            resource,
            config: WatchConfig::poll(timeout, poll_max),
            largest_token: Rc::default(),
        }
    }
}

impl Feed for StatusFeed {
    fn config(&self) -> WatchConfig {
        self.config
    }

    fn fetch(&self, _after: Option<u64>, signal: AbortSignal, sink: Sink) -> Fetching {
        let grantor = self.grantor.clone();
        let resource = self.resource.clone();
        let largest = Rc::clone(&self.largest_token);
        Box::pin(async move {
            let status = get(&grantor, "status");
            let Some(status) = status.dyn_ref::<Function>() else {
                return Err(grantor_error(
                    "bad_request",
                    "observe: the grantor has no status method",
                    Detail::default(),
                ));
            };
            let options = Object::new();
            set(&options, "signal", &signal);
            let pending = status.call2(&grantor, &resource, &options)?;
            let reply = wasm_bindgen_futures::JsFuture::from(Promise::resolve(&pending)).await?;
            let mut view = held_view(&reply, "status")?;
            if let Some(token) = view.token {
                largest.set(largest.get().max(token));
            }
            view.version = status_version(view.token, largest.get());
            sink(view);
            Ok(())
        })
    }
}

/// A reply's `holder`, `token`, `expiresInMs` and `handedTo` (its `version` left 0): all three
/// of the first set, or all absent; anything else is a `malformed_reply`.
pub fn held_view(reply: &JsValue, what: &str) -> Result<HolderView, JsValue> {
    let bad = |problem: &str| malformed(what, problem, None);
    if !reply.is_object() {
        return Err(bad("reply is not an object"));
    }
    let absent = |value: &JsValue| value.is_null() || value.is_undefined();
    let (holder, token, expires) = (
        get(reply, "holder"),
        get(reply, "token"),
        get(reply, "expiresInMs"),
    );
    let handed_to = match get(reply, "handedTo") {
        value if absent(&value) => None,
        value => Some(
            value
                .as_string()
                .ok_or_else(|| bad("handedTo is not a string"))?,
        ),
    };
    if absent(&holder) && absent(&token) && absent(&expires) {
        return Ok(HolderView {
            version: 0,
            holder: None,
            token: None,
            expires_in_ms: None,
            handed_to,
        });
    }
    let holder = holder
        .as_string()
        .ok_or_else(|| bad("holder is not a string"))?;
    let token = token
        .as_f64()
        .and_then(|t| Token::from_f64(t).ok())
        .ok_or_else(|| bad("token is not a valid fencing token"))?;
    let expires = expires
        .as_f64()
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .ok_or_else(|| bad("expiresInMs is not a non-negative number"))?;
    Ok(HolderView {
        version: 0,
        holder: Some(holder),
        token: Some(token.get()),
        expires_in_ms: Some(expires.ceil() as u64),
        handed_to,
    })
}

/// How an observation stands for its iterator.
enum End {
    /// Still watching.
    Open,
    /// Closed by the caller (`return()`, its signal): the iterator is done.
    Closed,
    /// A failure no retry mends: the iterator rejects with it.
    Failed(JsValue),
}

struct State {
    watcher: Watcher,
    feed: Rc<dyn Feed>,
    /// The fetch in flight and its controller.
    in_flight: Option<(FetchId, AbortController)>,
    timer: Option<Timeout>,
    /// Changes reported and not yet taken.
    queue: VecDeque<JsValue>,
    /// The latest change reported.
    current: JsValue,
    /// A `next()` waiting for a change: its resolve and reject.
    waiting: Option<(Function, Function)>,
    end: End,
}

/// What a step leaves to do once the borrow is released.
#[derive(Default)]
struct Deferred {
    fetches: Vec<(FetchId, Option<u64>, AbortSignal)>,
    aborts: Vec<AbortController>,
    settle: Option<(Function, JsValue)>,
}

/// One `observe()`: the package's iterator calls `next()` and `close()`.
#[wasm_bindgen]
pub struct ObservationCore {
    state: Rc<RefCell<State>>,
}

fn mono_now() -> MonoTime {
    MonoTime(Micros::from_ms_f64(performance_now()).0)
}

/// A reported state as the iterator yields it.
fn change(view: &HolderView) -> JsValue {
    let object = Object::new();
    let text_or_null =
        |text: &Option<String>| text.as_deref().map_or(JsValue::NULL, JsValue::from_str);
    let number_or_null = |n: Option<u64>| n.map_or(JsValue::NULL, |n| JsValue::from_f64(n as f64));
    set(&object, "holder", &text_or_null(&view.holder));
    set(&object, "token", &number_or_null(view.token));
    set(&object, "expiresInMs", &number_or_null(view.expires_in_ms));
    set(&object, "handedTo", &text_or_null(&view.handed_to));
    set(&object, "version", &JsValue::from_f64(view.version as f64));
    set(&object, "since", &JsValue::from_f64(date_now()));
    object.into()
}

/// `{ value, done }`.
fn iteration(value: &JsValue, done: bool) -> JsValue {
    let object = Object::new();
    set(&object, "value", value);
    set(&object, "done", &JsValue::from_bool(done));
    object.into()
}

impl ObservationCore {
    /// Starts watching through `feed` until `signal` (the caller's, if any) aborts.
    pub fn start(feed: Rc<dyn Feed>, signal: &JsValue) -> Result<ObservationCore, JsValue> {
        let Ok(signal) = caller_signal(signal) else {
            return Err(grantor_error(
                "bad_request",
                "observe: signal is not an AbortSignal",
                Detail::default(),
            ));
        };
        let watcher = Watcher::new(feed.config(), super::js::random_seed(), mono_now());
        let state = Rc::new(RefCell::new(State {
            watcher,
            feed,
            in_flight: None,
            timer: None,
            queue: VecDeque::new(),
            current: JsValue::NULL,
            waiting: None,
            end: End::Open,
        }));
        let core = ObservationCore { state };
        if let Some(signal) = signal {
            if signal.aborted() {
                core.close();
                return Ok(core);
            }
            let weak = Rc::downgrade(&core.state);
            let on_abort = Closure::once_into_js(move || {
                if let Some(state) = weak.upgrade() {
                    ObservationCore { state }.close();
                }
            });
            let options = web_sys::AddEventListenerOptions::new();
            options.set_once(true);
            signal.add_event_listener_with_callback_and_add_event_listener_options(
                "abort",
                on_abort.unchecked_ref(),
                &options,
            )?;
        }
        step(&core.state, |w| w.handle_timeout(mono_now()));
        Ok(core)
    }
}

#[wasm_bindgen]
impl ObservationCore {
    /// The next change: at once if one is waiting, else once one is reported; `done` once closed.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn next(&self) -> Promise {
        let mut state = self.state.borrow_mut();
        if let Some(value) = state.queue.pop_front() {
            return Promise::resolve(&iteration(&value, false));
        }
        match &state.end {
            End::Closed => return Promise::resolve(&iteration(&JsValue::UNDEFINED, true)),
            End::Failed(error) => return Promise::reject(error),
            End::Open => {}
        }
        let mut pending = None;
        let promise = Promise::new(&mut |resolve, reject| pending = Some((resolve, reject)));
        // A second `next()` while one waits takes its place; the first is answered as done.
        let earlier = match pending {
            Some(pending) => state.waiting.replace(pending),
            None => None,
        };
        drop(state);
        if let Some((resolve, _)) = earlier {
            let _ = resolve.call1(&JsValue::UNDEFINED, &iteration(&JsValue::UNDEFINED, true));
        }
        promise
    }

    /// The latest change reported, or `null` before the first.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn current(&self) -> JsValue {
        self.state.borrow().current.clone()
    }

    /// Stops watching: the fetch in flight is aborted and a waiting `next()` is done.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn close(&self) {
        let mut state = self.state.borrow_mut();
        if !matches!(state.end, End::Open) {
            return;
        }
        state.end = End::Closed;
        state.watcher.stop();
        state.timer = None;
        state.queue.clear();
        let controller = state.in_flight.take().map(|(_, controller)| controller);
        let waiting = state.waiting.take();
        drop(state);
        if let Some(controller) = controller {
            controller.abort();
        }
        if let Some((resolve, _)) = waiting {
            let _ = resolve.call1(&JsValue::UNDEFINED, &iteration(&JsValue::UNDEFINED, true));
        }
    }
}

/// Feeds the watcher `input`, then carries out what it asks: starts fetches, aborts abandoned
/// ones, queues reports, re-arms the timer; JavaScript runs only after the borrow is released.
fn step(state_rc: &Rc<RefCell<State>>, input: impl FnOnce(&mut Watcher)) {
    let mut deferred = Deferred::default();
    {
        let mut state = state_rc.borrow_mut();
        if !matches!(state.end, End::Open) {
            return;
        }
        input(&mut state.watcher);
        while let Some(output) = state.watcher.poll_output() {
            match output {
                WatchOutput::Fetch { id, after } => match AbortController::new() {
                    Ok(controller) => {
                        deferred.fetches.push((id, after, controller.signal()));
                        state.in_flight = Some((id, controller));
                    }
                    Err(_) => state.watcher.handle_failure(mono_now(), id, None),
                },
                WatchOutput::Abandon(id) => {
                    if let Some((current, _)) = &state.in_flight {
                        if *current == id {
                            if let Some((_, controller)) = state.in_flight.take() {
                                deferred.aborts.push(controller);
                            }
                        }
                    }
                }
                WatchOutput::Report(view) => {
                    let value = change(&view);
                    state.current = value.clone();
                    state.queue.push_back(value);
                }
            }
        }
        if state.waiting.is_some() && !state.queue.is_empty() {
            if let (Some((resolve, _)), Some(value)) =
                (state.waiting.take(), state.queue.pop_front())
            {
                deferred.settle = Some((resolve, iteration(&value, false)));
            }
        }
        arm(state_rc, &mut state);
    }
    for controller in deferred.aborts {
        controller.abort();
    }
    if let Some((resolve, value)) = deferred.settle {
        let _ = resolve.call1(&JsValue::UNDEFINED, &value);
    }
    for (id, after, signal) in deferred.fetches {
        start_fetch(state_rc, id, after, signal);
    }
}

/// Arms the timer for the watcher's next deadline.
fn arm(state_rc: &Rc<RefCell<State>>, state: &mut State) {
    state.timer = state.watcher.poll_timeout().map(|at| {
        let wait = at
            .since(mono_now())
            .as_ms_f64()
            .ceil()
            .min(f64::from(u32::MAX)) as u32;
        let weak = Rc::downgrade(state_rc);
        Timeout::new(wait, move || {
            if let Some(state) = weak.upgrade() {
                step(&state, |w| w.handle_timeout(mono_now()));
            }
        })
    });
}

/// Runs fetch `id` and reports its states and its end to the watcher.
fn start_fetch(
    state_rc: &Rc<RefCell<State>>,
    id: FetchId,
    after: Option<u64>,
    signal: AbortSignal,
) {
    let feed = Rc::clone(&state_rc.borrow().feed);
    let weak = Rc::downgrade(state_rc);
    let sink: Sink = Rc::new(move |view| {
        if let Some(state) = weak.upgrade() {
            step(&state, |w| w.handle_state(mono_now(), id, view));
        }
    });
    let fetching = feed.fetch(after, signal, sink);
    let weak = Rc::downgrade(state_rc);
    wasm_bindgen_futures::spawn_local(async move {
        let result = fetching.await;
        let Some(state) = weak.upgrade() else {
            return;
        };
        match result {
            Ok(()) => step(&state, |w| w.handle_done(mono_now(), id)),
            Err(error) => {
                let kind = get(&error, "kind").as_string().unwrap_or_default();
                if ends_watch(&kind) {
                    fail(&state, error);
                    return;
                }
                let retry_after = get(&error, "retryAfterMs")
                    .as_f64()
                    .map(Micros::from_ms_f64);
                step(&state, |w| w.handle_failure(mono_now(), id, retry_after));
            }
        }
    });
}

/// Ends the observation with `error`: a waiting `next()` rejects with it, and so do later ones.
fn fail(state_rc: &Rc<RefCell<State>>, error: JsValue) {
    let mut state = state_rc.borrow_mut();
    if !matches!(state.end, End::Open) {
        return;
    }
    state.watcher.stop();
    state.timer = None;
    state.in_flight = None;
    state.end = End::Failed(error.clone());
    let waiting = state.waiting.take();
    drop(state);
    if let Some((_, reject)) = waiting {
        let _ = reject.call1(&JsValue::UNDEFINED, &error);
    }
}

/// Watches `resource` on any grantor object by polling its `status(resource, { signal })`: for
/// grantors without a change feed. Each poll is abandoned after 10 s; polls are 100 ms apart after a change, growing to 2 s while nothing changes.
#[wasm_bindgen(js_name = observeByStatus, skip_jsdoc)]
pub fn observe_by_status(
    grantor: JsValue,
    resource: JsValue,
    signal: JsValue,
) -> Result<ObservationCore, JsValue> {
    let feed = StatusFeed::new(
        grantor,
        resource,
        Micros::from_ms(STATUS_POLL_TIMEOUT_MS),
        Micros::from_ms(STATUS_POLL_MAX_MS),
    );
    ObservationCore::start(Rc::new(feed), &signal)
}

/// How long one status poll may take.
const STATUS_POLL_TIMEOUT_MS: u64 = 10_000;
/// The longest wait between status polls while nothing changes.
const STATUS_POLL_MAX_MS: u64 = 2_000;
