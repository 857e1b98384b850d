//! Calls into the active tab: which hold a call goes to, when it fails, and which reply counts.
//!
//! A tab calls the active tab by name ([`TabCalls`]); the request names the epoch of the hold it
//! was sent to, and:
//! - a call is sent only to a hold its tab's watch ([`TabWatch`](super::TabWatch)) reports live,
//!   once; made while nobody holds the role, it waits for the next hold, until its deadline;
//! - the active tab runs a request only while it holds that very epoch ([`TabCalls::serves`]),
//!   and answers it only if it still does when the handler is done;
//! - a reply counts only for a call still pending and sent to the reply's epoch: a reply from a
//!   superseded hold, a second reply, or one for a call that already failed is refused;
//! - a call sent to a hold that ends (the watch reports its end or a newer hold) before a reply
//!   came fails at once with [`CallFailure::LeaderChanged`], which the caller may retry: the
//!   handler may or may not have run on that leader, and never runs twice on one;
//! - a call still pending at its deadline fails with [`CallFailure::Timeout`].

use super::time::{Micros, MonoTime, Now};

/// How long a call waits for a hold and its reply when the caller names no timeout.
pub const DEFAULT_CALL_TIMEOUT: Micros = Micros::from_ms(10_000);

/// How long a handover waits for the named tab to confirm it is a candidate of the name before
/// refusing, without stepping down. Messages between tabs are not throttled, even in hidden tabs.
pub const HANDOFF_PROBE_TIMEOUT: Micros = Micros::from_ms(1_000);

/// Deliberately broken variants of the calls. They take effect only in builds with the
/// `mutations` feature, where the simulation uses them to prove that it catches each bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallMutation {
    /// A call sent to a hold stays pending when the watch reports that hold ended: a late
    /// reply then settles it after its caller knew the hold was over.
    KeepsCallsOnLeaderChange,
}

impl CallMutation {
    /// Every mutation, for tests that must catch them all.
    pub const ALL: [CallMutation; 1] = [CallMutation::KeepsCallsOnLeaderChange];
}

/// Why a call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallFailure {
    /// The hold it was sent to ended before it answered: retry.
    LeaderChanged,
    /// No hold answered before the deadline.
    Timeout,
}

impl CallFailure {
    /// The error code the caller sees.
    pub fn code(self) -> &'static str {
        match self {
            CallFailure::LeaderChanged => "ERR_TAB_LEADER_CHANGED",
            CallFailure::Timeout => "ERR_TAB_CALL_TIMEOUT",
        }
    }

    /// Whether the same call may succeed if made again.
    pub fn retryable(self) -> bool {
        true
    }
}

/// Something the host must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallOutput {
    /// Send the request of call `id` to the hold `epoch`.
    Send {
        /// The call.
        id: u64,
        /// The hold it goes to.
        epoch: u64,
    },
    /// Call `id` failed: reject it.
    Fail {
        /// The call.
        id: u64,
        /// Why.
        failure: CallFailure,
    },
}

#[derive(Clone, Debug)]
struct Pending {
    id: u64,
    deadline: MonoTime,
    /// The hold it was sent to, once sent.
    sent_to: Option<u64>,
}

/// One tab's calls to the active tab (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct TabCalls {
    /// The epoch of the live hold as the watch reports it.
    live: Option<u64>,
    pending: Vec<Pending>,
    outputs: Vec<CallOutput>,
    #[cfg(feature = "mutations")]
    mutation: Option<CallMutation>,
}

impl TabCalls {
    /// No calls yet, nobody known to hold the role.
    pub fn new() -> TabCalls {
        TabCalls::default()
    }

    /// Runs the deliberately broken variant `mutation`.
    #[cfg(feature = "mutations")]
    pub fn with_mutation(mut self, mutation: Option<CallMutation>) -> TabCalls {
        self.mutation = mutation;
        self
    }

    /// Whether the active tab, holding `held` (its page's own belief, now), runs a request sent
    /// to the hold `epoch`: only its own live hold.
    pub fn serves(held: Option<u64>, epoch: u64) -> bool {
        held == Some(epoch)
    }

