//! The watch signals between grantor processes sharing a database: every grant, release and
//! revocation sends `pg_notify('tenure_watch', resource)` in its own transaction, and each
//! grantor process keeps one connection that `LISTEN`s on that channel and signals its own
//! watchers (`crate::watch`).
//!
//! A notification is only a hint to read again, so losing some is safe as long as the watchers
//! read again afterwards: when the connection drops, every watcher is woken (and reads), and once
//! a new connection listens, every watcher is woken again, so a change made while nobody listened
//! is seen then rather than at the end of the wait.

use std::future::poll_fn;
use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::{AsyncMessage, NoTls};

use crate::records::StoreError;
use crate::watch::Registry;

/// Announces a change to resource `$1` on the channel [`LISTEN`] listens to; delivered when the
/// transaction that sent it commits, never if it rolls back.
pub(super) const NOTIFY: &str = "SELECT pg_notify('tenure_watch', $1)";

/// Listens to the channel [`NOTIFY`] announces on.
const LISTEN: &str = "LISTEN tenure_watch";

/// The first wait before connecting again after the connection failed or dropped; it doubles
/// after each failure up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);

/// The longest wait between two attempts to connect.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// How long the connection may be silent before the operating system probes it: a connection to
/// a server that vanished without closing it is noticed within about this long (and watchers
/// fall back to their wait bound meanwhile).
const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);

/// The `LISTEN` connection's settings: the store's, named so an operator can tell it apart, with
/// keepalives that notice a vanished server.
pub(crate) fn config(store: &tokio_postgres::Config) -> tokio_postgres::Config {
    let mut config = store.clone();
    config
        .application_name("tenure-grantor-watch")
        .keepalives(true)
        .keepalives_idle(KEEPALIVE_IDLE);
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(5));
    }
    config
}

/// Listens for changes made by every grantor process on the database and signals `registry`'s
/// watchers, reconnecting with backoff whenever the connection fails; runs until aborted.
pub(crate) async fn listen(config: Arc<tokio_postgres::Config>, registry: Arc<Registry>) {
    // Halved before the first wait, so a first failure waits FIRST_BACKOFF.
    let mut backoff = FIRST_BACKOFF / 2;
    loop {
        match listen_once(&config, &registry).await {
            // It listened, then dropped: the server was there a moment ago.
            Ok(()) => backoff = FIRST_BACKOFF / 2,
            Err(e) => {
                tracing::warn!(error = %e, "watch signals: cannot listen; retrying");
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
        tokio::time::sleep(backoff).await;
    }
}

/// Connects, listens, and signals watchers until the connection ends; `Ok` once it listened.
async fn listen_once(
    config: &tokio_postgres::Config,
    registry: &Registry,
) -> Result<(), StoreError> {
    let (client, mut connection) = config.connect(NoTls).await?;
    // The connection only makes progress while polled, so the LISTEN is sent while its messages
    // are read.
    {
        let listening = client.batch_execute(LISTEN);
        let mut listening = std::pin::pin!(listening);
        loop {
            tokio::select! {
                done = &mut listening => {
                    done?;
                    break;
                }
                next = poll_fn(|cx| connection.poll_message(cx)) => match next {
                    Some(Ok(AsyncMessage::Notification(n))) => registry.changed(n.payload()),
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(e.into()),
                    None => {
                        return Err(StoreError::Unavailable(
                            "the connection closed before it listened".into(),
                        ))
                    }
                },
            }
        }
    }
    tracing::debug!("watch signals: listening");
    // Whatever changed while nobody listened (or before this process listened at all).
    registry.wake_all();
    let ended = loop {
        match poll_fn(|cx| connection.poll_message(cx)).await {
            Some(Ok(AsyncMessage::Notification(n))) => registry.changed(n.payload()),
            Some(Ok(_)) => {}
            Some(Err(e)) => break e.to_string(),
            None => break "closed".to_owned(),
        }
    };
    tracing::warn!(error = %ended, "watch signals: the LISTEN connection ended; reconnecting");
    drop(client);
    // Changes from now until the next LISTEN would go unsignalled: every watcher reads now, and
    // again once the next connection listens.
    registry.wake_all();
    Ok(())
}
