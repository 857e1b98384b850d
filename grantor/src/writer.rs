//! Group commit for the SQLite store: one thread owns the [`Store`] and runs the requests that
//! arrived while it was busy as one group, in one transaction with one commit.
//!
//! SQLite has one writer, and with `synchronous=FULL` every commit waits for an fsync: one commit
//! per request capped the grantor at one fsync's worth of requests per second, however many
//! clients waited. Here the fsync is shared: while a group commits, the next requests queue up,
//! and the next group takes them all (up to [`MAX_GROUP`]). Each request still runs in a savepoint
//! of its own ([`Store::in_savepoint`]), so its error undoes only its writes, and every reply
//! waits for the group's commit, so none is sent before what it reports is on disk. Groups of
//! nothing that must survive a restart skip the fsync altogether (see `store.rs`).
//!
//! Renewals run first in their group: a renewal late past its holder's margin loses the lease,
//! while any other request only waits a little longer.

use tokio::sync::{mpsc, oneshot};

use crate::records::StoreError;
use crate::secrets::Secrets;
use crate::store::Store;

/// The most requests one group takes. A request waits for its whole group, so an unbounded group
/// would let a burst delay every reply in it; 256 requests of the grantor's kind take a few
/// milliseconds.
const MAX_GROUP: usize = 256;

/// How many requests may wait for the writer; beyond that, senders wait for room, which holds
/// back the connections that send them rather than growing memory without bound.
const QUEUE_DEPTH: usize = 8192;

/// What the writer does with a request once its group is decided: `Some(store)` to run it inside
/// the open group, `None` when the group could not even begin. It returns what to do once the
/// group's commit succeeded (`Ok`) or failed (`Err`, with why).
type Work = Box<dyn FnOnce(Option<&mut Store>) -> Delivery + Send>;

/// Sends a request's reply, given how its group's commit went.
type Delivery = Box<dyn FnOnce(Result<(), &str>) + Send>;

/// One request for the writer.
struct Job {
    work: Work,
    /// Whether it is a renewal, which runs first in its group.
    renewal: bool,
}

/// Whether a request is a renewal, which the writer runs ahead of other work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Urgency {
    /// A renewal (or a batch of them).
    Renewal,
    /// Anything else.
    Other,
}

/// The handle the request handlers use: sends requests to the writer thread.
#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::Sender<Job>,
    secrets: Secrets,
}

impl Writer {
    /// Starts the writer thread, which owns `store` from now on.
    pub fn start(store: Store) -> Result<Writer, StoreError> {
        let secrets = store.secrets();
        let (jobs, queue) = mpsc::channel(QUEUE_DEPTH);
        std::thread::Builder::new()
            .name("tenure-sqlite-writer".into())
            .spawn(move || run_groups(store, queue))
            .map_err(|e| StoreError::TaskFailed(format!("starting the SQLite writer: {e}")))?;
        Ok(Writer { jobs, secrets })
    }

    /// What lease and claim secrets are derived with.
    pub fn secrets(&self) -> Secrets {
        self.secrets.clone()
    }

    /// Runs `op` in the next group and answers once that group committed.
    pub async fn run<T, F>(&self, urgency: Urgency, op: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let work: Work = Box::new(move |store| {
            let outcome = store.map(|store| store.in_savepoint(op));
            Box::new(move |committed| {
                let result = match (outcome, committed) {
                    // Its own error is the more precise one; either way it had no effect.
                    (Some(Err(e)), _) => Err(e),
                    (Some(Ok(value)), Ok(())) => Ok(value),
                    (_, Err(why)) => Err(StoreError::GroupFailed(why.to_owned())),
                    // A request is not run only when its group could not begin, and then the
                    // group reports that as its failure; this is for completeness.
                    (None, Ok(())) => Err(StoreError::GroupFailed("not run".into())),
                };
                // The handler may have gone (its client hung up); the reply has nowhere to go.
                let _ = reply.send(result);
            })
        });
        let job = Job {
            work,
            renewal: urgency == Urgency::Renewal,
        };
        self.jobs
            .send(job)
            .await
            .map_err(|_| StoreError::TaskFailed("the SQLite writer stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::TaskFailed("the SQLite writer stopped".into()))?
    }
}

/// The writer thread: takes every request waiting (up to [`MAX_GROUP`]), runs them as one group,
/// and so on until every handle is gone.
fn run_groups(mut store: Store, mut queue: mpsc::Receiver<Job>) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while let Some(first) = queue.blocking_recv() {
        group.push(first);
        while group.len() < MAX_GROUP {
            match queue.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        run_group(&mut store, &mut group);
    }
}

/// Runs one group: begin, each request in its savepoint (renewals first), commit, replies.
fn run_group(store: &mut Store, group: &mut Vec<Job>) {
    // Stable: requests of the same urgency keep their arrival order.
    group.sort_by_key(|job| !job.renewal);
    let begun = store.begin_group();
    let deliveries: Vec<Delivery> = match &begun {
        Ok(()) => group.drain(..).map(|job| (job.work)(Some(store))).collect(),
        Err(_) => group.drain(..).map(|job| (job.work)(None)).collect(),
    };
    let committed = begun.and_then(|()| store.commit_group());
    let committed = committed.map_err(|e| {
        tracing::error!(error = %e, "an SQLite group failed");
        e.to_string()
    });
    for deliver in deliveries {
        deliver(committed.as_ref().copied().map_err(String::as_str));
    }
}
