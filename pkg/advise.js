// adviseDuration: checks a holder's leaseMs and marginMs against what its stats() observed, by the
// design's rules. The margin must cover a renewal's round trip, the lateness of the timer that
// sends it and the clock uncertainty; the time between a renewal falling due and the margin must
// fit two such attempts (one may fail), and more than the slowest renewal actually took.

import { LeaseError } from "./errors.js";

/** Suggestions leave this much room over the observed percentiles: a window is not the tail. */
const HEADROOM = 1.5;
/** Suggested durations are rounded up to a multiple of this. */
const ROUND_MS = 50;
/** Default rate difference between the holder's and the grantor's clocks: 1000 ppm. */
const DEFAULT_DRIFT = 0.001;

function configError(field, problem) {
  return new LeaseError("ERR_LEASE_CONFIG", `${field} ${problem}`, { field });
}

function checkPositive(value, field) {
  if (!(typeof value === "number" && Number.isFinite(value) && value > 0)) {
    throw configError(field, "must be a finite number greater than 0");
  }
  return value;
}

function checkSample(stats, key, present) {
  const value = stats[key];
  if (!present && (value === null || value === undefined)) return null;
  if (!(typeof value === "number" && Number.isFinite(value) && value >= 0)) {
    throw configError(`stats.${key}`, "must be a finite number of at least 0 when there are samples");
  }
  return value;
}

function checkCount(stats, key) {
  const value = stats[key] ?? 0;
  if (!(Number.isInteger(value) && value >= 0)) {
    throw configError(`stats.${key}`, "must be a whole number of at least 0");
  }
  return value;
}

function roundUp(ms) {
  return Math.ceil(ms / ROUND_MS) * ROUND_MS;
}

function readConfig(config) {
  if (typeof config !== "object" || config === null) {
    throw configError("config", "must be an object with leaseMs and marginMs");
  }
  const leaseMs = checkPositive(config.leaseMs, "leaseMs");
  const marginMs = checkPositive(config.marginMs, "marginMs");
  if (!(marginMs < leaseMs)) throw configError("marginMs", "must be less than leaseMs");
  const renewIntervalMs =
    config.renewIntervalMs === undefined
      ? leaseMs / 3
      : checkPositive(config.renewIntervalMs, "renewIntervalMs");
  if (!(renewIntervalMs < leaseMs - marginMs)) {
    throw configError("renewIntervalMs", "must be less than leaseMs - marginMs");
  }
  let clockUncertaintyMs = leaseMs * DEFAULT_DRIFT;
  if (config.clockUncertaintyMs !== undefined) {
    const value = config.clockUncertaintyMs;
    if (!(typeof value === "number" && Number.isFinite(value) && value >= 0)) {
      throw configError("clockUncertaintyMs", "must be a finite number of at least 0");
    }
    clockUncertaintyMs = value;
  }
  const fixedInterval = config.renewIntervalMs !== undefined;
  return { leaseMs, marginMs, renewIntervalMs, clockUncertaintyMs, fixedInterval };
}

function readStats(stats) {
  if (typeof stats !== "object" || stats === null) {
    throw configError("stats", "must be what holder.stats() returns");
  }
  const samples = checkCount(stats, "samples");
  const timerSamples = checkCount(stats, "timerSamples");
  const lossReasons = stats.lossReasons ?? {};
  if (typeof lossReasons !== "object" || lossReasons === null) {
    throw configError("stats.lossReasons", "must be an object of counts");
  }
  return {
    samples,
    rttP99Ms: checkSample(stats, "renewRttP99Ms", samples > 0),
    timerLatenessP99Ms: checkSample(stats, "timerLatenessP99Ms", timerSamples > 0) ?? 0,
    // Optional: stats gathered elsewhere may lack it, and then only the percentiles count.
    marginLowWaterMs: checkSample(stats, "marginLowWaterMs", false),
    marginLosses: lossReasons.margin_exhausted ?? 0,
  };
}

/**
 * Says whether `config.leaseMs` and `config.marginMs` are safe for what `stats` (from
 * `holder.stats()`) observed, and suggests values for the next run. `config` is the
 * configuration the stats were measured with (the holder's), plus an optional
 * `clockUncertaintyMs` (default 0.1% of `leaseMs`). Safe means the figures fit; suggestions
 * leave 50% headroom over them and equal the current values when safe. See the guide's
 * "Monitoring" section.
 *
 * Problem codes: `no_samples` (no renewal has succeeded yet: nothing to judge by),
 * `margin_too_small` (marginMs below renewal RTT p99 + timer lateness p99 + clock uncertainty),
 * `lease_too_short` (from a renewal falling due to the margin there is not room for two attempts
 * at those percentiles), `renewal_near_margin` (a renewal succeeded with less than one more
 * attempt's time left before the margin), `margin_losses` (holds were lost at the margin).
 *
 * @throws {LeaseError} `ERR_LEASE_CONFIG` naming the bad field of `stats` or `config`
 */
