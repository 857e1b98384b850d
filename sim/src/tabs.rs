//! The tabs world: several browser tabs of one profile electing one active tab per name, each
//! running the real [`TabElection`] driven as the JavaScript host drives it.
//!
//! Around the elections, everything the browser provides is simulated:
//!
//! - a **shared log** with compare-and-swap appends and pruning (IndexedDB's role), whose reads
//!   and appends take a storage latency (sometimes long) and sometimes fail;
//! - a **lock service** (Web Locks): requests queue, a held lock passes to the next request when
//!   its holder releases it or its context dies, `steal` takes it at once and tells the old
//!   holder when that context next runs;
//! - a lossy, reordering **broadcast** (BroadcastChannel) reaching listening contexts only; a
//!   message reaching a listening page in the back/forward cache evicts it;
//! - **pages**: each election runs in a worker for its page (gated on the page's answers to
//!   pings) or inline; the page mirrors each reported hold on its own clocks with
//!   [`TabMirror`], yields when the mirror runs out, writes to the fenced store while it
//!   believes, leaves and rejoins;
//! - **faults**: context freeze and resume, page hangs (the worker still runs), the back/forward
//!   cache (`pagehide`, the leaving notice, frozen with the lock held when the worker is frozen
//!   before it hears, later restored or discarded), crashes and reloads, machine sleep, wall
//!   steps, per-tab clock drift within ρ, hidden tabs whose (inline) timers fire up to 60 s late.
//!
//! A run has a fault phase, then heals; in the healed phase some tab must become active within
//! `lease + renew_interval` plus slack, and again after the active tab is taken away.
//!
//! Invariants, checked after every step:
//! 1. at most one tab believes it is active at true time (its election's `is_active` by its own
//!    clocks, or its page's mirror). The one exemption: a tab whose page left (`pagehide`) while
//!    its worker was frozen holding the lock cannot know it was taken over; a fenced write with
//!    its epoch is then probed and must be refused;
//! 2. epochs only increase: every `Active` epoch is larger than all before, and every grant in
//!    the log larger than the entry it follows;
//! 3. a fenced write from a superseded hold is refused, and accepted writes follow the order of
//!    the holds in the log;
//! 4. liveness in the healed phase (above);
//! 5. every page also watches who holds the role ([`TabWatch`], on the page's main thread, fed
//!    by the same lossy, late and reordered broadcast and the same slow, failing storage, its
//!    timers throttled while hidden): no watch reports epochs out of order (a larger epoch, or
//!    the end of the hold last reported, or that hold again after an end judged by expiry), and
//!    in the healed phase none still reports a holder whose hold had ended (a newer grant or its
//!    release in the log, or its newest entry outlived by its lease) longer than
//!    [`World::watch_bound`] ago, counted from the heal and from the watch's page last resuming;
//! 6. an active page sometimes hands the role over ([`TabElection::hand_off`]) to another tab
//!    (one that may be frozen, hidden, gone) or to whoever is next: while the release naming a
//!    tab is the newest entry, no other tab's grant lands before that release's lease has passed
//!    (by true time, less the clocks' drift), so the named tab, if it still takes part, is next;
//!    invariant 1 covers the handover too;
//! 7. pages call into the active tab ([`TabCalls`], requests and replies on the same lossy,
//!    late, reordered broadcast, handlers that take time): a handler runs only in a page that
//!    believes it holds the epoch the request names, at most once per call and hold; a call
//!    settles at most once, resolves only with a reply from the epoch it was routed to, and
//!    only while its own page's watch still reports that hold live.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;

use tenure::core::{
    tab_id_of, AppendOutcome, CallMutation, CallOutput, EntryKind, HolderChange, IoId, LockEvent,
    LogEntry, LogRecord, Micros, Notice, Now, ObservedMutation, Stamp, TabCalls, TabConfig,
    TabElection, TabEndReason, TabEvent, TabMirror, TabMutation, TabOutput, TabWatch,
    TabWatchMutation, TabWatchOutput,
};
use tenure::protocol::Token;

use crate::clock::MachineClock;
use crate::rng::Rng;

const MS: u64 = 1_000;
const SECOND: u64 = 1_000_000;
/// Timers of a hidden tab's main thread fire up to this late (intensive throttling).
const HIDDEN_TIMER_LATENESS: u64 = 60 * SECOND;
const WALL_EPOCH: u64 = 1_700_000_000_000_000;
/// Steps after which a run is cut short as runaway (a busy loop in the core).
const MAX_STEPS: u64 = 400_000;

/// Deliberately broken variants a tabs run can use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TabMutants {
    /// The election's own broken variant, for every tab.
    pub election: Option<TabMutation>,
    /// The broken observed-expiry rule, for every tab.
    pub observed: Option<ObservedMutation>,
    /// The broken watch of who holds the role, for every page.
    pub watch: Option<TabWatchMutation>,
    /// The broken calls into the active tab, for every page.
    pub calls: Option<CallMutation>,
}

impl TabMutants {
    /// No mutation: the real core.
    pub const NONE: TabMutants = TabMutants {
        election: None,
        observed: None,
        watch: None,
        calls: None,
    };
}

/// Which invariant a tabs run broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TabInvariant {
    /// Two tabs believe they are active at one true instant.
    OneActive,
    /// An epoch did not increase.
    EpochsIncrease,
    /// A fenced write from a superseded hold was accepted, or writes went out of hold order.
    Fencing,
    /// No tab became active in time in the healed phase.
    Liveness,
    /// A release was appended on top of another hold's entry: the role then reads as free
    /// while that hold lives, and the next grant reuses its epoch.
    ReleaseOverOtherHold,
    /// A tab stole the Web Lock while its takeover grant was no longer the newest entry: it
    /// takes the lock from whoever followed that grant, a live holder.
    StealOverNewerHold,
    /// A page still believed a hold when its election ended it by expiry (and let the Web Lock
    /// go to the next tab).
    PageOutlivesElection,
    /// A yield the page sent for an earlier hold ended the election's current one.
    StaleYield,
    /// A page's watch reported an older epoch after a newer one, or the same hold twice.
    WatchOrder,
    /// In the healed phase, a page's watch still reported a holder whose hold had ended longer
    /// than the bound ago.
    WatchStale,
    /// Another tab's grant landed while a release handing the role to a named tab reserved it.
    Handover,
    /// A call settled twice, resolved with another hold's reply or after its page knew the hold
    /// ended, or a handler ran twice for one call on one hold or in a page not holding it.
    Calls,
    /// The run did not settle (too many steps).
    Runaway,
}

/// The result of one tabs run.
#[derive(Clone, Debug)]
pub struct TabsOutcome {
    /// The seed.
    pub seed: u64,
    /// The mutants the run used.
    pub mutants: TabMutants,
    /// Steps taken.
    pub steps: u64,
    /// Hash of the whole trace, for determinism checks.
    pub hash: u64,
    /// Holds that became active.
    pub holds: u64,
    /// Fenced writes accepted.
    pub writes: u64,
    /// Calls into the active tab made, and resolved by its answer.
    pub calls: (u64, u64),
    /// The first broken invariant and what was seen.
    pub violation: Option<(TabInvariant, String)>,
    details: String,
}

impl TabsOutcome {
    /// What broke, how to reproduce it, the parameters and the last events; empty when nothing
    /// broke.
    pub fn report(&self) -> String {
        let Some((invariant, detail)) = &self.violation else {
            return String::new();
        };
        format!(
            "tabs seed {seed} ({mutants:?}): {invariant:?} broken: {detail}\n\
             reproduce: TENURE_SIM_SEED={seed} TENURE_SIM_RUNS=1 cargo test -p tenure-sim --test tabs\n\
             {details}",
            seed = self.seed,
            mutants = self.mutants,
            details = self.details
        )
    }
}

/// One seed's parameters.
#[derive(Clone, Debug)]
pub struct TabParams {
    /// Tabs (contexts) taking part.
    pub tabs: usize,
    /// Whether Web Locks are used.
    pub web_locks: bool,
    /// Whether elections run in a worker, gated on the page's answers.
    pub gated: bool,
    /// Each tab's heartbeat lease, margin and renew interval, µs (pages of one name may be
    /// configured differently: another version of the application).
    pub timings: Vec<(u64, u64, u64)>,
    /// The longest lease, µs.
    pub lease: u64,
    /// The longest renew interval, µs.
    pub renew_interval: u64,
    /// Clock drift bound ρ, ppm.
    pub rho_ppm: i64,
    /// Mean storage latency, µs.
    pub storage_latency: u64,
    /// Chance a storage operation stalls: up to two renew intervals, and one stall in ten up to
    /// two leases (a disk that stops, another context's long transaction), so that answers can
    /// come after the write they answer has run out.
    pub storage_slow: f64,
    /// Chance a storage operation fails.
    pub storage_failure: f64,
    /// Chance a broadcast message is lost.
    pub broadcast_loss: f64,
    /// Mean broadcast latency, µs.
    pub broadcast_latency: u64,
    /// Page ↔ worker message latency bound, µs.
    pub page_latency: u64,
    /// Mean time between faults, µs.
    pub fault_every: u64,
    /// Length of the fault phase, µs.
    pub fault_phase: u64,
    /// Mean time between a page's actions (reads, fenced writes), µs.
    pub think: u64,
}

