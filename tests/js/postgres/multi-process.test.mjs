// Several reference grantor processes on one PostgreSQL database: holders and workers spread over
// all of them race for the same resources and items while one process is killed with SIGKILL, and
// what every reply promised is checked afterwards. No two holders may believe they hold a resource
// at the same time, tokens must increase in the order the grants were made whichever process made
// them, fenced writes must keep that order, no item may be claimed by two workers at once, and a
// retry sent to another process must get the original outcome.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { HttpGrantor } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { startPostgres } from "../support/postgres.mjs";

/** Grantor processes; one is killed during the race, the rest keep serving. */
const PROCESSES = 4;
const RESOURCES = ["alpha", "beta", "gamma"];
const HOLDERS = 12;
const LEASE_MS = 500;
const RACE_MS = 6_000;
/** When, into the race, the first process is killed. */
const KILL_AT_MS = 2_000;
const BURST_ITEMS = 80;
const FLAKY_ITEMS = 24;
const WORKERS = 8;
const CLAIM_MS = 300;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One HttpGrantor per process, sharing what they learn: each HttpGrantor sends the secrets of the
 * grants and claims it made itself, and every process derives the same secrets (the key is in the
 * database), so a client spreading its calls over several processes carries each secret along,
 * here as the explicit `leaseSecret` and `claimSecret` arguments.
 */
function sharingSecrets(grantors) {
  const key = (a, b) => JSON.stringify([a, b]);
  const leases = new Map(); // [resource, token] -> leaseSecret
  const claims = new Map(); // [itemId, token] -> claimSecret
  return grantors.map((grantor) => {
    const own = {
      async grant(request) {
        const reply = await grantor.grant(request);
        if (reply.granted === true) leases.set(key(request.resource, reply.token), reply.leaseSecret);
        return reply;
      },
      renew: (request) => grantor.renew({ ...request, leaseSecret: leases.get(key(request.resource, request.token)) }),
      release: (request) => grantor.release({ ...request, leaseSecret: leases.get(key(request.resource, request.token)) }),
      fencedWrite: (resource, payload, token) =>
        grantor.fencedWrite(resource, payload, token, { leaseSecret: leases.get(key(resource, token)) }),
      async claim(request) {
        const reply = await grantor.claim(request);
        if (reply.claimed === true) claims.set(key(reply.item.id, reply.token), reply.claimSecret);
        return reply;
      },
      complete: (request) => grantor.complete({ ...request, claimSecret: claims.get(key(request.itemId, request.token)) }),
    };
    return new Proxy(grantor, {
      get: (target, name) => own[name] ?? (typeof target[name] === "function" ? target[name].bind(target) : target[name]),
    });
  });
}
const requestId = () => randomBytes(8).toString("hex");
const now = () => performance.now();
const pick = (n) => Math.floor(Math.random() * n);

/** Failures after which the same request is sent again, to another process. */
const RETRYABLE = new Set(["unreachable", "timed_out", "server_error"]);

