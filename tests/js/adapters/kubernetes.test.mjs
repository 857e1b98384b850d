// KubernetesLeaseGrantor against the Kubernetes API fake (tests/fakes/kubernetes.mjs): Lease
// objects written by compare-and-swap, leaseTransitions tokens, the bearer token, retries,
// expiry judged on this process's own observation (never on renewTime), release as client-go's
// ReleaseOnCancel, and a LeaseHolder end to end.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { KubernetesLeaseGrantor, LeaseHolder, isLeaseError } from "tenure";
import { startKubernetesFake } from "../../fakes/kubernetes.mjs";
import { sleep, eventually } from "../support/memory-grantor.mjs";

const TOKEN = "kubernetes-test-token";
const NAMESPACE = "leases-test";
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const grantorError =
  (kind, extra = {}) =>
  (error) => {
    assert.ok(isLeaseError(error), `expected a LeaseError, got ${error?.stack ?? error}`);
    assert.equal(error.code, "ERR_GRANTOR");
    assert.equal(error.kind, kind, error.message);
    for (const [key, value] of Object.entries(extra)) assert.equal(error[key], value, key);
    return true;
  };

describe("KubernetesLeaseGrantor against the API fake", { timeout: 60_000 }, () => {
  let api;
  let grantor;
  let n = 0;
  const args = (resource, holder, extra = {}) => ({
    resource,
    holder,
    durationMs: 2_000,
    requestId: `req-${(n += 1)}`,
    ...extra,
  });
  const lease = (name) => api.lease(NAMESPACE, name);
  const newGrantor = (options = {}) =>
    new KubernetesLeaseGrantor({ baseUrl: api.url, token: TOKEN, namespace: NAMESPACE, ...options });
  /** Writes a Lease as another client would, straight through the API. */
  const put = async (name, change) => {
    const current = lease(name);
    const body = change(current);
    const collection = `${api.url}/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases`;
    const response = await fetch(current === undefined ? collection : `${collection}/${name}`, {
      method: current === undefined ? "POST" : "PUT",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.ok(response.ok, `${response.status} ${await response.clone().text()}`);
    return response.json();
  };

  before(async () => {
    api = await startKubernetesFake({ token: TOKEN });
    grantor = newGrantor();
  });

  after(async () => {
    await api?.close();
  });

  it("creates the Lease, denies others, renews and releases as client-go does", async () => {
    const first = await grantor.grant(args("basic", "a", { durationMs: 2_500 }));
    assert.deepEqual(first, { granted: true, token: 1, durationMs: 3_000 }, "whole seconds, rounded up");
    const created = lease("basic");
    assert.equal(created.spec.holderIdentity, "a");
    assert.equal(created.spec.leaseDurationSeconds, 3);
    assert.equal(created.spec.leaseTransitions, 0);
    assert.match(created.spec.acquireTime, MICRO_TIME);
    assert.match(created.spec.renewTime, MICRO_TIME);

    const denied = await grantor.grant(args("basic", "b"));
    assert.equal(denied.granted, false);
    assert.equal(denied.holder, "a");
    assert.ok(denied.expiresInMs > 2_000 && denied.expiresInMs <= 3_000, `${denied.expiresInMs}`);

    await sleep(5); // a later renewTime
    assert.deepEqual(await grantor.renew(args("basic", "a", { token: 1 })), {
      renewed: true,
      token: 1,
      durationMs: 2_000,
    });
    const renewed = lease("basic");
    assert.notEqual(renewed.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(renewed.spec.leaseTransitions, 0, "a renewal keeps the counter");
    assert.equal(renewed.spec.acquireTime, created.spec.acquireTime, "and the acquire time");
    assert.equal(renewed.spec.leaseDurationSeconds, 2);

    assert.deepEqual(await grantor.release({ resource: "basic", holder: "a", token: 1 }), { released: true });
    const released = lease("basic");
    assert.equal(released.spec.holderIdentity, "");
    assert.equal(released.spec.leaseDurationSeconds, 1);
    assert.equal(released.spec.leaseTransitions, 0, "a release keeps the counter");
    assert.deepEqual(await grantor.release({ resource: "basic", holder: "a", token: 1 }), {
      released: false,
    });
    assert.deepEqual(await grantor.renew(args("basic", "a", { token: 1 })), {
      renewed: false,
      reason: "expired",
    });

    // Released means free at once, for anyone, the same holder included.
    const again = await grantor.grant(args("basic", "a"));
    assert.deepEqual(again, { granted: true, token: 2, durationMs: 2_000 });
    assert.equal(
      lease("basic").spec.leaseTransitions,
      1,
      "every grant counts a transition, the same holder's too",
    );
    await grantor.release({ resource: "basic", holder: "a", token: 2 });
    const b = await grantor.grant(args("basic", "b"));
    assert.equal(b.token, 3);
    assert.deepEqual(await grantor.release({ resource: "basic", holder: "a", token: 2 }), {
      released: false,
    });
    assert.equal(lease("basic").spec.holderIdentity, "b", "a stale release frees nothing newer");
    await grantor.release({ resource: "basic", holder: "b", token: 3 });
  });

  it("sends the bearer token on every request; a wrong or missing token never grants", async () => {
    const from = api.requests.length;
    const { token } = await grantor.grant(args("auth", "a"));
    await grantor.renew(args("auth", "a", { token }));
    await grantor.release({ resource: "auth", holder: "a", token });
    const sent = api.requests.slice(from);
    assert.ok(sent.length >= 5);
    for (const request of sent)
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`, `${request.method} ${request.path}`);

    await assert.rejects(
      newGrantor({ token: "wrong" }).grant(args("auth", "b")),
      grantorError("bad_request", { status: 401, grantorCode: "Unauthorized" }),
    );
    await assert.rejects(
      newGrantor({ token: undefined }).grant(args("auth", "b")),
      grantorError("bad_request", { status: 403, grantorCode: "Forbidden" }),
    );
    assert.equal(lease("auth").spec.holderIdentity, "");
  });

  it("answers a retried grant with the original token, and a new attempt by the same holder with a new one", async () => {
    const first = await grantor.grant(args("retry", "a", { requestId: "attempt-1" }));
    const retried = await grantor.grant(args("retry", "a", { requestId: "attempt-1" }));
    assert.equal(retried.token, first.token);
    assert.ok(retried.durationMs <= first.durationMs);
    assert.equal(lease("retry").metadata.annotations["tenure/request-id"], "attempt-1");

    // Another instance has no memory of the attempt: it renews, so the full duration counts from
    // the retry, and still answers with the original token.
    const before = lease("retry").metadata.resourceVersion;
    assert.deepEqual(await newGrantor().grant(args("retry", "a", { requestId: "attempt-1" })), {
      granted: true,
      token: first.token,
      durationMs: 2_000,
    });
    assert.notEqual(lease("retry").metadata.resourceVersion, before, "renewed");

    const replaced = await grantor.grant(args("retry", "a", { requestId: "attempt-2" }));
    assert.equal(replaced.token, first.token + 1);
    assert.deepEqual(await grantor.renew(args("retry", "a", { token: first.token })), {
      renewed: false,
      reason: "not_holder",
    });
    await grantor.release({ resource: "retry", holder: "a", token: replaced.token });
  });

  it("judges expiry by its own observation, never by renewTime against its wall clock", async () => {
    // Another client's Lease whose renewTime is decades old: a wall-clock check would take it at once.
    await put("ancient", () => ({
      metadata: { name: "ancient" },
      spec: {
        holderIdentity: "other",
        leaseDurationSeconds: 1,
        renewTime: "2001-01-01T00:00:00.000000Z",
        leaseTransitions: 4,
      },
    }));
    const fresh = newGrantor();
    const seenAt = performance.now();
    const denied = await fresh.grant(args("ancient", "a"));
    assert.deepEqual(denied, { granted: false, holder: "other", expiresInMs: denied.expiresInMs });
    assert.ok(denied.expiresInMs > 900 && denied.expiresInMs <= 1_000, "a full lease from first sight");
    await sleep(1_100 - (performance.now() - seenAt));
    assert.deepEqual(await fresh.grant(args("ancient", "a")), { granted: true, token: 6, durationMs: 2_000 });

    // One whose renewTime is far in the future: unchanged for a lease duration, it is expired all the same.
    await put("future", () => ({
      metadata: { name: "future" },
      spec: { holderIdentity: "other", leaseDurationSeconds: 1, renewTime: "2999-01-01T00:00:00.000000Z" },
    }));
    assert.equal((await fresh.grant(args("future", "a"))).granted, false);
    await sleep(1_100);
    assert.deepEqual(await fresh.grant(args("future", "a")), { granted: true, token: 2, durationMs: 2_000 });
  });

  it("waits again when the holder renews: a changed record is a new observation", async () => {
    const holder = newGrantor();
    const { token } = await holder.grant(args("observed", "a", { durationMs: 1_000 }));
    const watcher = newGrantor();
    assert.equal((await watcher.grant(args("observed", "b"))).granted, false);
    await sleep(700);
    await holder.renew(args("observed", "a", { token, durationMs: 1_000 }));
    await sleep(500); // 1.2 s since the watcher first looked, 0.5 s since the renewal
    const denied = await watcher.grant(args("observed", "b"));
    assert.equal(denied.granted, false, "the renewal restarted the watcher's wait");
    assert.ok(denied.expiresInMs > 800, `${denied.expiresInMs}`);
    await holder.release({ resource: "observed", holder: "a", token });
  });

  it("takes over only by a compare-and-swap on the version it observed: a renewal in between wins", async () => {
    const holder = newGrantor();
    const { token } = await holder.grant(args("cas", "a", { durationMs: 1_000 }));
    let renewFirst = false;
    const taker = newGrantor({
      // Just before the takeover's PUT goes out, the holder renews.
      fetch: async (url, init) => {
        if (renewFirst && init.method === "PUT") {
          renewFirst = false;
          await holder.renew(args("cas", "a", { token, durationMs: 1_000 }));
        }
        return fetch(url, init);
      },
    });
    assert.equal((await taker.grant(args("cas", "b"))).granted, false);
    await sleep(1_100);
    renewFirst = true;
    const outcome = await taker.grant(args("cas", "b"));
    assert.equal(outcome.granted, false, JSON.stringify(outcome));
    assert.equal(outcome.holder, "a");
    assert.equal(lease("cas").spec.holderIdentity, "a");
    assert.deepEqual(await holder.renew(args("cas", "a", { token, durationMs: 1_000 })), {
      renewed: true,
      token,
      durationMs: 1_000,
    });
    await holder.release({ resource: "cas", holder: "a", token });
  });

  it("refuses renewals once the Lease was taken over or deleted", async () => {
    const { token } = await grantor.grant(args("taken", "a"));
    await put("taken", (current) => ({
      ...current,
      spec: {
        ...current.spec,
        holderIdentity: "intruder",
        leaseTransitions: current.spec.leaseTransitions + 1,
      },
    }));
    assert.deepEqual(await grantor.renew(args("taken", "a", { token })), {
      renewed: false,
      reason: "not_holder",
    });
    assert.deepEqual(await grantor.release({ resource: "taken", holder: "a", token }), { released: false });
    assert.equal(lease("taken").spec.holderIdentity, "intruder");

    const response = await fetch(
      `${api.url}/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/taken`,
      {
        method: "DELETE",
        headers: { authorization: `Bearer ${TOKEN}` },
      },
    );
    assert.equal(response.status, 200);
    assert.deepEqual(await grantor.renew(args("taken", "intruder", { token: token + 1 })), {
      renewed: false,
      reason: "unknown",
    });
  });

  it("keeps other clients' labels and annotations", async () => {
    await put("labelled", () => ({
      metadata: {
        name: "labelled",
        labels: { team: "billing" },
        annotations: { "example.com/owner": "ops" },
      },
      spec: {},
    }));
    const { token } = await grantor.grant(args("labelled", "a"));
    await grantor.renew(args("labelled", "a", { token }));
    await grantor.release({ resource: "labelled", holder: "a", token });
    const stored = lease("labelled");
    assert.deepEqual(stored.metadata.labels, { team: "billing" });
    assert.equal(stored.metadata.annotations["example.com/owner"], "ops");
    assert.equal(
      stored.metadata.annotations["tenure/request-id"],
      undefined,
      "released: no attempt recorded",
    );
  });

  it("refuses bad arguments before sending anything", async () => {
    const from = api.requests.length;
    const bad = [
      ["grant", { resource: "" }],
      ["grant", { resource: "Upper" }],
      ["grant", { resource: "a_b" }],
      ["grant", { resource: "reports/nightly" }],
      ["grant", { resource: "-a" }],
      ["grant", { resource: "a".repeat(254) }],
      ["grant", { resource: null }],
      ["grant", { holder: "" }],
      ["grant", { holder: "tab\there" }],
      ["grant", { durationMs: 0 }],
      ["grant", { durationMs: 1.5 }],
      ["grant", { durationMs: Infinity }],
      ["grant", { requestId: 42 }],
      ["renew", { token: 0 }],
      ["renew", { token: Number.MAX_SAFE_INTEGER + 1 }],
      ["release", { token: "1" }],
    ];
    for (const [method, override] of bad) {
      const call = { ...args("ok", "a", { token: 1 }), ...override };
      await assert.rejects(
        grantor[method](call),
        grantorError("bad_request"),
        `${method} ${JSON.stringify(override)}`,
      );
    }
    assert.equal(api.requests.length, from, "nothing reached the API server");

    for (const [options, field] of [
      [{ namespace: "Bad_NS" }, "namespace"],
      [{ namespace: "" }, "namespace"],
      [{ token: "" }, "token"],
      [{ baseUrl: "file:///etc/passwd" }, "baseUrl"],
      [{ timeoutMs: -5 }, "timeoutMs"],
      [{ headers: { Authorization: "Bearer other" } }, "headers"],
    ]) {
      assert.throws(
        () => newGrantor(options),
        (error) => isLeaseError(error) && error.code === "ERR_LEASE_CONFIG" && error.field === field,
        JSON.stringify(options),
      );
    }
  });

  it("drives a LeaseHolder: renews past the lease, loses it to a takeover, hands over", async () => {
    const config = (holderId) => ({ resource: "holder", holderId, leaseMs: 2_000, marginMs: 500 });
    const a = new LeaseHolder(grantor, config("a"));
    const b = new LeaseHolder(newGrantor(), config("b"));
    const lost = [];
    a.onLeaseLost = (reason) => lost.push({ reason, at: performance.now() });
    try {
      const first = await a.acquire();
      assert.equal(first.acquired, true);
      await sleep(3_000); // longer than the lease: only renewals keep it
      assert.equal(a.lease.isSafelyHeld(), true);
      assert.equal(a.consecutiveFailures, 0);
      const denied = await b.acquire();
      assert.equal(denied.acquired, false);
      assert.equal(denied.holder, "a");

      // Another client (an operator, or a holder not using this adapter) takes the Lease.
      await put("holder", (current) => ({
        ...current,
        spec: {
          ...current.spec,
          holderIdentity: "intruder",
          leaseTransitions: current.spec.leaseTransitions + 1,
        },
      }));
      const takenAt = performance.now();
      assert.ok(await eventually(() => lost.length > 0, 5_000), "a learns of the loss");
      assert.equal(lost[0].reason, "not_holder");
      assert.ok(lost[0].at - takenAt <= a.renewIntervalMs + 1_000, `${lost[0].at - takenAt} ms`);
      assert.equal(a.signal.aborted, true);

      // The intruder never renews: b takes over after observing it unchanged for a lease.
      const second = await b.acquire({ wait: true, signal: AbortSignal.timeout(20_000) });
      assert.equal(second.acquired, true);
      assert.equal(second.token, first.token + 2);
      assert.equal(lease("holder").spec.holderIdentity, "b");
    } finally {
      await a.release().catch(() => {});
      await b.release().catch(() => {});
    }
  });
});

describe("the Kubernetes API fake answers as the API server documents", () => {
  let api;
  const url = (name = "") =>
    `${api.url}/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases${name === "" ? "" : `/${name}`}`;
  const send = (method, path, body, headers = {}) =>
    fetch(path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  before(async () => {
    api = await startKubernetesFake({ token: TOKEN });
  });

  after(async () => {
    await api?.close();
  });

  it("creates, compares and swaps, and refuses with Status objects", async () => {
    const created = await send("POST", url(), {
      metadata: { name: "f" },
      spec: { holderIdentity: "a", leaseDurationSeconds: 5 },
    });
    assert.equal(created.status, 201);
    const lease = await created.json();
    assert.equal(typeof lease.metadata.resourceVersion, "string");

    const again = await send("POST", url(), { metadata: { name: "f" }, spec: {} });
    assert.equal(again.status, 409);
    assert.equal((await again.json()).reason, "AlreadyExists");

    const noVersion = await send("PUT", url("f"), { metadata: { name: "f" }, spec: lease.spec });
    assert.equal(noVersion.status, 422);
    assert.match((await noVersion.json()).message, /must be specified for an update/);

    const same = await send("PUT", url("f"), lease);
    assert.equal(
      (await same.json()).metadata.resourceVersion,
      lease.metadata.resourceVersion,
      "no change, no write",
    );
    const changed = await send("PUT", url("f"), { ...lease, spec: { ...lease.spec, holderIdentity: "b" } });
    assert.equal(changed.status, 200);
    assert.notEqual((await changed.json()).metadata.resourceVersion, lease.metadata.resourceVersion);
    const stale = await send("PUT", url("f"), { ...lease, spec: { ...lease.spec, holderIdentity: "c" } });
    assert.equal(stale.status, 409);
    const status = await stale.json();
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "Conflict");
    assert.match(status.message, /the object has been modified/);

    const zero = await send("POST", url(), { metadata: { name: "g" }, spec: { leaseDurationSeconds: 0 } });
    assert.equal(zero.status, 422);
    assert.equal((await zero.json()).details.causes[0].field, "spec.leaseDurationSeconds");
    const wrongType = await send("POST", url(), { metadata: { name: "g" }, spec: { leaseTransitions: "1" } });
    assert.equal(wrongType.status, 400);
    const shortTime = await send("POST", url(), {
      metadata: { name: "g" },
      spec: { renewTime: "2026-01-01T00:00:00.123Z" },
    });
    assert.equal(shortTime.status, 400, "MicroTime needs six fractional digits");
    const offset = await send("POST", url(), {
      metadata: { name: "g" },
      spec: { renewTime: "2026-01-01T02:00:00.123456+02:00" },
    });
    assert.equal((await offset.json()).spec.renewTime, "2026-01-01T00:00:00.123456Z", "stored in UTC");

    assert.equal((await send("GET", url("f"), undefined, { authorization: "Bearer wrong" })).status, 401);
    const anonymous = await fetch(url("f"));
    assert.equal(anonymous.status, 403);
    assert.match((await anonymous.json()).message, /system:anonymous/);
    const missing = await send("GET", url("nothing"));
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).reason, "NotFound");
  });
});
