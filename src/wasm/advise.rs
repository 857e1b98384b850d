//! `adviseDuration`'s judgement: reads the stats and the configuration into numbers for
//! [`crate::core::advise_duration`] and returns its verdict as a plain object, problems as codes.
//! The package words the messages.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::error::{config_error, get, set};
use crate::core::{advise_duration, AdviceConfig, ConfigError, DurationAdvice, ObservedStats};

/// A number from JavaScript; anything else is NaN, which the core rejects.
fn number(value: &JsValue) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}

/// An optional figure: `None` when `null` or missing.
fn figure(value: JsValue) -> Option<f64> {
    (!value.is_undefined() && !value.is_null()).then(|| number(&value))
}

/// An optional setting: `None` only when missing, as the holder reads its options.
fn setting(value: JsValue) -> Option<f64> {
    (!value.is_undefined()).then(|| number(&value))
}

fn shape_error(field: &'static str, problem: &'static str) -> JsValue {
    config_error(&ConfigError { field, problem })
}

fn nullable(value: Option<f64>) -> JsValue {
    value.map_or(JsValue::NULL, JsValue::from_f64)
}

fn verdict(advice: &DurationAdvice) -> JsValue {
    let object = Object::new();
    let problems = Array::new();
    for problem in &advice.problems {
        problems.push(&JsValue::from_str(problem.code()));
    }
    let basis = Object::new();
    let figures = &advice.basis;
    set(&basis, "renewRttP99Ms", &nullable(figures.renew_rtt_p99_ms));
    set(
        &basis,
        "timerLatenessP99Ms",
        &figures.timer_lateness_p99_ms.into(),
    );
    set(
        &basis,
        "clockUncertaintyMs",
        &figures.clock_uncertainty_ms.into(),
    );
    set(&basis, "renewIntervalMs", &figures.renew_interval_ms.into());
    set(
        &basis,
        "requiredMarginMs",
        &nullable(figures.required_margin_ms),
    );
    set(&basis, "renewalBudgetMs", &figures.renewal_budget_ms.into());
    set(
        &basis,
        "requiredBudgetMs",
        &nullable(figures.required_budget_ms),
    );
    set(&object, "safe", &advice.safe().into());
    set(&object, "problems", &problems);
    set(
        &object,
        "suggestedLeaseMs",
        &advice.suggested_lease_ms.into(),
    );
    set(
        &object,
        "suggestedMarginMs",
        &advice.suggested_margin_ms.into(),
    );
    set(&object, "basis", &basis);
    set(&object, "attemptMs", &advice.attempt_ms.into());
    set(&object, "marginLosses", &advice.margin_losses.into());
    object.into()
}

/// Judges `config` (`leaseMs`, `marginMs`, optional `renewIntervalMs`, `clockUncertaintyMs`)
/// against `stats` (what `holder.stats()` returns). Returns `{ safe, problems: [code],
/// suggestedLeaseMs, suggestedMarginMs, basis, attemptMs, marginLosses }`; throws
/// `ERR_LEASE_CONFIG` naming the bad field.
#[wasm_bindgen(skip_jsdoc, js_name = adviseDurationCore)]
pub fn advise_duration_core(stats: JsValue, config: JsValue) -> Result<JsValue, JsValue> {
    if !config.is_object() {
        return Err(shape_error(
            "config",
            "must be an object with leaseMs and marginMs",
        ));
    }
    let config = AdviceConfig::from_ms(
        number(&get(&config, "leaseMs")),
        number(&get(&config, "marginMs")),
        setting(get(&config, "renewIntervalMs")),
        setting(get(&config, "clockUncertaintyMs")),
    )
    .map_err(|e| config_error(&e))?;
    if !stats.is_object() {
        return Err(shape_error("stats", "must be what holder.stats() returns"));
    }
    let margin_losses = match get(&stats, "lossReasons") {
        reasons if reasons.is_undefined() || reasons.is_null() => Some(0.0),
        reasons if reasons.is_object() => {
            let losses = get(&reasons, "margin_exhausted");
            // Taken as JavaScript compares it with 0 (unary plus): the holder reports numbers.
            Some(match figure(losses.clone()) {
                None => 0.0,
                Some(_) => losses.unchecked_into_f64(),
            })
        }
        _ => None,
    };
    let observed = ObservedStats {
        samples: figure(get(&stats, "samples")),
        timer_samples: figure(get(&stats, "timerSamples")),
        renew_rtt_p99_ms: figure(get(&stats, "renewRttP99Ms")),
        timer_lateness_p99_ms: figure(get(&stats, "timerLatenessP99Ms")),
        margin_low_water_ms: figure(get(&stats, "marginLowWaterMs")),
        margin_losses,
    };
    advise_duration(&observed, &config)
        .map(|advice| verdict(&advice))
        .map_err(|e| config_error(&e))
}
