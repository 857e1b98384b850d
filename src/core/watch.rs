//! Watching who holds a resource without holding it: the decisions of `observe()`.
//!
//! A watcher learns a resource's state from its grantor's change feed (the reference grantor's
//! long poll, an etcd watch stream, a Consul blocking query, a Kubernetes watch) or, where the
//! store has none, by polling. Every state carries a **version** that grows with every change
//! (for the tenure protocol, [`watch_version`](crate::protocol::watch_version); for a store, its
//! own revision or index). Feeds are not trustworthy about order: a reply may arrive after a
//! newer one (a retried long poll, a stream reconnected from an older revision, a proxy's
//! cache), and a connection may drop. So the watcher decides:
//!
//! - **what to report**: a state only if its version is larger than every version reported
//!   before. An older or equal state is dropped, so no observer ever reports a holder older than
//!   one it already reported, whatever the feed does; and a newer version of the state last
//!   reported (the same holder and token: a snapshot after a reconnect) is no change, so no
//!   change is reported twice;
//! - **when to ask again**: at once after a long poll or a stream ended normally; after a
//!   growing, jittered wait while a polled store shows no change ([`WatchFeed::Poll`]); after a
//!   growing, jittered backoff when a request failed;
//! - **how to resume**: after a failure (a dropped connection, an error, a fetch that ran past
//!   its deadline) the next request resumes after the last version reported, so a store that
//!   keeps its history (etcd) delivers every change made meanwhile, none missed and none twice.
//!   If that fails too (the store forgot that far back: a compacted revision; or the feed keeps
//!   breaking), the request after it is a **snapshot** (`after: None`), answered at once with the
//!   current state: the watcher resynchronises rather than retrying a resumption that cannot
//!   succeed.
//!
//! Nothing here reads a clock or does IO: each input carries the monotonic time, and the watcher
//! says what to fetch ([`WatchOutput::Fetch`]), what to abandon ([`WatchOutput::Abandon`]) and
//! what to report ([`WatchOutput::Report`]), and when it next needs waking
//! ([`Watcher::poll_timeout`]).

use std::collections::VecDeque;

use super::claim::IdleBackoff;
use super::holder::FailureKind;
use super::time::{Micros, MonoTime};
use crate::protocol::watch_version;

/// The version of a state read with a one-shot status call (a store without a change feed, or a
/// grantor object that offers only `status`): the holder's `token` if somebody holds the
/// resource, else the largest token seen before, as [`watch_version`] numbers them. A grant and
/// its end between two reads go unseen, which leaves the states reported in order.
pub fn status_version(token: Option<u64>, largest_seen: u64) -> u64 {
    match token {
        Some(token) => watch_version(token, true),
        None => watch_version(largest_seen, false),
    }
}

/// Whether a failure of the kind named `kind` ([`FailureKind::as_str`]) ends a watch for good: a
/// refused request (bad arguments, failed authentication, no such endpoint) is refused again
/// however often it is retried; every other failure is retried after a backoff.
pub fn ends_watch(kind: &str) -> bool {
    kind == FailureKind::BadRequest.as_str()
}

/// Deliberately broken watchers. They take effect only in builds with the `mutations` feature,
/// where the simulation uses them to prove that it catches each bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WatchMutation {
    /// Every state a feed delivers is reported, older ones included.
    ReportsAnyVersion,
    /// After any number of failures in a row the watcher resumes from the last version reported,
    /// never taking a snapshot: a store that forgot that version refuses it for good.
    ResumesAfterFailure,
    /// A failed fetch is not retried: the watcher goes quiet for good.
    GivesUpAfterFailure,
}

impl WatchMutation {
    /// Every mutation, for tests that must catch them all.
    pub const ALL: [WatchMutation; 3] = [
        WatchMutation::ReportsAnyVersion,
        WatchMutation::ResumesAfterFailure,
        WatchMutation::GivesUpAfterFailure,
    ];
}

