// Cloudflare Workers' clocks: `Date.now()` and `performance.now()` stand still while code runs and
// move only when I/O completes (or a timer fires). Emulated here in Node, in one process, so the
// test is exact: after a long stretch of pure computation the claim still looks held, and the
// first I/O afterwards reveals that it is not, so `complete()` refuses without sending.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { HttpGrantor, WorkClaimer } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";

const CLAIM_MS = 1500;
const MARGIN_MS = 400;

/** Freezes both clocks between I/O events; returns a function that restores the real ones. */
function freezeClocksBetweenIo() {
  const realDateNow = Date.now;
  const realPerformanceNow = performance.now;
  const realSetTimeout = globalThis.setTimeout;
  const realFetch = globalThis.fetch;
  let wall = realDateNow();
  let mono = realPerformanceNow.call(performance);
  const tick = () => {
    wall = realDateNow();
    mono = realPerformanceNow.call(performance);
  };
  Date.now = () => wall;
  performance.now = () => mono;
  globalThis.setTimeout = (callback, ms, ...args) =>
    realSetTimeout(() => {
      tick();
      callback(...args);
    }, ms);
  globalThis.fetch = async (...args) => {
    try {
      return await realFetch(...args);
    } finally {
      tick();
    }
  };
  return () => {
    Date.now = realDateNow;
    delete performance.now;
    globalThis.setTimeout = realSetTimeout;
    globalThis.fetch = realFetch;
  };
}

/** Computes for `ms` of real time without yielding, as a CPU-bound handler would. */
function computeFor(ms) {
  const until = globalThis.process.hrtime.bigint() + BigInt(ms) * 1_000_000n;
  while (globalThis.process.hrtime.bigint() < until) {
    // Busy: no timer can fire and no I/O can complete.
  }
}

describe("with the Workers clock", () => {
  let grantor;
  let restore;

  before(async () => {
    grantor = await startGrantor();
    restore = freezeClocksBetweenIo();
  });

  after(async () => {
    restore?.();
    await grantor?.stop();
  });

  it("a claim re-checks its deadline after I/O, and refuses to complete a lapsed claim", async () => {
    const client = new HttpGrantor({ baseUrl: grantor.url });
    await client.enqueue("frozen", [{ payload: { n: 1 } }]);
    const claimer = new WorkClaimer(client, {
      queue: "frozen",
      workerId: "edge",
      claimMs: CLAIM_MS,
      marginMs: MARGIN_MS,
    });
    const claim = await claimer.claim();
    assert.ok(claim);

    computeFor(CLAIM_MS + 200);
    // The caveat: no I/O since the claim, so by these clocks no time has passed at all.
    assert.equal(claim.isSafelyHeld(), true);
    assert.equal(claim.signal.aborted, false);

    // The next I/O moves the clocks, and the claim sees it has lapsed.
    await client.queueStats("frozen");
    assert.equal(claim.isSafelyHeld(), false);
    assert.equal(claim.signal.aborted, true);
    await assert.rejects(claim.complete({ late: true }), (error) => error.code === "ERR_CLAIM_LOST");
    const record = await client.queueItem("frozen", claim.item.id);
    assert.notEqual(record.state, "done");
    assert.equal(record.completedToken, null);
  });
});
