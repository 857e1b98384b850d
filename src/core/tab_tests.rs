//! A small synchronous world for the election: one shared log, one Web Lock, a channel, and
//! pages that answer pings or not. It checks after every step that no two candidates are
//! active at once and that every hold's epoch is larger than all before it.

use super::*;
#[cfg(feature = "mutations")]
use crate::core::ObservedMutation;

const MS: u64 = 1_000;
const WALL0: u64 = 1_700_000_000_000_000;

struct Tab {
    election: TabElection,
    /// The page does not answer pings (frozen or hung); its worker still runs.
    page_frozen: bool,
    /// The whole context is frozen: no timers, no messages, no storage callbacks.
    context_frozen: bool,
    /// Delay before this page answers a ping, in ms.
    pong_delay: u64,
    pong_at: Option<u64>,
    listening: bool,
    active: Option<u64>,
    events: Vec<TabEvent>,
    /// The page or context was frozen at some point.
    was_frozen: bool,
    /// Outputs not carried out while the context is frozen.
    parked: Vec<TabOutput>,
    /// Delay before this tab hears how an append went (slow storage), in ms; the log changes
    /// at once.
    append_answer_delay: u64,
}

struct World {
    now: u64,
    log: Vec<LogEntry>,
    lock: Option<(usize, IoId)>,
    queue: VecDeque<(usize, IoId)>,
    tabs: Vec<Tab>,
    highest_epoch: u64,
    /// Notices waiting for delivery: (to, notice).
    notices: VecDeque<(usize, Notice)>,
    /// Append answers held back by `append_answer_delay`: (due at, tab, id, outcome).
    late_answers: Vec<(u64, usize, IoId, AppendOutcome)>,
}

fn config(instance: &str, web_locks: bool) -> TabConfig {
    TabConfig::new(
        instance.to_owned(),
        Micros::from_ms(5_000),
        Micros::from_ms(1_000),
        Micros::from_ms(1_000),
        web_locks,
        true,
        7,
    )
    .unwrap()
}

impl World {
    fn new(configs: Vec<TabConfig>) -> World {
        World {
            now: 0,
            log: Vec::new(),
            lock: None,
            queue: VecDeque::new(),
            tabs: configs
                .into_iter()
                .map(|config| Tab {
                    election: TabElection::new(config),
                    page_frozen: false,
                    context_frozen: false,
                    pong_delay: 0,
                    pong_at: None,
                    listening: false,
                    active: None,
                    events: Vec::new(),
                    parked: Vec::new(),
                    was_frozen: false,
                    append_answer_delay: 0,
                })
                .collect(),
            highest_epoch: 0,
            notices: VecDeque::new(),
            late_answers: Vec::new(),
        }
    }

    fn time(&self) -> Now {
        Now::from_micros(self.now, WALL0 + self.now)
    }

    fn join(&mut self, tab: usize) {
        let now = self.time();
        self.tabs[tab].election.join(now);
        self.settle();
    }

    fn settle(&mut self) {
        loop {
            let mut progress = false;
            for tab in 0..self.tabs.len() {
                if self.tabs[tab].context_frozen {
                    while let Some(output) = self.tabs[tab].election.poll_output() {
                        self.tabs[tab].parked.push(output);
                    }
                    continue;
                }
                let parked: Vec<TabOutput> = self.tabs[tab].parked.drain(..).collect();
                for output in parked {
                    progress = true;
                    self.carry_out(tab, output);
                }
                while let Some(output) = self.tabs[tab].election.poll_output() {
                    progress = true;
                    self.carry_out(tab, output);
                }
            }
            while let Some((to, notice)) = self.notices.pop_front() {
                if self.tabs[to].listening && !self.tabs[to].context_frozen {
                    progress = true;
                    let now = self.time();
                    self.tabs[to].election.handle_notice(now, notice);
                }
            }
            if !progress {
                break;
            }
        }
        self.check_invariants();
    }

    fn carry_out(&mut self, tab: usize, output: TabOutput) {
        let now = self.time();
        match output {
            TabOutput::Listen => self.tabs[tab].listening = true,
            TabOutput::StopListening => self.tabs[tab].listening = false,
            TabOutput::ReadLog(id) => {
                let newest = self.log.last().cloned();
                self.tabs[tab].election.handle_read(now, id, Ok(newest));
            }
            TabOutput::Append {
                id,
                after,
                record,
                prune,
            } => {
                let newest = self.log.last().map_or(0, |e| e.seq);
                let outcome = if newest == after {
                    if let Some(through) = prune {
                        assert_eq!(record.kind, EntryKind::Beat, "only heartbeats prune");
                        self.log.retain(|e| e.seq > through);
                    }
                    self.log.push(LogEntry {
                        seq: after + 1,
                        record,
                    });
                    AppendOutcome::Appended
                } else {
                    AppendOutcome::Conflict
                };
                match self.tabs[tab].append_answer_delay {
                    0 => self.tabs[tab].election.handle_append(now, id, outcome),
                    delay => {
                        let due = self.now + delay * MS;
                        self.late_answers.push((due, tab, id, outcome));
                    }
                }
            }
            TabOutput::RequestLock { id, steal } => {
                if steal {
                    if let Some((holder, held)) = self.lock.take() {
                        self.deliver_lock(holder, held, LockEvent::Lost);
                    }
                    self.lock = Some((tab, id));
                    self.deliver_lock(tab, id, LockEvent::Granted);
                } else if self.lock.is_none() {
                    self.lock = Some((tab, id));
                    self.deliver_lock(tab, id, LockEvent::Granted);
                } else {
                    self.queue.push_back((tab, id));
                }
            }
            TabOutput::ReleaseLock => {
                self.queue.retain(|(t, _)| *t != tab);
                if self.lock.is_some_and(|(t, _)| t == tab) {
                    self.lock = None;
                    if let Some((next, id)) = self.queue.pop_front() {
                        self.lock = Some((next, id));
                        self.deliver_lock(next, id, LockEvent::Granted);
                    }
                }
            }
            TabOutput::Broadcast(entry) => {
                for to in 0..self.tabs.len() {
                    if to != tab {
                        self.notices.push_back((to, Notice::Written(entry.clone())));
                    }
                }
            }
            TabOutput::Ping => {
                if !self.tabs[tab].page_frozen {
                    self.tabs[tab].pong_at = Some(self.now + self.tabs[tab].pong_delay * MS);
                } else {
                    // Answered when the page thaws.
                    self.tabs[tab].pong_at = Some(u64::MAX);
                }
            }
            TabOutput::Event(event) => {
                match &event {
                    TabEvent::Active { epoch, .. } => {
                        assert!(
                            *epoch > self.highest_epoch,
                            "epoch {epoch} after {}",
                            self.highest_epoch
                        );
                        self.highest_epoch = *epoch;
                        self.tabs[tab].active = Some(*epoch);
                    }
                    TabEvent::Lost { reason, .. } => {
                        // Only a frozen or hung holder may be taken over.
                        let taken =
                            matches!(reason, TabEndReason::Stolen | TabEndReason::Superseded);
                        assert!(
                            !taken || self.tabs[tab].was_frozen,
                            "a responsive holder was taken over at {}ms",
                            self.now / MS
                        );
                        self.tabs[tab].active = None;
                    }
                    _ => {}
                }
                self.tabs[tab].events.push(event);
            }
        }
    }