/// How a store delivers changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchFeed {
    /// The store holds a request open until something changes (a long poll, a blocking query)
    /// or streams changes until the connection ends: ask again as soon as one ends.
    Changes,
    /// The store has no change feed: read it again after a wait that grows, from
    /// [`WatchConfig::poll_min`] to [`WatchConfig::poll_max`], while nothing changes.
    Poll,
}

/// A watcher's timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchConfig {
    /// How the store delivers changes.
    pub feed: WatchFeed,
    /// How long one fetch may stay open before it is abandoned as failed: for a long poll, the
    /// grantor's wait plus a request timeout; for a stream, how long it may stay silent.
    pub fetch_deadline: Micros,
    /// The first wait after a failure; later ones double up to `retry_max`, each a seeded pick
    /// in the upper half of its ceiling.
    pub retry_min: Micros,
    /// The longest wait after failures.
    pub retry_max: Micros,
    /// The first wait between polls of a store without a change feed.
    pub poll_min: Micros,
    /// The longest wait between polls while nothing changes.
    pub poll_max: Micros,
}

impl WatchConfig {
    /// Timing for a store with a change feed: a fetch may stay open `fetch_deadline`; failures
    /// back off from 100 ms to 5 s.
    pub fn changes(fetch_deadline: Micros) -> WatchConfig {
        WatchConfig {
            feed: WatchFeed::Changes,
            fetch_deadline,
            retry_min: Micros::from_ms(100),
            retry_max: Micros::from_ms(5_000),
            poll_min: Micros::ZERO,
            poll_max: Micros::ZERO,
        }
    }

    /// Timing for a polled store: a poll is abandoned after `request_timeout`; polls are 100 ms
    /// apart after a change, growing to `poll_max` while nothing changes.
    pub fn poll(request_timeout: Micros, poll_max: Micros) -> WatchConfig {
        WatchConfig {
            feed: WatchFeed::Poll,
            fetch_deadline: request_timeout,
            retry_min: Micros::from_ms(100),
            retry_max: Micros::from_ms(5_000),
            poll_min: Micros::from_ms(100),
            poll_max,
        }
    }
}

/// Names one fetch, so that what arrives for an abandoned one is told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FetchId(pub u64);

/// A resource's state as a feed delivers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HolderView {
    /// The state's place in the resource's history: larger is newer.
    pub version: u64,
    /// Who holds the resource; `None` when nobody does.
    pub holder: Option<String>,
    /// The holder's fencing token (or the store's equivalent).
    pub token: Option<u64>,
    /// How long the grant has left by the store's account, when it says.
    pub expires_in_ms: Option<u64>,
    /// The holder the resource was handed to, while the store keeps it for that holder.
    pub handed_to: Option<String>,
}

/// What the watcher asks of its binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchOutput {
    /// Read the resource's state: the first state past `after` (held open by a store with a
    /// change feed), or at once the current state when `after` is `None` (a snapshot).
    Fetch {
        /// Names this fetch in the replies.
        id: FetchId,
        /// The version already seen, or `None` for a snapshot.
        after: Option<u64>,
    },
    /// Stop the fetch `id` (abort its request): it ran past its deadline.
    Abandon(FetchId),
    /// Tell the user: this is who holds the resource now.
    Report(HolderView),
}

/// Watches one resource (see the module documentation).
#[derive(Clone, Debug)]
pub struct Watcher {
    config: WatchConfig,
    /// The largest version reported (or seen with the state last reported).
    reported: Option<u64>,
    /// The holder and token last reported.
    last_state: Option<(Option<String>, Option<u64>)>,
    /// The fetch in flight and its deadline.
    in_flight: Option<(FetchId, MonoTime)>,
    /// When to start the next fetch, while none is in flight.
    next_fetch_at: Option<MonoTime>,
    /// Whether the next fetch must be a snapshot.
    snapshot_next: bool,
    /// Fetches failed in a row.
    failures: u32,
    next_id: u64,
    /// Waits after failures.
    retry: IdleBackoff,
    /// Waits between unchanged polls.
    poll: IdleBackoff,
    /// Whether the fetch in flight brought a newer state.
    changed_in_flight: bool,
    stopped: bool,
    outputs: VecDeque<WatchOutput>,
    #[cfg(feature = "mutations")]
    mutation: Option<WatchMutation>,
}

