//! Swarm testing: every seed draws its own fault mix.
//!
//! A single fixed mix explores the same corner of the state space over and over; drawing the
//! parameters per seed (which faults are on at all, how often, how large, how lossy the network
//! is) makes different seeds stress different combinations, as TigerBeetle's VOPR does with its
//! `options_swarm`.

use tenure::core::{HolderConfig, HolderOptionsMs};

use crate::rng::Rng;

const MS: u64 = 1_000;
const S: u64 = 1_000_000;

/// Every kind of scheduled fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// One holder's link to the grantor fails in one or both directions, or all holders' links.
    Partition,
    /// A holder's wall clock steps forward or back.
    WallStep,
    /// A holder's machine sleeps: monotonic clock stopped, wall clock running, process frozen.
    Suspend,
    /// A holder process is frozen while both clocks run (GC, debugger, frozen tab).
    Pause,
    /// A holder process crashes and restarts later with no memory.
    Crash,
    /// A holder's tab is hidden: its timers fire up to 60 s late.
    Hidden,
    /// A holder's clocks change rate, within the drift bound.
    Drift,
    /// The grantor restarts.
    GrantorRestart,
    /// An administrator revokes the current grant.
    Revoke,
}

impl FaultKind {
    /// Every fault kind.
    pub const ALL: [FaultKind; 9] = [
        FaultKind::Partition,
        FaultKind::WallStep,
        FaultKind::Suspend,
        FaultKind::Pause,
        FaultKind::Crash,
        FaultKind::Hidden,
        FaultKind::Drift,
        FaultKind::GrantorRestart,
        FaultKind::Revoke,
    ];
}

/// Network behaviour during the fault phase. Probabilities are per message.
#[derive(Clone, Debug)]
pub struct NetParams {
    /// Shortest one-way latency, µs.
    pub latency_min: u64,
    /// Longest ordinary one-way latency, µs; the spread is jitter, which also reorders.
    pub latency_max: u64,
    /// Probability that a message is held up much longer than usual.
    pub long_delay: f64,
    /// Range of those long delays, µs (around the renew interval, to overlap renewals).
    pub long_delay_range: (u64, u64),
    /// Probability that a message is lost.
    pub loss: f64,
    /// Probability that a message is delivered twice.
    pub duplicate: f64,
    /// Probability that the grantor applies a request and the reply is then lost.
    pub reply_lost_after_apply: f64,
    /// Whether a partition holds messages until it heals (true) or drops them.
    pub partition_holds: bool,
    /// Whether a down grantor refuses connections at once (true) or leaves them hanging.
    pub refuse_when_down: bool,
}

/// The hostile-grantor fault class. Probabilities are per reply.
#[derive(Clone, Debug)]
pub struct Hostile {
    /// A reply arrives malformed.
    pub malformed: f64,
    /// A renewal reply carries a lower token than the held one, or a grant reply a token no
    /// larger than one the holder already saw.
    pub token_regression: f64,
    /// The grantor answers 5xx without applying the request.
    pub server_error: f64,
    /// The grantor answers 429 with `Retry-After` without applying the request.
    pub rate_limited: f64,
}

/// The applications driving the holders.
#[derive(Clone, Debug)]
pub struct AppParams {
    /// Shortest think time between application actions, µs.
    pub think_min: u64,
    /// Longest think time, µs.
    pub think_max: u64,
    /// Probability that a holding application writes to the fenced resource when it acts.
    pub write: f64,
    /// Probability that a holding application releases when it acts (fault phase only).
    pub release: f64,
    /// Probability that a holding application surrenders when it acts (fault phase only).
    pub surrender: f64,
    /// Probability that an acquiring application cancels when it acts (fault phase only).
    pub cancel: f64,
    /// Probability that an acquire is a campaign rather than a single attempt.
    pub campaign: f64,
    /// Probability that the host calls `handle_timeout` spuriously when the application acts.
    pub spurious_wake: f64,
}