    fn deliver_lock(&mut self, tab: usize, id: IoId, event: LockEvent) {
        let now = self.time();
        self.tabs[tab].election.handle_lock(now, id, event);
    }

    fn check_invariants(&mut self) {
        let now = self.time();
        for tab in &mut self.tabs {
            tab.was_frozen |= tab.page_frozen || tab.context_frozen || tab.pong_delay > 0;
        }
        let active: Vec<usize> = (0..self.tabs.len())
            .filter(|&t| self.tabs[t].election.is_active(now))
            .collect();
        assert!(
            active.len() <= 1,
            "two active at {}ms: {active:?}",
            self.now / MS
        );
    }

    /// Runs for `ms`, one millisecond at a time.
    fn run(&mut self, ms: u64) {
        for _ in 0..ms {
            self.now += MS;
            for tab in 0..self.tabs.len() {
                if self.tabs[tab].context_frozen {
                    continue;
                }
                let now = self.time();
                let (due, later) = self
                    .late_answers
                    .drain(..)
                    .partition(|(at, to, _, _)| *to == tab && *at <= self.now);
                self.late_answers = later;
                for (_, _, id, outcome) in due {
                    self.tabs[tab].election.handle_append(now, id, outcome);
                }
                if let Some(at) = self.tabs[tab].pong_at {
                    if at <= self.now && !self.tabs[tab].page_frozen {
                        self.tabs[tab].pong_at = None;
                        self.tabs[tab].election.handle_pong(now);
                    }
                }
                let due = self.tabs[tab].election.poll_timeout();
                if due.is_some_and(|at| at.0 <= self.now) {
                    self.tabs[tab].election.handle_timeout(now);
                }
            }
            self.settle();
        }
    }

    /// Runs until `tab` is active; returns how long it took, in ms.
    fn run_until_active(&mut self, tab: usize, limit_ms: u64) -> u64 {
        for elapsed in 0..limit_ms {
            if self.tabs[tab].active.is_some() {
                return elapsed;
            }
            self.run(1);
        }
        panic!("tab {tab} not active within {limit_ms} ms");
    }

    fn thaw_page(&mut self, tab: usize) {
        self.tabs[tab].page_frozen = false;
        if self.tabs[tab].pong_at == Some(u64::MAX) {
            self.tabs[tab].pong_at = Some(self.now);
        }
    }
}

