// The grantor conformance suite: point it at any grantor (the reference grantor over HttpGrantor,
// or an adapter for a grantor users already run) and it checks the contract LeaseHolder relies on:
// grant, deny, renew, release, fencing, token monotonicity, one winner among concurrent claimants,
// idempotent retries, expiry, and a LeaseHolder end to end.
//
//   describeConformance("etcd", {
//     setup: async () => ({ grantor, teardown: async () => {} }),
//     durationMs: 2000,     // the lease duration the suite asks for
//     expiryGraceMs: 1500,  // how much longer than the granted duration a takeover may take
//   });
//
// Resource names match /^[a-z0-9-]{1,50}$/ and holder ids /^[a-z0-9-]{1,40}$/, so every grantor's
// naming rules (Kubernetes object names among them) accept them.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { LeaseHolder, isLeaseError } from "tenure";

const REFUSAL_REASONS = new Set(["expired", "revoked", "not_holder", "unknown"]);

/** Failures a holder retries; a grantor may answer a race with one of these, never with a grant. */
const RETRYABLE_KINDS = new Set(["unreachable", "timed_out", "server_error", "rate_limited"]);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function newRequestId() {
  return randomBytes(8).toString("hex");
}

function assertToken(token, what) {
  assert.ok(
    Number.isSafeInteger(token) && token >= 1,
    `${what}: the token must be a positive safe integer, got ${JSON.stringify(token)}`,
  );
}

function assertGranted(reply, what) {
  assert.equal(reply?.granted, true, `${what}: expected a grant, got ${JSON.stringify(reply)}`);
  assertToken(reply.token, what);
  if (reply.durationMs !== undefined) {
    assert.ok(
      Number.isFinite(reply.durationMs) && reply.durationMs >= 1,
      `${what}: durationMs must be a positive number, got ${JSON.stringify(reply.durationMs)}`,
    );
  }
  return reply;
}

function assertDenied(reply, what, { holder } = {}) {
  assert.equal(reply?.granted, false, `${what}: expected a denial, got ${JSON.stringify(reply)}`);
  assert.equal(reply.token, undefined, `${what}: a denial carries no token`);
  if (holder !== undefined && reply.holder !== undefined && reply.holder !== null) {
    assert.equal(reply.holder, holder, `${what}: the denial names the current holder`);
  }
  if (reply.expiresInMs !== undefined && reply.expiresInMs !== null) {
    assert.ok(
      Number.isFinite(reply.expiresInMs) && reply.expiresInMs >= 0,
      `${what}: expiresInMs must be a non-negative number, got ${reply.expiresInMs}`,
    );
  }
}

function assertRenewed(reply, token, what) {
  assert.equal(reply?.renewed, true, `${what}: expected a renewal, got ${JSON.stringify(reply)}`);
  assertToken(reply.token, what);
  assert.ok(reply.token >= token, `${what}: a renewal never lowers the token (${reply.token} < ${token})`);
}

function assertRefused(reply, what) {
  assert.equal(reply?.renewed, false, `${what}: expected a refusal, got ${JSON.stringify(reply)}`);
  assert.ok(
    REFUSAL_REASONS.has(reply.reason),
    `${what}: the refusal reason must be one of ${[...REFUSAL_REASONS].join(", ")}, got ${reply.reason}`,
  );
}

/**
 * The resource side of fencing, as the design's `protected_state` table: a write is accepted only
 * if no write with a larger token came first.
 */
class FencedResource {
  lastToken = 0;
  writes = [];

  write(token, payload) {
    if (token < this.lastToken) return false;
    this.lastToken = token;
    this.writes.push({ token, payload });
    return true;
  }
}

/**
 * Registers the conformance tests for one grantor under `describe`.
 *
 * `setup()` resolves `{grantor, teardown}` once for the whole suite; every test uses its own
 * resource. `durationMs` is the duration requested; the granted `durationMs` of each reply
 * decides the waits. `expiryGraceMs` is how long after the granted duration a grantor may still
 * refuse a takeover of an unrenewed lease (Consul, for one, invalidates a session between TTL and
 * twice the TTL).
 *
 * With `observe: true`, the grantor's `observe(resource, {signal})` is checked too: its first
 * value is the current state, and a grant, a release, another grant and that grant's expiry, each
 * made by another client, are yielded in order with growing versions.
 */
