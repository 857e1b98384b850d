//! The reference tenure grantor: the `/v1` lease protocol (see `docs/protocol.md`) over HTTP,
//! with fencing tokens that only ever increase and grants that survive restarts, in SQLite (one
//! grantor process) or PostgreSQL (any number of grantor processes sharing the database).
//!
//! [`app`] builds the router, so the grantor can run inside another process (the tests do);
//! [`serve`] runs it on a listener the way the `tenure-grantor` binary does.
#![warn(missing_docs)]

mod api;
pub mod auth;
mod backend;
mod batch;
mod connections;
mod error;
mod extract;
mod metrics;
mod postgres;
mod queues;
mod records;
mod secrets;
mod store;
mod watch;
mod writer;

use std::future::Future;
use std::path::PathBuf;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State};
use axum::handler::HandlerWithoutStateExt;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, ORIGIN};
use axum::http::{HeaderValue, Method};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tenure::protocol::ErrorCode;
use tokio::net::TcpListener;
use tower::ServiceExt as _;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::services::ServeDir;
use tower_http::trace::TraceLayer;

use crate::auth::{KeyRing, RateLimits};
use crate::backend::Backend;
pub use crate::connections::{
    ConnectionLimits, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    DEFAULT_WRITE_STALL,
};
pub use crate::error::ApiError;
pub use crate::extract::{parse_body, parse_request, Validate, MAX_BODY_BYTES};
pub use crate::postgres::{PgStore, WallClock};
pub use crate::records::{DurationLimits, StoreError, DEFAULT_MAX_ATTEMPTS};
use crate::secrets::Secrets;
pub use crate::store::{Clock, Store};
use crate::watch::Watches;
pub use crate::watch::DEFAULT_MAX_WATCHES;
use crate::writer::Writer;

/// How often grants that ran out are recorded as expired on disk.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// The default for [`Config::header_timeout`].
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The default for [`Config::body_timeout`].
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(20);

/// Where the grantor keeps its state.
#[derive(Clone, Debug)]
pub enum Storage {
    /// An SQLite database file, created if missing. One grantor process at a time; expiry on
    /// that process's monotonic clock.
    Sqlite(PathBuf),
    /// A PostgreSQL database; tables are created if missing. Any number of grantor processes
    /// may share it; expiry on the database server's clock. (The configuration's `Debug`
    /// output hides the password.)
    Postgres(Box<tokio_postgres::Config>),
}

impl Storage {
    /// Where the state lives, for logs and errors; never a password.
    pub fn describe(&self) -> String {
        match self {
            Storage::Sqlite(path) => path.display().to_string(),
            Storage::Postgres(config) => postgres::describe(config),
        }
    }
}

/// Everything the grantor needs to start.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where leases, fenced state and queues are kept.
    pub storage: Storage,
    /// The range requested lease and claim durations are clamped into.
    pub durations: DurationLimits,
    /// How many claims a work item gets before it is dead-lettered, unless its enqueue says.
    pub max_attempts: u32,
    /// The API keys every `/v1` request must carry one of. Empty means no authentication: the
    /// binary allows that only on a loopback address (or with `--insecure-no-auth`), and then
    /// only loopback peers may revoke.
    pub keys: KeyRing,
    /// Browser origins allowed to call the grantor. Empty means the development default: any
    /// port of `http://localhost`, `http://127.0.0.1` and `http://[::1]`. `*` allows any origin.
    pub cors_origins: Vec<String>,
    /// A folder served at `/` as static files, for a page that talks to this grantor.
    pub static_dir: Option<PathBuf>,
    /// How long a connection may take to send a request's headers (also how long an idle
    /// keep-alive connection stays open); then it is closed.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive once its headers did; then the request is
    /// refused with `408 request_timeout` and the connection closed.
    pub body_timeout: Duration,
    /// How many connections stay open, and how long a reply may wait for its reader.
    pub connections: ConnectionLimits,
    /// How many watches (`/v1/watch` long polls) may be open at once; past that, a watch is
    /// refused with `429 rate_limited` and `Retry-After`. Each holds a connection while it waits.
    pub max_watches: usize,
}

