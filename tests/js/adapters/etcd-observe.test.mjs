// EtcdGrantor.observe against a real etcd (started by the test): a range of the key, then watch
// streams through the JSON gateway; changes made by another client seen in order, a cut stream, a
// compacted start revision, and hostile watch messages (malformed, about another key, older) that
// never yield an older or invented state. Faults come from a `fetch` that cuts its streams or
// answers a watch itself.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { EtcdGrantor, isLeaseError } from "tenure";
import { b64, startEtcd } from "../support/etcd.mjs";
import { nextWithin, until, assertIncreasing } from "../support/observe.mjs";
import { eventually } from "../support/memory-grantor.mjs";

/** A fetch that records each path, can cut every stream it opened, and can answer a watch itself. */
function faultyFetch() {
  const controllers = new Set();
  const handle = {
    paths: [],
    /** `() => body | undefined`: a body answers the next watch request instead of etcd. */
    watchReply: undefined,
    cut() {
      for (const controller of controllers) controller.abort(new Error("cut"));
      controllers.clear();
    },
    fetch: async (url, init) => {
      const path = new URL(url).pathname;
      handle.paths.push(path);
      const crafted = path === "/v3/watch" ? handle.watchReply?.() : undefined;
      if (crafted !== undefined) {
        return new Response(crafted, { status: 200, headers: { "content-type": "application/json" } });
      }
      const controller = new AbortController();
      init.signal?.addEventListener("abort", () => controller.abort(init.signal.reason), { once: true });
      controllers.add(controller);
      return fetch(url, { ...init, signal: controller.signal });
    },
  };
  return handle;
}

describe("EtcdGrantor.observe against a real etcd", { timeout: 90_000 }, () => {
  let etcd;
  let writer;
  let n = 0;
  const grant = (resource, holder, durationMs = 10_000) =>
    writer.grant({ resource, holder, durationMs, requestId: `req-${(n += 1)}` });

  before(async () => {
    etcd = await startEtcd();
    writer = new EtcdGrantor({ baseUrl: etcd.url });
  });

  after(async () => {
    await etcd?.cleanup();
  });

  it("yields the current state first, then a grant, a release, another grant and its expiry in order", async () => {
    const faults = faultyFetch();
    const watcher = new EtcdGrantor({ baseUrl: etcd.url, fetch: faults.fetch });
    const controller = new AbortController();
    const observation = watcher.observe("watched", { signal: controller.signal });
    const first = await nextWithin(observation);
    assert.deepEqual([first.holder, first.token], [null, null]);

    const a = await grant("watched", "a");
    const held = await nextWithin(observation);
    assert.deepEqual([held.holder, held.token, held.version], ["a", a.token, a.token]);

    await writer.release({ resource: "watched", holder: "a", token: a.token });
    const freed = await nextWithin(observation);
    assert.equal(freed.holder, null);

    const b = await grant("watched", "b", 2_000);
    const heldByB = await nextWithin(observation);
    assert.deepEqual([heldByB.holder, heldByB.token], ["b", b.token]);
    // b never renews: etcd revokes its lease and deletes the key.
    const expired = await nextWithin(observation, 10_000);
    assert.equal(expired.holder, null);
    assertIncreasing([first, held, freed, heldByB, expired]);
    assert.deepEqual(faults.paths.slice(0, 2), ["/v3/kv/range", "/v3/watch"], "a range, then one watch stream");
    assert.equal(faults.paths.filter((p) => p === "/v3/watch").length, 1);

    controller.abort();
    assert.deepEqual(await observation.next(), { value: undefined, done: true });
  });

  it("resumes after the stream is cut, from the revision after the last one seen, without an older state", async () => {
    const faults = faultyFetch();
    const watcher = new EtcdGrantor({ baseUrl: etcd.url, fetch: faults.fetch });
    const observation = watcher.observe("cut");
    const a = await grant("cut", "a");
    const seen = await until(observation, (c) => c.holder === "a");
    assert.ok(await eventually(() => faults.paths.at(-1) === "/v3/watch", 2_000));
    const before = faults.paths.length;
    faults.cut();
    await writer.release({ resource: "cut", holder: "a", token: a.token });
    const b = await grant("cut", "b");
    seen.push(...(await until(observation, (c) => c.holder === "b", 10_000)));
    assert.equal(seen.at(-1).token, b.token);
    assertIncreasing(seen);
    // The first request after the cut resumes the watch (etcd replays what happened meanwhile).
    assert.equal(faults.paths[before], "/v3/watch", "the first request after the cut resumes the watch");
    observation.close();
  });

  it("reads afresh when a resumed watch fails again, and never yields a hostile message", async () => {
    const faults = faultyFetch();
    const watcher = new EtcdGrantor({ baseUrl: etcd.url, fetch: faults.fetch });
    const a = await grant("hostile", "a");
    const key = b64("tenure/leases/hostile");
    const line = (result) => `${JSON.stringify({ result: { header: { revision: "999" }, ...result } })}\n`;
    const put = (holder, revision) => ({
      kv: { key, value: b64(holder), create_revision: String(revision), mod_revision: String(revision) },
    });
    const script = [
      // compacted: the revision asked for is gone
      line({ compact_revision: String(a.token + 5), canceled: true }),
      "not json\n",
      line({ events: [{ ...put("z", 10_000), kv: { ...put("z", 10_000).kv, key: b64("elsewhere") } }] }),
      line({ events: [{ type: "SURPRISE", ...put("z", 10_000) }] }),
      `{"result":{"events":null}}\n`,
      // an older revision: a grant before a's
      line({ events: [put("old", a.token - 1)] }),
    ];
    const answered = [];
    faults.watchReply = () => {
      const body = script.shift();
      if (body !== undefined) answered.push(faults.paths.length - 1);
      return body;
    };
    const observation = watcher.observe("hostile");
    try {
      const first = await nextWithin(observation);
      assert.deepEqual([first.holder, first.token], ["a", a.token]);
      assert.ok(await eventually(() => script.length === 0, 20_000), "every hostile message was sent");
      await writer.release({ resource: "hostile", holder: "a", token: a.token });
      const freed = await nextWithin(observation, 10_000);
      assert.equal(freed.holder, null, `an invented or older state was yielded: ${JSON.stringify(freed)}`);
      assertIncreasing([first, freed]);
      // A failed watch is resumed once; a second failure in a row (the compacted revision is still
      // gone, or another broken message) reads afresh with a range, never a third watch from an
      // old revision.
      const paths = JSON.stringify(faults.paths);
      const [compacted, broken] = answered;
      assert.equal(faults.paths[compacted + 1], "/v3/watch", `the compacted watch is resumed once: ${paths}`);
      assert.equal(broken, compacted + 1, `the resumed watch got the broken message: ${paths}`);
      assert.equal(faults.paths[broken + 1], "/v3/kv/range", `two failures in a row read afresh: ${paths}`);
    } finally {
      observation.close();
    }
  });

  it("refuses a bad resource or signal at once", () => {
    assert.throws(() => writer.observe(""), (e) => isLeaseError(e) && e.kind === "bad_request");
    assert.throws(() => writer.observe("r", { signal: {} }), (e) => isLeaseError(e) && e.code === "ERR_GRANTOR");
  });
});
