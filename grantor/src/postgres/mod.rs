//! Lease state in PostgreSQL, shared by any number of grantor processes.
//!
//! The SQLite store keeps expiry on one process's monotonic clock. Several processes have no
//! common monotonic clock, so here the single time authority is the database server: every
//! grant stores `expires_at`, a `timestamptz` computed from the server's `clock_timestamp()`,
//! and every "has it run out?" compares with that same clock. No grantor process's clock is
//! ever consulted, and a grantor process restarting or dying changes nothing: the database
//! holds the whole state.
//!
//! Concurrency: every operation runs in one READ COMMITTED transaction that locks the row it
//! decides about (`SELECT … FOR UPDATE` first; for claims `FOR UPDATE SKIP LOCKED`; for fenced
//! writes the design's `UPDATE` itself), so two grantor processes deciding about the same
//! resource or item run one after the other, and the second sees the first's committed result. Serialization failures and deadlocks (neither
//! expected with one row lock per transaction, but PostgreSQL may report them) are retried a few
//! times with a fresh transaction.
//!
//! Time: the design's SQL uses `CURRENT_TIMESTAMP`, which is the start of the *transaction*.
//! A transaction that waited for a row lock would then judge expiry, and start a new expiry,
//! from a moment before the previous holder of the lock committed; a renewal committed after
//! a newer one could so end the lease earlier than a reply already promised. Instead each
//! transaction reads `clock_timestamp()` once, in a statement issued after its row lock is
//! held, and uses that instant for every comparison and every new expiry.

mod groups;
mod listen;
mod queues;

pub(crate) use self::listen::listen;
use self::listen::NOTIFY;

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, SystemTime};

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime,
};
use tenure::protocol::{
    FencedReadReply, FencedWriteReply, GrantReply, GrantRequest, ReleaseReply, ReleaseRequest,
    RenewReply, RenewRequest, StatusReply, Token, WatchReply,
};
use tokio_postgres::config::Host;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{NoTls, Row};

use self::groups::RenewalGroups;
use tenure::requests::{grant_fingerprint, renew_fingerprint};
use tenure::rules::{self, Ending, GrantDecision, Handoff, LeaseState, LiveGrant, Recorded};

use crate::records::{
    from_i64, serialising, to_i64, to_json, token, DurationLimits, StoreError,
    OUTCOMES_KEPT_PER_RESOURCE,
};
use crate::secrets::{self, LeaseProof, Secrets, SERVER_KEY_LEN};

/// The schema version this build writes: 2 keeps a released resource for the holder it was
/// handed to, which a grantor of version 1 would ignore.
const SCHEMA_VERSION: i32 = 2;

/// The advisory lock that serialises schema creation, so grantors starting together do not
/// race on `CREATE TABLE IF NOT EXISTS` (which is not safe against itself). "tenure" in ASCII.
const SCHEMA_LOCK_KEY: i64 = 0x7465_6e75_7265;

/// Connections per grantor process. Each request holds one for its transaction's round trips
/// and commit, so this many requests proceed at once while the rest queue for a connection.
///
/// More connections let more commits share one WAL flush (PostgreSQL group-commits concurrent
/// commits), but each is a server backend competing for the database's cores: with 64 clients on
/// a 2-core machine, 64 connections renewed no faster than 16 (1,345/s against 1,758/s). 16 also
/// leaves room under PostgreSQL's default 100 connections for several grantor processes.
const POOL_SIZE: usize = 16;

/// How long a request waits for a pooled connection, or for a new one, before failing with
/// `storage_unavailable`.
const POOL_TIMEOUT: Duration = Duration::from_secs(5);

/// How many times one operation is tried when PostgreSQL reports a serialization failure or a
/// deadlock.
const MAX_TRANSACTION_ATTEMPTS: u32 = 5;

/// Session settings for every connection. A grantor process that stops in the middle of a
/// transaction (paused, or cut off) would otherwise keep its row locks, and so every other
/// grantor from deciding about that resource, for as long as its connection lived; the
/// timeouts bound that, and a request stuck behind a lock fails with `storage_unavailable`,
/// which holders retry, instead of hanging.
const SESSION_OPTIONS: &str = "-c lock_timeout=5s -c statement_timeout=10s \
                               -c idle_in_transaction_session_timeout=15s";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS lease_registry (
    resource       TEXT PRIMARY KEY,
    -- The per-resource counter: the token of the latest grant, 0 before the first. Only ever
    -- incremented; the named constraint is how a grant past 2^53 - 1 is recognised.
    token          BIGINT NOT NULL DEFAULT 0
                   CONSTRAINT lease_token_range CHECK (token BETWEEN 0 AND 9007199254740991),
    -- Who received the grant with `token`; kept after it ends, so late renewals get a reason.
    holder_id      TEXT,
    -- The duration of the latest grant or renewal, in ms.
    duration_ms    BIGINT,
    -- 'held' from the first grant on, until released or revoked. Whether a held grant is live
    -- is `expires_at >= now` on the database clock: running out needs no write.
    state          TEXT NOT NULL DEFAULT 'free'
                   CHECK (state IN ('free', 'held', 'released', 'revoked')),
    granted_at     TIMESTAMPTZ,
    -- When the latest grant runs out, by the database server's clock; NULL when none can be
    -- live (never granted, released, revoked).
    expires_at     TIMESTAMPTZ,
    -- The latest revoked grant, so its holder learns `revoked` even after a newer grant.
    revoked_token  BIGINT,
    revoked_holder TEXT
);

-- The latest renewal's outcome, for answering a retry of it on any grantor process:
-- JSON {holder, requestId, request, reply}. Written by the renewal's own UPDATE, so recording it
-- costs no statement of its own (renewal outcomes are not kept in lease_outcomes).
ALTER TABLE lease_registry ADD COLUMN IF NOT EXISTS last_renewal TEXT;

-- Version 2: the holder a release handed the resource to, and when the grantor stops keeping it
-- for that holder alone (database clock). Cleared by the next grant.
ALTER TABLE lease_registry ADD COLUMN IF NOT EXISTS handed_to TEXT;
ALTER TABLE lease_registry ADD COLUMN IF NOT EXISTS handoff_until TIMESTAMPTZ;

CREATE TABLE IF NOT EXISTS lease_outcomes (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    resource   TEXT NOT NULL,
    holder     TEXT NOT NULL,
    request_id TEXT NOT NULL,
    -- The request as first received, to tell a true retry from a reused id.
    request    TEXT NOT NULL,
    reply      TEXT NOT NULL,
    UNIQUE (resource, holder, request_id)
);

