//! The tab election behind `TabLease`: one active tab (or worker) per name, across the contexts
//! of one browser profile.
//!
//! Three mechanisms, each covering what the others cannot:
//! - **Web Locks** give exclusivity and an instant handoff when the holder closes, navigates or
//!   crashes;
//! - a **heartbeat lease** on a shared log (IndexedDB) bounds how long a frozen or hung holder
//!   keeps the role: another tab judges the holder's newest entry expired by the
//!   [observed-expiry rule](super::observed) and takes over;
//! - an **epoch** that every hold increases fences stale holders (`FencedStore`).
//!
//! The log is a sequence of entries at slots `1, 2, 3, ...`; the newest entry says who holds the
//! role, with which epoch, and whether it is alive. Every write is an append at the slot after
//! the newest entry its writer knows, which fails if anyone wrote since: a compare-and-swap
//! ([`TabOutput::Append`]).
//!
//! [`TabElection`] is sans-IO in the style of [`Holder`](super::Holder): the host calls a
//! command or a `handle_*` input with the current [`Now`], carries out every [`TabOutput`] from
//! [`TabElection::poll_output`], and arms one timer for [`TabElection::poll_timeout`]. The page
//! side of a worker-run election mirrors each reported hold on its own clocks with
//! [`TabMirror`], which back-dates the report by its transit and tells the page when to yield;
//! [`PageHold`] combines the role's mirror with the grantor lease's (global mode) into the
//! page's one answer, [`PageStanding`].

use std::collections::VecDeque;

use super::config::{check_renewal_timing, default_retry_base, ConfigError};
use super::lease::Lease;
use super::observed::Observer;
use super::rng::Jitter;
use super::tab_watch::tab_id_of;
use super::time::{Clock, Micros, MonoTime, Now, WallTime, WALL_JITTER_TOLERANCE};
use crate::protocol::Token;

/// After a holder's page announced it is leaving, how long candidates let the Web Lock pass on
/// by itself (it does within milliseconds when the document goes) before taking it: a page
/// entering the back/forward cache may freeze its worker, lock held, before the worker hears.
pub const LEAVING_GRACE: Micros = Micros(200_000);

/// How many times a candidate holding the Web Lock tries to append its grant when other writes
/// keep getting in first (the old holder's last heartbeats) before it backs off.
pub const LOCKED_GRANT_ATTEMPTS: u32 = 8;

/// How many times a release is appended when the holder's own writes got in first.
pub const RELEASE_ATTEMPTS: u32 = 2;

/// Deliberately broken variants of the election. They take effect only in builds with the
/// `mutations` feature, where the simulation uses them to prove that it catches each bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TabMutation {
    /// A leaving notice opens the role whoever holds it now, not only when it names the
    /// holder and epoch of the newest entry: a stale notice lets a candidate take over a live
    /// holder.
    LeavingIgnoresEpoch,
    /// A takeover whose append finds the slot taken reads the log and appends after the newest
    /// entry instead of going back to waiting: the compare-and-swap no longer checks that the
    /// holder it judged expired is still the newest, so a holder that renewed meanwhile is
    /// overwritten.
    BlindTakeover,
    /// A takeover writes the epoch of the entry it supersedes instead of the next one: two
    /// holds share an epoch, so the stale holder's writes are no longer fenced.
    EpochNotIncreased,
    /// Heartbeats are written without waiting for the page's answer: the worker of a frozen or
    /// hung page keeps the role alive, and no other tab ever takes over.
    UngatedHeartbeat,
    /// The page's mirror takes a reported hold's remaining time as of its arrival, not of its
    /// sending: a late message extends the page's belief.
    NoTransitBackdating,
    /// A candidate granted the Web Lock builds its grant on a live takeover grant by another,
    /// whose writer steals the lock from it next: both hold until one hears.
    LockedGrantOverTakeover,
    /// A yield ends whatever hold is current, not only the one the page stopped believing: a
    /// late yield ends the next hold, which the page believes in.
    YieldIgnoresEpoch,
    /// A takeover steals the lock once its grant is appended however late the append's answer
    /// came: a grant that already ran out takes the lock from the live holder that followed it.
    LateTakeoverSteals,
    /// The page's mirror believes down to the election's margin: counting time on its own
    /// clock, it may credit a fast wall clock later than the election and still believe when the
    /// election has stepped down and the next tab holds the lock.
    MirrorWithoutClockSlack,
    /// A release that hands the role to a named tab reserves nothing: any candidate takes it.
    HandoffIgnored,
}

impl TabMutation {
    /// Every mutation, for tests that must catch them all.
    pub const ALL: [TabMutation; 10] = [
        TabMutation::LeavingIgnoresEpoch,
        TabMutation::BlindTakeover,
        TabMutation::EpochNotIncreased,
        TabMutation::UngatedHeartbeat,
        TabMutation::NoTransitBackdating,
        TabMutation::LockedGrantOverTakeover,
        TabMutation::YieldIgnoresEpoch,
        TabMutation::LateTakeoverSteals,
        TabMutation::MirrorWithoutClockSlack,
        TabMutation::HandoffIgnored,
    ];
}

/// How one candidate takes part in an election. Durations are [`Micros`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TabConfig {
    /// This candidate's id in the log, unique per engine (a page back from the cache is a new
    /// candidate).
    pub instance: String,
    /// The heartbeat lease written with every entry.
    pub lease: Micros,
    /// Stop believing the hold with this much of the lease left.
    pub margin: Micros,
    /// Time from one heartbeat's start to the next; also the longest wait between two reads of
    /// the log while waiting (a missed broadcast only delays a takeover).
    pub renew_interval: Micros,
    /// Whether Web Locks are used (available and not disabled).
    pub web_locks: bool,
    /// Whether each heartbeat and takeover waits for the page to answer a [`TabOutput::Ping`]
    /// (the election runs in a worker for a page, which a frozen or hung page cannot answer).
    pub gated: bool,
    /// See [`LEAVING_GRACE`].
    pub leaving_grace: Micros,
    /// Seed for retry jitter; the core never reads a random source itself.
    pub seed: u64,
    /// A deliberately broken behaviour, for proving the simulation catches it.
    #[cfg(feature = "mutations")]
    pub mutation: Option<TabMutation>,
    /// A deliberately broken observed-expiry rule for judging other holders.
    #[cfg(feature = "mutations")]
    pub observed_mutation: Option<super::observed::ObservedMutation>,
}

impl TabConfig {
    /// The heartbeat lease when the page names none.
    pub const DEFAULT_LEASE: Micros = Micros::from_ms(5_000);
    /// The margin when the page names none.
    pub const DEFAULT_MARGIN: Micros = Micros::from_ms(1_000);
    /// The longest role name, in UTF-16 code units (JavaScript's `length`): the name is part of
    /// the Web Lock, BroadcastChannel and IndexedDB keys.
    pub const MAX_NAME_LENGTH: usize = 200;

    /// Checks a role name of `length` UTF-16 code units: non-empty and at most
    /// [`TabConfig::MAX_NAME_LENGTH`].
    pub fn check_name_length(length: usize) -> Result<(), ConfigError> {
        if length == 0 || length > Self::MAX_NAME_LENGTH {
            return Err(ConfigError::new(
                "name",
                "must be a non-empty string of at most 200 characters",
            ));
        }
        Ok(())
    }

    /// A configuration with the default leaving grace, after checking the holder's own timing
    /// rule (`check_renewal_timing`; the error names the JavaScript option).
    pub fn new(
        instance: String,
        lease: Micros,
        margin: Micros,
        renew_interval: Micros,
        web_locks: bool,
        gated: bool,
        seed: u64,
    ) -> Result<TabConfig, ConfigError> {
        check_renewal_timing(lease, margin, renew_interval)?;
        Ok(TabConfig {
            instance,
            lease,
            margin,
            renew_interval,
            web_locks,
            gated,
            leaving_grace: LEAVING_GRACE,
            seed,
            #[cfg(feature = "mutations")]
            mutation: None,
            #[cfg(feature = "mutations")]
            observed_mutation: None,
        })
    }
}

/// What a log entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A new hold, with a new epoch.
    Grant,
    /// A heartbeat of the hold with the same epoch.
    Beat,
    /// The holder stepped down.
    Release,
}

impl EntryKind {
    /// The name stored in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Grant => "grant",
            EntryKind::Beat => "beat",
            EntryKind::Release => "release",
        }
    }

    /// The kind named `name` in the log, if any.
    pub fn parse(name: &str) -> Option<EntryKind> {
        match name {
            "grant" => Some(EntryKind::Grant),
            "beat" => Some(EntryKind::Beat),
            "release" => Some(EntryKind::Release),
            _ => None,
        }
    }
}

