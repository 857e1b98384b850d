//! The grantor adapters' rules: what the state of a store that is no tenure grantor (etcd, Consul,
//! Kubernetes Lease objects, Redis) means in the protocol's terms, and what to ask of it.
//!
//! Sans-IO, like [`crate::rules`]: the WebAssembly binding (`src/wasm/adapters`) reads the
//! stores' replies, decides through these functions and does the IO.

use crate::protocol::RenewRefusal;

/// A duration in whole seconds for a store that counts whole seconds (etcd's TTL, Kubernetes'
/// `leaseDurationSeconds`, Consul's session TTL): rounded up, so the holder is never granted less
/// than it asked for.
pub fn whole_seconds(duration_ms: u64) -> u64 {
    duration_ms.div_ceil(1000)
}

/// etcd: leases on keys whose create revision is the fencing token.
pub mod etcd {
    /// etcd refuses longer leases (`MaxLeaseTTL`), in seconds.
    pub const MAX_TTL_SECONDS: i64 = 9_000_000_000;

    /// The wait a denial reports, given what the holder's lease has left as etcd's timetolive
    /// says it: whole seconds, truncated, so the grant ends within the next second after it; a
    /// lease that has run out (-1) is deleted by etcd's next expiry sweep, twice a second.
    pub fn denial_wait_ms(left_s: i64) -> u64 {
        if left_s >= 0 {
            (left_s as u64 + 1).saturating_mul(1000)
        } else {
            0
        }
    }

    /// How long one watch stream of a key lasts before the observer ends it and starts the
    /// next from the revision after the last one reported, in ms: a stream held open longer
    /// only meets proxies' idle timeouts.
    pub const WATCH_WINDOW_MS: u64 = 30_000;

    /// The revision a watch resumes from after the state at revision `after` was reported: the
    /// next one, so no change is missed or repeated.
    pub fn watch_start(after: u64) -> u64 {
        after.saturating_add(1)
    }

    /// Whether a watch result ends the watch as a failure: etcd cancelled it, or the revision it
    /// started from was compacted away (`compact_revision` above 0). The observer then reads the
    /// key afresh, at the store's current revision.
    pub fn watch_lost(canceled: bool, compact_revision: i64) -> bool {
        canceled || compact_revision > 0
    }

    /// Whether the JSON text `text` holds a `null`. etcd's gateway never sends one: it leaves out
    /// a field at its default instead. The adapter reads an absent field as that default (an
    /// absent TTL is 0, a lease gone), so a `null` must not pass for absent: it is a reply from
    /// something that is not etcd, and a retryable failure rather than a definitive loss.
    /// `text` must already be known to be valid JSON: outside its strings, the only letters are
    /// those of `true`, `false` and `null`, and only `null` has an `n`.
    pub fn has_null(text: &str) -> bool {
        let mut in_string = false;
        let mut escaped = false;
        for b in text.bytes() {
            match (in_string, escaped, b) {
                (true, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (true, false, b'"') => in_string = false,
                (true, false, _) => {}
                (false, _, b'"') => in_string = true,
                (false, _, b'n') => return true,
                (false, _, _) => {}
            }
        }
        false
    }
}

/// Failover between the members of a replicated store (etcd's cluster): which member a request
/// goes to, which failures send it to the next, and for how long a member that failed is tried
/// only after the others. The binding does the requests; these rules decide.
///
/// A member that answers is kept (requests stay on one member while it works, so a client does not
/// spread its load or its view of the cluster over members for nothing). A member that could not be
/// reached, timed out or answered a server error (a member without a leader, or stopping) is
/// avoided for [`AVOID_MS`](failover::AVOID_MS): tried after every member that is not, so a killed
/// member does not cost each request its connection attempt. A request is sent again to the next
/// member after such a failure only when sending it twice cannot change what the caller is told
/// ([`Effect::Repeatable`](failover::Effect)); a write that may have taken effect before its reply
/// was lost fails instead, and the caller's own retry (a new call, which reads what the first one
/// left) goes to the next member.
pub mod failover {
    use crate::core::FailureKind;

