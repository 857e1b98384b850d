// Every figure of BENCHMARKS.md in one table: each with its value, a baseline measured in the same
// run, their ratio, and the target where there is one. `scripts/bench` builds what this needs and
// runs it; `--quick` skips the slow rows (tab handoff in Chromium, work claims in three runtimes,
// the edge grantors against the reference grantor) and shortens the others. A benchmark, not a test: it fails only when a measurement cannot run
// (then it prints the rows measured so far, marked incomplete, and exits non-zero). Needs strace
// (/usr/bin/strace, or TENURE_STRACE_BIN) for the sync-call rows.

import { execFile, execFileSync } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureHotPath } from "./hot-path.mjs";
import { measureSizes } from "./size.mjs";
import { startEtcd } from "../tests/js/support/etcd.mjs";
import { startPostgres } from "../tests/js/support/postgres.mjs";
import { measureBullmq } from "./bullmq.mjs";
import { childPid, formatSyncs, formatUs, measureLoadgen, postmasterPid, processTreeOf, singleProcess } from "./server-cost.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const quick = process.argv.includes("--quick");
const release = (name) => join(repo, "target", "release", name);
// The grantor as deployed (a release build) unless TENURE_GRANTOR_BIN names another; set before
// the grantor helper is loaded, since it reads the variable once, and inherited by bench/claims.mjs.
process.env.TENURE_GRANTOR_BIN ??= release("tenure-grantor");
const GRANTOR_BIN = process.env.TENURE_GRANTOR_BIN;
const { startGrantor } = await import("../tests/js/support/grantor-process.mjs");
// Loaded after TENURE_GRANTOR_BIN is set: both start the grantor through the same helper.
const { measureHolding } = await import("./batch-renew.mjs");
const { measureSlowHttp, LOADGEN_BIN } = await import("./slow-http.mjs");
const SIM_BIN = release("sim-long");
/** The connection counts (and BullMQ Worker concurrencies) of the throughput rows. */
const CONCURRENCY = [16, 64];

const rows = [];
/** The commit the tree was at when the run started, `+` if files differed from it. */
const commit = (() => {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repo, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: repo, encoding: "utf8" }).trim() !== "";
    return `${head}${dirty ? "+" : ""}`;
  } catch {
    return "unknown";
  }
})();
/** Prints the table of the rows so far: at the end, or, marked incomplete, when a measurement fails. */
function printTable(incomplete = false) {
  const cpu = cpus();
  console.log(
    `tenure benchmarks${quick ? " (--quick)" : ""}${incomplete ? " (INCOMPLETE: a measurement failed, see stderr)" : ""}: ` +
      `node ${process.version}, ${cpu.length} cores (${cpu[0]?.model.trim()}), ` +
      `${(totalmem() / 2 ** 30).toFixed(0)} GiB, grantor ${GRANTOR_BIN.replace(`${repo}/`, "")}, tree at ${commit}`,
  );
  console.log("");
  console.log("| figure | value | baseline, same run | ratio | target |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const cells of rows) console.log(`| ${cells.join(" | ")} |`);
}
// A failed measurement still ends the run with an error (after its own error on stderr), but the
// rows measured before it are not lost.
let printed = false;
process.once("exit", (code) => {
  if (!printed && code !== 0 && rows.length > 0) printTable(true);
});
/** One row: `value` and `baseline` are display strings; `ratio` a number or null. */
function row(figure, value, baseline, ratio, target = "—") {
  rows.push([figure, value, baseline, ratio === null ? "—" : `${ratio.toFixed(2)}x`, target]);
}
const verdict = (met) => (met ? "met" : "not met");
const log = (message) => process.stderr.write(`${message}\n`);

/** Runs a child process to the end; resolves its stdout, rejects with its stderr on failure. */
function run(file, args, env = {}) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: repo, env: { ...process.env, ...env }, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(" ")}: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

