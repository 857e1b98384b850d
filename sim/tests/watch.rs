//! The watch world: a watcher follows a resource through a lossy, late, reordering change feed
//! that compacts its history.
//!
//! `TENURE_SIM_SEED` (first seed, default 0) and `TENURE_SIM_RUNS` (number of seeds, default
//! 2,000) choose the range.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tenure::core::WatchMutation;
use tenure_sim::watch::{run_watch, WatchOutcome};
use tenure_sim::{for_each_seed, seeds_from_env, threads};

#[test]
fn watchers_report_in_order_and_catch_up() {
    let (first, runs) = seeds_from_env(0, 2_000);
    let (reports, breaks) = (AtomicU64::new(0), AtomicU64::new(0));
    let failures: Mutex<Vec<WatchOutcome>> = Mutex::new(Vec::new());
    for_each_seed(first, runs, threads(), |seed| {
        let outcome = run_watch(seed, None);
        reports.fetch_add(outcome.reports, Ordering::Relaxed);
        breaks.fetch_add(outcome.breaks, Ordering::Relaxed);
        if outcome.violation.is_some() {
            failures.lock().unwrap().push(outcome);
        }
    });
    let (reports, breaks) = (reports.into_inner(), breaks.into_inner());
    println!("ran {runs} watch schedules: {reports} reports, {breaks} broken streams");
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by_key(|o| o.seed);
    if let Some(failure) = failures.first() {
        let seeds: Vec<u64> = failures.iter().map(|o| o.seed).collect();
        panic!(
            "{} of {runs} watch seeds broke an invariant: {seeds:?}; seed {}: {:?}\n\
             reproduce one: TENURE_SIM_SEED=<seed> TENURE_SIM_RUNS=1 cargo test -p tenure-sim --test watch",
            seeds.len(),
            failure.seed,
            failure.violation
        );
    }
    // The faults must happen, or "in order, caught up" would hold vacuously.
    assert!(runs < 10 || breaks > runs, "only {breaks} broken streams");
}

#[test]
fn same_watch_seed_same_run() {
    for seed in 0..10 {
        let a = run_watch(seed, None);
        let b = run_watch(seed, None);
        assert!(
            a.changes > 20 && a.reports > 10,
            "seed {seed} did almost nothing"
        );
        assert_eq!(
            (a.reports, a.fetches, a.breaks),
            (b.reports, b.fetches, b.breaks),
            "seed {seed} is not deterministic"
        );
    }
}

#[test]
fn watch_world_catches_every_watch_mutation() {
    for mutation in WatchMutation::ALL {
        let caught = (0..2_000).find_map(|seed| {
            run_watch(seed, Some(mutation))
                .violation
                .map(|(invariant, _)| (seed, invariant))
        });
        let (seed, invariant) = caught.unwrap_or_else(|| panic!("{mutation:?} went uncaught"));
        println!("{mutation:?}: caught at seed {seed} ({invariant:?})");
    }
}
