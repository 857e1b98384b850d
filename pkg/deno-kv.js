// tenure/deno-kv: DenoKvGrantor, a grantor whose state is Deno KV (a local database, or Deno
// Deploy's), for LeaseHolder and WorkClaimer in Deno with no grantor server. Every decision is the
// WebAssembly grantor's (src/kv_grantor, the reference grantor's rules); this file only reaches
// Deno KV: reads, atomic commits checked on the versionstamps read, and watches.

import { HttpGrantor } from "./http-grantor.js";
import { LeaseError } from "./errors.js";
import { checkOptions, fetchFrom, kvGrantorCore, provideEdgeCore } from "./edge-core.js";
import { inlineEdgeModule } from "./inline-edge.js";

provideEdgeCore(inlineEdgeModule);

/** Deno KV reads at most this many keys at once (`getMany`). */
const READ_CHUNK = 10;

/**
 * How long a read or commit that found the database locked is tried again. Processes sharing a
 * local database take turns writing to its SQLite file, and Deno KV reports a write that lost
 * the turn as "database is locked" without retrying it; such a commit wrote nothing (SQLite rolls
 * it back), so the same commit is tried again, with its checks on the same versionstamps.
 */

/** How often a watch re-reads its record by default: see `watchPollMs`. */
const WATCH_POLL_MS = 250;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `error` is SQLite's "database is locked": another connection held the write lock. */
function isLocked(error) {
  return /database (table )?is locked/i.test(String(error?.message ?? ""));
}

/** How many times opening the database or making its server key is tried while it is locked. */
const LOCKED_ATTEMPTS = 200;

/**
 * `operation()`, tried again while it fails because the database is locked, at most
 * `LOCKED_ATTEMPTS` times (about 2 s): for opening the database and making its server key,
 * before there is a grantor to decide when to retry. A grantor's own reads and commits report a
 * locked database to it instead (see `busy`), and it decides when to try again.
 */
async function unlocked(operation) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await operation();
    } catch (error) {
      if (!isLocked(error) || attempt >= LOCKED_ATTEMPTS) throw error;
      // Random, so that processes that collided do not collide again; growing, up to 16 ms.
      await sleep(Math.random() * 2 ** Math.min(attempt, 4));
    }
  }
}

/**
 * `read()` that reports a locked database to the grantor as the store being busy (nothing was
 * read), so that it decides again after its own backoff, as after a refused commit.
 */
async function busy(read) {
  try {
    return await read();
  } catch (error) {
    if (isLocked(error)) throw Object.assign(new Error("the database is locked", { cause: error }), { busy: true });
    throw error;
  }
}

/**
 * A record's text as stored: UTF-8 bytes, not a string. Deno KV stores a string of any character
 * past Latin-1 at two bytes a character, so a fenced payload the protocol accepts (63 KiB of
 * UTF-8) could exceed its 64 KiB for a value as a string, but never as its UTF-8.
 */
function textOf(value) {
  if (value === null || value === undefined) return undefined;
  return value instanceof Uint8Array ? decoder.decode(value) : value;
}

const recordId = (kind, name) => JSON.stringify([kind, name]);

/**
 * The store object the grantor reads and commits through, over `kv` under `prefix`: commits are
 * atomic operations checked on the versionstamps read, so grantors in any number of processes
 * sharing the database decide as one.
 */
function kvStore(kv, prefix, watchPollMs) {
  const keyOf = (kind, name) => [...prefix, kind, name];
  return {
    async read(gets, ranges) {
      const entries = [];
      for (let i = 0; i < gets.length; i += READ_CHUNK) {
        const chunk = gets.slice(i, i + READ_CHUNK).map(([kind, name]) => keyOf(kind, name));
        entries.push(...(await busy(() => kv.getMany(chunk))));
      }
      const checks = entries.map(({ key, versionstamp }) => ({ key, versionstamp }));
      const seen = new Map(gets.map(([kind, name], i) => [recordId(kind, name), entries[i].versionstamp]));
      const found = [];
      for (const [kind, start, end, limit] of ranges) {
        const selector = { start: keyOf(kind, start), end: keyOf(kind, end) };
        const options = limit === undefined ? {} : { limit, batchSize: Math.min(limit, 1000) };
        const listed = await busy(async () => {
          const entries = [];
          for await (const entry of kv.list(selector, options)) entries.push(entry);
          return entries;
        });
        for (const { key, versionstamp } of listed) checks.push({ key, versionstamp });
        found.push(listed.map((entry) => [entry.key.at(-1), textOf(entry.value)]));
      }
      return {
        values: entries.map((entry) => textOf(entry.value)),
        ranges: found,
        // Several reads are not one snapshot; the commit's checks on every versionstamp read
        // are what make the decision one: any record changed since fails the commit.
        stamp: { checks, seen },
      };
    },
    async commit(stamps, writes) {
      const operation = kv.atomic();
      for (const stamp of stamps) for (const check of stamp.checks) operation.check(check);
      for (const [kind, name, text] of writes) {
        if (text === undefined) operation.delete(keyOf(kind, name));
        else operation.set(keyOf(kind, name), encoder.encode(text));
      }
      try {
        return (await operation.commit()).ok;
      } catch (error) {
        // A commit that lost its turn at the lock wrote nothing: the grantor decides it again.
        if (isLocked(error)) return false;
        throw error;
      }
    },
    changed: (kind, name, waitMs, stamps) => {
      const id = recordId(kind, name);
      const seen = stamps.find((stamp) => stamp.seen.has(id))?.seen.get(id) ?? null;
      return changed(kv, keyOf(kind, name), seen, waitMs, watchPollMs);
    },
  };
}

