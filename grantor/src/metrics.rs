//! `GET /metrics`: what this grantor process has answered, in the Prometheus text exposition
//! format (version 0.0.4).
//!
//! Every figure is taken from the replies the HTTP handlers send, never from the storage, so the
//! figures mean the same whichever backend keeps the leases. They describe this process: with
//! several grantors sharing one database, sum their counters.
//!
//! Counters and histograms are plain atomics. The held-lease gauge and the expiry counter come
//! from a small in-memory view of the grants this process handed out or renewed: a grant
//! counts as expired when its duration passes without a renewal, release or revocation seen
//! here. After a restart the view starts empty and fills again as holders renew.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tenure::protocol::{FencedWriteReply, GrantReply, ReleaseReply, RenewRefusal, RenewReply};
use tenure::rules;

use crate::AppState;

/// The exposition format's media type.
const CONTENT_TYPE_0_0_4: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds, in seconds, of the request latency buckets: from a read served from memory
/// (well under a millisecond) to a commit waiting on a slow disk.
const LATENCY_BUCKETS_S: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Every renewal refusal, so each appears (at 0) before it first happens.
const REFUSALS: [RenewRefusal; 4] = [
    RenewRefusal::Expired,
    RenewRefusal::Revoked,
    RenewRefusal::NotHolder,
    RenewRefusal::Unknown,
];

/// The route label of requests that matched no route (static files, unknown paths).
const OTHER_ROUTE: &str = "other";

/// How often the hooks look for grants that ran out; a scrape always looks.
const EXPIRY_CHECK_INTERVAL: Duration = Duration::from_secs(1);

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn read(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update leaves the figures consistent, so a panic elsewhere cannot corrupt them.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn refusal_index(reason: RenewRefusal) -> usize {
    match reason {
        RenewRefusal::Expired => 0,
        RenewRefusal::Revoked => 1,
        RenewRefusal::NotHolder => 2,
        RenewRefusal::Unknown => 3,
    }
}

/// Requests and latencies of one route.
#[derive(Default)]
struct RouteStats {
    /// By status class: 1xx to 5xx.
    by_class: [AtomicU64; 5],
    /// Per bucket, not cumulative; the last one is `+Inf`. Summed when rendered, so every
    /// scrape's buckets are cumulative and its `_count` equals its `+Inf` bucket.
    buckets: [AtomicU64; LATENCY_BUCKETS_S.len() + 1],
    sum_ns: AtomicU64,
}

/// A grant this process handed out or renewed, as far as it knows still held.
struct Held {
    holder: String,
    token: u64,
    until: Instant,
    /// When this process recorded it, so a revoke only removes grants recorded before it began.
    recorded: Instant,
}

struct HeldLeases {
    by_resource: HashMap<String, Held>,
    last_check: Instant,
}

/// The grantor's counters, gauge and histograms.
pub struct Metrics {
    grants: AtomicU64,
    denials: AtomicU64,
    renewals: AtomicU64,
    refusals: [AtomicU64; REFUSALS.len()],
    releases: AtomicU64,
    expiries: AtomicU64,
    revocations: AtomicU64,
    fenced_accepted: AtomicU64,
    fenced_rejected: AtomicU64,
    claims: AtomicU64,
    completions: AtomicU64,
    failures: AtomicU64,
    renew_batches: AtomicU64,
    renew_batch_elements: AtomicU64,
    handoffs: AtomicU64,
    watches_open: AtomicU64,
    watch_refusals: AtomicU64,
    held: Mutex<HeldLeases>,
    routes: RwLock<HashMap<Box<str>, Arc<RouteStats>>>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics {
            grants: AtomicU64::new(0),
            denials: AtomicU64::new(0),
            renewals: AtomicU64::new(0),
            refusals: Default::default(),
            releases: AtomicU64::new(0),
            expiries: AtomicU64::new(0),
            revocations: AtomicU64::new(0),
            fenced_accepted: AtomicU64::new(0),
            fenced_rejected: AtomicU64::new(0),
            claims: AtomicU64::new(0),
            completions: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            renew_batches: AtomicU64::new(0),
            renew_batch_elements: AtomicU64::new(0),
            handoffs: AtomicU64::new(0),
            watches_open: AtomicU64::new(0),
            watch_refusals: AtomicU64::new(0),
            held: Mutex::new(HeldLeases {
                by_resource: HashMap::new(),
                last_check: Instant::now(),
            }),
            routes: RwLock::new(HashMap::new()),
        }
    }
}

