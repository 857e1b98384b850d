//! tenure: leases that stay safe when clocks lie, tabs freeze and networks hang.
//!
//! - [`core`]: the sans-IO lease and holder state machine. No JavaScript, no clocks, no IO.
//! - [`protocol`]: the grantor protocol's wire types, shared with the reference grantor.
//! - [`adapters`]: what the state of etcd, Consul, Kubernetes and Redis means for the protocol,
//!   sans-IO, for the binding's grantor adapters.
//! - [`rules`]: the grantor's rules (grant, renew, release, claims, replay), sans-IO, shared by
//!   every grantor.
//! - `requests` (feature `requests`): request bodies read and checked as every grantor reads
//!   them.
//! - `secrets` (feature `secrets`): the lease and claim secrets every grantor derives alike.
//! - `kv_grantor` (feature `kv-grantor`): a grantor whose state is records in a key-value store,
//!   sans-IO, for the Durable Object and Deno KV grantors.
//! - `wasm` (WebAssembly builds only): the binding the npm package is built from.
#![warn(missing_docs)]

pub mod adapters;
pub mod core;
#[cfg(feature = "kv-grantor")]
pub mod kv_grantor;
pub mod protocol;
#[cfg(feature = "requests")]
pub mod requests;
pub mod rules;
#[cfg(feature = "secrets")]
pub mod secrets;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
