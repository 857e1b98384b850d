//! Exhaustive small-model check of the tab election: every interleaving of three real
//! [`TabElection`]s over the shared log, the Web Lock (with steal) and the broadcast channel,
//! with context freezes, crashes, dropped broadcasts, drift and late timers, in discrete time.
//!
//! A state is the three elections (cloned), their clocks, whether each context is frozen or
//! dead, the newest log entry, the lock's holder and queue, and the messages in flight (a
//! multiset: storage operations at the store, their completions, lock events, broadcasts), plus
//! what is left of each fault budget. From each state every enabled action is tried:
//!
//! - the store carries out any operation in flight (a compare-and-swap append or a read); any
//!   completion, lock event or broadcast arrives at its (running) context; a broadcast may be
//!   lost;
//! - a running tab's due timer fires; a frozen tab thaws (and its host re-checks, as on
//!   `resume`); a running active tab freezes; a running tab crashes (its lock passes on);
//! - time moves one quantum once everything addressed to running contexts has arrived and no
//!   running tab's timer is due (but for a budget of late timers), with every clock moving a
//!   quantum, or one tab's moving two or none (drift, within `max_skew` quanta of true time).
//!
//! Everything therefore arrives within the quantum it was sent in, in any order: the orders are
//! what is explored. Frozen contexts keep their messages until they thaw, however long.
//!
//! After every action: at most one election is active by its own clocks (a frozen one counts:
//! its clocks run), every `Active` epoch exceeds all before, every grant's epoch exceeds the
//! entry it follows, and no release lands on another hold's entry. States are identified by a
//! 64-bit hash of everything that decides their future.

use std::collections::hash_map::{DefaultHasher, Entry};
use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::hash::{Hash, Hasher};

use tenure::core::{
    AppendOutcome, EntryKind, IoId, LockEvent, LogEntry, LogRecord, Micros, Notice, Now,
    ObservedMutation, TabConfig, TabElection, TabEvent, TabMutation, TabOutput,
};

use crate::tabs::{TabInvariant, TabMutants};

const TABS: usize = 3;
const WALL_EPOCH: u64 = 1_700_000_000_000_000;

/// The bounds of one exploration of the tab election.
#[derive(Clone, Debug)]
pub struct TabBounds {
    /// One quantum of time, µs.
    pub quantum: u64,
    /// Heartbeat lease, in quanta.
    pub lease: u64,
    /// Margin, in quanta; at least `2 · max_skew`.
    pub margin: u64,
    /// Renew interval, in quanta.
    pub renew_interval: u64,
    /// The third tab's own lease, margin and renew interval, in quanta (another version of
    /// the application), when they differ.
    pub third: Option<(u64, u64, u64)>,
    /// True time explored, in quanta.
    pub horizon: u64,
    /// Whether Web Locks are used.
    pub web_locks: bool,
    /// How far a tab's clocks may run ahead of or behind true time, in quanta.
    pub max_skew: i64,
    /// Quanta tabs' clocks may run fast or slow, in total.
    pub drift_steps: u8,
    /// Times time may move past a due timer, in total.
    pub late_timers: u8,
    /// Freezes of an active tab's context, in total.
    pub freezes: u8,
    /// Crashes, in total.
    pub crashes: u8,
    /// Lost broadcasts, in total.
    pub drops: u8,
    /// Pages yielding their hold, in total.
    pub yields: u8,
    /// Whether the opening at time zero is settled in one order (every message carried out in
    /// the order sent: tab 0 takes the role, the others wait) before the exploration starts.
    /// The opening's orders multiply everything after them; the scenarios without this flag
    /// explore them.
    pub settled_start: bool,
    /// Stop after this many distinct states.
    pub max_states: usize,
}

impl TabBounds {
    /// Three tabs with Web Locks, a 5 s lease with a 2 s margin renewed every 2 s, 7 s of true
    /// time, no faults.
    pub fn quiet() -> TabBounds {
        TabBounds {
            quantum: 1_000_000,
            lease: 5,
            margin: 2,
            renew_interval: 2,
            third: None,
            horizon: 7,
            web_locks: true,
            max_skew: 0,
            drift_steps: 0,
            late_timers: 0,
            freezes: 0,
            crashes: 0,
            drops: 0,
            yields: 0,
            settled_start: false,
            max_states: 5_000_000,
        }
    }

