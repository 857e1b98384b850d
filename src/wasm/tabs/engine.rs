//! One candidate for a named role: the IO of a core [`TabElection`].
//!
//! The election itself (when another tab's heartbeat counts as expired, the leaving grace, the
//! epoch compare-and-swap and its retries, the heartbeat's schedule and margin, the steal) is
//! the core's; the engine carries out what it asks (IndexedDB reads and appends on the name's
//! log, Web Lock requests, BroadcastChannel notices, pings to the page, one timer) and feeds back
//! the outcomes with the clocks read. It runs where timers keep running: in a dedicated worker
//! for a window (a hidden tab's main thread gets one timer wake-up a minute under Chrome's
//! intensive throttling, worker timers do not), or in the context itself when that is a worker.
//! It reports to its page with [`FromEngine`] messages.
//!
//! No borrow of the engine's state is held while JavaScript runs: each step borrows, takes what
//! it needs, and lets go before calling out.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, BroadcastChannel, LockManager, LockOptions, MessageEvent};

use super::super::error::config_error;
use super::super::js::{now_ms, performance_now};
use super::super::js::{random_seed, reading};
use super::global::Global;
use super::store;
use super::sys::{has_global_function, lock_manager, on_settled, origin_ms};
use super::wire::{EngineConfig, EntryWire, FromEngine, Report, ToEngine};
use super::NAME_PREFIX;
use crate::core::{
    checked_ms, AppendOutcome, EntryKind, IoId, LockEvent, LogEntry, MonoTime, Notice, TabConfig,
    TabElection, TabEvent, TabOutput,
};
use crate::protocol::Token;

/// The Web Lock request of the moment.
struct LockRequest {
    /// Which request this is: a grant or a failure of an earlier one is not this one's.
    number: u32,
    /// Resolves the promise that keeps the lock held, once granted.
    release: Option<Function>,
    /// Withdraws the request while it waits (a steal cannot be withdrawn).
    abort: Option<AbortController>,
}

/// What the engine feeds its core: the page's commands and the outcomes of its IO.
enum Input {
    Join,
    Leave { now: bool },
    Yield(f64),
    HandOff(Option<String>),
    Check,
    Close,
    Pong,
    Timeout,
    Notice(Notice),
    Read(IoId, Result<Option<LogEntry>, ()>),
    Appended(IoId, AppendOutcome),
    Lock(IoId, LockEvent),
}

/// The open channel, and its handler.
type Channel = (BroadcastChannel, Closure<dyn FnMut(MessageEvent)>);

struct State {
    core: TabElection,
    /// The readings passed with the latest input, which the core's events speak of.
    reading: (f64, f64),
    driving: bool,
    timer: Option<(Timeout, MonoTime)>,
    channel: Option<Channel>,
    lock: Option<LockRequest>,
    lock_requests: u32,
    /// The epoch of the hold the core reported active, until it reports it lost.
    held: Option<u64>,
    /// The number of the ping the page has yet to answer.
    pinged: Option<f64>,
    pings: f64,
}

/// One candidate's engine.
pub struct Engine {
    name: String,
    /// The Web Lock's and the BroadcastChannel's name.
    channel_name: String,
    /// Web Locks, when available and not disabled.
    locks: Option<LockManager>,
    /// Whether heartbeats wait for the page to answer a ping (a worker for a page).
    gated: bool,
    emit: Box<dyn Fn(FromEngine)>,
    state: RefCell<State>,
    /// Global mode.
    global: Option<Global>,
}

fn ms(field: &'static str, value: f64) -> Result<crate::core::Micros, JsValue> {
    checked_ms(field, value).map_err(|e| config_error(&e))
}

impl Engine {
    /// An engine for `config` that reports with `emit`. `gated`: it serves a page from a worker,
    /// and each heartbeat waits for the page's answer to a ping, which a frozen or hung page
    /// never gives.
    pub fn new(
        config: EngineConfig,
        gated: bool,
        emit: Box<dyn Fn(FromEngine)>,
    ) -> Result<Rc<Engine>, JsValue> {
        let locks = if config.web_locks {
            lock_manager()
        } else {
            None
        };
        let core = TabConfig::new(
            config.instance,
            ms("leaseMs", config.lease_ms)?,
            ms("marginMs", config.margin_ms)?,
            ms("renewIntervalMs", config.renew_interval_ms)?,
            locks.is_some(),
            gated,
            random_seed(),
        )
        .map_err(|e| config_error(&e))?;
        let mut channel_name = String::from(NAME_PREFIX);
        channel_name.push_str(&config.name);
        let global = config.global;
        let engine = Rc::new_cyclic(|weak: &Weak<Engine>| Engine {
            name: config.name,
            channel_name,
            gated,
            emit,
            state: RefCell::new(State {
                core: TabElection::new(core),
                reading: (0.0, 0.0),
                driving: false,
                timer: None,
                channel: None,
                lock: None,
                lock_requests: 0,
                held: None,
                pinged: None,
                pings: 0.0,
            }),
            global: global.map(|config| Global::new(config, weak.clone())),
            locks,
        });
        engine.emit(FromEngine::WebLocks(engine.locks.is_some()));
        Ok(engine)
    }