// a. Hot path.
log("hot path");
{
  const hot = await measureHotPath(quick ? { iterations: 500_000, rounds: 5 } : {});
  const ns = (value) => `${value.toFixed(1)} ns/op`;
  const ratio = hot.leaseNs / hot.clocksNs;
  row("`Lease.isSafelyHeld()`, Node", ns(hot.leaseNs), `${ns(hot.clocksNs)}: \`performance.now()\` + \`Date.now()\``, ratio, `≤ 1.15x: ${verdict(ratio <= 1.15)}`);
  row("`holder.lease.isSafelyHeld()`, Node", ns(hot.heldLeaseNs), `${ns(hot.clocksNs)}: the same clock reads`, hot.heldLeaseNs / hot.clocksNs);
  row("`Lease.isSafelyHeld()` against the design's JS `Lease`", ns(hot.leaseNs), `${ns(hot.designNs)}: design's \`Lease\` (monotonic clock only)`, hot.leaseNs / hot.designNs);
}

// b. Package size.
log("package size");
{
  const sizes = await measureSizes();
  const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
  const base = sizes.baseline;
  const baseline = `${kb(base.gz)}: ${base.name}`;
  row("wasm + JS glue, gzip -9 (as shipped)", kb(sizes.core.gz), baseline, sizes.core.gz / base.gz, `≤ 20 KB: ${verdict(sizes.core.gz <= 20_000)}`);
  if (sizes.core.minGz !== null) {
    row("wasm + JS glue, JS minified, gzip -9", kb(sizes.core.minGz), baseline, sizes.core.minGz / base.gz, `≤ 20 KB: ${verdict(sizes.core.minGz <= 20_000)}`);
    row("inline core + glue + `Lease`/`LeaseHolder` API, minified, gzip -9", kb(sizes.api.minGz), baseline, sizes.api.minGz / base.gz);
  }
  row(`everything shipped (${sizes.everything.files} ES module files, core inline), gzip -9`, kb(sizes.everything.gz), baseline, sizes.everything.gz / base.gz);
}

