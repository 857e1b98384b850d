//! What only the PostgreSQL backend does: expiry decided by the database clock, the token limit
//! enforced by the database, schema creation by grantors starting together, a killed grantor
//! process that changes nothing, storage failures as `storage_unavailable`, and the `serve`
//! options.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::postgres::{self as pg, Postgres};
use common::{grant, post, Backend, Process, Server};
use serde_json::{json, Value};
use tenure_grantor::{AppState, Storage};

fn token_of(reply: &Value) -> u64 {
    reply["token"]
        .as_u64()
        .unwrap_or_else(|| panic!("no token in {reply}"))
}

async fn start() -> (Server, tokio_postgres::Client) {
    let server = Server::start_on(Backend::Postgres, |_| {}).await;
    let sql = pg::connect(server.postgres_url.as_deref().unwrap()).await;
    (server, sql)
}

#[tokio::test]
async fn expiry_is_decided_by_the_database_clock() {
    let (server, sql) = start().await;
    let (_, first) = server.post("/v1/grant", grant("r", "a", 60_000, "1")).await;
    let token = token_of(&first);
    // The expiry is stored as an instant of the database server's clock: the grant's duration
    // from the moment the server read its clock, within this test's round trips.
    let row = sql
        .query_one(
            "SELECT (EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000)::float8
             FROM lease_registry WHERE resource = 'r'",
            &[],
        )
        .await
        .unwrap();
    let left_ms: f64 = row.get(0);
    assert!((50_000.0..=60_000.0).contains(&left_ms), "{left_ms}");
    let (_, denied) = server.post("/v1/grant", grant("r", "b", 1_000, "1")).await;
    assert_eq!(denied["granted"], false, "{denied}");

    // Nothing in the grantor's memory keeps the lease: moving the stored expiry into the
    // database's past frees the resource at once.
    sql.execute(
        "UPDATE lease_registry SET expires_at = clock_timestamp() - INTERVAL '1 second'
         WHERE resource = 'r'",
        &[],
    )
    .await
    .unwrap();
    let (_, status) = server.get("/v1/status?resource=r").await;
    assert_eq!(status["holder"], Value::Null, "{status}");
    let (_, renewed) = server
        .post("/v1/renew", common::renew("r", "a", token, 1_000, "2"))
        .await;
    assert_eq!(renewed, json!({"renewed": false, "reason": "expired"}));
    let (_, taken) = server.post("/v1/grant", grant("r", "b", 1_000, "2")).await;
    assert_eq!(token_of(&taken), token + 1, "{taken}");
    server.stop().await;
}

