//! `loadgen`: a native, closed-loop HTTP load generator for the tenure grantor and for etcd.
//!
//! It measures how many lease operations per second a server sustains (grants, renewals, batched
//! renewals, queue claims; etcd lease grants and keepalives for comparison) and at what latency:
//! throughput, p50/p99/max per operation, after a warm-up that is not counted.
//!
//! **Closed loop.** Each simulated client is one keep-alive HTTP/1.1 connection with exactly one
//! request in flight: send, read the whole reply, send the next. The offered load is therefore
//! set by `--connections`, never by a rate the server may not keep up with, and each latency is
//! what a client waiting on its lease would see. (`paced-renew` is the exception on purpose: it
//! measures ordinary holders, renewing once per interval, while something else loads the server.)
//!
//! **Native.** The generator must never be the bottleneck, least of all on a small machine
//! where it shares the cores with the server under test. A JavaScript generator spends more CPU
//! per request than a fast server does; this one writes each request with one `write` from a
//! hand-rolled HTTP/1.1 client on one tokio thread by default, and prints its own CPU time per
//! operation (`generatorCpuUsPerOp`) so a reader can check how much of the machine it took.
//!
//! Output is one JSON line on stdout; progress and errors go to stderr. Any failure of a
//! closed-loop run (a non-2xx status, an unparsable reply, a refused operation, a closed
//! connection) stops it with the reply's start on stderr and a non-zero exit: a benchmark that
//! silently counted errors as operations would report nonsense.

mod etcd;
mod grantor;
mod http;
mod paced;
mod preload;
mod run;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use serde_json::{json, Map, Value};

use grantor::Names;
use http::{Endpoint, Error, Result};
use run::{closed_loop, report, set_up};

/// Native closed-loop HTTP load generator for the tenure grantor and etcd.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    /// Tokio worker threads. One is plenty for a loopback benchmark and leaves the cores to the
    /// server under test.
    #[arg(long, global = true, default_value_t = 1)]
    threads: usize,
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Each connection grants one lease, then renews it back to back. Counts renewals.
    GrantorRenew {
        #[command(flatten)]
        load: Load,
        #[arg(long, default_value_t = 60_000)]
        duration_ms: u64,
    },
    /// Each operation grants a resource never used before. Counts grants.
    GrantorAcquire {
        #[command(flatten)]
        load: Load,
        #[arg(long, default_value_t = 60_000)]
        duration_ms: u64,
    },
    /// Each connection grants --batch leases (not timed), then renews them all in one
    /// /v1/renew/batch per request. Counts renewals.
    GrantorBatch {
        #[command(flatten)]
        load: Load,
        #[arg(long, default_value_t = 60_000)]
        duration_ms: u64,
        /// Leases per connection, all renewed in each request (at most 10000).
        #[arg(long, default_value_t = 1000,
              value_parser = clap::value_parser!(u64).range(1..=10_000))]
        batch: u64,
    },
    /// Each connection claims an item and completes it, over and over. Counts completions.
    GrantorClaims {
        #[command(flatten)]
        load: Load,
        #[command(flatten)]
        queue: QueueArgs,
        /// Do not enqueue --items first: the queue was filled already (grantor-enqueue).
        #[arg(long)]
        no_enqueue: bool,
        /// Ask for the next claim with each completion (`claimNext`): one round trip per item.
        #[arg(long)]
        next: bool,
    },
    /// Setup only: enqueues --items items into --queue, 1000 per request.
    GrantorEnqueue {
        #[command(flatten)]
        server: Server,
        #[arg(long, default_value_t = 16)]
        connections: usize,
        #[command(flatten)]
        queue: QueueArgs,
    },
    /// etcd 3.4 JSON gateway: each connection grants a lease, then keeps it alive back to back.
    EtcdKeepalive {
        #[command(flatten)]
        load: Load,
    },
    /// etcd 3.4 JSON gateway: each operation grants a lease and puts a fresh key under it only
    /// if absent (one transaction): what an etcd-backed lease acquire costs.
    EtcdAcquire {
        #[command(flatten)]
        load: Load,
    },
    /// --holders holders, each on its own connection, renew every --interval-ms: how many
    /// leases are lost while something else loads the server. Exits 0 whatever it measured.
    PacedRenew {
        #[command(flatten)]
        server: Server,
        #[arg(long, default_value_t = 50)]
        holders: usize,
        #[arg(long, default_value_t = 10_000)]
        duration_ms: u64,
        #[arg(long, default_value_t = 1000)]
        interval_ms: u64,
        /// A renewal answered later than this counts as a lost lease.
        #[arg(long, default_value_t = 1000)]
        margin_ms: u64,
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
    },
    /// Inserts --leases held leases into a stopped grantor's SQLite file.
    PreloadSqlite {
        /// The grantor's database file, created by starting the grantor on it once.
        #[arg(long)]
        db: PathBuf,
        #[arg(long)]
        leases: u64,
    },
    /// Inserts --leases held leases into a grantor's PostgreSQL database.
    PreloadPostgres {
        /// postgres://user[:password]@host:port/dbname (no TLS).
        #[arg(long)]
        pg_url: String,
        #[arg(long)]
        leases: u64,
    },
}

