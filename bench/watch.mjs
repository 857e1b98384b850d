// Benchmark: how soon a watcher learns of a change. A watcher holds `GET /v1/watch` open on a
// grantor process (after the version it saw last); a change (a grant, then its release, and so
// on) is made through grantor process A; the figure is the time from sending the change to the
// watcher's reply, p50 and p95 over `--changes` changes, next to the change's own round trip
// (the reply of the request that made it). Three setups:
//
// - SQLite, watcher on A (woken in the process, after the change's commit);
// - PostgreSQL, watcher on A (the same, the commit being PostgreSQL's);
// - PostgreSQL, watcher on another grantor process B on the same database (woken through
//   `pg_notify` and B's `LISTEN` connection).
//
// Before each change the script waits until the watched process counts the watch as open
// (`tenure_grantor_watches_open` on /metrics), so every figure is a wake-up, never a watch that
// arrived after the change. Figures, not pass/fail.
//
// `node bench/watch.mjs [--changes 300]`. Needs `cargo build --release -p tenure-grantor` (or
// TENURE_GRANTOR_BIN naming another build) and PostgreSQL 15 (as the tests do).

import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { argument } from "./args.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
// The grantor as deployed, unless TENURE_GRANTOR_BIN names another; set before the helper that
// reads it is loaded.
process.env.TENURE_GRANTOR_BIN ??= join(repo, "target", "release", "tenure-grantor");
const { startGrantor } = await import("../tests/js/support/grantor-process.mjs");
const { startPostgres } = await import("../tests/js/support/postgres.mjs");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(url, path, body) {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const reply = await response.json();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(reply)}`);
  return reply;
}

async function watchesOpen(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("tenure_grantor_watches_open "));
  return Number(line?.split(" ")[1] ?? 0);
}

/** The nearest-rank quantile `q` (0 to 1) of ascending `sorted`, in ms with one decimal. */
function quantile(sorted, q) {
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round(sorted[at] * 10) / 10;
}

/**
 * `changes` changes made through `changer` (a grantor's URL) while a watch is open on `watched`;
 * resolves the change-to-watcher and change round-trip times, in ms.
 */
export async function measureWatch({ changer, watched, changes, resource = "bench/watch" }) {
  const toWatcher = [];
  const roundTrip = [];
  let version = (await call(watched, `/v1/watch?resource=${resource}&waitMs=0`)).version;
  let held = null;
  for (let i = 0; i < changes; i++) {
    const watch = call(watched, `/v1/watch?resource=${resource}&after=${version}&waitMs=10000`).then(
      (reply) => ({ reply, at: performance.now() }),
    );
    while ((await watchesOpen(watched)) < 1) await sleep(1);
    const sent = performance.now();
    if (held === null) {
      const granted = await call(changer, "/v1/grant", {
        resource, holder: "bench", durationMs: 60_000, requestId: `g${i}`,
      });
      if (!granted.granted) throw new Error(`not granted: ${JSON.stringify(granted)}`);
      held = granted;
    } else {
      await call(changer, "/v1/release", {
        resource, holder: "bench", token: held.token, leaseSecret: held.leaseSecret,
      });
      held = null;
    }
    roundTrip.push(performance.now() - sent);
    const { reply, at } = await watch;
    if (reply.version <= version) throw new Error(`the watch saw no change: ${JSON.stringify(reply)}`);
    version = reply.version;
    toWatcher.push(at - sent);
  }
  toWatcher.sort((a, b) => a - b);
  roundTrip.sort((a, b) => a - b);
  return {
    changes,
    toWatcherP50Ms: quantile(toWatcher, 0.5),
    toWatcherP95Ms: quantile(toWatcher, 0.95),
    roundTripP50Ms: quantile(roundTrip, 0.5),
    roundTripP95Ms: quantile(roundTrip, 0.95),
  };
}

async function main() {
  const changes = argument("changes", 300);
  const rows = [];
  const sqlite = await startGrantor();
  try {
    rows.push(["SQLite, watcher on A", await measureWatch({ changer: sqlite.url, watched: sqlite.url, changes })]);
  } finally {
    await sqlite.stop();
  }
  const postgres = await startPostgres();
  try {
    const database = await postgres.createDatabase();
    const a = await startGrantor({ postgres: database });
    const b = await startGrantor({ postgres: database });
    try {
      // B listens once it has connected; a change before that would reach it only at the wait.
      await sleep(500);
      rows.push(["PostgreSQL, watcher on A", await measureWatch({ changer: a.url, watched: a.url, changes })]);
      rows.push([
        "PostgreSQL, watcher on B",
        await measureWatch({ changer: a.url, watched: b.url, changes, resource: "bench/watch-b" }),
      ]);
    } finally {
      await a.stop();
      await b.stop();
    }
  } finally {
    await postgres.stop();
  }
  console.log(`change (made through grantor A) to watcher reply, ${changes} changes each, ms:`);
  console.log("| setup | to watcher p50 | to watcher p95 | change round trip p50 | p95 |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const [name, r] of rows) {
    console.log(`| ${name} | ${r.toWatcherP50Ms} | ${r.toWatcherP95Ms} | ${r.roundTripP50Ms} | ${r.roundTripP95Ms} |`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
