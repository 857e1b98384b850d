//! Shared test code: an in-process grantor on an ephemeral port (on SQLite or PostgreSQL), the
//! real binary as a process, a throwaway PostgreSQL server, and a JSON client.
#![allow(dead_code)] // Each test binary uses its own subset of these functions.

pub mod postgres;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Mutex};
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
    /// The secrets of the grants and claims this server's replies handed out.
    pub secrets: SecretMemory,
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

/// Durations the test servers grant: short enough for quick expiry tests. No API keys, as on a
/// loopback grantor by default; the security tests add them.
pub fn test_config(storage: Storage) -> Config {
    Config {
        durations: DurationLimits::new(50, 60_000).unwrap(),
        ..Config::new(storage)
    }
}

/// What the package's `HttpGrantor` remembers between calls: the secret of every grant and claim
/// a reply handed out, sent along with the calls about that grant or claim (and with a same-holder
/// re-grant) unless the body names one itself. Tests of the protocol's other rules post through
/// it, as a real client would; the security tests post exact bodies instead.
#[derive(Default)]
pub struct SecretMemory {
    leases: Mutex<HashMap<(String, u64), String>>,
    latest: Mutex<HashMap<(String, String), String>>,
    claims: Mutex<HashMap<(u64, u64), String>>,
}

impl SecretMemory {
    /// Adds the secret a call needs to `body`, if it is known and the body has none.
    pub fn add_to(&self, path: &str, body: &mut Value) {
        let Some(fields) = body.as_object_mut() else {
            return;
        };
        let text = |name: &str| fields.get(name).and_then(Value::as_str).map(str::to_owned);
        let number = |name: &str| fields.get(name).and_then(Value::as_u64);
        let found = match path {
            "/v1/renew" | "/v1/release" | "/v1/fenced/write" => text("resource")
                .zip(number("token"))
                .and_then(|key| self.leases.lock().unwrap().get(&key).cloned())
                .map(|secret| ("leaseSecret", secret)),
            "/v1/grant" => text("resource")
                .zip(text("holder"))
                .and_then(|key| self.latest.lock().unwrap().get(&key).cloned())
                .map(|secret| ("leaseSecret", secret)),
            "/v1/queues/heartbeat" | "/v1/queues/complete" | "/v1/queues/fail" => number("itemId")
                .zip(number("token"))
                .and_then(|key| self.claims.lock().unwrap().get(&key).cloned())
                .map(|secret| ("claimSecret", secret)),
            _ => None,
        };
        if let Some((name, secret)) = found {
            fields.entry(name).or_insert(Value::String(secret));
        }
    }

    /// Remembers the secret `reply` hands out, if any.
    pub fn learn(&self, path: &str, body: &Value, reply: &Value) {
        match (path, reply["token"].as_u64()) {
            ("/v1/grant", Some(token)) => {
                if let (Some(secret), Some(resource), Some(holder)) = (
                    reply["leaseSecret"].as_str(),
                    body["resource"].as_str(),
                    body["holder"].as_str(),
                ) {
                    self.leases
                        .lock()
                        .unwrap()
                        .insert((resource.to_owned(), token), secret.to_owned());
                    self.latest
                        .lock()
                        .unwrap()
                        .insert((resource.to_owned(), holder.to_owned()), secret.to_owned());
                }
            }
            ("/v1/queues/claim", Some(token)) => {
                if let (Some(secret), Some(item)) =
                    (reply["claimSecret"].as_str(), reply["item"]["id"].as_u64())
                {
                    self.claims
                        .lock()
                        .unwrap()
                        .insert((item, token), secret.to_owned());
                }
            }
            _ => {}
        }
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
        let postgres_url = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(postgres::shared().fresh_database().await),
        };
        Server::start_with(postgres_url, configure).await
    }

    /// Starts a grantor on the PostgreSQL database at `postgres_url` (which other grantors may
    /// share), or on a fresh SQLite database without one, after letting `configure` adjust the
    /// config.
    pub async fn start_with(
        postgres_url: Option<String>,
        configure: impl FnOnce(&mut Config),
    ) -> Server {
        let dir = tempfile::tempdir().unwrap();
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
            secrets: SecretMemory::default(),
            stop: Some(stop),
            task: Some(task),
            _dir: dir,
        }
    }

    /// POSTs `body` as JSON, with the secret of the grant or claim it names added as the
    /// package's client adds it (see [`SecretMemory`]); returns the status and the parsed reply.
    pub async fn post(&self, path: &str, mut body: Value) -> (u16, Value) {
        self.secrets.add_to(path, &mut body);
        let (status, reply) = post(&self.client, &self.url, path, body.clone()).await;
        self.secrets.learn(path, &body, &reply);
        (status, reply)
    }

    /// POSTs exactly `body`, adding no secret.
    pub async fn post_exact(&self, path: &str, body: Value) -> (u16, Value) {
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

/// Grants `resource` `n` times in turn, each grant released before the next, and returns the
/// tokens (increasing): tokens a fenced write may use, whose secrets `server` remembers.
pub async fn successive_tokens(server: &Server, resource: &str, n: usize) -> Vec<u64> {
    let mut tokens = Vec::with_capacity(n);
    for i in 0..n {
        let holder = format!("successive-{i}");
        let (_, granted) = server
            .post("/v1/grant", grant(resource, &holder, 30_000, "1"))
            .await;
        let token = granted["token"]
            .as_u64()
            .unwrap_or_else(|| panic!("no grant: {granted}"));
        let release = serde_json::json!({"resource": resource, "holder": holder, "token": token});
        let (_, released) = server.post("/v1/release", release).await;
        assert_eq!(released["released"], true, "{released}");
        tokens.push(token);
    }
    tokens
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

    /// Starts `command` (a `tenure-grantor serve` on an ephemeral port) and reads its address.
    pub fn spawn(mut command: Command) -> Process {
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
        .env_remove("TENURE_GRANTOR_ADMIN_KEY")
        .env_remove("TENURE_GRANTOR_KEYS")
        .env_remove("TENURE_POSTGRES_URL")
        .stdin(Stdio::null());
    command
}