CREATE INDEX IF NOT EXISTS lease_outcomes_by_resource ON lease_outcomes (resource, seq);

CREATE TABLE IF NOT EXISTS protected_state (
    resource   TEXT PRIMARY KEY,
    -- JSON text exactly as accepted.
    payload    TEXT NOT NULL,
    last_token BIGINT NOT NULL CHECK (last_token BETWEEN 0 AND 9007199254740991)
);

-- 256 random bits, generated by the first grantor to start: every lease and claim secret is
-- derived from them, so every grantor process sharing the database derives the same ones.
CREATE TABLE IF NOT EXISTS tenure_server_key (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    key       BYTEA NOT NULL CHECK (octet_length(key) = 32)
);
";

/// The lease grant, once `tenure::rules::grant` decided it under the row lock: the design's
/// statement without its condition (the rules decide who may be granted; the row lock makes the
/// decision stand), with the time `$4`, the database clock read after the row lock rather than
/// `CURRENT_TIMESTAMP`, and the expiry `$5` ms from then: the duration granted, or longer when a
/// holder re-grants its own live lease, which never gets an earlier expiry than it was promised.
const GRANT: &str = "
UPDATE lease_registry
SET holder_id   = $2,
    token       = token + 1,
    state       = 'held',
    duration_ms = $3::bigint,
    granted_at  = $4::timestamptz,
    expires_at  = $4::timestamptz + $5::bigint * INTERVAL '1 millisecond',
    handed_to   = NULL,
    handoff_until = NULL
WHERE resource = $1
RETURNING token";

/// The design's fenced write, as written.
const FENCED_UPDATE: &str = "
UPDATE protected_state
SET payload    = $2,
    last_token = $3::bigint
WHERE resource = $1
  AND last_token <= $3::bigint
RETURNING last_token";

/// A future that runs inside one transaction.
type TxFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> StoreError {
        let exhausted = e.as_db_error().is_some_and(|db| {
            *db.code() == SqlState::CHECK_VIOLATION && db.constraint() == Some("lease_token_range")
        });
        if exhausted {
            StoreError::TokenExhausted
        } else {
            StoreError::Postgres(Arc::new(e))
        }
    }
}

impl From<PoolError> for StoreError {
    fn from(e: PoolError) -> StoreError {
        match e {
            PoolError::Backend(e) => StoreError::Postgres(Arc::new(e)),
            other => StoreError::Unavailable(other.to_string()),
        }
    }
}

/// A serialization failure or deadlock: the transaction had no effect and can simply run again.
fn is_retryable(e: &StoreError) -> bool {
    matches!(e, StoreError::Postgres(e) if e.code().is_some_and(|code| {
        *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::T_R_DEADLOCK_DETECTED
    }))
}

/// Where `config` points, for logs and errors: hosts, ports and database, never the password.
pub fn describe(config: &tokio_postgres::Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            Host::Tcp(name) => name.clone(),
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let ports: Vec<String> = config.get_ports().iter().map(u16::to_string).collect();
    format!(
        "postgres {} port {} database {}",
        if hosts.is_empty() {
            "localhost".to_owned()
        } else {
            hosts.join(",")
        },
        if ports.is_empty() {
            "5432".to_owned()
        } else {
            ports.join(",")
        },
        config
            .get_dbname()
            .or(config.get_user())
            .unwrap_or("(default)")
    )
}

/// The latest grant of one resource, as `lease_registry` records it.
struct LeaseRow {
    token: u64,
    holder: Option<String>,
    state: LeaseState,
    expires_at: Option<SystemTime>,
    revoked_token: Option<u64>,
    revoked_holder: Option<String>,
    /// The latest successful renewal, as JSON [`LatestRenewal`].
    last_renewal: Option<String>,
    /// The duration of the latest grant or renewal, in ms.
    duration_ms: Option<u64>,
    /// The holder a release handed the resource to, and when that preference ends.
    handoff: Option<(String, SystemTime)>,
}

/// The latest successful renewal of a lease, kept in its row for answering a retry of it: a
/// retry of an older renewal, or of a refused one, is judged afresh, which is safe (see
/// `docs/protocol.md`, Idempotency).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct LatestRenewal {
    holder: String,
    request_id: String,
    /// The request as first received, to tell a true retry from a reused id.
    request: String,
    /// The reply, as JSON.
    reply: String,
}

impl LeaseRow {
    const COLUMNS: &'static str = "token, holder_id, state, expires_at, revoked_token, \
         revoked_holder, last_renewal, duration_ms, handed_to, handoff_until";

    /// How many columns [`LeaseRow::COLUMNS`] names: a statement's next column is at this index.
    const WIDTH: usize = 10;

    fn read(row: &Row) -> Result<LeaseRow, StoreError> {
        Ok(LeaseRow {
            token: from_i64(row.try_get(0)?)?,
            holder: row.try_get(1)?,
            state: {
                let state: String = row.try_get(2)?;
                LeaseState::parse(&state)
                    .ok_or_else(|| StoreError::Corrupt(format!("lease state {state}")))?
            },
            expires_at: row.try_get(3)?,
            revoked_token: row
                .try_get::<_, Option<i64>>(4)?
                .map(from_i64)
                .transpose()?,
            revoked_holder: row.try_get(5)?,
            last_renewal: row.try_get(6)?,
            duration_ms: row
                .try_get::<_, Option<i64>>(7)?
                .map(from_i64)
                .transpose()?,
            handoff: row
                .try_get::<_, Option<String>>(8)?
                .zip(row.try_get::<_, Option<SystemTime>>(9)?),
        })
    }

    /// The handoff preference, if it still lasts at `now`.
    fn handoff(&self, now: SystemTime) -> Option<Handoff<'_>> {
        let (to, until) = self.handoff.as_ref()?;
        Some(Handoff {
            to,
            remaining: rules::time_left(*until, now)?,
        })
    }

    /// How long the grant has left at `now`, if it is held and live ([`rules::time_left`]: at
    /// `expires_at` itself it is still live, as in the design, where `expires_at < now` is run
    /// out).
    fn live_for(&self, now: SystemTime) -> Option<Duration> {
        let until = self.expires_at.filter(|_| self.state == LeaseState::Held)?;
        rules::time_left(until, now)
    }

    /// The row as the rules read it.
    fn recorded(&self) -> Recorded<'_> {
        Recorded {
            token: self.token,
            holder: self.holder.as_deref(),
            state: self.state,
            revoked_token: self.revoked_token,
            revoked_holder: self.revoked_holder.as_deref(),
        }
    }

    /// This grant, if it is live at `now`.
    fn live_grant(&self, now: SystemTime) -> Option<LiveGrant<'_>> {
        self.recorded().live(self.live_for(now))
    }
}

