//! Lease state: SQLite holds what must survive a restart, the monotonic clock decides expiry.
//!
//! The database stores, per resource, the token counter and the latest grant (holder, duration,
//! and whether it is still held). It never stores an expiry instant: wall clocks can jump, and an
//! instant of this process's monotonic clock means nothing to the next process. Instead the
//! expiry of every held grant lives in memory as an [`Instant`], and on startup every grant the
//! database still records as held counts as held for its full duration from startup. That can
//! only make a lease last longer than the holder believes, never shorter, so a restart never
//! grants a resource early.
//!
//! Operations run in groups ([`crate::writer`]): the requests that arrive together share one
//! `BEGIN IMMEDIATE` transaction and one commit, each inside its own savepoint so that one
//! request's error undoes only its own writes. Their changes to the in-memory expiries are staged
//! and applied only once the group commits, so memory never runs ahead of disk, and no reply is
//! sent before the commit.
//!
//! **Renewals need not reach the disk.** Every commit waits for the disk (`synchronous=FULL`),
//! but a renewal that keeps its grant's recorded duration writes nothing: its new expiry lives in
//! memory like every expiry, and its outcome, for answering a retry, is kept in memory too (the
//! latest renewal of each held grant). A group of only such renewals commits without any write,
//! so without an fsync. Losing them in a crash is safe because of the restart rule above: the
//! restarted grantor holds every grant recorded as held for its recorded duration from the
//! restart, which is later than any renewal it forgot, and that duration is what the renewal
//! promised (a renewal that changes the duration is written, so it is on disk before its reply).
//! So a forgotten renewal only makes the lease last longer than its holder believes, and a
//! forgotten outcome only makes a retry be judged afresh, which renews again from the retry.
//! `docs/protocol.md` gives the argument in full and the simulation's grantor restart model
//! checks it.
//!
//! The work queues (`queues.rs`) share the database and follow the same time model.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use tenure::protocol::{
    FencedReadReply, FencedWriteReply, GrantReply, GrantRequest, ReleaseReply, ReleaseRequest,
    RenewReply, RenewRequest, StatusReply, Token, WatchReply, MAX_REQUEST_DURATION_MS,
};

use tenure::requests::{grant_fingerprint, renew_fingerprint};
use tenure::rules::{self, Ending, GrantDecision, Handoff, LeaseState, LiveGrant, Recorded};

use crate::records::{
    from_i64, serialising, to_i64, to_json, token, DurationLimits, StoreError,
    DEFAULT_MAX_ATTEMPTS, OUTCOMES_KEPT_PER_RESOURCE,
};
use crate::secrets::{self, Secrets, SERVER_KEY_LEN};

/// How many outcomes a resource records between two prunes of its oldest ones: the table holds at
/// most this many more than [`OUTCOMES_KEPT_PER_RESOURCE`] per resource.
const PRUNE_EVERY: u32 = 64;

/// For how many ended grants the latest renewal's outcome is kept: a retry of a renewal whose
/// grant was released since is still told `expired`, as the replay rule says, if it comes within
/// that many grant ends; later, or after a restart, it is judged afresh, which only refuses it.
const ENDED_RENEWALS_KEPT: usize = 65_536;

/// The schema version this build writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 2;

/// What version 2 adds to a database of version 1 (or to the tables [`SCHEMA`] just created):
/// a released resource kept for the holder it was handed to.
const MIGRATE_TO_2: &str = "
-- The holder a release handed the resource to, while the grantor keeps it for that holder.
ALTER TABLE leases ADD COLUMN handed_to TEXT;
-- How long the preference lasts, in ms: after a restart it is kept this long again.
ALTER TABLE leases ADD COLUMN handoff_ms INTEGER;
-- When it ends, in microseconds of this process's monotonic clock since it opened the database
-- (as work_items.claim_expires_at). Rebased on every open.
ALTER TABLE leases ADD COLUMN handoff_until INTEGER;
";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS leases (
    resource       TEXT PRIMARY KEY NOT NULL,
    -- The per-resource counter: the token of the latest grant. Only ever incremented.
    token          INTEGER NOT NULL CHECK (token >= 1),
    -- Who received the grant with `token`; kept after it ends, so late renewals get a reason.
    holder         TEXT NOT NULL,
    -- The duration of the latest grant or renewal: after a restart the grant is held this long.
    duration_ms    INTEGER NOT NULL CHECK (duration_ms >= 1),
    -- 'held' while the grant may be live; otherwise how it ended. Only 'held' rows have a holder.
    state          TEXT NOT NULL CHECK (state IN ('held', 'released', 'revoked', 'expired')),
    -- The latest revoked grant, so its holder learns `revoked` even after a newer grant.
    revoked_token  INTEGER,
    revoked_holder TEXT
) STRICT;

CREATE TABLE IF NOT EXISTS outcomes (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    resource   TEXT NOT NULL,
    holder     TEXT NOT NULL,
    request_id TEXT NOT NULL,
    -- The request as first received, to tell a true retry from a reused id.
    request    TEXT NOT NULL,
    reply      TEXT NOT NULL,
    UNIQUE (resource, holder, request_id)
) STRICT;

CREATE INDEX IF NOT EXISTS outcomes_by_resource ON outcomes (resource, seq);

CREATE TABLE IF NOT EXISTS protected_state (
    resource   TEXT PRIMARY KEY NOT NULL,
    payload    TEXT NOT NULL,
    last_token INTEGER NOT NULL
) STRICT;

