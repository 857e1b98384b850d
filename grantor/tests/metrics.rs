//! `GET /metrics` over real HTTP against an in-process grantor: the exposition parses, every
//! counter moves by exactly what the requests did, on a real SQLite file and on a real PostgreSQL
//! database alike, and the histograms are consistent.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use common::{grant, renew, Backend, Server};
use serde_json::{json, Value};

/// One scrape, parsed: every sample by its series (`name{labels}` as written), and each
/// family's `# TYPE`.
struct Exposition {
    samples: BTreeMap<String, f64>,
    types: HashMap<String, String>,
}

impl Exposition {
    /// Parses the text format strictly: every sample belongs to a family announced by `# HELP`
    /// and `# TYPE` lines before it, and every name has the grantor's prefix.
    fn parse(text: &str) -> Exposition {
        let mut samples = BTreeMap::new();
        let mut types = HashMap::new();
        let mut helped = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# HELP ") {
                let (name, help) = rest.split_once(' ').expect("HELP has a name and a text");
                assert!(!help.trim().is_empty(), "empty HELP for {name}");
                helped.push(name.to_owned());
            } else if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').expect("TYPE has a name and a type");
                assert!(
                    ["counter", "gauge", "histogram"].contains(&kind),
                    "type {kind} of {name}"
                );
                assert!(helped.iter().any(|h| h == name), "TYPE before HELP: {name}");
                assert!(
                    types.insert(name.to_owned(), kind.to_owned()).is_none(),
                    "{name} announced twice"
                );
            } else {
                assert!(!line.starts_with('#'), "unexpected comment {line:?}");
                let (series, value) = line.rsplit_once(' ').expect("a sample is SERIES VALUE");
                let name = series.split('{').next().unwrap();
                assert!(name.starts_with("tenure_grantor_"), "unprefixed {name}");
                let family = family_of(name, &types);
                assert!(types.contains_key(family), "{name} has no TYPE before it");
                let value: f64 = value
                    .parse()
                    .unwrap_or_else(|_| panic!("value of {line:?}"));
                assert!(value.is_finite() && value >= 0.0, "{line}");
                assert!(
                    samples.insert(series.to_owned(), value).is_none(),
                    "{series} twice"
                );
            }
        }
        Exposition { samples, types }
    }

    fn get(&self, series: &str) -> f64 {
        *self
            .samples
            .get(series)
            .unwrap_or_else(|| panic!("no sample {series}"))
    }

    /// The sample, or 0 when the series has not appeared yet (a route not yet requested).
    fn get_or_zero(&self, series: &str) -> f64 {
        self.samples.get(series).copied().unwrap_or(0.0)
    }
}

/// The family a sample belongs to: histograms add `_bucket`, `_sum` and `_count`.
fn family_of<'a>(name: &'a str, types: &HashMap<String, String>) -> &'a str {
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = name.strip_suffix(suffix) {
            if types.get(base).is_some_and(|t| t == "histogram") {
                return base;
            }
        }
    }
    name
}

