//! The closed loop, its measurement window, and what a run reports.

use std::future::Future;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::task::JoinSet;
use tokio::time::{sleep_until, Instant};

use crate::http::{Error, Result};

/// One simulated client: a connection and whatever it holds (a lease, a claim…).
pub trait Client: Send + 'static {
    /// Sends the next request(s) and reads the replies; returns how many operations that was
    /// (a batch renews many leases in one request).
    fn step(&mut self) -> impl Future<Output = Result<u64>> + Send;
}

/// What the counted window saw.
pub struct Measured {
    pub ops: u64,
    /// One per step completed in the window, in µs.
    pub latencies_us: Vec<u64>,
    pub seconds: f64,
    /// CPU time this process used in the window, in µs.
    pub cpu_us: u64,
}

/// Sets up `count` clients concurrently, before any timing starts, so that setup (granting
/// thousands of leases, say) never falls into the measured window.
pub async fn set_up<C, F, Fut>(count: usize, make: F) -> Result<Vec<C>>
where
    C: Send + 'static,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = Result<C>> + Send + 'static,
{
    let mut tasks = JoinSet::new();
    for i in 0..count {
        let setup = make(i);
        tasks.spawn(async move { (i, setup.await) });
    }
    let mut clients: Vec<Option<C>> = (0..count).map(|_| None).collect();
    while let Some(joined) = tasks.join_next().await {
        let (i, client) = joined.expect("a setup task panicked");
        clients[i] = Some(client.map_err(|e| on_connection(i, e))?);
    }
    Ok(clients.into_iter().flatten().collect())
}

/// Runs every client back to back, each with exactly one request in flight, through `warmup`
/// (not counted: the server's caches, the database's pages and the connections' buffers warm
/// up) and then `seconds` (counted). A step counts when it completes inside the counted window.
pub async fn closed_loop<C: Client>(
    clients: Vec<C>,
    warmup: Duration,
    seconds: Duration,
) -> Result<Measured> {
    let start = Instant::now() + warmup;
    let end = start + seconds;
    let cpu = tokio::spawn(async move {
        sleep_until(start).await;
        let before = cpu_time_us();
        sleep_until(end).await;
        cpu_time_us() - before
    });
    let mut tasks = JoinSet::new();
    for (i, client) in clients.into_iter().enumerate() {
        tasks.spawn(async move {
            drive(client, start, end)
                .await
                .map_err(|e| on_connection(i, e))
        });
    }
    let mut ops = 0;
    let mut latencies_us = Vec::new();
    // Joined as they finish, so that a failing connection stops the run at once.
    while let Some(joined) = tasks.join_next().await {
        let (n, latencies) = joined.expect("a client task panicked")?;
        ops += n;
        latencies_us.extend(latencies);
    }
    Ok(Measured {
        ops,
        latencies_us,
        seconds: seconds.as_secs_f64(),
        cpu_us: cpu.await.expect("the CPU sampler panicked"),
    })
}

async fn drive<C: Client>(mut client: C, start: Instant, end: Instant) -> Result<(u64, Vec<u64>)> {
    let mut ops = 0;
    let mut latencies = Vec::with_capacity(1 << 16);
    loop {
        let sent = Instant::now();
        let n = client.step().await?;
        let done = Instant::now();
        if done > end {
            return Ok((ops, latencies));
        }
        if done >= start {
            ops += n;
            latencies.push(micros(done - sent));
        }
    }
}

fn on_connection(i: usize, e: Error) -> Error {
    Error::Failed(format!("connection {i}: {e}"))
}

pub fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// User plus system CPU time of this whole process, in µs: printed per operation so a reader
/// can check that the generator was not what limited the throughput.
pub fn cpu_time_us() -> u64 {
    // SAFETY: getrusage only writes the struct it is given; all-zero is a valid `rusage`.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let us = |t: libc::timeval| {
        u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000 + u64::try_from(t.tv_usec).unwrap_or(0)
    };
    us(usage.ru_utime) + us(usage.ru_stime)
}

/// The fields every load mode prints.
pub fn report(mode: &str, connections: usize, mut m: Measured) -> Map<String, Value> {
    m.latencies_us.sort_unstable();
    let lat = &m.latencies_us;
    let ms = |us: u64| us as f64 / 1000.0;
    // Nearest rank: the smallest latency that at least q of the steps did not exceed.
    let percentile = |q: f64| {
        let rank = ((q * lat.len() as f64).ceil() as usize).clamp(1, lat.len());
        lat.get(rank - 1).map(|&us| ms(us))
    };
    let per_op = |x: f64| (m.ops > 0).then(|| (x / m.ops as f64 * 100.0).round() / 100.0);
    let value = json!({
        "mode": mode,
        "connections": connections,
        "seconds": m.seconds,
        "ops": m.ops,
        "opsPerSecond": (m.ops as f64 / m.seconds).round(),
        "p50Ms": percentile(0.50),
        "p99Ms": percentile(0.99),
        "maxMs": lat.last().map(|&us| ms(us)),
        "errors": 0,
        "generatorCpuUsPerOp": per_op(m.cpu_us as f64),
    });
    let Value::Object(map) = value else {
        unreachable!("json! of an object literal is an object")
    };
    map
}