-- 256 random bits, generated once: every lease and claim secret is derived from them.
CREATE TABLE IF NOT EXISTS server_key (
    singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
    key       BLOB NOT NULL CHECK (length(key) = 32)
) STRICT;
";

/// The work queues' table (`queues.rs`), in the same database.
const QUEUE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS work_items (
    -- Creation order: claims take the smallest pending id first.
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    queue            TEXT NOT NULL,
    payload          TEXT NOT NULL,
    dedupe_key       TEXT,
    state            TEXT NOT NULL CHECK (state IN ('pending', 'claimed', 'done', 'dead')),
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts     INTEGER NOT NULL CHECK (max_attempts >= 1),
    -- The per-item counter: the token of the latest claim, 0 before the first. Only incremented.
    claim_token      INTEGER NOT NULL DEFAULT 0 CHECK (claim_token >= 0),
    claimed_by       TEXT,
    claim_request_id TEXT,
    -- The duration of the latest claim or heartbeat: after a restart the claim is held this long.
    claim_ms         INTEGER,
    -- Only while 'claimed': the expiry, in microseconds of this process's monotonic clock since
    -- it opened the database. Rebased on every open.
    claim_expires_at INTEGER,
    completed_token  INTEGER,
    completed_by     TEXT,
    result           TEXT,
    -- The token of the claim that reported the latest failure, so a retried fail is answered.
    failed_token     INTEGER,
    last_error       TEXT,
    UNIQUE (queue, dedupe_key)
) STRICT;

CREATE INDEX IF NOT EXISTS work_items_by_state ON work_items (queue, state, id);
CREATE INDEX IF NOT EXISTS work_items_claims ON work_items (claim_expires_at)
    WHERE state = 'claimed';
";

/// Every claim recorded as live is held for its full duration from `epoch`, the start of this
/// process's clock: the previous process's expiries are meaningless now. So is every handoff
/// preference, kept for its full duration from `epoch` too (a preference kept longer only delays
/// the others; ending it early could let one in before the named holder).
pub(crate) fn rebase_claims(conn: &mut Connection) -> Result<usize, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let rebased = tx.execute(
        "UPDATE work_items SET claim_expires_at = claim_ms * 1000 WHERE state = 'claimed'",
        [],
    )?;
    tx.execute(
        "UPDATE leases SET handoff_until = handoff_ms * 1000 WHERE handed_to IS NOT NULL",
        [],
    )?;
    tx.commit()?;
    Ok(rebased)
}

/// The latest grant of one resource, as the `leases` table records it.
struct LeaseRow {
    token: u64,
    holder: String,
    /// The duration a restart would hold the grant for.
    duration_ms: u64,
    state: LeaseState,
    revoked_token: Option<u64>,
    revoked_holder: Option<String>,
    /// The holder a release handed the resource to, and when that preference ends (µs on the
    /// queue clock, [`Store::queue_now`]).
    handoff: Option<(String, i64)>,
}

impl LeaseRow {
    /// The handoff preference, if it still lasts at `now_us` (µs on the queue clock).
    fn handoff(&self, now_us: i64) -> Option<Handoff<'_>> {
        let (to, until) = self.handoff.as_ref()?;
        Some(Handoff {
            to,
            remaining: rules::time_left(*until, now_us)?,
        })
    }

    /// The row as the shared renewal rule reads it.
    fn recorded(&self) -> Recorded<'_> {
        Recorded {
            token: self.token,
            holder: Some(&self.holder),
            state: self.state,
            revoked_token: self.revoked_token,
            revoked_holder: self.revoked_holder.as_deref(),
        }
    }
}

/// The lease and fencing state of every resource, and the work queues.
pub struct Store {
    pub(crate) conn: Connection,
    /// Expiry of every grant whose row is `held`, by the monotonic clock, as last committed.
    expiries: HashMap<String, Instant>,
    /// The latest renewal of each held grant, for answering its retry; kept in memory only (see
    /// the module's documentation), and for the [`ENDED_RENEWALS_KEPT`] grants that ended last.
    renewals: HashMap<String, RenewalOutcome>,
    /// Grants that ended, oldest first, whose renewal outcomes are still kept.
    ended: VecDeque<String>,
    /// The open group's changes to `expiries` and `renewals`, applied once it commits.
    staged: Staged,
    /// Outcomes recorded per resource since its outcomes were last pruned: pruning walks the
    /// resource's newest outcomes, so it runs once every [`PRUNE_EVERY`] records, not on each.
    unpruned: HashMap<String, u32>,
    pub(crate) limits: DurationLimits,
    /// The zero of the queue clock: claim expiries are microseconds since this instant.
    pub(crate) queue_epoch: Instant,
    /// How many claims an item gets when its enqueue names no limit.
    pub(crate) default_max_attempts: u32,
    /// Derives and checks lease and claim secrets, from the key kept in the database.
    pub(crate) secrets: Secrets,
    /// Where the time comes from: the monotonic clock ([`Instant::now`]).
    clock: Clock,
}

/// What the SQLite store reads the time from. Every decision about expiry uses it, and nothing
/// else: the monotonic clock in production, a clock a test moves by hand to reach an exact
/// instant.
pub type Clock = Arc<dyn Fn() -> Instant + Send + Sync>;

