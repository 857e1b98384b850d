// KubernetesLeaseGrantor against an API server that answers badly: the fake answers everything
// else as the API server does, and one chosen reply is replaced by a wrong type, an out-of-range
// number, a missing field, another object, a huge body, a redirect, an error status or silence.
// None of them may ever become a grant or a renewal.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { KubernetesLeaseGrantor, isLeaseError } from "tenure";
import { startKubernetesFake } from "../../fakes/kubernetes.mjs";

const TOKEN = "hostile-test-token";
const NAMESPACE = "hostile";

const json = (value, status = 200) => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(value),
});
const status = (code, reason, headers = {}) => ({
  status: code,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: reason,
    reason,
    code,
  }),
});

const isGrantorError = (kind) => (error) => {
  assert.ok(isLeaseError(error), `expected a LeaseError, got ${error?.stack ?? error}`);
  assert.equal(error.code, "ERR_GRANTOR");
  assert.equal(error.kind, kind, error.message);
  return true;
};

/** A Lease as the API server would send it, with `spec` and `metadata` changed. */
function leaseObject(name, { spec = {}, metadata = {} } = {}) {
  return {
    kind: "Lease",
    apiVersion: "coordination.k8s.io/v1",
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: "5c1e0d4e-0000-4000-8000-000000000001",
      resourceVersion: "77",
      ...metadata,
    },
    spec: { holderIdentity: "other", leaseDurationSeconds: 15, leaseTransitions: 2, ...spec },
  };
}

