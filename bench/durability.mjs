// Durability under SIGKILL and load: hundreds of LeaseHolders on loopback compete for a few
// resources of one real reference grantor process, doing fenced writes with their tokens while
// they believe they hold, while the grantor is killed with SIGKILL again and again and restarted
// on the same database. Every call's send and reply times are recorded on this process's
// monotonic clock; afterwards three invariants are checked from those observations and the
// grantor's final state:
//
// 1. Tokens: per resource, every granted token is distinct, and a grant whose reply arrived
//    before another grant was sent has the smaller token.
// 2. No early re-grant: no two holders' belief windows overlap ([grant received, sent + duration −
//    margin] of the latest renewal applied, cut at a release or loss); no holder is granted a
//    resource before another holder's confirmed lease could have ended at the grantor (the reply
//    must arrive after that lease's send + duration); and after a restart, a lease the grantor
//    held at the kill lasts its full duration from the restart, so no other holder's grant may
//    arrive sooner.
// 3. Fenced writes: an accepted write's token is the last token; writes acknowledged in real
//    time order never go back in token order; a rejected write names a larger token some
//    holder was granted; and the fenced state read after every restart, and at the end, holds
//    an acknowledged write at least as new as every write acknowledged before the read (each
//    payload carries its token and a per-grant sequence number).
//
// `scripts/bench-durability` runs it at full size and prints the figures;
// `tests/js/durability.test.mjs` runs a shorter version in CI. Only 127.0.0.1 is used.

import { setMaxListeners } from "node:events";
import { pathToFileURL } from "node:url";
import { HttpGrantor, LeaseHolder } from "tenure";
import { startGrantor } from "../tests/js/support/grantor-process.mjs";

const now = () => performance.now();
/** Waits `ms`, or until `signal` aborts. */
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener("abort", done, { once: true });
  });
const between = ([low, high]) => low + Math.random() * (high - low);

/** The nearest-rank percentile `p` of `values`, or null when empty. */
function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

function countInto(counts, key) {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** The failure kind of an error a grantor call threw. */
const kindOf = (error) => error?.kind ?? error?.code ?? error?.name ?? "unknown";

/**
 * Wraps a grantor so that every grant, renewal and release is recorded with its send and reply
 * times; arguments and replies pass through unchanged (so whatever a grant's reply carries for
 * later calls reaches them).
 */
class RecordingGrantor {
  #inner;
  #calls;

  constructor(inner, calls) {
    this.#inner = inner;
    this.#calls = calls;
  }

  #record(op, args, call) {
    const entry = {
      op,
      holder: args.holder,
      resource: args.resource,
      token: args.token,
      sentAt: now(),
      receivedAt: null,
      reply: null,
      errorKind: null,
    };
    this.#calls.push(entry);
    return call().then(
      (reply) => {
        entry.receivedAt = now();
        entry.reply = reply;
        return reply;
      },
      (error) => {
        entry.receivedAt = now();
        entry.errorKind = kindOf(error);
        throw error;
      },
    );
  }

  grant(args) {
    return this.#record("grant", args, () => this.#inner.grant(args));
  }

  renew(args) {
    return this.#record("renew", args, () => this.#inner.renew(args));
  }

  release(args) {
    return this.#record("release", args, () => this.#inner.release(args));
  }
}

/**
 * Runs the load and the kills, then checks the invariants. Resolves `{figures, checks}`:
 * `checks` is a list of `{name, ok, detail}`.
 *
 * Options: `holders`, `resources`, `seconds`, `kills`, `leaseMs`, `marginMs`, `writeEveryMs`
 * (each holder's pause between fenced writes), `holdMs` ([min, max] a holder keeps a grant
 * before releasing it), `staleWriteShare` (how often a holder writes once more with its old
 * token after its hold ended, as one that paused past its lease would), `postgres` (a database
 * URL; SQLite when absent), `grantorOptions` (passed to `startGrantor`, e.g. extra `args`),
 * `clientOptions` (passed to the `HttpGrantor`, e.g. `apiKey`), `log` (progress lines).
 */