impl Store {
    /// Opens (creating if needed) the database at `path` and loads the held grants, each held for
    /// its full duration from now.
    ///
    /// The connection takes SQLite's exclusive lock and keeps it, so a second grantor on the same
    /// file fails here instead of granting from its own, disagreeing, memory.
    pub fn open(path: &Path, limits: DurationLimits) -> Result<Store, StoreError> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(2))?;
        conn.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Corrupt(format!(
                "journal mode is {mode}, WAL is required"
            )));
        }
        // FULL syncs the WAL on every commit: a reply is sent only once its grant is on disk.
        conn.pragma_update(None, "synchronous", "FULL")?;

        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Corrupt(format!(
                "schema version {version} is newer than this grantor's {SCHEMA_VERSION}"
            )));
        }
        tx.execute_batch(SCHEMA)?;
        tx.execute_batch(QUEUE_SCHEMA)?;
        if version < 2 {
            tx.execute_batch(MIGRATE_TO_2)?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        let fresh = secrets::new_server_key().map_err(StoreError::Corrupt)?;
        tx.execute(
            "INSERT INTO server_key (singleton, key) VALUES (1, ?1) ON CONFLICT DO NOTHING",
            params![&fresh[..]],
        )?;
        let stored: Vec<u8> =
            tx.query_row("SELECT key FROM server_key WHERE singleton = 1", [], |r| {
                r.get(0)
            })?;
        let key: [u8; SERVER_KEY_LEN] = stored
            .try_into()
            .map_err(|_| StoreError::Corrupt("the server key is not 32 bytes".into()))?;
        tx.commit()?;

        let started = Instant::now();
        rebase_claims(&mut conn)?;
        let mut expiries = HashMap::new();
        {
            let mut stmt =
                conn.prepare("SELECT resource, duration_ms FROM leases WHERE state = 'held'")?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
            for row in rows {
                let (resource, duration_ms) = row?;
                let duration_ms = u64::try_from(duration_ms)
                    .ok()
                    .filter(|d| (1..=MAX_REQUEST_DURATION_MS).contains(d))
                    .ok_or_else(|| {
                        StoreError::Corrupt(format!("duration {duration_ms} of {resource}"))
                    })?;
                expiries.insert(resource, started + Duration::from_millis(duration_ms));
            }
        }
        Ok(Store {
            conn,
            expiries,
            renewals: HashMap::new(),
            ended: VecDeque::new(),
            staged: Staged::default(),
            unpruned: HashMap::new(),
            limits,
            queue_epoch: started,
            default_max_attempts: DEFAULT_MAX_ATTEMPTS,
            secrets: Secrets::new(key),
            clock: Arc::new(Instant::now),
        })
    }

    /// Reads the time from `clock` instead of the monotonic clock. The grants and claims loaded
    /// on opening were stamped by the monotonic clock, so `clock` must not start behind it.
    pub fn with_clock(mut self, clock: Clock) -> Store {
        self.clock = clock;
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

    /// Sets how many claims an item gets when its enqueue names no limit (at least 1).
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Store {
        self.default_max_attempts = max_attempts.max(1);
        self
    }

    /// How many grants are recorded as held: right after opening, those held before the restart.
    pub fn held_count(&self) -> usize {
        self.expiries.len()
    }

    /// Checks that the database answers.
    pub fn ping(&self) -> Result<(), StoreError> {
        self.conn.query_row("SELECT 1", [], |_| Ok(()))?;
        Ok(())
    }

    /// The design's grant: succeeds when the resource is free, expired, or held by the same
    /// holder, and then always increments the token.
    ///
    /// A holder re-granting its own live grant must present that grant's secret
    /// (`leaseSecret`); without it the request is denied like any other holder's, so knowing a
    /// holder's name is not enough to supersede its grant.
    pub fn grant(&mut self, req: &GrantRequest) -> Result<GrantReply, StoreError> {
        let request = grant_fingerprint(req).map_err(serialising)?;
        let proof = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret.clone());
        if self
            .renewal_outcome(&req.resource, &req.holder, &req.request_id)
            .is_some()
        {
            return Err(StoreError::RequestIdReused);
        }
        if let Some(stored) = previous_outcome(
            &self.conn,
            &req.resource,
            &req.holder,
            &req.request_id,
            &request,
        )? {
            let row = lease_row(&self.conn, &req.resource)?;
            let live = self.live_grant(row.as_ref(), &req.resource, self.now());
            return Ok(rules::replayed_grant(stored, &req.holder, live));
        }
        let now = self.now();
        let row = lease_row(&self.conn, &req.resource)?;
        let live = self.live_grant(row.as_ref(), &req.resource, now);
        let handoff = row.as_ref().and_then(|r| r.handoff(self.queue_now()));
        let duration_ms = self.limits.clamp(req.duration_ms);
        let counter = row.as_ref().map_or(0, |r| r.token);
        let decision = rules::grant_handed(
            counter,
            live,
            handoff,
            &req.holder,
            |token| proof.proves(token),
            duration_ms,
        )?;
        let (reply, kept_ms) = match decision {
            GrantDecision::Deny(reply) => (reply, None),
            GrantDecision::Grant {
                token,
                kept_ms,
                reply,
            } => {
                self.conn
                    .prepare_cached(
                        "INSERT INTO leases (resource, token, holder, duration_ms, state)
                         VALUES (?1, ?2, ?3, ?4, 'held')
                         ON CONFLICT (resource) DO UPDATE SET
                            token = excluded.token,
                            holder = excluded.holder,
                            duration_ms = excluded.duration_ms,
                            state = 'held',
                            handed_to = NULL,
                            handoff_ms = NULL,
                            handoff_until = NULL",
                    )?
                    .execute(params![
                        req.resource,
                        to_i64(token.get()),
                        req.holder,
                        to_i64(kept_ms)
                    ])?;
                (reply, Some(kept_ms))
            }
        };
        self.record_outcome(
            &req.resource,
            &req.holder,
            &req.request_id,
            &request,
            &reply,
        )?;
        if let (Some(token), Some(kept_ms)) = (reply.token, kept_ms) {
            self.stage(&req.resource, Some((now, kept_ms)));
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
    /// Renewing a live grant needs its secret (`leaseSecret`): without it, a request that would
    /// renew fails with [`StoreError::BadLeaseSecret`] and changes nothing. One that would be
    /// refused anyway is refused as usual.
    ///
    /// Only a renewal that lengthens the recorded duration must reach the disk before its reply;
    /// see the module's documentation for why the others need not.
    pub fn renew(&mut self, req: &RenewRequest) -> Result<RenewReply, StoreError> {
        let request = renew_fingerprint(req).map_err(serialising)?;
        let proven = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret.clone())
            .proves(req.token.get());
        let stored = match self.renewal_outcome(&req.resource, &req.holder, &req.request_id) {
            Some(first) if first.request != request => return Err(StoreError::RequestIdReused),
            Some(first) => Some(first.reply.clone()),
            // Renewals before this build recorded their outcomes on disk, as grants still do;
            // an id of either is not to be reused for a renewal.
            None => previous_outcome(
                &self.conn,
                &req.resource,
                &req.holder,
                &req.request_id,
                &request,
            )?,
        };
        if let Some(stored) = stored {
            let row = lease_row(&self.conn, &req.resource)?;
            let live = self.live_grant(row.as_ref(), &req.resource, self.now());
            return Ok(rules::replayed_renewal(stored, &req.holder, live, proven)?);
        }
        let now = self.now();
        let row = lease_row(&self.conn, &req.resource)?;
        let live = self.time_left(&req.resource, now).is_some();
        let duration_ms = self.limits.clamp(req.duration_ms);
        let reply = rules::renew(
            row.as_ref().map(LeaseRow::recorded),
            &req.holder,
            req.token,
            live,
            proven,
            duration_ms,
        )?;
        let recorded_ms = row.as_ref().map_or(0, |r| r.duration_ms);
        if reply.renewed && duration_ms != recorded_ms {
            // A restart holds the grant for the recorded duration, so a renewal that changes it
            // is written, and so is on disk before its reply like every write.
            self.conn
                .prepare_cached("UPDATE leases SET duration_ms = ?2 WHERE resource = ?1")?
                .execute(params![req.resource, to_i64(duration_ms)])?;
        }
        if reply.renewed {
            self.stage(&req.resource, Some((now, duration_ms)));
        }
        // Refusals are kept too, so that a retry of one is answered the same.
        let outcome = RenewalOutcome {
            holder: req.holder.clone(),
            request_id: req.request_id.clone(),
            request,
            reply: reply.clone(),
        };
        self.stage_renewal(&req.resource, outcome);
        log_refusal(req, &reply);
        Ok(reply)
    }

    /// Renews each of `reqs` as [`Store::renew`] would, in order, in the open group: each element
    /// sees the ones before it, as if they had been sent one by one.
    ///
    /// An element's own error ([`StoreError::is_request_error`], such as a missing secret) is
    /// that element's result and undoes only that element's writes; any other failure is
    /// returned, and the group's savepoint for the batch undoes all of it.
    pub fn renew_batch(
        &mut self,
        reqs: &[RenewRequest],
    ) -> Result<Vec<Result<RenewReply, StoreError>>, StoreError> {
        let mut results = Vec::with_capacity(reqs.len());
        for req in reqs {
            match self.in_savepoint(|store| store.renew(req)) {
                Ok(reply) => results.push(Ok(reply)),
                Err(e) if e.is_request_error() => results.push(Err(e)),
                Err(e) => return Err(e),
            }
        }
        Ok(results)
    }

    /// Ends the grant identified by holder and token, if it is still recorded as held.
    ///
    /// Releasing a live grant needs its secret (`leaseSecret`), else
    /// [`StoreError::BadLeaseSecret`]; releasing what is not live answers `released: false`.
    pub fn release(&mut self, req: &ReleaseRequest) -> Result<ReleaseReply, StoreError> {
        let row = lease_row(&self.conn, &req.resource)?;
        let held = row.as_ref().is_some_and(|r| {
            r.state == LeaseState::Held && r.token == req.token.get() && r.holder == req.holder
        });
        let live = self.time_left(&req.resource, self.now()).is_some();
        let proven = self
            .secrets
            .lease_proof(&req.resource, req.lease_secret.clone())
            .proves(req.token.get());
        let ending = rules::release(held, live, proven)?;
        // Only a release that ends the live grant can hand the resource over.
        let handoff = req.hand_to.as_deref().and_then(|to| {
            let granted_ms = row.as_ref().map_or(0, |r| r.duration_ms);
            rules::handoff_ms(ending, granted_ms).map(|ms| (to, ms))
        });
        // A grant that already ran out is recorded as expired: its holder did not give it back.
        let (ended, live) = match ending {
            Ending::NotHeld => return Ok(ReleaseReply { released: false }),
            Ending::RanOut => (LeaseState::Expired, false),
            Ending::Ends => (LeaseState::Released, true),
        };
        let ended = ended.as_str();
        let until = handoff.map(|(_, ms)| {
            self.queue_now()
                .saturating_add(to_i64(ms).saturating_mul(1000))
        });
        self.conn
            .prepare_cached(
                "UPDATE leases SET state = ?2, handed_to = ?3, handoff_ms = ?4, handoff_until = ?5
                 WHERE resource = ?1",
            )?
            .execute(params![
                req.resource,
                ended,
                handoff.map(|(to, _)| to),
                handoff.map(|(_, ms)| to_i64(ms)),
                until
            ])?;
        self.stage(&req.resource, None);
        tracing::info!(
            resource = %req.resource,
            holder = %req.holder,
            token = req.token.get(),
            ended,
            handed_to = handoff.map(|(to, _)| to),
            "released"
        );
        Ok(ReleaseReply { released: live })
    }

    /// Ends the current grant of `resource` whoever holds it. Returns whether a live grant ended.
    /// The token counter is kept, so the next grant gets a larger token.
    pub fn revoke(&mut self, resource: &str) -> Result<bool, StoreError> {
        let Some(row) = lease_row(&self.conn, resource)? else {
            return Ok(false);
        };
        let live = self.time_left(resource, self.now()).is_some();
        let live = match rules::revoke(row.state == LeaseState::Held, live) {
            Ending::NotHeld => return Ok(false),
            Ending::RanOut => false,
            Ending::Ends => true,
        };
        if live {
            self.conn.execute(
                "UPDATE leases SET state = 'revoked', revoked_token = token,
                    revoked_holder = holder
                 WHERE resource = ?1",
                params![resource],
            )?;
        } else {
            self.conn.execute(
                "UPDATE leases SET state = 'expired' WHERE resource = ?1",
                params![resource],
            )?;
        }
        self.stage(resource, None);
        tracing::info!(resource, holder = %row.holder, token = row.token, live, "revoked");
        Ok(live)
    }

    /// Who holds `resource` now.
    pub fn status(&self, resource: &str) -> Result<StatusReply, StoreError> {
        let mut reply = StatusReply {
            resource: resource.to_owned(),
            holder: None,
            token: None,
            expires_in_ms: None,
        };
        let row = lease_row(&self.conn, resource)?;
        if let Some(live) = self.live_grant(row.as_ref(), resource, self.now()) {
            reply.holder = Some(live.holder.to_owned());
            reply.token = Some(token(live.token)?);
            reply.expires_in_ms = Some(rules::expires_in_ms(live.remaining));
        }
        Ok(reply)
    }

    /// What a watch of `resource` reports now: its version, its live grant, and the holder it
    /// was handed to while that lasts.
    pub fn watch(&self, resource: &str) -> Result<WatchReply, StoreError> {
        let row = lease_row(&self.conn, resource)?;
        let live = self.live_grant(row.as_ref(), resource, self.now());
        let handoff = row.as_ref().and_then(|r| r.handoff(self.queue_now()));
        let counter = row.as_ref().map_or(0, |r| r.token);
        Ok(rules::watch_reply(resource, counter, live, handoff)?)
    }

    /// Records every grant that ran out as expired, so that a restart does not hold it again.
    /// Returns how many were recorded.
    pub fn sweep(&mut self) -> Result<usize, StoreError> {
        let now = self.now();
        // Renewals staged in this group are fresh; only committed expiries can have run out.
        let ended: Vec<String> = self
            .expiries
            .keys()
            .filter(|resource| {
                self.expiry(resource)
                    .is_some_and(|until| !rules::is_live(until, now))
            })
            .cloned()
            .collect();
        let mut mark = self.conn.prepare_cached(
            "UPDATE leases SET state = 'expired' WHERE resource = ?1 AND state = 'held'",
        )?;
        for resource in &ended {
            mark.execute(params![resource])?;
        }
        drop(mark);
        for resource in &ended {
            self.stage(resource, None);
        }
        Ok(ended.len())
    }

    /// The design's fenced write: stores `payload` unless a larger token already wrote.
    ///
    /// A write that would be accepted needs the secret of the grant with `incoming` (else
    /// [`StoreError::BadLeaseSecret`], nothing written); one that is fenced out is answered as
    /// usual.
    pub fn fenced_write(
        &mut self,
        resource: &str,
        payload: &str,
        incoming: Token,
        lease_secret: Option<&str>,
    ) -> Result<FencedWriteReply, StoreError> {
        let proven = self
            .secrets
            .lease_proof(resource, lease_secret.map(str::to_owned))
            .proves(incoming.get());
        let tx = &self.conn;
        if !proven {
            let last: Option<i64> = tx
                .query_row(
                    "SELECT last_token FROM protected_state WHERE resource = ?1",
                    params![resource],
                    |r| r.get(0),
                )
                .optional()?;
            return match last.map(from_i64).transpose()? {
                Some(last) if last > incoming.get() => Ok(FencedWriteReply {
                    accepted: false,
                    last_token: token(last)?,
                }),
                _ => Err(StoreError::BadLeaseSecret),
            };
        }
        let changed = tx.execute(
            "INSERT INTO protected_state (resource, payload, last_token) VALUES (?1, ?2, ?3)
             ON CONFLICT (resource) DO UPDATE SET
                payload = excluded.payload,
                last_token = excluded.last_token
             WHERE protected_state.last_token <= excluded.last_token",
            params![resource, payload, to_i64(incoming.get())],
        )?;
        let last: i64 = tx.query_row(
            "SELECT last_token FROM protected_state WHERE resource = ?1",
            params![resource],
            |r| r.get(0),
        )?;
        Ok(FencedWriteReply {
            accepted: changed == 1,
            last_token: token(from_i64(last)?)?,
        })
    }

    /// The latest accepted payload (as JSON text) of `resource`.
    pub fn fenced_read(&self, resource: &str) -> Result<FencedReadReply<String>, StoreError> {
        let row: Option<(String, i64)> = self
            .conn
            .query_row(
                "SELECT payload, last_token FROM protected_state WHERE resource = ?1",
                params![resource],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(match row {
            Some((payload, last)) => FencedReadReply {
                payload: Some(payload),
                last_token: Some(token(from_i64(last)?)?),
            },
            None => FencedReadReply {
                payload: None,
                last_token: None,
            },
        })
    }
}

/// Logs a refused renewal, once its transaction committed.
fn log_refusal(req: &RenewRequest, reply: &RenewReply) {
    if let Some(reason) = reply.reason {
        tracing::info!(
            resource = %req.resource,
            holder = %req.holder,
            token = req.token.get(),
            reason = reason.as_str(),
            "renewal refused"
        );
    }
}

impl Store {
    /// The time now, on the store's clock.
    pub(crate) fn now(&self) -> Instant {
        (self.clock)()
    }

    /// How long the grant of `resource` has left at `now`, if one is recorded as held and is
    /// live ([`rules::time_left`]: zero at its expiry instant, which still counts as live).
    fn time_left(&self, resource: &str, now: Instant) -> Option<Duration> {
        rules::time_left(self.expiry(resource)?, now)
    }

    /// The grant `row` records for `resource`, if it is live at `now`.
    fn live_grant<'a>(
        &self,
        row: Option<&'a LeaseRow>,
        resource: &str,
        now: Instant,
    ) -> Option<LiveGrant<'a>> {
        row?.recorded().live(self.time_left(resource, now))
    }

    /// When the grant of `resource` runs out, if one is recorded as held, as the open group sees
    /// it: the committed expiries, overlaid with the group's changes.
    fn expiry(&self, resource: &str) -> Option<Instant> {
        match self.staged.expiries.get(resource) {
            Some(change) => change.map(|(until, _)| until),
            None => self.expiries.get(resource).copied(),
        }
    }
}

