use super::*;
use crate::core::tab::{LogRecord, Notice};

const MS: u64 = 1_000;
const WALL0: u64 = 1_700_000_000_000_000;
const LEASE: Micros = Micros::from_ms(5_000);

fn at(ms: u64) -> Now {
    Now::from_micros(ms * MS, WALL0 + ms * MS)
}

fn entry(seq: u64, holder: &str, epoch: u64, kind: EntryKind) -> LogEntry {
    LogEntry {
        seq,
        record: LogRecord {
            holder: holder.to_owned(),
            epoch,
            kind,
            lease: Some(LEASE),
            locks: true,
            takeover: false,
            to: None,
        },
    }
}

fn written(seq: u64, holder: &str, epoch: u64, kind: EntryKind) -> Notice {
    Notice::Written(entry(seq, holder, epoch, kind))
}

/// The changes reported since the last call, as `(holder, epoch)`, and the read asked for, if
/// any.
fn drain(watch: &mut TabWatch) -> (Vec<(Option<String>, u64)>, Option<IoId>) {
    let mut changes = Vec::new();
    let mut read = None;
    while let Some(output) = watch.poll_output() {
        match output {
            TabWatchOutput::Change(change) => changes.push((change.holder, change.epoch)),
            TabWatchOutput::ReadLog(id) => read = Some(id),
        }
    }
    (changes, read)
}

fn held(tab: &str, epoch: u64) -> (Option<String>, u64) {
    (Some(tab.to_owned()), epoch)
}

fn nobody(epoch: u64) -> (Option<String>, u64) {
    (None, epoch)
}

/// A watch started at 0 ms whose first read found `first`.
fn started(first: Option<LogEntry>) -> (TabWatch, Vec<(Option<String>, u64)>) {
    let mut watch = TabWatch::new(LEASE);
    watch.start(at(0));
    let (_, read) = drain(&mut watch);
    watch.handle_read(at(1), read.unwrap(), Ok(first));
    let (changes, _) = drain(&mut watch);
    (watch, changes)
}

#[test]
fn tab_ids_are_the_instance_before_its_engine() {
    assert_eq!(tab_id_of("tab-0a1b.c2d3"), "tab-0a1b");
    assert_eq!(tab_id_of("tab-0a1b"), "tab-0a1b");
    assert_eq!(tab_id_of(""), "");
}

#[test]
fn the_first_read_reports_the_snapshot() {
    let (watch, changes) = started(None);
    assert_eq!(changes, vec![nobody(0)]);
    assert_eq!(watch.holder().unwrap().holder, None);

    let (watch, changes) = started(Some(entry(4, "tab-a.1", 2, EntryKind::Beat)));
    assert_eq!(changes, vec![held("tab-a", 2)]);
    assert_eq!(watch.holder().unwrap().epoch, 2);
    assert_eq!(watch.holder().unwrap().since, at(1).wall);

    let (_, changes) = started(Some(entry(5, "tab-a.1", 2, EntryKind::Release)));
    assert_eq!(changes, vec![nobody(2)]);
}

#[test]
fn nothing_is_reported_before_the_first_read_or_notice() {
    let mut watch = TabWatch::new(LEASE);
    watch.start(at(0));
    assert_eq!(watch.holder(), None);
    assert_eq!(watch.poll_timeout(), None, "the read is in flight");
}

#[test]
fn each_new_epoch_is_reported_once_and_heartbeats_are_not() {
    let (mut watch, _) = started(Some(entry(1, "tab-a.1", 1, EntryKind::Grant)));
    watch.handle_notice(at(10), written(2, "tab-a.1", 1, EntryKind::Beat));
    watch.handle_notice(at(20), written(3, "tab-a.1", 1, EntryKind::Release));
    watch.handle_notice(at(30), written(4, "tab-b.1", 2, EntryKind::Grant));
    watch.handle_notice(at(40), written(5, "tab-b.1", 2, EntryKind::Beat));
    let (changes, read) = drain(&mut watch);
    assert_eq!(changes, vec![nobody(1), held("tab-b", 2)]);
    assert_eq!(read, None);
}

