//! The watch world: one real [`Watcher`] follows a resource whose holder keeps changing, through
//! a change feed that loses, delays and reorders what it sends.
//!
//! The store keeps the resource's history (each state with its version, as
//! `tenure::protocol::watch_version` numbers them: a grant, then its end, then the next grant)
//! and forgets all but the last few versions (compaction, as etcd does). A fetch is answered as a
//! store with a change feed answers it:
//! - a **snapshot** (`after: None`): the current state, then the end of the fetch;
//! - a **resumption** (`after: Some(v)`): refused at once if `v` is older than what the store
//!   still remembers; otherwise a stream of every state after `v`, in order as the store sends
//!   them, then each new change as it happens, until the store closes the stream (a normal end).
//!
//! Every message travels with its own delay (1–200 ms, sometimes seconds late), so messages of
//! one stream and of different fetches arrive out of order. While faults last, a stream may
//! break: the message and everything after it are lost, and the failure is either delivered or
//! never heard of (the watcher must notice by its fetch deadline). Faults stop at
//! [`FAULTS_END`], changes at [`CHANGES_END`].
//!
//! Invariants:
//! 1. **in order**: every version reported is larger than every version reported before it;
//! 2. **true**: every state reported is the store's state of that version;
//! 3. **caught up**: by [`CAUGHT_UP_BY`], long after the last change and the last fault, the
//!    watcher has reported the store's final state.

use std::collections::BTreeMap;

use tenure::core::{
    FetchId, HolderView, Micros, MonoTime, WatchConfig, WatchMutation, WatchOutput, Watcher,
};

use crate::rng::Rng;

const MS: u64 = 1_000;
const SECOND: u64 = 1_000_000;

/// When the holder stops changing.
pub const CHANGES_END: u64 = 60 * SECOND;
/// When the feed stops losing messages and sending them late.
pub const FAULTS_END: u64 = 60 * SECOND;
/// When the watcher must have reported the final state.
pub const CAUGHT_UP_BY: u64 = 120 * SECOND;

/// What a watch run broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchInvariant {
    /// A version was reported after a version at least as large.
    InOrder,
    /// A reported state is not the store's state of its version.
    True,
    /// The watcher had not reported the final state long after the last change.
    CaughtUp,
}

/// The result of one watch run.
#[derive(Clone, Debug)]
pub struct WatchOutcome {
    /// The seed.
    pub seed: u64,
    /// States reported.
    pub reports: u64,
    /// Changes the store made.
    pub changes: u64,
    /// Fetches the watcher started.
    pub fetches: u64,
    /// Streams broken by faults.
    pub breaks: u64,
    /// Events and timers processed.
    pub steps: u64,
    /// What was broken first, and how.
    pub violation: Option<(WatchInvariant, String)>,
}

impl WatchOutcome {
    /// The run in a few lines, for a failure's report.
    pub fn report(&self) -> String {
        let violation = match &self.violation {
            Some((invariant, detail)) => format!("{invariant:?}: {detail}"),
            None => "none".to_owned(),
        };
        format!(
            "watch seed {}: {} changes, {} fetches, {} broken streams, {} reports; violation: {violation}\n\
             reproduce: TENURE_SIM_SEED={} TENURE_SIM_RUNS=1 cargo test -p tenure-sim --test watch",
            self.seed, self.changes, self.fetches, self.breaks, self.reports, self.seed
        )
    }
}

/// What travels from the store to the watcher.
#[derive(Clone, Debug)]
enum Message {
    State(HolderView),
    Done,
    Failure,
}

#[derive(Clone, Debug)]
enum Event {
    /// The holder changes.
    Change,
    /// A message arrives for a fetch.
    Deliver(FetchId, Message),
    /// The store closes a stream normally.
    Close(FetchId),
}

/// A stream the store keeps sending on.
struct Stream {
    id: FetchId,
    broken: bool,
}

