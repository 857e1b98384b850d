// Benchmark: work-claim throughput against the real grantor (debug build unless
// TENURE_GRANTOR_BIN names another), in items per second for 1 and for 4 workers, in Node
// processes, Deno processes and workerd requests. Each item is a claim and a fenced completion,
// each a durable SQLite commit (synchronous=FULL), so the grantor's disk sets the pace. Figures,
// not pass/fail.

import { startGrantor } from "../tests/js/support/grantor-process.mjs";
import { enqueueAll, grantorAt, runWorkers } from "../tests/js/support/claims.mjs";

const ITEMS = Number(process.env.TENURE_BENCH_ITEMS ?? 1000);
const RUNTIMES = (process.env.TENURE_BENCH_RUNTIMES ?? "node,deno,workerd").split(",");

const grantor = await startGrantor();
const client = grantorAt(grantor.url);
const rows = [];
try {
  for (const runtime of RUNTIMES) {
    for (const workers of [1, 4]) {
      const queue = `bench-${runtime}-${workers}`;
      await enqueueAll(client, queue, Array.from({ length: ITEMS }, (_, n) => ({ n })));
      const started = performance.now();
      const reports = await runWorkers(runtime, workers, { baseUrl: grantor.url, queue });
      const seconds = (performance.now() - started) / 1000;
      const stats = await client.queueStats(queue);
      if (stats.done !== ITEMS) throw new Error(`${queue}: ${JSON.stringify(stats)}`);
      const completed = reports.reduce((n, r) => n + r.completions.length, 0);
      // Wall time includes starting the workers; the workers' own time excludes it.
      const busiest = Math.max(...reports.map((r) => r.elapsedMs)) / 1000;
      rows.push({ runtime, workers, completed, seconds, busiest });
    }
  }
} finally {
  await grantor.stop();
}

console.log(`work claims: ${ITEMS} items, claimMs 2000, one claim + one completion per item`);
console.log("runtime   workers   items/s (wall)   items/s (in workers)");
for (const { runtime, workers, completed, seconds, busiest } of rows) {
  console.log(
    `${runtime.padEnd(9)} ${String(workers).padStart(7)}   ${(completed / seconds).toFixed(0).padStart(14)}   ${(completed / busiest).toFixed(0).padStart(20)}`,
  );
}