    /// Tells the page.
    pub fn emit(&self, message: FromEngine) {
        (self.emit)(message);
    }

    /// Global mode's campaign, if configured.
    #[cfg(feature = "holder")]
    pub fn global(&self) -> Option<&Global> {
        self.global.as_ref()
    }

    /// A message from the page.
    pub fn handle(self: &Rc<Self>, message: ToEngine) {
        match message {
            ToEngine::Join => self.input(Input::Join),
            ToEngine::Leave => self.input(Input::Leave { now: false }),
            ToEngine::Yield(epoch) => self.input(Input::Yield(epoch)),
            ToEngine::HandOff(to) => self.input(Input::HandOff(to)),
            ToEngine::Check => {
                self.input(Input::Check);
                if let Some(global) = &self.global {
                    global.check();
                }
            }
            ToEngine::Close => self.input(Input::Close),
            ToEngine::Pong(number) => {
                let answered = self.state.try_borrow_mut().is_ok_and(|mut state| {
                    let answered = state.pinged == Some(number);
                    if answered {
                        state.pinged = None;
                    }
                    answered
                });
                if answered {
                    self.input(Input::Pong);
                }
            }
            ToEngine::Answer(answer) => {
                if let Some(global) = &self.global {
                    global.answer(answer);
                }
            }
            ToEngine::Init(_) => {}
        }
    }

    /// Withdraws at once, writing nothing: the page is leaving, and the lock and channel must be
    /// let go before it may be frozen.
    pub fn leave_now(self: &Rc<Self>) {
        self.input(Input::Leave { now: true });
    }

    /// The epoch of the hold reported active, if any.
    pub fn held(&self) -> Option<u64> {
        self.state.try_borrow().ok().and_then(|state| state.held)
    }

    /// Whether the hold `epoch` is still the hold, as of now: the core is asked first, for this
    /// context may just have woken from a freeze with another timer firing before the
    /// election's, and a hold that ran out meanwhile must not be acted on.
    #[cfg(feature = "holder")]
    pub fn still_held(self: &Rc<Self>, epoch: u64) -> bool {
        if self.held() == Some(epoch) {
            self.input(Input::Timeout);
        }
        self.held() == Some(epoch)
    }

    /// Feeds one input to the core with the clocks read now, then carries out its outputs.
    fn input(self: &Rc<Self>, input: Input) {
        let (mono, wall) = now_ms();
        {
            let Ok(mut state) = self.state.try_borrow_mut() else {
                return;
            };
            state.reading = (mono, wall);
            let (core, now) = (&mut state.core, reading(mono, wall));
            match input {
                Input::Join => core.join(now),
                Input::Leave { now: immediately } => core.leave(now, immediately),
                // The page stopped believing the hold `epoch` (its own clocks said it ran out):
                // the core steps down if that is still the current hold, and stays a candidate.
                Input::Yield(epoch) => {
                    if let Ok(epoch) = Token::from_f64(epoch) {
                        core.yield_role(now, epoch.get());
                    }
                }
                Input::HandOff(to) => core.hand_off(now, to),
                Input::Check => core.check(now),
                Input::Close => core.close(now),
                Input::Pong => core.handle_pong(now),
                Input::Timeout => core.handle_timeout(now),
                Input::Notice(notice) => core.handle_notice(now, notice),
                Input::Read(id, entry) => core.handle_read(now, id, entry),
                Input::Appended(id, outcome) => core.handle_append(now, id, outcome),
                Input::Lock(id, event) => core.handle_lock(now, id, event),
            }
        }
        self.drive();
    }

