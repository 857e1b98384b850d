// Watches on the Durable Object grantor: observe() through DurableObjectGrantor (the binding, as
// Node sees it) reports grants, releases and expiries in order, an expiry as it happens (the
// object wakes its waiting watches at the recorded expiry; nothing needs to ask), and a watch
// carries on across an eviction of the object and a restart of workerd: its long poll fails, it
// asks again, and it resumes without reporting an older holder. The grantor runs in workerd
// through Miniflare; the watches and the grants that change the state are made from Node.

import { describe, it, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { HttpGrantor, DurableObjectGrantor } from "tenure";
import { startDurableObjectGrantor } from "../support/durable-object.mjs";

let requests = 0;
const call = (args) => ({ requestId: `watch-${++requests}`, signal: AbortSignal.timeout(15_000), ...args });

/** The next value of `observation`, failing with `what` after `ms`. */
async function nextWithin(observation, what, ms = 10_000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no change within ${ms} ms: ${what}`)), ms);
  });
  try {
    const { value, done } = await Promise.race([observation.next(), timeout]);
    assert.equal(done, false);
    return { ...value, seenAt: Date.now() };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fails unless `seen` is in order: versions grow (a version is twice the resource's latest token,
 * plus one once that grant ended), so no holder older than one reported is reported again.
 */
function inOrder(seen) {
  for (let i = 1; i < seen.length; i += 1) {
    assert.ok(seen[i].version > seen[i - 1].version, `versions out of order: ${JSON.stringify(seen)}`);
  }
  for (const change of seen) {
    if (change.token !== null) assert.equal(change.version, 2 * change.token, JSON.stringify(change));
  }
}

/** Fails unless `change` reports `holder` with `token`, or, with `holder` null, that `token`'s grant ended. */
function reports(change, holder, token) {
  const actual = { holder: change.holder, token: change.token, version: change.version };
  if (holder === null) assert.deepEqual(actual, { holder: null, token: null, version: 2 * token + 1 });
  else assert.deepEqual(actual, { holder, token, version: 2 * token });
}

/**
 * The namespace binding, each stub's requests logged `{path, sentAt, settledAt, outcome}` (the
 * status, or "error" when the request failed without a reply), to show a long poll really failed.
 */
function logged(namespace, log) {
  return {
    idFromName: (name) => namespace.idFromName(name),
    get(id) {
      const stub = namespace.get(id);
      return {
        async fetch(url, init) {
          const entry = { path: new URL(url).pathname, sentAt: Date.now(), settledAt: null, outcome: null };
          log.push(entry);
          try {
            const reply = await stub.fetch(url, init);
            entry.outcome = reply.status;
            return reply;
          } catch (error) {
            entry.outcome = "error";
            throw error;
          } finally {
            entry.settledAt = Date.now();
          }
        },
      };
    },
  };
}

/**
 * The logged watch request in flight, once there is one: the observation sends its next long
 * poll soon after it yields, not at once.
 */
async function pendingWatch(log) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const pending = log.find((e) => e.path === "/v1/watch" && e.settledAt === null);
    if (pending) return pending;
    if (Date.now() > deadline) throw new Error(`no watch request in flight: ${JSON.stringify(log.slice(-3))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("watching the Durable Object grantor", () => {
  let objects;

  before(async () => {
    objects = await startDurableObjectGrantor();
  });

  after(async () => {
    await objects?.stop();
  });

  // Closed whatever happened: a watch left open retries for good and keeps the process alive.
  const open = [];
  const watch = (grantor, resource) => {
    const observation = grantor.observe(resource);
    open.push(observation);
    return observation;
  };
  afterEach(() => {
    for (const observation of open.splice(0)) observation.close();
  });

  it("observe() through the binding sees grant, release and expiry in order, the expiry when it happens", async () => {
    const name = "watched";
    const resource = "cron";
    const watcher = new DurableObjectGrantor({ namespace: await objects.namespace(), name });
    const writer = new HttpGrantor({ baseUrl: objects.url(name) });
    const observation = watch(watcher, resource);
    const seen = [await nextWithin(observation, "the first state")];
    assert.deepEqual([seen[0].holder, seen[0].token, seen[0].version], [null, null, 1]);

    const a = await writer.grant(call({ resource, holder: "a", durationMs: 10_000 }));
    seen.push(await nextWithin(observation, "a's grant"));
    reports(seen.at(-1), "a", a.token);
    await writer.release(call({ resource, holder: "a", token: a.token }));
    seen.push(await nextWithin(observation, "a's release"));
    reports(seen.at(-1), null, a.token);

    // Granted and never renewed: it runs out with nobody asking the object anything.
    const durationMs = 1_000;
    const sentAt = Date.now();
    const b = await writer.grant(call({ resource, holder: "b", durationMs }));
    seen.push(await nextWithin(observation, "b's grant"));
    reports(seen.at(-1), "b", b.token);
    seen.push(await nextWithin(observation, "b's expiry"));
    const expired = seen.at(-1);
    reports(expired, null, b.token);
    // Not before the grant's expiry (the grantor read its clock after the grant was sent)...
    assert.ok(expired.seenAt >= sentAt + durationMs - 1, `expiry reported ${expired.seenAt - sentAt} ms after the grant`);
    // ...and at it, give or take a loaded machine: a watch waits up to 30 s for a change, so a
    // report this soon is the object waking it at the expiry.
    assert.ok(expired.seenAt < sentAt + durationMs + 5_000, `expiry reported ${expired.seenAt - sentAt} ms after the grant`);
    inOrder(seen);
    observation.close();
  });

  it("a watch resumes after an eviction, and after a restart of workerd, without reporting an older holder", async () => {
    const name = "evicted";
    const resource = "primary";
    const log = [];
    const watcher = new DurableObjectGrantor({ namespace: logged(await objects.namespace(), log), name });
    const writer = () => new HttpGrantor({ baseUrl: objects.url(name) });
    const observation = watch(watcher, resource);
    const seen = [await nextWithin(observation, "the first state")];
    const grantSeen = async (holder, durationMs = 10_000) => {
      const reply = await writer().grant(call({ resource, holder, durationMs }));
      assert.equal(reply.granted, true);
      seen.push(await nextWithin(observation, `${holder}'s grant`));
      reports(seen.at(-1), holder, reply.token);
      return reply;
    };
    const a = await grantSeen("a");
    await writer().revoke(resource);
    seen.push(await nextWithin(observation, "a's revocation"));
    reports(seen.at(-1), null, a.token);
    const b = await grantSeen("b");

    // The watch is waiting on the object for a change after b's grant; the object goes away.
    const waiting = await pendingWatch(log);
    await objects.evict(name);
    await writer().release(call({ resource, holder: "b", token: b.token, leaseSecret: b.leaseSecret }));
    seen.push(await nextWithin(observation, "b's release, after the eviction"));
    reports(seen.at(-1), null, b.token);
    assert.ok(waiting.outcome === "error" || waiting.outcome >= 500, `the long poll waiting at the eviction failed: ${JSON.stringify(waiting)}`);

    // Evicted again with a short grant live: the grant runs out while the watch is re-asking a
    // new instance, which wakes it at the recorded expiry.
    const c = await grantSeen("c", 1_000);
    await pendingWatch(log);
    await objects.evict(name);
    seen.push(await nextWithin(observation, "c's expiry, after an eviction"));
    reports(seen.at(-1), null, c.token);
    inOrder(seen);
    observation.close();

    // Over HTTP, a watch carries on across a restart of workerd on the same storage and port.
    const http = watch(writer(), resource);
    const overHttp = [await nextWithin(http, "the first state over HTTP")];
    reports(overHttp[0], null, c.token);
    await objects.restart();
    const d = await writer().grant(call({ resource, holder: "d", durationMs: 10_000 }));
    overHttp.push(await nextWithin(http, "d's grant, after the restart"));
    reports(overHttp.at(-1), "d", d.token);
    assert.ok(d.token > c.token);
    inOrder(overHttp);
    http.close();
  });
});
