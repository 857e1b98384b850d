// Helpers for the work-claim suites and benchmark: enqueueing, claims workers as Node or Deno
// processes (tests/js/fixtures/claims/cli.js) or as workerd requests, and the exactly-once check.

import { spawn } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { HttpGrantor } from "tenure";
import { startWorkerd } from "./workerd.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** The repository root: Deno and Node resolve "tenure" from its node_modules. */
export const REPO = repo;
export const FIXTURES = join(repo, "tests", "js", "fixtures", "claims");
const CLI = join(FIXTURES, "cli.js");
export const DENO = join(repo, "node_modules", ".bin", "deno");

/** Deno with only what a worker needs: loopback network, and reading the package. */
export const DENO_RUN = ["run", "--no-lock", "--allow-net=127.0.0.1", `--allow-read=${repo}`];

/** Enqueues `payloads` in order, in batches the protocol allows; resolves the item ids. */
export async function enqueueAll(grantor, queue, payloads) {
  const ids = [];
  for (let i = 0; i < payloads.length; i += 1000) {
    const items = payloads.slice(i, i + 1000).map((payload) => ({ payload }));
    const reply = await grantor.enqueue(queue, items);
    ids.push(...reply.items.map((item) => item.itemId));
  }
  return ids;
}

/**
 * Starts one worker process (`runtime` is "node" or "deno"). Resolves `{ child, result, events }`:
 * `result` settles with the worker's final report, `events` collects what it announced, and
 * `next(type)` waits for the next event of a type.
 */
export function spawnWorker(runtime, options) {
  const [command, args] =
    runtime === "deno" ? [DENO, [...DENO_RUN, CLI]] : [process.execPath, [CLI]];
  const child = spawn(command, [...args, JSON.stringify(options)], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const events = [];
  const waiters = [];
  const lines = createInterface({ input: child.stdout });
  const result = new Promise((resolve, reject) => {
    lines.on("line", (line) => {
      const event = JSON.parse(line);
      if (event.type === "done") return resolve(event);
      events.push(event);
      for (const waiter of waiters.splice(0)) waiter(event);
    });
    // After the last line: the process may report its exit before its output is all read.
    lines.once("close", () =>
      child.once("close", (code, signal) =>
        reject(new Error(`${runtime} worker exited (${code ?? signal}) without a result: ${stderr}`)),
      ),
    );
  });
  result.catch(() => {});
  const next = (type) =>
    new Promise((resolve) => {
      const found = events.find((e) => e.type === type);
      if (found) return resolve(found);
      const wait = (event) => (event.type === type ? resolve(event) : waiters.push(wait));
      waiters.push(wait);
    });
  return { child, result, events, next };
}

/**
 * Runs `count` workers of `runtime` ("node", "deno" or "workerd") on `queue` at once, each with
 * its own worker id; resolves their reports.
 */
export async function runWorkers(runtime, count, options) {
  const ids = Array.from({ length: count }, (_, i) => `${runtime}-${i + 1}`);
  if (runtime !== "workerd") {
    return Promise.all(ids.map((workerId) => spawnWorker(runtime, { ...options, workerId }).result));
  }
  const workerd = await startWorkerd({ fixtureDir: FIXTURES, entry: "workerd-entry.js" });
  try {
    return await Promise.all(
      ids.map(async (workerId) => {
        const response = await workerd.fetch("/", {
          method: "POST",
          body: JSON.stringify({ ...options, workerId }),
        });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`workerd worker failed: ${text}`);
        return JSON.parse(text);
      }),
    );
  } finally {
    await workerd.dispose();
  }
}

/**
 * Checks that every item of `itemIds` was completed exactly once: the workers' completion
 * records hold each item once, and the grantor's record of who completed it names the same
 * claim token and worker. Returns the number of completions.
 */
export async function assertCompletedExactlyOnce(assert, grantor, queue, itemIds, reports) {
  const byItem = new Map();
  for (const report of reports) {
    for (const [itemId, token] of report.completions) {
      assert.ok(!byItem.has(itemId), `item ${itemId} was completed twice`);
      byItem.set(itemId, { token, workerId: report.workerId });
    }
  }
  assert.equal(byItem.size, itemIds.length, "every item completed");
  for (const itemId of itemIds) {
    const record = await grantor.queueItem(queue, itemId);
    const mine = byItem.get(itemId);
    assert.equal(record.state, "done", `item ${itemId}`);
    assert.equal(record.completedToken, mine.token, `item ${itemId}: completing token`);
    assert.equal(record.completedBy, mine.workerId, `item ${itemId}: completing worker`);
  }
  return byItem.size;
}

/** An HttpGrantor for `url`. */
export function grantorAt(url) {
  return new HttpGrantor({ baseUrl: url });
}