    /// The fault families the election is checked under, one exploration each.
    pub fn scenarios() -> Vec<(&'static str, TabBounds)> {
        let quiet = TabBounds::quiet();
        vec![
            ("quiet", quiet.clone()),
            (
                "crash",
                TabBounds {
                    crashes: 1,
                    horizon: 4,
                    ..quiet.clone()
                },
            ),
            (
                "a longer lease beside a shorter one, without Web Locks",
                TabBounds {
                    web_locks: false,
                    third: Some((4, 2, 1)),
                    horizon: 6,
                    ..quiet.clone()
                },
            ),
            ("freeze and steal", TabBounds::freeze_and_steal()),
        ]
    }

    /// Three tabs with Web Locks, one of which freezes while active: it is taken over by
    /// observation and its lock stolen, while the lock it lets go of on thawing reaches another
    /// candidate just before the steal (see `tests/model_check.rs`).
    pub fn freeze_and_steal() -> TabBounds {
        TabBounds {
            lease: 4,
            margin: 1,
            renew_interval: 2,
            freezes: 1,
            horizon: 5,
            settled_start: true,
            ..TabBounds::quiet()
        }
    }

    fn timing(&self, tab: usize) -> (u64, u64, u64) {
        match self.third {
            Some(third) if tab == TABS - 1 => third,
            _ => (self.lease, self.margin, self.renew_interval),
        }
    }
}

/// Something in flight.
#[derive(Clone, Debug)]
enum Msg {
    /// At the store.
    Read {
        tab: usize,
        id: IoId,
    },
    Append {
        tab: usize,
        id: IoId,
        after: u64,
        record: LogRecord,
    },
    /// Back at the tab.
    ReadDone {
        tab: usize,
        id: IoId,
        entry: Option<LogEntry>,
    },
    AppendDone {
        tab: usize,
        id: IoId,
        outcome: AppendOutcome,
    },
    Lock {
        tab: usize,
        id: IoId,
        event: LockEvent,
    },
    Notice {
        tab: usize,
        notice: Notice,
    },
}

impl Msg {
    /// The tab a message is for, when it waits for that context to run.
    fn recipient(&self) -> Option<usize> {
        match self {
            Msg::Read { .. } | Msg::Append { .. } => None,
            Msg::ReadDone { tab, .. }
            | Msg::AppendDone { tab, .. }
            | Msg::Lock { tab, .. }
            | Msg::Notice { tab, .. } => Some(*tab),
        }
    }
}

/// One step of the exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TabAction {
    /// Time moves one quantum, every clock with it.
    Tick,
    /// Time moves; this tab's clocks move two quanta.
    Fast(usize),
    /// Time moves; this tab's clocks stand still.
    Slow(usize),
    /// The message at this index in flight arrives (or is carried out at the store).
    Deliver(usize),
    /// The broadcast at this index is lost.
    Drop(usize),
    /// A tab's timer fires.
    Timer(usize),
    /// A tab's context freezes.
    Freeze(usize),
    /// A frozen tab thaws; its host re-checks.
    Thaw(usize),
    /// A tab crashes.
    Crash(usize),
    /// A tab's page yields its hold.
    Yield(usize),
}

#[derive(Clone)]
struct ModelTab {
    election: TabElection,
    election_fp: u64,
    mono: u64,
    wall: u64,
    skew: i64,
    frozen: bool,
    dead: bool,
    listening: bool,
}

impl ModelTab {
    fn now(&self) -> Now {
        Now::from_micros(self.mono, self.wall)
    }

    fn refresh_fp(&mut self) {
        self.election_fp = hash_debug(&self.election);
    }
}

fn hash_debug(value: &impl fmt::Debug) -> u64 {
    struct HashWriter<'a>(&'a mut DefaultHasher);
    impl fmt::Write for HashWriter<'_> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let mut h = DefaultHasher::new();
    write!(HashWriter(&mut h), "{value:?}").expect("hashing cannot fail");
    h.finish()
}

#[derive(Clone)]
struct State {
    t: u64,
    tabs: [ModelTab; TABS],
    newest: Option<LogEntry>,
    lock: Option<(usize, IoId)>,
    queue: Vec<(usize, IoId)>,
    net: Vec<(u64, Msg)>,
    highest_active: u64,
    drift_steps: u8,
    late_timers: u8,
    freezes: u8,
    crashes: u8,
    drops: u8,
    yields: u8,
}

type Broken = (TabInvariant, String);

