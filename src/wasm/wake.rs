//! `WakeCore`: the process-wide wake detector (see [`crate::core::WakeDetector`]). The package
//! owns its one timer and reads the clocks at each tick; the detector decides whether that was a
//! wake and when the next tick is due.

use wasm_bindgen::prelude::*;

use super::lease::now_or_expired;
use crate::core::{Micros, WakeDetector};

/// The wake detector for every holder in this JavaScript realm.
#[wasm_bindgen]
pub struct WakeCore {
    detector: WakeDetector,
}

/// A margin as the holder validated it (a positive, finite number of ms).
fn margin(margin_ms: f64) -> Micros {
    Micros::from_ms_f64(margin_ms.max(0.0))
}

#[wasm_bindgen]
impl WakeCore {
    /// A detector watching nothing.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> WakeCore {
        WakeCore {
            detector: WakeDetector::new(),
        }
    }

    /// A lease with `marginMs` is held from the given readings on.
    #[wasm_bindgen(skip_jsdoc, js_name = holdStarted)]
    pub fn hold_started(&mut self, mono_ms: f64, wall_ms: f64, margin_ms: f64) {
        // Unusable readings start the watch at zero: the next good reading then looks like a
        // wake, which only checks the holders early.
        let now = now_or_expired(mono_ms, wall_ms).unwrap_or_default();
        self.detector.hold_started(now, margin(margin_ms));
    }

    /// A hold with `marginMs` ended.
    #[wasm_bindgen(skip_jsdoc, js_name = holdEnded)]
    pub fn hold_ended(&mut self, margin_ms: f64) {
        self.detector.hold_ended(margin(margin_ms));
    }

    /// Takes a tick's readings: `true` when the holders must check their deadlines now.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn tick(&mut self, mono_ms: f64, wall_ms: f64) -> bool {
        match now_or_expired(mono_ms, wall_ms) {
            Some(now) => self.detector.handle_tick(now),
            // Readings that are no time at all: check, failing safe.
            None => self.detector.holds() > 0,
        }
    }

    /// Milliseconds from the monotonic reading `monoMs` to the next tick, or `undefined` when
    /// nothing is held (no timer needed).
    #[wasm_bindgen(skip_jsdoc, js_name = delayMs)]
    pub fn delay_ms(&self, mono_ms: f64) -> Option<f64> {
        let due = self.detector.poll_timeout()?;
        let now = Micros::from_ms_f64(mono_ms.max(0.0));
        Some(Micros(due.0.saturating_sub(now.0)).as_ms_f64())
    }
}