async fn scrape(server: &Server) -> Exposition {
    let response = server
        .client
        .get(format!("{}/metrics", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    Exposition::parse(&response.text().await.unwrap())
}

/// The change of each named series between two scrapes.
fn deltas(before: &Exposition, after: &Exposition, series: &[&str]) -> BTreeMap<String, f64> {
    series
        .iter()
        .map(|s| ((*s).to_owned(), after.get(s) - before.get_or_zero(s)))
        .collect()
}

async fn revoke(server: &Server, resource: &str) -> (u16, Value) {
    let response = server
        .client
        .post(format!("{}/v1/revoke", server.url))
        .bearer_auth("test-admin-key")
        .json(&json!({ "resource": resource }))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

const GRANTS: &str = "tenure_grantor_grants_total";
const DENIALS: &str = "tenure_grantor_grant_denials_total";
const RENEWALS: &str = "tenure_grantor_renewals_total";
const RELEASES: &str = "tenure_grantor_releases_total";
const EXPIRIES: &str = "tenure_grantor_expiries_total";
const REVOCATIONS: &str = "tenure_grantor_revocations_total";
const HELD: &str = "tenure_grantor_leases_held";

fn refusals(reason: &str) -> String {
    format!("tenure_grantor_renewal_refusals_total{{reason=\"{reason}\"}}")
}

fn requests(route: &str, class: &str) -> String {
    format!("tenure_grantor_http_requests_total{{route=\"{route}\",status=\"{class}\"}}")
}

#[tokio::test]
async fn the_exposition_announces_every_family_with_its_type() {
    let server = Server::start(|_| {}).await;
    let first = scrape(&server).await;
    for (family, kind) in [
        (GRANTS, "counter"),
        (DENIALS, "counter"),
        (RENEWALS, "counter"),
        ("tenure_grantor_renewal_refusals_total", "counter"),
        (RELEASES, "counter"),
        (EXPIRIES, "counter"),
        (REVOCATIONS, "counter"),
        ("tenure_grantor_fenced_writes_total", "counter"),
        ("tenure_grantor_queue_claims_total", "counter"),
        ("tenure_grantor_queue_completions_total", "counter"),
        ("tenure_grantor_queue_failures_total", "counter"),
        ("tenure_grantor_http_requests_total", "counter"),
        ("tenure_grantor_http_request_duration_seconds", "histogram"),
        (HELD, "gauge"),
    ] {
        assert_eq!(
            first.types.get(family).map(String::as_str),
            Some(kind),
            "{family}"
        );
    }
    // Every refusal reason and fenced-write outcome is there from the start, at zero.
    for reason in ["expired", "revoked", "not_holder", "unknown"] {
        assert_eq!(first.get(&refusals(reason)), 0.0);
    }
    assert_eq!(first.get(GRANTS), 0.0);
    assert_eq!(first.get(HELD), 0.0);

    // The first scrape is counted once it has been answered.
    let second = scrape(&server).await;
    assert_eq!(second.get(&requests("/metrics", "2xx")), 1.0);
    server.stop().await;
}

async fn lease_counters_move_by_exactly_what_was_done(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let before = scrape(&server).await;

    let (_, a) = server
        .post("/v1/grant", grant("r1", "a", 30_000, "a1"))
        .await;
    assert_eq!(a["granted"], true);
    let token = a["token"].as_u64().unwrap();
    // A retry of the same attempt is answered again; it does not add a held lease.
    let (_, retried) = server
        .post("/v1/grant", grant("r1", "a", 30_000, "a1"))
        .await;
    assert_eq!(retried["token"].as_u64(), Some(token));
    let (_, denied) = server
        .post("/v1/grant", grant("r1", "b", 30_000, "b1"))
        .await;
    assert_eq!(denied["granted"], false);
    for i in 0..3 {
        let (_, renewed) = server
            .post(
                "/v1/renew",
                renew("r1", "a", token, 30_000, &format!("a-renew-{i}")),
            )
            .await;
        assert_eq!(renewed["renewed"], true);
    }
    let (_, not_holder) = server
        .post("/v1/renew", renew("r1", "b", token, 30_000, "b-renew"))
        .await;
    assert_eq!(not_holder["reason"], "not_holder");
    let (_, unknown) = server
        .post("/v1/renew", renew("nowhere", "a", 1, 30_000, "a-nowhere"))
        .await;
    assert_eq!(unknown["reason"], "unknown");
    let (_, c) = server
        .post("/v1/grant", grant("r2", "c", 30_000, "c1"))
        .await;
    let c_token = c["token"].as_u64().unwrap();
    let middle = scrape(&server).await;
    assert_eq!(middle.get(HELD), 2.0);

    let (_, released) = server
        .post(
            "/v1/release",
            json!({"resource": "r1", "holder": "a", "token": token}),
        )
        .await;
    assert_eq!(released["released"], true);
    // Releasing again ends nothing, and is not counted.
    let (_, again) = server
        .post(
            "/v1/release",
            json!({"resource": "r1", "holder": "a", "token": token}),
        )
        .await;
    assert_eq!(again["released"], false);
    assert_eq!(revoke(&server, "r2").await, (200, json!({"revoked": true})));
    assert_eq!(
        revoke(&server, "r2").await,
        (200, json!({"revoked": false}))
    );
    let (_, revoked) = server
        .post("/v1/renew", renew("r2", "c", c_token, 30_000, "c-renew"))
        .await;
    assert_eq!(revoked["reason"], "revoked");
    // A malformed grant: counted as a 4xx on its route, and as nothing else.
    let (status, _) = server
        .post("/v1/grant", json!({"resource": "r1", "holder": "a"}))
        .await;
    assert_eq!(status, 400);

    let after = scrape(&server).await;
    let moved = deltas(
        &before,
        &after,
        &[
            GRANTS,
            DENIALS,
            RENEWALS,
            RELEASES,
            REVOCATIONS,
            EXPIRIES,
            &refusals("not_holder"),
            &refusals("unknown"),
            &refusals("revoked"),
            &refusals("expired"),
            &requests("/v1/grant", "2xx"),
            &requests("/v1/grant", "4xx"),
            &requests("/v1/renew", "2xx"),
            &requests("/v1/release", "2xx"),
            &requests("/v1/revoke", "2xx"),
            &requests("/metrics", "2xx"),
        ],
    );
    let expected: BTreeMap<String, f64> = [
        (GRANTS, 3.0), // the first grant, its retry, and r2's
        (DENIALS, 1.0),
        (RENEWALS, 3.0),
        (RELEASES, 1.0),
        (REVOCATIONS, 1.0),
        (EXPIRIES, 0.0),
        (refusals("not_holder").as_str(), 1.0),
        (refusals("unknown").as_str(), 1.0),
        (refusals("revoked").as_str(), 1.0),
        (refusals("expired").as_str(), 0.0),
        (requests("/v1/grant", "2xx").as_str(), 4.0),
        (requests("/v1/grant", "4xx").as_str(), 1.0),
        (requests("/v1/renew", "2xx").as_str(), 6.0),
        (requests("/v1/release", "2xx").as_str(), 2.0),
        (requests("/v1/revoke", "2xx").as_str(), 2.0),
        (requests("/metrics", "2xx").as_str(), 2.0), // `before` and `middle`
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(moved, expected);
    assert_eq!(after.get(HELD), 0.0);
    server.stop().await;
}

async fn a_grant_left_to_run_out_counts_one_expiry(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    // Long enough to scrape it while held on a loaded machine; the wait below allows 5x that.
    let (_, granted) = server
        .post("/v1/grant", grant("short", "a", 2_000, "a1"))
        .await;
    let token = granted["token"].as_u64().unwrap();
    let held = scrape(&server).await;
    assert_eq!(held.get(HELD), 1.0);
    assert_eq!(held.get(EXPIRIES), 0.0);

    common::wait_until(Duration::from_secs(10), "the grant to run out", || async {
        scrape(&server).await.get(HELD) == 0.0
    })
    .await;
    assert_eq!(scrape(&server).await.get(EXPIRIES), 1.0);

    // The late renewal is refused as expired; the same expiry is not counted twice.
    let (_, late) = server
        .post("/v1/renew", renew("short", "a", token, 2_000, "a2"))
        .await;
    assert_eq!(late["reason"], "expired", "{late}");
    // Another holder taking the resource after it ran out is not a second expiry either.
    let (_, next) = server
        .post("/v1/grant", grant("short", "b", 30_000, "b1"))
        .await;
    assert_eq!(next["granted"], true);
    let after = scrape(&server).await;
    assert_eq!(after.get(EXPIRIES), 1.0);
    assert_eq!(after.get(&refusals("expired")), 1.0);
    assert_eq!(after.get(HELD), 1.0);
    server.stop().await;
}

async fn fencing_and_queue_counters_follow_the_replies(backend: Backend) {
    let server = Server::start_on(backend, |_| {}).await;
    let before = scrape(&server).await;

    let tokens = common::successive_tokens(&server, "f", 3).await;
    for (token, accepted) in [
        (tokens[0], true),
        (tokens[0], true),
        (tokens[2], true),
        (tokens[1], false),
    ] {
        let (_, reply) = server
            .post(
                "/v1/fenced/write",
                json!({"resource": "f", "payload": {"n": token}, "token": token}),
            )
            .await;
        assert_eq!(reply["accepted"], accepted, "token {token}");
    }

    let (_, enqueued) = server
        .post(
            "/v1/queues/enqueue",
            json!({"queue": "q", "items": [{"payload": 1}, {"payload": 2}]}),
        )
        .await;
    assert_eq!(enqueued["items"].as_array().unwrap().len(), 2);
    let claim =
        |id: &'static str| json!({"queue": "q", "worker": "w", "claimMs": 30_000, "requestId": id});
    let (_, first) = server.post("/v1/queues/claim", claim("c1")).await;
    let (_, second) = server.post("/v1/queues/claim", claim("c2")).await;
    let (_, none) = server.post("/v1/queues/claim", claim("c3")).await;
    assert_eq!(none["claimed"], false);
    let settle = |claim: &Value| {
        json!({
            "queue": "q",
            "itemId": claim["item"]["id"],
            "worker": "w",
            "token": claim["token"],
        })
    };
    let mut complete = settle(&first);
    complete["result"] = json!("ok");
    let (status, _) = server.post("/v1/queues/complete", complete.clone()).await;
    assert_eq!(status, 200);
    let mut fail = settle(&second);
    fail["error"] = json!({"message": "no"});
    let (status, _) = server.post("/v1/queues/fail", fail).await;
    assert_eq!(status, 200);
    // A stale completion is refused: a 4xx, and no completion.
    let mut stale = settle(&second);
    stale["result"] = json!("late");
    let (status, _) = server.post("/v1/queues/complete", stale).await;
    assert_eq!(status, 409);

    let after = scrape(&server).await;
    let moved = deltas(
        &before,
        &after,
        &[
            "tenure_grantor_fenced_writes_total{outcome=\"accepted\"}",
            "tenure_grantor_fenced_writes_total{outcome=\"rejected\"}",
            "tenure_grantor_queue_claims_total",
            "tenure_grantor_queue_completions_total",
            "tenure_grantor_queue_failures_total",
            &requests("/v1/queues/claim", "2xx"),
            &requests("/v1/queues/complete", "2xx"),
            &requests("/v1/queues/complete", "4xx"),
        ],
    );
    let expected: BTreeMap<String, f64> = [
        (
            "tenure_grantor_fenced_writes_total{outcome=\"accepted\"}",
            3.0,
        ),
        (
            "tenure_grantor_fenced_writes_total{outcome=\"rejected\"}",
            1.0,
        ),
        ("tenure_grantor_queue_claims_total", 2.0),
        ("tenure_grantor_queue_completions_total", 1.0),
        ("tenure_grantor_queue_failures_total", 1.0),
        (requests("/v1/queues/claim", "2xx").as_str(), 3.0),
        (requests("/v1/queues/complete", "2xx").as_str(), 1.0),
        (requests("/v1/queues/complete", "4xx").as_str(), 1.0),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(moved, expected);
    server.stop().await;
}

#[tokio::test]
async fn histogram_buckets_are_cumulative_and_agree_with_the_counts() {
    let server = Server::start(|_| {}).await;
    for i in 0..20 {
        server
            .post("/v1/grant", grant(&format!("h{i}"), "a", 30_000, "1"))
            .await;
    }
    for path in ["/v1/no-such-route", "/no-such-file"] {
        let (status, _) = server.get(path).await;
        assert_eq!(status, 404, "{path}");
    }
    let (status, _) = server.get("/healthz").await;
    assert_eq!(status, 200);
    let exposition = scrape(&server).await;

    // Buckets of each route, by bound.
    let mut buckets: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for (series, value) in &exposition.samples {
        let Some(labels) =
            series.strip_prefix("tenure_grantor_http_request_duration_seconds_bucket{")
        else {
            continue;
        };
        let (route, le) = labels
            .trim_end_matches('}')
            .split_once(",le=")
            .expect("route then le");
        let le = le.trim_matches('"');
        let bound = if le == "+Inf" {
            f64::INFINITY
        } else {
            le.parse().unwrap()
        };
        buckets
            .entry(route.to_owned())
            .or_default()
            .push((bound, *value));
    }
    let routes: Vec<&str> = buckets.keys().map(String::as_str).collect();
    assert!(routes.contains(&"route=\"/v1/grant\""), "{routes:?}");
    assert!(routes.contains(&"route=\"/healthz\""), "{routes:?}");
    // Unknown paths share a few labels, so a scanner cannot grow the label set.
    assert!(routes.contains(&"route=\"/v1/{*rest}\""), "{routes:?}");
    assert!(routes.contains(&"route=\"other\""), "{routes:?}");

    for (route, mut series) in buckets {
        series.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(
            series.last().unwrap().0,
            f64::INFINITY,
            "{route} has a +Inf bucket"
        );
        assert!(
            series.windows(2).all(|pair| pair[0].1 <= pair[1].1),
            "{route} buckets are cumulative: {series:?}"
        );
        let count = exposition.get(&format!(
            "tenure_grantor_http_request_duration_seconds_count{{{route}}}"
        ));
        assert_eq!(
            series.last().unwrap().1,
            count,
            "{route}: +Inf bucket = count"
        );
        let answered: f64 = ["1xx", "2xx", "3xx", "4xx", "5xx"]
            .iter()
            .map(|class| {
                exposition.get_or_zero(&format!(
                    "tenure_grantor_http_requests_total{{{route},status=\"{class}\"}}"
                ))
            })
            .sum();
        assert_eq!(
            answered, count,
            "{route}: every answered request is timed once"
        );
        let sum = exposition.get(&format!(
            "tenure_grantor_http_request_duration_seconds_sum{{{route}}}"
        ));
        assert!(
            sum > 0.0 && sum < count * 10.0,
            "{route}: sum {sum} for {count}"
        );
    }
    assert_eq!(
        exposition.get("tenure_grantor_http_request_duration_seconds_count{route=\"/v1/grant\"}"),
        20.0
    );
    server.stop().await;
}

#[tokio::test]
async fn scrapers_need_no_origin_and_foreign_pages_are_refused() {
    let server = Server::start(|_| {}).await;
    let foreign = server
        .client
        .get(format!("{}/metrics", server.url))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    let local = server
        .client
        .get(format!("{}/metrics", server.url))
        .header("origin", "http://127.0.0.1:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(local.status(), 200);
    // The refusal is itself counted, under the route it asked for.
    let exposition = scrape(&server).await;
    assert_eq!(exposition.get(&requests("/metrics", "4xx")), 1.0);
    assert_eq!(exposition.get(&requests("/metrics", "2xx")), 1.0);
    server.stop().await;
}

on_both_backends!(
    lease_counters_move_by_exactly_what_was_done,
    a_grant_left_to_run_out_counts_one_expiry,
    fencing_and_queue_counters_follow_the_replies,
);