struct World {
    rng: Rng,
    now: u64,
    seq: u64,
    events: BTreeMap<(u64, u64), Event>,
    /// Every state by version; the last is current.
    history: BTreeMap<u64, HolderView>,
    /// How many versions back the store still remembers.
    kept: u64,
    streams: Vec<Stream>,
    watcher: Watcher,
    last_reported: Option<u64>,
    outcome: WatchOutcome,
}

impl World {
    fn at(&mut self, delay: u64, event: Event) {
        self.seq += 1;
        self.events.insert((self.now + delay, self.seq), event);
    }

    fn faulty(&self) -> bool {
        self.now < FAULTS_END
    }

    fn latency(&mut self) -> u64 {
        if self.faulty() && self.rng.chance(0.05) {
            self.rng.range(SECOND, 4 * SECOND)
        } else {
            self.rng.range(MS, 200 * MS)
        }
    }

    fn current(&self) -> &HolderView {
        self.history
            .values()
            .next_back()
            .expect("history starts with a state")
    }

    fn oldest_remembered(&self) -> u64 {
        self.current().version.saturating_sub(self.kept)
    }

    /// Sends `message` on stream `index`, which may break it.
    fn send(&mut self, index: usize, message: Message) {
        if self.streams[index].broken {
            return;
        }
        if self.faulty() && self.rng.chance(0.04) {
            self.streams[index].broken = true;
            self.outcome.breaks += 1;
            if self.rng.chance(0.5) {
                let delay = self.latency();
                self.at(
                    delay,
                    Event::Deliver(self.streams[index].id, Message::Failure),
                );
            }
            return;
        }
        let delay = self.latency();
        self.at(delay, Event::Deliver(self.streams[index].id, message));
    }

    fn fetch(&mut self, id: FetchId, after: Option<u64>) {
        self.outcome.fetches += 1;
        self.streams.push(Stream { id, broken: false });
        let index = self.streams.len() - 1;
        match after {
            None => {
                let state = self.current().clone();
                self.send(index, Message::State(state));
                self.send(index, Message::Done);
            }
            Some(after) if after < self.oldest_remembered() => self.send(index, Message::Failure),
            Some(after) => {
                let missed: Vec<HolderView> = self
                    .history
                    .range(after + 1..)
                    .map(|(_, view)| view.clone())
                    .collect();
                for view in missed {
                    self.send(index, Message::State(view));
                }
                let open_for = self.rng.range(SECOND, 20 * SECOND);
                self.at(open_for, Event::Close(id));
                return;
            }
        }
        self.streams.remove(index);
    }

    fn change(&mut self) {
        let current = self.current().clone();
        let next = if current.holder.is_some() {
            HolderView {
                version: current.version + 1,
                holder: None,
                token: None,
                expires_in_ms: None,
                handed_to: None,
            }
        } else {
            let token = current.version.div_ceil(2);
            HolderView {
                version: token * 2,
                holder: Some(format!("h{}", self.rng.below(4))),
                token: Some(token),
                expires_in_ms: Some(self.rng.range(1_000, 15_000)),
                handed_to: None,
            }
        };
        self.outcome.changes += 1;
        self.history.insert(next.version, next.clone());
        for index in 0..self.streams.len() {
            self.send(index, Message::State(next.clone()));
        }
        if self.now < CHANGES_END {
            let wait = self.rng.exponential(800 * MS);
            self.at(wait, Event::Change);
        }
    }

    fn close(&mut self, id: FetchId) {
        if let Some(index) = self.streams.iter().position(|s| s.id == id) {
            self.send(index, Message::Done);
            self.streams.remove(index);
        }
    }

    fn deliver(&mut self, id: FetchId, message: Message) {
        let now = MonoTime(self.now);
        match message {
            Message::State(view) => self.watcher.handle_state(now, id, view),
            Message::Done => self.watcher.handle_done(now, id),
            Message::Failure => self.watcher.handle_failure(now, id, None),
        }
    }

