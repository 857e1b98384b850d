// Grants and renewals per second against the Durable Object grantor (LeaseGrantorObject in
// workerd through Miniflare, over HTTP through the Worker in front of it), beside the reference
// grantor on SQLite measured in the same run, with their ratios. A benchmark, not a test: it
// fails only when a measurement cannot run.
//
// Every figure comes from the native closed-loop load generator (`target/release/loadgen`: one
// keep-alive connection per simulated client, one request in flight on each), pointed at each
// grantor's base URL; for the Durable Object that is the object's path on the Worker, so each
// request goes loadgen → the Worker → `stub.fetch` → the object → its storage. The object is
// one instance: it is the ceiling of one grantor name. The server CPU per operation is read from
// /proc over the counted window (the grantor process; workerd, which runs the Worker and the
// object), and loadgen reports its own.
//
// Needs release builds: cargo build --release -p tenure-grantor -p tenure-loadgen
//   node bench/durable-object.mjs [--seconds 5] [--connections 16] [--batch 100]

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cpus, loadavg } from "node:os";
import { argument } from "./args.mjs";
import { childPid, formatUs, measureLoadgen, singleProcess } from "./server-cost.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
// The reference grantor as deployed (a release build) unless TENURE_GRANTOR_BIN names another;
// set before the grantor helper is loaded, since it reads the variable once.
process.env.TENURE_GRANTOR_BIN ??= join(repo, "target", "release", "tenure-grantor");
const LOADGEN_BIN = process.env.TENURE_LOADGEN_BIN ?? join(repo, "target", "release", "loadgen");
const { startGrantor } = await import("../tests/js/support/grantor-process.mjs");
const { startDurableObjectGrantor } = await import("../tests/js/support/durable-object.mjs");

const seconds = argument("seconds", 5, { fraction: true });
const connections = argument("connections", 16);
const batch = argument("batch", 100);

/** The operations measured: loadgen's mode, its extra arguments, and what it counts. */
const OPERATIONS = [
  { label: "grants (a new resource each)", mode: "grantor-acquire", args: [], unit: "grants" },
  { label: "renewals, one per request", mode: "grantor-renew", args: [], unit: "renewals" },
  { label: `renewals, batches of ${batch}`, mode: "grantor-batch", args: ["--batch", String(batch)], unit: "renewals" },
];

const log = (text) => process.stderr.write(`${text}\n`);

/** Each operation against `url`, the CPU read from `server()`'s processes. */
async function measureAll(url, server) {
  const results = {};
  for (const op of OPERATIONS) {
    log(`  ${op.mode} ${url}`);
    results[op.mode] = await measureLoadgen(
      LOADGEN_BIN,
      [op.mode, "--url", url, "--seconds", String(seconds), "--connections", String(connections), ...op.args],
      { cwd: repo, servers: [server()] },
    );
  }
  return results;
}

const count = (n) => Math.round(n).toLocaleString("en-US");
const cell = (figures, unit) =>
  `${count(figures.opsPerSecond)} ${unit}/s (p50 ${figures.p50Ms.toFixed(1)} ms, p99 ${figures.p99Ms.toFixed(1)} ms; ` +
  `server ${formatUs(figures.serverCpuUsPerOp[0])} µs CPU/op)`;

log("reference grantor, SQLite");
const grantor = await startGrantor();
let reference;
try {
  reference = await measureAll(grantor.url, () => singleProcess(childPid("tenure-grantor")));
} finally {
  await grantor.stop();
}

const objects = {};
for (const [name, useSQLite] of [
  ["SQLite-backed", true],
  ["key-value-backed", false],
]) {
  log(`Durable Object grantor (${name} storage) in workerd`);
  const started = await startDurableObjectGrantor({ useSQLite });
  try {
    objects[name] = await measureAll(started.url("bench"), () => singleProcess(childPid("workerd")));
  } finally {
    await started.stop();
  }
}

// The grantor's own share: the same WebAssembly core (KvGrantorCore) in this Node process over an
// in-memory Map, one request at a time, so a reader can tell the decisions' cost from workerd's
// (the Worker, the hop to the object, storage).
log("the grantor core alone, in Node over a Map");
const core = await measureCore();

const cpu = cpus();
console.log(
  `Durable Object grantor against the reference grantor: node ${process.version}, ${cpu.length} cores ` +
    `(${cpu[0]?.model.trim()}), load average ${loadavg()[0].toFixed(1)} at the end, loadgen closed loop, ` +
    `${connections} connections, ${seconds} s counted each`,
);
console.log("");
console.log("| operation | Durable Object grantor | reference grantor (SQLite), same run | ratio |");
console.log("| --- | --- | --- | --- |");
for (const op of OPERATIONS) {
  const base = reference[op.mode];
  for (const [name, results] of Object.entries(objects)) {
    const ours = results[op.mode];
    const ratio = ours.opsPerSecond / base.opsPerSecond;
    console.log(`| ${op.label}, ${name} object | ${cell(ours, op.unit)} | ${cell(base, op.unit)} | ${ratio.toFixed(2)}x |`);
  }
}
console.log(
  `| the grantor core alone (Node, a Map for storage): grant / renewal | ${formatUs(core.grantUs)} / ${formatUs(core.renewUs)} µs per op ` +
    `(a renewal rewrites its ${count(core.recordBytes)}-byte record) | – | – |`,
);
console.log("");
console.log(
  "Durable Object figures: loadgen → the Worker → stub.fetch → one object, all in one workerd (Miniflare) " +
    "process whose CPU is the server's; its storage on local disk as Miniflare keeps it, not Cloudflare's. " +
    "On a shared machine the throughputs move from run to run; the CPU per operation moves less.",
);

/**
 * µs per grant (each of a new resource) and per renewal (of one lease, over and over) of the
 * grantor core itself, over a Map, after a warm-up; and the renewed record's size.
 */
async function measureCore() {
  const { kvGrantorCore, provideEdgeCore } = await import("../pkg/edge-core.js");
  const { inlineEdgeModule } = await import("../pkg/inline-edge.js");
  provideEdgeCore(inlineEdgeModule);
  const records = new Map();
  const store = {
    read: async (keys) => ({ values: keys.map(([kind, name]) => records.get(`${kind}:${name}`)), stamp: null }),
    commit: async (_stamp, writes) => {
      for (const [kind, name, text] of writes) records.set(`${kind}:${name}`, text);
      return true;
    },
    changed: () => new Promise(() => {}),
  };
  const grantor = kvGrantorCore(store, { serverKey: crypto.getRandomValues(new Uint8Array(32)) });
  const serve = async (path, body) => {
    const reply = await grantor.serve("POST", path, JSON.stringify(body));
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.body}`);
    return JSON.parse(reply.body);
  };
  const holder = "loadgen-0001";
  const timed = async (n, op) => {
    for (let i = 0; i < n / 10; i += 1) await op(`warm-${i}`);
    const start = performance.now();
    for (let i = 0; i < n; i += 1) await op(String(i));
    return ((performance.now() - start) * 1000) / n;
  };
  const n = 20_000;
  const grantUs = await timed(n, (i) => serve("/v1/grant", { resource: `r-${i}`, holder, durationMs: 60_000, requestId: `g-${i}` }));
  const { token, leaseSecret } = await serve("/v1/grant", { resource: "renewed", holder, durationMs: 60_000, requestId: "g" });
  const renewUs = await timed(n, (i) =>
    serve("/v1/renew", { resource: "renewed", holder, token, durationMs: 60_000, requestId: `r-${i}`, leaseSecret }),
  );
  return { grantUs, renewUs, recordBytes: records.get("lease:renewed").length };
}
