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
 * How often a watch looks for a change, in ms: Deno KV's own watch does not see writes by other
 * processes sharing a local database, so a watch reads the record's versionstamp again.
 */
const WATCH_POLL_MS = 50;

/**
 * The store object the grantor reads and commits through, over `kv` under `prefix`: commits are
 * atomic operations checked on the versionstamps read, so grantors in any number of processes
 * sharing the database decide as one.
 */
function kvStore(kv, prefix) {
  const keyOf = (kind, name) => [...prefix, kind, name];
  return {
    async read(gets, ranges) {
      const entries = [];
      for (let i = 0; i < gets.length; i += READ_CHUNK) {
        const chunk = gets.slice(i, i + READ_CHUNK).map(([kind, name]) => keyOf(kind, name));
        entries.push(...(await kv.getMany(chunk)));
      }
      const stamp = entries.map(({ key, versionstamp }) => ({ key, versionstamp }));
      const found = [];
      for (const [kind, start, end, limit] of ranges) {
        const listed = [];
        const selector = { start: keyOf(kind, start), end: keyOf(kind, end) };
        const options = limit === undefined ? {} : { limit, batchSize: Math.min(limit, 1000) };
        for await (const entry of kv.list(selector, options)) {
          listed.push([entry.key.at(-1), entry.value]);
          stamp.push({ key: entry.key, versionstamp: entry.versionstamp });
        }
        found.push(listed);
      }
      return { values: entries.map((entry) => entry.value ?? undefined), ranges: found, stamp };
    },
    async commit(stamps, writes) {
      let operation = kv.atomic();
      for (const check of stamps.flat()) operation = operation.check(check);
      for (const [kind, name, text] of writes) {
        operation = text === undefined ? operation.delete(keyOf(kind, name)) : operation.set(keyOf(kind, name), text);
      }
      try {
        return (await operation.commit()).ok;
      } catch (error) {
        // Another process holds SQLite's write lock: nothing was written, so the request is
        // decided again, as after a failed check.
        if (/database is locked/.test(String(error?.message))) return false;
        throw error;
      }
    },
    async changed(kind, name, waitMs) {
      const key = keyOf(kind, name);
      const { versionstamp } = await kv.get(key);
      const until = Date.now() + waitMs;
      while (Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(WATCH_POLL_MS, until - Date.now())));
        if ((await kv.get(key)).versionstamp !== versionstamp) return;
      }
    },
  };
}

/** The grantor's server key in `kv` under `prefix`: made once, by whichever process is first. */
async function serverKey(kv, prefix) {
  const key = [...prefix, "serverKey"];
  for (;;) {
    const stored = await kv.get(key);
    if (stored.value instanceof Uint8Array) return stored.value;
    const fresh = crypto.getRandomValues(new Uint8Array(32));
    const made = await kv.atomic().check({ key, versionstamp: null }).set(key, fresh).commit();
    if (made.ok) return fresh;
  }
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
 * one machine), `minDurationMs` and `maxDurationMs` (500 and 600000 by default), and
 * HttpGrantor's `timeoutMs` and `batchRenewals`.
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
    const { prefix = ["tenure"], clockSkewMs = 1000, minDurationMs, maxDurationMs, ...client } = options;
    if (!Array.isArray(prefix)) {
      throw new LeaseError("ERR_LEASE_CONFIG", "prefix must be an array of Deno KV key parts", { field: "prefix" });
    }
    const settings = { clockSkewMs, minDurationMs, maxDurationMs };
    checkOptions(settings);
    let served = null;
    const serve = () =>
      (served ??= serverKey(kv, prefix).then((key) => fetchFrom(kvGrantorCore(kvStore(kv, prefix), { serverKey: key, ...settings }))));
    super({
      ...client,
      baseUrl: "http://deno-kv.tenure.invalid",
      fetch: async (url, init) => (await serve())(url, init),
    });
  }
}