impl Metrics {
    /// Records a `/v1/grant` reply to `holder` for `resource`.
    pub(crate) fn grant(&self, resource: &str, holder: &str, reply: &GrantReply) {
        let (true, Some(token)) = (reply.granted, reply.token) else {
            bump(&self.denials);
            return;
        };
        bump(&self.grants);
        let now = Instant::now();
        let until = now + Duration::from_millis(reply.duration_ms.unwrap_or(0));
        let mut held = self.held_leases(now);
        match held.by_resource.get(resource) {
            // A retry answered from the idempotency record, or a reply overtaken by a newer grant.
            Some(previous) if previous.token >= token.get() => return,
            // The grantor gives a resource to another holder, or re-grants it to the same holder
            // after its duration, only once the previous grant ran out.
            Some(previous) if previous.holder != holder || !rules::is_live(previous.until, now) => {
                bump(&self.expiries);
            }
            _ => {}
        }
        held.by_resource.insert(
            resource.to_owned(),
            Held {
                holder: holder.to_owned(),
                token: token.get(),
                until,
                recorded: now,
            },
        );
    }

    /// Records a `/v1/renew` reply to `holder` for `resource`.
    pub(crate) fn renew(&self, resource: &str, holder: &str, reply: &RenewReply) {
        let now = Instant::now();
        if let (true, Some(token)) = (reply.renewed, reply.token) {
            bump(&self.renewals);
            let until = now + Duration::from_millis(reply.duration_ms.unwrap_or(0));
            let mut held = self.held_leases(now);
            match held.by_resource.get_mut(resource) {
                Some(known) if known.token == token.get() => known.until = until,
                Some(known) if known.token > token.get() => {}
                // Unknown here: granted before a restart, or by another grantor on the same
                // database.
                _ => {
                    held.by_resource.insert(
                        resource.to_owned(),
                        Held {
                            holder: holder.to_owned(),
                            token: token.get(),
                            until,
                            recorded: now,
                        },
                    );
                }
            }
        } else if let Some(reason) = reply.reason {
            bump(&self.refusals[refusal_index(reason)]);
            if reason == RenewRefusal::Expired {
                let mut held = self.held_leases(now);
                if held
                    .by_resource
                    .get(resource)
                    .is_some_and(|known| known.holder == holder)
                {
                    held.by_resource.remove(resource);
                    bump(&self.expiries);
                }
            }
        }
    }

    /// Records a `/v1/release` reply for the grant of `resource` with `token`; `handed` says
    /// whether the release named a holder to hand the resource to.
    pub(crate) fn release(&self, resource: &str, token: u64, reply: &ReleaseReply, handed: bool) {
        if !reply.released {
            return;
        }
        bump(&self.releases);
        if handed {
            bump(&self.handoffs);
        }
        let mut held = self.held_leases(Instant::now());
        if held
            .by_resource
            .get(resource)
            .is_some_and(|known| known.token == token)
        {
            held.by_resource.remove(resource);
        }
    }

    /// Records a `/v1/revoke` of `resource` that began at `started`.
    pub(crate) fn revoke(&self, resource: &str, started: Instant, revoked: bool) {
        if !revoked {
            return;
        }
        bump(&self.revocations);
        let mut held = self.held_leases(Instant::now());
        // A grant recorded after the revoke began may be a newer one that the revoke did not end.
        if held
            .by_resource
            .get(resource)
            .is_some_and(|known| known.recorded < started)
        {
            held.by_resource.remove(resource);
        }
    }

    /// Records a `/v1/fenced/write` reply.
    pub(crate) fn fenced_write(&self, reply: &FencedWriteReply) {
        bump(if reply.accepted {
            &self.fenced_accepted
        } else {
            &self.fenced_rejected
        });
    }

    /// Records a `/v1/queues/claim` reply: whether it claimed an item.
    pub(crate) fn claim(&self, claimed: bool) {
        if claimed {
            bump(&self.claims);
        }
    }

    /// Records a completed `/v1/queues/complete`.
    pub(crate) fn completion(&self) {
        bump(&self.completions);
    }

    /// Records an accepted `/v1/queues/fail`.
    pub(crate) fn failure(&self) {
        bump(&self.failures);
    }