export function describeConformance(name, { setup, durationMs = 1_000, expiryGraceMs = 500, observe = false }) {
  const run = randomBytes(3).toString("hex");
  const resourceFor = (label) => `c-${run}-${label}`;
  const holderFor = (label) => `h-${run}-${label}`;
  // Generous: a loaded two-core machine can add seconds to any step.
  const timeout = Math.max(60_000, 6 * (durationMs + expiryGraceMs) + 30_000);

  describe(`grantor conformance: ${name}`, { timeout: timeout * 12 }, () => {
    let grantor;
    let teardown;

    before(async () => {
      ({ grantor, teardown } = await setup());
    });

    after(async () => {
      await teardown?.();
    });

    const grant = (resource, holder, extra = {}) =>
      grantor.grant({ resource, holder, durationMs, requestId: newRequestId(), ...extra });
    const renew = (resource, holder, token, extra = {}) =>
      grantor.renew({ resource, holder, token, durationMs, requestId: newRequestId(), ...extra });
    const release = (resource, holder, token) => grantor.release({ resource, holder, token });

    it("grants a free resource with a positive safe-integer token", { timeout }, async () => {
      const resource = resourceFor("grant");
      const a = holderFor("a");
      const granted = assertGranted(await grant(resource, a), "first grant");
      await release(resource, a, granted.token);
    });

    it("denies a held resource to another holder", { timeout }, async () => {
      const resource = resourceFor("deny");
      const [a, b] = [holderFor("a"), holderFor("b")];
      const granted = assertGranted(await grant(resource, a), "grant to a");
      assertDenied(await grant(resource, b), "grant to b while a holds", { holder: a });
      await release(resource, a, granted.token);
    });

    it("renews for the holder and keeps the token", { timeout }, async () => {
      const resource = resourceFor("renew");
      const a = holderFor("a");
      const granted = assertGranted(await grant(resource, a), "grant");
      let token = granted.token;
      for (let i = 0; i < 3; i += 1) {
        const renewed = await renew(resource, a, token);
        assertRenewed(renewed, token, `renewal ${i + 1}`);
        assert.equal(renewed.token, granted.token, "renewing the same grant keeps its token");
        token = renewed.token;
      }
      await release(resource, a, token);
    });

    it("refuses renewals by another holder or with a wrong token, without disturbing the holder", { timeout }, async () => {
      const resource = resourceFor("refuse");
      const [a, b] = [holderFor("a"), holderFor("b")];
      const granted = assertGranted(await grant(resource, a), "grant");
      assertRefused(await renew(resource, b, granted.token), "renewal by another holder");
      assertRefused(await renew(resource, a, granted.token + 1), "renewal with a token never granted");
      assertRenewed(await renew(resource, a, granted.token), granted.token, "the holder still renews");
      assertDenied(await grant(resource, b), "the resource is still held", { holder: a });
      await release(resource, a, granted.token);
    });

    it("releases: the next grant has a larger token, and a repeated release frees nothing newer", { timeout }, async () => {
      const resource = resourceFor("release");
      const [a, b, c] = [holderFor("a"), holderFor("b"), holderFor("c")];
      const first = assertGranted(await grant(resource, a), "grant to a");
      const released = await release(resource, a, first.token);
      assert.equal(released?.released, true, `release: ${JSON.stringify(released)}`);
      const again = await release(resource, a, first.token);
      assert.equal(typeof again?.released, "boolean", "a repeated release is answered, not thrown");

      const second = assertGranted(await grant(resource, b), "grant to b after the release");
      assert.ok(second.token > first.token, `tokens increase: ${second.token} > ${first.token}`);

      // A late duplicate of a's release must not end b's grant.
      await release(resource, a, first.token);
      assertRefused(await renew(resource, a, first.token), "a's renewal after its release");
      assertRenewed(await renew(resource, b, second.token), second.token, "b still renews");
      assertDenied(await grant(resource, c), "b still holds", { holder: b });
      await release(resource, b, second.token);
    });

    it("issues strictly increasing tokens across successive grants", { timeout }, async () => {
      const resource = resourceFor("monotonic");
      const tokens = [];
      for (let i = 0; i < 8; i += 1) {
        const holder = holderFor(`m${i % 3}`);
        const granted = assertGranted(await grant(resource, holder), `grant ${i + 1}`);
        tokens.push(granted.token);
        await release(resource, holder, granted.token);
      }
      for (let i = 1; i < tokens.length; i += 1) {
        assert.ok(tokens[i] > tokens[i - 1], `tokens strictly increase: ${tokens.join(", ")}`);
      }
    });

    it("grants a free resource to exactly one of many concurrent claimants", { timeout }, async () => {
      const resource = resourceFor("race");
      const holders = Array.from({ length: 8 }, (_, i) => holderFor(`r${i}`));
      const outcomes = await Promise.allSettled(holders.map((holder) => grant(resource, holder)));
      const winners = [];
      outcomes.forEach((outcome, i) => {
        if (outcome.status === "rejected") {
          // A retryable failure is a lost race the holder would retry; anything else is a bug.
          const error = outcome.reason;
          assert.ok(
            isLeaseError(error) && RETRYABLE_KINDS.has(error.kind),
            `claimant ${i}: only a grant, a denial or a retryable failure is allowed: ${error?.stack ?? error}`,
          );
        } else if (outcome.value?.granted === true) {
          assertGranted(outcome.value, `claimant ${i}`);
          winners.push({ holder: holders[i], token: outcome.value.token });
        } else {
          assertDenied(outcome.value, `claimant ${i}`);
        }
      });
      assert.equal(winners.length, 1, `exactly one winner: ${JSON.stringify(winners)}`);
      const [winner] = winners;
      for (const holder of holders) {
        if (holder === winner.holder) continue;
        assertRefused(await renew(resource, holder, winner.token), `loser ${holder} renewing the winner's token`);
      }
      assertRenewed(await renew(resource, winner.holder, winner.token), winner.token, "the winner renews");
      await release(resource, winner.holder, winner.token);
    });

    it("answers a retried grant or renewal (same holder, same requestId) with the original outcome, never promising more time", { timeout }, async () => {
      const resource = resourceFor("retry");
      const [a, b] = [holderFor("a"), holderFor("b")];
      // A retry's reply starts the holder's clock at the retry's send, later than the original's:
      // the retried reply may only promise what the original grant has left by then. The original
      // reached the grantor before its reply came back, so its lease ends no later than that
      // reply's arrival plus its duration.
      const assertNoLongerThanLeft = (retried, original, originalReplyAt, retrySentAt, what) => {
        if (retried.durationMs === undefined || original.durationMs === undefined) return;
        const left = original.durationMs - (retrySentAt - originalReplyAt);
        assert.ok(
          retried.durationMs <= left + 1,
          `${what} promises ${retried.durationMs} ms; the original has at most ${Math.round(left)} ms left`,
        );
      };
      const pause = Math.min(300, Math.max(50, durationMs / 8));

      const grantId = newRequestId();
      const first = assertGranted(await grant(resource, a, { requestId: grantId }), "grant");
      const firstReplyAt = performance.now();
      await sleep(pause);
      const retrySentAt = performance.now();
      const retried = assertGranted(await grant(resource, a, { requestId: grantId }), "the retried grant");
      assert.equal(retried.token, first.token, "a retried grant returns the original token");
      assertNoLongerThanLeft(retried, first, firstReplyAt, retrySentAt, "the retried grant");

      const renewId = newRequestId();
      const renewed = await renew(resource, a, first.token, { requestId: renewId });
      const renewedAt = performance.now();
      assertRenewed(renewed, first.token, "renewal");
      await sleep(pause);
      const renewRetrySentAt = performance.now();
      const renewedAgain = await renew(resource, a, first.token, { requestId: renewId });
      assertRenewed(renewedAgain, first.token, "the retried renewal");
      assert.equal(renewedAgain.token, first.token);
      assertNoLongerThanLeft(renewedAgain, renewed, renewedAt, renewRetrySentAt, "the retried renewal");
      assertDenied(await grant(resource, b), "retries created no second grant", { holder: a });
      await release(resource, a, first.token);
    });

    it("lets an unrenewed lease expire, never early, and fences the stale holder out", { timeout }, async () => {
      const resource = resourceFor("expiry");
      const [a, b] = [holderFor("a"), holderFor("b")];
      const fence = new FencedResource();
      const sentAt = performance.now();
      const first = assertGranted(await grant(resource, a), "grant to a");
      const grantedMs = first.durationMs ?? durationMs;
      assert.equal(fence.write(first.token, "a while holding"), true);

      // b campaigns; a never renews (a paused holder).
      const deadline = sentAt + grantedMs + expiryGraceMs + 10_000;
      let second;
      let grantedAt;
      while (performance.now() < deadline) {
        const reply = await grant(resource, b);
        if (reply.granted === true) {
          grantedAt = performance.now();
          second = assertGranted(reply, "grant to b after a's expiry");
          break;
        }
        assertDenied(reply, "grant to b while a's lease runs", { holder: a });
        await sleep(Math.min(250, Math.max(20, grantedMs / 10)));
      }
      assert.ok(second, `b was never granted within ${grantedMs + expiryGraceMs + 10_000} ms`);
      // The grantor started a's lease no earlier than a sent its request, so it may not hand the
      // resource to b before that plus the granted duration.
      assert.ok(
        grantedAt - sentAt >= grantedMs - 1,
        `re-granted early: after ${Math.round(grantedAt - sentAt)} ms of a ${grantedMs} ms lease`,
      );
      assert.ok(second.token > first.token, `tokens increase across expiry: ${second.token} > ${first.token}`);
      assertRefused(await renew(resource, a, first.token), "the expired holder's renewal");

      // The paused holder wakes and writes with its old token: the resource refuses it.
      assert.equal(fence.write(second.token, "b"), true, "the new holder writes");
      assert.equal(fence.write(first.token, "a, stale"), false, "the stale holder's write is rejected");
      assert.deepEqual(
        fence.writes.map((w) => w.payload),
        ["a while holding", "b"],
      );
      if (typeof grantor.fencedWrite === "function") {
        // A grantor that also guards a resource itself (the reference grantor's fenced writes).
        const own = await grantor.fencedWrite(resource, "b", second.token);
        assert.equal(own.accepted, true, `the grantor accepts the holder's write: ${JSON.stringify(own)}`);
        const stale = await grantor.fencedWrite(resource, "a, stale", first.token);
        assert.equal(stale.accepted, false, "the grantor rejects the stale write");
        assert.equal(stale.lastToken, second.token);
      }
      await release(resource, b, second.token);
    });

    it("drives a LeaseHolder: acquire, renew past the lease, deny others, release, hand over", { timeout }, async () => {
      const resource = resourceFor("holder");
      const leaseMs = durationMs;
      const marginMs = Math.max(100, Math.round(durationMs / 4));
      const a = new LeaseHolder(grantor, { resource, holderId: holderFor("a"), leaseMs, marginMs });
      const b = new LeaseHolder(grantor, { resource, holderId: holderFor("b"), leaseMs, marginMs });
      const lost = [];
      a.onLeaseLost = (reason) => lost.push(reason);
      try {
        const first = await a.acquire();
        assert.equal(first.acquired, true, `a acquires: ${JSON.stringify(first)}`);
        assertToken(first.token, "a's token");

        await sleep(leaseMs * 1.5); // only renewals can keep it this long
        assert.equal(a.lease.isSafelyHeld(), true, "renewals keep the lease");
        assert.equal(a.consecutiveFailures, 0);
        assert.deepEqual(lost, []);

        const denied = await b.acquire();
        assert.equal(denied.acquired, false, `b is denied: ${JSON.stringify(denied)}`);

        await a.release();
        assert.equal(a.lease.isSafelyHeld(), false);
        const second = await b.acquire({ wait: true, signal: AbortSignal.timeout(timeout / 2) });
        assert.equal(second.acquired, true);
        assert.ok(second.token > first.token, `handover increases the token: ${second.token} > ${first.token}`);
        assert.deepEqual(lost, [], "a release is not a loss");
      } finally {
        await a.release().catch(() => {});
        await b.release().catch(() => {});
      }
    });

    if (observe) {
      it("observes: the current state first, then a grant, a release, a grant and its expiry, in order", { timeout }, async () => {
        const resource = resourceFor("observe");
        const [a, b] = [holderFor("a"), holderFor("b")];
        const controller = new AbortController();
        const observation = grantor.observe(resource, { signal: controller.signal });
        const seen = [];
        /** Values until one satisfies `done`, within `ms`. */
        const until = async (done, ms, what) => {
          const deadline = performance.now() + ms;
          for (;;) {
            const left = deadline - performance.now();
            const next = await Promise.race([observation.next(), sleep(Math.max(1, left)).then(() => null)]);
            assert.ok(next !== null, `${what}: not observed within ${ms} ms; saw ${JSON.stringify(seen)}`);
            assert.equal(next.done, false, `${what}: the observation ended`);
            seen.push(next.value);
            if (done(next.value)) return next.value;
          }
        };
        try {
          const first = await until(() => true, 10_000, "the current state");
          assert.equal(first.holder, null, "nobody holds a fresh resource");
          assert.equal(first.token, null);
          const granted = assertGranted(await grant(resource, a), "grant to a");
          await until((c) => c.holder === a && c.token === granted.token, 10_000, "a's grant");
          await release(resource, a, granted.token);
          await until((c) => c.holder === null, 10_000, "a's release");
          const sentAt = performance.now();
          const second = assertGranted(await grant(resource, b), "grant to b");
          await until((c) => c.holder === b && c.token === second.token, 10_000, "b's grant");
          // b never renews: its grant runs out, which the observer sees without anyone asking.
          const grantedMs = second.durationMs ?? durationMs;
          await until((c) => c.holder === null, grantedMs + expiryGraceMs + 10_000, "b's expiry");
          assert.ok(performance.now() - sentAt >= grantedMs - 1, "an expiry is never seen early");
          for (let i = 1; i < seen.length; i++) {
            assert.ok(seen[i].version > seen[i - 1].version, `versions grow: ${JSON.stringify(seen)}`);
          }
          const holders = seen.map((c) => c.holder).filter((h, i, all) => i === 0 || h !== all[i - 1]);
          assert.deepEqual(holders, [null, a, null, b, null], "each change once, in order");
        } finally {
          controller.abort();
        }
        assert.deepEqual(await observation.next(), { value: undefined, done: true });
      });
    }
  });
}
