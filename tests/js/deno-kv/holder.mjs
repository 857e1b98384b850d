// A Deno process holding leases through DenoKvGrantor over a local Deno KV database shared with
// other such processes, for processes.test.mjs. Every line printed is a JSON event; times are
// Date.now(), the machine's wall clock, which every process on it reads alike (and which the
// grantors judge expiry on), so events of different processes compare.
//
//   deno run --unstable-kv ... holder.mjs <database> <id> <mode> <settings as JSON>
//
// Modes:
// - contend: for each of `resources` at once, `rounds` times: acquire (waiting), hold for a while
//   writing through two fenced resources with the lease's token (the grantor's own, and one kept
//   in Deno KV beside it with a log of every write accepted), release.
// - hold: acquire `resource` and keep it, renewing, until killed.
// - take: acquire `resource` (waiting), write through both fenced resources, release.
// - inspect: read commands on stdin: {read: resource} prints the lease record as stored,
//   {log: resource} the fenced log, {stale: resource, token} writes with a stale token.

import { DenoKvGrantor, openKv } from "tenure/deno-kv";
import { LeaseHolder } from "tenure";

const [path, id, mode, settingsText = "{}"] = Deno.args;
const settings = JSON.parse(settingsText);
const kv = await openKv(path);
// Every process is on this machine, on one clock: no skew to allow for (see the guide).
const grantor = new DenoKvGrantor(kv, { clockSkewMs: 0 });

const emit = (event, fields = {}) => console.log(JSON.stringify({ event, id, at: Date.now(), ...fields }));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The design's fenced resource, kept in Deno KV: a write is accepted only if no larger token
 * wrote before it, and each accepted write is logged under the next sequence number, in one
 * atomic operation. Another process's write in between fails the check, and it is tried again.
 */
async function protectedWrite(resource, token, payload) {
  for (;;) {
    let current;
    try {
      current = await kv.get(["protected", resource]);
      const { lastToken = 0, writes = 0 } = current.value ?? {};
      if (token < lastToken) return { accepted: false, lastToken };
      const next = { lastToken: token, writes: writes + 1 };
      const done = await kv
        .atomic()
        .check(current)
        .set(["protected", resource], next)
        .set(["protected-log", resource, next.writes], { token, by: id, payload })
        .commit();
      if (done.ok) return { accepted: true, seq: next.writes };
    } catch (error) {
      // Another process held SQLite's write lock; nothing was written.
      if (!/database is locked/.test(error.message)) throw error;
      await sleep(Math.random() * 5);
    }
  }
}

/** Writes `payload` with the held lease's token through both fenced resources; emits `wrote`. */
async function writeBoth(holder, resource, token, payload) {
  // Only while the lease is believed held: the belief is what the test checks against the others'.
  if (!holder.lease.isSafelyHeld()) return emit("not-safe", { resource, token });
  const fenced = await grantor.fencedWrite(resource, payload, token);
  const kept = await protectedWrite(resource, token, payload);
  emit("wrote", { resource, token, fenced: fenced.accepted, kept: kept.accepted, seq: kept.seq });
}

function holderFor(resource) {
  const { leaseMs = 2_000, marginMs = 600 } = settings;
  const holder = new LeaseHolder(grantor, { resource, holderId: id, leaseMs, marginMs });
  holder.onLeaseLost = (reason) => emit("lost", { resource, reason });
  holder.onRenewed = (token) => emit("renewed", { resource, token });
  return holder;
}

/** Acquires `resource`, waiting; emits `acquired` once held. */
async function acquire(holder, resource) {
  emit("campaigning", { resource });
  const held = await holder.acquire({ wait: true, signal: AbortSignal.timeout(settings.waitMs ?? 120_000) });
  if (!held.acquired) throw new Error(`${resource}: not acquired: ${JSON.stringify(held)}`);
  emit("acquired", { resource, token: held.token });
  return held.token;
}

async function release(holder, resource, token) {
  emit("releasing", { resource, token });
  await holder.release();
  emit("released", { resource, token });
}

if (mode === "contend") {
  const { resources, rounds, holdMs: [shortest, longest] } = settings;
  await Promise.all(
    resources.map(async (resource) => {
      const holder = holderFor(resource);
      for (let round = 1; round <= rounds; round += 1) {
        const token = await acquire(holder, resource);
        // Some holds outlast a renewal or two, so that renewals run while others wait.
        const holdMs = shortest + Math.random() * (longest - shortest);
        const until = performance.now() + holdMs;
        let step = 0;
        do {
          step += 1;
          await writeBoth(holder, resource, token, { round, step });
          await sleep(Math.min(100, Math.max(0, until - performance.now())));
        } while (performance.now() < until);
        await release(holder, resource, token);
      }
      emit("stats", { resource, stats: holder.stats() });
    }),
  );
  emit("done");
} else if (mode === "hold") {
  const holder = holderFor(settings.resource);
  await acquire(holder, settings.resource);
  await new Promise(() => {}); // renewing until killed
} else if (mode === "take") {
  const { resource } = settings;
  const holder = holderFor(resource);
  const token = await acquire(holder, resource);
  await writeBoth(holder, resource, token, { took: id });
  await release(holder, resource, token);
  emit("done");
} else if (mode === "inspect") {
  emit("ready");
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of Deno.stdin.readable) {
    buffered += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const command = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      if (command.read) {
        const { value } = await kv.get(["tenure", "lease", command.read]);
        emit("record", { resource: command.read, record: value && JSON.parse(new TextDecoder().decode(value)) });
      } else if (command.log) {
        const log = [];
        for await (const entry of kv.list({ prefix: ["protected-log", command.log] })) log.push({ seq: entry.key[2], ...entry.value });
        emit("log", { resource: command.log, log });
      } else if (command.stale) {
        const fenced = await grantor.fencedWrite(command.stale, { stale: true }, command.token);
        const kept = await protectedWrite(command.stale, command.token, { stale: true });
        emit("stale", { resource: command.stale, fenced, kept });
      }
    }
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
kv.close();