export async function runDurability({
  holders = 200,
  resources = 20,
  seconds = 60,
  kills = 50,
  leaseMs = 2_000,
  marginMs = 700,
  writeEveryMs = 150,
  holdMs = [1_000, 4_000],
  staleWriteShare = 0.3,
  postgres,
  grantorOptions = {},
  clientOptions = {},
  log = () => {},
} = {}) {
  const grantorProcess = await startGrantor({ ...grantorOptions, postgres });
  const calls = [];
  const acquisitions = [];
  const writes = [];
  const probes = [];
  const restarts = [];
  const writeErrors = {};
  const stop = new AbortController();
  // Every holder's campaign and pauses listen to it.
  setMaxListeners(holders * 2 + 10, stop.signal);
  // One HttpGrantor for every holder and write: it remembers each grant's secret for the calls
  // about that grant.
  const client = new HttpGrantor({ baseUrl: grantorProcess.url, timeoutMs: 2_000, ...clientOptions });
  const recording = new RecordingGrantor(client, calls);
  const names = Array.from({ length: resources }, (_, i) => `durability/r${i}`);
  let writeIds = 0;
  const started = now();

  /** One holder: campaigns, writes while it believes it holds, releases, and again. */
  async function runHolder(index) {
    const resource = names[index % names.length];
    const holderId = `holder-${index}`;
    const holder = new LeaseHolder(recording, {
      resource,
      holderId,
      leaseMs,
      marginMs,
      requestTimeoutMs: 1_000,
      retryDelayMs: 50,
      retryDelayMaxMs: 400,
    });
    let current = null;
    holder.onLeaseLost = (reason) => {
      if (current !== null && current.endAt === null) {
        current.endAt = now();
        current.endReason = reason;
      }
    };
    await sleep(Math.random() * 500, stop.signal);
    while (!stop.signal.aborted) {
      let result;
      try {
        result = await holder.acquire({ wait: true, signal: stop.signal });
      } catch {
        break; // stopped while campaigning
      }
      if (!result.acquired) {
        await sleep(between([50, 300]), stop.signal);
        continue;
      }
      const acquiredAt = now();
      const grant = calls.findLast(
        (c) => c.op === "grant" && c.holder === holderId && c.reply?.granted === true && c.reply.token === result.token,
      );
      current = {
        holder: holderId,
        resource,
        token: result.token,
        grant,
        acquiredAt,
        endAt: null,
        endReason: null,
        releaseSentAt: null,
      };
      acquisitions.push(current);
      const releaseAt = acquiredAt + between(holdMs);
      let seq = 0;
      const write = async (signal) => {
        seq += 1;
        const entry = {
          id: (writeIds += 1),
          resource,
          holder: holderId,
          token: result.token,
          seq,
          sentAt: now(),
          receivedAt: null,
          accepted: null,
          lastToken: null,
        };
        writes.push(entry);
        try {
          const reply = await client.fencedWrite(
            resource,
            { id: entry.id, holder: holderId, token: result.token, seq },
            result.token,
            { signal },
          );
          entry.receivedAt = now();
          entry.accepted = reply.accepted;
          entry.lastToken = reply.lastToken;
        } catch (error) {
          entry.receivedAt = now();
          countInto(writeErrors, kindOf(error));
        }
      };
      while (!stop.signal.aborted && now() < releaseAt && holder.lease.isSafelyHeld()) {
        await write(holder.signal);
        await sleep(between([writeEveryMs / 2, writeEveryMs * 1.5]), holder.signal);
      }
      if (current.endAt === null) {
        current.releaseSentAt = now();
        current.endAt = current.releaseSentAt;
        current.endReason = "released";
        await holder.release();
      }
      current = null;
      // Now and then, a holder that paused past its lease writes once more with its old token:
      // the resource must refuse it once a newer token has written.
      if (Math.random() < staleWriteShare && !stop.signal.aborted) {
        await sleep(between([leaseMs / 2, leaseMs * 1.5]), stop.signal);
        if (!stop.signal.aborted) await write(undefined);
      }
      await sleep(between([0, 200]), stop.signal);
    }
    return holder.stats();
  }

  /** Reads every resource's fenced state; checked against the writes acknowledged before. */
  async function probe(label) {
    await Promise.all(
      names.map(async (resource) => {
        for (let attempt = 0; attempt < 20; attempt += 1) {
          const sentAt = now();
          try {
            const state = await client.fencedRead(resource);
            probes.push({ label, resource, sentAt, receivedAt: now(), ...state });
            return;
          } catch {
            await sleep(100);
          }
        }
        throw new Error(`${label}: the fenced state of ${resource} could not be read`);
      }),
    );
  }

  async function killAndRestart(n) {
    const killAt = now();
    await grantorProcess.kill();
    const exitedAt = now();
    let lastError;
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const spawnAt = now();
      try {
        await grantorProcess.restart();
        const readyAt = now();
        restarts.push({ killAt, exitedAt, spawnAt, readyAt });
        log(`kill ${n}: restarted in ${(readyAt - killAt).toFixed(0)} ms`);
        return;
      } catch (error) {
        lastError = error; // the port may still be held for a moment
        await sleep(100);
      }
    }
    throw lastError;
  }

  let holderStats;
  try {
    const running = Array.from({ length: holders }, (_, i) => runHolder(i));
    const everyMs = (seconds * 1000) / (kills + 1);
    const reads = [];
    for (let n = 1; n <= kills; n += 1) {
      await sleep(started + n * everyMs - now());
      await killAndRestart(n);
      // Read while the load goes on: what was acknowledged before the kill must be there.
      reads.push(probe(`after kill ${n}`).catch((error) => probes.push({ label: "failed", error: String(error) })));
    }
    await sleep(started + seconds * 1000 - now());
    stop.abort();
    holderStats = await Promise.all(running);
    await Promise.all(reads);
    await probe("final");
  } finally {
    stop.abort();
    await grantorProcess.stop().catch(() => grantorProcess.kill());
  }
  const finishedAt = now();

  // A restarted SQLite grantor holds every lease it held for a full duration; on PostgreSQL a
  // grantor process keeps nothing, and leases end at their stored instant.
  const restartHoldsLeases = !postgres;
  const checks = checkInvariants({ calls, acquisitions, writes, probes, restarts, leaseMs, marginMs, restartHoldsLeases });
  const failureKinds = {};
  for (const stats of holderStats) {
    for (const [kind, n] of Object.entries(stats.failureKinds)) failureKinds[kind] = (failureKinds[kind] ?? 0) + n;
  }
  const lossReasons = {};
  for (const stats of holderStats) {
    for (const [reason, n] of Object.entries(stats.lossReasons)) lossReasons[reason] = (lossReasons[reason] ?? 0) + n;
  }
  const restartMs = restarts.map((r) => r.readyAt - r.killAt);
  const figures = {
    holders,
    resources,
    seconds: (finishedAt - started) / 1000,
    backend: postgres ? "postgres" : "sqlite",
    kills: restarts.length,
    grants: acquisitions.length,
    grantCalls: calls.filter((c) => c.op === "grant").length,
    denials: calls.filter((c) => c.op === "grant" && c.reply?.granted === false).length,
    renewals: calls.filter((c) => c.op === "renew" && c.reply?.renewed === true).length,
    renewalRefusals: calls.filter((c) => c.op === "renew" && c.reply?.renewed === false).length,
    releases: calls.filter((c) => c.op === "release" && c.reply?.released === true).length,
    writesAccepted: writes.filter((w) => w.accepted === true).length,
    writesRejected: writes.filter((w) => w.accepted === false).length,
    writesFailed: writes.filter((w) => w.accepted === null).length,
    probes: probes.length,
    callErrors: countBy(calls.filter((c) => c.errorKind !== null), (c) => `${c.op} ${c.errorKind}`),
    writeErrors,
    holderFailureKinds: failureKinds,
    lossReasons,
    restartP50Ms: percentile(restartMs, 50),
    restartP99Ms: percentile(restartMs, 99),
    restartMaxMs: percentile(restartMs, 100),
    grantLatencyP99Ms: percentile(
      calls.filter((c) => c.op === "grant" && c.reply !== null).map((c) => c.receivedAt - c.sentAt),
      99,
    ),
    sendWindowOverlaps: checks.sendWindowOverlaps,
  };
  return { figures, checks: checks.results };
}