/// A staged change to one grant's expiry: `Some((expiry as judged inside the group, duration
/// in ms))` for a grant or renewal, `None` for a grant that ended.
type Change = Option<(Instant, u64)>;

/// The latest renewal of a held grant, as a retry of it is answered.
#[derive(Clone)]
struct RenewalOutcome {
    holder: String,
    request_id: String,
    /// The request as first received, to tell a true retry from a reused id.
    request: String,
    reply: RenewReply,
}

/// What one staged change replaced, so that a failed operation's changes can be undone.
enum Undo {
    /// The expiry staged before (`None`: nothing was).
    Expiry(String, Option<Change>),
    /// The renewal outcome staged before.
    Renewal(String, Option<RenewalOutcome>),
}

/// The open group's changes to the expiries and renewal outcomes. They reach the store's memory
/// only once the group commits, so memory never runs ahead of disk, while a later operation of
/// the group still sees an earlier one's change.
#[derive(Default)]
struct Staged {
    expiries: HashMap<String, Change>,
    renewals: HashMap<String, RenewalOutcome>,
    /// Newest last.
    undo: Vec<Undo>,
}

impl Store {
    /// Stages a change to the expiry of `resource`: a grant or renewal `(start, duration_ms)`,
    /// or `None` for a grant that ended.
    fn stage(&mut self, resource: &str, change: Option<(Instant, u64)>) {
        let change = change.map(|(start, ms)| (start + Duration::from_millis(ms), ms));
        let before = self.staged.expiries.insert(resource.to_owned(), change);
        self.staged
            .undo
            .push(Undo::Expiry(resource.to_owned(), before));
    }

