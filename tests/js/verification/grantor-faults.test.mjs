// Grantor faults: the real grantor restarted mid-lease on the same database file, and killed with
// SIGKILL under load. Afterwards: no double grant, no early re-grant, tokens still increasing, and
// nothing the grantor acknowledged lost.

import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { HttpGrantor, LeaseHolder } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { sleep } from "../support/memory-grantor.mjs";
import { LEASE_MS, MARGIN_MS, figureLog } from "../support/verification.mjs";

const round = (value) => Math.round(value * 10) / 10;

/** Waits until `predicate()` holds, for at most `maxMs`; resolves whether it held. */
async function waitFor(predicate, maxMs, stepMs = 20) {
  const until = performance.now() + maxMs;
  while (!predicate()) {
    if (performance.now() >= until) return false;
    await sleep(stepMs);
  }
  return true;
}

/**
 * Samples every few ms that no two of `holders` (all on one resource) safely hold at once, and
 * remembers who believed at the last sample.
 */
function overlapSampler(groups, everyMs = 5) {
  const overlaps = [];
  let count = 0;
  const timer = setInterval(() => {
    count += 1;
    for (const [resource, holders] of Object.entries(groups)) {
      const believing = holders.filter((h) => h.lease.isSafelyHeld());
      if (believing.length > 1 && overlaps.length < 10) {
        overlaps.push({ resource, at: performance.now(), holders: believing.map((h) => h.holderId) });
      }
    }
  }, everyMs);
  return {
    overlaps,
    get count() {
      return count;
    },
    stop: () => clearInterval(timer),
  };
}

/** A holder that campaigns for its resource, re-campaigns whenever it loses, and logs grants. */
function campaigner(grantorUrl, resource, holderId, { leaseMs, marginMs }, grants) {
  // Its own client: a grant's secret stays with the client that received it, so the holder's
  // fenced writes go through this one too.
  const grantor = new HttpGrantor({ baseUrl: grantorUrl });
  const holder = new LeaseHolder(grantor, {
    resource,
    holderId,
    leaseMs,
    marginMs,
  });
  const stop = new AbortController();
  const campaign = async () => {
    while (!stop.signal.aborted) {
      try {
        const outcome = await holder.acquire({ wait: true, signal: stop.signal });
        if (outcome.acquired) {
          grants.push({ resource, holderId, token: outcome.token, at: performance.now() });
          return;
        }
      } catch {
        return; // stopped
      }
    }
  };
  holder.onLeaseLost = () => {
    campaign();
  };
  campaign();
  return {
    holder,
    grantor,
    /** Dies: stops acting at once, telling no one. */
    crash() {
      stop.abort();
      holder.surrender("crashed");
    },
    async stop() {
      stop.abort();
      await holder.release();
    },
  };
}

