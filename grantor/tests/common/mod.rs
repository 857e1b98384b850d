//! Shared test code: an in-process grantor on an ephemeral port (on SQLite or PostgreSQL), the
//! real binary as a process, a throwaway PostgreSQL server, and a JSON client.
#![allow(dead_code)] // Each test binary uses its own subset of these functions.

pub mod postgres;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;
use tenure_grantor::{AppState, Config, DurationLimits, Storage};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A grantor running inside the test process.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    pub client: reqwest::Client,
    /// The database's URL when the server runs on PostgreSQL.
    pub postgres_url: Option<String>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
    _dir: TempDir,
}

/// Where a test grantor keeps its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file in a temp dir.
    Sqlite,
    /// A fresh database on this test binary's PostgreSQL server.
    Postgres,
}

/// Defines, for each named `async fn(Backend)` of the calling file, one test on SQLite (in a
/// module `sqlite`) and one on PostgreSQL (in a module `postgres`).
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Sqlite).await
                }
            )+
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Postgres).await
                }
            )+
        }
    };
}

/// Durations the test servers grant: short enough for quick expiry tests.
pub fn test_config(storage: Storage) -> Config {
    Config {
        storage,
        durations: DurationLimits::new(50, 60_000).unwrap(),
        max_attempts: tenure_grantor::DEFAULT_MAX_ATTEMPTS,
        admin_key: Some("test-admin-key".into()),
        cors_origins: Vec::new(),
        static_dir: None,
    }
}

impl Server {
    /// Starts a grantor on a fresh SQLite database, after letting `configure` adjust the config.
    pub async fn start(configure: impl FnOnce(&mut Config)) -> Server {
        Server::start_on(Backend::Sqlite, configure).await
    }

    /// Starts a grantor on a fresh database of `backend`, after letting `configure` adjust the
    /// config.
    pub async fn start_on(backend: Backend, configure: impl FnOnce(&mut Config)) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let postgres_url = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(postgres::shared().fresh_database().await),
        };
        let storage = match &postgres_url {
            None => Storage::Sqlite(dir.path().join("leases.db")),
            Some(url) => Storage::Postgres(Box::new(url.parse().unwrap())),
        };
        let mut config = test_config(storage);
        configure(&mut config);
        let state = AppState::open(&config).await.unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(tenure_grantor::serve(listener, state, async move {
            let _ = stopped.await;
        }));
        Server {
            url,
            client: reqwest::Client::new(),
            postgres_url,
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
        Process::spawn(grantor(db))
    }

    /// Starts `tenure-grantor serve --postgres URL` on an ephemeral port.
    pub fn start_postgres(url: &str) -> Process {
        Process::spawn(grantor_on_postgres(url))
    }

    fn spawn(mut command: Command) -> Process {
        let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
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

impl Drop for Process {
    /// A test that fails before killing its grantor must not leave the process running.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The `tenure-grantor serve` command on `db`, on an ephemeral loopback port.
pub fn grantor(db: &Path) -> Command {
    let mut command = grantor_command();
    command.arg("--db").arg(db);
    command
}

/// The `tenure-grantor serve` command on the PostgreSQL database at `url`.
pub fn grantor_on_postgres(url: &str) -> Command {
    let mut command = grantor_command();
    command.args(["--postgres", url]);
    command
}

fn grantor_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tenure-grantor"));
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--min-duration-ms",
            "100",
        ])
        .env("RUST_LOG", "warn")
        .env_remove("TENURE_ADMIN_KEY")
        .env_remove("TENURE_POSTGRES_URL")
        .stdin(Stdio::null());
    command
}