impl State {
    fn fingerprint(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.t.hash(&mut h);
        for tab in &self.tabs {
            tab.election_fp.hash(&mut h);
            (
                tab.mono,
                tab.wall,
                tab.skew,
                tab.frozen,
                tab.dead,
                tab.listening,
            )
                .hash(&mut h);
        }
        hash_debug(&self.newest).hash(&mut h);
        hash_debug(&(self.lock, &self.queue)).hash(&mut h);
        let mut net: Vec<u64> = self.net.iter().map(|(fp, _)| *fp).collect();
        net.sort_unstable();
        net.hash(&mut h);
        self.highest_active.hash(&mut h);
        (
            self.drift_steps,
            self.late_timers,
            self.freezes,
            self.crashes,
        )
            .hash(&mut h);
        (self.drops, self.yields).hash(&mut h);
        h.finish()
    }

    fn send(&mut self, msg: Msg) {
        self.net.push((hash_debug(&msg), msg));
    }

    fn lock_event(&mut self, tab: usize, id: IoId, event: LockEvent) {
        self.send(Msg::Lock { tab, id, event });
    }

    fn release_lock(&mut self, tab: usize) {
        self.queue.retain(|(t, _)| *t != tab);
        if self.lock.is_some_and(|(t, _)| t == tab) {
            self.lock = None;
            if !self.queue.is_empty() {
                let (next, id) = self.queue.remove(0);
                self.lock = Some((next, id));
                self.lock_event(next, id, LockEvent::Granted);
            }
        }
    }

    /// Runs one input on tab `i` at its clocks and carries out the outputs.
    fn input(&mut self, i: usize, f: impl FnOnce(&mut TabElection, Now)) -> Result<(), Broken> {
        let now = self.tabs[i].now();
        f(&mut self.tabs[i].election, now);
        while let Some(output) = self.tabs[i].election.poll_output() {
            match output {
                TabOutput::Listen => self.tabs[i].listening = true,
                TabOutput::StopListening => self.tabs[i].listening = false,
                TabOutput::ReadLog(id) => self.send(Msg::Read { tab: i, id }),
                TabOutput::Append {
                    id, after, record, ..
                } => self.send(Msg::Append {
                    tab: i,
                    id,
                    after,
                    record,
                }),
                TabOutput::RequestLock { id, steal } => {
                    if steal {
                        if let Some((holder, held)) = self.lock.take() {
                            self.lock_event(holder, held, LockEvent::Lost);
                        }
                        self.lock = Some((i, id));
                        self.lock_event(i, id, LockEvent::Granted);
                    } else if self.lock.is_none() {
                        self.lock = Some((i, id));
                        self.lock_event(i, id, LockEvent::Granted);
                    } else {
                        self.queue.push((i, id));
                    }
                }
                TabOutput::ReleaseLock => self.release_lock(i),
                TabOutput::Broadcast(entry) => {
                    for to in 0..TABS {
                        if to != i {
                            let notice = Notice::Written(entry.clone());
                            self.send(Msg::Notice { tab: to, notice });
                        }
                    }
                }
                TabOutput::Ping => {}
                TabOutput::Event(TabEvent::Active { epoch, .. }) => {
                    // A hold that is already superseded when it starts (a stale read verified
                    // it) is fenced: its epoch is no longer the newest in the log.
                    let newest = self.newest.as_ref().map_or(0, |e| e.record.epoch);
                    if epoch <= self.highest_active && epoch >= newest {
                        return Err((
                            TabInvariant::EpochsIncrease,
                            format!(
                                "tab{i} active with epoch {epoch} after {}",
                                self.highest_active
                            ),
                        ));
                    }
                    self.highest_active = self.highest_active.max(epoch);
                }
                TabOutput::Event(_) => {}
            }
        }
        self.tabs[i].refresh_fp();
        Ok(())
    }

    fn append(&mut self, after: u64, record: LogRecord) -> Result<AppendOutcome, Broken> {
        let newest_seq = self.newest.as_ref().map_or(0, |e| e.seq);
        if newest_seq != after {
            return Ok(AppendOutcome::Conflict);
        }
        if let Some(previous) = &self.newest {
            let p = &previous.record;
            if record.kind == EntryKind::Grant && record.epoch <= p.epoch {
                return Err((
                    TabInvariant::EpochsIncrease,
                    format!("grant epoch {} after epoch {}", record.epoch, p.epoch),
                ));
            }
            if record.kind == EntryKind::Release
                && (p.holder != record.holder || p.epoch != record.epoch)
            {
                return Err((
                    TabInvariant::ReleaseOverOtherHold,
                    format!(
                        "release of {} epoch {} on top of {} {} epoch {}",
                        record.holder,
                        record.epoch,
                        p.kind.as_str(),
                        p.holder,
                        p.epoch
                    ),
                ));
            }
        }
        self.newest = Some(LogEntry {
            seq: after + 1,
            record,
        });
        Ok(AppendOutcome::Appended)
    }
}

