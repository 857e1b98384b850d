// RedisHttpGrantor: leases kept in Redis behind an Upstash-style REST endpoint, over fetch. The
// WebAssembly core (src/wasm/adapters/redis.rs) translates the calls and does the IO; this class
// gives it its JavaScript shape.

import { RedisHttpGrantorCore } from "./glue/tenure.js";
import { construct, settled } from "./http-grantor.js";
import { Observation } from "./observe.js";

/**
 * A grantor keeping leases in Redis behind an Upstash-style REST endpoint (`POST` a JSON command
 * array, `Authorization: Bearer <token>`), for `LeaseHolder` or direct use.
 *
 * Each operation is one Lua script, atomic in Redis. A resource's grant is the key
 * `<keyPrefix>{<resource>}` holding `<token>:<holder>` with a `PX` expiry; the fencing token comes
 * from `INCR` of `<keyPrefix>{<resource>}:fence`. The token only grows while that counter
 * survives: Redis must keep it (persistence on, no eviction of these keys), and a replica promoted
 * after an asynchronous failover may have lost recent grants.
 *
 * Every request has its own timeout (`timeoutMs`) and also stops when the caller's `signal`
 * aborts. Network failures, timeouts, 5xx and 429 are retryable `ERR_GRANTOR` failures with a
 * `kind`; a Redis error (HTTP 400) is `bad_request`; a refusal is a definitive loss.
 *
 * A holder id names one holder: a grant asked for by the holder that already holds the resource
 * is treated as a retry of the grant that made it, and returns that grant (same token), reporting
 * only the time its key has left.
 *
 * Options: `baseUrl` (the REST URL), `token` (sent as `Authorization: Bearer <token>`),
 * `headers`, `timeoutMs` (per request, default 10 000), `keyPrefix` (default `"tenure:"`),
 * `credentials`, `fetch`.
 */
export class RedisHttpGrantor {
  #core;

  constructor(options = {}) {
    this.#core = construct(() => new RedisHttpGrantorCore(options));
  }

  /** The REST endpoint's URL. */
  get baseUrl() {
    return this.#core.baseUrl;
  }

  /** The Redis key holding `resource`'s grant; its fence counter is this plus `:fence`. */
  keyOf(resource) {
    return this.#core.keyOf(resource);
  }

  /** `{granted: true, token, durationMs}`, or `{granted: false, holder, expiresInMs?}`. */
  grant(args) {
    return settled(this.#core.grant(args));
  }

  /** `{renewed: true, token, durationMs}`, or `{renewed: false, reason}` (`expired`, `not_holder`). */
  renew(args) {
    return settled(this.#core.renew(args));
  }

  /** `{released}`: deletes the grant's key only if it still holds this grant; idempotent. */
  release(args) {
    return settled(this.#core.release(args));
  }

  /**
   * Who holds `resource`, change by change. Redis has no change feed over REST, so this polls:
   * the key and its fence counter are read in one script, 100 ms after a change and backing off
   * to 2 s while nothing changes. A grant and its end between two reads go unseen.
   */
  observe(resource, { signal } = {}) {
    return new Observation(construct(() => this.#core.observe(resource, signal)));
  }
}
