//! The sans-IO core: leases and the holder state machine, with no JavaScript bindings.
//!
//! Nothing here reads a clock, a random source or the network. Every input carries the time
//! ([`Now`]: a monotonic and a wall reading), and the holder returns what to send and when it next
//! needs waking ([`Holder::poll_timeout`]). The same code runs natively under `cargo test`, inside
//! the deterministic simulation, and in WebAssembly behind the JavaScript binding.
//!
//! # Safety argument
//!
//! The grantor starts its clock when it *receives* a grant or renew request, which is after the
//! holder *sent* it; the holder stamps the send time, so its lease ends no later than the
//! grantor's as long as the holder's clock runs no slower than the grantor's by more than the
//! margin covers. Elapsed time counts each step between readings as the larger of the monotonic
//! and wall clocks' forward movements, so OS sleep (monotonic clock stalled) and wall-clock steps
//! cannot extend the holder's belief. An expiry
//! deadline runs independently of any request, so a renewal that never answers still ends in
//! surrender at the margin. None of this can stop a holder that is paused while it acts;
//! fencing tokens validated at the resource make such a holder harmless.

mod advise;
mod batch;
mod claim;
mod config;
mod holder;
mod lease;
mod observed;
pub mod replay;
mod rng;
mod tab;
mod tab_call;
mod tab_watch;
mod time;
mod wake;
mod watch;
#[cfg(test)]
mod window_tests;

pub use advise::{
    advise_duration, AdviceBasis, AdviceConfig, AdviceProblem, DurationAdvice, ObservedStats,
};
pub use batch::{
    assumed_delay, batch_delay, element_failure_kind, scheduled_budget, Batch, BatchConfig,
    BatchFailure, BatchId, BatchMutation, BatchOutput, Batcher, HolderTiming, ItemResult,
    RenewalId, RenewalSettlement, RenewalSpec, MAX_BATCH_BODY_CHARS, REMEMBERED_LEASES,
};
pub use claim::{claim_failure_kind, claim_gone, is_item_id};
pub use claim::{
    ClaimConfig, ClaimEvent, ClaimMachine, ClaimMutation, ClaimOutput, ClaimReply, ClaimRequest,
    ClaimRequestKind, ClaimUsageError, HeartbeatReply, IdleBackoff, NextClaim, SettleEnd,
    SettleOperation, SettleReply, SettleStep, Settlement, SETTLE_ATTEMPTS, SETTLE_RETRY_BASE,
    SETTLE_RETRY_MAX,
};
pub use config::{checked_ms, ConfigError, HolderConfig, HolderOptionsMs, MAX_DURATION_MS};
pub use holder::{
    AcquireFailure, Event, Failure, FailureKind, Holder, LossReason, Output, Phase, Reply, Request,
    RequestId, RequestKind, UsageError,
};
pub use lease::{Grant, Lease, SafeWindow};
pub use observed::{ObservedMutation, Observer};
pub use rng::Jitter;
pub use tab::{
    AppendOutcome, EntryKind, IoId, LockEvent, LogEntry, LogRecord, Notice, PageHold, PageStanding,
    Stamp, TabConfig, TabElection, TabEndReason, TabEvent, TabMirror, TabMutation, TabOutput,
    TabPhase, KEPT_ENTRIES, LEAVING_GRACE, LOCKED_GRANT_ATTEMPTS, MIRROR_CLOCK_SLACK,
    RELEASE_ATTEMPTS,
};
pub use tab_call::{
    CallFailure, CallMutation, CallOutput, TabCalls, DEFAULT_CALL_TIMEOUT, HANDOFF_PROBE_TIMEOUT,
};
pub use tab_watch::{tab_id_of, HolderChange, TabWatch, TabWatchMutation, TabWatchOutput};
pub use time::{Clock, Micros, MonoTime, Now, TimeError, WallTime, WALL_JITTER_TOLERANCE};
pub use wake::{WakeDetector, WakeMutation, WAKE_CHECK_INTERVAL};
pub use watch::{
    ends_watch, status_version, FetchId, HolderView, WatchConfig, WatchFeed, WatchMutation,
    WatchOutput, Watcher,
};

/// Deliberately broken behaviours of the core. They take effect only in builds with the
/// `mutations` feature, where the simulation uses them to prove that it catches each bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// The lease clock starts when the reply arrives instead of when the request was sent.
    ClockStartsAtReply,
    /// Elapsed time uses the monotonic clock only, so OS sleep goes unnoticed.
    NoWallCrossCheck,
    /// The lease counts as safely held until it has fully expired.
    IgnoreMargin,
    /// A renewal goes out on schedule even while one is in flight, and whichever reply arrives
    /// is stamped with the latest send time.
    OverlappingRenewals,
    /// A renewal reply with a lower token than the one held is accepted.
    AcceptTokenRegression,
    /// Expiry is only checked when a renewal fails, as in the design's sample code; a renewal
    /// that never answers never surrenders.
    NoIndependentExpiry,
}

impl Mutation {
    /// Every mutation, for tests that must catch them all.
    pub const ALL: [Mutation; 6] = [
        Mutation::ClockStartsAtReply,
        Mutation::NoWallCrossCheck,
        Mutation::IgnoreMargin,
        Mutation::OverlappingRenewals,
        Mutation::AcceptTokenRegression,
        Mutation::NoIndependentExpiry,
    ];
}
