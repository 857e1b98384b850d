// Types of the grantors that live in the platforms' own stores: tenure/deno-kv (DenoKvGrantor)
// and tenure/durable-object (LeaseGrantorObject), each in a block of its own.

import type { BatchRenewalsOptions, HttpGrantor } from "./index.d.ts";

// ------------------------------------------------------------------------------------------------
// tenure/deno-kv: DenoKvGrantor
// ------------------------------------------------------------------------------------------------

/** A part of a Deno KV key, as `Deno.KvKeyPart`. */
export type DenoKvKeyPart = Uint8Array | string | number | bigint | boolean | symbol;

/**
 * A `Deno.Kv`, from `Deno.openKv()`, as {@link DenoKvGrantor} uses it. Spelled out here rather
 * than as `Deno.Kv` so that these declarations need no Deno types (in Node or a bundler's
 * project); every `Deno.Kv` is one.
 */
export interface DenoKv {
  get(...args: never[]): Promise<unknown>;
  getMany(...args: never[]): Promise<unknown>;
  atomic(): unknown;
  watch(...args: never[]): unknown;
  /** Closes the database: what a program does with the one `openKv` gave it. */
  close(): void;
}

/** Options of {@link DenoKvGrantor}. */
export interface DenoKvGrantorOptions {
  /**
   * The key parts under which the grantor keeps its records (`[...prefix, "lease", resource]`,
   * `[...prefix, "fence", resource]` and `[...prefix, "serverKey"]`); `["tenure"]` by default.
   * Grantors with the same prefix on the same database are one grantor.
   */
  prefix?: readonly DenoKvKeyPart[];
  /**
   * How much longer every grant counts as live than its recorded expiry, in ms: a bound on how
   * far the clocks of the processes sharing the database may differ. 1000 by default, for Deno
   * Deploy, where grantors run on many machines; 0 where every process shares one clock (one
   * machine, one local database file).
   */
  clockSkewMs?: number;
  /** The shortest duration granted; a shorter request is granted this. 500 by default. */
  minDurationMs?: number;
  /** The longest duration granted; a longer request is granted this. 600 000 by default. */
  maxDurationMs?: number;
  /**
   * How often a watch (`observe()`, a waiting `acquire`) also re-reads its record, in ms: on a
   * local database Deno KV's watch reports only the changes made by this process (on Deno
   * Deploy, Deno documents it as reporting every change). 250 by default; 0 relies on the watch
   * alone.
   */
  watchPollMs?: number;
  /** Each call's own timeout (default 10 000 ms), as HttpGrantor's. */
  timeoutMs?: number;
  /** Renewals from every holder go out together, as HttpGrantor's. */
  batchRenewals?: boolean | BatchRenewalsOptions;
}

/**
 * `Deno.openKv(path)`, tried again for a while when it fails because the database is locked, as
 * it does when several processes open one local file at once.
 */
export function openKv(path?: string): Promise<DenoKv>;

/**
 * A grantor on Deno KV (a local database, or Deno Deploy's), for a `LeaseHolder` in Deno with
 * no grantor server: every process sharing the database (and prefix) is one grantor. It serves the tenure protocol to itself, in this process, so it does all an
 * {@link HttpGrantor} does: secrets, retries, batched renewals, `observe()`, fenced writes.
 *
 * Grants, renewals and releases are atomic operations checked on the versionstamps of the records
 * read, so grantors in any number of processes decide as one. Expiry is judged by the grantor
 * from the expiry it records, never by Deno KV's `expireIn` (only the earliest time a record may
 * be deleted), and lease records are kept forever, so tokens only grow.
 */
export class DenoKvGrantor extends HttpGrantor {
  /**
   * @throws {LeaseError} `ERR_LEASE_CONFIG` naming the bad option, or `kv` when it is not a
   *   `Deno.Kv`
   */
  constructor(kv: DenoKv, options?: DenoKvGrantorOptions);
}

// ---- tenure/durable-object ---------------------------------------------------------------------

/** What {@link LeaseGrantorObject.grantorOptions} returns: the grantor's settings. */
export interface LeaseGrantorObjectOptions {
  /** Shortest duration granted, in ms (a request's `durationMs` is raised to it); default 500. */
  minDurationMs?: number;
  /** Longest duration granted, in ms (a request's `durationMs` is cut to it); default 600 000. */
  maxDurationMs?: number;
  /**
   * How much longer every grant counts as live than its recorded expiry, in ms; default 0. A
   * bound on how far the clocks of the machines the object may move between differ.
   */
  clockSkewMs?: number;
}

/**
 * A Cloudflare Durable Object serving the tenure grantor protocol (`POST /v1/grant`,
 * `/v1/renew`, `/v1/renew/batch`, `/v1/release`, `/v1/status`, `/v1/watch`, `/v1/revoke`,
 * `/v1/fenced/write`, `/v1/fenced/read`) from its transactional storage. Export it from your
 * Worker (`export { LeaseGrantorObject } from "tenure/durable-object"`), bind it as a Durable
 * Object namespace, and reach it with `DurableObjectGrantor` from "tenure" through the binding,
 * or over HTTP through your Worker.
 *
 * One object serves every resource of one grantor name (DurableObjectGrantor's `name`): a
 * renewal batch spans resources, and one object orders all of them. For more throughput than one
 * object gives, use several names. Records are kept for good, so tokens only grow across
 * evictions and restarts; expiry is judged on each request from the recorded expiry on the
 * object's clock, so the object sets no alarms.
 *
 * It answers every request it is sent: put your own checks (who may revoke, who may reach it at
 * all) in the Worker in front of it.
 */
export declare class LeaseGrantorObject {
  /** Called by workerd with the object's state (`ctx.storage` holds the records) and `env`. */
  constructor(ctx: unknown, env: unknown);
  /** Override in a subclass to change the grantor's settings; none by default. */
  grantorOptions(env: unknown): LeaseGrantorObjectOptions;
  /** Serves one protocol request: `POST /v1/...` with a JSON body, answered with JSON. */
  fetch(request: Request): Promise<Response>;
}
