// ConsulGrantor against a Consul that answers badly: the fake answers everything else as Consul
// does, and one chosen reply is replaced by a wrong type, an out-of-range number, a missing field,
// a huge body, a redirect, an error status or silence. None of them may ever become a grant or a
// renewal.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { ConsulGrantor, isLeaseError } from "tenure";
import { startConsulFake } from "../../fakes/consul.mjs";

const TOKEN = "hostile-test-token";
const OTHER_SESSION = "0b6f3a5e-7c1d-4e2f-9a8b-1c2d3e4f5a6b";

const json = (value) => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(value),
});
const text = (status, body, headers = {}) => ({
  status,
  headers: { "content-type": "text/plain", ...headers },
  body,
});

const isGrantorError = (kind) => (error) => {
  assert.ok(isLeaseError(error), `expected a LeaseError, got ${error?.stack ?? error}`);
  assert.equal(error.code, "ERR_GRANTOR");
  assert.equal(error.kind, kind, error.message);
  return true;
};

describe("ConsulGrantor against hostile replies", { timeout: 60_000 }, () => {
  let consul;
  let grantor;
  let n = 0;
  const call = (resource, holder, extra = {}) => ({
    resource,
    holder,
    durationMs: 3_000,
    requestId: `r${(n += 1)}`,
    ...extra,
  });

  before(async () => {
    consul = await startConsulFake({ token: TOKEN });
    grantor = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN, timeoutMs: 2_000 });
  });

  after(async () => {
    consul.intercept = undefined;
    await consul?.close();
  });

  /**
   * Replaces the `nth` (1-based) request matching `match` with `reply(request)`; the real fake
   * answers everything else.
   */
  const replace = (match, reply, nth = 1) => {
    let seen = 0;
    consul.intercept = (request) => {
      if (!match(request)) return undefined;
      seen += 1;
      return seen === nth ? reply(request) : undefined;
    };
  };
  const isCreate = (r) => r.path === "/v1/session/create";
  const isAcquire = (r) => r.path.startsWith("/v1/kv/") && r.query.includes("acquire=");
  const isRead = (r) => r.method === "GET" && r.path.startsWith("/v1/kv/");
  const isRenew = (r) => r.path.startsWith("/v1/session/renew/");

  const entryFor = (request, changes) => {
    const key = request.path.slice("/v1/kv/".length);
    const entry = consul.entry(key);
    return json([{ ...entry, ...changes }]);
  };

  const grantCases = [
    ["session/create without an ID", isCreate, () => json({})],
    ["session/create with a numeric ID", isCreate, () => json({ ID: 5 })],
    ["session/create with a path for an ID", isCreate, () => json({ ID: "../../v1/acl/bootstrap" })],
    [
      "session/create answering HTML",
      isCreate,
      () => ({ status: 200, headers: { "content-type": "text/html" }, body: "<html>ok</html>" }),
    ],
    ["session/create answering 1 MiB", isCreate, () => json({ ID: OTHER_SESSION, pad: "x".repeat(1 << 20) })],
    ['acquire answering the string "true"', isAcquire, () => json("true")],
    ["acquire answering 1", isAcquire, () => json(1)],
    ["acquire answering null", isAcquire, () => json(null)],
    ["the check answering a string LockIndex", isRead, (r) => entryFor(r, { LockIndex: "1" }), 2],
    ["the check answering a negative LockIndex", isRead, (r) => entryFor(r, { LockIndex: -1 }), 2],
    ["the check answering a fractional LockIndex", isRead, (r) => entryFor(r, { LockIndex: 1.5 }), 2],
    ["the check answering LockIndex 2^53", isRead, (r) => entryFor(r, { LockIndex: 2 ** 53 }), 2],
    [
      "the check answering LockIndex 1e300",
      isRead,
      (r) => ({
        ...entryFor(r, {}),
        body: entryFor(r, {}).body.replace(/"LockIndex":\d+/, '"LockIndex":1e300'),
      }),
      2,
    ],
    ["the check answering LockIndex 0 for a locked key", isRead, (r) => entryFor(r, { LockIndex: 0 }), 2],
    ["the check without a LockIndex", isRead, (r) => entryFor(r, { LockIndex: undefined }), 2],
    ["the check without a ModifyIndex", isRead, (r) => entryFor(r, { ModifyIndex: undefined }), 2],
    ["the check naming another session", isRead, (r) => entryFor(r, { Session: OTHER_SESSION }), 2],
    ["the check naming no session", isRead, (r) => entryFor(r, { Session: undefined }), 2],
    ["the check with a malformed Session", isRead, (r) => entryFor(r, { Session: "x/../y" }), 2],
    ["the check for another key", isRead, (r) => entryFor(r, { Key: "tenure/other" }), 2],
    ["the check with a numeric Value", isRead, (r) => entryFor(r, { Value: 5 }), 2],
    ["the check answering an empty list", isRead, () => json([]), 2],
    [
      "the check answering two entries",
      isRead,
      (r) => json([...JSON.parse(entryFor(r, {}).body), ...JSON.parse(entryFor(r, {}).body)]),
      2,
    ],
    ["the check answering an object", isRead, (r) => json(JSON.parse(entryFor(r, {}).body)[0]), 2],
    ["the check answering garbage", isRead, () => text(200, '{"LockIndex": 1,'), 2],
    [
      "the first read with a malformed Session",
      isRead,
      () =>
        json([
          {
            LockIndex: 1,
            Key: "tenure/hostile",
            Flags: 0,
            Value: null,
            Session: "not-a-session",
            CreateIndex: 1,
            ModifyIndex: 1,
          },
        ]),
    ],
  ];

  for (const [name, match, reply, nth] of grantCases) {
    it(`never grants on ${name}`, async () => {
      replace(match, reply, nth);
      try {
        const outcome = await grantor.grant(call("hostile", "a")).then(
          (value) => ({ value }),
          (error) => ({ error }),
        );
        if (outcome.value !== undefined) {
          assert.equal(outcome.value.granted, false, `granted on ${name}: ${JSON.stringify(outcome.value)}`);
        } else {
          isGrantorError("malformed_reply")(outcome.error);
        }
      } finally {
        consul.intercept = undefined;
      }
      // Whatever happened, no grant may be left standing that the caller does not know of.
      const deadline = performance.now() + 2_000;
      while (consul.entry("tenure/hostile")?.Session !== undefined && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(consul.entry("tenure/hostile")?.Session, undefined, "the key was unlocked again");
    });
  }

  const renewCases = [
    ["a renewal listing no session", () => json([])],
    ["a renewal listing another session", () => json([{ ID: OTHER_SESSION, TTL: "10s" }])],
    ["a renewal with an unreadable TTL", (r) => json([{ ID: r.path.split("/").pop(), TTL: "ten seconds" }])],
    ["a renewal with a zero TTL", (r) => json([{ ID: r.path.split("/").pop(), TTL: "0s" }])],
    ["a renewal with a negative TTL", (r) => json([{ ID: r.path.split("/").pop(), TTL: "-10s" }])],
    ["a renewal with a TTL beyond 2^31 ms", (r) => json([{ ID: r.path.split("/").pop(), TTL: "1000h" }])],
    ["a renewal with a numeric TTL", (r) => json([{ ID: r.path.split("/").pop(), TTL: 10 }])],
    ["a renewal without a TTL", (r) => json([{ ID: r.path.split("/").pop() }])],
  ];

  for (const [name, reply] of renewCases) {
    it(`never renews on ${name}`, async () => {
      const { token } = await grantor.grant(call("renewal", "a"));
      replace(isRenew, reply);
      try {
        await assert.rejects(
          grantor.renew(call("renewal", "a", { token })),
          isGrantorError("malformed_reply"),
        );
      } finally {
        consul.intercept = undefined;
      }
      await grantor.release({ resource: "renewal", holder: "a", token });
    });
  }

  it("reports a session Consul no longer knows as a loss, not a failure", async () => {
    const { token } = await grantor.grant(call("gone", "a"));
    replace(isRenew, (r) => text(404, `Session id '${r.path.split("/").pop()}' not found`));
    try {
      assert.deepEqual(await grantor.renew(call("gone", "a", { token })), {
        renewed: false,
        reason: "expired",
      });
    } finally {
      consul.intercept = undefined;
    }
    await grantor.release({ resource: "gone", holder: "a", token });
  });

  it("maps error statuses to retryable failures with their kind", async () => {
    const cases = [
      [text(500, "rpc error making call: No cluster leader"), "server_error", 500],
      [text(429, "rate limit exceeded", { "retry-after": "2" }), "rate_limited", 429],
      [text(403, "Permission denied"), "bad_request", 403],
      [text(400, "Conflicting flags"), "bad_request", 400],
    ];
    for (const [reply, kind, status] of cases) {
      replace(isCreate, () => reply);
      try {
        await assert.rejects(grantor.grant(call("status", "a")), (error) => {
          isGrantorError(kind)(error);
          assert.equal(error.status, status);
          if (status === 429) assert.equal(error.retryAfterMs, 2_000);
          return true;
        });
      } finally {
        consul.intercept = undefined;
      }
    }
  });

  it("follows no redirect, so the ACL token reaches no other server", async () => {
    const elsewhere = [];
    const sink = createServer((req, res) => {
      elsewhere.push(req.headers);
      res.end("[]");
    });
    await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
    try {
      const location = `http://127.0.0.1:${sink.address().port}/v1/kv/tenure/redirected`;
      for (const status of [301, 302, 307, 308]) {
        replace(isRead, () => ({ status, headers: { location }, body: "" }));
        await assert.rejects(grantor.grant(call("redirected", "a")), isGrantorError("bad_request"));
      }
      assert.deepEqual(elsewhere, []);
    } finally {
      consul.intercept = undefined;
      sink.closeAllConnections();
      await new Promise((resolve) => sink.close(resolve));
    }
  });

  it("times out a silent Consul, and stops at once when the caller aborts", async () => {
    const quick = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN, timeoutMs: 300 });
    consul.intercept = () => new Promise(() => {}); // never answers
    try {
      const started = performance.now();
      await assert.rejects(quick.grant(call("silent", "a")), isGrantorError("timed_out"));
      assert.ok(performance.now() - started < 3_000);

      const controller = new AbortController();
      const pending = grantor.grant(call("silent", "a", { signal: controller.signal }));
      setTimeout(() => controller.abort(new Error("holder gave up")), 50);
      await assert.rejects(pending, isGrantorError("unreachable"));
    } finally {
      consul.intercept = undefined;
    }
  });

  it("reports an unreachable agent as unreachable", async () => {
    const closed = createServer();
    await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address();
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = new ConsulGrantor({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN });
    await assert.rejects(nowhere.grant(call("nowhere", "a")), isGrantorError("unreachable"));
  });
});
