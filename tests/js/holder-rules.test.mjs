// Each safety rule of the holder, exercised through the package with real timers. Clock faults
// are injected by replacing `performance.now` / `Date.now`, which the package reads on every call.

import { describe, it, afterEach } from "node:test";
import assert from "node:assert/strict";
import { Lease, LeaseHolder, LeaseError, isLeaseError } from "tenure";
import { MemoryGrantor, sleep, eventually } from "./support/memory-grantor.mjs";

const realPerfNow = performance.now.bind(performance);
const realDateNow = Date.now;

afterEach(() => {
  performance.now = realPerfNow;
  Date.now = realDateNow;
});

const config = (extra = {}) => ({
  resource: "job",
  holderId: "a",
  leaseMs: 600,
  marginMs: 150,
  ...extra,
});

/** A grantor whose `grant`/`renew` behaviour each test scripts. */
function scripted({ grant, renew, release }) {
  const calls = { grant: [], renew: [], release: [] };
  return {
    calls,
    grant: (args) => (calls.grant.push(args), grant(args)),
    renew: (args) => (calls.renew.push(args), renew(args)),
    release: (args) => (calls.release.push(args), release?.(args)),
  };
}

const never = () => new Promise(() => {});

describe("the clock starts when the request is sent", () => {
  it("a reply that took 300 ms leaves 300 ms less", async () => {
    const grantor = scripted({
      grant: async () => (await sleep(300), { granted: true, token: 1 }),
      renew: never,
    });
    const holder = new LeaseHolder(grantor, config({ leaseMs: 2_000, marginMs: 200 }));
    await holder.acquire();
    const remaining = holder.lease.remainingMs();
    assert.ok(remaining <= 1_700 + 5, `remaining ${remaining}`);
    assert.ok(remaining > 1_000, `remaining ${remaining}`);
    holder.surrender("test over");
  });

  it("a reply that arrives inside the margin is no grant, and is handed back", async () => {
    const grantor = scripted({
      grant: async () => (await sleep(500), { granted: true, token: 1 }),
      renew: never,
      release: async () => ({ released: true }),
    });
    const holder = new LeaseHolder(grantor, config({ requestTimeoutMs: 2_000 }));
    const result = await holder.acquire();
    assert.deepEqual(result, { acquired: false, reason: "too_late" });
    assert.equal(holder.lease.isSafelyHeld(), false);
    assert.equal(grantor.calls.release.length, 1);
  });
});

describe("a renewal that never answers", () => {
  it("is abandoned, retried, and ends in surrender at the margin", async () => {
    const grantor = scripted({ grant: async () => ({ granted: true, token: 1 }), renew: never });
    const holder = new LeaseHolder(grantor, config());
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push({ reason, at: performance.now() });
    const sentAt = performance.now();
    await holder.acquire();
    const signal = holder.signal;
    assert.equal(signal.aborted, false);
    assert.ok(await eventually(() => lost.length > 0, 2_000));
    assert.equal(lost[0].reason, "margin_exhausted");
    const latency = lost[0].at - sentAt;
    assert.ok(latency <= 450 + 200, `surrendered ${latency} ms after send; margin began at 450`);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason.code, "ERR_LEASE_LOST");
    assert.equal(signal.reason.reason, "margin_exhausted");
    assert.ok(grantor.calls.renew.every((call) => call.signal.aborted), "hung attempts aborted");
  });
});