    /// How long a member that failed is tried only after the others, in ms: long enough that a
    /// killed member does not slow every request while it is down, short enough that a restarted
    /// one is back in the rotation before a lease of a few seconds runs out.
    pub const AVOID_MS: u64 = 5_000;

    /// The most members a client may be given: etcd advises clusters of 3, 5 or 7.
    pub const MAX_MEMBERS: usize = 16;

    /// What sending a request twice does.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Effect {
        /// A read, or a write whose repeat answers as the first would have (a keepalive, a revoke;
        /// a new etcd lease, whose twin only lingers unattached until its TTL): may go to the next
        /// member.
        Repeatable,
        /// A write whose repeat, after the first took effect unseen, would answer differently (a
        /// create-if-absent finds the key the first one made; a delete finds it gone): sent once.
        Once,
    }

    /// Whether a failure of `kind` says the member, not the request, is the problem: it could not
    /// be reached, did not answer in time, or answered a server error. A refusal, a rate limit
    /// (the cluster's, not a member's) or a malformed reply would be the same from any member.
    pub fn blames_member(kind: FailureKind) -> bool {
        matches!(
            kind,
            FailureKind::Unreachable | FailureKind::TimedOut | FailureKind::Server
        )
    }

    /// Which member each request goes to, and which to avoid.
    #[derive(Clone, Debug)]
    pub struct Failover {
        /// Per member: until when (ms) it is tried only after the others.
        avoid_until: Vec<u64>,
        /// The member requests go to first.
        preferred: usize,
    }

    impl Failover {
        /// Failover between `members` members (at least one), starting with the first.
        pub fn new(members: usize) -> Failover {
            Failover {
                avoid_until: vec![0; members.max(1)],
                preferred: 0,
            }
        }

        /// The members to try for one request at `now_ms`, each once, in order: the preferred
        /// one, then the others in turn after it; those avoided at `now_ms` after all the rest,
        /// the one whose avoidance ends first first. Never empty.
        pub fn order(&self, now_ms: u64) -> Vec<usize> {
            let count = self.avoid_until.len();
            let key = |i: usize| match self.avoid_until[i] {
                until if until > now_ms => until,
                _ => 0,
            };
            // An insertion sort, stable: members not avoided keep their turn, ahead of every
            // avoided one. (A handful of members; the library's sort would weigh more.)
            let mut order: Vec<usize> = Vec::with_capacity(count);
            for i in (0..count).map(|turn| (self.preferred + turn) % count) {
                let at = order.iter().position(|&j| key(j) > key(i));
                order.insert(at.unwrap_or(order.len()), i);
            }
            order
        }

        /// Member `index` answered (a reply, or a failure that does not blame it): it is kept.
        pub fn answered(&mut self, index: usize) {
            if let Some(until) = self.avoid_until.get_mut(index) {
                *until = 0;
                self.preferred = index;
            }
        }

        /// Member `index` failed a request of `effect` with `kind` at `now_ms`; `gave_up`: the
        /// caller's signal ended it. Whether the request may go to the next member: only when the
        /// failure blames the member, the request is repeatable and the caller still waits. A
        /// member the caller gave up on is avoided all the same: it did not answer in the time
        /// the caller had.
        pub fn failed(
            &mut self,
            index: usize,
            kind: FailureKind,
            effect: Effect,
            gave_up: bool,
            now_ms: u64,
        ) -> bool {
            let count = self.avoid_until.len();
            if index >= count {
                return false;
            }
            if !blames_member(kind) {
                self.answered(index);
                return false;
            }
            self.avoid_until[index] = now_ms.saturating_add(AVOID_MS);
            if self.preferred == index {
                self.preferred = (index + 1) % count;
            }
            effect == Effect::Repeatable && !gave_up
        }
    }
}

/// Consul: TTL sessions locking KV keys; the key's `LockIndex` is the fencing token.
pub mod consul {
    use super::{whole_seconds, RenewRefusal};

