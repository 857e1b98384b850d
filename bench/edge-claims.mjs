// Benchmark: work-claim throughput of the edge grantors, items completed per second, each against
// the reference grantor (`tenure-grantor serve`, release build, SQLite) in the same run with the
// same claims workers (tests/js/fixtures/claims/worker.js: WorkClaimer, one claim and one fenced
// completion per item, claimMs 2000, one item at a time per worker, as bench/claims.mjs):
//
// - workerd: 1 and 3 Workers (the bench Worker of tests/js/fixtures/durable-object, one claims
//   worker per Worker) through DurableObjectGrantor on one LeaseGrantorObject, against the same
//   Workers through HttpGrantor at the reference grantor, in a fresh workerd for each run. A
//   claims worker's whole run is one invocation, and local workerd does not survive a long one
//   (see SLICE_MS in bench/durable-object.mjs): keep --items small enough that each run ends
//   within the clients' 10 s request timeout (the bench warns when a run took longer);
// - Deno: 1 and 3 Deno processes (bench/deno-kv-claims-worker.mjs) through DenoKvGrantor on one
//   local Deno KV file, against the same processes through HttpGrantor at the reference grantor.
//
// Each run fills a fresh queue with --items items (not timed), then every worker, already
// started and warmed (one queue-stats call), begins at one common moment; items/s is the items
// completed over the time from that moment until the last worker found the queue empty (a
// worker that finds nothing claimable looks again after 25–250 ms, so the tail adds a little to
// both targets alike). Every run is checked: the queue must end with every item done.
//
// Miniflare's workerd on this machine is not Cloudflare's production (storage is a local SQLite
// file, no network between Worker and object, no production limits), and Deno KV here is a local
// SQLite file, not Deno Deploy's KV. Figures, not pass/fail.
//
//   node bench/edge-claims.mjs [--items 1000]
//
// Needs `cargo build --release -p tenure-grantor` (or TENURE_GRANTOR_BIN) and pkg/ built.
// `measureEdgeClaims(options)` returns the rows for another script's table.

import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { argument } from "./args.mjs";
import { DENO, kvPermissions, repo, scratchDir } from "../tests/js/support/deno.mjs";

// The grantor as deployed, unless TENURE_GRANTOR_BIN names another; set before the helper that
// reads it is loaded.
process.env.TENURE_GRANTOR_BIN ??= join(repo, "target", "release", "tenure-grantor");
const { startGrantor, GRANTOR_BIN } = await import("../tests/js/support/grantor-process.mjs");
const { startDurableObjectGrantor } = await import("../tests/js/support/durable-object.mjs");
const { askWorker, NOT_PRODUCTION, PLATFORM } = await import("./durable-object.mjs");
const { grantorAt } = await import("../tests/js/support/claims.mjs");
const { HttpGrantor } = await import("tenure");

const DENO_WORKER = join(repo, "bench", "deno-kv-claims-worker.mjs");
/** Workers at once: one, and three (the three Workers of the issue). */
export const WORKERS = [1, 3];
const CLAIM_MS = 2000;
/** Time to start (and warm) every worker before the common start. */
const START_DELAY_MS = 4_000;

