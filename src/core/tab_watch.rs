//! Who holds a tab role, as every tab of the name sees it, candidate or not: [`TabWatch`].
//!
//! A watch reads the same log and hears the same notices as the election
//! ([`TabElection`](super::TabElection)), and reports each change of holder once, in epoch
//! order:
//! - a change is reported only for an epoch newer than the last one reported, or for the end of
//!   the hold last reported (its epoch, held by nobody); a notice or read about an older entry
//!   (a late or reordered message, a read that was overtaken) is ignored, so a watch never
//!   reports a holder older than one it reported;
//! - a hold ends when its release is logged, when its page says it is leaving, or when its
//!   newest entry counts as expired by the same [observed-expiry rule](super::observed) the
//!   election judges a takeover by, confirmed by a fresh read of the log (the moment another
//!   tab may take over, not later);
//! - a hold reported ended by expiry whose holder then writes again (its heartbeat was only
//!   late) is reported held again: the same epoch, never an older one;
//! - a watch that missed notices (a lost message, a frozen page, no BroadcastChannel at all)
//!   reads the log whenever the newest entry it knows has outlived its lease, and at once on
//!   [`TabWatch::check`] (the host calls it when the page resumes or becomes visible).
//!
//! Sans-IO like the election: call an input with the current [`Now`], carry out every
//! [`TabWatchOutput`], arm one timer for [`TabWatch::poll_timeout`].

use super::observed::Observer;
use super::tab::{EntryKind, IoId, LogEntry, Notice};
use super::time::{Micros, MonoTime, Now, WallTime};

/// Deliberately broken variants of the watch. They take effect only in builds with the
/// `mutations` feature, where the simulation uses them to prove that it catches each bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TabWatchMutation {
    /// Every entry heard or read is taken as the newest, whatever its slot: a late or reordered
    /// notice reports an older holder after a newer one.
    AcceptsAnyNotice,
}

impl TabWatchMutation {
    /// Every mutation, for tests that must catch them all.
    pub const ALL: [TabWatchMutation; 1] = [TabWatchMutation::AcceptsAnyNotice];
}

/// The tab id in a candidate's log `instance`: the part before the first `.` (a candidate is
/// `<tab id>.<engine>`, fresh per engine; entries written before tab ids existed are their own
/// id).
pub fn tab_id_of(instance: &str) -> &str {
    // A byte search: `split` would bring the pattern machinery into the WebAssembly module.
    let end = instance
        .bytes()
        .position(|b| b == b'.')
        .unwrap_or(instance.len());
    instance.get(..end).unwrap_or(instance)
}

/// A change of who holds the role, as reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HolderChange {
    /// The holding tab's id ([`tab_id_of`]); `None`: nobody holds it.
    pub holder: Option<String>,
    /// The epoch of the hold that began, or that ended when `holder` is `None` (0: never held).
    pub epoch: u64,
    /// When this watch learned of the change, by its wall clock.
    pub since: WallTime,
}

/// Something the host must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TabWatchOutput {
    /// Read the newest log entry; feed it to [`TabWatch::handle_read`].
    ReadLog(IoId),
    /// Tell the page.
    Change(HolderChange),
}

/// How the hold last reported ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// Released, or its page left: final.
    Released,
    /// Judged expired: its holder may still write again, if its heartbeat was only late.
    Expired,
}

/// What the newest entry taken says.
#[derive(Clone, Debug)]
struct Current {
    holder: String,
    epoch: u64,
    live: bool,
}

/// One tab's view of who holds a role (see the module documentation).
#[derive(Clone, Debug)]
pub struct TabWatch {
    /// Judges the newest entry's expiry, by its slot.
    observer: Observer<u64>,
    /// The wait between two reads when nothing new was heard.
    poll: Micros,
    /// The slot of the newest entry taken (0: the empty log).
    newest: Option<u64>,
    current: Option<Current>,
    /// The last change reported, and how it ended if it is an end.
    reported: Option<(HolderChange, Option<End>)>,
    reading: Option<IoId>,
    read_at: Option<MonoTime>,
    next_id: u64,
    /// A handful at most: a `Vec` costs the module less than another `VecDeque`.
    outputs: Vec<TabWatchOutput>,
    #[cfg(feature = "mutations")]
    mutation: Option<TabWatchMutation>,
}

impl TabWatch {
    /// A watch that judges entries without a lease of their own by `lease`, and reads the log at
    /// least every `lease` while it hears nothing. [`start`](TabWatch::start) it.
    pub fn new(lease: Micros) -> TabWatch {
        TabWatch {
            observer: Observer::new(lease),
            poll: lease,
            newest: None,
            current: None,
            reported: None,
            reading: None,
            read_at: None,
            next_id: 0,
            outputs: Vec::new(),
            #[cfg(feature = "mutations")]
            mutation: None,
        }
    }

    /// Runs the deliberately broken variant `mutation`.
    #[cfg(feature = "mutations")]
    pub fn with_mutation(mut self, mutation: Option<TabWatchMutation>) -> TabWatch {
        self.mutation = mutation;
        self
    }

    #[inline(always)]
    fn mutated(&self, mutation: TabWatchMutation) -> bool {
        #[cfg(feature = "mutations")]
        return self.mutation == Some(mutation);
        #[cfg(not(feature = "mutations"))]
        {
            let _ = mutation;
            false
        }
    }