    /// The shortest session TTL, Consul's default `session_ttl_min`, in seconds.
    pub const MIN_TTL_S: u64 = 10;
    /// The longest session TTL, Consul's `SessionTTLMax`, in seconds.
    pub const MAX_TTL_S: u64 = 86_400;
    /// The longest lock-delay Consul keeps, in ms.
    pub const MAX_LOCK_DELAY_MS: u64 = 60_000;

    /// The session TTL for a lease of `duration_ms`: whole seconds, rounded up and clamped into
    /// Consul's range. The reply says what was granted.
    pub fn session_ttl_s(duration_ms: u64) -> u64 {
        whole_seconds(duration_ms).clamp(MIN_TTL_S, MAX_TTL_S)
    }

    /// A lock key as read: whether a session holds it, its `LockIndex`, and the holder its value
    /// names (if this adapter wrote it).
    #[derive(Clone, Copy, Debug)]
    pub struct Key<'a> {
        /// A session holds the key.
        pub locked: bool,
        /// The key's `LockIndex`.
        pub lock_index: u64,
        /// The holder recorded in the key's value.
        pub owner: Option<&'a str>,
    }

    /// How long a blocking query on the lock key waits for a change, in seconds (`?wait=30s`):
    /// under the 60 s idle timeout of common proxies.
    pub const BLOCKING_WAIT_S: u64 = 30;

    /// How long one blocking query may take, in ms: the wait, the up to `wait / 16` Consul adds
    /// to it as jitter, and the request's own `timeout_ms`.
    pub fn blocking_timeout_ms(timeout_ms: u64) -> u64 {
        let wait_ms = BLOCKING_WAIT_S * 1000;
        wait_ms + wait_ms / 16 + timeout_ms
    }

    /// The index the next blocking query waits from, after a reply with `X-Consul-Index`
    /// `returned` to a query that waited from `previous` (0 for a plain read). `None` when the
    /// index went backwards (a deleted and recreated key, a restored snapshot, a server that lost
    /// its state): Consul's documentation says to reset to 0, so nothing of that reply is
    /// trusted and the watch resynchronises from a plain read. An index of 0 (a Consul bug the
    /// documentation warns of, which would make every query return at once) waits from 1.
    pub fn next_index(previous: u64, returned: u64) -> Option<u64> {
        (returned >= previous).then_some(returned.max(1))
    }

    /// The watch version of a key's state: from its `LockIndex`, the fencing token, as the
    /// protocol numbers its states ([`watch_version`](crate::protocol::watch_version)): every
    /// acquisition raises it and an unlock makes it odd. Not `X-Consul-Index`, which is only the
    /// blocking query's cursor: it moves for writes that change no holder and may go backwards.
    pub fn key_version(key: Option<Key<'_>>) -> u64 {
        key.map_or(crate::protocol::watch_version(0, false), |key| {
            crate::protocol::watch_version(key.lock_index, key.locked)
        })
    }

    /// Why `holder` cannot renew or release grant `token` given the key (`None`: no such key);
    /// `None` if it can.
    pub fn refusal(key: Option<Key<'_>>, holder: &str, token: u64) -> Option<RenewRefusal> {
        let Some(key) = key else {
            return Some(RenewRefusal::Unknown); // no such key
        };
        if key.lock_index < token {
            Some(RenewRefusal::Unknown) // a token never handed out
        } else if key.lock_index > token {
            Some(RenewRefusal::NotHolder) // locked again since
        } else if !key.locked {
            Some(RenewRefusal::Expired) // the session ended and unlocked the key
        } else if key.owner != Some(holder) {
            Some(RenewRefusal::NotHolder)
        } else {
            None
        }
    }
}

/// Kubernetes: `coordination.k8s.io/v1` Lease objects; `leaseTransitions + 1` is the fencing
/// token.
pub mod kubernetes {
    use super::{whole_seconds, RenewRefusal};
    use crate::core::FailureKind;

    /// `leaseDurationSeconds` and `leaseTransitions` are int32.
    pub const MAX_INT32: u64 = (1 << 31) - 1;

    /// `leaseDurationSeconds` for a lease of `duration_ms`: whole seconds, rounded up.
    pub fn lease_seconds(duration_ms: u64) -> u64 {
        whole_seconds(duration_ms).min(MAX_INT32)
    }

