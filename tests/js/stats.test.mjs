// holder.stats() against the real grantor, with delays injected where they happen in production:
// a slow grantor (a wrapper that holds each renewal back), a blocked event loop (a busy loop over
// the moment a renewal falls due), failing renewals, revocation and surrender. Bounds are loose
// on the slow side: the machine may be loaded.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { HttpGrantor, LeaseHolder } from "tenure";
import { startGrantor } from "./support/grantor-process.mjs";
import { sleep, eventually } from "./support/memory-grantor.mjs";

/** Forwards to `inner`, letting a test delay or fail renewals, or never answer them. */
function adjustable(inner) {
  const control = { renewDelayMs: 0, failRenewals: 0, blackHole: false };
  const grantor = {
    control,
    grant: (args) => inner.grant(args),
    async renew(args) {
      if (control.blackHole) return new Promise(() => {});
      if (control.failRenewals > 0) {
        control.failRenewals -= 1;
        throw new TypeError("fetch failed");
      }
      if (control.renewDelayMs > 0) await sleep(control.renewDelayMs);
      return inner.renew(args);
    },
    release: (args) => inner.release(args),
  };
  return grantor;
}

function busyWaitUntil(monoMs) {
  while (performance.now() < monoMs) {
    // Hold the event loop: no timer can fire until this returns.
  }
}

let resourceCount = 0;
const resource = () => `stats-${++resourceCount}`;