    /// The last change reported: who holds the role now, as far as this watch knows; `None`
    /// before the first read of the log answered.
    pub fn holder(&self) -> Option<&HolderChange> {
        self.reported.as_ref().map(|(change, _)| change)
    }

    /// The next output to carry out, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<TabWatchOutput> {
        (!self.outputs.is_empty()).then(|| self.outputs.remove(0))
    }

    /// When to call [`handle_timeout`](TabWatch::handle_timeout) next, on the monotonic clock;
    /// `None` while a read is in flight.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        if self.reading.is_some() {
            return None;
        }
        self.read_at
    }

    /// Starts watching: reads the log.
    pub fn start(&mut self, now: Now) {
        self.observer.remaining(now);
        self.read();
    }

    /// Resynchronises now (the page resumed, was restored or became visible: notices may have
    /// been missed): reads the log unless a read is in flight.
    pub fn check(&mut self, now: Now) {
        self.handle_timeout(now);
        self.read();
    }

    /// A notice heard on the channel.
    pub fn handle_notice(&mut self, now: Now, notice: Notice) {
        match notice {
            Notice::Written(entry) => self.take(now, Some(&entry)),
            Notice::Leaving { holder, epoch } => {
                let leaving = self.current.as_mut().filter(|current| {
                    current.live && current.holder == holder && current.epoch == epoch
                });
                if let Some(current) = leaving {
                    current.live = false;
                    self.offer(now, None, epoch, Some(End::Released));
                }
            }
        }
    }

    /// The outcome of [`TabWatchOutput::ReadLog`] `id`: the newest entry (`None`: the log is
    /// empty), or `Err(())` when storage failed (read again after the poll wait).
    pub fn handle_read(&mut self, now: Now, id: IoId, outcome: Result<Option<LogEntry>, ()>) {
        if self.reading != Some(id) {
            return;
        }
        self.reading = None;
        let Ok(entry) = outcome else {
            self.read_at = Some(now.mono.plus(self.poll));
            return;
        };
        let before = self.newest;
        self.take(now, entry.as_ref());
        if self.newest != before {
            return;
        }
        // Nothing newer in the log than what this watch knows: a hold whose newest entry has
        // outlived its lease is over (another tab may take over now).
        let expired = self.observer.is_expired(now);
        if let Some(current) = self.current.as_mut().filter(|c| c.live && expired) {
            current.live = false;
            let epoch = current.epoch;
            self.offer(now, None, epoch, Some(End::Expired));
        }
        self.read_at = Some(now.mono.plus(self.poll));
    }

    /// Reads the log if the newest entry known has outlived its lease, or the wait is over.
    pub fn handle_timeout(&mut self, now: Now) {
        let mono = now.mono;
        self.observer.remaining(now);
        if self.read_at.is_some_and(|at| mono >= at) {
            self.read();
        }
    }

    fn read(&mut self) {
        if self.reading.is_some() {
            return;
        }
        let id = IoId(self.next_id);
        self.next_id += 1;
        self.reading = Some(id);
        self.read_at = None;
        self.outputs.push(TabWatchOutput::ReadLog(id));
    }

    /// Takes `entry` (`None`: the empty log) if it is newer than every entry taken so far.
    fn take(&mut self, now: Now, entry: Option<&LogEntry>) {
        let seq = entry.map_or(0, |e| e.seq);
        let any = self.mutated(TabWatchMutation::AcceptsAnyNotice);
        if self.newest.is_some_and(|newest| seq <= newest) && !any {
            return;
        }
        self.newest = Some(seq);
        self.observer
            .observe(now, seq, entry.and_then(|e| e.record.lease));
        // Read again once this entry outlived its lease, unless something newer comes first.
        self.read_at = self.observer.expires_at();
        let Some(entry) = entry else {
            return self.offer(now, None, 0, None);
        };
        let record = &entry.record;
        let live = record.kind != EntryKind::Release;
        self.current = Some(Current {
            holder: record.holder.clone(),
            epoch: record.epoch,
            live,
        });
        if live {
            let holder = tab_id_of(&record.holder).to_owned();
            self.offer(now, Some(holder), record.epoch, None);
        } else {
            self.offer(now, None, record.epoch, Some(End::Released));
        }
    }

    /// Reports that `holder` holds `epoch` (`None`: nobody; `end` says how it ended), if that
    /// is a change this watch may report (see the module documentation).
    fn offer(&mut self, now: Now, holder: Option<String>, epoch: u64, end: Option<End>) {
        let any = self.mutated(TabWatchMutation::AcceptsAnyNotice);
        let report = match &mut self.reported {
            None => true,
            Some((last, _)) if any => last.holder != holder || last.epoch != epoch,
            Some((last, last_end)) => {
                if epoch == last.epoch && holder.is_none() && last.holder.is_none() {
                    // Confirmed over (a release after an expiry): final now, nothing to report.
                    if end == Some(End::Released) {
                        *last_end = end;
                    }
                }
                epoch > last.epoch
                    || (epoch == last.epoch
                        && match (&last.holder, &holder) {
                            (Some(_), None) => true,
                            (None, Some(_)) => *last_end == Some(End::Expired),
                            _ => false,
                        })
            }
        };
        if !report {
            return;
        }
        let change = HolderChange {
            holder,
            epoch,
            since: now.wall,
        };
        self.reported = Some((change.clone(), end));
        self.outputs.push(TabWatchOutput::Change(change));
    }
}

#[cfg(test)]
#[path = "tab_watch_tests.rs"]
mod tests;
