//! The binary's command line as a person meets it: every refusal is printed once, as one
//! readable sentence naming the fix, with a failing exit status; good settings still start; and
//! `--help` shows the common set-ups.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Longer than any refusal or start takes: a binary that neither refuses nor says it listens is
/// killed then, so a wrong first line fails the test instead of hanging it.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// The child, killed when dropped (a failed assertion must not leave a grantor running), and at
/// [`RUN_LIMIT`] by a watchdog.
struct Running {
    child: Child,
    done: Option<mpsc::Sender<()>>,
}

impl Running {
    fn new(child: Child) -> Running {
        let (done, finished) = mpsc::channel::<()>();
        let pid = child.id().to_string();
        thread::spawn(move || {
            if finished.recv_timeout(RUN_LIMIT) == Err(mpsc::RecvTimeoutError::Timeout) {
                let _ = Command::new("kill").args(["-9", &pid]).status();
            }
        });
        Running {
            child,
            done: Some(done),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        drop(self.done.take());
    }
}

/// How a run of the binary ended: refused (with everything it printed on stdout and stderr) or
/// started (with its `listening on` line, after which it was stopped).
enum Outcome {
    Refused { status: i32, output: String },
    Started(String),
}

fn run(args: &[&str]) -> Outcome {
    let child = Command::new(env!("CARGO_BIN_EXE_tenure-grantor"))
        .args(args)
        // The default log level, as a person would run it: a refusal must not also be logged.
        .env_remove("RUST_LOG")
        .env_remove("TENURE_ADMIN_KEY")
        .env_remove("TENURE_GRANTOR_ADMIN_KEY")
        .env_remove("TENURE_GRANTOR_KEYS")
        .env_remove("TENURE_POSTGRES_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut running = Running::new(child);
    let mut stdout = BufReader::new(running.child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    if first.starts_with("listening on ") {
        return Outcome::Started(first);
    }
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let mut stderr = String::new();
    running
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = running.child.wait().unwrap().code().unwrap_or(-1);
    Outcome::Refused {
        status,
        output: format!("{first}{rest}{stderr}"),
    }
}

/// Runs `serve` on a fresh database with `extra` arguments and asserts it refuses, printing one
/// sentence once that contains each of `fix`; returns that sentence.
fn assert_refused(extra: &[&str], fix: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let mut args = vec!["serve", "--db", db.to_str().unwrap()];
    args.extend_from_slice(extra);
    let output = match run(&args) {
        Outcome::Started(line) => panic!("{extra:?} started: {line}"),
        Outcome::Refused { status, output } => {
            assert_ne!(status, 0, "{extra:?} exits non-zero");
            output
        }
    };
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "{extra:?}: one line, printed once: {output:?}"
    );
    let sentence = lines[0];
    assert!(
        sentence.starts_with("tenure-grantor: "),
        "{extra:?}: {sentence}"
    );
    assert!(
        !sentence.contains("  "),
        "{extra:?}: no runs of spaces: {sentence:?}"
    );
    for part in fix {
        assert!(
            sentence.contains(part),
            "{extra:?} names {part:?}: {sentence}"
        );
    }
    sentence.to_owned()
}

#[test]
fn an_exposed_address_without_keys_is_refused_once_naming_the_ways_out() {
    for listen in ["0.0.0.0:0", "[::]:0"] {
        let sentence = assert_refused(
            &["--listen", listen],
            &[
                "refusing to serve on",
                "without API keys",
                "--keys-file",
                "127.0.0.1",
                "--insecure-no-auth",
            ],
        );
        assert!(
            sentence.contains("renew or release"),
            "one sentence: {sentence}"
        );
    }
}

#[test]
fn origins_that_can_never_match_are_refused_with_the_origin_to_give() {
    let cases: &[(&str, &[&str])] = &[
        (
            "http://evil.com*",
            &[
                "wildcards",
                "list each origin",
                "--cors-origin http://evil.com)",
            ],
        ),
        ("https://*.example.com", &["wildcards", "list each origin"]),
        ("http://localhost:*", &["wildcards", "list each origin"]),
        (
            "https://app.example.com/",
            &["slash", "use https://app.example.com"],
        ),
        (
            "https://app.example.com/login",
            &["path", "use https://app.example.com"],
        ),
        (
            "https://app.example.com?x=1",
            &["query", "use https://app.example.com"],
        ),
        (
            "https://me@app.example.com",
            &["user name", "use https://app.example.com"],
        ),
        (
            "app.example.com",
            &[
                "no scheme",
                "use https://app.example.com (or http://app.example.com)",
            ],
        ),
        (
            "https://APP.Example.com",
            &["lowercase", "use https://app.example.com"],
        ),
        (
            "https://app.example.com:443",
            &["default port", "use https://app.example.com"],
        ),
        ("", &["scheme://host[:port]", "https://app.example.com"]),
        ("null", &["sandboxed", "list that one"]),
    ];
    for (origin, fix) in cases {
        let sentence = assert_refused(&["--listen", "127.0.0.1:0", "--cors-origin", origin], fix);
        assert!(
            sentence.contains(&format!("CORS origin {origin:?}")),
            "names the entry: {sentence}"
        );
    }
    // One bad entry among good ones is still refused, and named.
    let sentence = assert_refused(
        &[
            "--listen",
            "127.0.0.1:0",
            "--cors-origin",
            "https://good.example",
            "--cors-origin",
            "https://bad.example/",
        ],
        &["\"https://bad.example/\"", "use https://bad.example"],
    );
    assert!(!sentence.contains("good.example"), "{sentence}");
}

#[test]
fn origins_as_browsers_send_them_still_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    for origins in [
        vec!["https://app.example.com"],
        vec!["http://localhost:5173", "http://127.0.0.1:8080"],
        vec!["http://[::1]:3000"],
        vec!["https://app.example.com:8443"],
        vec!["chrome-extension://abcdefghijklmnop"],
        vec!["*"],
    ] {
        let mut args = vec![
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ];
        for origin in &origins {
            args.extend(["--cors-origin", origin]);
        }
        match run(&args) {
            Outcome::Started(line) => assert!(line.starts_with("listening on http://127.0.0.1:")),
            Outcome::Refused { output, .. } => panic!("{origins:?} refused: {output}"),
        }
    }
}

#[test]
fn help_shows_the_common_set_ups() {
    for args in [&["--help"][..], &["serve", "--help"]] {
        let output = Command::new(env!("CARGO_BIN_EXE_tenure-grantor"))
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}");
        let help = String::from_utf8(output.stdout).unwrap();
        let examples = &help[help.find("Examples:").expect("an Examples section")..];
        for part in [
            "serve --db data/leases.db --listen 127.0.0.1:8040",
            "--static-dir www",
            "keygen --id web --namespace web/",
            "--keys-file keys.jsonl",
            "TENURE_POSTGRES_URL=postgres://",
            "--cors-origin https://app.example.com",
        ] {
            assert!(
                examples.contains(part),
                "{args:?} shows {part:?}:\n{examples}"
            );
        }
    }
}

