//! Duration advice: whether a holder's `leaseMs` and `marginMs` are safe for what its stats
//! observed, and what to use next time.
//!
//! The margin must cover a renewal's round trip, the lateness of the timer that sends it and the
//! clock uncertainty; the time from a renewal falling due to the margin (the renewal budget) must
//! fit two such attempts (one may fail), and more than the slowest renewal actually took. The
//! configuration is validated by [`HolderConfig::from_ms`]'s rules, since it is the holder's.
//! Pure functions over numbers: figures arrive in milliseconds, as the package reports them.

use super::config::{
    default_renew_interval_ms, lease_ms_for_budget, ConfigError, HolderConfig, HolderOptionsMs,
};

/// Suggestions leave this much room over the observed percentiles: a window is not the tail.
const HEADROOM: f64 = 1.5;
/// Suggested durations are rounded up to a multiple of this.
const ROUND_MS: f64 = 50.0;
/// Default rate difference between the holder's and the grantor's clocks: 1000 ppm.
const DEFAULT_DRIFT: f64 = 0.001;

/// The configuration the stats were measured with, validated: build it with
/// [`AdviceConfig::from_ms`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdviceConfig {
    lease_ms: f64,
    margin_ms: f64,
    renew_interval_ms: f64,
    /// Whether the configuration fixes `renewIntervalMs` (else it follows the lease).
    fixed_interval: bool,
    clock_uncertainty_ms: f64,
}

impl AdviceConfig {
    /// Validates the holder's `leaseMs`, `marginMs` and optional `renewIntervalMs` by the
    /// holder's rules, and `clockUncertaintyMs` (default 0.1% of `leaseMs`). Errors name the
    /// field.
    pub fn from_ms(
        lease_ms: f64,
        margin_ms: f64,
        renew_interval_ms: Option<f64>,
        clock_uncertainty_ms: Option<f64>,
    ) -> Result<AdviceConfig, ConfigError> {
        let options = HolderOptionsMs {
            renew_interval_ms,
            ..HolderOptionsMs::default()
        };
        // The holder's own rules judge the configuration; the holder itself is not needed.
        HolderConfig::from_ms(lease_ms, margin_ms, options, 0)?;
        let clock_uncertainty_ms = match clock_uncertainty_ms {
            None => lease_ms * DEFAULT_DRIFT,
            Some(ms) if ms.is_finite() && ms >= 0.0 => ms,
            Some(_) => {
                return Err(ConfigError::new(
                    "clockUncertaintyMs",
                    "must be a finite number of at least 0",
                ))
            }
        };
        Ok(AdviceConfig {
            lease_ms,
            margin_ms,
            renew_interval_ms: renew_interval_ms.unwrap_or(default_renew_interval_ms(lease_ms)),
            fixed_interval: renew_interval_ms.is_some(),
            clock_uncertainty_ms,
        })
    }
}

/// What a holder's `stats()` reported, as numbers. `None` is a figure that is absent (`null` or
/// missing); a figure present but not a number is NaN, which fails validation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ObservedStats {
    /// `samples`: successful renewals in the percentile window.
    pub samples: Option<f64>,
    /// `timerSamples`: renewal timers measured for lateness.
    pub timer_samples: Option<f64>,
    /// `renewRttP99Ms`; required when there are samples.
    pub renew_rtt_p99_ms: Option<f64>,
    /// `timerLatenessP99Ms`; required when there are timer samples, else 0 when absent.
    pub timer_lateness_p99_ms: Option<f64>,
    /// `marginLowWaterMs`: the least time left when a renewal succeeded. Optional: stats
    /// gathered elsewhere may lack it, and then only the percentiles count.
    pub margin_low_water_ms: Option<f64>,
    /// `lossReasons.margin_exhausted` (0 when absent); `None` when `lossReasons` is not a record
    /// of counts.
    pub margin_losses: Option<f64>,
}

/// One finding against the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdviceProblem {
    /// No renewal has succeeded yet: nothing to judge by.
    NoSamples,
    /// `marginMs` is below renewal RTT p99 + timer lateness p99 + clock uncertainty.
    MarginTooSmall,
    /// The renewal budget cannot fit two attempts at those percentiles.
    LeaseTooShort,
    /// A renewal succeeded with less than one more attempt's time left before the margin.
    RenewalNearMargin,
    /// Holds were lost at the margin.
    MarginLosses,
}

