// Starts a real redis-server (Debian's /usr/bin/redis-server, 7) on 127.0.0.1 with a free port
// and a temporary directory, and the Upstash-style REST shim in front of it; stops, kills,
// pauses or restarts Redis. Also: the tests' own view of Redis (straight over RESP, never through
// the adapter under test), and a resource kept in Redis that checks fencing tokens.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./etcd.mjs";
import { runCommands, startRedisRestShim } from "../../redis-rest-shim/server.mjs";

export const REDIS_BIN = process.env.TENURE_REDIS_BIN ?? "/usr/bin/redis-server";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs redis-server and the REST shim; resolves `{url, token, redis: {host, port}, command,
 * stop, kill, pause, resume, restart, cleanup}`. `persistent: true` keeps an append-only file
 * synced on every write (`appendfsync always`), so a restart after SIGKILL keeps every
 * acknowledged write; otherwise nothing is kept.
 */
export async function startRedis({ persistent = false, token = "test-rest-token" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "tenure-redis-"));
  const redis = { host: "127.0.0.1", port: 0 };
  let current;
  let stderr = "";

  const run = async () => {
    const persistence = persistent
      ? ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
      : ["--appendonly", "no", "--save", ""];
    const child = spawn(
      REDIS_BIN,
      ["--port", String(redis.port), "--bind", "127.0.0.1", "--dir", dir, "--daemonize", "no", ...persistence],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    stderr = "";
    const keep = (chunk) => {
      stderr = (stderr + chunk).slice(-4_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const start = Date.now();
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`redis-server exited: ${stderr}`);
      }
      try {
        // The port was free a moment ago: make sure the server answering is this one.
        const [pong, info] = await runCommands(redis, [["PING"], ["INFO", "server"]]);
        if (pong === "PONG" && info.includes(`process_id:${child.pid}\r\n`)) break;
      } catch {
        // not listening yet, or still loading its append-only file
      }
      if (Date.now() - start > 15_000) {
        child.kill("SIGKILL");
        await exited;
        throw new Error(`redis-server did not answer PING: ${stderr}`);
      }
      await sleep(25);
    }
    return { child, exited };
  };

  // A port found free can be taken before redis binds it: try a few times with fresh ports.
  for (let attempt = 1; ; attempt += 1) {
    redis.port = await freePort();
    try {
      current = await run();
      break;
    } catch (error) {
      if (attempt === 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  let shim;
  try {
    shim = await startRedisRestShim({ redis, token });
  } catch (error) {
    current.child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const alive = () => current.child.exitCode === null && current.child.signalCode === null;
  const handle = {
    url: shim.url,
    token,
    redis,
    dir,
    /** Commands straight to Redis over RESP: the tests' own view. */
    command: (...args) => runCommands(redis, [args]).then(([reply]) => reply),
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
    /** SIGSTOP: Redis stops answering, connections stay open. */
    pause() {
      current.child.kill("SIGSTOP");
    },
    resume() {
      current.child.kill("SIGCONT");
    },
    /** A new redis-server on the same directory and port (the shim stays up). */
    async restart() {
      current = await run();
      return handle;
    },
    /** Stops the shim, kills Redis if it runs and removes its directory. */
    async cleanup() {
      await shim.close();
      await handle.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** The lock key RedisHttpGrantor uses for `resource` with the default prefix. */
export const lockKey = (resource) => `tenure:{${resource}}`;

/**
 * Redis's own view of `resource`: null when free, else `{holder, token, pttl}` from the lock
 * key's value and `PTTL`.
 */
export async function redisView(redis, resource) {
  const [value, pttl] = await runCommands(redis.redis, [
    ["GET", lockKey(resource)],
    ["PTTL", lockKey(resource)],
  ]);
  if (value === null) return null;
  const sep = value.indexOf(":");
  return { holder: value.slice(sep + 1), token: Number(value.slice(0, sep)), pttl: Number(pttl) };
}

// The design's fenced resource: a write is accepted only if no write with a larger token came
// first (`last_token <= token`), and records its token.
const FENCED_WRITE = `local last = redis.call("GET", KEYS[2])
if last and tonumber(last) > tonumber(ARGV[1]) then return {0, tonumber(last)} end
redis.call("SET", KEYS[1], ARGV[2])
redis.call("SET", KEYS[2], ARGV[1])
return {1, tonumber(ARGV[1])}`;

/**
 * Writes `value` to the fenced resource `data:{resource}` through the REST endpoint, as a holder
 * would: resolves `{accepted, lastToken}`.
 */
export async function fencedWrite({ url, token }, resource, value, fencingToken) {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify([
      "EVAL",
      FENCED_WRITE,
      2,
      `data:{${resource}}`,
      `data:{${resource}}:last-token`,
      fencingToken,
      value,
    ]),
    signal: AbortSignal.timeout(5_000),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`fenced write: ${response.status} ${JSON.stringify(body)}`);
  return { accepted: body.result[0] === 1, lastToken: body.result[1] };
}
