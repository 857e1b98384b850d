//! Reading a holder's timing options from a JavaScript object, once for every machine that
//! renews a lease of its own: `LeaseHolder`, and `TabLease` (its heartbeat and its global
//! lease). Errors name the option, as the core's [`ConfigError`] does.

use wasm_bindgen::JsValue;

use super::error::get;
use crate::core::{ConfigError, HolderConfig, HolderOptionsMs};

/// An optional number: `undefined` is absent, anything but a number is an error.
fn number_option(config: &JsValue, key: &'static str) -> Result<Option<f64>, ConfigError> {
    let value = get(config, key);
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) => Ok(Some(n)),
        None => Err(ConfigError {
            field: key,
            problem: "must be a number",
        }),
    }
}

/// A number that must be there.
fn required_number(config: &JsValue, key: &'static str) -> Result<f64, ConfigError> {
    number_option(config, key)?.ok_or(ConfigError {
        field: key,
        problem: "is required",
    })
}

/// `leaseMs`, `marginMs`, `renewIntervalMs`, `requestTimeoutMs`, `retryDelayMs` and
/// `retryDelayMaxMs` of `config`, validated by the core's rules ([`HolderConfig::from_ms`]).
pub fn holder_config(config: &JsValue, seed: u64) -> Result<HolderConfig, ConfigError> {
    let options = HolderOptionsMs {
        renew_interval_ms: number_option(config, "renewIntervalMs")?,
        request_timeout_ms: number_option(config, "requestTimeoutMs")?,
        retry_delay_ms: number_option(config, "retryDelayMs")?,
        retry_delay_max_ms: number_option(config, "retryDelayMaxMs")?,
    };
    let lease_ms = required_number(config, "leaseMs")?;
    let margin_ms = required_number(config, "marginMs")?;
    HolderConfig::from_ms(lease_ms, margin_ms, options, seed)
}