impl Config {
    /// A configuration with the defaults: durations 500 ms to 10 min, no keys, the development
    /// CORS origins, no static folder, the default timeouts and limits.
    pub fn new(storage: Storage) -> Config {
        Config {
            storage,
            durations: DurationLimits::new(500, 600_000).expect("valid default range"),
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            keys: KeyRing::default(),
            cors_origins: Vec::new(),
            static_dir: None,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            connections: ConnectionLimits::default(),
            max_watches: DEFAULT_MAX_WATCHES,
        }
    }
}

/// Checks an origin `--cors-origin` lists: `*`, or `scheme://host[:port]` exactly as a browser
/// sends it in `Origin`. The list matches exactly, so an entry a browser never sends (a wildcard,
/// a path or trailing slash, a query, a user name, no scheme, capitals, a default port) would
/// silently allow nothing; it is refused with a message naming the entry to give instead.
pub fn check_cors_origin(origin: &str) -> Result<(), String> {
    if origin == "*" {
        return Ok(());
    }
    let refuse = |why: &str, fix: &str| {
        Err(format!(
            "CORS origin {origin:?} can never match, because {why}; {fix}"
        ))
    };
    if origin == "null" {
        // It would match: browsers send it, but for sandboxed frames and local files, which any
        // page can create, so listing it would let every page in.
        return Err(
            "CORS origin \"null\" is refused, because browsers send it for sandboxed \
             frames and local files, which any page can make; serve the page from an origin of \
             its own and list that one"
                .to_owned(),
        );
    }
    if origin.contains('*') {
        let example = OriginParts::parse(&origin.replace('*', ""))
            .filter(|parts| !parts.host.starts_with('.') && !parts.host.is_empty())
            .map_or_else(
                || "https://app.example.com".to_owned(),
                |parts| parts.exact(),
            );
        return refuse(
            "origins are matched exactly, without wildcards",
            &format!(
                "list each origin (for example --cors-origin {example}), or give * alone to allow any origin"
            ),
        );
    }
    let Some(parts) = OriginParts::parse(origin) else {
        return refuse(
            "it is not of the form scheme://host[:port] that browsers send",
            "give one such as https://app.example.com, or * to allow any origin",
        );
    };
    let exact = parts.exact();
    let why = if !parts.has_scheme {
        "it has no scheme, and browsers always send one"
    } else if !parts.tail.is_empty() {
        if parts.tail == "/" {
            "it ends in a slash, which browsers never send"
        } else if parts.tail.starts_with('/') {
            "it has a path, and an origin never does"
        } else {
            "it has a query or fragment, and an origin never does"
        }
    } else if parts.userinfo {
        "it has a user name, and an origin never does"
    } else if parts.default_port {
        "browsers leave out the scheme's default port"
    } else if exact != origin {
        "browsers send the scheme and host in lowercase"
    } else {
        return Ok(());
    };
    let fix = if parts.has_scheme {
        format!("use {exact}")
    } else {
        let host = exact.trim_start_matches("https://");
        format!("use {exact} (or http://{host})")
    };
    refuse(why, &fix)
}

/// The pieces of an origin-like string, for [`check_cors_origin`] to name what is wrong with it.
struct OriginParts {
    /// Whether it started with `scheme://`; without, `https` is assumed for the suggestion.
    has_scheme: bool,
    scheme: String,
    host: String,
    /// The port as written, without its colon; `None` when there is none.
    port: Option<String>,
    /// Whether the port is the scheme's default, which browsers leave out.
    default_port: bool,
    userinfo: bool,
    /// Whatever follows the host and port: a path, query or fragment.
    tail: String,
}

