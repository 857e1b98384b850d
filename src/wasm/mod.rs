//! The WebAssembly binding: translates between JavaScript and the core, nothing more.
//!
//! Time, timers and the network come from JavaScript globals; the core decides. The package's
//! JavaScript layer (`pkg/api.js`) wraps these exports into the design's `Lease` and
//! `LeaseHolder` classes and its `LeaseError` types.

#[cfg(feature = "holder")]
mod advise;
mod alloc;
#[cfg(feature = "grantors")]
mod batch;
#[cfg(feature = "claims")]
mod claim;
mod error;
#[cfg(feature = "holder")]
mod holder;
mod js;
#[cfg(feature = "lease")]
mod lease;
#[cfg(feature = "grantors")]
mod observer;
#[cfg(any(feature = "holder", feature = "tabs"))]
mod options;
#[cfg(feature = "grantors")]
mod replay;
#[cfg(feature = "holder")]
mod reply;
#[cfg(feature = "tabs")]
mod tabs;
#[cfg(feature = "holder")]
mod wake;
#[cfg(feature = "lease")]
mod window;

#[cfg(feature = "holder")]
pub use advise::advise_duration_core;
#[cfg(feature = "grantors")]
pub use batch::BatchCore;
#[cfg(feature = "claims")]
pub use claim::{describe_failure, ClaimerCore};
#[cfg(feature = "holder")]
pub use holder::HolderCore;
#[cfg(feature = "lease")]
pub use lease::LeaseCore;
#[cfg(feature = "grantors")]
pub use observer::ObserverCore;
#[cfg(feature = "grantors")]
pub use replay::RecentCallsCore;
#[cfg(feature = "tabs")]
pub use tabs::{serve_tab_engine, FencedStoreCore, TabLeaseCore};
#[cfg(feature = "holder")]
pub use wake::{wake_hold_ended, wake_hold_started};

// The standard library's allocator is most of the module's size; this one fits what the binding
// does. Not with threads: it assumes one.
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator::new();
