// HttpGrantor, LeaseHolder and WorkClaimer against a real reference grantor that requires API keys:
// keys and their namespaces, lease and claim secrets carried automatically (or passed explicitly),
// another client that knows a holder's name and token getting nowhere, admin-only revoke, rate
// limits, and credentials never leaving the configured origin, redirects included.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { HttpGrantor, LeaseHolder, WorkClaimer, isLeaseError } from "tenure";
import { startGrantor } from "./support/grantor-process.mjs";
import { sleep } from "./support/memory-grantor.mjs";

const KEY_A = "team-a-key-0123456789abcdef";
const KEY_B = "team-b-key-0123456789abcdef";
const KEY_ADMIN = "admin-key-0123456789abcdef";
const KEY_SLOW = "slow-key-0123456789abcdef";

const KEYS = [
  { id: "team-a", secret: KEY_A, namespaces: ["team-a/"] },
  { id: "team-b", secret: KEY_B, namespaces: ["team-b/"] },
  { id: "ops", secret: KEY_ADMIN, namespaces: ["*"], admin: true },
  { id: "slow", secret: KEY_SLOW, namespaces: ["slow/"], ratePerSecond: 1, burst: 2 },
]
  .map((key) => JSON.stringify(key))
  .join("\n");

const config = (resource, holderId) => ({ resource, holderId, leaseMs: 900, marginMs: 200 });

/** Resolves the rejection of `promise`; fails if it resolves. */
async function rejection(promise) {
  try {
    const value = await promise;
    assert.fail(`expected a rejection, got ${JSON.stringify(value)}`);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    return error;
  }
}

