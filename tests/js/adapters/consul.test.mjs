// ConsulGrantor against the Consul fake (tests/fakes/consul.mjs): sessions, locks, LockIndex
// tokens, the ACL token, retries, renewals that must notice a lost lock, the lock-delay, and a
// LeaseHolder end to end, including a holder cut off from Consul.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { ConsulGrantor, LeaseHolder, isLeaseError } from "tenure";
import { startConsulFake } from "../../fakes/consul.mjs";
import { sleep, eventually } from "../support/memory-grantor.mjs";

const TOKEN = "consul-test-token";

const grantorError =
  (kind, extra = {}) =>
  (error) => {
    assert.ok(isLeaseError(error), `expected a LeaseError, got ${error?.stack ?? error}`);
    assert.equal(error.code, "ERR_GRANTOR");
    assert.equal(error.kind, kind, error.message);
    for (const [key, value] of Object.entries(extra)) assert.equal(error[key], value, key);
    return true;
  };

describe("ConsulGrantor against the Consul fake", { timeout: 90_000 }, () => {
  let consul;
  let grantor;
  let n = 0;
  const args = (resource, holder, extra = {}) => ({
    resource,
    holder,
    durationMs: 3_000,
    requestId: `req-${(n += 1)}`,
    ...extra,
  });

  before(async () => {
    consul = await startConsulFake({ token: TOKEN });
    grantor = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN });
  });

  after(async () => {
    await consul?.close();
  });

  it("grants with a TTL session and a lock, denies others, renews, releases", async () => {
    const first = await grantor.grant(args("basic", "a"));
    assert.deepEqual(
      first,
      { granted: true, token: 1, durationMs: 10_000 },
      "clamped up to Consul's 10 s minimum",
    );
    const entry = consul.entry("tenure/basic");
    assert.equal(entry.LockIndex, 1);
    const session = consul.session(entry.Session);
    assert.equal(session.TTL, "10s");
    assert.equal(session.Behavior, "release", "the key must outlive a session, or LockIndex restarts");
    assert.equal(session.LockDelay, 0);
    assert.deepEqual(session.NodeChecks, [], "a pure TTL session, tied to no node's health");
    assert.deepEqual(JSON.parse(Buffer.from(entry.Value, "base64")), { holder: "a", requestId: `req-${n}` });

    assert.deepEqual(await grantor.grant(args("basic", "b")), { granted: false, holder: "a" });
    assert.deepEqual(await grantor.renew(args("basic", "a", { token: 1 })), {
      renewed: true,
      token: 1,
      durationMs: 10_000,
    });

    assert.deepEqual(await grantor.release({ resource: "basic", holder: "a", token: 1 }), { released: true });
    assert.equal(consul.session(entry.Session), undefined, "the session is destroyed");
    const released = consul.entry("tenure/basic");
    assert.equal(released.Session, undefined);
    assert.equal(released.LockIndex, 1, "release keeps the LockIndex");
    assert.deepEqual(await grantor.release({ resource: "basic", holder: "a", token: 1 }), {
      released: false,
    });
    assert.deepEqual(await grantor.renew(args("basic", "a", { token: 1 })), {
      renewed: false,
      reason: "expired",
    });

    const second = await grantor.grant(args("basic", "b"));
    assert.deepEqual(second, { granted: true, token: 2, durationMs: 10_000 });
    assert.deepEqual(await grantor.release({ resource: "basic", holder: "a", token: 1 }), {
      released: false,
    });
    assert.equal(
      consul.entry("tenure/basic").Session !== undefined,
      true,
      "a stale release frees nothing newer",
    );
    await grantor.release({ resource: "basic", holder: "b", token: 2 });
    assert.deepEqual(consul.sessionIds(), [], "no session is left behind");
  });

  it("rounds durations up to whole seconds within Consul's 10 s to 24 h", async () => {
    const cases = [
      [1, 10_000, "10s"],
      [12_345, 13_000, "13s"],
      [2 ** 31 - 1, 86_400_000, "86400s"],
    ];
    for (const [durationMs, grantedMs, ttl] of cases) {
      const resource = `ttl-${durationMs}`;
      const reply = await grantor.grant(args(resource, "a", { durationMs }));
      assert.equal(reply.durationMs, grantedMs, `${durationMs} ms`);
      assert.equal(consul.session(consul.entry(`tenure/${resource}`).Session).TTL, ttl);
      await grantor.release({ resource, holder: "a", token: reply.token });
    }
  });

  it("sends the ACL token on every request; a wrong or missing token never grants", async () => {
    const from = consul.requests.length;
    const { token } = await grantor.grant(args("acl", "a"));
    await grantor.renew(args("acl", "a", { token }));
    await grantor.release({ resource: "acl", holder: "a", token });
    const sent = consul.requests.slice(from);
    assert.ok(sent.length >= 6);
    for (const request of sent)
      assert.equal(request.headers["x-consul-token"], TOKEN, `${request.method} ${request.path}`);

    const sessionsBefore = consul.sessionIds().length;
    for (const other of [
      new ConsulGrantor({ baseUrl: consul.url, token: "wrong" }),
      new ConsulGrantor({ baseUrl: consul.url }),
    ]) {
      await assert.rejects(other.grant(args("acl", "b")), grantorError("bad_request", { status: 403 }));
    }
    assert.equal(consul.sessionIds().length, sessionsBefore);
    assert.equal(consul.entry("tenure/acl").Session, undefined);
  });

  it("answers a retried grant with the original token, and a new attempt by the same holder with a new one", async () => {
    const first = await grantor.grant(args("retry", "a", { requestId: "attempt-1" }));
    const retried = await grantor.grant(args("retry", "a", { requestId: "attempt-1" }));
    assert.equal(retried.token, first.token);
    assert.ok(retried.durationMs <= first.durationMs, "never more than the original had");

    // Another instance of the adapter has no memory of the attempt: it renews the session, so the
    // full TTL counts from the retry, and still answers with the original token.
    const other = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN });
    const session = consul.entry("tenure/retry").Session;
    const renewalsBefore = consul.requests.filter((r) => r.path === `/v1/session/renew/${session}`).length;
    assert.deepEqual(await other.grant(args("retry", "a", { requestId: "attempt-1" })), {
      granted: true,
      token: first.token,
      durationMs: 10_000,
    });
    assert.equal(
      consul.requests.filter((r) => r.path === `/v1/session/renew/${session}`).length,
      renewalsBefore + 1,
    );

    const replaced = await grantor.grant(args("retry", "a", { requestId: "attempt-2" }));
    assert.equal(replaced.token, first.token + 1, "a new grant replaces the holder's own older one");
    assert.equal(consul.session(session), undefined, "the older grant's session is destroyed");
    assert.deepEqual(await grantor.renew(args("retry", "a", { token: first.token })), {
      renewed: false,
      reason: "not_holder",
    });
    await grantor.release({ resource: "retry", holder: "a", token: replaced.token });
  });

  it("refuses a renewal once the lock is gone, even while the session lives", async () => {
    const { token } = await grantor.grant(args("taken", "a"));
    const session = consul.entry("tenure/taken").Session;
    // Anyone with the session id can unlock the key; then another holder locks it.
    const unlocked = await fetch(`${consul.url}/v1/kv/tenure/taken?release=${session}`, {
      method: "PUT",
      headers: { "x-consul-token": TOKEN },
    });
    assert.equal(await unlocked.json(), true);
    const b = await grantor.grant(args("taken", "b"));
    assert.equal(b.token, token + 1);
    assert.notEqual(consul.session(session), undefined, "a's session is still alive");
    assert.deepEqual(await grantor.renew(args("taken", "a", { token })), {
      renewed: false,
      reason: "not_holder",
    });
    assert.deepEqual(await grantor.renew(args("taken", "b", { token: b.token })), {
      renewed: true,
      token: b.token,
      durationMs: 10_000,
    });
    await grantor.release({ resource: "taken", holder: "b", token: b.token });
  });

  it("refuses a renewal whose lock is released between the session renewal and the check", async () => {
    let unlockAfterRenew;
    const racing = new ConsulGrantor({
      baseUrl: consul.url,
      token: TOKEN,
      // Lets the session renewal through, then unlocks the key before the adapter checks it.
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (unlockAfterRenew !== undefined && url.includes("/v1/session/renew/")) {
          await fetch(`${consul.url}/v1/kv/tenure/race?release=${unlockAfterRenew}`, {
            method: "PUT",
            headers: { "x-consul-token": TOKEN },
          });
        }
        return response;
      },
    });
    const { token } = await racing.grant(args("race", "a"));
    unlockAfterRenew = consul.entry("tenure/race").Session;
    assert.deepEqual(await racing.renew(args("race", "a", { token })), { renewed: false, reason: "expired" });
  });

  it("loses the grant when Consul invalidates the session; the next holder gets a larger token at once", async () => {
    const { token } = await grantor.grant(args("invalidated", "a"));
    consul.invalidateSession(consul.entry("tenure/invalidated").Session);
    assert.deepEqual(await grantor.renew(args("invalidated", "a", { token })), {
      renewed: false,
      reason: "expired",
    });
    const b = await grantor.grant(args("invalidated", "b"));
    assert.deepEqual(
      b,
      { granted: true, token: token + 1, durationMs: 10_000 },
      "no lock-delay: taken at once",
    );
    await grantor.release({ resource: "invalidated", holder: "b", token: b.token });
  });

  it("adopts the TTL Consul answers a renewal with", async () => {
    const { token } = await grantor.grant(args("raised", "a"));
    consul.setRenewTtl("1m30s");
    try {
      assert.deepEqual(await grantor.renew(args("raised", "a", { token })), {
        renewed: true,
        token,
        durationMs: 90_000,
      });
    } finally {
      consul.setRenewTtl(undefined);
    }
    await grantor.release({ resource: "raised", holder: "a", token });
  });

  it("respects a lock-delay: denied until it passes", async () => {
    const delayed = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN, lockDelayMs: 1_500 });
    const { token } = await delayed.grant(args("delay", "a"));
    const session = consul.entry("tenure/delay").Session;
    assert.equal(consul.session(session).LockDelay, 1.5e9);
    consul.invalidateSession(session); // as if "a" had crashed and its TTL ran out
    const invalidatedAt = performance.now();
    assert.deepEqual(await delayed.grant(args("delay", "b")), { granted: false });
    let granted;
    while (granted === undefined && performance.now() - invalidatedAt < 10_000) {
      const reply = await delayed.grant(args("delay", "b"));
      if (reply.granted) granted = performance.now();
      else await sleep(100);
    }
    assert.ok(granted !== undefined, "granted once the lock-delay passed");
    assert.ok(granted - invalidatedAt >= 1_500 - 20, "not before the lock-delay passed");
    assert.equal(consul.entry("tenure/delay").LockIndex, token + 1);
    await delayed.release({ resource: "delay", holder: "b", token: token + 1 });
  });

  it("refuses bad arguments before sending anything", async () => {
    const from = consul.requests.length;
    const bad = [
      ["grant", { resource: "" }],
      ["grant", { resource: "../x" }],
      ["grant", { resource: "a/../b" }],
      ["grant", { resource: "a//b" }],
      ["grant", { resource: "/a" }],
      ["grant", { resource: "a b" }],
      ["grant", { resource: "a?acquire=x" }],
      ["grant", { resource: "x".repeat(257) }],
      ["grant", { resource: 7 }],
      ["grant", { holder: "" }],
      ["grant", { holder: "x".repeat(257) }],
      ["grant", { holder: "line\nbreak" }],
      ["grant", { durationMs: 0 }],
      ["grant", { durationMs: -1 }],
      ["grant", { durationMs: 1.5 }],
      ["grant", { durationMs: Number.NaN }],
      ["grant", { durationMs: "3000" }],
      ["grant", { durationMs: 2 ** 31 }],
      ["grant", { requestId: "" }],
      ["renew", { token: 0 }],
      ["renew", { token: 1.5 }],
      ["renew", { token: 2 ** 53 }],
      ["renew", { token: "1" }],
      ["release", { token: -1 }],
    ];
    for (const [method, override] of bad) {
      const call = { ...args("ok", "a", { token: 1 }), ...override };
      await assert.rejects(
        grantor[method](call),
        grantorError("bad_request"),
        `${method} ${JSON.stringify(override)}`,
      );
    }
    assert.equal(consul.requests.length, from, "nothing reached Consul");

    const config = [
      [{ baseUrl: "ftp://127.0.0.1" }, "baseUrl"],
      [{ baseUrl: "http://user:pw@127.0.0.1" }, "baseUrl"],
      [{ baseUrl: `${consul.url}/?dc=x` }, "baseUrl"],
      [{ baseUrl: consul.url, token: "" }, "token"],
      [{ baseUrl: consul.url, token: "a\nb" }, "token"],
      [{ baseUrl: consul.url, keyPrefix: "/x/" }, "keyPrefix"],
      [{ baseUrl: consul.url, keyPrefix: "a b/" }, "keyPrefix"],
      [{ baseUrl: consul.url, lockDelayMs: -1 }, "lockDelayMs"],
      [{ baseUrl: consul.url, lockDelayMs: 60_001 }, "lockDelayMs"],
      [{ baseUrl: consul.url, timeoutMs: 0 }, "timeoutMs"],
      [{ baseUrl: consul.url, token: TOKEN, headers: { "X-Consul-Token": "other" } }, "headers"],
    ];
    for (const [options, field] of config) {
      assert.throws(
        () => new ConsulGrantor(options),
        (error) => isLeaseError(error) && error.code === "ERR_LEASE_CONFIG" && error.field === field,
        JSON.stringify(options),
      );
    }
  });

  it("keeps leases under keyPrefix", async () => {
    const prefixed = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN, keyPrefix: "apps/billing/" });
    assert.equal(prefixed.keyOf("reports/nightly"), "apps/billing/reports/nightly");
    const { token } = await prefixed.grant(args("reports/nightly", "a"));
    assert.equal(consul.entry("apps/billing/reports/nightly").LockIndex, token);
    await prefixed.release({ resource: "reports/nightly", holder: "a", token });
  });

  it("drives a LeaseHolder: renews past the lease, loses it when Consul invalidates the session, hands over", async () => {
    const config = (holderId) => ({ resource: "holder", holderId, leaseMs: 3_000, marginMs: 1_000 });
    const a = new LeaseHolder(grantor, config("a"));
    const b = new LeaseHolder(grantor, config("b"));
    const lost = [];
    a.onLeaseLost = (reason) => lost.push({ reason, at: performance.now() });
    try {
      const first = await a.acquire();
      assert.equal(first.acquired, true);
      await sleep(4_500); // longer than the lease: only renewals keep it
      assert.equal(a.lease.isSafelyHeld(), true);
      assert.equal(a.consecutiveFailures, 0);
      assert.deepEqual(await b.acquire(), { acquired: false, reason: "denied", holder: "a" });

      consul.invalidateSession(consul.entry("tenure/holder").Session);
      const invalidatedAt = performance.now();
      assert.ok(await eventually(() => lost.length > 0, 10_000), "a learns of the loss");
      assert.equal(lost[0].reason, "expired");
      assert.ok(lost[0].at - invalidatedAt <= a.renewIntervalMs + 2_000, `${lost[0].at - invalidatedAt} ms`);
      assert.equal(a.signal.aborted, true);

      const second = await b.acquire({ wait: true, signal: AbortSignal.timeout(20_000) });
      assert.equal(second.acquired, true);
      assert.ok(second.token > first.token);
    } finally {
      await a.release().catch(() => {});
      await b.release().catch(() => {});
    }
  });
});

