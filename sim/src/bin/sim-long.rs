//! Long simulation sweeps: `cargo run -p tenure-sim --release --bin sim-long -- --runs 1000000`.
//!
//! Options: `--runs N` (default 1,000,000), `--seed S` (first seed, default 0), `--threads T`
//! (default: all cores), `--mutation NAME` (run a deliberately broken core, e.g.
//! `OverlappingRenewals`). Prints every failure's report, then how many schedules ran and how
//! fast. Exits non-zero if any seed failed.

use std::process::ExitCode;
use std::time::Instant;

use tenure_sim::{run_range, threads, Mutation};

fn main() -> ExitCode {
    let mut runs: u64 = 1_000_000;
    let mut first: u64 = 0;
    let mut workers = threads();
    let mut mutation = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
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
    // Report progress in chunks so a long sweep shows it is alive.
    let chunk = (runs / 20).clamp(1, 100_000);
    let started = Instant::now();
    let (mut done, mut steps, mut failed) = (0u64, 0u64, 0u64);
    while done < runs {
        let n = chunk.min(runs - done);
        let report = run_range(first + done, n, mutation, workers);
        for failure in &report.failures {
            println!("{}", failure.report());
        }
        failed += report.failures.len() as u64;
        steps += report.steps;
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
    eprintln!("{problem}\nusage: sim-long [--runs N] [--seed S] [--threads T] [--mutation NAME]");
    std::process::exit(2)
}
