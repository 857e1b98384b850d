// Type-checks monitoring as the guide uses it: holder.stats() and adviseDuration.
import {
  LeaseHolder,
  adviseDuration,
  isLeaseError,
  type AdviceProblemCode,
  type DurationAdvice,
  type Grantor,
  type HolderStats,
} from "tenure";

const grantor: Grantor = {
  grant: () => ({ granted: true, token: 1, durationMs: 15_000 }),
  renew: ({ token }) => ({ renewed: true, token }),
};
const config = { resource: "reports", holderId: "w1", leaseMs: 15_000, marginMs: 3_000 };
const holder = new LeaseHolder(grantor, config);

const stats: HolderStats = holder.stats();
const p99: number | null = stats.renewRttP99Ms;
const lateness: number = stats.timerLatenessP99Ms ?? 0;
const lowWater: number | null = stats.marginLowWaterMs;
const atMargin: number = stats.lossReasons.margin_exhausted ?? 0;
const timeouts: number = stats.failureKinds.timed_out ?? 0;
console.log(p99, lateness, lowWater, atMargin, timeouts, stats.renewals + stats.consecutiveFailures);

try {
  const advice: DurationAdvice = adviseDuration(stats, { ...config, clockUncertaintyMs: 50 });
  const codes: AdviceProblemCode[] = advice.problems.map((problem) => problem.code);
  if (!advice.safe && codes.includes("margin_too_small")) {
    console.log(advice.suggestedLeaseMs, advice.suggestedMarginMs, advice.basis.requiredMarginMs);
  }
} catch (error) {
  if (isLeaseError(error) && error.code === "ERR_LEASE_CONFIG") console.log(error.field);
}

export async function scoped(): Promise<number> {
  await using scopedHolder = new LeaseHolder(grantor, config);
  const result = await scopedHolder.acquire();
  return result.acquired ? result.token : 0;
}