#[derive(Args)]
struct Server {
    /// The server's base URL, http://host:port.
    #[arg(long)]
    url: String,
    /// Sent as `Authorization: Bearer <key>` with every request.
    #[arg(long)]
    api_key: Option<String>,
}

#[derive(Args)]
struct Load {
    #[command(flatten)]
    server: Server,
    /// Simulated clients: connections, each with one request in flight.
    #[arg(long, default_value_t = 16)]
    connections: usize,
    /// The counted window.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Run this long before counting.
    #[arg(long, default_value_t = 1.0)]
    warmup_seconds: f64,
}

#[derive(Args)]
struct QueueArgs {
    /// The queue's name; by default one unique to this run.
    #[arg(long)]
    queue: Option<String>,
    #[arg(long, default_value_t = 20_000)]
    items: u64,
}

impl Load {
    fn endpoint(&self) -> Result<Arc<Endpoint>> {
        self.server.endpoint()
    }

    async fn measure<C: run::Client>(
        &self,
        mode: &str,
        clients: Vec<C>,
    ) -> Result<Map<String, Value>> {
        eprintln!(
            "{mode}: {} connections, {} s warm-up, {} s counted",
            clients.len(),
            self.warmup_seconds,
            self.seconds
        );
        let measured = closed_loop(
            clients,
            seconds(self.warmup_seconds)?,
            seconds(self.seconds)?,
        )
        .await?;
        Ok(report(mode, self.connections, measured))
    }
}

impl Server {
    fn endpoint(&self) -> Result<Arc<Endpoint>> {
        Endpoint::new(&self.url, self.api_key.as_deref()).map_err(Error::Failed)
    }
}

fn seconds(s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s).map_err(|_| Error::Failed(format!("bad number of seconds: {s}")))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cli.threads.max(1))
        .enable_all()
        .build()
        .map_err(|e| Error::Failed(format!("starting the runtime: {e}")))
        .and_then(|runtime| runtime.block_on(run_mode(cli.mode)));
    match outcome {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("loadgen: {message}");
            ExitCode::FAILURE
        }
    }
}

fn elapsed(started: Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0
}