/// The lease, fencing and queue state of every resource, in PostgreSQL.
#[derive(Clone)]
pub struct PgStore {
    pool: Pool,
    limits: DurationLimits,
    /// How many claims an item gets when its enqueue names no limit.
    default_max_attempts: u32,
    /// Derives and checks lease and claim secrets, from the key kept in the database.
    secrets: Secrets,
    /// Where single renewals are grouped; `None` in the group runners' own handle, which renews
    /// whole groups.
    renewal_groups: Option<RenewalGroups>,
    /// The clock the lease decisions read instead of the database's, if any
    /// ([`PgStore::with_clock`]).
    clock: Option<WallClock>,
    /// Where the watch signals' `LISTEN` connection connects ([`listen`]).
    listen_config: Arc<tokio_postgres::Config>,
}

/// A clock a test moves by hand, read instead of the database server's clock.
pub type WallClock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

impl PgStore {
    /// Connects to the database `config` names and creates the tables if they are missing.
    /// Any number of grantor processes may use the same database at once.
    pub async fn open(
        config: &tokio_postgres::Config,
        limits: DurationLimits,
        max_attempts: u32,
    ) -> Result<PgStore, StoreError> {
        let listen_config = Arc::new(listen::config(config));
        let mut config = config.clone();
        let options = match config.get_options() {
            Some(own) if !own.trim().is_empty() => format!("{own} {SESSION_OPTIONS}"),
            _ => SESSION_OPTIONS.to_owned(),
        };
        config.options(options);
        if config.get_application_name().is_none() {
            config.application_name("tenure-grantor");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(POOL_TIMEOUT);
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_TIMEOUT))
            .create_timeout(Some(POOL_TIMEOUT))
            .build()
            .map_err(|e| StoreError::Unavailable(e.to_string()))?;
        let key = create_schema(&pool).await?;
        let mut store = PgStore {
            pool,
            limits,
            default_max_attempts: max_attempts.max(1),
            secrets: Secrets::new(key),
            renewal_groups: None,
            clock: None,
            listen_config,
        };
        store.renewal_groups = Some(RenewalGroups::start(store.clone()));
        Ok(store)
    }

    /// Decides about leases by `clock` instead of the database server's clock, so that a test
    /// can reach an exact instant: every lease decision (grant, renewal, release, revocation,
    /// status) and every lease expiry written reads it. Claims still run on the database's
    /// clock, which their statements read themselves. Production never sets one.
    pub fn with_clock(mut self, clock: WallClock) -> PgStore {
        self.clock = Some(clock);
        // The group runners renew with their own handle, which must read the same clock; the
        // old runners stop once their handle is dropped here.
        self.renewal_groups = None;
        self.renewal_groups = Some(RenewalGroups::start(self.clone()));
        self
    }

    /// What lease and claim secrets are derived with.
    pub(crate) fn secrets(&self) -> Secrets {
        self.secrets.clone()
    }

    /// The secret of `resource`'s grant with `token`, as the grant's reply hands it to its
    /// holder.
    pub fn lease_secret(&self, resource: &str, token: u64) -> String {
        self.secrets.lease(resource, token)
    }

    /// Where the watch signals' `LISTEN` connection connects ([`listen`]).
    pub(crate) fn listen_config(&self) -> Arc<tokio_postgres::Config> {
        self.listen_config.clone()
    }

    async fn client(&self) -> Result<Object, StoreError> {
        Ok(self.pool.get().await?)
    }
}

/// Creates the tables if they are missing, and the server key if there is none; returns the key.
async fn create_schema(pool: &Pool) -> Result<[u8; SERVER_KEY_LEN], StoreError> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK_KEY])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS tenure_schema (
                 singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
                 version   INTEGER NOT NULL
             )",
    )
    .await?;
    let version: Option<i32> = tx
        .query_opt("SELECT version FROM tenure_schema", &[])
        .await?
        .map(|row| row.try_get(0))
        .transpose()?;
    if let Some(version) = version.filter(|v| *v > SCHEMA_VERSION) {
        return Err(StoreError::Corrupt(format!(
            "schema version {version} is newer than this grantor's {SCHEMA_VERSION}"
        )));
    }
    tx.batch_execute(SCHEMA).await?;
    tx.batch_execute(queues::SCHEMA).await?;
    tx.execute(
        "INSERT INTO tenure_schema (version) VALUES ($1)
             ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version",
        &[&SCHEMA_VERSION],
    )
    .await?;
    let fresh = secrets::new_server_key().map_err(StoreError::Corrupt)?;
    tx.execute(
        "INSERT INTO tenure_server_key (key) VALUES ($1) ON CONFLICT (singleton) DO NOTHING",
        &[&&fresh[..]],
    )
    .await?;
    let stored: Vec<u8> = tx
        .query_one("SELECT key FROM tenure_server_key", &[])
        .await?
        .try_get(0)?;
    tx.commit().await?;
    stored
        .try_into()
        .map_err(|_| StoreError::Corrupt("the server key is not 32 bytes".into()))
}