/// What an exploration found.
#[derive(Clone, Debug)]
pub struct TabModelReport {
    /// Distinct states reached.
    pub states: usize,
    /// Transitions taken.
    pub transitions: u64,
    /// Whether `max_states` cut the exploration short.
    pub truncated: bool,
    /// The first broken invariant and the steps that lead to it.
    pub violation: Option<(TabInvariant, String, Vec<String>)>,
}

impl fmt::Display for TabModelReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} states, {} transitions{}",
            self.states,
            self.transitions,
            if self.truncated { " (cut short)" } else { "" }
        )?;
        if let Some((invariant, detail, path)) = &self.violation {
            write!(f, "\ninvariant {invariant:?} broken: {detail}\npath:")?;
            for step in path {
                write!(f, "\n  {step}")?;
            }
        }
        Ok(())
    }
}

/// The model: bounds plus the (possibly mutated) elections.
pub struct TabModel {
    bounds: TabBounds,
    mutants: TabMutants,
}

impl TabModel {
    /// A model of the real election (or a mutated one) under `bounds`.
    pub fn new(bounds: TabBounds, mutants: TabMutants) -> TabModel {
        TabModel { bounds, mutants }
    }

    fn config(&self, tab: usize) -> TabConfig {
        let q = self.bounds.quantum;
        let (lease, margin, renew) = self.bounds.timing(tab);
        let mut config = TabConfig::new(
            format!("t{tab}"),
            Micros(lease * q),
            Micros(margin * q),
            Micros(renew * q),
            self.bounds.web_locks,
            false,
            tab as u64,
        )
        .expect("bounds obey the configuration rules");
        config.mutation = self.mutants.election;
        config.observed_mutation = self.mutants.observed;
        config
    }

    /// All three tabs join at time zero.
    fn initial(&self) -> State {
        let q = self.bounds.quantum;
        let tab = |i: usize| ModelTab {
            election: TabElection::new(self.config(i)),
            election_fp: 0,
            mono: 100 * q * (i as u64 + 1),
            wall: WALL_EPOCH + 7 * q * i as u64,
            skew: 0,
            frozen: false,
            dead: false,
            listening: false,
        };
        let b = &self.bounds;
        let mut state = State {
            t: 0,
            tabs: [tab(0), tab(1), tab(2)],
            newest: None,
            lock: None,
            queue: Vec::new(),
            net: Vec::new(),
            highest_active: 0,
            drift_steps: b.drift_steps,
            late_timers: b.late_timers,
            freezes: b.freezes,
            crashes: b.crashes,
            drops: b.drops,
            yields: b.yields,
        };
        for i in 0..TABS {
            state
                .input(i, |e, now| e.join(now))
                .expect("joining breaks nothing");
        }
        if b.settled_start {
            while !state.net.is_empty() {
                state = self
                    .apply(&state, TabAction::Deliver(0))
                    .expect("a quiet opening breaks nothing");
            }
        }
        state
    }

    fn timer_due(tab: &ModelTab) -> bool {
        !tab.dead
            && !tab.frozen
            && tab
                .election
                .poll_timeout()
                .is_some_and(|at| at.0 <= tab.mono)
    }

    fn deliverable(s: &State, msg: &Msg) -> bool {
        msg.recipient().is_none_or(|tab| !s.tabs[tab].frozen)
    }

