//! The key-value grantor world: several grantors share one store, as every Deno process sharing a
//! Deno KV database (or a Durable Object's requests, interleaved at their reads) does, and decide
//! with [`tenure::kv_grantor`]. Each request reads its records, waits, decides, and commits only
//! if nothing it read has changed since (the store's versionstamp check); a refused commit is
//! decided again from fresh reads. Grantors' clocks differ by up to the skew bound they are
//! configured with; replies are lost after their commit, and their requests retried.
//!
//! Invariant: no two holders believe they hold the resource at once, where a holder believes from
//! its grant's reply until its request's send plus the duration granted (renewals extend it from
//! their own send; a release ends it at its send), and no token is granted twice.
//!
//! Mutations each break one thing the invariant rests on, and the world must catch each:
//! commits that skip their checks, and grantors that ignore how far their clocks differ.

use std::collections::BTreeMap;

use tenure::kv_grantor::ops::{Op, Step};
use tenure::kv_grantor::{DurationLimits, Key, KvGrantor, Read, Reads};
use tenure::protocol::{GrantRequest, ReleaseRequest, RenewRequest, Token};
use tenure::secrets::{Secrets, SERVER_KEY_LEN};

use crate::rng::Rng;

/// A deliberately broken variant of the world's grantors or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KvMutation {
    /// Commits are written whatever changed since their reads.
    IgnoresCommitChecks,
    /// Grantors are configured with no clock skew bound while their clocks differ.
    IgnoresClockSkew,
}

/// What one seed did.
#[derive(Debug, Default)]
pub struct KvOutcome {
    /// The seed.
    pub seed: u64,
    /// Grants holders believed.
    pub grants: u64,
    /// Commits refused because something read had changed.
    pub conflicts: u64,
    /// Replies lost after their commit.
    pub lost_replies: u64,
    /// The first broken invariant, if any.
    pub violation: Option<String>,
}

const DURATION_MS: u64 = 1_000;

/// What a holder asked for.
#[derive(Clone, Debug)]
enum Ask {
    Grant,
    Renew(u64, String),
    Release(u64, String),
}

/// A request in flight: its reads so far and when it was sent.
struct InFlight {
    holder: usize,
    grantor: usize,
    ask: Ask,
    op: Op,
    sent_at: u64,
    reads: Reads,
    /// Each record read and its version then.
    seen: BTreeMap<Key, u64>,
    pending: Vec<Read>,
}

/// A holder: what it believes and what it has in flight.
#[derive(Default)]
struct Holder {
    /// The grant it believes in: its token, secret, and until when (true time, ms).
    held: Option<(u64, String, u64)>,
    busy: bool,
    /// A grant request to send again with the same id after its reply was lost.
    retry: Option<String>,
    next_id: u64,
}

struct Store {
    records: BTreeMap<Key, (String, u64)>,
    version: u64,
}

impl Store {
    fn read(&self, read: &Read) -> Vec<(Key, String)> {
        match read {
            Read::Get(key) => self
                .records
                .get(key)
                .map(|(text, _)| vec![(key.clone(), text.clone())])
                .unwrap_or_default(),
            Read::Range { .. } => Vec::new(),
        }
    }

    fn version_of(&self, key: &Key) -> u64 {
        self.records.get(key).map_or(0, |(_, v)| *v)
    }
}