    /// The next output to carry out.
    pub fn poll_output(&mut self) -> Option<CallOutput> {
        (!self.outputs.is_empty()).then(|| self.outputs.remove(0))
    }

    /// The earliest deadline of a pending call.
    pub fn poll_timeout(&self) -> Option<MonoTime> {
        self.pending.iter().map(|p| p.deadline).min()
    }

    /// Whether call `id` is still pending.
    pub fn is_pending(&self, id: u64) -> bool {
        self.pending.iter().any(|p| p.id == id)
    }

    /// A new call `id` (unique per caller), failing after `timeout`: sent at once to the live
    /// hold, if any, else when the next hold begins.
    pub fn call(&mut self, now: Now, id: u64, timeout: Micros) {
        self.pending.push(Pending {
            id,
            deadline: now.mono.plus(timeout),
            sent_to: None,
        });
        self.route();
    }

    /// The watch reported a change: `live` is the epoch of the live hold, `None` when the hold
    /// reported last ended. Calls sent to any other hold fail; waiting calls go to the new one.
    pub fn holder_changed(&mut self, live: Option<u64>) {
        self.live = live;
        #[cfg(feature = "mutations")]
        let keeps = self.mutation == Some(CallMutation::KeepsCallsOnLeaderChange);
        #[cfg(not(feature = "mutations"))]
        let keeps = false;
        let outputs = &mut self.outputs;
        self.pending.retain(|p| match p.sent_to {
            Some(epoch) if Some(epoch) != live && !keeps => {
                outputs.push(CallOutput::Fail {
                    id: p.id,
                    failure: CallFailure::LeaderChanged,
                });
                false
            }
            _ => true,
        });
        self.route();
    }

    /// A reply to call `id` from the hold `epoch` arrived. Returns whether it settles the call
    /// (the host resolves or rejects it with the reply's outcome); a refused reply is dropped.
    pub fn handle_reply(&mut self, id: u64, epoch: u64) -> bool {
        let Some(at) = self
            .pending
            .iter()
            .position(|p| p.id == id && p.sent_to == Some(epoch))
        else {
            return false;
        };
        self.pending.remove(at);
        true
    }

    /// The caller gave up on call `id` (its signal aborted): forget it.
    pub fn cancel(&mut self, id: u64) {
        self.pending.retain(|p| p.id != id);
    }

    /// Fails every call whose deadline passed at `now`.
    pub fn handle_timeout(&mut self, now: Now) {
        let outputs = &mut self.outputs;
        self.pending.retain(|p| {
            let due = now.mono >= p.deadline;
            if due {
                outputs.push(CallOutput::Fail {
                    id: p.id,
                    failure: CallFailure::Timeout,
                });
            }
            !due
        });
    }

