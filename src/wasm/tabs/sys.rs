//! What the tabs code takes from the JavaScript global scope: reached through `globalThis`, so
//! one build runs in windows and in dedicated and shared workers, and feature-detected, since
//! IndexedDB, Web Locks and BroadcastChannel may be missing.

use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use web_sys::{IdbFactory, LockManager};

use super::super::error::{get, lease_error, set};
use super::super::js::{js_string, then_call};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = queueMicrotask)]
    fn queue_microtask(callback: &JsValue);

    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values(array: &Uint8Array);

    /// `performance.timeOrigin`: where this context's `performance.now()` starts, on the time
    /// line that contexts share.
    #[wasm_bindgen(thread_local_v2, js_namespace = performance, js_name = timeOrigin)]
    static TIME_ORIGIN: f64;
}

/// `globalThis`.
pub fn global() -> JsValue {
    js_sys::global().into()
}

/// Whether the global `name` is a function (a constructor such as `Worker`).
pub fn has_global_function(name: &str) -> bool {
    get(&global(), name).is_function()
}

/// `indexedDB`, if this context has it.
pub fn indexed_db() -> Option<IdbFactory> {
    let factory = get(&global(), "indexedDB");
    get(&factory, "open")
        .is_function()
        .then(|| factory.unchecked_into())
}

/// `navigator.locks`, if this context has Web Locks.
pub fn lock_manager() -> Option<LockManager> {
    let locks = get(&get(&global(), "navigator"), "locks");
    get(&locks, "request")
        .is_function()
        .then(|| locks.unchecked_into())
}

/// A reading on the shared time line: `performance.timeOrigin + monoMs`.
pub fn origin_ms(mono_ms: f64) -> f64 {
    TIME_ORIGIN.with(|origin| *origin) + mono_ms
}

/// Runs `task` on a microtask: after the current JavaScript, before anything else.
pub fn later(task: impl FnOnce() + 'static) {
    let task: Box<dyn FnOnce()> = Box::new(task);
    queue_microtask(&Closure::once_into_js(task));
}

/// Calls `done` once `promise` settled, with its value or its reason: one closure, freed when
/// called, sees either outcome.
pub fn on_settled(promise: &Promise, done: impl FnOnce(Result<JsValue, JsValue>) + 'static) {
    let done: Box<dyn FnOnce(Result<JsValue, JsValue>)> = Box::new(done);
    let settled = Promise::all_settled(&Array::of1(promise));
    let callback = Closure::once_into_js(move |outcomes: JsValue| {
        let outcome = Reflect::get_u32(&outcomes, 0).unwrap_or(JsValue::UNDEFINED);
        if get(&outcome, "status").as_string().as_deref() == Some("fulfilled") {
            done(Ok(get(&outcome, "value")));
        } else {
            done(Err(get(&outcome, "reason")));
        }
    });
    let _ = then_call(&settled, &callback);
}

/// `n` bytes from `crypto.getRandomValues`.
fn random_bytes<const N: usize>() -> [u8; N] {
    let array = Uint8Array::new_with_length(N as u32);
    get_random_values(&array);
    let mut bytes = [0; N];
    array.copy_to(&mut bytes);
    bytes
}

/// `prefix` and 12 random bytes in hex: an id no other context picks.
pub fn random_id(prefix: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(prefix.len() + 24);
    id.push_str(prefix);
    for byte in random_bytes::<12>() {
        id.push(char::from(HEX[usize::from(byte >> 4)]));
        id.push(char::from(HEX[usize::from(byte & 15)]));
    }
    id
}

/// What an error says: its `message`, or the value itself, as JavaScript prints them.
pub fn describe(error: &JsValue) -> String {
    let message = get(error, "message");
    let shown = if message.is_undefined() || message.is_null() {
        error
    } else {
        &message
    };
    // A value whose `String()` throws (a Symbol) is described by what it is not.
    js_string(shown)
        .ok()
        .and_then(|shown| shown.as_string())
        .unwrap_or_else(|| "an unprintable value".into())
}

/// A `LeaseError` whose message is `prefix` followed by what `error` says.
pub fn error_with(code: &str, prefix: &str, error: &JsValue) -> JsValue {
    let mut message = String::from(prefix);
    message.push_str(&describe(error));
    lease_error(code, &message, None)
}

/// An IndexedDB failure (`ERR_TAB_STORAGE`), the original as `cause`.
pub fn storage_error(error: &JsValue, what: &str) -> JsValue {
    let mut prefix = String::from("IndexedDB ");
    prefix.push_str(what);
    prefix.push_str(" failed: ");
    let lease = error_with("ERR_TAB_STORAGE", &prefix, error);
    set(&lease, "cause", error);
    lease
}
