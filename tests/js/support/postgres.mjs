// Starts a throwaway PostgreSQL 15 server for tests and benchmarks: a fresh cluster in a temp dir,
// on a free 127.0.0.1 port (its socket in the temp dir), fsync left on.
//
// PostgreSQL refuses to run as root, and CI runs the tests as root, so then initdb and postgres
// run as `nobody` (through setpriv, which execs without forking) and the temp dir is handed to
// that user. The server runs under a small shell watchdog that reads its stdin, a pipe from this
// process: when this process exits, however it exits, the pipe closes and the watchdog stops the
// server and removes the temp dir, so nothing is left behind even if `stop()` is never reached.

import { spawn, execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where Debian's postgresql-15 installs the server binaries; TENURE_PG_BIN overrides it. */
const BIN_DIR = process.env.TENURE_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** The user the cluster runs as when the tests run as root. */
const UNPRIVILEGED = "nobody";

/** Stops the server once stdin ends (and removes the dir), or on a line (keeping the dir). */
const WATCHDOG = `
dir=$1; shift
"$@" >"$dir/server.log" 2>&1 &
server=$!
read -r keep || true
kill -QUIT "$server" 2>/dev/null
wait "$server"
[ "$keep" = keep ] || rm -rf "$dir"
`;

const isRoot = process.getuid?.() === 0;

/** The argv that runs `program` as the cluster's user. */
function asClusterUser(program, args) {
  return isRoot
    ? ["setpriv", "--reuid", UNPRIVILEGED, "--regid", "nogroup", "--clear-groups", "--", program, ...args]
    : [program, ...args];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the server on a fresh port; resolves the handle, or null if the port was taken. */
async function runServer(dir, data) {
  const port = await freePort();
  const argv = asClusterUser(join(BIN_DIR, "postgres"), [
    "-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
  ]);
  const watchdog = spawn("sh", ["-c", WATCHDOG, "tenure-pg-watchdog", dir, ...argv], {
    stdio: ["pipe", "ignore", "ignore"],
  });
  // The pipe must not keep this process alive: its closing at exit is what stops the server.
  watchdog.unref();
  watchdog.stdin.unref?.();
  const exited = new Promise((resolve) => watchdog.once("exit", resolve));
  const shutDown = async (keepFiles) => {
    // Waiting for the stop must keep this process alive.
    watchdog.ref();
    if (watchdog.exitCode === null && watchdog.signalCode === null) {
      watchdog.stdin.end(keepFiles ? "keep\n" : "");
    }
    await exited;
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ready = await run(join(BIN_DIR, "pg_isready"), ["-q", "-h", "127.0.0.1", "-p", String(port)])
      .then(() => true, () => false);
    if (ready) return { port, shutDown };
    let log = "";
    try {
      log = readFileSync(join(dir, "server.log"), "utf8");
    } catch {
      // Not written yet.
    }
    if (log.includes("could not create any TCP/IP sockets")) break;
    await sleep(50);
  }
  await shutDown(true);
  return null;
}

/**
 * Creates a PostgreSQL cluster and starts the server. Resolves `{ url, port, createDatabase, stop }`:
 * `url` is the `postgres` database's URL (user `tenure`, trust authentication, loopback only),
 * `createDatabase()` makes an empty database with a fresh name and resolves its URL, and `stop()`
 * stops the server and removes its files.
 */
export async function startPostgres() {
  const dir = mkdtempSync(join(tmpdir(), "tenure-pg-"));
  const data = join(dir, "data");
  try {
    if (isRoot) await run("chown", [`${UNPRIVILEGED}:`, dir]);
    const [program, ...args] = asClusterUser(join(BIN_DIR, "initdb"), [
      "-D", data, "-U", "tenure", "--auth=trust", "--encoding=UTF8", "--locale=C",
    ]);
    await run(program, args);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${error.stderr ?? error.message}`);
  }
  // The port is free when picked, but another process could take it before the server binds
  // it; then the server exits at once, and another port is tried.
  let server = null;
  for (let attempt = 0; attempt < 3 && !server; attempt++) server = await runServer(dir, data);
  if (!server) {
    let log = "";
    try {
      log = readFileSync(join(dir, "server.log"), "utf8");
    } catch {
      // Never written.
    }
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start within 30 s:\n${log}`);
  }
  const { port, shutDown } = server;
  const urlOf = (database) => `postgres://tenure@127.0.0.1:${port}/${database}`;
  let databases = 0;
  return {
    port,
    url: urlOf("postgres"),
    async createDatabase() {
      databases += 1;
      const name = `t${databases}`;
      await run(join(BIN_DIR, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "tenure", name]);
      return urlOf(name);
    },
    stop: () => shutDown(false),
  };
}