impl OriginParts {
    /// `None` when no origin can be made of it at all (an empty or non-ASCII host, a bad port).
    fn parse(text: &str) -> Option<OriginParts> {
        let (has_scheme, scheme, rest) = match text.split_once("://") {
            Some((scheme, rest)) => (true, scheme.to_ascii_lowercase(), rest),
            None => (false, "https".to_owned(), text),
        };
        let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+-.".contains(&b));
        let tail_at = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(tail_at);
        let (userinfo, host_port) = match authority.rsplit_once('@') {
            Some((_, host_port)) => (true, host_port),
            None => (false, authority),
        };
        // An IPv6 literal has colons of its own: its port follows the closing bracket.
        let port_at = if host_port.starts_with('[') {
            host_port.find(']').map(|end| end + 1)?
        } else {
            host_port.rfind(':').unwrap_or(host_port.len())
        };
        let (host, port) = host_port.split_at(port_at);
        let port = match port {
            "" => None,
            with_colon => Some(with_colon.strip_prefix(':')?.to_owned()),
        };
        let valid_host = match host.strip_prefix('[') {
            Some(literal) => literal.strip_suffix(']').is_some_and(|address| {
                !address.is_empty()
                    && address
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit() || b":.".contains(&b))
            }),
            None => {
                !host.is_empty()
                    && host
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
            }
        };
        let valid_port = port.as_deref().is_none_or(|p| {
            !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok()
        });
        if !(valid_scheme && valid_host && valid_port) {
            return None;
        }
        let default_port = matches!(
            (scheme.as_str(), port.as_deref()),
            ("http" | "ws", Some("80")) | ("https" | "wss", Some("443"))
        );
        Some(OriginParts {
            has_scheme,
            scheme,
            host: host.to_ascii_lowercase(),
            port,
            default_port,
            userinfo,
            tail: tail.to_owned(),
        })
    }

    /// The origin a browser would send for it.
    fn exact(&self) -> String {
        match &self.port {
            Some(port) if !self.default_port => format!("{}://{}:{port}", self.scheme, self.host),
            _ => format!("{}://{}", self.scheme, self.host),
        }
    }
}

/// The shared state of a running grantor.
#[derive(Clone)]
pub struct AppState {
    backend: Backend,
    keys: KeyRing,
    rate_limits: Arc<RateLimits>,
    secrets: Secrets,
    origins: Arc<OriginPolicy>,
    static_dir: Option<PathBuf>,
    metrics: Arc<metrics::Metrics>,
    header_timeout: Duration,
    body_timeout: Duration,
    connections: ConnectionLimits,
    watches: Arc<Watches>,
}

impl AppState {
    /// Opens the storage: for SQLite, loads the held grants; for PostgreSQL, connects, creates
    /// the tables if they are missing, and starts listening for other grantor processes'
    /// changes (for watches).
    pub async fn open(config: &Config) -> Result<AppState, StoreError> {
        let metrics = Arc::new(metrics::Metrics::default());
        let watches = Arc::new(Watches::new(config.max_watches, metrics.clone()));
        let backend = match &config.storage {
            Storage::Sqlite(path) => {
                let store =
                    Store::open(path, config.durations)?.with_max_attempts(config.max_attempts);
                tracing::info!(
                    db = %path.display(),
                    held = store.held_count(),
                    "database opened; grants held before the restart are held for their full duration"
                );
                Backend::Sqlite(Writer::start(store)?)
            }
            Storage::Postgres(pg) => {
                let store = PgStore::open(pg, config.durations, config.max_attempts).await?;
                let listener = tokio::spawn(postgres::listen(
                    store.listen_config(),
                    watches.registry.clone(),
                ));
                watches.set_listener(listener.abort_handle());
                tracing::info!(
                    db = %postgres::describe(pg),
                    "database opened; expiry is judged on the database server's clock"
                );
                Backend::Postgres(store)
            }
        };
        let secrets = backend.secrets();
        Ok(AppState {
            backend,
            rate_limits: Arc::new(RateLimits::new(&config.keys)),
            keys: config.keys.clone(),
            secrets,
            origins: Arc::new(OriginPolicy::new(&config.cors_origins)),
            static_dir: config.static_dir.clone(),
            metrics,
            header_timeout: config.header_timeout,
            body_timeout: config.body_timeout,
            connections: config.connections,
            watches,
        })
    }
}

