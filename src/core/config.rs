//! Holder configuration and its validation.

use super::time::Micros;
use core::fmt;

/// A configuration value that breaks a rule; `field` uses the JavaScript option name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The offending option, e.g. `"marginMs"`.
    pub field: &'static str,
    /// What is wrong with it.
    pub problem: &'static str,
}

impl ConfigError {
    pub(crate) fn new(field: &'static str, problem: &'static str) -> ConfigError {
        ConfigError { field, problem }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.field, self.problem)
    }
}

/// How a holder renews, retries and gives up. Durations are [`Micros`].
///
/// Build it with [`HolderConfig::from_ms`], which applies the defaults and validates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HolderConfig {
    /// The lease duration asked of the grantor.
    pub lease: Micros,
    /// Stop believing the lease is held once this little remains.
    pub margin: Micros,
    /// Time from one renewal's send to the next (default `lease / 3`).
    pub renew_interval: Micros,
    /// How long one grant or renew attempt may take before it is abandoned (default
    /// `renew_interval`). A renewal attempt is also abandoned when the margin begins.
    pub request_timeout: Micros,
    /// First retry delay after a failed attempt; doubles per consecutive failure up to
    /// `retry_max`, with jitter (default `renew_interval / 8`, at least 1 ms).
    pub retry_base: Micros,
    /// Longest retry delay (default `renew_interval`).
    pub retry_max: Micros,
    /// Seed for retry jitter; the core never reads a random source itself.
    pub seed: u64,
    /// A deliberately broken behaviour, for proving the simulation catches it.
    #[cfg(feature = "mutations")]
    pub mutation: Option<super::Mutation>,
}

/// Optional settings for [`HolderConfig::from_ms`], in milliseconds as JavaScript passes them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HolderOptionsMs {
    /// `renewIntervalMs`.
    pub renew_interval_ms: Option<f64>,
    /// `requestTimeoutMs`.
    pub request_timeout_ms: Option<f64>,
    /// `retryDelayMs`.
    pub retry_delay_ms: Option<f64>,
    /// `retryDelayMaxMs`.
    pub retry_delay_max_ms: Option<f64>,
}

/// Checks a millisecond setting from JavaScript: a finite number, greater than 0, and within
/// `setTimeout`'s range. Returns it as [`Micros`]; the error names `field`.
pub fn checked_ms(field: &'static str, value: f64) -> Result<Micros, ConfigError> {
    if !value.is_finite() {
        return Err(ConfigError::new(field, "must be a finite number"));
    }
    if value <= 0.0 {
        return Err(ConfigError::new(field, "must be greater than 0"));
    }
    // Keep every deadline representable as a JavaScript timer delay and far from overflow.
    if value > MAX_DURATION_MS {
        return Err(ConfigError::new(field, "must be at most 2^31-1 ms"));
    }
    Ok(Micros::from_ms_f64(value))
}

/// The longest duration accepted anywhere in the configuration, in ms (`setTimeout`'s limit).
pub const MAX_DURATION_MS: f64 = 2_147_483_647.0;

impl HolderConfig {
    /// Validates millisecond settings and fills in defaults. Errors name the offending option.
    ///
    /// Rules: every value is a finite number greater than 0; `leaseMs > marginMs`; and
    /// `renewIntervalMs < leaseMs - marginMs`, so at least one renewal is attempted before the
    /// margin begins.
    pub fn from_ms(
        lease_ms: f64,
        margin_ms: f64,
        options: HolderOptionsMs,
        seed: u64,
    ) -> Result<HolderConfig, ConfigError> {
        let lease = checked_ms("leaseMs", lease_ms)?;
        let margin = checked_ms("marginMs", margin_ms)?;
        if margin >= lease {
            return Err(ConfigError::new("marginMs", "must be less than leaseMs"));
        }
        let renew_interval = match options.renew_interval_ms {
            Some(v) => checked_ms("renewIntervalMs", v)?,
            None => Micros(lease.0 / 3),
        };
        check_renewal_timing(lease, margin, renew_interval)?;
        let request_timeout = match options.request_timeout_ms {
            Some(v) => checked_ms("requestTimeoutMs", v)?,
            None => renew_interval,
        };
        let retry_base = match options.retry_delay_ms {
            Some(v) => checked_ms("retryDelayMs", v)?,
            None => default_retry_base(renew_interval),
        };
        let retry_max = match options.retry_delay_max_ms {
            Some(v) => checked_ms("retryDelayMaxMs", v)?,
            None => renew_interval.max(retry_base),
        };
        if retry_max < retry_base {
            return Err(ConfigError::new(
                "retryDelayMaxMs",
                "must be at least retryDelayMs",
            ));
        }
        Ok(HolderConfig {
            lease,
            margin,
            renew_interval,
            request_timeout,
            retry_base,
            retry_max,
            seed,
            #[cfg(feature = "mutations")]
            mutation: None,
        })
    }
}