describe("reference grantors sharing one PostgreSQL database", { timeout: 120_000 }, () => {
  let postgres;
  const processes = [];
  let grantors = [];
  let killedAt = null;

  before(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase();
    for (let i = 0; i < PROCESSES; i++) processes.push(await startGrantor({ postgres: url }));
    grantors = sharingSecrets(processes.map((p) => new HttpGrantor({ baseUrl: p.url, timeoutMs: 5_000 })));
  });

  after(async () => {
    await Promise.allSettled(processes.map((p) => p.stop()));
    await postgres?.stop();
  });

  /**
   * Sends `method(...args)` to the processes in turn, and the very same request (same
   * requestId) to the next process after a retryable failure, as a holder that lost a reply
   * would. Resolves the reply with the time the first attempt was sent, the time the reply
   * arrived, and which process answered.
   */
  let calls = 0;
  async function call(method, ...args) {
    const first = calls++ % PROCESSES;
    const sentAt = now();
    let lastError;
    for (let attempt = 0; attempt < PROCESSES * 3; attempt++) {
      const index = (first + attempt) % PROCESSES;
      try {
        const reply = await grantors[index][method](...args);
        return { reply, sentAt, receivedAt: now(), index };
      } catch (error) {
        if (!RETRYABLE.has(error?.kind)) throw error;
        lastError = error;
      }
    }
    throw lastError;
  }

  /** A process other than `index` that is still running. */
  const otherLive = (index) => {
    const live = [...grantors.keys()].filter((i) => i !== index && !(killedAt !== null && i === 0));
    return live[pick(live.length)];
  };

  it("never lets two holders or two workers hold at once, across processes and a SIGKILL", async (t) => {
    const grants = []; // {resource, holder, token, sentAt, receivedAt, beliefEnd, index}
    const writes = []; // {resource, token, sentAt, receivedAt, accepted, lastToken}
    const crossChecks = { grant: 0, renew: 0, sampled: 0 };
    const start = now();
    const deadline = start + RACE_MS;

    const fencedWrite = async (resource, token, payload) => {
      // The leased resource's own fenced state: its grants' secrets authorize the writes.
      const { reply, sentAt, receivedAt } = await call("fencedWrite", resource, payload, token);
      writes.push({ resource, token, sentAt, receivedAt, ...reply });
    };

    /** Sends the identical request to another live process: it must answer exactly the same. */
    const crossCheck = async (method, request, original, index) => {
      if (crossChecks.sampled++ % 3 !== 0) return;
      let again;
      try {
        again = await grantors[otherLive(index)][method](request);
      } catch (error) {
        // That process was killed just now: nothing to compare.
        if (RETRYABLE.has(error?.kind)) return;
        throw error;
      }
      const succeeded = (reply) => reply.granted === true || reply.renewed === true;
      if (succeeded(original) && succeeded(again)) {
        // The same grant, promising only what it has left by the time of the retry.
        assert.equal(again.token, original.token, `a ${method} retried on another process`);
        assert.ok(again.durationMs >= 1 && again.durationMs <= original.durationMs, JSON.stringify(again));
      } else if (succeeded(original)) {
        // The grant ended before the retry arrived: the retry is told so, never granted anew.
        assert.ok(again.granted === false || again.renewed === false, JSON.stringify(again));
      } else {
        assert.deepEqual(again, original, `a ${method} retried on another process`);
      }
      crossChecks[method] += 1;
    };

    const holder = async (n) => {
      const name = `holder-${n}`;
      while (now() < deadline) {
        const resource = RESOURCES[pick(RESOURCES.length)];
        const request = { resource, holder: name, durationMs: LEASE_MS, requestId: requestId() };
        const { reply, sentAt, receivedAt, index } = await call("grant", request);
        if (!reply.granted) {
          await sleep(10 + pick(30));
          continue;
        }
        assert.equal(reply.durationMs, LEASE_MS);
        await crossCheck("grant", request, reply, index);
        // A holder believes from the reply until its duration after the request was sent.
        const grant = { resource, holder: name, token: reply.token, sentAt, receivedAt, index };
        grant.beliefEnd = sentAt + reply.durationMs;
        grants.push(grant);
        await fencedWrite(resource, reply.token, { holder: name, token: reply.token });
        for (let renewals = pick(3); renewals > 0; renewals--) {
          await sleep(LEASE_MS / 3);
          if (now() >= grant.beliefEnd) break;
          const renewal = { ...request, token: reply.token, requestId: requestId() };
          const renewed = await call("renew", renewal);
          if (!renewed.reply.renewed) break;
          await crossCheck("renew", renewal, renewed.reply, renewed.index);
          grant.beliefEnd = Math.max(grant.beliefEnd, renewed.sentAt + renewed.reply.durationMs);
        }
        if (Math.random() < 0.5 && now() < grant.beliefEnd) {
          // The holder stops believing when it decides to give the lease back.
          const releasedAt = now();
          const released = await call("release", { resource, holder: name, token: reply.token });
          if (released.reply.released) grant.beliefEnd = Math.min(grant.beliefEnd, releasedAt);
        }
        // Wait out its own belief, then write as a paused holder would: with the old token.
        await sleep(Math.max(0, grant.beliefEnd - now()) + LEASE_MS);
        await fencedWrite(resource, reply.token, { holder: name, token: reply.token, late: true });
      }
    };

    // Workers, part one: a burst on long claims, completed at once. Every item goes to exactly
    // one worker.
    const burst = await call("enqueue", "burst", Array.from({ length: BURST_ITEMS }, (_, i) => ({ payload: i })));
    assert.equal(burst.reply.items.length, BURST_ITEMS);
    const burstClaims = [];
    const burstWorker = async (n) => {
      const worker = `burst-${n}`;
      for (;;) {
        const { reply } = await call("claim", { queue: "burst", worker, claimMs: 60_000, requestId: requestId() });
        if (!reply.claimed) return;
        burstClaims.push({ item: reply.item.id, token: reply.token, worker });
        await call("complete", { queue: "burst", itemId: reply.item.id, worker, token: reply.token, result: n });
        await sleep(pick(20));
      }
    };

    // Workers, part two: short claims that some workers abandon (as if they crashed), so items
    // are claimed again after the claim ran out; the abandoning worker later tries to complete.
    const flaky = await call("enqueue", "flaky", Array.from({ length: FLAKY_ITEMS }, (_, i) => ({ payload: i, maxAttempts: 50 })));
    assert.equal(flaky.reply.items.length, FLAKY_ITEMS);
    const flakyClaims = []; // {item, token, worker, sentAt, receivedAt, end}
    const completions = []; // {item, token, worker}
    const lateCompletions = [];
    const flakyWorker = async (n) => {
      const worker = `flaky-${n}`;
      // Runs until every item is done, past the race if need be.
      for (;;) {
        const { reply, sentAt, receivedAt } = await call("claim", { queue: "flaky", worker, claimMs: CLAIM_MS, requestId: requestId() });
        if (!reply.claimed) {
          const stats = await call("queueStats", "flaky");
          if (stats.reply.done === FLAKY_ITEMS) return;
          await sleep(20 + pick(30));
          continue;
        }
        const claim = { item: reply.item.id, token: reply.token, worker, sentAt, receivedAt, end: sentAt + reply.claimMs };
        flakyClaims.push(claim);
        if (Math.random() < 0.3) {
          // Abandoned: this worker acts again only well after its claim ran out.
          lateCompletions.push(
            sleep(CLAIM_MS * 3).then(async () => {
              try {
                await call("complete", { queue: "flaky", itemId: claim.item, worker, token: claim.token, result: "late" });
                return "completed";
              } catch (error) {
                return error?.grantorCode ?? String(error);
              }
            }),
          );
          continue;
        }
        await sleep(pick(CLAIM_MS / 3));
        if (now() >= claim.end) continue; // too slow: the claim is no longer safely held
        claim.end = now(); // the worker stops acting on the item once it sends the completion
        try {
          await call("complete", { queue: "flaky", itemId: claim.item, worker, token: claim.token, result: n });
          completions.push({ item: claim.item, token: claim.token, worker });
        } catch (error) {
          // The claim ran out before the completion was committed: another worker takes the item.
          if (error?.grantorCode !== "stale_claim") throw error;
        }
      }
    };

    const killer = (async () => {
      await sleep(KILL_AT_MS);
      await processes[0].kill();
      killedAt = now();
    })();

    await Promise.all([
      killer,
      ...Array.from({ length: HOLDERS }, (_, n) => holder(n)),
      ...Array.from({ length: WORKERS }, (_, n) => burstWorker(n)),
      ...Array.from({ length: WORKERS }, (_, n) => flakyWorker(n)),
    ]);
    const late = await Promise.all(lateCompletions);

    // Leases: per resource, in token order, each grant came after every earlier holder stopped
    // believing, and after every earlier grant was asked for.
    // Enough for several handovers per resource even on a heavily loaded machine.
    assert.ok(grants.length >= 10, `only ${grants.length} grants`);
    for (const resource of RESOURCES) {
      const ordered = grants.filter((g) => g.resource === resource).sort((a, b) => a.token - b.token);
      for (let j = 1; j < ordered.length; j++) {
        assert.ok(ordered[j].token > ordered[j - 1].token, `${resource}: token ${ordered[j].token} granted twice`);
      }
      for (let i = 0; i < ordered.length; i++) {
        for (let j = i + 1; j < ordered.length; j++) {
          const [a, b] = [ordered[i], ordered[j]];
          assert.ok(
            b.receivedAt > a.sentAt,
            `${resource}: token ${b.token} was granted before token ${a.token} was asked for`,
          );
          if (a.beliefEnd <= a.receivedAt) continue; // a never believed it held
          assert.ok(
            b.receivedAt >= a.beliefEnd,
            `${resource}: ${b.holder} (token ${b.token}, via process ${b.index}) held while ${a.holder} ` +
              `(token ${a.token}, via process ${a.index}) still believed it held, ` +
              `${Math.round(a.beliefEnd - b.receivedAt)} ms before its lease ended`,
          );
        }
      }
    }
    const servedBy = new Set(grants.map((g) => g.index));
    assert.ok(servedBy.size >= 2, `grants came from process ${[...servedBy]} only`);
    assert.ok(grants.some((g) => g.receivedAt > killedAt), "no grant after the SIGKILL");
    // (Renewals may be rare on a loaded machine; the last test retries one deterministically.)
    assert.ok(crossChecks.grant > 0, `cross-process retries: ${JSON.stringify(crossChecks)}`);

    // Fenced writes: an accepted write reports its own token, a refused one a larger token, and
    // once a write was accepted no write with a smaller token is accepted after it.
    for (const w of writes) {
      if (w.accepted) assert.equal(w.lastToken, w.token);
      else assert.ok(w.lastToken > w.token, `refused ${w.token} with lastToken ${w.lastToken}`);
    }
    for (const resource of RESOURCES) {
      const mine = writes.filter((w) => w.resource === resource);
      for (const a of mine.filter((w) => w.accepted)) {
        for (const b of mine) {
          if (b.sentAt > a.receivedAt && b.token < a.token) {
            assert.equal(b.accepted, false, `${resource}: token ${b.token} written after token ${a.token}`);
          }
        }
      }
      const accepted = mine.filter((w) => w.accepted).map((w) => w.token);
      const read = await call("fencedRead", resource);
      assert.equal(read.reply.lastToken, Math.max(...accepted));
    }
    assert.ok(writes.some((w) => !w.accepted), "no stale write was ever refused");

    // The burst: every item claimed exactly once, with its first token, and completed.
    assert.equal(burstClaims.length, BURST_ITEMS);
    assert.equal(new Set(burstClaims.map((c) => c.item)).size, BURST_ITEMS, "an item was claimed twice");
    assert.ok(burstClaims.every((c) => c.token === 1));
    assert.equal(new Set(burstClaims.map((c) => c.worker)).size > 1, true);
    const burstStats = await call("queueStats", "burst");
    assert.deepEqual(burstStats.reply, { queue: "burst", pending: 0, claimed: 0, done: BURST_ITEMS, dead: 0 });

    // The flaky queue: per item, a claim starts only after the previous claim ended (ran out, or
    // its worker completed), tokens increase, and the one completion recorded is a live claim's.
    assert.equal(completions.length, FLAKY_ITEMS, "every item is completed exactly once");
    for (const { itemId } of flaky.reply.items) {
      const claims = flakyClaims.filter((c) => c.item === itemId).sort((a, b) => a.token - b.token);
      for (let j = 1; j < claims.length; j++) {
        const [a, b] = [claims[j - 1], claims[j]];
        assert.ok(b.token > a.token, `item ${itemId}: claim token ${b.token} handed out twice`);
        assert.ok(
          b.receivedAt >= a.end,
          `item ${itemId}: ${b.worker} claimed (token ${b.token}) while ${a.worker} held token ${a.token}`,
        );
      }
      const record = await call("queueItem", "flaky", itemId);
      const completion = completions.find((c) => c.item === itemId);
      assert.equal(record.reply.state, "done");
      assert.equal(record.reply.completedToken, completion.token);
      assert.equal(record.reply.completedBy, completion.worker);
    }
    assert.ok(late.length > 0, "no claim was abandoned");
    assert.deepEqual(new Set(late), new Set(["stale_claim"]), "a late completion was accepted");
    t.diagnostic(
      `${grants.length} grants (${grants.filter((g) => g.receivedAt > killedAt).length} after the SIGKILL), ` +
        `${writes.length} fenced writes (${writes.filter((w) => !w.accepted).length} refused), ` +
        `${crossChecks.grant + crossChecks.renew} cross-process retries, ` +
        `grants from ${servedBy.size} processes, ` +
        `${burstClaims.length} + ${flakyClaims.length} claims (${late.length} abandoned), ${PROCESSES} processes`,
    );
  });

  it("keeps serving on the surviving processes", async () => {
    assert.notEqual(killedAt, null);
    for (const [index, grantor] of grantors.entries()) {
      if (index === 0) continue;
      const resource = `survivor-${index}`;
      const granted = await grantor.grant({ resource, holder: "h", durationMs: 5_000, requestId: requestId() });
      assert.equal(granted.granted, true, JSON.stringify(granted));
    }
    await assert.rejects(grantors[0].status("alpha"), { kind: "unreachable" });
  });

  it("answers a retry on another process with the original outcome", async () => {
    const [a, b] = [grantors[1], grantors[2]];
    const grant = { resource: "retry", holder: "h", durationMs: 10_000, requestId: requestId() };
    // Sent to two processes at once, as when a holder gives up on a slow reply: one grants,
    // the other waits for it and replays it.
    // A replay keeps the outcome and the token, and promises only what the grant has left.
    const sameGrant = (replay, original) => {
      assert.equal(replay.granted, true, JSON.stringify(replay));
      assert.equal(replay.token, original.token);
      assert.ok(replay.durationMs >= 1 && replay.durationMs <= 10_000, JSON.stringify(replay));
    };
    const [first, second] = await Promise.all([a.grant(grant), b.grant(grant)]);
    assert.equal(first.granted, true, JSON.stringify(first));
    sameGrant(second, first);
    sameGrant(await grantors[3].grant(grant), first);

    const renewal = { ...grant, token: first.token, durationMs: 8_000, requestId: requestId() };
    const renewed = await b.renew(renewal);
    assert.deepEqual(renewed, { renewed: true, token: first.token, durationMs: 8_000 });
    const renewedAgain = await a.renew(renewal);
    assert.equal(renewedAgain.renewed, true);
    assert.equal(renewedAgain.token, first.token);
    assert.ok(renewedAgain.durationMs >= 1 && renewedAgain.durationMs <= 8_000, JSON.stringify(renewedAgain));

    const denial = { ...grant, holder: "other", requestId: requestId() };
    const denied = await a.grant(denial);
    assert.equal(denied.granted, false);
    assert.deepEqual(await b.grant(denial), denied, "a denial is replayed too");

    // The same id with another request is refused on any process.
    await assert.rejects(b.grant({ ...grant, durationMs: 9_000 }), { grantorCode: "request_id_reused" });

    await a.enqueue("retry", [{ payload: "one" }, { payload: "two" }]);
    const claim = { queue: "retry", worker: "w", claimMs: 10_000, requestId: requestId() };
    const [claimedHere, claimedThere] = await Promise.all([a.claim(claim), b.claim(claim)]);
    assert.equal(claimedHere.claimed, true);
    assert.deepEqual(claimedThere.item, claimedHere.item, "a retried claim gets the same item");
    assert.equal(claimedThere.token, claimedHere.token, "and the same token");
    assert.ok(claimedThere.claimMs >= 1 && claimedThere.claimMs <= 10_000, JSON.stringify(claimedThere));
    const stats = await grantors[3].queueStats("retry");
    assert.equal(stats.claimed, 1, JSON.stringify(stats));
  });
});