async fn run_mode(mode: Mode) -> Result<Value> {
    let names = Names::new();
    let result = match mode {
        Mode::GrantorRenew { load, duration_ms } => {
            let endpoint = load.endpoint()?;
            let clients = set_up(load.connections, |i| {
                grantor::Renewer::set_up(Arc::clone(&endpoint), names.clone(), i, duration_ms)
            })
            .await?;
            load.measure("grantor-renew", clients).await
        }
        Mode::GrantorAcquire { load, duration_ms } => {
            let endpoint = load.endpoint()?;
            let clients = set_up(load.connections, |i| {
                let (endpoint, names) = (Arc::clone(&endpoint), names.clone());
                async move {
                    Ok(grantor::Acquirer {
                        conn: endpoint.connect().await?,
                        holder: names.name("holder", i),
                        names,
                        i,
                        duration_ms,
                        seq: 0,
                    })
                }
            })
            .await?;
            load.measure("grantor-acquire", clients).await
        }
        Mode::GrantorBatch {
            load,
            duration_ms,
            batch,
        } => {
            let endpoint = load.endpoint()?;
            eprintln!(
                "granting {batch} leases on each of {} connections",
                load.connections
            );
            let batch = usize::try_from(batch).expect("at most 10000");
            let clients = set_up(load.connections, |i| {
                grantor::BatchRenewer::set_up(
                    Arc::clone(&endpoint),
                    names.clone(),
                    i,
                    batch,
                    duration_ms,
                )
            })
            .await?;
            load.measure("grantor-batch", clients).await.map(|mut out| {
                out.insert("batch".into(), json!(batch));
                out.insert(
                    "requests".into(),
                    json!(out["ops"].as_u64().unwrap_or(0) / batch as u64),
                );
                out
            })
        }
        Mode::GrantorClaims {
            load,
            queue,
            no_enqueue,
            next,
        } => {
            let endpoint = load.endpoint()?;
            let name = queue
                .queue
                .unwrap_or_else(|| format!("{}/queue", names.prefix));
            if !no_enqueue {
                eprintln!("enqueueing {} items into {name}", queue.items);
                grantor::fill_queue(&endpoint, &name, queue.items, load.connections).await?;
            }
            let tally = Arc::new(grantor::QueueTally::default());
            let clients = set_up(load.connections, |i| {
                let (endpoint, queue, tally) =
                    (Arc::clone(&endpoint), name.clone(), Arc::clone(&tally));
                let names = names.clone();
                async move {
                    let conn = endpoint.connect().await?;
                    Ok(grantor::Worker::new(conn, &names, i, queue, next, tally))
                }
            })
            .await?;
            load.measure("grantor-claims", clients)
                .await
                .map(|mut out| {
                    out.insert("queue".into(), json!(name));
                    out.insert("next".into(), json!(next));
                    // Over the whole run, warm-up included: 1 when every claim but each
                    // connection's first came with a completion.
                    let (done, from_next) = (
                        tally.completed.load(Ordering::Relaxed),
                        tally.from_next.load(Ordering::Relaxed),
                    );
                    if next && done > 0 {
                        let share = from_next as f64 / done as f64;
                        out.insert(
                            "nextClaimShare".into(),
                            json!((share * 1000.0).round() / 1000.0),
                        );
                    }
                    out
                })
        }
        Mode::GrantorEnqueue {
            server,
            connections,
            queue,
        } => {
            let endpoint = server.endpoint()?;
            let name = queue
                .queue
                .unwrap_or_else(|| format!("{}/queue", names.prefix));
            let started = Instant::now();
            grantor::fill_queue(&endpoint, &name, queue.items, connections).await?;
            return Ok(json!({
                "mode": "grantor-enqueue",
                "queue": name,
                "items": queue.items,
                "seconds": elapsed(started),
            }));
        }
        Mode::EtcdKeepalive { load } => {
            let endpoint = load.endpoint()?;
            let clients = set_up(load.connections, |_| {
                let endpoint = Arc::clone(&endpoint);
                async move { etcd::Keepaliver::set_up(endpoint.connect().await?).await }
            })
            .await?;
            load.measure("etcd-keepalive", clients).await
        }
        Mode::EtcdAcquire { load } => {
            let endpoint = load.endpoint()?;
            let clients = set_up(load.connections, |i| {
                let (endpoint, names) = (Arc::clone(&endpoint), names.clone());
                async move {
                    Ok(etcd::Acquirer {
                        conn: endpoint.connect().await?,
                        names,
                        i,
                        seq: 0,
                    })
                }
            })
            .await?;
            load.measure("etcd-acquire", clients).await
        }
        Mode::PacedRenew {
            server,
            holders,
            duration_ms,
            interval_ms,
            margin_ms,
            seconds: s,
        } => {
            let pacing = paced::Pacing {
                holders: holders.max(1),
                duration_ms,
                interval: Duration::from_millis(interval_ms.max(1)),
                margin: Duration::from_millis(margin_ms),
                seconds: seconds(s)?,
            };
            paced::run(server.endpoint()?, pacing).await
        }
        Mode::PreloadSqlite { db, leases } => {
            let started = Instant::now();
            preload::sqlite(&db, leases).map_err(Error::Failed)?;
            return Ok(json!({
                "mode": "preload-sqlite",
                "leases": leases,
                "seconds": elapsed(started),
            }));
        }
        Mode::PreloadPostgres { pg_url, leases } => {
            let started = Instant::now();
            preload::postgres(&pg_url, leases)
                .await
                .map_err(Error::Failed)?;
            return Ok(json!({
                "mode": "preload-postgres",
                "leases": leases,
                "seconds": elapsed(started),
            }));
        }
    };
    result.map(Value::Object)
}
