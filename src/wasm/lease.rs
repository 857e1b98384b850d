//! `LeaseCore`: the design's `Lease`, backed by the core. The package's `Lease` class wraps it and
//! reads the clocks itself; inside the core's published window it does not call in at all (see
//! [`super::window`]).

use js_sys::Float64Array;
use wasm_bindgen::prelude::*;

use super::error::lease_error;
use super::window::PublishedWindow;
use crate::core::{checked_ms, Lease, Now};
use crate::protocol::Token;

/// A standalone lease whose time is passed in on every call.
#[wasm_bindgen]
pub struct LeaseCore {
    lease: Lease,
    window: PublishedWindow,
}

/// A time pair from JavaScript; readings that are not numbers count as "infinitely late", so a
/// broken clock can only make a lease look expired.
pub(crate) fn now_or_expired(mono_ms: f64, wall_ms: f64) -> Option<Now> {
    Now::from_ms(mono_ms, wall_ms).ok()
}

/// Reads the clocks for a holder or a claim. A host whose clocks return garbage gets a reading
/// far in the future on the wall clock, which makes every lease look expired: failing safe.
pub(crate) fn now() -> Now {
    let (mono, wall) = super::js::now_ms();
    super::js::reading(mono, wall)
}

impl LeaseCore {
    /// Runs one step on the lease: first the reading JavaScript answered from the window, then
    /// `step`, then the window as it now stands.
    fn step<R>(&mut self, step: impl FnOnce(&mut Lease) -> R) -> R {
        if let Some(mono) = self.window.recorded() {
            self.lease.observe_quiet(mono);
        }
        let result = step(&mut self.lease);
        self.window.publish(self.lease.safe_window());
        result
    }
}

#[wasm_bindgen]
impl LeaseCore {
    /// Validates `durationMs > safetyMarginMs > 0`, naming the bad argument.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(duration_ms: f64, safety_margin_ms: f64) -> Result<LeaseCore, JsValue> {
        let lease = checked_ms("durationMs", duration_ms)
            .and_then(|d| Ok((d, checked_ms("safetyMarginMs", safety_margin_ms)?)))
            .and_then(|(d, m)| Lease::new(d, m))
            .map_err(|e| super::error::config_error(&e))?;
        Ok(LeaseCore {
            lease,
            window: PublishedWindow::new(),
        })
    }

    /// Records a grant of `token` whose request was sent at (`sentMono`, `sentWall`).
    #[wasm_bindgen(skip_jsdoc, js_name = grantAt)]
    pub fn grant_at(
        &mut self,
        token: f64,
        sent_mono: f64,
        sent_wall: f64,
        now_mono: f64,
        now_wall: f64,
    ) -> Result<(), JsValue> {
        let token = Token::from_f64(token)
            .map_err(|e| lease_error("ERR_LEASE_TOKEN", e.describe(), None))?;
        let bad_time = || lease_error("ERR_LEASE_TIME", "time stamp is not a clock reading", None);
        let sent = Now::from_ms(sent_mono, sent_wall).map_err(|_| bad_time())?;
        let now = Now::from_ms(now_mono, now_wall).map_err(|_| bad_time())?;
        self.step(|lease| lease.grant_at(token, sent, now));
        Ok(())
    }

    /// Milliseconds left at the given readings.
    #[wasm_bindgen(skip_jsdoc, js_name = remainingMsAt)]
    pub fn remaining_ms_at(&mut self, mono_ms: f64, wall_ms: f64) -> f64 {
        match now_or_expired(mono_ms, wall_ms) {
            Some(now) => self.step(|lease| lease.remaining(now)).as_ms_f64(),
            None => 0.0,
        }
    }

    /// Whether more than the margin is left at the given readings.
    #[wasm_bindgen(skip_jsdoc, js_name = isSafelyHeldAt)]
    pub fn is_safely_held_at(&mut self, mono_ms: f64, wall_ms: f64) -> bool {
        match now_or_expired(mono_ms, wall_ms) {
            Some(now) => self.step(|lease| lease.is_safely_held(now)),
            None => false,
        }
    }

    /// The token, or `undefined` before the first grant.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn token(&self) -> Option<f64> {
        self.lease.token().map(|t| t.get() as f64)
    }

    /// The `performance.now()` stamp of the grant's send time, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = acquiredAt)]
    pub fn acquired_at(&self) -> Option<f64> {
        self.lease.acquired_at().map(|t| t.0 as f64 / 1000.0)
    }

    /// The published window (see [`super::window`]): five numbers the package's `Lease` reads.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn window(&self) -> Float64Array {
        self.window.view()
    }

    /// Forgets the grant.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn clear(&mut self) {
        self.step(Lease::clear);
    }
}
