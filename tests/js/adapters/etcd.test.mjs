// EtcdGrantor against a real etcd 3.4 (started by the test on 127.0.0.1, stopped afterwards), and
// against a crafted gateway that answers whatever a test tells it to.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdGrantor, LeaseHolder, isLeaseError } from "tenure";
import { startFaultProxy } from "../../fault-proxy/proxy.mjs";
import {
  b64,
  etcdCall,
  etcdLeases,
  etcdView,
  fencedGet,
  fencedPut,
  lockKey,
  spawnModule,
  startEtcd,
} from "../support/etcd.mjs";
import { startWorkerd } from "../support/workerd.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const supportUrl = new URL("../support/etcd.mjs", import.meta.url).href;
const repo = new URL("../../../", import.meta.url).pathname;

/** Resolves once `predicate()` is true, polling; rejects after `maxMs`. */
async function eventually(predicate, maxMs, what) {
  const start = performance.now();
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (performance.now() - start > maxMs) throw new Error(`not within ${maxMs} ms: ${what}`);
    await sleep(20);
  }
}

/** Asserts `promise` rejects with `ERR_GRANTOR` of `kind`; returns the error. */
async function rejectsWith(promise, kind, what) {
  let error;
  try {
    const value = await promise;
    assert.fail(`${what}: resolved ${JSON.stringify(value)} instead of failing`);
  } catch (caught) {
    error = caught;
  }
  assert.ok(isLeaseError(error), `${what}: ${error?.stack ?? error}`);
  assert.equal(error.code, "ERR_GRANTOR", `${what}: ${error.message}`);
  assert.equal(error.kind, kind, `${what}: ${error.message}`);
  return error;
}

const args = (resource, holder, extra = {}) => ({
  resource,
  holder,
  durationMs: 2_000,
  requestId: Math.random().toString(36).slice(2),
  ...extra,
});

