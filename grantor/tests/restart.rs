//! Durability: the real binary, killed with SIGKILL and restarted on the same database file,
//! keeps every token increasing and grants nothing early.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{grant, grantor, post, Process};
use serde_json::json;

#[tokio::test]
async fn a_killed_grantor_restarts_without_early_grants_or_reused_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let client = reqwest::Client::new();

    let first = Process::start(&db);
    let (_, held) = post(
        &client,
        &first.url,
        "/v1/grant",
        grant("r", "a", 3_000, "a1"),
    )
    .await;
    assert_eq!(held["granted"], true, "{held}");
    let held_token = held["token"].as_u64().unwrap();
    let (_, freed) = post(
        &client,
        &first.url,
        "/v1/grant",
        grant("freed", "c", 60_000, "c1"),
    )
    .await;
    let freed_token = freed["token"].as_u64().unwrap();
    let release = json!({"resource": "freed", "holder": "c", "token": freed_token,
                         "leaseSecret": freed["leaseSecret"]});
    let (_, released) = post(&client, &first.url, "/v1/release", release).await;
    assert_eq!(released["released"], true);
    let write = json!({"resource": "r", "payload": {"n": 1}, "token": held_token,
                       "leaseSecret": held["leaseSecret"]});
    let (_, written) = post(&client, &first.url, "/v1/fenced/write", write).await;
    assert_eq!(written["accepted"], true);
    first.kill();

    let restarted_before = Instant::now();
    let second = Process::start(&db);

    // The grant was live at the crash, so it is held for its full duration from the restart.
    let (_, denied) = post(
        &client,
        &second.url,
        "/v1/grant",
        grant("r", "b", 3_000, "b0"),
    )
    .await;
    assert_eq!(
        denied["granted"], false,
        "granted early after a restart: {denied}"
    );
    assert_eq!(denied["holder"], "a");
    let left = denied["expiresInMs"].as_u64().unwrap();
    assert!((1..=3_000).contains(&left), "{left}");

    // Idempotency outcomes are durable: the holder's retry gets its original token back.
    let (_, retried) = post(
        &client,
        &second.url,
        "/v1/grant",
        grant("r", "a", 3_000, "a1"),
    )
    .await;
    assert_eq!(retried["granted"], true, "{retried}");
    assert_eq!(retried["token"], held["token"]);
    // The secret is derived from the key kept in the database: the same after the crash.
    assert!(held["leaseSecret"].is_string(), "{held}");
    assert_eq!(retried["leaseSecret"], held["leaseSecret"]);
    let left = retried["durationMs"].as_u64().unwrap();
    assert!((1..=3_000).contains(&left), "replayed durationMs {left}");

    let mut attempt = 0;
    let granted = loop {
        attempt += 1;
        let body = grant("r", "b", 3_000, &format!("b{attempt}"));
        let (_, reply) = post(&client, &second.url, "/v1/grant", body).await;
        if reply["granted"] == true {
            break reply;
        }
        assert!(
            restarted_before.elapsed() < Duration::from_secs(20),
            "never granted: {reply}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let waited = restarted_before.elapsed();
    assert!(
        waited >= Duration::from_millis(3_000),
        "granted {waited:?} after the restart, before the full duration"
    );
    assert!(granted["token"].as_u64().unwrap() > held_token);

    // A released grant frees the resource but keeps its counter across the restart.
    let (_, regrant) = post(
        &client,
        &second.url,
        "/v1/grant",
        grant("freed", "d", 1_000, "d1"),
    )
    .await;
    assert_eq!(
        regrant["granted"], true,
        "a released grant must not be held after a restart"
    );
    assert!(regrant["token"].as_u64().unwrap() > freed_token);

    let (_, read) = post(
        &client,
        &second.url,
        "/v1/fenced/read",
        json!({"resource": "r"}),
    )
    .await;
    assert_eq!(read, json!({"payload": {"n": 1}, "lastToken": held_token}));
    second.kill();
}

#[tokio::test]
async fn a_second_grantor_on_the_same_database_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("leases.db");
    let running = Process::start(&db);
    let mut intruder = grantor(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = intruder.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            intruder.kill().unwrap();
            intruder.wait().unwrap();
            panic!("a second grantor started on a database already in use");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut intruder.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("locked"), "{stderr}");

    // The first grantor is unaffected.
    let client = reqwest::Client::new();
    let (_, reply) = post(
        &client,
        &running.url,
        "/v1/grant",
        grant("r", "a", 1_000, "1"),
    )
    .await;
    assert_eq!(reply["granted"], true);
    running.kill();
}