/// The value of a log entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    /// The writer's [`TabConfig::instance`].
    pub holder: String,
    /// The hold's epoch (the fencing token).
    pub epoch: u64,
    /// What the entry records.
    pub kind: EntryKind,
    /// The heartbeat lease the writer asked for; `None` in entries that carry none, for which
    /// observers wait their own [`TabConfig::lease`].
    pub lease: Option<Micros>,
    /// Whether the writer uses Web Locks.
    pub locks: bool,
    /// Whether this grant was written by a takeover (a holder judged expired by observation),
    /// before its writer holds the Web Lock: it is about to steal the lock. A candidate granted
    /// the lock meanwhile must not build on it, for the thief will take the lock from it.
    /// Written only on a [`EntryKind::Grant`], and counted only there.
    pub takeover: bool,
    /// On a [`EntryKind::Release`] written by a handover ([`TabElection::hand_off`]): the tab id
    /// ([`tab_id_of`](super::tab_id_of)) the role is handed to. For the release entry's lease,
    /// as every other candidate judges it from when it first saw the entry, only that tab may
    /// take the role.
    pub to: Option<String>,
}

/// A log entry: a record at a slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// The slot, from 1.
    pub seq: u64,
    /// What it says.
    pub record: LogRecord,
}

/// Identifies one storage read, append or lock request; the host passes it back with the
/// outcome. Outcomes of requests the election no longer waits for are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IoId(pub u64);

/// How an append ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppendOutcome {
    /// The record is now the entry at slot `after + 1`.
    Appended,
    /// Someone wrote after `after` first (the slot is taken, or, for a writer far behind, later
    /// slots exist): nothing was written.
    Conflict,
    /// Storage failed; nothing is known to have been written.
    Failed,
}

/// A message from another candidate of the same name (BroadcastChannel).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// It wrote this entry.
    Written(LogEntry),
    /// Its page is leaving (`pagehide`) and stopped acting on the hold with this epoch; its
    /// release may never commit.
    Leaving {
        /// The holder's instance id.
        holder: String,
        /// The epoch it held.
        epoch: u64,
    },
}

/// What happened to a Web Lock request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockEvent {
    /// The lock is held.
    Granted,
    /// The request ended without the lock, or the held lock was stolen by another context.
    Lost,
}

/// Why a hold ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TabEndReason {
    /// The candidate left ([`TabElection::leave`]).
    Released,
    /// The candidate closed ([`TabElection::close`]).
    Closed,
    /// The page stopped believing the hold ([`TabElection::yield_role`]); it stays a candidate.
    Yielded,
    /// Another context took the Web Lock.
    Stolen,
    /// The log shows another hold: this one was taken over.
    Superseded,
    /// No heartbeat succeeded before the margin began.
    Expired,
    /// The candidate handed the role over ([`TabElection::hand_off`]); it stays a candidate.
    HandedOff,
}

impl TabEndReason {
    /// The reason as the page hears it.
    pub fn as_str(self) -> &'static str {
        match self {
            TabEndReason::Released => "released",
            TabEndReason::Closed => "closed",
            TabEndReason::Yielded => "yielded",
            TabEndReason::Stolen => "stolen",
            TabEndReason::Superseded => "superseded",
            TabEndReason::Expired => "expired",
            TabEndReason::HandedOff => "handed_off",
        }
    }

    /// Whether the hold ended by this candidate's own choice, so the release is logged and
    /// others need not wait for the lease.
    pub fn is_voluntary(self) -> bool {
        matches!(
            self,
            TabEndReason::Released
                | TabEndReason::Closed
                | TabEndReason::Yielded
                | TabEndReason::HandedOff
        )
    }
}

/// Something the page should hear about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TabEvent {
    /// This candidate holds the role with `epoch`; `remaining` of its heartbeat lease is left
    /// as of the reading passed with the input that produced this event.
    Active {
        /// The hold's epoch.
        epoch: u64,
        /// Time left of the heartbeat lease.
        remaining: Micros,
    },
    /// The hold was renewed (or re-validated by [`TabElection::check`]).
    Renewed {
        /// The hold's epoch.
        epoch: u64,
        /// Time left of the heartbeat lease.
        remaining: Micros,
    },
    /// The hold with `epoch` ended. Emitted once per hold that was [`TabEvent::Active`], and for
    /// a takeover the candidate withdrew from after its grant landed (never announced: ignore an
    /// epoch never reported active).
    Lost {
        /// The hold's epoch.
        epoch: u64,
        /// Why.
        reason: TabEndReason,
        /// Whether the release is being logged (a voluntary end, not in a hurry): the host may
        /// release what it holds beside the role (a global lease) instead of abandoning it.
        logged: bool,
    },
    /// [`TabElection::leave`] finished: the role is free for the next candidate, as far as this
    /// one is concerned.
    Left,
    /// [`TabElection::close`] finished.
    Closed,
}

/// Something the host must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TabOutput {
    /// Start listening to other candidates' [`Notice`]s (open the BroadcastChannel).
    Listen,
    /// Stop listening (close the channel): a page in the back/forward cache is evicted when a
    /// message reaches one of its channels.
    StopListening,
    /// Read the newest log entry; feed it to [`TabElection::handle_read`].
    ReadLog(IoId),
    /// Append `record` at slot `after + 1` if no entry follows `after` (compare-and-swap), and
    /// feed the outcome to [`TabElection::handle_append`]. With `prune`, also delete the entries
    /// at slots up to it in the same transaction (see [`KEPT_ENTRIES`]).
    Append {
        /// Pass it back with the outcome.
        id: IoId,
        /// The slot the writer builds on (0: the empty log).
        after: u64,
        /// What to write.
        record: LogRecord,
        /// Delete the entries at slots `1..=prune` too.
        prune: Option<u64>,
    },
    /// Request the Web Lock (with `steal`, take it from its holder); report with
    /// [`TabElection::handle_lock`].
    RequestLock {
        /// Pass it back with the lock's events.
        id: IoId,
        /// Take the lock from whoever holds it.
        steal: bool,
    },
    /// Let go of the Web Lock, or withdraw the request for it.
    ReleaseLock,
    /// Tell the other candidates that this entry was written.
    Broadcast(LogEntry),
    /// Ask the page to prove it is responsive; call [`TabElection::handle_pong`] when it
    /// answers. A frozen or hung page never does, so its heartbeat stops.
    Ping,
    /// Deliver this event to the page.
    Event(TabEvent),
}

/// What the candidate is doing, for hosts and traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TabPhase {
    /// Not a candidate.
    Idle,
    /// A candidate waiting for an opening.
    Waiting,
    /// Taking the role (appending its grant, or stealing the lock).
    Acquiring,
    /// Holding the role.
    Active,
    /// Logging a release.
    Releasing,
    /// Closed for good.
    Closed,
}

/// What this candidate last saw of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    seq: u64,
    holder: Option<String>,
    epoch: u64,
    kind: Option<EntryKind>,
    takeover: bool,
    /// The tab a release hands the role to.
    to: Option<String>,
}

impl Seen {
    fn of(entry: Option<&LogEntry>) -> Seen {
        match entry {
            None => Seen {
                seq: 0,
                holder: None,
                epoch: 0,
                kind: None,
                takeover: false,
                to: None,
            },
            Some(entry) => Seen {
                seq: entry.seq,
                holder: Some(entry.record.holder.clone()),
                epoch: entry.record.epoch,
                kind: Some(entry.record.kind),
                takeover: entry.record.kind == EntryKind::Grant && entry.record.takeover,
                to: entry
                    .record
                    .to
                    .clone()
                    .filter(|_| entry.record.kind == EntryKind::Release),
            },
        }
    }
}

