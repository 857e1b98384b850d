// KubernetesLeaseGrantor.observe against the Kubernetes API fake (tests/fakes/kubernetes.mjs): a
// list, then a watch of the Lease; changes made by another client seen in order, an expiry judged
// by this process's observation with no event to say so, a cut watch, 410 Gone, and hostile
// events that never yield an older or invented state.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { KubernetesLeaseGrantor, isLeaseError } from "tenure";
import { startKubernetesFake } from "../../fakes/kubernetes.mjs";
import { nextWithin, until, assertIncreasing } from "../support/observe.mjs";
import { eventually } from "../support/memory-grantor.mjs";

const TOKEN = "kubernetes-observe-token";
const NAMESPACE = "observe-test";

describe("KubernetesLeaseGrantor.observe against the API fake", { timeout: 60_000 }, () => {
  let api;
  let writer;
  let watcher;
  let n = 0;
  const grant = (resource, holder, durationMs = 10_000) =>
    writer.grant({ resource, holder, durationMs, requestId: `req-${(n += 1)}` });
  const watcherRequests = (kind) =>
    api.requests.filter(
      (r) => r.headers["x-observer"] === "1" && (kind === "watch") === r.path.includes("watch=1"),
    );

  before(async () => {
    api = await startKubernetesFake({ token: TOKEN });
    writer = new KubernetesLeaseGrantor({ baseUrl: api.url, token: TOKEN, namespace: NAMESPACE });
    watcher = new KubernetesLeaseGrantor({
      baseUrl: api.url,
      token: TOKEN,
      namespace: NAMESPACE,
      headers: { "x-observer": "1" },
    });
  });

  after(async () => {
    await api?.close();
  });

  it("yields the current state first, then a grant, a release, another grant and its observed expiry in order", async () => {
    const controller = new AbortController();
    const observation = watcher.observe("watched", { signal: controller.signal });
    const first = await nextWithin(observation);
    assert.deepEqual([first.holder, first.token], [null, null]);

    const a = await grant("watched", "a");
    const held = await nextWithin(observation);
    assert.deepEqual([held.holder, held.token], ["a", a.token]);
    assert.ok(held.expiresInMs > 9_000 && held.expiresInMs <= 10_000, `expiresInMs ${held.expiresInMs}`);

    await writer.release({ resource: "watched", holder: "a", token: a.token });
    const freed = await nextWithin(observation);
    assert.equal(freed.holder, null);

    // b's Lease says 1 s and is never renewed: no event will come, the observer's own clock says
    // when it has run out.
    const sentAt = performance.now();
    const b = await grant("watched", "b", 1_000);
    const heldByB = await nextWithin(observation);
    assert.deepEqual([heldByB.holder, heldByB.token], ["b", b.token]);
    const expired = await nextWithin(observation, 5_000);
    assert.equal(expired.holder, null);
    assert.ok(performance.now() - sentAt >= 1_000, "not before a full lease");
    assertIncreasing([first, held, freed, heldByB, expired]);

    // Each fetch lists the Lease, then watches it from the list's resourceVersion.
    const watches = watcherRequests("watch");
    assert.ok(watches.length >= 1);
    assert.match(watches[0].path, /fieldSelector=metadata\.name%3Dwatched&watch=1&allowWatchBookmarks=true&resourceVersion=\d+&timeoutSeconds=30$/);
    assert.ok(watcherRequests("list").length >= 2, "the expiry was re-judged from a fresh list");

    controller.abort();
    assert.deepEqual(await observation.next(), { value: undefined, done: true });
    assert.ok(await eventually(() => api.watchCount() === 0, 2_000), "the watch was closed");
  });

  it("resumes after the watch is cut, and after 410 Gone, without an older state", async () => {
    const observation = watcher.observe("cut");
    const a = await grant("cut", "a");
    const seen = await until(observation, (c) => c.holder === "a");
    assert.ok(await eventually(() => api.watchCount() === 1, 2_000));
    api.dropWatches();
    await writer.release({ resource: "cut", holder: "a", token: a.token });
    seen.push(...(await until(observation, (c) => c.holder === null)));

    // The history is compacted and the next watch is answered with 410 Gone: the observer lists
    // again rather than giving up.
    let gone = 0;
    api.intercept = (request) => {
      if (request.headers["x-observer"] !== "1" || !request.path.includes("watch=1") || gone > 0) return undefined;
      gone += 1;
      const status = { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410, message: "too old resource version" };
      return { status: 200, headers: { "content-type": "application/json" }, body: `${JSON.stringify({ type: "ERROR", object: status })}\n` };
    };
    try {
      api.compact();
      api.dropWatches();
      const b = await grant("cut", "b");
      seen.push(...(await until(observation, (c) => c.holder === "b", 10_000)));
      assert.equal(seen.at(-1).token, b.token);
      assert.equal(gone, 1);
    } finally {
      api.intercept = undefined;
    }
    assertIncreasing(seen);
    // The first state is "nobody" unless the grant came before the first list.
    const holders = seen.map((c) => c.holder);
    assert.deepEqual(holders[0] === null ? holders.slice(1) : holders, ["a", null, "b"]);
    observation.close();
  });

  it("never yields a malformed, foreign or older event", async () => {
    const a = await grant("hostile", "a");
    await writer.release({ resource: "hostile", holder: "a", token: a.token });
    const b = await grant("hostile", "b");
    const stored = api.lease(NAMESPACE, "hostile");
    const event = (type, change) => JSON.stringify({ type, object: change(structuredClone(stored)) });
    const script = [
      "not json",
      `{"type":"MODIFIED","type":"ADDED","object":${JSON.stringify(stored)}}`,
      event("MODIFIED", (l) => ({ ...l, metadata: { ...l.metadata, name: "other" } })),
      event("MODIFIED", (l) => ({ ...l, kind: "ConfigMap" })),
      event("SURPRISE", (l) => l),
      // an older state: the grant before b's, as a stale watch cache might replay it
      event("MODIFIED", (l) => ({ ...l, spec: { ...l.spec, holderIdentity: "old", leaseTransitions: 0 } })),
      event("MODIFIED", (l) => ({ ...l, spec: { ...l.spec, holderIdentity: "z", leaseDurationSeconds: "10" } })),
      // a newer-looking grant in a message over the 256 KiB cap
      event("MODIFIED", (l) => ({
        ...l,
        metadata: { ...l.metadata, annotations: { padding: "x".repeat(300 * 1024) } },
        spec: { ...l.spec, holderIdentity: "huge", leaseTransitions: 40 },
      })),
      // a newer-looking grant whose holder is not UTF-8
      Buffer.concat([
        Buffer.from(event("MODIFIED", (l) => ({ ...l, spec: { ...l.spec, holderIdentity: "bad-@", leaseTransitions: 41 } })).split("@")[0]),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(event("MODIFIED", (l) => ({ ...l, spec: { ...l.spec, holderIdentity: "bad-@", leaseTransitions: 41 } })).split("@")[1]),
      ]),
    ];
    let watches = 0;
    api.intercept = (request) => {
      if (request.headers["x-observer"] !== "1" || !request.path.includes("watch=1")) return undefined;
      const line = script.shift();
      if (line === undefined) return undefined;
      watches += 1;
      return { status: 200, headers: { "content-type": "application/json" }, body: Buffer.concat([Buffer.from(line), Buffer.from("\n")]) };
    };
    const observation = watcher.observe("hostile");
    try {
      const first = await nextWithin(observation);
      assert.deepEqual([first.holder, first.token], ["b", b.token]);
      assert.ok(await eventually(() => script.length === 0, 20_000), "every hostile event was sent");
      await writer.release({ resource: "hostile", holder: "b", token: b.token });
      const freed = await nextWithin(observation, 10_000);
      assert.equal(freed.holder, null, `an invented or older state was yielded: ${JSON.stringify(freed)}`);
      assertIncreasing([first, freed]);
      assert.equal(watches, 9);
    } finally {
      api.intercept = undefined;
      observation.close();
    }
  });

  it("ends with the error when the API server refuses the token, and refuses a bad name at once", async () => {
    const stranger = new KubernetesLeaseGrantor({ baseUrl: api.url, token: "wrong", namespace: NAMESPACE });
    await assert.rejects(
      stranger.observe("refused").next(),
      (e) => isLeaseError(e) && e.code === "ERR_GRANTOR" && e.kind === "bad_request" && e.status === 401,
    );
    assert.throws(() => watcher.observe("Not_A_Name"), (e) => isLeaseError(e) && e.kind === "bad_request");
  });
});