impl TabParams {
    fn draw(rng: &mut Rng) -> TabParams {
        let rho_ppm = rng.pick(&[0, 100, 1_000, 10_000, 50_000]);
        let tabs = rng.range(2, 5) as usize;
        let mixed = rng.chance(0.3);
        let mut timings: Vec<(u64, u64, u64)> = Vec::new();
        for _ in 0..tabs {
            if !mixed && !timings.is_empty() {
                timings.push(timings[0]);
                continue;
            }
            let lease = rng.pick(&[1_000, 2_000, 5_000, 10_000]) * MS;
            // The drift assumption: a margin covering twice the drift over a lease, plus slack
            // for the wall clock's jitter tolerance.
            let floor = 2 * lease * rho_ppm as u64 / 1_000_000 + 30 * MS;
            let margin = (lease * rng.range(10, 30) / 100).max(floor);
            let usable = lease - margin;
            timings.push((lease, margin, usable * rng.range(25, 75) / 100));
        }
        let lease = timings.iter().map(|t| t.0).max().unwrap_or(0);
        let renew_interval = timings.iter().map(|t| t.2).max().unwrap_or(0);
        TabParams {
            tabs,
            web_locks: rng.chance(0.75),
            gated: rng.chance(0.7),
            timings,
            lease,
            renew_interval,
            rho_ppm,
            storage_latency: rng.pick(&[100, 500, 2_000, 10_000]),
            storage_slow: rng.pick(&[0.0, 0.01, 0.05]),
            storage_failure: rng.pick(&[0.0, 0.01, 0.1]),
            broadcast_loss: rng.pick(&[0.0, 0.05, 0.3, 1.0]),
            broadcast_latency: rng.pick(&[100, 1_000, 5_000]),
            page_latency: rng.pick(&[0, 500, 3_000]),
            fault_every: lease * rng.range(20, 150) / 100,
            fault_phase: lease * rng.range(4, 12),
            think: rng.pick(&[20 * MS, 200 * MS, lease / 2]),
        }
    }
}

/// A context's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Running,
    /// Frozen (no timers, no callbacks); `cached`: in the back/forward cache.
    Frozen {
        cached: bool,
    },
    /// Crashed or discarded.
    Dead,
}

/// Something delivered to a tab's election.
#[derive(Clone, Debug)]
enum ToElection {
    Read(IoId, Result<Option<LogEntry>, ()>),
    Append(IoId, AppendOutcome),
    Lock(IoId, LockEvent),
    Notice(Notice),
    Pong,
    Join,
    Leave,
    /// The page yields the hold with this epoch.
    Yield(u64),
    /// The page hands the role over, to the tab named (or whoever is next).
    HandOff(Option<String>),
    Check,
}

/// Something delivered to a page's watch.
#[derive(Clone, Debug)]
enum ToWatch {
    Read(IoId, Result<Option<LogEntry>, ()>),
    Notice(Notice),
    Timer(u64),
    /// A call request, from the page `page` of tab `tab`.
    Request {
        tab: usize,
        page: u32,
        id: u64,
        epoch: u64,
    },
    /// The handler of that request finished here.
    Handled {
        tab: usize,
        page: u32,
        id: u64,
        epoch: u64,
    },
    Reply {
        id: u64,
        epoch: u64,
    },
    CallTimer(u64),
}

/// Something delivered to a tab's page.
#[derive(Clone, Debug)]
enum ToPage {
    Event(TabEvent, Stamp),
    Ping,
}

#[derive(Clone, Debug)]
enum Storage {
    Read(IoId),
    Append {
        id: IoId,
        after: u64,
        record: LogRecord,
        prune: Option<u64>,
    },
    /// The fenced store's first step: compare with the newest epoch in the log.
    FenceCheck {
        instance: String,
        epoch: u64,
    },
    /// Its second: the fence transaction.
    FenceWrite {
        instance: String,
        epoch: u64,
    },
}

#[derive(Clone, Debug)]
enum Due {
    Timer {
        tab: usize,
        gen: u64,
    },
    Storage {
        tab: usize,
        inc: u32,
        op: Storage,
    },
    Election {
        tab: usize,
        inc: u32,
        msg: ToElection,
    },
    /// From the election incarnation `inc` to the page `page`.
    Page {
        tab: usize,
        page: u32,
        inc: u32,
        msg: ToPage,
    },
    PageTick {
        tab: usize,
        page: u32,
    },
    /// To the watch of the page `page` (a reloaded page has a new one).
    Watch {
        tab: usize,
        page: u32,
        msg: ToWatch,
    },
    /// A watch's read reaches the store.
    WatchRead {
        tab: usize,
        page: u32,
        id: IoId,
    },
    Fault,
    /// The end of a fault: resume, restore, reload, unhang, show, wake.
    Recover {
        tab: usize,
        what: Recover,
    },
    Heal,
    /// Liveness deadline of stage `stage` of the healed phase.
    Deadline {
        stage: u8,
    },
    End,
}

#[derive(Clone, Copy, Debug)]
enum Recover {
    Resume,
    Restore,
    Discard,
    Reload,
    Unhang,
    Show,
    Wake,
    Rejoin,
}

/// The page of a tab (the TabLease side).
struct Page {
    id: u32,
    candidate: bool,
    role: Option<u64>,
    mirror: TabMirror,
    /// Left in `pagehide`; rejoins if restored from the cache.
    left: bool,
    hung: bool,
    /// A ping arrived while hung: answered on thawing.
    pong_owed: bool,
    /// Who holds the role, as this page sees it.
    watch: TabWatch,
    /// The last change its watch reported.
    watched: Option<HolderChange>,
    /// The watch's channel is open (closed while the page is in the back/forward cache).
    watching: bool,
    watch_timer: u64,
    /// What reached the watch while its page could not run.
    parked_watch: Vec<ToWatch>,
    /// True time the page last began to run (created, resumed, unhung, woken).
    running_since: u64,
    /// Its calls into the active tab.
    calls: TabCalls,
    next_call: u64,
    /// The epoch each call was sent to.
    routes: HashMap<u64, u64>,
    /// The calls settled.
    settled: Vec<u64>,
    call_timer: u64,
}

struct Tab {
    /// The election's incarnation (a new one after a reload, or a worker restarted on restore).
    inc: u32,
    election: TabElection,
    ctx: Ctx,
    clock: MachineClock,
    hidden: bool,
    listening: bool,
    timer_gen: u64,
    parked: Vec<ToElection>,
    parked_page: Vec<ToPage>,
    page: Page,
    /// When the last message to the page, and to the election, arrives (they keep order).
    to_page_at: u64,
    to_worker_at: u64,
    /// The election of a page that left is frozen with the lock held (the worker was frozen
    /// before it heard): exempt from invariant 1 until it dies.
    left_frozen: bool,
}

#[derive(Default)]
struct Locks {
    holder: Option<(usize, u32, IoId)>,
    queue: VecDeque<(usize, u32, IoId)>,
}

struct World {
    rng: Rng,
    p: TabParams,
    mutants: TabMutants,
    t: u64,
    seq: u64,
    queue: BTreeMap<(u64, u64), Due>,
    tabs: Vec<Tab>,
    log: BTreeMap<u64, LogRecord>,
    /// The slot of each hold's grant, by (holder, epoch), never pruned.
    grants: HashMap<(String, u64), u64>,
    locks: Locks,
    /// The fenced store's fence, and the slot of the hold that last wrote.
    fence: u64,
    fence_slot: u64,
    highest_active: u64,
    asleep: bool,
    healed: bool,
    /// Healed-phase stage: the true time some tab last became or was seen active.
    last_active_at: Option<u64>,
    stage_start: u64,
    /// The leader taken away in the healed phase: it does not count as the next leader.
    removed: Option<usize>,
    /// True time the healed phase began.
    healed_at: u64,
    /// Randomness for the watches alone, so the elections' schedules are those of a world
    /// without watches.
    watch_rng: Rng,
    /// For each epoch in the log, the true time its hold ended in the log (a newer epoch's entry
    /// or its release landed as the newest).
    hold_over: BTreeMap<u64, u64>,
    /// The epochs written so far that have not ended in the log.
    holds_open: Vec<u64>,
    /// The true time the newest entry landed.
    newest_at: u64,
    /// The handlers run: (caller tab, caller page, call, epoch).
    handled: Vec<(usize, u32, u64, u64)>,
    /// The newest release naming a tab: (tab, when it landed, its lease).
    reserved: Option<(String, u64, u64)>,
    /// Calls made and resolved.
    calls_made: u64,
    calls_resolved: u64,
    trace: VecDeque<String>,
    trace_tail: usize,
    trace_hash: u64,
    steps: u64,
    holds: u64,
    writes: u64,
    violation: Option<(TabInvariant, String)>,
    next_instance: u32,
}

/// Runs one seeded tabs schedule.
pub fn run_tabs(seed: u64, mutants: TabMutants) -> TabsOutcome {
    let mut rng = Rng::new(seed ^ 0x7AB5_7AB5);
    let p = TabParams::draw(&mut rng);
    let watch_rng = Rng::new(seed ^ 0x0B5E_8BE5);
    let mut world = World::new(rng, watch_rng, p, mutants);
    world.run();
    let details = if world.violation.is_some() {
        let mut s = format!("parameters: {:?}\ntabs at the end:\n", world.p);
        for (i, tab) in world.tabs.iter().enumerate() {
            let _ = writeln!(
                s,
                "  tab{i}: {:?} election {:?} {:?} (candidate {}), page candidate {} hung {} \
                 left {}, hidden {}",
                tab.ctx,
                tab.election.config().instance,
                tab.election.phase(),
                tab.election.is_candidate(),
                tab.page.candidate,
                tab.page.hung,
                tab.page.left,
                tab.hidden
            );
        }
        s.push_str("last events (true time):\n");
        for line in &world.trace {
            let _ = writeln!(s, "  {line}");
        }
        s
    } else {
        String::new()
    };
    TabsOutcome {
        seed,
        mutants,
        steps: world.steps,
        hash: world.trace_hash,
        holds: world.holds,
        calls: (world.calls_made, world.calls_resolved),
        writes: world.writes,
        violation: world.violation,
        details,
    }
}