#[test]
fn a_late_or_reordered_notice_never_reports_an_older_holder() {
    let (mut watch, _) = started(None);
    watch.handle_notice(at(10), written(3, "tab-b.1", 2, EntryKind::Grant));
    // Epoch 1's notices arrive after epoch 2's.
    watch.handle_notice(at(11), written(1, "tab-a.1", 1, EntryKind::Grant));
    watch.handle_notice(at(12), written(2, "tab-a.1", 1, EntryKind::Release));
    let (changes, _) = drain(&mut watch);
    assert_eq!(changes, vec![held("tab-b", 2)]);
    assert_eq!(watch.holder().unwrap().holder.as_deref(), Some("tab-b"));
}

#[test]
fn a_read_overtaken_by_a_notice_is_ignored() {
    let mut watch = TabWatch::new(LEASE);
    watch.start(at(0));
    let (_, read) = drain(&mut watch);
    watch.handle_notice(at(1), written(7, "tab-b.1", 3, EntryKind::Grant));
    // The read was answered before that grant was written.
    watch.handle_read(
        at(2),
        read.unwrap(),
        Ok(Some(entry(6, "tab-a.1", 2, EntryKind::Beat))),
    );
    let (changes, _) = drain(&mut watch);
    assert_eq!(changes, vec![held("tab-b", 3)]);
}

#[test]
fn missed_notices_are_caught_up_from_the_log() {
    let (mut watch, _) = started(Some(entry(1, "tab-a.1", 1, EntryKind::Grant)));
    // Nothing heard: once the newest entry outlived its lease, the watch reads the log.
    let due = watch.poll_timeout().unwrap();
    assert_eq!(due, MonoTime(MS + LEASE.0 + 1));
    watch.handle_timeout(at(3_000));
    assert_eq!(drain(&mut watch).1, None, "not yet");
    watch.handle_timeout(at(5_002));
    let (_, read) = drain(&mut watch);
    // Meanwhile tab-b took over, and released, and tab-c holds: the newest is reported, once.
    watch.handle_read(
        at(5_003),
        read.unwrap(),
        Ok(Some(entry(9, "tab-c.1", 4, EntryKind::Beat))),
    );
    let (changes, _) = drain(&mut watch);
    assert_eq!(changes, vec![held("tab-c", 4)]);
}

#[test]
fn a_holder_whose_entry_outlived_its_lease_is_reported_gone_after_a_read_confirms_it() {
    let (mut watch, _) = started(Some(entry(1, "tab-a.1", 1, EntryKind::Grant)));
    watch.handle_notice(at(1_000), written(2, "tab-a.1", 1, EntryKind::Beat));
    // The holder froze: no more heartbeats. Its newest entry expires 5 s after it was first
    // seen, as the election judges it.
    assert_eq!(watch.poll_timeout(), Some(MonoTime(6_000 * MS + 1)));
    watch.handle_timeout(Now::from_micros(6_000 * MS + 1, WALL0 + 6_000 * MS + 1));
    let (changes, read) = drain(&mut watch);
    assert!(changes.is_empty(), "not before the log confirms it");
    watch.handle_read(
        at(6_002),
        read.unwrap(),
        Ok(Some(entry(2, "tab-a.1", 1, EntryKind::Beat))),
    );
    let (changes, _) = drain(&mut watch);
    assert_eq!(changes, vec![nobody(1)]);
    // Then another tab takes over.
    watch.handle_notice(at(6_010), written(3, "tab-b.1", 2, EntryKind::Grant));
    assert_eq!(drain(&mut watch).0, vec![held("tab-b", 2)]);
}

#[test]
fn a_heartbeat_found_at_expiry_keeps_the_holder() {
    let (mut watch, _) = started(Some(entry(1, "tab-a.1", 1, EntryKind::Grant)));
    watch.handle_timeout(at(5_002));
    let (_, read) = drain(&mut watch);
    // Its heartbeats' notices were lost, but the log has them.
    watch.handle_read(
        at(5_003),
        read.unwrap(),
        Ok(Some(entry(6, "tab-a.1", 1, EntryKind::Beat))),
    );
    let (changes, _) = drain(&mut watch);
    assert!(changes.is_empty());
    assert_eq!(watch.poll_timeout(), Some(MonoTime(10_003 * MS + 1)));
}

