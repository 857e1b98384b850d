// DenoKvGrantor's own behaviour over a real Deno KV (a local SQLite file), beyond the conformance
// suite: its options, what it writes, Deno KV's limits (values, checks per atomic operation),
// busy databases, aborts, and watches. Run under `deno test` by grantor.test.mjs, which passes the
// database's directory as the first argument.

import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { DenoKvGrantor } from "tenure/deno-kv";
import { isLeaseError } from "tenure";
import { DatabaseSync } from "node:sqlite";

const dir = Deno.args[0];
if (!dir) throw new Error("usage: deno test ... grantor.deno.mjs -- <directory for the databases>");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const opened = [];
let databases = 0;

/** A fresh database file in `dir`, closed after the tests. */
async function openKv() {
  const path = `${dir}/grantor-${(databases += 1)}.sqlite3`;
  const kv = await Deno.openKv(path);
  opened.push(kv);
  return Object.assign(kv, { path });
}

after(() => {
  for (const kv of opened) kv.close();
});

/**
 * `kv` with faults injected: `faults.commit` and `faults.get` are lists of errors thrown, one per
 * call, before calls go through; `faults.afterGetMany(keys)` runs after each `getMany` read,
 * before its result is returned (another writer landing right after a read). `faults.commits`,
 * if an array, gets the number of checks of each atomic operation committed.
 */
