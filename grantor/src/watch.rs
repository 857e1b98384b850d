//! `GET /v1/watch` and `POST /v1/watch`: long polls on a resource's version
//! ([`tenure::protocol::watch_version`]).
//!
//! A watch reads the resource's state; when its version is the one the watcher already saw, it
//! waits for a signal and reads again, until the version moved, the wait ran out, or the grantor
//! is shutting down. Nothing is stored per watch: the version derives from the token counter,
//! and a signal only says "read again", so a spurious or duplicated one costs a read, and one
//! that is lost costs at most the rest of the wait, never a wrong reply.
//!
//! Signals:
//! - **In this process**: the handlers signal a resource's watchers after every grant, release
//!   (a handoff is one) and revocation they committed ([`Registry::changed`]).
//! - **From other grantor processes on one PostgreSQL database**: every such change sends
//!   `pg_notify` in its own transaction (delivered on commit), and each process keeps one
//!   `LISTEN` connection that signals its watchers (`postgres::listen`). When that connection
//!   drops, and again once it listens anew, every watcher is woken to read again
//!   ([`Registry::wake_all`]): whatever changed meanwhile is seen then.
//! - **Expiry**: nothing signals it, so a watch whose state has a live grant also reads again
//!   the moment that grant's expiry has passed (it may have been renewed meanwhile, which is no
//!   change: then it keeps waiting).
//!
//! Cost: at most [`crate::Config::max_watches`] watches are open at once (past that, `429
//! rate_limited` with `Retry-After`), each waits at most `WATCH_MAX_WAIT_MS`, and a watch whose
//! client hangs up is dropped with its connection, which frees its place.

use std::collections::HashMap;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::http::header::RETRY_AFTER;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use axum::Json;
use tenure::protocol::{ErrorCode, WatchRequest};
use tenure::rules::{self, WatchStep};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::AppState;

/// The default for [`crate::Config::max_watches`]: a quarter of the default connection limit, as
/// each open watch holds a connection, so watchers cannot crowd out the holders.
pub const DEFAULT_MAX_WATCHES: usize = 1024;

/// What a watch refused at the limit is asked to wait before trying again, in seconds.
const RETRY_AFTER_S: u32 = 1;

/// Who waits for which resource, and the signals that wake them.
#[derive(Default)]
pub(crate) struct Registry {
    by_resource: Mutex<HashMap<String, Arc<Notify>>>,
    /// Wakes every watcher: the `LISTEN` connection dropped or came back, or shutdown began.
    everyone: Notify,
}

impl Registry {
    fn map(&self) -> MutexGuard<'_, HashMap<String, Arc<Notify>>> {
        // Every update leaves the map consistent, so a panic elsewhere cannot corrupt it.
        self.by_resource
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes the watchers of `resource`: something about it changed and was committed.
    pub(crate) fn changed(&self, resource: &str) {
        if let Some(notify) = self.map().get(resource) {
            notify.notify_waiters();
        }
    }

    /// Wakes every watcher, to read again: a change may have gone unsignalled.
    pub(crate) fn wake_all(&self) {
        self.everyone.notify_waiters();
    }

    /// Starts listening for signals about `resource`.
    fn subscribe(self: &Arc<Self>, resource: &str) -> Subscription {
        let notify = self.map().entry(resource.to_owned()).or_default().clone();
        Subscription {
            registry: self.clone(),
            resource: resource.to_owned(),
            notify,
        }
    }

    /// How many resources have watchers (for tests of the registry's clean-up).
    #[cfg(test)]
    fn watched(&self) -> usize {
        self.map().len()
    }
}

/// A watcher's interest in one resource; the registry forgets the resource once nobody watches.
struct Subscription {
    registry: Arc<Registry>,
    resource: String,
    /// Shared with the registry's entry and the resource's other subscriptions, and with
    /// nothing else: so the count of its holders says how many subscriptions there are.
    notify: Arc<Notify>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut map = self.registry.map();
        // Subscriptions are made and dropped under the lock, so the count is exact here: the
        // registry's and this one's, when this is the last.
        if Arc::strong_count(&self.notify) == 2 {
            map.remove(&self.resource);
        }
    }
}

/// The open watches of a grantor process.
pub(crate) struct Watches {
    pub(crate) registry: Arc<Registry>,
    open: AtomicUsize,
    max: usize,
    closing: AtomicBool,
    metrics: Arc<Metrics>,
    /// The PostgreSQL `LISTEN` task, stopped when the grantor's state is dropped.
    listener: Mutex<Option<tokio::task::AbortHandle>>,
}

impl Watches {
    pub(crate) fn new(max: usize, metrics: Arc<Metrics>) -> Watches {
        Watches {
            registry: Arc::default(),
            open: AtomicUsize::new(0),
            max,
            closing: AtomicBool::new(false),
            metrics,
            listener: Mutex::new(None),
        }
    }

