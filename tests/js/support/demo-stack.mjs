// The demo's processes, started the same way for `scripts/demo` and for the demo's browser test:
// the reference grantor serving www/ on PORT, and the fault proxy in front of it on PORT + 1 with
// its control API on PORT + 2. The page finds both by that layout, so the URL to open is just
// http://127.0.0.1:PORT/.
//
// Run directly (`node tests/js/support/demo-stack.mjs --port 8080 --db data/leases.db`), it prints
// the URLs and runs until SIGINT or SIGTERM.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const defaultGrantorBin = join(repo, "target", "debug", "tenure-grantor");
const proxyCli = join(repo, "tests", "fault-proxy", "cli.mjs");
export const WWW = join(repo, "www");

/** The last few KiB a child wrote to stderr, for error messages; also echoed to `echo` if set. */
function stderrTail(child, echo) {
  let tail = "";
  child.stderr.on("data", (chunk) => {
    echo?.write(chunk);
    tail = (tail + chunk).slice(-8_192);
  });
  return () => tail;
}

/**
 * Resolves the named groups of `pattern` once stdout lines have supplied all of `wanted`, or
 * rejects if `child` exits first or `timeoutMs` passes.
 */
function readyLines(child, pattern, wanted, what, timeoutMs, tail) {
  return new Promise((resolveFound, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${tail()}`)), timeoutMs);
    const found = {};
    createInterface({ input: child.stdout }).on("line", (line) => {
      for (const [name, value] of Object.entries(pattern.exec(line)?.groups ?? {})) {
        if (value !== undefined) found[name] = value;
      }
      if (wanted.every((name) => name in found)) {
        clearTimeout(timer);
        resolveFound(found);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${signal ?? code}) before it was ready: ${tail()}`));
    });
  });
}

/** Stops `child` with SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
async function stopChild(child, graceMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  const late = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(late);
}

/**
 * Starts the grantor and the fault proxy on 127.0.0.1, ports `port`, `port + 1` and `port + 2`.
 * Without `db`, the grantor gets a fresh database in a temporary folder, removed on `stop()`.
 * Their standard error goes to `echo` (a writable stream) if given.
 * Resolves `{ pageUrl, grantorUrl, proxyUrl, controlUrl, db, stop }`; rejects (with nothing
 * left running) if either process fails to start, for example because a port is taken.
 */
export async function startDemoStack({ port, db, grantorBin = defaultGrantorBin, echo } = {}) {
  if (!(Number.isInteger(port) && port >= 1 && port <= 65_533)) {
    throw new RangeError(`port must be an integer from 1 to 65533 (it uses port + 1 and + 2), got ${port}`);
  }
  const scratch = db === undefined ? mkdtempSync(join(tmpdir(), "tenure-demo-")) : null;
  const database = db ?? join(scratch, "leases.db");
  const removeScratch = () => {
    if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
  };

  // Without an admin key the grantor lets only loopback peers revoke, which is what the page's
  // Revoke button relies on; an inherited key would make it refuse. And the demo runs on SQLite,
  // whatever PostgreSQL URL the environment names.
  const env = { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "warn" };
  delete env.TENURE_ADMIN_KEY;
  delete env.TENURE_POSTGRES_URL;
  const grantor = spawn(
    grantorBin,
    ["serve", "--db", database, "--listen", `127.0.0.1:${port}`, "--static-dir", WWW],
    { stdio: ["ignore", "pipe", "pipe"], env },
  );
  const grantorTail = stderrTail(grantor, echo);
  let proxy = null;
  try {
    const { url: grantorUrl } = await readyLines(
      grantor,
      /^listening on (?<url>http:\/\/\S+)$/,
      ["url"],
      "the grantor",
      20_000,
      grantorTail,
    );
    proxy = spawn(
      process.execPath,
      [proxyCli, "--target", grantorUrl, "--listen", `127.0.0.1:${port + 1}`, "--control", `127.0.0.1:${port + 2}`],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const { proxyUrl, controlUrl } = await readyLines(
      proxy,
      /^(?:proxy listening on (?<proxyUrl>\S+)|control listening on (?<controlUrl>\S+))$/,
      ["proxyUrl", "controlUrl"],
      "the fault proxy",
      10_000,
      stderrTail(proxy, echo),
    );
    let stopped = null;
    return {
      pageUrl: `${grantorUrl}/`,
      grantorUrl,
      proxyUrl,
      controlUrl,
      db: database,
      grantor,
      proxy,
      /** Stops both processes and removes the temporary database, if one was made. */
      stop() {
        stopped ??= Promise.all([stopChild(proxy), stopChild(grantor)]).then(removeScratch);
        return stopped;
      },
    };
  } catch (error) {
    await Promise.all([proxy === null ? null : stopChild(proxy), stopChild(grantor)]);
    removeScratch();
    throw error;
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8080" },
      db: { type: "string" },
      "grantor-bin": { type: "string" },
    },
  });
  const stack = await startDemoStack({
    port: Number(values.port),
    db: values.db === undefined ? undefined : resolve(values.db),
    grantorBin: values["grantor-bin"],
    echo: process.stderr,
  });
  console.log(`demo:        ${stack.pageUrl}  (open it in several tabs)`);
  console.log(`tab demo:    ${stack.pageUrl}tabs.html  (TabLease: one active tab, no server)`);
  console.log(`grantor:     ${stack.grantorUrl}  (database ${stack.db}; GET /metrics for Prometheus)`);
  console.log(`fault proxy: ${stack.proxyUrl}  (control API ${stack.controlUrl})`);
  let stopping = false;
  const shutdown = async (code) => {
    stopping = true;
    await stack.stop();
    process.exit(code);
  };
  process.once("SIGINT", () => shutdown(0));
  process.once("SIGTERM", () => shutdown(0));
  // If either process dies on its own, the demo is broken: stop the other and say so.
  for (const [name, child] of [["grantor", stack.grantor], ["fault proxy", stack.proxy]]) {
    child.once("exit", (code, signal) => {
      if (stopping) return;
      console.error(`the ${name} exited (${signal ?? code}); stopping the demo`);
      shutdown(1);
    });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
