//! `tenure-grantor serve`: runs the reference lease grantor.

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use tenure_grantor::auth::{self, ApiKey, KeyRing};
use tenure_grantor::{
    check_cors_origin, AppState, Config, ConnectionLimits, DurationLimits, Storage,
};
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

/// Keys as JSON lines, like a key file's content.
const KEYS_ENV: &str = "TENURE_GRANTOR_KEYS";

/// The name `--admin-key` had in the environment before API keys; still read.
const LEGACY_ADMIN_KEY_ENV: &str = "TENURE_ADMIN_KEY";

/// The common set-ups, shown after `--help`.
const EXAMPLES: &str = "\
Examples:
  On this machine, on embedded SQLite (pages on any port of localhost may call it):
    tenure-grantor serve --db data/leases.db --listen 127.0.0.1:8040

  Serving a page of its own from a folder, at the same origin:
    tenure-grantor serve --db data/leases.db --static-dir www

  With API keys, which any address other than loopback needs:
    tenure-grantor keygen --id web --namespace web/
      (prints the client's key, then the line to append to keys.jsonl)
    tenure-grantor serve --db data/leases.db --listen 0.0.0.0:8040 --keys-file keys.jsonl

  On PostgreSQL, several grantors sharing one database (the URL in the environment keeps
  its password out of the process list):
    TENURE_POSTGRES_URL=postgres://tenure:secret@db.internal:5432/tenure \\
      tenure-grantor serve --listen 0.0.0.0:8040 --keys-file keys.jsonl

  Browser pages of other origins, each listed exactly as the browser sends it:
    tenure-grantor serve --db data/leases.db \\
      --cors-origin https://app.example.com --cors-origin http://localhost:5173
";

/// Reference HTTP lease grantor for tenure.
#[derive(Parser)]
#[command(version, about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the /v1 lease protocol.
    #[command(after_help = EXAMPLES)]
    Serve(ServeArgs),
    /// Print a new random API key, then the key-file line that accepts it (with its SHA-256
    /// hash, not the key).
    Keygen(KeygenArgs),
}

#[derive(Args)]
struct KeygenArgs {
    /// The key's id, as logs and the key file name it.
    #[arg(long)]
    id: String,
    /// A resource and queue name prefix the key may use, ending in `/` (repeatable); `*` for
    /// every name.
    #[arg(long = "namespace", required = true)]
    namespaces: Vec<String>,
    /// The key may revoke.
    #[arg(long)]
    admin: bool,
    /// Requests per second the key may make on average.
    #[arg(long)]
    rate_per_second: Option<f64>,
    /// Requests the key may make at once, above its rate.
    #[arg(long, requires = "rate_per_second")]
    burst: Option<u32>,
}

