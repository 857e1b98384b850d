//! Global mode: the active tab alone holds a grantor lease, under one holder id for the browser,
//! so a successor re-grants at once with a larger token and the old token is fenced.
//!
//! The lease is a holder [`Driver`] (the holder's own driving loop, see `super::super::holder`)
//! whose grantor is the page's: each call goes to the page as a [`FromEngine::Call`] and comes
//! back as an [`Answer`], because the grantor is the page's object (an `HttpGrantor` cannot be
//! sent to a worker). The renew schedule stays in the engine, out of reach of main-thread timer
//! throttling. This file is the tabs code's only use of the holder.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Function, Object, Promise};
use wasm_bindgen::JsValue;

use super::super::error::{get, set};
use super::super::holder::{Driver, Host};
use super::super::js::now_ms;
use super::super::js::{random_seed, reading};
use super::engine::Engine;
use super::store;
use super::sys::{later, origin_ms};
use super::wire::{Answer, Call, FromEngine, GlobalConfig, Report};
use crate::core::{Event, HolderConfig, HolderOptionsMs, RequestId, RequestKind};

/// A grantor call waiting for the page's answer.
struct Pending {
    id: f64,
    grant: bool,
    resolve: Function,
    reject: Function,
}

/// The page's grantor, seen from the engine.
struct PageGrantor {
    engine: Weak<Engine>,
    resource: String,
    pending: RefCell<Vec<Pending>>,
}

impl PageGrantor {
    fn take(&self, id: f64) -> Option<Pending> {
        let mut pending = self.pending.try_borrow_mut().ok()?;
        let at = pending.iter().position(|call| call.id == id)?;
        Some(pending.swap_remove(at))
    }

    fn waiting(&self, id: f64) -> bool {
        self.pending
            .try_borrow()
            .is_ok_and(|pending| pending.iter().any(|call| call.id == id))
    }
}

impl Host for PageGrantor {
    fn call(&self, id: RequestId, kind: &RequestKind, args: Object) -> Option<Promise> {
        let engine = self.engine.upgrade()?;
        let id = id.0 as f64;
        let (method, grant) = match kind {
            RequestKind::Grant { .. } => ("grant", true),
            RequestKind::Renew { .. } => ("renew", false),
            RequestKind::Release { .. } => ("release", false),
        };
        let promise = Promise::new(&mut |resolve, reject| {
            if let Ok(mut pending) = self.pending.try_borrow_mut() {
                pending.push(Pending {
                    id,
                    grant,
                    resolve,
                    reject,
                });
            }
        });
        let call = move |args: Object| Call {
            id,
            method: method.to_owned(),
            args: args.into(),
        };
        if !grant {
            engine.emit(FromEngine::Call(call(args)));
            return Some(promise);
        }
        // A grant presents the secret the browser's last grant came with, so the grantor
        // re-grants to this tab at once.
        let weak = self.engine.clone();
        store::shared_secret(&self.resource, move |secret| {
            let Some(engine) = weak.upgrade() else { return };
            let Some(grantor) = engine.global().map(|global| Rc::clone(&global.grantor)) else {
                return;
            };
            if !grantor.waiting(id) {
                return;
            }
            if let Some(secret) = secret {
                set(&args, "leaseSecret", &secret);
            }
            engine.emit(FromEngine::Call(call(args)));
        });
        Some(promise)
    }

    fn finished(&self, id: RequestId, abandoned: bool) {
        if !abandoned {
            return;
        }
        let id = id.0 as f64;
        if let Some(call) = self.take(id) {
            if let Some(engine) = self.engine.upgrade() {
                engine.emit(FromEngine::Abort(id));
            }
            let _ = call.reject.call0(&JsValue::UNDEFINED);
        }
    }

    fn deliver(&self, event: &Event) {
        if let Some(engine) = self.engine.upgrade() {
            if let Some(global) = engine.global() {
                global.event(&engine, event);
            }
        }
    }

    fn dispose(&self) {}
}

/// Global mode's campaign: the grantor lease, held while the role is.
pub struct Global {
    config: GlobalConfig,
    engine: Weak<Engine>,
    grantor: Rc<PageGrantor>,
    /// The holder, made once its id is known.
    driver: RefCell<Option<Driver>>,
    creating: Cell<bool>,
    /// The hold the lease is sought or held for.
    campaign: Cell<Option<u64>>,
}

impl Global {
    /// Global mode for the engine `engine` (not yet built: the engine owns this).
    pub fn new(config: GlobalConfig, engine: Weak<Engine>) -> Global {
        let grantor = Rc::new(PageGrantor {
            engine: engine.clone(),
            resource: config.resource.clone(),
            pending: RefCell::new(Vec::new()),
        });
        Global {
            config,
            engine,
            grantor,
            driver: RefCell::new(None),
            creating: Cell::new(false),
            campaign: Cell::new(None),
        }
    }

    fn driver(&self) -> Option<Driver> {
        self.driver.try_borrow().ok().and_then(|d| d.clone())
    }

