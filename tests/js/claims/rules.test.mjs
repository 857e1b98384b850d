// The rules WorkClaimer takes from the core, seen from JavaScript against an in-memory grantor:
// the configuration's checks, the settle retries (how many, which failures, how long apart, the
// gate before each completion attempt, each attempt's deadline), the idle backoff, and what a
// stopping worker loop does with a claim that arrives after the stop.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LeaseError, WorkClaimer } from "tenure";

const CLAIM_MS = 3_000;
const MARGIN_MS = 600;

function grantorError(kind, extra = {}) {
  const error = new LeaseError("ERR_GRANTOR", `grantor said ${kind}`);
  error.kind = kind;
  return Object.assign(error, extra);
}

/**
 * A queue of one item whose `complete` answers from `failures` (an error to throw each time, or
 * undefined to succeed), recording when each attempt arrived.
 */
function oneItemGrantor(failures = []) {
  const attempts = [];
  let claimed = false;
  return {
    attempts,
    async claim() {
      if (claimed) return { claimed: false };
      claimed = true;
      return { claimed: true, item: { id: 1, payload: null, attempts: 1, maxAttempts: 5 }, token: 7, claimMs: CLAIM_MS };
    },
    async heartbeat({ token }) {
      return { extended: true, token, claimMs: CLAIM_MS };
    },
    async complete({ token }) {
      attempts.push({ operation: "complete", at: performance.now() });
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      return { completed: true, token };
    },
    async fail() {
      attempts.push({ operation: "fail", at: performance.now() });
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      return { state: "pending", attempts: 1, maxAttempts: 5 };
    },
  };
}

const claimer = (grantor, options = {}) =>
  new WorkClaimer(grantor, { queue: "q", workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS, ...options });

describe("WorkClaimer configuration, by the core's rules", () => {
  it("names the bad option", () => {
    for (const [options, field] of [
      [{ claimMs: Number.NaN }, "claimMs"],
      [{ claimMs: -1 }, "claimMs"],
      [{ claimMs: 3e9 }, "claimMs"],
      [{ claimMs: "3000" }, "claimMs"],
      [{ marginMs: 0 }, "marginMs"],
      [{ marginMs: CLAIM_MS }, "marginMs"],
      // A heartbeat every claimMs / 3 must come before the margin.
      [{ marginMs: (CLAIM_MS * 2) / 3 }, "marginMs"],
      [{ requestTimeoutMs: -5 }, "requestTimeoutMs"],
    ]) {
      assert.throws(
        () => claimer(oneItemGrantor(), options),
        (error) => error instanceof LeaseError && error.code === "ERR_LEASE_CONFIG" && error.field === field,
        JSON.stringify(options),
      );
    }
  });

  it("heartbeats every claimMs / 3", () => {
    assert.equal(claimer(oneItemGrantor()).heartbeatIntervalMs, CLAIM_MS / 3);
  });
});

describe("WorkClaimer settle retries, decided by the core", () => {
  it("retries a completion that failed in transit, backing off with jitter, up to four attempts", async () => {
    const grantor = oneItemGrantor([grantorError("server_error"), grantorError("unreachable"), grantorError("timed_out")]);
    const claim = await claimer(grantor).claim();
    const reply = await claim.complete("done");
    assert.equal(reply.completed, true);
    assert.equal(grantor.attempts.length, 4);
    // Waits in the upper half of 100, 200 and 400 ms (timers may run late, never early).
    const gaps = grantor.attempts.slice(1).map((a, i) => a.at - grantor.attempts[i].at);
    for (const [i, ceiling] of [100, 200, 400].entries()) {
      assert.ok(gaps[i] >= ceiling / 2 - 2, `retry ${i + 1} after ${gaps[i]} ms`);
      assert.ok(gaps[i] < ceiling + 500, `retry ${i + 1} after ${gaps[i]} ms`);
    }
  });

  it("gives up after the fourth attempt with its error", async () => {
    const failures = Array.from({ length: 5 }, () => grantorError("server_error"));
    const grantor = oneItemGrantor(failures);
    const claim = await claimer(grantor).claim();
    await assert.rejects(claim.complete(), (error) => error.kind === "server_error");
    assert.equal(grantor.attempts.length, 4);
  });

  it("never retries a refused request, a malformed reply or an error that is not the grantor's", async () => {
    for (const failure of [grantorError("bad_request"), grantorError("malformed_reply"), new TypeError("bug")]) {
      const grantor = oneItemGrantor([failure, failure]);
      const claim = await claimer(grantor).claim();
      await assert.rejects(claim.complete(), (error) => error === failure);
      assert.equal(grantor.attempts.length, 1, String(failure));
    }
  });

  it("reports a stale token as ERR_CLAIM_STALE, without retrying", async () => {
    const grantor = oneItemGrantor([grantorError("bad_request", { grantorCode: "stale_claim" })]);
    const claim = await claimer(grantor).claim();
    await assert.rejects(claim.fail(new Error("no")), (error) => error.code === "ERR_CLAIM_STALE");
    assert.equal(grantor.attempts.length, 1);
  });

  it("checks the gate before every completion attempt: a retry after the claim lapsed is not sent", async () => {
    const failures = [grantorError("server_error")];
    const grantor = oneItemGrantor(failures);
    // Heartbeats never answer: the claim lapses at claimMs - marginMs after it was sent.
    grantor.heartbeat = () => new Promise(() => {});
    // The attempt's deadline is well past its slow failure.
    const claim = await claimer(grantor, { claimMs: 600, marginMs: 150, requestTimeoutMs: 2_000 }).claim();
    // The first attempt goes out while held, fails, and its retry is due after the margin.
    const slow = grantorError("server_error");
    grantor.complete = async () => {
      grantor.attempts.push({ operation: "complete", at: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, 500));
      throw slow;
    };
    await assert.rejects(claim.complete(), (error) => error.code === "ERR_CLAIM_LOST");
    assert.equal(grantor.attempts.length, 1);
  });
});