impl PgStore {
    /// Runs `op` in a READ COMMITTED transaction and commits it, running it again (a bounded
    /// number of times) after a serialization failure or deadlock. An error from `op` rolls the
    /// transaction back.
    async fn transact<T, F>(&self, mut op: F) -> Result<T, StoreError>
    where
        T: Send,
        F: for<'a> FnMut(&'a Tx) -> TxFuture<'a, T> + Send,
    {
        let mut attempt = 1;
        loop {
            let tx = Tx::new(self.client().await?, self.clock.clone());
            let result = match op(&tx).await {
                Ok(value) => tx.commit().await.map(|()| value),
                Err(e) => {
                    tx.rollback().await;
                    Err(e)
                }
            };
            drop(tx);
            match result {
                Err(e) if is_retryable(&e) && attempt < MAX_TRANSACTION_ATTEMPTS => {
                    tracing::debug!(attempt, error = %e, "transaction conflict; trying again");
                    // Step aside a little longer each time, so the conflicting transaction can
                    // finish before this one runs again.
                    tokio::time::sleep(Duration::from_millis(5 << attempt)).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.client().await?.execute("SELECT 1", &[]).await?;
        Ok(())
    }

    /// The design's grant: succeeds when the resource is free, expired, or held by the same
    /// holder, and then always increments the token.
    ///
    /// A holder re-granting its own live grant must present that grant's secret, or it is denied
    /// like any other holder.
    pub async fn grant(&self, req: &GrantRequest) -> Result<GrantReply, StoreError> {
        let request = grant_fingerprint(req).map_err(serialising)?;
        let proof = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret.clone());
        let duration_ms = self.limits.clamp(req.duration_ms);
        let reply = self
            .transact(|tx| {
                Box::pin(grant_in(
                    tx,
                    GrantRequest {
                        lease_secret: None,
                        ..req.clone()
                    },
                    proof.clone(),
                    request.clone(),
                    duration_ms,
                ))
            })
            .await?;
        if let Some(token) = reply.token {
            tracing::info!(
                resource = %req.resource,
                holder = %req.holder,
                token = token.get(),
                duration_ms,
                "granted"
            );
        }
        Ok(reply)
    }

    /// Renews a live grant to the full duration from now, keeping its token.
    ///
    /// Renewing a live grant needs its secret ([`StoreError::BadLeaseSecret`] otherwise). The
    /// renewal joins the next group of renewals ([`groups`]): one transaction and one commit for
    /// all that arrive together, each answered as if alone.
    pub async fn renew(&self, req: &RenewRequest) -> Result<RenewReply, StoreError> {
        match &self.renewal_groups {
            Some(groups) => groups.renew(req.clone()).await,
            // The group runners' own handle: a group of one.
            None => self
                .renew_batch(std::slice::from_ref(req))
                .await?
                .pop()
                .ok_or_else(|| StoreError::Corrupt("a renewal went unanswered".into()))?,
        }
    }

    /// Renews each of `reqs` as [`PgStore::renew`] would, in order, in one transaction (see
    /// [`renew_batch_in`]). An element's own error is its result; any other failure fails the
    /// batch, whose transaction then rolls back whole.
    pub async fn renew_batch(
        &self,
        reqs: &[RenewRequest],
    ) -> Result<Vec<Result<RenewReply, StoreError>>, StoreError> {
        let elements = reqs
            .iter()
            .map(|req| {
                Ok(BatchElement {
                    request: renew_fingerprint(req).map_err(serialising)?,
                    proven: self
                        .secrets
                        .lease_proof(&req.resource, req.lease_secret.clone())
                        .proves(req.token.get()),
                    duration_ms: self.limits.clamp(req.duration_ms),
                    req: RenewRequest {
                        lease_secret: None,
                        ..req.clone()
                    },
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let elements = Arc::new(elements);
        let results = self
            .transact(|tx| {
                let elements = Arc::clone(&elements);
                Box::pin(async move { renew_batch_in(tx, &elements).await })
            })
            .await?;
        for (req, result) in reqs.iter().zip(&results) {
            if let Ok(RenewReply {
                reason: Some(reason),
                ..
            }) = result
            {
                tracing::info!(
                    resource = %req.resource,
                    holder = %req.holder,
                    token = req.token.get(),
                    reason = reason.as_str(),
                    "renewal refused"
                );
            }
        }
        Ok(results)
    }

    /// Ends the grant identified by holder and token, if it is live.
    ///
    /// Releasing a live grant needs its secret ([`StoreError::BadLeaseSecret`] otherwise).
    pub async fn release(&self, req: &ReleaseRequest) -> Result<ReleaseReply, StoreError> {
        let proven = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret.clone())
            .proves(req.token.get());
        let released = self
            .transact(|tx| Box::pin(release_in(tx, req.clone(), proven)))
            .await?;
        if released {
            tracing::info!(
                resource = %req.resource,
                holder = %req.holder,
                token = req.token.get(),
                "released"
            );
        }
        Ok(ReleaseReply { released })
    }

    /// Ends the live grant of `resource` whoever holds it. Returns whether a live grant ended.
    /// The token counter is kept, so the next grant gets a larger token.
    pub async fn revoke(&self, resource: &str) -> Result<bool, StoreError> {
        let revoked = self
            .transact(|tx| Box::pin(revoke_in(tx, resource.to_owned())))
            .await?;
        if revoked {
            tracing::info!(resource, "revoked");
        }
        Ok(revoked)
    }

    /// Who holds `resource` now, by the database clock.
    pub async fn status(&self, resource: &str) -> Result<StatusReply, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {}, statement_timestamp() FROM lease_registry WHERE resource = $1",
                LeaseRow::COLUMNS
            ))
            .await?;
        let mut reply = StatusReply {
            resource: resource.to_owned(),
            holder: None,
            token: None,
            expires_in_ms: None,
        };
        if let Some(row) = client.query_opt(&statement, &[&resource]).await? {
            let lease = LeaseRow::read(&row)?;
            let now = self
                .clock
                .as_ref()
                .map_or_else(|| row.try_get(LeaseRow::WIDTH), |clock| Ok(clock()))?;
            if let Some(live) = lease.live_grant(now) {
                reply.token = Some(token(live.token)?);
                reply.holder = Some(live.holder.to_owned());
                reply.expires_in_ms = Some(rules::expires_in_ms(live.remaining));
            }
        }
        Ok(reply)
    }

    /// What a watch of `resource` reports now, by the database clock: its version, its live
    /// grant, and the holder it was handed to while that lasts.
    pub async fn watch(&self, resource: &str) -> Result<WatchReply, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(&format!(
                "SELECT {}, statement_timestamp() FROM lease_registry WHERE resource = $1",
                LeaseRow::COLUMNS
            ))
            .await?;
        let Some(row) = client.query_opt(&statement, &[&resource]).await? else {
            return Ok(rules::watch_reply(resource, 0, None, None)?);
        };
        let lease = LeaseRow::read(&row)?;
        let now = self
            .clock
            .as_ref()
            .map_or_else(|| row.try_get(LeaseRow::WIDTH), |clock| Ok(clock()))?;
        Ok(rules::watch_reply(
            resource,
            lease.token,
            lease.live_grant(now),
            lease.handoff(now),
        )?)
    }

    /// The design's fenced write: stores `payload` unless a larger token already wrote.
    ///
    /// A write that would be accepted needs the secret of the grant with `incoming`
    /// ([`StoreError::BadLeaseSecret`] otherwise, nothing written); one fenced out is answered
    /// as usual.
    pub async fn fenced_write(
        &self,
        resource: &str,
        payload: &str,
        incoming: Token,
        lease_secret: Option<&str>,
    ) -> Result<FencedWriteReply, StoreError> {
        let proven = self
            .secrets
            .lease_proof(resource, lease_secret.map(str::to_owned))
            .proves(incoming.get());
        if !proven {
            // No write happens, so no lock is needed: the answer is true of the moment read.
            let client = self.client().await?;
            let statement = client
                .prepare_cached("SELECT last_token FROM protected_state WHERE resource = $1")
                .await?;
            let last = client
                .query_opt(&statement, &[&resource])
                .await?
                .map(|row| row.try_get::<_, i64>(0))
                .transpose()?
                .map(from_i64)
                .transpose()?;
            return match last {
                Some(last) if last > incoming.get() => Ok(FencedWriteReply {
                    accepted: false,
                    last_token: token(last)?,
                }),
                _ => Err(StoreError::BadLeaseSecret),
            };
        }
        self.transact(|tx| {
            Box::pin(fenced_write_in(
                tx,
                resource.to_owned(),
                payload.to_owned(),
                incoming,
            ))
        })
        .await
    }

    /// The latest accepted payload (as JSON text) of `resource`.
    pub async fn fenced_read(&self, resource: &str) -> Result<FencedReadReply<String>, StoreError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached("SELECT payload, last_token FROM protected_state WHERE resource = $1")
            .await?;
        Ok(match client.query_opt(&statement, &[&resource]).await? {
            Some(row) => FencedReadReply {
                payload: Some(row.try_get(0)?),
                last_token: Some(token(from_i64(row.try_get(1)?)?)?),
            },
            None => FencedReadReply {
                payload: None,
                last_token: None,
            },
        })
    }
}

