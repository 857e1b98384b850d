// Four workers in each runtime (Node processes, Deno processes, workerd requests) process 500
// items against the real grantor: every item is completed exactly once, proven by the claim token
// the grantor recorded for it.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { startGrantor } from "../support/grantor-process.mjs";
import {
  DENO,
  REPO,
  assertCompletedExactlyOnce,
  enqueueAll,
  grantorAt,
  runWorkers,
} from "../support/claims.mjs";
import { workerdEntry } from "../support/workerd.mjs";

const ITEMS = 500;
const WORKERS = 4;

describe("four workers per runtime complete every item exactly once", () => {
  let grantor;
  let client;

  before(async () => {
    grantor = await startGrantor();
    client = grantorAt(grantor.url);
  });

  after(async () => {
    await grantor?.stop();
  });

  for (const runtime of ["node", "deno", "workerd"]) {
    it(`in ${runtime}`, { timeout: 120_000 }, async () => {
      const queue = `jobs-${runtime}`;
      const payloads = Array.from({ length: ITEMS }, (_, n) => ({ n }));
      const itemIds = await enqueueAll(client, queue, payloads);
      const reports = await runWorkers(runtime, WORKERS, { baseUrl: grantor.url, queue });

      assert.deepEqual(await client.queueStats(queue), {
        queue,
        pending: 0,
        claimed: 0,
        done: ITEMS,
        dead: 0,
      });
      const completed = await assertCompletedExactlyOnce(assert, client, queue, itemIds, reports);
      assert.equal(completed, ITEMS);
      for (const report of reports) {
        assert.equal(report.counts.lost, 0, `${report.workerId} lost a claim`);
        assert.equal(report.counts.completed, report.completions.length);
      }
      // Shared work: with 500 items, no worker sat idle throughout.
      assert.ok(reports.every((r) => r.completions.length > 0), JSON.stringify(reports.map((r) => r.counts)));
    });
  }

  it("each runtime loads its own entry of the package", () => {
    assert.equal(workerdEntry(), "./workerd.js");
    // Deno reads the package from node_modules, as Node does, and takes the same ES module entry.
    const resolved = execFileSync(DENO, ["eval", "--no-lock", 'console.log(import.meta.resolve("tenure"))'], {
      cwd: REPO,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    assert.match(resolved.trim(), /\/pkg\/index\.js$/);
    assert.match(import.meta.resolve("tenure"), /\/pkg\/index\.js$/);
  });
});
