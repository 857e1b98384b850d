//! `paced-renew`: holders renewing at their real pace while something else loads the server.
//!
//! Not closed loop: a closed loop measures how fast the server can go, this measures whether an
//! ordinary holder, renewing once per interval, keeps its lease while the server is under attack.
//! A renewal that is refused, fails, or answers later than the margin means the holder would
//! have had to stop acting on its lease: that is a lost lease, and the holder starts over with a
//! new grant on a new connection.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::task::JoinSet;
use tokio::time::{sleep_until, timeout, Instant};

use crate::grantor::{grant, Lease, Names};
use crate::http::{Conn, Endpoint, Error, Result};
use crate::run::{cpu_time_us, micros, report, set_up, Measured};

pub struct Pacing {
    pub holders: usize,
    pub duration_ms: u64,
    pub interval: Duration,
    pub margin: Duration,
    pub seconds: Duration,
}

#[derive(Default)]
struct Tally {
    renewals: u64,
    lost: u64,
    reconnects: u64,
    errors: u64,
    latencies_us: Vec<u64>,
}

struct Holder {
    endpoint: Arc<Endpoint>,
    names: Names,
    i: usize,
    /// Grants so far; each new grant is of a new resource, so that a lease the holder gave up
    /// but the grantor still counts as live never stands in its way.
    generation: u64,
    ids: String,
    seq: u64,
    /// Both present while the holder believes it holds its lease.
    conn: Option<Conn>,
    lease: Option<Lease>,
}

impl Holder {
    fn resource(&self) -> String {
        format!("{}/paced/{}/{}", self.names.prefix, self.i, self.generation)
    }

    async fn grant(&mut self, duration_ms: u64) -> Result<()> {
        self.generation += 1;
        self.seq += 1;
        let mut conn = self.endpoint.connect().await?;
        let lease = grant(
            &mut conn,
            self.resource(),
            self.names.name("holder", self.i),
            duration_ms,
            &format!("{}-{}", self.ids, self.seq),
        )
        .await?;
        self.conn = Some(conn);
        self.lease = Some(lease);
        Ok(())
    }

    /// One renewal; a connection the server closed while idle is reopened and the renewal sent
    /// again (with a fresh request id), which is what a real holder would do.
    async fn renew(
        &mut self,
        p: &Pacing,
        tally: &mut Tally,
    ) -> Result<std::result::Result<(), String>> {
        let (Some(conn), Some(lease)) = (&mut self.conn, &mut self.lease) else {
            return Ok(Err("no lease".to_owned()));
        };
        self.seq += 1;
        let first = lease
            .renew(conn, p.duration_ms, &format!("{}-{}", self.ids, self.seq))
            .await;
        if !matches!(first, Err(Error::Closed)) {
            return first;
        }
        tally.reconnects += 1;
        *conn = self.endpoint.connect().await?;
        self.seq += 1;
        lease
            .renew(conn, p.duration_ms, &format!("{}-{}", self.ids, self.seq))
            .await
    }

    async fn hold(mut self, p: Arc<Pacing>, start: Instant, end: Instant) -> Tally {
        let mut tally = Tally::default();
        // Holders spread over the interval, as independent holders would be.
        let mut next = start + p.interval.mul_f64(self.i as f64 / p.holders as f64);
        // No renewal waits longer than the lease lasts: by then it is lost for certain, and the
        // wait is still recorded as that renewal's latency.
        let cap = Duration::from_millis(p.duration_ms);
        loop {
            sleep_until(next).await;
            if Instant::now() >= end {
                return tally;
            }
            if self.lease.is_some() {
                tally.renewals += 1;
                let sent = Instant::now();
                let outcome = timeout(cap, self.renew(&p, &mut tally)).await;
                let waited = sent.elapsed();
                tally.latencies_us.push(micros(waited));
                let lost = match outcome {
                    Ok(Ok(Ok(()))) if waited <= p.margin => None,
                    Ok(Ok(Ok(()))) => Some(format!("renewed only after {waited:?}")),
                    Ok(Ok(Err(refused))) => Some(refused),
                    Ok(Err(e)) => {
                        tally.errors += 1;
                        Some(e.to_string())
                    }
                    Err(_) => {
                        tally.errors += 1;
                        Some(format!("no reply within {cap:?}"))
                    }
                };
                if let Some(why) = lost {
                    eprintln!("holder {} lost its lease: {why}", self.i);
                    tally.lost += 1;
                    self.conn = None;
                    self.lease = None;
                }
            }
            // Straight after a loss, or at the next tick while granting keeps failing (which
            // counts as errors, not as more losses: the lease was lost once).
            if self.lease.is_none() {
                match timeout(cap, self.grant(p.duration_ms)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        tally.errors += 1;
                        eprintln!("holder {} could not grant again: {e}", self.i);
                    }
                    Err(_) => {
                        tally.errors += 1;
                        eprintln!("holder {} could not grant again within {cap:?}", self.i);
                    }
                }
            }
            let now = Instant::now();
            next += p.interval;
            // A renewal that overran its tick is not followed by a burst of catch-up renewals.
            while next <= now {
                next += p.interval;
            }
        }
    }
}

pub async fn run(endpoint: Arc<Endpoint>, p: Pacing) -> Result<Map<String, Value>> {
    let names = Names::new();
    let holders = set_up(p.holders, |i| {
        let (endpoint, names) = (Arc::clone(&endpoint), names.clone());
        let duration_ms = p.duration_ms;
        async move {
            let mut holder = Holder {
                endpoint,
                ids: names.request_ids(i),
                names,
                i,
                generation: 0,
                seq: 0,
                conn: None,
                lease: None,
            };
            holder.grant(duration_ms).await?;
            Ok(holder)
        }
    })
    .await?;
    let p = Arc::new(p);
    let start = Instant::now();
    let end = start + p.seconds;
    let cpu_before = cpu_time_us();
    let mut tasks = JoinSet::new();
    for holder in holders {
        tasks.spawn(holder.hold(Arc::clone(&p), start, end));
    }
    let mut total = Tally::default();
    while let Some(joined) = tasks.join_next().await {
        let tally = joined.expect("a holder task panicked");
        total.renewals += tally.renewals;
        total.lost += tally.lost;
        total.reconnects += tally.reconnects;
        total.errors += tally.errors;
        total.latencies_us.extend(tally.latencies_us);
    }
    let measured = Measured {
        ops: total.renewals,
        latencies_us: total.latencies_us,
        seconds: p.seconds.as_secs_f64(),
        cpu_us: cpu_time_us() - cpu_before,
    };
    let mut out = report("paced-renew", p.holders, measured);
    out.insert("errors".into(), json!(total.errors));
    out.insert("holders".into(), json!(p.holders));
    out.insert("renewals".into(), json!(total.renewals));
    out.insert("leasesLost".into(), json!(total.lost));
    out.insert("reconnects".into(), json!(total.reconnects));
    out.insert("intervalMs".into(), json!(micros(p.interval) / 1000));
    out.insert("marginMs".into(), json!(micros(p.margin) / 1000));
    Ok(out)
}
