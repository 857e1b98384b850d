// Batched renewals: LeaseHolders sharing one HttpGrantor with `batchRenewals`, against the real
// reference grantor process. Every request passes through a wrapper around `fetch` that counts
// it (and can hold it, as a grantor that stopped answering would), so the tests see exactly what
// went over the wire.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { HttpGrantor, LeaseHolder, isLeaseError } from "tenure";
import { startGrantor } from "./support/grantor-process.mjs";
import { sleep, eventually } from "./support/memory-grantor.mjs";

const BATCH = "/v1/renew/batch";

/**
 * A `fetch` that records every request (`path`, `at`, and for a batch its renewals) and, while
 * `block()` is in force, never answers: the request hangs until its signal aborts.
 */
function recordingFetch({ answer } = {}) {
  const requests = [];
  let blocked = false;
  const hanging = new Set();
  const wrapped = async (url, init) => {
    const path = new URL(url).pathname;
    const renewals = path === BATCH ? JSON.parse(init.body).renewals : undefined;
    requests.push({ path, at: performance.now(), renewals });
    const own = answer?.(path, init);
    if (own !== undefined) return own;
    if (blocked) {
      return new Promise((_, reject) => {
        const fail = () => reject(init.signal.reason);
        hanging.add(fail);
        init.signal.addEventListener("abort", fail, { once: true });
      });
    }
    return fetch(url, init);
  };
  return {
    fetch: wrapped,
    requests,
    batches: () => requests.filter((r) => r.path === BATCH),
    block() {
      blocked = true;
    },
    /** Lets requests through again and fails the ones left hanging. */
    unblock() {
      blocked = false;
      for (const fail of hanging) fail();
      hanging.clear();
    },
  };
}

/** Runs `make(i)` for `count` indices, `width` at a time. */
async function inWaves(count, width, make) {
  const results = [];
  for (let start = 0; start < count; start += width) {
    const wave = [];
    for (let i = start; i < Math.min(count, start + width); i += 1) wave.push(make(i));
    results.push(...(await Promise.all(wave)));
  }
  return results;
}

/** Acquires every holder (a hundred at a time); fails the test if one is not granted. */
async function acquireAll(holders) {
  await inWaves(holders.length, 100, async (i) => {
    const { acquired } = await holders[i].acquire();
    assert.equal(acquired, true, `holder ${i} was not granted`);
  });
}

/** Releases every holder still holding, a hundred at a time. */
async function releaseAll(holders) {
  await inWaves(holders.length, 100, (i) => holders[i].release());
}