function countBy(items, key) {
  const counts = {};
  for (const item of items) countInto(counts, key(item));
  return counts;
}

function groupBy(items, key) {
  const groups = new Map();
  for (const item of items) {
    const k = key(item);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(item);
  }
  return groups;
}

/** Checks the three invariants from the observations; see the file's header. */
export function checkInvariants({ calls, acquisitions, writes, probes, restarts, leaseMs, marginMs, restartHoldsLeases }) {
  const results = [];
  const problems = { tokens: [], overlap: [], fencing: [] };
  const note = (list, message) => {
    if (list.length < 20) list.push(message);
    else list.overflow = (list.overflow ?? 0) + 1;
  };

  // --- 1. tokens ---
  const granted = acquisitions.filter((a) => a.grant !== undefined);
  if (granted.length !== acquisitions.length) {
    note(problems.tokens, `${acquisitions.length - granted.length} acquisitions without a recorded grant reply`);
  }
  const byResource = groupBy(granted, (a) => a.resource);
  const tokensByResource = new Map();
  for (const [resource, list] of byResource) {
    const seen = new Map();
    for (const a of list) {
      if (!(Number.isSafeInteger(a.token) && a.token >= 1)) note(problems.tokens, `${resource}: token ${a.token}`);
      const earlier = seen.get(a.token);
      if (earlier !== undefined) {
        note(problems.tokens, `${resource}: token ${a.token} granted to ${earlier.holder} and ${a.holder}`);
      }
      seen.set(a.token, a);
    }
    tokensByResource.set(resource, new Set(seen.keys()));
    // Real-time order: the largest token whose grant reply arrived before this grant was sent.
    const byReply = [...list].sort((x, y) => x.grant.receivedAt - y.grant.receivedAt);
    for (const b of list) {
      for (const a of byReply) {
        if (a.grant.receivedAt >= b.grant.sentAt) break;
        if (a !== b && a.token >= b.token) {
          note(problems.tokens, `${resource}: ${a.holder} got ${a.token} before ${b.holder} asked, then ${b.holder} got ${b.token}`);
        }
      }
    }
  }
  results.push({
    name: "tokens never reused, increasing in grant order",
    ok: problems.tokens.length === 0,
    detail: problems.tokens.length === 0 ? `${granted.length} grants, all distinct and ordered` : problems.tokens,
  });

  // --- 2. no early re-grant ---
  const renewals = calls.filter((c) => c.op === "renew" && c.reply?.renewed === true);
  const renewalsOf = groupBy(renewals, (c) => `${c.resource}\u0000${c.holder}\u0000${c.token}`);
  let sendWindowOverlaps = 0;
  for (const [resource, list] of byResource) {
    for (const a of list) {
      // Every confirmed promise of this grant: its grant reply and each renewal reply.
      a.confirmed = [a.grant, ...(renewalsOf.get(`${resource}\u0000${a.holder}\u0000${a.token}`) ?? [])];
      // The core believes from the reply, until the latest applied renewal's send + duration −
      // margin; a renewal counts if its reply came while the lease was still believed.
      let end = a.grant.sentAt + a.grant.reply.durationMs - marginMs;
      for (const r of a.confirmed.slice(1).sort((x, y) => x.receivedAt - y.receivedAt)) {
        if (r.receivedAt < end) end = Math.max(end, r.sentAt + r.reply.durationMs - marginMs);
      }
      a.believedFrom = a.grant.receivedAt;
      a.believedUntil = Math.min(end, a.endAt ?? Infinity);
    }
    // (a) Belief windows of different holders never overlap.
    const byStart = [...list].sort((x, y) => x.believedFrom - y.believedFrom);
    let latest = null;
    for (const b of byStart) {
      if (latest !== null && latest.holder !== b.holder && b.believedFrom < latest.believedUntil) {
        note(problems.overlap, `${resource}: ${b.holder} (token ${b.token}) believed from ${b.believedFrom.toFixed(0)} while ${latest.holder} (token ${latest.token}) believed until ${latest.believedUntil.toFixed(0)}`);
      }
      if (latest === null || b.believedUntil > latest.believedUntil) latest = b;
    }
    // The same windows measured from the grant's send: they may overlap only by a grant request
    // slower than the margin (reported, and bounded by check (b) below).
    const bySend = [...list].sort((x, y) => x.grant.sentAt - y.grant.sentAt);
    let last = null;
    for (const b of bySend) {
      if (last !== null && last.holder !== b.holder && b.grant.sentAt < last.believedUntil) sendWindowOverlaps += 1;
      if (last === null || b.believedUntil > last.believedUntil) last = b;
    }
    // When A's holder was granted the resource again (a later token, before B's) and released that
    // grant, the lease ended there: the re-grant replaced A at the grantor, so A's promises and
    // A's hold through a restart end with it (the re-grant is checked in its own right).
    const endedByRegrant = (a, b) =>
      list.some(
        (c) =>
          c.holder === a.holder &&
          c.token > a.token &&
          c.token < b.token &&
          c.releaseSentAt !== null &&
          c.releaseSentAt < b.grant.receivedAt,
      );
    // (b) At the grantor: a grant to B arrives only after every confirmed promise to an earlier
    // grant A of another holder could have run out (its send + duration), unless A released first.
    for (const b of list) {
      for (const a of list) {
        if (a.holder === b.holder || a.token >= b.token || endedByRegrant(a, b)) continue;
        for (const x of a.confirmed) {
          let earliestEnd = x.sentAt + x.reply.durationMs;
          if (a.releaseSentAt !== null) earliestEnd = Math.min(earliestEnd, a.releaseSentAt);
          if (b.grant.receivedAt < earliestEnd) {
            note(problems.overlap, `${resource}: ${b.holder} granted ${b.token} ${(earliestEnd - b.grant.receivedAt).toFixed(0)} ms before ${a.holder}'s lease on ${a.token} (confirmed at ${x.sentAt.toFixed(0)}) could end`);
          }
        }
      }
    }
    // (c) The restart rule: a lease certainly live at a kill (a confirmed promise reaching past
    // it, no release sent) lasts `leaseMs` from the new process's start.
    for (const restart of restartHoldsLeases ? restarts : []) {
      for (const a of list) {
        if (a.releaseSentAt !== null && a.releaseSentAt <= restart.killAt) continue;
        const live = a.confirmed.some((x) => x.receivedAt <= restart.killAt && x.sentAt + x.reply.durationMs > restart.killAt);
        if (!live) continue;
        const heldUntil = restart.spawnAt + leaseMs;
        for (const b of list) {
          if (b.holder === a.holder || b.token <= a.token) continue;
          if (b.grant.receivedAt <= restart.spawnAt || b.grant.receivedAt >= heldUntil) continue;
          if (a.releaseSentAt !== null && a.releaseSentAt < b.grant.receivedAt) continue;
          if (endedByRegrant(a, b)) continue;
          note(problems.overlap, `${resource}: ${b.holder} granted ${b.token} ${(heldUntil - b.grant.receivedAt).toFixed(0)} ms into ${a.holder}'s lease on ${a.token}, held through the restart at ${restart.spawnAt.toFixed(0)}`);
        }
      }
    }
  }
  results.push({
    name: "no unexpired lease re-granted early (belief windows, grantor-side, restart rule)",
    ok: problems.overlap.length === 0,
    detail:
      problems.overlap.length === 0
        ? `${granted.length} grants, ${renewals.length} renewals, ${restarts.length} restarts${restartHoldsLeases ? "" : " (on PostgreSQL a restart holds nothing: no restart rule)"}`
        : problems.overlap,
  });

  // --- 3. fenced writes ---
  const writesById = new Map(writes.map((w) => [w.id, w]));
  for (const [resource, list] of groupBy(writes, (w) => w.resource)) {
    const tokens = tokensByResource.get(resource) ?? new Set();
    const answered = list.filter((w) => w.accepted !== null);
    for (const w of answered) {
      if (w.accepted && w.lastToken !== w.token) note(problems.fencing, `${resource}: write ${w.id} accepted with lastToken ${w.lastToken}, not ${w.token}`);
      if (!w.accepted && !(w.lastToken > w.token && tokens.has(w.lastToken))) {
        note(problems.fencing, `${resource}: write ${w.id} (token ${w.token}) rejected naming ${w.lastToken}`);
      }
    }
    // Real-time order: the largest token acknowledged as accepted before each write was sent.
    const acceptedByReply = answered.filter((w) => w.accepted).sort((x, y) => x.receivedAt - y.receivedAt);
    const bySend = [...answered].sort((x, y) => x.sentAt - y.sentAt);
    let i = 0;
    let maxAcked = null;
    for (const w of bySend) {
      while (i < acceptedByReply.length && acceptedByReply[i].receivedAt < w.sentAt) {
        if (maxAcked === null || acceptedByReply[i].token > maxAcked.token) maxAcked = acceptedByReply[i];
        i += 1;
      }
      if (maxAcked === null) continue;
      const seenToken = w.accepted ? w.token : w.lastToken;
      if (seenToken < maxAcked.token) {
        note(problems.fencing, `${resource}: write ${w.id} ${w.accepted ? "accepted" : "rejected"} at token ${seenToken} after write ${maxAcked.id} with ${maxAcked.token} was acknowledged`);
      }
    }
  }
  // Reads: the state holds a write that was sent, at least as new as every acknowledged one.
  for (const p of probes) {
    if (p.label === "failed") {
      note(problems.fencing, p.error);
      continue;
    }
    const acked = writes.filter((w) => w.resource === p.resource && w.accepted === true && w.receivedAt < p.sentAt);
    const newest = acked.reduce((m, w) => (m === null || w.token > m.token || (w.token === m.token && w.seq > m.seq) ? w : m), null);
    if (newest === null) continue;
    const found = p.payload === null ? undefined : writesById.get(p.payload?.id);
    if (found === undefined || found.resource !== p.resource || found.token !== p.lastToken || found.seq !== p.payload.seq) {
      note(problems.fencing, `${p.resource} (${p.label}): the state ${JSON.stringify(p.payload)} at ${p.lastToken} is no write that was sent`);
      continue;
    }
    if (found.token < newest.token || (found.token === newest.token && found.seq < newest.seq)) {
      note(problems.fencing, `${p.resource} (${p.label}): acknowledged write ${newest.id} (token ${newest.token}, seq ${newest.seq}) lost; the state is write ${found.id} (token ${found.token}, seq ${found.seq})`);
    }
  }
  const accepted = writes.filter((w) => w.accepted === true).length;
  results.push({
    name: "no accepted fenced write lost or reordered",
    ok: problems.fencing.length === 0,
    detail: problems.fencing.length === 0 ? `${accepted} accepted writes, ${probes.length} reads after restarts and at the end` : problems.fencing,
  });
  for (const list of Object.values(problems)) {
    if (list.overflow) list.push(`... and ${list.overflow} more`);
  }
  return { results, sendWindowOverlaps };
}

