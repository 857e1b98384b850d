// The design's own usage code, run as written against the built package.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Lease, LeaseHolder, LeaseExpiredError } from "tenure";
import { MemoryGrantor, sleep, eventually } from "./support/memory-grantor.mjs";

const leaseMs = 600;
const marginMs = 150;

describe("the design's Lease", () => {
  it("is granted, counts down and asserts as the design shows", async () => {
    const lease = new Lease(leaseMs, marginMs);
    assert.equal(lease.durationMs, leaseMs);
    assert.equal(lease.safetyMarginMs, marginMs);
    assert.equal(lease.acquiredAt, null);
    assert.equal(lease.token, null);
    assert.equal(lease.remainingMs(), 0);
    assert.equal(lease.isSafelyHeld(), false);

    lease.grant(42);
    assert.equal(lease.token, 42);
    assert.ok(lease.acquiredAt <= performance.now());
    assert.ok(lease.remainingMs() > leaseMs - 50);
    assert.equal(lease.isSafelyHeld(), true);
    lease.assertHeld();

    await sleep(leaseMs - marginMs + 50);
    assert.equal(lease.isSafelyHeld(), false);
    assert.throws(
      () => lease.assertHeld(),
      (error) =>
        error instanceof LeaseExpiredError &&
        error instanceof Error &&
        error.name === "LeaseExpiredError" &&
        error.code === "ERR_LEASE_EXPIRED" &&
        error.requiredMarginMs === marginMs &&
        error.remainingMs <= marginMs,
    );
  });
});

// The design's Verification section, with an in-memory grantor and fault injector.
describe("lease safety", () => {
  const grantor = new MemoryGrantor();
  const faultInjector = {
    blockGrantor: async (holderId) => grantor.block(holderId),
  };
  const holders = [];
  const acquireLease = async (resource, holderId = "node-a") => {
    const holder = new LeaseHolder(grantor, { resource, holderId, leaseMs, marginMs });
    holder.id = holderId;
    holders.push(holder);
    const result = await holder.acquire();
    assert.equal(result.acquired, true);
    return holder;
  };
  const tryAcquireLease = async (resource, holderId) => {
    const holder = new LeaseHolder(grantor, { resource, holderId, leaseMs, marginMs });
    holders.push(holder);
    return holder.acquire();
  };

  it("surrenders when renewal cannot reach the grantor", async function () {
    const holder = await acquireLease("resource-a");
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);

    await faultInjector.blockGrantor(holder.id);
    await sleep(leaseMs);

    assert.equal(holder.lease.isSafelyHeld(), false);
    assert.equal(holder.surrendered, true);
    assert.deepEqual(lost, ["margin_exhausted"]);
    assert.ok(holder.consecutiveFailures >= 1);
    // The grantor still held it for the holder when the holder gave up: surrender came first.
    assert.equal(grantor.currentHolder("resource-a"), null, "grant has lapsed by now");
    grantor.unblock(holder.id);
  });

  it("does not grant twice within one lease period", async function () {
    const first = await acquireLease("resource-b");
    const second = await tryAcquireLease("resource-b", "other-node");

    assert.equal(second.acquired, false);
    assert.equal(second.holder, "node-a");
    assert.ok(second.expiresInMs > 0);
    assert.equal(first.lease.isSafelyHeld(), true);
    await first.release();
  });

  it("rejects work from a holder whose token is stale", async function () {
    const holder = await acquireLease("resource-c");
    const oldToken = holder.lease.token;
    // The holder goes silent (as if paused) for two lease periods.
    grantor.block(holder.id);
    await sleep(leaseMs * 2);
    const replacement = await acquireLease("resource-c", "other-node");
    grantor.unblock(holder.id);

    const staleWrite = grantor.write("resource-c", "value", oldToken);
    assert.equal(grantor.write("resource-c", "newer", replacement.lease.token).accepted, true);
    const afterNewer = grantor.write("resource-c", "value", oldToken);

    assert.equal(staleWrite.accepted, true, "nobody wrote with a newer token yet");
    assert.equal(afterNewer.accepted, false);
    assert.ok(replacement.lease.token > oldToken);
    await replacement.release();
  });

  it("the design's LeaseHolder surface is all there", async () => {
    const holder = new LeaseHolder(grantor, {
      resource: "resource-d",
      holderId: "node-d",
      leaseMs: 900,
      marginMs: 100,
    });
    assert.equal(holder.grantor, grantor);
    assert.equal(holder.resource, "resource-d");
    assert.equal(holder.holderId, "node-d");
    assert.equal(holder.renewIntervalMs, 300);
    assert.equal(holder.consecutiveFailures, 0);
    assert.equal(holder.lease.durationMs, 900);
    assert.equal(holder.lease.safetyMarginMs, 100);
    assert.equal(holder.onLeaseLost, null);
    const result = await holder.acquire();
    assert.deepEqual(result, { acquired: true, token: holder.lease.token });
    const reasons = [];
    holder.onLeaseLost = (reason) => reasons.push(reason);
    holder.surrender("margin exhausted during renewal failures");
    assert.deepEqual(reasons, ["margin exhausted during renewal failures"]);
    assert.equal(holder.lease.acquiredAt, null);
    assert.equal(holder.lease.isSafelyHeld(), false);
  });

  it("leaves no timers behind once every holder is done", async () => {
    for (const holder of holders) await holder.release();
    assert.ok(await eventually(() => holders.every((h) => !h.lease.isSafelyHeld()), 100));
  });
});