/// How many events a failure report shows: `TENURE_SIM_TRACE_TAIL`, 200 by default.
fn trace_tail() -> usize {
    std::env::var("TENURE_SIM_TRACE_TAIL")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(200)
}

fn token_of(epoch: u64) -> Token {
    Token::new(epoch.max(1)).expect("epochs are small")
}

impl World {
    fn new(mut rng: Rng, watch_rng: Rng, p: TabParams, mutants: TabMutants) -> World {
        let mut world = World {
            tabs: Vec::new(),
            rng: rng.clone(),
            p: p.clone(),
            mutants,
            t: 0,
            seq: 0,
            queue: BTreeMap::new(),
            log: BTreeMap::new(),
            grants: HashMap::new(),
            locks: Locks::default(),
            fence: 0,
            fence_slot: 0,
            highest_active: 0,
            asleep: false,
            healed: false,
            last_active_at: None,
            stage_start: 0,
            removed: None,
            healed_at: 0,
            watch_rng,
            hold_over: BTreeMap::new(),
            holds_open: Vec::new(),
            newest_at: 0,
            handled: Vec::new(),
            reserved: None,
            calls_made: 0,
            calls_resolved: 0,
            trace: VecDeque::new(),
            trace_tail: trace_tail(),
            trace_hash: 0xcbf2_9ce4_8422_2325,
            steps: 0,
            holds: 0,
            writes: 0,
            violation: None,
            next_instance: 0,
        };
        for i in 0..p.tabs {
            let mono = rng.range(0, 100 * SECOND);
            let clock = MachineClock::new(0, mono, WALL_EPOCH + rng.range(0, SECOND), 0, 0);
            let election = world.election(i);
            world.tabs.push(Tab {
                inc: 0,
                election,
                ctx: Ctx::Running,
                clock,
                hidden: false,
                listening: false,
                timer_gen: 0,
                parked: Vec::new(),
                parked_page: Vec::new(),
                page: world.page(i, 0),
                to_page_at: 0,
                to_worker_at: 0,
                left_frozen: false,
            });
            let at = rng.range(0, p.lease);
            world.at(
                at,
                Due::Election {
                    tab: i,
                    inc: 0,
                    msg: ToElection::Join,
                },
            );
            world.page_tick(i);
            world.start_watch(i);
        }
        world.rng = rng;
        let first = world.rng.exponential(p.fault_every);
        world.at(first, Due::Fault);
        world.at(p.fault_phase, Due::Heal);
        world
    }

    fn election(&mut self, tab: usize) -> TabElection {
        self.next_instance += 1;
        let (lease, margin, renew_interval) = self.p.timings[tab];
        let mut config = TabConfig::new(
            format!("tab{tab}.{}", self.next_instance),
            Micros(lease),
            Micros(margin),
            Micros(renew_interval),
            self.p.web_locks,
            self.p.gated,
            self.rng.next_u64(),
        )
        .expect("parameters obey the configuration rules");
        config.mutation = self.mutants.election;
        config.observed_mutation = self.mutants.observed;
        TabElection::new(config)
    }

    fn page(&self, tab: usize, id: u32) -> Page {
        let (lease, margin, _) = self.p.timings[tab];
        let mirror = TabMirror::new(Micros(lease), Micros(margin))
            .expect("valid")
            .with_mutation(self.mutants.election);
        let watch = TabWatch::new(Micros(lease)).with_mutation(self.mutants.watch);
        Page {
            id,
            candidate: false,
            role: None,
            mirror,
            left: false,
            hung: false,
            pong_owed: false,
            watch,
            watched: None,
            watching: false,
            watch_timer: 0,
            parked_watch: Vec::new(),
            running_since: self.t,
            calls: TabCalls::new().with_mutation(self.mutants.calls),
            next_call: 0,
            routes: HashMap::new(),
            settled: Vec::new(),
            call_timer: 0,
        }
    }

    fn at(&mut self, t: u64, due: Due) {
        self.seq += 1;
        self.queue.insert((t.max(self.t), self.seq), due);
    }

    fn note(&mut self, line: String) {
        for b in line.as_bytes() {
            self.trace_hash ^= u64::from(*b);
            self.trace_hash = self.trace_hash.wrapping_mul(0x0100_0000_01b3);
        }
        if self.trace.len() >= self.trace_tail {
            self.trace.pop_front();
        }
        let t = self.t;
        self.trace
            .push_back(format!("{}.{:06}s {line}", t / SECOND, t % SECOND));
    }

    fn fail(&mut self, invariant: TabInvariant, detail: String) {
        if self.violation.is_none() {
            self.note(format!("BROKEN {invariant:?}: {detail}"));
            self.violation = Some((invariant, detail));
        }
    }

    fn now(&self, tab: usize) -> Now {
        self.tabs[tab].clock.now_at(self.t)
    }

    fn running(&self, tab: usize) -> bool {
        self.tabs[tab].ctx == Ctx::Running && !self.asleep
    }

    fn storage_latency(&mut self) -> u64 {
        if !self.healed && self.rng.chance(self.p.storage_slow) {
            if self.rng.chance(0.1) {
                return self.rng.range(0, 2 * self.p.lease);
            }
            return self.rng.range(0, 2 * self.p.renew_interval);
        }
        self.rng.exponential(self.p.storage_latency)
    }

    /// The delay of the next message between tab `tab`'s page and its election: random, but
    /// in order (postMessage keeps order).
    fn page_latency_for(&mut self, tab: usize, to_page: bool) -> u64 {
        let d = self.rng.range(0, self.p.page_latency);
        let last = if to_page {
            &mut self.tabs[tab].to_page_at
        } else {
            &mut self.tabs[tab].to_worker_at
        };
        let at = (self.t + d).max(*last);
        *last = at;
        at - self.t
    }

    fn run(&mut self) {
        while let Some(((t, _), due)) = self.queue.pop_first() {
            self.t = t;
            self.steps += 1;
            if self.steps > MAX_STEPS {
                self.fail(TabInvariant::Runaway, format!("{} steps", self.steps));
            }
            if matches!(due, Due::End) {
                break;
            }
            self.dispatch(due);
            self.check();
            if self.violation.is_some() {
                return;
            }
        }
    }

    fn dispatch(&mut self, due: Due) {
        match due {
            Due::Timer { tab, gen } => {
                if self.tabs[tab].timer_gen == gen && self.running(tab) {
                    self.input(tab, |e, now| e.handle_timeout(now));
                }
            }
            Due::Storage { tab, inc, op } => self.storage(tab, inc, op),
            Due::Election { tab, inc, msg } => self.arrive_at_election(tab, inc, msg),
            Due::Page {
                tab,
                page,
                inc,
                msg,
            } => self.arrive_at_page(tab, page, inc, msg),
            Due::PageTick { tab, page } => {
                if self.tabs[tab].page.id == page {
                    self.page_action(tab);
                    self.page_tick(tab);
                }
            }
            Due::Watch { tab, page, msg } => self.arrive_at_watch(tab, page, msg),
            Due::WatchRead { tab, page, id } => {
                let outcome = if !self.healed && self.watch_rng.chance(self.p.storage_failure) {
                    Err(())
                } else {
                    Ok(self.log.last_key_value().map(|(seq, record)| LogEntry {
                        seq: *seq,
                        record: record.clone(),
                    }))
                };
                let d = self.watch_storage_latency();
                let msg = ToWatch::Read(id, outcome);
                self.at(self.t + d, Due::Watch { tab, page, msg });
            }
            Due::Fault => {
                if !self.healed {
                    self.fault();
                    let next = self.rng.exponential(self.p.fault_every);
                    self.at(self.t + next, Due::Fault);
                }
            }
            Due::Recover { tab, what } => self.recover(tab, what),
            Due::Heal => self.heal(),
            Due::Deadline { stage } => self.deadline(stage),
            Due::End => {}
        }
    }

    // ----- the election's host -----

    /// Runs one input on a running tab's election and carries out its outputs.
    fn input(&mut self, tab: usize, f: impl FnOnce(&mut TabElection, Now)) {
        let now = self.now(tab);
        f(&mut self.tabs[tab].election, now);
        self.drain(tab, now);
        self.arm_timer(tab);
    }

    fn drain(&mut self, tab: usize, now: Now) {
        while let Some(output) = self.tabs[tab].election.poll_output() {
            self.carry_out(tab, now, output);
        }
    }

    fn arm_timer(&mut self, tab: usize) {
        self.tabs[tab].timer_gen += 1;
        let gen = self.tabs[tab].timer_gen;
        let Some(at) = self.tabs[tab].election.poll_timeout() else {
            return;
        };
        let Some(fire) = self.tabs[tab].clock.true_time_of_mono(self.t, at.0) else {
            return;
        };
        // A worker's timers are not throttled; a hidden tab's main thread's are.
        let late = if self.tabs[tab].hidden && !self.p.gated && !self.healed {
            self.rng.range(0, HIDDEN_TIMER_LATENESS)
        } else {
            self.rng.range(0, MS)
        };
        self.at(fire + late, Due::Timer { tab, gen });
    }

