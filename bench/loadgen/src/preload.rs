//! Held leases written straight into a grantor's database, so that throughput can be measured
//! with a million leases held without granting them over HTTP for minutes first.
//!
//! Each row is what a first grant writes (token 1, state `held`, the holder `preload`), under the
//! names `preload/<i>`. A row already there is granted again, as a grant would: token plus one.
//! The grantor must have created its schema first (start and stop it once): writing the schema
//! here would be a second copy of it to keep in step.

use std::path::Path;

use rusqlite::{params, OpenFlags};

/// How long preloaded leases last: the grantor's default maximum, longer than any benchmark.
const DURATION_MS: i64 = 600_000;

pub fn sqlite(db: &Path, leases: u64) -> Result<(), String> {
    let fail = |e: rusqlite::Error| format!("{}: {e}", db.display());
    // Without SQLITE_OPEN_CREATE, so that a mistyped path is an error, not a new empty file.
    let mut conn = rusqlite::Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(fail)?;
    let has_table: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'leases')",
            [],
            |r| r.get(0),
        )
        .map_err(fail)?;
    if !has_table {
        return Err(format!(
            "{}: no `leases` table; start the grantor on this file once (and stop it) first",
            db.display()
        ));
    }
    // One transaction: one commit, so one fsync, for the lot.
    let tx = conn.transaction().map_err(fail)?;
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO leases (resource, token, holder, duration_ms, state)
                 VALUES (?1, 1, 'preload', ?2, 'held')
                 ON CONFLICT (resource) DO UPDATE SET
                    token = token + 1,
                    holder = excluded.holder,
                    duration_ms = excluded.duration_ms,
                    state = 'held'",
            )
            .map_err(fail)?;
        for i in 0..leases {
            insert
                .execute(params![format!("preload/{i}"), DURATION_MS])
                .map_err(fail)?;
        }
    }
    tx.commit().map_err(fail)
}

pub async fn postgres(url: &str, leases: u64) -> Result<(), String> {
    let fail = |e: tokio_postgres::Error| format!("PostgreSQL: {e}");
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .map_err(fail)?;
    let connection = tokio::spawn(connection);
    let has_table: bool = client
        .query_one("SELECT to_regclass('lease_registry') IS NOT NULL", &[])
        .await
        .map_err(fail)?
        .get(0);
    if !has_table {
        return Err(
            "no `lease_registry` table; start the grantor on this database once first".into(),
        );
    }
    let count = i64::try_from(leases).map_err(|_| "--leases is too large".to_owned())?;
    // As the grantor's grant writes a held row: expiry on the database's clock
    // (`clock_timestamp()`, like the grantor's), never this process's.
    client
        .execute(
            "INSERT INTO lease_registry
                 (resource, token, holder_id, duration_ms, state, granted_at, expires_at)
             SELECT 'preload/' || i, 1, 'preload', $2::bigint, 'held', clock_timestamp(),
                    clock_timestamp() + $2::bigint * INTERVAL '1 millisecond'
             FROM generate_series(0, $1::bigint - 1) AS i
             ON CONFLICT (resource) DO UPDATE SET
                 token = lease_registry.token + 1,
                 holder_id = excluded.holder_id,
                 duration_ms = excluded.duration_ms,
                 state = 'held',
                 granted_at = excluded.granted_at,
                 expires_at = excluded.expires_at",
            &[&count, &DURATION_MS],
        )
        .await
        .map_err(fail)?;
    drop(client);
    connection
        .await
        .expect("the PostgreSQL connection task panicked")
        .map_err(fail)
}