async fn grant_in(
    tx: &Tx,
    req: GrantRequest,
    proof: LeaseProof,
    request: String,
    duration_ms: u64,
) -> Result<GrantReply, StoreError> {
    let key = OutcomeKey::new(&req.resource, &req.holder, &req.request_id);
    let lock = lock_lease_sql();
    // The design updates an existing row; create it first, so the first grant has one to update
    // and every grant of this resource queues for the same row lock. The outcome is looked up
    // under the lock: a retry sent to another grantor process while the first attempt was in
    // flight waits for it there, and then replays its outcome.
    let [_, lease, stored, now] = take(
        tx.pipeline(
            &[
                (
                    "INSERT INTO lease_registry (resource) VALUES ($1)
                     ON CONFLICT (resource) DO NOTHING",
                    &[&req.resource],
                ),
                (&lock, &[&req.resource]),
                (
                    PREVIOUS_OUTCOME,
                    &[&key.resource, &key.holder, &key.request_id],
                ),
                (NOW, &[]),
            ],
            false,
        )
        .await?,
    )?;
    let lease = lease_from(&lease)?
        .ok_or_else(|| StoreError::Corrupt(format!("no lease row for {}", req.resource)))?;
    let now = tx.lease_now(&now)?;
    if let Some(stored) = outcome_from(&stored, &request)? {
        return Ok(rules::replayed_grant(
            stored,
            &req.holder,
            lease.live_grant(now),
        ));
    }
    let decision = rules::grant_handed(
        lease.token,
        lease.live_grant(now),
        lease.handoff(now),
        &req.holder,
        |token| proof.proves(token),
        duration_ms,
    )?;
    let reply = match decision {
        GrantDecision::Deny(reply) => reply,
        GrantDecision::Grant { kept_ms, reply, .. } => {
            // The row is locked: the token the rules numbered is the one the update writes.
            let [granted, _] = take(
                tx.pipeline(
                    &[
                        (
                            GRANT,
                            &[
                                &req.resource,
                                &req.holder,
                                &to_i64(duration_ms),
                                &now,
                                &to_i64(kept_ms),
                            ],
                        ),
                        (NOTIFY, &[&req.resource]),
                    ],
                    false,
                )
                .await?,
            )?;
            if granted.is_empty() {
                return Err(StoreError::Corrupt(format!(
                    "no lease row for {}",
                    req.resource
                )));
            }
            reply
        }
    };
    record_outcome(tx, &key, &request, reply).await
}

/// What a renewal decided, before anything is written.
enum RenewDecision {
    /// A retry: answer this, write nothing.
    Replay(RenewReply),
    /// A new request: record this outcome, and when it renews, extend the grant to its duration
    /// from `now`.
    Record(RenewReply),
}

/// The renewal rules, given the resource's row as locked (`lease`), the outcome stored for this
/// request's key if any, and the database clock read after the lock: each element of
/// [`renew_batch_in`].
fn decide_renewal(
    lease: Option<&LeaseRow>,
    stored: Option<RenewReply>,
    req: &RenewRequest,
    proven: bool,
    now: SystemTime,
    duration_ms: u64,
) -> Result<RenewDecision, StoreError> {
    if let Some(stored) = stored {
        let live = lease.and_then(|l| l.live_grant(now));
        return Ok(RenewDecision::Replay(rules::replayed_renewal(
            stored,
            &req.holder,
            live,
            proven,
        )?));
    }
    let live = lease.is_some_and(|l| l.live_for(now).is_some());
    let recorded = lease.map(LeaseRow::recorded);
    let reply = rules::renew(recorded, &req.holder, req.token, live, proven, duration_ms)?;
    Ok(RenewDecision::Record(reply))
}

/// One element of a batch of renewals, as the transaction needs it.
struct BatchElement {
    /// The request without its secret, as recorded.
    req: RenewRequest,
    /// The request's text for the idempotency record.
    request: String,
    /// Whether it presented the secret of the grant it names.
    proven: bool,
    /// The duration it would be granted, clamped.
    duration_ms: u64,
}

/// An idempotency key, owned.
type OwnedKey = (String, String, String);

fn owned_key(req: &RenewRequest) -> OwnedKey {
    (
        req.resource.clone(),
        req.holder.clone(),
        req.request_id.clone(),
    )
}

/// The stored reply to `request` under a key whose first request was `first`: a retry gets the
/// reply, a different request with the same key is refused.
fn stored_reply(first: &str, reply: &str, request: &str) -> Result<RenewReply, StoreError> {
    if first != request {
        return Err(StoreError::RequestIdReused);
    }
    serde_json::from_str(reply).map_err(|e| StoreError::Corrupt(format!("stored reply: {e}")))
}

