//! The randomized simulation: many seeds, each with its own fault mix, against the real core.
//!
//! `TENURE_SIM_SEED` (first seed, default 0) and `TENURE_SIM_RUNS` (number of seeds, default
//! 20,000) choose the range; a failure prints each failing seed's reproduce command and the
//! last events of its run.

use tenure_sim::{run, run_range, seeds_from_env, threads};

/// How many failing runs are reported in full; the rest are listed by seed.
const FULL_REPORTS: usize = 3;

#[test]
fn swarm_of_seeds_keeps_every_invariant() {
    let (first, runs) = seeds_from_env(0, 20_000);
    let report = run_range(first, runs, None, threads());
    println!(
        "ran {} schedules (seeds {first}..{}), {} steps",
        report.runs,
        first + runs,
        report.steps
    );
    if report.failures.is_empty() {
        return;
    }
    for failure in report.failures.iter().take(FULL_REPORTS) {
        eprintln!("{}", failure.report());
    }
    let seeds: Vec<u64> = report.failures.iter().map(|o| o.seed).collect();
    panic!(
        "{} of {runs} seeds broke an invariant: {seeds:?}\n\
         reproduce one: TENURE_SIM_SEED=<seed> TENURE_SIM_RUNS=1 cargo test -p tenure-sim",
        seeds.len()
    );
}

#[test]
fn same_seed_same_run() {
    let (first, _) = seeds_from_env(0, 20_000);
    for seed in first..first + 20 {
        let a = run(seed, None);
        let b = run(seed, None);
        assert!(a.events > 10, "seed {seed} did almost nothing");
        assert_eq!(
            (a.hash, a.steps, a.events),
            (b.hash, b.steps, b.events),
            "seed {seed} is not deterministic"
        );
    }
    assert_ne!(run(first, None).hash, run(first + 1, None).hash);
}

/// Seeds that exposed bugs in the core, each fixed since. They must keep passing.
#[test]
fn seeds_that_found_core_bugs_stay_fixed() {
    for (seed, bug) in [
        (
            80,
            "a wall-clock step back froze the core's wall reading, hiding a later sleep",
        ),
        (
            261,
            "a stale reply after the margin began left the holder Held past expiry",
        ),
        (
            67116,
            "a sleep followed later by a wall-clock step back hid the time awake in between",
        ),
    ] {
        let outcome = run(seed, None);
        assert!(
            outcome.violation.is_none(),
            "regression of: {bug}\n{}",
            outcome.report()
        );
    }
}
