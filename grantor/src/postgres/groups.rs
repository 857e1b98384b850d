//! Group commit for PostgreSQL renewals: the renewals that arrive while others are in flight
//! share one transaction, so one commit (one WAL flush) and a handful of round trips serve all
//! of them.
//!
//! A renewal on its own costs a transaction whose commit waits for the WAL to reach the disk, and
//! the disk allows only so many flushes a second. PostgreSQL already lets concurrent commits share
//! a flush, but each still pays its own round trips, row lock and commit record. Here a renewal
//! joins the next group instead: up to [`GROUPS_IN_FLIGHT`] groups run at once, each a batch
//! transaction ([`PgStore::renew_batch`], rows locked in resource order, so groups never
//! deadlock each other), and the renewals that arrive meanwhile form the next. Each renewal's
//! reply is exactly what it would have got alone: batch elements mean what single renewals mean,
//! and each waits for its group's commit.

use std::sync::Arc;

use tenure::protocol::{RenewReply, RenewRequest};
use tokio::sync::{mpsc, oneshot, Mutex};

use super::PgStore;
use crate::records::StoreError;

/// How many groups run at once. One at a time leaves PostgreSQL idle while a group's reply and
/// commit travel; more make smaller groups, so more commits for the same renewals. Measured with
/// `loadgen grantor-renew` on 2 cores: 1 group 3,300/s and 4,600/s at 16 and 64 connections,
/// 2 groups 6,400/s and 13,400/s, 4 groups 4,700/s and 8,800/s.
const GROUPS_IN_FLIGHT: usize = 2;

/// The most renewals one group takes: a group's renewals all wait for its slowest part, so a
/// burst should spread over several groups rather than make one very long transaction.
const MAX_GROUP: usize = 256;

/// How many renewals may wait for a group; beyond that, handlers wait for room.
const QUEUE_DEPTH: usize = 8192;

/// A renewal waiting for its group.
struct Waiting {
    req: RenewRequest,
    reply: oneshot::Sender<Result<RenewReply, StoreError>>,
}

/// Where renewal handlers send renewals to be grouped.
#[derive(Clone)]
pub struct RenewalGroups {
    queue: mpsc::Sender<Waiting>,
}

impl RenewalGroups {
    /// Starts the group runners on the current runtime.
    pub fn start(store: PgStore) -> RenewalGroups {
        let (queue, waiting) = mpsc::channel(QUEUE_DEPTH);
        let waiting = Arc::new(Mutex::new(waiting));
        for _ in 0..GROUPS_IN_FLIGHT {
            tokio::spawn(run_groups(store.clone(), waiting.clone()));
        }
        RenewalGroups { queue }
    }

    /// Renews as [`PgStore::renew`] would, in the next group.
    pub async fn renew(&self, req: RenewRequest) -> Result<RenewReply, StoreError> {
        let (reply, answer) = oneshot::channel();
        let stopped = || StoreError::TaskFailed("the renewal groups stopped".into());
        self.queue
            .send(Waiting { req, reply })
            .await
            .map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }
}

/// One group runner: takes every renewal waiting (up to [`MAX_GROUP`]), renews them as a batch,
/// answers each, and so on until every sender is gone.
async fn run_groups(store: PgStore, waiting: Arc<Mutex<mpsc::Receiver<Waiting>>>) {
    loop {
        let mut group = Vec::new();
        {
            // One runner gathers at a time; the others are renewing their groups meanwhile.
            let mut waiting = waiting.lock().await;
            let Some(first) = waiting.recv().await else {
                return;
            };
            group.push(first);
            while group.len() < MAX_GROUP {
                match waiting.try_recv() {
                    Ok(next) => group.push(next),
                    Err(_) => break,
                }
            }
        }
        let reqs: Vec<RenewRequest> = group.iter().map(|w| w.req.clone()).collect();
        match store.renew_batch(&reqs).await {
            Ok(results) => {
                for (waiting, result) in group.into_iter().zip(results) {
                    // A handler whose client hung up no longer waits for its reply.
                    let _ = waiting.reply.send(result);
                }
            }
            Err(e) => {
                // Nothing of the group was applied; each renewal may be repeated. Each is told
                // what failed, not only that something did.
                for waiting in group {
                    let _ = waiting.reply.send(Err(e.for_group_member()));
                }
            }
        }
    }
}
