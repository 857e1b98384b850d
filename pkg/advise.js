// adviseDuration: checks a holder's leaseMs and marginMs against what its stats() observed. The
// core judges and suggests (src/core/advise.rs); this module words its findings.

import { adviseDurationCore } from "./glue/tenure.js";
import { fromCore } from "./errors.js";
import { coreModule } from "./core.js";

const ms = (value) => `${Math.round(value)} ms`;

/** A log line for each problem code, from the verdict's figures. */
const MESSAGES = {
  no_samples: () => "no renewal has succeeded yet: hold a lease through a few renewals first",
  margin_too_small: ({ basis }, config) =>
    `marginMs ${ms(config.marginMs)} is below renewal RTT p99 ${ms(basis.renewRttP99Ms)} + timer ` +
    `lateness p99 ${ms(basis.timerLatenessP99Ms)} + clock uncertainty ` +
    `${ms(basis.clockUncertaintyMs)} = ${ms(basis.requiredMarginMs)}`,
  lease_too_short: ({ basis, attemptMs }) =>
    `from a renewal falling due to the margin there are ${ms(basis.renewalBudgetMs)} ` +
    `(leaseMs - renewIntervalMs - marginMs), less than two attempts at RTT p99 + timer ` +
    `lateness p99 (${ms(2 * attemptMs)}): one slow or lost renewal ends the lease`,
  renewal_near_margin: ({ attemptMs }, config, stats) =>
    `a renewal succeeded with ${ms(stats.marginLowWaterMs)} left, within one attempt ` +
    `(${ms(attemptMs)}) of the ${ms(config.marginMs)} margin`,
  margin_losses: ({ marginLosses }) =>
    `${marginLosses} hold(s) ended at the margin: renewals did not get through in time`,
};

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
  coreModule();
  let verdict;
  try {
    verdict = adviseDurationCore(stats, config);
  } catch (error) {
    throw fromCore(error);
  }
  const { safe, suggestedLeaseMs, suggestedMarginMs, basis } = verdict;
  const problems = verdict.problems.map((code) => ({
    code,
    message: MESSAGES[code](verdict, config, stats),
  }));
  return { safe, problems, suggestedLeaseMs, suggestedMarginMs, basis };
}