/// The last leaving notice: that holder stepped down, even if its release never committed.
#[derive(Clone, Debug)]
struct Leaving {
    holder: String,
    epoch: u64,
    at: Now,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lock {
    None,
    Requested(IoId),
    Held(IoId),
}

#[derive(Clone, Copy, Debug)]
enum Beat {
    /// The next heartbeat starts at this reading (also the retry after a storage failure).
    At(MonoTime),
    /// Waiting for the page's answer before writing.
    Gated { sent: Now },
    /// The append is in flight.
    Writing { id: IoId, sent: Now },
}

#[derive(Clone, Debug)]
struct Hold {
    epoch: u64,
    /// The slot of this hold's newest entry.
    seq: u64,
    lease: Lease,
    beat: Beat,
    failures: u32,
    /// A re-validation read in flight.
    check: Option<IoId>,
}

#[derive(Clone, Copy, Debug)]
enum LockedGrant {
    /// Reading the log before the next attempt.
    Reading(IoId),
    /// The grant, with epoch `epoch`, is being appended.
    Writing {
        id: IoId,
        after: u64,
        epoch: u64,
        sent: Now,
    },
    /// Backing off until this reading.
    RetryAt(MonoTime),
}

#[derive(Clone, Copy, Debug)]
enum Takeover {
    /// Waiting for the page's answer.
    Gated,
    /// Reading the log again after a conflict (only the blind-takeover mutation does this).
    Reading(IoId),
    /// The grant is being appended.
    Writing(IoId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AfterRelease {
    /// Wait for the next opening (after a yield).
    Wait,
    /// Report [`TabEvent::Left`].
    Leave,
    /// Report [`TabEvent::Left`] and [`TabEvent::Closed`].
    Close,
}

#[derive(Clone, Debug)]
enum Step {
    Idle,
    /// Watching the log for an opening; `reading` is a poll in flight, `poll_at` the next one.
    Waiting {
        reading: Option<IoId>,
        poll_at: Option<MonoTime>,
    },
    /// Holding the Web Lock and appending a grant behind the newest entry.
    LockedGrant {
        attempt: u32,
        io: LockedGrant,
    },
    /// Taking over a holder judged expired, by appending after the entry judged.
    Takeover {
        sent: Now,
        after: u64,
        epoch: u64,
        io: Takeover,
    },
    /// The log is ours; stealing the Web Lock from the frozen or hung holder.
    Stealing {
        hold: Hold,
        lock: IoId,
    },
    /// The lock is ours; checking that nobody who got it the ordinary way wrote meanwhile.
    Verifying {
        hold: Hold,
        id: IoId,
    },
    Held(Hold),
    /// Appending a release.
    Releasing {
        id: IoId,
        epoch: u64,
        after: u64,
        attempts_left: u32,
        reading: bool,
        then: AfterRelease,
        /// A handover: the tab named in the release (if any), and the Web Lock kept until the
        /// release is written, so that no other candidate builds on the hold before it.
        handoff: Option<Option<String>>,
    },
    Closed,
}

/// One candidate for a named role (see the module documentation).
///
/// The host drives it:
/// 1. call a command ([`join`](TabElection::join), [`leave`](TabElection::leave),
///    [`yield_role`](TabElection::yield_role), [`check`](TabElection::check),
///    [`close`](TabElection::close)) or an input (`handle_*`), each with the current [`Now`];
/// 2. drain [`poll_output`](TabElection::poll_output), carrying out each output;
/// 3. arm one timer for [`poll_timeout`](TabElection::poll_timeout) and, when it fires, read the
///    clocks and call [`handle_timeout`](TabElection::handle_timeout) (spurious calls are
///    harmless).
#[derive(Clone, Debug)]
pub struct TabElection {
    config: TabConfig,
    clock: Clock,
    jitter: Jitter,
    observer: Observer<u64>,
    seen: Option<Seen>,
    leaving: Option<Leaving>,
    lock: Lock,
    candidate: bool,
    listening: bool,
    ping_pending: bool,
    step: Step,
    /// A grant append that was still in flight when the candidate gave up on it: if it lands,
    /// it is released at once so the role is not left to a lease nobody renews.
    orphan: Option<(IoId, u64, u64)>,
    /// The release of an orphaned grant, in flight.
    orphan_release: Option<IoId>,
    next_id: u64,
    outputs: VecDeque<TabOutput>,
}

impl TabElection {
    /// A candidate that has not joined yet.
    pub fn new(config: TabConfig) -> TabElection {
        #[allow(unused_mut)]
        let mut observer = Observer::new(config.lease);
        #[cfg(feature = "mutations")]
        {
            observer = observer.with_mutation(config.observed_mutation);
        }
        TabElection {
            jitter: Jitter::new(config.seed),
            observer,
            config,
            clock: Clock::new(),
            seen: None,
            leaving: None,
            lock: Lock::None,
            candidate: false,
            listening: false,
            ping_pending: false,
            step: Step::Idle,
            orphan: None,
            orphan_release: None,
            next_id: 0,
            outputs: VecDeque::new(),
        }
    }

    #[inline(always)]
    fn mutated(&self, mutation: TabMutation) -> bool {
        #[cfg(feature = "mutations")]
        return self.config.mutation == Some(mutation);
        #[cfg(not(feature = "mutations"))]
        {
            let _ = mutation;
            false
        }
    }

    /// The configuration.
    pub fn config(&self) -> &TabConfig {
        &self.config
    }

    /// What the candidate is doing.
    pub fn phase(&self) -> TabPhase {
        match self.step {
            Step::Idle => TabPhase::Idle,
            Step::Waiting { .. } => TabPhase::Waiting,
            Step::LockedGrant { .. }
            | Step::Takeover { .. }
            | Step::Stealing { .. }
            | Step::Verifying { .. } => TabPhase::Acquiring,
            Step::Held(_) => TabPhase::Active,
            Step::Releasing { .. } => TabPhase::Releasing,
            Step::Closed => TabPhase::Closed,
        }
    }

    /// Whether this candidate wants the role.
    pub fn is_candidate(&self) -> bool {
        self.candidate
    }

    /// The epoch of the hold, while active.
    pub fn epoch(&self) -> Option<u64> {
        match &self.step {
            Step::Held(hold) => Some(hold.epoch),
            _ => None,
        }
    }

    /// Whether this candidate holds the role with more than the margin left at `now`. A pure
    /// query: the hold ends (with [`TabEvent::Lost`]) at the next input.
    pub fn is_active(&mut self, now: Now) -> bool {
        let now = self.clock.observe(now);
        match &mut self.step {
            Step::Held(hold) => hold.lease.is_safely_held(now),
            _ => false,
        }
    }

    /// Time left of the held heartbeat lease at `now` (zero when not active).
    pub fn remaining(&mut self, now: Now) -> Micros {
        let now = self.clock.observe(now);
        match &mut self.step {
            Step::Held(hold) => hold.lease.remaining(now),
            _ => Micros::ZERO,
        }
    }

    /// The newest entry seen, as `(seq, holder, epoch)`: what a denial names.
    pub fn observed(&self) -> Option<(u64, Option<&str>, u64)> {
        self.seen
            .as_ref()
            .map(|seen| (seen.seq, seen.holder.as_deref(), seen.epoch))
    }

    /// The next output to carry out, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<TabOutput> {
        self.outputs.pop_front()
    }

    /// When to call [`handle_timeout`](TabElection::handle_timeout) next, on the monotonic
    /// clock; `None` when nothing is pending. Never earlier than the latest reading given.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        let at = match &self.step {
            Step::Waiting { poll_at, .. } => *poll_at,
            Step::LockedGrant {
                io: LockedGrant::RetryAt(at),
                ..
            } => Some(*at),
            Step::Held(hold) => {
                let expiry = hold.lease.safe_until();
                match hold.beat {
                    Beat::At(at) => Some(expiry.map_or(at, |e| e.min(at))),
                    _ => expiry,
                }
            }
            Step::Stealing { hold, .. } | Step::Verifying { hold, .. } => hold.lease.safe_until(),
            _ => None,
        };
        let floor = self.clock.last().map(|n| n.mono);
        match (at, floor) {
            (Some(at), Some(floor)) => Some(at.max(floor)),
            (at, _) => at,
        }
    }

    // ----- commands -----

    /// Becomes a candidate: listens, requests the Web Lock and watches the log.
    pub fn join(&mut self, now: Now) {
        self.clock.observe(now);
        if matches!(self.step, Step::Closed) {
            return;
        }
        self.candidate = true;
        if !self.listening {
            self.listening = true;
            self.push(TabOutput::Listen);
        }
        if let Step::Idle = self.step {
            self.start_waiting();
        } else if let Step::Releasing { then, .. } = &mut self.step {
            // Rejoined while a release is being logged: wait for the next opening after it.
            *then = AfterRelease::Wait;
        }
    }

    /// Steps down (if active) and withdraws the candidacy; [`TabEvent::Left`] follows once the
    /// role is free. With `immediately` (the page is leaving), the channel and the lock go
    /// before anything else and nothing is written: a write's completion would reach a page
    /// already in the back/forward cache.
    pub fn leave(&mut self, now: Now, immediately: bool) {
        self.clock.observe(now);
        self.withdraw(TabEndReason::Released, immediately, AfterRelease::Leave);
    }

    /// Like [`leave`](TabElection::leave), then [`TabEvent::Closed`]; the election ignores
    /// everything after.
    pub fn close(&mut self, now: Now) {
        self.clock.observe(now);
        if matches!(self.step, Step::Closed) {
            return;
        }
        self.withdraw(TabEndReason::Closed, false, AfterRelease::Close);
    }

    /// The page stopped believing the hold `epoch` (its own clocks said it ran out, see
    /// [`TabMirror`]): step down and log the release, but stay a candidate.
    ///
    /// A yield for any hold but the current one is ignored: the page posts it when its mirror
    /// runs out, and it may arrive after that hold ended and the next one began (the page was
    /// hung or frozen while the reports queued up). That next hold is one the page has not
    /// stopped believing; ending it would leave the page acting on a role the election gave up.
    pub fn yield_role(&mut self, now: Now, epoch: u64) {
        self.clock.observe(now);
        let ignores_epoch = self.mutated(TabMutation::YieldIgnoresEpoch);
        if matches!(&self.step, Step::Held(hold) if hold.epoch == epoch || ignores_epoch) {
            self.end(TabEndReason::Yielded, false, AfterRelease::Wait);
        }
    }

