//! The observed-expiry world: parties on different machines judge each other's expiry by
//! observing a versioned record, with drift, sleep, pauses, wall steps back and lost replies.
//!
//! `TENURE_SIM_SEED` (first seed, default 0) and `TENURE_SIM_RUNS` (number of seeds, default
//! 2,000) choose the range.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tenure::core::ObservedMutation;
use tenure_sim::observed::{run_observed, ObservedFaults, ObservedOutcome};
use tenure_sim::{for_each_seed, seeds_from_env, threads};

fn sweep(
    first: u64,
    runs: u64,
    mutation: Option<ObservedMutation>,
    faults: ObservedFaults,
) -> (Vec<ObservedOutcome>, u64) {
    let takeovers = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    for_each_seed(first, runs, threads(), |seed| {
        let outcome = run_observed(seed, mutation, faults);
        takeovers.fetch_add(outcome.takeovers, Ordering::Relaxed);
        if outcome.violation.is_some() {
            failures.lock().unwrap().push(outcome);
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by_key(|o| o.seed);
    (failures, takeovers.into_inner())
}

#[test]
fn observers_never_take_over_early() {
    let (first, runs) = seeds_from_env(0, 2_000);
    let (failures, takeovers) = sweep(first, runs, None, ObservedFaults::default());
    println!(
        "ran {runs} observed schedules (seeds {first}..{}), {takeovers} takeovers",
        first + runs
    );
    if failures.is_empty() {
        // Takeovers must happen, or "never early" would hold vacuously.
        assert!(runs < 10 || takeovers > runs, "only {takeovers} takeovers");
        return;
    }
    for failure in failures.iter().take(3) {
        eprintln!("{}", failure.report());
    }
    let seeds: Vec<u64> = failures.iter().map(|o| o.seed).collect();
    panic!(
        "{} of {runs} observed seeds broke an invariant: {seeds:?}\n\
         reproduce one: TENURE_SIM_SEED=<seed> TENURE_SIM_RUNS=1 cargo test -p tenure-sim --test observed",
        seeds.len()
    );
}

#[test]
fn same_observed_seed_same_run() {
    for seed in 0..10 {
        let a = run_observed(seed, None, ObservedFaults::default());
        let b = run_observed(seed, None, ObservedFaults::default());
        assert!(a.steps > 100, "seed {seed} did almost nothing");
        assert_eq!(
            (a.hash, a.steps),
            (b.hash, b.steps),
            "seed {seed} is not deterministic"
        );
    }
}

#[test]
fn observed_world_catches_every_observed_mutation() {
    for mutation in ObservedMutation::ALL {
        let caught = (0..2_000).find_map(|seed| {
            run_observed(seed, Some(mutation), ObservedFaults::default())
                .violation
                .map(|(invariant, _)| (seed, invariant))
        });
        let (seed, invariant) = caught.unwrap_or_else(|| panic!("{mutation:?} went uncaught"));
        println!("{mutation:?}: caught by observed seed {seed}, {invariant:?}");
    }
}

/// Forward steps of an observer's wall clock are not time passed for its wait: an observer counts
/// the monotonic clock alone (a sleep of its own then only lengthens the wait), so no step makes
/// it judge a live holder expired. A lease of the holder's own is the opposite case, where
/// over-counting is the safe side.
#[test]
fn a_forward_wall_step_on_an_observer_never_takes_over_early() {
    let faults = ObservedFaults {
        forward_steps: true,
    };
    let (failures, _) = sweep(0, 500, None, faults);
    if let Some(failure) = failures.first() {
        panic!(
            "{} of 500 seeds with forward steps broke an invariant, first:\n{}",
            failures.len(),
            failure.report()
        );
    }
}

/// Seeds that exposed bugs, each fixed since. They must keep passing.
#[test]
fn observed_seeds_that_found_bugs_stay_fixed() {
    for (seed, bug) in [
        (
            5082,
            "a lease granted from a send stamp moved that stamp into the clock's frame by the \
             frame's offset at the reply, so a wall step back while the write was out hid the \
             sleep that followed it: the writer believed 20 s after it wrote a 1 s lease",
        ),
        (15784, "the same, with a shorter sleep after the step back"),
    ] {
        let outcome = run_observed(seed, None, ObservedFaults::default());
        assert!(
            outcome.violation.is_none(),
            "seed {seed} ({bug}) broke again:\n{}",
            outcome.report()
        );
    }
}