describe("holder.stats()", () => {
  let server;
  let http;

  before(async () => {
    server = await startGrantor();
    http = new HttpGrantor({ baseUrl: server.url });
  });

  after(async () => {
    if (server === undefined) return;
    await server.stop();
    rmSync(dirname(server.db), { recursive: true, force: true });
  });

  it("starts empty, with null percentiles", () => {
    const holder = new LeaseHolder(http, { resource: resource(), holderId: "a", leaseMs: 1_500, marginMs: 300 });
    assert.deepEqual(holder.stats(), {
      acquisitions: 0,
      acquireFailures: 0,
      renewals: 0,
      renewFailures: 0,
      releases: 0,
      losses: 0,
      consecutiveFailures: 0,
      lossReasons: {},
      failureKinds: {},
      samples: 0,
      renewRttP50Ms: null,
      renewRttP99Ms: null,
      renewRttMaxMs: null,
      timerSamples: 0,
      timerLatenessP50Ms: null,
      timerLatenessP99Ms: null,
      timerLatenessMaxMs: null,
      marginLowWaterMs: null,
    });
  });

  it("counts renewals against the real grantor, with loopback round trips", async () => {
    const holder = new LeaseHolder(http, { resource: resource(), holderId: "a", leaseMs: 1_500, marginMs: 300 });
    assert.equal((await holder.acquire()).acquired, true);
    assert.ok(await eventually(() => holder.stats().renewals >= 3, 5_000), "three renewals");
    const stats = holder.stats();
    await holder.release();

    assert.equal(stats.acquisitions, 1);
    assert.equal(stats.samples, stats.renewals);
    assert.ok(stats.renewRttP50Ms <= stats.renewRttP99Ms);
    assert.ok(stats.renewRttP99Ms <= stats.renewRttMaxMs);
    assert.ok(stats.renewRttP50Ms > 0, `p50 ${stats.renewRttP50Ms}`);
    assert.ok(stats.renewRttP99Ms < 300, `loopback p99 ${stats.renewRttP99Ms}`);
    // The first attempt of each renewal is timed; one may be in flight.
    assert.ok(stats.timerSamples - stats.renewals <= 1, JSON.stringify(stats));
    assert.ok(stats.timerLatenessP99Ms >= 0 && stats.timerLatenessP99Ms < 300, JSON.stringify(stats));
    // A renewal goes out 500 ms after the previous one was sent: at best 1000 ms remain.
    assert.ok(stats.marginLowWaterMs <= 1_000 + 1, `low water ${stats.marginLowWaterMs}`);
    assert.ok(stats.marginLowWaterMs > 1_000 - 400, `low water ${stats.marginLowWaterMs}`);
    assert.deepEqual([stats.consecutiveFailures, stats.losses, stats.lossReasons], [0, 0, {}]);
    assert.equal(holder.stats().releases, 1);
  });

  it("sees a slow grantor in the round trip and in the low water mark", async () => {
    const slow = adjustable(http);
    slow.control.renewDelayMs = 200;
    const holder = new LeaseHolder(slow, { resource: resource(), holderId: "a", leaseMs: 1_800, marginMs: 300 });
    await holder.acquire();
    assert.ok(await eventually(() => holder.stats().renewals >= 2, 6_000), "two renewals");
    const stats = holder.stats();
    await holder.release();

    assert.ok(stats.renewRttP50Ms >= 200, `p50 ${stats.renewRttP50Ms}`);
    assert.ok(stats.renewRttP50Ms < 200 + 300, `p50 ${stats.renewRttP50Ms}`);
    assert.ok(stats.renewRttP99Ms >= stats.renewRttP50Ms);
    // Due 600 ms after the last send, answered 200 ms later: at most 1800 - 600 - 200 remain.
    assert.ok(stats.marginLowWaterMs <= 1_000 + 1, `low water ${stats.marginLowWaterMs}`);
    assert.ok(stats.marginLowWaterMs > 1_000 - 400, `low water ${stats.marginLowWaterMs}`);
  });

  it("measures how late a renewal went out when the event loop was blocked", async () => {
    const holder = new LeaseHolder(http, { resource: resource(), holderId: "a", leaseMs: 3_000, marginMs: 500 });
    const sentAt = performance.now();
    await holder.acquire();
    // The renewal is due 1000 ms after the grant was sent; hold the loop until 1300 ms.
    await sleep(sentAt + 700 - performance.now());
    busyWaitUntil(sentAt + 1_300);
    assert.ok(await eventually(() => holder.stats().renewals >= 1, 3_000), "renewed after the block");
    const stats = holder.stats();
    await holder.release();

    assert.equal(stats.timerSamples, 1);
    assert.equal(stats.timerLatenessP99Ms, stats.timerLatenessMaxMs);
    assert.ok(stats.timerLatenessP99Ms >= 200, `late by ${stats.timerLatenessP99Ms}`);
    assert.ok(stats.timerLatenessP99Ms < 300 + 500, `late by ${stats.timerLatenessP99Ms}`);
    // What remained at the reply reflects the lateness: at most 3000 - 1300.
    assert.ok(stats.marginLowWaterMs <= 1_700 + 1, `low water ${stats.marginLowWaterMs}`);
    assert.ok(stats.marginLowWaterMs > 1_700 - 500, `low water ${stats.marginLowWaterMs}`);
  });

  it("counts failed renewals by kind, and a success resets consecutiveFailures", async () => {
    const flaky = adjustable(http);
    const holder = new LeaseHolder(flaky, {
      resource: resource(),
      holderId: "a",
      leaseMs: 3_000,
      marginMs: 500,
      retryDelayMs: 100,
    });
    await holder.acquire();
    flaky.control.failRenewals = 2;
    assert.ok(await eventually(() => holder.stats().renewFailures === 2, 3_000), "two failures");
    const during = holder.stats();
    assert.ok(await eventually(() => holder.stats().renewals === 1, 3_000), "then a renewal");
    const afterwards = holder.stats();
    await holder.release();

    assert.equal(during.consecutiveFailures, 2);
    assert.deepEqual(during.failureKinds, { unreachable: 2 });
    assert.equal(afterwards.consecutiveFailures, 0);
    assert.equal(afterwards.renewFailures, 2);
    assert.equal(afterwards.losses, 0);
    // Two backoffs (at least 50 + 100 ms) delayed the renewal past its due time.
    assert.ok(afterwards.marginLowWaterMs <= 2_000 - 150, `low water ${afterwards.marginLowWaterMs}`);
    assert.equal(afterwards.timerSamples, 1, "retries are not timer samples");
  });

  it("counts losses by reason: revoked, margin_exhausted, and a surrender's own reason", async () => {
    const grantor = adjustable(http);
    const name = resource();
    const holder = new LeaseHolder(grantor, { resource: name, holderId: "a", leaseMs: 900, marginMs: 200 });
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);

    await holder.acquire();
    await http.revoke(name);
    assert.ok(await eventually(() => lost.length === 1, 3_000), "revocation noticed");

    await holder.acquire();
    grantor.control.blackHole = true;
    assert.ok(await eventually(() => lost.length === 2, 3_000), "surrendered at the margin");
    grantor.control.blackHole = false;

    await holder.acquire({ wait: true });
    holder.surrender("shutting-down");
    assert.deepEqual(lost, ["revoked", "margin_exhausted", "shutting-down"]);
    const stats = holder.stats();
    assert.equal(stats.acquisitions, 3);
    assert.equal(stats.losses, 3);
    assert.deepEqual(stats.lossReasons, { revoked: 1, margin_exhausted: 1, "shutting-down": 1 });
    assert.equal(stats.releases, 0);
  });

  it("keeps percentiles over the last 256 renewals only", async () => {
    // An in-process grantor: 20 slow renewals (40 ms), then fast ones. Over every sample the p99
    // would be slow; over the last 256 it is fast.
    let renewCount = 0;
    const grantor = {
      grant: () => ({ granted: true, token: 1 }),
      async renew({ token }) {
        renewCount += 1;
        if (renewCount <= 20) await sleep(40);
        return { renewed: true, token };
      },
    };
    const holder = new LeaseHolder(grantor, {
      resource: "window",
      holderId: "a",
      leaseMs: 2_000,
      marginMs: 200,
      renewIntervalMs: 2,
    });
    await holder.acquire();
    assert.ok(await eventually(() => holder.stats().renewals >= 20 + 256 + 10, 20_000), "enough renewals");
    const stats = holder.stats();
    holder.surrender("done");

    assert.ok(stats.renewals > 256);
    assert.equal(stats.samples, 256);
    assert.ok(stats.timerSamples === 256, `timer samples ${stats.timerSamples}`);
    assert.ok(stats.renewRttMaxMs < 30, `max over the window ${stats.renewRttMaxMs}`);
    // The slow ones are still in the low water mark, which is over the holder's life.
    assert.ok(stats.marginLowWaterMs <= 2_000 - 2 - 40 + 1, `low water ${stats.marginLowWaterMs}`);
  });
});