    /// Hands the role over: ends the hold (the page hears [`TabEndReason::HandedOff`]) and logs
    /// a release naming the tab id `to` (`None`: whichever candidate is next), keeping the Web
    /// Lock until that release is written, so no candidate builds on the hold meanwhile. For the
    /// release entry's lease, as each candidate judges it from when it first saw the entry, only
    /// the named tab may take the role: the others let the lock pass to it and do not take over.
    /// Without a name the lock goes to the candidate that has waited longest. This candidate
    /// stays one, behind the others. Ignored unless active.
    pub fn hand_off(&mut self, now: Now, to: Option<String>) {
        self.clock.observe(now);
        let Step::Held(hold) = &self.step else {
            return;
        };
        let (epoch, seq) = (hold.epoch, hold.seq);
        self.push(TabOutput::Event(TabEvent::Lost {
            epoch,
            reason: TabEndReason::HandedOff,
            logged: true,
        }));
        let id = self.next_io();
        self.step = Step::Releasing {
            id,
            epoch,
            after: seq,
            attempts_left: RELEASE_ATTEMPTS,
            reading: false,
            then: AfterRelease::Wait,
            handoff: Some(to),
        };
        self.write_release();
    }

    /// Re-validates after the host may have been frozen, asleep or cached (`resume`,
    /// `pageshow`, `visibilitychange`): a hold whose lock is gone ends, a hold whose epoch is no
    /// longer the newest in the log ends; a waiting candidate looks again at once.
    pub fn check(&mut self, now: Now) {
        let now = self.clock.observe(now);
        self.handle_timeout_seen(now);
        let use_locks = self.config.web_locks;
        let lock_held = matches!(self.lock, Lock::Held(_));
        match &mut self.step {
            Step::Held(_) if use_locks && !lock_held => {
                self.end(TabEndReason::Stolen, false, AfterRelease::Wait);
            }
            Step::Held(hold) if hold.check.is_none() => {
                let id = IoId(self.next_id);
                self.next_id += 1;
                hold.check = Some(id);
                self.push(TabOutput::ReadLog(id));
            }
            Step::Waiting { .. } => self.evaluate(now),
            _ => {}
        }
    }

    // ----- inputs -----

    /// The page answered the last [`TabOutput::Ping`].
    pub fn handle_pong(&mut self, now: Now) {
        self.clock.observe(now);
        if !self.ping_pending {
            return;
        }
        self.ping_pending = false;
        self.pass_gates();
    }

    /// Another candidate's [`Notice`].
    pub fn handle_notice(&mut self, now: Now, notice: Notice) {
        let now = self.clock.observe(now);
        let changed = match notice {
            Notice::Written(entry) => self.observe_entry(now, Some(&entry)),
            Notice::Leaving { holder, epoch } => {
                self.leaving = Some(Leaving {
                    holder,
                    epoch,
                    at: now,
                });
                true
            }
        };
        if changed {
            if let Step::Waiting { .. } = self.step {
                self.evaluate(now);
            }
        }
    }

    /// The outcome of [`TabOutput::ReadLog`] `id`: the newest entry (`None`: the log is empty),
    /// or `Err(())` when storage failed.
    pub fn handle_read(&mut self, now: Now, id: IoId, outcome: Result<Option<LogEntry>, ()>) {
        let now = self.clock.observe(now);
        if let Ok(entry) = &outcome {
            self.observe_entry(now, entry.as_ref());
        }
        let instance = self.config.instance.clone();
        match &mut self.step {
            Step::Waiting { reading, .. } if *reading == Some(id) => {
                *reading = None;
                self.evaluate(now);
            }
            Step::LockedGrant {
                io: LockedGrant::Reading(reading),
                ..
            } if *reading == id => match outcome {
                Ok(_) => self.attempt_locked_grant(now),
                Err(()) => self.locked_grant_failed(now),
            },
            Step::Takeover {
                io: Takeover::Reading(reading),
                ..
            } if *reading == id => match outcome {
                Ok(_) => {
                    // The blind-takeover mutation: append after whatever is newest now.
                    let seen = self.seen_or_empty();
                    if let Step::Takeover { after, epoch, .. } = &mut self.step {
                        *after = seen.seq;
                        *epoch = seen.epoch + 1;
                    }
                    self.write_takeover();
                }
                Err(()) => self.start_waiting(),
            },
            Step::Verifying {
                id: verifying,
                hold,
            } if *verifying == id => {
                let ours = matches!(&outcome, Ok(Some(entry))
                    if entry.record.holder == instance && entry.record.epoch == hold.epoch);
                if ours {
                    let hold = hold.clone();
                    self.become_active(now, hold);
                } else {
                    // A candidate that got the lock the ordinary way just before the steal wrote
                    // the log since: it holds the role, and this one gives the lock back.
                    self.release_lock();
                    self.start_waiting();
                }
            }
            Step::Held(hold) if hold.check == Some(id) => {
                hold.check = None;
                let epoch = hold.epoch;
                match outcome {
                    Ok(entry)
                        if entry.as_ref().is_some_and(|e| {
                            e.record.epoch == epoch && e.record.holder == instance
                        }) =>
                    {
                        let remaining = hold.lease.remaining(now);
                        self.push(TabOutput::Event(TabEvent::Renewed { epoch, remaining }));
                    }
                    Ok(_) => self.end(TabEndReason::Superseded, false, AfterRelease::Wait),
                    // Storage trouble shows up in the next heartbeat.
                    Err(()) => {}
                }
            }
            Step::Releasing {
                id: read,
                reading,
                after,
                epoch,
                then,
                ..
            } if *reading && *read == id => {
                // Overtaken by this holder's own heartbeat in flight? Then release after it. If
                // anyone else wrote, the role is no longer this hold's to release: a release on
                // top of another's grant would let the next candidate reuse that grant's epoch.
                let ours = matches!(&outcome, Ok(Some(entry))
                    if entry.record.holder == instance && entry.record.epoch == *epoch);
                if !ours {
                    let then = *then;
                    return self.after_release(then);
                }
                *reading = false;
                *read = IoId(self.next_id);
                self.next_id += 1;
                if let Ok(Some(entry)) = outcome {
                    *after = entry.seq;
                }
                self.write_release();
            }
            _ => {}
        }
    }