describe("against a grantor that requires API keys", () => {
  let grantorProcess;
  let url;

  before(async () => {
    grantorProcess = await startGrantor({ env: { TENURE_GRANTOR_KEYS: KEYS } });
    url = grantorProcess.url;
  });

  after(async () => {
    await grantorProcess?.stop();
  });

  it("a LeaseHolder with its key acquires, renews, writes and releases; without one, nothing", async () => {
    const grantor = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    const holder = new LeaseHolder(grantor, config("team-a/report", "worker-1"));
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    const { acquired, token } = await holder.acquire();
    assert.equal(acquired, true);
    await sleep(1_300); // past the lease: only renewals, each carrying the grant's secret, keep it
    assert.equal(holder.lease.isSafelyHeld(), true);
    assert.equal(holder.consecutiveFailures, 0);
    assert.deepEqual(lost, []);
    assert.deepEqual(await grantor.fencedWrite("team-a/report", { rows: 3 }, token, { signal: holder.signal }), {
      accepted: true,
      lastToken: token,
    });
    await holder.release();
    assert.equal((await grantor.status("team-a/report")).holder, null, "released with its secret");

    const anonymous = new HttpGrantor({ baseUrl: url });
    const error = await rejection(anonymous.status("team-a/report"));
    assert.ok(isLeaseError(error));
    assert.deepEqual([error.code, error.kind, error.status, error.grantorCode], ["ERR_GRANTOR", "bad_request", 401, "unauthorized"]);
    const keyless = new LeaseHolder(anonymous, config("team-a/report", "worker-2"));
    assert.deepEqual(await keyless.acquire(), { acquired: false, reason: "bad_request" });
  });

  it("a key reaches only its namespaces", async () => {
    const teamA = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    for (const resource of ["team-b/report", "team-ab/report", "team-a", "Team-a/report"]) {
      const error = await rejection(teamA.grant({ resource, holder: "h", durationMs: 900, requestId: `ns-${resource}` }));
      assert.deepEqual([error.status, error.grantorCode], [403, "forbidden_namespace"], resource);
    }
    const holder = new LeaseHolder(teamA, config("team-b/report", "h"));
    assert.deepEqual(await holder.acquire(), { acquired: false, reason: "bad_request" });
    const claimer = new WorkClaimer(teamA, { queue: "team-b/jobs", workerId: "w", claimMs: 900, marginMs: 200 });
    const error = await rejection(claimer.claim());
    assert.equal(error.grantorCode, "forbidden_namespace");
  });

  it("another client that knows the holder's name and token can neither renew, release, write nor re-grant", async () => {
    const resource = "team-a/singleton";
    const owner = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    const holder = new LeaseHolder(owner, config(resource, "b"));
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    const { token } = await holder.acquire();

    // Same key, same namespace, another process: it reads the holder and token from status.
    const intruder = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    const seen = await intruder.status(resource);
    assert.deepEqual([seen.holder, seen.token], ["b", token]);
    assert.equal("leaseSecret" in seen, false);
    const attempts = [
      ["renew", () => intruder.renew({ resource, holder: "b", token, durationMs: 900, requestId: "i1" })],
      ["release", () => intruder.release({ resource, holder: "b", token })],
      ["fencedWrite", () => intruder.fencedWrite(resource, "forged", token)],
      [
        "renew with a made-up secret",
        () => intruder.renew({ resource, holder: "b", token, durationMs: 900, requestId: "i2", leaseSecret: "A".repeat(43) }),
      ],
    ];
    for (const [what, attempt] of attempts) {
      const error = await rejection(attempt());
      assert.deepEqual([error.status, error.grantorCode], [403, "bad_lease_secret"], what);
    }
    const regrant = await intruder.grant({ resource, holder: "b", durationMs: 900, requestId: "i3" });
    assert.deepEqual([regrant.granted, regrant.holder], [false, "b"], "a re-grant under the name is denied");

    // The real holder never noticed.
    await sleep(1_300);
    assert.equal(holder.lease.isSafelyHeld(), true);
    assert.equal(holder.consecutiveFailures, 0);
    assert.deepEqual(lost, []);
    assert.deepEqual(await owner.fencedRead(resource), { payload: null, lastToken: null });
    assert.equal((await owner.fencedWrite(resource, "by b", token)).accepted, true);
    await holder.release();
  });

  it("a caller that keeps the secret itself passes it explicitly, from another HttpGrantor", async () => {
    const resource = "team-a/explicit";
    const first = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    const granted = await first.grant({ resource, holder: "h", durationMs: 5_000, requestId: "e1" });
    assert.equal(typeof granted.leaseSecret, "string");
    const { leaseSecret, token } = granted;
    const second = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    const renewed = await second.renew({ resource, holder: "h", token, durationMs: 5_000, requestId: "e2", leaseSecret });
    assert.equal(renewed.renewed, true);
    assert.equal((await second.fencedWrite(resource, 1, token, { leaseSecret })).accepted, true);
    const regranted = await second.grant({ resource, holder: "h", durationMs: 5_000, requestId: "e3", leaseSecret });
    assert.equal(regranted.token, token + 1, "a same-holder re-grant proven by the secret");
    const error = await rejection(second.renew({ resource, holder: "h", token, durationMs: 5_000, requestId: "e4", leaseSecret: "" }));
    assert.equal(error.grantorCode, "bad_lease_secret", "an empty secret is refused before sending");
    assert.deepEqual(await second.release({ resource, holder: "h", token: token + 1 }), { released: true });
  });

  it("a WorkClaimer's claims carry their secret; another worker cannot complete them", async () => {
    const grantor = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    await grantor.enqueue("team-a/thumbs", [{ payload: "a.png" }, { payload: "b.png" }]);
    const claimer = new WorkClaimer(grantor, { queue: "team-a/thumbs", workerId: "edge-1", claimMs: 900, marginMs: 200 });
    const claim = await claimer.claim();
    const other = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    const forged = { queue: "team-a/thumbs", itemId: claim.item.id, worker: "edge-1", token: claim.token, result: "forged" };
    const error = await rejection(other.complete(forged));
    assert.deepEqual([error.status, error.grantorCode], [403, "bad_claim_secret"]);
    await sleep(700); // past a heartbeat (claimMs / 3), which carries the secret too
    assert.equal(claim.isSafelyHeld(), true);
    await claim.complete("thumb-a");
    const record = await grantor.queueItem("team-a/thumbs", claim.item.id);
    assert.deepEqual([record.state, record.result, record.completedBy], ["done", "thumb-a", "edge-1"]);
    // The loop too: claims, completes (with each claim's secret) and stops when idle.
    const stop = new AbortController();
    const counts = await claimer.process(async (item) => `thumb-${item.payload}`, {
      signal: stop.signal,
      onIdle: () => stop.abort(),
    });
    assert.deepEqual([counts.claimed, counts.completed, counts.failed, counts.lost], [1, 1, 0, 0]);
  });

  it("revoke is for admin keys", async () => {
    const teamA = new HttpGrantor({ baseUrl: url, apiKey: KEY_A });
    const holder = new LeaseHolder(teamA, config("team-a/revocable", "h"));
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    await holder.acquire();
    const error = await rejection(teamA.revoke("team-a/revocable"));
    assert.deepEqual([error.status, error.grantorCode], [403, "admin_only"]);
    const admin = new HttpGrantor({ baseUrl: url, apiKey: KEY_ADMIN });
    assert.deepEqual(await admin.revoke("team-a/revocable"), { revoked: true });
    await sleep(700);
    assert.deepEqual(lost, ["revoked"]);
  });

  it("a key over its rate is told when to retry", async () => {
    const slow = new HttpGrantor({ baseUrl: url, apiKey: KEY_SLOW });
    let error;
    for (let i = 0; i < 20 && error === undefined; i++) {
      await slow.status("slow/x").catch((e) => (error = e));
    }
    assert.ok(error, "never rate limited");
    assert.deepEqual([error.kind, error.status, error.grantorCode, error.retryAfterMs], ["rate_limited", 429, "rate_limited", 1_000]);
    await sleep(error.retryAfterMs);
    assert.equal((await slow.status("slow/x")).holder, null);
  });
});

