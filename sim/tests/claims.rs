//! The claims world: many seeds against the real claim machine, determinism, and proof that
//! every deliberately broken claim variant is caught.
//!
//! `TENURE_SIM_SEED` (first seed, default 0) and `TENURE_SIM_RUNS` (number of seeds, default
//! 10,000) choose the range of the sweep.

use std::time::Instant;

use tenure::core::ClaimMutation;
use tenure_sim::claims::{run_claims, run_claims_range};
use tenure_sim::{seeds_from_env, threads};

/// Every claim mutation must be caught by some seed below this; all of them pass unmutated.
const SEED_BUDGET: u64 = 3_000;

#[test]
fn claims_world_keeps_every_invariant() {
    let (first, runs) = seeds_from_env(0, 10_000);
    let started = Instant::now();
    let report = run_claims_range(first, runs, None, threads());
    let elapsed = started.elapsed().as_secs_f64().max(1e-9);
    println!(
        "ran {} claim schedules (seeds {first}..{}), {} steps, {} items done, {:.0} seeds/min, {:?}",
        report.runs,
        first + runs,
        report.steps,
        report.done,
        report.runs as f64 * 60.0 / elapsed,
        report.coverage
    );
    if report.failures.is_empty() {
        return;
    }
    for failure in report.failures.iter().take(3) {
        eprintln!("{}", failure.report());
    }
    let seeds: Vec<u64> = report.failures.iter().map(|o| o.seed).collect();
    let shown = &seeds[..seeds.len().min(20)];
    panic!(
        "{} of {runs} seeds broke an invariant, first: {shown:?}",
        seeds.len()
    );
}

/// The world reaches what the invariants are about: redelivery after a lapsed claim, claims
/// lost by their workers, completions refused at the gate, settle retries, next claims made by a
/// settlement's `claimNext`, and ones a retried settlement got again.
#[test]
fn claims_world_reaches_the_cases_that_matter() {
    let report = run_claims_range(0, 500, None, threads());
    let c = report.coverage;
    assert!(
        report.failures.is_empty(),
        "{}",
        report.failures[0].report()
    );
    assert!(c.redelivered > 0 && c.lost > 0, "{c:?}");
    assert!(c.refused_at_gate > 0 && c.settle_retries > 0, "{c:?}");
    assert!(
        c.claimed_next > 0 && c.replayed_next > 0 && c.stops > 0,
        "{c:?}"
    );
}

#[test]
fn same_seed_same_claims_run() {
    let (first, _) = seeds_from_env(0, 10_000);
    for seed in first..first + 20 {
        let a = run_claims(seed, None);
        let b = run_claims(seed, None);
        assert!(a.steps > 20, "seed {seed} did almost nothing");
        assert!(a.done > 0, "seed {seed} completed nothing");
        assert_eq!(
            (a.hash, a.steps),
            (b.hash, b.steps),
            "seed {seed} is not deterministic"
        );
    }
    assert_ne!(
        run_claims(first, None).hash,
        run_claims(first + 1, None).hash
    );
}

#[test]
fn claims_world_catches_every_claim_mutation() {
    let mut missed = Vec::new();
    for mutation in ClaimMutation::ALL {
        let caught = (0..SEED_BUDGET).find_map(|seed| {
            let outcome = run_claims(seed, Some(mutation));
            outcome.violation.map(|v| (seed, v.invariant))
        });
        match caught {
            Some((seed, invariant)) => {
                println!("{mutation:?}: caught by seed {seed}, invariant {invariant}");
                // The same seed passes with the real machine: the mutation is what broke it.
                let real = run_claims(seed, None);
                assert!(real.violation.is_none(), "{}", real.report());
            }
            None => missed.push(mutation),
        }
    }
    assert!(
        missed.is_empty(),
        "claim mutations no seed below {SEED_BUDGET} caught: {missed:?}"
    );
}

/// Seeds that exposed bugs, each fixed since. They must keep passing.
#[test]
fn claim_seeds_that_found_bugs_stay_fixed() {
    for (seed, bug) in [
        (
            15379,
            "the world read a claiming worker's clocks only once its claim arrived, so a wall \
             step back and a sleep in between hid the time that passed",
        ),
        (
            92714,
            "the same, found through a completion sent after the claim lapsed",
        ),
    ] {
        let outcome = run_claims(seed, None);
        assert!(
            outcome.violation.is_none(),
            "regression of: {bug}\n{}",
            outcome.report()
        );
    }
}
