// RedisHttpGrantor against a real redis-server behind the Upstash-style REST shim (both started
// by the test on 127.0.0.1, stopped afterwards), and against a crafted endpoint that answers
// whatever a test tells it to.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { LeaseHolder, RedisHttpGrantor, isLeaseError } from "tenure";
import { startFaultProxy } from "../../fault-proxy/proxy.mjs";
import { spawnModule } from "../support/etcd.mjs";
import { fencedWrite, lockKey, redisView, startRedis } from "../support/redis.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const supportUrl = new URL("../support/redis.mjs", import.meta.url).href;

/** Resolves once `predicate()` is true, polling; rejects after `maxMs`. */
async function eventually(predicate, maxMs, what) {
  const start = performance.now();
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (performance.now() - start > maxMs) throw new Error(`not within ${maxMs} ms: ${what}`);
    await sleep(20);
  }
}

/** Asserts `promise` rejects with `ERR_GRANTOR` of `kind`; returns the error. */
async function rejectsWith(promise, kind, what) {
  let error;
  try {
    const value = await promise;
    assert.fail(`${what}: resolved ${JSON.stringify(value)} instead of failing`);
  } catch (caught) {
    error = caught;
  }
  assert.ok(isLeaseError(error), `${what}: ${error?.stack ?? error}`);
  assert.equal(error.code, "ERR_GRANTOR", `${what}: ${error.message}`);
  assert.equal(error.kind, kind, `${what}: ${error.message}`);
  return error;
}

const args = (resource, holder, extra = {}) => ({
  resource,
  holder,
  durationMs: 1_000,
  requestId: Math.random().toString(36).slice(2),
  ...extra,
});