/** The figures and checks as printable lines. */
export function formatReport({ figures: f, checks }) {
  const ms = (v) => (v === null ? "—" : `${v.toFixed(0)} ms`);
  const kinds = (counts) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "none";
  const lines = [
    `durability: ${f.holders} holders on ${f.resources} resources, ${f.seconds.toFixed(1)} s, ${f.backend}, ${f.kills} SIGKILLs`,
    `  grants              ${f.grants} (of ${f.grantCalls} grant calls, ${f.denials} denials)`,
    `  renewals            ${f.renewals} (${f.renewalRefusals} refused), releases ${f.releases}`,
    `  fenced writes       ${f.writesAccepted} accepted, ${f.writesRejected} rejected, ${f.writesFailed} failed`,
    `  errors by kind      ${kinds(f.callErrors)}`,
    `  write errors        ${kinds(f.writeErrors)}`,
    `  losses              ${kinds(f.lossReasons)}`,
    `  restart (kill to listening)  p50 ${ms(f.restartP50Ms)}, p99 ${ms(f.restartP99Ms)}, max ${ms(f.restartMaxMs)}`,
    `  grant round trip p99         ${ms(f.grantLatencyP99Ms)}`,
    `  fenced-state reads           ${f.probes}`,
    `  windows from send overlapping ${f.sendWindowOverlaps} (a grant request slower than the margin; bounded by the grantor-side check)`,
  ];
  for (const check of checks) {
    lines.push(`  ${check.ok ? "PASS" : "FAIL"}  ${check.name}`);
    for (const line of [].concat(check.detail)) lines.push(`        ${line}`);
  }
  return lines;
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({
    options: {
      holders: { type: "string", default: "200" },
      resources: { type: "string", default: "20" },
      seconds: { type: "string", default: "60" },
      kills: { type: "string", default: "50" },
      backend: { type: "string", default: "sqlite" },
      verbose: { type: "boolean", default: false },
    },
  });
  let postgres;
  let database;
  if (values.backend === "postgres") {
    const { startPostgres } = await import("../tests/js/support/postgres.mjs");
    postgres = await startPostgres();
    database = await postgres.createDatabase();
  } else if (values.backend !== "sqlite") {
    throw new Error(`--backend must be sqlite or postgres, not ${values.backend}`);
  }
  try {
    const result = await runDurability({
      holders: Number(values.holders),
      resources: Number(values.resources),
      seconds: Number(values.seconds),
      kills: Number(values.kills),
      postgres: database,
      log: values.verbose ? (line) => console.log(line) : () => {},
    });
    for (const line of formatReport(result)) console.log(line);
    if (result.checks.some((c) => !c.ok)) process.exitCode = 1;
  } finally {
    await postgres?.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
