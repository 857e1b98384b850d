//! The properties every run must keep, and how a broken one is reported.

use std::fmt;

use tenure::core::{Event, Holder, Now, Phase};

use crate::grantor::RefGrantor;

/// The checked properties. Safety ones are checked after every step; liveness ones in the
/// healed phase of each run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Invariant {
    /// 1. At any true instant, at most one holder believes it safely holds the resource.
    AtMostOneHolder,
    /// 2. A holder that believes it holds is the grantor's current holder for that token, and
    ///    the grantor's grant is unexpired at true time.
    GrantorAgrees,
    /// 3. Tokens strictly increase across a holder's holds and never decrease within one; the
    ///    fenced resource never accepts a lower token after a higher one.
    TokensIncrease,
    /// 4. Each hold ends with exactly one `Lost` or `Released`, and nothing of that hold
    ///    follows it.
    OneEndPerHold,
    /// 5. Time never goes backwards inside the core: `poll_timeout` never asks for an instant
    ///    before the latest time given, and the remaining lease never grows without a renewal.
    TimeMonotonic,
    /// 5b. After handling any input at local time `t`, a holder still `Held` is safely held at
    ///    `t`: it never keeps its hold across a step where it could have noticed expiry.
    ExpiryNoticed,
    /// 6a. After healing, some live holder holds within the liveness bound.
    EventuallyHeld,
    /// 6b. After healing, a holder that acquired or renewed keeps its lease to the end.
    HealthyHolderKeeps,
    /// The host drove the core within its rules (no usage errors, no busy loop).
    WellDriven,
}

impl Invariant {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Invariant::AtMostOneHolder => "1 at-most-one-holder",
            Invariant::GrantorAgrees => "2 grantor-agrees",
            Invariant::TokensIncrease => "3 tokens-increase",
            Invariant::OneEndPerHold => "4 one-end-per-hold",
            Invariant::TimeMonotonic => "5 time-monotonic",
            Invariant::ExpiryNoticed => "5b expiry-noticed",
            Invariant::EventuallyHeld => "6a eventually-held",
            Invariant::HealthyHolderKeeps => "6b healthy-holder-keeps",
            Invariant::WellDriven => "well-driven",
        }
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A broken invariant.
#[derive(Clone, Debug)]
pub struct Violation {
    /// Which property broke.
    pub invariant: Invariant,
    /// What exactly was seen.
    pub detail: String,
    /// True time of the step that broke it, µs.
    pub at: u64,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invariant {} broken at {}.{:06}s: {}",
            self.invariant,
            self.at / 1_000_000,
            self.at % 1_000_000,
            self.detail
        )
    }
}

/// A broken invariant and what was seen, before the time is attached.
pub type Broken = (Invariant, String);

/// What an event meant for the hold it belongs to.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventEffect {
    /// The lease was granted or renewed.
    pub refreshed: bool,
    /// A hold ended (or an acquire ended without one).
    pub ended: bool,
}

/// The per-process-incarnation state behind invariants 3, 4 and 5, shared by the simulation and
/// the model checker.
#[derive(Clone, Debug, Default, Hash, PartialEq, Eq)]
pub struct HoldTracker {
    /// The token of the open hold, from the events.
    holding: Option<u64>,
    /// The highest token of any hold of this incarnation.
    last_hold: Option<u64>,
    /// The latest monotonic reading given to the core.
    max_mono: u64,
    /// Remaining lease at the previous sample, while held.
    last_remaining: Option<u64>,
    /// Whether the lease was (re)granted since `last_remaining` was sampled.
    refreshed: bool,
}

impl HoldTracker {
    /// Records that the core was given `now`.
    pub fn saw(&mut self, now: Now) {
        self.max_mono = self.max_mono.max(now.mono.0);
    }

