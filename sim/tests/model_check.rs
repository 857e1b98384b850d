//! The exhaustive model check of the real core: every interleaving within each scenario's
//! bounds keeps every safety invariant.

use tenure_sim::model::{Bounds, Model};

#[test]
fn real_core_keeps_every_invariant_in_every_interleaving() {
    let mut total = 0;
    for (name, bounds) in Bounds::scenarios() {
        let report = Model::new(bounds, None).explore();
        println!("{name}: {report}");
        assert!(report.violation.is_none(), "{name}: {report}");
        assert!(
            !report.truncated,
            "{name}: the state bound cut the exploration short"
        );
        total += report.states;
    }
    println!("{total} states in total");
    // A scenario that explores almost nothing would pass vacuously.
    assert!(total > 100_000, "only {total} states explored");
}

/// The exhaustive check of the tab election: three real elections, the shared log, the Web Lock
/// and the broadcast, every interleaving within each scenario's bounds.
#[test]
fn tab_election_keeps_every_invariant_in_every_interleaving() {
    use tenure_sim::tab_model::{TabBounds, TabModel};
    use tenure_sim::tabs::TabMutants;
    let reports = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for (name, bounds) in TabBounds::scenarios() {
            let reports = &reports;
            scope.spawn(move || {
                let report = TabModel::new(bounds, TabMutants::NONE).explore();
                reports.lock().unwrap().push((name, report));
            });
        }
    });
    let mut total = 0;
    for (name, report) in reports.into_inner().unwrap() {
        println!("tabs {name}: {report}");
        assert!(report.violation.is_none(), "{name}: {report}");
        assert!(!report.truncated, "{name}: cut short");
        total += report.states;
    }
    println!("{total} tab election states in total");
    assert!(total > 100_000, "only {total} states explored");
}

/// A candidate granted the Web Lock just before a steal must not build on the thief's takeover
/// grant: the thief takes the lock next, and both would be active until one heard. The real
/// election backs off from a live takeover grant (`LogRecord::takeover`) and passes the
/// freeze-and-steal scenario with the others above; the variant that builds on it is caught
/// there, with the freeze in the path.
#[test]
fn a_lock_granted_just_before_a_steal_would_overlap_the_thief() {
    use tenure::core::TabMutation;
    use tenure_sim::tab_model::{TabBounds, TabModel};
    use tenure_sim::tabs::{TabInvariant, TabMutants};
    let broken = TabMutants {
        election: Some(TabMutation::LockedGrantOverTakeover),
        observed: None,
        watch: None,
        calls: None,
    };
    let report = TabModel::new(TabBounds::freeze_and_steal(), broken).explore();
    let (invariant, _, path) = report.violation.expect("the broken variant went uncaught");
    assert_eq!(invariant, TabInvariant::OneActive);
    assert!(path.iter().any(|step| step.contains("Freeze")), "{path:?}");
}

#[test]
fn tab_model_catches_mutants() {
    use tenure_sim::tab_model::{model_mutants, TabBounds, TabModel, MODEL_ONLY_MUTATIONS};
    let mutants = model_mutants();
    for mutation in MODEL_ONLY_MUTATIONS {
        assert!(
            mutants.iter().any(|m| m.election == Some(mutation)),
            "{mutation:?} is left to the model, which does not try it"
        );
    }
    for mutants in mutants {
        let caught = TabBounds::scenarios()
            .into_iter()
            .find_map(|(name, bounds)| {
                let report = TabModel::new(bounds, mutants).explore();
                report
                    .violation
                    .map(|(invariant, _, path)| (name, report.states, invariant, path.len()))
            });
        let (name, states, invariant, steps) =
            caught.unwrap_or_else(|| panic!("{mutants:?} went uncaught by the tab model"));
        println!(
            "{mutants:?}: caught in {name:?} after {states} states, {invariant:?}, {steps} steps"
        );
    }
}
