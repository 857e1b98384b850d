//! A throwaway PostgreSQL 15 server for the tests: a fresh cluster in a temp dir, on a free
//! 127.0.0.1 port (with its socket in the temp dir), fsync left on.
//!
//! PostgreSQL refuses to run as root, and CI runs the tests as root, so then `initdb` and
//! `postgres` run as `nobody` (through `setpriv`, which execs without forking) and the temp dir
//! is handed to that user.
//!
//! The server runs under a small shell watchdog that reads its stdin, a pipe from this process.
//! When this process exits, however it exits (a failed test, a panic, SIGKILL), the pipe closes,
//! and the watchdog stops the server and removes the temp dir: nothing is left behind.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where Debian's `postgresql-15` installs the server binaries; `TENURE_PG_BIN` overrides it.
const DEFAULT_BIN_DIR: &str = "/usr/lib/postgresql/15/bin";

/// The user the cluster runs as when the tests run as root.
const UNPRIVILEGED: &str = "nobody";

/// Stops the server once stdin reaches end of file (and removes the temp dir), or reads a line
/// (and keeps it, to try another port).
const WATCHDOG: &str = r#"
dir=$1; shift
"$@" >"$dir/server.log" 2>&1 &
server=$!
read -r keep || true
kill -QUIT "$server" 2>/dev/null
wait "$server"
[ "$keep" = keep ] || rm -rf "$dir"
"#;

/// A running PostgreSQL server.
pub struct Postgres {
    /// The TCP port on 127.0.0.1.
    pub port: u16,
    dir: PathBuf,
    watchdog: Mutex<Option<(Child, ChildStdin)>>,
}

fn bin(name: &str) -> PathBuf {
    let dir = std::env::var_os("TENURE_PG_BIN").unwrap_or_else(|| DEFAULT_BIN_DIR.into());
    Path::new(&dir).join(name)
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("run id -u");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// A command that runs `program` as the cluster's user.
fn as_cluster_user(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("setpriv");
        command
            .args([
                "--reuid",
                UNPRIVILEGED,
                "--regid",
                "nogroup",
                "--clear-groups",
                "--",
            ])
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// Hands `dir` to the cluster's user, who must own the data directory.
fn chown(dir: &Path) -> bool {
    Command::new("chown")
        .arg(format!("{UNPRIVILEGED}:"))
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Postgres {
    /// Creates a cluster and starts the server; panics with the server's log if it does not
    /// accept connections within 30 s.
    pub fn start() -> Postgres {
        let dir = tempfile::Builder::new()
            .prefix("tenure-pg-")
            .tempdir()
            .expect("a temp dir")
            .keep();
        let data = dir.join("data");
        let mut initdb = as_cluster_user(&bin("initdb"));
        initdb.arg("-D").arg(&data).args([
            "-U",
            "tenure",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
        ]);
        let created = (!is_root() || chown(&dir))
            .then(|| initdb.output())
            .and_then(Result::ok);
        if !created.as_ref().is_some_and(|out| out.status.success()) {
            let _ = std::fs::remove_dir_all(&dir);
            panic!(
                "initdb failed: {}",
                created.map_or(String::new(), |out| String::from_utf8_lossy(&out.stderr)
                    .into())
            );
        }

        // The port is free when picked, but another process could take it before the server
        // binds it; then the server exits at once, and another port is tried.
        for _ in 0..3 {
            if let Some(server) = Postgres::run(dir.clone(), &data) {
                return server;
            }
        }
        let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
        let _ = std::fs::remove_dir_all(&dir);
        panic!("PostgreSQL did not start within 30 s:\n{log}");
    }

    /// Starts the server on a fresh port; `None` if it gave up binding it.
    fn run(dir: PathBuf, data: &Path) -> Option<Postgres> {
        let port = free_port();
        let mut server = as_cluster_user(&bin("postgres"));
        server
            .arg("-D")
            .arg(data)
            .args(["-p", &port.to_string(), "-k"])
            .arg(&dir)
            .args(["-c", "listen_addresses=127.0.0.1"]);
        let mut watchdog = Command::new("sh");
        watchdog
            .args(["-c", WATCHDOG, "tenure-pg-watchdog"])
            .arg(&dir)
            .arg(server.get_program())
            .args(server.get_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = watchdog.spawn().expect("start the PostgreSQL watchdog");
        let stdin = child.stdin.take().expect("the watchdog's stdin");
        let server = Postgres {
            port,
            dir,
            watchdog: Mutex::new(Some((child, stdin))),
        };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            let ready = Command::new(bin("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return Some(server);
            }
            let log = std::fs::read_to_string(server.dir.join("server.log")).unwrap_or_default();
            if log.contains("could not create any TCP/IP sockets") {
                // Stop only the watchdog's server: the files stay for the next attempt.
                server.shut_down(false);
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        server.shut_down(false);
        None
    }

    /// The URL of `database` on this server.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://tenure@127.0.0.1:{}/{database}", self.port)
    }

    /// Creates an empty database with a fresh name and returns its URL.
    pub async fn fresh_database(&self) -> String {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        let name = format!("t{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let admin = connect(&self.url("postgres")).await;
        // A fresh name from a counter: nothing from outside reaches this statement.
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .expect("create a test database");
        self.url(&name)
    }

    /// Stops the server and removes its files, waiting until both are done.
    pub fn stop(&self) {
        self.shut_down(true);
    }

    /// Stops the server; a line on stdin asks the watchdog to keep the files, end of file to
    /// remove them.
    fn shut_down(&self, remove: bool) {
        let taken = self
            .watchdog
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some((mut child, mut stdin)) = taken {
            if !remove {
                let _ = stdin.write_all(b"keep\n");
            }
            drop(stdin);
            let _ = child.wait();
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The server this test binary shares between its tests, each of which makes its own database.
/// Started on first use; a static is never dropped, so the watchdog stops it when the test
/// binary exits.
pub fn shared() -> &'static Postgres {
    static SERVER: OnceLock<Postgres> = OnceLock::new();
    SERVER.get_or_init(Postgres::start)
}

/// A client connected to the database at `url`, its connection driven on the current runtime.
pub async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect to the test PostgreSQL");
    tokio::spawn(connection);
    client
}
