//! Calls into the active tab: the IO of a core [`TabCalls`], on the page.
//!
//! Requests and replies travel on the name's call channel (a BroadcastChannel of its own, so the
//! election's worker never wakes for them), structured-cloned: `{t: "call", from, id, epoch,
//! name, args}` and `{t: "reply", to, id, epoch, ok, value}`. Which hold a call goes to, when it
//! fails and which reply counts are the core's; which requests this page runs too
//! ([`TabCalls::serves`], asked with the page's own belief at that moment). A call this page
//! makes to its own hold runs here, without the channel.
//!
//! No borrow is held while JavaScript runs (handlers, promise settlement).

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{BroadcastChannel, MessageEvent};

use super::super::error::{get, lease_error, set};
use super::super::js::{now_ms, performance_now, reading};
use super::sys::{describe, has_global_function, on_settled};
use crate::core::{CallFailure, CallOutput, Micros, MonoTime, TabCalls};

type Channel = (BroadcastChannel, Closure<dyn FnMut(MessageEvent)>);

struct Call {
    id: u64,
    name: JsValue,
    args: JsValue,
    resolve: Function,
    reject: Function,
}

struct State {
    core: TabCalls,
    calls: Vec<Call>,
    /// Handovers waiting for their named tab's answer: (probe id, resolve, the timer that
    /// gives up).
    probes: Vec<(u64, Function, Option<Timeout>)>,
    handlers: Vec<(String, Function)>,
    channel: Option<Channel>,
    timer: Option<(Timeout, MonoTime)>,
    next_id: u64,
}

/// One page's calls, made and served.
pub struct Calls {
    tab_id: String,
    channel_name: String,
    /// The epoch this page holds now, by its own clocks.
    held: Box<dyn Fn() -> Option<u64>>,
    /// Whether this page is a candidate now (a handover may name it).
    candidate: Box<dyn Fn() -> bool>,
    state: RefCell<State>,
}

fn error(code: &str, message: &str, retryable: bool) -> JsValue {
    let error = lease_error(code, message, None);
    set(&error, "retryable", &JsValue::from_bool(retryable));
    error
}

/// `structuredClone(value)` where the runtime has it, as the channel would clone it: a call to
/// this page's own hold gets copies too.
fn cloned(value: &JsValue) -> Result<JsValue, JsValue> {
    let clone = get(&super::sys::global(), "structuredClone");
    match clone.dyn_ref::<Function>() {
        Some(clone) => clone.call1(&JsValue::UNDEFINED, value),
        None => Ok(value.clone()),
    }
}

fn number(value: &JsValue, key: &str) -> Option<u64> {
    get(value, key)
        .as_f64()
        .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= 9_007_199_254_740_991.0)
        .map(|n| n as u64)
}

impl Calls {
    /// Calls of the page `tab_id` on `channel_name`; `held` says which epoch the page holds.
    pub fn new(
        tab_id: String,
        channel_name: String,
        held: Box<dyn Fn() -> Option<u64>>,
        candidate: Box<dyn Fn() -> bool>,
    ) -> Rc<Calls> {
        Rc::new(Calls {
            tab_id,
            channel_name,
            held,
            candidate,
            state: RefCell::new(State {
                core: TabCalls::new(),
                calls: Vec::new(),
                probes: Vec::new(),
                handlers: Vec::new(),
                channel: None,
                timer: None,
                next_id: 0,
            }),
        })
    }

