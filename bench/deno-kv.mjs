// Benchmark: DenoKvGrantor's grants and renewals per second over one local Deno KV file (SQLite)
// shared by 1, 2 and 4 Deno processes, against the reference grantor (`tenure-grantor serve`,
// release build, SQLite) in the same run, driven by the same load generator: the same Deno
// processes (bench/deno-kv-worker.mjs) run the same closed loops (one request in flight, or
// --concurrency N, per process) through HttpGrantor at the reference grantor instead of through
// DenoKvGrantor. DenoKvGrantor is an HttpGrantor whose requests are decided in-process, so the
// client-side code is the same and only the grantor behind it differs.
//
// A grant takes a fresh resource (DenoKv: one read, one atomic commit checked on its
// versionstamp); a renewal renews one of the process's own leases (the same). Processes sharing
// the KV file take turns at SQLite's write lock, and a commit that finds it taken is retried
// (DenoKvGrantor does so for up to 2 s). The reference grantor is one more process on the same
// cores, reached over loopback HTTP, with a fresh database for each row as the KV file is.
// Each counted window follows a 1 s warm-up that is not counted. Each row runs the Deno KV target
// and then the reference target back to back, so the two see the machine's load as nearly alike
// as one run allows. Figures, not pass/fail.
//
//   node bench/deno-kv.mjs [--seconds 5] [--concurrency 1] [--leases 100]
//
// Needs `cargo build --release -p tenure-grantor` (or TENURE_GRANTOR_BIN naming a grantor).
// `measureDenoKv(options)` returns the rows for another script's table.

import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadavg } from "node:os";
import { argument } from "./args.mjs";
import { DENO, kvPermissions, repo, scratchDir } from "../tests/js/support/deno.mjs";

// The grantor as deployed, unless TENURE_GRANTOR_BIN names another; set before the helper that
// reads it is loaded.
process.env.TENURE_GRANTOR_BIN ??= join(repo, "target", "release", "tenure-grantor");
const { startGrantor, GRANTOR_BIN } = await import("../tests/js/support/grantor-process.mjs");

const WORKER = join(repo, "bench", "deno-kv-worker.mjs");
export const TARGETS = ["deno-kv", "reference"];
/** Run before each counted window, not counted: the JIT, SQLite's pages, the connections warm up. */
const WARMUP_MS = 1_000;

function run(db, dir, id, settings) {
  // Loopback network for both targets, so that the two differ in nothing but the grantor.
  const permissions = [...kvPermissions(dir), "--allow-net=127.0.0.1"];
  return new Promise((resolve, reject) => {
    const child = spawn(DENO, ["run", ...permissions, WORKER, db, id, JSON.stringify(settings)], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.once("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${id} exited with ${code}: ${err}`))));
  });
}

/** One closed-loop run of `processes` Deno processes at `target`; resolves its figures. */
async function measure({ scratch, target, kind, processes, seconds, concurrency, leases }) {
  const dir = mkdtempSync(join(scratch, `${target}-`));
  const db = join(dir, "leases.sqlite3");
  const grantor = target === "reference" ? await startGrantor({ db: join(dir, "reference.db") }) : null;
  try {
    // Starting Deno and granting the leases to renew take a while; every process starts its
    // loop at the same moment, well after.
    const startAtMs = Date.now() + 3_000 + processes * 500 + (kind === "renew" ? processes * leases * 5 : 0);
    const settings = { kind, startAtMs, warmupMs: WARMUP_MS, durationMs: seconds * 1000, concurrency, leases, baseUrl: grantor?.url };
    const reports = await Promise.all(Array.from({ length: processes }, (_, i) => run(db, dir, `p${i + 1}`, settings)));
    const done = reports.reduce((n, r) => n + r.done, 0);
    const failed = reports.reduce((n, r) => n + r.failed, 0);
    const failures = Object.assign({}, ...reports.map((r) => r.failures));
    const lateMs = Math.max(...reports.map((r) => r.lateMs));
    return { perSecond: done / seconds, failed, failures, lateMs, perProcess: reports.map((r) => r.done / seconds) };
  } finally {
    await grantor?.stop();
  }
}

/**
 * Grants and renewals per second from 1, 2 and 4 Deno processes, at Deno KV and at the
 * reference grantor: `[{kind, processes, "deno-kv": figures, reference: figures, ratio,
 * loadAverage}]`, the ratio DenoKv / reference.
 */
export async function measureDenoKv({ seconds = 5, concurrency = 1, leases = 100, counts = [1, 2, 4], log = () => {} } = {}) {
  // One scratch directory (removed at exit) holding a fresh one per measurement.
  const scratch = scratchDir("bench-deno-kv");
  const rows = [];
  for (const kind of ["grant", "renew"]) {
    for (const processes of counts) {
      const row = { kind, processes };
      for (const target of TARGETS) {
        log(`deno-kv bench: ${kind}, ${processes} processes, ${target}`);
        row[target] = await measure({ scratch, target, kind, processes, seconds, concurrency, leases });
      }
      row.ratio = row["deno-kv"].perSecond / row.reference.perSecond;
      // The 1-minute load average once both targets ran: what else the machine was doing.
      row.loadAverage = loadavg()[0];
      rows.push(row);
    }
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seconds = argument("seconds", 5);
  const concurrency = argument("concurrency", 1);
  const leases = argument("leases", 100);
  const rows = await measureDenoKv({ seconds, concurrency, leases, log: (line) => process.stderr.write(`${line}\n`) });
  const count = (n) => n.toFixed(0);
  console.log(
    `DenoKvGrantor over one local Deno KV file against the reference grantor (${GRANTOR_BIN.replace(`${repo}/`, "")}, SQLite, ` +
      `loopback HTTP), from the same Deno processes: ${seconds} s closed loops, ${concurrency} in flight per process`,
  );
  console.log("kind      processes   deno-kv/s (each process)        reference/s (each process)      ratio   failed   load avg");
  for (const { kind, processes, ratio, loadAverage, ...row } of rows) {
    const cell = (figures) => `${count(figures.perSecond).padStart(6)} (${figures.perProcess.map(count).join(", ")})`.padEnd(30);
    console.log(
      `${(kind === "grant" ? "grants" : "renewals").padEnd(9)} ${String(processes).padStart(9)}   ${cell(row["deno-kv"])}  ${cell(row.reference)}  ` +
        `${ratio.toFixed(2).padStart(5)}x  ${`${row["deno-kv"].failed}/${row.reference.failed}`.padStart(6)}   ${loadAverage.toFixed(2).padStart(8)}`,
    );
  }
  for (const { kind, processes, ...row } of rows) {
    for (const target of TARGETS) {
      const { failures, lateMs } = row[target];
      if (Object.keys(failures).length) console.log(`${kind} x${processes} ${target} failures:`, JSON.stringify(failures));
      if (lateMs > 0) console.log(`${kind} x${processes} ${target}: a process started its loop ${lateMs} ms late (less overlap)`);
    }
  }
  console.log("ratio: deno-kv / reference; failed: deno-kv/reference; load avg: 1-minute, after the row");
}
