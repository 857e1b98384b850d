//! The tenure grantor's wire (docs/protocol.md): requests are the protocol's own types
//! (`tenure::protocol`), serialized into a buffer each client reuses, so a step allocates little
//! and the bodies are exactly what the protocol defines; replies are parsed into just the fields
//! a benchmark checks.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tenure::protocol::{
    ClaimRequest, CompleteRequest, EnqueueRequest, GrantRequest, NewItem, NextClaim,
    RenewBatchRequest, RenewRequest, Token, MAX_ENQUEUE_ITEMS,
};

use crate::http::{bad_reply, Conn, Endpoint, Error, Result};
use crate::run::Client;

/// Items per enqueue: the protocol's limit.
const ENQUEUE_BATCH: u64 = MAX_ENQUEUE_ITEMS as u64;

/// Serializes `request` into `out` (emptied first), the body buffer its client reuses.
fn write_body<T: Serialize>(out: &mut Vec<u8>, request: &T) {
    out.clear();
    serde_json::to_writer(&mut *out, request).expect("a protocol request always serializes");
}

/// Sets `id` to `prefix-seq` in place, reusing its buffer.
fn set_request_id(id: &mut String, prefix: &str, seq: impl std::fmt::Display) {
    id.clear();
    write!(id, "{prefix}-{seq}").expect("writing to a String");
}