/// Every renewal of a batch in one transaction, each judged by the renewal rules as if the
/// elements had been sent one by one, in order, at the instant the transaction read the
/// database clock.
///
/// The rows are locked first, all in one statement, in the order of their resource names, so two
/// batches that share resources lock them in the same order and never deadlock (a single request
/// locks one row, so it cannot close a cycle either). Then the rows and stored outcomes are read
/// once, the elements are decided in memory, and the renewals and outcomes are written with one
/// statement each: a handful of round trips however large the batch.
async fn renew_batch_in(
    tx: &Tx,
    elements: &[BatchElement],
) -> Result<Vec<Result<RenewReply, StoreError>>, StoreError> {
    let resources: Vec<&str> = elements
        .iter()
        .map(|e| e.req.resource.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let lock = format!(
        "SELECT {}, resource FROM lease_registry WHERE resource = ANY($1)
         ORDER BY resource FOR UPDATE",
        LeaseRow::COLUMNS
    );
    let columns = |pick: fn(&RenewRequest) -> &str| -> Vec<&str> {
        elements.iter().map(|e| pick(&e.req)).collect()
    };
    let (res, holders, ids) = (
        columns(|r| &r.resource),
        columns(|r| &r.holder),
        columns(|r| &r.request_id),
    );
    let [locked, outcomes, now] = take(
        tx.pipeline(
            &[
                (&lock, &[&resources]),
                (
                    "SELECT resource, holder, request_id, request, reply FROM lease_outcomes
                     WHERE (resource, holder, request_id) IN (
                         SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))",
                    &[&res, &holders, &ids],
                ),
                (NOW, &[]),
            ],
            false,
        )
        .await?,
    )?;
    let mut leases = HashMap::with_capacity(resources.len());
    for row in &locked {
        leases.insert(
            row.try_get::<_, String>(LeaseRow::WIDTH)?,
            LeaseRow::read(row)?,
        );
    }
    // Outcomes in the database are those of grants (an id reused for a renewal is refused) and
    // of renewals by grantors before this build; then what this process remembers.
    let mut stored: HashMap<OwnedKey, (String, String)> = HashMap::new();
    for row in &outcomes {
        stored.insert(
            (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?),
            (row.try_get(3)?, row.try_get(4)?),
        );
    }
    for (resource, lease) in &leases {
        if let Some(latest) = &lease.last_renewal {
            let latest: LatestRenewal = serde_json::from_str(latest)
                .map_err(|e| StoreError::Corrupt(format!("latest renewal of {resource}: {e}")))?;
            stored.insert(
                (resource.clone(), latest.holder, latest.request_id),
                (latest.request, latest.reply),
            );
        }
    }
    let now = tx.lease_now(&now)?;

    let mut results = Vec::with_capacity(elements.len());
    // The last renewal of each resource, and the outcomes to record, in order.
    let mut extend: HashMap<&str, (u64, String)> = HashMap::new();
    for element in elements {
        let req = &element.req;
        let key = owned_key(req);
        let previous = stored
            .get(&key)
            .map(|(first, reply)| stored_reply(first, reply, &element.request))
            .transpose();
        let decided = previous.and_then(|previous| {
            decide_renewal(
                leases.get(&req.resource),
                previous,
                req,
                element.proven,
                now,
                element.duration_ms,
            )
        });
        match decided {
            Ok(RenewDecision::Replay(reply)) => results.push(Ok(reply)),
            Ok(RenewDecision::Record(reply)) => {
                if reply.renewed {
                    let until = now + Duration::from_millis(element.duration_ms);
                    if let Some(lease) = leases.get_mut(&req.resource) {
                        lease.expires_at = Some(until);
                    }
                }
                let text = to_json(&reply)?;
                if reply.renewed {
                    let latest = LatestRenewal {
                        holder: req.holder.clone(),
                        request_id: req.request_id.clone(),
                        request: element.request.clone(),
                        reply: text.clone(),
                    };
                    extend.insert(&req.resource, (element.duration_ms, to_json(&latest)?));
                }
                // A later element with the same key is a retry of this one.
                stored.insert(key, (element.request.clone(), text.clone()));
                results.push(Ok(reply));
            }
            Err(e) if e.is_request_error() => results.push(Err(e)),
            Err(e) => return Err(e),
        }
    }

    if !extend.is_empty() {
        let names: Vec<&str> = extend.keys().copied().collect();
        let durations: Vec<i64> = names.iter().map(|r| to_i64(extend[r].0)).collect();
        let latest: Vec<&str> = names.iter().map(|r| extend[r].1.as_str()).collect();
        // Committed in the same round trip.
        tx.pipeline(
            &[(
                "UPDATE lease_registry AS l
                 SET duration_ms = u.duration_ms,
                     expires_at = $3::timestamptz + u.duration_ms * INTERVAL '1 millisecond',
                     last_renewal = u.last_renewal
                 FROM unnest($1::text[], $2::bigint[], $4::text[])
                     AS u(resource, duration_ms, last_renewal)
                 WHERE l.resource = u.resource",
                &[&names, &durations, &now, &latest],
            )],
            true,
        )
        .await?;
    }
    Ok(results)
}

async fn release_in(tx: &Tx, req: ReleaseRequest, proven: bool) -> Result<bool, StoreError> {
    let (lease, now) = lock_lease(tx, &req.resource).await?;
    let Some(lease) = lease else {
        return Ok(false);
    };
    let held = lease.state == LeaseState::Held
        && lease.token == req.token.get()
        && lease.holder.as_deref() == Some(req.holder.as_str());
    // A grant that ran out stays as it is: it already reads as expired, and its holder did not
    // give it back in time.
    let ending = rules::release(held, lease.live_for(now).is_some(), proven)?;
    if ending != Ending::Ends {
        return Ok(false);
    }
    let handoff = req.hand_to.as_deref().and_then(|to| {
        let granted_ms = lease.duration_ms.unwrap_or(0);
        rules::handoff_ms(ending, granted_ms).map(|ms| (to, now + Duration::from_millis(ms)))
    });
    let (handed_to, until) = (handoff.map(|(to, _)| to), handoff.map(|(_, until)| until));
    tx.pipeline(
        &[
            (
                "UPDATE lease_registry
                 SET state = 'released', expires_at = NULL, handed_to = $2,
                     handoff_until = $3::timestamptz
                 WHERE resource = $1",
                &[&req.resource, &handed_to, &until],
            ),
            (NOTIFY, &[&req.resource]),
        ],
        true,
    )
    .await?;
    Ok(true)
}

async fn revoke_in(tx: &Tx, resource: String) -> Result<bool, StoreError> {
    let (lease, now) = lock_lease(tx, &resource).await?;
    let ending = lease.map_or(Ending::NotHeld, |lease| {
        rules::revoke(
            lease.state == LeaseState::Held,
            lease.live_for(now).is_some(),
        )
    });
    if ending != Ending::Ends {
        return Ok(false);
    }
    tx.pipeline(
        &[
            (
                "UPDATE lease_registry
                 SET state = 'revoked', expires_at = NULL, revoked_token = token,
                     revoked_holder = holder_id
                 WHERE resource = $1",
                &[&resource],
            ),
            (NOTIFY, &[&resource]),
        ],
        true,
    )
    .await?;
    Ok(true)
}

