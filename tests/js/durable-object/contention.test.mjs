// Concurrent claimants from several Workers: three Workers in one workerd (Miniflare), each bound
// to the grantor's Durable Object namespace, each running LeaseHolders on DurableObjectGrantor
// (through the binding) that contend for the same resources and write under their leases to the
// grantor's fenced resource (tests/js/fixtures/durable-object/claimant-worker.js). Everything
// contending runs inside workerd; Node only starts the Workers and judges their reports.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { HttpGrantor } from "tenure";
import { startDurableObjectGrantor } from "../support/durable-object.mjs";

const WORKERS = ["w1", "w2", "w3"];

describe("concurrent claimants from several Workers on one Durable Object grantor", () => {
  let objects;

  before(async () => {
    objects = await startDurableObjectGrantor({
      workers: WORKERS.map((name) => ({ name, entry: "claimant-worker.js", bindings: { WORKER_NAME: name } })),
    });
  });

  after(async () => {
    await objects?.stop();
  });

  it("no two holders of a resource overlap, and fenced writes land in token order with none lost", async () => {
    const name = "contention";
    const resources = ["ledger", "mailer"];
    const options = { name, resources, holders: 2, rounds: 4, writes: 3, leaseMs: 2_000, marginMs: 600 };
    const reports = await Promise.all(
      WORKERS.map(async (worker) => {
        const fetcher = await objects.worker(worker);
        const reply = await fetcher.fetch("http://claimant.test/", { method: "POST", body: JSON.stringify(options) });
        assert.equal(reply.status, 200, `${worker}: ${reply.status}`);
        return reply.json();
      }),
    );
    const holds = reports.flatMap((r) => r.holds);
    const writes = reports.flatMap((r) => r.writes);
    assert.deepEqual(reports.flatMap((r) => r.failures), [], "every holder got every hold it campaigned for");
    assert.equal(holds.length, WORKERS.length * options.holders * options.rounds);
    const grantor = new HttpGrantor({ baseUrl: objects.url(name) });

    for (const resource of resources) {
      const mine = holds.filter((h) => h.resource === resource).sort((x, y) => x.token - y.token);
      // Holds from every Worker, each with a token of its own.
      assert.deepEqual(new Set(mine.map((h) => h.holderId.split("/")[0])), new Set(WORKERS), resource);
      assert.equal(new Set(mine.map((h) => h.token)).size, mine.length, `${resource}: a token granted twice`);
      // In token order, each hold's belief ended before the next one's grant arrived: no overlap.
      for (let i = 1; i < mine.length; i += 1) {
        const [prev, next] = [mine[i - 1], mine[i]];
        assert.ok(
          prev.endedAt <= next.grantedAt,
          `${resource}: ${prev.holderId} (token ${prev.token}) believed until ${prev.endedAt}, ` +
            `${next.holderId} (token ${next.token}) granted at ${next.grantedAt}`,
        );
      }

      // The fenced log holds every accepted write, in the order accepted: tokens never go back,
      // and each hold's writes are in its own order. A write lost from the log would mean two
      // holders read the same log and both wrote: an overlap the fence alone would not show.
      const { payload: log, lastToken } = await grantor.fencedRead(resource);
      const accepted = writes.filter((w) => w.resource === resource && w.accepted);
      assert.ok(accepted.length >= mine.length, `${resource}: ${accepted.length} writes accepted for ${mine.length} holds`);
      const key = (w) => `${w.holder ?? w.holderId}#${w.token}#${w.seq}`;
      assert.deepEqual(new Set(log.map(key)), new Set(accepted.map(key)), `${resource}: the log is the accepted writes`);
      assert.equal(log.length, accepted.length);
      for (let i = 1; i < log.length; i += 1) {
        assert.ok(log[i].token >= log[i - 1].token, `${resource}: log out of token order at ${i}: ${JSON.stringify(log)}`);
        if (log[i].token === log[i - 1].token) assert.equal(log[i].seq, log[i - 1].seq + 1);
      }
      assert.equal(lastToken, log.at(-1).token);
      assert.equal((await grantor.status(resource)).holder, null, "every hold was released");
    }
    // No write was refused: each was made after checking the lease, by its current holder.
    assert.deepEqual(writes.filter((w) => !w.accepted), []);
  });
});
