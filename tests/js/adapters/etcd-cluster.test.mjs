// EtcdGrantor against a real three-member etcd cluster (3.4, started by the test on 127.0.0.1)
// whose leader is killed with SIGKILL under load, twice, and restarted. Several LeaseHolders in
// this one process (so their performance.now() intervals compare) contend for a few resources
// with 3 s and 6 s leases, renew, release and write through fencing tokens, each through its own
// EtcdGrantor given all three members. Checked: no two holders of a resource believe at once; no
// belief outlives etcd's own hold of the key; fenced writes land in token order; the holders make
// progress again after each election; a watcher per resource (EtcdGrantor.observe) reports every
// change of the key exactly once, in order, across both kills. Measured (and printed): the TTL etcd's new leader gives the
// leases it inherits, and the time from each kill to a new leader and to the next grant or
// renewal.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { EtcdGrantor, LeaseHolder } from "tenure";
import { keyHistory, startEtcdCluster } from "../support/etcd-cluster.mjs";
import { b64, lockKey, unb64 } from "../support/etcd.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.now();

/**
 * The resources and their holders' settings. 3 s leases, which an election (1 to 4 s here) often
 * takes past their margin, so their holders lose them and others take over: held briefly (many
 * handovers), or for several seconds. And 6 s leases, whose holders renew through an election, on
 * the new leader, held for the whole run: a holder that went on believing after a leader change
 * without renewing would still believe when etcd lets its key go, and another would take it.
 */
const GROUPS = [
  { resources: ["r0"], leaseMs: 3_000, marginMs: 1_000, holdMs: [1_000, 4_000] },
  { resources: ["r1"], leaseMs: 3_000, marginMs: 1_000, holdMs: [4_000, 8_000] },
  { resources: ["r2"], leaseMs: 6_000, marginMs: 1_500, holdMs: [60_000, 60_000] },
];
const RESOURCES = GROUPS.flatMap((group) => group.resources);
const HOLDERS_PER_RESOURCE = 3;
/** A lease the test grants itself and never keeps alive, to measure what a leader change does. */
const PROBE_TTL_S = 10;

/**
 * One gateway call straight to a member, with a short timeout: the test's own view of etcd, never
 * through the adapter under test. Resolves `{reply, sentAt, answeredAt}`.
 */
async function direct(url, path, body, timeoutMs = 1_500) {
  const sentAt = now();
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return { reply: JSON.parse(text.split("\n")[0]), sentAt, answeredAt: now() };
}