/// Runs one seed.
pub fn run_kv(seed: u64, mutation: Option<KvMutation>) -> KvOutcome {
    let mut rng = Rng::new(seed ^ 0x6b76_6772_616e_746f);
    let mut outcome = KvOutcome {
        seed,
        ..KvOutcome::default()
    };
    let grantor_count = 2 + rng.below(3);
    let holder_count = 2 + rng.below(4);
    let skew_ms = [0, 50, 300][rng.below(3)];
    // Each grantor's clock is off true time by up to half the bound, so any two differ by at
    // most the bound.
    let offsets: Vec<i64> = (0..grantor_count)
        .map(|_| {
            if skew_ms == 0 {
                0
            } else {
                rng.range(0, skew_ms) as i64 - (skew_ms / 2) as i64
            }
        })
        .collect();
    let configured_skew = if mutation == Some(KvMutation::IgnoresClockSkew) {
        0
    } else {
        skew_ms
    };
    let secrets = Secrets::new([5; SERVER_KEY_LEN]);
    let limits = DurationLimits::new(1, 60_000).expect("valid limits");
    let grantors: Vec<KvGrantor> = (0..grantor_count)
        .map(|_| KvGrantor::new(secrets.clone(), limits, configured_skew))
        .collect();
    let mut store = Store {
        records: BTreeMap::new(),
        version: 0,
    };
    let mut holders: Vec<Holder> = (0..holder_count).map(|_| Holder::default()).collect();
    let mut flights: Vec<InFlight> = Vec::new();
    // Beliefs as (holder, token, from, until), for the overlap check.
    let mut beliefs: Vec<(usize, u64, u64, u64)> = Vec::new();
    let mut granted_tokens: BTreeMap<u64, usize> = BTreeMap::new();
    let mut now: u64 = 1_000_000;
    let loss = [0, 10, 30][rng.below(3)];

    for _ in 0..3_000 {
        now += rng.range(0, 40);
        // A holder with nothing in flight may act.
        let h = rng.below(holder_count);
        if !holders[h].busy {
            let holder = &mut holders[h];
            if holder
                .held
                .as_ref()
                .is_some_and(|(_, _, until)| *until <= now)
            {
                holder.held = None;
            }
            let ask = match (&holder.held, &holder.retry) {
                (_, Some(_)) => Some(Ask::Grant),
                (None, None) if rng.below(4) == 0 => Some(Ask::Grant),
                (Some((token, secret, until)), None) if *until < now + DURATION_MS / 2 => {
                    if rng.below(5) == 0 {
                        Some(Ask::Release(*token, secret.clone()))
                    } else {
                        Some(Ask::Renew(*token, secret.clone()))
                    }
                }
                _ => None,
            };
            if let Some(ask) = ask {
                holder.next_id += 1;
                let id = holder
                    .retry
                    .take()
                    .unwrap_or_else(|| holder.next_id.to_string());
                let name = ["h", &h.to_string()].concat();
                let op = match &ask {
                    Ask::Grant => Op::Grant(GrantRequest {
                        resource: "r".into(),
                        holder: name,
                        duration_ms: DURATION_MS,
                        request_id: id,
                        lease_secret: None,
                    }),
                    Ask::Renew(token, secret) => Op::Renew(RenewRequest {
                        resource: "r".into(),
                        holder: name,
                        token: Token::new(*token).expect("a granted token"),
                        duration_ms: DURATION_MS,
                        request_id: id,
                        lease_secret: Some(secret.clone()),
                    }),
                    Ask::Release(token, secret) => Op::Release(ReleaseRequest {
                        resource: "r".into(),
                        holder: name,
                        token: Token::new(*token).expect("a granted token"),
                        lease_secret: Some(secret.clone()),
                        hand_to: None,
                    }),
                };
                if let Ask::Release(..) = ask {
                    // It stops believing as it sends its release.
                    holder.held = None;
                    if let Some(b) = beliefs.iter_mut().rev().find(|b| b.0 == h) {
                        b.3 = b.3.min(now);
                    }
                }
                holder.busy = true;
                let pending = op.reads();
                flights.push(InFlight {
                    holder: h,
                    grantor: rng.below(grantor_count),
                    ask,
                    op,
                    sent_at: now,
                    reads: Reads::default(),
                    seen: BTreeMap::new(),
                    pending,
                });
            }
        }
        if flights.is_empty() {
            continue;
        }
        // Advance one request in flight by one step: its reads, or its decision and commit.
        let f = rng.below(flights.len());
        let flight = &mut flights[f];
        if !flight.pending.is_empty() {
            for read in std::mem::take(&mut flight.pending) {
                if let Read::Get(key) = &read {
                    flight.seen.insert(key.clone(), store.version_of(key));
                }
                let found = store.read(&read);
                flight.reads.add(read, found);
            }
            continue;
        }
        let grantor_now = (now as i64 + offsets[flight.grantor]) as u64;
        let step = flight
            .op
            .decide(&grantors[flight.grantor], &flight.reads, grantor_now);
        let (body, writes) = match step {
            Step::Read(more) => {
                flight.pending = more;
                continue;
            }
            Step::Reply { body, writes, .. } => (body, writes),
            Step::Wait { .. } => unreachable!("no watches here"),
        };
        let changed = flight
            .seen
            .iter()
            .any(|(key, version)| store.version_of(key) != *version);
        if changed && mutation != Some(KvMutation::IgnoresCommitChecks) {
            outcome.conflicts += 1;
            let flight = &mut flights[f];
            flight.reads = Reads::default();
            flight.seen.clear();
            flight.pending = flight.op.reads();
            continue;
        }
        for (key, text) in writes {
            store.version += 1;
            match text {
                Some(text) => store.records.insert(key, (text, store.version)),
                None => store.records.remove(&key),
            };
        }
        let flight = flights.swap_remove(f);
        let holder = &mut holders[flight.holder];
        holder.busy = false;
        if rng.range(0, 99) < loss {
            outcome.lost_replies += 1;
            if let (Ask::Grant, Op::Grant(req)) = (&flight.ask, &flight.op) {
                holder.retry = Some(req.request_id.clone());
            }
            continue;
        }
        let reply: serde_json::Value = serde_json::from_str(&body).expect("a JSON reply");
        let duration = reply["durationMs"].as_u64().unwrap_or(0);
        match flight.ask {
            Ask::Grant if reply["granted"] == true => {
                let token = reply["token"].as_u64().expect("a granted token");
                if let Some(other) = granted_tokens.get(&token).filter(|&&o| o != flight.holder) {
                    outcome.violation = Some(format!(
                        "token {token} granted to h{other} and h{}",
                        flight.holder
                    ));
                    break;
                }
                granted_tokens.insert(token, flight.holder);
                let secret = reply["leaseSecret"].as_str().unwrap_or_default().to_owned();
                let until = flight.sent_at + duration;
                holder.held = Some((token, secret, until));
                beliefs.push((flight.holder, token, now, until));
                outcome.grants += 1;
            }
            Ask::Renew(token, secret) if reply["renewed"] == true => {
                let until = flight.sent_at + duration;
                if holder.held.as_ref().is_some_and(|(t, ..)| *t == token) {
                    holder.held = Some((token, secret, until));
                    if let Some(b) = beliefs.iter_mut().rev().find(|b| b.0 == flight.holder) {
                        b.3 = b.3.max(until);
                    }
                }
            }
            Ask::Renew(..) => {
                // Refused: the grant is gone, and so is the belief.
                holder.held = None;
                if let Some(b) = beliefs.iter_mut().rev().find(|b| b.0 == flight.holder) {
                    b.3 = b.3.min(now);
                }
            }
            _ => {}
        }
        // No two holders' beliefs overlap: the belief this reply began or extended against
        // every other.
        if let Some(i) = beliefs.iter().rposition(|b| b.0 == flight.holder) {
            let a = beliefs[i];
            if let Some(b) = beliefs
                .iter()
                .find(|b| b.0 != a.0 && a.2 < b.3 && b.2 < a.3)
            {
                outcome.violation = Some(format!(
                    "h{} (token {}, {}..{}) and h{} (token {}, {}..{}) believed at once",
                    a.0, a.1, a.2, a.3, b.0, b.1, b.2, b.3
                ));
                break;
            }
        }
        beliefs.retain(|b| b.3 + 10 * DURATION_MS > now);
    }
    outcome
}