describe("ConsulGrantor when the holder is cut off from Consul", { timeout: 90_000 }, () => {
  let consul;

  before(async () => {
    // Invalidation at exactly the TTL: the earliest Consul's contract allows.
    consul = await startConsulFake({ token: TOKEN, ttlMultiplier: 1 });
  });

  after(async () => {
    await consul?.close();
  });

  it("the holder stops believing before Consul can hand the lock to another", async () => {
    let cutOff = false;
    // When a last sent a session renewal that Consul answered: its TTL restarted after that.
    let lastRenewSentAt = performance.now();
    const aGrantor = new ConsulGrantor({
      baseUrl: consul.url,
      token: TOKEN,
      fetch: async (url, init) => {
        if (cutOff) throw new TypeError("fetch failed: network down");
        const sentAt = performance.now();
        const response = await fetch(url, init);
        if (url.includes("/v1/session/renew/") && response.status === 200) lastRenewSentAt = sentAt;
        return response;
      },
    });
    const bGrantor = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN });
    const config = (holderId) => ({ resource: "cut", holderId, leaseMs: 10_000, marginMs: 2_000 });
    const a = new LeaseHolder(aGrantor, config("a"));
    const b = new LeaseHolder(bGrantor, config("b"));
    const lost = [];
    a.onLeaseLost = (reason) => lost.push({ reason, at: performance.now() });
    try {
      const first = await a.acquire();
      assert.equal(first.acquired, true);
      await sleep(4_000);
      assert.equal(lost.length, 0);
      cutOff = true;
      const cutAt = performance.now();

      const second = await b.acquire({ wait: true, signal: AbortSignal.timeout(40_000) });
      const takenAt = performance.now();
      assert.equal(second.acquired, true);
      assert.ok(second.token > first.token);
      assert.equal(lost.length, 1, "a lost its lease");
      assert.equal(lost[0].reason, "margin_exhausted");
      assert.ok(lost[0].at < takenAt, "a stopped believing before b was granted");
      assert.ok(
        takenAt - lastRenewSentAt >= 10_000,
        `taken ${Math.round(takenAt - lastRenewSentAt)} ms after a's last renewal`,
      );
      assert.ok(takenAt - cutAt < 10_000 + 5_000, "taken soon after Consul invalidated a's session");
    } finally {
      cutOff = false;
      a.surrender("test over");
      await b.release().catch(() => {});
    }
  });
});

