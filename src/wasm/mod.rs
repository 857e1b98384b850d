//! The WebAssembly binding: translates between JavaScript and the core, nothing more.
//!
//! Time, timers and the network come from JavaScript globals; the core decides. The package's
//! JavaScript layer (`pkg/api.js`) wraps these exports into the design's `Lease` and
//! `LeaseHolder` classes and its `LeaseError` types.

mod error;
mod holder;
mod js;
mod lease;
mod reply;

pub use holder::HolderCore;
pub use lease::LeaseCore;
