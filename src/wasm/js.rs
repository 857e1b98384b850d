//! Bindings to JavaScript globals. Globals, not `window`, so one build runs in windows, workers,
//! Node, Deno and workerd. The helpers for leases and holds are left out of the grantor-only
//! module (`kv-grantor` alone), which keeps none.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: the monotonic clock.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub fn performance_now() -> f64;

    /// `Date.now()`: the wall clock.
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    pub fn date_now() -> f64;

    /// `String(value)`; throws for a Symbol.
    #[wasm_bindgen(catch, js_name = String)]
    pub fn js_string(value: &JsValue) -> Result<JsValue, JsValue>;

    /// A promise, seen as something with a `then` that takes any function.
    type Thenable;

    /// `promise.then(onFulfilled)`.
    #[wasm_bindgen(method, js_name = then)]
    fn then(this: &Thenable, on_fulfilled: &JsValue) -> js_sys::Promise;
}

#[cfg(any(feature = "lease", feature = "tabs"))]
/// `promise.then(onFulfilled)` with any function, such as a one-shot closure (which `js_sys`
/// does not take).
pub fn then_call(promise: &js_sys::Promise, on_fulfilled: &JsValue) -> js_sys::Promise {
    promise.unchecked_ref::<Thenable>().then(on_fulfilled)
}

#[cfg(any(feature = "lease", feature = "tabs"))]
/// Reads both clocks at once, as the core wants them.
pub fn now_ms() -> (f64, f64) {
    (performance_now(), date_now())
}

#[cfg(any(feature = "lease", feature = "tabs"))]
/// Clock readings as the core takes them. Readings that are no clock readings count as far in
/// the future on the wall clock, which makes every lease and hold look expired: failing safe.
pub fn reading(mono_ms: f64, wall_ms: f64) -> crate::core::Now {
    crate::core::Now::from_ms(mono_ms, wall_ms)
        .unwrap_or(crate::core::Now::from_micros(0, u64::MAX / 2))
}

#[cfg(any(feature = "lease", feature = "tabs"))]
/// A seed for retry jitter: seeds only need to differ between holders and workers, and
/// `Math.random` is everywhere, `crypto` is not.
pub fn random_seed() -> u64 {
    let high = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    let low = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    (high << 32) | low
}

/// `id:<random>:`, the prefix of the request ids a holder or worker `id` sends, so they stay
/// unique across holders, slots and process restarts. Built with JavaScript's number formatting
/// to keep Rust's formatting machinery out of the module.
#[cfg(feature = "holder")]
pub fn request_prefix(id: &JsValue) -> js_sys::JsString {
    let random = js_sys::Number::from(js_sys::Math::random() * 9_007_199_254_740_991.0)
        .to_string_with_radix(36)
        .unwrap_or_else(|_| js_sys::JsString::from("0"));
    let separator = JsValue::from_str(":");
    id.dyn_ref::<js_sys::JsString>()
        .cloned()
        .unwrap_or_else(|| js_sys::JsString::from(""))
        .concat(&separator)
        .concat(&random)
        .concat(&separator)
}