impl AdviceProblem {
    /// The stable code the package reports.
    pub fn code(self) -> &'static str {
        match self {
            AdviceProblem::NoSamples => "no_samples",
            AdviceProblem::MarginTooSmall => "margin_too_small",
            AdviceProblem::LeaseTooShort => "lease_too_short",
            AdviceProblem::RenewalNearMargin => "renewal_near_margin",
            AdviceProblem::MarginLosses => "margin_losses",
        }
    }
}

/// The figures a verdict used, in ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdviceBasis {
    /// Renewal RTT p99, if reported.
    pub renew_rtt_p99_ms: Option<f64>,
    /// Timer lateness p99 (0 without timer samples).
    pub timer_lateness_p99_ms: f64,
    /// How far the clocks may disagree over one lease.
    pub clock_uncertainty_ms: f64,
    /// The holder's renewal interval.
    pub renew_interval_ms: f64,
    /// RTT p99 + timer lateness p99 + clock uncertainty; `None` without samples.
    pub required_margin_ms: Option<f64>,
    /// `leaseMs - marginMs - renewIntervalMs`: from a renewal falling due to the margin.
    pub renewal_budget_ms: f64,
    /// Two attempts, or the slowest renewal seen plus one; `None` without samples.
    pub required_budget_ms: Option<f64>,
}

/// The verdict: safe when there are no problems; suggestions equal the configuration then.
#[derive(Clone, Debug, PartialEq)]
pub struct DurationAdvice {
    /// What is wrong, in a stable order; empty when safe.
    pub problems: Vec<AdviceProblem>,
    /// `leaseMs` for the next run.
    pub suggested_lease_ms: f64,
    /// `marginMs` for the next run.
    pub suggested_margin_ms: f64,
    /// The figures used.
    pub basis: AdviceBasis,
    /// One renewal attempt: RTT p99 + timer lateness p99 (0 without samples).
    pub attempt_ms: f64,
    /// Holds lost at the margin, as reported.
    pub margin_losses: f64,
}

impl DurationAdvice {
    /// True when the configuration covers the observed figures.
    pub fn safe(&self) -> bool {
        self.problems.is_empty()
    }
}

fn stats_error(field: &'static str, problem: &'static str) -> ConfigError {
    ConfigError::new(field, problem)
}

/// A count: absent is 0; else a whole number of at least 0.
fn count(value: Option<f64>, field: &'static str) -> Result<f64, ConfigError> {
    match value.unwrap_or(0.0) {
        v if v.is_finite() && v >= 0.0 && v == v.trunc() => Ok(v),
        _ => Err(stats_error(field, "must be a whole number of at least 0")),
    }
}

