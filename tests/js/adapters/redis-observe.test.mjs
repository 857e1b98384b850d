// RedisHttpGrantor.observe: polling the key and its fence counter, against a real redis-server
// behind the Upstash-style REST shim (changes by another client seen in order, requests that fail
// on the way), and against a crafted endpoint whose replies are malformed or go backwards.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { RedisHttpGrantor, isLeaseError } from "tenure";
import { startRedis } from "../support/redis.mjs";
import { nextWithin, until, assertIncreasing } from "../support/observe.mjs";

const args = (resource, holder, durationMs = 5_000) => ({
  resource,
  holder,
  durationMs,
  requestId: Math.random().toString(36).slice(2),
});

describe("RedisHttpGrantor.observe against a real Redis", { timeout: 60_000 }, () => {
  let redis;
  let writer;

  before(async () => {
    redis = await startRedis();
    writer = new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token });
  });

  after(async () => {
    await redis?.cleanup();
  });

  it("yields the current state first, then a grant, a release, another grant and an expiry in order", async () => {
    const controller = new AbortController();
    const watcher = new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token });
    const observation = watcher.observe("watched", { signal: controller.signal });
    const first = await nextWithin(observation);
    assert.deepEqual([first.holder, first.token, first.expiresInMs], [null, null, null]);

    const a = await writer.grant(args("watched", "a"));
    const held = await nextWithin(observation);
    assert.deepEqual([held.holder, held.token], ["a", a.token]);
    assert.ok(held.expiresInMs > 0 && held.expiresInMs <= 5_000, `expiresInMs ${held.expiresInMs}`);

    await writer.release({ resource: "watched", holder: "a", token: a.token });
    const freed = await nextWithin(observation);
    assert.equal(freed.holder, null);

    const b = await writer.grant(args("watched", "b", 600));
    const heldByB = await nextWithin(observation);
    assert.deepEqual([heldByB.holder, heldByB.token], ["b", b.token]);
    const expired = await nextWithin(observation, 5_000);
    assert.equal(expired.holder, null, "b's key expired");
    assertIncreasing([first, held, freed, heldByB, expired]);

    controller.abort();
    assert.deepEqual(await observation.next(), { value: undefined, done: true });
  });

  it("keeps polling through failed requests, without an older state", async () => {
    let failing = false;
    let calls = 0;
    const flaky = async (url, init) => {
      calls += 1;
      if (failing) throw new TypeError("fetch failed");
      return fetch(url, init);
    };
    const watcher = new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token, fetch: flaky });
    const observation = watcher.observe("flaky");
    const a = await writer.grant(args("flaky", "a"));
    const seen = await until(observation, (c) => c.holder === "a");
    failing = true;
    const at = calls;
    await writer.release({ resource: "flaky", holder: "a", token: a.token });
    const b = await writer.grant(args("flaky", "b"));
    while (calls < at + 3) await new Promise((resolve) => setTimeout(resolve, 20));
    failing = false;
    seen.push(...(await until(observation, (c) => c.holder === "b", 10_000)));
    assert.equal(seen.at(-1).token, b.token);
    assertIncreasing(seen);
    observation.close();
  });
});

describe("RedisHttpGrantor.observe against a crafted endpoint", { timeout: 30_000 }, () => {
  let server;
  let url;
  let replies;
  let requests;

  before(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        requests.push(JSON.parse(body));
        const reply = replies.length > 1 ? replies.shift() : replies[0];
        response.writeHead(200, { "content-type": "application/json" });
        response.end(typeof reply === "string" ? reply : JSON.stringify(reply));
      });
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${server.address().port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("never yields a malformed, foreign or older state", async () => {
    requests = [];
    replies = [
      { result: ["4:a", 900, "4"] },
      '{"result":["5:b",900,"5"],"result":["9:z",900,"9"]}', // a duplicate key
      { result: ["6:c", 900, "5"] }, // a grant above its counter
      { result: ["held-by-other-software", 900, "6"] },
      { result: ["6:c", "900", "6"] }, // pttl not an integer
      { result: ["3:old", 900, "3"] }, // a counter that went backwards (a replica that lost writes)
      { result: ["", -2, "3"] },
      { result: ["7:d", 800, "7"] },
    ];
    const observation = new RedisHttpGrantor({ baseUrl: url }).observe("r");
    const seen = await until(observation, (c) => c.holder === "d", 20_000);
    assert.deepEqual(
      seen.map((c) => [c.holder, c.token, c.version]),
      [
        ["a", 4, 8],
        ["d", 7, 14],
      ],
    );
    // The key and its counter, read by one script.
    assert.equal(requests[0][0], "EVAL");
    assert.deepEqual(requests[0].slice(2), ["2", "tenure:{r}", "tenure:{r}:fence"]);
    observation.close();
  });

  it("ends with the error when Redis refuses the command, and refuses a bad resource at once", async () => {
    requests = [];
    replies = [{ error: "NOPERM this user has no permissions to run the 'eval' command" }];
    const observation = new RedisHttpGrantor({ baseUrl: url }).observe("r");
    await assert.rejects(observation.next(), (e) => isLeaseError(e) && e.kind === "bad_request");
    assert.throws(() => new RedisHttpGrantor({ baseUrl: url }).observe(""), (e) => isLeaseError(e) && e.kind === "bad_request");
  });
});
