// Several Deno processes sharing one local Deno KV database (SQLite), each with its own
// DenoKvGrantor and LeaseHolders (holder.mjs): they contend for the same resources, writing
// through fenced resources while they hold them, and one holding a lease is killed with SIGKILL.
// What must hold: no two holders believe they hold a resource at once, tokens only grow, every
// write made while holding is accepted and they land in token order, and a killed holder's lease
// passes to another only once its recorded expiry has passed, with a larger token.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { denoProcess, repo, scratchDir } from "../support/deno.mjs";

const HOLDER = join(repo, "tests", "js", "deno-kv", "holder.mjs");

/** A fresh database file in a scratch directory, and a way to start holder.mjs processes on it. */
function database(label) {
  const dir = scratchDir(`deno-kv-${label}`);
  const db = join(dir, "leases.sqlite3");
  const start = (id, mode, settings = {}) => denoProcess(HOLDER, [db, id, mode, JSON.stringify(settings)], { dir });
  return { start };
}

/** Sends `command` to an inspect process and resolves its answer (the next event named `event`). */
async function ask(inspector, command, event) {
  const before = inspector.events.length;
  inspector.send(command);
  return inspector.next((e) => e.event === event && inspector.events.indexOf(e) >= before, 30_000);
}

async function succeeded(process, what) {
  const { code, signal, stderr } = await process.done;
  assert.equal(code, 0, `${what} exited with ${code ?? signal}: ${stderr}`);
}