    fn route(&mut self) {
        let Some(epoch) = self.live else { return };
        for pending in self.pending.iter_mut().filter(|p| p.sent_to.is_none()) {
            pending.sent_to = Some(epoch);
            self.outputs.push(CallOutput::Send {
                id: pending.id,
                epoch,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000;

    fn at(ms: u64) -> Now {
        Now::from_micros(ms * MS, 1_700_000_000_000_000 + ms * MS)
    }

    fn drain(calls: &mut TabCalls) -> Vec<CallOutput> {
        std::iter::from_fn(|| calls.poll_output()).collect()
    }

    const SECOND: Micros = Micros::from_ms(1_000);

    #[test]
    fn a_call_goes_to_the_live_hold_and_its_reply_settles_it_once() {
        let mut calls = TabCalls::new();
        calls.holder_changed(Some(3));
        calls.call(at(0), 1, SECOND);
        assert_eq!(
            drain(&mut calls),
            vec![CallOutput::Send { id: 1, epoch: 3 }]
        );
        assert!(calls.handle_reply(1, 3));
        assert!(!calls.handle_reply(1, 3), "a second reply is refused");
        assert!(!calls.is_pending(1));
        calls.handle_timeout(at(5_000));
        assert!(drain(&mut calls).is_empty());
    }

    #[test]
    fn a_call_made_while_nobody_holds_waits_for_the_next_hold_or_times_out() {
        let mut calls = TabCalls::new();
        calls.holder_changed(None);
        calls.call(at(0), 1, SECOND);
        calls.call(at(500), 2, SECOND);
        assert!(drain(&mut calls).is_empty());
        assert_eq!(calls.poll_timeout(), Some(at(1_000).mono));
        calls.handle_timeout(at(1_000));
        let failed = CallOutput::Fail {
            id: 1,
            failure: CallFailure::Timeout,
        };
        assert_eq!(drain(&mut calls), vec![failed]);
        calls.holder_changed(Some(4));
        assert_eq!(
            drain(&mut calls),
            vec![CallOutput::Send { id: 2, epoch: 4 }]
        );
        assert!(calls.handle_reply(2, 4));
    }

    #[test]
    fn a_call_in_flight_when_the_leader_changes_fails_retryably_and_its_late_reply_is_refused() {
        let mut calls = TabCalls::new();
        calls.holder_changed(Some(3));
        calls.call(at(0), 1, SECOND);
        drain(&mut calls);
        // Epoch 3 ended (released, left, or judged expired).
        calls.holder_changed(None);
        let failed = CallOutput::Fail {
            id: 1,
            failure: CallFailure::LeaderChanged,
        };
        assert_eq!(drain(&mut calls), vec![failed]);
        assert!(CallFailure::LeaderChanged.retryable());
        assert!(!calls.handle_reply(1, 3), "the superseded hold's reply");
        // A newer hold without an end in between fails it too; a retry goes to the new hold.
        calls.holder_changed(Some(4));
        calls.call(at(10), 2, SECOND);
        drain(&mut calls);
        calls.holder_changed(Some(5));
        calls.call(at(20), 3, SECOND);
        let out = drain(&mut calls);
        assert_eq!(
            out,
            vec![
                CallOutput::Fail {
                    id: 2,
                    failure: CallFailure::LeaderChanged
                },
                CallOutput::Send { id: 3, epoch: 5 }
            ]
        );
        assert!(
            !calls.handle_reply(3, 4),
            "a reply from another hold than the one routed to"
        );
        assert!(calls.handle_reply(3, 5));
    }

    #[test]
    fn the_same_hold_reported_again_keeps_its_calls() {
        let mut calls = TabCalls::new();
        calls.holder_changed(Some(3));
        calls.call(at(0), 1, SECOND);
        drain(&mut calls);
        calls.holder_changed(Some(3));
        assert!(drain(&mut calls).is_empty(), "not sent twice, not failed");
        assert!(calls.handle_reply(1, 3));
    }

    #[test]
    fn a_cancelled_call_is_forgotten() {
        let mut calls = TabCalls::new();
        calls.call(at(0), 1, SECOND);
        calls.cancel(1);
        calls.holder_changed(Some(2));
        assert!(drain(&mut calls).is_empty());
        assert_eq!(calls.poll_timeout(), None);
    }

    #[test]
    fn only_the_hold_a_request_names_serves_it() {
        assert!(TabCalls::serves(Some(3), 3));
        assert!(!TabCalls::serves(Some(4), 3));
        assert!(!TabCalls::serves(None, 3));
        assert_eq!(CallFailure::Timeout.code(), "ERR_TAB_CALL_TIMEOUT");
        assert_eq!(CallFailure::LeaderChanged.code(), "ERR_TAB_LEADER_CHANGED");
    }

    #[cfg(feature = "mutations")]
    #[test]
    fn the_mutant_keeps_a_call_whose_hold_ended() {
        let mut calls = TabCalls::new().with_mutation(Some(CallMutation::KeepsCallsOnLeaderChange));
        calls.holder_changed(Some(3));
        calls.call(at(0), 1, SECOND);
        drain(&mut calls);
        calls.holder_changed(Some(4));
        assert!(drain(&mut calls).is_empty());
        assert!(calls.handle_reply(1, 3));
    }
}
