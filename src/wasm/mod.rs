//! The WebAssembly binding: translates between JavaScript and the core, nothing more.
//!
//! Time, timers and the network come from JavaScript globals; the core decides. The package's
//! JavaScript layer (`pkg/api.js`) wraps these exports into the design's `Lease` and
//! `LeaseHolder` classes and its `LeaseError` types.

#[cfg(feature = "grantors")]
mod adapters;
#[cfg(feature = "holder")]
mod advise;
mod alloc;
#[cfg(feature = "grantors")]
mod bounded;
#[cfg(feature = "claims")]
mod claim;
mod error;
#[cfg(feature = "grantors")]
mod fetch;
#[cfg(feature = "holder")]
mod holder;
#[cfg(feature = "grantors")]
mod http_grantor;
mod js;
#[cfg(feature = "kv-grantor")]
mod kv_grantor;
#[cfg(feature = "lease")]
mod lease;
#[cfg(feature = "grantors")]
mod observer;
#[cfg(any(feature = "holder", feature = "tabs"))]
mod options;
#[cfg(feature = "holder")]
mod reply;
#[cfg(feature = "tabs")]
mod tabs;
#[cfg(feature = "grantors")]
mod value;
#[cfg(feature = "holder")]
mod wake;
#[cfg(feature = "grantors")]
mod watch;
#[cfg(feature = "lease")]
mod window;

#[cfg(feature = "grantors")]
pub use adapters::consul::ConsulGrantorCore;
#[cfg(feature = "grantors")]
pub use adapters::etcd::EtcdGrantorCore;
#[cfg(feature = "grantors")]
pub use adapters::kubernetes::KubernetesLeaseGrantorCore;
#[cfg(feature = "grantors")]
pub use adapters::redis::RedisHttpGrantorCore;
#[cfg(feature = "holder")]
pub use advise::advise_duration_core;
#[cfg(feature = "claims")]
pub use claim::{describe_failure, ClaimerCore};
#[cfg(feature = "holder")]
pub use holder::HolderCore;
#[cfg(feature = "grantors")]
pub use http_grantor::HttpGrantorCore;
#[cfg(feature = "kv-grantor")]
pub use kv_grantor::{check_kv_grantor_options, KvGrantorCore};
#[cfg(feature = "lease")]
pub use lease::LeaseCore;
#[cfg(feature = "tabs")]
pub use tabs::{serve_tab_engine, FencedStoreCore, TabLeaseCore};
#[cfg(feature = "holder")]
pub use wake::{wake_hold_ended, wake_hold_started};
#[cfg(feature = "grantors")]
pub use watch::{observe_by_status, ObservationCore};

// The standard library's allocator is most of the module's size; this one fits what the binding
// does. Not with threads: it assumes one.
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator::new();