// c, d. Grantor throughput against etcd and BullMQ, every figure from the native load generator
// (`target/release/loadgen`: one closed loop per connection, one request in flight on each), so
// a ratio compares servers, not clients; each server measured in this run. Each throughput figure
// also gives, over the same counted window, the server's CPU time per operation (utime + stime of
// /proc/<pid>/stat: the grantor process, which holds SQLite; for PostgreSQL also every process of
// the cluster, the postmaster and its children; etcd; redis-server) and the generator's own
// (`generatorCpuUsPerOp`; for BullMQ the Node client's), so that a reader sees which side was busy.
// Sync calls per operation (fsync, fdatasync, sync_file_range, msync, counted by strace over a
// counted window) come from short runs of their own, as tracing slows the server down.
log("grantor and etcd throughput (loadgen)");
{
  const seconds = quick ? 3 : 10;
  const traceSeconds = 3;
  /** One loadgen run; `servers` (`[label, server]` pairs) are the processes whose CPU is read. */
  const loadgen = (mode, url, args = [], servers = []) =>
    measureLoadgen(LOADGEN_BIN, [mode, "--url", url, "--seconds", String(seconds), ...args], { cwd: repo, servers: servers.map(([, server]) => server) })
      .then((figures) => ({ ...figures, labels: servers.map(([label]) => label) }));
  /** The sync calls per operation of `pids` over a 3 s run at 16 connections, strace attached. */
  const syncsPerOp = async (mode, url, pids, args = []) => {
    const figures = await measureLoadgen(
      LOADGEN_BIN,
      [mode, "--url", url, "--seconds", String(traceSeconds), "--warmup-seconds", "2", ...connections(16), ...args],
      { cwd: repo, trace: pids },
    );
    return { ...figures, text: formatSyncs(figures.syncs, figures.ops), perOp: figures.syncs.total / figures.ops };
  };
  const count = (n) => Math.round(n).toLocaleString("en-US");
  const cost = (figures) => {
    const [label] = figures.labels;
    const total = figures.serverCpuUsPerOp.reduce((sum, us) => sum + us, 0);
    const parts = figures.labels.length > 1 ? `: ${figures.labels.map((name, i) => `${name} ${formatUs(figures.serverCpuUsPerOp[i])}`).join(" + ")}` : ` (${label})`;
    return `server ${formatUs(total)} µs CPU/op${parts}, generator ${formatUs(figures.generatorCpuUsPerOp)} µs/op`;
  };
  const perSecond = (figures, unit) =>
    `${count(figures.opsPerSecond)} ${unit}/s (p50 ${figures.p50Ms.toFixed(1)} ms, p99 ${figures.p99Ms.toFixed(1)} ms; ${cost(figures)})`;
  const bullmqRate = (b) =>
    `${count(b.jobsPerSecond)} jobs/s (server ${formatUs(b.serverCpuUsPerOp)} µs CPU/op (redis-server), BullMQ client ${formatUs(b.clientCpuUsPerOp)} µs/op)`;
  const syncRatio = (ours, theirs) => (theirs > 0 ? ours / theirs : null);
  const atLeast = (ratio) => `≥ 1.0x: ${verdict(ratio >= 1)}`;
  const within = (ratio) => `within 20%: ${verdict(ratio >= 0.8 && ratio <= 1.25)}`;
  const connections = (n) => ["--connections", String(n)];
  const etcdVersion = execFileSync(process.env.TENURE_ETCD_BIN ?? "/usr/bin/etcd", ["--version"], { encoding: "utf8" })
    .split("\n")[0]
    .replace("etcd Version: ", "etcd ");

  // The baselines first: etcd (keepalive and acquire) and BullMQ, at each concurrency.
  const etcdRenew = {};
  let etcdAcquire;
  let etcdSyncs;
  {
    const etcd = await startEtcd();
    try {
      const server = [["etcd", singleProcess(etcd.pid)]];
      for (const n of CONCURRENCY) etcdRenew[n] = await loadgen("etcd-keepalive", etcd.url, connections(n), server);
      etcdAcquire = await loadgen("etcd-acquire", etcd.url, connections(16), server);
      etcdSyncs = await syncsPerOp("etcd-keepalive", etcd.url, [etcd.pid]);
    } finally {
      await etcd.cleanup();
    }
  }
  const bullmqJobs = quick ? 30_000 : 150_000;
  const bullmq = {};
  for (const n of CONCURRENCY) bullmq[n] = await measureBullmq({ concurrency: n, seconds, jobs: bullmqJobs });
  const bullmqTraced = await measureBullmq({ concurrency: 16, seconds: traceSeconds, jobs: bullmqJobs, traceSyncs: true });
  const bullmqSyncs = { text: formatSyncs(bullmqTraced.syncs, bullmqTraced.completed), perOp: bullmqTraced.syncs.total / bullmqTraced.completed };
  const etcdSyncBaseline = `${etcdSyncs.text}: ${etcdVersion} lease keepalive`;
  const bullmqSyncBaseline = `${bullmqSyncs.text}: BullMQ ${bullmqTraced.version}, one Worker of concurrency 16, Redis appendfsync always`;

  const postgres = await startPostgres();
  try {
    // The whole cluster: the postmaster and every process under it (checkpointer, walwriter,
    // backends…), listed again at each reading; see `cpuUsBetween` for processes that come and go.
    const postmaster = postmasterPid(postgres.port);
    const cluster = processTreeOf(postmaster);
    // One store after the other: each starts on an empty SQLite file or PostgreSQL database.
    const stores = [
      { name: "SQLite", database: async () => undefined },
      { name: "PostgreSQL", database: () => postgres.createDatabase() },
    ];
    /** The processes whose CPU a grantor row reads, and those whose sync calls it counts. */
    const serversOf = (store) => {
      const grantor = singleProcess(childPid("tenure-grantor"));
      return store.name === "SQLite" ? [["grantor with SQLite", grantor]] : [["grantor", grantor], ["PostgreSQL", cluster]];
    };
    const syncersOf = (store) => (store.name === "SQLite" ? [childPid("tenure-grantor")] : cluster.pids());
    const queued = quick ? 20_000 : 100_000;
    for (const store of stores) {
      const grantor = await startGrantor({ postgres: await store.database() });
      try {
        const servers = serversOf(store);
        for (const n of CONCURRENCY) {
          const renew = await loadgen("grantor-renew", grantor.url, connections(n), servers);
          const ratio = renew.opsPerSecond / etcdRenew[n].opsPerSecond;
          row(`grantor renewals (${store.name}), one per request, ${n} connections`, perSecond(renew, "renewals"), `${perSecond(etcdRenew[n], "renewals")}: ${etcdVersion} lease keepalive, JSON gateway`, ratio, atLeast(ratio));
        }
        const acquire = await loadgen("grantor-acquire", grantor.url, connections(16), servers);
        const acquireRatio = acquire.opsPerSecond / etcdAcquire.opsPerSecond;
        row(`grantor acquires (${store.name}), 16 connections`, perSecond(acquire, "grants"), `${perSecond(etcdAcquire, "acquires")}: ${etcdVersion} lease grant + put-if-absent`, acquireRatio, atLeast(acquireRatio));
        const batch = await loadgen("grantor-batch", grantor.url, [...connections(16), "--batch", "1000"], servers);
        const batchRatio = batch.opsPerSecond / etcdRenew[16].opsPerSecond;
        row(`grantor renewals (${store.name}), batches of 1,000, 16 connections`, perSecond(batch, "renewals"), `${perSecond(etcdRenew[16], "renewals")}: ${etcdVersion} lease keepalive`, batchRatio, atLeast(batchRatio));
        // Claim + complete with claimNext: one round trip per item, against a queue filled for
        // the run (enough that it never runs dry: 1,000 would last under a second, and loadgen
        // refuses to count a dry queue), then against one of 1,000,000.
        const small = {};
        for (const n of CONCURRENCY) {
          small[n] = await loadgen("grantor-claims", grantor.url, [...connections(n), "--next", "--items", String(queued)], servers);
          const ratio = small[n].opsPerSecond / bullmq[n].jobsPerSecond;
          row(`claim + complete (${store.name}), claimNext, ${n} connections`, perSecond(small[n], "items"), `${bullmqRate(bullmq[n])}: BullMQ ${bullmq[n].version}, one Worker of concurrency ${n}, Redis appendfsync always`, ratio, atLeast(ratio));
        }
        // Sync calls per operation, strace attached: renewals, then claims from a queue filled
        // beforehand (so that enqueueing's commits fall outside the counted window).
        const renewSyncs = await syncsPerOp("grantor-renew", grantor.url, syncersOf(store));
        row(`fsyncs per renewal (${store.name}), one per request, 16 connections, strace attached`, renewSyncs.text, etcdSyncBaseline, syncRatio(renewSyncs.perOp, etcdSyncs.perOp));
        const traceQueue = `bench-traced-${store.name}`;
        const traceItems = Math.max(queued, Math.ceil(small[16].opsPerSecond * (traceSeconds + 2) * 1.5));
        await run(LOADGEN_BIN, ["grantor-enqueue", "--url", grantor.url, "--queue", traceQueue, "--items", String(traceItems)]);
        const claimSyncs = await syncsPerOp("grantor-claims", grantor.url, syncersOf(store), ["--next", "--queue", traceQueue, "--no-enqueue"]);
        row(`fsyncs per claim + complete (${store.name}), claimNext, 16 connections, strace attached`, claimSyncs.text, bullmqSyncBaseline, syncRatio(claimSyncs.perOp, bullmqSyncs.perOp));
        if (!quick) {
          const queue = "bench-deep";
          await run(LOADGEN_BIN, ["grantor-enqueue", "--url", grantor.url, "--queue", queue, "--items", "1000000"]);
          const deep = await loadgen("grantor-claims", grantor.url, [...connections(16), "--next", "--queue", queue, "--no-enqueue"], servers);
          const ratio = deep.opsPerSecond / small[16].opsPerSecond;
          row(`claim + complete (${store.name}), claimNext, 1,000,000 queued, 16 connections`, perSecond(deep, "items"), `${perSecond(small[16], "items")}: the same with ${count(queued)} queued`, ratio, within(ratio));
        }
      } finally {
        await grantor.stop();
      }
    }

    // Grants and renewals with 1,000 leases held against 1,000,000: the store filled by loadgen
    // while the grantor is stopped, then the grantor restarted on it.
    if (!quick) {
      for (const store of stores) {
        const figures = {};
        for (const leases of [1_000, 1_000_000]) {
          // Started once so that it makes its tables, then stopped while they are filled.
          const pgUrl = await store.database();
          let grantor = await startGrantor({ postgres: pgUrl });
          await grantor.stop();
          const preload = pgUrl === undefined ? ["preload-sqlite", "--db", grantor.db] : ["preload-postgres", "--pg-url", pgUrl];
          await run(LOADGEN_BIN, [...preload, "--leases", String(leases)]);
          grantor = await grantor.restart();
          try {
            const servers = serversOf(store);
            figures[leases] = {
              acquire: await loadgen("grantor-acquire", grantor.url, connections(16), servers),
              renew: await loadgen("grantor-renew", grantor.url, connections(16), servers),
            };
          } finally {
            await grantor.stop();
          }
        }
        for (const [kind, unit] of [["acquire", "grants"], ["renew", "renewals"]]) {
          const ratio = figures[1_000_000][kind].opsPerSecond / figures[1_000][kind].opsPerSecond;
          row(`grantor ${kind === "acquire" ? "grants" : "renewals"} (${store.name}), 1,000,000 leases held, 16 connections`, perSecond(figures[1_000_000][kind], unit), `${perSecond(figures[1_000][kind], unit)}: 1,000 leases held`, ratio, within(ratio));
        }
      }
    }
  } finally {
    await postgres.stop();
  }
}