    /// The outcome of [`TabOutput::Append`] `id`.
    pub fn handle_append(&mut self, now: Now, id: IoId, outcome: AppendOutcome) {
        let now = self.clock.observe(now);
        if self.orphan_release == Some(id) {
            self.orphan_release = None;
            return;
        }
        if let Some((orphan, after, epoch)) = self.orphan {
            if orphan == id {
                self.orphan = None;
                if outcome == AppendOutcome::Appended {
                    let entry = self.own_entry(after + 1, epoch, EntryKind::Grant);
                    self.observe_entry(now, Some(&entry));
                    let release = self.next_io();
                    self.orphan_release = Some(release);
                    let record = self.own_record(epoch, EntryKind::Release);
                    self.push(TabOutput::Append {
                        id: release,
                        after: after + 1,
                        record,
                        prune: None,
                    });
                }
                return;
            }
        }
        match self.step.clone() {
            Step::LockedGrant {
                attempt,
                io:
                    LockedGrant::Writing {
                        id: writing,
                        after,
                        epoch,
                        sent,
                    },
            } if writing == id => match outcome {
                AppendOutcome::Appended => {
                    let hold = self.new_hold(now, sent, after + 1, epoch, false);
                    if matches!(self.lock, Lock::Held(_)) {
                        self.become_active(now, hold);
                    } else {
                        self.drop_hold(hold);
                    }
                }
                AppendOutcome::Conflict if attempt + 1 < LOCKED_GRANT_ATTEMPTS => {
                    let read = self.next_io();
                    self.step = Step::LockedGrant {
                        attempt: attempt + 1,
                        io: LockedGrant::Reading(read),
                    };
                    self.push(TabOutput::ReadLog(read));
                }
                AppendOutcome::Conflict => {
                    let wait = self.open_wait(now);
                    self.back_off_locked(now, wait);
                }
                AppendOutcome::Failed => self.locked_grant_failed(now),
            },
            Step::Takeover {
                sent,
                after,
                epoch,
                io: Takeover::Writing(writing),
            } if writing == id => match outcome {
                AppendOutcome::Appended => {
                    let mut hold = self.new_hold(now, sent, after + 1, epoch, true);
                    if !self.config.web_locks || matches!(self.lock, Lock::Held(_)) {
                        self.become_active(now, hold);
                    } else if !hold.lease.is_safely_held(now)
                        && !self.mutated(TabMutation::LateTakeoverSteals)
                    {
                        // The append's answer came so late (slow storage, a frozen worker) that
                        // the grant has no safe time left: others may already have judged it
                        // expired and taken the role on. Stealing now would take the lock from
                        // that live holder for a grant nobody may act on.
                        self.start_waiting();
                    } else {
                        // The role is ours in the log: now take the lock from the frozen or hung
                        // holder. Its request fails when it runs again, and its next heartbeat
                        // finds its slot taken.
                        self.release_lock();
                        let lock = self.next_io();
                        self.lock = Lock::Requested(lock);
                        self.push(TabOutput::RequestLock {
                            id: lock,
                            steal: true,
                        });
                        self.step = Step::Stealing { hold, lock };
                    }
                }
                AppendOutcome::Conflict if self.mutated(TabMutation::BlindTakeover) => {
                    let read = self.next_io();
                    if let Step::Takeover { io, .. } = &mut self.step {
                        *io = Takeover::Reading(read);
                    }
                    self.push(TabOutput::ReadLog(read));
                }
                // Someone wrote since the entry judged expired: look again.
                AppendOutcome::Conflict | AppendOutcome::Failed => self.start_waiting(),
            },
            Step::Held(Hold {
                beat: Beat::Writing { id: writing, sent },
                ..
            }) if writing == id => match outcome {
                AppendOutcome::Appended => {
                    let entry = {
                        let Step::Held(hold) = &self.step else { return };
                        self.own_entry(hold.seq + 1, hold.epoch, EntryKind::Beat)
                    };
                    self.observe_entry(now, Some(&entry));
                    let interval = self.config.renew_interval;
                    let lease = self.config.lease;
                    let Step::Held(hold) = &mut self.step else {
                        return;
                    };
                    hold.seq = entry.seq;
                    hold.failures = 0;
                    grant_lease(&mut hold.lease, hold.epoch, sent, now, lease);
                    hold.beat = Beat::At(sent.mono.plus(interval).max(now.mono));
                    let epoch = hold.epoch;
                    let remaining = hold.lease.remaining(now);
                    let safe = hold.lease.is_safely_held(now);
                    self.push(TabOutput::Broadcast(entry));
                    if safe {
                        self.push(TabOutput::Event(TabEvent::Renewed { epoch, remaining }));
                    } else {
                        // Written, but so late that no safe time is left.
                        self.end(TabEndReason::Expired, false, AfterRelease::Wait);
                    }
                }
                // The slot after this holder's last entry is taken: someone took over.
                AppendOutcome::Conflict => {
                    self.end(TabEndReason::Superseded, false, AfterRelease::Wait)
                }
                AppendOutcome::Failed => {
                    let delay = {
                        let Step::Held(hold) = &mut self.step else {
                            return;
                        };
                        hold.failures += 1;
                        hold.failures
                    };
                    let delay = self.backoff(delay);
                    if let Step::Held(hold) = &mut self.step {
                        hold.beat = Beat::At(now.mono.plus(delay));
                    }
                }
            },
            Step::Releasing {
                id: writing,
                epoch,
                after,
                attempts_left,
                then,
                handoff,
                ..
            } if writing == id => match outcome {
                AppendOutcome::Appended => {
                    let mut entry = self.own_entry(after + 1, epoch, EntryKind::Release);
                    entry.record.to = handoff.flatten();
                    self.observe_entry(now, Some(&entry));
                    self.push(TabOutput::Broadcast(entry));
                    self.after_release(then);
                }
                AppendOutcome::Conflict if attempts_left > 1 => {
                    let read = self.next_io();
                    if let Step::Releasing {
                        reading,
                        attempts_left,
                        id,
                        ..
                    } = &mut self.step
                    {
                        *reading = true;
                        *attempts_left -= 1;
                        *id = read;
                    }
                    self.push(TabOutput::ReadLog(read));
                }
                AppendOutcome::Conflict | AppendOutcome::Failed => self.after_release(then),
            },
            _ => {}
        }
    }

    /// An event of the Web Lock request `id`.
    pub fn handle_lock(&mut self, now: Now, id: IoId, event: LockEvent) {
        let now = self.clock.observe(now);
        let current = match self.lock {
            Lock::Requested(current) | Lock::Held(current) => current,
            Lock::None => return,
        };
        if current != id {
            return;
        }
        match event {
            LockEvent::Granted => {
                self.lock = Lock::Held(id);
                match &self.step {
                    Step::Waiting { .. } => self.evaluate(now),
                    Step::Stealing { hold, lock } if *lock == id => {
                        let hold = hold.clone();
                        let read = self.next_io();
                        self.push(TabOutput::ReadLog(read));
                        self.step = Step::Verifying { hold, id: read };
                    }
                    _ => {}
                }
            }
            LockEvent::Lost => {
                let was_held = matches!(self.lock, Lock::Held(_));
                self.lock = Lock::None;
                match self.step.clone() {
                    Step::Held(_) => self.end(TabEndReason::Stolen, false, AfterRelease::Wait),
                    Step::LockedGrant { io, .. } if was_held => {
                        if let LockedGrant::Writing {
                            id, after, epoch, ..
                        } = io
                        {
                            self.orphan = Some((id, after, epoch));
                        }
                        self.start_waiting();
                    }
                    Step::Stealing { .. } | Step::Verifying { .. } => self.start_waiting(),
                    Step::Waiting { .. } if self.candidate => self.request_lock(),
                    _ => {}
                }
            }
        }
    }

    /// Acts on everything due at `now`: the hold's margin, heartbeats, retries and polls.
    pub fn handle_timeout(&mut self, now: Now) {
        let now = self.clock.observe(now);
        self.handle_timeout_seen(now);
    }

    // ----- internals -----

    fn handle_timeout_seen(&mut self, now: Now) {
        if let Step::Stealing { hold, .. } | Step::Verifying { hold, .. } = &mut self.step {
            if !hold.lease.is_safely_held(now) {
                // Too slow to finish the takeover: whoever holds the lock keeps the role.
                self.release_lock();
                return self.start_waiting();
            }
        }
        match &mut self.step {
            Step::Waiting { reading, poll_at } => {
                if reading.is_none() && poll_at.is_some_and(|at| now.mono >= at) {
                    self.poll();
                } else if reading.is_none() {
                    self.evaluate(now);
                }
            }
            Step::LockedGrant {
                io: LockedGrant::RetryAt(at),
                ..
            } if now.mono >= *at => self.attempt_locked_grant(now),
            Step::Held(hold) => {
                if !hold.lease.is_safely_held(now) {
                    return self.end(TabEndReason::Expired, false, AfterRelease::Wait);
                }
                if let Beat::At(at) = hold.beat {
                    if now.mono >= at {
                        hold.beat = Beat::Gated { sent: now };
                        self.gate();
                    }
                }
            }
            _ => {}
        }
    }

    fn push(&mut self, output: TabOutput) {
        self.outputs.push_back(output);
    }

    fn next_io(&mut self) -> IoId {
        let id = IoId(self.next_id);
        self.next_id += 1;
        id
    }

    fn own_record(&self, epoch: u64, kind: EntryKind) -> LogRecord {
        LogRecord {
            holder: self.config.instance.clone(),
            epoch,
            kind,
            lease: Some(self.config.lease),
            locks: self.config.web_locks,
            takeover: false,
            to: None,
        }
    }

    fn own_entry(&self, seq: u64, epoch: u64, kind: EntryKind) -> LogEntry {
        LogEntry {
            seq,
            record: self.own_record(epoch, kind),
        }
    }

    /// Records a sighting of the newest entry; returns whether it is news.
    fn observe_entry(&mut self, now: Now, entry: Option<&LogEntry>) -> bool {
        let seen = Seen::of(entry);
        let duration = entry.and_then(|e| e.record.lease);
        let news = self.observer.observe(now, seen.seq, duration);
        if news {
            self.seen = Some(seen);
        }
        news
    }

    fn seen_or_empty(&self) -> Seen {
        self.seen.clone().unwrap_or_else(|| Seen::of(None))
    }

    /// How long until the observed holder may be taken over, by this candidate's clocks (zero:
    /// now), or `None` before the log was read. A free log is open at once without Web Locks;
    /// with them the lock decides, and only a lock holder that never wrote (hung right after
    /// locking) is waited out.
    fn open_in(&mut self, now: Now) -> Option<Micros> {
        if let Some(wait) = self.reserved_for_other(now) {
            return Some(wait);
        }
        let seen = self.seen.as_ref()?;
        let expiry = self.observer.remaining(now).unwrap_or(self.config.lease);
        let left = self.leaving.as_ref().is_some_and(|leaving| {
            self.mutated(TabMutation::LeavingIgnoresEpoch)
                || (seen.holder.as_deref() == Some(leaving.holder.as_str())
                    && seen.epoch == leaving.epoch)
        });
        if !self.config.web_locks {
            if seen.seq == 0 || seen.kind == Some(EntryKind::Release) || left {
                return Some(Micros::ZERO);
            }
        } else if left {
            let at = self.leaving.as_ref().map_or(now, |leaving| leaving.at);
            // An observer's wait: monotonic time only, so a wall step cannot shorten it (see
            // `core::observed`).
            let grace = self
                .config
                .leaving_grace
                .saturating_sub(now.mono.since(at.mono));
            return Some(grace.min(expiry));
        }
        Some(expiry)
    }