    /// The fencing token of the grant a Lease with `transitions` records. A grant bumps the
    /// counter (the compare-and-swap makes each value belong to one grant); a Lease created here
    /// starts at 0, so the first token is 1.
    pub fn token(transitions: u64) -> u64 {
        transitions + 1
    }

    /// How long one watch of a Lease lasts, in seconds (`timeoutSeconds`): the API server ends
    /// it then, and the observer lists and watches again, which also re-judges the holder.
    pub const WATCH_WINDOW_S: u64 = 30;

    /// When an observer ends its watch, in ms from now: at the end of the window, or as soon as
    /// the holder it last saw runs out by the observed-expiry rule (`expires_in_ms`), since a
    /// Lease never expires by itself and no event would say so. Reading it afresh then yields
    /// the holder gone, or, if it renewed meanwhile, a later expiry.
    pub fn watch_end_ms(window_ms: u64, expires_in_ms: Option<u64>) -> u64 {
        expires_in_ms.map_or(window_ms, |left| window_ms.min(left.saturating_add(1)))
    }

    /// The watch version of a Lease's state: from its token, `leaseTransitions + 1`, as the
    /// protocol numbers its states ([`watch_version`](crate::protocol::watch_version)), so
    /// holders are reported in token order: `2 × token` while held and live by the observed
    /// expiry, `+ 1` once released, expired by observation, or deleted. `None`: no Lease (1).
    /// The opaque `resourceVersion` plays no part: it may be compared only for equality.
    pub fn lease_version(lease: Option<(u64, bool)>) -> u64 {
        lease.map_or(
            crate::protocol::watch_version(0, false),
            |(transitions, live)| crate::protocol::watch_version(token(transitions), live),
        )
    }

    /// The kind of failure a watch's HTTP status, or an `ERROR` event's `code`, stands for:
    /// 410 Gone (the resourceVersion was compacted away) is retried from a fresh list, as a
    /// server error; others by the status rule.
    pub fn watch_failure(status: u16) -> FailureKind {
        match status {
            410 => FailureKind::Server,
            other => FailureKind::for_status(other),
        }
    }

    /// Why `holder` cannot renew or release grant `token` given the Lease (its holder identity
    /// and transitions; `None`: no such Lease); `None` if it can.
    pub fn refusal(lease: Option<(&str, u64)>, holder: &str, token: u64) -> Option<RenewRefusal> {
        let Some((current, transitions)) = lease else {
            return Some(RenewRefusal::Unknown); // no such Lease
        };
        let granted = self::token(transitions);
        if granted < token {
            Some(RenewRefusal::Unknown) // a token never handed out
        } else if granted > token {
            Some(RenewRefusal::NotHolder) // granted again since
        } else if current.is_empty() {
            Some(RenewRefusal::Expired) // released, or cleared by someone
        } else if current != holder {
            Some(RenewRefusal::NotHolder)
        } else {
            None
        }
    }
}

/// Redis behind a REST endpoint: keys holding `<token>:<holder>`, tokens from a counter.
pub mod redis {
    use crate::protocol::MAX_TOKEN;

    /// A grant's stored value, `<token>:<holder>`: the token a canonical decimal in 1..2^53-1
    /// (the counter as Redis prints it), so it is exact as a number. `None` for anything else.
    pub fn grant_value(value: &str) -> Option<(u64, &str)> {
        let (digits, holder) = value.split_once(':')?;
        let canonical = !digits.is_empty()
            && digits.len() <= 16
            && !digits.starts_with('0')
            && digits.bytes().all(|b| b.is_ascii_digit());
        if !canonical {
            return None;
        }
        let token = digits
            .bytes()
            .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        (token <= MAX_TOKEN).then_some((token, holder))
    }

    /// The longest wait between two reads of a key by `observe()` while nothing changes, in ms:
    /// Redis has no change feed a REST endpoint can hold open, so an observer polls, 100 ms
    /// after a change, backing off to this while the key stays the same.
    pub const POLL_MAX_MS: u64 = 2_000;