// c. Many leases on one client through one HttpGrantor with `batchRenewals`: one request per
// renew interval, and the client's memory per lease.
log("batched renewals: leases held through one HttpGrantor");
{
  const leases = quick ? 1_000 : 10_000;
  const grantor = await startGrantor();
  let holding;
  try {
    holding = await measureHolding(grantor.url, { leases });
  } finally {
    await grantor.stop();
  }
  const kib = (value) => `${(value / 1024).toFixed(1)} KiB`;
  row(
    `${leases} leases on one grantor, \`batchRenewals\`: requests per renew interval`,
    `${holding.requestsPerInterval.toFixed(3)} (one every ${Math.round(holding.meanGapMs)} ms, ${holding.renewalsPerRequest.toFixed(0)} renewals each; ${holding.lost} leases lost)`,
    `${leases}: one request per lease`,
    holding.requestsPerInterval / leases,
    `≤ 1: ${verdict(holding.requestsPerInterval <= 1.01 && holding.lost === 0)}`,
  );
  row(`${leases} leases on one grantor: client memory per lease`, `${kib(holding.heapBytesPerLease)} heap, ${kib(holding.rssBytesPerLease)} RSS`, "—", null);
}

// d. Renewals while slowhttptest holds 2,000 connections open, in each of three modes.
log("slow-HTTP attacks");
{
  const runs = await measureSlowHttp({ seconds: quick ? 5 : 20, connections: quick ? 500 : 2000 });
  const [calm, ...attacked] = runs;
  const holders = 50;
  // A run loadgen could not finish (it stops at the first connection the server closes) is shown
  // with its error instead of figures.
  const latency = (r) =>
    r.error !== undefined
      ? `not measured: ${r.error.replace(/^.*? exited \d+: /s, "").replace(/\s+/g, " ")}`
      : `renewal p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, max ${r.maxMs.toFixed(1)} ms; ${r.leasesLost} of ${r.holders} leases lost`;
  for (const r of attacked) {
    const measured = r.error === undefined && calm.error === undefined;
    row(
      `renewals under ${r.run}, ${r.attack.connections} attacking connections (${r.attack.connectedMax} seen open), ${r.holders ?? holders} holders every 1 s`,
      latency(r),
      `${latency(calm)}: no attack`,
      measured ? r.p99Ms / calm.p99Ms : null,
      r.error === undefined ? `0 lost, p99 ≤ 100 ms: ${verdict(r.leasesLost === 0 && r.p99Ms <= 100)}` : "0 lost, p99 ≤ 100 ms: not measured",
    );
  }
}