async fn fenced_write_in(
    tx: &Tx,
    resource: String,
    payload: String,
    incoming: Token,
) -> Result<FencedWriteReply, StoreError> {
    let incoming_i64 = to_i64(incoming.get());
    let params: [&(dyn ToSql + Sync); 3] = [&resource, &payload, &incoming_i64];
    let accepted = FencedWriteReply {
        accepted: true,
        last_token: incoming,
    };
    if query_opt(tx, FENCED_UPDATE, &params).await?.is_some() {
        return Ok(accepted);
    }
    // No row, or a larger token: the first write creates the row. If another write created it
    // meanwhile, the design's update decides again against that row, which this next statement
    // sees.
    let inserted = query_opt(
        tx,
        "INSERT INTO protected_state (resource, payload, last_token) VALUES ($1, $2, $3)
         ON CONFLICT (resource) DO NOTHING
         RETURNING last_token",
        &params,
    )
    .await?;
    if inserted.is_some() || query_opt(tx, FENCED_UPDATE, &params).await?.is_some() {
        return Ok(accepted);
    }
    let last = query_opt(
        tx,
        "SELECT last_token FROM protected_state WHERE resource = $1",
        &[&resource],
    )
    .await?
    .ok_or_else(|| StoreError::Corrupt(format!("protected state of {resource} vanished")))?;
    Ok(FencedWriteReply {
        accepted: false,
        last_token: token(from_i64(last.try_get(0)?)?)?,
    })
}

/// Locks the lease row of `resource` until the transaction ends, and reads it and the database
/// clock after the lock.
async fn lock_lease(tx: &Tx, resource: &str) -> Result<(Option<LeaseRow>, SystemTime), StoreError> {
    let lock = lock_lease_sql();
    let [lease, now] = take(
        tx.pipeline(&[(&lock, &[&resource]), (NOW, &[])], false)
            .await?,
    )?;
    Ok((lease_from(&lease)?, tx.lease_now(&now)?))
}

/// Locks the lease row of `$1` until the transaction ends, and reads it ([`lease_from`]).
fn lock_lease_sql() -> String {
    format!(
        "SELECT {} FROM lease_registry WHERE resource = $1 FOR UPDATE",
        LeaseRow::COLUMNS
    )
}

/// The lease row [`lock_lease_sql`] read, if there is one.
fn lease_from(rows: &[Row]) -> Result<Option<LeaseRow>, StoreError> {
    rows.first().map(LeaseRow::read).transpose()
}

/// The database server's clock, read now. Sent after the transaction's row lock is taken, so it
/// is later than the commit of every transaction that held the lock before ([`now_from`]).
const NOW: &str = "SELECT clock_timestamp()";

/// The instant [`NOW`] read.
pub(super) fn now_from(rows: &[Row]) -> Result<SystemTime, StoreError> {
    let row = rows
        .first()
        .ok_or_else(|| StoreError::Corrupt("clock_timestamp() returned no row".into()))?;
    Ok(row.try_get(0)?)
}

impl Tx {
    /// The time a lease decision takes: the instant [`NOW`] read, or the store's own clock's
    /// reading if it has one ([`PgStore::with_clock`]).
    fn lease_now(&self, rows: &[Row]) -> Result<SystemTime, StoreError> {
        match &self.clock {
            Some(clock) => Ok(clock()),
            None => now_from(rows),
        }
    }
}

/// Exactly `N` statements' rows, as a pipeline of `N` statements returns them.
pub(super) fn take<const N: usize>(replies: Vec<Vec<Row>>) -> Result<[Vec<Row>; N], StoreError> {
    replies.try_into().map_err(|replies: Vec<_>| {
        StoreError::Corrupt(format!("{} replies, not {N}", replies.len()))
    })
}

/// The idempotency key of a grant or renewal.
struct OutcomeKey<'a> {
    resource: &'a str,
    holder: &'a str,
    request_id: &'a str,
}

impl<'a> OutcomeKey<'a> {
    fn new(resource: &'a str, holder: &'a str, request_id: &'a str) -> OutcomeKey<'a> {
        OutcomeKey {
            resource,
            holder,
            request_id,
        }
    }
}

/// The stored outcome of a key (`$1`, `$2`, `$3`: resource, holder, request id), read by
/// [`outcome_from`].
const PREVIOUS_OUTCOME: &str = "SELECT request, reply FROM lease_outcomes
     WHERE resource = $1 AND holder = $2 AND request_id = $3";

/// The stored reply to an earlier request with the same key, if that request was identical.
async fn previous_outcome<R: serde::de::DeserializeOwned>(
    tx: &Tx,
    key: &OutcomeKey<'_>,
    request: &str,
) -> Result<Option<R>, StoreError> {
    let stored = query(
        tx,
        PREVIOUS_OUTCOME,
        &[&key.resource, &key.holder, &key.request_id],
    )
    .await?;
    outcome_from(&stored, request)
}

/// The reply [`PREVIOUS_OUTCOME`] found, if the request it answered was `request`.
fn outcome_from<R: serde::de::DeserializeOwned>(
    rows: &[Row],
    request: &str,
) -> Result<Option<R>, StoreError> {
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let (first, reply): (String, String) = (row.try_get(0)?, row.try_get(1)?);
    if first != request {
        return Err(StoreError::RequestIdReused);
    }
    serde_json::from_str(&reply)
        .map(Some)
        .map_err(|e| StoreError::Corrupt(format!("stored reply: {e}")))
}

/// How many outcomes a resource records, on average, between two prunes of its oldest ones.
const PRUNE_EVERY: u64 = 64;

/// Whether the outcome just stored as `seq` prunes its resource's oldest outcomes. Pruning walks
/// [`OUTCOMES_KEPT_PER_RESOURCE`] index entries, so it is done for about one record in
/// [`PRUNE_EVERY`], chosen by a hash of `seq`: the sequence is shared by every resource (and
/// grantor process), so `seq % PRUNE_EVERY` could miss a resource whose records interleave with
/// others' in step, whereas the hash picks about one in [`PRUNE_EVERY`] of any resource's
/// records. A resource so goes `k * PRUNE_EVERY` records unpruned with a chance of about `e^-k`,
/// which keeps the table bounded.
fn prunes_after(seq: i64) -> bool {
    // The splitmix64 finaliser.
    let mut z = seq as u64;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % PRUNE_EVERY == 0
}

/// Stores `reply` for retries, now and then prunes the resource's oldest outcomes
/// ([`prunes_after`]), and returns the reply that stands. That is `reply`, unless a concurrent
/// identical request stored its own first: possible only for a resource with no lease row to
/// lock, where both replies say the same.
async fn record_outcome<R: serde::Serialize + serde::de::DeserializeOwned>(
    tx: &Tx,
    key: &OutcomeKey<'_>,
    request: &str,
    reply: R,
) -> Result<R, StoreError> {
    let inserted = query_opt(
        tx,
        "INSERT INTO lease_outcomes (resource, holder, request_id, request, reply)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (resource, holder, request_id) DO NOTHING
         RETURNING seq",
        &[
            &key.resource,
            &key.holder,
            &key.request_id,
            &request,
            &to_json(&reply)?,
        ],
    )
    .await?;
    let Some(inserted) = inserted else {
        return previous_outcome(tx, key, request)
            .await?
            .ok_or_else(|| StoreError::Corrupt("an outcome conflicted but cannot be read".into()));
    };
    if prunes_after(inserted.try_get(0)?) {
        query(
            tx,
            "DELETE FROM lease_outcomes WHERE resource = $1 AND seq <= (
                SELECT seq FROM lease_outcomes WHERE resource = $1
                ORDER BY seq DESC LIMIT 1 OFFSET $2
             )",
            &[&key.resource, &i64::from(OUTCOMES_KEPT_PER_RESOURCE)],
        )
        .await?;
    }
    Ok(reply)
}

