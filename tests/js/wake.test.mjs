// Losses nobody asks about are delivered on time after a wake, in Node, which has no wake event.
//
// A real Node process holds a lease; the test stops it (SIGSTOP), moves its wall clock a minute
// ahead with libfaketime while it is stopped, and lets it run again (SIGCONT) a second later: as the
// process sees it, an OS sleep (the monotonic clock barely moved, the wall clock jumped). Its saved
// `signal` must abort and `onLeaseLost` fire within the wake bound (250 ms, or a quarter of the
// margin) of the wake, not at the next renewal 20 s later.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { LeaseHolder } from "tenure";
import { MemoryGrantor, sleep } from "./support/memory-grantor.mjs";

const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
const CHILD = fileURLToPath(new URL("./fixtures/wake-holder-process.mjs", import.meta.url));
const WAKE_BOUND_MS = 250;
// A stopped and continued process on a shared machine needs a moment to run again; the losses
// would otherwise come ~19 s after the wake, so this slack cannot hide a missing detector.
const SLACK_MS = 1_250;

const hrMs = () => Number(process.hrtime.bigint()) / 1e6;

/** The child's JSON lines, one per call; rejects once the child's output ends. */
function jsonLines(stream) {
  const lines = createInterface({ input: stream });
  const queue = [];
  const waiting = [];
  let ended = false;
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    const next = waiting.shift();
    if (next) next.resolve(message);
    else queue.push(message);
  });
  lines.on("close", () => {
    ended = true;
    for (const next of waiting.splice(0)) next.reject(new Error("the holder process ended"));
  });
  return () => {
    if (queue.length > 0) return Promise.resolve(queue.shift());
    if (ended) return Promise.reject(new Error("the holder process ended"));
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };
}

/** Counts the timers armed and not yet fired or cleared, from now on (unref'd ones included). */
function countTimers() {
  const { setTimeout: realSet, clearTimeout: realClear } = globalThis;
  const live = new Set();
  globalThis.setTimeout = (callback, ms, ...args) => {
    const handle = realSet(
      (...a) => {
        live.delete(handle);
        callback(...a);
      },
      ms,
      ...args,
    );
    live.add(handle);
    return handle;
  };
  globalThis.clearTimeout = (handle) => {
    live.delete(handle);
    realClear(handle);
  };
  return {
    live: () => live.size,
    restore: () => {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    },
  };
}

describe("a wake in Node", () => {
  it("a stopped process whose wall clock jumped delivers its loss within the bound", async () => {
    assert.ok(existsSync(LIBFAKETIME), `${LIBFAKETIME} is missing: scripts/setup installs libfaketime`);
    const dir = mkdtempSync(join(tmpdir(), "tenure-wake-"));
    const offsetFile = join(dir, "offset");
    writeFileSync(offsetFile, "+0\n");
    const child = spawn(process.execPath, [CHILD], {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME_TIMESTAMP_FILE: offsetFile,
        FAKETIME_NO_CACHE: "1",
        FAKETIME_DONT_FAKE_MONOTONIC: "1",
      },
    });
    try {
      const next = jsonLines(child.stdout);
      const holding = await next();
      assert.deepEqual(holding, { event: "holding", acquired: true, safe: true });
      await sleep(300);
      child.kill("SIGSTOP");
      writeFileSync(offsetFile, "+60s\n");
      await sleep(1_000);
      const continuedAtMs = hrMs();
      child.kill("SIGCONT");
      const woke = await next();
      const abortMs = woke.abortedAtMs === null ? null : woke.abortedAtMs - continuedAtMs;
      const lossMs = woke.lostAtMs === null ? null : woke.lostAtMs - continuedAtMs;
      console.log(`wake latency after SIGCONT: signal ${abortMs?.toFixed(1)} ms, onLeaseLost ${lossMs?.toFixed(1)} ms`);
      assert.equal(woke.lostReason, "margin_exhausted");
      assert.ok(abortMs !== null && abortMs <= WAKE_BOUND_MS + SLACK_MS, `signal aborted after ${abortMs} ms`);
      assert.ok(lossMs !== null && lossMs <= WAKE_BOUND_MS + SLACK_MS, `onLeaseLost after ${lossMs} ms`);
    } finally {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("10,000 holders holding leases add one timer for the whole process, not one each", async () => {
    const grantor = new MemoryGrantor();
    const holders = [];
    for (let i = 0; i < 10_000; i++) {
      holders.push(
        new LeaseHolder(grantor, { resource: `job-${i}`, holderId: "a", leaseMs: 60_000, marginMs: 5_000 }),
      );
    }
    const timers = countTimers();
    try {
      await Promise.all(holders.map((holder) => holder.acquire()));
      assert.ok(holders.every((holder) => holder.lease.isSafelyHeld()));
      // Each holder keeps its own renewal timer; the wake watch is one more.
      assert.equal(timers.live(), 10_001);
      const pause = sleep(1_000);
      await pause;
      assert.equal(timers.live(), 10_001, "ticking leaves one timer armed");
      await Promise.all(holders.map((holder) => holder.release()));
      assert.equal(timers.live(), 0, "with nothing held no timer is left");
    } finally {
      timers.restore();
    }
  });
});
