// Benchmark: BullMQ's completed jobs per second, the baseline of the grantor's claim+complete rows.
// A real redis-server (Debian's, started on a free 127.0.0.1 port with a temporary directory, the
// append-only file synced on every write as the grantor's SQLite commits are), N jobs added first
// (`addBulk`, 1,000 per call), then one Worker whose `concurrency` is the grantor run's connection
// count: both keep that many items in flight at once, each taken, processed (a processor that
// returns at once) and completed, from one client process. Completions are counted over a fixed
// window after a warm-up second, and over the same window the CPU time redis-server used
// (/proc/<pid>/stat) and this process used (the BullMQ client, `process.cpuUsage()`), per job.
// With `traceSyncs`, strace is attached to redis-server for the window instead and its sync calls
// (fsync, fdatasync, …) counted: a run of its own, as tracing slows Redis. Figures, not pass/fail.
//
// `measureBullmq({concurrency, jobs, seconds, traceSyncs})` is used by bench/table.mjs; run alone
// (`node bench/bullmq.mjs [--concurrency 16] [--jobs 50000] [--seconds 5]`) it prints one JSON line.

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Queue, Worker } from "bullmq";
import { startRedis } from "../tests/js/support/redis.mjs";
import { cpuSnapshot, cpuUsBetween, epochMs, singleProcess, traceSyncs as attachStrace } from "./server-cost.mjs";
import { argument } from "./args.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const require = createRequire(import.meta.url);
const BULLMQ_VERSION = require("bullmq/package.json").version;

/** BullMQ talks to Redis through ioredis, an optional peer dependency it does not install. */
function checkRedisClient() {
  try {
    require.resolve("ioredis", { paths: [require.resolve("bullmq")] });
  } catch {
    throw new Error("bench/bullmq.mjs: BullMQ needs its Redis client, ioredis: add ioredis to devDependencies");
  }
}

/**
 * Completed jobs per second of one BullMQ Worker with `concurrency` jobs in flight, over
 * `seconds` after a warm-up second, with `jobs` added before it starts. Rejects if the queue
 * ran dry before the window ended (add more jobs), so a figure never counts an idle worker.
 * Resolves `{jobsPerSecond, completed, seconds, concurrency, jobs, version, serverCpuUsPerOp,
 * clientCpuUsPerOp}`, and with `traceSyncs` also `syncs` (`{calls, total}`, redis-server's sync
 * calls in the window; then the other figures are those of a traced, slowed Redis).
 */
export async function measureBullmq({ concurrency = 16, jobs = 50_000, seconds = 5, traceSyncs = false } = {}) {
  checkRedisClient();
  const redis = await startRedis({ persistent: true });
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.command("INFO", "server"))?.[1]);
  if (!(redisPid > 0)) throw new Error("bullmq: redis-server did not report its process_id");
  const server = singleProcess(redisPid);
  const connection = { host: redis.redis.host, port: redis.redis.port, maxRetriesPerRequest: null };
  const queue = new Queue("bench", { connection });
  let worker;
  try {
    for (let start = 0; start < jobs; start += 1000) {
      const count = Math.min(1000, jobs - start);
      await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name: "job", data: { n: start + i } })));
    }
    let completed = 0;
    let failure;
    worker = new Worker("bench", async () => null, { connection, concurrency });
    worker.on("completed", () => {
      completed += 1;
    });
    worker.on("error", (error) => {
      failure ??= error;
    });
    await worker.waitUntilReady();
    await sleep(1000);
    const tracer = traceSyncs ? await attachStrace([redisPid]) : null;
    const before = completed;
    const started = performance.now();
    const startsAt = epochMs();
    const serverBefore = cpuSnapshot(server);
    const clientBefore = process.cpuUsage();
    await sleep(seconds * 1000);
    const counted = completed - before;
    const elapsed = (performance.now() - started) / 1000;
    const client = process.cpuUsage(clientBefore);
    const serverUs = cpuUsBetween(serverBefore, cpuSnapshot(server));
    const syncs = await tracer?.stop(startsAt, epochMs());
    if (failure !== undefined) throw failure;
    const left = await queue.getWaitingCount();
    if (left === 0) throw new Error(`bullmq: all ${jobs} jobs were done before the window ended; add more`);
    return {
      jobsPerSecond: counted / elapsed,
      completed: counted,
      seconds: elapsed,
      concurrency,
      jobs,
      version: BULLMQ_VERSION,
      serverCpuUsPerOp: serverUs / counted,
      clientCpuUsPerOp: (client.user + client.system) / counted,
      ...(syncs === undefined ? {} : { syncs }),
    };
  } finally {
    await worker?.close(true);
    await queue.close();
    await redis.cleanup();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await measureBullmq({
    concurrency: argument("concurrency", 16),
    jobs: argument("jobs", 50_000),
    seconds: argument("seconds", 5, { fraction: true }),
  });
  console.log(JSON.stringify(figures));
}