describe("batched renewals against the reference grantor", () => {
  let grantorProcess;

  before(async () => {
    grantorProcess = await startGrantor();
  });

  after(async () => {
    await grantorProcess?.stop();
  });

  it("1,000 holders on one HttpGrantor: at most one request per renew interval, every lease held", async () => {
    // Settings that let a renewal wait a whole renew interval for its batch: then at most one
    // batch goes out per interval, however the leases' renewals are spread.
    const config = { leaseMs: 8_000, marginMs: 1_000, renewIntervalMs: 2_000, requestTimeoutMs: 5_000 };
    const maxDelayMs = HttpGrantor.batchDelayMs(config);
    assert.equal(maxDelayMs, 2_500);
    const wire = recordingFetch();
    const grantor = new HttpGrantor({ baseUrl: grantorProcess.url, fetch: wire.fetch, batchRenewals: { maxDelayMs } });
    const holders = Array.from(
      { length: 1_000 },
      (_, i) => new LeaseHolder(grantor, { ...config, resource: `fleet/${i}`, holderId: `worker-${i}` }),
    );
    const losses = [];
    for (const holder of holders) holder.onLeaseLost = (reason) => losses.push(reason);
    try {
      await acquireAll(holders);
      const heldFrom = performance.now();
      // Five renew intervals, checking every lease as it goes.
      while (performance.now() - heldFrom < 5 * config.renewIntervalMs) {
        await sleep(250);
        const unsafe = holders.filter((holder) => !holder.lease.isSafelyHeld()).length;
        assert.equal(unsafe, 0, `${unsafe} leases not safely held`);
      }
      assert.deepEqual(losses, []);
      const batches = wire.batches();
      assert.ok(batches.length >= 2, `only ${batches.length} batches`);
      for (let i = 1; i < batches.length; i += 1) {
        const gapMs = batches[i].at - batches[i - 1].at;
        assert.ok(gapMs >= config.renewIntervalMs - 5, `two batches ${gapMs.toFixed(0)} ms apart`);
      }
      assert.equal(wire.requests.filter((r) => r.path === "/v1/renew").length, 0);
      // Once every lease has renewed, each batch carries them all.
      for (const batch of batches.slice(-2)) assert.equal(batch.renewals.length, 1_000);
      for (const holder of holders) {
        const stats = holder.stats();
        assert.equal(holder.consecutiveFailures, 0);
        assert.equal(stats.renewFailures, 0);
        assert.ok(stats.renewals >= 2, `${holder.resource}: ${stats.renewals} renewals`);
      }
    } finally {
      await releaseAll(holders);
    }
  });

  it("a grantor that stops answering: every holder surrenders at its own margin", async () => {
    const wire = recordingFetch();
    const grantor = new HttpGrantor({ baseUrl: grantorProcess.url, fetch: wire.fetch, batchRenewals: true });
    const leases = [3_000, 4_500, 6_000];
    const holders = Array.from({ length: 30 }, (_, i) => {
      const leaseMs = leases[i % leases.length];
      return new LeaseHolder(grantor, { resource: `blocked/${i}`, holderId: "h", leaseMs, marginMs: leaseMs / 5 });
    });
    const lostAt = new Map();
    for (const holder of holders) {
      holder.onLeaseLost = (reason) => lostAt.set(holder, { at: performance.now(), reason });
    }
    try {
      await acquireAll(holders);
      assert.ok(await eventually(() => holders.every((h) => h.stats().renewals >= 1), 10_000), "no renewal");
      wire.block();
      // Replies already on their way land within this; then each lease's grant is final.
      await sleep(300);
      const deadlines = new Map();
      for (const holder of holders) {
        assert.equal(lostAt.has(holder), false, "lost before its margin could have begun");
        deadlines.set(holder, holder.lease.acquiredAt + holder.lease.durationMs - holder.lease.safetyMarginMs);
      }
      assert.ok(await eventually(() => lostAt.size === holders.length, 10_000), `${lostAt.size} lost`);
      for (const holder of holders) {
        const { at, reason } = lostAt.get(holder);
        const deadline = deadlines.get(holder);
        assert.equal(reason, "margin_exhausted");
        assert.ok(at >= deadline - 20, `${holder.resource} surrendered ${(deadline - at).toFixed(0)} ms early`);
        // Late only by a loaded machine's timer: its own deadline, not a shared one.
        assert.ok(at <= deadline + 750, `${holder.resource} surrendered ${(at - deadline).toFixed(0)} ms late`);
        assert.equal(holder.lease.isSafelyHeld(), false);
      }
      const order = holders.map((h) => h.lease.durationMs);
      assert.equal(new Set(order).size, 3);
    } finally {
      wire.unblock();
    }
  });

  it("holders with different leases share batches, and each keeps its lease", async () => {
    const wire = recordingFetch();
    const grantor = new HttpGrantor({ baseUrl: grantorProcess.url, fetch: wire.fetch, batchRenewals: true });
    const configs = [
      { leaseMs: 3_000, marginMs: 600 },
      { leaseMs: 6_000, marginMs: 1_500 },
      { leaseMs: 9_000, marginMs: 2_000 },
    ];
    const holders = Array.from(
      { length: 60 },
      (_, i) => new LeaseHolder(grantor, { ...configs[i % 3], resource: `mixed/${i}`, holderId: "h" }),
    );
    try {
      await acquireAll(holders);
      const started = performance.now();
      await sleep(6_000);
      const elapsedMs = performance.now() - started;
      for (const holder of holders) {
        assert.equal(holder.lease.isSafelyHeld(), true, holder.resource);
        assert.equal(holder.stats().renewFailures, 0, holder.resource);
        assert.equal(holder.surrendered, false);
      }
      const batches = wire.batches();
      const renewals = batches.reduce((sum, batch) => sum + batch.renewals.length, 0);
      // The shortest interval is 1 s, and each of its renewals waits at most 500 ms: about one
      // batch per second carries everything due, however many leases there are.
      assert.ok(batches.length <= 2 * Math.ceil(elapsedMs / 1_000) + 2, `${batches.length} batches`);
      assert.ok(renewals >= 60 * 2, `${renewals} renewals`);
      assert.ok(renewals / batches.length >= 10, `${renewals} renewals in ${batches.length} batches`);
    } finally {
      await releaseAll(holders);
    }
  });

  it("an element the grantor refuses ends only that lease", async () => {
    const wire = recordingFetch();
    const grantor = new HttpGrantor({ baseUrl: grantorProcess.url, fetch: wire.fetch, batchRenewals: true });
    const config = { leaseMs: 2_400, marginMs: 500 };
    const holders = Array.from(
      { length: 20 },
      (_, i) => new LeaseHolder(grantor, { ...config, resource: `refused/${i}`, holderId: "h" }),
    );
    // One holder renews with a secret that is not its grant's: its elements fail on their own.
    const forged = {
      grant: (args) => grantor.grant(args),
      renew: (args) => grantor.renew({ ...args, leaseSecret: "bm90IHRoZSBzZWNyZXQ" }),
      release: (args) => grantor.release(args),
    };
    const impostor = new LeaseHolder(forged, { ...config, resource: "refused/forged", holderId: "h" });
    const losses = new Map();
    for (const holder of [...holders, impostor]) holder.onLeaseLost = (reason) => losses.set(holder, reason);
    try {
      await acquireAll([...holders, impostor]);
      assert.deepEqual(await grantor.revoke("refused/3"), { revoked: true });
      assert.ok(await eventually(() => losses.size === 2, 6_000), `${losses.size} lost`);
      assert.equal(losses.get(holders[3]), "revoked");
      assert.equal(losses.get(impostor), "margin_exhausted");
      assert.ok((impostor.stats().failureKinds.bad_request ?? 0) >= 1, JSON.stringify(impostor.stats()));
      await sleep(1_000);
      for (const holder of holders.filter((_, i) => i !== 3)) {
        assert.equal(holder.lease.isSafelyHeld(), true, holder.resource);
        assert.equal(holder.stats().renewFailures, 0, holder.resource);
      }
      // The impostor's elements shared batches with the others.
      const forgedIn = wire.batches().filter((b) => b.renewals.some((r) => r.resource === "refused/forged"));
      assert.ok(forgedIn.some((b) => b.renewals.length > 1));
    } finally {
      await releaseAll(holders);
    }
  });

  it("a holder with a short request timeout: its renewals wait within it, none is abandoned", async () => {
    const wire = recordingFetch();
    const grantor = new HttpGrantor({ baseUrl: grantorProcess.url, fetch: wire.fetch, batchRenewals: true });
    // A sixth of the lease would be 1 s; the holder gives each attempt 300 ms.
    const holder = new LeaseHolder(grantor, {
      resource: "short-timeout",
      holderId: "h",
      leaseMs: 6_000,
      marginMs: 600,
      renewIntervalMs: 500,
      requestTimeoutMs: 300,
    });
    try {
      assert.equal((await holder.acquire()).acquired, true);
      await sleep(2_200);
      const stats = holder.stats();
      assert.ok(stats.renewals >= 3, `${stats.renewals} renewals`);
      assert.equal(stats.renewFailures, 0, JSON.stringify(stats));
      assert.ok(wire.batches().length >= 3, `${wire.batches().length} batches`);
      assert.ok(stats.renewRttMaxMs < 300, `a renewal took ${stats.renewRttMaxMs} ms`);
    } finally {
      await holder.release();
    }
  });

  it("a renewal abandoned before its batch leaves is not sent; one abandoned after is answered", async () => {
    const wire = recordingFetch();
    const grantor = new HttpGrantor({
      baseUrl: grantorProcess.url,
      fetch: wire.fetch,
      batchRenewals: { maxDelayMs: 300 },
    });
    const granted = [];
    for (const resource of ["abandon/a", "abandon/b"]) {
      const reply = await grantor.grant({ resource, holder: "h", durationMs: 10_000, requestId: "g" });
      granted.push({ resource, holder: "h", token: reply.token, durationMs: 10_000 });
    }
    const early = new AbortController();
    const late = new AbortController();
    const dropped = grantor.renew({ ...granted[0], requestId: "1", signal: early.signal });
    const sent = grantor.renew({ ...granted[1], requestId: "1", signal: late.signal });
    await sleep(50);
    early.abort();
    await assert.rejects(dropped, (error) => isLeaseError(error) && error.kind === "unreachable");
    assert.ok(await eventually(() => wire.batches().length === 1, 2_000));
    late.abort();
    assert.deepEqual(await sent, { renewed: true, token: granted[1].token, durationMs: 10_000 });
    assert.deepEqual(
      wire.batches()[0].renewals.map((r) => r.resource),
      ["abandon/b"],
    );
    for (const lease of granted) await grantor.release(lease);
  });

  it("a lease abandoned while waiting waits at most half as long from then on, until released", async () => {
    const wire = recordingFetch();
    const grantor = new HttpGrantor({ baseUrl: grantorProcess.url, fetch: wire.fetch, batchRenewals: { maxDelayMs: 1_000 } });
    const lease = { resource: "learn", holder: "h", durationMs: 10_000 };
    const grant = async (requestId) => ({ ...lease, token: (await grantor.grant({ ...lease, requestId })).token });
    let held = await grant("g1");
    /** How long a renewal with a fresh id waited before its batch went out. */
    const waited = async (requestId) => {
      const calledAt = performance.now();
      const reply = await grantor.renew({ ...held, requestId });
      assert.equal(reply.renewed, true, JSON.stringify(reply));
      return wire.batches().at(-1).at - calledAt;
    };
    assert.ok((await waited("1")) >= 990);
    // Its holder gives up after 400 ms (as a holder whose budget is shorter than the delay would).
    const giveUp = new AbortController();
    const abandoned = grantor.renew({ ...held, requestId: "2", signal: giveUp.signal });
    await sleep(400);
    giveUp.abort();
    await assert.rejects(abandoned);
    assert.ok((await waited("3")) < 100, "the retry waited"); // a retry goes at once
    const capped = await waited("4");
    assert.ok(capped >= 190 && capped < 400, `waited ${capped} ms, not about 200`);
    await grantor.release(held);
    held = await grant("g2");
    assert.ok((await waited("5")) >= 990, "a released lease kept what was learned");
    await grantor.release(held);
  });

  it("splits at maxBatch, and retries a lease at once after its batch failed", async () => {
    let failNext = 1;
    const wire = recordingFetch({
      answer: (path) => {
        if (path !== BATCH || failNext === 0) return undefined;
        failNext -= 1;
        return new Response('{"error":{"code":"storage_unavailable","message":"test"}}', {
          status: 503,
          headers: { "content-type": "application/json" },
        });
      },
    });
    const grantor = new HttpGrantor({
      baseUrl: grantorProcess.url,
      fetch: wire.fetch,
      batchRenewals: { maxDelayMs: 1_000, maxBatch: 10 },
    });
    const leases = [];
    for (let i = 0; i < 25; i += 1) {
      const resource = `split/${i}`;
      const reply = await grantor.grant({ resource, holder: "h", durationMs: 20_000, requestId: "g" });
      leases.push({ resource, holder: "h", token: reply.token, durationMs: 20_000 });
    }
    // The first batch of ten fails: each of its renewals fails as a retryable server error.
    const first = await Promise.allSettled(leases.slice(0, 10).map((l) => grantor.renew({ ...l, requestId: "1" })));
    for (const outcome of first) {
      assert.equal(outcome.status, "rejected");
      assert.equal(outcome.reason.kind, "server_error");
      assert.equal(outcome.reason.status, 503);
    }
    // Their retries do not wait for a batch to fill or for the delay.
    const retriedAt = performance.now();
    const retried = await grantor.renew({ ...leases[0], requestId: "2" });
    assert.equal(retried.renewed, true);
    assert.ok(wire.batches().at(-1).at - retriedAt < 200, "the retry waited for its batch");
    const before = wire.batches().length;
    const all = await Promise.all(leases.map((l) => grantor.renew({ ...l, requestId: "3" })));
    assert.ok(all.every((reply) => reply.renewed === true));
    const sizes = wire
      .batches()
      .slice(before)
      .map((b) => b.renewals.length)
      .sort((a, b) => b - a);
    assert.deepEqual(sizes.slice(0, 2), [10, 10]);
    assert.equal(sizes.reduce((a, b) => a + b, 0), 25);
    for (const lease of leases) await grantor.release(lease);
  });

  it("a grantor without the batch route: renewals go one by one", async () => {
    const wire = recordingFetch({
      answer: (path) =>
        path === BATCH
          ? new Response('{"error":{"code":"not_implemented","message":"reserved"}}', {
              status: 501,
              headers: { "content-type": "application/json" },
            })
          : undefined,
    });
    const grantor = new HttpGrantor({ baseUrl: grantorProcess.url, fetch: wire.fetch, batchRenewals: true });
    const holder = new LeaseHolder(grantor, { resource: "older", holderId: "h", leaseMs: 1_500, marginMs: 300 });
    try {
      assert.equal((await holder.acquire()).acquired, true);
      await sleep(2_000);
      assert.equal(holder.lease.isSafelyHeld(), true);
      assert.equal(holder.stats().renewFailures, 0);
      assert.equal(wire.batches().length, 1);
      assert.ok(wire.requests.filter((r) => r.path === "/v1/renew").length >= 2);
    } finally {
      await holder.release();
    }
  });
});

