// Benchmark: DenoKvGrantor's grants and renewals per second over one local Deno KV file (SQLite)
// shared by 1, 2 and 4 Deno processes, each a closed loop (one request in flight, or
// --concurrency N) through its own DenoKvGrantor. A grant takes a fresh resource (one read, one
// atomic commit checked on its versionstamp); a renewal renews one of the process's own leases
// (the same). Processes sharing the file take turns at SQLite's write lock, and a commit that
// finds it taken is retried (DenoKvGrantor does so for up to 2 s). Figures, not pass/fail.
//
//   node bench/deno-kv.mjs [--seconds 5] [--concurrency 1] [--leases 100]

import { spawn } from "node:child_process";
import { join } from "node:path";
import { argument } from "./args.mjs";
import { DENO, kvPermissions, repo, scratchDir } from "../tests/js/support/deno.mjs";

const seconds = argument("seconds", 5);
const concurrency = argument("concurrency", 1);
const leases = argument("leases", 100);
const WORKER = join(repo, "bench", "deno-kv-worker.mjs");

function run(db, dir, id, settings) {
  return new Promise((resolve, reject) => {
    const child = spawn(DENO, ["run", ...kvPermissions(dir), WORKER, db, id, JSON.stringify(settings)], {
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

const rows = [];
for (const kind of ["grant", "renew"]) {
  for (const processes of [1, 2, 4]) {
    const dir = scratchDir("bench-deno-kv");
    const db = join(dir, "leases.sqlite3");
    // Starting Deno and granting the leases to renew take a while; every process starts its
    // loop at the same moment, well after.
    const startAtMs = Date.now() + 3_000 + processes * 500 + (kind === "renew" ? processes * leases * 5 : 0);
    const settings = { kind, startAtMs, durationMs: seconds * 1000, concurrency, leases };
    const reports = await Promise.all(Array.from({ length: processes }, (_, i) => run(db, dir, `p${i + 1}`, settings)));
    const done = reports.reduce((n, r) => n + r.done, 0);
    const failed = reports.reduce((n, r) => n + r.failed, 0);
    const failures = Object.assign({}, ...reports.map((r) => r.failures));
    rows.push({ kind, processes, done, failed, failures, perProcess: reports.map((r) => r.done / seconds) });
  }
}

console.log(`DenoKvGrantor over one local Deno KV file: ${seconds} s closed loops, ${concurrency} in flight per process`);
console.log("kind      processes   per second (all)   per second (each process)   failed");
for (const { kind, processes, done, failed, perProcess } of rows) {
  const each = perProcess.map((n) => n.toFixed(0)).join(", ");
  console.log(
    `${(kind === "grant" ? "grants" : "renewals").padEnd(9)} ${String(processes).padStart(9)}   ${(done / seconds).toFixed(0).padStart(16)}   ${each.padStart(25)}   ${String(failed).padStart(6)}`,
  );
}
for (const { kind, processes, failures } of rows) {
  if (Object.keys(failures).length) console.log(`${kind} x${processes} failures:`, JSON.stringify(failures));
}
