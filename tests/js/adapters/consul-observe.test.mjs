// ConsulGrantor.observe against the Consul fake (tests/fakes/consul.mjs): blocking queries on the
// lock key, changes made by another client seen in order, a cut connection, and hostile replies
// (malformed entries, an X-Consul-Index going backwards) that never yield an older or invented
// state.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { ConsulGrantor, isLeaseError } from "tenure";
import { startConsulFake } from "../../fakes/consul.mjs";
import { nextWithin, until, assertIncreasing } from "../support/observe.mjs";
import { eventually } from "../support/memory-grantor.mjs";

const TOKEN = "consul-observe-token";

describe("ConsulGrantor.observe against the Consul fake", { timeout: 90_000 }, () => {
  let consul;
  let writer;
  let watcher;
  let n = 0;
  const grant = (resource, holder) =>
    writer.grant({ resource, holder, durationMs: 10_000, requestId: `req-${(n += 1)}` });
  // The watcher's reads of `key` (the writer reads the key too, without the header).
  const kvReads = (key) =>
    consul.requests.filter((r) => r.method === "GET" && r.path === `/v1/kv/${key}` && r.headers["x-observer"] === "1");

  before(async () => {
    consul = await startConsulFake({ token: TOKEN });
    writer = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN });
    watcher = new ConsulGrantor({ baseUrl: consul.url, token: TOKEN, headers: { "x-observer": "1" } });
  });

  after(async () => {
    await consul?.close();
  });

  it("yields the current state first, then a grant, a release, another grant and an expiry in order", async () => {
    const controller = new AbortController();
    const observation = watcher.observe("watched", { signal: controller.signal });
    const first = await nextWithin(observation);
    assert.deepEqual([first.holder, first.token, first.expiresInMs], [null, null, null]);

    const a = await grant("watched", "a");
    const held = await nextWithin(observation);
    assert.deepEqual([held.holder, held.token], ["a", a.token]);
    assert.equal(observation.current.holder, "a");

    await writer.release({ resource: "watched", holder: "a", token: a.token });
    const freed = await nextWithin(observation);
    assert.equal(freed.holder, null);

    const b = await grant("watched", "b");
    const heldByB = await nextWithin(observation);
    assert.deepEqual([heldByB.holder, heldByB.token], ["b", b.token]);
    assert.ok(b.token > a.token);

    // b's session runs out, as its TTL would end it: the key is unlocked.
    consul.invalidateSession(consul.entry("tenure/watched").Session);
    const expired = await nextWithin(observation);
    assert.equal(expired.holder, null);
    assertIncreasing([first, held, freed, heldByB, expired]);

    // Changes came from blocking queries, each waiting from the index of the reply before.
    const reads = kvReads("tenure/watched");
    assert.match(reads[0].query, /^\?consistent$/);
    assert.ok(reads.slice(1).every((r) => /[?&]index=\d+&wait=30s$/.test(r.query)), JSON.stringify(reads));
    assert.ok(await eventually(() => consul.blockedCount() === 1, 2_000), "a blocking query is waiting");

    controller.abort();
    assert.deepEqual(await observation.next(), { value: undefined, done: true });
    assert.ok(await eventually(() => consul.blockedCount() === 0, 2_000), "the query was aborted");
  });

  it("resumes after the connection is cut, from the index it had, without an older state", async () => {
    const observation = watcher.observe("cut");
    const a = await grant("cut", "a");
    const seen = await until(observation, (c) => c.holder === "a");
    assert.ok(await eventually(() => consul.blockedCount() === 1, 2_000));
    const before = kvReads("tenure/cut").length;
    consul.dropBlocking();
    await writer.release({ resource: "cut", holder: "a", token: a.token });
    seen.push(await nextWithin(observation));
    assert.equal(seen.at(-1).holder, null);
    const b = await grant("cut", "b");
    seen.push(await nextWithin(observation));
    assert.deepEqual([seen.at(-1).holder, seen.at(-1).token], ["b", b.token]);
    assertIncreasing(seen);
    // The first read after the cut resumes from the index it had (nothing changed is missed);
    // only a second failure in a row would read afresh.
    assert.match(kvReads("tenure/cut")[before].query, /^\?index=\d+&wait=30s$/);
    observation.close();
  });

  it("never yields what a hostile reply says, and reads afresh when the index goes backwards", async () => {
    const a = await grant("hostile", "a");
    const entry = consul.entry("tenure/hostile");
    const invented = (lockIndex, holder) => [
      {
        ...entry,
        LockIndex: lockIndex,
        Session: entry.Session,
        Value: Buffer.from(JSON.stringify({ holder })).toString("base64"),
      },
    ];
    const script = [
      // malformed: not a list of one entry
      { status: 200, headers: { "x-consul-index": "900" }, body: "{}" },
      // a duplicate key
      { status: 200, headers: { "x-consul-index": "900" }, body: '[{"Key":"tenure/hostile","Key":"x"}]' },
      // no X-Consul-Index
      { status: 200, body: JSON.stringify(invented(7, "no-index")) },
      // an index that goes backwards, with a state that would look newer
      { status: 200, headers: { "x-consul-index": "3" }, body: JSON.stringify(invented(9, "invented")) },
    ];
    let blocking = 0;
    const observation = watcher.observe("hostile");
    const first = await nextWithin(observation);
    assert.deepEqual([first.holder, first.token], ["a", a.token]);
    // Each blocking query after the first is answered from the script, one after another.
    let backwards;
    consul.intercept = (request) => {
      if (request.headers["x-observer"] !== "1" || !request.query.includes("index=")) return undefined;
      if (request.path !== "/v1/kv/tenure/hostile") return undefined;
      blocking += 1;
      const reply = script.shift();
      if (script.length === 0 && reply !== undefined) backwards = request;
      return reply;
    };
    try {
      assert.ok(await eventually(() => script.length === 0, 15_000), "every hostile reply was sent");
      // After each failure the watch reads afresh: the next request is no blocking query.
      await writer.release({ resource: "hostile", holder: "a", token: a.token });
      const freed = await nextWithin(observation, 10_000);
      assert.equal(freed.holder, null, `an invented state was yielded: ${JSON.stringify(freed)}`);
      assertIncreasing([first, freed]);
      const reads = kvReads("tenure/hostile");
      const at = reads.indexOf(backwards);
      assert.equal(reads[at + 1].query, "?consistent", "a backwards index is followed by a plain read");
      assert.ok(blocking >= 4);
    } finally {
      consul.intercept = undefined;
      observation.close();
    }
  });

  it("ends with the error when Consul refuses the token, and refuses a bad resource at once", async () => {
    const stranger = new ConsulGrantor({ baseUrl: consul.url, token: "wrong" });
    const observation = stranger.observe("refused");
    await assert.rejects(
      observation.next(),
      (e) => isLeaseError(e) && e.code === "ERR_GRANTOR" && e.kind === "bad_request" && e.status === 403,
    );
    assert.throws(() => watcher.observe("a//b"), (e) => isLeaseError(e) && e.kind === "bad_request");
    assert.throws(() => watcher.observe("ok", { signal: {} }), (e) => isLeaseError(e) && e.code === "ERR_GRANTOR");
  });
});