describe("Deno KV: several Deno processes sharing one database", { timeout: 300_000 }, () => {
  it("four processes contend for two resources: one holder at a time, tokens grow, fenced writes all accepted in token order", { timeout: 240_000 }, async () => {
    const { start } = database("contend");
    const resources = ["shared-a", "shared-b"];
    // Holds of 50 ms to 1.5 s on a 1 s lease: some are renewed while the others wait.
    const settings = { resources, rounds: 5, holdMs: [50, 1_500], leaseMs: 1_000, marginMs: 300 };
    const processes = ["p1", "p2", "p3", "p4"].map((id) => start(id, "contend", settings));
    for (const [i, process] of processes.entries()) await succeeded(process, `p${i + 1}`);
    const events = processes.flatMap((p) => p.events);

    for (const resource of resources) {
      const of = (name) => events.filter((e) => e.event === name && e.resource === resource);
      const acquired = of("acquired");
      assert.equal(acquired.length, 4 * settings.rounds, `${resource}: every round held once`);
      // Tokens only grow: each grant's token is larger than every earlier grant's, in the order
      // the processes were granted them.
      const byTime = [...acquired].sort((a, b) => a.at - b.at || a.token - b.token);
      const tokens = byTime.map((e) => e.token);
      assert.deepEqual(tokens, [...tokens].sort((a, b) => a - b), `${resource}: tokens in grant order`);
      assert.equal(new Set(tokens).size, tokens.length, `${resource}: no token granted twice`);
      // One holder at a time: each hold (from the acquire returning to the release being sent)
      // ends before the next token's begins. Both ends are read on the same wall clock, and each
      // grant follows the release before it through the database, so the order is causal.
      const releasing = new Map(of("releasing").map((e) => [e.token, e]));
      const losses = of("lost");
      assert.deepEqual(losses, [], `${resource}: a hold was lost`);
      for (let i = 1; i < byTime.length; i += 1) {
        const ended = releasing.get(byTime[i - 1].token);
        assert.ok(ended, `${resource}: token ${byTime[i - 1].token} was released`);
        assert.ok(
          ended.at <= byTime[i].at,
          `${resource}: ${byTime[i].id} acquired token ${byTime[i].token} at ${byTime[i].at}, before ${ended.id} released token ${ended.token} at ${ended.at}`,
        );
      }
      // Every write made while holding was accepted by both fenced resources; none was skipped
      // for want of a safe lease.
      const wrote = of("wrote");
      assert.ok(wrote.length >= acquired.length, `${resource}: at least one write per hold`);
      assert.deepEqual(of("not-safe"), [], `${resource}: writes skipped`);
      for (const write of wrote) {
        assert.deepEqual([write.fenced, write.kept], [true, true], `${resource}: ${JSON.stringify(write)}`);
      }
    }

    // The fenced log in Deno KV: every accepted write, in the order they landed, tokens never
    // going back; the same writes the processes reported.
    const inspector = start("inspector", "inspect");
    try {
      await inspector.next((e) => e.event === "ready", 30_000);
      for (const resource of resources) {
        const { log } = await ask(inspector, { log: resource }, "log");
        const wrote = events.filter((e) => e.event === "wrote" && e.resource === resource);
        assert.equal(log.length, wrote.length, `${resource}: one log entry per write`);
        assert.deepEqual(log.map((entry) => entry.seq), log.map((_, i) => i + 1));
        for (let i = 1; i < log.length; i += 1) {
          assert.ok(log[i].token >= log[i - 1].token, `${resource}: write ${i + 1} has token ${log[i].token} after ${log[i - 1].token}`);
        }
        const reported = new Set(wrote.map((e) => `${e.token}/${e.seq}`));
        assert.ok(log.every((entry) => reported.has(`${entry.token}/${entry.seq}`)), `${resource}: the log holds the writes reported`);
      }
    } finally {
      inspector.child.kill("SIGKILL");
    }
    const renewals = processes
      .flatMap((p) => p.events)
      .filter((e) => e.event === "stats")
      .reduce((n, e) => n + e.stats.renewals, 0);
    assert.ok(renewals > 0, "some holds were renewed");
  });

  it("SIGKILL of a process holding a lease: another takes over only once its recorded expiry has passed, with a larger token", { timeout: 120_000 }, async () => {
    const { start } = database("kill");
    const resource = "singleton";
    const leaseMs = 2_000;
    const inspector = start("inspector", "inspect");
    const holder = start("holder", "hold", { resource, leaseMs, marginMs: 600 });
    const waiting = [];
    try {
      await inspector.next((e) => e.event === "ready", 30_000);
      const { token } = await holder.next((e) => e.event === "acquired", 30_000);
      waiting.push(start("w1", "take", { resource }), start("w2", "take", { resource }));
      for (const w of waiting) await w.next((e) => e.event === "campaigning", 30_000);
      // Mid-hold: the lease has been renewed twice and the others are waiting for it.
      await holder.next((e) => e.event === "renewed" && holder.events.filter((r) => r.event === "renewed").length >= 2, 30_000);
      holder.child.kill("SIGKILL");
      const { signal } = await holder.done;
      assert.equal(signal, "SIGKILL");
      // What the grantor recorded of the killed holder's grant: nothing can change it now but a
      // grant to another, which cannot come before its expiry.
      const { record: killed } = await ask(inspector, { read: resource }, "record");
      assert.deepEqual([killed.holder, killed.token, killed.state], ["holder", token, "held"]);

      const acquisitions = waiting.map((w) => w.next((e) => e.event === "acquired", 60_000));
      for (const acquisition of acquisitions) acquisition.catch(() => {}); // the slower one is checked below
      const first = await Promise.race(acquisitions);
      assert.equal(first.token, token + 1, "the next grant, with the next token");
      // On the grantors' clock (Date.now, the same in every process here), the grant came after
      // the recorded expiry: the new record's expiry is its grant time plus its duration.
      const { record: taken } = await ask(inspector, { read: resource }, "record");
      assert.equal(taken.token, first.token);
      const grantedAtMs = taken.expiresAtMs - taken.durationMs;
      assert.ok(grantedAtMs >= killed.expiresAtMs, `granted at ${grantedAtMs}, before the killed grant's expiry ${killed.expiresAtMs}`);
      assert.ok(first.at >= killed.expiresAtMs, `${first.id} believed it held at ${first.at}, before ${killed.expiresAtMs}`);
      // And soon after it: the waiting holders were woken by the expiry, not by chance.
      assert.ok(first.at - killed.expiresAtMs < 5_000, `taken over ${first.at - killed.expiresAtMs} ms after the expiry`);

      // Both waiters end up holding it in turn, writing with their tokens; the killed holder's
      // token is fenced out of both fenced resources.
      for (const w of waiting) await succeeded(w, "a waiting holder");
      const tokens = waiting.flatMap((w) => w.events.filter((e) => e.event === "acquired").map((e) => e.token));
      assert.deepEqual(tokens.sort((a, b) => a - b), [token + 1, token + 2]);
      const writes = waiting.flatMap((w) => w.events.filter((e) => e.event === "wrote"));
      assert.deepEqual(writes.map((e) => [e.fenced, e.kept]), [[true, true], [true, true]]);
      const { fenced, kept } = await ask(inspector, { stale: resource, token }, "stale");
      assert.deepEqual([fenced.accepted, fenced.lastToken], [false, token + 2]);
      assert.deepEqual([kept.accepted, kept.lastToken], [false, token + 2]);
    } finally {
      for (const p of [inspector, holder, ...waiting]) p.child.kill("SIGKILL");
    }
  });
});