describe("WorkClaimer settle attempt deadline, from the core", () => {
  it("abandons an attempt at requestTimeoutMs, even when the grantor ignores its signal, and retries it", async () => {
    const grantor = oneItemGrantor();
    const signals = [];
    const answer = grantor.complete;
    grantor.complete = (args) => {
      signals.push(args.signal);
      // The first attempt never answers, whatever its signal says.
      if (signals.length === 1) {
        grantor.attempts.push({ operation: "complete", at: performance.now() });
        return new Promise(() => {});
      }
      return answer(args);
    };
    const claim = await claimer(grantor, { requestTimeoutMs: 200 }).claim();
    const reply = await claim.complete("done");
    assert.equal(reply.completed, true);
    assert.equal(grantor.attempts.length, 2);
    assert.ok(signals[0] instanceof AbortSignal && signals[0].aborted, "the first attempt's signal aborted");
    const gap = grantor.attempts[1].at - grantor.attempts[0].at;
    // 200 ms deadline, then a retry wait in the upper half of 100 ms.
    assert.ok(gap >= 250 - 2 && gap < 200 + 100 + 500, `retried ${gap} ms after the first attempt`);
  });

  it("reports an attempt that ran out of time as timed_out once no retry is left", async () => {
    const grantor = oneItemGrantor();
    grantor.fail = ({ signal }) =>
      new Promise((_, reject) => signal.addEventListener("abort", () => reject(new DOMException("gone", "AbortError"))));
    // Not held (heartbeats never answer and the claim runs out): a failure is not retried.
    grantor.heartbeat = () => new Promise(() => {});
    const claim = await claimer(grantor, { claimMs: 600, marginMs: 150, requestTimeoutMs: 500 }).claim();
    await assert.rejects(claim.fail(new Error("no")), (error) => error.code === "ERR_GRANTOR" && error.kind === "timed_out");
  });
});

describe("WorkClaimer worker loop stopping with a claim in flight", () => {
  const released = (grantor) => grantor.attempts.filter((a) => a.operation === "fail");

  it("gives back a claim that arrives after the stop, unprocessed", async () => {
    const grantor = oneItemGrantor();
    const stop = new AbortController();
    const claimOnce = grantor.claim;
    grantor.claim = async (args) => {
      stop.abort();
      return claimOnce(args);
    };
    const handled = [];
    const counts = await claimer(grantor).process((item) => handled.push(item.id), { signal: stop.signal });
    assert.deepEqual(handled, []);
    assert.deepEqual(counts, { claimed: 0, completed: 0, failed: 0, lost: 0 });
    assert.equal(released(grantor).length, 1, "given back as a failed attempt");
  });

  it("gives back the next claim that arrives with the last settlement after the stop", async () => {
    const grantor = oneItemGrantor();
    const stop = new AbortController();
    const given = [];
    grantor.fail = async (args) => {
      given.push(args);
      return { state: "pending", attempts: 1, maxAttempts: 5 };
    };
    grantor.complete = async ({ token, claimNext }) => {
      stop.abort();
      const next = { claimed: true, item: { id: 2, payload: null, attempts: 1, maxAttempts: 5 }, token: 9, claimMs: claimNext.claimMs };
      return { completed: true, token, next };
    };
    const handled = [];
    const counts = await claimer(grantor).process((item) => handled.push(item.id), { signal: stop.signal });
    assert.deepEqual(handled, [1]);
    assert.deepEqual(counts, { claimed: 1, completed: 1, failed: 0, lost: 0 });
    assert.deepEqual(
      given.map((g) => [g.itemId, g.token, g.error.name]),
      [[2, 9, "ClaimReleased"]],
    );
  });
});

describe("WorkClaimer idle backoff, decided by the core", () => {
  it("waits from idleDelayMs doubling to idleDelayMaxMs while nothing is claimable", async () => {
    const grantor = oneItemGrantor();
    grantor.claim = async () => ({ claimed: false });
    const idleAt = [];
    const controller = new AbortController();
    const counts = await claimer(grantor).process(() => {}, {
      signal: controller.signal,
      idleDelayMs: 40,
      idleDelayMaxMs: 160,
      onIdle: () => {
        idleAt.push(performance.now());
        if (idleAt.length === 6) controller.abort();
      },
    });
    assert.equal(counts.claimed, 0);
    const gaps = idleAt.slice(1).map((at, i) => at - idleAt[i]);
    // Ceilings 40, 80, 160, 160, 160: each wait in the upper half of its ceiling.
    for (const [i, ceiling] of [40, 80, 160, 160, 160].entries()) {
      assert.ok(gaps[i] >= ceiling / 2 - 2, `wait ${i + 1}: ${gaps[i]} ms`);
      assert.ok(gaps[i] < ceiling + 500, `wait ${i + 1}: ${gaps[i]} ms`);
    }
  });
});