    /// Ties the `LISTEN` task's life to this grantor's.
    pub(crate) fn set_listener(&self, task: tokio::task::AbortHandle) {
        *self.listener.lock().unwrap_or_else(PoisonError::into_inner) = Some(task);
    }

    /// Ends every open watch with the state as it is: the grantor is shutting down, and a watch
    /// must not keep it waiting for up to `WATCH_MAX_WAIT_MS`.
    pub(crate) fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        self.registry.wake_all();
    }

    /// A place among the open watches, or `None` at the limit.
    fn admit(self: &Arc<Self>) -> Option<Slot> {
        let before = self.open.fetch_add(1, Ordering::SeqCst);
        if before >= self.max {
            self.open.fetch_sub(1, Ordering::SeqCst);
            self.metrics.watch_refused();
            return None;
        }
        self.metrics.watch_opened();
        Some(Slot {
            watches: self.clone(),
        })
    }
}

impl Drop for Watches {
    fn drop(&mut self) {
        if let Some(task) = self
            .listener
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            task.abort();
        }
    }
}

/// An open watch's place, given back when the watch ends, however it ends (answered, failed, or
/// dropped because its client hung up).
struct Slot {
    watches: Arc<Watches>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.watches.open.fetch_sub(1, Ordering::SeqCst);
        self.watches.metrics.watch_closed();
    }
}

/// The reply to a watch over the limit: `429 rate_limited`, `Retry-After: 1`.
fn too_many(max: usize) -> Response {
    let mut response = ApiError::new(
        ErrorCode::RateLimited,
        format!(
            "this grantor has {max} watches open, its limit; retry in {RETRY_AFTER_S} s, or \
             ask the status instead"
        ),
    )
    .into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(RETRY_AFTER_S));
    response
}

/// Answers `req` (already validated, its resource checked against the caller's namespaces):
/// at once when the version is not `after`, else once it moves, the wait runs out or the
/// grantor shuts down.
pub(crate) async fn watch(state: AppState, req: WatchRequest) -> Result<Response, ApiError> {
    let watches = state.watches.clone();
    let Some(_slot) = watches.admit() else {
        return Ok(too_many(watches.max));
    };
    let deadline = Instant::now() + rules::watch_wait(req.wait_ms);
    let subscription = watches.registry.subscribe(&req.resource);
    loop {
        // Listening starts before the read, so a change committed after the read is signalled
        // to this watch even before it waits.
        let mut changed = pin!(subscription.notify.notified());
        let mut everyone = pin!(watches.registry.everyone.notified());
        changed.as_mut().enable();
        everyone.as_mut().enable();
        let reply = state.backend.watch(req.resource.clone()).await?;
        let recheck = match rules::watch_step(req.after, &reply) {
            WatchStep::Answer => return Ok(Json(reply).into_response()),
            WatchStep::Wait { recheck } => recheck,
        };
        let now = Instant::now();
        if now >= deadline || watches.closing.load(Ordering::SeqCst) {
            return Ok(Json(reply).into_response());
        }
        let until = recheck.map_or(deadline, |after| (now + after).min(deadline));
        tokio::select! {
            () = changed => {}
            () = everyone => {}
            () = tokio::time::sleep_until(until) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_forgets_a_resource_nobody_watches() {
        let registry = Arc::new(Registry::default());
        let first = registry.subscribe("r");
        let second = registry.subscribe("r");
        let other = registry.subscribe("s");
        assert_eq!(registry.watched(), 2);
        drop(first);
        assert_eq!(registry.watched(), 2);
        drop(second);
        assert_eq!(registry.watched(), 1);
        drop(other);
        assert_eq!(registry.watched(), 0);
    }

    #[tokio::test]
    async fn a_change_wakes_only_that_resources_watchers() {
        let registry = Arc::new(Registry::default());
        let r = registry.subscribe("r");
        let s = registry.subscribe("s");
        let mut woken = pin!(r.notify.notified());
        let mut asleep = pin!(s.notify.notified());
        woken.as_mut().enable();
        asleep.as_mut().enable();
        registry.changed("r");
        registry.changed("nobody");
        let quick = std::time::Duration::from_millis(50);
        assert!(tokio::time::timeout(quick, woken).await.is_ok());
        assert!(tokio::time::timeout(quick, asleep.as_mut()).await.is_err());
        let mut all = pin!(registry.everyone.notified());
        all.as_mut().enable();
        registry.wake_all();
        assert!(tokio::time::timeout(quick, all).await.is_ok());
    }

    #[test]
    fn watches_past_the_limit_are_refused_until_one_ends() {
        let watches = Arc::new(Watches::new(2, Arc::default()));
        let first = watches.admit().unwrap();
        let _second = watches.admit().unwrap();
        assert!(watches.admit().is_none());
        drop(first);
        assert!(watches.admit().is_some());
    }
}
