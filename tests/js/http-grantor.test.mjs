// HttpGrantor and LeaseHolder against the real reference grantor process, and against a
// deliberately broken endpoint.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { HttpGrantor, LeaseHolder, leasedRead, isLeaseError } from "tenure";
import { startGrantor } from "./support/grantor-process.mjs";
import { sleep, eventually } from "./support/memory-grantor.mjs";

// The most bytes a queue item's payload takes as the grantor stores it: src/protocol.rs's
// MAX_PAYLOAD_BYTES, which its test `stored_value_limits_are_the_documented_ones` pins to this.
const MAX_PAYLOAD_BYTES = 38_912;

const holderConfig = (resource, holderId, extra = {}) => ({
  resource,
  holderId,
  leaseMs: 900,
  marginMs: 200,
  ...extra,
});

describe("against the reference grantor", () => {
  let grantorProcess;
  let grantor;

  before(async () => {
    grantorProcess = await startGrantor();
    grantor = new HttpGrantor({ baseUrl: grantorProcess.url });
  });

  after(async () => {
    await grantorProcess?.stop();
  });

  it("acquires, renews, denies others, releases", async () => {
    const a = new LeaseHolder(grantor, holderConfig("acquire", "a"));
    const b = new LeaseHolder(grantor, holderConfig("acquire", "b"));
    const first = await a.acquire();
    assert.equal(first.acquired, true);
    assert.ok(Number.isSafeInteger(first.token) && first.token >= 1);

    await sleep(1_300); // more than a lease: only renewals keep it
    assert.equal(a.lease.isSafelyHeld(), true);
    assert.equal(a.consecutiveFailures, 0);
    const status = await grantor.status("acquire");
    assert.equal(status.holder, "a");
    assert.equal(status.token, first.token);
    assert.ok(status.expiresInMs > 0 && status.expiresInMs <= 900);

    const denied = await b.acquire();
    assert.equal(denied.acquired, false);
    assert.equal(denied.reason, "denied");
    assert.equal(denied.holder, "a");
    assert.ok(denied.expiresInMs > 0);

    await a.release();
    assert.equal((await grantor.status("acquire")).holder, null);
    const second = await b.acquire();
    assert.equal(second.acquired, true);
    assert.ok(second.token > first.token);
    await b.release();
  });

  it("a campaign takes over when the holder stops renewing", async () => {
    const a = new LeaseHolder(grantor, holderConfig("campaign", "a"));
    const b = new LeaseHolder(grantor, holderConfig("campaign", "b"));
    await a.acquire();
    const campaign = b.acquire({ wait: true });
    a.surrender("crashed"); // a stops renewing; its grant lapses at the grantor
    const result = await campaign;
    assert.equal(result.acquired, true);
    assert.equal((await grantor.status("campaign")).holder, "b");
    await b.release();
  });

  it("revocation reaches the holder within one renew interval", async () => {
    const a = new LeaseHolder(grantor, holderConfig("revoke", "a"));
    const lost = [];
    a.onLeaseLost = (reason) => lost.push({ reason, at: performance.now() });
    const { token } = await a.acquire();
    const revoked = await grantor.revoke("revoke");
    assert.deepEqual(revoked, { revoked: true });
    const at = performance.now();
    assert.ok(await eventually(() => lost.length > 0, 2_000));
    assert.equal(lost[0].reason, "revoked");
    assert.ok(lost[0].at - at <= a.renewIntervalMs + 150, `${lost[0].at - at} ms`);
    const b = new LeaseHolder(grantor, holderConfig("revoke", "b"));
    assert.ok((await b.acquire()).token > token);
    await b.release();
  });

  it("fences a stale token at the protected resource", async () => {
    const a = new LeaseHolder(grantor, holderConfig("fenced", "a"));
    const b = new LeaseHolder(grantor, holderConfig("fenced", "b"));
    const old = await a.acquire();
    assert.deepEqual(await grantor.fencedWrite("fenced", { by: "a" }, old.token), {
      accepted: true,
      lastToken: old.token,
    });
    a.surrender("paused"); // a believes nothing now, but a paused process may still write later
    const replacement = await b.acquire({ wait: true });
    assert.ok(replacement.token > old.token);
    assert.equal((await grantor.fencedWrite("fenced", { by: "b" }, replacement.token)).accepted, true);
    const stale = await grantor.fencedWrite("fenced", { by: "a, late" }, old.token);
    assert.deepEqual(stale, { accepted: false, lastToken: replacement.token });
    assert.deepEqual(await grantor.fencedRead("fenced"), {
      payload: { by: "b" },
      lastToken: replacement.token,
    });
    await b.release();
  });

  it("serves read leases locally, confirms through the grantor, or names the holder", async () => {
    const a = new LeaseHolder(grantor, holderConfig("reads", "a"));
    const b = new LeaseHolder(grantor, holderConfig("reads", "b"));
    const state = new Map([["k", "v"]]);
    const read = () => state.get("k");
    await a.acquire();
    assert.deepEqual(await leasedRead(a, read), {
      ok: true,
      value: "v",
      servedFrom: "lease",
      token: a.lease.token,
    });
    a.surrender("testing");
    const confirmed = await leasedRead(a, read);
    assert.equal(confirmed.ok, true);
    assert.equal(confirmed.servedFrom, "grantor");
    assert.equal(confirmed.value, "v");
    a.surrender("testing");
    await b.acquire({ wait: true });
    assert.deepEqual(await leasedRead(a, read), { ok: false, holder: "b" });
    await b.release();
  });

  it("a retried grant with the same requestId returns the original outcome", async () => {
    const args = { resource: "idem", holder: "a", durationMs: 900, requestId: "attempt-1" };
    const first = await grantor.grant(args);
    const retry = await grantor.grant(args);
    assert.equal(retry.granted, true);
    assert.equal(retry.token, first.token, "no second grant");
    // Measured from the retry's send, the retry is promised only what the grant has left.
    assert.ok(retry.durationMs >= 1 && retry.durationMs <= first.durationMs, JSON.stringify(retry));
    await grantor.release({ resource: "idem", holder: "a", token: first.token });
  });

  it("grantor errors carry their code and HTTP status", async () => {
    await assert.rejects(
      grantor.grant({ resource: "", holder: "a", durationMs: 900, requestId: "x" }),
      (error) =>
        isLeaseError(error) &&
        error.code === "ERR_GRANTOR" &&
        error.kind === "bad_request" &&
        error.status === 400 &&
        error.grantorCode === "bad_resource",
    );
  });

  it("an item of the largest payload the grantor accepts can be claimed, completed and read back", async () => {
    // The payload's size as stored, quotes included (the limit is src/protocol.rs's, above).
    const largest = "x".repeat(MAX_PAYLOAD_BYTES - 2);
    const queue = '"'.repeat(256); // the longest names, each character escaped in the replies
    const worker = "\\".repeat(256);
    await assert.rejects(
      grantor.enqueue(queue, [{ payload: `${largest}x` }]),
      (error) => error.status === 413 && error.grantorCode === "value_too_large",
    );
    // Two items, so that the completion's `next` claims one.
    for (const dedupeKey of ["'".repeat(256), "second"]) {
      const [entry] = (await grantor.enqueue(queue, [{ payload: largest, dedupeKey, maxAttempts: 1000 }])).items;
      assert.equal(entry.enqueued, true);
    }
    const first = await grantor.claim({ queue, worker, claimMs: 30_000 });
    assert.equal(first.item.payload, largest);
    // The largest error and result are kept too, and the item's record carries all three.
    const failed = await grantor.fail({
      queue,
      itemId: first.item.id,
      worker,
      token: first.token,
      error: "e".repeat(16 * 1024 - 2),
      claimNext: { claimMs: 30_000 },
    });
    const again = failed.next;
    assert.deepEqual([again.item.id, again.item.payload], [first.item.id, largest]);
    const done = await grantor.complete({
      queue,
      itemId: again.item.id,
      worker,
      token: again.token,
      result: "r".repeat(8 * 1024 - 2),
      claimNext: { claimMs: 30_000 },
    });
    assert.equal(done.completed, true);
    assert.equal(done.next.item.payload, largest);
    const record = await grantor.queueItem(queue, first.item.id);
    assert.deepEqual(
      [record.state, record.payload, record.lastError.length, record.result.length, record.completedBy],
      ["done", largest, 16 * 1024 - 2, 8 * 1024 - 2, worker],
    );
  });

  it("with an admin key configured, every call needs a key and revoke needs the admin key", async () => {
    const adminKey = "admin-key-0123456789abcdef";
    const secured = await startGrantor({ args: ["--admin-key", adminKey] });
    try {
      const anonymous = new HttpGrantor({ baseUrl: secured.url });
      await assert.rejects(anonymous.revoke("x"), (e) => e.status === 401 && e.grantorCode === "unauthorized");
      await assert.rejects(anonymous.status("x"), (e) => e.status === 401);
      const wrong = new HttpGrantor({ baseUrl: secured.url, apiKey: "not-the-admin-key-0123" });
      await assert.rejects(wrong.revoke("x"), (e) => e.status === 401 && e.kind === "bad_request");
      const admin = new HttpGrantor({ baseUrl: secured.url, apiKey: adminKey });
      assert.deepEqual(await admin.revoke("x"), { revoked: false });
      // The older spelling, a raw header, still works.
      const byHeader = new HttpGrantor({ baseUrl: secured.url, headers: { authorization: `Bearer ${adminKey}` } });
      assert.deepEqual(await byHeader.revoke("x"), { revoked: false });
    } finally {
      await secured.stop();
    }
  });
});