/// A figure in ms: may be absent unless `required`; when given, finite and at least 0.
fn sample(
    value: Option<f64>,
    required: bool,
    field: &'static str,
) -> Result<Option<f64>, ConfigError> {
    match value {
        None if !required => Ok(None),
        Some(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
        _ => Err(stats_error(
            field,
            "must be a finite number of at least 0 when there are samples",
        )),
    }
}

fn round_up(ms: f64) -> f64 {
    (ms / ROUND_MS).ceil() * ROUND_MS
}

/// Judges `config` against `stats` and suggests durations that fix what it flags: the margin
/// with 50% headroom over what it must cover, the lease long enough for the suggested margin and
/// 50% headroom over the required renewal budget (keeping a fixed `renewIntervalMs`), both
/// rounded up to 50 ms and never below the current values. Errors name the bad field of `stats`.
pub fn advise_duration(
    stats: &ObservedStats,
    config: &AdviceConfig,
) -> Result<DurationAdvice, ConfigError> {
    let samples = count(stats.samples, "stats.samples")?;
    let timer_samples = count(stats.timer_samples, "stats.timerSamples")?;
    let margin_losses = stats
        .margin_losses
        .ok_or_else(|| stats_error("stats.lossReasons", "must be an object of counts"))?;
    let rtt_p99_ms = sample(stats.renew_rtt_p99_ms, samples > 0.0, "stats.renewRttP99Ms")?;
    let timer_p99_ms = sample(
        stats.timer_lateness_p99_ms,
        timer_samples > 0.0,
        "stats.timerLatenessP99Ms",
    )?
    .unwrap_or(0.0);
    let low_water_ms = sample(stats.margin_low_water_ms, false, "stats.marginLowWaterMs")?;
    if low_water_ms.is_some_and(|ms| ms > config.lease_ms) {
        return Err(stats_error(
            "stats.marginLowWaterMs",
            "exceeds leaseMs: pass the configuration the stats were measured with",
        ));
    }
    let mut basis = AdviceBasis {
        renew_rtt_p99_ms: rtt_p99_ms,
        timer_lateness_p99_ms: timer_p99_ms,
        clock_uncertainty_ms: config.clock_uncertainty_ms,
        renew_interval_ms: config.renew_interval_ms,
        required_margin_ms: None,
        renewal_budget_ms: config.lease_ms - config.margin_ms - config.renew_interval_ms,
        required_budget_ms: None,
    };
    let unchanged = |problems, basis, attempt_ms| DurationAdvice {
        problems,
        suggested_lease_ms: config.lease_ms,
        suggested_margin_ms: config.margin_ms,
        basis,
        attempt_ms,
        margin_losses,
    };
    // With samples, the RTT p99 is present (validated above).
    let Some(rtt_p99_ms) = rtt_p99_ms.filter(|_| samples > 0.0) else {
        return Ok(unchanged(vec![AdviceProblem::NoSamples], basis, 0.0));
    };

    let attempt_ms = rtt_p99_ms + timer_p99_ms;
    let required_margin_ms = attempt_ms + config.clock_uncertainty_ms;
    // How long past its due time the slowest renewal took to succeed, retries included.
    let observed_delay_ms =
        low_water_ms.map_or(0.0, |low| config.lease_ms - low - config.renew_interval_ms);
    let required_budget_ms = (2.0 * attempt_ms).max(observed_delay_ms + attempt_ms);
    basis.required_margin_ms = Some(required_margin_ms);
    basis.required_budget_ms = Some(required_budget_ms);

    let mut problems = Vec::new();
    if config.margin_ms < required_margin_ms {
        problems.push(AdviceProblem::MarginTooSmall);
    }
    if basis.renewal_budget_ms < 2.0 * attempt_ms {
        problems.push(AdviceProblem::LeaseTooShort);
    }
    if low_water_ms.is_some_and(|low| low - config.margin_ms < attempt_ms) {
        problems.push(AdviceProblem::RenewalNearMargin);
    }
    if margin_losses > 0.0 {
        problems.push(AdviceProblem::MarginLosses);
    }
    if problems.is_empty() {
        return Ok(unchanged(problems, basis, attempt_ms));
    }

    let suggested_margin_ms = if config.margin_ms < required_margin_ms {
        round_up(required_margin_ms * HEADROOM)
    } else {
        config.margin_ms
    };
    let fixed_interval_ms = config.fixed_interval.then_some(config.renew_interval_ms);
    let needed_lease_ms = lease_ms_for_budget(
        suggested_margin_ms,
        required_budget_ms * HEADROOM,
        fixed_interval_ms,
    );
    Ok(DurationAdvice {
        problems,
        suggested_lease_ms: config.lease_ms.max(round_up(needed_lease_ms)),
        suggested_margin_ms,
        basis,
        attempt_ms,
        margin_losses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One sample window's worth of figures, as the package's tests use.
    fn observed() -> ObservedStats {
        ObservedStats {
            samples: Some(100.0),
            timer_samples: Some(100.0),
            renew_rtt_p99_ms: Some(20.0),
            timer_lateness_p99_ms: Some(5.0),
            margin_low_water_ms: Some(975.0),
            margin_losses: Some(0.0),
        }
    }

    fn config(lease_ms: f64, margin_ms: f64) -> AdviceConfig {
        AdviceConfig::from_ms(lease_ms, margin_ms, None, None).unwrap()
    }

    fn advise(stats: ObservedStats, config: AdviceConfig) -> DurationAdvice {
        advise_duration(&stats, &config).unwrap()
    }

    fn config_field(
        lease_ms: f64,
        margin_ms: f64,
        renew_interval_ms: Option<f64>,
        clock_ms: Option<f64>,
    ) -> &'static str {
        AdviceConfig::from_ms(lease_ms, margin_ms, renew_interval_ms, clock_ms)
            .unwrap_err()
            .field
    }

    fn stats_field(stats: ObservedStats) -> &'static str {
        advise_duration(&stats, &config(1_500.0, 300.0))
            .unwrap_err()
            .field
    }

    #[test]
    fn a_configuration_covering_the_figures_is_safe_and_kept() {
        let advice = advise(observed(), config(1_500.0, 300.0));
        assert!(advice.safe());
        assert_eq!(advice.suggested_lease_ms, 1_500.0);
        assert_eq!(advice.suggested_margin_ms, 300.0);
        assert_eq!(advice.basis.renew_interval_ms, 500.0);
        assert_eq!(advice.basis.renewal_budget_ms, 700.0);
        assert_eq!(advice.basis.clock_uncertainty_ms, 1.5, "0.1% of leaseMs");
        assert_eq!(advice.basis.required_margin_ms, Some(26.5));
        assert_eq!(advice.basis.required_budget_ms, Some(50.0));
        assert_eq!(advice.attempt_ms, 25.0);
    }

    #[test]
    fn a_small_margin_is_flagged_and_the_suggestion_fixes_it() {
        let stats = ObservedStats {
            renew_rtt_p99_ms: Some(250.0),
            timer_lateness_p99_ms: Some(100.0),
            margin_low_water_ms: None,
            ..observed()
        };
        let measured = AdviceConfig::from_ms(3_000.0, 300.0, None, Some(20.0)).unwrap();
        let advice = advise(stats, measured);
        assert_eq!(advice.problems, [AdviceProblem::MarginTooSmall]);
        assert_eq!(advice.basis.required_margin_ms, Some(370.0));
        // 370 * 1.5 = 555, rounded up to 600.
        assert_eq!(advice.suggested_margin_ms, 600.0);
        let next = AdviceConfig::from_ms(
            advice.suggested_lease_ms,
            advice.suggested_margin_ms,
            None,
            Some(20.0),
        )
        .unwrap();
        assert!(advise(stats, next).safe());
    }

    #[test]
    fn a_margin_exactly_at_the_requirement_is_enough() {
        let stats = ObservedStats {
            margin_low_water_ms: None,
            ..observed()
        };
        let exact = AdviceConfig::from_ms(1_500.0, 26.0, None, Some(1.0)).unwrap();
        assert!(advise(stats, exact).safe());
        let short = AdviceConfig::from_ms(1_500.0, 25.5, None, Some(1.0)).unwrap();
        assert_eq!(
            advise(stats, short).problems,
            [AdviceProblem::MarginTooSmall]
        );
    }

    #[test]
    fn a_budget_short_of_two_attempts_asks_for_a_longer_lease() {
        // 1000 - 300 - 333 = 367 ms from a renewal falling due to the margin; two attempts: 480.
        let stats = ObservedStats {
            renew_rtt_p99_ms: Some(180.0),
            timer_lateness_p99_ms: Some(60.0),
            margin_low_water_ms: None,
            ..observed()
        };
        let advice = advise(stats, config(1_000.0, 300.0));
        assert_eq!(advice.problems, [AdviceProblem::LeaseTooShort]);
        assert_eq!(advice.suggested_margin_ms, 300.0);
        // 1.5 * (300 + 480 * 1.5) = 1530, rounded up to 1550.
        assert_eq!(advice.suggested_lease_ms, 1_550.0);
        let again = advise(stats, config(advice.suggested_lease_ms, 300.0));
        assert!(again.safe(), "{:?}", again.problems);
        assert!(again.basis.renewal_budget_ms >= 2.0 * 240.0 * 1.5 - 1.0);
    }

    #[test]
    fn a_fixed_renewal_interval_is_kept_when_lengthening() {
        let stats = ObservedStats {
            renew_rtt_p99_ms: Some(180.0),
            timer_lateness_p99_ms: Some(60.0),
            margin_low_water_ms: None,
            ..observed()
        };
        let fixed = |lease_ms| AdviceConfig::from_ms(lease_ms, 300.0, Some(500.0), None).unwrap();
        let advice = advise(stats, fixed(1_000.0));
        assert_eq!(advice.problems, [AdviceProblem::LeaseTooShort]);
        // 300 + 500 + 720 = 1520, rounded up to 1550.
        assert_eq!(advice.suggested_lease_ms, 1_550.0);
        let again = advise(stats, fixed(advice.suggested_lease_ms));
        assert!(again.safe(), "{:?}", again.problems);
        assert_eq!(again.basis.renew_interval_ms, 500.0);
    }

    #[test]
    fn the_default_interval_is_the_holders() {
        for lease_ms in [1_000.0, 1_500.0, 6_170.209_6, 2_147_483_647.0] {
            let holder =
                HolderConfig::from_ms(lease_ms, 1.0, HolderOptionsMs::default(), 0).unwrap();
            let interval_ms = default_renew_interval_ms(lease_ms);
            assert!((interval_ms - holder.renew_interval.as_ms_f64()).abs() < 0.001);
        }
    }

    #[test]
    fn the_lease_inverse_agrees_with_the_holders_default_interval() {
        for (margin_ms, budget_ms) in [(300.0, 720.0), (100.0, 1.0), (1_000.0, 12_345.0)] {
            let lease_ms = lease_ms_for_budget(margin_ms, budget_ms, None);
            let holder =
                HolderConfig::from_ms(lease_ms, margin_ms, HolderOptionsMs::default(), 0).unwrap();
            let left_ms = lease_ms - margin_ms - holder.renew_interval.as_ms_f64();
            assert!(
                (left_ms - budget_ms).abs() < 0.001,
                "{left_ms} for {budget_ms}"
            );
        }
    }

    #[test]
    fn a_renewal_within_one_attempt_of_the_margin_is_flagged() {
        let stats = ObservedStats {
            margin_low_water_ms: Some(320.0),
            ..observed()
        };
        let advice = advise(stats, config(1_500.0, 300.0));
        assert_eq!(advice.problems, [AdviceProblem::RenewalNearMargin]);
        // It took 1500 - 320 - 500 = 680 ms past its due time, plus one attempt: 705.
        assert_eq!(advice.basis.required_budget_ms, Some(705.0));
        let longer_ms = advice.suggested_lease_ms;
        let slowest_again = ObservedStats {
            margin_low_water_ms: Some(320.0 + (longer_ms - 1_500.0) * (2.0 / 3.0)),
            ..observed()
        };
        let again = advise(slowest_again, config(longer_ms, 300.0));
        assert!(again.safe(), "{:?}", again.problems);
        // One attempt's time left over the margin is enough.
        let at_edge = ObservedStats {
            margin_low_water_ms: Some(325.0),
            ..observed()
        };
        assert!(!advise(at_edge, config(1_500.0, 300.0))
            .problems
            .contains(&AdviceProblem::RenewalNearMargin));
    }

    #[test]
    fn holds_lost_at_the_margin_are_flagged() {
        let stats = ObservedStats {
            margin_losses: Some(2.0),
            ..observed()
        };
        let advice = advise(stats, config(1_500.0, 300.0));
        assert_eq!(advice.problems, [AdviceProblem::MarginLosses]);
        assert_eq!(advice.margin_losses, 2.0);
        assert_eq!(
            advice.suggested_margin_ms, 300.0,
            "the margin covers the figures"
        );
        assert!(advice.suggested_lease_ms >= 1_500.0);
    }

    #[test]
    fn problems_come_in_a_stable_order() {
        let stats = ObservedStats {
            renew_rtt_p99_ms: Some(400.0),
            margin_low_water_ms: Some(350.0),
            margin_losses: Some(1.0),
            ..observed()
        };
        let codes: Vec<_> = advise(stats, config(1_500.0, 300.0))
            .problems
            .iter()
            .map(|p| p.code())
            .collect();
        assert_eq!(
            codes,
            [
                "margin_too_small",
                "lease_too_short",
                "renewal_near_margin",
                "margin_losses"
            ]
        );
    }

    #[test]
    fn without_samples_there_is_nothing_to_judge_by() {
        let fresh = ObservedStats {
            samples: Some(0.0),
            timer_samples: None,
            renew_rtt_p99_ms: None,
            timer_lateness_p99_ms: None,
            margin_low_water_ms: None,
            margin_losses: Some(0.0),
        };
        let advice = advise(fresh, config(1_500.0, 300.0));
        assert_eq!(advice.problems, [AdviceProblem::NoSamples]);
        assert_eq!(AdviceProblem::NoSamples.code(), "no_samples");
        assert!(!advice.safe());
        assert_eq!(advice.suggested_lease_ms, 1_500.0);
        assert_eq!(advice.suggested_margin_ms, 300.0);
        assert_eq!(advice.basis.required_margin_ms, None);
        assert_eq!(advice.basis.required_budget_ms, None);
        assert_eq!(advice.basis.timer_lateness_p99_ms, 0.0);
        // Absent counts are 0.
        let absent = ObservedStats {
            samples: None,
            ..fresh
        };
        assert_eq!(
            advise(absent, config(1_500.0, 300.0)).problems,
            [AdviceProblem::NoSamples]
        );
    }

    #[test]
    fn configuration_errors_name_the_field_by_the_holders_rules() {
        assert_eq!(config_field(f64::NAN, 300.0, None, None), "leaseMs");
        assert_eq!(config_field(f64::INFINITY, 300.0, None, None), "leaseMs");
        assert_eq!(config_field(1_500.0, 0.0, None, None), "marginMs");
        assert_eq!(config_field(1_500.0, 1_500.0, None, None), "marginMs");
        assert_eq!(
            config_field(1_500.0, 300.0, Some(1_200.0), None),
            "renewIntervalMs"
        );
        assert_eq!(
            config_field(1_500.0, 300.0, Some(f64::NAN), None),
            "renewIntervalMs"
        );
        assert_eq!(
            config_field(1_500.0, 300.0, None, Some(-1.0)),
            "clockUncertaintyMs"
        );
        assert_eq!(
            config_field(1_500.0, 300.0, None, Some(f64::NAN)),
            "clockUncertaintyMs"
        );
        assert!(AdviceConfig::from_ms(1_500.0, 300.0, None, Some(0.0)).is_ok());
    }

    #[test]
    fn stats_errors_name_the_field() {
        let bad = |stats: ObservedStats| stats_field(stats);
        assert_eq!(
            bad(ObservedStats {
                samples: Some(-1.0),
                ..observed()
            }),
            "stats.samples"
        );
        assert_eq!(
            bad(ObservedStats {
                samples: Some(1.5),
                ..observed()
            }),
            "stats.samples"
        );
        assert_eq!(
            bad(ObservedStats {
                timer_samples: Some(f64::NAN),
                ..observed()
            }),
            "stats.timerSamples"
        );
        assert_eq!(
            bad(ObservedStats {
                margin_losses: None,
                ..observed()
            }),
            "stats.lossReasons"
        );
        for rtt in [None, Some(f64::NAN), Some(-1.0)] {
            let stats = ObservedStats {
                renew_rtt_p99_ms: rtt,
                ..observed()
            };
            assert_eq!(bad(stats), "stats.renewRttP99Ms");
        }
        assert_eq!(
            bad(ObservedStats {
                timer_lateness_p99_ms: Some(-3.0),
                ..observed()
            }),
            "stats.timerLatenessP99Ms"
        );
        assert_eq!(
            bad(ObservedStats {
                margin_low_water_ms: Some(f64::NAN),
                ..observed()
            }),
            "stats.marginLowWaterMs"
        );
        // Measured with a longer lease than the configuration given.
        assert_eq!(
            bad(ObservedStats {
                margin_low_water_ms: Some(1_600.0),
                ..observed()
            }),
            "stats.marginLowWaterMs"
        );
        // Absent timer lateness without timer samples is 0, not an error.
        let untimed = ObservedStats {
            timer_samples: Some(0.0),
            timer_lateness_p99_ms: None,
            ..observed()
        };
        assert_eq!(advise(untimed, config(1_500.0, 300.0)).attempt_ms, 20.0);
    }
}
