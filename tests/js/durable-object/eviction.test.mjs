// The Durable Object grantor across evictions of its object (ctx.abort(): the instance is dropped
// and the next request builds a new one from storage) and restarts of workerd on the same storage:
// a grant made before either stands after both, tokens only grow, fenced writes stay fenced, and
// the server key survives, so a lease secret from before still renews. Holders and checks run in
// Node, over HTTP through the grantor Worker (and through the binding, as Node sees it); the
// grantor runs in workerd through Miniflare.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { HttpGrantor, DurableObjectGrantor, LeaseHolder, isLeaseError } from "tenure";
import { startDurableObjectGrantor } from "../support/durable-object.mjs";
import { sleep } from "../support/memory-grantor.mjs";

let requests = 0;
/** A grantor call's arguments: a fresh request id, and a timeout well past a loaded machine's. */
const call = (args) => ({ requestId: `eviction-${++requests}`, signal: AbortSignal.timeout(15_000), ...args });

/** Resolves once `predicate()` is true, polling; fails with `what` after `ms`. */
async function until(predicate, ms, what) {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(25);
  }
}

// On both storage backends: the key-value one (`new_classes`) and SQLite (`new_sqlite_classes`).
for (const [backend, useSQLite] of [
  ["key-value storage", false],
  ["SQLite storage", true],
]) {
  describe(`the Durable Object grantor across evictions and restarts (${backend})`, () => {
    let objects;

    before(async () => {
      objects = await startDurableObjectGrantor({ useSQLite });
    });

    after(async () => {
      await objects?.stop();
    });

    it("a grant made before an eviction and a restart stands: denied to others until its expiry, renewed with its secret, fenced writes stay fenced", async () => {
      const name = "survives";
      // A new client each time: nothing the client remembers (a secret, a connection) carries over.
      const client = () => new HttpGrantor({ baseUrl: objects.url(name) });
      const resource = "report";
      // Long enough to outlast an eviction and a restart on a loaded machine; short enough to wait out.
      const durationMs = 8_000;

      // An older grant that wrote, then released: its token must stay fenced out.
      const old = await client().grant(call({ resource, holder: "old", durationMs }));
      assert.equal(old.granted, true);
      const oldWrite = await client().fencedWrite(resource, { by: "old" }, old.token, { leaseSecret: old.leaseSecret });
      assert.equal(oldWrite.accepted, true);
      const released = await client().release(call({ resource, holder: "old", token: old.token, leaseSecret: old.leaseSecret }));
      assert.equal(released.released, true);

      const a = await client().grant(call({ resource, holder: "a", durationMs }));
      assert.equal(a.granted, true);
      assert.ok(a.token > old.token);
      assert.equal((await client().fencedWrite(resource, { by: "a" }, a.token, { leaseSecret: a.leaseSecret })).accepted, true);

      // The same resource and token on another object, whose server key is its own: its secret
      // is what a grantor that had lost its key (and made a new one) would expect.
      const elsewhere = new HttpGrantor({ baseUrl: objects.url("elsewhere") });
      await elsewhere.grant(call({ resource, holder: "x", durationMs: 1_000 }));
      const other = await elsewhere.grant(call({ resource, holder: "x", durationMs: 1_000 }));
      assert.equal(other.token, a.token, "the same token, under another object's key");
      assert.notEqual(other.leaseSecret, a.leaseSecret);

      let renewSentAt = Date.now();
      for (const [what, interrupt] of [
        ["eviction", () => objects.evict(name)],
        ["restart", () => objects.restart()],
        ["eviction and restart", async () => (await objects.evict(name), await objects.restart())],
      ]) {
        await interrupt();
        const status = await client().status(resource);
        assert.equal(status.holder, "a", `after the ${what}: ${JSON.stringify(status)}`);
        assert.equal(status.token, a.token);
        assert.ok(status.expiresInMs > 0 && status.expiresInMs <= durationMs);

        const denied = await client().grant(call({ resource, holder: "b", durationMs }));
        assert.equal(denied.granted, false, `after the ${what}, another holder is denied`);
        assert.equal(denied.holder, "a");

        // The secret from before still proves the grant: the server key survived.
        await assert.rejects(
          client().renew(call({ resource, holder: "a", token: a.token, durationMs, leaseSecret: other.leaseSecret })),
          (error) => isLeaseError(error) && error.grantorCode === "bad_lease_secret",
          "a secret made with another key is refused",
        );
        renewSentAt = Date.now();
        const renewed = await client().renew(call({ resource, holder: "a", token: a.token, durationMs, leaseSecret: a.leaseSecret }));
        assert.deepEqual({ renewed: renewed.renewed, token: renewed.token }, { renewed: true, token: a.token }, `after the ${what}`);

        // Fenced writes stay fenced: the older token is refused, the holder's accepted.
        const stale = await client().fencedWrite(resource, { by: "old" }, old.token, { leaseSecret: old.leaseSecret });
        assert.deepEqual(stale, { accepted: false, lastToken: a.token }, `after the ${what}`);
        const fresh = await client().fencedWrite(resource, { by: "a", after: what }, a.token, { leaseSecret: a.leaseSecret });
        assert.deepEqual(fresh, { accepted: true, lastToken: a.token });
        assert.deepEqual(await client().fencedRead(resource), { payload: { by: "a", after: what }, lastToken: a.token });
      }

      // The last renewal is never renewed again: another holder gets the resource only once it ran
      // out, judged from the expiry recorded before the restart, with a larger token.
      const b = client();
      let granted;
      await until(
        async () => {
          granted = await b.grant(call({ resource, holder: "b", durationMs }));
          return granted.granted;
        },
        durationMs + 15_000,
        "b is granted once a's grant ran out",
      );
      const grantedAt = Date.now();
      // The grantor's expiry is at least durationMs after the renewal was sent (it read its clock
      // after the request arrived), and b's reply came after the grantor decided: 1 ms for rounding.
      assert.ok(grantedAt >= renewSentAt + durationMs - 1, `b granted ${grantedAt - renewSentAt} ms after a's last renewal was sent`);
      assert.ok(granted.token > a.token);
      const late = await client().fencedWrite(resource, { by: "a", late: true }, a.token, { leaseSecret: a.leaseSecret });
      assert.equal(late.accepted, true, "a's token is the largest that wrote until b writes");
      assert.equal((await b.fencedWrite(resource, { by: "b" }, granted.token)).accepted, true);
      assert.deepEqual(
        await client().fencedWrite(resource, { by: "a", late: true }, a.token, { leaseSecret: a.leaseSecret }),
        { accepted: false, lastToken: granted.token },
      );
    });

    it("tokens only grow across many grants interleaved with evictions and restarts", async () => {
      const name = "tokens";
      const resources = ["alpha", "beta", "gamma"];
      const last = new Map(); // resource -> {token, leaseSecret}
      const seen = Object.fromEntries(resources.map((r) => [r, []]));
      let restarts = 0;
      let evictions = 0;
      for (let round = 0; round < 36; round += 1) {
        // Over HTTP and through the binding by turns: both reach the same object.
        const client =
          round % 2 === 0
            ? new HttpGrantor({ baseUrl: objects.url(name) })
            : new DurableObjectGrantor({ namespace: await objects.namespace(), name });
        const resource = resources[round % resources.length];
        const holder = `h${round}`;
        const reply = await client.grant(call({ resource, holder, durationMs: 5_000 }));
        assert.equal(reply.granted, true, `round ${round}: ${JSON.stringify(reply)}`);
        const before = last.get(resource);
        if (before) assert.ok(reply.token > before.token, `round ${round}: ${resource} token ${reply.token} after ${before.token}`);
        seen[resource].push({ token: reply.token, leaseSecret: reply.leaseSecret });
        assert.equal((await client.fencedWrite(resource, { round }, reply.token)).accepted, true);
        last.set(resource, { token: reply.token, leaseSecret: reply.leaseSecret, round });
        // Every fourth grant is revoked rather than released: another way the record is rewritten,
        // after which tokens must grow just the same.
        if (round % 4 === 3) {
          assert.deepEqual(await client.revoke(resource), { revoked: true });
        } else {
          const { released } = await client.release(call({ resource, holder, token: reply.token }));
          assert.equal(released, true);
        }
        if (round % 12 === 11) {
          await objects.restart();
          restarts += 1;
        } else if (round % 3 === 1) {
          await objects.evict(name);
          evictions += 1;
        }
      }
      assert.equal(restarts, 3);
      assert.ok(evictions >= 8);

      // Every resource's fence stands at its latest token, and each older token is refused.
      const client = new HttpGrantor({ baseUrl: objects.url(name) });
      for (const resource of resources) {
        const { token, round } = last.get(resource);
        assert.deepEqual(await client.fencedRead(resource), { payload: { round }, lastToken: token });
        const tokens = seen[resource].map((grant) => grant.token);
        assert.deepEqual([...tokens].sort((x, y) => x - y), tokens, `${resource}: ${tokens}`);
        assert.equal(new Set(tokens).size, tokens.length);
        const older = seen[resource].at(-2);
        const stale = await client.fencedWrite(resource, { stale: true }, older.token, { leaseSecret: older.leaseSecret });
        assert.deepEqual(stale, { accepted: false, lastToken: token });
      }
    });

    it("a LeaseHolder keeps its lease through an eviction and a restart, and a rival campaigning meanwhile waits", async (t) => {
      const name = "holder";
      const resource = "singleton";
      // Renewals every 2 s with 9 s of budget before the margin: an eviction costs one failed
      // request, a restart of workerd (a few seconds on a loaded machine) a few.
      const config = (holderId) => ({ resource, holderId, leaseMs: 12_000, marginMs: 3_000, renewIntervalMs: 2_000 });
      const a = new LeaseHolder(new HttpGrantor({ baseUrl: objects.url(name) }), config("a"));
      const rival = new LeaseHolder(new HttpGrantor({ baseUrl: objects.url(name) }), config("rival"));
      const losses = [];
      a.onLeaseLost = (reason) => losses.push(reason);
      const first = await a.acquire();
      assert.equal(first.acquired, true);

      const campaign = new AbortController();
      // Whatever happened, nothing keeps renewing or campaigning after the test.
      t.after(() => {
        campaign.abort();
        a.surrender("test over");
        rival.surrender("test over");
      });
      let rivalGrantedAt = null;
      const rivalDone = rival.acquire({ wait: true, signal: campaign.signal }).then((outcome) => {
        if (outcome.acquired) rivalGrantedAt = Date.now();
        return outcome;
      });

      const renewalsAfter = async (what) => {
        const before = a.stats().renewals;
        await until(() => a.stats().renewals > before, 20_000, `a renewal after the ${what}`);
      };
      await renewalsAfter("acquire");
      await objects.evict(name);
      await renewalsAfter("eviction");
      await objects.restart();
      await renewalsAfter("restart");

      assert.deepEqual(losses, []);
      assert.equal(a.lease.isSafelyHeld(), true);
      assert.equal(a.lease.token, first.token, "the same grant throughout");
      assert.equal(rivalGrantedAt, null, "the rival was never granted while a held");
      const status = await new HttpGrantor({ baseUrl: objects.url(name) }).status(resource);
      assert.deepEqual([status.holder, status.token], ["a", first.token]);

      const releasedAt = Date.now();
      await a.release();
      const outcome = await rivalDone;
      assert.equal(outcome.acquired, true, JSON.stringify(outcome));
      assert.ok(outcome.token > first.token);
      assert.ok(rivalGrantedAt >= releasedAt);
      await rival.release();
    });
  });
}