describe("against a broken endpoint", () => {
  let server;
  let baseUrl;
  let behaviour;
  const seen = { closedEarly: 0 };

  before(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on("end", () => behaviour(request, response));
      response.on("close", () => {
        if (!response.writableFinished) seen.closedEarly += 1;
      });
    });
    await new Promise((done) => server.listen(0, "127.0.0.1", done));
    baseUrl = `http://127.0.0.1:${server.address().port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  const json = (status, body, headers = {}) => (_, response) => {
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(typeof body === "string" ? body : JSON.stringify(body));
  };

  const cases = [
    ["non-JSON 200", json(200, "{granted: true"), "malformed_reply"],
    ["granted as a string", json(200, { granted: "true", token: 1 }), "malformed_reply"],
    ["token as a string", json(200, { granted: true, token: "1" }), "malformed_reply"],
    ["negative token", json(200, { granted: true, token: -1 }), "malformed_reply"],
    ["token above 2^53", json(200, '{"granted": true, "token": 9007199254740993}'), "malformed_reply"],
    ["no token", json(200, { granted: true }), "malformed_reply"],
    ["a JSON array", json(200, [true, 1]), "malformed_reply"],
    ["a huge body", json(200, `{"granted": true, "token": 1, "pad": "${"x".repeat(200_000)}"}`), "malformed_reply"],
    ["a 500", json(500, { error: { code: "internal", message: "boom" } }), "server_error"],
    ["a 429", json(429, { error: { code: "rate_limited" } }, { "retry-after": "1" }), "rate_limited"],
    ["a 404", json(404, { error: { code: "not_found" } }), "bad_request"],
    ["a redirect", json(302, "", { location: "http://127.0.0.1:1/v1/grant" }), "bad_request"],
  ];

  for (const [name, reply, reason] of cases) {
    it(`${name} is a failed attempt (${reason}), never a grant`, async () => {
      behaviour = reply;
      const holder = new LeaseHolder(new HttpGrantor({ baseUrl }), holderConfig("x", "a"));
      const result = await holder.acquire();
      assert.deepEqual(result, { acquired: false, reason });
      assert.equal(holder.lease.isSafelyHeld(), false);
      assert.equal(holder.lease.token, null);
    });
  }

  it("a reply that never comes is abandoned and its request aborted", async () => {
    behaviour = () => {}; // accept, never answer
    const before = seen.closedEarly;
    const holder = new LeaseHolder(new HttpGrantor({ baseUrl }), holderConfig("x", "a", {
      requestTimeoutMs: 200,
    }));
    assert.deepEqual(await holder.acquire(), { acquired: false, reason: "timed_out" });
    assert.ok(await eventually(() => seen.closedEarly > before, 1_000), "the fetch was aborted");
  });

  it("the grantor's own timeout applies too", async () => {
    behaviour = () => {};
    const grantor = new HttpGrantor({ baseUrl, timeoutMs: 100 });
    await assert.rejects(
      grantor.grant({ resource: "x", holder: "a", durationMs: 900, requestId: "r" }),
      (error) => error.kind === "timed_out",
    );
  });

  it("a 429's Retry-After is read as delay-seconds or an HTTP-date, by the core's rules", async () => {
    // 10 to 11 s ahead, in whole seconds as an HTTP-date has them.
    const inTenSeconds = new Date(Math.ceil(Date.now() / 1000) * 1000 + 10_000).toUTCString();
    for (const [header, expected] of [
      ["7", 7_000],
      [inTenSeconds, [9_000, 11_000]],
      ["Sun, 06 Nov 1994 08:49:37 GMT", 0],
      ["99999999999", 2 ** 31 - 1],
      ["1.5", undefined],
      ["-1", undefined],
      ["0x10", undefined],
      ["Sunday 06 Nov 1994", undefined],
    ]) {
      behaviour = json(429, { error: { code: "rate_limited" } }, { "retry-after": header });
      const error = await new HttpGrantor({ baseUrl })
        .grant({ resource: "x", holder: "a", durationMs: 900, requestId: "r" })
        .then(() => assert.fail("a 429 is a failure"), (error) => error);
      assert.equal(error.kind, "rate_limited", header);
      if (Array.isArray(expected)) {
        assert.ok(error.retryAfterMs > expected[0] && error.retryAfterMs <= expected[1], `${header}: ${error.retryAfterMs}`);
      } else {
        assert.equal(error.retryAfterMs, expected, header);
      }
    }
  });

  it("a 429's Retry-After holds the next renewal back", async () => {
    let renewals = 0;
    behaviour = (request, response) => {
      if (request.url === "/v1/grant") return json(200, { granted: true, token: 1 })(request, response);
      renewals += 1;
      json(429, { error: { code: "rate_limited" } }, { "retry-after": "1" })(request, response);
    };
    const holder = new LeaseHolder(new HttpGrantor({ baseUrl }), holderConfig("x", "a", {
      leaseMs: 3_000,
      marginMs: 500,
    }));
    await holder.acquire();
    await sleep(1_000 + 900); // first renewal at 1 s, then Retry-After 1 s
    assert.equal(renewals, 1, "no renewal before Retry-After ran out");
    await sleep(400);
    assert.equal(renewals, 2);
    holder.surrender("done");
  });

  it("rejects bad configuration naming the field", () => {
    for (const [options, field] of [
      [{ baseUrl: "not a url" }, "baseUrl"],
      [{ baseUrl: "ftp://x" }, "baseUrl"],
      [{ baseUrl: "http://user:pw@x" }, "baseUrl"],
      [{ baseUrl: "http://x", timeoutMs: 0 }, "timeoutMs"],
    ]) {
      assert.throws(() => new HttpGrantor(options), (e) => e.code === "ERR_LEASE_CONFIG" && e.field === field);
    }
  });
});

describe("through a caller's own fetch", () => {
  /** A fetch answering each path with `answers[path](body)`, recording what was sent. */
  function scripted(answers) {
    const sent = [];
    const fetch = async (url, init) => {
      const path = new URL(url).pathname;
      const body = JSON.parse(init.body);
      sent.push({ path, body });
      const reply = answers[path](body);
      return reply instanceof Response ? reply : Response.json(reply);
    };
    return { fetch, sent };
  }

  it("a grant the holder would believe has its secret remembered, whatever else the reply carries", async () => {
    // `holder` and `expiresInMs` are the fields of a denial: a grant's reply may carry anything
    // there, and the holder ignores them. Its secret must still go with the renewal.
    const { fetch, sent } = scripted({
      "/v1/grant": () => ({ granted: true, token: 5, durationMs: 900, leaseSecret: "s-5", holder: 7, expiresInMs: "soon" }),
      "/v1/renew": () => ({ renewed: true, token: 5, durationMs: 900 }),
    });
    const grantor = new HttpGrantor({ baseUrl: "http://grantor.test", fetch });
    const holder = new LeaseHolder(grantor, holderConfig("remembered", "a"));
    assert.deepEqual(await holder.acquire(), { acquired: true, token: 5 });
    assert.ok(await eventually(() => sent.some((s) => s.path === "/v1/renew"), 2_000), "a renewal went out");
    assert.equal(sent.find((s) => s.path === "/v1/renew").body.leaseSecret, "s-5");
    await holder.release().catch(() => {});
  });

  it("refuses a signal that is no AbortSignal (one of another realm: http-grantor-realm.test.mjs)", async () => {
    const { fetch } = scripted({ "/v1/grant": () => ({ granted: true, token: 1, durationMs: 900 }) });
    const grantor = new HttpGrantor({ baseUrl: "http://grantor.test", fetch });
    const request = { resource: "r", holder: "a", durationMs: 900, requestId: "fake" };
    for (const signal of [{}, 42, "abort"]) {
      await assert.rejects(
        grantor.grant({ ...request, signal }),
        (error) => isLeaseError(error) && error.kind === "unreachable" && /not an AbortSignal/.test(error.message),
      );
    }
  });

  it("counts a body's bytes, whatever view its chunks come in", async () => {
    const chunked = (views) =>
      new Response(new ReadableStream({ start(controller) { views.forEach((v) => controller.enqueue(v)); controller.close(); } }));
    const text = new TextEncoder().encode(JSON.stringify({ granted: true, token: 3, durationMs: 900 }));
    const padded = new Uint8Array(text.length + (4 - (text.length % 4)) % 4).fill(0x20);
    padded.set(text);
    const request = { resource: "r", holder: "a", durationMs: 900, requestId: "views" };
    // The same bytes as a DataView and as 16-bit elements, split mid-reply.
    const half = padded.length / 2;
    let answer = () => chunked([new DataView(padded.buffer, 0, half), new Uint16Array(padded.buffer.slice(half))]);
    const grantor = new HttpGrantor({ baseUrl: "http://grantor.test", fetch: async () => answer() });
    assert.deepEqual(await grantor.grant(request), { granted: true, token: 3, durationMs: 900 });
    // 80,000 bytes in 20,000 elements: over the 64 KiB cap, which counts bytes.
    answer = () => chunked([new Int32Array(20_000)]);
    await assert.rejects(grantor.grant({ ...request, requestId: "big" }), (error) => error.kind === "malformed_reply" && /exceeds/.test(error.message));
  });
});