#[test]
fn a_hold_judged_expired_that_writes_again_is_reported_held_again() {
    let (mut watch, _) = started(Some(entry(1, "tab-a.1", 1, EntryKind::Grant)));
    watch.handle_timeout(at(5_002));
    let (_, read) = drain(&mut watch);
    watch.handle_read(
        at(5_003),
        read.unwrap(),
        Ok(Some(entry(1, "tab-a.1", 1, EntryKind::Grant))),
    );
    assert_eq!(drain(&mut watch).0, vec![nobody(1)]);
    // Its heartbeat was only late.
    watch.handle_notice(at(5_010), written(2, "tab-a.1", 1, EntryKind::Beat));
    assert_eq!(drain(&mut watch).0, vec![held("tab-a", 1)]);
    // Its release is final: nothing newer of that epoch is reported held again.
    watch.handle_notice(at(5_020), written(3, "tab-a.1", 1, EntryKind::Release));
    watch.handle_notice(at(5_030), written(4, "tab-a.1", 1, EntryKind::Beat));
    assert_eq!(drain(&mut watch).0, vec![nobody(1)]);
}

#[test]
fn a_leaving_notice_ends_only_the_hold_it_names() {
    let (mut watch, _) = started(Some(entry(3, "tab-a.1", 2, EntryKind::Beat)));
    watch.handle_notice(
        at(10),
        Notice::Leaving {
            holder: "tab-a.1".to_owned(),
            epoch: 1,
        },
    );
    watch.handle_notice(
        at(11),
        Notice::Leaving {
            holder: "tab-b.1".to_owned(),
            epoch: 2,
        },
    );
    assert!(drain(&mut watch).0.is_empty());
    watch.handle_notice(
        at(12),
        Notice::Leaving {
            holder: "tab-a.1".to_owned(),
            epoch: 2,
        },
    );
    assert_eq!(drain(&mut watch).0, vec![nobody(2)]);
    // Its heartbeat in flight lands afterwards: a page that left is not taken back.
    watch.handle_notice(at(13), written(4, "tab-a.1", 2, EntryKind::Beat));
    assert!(drain(&mut watch).0.is_empty());
}

#[test]
fn a_failed_read_is_retried_after_the_poll_wait_and_an_idle_log_is_polled() {
    let mut watch = TabWatch::new(LEASE);
    watch.start(at(0));
    let (_, read) = drain(&mut watch);
    watch.handle_read(at(1), read.unwrap(), Err(()));
    assert_eq!(watch.holder(), None);
    assert_eq!(watch.poll_timeout(), Some(MonoTime(5_001 * MS)));
    watch.handle_timeout(at(5_001));
    let (_, read) = drain(&mut watch);
    watch.handle_read(
        at(5_002),
        read.unwrap(),
        Ok(Some(entry(2, "tab-a.1", 1, EntryKind::Release))),
    );
    assert_eq!(drain(&mut watch).0, vec![nobody(1)]);
    // Nobody holds: the log is read again after a lease, and again after each read.
    watch.handle_timeout(at(10_003));
    let (_, read) = drain(&mut watch);
    watch.handle_read(
        at(10_004),
        read.unwrap(),
        Ok(Some(entry(2, "tab-a.1", 1, EntryKind::Release))),
    );
    assert_eq!(watch.poll_timeout(), Some(MonoTime(15_004 * MS)));
}

#[test]
fn check_reads_at_once_and_answers_of_other_reads_are_ignored() {
    let (mut watch, _) = started(Some(entry(1, "tab-a.1", 1, EntryKind::Grant)));
    watch.check(at(100));
    let (_, read) = drain(&mut watch);
    let read = read.unwrap();
    watch.check(at(101));
    assert_eq!(drain(&mut watch).1, None, "one read at a time");
    watch.handle_read(
        at(102),
        IoId(read.0 + 7),
        Ok(Some(entry(9, "tab-c.1", 5, EntryKind::Grant))),
    );
    assert!(drain(&mut watch).0.is_empty());
    watch.handle_read(
        at(103),
        read,
        Ok(Some(entry(2, "tab-b.1", 2, EntryKind::Grant))),
    );
    assert_eq!(drain(&mut watch).0, vec![held("tab-b", 2)]);
}

#[cfg(feature = "mutations")]
#[test]
fn the_mutant_reports_an_older_holder_after_a_newer_one() {
    let (watch, _) = started(None);
    let mut watch = watch.with_mutation(Some(TabWatchMutation::AcceptsAnyNotice));
    watch.handle_notice(at(10), written(3, "tab-b.1", 2, EntryKind::Grant));
    watch.handle_notice(at(11), written(1, "tab-a.1", 1, EntryKind::Grant));
    assert_eq!(
        drain(&mut watch).0,
        vec![held("tab-b", 2), held("tab-a", 1)]
    );
}
