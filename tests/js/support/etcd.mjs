// Starts a real single-member etcd (Debian's /usr/bin/etcd, 3.4) on 127.0.0.1 with free client
// and peer ports and a temporary data directory, and stops, kills, pauses or restarts it. Also:
// direct gateway calls for the tests' own view of etcd (never through the adapter under test), a
// resource kept in etcd that checks fencing tokens, and the paused-holder child process that the
// etcd and Redis suites share.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { LeaseHolder } from "tenure";

export const ETCD_BIN = process.env.TENURE_ETCD_BIN ?? "/usr/bin/etcd";

/** A port that was free a moment ago: etcd takes fixed ports, so ask the kernel for one. */
export function freePort() {
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

/** Waits for etcd named `name` to be healthy at `url`: the port was free a moment ago, so check who answers. */
async function healthy(url, name, child, maxMs) {
  const start = Date.now();
  while (Date.now() - start < maxMs) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
      const body = await response.json();
      if (body.health === "true") {
        const members = await etcdCall(url, "/v3/cluster/member/list", {});
        if (members.members?.some((member) => member.name === name)) return true;
      }
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  return false;
}

/**
 * Runs etcd; resolves `{ url, dataDir, stop, kill, pause, resume, restart, exited }` once
 * `/health` answers true. `restart` starts a new process on the same data directory and ports;
 * `stop` (SIGTERM) and `kill` (SIGKILL) wait for the exit; `cleanup` stops it and removes the
 * data directory.
 */
export async function startEtcd() {
  const dataDir = mkdtempSync(join(tmpdir(), "tenure-etcd-"));
  const name = `tenure-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let clientPort;
  let peerPort;
  let current;
  let stderr = "";

  const run = async () => {
    const client = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const child = spawn(
      ETCD_BIN,
      [
        `--name=${name}`,
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=${name}=${peer}`,
        "--initial-cluster-state=new",
        "--logger=zap",
        "--log-level=error",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-4_000);
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const ok = await healthy(client, name, child, 20_000);
    if (!ok) {
      child.kill("SIGKILL");
      await exited;
      throw new Error(`etcd did not become healthy: ${stderr}`);
    }
    return { child, url: client, exited };
  };

  // A port found free can be taken before etcd binds it: try a few times with fresh ports.
  for (let attempt = 1; ; attempt += 1) {
    clientPort = await freePort();
    peerPort = await freePort();
    try {
      current = await run();
      break;
    } catch (error) {
      rmSync(dataDir, { recursive: true, force: true });
      if (attempt === 3) throw error;
    }
  }

  const alive = () => current.child.exitCode === null && current.child.signalCode === null;
  const handle = {
    dataDir,
    get url() {
      return current.url;
    },
    get pid() {
      return current.child.pid;
    },
    /** SIGTERM: a graceful stop. */
    async stop() {
      if (alive()) {
        current.child.kill("SIGCONT");
        current.child.kill("SIGTERM");
      }
      await current.exited;
    },
    /** SIGKILL: a crash. */
    async kill() {
      if (alive()) current.child.kill("SIGKILL");
      await current.exited;
    },
    /** SIGSTOP: etcd stops answering, connections stay open. */
    pause() {
      current.child.kill("SIGSTOP");
    },
    resume() {
      current.child.kill("SIGCONT");
    },
    /** A new process on the same data directory and ports. */
    async restart() {
      current = await run();
      return handle;
    },
    /** Kills etcd if it runs and removes its data directory. */
    async cleanup() {
      await handle.kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

const encoder = new TextEncoder();

/** Standard base64 of a string's UTF-8 bytes, as the gateway expects keys and values. */
export function b64(text) {
  return Buffer.from(encoder.encode(text)).toString("base64");
}

/** Decodes a gateway base64 field to a string. */
export function unb64(text) {
  return Buffer.from(text, "base64").toString("utf8");
}

/** One gateway call, straight to etcd: the tests' own view, independent of the adapter. */
export async function etcdCall(url, path, body, { headers = {} } = {}) {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  // Keepalive answers a stream of lines; the tests only ever ask one question at a time.
  return JSON.parse(text.split("\n")[0]);
}

/** The lock key the grantors use for `resource` with the default prefix. */
export const lockKey = (resource) => `tenure/leases/${resource}`;

/**
 * etcd's own view of `resource`'s lock key: null when absent, else `{holder, createRevision,
 * lease, ttlSeconds}` (`ttlSeconds` from `/v3/lease/timetolive`, -1 once the lease is gone).
 */
export async function etcdView(url, resource) {
  const range = await etcdCall(url, "/v3/kv/range", { key: b64(lockKey(resource)) });
  const kv = range.kvs?.[0];
  if (kv === undefined) return null;
  const lease = kv.lease ?? "0";
  let ttlSeconds = null;
  if (lease !== "0") {
    const live = await etcdCall(url, "/v3/lease/timetolive", { ID: lease });
    ttlSeconds = Number(live.TTL ?? 0);
  }
  return {
    holder: unb64(kv.value ?? ""),
    createRevision: Number(kv.create_revision),
    lease,
    ttlSeconds,
  };
}

/** Every live lease etcd knows of (IDs as strings). */
export async function etcdLeases(url) {
  const reply = await etcdCall(url, "/v3/lease/leases", {});
  return (reply.leases ?? []).map((lease) => lease.ID);
}

/**
 * A resource kept in etcd that checks fencing tokens, the way etcd's own lock owners guard their
 * writes: the put of `data/<resource>` happens only if the lock key still has the create revision
 * the token names, so a holder whose grant lapsed (the key deleted, or created anew by someone
 * else) is refused. Resolves `{accepted}`.
 */
export async function fencedPut(url, resource, value, token) {
  const reply = await etcdCall(url, "/v3/kv/txn", {
    compare: [
      { key: b64(lockKey(resource)), target: "CREATE", result: "EQUAL", create_revision: String(token) },
    ],
    success: [{ request_put: { key: b64(`data/${resource}`), value: b64(value) } }],
  });
  return { accepted: reply.succeeded === true };
}

/** What `data/<resource>` holds, or null. */
export async function fencedGet(url, resource) {
  const range = await etcdCall(url, "/v3/kv/range", { key: b64(`data/${resource}`) });
  const kv = range.kvs?.[0];
  return kv === undefined ? null : unb64(kv.value ?? "");
}

/**
 * The design's paused holder, for a child process a test can SIGSTOP and SIGCONT (shared by the
 * etcd and Redis suites): acquires `resource` through `grantor`, writes once with its token
 * through `write(value, token)`, lets two renewals go through, checks its lease and prints
 * `{event: "checked", ...}`. On a line on stdin it acts with the token it holds (reporting what it
 * believes first), prints `{event: "acted", ...}` and exits. A 20 ms heartbeat timer measures
 * the pause it went through.
 */
export async function runPausableHolder({ grantor, write, resource, leaseMs, marginMs }) {
  const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const lines = createInterface({ input: process.stdin });
  const nextLine = () => new Promise((resolve) => lines.once("line", resolve));
  const start = performance.now();
  const now = () => performance.now() - start;
  const ticks = [];
  const heartbeat = setInterval(() => ticks.push(now()), 20);
  const holder = new LeaseHolder(grantor, { resource, holderId: "paused-node", leaseMs, marginMs });
  const lost = [];
  holder.onLeaseLost = (reason) => lost.push({ reason, at: now() });

  const outcome = await holder.acquire({ wait: true, signal: AbortSignal.timeout(4 * leaseMs) });
  const firstWrite = await write("paused-node, step 1", outcome.token);
  const starts = [holder.lease.acquiredAt];
  while (starts.length < 3 && lost.length === 0 && now() < 4 * leaseMs) {
    await sleep(5);
    if (holder.lease.acquiredAt !== null && holder.lease.acquiredAt !== starts.at(-1)) {
      starts.push(holder.lease.acquiredAt);
    }
  }
  const checkedAt = now();
  say({
    event: "checked",
    acquired: outcome.acquired,
    token: outcome.token,
    firstWrite,
    renewals: starts.length - 1,
    safeWhenChecked: holder.lease.isSafelyHeld(),
    checkedAt,
  });

  await nextLine();
  const actAt = now();
  const safelyHeld = holder.lease.isSafelyHeld();
  const surrendered = holder.surrendered;
  const staleWrite = await write("paused-node, step 2", outcome.token);
  clearInterval(heartbeat);
  const points = [...ticks, actAt];
  let longestGapMs = 0;
  for (let i = 1; i < points.length; i += 1) longestGapMs = Math.max(longestGapMs, points[i] - points[i - 1]);
  say({ event: "acted", safelyHeld, surrendered, lost, staleWrite, longestGapMs });
  lines.close();
}

/**
 * Runs `code` (an ES module's text) in a child Node process; `next()` resolves its next JSON line
 * on stdout. The caller must kill the child if the test ends early.
 */
export function spawnModule(code) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`child process exited with ${code}`));
      child.once("exit", onExit);
      lines.once("line", (line) => {
        child.off("exit", onExit);
        resolve(JSON.parse(line));
      });
    });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGCONT");
      child.kill("SIGKILL");
    }
    await exited;
  };
  return { child, next, kill, exited };
}