    /// Listens (at the start, and when the page is back from the cache).
    pub fn listen(self: &Rc<Self>) {
        if !has_global_function("BroadcastChannel")
            || self
                .state
                .try_borrow()
                .map_or(true, |s| s.channel.is_some())
        {
            return;
        }
        let Ok(channel) = BroadcastChannel::new(&self.channel_name) else {
            return;
        };
        let calls = Rc::downgrade(self);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(calls) = calls.upgrade() {
                calls.heard(&event.data());
            }
        });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.channel = Some((channel, on_message));
        }
    }

    /// Stops listening (`pagehide`: a message to a cached page's channel evicts it; `close()`).
    pub fn mute(&self) {
        let channel = self
            .state
            .try_borrow_mut()
            .ok()
            .and_then(|mut s| s.channel.take());
        if let Some((channel, _)) = channel {
            channel.close();
        }
    }

    /// Rejects every call in progress with `reason` (the TabLease closed).
    pub fn close(self: &Rc<Self>, reason: &JsValue) {
        self.mute();
        let (calls, timer) = match self.state.try_borrow_mut() {
            Ok(mut state) => {
                let calls = std::mem::take(&mut state.calls);
                for call in &calls {
                    state.core.cancel(call.id);
                }
                (calls, state.timer.take())
            }
            Err(_) => return,
        };
        drop(timer);
        for call in calls {
            let _ = call.reject.call1(&JsValue::UNDEFINED, reason);
        }
    }

    /// Registers `handler` for `name`, replacing any before.
    pub fn handle(&self, name: String, handler: Function) {
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.handlers.retain(|(n, _)| *n != name);
            state.handlers.push((name, handler));
        }
    }

    /// Unregisters `handler` for `name` (if it is still the one registered).
    pub fn unhandle(&self, name: &str, handler: &Function) {
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.handlers.retain(|(n, h)| !(n == name && h == handler));
        }
    }

    /// The watch reported a change: `live` is the live hold's epoch, if any.
    pub fn holder_changed(self: &Rc<Self>, live: Option<u64>) {
        self.with_core(|core, _| core.holder_changed(live));
    }

    /// A call of `name` with `args`, failing after `timeout_ms`; returns the call's promise and
    /// its id (for `cancel`).
    pub fn call(self: &Rc<Self>, name: JsValue, args: JsValue, timeout: Micros) -> (Promise, u64) {
        let mut id = 0;
        let promise = Promise::new(&mut |resolve, reject| {
            if let Ok(mut state) = self.state.try_borrow_mut() {
                state.next_id += 1;
                id = state.next_id;
                state.calls.push(Call {
                    id,
                    name: name.clone(),
                    args: args.clone(),
                    resolve,
                    reject,
                });
            }
        });
        self.with_core(|core, now| core.call(now, id, timeout));
        (promise, id)
    }

    /// The caller gave up on call `id`.
    pub fn cancel(&self, id: u64) {
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.core.cancel(id);
            state.calls.retain(|call| call.id != id);
        }
    }

    /// Runs `input` on the core, then carries out its outputs and arms the deadline timer.
    fn with_core(self: &Rc<Self>, input: impl FnOnce(&mut TabCalls, crate::core::Now)) {
        let (mono, wall) = now_ms();
        {
            let Ok(mut state) = self.state.try_borrow_mut() else {
                return;
            };
            input(&mut state.core, reading(mono, wall));
        }
        loop {
            let output = self
                .state
                .try_borrow_mut()
                .ok()
                .and_then(|mut state| state.core.poll_output());
            match output {
                None => break,
                Some(CallOutput::Send { id, epoch }) => self.send(id, epoch),
                Some(CallOutput::Fail { id, failure }) => {
                    let (code, message) = match failure {
                        CallFailure::LeaderChanged => (
                            failure.code(),
                            "the active tab changed before it answered; the call may be retried",
                        ),
                        CallFailure::Timeout => {
                            (failure.code(), "no active tab answered the call in time")
                        }
                    };
                    self.settle(id, false, &error(code, message, failure.retryable()));
                }
            }
        }
        self.arm();
    }

    fn arm(self: &Rc<Self>) {
        let Ok(mut state) = self.state.try_borrow_mut() else {
            return;
        };
        let due = state.core.poll_timeout();
        if due.is_some() && state.timer.as_ref().map(|(_, at)| *at) == due {
            return;
        }
        let previous = state.timer.take();
        drop(state);
        drop(previous);
        let Some(due) = due else { return };
        let delay_ms = (due.0 as f64 / 1000.0 - performance_now())
            .ceil()
            .clamp(0.0, 2_147_483_647.0);
        let calls = Rc::downgrade(self);
        let timeout = Timeout::new(delay_ms as u32, move || {
            let Some(calls) = calls.upgrade() else { return };
            let fired = calls
                .state
                .try_borrow_mut()
                .ok()
                .and_then(|mut s| s.timer.take());
            drop(fired);
            calls.with_core(|core, now| core.handle_timeout(now));
        });
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.timer = Some((timeout, due));
        }
    }

    /// Resolves (`ok`) or rejects call `id` with `value`, if it is still in progress.
    fn settle(&self, id: u64, ok: bool, value: &JsValue) {
        let call = self.state.try_borrow_mut().ok().and_then(|mut state| {
            let at = state.calls.iter().position(|call| call.id == id)?;
            Some(state.calls.remove(at))
        });
        let Some(call) = call else { return };
        let settle = if ok { call.resolve } else { call.reject };
        let _ = settle.call1(&JsValue::UNDEFINED, value);
    }

    /// Sends call `id` to the hold `epoch`: here, if it is this page's own.
    fn send(self: &Rc<Self>, id: u64, epoch: u64) {
        let request = self.state.try_borrow().ok().and_then(|state| {
            let call = state.calls.iter().find(|call| call.id == id)?;
            let request = Object::new();
            set(&request, "t", &JsValue::from_str("call"));
            set(&request, "from", &JsValue::from_str(&self.tab_id));
            set(&request, "id", &JsValue::from_f64(id as f64));
            set(&request, "epoch", &JsValue::from_f64(epoch as f64));
            set(&request, "name", &call.name);
            set(&request, "args", &call.args);
            let channel = state.channel.as_ref().map(|(channel, _)| channel.clone());
            Some((JsValue::from(request), channel))
        });
        let Some((request, channel)) = request else {
            return;
        };
        if TabCalls::serves((self.held)(), epoch) {
            return match cloned(&request) {
                Ok(request) => self.serve(&request),
                Err(thrown) => {
                    // Arguments that cannot be cloned: the call fails, as a send would.
                    if let Ok(mut state) = self.state.try_borrow_mut() {
                        state.core.cancel(id);
                    }
                    let message = describe(&thrown);
                    self.settle(id, false, &error("ERR_TAB_CALL_FAILED", &message, false));
                }
            };
        }
        let Some(channel) = channel else {
            // No channel (closed, or none in this runtime): the call times out, or fails when
            // the leader changes.
            return;
        };
        if let Err(thrown) = channel.post_message(&request) {
            // Arguments that cannot be cloned: the call fails now rather than at its deadline.
            if let Ok(mut state) = self.state.try_borrow_mut() {
                state.core.cancel(id);
            }
            let message = describe(&thrown);
            self.settle(id, false, &error("ERR_TAB_CALL_FAILED", &message, false));
        }
    }

    /// Asks the tab `to` whether it is a candidate of this name: resolves `true` when it says
    /// so, `false` when it says not or stays silent for `timeout`.
    pub fn probe(self: &Rc<Self>, to: &str, timeout: Micros) -> Promise {
        let channel = self
            .state
            .try_borrow_mut()
            .ok()
            .and_then(|s| s.channel.as_ref().map(|(channel, _)| channel.clone()));
        let Some(channel) = channel else {
            return Promise::resolve(&JsValue::FALSE);
        };
        let mut id = 0;
        let answer = Promise::new(&mut |resolve, _| {
            if let Ok(mut state) = self.state.try_borrow_mut() {
                state.next_id += 1;
                id = state.next_id;
                state.probes.push((id, resolve, None));
            }
        });
        let request = Object::new();
        set(&request, "t", &JsValue::from_str("probe"));
        set(&request, "to", &JsValue::from_str(to));
        set(&request, "from", &JsValue::from_str(&self.tab_id));
        set(&request, "id", &JsValue::from_f64(id as f64));
        let _ = channel.post_message(&request);
        let calls = Rc::downgrade(self);
        let timer = Timeout::new(timeout.as_ms_f64() as u32, move || {
            if let Some(calls) = calls.upgrade() {
                calls.probed(id, false);
            }
        });
        if let Ok(mut state) = self.state.try_borrow_mut() {
            if let Some(probe) = state.probes.iter_mut().find(|(i, _, _)| *i == id) {
                probe.2 = Some(timer);
            }
        }
        answer
    }

    fn probed(&self, id: u64, candidate: bool) {
        let probe = self.state.try_borrow_mut().ok().and_then(|mut state| {
            let at = state.probes.iter().position(|(i, _, _)| *i == id)?;
            Some(state.probes.remove(at))
        });
        if let Some((_, resolve, timer)) = probe {
            drop(timer);
            let _ = resolve.call1(&JsValue::UNDEFINED, &JsValue::from_bool(candidate));
        }
    }

    fn heard(self: &Rc<Self>, message: &JsValue) {
        let for_me = get(message, "to").as_string().as_deref() == Some(&self.tab_id);
        match get(message, "t").as_string().as_deref() {
            Some("probe") if for_me => {
                let (Some(from), Some(id)) =
                    (get(message, "from").as_string(), number(message, "id"))
                else {
                    return;
                };
                let answer = Object::new();
                set(&answer, "t", &JsValue::from_str("probed"));
                set(&answer, "to", &JsValue::from_str(&from));
                set(&answer, "id", &JsValue::from_f64(id as f64));
                set(
                    &answer,
                    "candidate",
                    &JsValue::from_bool((self.candidate)()),
                );
                let channel = self
                    .state
                    .try_borrow()
                    .ok()
                    .and_then(|s| s.channel.as_ref().map(|(channel, _)| channel.clone()));
                if let Some(channel) = channel {
                    let _ = channel.post_message(&answer);
                }
            }
            Some("probed") if for_me => {
                if let Some(id) = number(message, "id") {
                    self.probed(id, get(message, "candidate").as_bool() == Some(true));
                }
            }
            Some("call") => self.serve(message),
            Some("reply") if get(message, "to").as_string().as_deref() == Some(&self.tab_id) => {
                self.replied(message)
            }
            _ => {}
        }
    }

    /// A reply arrived: it settles its call if the core says it counts.
    fn replied(self: &Rc<Self>, reply: &JsValue) {
        let (Some(id), Some(epoch)) = (number(reply, "id"), number(reply, "epoch")) else {
            return;
        };
        let counts = self
            .state
            .try_borrow_mut()
            .is_ok_and(|mut state| state.core.handle_reply(id, epoch));
        if !counts {
            return;
        }
        let ok = get(reply, "ok").as_bool() == Some(true);
        let value = get(reply, "value");
        if ok {
            self.settle(id, true, &value);
        } else {
            let code = get(&value, "code")
                .as_string()
                .filter(|code| code == "ERR_TAB_NO_HANDLER")
                .unwrap_or_else(|| "ERR_TAB_CALL_FAILED".to_owned());
            let message = get(&value, "message").as_string().unwrap_or_default();
            self.settle(id, false, &error(&code, &message, false));
        }
        self.arm();
    }

    /// Runs a request if it was sent to the hold this page holds now, and answers it if the
    /// page still holds it when the handler is done.
    fn serve(self: &Rc<Self>, request: &JsValue) {
        let (Some(id), Some(epoch)) = (number(request, "id"), number(request, "epoch")) else {
            return;
        };
        if !TabCalls::serves((self.held)(), epoch) {
            return;
        }
        let (Some(from), Some(name)) = (
            get(request, "from").as_string(),
            get(request, "name").as_string(),
        ) else {
            return;
        };
        let handler = self.state.try_borrow().ok().and_then(|state| {
            state
                .handlers
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, handler)| handler.clone())
        });
        let outcome = match handler {
            None => {
                let mut message = String::from("the active tab has no handler for \"");
                message.push_str(&name);
                message.push('"');
                Promise::reject(&lease_error("ERR_TAB_NO_HANDLER", &message, None))
            }
            // User code: it may throw, return a value or a promise.
            Some(handler) => match handler.call1(&JsValue::UNDEFINED, &get(request, "args")) {
                Ok(value) => Promise::resolve(&value),
                Err(error) => Promise::reject(&error),
            },
        };
        let calls = Rc::downgrade(self);
        on_settled(&outcome, move |outcome| {
            let Some(calls) = calls.upgrade() else { return };
            if !TabCalls::serves((calls.held)(), epoch) {
                // The hold ended while the handler ran: the caller fails over to the next one.
                return;
            }
            let reply = Object::new();
            set(&reply, "t", &JsValue::from_str("reply"));
            set(&reply, "to", &JsValue::from_str(&from));
            set(&reply, "id", &JsValue::from_f64(id as f64));
            set(&reply, "epoch", &JsValue::from_f64(epoch as f64));
            match outcome {
                Ok(value) => {
                    set(&reply, "ok", &JsValue::TRUE);
                    set(&reply, "value", &value);
                }
                Err(thrown) => {
                    let plain = Object::new();
                    set(&plain, "message", &JsValue::from_str(&describe(&thrown)));
                    set(&plain, "code", &get(&thrown, "code"));
                    set(&reply, "ok", &JsValue::FALSE);
                    set(&reply, "value", &plain);
                }
            }
            let reply = JsValue::from(reply);
            if from == calls.tab_id {
                let reply = cloned(&reply).unwrap_or_else(|thrown| {
                    let plain = Object::new();
                    set(&plain, "message", &JsValue::from_str(&describe(&thrown)));
                    set(&reply, "ok", &JsValue::FALSE);
                    set(&reply, "value", &plain);
                    reply
                });
                return calls.replied(&reply);
            }
            let channel = calls
                .state
                .try_borrow()
                .ok()
                .and_then(|s| s.channel.as_ref().map(|(channel, _)| channel.clone()));
            if let Some(channel) = channel {
                // A value that cannot be cloned fails here: answer with that error instead.
                if let Err(thrown) = channel.post_message(&reply) {
                    let plain = Object::new();
                    set(&plain, "message", &JsValue::from_str(&describe(&thrown)));
                    set(&reply, "ok", &JsValue::FALSE);
                    set(&reply, "value", &plain);
                    let _ = channel.post_message(&reply);
                }
            }
        });
    }
}