describe("HttpGrantor credentials", () => {
  it("refuses a malformed apiKey, or one given twice", () => {
    for (const [options, field] of [
      [{ apiKey: "" }, "apiKey"],
      [{ apiKey: "has a space" }, "apiKey"],
      [{ apiKey: "line\nbreak" }, "apiKey"],
      [{ apiKey: 42 }, "apiKey"],
      [{ apiKey: KEY_A, headers: { Authorization: "Bearer other" } }, "headers"],
    ]) {
      assert.throws(
        () => new HttpGrantor({ baseUrl: "http://127.0.0.1:1", ...options }),
        (e) => e.code === "ERR_LEASE_CONFIG" && e.field === field,
        JSON.stringify(options),
      );
    }
  });

  it("never follows a redirect, so the key and secrets reach no other origin", async () => {
    const elsewhere = [];
    const other = createServer((request, response) => {
      elsewhere.push({ url: request.url, authorization: request.headers.authorization });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ granted: true, token: 1 }));
    });
    const seen = [];
    let otherUrl;
    const redirecting = createServer((request, response) => {
      seen.push({ url: request.url, authorization: request.headers.authorization });
      request.resume();
      const status = [301, 302, 303, 307, 308][seen.length % 5];
      response.writeHead(status, { location: `${otherUrl}${request.url}` });
      response.end();
    });
    const listen = (server) => new Promise((done) => server.listen(0, "127.0.0.1", () => done(server.address().port)));
    otherUrl = `http://127.0.0.1:${await listen(other)}`;
    const baseUrl = `http://127.0.0.1:${await listen(redirecting)}`;
    try {
      const grantor = new HttpGrantor({ baseUrl, apiKey: KEY_A });
      for (let i = 0; i < 5; i++) {
        const error = await rejection(
          i % 2 === 0
            ? grantor.grant({ resource: "r", holder: "h", durationMs: 900, requestId: `r${i}` })
            : grantor.renew({ resource: "r", holder: "h", token: 1, durationMs: 900, requestId: `r${i}`, leaseSecret: "s".repeat(43) }),
        );
        assert.equal(error.kind, "bad_request");
        assert.ok(error.status >= 300 && error.status < 400, `status ${error.status}`);
      }
      const holder = new LeaseHolder(grantor, config("r", "h"));
      assert.deepEqual(await holder.acquire(), { acquired: false, reason: "bad_request" });
      assert.equal(seen.length, 6);
      assert.ok(seen.every((r) => r.authorization === `Bearer ${KEY_A}`), "the key went to the configured origin");
      assert.deepEqual(elsewhere, [], "nothing reached the other origin");
    } finally {
      redirecting.closeAllConnections();
      other.closeAllConnections();
      await Promise.all([redirecting, other].map((server) => new Promise((done) => server.close(done))));
    }
  });
});
