// Benchmark: batched renewals.
//
// a. One client holding many leases (default 10,000) on one reference grantor, every holder a
//    LeaseHolder on one HttpGrantor with `batchRenewals`: HTTP requests per renew interval over at
//    least three intervals, and the client's memory per lease (heap and RSS growth after GC,
//    divided by the leases).
// b. Renewals per second of the reference grantor on SQLite, sent one by one (`POST /v1/renew`)
//    and in batches (`POST /v1/renew/batch`), against etcd's lease keepalive through its JSON
//    gateway on the same machine in the same run: one load generator for all three (N keep-alive
//    connections from this process, each sending its next request as soon as the previous one is
//    answered; a warm-up second first), so the ratios compare servers, not clients. Every reply
//    is checked: a refused renewal ends the run rather than counting.
//
// Run `scripts/build` and `cargo build --release -p tenure-grantor` first, then
// `node bench/batch-renew.mjs [--leases 10000] [--seconds 5] [--connections 16] [--batch 1000]`.
// `batchRenewRows(options)` returns the same figures as rows for another script's table.

import v8 from "node:v8";
import vm from "node:vm";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { HttpGrantor, LeaseHolder } from "tenure";
import { etcdServer, measureRenewals, tenureBatchServer, tenureServer } from "./renewals.mjs";
import { argument } from "./args.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
// The grantor as deployed, unless TENURE_GRANTOR_BIN names another; set before the helper that
// reads it is loaded.
process.env.TENURE_GRANTOR_BIN ??= join(repo, "target", "release", "tenure-grantor");
const { startGrantor } = await import("../tests/js/support/grantor-process.mjs");
const { startEtcd } = await import("../tests/js/support/etcd.mjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `gc()`, exposed for this process even when it was started without `--expose-gc`. */
function collector() {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc");
}

/** Memory after a full collection (twice: the first frees what finalizers release). */
function settledMemory() {
  const gc = collector();
  gc();
  gc();
  return process.memoryUsage();
}

/** Runs `make(i)` for `count` indices, `width` at a time. */
async function inWaves(count, width, make) {
  for (let start = 0; start < count; start += width) {
    const wave = [];
    for (let i = start; i < Math.min(count, start + width); i += 1) wave.push(make(i));
    await Promise.all(wave);
  }
}

/**
 * The holder settings of part (a): a renewal may wait a whole renew interval for its batch
 * (`HttpGrantor.batchDelayMs` of these is 2,750 ms), so one batch per interval carries them all.
 */
export const HOLDING_CONFIG = { leaseMs: 9_000, marginMs: 1_500, renewIntervalMs: 2_000, requestTimeoutMs: 5_500 };

/**
 * Part (a) against the grantor at `url`: acquires `leases` LeaseHolders on one batching
 * HttpGrantor, holds them for `intervals` renew intervals after one interval of settling, and
 * resolves `{leases, intervals, renewIntervalMs, requests, renewals, requestsPerInterval,
 * meanGapMs, minGapMs, renewalsPerRequest, lost, heapBytesPerLease, rssBytesPerLease}`.
 *
 * `requestsPerInterval` is `renewIntervalMs` over the mean time between consecutive requests,
 * which a window's edges cannot skew by a request. A request's time is taken when it reaches
 * `fetch`, after its body of up to 10,000 renewals was built, so gaps carry that much noise.
 */
export async function measureHolding(url, { leases = 10_000, intervals = 5 } = {}) {
  const sent = [];
  const counting = (target, init) => {
    sent.push({ path: new URL(target).pathname, at: performance.now(), body: init.body });
    return fetch(target, init);
  };
  const before = settledMemory();
  const grantor = new HttpGrantor({
    baseUrl: url,
    fetch: counting,
    batchRenewals: { maxDelayMs: HttpGrantor.batchDelayMs(HOLDING_CONFIG) },
  });
  const holders = Array.from(
    { length: leases },
    (_, i) => new LeaseHolder(grantor, { ...HOLDING_CONFIG, resource: `bench/hold/${i}`, holderId: `h${i}` }),
  );
  let lost = 0;
  for (const holder of holders) holder.onLeaseLost = () => (lost += 1);
  try {
    await inWaves(leases, 200, async (i) => {
      const { acquired } = await holders[i].acquire();
      if (!acquired) throw new Error(`lease ${i} was not granted`);
    });
    // One interval for the renewals of leases granted at different moments to fall in step.
    await sleep(HOLDING_CONFIG.renewIntervalMs);
    const from = performance.now();
    const firstRequest = sent.length;
    await sleep(intervals * HOLDING_CONFIG.renewIntervalMs);
    const elapsedMs = performance.now() - from;
    const window = sent.slice(firstRequest);
    const after = settledMemory();
    const batches = window.filter((r) => r.path === "/v1/renew/batch");
    const renewals = batches.reduce((sum, r) => sum + JSON.parse(r.body).renewals.length, 0);
    let minGapMs = Infinity;
    for (let i = 1; i < window.length; i += 1) minGapMs = Math.min(minGapMs, window[i].at - window[i - 1].at);
    const meanGapMs = window.length < 2 ? Infinity : (window.at(-1).at - window[0].at) / (window.length - 1);
    return {
      leases,
      intervals: elapsedMs / HOLDING_CONFIG.renewIntervalMs,
      renewIntervalMs: HOLDING_CONFIG.renewIntervalMs,
      requests: window.length,
      renewals,
      requestsPerInterval: HOLDING_CONFIG.renewIntervalMs / meanGapMs,
      meanGapMs,
      minGapMs,
      renewalsPerRequest: batches.length === 0 ? 0 : renewals / batches.length,
      lost,
      heapBytesPerLease: (after.heapUsed + after.external - before.heapUsed - before.external) / leases,
      rssBytesPerLease: (after.rss - before.rss) / leases,
    };
  } finally {
    await inWaves(leases, 200, (i) => holders[i].release());
  }
}

/** Runs `measure(url)` against a fresh reference grantor, stopped afterwards. */
async function onGrantor(measure) {
  const grantor = await startGrantor();
  try {
    return await measure(grantor.url);
  } finally {
    await grantor.stop();
  }
}

/**
 * Every figure of this benchmark as table rows `{figure, value, baseline, ratio, target}`
 * (display strings, `ratio` a number or null), measured now: parts (a) and (b).
 */
export async function batchRenewRows({ leases = 10_000, seconds = 5, connections = 16, batch = 1_000 } = {}) {
  const rows = [];
  const holding = await onGrantor((url) => measureHolding(url, { leases }));
  const bytes = (value) => `${(value / 1024).toFixed(1)} KiB`;
  rows.push({
    figure: `${leases} leases on one grantor, \`batchRenewals\`: requests per renew interval`,
    value: `${holding.requestsPerInterval.toFixed(3)} (${holding.requests} requests in ${holding.intervals.toFixed(1)} intervals of ${holding.renewIntervalMs} ms: one every ${Math.round(holding.meanGapMs)} ms, at least ${Math.round(holding.minGapMs)} ms apart; ${holding.renewalsPerRequest.toFixed(0)} renewals each; ${holding.lost} leases lost)`,
    baseline: `${leases}: one request per lease`,
    ratio: holding.requestsPerInterval / leases,
    // 1 % for the time each request's body of 10,000 renewals takes to build.
    target: `≤ 1: ${holding.requestsPerInterval <= 1.01 && holding.lost === 0 ? "met" : "not met"}`,
  });
  rows.push({
    figure: `${leases} leases on one grantor: client memory per lease`,
    value: `${bytes(holding.heapBytesPerLease)} heap, ${bytes(holding.rssBytesPerLease)} RSS`,
    baseline: "—",
    ratio: null,
    target: "—",
  });
  const options = { connections, seconds };
  // The same load generator as the main table's renewal rows.
  const single = await onGrantor((url) => measureRenewals(tenureServer(url), options));
  const batched = await onGrantor((url) => measureRenewals(tenureBatchServer(url, batch), options));
  const etcd = await startEtcd();
  let keepalive;
  try {
    keepalive = await measureRenewals(etcdServer(etcd.url), options);
  } finally {
    await etcd.cleanup();
  }
  const perSecond = (f) => `${Math.round(f.renewalsPerSecond)} renewals/s`;
  const etcdBaseline = `${perSecond(keepalive)}: etcd lease keepalive, JSON gateway, ${connections} connections`;
  for (const [figure, measured] of [
    [`grantor renewals (SQLite), one per request, ${connections} connections`, single],
    [`grantor renewals (SQLite), batches of ${batch}, ${connections} connections`, batched],
  ]) {
    const ratio = measured.renewalsPerSecond / keepalive.renewalsPerSecond;
    rows.push({
      figure,
      value: `${perSecond(measured)} (${Math.round(measured.requestsPerSecond)} requests/s)`,
      baseline: etcdBaseline,
      ratio,
      target: `≥ 1.0x: ${ratio >= 1 ? "met" : "not met"}`,
    });
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await batchRenewRows({
    leases: argument("leases", 10_000),
    seconds: argument("seconds", 5),
    connections: argument("connections", 16),
    batch: argument("batch", 1_000),
  });
  console.log("| figure | value | baseline | ratio | target |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of rows) {
    const ratio = row.ratio === null ? "—" : `${row.ratio.toFixed(row.ratio < 0.01 ? 5 : 2)}x`;
    console.log(`| ${row.figure} | ${row.value} | ${row.baseline} | ${ratio} | ${row.target} |`);
  }
}