    /// Records a `/v1/renew/batch` answered with `elements` results; each renewal in it is
    /// recorded on its own by [`Metrics::renew`].
    pub(crate) fn renew_batch(&self, elements: usize) {
        bump(&self.renew_batches);
        self.renew_batch_elements.fetch_add(
            u64::try_from(elements).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// Records a watch that began waiting.
    pub(crate) fn watch_opened(&self) {
        bump(&self.watches_open);
    }

    /// Records a watch that ended, however it ended.
    pub(crate) fn watch_closed(&self) {
        self.watches_open.fetch_sub(1, Ordering::Relaxed);
    }

    /// Records a watch refused because the limit of open watches was reached.
    pub(crate) fn watch_refused(&self) {
        bump(&self.watch_refusals);
    }

    /// Records one HTTP request: its route (`None` when it matched none), status and latency.
    fn http(&self, route: Option<&str>, status: StatusCode, elapsed: Duration) {
        let route = route.unwrap_or(OTHER_ROUTE);
        let known = self
            .routes
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(route)
            .cloned();
        // Routes come from the router's fixed set, so the map stays small.
        let stats = known.unwrap_or_else(|| {
            self.routes
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(route.into())
                .or_default()
                .clone()
        });
        let class = usize::from(status.as_u16() / 100).clamp(1, 5) - 1;
        bump(&stats.by_class[class]);
        let seconds = elapsed.as_secs_f64();
        let bucket = LATENCY_BUCKETS_S
            .iter()
            .position(|&bound| seconds <= bound)
            .unwrap_or(LATENCY_BUCKETS_S.len());
        bump(&stats.buckets[bucket]);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        stats.sum_ns.fetch_add(nanos, Ordering::Relaxed);
    }

    /// The held-lease view, after counting the grants that ran out if it is time to look.
    fn held_leases(&self, now: Instant) -> MutexGuard<'_, HeldLeases> {
        let mut held = lock(&self.held);
        if now.saturating_duration_since(held.last_check) >= EXPIRY_CHECK_INTERVAL {
            self.count_expired(&mut held, now);
        }
        held
    }

    fn count_expired(&self, held: &mut HeldLeases, now: Instant) {
        let before = held.by_resource.len();
        held.by_resource
            .retain(|_, known| rules::is_live(known.until, now));
        let expired = before - held.by_resource.len();
        self.expiries.fetch_add(
            u64::try_from(expired).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        held.last_check = now;
    }

    /// The exposition text.
    pub(crate) fn render(&self) -> String {
        let held = {
            let mut held = lock(&self.held);
            self.count_expired(&mut held, Instant::now());
            held.by_resource.len()
        };
        let mut out = String::with_capacity(8 * 1024);
        let counters: [(&str, &str, &AtomicU64); 13] = [
            ("grants_total", "Grant requests answered with a grant (a retry answered from the idempotency record counts again).", &self.grants),
            ("grant_denials_total", "Grant requests denied because another holder holds the lease.", &self.denials),
            ("renewals_total", "Renewal requests answered with a renewal (retries included).", &self.renewals),
            ("renew_batches_total", "Batches of renewals answered (each renewal in one also counts in renewals_total or renewal_refusals_total).", &self.renew_batches),
            ("renew_batch_elements_total", "Renewals that arrived in batches, whatever their outcome.", &self.renew_batch_elements),
            ("releases_total", "Releases that ended a live grant.", &self.releases),
            ("handoffs_total", "Releases that ended a live grant and handed the resource to another holder.", &self.handoffs),
            ("expiries_total", "Grants whose duration passed without a renewal, release or revocation.", &self.expiries),
            ("revocations_total", "Revocations that ended a live grant.", &self.revocations),
            ("queue_claims_total", "Work items claimed.", &self.claims),
            ("queue_completions_total", "Completions acknowledged (a retried completion counts again).", &self.completions),
            ("queue_failures_total", "Failed attempts acknowledged (a retried report counts again).", &self.failures),
            ("watch_refusals_total", "Watches refused because the limit of open watches was reached.", &self.watch_refusals),
        ];
        for (name, help, value) in counters {
            header(&mut out, name, help, "counter");
            let _ = writeln!(out, "tenure_grantor_{name} {}", read(value));
        }

        header(
            &mut out,
            "renewal_refusals_total",
            "Renewals refused, by reason.",
            "counter",
        );
        for reason in REFUSALS {
            let _ = writeln!(
                out,
                "tenure_grantor_renewal_refusals_total{{reason=\"{}\"}} {}",
                reason.as_str(),
                read(&self.refusals[refusal_index(reason)])
            );
        }

        header(
            &mut out,
            "fenced_writes_total",
            "Fenced writes, by outcome: rejected when a larger token had already written.",
            "counter",
        );
        for (outcome, value) in [
            ("accepted", &self.fenced_accepted),
            ("rejected", &self.fenced_rejected),
        ] {
            let _ = writeln!(
                out,
                "tenure_grantor_fenced_writes_total{{outcome=\"{outcome}\"}} {}",
                read(value)
            );
        }

        header(
            &mut out,
            "leases_held",
            "Leases this process granted or renewed that are still within their duration.",
            "gauge",
        );
        let _ = writeln!(out, "tenure_grantor_leases_held {held}");

        header(
            &mut out,
            "watches_open",
            "Watches (long polls on /v1/watch) open now.",
            "gauge",
        );
        let _ = writeln!(
            out,
            "tenure_grantor_watches_open {}",
            read(&self.watches_open)
        );

        let mut routes: Vec<(Box<str>, Arc<RouteStats>)> = self
            .routes
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(route, stats)| (route.clone(), stats.clone()))
            .collect();
        routes.sort_by(|a, b| a.0.cmp(&b.0));

        header(
            &mut out,
            "http_requests_total",
            "HTTP requests answered, by route and status class.",
            "counter",
        );
        for (route, stats) in &routes {
            let route = escape(route);
            for (class, value) in stats.by_class.iter().enumerate() {
                let count = read(value);
                if count > 0 {
                    let _ = writeln!(
                        out,
                        "tenure_grantor_http_requests_total{{route=\"{route}\",status=\"{}xx\"}} {count}",
                        class + 1
                    );
                }
            }
        }

        header(
            &mut out,
            "http_request_duration_seconds",
            "Time from receiving a request to having its response, by route.",
            "histogram",
        );
        for (route, stats) in &routes {
            let route = escape(route);
            let mut cumulative = 0;
            for (i, value) in stats.buckets.iter().enumerate() {
                cumulative += read(value);
                let bound = LATENCY_BUCKETS_S
                    .get(i)
                    .map_or_else(|| "+Inf".to_owned(), |b| b.to_string());
                let _ = writeln!(
                    out,
                    "tenure_grantor_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let sum_s = Duration::from_nanos(read(&stats.sum_ns)).as_secs_f64();
            let _ = writeln!(
                out,
                "tenure_grantor_http_request_duration_seconds_sum{{route=\"{route}\"}} {sum_s}"
            );
            let _ = writeln!(
                out,
                "tenure_grantor_http_request_duration_seconds_count{{route=\"{route}\"}} {cumulative}"
            );
        }
        out
    }
}

fn header(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP tenure_grantor_{name} {help}");
    let _ = writeln!(out, "# TYPE tenure_grantor_{name} {kind}");
}

/// A label value as the exposition format quotes it.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `GET /metrics`.
pub async fn scrape(State(state): State<AppState>) -> Response {
    let mut response = state.metrics.render().into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE_0_0_4));
    response
}

/// Counts every request by route and status class and times it.
pub async fn track(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    state
        .metrics
        .http(route.as_deref(), response.status(), started.elapsed());
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenure::protocol::Token;

    fn granted(token: u64, duration_ms: u64) -> GrantReply {
        GrantReply::granted(Token::new(token).unwrap(), duration_ms)
    }

    fn value(text: &str, series: &str) -> f64 {
        text.lines()
            .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no {series} in\n{text}"))
            .parse()
            .unwrap()
    }

    #[test]
    fn a_retried_or_overtaken_grant_reply_leaves_the_view_alone() {
        let metrics = Metrics::default();
        metrics.grant("r", "a", &granted(2, 60_000));
        metrics.grant("r", "a", &granted(2, 60_000));
        metrics.grant("r", "a", &granted(1, 60_000));
        let text = metrics.render();
        assert_eq!(value(&text, "tenure_grantor_grants_total"), 3.0);
        assert_eq!(value(&text, "tenure_grantor_leases_held"), 1.0);
        assert_eq!(value(&text, "tenure_grantor_expiries_total"), 0.0);
    }

    #[test]
    fn another_holders_grant_means_the_previous_one_ran_out() {
        let metrics = Metrics::default();
        metrics.grant("r", "a", &granted(1, 60_000));
        metrics.grant("r", "b", &granted(2, 60_000));
        metrics.grant("r", "b", &granted(3, 60_000));
        let text = metrics.render();
        assert_eq!(value(&text, "tenure_grantor_expiries_total"), 1.0);
        assert_eq!(value(&text, "tenure_grantor_leases_held"), 1.0);
    }

    #[test]
    fn a_revoke_spares_grants_recorded_after_it_began() {
        let metrics = Metrics::default();
        let started = Instant::now();
        metrics.grant("r", "a", &granted(1, 60_000));
        metrics.revoke("r", started, true);
        let text = metrics.render();
        assert_eq!(value(&text, "tenure_grantor_revocations_total"), 1.0);
        assert_eq!(value(&text, "tenure_grantor_leases_held"), 1.0);
        metrics.revoke("r", Instant::now(), true);
        assert_eq!(value(&metrics.render(), "tenure_grantor_leases_held"), 0.0);
    }

    #[test]
    fn latencies_land_in_the_first_bucket_that_holds_them() {
        let metrics = Metrics::default();
        metrics.http(Some("/x"), StatusCode::OK, Duration::from_micros(2_000));
        metrics.http(Some("/x"), StatusCode::OK, Duration::from_secs(60));
        let text = metrics.render();
        let bucket = |le: &str| {
            value(
                &text,
                &format!("tenure_grantor_http_request_duration_seconds_bucket{{route=\"/x\",le=\"{le}\"}}"),
            )
        };
        assert_eq!(bucket("0.001"), 0.0);
        assert_eq!(bucket("0.0025"), 1.0);
        assert_eq!(bucket("10"), 1.0);
        assert_eq!(bucket("+Inf"), 2.0);
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
