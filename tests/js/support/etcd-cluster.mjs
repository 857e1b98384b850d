// Starts a real three-member etcd cluster (Debian's /usr/bin/etcd, 3.4) on 127.0.0.1: distinct
// client and peer ports, a temporary data directory per member, `--initial-cluster` naming all
// three. Finds the leader, SIGKILLs a member and restarts it on its own data directory, and stops
// every member at the end: also when the test fails, and when the Node process exits without
// running its `after` hooks.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ETCD_BIN, b64, etcdCall, freePort, unb64 } from "./etcd.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every etcd child this module started and has not seen exit, and every data directory not yet
 * removed: killed and removed when this process ends.
 */
const running = new Set();
const dataDirs = new Set();
const killAll = () => {
  for (const child of running) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
};
process.once("exit", killAll);
// Ended by a signal (a test runner's timeout, ^C), Node exits without "exit" handlers: kill the
// members, then end as the signal would have.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAll();
    process.kill(process.pid, signal);
  });
}

/** A new temporary data directory for member `index`, removed at the latest when this process ends. */
function newDataDir(index) {
  const dir = mkdtempSync(join(tmpdir(), `tenure-etcd-${index}-`));
  dataDirs.add(dir);
  return dir;
}

/** Whether the member at `url` answers `/health` true (it has a leader and can commit). */
async function isHealthy(url) {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    const body = await response.json();
    return body.health === "true";
  } catch {
    return false;
  }
}

/** `/v3/maintenance/status` of the member at `url`: `{memberId, leader}` (decimal strings). */
export async function memberStatus(url) {
  const status = await etcdCall(url, "/v3/maintenance/status", {});
  return { memberId: status.header?.member_id, leader: status.leader };
}

/**
 * Starts the cluster; resolves once every member is healthy and one is leader. The handle:
 * `members` (each `{index, name, url, pid, alive}`), `urls`, `leader()` (the member every running
 * member names as leader, or null), `waitForLeader({maxMs, not})`, `kill(member)` (SIGKILL, waits
 * for the exit), `restart(member)` (same data directory and ports; waits until it is healthy),
 * `cleanup()` (kills every member, removes the data directories).
 */