impl Watcher {
    /// A watcher that starts with a snapshot at `now`; `seed` makes its waits' jitter
    /// reproducible.
    pub fn new(config: WatchConfig, seed: u64, now: MonoTime) -> Watcher {
        Watcher {
            config,
            reported: None,
            last_state: None,
            in_flight: None,
            next_fetch_at: Some(now),
            snapshot_next: true,
            failures: 0,
            next_id: 0,
            retry: IdleBackoff::new(config.retry_min, config.retry_max, seed),
            poll: IdleBackoff::new(
                config.poll_min,
                config.poll_max,
                seed ^ 0x9e37_79b9_7f4a_7c15,
            ),
            changed_in_flight: false,
            stopped: false,
            outputs: VecDeque::new(),
            #[cfg(feature = "mutations")]
            mutation: None,
        }
    }

    /// Makes this watcher misbehave as `mutation` says (simulation only).
    #[cfg(feature = "mutations")]
    pub fn with_mutation(mut self, mutation: WatchMutation) -> Watcher {
        self.mutation = Some(mutation);
        self
    }

    fn mutated(&self, _mutation: WatchMutation) -> bool {
        #[cfg(feature = "mutations")]
        {
            self.mutation == Some(_mutation)
        }
        #[cfg(not(feature = "mutations"))]
        {
            false
        }
    }

    /// The largest version reported so far.
    pub fn reported_version(&self) -> Option<u64> {
        self.reported
    }