describe("elapsed time never shrinks", () => {
  it("a wall clock stepped back adds no validity", async () => {
    const lease = new Lease(600, 150);
    lease.grant(1);
    Date.now = () => realDateNow() - 3_600_000;
    await sleep(500);
    assert.equal(lease.isSafelyHeld(), false);
  });

  it("a wall clock stepped forward ends the lease early", () => {
    const lease = new Lease(60_000, 1_000);
    lease.grant(1);
    Date.now = () => realDateNow() + 120_000;
    assert.equal(lease.isSafelyHeld(), false);
    assert.equal(lease.remainingMs(), 0);
  });

  it("a monotonic clock stalled in OS sleep does not hide the time that passed", async () => {
    const grantor = scripted({
      grant: async () => ({ granted: true, token: 1 }),
      renew: async ({ token }) => ({ renewed: true, token }),
    });
    const holder = new LeaseHolder(grantor, config({ leaseMs: 60_000, marginMs: 5_000 }));
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    await holder.acquire();
    // The machine sleeps for two minutes: performance.now() stops, Date.now() moves on.
    const frozen = realPerfNow();
    performance.now = () => frozen;
    const wallAtSleep = realDateNow();
    Date.now = () => wallAtSleep + 120_000;
    assert.equal(holder.lease.isSafelyHeld(), false);
    assert.deepEqual(lost, ["margin_exhausted"], "asking delivered the loss at once");
    assert.equal(holder.signal.aborted, true);
  });
});

describe("replies are validated", () => {
  const malformed = [
    { granted: "true", token: 1 },
    { granted: true },
    { granted: true, token: -3 },
    { granted: true, token: 2.5 },
    { granted: true, token: Number.NaN },
    { granted: true, token: 2 ** 53 },
    { granted: true, token: "7" },
    { granted: true, token: 1, durationMs: Number.NaN },
    null,
    "granted",
  ];
  for (const reply of malformed) {
    it(`${JSON.stringify(reply)} is a failed attempt, never a grant`, async () => {
      const grantor = scripted({ grant: async () => reply, renew: never });
      const holder = new LeaseHolder(grantor, config());
      const result = await holder.acquire();
      assert.equal(result.acquired, false);
      assert.equal(result.reason, "malformed_reply");
      assert.equal(holder.lease.isSafelyHeld(), false);
    });
  }

  it("a renewal with a lower token is a loss that says so", async () => {
    const grantor = scripted({
      grant: async () => ({ granted: true, token: 10 }),
      renew: async () => ({ renewed: true, token: 9 }),
    });
    const holder = new LeaseHolder(grantor, config());
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    await holder.acquire();
    assert.ok(await eventually(() => lost.length > 0, 2_000));
    assert.deepEqual(lost, ["token_regressed"]);
  });

  it("a reply to an abandoned attempt is ignored", async () => {
    const grantor = scripted({
      grant: async () => (await sleep(400), { granted: true, token: 1 }),
      renew: never,
    });
    const holder = new LeaseHolder(grantor, config({ requestTimeoutMs: 100 }));
    const result = await holder.acquire();
    assert.deepEqual(result, { acquired: false, reason: "timed_out" });
    await sleep(450);
    assert.equal(holder.lease.isSafelyHeld(), false);
    assert.equal(holder.lease.token, null);
  });

  it("a grantor that throws is a failed attempt", async () => {
    const grantor = scripted({
      grant: () => {
        throw new Error("boom");
      },
      renew: never,
    });
    const holder = new LeaseHolder(grantor, config());
    assert.deepEqual(await holder.acquire(), { acquired: false, reason: "unreachable" });
  });
});