/// `renewIntervalMs` when the configuration leaves it out, in fractional ms: the `leaseMs / 3`
/// of [`HolderConfig::from_ms`], unrounded (the holder rounds it down to a microsecond).
pub fn default_renew_interval_ms(lease_ms: f64) -> f64 {
    lease_ms / 3.0
}

/// The shortest `leaseMs` that leaves `budget_ms` from a renewal falling due to the margin
/// (`leaseMs - renewIntervalMs - marginMs >= budget_ms`): with `renew_interval_ms` fixed, or, when
/// it is `None`, with [`HolderConfig::from_ms`]'s default `renewIntervalMs = leaseMs / 3`, which
/// leaves two thirds of the lease for the margin and the budget.
pub fn lease_ms_for_budget(margin_ms: f64, budget_ms: f64, renew_interval_ms: Option<f64>) -> f64 {
    match renew_interval_ms {
        Some(interval_ms) => margin_ms + interval_ms + budget_ms,
        None => 1.5 * (margin_ms + budget_ms),
    }
}

/// The timing rule of every machine that renews a lease of its own (a [`HolderConfig`], a tab's
/// heartbeat): `0 < margin < lease` and `0 < renew_interval < lease - margin`, so at least one
/// renewal is attempted before the margin begins. Errors name the JavaScript option.
pub fn check_renewal_timing(
    lease: Micros,
    margin: Micros,
    renew_interval: Micros,
) -> Result<(), ConfigError> {
    if margin == Micros::ZERO {
        return Err(ConfigError::new("marginMs", "must be greater than 0"));
    }
    if margin >= lease {
        return Err(ConfigError::new("marginMs", "must be less than leaseMs"));
    }
    if renew_interval == Micros::ZERO {
        return Err(ConfigError::new(
            "renewIntervalMs",
            "must be greater than 0",
        ));
    }
    if renew_interval >= lease.saturating_sub(margin) {
        return Err(ConfigError::new(
            "renewIntervalMs",
            "must be less than leaseMs - marginMs",
        ));
    }
    Ok(())
}

/// The default first retry delay for a renewal interval: an eighth of it, at least 1 ms, never
/// more than the interval itself.
pub fn default_retry_base(renew_interval: Micros) -> Micros {
    Micros((renew_interval.0 / 8).max(1_000)).min(renew_interval)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(lease: f64, margin: f64, options: HolderOptionsMs) -> &'static str {
        HolderConfig::from_ms(lease, margin, options, 0)
            .unwrap_err()
            .field
    }

    #[test]
    fn defaults_follow_the_design() {
        let config =
            HolderConfig::from_ms(9_000.0, 1_000.0, HolderOptionsMs::default(), 7).unwrap();
        assert_eq!(config.renew_interval, Micros::from_ms(3_000));
        assert_eq!(config.request_timeout, Micros::from_ms(3_000));
        assert_eq!(config.retry_base, Micros::from_ms(375));
        assert_eq!(config.retry_max, Micros::from_ms(3_000));
    }

    #[test]
    fn errors_name_the_bad_field() {
        let none = HolderOptionsMs::default();
        assert_eq!(field_of(f64::NAN, 1.0, none), "leaseMs");
        assert_eq!(field_of(f64::INFINITY, 1.0, none), "leaseMs");
        assert_eq!(field_of(-5.0, 1.0, none), "leaseMs");
        assert_eq!(field_of(1_000.0, 0.0, none), "marginMs");
        assert_eq!(field_of(1_000.0, 1_000.0, none), "marginMs");
        assert_eq!(field_of(1_000.0, 2_000.0, none), "marginMs");
        let slow = HolderOptionsMs {
            renew_interval_ms: Some(900.0),
            ..none
        };
        assert_eq!(field_of(1_000.0, 100.0, slow), "renewIntervalMs");
        let nan_timeout = HolderOptionsMs {
            request_timeout_ms: Some(f64::NAN),
            ..none
        };
        assert_eq!(field_of(1_000.0, 100.0, nan_timeout), "requestTimeoutMs");
        let inverted = HolderOptionsMs {
            retry_delay_ms: Some(50.0),
            retry_delay_max_ms: Some(10.0),
            ..none
        };
        assert_eq!(field_of(1_000.0, 100.0, inverted), "retryDelayMaxMs");
        assert_eq!(field_of(3e9, 100.0, none), "leaseMs");
    }
}
