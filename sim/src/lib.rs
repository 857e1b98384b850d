//! Deterministic simulation and exhaustive model check of the tenure lease core.
//!
//! # What is simulated
//!
//! Two to five holder identities compete for one resource. Each runs the real
//! [`tenure::core::Holder`] state machine, driven the way a host drives it (command or input,
//! drain [`poll_output`](tenure::core::Holder::poll_output), arm one timer for
//! [`poll_timeout`](tenure::core::Holder::poll_timeout)). Around them:
//!
//! - a reference grantor ([`grantor::RefGrantor`]) with authoritative true time, and a fenced
//!   resource ([`grantor::FencedResource`]);
//! - a network ([`net`]) with latency, jitter, loss, duplication, reordering, long delays,
//!   one-way and two-way partitions, replies lost after the grantor applied the request, and a
//!   hostile grantor that corrupts replies or sends tokens that go backwards;
//! - a pair of clocks per holder machine ([`clock`]) that drift within ρ, step, and stop while
//!   the machine sleeps; timers that fire up to 60 s late while a tab is hidden;
//! - process pauses of up to ten leases, crashes and restarts, grantor restarts, revocations.
//!
//! Every seed draws its own mix of these ([`swarm`]). A run has a fault phase and then a healed
//! phase in which liveness is required. After every step the safety invariants
//! ([`invariants::Invariant`]) are checked.
//!
//! # Reproducing
//!
//! `TENURE_SIM_SEED` sets the first seed and `TENURE_SIM_RUNS` the number of seeds for the
//! swarm test; a failure prints the reproduce command and the last events of the run
//! (`TENURE_SIM_TRACE_TAIL` sets how many, 200 by default).
//!
//! # Model check
//!
//! [`model`] explores every interleaving of two real holders, a bounded network and discrete
//! time, rather than sampling them.
#![warn(missing_docs)]

pub mod batch;
pub mod claims;
pub mod clock;
pub mod grantor;
pub mod invariants;
pub mod kv;
pub mod model;
pub mod net;
pub mod observed;
pub mod rng;
pub mod swarm;
pub mod tab_model;
pub mod tabs;
pub mod trace;
pub mod watch;
pub mod world;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub use grantor::{RestartRule, RulesMutation};
pub use invariants::{Invariant, Violation};
pub use tenure::core::Mutation;
pub use world::{run, run_with_restart_rule, run_with_rules_mutation, Outcome};

/// What a range of seeds did.
#[derive(Debug, Default)]
pub struct RangeReport {
    /// Seeds run.
    pub runs: u64,
    /// Steps taken over all runs.
    pub steps: u64,
    /// The failed runs, lowest seed first.
    pub failures: Vec<Outcome>,
}

/// Runs seeds `first..first + runs` on `threads` threads and collects the failures.
///
/// Each seed is independent and deterministic, so splitting them over threads changes nothing
/// but the wall time.
pub fn run_range(first: u64, runs: u64, mutation: Option<Mutation>, threads: usize) -> RangeReport {
    let steps = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    for_each_seed(first, runs, threads, |seed| {
        let outcome = run(seed, mutation);
        steps.fetch_add(outcome.steps, Ordering::Relaxed);
        if outcome.violation.is_some() {
            failures
                .lock()
                .expect("no panics while locked")
                .push(outcome);
        }
    });
    let mut failures = failures.into_inner().expect("no panics while locked");
    failures.sort_by_key(|o| o.seed);
    RangeReport {
        runs,
        steps: steps.into_inner(),
        failures,
    }
}

/// Calls `visit` once for each seed of `first..first + runs`, spread over `threads` threads (at
/// least one), each taking the next seed as it finishes one. Every world's sweep runs on it; the
/// order of the calls is not the seed order, so `visit` gathers what it needs itself.
pub fn for_each_seed(first: u64, runs: u64, threads: usize, visit: impl Fn(u64) + Sync) {
    let next = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= runs {
                    break;
                }
                visit(first + k);
            });
        }
    });
}

/// The first seed and the number of runs: `TENURE_SIM_SEED` and `TENURE_SIM_RUNS` if set,
/// else the defaults.
pub fn seeds_from_env(default_first: u64, default_runs: u64) -> (u64, u64) {
    let read = |name: &str, default: u64| match std::env::var(name) {
        Ok(value) => value
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a non-negative integer, got {value:?}")),
        Err(_) => default,
    };
    (
        read("TENURE_SIM_SEED", default_first),
        read("TENURE_SIM_RUNS", default_runs),
    )
}

/// How many threads to use: the machine's parallelism.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