    fn carry_out(&mut self, tab: usize, now: Now, output: TabOutput) {
        let inc = self.tabs[tab].inc;
        match output {
            TabOutput::Listen => self.tabs[tab].listening = true,
            TabOutput::StopListening => self.tabs[tab].listening = false,
            TabOutput::ReadLog(id) => {
                let d = self.storage_latency();
                let op = Storage::Read(id);
                self.at(self.t + d, Due::Storage { tab, inc, op });
            }
            TabOutput::Append {
                id,
                after,
                record,
                prune,
            } => {
                let d = self.storage_latency();
                let op = Storage::Append {
                    id,
                    after,
                    record,
                    prune,
                };
                self.at(self.t + d, Due::Storage { tab, inc, op });
            }
            TabOutput::RequestLock { id, steal } => self.request_lock(tab, inc, id, steal),
            TabOutput::ReleaseLock => self.release_lock(tab, inc),
            TabOutput::Broadcast(entry) => self.broadcast(tab, Notice::Written(entry)),
            TabOutput::Ping => {
                let d = self.page_latency_for(tab, true);
                let page = self.tabs[tab].page.id;
                self.at(
                    self.t + d,
                    Due::Page {
                        tab,
                        page,
                        inc,
                        msg: ToPage::Ping,
                    },
                );
            }
            TabOutput::Event(event) => {
                self.note(format!("tab{tab} {event:?}"));
                if let TabEvent::Active { epoch, .. } = event {
                    self.holds += 1;
                    if epoch <= self.highest_active {
                        let detail = format!(
                            "tab{tab} active with epoch {epoch} after epoch {}",
                            self.highest_active
                        );
                        self.fail(TabInvariant::EpochsIncrease, detail);
                    }
                    self.highest_active = self.highest_active.max(epoch);
                }
                if let TabEvent::Lost {
                    epoch,
                    reason: TabEndReason::Expired,
                    ..
                } = event
                {
                    // The election lets the lock go with this, and the next tab may be active at
                    // once: the page's mirror of the hold, counting on its own clock, must
                    // already have run out.
                    let page = &mut self.tabs[tab].page;
                    if page.role == Some(epoch) && !page.left && page.mirror.holds(now) {
                        let detail = format!(
                            "tab{tab}'s page still believes epoch {epoch}, which its election let \
                             expire"
                        );
                        self.fail(TabInvariant::PageOutlivesElection, detail);
                    }
                }
                let stamp = Stamp {
                    wall: now.wall,
                    origin: Micros(now.mono.0),
                };
                let d = self.page_latency_for(tab, true);
                let page = self.tabs[tab].page.id;
                self.at(
                    self.t + d,
                    Due::Page {
                        tab,
                        page,
                        inc,
                        msg: ToPage::Event(event, stamp),
                    },
                );
            }
        }
    }

    fn send(&mut self, tab: usize, delay: u64, msg: ToElection) {
        let inc = self.tabs[tab].inc;
        self.at(self.t + delay, Due::Election { tab, inc, msg });
    }

    /// A message from the page that arrives as soon as it can: after everything the page sent
    /// the election before it (postMessage keeps order), without a latency of its own.
    fn post_now(&mut self, tab: usize, msg: ToElection) {
        let at = self.t.max(self.tabs[tab].to_worker_at);
        self.tabs[tab].to_worker_at = at;
        self.send(tab, at - self.t, msg);
    }

    fn arrive_at_election(&mut self, tab: usize, inc: u32, msg: ToElection) {
        if self.tabs[tab].inc != inc || self.tabs[tab].ctx == Ctx::Dead {
            return;
        }
        if let ToElection::Notice(_) = &msg {
            if !self.tabs[tab].listening {
                return;
            }
            if self.tabs[tab].ctx == (Ctx::Frozen { cached: true }) {
                // A message reaching a cached page's channel evicts the page.
                self.note(format!("tab{tab} evicted from the cache by a message"));
                return self.kill(tab);
            }
        }
        if !self.running(tab) {
            self.tabs[tab].parked.push(msg);
            return;
        }
        self.deliver(tab, msg);
    }

    fn deliver(&mut self, tab: usize, msg: ToElection) {
        match msg {
            ToElection::Read(id, outcome) => {
                self.input(tab, |e, now| e.handle_read(now, id, outcome))
            }
            ToElection::Append(id, outcome) => {
                self.input(tab, |e, now| e.handle_append(now, id, outcome))
            }
            ToElection::Lock(id, event) => self.input(tab, |e, now| e.handle_lock(now, id, event)),
            ToElection::Notice(notice) => self.input(tab, |e, now| e.handle_notice(now, notice)),
            ToElection::Pong => self.input(tab, |e, now| e.handle_pong(now)),
            // The page marked itself a candidate when it sent this (as `TabLease` does): a
            // join that arrives after the page left again must not make it one.
            ToElection::Join => self.input(tab, |e, now| e.join(now)),
            ToElection::Leave => self.input(tab, |e, now| e.leave(now, false)),
            // As the engine does: the epoch the page stopped believing, whatever the election
            // holds by the time the yield arrives.
            ToElection::Yield(epoch) => {
                let held = self.tabs[tab].election.epoch();
                self.input(tab, |e, now| e.yield_role(now, epoch));
                if held.is_some_and(|held| held != epoch) && self.tabs[tab].election.epoch() != held
                {
                    // The page never stopped believing the hold the election has now.
                    let detail = format!(
                        "tab{tab}'s yield of epoch {epoch} ended the hold of epoch {}",
                        held.unwrap_or_default()
                    );
                    self.fail(TabInvariant::StaleYield, detail);
                }
            }
            ToElection::Check => self.input(tab, |e, now| e.check(now)),
            ToElection::HandOff(to) => self.input(tab, |e, now| e.hand_off(now, to)),
        }
    }

    // ----- storage -----

    fn storage(&mut self, tab: usize, inc: u32, op: Storage) {
        let failed = !self.healed && self.rng.chance(self.p.storage_failure);
        let reply = match op {
            Storage::Read(id) => {
                let outcome = if failed {
                    Err(())
                } else {
                    Ok(self.log.last_key_value().map(|(seq, record)| LogEntry {
                        seq: *seq,
                        record: record.clone(),
                    }))
                };
                Some(ToElection::Read(id, outcome))
            }
            Storage::Append {
                id,
                after,
                record,
                prune,
            } => {
                let outcome = if failed {
                    AppendOutcome::Failed
                } else {
                    self.append(tab, after, record, prune)
                };
                Some(ToElection::Append(id, outcome))
            }
            Storage::FenceCheck { instance, epoch } => {
                self.fence_check(tab, instance, epoch);
                None
            }
            Storage::FenceWrite { instance, epoch } => {
                self.fence_write(tab, instance, epoch);
                None
            }
        };
        if let Some(msg) = reply {
            let d = self.storage_latency();
            self.at(self.t + d, Due::Election { tab, inc, msg });
        }
    }

    /// IndexedDB's `add` at `after + 1` (fails if the slot exists), then the newest key.
    fn append(
        &mut self,
        tab: usize,
        after: u64,
        record: LogRecord,
        prune: Option<u64>,
    ) -> AppendOutcome {
        let slot = after + 1;
        if self.log.contains_key(&slot) {
            return AppendOutcome::Conflict;
        }
        if let Some(through) = prune {
            self.log.retain(|seq, _| *seq > through);
        }
        let newest = self.log.last_key_value().map(|(s, r)| (*s, r.clone()));
        self.note(format!(
            "tab{tab} appended #{slot} {} {} epoch {}",
            record.kind.as_str(),
            record.holder,
            record.epoch
        ));
        if let Some((seq, previous)) = &newest {
            if *seq == after && record.kind == EntryKind::Grant && record.epoch <= previous.epoch {
                let detail = format!(
                    "grant epoch {} at #{slot} after epoch {} at #{seq}",
                    record.epoch, previous.epoch
                );
                self.fail(TabInvariant::EpochsIncrease, detail);
            }
        }
        if record.kind == EntryKind::Release {
            if let Some((seq, previous)) = &newest {
                if *seq == after
                    && (previous.holder != record.holder || previous.epoch != record.epoch)
                {
                    let detail = format!(
                        "release of {} epoch {} at #{slot} on top of {} {} epoch {} at #{seq}",
                        record.holder,
                        record.epoch,
                        previous.kind.as_str(),
                        previous.holder,
                        previous.epoch
                    );
                    self.fail(TabInvariant::ReleaseOverOtherHold, detail);
                }
            }
        }
        // A writer whose slot had been pruned lands behind the newest entry: overtaken. Its
        // entry stays in the log, as in IndexedDB (the add cannot be undone within the one-shot
        // transaction), but no reader takes it for the newest and it is no hold.
        let overtaken = newest.is_some_and(|(seq, _)| seq > slot);
        if record.kind == EntryKind::Grant && !overtaken {
            self.grants
                .insert((record.holder.clone(), record.epoch), slot);
        }
        if !overtaken {
            self.newest_at = self.t;
            let reserved = self.reserved.take();
            if let (Some((to, at, lease)), EntryKind::Grant) = (reserved, record.kind) {
                // Candidates count the reservation on their own monotonic clocks from when they
                // first saw the release: at least this much true time.
                let rho = self.p.rho_ppm as u64;
                let window = lease - lease * 2 * rho / 1_000_000 - MS;
                if tab_id_of(&record.holder) != to && self.t < at + window {
                    let detail = format!(
                        "{} granted epoch {} {}us after a release handing the role to {to}",
                        record.holder,
                        record.epoch,
                        self.t - at
                    );
                    self.fail(TabInvariant::Handover, detail);
                }
            }
            if let (EntryKind::Release, Some(to)) = (record.kind, &record.to) {
                let lease = record.lease.map_or(self.p.lease, |l| l.0);
                self.reserved = Some((to.clone(), self.t, lease));
            }
            let (epoch, t) = (record.epoch, self.t);
            let hold_over = &mut self.hold_over;
            self.holds_open.retain(|&open| {
                let over = open < epoch;
                if over {
                    hold_over.insert(open, t);
                }
                !over
            });
            if record.kind == EntryKind::Release {
                self.holds_open.retain(|&open| open != epoch);
                self.hold_over.entry(epoch).or_insert(t);
            } else if !self.holds_open.contains(&epoch) && !self.hold_over.contains_key(&epoch) {
                self.holds_open.push(epoch);
            }
        }
        self.log.insert(slot, record);
        if overtaken {
            return AppendOutcome::Conflict;
        }
        AppendOutcome::Appended
    }

