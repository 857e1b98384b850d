//! The WebAssembly binding: translates between JavaScript and the core, nothing more.
//!
//! Time, timers and the network come from JavaScript globals; the core decides. The package's
//! JavaScript layer (`pkg/api.js`) wraps these exports into the design's `Lease` and
//! `LeaseHolder` classes and its `LeaseError` types.

mod advise;
mod alloc;
mod batch;
mod claim;
mod error;
mod holder;
mod js;
mod lease;
mod observer;
mod options;
mod replay;
mod reply;
mod tabs;
mod wake;
mod window;

pub use advise::advise_duration_core;
pub use batch::BatchCore;
pub use claim::{describe_failure, ClaimerCore};
pub use holder::HolderCore;
pub use lease::LeaseCore;
pub use observer::ObserverCore;
pub use replay::RecentCallsCore;
pub use tabs::{serve_tab_engine, FencedStoreCore, TabLeaseCore};
pub use wake::{wake_hold_ended, wake_hold_started};

// The standard library's allocator is most of the module's size; this one fits what the binding
// does. Not with threads: it assumes one.
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator::new();