    /// What an observer makes of a key's `value` and its fence counter `fence` (both read in one
    /// script; empty when absent): the watch version, numbered as the protocol numbers its states
    /// ([`watch_version`](crate::protocol::watch_version)) from the counter, and the grant
    /// (token, holder) if the key holds one. `None` when they cannot be told apart from a broken
    /// store: a value that is no grant, a counter that is not a token, or a grant above its
    /// counter.
    pub fn watch_state<'a>(value: &'a str, fence: &str) -> Option<(u64, Option<(u64, &'a str)>)> {
        let counter = match fence {
            "" => 0,
            digits => grant_value(&[digits, ":"].concat())?.0,
        };
        if value.is_empty() {
            return Some((crate::protocol::watch_version(counter, false), None));
        }
        let (token, holder) = grant_value(value)?;
        // The key's grant took the counter's value when it was made; a later grant replaced it.
        (token == counter).then_some((
            crate::protocol::watch_version(token, true),
            Some((token, holder)),
        ))
    }

    /// The holder a value names that some other software may have written: after a
    /// `<digits>:` prefix if it has one, else the whole value.
    pub fn named_holder(value: &str) -> &str {
        match value.split_once(':') {
            Some((digits, holder))
                if !digits.is_empty()
                    && !digits.starts_with('0')
                    && digits.bytes().all(|b| b.is_ascii_digit()) =>
            {
                holder
            }
            _ => value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::FailureKind;
    use failover::Effect::{Once, Repeatable};

    #[test]
    fn an_etcd_reply_with_a_null_anywhere_is_told_apart_from_one_that_leaves_fields_out() {
        for text in [
            r#"{"result":{"ID":"7","TTL":null}}"#,
            r#"{"kvs":[{"key":"aw==","lease":null}]}"#,
            r#"{"succeeded":null}"#,
            r#"[null]"#,
            "null",
            r#"{"a":"\"","b":null}"#,
        ] {
            assert!(etcd::has_null(text), "{text}");
        }
        for text in [
            r#"{"result":{"ID":"7"}}"#,
            r#"{"kvs":[{"key":"bnVsbA==","value":"null"}],"succeeded":true,"more":false}"#,
            r#"{"note":"a \"null\" in a string, and \\n"}"#,
            r#"{"header":{"revision":"12"}}"#,
        ] {
            assert!(!etcd::has_null(text), "{text}");
        }
    }

    #[test]
    fn an_etcd_watch_resumes_after_the_last_revision_and_is_lost_when_compacted() {
        assert_eq!(etcd::watch_start(41), 42);
        assert_eq!(etcd::watch_start(u64::MAX), u64::MAX);
        assert!(!etcd::watch_lost(false, 0));
        assert!(etcd::watch_lost(true, 0));
        assert!(etcd::watch_lost(false, 17));
    }

    #[test]
    fn durations_round_up_to_whole_seconds_within_each_store() {
        assert_eq!(whole_seconds(1), 1);
        assert_eq!(whole_seconds(2_000), 2);
        assert_eq!(whole_seconds(2_001), 3);
        assert_eq!(consul::session_ttl_s(300), consul::MIN_TTL_S);
        assert_eq!(consul::session_ttl_s(15_500), 16);
        assert_eq!(consul::session_ttl_s(2_147_483_647), consul::MAX_TTL_S);
        assert_eq!(kubernetes::lease_seconds(2_147_483_647), 2_147_484);
        assert_eq!(etcd::denial_wait_ms(0), 1_000);
        assert_eq!(etcd::denial_wait_ms(2), 3_000);
        assert_eq!(etcd::denial_wait_ms(-1), 0);
    }

    #[test]
    fn failover_keeps_a_member_that_answers_and_avoids_one_that_failed_for_a_while() {
        use failover::{Failover, AVOID_MS};
        use FailureKind::{BadRequest, Server, TimedOut, Unreachable};
        let mut members = Failover::new(3);
        assert_eq!(members.order(0), [0, 1, 2]);
        members.answered(0);
        assert_eq!(members.order(10), [0, 1, 2], "one that answers is kept");

        // 0 is killed: the next request starts at 1, and 0 comes last while avoided.
        assert!(members.failed(0, Unreachable, Repeatable, false, 100));
        assert_eq!(members.order(100), [1, 2, 0]);
        members.answered(1);
        assert_eq!(members.order(200), [1, 2, 0]);
        // 1 times out too: 2 first, then the avoided ones, the one free soonest first.
        assert!(members.failed(1, TimedOut, Repeatable, false, 300));
        assert_eq!(members.order(400), [2, 0, 1]);
        // Once 0's avoidance ends it takes its turn again, ahead of 1 (still avoided).
        assert_eq!(members.order(100 + AVOID_MS), [2, 0, 1]);
        assert!(members.failed(2, Server, Repeatable, false, 500));
        assert_eq!(
            members.order(600),
            [0, 1, 2],
            "all avoided: the one free soonest first"
        );
        assert_eq!(members.order(300 + AVOID_MS), [0, 1, 2]);
        // A member that answers is kept again, its avoidance over.
        members.answered(2);
        assert_eq!(members.order(700), [2, 0, 1]);

        // A failure that does not blame the member (a refusal) keeps it, and is not sent on.
        let mut members = Failover::new(3);
        assert!(members.failed(0, Unreachable, Repeatable, false, 0));
        assert!(!members.failed(1, BadRequest, Repeatable, false, 10));
        assert_eq!(members.order(20), [1, 2, 0]);
        // Out of range: nothing changes.
        assert!(!members.failed(7, Unreachable, Repeatable, false, 30));
        members.answered(7);
        assert_eq!(members.order(40), [1, 2, 0]);
        assert_eq!(Failover::new(0).order(0), [0], "never empty");
    }

    #[test]
    fn failover_sends_on_only_what_may_be_sent_twice_and_only_while_the_caller_waits() {
        use failover::{blames_member, Failover};
        use FailureKind::*;
        for kind in [Unreachable, TimedOut, Server] {
            assert!(blames_member(kind), "{kind:?}");
            let mut members = Failover::new(3);
            assert!(members.failed(0, kind, Repeatable, false, 0), "{kind:?}");
            // A write that may have taken effect is not sent again; the member is avoided all
            // the same, so the caller's own retry goes to the next one.
            assert!(!members.failed(1, kind, Once, false, 0), "{kind:?}");
            assert_eq!(members.order(1), [2, 0, 1]);
            // The caller gave up (its signal): nothing more is sent, the member is avoided.
            let mut members = Failover::new(3);
            assert!(!members.failed(0, kind, Repeatable, true, 0), "{kind:?}");
            assert_eq!(members.order(1), [1, 2, 0]);
        }
        for kind in [
            RateLimited,
            BadRequest,
            Malformed,
            WrongReply,
            TokenRegressed,
            TooLate,
        ] {
            assert!(!blames_member(kind), "{kind:?}");
            let mut members = Failover::new(2);
            assert!(!members.failed(0, kind, Repeatable, false, 0), "{kind:?}");
            assert_eq!(members.order(1), [0, 1], "{kind:?}");
        }
    }

    #[test]
    fn a_consul_key_refuses_whoever_does_not_hold_that_grant() {
        use consul::{refusal, Key};
        use RenewRefusal::{Expired, NotHolder, Unknown};
        let key = |locked, lock_index, owner| {
            Some(Key {
                locked,
                lock_index,
                owner,
            })
        };
        assert_eq!(refusal(None, "h", 1), Some(Unknown));
        assert_eq!(refusal(key(true, 3, Some("h")), "h", 4), Some(Unknown));
        assert_eq!(refusal(key(true, 5, Some("h")), "h", 4), Some(NotHolder));
        assert_eq!(refusal(key(false, 4, Some("h")), "h", 4), Some(Expired));
        assert_eq!(refusal(key(true, 4, Some("x")), "h", 4), Some(NotHolder));
        assert_eq!(refusal(key(true, 4, None), "h", 4), Some(NotHolder));
        assert_eq!(refusal(key(true, 4, Some("h")), "h", 4), None);
    }

    #[test]
    fn a_consul_watch_resynchronises_when_the_index_goes_backwards() {
        use consul::{blocking_timeout_ms, key_version, next_index, Key};
        assert_eq!(next_index(0, 120), Some(120));
        assert_eq!(next_index(120, 120), Some(120), "a wait that ran out");
        assert_eq!(next_index(120, 135), Some(135));
        assert_eq!(next_index(135, 90), None, "backwards: resynchronise");
        assert_eq!(next_index(0, 0), Some(1), "never 0, which would not block");
        assert_eq!(blocking_timeout_ms(10_000), 30_000 + 1_875 + 10_000);
        let key = |locked, lock_index| {
            Some(Key {
                locked,
                lock_index,
                owner: None,
            })
        };
        let versions = [
            key_version(None),
            key_version(key(true, 1)),
            key_version(key(false, 1)),
            key_version(key(true, 2)),
            key_version(key(false, 2)),
        ];
        assert_eq!(versions, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_kubernetes_lease_refuses_whoever_does_not_hold_that_grant() {
        use kubernetes::{refusal, token};
        use RenewRefusal::{Expired, NotHolder, Unknown};
        assert_eq!(token(0), 1);
        assert_eq!(refusal(None, "h", 1), Some(Unknown));
        assert_eq!(refusal(Some(("h", 2)), "h", 4), Some(Unknown));
        assert_eq!(refusal(Some(("h", 4)), "h", 4), Some(NotHolder));
        assert_eq!(refusal(Some(("", 3)), "h", 4), Some(Expired));
        assert_eq!(refusal(Some(("x", 3)), "h", 4), Some(NotHolder));
        assert_eq!(refusal(Some(("h", 3)), "h", 4), None);
    }

    #[test]
    fn a_kubernetes_watch_numbers_states_by_token_and_ends_at_the_observed_expiry() {
        use kubernetes::{lease_version, watch_end_ms, watch_failure};
        let versions = [
            lease_version(None),
            lease_version(Some((0, true))),
            lease_version(Some((0, false))),
            lease_version(Some((1, true))),
            lease_version(Some((1, false))),
        ];
        assert_eq!(versions, [1, 2, 3, 4, 5]);
        assert_eq!(watch_end_ms(30_000, None), 30_000);
        assert_eq!(watch_end_ms(30_000, Some(1_200)), 1_201);
        assert_eq!(watch_end_ms(30_000, Some(90_000)), 30_000);
        assert_eq!(watch_failure(410), crate::core::FailureKind::Server);
        assert_eq!(watch_failure(403), crate::core::FailureKind::BadRequest);
        assert_eq!(watch_failure(503), crate::core::FailureKind::Server);
    }

    #[test]
    fn redis_values_name_token_and_holder() {
        use redis::{grant_value, named_holder};
        assert_eq!(grant_value("7:worker:7:eu"), Some((7, "worker:7:eu")));
        assert_eq!(
            grant_value("9007199254740991:a"),
            Some((9_007_199_254_740_991, "a"))
        );
        for bad in [
            "9007199254740992:a",
            "07:a",
            "0:a",
            ":a",
            "7",
            "x:a",
            "-1:a",
            "99999999999999999:a",
        ] {
            assert_eq!(grant_value(bad), None, "{bad}");
        }
        assert_eq!(named_holder("7:x"), "x");

        use redis::watch_state;
        assert_eq!(watch_state("", ""), Some((1, None)));
        assert_eq!(watch_state("", "4"), Some((9, None)));
        assert_eq!(watch_state("4:a", "4"), Some((8, Some((4, "a")))));
        assert_eq!(
            watch_state("4:a", "5"),
            None,
            "a grant the counter has passed"
        );
        assert_eq!(watch_state("5:a", "4"), None, "a grant above its counter");
        assert_eq!(watch_state("held-by-some-lock", "4"), None);
        assert_eq!(watch_state("", "04"), None);
        assert_eq!(named_holder("held-by-some-lock"), "held-by-some-lock");
        assert_eq!(named_holder("07:x"), "07:x");
    }
}