describe("batch settings", () => {
  it("refuses bad options with the field named", () => {
    const bad = [
      [{ maxDelayMs: -1 }, "batchRenewals.maxDelayMs"],
      [{ maxDelayMs: Number.NaN }, "batchRenewals.maxDelayMs"],
      [{ maxBatch: 0 }, "batchRenewals.maxBatch"],
      [{ maxBatch: 10_001 }, "batchRenewals.maxBatch"],
      [{ maxBatch: 2.5 }, "batchRenewals.maxBatch"],
      [{ maxDelay: 5 }, "batchRenewals"],
      ["yes", "batchRenewals"],
    ];
    for (const [batchRenewals, field] of bad) {
      assert.throws(
        () => new HttpGrantor({ baseUrl: "http://127.0.0.1:1", batchRenewals }),
        (error) => error.code === "ERR_LEASE_CONFIG" && error.field === field,
        JSON.stringify(batchRenewals),
      );
    }
  });

  it("batchDelayMs is half of the shortest renewal budget among the holders", () => {
    // Defaults: a third of the lease to renew, a third to time out: half of 5 s.
    assert.equal(HttpGrantor.batchDelayMs({ leaseMs: 15_000, marginMs: 3_000 }), 2_500);
    // The margin leaves less than the timeout: half of (10 − 6 − 3.333) s.
    assert.equal(HttpGrantor.batchDelayMs({ leaseMs: 10_000, marginMs: 6_000 }), 333);
    assert.equal(
      HttpGrantor.batchDelayMs([
        { leaseMs: 20_000, marginMs: 4_000, renewIntervalMs: 5_000, requestTimeoutMs: 11_000 },
        { leaseMs: 60_000, marginMs: 10_000 },
      ]),
      5_500,
    );
    assert.throws(() => HttpGrantor.batchDelayMs({ leaseMs: 1_000 }), (e) => e.field === "marginMs");
    assert.throws(
      () => HttpGrantor.batchDelayMs({ leaseMs: 1_000, marginMs: 500, renewIntervalMs: 600 }),
      (e) => e.field === "renewIntervalMs",
    );
    assert.throws(() => HttpGrantor.batchDelayMs([]), (e) => e.code === "ERR_LEASE_CONFIG");
  });
});
