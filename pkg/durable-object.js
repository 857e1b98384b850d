// tenure/durable-object: LeaseGrantorObject, a grantor that lives in a Cloudflare Durable Object,
// for Workers that want leases, fenced writes and watches with no grantor server. Export it from
// your Worker, bind it as a Durable Object namespace, and reach it with DurableObjectGrantor (from
// "tenure") through the binding, or over HTTP through your Worker. Every decision is the
// WebAssembly grantor's (src/kv_grantor, the reference grantor's rules); this file only reaches
// the object's storage.

import module from "./glue-edge/tenure_bg.wasm";
import { kvGrantorCore, provideEdgeCore } from "./edge-core.js";

// workerd may not compile WebAssembly from bytes: the module arrives compiled, as an import.
provideEdgeCore(() => module);

const SERVER_KEY = "serverKey";

/**
 * A Durable Object serving the tenure grantor protocol (`POST /v1/grant`, `/v1/renew`,
 * `/v1/renew/batch`, `/v1/release`, `/v1/status`, `/v1/watch`, `/v1/revoke`, `/v1/fenced/write`,
 * `/v1/fenced/read` and the work queues' `/v1/queues/...`) from its transactional storage.
 *
 * One object serves every resource of one grantor name (DurableObjectGrantor's `name`): a
 * renewal batch spans resources, and one object orders all of them with no coordination. For
 * more throughput than one object gives, use several names. Records are kept for good, so tokens
 * only grow across evictions and restarts; expiry is judged on each request from the recorded
 * expiry on the object's clock.
 *
 * It sets no alarms, as nothing has to happen at an expiry: every request reads the recorded
 * expiry, a watch waiting on the object is woken at it by the object's own timer, and a watch cut
 * off by an eviction asks again and is answered from the record. An alarm would only wake the
 * object to change nothing.
 *
 * It answers every request it is sent: put your own checks (who may revoke, who may reach it at
 * all) in the Worker in front of it. To change the granted durations, subclass it and override
 * `grantorOptions(env)` to return `{minDurationMs, maxDurationMs}`.
 */
export class LeaseGrantorObject {
  #core = null;
  /** Each record's count of commits in this instance: what a commit checks its reads against. */
  #versions = new Map();
  /** Watches waiting for a record to change, by storage key. */
  #waiting = new Map();

  constructor(ctx, env) {
    const storage = ctx.storage;
    // No request is served until the server key is read (or made and stored).
    ctx.blockConcurrencyWhile(async () => {
      let serverKey = await storage.get(SERVER_KEY);
      if (!(serverKey instanceof Uint8Array)) {
        serverKey = crypto.getRandomValues(new Uint8Array(32));
        await storage.put(SERVER_KEY, serverKey);
      }
      this.#core = kvGrantorCore(this.#store(storage), { ...this.grantorOptions(env), serverKey });
    });
  }

  /** Settings for the grantor: `{minDurationMs, maxDurationMs}`; none by default. */
  grantorOptions(_env) {
    return {};
  }

  async fetch(request) {
    const body = request.method === "POST" ? await request.text() : "";
    const reply = await this.#core.serve(request.method, new URL(request.url).pathname, body);
    return new Response(reply.body, { status: reply.status, headers: { "content-type": "application/json" } });
  }

  /**
   * The store the grantor reads and commits through. The object runs one request's code at a
   * time, but a request waits for its reads; a commit is refused (and the request decided again)
   * when a record it read was written meanwhile.
   */
  #store(storage) {
    const keyOf = (kind, name) => `${kind}:${name}`;
    const versionOf = (key) => this.#versions.get(key) ?? 0;
    return {
      read: async (gets, ranges) => {
        const names = gets.map(([kind, name]) => keyOf(kind, name));
        const stamp = names.map((key) => [key, versionOf(key)]);
        const stored = names.length === 0 ? new Map() : await storage.get(names);
        const found = [];
        for (const [kind, start, end, limit] of ranges) {
          const prefix = `${kind}:`;
          const listed = await storage.list({ start: prefix + start, end: prefix + end, limit });
          const entries = [];
          for (const [key, text] of listed) {
            entries.push([key.slice(prefix.length), text]);
            stamp.push([key, versionOf(key)]);
          }
          found.push(entries);
          // A record added to the range since is a change too: the range's own version.
          stamp.push([prefix, versionOf(prefix)]);
        }
        return { values: names.map((key) => stored.get(key)), ranges: found, stamp };
      },
      commit: async (stamps, writes) => {
        if (stamps.flat().some(([key, version]) => versionOf(key) !== version)) return false;
        const puts = {};
        const deletes = [];
        for (const [kind, name, text] of writes) {
          if (text === undefined) deletes.push(keyOf(kind, name));
          else puts[keyOf(kind, name)] = text;
        }
        // Not awaited before the bookkeeping below, so nothing runs in between; the object's
        // output gate holds the reply until the writes are durable.
        const written = Promise.all([storage.put(puts), deletes.length === 0 ? null : storage.delete(deletes)]);
        for (const [kind, name] of writes) {
          const key = keyOf(kind, name);
          for (const changed of [key, `${kind}:`]) this.#versions.set(changed, versionOf(changed) + 1);
          for (const wake of this.#waiting.get(key) ?? []) wake();
          this.#waiting.delete(key);
        }
        await written;
        return true;
      },
      changed: (kind, name, waitMs, stamps) =>
        new Promise((resolve) => {
          const key = keyOf(kind, name);
          // A write that landed after the reads and before this wait has changed it already.
          const seen = stamps.flat().find(([read]) => read === key);
          if (seen !== undefined && versionOf(key) !== seen[1]) return resolve();
          const wake = () => {
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(() => {
            const waiting = (this.#waiting.get(key) ?? []).filter((other) => other !== wake);
            if (waiting.length === 0) this.#waiting.delete(key);
            else this.#waiting.set(key, waiting);
            resolve();
          }, waitMs);
          this.#waiting.set(key, [...(this.#waiting.get(key) ?? []), wake]);
        }),
    };
  }
}
