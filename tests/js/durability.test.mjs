// Durability under SIGKILL and load, the short version of `scripts/bench-durability`: 200
// LeaseHolders on 20 resources of one real grantor process for about 20 s, doing fenced writes
// while they hold, with the grantor killed with SIGKILL 8 times and restarted on the same SQLite
// file. Afterwards: tokens never reused and increasing in grant order; no lease re-granted while
// another holder's confirmed lease could still run (on both clocks' evidence, and through every
// restart); no acknowledged fenced write lost or reordered. See bench/durability.mjs.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { checkInvariants, formatReport, runDurability } from "../../bench/durability.mjs";

describe("durability under SIGKILL and load", { timeout: 180_000 }, () => {
  it("200 holders, 8 kills: tokens, leases and fenced writes survive", async () => {
    const result = await runDurability({ holders: 200, resources: 20, seconds: 20, kills: 8 });
    console.log(formatReport(result).join("\n"));
    const { figures, checks } = result;
    for (const check of checks) assert.ok(check.ok, `${check.name}:\n${[].concat(check.detail).join("\n")}`);
    // The run did what it is for: kills, changes of holder, writes before and after restarts.
    assert.equal(figures.kills, 8);
    assert.ok(figures.grants >= 40, `only ${figures.grants} grants`);
    assert.ok(figures.renewals >= 40, `only ${figures.renewals} renewals`);
    assert.ok(figures.writesAccepted >= 200, `only ${figures.writesAccepted} accepted writes`);
    assert.ok(figures.probes >= 20 * 9, `only ${figures.probes} fenced-state reads`);
  });

  // The checks must be able to fail: each broken history below is caught by its invariant.
  describe("the checks catch", () => {
    const grant = (holder, token, sentAt, receivedAt, durationMs = 2_000) => ({
      op: "grant",
      holder,
      resource: "r",
      sentAt,
      receivedAt,
      reply: { granted: true, token, durationMs },
      errorKind: null,
    });
    const acquisition = (call, extra = {}) => ({
      holder: call.holder,
      resource: "r",
      token: call.reply.token,
      grant: call,
      acquiredAt: call.receivedAt,
      endAt: null,
      endReason: null,
      releaseSentAt: null,
      ...extra,
    });
    const history = (extra) => ({
      calls: [],
      acquisitions: [],
      writes: [],
      probes: [],
      restarts: [],
      leaseMs: 2_000,
      marginMs: 700,
      restartHoldsLeases: true,
      ...extra,
    });
    const failed = (h) => checkInvariants(h).results.filter((c) => !c.ok).map((c) => c.name);

    it("a token granted twice, or out of order", () => {
      const a = grant("a", 5, 0, 10);
      const b = grant("b", 5, 5_000, 5_010);
      assert.deepEqual(failed(history({ calls: [a, b], acquisitions: [acquisition(a), acquisition(b)] })), [
        "tokens never reused, increasing in grant order",
      ]);
      // A smaller token after a larger one; judged by token order, a's grant also came too early.
      const c = grant("c", 4, 5_000, 5_010);
      const outOfOrder = failed(history({ calls: [a, c], acquisitions: [acquisition(a), acquisition(c)] }));
      assert.ok(outOfOrder.includes("tokens never reused, increasing in grant order"), outOfOrder.join());
    });

    it("a grant while another holder's lease could still run", () => {
      const a = grant("a", 1, 0, 10);
      const early = grant("b", 2, 1_000, 1_010); // a's lease runs until at least 2000
      assert.deepEqual(failed(history({ calls: [a, early], acquisitions: [acquisition(a), acquisition(early)] })), [
        "no unexpired lease re-granted early (belief windows, grantor-side, restart rule)",
      ]);
      const afterRelease = grant("b", 2, 1_000, 1_010);
      const released = acquisition(a, { releaseSentAt: 900, endAt: 900, endReason: "released" });
      assert.deepEqual(failed(history({ calls: [a, afterRelease], acquisitions: [released, acquisition(afterRelease)] })), []);
    });

    it("a lease forgotten by a restart", () => {
      const a = grant("a", 1, 0, 10);
      // Killed at 1500 with a's lease live; restarted at 1600, so held until 3600 at least.
      const restarts = [{ killAt: 1_500, exitedAt: 1_520, spawnAt: 1_600, readyAt: 1_650 }];
      const b = grant("b", 2, 2_500, 2_510);
      const h = history({ calls: [a, b], acquisitions: [acquisition(a), acquisition(b)], restarts });
      assert.deepEqual(failed(h), ["no unexpired lease re-granted early (belief windows, grantor-side, restart rule)"]);
      assert.deepEqual(failed({ ...h, restartHoldsLeases: false }), []);
    });

    it("an acknowledged write lost, or accepted out of order", () => {
      const a = grant("a", 1, 0, 10);
      const b = grant("b", 2, 3_000, 3_010);
      const acquisitions = [acquisition(a, { releaseSentAt: 2_500, endAt: 2_500 }), acquisition(b)];
      const write = (id, token, seq, sentAt, accepted, lastToken = token) => ({
        id, resource: "r", holder: token === 1 ? "a" : "b", token, seq, sentAt, receivedAt: sentAt + 5, accepted, lastToken,
      });
      const writes = [write(1, 1, 1, 100, true), write(2, 1, 2, 200, true), write(3, 2, 1, 3_100, true)];
      const lost = { label: "after kill 1", resource: "r", sentAt: 3_200, receivedAt: 3_210, payload: { id: 2, token: 1, seq: 2 }, lastToken: 1 };
      assert.deepEqual(failed(history({ calls: [a, b], acquisitions, writes, probes: [lost] })), [
        "no accepted fenced write lost or reordered",
      ]);
      const kept = { ...lost, payload: { id: 3, token: 2, seq: 1 }, lastToken: 2 };
      assert.deepEqual(failed(history({ calls: [a, b], acquisitions, writes, probes: [kept] })), []);
      const stale = [...writes, write(4, 1, 3, 3_300, true)]; // token 1 accepted after 2 was acked
      assert.deepEqual(failed(history({ calls: [a, b], acquisitions, writes: stale })), [
        "no accepted fenced write lost or reordered",
      ]);
    });
  });
});
