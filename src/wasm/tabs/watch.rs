//! Who holds the role, as this page sees it: the IO of a core [`TabWatch`].
//!
//! Every `TabLease` runs one on its page, candidate or not: it listens on the name's
//! BroadcastChannel, reads the log when the core asks, and arms one timer for the core's
//! `poll_timeout`. The page closes the channel on `pagehide` (a message reaching a cached
//! page's channel evicts the page) and resynchronises from the log on `pageshow`, `resume` and
//! when it becomes visible. In a hidden tab the timer may fire late (intensive throttling); the
//! channel's messages are not throttled, so a new holder is still heard at once.
//!
//! As in the engine, no borrow of the state is held while JavaScript runs.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use wasm_bindgen::prelude::*;
use web_sys::{BroadcastChannel, MessageEvent};

use super::super::js::{now_ms, performance_now, reading};
use super::store;
use super::sys::has_global_function;
use super::wire::EntryWire;
use crate::core::{
    HolderChange, IoId, LogEntry, Micros, MonoTime, Notice, TabWatch, TabWatchOutput,
};

enum Input {
    Start,
    Check,
    Timeout,
    Notice(Notice),
    Read(IoId, Result<Option<LogEntry>, ()>),
}

type Channel = (BroadcastChannel, Closure<dyn FnMut(MessageEvent)>);

struct State {
    core: TabWatch,
    channel: Option<Channel>,
    timer: Option<(Timeout, MonoTime)>,
    /// Listening (not closed, not in the back/forward cache).
    on: bool,
}

/// One page's watch of a role.
pub struct Watcher {
    name: String,
    channel_name: String,
    changed: Box<dyn Fn(&HolderChange)>,
    state: RefCell<State>,
}

impl Watcher {
    /// A watch of `name` (channel `channel_name`) judging entries without a lease by `lease`,
    /// telling `changed` of each change. [`resume`](Watcher::resume) starts it.
    pub fn new(
        name: String,
        channel_name: String,
        lease: Micros,
        changed: Box<dyn Fn(&HolderChange)>,
    ) -> Rc<Watcher> {
        Rc::new(Watcher {
            name,
            channel_name,
            changed,
            state: RefCell::new(State {
                core: TabWatch::new(lease),
                channel: None,
                timer: None,
                on: false,
            }),
        })
    }

    /// The last change reported, if the log was read.
    pub fn holder(&self) -> Option<HolderChange> {
        self.state
            .try_borrow()
            .ok()
            .and_then(|s| s.core.holder().cloned())
    }

    /// Listens and reads the log: at the start, and when the page is back from the cache.
    pub fn resume(self: &Rc<Self>) {
        let started = match self.state.try_borrow_mut() {
            Ok(mut state) if !state.on => {
                state.on = true;
                state.core.holder().is_some()
            }
            _ => return,
        };
        self.open_channel();
        self.input(if started { Input::Check } else { Input::Start });
    }

    /// Reads the log now (the page resumed or became visible: notices may have been missed).
    pub fn check(self: &Rc<Self>) {
        self.input(Input::Check);
    }

    /// Stops listening and reading (`pagehide`, `close()`); [`resume`](Watcher::resume) starts
    /// again.
    pub fn pause(&self) {
        let (channel, timer) = match self.state.try_borrow_mut() {
            Ok(mut state) => {
                state.on = false;
                (state.channel.take(), state.timer.take())
            }
            Err(_) => return,
        };
        drop(timer);
        if let Some((channel, _)) = channel {
            channel.close();
        }
    }

    fn input(self: &Rc<Self>, input: Input) {
        let (mono, wall) = now_ms();
        let now = reading(mono, wall);
        {
            let Ok(mut state) = self.state.try_borrow_mut() else {
                return;
            };
            if !state.on {
                return;
            }
            let core = &mut state.core;
            match input {
                Input::Start => core.start(now),
                Input::Check => core.check(now),
                Input::Timeout => core.handle_timeout(now),
                Input::Notice(notice) => core.handle_notice(now, notice),
                Input::Read(id, entry) => core.handle_read(now, id, entry),
            }
        }
        loop {
            let output = self
                .state
                .try_borrow_mut()
                .ok()
                .and_then(|mut state| state.core.poll_output());
            match output {
                None => break,
                Some(TabWatchOutput::ReadLog(id)) => {
                    let watcher = Rc::downgrade(self);
                    store::latest_entry(&self.name, move |entry| {
                        if let Some(watcher) = watcher.upgrade() {
                            watcher.input(Input::Read(id, entry.map_err(|_| ())));
                        }
                    });
                }
                Some(TabWatchOutput::Change(change)) => (self.changed)(&change),
            }
        }
        self.arm();
    }

    fn arm(self: &Rc<Self>) {
        let Ok(mut state) = self.state.try_borrow_mut() else {
            return;
        };
        let due = state.core.poll_timeout().filter(|_| state.on);
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
        let watcher = Rc::downgrade(self);
        let timeout = Timeout::new(delay_ms as u32, move || {
            let Some(watcher) = watcher.upgrade() else {
                return;
            };
            let fired = watcher
                .state
                .try_borrow_mut()
                .ok()
                .and_then(|mut s| s.timer.take());
            drop(fired);
            // Trust the clocks, not the timer: it may have fired late.
            watcher.input(Input::Timeout);
        });
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.timer = Some((timeout, due));
        }
    }

    fn open_channel(self: &Rc<Self>) {
        if !has_global_function("BroadcastChannel") {
            return;
        }
        let Ok(channel) = BroadcastChannel::new(&self.channel_name) else {
            return;
        };
        let watcher = Rc::downgrade(self);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(watcher) = watcher.upgrade() else {
                return;
            };
            if let Some(notice) = EntryWire::notice(event.data()) {
                watcher.input(Input::Notice(notice));
            }
        });
        channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let previous = self
            .state
            .try_borrow_mut()
            .ok()
            .and_then(|mut state| state.channel.replace((channel, on_message)));
        if let Some((channel, _)) = previous {
            channel.close();
        }
    }
}
