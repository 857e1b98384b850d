//! Proof that the harness can fail: every deliberately broken core variant must be caught, by
//! the simulation within a bounded range of seeds and by the model checker within its bounds.

use std::sync::Mutex;

use tenure_sim::model::{Bounds, Model};
use tenure_sim::{
    run, run_with_restart_rule, run_with_rules_mutation, Mutation, RestartRule, RulesMutation,
};

/// Every mutation must be caught by some seed below this (all of these seeds pass with the real
/// core, in the default swarm range).
const SEED_BUDGET: u64 = 3_000;

#[test]
fn simulation_catches_every_mutation() {
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for mutation in Mutation::ALL {
            let results = &results;
            scope.spawn(move || {
                let caught = (0..SEED_BUDGET).find_map(|seed| {
                    let outcome = run(seed, Some(mutation));
                    outcome.violation.map(|v| (seed, v.invariant))
                });
                results.lock().unwrap().push((mutation, caught));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(m, _)| format!("{m:?}"));
    let mut missed = Vec::new();
    for (mutation, caught) in &results {
        match caught {
            Some((seed, invariant)) => {
                println!("{mutation:?}: caught by seed {seed}, invariant {invariant}")
            }
            None => missed.push(*mutation),
        }
    }
    assert!(
        missed.is_empty(),
        "mutations no seed below {SEED_BUDGET} caught: {missed:?}"
    );
}

#[test]
fn model_checker_catches_every_mutation() {
    let mut missed = Vec::new();
    for mutation in Mutation::ALL {
        let caught = Bounds::scenarios().into_iter().find_map(|(name, bounds)| {
            let report = Model::new(bounds, Some(mutation)).explore();
            report
                .violation
                .map(|(invariant, _, path)| (name, report.states, invariant, path))
        });
        match caught {
            Some((name, states, invariant, path)) => println!(
                "{mutation:?}: caught in scenario {name:?} after {states} states, invariant \
                 {invariant}, {} steps:\n  {}",
                path.len(),
                path.join("\n  ")
            ),
            None => missed.push(mutation),
        }
    }
    assert!(
        missed.is_empty(),
        "mutations the model checker missed: {missed:?}"
    );
}

/// The grantor's broken restart rule (resuming the recorded expiry, which forgets renewals that
/// wrote nothing) is caught by the simulation, and the real rule passes the same seeds: the
/// restart rule is what makes renewals safe without a durable write.
#[test]
fn simulation_catches_a_restart_that_forgets_renewals() {
    let caught = (0..SEED_BUDGET).find_map(|seed| {
        let outcome = run_with_restart_rule(seed, None, RestartRule::ResumeRecordedExpiry);
        outcome.violation.map(|v| (seed, v.invariant))
    });
    let (seed, invariant) = caught.expect("no seed caught ResumeRecordedExpiry");
    println!("ResumeRecordedExpiry: caught by seed {seed}, invariant {invariant}");
    let real = run_with_restart_rule(seed, None, RestartRule::FullDurationFromRestart);
    assert!(real.violation.is_none(), "{}", real.report());
}

/// Every broken way of applying the grantor's rules is caught by some seed, and the real rules
/// pass that seed.
#[test]
fn simulation_catches_every_broken_grantor_rule() {
    for mutation in RulesMutation::ALL {
        let caught = (0..SEED_BUDGET).find_map(|seed| {
            let outcome = run_with_rules_mutation(seed, mutation);
            outcome.violation.map(|v| (seed, v.invariant))
        });
        let (seed, invariant) = caught.unwrap_or_else(|| panic!("no seed caught {mutation:?}"));
        println!("{mutation:?}: caught by seed {seed}, invariant {invariant}");
        let real = run(seed, None);
        assert!(real.violation.is_none(), "{}", real.report());
    }
}