describe("renewal", () => {
  it("renews every leaseMs / 3 with never two renewals in flight", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const grantor = scripted({
      grant: async () => ({ granted: true, token: 3 }),
      renew: async ({ token }) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(150);
        inFlight -= 1;
        return { renewed: true, token };
      },
    });
    const holder = new LeaseHolder(grantor, config());
    assert.equal(holder.renewIntervalMs, 200);
    await holder.acquire();
    await sleep(1_100);
    assert.ok(grantor.calls.renew.length >= 3, `${grantor.calls.renew.length} renewals`);
    assert.equal(maxInFlight, 1);
    assert.equal(holder.lease.isSafelyHeld(), true);
    const ids = new Set(grantor.calls.renew.map((call) => call.requestId));
    assert.equal(ids.size, grantor.calls.renew.length, "every attempt has its own requestId");
    await holder.release();
  });

  it("counts consecutive failures, retries within budget, and resets on success", async () => {
    let failuresLeft = 2;
    const grantor = scripted({
      grant: async () => ({ granted: true, token: 3 }),
      renew: async ({ token }) => {
        if (failuresLeft-- > 0) throw new TypeError("network down");
        return { renewed: true, token };
      },
    });
    const holder = new LeaseHolder(grantor, config({ leaseMs: 3_000, marginMs: 500 }));
    await holder.acquire();
    assert.ok(await eventually(() => holder.consecutiveFailures === 2, 3_000));
    assert.ok(await eventually(() => grantor.calls.renew.length >= 3, 3_000));
    assert.ok(await eventually(() => holder.consecutiveFailures === 0, 1_000));
    assert.equal(holder.lease.isSafelyHeld(), true);
    await holder.release();
  });

  it("onRenewed sees each renewal applied: the granted duration, counted from the send", async () => {
    const grantor = scripted({
      grant: async () => ({ granted: true, token: 3 }),
      // Clamped below the 600 ms asked, and 100 ms on the way.
      renew: async ({ token }) => (await sleep(100), { renewed: true, token, durationMs: 400 }),
    });
    const holder = new LeaseHolder(grantor, config());
    assert.equal(holder.onRenewed, null);
    const seen = [];
    holder.onRenewed = (token) => seen.push({ token, remainingMs: holder.lease.remainingMs() });
    await holder.acquire();
    assert.ok(await eventually(() => seen.length >= 2, 2_000));
    holder.onRenewed = null;
    for (const { token, remainingMs } of seen) {
      assert.equal(token, 3);
      assert.ok(remainingMs <= 300 + 5, `remaining ${remainingMs}`);
      assert.ok(remainingMs > 100, `remaining ${remainingMs}`);
    }
    await holder.release();
  });

  it("a definitive refusal surrenders at once with the grantor's reason", async () => {
    const grantor = scripted({
      grant: async () => ({ granted: true, token: 3 }),
      renew: async () => ({ renewed: false, reason: "revoked" }),
    });
    const holder = new LeaseHolder(grantor, config());
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    await holder.acquire();
    assert.ok(await eventually(() => lost.length > 0, 1_000));
    assert.deepEqual(lost, ["revoked"]);
  });
});

describe("acquire", () => {
  it("campaigns with wait: true, using the denial's expiresInMs hint", async () => {
    const grantor = new MemoryGrantor();
    const first = new LeaseHolder(grantor, config({ holderId: "first" }));
    await first.acquire();
    const second = new LeaseHolder(grantor, config({ holderId: "second" }));
    const campaign = second.acquire({ wait: true });
    await sleep(100);
    first.surrender("crashed"); // stops renewing; the grant lapses on its own
    const started = performance.now();
    const result = await campaign;
    assert.equal(result.acquired, true);
    assert.ok(result.token > first.lease.token ?? 0);
    assert.ok(performance.now() - started < 2_000);
    await second.release();
  });

  it("stops campaigning when its signal aborts", async () => {
    const grantor = new MemoryGrantor();
    const first = new LeaseHolder(grantor, config({ holderId: "first" }));
    await first.acquire();
    const second = new LeaseHolder(grantor, config({ holderId: "second" }));
    const controller = new AbortController();
    const campaign = second.acquire({ wait: true, signal: controller.signal });
    await sleep(50);
    controller.abort(new DOMException("user gave up", "AbortError"));
    await assert.rejects(campaign, (error) => error.name === "AbortError");
    assert.equal(second.lease.isSafelyHeld(), false);
    await first.release();
  });

  it("a grant that lands after its campaign was cancelled is released at once", async () => {
    let answer;
    const grantor = scripted({
      grant: () => new Promise((resolve) => (answer = resolve)),
      renew: never,
      release: async () => ({ released: true }),
    });
    const holder = new LeaseHolder(grantor, config({ requestTimeoutMs: 2_000 }));
    const controller = new AbortController();
    const campaign = holder.acquire({ wait: true, signal: controller.signal });
    await sleep(20);
    controller.abort(new DOMException("unmounted", "AbortError"));
    await assert.rejects(campaign, (error) => error.name === "AbortError");
    assert.equal(grantor.calls.grant[0].signal?.aborted ?? false, false, "the request is kept");
    answer({ granted: true, token: 41 });
    assert.ok(await eventually(() => grantor.calls.release.length === 1, 2_000), "released");
    assert.equal(grantor.calls.release[0].token, 41);
    assert.equal(holder.lease.isSafelyHeld(), false);
  });

  it("a second acquire while one runs is a usage error", async () => {
    const grantor = scripted({ grant: never, renew: never });
    const holder = new LeaseHolder(grantor, config({ requestTimeoutMs: 100 }));
    const pending = holder.acquire();
    await assert.rejects(holder.acquire(), (e) => isLeaseError(e) && e.code === "ERR_LEASE_USAGE");
    await pending;
  });
});