export async function startEtcdCluster({ size = 3 } = {}) {
  const token = `tenure-cluster-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const members = [];
  for (let index = 0; index < size; index += 1) {
    members.push({
      index,
      name: `m${index}`,
      dataDir: newDataDir(index),
      clientPort: 0,
      peerPort: 0,
      child: null,
      exited: null,
      stderr: "",
    });
  }
  const url = (m) => `http://127.0.0.1:${m.clientPort}`;
  const peer = (m) => `http://127.0.0.1:${m.peerPort}`;
  const alive = (m) => m.child !== null && m.child.exitCode === null && m.child.signalCode === null;

  const spawnMember = (m) => {
    const cluster = members.map((other) => `${other.name}=${peer(other)}`).join(",");
    const child = spawn(
      ETCD_BIN,
      [
        `--name=${m.name}`,
        `--data-dir=${m.dataDir}`,
        `--listen-client-urls=${url(m)}`,
        `--advertise-client-urls=${url(m)}`,
        `--listen-peer-urls=${peer(m)}`,
        `--initial-advertise-peer-urls=${peer(m)}`,
        `--initial-cluster=${cluster}`,
        `--initial-cluster-token=${token}`,
        "--initial-cluster-state=new",
        "--logger=zap",
        "--log-level=error",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    running.add(child);
    m.child = child;
    m.stderr = "";
    child.stderr.on("data", (chunk) => {
      m.stderr = (m.stderr + chunk).slice(-4_000);
    });
    m.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        running.delete(child);
        resolve({ code, signal });
      });
    });
  };

  const killMember = async (m) => {
    if (alive(m)) {
      m.child.kill("SIGCONT");
      m.child.kill("SIGKILL");
    }
    if (m.exited !== null) await m.exited;
  };

  /** Resolves once every member in `which` is healthy; throws after `maxMs` or if one exited. */
  const waitHealthy = async (which, maxMs) => {
    const start = Date.now();
    for (;;) {
      const dead = which.find((m) => !alive(m));
      if (dead !== undefined) throw new Error(`etcd member ${dead.name} exited: ${dead.stderr}`);
      const health = await Promise.all(which.map((m) => isHealthy(url(m))));
      if (health.every(Boolean)) return;
      if (Date.now() - start > maxMs) {
        const sick = which.filter((_, i) => !health[i]).map((m) => `${m.name}: ${m.stderr}`);
        throw new Error(`etcd members not healthy within ${maxMs} ms: ${sick.join("; ")}`);
      }
      await sleep(50);
    }
  };

  const cleanup = async () => {
    await Promise.all(members.map(killMember));
    for (const m of members) {
      rmSync(m.dataDir, { recursive: true, force: true });
      dataDirs.delete(m.dataDir);
    }
  };

  // A port found free can be taken before etcd binds it: try a few times with fresh ports (and
  // fresh data directories: a failed first boot may have written one).
  for (let attempt = 1; ; attempt += 1) {
    for (const m of members) {
      m.clientPort = await freePort();
      m.peerPort = await freePort();
    }
    members.forEach(spawnMember);
    try {
      await waitHealthy(members, 30_000);
      break;
    } catch (error) {
      await Promise.all(members.map(killMember));
      for (const m of members) {
        rmSync(m.dataDir, { recursive: true, force: true });
        dataDirs.delete(m.dataDir);
        m.dataDir = newDataDir(m.index);
      }
      if (attempt === 3) {
        await cleanup();
        throw error;
      }
    }
  }

  const view = (m) => ({
    index: m.index,
    name: m.name,
    url: url(m),
    get pid() {
      return m.child?.pid;
    },
    get alive() {
      return alive(m);
    },
  });
  const views = members.map(view);

  /** The member every running member names as leader, or null while they disagree or have none. */
  const leader = async () => {
    const up = members.filter(alive);
    const statuses = await Promise.all(up.map((m) => memberStatus(url(m)).catch(() => null)));
    if (statuses.some((s) => s === null || s.leader === undefined || s.leader === "0")) return null;
    const named = new Set(statuses.map((s) => s.leader));
    if (named.size !== 1) return null;
    const [id] = named;
    const at = statuses.findIndex((s) => s.memberId === id);
    return at === -1 ? null : views[up[at].index];
  };

  return {
    members: views,
    urls: views.map((m) => m.url),
    leader,
    /** Polls until the running members agree on a leader (other than `not`); resolves it. */
    async waitForLeader({ maxMs = 30_000, not = null } = {}) {
      const start = Date.now();
      for (;;) {
        const found = await leader();
        if (found !== null && found.index !== not?.index) return found;
        if (Date.now() - start > maxMs) throw new Error(`no new etcd leader within ${maxMs} ms`);
        await sleep(25);
      }
    },
    /** SIGKILL: a crash. Waits for the exit. */
    async kill(member) {
      await killMember(members[member.index]);
    },
    /** A new process on the member's data directory and ports; resolves once it is healthy. */
    async restart(member, { maxMs = 30_000 } = {}) {
      const m = members[member.index];
      if (alive(m)) throw new Error(`etcd member ${m.name} is still running`);
      spawnMember(m);
      await waitHealthy([m], maxMs);
      return views[m.index];
    },
    cleanup,
  };
}

/**
 * Every change of `key` from revision `fromRevision` on, as etcd's own history has it (the watch
 * API replays it; nothing is compacted in these tests): `[{type: "PUT" | "DELETE", modRevision,
 * createRevision, value, lease}]`, in revision order. To know when the replay is complete it puts
 * a sentinel, `key` + "\0" (a key no grantor writes), and watches both keys up to it.
 */
export async function keyHistory(url, key, fromRevision = 1) {
  const sentinel = `${key}\u0000`;
  const rangeEnd = `${key}\u0000\u0001`;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 10_000);
  const changes = [];
  try {
    const response = await fetch(`${url}/v3/watch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        create_request: { key: b64(key), range_end: b64(rangeEnd), start_revision: String(fromRevision) },
      }),
      signal: stop.signal,
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = "";
    let created = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the watch ended before the sentinel");
      buffered += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = JSON.parse(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        if (line.error !== undefined) throw new Error(`watch: ${JSON.stringify(line.error)}`);
        if (line.result?.created && !created) {
          created = true;
          await etcdCall(url, "/v3/kv/put", { key: b64(sentinel), value: b64("end") });
        }
        for (const event of line.result?.events ?? []) {
          if (unb64(event.kv.key) === sentinel) return changes;
          changes.push({
            type: event.type ?? "PUT",
            modRevision: Number(event.kv.mod_revision),
            createRevision: Number(event.kv.create_revision ?? 0),
            value: unb64(event.kv.value ?? ""),
            lease: event.kv.lease ?? "0",
          });
        }
      }
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}
