// Every figure of BENCHMARKS.md in one table: each with its value, a baseline measured in the same
// run, their ratio, and the target where there is one. `scripts/bench` builds what this needs and
// runs it; `--quick` skips the slow rows (tab handoff in Chromium, work claims in three runtimes)
// and shortens the others. A benchmark, not a test: it fails only when a measurement cannot run.

import { execFile, execFileSync } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureHotPath } from "./hot-path.mjs";
import { measureSizes } from "./size.mjs";
import { etcdServer, measureRenewals, renewsInBatches, tenureBatchServer, tenureServer } from "./renewals.mjs";
import { batchRenewRows } from "./batch-renew.mjs";
import { startEtcd } from "../tests/js/support/etcd.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const quick = process.argv.includes("--quick");
const release = (name) => join(repo, "target", "release", name);
// The grantor as deployed (a release build) unless TENURE_GRANTOR_BIN names another; set before
// the grantor helper is loaded, since it reads the variable once, and inherited by bench/claims.mjs.
process.env.TENURE_GRANTOR_BIN ??= release("tenure-grantor");
const GRANTOR_BIN = process.env.TENURE_GRANTOR_BIN;
const { startGrantor } = await import("../tests/js/support/grantor-process.mjs");
const SIM_BIN = release("sim-long");

const rows = [];
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

// c, d. Renewals against the reference grantor (SQLite) and etcd, one load generator for both.
log("renewals: reference grantor (SQLite) and etcd");
{
  const options = { connections: 16, seconds: quick ? 3 : 10 };
  const best = { tenure: null, batch: null, etcd: null };
  const keep = (kind, figures) => {
    if (best[kind] === null || figures.renewalsPerSecond > best[kind].renewalsPerSecond) best[kind] = figures;
  };
  let batches = false;
  // Alternate the servers so that a noisy neighbour hits all alike; keep each one's best.
  for (let round = 0; round < (quick ? 1 : 2); round += 1) {
    const grantor = await startGrantor();
    try {
      if (round === 0) batches = await renewsInBatches(grantor.url);
      keep("tenure", await measureRenewals(tenureServer(grantor.url), options));
      if (batches) keep("batch", await measureRenewals(tenureBatchServer(grantor.url, 100), options));
    } finally {
      await grantor.stop();
    }
    const etcd = await startEtcd();
    try {
      keep("etcd", await measureRenewals(etcdServer(etcd.url), options));
    } finally {
      await etcd.cleanup();
    }
  }
  const perSecond = (figures) => `${figures.renewalsPerSecond.toFixed(0)}/s (p50 ${figures.p50Ms.toFixed(1)} ms)`;
  const etcdVersion = execFileSync(process.env.TENURE_ETCD_BIN ?? "/usr/bin/etcd", ["--version"], { encoding: "utf8" }).split("\n")[0];
  const etcdBaseline = `${perSecond(best.etcd)}: ${etcdVersion.replace("etcd Version: ", "etcd ")} lease keepalive, JSON gateway`;
  const ratio = best.tenure.renewalsPerSecond / best.etcd.renewalsPerSecond;
  row(`grantor renewals, single, ${options.connections} connections`, perSecond(best.tenure), etcdBaseline, ratio, `≥ 1.0x: ${verdict(ratio >= 1)}`);
  if (best.batch === null) {
    row("grantor renewals, batched", "not measured: the grantor has no batch endpoint", "—", null);
  } else {
    const batchRatio = best.batch.renewalsPerSecond / best.etcd.renewalsPerSecond;
    row(`grantor renewals, batches of 100, ${options.connections} connections`, perSecond(best.batch), etcdBaseline, batchRatio, `≥ 1.0x: ${verdict(batchRatio >= 1)}`);
  }
}

// c. Batched renewals: many leases on one client, one request per renew interval, and batches of
// 1,000 against etcd's keepalive.
log("batched renewals: leases held through one HttpGrantor, and batch throughput");
for (const r of await batchRenewRows({ leases: quick ? 1_000 : 10_000, seconds: quick ? 3 : 5 })) {
  row(r.figure, r.value, r.baseline, r.ratio, r.target);
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

const cpu = cpus();
console.log(
  `tenure benchmarks${quick ? " (--quick)" : ""}: node ${process.version}, ${cpu.length} cores (${cpu[0]?.model.trim()}), ` +
    `${(totalmem() / 2 ** 30).toFixed(0)} GiB, grantor ${GRANTOR_BIN.replace(`${repo}/`, "")}`,
);
console.log("");
console.log("| figure | value | baseline, same run | ratio | target |");
console.log("| --- | --- | --- | --- | --- |");
for (const cells of rows) console.log(`| ${cells.join(" | ")} |`);