#[test]
fn a_lone_tab_becomes_active_and_keeps_renewing() {
    for web_locks in [true, false] {
        let mut world = World::new(vec![config("a", web_locks)]);
        world.join(0);
        world.run(10);
        assert_eq!(world.tabs[0].active, Some(1));
        world.run(30_000);
        assert_eq!(world.tabs[0].active, Some(1));
        let renewals = world.tabs[0]
            .events
            .iter()
            .filter(|e| matches!(e, TabEvent::Renewed { .. }))
            .count();
        assert!(renewals >= 29, "{renewals} renewals");
        assert!(world.log.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    }
}

#[test]
fn heartbeats_prune_all_but_the_newest_entries() {
    let mut world = World::new(vec![config("a", true)]);
    world.join(0);
    world.run(10);
    let mut longest = 0;
    for _ in 0..100 {
        world.run(1_000);
        longest = longest.max(world.log.len());
    }
    assert_eq!(world.tabs[0].active, Some(1));
    // One heartbeat a second: a hundred entries written, the grant among the pruned.
    let newest = world.log.last().unwrap().seq;
    assert!(newest > KEPT_ENTRIES + 1, "{newest}");
    assert_eq!(world.log.first().unwrap().seq, newest - KEPT_ENTRIES);
    assert_eq!(longest as u64, KEPT_ENTRIES + 1);
    assert!(world.log.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    // Short logs are left whole.
    assert_eq!(prune_through(KEPT_ENTRIES), None);
    assert_eq!(prune_through(KEPT_ENTRIES + 1), Some(1));
}

#[test]
fn a_leaving_tab_hands_off_at_once() {
    for web_locks in [true, false] {
        let mut world = World::new(vec![config("a", web_locks), config("b", web_locks)]);
        world.join(0);
        world.run(10);
        world.join(1);
        world.run(2_000);
        assert_eq!(world.tabs[1].active, None);
        let now = world.time();
        world.tabs[0].election.leave(now, false);
        world.settle();
        assert!(world.tabs[0].events.contains(&TabEvent::Left));
        assert!(world.tabs[0].events.contains(&TabEvent::Lost {
            epoch: 1,
            reason: TabEndReason::Released,
            logged: true,
        }));
        let took = world.run_until_active(1, 10_000);
        assert!(took < 10, "handoff took {took} ms");
        assert_eq!(world.tabs[1].active, Some(2));
    }
}

#[test]
fn a_frozen_page_is_taken_over_within_lease_plus_renew_interval() {
    for web_locks in [true, false] {
        let mut world = World::new(vec![config("a", web_locks), config("b", web_locks)]);
        world.join(0);
        world.run(10);
        world.join(1);
        world.run(3_000);
        world.tabs[0].page_frozen = true;
        let took = world.run_until_active(1, 20_000);
        assert!(took <= 6_000, "takeover took {took} ms");
        assert_eq!(world.tabs[1].active, Some(2));
        // The old holder's worker found out: expired (its heartbeat stopped) or stolen.
        let lost = world.tabs[0].events.iter().any(|e| {
            matches!(e, TabEvent::Lost { epoch: 1, reason, logged: false }
                if matches!(reason, TabEndReason::Expired | TabEndReason::Stolen))
        });
        assert!(lost, "{:?}", world.tabs[0].events);
        // Thawed, it stays a candidate and does not take the role back.
        world.thaw_page(0);
        world.run(10_000);
        assert_eq!(world.tabs[0].active, None);
        assert_eq!(world.tabs[1].active, Some(2));
    }
}

#[test]
fn a_frozen_context_holding_the_lock_is_taken_over_and_checks_on_resume() {
    let mut world = World::new(vec![config("a", true), config("b", true)]);
    world.join(0);
    world.run(10);
    world.join(1);
    world.run(1_500);
    world.tabs[0].context_frozen = true;
    world.tabs[0].page_frozen = true;
    let took = world.run_until_active(1, 20_000);
    assert!(took <= 6_000, "takeover took {took} ms");
    // The frozen holder's lock was stolen; on resume its worker learns it at once.
    world.tabs[0].context_frozen = false;
    world.thaw_page(0);
    let now = world.time();
    world.tabs[0].election.check(now);
    world.settle();
    assert_eq!(world.tabs[0].active, None);
    assert_eq!(world.tabs[1].active, Some(2));
}

#[test]
fn a_leaving_notice_opens_the_role_after_the_grace() {
    let mut world = World::new(vec![config("a", true), config("b", true)]);
    world.join(0);
    world.run(10);
    world.join(1);
    world.run(1_500);
    // The page went into the back/forward cache with its worker frozen, lock held.
    world.tabs[0].context_frozen = true;
    world.tabs[0].page_frozen = true;
    let holder = world.tabs[0].election.config().instance.clone();
    world
        .notices
        .push_back((1, Notice::Leaving { holder, epoch: 1 }));
    world.settle();
    let took = world.run_until_active(1, 10_000);
    assert!((199..=400).contains(&took), "took {took} ms");
}

#[test]
fn a_stale_leaving_notice_is_ignored() {
    let mut world = World::new(vec![config("a", true), config("b", true)]);
    world.join(0);
    world.run(10);
    world.join(1);
    world.run(1_500);
    let holder = world.tabs[0].election.config().instance.clone();
    world
        .notices
        .push_back((1, Notice::Leaving { holder, epoch: 0 }));
    world.settle();
    world.run(3_000);
    assert_eq!(world.tabs[1].active, None);
    assert_eq!(world.tabs[0].active, Some(1));
}

#[test]
fn a_takeover_that_loses_the_race_goes_back_to_waiting() {
    // Without Web Locks: the old holder's page hangs past its lease, then both it and a slow
    // candidate judge the log expired; the first to append wins, the other's append conflicts.
    let mut world = World::new(vec![config("a", false), config("b", false)]);
    world.tabs[1].pong_delay = 2_000;
    world.join(0);
    world.run(10);
    world.join(1);
    world.run(1_500);
    world.tabs[0].page_frozen = true;
    world.run(5_500);
    world.thaw_page(0);
    world.run(10_000);
    let holds: Vec<_> = (0..2).filter(|&t| world.tabs[t].active.is_some()).collect();
    assert_eq!(holds.len(), 1);
}

/// `b`'s takeover grant is written, but `b` hears so only after the grant has run out, when
/// `c` has taken the role over from it and holds the lock. `b` must not steal the lock then.
fn late_takeover_answer(b: TabConfig) -> World {
    let mut world = World::new(vec![config("a", true), b, config("c", true)]);
    world.join(0);
    world.run(10);
    world.join(1);
    world.join(2);
    world.run(1_500);
    // a's context freezes with the lock held. Only b takes over: c's page answers pings late.
    world.tabs[2].pong_delay = 3_000;
    world.tabs[1].append_answer_delay = 9_000;
    world.tabs[0].page_frozen = true;
    world.tabs[0].context_frozen = true;
    for _ in 0..10_000 {
        if world.log.last().is_some_and(|e| e.record.holder == "b") {
            break;
        }
        world.run(1);
    }
    assert_eq!(world.log.last().map(|e| e.record.epoch), Some(2));
    world.tabs[2].pong_delay = 0;
    world.run(20_000);
    world
}

#[test]
fn a_takeover_heard_of_too_late_does_not_steal_the_lock() {
    let world = late_takeover_answer(config("b", true));
    assert_eq!(world.tabs[1].active, None, "{:?}", world.tabs[1].events);
    assert_eq!(world.tabs[2].active, Some(3), "{:?}", world.tabs[2].events);
    assert!(!stolen(&world.tabs[2]), "{:?}", world.tabs[2].events);
    assert!(world.late_answers.is_empty());
}

/// Whether a hold of `tab` ended with its lock stolen.
fn stolen(tab: &Tab) -> bool {
    tab.events.iter().any(|e| {
        matches!(
            e,
            TabEvent::Lost {
                reason: TabEndReason::Stolen,
                ..
            }
        )
    })
}

#[test]
fn a_yielding_tab_releases_and_stays_a_candidate() {
    let mut world = World::new(vec![config("a", true)]);
    world.join(0);
    world.run(10);
    let now = world.time();
    world.tabs[0].election.yield_role(now, 1);
    world.settle();
    assert!(world.tabs[0].events.contains(&TabEvent::Lost {
        epoch: 1,
        reason: TabEndReason::Yielded,
        logged: true,
    }));
    let kinds: Vec<_> = world
        .log
        .iter()
        .map(|e| (e.record.kind, e.record.epoch))
        .collect();
    assert!(
        kinds.ends_with(&[(EntryKind::Release, 1), (EntryKind::Grant, 2)]),
        "{kinds:?}"
    );
    world.run(10);
    assert_eq!(world.tabs[0].active, Some(2));
}

#[test]
fn a_late_yield_leaves_the_next_hold() {
    let mut world = World::new(vec![config("a", true)]);
    world.join(0);
    world.run(10);
    let now = world.time();
    world.tabs[0].election.yield_role(now, 1);
    world.settle();
    world.run(10);
    assert_eq!(world.tabs[0].active, Some(2));
    let entries = world.log.len();
    let events = world.tabs[0].events.len();
    // The page's yield of hold 1 again, arriving late: hold 2 is not the one it gave up.
    let now = world.time();
    world.tabs[0].election.yield_role(now, 1);
    world.settle();
    assert_eq!(world.tabs[0].election.epoch(), Some(2));
    assert_eq!(world.tabs[0].active, Some(2));
    assert_eq!(world.log.len(), entries);
    assert_eq!(world.tabs[0].events.len(), events);
    // Its yield of hold 2 steps down and logs the release.
    let now = world.time();
    world.tabs[0].election.yield_role(now, 2);
    world.settle();
    assert_eq!(
        world.tabs[0].events.get(events),
        Some(&TabEvent::Lost {
            epoch: 2,
            reason: TabEndReason::Yielded,
            logged: true,
        })
    );
    let release = world
        .log
        .get(entries)
        .map(|e| (e.record.kind, e.record.epoch));
    assert_eq!(release, Some((EntryKind::Release, 2)));
}

#[test]
fn a_release_never_lands_on_another_holders_grant() {
    let mut world = World::new(vec![config("a", false), config("b", false)]);
    world.join(0);
    world.run(10);
    world.join(1);
    world.run(1_500);
    world.tabs[0].page_frozen = true;
    world.tabs[0].context_frozen = true;
    world.run_until_active(1, 10_000);
    // The frozen tab wakes, and its page yields before its worker noticed anything.
    world.tabs[0].context_frozen = false;
    let now = world.time();
    world.tabs[0].election.yield_role(now, 1);
    world.settle();
    let kinds: Vec<_> = world
        .log
        .iter()
        .map(|e| (e.record.holder.as_str(), e.record.kind))
        .collect();
    assert_eq!(kinds.last(), Some(&("b", EntryKind::Grant)), "{kinds:?}");
    world.thaw_page(0);
    world.run(5_000);
    assert_eq!(world.tabs[1].active, Some(2));
}

#[test]
fn leaving_immediately_writes_nothing() {
    let mut world = World::new(vec![config("a", true)]);
    world.join(0);
    world.run(10);
    let entries = world.log.len();
    let now = world.time();
    world.tabs[0].election.leave(now, true);
    let outputs: Vec<_> = std::iter::from_fn(|| world.tabs[0].election.poll_output()).collect();
    assert_eq!(outputs.first(), Some(&TabOutput::StopListening));
    assert!(outputs.contains(&TabOutput::ReleaseLock));
    assert!(outputs.contains(&TabOutput::Event(TabEvent::Left)));
    assert!(!outputs
        .iter()
        .any(|o| matches!(o, TabOutput::Append { .. })));
    assert_eq!(world.log.len(), entries);
}

#[test]
fn storage_failures_are_retried_until_the_margin() {
    let mut election = TabElection::new(config("a", false));
    let mut now = Now::from_micros(0, WALL0);
    election.join(now);
    let read = match std::iter::from_fn(|| election.poll_output())
        .find(|o| matches!(o, TabOutput::ReadLog(_)))
    {
        Some(TabOutput::ReadLog(id)) => id,
        other => panic!("{other:?}"),
    };
    election.handle_read(now, read, Ok(None));
    // Without locks an empty log is open: a takeover, gated on the page.
    assert_eq!(election.poll_output(), Some(TabOutput::Ping));
    election.handle_pong(now);
    let Some(TabOutput::Append { id, after: 0, .. }) = election.poll_output() else {
        panic!("no grant");
    };
    election.handle_append(now, id, AppendOutcome::Appended);
    let drained: Vec<_> = std::iter::from_fn(|| election.poll_output()).collect();
    assert!(drained
        .iter()
        .any(|o| matches!(o, TabOutput::Event(TabEvent::Active { epoch: 1, .. }))));
    // From now on every heartbeat fails.
    let mut lost = None;
    for _ in 0..10_000 {
        now = Now::from_micros(now.mono.0 + MS, now.wall.0 + MS);
        if election.poll_timeout().is_some_and(|at| at <= now.mono) {
            election.handle_timeout(now);
        }
        while let Some(output) = election.poll_output() {
            match output {
                TabOutput::Ping => election.handle_pong(now),
                TabOutput::Append { id, .. } => {
                    election.handle_append(now, id, AppendOutcome::Failed)
                }
                TabOutput::Event(TabEvent::Lost {
                    reason: TabEndReason::Expired,
                    ..
                }) => lost = Some(now),
                _ => {}
            }
        }
        if lost.is_some() {
            break;
        }
    }
    // Lost when the margin began: 4 s after the grant.
    assert_eq!(lost.map(|n| n.mono.0 / MS), Some(4_000));
}

#[test]
fn the_mirror_back_dates_a_report_by_its_transit() {
    let mut mirror = TabMirror::new(Micros::from_ms(5_000), Micros::from_ms(1_000)).unwrap();
    let token = Token::new(3).unwrap();
    // Sent at origin 10 s; received 2.5 s later with 4 s left as of sending.
    let sent = Stamp {
        wall: WallTime(WALL0 + 10_000 * MS),
        origin: Micros(10_000 * MS),
    };
    let now = Now::from_micros(500 * MS, WALL0 + 12_500 * MS);
    mirror.accept(
        now,
        Micros(12_500 * MS),
        token,
        Micros::from_ms(4_000),
        sent,
    );
    assert!(mirror.holds(now));
    assert_eq!(mirror.remaining(now), Micros::from_ms(1_500));
    assert!(mirror.holds(Now::from_micros(900 * MS, WALL0 + 12_900 * MS)));
    assert!(!mirror.holds(Now::from_micros(1_000 * MS, WALL0 + 13_000 * MS)));
    // A report with nothing left after its transit is no hold.
    let mut late = TabMirror::new(Micros::from_ms(5_000), Micros::from_ms(1_000)).unwrap();
    late.accept(
        now,
        Micros(12_500 * MS),
        token,
        Micros::from_ms(2_000),
        sent,
    );
    assert!(!late.holds(now));
    late.clear();
    assert_eq!(late.safe_until(), None);
}

/// A report read by a wall clock behind its stamp crossed a step back: a sleep after the step
/// would show on neither context's monotonic clock, nor on the wall clock, so it is not
/// believed (tenure-sim tabs seed 9657). Within the wall clock's jitter it still is.
#[test]
fn the_mirror_does_not_believe_a_report_across_a_wall_step_back() {
    let token = Token::new(3).unwrap();
    let sent = Stamp {
        wall: WallTime(WALL0 + 10_000 * MS),
        origin: Micros(10_000 * MS),
    };
    let mut mirror = TabMirror::new(Micros::from_ms(5_000), Micros::from_ms(1_000)).unwrap();
    // Read 20 ms later on the shared time line, by a wall clock stepped back 1,638 s.
    let now = Now::from_micros(500 * MS, WALL0 + 10_020 * MS - 1_638_000 * MS);
    mirror.accept(
        now,
        Micros(10_020 * MS),
        token,
        Micros::from_ms(4_000),
        sent,
    );
    assert!(!mirror.holds(now));
    // A wall clock a few milliseconds behind the stamp is jitter between contexts.
    let now = Now::from_micros(500 * MS, WALL0 + 9_995 * MS);
    mirror.accept(
        now,
        Micros(10_020 * MS),
        token,
        Micros::from_ms(4_000),
        sent,
    );
    assert!(mirror.holds(now));
}

/// One context's readings at `mono_us` on a machine whose wall clock runs 3 % fast.
fn fast_wall(mono_us: u64) -> Now {
    Now::from_micros(mono_us, WALL0 + mono_us + mono_us * 3 / 100)
}

/// Whether, checking every millisecond, the page's `mirror` ever believes a hold the election
/// no longer holds. The election's clock has read a fast wall clock since its grant at 0 and
/// reports at 800 ms with 24 ms of run-ahead not yet credited; the page reads from then on.
fn mirror_outlives_the_election(mirror: TabMirror) -> bool {
    let mut mirror = mirror;
    let token = Token::new(1).unwrap();
    let mut election = Lease::new(Micros::from_ms(5_000), Micros::from_ms(1_000)).unwrap();
    election.grant_at(token, fast_wall(0), fast_wall(0));
    for ms in 1..800 {
        assert!(election.is_safely_held(fast_wall(ms * MS)));
    }
    let sent = fast_wall(800 * MS);
    let remaining = election.remaining(sent);
    let stamp = Stamp {
        wall: sent.wall,
        origin: Micros(sent.mono.0),
    };
    mirror.accept(sent, Micros(sent.mono.0), token, remaining, stamp);
    (800..5_000).any(|ms| {
        let now = fast_wall(ms * MS);
        let election_holds = election.is_safely_held(now);
        mirror.holds(now) && !election_holds
    })
}

#[test]
fn the_mirror_stops_believing_before_the_election_on_its_own_clock() {
    let mirror = TabMirror::new(Micros::from_ms(5_000), Micros::from_ms(1_000)).unwrap();
    assert!(!mirror_outlives_the_election(mirror));
}

/// A report stamped at `at_ms` on both clocks (origin and wall), with `left_ms` remaining.
fn report(at_ms: u64) -> (Stamp, Micros) {
    let stamp = Stamp {
        wall: WallTime(WALL0 + at_ms * MS),
        origin: Micros(at_ms * MS),
    };
    (stamp, Micros(at_ms * MS))
}

/// How much sooner than the election's margin a page stops believing, in ms.
const SLACK_MS: u64 = MIRROR_CLOCK_SLACK.0 / MS;

/// Where the page's monotonic clock stands at `page_now(0)`: far enough from zero that a hold
/// reported with part of its lease gone starts before it.
const PAGE_MONO0: u64 = 100_000 * MS;

/// The page's clocks at `ms`, the wall clock and the shared origin in step with `report`'s.
fn page_now(ms: u64) -> Now {
    Now::from_micros(PAGE_MONO0 + ms * MS, WALL0 + ms * MS)
}

fn page_mono(ms: u64) -> Option<MonoTime> {
    Some(MonoTime(PAGE_MONO0 + ms * MS))
}

fn page_hold(global: bool) -> PageHold {
    let mirror = || TabMirror::new(Micros::from_ms(5_000), Micros::from_ms(1_000)).unwrap();
    PageHold::new(mirror(), global.then(mirror))
}

fn grant_role(page: &mut PageHold, epoch: u64, at_ms: u64, left_ms: u64) {
    let (sent, origin) = report(at_ms);
    let epoch = Token::new(epoch).unwrap();
    page.role_granted(
        page_now(at_ms),
        origin,
        epoch,
        Micros::from_ms(left_ms),
        sent,
    );
}

fn grant_grantor(page: &mut PageHold, token: u64, at_ms: u64, left_ms: u64) -> bool {
    let (sent, origin) = report(at_ms);
    let token = Token::new(token).unwrap();
    page.grantor_granted(
        page_now(at_ms),
        origin,
        token,
        Micros::from_ms(left_ms),
        sent,
    )
}

#[test]
fn the_page_holds_while_its_role_stands() {
    let mut page = page_hold(false);
    assert_eq!(page.standing(page_now(0)), PageStanding::NotHeld);
    grant_role(&mut page, 1, 0, 5_000);
    assert_eq!(page.epoch(), Token::new(1).ok());
    assert_eq!(
        page.standing(page_now(3_999 - SLACK_MS)),
        PageStanding::Holds
    );
    assert_eq!(page.safe_until(), page_mono(4_000 - SLACK_MS));
    // A renewal of another hold is stale; one of this hold extends it.
    let (sent, origin) = report(3_000);
    let now = page_now(3_000);
    let left = Micros::from_ms(5_000);
    page.role_renewed(now, origin, Token::new(2).unwrap(), left, sent);
    assert_eq!(page.safe_until(), page_mono(4_000 - SLACK_MS));
    page.role_renewed(now, origin, Token::new(1).unwrap(), left, sent);
    assert_eq!(page.safe_until(), page_mono(7_000 - SLACK_MS));
    // Running out is reported once: the role is dropped, the page yields once.
    assert_eq!(
        page.standing(page_now(7_000 - SLACK_MS)),
        PageStanding::Expired
    );
    assert_eq!(page.epoch(), None);
    assert_eq!(page.standing(page_now(7_000)), PageStanding::NotHeld);
    assert_eq!(page.safe_until(), None);
}

#[test]
fn a_lost_role_ends_the_hold_only_when_it_is_the_one_mirrored() {
    let mut page = page_hold(true);
    grant_role(&mut page, 2, 0, 5_000);
    assert!(grant_grantor(&mut page, 9, 0, 5_000));
    assert!(!page.role_lost(Token::new(1).unwrap()));
    assert_eq!(page.standing(page_now(100)), PageStanding::Holds);
    assert!(page.role_lost(Token::new(2).unwrap()));
    assert_eq!(page.standing(page_now(100)), PageStanding::NotHeld);
    // The grantor lease went with the role: a new role waits for its own.
    grant_role(&mut page, 3, 200, 5_000);
    assert_eq!(page.standing(page_now(200)), PageStanding::AwaitingGrantor);
}

#[test]
fn a_new_role_does_not_inherit_the_time_of_the_one_before() {
    let mut page = page_hold(false);
    grant_role(&mut page, 1, 0, 5_000);
    // The next hold's report arrives with nothing left after its transit: no hold, even though
    // the previous one's mirror still had time.
    let (sent, _) = report(1_000);
    let epoch = Token::new(2).unwrap();
    let late = page_now(3_000);
    page.role_granted(
        late,
        Micros(3_000 * MS),
        epoch,
        Micros::from_ms(1_500),
        sent,
    );
    assert_eq!(page.standing(late), PageStanding::Expired);
}

#[test]
fn in_global_mode_the_page_holds_only_with_the_grantor_lease() {
    let mut page = page_hold(true);
    // No role: a grantor lease does not count.
    assert!(!grant_grantor(&mut page, 7, 0, 5_000));
    grant_role(&mut page, 1, 0, 5_000);
    assert_eq!(page.standing(page_now(10)), PageStanding::AwaitingGrantor);
    assert!(grant_grantor(&mut page, 7, 0, 3_000));
    assert_eq!(page.standing(page_now(10)), PageStanding::Holds);
    // The sooner of the two ends the safe time: the grantor lease's 3 s less the 1 s margin
    // (and the mirror's slack).
    assert_eq!(page.safe_until(), page_mono(2_000 - SLACK_MS));
    assert_eq!(
        page.standing(page_now(2_000 - SLACK_MS)),
        PageStanding::GrantorLost
    );
    // Reported once; the role still stands, waiting for the lease again.
    assert_eq!(
        page.standing(page_now(2_000)),
        PageStanding::AwaitingGrantor
    );
    assert_eq!(page.epoch(), Token::new(1).ok());
    assert!(grant_grantor(&mut page, 8, 2_100, 5_000));
    assert_eq!(page.standing(page_now(2_100)), PageStanding::Holds);
    page.grantor_lost();
    assert_eq!(
        page.standing(page_now(2_200)),
        PageStanding::AwaitingGrantor
    );
    page.step_down();
    assert_eq!(page.standing(page_now(2_200)), PageStanding::NotHeld);
}

#[test]
fn the_role_running_out_wins_over_the_grantor_lease_running_out() {
    let mut page = page_hold(true);
    grant_role(&mut page, 1, 0, 3_000);
    assert!(grant_grantor(&mut page, 7, 0, 3_000));
    // Both ran out by now: the role's expiry is the reason, and the page yields.
    assert_eq!(page.standing(page_now(2_500)), PageStanding::Expired);
    assert_eq!(page.standing(page_now(2_500)), PageStanding::NotHeld);
    // Without global mode, a grantor lease is never asked for.
    let mut local = page_hold(false);
    grant_role(&mut local, 1, 0, 5_000);
    assert!(!grant_grantor(&mut local, 7, 0, 5_000));
    assert_eq!(local.standing(page_now(10)), PageStanding::Holds);
}

#[test]
fn standings_have_the_names_the_page_reports() {
    let names = [
        (PageStanding::Holds, "holds"),
        (PageStanding::Expired, "expired"),
        (PageStanding::GrantorLost, "grantor_lost"),
        (PageStanding::AwaitingGrantor, "awaiting_grantor"),
        (PageStanding::NotHeld, "not_held"),
    ];
    for (standing, name) in names {
        assert_eq!(standing.as_str(), name);
    }
    // A lapse's name is the reason the hold ended, and neither is the page's own choice.
    assert!(!TabMirror::ended_voluntarily(
        PageStanding::Expired.as_str()
    ));
    assert!(!TabMirror::ended_voluntarily(
        PageStanding::GrantorLost.as_str()
    ));
}

#[test]
fn a_candidate_waits_the_lease_the_holder_asked_for() {
    let holder = TabConfig::new(
        "a".into(),
        Micros::from_ms(10_000),
        Micros::from_ms(1_000),
        Micros::from_ms(6_000),
        false,
        true,
        1,
    )
    .unwrap();
    let mut world = World::new(vec![holder, config("b", false)]);
    world.join(0);
    world.run(10);
    world.join(1);
    world.run(20_000);
    assert_eq!(world.tabs[0].active, Some(1));
    assert_eq!(world.tabs[1].active, None);
}

#[test]
fn only_the_pages_own_choices_end_a_hold_voluntarily() {
    for reason in ["released", "pagehide", "closed", "handed_off"] {
        assert!(TabMirror::ended_voluntarily(reason), "{reason}");
    }
    for reason in [
        "expired",
        "grantor_lost",
        "stolen",
        "superseded",
        "yielded",
        "",
    ] {
        assert!(!TabMirror::ended_voluntarily(reason), "{reason}");
    }
}

#[test]
fn names_are_checked_by_length() {
    assert!(TabConfig::check_name_length(1).is_ok());
    assert!(TabConfig::check_name_length(TabConfig::MAX_NAME_LENGTH).is_ok());
    for bad in [0, TabConfig::MAX_NAME_LENGTH + 1] {
        let error = TabConfig::check_name_length(bad).unwrap_err();
        assert_eq!(error.field, "name");
        // The message states the limit.
        assert!(error.problem.ends_with(&format!(
            "at most {} characters",
            TabConfig::MAX_NAME_LENGTH
        )));
    }
}

#[test]
fn configs_are_checked() {
    let make = |lease, margin, renew| {
        TabConfig::new(
            "a".into(),
            Micros::from_ms(lease),
            Micros::from_ms(margin),
            Micros::from_ms(renew),
            true,
            false,
            0,
        )
    };
    assert_eq!(make(5_000, 0, 1_000).unwrap_err().field, "marginMs");
    assert_eq!(make(1_000, 1_000, 100).unwrap_err().field, "marginMs");
    assert_eq!(make(5_000, 1_000, 0).unwrap_err().field, "renewIntervalMs");
    assert_eq!(
        make(5_000, 1_000, 4_000).unwrap_err().field,
        "renewIntervalMs"
    );
    assert!(make(5_000, 1_000, 1_000).is_ok());
}

#[cfg(feature = "mutations")]
mod mutations {
    use super::*;

    fn mutated(instance: &str, web_locks: bool, mutation: TabMutation) -> TabConfig {
        TabConfig {
            mutation: Some(mutation),
            ..config(instance, web_locks)
        }
    }

    fn panics(scenario: impl FnOnce() + std::panic::UnwindSafe) -> bool {
        std::panic::catch_unwind(scenario).is_err()
    }

    #[test]
    fn the_handoff_mutation_gives_the_role_to_the_first_in_line() {
        let mut world = World::new(
            ["a", "b", "c"]
                .map(|id| mutated(id, true, TabMutation::HandoffIgnored))
                .to_vec(),
        );
        world.join(0);
        world.run_until_active(0, 100);
        world.join(1);
        world.run(5);
        world.join(2);
        world.run(500);
        hand_off(&mut world, 0, Some("c"));
        world.run(100);
        assert!(
            world.tabs[1].active.is_some(),
            "not the named tab: the first in line"
        );
    }

    #[test]
    fn a_stale_leaving_notice_breaks_the_leaving_mutation() {
        assert!(panics(|| {
            let mut world = World::new(vec![
                config("a", true),
                mutated("b", true, TabMutation::LeavingIgnoresEpoch),
            ]);
            world.join(0);
            world.run(10);
            world.join(1);
            world.run(1_500);
            let holder = world.tabs[0].election.config().instance.clone();
            world
                .notices
                .push_back((1, Notice::Leaving { holder, epoch: 0 }));
            world.settle();
            world.run(3_000);
        }));
    }

    #[test]
    fn a_late_yield_ends_the_next_hold_under_the_yield_mutation() {
        let mut world = World::new(vec![mutated("a", true, TabMutation::YieldIgnoresEpoch)]);
        world.join(0);
        world.run(10);
        let now = world.time();
        world.tabs[0].election.yield_role(now, 1);
        world.settle();
        world.run(10);
        assert_eq!(world.tabs[0].election.epoch(), Some(2));
        let now = world.time();
        world.tabs[0].election.yield_role(now, 1);
        world.settle();
        assert!(world.tabs[0].events.contains(&TabEvent::Lost {
            epoch: 2,
            reason: TabEndReason::Yielded,
            logged: true,
        }));
    }

    #[test]
    fn a_lost_race_breaks_the_blind_takeover() {
        assert!(panics(|| {
            let mut world = World::new(vec![
                config("a", false),
                mutated("b", false, TabMutation::BlindTakeover),
            ]);
            world.tabs[1].pong_delay = 2_000;
            world.join(0);
            world.run(10);
            world.join(1);
            world.run(1_500);
            world.tabs[0].page_frozen = true;
            world.run(5_500);
            world.thaw_page(0);
            world.run(10_000);
        }));
    }

    #[test]
    fn a_takeover_breaks_the_epoch_mutation() {
        assert!(panics(|| {
            let mut world = World::new(vec![
                config("a", true),
                mutated("b", true, TabMutation::EpochNotIncreased),
            ]);
            world.join(0);
            world.run(10);
            world.join(1);
            world.run(1_500);
            world.tabs[0].page_frozen = true;
            world.tabs[0].context_frozen = true;
            world.run(10_000);
        }));
    }

    #[test]
    fn a_late_takeover_answer_steals_from_a_live_holder_under_its_mutation() {
        let world = late_takeover_answer(mutated("b", true, TabMutation::LateTakeoverSteals));
        assert!(stolen(&world.tabs[2]), "{:?}", world.tabs[2].events);
    }

    #[test]
    fn a_mirror_without_clock_slack_outlives_the_election() {
        let mirror = TabMirror::new(Micros::from_ms(5_000), Micros::from_ms(1_000))
            .unwrap()
            .with_mutation(Some(TabMutation::MirrorWithoutClockSlack));
        assert!(mirror_outlives_the_election(mirror));
    }

    #[test]
    fn a_frozen_page_keeps_the_role_with_ungated_heartbeats() {
        let mut world = World::new(vec![
            mutated("a", true, TabMutation::UngatedHeartbeat),
            config("b", true),
        ]);
        world.join(0);
        world.run(10);
        world.join(1);
        world.run(1_500);
        world.tabs[0].page_frozen = true;
        world.run(10_000);
        // Caught by the takeover bound: nobody took over the frozen page.
        assert_eq!(world.tabs[1].active, None);
    }

    #[test]
    fn each_observed_mutation_takes_over_a_live_holder() {
        for mutation in ObservedMutation::ALL {
            assert!(
                panics(move || {
                    // The holder asks for a longer lease than the candidate's own, and renews
                    // every 6 s: never expired.
                    let holder = TabConfig::new(
                        "a".into(),
                        Micros::from_ms(10_000),
                        Micros::from_ms(1_000),
                        Micros::from_ms(6_000),
                        false,
                        true,
                        1,
                    )
                    .unwrap();
                    let candidate = TabConfig {
                        observed_mutation: Some(mutation),
                        ..config("b", false)
                    };
                    let mut world = World::new(vec![holder, candidate]);
                    world.join(0);
                    world.run(10);
                    world.join(1);
                    world.run(20_000);
                }),
                "{mutation:?} went unnoticed"
            );
        }
    }

    #[test]
    fn a_late_report_extends_the_mirror_without_back_dating() {
        let mut mirror = TabMirror::new(Micros::from_ms(5_000), Micros::from_ms(1_000))
            .unwrap()
            .with_mutation(Some(TabMutation::NoTransitBackdating));
        let sent = Stamp {
            wall: WallTime(WALL0),
            origin: Micros(0),
        };
        let now = Now::from_micros(0, WALL0 + 3_500 * MS);
        mirror.accept(
            now,
            Micros(3_500 * MS),
            Token::new(1).unwrap(),
            Micros::from_ms(4_000),
            sent,
        );
        // 3.5 s after sending, only 0.5 s was left: the page must not believe it.
        assert!(mirror.holds(now));
    }
}

/// A candidate that gets the Web Lock after seeing another's takeover grant (its writer judged
/// the holder expired and is about to steal the lock) does not build on it: the thief would take
/// the lock next, and both would be active until one heard. It takes over only once that grant
/// is judged expired in turn. A grant written with the lock is built on at once (its writer let
/// the lock go).
#[test]
fn a_lock_holder_backs_off_from_a_live_takeover_grant() {
    fn appends(election: &mut TabElection) -> Vec<(u64, u64)> {
        std::iter::from_fn(|| election.poll_output())
            .filter_map(|output| match output {
                TabOutput::Append { after, record, .. } => Some((after, record.epoch)),
                _ => None,
            })
            .collect()
    }
    fn entry(seq: u64, holder: &str, epoch: u64, takeover: bool) -> LogEntry {
        LogEntry {
            seq,
            record: LogRecord {
                holder: holder.to_owned(),
                epoch,
                kind: EntryKind::Grant,
                lease: Some(Micros::from_ms(5_000)),
                locks: true,
                takeover,
                to: None,
            },
        }
    }
    for takeover in [true, false] {
        let config = TabConfig::new(
            "c".to_owned(),
            Micros::from_ms(5_000),
            Micros::from_ms(1_000),
            Micros::from_ms(1_000),
            true,
            false,
            7,
        )
        .unwrap();
        let mut election = TabElection::new(config);
        let at = |ms: u64| Now::from_micros(ms * MS, WALL0 + ms * MS);
        election.join(at(0));
        let outputs: Vec<TabOutput> = std::iter::from_fn(|| election.poll_output()).collect();
        let lock = outputs.iter().find_map(|o| match o {
            TabOutput::RequestLock { id, steal: false } => Some(*id),
            _ => None,
        });
        let read = outputs.iter().find_map(|o| match o {
            TabOutput::ReadLog(id) => Some(*id),
            _ => None,
        });
        election.handle_read(at(1), read.unwrap(), Ok(Some(entry(1, "h", 1, false))));
        election.handle_notice(at(2), Notice::Written(entry(2, "thief", 2, takeover)));
        election.handle_lock(at(3), lock.unwrap(), LockEvent::Granted);
        if !takeover {
            assert_eq!(appends(&mut election), [(2, 3)]);
            continue;
        }
        assert_eq!(appends(&mut election), [], "built on a live takeover grant");
        assert_eq!(election.phase(), TabPhase::Acquiring);
        // The thief never stole the lock (it crashed): its grant is judged expired a lease
        // after it was first seen, and the lock holder takes over then.
        let due = election.poll_timeout().unwrap();
        assert!(
            due.0 >= 5_002 * MS,
            "retried at {due:?}, before the grant expired"
        );
        election.handle_timeout(at(due.0.div_ceil(MS)));
        assert_eq!(appends(&mut election), [(2, 3)]);
    }
}

/// Three tabs: `a` active, then `b` and `c` join in that order (`b` first in the lock's queue).
fn handover_world(web_locks: bool) -> World {
    let mut world = World::new(vec![
        config("a", web_locks),
        config("b", web_locks),
        config("c", web_locks),
    ]);
    world.join(0);
    world.run_until_active(0, 100);
    world.join(1);
    world.run(5);
    world.join(2);
    world.run(500);
    world
}

fn hand_off(world: &mut World, tab: usize, to: Option<&str>) {
    let now = world.time();
    world.tabs[tab]
        .election
        .hand_off(now, to.map(str::to_owned));
    world.settle();
}

#[test]
fn a_handover_to_a_named_tab_makes_it_active_next_with_a_new_epoch() {
    for web_locks in [true, false] {
        let mut world = handover_world(web_locks);
        let epoch = world.tabs[0].active.unwrap();
        hand_off(&mut world, 0, Some("c"));
        assert!(world.tabs[0].events.iter().any(|e| matches!(
            e,
            TabEvent::Lost {
                reason: TabEndReason::HandedOff,
                logged: true,
                ..
            }
        )));
        let release = world
            .log
            .iter()
            .find(|e| e.record.kind == EntryKind::Release);
        assert_eq!(release.unwrap().record.to.as_deref(), Some("c"));
        let took = world.run_until_active(2, 1_000);
        assert!(took < 100, "web locks {web_locks}: {took} ms");
        assert_eq!(world.tabs[2].active, Some(epoch + 1));
        assert!(world.tabs[1]
            .events
            .iter()
            .all(|e| !matches!(e, TabEvent::Active { .. })));
        // The old holder stays a candidate.
        assert!(world.tabs[0].election.is_candidate());
        world.run(10_000);
        assert_eq!(
            world.tabs[2].active,
            Some(epoch + 1),
            "web locks {web_locks}"
        );
    }
}

#[test]
fn a_handover_without_a_name_goes_to_the_next_candidate() {
    let mut world = handover_world(true);
    hand_off(&mut world, 0, None);
    world.run_until_active(1, 100);
    assert!(world.tabs[2].active.is_none());
}

#[test]
fn a_handover_to_a_tab_that_is_gone_reserves_the_role_for_the_release_s_lease_only() {
    for web_locks in [true, false] {
        let mut world = handover_world(web_locks);
        hand_off(&mut world, 0, Some("gone"));
        let handed_at = world.now;
        let next = loop {
            world.run(1);
            if let Some(next) = (0..3).find(|&t| world.tabs[t].active.is_some()) {
                break next;
            }
            assert!(world.now - handed_at < 10_000 * MS, "nobody took the role");
        };
        let waited = (world.now - handed_at) / MS;
        assert!(
            (5_000..5_000 + 1_100).contains(&waited),
            "web locks {web_locks}: tab {next} active {waited} ms after the handover"
        );
    }
}

#[test]
fn a_handover_is_ignored_unless_active() {
    let mut world = handover_world(true);
    let before = world.log.len();
    hand_off(&mut world, 1, Some("b"));
    assert_eq!(world.log.len(), before);
    assert!(world.tabs[0].active.is_some());
}
