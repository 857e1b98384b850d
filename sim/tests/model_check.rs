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