    /// The slot of the newest grant in the log (the hold that owns the role).
    fn newest_grant(&self) -> u64 {
        self.grants.values().copied().max().unwrap_or(0)
    }

    /// FencedStore's first check: the epoch must be the newest in the log.
    fn fence_check(&mut self, tab: usize, instance: String, epoch: u64) {
        let newest = self.log.last_key_value().map(|(_, r)| r.epoch);
        if newest != Some(epoch) {
            return;
        }
        let slot = self.grants.get(&(instance.clone(), epoch)).copied();
        if slot.is_some_and(|slot| slot < self.newest_grant()) {
            let detail = format!(
                "tab{tab}'s write with epoch {epoch} passed the check although a later hold exists"
            );
            self.fail(TabInvariant::Fencing, detail);
        }
        let d = self.storage_latency();
        let inc = self.tabs[tab].inc;
        let op = Storage::FenceWrite { instance, epoch };
        self.at(self.t + d, Due::Storage { tab, inc, op });
    }

    fn fence_write(&mut self, tab: usize, instance: String, epoch: u64) {
        if self.fence > epoch {
            return;
        }
        let slot = self
            .grants
            .get(&(instance.clone(), epoch))
            .copied()
            .unwrap_or(0);
        if slot < self.fence_slot {
            let detail = format!(
                "tab{tab}'s write of the hold at #{slot} accepted after one of the hold at #{}",
                self.fence_slot
            );
            self.fail(TabInvariant::Fencing, detail);
        }
        self.fence = epoch;
        self.fence_slot = slot;
        self.writes += 1;
        self.note(format!("fenced write by {instance} epoch {epoch} accepted"));
    }

    // ----- Web Locks -----

    fn lock_event(&mut self, tab: usize, inc: u32, id: IoId, event: LockEvent) {
        let d = self.rng.range(0, 200);
        self.at(
            self.t + d,
            Due::Election {
                tab,
                inc,
                msg: ToElection::Lock(id, event),
            },
        );
    }

    fn request_lock(&mut self, tab: usize, inc: u32, id: IoId, steal: bool) {
        if steal {
            let instance = &self.tabs[tab].election.config().instance;
            let newest = self.log.last_key_value().map(|(_, r)| r);
            if !newest.is_some_and(|r| &r.holder == instance && r.kind == EntryKind::Grant) {
                let detail = format!(
                    "{instance} steals the lock while the newest entry is {}",
                    newest.map_or("none".to_owned(), |r| format!(
                        "{} {} epoch {}",
                        r.kind.as_str(),
                        r.holder,
                        r.epoch
                    ))
                );
                self.fail(TabInvariant::StealOverNewerHold, detail);
            }
            if let Some((holder, held_inc, held)) = self.locks.holder.take() {
                self.note(format!("tab{tab} steals the lock from tab{holder}"));
                self.lock_event(holder, held_inc, held, LockEvent::Lost);
            }
            self.locks.holder = Some((tab, inc, id));
            self.lock_event(tab, inc, id, LockEvent::Granted);
        } else if self.locks.holder.is_none() {
            self.locks.holder = Some((tab, inc, id));
            self.lock_event(tab, inc, id, LockEvent::Granted);
        } else {
            self.locks.queue.push_back((tab, inc, id));
        }
    }

    /// Lets go of whatever lock or request the context has.
    fn release_lock(&mut self, tab: usize, inc: u32) {
        self.locks.queue.retain(|(t, i, _)| (*t, *i) != (tab, inc));
        if self
            .locks
            .holder
            .is_some_and(|(t, i, _)| (t, i) == (tab, inc))
        {
            self.locks.holder = None;
            if let Some((next, next_inc, id)) = self.locks.queue.pop_front() {
                self.locks.holder = Some((next, next_inc, id));
                self.lock_event(next, next_inc, id, LockEvent::Granted);
            }
        }
    }

    // ----- BroadcastChannel -----

    fn broadcast(&mut self, from: usize, notice: Notice) {
        // Every page's watch has a channel of its own, which hears its own worker's notices
        // too; a page that is leaving closed it first.
        for to in 0..self.tabs.len() {
            let leaving = matches!(notice, Notice::Leaving { .. });
            if (to == from && leaving)
                || (!self.healed && self.watch_rng.chance(self.p.broadcast_loss))
            {
                continue;
            }
            let d = self.watch_rng.exponential(self.p.broadcast_latency);
            let page = self.tabs[to].page.id;
            let msg = ToWatch::Notice(notice.clone());
            self.at(self.t + d, Due::Watch { tab: to, page, msg });
        }
        for to in 0..self.tabs.len() {
            if to == from || (!self.healed && self.rng.chance(self.p.broadcast_loss)) {
                continue;
            }
            let d = self.rng.exponential(self.p.broadcast_latency);
            let msg = ToElection::Notice(notice.clone());
            self.send(to, d, msg);
        }
    }

    // ----- the page -----

    fn page_tick(&mut self, tab: usize) {
        let d = self.rng.exponential(self.p.think);
        let page = self.tabs[tab].page.id;
        self.at(self.t + d, Due::PageTick { tab, page });
    }

    fn page_runs(&self, tab: usize) -> bool {
        self.running(tab) && !self.tabs[tab].page.hung
    }

    fn arrive_at_page(&mut self, tab: usize, page: u32, inc: u32, msg: ToPage) {
        // The page hears only the election it runs now: a worker it terminated (`pagehide`,
        // restored from the cache) speaks for a candidate that no longer exists, whose hold the
        // page must not take up again when it rejoins.
        let current = self.tabs[tab].page.id == page && self.tabs[tab].inc == inc;
        if !current || self.tabs[tab].ctx == Ctx::Dead {
            return;
        }
        if !self.page_runs(tab) {
            if let ToPage::Ping = msg {
                self.tabs[tab].page.pong_owed = true;
            } else {
                self.tabs[tab].parked_page.push(msg);
            }
            return;
        }
        let now = self.now(tab);
        match msg {
            ToPage::Ping => {
                let d = self.page_latency_for(tab, false);
                self.send(tab, d, ToElection::Pong);
            }
            ToPage::Event(event, sent) => {
                let page = &mut self.tabs[tab].page;
                match event {
                    TabEvent::Active { epoch, remaining } if page.candidate && !page.left => {
                        page.role = Some(epoch);
                        page.mirror.accept(
                            now,
                            Micros(now.mono.0),
                            token_of(epoch),
                            remaining,
                            sent,
                        );
                    }
                    TabEvent::Renewed { epoch, remaining } if page.role == Some(epoch) => {
                        page.mirror.accept(
                            now,
                            Micros(now.mono.0),
                            token_of(epoch),
                            remaining,
                            sent,
                        );
                    }
                    TabEvent::Lost { epoch, .. } if page.role == Some(epoch) => {
                        page.role = None;
                        page.mirror.clear();
                    }
                    _ => {}
                }
                self.page_update(tab);
            }
        }
    }

    /// The page reads its belief (as every `isActive` does): a mirror that ran out yields.
    fn page_update(&mut self, tab: usize) -> bool {
        let now = self.now(tab);
        let page = &mut self.tabs[tab].page;
        let Some(epoch) = page.role else {
            return false;
        };
        if page.mirror.holds(now) {
            return true;
        }
        page.role = None;
        page.mirror.clear();
        let d = self.page_latency_for(tab, false);
        self.send(tab, d, ToElection::Yield(epoch));
        false
    }

    fn page_action(&mut self, tab: usize) {
        if !self.page_runs(tab) || self.tabs[tab].page.left {
            return;
        }
        if self.watch_rng.chance(0.3) {
            self.make_call(tab);
        }
        let active = self.page_update(tab);
        if active && !self.healed && self.watch_rng.chance(0.05) {
            // Hand over, to another tab (in whatever state it is) or whoever is next: the page
            // stops acting at once, as `handOff()` does, and stays a candidate.
            let to = if self.watch_rng.chance(0.8) {
                let other = (tab + 1 + self.watch_rng.below(self.tabs.len() - 1)) % self.tabs.len();
                Some(format!("tab{other}"))
            } else {
                None
            };
            self.note(format!("tab{tab}'s page hands off to {to:?}"));
            let page = &mut self.tabs[tab].page;
            page.role = None;
            page.mirror.clear();
            let d = self.page_latency_for(tab, false);
            self.send(tab, d, ToElection::HandOff(to));
            return;
        }
        if active && self.rng.chance(0.5) {
            let instance = self.tabs[tab].election.config().instance.clone();
            let epoch = self.tabs[tab].page.role.expect("active");
            let d = self.storage_latency();
            let inc = self.tabs[tab].inc;
            let op = Storage::FenceCheck { instance, epoch };
            self.at(self.t + d, Due::Storage { tab, inc, op });
        }
        if !self.healed && self.rng.chance(0.02) {
            // The application releases, and campaigns again later.
            let page = &mut self.tabs[tab].page;
            if page.candidate {
                page.candidate = false;
                page.role = None;
                page.mirror.clear();
                self.note(format!("tab{tab}'s page leaves"));
                let d = self.page_latency_for(tab, false);
                self.send(tab, d, ToElection::Leave);
                let later = self.rng.range(0, 2 * self.p.lease);
                self.at(
                    self.t + later,
                    Due::Recover {
                        tab,
                        what: Recover::Rejoin,
                    },
                );
            }
        }
    }

