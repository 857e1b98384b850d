// Benchmark: the Durable Object grantor (LeaseGrantorObject in workerd, through Miniflare) against
// the reference grantor (`tenure-grantor serve`, release build, SQLite), grants and renewals per
// second, both measured in the same run on the same machine by the same load generator:
//
// a. Over HTTP, by the native closed-loop load generator (`target/release/loadgen`, one thread,
//    one keep-alive connection per client, one request in flight on each, a 1 s warm-up not
//    counted): `grantor-acquire` (each grant on a resource never used before) and
//    `grantor-renew` (each connection renews its own lease back to back), at the grantor Worker's
//    `/grantor/<name>/` (the Worker passes each request to the object through its binding) and
//    at the reference grantor's base URL. Server CPU per operation comes from /proc over the
//    counted window: the whole workerd process (Worker and object) for one, the grantor for the
//    other.
// b. Through the binding: closed loops inside a Worker (bench/grant-loops.js in the bench Worker
//    of tests/js/fixtures/durable-object), through DurableObjectGrantor, against the same loops
//    in the same Worker through HttpGrantor at the reference grantor (workerd's outbound fetch to
//    127.0.0.1), in 1 s invocations (see SLICE_MS for why). Here the load generator shares
//    workerd with the object, as a Worker would.
//
// Miniflare's workerd on this machine is not Cloudflare's production: the object's storage is a
// local SQLite file, the Worker, the object and the load generator share these cores with no
// network between them, and no production limit, placement or replication applies. Figures,
// not pass/fail.
//
//   node bench/durable-object.mjs [--seconds 5] [--leases 100]
//
// Needs `cargo build --release -p tenure-grantor -p tenure-loadgen` (or TENURE_GRANTOR_BIN and
// TENURE_LOADGEN_BIN) and pkg/ built. `measureDurableObject(options)` returns the rows for
// another script's table.

import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { argument } from "./args.mjs";
import { childPid, measureLoadgen, singleProcess } from "./server-cost.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
// The grantor as deployed, unless TENURE_GRANTOR_BIN names another; set before the helper that
// reads it is loaded.
process.env.TENURE_GRANTOR_BIN ??= join(repo, "target", "release", "tenure-grantor");
const { startGrantor, GRANTOR_BIN } = await import("../tests/js/support/grantor-process.mjs");
const { startDurableObjectGrantor } = await import("../tests/js/support/durable-object.mjs");
export const LOADGEN_BIN = process.env.TENURE_LOADGEN_BIN ?? join(repo, "target", "release", "loadgen");

/** Clients at once: one (the latency of one request after another) and sixteen. */
export const CONNECTIONS = [1, 16];
const WARMUP_SECONDS = 1;
/**
 * The Worker's loops run in slices of this long, each its own invocation (a request from here to
 * the bench Worker), counted after SLICE_WARMUP_MS, `--seconds` slices in all, and in a fresh
 * workerd for each measurement. Local workerd does not survive one long invocation of this
 * load, whichever grantor it reaches:
 * - workerd allows one invocation 10,000 active timers, and each HttpGrantor request
 *   (DurableObjectGrantor's too) arms an `AbortSignal.timeout` of `timeoutMs` (10 s by default)
 *   that stays active until it fires, request done or not: past 1,000 requests a second for
 *   10 s the quota runs out, and the invocation hangs ("the Worker's code had hung") instead of
 *   failing;
 * - through the binding, a timer firing inside an invocation that is busy with the object made
 *   it hang too (seen with `timeoutMs` 1,000), and workerd itself exited mid-run after about
 *   30,000 requests to the object from one Worker in a few invocations (seen without any tenure
 *   code, in a plain loop of `stub.fetch`).
 * A 1 s slice makes a few thousand requests at most here, and ends long before any timer fires.
 */
const SLICE_MS = 1_000;
const SLICE_WARMUP_MS = 200;
const version = (name) => JSON.parse(readFileSync(join(repo, "node_modules", name, "package.json"), "utf8")).version;
export const PLATFORM = `Miniflare ${version("miniflare")}, workerd ${version("workerd")} (npm), local`;
export const NOT_PRODUCTION =
  "Miniflare's workerd on this machine, not Cloudflare's production: the object's storage is a local SQLite file, " +
  "Worker, object and load generator share these cores with no network between them, and no production limit, placement or replication applies.";

/** The bench Worker's name, and the module files it is given beside its entry. */
const BENCH_WORKER = {
  name: "bench",
  entry: "bench-worker.js",
  imports: [
    ["grant-loops.js", "../../../../bench/grant-loops.js"],
    ["claims-worker.js", "../claims/worker.js"],
  ],
};