    fn actions(&self, s: &State) -> Vec<TabAction> {
        let b = &self.bounds;
        let mut out = Vec::new();
        let late = s.tabs.iter().any(Self::timer_due);
        let waiting = s.net.iter().any(|(_, m)| Self::deliverable(s, m));
        let time_left = s.t < b.horizon && (!late || s.late_timers > 0) && !waiting;
        if time_left {
            out.push(TabAction::Tick);
        }
        for (i, tab) in s.tabs.iter().enumerate() {
            if tab.dead {
                continue;
            }
            if time_left && s.drift_steps > 0 && tab.skew < b.max_skew {
                out.push(TabAction::Fast(i));
            }
            if time_left && s.drift_steps > 0 && tab.skew > -b.max_skew {
                out.push(TabAction::Slow(i));
            }
            if Self::timer_due(tab) {
                out.push(TabAction::Timer(i));
            }
            if tab.frozen {
                out.push(TabAction::Thaw(i));
            } else {
                // Freezes of active tabs only: a frozen holder is what takeover and steal are for,
                // and freezing anyone anywhere multiplies the states past what can be explored.
                if s.freezes > 0 && tab.election.epoch().is_some() {
                    out.push(TabAction::Freeze(i));
                }
                if s.crashes > 0 {
                    out.push(TabAction::Crash(i));
                }
                if s.yields > 0 && tab.election.epoch().is_some() {
                    out.push(TabAction::Yield(i));
                }
            }
        }
        let mut tried: Vec<u64> = Vec::new();
        for (k, (fp, msg)) in s.net.iter().enumerate() {
            // Identical messages lead to identical states.
            if tried.contains(fp) || !Self::deliverable(s, msg) {
                continue;
            }
            tried.push(*fp);
            out.push(TabAction::Deliver(k));
            if s.drops > 0 && matches!(msg, Msg::Notice { .. }) {
                out.push(TabAction::Drop(k));
            }
        }
        out
    }

    fn advance(&self, s: &mut State, fast: Option<usize>, slow: Option<usize>) {
        let q = self.bounds.quantum;
        if s.tabs.iter().any(Self::timer_due) {
            s.late_timers -= 1;
        }
        s.t += 1;
        for (i, tab) in s.tabs.iter_mut().enumerate() {
            let step = if fast == Some(i) {
                2 * q
            } else if slow == Some(i) {
                0
            } else {
                q
            };
            tab.mono += step;
            tab.wall += step;
        }
    }

    fn apply(&self, s: &State, action: TabAction) -> Result<State, Broken> {
        let mut s = s.clone();
        match action {
            TabAction::Tick => self.advance(&mut s, None, None),
            TabAction::Fast(i) => {
                self.advance(&mut s, Some(i), None);
                s.tabs[i].skew += 1;
                s.drift_steps -= 1;
            }
            TabAction::Slow(i) => {
                self.advance(&mut s, None, Some(i));
                s.tabs[i].skew -= 1;
                s.drift_steps -= 1;
            }
            TabAction::Timer(i) => s.input(i, |e, now| e.handle_timeout(now))?,
            TabAction::Freeze(i) => {
                s.tabs[i].frozen = true;
                s.freezes -= 1;
            }
            TabAction::Thaw(i) => {
                s.tabs[i].frozen = false;
                s.input(i, |e, now| e.check(now))?;
            }
            TabAction::Crash(i) => {
                s.crashes -= 1;
                s.tabs[i].dead = true;
                s.tabs[i].listening = false;
                s.release_lock(i);
                s.net.retain(|(_, m)| m.recipient() != Some(i));
            }
            TabAction::Yield(i) => {
                s.yields -= 1;
                let epoch = s.tabs[i].election.epoch().unwrap_or(0);
                s.input(i, |e, now| e.yield_role(now, epoch))?;
            }
            TabAction::Drop(k) => {
                s.net.remove(k);
                s.drops -= 1;
            }
            TabAction::Deliver(k) => {
                let (_, msg) = s.net.remove(k);
                match msg {
                    Msg::Read { tab, id } => {
                        let entry = s.newest.clone();
                        s.send(Msg::ReadDone { tab, id, entry });
                    }
                    Msg::Append {
                        tab,
                        id,
                        after,
                        record,
                    } => {
                        let outcome = s.append(after, record)?;
                        s.send(Msg::AppendDone { tab, id, outcome });
                    }
                    Msg::ReadDone { tab, id, entry } => {
                        s.input(tab, |e, now| e.handle_read(now, id, Ok(entry)))?
                    }
                    Msg::AppendDone { tab, id, outcome } => {
                        s.input(tab, |e, now| e.handle_append(now, id, outcome))?
                    }
                    Msg::Lock { tab, id, event } => {
                        s.input(tab, |e, now| e.handle_lock(now, id, event))?
                    }
                    Msg::Notice { tab, notice } => {
                        if s.tabs[tab].listening {
                            s.input(tab, |e, now| e.handle_notice(now, notice))?;
                        }
                    }
                }
            }
        }
        // Beliefs are queried on copies, so that a query does not make equal states differ.
        let mut active = Vec::new();
        for (i, tab) in s.tabs.iter().enumerate() {
            if tab.dead {
                continue;
            }
            let mut probe = tab.election.clone();
            if probe.is_active(tab.now()) {
                active.push(i);
            }
        }
        if active.len() > 1 {
            return Err((
                TabInvariant::OneActive,
                format!("tabs {active:?} active at once"),
            ));
        }
        Ok(s)
    }