    /// While the newest entry is a release handing the role to another tab, how long it stays
    /// reserved for that tab: the entry's lease from when this candidate first saw it.
    fn reserved_for_other(&mut self, now: Now) -> Option<Micros> {
        let own = tab_id_of(&self.config.instance);
        let other = self
            .seen
            .as_ref()
            .and_then(|seen| seen.to.as_deref())
            .is_some_and(|to| to != own);
        if !other || self.mutated(TabMutation::HandoffIgnored) {
            return None;
        }
        self.observer
            .remaining(now)
            .filter(|left| *left > Micros::ZERO)
    }

    /// Lets the lock go while the role is reserved for another tab, and looks again when the
    /// reservation ends (or sooner, at the next poll).
    fn defer_to_other(&mut self, now: Now, wait: Micros) {
        if let Lock::Held(_) = self.lock {
            self.release_lock();
        }
        let at = now.mono.plus(
            wait.saturating_add(Micros::from_ms(1))
                .min(self.config.renew_interval),
        );
        self.step = Step::Waiting {
            reading: None,
            poll_at: Some(at),
        };
    }

    /// The wait a denial reports: until the observed holder may be taken over, at least 1 ms.
    fn open_wait(&mut self, now: Now) -> Micros {
        self.open_in(now)
            .unwrap_or(self.config.lease)
            .max(Micros::from_ms(1))
    }

    fn request_lock(&mut self) {
        if !self.config.web_locks || self.lock != Lock::None {
            return;
        }
        let id = self.next_io();
        self.lock = Lock::Requested(id);
        self.push(TabOutput::RequestLock { id, steal: false });
    }

    fn release_lock(&mut self) {
        if self.lock != Lock::None {
            self.lock = Lock::None;
            self.push(TabOutput::ReleaseLock);
        }
    }

    fn start_waiting(&mut self) {
        if !self.candidate {
            self.step = Step::Idle;
            return;
        }
        self.request_lock();
        self.step = Step::Waiting {
            reading: None,
            poll_at: None,
        };
        self.poll();
    }

    fn poll(&mut self) {
        let id = self.next_io();
        if let Step::Waiting { reading, poll_at } = &mut self.step {
            *reading = Some(id);
            *poll_at = None;
            self.push(TabOutput::ReadLog(id));
        }
    }

    /// Decides, while waiting, whether the role can be taken now.
    fn evaluate(&mut self, now: Now) {
        if !self.candidate {
            return;
        }
        if let Some(wait) = self.reserved_for_other(now) {
            return self.defer_to_other(now, wait);
        }
        // Let go while the role was reserved for another tab: queue for it again.
        if self.config.web_locks && self.lock == Lock::None {
            self.request_lock();
        }
        if let Lock::Held(_) = self.lock {
            self.step = Step::LockedGrant {
                attempt: 0,
                io: LockedGrant::RetryAt(now.mono),
            };
            return self.attempt_locked_grant(now);
        }
        let Some(left) = self.open_in(now) else {
            // Nothing read yet (the read failed): read again later.
            let wait = self.config.renew_interval;
            if let Step::Waiting { poll_at, .. } = &mut self.step {
                *poll_at = Some(now.mono.plus(wait));
            }
            return;
        };
        if left == Micros::ZERO {
            let seen = self.seen_or_empty();
            let step = u64::from(!self.mutated(TabMutation::EpochNotIncreased) || seen.epoch == 0);
            self.step = Step::Takeover {
                sent: now,
                after: seen.seq,
                epoch: seen.epoch + step,
                io: Takeover::Gated,
            };
            return self.gate();
        }
        // Poll too: a missed broadcast, or no BroadcastChannel at all, only delays a takeover.
        let wait = left
            .saturating_add(Micros::from_ms(1))
            .min(self.config.renew_interval);
        if let Step::Waiting { poll_at, .. } = &mut self.step {
            *poll_at = Some(now.mono.plus(wait));
        }
    }

    /// Asks the page for its answer, unless one is already asked for or none is needed.
    fn gate(&mut self) {
        let beat = matches!(&self.step, Step::Held(_));
        if !self.config.gated || (beat && self.mutated(TabMutation::UngatedHeartbeat)) {
            return self.pass_gates();
        }
        if !self.ping_pending {
            self.ping_pending = true;
            self.push(TabOutput::Ping);
        }
    }

    /// The page answered (or needs not): the takeover or heartbeat waiting on it goes ahead.
    fn pass_gates(&mut self) {
        match &mut self.step {
            Step::Takeover {
                io: Takeover::Gated,
                ..
            } => self.write_takeover(),
            Step::Held(hold) => {
                if let Beat::Gated { sent } = hold.beat {
                    let id = IoId(self.next_id);
                    self.next_id += 1;
                    hold.beat = Beat::Writing { id, sent };
                    let (after, epoch) = (hold.seq, hold.epoch);
                    let record = self.own_record(epoch, EntryKind::Beat);
                    self.push(TabOutput::Append {
                        id,
                        after,
                        record,
                        prune: prune_through(after),
                    });
                }
            }
            _ => {}
        }
    }

    fn write_takeover(&mut self) {
        let id = self.next_io();
        if let Step::Takeover {
            after, epoch, io, ..
        } = &mut self.step
        {
            *io = Takeover::Writing(id);
            let (after, epoch) = (*after, *epoch);
            let record = LogRecord {
                takeover: true,
                ..self.own_record(epoch, EntryKind::Grant)
            };
            self.push(TabOutput::Append {
                id,
                after,
                record,
                prune: None,
            });
        }
    }

    /// With the lock, builds on the newest entry seen (announced over the channel, so usually
    /// current), and after a conflict on a fresh read.
    fn attempt_locked_grant(&mut self, now: Now) {
        let Step::LockedGrant { .. } = self.step else {
            return;
        };
        if let Some(wait) = self.reserved_for_other(now) {
            return self.defer_to_other(now, wait);
        }
        let seen = self.seen_or_empty();
        if seen.takeover
            && seen.holder.as_deref() != Some(self.config.instance.as_str())
            && !self.mutated(TabMutation::LockedGrantOverTakeover)
            && self.open_in(now) != Some(Micros::ZERO)
        {
            // Another candidate took the role over from a holder judged expired and is about to
            // steal the lock, or has: it holds the role, whenever the lock came to this one.
            // (Waiting for the lock's own news would not do: this lock may be granted just
            // before the steal, and the thief's check of the log may come before this grant.)
            // Only once that grant is judged expired in turn is it overwritten.
            let wait = self.open_wait(now);
            return self.back_off_locked(now, wait);
        }
        let id = self.next_io();
        if let Step::LockedGrant { io, .. } = &mut self.step {
            *io = LockedGrant::Writing {
                id,
                after: seen.seq,
                epoch: seen.epoch + 1,
                sent: now,
            };
        }
        let record = self.own_record(seen.epoch + 1, EntryKind::Grant);
        self.push(TabOutput::Append {
            id,
            after: seen.seq,
            record,
            prune: None,
        });
    }

    fn locked_grant_failed(&mut self, now: Now) {
        let delay = self.backoff(1);
        self.back_off_locked(now, delay);
    }

    fn back_off_locked(&mut self, now: Now, wait: Micros) {
        if let Step::LockedGrant { attempt, io, .. } = &mut self.step {
            *attempt = 0;
            *io = LockedGrant::RetryAt(now.mono.plus(wait));
        }
    }

    fn backoff(&mut self, failures: u32) -> Micros {
        let base = default_retry_base(self.config.renew_interval);
        let wait = self
            .jitter
            .backoff(base, self.config.renew_interval, failures);
        Micros(wait.0.max(1))
    }

    fn new_hold(&mut self, now: Now, sent: Now, seq: u64, epoch: u64, takeover: bool) -> Hold {
        let mut entry = self.own_entry(seq, epoch, EntryKind::Grant);
        entry.record.takeover = takeover;
        self.observe_entry(now, Some(&entry));
        self.push(TabOutput::Broadcast(entry));
        let mut lease = Lease::validated(self.config.lease, self.config.margin);
        grant_lease(&mut lease, epoch, sent, now, self.config.lease);
        Hold {
            epoch,
            seq,
            lease,
            beat: Beat::At(sent.mono.plus(self.config.renew_interval).max(now.mono)),
            failures: 0,
            check: None,
        }
    }

    /// A grant landed that this candidate cannot use (its lock went meanwhile): release it, so
    /// the role is not left to a lease nobody renews.
    fn drop_hold(&mut self, hold: Hold) {
        let release = self.next_io();
        self.orphan_release = Some(release);
        let record = self.own_record(hold.epoch, EntryKind::Release);
        self.push(TabOutput::Append {
            id: release,
            after: hold.seq,
            record,
            prune: None,
        });
        self.start_waiting();
    }

