// Asking often must not make a lease run out early: Date.now() moves in whole milliseconds, and
// that jitter between close readings is not elapsed time.

import { it } from "node:test";
import assert from "node:assert/strict";
import { Lease, LeaseHolder } from "tenure";

it("a lease checked in a tight loop counts real time", () => {
  const lease = new Lease(10_000, 1_000);
  lease.grant(1, Lease.stamp());
  const started = performance.now();
  let checks = 0;
  while (performance.now() - started < 200) {
    lease.isSafelyHeld();
    checks += 1;
  }
  const real = performance.now() - started;
  const counted = 10_000 - lease.remainingMs();
  assert.ok(checks > 1_000, `${checks} checks`);
  assert.ok(counted <= real + 30, `counted ${counted.toFixed(1)} ms for ${real.toFixed(1)} ms`);
});

it("a holder checked constantly keeps its lease until the margin", async () => {
  const grantor = {
    grant: async () => ({ granted: true, token: 1 }),
    renew: () => new Promise(() => {}),
  };
  const holder = new LeaseHolder(grantor, { resource: "r", holderId: "h", leaseMs: 3_000, marginMs: 1_000 });
  const sent = performance.now();
  await holder.acquire();
  while (holder.lease.isSafelyHeld()) await Promise.resolve();
  const heldFor = performance.now() - sent;
  assert.ok(heldFor >= 1_900, `held ${heldFor.toFixed(0)} ms of the 2000 ms before the margin`);
});
