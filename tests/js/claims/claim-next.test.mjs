// claimNext: a completion or failure report that also claims the worker's next item, in one round
// trip. Against the real grantor: a worker's items cost about one request each, a retried
// settlement gets the same next item, a next claim heartbeats and is gated like any claim, and a
// stopping worker asks for none. Against fakes: a malformed `next` is never a claim, and a grantor
// that predates claimNext (refusing the field) gets plain completions and claims instead.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { HttpGrantor, WorkClaimer } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { assertCompletedExactlyOnce, enqueueAll } from "../support/claims.mjs";

const CLAIM_MS = 1500;
const MARGIN_MS = 400;

/** An HttpGrantor for `url` that notes every request's path and body in `requests`. */
function recordingGrantor(url, requests = []) {
  const grantor = new HttpGrantor({
    baseUrl: url,
    fetch: (target, init) => {
      requests.push({ path: new URL(target).pathname, body: JSON.parse(init.body) });
      return fetch(target, init);
    },
  });
  return { grantor, requests };
}

const countOf = (requests, path) => requests.filter((request) => request.path === path).length;

/** The grantor's `http_requests_total` for `route` with 2xx, from its /metrics. */
async function answered(url, route) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`tenure_grantor_http_requests_total{route="${route}",status="2xx"}`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

/** Runs `claimer.process(handler)` until the queue has nothing pending or claimed. */
async function drain(claimer, grantor, handler, options = {}) {
  const stop = new AbortController();
  const completions = [];
  const counts = await claimer.process(handler, {
    signal: stop.signal,
    idleDelayMs: 10,
    idleDelayMaxMs: 50,
    onIdle: async () => {
      const stats = await grantor.queueStats(claimer.queue);
      if (stats.pending + stats.claimed === 0) stop.abort();
    },
    onSettled: (outcome) => {
      if (outcome.status === "completed") completions.push([outcome.item.id, outcome.token]);
    },
    ...options,
  });
  return { counts, report: { workerId: claimer.workerId, completions } };
}