    fn become_active(&mut self, now: Now, mut hold: Hold) {
        if !self.candidate {
            return self.drop_hold(hold);
        }
        if !hold.lease.is_safely_held(now) {
            self.release_lock();
            return self.start_waiting();
        }
        let epoch = hold.epoch;
        let remaining = hold.lease.remaining(now);
        self.step = Step::Held(hold);
        self.push(TabOutput::Event(TabEvent::Active { epoch, remaining }));
    }

    /// Ends the hold (if any) with `reason`; a voluntary end logs the release unless
    /// `immediately`.
    fn end(&mut self, reason: TabEndReason, immediately: bool, then: AfterRelease) {
        let Step::Held(hold) = &self.step else {
            return self.after_release(then);
        };
        let (epoch, seq) = (hold.epoch, hold.seq);
        let logged = reason.is_voluntary() && !immediately;
        self.push(TabOutput::Event(TabEvent::Lost {
            epoch,
            reason,
            logged,
        }));
        // The page no longer acts on this hold, so the lock goes first: the next candidate's
        // grant supersedes this one anyway, and the release below need not delay the handoff.
        self.release_lock();
        if logged {
            let id = self.next_io();
            self.step = Step::Releasing {
                id,
                epoch,
                after: seq,
                attempts_left: RELEASE_ATTEMPTS,
                reading: false,
                then,
                handoff: None,
            };
            self.write_release();
        } else {
            self.after_release(then);
        }
    }

    fn write_release(&mut self) {
        if let Step::Releasing {
            id,
            epoch,
            after,
            handoff,
            ..
        } = &self.step
        {
            let (id, after) = (*id, *after);
            let to = handoff.clone().flatten();
            let record = LogRecord {
                to,
                ..self.own_record(*epoch, EntryKind::Release)
            };
            self.push(TabOutput::Append {
                id,
                after,
                record,
                prune: None,
            });
        }
    }

    fn after_release(&mut self, then: AfterRelease) {
        if matches!(
            self.step,
            Step::Releasing {
                handoff: Some(_),
                ..
            }
        ) {
            // The handover's release is written (or could not be): the lock goes now, to the
            // candidates that wait for it, and this one queues again behind them.
            self.release_lock();
        }
        match then {
            AfterRelease::Wait if self.candidate => self.start_waiting(),
            AfterRelease::Wait => self.step = Step::Idle,
            AfterRelease::Leave | AfterRelease::Close => {
                self.release_lock();
                if self.listening {
                    self.listening = false;
                    self.push(TabOutput::StopListening);
                }
                self.push(TabOutput::Event(TabEvent::Left));
                if then == AfterRelease::Close {
                    self.step = Step::Closed;
                    self.push(TabOutput::Event(TabEvent::Closed));
                } else {
                    self.step = Step::Idle;
                }
            }
        }
    }

    fn withdraw(&mut self, reason: TabEndReason, immediately: bool, then: AfterRelease) {
        self.candidate = false;
        if immediately && self.listening {
            self.listening = false;
            self.push(TabOutput::StopListening);
        }
        match self.step.clone() {
            Step::Held(_) => self.end(reason, immediately, then),
            Step::Releasing { then: pending, .. } => {
                if let Step::Releasing { then: after, .. } = &mut self.step {
                    *after = if pending == AfterRelease::Close {
                        pending
                    } else {
                        then
                    };
                }
            }
            Step::LockedGrant {
                io:
                    LockedGrant::Writing {
                        id, after, epoch, ..
                    },
                ..
            } => {
                self.orphan = Some((id, after, epoch));
                self.after_release(then);
            }
            Step::Takeover {
                after,
                epoch,
                io: Takeover::Writing(id),
                ..
            } => {
                self.orphan = Some((id, after, epoch));
                self.after_release(then);
            }
            Step::Stealing { hold, .. } | Step::Verifying { hold, .. } => {
                // The log names this candidate: release it rather than leave it to expire.
                self.step = Step::Held(hold);
                self.end(reason, immediately, then);
            }
            Step::Closed => {}
            _ => self.after_release(then),
        }
    }
}

/// Records that the hold's lease was (re)granted by a write sent at `sent`. Epochs count holds of
/// one name and the binding admits only safe integers, so every epoch is a valid token; one that
/// were not would leave the lease ungranted, and the hold would end at once: failing safe.
fn grant_lease(lease: &mut Lease, epoch: u64, sent: Now, now: Now, duration: Micros) {
    match Token::new(epoch) {
        Ok(token) => lease.grant_for(token, sent, now, duration),
        Err(_) => lease.clear(),
    }
}

/// Both clocks as one context stamps a message for another: the wall clock, and the monotonic
/// clock on the shared time line of `performance.timeOrigin` (each context's `performance.now()`
/// has its own origin).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    /// `Date.now()`.
    pub wall: WallTime,
    /// `performance.timeOrigin + performance.now()`.
    pub origin: Micros,
}

/// How much sooner than the election the page's mirror stops believing: twice
/// [`WALL_JITTER_TOLERANCE`].
///
/// The page and the election count time on separate [`Clock`]s, and a clock credits the wall
/// clock's run-ahead (a sleep, a fast wall clock) only once it exceeds the tolerance, from the
/// readings it happened to take. A report carries the election's count, without the run-ahead
/// the election had not credited yet (up to one tolerance), which the election credits later
/// and the page, whose clock starts after it, never does; and at any instant the page may hold
/// up to one more tolerance uncredited. So the election may have counted up to two tolerances
/// more. When its count runs out it steps down and lets the Web Lock go, and the next tab is
/// active at once: the page must have stopped believing by then (tenure-sim tabs seed 68260).
pub const MIRROR_CLOCK_SLACK: Micros = Micros(2 * WALL_JITTER_TOLERANCE.0);

/// The page's view of a hold reported by the election running in another context (the
/// heartbeat worker): it ends when the reported one does, minus the report's transit as measured
/// on both clocks, so a late message can only shorten the page's belief. When it stops holding,
/// the page stops acting at once and has the election step down ([`TabElection::yield_role`]):
/// the yield rule.
#[derive(Clone, Debug)]
pub struct TabMirror {
    lease: Lease,
    /// The election's lease settings, which [`TabMutation::MirrorWithoutClockSlack`] uses.
    #[cfg(feature = "mutations")]
    election: Lease,
    #[cfg(feature = "mutations")]
    mutation: Option<TabMutation>,
}

impl TabMirror {
    /// A mirror of a lease of `duration` with the election's `margin`, believed only while more
    /// than that margin and [`MIRROR_CLOCK_SLACK`] remain.
    pub fn new(duration: Micros, margin: Micros) -> Result<TabMirror, ConfigError> {
        // The election's own timing must be valid; the mirror's margin then fits below the
        // duration (at the very least it believes nothing, which is safe).
        #[cfg_attr(not(feature = "mutations"), allow(unused_variables))]
        let election = Lease::new(duration, margin)?;
        let mirror_margin = margin
            .saturating_add(MIRROR_CLOCK_SLACK)
            .min(Micros(duration.0 - 1));
        Ok(TabMirror {
            lease: Lease::validated(duration, mirror_margin),
            #[cfg(feature = "mutations")]
            election,
            #[cfg(feature = "mutations")]
            mutation: None,
        })
    }

    /// Runs the deliberately broken variant `mutation` (only the mirror's own,
    /// [`TabMutation::NoTransitBackdating`] and [`TabMutation::MirrorWithoutClockSlack`], take
    /// effect here).
    #[cfg(feature = "mutations")]
    pub fn with_mutation(mut self, mutation: Option<TabMutation>) -> TabMirror {
        if mutation == Some(TabMutation::MirrorWithoutClockSlack) {
            self.lease = self.election.clone();
        }
        self.mutation = mutation;
        self
    }

    #[inline(always)]
    fn mutated(&self, mutation: TabMutation) -> bool {
        #[cfg(feature = "mutations")]
        return self.mutation == Some(mutation);
        #[cfg(not(feature = "mutations"))]
        {
            let _ = mutation;
            false
        }
    }

    /// Records a report, received at `now` (`now_origin` on the shared time line), that the
    /// hold `token` had `remaining` left when it was stamped `sent`. A report with nothing left
    /// after its transit changes nothing, and so does one read by a wall clock behind its stamp
    /// (beyond [`WALL_JITTER_TOLERANCE`]): a step back in transit could hide a sleep after it.
    pub fn accept(
        &mut self,
        now: Now,
        now_origin: Micros,
        token: Token,
        remaining: Micros,
        sent: Stamp,
    ) {
        if now.wall.0.saturating_add(WALL_JITTER_TOLERANCE.0) < sent.wall.0 {
            // The wall clock stepped back while the report was out. The monotonic clocks of
            // the two contexts miss a sleep, so a sleep after the step would go uncounted: the
            // report is not believed, and the hold's next report (or its end) decides.
            return;
        }
        let transit = if self.mutated(TabMutation::NoTransitBackdating) {
            Micros::ZERO
        } else {
            now.wall
                .since(sent.wall)
                .max(now_origin.saturating_sub(sent.origin))
        };
        let left = remaining.saturating_sub(transit);
        if left == Micros::ZERO {
            return;
        }
        let elapsed = self.lease.duration().saturating_sub(left);
        let start = Now {
            mono: MonoTime(now.mono.0.saturating_sub(elapsed.0)),
            wall: WallTime(now.wall.0.saturating_sub(elapsed.0)),
        };
        self.lease.grant_at(token, start, now);
    }