/// Fault frequencies and sizes.
#[derive(Clone, Debug)]
pub struct FaultParams {
    /// Mean true time between faults of each kind, µs (`None` = off), in [`FaultKind::ALL`] order.
    pub mean_interval: [Option<u64>; 9],
    /// Longest partition, µs.
    pub partition_max: u64,
    /// Largest wall-clock step, µs (either direction).
    pub wall_step_max: u64,
    /// Longest suspend, µs.
    pub suspend_max: u64,
    /// Longest pause, µs (up to ten leases).
    pub pause_max: u64,
    /// Longest time a crashed process stays down, µs.
    pub crash_down_max: u64,
    /// Longest time a tab stays hidden, µs.
    pub hidden_max: u64,
    /// Longest grantor downtime, µs.
    pub grantor_down_max: u64,
}

/// All parameters of one run.
#[derive(Clone, Debug)]
pub struct Swarm {
    /// How many holder identities compete for the resource.
    pub holders: usize,
    /// The holders' configuration (seed and mutation are set per process).
    pub config: HolderConfig,
    /// The drift bound ρ, in parts per million: every clock runs at a rate in `[1-ρ, 1+ρ]`.
    pub rho_ppm: u64,
    /// The grantor's longest grant, ms (it clamps longer requests and says so).
    pub grantor_max_ms: u64,
    /// Whether the grantor reports the duration even when it grants what was asked.
    pub grantor_reports_duration: bool,
    /// Network behaviour.
    pub net: NetParams,
    /// Hostile-grantor faults.
    pub hostile: Hostile,
    /// Applications.
    pub app: AppParams,
    /// Faults.
    pub faults: FaultParams,
    /// The fault phase ends after this many steps...
    pub fault_steps: u64,
    /// ...or at this true time, whichever comes first.
    pub fault_time: u64,
}