/// Which browser origins may call the grantor.
#[derive(Debug)]
enum OriginPolicy {
    Any,
    LocalDevelopment,
    Listed(Vec<HeaderValue>),
}

impl OriginPolicy {
    fn new(origins: &[String]) -> OriginPolicy {
        if origins.is_empty() {
            OriginPolicy::LocalDevelopment
        } else if origins.iter().any(|o| o == "*") {
            OriginPolicy::Any
        } else {
            // The binary checks each with `check_cors_origin`; one that a header cannot carry
            // would match nothing.
            OriginPolicy::Listed(
                origins
                    .iter()
                    .filter_map(|o| HeaderValue::from_str(o).ok())
                    .collect(),
            )
        }
    }

    fn allows(&self, origin: &HeaderValue) -> bool {
        match self {
            OriginPolicy::Any => true,
            OriginPolicy::Listed(list) => list.iter().any(|o| o == origin),
            OriginPolicy::LocalDevelopment => origin.to_str().is_ok_and(is_local_origin),
        }
    }
}

/// `http://localhost`, `http://127.0.0.1` or `http://[::1]`, with or without a port.
fn is_local_origin(origin: &str) -> bool {
    let Some(rest) = origin.strip_prefix("http://") else {
        return false;
    };
    ["localhost", "127.0.0.1", "[::1]"].iter().any(|host| {
        rest.strip_prefix(host).is_some_and(|port| {
            port.is_empty()
                || port.strip_prefix(':').is_some_and(|p| {
                    !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
                })
        })
    })
}

/// Refuses requests from browser pages of origins the policy does not allow. CORS alone only
/// hides the reply from such a page; the request would still take effect.
async fn check_origin(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match request.headers().get(ORIGIN) {
        Some(origin) if !state.origins.allows(origin) => ApiError::new(
            ErrorCode::OriginNotAllowed,
            "this browser origin may not call the grantor",
        )
        .into_response(),
        _ => next.run(request).await,
    }
}

/// Gives the request its body deadline: the body must arrive within the configured time of the
/// headers, which a slow client (or a slow-loris attack) trickling bytes cannot stretch.
async fn body_deadline(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let deadline = tokio::time::Instant::now() + state.body_timeout;
    request
        .extensions_mut()
        .insert(extract::BodyDeadline(deadline));
    next.run(request).await
}