/// A statement and its parameters, for [`Tx::pipeline`].
type Sql<'a> = (&'a str, &'a [&'a (dyn ToSql + Sync)]);

/// One READ COMMITTED transaction on a pooled connection.
///
/// Nothing is sent until the first statement: `BEGIN` goes out in the same pipeline as it, and
/// the last statement may take `COMMIT` along ([`Tx::pipeline`] with `commit`), so a transaction
/// costs as few round trips as its decisions allow. PostgreSQL runs pipelined statements one
/// after the other, each with its own snapshot, exactly as if each had waited for the one before:
/// a statement after a row lock still sees everything committed before the lock was granted.
pub(super) struct Tx {
    /// Always `Some` until dropped; taken only by `drop`.
    client: Option<Object>,
    /// Whether `BEGIN` was sent.
    begun: AtomicBool,
    /// Whether `BEGIN` was sent and neither `COMMIT` nor `ROLLBACK` has succeeded since.
    open: AtomicBool,
    /// The store's own clock, if it has one instead of the database's.
    clock: Option<WallClock>,
}

impl Tx {
    fn new(client: Object, clock: Option<WallClock>) -> Tx {
        Tx {
            client: Some(client),
            begun: AtomicBool::new(false),
            open: AtomicBool::new(false),
            clock,
        }
    }

    fn client(&self) -> &Object {
        self.client
            .as_ref()
            .expect("the client is kept until the transaction is dropped")
    }

    /// Runs `statements` (each prepared once per connection) in one round trip, in order, after
    /// `BEGIN` if this is the transaction's first; with `commit`, commits in the same round trip.
    /// Returns each statement's rows; the first statement that fails is the error, and then
    /// nothing after it took effect (PostgreSQL turns the pipelined `COMMIT` of a failed
    /// transaction into a rollback).
    async fn pipeline(
        &self,
        statements: &[Sql<'_>],
        commit: bool,
    ) -> Result<Vec<Vec<Row>>, StoreError> {
        let client = self.client();
        // Prepared first: a statement not yet prepared on this connection would be sent only
        // after its own round trip, behind the ones after it.
        let mut prepared = Vec::with_capacity(statements.len());
        for (sql, _) in statements {
            prepared.push(client.prepare_cached(sql).await?);
        }
        let mut sends: Vec<Pending<'_>> = Vec::with_capacity(statements.len() + 2);
        if !self.begun.swap(true, Ordering::Relaxed) {
            self.open.store(true, Ordering::Relaxed);
            sends.push(Box::pin(async move {
                client
                    .batch_execute("BEGIN ISOLATION LEVEL READ COMMITTED")
                    .await
                    .map(|()| Vec::new())
            }));
        }
        let begin = sends.len();
        for (statement, (_, params)) in prepared.iter().zip(statements) {
            sends.push(Box::pin(client.query(statement, params)));
        }
        if commit {
            sends.push(Box::pin(async move {
                client.batch_execute("COMMIT").await.map(|()| Vec::new())
            }));
        }
        let mut rows = in_order(sends).await?;
        if commit {
            self.open.store(false, Ordering::Relaxed);
            rows.pop();
        }
        Ok(rows.split_off(begin))
    }

    /// Commits, unless nothing was sent or the last statement already committed.
    async fn commit(&self) -> Result<(), StoreError> {
        if self.open.load(Ordering::Relaxed) {
            self.client().batch_execute("COMMIT").await?;
            self.open.store(false, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Rolls back what was sent, if anything; a connection that cannot is closed on drop.
    async fn rollback(&self) {
        if self.open.load(Ordering::Relaxed)
            && self.client().batch_execute("ROLLBACK").await.is_ok()
        {
            self.open.store(false, Ordering::Relaxed);
        }
    }
}

impl Drop for Tx {
    /// A transaction still open here was abandoned mid-way (its request was cancelled, or its
    /// rollback failed): its connection must not go back to the pool inside it, so it is closed,
    /// which makes the server roll the transaction back.
    fn drop(&mut self) {
        if *self.open.get_mut() {
            if let Some(client) = self.client.take() {
                drop(Object::take(client));
            }
        }
    }
}

/// One statement's reply, sent on its first poll.
type Pending<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<Row>, tokio_postgres::Error>> + Send + 'a>>;

/// Awaits `sends` together, polling them in order: tokio-postgres sends a request on its
/// future's first poll, so they go out in order, in one pipeline. Returns the replies in order,
/// or the first error in that order (replies arrive in order, so an error is never overtaken).
async fn in_order(mut sends: Vec<Pending<'_>>) -> Result<Vec<Vec<Row>>, tokio_postgres::Error> {
    let mut replies: Vec<Option<Vec<Row>>> = sends.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut waiting = false;
        for (send, reply) in sends.iter_mut().zip(replies.iter_mut()) {
            if reply.is_none() {
                match send.as_mut().poll(cx) {
                    Poll::Ready(Ok(rows)) => *reply = Some(rows),
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            Poll::Pending
        } else {
            Poll::Ready(Ok(()))
        }
    })
    .await?;
    Ok(replies.into_iter().flatten().collect())
}

/// Runs `sql` in `tx` and returns its first row, if any.
async fn query_opt(
    tx: &Tx,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Option<Row>, StoreError> {
    Ok(query(tx, sql, params).await?.into_iter().next())
}

/// Runs `sql` in `tx` and returns all its rows.
async fn query(tx: &Tx, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, StoreError> {
    Ok(tx
        .pipeline(&[(sql, params)], false)
        .await?
        .pop()
        .unwrap_or_default())
}
