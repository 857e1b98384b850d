// Handing a lease over, campaigns that follow the grantor's change feed, and holders that
// recontend after a loss: LeaseHolder against the reference grantor.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { HttpGrantor, LeaseHolder, isLeaseError } from "tenure";
import { startGrantor } from "./support/grantor-process.mjs";
import { sleep } from "./support/memory-grantor.mjs";

const config = (resource, holderId, extra = {}) => ({
  resource,
  holderId,
  leaseMs: 15_000,
  marginMs: 2_000,
  ...extra,
});

/** `promise`, failing after `ms`. */
function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("handover against the reference grantor", () => {
  let grantorProcess;
  let grantor;

  before(async () => {
    grantorProcess = await startGrantor();
    grantor = new HttpGrantor({ baseUrl: grantorProcess.url });
  });

  after(async () => {
    await grantorProcess?.stop();
  });

  it("hands the lease to the named holder, ahead of another campaigner", async () => {
    const resource = "handover/named";
    const a = new LeaseHolder(grantor, config(resource, "a"));
    const b = new LeaseHolder(grantor, config(resource, "b"));
    const c = new LeaseHolder(grantor, config(resource, "c"));
    const first = await a.acquire();
    assert.equal(first.acquired, true);
    const lost = [];
    a.onLeaseLost = (reason) => lost.push(reason);
    const signal = a.signal;
    const campaignB = b.acquire({ wait: true });
    const campaignC = c.acquire({ wait: true });
    await sleep(300); // both denied, both waiting up to 15 s
    const started = performance.now();
    await a.handOff("c");
    const granted = await within(campaignC, 3_000, "the named holder's campaign");
    const gapMs = performance.now() - started;
    assert.equal(granted.acquired, true);
    assert.ok(granted.token > first.token, "a new token");
    assert.deepEqual(lost, ["handed_off"]);
    assert.ok(signal.aborted);
    assert.equal(signal.reason.code, "ERR_LEASE_LOST");
    assert.equal(signal.reason.reason, "handed_off");
    assert.ok(gapMs < 3_000, `gap ${gapMs} ms`);
    // b is still campaigning, and was not granted while c holds.
    const raced = await Promise.race([campaignB.then(() => "b acquired"), sleep(500).then(() => "waiting")]);
    assert.equal(raced, "waiting");
    await c.release();
    assert.equal((await within(campaignB, 3_000, "b after c's release")).acquired, true);
    await b.release();
  });

  it("a campaign follows the feed: a release lets the next holder in at once", async () => {
    const resource = "handover/release";
    const a = new LeaseHolder(grantor, config(resource, "a"));
    const b = new LeaseHolder(grantor, config(resource, "b"));
    await a.acquire();
    const campaign = b.acquire({ wait: true });
    await sleep(300); // denied with 15 s left: without the feed it would wait that long
    await a.release();
    assert.equal((await within(campaign, 3_000, "the campaign after a release")).acquired, true);
    await b.release();
  });

  it("hands over to whoever asks next without a name", async () => {
    const resource = "handover/anyone";
    const a = new LeaseHolder(grantor, config(resource, "a"));
    const b = new LeaseHolder(grantor, config(resource, "b"));
    await a.acquire();
    const campaign = b.acquire({ wait: true });
    await sleep(300);
    await a.handOff();
    assert.equal((await within(campaign, 3_000, "the next campaigner")).acquired, true);
    await b.release();
  });

  it("refuses to hand over to an invalid holder or to itself", async () => {
    const a = new LeaseHolder(grantor, config("handover/invalid", "a"));
    await a.acquire();
    for (const to of [42, "", "a", "x".repeat(300)]) {
      await assert.rejects(a.handOff(to), (e) => isLeaseError(e) && e.code === "ERR_LEASE_CONFIG");
    }
    assert.equal(a.lease.isSafelyHeld(), true, "a refused handOff leaves the hold alone");
    await a.release();
  });

  it("a recontending holder campaigns again after a loss, and stays out after release", async () => {
    const resource = "handover/recontend";
    const a = new LeaseHolder(grantor, config(resource, "a", { leaseMs: 3_000, marginMs: 500 }));
    const acquired = [];
    const lost = [];
    a.onAcquired = (token) => acquired.push(token);
    a.onLeaseLost = (reason) => lost.push(reason);
    const first = await a.acquire({ wait: true, recontend: true });
    assert.equal(first.acquired, true);
    assert.equal((await grantor.revoke(resource)).revoked, true);
    // The next renewal (within a second) is refused as revoked; the holder campaigns again.
    const deadline = Date.now() + 6_000;
    while (acquired.length < 2 && Date.now() < deadline) await sleep(50);
    assert.deepEqual(lost, ["revoked"]);
    assert.equal(acquired.length, 2, `acquisitions: ${acquired}`);
    assert.ok(acquired[1] > acquired[0]);
    assert.equal(a.lease.isSafelyHeld(), true);
    await a.release();
    assert.equal((await grantor.revoke(resource)).revoked, false);
    await sleep(1_500);
    assert.equal(acquired.length, 2, "no campaign after release");
  });

  it("without recontend a loss leaves the holder out", async () => {
    const resource = "handover/no-recontend";
    const a = new LeaseHolder(grantor, config(resource, "a", { leaseMs: 3_000, marginMs: 500 }));
    const lost = [];
    a.onLeaseLost = (reason) => lost.push(reason);
    await a.acquire({ wait: true });
    await grantor.revoke(resource);
    const deadline = Date.now() + 4_000;
    while (lost.length === 0 && Date.now() < deadline) await sleep(50);
    assert.deepEqual(lost, ["revoked"]);
    await sleep(1_500);
    assert.equal((await grantor.status(resource)).holder, null);
  });
});