/**
 * Resolves once the record at `key` has another versionstamp than `seen` (at once if it already
 * has), or after `waitMs`. Deno KV's watch reports a change at once, but only a change made in
 * this process when the database is a local file (one made by another process sharing it is
 * never reported), so the record is also read every `pollMs` (0: never).
 */
async function changed(kv, key, seen, waitMs, pollMs) {
  let finished = false;
  let stop;
  const stopped = new Promise((resolve) => (stop = resolve));
  const timers = new Set();
  const after = (ms) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => timers.delete(timer) && resolve(), ms);
      timers.add(timer);
    });
  const reader = kv.watch([key]).getReader();
  // A watch that ends (the database was closed) answers too: the grantor reads the record again,
  // and that read fails or finds what changed. One that fails leaves the polls and the wait (were
  // it to answer, a watch failing at once would have the grantor read without pause).
  const watched = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || value[0].versionstamp !== seen) return;
    }
  })().catch(() => stopped);
  const polled = (async () => {
    if (!(pollMs > 0)) return stopped;
    for (;;) {
      await after(pollMs);
      if (finished) return;
      // A read that found the database locked is no answer: the next poll reads again.
      const entry = await kv.get(key).catch((error) => (isLocked(error) ? null : Promise.reject(error)));
      if (finished || (entry !== null && entry.versionstamp !== seen)) return;
    }
  })();
  polled.catch(() => {}); // a failed read fails the wait below, or comes after it, unseen
  try {
    await Promise.race([watched, polled, after(waitMs)]);
  } finally {
    finished = true;
    stop();
    for (const timer of timers) clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}

/** The grantor's server key in `kv` under `prefix`: made once, by whichever process is first. */
async function serverKey(kv, prefix) {
  const key = [...prefix, "serverKey"];
  for (;;) {
    const stored = await unlocked(() => kv.get(key));
    if (stored.value instanceof Uint8Array) return stored.value;
    const fresh = crypto.getRandomValues(new Uint8Array(32));
    const made = await unlocked(() => kv.atomic().check({ key, versionstamp: null }).set(key, fresh).commit());
    if (made.ok) return fresh;
  }
}

/**
 * `Deno.openKv(path)`, tried again for a while when it fails because the database is locked:
 * processes that open one local file at once (starting together) take turns at SQLite's lock,
 * and Deno reports a turn lost as "database is locked" rather than waiting for it.
 */
export async function openKv(path) {
  return unlocked(() => Deno.openKv(path));
}

/**
 * A grantor on Deno KV: `new DenoKvGrantor(kv, options)` with a `Deno.Kv` (from
 * `Deno.openKv()`), for a LeaseHolder or WorkClaimer as any grantor. It speaks the tenure
 * protocol to itself, in this process (an HttpGrantor whose requests never leave it), so it does
 * all an HttpGrantor does: secrets, retries, batched renewals, `observe()`.
 *
 * Options: `prefix` (an array of key parts under which it keeps its records, `["tenure"]` by
 * default), `clockSkewMs` (how much longer every grant counts as live, for grantors on machines
 * whose clocks may differ: 1000 by default; 0 is right when every process shares one clock, as on
 * one machine), `minDurationMs` and `maxDurationMs` (500 and 600000 by default), `watchPollMs`
 * (how often a watch also re-reads its record, for changes Deno KV's watch does not report: 250
 * by default; 0 relies on the watch alone, which on a local database reports only this process's
 * own changes, and on Deno Deploy, as Deno documents it, every change), and HttpGrantor's
 * `timeoutMs` and `batchRenewals`.
 *
 * Expiry is judged by the grantor from the expiry it records, never by Deno KV's `expireIn`
 * (which is only the earliest time a record may be deleted), and lease records are never deleted,
 * so every token is larger than the last.
 */
export class DenoKvGrantor extends HttpGrantor {
  constructor(kv, options = {}) {
    if (typeof kv?.atomic !== "function" || typeof kv?.getMany !== "function") {
      throw new LeaseError("ERR_LEASE_CONFIG", "kv must be a Deno.Kv, from Deno.openKv()", { field: "kv" });
    }
    const { prefix = ["tenure"], clockSkewMs = 1000, watchPollMs = WATCH_POLL_MS, minDurationMs, maxDurationMs, ...client } = options;
    if (!Array.isArray(prefix)) {
      throw new LeaseError("ERR_LEASE_CONFIG", "prefix must be an array of Deno KV key parts", { field: "prefix" });
    }
    const settings = { clockSkewMs, minDurationMs, maxDurationMs };
    // The grantor's checks, watchPollMs (which only this store uses) among them.
    checkOptions({ ...settings, watchPollMs });
    // Made on first use (the server key is read, or made, in the database); a failure is not
    // kept, so the next request tries again.
    let served = null;
    const start = async () => {
      const key = await serverKey(kv, prefix);
      // Deno KV's atomic operations are small: large batches and enqueues go in parts.
      const core = kvGrantorCore(kvStore(kv, prefix, watchPollMs), { serverKey: key, smallCommits: true, ...settings });
      return fetchFrom(core);
    };
    const serve = () => (served ??= start().catch((error) => ((served = null), Promise.reject(error))));
    super({
      ...client,
      baseUrl: "http://deno-kv.tenure.invalid",
      fetch: async (url, init) => (await serve())(url, init),
    });
  }
}
