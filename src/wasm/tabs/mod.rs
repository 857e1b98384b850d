//! `TabLease` and `FencedStore`: one active tab (or worker) per name, across the tabs of one
//! browser profile, and values fenced by the name's epochs.
//!
//! Web Locks give exclusivity and an instant handoff when the holder closes, navigates or
//! crashes; a heartbeat lease on a shared IndexedDB log bounds how long a frozen or hung holder
//! can keep the role; every hold gets a larger epoch, and the fenced store rejects writes from
//! any older one. The decisions are the core's ([`crate::core::TabElection`],
//! [`crate::core::PageHold`]); this module does their IO:
//! - [`page`]: the page's side (`TabLeaseCore`): configuration, the engine's worker or inline
//!   engine, the mirror of the hold on the page's clocks, the page's lifecycle, global mode's
//!   grantor calls;
//! - [`engine`]: the election's IO (Web Locks, BroadcastChannel, the log, one timer), in the
//!   heartbeat worker (`serveTabEngine`) or inline;
//! - [`global`]: global mode's grantor lease, the module's only use of the holder;
//! - [`store`] and [`fenced`]: IndexedDB, and `FencedStoreCore`;
//! - [`calls`]: calls into the active tab (the core's [`crate::core::TabCalls`]);
//! - [`watch`]: who holds the role, as every page sees it (the core's [`crate::core::TabWatch`]);
//! - [`wire`]: what is stored, broadcast and messaged; [`sys`]: the globals used.
//!
//! It depends on the core and a few shared binding helpers only, so it can be built alone.

mod calls;
mod engine;
mod fenced;
#[cfg(feature = "holder")]
mod global;
// Without the holder (the `tenure/tabs` module), global mode is refused when configured, and its
// campaign is a stand-in that is never started.
#[cfg(not(feature = "holder"))]
#[path = "no_global.rs"]
mod global;
mod page;
mod store;
mod sys;
mod watch;
mod wire;

use js_sys::Array;
use wasm_bindgen::JsValue;

use super::error::{config_error, lease_error, set};
use crate::core::TabConfig;

pub use engine::serve_tab_engine;
pub use fenced::FencedStoreCore;
pub use page::TabLeaseCore;

/// Prefix of the Web Lock and BroadcastChannel names, so they never clash with an app's own.
const NAME_PREFIX: &str = "tenure-tab:";

/// Prefix of the BroadcastChannel that carries calls into the active tab, apart from the
/// election's so that its worker never wakes for them.
const CALL_PREFIX: &str = "tenure-tab-call:";

/// A role name the core accepts (a non-empty string of at most
/// [`TabConfig::MAX_NAME_LENGTH`] UTF-16 code units, as JavaScript counts `length`: it is part
/// of every key).
fn checked_name(name: &JsValue) -> Result<String, JsValue> {
    let name = name.as_string().unwrap_or_default();
    TabConfig::check_name_length(name.encode_utf16().count()).map_err(|e| config_error(&e))?;
    Ok(name)
}

/// `ERR_TAB_UNSUPPORTED`, naming in `missing` what this runtime lacks for `what`, unless it has
/// IndexedDB and `crypto.getRandomValues`.
fn assert_supported(what: &str) -> Result<(), JsValue> {
    let mut missing = Vec::new();
    if sys::indexed_db().is_none() {
        missing.push("indexedDB");
    }
    let crypto = super::error::get(&sys::global(), "crypto");
    if !super::error::get(&crypto, "getRandomValues").is_function() {
        missing.push("crypto.getRandomValues");
    }
    if missing.is_empty() {
        return Ok(());
    }
    let mut message = String::from(what);
    message.push_str(" needs ");
    message.push_str(&missing.join(" and "));
    message.push_str(", which this runtime lacks");
    let error = lease_error("ERR_TAB_UNSUPPORTED", &message, None);
    let names: Array = missing.iter().map(|name| JsValue::from_str(name)).collect();
    set(&error, "missing", &names);
    Err(error)
}