    /// Stages `outcome` as the latest renewal of `resource`.
    fn stage_renewal(&mut self, resource: &str, outcome: RenewalOutcome) {
        let before = self.staged.renewals.insert(resource.to_owned(), outcome);
        self.staged
            .undo
            .push(Undo::Renewal(resource.to_owned(), before));
    }

    /// The latest renewal of `resource`, if it was `holder`'s with `request_id`.
    fn renewal_outcome(
        &self,
        resource: &str,
        holder: &str,
        request_id: &str,
    ) -> Option<&RenewalOutcome> {
        self.staged
            .renewals
            .get(resource)
            .or_else(|| self.renewals.get(resource))
            .filter(|o| o.holder == holder && o.request_id == request_id)
    }

    /// Runs `op` in a savepoint of the open group: its writes and staged changes stand if it
    /// succeeds, and are undone, leaving the rest of the group as it was, if it fails.
    pub(crate) fn in_savepoint<T>(
        &mut self,
        op: impl FnOnce(&mut Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.conn.prepare_cached("SAVEPOINT op")?.execute([])?;
        let undo_mark = self.staged.undo.len();
        let outcome = op(self);
        if outcome.is_ok() {
            self.conn.prepare_cached("RELEASE op")?.execute([])?;
            return outcome;
        }
        while self.staged.undo.len() > undo_mark {
            match self.staged.undo.pop() {
                Some(Undo::Expiry(resource, Some(before))) => {
                    self.staged.expiries.insert(resource, before);
                }
                Some(Undo::Expiry(resource, None)) => {
                    self.staged.expiries.remove(&resource);
                }
                Some(Undo::Renewal(resource, Some(before))) => {
                    self.staged.renewals.insert(resource, before);
                }
                Some(Undo::Renewal(resource, None)) => {
                    self.staged.renewals.remove(&resource);
                }
                None => break,
            }
        }
        self.conn.execute_batch("ROLLBACK TO op; RELEASE op")?;
        outcome
    }

    /// Opens a group: one write transaction for the operations that arrived together.
    pub(crate) fn begin_group(&mut self) -> Result<(), StoreError> {
        self.conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        Ok(())
    }

    /// Commits the open group (an fsync, if it wrote anything), then applies its staged changes,
    /// expiries stamped now: after the commit, so the grantor's lease starts no earlier than the
    /// holder's. On failure nothing of the group was applied.
    pub(crate) fn commit_group(&mut self) -> Result<(), StoreError> {
        let committed = self
            .conn
            .prepare_cached("COMMIT")
            .map(|mut c| c.execute([]));
        let staged = std::mem::take(&mut self.staged);
        if let Err(e) = committed.and_then(|executed| executed) {
            // The transaction may still be open after a failed COMMIT; end it, so the next
            // group starts clean. It failed already, so this one's own error adds nothing.
            let _ = self.conn.execute_batch("ROLLBACK");
            return Err(e.into());
        }
        self.renewals.extend(staged.renewals);
        let now = self.now();
        for (resource, change) in staged.expiries {
            match change {
                Some((_, ms)) => {
                    self.expiries
                        .insert(resource, now + Duration::from_millis(ms));
                }
                None => {
                    self.unpruned.remove(&resource);
                    self.expiries.remove(&resource);
                    // A retry of its last renewal is still answered as a replay for a while.
                    self.ended.push_back(resource);
                }
            }
        }
        while self.ended.len() > ENDED_RENEWALS_KEPT {
            if let Some(resource) = self.ended.pop_front() {
                if !self.expiries.contains_key(&resource) {
                    self.renewals.remove(&resource);
                }
            }
        }
        Ok(())
    }

    /// Runs `op` as a group of its own: for callers outside the writer, such as tests.
    pub fn run<T>(
        &mut self,
        op: impl FnOnce(&mut Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.begin_group()?;
        let outcome = self.in_savepoint(op);
        self.commit_group()?;
        outcome
    }

    /// Stores the reply for retries; every [`PRUNE_EVERY`] records of a resource, prunes its
    /// oldest outcomes.
    fn record_outcome<R: serde::Serialize>(
        &mut self,
        resource: &str,
        holder: &str,
        request_id: &str,
        request: &str,
        reply: &R,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT INTO outcomes (resource, holder, request_id, request, reply)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                resource,
                holder,
                request_id,
                request,
                to_json(reply)?
            ])?;
        let unpruned = self.unpruned.entry(resource.to_owned()).or_insert(0);
        *unpruned += 1;
        if *unpruned >= PRUNE_EVERY {
            self.unpruned.remove(resource);
            self.conn
                .prepare_cached(
                    "DELETE FROM outcomes WHERE resource = ?1 AND seq <= (
                        SELECT seq FROM outcomes WHERE resource = ?1
                        ORDER BY seq DESC LIMIT 1 OFFSET ?2
                     )",
                )?
                .execute(params![resource, OUTCOMES_KEPT_PER_RESOURCE])?;
        }
        Ok(())
    }
}

