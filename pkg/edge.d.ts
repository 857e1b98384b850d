// Types of the grantors that live in the platforms' own stores: tenure/durable-object (below) and
// tenure/deno-kv, each in a block of its own.

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
