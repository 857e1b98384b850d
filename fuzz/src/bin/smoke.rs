//! Runs the fuzz targets on stable Rust, without libFuzzer: each target gets the checked-in corpus
//! (`fuzz/corpus/<target>/`) and then seeded mutations of it for a time budget. An input whose
//! outcome label was not seen before joins the inputs mutated further (cheap feedback in place
//! of coverage). A panic is a failure: the input is saved under `fuzz/artifacts/<target>/` and
//! the run exits non-zero.
//!
//! ```sh
//! cargo run --release --no-default-features --bin smoke -- [--seconds N] [--seed N] [TARGET...]
//! cargo run --release --no-default-features --bin smoke -- --reproduce FILE TARGET
//! ```

use std::collections::BTreeSet;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tenure_fuzz::mutate::{mutate, Rng};
use tenure_fuzz::{Target, TARGETS};

/// The longest input tried: past the grantor's 64 KiB body limit, so the limit is exercised.
const MAX_LEN: usize = 70 * 1024;

/// The message of the latest panic, taken by the hook instead of printed.
static PANIC: Mutex<Option<String>> = Mutex::new(None);

struct Options {
    seconds: f64,
    seed: u64,
    targets: Vec<String>,
    reproduce: Option<PathBuf>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        seconds: 10.0,
        seed: 1,
        targets: Vec::new(),
        reproduce: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--seconds" => {
                options.seconds = value("--seconds")?
                    .parse()
                    .map_err(|e| format!("--seconds: {e}"))?
            }
            "--seed" => {
                options.seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--reproduce" => options.reproduce = Some(PathBuf::from(value("--reproduce")?)),
            name if !name.starts_with('-') => options.targets.push(name.to_owned()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    for name in &options.targets {
        if !TARGETS.iter().any(|(n, _)| n == name) {
            let known: Vec<_> = TARGETS.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "unknown target {name}; the targets are {}",
                known.join(", ")
            ));
        }
    }
    if options.targets.is_empty() {
        options.targets = TARGETS.iter().map(|(n, _)| (*n).to_owned()).collect();
    }
    Ok(options)
}

fn corpus(dir: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|f| std::fs::read(f).ok()).collect()
}

/// FNV-1a, to name a saved input after its contents.
fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Runs `target` on `input`; the panic message if it panicked.
fn run(target: Target, input: &[u8]) -> Result<String, String> {
    panic::catch_unwind(AssertUnwindSafe(|| target(input))).map_err(|_| {
        PANIC
            .lock()
            .unwrap()
            .take()
            .unwrap_or_else(|| "panic".to_owned())
    })
}

struct Report {
    execs: u64,
    kept: usize,
    labels: usize,
    crash: Option<(PathBuf, String)>,
}

fn fuzz(name: &str, target: Target, seconds: f64, seed: u64, root: &Path) -> Report {
    let seeds = corpus(&root.join("corpus").join(name));
    let mut inputs = if seeds.is_empty() {
        vec![Vec::new()]
    } else {
        seeds
    };
    let mut labels = BTreeSet::new();
    let mut rng = Rng::new(seed ^ fnv(name.as_bytes()));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut execs = 0u64;
    let mut queue: Vec<Vec<u8>> = inputs.clone();
    loop {
        let input = match queue.pop() {
            Some(seed_input) => seed_input,
            None => {
                if Instant::now() >= deadline {
                    break;
                }
                let base = &inputs[rng.below(inputs.len())];
                mutate(&mut rng, base, &inputs, MAX_LEN)
            }
        };
        execs += 1;
        match run(target, &input) {
            Ok(label) => {
                if labels.insert(label) {
                    inputs.push(input);
                }
            }
            Err(message) => {
                let dir = root.join("artifacts").join(name);
                let _ = std::fs::create_dir_all(&dir);
                let file = dir.join(format!("crash-{:016x}", fnv(&input)));
                let _ = std::fs::write(&file, &input);
                return Report {
                    execs,
                    kept: inputs.len(),
                    labels: labels.len(),
                    crash: Some((file, message)),
                };
            }
        }
    }
    Report {
        execs,
        kept: inputs.len(),
        labels: labels.len(),
        crash: None,
    }
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("smoke: {message}");
            return ExitCode::from(2);
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Some(file) = &options.reproduce {
        let input = std::fs::read(file).expect("the input file");
        let (_, target) = TARGETS
            .iter()
            .find(|(n, _)| *n == options.targets[0])
            .unwrap();
        println!("{}", target(&input)); // panics, with its message, if the bug is still there
        tenure_fuzz::remove_scratch();
        return ExitCode::SUCCESS;
    }
    panic::set_hook(Box::new(|info| {
        *PANIC.lock().unwrap() = Some(info.to_string());
    }));
    println!(
        "fuzz smoke: {} s per target, seed {}; labels = distinct outcomes seen (no coverage on stable)",
        options.seconds, options.seed
    );
    println!(
        "{:<16} {:>9} {:>9} {:>6} {:>7}  crashes",
        "target", "execs", "execs/s", "kept", "labels"
    );
    let mut failed = false;
    for name in &options.targets {
        let (_, target) = TARGETS.iter().find(|(n, _)| n == name).unwrap();
        let started = Instant::now();
        let report = fuzz(name, *target, options.seconds, options.seed, root);
        let rate = report.execs as f64 / started.elapsed().as_secs_f64();
        let crashes = if report.crash.is_some() { 1 } else { 0 };
        println!(
            "{name:<16} {:>9} {:>9.0} {:>6} {:>7}  {crashes}",
            report.execs, rate, report.kept, report.labels
        );
        if let Some((file, message)) = report.crash {
            failed = true;
            println!("  {message}\n  input saved to {}", file.display());
            println!("  reproduce: cargo run --release --no-default-features --bin smoke -- --reproduce {} {name}", file.display());
        }
    }
    tenure_fuzz::remove_scratch();
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