describe("EtcdGrantor against a real etcd", () => {
  let etcd;
  let grantor;

  before(async () => {
    etcd = await startEtcd();
    grantor = new EtcdGrantor({ baseUrl: etcd.url });
  });

  after(async () => {
    await etcd?.cleanup();
  });

  it("grants, denies, renews and releases; the token is the key's create_revision", async () => {
    const granted = await grantor.grant(args("basic", "a"));
    assert.equal(granted.granted, true);
    const view = await etcdView(etcd.url, "basic");
    assert.equal(view.holder, "a");
    assert.equal(granted.token, view.createRevision, "token = create_revision");
    assert.ok(view.ttlSeconds >= 1 && view.ttlSeconds <= 2, `the key lives on a 2 s lease: ${view.ttlSeconds}`);
    assert.equal(granted.durationMs, 2_000);

    const denied = await grantor.grant(args("basic", "b"));
    assert.equal(denied.granted, false);
    assert.equal(denied.holder, "a");
    assert.ok(denied.expiresInMs > 0 && denied.expiresInMs <= 2_000, `expiresInMs ${denied.expiresInMs}`);
    assert.deepEqual(await etcdLeases(etcd.url), [view.lease], "the denied grant's lease was revoked");

    await sleep(1_200);
    const renewed = await grantor.renew(args("basic", "a", { token: granted.token }));
    assert.deepEqual(renewed, { renewed: true, token: granted.token, durationMs: 2_000 });
    await sleep(1_200); // past the first TTL: only the keepalive kept the key
    assert.equal((await etcdView(etcd.url, "basic"))?.createRevision, granted.token);

    assert.deepEqual(await grantor.release(args("basic", "a", { token: granted.token })), { released: true });
    assert.equal(await etcdView(etcd.url, "basic"), null, "the key is gone");
    assert.deepEqual(await etcdLeases(etcd.url), [], "and so is its lease");
    assert.deepEqual(await grantor.release(args("basic", "a", { token: granted.token })), { released: false });

    const next = await grantor.grant(args("basic", "b"));
    assert.equal(next.granted, true);
    assert.ok(next.token > granted.token, `${next.token} > ${granted.token}`);
    await grantor.release(args("basic", "b", { token: next.token }));
  });

  it("issues increasing tokens across resources and holders (etcd's one revision counter)", async () => {
    const tokens = [];
    for (let i = 0; i < 6; i += 1) {
      const resource = `counter-${i % 2}`;
      const holder = `h${i % 3}`;
      const granted = await grantor.grant(args(resource, holder));
      assert.equal(granted.granted, true);
      tokens.push(granted.token);
      assert.equal((await etcdView(etcd.url, resource)).createRevision, granted.token);
      await grantor.release(args(resource, holder, { token: granted.token }));
    }
    for (let i = 1; i < tokens.length; i += 1) assert.ok(tokens[i] > tokens[i - 1], tokens.join(", "));
  });

  it("rounds durations up to whole seconds and reports the TTL etcd granted", async () => {
    const longer = await grantor.grant(args("ttl-up", "a", { durationMs: 2_001 }));
    assert.equal(longer.durationMs, 3_000);
    const granted = await etcdCall(etcd.url, "/v3/lease/timetolive", { ID: (await etcdView(etcd.url, "ttl-up")).lease });
    assert.equal(granted.grantedTTL, "3");
    // Below etcd's minimum (1.5 election timeouts, 2 s here) etcd raises the TTL: the reply says so.
    const raised = await grantor.grant(args("ttl-min", "a", { durationMs: 300 }));
    assert.equal(raised.durationMs, 2_000);
    await grantor.release(args("ttl-up", "a", { token: longer.token }));
    await grantor.release(args("ttl-min", "a", { token: raised.token }));
  });

  it("answers a retried grant with the same grant and only the time its lease has left", async () => {
    const first = await grantor.grant(args("retry", "a", { durationMs: 3_000 }));
    const firstReplyAt = performance.now();
    assert.equal(first.durationMs, 3_000);
    const leases = await etcdLeases(etcd.url);
    await sleep(1_100);
    const retrySentAt = performance.now();
    const retried = await grantor.grant(args("retry", "a", { durationMs: 3_000 }));
    assert.equal(retried.granted, true);
    assert.equal(retried.token, first.token, "same token");
    // The original lease began before its reply came: it has at most this much left.
    const left = 3_000 - (retrySentAt - firstReplyAt);
    assert.ok(retried.durationMs >= 1_000 && retried.durationMs <= left, `${retried.durationMs} ms of ${left}`);
    assert.deepEqual(await etcdLeases(etcd.url), leases, "the retry's own lease was revoked");
    // The holder renews it back to a full TTL.
    const renewal = args("retry", "a", { token: first.token });
    const renewSentAt = performance.now();
    const renewed = await grantor.renew(renewal);
    assert.equal(renewed.durationMs, 3_000);
    // A retried renewal (same requestId) is answered like the original: no more than it has left.
    await sleep(400);
    const again = await grantor.renew(renewal);
    assert.equal(again.renewed, true);
    assert.ok(again.durationMs <= 3_000 - 400, `the retry promises ${again.durationMs} ms`);
    assert.ok(again.durationMs >= 3_000 - (performance.now() - renewSentAt) - 1);
    assert.equal((await grantor.renew({ ...renewal, requestId: "another" })).durationMs, 3_000, "a new attempt");
    await grantor.release(args("retry", "a", { token: first.token }));
  });

  it("refuses a renewal once the lease is gone (expired) or the key was deleted under it (not_holder)", async () => {
    // The lease revoked behind the adapter's back: the keepalive finds nothing.
    const first = await grantor.grant(args("gone", "a"));
    const { lease } = await etcdView(etcd.url, "gone");
    await etcdCall(etcd.url, "/v3/lease/revoke", { ID: lease });
    assert.deepEqual(await grantor.renew(args("gone", "a", { token: first.token })), {
      renewed: false,
      reason: "expired",
    });

    // The key deleted while its lease lives on: a keepalive alone would look like a renewal.
    const second = await grantor.grant(args("gone", "a"));
    const secondLease = (await etcdView(etcd.url, "gone")).lease;
    await etcdCall(etcd.url, "/v3/kv/deleterange", { key: b64(lockKey("gone")) });
    assert.deepEqual(await grantor.renew(args("gone", "a", { token: second.token })), {
      renewed: false,
      reason: "not_holder",
    });
    assert.ok(!(await etcdLeases(etcd.url)).includes(secondLease), "the orphaned lease was revoked");

    // The key re-created by someone else under their own lease.
    const third = await grantor.grant(args("gone", "a"));
    await etcdCall(etcd.url, "/v3/kv/deleterange", { key: b64(lockKey("gone")) });
    const theirs = await new EtcdGrantor({ baseUrl: etcd.url }).grant(args("gone", "b"));
    assert.equal(theirs.granted, true);
    assert.deepEqual(await grantor.renew(args("gone", "a", { token: third.token })), {
      renewed: false,
      reason: "not_holder",
    });
    assert.equal((await etcdView(etcd.url, "gone")).holder, "b", "b's grant is untouched");
    await grantor.release(args("gone", "b", { token: theirs.token }));
  });

  it("renews a grant made by another instance, finding its lease through the key", async () => {
    const granted = await grantor.grant(args("elsewhere", "a"));
    const other = new EtcdGrantor({ baseUrl: etcd.url });
    const renewed = await other.renew(args("elsewhere", "a", { token: granted.token }));
    assert.deepEqual(renewed, { renewed: true, token: granted.token, durationMs: 2_000 });
    assert.deepEqual(await other.renew(args("elsewhere", "b", { token: granted.token })), {
      renewed: false,
      reason: "not_holder",
    });
    assert.deepEqual(await other.renew(args("elsewhere", "a", { token: granted.token + 1 })), {
      renewed: false,
      reason: "not_holder",
    });
    assert.deepEqual(await other.release(args("elsewhere", "a", { token: granted.token })), { released: true });
    assert.deepEqual(await etcdLeases(etcd.url), [], "release found and revoked the lease");
  });

  it("never releases a newer grant, and keeps resources apart under a key prefix", async () => {
    const old = await grantor.grant(args("newer", "a"));
    await etcdCall(etcd.url, "/v3/lease/revoke", { ID: (await etcdView(etcd.url, "newer")).lease });
    const newer = await grantor.grant(args("newer", "a"));
    assert.ok(newer.token > old.token);
    assert.deepEqual(await grantor.release(args("newer", "a", { token: old.token })), { released: false });
    assert.equal((await etcdView(etcd.url, "newer")).createRevision, newer.token, "the newer grant stands");
    await grantor.release(args("newer", "a", { token: newer.token }));

    const prefixed = new EtcdGrantor({ baseUrl: etcd.url, keyPrefix: "other-app/" });
    const here = await prefixed.grant(args("shared-name", "x"));
    const there = await grantor.grant(args("shared-name", "y"));
    assert.equal(here.granted && there.granted, true, "one name, two prefixes, two grants");
    const range = await etcdCall(etcd.url, "/v3/kv/range", { key: b64("other-app/shared-name") });
    assert.equal(Number(range.kvs[0].create_revision), here.token);
    await prefixed.release(args("shared-name", "x", { token: here.token }));
    await grantor.release(args("shared-name", "y", { token: there.token }));
  });

  it("refuses bad input with a clear error, never a grant", async () => {
    for (const [bad, what] of [
      [{ resource: "" }, "empty resource"],
      [{ resource: 7 }, "numeric resource"],
      [{ holder: undefined }, "missing holder"],
      [{ durationMs: 0 }, "zero duration"],
      [{ durationMs: Number.NaN }, "NaN duration"],
      [{ durationMs: "2000" }, "string duration"],
      [{ durationMs: 1e16 }, "a duration beyond etcd's longest lease"],
    ]) {
      const error = await rejectsWith(grantor.grant({ ...args("bad", "a"), ...bad }), "bad_request", what);
      assert.match(error.message, /resource|holder|durationMs/);
    }
    for (const token of [0, -1, 1.5, 2 ** 53, "3"]) {
      await rejectsWith(grantor.renew(args("bad", "a", { token })), "bad_request", `renew token ${token}`);
      await rejectsWith(grantor.release(args("bad", "a", { token })), "bad_request", `release token ${token}`);
    }
    assert.equal(await etcdView(etcd.url, "bad"), null);
    assert.throws(() => new EtcdGrantor({ baseUrl: "ftp://x" }), { code: "ERR_LEASE_CONFIG", field: "baseUrl" });
    assert.throws(() => new EtcdGrantor({ baseUrl: etcd.url, token: "" }), { field: "token" });
    assert.throws(() => new EtcdGrantor({ baseUrl: etcd.url, token: "t", headers: { Authorization: "x" } }), {
      field: "token",
    });
    assert.throws(() => new EtcdGrantor({ baseUrl: `${etcd.url}/?x=1` }), { field: "baseUrl" });
    assert.throws(() => new EtcdGrantor({ baseUrl: etcd.url, timeoutMs: 0 }), { field: "timeoutMs" });
  });

  // A grant, a renewal and a release with non-ASCII names: the base64 of keys and values must come
  // out right without Node's Buffer. The script is the same module text for both runtimes.
  const otherRuntimeScript = (url, resource) => `
    import { EtcdGrantor } from "tenure";
    export async function run() {
      const grantor = new EtcdGrantor({ baseUrl: ${JSON.stringify(url)} });
      const call = { resource: ${JSON.stringify(resource)}, holder: "wörker-ñ-東", durationMs: 2000, requestId: "1" };
      const granted = await grantor.grant(call);
      const denied = await grantor.grant({ ...call, holder: "другой" });
      const renewed = await grantor.renew({ ...call, token: granted.token });
      return { granted, denied, renewed, buffer: typeof globalThis.Buffer };
    }`;

  const checkOtherRuntime = async (outcome, resource) => {
    assert.equal(outcome.granted.granted, true, JSON.stringify(outcome));
    assert.equal(outcome.denied.granted, false);
    assert.equal(outcome.denied.holder, "wörker-ñ-東", "the holder's name decoded from base64");
    assert.ok(outcome.denied.expiresInMs > 0 && outcome.denied.expiresInMs <= 2_000);
    assert.equal(outcome.renewed.renewed, true);
    const view = await etcdView(etcd.url, resource);
    assert.equal(view.holder, "wörker-ñ-東", "etcd holds the holder's UTF-8 bytes");
    assert.equal(view.createRevision, outcome.granted.token);
    const range = await etcdCall(etcd.url, "/v3/kv/range", { key: b64(lockKey(resource)) });
    assert.equal(range.count, "1", "under the key's UTF-8 bytes");
    await grantor.release(args(resource, "wörker-ñ-東", { token: outcome.granted.token }));
  };

  it("works in workerd (no Buffer there), base64 and UTF-8 included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenure-etcd-worker-"));
    let worker;
    try {
      writeFileSync(
        join(dir, "main.js"),
        `${otherRuntimeScript(etcd.url, "wörk-ēr")}
        export default { fetch: async () => Response.json(await run()) };`,
      );
      worker = await startWorkerd({ fixtureDir: dir, entry: "main.js" });
      const outcome = await (await worker.fetch("/")).json();
      assert.equal(outcome.buffer, "undefined", "workerd has no Buffer without nodejs_compat");
      await checkOtherRuntime(outcome, "wörk-ēr");
    } finally {
      await worker?.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("works in Deno, reading the package by its deno condition", async () => {
    const code = `${otherRuntimeScript(etcd.url, "dëno")}\nconsole.log(JSON.stringify(await run()));`;
    const stdout = await new Promise((resolve, reject) => {
      execFile(join(repo, "node_modules/.bin/deno"), ["eval", "--no-lock", code], { cwd: repo, timeout: 60_000 }, (error, out, err) =>
        error ? reject(new Error(`deno: ${err || error.message}`)) : resolve(out),
      );
    });
    await checkOtherRuntime(JSON.parse(stdout), "dëno");
  });

  it("fails as unreachable when nothing listens, and gives up when etcd stops answering", async () => {
    const closed = new EtcdGrantor({ baseUrl: "http://127.0.0.1:9" });
    await rejectsWith(closed.grant(args("down", "a")), "unreachable", "closed port");
    // etcd stopped (SIGSTOP): the connection opens, nothing answers. The caller's signal, which
    // the holder aborts at its deadline, ends the wait.
    const waiting = new EtcdGrantor({ baseUrl: etcd.url });
    etcd.pause();
    try {
      const started = performance.now();
      await rejectsWith(
        waiting.grant(args("down", "a", { signal: AbortSignal.timeout(200) })),
        "unreachable",
        "aborted by the caller",
      );
      assert.ok(performance.now() - started < 3_000);
    } finally {
      etcd.resume();
    }
    assert.equal(await etcdView(etcd.url, "down"), null, "nothing was granted");
  });
});

