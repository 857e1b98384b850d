//! The core's [`SafeWindow`], published in the module's memory for the package's `Lease` to read.
//!
//! A call into WebAssembly costs about as much as the two clock reads a check needs, so the
//! JavaScript `Lease` reads five numbers here instead: for a reading inside the window it answers
//! `isSafelyHeld()` (and `remainingMs()`) itself and writes the reading's monotonic time back into
//! the first slot; for any other reading (NaN, negative, a clock gone back or run ahead, past the
//! margin, not held) it calls in. Before its next step the core takes that recorded reading, which
//! is exactly what observing the reading would have done (see [`SafeWindow`]), and after every
//! step it publishes its window again. So the core decides everything: the window is its answer
//! for a set of readings, given before they are taken.
//!
//! The slots hold integer microseconds, as the core counts them, in `f64`: the JavaScript side
//! rounds its readings exactly as [`crate::core::Now::from_ms`] does (`floor(ms * 1000 + 0.5)`)
//! and compares them with these exact integers, so both sides admit the same readings.

use std::cell::Cell;

use js_sys::{Float64Array, WebAssembly};
use wasm_bindgen::JsCast;

use crate::core::{MonoTime, SafeWindow};

/// The slots, in the order `pkg/api.js` reads them: `[monoFrom, safeUntil, offsetMin,
/// offsetMax, expiresAt]`, all µs. The first is also where JavaScript records a reading.
const SLOTS: usize = 5;
const MONO_FROM: usize = 0;

/// The largest integer every `f64` below it represents exactly.
const EXACT: i128 = 1 << 53;

/// Five numbers in the module's memory, at an address that stays put while they live.
pub struct PublishedWindow {
    slots: Box<[Cell<f64>; SLOTS]>,
}

impl PublishedWindow {
    /// An empty window: it admits nothing until the first publication.
    pub fn new() -> PublishedWindow {
        PublishedWindow {
            slots: Box::new([const { Cell::new(f64::NAN) }; SLOTS]),
        }
    }

    /// The latest reading the JavaScript side answered from the window, if any: hand it to the
    /// core's `observe_quiet` before anything else.
    pub fn recorded(&self) -> Option<MonoTime> {
        let mono = self.slots[MONO_FROM].get();
        // NaN fails the comparison: an empty window records nothing.
        (mono >= 0.0).then_some(MonoTime(mono as u64))
    }

    /// Publishes `window`, or an empty window for `None`.
    pub fn publish(&self, window: Option<SafeWindow>) {
        let values = window.and_then(exact).unwrap_or([f64::NAN; SLOTS]);
        for (slot, value) in self.slots.iter().zip(values) {
            slot.set(value);
        }
    }

    /// A `Float64Array` over the slots. It goes empty (detached) when the memory grows: then
    /// every comparison with it fails and the JavaScript side calls in and asks for a new one.
    pub fn view(&self) -> Float64Array {
        let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        let address = self.slots.as_ptr() as u32;
        Float64Array::new_with_byte_offset_and_length(&memory.buffer(), address, SLOTS as u32)
    }
}

/// The window as exact `f64` slots, narrowed so that every reading it admits is a valid one:
/// `None` (publish nothing) where that is impossible.
fn exact(window: SafeWindow) -> Option<[f64; SLOTS]> {
    let mono_from = i128::from(window.mono_from.0);
    let safe_until = i128::from(window.safe_until.0);
    // Readings below 1 µs round alike from both sides of zero, and the core refuses negative
    // ones: admitting only readings of at least 1 µs on both clocks leaves those to the core.
    if mono_from < 1 {
        return None;
    }
    let offset_min = window.offset_min.max(1 - mono_from);
    let offset_max = window.offset_max;
    // Every admitted wall reading is `offset + mono <= offset_max + safe_until`; keeping that
    // exact keeps the JavaScript subtraction exact.
    let values = [
        mono_from,
        safe_until,
        offset_min,
        offset_max,
        i128::from(window.expires_at.0),
    ];
    if offset_min > offset_max
        || offset_max + safe_until > EXACT
        || values.iter().any(|v| v.abs() > EXACT)
    {
        return None;
    }
    Some(values.map(|v| v as f64))
}
