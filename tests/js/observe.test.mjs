// observe(): who holds a resource, change by change. Against the reference grantor on SQLite and
// PostgreSQL (its /v1/watch long poll, also across two grantor processes on one database),
// against grantors that offer only status(), and against hostile endpoints.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { HttpGrantor, LeaseHolder, observe, isLeaseError } from "tenure";
import { startGrantor } from "./support/grantor-process.mjs";
import { startPostgres } from "./support/postgres.mjs";
import { sleep } from "./support/memory-grantor.mjs";

/** The next value of `observation`, failing after `ms`. */
async function nextWithin(observation, ms = 5_000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no change within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([observation.next(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Values of `observation` until one satisfies `done`, failing after `ms`. */
async function until(observation, done, ms = 5_000) {
  const seen = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const { value } = await nextWithin(observation, Math.max(1, deadline - Date.now()));
    seen.push(value);
    if (done(value)) return seen;
  }
}

/** Values of `observation` until none comes for `quietMs`. */
async function quietAfter(observation, quietMs) {
  const seen = [];
  for (;;) {
    try {
      seen.push((await nextWithin(observation, quietMs)).value);
    } catch {
      return seen;
    }
  }
}

function increasing(changes) {
  for (let i = 1; i < changes.length; i++) {
    assert.ok(changes[i].version > changes[i - 1].version, `versions out of order: ${JSON.stringify(changes)}`);
  }
}

const config = (resource, holderId) => ({ resource, holderId, leaseMs: 1_500, marginMs: 300 });

function againstGrantor(label, start) {
  describe(`against the reference grantor (${label})`, () => {
    let grantors;
    let writer;
    let watcher;

    before(async () => {
      grantors = await start();
      writer = new HttpGrantor({ baseUrl: grantors.writer.url });
      watcher = new HttpGrantor({ baseUrl: grantors.watcher.url });
    });

    after(async () => {
      await grantors?.stop();
    });

    it("yields the current state first, then each grant and release", async () => {
      const resource = `observe-${label}-basic`;
      const controller = new AbortController();
      const observation = watcher.observe(resource, { signal: controller.signal });
      const first = (await nextWithin(observation)).value;
      assert.equal(first.holder, null);
      assert.equal(first.token, null);
      assert.equal(typeof first.version, "number");
      assert.equal(typeof first.since, "number");

      const a = new LeaseHolder(writer, config(resource, "a"));
      const { token } = await a.acquire();
      const held = (await nextWithin(observation)).value;
      assert.equal(held.holder, "a");
      assert.equal(held.token, token);
      assert.ok(held.expiresInMs > 0 && held.expiresInMs <= 1_500);
      assert.equal(observation.current.holder, "a");

      await a.release();
      const freed = (await nextWithin(observation)).value;
      assert.equal(freed.holder, null);
      increasing([first, held, freed]);

      controller.abort();
      assert.deepEqual(await observation.next(), { value: undefined, done: true });
    });

    it("sees an expiry without anyone asking", async () => {
      const resource = `observe-${label}-expiry`;
      // Granted directly, never renewed: the grant runs out 600 ms later.
      const signal = new AbortController().signal;
      const grant = { resource, holder: "a", durationMs: 600, requestId: "expiry-1", signal };
      assert.equal((await writer.grant(grant)).granted, true);
      const observation = watcher.observe(resource);
      const seen = await until(observation, (c) => c.holder === null, 8_000);
      assert.equal(seen[0].holder, "a");
      increasing(seen);
      observation.close();
    });

    it("many watchers see a handover between holders in order", async () => {
      const resource = `observe-${label}-many`;
      const observations = Array.from({ length: 5 }, () => watcher.observe(resource));
      for (const o of observations) assert.equal((await nextWithin(o)).value.holder, null);
      for (const id of ["a", "b", "c"]) {
        const holder = new LeaseHolder(writer, config(resource, id));
        assert.equal((await holder.acquire()).acquired, true);
        await holder.release();
      }
      for (const o of observations) {
        // Changes that come and go between two replies are coalesced: each watcher sees some of
        // the holders, in order, and ends with nobody holding the resource.
        const seen = await quietAfter(o, 1_000);
        increasing(seen);
        assert.equal(o.current.holder, null);
        const holders = seen.map((c) => c.holder).filter((h) => h !== null);
        assert.deepEqual(holders, ["a", "b", "c"].filter((h) => holders.includes(h)));
        o.close();
      }
    });
  });
}

againstGrantor("sqlite", async () => {
  const grantor = await startGrantor();
  return { writer: grantor, watcher: grantor, stop: () => grantor.stop() };
});

againstGrantor("postgres, two processes", async () => {
  const postgres = await startPostgres();
  const url = await postgres.createDatabase();
  const writer = await startGrantor({ postgres: url });
  const watcher = await startGrantor({ postgres: url });
  return {
    writer,
    watcher,
    stop: async () => {
      await writer.stop();
      await watcher.stop();
      await postgres.stop();
    },
  };
});

describe("a grantor that offers only status()", () => {
  it("is polled, and yields only newer states", async () => {
    const replies = [
      { holder: null, token: null, expiresInMs: null },
      { holder: "a", token: 4, expiresInMs: 900 },
      { holder: "a", token: 4, expiresInMs: 700 },
      // A stale read (a lagging replica): older than token 4, never yielded.
      { holder: "z", token: 3, expiresInMs: 900 },
      { holder: null, token: null, expiresInMs: null },
      { holder: "b", token: 5, expiresInMs: 900 },
    ];
    let calls = 0;
    const grantor = {
      async status(resource, { signal }) {
        assert.equal(resource, "polled");
        assert.ok(signal instanceof AbortSignal);
        return replies[Math.min(calls++, replies.length - 1)];
      },
    };
    const observation = observe(grantor, "polled");
    const seen = await until(observation, (c) => c.holder === "b");
    assert.deepEqual(
      seen.map((c) => [c.holder, c.token]),
      [[null, null], ["a", 4], [null, null], ["b", 5]],
    );
    increasing(seen);
    observation.close();
    const callsAtClose = calls;
    await sleep(300);
    assert.equal(calls, callsAtClose, "no poll after close()");
  });

  it("retries a failing or malformed status, and rejects when there is no status()", async () => {
    let calls = 0;
    const grantor = {
      async status() {
        calls++;
        if (calls === 1) throw new Error("network down");
        if (calls === 2) return { holder: "a", token: -1, expiresInMs: 5 };
        return { holder: "a", token: 2, expiresInMs: 500 };
      },
    };
    const observation = observe(grantor, "flaky");
    const { value } = await nextWithin(observation);
    assert.deepEqual([value.holder, value.token, calls], ["a", 2, 3]);
    observation.close();

    const none = observe({}, "nothing");
    await assert.rejects(none.next(), (e) => isLeaseError(e) && e.code === "ERR_GRANTOR" && e.kind === "bad_request");
  });
});

describe("against hostile watch endpoints", () => {
  let server;
  let url;
  let handler;

  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => handler(JSON.parse(body), res));
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${server.address().port}`;
  });

  after(() => server.close());

  const reply = (res, status, value) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(typeof value === "string" ? value : JSON.stringify(value));
  };
  const state = (version, holder = null) => ({
    resource: "r",
    version,
    holder,
    token: holder ? Math.floor(version / 2) : null,
    expiresInMs: holder ? 1000 : null,
  });

  it("skips malformed and stale replies, and resynchronises after them", async () => {
    const script = [
      (res) => reply(res, 200, state(4, "a")),
      (res) => reply(res, 200, '{"resource":"r","version":5,"version":6}'),
      (res) => reply(res, 200, { ...state(6, "b"), resource: "other" }),
      (res) => reply(res, 200, { ...state(6, "b"), token: "6" }),
      (res) => reply(res, 503, { error: { code: "unavailable", message: "later" } }),
      (res) => reply(res, 200, state(2, "old")),
      (res) => reply(res, 200, state(7)),
    ];
    const requests = [];
    handler = (request, res) => {
      requests.push(request);
      const step = script[Math.min(requests.length - 1, script.length - 1)];
      if (requests.length > script.length) return reply(res, 200, state(7));
      step(res);
    };
    const observation = new HttpGrantor({ baseUrl: url }).observe("r");
    const seen = await until(observation, (c) => c.version === 7, 15_000);
    assert.deepEqual(
      seen.map((c) => [c.version, c.holder]),
      [[4, "a"], [7, null]],
    );
    // The first request is a snapshot. After a failure the next one resumes after what was
    // reported; after a second failure in a row the next ones are snapshots, until one succeeds.
    assert.equal(requests[0].after, undefined);
    assert.equal(requests[1].after, 4);
    assert.equal(requests[2].after, 4);
    assert.ok(requests.slice(3, 6).every((r) => r.after === undefined), JSON.stringify(requests));
    observation.close();
  });

  it("ends with the error when the grantor refuses the request", async () => {
    handler = (_, res) => reply(res, 403, { error: { code: "forbidden", message: "no" } });
    const observation = new HttpGrantor({ baseUrl: url }).observe("r");
    await assert.rejects(observation.next(), (e) => e.code === "ERR_GRANTOR" && e.kind === "bad_request" && e.status === 403);
    await assert.rejects(observation.next(), (e) => e.status === 403);
  });

  it("refuses a bad resource or signal at once", () => {
    const grantor = new HttpGrantor({ baseUrl: url });
    assert.throws(() => grantor.observe(42), (e) => e.code === "ERR_GRANTOR");
    assert.throws(() => grantor.observe("r", { signal: {} }), (e) => e.code === "ERR_GRANTOR");
  });
});