describe("EtcdGrantor against etcd with authentication on", () => {
  let etcd;
  let token;

  before(async () => {
    etcd = await startEtcd();
    await etcdCall(etcd.url, "/v3/auth/user/add", { name: "root", password: "root-password" });
    await etcdCall(etcd.url, "/v3/auth/role/add", { name: "root" });
    await etcdCall(etcd.url, "/v3/auth/user/grant", { user: "root", role: "root" });
    await etcdCall(etcd.url, "/v3/auth/enable", {});
    ({ token } = await etcdCall(etcd.url, "/v3/auth/authenticate", { name: "root", password: "root-password" }));
  });

  after(async () => {
    await etcd?.cleanup();
  });

  it("works with the token sent raw, and fails clearly without it or with a Bearer prefix", async () => {
    const authed = new EtcdGrantor({ baseUrl: etcd.url, token });
    const granted = await authed.grant(args("auth", "a"));
    assert.equal(granted.granted, true);
    assert.equal((await authed.renew(args("auth", "a", { token: granted.token }))).renewed, true);
    assert.deepEqual(await authed.release(args("auth", "a", { token: granted.token })), { released: true });

    const anonymous = new EtcdGrantor({ baseUrl: etcd.url });
    const refused = await rejectsWith(anonymous.grant(args("auth", "b")), "bad_request", "no token");
    assert.match(refused.message, /user name is empty/);
    const bearer = new EtcdGrantor({ baseUrl: etcd.url, headers: { authorization: `Bearer ${token}` } });
    const invalid = await rejectsWith(bearer.grant(args("auth", "b")), "bad_request", "Bearer prefix");
    assert.equal(invalid.status, 401);
    assert.equal(invalid.grantorCode, "16");
  });
});