/** POSTs `body` to the Worker `name` of `objects`; resolves its JSON reply. */
export async function askWorker(objects, name, body) {
  const worker = await objects.mf.getWorker(name);
  const response = await worker.fetch("http://bench.test/", { method: "POST", body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`Worker ${name}: HTTP ${response.status}: ${text}`);
  return JSON.parse(text);
}

/**
 * Grants and renewals per second of the Durable Object grantor and of the reference grantor:
 * `{http: [{mode, connections, durableObject, reference, ratio, loadAverage}], binding: [{kind,
 * concurrency, durableObject, reference, ratio, loadAverage}]}`, each ratio Durable Object /
 * reference.
 */
export async function measureDurableObject({ seconds = 5, leases = 100, log = () => {} } = {}) {
  const objects = await startDurableObjectGrantor({ workers: [BENCH_WORKER] });
  let reference;
  try {
    reference = await startGrantor();
    // Both servers are children of this process: Miniflare starts workerd, the helper the grantor.
    const servers = { durableObject: singleProcess(childPid("workerd")), reference: singleProcess(childPid("tenure-grantor")) };
    const urls = { durableObject: objects.url("loadgen"), reference: reference.url };

    const http = [];
    for (const mode of ["grantor-acquire", "grantor-renew"]) {
      for (const connections of CONNECTIONS) {
        const row = { mode, connections };
        for (const target of ["durableObject", "reference"]) {
          log(`durable-object bench: loadgen ${mode}, ${connections} connections, ${target}`);
          const args = [mode, "--url", urls[target], "--connections", String(connections), "--seconds", String(seconds), "--warmup-seconds", String(WARMUP_SECONDS)];
          row[target] = await measureLoadgen(LOADGEN_BIN, args, { cwd: repo, servers: [servers[target]] });
        }
        row.ratio = row.durableObject.opsPerSecond / row.reference.opsPerSecond;
        row.loadAverage = loadavg()[0];
        http.push(row);
      }
    }

    const binding = [];
    const targets = { durableObject: { name: "binding" }, reference: { baseUrl: reference.url } };
    for (const kind of ["grant", "renew"]) {
      for (const concurrency of CONNECTIONS) {
        const row = { kind, concurrency };
        for (const target of ["durableObject", "reference"]) {
          log(`durable-object bench: in-Worker loops, ${kind}, ${concurrency} in flight, ${target}`);
          // A fresh workerd (same storage) for each measurement: see SLICE_MS.
          await objects.restart();
          const figures = { done: 0, failed: 0, failures: {} };
          for (let slice = 0; slice < seconds; slice += 1) {
            const part = await askWorker(objects, BENCH_WORKER.name, {
              run: "loops",
              ...targets[target],
              id: `${kind}-${concurrency}-${slice}`,
              kind,
              leases,
              concurrency,
              // The first slice warms up the object, the isolate and the connections; each later
              // one only its own connections (a new invocation has its own).
              warmupMs: slice === 0 ? WARMUP_SECONDS * 1000 : SLICE_WARMUP_MS,
              durationMs: SLICE_MS,
            });
            figures.done += part.done;
            figures.failed += part.failed;
            for (const [key, n] of Object.entries(part.failures)) figures.failures[key] = (figures.failures[key] ?? 0) + n;
          }
          row[target] = { ...figures, perSecond: figures.done / ((seconds * SLICE_MS) / 1000) };
        }
        row.ratio = row.durableObject.perSecond / row.reference.perSecond;
        row.loadAverage = loadavg()[0];
        binding.push(row);
      }
    }
    return { http, binding };
  } finally {
    await reference?.stop();
    await objects.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seconds = argument("seconds", 5);
  const leases = argument("leases", 100);
  const { http, binding } = await measureDurableObject({ seconds, leases, log: (line) => process.stderr.write(`${line}\n`) });
  const count = (n) => Math.round(n).toLocaleString("en-US");
  const us = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
  console.log(`Durable Object grantor (${PLATFORM}) against the reference grantor (${GRANTOR_BIN.replace(`${repo}/`, "")}, SQLite), ${seconds} s counted after ${WARMUP_SECONDS} s warm-up`);
  console.log(`NOTE: ${NOT_PRODUCTION}`);
  console.log("");
  console.log("a. over HTTP, target/release/loadgen (native, closed loop, one thread): the grantor Worker's /grantor/<name>/ vs the reference grantor");
  console.log("mode              conns   durable object/s (p50, p99; server CPU/op)     reference/s (p50, p99; server CPU/op)          ratio   load avg");
  for (const { mode, connections, durableObject, reference, ratio, loadAverage } of http) {
    const cell = (f) => `${count(f.opsPerSecond).padStart(6)} (${f.p50Ms} ms, ${f.p99Ms} ms; ${us(f.serverCpuUsPerOp[0])} µs)`.padEnd(45);
    console.log(`${mode.padEnd(16)} ${String(connections).padStart(6)}   ${cell(durableObject)}  ${cell(reference)}  ${ratio.toFixed(2).padStart(5)}x  ${loadAverage.toFixed(2).padStart(8)}`);
  }
  console.log("server CPU/op: the workerd process (grantor Worker + object) / the grantor process, over the counted window; generator CPU/op: " +
    http.map((r) => `${us(r.durableObject.generatorCpuUsPerOp)}/${us(r.reference.generatorCpuUsPerOp)}`).join(", ") + " µs");
  console.log("");
  console.log("b. through the binding: closed loops in a Worker (bench/grant-loops.js), DurableObjectGrantor vs HttpGrantor at the reference grantor");
  console.log("kind       in flight   durable object/s   reference/s   ratio   failed   load avg");
  for (const { kind, concurrency, durableObject, reference, ratio, loadAverage } of binding) {
    console.log(
      `${(kind === "grant" ? "grants" : "renewals").padEnd(10)} ${String(concurrency).padStart(9)}   ${count(durableObject.perSecond).padStart(16)}   ${count(reference.perSecond).padStart(11)}  ` +
        `${ratio.toFixed(2).padStart(5)}x  ${`${durableObject.failed}/${reference.failed}`.padStart(7)}   ${loadAverage.toFixed(2).padStart(8)}`,
    );
  }
  for (const { kind, concurrency, ...row } of binding) {
    for (const target of ["durableObject", "reference"]) {
      if (Object.keys(row[target].failures).length) console.log(`${kind} x${concurrency} ${target} failures:`, JSON.stringify(row[target].failures));
    }
  }
  console.log("ratio: durable object / reference; failed: durable object/reference; load avg: 1-minute, after the row");
}
