//! The event log: a hash of every event (for the determinism check) and the last few hundred
//! events in readable form (for failure reports).

use std::collections::VecDeque;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use tenure::core::{AcquireFailure, Event, LossReason, Reply, RequestKind};
use tenure::protocol::{GrantOutcome, RenewOutcome};

/// How many events a failure report shows, unless `TENURE_SIM_TRACE_TAIL` says otherwise.
pub const TRACE_TAIL: usize = 200;

fn tail_len() -> usize {
    static LEN: OnceLock<usize> = OnceLock::new();
    *LEN.get_or_init(|| {
        std::env::var("TENURE_SIM_TRACE_TAIL")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(TRACE_TAIL)
    })
}

/// A request or write as the trace shows it.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, PartialOrd, Ord)]
pub enum Req {
    /// Grant request.
    Grant,
    /// Renew request with the held token.
    Renew(u64),
    /// Release of a token.
    Release(u64),
}

impl Req {
    /// Summarises a core request.
    pub fn of(kind: &RequestKind) -> Req {
        match kind {
            RequestKind::Grant { .. } => Req::Grant,
            RequestKind::Renew { token, .. } => Req::Renew(token.get()),
            RequestKind::Release { token, .. } => Req::Release(token.get()),
        }
    }
}

/// A reply as the trace shows it.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, PartialOrd, Ord)]
pub enum Answer {
    /// Granted with a token and, if reported, a duration in ms.
    Granted(u64, Option<u64>),
    /// Denied, with the hint in ms.
    Denied(Option<u64>),
    /// Renewed with a token.
    Renewed(u64),
    /// Renewal refused.
    Refused(&'static str),
    /// Failed attempt.
    Failed(&'static str),
}

impl Answer {
    /// Summarises a core reply.
    pub fn of(reply: &Reply) -> Answer {
        match reply {
            Reply::Grant(GrantOutcome::Granted { token, duration_ms }) => {
                Answer::Granted(token.get(), *duration_ms)
            }
            Reply::Grant(GrantOutcome::Denied { expires_in_ms, .. }) => {
                Answer::Denied(*expires_in_ms)
            }
            Reply::Renew(RenewOutcome::Renewed { token, .. }) => Answer::Renewed(token.get()),
            Reply::Renew(RenewOutcome::Refused(r)) => Answer::Refused(r.as_str()),
            Reply::Failed(f) => Answer::Failed(f.kind.as_str()),
        }
    }
}

/// An application-visible core event as the trace shows it.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Ev {
    /// Acquired a token.
    Acquired(u64),
    /// An acquire ended without a lease.
    AcquireFailed(&'static str),
    /// Renewed, with the token and round trip in µs.
    Renewed(u64, u64),
    /// A renewal attempt failed.
    RenewFailed(u32, &'static str),
    /// The hold ended without the application asking.
    Lost(u64, &'static str),
    /// The application released the hold.
    Released(u64),
}

impl Ev {
    /// Summarises a core event.
    pub fn of(event: &Event) -> Ev {
        match event {
            Event::Acquired { token } => Ev::Acquired(token.get()),
            Event::AcquireFailed(f) => Ev::AcquireFailed(match f {
                AcquireFailure::Denied { .. } => "denied",
                AcquireFailure::Failed(failure) => failure.kind.as_str(),
                AcquireFailure::Cancelled => "cancelled",
            }),
            Event::Renewed { token, rtt } => Ev::Renewed(token.get(), rtt.0),
            Event::RenewFailed {
                consecutive,
                failure,
            } => Ev::RenewFailed(*consecutive, failure.kind.as_str()),
            Event::Lost { token, reason } => Ev::Lost(
                token.get(),
                match reason {
                    LossReason::Surrendered(_) => "surrendered",
                    LossReason::MarginExhausted => "margin_exhausted",
                    LossReason::Refused(r) => r.as_str(),
                    LossReason::TokenRegressed { .. } => "token_regressed",
                    LossReason::HandedOff => "handed_off",
                },
            ),
            Event::Released { token } => Ev::Released(token.get()),
        }
    }
}

/// One thing that happened in a run.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub enum Note {
    /// The configuration of the run.
    Start,
    /// The fault phase ended: network, clocks and processes are healthy from here on.
    Heal,
    /// A fault began.
    Fault(&'static str, Option<usize>, i64),
    /// A holder process sent a request.
    Send(usize, u64, Req),
    /// A holder wrote to the fenced resource (sent).
    WriteSent(usize, u64),
    /// A holder abandoned a request (the host aborts it, which cannot unsend it).
    Abandoned(usize, u64),
    /// A message was lost, and why.
    Dropped(usize, &'static str),
    /// The grantor answered a request (`true` if it replayed a cached outcome).
    Applied(usize, u64, Req, Option<Answer>, bool),
    /// A reply was corrupted by the hostile grantor.
    Corrupted(usize, u64, Answer),
    /// A reply reached a holder process.
    Delivered(usize, u64, Answer),
    /// A holder emitted an event.
    Event(usize, Ev),
    /// A holder's timer fired at this monotonic reading.
    Timer(usize, u64),
    /// The application acted.
    App(usize, &'static str),
    /// The fenced resource judged a write.
    Write(usize, u64, bool),
    /// A paused or suspended process runs again.
    Resumed(usize),
    /// A crashed process restarted as this incarnation.
    Restarted(usize, u32),
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Start => write!(f, "start"),
            Note::Heal => write!(f, "== heal: faults end, liveness phase begins =="),
            Note::Fault(what, Some(h), arg) => write!(f, "FAULT {what} h{h} ({arg})"),
            Note::Fault(what, None, arg) => write!(f, "FAULT {what} ({arg})"),
            Note::Send(h, id, req) => write!(f, "h{h} -> grantor #{id} {req:?}"),
            Note::WriteSent(h, token) => write!(f, "h{h} -> resource write token {token}"),
            Note::Abandoned(h, id) => write!(f, "h{h} abandons #{id}"),
            Note::Dropped(h, why) => write!(f, "net drops message of h{h}: {why}"),
            Note::Applied(h, id, req, answer, replayed) => {
                let replay = if *replayed { " (replayed)" } else { "" };
                match answer {
                    Some(a) => write!(f, "grantor h{h} #{id} {req:?} => {a:?}{replay}"),
                    None => write!(f, "grantor h{h} #{id} {req:?} applied{replay}"),
                }
            }
            Note::Corrupted(h, id, a) => write!(f, "hostile grantor: reply to h{h} #{id} => {a:?}"),
            Note::Delivered(h, id, a) => write!(f, "h{h} <- #{id} {a:?}"),
            Note::Event(h, ev) => write!(f, "h{h} event {ev:?}"),
            Note::Timer(h, mono) => write!(f, "h{h} timer fires at mono {mono}us"),
            Note::App(h, what) => write!(f, "h{h} app: {what}"),
            Note::Write(h, token, ok) => {
                let verdict = if *ok { "accepted" } else { "rejected" };
                write!(f, "resource: write by h{h} token {token} {verdict}")
            }
            Note::Resumed(h) => write!(f, "h{h} resumes"),
            Note::Restarted(h, inc) => write!(f, "h{h} restarts as incarnation {inc}"),
        }
    }
}

/// FNV-1a, so the event-log hash is the same on every platform and Rust version.
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The event log of one run.
#[derive(Clone, Debug)]
pub struct Trace {
    tail: VecDeque<(u64, Note)>,
    capacity: usize,
    hash: u64,
    count: u64,
}

impl Default for Trace {
    fn default() -> Trace {
        Trace {
            tail: VecDeque::new(),
            capacity: tail_len(),
            hash: 0xcbf2_9ce4_8422_2325,
            count: 0,
        }
    }
}

impl Trace {
    /// Records `note` at true time `now`.
    pub fn note(&mut self, now: u64, note: Note) {
        let mut hasher = Fnv(self.hash);
        now.hash(&mut hasher);
        note.hash(&mut hasher);
        self.hash = hasher.finish();
        self.count += 1;
        if self.tail.len() >= self.capacity {
            self.tail.pop_front();
        }
        self.tail.push_back((now, note));
    }

    /// The hash of every event so far.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// How many events were recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The last events, one per line, with true time in seconds.
    pub fn render_tail(&self) -> String {
        let mut out = String::new();
        let skipped = self.count - self.tail.len() as u64;
        if skipped > 0 {
            out.push_str(&format!("  ... {skipped} earlier events\n"));
        }
        for (t, note) in &self.tail {
            out.push_str(&format!(
                "  {:>5}.{:06}s  {note}\n",
                t / 1_000_000,
                t % 1_000_000
            ));
        }
        out
    }
}
