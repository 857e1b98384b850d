//! Shared test code: an in-process grantor on an ephemeral port, the real binary as a process,
//! and a JSON client.
#![allow(dead_code)] // Each test binary uses its own subset of these functions.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;
use tenure_grantor::{AppState, Config, DurationLimits};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A grantor running inside the test process.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    pub client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
    _dir: TempDir,
}

/// Durations the test servers grant: short enough for quick expiry tests.
pub fn test_config(db: std::path::PathBuf) -> Config {
    Config {
        db,
        durations: DurationLimits::new(50, 60_000).unwrap(),
        max_attempts: tenure_grantor::DEFAULT_MAX_ATTEMPTS,
        admin_key: Some("test-admin-key".into()),
        cors_origins: Vec::new(),
        static_dir: None,
    }
}

impl Server {
    /// Starts a grantor on a fresh database, after letting `configure` adjust the config.
    pub async fn start(configure: impl FnOnce(&mut Config)) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut config = test_config(dir.path().join("leases.db"));
        configure(&mut config);
        let state = AppState::open(&config).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(tenure_grantor::serve(listener, state, async move {
            let _ = stopped.await;
        }));
        Server {
            url,
            client: reqwest::Client::new(),
            stop: Some(stop),
            task: Some(task),
            _dir: dir,
        }
    }

    /// POSTs `body` as JSON; returns the status and the parsed reply.
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        post(&self.client, &self.url, path, body).await
    }

    /// GETs `path`; returns the status and the parsed reply.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = self
            .client
            .get(format!("{}{path}", self.url))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// Stops the server and waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
    }
}

/// POSTs `body` as JSON to `url` + `path`.
pub async fn post(client: &reqwest::Client, url: &str, path: &str, body: Value) -> (u16, Value) {
    let response = client
        .post(format!("{url}{path}"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// A grant request body.
pub fn grant(resource: &str, holder: &str, duration_ms: u64, request_id: &str) -> Value {
    serde_json::json!({
        "resource": resource,
        "holder": holder,
        "durationMs": duration_ms,
        "requestId": request_id,
    })
}

/// A renew request body.
pub fn renew(
    resource: &str,
    holder: &str,
    token: u64,
    duration_ms: u64,
    request_id: &str,
) -> Value {
    serde_json::json!({
        "resource": resource,
        "holder": holder,
        "token": token,
        "durationMs": duration_ms,
        "requestId": request_id,
    })
}

/// Polls `check` every 50 ms until it returns true; panics after `limit`.
pub async fn wait_until<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A grantor process and its base URL.
pub struct Process {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Process {
    /// Starts `tenure-grantor serve` on an ephemeral port and reads the address it prints.
    pub fn start(db: &Path) -> Process {
        let mut child = grantor(db).stdout(Stdio::piped()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the grantor printed no address within 30 s");
        let url = line
            .trim_end()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        Process { child, url }
    }

    /// SIGKILL: no shutdown code runs, as in a crash or power cut.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

/// The `tenure-grantor serve` command on `db`, on an ephemeral loopback port.
pub fn grantor(db: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tenure-grantor"));
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--min-duration-ms",
            "100",
            "--db",
        ])
        .arg(db)
        .env("RUST_LOG", "warn")
        .env_remove("TENURE_ADMIN_KEY")
        .stdin(Stdio::null());
    command
}