describe("the Consul fake answers as Consul documents", () => {
  let consul;
  const put = (path, body) =>
    fetch(`${consul.url}${path}`, {
      method: "PUT",
      headers: { "x-consul-token": TOKEN },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  before(async () => {
    consul = await startConsulFake({ token: TOKEN });
  });

  after(async () => {
    await consul?.close();
  });

  it("validates TTLs, flags and keys with Consul's statuses and texts", async () => {
    const short = await put("/v1/session/create", { TTL: "5s" });
    assert.equal(short.status, 500);
    assert.equal(await short.text(), "Invalid Session TTL '5000000000', must be between [10s=24h0m0s]");
    const { ID } = await (await put("/v1/session/create", { TTL: "10s", LockDelay: 15 })).json();
    assert.equal(consul.session(ID).LockDelay, 15e9, "a small number is seconds");
    assert.deepEqual(consul.session(ID).NodeChecks, ["serfHealth"], "without an empty check list");
    const both = await put(`/v1/kv/k?acquire=${ID}&release=${ID}`, "x");
    assert.equal(both.status, 400);
    assert.match(await both.text(), /^Conflicting flags/);
    const unknown = await put("/v1/kv/k?acquire=0b6f3a5e-7c1d-4e2f-9a8b-1c2d3e4f5a6b", "x");
    assert.equal(unknown.status, 500);
    assert.match(await unknown.text(), /^invalid session/);
    const suspicious = await put("/v1/kv/notes.json", "x");
    assert.equal(suspicious.status, 400);
    const missing = await fetch(`${consul.url}/v1/kv/nothing`, { headers: { "x-consul-token": TOKEN } });
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), "");
    assert.ok(Number(missing.headers.get("x-consul-index")) >= 1);
    const renewal = await put("/v1/session/renew/0b6f3a5e-7c1d-4e2f-9a8b-1c2d3e4f5a6b");
    assert.equal(renewal.status, 404);
    assert.equal(await renewal.text(), "Session id '0b6f3a5e-7c1d-4e2f-9a8b-1c2d3e4f5a6b' not found");
    const denied = await fetch(`${consul.url}/v1/kv/k`);
    assert.equal(denied.status, 403);
    assert.match(await denied.text(), /^Permission denied/);
  });

  it("counts LockIndex per acquisition by a new session, and starts the lock-delay on invalidation", async () => {
    const session = async () =>
      (await (await put("/v1/session/create", { TTL: "10s", LockDelay: "0s" })).json()).ID;
    const [a, b] = [await session(), await session()];
    assert.equal(await (await put(`/v1/kv/lock?acquire=${a}`, "a")).json(), true);
    assert.equal(await (await put(`/v1/kv/lock?acquire=${a}`, "a again")).json(), true);
    assert.equal(consul.entry("lock").LockIndex, 1, "the same session re-acquiring does not count");
    assert.equal(await (await put(`/v1/kv/lock?acquire=${b}`, "b")).json(), false);
    assert.equal(await (await put(`/v1/kv/lock?release=${b}`, "b")).json(), false);
    const modified = consul.entry("lock").ModifyIndex;
    assert.equal(await (await put(`/v1/kv/lock?release=${a}`, "a")).json(), true);
    assert.ok(consul.entry("lock").ModifyIndex > modified);
    assert.equal(await (await put(`/v1/kv/lock?acquire=${b}`, "b")).json(), true);
    assert.equal(consul.entry("lock").LockIndex, 2);

    const delayed = (await (await put("/v1/session/create", { TTL: "10s", LockDelay: "60s" })).json()).ID;
    await put(`/v1/session/destroy/${b}`);
    assert.equal(
      await (await put(`/v1/kv/lock?acquire=${delayed}`, "c")).json(),
      true,
      "b held no lock-delay",
    );
    consul.invalidateSession(delayed);
    assert.equal(consul.entry("lock").Session, undefined);
    assert.equal(await (await put(`/v1/kv/lock?acquire=${a}`, "a")).json(), false, "inside the lock-delay");
  });
});