export function adviseDuration(stats, config) {
  const cfg = readConfig(config);
  const seen = readStats(stats);
  if (seen.marginLowWaterMs !== null && seen.marginLowWaterMs > cfg.leaseMs) {
    throw configError(
      "stats.marginLowWaterMs",
      "exceeds leaseMs: pass the configuration the stats were measured with",
    );
  }
  const basis = {
    renewRttP99Ms: seen.rttP99Ms,
    timerLatenessP99Ms: seen.timerLatenessP99Ms,
    clockUncertaintyMs: cfg.clockUncertaintyMs,
    renewIntervalMs: cfg.renewIntervalMs,
    requiredMarginMs: null,
    renewalBudgetMs: cfg.leaseMs - cfg.marginMs - cfg.renewIntervalMs,
    requiredBudgetMs: null,
  };
  if (seen.samples === 0) {
    return {
      safe: false,
      problems: [
        {
          code: "no_samples",
          message: "no renewal has succeeded yet: hold a lease through a few renewals first",
        },
      ],
      suggestedLeaseMs: cfg.leaseMs,
      suggestedMarginMs: cfg.marginMs,
      basis,
    };
  }

  const attemptMs = seen.rttP99Ms + seen.timerLatenessP99Ms;
  const requiredMarginMs = attemptMs + cfg.clockUncertaintyMs;
  // How long past its due time the slowest renewal took to succeed, retries included.
  const observedDelayMs =
    seen.marginLowWaterMs === null ? 0 : cfg.leaseMs - seen.marginLowWaterMs - cfg.renewIntervalMs;
  const requiredBudgetMs = Math.max(2 * attemptMs, observedDelayMs + attemptMs);
  basis.requiredMarginMs = requiredMarginMs;
  basis.requiredBudgetMs = requiredBudgetMs;

  const problems = [];
  const ms = (value) => `${Math.round(value)} ms`;
  if (cfg.marginMs < requiredMarginMs) {
    problems.push({
      code: "margin_too_small",
      message:
        `marginMs ${ms(cfg.marginMs)} is below renewal RTT p99 ${ms(seen.rttP99Ms)} + timer ` +
        `lateness p99 ${ms(seen.timerLatenessP99Ms)} + clock uncertainty ` +
        `${ms(cfg.clockUncertaintyMs)} = ${ms(requiredMarginMs)}`,
    });
  }
  if (basis.renewalBudgetMs < 2 * attemptMs) {
    problems.push({
      code: "lease_too_short",
      message:
        `from a renewal falling due to the margin there are ${ms(basis.renewalBudgetMs)} ` +
        `(leaseMs - renewIntervalMs - marginMs), less than two attempts at RTT p99 + timer ` +
        `lateness p99 (${ms(2 * attemptMs)}): one slow or lost renewal ends the lease`,
    });
  }
  if (seen.marginLowWaterMs !== null && seen.marginLowWaterMs - cfg.marginMs < attemptMs) {
    problems.push({
      code: "renewal_near_margin",
      message:
        `a renewal succeeded with ${ms(seen.marginLowWaterMs)} left, within one attempt ` +
        `(${ms(attemptMs)}) of the ${ms(cfg.marginMs)} margin`,
    });
  }
  if (seen.marginLosses > 0) {
    problems.push({
      code: "margin_losses",
      message: `${seen.marginLosses} hold(s) ended at the margin: renewals did not get through in time`,
    });
  }
  if (problems.length === 0) {
    return {
      safe: true,
      problems,
      suggestedLeaseMs: cfg.leaseMs,
      suggestedMarginMs: cfg.marginMs,
      basis,
    };
  }

  const suggestedMarginMs =
    cfg.marginMs < requiredMarginMs ? roundUp(requiredMarginMs * HEADROOM) : cfg.marginMs;
  const budgetMs = requiredBudgetMs * HEADROOM;
  // leaseMs - marginMs - renewIntervalMs >= budget, with renewIntervalMs = leaseMs / 3 unless
  // the configuration fixes it.
  const neededLeaseMs = cfg.fixedInterval
    ? suggestedMarginMs + cfg.renewIntervalMs + budgetMs
    : 1.5 * (suggestedMarginMs + budgetMs);
  const suggestedLeaseMs = Math.max(cfg.leaseMs, roundUp(neededLeaseMs));
  return { safe: false, problems, suggestedLeaseMs, suggestedMarginMs, basis };
}