#[derive(Args)]
struct ServeArgs {
    /// SQLite database file; created if missing. Only one grantor may use it at a time.
    #[arg(
        long,
        required_unless_present = "postgres",
        conflicts_with = "postgres"
    )]
    db: Option<PathBuf>,
    /// PostgreSQL connection URL (`postgres://user:password@host:port/dbname`) instead of
    /// `--db`; tables are created if missing, and any number of grantors may share the
    /// database. Connects without TLS. Prefer the environment variable when the URL carries a
    /// password: arguments are visible to other users of the machine.
    #[arg(
        long,
        env = "TENURE_POSTGRES_URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    postgres: Option<String>,
    /// Address to listen on; port 0 picks a free port. The bound address is printed on stdout.
    #[arg(long, default_value = "127.0.0.1:8040")]
    listen: SocketAddr,
    /// Shortest lease granted, in ms; shorter requests are raised to it.
    #[arg(long, default_value_t = 500)]
    min_duration_ms: u64,
    /// Longest lease granted, in ms; longer requests are lowered to it.
    #[arg(long, default_value_t = 600_000)]
    max_duration_ms: u64,
    /// Claims a work item gets before it is dead-lettered, unless its enqueue names a limit.
    #[arg(long, default_value_t = tenure_grantor::DEFAULT_MAX_ATTEMPTS,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(tenure::protocol::MAX_ATTEMPTS)))]
    max_attempts: u32,
    /// API keys, one JSON object per line (see docs/protocol.md, Security). With any key
    /// configured, every /v1 request needs one. The variable TENURE_GRANTOR_KEYS may hold more
    /// lines of the same form.
    #[arg(long, value_name = "PATH")]
    keys_file: Option<PathBuf>,
    /// An admin API key for every name (at least 16 bytes), as `Authorization: Bearer <key>`.
    /// Like any key, it makes every /v1 request need a key. Prefer the environment variable:
    /// arguments are visible to other users of the machine. (TENURE_ADMIN_KEY is read too.)
    #[arg(long, env = "TENURE_GRANTOR_ADMIN_KEY", hide_env_values = true)]
    admin_key: Option<String>,
    /// Serve without API keys on an address other than loopback. Anyone who can reach the
    /// grantor may then grant, renew and release any lease: only for a network where something
    /// in front authenticates every request.
    #[arg(long)]
    insecure_no_auth: bool,
    /// How long a connection may take to send a request's headers, and stay idle between
    /// requests, before it is closed.
    #[arg(long, default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    header_timeout_ms: u64,
    /// How long a request's body may take to arrive after its headers (else 408).
    #[arg(long, default_value_t = 20_000,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    body_timeout_ms: u64,
    /// Connections open at once. At the limit, a new connection closes the oldest one that has
    /// not yet completed a request, or is refused if every one has (kept below the process's
    /// file-descriptor limit).
    #[arg(long, default_value_t = tenure_grantor::DEFAULT_MAX_CONNECTIONS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    max_connections: usize,
    /// Connections open at once from one address, made room for in the same way.
    #[arg(long, default_value_t = tenure_grantor::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    max_connections_per_address: usize,
    /// Watches (`/v1/watch` long polls) open at once; past that, a watch is refused with 429
    /// and Retry-After. Each holds a connection while it waits.
    #[arg(long, default_value_t = tenure_grantor::DEFAULT_MAX_WATCHES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1_000_000))]
    max_watches: usize,
    /// How long a reply may wait for a peer that does not read it before the connection is
    /// closed.
    #[arg(long, default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    write_stall_timeout_ms: u64,
    /// Browser origin allowed to call the grantor, exactly as the browser sends it:
    /// scheme://host[:port], no path or wildcard (repeatable; `*` alone for any). Default: any
    /// port of http://localhost, http://127.0.0.1 and http://[::1].
    #[arg(long = "cors-origin")]
    cors_origins: Vec<String>,
    /// Folder of static files to serve at `/`.
    #[arg(long)]
    static_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    // Logs go to stderr: stdout carries only the `listening on` line that scripts parse.
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let outcome = match Cli::parse().command {
        Command::Serve(args) => run(args),
        Command::Keygen(args) => keygen(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // Once, on stderr, whatever RUST_LOG says: a log line as well would say it twice.
            eprintln!("tenure-grantor: {message}");
            ExitCode::FAILURE
        }
    }
}

fn keygen(args: KeygenArgs) -> Result<(), String> {
    let key = auth::generate_key()?;
    let mut line = serde_json::json!({
        "id": args.id,
        "sha256": auth::sha256_hex(&key),
        "namespaces": args.namespaces,
    });
    if args.admin {
        line["admin"] = true.into();
    }
    if let Some(rate) = args.rate_per_second {
        line["ratePerSecond"] = rate.into();
    }
    if let Some(burst) = args.burst {
        line["burst"] = burst.into();
    }
    let line = line.to_string();
    // The line must load: check it as the grantor will.
    auth::parse_keys(&line, "the generated line")?;
    println!("{key}");
    println!("{line}");
    if std::io::stdout().is_terminal() {
        eprintln!("Give the first line to the client; add the second to the keys file.");
    }
    Ok(())
}

/// Every configured key: the key file, `TENURE_GRANTOR_KEYS`, and the admin key.
fn load_keys(args: &ServeArgs) -> Result<KeyRing, String> {
    let mut keys = Vec::new();
    if let Some(path) = &args.keys_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the keys file {}: {e}", path.display()))?;
        keys.extend(auth::parse_keys(&text, &path.display().to_string())?);
    }
    if let Some(text) = std::env::var_os(KEYS_ENV) {
        let text = text
            .into_string()
            .map_err(|_| format!("{KEYS_ENV} is not UTF-8"))?;
        keys.extend(auth::parse_keys(&text, KEYS_ENV)?);
    }
    let legacy = std::env::var(LEGACY_ADMIN_KEY_ENV)
        .ok()
        .filter(|k| !k.is_empty());
    let admin_key = match (&args.admin_key, legacy) {
        (Some(key), Some(old)) if *key != old => {
            return Err(format!(
                "the admin key is given twice, differently (also as {LEGACY_ADMIN_KEY_ENV})"
            ))
        }
        (Some(key), _) => Some(key.clone()),
        (None, old) => old,
    };
    if let Some(key) = admin_key {
        keys.push(ApiKey::admin("admin", &key).map_err(|e| format!("the admin key: {e}"))?);
    }
    KeyRing::new(keys)
}