    /// Checks one event against the hold it belongs to (invariants 3 and 4).
    pub fn on_event(&mut self, h: usize, event: &Event) -> Result<EventEffect, Broken> {
        let mut effect = EventEffect::default();
        let mut broke = None;
        match event {
            Event::Acquired { token } => {
                let token = token.get();
                if let Some(open) = self.holding {
                    let detail = format!("h{h} acquired {token} while its hold of {open} is open");
                    broke = Some((Invariant::OneEndPerHold, detail));
                } else if self.last_hold.is_some_and(|last| token <= last) {
                    let detail = format!(
                        "h{h} acquired token {token} after already holding {:?}",
                        self.last_hold
                    );
                    broke = Some((Invariant::TokensIncrease, detail));
                }
                self.holding = Some(token);
                self.last_hold = Some(token);
                effect.refreshed = true;
            }
            Event::Renewed { token, .. } => {
                let token = token.get();
                match self.holding {
                    None => {
                        let detail = format!("h{h} renewed {token} with no hold open");
                        broke = Some((Invariant::OneEndPerHold, detail));
                    }
                    Some(open) if token < open => {
                        let detail =
                            format!("h{h} renewed with token {token} while holding {open}");
                        broke = Some((Invariant::TokensIncrease, detail));
                    }
                    Some(_) => {}
                }
                self.holding = Some(token.max(self.holding.unwrap_or(0)));
                self.last_hold = self.holding.max(self.last_hold);
                effect.refreshed = true;
            }
            Event::RenewFailed { .. } => {
                if self.holding.is_none() {
                    let detail = format!("h{h} reported a failed renewal with no hold open");
                    broke = Some((Invariant::OneEndPerHold, detail));
                }
            }
            Event::Lost { token, .. } | Event::Released { token } => {
                let token = token.get();
                if self.holding != Some(token) {
                    let detail = format!(
                        "h{h} ended a hold of {token}, but the open hold is {:?}",
                        self.holding
                    );
                    broke = Some((Invariant::OneEndPerHold, detail));
                }
                self.holding = None;
                self.last_remaining = None;
                effect.ended = true;
            }
            Event::AcquireFailed(_) => {
                if let Some(open) = self.holding {
                    let detail = format!("h{h} reported a failed acquire while holding {open}");
                    broke = Some((Invariant::OneEndPerHold, detail));
                }
                effect.ended = true;
            }
        }
        if effect.refreshed {
            self.refreshed = true;
        }
        match broke {
            Some(broken) => Err(broken),
            None => Ok(effect),
        }
    }

    /// The checks after the core handled an input at `now` and its outputs were drained:
    /// invariant 5b, `poll_timeout` against the latest time given, and the phase against the
    /// events.
    pub fn after_input(&mut self, h: usize, holder: &mut Holder, now: Now) -> Result<(), Broken> {
        let phase = holder.phase();
        if phase == Phase::Held && !holder.is_safely_held(now) {
            let detail = format!(
                "h{h} is still Held after an input at mono {}us with only {} left (margin {})",
                now.mono.0,
                holder.remaining(now),
                holder.config().margin
            );
            return Err((Invariant::ExpiryNoticed, detail));
        }
        if let Some(at) = holder.poll_timeout() {
            if at.0 < self.max_mono {
                let detail = format!(
                    "h{h} poll_timeout {}us is before the latest time given, {}us",
                    at.0, self.max_mono
                );
                return Err((Invariant::TimeMonotonic, detail));
            }
        }
        if (phase == Phase::Held) != self.holding.is_some() {
            let detail = format!(
                "h{h} phase {phase:?} but its events say the open hold is {:?}",
                self.holding
            );
            return Err((Invariant::OneEndPerHold, detail));
        }
        Ok(())
    }

    /// Samples the holder at `now` (the host reading its clocks): checks that the remaining
    /// lease never grows without a renewal, and returns the token the holder believes it safely
    /// holds, if any.
    pub fn sample(
        &mut self,
        h: usize,
        holder: &mut Holder,
        now: Now,
    ) -> Result<Option<u64>, Broken> {
        self.saw(now);
        let believes = holder.is_safely_held(now);
        if holder.phase() == Phase::Held {
            let remaining = holder.remaining(now).0;
            if let Some(previous) = self.last_remaining {
                if remaining > previous && !self.refreshed {
                    let detail = format!(
                        "h{h}'s remaining lease grew from {previous}us to {remaining}us without \
                         a renewal"
                    );
                    return Err((Invariant::TimeMonotonic, detail));
                }
            }
            self.last_remaining = Some(remaining);
            self.refreshed = false;
        } else {
            self.last_remaining = None;
        }
        if !believes {
            return Ok(None);
        }
        let token = holder.lease().token().map(|t| t.get());
        Ok(token)
    }
}

/// Invariants 1 and 2 at true time `now`, given each running holder's belief. A holder whose
/// token was revoked keeps believing until it hears of it; that overlap is what fencing is for,
/// so it is exempt here (invariant 3 still covers its writes).
pub fn check_beliefs(
    grantor: &RefGrantor,
    now: u64,
    beliefs: &[(usize, u64)],
) -> Result<(), Broken> {
    let mut believers = 0;
    for &(h, token) in beliefs {
        if grantor.is_revoked(token) {
            continue;
        }
        grantor
            .backs(now, h, token)
            .map_err(|detail| (Invariant::GrantorAgrees, detail))?;
        believers += 1;
    }
    if believers > 1 {
        let detail = format!("holders (id, token) {beliefs:?} all believe they hold");
        return Err((Invariant::AtMostOneHolder, detail));
    }
    Ok(())
}
