//! The tenure grantor's wire (docs/protocol.md): requests written by hand, replies parsed into
//! just the fields a benchmark checks.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Deserialize;

use crate::http::{bad_reply, Conn, Endpoint, Error, Result};
use crate::run::Client;

/// The protocol's limit on items per enqueue (`MAX_ENQUEUE_ITEMS`).
const ENQUEUE_BATCH: u64 = 1000;

/// A JSON string literal. Request bodies are formatted by hand to keep the generator cheap; every
/// string that is not a fixed name of ours (a secret, a user's queue name) goes through this
/// once, so the bodies stay valid JSON whatever it holds.
pub fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string always serializes")
}

pub fn parse<'a, T: Deserialize<'a>>(path: &str, body: &'a [u8]) -> Result<T> {
    serde_json::from_slice(body)
        .map_err(|e| bad_reply(path, &format!("unparsable reply ({e})"), body))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GrantReply {
    granted: bool,
    token: Option<u64>,
    lease_secret: Option<String>,
}

#[derive(Deserialize)]
struct RenewReply {
    renewed: Option<bool>,
    reason: Option<String>,
    error: Option<ErrorBody>,
}

#[derive(Deserialize)]
struct ErrorBody {
    code: String,
    message: String,
}

/// A granted lease, its strings already JSON literals.
pub struct Lease {
    resource: String,
    holder: String,
    token: u64,
    secret: String,
}

/// Grants `resource` to `holder` (both JSON literals); anything but a grant is an error.
pub async fn grant(
    conn: &mut Conn,
    resource: String,
    holder: String,
    duration_ms: u64,
    request_id: &str,
) -> Result<Lease> {
    const PATH: &str = "/v1/grant";
    let body = format!(
        r#"{{"resource":{resource},"holder":{holder},"durationMs":{duration_ms},"requestId":"{request_id}"}}"#
    );
    let reply = conn.post(PATH, body.as_bytes()).await?;
    match parse::<GrantReply>(PATH, reply)? {
        GrantReply {
            granted: true,
            token: Some(token),
            lease_secret: Some(secret),
        } => Ok(Lease {
            resource,
            holder,
            token,
            secret: json_str(&secret),
        }),
        _ => Err(bad_reply(PATH, "not granted", reply)),
    }
}

impl Lease {
    /// Writes the renewal of this lease as a `/v1/renew` body.
    fn write_renewal(
        &self,
        out: &mut String,
        duration_ms: u64,
        request_id: impl std::fmt::Display,
    ) {
        let Lease {
            resource,
            holder,
            token,
            secret,
        } = self;
        write!(
            out,
            r#"{{"resource":{resource},"holder":{holder},"token":{token},"durationMs":{duration_ms},"requestId":"{request_id}","leaseSecret":{secret}}}"#
        )
        .expect("writing to a String");
    }

    /// Renews once; `Ok(false)` when the grantor refused (the lease is lost), with the reason.
    pub async fn renew(
        &self,
        conn: &mut Conn,
        duration_ms: u64,
        request_id: &str,
    ) -> Result<std::result::Result<(), String>> {
        const PATH: &str = "/v1/renew";
        let mut body = String::with_capacity(256);
        self.write_renewal(&mut body, duration_ms, request_id);
        let reply = conn.post(PATH, body.as_bytes()).await?;
        let renewal: RenewReply = parse(PATH, reply)?;
        Ok(match renewal.renewed {
            Some(true) => Ok(()),
            _ => Err(refusal(&renewal)),
        })
    }
}

fn refusal(reply: &RenewReply) -> String {
    match (&reply.reason, &reply.error) {
        (Some(reason), _) => format!("refused: {reason}"),
        (None, Some(e)) => format!("error {}: {}", e.code, e.message),
        (None, None) => "not renewed".to_owned(),
    }
}

/// Names unique to this run, so that runs against one grantor never collide.
#[derive(Clone)]
pub struct Names {
    pub prefix: Arc<str>,
}

impl Names {
    pub fn new() -> Names {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        Names {
            prefix: format!("loadgen-{}-{started}", std::process::id()).into(),
        }
    }

    /// A name of ours, as a JSON literal (it needs no escaping).
    pub fn name(&self, kind: &str, conn: usize) -> String {
        format!("\"{}/{kind}/{conn}\"", self.prefix)
    }

    /// The start of connection `conn`'s request ids; a sequence number completes each.
    pub fn request_ids(&self, conn: usize) -> String {
        format!("{}-{conn}", self.prefix)
    }
}

/// `grantor-renew`: one lease per connection, renewed back to back.
pub struct Renewer {
    conn: Conn,
    lease: Lease,
    duration_ms: u64,
    ids: String,
    seq: u64,
}

impl Renewer {
    pub async fn set_up(
        endpoint: Arc<Endpoint>,
        names: Names,
        i: usize,
        duration_ms: u64,
    ) -> Result<Renewer> {
        let mut conn = endpoint.connect().await?;
        let ids = names.request_ids(i);
        let lease = grant(
            &mut conn,
            names.name("renew", i),
            names.name("holder", i),
            duration_ms,
            &format!("{ids}-grant"),
        )
        .await?;
        Ok(Renewer {
            conn,
            lease,
            duration_ms,
            ids,
            seq: 0,
        })
    }
}

impl Client for Renewer {
    async fn step(&mut self) -> Result<u64> {
        self.seq += 1;
        let request_id = format!("{}-{}", self.ids, self.seq);
        self.lease
            .renew(&mut self.conn, self.duration_ms, &request_id)
            .await?
            .map_err(|why| Error::Failed(format!("/v1/renew: {why}")))?;
        Ok(1)
    }
}

/// `grantor-acquire`: every step grants a resource never used before.
pub struct Acquirer {
    pub conn: Conn,
    pub names: Names,
    pub i: usize,
    pub holder: String,
    pub duration_ms: u64,
    pub seq: u64,
}

impl Client for Acquirer {
    async fn step(&mut self) -> Result<u64> {
        self.seq += 1;
        let prefix = &self.names.prefix;
        let resource = format!("\"{prefix}/acquire/{}/{}\"", self.i, self.seq);
        let request_id = format!("{prefix}-{}-{}", self.i, self.seq);
        grant(
            &mut self.conn,
            resource,
            self.holder.clone(),
            self.duration_ms,
            &request_id,
        )
        .await?;
        Ok(1)
    }
}

#[derive(Deserialize)]
struct BatchReply {
    results: Vec<RenewReply>,
}

/// `grantor-batch`: many leases per connection, all renewed in one request per step.
pub struct BatchRenewer {
    conn: Conn,
    leases: Vec<Lease>,
    duration_ms: u64,
    ids: String,
    seq: u64,
    body: String,
}

impl BatchRenewer {
    pub async fn set_up(
        endpoint: Arc<Endpoint>,
        names: Names,
        i: usize,
        batch: usize,
        duration_ms: u64,
    ) -> Result<BatchRenewer> {
        let mut conn = endpoint.connect().await?;
        let ids = names.request_ids(i);
        let holder = names.name("holder", i);
        let mut leases = Vec::with_capacity(batch);
        for k in 0..batch {
            let resource = format!("\"{}/batch/{i}/{k}\"", names.prefix);
            let lease = grant(
                &mut conn,
                resource,
                holder.clone(),
                duration_ms,
                &format!("{ids}-grant-{k}"),
            )
            .await?;
            leases.push(lease);
        }
        Ok(BatchRenewer {
            conn,
            leases,
            duration_ms,
            ids,
            seq: 0,
            body: String::new(),
        })
    }
}

impl Client for BatchRenewer {
    async fn step(&mut self) -> Result<u64> {
        const PATH: &str = "/v1/renew/batch";
        self.seq += 1;
        self.body.clear();
        self.body.push_str(r#"{"renewals":["#);
        for (k, lease) in self.leases.iter().enumerate() {
            if k > 0 {
                self.body.push(',');
            }
            lease.write_renewal(
                &mut self.body,
                self.duration_ms,
                format_args!("{}-{}-{k}", self.ids, self.seq),
            );
        }
        self.body.push_str("]}");
        let reply = self.conn.post(PATH, self.body.as_bytes()).await?;
        let batch: BatchReply = parse(PATH, reply)?;
        if batch.results.len() != self.leases.len() {
            return Err(bad_reply(PATH, "wrong number of results", reply));
        }
        if let Some((k, failed)) = batch
            .results
            .iter()
            .enumerate()
            .find(|(_, r)| r.renewed != Some(true))
        {
            return Err(Error::Failed(format!(
                "{PATH}: renewal {k} of the batch: {}",
                refusal(failed)
            )));
        }
        Ok(self.leases.len() as u64)
    }
}

#[derive(Deserialize)]
struct EnqueueReply {
    items: Vec<Enqueued>,
}

#[derive(Deserialize)]
struct Enqueued {
    enqueued: bool,
}

/// Enqueues `items` small items into `queue` (a JSON literal), in batches of the protocol's
/// maximum spread over `connections` connections.
pub async fn fill_queue(
    endpoint: &Arc<Endpoint>,
    queue: &str,
    items: u64,
    connections: usize,
) -> Result<()> {
    const PATH: &str = "/v1/queues/enqueue";
    let next_batch = Arc::new(AtomicU64::new(0));
    let batches = items.div_ceil(ENQUEUE_BATCH);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..connections.max(1) {
        let (endpoint, queue, next_batch) = (
            Arc::clone(endpoint),
            queue.to_owned(),
            Arc::clone(&next_batch),
        );
        tasks.spawn(async move {
            let mut conn = endpoint.connect().await?;
            let mut body = String::new();
            loop {
                let b = next_batch.fetch_add(1, Ordering::Relaxed);
                if b >= batches {
                    return Ok::<_, Error>(());
                }
                let first = b * ENQUEUE_BATCH;
                let count = ENQUEUE_BATCH.min(items - first);
                body.clear();
                write!(body, r#"{{"queue":{queue},"items":["#).expect("writing to a String");
                for n in first..first + count {
                    if n > first {
                        body.push(',');
                    }
                    write!(body, r#"{{"payload":{{"n":{n}}}}}"#).expect("writing to a String");
                }
                body.push_str("]}");
                let reply = conn.post(PATH, body.as_bytes()).await?;
                let enqueued: EnqueueReply = parse(PATH, reply)?;
                if enqueued.items.len() as u64 != count
                    || !enqueued.items.iter().all(|i| i.enqueued)
                {
                    return Err(bad_reply(PATH, "not every item was enqueued", reply));
                }
                // Pre-filling a million items takes a while: show it moving.
                if (b + 1) % 100 == 0 {
                    eprintln!("enqueued {} of {items} items", (first + count).min(items));
                }
            }
        });
    }
    while let Some(joined) = tasks.join_next().await {
        joined.expect("an enqueue task panicked")?;
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaimReply {
    claimed: bool,
    item: Option<Item>,
    token: Option<u64>,
    claim_secret: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    id: u64,
}

#[derive(Deserialize)]
struct CompleteReply {
    completed: bool,
    next: Option<ClaimReply>,
}

/// A live claim, its secret a JSON literal.
struct Claim {
    item_id: u64,
    token: u64,
    secret: String,
}

/// `None` for `{claimed: false}`.
fn claim_of(reply: ClaimReply, path: &str, body: &[u8]) -> Result<Option<Claim>> {
    match reply {
        ClaimReply { claimed: false, .. } => Ok(None),
        ClaimReply {
            item: Some(Item { id }),
            token: Some(token),
            claim_secret: Some(secret),
            ..
        } => Ok(Some(Claim {
            item_id: id,
            token,
            secret: json_str(&secret),
        })),
        _ => Err(bad_reply(
            path,
            "a claim without item, token or claimSecret",
            body,
        )),
    }
}

/// `grantor-claims`: claim an item, complete it, repeat.
pub struct Worker {
    conn: Conn,
    queue: String,
    worker: String,
    ids: String,
    seq: u64,
    /// Ask for the next claim with each completion (`claimNext`).
    next: bool,
    held: Option<Claim>,
    tally: Arc<QueueTally>,
}

/// Counts shared by every worker of a run, warm-up included.
#[derive(Default)]
pub struct QueueTally {
    /// Items completed, for the message when the queue runs dry.
    pub completed: AtomicU64,
    /// Claims that came with a completion's reply (`next`), to show `--next` took effect.
    pub from_next: AtomicU64,
}

/// How long a claim lasts: far longer than a step, so none runs out under load.
const CLAIM_MS: u64 = 30_000;

impl Worker {
    /// A worker on `queue` (a JSON literal) named after `conn`.
    pub fn new(
        conn: Conn,
        names: &Names,
        i: usize,
        queue: String,
        next: bool,
        tally: Arc<QueueTally>,
    ) -> Worker {
        Worker {
            conn,
            queue,
            worker: names.name("worker", i),
            ids: names.request_ids(i),
            seq: 0,
            next,
            held: None,
            tally,
        }
    }

    async fn claim(&mut self) -> Result<Claim> {
        const PATH: &str = "/v1/queues/claim";
        self.seq += 1;
        let body = format!(
            r#"{{"queue":{},"worker":{},"claimMs":{CLAIM_MS},"requestId":"{}-{}"}}"#,
            self.queue, self.worker, self.ids, self.seq
        );
        let reply = self.conn.post(PATH, body.as_bytes()).await?;
        claim_of(parse(PATH, reply)?, PATH, reply)?.ok_or_else(|| {
            Error::Failed(format!(
                "queue {} ran dry after {} items were completed: enqueue more items \
                 (--items, or the grantor-enqueue mode with --no-enqueue here)",
                self.queue,
                self.tally.completed.load(Ordering::Relaxed)
            ))
        })
    }
}

impl Client for Worker {
    async fn step(&mut self) -> Result<u64> {
        const PATH: &str = "/v1/queues/complete";
        let claim = match self.held.take() {
            Some(claim) => claim,
            None => self.claim().await?,
        };
        let mut body = format!(
            r#"{{"queue":{},"itemId":{},"worker":{},"token":{},"result":null,"claimSecret":{}"#,
            self.queue, claim.item_id, self.worker, claim.token, claim.secret
        );
        if self.next {
            self.seq += 1;
            write!(
                body,
                r#","claimNext":{{"claimMs":{CLAIM_MS},"requestId":"{}-{}"}}"#,
                self.ids, self.seq
            )
            .expect("writing to a String");
        }
        body.push('}');
        let reply = self.conn.post(PATH, body.as_bytes()).await?;
        let done: CompleteReply = parse(PATH, reply)?;
        if !done.completed {
            return Err(bad_reply(PATH, "not completed", reply));
        }
        self.tally.completed.fetch_add(1, Ordering::Relaxed);
        // Without a next claim (or with `claimed: false`, which a plain claim then confirms
        // as the queue running dry) the next step claims on its own.
        self.held = match done.next {
            Some(next) if self.next => claim_of(next, PATH, reply)?,
            _ => None,
        };
        if self.held.is_some() {
            self.tally.from_next.fetch_add(1, Ordering::Relaxed);
        }
        Ok(1)
    }
}