describe("RedisHttpGrantor against a real Redis behind the REST shim", () => {
  let redis;
  let grantor;

  before(async () => {
    redis = await startRedis();
    grantor = new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token });
  });

  after(async () => {
    await redis?.cleanup();
  });

  it("grants, denies, renews and releases; the token comes from the resource's counter", async () => {
    const granted = await grantor.grant(args("basic", "a"));
    assert.deepEqual(granted, { granted: true, token: 1, durationMs: 1_000 });
    const view = await redisView(redis, "basic");
    assert.equal(view.holder, "a");
    assert.equal(view.token, 1);
    assert.ok(view.pttl > 0 && view.pttl <= 1_000, `PX set to the duration: ${view.pttl}`);
    assert.equal(await redis.command("GET", `${lockKey("basic")}:fence`), "1");

    const denied = await grantor.grant(args("basic", "b"));
    assert.equal(denied.granted, false);
    assert.equal(denied.holder, "a");
    assert.ok(denied.expiresInMs > 0 && denied.expiresInMs <= 1_000, `expiresInMs ${denied.expiresInMs}`);

    await sleep(700);
    assert.deepEqual(await grantor.renew(args("basic", "a", { token: 1, durationMs: 1_500 })), {
      renewed: true,
      token: 1,
      durationMs: 1_500,
    });
    // The original had at most 300 ms left; the renewal gave it 1.5 s from now.
    assert.ok((await redisView(redis, "basic")).pttl > 600, "the expiry was reset to the full duration");
    await sleep(700); // past the first duration: only the renewal kept it
    assert.equal((await redisView(redis, "basic"))?.holder, "a");

    assert.deepEqual(await grantor.release(args("basic", "a", { token: 1 })), { released: true });
    assert.equal(await redisView(redis, "basic"), null);
    assert.deepEqual(await grantor.release(args("basic", "a", { token: 1 })), { released: false });
    const next = await grantor.grant(args("basic", "b"));
    assert.equal(next.token, 2, "the counter survives the release");
    await grantor.release(args("basic", "b", { token: 2 }));
  });

  it("keeps one counter per resource, and lets an unrenewed grant expire on time", async () => {
    const sentAt = performance.now();
    const first = await grantor.grant(args("expiry", "a", { durationMs: 400 }));
    assert.equal(first.token, 1, "a new resource starts at 1");
    const second = await eventually(async () => {
      const reply = await grantor.grant(args("expiry", "b", { durationMs: 400 }));
      return reply.granted ? { ...reply, at: performance.now() } : null;
    }, 5_000, "b gets the lapsed grant");
    assert.ok(second.at - sentAt >= 400, `not before the duration: ${Math.round(second.at - sentAt)} ms`);
    assert.equal(second.token, 2);
    assert.deepEqual(await grantor.renew(args("expiry", "a", { token: 1 })), { renewed: false, reason: "not_holder" });
    await grantor.release(args("expiry", "b", { token: 2 }));
  });

  it("answers a retried grant with the same grant and only the time its key has left", async () => {
    const first = await grantor.grant(args("retry", "a", { durationMs: 2_000 }));
    const firstReplyAt = performance.now();
    await sleep(500);
    const retrySentAt = performance.now();
    const retried = await grantor.grant(args("retry", "a", { durationMs: 2_000 }));
    assert.equal(retried.granted, true);
    assert.equal(retried.token, first.token);
    // The original was set before its reply came: it has at most this much left.
    const left = 2_000 - (retrySentAt - firstReplyAt);
    assert.ok(retried.durationMs <= left + 1 && retried.durationMs > 0, `${retried.durationMs} of ${left}`);
    // Read after the retry, the key has no more left than the retry promised: it was not extended.
    assert.ok((await redisView(redis, "retry")).pttl <= retried.durationMs, "the retry did not extend the key");
    assert.equal(await redis.command("GET", `${lockKey("retry")}:fence`), "1", "nor take a new token");
    // A retried renewal (same requestId) is answered like the original: no more than it has left.
    const renewal = args("retry", "a", { token: first.token, durationMs: 2_000 });
    const renewSentAt = performance.now();
    assert.equal((await grantor.renew(renewal)).durationMs, 2_000);
    await sleep(300);
    const again = await grantor.renew(renewal);
    assert.equal(again.renewed, true);
    assert.ok(again.durationMs <= 2_000 - 300, `the retry promises ${again.durationMs} ms`);
    assert.ok(again.durationMs >= 2_000 - (performance.now() - renewSentAt) - 1);
    assert.equal((await grantor.renew({ ...renewal, requestId: "another" })).durationMs, 2_000, "a new attempt");
    await grantor.release(args("retry", "a", { token: first.token }));
  });

  it("refuses a renewal once the key is gone (expired) or holds another grant (not_holder)", async () => {
    const first = await grantor.grant(args("gone", "a"));
    await redis.command("DEL", lockKey("gone"));
    assert.deepEqual(await grantor.renew(args("gone", "a", { token: first.token })), {
      renewed: false,
      reason: "expired",
    });
    const second = await grantor.grant(args("gone", "b"));
    assert.deepEqual(await grantor.renew(args("gone", "a", { token: first.token })), {
      renewed: false,
      reason: "not_holder",
    });
    assert.deepEqual(await grantor.renew(args("gone", "b", { token: first.token })), {
      renewed: false,
      reason: "not_holder",
    });
    assert.deepEqual(await grantor.release(args("gone", "a", { token: first.token })), { released: false });
    assert.equal((await redisView(redis, "gone")).holder, "b", "b's grant is untouched");
    await grantor.release(args("gone", "b", { token: second.token }));
  });

  it("names the holder of a key written by other software, and never grants over it", async () => {
    await redis.command("SET", lockKey("foreign"), "held-by-some-lock", "PX", "5000");
    const denied = await grantor.grant(args("foreign", "a"));
    assert.equal(denied.granted, false);
    assert.equal(denied.holder, "held-by-some-lock");
    assert.ok(denied.expiresInMs > 0 && denied.expiresInMs <= 5_000);
    await redis.command("SET", lockKey("forever"), "7:x");
    assert.deepEqual(await grantor.grant(args("forever", "a")), { granted: false, holder: "x" }, "no expiry, no hint");
    // A fence counter that is not a number: Redis's error, not a grant.
    await redis.command("SET", `${lockKey("broken")}:fence`, "not-a-number");
    const error = await rejectsWith(grantor.grant(args("broken", "a")), "bad_request", "a broken counter");
    assert.match(error.message, /not an integer/);
    assert.equal(await redisView(redis, "broken"), null);
  });

  it("keeps holder ids with separators and non-ASCII text intact", async () => {
    for (const holder of ["worker:7:eu", "wörker-ñ-7", "a}b{c"]) {
      const granted = await grantor.grant(args("names{1}", holder));
      assert.equal(granted.granted, true);
      assert.equal((await new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token }).grant(args("names{1}", "other"))).holder, holder);
      assert.equal((await grantor.renew(args("names{1}", holder, { token: granted.token }))).renewed, true);
      assert.deepEqual(await grantor.release(args("names{1}", holder, { token: granted.token })), { released: true });
    }
  });

  it("refuses bad input with a clear error, never a grant", async () => {
    for (const [bad, what] of [
      [{ resource: "" }, "empty resource"],
      [{ resource: null }, "null resource"],
      [{ holder: 12 }, "numeric holder"],
      [{ durationMs: -5 }, "negative duration"],
      [{ durationMs: Infinity }, "infinite duration"],
      [{ durationMs: 2 ** 31 }, "a duration beyond a timer's reach"],
    ]) {
      await rejectsWith(grantor.grant({ ...args("bad", "a"), ...bad }), "bad_request", what);
    }
    for (const token of [0, -3, 2.5, 2 ** 53, "1"]) {
      await rejectsWith(grantor.renew(args("bad", "a", { token })), "bad_request", `renew token ${token}`);
      await rejectsWith(grantor.release(args("bad", "a", { token })), "bad_request", `release token ${token}`);
    }
    assert.equal(await redisView(redis, "bad"), null);
    assert.throws(() => new RedisHttpGrantor({ baseUrl: "http://u:p@127.0.0.1" }), { field: "baseUrl" });
    assert.throws(() => new RedisHttpGrantor({ baseUrl: redis.url, token: 5 }), { field: "token" });
    assert.throws(() => new RedisHttpGrantor({ baseUrl: redis.url, keyPrefix: 3 }), { field: "keyPrefix" });
    assert.throws(() => new RedisHttpGrantor({ baseUrl: redis.url, headers: { a: 1 } }), { field: "headers" });
  });

  it("fails clearly with a wrong token, when nothing listens, and when Redis stops answering", async () => {
    const wrong = new RedisHttpGrantor({ baseUrl: redis.url, token: "wrong" });
    const refused = await rejectsWith(wrong.grant(args("auth", "a")), "bad_request", "wrong token");
    assert.equal(refused.status, 401);
    await rejectsWith(new RedisHttpGrantor({ baseUrl: "http://127.0.0.1:9" }).grant(args("down", "a")), "unreachable", "closed port");
    const quick = new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token, timeoutMs: 300 });
    redis.pause();
    try {
      await rejectsWith(quick.grant(args("down", "a")), "timed_out", "paused redis");
    } finally {
      redis.resume();
    }
    assert.equal(await redisView(redis, "auth"), null);
  });
});

