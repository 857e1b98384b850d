//! Errors thrown to JavaScript. Each is an `Error` with `name = "LeaseError"` and a stable `code`;
//! the package's JavaScript layer re-creates them as its exported `LeaseError` class.

use wasm_bindgen::JsValue;

#[cfg(any(feature = "lease", feature = "tabs"))]
use crate::core::ConfigError;

/// An `Error` carrying `code` and, for configuration errors, the offending `field`.
pub fn lease_error(code: &str, message: &str, field: Option<&str>) -> JsValue {
    let error = js_sys::Error::new(message);
    error.set_name("LeaseError");
    let object: &JsValue = error.as_ref();
    set(object, "code", &JsValue::from_str(code));
    if let Some(field) = field {
        set(object, "field", &JsValue::from_str(field));
    }
    error.into()
}

/// `ERR_LEASE_CONFIG` naming the bad option.
#[cfg(any(feature = "lease", feature = "tabs"))]
pub fn config_error(error: &ConfigError) -> JsValue {
    let mut message = String::with_capacity(error.field.len() + error.problem.len() + 1);
    message.push_str(error.field);
    message.push(' ');
    message.push_str(error.problem);
    lease_error("ERR_LEASE_CONFIG", &message, Some(error.field))
}

/// Sets a property; setting on a fresh object or `Error` cannot fail.
pub fn set(target: &JsValue, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(target, &JsValue::from_str(key), value);
}

/// Reads a property, `undefined` if the target is not an object or the read throws.
pub fn get(target: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}