pub fn parse<'a, T: Deserialize<'a>>(path: &str, body: &'a [u8]) -> Result<T> {
    serde_json::from_slice(body)
        .map_err(|e| bad_reply(path, &format!("unparsable reply ({e})"), body))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GrantReply {
    granted: bool,
    token: Option<Token>,
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

/// A granted lease: its renewal, whose request id each renewal replaces.
pub struct Lease {
    renewal: RenewRequest,
    body: Vec<u8>,
}

/// Grants `resource` to `holder`; anything but a grant is an error.
pub async fn grant(
    conn: &mut Conn,
    resource: String,
    holder: String,
    duration_ms: u64,
    request_id: &str,
) -> Result<Lease> {
    const PATH: &str = "/v1/grant";
    let request = GrantRequest {
        resource,
        holder,
        duration_ms,
        request_id: request_id.to_owned(),
        lease_secret: None,
    };
    let mut body = Vec::with_capacity(256);
    write_body(&mut body, &request);
    let reply = conn.post(PATH, &body).await?;
    match parse::<GrantReply>(PATH, reply)? {
        GrantReply {
            granted: true,
            token: Some(token),
            lease_secret: Some(secret),
        } => Ok(Lease {
            renewal: RenewRequest {
                resource: request.resource,
                holder: request.holder,
                token,
                duration_ms,
                request_id: request.request_id,
                lease_secret: Some(secret),
            },
            body,
        }),
        _ => Err(bad_reply(PATH, "not granted", reply)),
    }
}

impl Lease {
    /// Renews once; `Ok(false)` when the grantor refused (the lease is lost), with the reason.
    pub async fn renew(
        &mut self,
        conn: &mut Conn,
        duration_ms: u64,
        request_id: &str,
    ) -> Result<std::result::Result<(), String>> {
        const PATH: &str = "/v1/renew";
        self.renewal.duration_ms = duration_ms;
        self.renewal.request_id.clear();
        self.renewal.request_id.push_str(request_id);
        write_body(&mut self.body, &self.renewal);
        let reply = conn.post(PATH, &self.body).await?;
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

    /// A name of ours: the kind of thing it names and its connection.
    pub fn name(&self, kind: &str, conn: usize) -> String {
        format!("{}/{kind}/{conn}", self.prefix)
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
        let resource = format!("{prefix}/acquire/{}/{}", self.i, self.seq);
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
    /// One renewal per lease, each request id replaced per step.
    batch: RenewBatchRequest,
    ids: String,
    seq: u64,
    body: Vec<u8>,
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
        let mut renewals = Vec::with_capacity(batch);
        for k in 0..batch {
            let resource = format!("{}/batch/{i}/{k}", names.prefix);
            let lease = grant(
                &mut conn,
                resource,
                holder.clone(),
                duration_ms,
                &format!("{ids}-grant-{k}"),
            )
            .await?;
            renewals.push(lease.renewal);
        }
        Ok(BatchRenewer {
            conn,
            batch: RenewBatchRequest { renewals },
            ids,
            seq: 0,
            body: Vec::new(),
        })
    }
}

impl Client for BatchRenewer {
    async fn step(&mut self) -> Result<u64> {
        const PATH: &str = "/v1/renew/batch";
        self.seq += 1;
        let seq = self.seq;
        for (k, renewal) in self.batch.renewals.iter_mut().enumerate() {
            set_request_id(
                &mut renewal.request_id,
                &self.ids,
                format_args!("{seq}-{k}"),
            );
        }
        write_body(&mut self.body, &self.batch);
        let reply = self.conn.post(PATH, &self.body).await?;
        let batch: BatchReply = parse(PATH, reply)?;
        let leases = self.batch.renewals.len();
        if batch.results.len() != leases {
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
        Ok(leases as u64)
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

/// A pre-filled item's payload: its number.
#[derive(Serialize)]
struct Numbered {
    n: u64,
}

/// Enqueues `items` small items (`{"n": …}`) into `queue`, in batches of the protocol's maximum
/// spread over `connections` connections.
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
            let mut body = Vec::new();
            let mut request = EnqueueRequest {
                queue,
                items: Vec::with_capacity(ENQUEUE_BATCH as usize),
            };
            loop {
                let b = next_batch.fetch_add(1, Ordering::Relaxed);
                if b >= batches {
                    return Ok::<_, Error>(());
                }
                let first = b * ENQUEUE_BATCH;
                let count = ENQUEUE_BATCH.min(items - first);
                request.items.clear();
                request
                    .items
                    .extend((first..first + count).map(|n| NewItem {
                        payload: Numbered { n },
                        dedupe_key: None,
                        max_attempts: None,
                    }));
                write_body(&mut body, &request);
                let reply = conn.post(PATH, &body).await?;
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
    token: Option<Token>,
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

/// A live claim.
struct Claim {
    item_id: u64,
    token: Token,
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
            secret,
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
    /// The claim request, its request id replaced per claim.
    claim: ClaimRequest,
    /// The completion, its claim (and `claimNext`'s request id) replaced per item.
    complete: CompleteRequest<()>,
    ids: String,
    seq: u64,
    held: Option<Claim>,
    tally: Arc<QueueTally>,
    body: Vec<u8>,
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
    /// A worker on `queue` named after `conn`; with `next`, each completion asks for the next
    /// claim (`claimNext`).
    pub fn new(
        conn: Conn,
        names: &Names,
        i: usize,
        queue: String,
        next: bool,
        tally: Arc<QueueTally>,
    ) -> Worker {
        let worker = names.name("worker", i);
        Worker {
            conn,
            claim: ClaimRequest {
                queue: queue.clone(),
                worker: worker.clone(),
                claim_ms: CLAIM_MS,
                request_id: Some(String::new()),
            },
            complete: CompleteRequest {
                queue,
                item_id: 0,
                worker,
                // Replaced by each claim's token before it is sent.
                token: Token::new(0).expect("0 is a token"),
                result: (),
                claim_secret: None,
                claim_next: next.then(|| NextClaim {
                    claim_ms: CLAIM_MS,
                    request_id: Some(String::new()),
                }),
            },
            ids: names.request_ids(i),
            seq: 0,
            held: None,
            tally,
            body: Vec::with_capacity(512),
        }
    }

    async fn claim(&mut self) -> Result<Claim> {
        const PATH: &str = "/v1/queues/claim";
        self.seq += 1;
        let id = self.claim.request_id.get_or_insert_with(String::new);
        set_request_id(id, &self.ids, self.seq);
        write_body(&mut self.body, &self.claim);
        let reply = self.conn.post(PATH, &self.body).await?;
        claim_of(parse(PATH, reply)?, PATH, reply)?.ok_or_else(|| {
            Error::Failed(format!(
                "queue {} ran dry after {} items were completed: enqueue more items \
                 (--items, or the grantor-enqueue mode with --no-enqueue here)",
                self.claim.queue,
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
        self.complete.item_id = claim.item_id;
        self.complete.token = claim.token;
        self.complete.claim_secret = Some(claim.secret);
        if let Some(next) = &mut self.complete.claim_next {
            self.seq += 1;
            let id = next.request_id.get_or_insert_with(String::new);
            set_request_id(id, &self.ids, self.seq);
        }
        write_body(&mut self.body, &self.complete);
        let reply = self.conn.post(PATH, &self.body).await?;
        let done: CompleteReply = parse(PATH, reply)?;
        if !done.completed {
            return Err(bad_reply(PATH, "not completed", reply));
        }
        self.tally.completed.fetch_add(1, Ordering::Relaxed);
        // Without a next claim (or with `claimed: false`, which a plain claim then confirms
        // as the queue running dry) the next step claims on its own.
        self.held = match done.next {
            Some(next) if self.complete.claim_next.is_some() => claim_of(next, PATH, reply)?,
            _ => None,
        };
        if self.held.is_some() {
            self.tally.from_next.fetch_add(1, Ordering::Relaxed);
        }
        Ok(1)
    }
}