fn run(args: ServeArgs) -> Result<(), String> {
    let durations = DurationLimits::new(args.min_duration_ms, args.max_duration_ms)?;
    let keys = load_keys(&args)?;
    if keys.is_empty() && !args.listen.ip().to_canonical().is_loopback() && !args.insecure_no_auth {
        return Err(format!(
            "refusing to serve on {} without API keys, because anyone who can reach it could \
             take, renew or release any lease; give --keys-file (or {KEYS_ENV}, or --admin-key), \
             listen on a loopback address such as 127.0.0.1, or pass --insecure-no-auth if \
             something in front authenticates every request",
            args.listen
        ));
    }
    if !keys.is_empty() && args.insecure_no_auth {
        return Err("--insecure-no-auth contradicts the API keys given; drop one".into());
    }
    if args.insecure_no_auth {
        tracing::warn!(
            listen = %args.listen,
            "serving without API keys (--insecure-no-auth): anyone who can reach this address \
             may grant, renew and release any lease"
        );
    }
    for origin in &args.cors_origins {
        check_cors_origin(origin)?;
    }
    if let Some(dir) = &args.static_dir {
        if !dir.is_dir() {
            return Err(format!("static dir {} is not a folder", dir.display()));
        }
    }
    let storage = match (args.db, args.postgres) {
        (Some(path), None) => Storage::Sqlite(path),
        (None, Some(url)) => Storage::Postgres(Box::new(
            url.parse()
                .map_err(|e| format!("--postgres is not a valid PostgreSQL URL: {e}"))?,
        )),
        // clap enforces exactly one of the two.
        _ => return Err("give either --db or --postgres".into()),
    };
    let key_count = keys.len();
    let config = Config {
        storage,
        durations,
        max_attempts: args.max_attempts,
        keys,
        cors_origins: args.cors_origins,
        static_dir: args.static_dir,
        header_timeout: Duration::from_millis(args.header_timeout_ms),
        body_timeout: Duration::from_millis(args.body_timeout_ms),
        connections: ConnectionLimits {
            max_total: within_descriptor_limit(args.max_connections),
            max_per_address: args.max_connections_per_address,
            write_stall: Duration::from_millis(args.write_stall_timeout_ms),
        },
        max_watches: args.max_watches,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let state = AppState::open(&config)
            .await
            .map_err(|e| format!("cannot open {}: {e}", config.storage.describe()))?;
        let listener = TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on http://{addr}")
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("cannot write to stdout: {e}"))?;
        drop(stdout);
        tracing::info!(%addr, api_keys = key_count, "serving");
        tenure_grantor::serve(listener, state, shutdown_signal())
            .await
            .map_err(|e| format!("server failed: {e}"))
    })
}

/// File descriptors the grantor needs besides its connections: the database, its journal, the
/// listener, PostgreSQL's pool, logs.
const RESERVED_DESCRIPTORS: u64 = 64;

/// `max_connections`, lowered if the process may not open that many sockets: past the limit,
/// `accept` fails for everyone, which the connection cap exists to prevent. Raises the soft
/// limit to the hard one first, as servers do.
#[cfg(unix)]
fn within_descriptor_limit(max_connections: usize) -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
    let allowed = unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return max_connections;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
        limit.rlim_cur
    };
    let usable =
        usize::try_from(allowed.saturating_sub(RESERVED_DESCRIPTORS)).unwrap_or(usize::MAX);
    if usable < max_connections {
        tracing::warn!(
            max_connections,
            usable,
            "the file-descriptor limit allows fewer connections; using that"
        );
        return usable.max(1);
    }
    max_connections
}

/// Elsewhere the limit cannot be read; the cap stands as given.
#[cfg(not(unix))]
fn within_descriptor_limit(max_connections: usize) -> usize {
    max_connections
}

/// Completes on Ctrl-C or SIGTERM, so in-flight requests finish before the process exits.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}
