//! `tenure-grantor serve`: runs the reference lease grantor.

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use tenure_grantor::{AppState, Config, DurationLimits, Storage};
use tokio::net::TcpListener;
use tracing_subscriber::EnvFilter;

/// Reference HTTP lease grantor for tenure.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the /v1 lease protocol.
    Serve(ServeArgs),
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
    /// Key required as `Authorization: Bearer <key>` by POST /v1/revoke. Without it, only
    /// loopback peers may revoke. Prefer the environment variable: arguments are visible to
    /// other users of the machine.
    #[arg(long, env = "TENURE_ADMIN_KEY", hide_env_values = true)]
    admin_key: Option<String>,
    /// Browser origin allowed to call the grantor (repeatable; `*` for any). Default: any port
    /// of http://localhost, http://127.0.0.1 and http://[::1].
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
    let Command::Serve(args) = Cli::parse().command;
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!("{message}");
            eprintln!("tenure-grantor: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: ServeArgs) -> Result<(), String> {
    let durations = DurationLimits::new(args.min_duration_ms, args.max_duration_ms)?;
    if args.admin_key.as_deref() == Some("") {
        return Err("the admin key must not be empty".into());
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
    let config = Config {
        storage,
        durations,
        max_attempts: args.max_attempts,
        admin_key: args.admin_key,
        cors_origins: args.cors_origins,
        static_dir: args.static_dir,
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
        tracing::info!(%addr, "serving");
        tenure_grantor::serve(listener, state, shutdown_signal())
            .await
            .map_err(|e| format!("server failed: {e}"))
    })
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
