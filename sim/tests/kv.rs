//! The key-value grantor world: grantors sharing one store decide as one, and the world catches
//! each deliberately broken variant.
//!
//! `TENURE_SIM_SEED` (first seed, default 0) and `TENURE_SIM_RUNS` (number of seeds, default
//! 200; more in a release build) choose the range.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tenure_sim::kv::{run_kv, KvMutation, KvOutcome};
use tenure_sim::{for_each_seed, seeds_from_env, threads};

#[test]
fn grantors_sharing_a_store_never_let_two_holders_believe_at_once() {
    let (first, runs) = seeds_from_env(0, 200);
    let (grants, conflicts) = (AtomicU64::new(0), AtomicU64::new(0));
    let failures: Mutex<Vec<KvOutcome>> = Mutex::new(Vec::new());
    for_each_seed(first, runs, threads(), |seed| {
        let outcome = run_kv(seed, None);
        grants.fetch_add(outcome.grants, Ordering::Relaxed);
        conflicts.fetch_add(outcome.conflicts, Ordering::Relaxed);
        if outcome.violation.is_some() {
            failures.lock().unwrap().push(outcome);
        }
    });
    let (grants, conflicts) = (grants.into_inner(), conflicts.into_inner());
    println!("ran {runs} key-value grantor schedules: {grants} grants believed, {conflicts} commits refused");
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by_key(|o| o.seed);
    if let Some(failure) = failures.first() {
        panic!(
            "{} of {runs} seeds broke the invariant; seed {}: {:?}\n\
             reproduce one: TENURE_SIM_SEED=<seed> TENURE_SIM_RUNS=1 cargo test -p tenure-sim --test kv",
            failures.len(),
            failure.seed,
            failure.violation
        );
    }
    // Races must happen, or "decide as one" would hold vacuously.
    assert!(
        runs < 10 || (grants > runs * 5 && conflicts > runs),
        "{grants} grants, {conflicts} conflicts"
    );
}

#[test]
fn the_world_catches_each_broken_variant() {
    for mutation in [
        KvMutation::IgnoresCommitChecks,
        KvMutation::IgnoresClockSkew,
    ] {
        let caught =
            (0..1_000).find_map(|seed| run_kv(seed, Some(mutation)).violation.map(|v| (seed, v)));
        let (seed, violation) =
            caught.unwrap_or_else(|| panic!("{mutation:?} went uncaught in 1,000 seeds"));
        println!("{mutation:?} caught by seed {seed}: {violation}");
    }
}

#[test]
fn same_kv_seed_same_run() {
    for seed in 0..10 {
        let (a, b) = (run_kv(seed, None), run_kv(seed, None));
        assert_eq!(
            (a.grants, a.conflicts, a.lost_replies),
            (b.grants, b.conflicts, b.lost_replies),
            "seed {seed} is not deterministic"
        );
    }
}
