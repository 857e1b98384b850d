//! `RecentCallsCore`: the adapters' memory of recent grants and renewals, for answering retries
//! by the core's replay rule ([`crate::core::replay`]). The package's `RecentCalls` wraps it and
//! passes `performance.now()` in; the rule and the bounded memory are here.

use wasm_bindgen::prelude::*;

use crate::core::replay::RecentCalls;
use crate::core::Micros;

/// A call's start, in µs, rounded down: an earlier start leaves less to promise. A reading that is
/// not a number counts as the clock's zero, which leaves the least.
fn started_at(ms: f64) -> Micros {
    Micros(if ms.is_finite() {
        (ms * 1000.0) as u64
    } else {
        0
    })
}

/// Now, in µs, rounded up: a later now leaves less to promise. A reading that is not a number
/// counts as infinitely late, which leaves nothing.
fn now_at(ms: f64) -> Micros {
    Micros(if ms.is_finite() {
        (ms * 1000.0).ceil() as u64
    } else {
        u64::MAX
    })
}

/// A duration in whole ms, rounded down; one that is not a number promises nothing.
fn whole_ms(ms: f64) -> u64 {
    ms as u64
}

/// Recent successful grants and renewals by attempt, with the times passed in.
#[wasm_bindgen]
pub struct RecentCallsCore {
    calls: RecentCalls,
}

#[wasm_bindgen]
impl RecentCallsCore {
    /// Remembers nothing yet.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new() -> RecentCallsCore {
        RecentCallsCore {
            calls: RecentCalls::new(),
        }
    }

    /// Records that attempt `key`, started at `startedAt` (ms), got `durationMs`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn remember(&mut self, key: &str, started_at_ms: f64, duration_ms: f64) {
        self.calls
            .remember(key, started_at(started_at_ms), whole_ms(duration_ms));
    }

    /// Whole ms the remembered attempt `key` has left at `nowMs`, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, js_name = remainingMs)]
    pub fn remaining_ms(&self, key: &str, now_ms: f64) -> Option<f64> {
        self.calls
            .remaining_ms(key, now_at(now_ms))
            .map(|ms| ms as f64)
    }

    /// What attempt `key` may promise now that the grantor promised `durationMs`.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn promise(&mut self, key: &str, started_at_ms: f64, duration_ms: f64, now_ms: f64) -> f64 {
        self.calls.promise(
            key,
            started_at(started_at_ms),
            whole_ms(duration_ms),
            now_at(now_ms),
        ) as f64
    }
}

impl Default for RecentCallsCore {
    fn default() -> RecentCallsCore {
        RecentCallsCore::new()
    }
}
