//! `ObserverCore`: the [observed-expiry rule](crate::core::Observer) for a record another party
//! rewrites (a Kubernetes Lease), with clock readings in ms as JavaScript takes them; the
//! Kubernetes adapter ([`super::adapters::kubernetes`]) keeps one per Lease.

use wasm_bindgen::JsValue;

use super::error::config_error;
use crate::core::{checked_ms, Micros, Now, Observer};

/// A duration from JavaScript: a finite number from 0, else none (the default applies).
fn number(value: f64) -> Option<f64> {
    (value.is_finite() && value >= 0.0).then_some(value)
}

/// Observed expiry of one record another party rewrites (see `core::observed`).
pub struct ObserverCore {
    core: Observer<String>,
}

impl ObserverCore {
    /// An observer that waits `defaultDurationMs` for records that carry no duration.
    pub fn new(default_duration_ms: f64) -> Result<ObserverCore, JsValue> {
        let duration =
            checked_ms("durationMs", default_duration_ms).map_err(|e| config_error(&e))?;
        Ok(ObserverCore {
            core: Observer::new(duration),
        })
    }

    /// The record reads `version` with `durationMs` (not a number from 0: the default).
    /// Returns whether the version is new. Readings that are not clock readings are ignored:
    /// a sighting at an unknown time would start the wait at an unknown point.
    pub fn observe(
        &mut self,
        mono_ms: f64,
        wall_ms: f64,
        version: String,
        duration_ms: f64,
    ) -> bool {
        let Ok(now) = Now::from_ms(mono_ms, wall_ms) else {
            return false;
        };
        let duration = number(duration_ms).map(Micros::from_ms_f64);
        self.core.observe(now, version, duration)
    }

    /// Whether the version seen counts as expired: strictly more than its duration has elapsed
    /// on our monotonic clock since we first saw it. False before any sighting, and at readings
    /// that are not clock readings (never judged expired on those).
    pub fn is_expired(&mut self, mono_ms: f64, wall_ms: f64) -> bool {
        Now::from_ms(mono_ms, wall_ms).is_ok_and(|now| self.core.is_expired(now))
    }

    /// The wait a denial reports: whole milliseconds, rounded up, until the instant the version
    /// seen has had its full duration (it counts as expired just after); at least 1 while it is
    /// live, 0 once expired; `Infinity` before any sighting or at readings that are not clock
    /// readings.
    pub fn expires_in_ms(&mut self, mono_ms: f64, wall_ms: f64) -> f64 {
        let left = Now::from_ms(mono_ms, wall_ms)
            .ok()
            .and_then(|now| self.core.remaining(now));
        match left {
            None => f64::INFINITY,
            Some(Micros::ZERO) => 0.0,
            // `remaining` runs to the first expired instant, one microsecond past the duration.
            Some(left) => (left.0 - 1).div_ceil(1_000).max(1) as f64,
        }
    }
}
