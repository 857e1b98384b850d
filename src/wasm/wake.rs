//! The realm's one wake ticker, around the core's [`WakeDetector`]: while any lease is held, one
//! timer reads the clocks at each tick the detector asks for, and when the detector says the host
//! slept or its wall clock jumped, every holding holder re-checks its deadlines at once. Node has
//! no wake event, and a holder's own timers run on the monotonic clock, which stops while the OS
//! sleeps; this bounds how late a loss nobody asks about is delivered.

use std::cell::RefCell;

use gloo_timers::callback::Timeout;
use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::lease::now;
use crate::core::{Micros, MonoTime, WakeDetector};

/// The detector, the holders it wakes, and its timer.
struct Ticker {
    detector: WakeDetector,
    /// Each holding holder's check, by the id its hold was given.
    holders: Vec<(u32, Function)>,
    next_id: u32,
    /// The armed tick and when it is due; dropping it cancels it.
    armed: Option<(Timeout, MonoTime)>,
}

thread_local! {
    static TICKER: RefCell<Ticker> = RefCell::new(Ticker {
        detector: WakeDetector::new(),
        holders: Vec::new(),
        next_id: 0,
        armed: None,
    });
}

/// A margin as the holder validated it (a positive, finite number of ms).
fn margin(margin_ms: f64) -> Micros {
    Micros::from_ms_f64(margin_ms.max(0.0))
}

/// A holder holds a lease with `marginMs` from now on; `check` re-checks its deadlines. Returns
/// the hold's id for [`wake_hold_ended`].
#[wasm_bindgen(skip_jsdoc, js_name = wakeHoldStarted)]
pub fn wake_hold_started(check: Function, margin_ms: f64) -> u32 {
    let now = now();
    let id = TICKER.with(|ticker| {
        let Ok(mut ticker) = ticker.try_borrow_mut() else {
            return 0;
        };
        ticker.detector.hold_started(now, margin(margin_ms));
        ticker.next_id = ticker.next_id.wrapping_add(1);
        let id = ticker.next_id;
        ticker.holders.push((id, check));
        id
    });
    arm();
    id
}

/// The hold `id`, with `marginMs`, ended.
#[wasm_bindgen(skip_jsdoc, js_name = wakeHoldEnded)]
pub fn wake_hold_ended(id: u32, margin_ms: f64) {
    // Taken out of the cell before it is dropped (which clears the timer): nothing runs while
    // the ticker is borrowed.
    let cancelled = TICKER.with(|ticker| {
        let mut ticker = ticker.try_borrow_mut().ok()?;
        let at = ticker.holders.iter().position(|(i, _)| *i == id)?;
        ticker.holders.swap_remove(at);
        ticker.detector.hold_ended(margin(margin_ms));
        // The tick's wait may grow with a larger smallest margin, and none is needed without
        // holds: the timer is armed afresh.
        ticker.armed.take()
    });
    drop(cancelled);
    arm();
}

/// Arms the timer for the detector's next tick, unless one already fires no later (one that
/// fires early only ticks early, which is harmless).
fn arm() {
    let mono = now().mono;
    TICKER.with(|ticker| {
        let Ok(mut ticker) = ticker.try_borrow_mut() else {
            return;
        };
        let Some(due) = ticker.detector.poll_timeout() else {
            return;
        };
        if ticker
            .armed
            .as_ref()
            .is_some_and(|(_, armed)| *armed <= due)
        {
            return;
        }
        let delay_ms = (due.since(mono).0 as f64 / 1000.0).clamp(0.0, 2_147_483_647.0);
        let timeout = Timeout::new(delay_ms.ceil() as u32, on_tick);
        // A timer replaced here is dropped (cleared) after the borrow ends.
        let replaced = ticker.armed.replace((timeout, due));
        drop(ticker);
        drop(replaced);
    });
}

fn on_tick() {
    let now = now();
    let (fired, checks) = TICKER.with(|ticker| {
        let Ok(mut ticker) = ticker.try_borrow_mut() else {
            return (None, Vec::new());
        };
        let fired = ticker.armed.take();
        let checks = if ticker.detector.handle_tick(now) {
            ticker
                .holders
                .iter()
                .map(|(_, check)| check.clone())
                .collect()
        } else {
            Vec::new()
        };
        (fired, checks)
    });
    drop(fired);
    // The package's own checks, each for one holder; none runs with the ticker borrowed.
    for check in checks {
        let _ = check.call0(&JsValue::NULL);
    }
    arm();
}