/** A plain HTTP server answering each path with `routes[path](body)`: `[status, reply]`. */
async function fakeServer(routes) {
  const server = http.createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", async () => {
      const route = routes[request.url];
      const [status, reply] = route ? await route(JSON.parse(text)) : [404, { error: { code: "not_found" } }];
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

describe("claimNext against the real grantor", () => {
  let grantor;
  let client;

  before(async () => {
    grantor = await startGrantor();
    client = new HttpGrantor({ baseUrl: grantor.url });
  });

  after(async () => {
    await grantor?.stop();
  });

  it("a worker's next item comes with its completion: about half the requests", { timeout: 60_000 }, async () => {
    const queue = "halved";
    const items = 60;
    const concurrency = 2;
    const itemIds = await enqueueAll(client, queue, Array.from({ length: items }, (_, n) => ({ n })));
    const { grantor: recorded, requests } = recordingGrantor(grantor.url);
    const claimsBefore = await answered(grantor.url, "/v1/queues/claim");
    const completesBefore = await answered(grantor.url, "/v1/queues/complete");
    const claimer = new WorkClaimer(recorded, { queue, workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS });
    const { counts, report } = await drain(claimer, client, () => "done", { concurrency });

    assert.deepEqual(counts, { claimed: items, completed: items, failed: 0, lost: 0 });
    assert.equal(await assertCompletedExactlyOnce(assert, client, queue, itemIds, [report]), items);
    // One claim per slot to start, and the few of a slot polling while the other finishes: every
    // other item arrived with the previous one's completion, so about one request per item where
    // a claim and a completion each would take two.
    const claims = (await answered(grantor.url, "/v1/queues/claim")) - claimsBefore;
    const completes = (await answered(grantor.url, "/v1/queues/complete")) - completesBefore;
    assert.equal(completes, items);
    assert.ok(claims <= concurrency + 8, `${claims} claim requests`);
    assert.ok(claims + completes <= items + concurrency + 8, `${claims + completes} requests for ${items} items`);
    assert.equal(countOf(requests, "/v1/queues/claim"), claims);
    assert.ok(requests.filter((r) => r.path === "/v1/queues/complete").every((r) => r.body.claimNext?.claimMs === CLAIM_MS));
  });

  it("a retried completion with the same claimNext requestId gets the same next item", { timeout: 30_000 }, async () => {
    const queue = "retried";
    const [first, second] = await enqueueAll(client, queue, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    const claim = await client.claim({ queue, worker: "w", claimMs: 5_000 });
    assert.equal(claim.item.id, first);
    const complete = {
      queue,
      itemId: first,
      worker: "w",
      token: claim.token,
      result: null,
      claimNext: { claimMs: 5_000, requestId: "next-1" },
    };
    const once = await client.complete(complete);
    const again = await client.complete(complete);
    assert.equal(once.completed, true);
    assert.equal(once.next.claimed, true);
    assert.equal(once.next.item.id, second);
    assert.equal(again.completed, true);
    assert.equal(again.next.item.id, second);
    assert.equal(again.next.token, once.next.token);
    assert.ok(again.next.claimMs <= once.next.claimMs, "a replay promises only what is left");
    assert.deepEqual(await client.queueStats(queue), { queue, pending: 1, claimed: 1, done: 1, dead: 0 });
  });

  it("a Claim whose completion's reply was lost retries with the same id and gets the same next item", { timeout: 30_000 }, async () => {
    const queue = "lost-reply";
    const [first, second] = await enqueueAll(client, queue, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    let completes = 0;
    const flaky = new HttpGrantor({
      baseUrl: grantor.url,
      fetch: async (target, init) => {
        const response = await fetch(target, init);
        // The first completion reaches the grantor and takes effect; its reply does not arrive.
        if (new URL(target).pathname === "/v1/queues/complete" && completes++ === 0) {
          await response.arrayBuffer();
          throw new TypeError("fetch failed");
        }
        return response;
      },
    });
    const claimer = new WorkClaimer(flaky, { queue, workerId: "w", claimMs: 5_000, marginMs: 1_000 });
    const claim = await claimer.claim();
    assert.equal(claim.item.id, first);
    const reply = await claim.complete("ok", { claimNext: true });
    assert.equal(completes, 2, "sent twice");
    assert.equal(reply.completed, true);
    assert.equal(reply.next.item.id, second);
    assert.equal(reply.next.item.attempts, 1, "claimed once, not again by the retry");
    assert.deepEqual(await client.queueStats(queue), { queue, pending: 1, claimed: 1, done: 1, dead: 0 });
    await reply.next.complete("ok");
  });

  it("a next claim is a claim like any other: it heartbeats, and is gated before completing", { timeout: 30_000 }, async () => {
    const queue = "like-any";
    const [quick, slow] = await enqueueAll(client, queue, [{ n: 1 }, { slowMs: CLAIM_MS * 2 }]);
    const { grantor: recorded, requests } = recordingGrantor(grantor.url);
    const claimer = new WorkClaimer(recorded, { queue, workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS });
    const outcomes = [];
    const { counts } = await drain(
      claimer,
      client,
      async (item, { signal }) => {
        if (item.payload.slowMs) await sleep(item.payload.slowMs, undefined, { signal });
        return item.id;
      },
      { onSettled: (outcome) => outcomes.push(outcome) },
    );
    assert.deepEqual(counts, { claimed: 2, completed: 2, failed: 0, lost: 0 });
    assert.deepEqual(outcomes.map((o) => o.item.id), [quick, slow]);
    assert.equal(countOf(requests, "/v1/queues/claim"), 1, "the slow item came with the quick one's completion");
    const beats = requests.filter((r) => r.path === "/v1/queues/heartbeat" && r.body.itemId === slow);
    assert.ok(beats.length >= 3, `${beats.length} heartbeats kept the next claim through twice its claimMs`);
    assert.equal((await client.queueItem(queue, slow)).completedBy, "w");

    // Its heartbeats cut off, a next claim lapses at its margin and refuses to complete.
    const [gated, last] = await enqueueAll(client, queue, [{ n: 3 }, { n: 4 }]);
    const cutOff = new WorkClaimer(
      {
        claim: (args) => client.claim(args),
        complete: (args) => client.complete(args),
        fail: (args) => client.fail(args),
        heartbeat: ({ signal }) => new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
      },
      { queue, workerId: "cut-off", claimMs: CLAIM_MS, marginMs: MARGIN_MS },
    );
    const claim = await cutOff.claim();
    assert.equal(claim.item.id, gated);
    const { next } = await claim.complete(null, { claimNext: true });
    assert.equal(next.item.id, last);
    assert.equal(next.isSafelyHeld(), true);
    await new Promise((resolve) => next.signal.addEventListener("abort", resolve, { once: true }));
    await assert.rejects(next.complete(null), (error) => error.code === "ERR_CLAIM_LOST");
  });

  it("a failure report brings the next claim too", { timeout: 30_000 }, async () => {
    const queue = "failing";
    const itemIds = await enqueueAll(client, queue, [{ failOnce: true }, { n: 2 }, { n: 3 }]);
    const { grantor: recorded, requests } = recordingGrantor(grantor.url);
    const claimer = new WorkClaimer(recorded, { queue, workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS });
    const { counts, report } = await drain(claimer, client, (item) => {
      if (item.payload.failOnce && item.attempts === 1) throw new Error("first attempt fails");
      return "ok";
    });
    assert.deepEqual(counts, { claimed: 4, completed: 3, failed: 1, lost: 0 });
    await assertCompletedExactlyOnce(assert, client, queue, itemIds, [report]);
    const fails = requests.filter((r) => r.path === "/v1/queues/fail");
    assert.equal(fails.length, 1);
    assert.equal(fails[0].body.claimNext.claimMs, CLAIM_MS);
    assert.equal(countOf(requests, "/v1/queues/claim"), 1);
  });

  it("a stopping worker asks for no next claim", { timeout: 30_000 }, async () => {
    const queue = "stopping";
    const [first, second] = await enqueueAll(client, queue, [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    const { grantor: recorded, requests } = recordingGrantor(grantor.url);
    const claimer = new WorkClaimer(recorded, { queue, workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS });
    const stop = new AbortController();
    const handled = [];
    const counts = await claimer.process(
      (item) => {
        handled.push(item.id);
        if (item.id === second) stop.abort();
        return "ok";
      },
      { signal: stop.signal },
    );
    assert.deepEqual(handled, [first, second]);
    assert.deepEqual(counts, { claimed: 2, completed: 2, failed: 0, lost: 0 });
    const completes = requests.filter((r) => r.path === "/v1/queues/complete");
    assert.deepEqual(completes.map((r) => r.body.claimNext !== undefined), [true, false]);
    assert.deepEqual(await client.queueStats(queue), { queue, pending: 2, claimed: 0, done: 2, dead: 0 });
  });

  it("the grantor refuses a field it does not know with 400 unknown_field", async () => {
    // What a grantor that predates claimNext answers it, and what HttpGrantor's fallback keys on.
    const response = await fetch(`${grantor.url}/v1/queues/complete`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: "q", itemId: 1, worker: "w", token: 1, claimNextt: { claimMs: 1000 } }),
    });
    assert.equal(response.status, 400);
    assert.equal((await response.json()).error.code, "unknown_field");
  });

  it("against a grantor that refuses claimNext: one refusal, then plain settlements and claims", { timeout: 60_000 }, async () => {
    const queue = "old-grantor";
    const itemIds = await enqueueAll(client, queue, [{ failOnce: true }, ...Array.from({ length: 9 }, (_, n) => ({ n }))]);
    // The real grantor behind a proxy that answers any claimNext as a grantor without it does.
    const seen = [];
    const forward = (path) => async (body) => {
      seen.push({ path, claimNext: body.claimNext !== undefined });
      if (body.claimNext !== undefined) {
        return [400, { error: { code: "unknown_field", message: "unknown field `claimNext`" } }];
      }
      const response = await fetch(`${grantor.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return [response.status, await response.json()];
    };
    const paths = ["/v1/queues/claim", "/v1/queues/heartbeat", "/v1/queues/complete", "/v1/queues/fail", "/v1/queues/stats"];
    const proxy = await fakeServer(Object.fromEntries(paths.map((path) => [path, forward(path)])));
    try {
      const old = new HttpGrantor({ baseUrl: proxy.url });
      const claimer = new WorkClaimer(old, { queue, workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS });
      const { counts, report } = await drain(claimer, old, (item) => {
        if (item.payload.failOnce && item.attempts === 1) throw new Error("first attempt fails");
        return "ok";
      });
      assert.deepEqual(counts, { claimed: 11, completed: 10, failed: 1, lost: 0 });
      await assertCompletedExactlyOnce(assert, client, queue, itemIds, [report]);
      assert.equal(seen.filter((s) => s.claimNext).length, 1, "refused once, remembered");
      const settlements = seen.filter((s) => !s.claimNext && (s.path.endsWith("/complete") || s.path.endsWith("/fail")));
      assert.equal(settlements.length, 11);
      // The first claim, then one after every settlement (the last finding nothing).
      assert.equal(seen.filter((s) => s.path === "/v1/queues/claim").length, 12);
    } finally {
      proxy.close();
    }
  });
});

describe("claimNext against a grantor whose next claim is malformed", () => {
  const claimReply = (id, token) => ({
    claimed: true,
    item: { id, payload: { n: id }, attempts: 1, maxAttempts: 3 },
    token,
    claimMs: CLAIM_MS,
    claimSecret: `secret-${id}`,
  });
  const malformed = {
    "an item id that is not a number": { ...claimReply(2, 2), item: { id: "two", payload: null, attempts: 1, maxAttempts: 3 } },
    "no token": { claimed: true, item: claimReply(2, 2).item, claimMs: CLAIM_MS },
    "a negative claimMs": { ...claimReply(2, 2), claimMs: -5 },
    "a claimed flag that is a string": { ...claimReply(2, 2), claimed: "true" },
    "null": null,
    "a string": "claimed",
  };

  for (const [name, next] of Object.entries(malformed)) {
    it(`${name}: an error, never a claim`, async () => {
      let claims = 0;
      const server = await fakeServer({
        "/v1/queues/claim": () => [200, claims++ === 0 ? claimReply(1, 1) : { claimed: false }],
        "/v1/queues/heartbeat": (body) => [200, { extended: true, token: body.token, claimMs: CLAIM_MS }],
        "/v1/queues/complete": (body) => [200, { completed: true, token: body.token, next }],
        "/v1/queues/fail": () => [200, { state: "pending", attempts: 1, maxAttempts: 3 }],
      });
      try {
        const grantor = new HttpGrantor({ baseUrl: server.url });
        const claimer = new WorkClaimer(grantor, { queue: "q", workerId: "w", claimMs: CLAIM_MS, marginMs: MARGIN_MS });
        const claim = await claimer.claim();
        const reply = await claim.complete(null, { claimNext: true });
        assert.equal(reply.completed, true, "the completion stands");
        assert.equal(reply.next, null);
        assert.equal(reply.nextError.code, "ERR_GRANTOR");
        assert.equal(reply.nextError.kind, "malformed_reply");

        // In a worker loop: the handler sees only the real claim, then the loop backs off and asks
        // again as after an empty claim.
        claims = 0;
        const stop = new AbortController();
        const handled = [];
        let idle = 0;
        const counts = await claimer.process((item) => handled.push(item.id), {
          signal: stop.signal,
          idleDelayMs: 5,
          onIdle: () => {
            if (++idle === 2) stop.abort();
          },
        });
        assert.deepEqual(handled, [1]);
        assert.deepEqual(counts, { claimed: 1, completed: 1, failed: 0, lost: 0 });
        assert.equal(claims, 2, "one claim asked apart after the malformed next");
      } finally {
        server.close();
      }
    });
  }
});