function faulty(kv, faults) {
  return new Proxy(kv, {
    get(target, name) {
      if (name === "atomic") {
        return () => {
          const operation = target.atomic();
          const [check, commit] = [operation.check.bind(operation), operation.commit.bind(operation)];
          let checks = 0;
          operation.check = (...some) => {
            checks += some.length;
            return check(...some);
          };
          operation.commit = async () => {
            const error = faults.commit?.shift();
            if (error) throw error;
            faults.commits?.push(checks);
            return commit();
          };
          return operation;
        };
      }
      if (name === "get") {
        return async (...args) => {
          const error = faults.get?.shift();
          if (error) throw error;
          return target.get(...args);
        };
      }
      if (name === "getMany") {
        return async (keys, ...rest) => {
          const entries = await target.getMany(keys, ...rest);
          await faults.afterGetMany?.(keys);
          return entries;
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// A local database is shared by processes on one machine, one clock: no skew to allow for.
const options = { clockSkewMs: 0 };
const grantArgs = (resource, holder) => ({ resource, holder, durationMs: 5_000, requestId: crypto.randomUUID() });

describe("DenoKvGrantor", () => {
  it("refuses what is not a Deno.Kv, and bad options, with ERR_LEASE_CONFIG naming the field", async () => {
    const kv = await openKv();
    const fields = (make) => {
      try {
        make();
      } catch (error) {
        assert.ok(isLeaseError(error), String(error));
        assert.equal(error.code, "ERR_LEASE_CONFIG");
        return error.field;
      }
      assert.fail("no error thrown");
    };
    assert.equal(fields(() => new DenoKvGrantor({})), "kv");
    assert.equal(fields(() => new DenoKvGrantor(kv, { prefix: "tenure" })), "prefix");
    assert.equal(fields(() => new DenoKvGrantor(kv, { clockSkewMs: -1 })), "clockSkewMs");
    assert.equal(fields(() => new DenoKvGrantor(kv, { watchPollMs: 1.5 })), "watchPollMs");
    assert.equal(fields(() => new DenoKvGrantor(kv, { minDurationMs: 2_000, maxDurationMs: 1_000 })), "maxDurationMs");
  });

  it("keeps its records under the prefix, never with an expiry, and the lease record after a release", async () => {
    const kv = await openKv();
    const grantor = new DenoKvGrantor(kv, { ...options, prefix: ["apps", "billing"] });
    const first = await grantor.grant(grantArgs("jobs-1", "a"));
    assert.equal(first.granted, true);
    await grantor.release({ resource: "jobs-1", holder: "a", token: first.token });
    const keys = [];
    for await (const entry of kv.list({ prefix: [] })) keys.push(entry.key);
    assert.deepEqual(keys, [["apps", "billing", "lease", "jobs-1"], ["apps", "billing", "serverKey"]]);
    // Tokens only grow because the record outlives every grant: it must not be given an expiry,
    // which Deno KV may act on at any time after it. The SQLite table says whether one was set.
    const second = await grantor.grant(grantArgs("jobs-1", "b"));
    assert.ok(second.token > first.token);
    const sqlite = new DatabaseSync(kv.path, { readOnly: true });
    try {
      const { rows, expiring } = sqlite
        .prepare("select count(*) as rows, count(*) filter (where expiration_ms >= 0) as expiring from kv")
        .get();
      assert.deepEqual([rows, expiring], [2, 0]);
    } finally {
      sqlite.close();
    }
    const other = new DenoKvGrantor(kv, options); // another prefix: another grantor's records
    assert.equal((await other.grant(grantArgs("jobs-1", "c"))).token, 1);
  });

  it("stores a fenced payload of any text Deno KV can hold, up to the protocol's limit", async () => {
    const kv = await openKv();
    const grantor = new DenoKvGrantor(kv, options);
    const { token } = await grantor.grant(grantArgs("fenced", "a"));
    // 40,000 ASCII characters and one emoji: 40,004 bytes of UTF-8, well within the protocol's
    // payload limit, but as a JavaScript string it is two bytes a character (80 KB), past Deno KV's
    // 64 KiB for a value.
    const payload = `${"x".repeat(40_000)}😀`;
    const written = await grantor.fencedWrite("fenced", payload, token);
    assert.equal(written.accepted, true);
    assert.equal((await grantor.fencedRead("fenced")).payload, payload);
  });

  it("renews a batch of more resources than one atomic operation may check", async () => {
    const kv = await openKv();
    // Deno KV allows 100 checks in one atomic operation; each renewal checks its resource's record.
    const faults = {};
    const grantor = new DenoKvGrantor(faulty(kv, faults), { ...options, batchRenewals: { maxDelayMs: 200 } });
    const resources = Array.from({ length: 150 }, (_, i) => `batch-${i}`);
    const grants = await Promise.all(resources.map((resource) => grantor.grant(grantArgs(resource, "a"))));
    faults.commits = [];
    const renewed = await Promise.all(
      resources.map((resource, i) =>
        grantor.renew({ resource, holder: "a", token: grants[i].token, durationMs: 5_000, requestId: crypto.randomUUID() }),
      ),
    );
    assert.deepEqual(
      renewed.map((reply) => reply.renewed),
      resources.map(() => true),
    );
    // The renewals went out together (else this would not test a batch): commits checked several
    // records each, none more than Deno KV allows, and all 150 between them.
    assert.ok(Math.max(...faults.commits) > 1, `checks per commit: ${faults.commits}`);
    assert.ok(Math.max(...faults.commits) <= 100, `checks per commit: ${faults.commits}`);
    assert.equal(faults.commits.reduce((sum, checks) => sum + checks, 0), 150);
  });

  it("retries a commit or read that found the database locked, instead of failing the request", async () => {
    const kv = await openKv();
    const locked = () => new TypeError("database is locked");
    const faults = { commit: [locked(), locked(), locked()], get: [locked(), locked()] };
    // The first get and commit are the server key's, made on first use.
    const grantor = new DenoKvGrantor(faulty(kv, faults), options);
    const granted = await grantor.grant(grantArgs("busy", "a"));
    assert.equal(granted.granted, true);
    faults.commit.push(locked(), locked());
    const renewed = await grantor.renew({ resource: "busy", holder: "a", token: granted.token, durationMs: 5_000, requestId: crypto.randomUUID() });
    assert.equal(renewed.renewed, true);
    assert.deepEqual([faults.commit.length, faults.get.length], [0, 0], "every fault was met");
  });

  it("recovers when making its server key failed: the next request tries again", async () => {
    const kv = await openKv();
    const faults = { get: [new Error("the disk was full")] };
    const grantor = new DenoKvGrantor(faulty(kv, faults), options);
    await assert.rejects(grantor.grant(grantArgs("key", "a")), (error) => isLeaseError(error) && error.kind === "unreachable");
    assert.equal((await grantor.grant(grantArgs("key", "a"))).granted, true);
  });

  it("gives up on a call at its timeoutMs, though the store has not answered", async () => {
    const kv = await openKv();
    const faults = {};
    const grantor = new DenoKvGrantor(faulty(kv, faults), { ...options, timeoutMs: 500 });
    assert.equal((await grantor.grant(grantArgs("slow", "a"))).granted, true);
    faults.afterGetMany = () => sleep(3_000); // a store that hangs for longer than the timeout
    const sentAt = performance.now();
    await assert.rejects(grantor.status("slow"), (error) => isLeaseError(error) && error.kind === "timed_out");
    const tookMs = performance.now() - sentAt;
    assert.ok(tookMs < 2_500, `the call ended ${Math.round(tookMs)} ms after it was made`);
    faults.afterGetMany = null;
  });

  it("sees a change that lands between a watch's read and its wait", async () => {
    const kv = await openKv();
    const other = new DenoKvGrantor(kv, options);
    let landed = null;
    const faults = {};
    const grantor = new DenoKvGrantor(faulty(kv, faults), options);
    const observation = grantor.observe("gap");
    assert.equal((await observation.next()).value.holder, null);
    // The next watch reads the free resource; before it starts waiting, another grantor grants it.
    faults.afterGetMany = async () => {
      faults.afterGetMany = null;
      landed = performance.now();
      assert.equal((await other.grant(grantArgs("gap", "b"))).granted, true);
    };
    const next = await Promise.race([observation.next(), sleep(10_000).then(() => null)]);
    assert.ok(next, "the grant was not observed within 10 s");
    assert.equal(next.value.holder, "b");
    const tookMs = performance.now() - landed;
    assert.ok(tookMs < 2_000, `observed ${Math.round(tookMs)} ms after the grant`);
    await observation.return();
  });
});