impl Swarm {
    /// Draws the parameters of one run.
    ///
    /// The margin is chosen as `2·ρ·lease` plus slack, so a holder whose clock runs as slow as
    /// the bound allows still stops believing before the grantor's grant ends.
    pub fn draw(rng: &mut Rng) -> Swarm {
        let holders = rng.range(2, 5) as usize;
        let lease_ms = rng.range(1_000, 20_000);
        let rho_ppm = rng.pick(&[0, 100, 1_000, 10_000, 50_000]);
        let drift_ms = (2 * lease_ms * rho_ppm).div_ceil(1_000_000);
        let margin_ms = drift_ms + rng.range(1, lease_ms / 10);
        let budget = lease_ms - margin_ms;
        let mut options = HolderOptionsMs::default();
        if rng.chance(0.4) {
            options.renew_interval_ms = Some(rng.range(lease_ms / 10, budget * 3 / 4) as f64);
        }
        let ri_ms = options.renew_interval_ms.map_or(lease_ms / 3, |v| v as u64);
        if rng.chance(0.4) {
            options.request_timeout_ms = Some(rng.range(ri_ms / 4, ri_ms * 2).max(1) as f64);
        }
        if rng.chance(0.4) {
            let base = rng.range(1, (ri_ms / 2).max(1));
            options.retry_delay_ms = Some(base as f64);
            options.retry_delay_max_ms = Some(rng.range(base, ri_ms * 2) as f64);
        }
        let config = HolderConfig::from_ms(lease_ms as f64, margin_ms as f64, options, 0)
            .expect("drawn options satisfy the configuration rules");
        let ri = config.renew_interval.0;
        let lease = lease_ms * MS;

        // A grantor that clamps below what the holder can renew in time would make every hold
        // end at its margin; real grantors are configured with a duration range that fits.
        let floor_ms = margin_ms + ri / MS + (budget - ri / MS) / 2;
        let grantor_max_ms = if rng.chance(0.3) {
            rng.range(floor_ms.min(lease_ms), lease_ms)
        } else {
            lease_ms
        };

        let latency_min = rng.range(100, 20 * MS);
        let spread = rng.pick(&[MS, 20 * MS, 200 * MS, lease / 5]);
        let net = NetParams {
            latency_min,
            latency_max: latency_min + rng.range(0, spread),
            long_delay: rng.pick(&[0.0, 0.0, 0.02, 0.1]),
            long_delay_range: (ri / 2, ri * 2),
            loss: rng.pick(&[0.0, 0.01, 0.05, 0.2]),
            duplicate: rng.pick(&[0.0, 0.02, 0.1]),
            reply_lost_after_apply: rng.pick(&[0.0, 0.05, 0.2]),
            partition_holds: rng.chance(0.5),
            refuse_when_down: rng.chance(0.5),
        };
        let hostile = Hostile {
            malformed: rng.pick(&[0.0, 0.0, 0.01, 0.05]),
            token_regression: rng.pick(&[0.0, 0.0, 0.01, 0.05]),
            server_error: rng.pick(&[0.0, 0.0, 0.02, 0.1]),
            rate_limited: rng.pick(&[0.0, 0.0, 0.02]),
        };
        let think_min = rng.range(MS, (ri / 2).max(MS));
        let app = AppParams {
            think_min,
            think_max: think_min + rng.range(0, ri),
            write: rng.pick(&[0.3, 0.8]),
            release: rng.pick(&[0.0, 0.05, 0.2]),
            surrender: rng.pick(&[0.0, 0.0, 0.02]),
            cancel: rng.pick(&[0.0, 0.0, 0.05]),
            campaign: rng.pick(&[1.0, 0.7]),
            spurious_wake: rng.pick(&[0.0, 0.1]),
        };
        let mut mean_interval = [None; 9];
        for slot in mean_interval.iter_mut() {
            if rng.chance(0.5) {
                *slot = Some(rng.range(lease, 8 * lease));
            }
        }
        let faults = FaultParams {
            mean_interval,
            partition_max: rng.range(lease / 10, 3 * lease),
            wall_step_max: rng.pick(&[lease, 3_600 * S]),
            suspend_max: rng.range(lease / 10, 10 * lease),
            pause_max: rng.range(MS, 10 * lease),
            crash_down_max: rng.range(0, 3 * lease),
            hidden_max: rng.range(lease, 10 * lease),
            grantor_down_max: rng.range(0, 2 * lease),
        };
        Swarm {
            holders,
            config,
            rho_ppm,
            grantor_max_ms,
            grantor_reports_duration: rng.chance(0.5),
            net,
            hostile,
            app,
            faults,
            fault_steps: rng.range(150, 400),
            fault_time: rng.range(4 * lease, 16 * lease),
        }
    }

    /// The longest one-way latency after healing: a quarter of the request timeout and of the
    /// time between a renewal's send and the margin, so a round trip always fits in one
    /// attempt. A network slower than that times every renewal out, which no holder survives.
    pub fn healthy_latency_max(&self) -> u64 {
        let c = &self.config;
        let renew_window = c.lease.0 - c.margin.0 - c.renew_interval.0;
        self.net
            .latency_max
            .min(c.request_timeout.0 / 4)
            .min(renew_window / 4)
    }

    /// The longest time after healing within which some holder must hold the lease.
    ///
    /// Any grant left over from the fault phase ends within one lease (a restarted grantor holds
    /// it for a full lease from the heal at most). Waiting holders then come back within their
    /// retry bound: an attempt that was in flight times out (`request_timeout`), the backoff
    /// waits at most `retry_max`, a denial's hint is followed by up to `retry_base` of spread,
    /// and an idle application acts within `think_max`. Clocks that ran up to ρ slow before the
    /// heal stretch a pending delay by at most `2·ρ·lease`; a few round trips and 10 ms of slack
    /// cover the rest.
    pub fn liveness_bound(&self) -> u64 {
        let c = &self.config;
        let drift = 2 * c.lease.0 * self.rho_ppm / 1_000_000;
        c.lease.0
            + drift
            + c.request_timeout.0
            + c.retry_max.0
            + c.retry_base.0
            + self.app.think_max
            + 4 * self.healthy_latency_max()
            + 10 * MS
    }
}
