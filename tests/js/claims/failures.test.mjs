// Claims under failure, against the real grantor: a worker killed mid-item, a worker whose
// heartbeats stop reaching the grantor, and a poison item.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { HttpGrantor, WorkClaimer, isLeaseError } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { enqueueAll, spawnWorker } from "../support/claims.mjs";
import { runWorker } from "../fixtures/claims/worker.js";

const CLAIM_MS = 1500;
const MARGIN_MS = 400;

/** The grantor as a worker cut off from it sees it: claims and results pass, heartbeats hang. */
function heartbeatsBlocked(grantor) {
  return {
    claim: (args) => grantor.claim(args),
    complete: (args) => grantor.complete(args),
    fail: (args) => grantor.fail(args),
    heartbeat: ({ signal }) =>
      new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
  };
}

describe("work claims under failure", () => {
  let grantor;
  let client;

  before(async () => {
    grantor = await startGrantor({ args: ["--max-attempts", "3"] });
    client = new HttpGrantor({ baseUrl: grantor.url });
  });

  after(async () => {
    await grantor?.stop();
  });

  it("a worker killed mid-item loses it to another worker once its claim runs out", { timeout: 60_000 }, async () => {
    const queue = "killed";
    const [hung, ...rest] = await enqueueAll(client, queue, [{ hangAttempts: 1 }, { n: 1 }, { n: 2 }]);
    const options = { baseUrl: grantor.url, queue, claimMs: CLAIM_MS, marginMs: MARGIN_MS };
    const victim = spawnWorker("node", { ...options, workerId: "victim" });
    const working = await victim.next("working");
    assert.equal(working.itemId, hung);

    // Alive, the victim's heartbeats keep the claim well past one claimMs.
    await sleep(CLAIM_MS * 2);
    const kept = await client.queueItem(queue, hung);
    assert.equal(kept.state, "claimed");
    assert.equal(kept.claimToken, working.token);
    assert.equal(kept.claimedBy, "victim");

    victim.child.kill("SIGKILL");
    const killedAt = performance.now();
    const dead = await client.queueItem(queue, hung);
    assert.equal(dead.state, "claimed", "the claim outlives its worker until it runs out");

    const survivor = spawnWorker("node", { ...options, workerId: "survivor" });
    const report = await survivor.result;
    const finishedAfter = performance.now() - killedAt;
    const record = await client.queueItem(queue, hung);
    assert.equal(record.state, "done");
    assert.equal(record.completedBy, "survivor");
    assert.equal(record.completedToken, working.token + 1);
    assert.equal(record.attempts, 2);
    assert.deepEqual(
      report.completions.map(([id]) => id).sort((a, b) => a - b),
      [hung, ...rest].sort((a, b) => a - b),
    );
    // Reclaimed no sooner than the last heartbeat's claim ran out (at most claimMs before the kill).
    assert.ok(finishedAfter >= CLAIM_MS - CLAIM_MS / 3, `reclaimed ${finishedAfter} ms after the kill`);
  });

  it("a claim that lapsed cannot complete: refused before sending, and fenced at the grantor", { timeout: 30_000 }, async () => {
    const queue = "lapsed";
    const [first, second] = await enqueueAll(client, queue, [{ n: 1 }, { n: 2 }]);
    const cutOff = new WorkClaimer(heartbeatsBlocked(client), {
      queue,
      workerId: "cut-off",
      claimMs: CLAIM_MS,
      marginMs: MARGIN_MS,
    });
    const stale = [await cutOff.claim(), await cutOff.claim()];
    assert.deepEqual(stale.map((c) => c.item.id), [first, second]);
    assert.equal(stale[0].isSafelyHeld(), true);

    // Without heartbeats the claims' signals abort at the margin, before the grantor's expiry.
    const lost = await new Promise((resolve) =>
      stale[0].signal.addEventListener("abort", () => resolve(stale[0].signal.reason), { once: true }),
    );
    assert.equal(lost.code, "ERR_LEASE_LOST");
    assert.equal(stale[0].isSafelyHeld(), false);

    const healthy = new WorkClaimer(client, { queue, workerId: "healthy", claimMs: CLAIM_MS, marginMs: MARGIN_MS });
    let fresh = null;
    const deadline = performance.now() + 10_000;
    while (fresh === null && performance.now() < deadline) {
      fresh = await healthy.claim();
      if (fresh === null) await sleep(50);
    }
    assert.ok(fresh, "the lapsed claim was never reclaimed");
    assert.equal(fresh.item.id, first);
    assert.equal(fresh.token, stale[0].token + 1);

    // The client refuses to complete a claim it no longer safely holds: nothing is sent.
    await assert.rejects(stale[0].complete({ late: true }), (error) => {
      assert.ok(isLeaseError(error));
      assert.equal(error.code, "ERR_CLAIM_LOST");
      return true;
    });
    // Sent anyway, the old token is rejected by the grantor with its own code.
    await assert.rejects(
      client.complete({ queue, itemId: first, worker: "cut-off", token: stale[0].token, result: null }),
      (error) => error.code === "ERR_GRANTOR" && error.grantorCode === "stale_claim" && error.status === 409,
    );
    await fresh.complete({ by: "healthy" });

    // A failure report under a superseded claim is refused too, as ERR_CLAIM_STALE.
    let next = null;
    while (next === null && performance.now() < deadline) {
      next = await healthy.claim();
      if (next === null) await sleep(50);
    }
    assert.equal(next?.item.id, second);
    await assert.rejects(stale[1].fail(new Error("too late")), (error) => error.code === "ERR_CLAIM_STALE");
    await next.complete({ by: "healthy" });

    for (const itemId of [first, second]) {
      const record = await client.queueItem(queue, itemId);
      assert.equal(record.state, "done");
      assert.equal(record.completedBy, "healthy");
      assert.equal(record.completedToken, 2);
    }
  });

  it("a poison item is dead-lettered after the maximum attempts", { timeout: 30_000 }, async () => {
    const queue = "poison";
    const [poison, ...good] = await enqueueAll(client, queue, [{ poison: true }, { n: 1 }, { n: 2 }]);
    const report = await runWorker({ baseUrl: grantor.url, queue, workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS });
    assert.deepEqual(await client.queueStats(queue), { queue, pending: 0, claimed: 0, done: 2, dead: 1 });
    assert.equal(report.counts.failed, 3);
    assert.deepEqual(report.completions.map(([id]) => id).sort((a, b) => a - b), good);
    const record = await client.queueItem(queue, poison);
    assert.equal(record.state, "dead");
    assert.equal(record.attempts, 3);
    assert.equal(record.claimToken, 3);
    assert.equal(record.completedToken, null);
    assert.match(record.lastError.message, /poison item/);
    assert.equal(await new WorkClaimer(client, { queue, workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS }).claim(), null);
  });

  it("a failure is never refused for its description: huge, escaped or broken texts are cut to fit", { timeout: 30_000 }, async () => {
    const queue = "described";
    const errors = [
      // Control characters take six bytes each once escaped: 4096 of them would be 24 KiB.
      Object.assign(new Error("\u0001".repeat(100_000)), { name: "\u0002".repeat(100_000), code: "\u0003".repeat(100_000) }),
      // A cut inside a surrogate pair, and a lone surrogate, which the grantor's parser refuses.
      new Error(`${"x".repeat(4095)}\u{1f600}`),
      new Error("lone \ud800 surrogate"),
      "\u0004".repeat(100_000),
      { detail: "\u0005".repeat(4000) },
    ];
    await enqueueAll(client, queue, errors.map((_, n) => ({ n })));
    const claimer = new WorkClaimer(client, { queue, workerId: "w", claimMs: 10_000, marginMs: 2_000 });
    for (const error of errors) {
      const claim = await claimer.claim();
      const failed = await claim.fail(error);
      assert.ok(["pending", "dead"].includes(failed.state), `refused: ${String(error).slice(0, 40)}`);
      const record = await client.queueItem(queue, claim.item.id);
      assert.notEqual(record.lastError, null);
    }
  });
});