    /// Stops watching: nothing more is fetched or reported; a fetch in flight is abandoned.
    pub fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        self.next_fetch_at = None;
        if let Some((id, _)) = self.in_flight.take() {
            self.outputs.push_back(WatchOutput::Abandon(id));
        }
    }

    /// Whether [`Watcher::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// A state delivered by fetch `id` (a long poll's reply, or one event of a stream). It is
    /// reported if it is newer than everything reported; what an abandoned fetch delivers is
    /// still considered, since a state's version alone says whether it is news.
    pub fn handle_state(&mut self, _now: MonoTime, id: FetchId, view: HolderView) {
        if self.stopped {
            return;
        }
        let newer = self.reported.is_none_or(|seen| view.version > seen);
        if !newer && !self.mutated(WatchMutation::ReportsAnyVersion) {
            return;
        }
        self.reported = Some(self.reported.map_or(view.version, |v| v.max(view.version)));
        // A newer version of the state last reported (a snapshot after a reconnect, a poll of a
        // store whose version moved without a change of holder) is no change: it moves the
        // version on, and is not reported again.
        let same = self
            .last_state
            .as_ref()
            .is_some_and(|(holder, token)| *holder == view.holder && *token == view.token);
        if same {
            return;
        }
        if self.in_flight.is_some_and(|(current, _)| current == id) {
            self.changed_in_flight = true;
        }
        self.last_state = Some((view.holder.clone(), view.token));
        self.outputs.push_back(WatchOutput::Report(view));
    }

    /// Fetch `id` ended normally: the long poll answered (after its [`Watcher::handle_state`]),
    /// the poll was read, or the stream closed cleanly. The next fetch resumes after the last
    /// version reported: at once with a change feed, after a growing wait while a polled store
    /// stays the same.
    pub fn handle_done(&mut self, now: MonoTime, id: FetchId) {
        if self.stopped || !self.is_in_flight(id) {
            return;
        }
        self.in_flight = None;
        self.retry.reset();
        self.failures = 0;
        let changed = core::mem::take(&mut self.changed_in_flight);
        let wait = match self.config.feed {
            WatchFeed::Changes => Micros::ZERO,
            WatchFeed::Poll if changed => {
                self.poll.reset();
                self.config.poll_min
            }
            WatchFeed::Poll => self.poll.next_wait(),
        };
        self.next_fetch_at = Some(now.plus(wait));
    }

    /// Fetch `id` failed (the request failed, the stream broke or reported an error such as a
    /// compacted revision). The next fetch resumes after the last version reported, or, after
    /// two failures in a row, is a snapshot; it starts after a growing, jittered backoff;
    /// `retry_after` (a store's own `Retry-After`) lengthens that wait, never shortens it.
    pub fn handle_failure(&mut self, now: MonoTime, id: FetchId, retry_after: Option<Micros>) {
        if self.stopped || !self.is_in_flight(id) {
            return;
        }
        self.fail(now, retry_after);
    }

    fn fail(&mut self, now: MonoTime, retry_after: Option<Micros>) {
        self.in_flight = None;
        self.changed_in_flight = false;
        if self.mutated(WatchMutation::GivesUpAfterFailure) {
            self.next_fetch_at = None;
            return;
        }
        // The first failure resumes (nothing missed where the store keeps its history); one more
        // in a row resynchronises from a snapshot.
        self.failures = self.failures.saturating_add(1);
        self.snapshot_next =
            self.failures >= 2 && !self.mutated(WatchMutation::ResumesAfterFailure);
        let wait = self
            .retry
            .next_wait()
            .max(retry_after.unwrap_or(Micros::ZERO));
        self.next_fetch_at = Some(now.plus(wait));
    }

    fn is_in_flight(&self, id: FetchId) -> bool {
        self.in_flight.is_some_and(|(current, _)| current == id)
    }

    /// The timer fired (or any time): starts the next fetch when due, abandons a fetch past its
    /// deadline.
    pub fn handle_timeout(&mut self, now: MonoTime) {
        if self.stopped {
            return;
        }
        if let Some((id, deadline)) = self.in_flight {
            if now >= deadline {
                self.outputs.push_back(WatchOutput::Abandon(id));
                self.fail(now, None);
            }
            return;
        }
        if self.next_fetch_at.is_some_and(|at| now >= at) {
            self.next_fetch_at = None;
            let id = FetchId(self.next_id);
            self.next_id += 1;
            let after = if core::mem::take(&mut self.snapshot_next) {
                None
            } else {
                self.reported
            };
            self.in_flight = Some((id, now.plus(self.config.fetch_deadline)));
            self.outputs.push_back(WatchOutput::Fetch { id, after });
        }
    }

    /// The next thing to do, if any.
    pub fn poll_output(&mut self) -> Option<WatchOutput> {
        self.outputs.pop_front()
    }

    /// When [`Watcher::handle_timeout`] must next run: the next fetch's start or the fetch in
    /// flight's deadline.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        if self.stopped {
            return None;
        }
        match self.in_flight {
            Some((_, deadline)) => Some(deadline),
            None => self.next_fetch_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(version: u64, holder: Option<&str>) -> HolderView {
        HolderView {
            version,
            holder: holder.map(str::to_owned),
            token: holder.map(|_| version / 2),
            expires_in_ms: holder.map(|_| 1_000),
            handed_to: None,
        }
    }

    fn at(ms: u64) -> MonoTime {
        MonoTime(ms * 1_000)
    }

    fn drain(w: &mut Watcher) -> Vec<WatchOutput> {
        core::iter::from_fn(|| w.poll_output()).collect()
    }

    fn changes() -> Watcher {
        Watcher::new(WatchConfig::changes(Micros::from_ms(35_000)), 7, at(0))
    }

    /// Starts the due fetch and returns its id and `after`.
    fn fetch(w: &mut Watcher, now: MonoTime) -> (FetchId, Option<u64>) {
        w.handle_timeout(now);
        match drain(w).as_slice() {
            [WatchOutput::Fetch { id, after }] => (*id, *after),
            other => panic!("expected one fetch, got {other:?}"),
        }
    }

    #[test]
    fn status_reads_are_versioned_in_token_order() {
        assert_eq!(status_version(None, 0), 1);
        assert_eq!(status_version(Some(3), 0), 6);
        assert_eq!(status_version(None, 3), 7);
        assert!(status_version(Some(4), 3) > status_version(None, 3));
        assert!(ends_watch(FailureKind::BadRequest.as_str()));
        for kind in [
            FailureKind::Server,
            FailureKind::Malformed,
            FailureKind::Unreachable,
        ] {
            assert!(!ends_watch(kind.as_str()));
        }
    }

    #[test]
    fn starts_with_a_snapshot_then_resumes_after_what_it_reported() {
        let mut w = changes();
        assert_eq!(w.poll_timeout(), Some(at(0)));
        let (id, after) = fetch(&mut w, at(0));
        assert_eq!(after, None);
        w.handle_state(at(1), id, view(4, Some("a")));
        w.handle_done(at(1), id);
        assert_eq!(drain(&mut w), vec![WatchOutput::Report(view(4, Some("a")))]);
        let (_, after) = fetch(&mut w, at(1));
        assert_eq!(after, Some(4));
    }

    #[test]
    fn never_reports_a_version_at_or_below_one_reported() {
        let mut w = changes();
        let (id, _) = fetch(&mut w, at(0));
        w.handle_state(at(1), id, view(6, Some("b")));
        w.handle_state(at(1), id, view(4, Some("a")));
        w.handle_state(at(1), id, view(6, Some("b")));
        w.handle_state(at(1), id, view(7, None));
        assert_eq!(
            drain(&mut w),
            vec![
                WatchOutput::Report(view(6, Some("b"))),
                WatchOutput::Report(view(7, None)),
            ]
        );
        assert_eq!(w.reported_version(), Some(7));
    }

    #[test]
    fn a_newer_version_of_the_same_state_is_not_reported_again() {
        let mut w = changes();
        let (id, _) = fetch(&mut w, at(0));
        w.handle_state(at(1), id, view(4, Some("a")));
        let mut again = view(9, Some("a"));
        again.token = Some(2);
        w.handle_state(at(1), id, again);
        w.handle_state(at(1), id, view(10, None));
        w.handle_state(at(1), id, view(13, None));
        assert_eq!(
            drain(&mut w),
            vec![
                WatchOutput::Report(view(4, Some("a"))),
                WatchOutput::Report(view(10, None)),
            ]
        );
        assert_eq!(w.reported_version(), Some(13), "the version still moves on");
    }

    #[test]
    fn a_late_reply_of_an_abandoned_fetch_counts_only_if_newer() {
        let mut w = changes();
        let (first, _) = fetch(&mut w, at(0));
        w.handle_timeout(at(35_000));
        assert_eq!(drain(&mut w), vec![WatchOutput::Abandon(first)]);
        let retry_at = w.poll_timeout().unwrap();
        let (second, after) = fetch(&mut w, retry_at);
        assert_eq!(after, None, "nothing was reported to resume from");
        w.handle_state(retry_at, second, view(8, Some("c")));
        w.handle_state(retry_at, first, view(6, Some("b")));
        w.handle_state(retry_at, first, view(9, None));
        assert_eq!(
            drain(&mut w),
            vec![
                WatchOutput::Report(view(8, Some("c"))),
                WatchOutput::Report(view(9, None)),
            ]
        );
        // The abandoned fetch's end changes nothing: the second is still the one in flight.
        w.handle_done(retry_at, first);
        assert_eq!(
            w.poll_timeout(),
            Some(retry_at.plus(Micros::from_ms(35_000)))
        );
    }

    #[test]
    fn a_failure_resumes_and_a_second_in_a_row_takes_a_snapshot() {
        let mut w = changes();
        let (id, _) = fetch(&mut w, at(0));
        w.handle_state(at(1), id, view(4, Some("a")));
        w.handle_done(at(1), id);
        drain(&mut w);
        let (id, after) = fetch(&mut w, at(1));
        assert_eq!(after, Some(4));
        w.handle_failure(at(2), id, None);
        let retry = w.poll_timeout().unwrap();
        let (id, after) = fetch(&mut w, retry);
        assert_eq!(
            after,
            Some(4),
            "resumes: a store with history sends what it missed"
        );
        w.handle_failure(retry, id, None);
        let retry = w.poll_timeout().unwrap();
        let (id, after) = fetch(&mut w, retry);
        assert_eq!(after, None, "a second failure in a row resynchronises");
        w.handle_state(retry, id, view(9, None));
        w.handle_done(retry, id);
        drain(&mut w);
        let (id, after) = fetch(&mut w, retry);
        assert_eq!(after, Some(9));
        w.handle_failure(retry, id, None);
        let retry = w.poll_timeout().unwrap();
        let (_, after) = fetch(&mut w, retry);
        assert_eq!(
            after,
            Some(9),
            "a success in between starts the count again"
        );
    }

    #[test]
    fn failures_back_off_growing_and_jittered_then_reset() {
        let mut w = changes();
        let mut now = at(0);
        let mut waits = Vec::new();
        for _ in 0..8 {
            let (id, _) = fetch(&mut w, now);
            w.handle_failure(now, id, None);
            let next = w.poll_timeout().unwrap();
            waits.push(next.since(now));
            now = next;
        }
        assert!(waits[0] >= Micros::from_ms(50) && waits[0] <= Micros::from_ms(100));
        assert!(waits[7] >= Micros::from_ms(2_500) && waits[7] <= Micros::from_ms(5_000));
        let (id, _) = fetch(&mut w, now);
        w.handle_done(now, id);
        assert_eq!(
            w.poll_timeout(),
            Some(now),
            "a change feed asks again at once"
        );
        let (id, _) = fetch(&mut w, now);
        w.handle_failure(now, id, None);
        assert!(w.poll_timeout().unwrap().since(now) <= Micros::from_ms(100));
    }

    #[test]
    fn retry_after_lengthens_the_backoff() {
        let mut w = changes();
        let (id, _) = fetch(&mut w, at(0));
        w.handle_failure(at(0), id, Some(Micros::from_ms(3_000)));
        assert_eq!(w.poll_timeout(), Some(at(3_000)));
    }

    #[test]
    fn a_polled_store_is_read_less_often_while_nothing_changes() {
        let config = WatchConfig::poll(Micros::from_ms(5_000), Micros::from_ms(2_000));
        let mut w = Watcher::new(config, 3, at(0));
        let (id, _) = fetch(&mut w, at(0));
        w.handle_state(at(0), id, view(2, Some("a")));
        w.handle_done(at(0), id);
        assert_eq!(drain(&mut w), vec![WatchOutput::Report(view(2, Some("a")))]);
        assert_eq!(w.poll_timeout(), Some(at(100)));
        let mut now = at(100);
        let mut last_wait = Micros::ZERO;
        for _ in 0..6 {
            let (id, _) = fetch(&mut w, now);
            w.handle_state(now, id, view(2, Some("a")));
            w.handle_done(now, id);
            let next = w.poll_timeout().unwrap();
            last_wait = next.since(now);
            now = next;
        }
        assert!(last_wait >= Micros::from_ms(1_000) && last_wait <= Micros::from_ms(2_000));
        let (id, _) = fetch(&mut w, now);
        w.handle_state(now, id, view(3, None));
        w.handle_done(now, id);
        assert_eq!(w.poll_timeout(), Some(now.plus(Micros::from_ms(100))));
    }

    #[test]
    fn stop_abandons_the_fetch_and_reports_nothing_more() {
        let mut w = changes();
        let (id, _) = fetch(&mut w, at(0));
        w.stop();
        assert_eq!(drain(&mut w), vec![WatchOutput::Abandon(id)]);
        w.handle_state(at(1), id, view(2, Some("a")));
        w.handle_timeout(at(10));
        assert_eq!(drain(&mut w), vec![]);
        assert_eq!(w.poll_timeout(), None);
    }
}