    // ----- the page's watch of who holds the role -----

    fn watch_storage_latency(&mut self) -> u64 {
        if !self.healed && self.watch_rng.chance(self.p.storage_slow) {
            if self.watch_rng.chance(0.1) {
                return self.watch_rng.range(0, 2 * self.p.lease);
            }
            return self.watch_rng.range(0, 2 * self.p.renew_interval);
        }
        self.watch_rng.exponential(self.p.storage_latency)
    }

    /// The page's watch starts (the `TabLease` is constructed): it opens its channel and reads.
    fn start_watch(&mut self, tab: usize) {
        self.tabs[tab].page.watching = true;
        self.tabs[tab].page.running_since = self.t;
        self.watch_input(tab, |w, now| w.start(now));
    }

    fn arrive_at_watch(&mut self, tab: usize, page: u32, msg: ToWatch) {
        if self.tabs[tab].page.id != page || self.tabs[tab].ctx == Ctx::Dead {
            return;
        }
        match &msg {
            ToWatch::Timer(gen) if *gen != self.tabs[tab].page.watch_timer => return,
            ToWatch::CallTimer(gen) if *gen != self.tabs[tab].page.call_timer => return,
            // A message to a closed channel is lost (the page closed it before the cache).
            ToWatch::Notice(_) | ToWatch::Request { .. } | ToWatch::Reply { .. }
                if !self.tabs[tab].page.watching =>
            {
                return
            }
            _ => {}
        }
        if !self.page_runs(tab) {
            if !matches!(msg, ToWatch::Timer(_) | ToWatch::CallTimer(_)) {
                self.tabs[tab].page.parked_watch.push(msg);
            }
            return;
        }
        self.deliver_to_watch(tab, msg);
    }

    fn deliver_to_watch(&mut self, tab: usize, msg: ToWatch) {
        match msg {
            ToWatch::Read(id, outcome) => {
                self.watch_input(tab, |w, now| w.handle_read(now, id, outcome))
            }
            ToWatch::Notice(notice) => self.watch_input(tab, |w, now| w.handle_notice(now, notice)),
            ToWatch::Timer(_) => self.watch_input(tab, |w, now| w.handle_timeout(now)),
            ToWatch::CallTimer(_) => self.calls_input(tab, |c, now| c.handle_timeout(now)),
            ToWatch::Request {
                tab: from,
                page,
                id,
                epoch,
            } => self.serve(tab, from, page, id, epoch),
            ToWatch::Handled {
                tab: from,
                page,
                id,
                epoch,
            } => {
                // Answered only if this page still holds the hold when its handler is done.
                if TabCalls::serves(self.held(tab), epoch) {
                    let msg = ToWatch::Reply { id, epoch };
                    if from == tab {
                        self.deliver_to_watch(tab, msg);
                    } else {
                        self.call_message(from, page, msg);
                    }
                }
            }
            ToWatch::Reply { id, epoch } => self.replied(tab, id, epoch),
        }
    }

    // ----- calls into the active tab -----

    /// The epoch this page believes it holds now.
    fn held(&mut self, tab: usize) -> Option<u64> {
        let now = self.now(tab);
        let page = &mut self.tabs[tab].page;
        page.role.filter(|_| !page.left && page.mirror.holds(now))
    }

    /// A message on the call channel to the page `page` of tab `to`: lossy, late, reordered,
    /// and in the fault phase sometimes held up as long as a heartbeat interval (a busy page).
    fn call_message(&mut self, to: usize, page: u32, msg: ToWatch) {
        if !self.healed && self.watch_rng.chance(self.p.broadcast_loss) {
            return;
        }
        let d = if !self.healed && self.watch_rng.chance(0.1) {
            self.watch_rng.range(0, self.p.renew_interval)
        } else {
            self.watch_rng.exponential(self.p.broadcast_latency)
        };
        self.at(self.t + d, Due::Watch { tab: to, page, msg });
    }

    /// The page of tab `tab` calls the active tab.
    fn make_call(&mut self, tab: usize) {
        let page = &mut self.tabs[tab].page;
        page.next_call += 1;
        let id = page.next_call;
        self.calls_made += 1;
        let timeout = Micros(2 * self.p.lease);
        self.calls_input(tab, |c, now| c.call(now, id, timeout));
    }

    fn calls_input(&mut self, tab: usize, f: impl FnOnce(&mut TabCalls, Now)) {
        let now = self.now(tab);
        f(&mut self.tabs[tab].page.calls, now);
        let page = self.tabs[tab].page.id;
        while let Some(output) = self.tabs[tab].page.calls.poll_output() {
            match output {
                CallOutput::Send { id, epoch } => {
                    self.tabs[tab].page.routes.insert(id, epoch);
                    let request = ToWatch::Request {
                        tab,
                        page,
                        id,
                        epoch,
                    };
                    if TabCalls::serves(self.held(tab), epoch) {
                        self.deliver_to_watch(tab, request);
                        continue;
                    }
                    for to in (0..self.tabs.len()).filter(|&to| to != tab) {
                        let to_page = self.tabs[to].page.id;
                        self.call_message(to, to_page, request.clone());
                    }
                }
                CallOutput::Fail { id, failure } => {
                    self.note(format!("tab{tab} call {id} failed: {}", failure.code()));
                    self.call_settled(tab, id);
                }
            }
        }
        self.tabs[tab].page.call_timer += 1;
        let gen = self.tabs[tab].page.call_timer;
        let Some(at) = self.tabs[tab].page.calls.poll_timeout() else {
            return;
        };
        let Some(fire) = self.tabs[tab].clock.true_time_of_mono(self.t, at.0) else {
            return;
        };
        let late = if self.tabs[tab].hidden && !self.healed {
            self.watch_rng.range(0, HIDDEN_TIMER_LATENESS)
        } else {
            self.watch_rng.range(0, MS)
        };
        let msg = ToWatch::CallTimer(gen);
        self.at(fire + late, Due::Watch { tab, page, msg });
    }

    fn call_settled(&mut self, tab: usize, id: u64) {
        if self.tabs[tab].page.settled.contains(&id) {
            let detail = format!("tab{tab}'s call {id} settled twice");
            return self.fail(TabInvariant::Calls, detail);
        }
        self.tabs[tab].page.settled.push(id);
    }

    /// A request reached this page: its handler runs if the page holds the epoch it names.
    fn serve(&mut self, tab: usize, from: usize, page: u32, id: u64, epoch: u64) {
        if !TabCalls::serves(self.held(tab), epoch) {
            return;
        }
        if self.handled.contains(&(from, page, id, epoch)) {
            let detail = format!("tab{from}'s call {id} ran twice on the hold of epoch {epoch}");
            return self.fail(TabInvariant::Calls, detail);
        }
        self.handled.push((from, page, id, epoch));
        self.note(format!(
            "tab{tab} runs tab{from}'s call {id} (epoch {epoch})"
        ));
        let d = self.watch_rng.range(0, self.p.renew_interval);
        let my_page = self.tabs[tab].page.id;
        let msg = ToWatch::Handled {
            tab: from,
            page,
            id,
            epoch,
        };
        self.at(
            self.t + d,
            Due::Watch {
                tab,
                page: my_page,
                msg,
            },
        );
    }

    /// A reply reached the caller: if the core takes it, the call resolves.
    fn replied(&mut self, tab: usize, id: u64, epoch: u64) {
        if !self.tabs[tab].page.calls.handle_reply(id, epoch) {
            return;
        }
        self.calls_resolved += 1;
        self.note(format!("tab{tab} call {id} resolved by epoch {epoch}"));
        self.call_settled(tab, id);
        let page = &self.tabs[tab].page;
        let routed = page.routes.get(&id).copied();
        let watched = page.watched.as_ref().map(|w| (w.holder.is_some(), w.epoch));
        if routed != Some(epoch) {
            let detail =
                format!("tab{tab}'s call {id}, routed to {routed:?}, resolved by epoch {epoch}");
            return self.fail(TabInvariant::Calls, detail);
        }
        if watched != Some((true, epoch)) {
            let detail = format!(
                "tab{tab}'s call {id} resolved by epoch {epoch} while its watch reported {watched:?}"
            );
            self.fail(TabInvariant::Calls, detail);
        }
    }

