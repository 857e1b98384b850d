//! Long simulation sweeps: `cargo run -p tenure-sim --release --bin sim-long -- --runs 1000000`.
//!
//! Options: `--world W` (`holder`, the default, or `tabs`, `observed`, `claims`, `batch`,
//! `watch`),
//! `--runs N` (default 1,000,000), `--seed S` (first seed, default 0), `--threads T` (default:
//! all cores), `--mutation NAME` (holder world only: run a deliberately broken core, e.g.
//! `OverlappingRenewals`). Prints every failure's report, then how many schedules ran and how
//! fast. Exits non-zero if any seed failed.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use tenure_sim::batch::run_batch;
use tenure_sim::claims::run_claims;
use tenure_sim::observed::{run_observed, ObservedFaults};
use tenure_sim::tabs::{run_tabs, TabMutants};
use tenure_sim::watch::run_watch;
use tenure_sim::{for_each_seed, run_range, threads, Mutation, RangeReport};

/// The worlds a sweep can run, each with its real (unmutated) machines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum World {
    Holder,
    Tabs,
    Observed,
    Claims,
    Batch,
    Watch,
}

impl World {
    fn named(name: &str) -> Option<World> {
        Some(match name {
            "holder" => World::Holder,
            "tabs" => World::Tabs,
            "observed" => World::Observed,
            "claims" => World::Claims,
            "batch" => World::Batch,
            "watch" => World::Watch,
            _ => return None,
        })
    }
}

/// Failure reports (lowest seed first) and steps taken, for one chunk of seeds.
struct Chunk {
    reports: Vec<String>,
    steps: u64,
}

fn run_chunk(
    world: World,
    first: u64,
    runs: u64,
    mutation: Option<Mutation>,
    workers: usize,
) -> Chunk {
    if world == World::Holder {
        let RangeReport {
            failures, steps, ..
        } = run_range(first, runs, mutation, workers);
        return Chunk {
            reports: failures.iter().map(|f| f.report()).collect(),
            steps,
        };
    }
    let steps = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    for_each_seed(first, runs, workers, |seed| {
        let (taken, report) = match world {
            World::Tabs => {
                let o = run_tabs(seed, TabMutants::NONE);
                (o.steps, o.violation.is_some().then(|| o.report()))
            }
            World::Observed => {
                let o = run_observed(seed, None, ObservedFaults::default());
                (o.steps, o.violation.is_some().then(|| o.report()))
            }
            World::Claims => {
                let o = run_claims(seed, None);
                (o.steps, o.violation.is_some().then(|| o.report()))
            }
            World::Batch => {
                let o = run_batch(seed, None, false);
                (o.steps, o.violation.is_some().then(|| o.report()))
            }
            World::Watch => {
                let o = run_watch(seed, None);
                (o.steps, o.violation.is_some().then(|| o.report()))
            }
            World::Holder => unreachable!("swept by run_range"),
        };
        steps.fetch_add(taken, Ordering::Relaxed);
        if let Some(report) = report {
            failures
                .lock()
                .expect("no panics while locked")
                .push((seed, report));
        }
    });
    let mut failures = failures.into_inner().expect("no panics while locked");
    failures.sort_by_key(|(seed, _)| *seed);
    Chunk {
        reports: failures.into_iter().map(|(_, report)| report).collect(),
        steps: steps.into_inner(),
    }
}

fn main() -> ExitCode {
    let mut runs: u64 = 1_000_000;
    let mut first: u64 = 0;
    let mut workers = threads();
    let mut mutation = None;
    let mut world = World::Holder;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--world" => {
                let name = value();
                world =
                    World::named(&name).unwrap_or_else(|| usage(&format!("unknown world {name}")));
            }
            "--runs" => runs = number(&value()),
            "--seed" => first = number(&value()),
            "--threads" => workers = number(&value()) as usize,
            "--mutation" => {
                let name = value();
                mutation = Some(
                    Mutation::ALL
                        .into_iter()
                        .find(|m| format!("{m:?}") == name)
                        .unwrap_or_else(|| usage(&format!("unknown mutation {name}"))),
                );
            }
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if mutation.is_some() && world != World::Holder {
        usage("--mutation applies to the holder world only (each world's tests run its own)");
    }
    // Report progress in chunks so a long sweep shows it is alive.
    let chunk = (runs / 20).clamp(1, 100_000);
    let started = Instant::now();
    let (mut done, mut steps, mut failed) = (0u64, 0u64, 0u64);
    while done < runs {
        let n = chunk.min(runs - done);
        let chunk = run_chunk(world, first + done, n, mutation, workers);
        for report in &chunk.reports {
            println!("{report}");
        }
        failed += chunk.reports.len() as u64;
        steps += chunk.steps;
        done += n;
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "{done}/{runs} schedules, {failed} failed, {:.0} schedules/min",
            done as f64 / secs * 60.0
        );
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "ran {done} schedules (seeds {first}..{}) on {workers} threads in {secs:.1} s: \
         {:.0} schedules/min, {steps} steps, {failed} failed",
        first + done,
        done as f64 / secs * 60.0
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn number(text: &str) -> u64 {
    text.parse()
        .unwrap_or_else(|_| usage(&format!("{text} is not a number")))
}

fn usage(problem: &str) -> ! {
    eprintln!("{problem}\nusage: sim-long [--world holder|tabs|observed|claims|batch|watch] [--runs N] [--seed S] [--threads T] [--mutation NAME]");
    std::process::exit(2)
}
