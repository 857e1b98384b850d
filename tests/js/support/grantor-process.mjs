// Starts the real reference grantor (`tenure-grantor serve`) on an ephemeral 127.0.0.1 port with a
// fresh SQLite file (or on a PostgreSQL database), and stops or kills it.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const GRANTOR_BIN =
  process.env.TENURE_GRANTOR_BIN ?? join(repo, "target", "debug", "tenure-grantor");

// Database files are kept until the test process ends, as a test may stop the grantor and restart
// it on the same file; then they are removed.
const scratchDirs = new Set();
process.once("exit", () => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the grantor; resolves `{ url, db, stop, kill, restart }` once it prints its address.
 * `restart` starts a new process on the same database (and the same port when free).
 * With `postgres` (a connection URL, e.g. from `startPostgres().createDatabase()`) the grantor
 * keeps its state in that PostgreSQL database instead of an SQLite file, and `db` is undefined.
 * `env` adds environment variables (such as `TENURE_GRANTOR_KEYS`, API keys as JSON lines).
 */
export async function startGrantor({ args = [], db, postgres, env = {} } = {}) {
  let database = db;
  if (!postgres && database === undefined) {
    const scratch = mkdtempSync(join(tmpdir(), "tenure-grantor-"));
    scratchDirs.add(scratch);
    database = join(scratch, "leases.db");
  }
  const storage = postgres ? ["--postgres", postgres] : ["--db", database];
  const run = async (listen) => {
    const child = spawn(
      GRANTOR_BIN,
      ["serve", ...storage, "--listen", listen, "--min-duration-ms", "50", ...args],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RUST_LOG: "warn", ...env } },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const lines = createInterface({ input: child.stdout });
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`grantor did not start: ${stderr}`)), 15_000);
      lines.on("line", (line) => {
        const match = /^listening on (http:\/\/\S+)$/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`grantor exited with ${code}: ${stderr}`));
      });
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    return { child, url, exited };
  };

  let current = await run("127.0.0.1:0");
  const handle = {
    db: database,
    get url() {
      return current.url;
    },
    /** SIGTERM: a graceful stop. */
    async stop() {
      current.child.kill("SIGTERM");
      await current.exited;
    },
    /** SIGKILL: a crash. */
    async kill() {
      current.child.kill("SIGKILL");
      await current.exited;
    },
    /** A new process on the same database and port. */
    async restart() {
      current = await run(new URL(current.url).host);
      return handle;
    },
  };
  return handle;
}