/** One Deno process of bench/deno-kv-claims-worker.mjs; resolves its JSON line. */
function deno(db, dir, settings) {
  // Loopback network for both targets, so that the two differ in nothing but the grantor.
  const permissions = [...kvPermissions(dir), "--allow-net=127.0.0.1"];
  return new Promise((resolve, reject) => {
    const child = spawn(DENO, ["run", ...permissions, DENO_WORKER, db, JSON.stringify(settings)], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.once("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`deno ${settings.op} exited with ${code}: ${err}`))));
  });
}

/** The figures of one run from the workers' reports; throws unless every item was done once. */
function figuresOf(reports, startAtMs, items, stats, label) {
  const completed = reports.reduce((n, r) => n + r.completions.length, 0);
  if (stats.done !== items || completed !== items) {
    throw new Error(`${label}: ${completed} completions reported, queue stats ${JSON.stringify(stats)}, ${items} enqueued`);
  }
  const seconds = (Math.max(...reports.map((r) => r.endedAtMs)) - startAtMs) / 1000;
  return { completed, seconds, perSecond: completed / seconds, lateMs: Math.max(...reports.map((r) => r.lateMs)) };
}

/**
 * Items per second in workerd (Durable Object against the reference) and Deno (Deno KV against
 * the reference), for 1 and 3 workers: `[{runtime, workers, edge, reference, ratio,
 * loadAverage}]`, each ratio edge / reference.
 */
export async function measureEdgeClaims({ items = 1000, runtimes = ["workerd", "deno"], log = () => {} } = {}) {
  const benchWorker = (name) => ({
    name,
    entry: "bench-worker.js",
    imports: [
      ["grant-loops.js", "../../../../bench/grant-loops.js"],
      ["claims-worker.js", "../claims/worker.js"],
    ],
  });
  const names = Array.from({ length: Math.max(...WORKERS) }, (_, i) => `bench-${i + 1}`);
  const reference = await startGrantor();
  const objects = runtimes.includes("workerd") ? await startDurableObjectGrantor({ workers: names.map(benchWorker) }) : null;
  const scratch = scratchDir("bench-edge-claims");
  const db = join(scratch, "claims.sqlite3");
  const payloads = (count) => Array.from({ length: count }, (_, n) => ({ payload: { n } }));
  const rows = [];
  try {
    for (const runtime of runtimes) {
      for (const workers of WORKERS) {
        const row = { runtime, workers };
        for (const target of ["edge", "reference"]) {
          const queue = `bench-${runtime}-${workers}-${target}`;
          log(`edge-claims bench: ${runtime}, ${workers} workers, ${target}`);
          const options = { queue, claimMs: CLAIM_MS };
          if (runtime === "workerd") {
            const at = target === "edge" ? { name: "claims" } : { baseUrl: reference.url };
            // A fresh workerd (same storage) for each run: see SLICE_MS in bench/durable-object.mjs.
            await objects.restart();
            // Filled and checked from Node over HTTP: the object through the grantor Worker.
            const client = target === "edge" ? new HttpGrantor({ baseUrl: objects.url("claims") }) : grantorAt(reference.url);
            for (let first = 0; first < items; first += 1000) await client.enqueue(queue, payloads(Math.min(1000, items - first)));
            const startAtMs = Date.now() + START_DELAY_MS;
            const reports = await Promise.all(
              names.slice(0, workers).map((name) => askWorker(objects, name, { run: "claims", ...at, ...options, workerId: name, startAtMs })),
            );
            row[target] = figuresOf(reports, startAtMs, items, await client.queueStats(queue), `${runtime} ${workers} ${target}`);
          } else {
            const at = target === "edge" ? {} : { baseUrl: reference.url };
            await deno(db, scratch, { op: "enqueue", ...at, queue, items });
            const startAtMs = Date.now() + START_DELAY_MS;
            const reports = await Promise.all(
              Array.from({ length: workers }, (_, i) => deno(db, scratch, { op: "work", ...at, ...options, workerId: `deno-${i + 1}`, startAtMs })),
            );
            const stats = await deno(db, scratch, { op: "stats", ...at, queue });
            row[target] = figuresOf(reports, startAtMs, items, stats, `${runtime} ${workers} ${target}`);
          }
        }
        row.ratio = row.edge.perSecond / row.reference.perSecond;
        row.loadAverage = loadavg()[0];
        rows.push(row);
      }
    }
    return rows;
  } finally {
    await objects?.stop();
    await reference.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const items = argument("items", 1000);
  const rows = await measureEdgeClaims({ items, log: (line) => process.stderr.write(`${line}\n`) });
  console.log(
    `edge claims: ${items} items per run, claimMs ${CLAIM_MS}, one claim + one completion per item, one item at a time per worker; ` +
      `reference grantor ${GRANTOR_BIN.replace(`${repo}/`, "")} (SQLite)`,
  );
  console.log(`workerd: ${PLATFORM}. NOTE: ${NOT_PRODUCTION}`);
  console.log("Deno: one local Deno KV file (SQLite), not Deno Deploy's KV.");
  console.log("runtime   workers   grantor            edge items/s   reference items/s   ratio   load avg");
  for (const { runtime, workers, edge, reference, ratio, loadAverage } of rows) {
    const grantor = runtime === "workerd" ? "Durable Object" : "Deno KV";
    console.log(
      `${runtime.padEnd(9)} ${String(workers).padStart(7)}   ${grantor.padEnd(16)} ${edge.perSecond.toFixed(0).padStart(14)}   ${reference.perSecond.toFixed(0).padStart(17)}  ` +
        `${ratio.toFixed(2).padStart(5)}x  ${loadAverage.toFixed(2).padStart(8)}`,
    );
  }
  for (const { runtime, workers, ...row } of rows) {
    for (const target of ["edge", "reference"]) {
      if (row[target].lateMs > 0) console.log(`${runtime} x${workers} ${target}: a worker began ${row[target].lateMs} ms after the common start`);
      if (runtime === "workerd" && row[target].seconds > 9) console.log(`${runtime} x${workers} ${target}: the run took ${row[target].seconds.toFixed(1)} s, near the clients' 10 s timeout (see the header)`);
    }
  }
  console.log("ratio: edge / reference (workerd: Durable Object / reference; Deno: Deno KV / reference); load avg: 1-minute, after the row");
}
