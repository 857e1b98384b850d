//! The batching world: many real holders renewing through one real batcher, every seed with its
//! own holders, settings and hostile grantor; and proof that each broken batcher is caught.
//!
//! `TENURE_SIM_SEED` (first seed, default 0) and `TENURE_SIM_RUNS` (number of seeds, default
//! 400) choose the range.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use tenure::core::BatchMutation;
use tenure_sim::batch::{run_batch, BatchOutcome};
use tenure_sim::{for_each_seed, seeds_from_env, threads};

/// Every mutation must be caught by some seed below this.
const SEED_BUDGET: u64 = 400;

/// Runs `seeds` (hostile networks) on every thread; the failures, lowest seed first, and the
/// steps taken.
fn run_seeds(seeds: std::ops::Range<u64>) -> (Vec<BatchOutcome>, u64) {
    let steps = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    let runs = seeds.end.saturating_sub(seeds.start);
    for_each_seed(seeds.start, runs, threads(), |seed| {
        let outcome = run_batch(seed, None, false);
        steps.fetch_add(outcome.steps, Ordering::Relaxed);
        if outcome.violation.is_some() {
            failures.lock().unwrap().push(outcome);
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by_key(|o| o.seed);
    (failures, steps.into_inner())
}

#[test]
fn swarm_of_seeds_keeps_every_batching_invariant() {
    let (first, runs) = seeds_from_env(0, 400);
    let started = Instant::now();
    let (failures, steps) = run_seeds(first..first + runs);
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "ran {runs} batching schedules (seeds {first}..{}), {steps} steps, {:.0} seeds per minute",
        first + runs,
        runs as f64 * 60.0 / seconds.max(1e-9)
    );
    if let Some(first_failure) = failures.first() {
        let seeds: Vec<u64> = failures.iter().map(|o| o.seed).collect();
        panic!(
            "{} of {runs} seeds broke an invariant: {seeds:?}\n{}",
            seeds.len(),
            first_failure.report()
        );
    }
}

#[test]
fn a_calm_network_keeps_every_lease_renewed_in_batches() {
    let (first, _) = seeds_from_env(0, 400);
    for seed in first..first + 40 {
        let outcome = run_batch(seed, None, true);
        assert!(outcome.violation.is_none(), "{}", outcome.report());
        assert!(
            outcome.renewals > 20,
            "seed {seed}: {} renewals",
            outcome.renewals
        );
        // A holder whose settings the batcher knows never loses a renewal to batching.
        assert_eq!(
            outcome.known_failures, 0,
            "seed {seed}: {} of {} renewals renewed\n  {}",
            outcome.renewed, outcome.renewals, outcome.params
        );
        assert!(outcome.batches > 0 && outcome.batches <= outcome.renewals);
    }
}

#[test]
fn same_seed_same_run() {
    for seed in 0..20 {
        let a = run_batch(seed, None, false);
        let b = run_batch(seed, None, false);
        assert!(a.renewals > 10, "seed {seed} did almost nothing");
        assert_eq!(
            (a.hash, a.steps),
            (b.hash, b.steps),
            "seed {seed} is not deterministic"
        );
    }
    assert_ne!(
        run_batch(0, None, false).hash,
        run_batch(1, None, false).hash
    );
}

#[test]
fn every_broken_batcher_is_caught() {
    let mut missed = Vec::new();
    for mutation in BatchMutation::ALL {
        let caught = (0..SEED_BUDGET).find_map(|seed| {
            let outcome = run_batch(seed, Some(mutation), false);
            outcome.violation.map(|v| (seed, v.invariant))
        });
        match caught {
            Some((seed, invariant)) => {
                println!("{mutation:?}: caught by seed {seed}, invariant {invariant}")
            }
            None => missed.push(mutation),
        }
    }
    assert!(
        missed.is_empty(),
        "mutations no seed below {SEED_BUDGET} caught: {missed:?}"
    );
}
