//! tenure: leases that stay safe when clocks lie, tabs freeze and networks hang.
//!
//! - [`core`]: the sans-IO lease and holder state machine. No JavaScript, no clocks, no IO.
//! - [`protocol`]: the grantor protocol's wire types, shared with the reference grantor.
//! - [`adapters`]: what the state of etcd, Consul, Kubernetes and Redis means for the protocol,
//!   sans-IO, for the binding's grantor adapters.
//! - [`rules`]: the grantor's rules (grant, renew, release, claims, replay), sans-IO, shared by
//!   every grantor.
//! - `wasm` (WebAssembly builds only): the binding the npm package is built from.
#![warn(missing_docs)]

pub mod adapters;
pub mod core;
pub mod protocol;
pub mod rules;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
