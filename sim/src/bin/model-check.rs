//! Runs the exhaustive model check and prints how many states it explored:
//! `cargo run -p tenure-sim --release --bin model-check -- --longer 2`.
//!
//! Explores every scenario of [`Bounds::scenarios`] against the real core, then each
//! deliberately broken variant against every scenario until one catches it. `--longer N` adds
//! N quanta of true time to every scenario (the state space grows about threefold per quantum).
//! Exits non-zero if the real core breaks an invariant or a bound cuts an exploration short.

use std::process::ExitCode;
use std::time::Instant;

use tenure_sim::model::{Bounds, Model};
use tenure_sim::Mutation;

fn main() -> ExitCode {
    let mut extra = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--longer", Some(n)) => extra = n,
            _ => {
                eprintln!("usage: model-check [--longer QUANTA]");
                return ExitCode::from(2);
            }
        }
    }
    let scenarios: Vec<(&str, Bounds)> = Bounds::scenarios()
        .into_iter()
        .map(|(name, bounds)| (name, bounds.longer(extra)))
        .collect();
    let mut ok = true;
    let mut total = 0;
    let started = Instant::now();
    for (name, bounds) in &scenarios {
        let t = Instant::now();
        let report = Model::new(bounds.clone(), None).explore();
        println!(
            "real core, {name} (horizon {} s): {report} in {:.1} s",
            bounds.horizon,
            t.elapsed().as_secs_f64()
        );
        total += report.states;
        ok &= report.violation.is_none() && !report.truncated;
    }
    println!(
        "real core: {total} states in total, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    for mutation in Mutation::ALL {
        let caught = scenarios.iter().find_map(|(name, bounds)| {
            let report = Model::new(bounds.clone(), Some(mutation)).explore();
            report.violation.map(|(invariant, _, path)| {
                format!(
                    "caught in {name} after {} states: {invariant}, {} steps",
                    report.states,
                    path.len()
                )
            })
        });
        println!(
            "{mutation:?}: {}",
            caught.as_deref().unwrap_or("not caught within the bounds")
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