    fn drive(self: &Rc<Self>) {
        // An input that arrives while outputs are carried out only adds outputs to the queue
        // this loop drains.
        match self.state.try_borrow_mut() {
            Ok(mut state) if !state.driving => state.driving = true,
            _ => return,
        }
        loop {
            let output = self
                .state
                .try_borrow_mut()
                .ok()
                .and_then(|mut state| state.core.poll_output());
            let Some(output) = output else { break };
            self.carry_out(output);
        }
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.driving = false;
        }
        self.arm();
    }

    /// Arms the one timer for the core's `poll_timeout` (unless it is armed for it already).
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
        // setTimeout takes a signed 32-bit delay; a longer wait re-arms when it fires.
        let delay_ms = (due.0 as f64 / 1000.0 - performance_now())
            .ceil()
            .clamp(0.0, 2_147_483_647.0);
        let weak = Rc::downgrade(self);
        let timeout = Timeout::new(delay_ms as u32, move || {
            let Some(engine) = weak.upgrade() else { return };
            let fired = engine
                .state
                .try_borrow_mut()
                .ok()
                .and_then(|mut s| s.timer.take());
            drop(fired);
            // Trust the clocks, not the timer: it may have fired late.
            engine.input(Input::Timeout);
        });
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.timer = Some((timeout, due));
        }
    }

    fn carry_out(self: &Rc<Self>, output: TabOutput) {
        match output {
            TabOutput::Listen => self.open_channel(),
            TabOutput::StopListening => {
                let channel = self
                    .state
                    .try_borrow_mut()
                    .ok()
                    .and_then(|mut s| s.channel.take());
                if let Some((channel, _)) = channel {
                    channel.close();
                }
            }
            TabOutput::ReadLog(id) => {
                let weak = Rc::downgrade(self);
                store::latest_entry(&self.name, move |entry| {
                    if let Some(engine) = weak.upgrade() {
                        let entry = entry.map_err(|_| ());
                        engine.input(Input::Read(id, entry));
                    }
                });
            }
            TabOutput::Append {
                id,
                after,
                record,
                prune,
            } => {
                let weak = Rc::downgrade(self);
                store::append(&self.name, after, &record, prune, move |appended| {
                    let outcome = match appended {
                        Ok(true) => AppendOutcome::Appended,
                        Ok(false) => AppendOutcome::Conflict,
                        Err(_) => AppendOutcome::Failed,
                    };
                    if let Some(engine) = weak.upgrade() {
                        engine.input(Input::Appended(id, outcome));
                    }
                });
            }
            TabOutput::RequestLock { id, steal } => self.request_lock(id, steal),
            TabOutput::ReleaseLock => self.release_lock(),
            TabOutput::Broadcast(entry) => self.publish(&entry),
            TabOutput::Ping => {
                if !self.gated {
                    return;
                }
                let number = self.state.try_borrow_mut().ok().map(|mut state| {
                    state.pings += 1.0;
                    state.pinged = Some(state.pings);
                    state.pings
                });
                if let Some(number) = number {
                    self.emit(FromEngine::Ping(number));
                }
            }
            TabOutput::Event(event) => self.deliver(event),
        }
    }

    fn deliver(self: &Rc<Self>, event: TabEvent) {
        match event {
            TabEvent::Active { epoch, remaining } => {
                if let Ok(mut state) = self.state.try_borrow_mut() {
                    state.held = Some(epoch);
                }
                self.emit(FromEngine::Role(self.report(epoch, remaining)));
                if let Some(global) = &self.global {
                    global.start(self, epoch);
                }
            }
            TabEvent::Renewed { epoch, remaining } => {
                if self.held() == Some(epoch) {
                    self.emit(FromEngine::Renewed(self.report(epoch, remaining)));
                }
            }
            TabEvent::Lost {
                epoch,
                reason,
                logged,
            } => {
                let held = self
                    .state
                    .try_borrow_mut()
                    .ok()
                    .and_then(|mut s| s.held.take());
                self.emit(FromEngine::RoleLost {
                    epoch: epoch as f64,
                    reason: reason.as_str().to_owned(),
                });
                if let (Some(_), Some(global)) = (held, &self.global) {
                    global.stop(logged);
                }
            }
            TabEvent::Left => self.emit(FromEngine::Left),
            TabEvent::Closed => {
                let timer = self
                    .state
                    .try_borrow_mut()
                    .ok()
                    .and_then(|mut s| s.timer.take());
                drop(timer);
                self.emit(FromEngine::Closed);
            }
        }
    }

    /// The hold `epoch` with what the core said remains of it, stamped with the readings that
    /// remaining time is measured at (the latest input's). The page's mirror back-dates it by
    /// the transit, and a report with nothing left after it is no hold.
    fn report(&self, epoch: u64, remaining: crate::core::Micros) -> Report {
        let (mono, wall) = self.state.try_borrow().map_or((0.0, 0.0), |s| s.reading);
        Report {
            token: epoch as f64,
            remaining_ms: remaining.as_ms_f64(),
            wall_ms: wall,
            origin_ms: origin_ms(mono),
        }
    }

    // Open only while taking part: a page in the back/forward cache is evicted when a message
    // reaches one of its channels, so it must not listen after leaving.
    fn open_channel(self: &Rc<Self>) {
        let open = self.state.try_borrow().is_ok_and(|s| s.channel.is_some());
        if open || !has_global_function("BroadcastChannel") {
            return;
        }
        let Ok(channel) = BroadcastChannel::new(&self.channel_name) else {
            return;
        };
        let weak = Rc::downgrade(self);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(engine) = weak.upgrade() else { return };
            if let Some(notice) = EntryWire::notice(event.data()) {
                engine.input(Input::Notice(notice));
            }
        });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.channel = Some((channel, on_message));
        }
    }

    fn publish(&self, entry: &LogEntry) {
        let channel = self
            .state
            .try_borrow()
            .ok()
            .and_then(|s| s.channel.as_ref().map(|(channel, _)| channel.clone()));
        let Some(channel) = channel else { return };
        let kind = match entry.record.kind {
            EntryKind::Grant => "granted",
            EntryKind::Release => "released",
            EntryKind::Beat => "beat",
        };
        // A closed channel fails: observers fall back to reading the log.
        let _ =
            channel.post_message(&EntryWire::of(&entry.record, Some((entry.seq, kind))).to_js());
    }

    fn request_lock(self: &Rc<Self>, id: IoId, steal: bool) {
        let Some(locks) = &self.locks else { return };
        let abort = if steal {
            None
        } else {
            AbortController::new().ok()
        };
        let options = LockOptions::new();
        if steal {
            options.set_steal(true);
        } else if let Some(abort) = &abort {
            options.set_signal(&abort.signal());
        }
        let Ok(mut state) = self.state.try_borrow_mut() else {
            return;
        };
        state.lock_requests += 1;
        let number = state.lock_requests;
        state.lock = Some(LockRequest {
            number,
            release: None,
            abort,
        });
        drop(state);
        let weak = Rc::downgrade(self);
        let granted = Closure::once(move |_lock: JsValue| -> JsValue {
            let Some(engine) = weak.upgrade() else {
                return JsValue::UNDEFINED;
            };
            let mut release = None;
            let held = Promise::new(&mut |resolve, _| release = Some(resolve));
            let current =
                engine
                    .state
                    .try_borrow_mut()
                    .is_ok_and(|mut state| match &mut state.lock {
                        Some(lock) if lock.number == number => {
                            lock.release = release.take();
                            true
                        }
                        _ => false,
                    });
            // Not the request of the moment: let the lock go at once.
            if !current {
                return JsValue::UNDEFINED;
            }
            engine.input(Input::Lock(id, LockEvent::Granted));
            held.into()
        });
        let request = locks.request_with_options(
            &self.channel_name,
            &options,
            granted.as_ref().unchecked_ref(),
        );
        let weak = Rc::downgrade(self);
        on_settled(&request, move |outcome| {
            drop(granted);
            // Rejected: our own abort of a waiting request, or another context stole the lock.
            if outcome.is_ok() {
                return;
            }
            let Some(engine) = weak.upgrade() else { return };
            if let Ok(mut state) = engine.state.try_borrow_mut() {
                if state
                    .lock
                    .as_ref()
                    .is_some_and(|lock| lock.number == number)
                {
                    state.lock = None;
                }
            }
            engine.input(Input::Lock(id, LockEvent::Lost));
        });
    }

    fn release_lock(&self) {
        let lock = self
            .state
            .try_borrow_mut()
            .ok()
            .and_then(|mut s| s.lock.take());
        let Some(lock) = lock else { return };
        if let Some(abort) = lock.abort {
            abort.abort();
        }
        if let Some(release) = lock.release {
            let _ = release.call0(&JsValue::UNDEFINED);
        }
    }
}

/// Serves an engine to the page over this dedicated worker's messages. The page must answer
/// each ping for a heartbeat to be written, so a frozen or hung page stops renewing even though
/// its worker still runs.
#[wasm_bindgen(js_name = serveTabEngine)]
pub fn serve_tab_engine() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = {
        let scope = scope.clone();
        move |message: &FromEngine| {
            let _ = scope.post_message(&message.to_js());
        }
    };
    let engine: RefCell<Option<Rc<Engine>>> = RefCell::new(None);
    let serving = post.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let Some(message) = ToEngine::from_js(&event.data()) else {
            return;
        };
        if let ToEngine::Init(config) = message {
            let emit = serving.clone();
            match Engine::new(config, true, Box::new(move |message| emit(&message))) {
                Ok(started) => *engine.borrow_mut() = Some(started),
                Err(error) => serving(&FromEngine::Failed(super::sys::describe(&error))),
            }
            return;
        }
        let current = engine.borrow().clone();
        if let Some(current) = current {
            current.handle(message);
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker's one handler, for its whole life.
    on_message.forget();
    post(&FromEngine::Ready);
}