/// The grantor's router: the `/v1` API, `/healthz`, `/metrics`, and the static folder if
/// configured.
///
/// Serve it as [`serve`] does, with the peer's `ConnectInfo<SocketAddr>` in every request's
/// extensions: without it, revoke without API keys is refused even from loopback.
pub fn app(state: AppState) -> Router {
    let policy = state.origins.clone();
    let cors = CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin, _| {
            policy.allows(origin)
        }))
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([CONTENT_TYPE, AUTHORIZATION])
        .max_age(Duration::from_secs(600));
    let api = Router::new()
        .route("/v1/grant", post(api::grant))
        .route("/v1/renew", post(api::renew))
        // The one route with a larger body limit: a batch of renewals needs it.
        .route(
            "/v1/renew/batch",
            post(batch::renew_batch).layer(DefaultBodyLimit::max(batch::MAX_BATCH_BODY_BYTES)),
        )
        .route("/v1/release", post(api::release))
        .route("/v1/status", get(api::status_get).post(api::status_post))
        .route("/v1/watch", get(api::watch_get).post(api::watch_post))
        .route("/v1/revoke", post(api::revoke))
        .route("/v1/fenced/write", post(api::fenced_write))
        .route("/v1/fenced/read", post(api::fenced_read))
        .route("/v1/queues/enqueue", post(api::enqueue))
        .route("/v1/queues/claim", post(api::claim))
        .route("/v1/queues/heartbeat", post(api::heartbeat))
        .route("/v1/queues/complete", post(api::complete))
        .route("/v1/queues/fail", post(api::fail))
        .route("/v1/queues/stats", post(api::queue_stats))
        .route("/v1/queues/item", post(api::item))
        .route("/v1/{*rest}", any(api::not_found))
        .route("/healthz", get(api::healthz))
        .route("/metrics", get(metrics::scrape))
        .method_not_allowed_fallback(api::method_not_allowed);
    let router = match &state.static_dir {
        Some(dir) => api
            .fallback_service(ServeDir::new(dir).not_found_service(api::not_found.into_service())),
        None => api.fallback(api::not_found),
    };
    router
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), body_deadline))
        .layer(middleware::from_fn_with_state(state.clone(), check_origin))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ))
        .layer(DefaultBodyLimit::max(extract::MAX_BODY_BYTES))
        .layer(cors)
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Serves the grantor (HTTP/1.1) on `listener` until `shutdown` completes, then lets in-flight
/// requests finish; records expired grants and claims in the background.
///
/// A connection that does not send a request's headers within the header timeout is closed, so
/// a client trickling bytes (or idling) cannot hold a connection for long; connections beyond the
/// caps of [`ConnectionLimits`] make room by closing ones that never completed a request, and a
/// reply its peer does not read closes its connection (see `connections.rs`).
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sweeper = tokio::spawn(sweep(state.clone()));
    let watches = state.watches.clone();
    let header_timeout = state.header_timeout;
    let registry = Arc::new(connections::Registry::new(state.connections));
    let router = app(state);
    let graceful = GracefulShutdown::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(connection) => connection,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it was accepted:
                    // keep serving the others, without spinning.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(admission) = registry.admit(peer.ip()) else {
            // Every connection in the way completed requests: this one is refused, by closing.
            tracing::debug!(%peer, "connection refused: connection limit reached");
            continue;
        };
        // Replies are small and latency matters more than packet count.
        let _ = stream.set_nodelay(true);
        let standing = admission.standing.clone();
        // HTTP/1 answers a connection's requests one at a time, in order, so the response seen
        // next is the reply to the request seen last.
        let api_request = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let api_response = api_request.clone();
        let service = router
            .clone()
            .map_request(move |mut request: Request<hyper::body::Incoming>| {
                let api = request.uri().path().starts_with("/v1/");
                api_request.store(api, std::sync::atomic::Ordering::Relaxed);
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            })
            .map_response(move |response: Response| {
                let api = api_response.load(std::sync::atomic::Ordering::Relaxed);
                if api && response.status().is_success() {
                    standing.prove();
                }
                response
            });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout);
        let stream = connections::StallLimited::new(stream, &admission);
        let connection = graceful.watch(
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)),
        );
        tokio::spawn(async move {
            let mut admission = admission;
            tokio::select! {
                ended = connection => if let Err(e) = ended {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                },
                // Dropping the connection closes its socket.
                _ = &mut admission.closed => {
                    tracing::debug!(%peer, "connection closed to make room for another");
                }
            }
        });
    }
    drop(listener);
    // Open watches answer now, with the state as it is, rather than hold the shutdown up.
    watches.close();
    graceful.shutdown().await;
    sweeper.abort();
    Ok(())
}

/// Records ran-out grants as expired and ran-out claims as ended, so a restart holds only grants
/// and claims that may still be live.
async fn sweep(state: AppState) {
    let mut tick = tokio::time::interval(SWEEP_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match state.backend.sweep().await {
            Ok((0, 0)) => {}
            Ok((grants, claims)) => {
                tracing::debug!(grants, claims, "recorded expired grants and claims")
            }
            Err(e) => tracing::warn!(error = %e, "recording expired grants failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_origins_are_recognised() {
        for ok in [
            "http://localhost",
            "http://localhost:5173",
            "http://127.0.0.1:8080",
            "http://[::1]:3000",
        ] {
            assert!(is_local_origin(ok), "{ok}");
        }
        for bad in [
            "https://localhost",
            "http://localhost.evil.example",
            "http://localhost:",
            "http://localhost:80a",
            "http://127.0.0.1.evil.example:80",
            "null",
        ] {
            assert!(!is_local_origin(bad), "{bad}");
        }
    }
}
