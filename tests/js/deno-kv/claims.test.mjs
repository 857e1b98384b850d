// Work claims on Deno KV from several Deno processes sharing one local database: every item is
// completed exactly once, by the claim the grantor recorded; a process killed (SIGKILL) holding a
// claim loses it to another process once it runs out, under a larger claim token, and its item is
// still completed once.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertCompletedExactlyOnce } from "../support/claims.mjs";
import { denoProcess, repo, scratchDir } from "../support/deno.mjs";

const CLI = join(repo, "tests", "js", "fixtures", "claims", "deno-kv-cli.js");

/** Runs the CLI once to its end; resolves its final report. */
async function runCli(dir, db, options) {
  const process = denoProcess(CLI, [db, JSON.stringify(options)], { dir });
  const done = await process.next((event) => event.type === "done", 120_000);
  const { code, stderr } = await process.done;
  assert.equal(code, 0, stderr);
  return done;
}

/**
 * Every item of `ids` completed once, by the workers' records and by the grantor's (`records`,
 * read by a Deno process: Node cannot open the database).
 */
function assertExactlyOnce(ids, reports, records) {
  const grantor = { queueItem: async (_, id) => records.find((record) => record.id === id) };
  return assertCompletedExactlyOnce(assert, grantor, "", ids, reports);
}

describe("work claims on Deno KV from several Deno processes", () => {
  it("three processes complete every item exactly once", { timeout: 240_000 }, async () => {
    const dir = scratchDir("deno-kv-claims");
    const db = join(dir, "claims.sqlite3");
    const queue = "drain";
    const { ids } = await runCli(dir, db, { queue, enqueue: Array.from({ length: 120 }, (_, n) => ({ n, workMs: 5 })) });
    const options = { queue, claimMs: 3_000, marginMs: 800, concurrency: 2 };
    const reports = await Promise.all(["deno-1", "deno-2", "deno-3"].map((workerId) => runCli(dir, db, { ...options, workerId })));
    const { records, stats } = await runCli(dir, db, { queue, items: ids });
    await assertExactlyOnce(ids, reports, records);
    assert.ok(reports.filter((r) => r.completions.length > 0).length >= 2, "at least two processes completed items");
    assert.deepEqual([stats.pending, stats.claimed, stats.done, stats.dead], [0, 0, ids.length, 0]);
  });

  it("an enqueue larger than one atomic operation holds enqueues every item once", { timeout: 240_000 }, async () => {
    const dir = scratchDir("deno-kv-claims-large");
    const db = join(dir, "claims.sqlite3");
    const queue = "large";
    // 1,000 items with dedupe keys: 3,001 mutations and 1,001 checks, where Deno KV takes 1,000
    // and 100 in one atomic operation; the grantor commits them in parts.
    const enqueue = Array.from({ length: 1000 }, (_, n) => ({ n }));
    const first = await runCli(dir, db, { queue, enqueue });
    assert.equal(new Set(first.ids).size, 1000);
    const keyed = "keyed";
    const keyedRun = async () => {
      const process = denoProcess(
        join(repo, "tests", "js", "fixtures", "claims", "deno-kv-cli.js"),
        [db, JSON.stringify({ queue: keyed, enqueue, dedupeKeys: true })],
        { dir },
      );
      const done = await process.next((event) => event.type === "done", 120_000);
      assert.equal((await process.done).code, 0);
      return done;
    };
    const once = await keyedRun();
    const again = await keyedRun();
    assert.deepEqual(again.ids, once.ids, "the same keys name the same items");
    assert.equal(again.enqueued, 0, "nothing enqueued twice");
    const { stats } = await runCli(dir, db, { queue: keyed, items: [] });
    assert.deepEqual([stats.pending, stats.claimed, stats.done, stats.dead], [1000, 0, 0, 0]);
  });

  it("a process killed holding a claim loses it to another once it runs out", { timeout: 240_000 }, async () => {
    const dir = scratchDir("deno-kv-claims-kill");
    const db = join(dir, "claims.sqlite3");
    const queue = "kill";
    // The first item hangs on its first attempt: whoever takes it first is killed holding it.
    const payloads = [{ hangAttempts: 1 }, ...Array.from({ length: 20 }, (_, n) => ({ n }))];
    const { ids } = await runCli(dir, db, { queue, enqueue: payloads });
    const claimMs = 4_000;
    const victim = denoProcess(CLI, [db, JSON.stringify({ queue, workerId: "victim", claimMs, marginMs: 600 })], { dir });
    const working = await victim.next((event) => event.type === "working", 60_000);
    // Later than the claim was made: the claim runs out no earlier than claimMs after this.
    const workingAt = Date.now();
    assert.equal(working.itemId, ids[0]);
    victim.child.kill("SIGKILL");
    await victim.done;
    const survivor = await runCli(dir, db, { queue, workerId: "survivor", claimMs, marginMs: 600 });
    const { records } = await runCli(dir, db, { queue, items: ids });
    const hung = records[0];
    assert.equal(hung.state, "done");
    assert.equal(hung.completedBy, "survivor");
    assert.ok(hung.completedToken > working.token, `claim token ${hung.completedToken} after ${working.token}`);
    assert.equal(hung.attempts, 2, "the killed claim counted as an attempt");
    // The survivor could only take the hung item once the killed claim ran out. Left to itself it
    // finishes the other items in well under half of claimMs; half leaves room for the delay
    // between the claim and this test hearing of it on a loaded machine.
    const waitedMs = Date.now() - workingAt;
    assert.ok(waitedMs >= claimMs / 2, `the item was taken ${waitedMs} ms after its ${claimMs} ms claim began`);
    const completed = new Map(survivor.completions);
    assert.equal(completed.get(ids[0]), hung.completedToken);
    await assertExactlyOnce(
      ids.slice(1),
      [{ ...survivor, completions: survivor.completions.filter(([id]) => id !== ids[0]) }],
      records.slice(1),
    );
  });
});