#[tokio::test]
async fn the_database_refuses_a_token_past_the_limit() {
    let (server, sql) = start().await;
    let (_, first) = server.post("/v1/grant", grant("r", "a", 30_000, "1")).await;
    assert_eq!(token_of(&first), 1);
    let release = json!({"resource": "r", "holder": "a", "token": 1});
    assert_eq!(
        server.post("/v1/release", release).await.1["released"],
        true
    );
    let max = tenure::protocol::MAX_TOKEN;
    sql.execute(
        "UPDATE lease_registry SET token = $1::bigint - 1 WHERE resource = 'r'",
        &[&i64::try_from(max).unwrap()],
    )
    .await
    .unwrap();
    let (_, last) = server.post("/v1/grant", grant("r", "b", 30_000, "2")).await;
    assert_eq!(token_of(&last), max, "{last}");
    // Its holder re-grants (with the live grant's secret): that would take token 2^53.
    let (status, exhausted) = server.post("/v1/grant", grant("r", "b", 30_000, "3")).await;
    assert_eq!(status, 409, "{exhausted}");
    assert_eq!(exhausted["error"]["code"], "token_exhausted");
    // The refused grant changed nothing: the last token still holds.
    let (_, held) = server.get("/v1/status?resource=r").await;
    assert_eq!(held["token"], max);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grantors_starting_together_share_one_schema() {
    let url = pg::shared().fresh_database().await;
    let opens: Vec<_> = (0..6)
        .map(|_| {
            let config = common::test_config(Storage::Postgres(Box::new(url.parse().unwrap())));
            tokio::spawn(async move { AppState::open(&config).await.map(|_| ()) })
        })
        .collect();
    for open in opens {
        open.await.unwrap().unwrap();
    }
    let sql = pg::connect(&url).await;
    let version: i32 = sql
        .query_one("SELECT version FROM tenure_schema", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(version, 2);

    // A database written by a newer grantor is refused rather than misread.
    sql.execute("UPDATE tenure_schema SET version = 99", &[])
        .await
        .unwrap();
    let config = common::test_config(Storage::Postgres(Box::new(url.parse().unwrap())));
    let refused = AppState::open(&config)
        .await
        .err()
        .expect("opened a newer schema");
    assert!(
        refused.to_string().contains("schema version 99"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_grantor_process_changes_nothing() {
    const LEASE_MS: u64 = 4_000;
    let url = pg::shared().fresh_database().await;
    let client = reqwest::Client::new();
    let first = Process::start_postgres(&url);
    // The grant's lease starts, at the database, after this instant.
    let asked_at = Instant::now();
    let (_, held) = post(
        &client,
        &first.url,
        "/v1/grant",
        grant("r", "a", LEASE_MS, "a1"),
    )
    .await;
    let token = token_of(&held);
    let items = json!({"queue": "q", "items": [{"payload": 1}]});
    post(&client, &first.url, "/v1/queues/enqueue", items).await;
    let body = json!({"queue": "q", "worker": "w", "claimMs": 60_000, "requestId": "c1"});
    let (_, claimed) = post(&client, &first.url, "/v1/queues/claim", body.clone()).await;
    assert_eq!(claimed["claimed"], true, "{claimed}");
    // Most of the lease passes before the crash, so a restart that held the lease for its full
    // duration again (as the SQLite backend does) would keep it well past the original end.
    tokio::time::sleep(Duration::from_millis(LEASE_MS - 1_000)).await;
    first.kill();

    let restarted_at = Instant::now();
    let second = Process::start_postgres(&url);
    // The retry of the grant and of the claim, on the new process, replay the originals.
    let (_, retried) = post(
        &client,
        &second.url,
        "/v1/grant",
        grant("r", "a", LEASE_MS, "a1"),
    )
    .await;
    assert_eq!(retried["granted"], true, "{retried}");
    assert_eq!(retried["token"], held["token"]);
    // Another process derives the same secret from the key in the database.
    assert!(held["leaseSecret"].is_string(), "{held}");
    assert_eq!(retried["leaseSecret"], held["leaseSecret"]);
    // Promised only what is left of the original: most of the lease has passed.
    let left = retried["durationMs"].as_u64().unwrap();
    assert!((1..LEASE_MS).contains(&left), "replayed durationMs {left}");
    let (_, reclaimed) = post(&client, &second.url, "/v1/queues/claim", body).await;
    assert_eq!(reclaimed["item"], claimed["item"]);
    assert_eq!(reclaimed["token"], claimed["token"]);
    assert!(claimed["claimSecret"].is_string(), "{claimed}");
    assert_eq!(reclaimed["claimSecret"], claimed["claimSecret"]);
    let left = reclaimed["claimMs"].as_u64().unwrap();
    assert!((1..60_000).contains(&left), "replayed claimMs {left}");
    // The lease runs out when the database said it would: not extended by the restart (the
    // SQLite backend holds it again for its full duration), and not before.
    let mut attempt = 0;
    let taken = loop {
        attempt += 1;
        let body = grant("r", "b", LEASE_MS, &format!("b{attempt}"));
        let (_, reply) = post(&client, &second.url, "/v1/grant", body).await;
        if reply["granted"] == true {
            break reply;
        }
        assert!(
            restarted_at.elapsed() < Duration::from_millis(LEASE_MS),
            "still held a full lease after the restart, as if the restart extended it: {reply}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let waited = asked_at.elapsed();
    assert!(
        waited >= Duration::from_millis(LEASE_MS),
        "granted {waited:?} after the first grant was asked for"
    );
    assert!(token_of(&taken) > token);
    second.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_is_storage_unavailable() {
    let own = Postgres::start();
    let url = own.url("postgres");
    let server = Server::start_on(Backend::Postgres, |config| {
        config.storage = Storage::Postgres(Box::new(url.parse().unwrap()));
    })
    .await;
    let (status, reply) = server.post("/v1/grant", grant("r", "a", 1_000, "1")).await;
    assert_eq!((status, reply["granted"].clone()), (200, json!(true)));
    own.stop();
    let (status, reply) = server.post("/v1/grant", grant("r", "a", 1_000, "2")).await;
    assert_eq!(status, 503, "{reply}");
    assert_eq!(reply["error"]["code"], "storage_unavailable");
    let (status, reply) = server.get("/healthz").await;
    assert_eq!(
        (status, reply["error"]["code"].clone()),
        (503, json!("storage_unavailable"))
    );
    server.stop().await;
}

/// Runs `tenure-grantor serve` with `args`, which must make it exit; returns whether it
/// succeeded and its standard error.
fn serve_fails(args: &[&str]) -> (bool, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tenure-grantor"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .env_remove("TENURE_POSTGRES_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("tenure-grantor serve {args:?} kept running");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status.success(), stderr)
}

#[test]
fn serve_refuses_bad_storage_options() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let db = db.to_str().unwrap();
    let (ok, both) = serve_fails(&["--db", db, "--postgres", "postgres://127.0.0.1/x"]);
    assert!(!ok);
    assert!(both.contains("cannot be used with"), "{both}");
    let (ok, neither) = serve_fails(&[]);
    assert!(!ok);
    assert!(neither.contains("--db"), "{neither}");
    let (ok, bad) = serve_fails(&["--postgres", "postgres://127.0.0.1:notaport/x"]);
    assert!(!ok);
    assert!(bad.contains("not a valid PostgreSQL URL"), "{bad}");

    // Nothing listens on a port just freed; the error names the database, never the password.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://tenure:s3cret-pw@127.0.0.1:{port}/leases");
    let (ok, down) = serve_fails(&["--postgres", &url]);
    assert!(!ok);
    assert!(
        down.contains(&format!(
            "cannot open postgres 127.0.0.1 port {port} database leases"
        )),
        "{down}"
    );
    assert!(!down.contains("s3cret-pw"), "the password leaked: {down}");
    assert!(!std::path::Path::new(db).exists());
}