// e. Simulation speed: all cores against one thread.
log("simulation");
{
  const runs = quick ? 20_000 : 150_000;
  const oneThreadRuns = Math.round(runs / 3);
  const speed = async (count, args) => {
    const out = await run(SIM_BIN, ["--runs", String(count), ...args]);
    const match = /on (\d+) threads in ([\d.]+) s: (\d+) schedules\/min/.exec(out);
    if (match === null) throw new Error(`sim-long printed no speed: ${out}`);
    return { threads: Number(match[1]), perMinute: Number(match[3]) };
  };
  const all = await speed(runs, []);
  const one = await speed(oneThreadRuns, ["--threads", "1"]);
  row(
    `simulation, \`sim-long\`, ${all.threads} threads`,
    `${(all.perMinute / 1e6).toFixed(2)} M schedules/min`,
    `${(one.perMinute / 1e6).toFixed(2)} M schedules/min: 1 thread`,
    all.perMinute / one.perMinute,
  );
}

// f. Tab handoff and work claims, from their own benchmarks.
if (!quick) {
  log("tab handoff (Chromium)");
  const tabs = await run(process.execPath, ["bench/tab-handoff.mjs"]);
  const cellsOf = (prefix) => {
    const line = tabs.split("\n").find((text) => text.startsWith(`| ${prefix}`));
    if (line === undefined) throw new Error(`tab-handoff printed no row for ${prefix}:\n${tabs}`);
    return line.split("|").slice(2, -1).map((cell) => cell.trim());
  };
  const ours = cellsOf("tenure");
  const theirs = cellsOf("broadcast-channel");
  const ms = (cell) => (/^\d+ ms$/.test(cell) ? Number.parseInt(cell, 10) : null);
  const ratio = (a, b) => (ms(a) !== null && ms(b) !== null ? ms(a) / ms(b) : null);
  row("tab handoff after close, p50 (p95)", `${ours[0]} (${ours[1]})`, `${theirs[0]} (${theirs[1]}): broadcast-channel \`createLeaderElection\``, ratio(ours[0], theirs[0]));
  row("tab handoff after freeze, p50 (p95)", `${ours[2]} (${ours[3]})`, `${theirs[2]}${theirs[3] === "—" ? "" : ` (${theirs[3]})`}: broadcast-channel`, ratio(ours[2], theirs[2]));

  log("work claims (Node, Deno, workerd)");
  const claims = await run(process.execPath, ["bench/claims.mjs"]);
  const rates = {};
  for (const line of claims.split("\n")) {
    const match = /^(\w+)\s+(\d+)\s+(\d+)\s+(\d+)$/.exec(line.trim());
    if (match) rates[`${match[1]}/${match[2]}`] = Number(match[3]);
  }
  const rate = (key) => {
    if (rates[key] === undefined) throw new Error(`claims printed no ${key} row:\n${claims}`);
    return rates[key];
  };
  for (const runtime of ["node", "deno", "workerd"]) {
    row(`edge claims, ${runtime}, 1 worker`, `${rate(`${runtime}/1`)} items/s`, runtime === "node" ? "—" : `${rate("node/1")} items/s: Node, 1 worker`, runtime === "node" ? null : rate(`${runtime}/1`) / rate("node/1"));
    row(`edge claims, ${runtime}, 4 workers`, `${rate(`${runtime}/4`)} items/s`, `${rate(`${runtime}/1`)} items/s: 1 worker`, rate(`${runtime}/4`) / rate(`${runtime}/1`));
  }
}

