//! The reference tenure grantor: the `/v1` lease protocol (see `docs/protocol.md`) over HTTP,
//! with fencing tokens that only ever increase and grants that survive restarts, in SQLite (one
//! grantor process) or PostgreSQL (any number of grantor processes sharing the database).
//!
//! [`app`] builds the router, so the grantor can run inside another process (the tests do);
//! [`serve`] runs it on a listener the way the `tenure-grantor` binary does.
#![warn(missing_docs)]

mod api;
mod backend;
mod error;
mod extract;
mod metrics;
mod postgres;
mod queues;
mod replay;
mod store;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::handler::HandlerWithoutStateExt;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, ORIGIN};
use axum::http::{HeaderValue, Method};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use tenure::protocol::ErrorCode;
use tokio::net::TcpListener;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::services::ServeDir;
use tower_http::trace::TraceLayer;

use crate::backend::Backend;
pub use crate::error::ApiError;
pub use crate::postgres::PgStore;
pub use crate::queues::DEFAULT_MAX_ATTEMPTS;
pub use crate::store::{DurationLimits, Store, StoreError};

/// How often grants that ran out are recorded as expired on disk.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

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
    /// The key `POST /v1/revoke` requires; without one, only loopback peers may revoke.
    pub admin_key: Option<String>,
    /// Browser origins allowed to call the grantor. Empty means the development default: any
    /// port of `http://localhost`, `http://127.0.0.1` and `http://[::1]`. `*` allows any origin.
    pub cors_origins: Vec<String>,
    /// A folder served at `/` as static files, for a page that talks to this grantor.
    pub static_dir: Option<PathBuf>,
}

/// The shared state of a running grantor.
#[derive(Clone)]
pub struct AppState {
    backend: Backend,
    admin_key: Option<Arc<str>>,
    origins: Arc<OriginPolicy>,
    static_dir: Option<PathBuf>,
    metrics: Arc<metrics::Metrics>,
}

impl AppState {
    /// Opens the storage: for SQLite, loads the held grants; for PostgreSQL, connects and
    /// creates the tables if they are missing.
    pub async fn open(config: &Config) -> Result<AppState, StoreError> {
        let backend = match &config.storage {
            Storage::Sqlite(path) => {
                let store =
                    Store::open(path, config.durations)?.with_max_attempts(config.max_attempts);
                tracing::info!(
                    db = %path.display(),
                    held = store.held_count(),
                    "database opened; grants held before the restart are held for their full duration"
                );
                Backend::Sqlite(Arc::new(Mutex::new(store)))
            }
            Storage::Postgres(pg) => {
                let store = PgStore::open(pg, config.durations, config.max_attempts).await?;
                tracing::info!(
                    db = %postgres::describe(pg),
                    "database opened; expiry is judged on the database server's clock"
                );
                Backend::Postgres(store)
            }
        };
        Ok(AppState {
            backend,
            admin_key: config.admin_key.as_deref().map(Arc::from),
            origins: Arc::new(OriginPolicy::new(&config.cors_origins)),
            static_dir: config.static_dir.clone(),
            metrics: Arc::default(),
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
            OriginPolicy::Listed(
                origins
                    .iter()
                    .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok())
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

/// The grantor's router: the `/v1` API, `/healthz`, `/metrics`, and the static folder if
/// configured.
///
/// Serve it with `into_make_service_with_connect_info::<SocketAddr>()`, as [`serve`] does:
/// without the peer address, revoke without an admin key is refused even from loopback.
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
        .route("/v1/renew/batch", post(api::renew_batch))
        .route("/v1/release", post(api::release))
        .route("/v1/status", get(api::status_get).post(api::status_post))
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

/// Serves the grantor on `listener` until `shutdown` completes, recording expired grants and
/// claims in the background.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sweeper = tokio::spawn(sweep(state.clone()));
    let result = axum::serve(
        listener,
        app(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await;
    sweeper.abort();
    result
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
