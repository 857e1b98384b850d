//! Fifty holders race for one resource over real HTTP: one grant per lease period, never two.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{grant, wait_until, Backend, Server};
use tokio::sync::Barrier;

const HOLDERS: usize = 50;
const ROUNDS: usize = 3;
const DURATION_MS: u64 = 1_500;

struct Grant {
    token: u64,
    holder: String,
    sent: Instant,
    received: Instant,
}

async fn fifty_holders_race_and_exactly_one_wins_each_period(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let mut grants: Vec<Grant> = Vec::new();
    for round in 0..ROUNDS {
        wait_until(
            Duration::from_secs(20),
            "the resource to be free",
            || async { server.get("/v1/status?resource=contested").await.1["holder"].is_null() },
        )
        .await;
        let barrier = Arc::new(Barrier::new(HOLDERS));
        let tasks: Vec<_> = (0..HOLDERS)
            .map(|i| {
                let (client, url, barrier) =
                    (server.client.clone(), server.url.clone(), barrier.clone());
                tokio::spawn(async move {
                    let holder = format!("holder-{i}");
                    let body = grant("contested", &holder, DURATION_MS, &format!("round-{round}"));
                    barrier.wait().await;
                    let sent = Instant::now();
                    let (status, reply) = common::post(&client, &url, "/v1/grant", body).await;
                    (holder, status, reply, sent, Instant::now())
                })
            })
            .collect();
        let mut replies = Vec::new();
        for task in tasks {
            replies.push(task.await.unwrap());
        }
        let first_sent = replies.iter().map(|r| r.3).min().unwrap();
        let last_received = replies.iter().map(|r| r.4).max().unwrap();
        let mut won = Vec::new();
        for (holder, status, reply, sent, received) in replies {
            assert_eq!(status, 200, "{reply}");
            if reply["granted"] == true {
                assert_eq!(reply["durationMs"], DURATION_MS);
                let token = reply["token"].as_u64().unwrap();
                won.push(Grant {
                    token,
                    holder,
                    sent,
                    received,
                });
            } else {
                let left = reply["expiresInMs"].as_u64().unwrap();
                assert!((1..=DURATION_MS).contains(&left), "{reply}");
                assert!(reply["holder"].as_str().is_some(), "{reply}");
            }
        }
        assert!(
            !won.is_empty(),
            "round {round}: nobody was granted a free resource"
        );
        // All fifty requests fit in one lease period, so only one of them may have won. (On a
        // machine too loaded for that, the ordering check below still proves no overlap.)
        if last_received.duration_since(first_sent) < Duration::from_millis(DURATION_MS) {
            assert_eq!(
                won.len(),
                1,
                "round {round}: more than one winner in one period"
            );
        }
        grants.extend(won);
    }

    grants.sort_by_key(|g| g.token);
    for pair in grants.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(b.token > a.token, "tokens must be distinct and increasing");
        // The grantor started `a`'s lease after `a` was sent, and granted `b` only after it ran
        // out, so `b`'s reply cannot arrive sooner than one duration after `a` was sent.
        let gap = b.received.duration_since(a.sent);
        assert!(
            gap >= Duration::from_millis(DURATION_MS),
            "{} (token {}) was granted {gap:?} after {} (token {}) asked",
            b.holder,
            b.token,
            a.holder,
            a.token
        );
    }
    assert!(grants.len() >= ROUNDS);
    server.stop().await;
}

on_both_backends!(fifty_holders_race_and_exactly_one_wins_each_period,);