describe("EtcdGrantor against a three-member etcd cluster whose leader is killed under load", () => {
  let cluster;

  before(async () => {
    cluster = await startEtcdCluster();
  });

  after(async () => {
    await cluster?.cleanup();
  });

  /** `direct` on the running members in turn, from a rotating start; throws if none answers. */
  let turn = 0;
  async function onLive(path, body, timeoutMs) {
    const live = cluster.members.filter((m) => m.alive);
    turn += 1;
    let last;
    for (let i = 0; i < live.length; i += 1) {
      const member = live[(turn + i) % live.length];
      try {
        return { ...(await direct(member.url, path, body, timeoutMs)), member };
      } catch (error) {
        last = error;
      }
    }
    throw last ?? new Error("no etcd member is running");
  }

  it("keeps one believer per resource, within etcd's hold, through two leader kills", async () => {
    const started = now();
    const at = (t) => Math.round(t - started);
    // etcd's history from here on is the record of every change (nothing is compacted).
    const { reply: head } = await onLive("/v3/kv/range", { key: b64("none") }, 5_000);
    const fromRevision = Number(head.header.revision) + 1;
    const log = [];
    const note = (what) => log.push(`${at(now())} ms: ${what}`);

    // ---- The holders' side: believed intervals, from their own events and readings. ----
    /** Every hold: `{resource, holder, token, start, promisedUntil, end, how}`. */
    const holds = [];
    /** Tokens some holder asked etcd to release (a key deleted before its TTL). */
    const releasedTokens = new Set();
    /** Successful grants and renewals: `{at, kind, resource}`. */
    const successes = [];
    /** Fenced writes: `{resource, holder, token, accepted, revision, stale}`. */
    const writes = [];
    /** Moments two holders of one resource were seen believing at once. */
    const doubleBeliefs = [];
    let stopping = false;
    const stop = new AbortController();

    const holders = [];
    for (const group of GROUPS) {
      for (const resource of group.resources) {
        for (let i = 0; i < HOLDERS_PER_RESOURCE; i += 1) {
          const grantor = new EtcdGrantor({ endpoints: cluster.urls, timeoutMs: 2_000 });
          assert.deepEqual(grantor.endpoints, cluster.urls);
          // Every release is recorded, the holder's own hand-backs (a grant it refused) too.
          const release = grantor.release.bind(grantor);
          grantor.release = (args) => {
            releasedTokens.add(args.token);
            return release(args);
          };
          const holder = new LeaseHolder(grantor, {
            resource,
            holderId: `${resource}-h${i}`,
            leaseMs: group.leaseMs,
            marginMs: group.marginMs,
          });
          holders.push({ resource, group, holder, current: null });
        }
      }
    }

    /** What `entry`'s holder promises to believe until, as its lease says now. */
    const promise = ({ holder, group }) => now() + holder.lease.remainingMs() - group.marginMs;
    /** Extends the current hold's promise by what the holder now says. */
    const reading = (entry) => {
      if (entry.current !== null && entry.holder.lease.isSafelyHeld()) {
        entry.current.promisedUntil = Math.max(entry.current.promisedUntil, promise(entry));
      }
    };
    /** Every holder of `entry`'s resource but it that believes now. */
    const othersBelieving = (entry) =>
      holders.filter((other) => other !== entry && other.resource === entry.resource && other.holder.lease.isSafelyHeld());

    for (const entry of holders) {
      entry.holder.onRenewed = () => {
        successes.push({ at: now(), kind: "renewal", resource: entry.resource });
        reading(entry);
      };
      entry.holder.onLeaseLost = (reason) => {
        if (entry.current !== null) {
          entry.current.end = Math.min(entry.current.promisedUntil, now());
          entry.current.how = reason;
        }
      };
    }

    // One reading of every holder every 5 ms: the promises, and the instant check that at most
    // one holder of a resource believes.
    const sampler = setInterval(() => {
      for (const entry of holders) {
        reading(entry);
        if (entry.holder.lease.isSafelyHeld() && othersBelieving(entry).length > 0) {
          doubleBeliefs.push(`${at(now())} ms: ${entry.holder.holderId} and ${othersBelieving(entry).map((o) => o.holder.holderId)}`);
        }
      }
    }, 5);

    /** A write to `data/<resource>` that etcd accepts only while the lock key has `token`'s create revision. */
    async function fencedWrite(entry, token, stale) {
      const { resource } = entry;
      const record = { resource, holder: entry.holder.holderId, token, stale, accepted: null, revision: null };
      try {
        const { reply } = await onLive(
          "/v3/kv/txn",
          {
            compare: [{ key: b64(lockKey(resource)), target: "CREATE", result: "EQUAL", create_revision: String(token) }],
            success: [{ request_put: { key: b64(`data/${resource}`), value: b64(`${token}`) } }],
          },
          800,
        );
        record.accepted = reply.succeeded === true;
        record.revision = Number(reply.header.revision);
      } catch {
        // Unanswered: it may or may not have landed; the order check reads only answered ones.
      }
      writes.push(record);
    }

    async function run(entry) {
      const { holder } = entry;
      while (!stopping) {
        let outcome;
        try {
          outcome = await holder.acquire({ wait: true, signal: stop.signal });
        } catch {
          break; // stopped
        }
        if (!outcome.acquired) continue;
        successes.push({ at: now(), kind: "grant", resource: entry.resource });
        const hold = {
          resource: entry.resource,
          holder: holder.holderId,
          token: outcome.token,
          start: now(),
          promisedUntil: promise(entry),
          end: null,
          how: null,
        };
        holds.push(hold);
        entry.current = hold;
        const others = othersBelieving(entry);
        if (others.length > 0) doubleBeliefs.push(`${at(hold.start)} ms: ${holder.holderId} granted while ${others.map((o) => o.holder.holderId)} believed`);

        // Hold for a while, writing every 100 ms while safely held.
        const [shortest, longest] = entry.group.holdMs;
        const holdFor = shortest + Math.random() * (longest - shortest);
        while (!stopping && hold.end === null && now() - hold.start < holdFor) {
          if (holder.lease.isSafelyHeld()) await fencedWrite(entry, hold.token, false);
          await sleep(100);
        }
        if (hold.end === null) {
          // Still believed (or lost without a callback yet): release() ends the belief now.
          const end = Math.min(hold.promisedUntil, now());
          const releasing = holder.release();
          if (hold.end === null) {
            hold.end = end;
            hold.how = "released";
          }
          await releasing.catch(() => {});
        }
        entry.current = null;
        // The stale write a holder that stopped believing might still send: fencing must refuse
        // it once a newer grant exists, and the order check below catches it if not.
        await fencedWrite(entry, hold.token, true);
        await sleep(Math.random() * 300);
      }
    }

    // ---- etcd's side: when each grant's key went away, and its lease's TTL. ----
    /** Per token: `{resource, lease, lastPresentSentAt, goneBy, ttls: [{sentAt, ttl}]}`. */
    const grants = new Map();
    let monitoring = true;
    let polls = 0;
    async function monitor() {
      while (monitoring) {
        polls += 1;
        await Promise.all(
          RESOURCES.map(async (resource) => {
            let seen;
            try {
              seen = await onLive("/v3/kv/range", { key: b64(lockKey(resource)) });
            } catch {
              return; // no member answered in time (an election): nothing learned
            }
            const kv = seen.reply.kvs?.[0];
            const token = kv === undefined ? null : Number(kv.create_revision);
            for (const [other, grant] of grants) {
              if (grant.resource === resource && other !== token && grant.goneBy === null) {
                grant.goneBy = seen.answeredAt;
              }
            }
            if (token === null) return;
            let grant = grants.get(token);
            if (grant === undefined) {
              grant = { resource, holder: unb64(kv.value ?? ""), lease: kv.lease, lastPresentSentAt: 0, goneBy: null, ttls: [] };
              grants.set(token, grant);
            }
            grant.lastPresentSentAt = Math.max(grant.lastPresentSentAt, seen.sentAt);
            if (polls % 3 === 0) {
              try {
                const live = await onLive("/v3/lease/timetolive", { ID: grant.lease });
                grant.ttls.push({ sentAt: live.sentAt, answeredAt: live.answeredAt, ttl: Number(live.reply.TTL ?? 0) });
              } catch {
                // an election: no sample
              }
            }
          }),
        );
        await sleep(50);
      }
    }

    /**
     * TTL of lease `id` on `member` (a survivor), or null. Right after a leader change etcd may
     * answer its "forever" (2^63 - 1 ns, 9223372036 s) for a lease whose lessor was not primary
     * yet: such a reading is counted and asked again, up to five times.
     */
    const foreverReadings = [];
    const ttlOn = async (member, id) => {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        try {
          const { reply } = await direct(member.url, "/v3/lease/timetolive", { ID: id }, 5_000);
          const ttl = Number(reply.TTL ?? 0);
          if (ttl < 1_000_000) return ttl;
          foreverReadings.push({ at: Math.round(now() - started), member: member.name, ttl: reply.TTL });
        } catch {
          // an election: ask again
        }
        await sleep(200);
      }
      return null;
    };

    // ---- The run: load, kill the leader, restart it, kill the new leader, restart it. ----
    const kills = [];
    const watchStop = new AbortController();
    const running = holders.map(run);
    const watching = monitor();
    // One watcher per resource, through all three endpoints like the holders: every change it
    // reports is kept, to be compared with etcd's own history of the key after the run.
    const watched = Object.fromEntries(RESOURCES.map((resource) => [resource, []]));
    const watchers = RESOURCES.map(async (resource) => {
      const observer = new EtcdGrantor({ endpoints: cluster.urls, timeoutMs: 2_000 });
      for await (const change of observer.observe(resource, { signal: watchStop.signal })) {
        watched[resource].push({ at: now(), version: change.version, holder: change.holder, token: change.token });
      }
    });
    try {
      await sleep(3_000);
      for (const round of [1, 2]) {
        const leader = await cluster.waitForLeader();
        const survivor = cluster.members.find((m) => m.alive && m.index !== leader.index);
        const { reply: probe } = await direct(survivor.url, "/v3/lease/grant", { TTL: String(PROBE_TTL_S) }, 5_000);
        await sleep(2_000);
        const held = [...grants.values()].filter((g) => g.goneBy === null).map((g) => g.lease);
        const before = { probe: await ttlOn(survivor, probe.ID), held: await Promise.all(held.map((id) => ttlOn(survivor, id))) };

        const killedAt = now();
        await cluster.kill(leader);
        note(`killed leader ${leader.name}`);
        const next = await cluster.waitForLeader({ not: leader, maxMs: 20_000 });
        const electedAt = now();
        note(`new leader ${next.name}`);
        const after = { probe: await ttlOn(survivor, probe.ID), held: await Promise.all(held.map((id) => ttlOn(survivor, id))) };
        kills.push({ round, leader: leader.name, next: next.name, killedAt, electedAt, before, after });

        await sleep(3_000);
        await cluster.restart(leader);
        note(`restarted ${leader.name}`);
        await sleep(1_000);
      }
      // Longer than etcd keeps a 6 s lease that nobody renews after the last election.
      await sleep(4_000);
    } finally {
      stopping = true;
      stop.abort();
      await Promise.all(running);
      clearInterval(sampler);
      // A last look at etcd once every holder released, then the monitor stops.
      await sleep(300);
      monitoring = false;
      await watching;
    }

    // etcd's own history of each resource's key and of its fenced data, read on a running member.
    const history = async (key) => {
      const member = cluster.members.find((m) => m.alive);
      return keyHistory(member.url, key, fromRevision);
    };
    const lockHistory = {};
    const dataHistory = {};
    for (const resource of RESOURCES) {
      lockHistory[resource] = await history(lockKey(resource));
      dataHistory[resource] = await history(`data/${resource}`);
    }
    // The watchers catch up with the last change of their key, then stop.
    for (const resource of RESOURCES) {
      const last = lockHistory[resource].at(-1)?.modRevision ?? 0;
      const deadline = now() + 10_000;
      while ((watched[resource].at(-1)?.version ?? 0) < last && now() < deadline) await sleep(50);
    }
    watchStop.abort();
    await Promise.all(watchers);

    // ---- Figures. ----
    const grantsMade = holds.length;
    const renewals = successes.filter((s) => s.kind === "renewal").length;
    const answered = writes.filter((w) => w.accepted !== null);
    const recovery = kills.map((k) => {
      const after = (list) => list.filter((s) => s.at > k.killedAt).sort((a, b) => a.at - b.at)[0];
      const next = after(successes);
      const perResource = Object.fromEntries(
        RESOURCES.map((resource) => {
          const first = after(successes.filter((s) => s.resource === resource));
          return [resource, first === undefined ? null : `${Math.round(first.at - k.killedAt)} ms (${first.kind})`];
        }),
      );
      return {
        round: k.round,
        killed: k.leader,
        elected: k.next,
        electionMs: Math.round(k.electedAt - k.killedAt),
        killToProgressMs: next === undefined ? null : Math.round(next.at - k.killedAt),
        killToProgressPerResource: perResource,
        probeTtlBeforeS: k.before.probe,
        probeTtlAfterS: k.after.probe,
        heldTtlBeforeS: k.before.held,
        heldTtlAfterS: k.after.held,
      };
    });
    /** How long before etcd was seen without the key each hold ended: released, and not. */
    const slack = (released) => {
      const ms = holds
        .filter((h) => (h.how === "released") === released && grants.get(h.token)?.goneBy != null)
        .map((h) => grants.get(h.token).goneBy - h.end);
      return ms.length === 0 ? null : { min: Math.round(Math.min(...ms)), n: ms.length };
    };
    const failureKinds = {};
    for (const { holder } of holders) {
      for (const [kind, n] of Object.entries(holder.stats().failureKinds)) failureKinds[kind] = (failureKinds[kind] ?? 0) + n;
    }
    const figures = {
      durationMs: Math.round(now() - started),
      grants: grantsMade,
      renewals,
      losses: holds.filter((h) => h.how !== "released").map((h) => h.how),
      fencedWrites: {
        answered: answered.length,
        accepted: answered.filter((w) => w.accepted).length,
        staleAccepted: answered.filter((w) => w.stale && w.accepted).length,
        staleRefused: answered.filter((w) => w.stale && !w.accepted).length,
      },
      recovery,
      beliefEndBeforeKeyGoneMs: { released: slack(true), lostOrExpired: slack(false) },
      renewalFailureKinds: failureKinds,
      foreverTtlReadings: foreverReadings,
      ttlSamples: [...grants.values()].reduce((n, g) => n + g.ttls.length, 0),
      keyChanges: Object.fromEntries(RESOURCES.map((r) => [r, lockHistory[r].length])),
      dataWrites: Object.fromEntries(RESOURCES.map((r) => [r, dataHistory[r].length])),
      log,
    };
    console.log(`etcd cluster figures: ${JSON.stringify(figures)}`);

    // ---- Checks. ----
    // (a) No two holders of one resource believe at once: at every reading, and by interval.
    assert.deepEqual(doubleBeliefs, [], "two holders believed at once");
    for (const resource of RESOURCES) {
      const mine = holds.filter((h) => h.resource === resource).sort((a, b) => a.start - b.start);
      for (let i = 0; i < mine.length; i += 1) {
        for (let j = i + 1; j < mine.length; j += 1) {
          const [a, b] = [mine[i], mine[j]];
          assert.ok(
            a.end <= b.start,
            `${resource}: ${a.holder} (token ${a.token}) believed until ${at(a.end)} ms, ${b.holder} (token ${b.token}) from ${at(b.start)} ms`,
          );
        }
      }
    }

    // (b) No belief outlives etcd's hold of the key: every hold ended before the first reply
    // that showed its key gone (etcd's own view, read on a running member), and every grant the
    // holders had is one etcd had.
    for (const hold of holds) {
      const created = lockHistory[hold.resource].find((c) => c.type === "PUT" && c.createRevision === hold.token);
      assert.ok(created !== undefined && created.modRevision === hold.token, `token ${hold.token} is no create of ${hold.resource}'s key`);
      assert.equal(created.value, hold.holder, `token ${hold.token}: the key named ${created.value}`);
      const grant = grants.get(hold.token);
      assert.ok(grant !== undefined, `etcd was never seen holding token ${hold.token} (${hold.holder})`);
      assert.equal(grant.holder, hold.holder, `token ${hold.token}`);
      if (grant.goneBy !== null) {
        assert.ok(
          hold.end <= grant.goneBy,
          `${hold.holder} believed token ${hold.token} until ${at(hold.end)} ms, but etcd had let the key go by ${at(grant.goneBy)} ms`,
        );
      }
    }
    // etcd's TTL readings agree with what was seen of the keys: a key that expired (nobody asked
    // to release it: not its holder, nor a holder handing back a grant it refused) is never gone
    // before its lease's reading said it would be (whole seconds, truncated, taken after it was
    // sent). A reading of etcd's "forever" is left out.
    for (const [token, grant] of grants) {
      const mine = holds.filter((h) => h.token === token);
      if (grant.goneBy === null || mine.length === 0 || releasedTokens.has(token)) continue;
      for (const { sentAt, ttl } of grant.ttls.filter((t) => t.ttl > 0 && t.ttl < 1_000_000)) {
        assert.ok(grant.goneBy >= sentAt + ttl * 1_000, `token ${token}: gone by ${at(grant.goneBy)} ms, but etcd said ${ttl} s left at ${at(sentAt)} ms`);
      }
    }
    // A leader change lengthens what the leases have left (etcd resets their TTL): the safe
    // direction, since a holder counts only what it was granted.
    for (const k of kills) {
      assert.ok(k.before.probe !== null && k.after.probe !== null, `round ${k.round}: probe TTLs ${k.before.probe}, ${k.after.probe}`);
      assert.ok(k.after.probe >= k.before.probe, `round ${k.round}: the probe lease's TTL went from ${k.before.probe} to ${k.after.probe} s`);
    }

    // (c) Fenced writes land in token order: in etcd's history of the data key (every write that
    // landed, answered or not), the tokens never go down (a stale holder's write after a newer
    // grant's would); and each was written while its grant's key existed.
    for (const resource of RESOURCES) {
      const tokens = dataHistory[resource].map((change) => Number(change.value));
      for (let i = 1; i < tokens.length; i += 1) {
        assert.ok(tokens[i] >= tokens[i - 1], `${resource}: data written with token ${tokens[i]} after token ${tokens[i - 1]}`);
      }
      for (const change of dataHistory[resource]) {
        const token = Number(change.value);
        const deleted = lockHistory[resource].find((c) => c.type === "DELETE" && c.modRevision > token);
        assert.ok(
          change.modRevision > token && (deleted === undefined || change.modRevision < deleted.modRevision),
          `${resource}: token ${token} written at revision ${change.modRevision}, outside its grant`,
        );
      }
      const mine = writes.filter((w) => w.resource === resource);
      const acceptedCount = mine.filter((w) => w.accepted === true).length;
      const unanswered = mine.filter((w) => w.accepted === null).length;
      const landed = dataHistory[resource].length;
      assert.ok(acceptedCount <= landed && landed <= acceptedCount + unanswered, `${resource}: ${landed} writes landed, ${acceptedCount} accepted, ${unanswered} unanswered`);
      const accepted = answered.filter((w) => w.resource === resource && w.accepted).sort((a, b) => a.revision - b.revision);
      for (let i = 1; i < accepted.length; i += 1) {
        assert.ok(
          accepted[i].token >= accepted[i - 1].token,
          `${resource}: write of token ${accepted[i].token} (${accepted[i].holder}) accepted after one of token ${accepted[i - 1].token}`,
        );
      }
      assert.ok(accepted.length > 0, `${resource}: no fenced write was accepted`);
    }

    // (d) Progress after each election: a grant or renewal of every resource within 15 s of
    // each kill.
    for (const r of recovery) {
      for (const [resource, first] of Object.entries(r.killToProgressPerResource)) {
        assert.ok(first !== null && Number.parseInt(first, 10) < 15_000, `round ${r.round}, ${resource}: kill to progress ${first}`);
      }
    }
    assert.ok(renewals > 0, "renewals");

    // (e) Every watcher resumed across both kills without missing or repeating a change: after
    // its first report (a snapshot of the key at some revision), it reported exactly etcd's own
    // history of the key from that revision on, each change once, in order, as etcd recorded it
    // (a create names its holder and carries its token, a delete frees the key).
    for (const resource of RESOURCES) {
      const [snapshot, ...changes] = watched[resource];
      assert.ok(snapshot !== undefined, `${resource}: the watcher reported nothing`);
      const expected = lockHistory[resource]
        .filter((c) => c.modRevision > snapshot.version)
        .map((c) =>
          c.type === "DELETE"
            ? { version: c.modRevision, holder: null, token: null }
            : { version: c.modRevision, holder: c.value, token: c.createRevision },
        );
      const reported = changes.map(({ version, holder, token }) => ({ version, holder, token }));
      assert.deepEqual(reported, expected, `${resource}: the watcher's reports differ from etcd's history`);
      assert.ok(reported.length >= 2, `${resource}: only ${reported.length} changes watched`);
    }
    const watchedAcross = kills.map((k) =>
      RESOURCES.map((r) => watched[r].filter((c) => c.at > k.killedAt && c.at < k.killedAt + 5_000).length).reduce((a, b) => a + b, 0),
    );
    console.log(`etcd cluster watch: ${JSON.stringify({ changes: Object.fromEntries(RESOURCES.map((r) => [r, watched[r].length - 1])), withinFiveSecondsOfEachKill: watchedAcross })}`);
  });
});
