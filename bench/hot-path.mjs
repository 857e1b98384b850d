// Benchmark: the cost of `isSafelyHeld()` against the cost of the two clock reads a safe check
// must make, and against the design's pure-JS Lease. Figures, not pass/fail.
//
// `measureHotPath()` is used by bench/table.mjs; run alone it prints its own lines.

import { pathToFileURL } from "node:url";
import { Lease, LeaseHolder } from "tenure";

// The design's Lease, verbatim in behaviour: the baseline a user would otherwise write.
class DesignLease {
  constructor(durationMs, safetyMarginMs) {
    this.durationMs = durationMs;
    this.safetyMarginMs = safetyMarginMs;
    this.acquiredAt = null;
    this.token = null;
  }
  grant(token) {
    this.acquiredAt = performance.now();
    this.token = token;
  }
  remainingMs() {
    if (this.acquiredAt === null) return 0;
    const elapsed = performance.now() - this.acquiredAt;
    return Math.max(0, this.durationMs - elapsed);
  }
  isSafelyHeld() {
    return this.remainingMs() > this.safetyMarginMs;
  }
}

/** Median ns/op over `rounds` rounds of `iterations` calls; `sink` defeats dead-code removal. */
function measure(fn, iterations, rounds) {
  let sink = 0;
  const samples = [];
  for (let round = 0; round < rounds; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) if (fn()) sink += 1;
    samples.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  samples.sort((a, b) => a - b);
  if (sink < 0) throw new Error("unreachable");
  return samples[rounds >> 1];
}

/**
 * ns/op of `performance.now() + Date.now()`, of tenure's `Lease.isSafelyHeld()` and of a
 * `LeaseHolder`'s `lease.isSafelyHeld()` (both held, 60 s left), and of the design's JS Lease.
 * Each is the median of `rounds` rounds, the kinds interleaved so that a noisy machine's drift
 * hits all of them alike.
 */
export async function measureHotPath({ iterations = 2_000_000, rounds = 7 } = {}) {
  const lease = new Lease(60_000, 1_000);
  lease.grant(1, Lease.stamp());
  const design = new DesignLease(60_000, 1_000);
  design.grant(1);
  // A holder whose grantor grants at once and never needs to renew within the run.
  const holder = new LeaseHolder(
    { grant: async () => ({ granted: true, token: 1, durationMs: 600_000 }), renew: async () => ({ renewed: true, token: 1 }) },
    { resource: "bench", holderId: "bench", leaseMs: 600_000, marginMs: 1_000 },
  );
  const { acquired } = await holder.acquire();
  if (!acquired || !lease.isSafelyHeld() || !holder.lease.isSafelyHeld()) {
    throw new Error("the leases under test are not held");
  }
  const kinds = {
    clocks: () => performance.now() + Date.now() > 0,
    lease: () => lease.isSafelyHeld(),
    heldLease: () => holder.lease.isSafelyHeld(),
    design: () => design.isSafelyHeld(),
  };
  const results = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
  for (let pass = 0; pass < 3; pass += 1) {
    for (const [kind, fn] of Object.entries(kinds)) {
      const nsPerOp = measure(fn, iterations, rounds);
      if (pass > 0) results[kind].push(nsPerOp); // the first pass warms up
    }
  }
  await holder.release();
  const best = (kind) => Math.min(...results[kind]);
  return {
    node: process.version,
    iterations,
    rounds,
    clocksNs: best("clocks"),
    leaseNs: best("lease"),
    heldLeaseNs: best("heldLease"),
    designNs: best("design"),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await measureHotPath();
  console.log(`node ${figures.node}, ${figures.iterations} calls x ${figures.rounds} rounds, median`);
  console.log(`performance.now() + Date.now()      ${figures.clocksNs.toFixed(1)} ns/op`);
  console.log(`tenure Lease.isSafelyHeld()         ${figures.leaseNs.toFixed(1)} ns/op  ${(figures.leaseNs / figures.clocksNs).toFixed(2)}x the clock reads`);
  console.log(`tenure holder.lease.isSafelyHeld()  ${figures.heldLeaseNs.toFixed(1)} ns/op  ${(figures.heldLeaseNs / figures.clocksNs).toFixed(2)}x the clock reads`);
  console.log(`design's JS Lease.isSafelyHeld()    ${figures.designNs.toFixed(1)} ns/op`);
}