    /// The role is held with `epoch`: seek the grantor lease for it.
    pub fn start(&self, engine: &Rc<Engine>, epoch: u64) {
        if self.driver().is_some() {
            // After the outputs being carried out: the hold is judged afresh when this runs.
            let weak = Rc::downgrade(engine);
            later(move || {
                if let Some(engine) = weak.upgrade() {
                    if let Some(global) = engine.global() {
                        global.campaign(&engine, epoch);
                    }
                }
            });
            return;
        }
        if self.creating.replace(true) {
            // The holder is being made: it campaigns for the hold of the moment when it is.
            return;
        }
        let weak = self.engine.clone();
        let made = move |holder_id: Result<JsValue, JsValue>| {
            let Some(engine) = weak.upgrade() else { return };
            let Some(global) = engine.global() else {
                return;
            };
            global.creating.set(false);
            let Some(driver) = holder_id.ok().and_then(|id| global.make_driver(id)) else {
                engine.emit(FromEngine::GlobalLost);
                return;
            };
            if let Ok(mut slot) = global.driver.try_borrow_mut() {
                *slot = Some(driver);
            }
            if let Some(epoch) = engine.held() {
                global.campaign(&engine, epoch);
            }
        };
        match &self.config.holder_id {
            Some(id) => {
                let id = JsValue::from_str(id);
                later(move || made(Ok(id)));
            }
            None => store::browser_id(made),
        }
    }

    fn make_driver(&self, holder_id: JsValue) -> Option<Driver> {
        if holder_id.as_string().is_none_or(|id| id.is_empty()) {
            return None;
        }
        let config = &self.config;
        let options = HolderOptionsMs {
            renew_interval_ms: Some(config.renew_interval_ms),
            request_timeout_ms: Some(config.request_timeout_ms),
            retry_delay_ms: Some(config.retry_delay_ms),
            retry_delay_max_ms: Some(config.retry_delay_max_ms),
        };
        let holder =
            HolderConfig::from_ms(config.lease_ms, config.margin_ms, options, random_seed())
                .ok()?;
        let host: Rc<dyn Host> = self.grantor.clone();
        Some(Driver::new(
            holder,
            JsValue::from_str(&config.resource),
            holder_id,
            host,
        ))
    }

    /// Campaigns for the lease while the hold `epoch` stands.
    fn campaign(&self, engine: &Rc<Engine>, epoch: u64) {
        if !engine.still_held(epoch) {
            return;
        }
        let Some(driver) = self.driver() else { return };
        self.campaign.set(Some(epoch));
        if driver.acquire(true).is_err() {
            self.campaign.set(None);
        }
    }

    /// The holder's events, while campaigning.
    fn event(&self, engine: &Rc<Engine>, event: &Event) {
        let Some(epoch) = self.campaign.get() else {
            return;
        };
        match event {
            // Each renewal is reported once the holder has validated and applied it: its lease
            // then says what the grantor granted, from when the renewal was sent.
            Event::Acquired { .. } | Event::Renewed { .. } if engine.held() == Some(epoch) => {
                self.report(engine);
            }
            Event::Acquired { .. } | Event::AcquireFailed(_) => self.campaign.set(None),
            Event::Lost { .. } => {
                let weak = Rc::downgrade(engine);
                later(move || {
                    let Some(engine) = weak.upgrade() else { return };
                    let Some(global) = engine.global() else {
                        return;
                    };
                    if global.campaign.get() != Some(epoch) || !engine.still_held(epoch) {
                        return;
                    }
                    engine.emit(FromEngine::GlobalLost);
                    global.campaign(&engine, epoch);
                });
            }
            _ => {}
        }
    }

    /// Reports the lease as the holder validated it: its token, and what remains of it now.
    fn report(&self, engine: &Engine) {
        let Some(driver) = self.driver() else { return };
        let Some(token) = driver.token() else { return };
        let (mono, wall) = now_ms();
        let remaining = driver.remaining(reading(mono, wall));
        engine.emit(FromEngine::Global(Report {
            token,
            remaining_ms: remaining.as_ms_f64(),
            wall_ms: wall,
            origin_ms: origin_ms(mono),
        }));
    }

    /// The hold ended: give the lease back (`logged`: the release is logged, the tab's own
    /// choice) or drop it.
    pub fn stop(&self, logged: bool) {
        self.campaign.set(None);
        let Some(driver) = self.driver() else { return };
        driver.cancel_acquire();
        if logged {
            let _ = driver.release();
        } else {
            driver.surrender("tab_inactive");
        }
    }

    /// Re-checks the lease's deadlines: the page may have been frozen, asleep or cached.
    pub fn check(&self) {
        if let Some(driver) = self.driver() {
            driver.check();
        }
    }

    /// The page answered a grantor call.
    pub fn answer(&self, answer: Answer) {
        let Some(call) = self.grantor.take(answer.id) else {
            return;
        };
        if !answer.ok {
            let _ = call.reject.call1(&JsValue::UNDEFINED, &answer.value);
            return;
        }
        let secret = get(&answer.value, "leaseSecret");
        let granted = get(&answer.value, "granted").as_bool() == Some(true);
        if call.grant && granted && secret.is_string() {
            // Shared before the holder hears of the grant: the next tab's grant presents it.
            let value = answer.value;
            store::share_secret(&self.config.resource, secret, move || {
                let _ = call.resolve.call1(&JsValue::UNDEFINED, &value);
            });
            return;
        }
        let _ = call.resolve.call1(&JsValue::UNDEFINED, &answer.value);
    }
}
