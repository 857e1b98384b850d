//! tenure: leases that stay safe when clocks lie, tabs freeze and networks hang.
//!
//! - [`core`]: the sans-IO lease and holder state machine. No JavaScript, no clocks, no IO.
//! - [`protocol`]: the grantor protocol's wire types, shared with the reference grantor.
//! - [`rules`]: the grantor's rules (grant, renew, release, claims, replay), sans-IO, shared by
//!   every grantor.
//! - `wasm` (WebAssembly builds only): the binding the npm package is built from.
#![warn(missing_docs)]

pub mod core;
pub mod protocol;
pub mod rules;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