#[test]
fn the_help_examples_run() {
    // Each SQLite example as printed (PostgreSQL needs a server: tests/postgres.rs runs the
    // binary against one), with its paths moved into a temporary folder and port 0.
    let dir = tempfile::tempdir().unwrap();
    let keygen = Command::new(env!("CARGO_BIN_EXE_tenure-grantor"))
        .args(["keygen", "--id", "web", "--namespace", "web/"])
        .output()
        .unwrap();
    assert!(keygen.status.success());
    let keys_line = String::from_utf8(keygen.stdout)
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .to_owned();
    let keys = dir.path().join("keys.jsonl");
    std::fs::write(&keys, format!("{keys_line}\n")).unwrap();
    let www = dir.path().join("www");
    std::fs::create_dir(&www).unwrap();
    let help = String::from_utf8(
        Command::new(env!("CARGO_BIN_EXE_tenure-grantor"))
            .arg("--help")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    // Joins the lines a trailing backslash continues, as a shell would.
    let joined = help.replace("\\\n", " ");
    let examples: Vec<&str> = joined
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with("tenure-grantor serve --db"))
        .collect();
    assert!(examples.len() >= 4, "{examples:?}");
    for example in examples {
        let args: Vec<String> = example
            .split_whitespace()
            .skip(1)
            .map(|word| match word {
                "data/leases.db" => dir.path().join("leases.db").display().to_string(),
                "keys.jsonl" => keys.display().to_string(),
                "www" => www.display().to_string(),
                "127.0.0.1:8040" => "127.0.0.1:0".to_owned(),
                "0.0.0.0:8040" => "0.0.0.0:0".to_owned(),
                other => other.to_owned(),
            })
            .collect();
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        // The default port may be taken here; the examples that name none get a free one.
        if !args.contains(&"--listen") {
            args.extend(["--listen", "127.0.0.1:0"]);
        }
        match run(&args) {
            Outcome::Started(line) => assert!(line.starts_with("listening on http://"), "{line}"),
            Outcome::Refused { output, .. } => panic!("{example} refused: {output}"),
        }
    }
}