/**
 * An endpoint that answers whatever `respond(body)` says: `{status, body, headers}` (body a string
 * or an object to send as JSON). Records every request.
 */
async function craftedEndpoint(respond) {
  const requests = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
      requests.push({ path: request.url, headers: request.headers, body });
      const answer = respond(body);
      const payload = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      response.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
      response.end(payload);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

describe("RedisHttpGrantor against a crafted endpoint", () => {
  const withEndpoint = async (respond, run) => {
    const endpoint = await craftedEndpoint(respond);
    try {
      return await run(new RedisHttpGrantor({ baseUrl: endpoint.url, token: "secret" }), endpoint);
    } finally {
      await endpoint.close();
    }
  };

  it("accepts the well-formed reply it is built for, sending a Bearer token to the one origin", async () => {
    await withEndpoint(
      () => ({ body: { result: [1, "41:a", 1000] } }),
      async (grantor, endpoint) => {
        assert.deepEqual(await grantor.grant(args("r", "a")), { granted: true, token: 41, durationMs: 1_000 });
        const [request] = endpoint.requests;
        assert.equal(request.path, "/");
        assert.equal(request.headers.authorization, "Bearer secret");
        assert.equal(request.body[0], "EVAL");
        assert.deepEqual(request.body.slice(2), ["2", "tenure:{r}", "tenure:{r}:fence", "a", "1000"]);
      },
    );
  });

  const hostileGrants = [
    ["a token of 2^53", [1, "9007199254740992:a", 1000]],
    ["a token beyond 2^53", [1, "99999999999999999999:a", 1000]],
    ["a token in exponent form", [1, "1e3:a", 1000]],
    ["a token with a leading zero", [1, "041:a", 1000]],
    ["a negative token", [1, "-41:a", 1000]],
    ["a zero token", [1, "0:a", 1000]],
    ["a value without a token", [1, "a", 1000]],
    ["a value that is a number", [1, 41, 1000]],
    ["a grant naming another holder", [1, "41:b", 1000]],
    ["a grant for another duration", [1, "41:a", 60000]],
    ["a retry with a fractional time left", [2, "41:a", 10.5]],
    ["a retry with the time left as a string", [2, "41:a", "900"]],
    ["a retry naming another holder", [2, "41:b", 900]],
    ["an unknown status", [3, "41:a", 1000]],
    ["a status as a string", ["1", "41:a", 1000]],
    ["a short result", [1, "41:a"]],
    ["a result that is not an array", "OK"],
    ["a null result", null],
  ];
  for (const [name, result] of hostileGrants) {
    it(`grants nothing on ${name}`, async () => {
      await withEndpoint(
        () => ({ body: { result } }),
        (grantor) => rejectsWith(grantor.grant(args("r", "a")), "malformed_reply", name),
      );
    });
  }

  it("grants nothing on replies that are not JSON, too large, without a result, or errors", async () => {
    const cases = [
      [{ body: "<html>proxy</html>" }, "malformed_reply"],
      [{ body: "z".repeat(100_000) }, "malformed_reply"],
      [{ body: { other: 1 } }, "malformed_reply"],
      [{ body: [] }, "malformed_reply"],
      [{ body: { error: "ERR unknown command" } }, "bad_request"],
      [{ status: 400, body: { error: "ERR Error running script" } }, "bad_request"],
      [{ status: 401, body: { error: "Unauthorized" } }, "bad_request"],
      [{ status: 502, body: "Bad Gateway" }, "server_error"],
      [{ status: 429, body: { error: "ERR max requests limit exceeded" }, headers: { "retry-after": "3" } }, "rate_limited"],
    ];
    for (const [answer, kind] of cases) {
      await withEndpoint(
        () => answer,
        async (grantor) => {
          const error = await rejectsWith(grantor.grant(args("r", "a")), kind, JSON.stringify(answer).slice(0, 80));
          if (kind === "rate_limited") assert.equal(error.retryAfterMs, 3_000);
        },
      );
    }
  });

  it("treats hostile renewal and release replies as failures, never as renewed", async () => {
    for (const result of [2, "1", 1.5, null, [1], true]) {
      await withEndpoint(
        () => ({ body: { result } }),
        async (grantor) => {
          await rejectsWith(grantor.renew(args("r", "a", { token: 4 })), "malformed_reply", `renew ${result}`);
          await rejectsWith(grantor.release(args("r", "a", { token: 4 })), "malformed_reply", `release ${result}`);
        },
      );
    }
  });

  it("a LeaseHolder never acquires through a hostile endpoint", async () => {
    await withEndpoint(
      () => ({ body: { result: [1, "9007199254740993:a", 1000] } }),
      async (grantor) => {
        const holder = new LeaseHolder(grantor, { resource: "r", holderId: "a", leaseMs: 1_000, marginMs: 200 });
        assert.deepEqual(await holder.acquire(), { acquired: false, reason: "malformed_reply" });
        assert.equal(holder.lease.isSafelyHeld(), false);
      },
    );
  });
});

describe("lease safety with Redis as the grantor (the design's verification)", () => {
  const leaseMs = 2_500;
  const marginMs = 800;
  let redis;
  let proxy;
  let child;

  before(async () => {
    redis = await startRedis();
    proxy = await startFaultProxy({ target: redis.url });
  });

  after(async () => {
    await child?.kill();
    await proxy?.close();
    await redis?.cleanup();
  });

  const connect = (baseUrl) => new RedisHttpGrantor({ baseUrl, token: redis.token });

  it("surrenders when renewal cannot reach the grantor, before Redis lets the lease go", async (t) => {
    const start = performance.now();
    const now = () => performance.now() - start;
    const sends = [];
    const direct = connect(proxy.url);
    const recorded = {
      grant: async (call) => {
        const sentAt = now();
        const reply = await direct.grant(call);
        if (reply.granted) sends.push(sentAt);
        return reply;
      },
      renew: async (call) => {
        const sentAt = now();
        const reply = await direct.renew(call);
        if (reply.renewed) sends.push(sentAt);
        return reply;
      },
      release: (call) => direct.release(call),
    };
    const holder = new LeaseHolder(recorded, { resource: "blocked", holderId: "node-a", leaseMs, marginMs });
    let lost = null;
    let atLoss = null;
    holder.onLeaseLost = (reason) => {
      lost = { reason, at: now(), deadline: Math.max(...sends) + leaseMs - marginMs };
      atLoss = redisView(redis, "blocked");
    };
    const { acquired, token } = await holder.acquire({ wait: true, signal: AbortSignal.timeout(10_000) });
    assert.equal(acquired, true);
    await eventually(() => sends.length >= 3, 5 * leaseMs, "two renewals before the block");

    proxy.set({ kind: "block" });
    try {
      const blockedAt = now();
      await sleep(leaseMs);
      assert.equal(holder.lease.isSafelyHeld(), false);
      assert.equal(holder.surrendered, true);
      assert.equal(lost?.reason, "margin_exhausted");
      assert.ok(lost.at > blockedAt && lost.at <= lost.deadline + 500, `lost ${Math.round(lost.at - lost.deadline)} ms after the deadline`);
      const view = await atLoss;
      assert.equal(view?.holder, "node-a", "Redis still held the grant when the holder gave up");
      assert.equal(view.token, token);
      assert.ok(view.pttl > 0, `with ${view.pttl} ms left`);
      t.diagnostic(`surrendered ${Math.round(lost.at - lost.deadline)} ms after its margin deadline`);
    } finally {
      proxy.heal();
    }
    const other = new LeaseHolder(connect(redis.url), { resource: "blocked", holderId: "node-b", leaseMs, marginMs });
    const next = await other.acquire({ wait: true, signal: AbortSignal.timeout(5 * leaseMs) });
    assert.equal(next.acquired, true);
    assert.ok(next.token > token);
    await other.release();
  });

  it("does not grant twice within one lease period", async () => {
    const grantor = connect(redis.url);
    const first = new LeaseHolder(grantor, { resource: "twice", holderId: "node-a", leaseMs, marginMs });
    const second = new LeaseHolder(grantor, { resource: "twice", holderId: "node-b", leaseMs, marginMs });
    const firstLost = [];
    first.onLeaseLost = (reason) => firstLost.push(reason);
    assert.equal((await first.acquire({ wait: true, signal: AbortSignal.timeout(10_000) })).acquired, true);
    const started = performance.now();
    const attempts = [];
    while (performance.now() - started < 2 * leaseMs) {
      attempts.push(await second.acquire());
      assert.equal(first.lease.isSafelyHeld(), true, "the first node believes throughout");
      await sleep(150);
    }
    assert.ok(attempts.length >= 10, `${attempts.length} attempts`);
    for (const outcome of attempts) {
      assert.equal(outcome.acquired, false);
      assert.equal(outcome.reason, "denied");
      assert.equal(outcome.holder, "node-a");
      assert.ok(outcome.expiresInMs > 0 && outcome.expiresInMs <= leaseMs, `expiresInMs ${outcome.expiresInMs}`);
    }
    assert.deepEqual(firstLost, []);
    await first.release();
  });

  it("rejects work from a holder that paused past expiry (SIGSTOP, SIGCONT)", async () => {
    const resource = "paused";
    const endpoint = { url: redis.url, token: redis.token };
    child = spawnModule(`
      import { RedisHttpGrantor } from "tenure";
      import { runPausableHolder } from ${JSON.stringify(new URL("../support/etcd.mjs", import.meta.url).href)};
      import { fencedWrite } from ${JSON.stringify(supportUrl)};
      const endpoint = ${JSON.stringify(endpoint)};
      await runPausableHolder({
        grantor: new RedisHttpGrantor({ baseUrl: endpoint.url, token: endpoint.token }),
        write: (value, token) => fencedWrite(endpoint, ${JSON.stringify(resource)}, value, token),
        resource: ${JSON.stringify(resource)},
        leaseMs: ${leaseMs},
        marginMs: ${marginMs},
      });
    `);
    const checked = await child.next();
    assert.equal(checked.acquired, true, JSON.stringify(checked));
    assert.equal(checked.firstWrite.accepted, true);
    assert.ok(checked.renewals >= 2 && checked.safeWhenChecked, JSON.stringify(checked));

    const pauseMs = 2 * leaseMs;
    child.child.kill("SIGSTOP");
    await sleep(pauseMs);
    const replacement = new LeaseHolder(connect(redis.url), { resource, holderId: "other-node", leaseMs, marginMs });
    const taken = await replacement.acquire({ wait: true, signal: AbortSignal.timeout(5 * leaseMs) });
    assert.equal(taken.acquired, true);
    assert.ok(taken.token > checked.token, `${taken.token} > ${checked.token}`);
    assert.deepEqual(await fencedWrite(endpoint, resource, "other-node", taken.token), {
      accepted: true,
      lastToken: taken.token,
    });
    child.child.kill("SIGCONT");
    child.child.stdin.write("act\n");
    const acted = await child.next();
    await replacement.release();

    assert.ok(acted.longestGapMs >= pauseMs - 150, `paused for ${Math.round(acted.longestGapMs)} ms`);
    assert.equal(acted.safelyHeld, false, "the holder knows at once");
    assert.equal(acted.surrendered, true);
    assert.deepEqual(acted.lost.map((l) => l.reason), ["margin_exhausted"]);
    assert.deepEqual(acted.staleWrite, { accepted: false, lastToken: taken.token }, "the resource refuses the stale token");
    assert.equal(await redis.command("GET", `data:{${resource}}`), "other-node");
  });
});

describe("Redis killed (SIGKILL) and restarted", () => {
  it("with an append-only file synced on every write: the grant and its counter survive", async () => {
    const redis = await startRedis({ persistent: true });
    try {
      const grantor = new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token, timeoutMs: 1_000 });
      const holder = new LeaseHolder(grantor, { resource: "durable", holderId: "node-a", leaseMs: 3_000, marginMs: 800 });
      const lost = [];
      holder.onLeaseLost = (reason) => lost.push(reason);
      const { acquired, token } = await holder.acquire({ wait: true, signal: AbortSignal.timeout(10_000) });
      assert.equal(acquired, true);
      await redis.kill();
      await redis.restart();
      const view = await redisView(redis, "durable");
      assert.equal(view?.holder, "node-a", "the grant survived the crash");
      assert.equal(view.token, token);
      // Redis keeps the absolute expiry: the key did not get a fresh duration from the restart.
      assert.ok(view.pttl > 0 && view.pttl <= 3_000, `${view.pttl} ms left`);
      await sleep(3_500); // past the lease: renewals resumed
      assert.deepEqual(lost, []);
      assert.equal(holder.lease.token, token);
      await holder.release();
      const next = await grantor.grant(args("durable", "node-b"));
      assert.ok(next.token > token, `the counter survived: ${next.token} > ${token}`);
    } finally {
      await redis.cleanup();
    }
  });

  it("without persistence: the grant is lost, the counter restarts, and the holder refuses the lower token", async () => {
    const redis = await startRedis();
    try {
      const grantor = new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token, timeoutMs: 1_000 });
      for (let i = 0; i < 3; i += 1) {
        const { token } = await grantor.grant(args("volatile", "warm-up"));
        await grantor.release(args("volatile", "warm-up", { token }));
      }
      const holder = new LeaseHolder(grantor, { resource: "volatile", holderId: "node-a", leaseMs: 3_000, marginMs: 800 });
      const lost = [];
      holder.onLeaseLost = (reason) => lost.push(reason);
      const { token } = await holder.acquire({ wait: true, signal: AbortSignal.timeout(10_000) });
      assert.equal(token, 4);
      await redis.kill();
      await redis.restart();
      assert.equal(await redisView(redis, "volatile"), null, "nothing survived");
      // The next renewal finds no key: a definitive loss, not a retry.
      await eventually(() => lost.length > 0, 3_000, "the holder hears of the loss");
      assert.deepEqual(lost, ["expired"]);
      // Redis starts counting again at 1; the holder has seen 4 and refuses to go back.
      const again = await holder.acquire();
      assert.deepEqual(again, { acquired: false, reason: "token_regressed" });
    } finally {
      await redis.cleanup();
    }
  });
});
