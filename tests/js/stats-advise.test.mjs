// adviseDuration(stats, config): the design's duration rules applied to observed figures, with
// stable problem codes, suggestions that fix what they flag, and clear errors for bad input.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LeaseHolder, adviseDuration, isLeaseError } from "tenure";
import { sleep, eventually } from "./support/memory-grantor.mjs";

/** A stats() result with the given figures (one sample window's worth). */
const observed = (extra = {}) => ({
  samples: 100,
  timerSamples: 100,
  renewRttP50Ms: 10,
  renewRttP99Ms: 20,
  timerLatenessP50Ms: 1,
  timerLatenessP99Ms: 5,
  marginLowWaterMs: 975,
  lossReasons: {},
  ...extra,
});

const codes = (advice) => advice.problems.map((problem) => problem.code);

describe("adviseDuration", () => {
  it("calls a configuration safe when the margin and the renewal budget cover the figures", () => {
    const advice = adviseDuration(observed(), { leaseMs: 1_500, marginMs: 300 });
    assert.equal(advice.safe, true);
    assert.deepEqual(advice.problems, []);
    assert.equal(advice.suggestedLeaseMs, 1_500);
    assert.equal(advice.suggestedMarginMs, 300);
    assert.equal(advice.basis.renewIntervalMs, 500);
    assert.equal(advice.basis.renewalBudgetMs, 700);
    assert.equal(advice.basis.clockUncertaintyMs, 1.5, "0.1% of leaseMs by default");
    assert.equal(advice.basis.requiredMarginMs, 20 + 5 + 1.5);
  });

  it("flags a margin below RTT p99 + timer lateness p99 + clock uncertainty", () => {
    const stats = observed({ renewRttP99Ms: 250, timerLatenessP99Ms: 100, marginLowWaterMs: null });
    const config = { leaseMs: 3_000, marginMs: 300, clockUncertaintyMs: 20 };
    const advice = adviseDuration(stats, config);
    assert.equal(advice.safe, false);
    assert.deepEqual(codes(advice), ["margin_too_small"]);
    assert.match(advice.problems[0].message, /marginMs 300 ms is below .* = 370 ms/);
    assert.equal(advice.basis.requiredMarginMs, 370);
    assert.ok(advice.suggestedMarginMs >= 370 * 1.5, `margin ${advice.suggestedMarginMs}`);
    assert.equal(advice.suggestedMarginMs % 50, 0);
    // The suggestions fix what was flagged.
    const again = adviseDuration(stats, {
      ...config,
      leaseMs: advice.suggestedLeaseMs,
      marginMs: advice.suggestedMarginMs,
    });
    assert.equal(again.safe, true, JSON.stringify(again.problems));
  });

  it("flags a lease whose renewal budget cannot fit two attempts", () => {
    // 1000 - 300 - 333 = 367 ms from a renewal falling due to the margin; two attempts need 480.
    const stats = observed({ renewRttP99Ms: 180, timerLatenessP99Ms: 60, marginLowWaterMs: null });
    const advice = adviseDuration(stats, { leaseMs: 1_000, marginMs: 300 });
    assert.deepEqual(codes(advice), ["lease_too_short"]);
    assert.equal(advice.suggestedMarginMs, 300);
    assert.ok(advice.suggestedLeaseMs > 1_000);
    const again = adviseDuration(stats, { leaseMs: advice.suggestedLeaseMs, marginMs: 300 });
    assert.equal(again.safe, true, JSON.stringify(again.problems));
    assert.ok(again.basis.renewalBudgetMs >= 2 * 240 * 1.5 - 1);
  });

  it("keeps a fixed renewIntervalMs when suggesting a longer lease", () => {
    const stats = observed({ renewRttP99Ms: 180, timerLatenessP99Ms: 60, marginLowWaterMs: null });
    const config = { leaseMs: 1_000, marginMs: 300, renewIntervalMs: 500 };
    const advice = adviseDuration(stats, config);
    assert.deepEqual(codes(advice), ["lease_too_short"]);
    const again = adviseDuration(stats, { ...config, leaseMs: advice.suggestedLeaseMs });
    assert.equal(again.safe, true, JSON.stringify(again.problems));
    assert.equal(again.basis.renewIntervalMs, 500);
  });

  it("flags a renewal that succeeded within one attempt of the margin", () => {
    const advice = adviseDuration(observed({ marginLowWaterMs: 320 }), { leaseMs: 1_500, marginMs: 300 });
    assert.deepEqual(codes(advice), ["renewal_near_margin"]);
    // It took 1500 - 320 - 500 = 680 ms past its due time: the next lease must leave room for that.
    const suggested = adviseDuration(observed({ marginLowWaterMs: 320 + (advice.suggestedLeaseMs - 1_500) * (2 / 3) }), {
      leaseMs: advice.suggestedLeaseMs,
      marginMs: 300,
    });
    assert.equal(suggested.safe, true, JSON.stringify(suggested.problems));
  });

  it("flags holds lost at the margin", () => {
    const advice = adviseDuration(observed({ lossReasons: { margin_exhausted: 2, revoked: 1 } }), {
      leaseMs: 1_500,
      marginMs: 300,
    });
    assert.deepEqual(codes(advice), ["margin_losses"]);
    assert.match(advice.problems[0].message, /^2 hold/);
  });

  it("says there is nothing to judge by before the first renewal", () => {
    const holder = new LeaseHolder(
      { grant: () => ({ granted: true, token: 1 }), renew: () => ({ renewed: true, token: 1 }) },
      { resource: "r", holderId: "a", leaseMs: 1_500, marginMs: 300 },
    );
    const advice = adviseDuration(holder.stats(), { leaseMs: 1_500, marginMs: 300 });
    assert.equal(advice.safe, false);
    assert.deepEqual(codes(advice), ["no_samples"]);
    assert.equal(advice.suggestedLeaseMs, 1_500);
    assert.equal(advice.suggestedMarginMs, 300);
  });

  it("judges a real holder's figures: a slow grantor makes a small margin unsafe", async () => {
    const grantor = {
      grant: () => ({ granted: true, token: 1 }),
      renew: async ({ token }) => (await sleep(120), { renewed: true, token }),
    };
    const config = { resource: "slow", holderId: "a", leaseMs: 1_200, marginMs: 100 };
    const holder = new LeaseHolder(grantor, config);
    await holder.acquire();
    assert.ok(await eventually(() => holder.stats().renewals >= 2, 5_000), "two renewals");
    const stats = holder.stats();
    holder.surrender("measured");

    const advice = adviseDuration(stats, config);
    assert.equal(advice.safe, false);
    assert.ok(codes(advice).includes("margin_too_small"), JSON.stringify(advice.problems));
    assert.ok(advice.suggestedMarginMs >= 120 * 1.5, `margin ${advice.suggestedMarginMs}`);
    assert.ok(advice.suggestedLeaseMs > advice.suggestedMarginMs * 3);

    // Measured again with the suggested durations, the same grantor is judged safe.
    const next = {
      ...config,
      leaseMs: advice.suggestedLeaseMs,
      marginMs: advice.suggestedMarginMs,
    };
    const retried = new LeaseHolder(grantor, next);
    await retried.acquire();
    assert.ok(await eventually(() => retried.stats().renewals >= 2, 10_000), "two renewals");
    const nextStats = retried.stats();
    retried.surrender("measured");
    const verdict = adviseDuration(nextStats, next);
    assert.equal(verdict.safe, true, JSON.stringify(verdict.problems));
  });

  describe("rejects bad input with ERR_LEASE_CONFIG naming the field", () => {
    const cases = [
      ["stats", null, { leaseMs: 1_500, marginMs: 300 }],
      ["stats", "fast", { leaseMs: 1_500, marginMs: 300 }],
      ["stats.samples", observed({ samples: -1 }), { leaseMs: 1_500, marginMs: 300 }],
      ["stats.renewRttP99Ms", observed({ renewRttP99Ms: Number.NaN }), { leaseMs: 1_500, marginMs: 300 }],
      ["stats.renewRttP99Ms", observed({ renewRttP99Ms: null }), { leaseMs: 1_500, marginMs: 300 }],
      ["stats.timerLatenessP99Ms", observed({ timerLatenessP99Ms: -3 }), { leaseMs: 1_500, marginMs: 300 }],
      ["stats.marginLowWaterMs", observed({ marginLowWaterMs: "975" }), { leaseMs: 1_500, marginMs: 300 }],
      ["stats.lossReasons", observed({ lossReasons: 3 }), { leaseMs: 1_500, marginMs: 300 }],
      // Measured with a longer lease than the configuration given.
      ["stats.marginLowWaterMs", observed({ marginLowWaterMs: 1_600 }), { leaseMs: 1_500, marginMs: 300 }],
      ["config", observed(), undefined],
      ["leaseMs", observed(), { marginMs: 300 }],
      ["leaseMs", observed(), { leaseMs: Infinity, marginMs: 300 }],
      ["marginMs", observed(), { leaseMs: 1_500, marginMs: 0 }],
      ["marginMs", observed(), { leaseMs: 1_500, marginMs: 1_500 }],
      ["renewIntervalMs", observed(), { leaseMs: 1_500, marginMs: 300, renewIntervalMs: 1_200 }],
      ["clockUncertaintyMs", observed(), { leaseMs: 1_500, marginMs: 300, clockUncertaintyMs: -1 }],
    ];
    for (const [field, stats, config] of cases) {
      it(`${field}: ${JSON.stringify(config === undefined ? stats : config) ?? "undefined"}`, () => {
        assert.throws(
          () => adviseDuration(stats, config),
          (error) =>
            isLeaseError(error) &&
            error.code === "ERR_LEASE_CONFIG" &&
            error.field === field &&
            error.message.startsWith(field),
        );
      });
    }
  });
});