fn lease_row(conn: &Connection, resource: &str) -> Result<Option<LeaseRow>, StoreError> {
    let row = conn
        .prepare_cached(
            "SELECT token, holder, duration_ms, state, revoked_token, revoked_holder,
                    handed_to, handoff_until
             FROM leases WHERE resource = ?1",
        )?
        .query_row(params![resource], |r| {
            Ok((
                (
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                ),
                (r.get::<_, Option<i64>>(4)?, r.get::<_, Option<String>>(5)?),
                (r.get::<_, Option<String>>(6)?, r.get::<_, Option<i64>>(7)?),
            ))
        })
        .optional()?;
    let Some((
        (token, holder, duration_ms, state),
        (revoked_token, revoked_holder),
        (handed_to, handoff_until),
    )) = row
    else {
        return Ok(None);
    };
    Ok(Some(LeaseRow {
        token: from_i64(token)?,
        holder,
        duration_ms: from_i64(duration_ms)?,
        state: LeaseState::parse(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("lease state {state}")))?,
        revoked_token: revoked_token.map(from_i64).transpose()?,
        revoked_holder,
        handoff: handed_to.zip(handoff_until),
    }))
}

/// The stored reply to an earlier request with the same id, if that request was identical.
fn previous_outcome<R: serde::de::DeserializeOwned>(
    tx: &Connection,
    resource: &str,
    holder: &str,
    request_id: &str,
    request: &str,
) -> Result<Option<R>, StoreError> {
    let stored: Option<(String, String)> = tx
        .prepare_cached(
            "SELECT request, reply FROM outcomes
             WHERE resource = ?1 AND holder = ?2 AND request_id = ?3",
        )?
        .query_row(params![resource, holder, request_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    match stored {
        None => Ok(None),
        Some((first, _)) if first != request => Err(StoreError::RequestIdReused),
        Some((_, reply)) => serde_json::from_str(&reply)
            .map(Some)
            .map_err(|e| StoreError::Corrupt(format!("stored reply: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &tempfile::TempDir) -> Store {
        let limits = DurationLimits::new(1, 60_000).unwrap();
        Store::open(&dir.path().join("leases.db"), limits).unwrap()
    }

    fn grant(holder: &str, id: &str, duration_ms: u64) -> GrantRequest {
        GrantRequest {
            resource: "r".into(),
            holder: holder.into(),
            duration_ms,
            request_id: id.into(),
            lease_secret: None,
        }
    }

    #[test]
    fn same_holder_regrant_increments_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = open(&dir);
        let first = store.run(|s| s.grant(&grant("a", "1", 10_000))).unwrap();
        let token = first.token.unwrap().get();
        // Without the live grant's secret, the same holder name is denied like anyone else.
        let unproven = store.run(|s| s.grant(&grant("a", "2", 10_000))).unwrap();
        assert!(!unproven.granted, "{unproven:?}");
        let proven = GrantRequest {
            lease_secret: Some(store.secrets.lease("r", token)),
            ..grant("a", "3", 10_000)
        };
        let second = store.run(|s| s.grant(&proven)).unwrap();
        assert_eq!(token + 1, second.token.unwrap().get());
    }

    #[test]
    fn reopening_holds_every_held_grant_for_its_full_duration() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = open(&dir);
        store.run(|s| s.grant(&grant("a", "1", 50_000))).unwrap();
        drop(store);
        let store = open(&dir);
        let left = store.status("r").unwrap().expires_in_ms.unwrap();
        assert!(left > 49_000, "{left}");
    }

    #[test]
    fn reopening_holds_a_renewed_grant_for_the_renewed_duration() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = open(&dir);
        let token = store
            .run(|s| s.grant(&grant("a", "1", 1_000)))
            .unwrap()
            .token
            .unwrap();
        let renewal = RenewRequest {
            resource: "r".into(),
            holder: "a".into(),
            token,
            duration_ms: 50_000,
            request_id: "2".into(),
            lease_secret: Some(store.secrets.lease("r", token.get())),
        };
        assert!(store.run(|s| s.renew(&renewal)).unwrap().renewed);
        drop(store);
        let store = open(&dir);
        let left = store.status("r").unwrap().expires_in_ms.unwrap();
        assert!(left > 49_000, "{left}");
    }

    #[test]
    fn a_revocation_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = open(&dir);
        let token = store
            .grant(&grant("a", "1", 50_000))
            .unwrap()
            .token
            .unwrap();
        assert!(store.run(|s| s.revoke("r")).unwrap());
        drop(store);
        let mut store = open(&dir);
        assert_eq!(store.held_count(), 0);
        let renewal = RenewRequest {
            resource: "r".into(),
            holder: "a".into(),
            token,
            duration_ms: 1_000,
            request_id: "2".into(),
            lease_secret: Some(store.secrets.lease("r", token.get())),
        };
        let refused = store.run(|s| s.renew(&renewal)).unwrap();
        assert_eq!(
            refused.reason,
            Some(tenure::protocol::RenewRefusal::Revoked)
        );
        let next = store.run(|s| s.grant(&grant("b", "1", 1_000))).unwrap();
        assert_eq!(next.token.unwrap().get(), token.get() + 1);
    }

    #[test]
    fn a_swept_grant_is_not_held_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = open(&dir);
        store.run(|s| s.grant(&grant("a", "1", 1))).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(store.run(|s| s.sweep()).unwrap(), 1);
        drop(store);
        let mut store = open(&dir);
        assert_eq!(store.held_count(), 0);
        let next = store.run(|s| s.grant(&grant("b", "1", 1_000))).unwrap();
        assert_eq!(next.token.unwrap().get(), 2);
    }

    #[test]
    fn a_version_1_database_opens_and_gains_handoffs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("leases.db");
        {
            // A database as a grantor of schema version 1 left it, with a held grant.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA).unwrap();
            conn.execute_batch(QUEUE_SCHEMA).unwrap();
            conn.execute_batch(
                "INSERT INTO leases (resource, token, holder, duration_ms, state)
                 VALUES ('r', 7, 'a', 50000, 'held');
                 PRAGMA user_version = 1;",
            )
            .unwrap();
        }
        let limits = DurationLimits::new(1, 60_000).unwrap();
        let mut store = Store::open(&path, limits).unwrap();
        let version: i64 = store
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(store.status("r").unwrap().token.unwrap().get(), 7);
        let release = ReleaseRequest {
            resource: "r".into(),
            holder: "a".into(),
            token: Token::new(7).unwrap(),
            lease_secret: Some(store.secrets.lease("r", 7)),
            hand_to: Some("b".into()),
        };
        assert!(store.run(|s| s.release(&release)).unwrap().released);
        let denied = store.run(|s| s.grant(&grant("c", "1", 1_000))).unwrap();
        assert_eq!(denied.holder.as_deref(), Some("b"));
        drop(store);
        // Reopened, the preference is kept again, for its full duration.
        let mut store = Store::open(&path, limits).unwrap();
        assert_eq!(store.watch("r").unwrap().handed_to.as_deref(), Some("b"));
        let handed = store.run(|s| s.grant(&grant("b", "1", 1_000))).unwrap();
        assert_eq!(handed.token.unwrap().get(), 8);
    }

    #[test]
    fn outcomes_are_pruned_to_the_retention_limit() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = open(&dir);
        for i in 0..OUTCOMES_KEPT_PER_RESOURCE + 2 * PRUNE_EVERY {
            store
                .run(|s| s.grant(&grant("a", &i.to_string(), 1_000)))
                .unwrap();
        }
        let kept: u32 = store
            .conn
            .query_row("SELECT COUNT(*) FROM outcomes", [], |r| r.get(0))
            .unwrap();
        // Pruned every PRUNE_EVERY records, so never more than that many over the limit.
        assert!(kept >= OUTCOMES_KEPT_PER_RESOURCE, "{kept}");
        assert!(kept < OUTCOMES_KEPT_PER_RESOURCE + PRUNE_EVERY, "{kept}");
    }
}