    /// Runs one input on the page's watch, carries out its outputs and checks its reports.
    fn watch_input(&mut self, tab: usize, f: impl FnOnce(&mut TabWatch, Now)) {
        let now = self.now(tab);
        f(&mut self.tabs[tab].page.watch, now);
        let page = self.tabs[tab].page.id;
        while let Some(output) = self.tabs[tab].page.watch.poll_output() {
            match output {
                TabWatchOutput::ReadLog(id) => {
                    let d = self.watch_storage_latency();
                    self.at(self.t + d, Due::WatchRead { tab, page, id });
                }
                TabWatchOutput::Change(change) => self.watched(tab, change),
            }
        }
        self.tabs[tab].page.watch_timer += 1;
        let gen = self.tabs[tab].page.watch_timer;
        let Some(at) = self.tabs[tab].page.watch.poll_timeout() else {
            return;
        };
        let Some(fire) = self.tabs[tab].clock.true_time_of_mono(self.t, at.0) else {
            return;
        };
        // The watch runs on the page's main thread: throttled while hidden.
        let late = if self.tabs[tab].hidden && !self.healed {
            self.watch_rng.range(0, HIDDEN_TIMER_LATENESS)
        } else {
            self.watch_rng.range(0, MS)
        };
        let msg = ToWatch::Timer(gen);
        self.at(fire + late, Due::Watch { tab, page, msg });
    }

    /// Invariant 5's order: a larger epoch, the end of the hold last reported, or that hold
    /// again after an end (judged by expiry: the watch knows which ends are final).
    fn watched(&mut self, tab: usize, change: HolderChange) {
        self.note(format!(
            "tab{tab} watch: {} epoch {}",
            change.holder.as_deref().unwrap_or("nobody"),
            change.epoch
        ));
        if let Some(last) = &self.tabs[tab].page.watched {
            let in_order = change.epoch > last.epoch
                || (change.epoch == last.epoch && last.holder.is_some() != change.holder.is_some());
            if !in_order {
                let detail = format!(
                    "tab{tab}'s watch reported {:?} epoch {} after {:?} epoch {}",
                    change.holder, change.epoch, last.holder, last.epoch
                );
                self.fail(TabInvariant::WatchOrder, detail);
            }
        }
        let live = change.holder.as_ref().map(|_| change.epoch);
        self.tabs[tab].page.watched = Some(change);
        self.calls_input(tab, |c, _| c.holder_changed(live));
    }

    /// How long after a hold ended (or the heal, or its page resuming, whichever is last) a
    /// watch may still report it in the healed phase: the newest entry it knows outliving its
    /// lease, a read stalled from the fault phase (two leases), and the liveness slack.
    fn watch_bound(&self) -> u64 {
        3 * self.p.lease + self.p.renew_interval + self.liveness_slack()
    }

    /// Invariant 5's staleness, for the watches of running pages in the healed phase.
    fn check_watches(&mut self) {
        if !self.healed {
            return;
        }
        let newest = self.log.last_key_value().map(|(_, r)| (r.epoch, r.kind));
        let bound = self.watch_bound();
        for tab in 0..self.tabs.len() {
            if !self.page_runs(tab) || !self.tabs[tab].page.watching {
                continue;
            }
            let page = &self.tabs[tab].page;
            let Some(HolderChange {
                holder: Some(holder),
                epoch,
                ..
            }) = &page.watched
            else {
                continue;
            };
            let from = self.healed_at.max(page.running_since);
            let ended = match (self.hold_over.get(epoch), newest) {
                (Some(&over), _) => Some(over),
                // Its newest entry outlived its lease: nobody renews it.
                (None, Some((newest, kind))) if newest == *epoch && kind != EntryKind::Release => {
                    Some(self.newest_at + self.p.lease)
                }
                _ => None,
            };
            if let Some(ended) = ended {
                if self.t > ended.max(from) + bound {
                    let detail = format!(
                        "tab{tab}'s watch still reports {holder} epoch {epoch}, whose hold ended at                          {ended}us (bound {bound}us)"
                    );
                    return self.fail(TabInvariant::WatchStale, detail);
                }
            }
        }
    }

    // ----- faults -----

    fn fault(&mut self) {
        let tab = self.rng.below(self.tabs.len());
        let span = self.rng.range(self.p.lease / 10, 3 * self.p.lease);
        let until = self.t + span;
        let kind = self.rng.below(9);
        if self.tabs[tab].ctx == Ctx::Dead || self.asleep {
            return;
        }
        match kind {
            0 if self.tabs[tab].ctx == Ctx::Running => {
                self.note(format!("FAULT freeze tab{tab} for {span}us"));
                self.tabs[tab].ctx = Ctx::Frozen { cached: false };
                self.at(
                    until,
                    Due::Recover {
                        tab,
                        what: Recover::Resume,
                    },
                );
            }
            1 if self.p.gated && !self.tabs[tab].page.hung => {
                self.note(format!("FAULT hang tab{tab}'s page for {span}us"));
                self.tabs[tab].page.hung = true;
                self.at(
                    until,
                    Due::Recover {
                        tab,
                        what: Recover::Unhang,
                    },
                );
            }
            2 if self.tabs[tab].ctx == Ctx::Running => self.pagehide(tab, until),
            3 => {
                self.note(format!("FAULT crash tab{tab}"));
                self.kill(tab);
                self.at(
                    until,
                    Due::Recover {
                        tab,
                        what: Recover::Reload,
                    },
                );
            }
            4 => {
                self.note(format!("FAULT machine sleeps for {span}us"));
                self.asleep = true;
                for i in 0..self.tabs.len() {
                    self.tabs[i].clock.set_suspended(self.t, true);
                }
                self.at(
                    until,
                    Due::Recover {
                        tab,
                        what: Recover::Wake,
                    },
                );
            }
            5 => {
                // Every context shares the machine's wall clock: a step reaches all at once.
                let delta = if self.rng.chance(0.5) {
                    -(self.rng.range(1, 3_600 * SECOND) as i64)
                } else {
                    self.rng.range(1, 3_600 * SECOND) as i64
                };
                self.note(format!("FAULT wall clock steps {delta}us"));
                for i in 0..self.tabs.len() {
                    self.tabs[i].clock.step_wall(self.t, delta);
                }
            }
            6 => {
                let rho = self.p.rho_ppm;
                let mono = self.rng.range(0, 2 * rho as u64) as i64 - rho;
                let wall = self.rng.range(0, 2 * rho as u64) as i64 - rho;
                self.note(format!("FAULT tab{tab} clocks drift {mono}/{wall} ppm"));
                self.tabs[tab].clock.set_rates(self.t, mono, wall);
            }
            7 if !self.tabs[tab].hidden => {
                self.note(format!("FAULT tab{tab} hidden for {span}us"));
                self.tabs[tab].hidden = true;
                self.at(
                    until,
                    Due::Recover {
                        tab,
                        what: Recover::Show,
                    },
                );
            }
            _ => {}
        }
    }

    /// `pagehide` into the back/forward cache: the page stops acting, announces it is leaving
    /// and detaches its election, which, in a worker, may be frozen before it hears.
    fn pagehide(&mut self, tab: usize, until: u64) {
        let worker_frozen_first = self.p.gated && self.rng.chance(0.5);
        self.note(format!(
            "FAULT pagehide tab{tab} (worker frozen first: {worker_frozen_first})"
        ));
        let page = &mut self.tabs[tab].page;
        // A message to a cached page's channel evicts it: the watch stops listening first.
        page.watching = false;
        let role = page.role.take();
        page.mirror.clear();
        page.left = page.candidate;
        page.candidate = false;
        if let Some(epoch) = role {
            let holder = self.tabs[tab].election.config().instance.clone();
            self.broadcast(tab, Notice::Leaving { holder, epoch });
        }
        if self.p.gated {
            if worker_frozen_first {
                self.tabs[tab].left_frozen = true;
            } else {
                // The worker is terminated: its lock and channel go at once.
                self.stop_election(tab);
            }
        } else {
            self.input(tab, |e, now| e.leave(now, true));
        }
        self.tabs[tab].ctx = Ctx::Frozen { cached: true };
        let what = if self.rng.chance(0.7) {
            Recover::Restore
        } else {
            Recover::Discard
        };
        self.at(until, Due::Recover { tab, what });
    }

    /// The election's context is gone: the lock passes on, nothing more arrives.
    fn stop_election(&mut self, tab: usize) {
        let inc = self.tabs[tab].inc;
        self.release_lock(tab, inc);
        let fresh = self.election(tab);
        let t = &mut self.tabs[tab];
        t.inc += 1;
        t.election = fresh;
        t.listening = false;
        t.timer_gen += 1;
        t.parked.clear();
        // What it sent the page and the page has not heard yet goes with it.
        t.parked_page.clear();
        t.page.pong_owed = false;
        t.left_frozen = false;
    }

    fn kill(&mut self, tab: usize) {
        self.stop_election(tab);
        let page = self.tabs[tab].page.id + 1;
        self.tabs[tab].page = self.page(tab, page);
        self.tabs[tab].ctx = Ctx::Dead;
    }