/**
 * A gateway that answers whatever `respond(path, body)` says: `{status, body, headers}` (body a
 * string or an object to send as JSON), `"hang"`, or undefined for a 404. Records every request.
 */
async function craftedGateway(respond) {
  const requests = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text === "" ? undefined : JSON.parse(text);
      requests.push({ path: request.url, headers: request.headers, body });
      const answer = respond(request.url, body);
      if (answer === "hang") return;
      if (answer === undefined) {
        response.writeHead(404).end();
        return;
      }
      const payload = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      response.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
      response.end(payload);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

const HEADER = { cluster_id: "1", member_id: "2", revision: "40", raft_term: "2" };
const LEASE = "7587872344178734612";

/** A well-formed grant: the lease, then a txn that created the key with `kv` fields overridden. */
function grantReplies(key, { lease = {}, txn, kv = {} } = {}) {
  const created = {
    key: b64(key),
    create_revision: "40",
    mod_revision: "40",
    version: "1",
    value: b64("a"),
    lease: LEASE,
    ...kv,
  };
  return (path) => {
    if (path === "/v3/lease/grant") return { body: { header: HEADER, ID: LEASE, TTL: "2", ...lease } };
    if (path === "/v3/kv/txn") {
      return {
        body: txn ?? {
          header: HEADER,
          succeeded: true,
          responses: [
            { response_put: { header: HEADER } },
            { response_range: { header: HEADER, kvs: [created], count: "1" } },
          ],
        },
      };
    }
    if (path === "/v3/lease/revoke" || path === "/v3/lease/timetolive") return { body: { header: HEADER, TTL: "1" } };
    return undefined;
  };
}

describe("EtcdGrantor against a crafted gateway", () => {
  const key = lockKey("r");

  it("accepts the well-formed reply it is built for (the baseline of the hostile cases)", async () => {
    const gateway = await craftedGateway(grantReplies(key));
    try {
      const reply = await new EtcdGrantor({ baseUrl: gateway.url }).grant(args("r", "a"));
      assert.deepEqual(reply, { granted: true, token: 40, durationMs: 2_000 });
    } finally {
      await gateway.close();
    }
  });

  const hostile = [
    ["a revision of 2^53", { kv: { create_revision: "9007199254740992" } }],
    ["a revision beyond 64 bits", { kv: { create_revision: "99999999999999999999" } }],
    ["a revision in exponent form", { kv: { create_revision: "4e1" } }],
    ["a revision with a leading zero", { kv: { create_revision: "040" } }],
    ["a revision with spaces", { kv: { create_revision: " 40" } }],
    ["a hexadecimal revision", { kv: { create_revision: "0x28" } }],
    ["a negative revision", { kv: { create_revision: "-40" } }],
    ["a zero revision", { kv: { create_revision: "0" } }],
    ["a revision as a JSON number", { kv: { create_revision: 40 } }],
    ["a fractional revision", { kv: { create_revision: "40.5" } }],
    ["a missing revision", { kv: { create_revision: undefined } }],
    ["a value that is not base64", { kv: { value: "a!==" } }],
    ["a value that is not UTF-8", { kv: { value: "/w==" } }],
    ["a value naming another holder", { kv: { value: b64("mallory") } }],
    ["a key on another lease", { kv: { lease: "12" } }],
    ["another key", { kv: { key: b64("tenure/leases/other") } }],
    ["a lease ID that is not a decimal string", { lease: { ID: "abc" } }],
    ["a lease ID of 0", { lease: { ID: "0" } }],
    ["a missing TTL", { lease: { TTL: undefined } }],
    ["a TTL as a JSON number", { lease: { TTL: 2 } }],
    ["succeeded as a string", { txn: { header: HEADER, succeeded: "true", responses: [] } }],
    ["succeeded as null", { txn: { header: HEADER, succeeded: null, responses: [] } }],
    ["a lease of null on the key", { kv: { lease: null } }],
    ["a success without responses", { txn: { header: HEADER, succeeded: true } }],
    ["a success whose range found nothing", {
      txn: { header: HEADER, succeeded: true, responses: [{ response_put: {} }, { response_range: {} }] },
    }],
    ["two keys in the range", {
      txn: {
        header: HEADER,
        succeeded: true,
        responses: [
          { response_put: {} },
          { response_range: { kvs: [{ key: b64(lockKey("r")), create_revision: "40" }, {}] } },
        ],
      },
    }],
    ["a txn reply that is an array", { txn: [] }],
  ];
  for (const [name, overrides] of hostile) {
    it(`grants nothing on ${name}`, async () => {
      const gateway = await craftedGateway(grantReplies(key, overrides));
      try {
        await rejectsWith(new EtcdGrantor({ baseUrl: gateway.url }).grant(args("r", "a")), "malformed_reply", name);
      } finally {
        await gateway.close();
      }
    });
  }

  it("grants nothing on replies that are not JSON, too large, or errors", async () => {
    const cases = [
      [{ body: "<html>gateway</html>" }, "malformed_reply"],
      [{ body: "x".repeat(200_000) }, "malformed_reply"],
      [{ body: JSON.stringify({ pad: "y".repeat(100_000) }) }, "malformed_reply"],
      [{ status: 503, body: { error: "etcdserver: no leader", message: "etcdserver: no leader", code: 14 } }, "server_error"],
      // Debian's build maps some codes to unusual statuses: the gRPC code decides.
      [{ status: 412, body: { error: "unavailable", message: "unavailable", code: 14 } }, "server_error"],
      [{ status: 429, body: { message: "etcdserver: too many requests", code: 8 }, headers: { "retry-after": "2" } }, "rate_limited"],
      [{ status: 400, body: { error: "bad", message: "bad", code: 3 } }, "bad_request"],
    ];
    for (const [answer, kind] of cases) {
      const gateway = await craftedGateway((path) => (path === "/v3/lease/grant" ? answer : undefined));
      try {
        const error = await rejectsWith(new EtcdGrantor({ baseUrl: gateway.url }).grant(args("r", "a")), kind, JSON.stringify(answer).slice(0, 80));
        if (kind === "rate_limited") assert.equal(error.retryAfterMs, 2_000);
      } finally {
        await gateway.close();
      }
    }
  });

  it("treats hostile keepalive replies as failures, and a missing TTL as a loss", async () => {
    const cases = [
      [`{"result":{"header":{},"ID":"${LEASE}","TTL":"abc"}}\n`, "malformed_reply"],
      [`{"result":{"header":{},"ID":"${LEASE}","TTL":"1e3"}}\n`, "malformed_reply"],
      [`{"result":{"header":{},"ID":"12","TTL":"2"}}\n`, "malformed_reply"],
      [`{"result":{"header":{},"TTL":"2"}}\n`, "malformed_reply"],
      // etcd leaves a field at its default out; a null is from something else, not a loss.
      [`{"result":{"header":{},"ID":"${LEASE}","TTL":null}}\n`, "malformed_reply"],
      [`{"result":null}\n`, "malformed_reply"],
      [`{"result":"yes"}\n`, "malformed_reply"],
      [`{"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: request timed out"}}\n`, "server_error"],
      ["", "malformed_reply"],
    ];
    for (const [text, kind] of cases) {
      const gateway = await craftedGateway((path) => {
        if (path === "/v3/lease/keepalive") return { body: text };
        return grantReplies(key)(path);
      });
      try {
        const etcdGrantor = new EtcdGrantor({ baseUrl: gateway.url });
        const { token } = await etcdGrantor.grant(args("r", "a"));
        await rejectsWith(etcdGrantor.renew(args("r", "a", { token })), kind, text);
      } finally {
        await gateway.close();
      }
    }
    const gateway = await craftedGateway((path) => {
      if (path === "/v3/lease/keepalive") return { body: `{"result":{"header":{},"ID":"${LEASE}"}}\n` };
      return grantReplies(key)(path);
    });
    try {
      const etcdGrantor = new EtcdGrantor({ baseUrl: gateway.url });
      const { token } = await etcdGrantor.grant(args("r", "a"));
      assert.deepEqual(await etcdGrantor.renew(args("r", "a", { token })), { renewed: false, reason: "expired" });
    } finally {
      await gateway.close();
    }
  });

  it("fails as timed_out when a request gets no answer within timeoutMs", async () => {
    const gateway = await craftedGateway(() => "hang");
    try {
      const started = performance.now();
      const quick = new EtcdGrantor({ baseUrl: gateway.url, timeoutMs: 300 });
      await rejectsWith(quick.grant(args("r", "a")), "timed_out", "no answer");
      assert.ok(performance.now() - started < 3_000);
    } finally {
      await gateway.close();
    }
  });

  it("a LeaseHolder never acquires through a hostile gateway", async () => {
    const gateway = await craftedGateway(grantReplies(key, { kv: { create_revision: "9007199254740993" } }));
    try {
      const holder = new LeaseHolder(new EtcdGrantor({ baseUrl: gateway.url }), {
        resource: "r",
        holderId: "a",
        leaseMs: 2_000,
        marginMs: 500,
      });
      const outcome = await holder.acquire();
      assert.deepEqual(outcome, { acquired: false, reason: "malformed_reply" });
      assert.equal(holder.lease.isSafelyHeld(), false);
    } finally {
      await gateway.close();
    }
  });

  it("sends the auth token raw, only to the configured origin, and follows no redirect", async () => {
    const elsewhere = await craftedGateway(grantReplies(key));
    const gateway = await craftedGateway((path) =>
      path === "/v3/lease/grant" ? { status: 307, body: "", headers: { location: `${elsewhere.url}/v3/lease/grant` } } : undefined,
    );
    try {
      const etcdGrantor = new EtcdGrantor({ baseUrl: gateway.url, token: "tok.42", headers: { "x-app": "t" } });
      await rejectsWith(etcdGrantor.grant(args("r", "a")), "bad_request", "a redirect");
      assert.equal(gateway.requests.length, 1);
      assert.equal(gateway.requests[0].headers.authorization, "tok.42", "raw, without Bearer");
      assert.equal(gateway.requests[0].headers["x-app"], "t");
      assert.equal(gateway.requests[0].headers["content-type"], "application/json");
      assert.deepEqual(gateway.requests[0].body, { TTL: "2" }, "TTL in whole seconds, as a string");
      assert.equal(elsewhere.requests.length, 0, "the redirect was not followed");
    } finally {
      await gateway.close();
      await elsewhere.close();
    }
  });
});

describe("EtcdGrantor given a cluster's members (endpoints)", () => {
  const key = lockKey("r");
  /** A member that answers every request 503, as one without a leader does. */
  const sick = () => ({ status: 503, body: { error: "etcdserver: no leader", code: 14, message: "etcdserver: no leader" } });
  const paths = (gateway) => gateway.requests.map((request) => request.path);

  it("takes endpoints instead of baseUrl, each checked as baseUrl is", () => {
    const grantor = new EtcdGrantor({ endpoints: ["http://127.0.0.1:2379/", "http://127.0.0.1:22379"] });
    assert.deepEqual(grantor.endpoints, ["http://127.0.0.1:2379", "http://127.0.0.1:22379"]);
    assert.equal(grantor.baseUrl, "http://127.0.0.1:2379", "the first member's");
    assert.deepEqual(new EtcdGrantor({ baseUrl: "http://127.0.0.1:2379" }).endpoints, ["http://127.0.0.1:2379"]);
    const many = Array.from({ length: 17 }, (_, i) => `http://127.0.0.1:${2000 + i}`);
    for (const [options, what] of [
      [{ endpoints: [] }, "none"],
      [{ endpoints: "http://127.0.0.1:2379" }, "not an array"],
      [{ endpoints: many }, "more than 16"],
      [{ endpoints: ["http://127.0.0.1:2379", "ftp://x"] }, "one not http"],
      [{ endpoints: ["http://u:p@127.0.0.1:2379"] }, "credentials"],
      [{ endpoints: ["http://127.0.0.1:2379/?x=1"] }, "a query"],
      [{ endpoints: [42] }, "not a URL"],
      [{ baseUrl: "http://127.0.0.1:2379", endpoints: ["http://127.0.0.1:2379"] }, "both"],
    ]) {
      assert.throws(() => new EtcdGrantor(options), { code: "ERR_LEASE_CONFIG", field: "endpoints" }, what);
    }
    assert.throws(() => new EtcdGrantor({}), { field: "baseUrl" }, "neither");
  });

  it("goes on to the next member when one cannot be reached or has no leader, and stays there", async () => {
    const down = await craftedGateway(sick);
    const up = await craftedGateway(grantReplies(key));
    try {
      const grantor = new EtcdGrantor({ endpoints: ["http://127.0.0.1:9", down.url, up.url] });
      assert.deepEqual(await grantor.grant(args("r", "a")), { granted: true, token: 40, durationMs: 2_000 });
      assert.deepEqual(paths(down), ["/v3/lease/grant"], "the member without a leader was asked once");
      assert.deepEqual(paths(up), ["/v3/lease/grant", "/v3/kv/txn"]);
      // The next call starts at the member that answered.
      assert.equal((await grantor.grant(args("r", "a"))).granted, true);
      assert.equal(down.requests.length, 1);
      assert.equal(up.requests.length, 4);
    } finally {
      await down.close();
      await up.close();
    }
  });

  it("never sends the grant's create-if-absent twice: the call fails, and the holder's retry goes elsewhere", async () => {
    // The first member makes the lease, then drops the txn's answer (it may have committed).
    const flaky = await craftedGateway((path, body) => (path === "/v3/kv/txn" ? sick() : grantReplies(key)(path, body)));
    const other = await craftedGateway(grantReplies(key));
    try {
      const grantor = new EtcdGrantor({ endpoints: [flaky.url, other.url] });
      await rejectsWith(grantor.grant(args("r", "a")), "server_error", "the txn went unanswered");
      assert.deepEqual(paths(flaky), ["/v3/lease/grant", "/v3/kv/txn"]);
      assert.equal(other.requests.length, 0, "the txn was not sent to another member");
      // The caller's retry (a new grant) starts at the other member.
      assert.equal((await grantor.grant(args("r", "a"))).granted, true);
      assert.deepEqual(paths(other), ["/v3/lease/grant", "/v3/kv/txn"]);
      assert.equal(flaky.requests.length, 2);
    } finally {
      await flaky.close();
      await other.close();
    }
  });

  it("sends nothing more once the caller gave up, and avoids the member that made it wait", async () => {
    const hung = await craftedGateway(() => "hang");
    const other = await craftedGateway(grantReplies(key));
    try {
      const grantor = new EtcdGrantor({ endpoints: [hung.url, other.url] });
      await rejectsWith(grantor.grant(args("r", "a", { signal: AbortSignal.timeout(200) })), "unreachable", "aborted");
      assert.equal(other.requests.length, 0, "nothing sent after the caller gave up");
      assert.equal((await grantor.grant(args("r", "a"))).granted, true);
      assert.equal(hung.requests.length, 1, "the next call started at the other member");
    } finally {
      await hung.close();
      await other.close();
    }
  });
});

describe("lease safety with etcd as the grantor (the design's verification)", () => {
  const leaseMs = 2_500; // etcd grants 3 s; the holder believes its own 2.5 s
  const marginMs = 800;
  let etcd;
  let proxy;
  let child;

  before(async () => {
    etcd = await startEtcd();
    proxy = await startFaultProxy({ target: etcd.url });
  });

  after(async () => {
    await child?.kill();
    await proxy?.close();
    await etcd?.cleanup();
  });

  it("surrenders when renewal cannot reach the grantor, before etcd lets the lease go", async (t) => {
    const start = performance.now();
    const now = () => performance.now() - start;
    // Every successful call, with its send time: the holder may believe a reply to it until
    // sentAt + leaseMs - marginMs, so the latest of those is its margin deadline.
    const sends = [];
    const direct = new EtcdGrantor({ baseUrl: proxy.url });
    const recorded = {
      grant: async (call) => {
        const sentAt = now();
        const reply = await direct.grant(call);
        if (reply.granted) sends.push(sentAt);
        return reply;
      },
      renew: async (call) => {
        const sentAt = now();
        const reply = await direct.renew(call);
        if (reply.renewed) sends.push(sentAt);
        return reply;
      },
      release: (call) => direct.release(call),
    };
    const holder = new LeaseHolder(recorded, { resource: "blocked", holderId: "node-a", leaseMs, marginMs });
    let lost = null;
    let atLoss = null;
    holder.onLeaseLost = (reason) => {
      lost = { reason, at: now(), deadline: Math.max(...sends) + leaseMs - marginMs };
      // etcd's own view at that moment, straight from etcd (the proxy blocks only the holder).
      atLoss = etcdView(etcd.url, "blocked");
    };
    const { acquired, token } = await holder.acquire({ wait: true, signal: AbortSignal.timeout(10_000) });
    assert.equal(acquired, true);
    await eventually(() => sends.length >= 3, 5 * leaseMs, "two renewals before the block");

    proxy.set({ kind: "block" });
    try {
      const blockedAt = now();
      await sleep(leaseMs);
      assert.equal(holder.lease.isSafelyHeld(), false);
      assert.equal(holder.surrendered, true);
      assert.ok(holder.consecutiveFailures >= 1, "renewals failed");
      assert.equal(lost?.reason, "margin_exhausted");
      assert.ok(lost.at > blockedAt && lost.at < blockedAt + leaseMs);
      assert.ok(lost.at <= lost.deadline + 500, `surrendered ${Math.round(lost.at - lost.deadline)} ms after its margin deadline`);
      const view = await atLoss;
      assert.equal(view?.holder, "node-a", "etcd still held the grant when the holder gave up");
      assert.equal(view.createRevision, token);
      assert.ok(view.ttlSeconds >= 0, `with its lease alive (${view.ttlSeconds} s)`);
      t.diagnostic(`surrendered ${Math.round(lost.at - lost.deadline)} ms after its margin deadline`);
    } finally {
      proxy.heal();
    }
    // Unrenewed, etcd lets it go; the next holder gets a larger token.
    const other = new LeaseHolder(new EtcdGrantor({ baseUrl: etcd.url }), {
      resource: "blocked",
      holderId: "node-b",
      leaseMs,
      marginMs,
    });
    const next = await other.acquire({ wait: true, signal: AbortSignal.timeout(5 * leaseMs) });
    assert.equal(next.acquired, true);
    assert.ok(next.token > token);
    await other.release();
  });

  it("does not grant twice within one lease period", async () => {
    const grantor = new EtcdGrantor({ baseUrl: etcd.url });
    const first = new LeaseHolder(grantor, { resource: "twice", holderId: "node-a", leaseMs, marginMs });
    const second = new LeaseHolder(grantor, { resource: "twice", holderId: "node-b", leaseMs, marginMs });
    const firstLost = [];
    first.onLeaseLost = (reason) => firstLost.push(reason);
    assert.equal((await first.acquire({ wait: true, signal: AbortSignal.timeout(10_000) })).acquired, true);
    const started = performance.now();
    const attempts = [];
    while (performance.now() - started < 2 * leaseMs) {
      attempts.push(await second.acquire());
      assert.equal(first.lease.isSafelyHeld(), true, "the first node believes throughout");
      await sleep(150);
    }
    assert.ok(attempts.length >= 10, `${attempts.length} attempts`);
    for (const outcome of attempts) {
      assert.equal(outcome.acquired, false);
      assert.equal(outcome.reason, "denied");
      assert.equal(outcome.holder, "node-a");
      assert.ok(outcome.expiresInMs > 0 && outcome.expiresInMs <= 3_000, `expiresInMs ${outcome.expiresInMs}`);
    }
    assert.deepEqual(firstLost, []);
    await first.release();
  });

  it("rejects work from a holder that paused past expiry (SIGSTOP, SIGCONT)", async () => {
    const resource = "paused";
    child = spawnModule(`
      import { EtcdGrantor } from "tenure";
      import { runPausableHolder, fencedPut } from ${JSON.stringify(supportUrl)};
      const url = ${JSON.stringify(etcd.url)};
      await runPausableHolder({
        grantor: new EtcdGrantor({ baseUrl: url }),
        write: (value, token) => fencedPut(url, ${JSON.stringify(resource)}, value, token),
        resource: ${JSON.stringify(resource)},
        leaseMs: ${leaseMs},
        marginMs: ${marginMs},
      });
    `);
    const checked = await child.next();
    assert.equal(checked.acquired, true, JSON.stringify(checked));
    assert.equal(checked.firstWrite.accepted, true);
    assert.ok(checked.renewals >= 2 && checked.safeWhenChecked, JSON.stringify(checked));

    const pauseMs = 2 * leaseMs;
    child.child.kill("SIGSTOP");
    await sleep(pauseMs);
    const replacement = new LeaseHolder(new EtcdGrantor({ baseUrl: etcd.url }), {
      resource,
      holderId: "other-node",
      leaseMs,
      marginMs,
    });
    const taken = await replacement.acquire({ wait: true, signal: AbortSignal.timeout(5 * leaseMs) });
    assert.equal(taken.acquired, true);
    assert.ok(taken.token > checked.token, `${taken.token} > ${checked.token}`);
    assert.deepEqual(await fencedPut(etcd.url, resource, "other-node", taken.token), { accepted: true });
    child.child.kill("SIGCONT");
    child.child.stdin.write("act\n");
    const acted = await child.next();
    await replacement.release();

    assert.ok(acted.longestGapMs >= pauseMs - 150, `paused for ${Math.round(acted.longestGapMs)} ms`);
    assert.equal(acted.safelyHeld, false, "the holder knows at once");
    assert.equal(acted.surrendered, true);
    assert.deepEqual(acted.lost.map((l) => l.reason), ["margin_exhausted"]);
    assert.deepEqual(acted.staleWrite, { accepted: false }, "etcd refuses the stale token");
    assert.equal(await fencedGet(etcd.url, resource), "other-node");
  });
});

describe("etcd killed (SIGKILL) and restarted on the same data directory", () => {
  let etcd;

  before(async () => {
    etcd = await startEtcd();
  });

  after(async () => {
    await etcd?.cleanup();
  });

  it("a short outage: the key survives with its create_revision and the holder keeps the lease", async () => {
    const grantor = new EtcdGrantor({ baseUrl: etcd.url, timeoutMs: 1_000 });
    const holder = new LeaseHolder(grantor, { resource: "short", holderId: "node-a", leaseMs: 4_000, marginMs: 1_000 });
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    const { acquired, token } = await holder.acquire({ wait: true, signal: AbortSignal.timeout(10_000) });
    assert.equal(acquired, true);
    await sleep(300);
    await etcd.kill();
    await etcd.restart();
    const view = await etcdView(etcd.url, "short");
    assert.equal(view?.holder, "node-a");
    assert.equal(view.createRevision, token, "same create_revision after the crash");
    // Renewals resume: more than a lease period later the holder still holds, with the same token.
    await sleep(4_500);
    assert.deepEqual(lost, []);
    assert.equal(holder.lease.isSafelyHeld(), true);
    assert.equal(holder.lease.token, token);
    await holder.release();
  });

  it("a long outage: the holder surrenders; etcd restores the lease with a full TTL, which the holder hands back", async (t) => {
    const leaseMs = 2_000; // a 2 s etcd lease
    const grantor = new EtcdGrantor({ baseUrl: etcd.url, timeoutMs: 500 });
    const holder = new LeaseHolder(grantor, { resource: "long", holderId: "node-a", leaseMs, marginMs: 600 });
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    const { acquired, token } = await holder.acquire({ wait: true, signal: AbortSignal.timeout(10_000) });
    assert.equal(acquired, true);
    await etcd.kill();
    await eventually(() => lost.length > 0, 2 * leaseMs, "the holder surrenders while etcd is down");
    assert.deepEqual(lost, ["margin_exhausted"]);
    await sleep(leaseMs); // down for longer than the lease

    await etcd.restart();
    const restartedAt = performance.now();
    // What etcd really does: a lease outlives the outage. On becoming leader, etcd gives every
    // lease its full TTL again (plus an election timeout), so the key lives on after the restart
    // although the holder stopped renewing well before its TTL ran out at the crash.
    const view = await etcdView(etcd.url, "long");
    assert.equal(view?.holder, "node-a", "the key survived the crash");
    assert.equal(view.createRevision, token);
    assert.ok(view.ttlSeconds >= 1, `its lease was given a full TTL again (${view.ttlSeconds} s left)`);

    // Meanwhile etcd denies everyone but the old holder, who is answered with its old grant: the
    // same token, a regression its LeaseHolder refuses, and hands back so nobody waits for etcd
    // to expire it.
    const other = new LeaseHolder(new EtcdGrantor({ baseUrl: etcd.url }), {
      resource: "long",
      holderId: "node-b",
      leaseMs,
      marginMs: 600,
    });
    const denied = await other.acquire();
    assert.equal(denied.acquired, false);
    assert.equal(denied.holder, "node-a");
    const again = await holder.acquire();
    assert.deepEqual(again, { acquired: false, reason: "token_regressed" });
    const refusedAt = performance.now();

    await eventually(async () => (await etcdView(etcd.url, "long")) === null, 10_000, "the old grant is handed back");
    const goneAfterMs = performance.now() - refusedAt;
    // Left to expire, it would live on for most of its restored TTL (whole seconds).
    assert.ok(goneAfterMs < 700, `gone ${Math.round(goneAfterMs)} ms after the refusal`);
    t.diagnostic(
      `a 2 s lease restored with ${view.ttlSeconds} s was handed back ${Math.round(performance.now() - restartedAt)} ms after the restart`,
    );
    const next = await other.acquire();
    assert.equal(next.acquired, true);
    assert.ok(next.token > token, `${next.token} > ${token}`);
    await other.release();
  });
});