    /// Explores every state reachable within the bounds, depth first, and stops at the first
    /// broken invariant.
    pub fn explore(&self) -> TabModelReport {
        let init = self.initial();
        let init_fp = init.fingerprint();
        let mut seen: HashMap<u64, Option<(u64, TabAction)>> = HashMap::new();
        seen.insert(init_fp, None);
        let mut stack = vec![(init_fp, init)];
        let mut transitions = 0u64;
        while let Some((fp, state)) = stack.pop() {
            for action in self.actions(&state) {
                transitions += 1;
                match self.apply(&state, action) {
                    Err((invariant, detail)) => {
                        let path = self.path_to(&seen, fp, action);
                        return TabModelReport {
                            states: seen.len(),
                            transitions,
                            truncated: false,
                            violation: Some((invariant, detail, path)),
                        };
                    }
                    Ok(next) => {
                        let next_fp = next.fingerprint();
                        if let Entry::Vacant(slot) = seen.entry(next_fp) {
                            slot.insert(Some((fp, action)));
                            stack.push((next_fp, next));
                        }
                    }
                }
            }
            if seen.len() >= self.bounds.max_states {
                return TabModelReport {
                    states: seen.len(),
                    transitions,
                    truncated: true,
                    violation: None,
                };
            }
        }
        TabModelReport {
            states: seen.len(),
            transitions,
            truncated: false,
            violation: None,
        }
    }

    fn path_to(
        &self,
        seen: &HashMap<u64, Option<(u64, TabAction)>>,
        fp: u64,
        last: TabAction,
    ) -> Vec<String> {
        let mut actions = vec![last];
        let mut at = fp;
        while let Some(Some((parent, action))) = seen.get(&at) {
            actions.push(*action);
            at = *parent;
        }
        actions.reverse();
        let mut state = self.initial();
        let mut lines = Vec::with_capacity(actions.len());
        for action in actions {
            let t = state.t;
            let what = match action {
                TabAction::Deliver(k) | TabAction::Drop(k) => {
                    format!("{action:?} {:?}", state.net[k].1)
                }
                _ => format!("{action:?}"),
            };
            match self.apply(&state, action) {
                Ok(next) => {
                    let phases: Vec<String> = next
                        .tabs
                        .iter()
                        .map(|tab| {
                            format!(
                                "{:?}{}{}",
                                tab.election.phase(),
                                tab.election
                                    .epoch()
                                    .map_or(String::new(), |e| format!("({e})")),
                                if tab.frozen { " frozen" } else { "" }
                            )
                        })
                        .collect();
                    lines.push(format!("t={t} {what} -> {}", phases.join(", ")));
                    state = next;
                }
                Err((invariant, _)) => {
                    lines.push(format!("t={t} {what} -> breaks {invariant:?}"));
                }
            }
        }
        lines
    }
}

/// The election's mutations only the model check catches: the race a lock granted just before
/// a steal opens needs the lock's grant, the steal and the thief's check of the log to fall
/// within one delivery of each other, which the tabs world's random schedules do not hit within
/// their seed budget; the model tries every order.
pub const MODEL_ONLY_MUTATIONS: [TabMutation; 1] = [TabMutation::LockedGrantOverTakeover];

/// The mutants the model check catches within its bounds: a takeover that ignores a lost
/// compare-and-swap, an observer that does not restart its wait on a new version, and a lock
/// holder that builds on a live takeover grant. The
/// others need what the model leaves out (the leaving notice, the page's mirror and gate) or
/// longer horizons (a takeover of a live holder by a shorter own lease; a takeover's epoch),
/// and the tabs world catches them.
pub fn model_mutants() -> Vec<TabMutants> {
    vec![
        TabMutants {
            election: Some(TabMutation::BlindTakeover),
            observed: None,
            watch: None,
            calls: None,
        },
        TabMutants {
            election: None,
            observed: Some(ObservedMutation::NoRestartOnNewVersion),
            watch: None,
            calls: None,
        },
        TabMutants {
            election: Some(TabMutation::LockedGrantOverTakeover),
            observed: None,
            watch: None,
            calls: None,
        },
    ]
}
