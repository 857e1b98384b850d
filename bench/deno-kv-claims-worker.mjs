// One Deno process of bench/edge-claims.mjs, on DenoKvGrantor over a local Deno KV file shared
// with the other processes, or (with `baseUrl`) on HttpGrantor at the reference grantor, so the
// two differ only in the grantor. `op`:
// - "enqueue": enqueues `items` items ({n}) into `queue`;
// - "work": one claims worker (tests/js/fixtures/claims/worker.js) from `startAtMs` (epoch ms),
//   so that processes started one after another work together; its report and `endedAtMs`;
// - "stats": the queue's stats.
// Prints one JSON line.
//
//   deno run --unstable-kv ... deno-kv-claims-worker.mjs <database> <settings as JSON>

import { DenoKvGrantor, openKv } from "tenure/deno-kv";
import { HttpGrantor } from "tenure";
import { runWorker } from "../tests/js/fixtures/claims/worker.js";

const [path, settingsText] = Deno.args;
const { op, baseUrl, queue, items, startAtMs, ...options } = JSON.parse(settingsText);
const kv = baseUrl === undefined ? await openKv(path) : null;
// One machine, one clock.
const grantor = kv === null ? new HttpGrantor({ baseUrl }) : new DenoKvGrantor(kv, { clockSkewMs: 0 });

const ENQUEUE_BATCH = 1000;
let result;
if (op === "enqueue") {
  // The protocol's 1,000 items per enqueue (DenoKvGrantor commits them in parts, within Deno KV's
  // limits on one atomic operation). Filling the queue is not timed.
  for (let first = 0; first < items; first += ENQUEUE_BATCH) {
    const batch = Array.from({ length: Math.min(ENQUEUE_BATCH, items - first) }, (_, i) => ({ payload: { n: first + i } }));
    await grantor.enqueue(queue, batch);
  }
  result = { enqueued: items };
} else if (op === "work") {
  // Not counted: the module compiled, the database opened, the connection made.
  await grantor.queueStats(queue);
  const lateMs = Math.max(0, Date.now() - startAtMs);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAtMs - Date.now())));
  const report = await runWorker({ ...options, queue, grantor });
  result = { ...report, lateMs, endedAtMs: Date.now() };
} else if (op === "stats") {
  result = await grantor.queueStats(queue);
} else {
  throw new Error(`unknown op: ${op}`);
}
console.log(JSON.stringify(result));
kv?.close();
