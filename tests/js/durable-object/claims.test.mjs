// Work claims from a LeaseGrantorObject in workerd: three Workers, each running claims workers on
// DurableObjectGrantor through the namespace binding, drain one queue at once; every item is
// completed exactly once, by the claim the object recorded, across an eviction of the object
// mid-run. Items that fail come back and die after their last attempt.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { HttpGrantor } from "tenure";
import { startDurableObjectGrantor } from "../support/durable-object.mjs";
import { assertCompletedExactlyOnce, enqueueAll } from "../support/claims.mjs";

const CLAIMERS = ["claimer-1", "claimer-2", "claimer-3"];

describe("work claims from the Durable Object grantor", () => {
  let objects;
  let grantor;

  before(async () => {
    objects = await startDurableObjectGrantor({
      workers: CLAIMERS.map((name) => ({
        name,
        entry: "claimer-worker.js",
        imports: [["claims-worker.js", "../claims/worker.js"]],
      })),
    });
    grantor = new HttpGrantor({ baseUrl: objects.url("claims") });
  });

  after(async () => {
    await objects?.stop();
  });

  const run = async (name, options) => {
    const worker = await objects.mf.getWorker(name);
    const response = await worker.fetch("http://claimer.test/", { method: "POST", body: JSON.stringify(options) });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return JSON.parse(text);
  };

  it("three Workers through the binding complete every item exactly once, across an eviction", { timeout: 180_000 }, async () => {
    const queue = "drain";
    const itemIds = await enqueueAll(grantor, queue, Array.from({ length: 150 }, (_, i) => ({ n: i, workMs: 5 })));
    const options = { name: "claims", queue, claimMs: 3_000, marginMs: 800, concurrency: 4 };
    const reports = Promise.all(
      CLAIMERS.flatMap((name) => [1, 2].map((slot) => run(name, { ...options, workerId: `${name}-${slot}` }))),
    );
    // Mid-run the object loses its instance; claims and completions go on from storage.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await objects.evict("claims");
    const done = await reports;
    const total = await assertCompletedExactlyOnce(assert, grantor, queue, itemIds, done);
    assert.equal(total, itemIds.length);
    const busy = done.filter((report) => report.completions.length > 0);
    assert.ok(busy.length >= 2, `at least two claims workers completed items: ${done.map((r) => r.completions.length)}`);
    const stats = await grantor.queueStats(queue);
    assert.deepEqual(
      { pending: stats.pending, claimed: stats.claimed, done: stats.done, dead: stats.dead },
      { pending: 0, claimed: 0, done: itemIds.length, dead: 0 },
    );
  });

  it("a poison item is retried up to its attempts, then dead, while the rest complete", { timeout: 120_000 }, async () => {
    const queue = "poison";
    const items = [{ payload: { poison: true }, maxAttempts: 3 }, ...Array.from({ length: 10 }, (_, n) => ({ payload: { n } }))];
    const reply = await grantor.enqueue(queue, items);
    const [poisonId, ...rest] = reply.items.map((item) => item.itemId);
    const done = await Promise.all(
      CLAIMERS.map((name) => run(name, { name: "claims", queue, workerId: name, claimMs: 3_000, marginMs: 800 })),
    );
    await assertCompletedExactlyOnce(assert, grantor, queue, rest, done);
    const poison = await grantor.queueItem(queue, poisonId);
    assert.equal(poison.state, "dead");
    assert.equal(poison.attempts, 3);
    assert.match(JSON.stringify(poison.lastError), /poison item/);
  });
});