    /// Carries out what the watcher asks, checking each report.
    fn drain(&mut self) -> Result<(), (WatchInvariant, String)> {
        while let Some(output) = self.watcher.poll_output() {
            match output {
                WatchOutput::Fetch { id, after } => self.fetch(id, after),
                WatchOutput::Abandon(id) => self.streams.retain(|s| s.id != id),
                WatchOutput::Report(view) => {
                    self.outcome.reports += 1;
                    if let Some(last) = self.last_reported.filter(|&last| view.version <= last) {
                        return Err((
                            WatchInvariant::InOrder,
                            format!("reported version {} after {last}", view.version),
                        ));
                    }
                    if self.history.get(&view.version) != Some(&view) {
                        return Err((
                            WatchInvariant::True,
                            format!("reported {view:?}, which the store never had"),
                        ));
                    }
                    self.last_reported = Some(view.version);
                }
            }
        }
        Ok(())
    }

    fn run(&mut self) -> Result<(), (WatchInvariant, String)> {
        self.drain()?;
        loop {
            let next_event = self.events.keys().next().map(|&(at, _)| at);
            let next_timer = self.watcher.poll_timeout().map(|at| at.0.max(self.now));
            let Some(next) = [next_event, next_timer].into_iter().flatten().min() else {
                break;
            };
            if next > CAUGHT_UP_BY {
                break;
            }
            self.now = next;
            self.outcome.steps += 1;
            if next_event == Some(next) {
                let (_, event) = self.events.pop_first().expect("an event is due");
                match event {
                    Event::Change => self.change(),
                    Event::Deliver(id, message) => self.deliver(id, message),
                    Event::Close(id) => self.close(id),
                }
            } else {
                self.watcher.handle_timeout(MonoTime(self.now));
            }
            self.drain()?;
        }
        // Caught up: the watcher has seen the final version, and what it reported last is the
        // final state (a newer version of the state it last reported is no change to report).
        let last = self.current().clone();
        let reported_last = self
            .last_reported
            .and_then(|version| self.history.get(&version));
        let same_state = reported_last
            .is_some_and(|view| view.holder == last.holder && view.token == last.token);
        if self.watcher.reported_version() != Some(last.version) || !same_state {
            let last = last.version;
            return Err((
                WatchInvariant::CaughtUp,
                format!(
                    "at {} s the final version is {last}, the watcher reported {:?}",
                    CAUGHT_UP_BY / SECOND,
                    self.last_reported
                ),
            ));
        }
        Ok(())
    }
}

/// Runs the watch world for `seed`, with the real watcher or a deliberately broken one.
pub fn run_watch(seed: u64, mutation: Option<WatchMutation>) -> WatchOutcome {
    let mut rng = Rng::new(seed);
    let kept = rng.range(2, 8);
    let config = WatchConfig::changes(Micros::from_ms(10_000));
    let watcher = Watcher::new(config, rng.next_u64(), MonoTime(0));
    let watcher = match mutation {
        Some(mutation) => watcher.with_mutation(mutation),
        None => watcher,
    };
    let first = HolderView {
        version: 1,
        holder: None,
        token: None,
        expires_in_ms: None,
        handed_to: None,
    };
    let mut world = World {
        rng,
        now: 0,
        seq: 0,
        events: BTreeMap::new(),
        history: BTreeMap::from([(1, first)]),
        kept,
        streams: Vec::new(),
        watcher,
        last_reported: None,
        outcome: WatchOutcome {
            seed,
            reports: 0,
            changes: 0,
            fetches: 0,
            breaks: 0,
            steps: 0,
            violation: None,
        },
    };
    let first_change = world.rng.range(0, SECOND);
    world.at(first_change, Event::Change);
    if let Err(violation) = world.run() {
        world.outcome.violation = Some(violation);
    }
    world.outcome
}