    /// Whether the hold stands by the page's clocks at `now`. When it does not, the page must
    /// stop acting and yield.
    pub fn holds(&mut self, now: Now) -> bool {
        self.lease.is_safely_held(now)
    }

    /// Time left of the mirrored lease at `now`.
    pub fn remaining(&mut self, now: Now) -> Micros {
        self.lease.remaining(now)
    }

    /// The monotonic reading at which the hold stops standing if the monotonic clock runs true
    /// (the wall clock can only make it sooner), for the page's backstop timer.
    pub fn safe_until(&self) -> Option<MonoTime> {
        self.lease.safe_until()
    }

    /// Forgets the hold.
    pub fn clear(&mut self) {
        self.lease.clear();
    }

    /// Whether the page's hold ended for `reason` by the page's own choice (it left, closed,
    /// handed the role over, or the page was hidden for good), so its signal says "released", not "lost". A hold that
    /// expired, was taken over or lost its grantor lease ended against the page's will.
    pub fn ended_voluntarily(reason: &str) -> bool {
        matches!(reason, "released" | "pagehide" | "closed" | "handed_off")
    }
}

/// How many entries behind the slot it builds on a heartbeat keeps: it deletes older ones in
/// its own transaction ([`TabOutput::Append`]'s `prune`), so the log of a name held for days
/// stays small. Every writer builds on the newest entry it read, so none needs entries this far
/// back; one that slept through them finds its slot behind the newest and counts as overtaken.
pub const KEPT_ENTRIES: u64 = 64;

/// The newest slot a heartbeat appended after `after` deletes, if any: everything more than
/// [`KEPT_ENTRIES`] behind it.
fn prune_through(after: u64) -> Option<u64> {
    after
        .checked_sub(KEPT_ENTRIES)
        .filter(|&through| through > 0)
}

/// Where the page's hold stands at a reading ([`PageHold::standing`]). The two lapses are
/// reported once: the hold they end is dropped, so the next reading finds what remains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageStanding {
    /// The page is the active one: it may act.
    Holds,
    /// The role ran out by the page's clocks (a freeze, a hang, reports that never came): the
    /// page stops at once and has the election step down ([`TabElection::yield_role`]), the
    /// yield rule. Wins over a grantor lease that ran out at the same time.
    Expired,
    /// In global mode, the grantor lease ran out by the page's clocks while the role stands: the
    /// page stops acting until the lease is granted again.
    GrantorLost,
    /// The role stands, but in global mode the grantor lease is not held yet: not active, and
    /// nothing ended.
    AwaitingGrantor,
    /// No role is held.
    NotHeld,
}

impl PageStanding {
    /// The name the page reports (`"holds"`, `"expired"`, `"grantor_lost"`,
    /// `"awaiting_grantor"`, `"not_held"`); a lapse's name is also the reason its hold ended.
    pub fn as_str(self) -> &'static str {
        match self {
            PageStanding::Holds => "holds",
            PageStanding::Expired => "expired",
            PageStanding::GrantorLost => "grantor_lost",
            PageStanding::AwaitingGrantor => "awaiting_grantor",
            PageStanding::NotHeld => "not_held",
        }
    }
}

/// The grantor lease of global mode as the page mirrors it.
#[derive(Clone, Debug)]
struct GrantorHold {
    mirror: TabMirror,
    /// The token of the lease reported held, until it is reported lost or runs out.
    token: Option<Token>,
}

/// Everything the page believes about its hold when the election runs in another context: the
/// role reported by the election and, in global mode, the grantor lease reported by the
/// engine's holder, each mirrored on the page's clocks ([`TabMirror`]). The page is active only
/// while the role stands and, in global mode, the grantor lease too; [`PageHold::standing`]
/// says which of them ended first.
#[derive(Clone, Debug)]
pub struct PageHold {
    role: TabMirror,
    /// The epoch of the role reported held, until it is reported lost, runs out or is let go.
    epoch: Option<Token>,
    grantor: Option<GrantorHold>,
}

impl PageHold {
    /// A page hold mirroring the role with `role` and, in global mode, the grantor lease with
    /// `grantor`.
    pub fn new(role: TabMirror, grantor: Option<TabMirror>) -> PageHold {
        PageHold {
            role,
            epoch: None,
            grantor: grantor.map(|mirror| GrantorHold {
                mirror,
                token: None,
            }),
        }
    }

    /// The election reported the hold `epoch` active, with `remaining` left when stamped `sent`
    /// (received at `now`, see [`TabMirror::accept`]). A hold with another epoch than the one
    /// mirrored replaces it and everything it held: its own report alone says how long it lasts.
    pub fn role_granted(
        &mut self,
        now: Now,
        now_origin: Micros,
        epoch: Token,
        remaining: Micros,
        sent: Stamp,
    ) {
        if self.epoch != Some(epoch) {
            self.step_down();
            self.epoch = Some(epoch);
        }
        self.role.accept(now, now_origin, epoch, remaining, sent);
    }

    /// The election renewed the hold `epoch`; a report for any other hold is stale and ignored.
    pub fn role_renewed(
        &mut self,
        now: Now,
        now_origin: Micros,
        epoch: Token,
        remaining: Micros,
        sent: Stamp,
    ) {
        if self.epoch == Some(epoch) {
            self.role.accept(now, now_origin, epoch, remaining, sent);
        }
    }

    /// The election ended the hold `epoch`. Returns whether that was the hold mirrored (a report
    /// about an older one changes nothing).
    pub fn role_lost(&mut self, epoch: Token) -> bool {
        if self.epoch != Some(epoch) {
            return false;
        }
        self.step_down();
        true
    }

    /// The engine's holder has the grantor lease `token`, with `remaining` left when stamped
    /// `sent`. Returns whether it counts: only in global mode, and while a role is held (the
    /// engine holds the lease for the role alone). A new token replaces the lease mirrored.
    pub fn grantor_granted(
        &mut self,
        now: Now,
        now_origin: Micros,
        token: Token,
        remaining: Micros,
        sent: Stamp,
    ) -> bool {
        let Some(grantor) = self.grantor.as_mut().filter(|_| self.epoch.is_some()) else {
            return false;
        };
        if grantor.token != Some(token) {
            grantor.mirror.clear();
            grantor.token = Some(token);
        }
        grantor
            .mirror
            .accept(now, now_origin, token, remaining, sent);
        true
    }

    /// The engine's holder lost the grantor lease (or could not get one).
    pub fn grantor_lost(&mut self) {
        if let Some(grantor) = &mut self.grantor {
            grantor.token = None;
            grantor.mirror.clear();
        }
    }

    /// The page let go of the role (released, closed, hidden for good) or the election ended it.
    pub fn step_down(&mut self) {
        self.epoch = None;
        self.role.clear();
        self.grantor_lost();
    }

    /// Where the hold stands at `now`. The role is judged first: a role that ran out ends the
    /// hold as [`PageStanding::Expired`] whatever the grantor lease says, and drops both, so the
    /// page yields once. A grantor lease that ran out is dropped too.
    pub fn standing(&mut self, now: Now) -> PageStanding {
        if self.epoch.is_none() {
            return PageStanding::NotHeld;
        }
        if !self.role.holds(now) {
            self.step_down();
            return PageStanding::Expired;
        }
        let Some(grantor) = &mut self.grantor else {
            return PageStanding::Holds;
        };
        if grantor.token.is_none() {
            return PageStanding::AwaitingGrantor;
        }
        if !grantor.mirror.holds(now) {
            self.grantor_lost();
            return PageStanding::GrantorLost;
        }
        PageStanding::Holds
    }

    /// The epoch of the role mirrored, if any.
    pub fn epoch(&self) -> Option<Token> {
        self.epoch
    }

    /// The monotonic reading at which the hold stops standing if the monotonic clock runs true:
    /// the sooner of the role's and (when held) the grantor lease's, for the page's backstop
    /// timer. `None` when either has no safe time left to wait for.
    pub fn safe_until(&self) -> Option<MonoTime> {
        let role = self.role.safe_until()?;
        match &self.grantor {
            Some(GrantorHold {
                mirror,
                token: Some(_),
            }) => Some(role.min(mirror.safe_until()?)),
            _ => Some(role),
        }
    }
}

#[cfg(test)]
#[path = "tab_tests.rs"]
mod tests;