describe("KubernetesLeaseGrantor against hostile replies", { timeout: 60_000 }, () => {
  let api;
  let grantor;
  let n = 0;
  const call = (resource, holder, extra = {}) => ({
    resource,
    holder,
    durationMs: 2_000,
    requestId: `r${(n += 1)}`,
    ...extra,
  });

  before(async () => {
    api = await startKubernetesFake({ token: TOKEN });
    grantor = new KubernetesLeaseGrantor({
      baseUrl: api.url,
      token: TOKEN,
      namespace: NAMESPACE,
      timeoutMs: 2_000,
    });
  });

  after(async () => {
    api.intercept = undefined;
    await api?.close();
  });

  /** Replaces the `nth` (1-based) request with `method` with `reply(request)`. */
  const replace = (method, reply, nth = 1) => {
    let seen = 0;
    api.intercept = (request) => {
      if (request.method !== method) return undefined;
      seen += 1;
      return seen === nth ? reply(request) : undefined;
    };
  };

  // Each reading is served for a free Lease's GET: whatever it claims, it must not grant.
  const readCases = [
    ["a reply that is not JSON", () => ({ status: 200, headers: {}, body: "<html>" })],
    ["a list instead of an object", () => json([leaseObject("g")])],
    ["another kind of object", () => json({ ...leaseObject("g"), kind: "ConfigMap" })],
    ["another API version", () => json({ ...leaseObject("g"), apiVersion: "coordination.k8s.io/v1beta1" })],
    ["another Lease's name", () => json(leaseObject("other-name"))],
    ["another namespace", () => json(leaseObject("g", { metadata: { namespace: "kube-system" } }))],
    ["a numeric resourceVersion", () => json(leaseObject("g", { metadata: { resourceVersion: 77 } }))],
    ["an empty resourceVersion", () => json(leaseObject("g", { metadata: { resourceVersion: "" } }))],
    [
      "a negative leaseTransitions",
      () => json(leaseObject("g", { spec: { holderIdentity: "", leaseTransitions: -1 } })),
    ],
    [
      "a fractional leaseTransitions",
      () => json(leaseObject("g", { spec: { holderIdentity: "", leaseTransitions: 1.5 } })),
    ],
    [
      "a string leaseTransitions",
      () => json(leaseObject("g", { spec: { holderIdentity: "", leaseTransitions: "3" } })),
    ],
    [
      "leaseTransitions beyond int32",
      () => json(leaseObject("g", { spec: { holderIdentity: "", leaseTransitions: 2 ** 31 } })),
    ],
    [
      "leaseTransitions of 2^53",
      () => json(leaseObject("g", { spec: { holderIdentity: "", leaseTransitions: 2 ** 53 } })),
    ],
    ["a numeric holderIdentity", () => json(leaseObject("g", { spec: { holderIdentity: 7 } }))],
    [
      "a held Lease without a duration",
      () => json(leaseObject("g", { spec: { leaseDurationSeconds: undefined } })),
    ],
    [
      "a held Lease with a zero duration",
      () => json(leaseObject("g", { spec: { leaseDurationSeconds: 0 } })),
    ],
    [
      "a held Lease with a string duration",
      () => json(leaseObject("g", { spec: { leaseDurationSeconds: "15" } })),
    ],
    ["a spec that is a list", () => json({ ...leaseObject("g"), spec: [] })],
    [
      "annotations that are a list",
      () => json(leaseObject("g", { metadata: { annotations: ["tenure/request-id"] } })),
    ],
    ["a numeric renewTime", () => json(leaseObject("g", { spec: { renewTime: 1_700_000_000 } }))],
    [
      "a 300 KiB body",
      () => json(leaseObject("g", { metadata: { annotations: { pad: "x".repeat(300 * 1024) } } })),
    ],
  ];

  for (const [name, reply] of readCases) {
    it(`never grants on ${name}`, async () => {
      replace("GET", reply);
      try {
        await assert.rejects(grantor.grant(call("g", "a")), isGrantorError("malformed_reply"));
      } finally {
        api.intercept = undefined;
      }
      assert.equal(api.lease(NAMESPACE, "g"), undefined, "nothing was written");
    });
  }

  // A write the server claims to have made must show this grant, or it is not one.
  const writeCases = [
    [
      "a create answered with another holder",
      "POST",
      (r) =>
        json({ ...leaseObject("w"), spec: { ...JSON.parse(r.body).spec, holderIdentity: "other" } }, 201),
    ],
    [
      "a create answered with another counter",
      "POST",
      (r) => json({ ...leaseObject("w"), spec: { ...JSON.parse(r.body).spec, leaseTransitions: 5 } }, 201),
    ],
    [
      "a create answered without a resourceVersion",
      "POST",
      (r) => json({ ...JSON.parse(r.body), metadata: { name: "w", namespace: NAMESPACE } }, 201),
    ],
    ["a create answered with an empty body", "POST", () => ({ status: 201, headers: {}, body: "" })],
  ];

  for (const [name, method, reply] of writeCases) {
    it(`never grants on ${name}`, async () => {
      replace(method, reply);
      try {
        await assert.rejects(grantor.grant(call("w", "a")), isGrantorError("malformed_reply"));
      } finally {
        api.intercept = undefined;
      }
    });
  }

  it("never grants a takeover the server answers with another holder", async () => {
    const other = new KubernetesLeaseGrantor({ baseUrl: api.url, token: TOKEN, namespace: NAMESPACE });
    const { token } = await other.grant(call("t", "first"));
    await other.release({ resource: "t", holder: "first", token });
    replace("PUT", (r) =>
      json({
        ...JSON.parse(r.body),
        metadata: { ...JSON.parse(r.body).metadata, resourceVersion: "999" },
        spec: { ...JSON.parse(r.body).spec, holderIdentity: "someone" },
      }),
    );
    try {
      await assert.rejects(grantor.grant(call("t", "a")), isGrantorError("malformed_reply"));
    } finally {
      api.intercept = undefined;
    }
  });

  it("never renews when the server answers the renewal with another counter", async () => {
    const { token } = await grantor.grant(call("r", "a"));
    replace("PUT", (r) =>
      json({ ...JSON.parse(r.body), spec: { ...JSON.parse(r.body).spec, leaseTransitions: 9 } }),
    );
    try {
      await assert.rejects(grantor.renew(call("r", "a", { token })), isGrantorError("malformed_reply"));
    } finally {
      api.intercept = undefined;
    }
    await grantor.release({ resource: "r", holder: "a", token });
  });

  it("maps error statuses to failures with their kind and the Status reason", async () => {
    const cases = [
      [status(500, "InternalError"), "server_error", 500, "InternalError"],
      [status(503, "ServiceUnavailable"), "server_error", 503, "ServiceUnavailable"],
      [status(429, "TooManyRequests", { "retry-after": "1" }), "rate_limited", 429, "TooManyRequests"],
      [status(401, "Unauthorized"), "bad_request", 401, "Unauthorized"],
      [status(422, "Invalid"), "bad_request", 422, "Invalid"],
      [
        { status: 502, headers: { "content-type": "text/html" }, body: "<html>bad gateway</html>" },
        "server_error",
        502,
        undefined,
      ],
    ];
    for (const [reply, kind, code, reason] of cases) {
      replace("GET", () => reply);
      try {
        await assert.rejects(grantor.grant(call("s", "a")), (error) => {
          isGrantorError(kind)(error);
          assert.equal(error.status, code);
          assert.equal(error.grantorCode, reason);
          if (code === 429) assert.equal(error.retryAfterMs, 1_000);
          return true;
        });
      } finally {
        api.intercept = undefined;
      }
    }
  });

  it("follows no redirect, so the bearer token reaches no other server", async () => {
    const elsewhere = [];
    const sink = createServer((req, res) => {
      elsewhere.push(req.headers);
      res.end("{}");
    });
    await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
    try {
      const location = `http://127.0.0.1:${sink.address().port}/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/x`;
      for (const code of [301, 302, 307, 308]) {
        replace("GET", () => ({ status: code, headers: { location }, body: "" }));
        await assert.rejects(grantor.grant(call("x", "a")), isGrantorError("bad_request"));
      }
      assert.deepEqual(elsewhere, []);
    } finally {
      api.intercept = undefined;
      sink.closeAllConnections();
      await new Promise((resolve) => sink.close(resolve));
    }
  });

  it("times out a silent API server, and stops at once when the caller aborts", async () => {
    const quick = new KubernetesLeaseGrantor({
      baseUrl: api.url,
      token: TOKEN,
      namespace: NAMESPACE,
      timeoutMs: 300,
    });
    api.intercept = () => new Promise(() => {}); // never answers
    try {
      const started = performance.now();
      await assert.rejects(quick.grant(call("silent", "a")), isGrantorError("timed_out"));
      assert.ok(performance.now() - started < 3_000);
      const controller = new AbortController();
      const pending = grantor.grant(call("silent", "a", { signal: controller.signal }));
      setTimeout(() => controller.abort(new Error("holder gave up")), 50);
      await assert.rejects(pending, isGrantorError("unreachable"));
    } finally {
      api.intercept = undefined;
    }
  });
});