describe("callbacks and cleanup", () => {
  it("onLeaseLost may call straight back into the holder", async () => {
    const grantor = new MemoryGrantor();
    const holder = new LeaseHolder(grantor, config());
    let reacquired;
    holder.onLeaseLost = () => {
      reacquired = holder.acquire();
      holder.consecutiveFailures;
      holder.lease.isSafelyHeld();
    };
    await holder.acquire();
    holder.surrender("testing");
    assert.equal((await reacquired).acquired, true);
    await holder.release();
  });

  it("an exception in onLeaseLost does not break the holder", async () => {
    const grantor = new MemoryGrantor();
    const holder = new LeaseHolder(grantor, config());
    holder.onLeaseLost = () => {
      throw new Error("callback bug");
    };
    // The error is re-thrown on a microtask, where the host reports it; capture it there.
    const reported = [];
    const realQueueMicrotask = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (task) => {
      try {
        task();
      } catch (error) {
        reported.push(error);
      }
    };
    await holder.acquire();
    try {
      holder.surrender("testing");
    } finally {
      globalThis.queueMicrotask = realQueueMicrotask;
    }
    assert.deepEqual(reported.map((e) => e.message), ["callback bug"]);
    assert.equal((await holder.acquire()).acquired, true);
    await holder.release();
  });

  it("release hands the lease over and aborts the signal; asyncDispose releases", async () => {
    const grantor = new MemoryGrantor();
    const holder = new LeaseHolder(grantor, config());
    await holder.acquire();
    const signal = holder.signal;
    await holder[Symbol.asyncDispose]();
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason.code, "ERR_LEASE_RELEASED");
    assert.equal(holder.surrendered, false);
    assert.equal(grantor.currentHolder("job"), null);
  });
});

describe("configuration", () => {
  const cases = [
    [{ leaseMs: Number.NaN }, "leaseMs"],
    [{ leaseMs: Infinity }, "leaseMs"],
    [{ marginMs: 0 }, "marginMs"],
    [{ marginMs: 600 }, "marginMs"],
    [{ leaseMs: "600" }, "leaseMs"],
    [{ renewIntervalMs: 450 }, "renewIntervalMs"],
    [{ resource: "" }, "resource"],
    [{ holderId: undefined }, "holderId"],
  ];
  for (const [override, field] of cases) {
    it(`${JSON.stringify(override)} names ${field}`, () => {
      assert.throws(
        () => new LeaseHolder(new MemoryGrantor(), config(override)),
        (error) =>
          error instanceof LeaseError &&
          error.name === "LeaseError" &&
          error.code === "ERR_LEASE_CONFIG" &&
          error.field === field,
      );
    });
  }

  it("a Lease's bad arguments name the argument", () => {
    assert.throws(() => new Lease(100, 100), (e) => e.field === "durationMs");
    assert.throws(() => new Lease(100, 0), (e) => e.field === "safetyMarginMs");
    assert.throws(() => new Lease(100, 10).grant(-1), (e) => e.code === "ERR_LEASE_TOKEN");
  });
});