    fn recover(&mut self, tab: usize, what: Recover) {
        match what {
            Recover::Resume => {
                let for_good = self.removed == Some(tab);
                if self.tabs[tab].ctx == (Ctx::Frozen { cached: false }) && !for_good {
                    self.note(format!("tab{tab} resumes"));
                    self.tabs[tab].ctx = Ctx::Running;
                    self.resume(tab);
                }
            }
            Recover::Restore => {
                if self.tabs[tab].ctx == (Ctx::Frozen { cached: true }) {
                    self.note(format!("tab{tab} restored from the cache"));
                    if self.tabs[tab].left_frozen {
                        // The worker's termination completes; the page starts a new one.
                        self.stop_election(tab);
                    }
                    self.tabs[tab].ctx = Ctx::Running;
                    self.tabs[tab].page.watching = true;
                    let rejoin = std::mem::take(&mut self.tabs[tab].page.left);
                    if rejoin {
                        self.tabs[tab].page.candidate = true;
                        self.post_now(tab, ToElection::Join);
                    }
                    self.resume(tab);
                }
            }
            Recover::Discard => {
                if self.tabs[tab].ctx == (Ctx::Frozen { cached: true }) {
                    self.note(format!("tab{tab} discarded from the cache"));
                    self.kill(tab);
                    let later = self.rng.range(0, self.p.lease);
                    self.at(
                        self.t + later,
                        Due::Recover {
                            tab,
                            what: Recover::Reload,
                        },
                    );
                }
            }
            Recover::Reload => {
                if self.tabs[tab].ctx == Ctx::Dead {
                    self.note(format!("tab{tab} reloads"));
                    self.tabs[tab].ctx = Ctx::Running;
                    self.tabs[tab].page.candidate = true;
                    self.post_now(tab, ToElection::Join);
                    self.page_tick(tab);
                    self.start_watch(tab);
                }
            }
            Recover::Unhang => {
                if self.tabs[tab].page.hung && self.removed != Some(tab) {
                    self.note(format!("tab{tab}'s page answers again"));
                    self.tabs[tab].page.hung = false;
                    self.thaw_page(tab);
                }
            }
            Recover::Show => {
                if self.tabs[tab].hidden {
                    self.tabs[tab].hidden = false;
                    if self.running(tab) {
                        self.revalidate(tab);
                        self.arm_timer(tab);
                    }
                }
            }
            Recover::Wake => {
                if self.asleep {
                    self.note("machine wakes".to_owned());
                    self.asleep = false;
                    for i in 0..self.tabs.len() {
                        self.tabs[i].clock.set_suspended(self.t, false);
                    }
                    for i in 0..self.tabs.len() {
                        if self.running(i) {
                            self.resume(i);
                        }
                    }
                }
            }
            Recover::Rejoin => {
                if self.tabs[tab].ctx == Ctx::Dead {
                    return;
                }
                if !self.page_runs(tab) {
                    // The application runs only when its page does.
                    let later = self.p.lease;
                    return self.at(self.t + later, Due::Recover { tab, what });
                }
                let page = &mut self.tabs[tab].page;
                if !page.candidate && !page.left {
                    page.candidate = true;
                    self.note(format!("tab{tab}'s page joins again"));
                    let d = self.page_latency_for(tab, false);
                    self.send(tab, d, ToElection::Join);
                }
            }
        }
    }

    /// A context runs again: parked callbacks arrive, timers fire, the page re-validates.
    fn resume(&mut self, tab: usize) {
        if !self.running(tab) {
            return;
        }
        // Delivering a callback never freezes the context: the whole backlog arrives now.
        for msg in std::mem::take(&mut self.tabs[tab].parked) {
            self.deliver(tab, msg);
        }
        self.arm_timer(tab);
        self.thaw_page(tab);
        self.revalidate(tab);
    }

    fn thaw_page(&mut self, tab: usize) {
        if !self.page_runs(tab) {
            return;
        }
        if std::mem::take(&mut self.tabs[tab].page.pong_owed) {
            let d = self.page_latency_for(tab, false);
            self.send(tab, d, ToElection::Pong);
        }
        let (page, inc) = (self.tabs[tab].page.id, self.tabs[tab].inc);
        for msg in std::mem::take(&mut self.tabs[tab].parked_page) {
            self.arrive_at_page(tab, page, inc, msg);
        }
        self.tabs[tab].page.running_since = self.t;
        for msg in std::mem::take(&mut self.tabs[tab].page.parked_watch) {
            self.deliver_to_watch(tab, msg);
        }
        // Its timers may have been due while it could not run.
        self.watch_input(tab, |w, now| w.handle_timeout(now));
        self.calls_input(tab, |c, now| c.handle_timeout(now));
    }

    /// `resume`, `pageshow`, `visibilitychange`: the page reads its belief and has the election
    /// check.
    fn revalidate(&mut self, tab: usize) {
        if !self.page_runs(tab) {
            return;
        }
        self.page_update(tab);
        let d = self.page_latency_for(tab, false);
        self.send(tab, d, ToElection::Check);
        if self.tabs[tab].page.watching {
            self.watch_input(tab, |w, now| w.check(now));
        }
    }

    // ----- the healed phase -----

    fn heal(&mut self) {
        self.note("HEAL".to_owned());
        self.healed = true;
        self.healed_at = self.t;
        if self.asleep {
            self.recover(0, Recover::Wake);
        }
        for tab in 0..self.tabs.len() {
            self.tabs[tab].clock.set_rates(self.t, 0, 0);
            self.tabs[tab].hidden = false;
            match self.tabs[tab].ctx {
                Ctx::Frozen { cached: false } => self.recover(tab, Recover::Resume),
                Ctx::Frozen { cached: true } => self.recover(tab, Recover::Restore),
                Ctx::Dead => self.recover(tab, Recover::Reload),
                Ctx::Running => {}
            }
            self.recover(tab, Recover::Unhang);
            if !self.tabs[tab].page.candidate {
                self.note(format!("tab{tab}'s page joins at the heal"));
                self.tabs[tab].page.candidate = true;
                self.post_now(tab, ToElection::Join);
            }
            if self.running(tab) {
                self.arm_timer(tab);
            }
            if self.page_runs(tab) && self.tabs[tab].page.watching {
                // Timers armed while hidden may be a minute late: on time from now.
                self.watch_input(tab, |w, now| w.handle_timeout(now));
            }
        }
        self.stage_start = self.t;
        self.last_active_at = None;
        let bound = self.liveness_bound();
        self.at(self.t + bound, Due::Deadline { stage: 0 });
    }

    /// `lease + renew_interval`, the leaving grace, and slack for the slowest storage round
    /// trips and messages that may still be in flight from the fault phase.
    fn liveness_bound(&self) -> u64 {
        self.p.lease
            + self.p.renew_interval
            + 200 * MS
            + 2 * self.p.renew_interval
            + 40 * self.p.storage_latency
            + 20 * self.p.broadcast_latency
            + 10 * self.p.page_latency
            + 10 * MS
    }

    fn deadline(&mut self, stage: u8) {
        if self.last_active_at.is_none() {
            let detail = format!(
                "no tab active within {}us of {} (stage {stage})",
                self.t - self.stage_start,
                if stage == 0 {
                    "the heal"
                } else {
                    "the leader's loss"
                }
            );
            return self.fail(TabInvariant::Liveness, detail);
        }
        if stage == 1 {
            return self.at(self.t + self.p.lease, Due::End);
        }
        // Take the leader away: crash it, hang its page, or freeze it for good.
        let leader = (0..self.tabs.len()).find(|&i| {
            let now = self.now(i);
            self.tabs[i].election.is_active(now)
        });
        if let Some(leader) = leader {
            match self.rng.below(3) {
                0 => {
                    self.note(format!("LIVENESS crash leader tab{leader}"));
                    self.kill(leader);
                }
                1 if self.p.gated => {
                    self.note(format!("LIVENESS hang leader tab{leader}'s page"));
                    self.tabs[leader].page.hung = true;
                }
                _ => {
                    self.note(format!("LIVENESS freeze leader tab{leader} for good"));
                    self.tabs[leader].ctx = Ctx::Frozen { cached: false };
                }
            }
            self.removed = Some(leader);
            self.stage_start = self.t;
            self.last_active_at = None;
            let bound = self.p.lease + self.p.renew_interval + self.liveness_slack();
            self.at(self.t + bound, Due::Deadline { stage: 1 });
        } else {
            self.at(self.t + self.p.lease, Due::End);
        }
    }

    fn liveness_slack(&self) -> u64 {
        200 * MS
            + 40 * self.p.storage_latency
            + 20 * self.p.broadcast_latency
            + 10 * self.p.page_latency
    }

    // ----- invariants -----

    fn check(&mut self) {
        let mut believers = Vec::new();
        let mut exempt = Vec::new();
        for tab in 0..self.tabs.len() {
            if self.tabs[tab].ctx == Ctx::Dead {
                continue;
            }
            let now = self.now(tab);
            let election = self.tabs[tab].election.is_active(now);
            let page = {
                let page = &mut self.tabs[tab].page;
                page.role.is_some() && !page.left && page.mirror.holds(now)
            };
            if self.tabs[tab].left_frozen && !page {
                if election {
                    exempt.push(tab);
                }
            } else if election || page {
                believers.push((tab, election, page));
            }
            if self.healed && election && self.running(tab) && self.removed != Some(tab) {
                self.last_active_at = Some(self.t);
            }
        }
        if believers.len() > 1 {
            let detail = format!("tabs active at once (tab, election, page): {believers:?}");
            return self.fail(TabInvariant::OneActive, detail);
        }
        if !believers.is_empty() {
            for tab in exempt {
                // It cannot know it was taken over: its writes must be refused instead.
                let Some(epoch) = self.tabs[tab].election.epoch() else {
                    continue;
                };
                let instance = self.tabs[tab].election.config().instance.clone();
                let newest = self.log.last_key_value().map(|(_, r)| r.epoch);
                let slot = self.grants.get(&(instance, epoch)).copied().unwrap_or(0);
                if newest == Some(epoch) && slot < self.newest_grant() {
                    let detail = format!(
                        "tab{tab}, frozen in the cache with epoch {epoch}, could still write"
                    );
                    return self.fail(TabInvariant::Fencing, detail);
                }
            }
        }
        self.check_watches();
    }
}