// g. The edge grantors (issue 19), each against the reference grantor in the same run with the
// same load generator: DenoKvGrantor from Deno processes, the Durable Object grantor in workerd
// (loadgen over HTTP, and loops in a Worker through the binding), and claims in both.
if (!quick) {
  const count = (n) => Math.round(n).toLocaleString("en-US");
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  log("Deno KV grantor against the reference grantor (Deno processes)");
  const { measureDenoKv } = await import("./deno-kv.mjs");
  for (const { kind, processes, ratio, ...pair } of await measureDenoKv()) {
    const unit = kind === "grant" ? "grants/s" : "renewals/s";
    row(
      `Deno KV ${kind === "grant" ? "grants" : "renewals"} (one local KV file), ${plural(processes, "Deno process", "Deno processes")}, closed loops`,
      `${count(pair["deno-kv"].perSecond)} ${unit}`,
      `${count(pair.reference.perSecond)} ${unit}: the reference grantor (SQLite), the same Deno processes over HTTP`,
      ratio,
    );
  }
  log("Durable Object grantor against the reference grantor (loadgen, and loops in a Worker)");
  const { measureDurableObject } = await import("./durable-object.mjs");
  const objectRows = await measureDurableObject();
  for (const { mode, connections, durableObject, reference, ratio } of objectRows.http) {
    const unit = mode === "grantor-acquire" ? "grants/s" : "renewals/s";
    row(
      `Durable Object ${mode === "grantor-acquire" ? "grants" : "renewals"} over HTTP (Miniflare, local), ${plural(connections, "connection", "connections")}, loadgen`,
      `${count(durableObject.opsPerSecond)} ${unit}`,
      `${count(reference.opsPerSecond)} ${unit}: the reference grantor (SQLite), loadgen`,
      ratio,
    );
  }
  for (const { kind, concurrency, durableObject, reference, ratio } of objectRows.binding) {
    const unit = kind === "grant" ? "grants/s" : "renewals/s";
    row(
      `Durable Object ${kind === "grant" ? "grants" : "renewals"} through the binding (Miniflare, local), ${concurrency} in flight, loops in a Worker`,
      `${count(durableObject.perSecond)} ${unit}`,
      `${count(reference.perSecond)} ${unit}: the reference grantor (SQLite), the same Worker over HTTP`,
      ratio,
    );
  }
  log("edge claims against the reference grantor (workerd, Deno)");
  const { measureEdgeClaims } = await import("./edge-claims.mjs");
  for (const { runtime, workers, edge, reference, ratio } of await measureEdgeClaims()) {
    const grantor = runtime === "workerd" ? "Durable Object (Miniflare, local)" : "Deno KV (one local KV file)";
    const who = runtime === "workerd" ? plural(workers, "Worker", "Workers") : plural(workers, "Deno process", "Deno processes");
    row(
      `claims from the ${grantor}, ${who}`,
      `${count(edge.perSecond)} items/s`,
      `${count(reference.perSecond)} items/s: the reference grantor (SQLite), the same ${runtime === "workerd" ? "Workers" : "processes"}`,
      ratio,
    );
  }
}

printed = true;
printTable();