describe("grantor faults", () => {
  const figures = figureLog("grantor-faults");
  let grantor;

  after(async () => {
    await grantor?.kill().catch(() => {});
    figures.write();
  });

  it("restarted mid-lease on the same database: no double grant, no early re-grant", async () => {
    const leaseMs = 3_000;
    const marginMs = 1_000;
    grantor = await startGrantor();
    const client = new HttpGrantor({ baseUrl: grantor.url });
    const config = (resource, holderId) => ({ resource, holderId, leaseMs, marginMs });
    // `kept` keeps renewing across the restart; `crashed` stops at the restart, as if its
    // process died with the grantor; `b`s want each resource all along.
    const kept = new LeaseHolder(client, config("restart/kept", "a"));
    const crashed = new LeaseHolder(client, config("restart/crashed", "a"));
    const keptLost = [];
    kept.onLeaseLost = (reason) => keptLost.push(reason);
    const first = async (holder) => {
      const outcome = await holder.acquire({ wait: true, signal: AbortSignal.timeout(leaseMs) });
      assert.equal(outcome.acquired, true, `${holder.resource} acquired: ${JSON.stringify(outcome)}`);
      return outcome.token;
    };
    const keptToken = await first(kept);
    const crashedToken = await first(crashed);
    assert.equal(
      (await client.fencedWrite("restart/crashed", { by: "a" }, crashedToken)).accepted,
      true,
    );
    const grants = [];
    const bKept = campaigner(grantor.url, "restart/kept", "b", { leaseMs, marginMs }, grants);
    const bCrashed = campaigner(grantor.url, "restart/crashed", "b", { leaseMs, marginMs }, grants);
    const sampler = overlapSampler({
      "restart/kept": [kept, bKept.holder],
      "restart/crashed": [crashed, bCrashed.holder],
    });
    try {
      await sleep(1_200);
      crashed.surrender("crashed");
      const stoppingAt = performance.now();
      await grantor.stop();
      const spawnedAt = performance.now();
      await grantor.restart();
      const upAt = performance.now();

      // Fenced state survives the restart.
      assert.deepEqual(await client.fencedRead("restart/crashed"), {
        payload: { by: "a" },
        lastToken: crashedToken,
      });
      // The re-grant comes a lease after the restart, and a retry or so later on a loaded machine.
      await waitFor(() => grants.some((g) => g.resource === "restart/crashed"), 2 * leaseMs);
      await sleep(Math.max(0, spawnedAt + 2 * leaseMs - performance.now())); // two leases across

      const regrant = grants.find((g) => g.resource === "restart/crashed");
      const keptSafe = kept.lease.isSafelyHeld();
      const staleAfterNewer = regrant
        ? [
            await bCrashed.grantor.fencedWrite("restart/crashed", { by: "b" }, regrant.token),
            await client.fencedWrite("restart/crashed", { by: "a, late" }, crashedToken),
          ]
        : null;
      const entry = {
        case: "restart (SIGTERM) mid-lease, same database",
        downtimeMs: round(upAt - stoppingAt),
        regrantAfterRestartMs: regrant ? round(regrant.at - spawnedAt) : null,
        leaseMs,
        samples: sampler.count,
      };
      await figures.record(entry, () => {
        assert.deepEqual(sampler.overlaps, [], "no two holders believed at once");
        // The holder that kept renewing kept its lease, with the same token, through the restart.
        assert.deepEqual(keptLost, []);
        assert.equal(keptSafe, true);
        assert.equal(kept.lease.token, keptToken);
        assert.equal(grants.filter((g) => g.resource === "restart/kept").length, 0, "b never got it");
        // The crashed holder's grant counted as held for its full duration from the restart.
        assert.ok(regrant, "b got the crashed holder's resource in the end");
        assert.ok(
          regrant.at >= spawnedAt + leaseMs,
          `re-granted ${(regrant.at - spawnedAt).toFixed(0)} ms after the restart, lease ${leaseMs}`,
        );
        assert.ok(regrant.token > crashedToken, "tokens keep increasing across the restart");
        assert.equal(staleAfterNewer[0].accepted, true);
        assert.equal(staleAfterNewer[1].accepted, false, "the crashed holder's token is fenced out");
      });
    } finally {
      sampler.stop();
      await Promise.allSettled([bKept.stop(), bCrashed.stop(), kept.release()]);
      await grantor.stop();
      grantor = undefined;
    }
  });

  it("killed with SIGKILL under load: nothing acknowledged is lost, tokens keep increasing", async () => {
    const leaseMs = LEASE_MS;
    const marginMs = MARGIN_MS;
    grantor = await startGrantor();
    const url = grantor.url;
    const client = new HttpGrantor({ baseUrl: url, timeoutMs: 1_000 });

    // Contended resources: two campaigning holders each, writing while (and only while) they hold.
    const grants = [];
    const groups = {};
    const campaigners = [];
    const pairs = {};
    for (let i = 0; i < 4; i += 1) {
      const resource = `kill/contended-${i}`;
      const pair = ["x", "y"].map((id) => campaigner(url, resource, id, { leaseMs, marginMs }, grants));
      campaigners.push(...pair);
      pairs[resource] = pair;
      groups[resource] = pair.map((c) => c.holder);
    }
    const sampler = overlapSampler(groups);

    // Load: loops of grant, fenced write, release, each on its own resource, logging every reply.
    let running = true;
    const acknowledged = []; // { resource, token, at }
    const writes = []; // { resource, token, at }
    let requests = 0;
    const loop = async (i) => {
      const resource = `kill/load-${i}`;
      let n = 0;
      while (running) {
        n += 1;
        try {
          requests += 1;
          const reply = await client.grant({
            resource,
            holder: `load-${i}`,
            durationMs: 300,
            requestId: `load-${i}-${n}`,
          });
          if (!reply.granted) {
            await sleep(20);
            continue;
          }
          acknowledged.push({ resource, token: reply.token, at: performance.now() });
          requests += 1;
          const write = await client.fencedWrite(resource, { n }, reply.token);
          if (write.accepted) writes.push({ resource, token: reply.token, at: performance.now() });
          requests += 1;
          await client.release({ resource, holder: `load-${i}`, token: reply.token });
        } catch {
          await sleep(20); // the grantor is down: try again
        }
      }
    };
    const loops = Array.from({ length: 6 }, (_, i) => loop(i));

    try {
      await sleep(1_500);
      const requestsBefore = requests;
      // Who believed right before the kill: their grants were live at the grantor.
      const liveAtKill = Object.entries(groups).flatMap(([resource, holders]) =>
        holders.filter((h) => h.lease.isSafelyHeld()).map((h) => ({ resource, holderId: h.holderId })),
      );
      const killedAt = performance.now();
      await grantor.kill();
      // On two resources the holder dies with the grantor: only the other one is left to take
      // over, which it may do only once the restored grant has run its full duration.
      const diedWithGrantor = liveAtKill.filter((l) => /-[01]$/.test(l.resource));
      for (const { resource, holderId } of diedWithGrantor) {
        pairs[resource].find((c) => c.holder.holderId === holderId).crash();
      }
      await sleep(1.5 * leaseMs); // long enough for every holder to surrender
      const spawnedAt = performance.now();
      await grantor.restart();
      const upAt = performance.now();
      // The other holder takes over where the live one died, a lease after the restart (and a
      // retry or so later on a loaded machine); the load runs on meanwhile.
      const takenOver = ({ resource, holderId }) =>
        grants.some((g) => g.resource === resource && g.holderId !== holderId && g.at > killedAt);
      await waitFor(() => diedWithGrantor.every(takenOver), 3 * leaseMs);
      await sleep(500);
      running = false;
      await Promise.all(loops);

      const entry = {
        case: "SIGKILL under load, restart on the same database",
        requestsPerSecondBeforeKill: round(requestsBefore / 1.5),
        downtimeMs: round(upAt - killedAt),
        liveAtKill: liveAtKill.length,
        takeoverAfterRestartMs: diedWithGrantor.map(({ resource, holderId }) => {
          const other = grants.find((g) => g.resource === resource && g.holderId !== holderId && g.at > killedAt);
          return other ? round(other.at - spawnedAt) : null;
        }),
        acknowledgedGrants: acknowledged.length,
        samples: sampler.count,
      };
      const finalReads = {};
      for (const resource of new Set(writes.map((w) => w.resource))) {
        finalReads[resource] = await client.fencedRead(resource);
      }
      await figures.record(entry, () => {
        assert.ok(requestsBefore >= 50, `under load: ${requestsBefore} requests in 1.5 s`);
        assert.deepEqual(sampler.overlaps, [], "no two holders believed at once");
        assert.ok(liveAtKill.length >= 1, "some lease was held when the grantor died");

        // Tokens keep increasing: per load resource, in the order the replies came (one loop
        // per resource, so that is the grantor's commit order), across the kill.
        for (let i = 0; i < 6; i += 1) {
          const tokens = acknowledged.filter((a) => a.resource === `kill/load-${i}`);
          const before = tokens.filter((a) => a.at < killedAt);
          const afterRestart = tokens.filter((a) => a.at > spawnedAt);
          assert.ok(before.length >= 1 && afterRestart.length >= 1, `load-${i} ran on both sides`);
          for (let k = 1; k < tokens.length; k += 1) {
            assert.ok(tokens[k].token > tokens[k - 1].token, `load-${i}: ${tokens[k - 1].token} then ${tokens[k].token}`);
          }
        }
        // Per contended resource: every grant after the restart has a larger token than every
        // grant before the kill, and none is reused.
        for (const resource of Object.keys(groups)) {
          const mine = grants.filter((g) => g.resource === resource);
          const tokens = mine.map((g) => g.token);
          assert.equal(new Set(tokens).size, tokens.length, `${resource}: no token reused`);
          const maxBefore = Math.max(0, ...mine.filter((g) => g.at < killedAt).map((g) => g.token));
          for (const g of mine.filter((g) => g.at > spawnedAt)) {
            assert.ok(g.token > maxBefore, `${resource}: ${g.token} after the restart > ${maxBefore}`);
          }
        }
        // No early re-grant: a lease live at the kill went to nobody else before it had run
        // its full duration from the restart.
        assert.equal(diedWithGrantor.length, 2, "a live holder died with the grantor on two resources");
        for (const { resource, holderId } of diedWithGrantor) {
          const other = grants.find((g) => g.resource === resource && g.holderId !== holderId && g.at > killedAt);
          assert.ok(other, `${resource}: the other holder took over after the restart`);
        }
        for (const { resource, holderId } of liveAtKill) {
          const other = grants.find((g) => g.resource === resource && g.holderId !== holderId && g.at > killedAt);
          if (other !== undefined) {
            assert.ok(
              other.at >= spawnedAt + leaseMs,
              `${resource} went to ${other.holderId} ${(other.at - spawnedAt).toFixed(0)} ms after the restart`,
            );
          }
        }
        // Nothing acknowledged was lost: every accepted fenced write is still there (or a newer
        // one is).
        for (const [resource, read] of Object.entries(finalReads)) {
          const maxAccepted = Math.max(...writes.filter((w) => w.resource === resource).map((w) => w.token));
          assert.ok(read.lastToken >= maxAccepted, `${resource}: ${read.lastToken} >= ${maxAccepted}`);
        }
      });
    } finally {
      running = false;
      sampler.stop();
      await Promise.all(loops);
      await Promise.allSettled(campaigners.map((c) => c.stop()));
      await grantor.stop().catch(() => {});
      grantor = undefined;
    }
  });
});
